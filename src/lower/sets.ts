// Python's set and frozenset at compile time: the value, its methods and
// operators, and the order CPython iterates (and prints) it in.
//
// Elements are kept by `dictKey` (the same hashing as dict keys). CPython
// iterates a set in hash-table order; for ints (hash(i) == i) that order is
// simulated here exactly (open addressing with CPython's linear probes and
// perturbation, and its resize rule), so `print({3, 1, 2})` prints
// `{1, 2, 3}` as CPython does. Strings hash randomly per CPython process, so
// no order is "the" order for them: insertion order is used.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../common/span.js';
import { PyObject, dictKey, typeName, type CallArgs, type PyValue } from './values.js';

/** What happened to a set's table, for its iteration order: an insertion, or a merge's resize (`{ merge: n }`: n elements coming). */
type SetEvent = PyValue | { merge: number };

export class PySet extends PyObject {
  readonly entries = new Map<string, PyValue>();
  private readonly events: SetEvent[] = [];
  constructor(
    readonly typeName: 'set' | 'frozenset',
    items: Iterable<PyValue> = [],
  ) {
    super();
    for (const x of items) this.add(x);
  }
  /** A set made by CPython's set_merge of `src` (set(s), s.copy(), a set display of 3+ constants). */
  static merged(kind: 'set' | 'frozenset', src: PySet): PySet {
    const s = new PySet(kind);
    s.merge(src);
    return s;
  }
  /** CPython's set_merge: one resize for all of `src`, then its elements in its order. */
  merge(src: PySet): void {
    this.events.push({ merge: src.entries.size });
    for (const x of src.items()) this.add(x);
  }
  add(v: PyValue): void {
    const k = dictKey(v);
    if (this.entries.has(k)) return;
    this.entries.set(k, v);
    this.events.push(v);
  }
  has(v: PyValue): boolean {
    return this.entries.has(dictKey(v));
  }
  delete(v: PyValue): boolean {
    const k = dictKey(v);
    if (!this.entries.delete(k)) return false;
    const i = this.events.findIndex((e) => !(e instanceof Object && 'merge' in e) && dictKey(e as PyValue) === k);
    if (i >= 0) this.events.splice(i, 1);
    return true;
  }
  /** The elements in CPython's iteration order. */
  items(): PyValue[] {
    const xs = [...this.entries.values()];
    if (!xs.every((x) => typeof x === 'bigint' || typeof x === 'boolean')) return xs;
    return cpythonIntOrder(this.events as (bigint | boolean | { merge: number })[]);
  }
}

/** A set element as the program wrote it: an unhashable value is Python's TypeError. */
export function hashable(v: PyValue, span: Span): PyValue {
  try {
    dictKey(v);
  } catch {
    throw new CompileError(`TypeError: unhashable type: '${typeName(v)}'`, span);
  }
  return v;
}

// CPython 3.11 Objects/setobject.c: LINEAR_PROBES 9, PERTURB_SHIFT 5, table starts at 8 slots and,
// when fill*5 >= mask*3, grows to the smallest power of two above used*4 (used*2 past 50,000).
function cpythonIntOrder(events: (bigint | boolean | { merge: number })[]): (bigint | boolean)[] {
  let size = 8;
  let table: ((bigint | boolean) | undefined)[] = new Array<bigint | boolean | undefined>(size);
  let used = 0;
  const M = (1n << 64n) - 1n;
  const hashOf = (x: bigint | boolean): bigint => {
    let n = typeof x === 'boolean' ? (x ? 1n : 0n) : x;
    // hash(int): modulo 2**61 - 1 keeping the sign; hash(-1) is -2
    const P = (1n << 61n) - 1n;
    const neg = n < 0n;
    n = (neg ? -n : n) % P;
    if (neg) n = -n;
    if (n === -1n) n = -2n;
    return n & M; // as size_t
  };
  const insert = (x: bigint | boolean): void => {
    const mask = BigInt(table.length - 1);
    const h = hashOf(x);
    let perturb = h;
    let i = h & mask;
    for (;;) {
      if (table[Number(i)] === undefined) break;
      let found = false;
      if (i + 9n <= mask) {
        for (let j = 1n; j <= 9n; j++) {
          if (table[Number(i + j)] === undefined) {
            i += j;
            found = true;
            break;
          }
        }
      }
      if (found) break;
      perturb >>= 5n;
      i = (i * 5n + 1n + perturb) & mask;
    }
    table[Number(i)] = x;
    used++;
  };
  const resize = (want: number): void => {
    let n = 8;
    while (n <= want) n *= 2;
    const old = table.filter((v) => v !== undefined);
    size = n;
    table = new Array<bigint | boolean | undefined>(size);
    used = 0;
    for (const y of old) insert(y!);
  };
  for (const x of events) {
    if (typeof x === 'object') {
      if ((used + x.merge) * 5 >= (table.length - 1) * 3) resize((used + x.merge) * 2);
      continue;
    }
    insert(x);
    if (used * 5 >= (table.length - 1) * 3) resize(used > 50000 ? used * 2 : used * 4);
  }
  return table.filter((v): v is bigint | boolean => v !== undefined);
}

/** `a op b` for two sets (| & - ^); undefined when the operands are not both sets. */
export function setBinop(op: string, a: PyValue, b: PyValue): PySet | undefined {
  if (!(a instanceof PySet && b instanceof PySet)) return undefined;
  const kind = a.typeName;
  switch (op) {
    case '|': {
      const s = PySet.merged(kind, a);
      s.merge(b);
      return s;
    }
    case '&': return new PySet(kind, [...a.entries.values()].filter((x) => b.has(x)));
    case '-': return new PySet(kind, [...a.entries.values()].filter((x) => !b.has(x)));
    case '^': return new PySet(kind, [...[...a.entries.values()].filter((x) => !b.has(x)), ...[...b.entries.values()].filter((x) => !a.has(x))]);
  }
  return undefined;
}

/** Subset comparisons (<, <=, >, >=) and equality of two sets; undefined when not both sets. */
export function setCompare(op: string, a: PyValue, b: PyValue): boolean | undefined {
  if (!(a instanceof PySet && b instanceof PySet)) return undefined;
  const sub = (x: PySet, y: PySet): boolean => [...x.entries.keys()].every((k) => y.entries.has(k));
  const eq = a.entries.size === b.entries.size && sub(a, b);
  switch (op) {
    case '==': return eq;
    case '!=': return !eq;
    case '<=': return sub(a, b);
    case '<': return sub(a, b) && !eq;
    case '>=': return sub(b, a);
    case '>': return sub(b, a) && !eq;
  }
  return undefined;
}

/**
 * A set method bound to `obj` (undefined when `name` is not one). `items`
 * gives the elements of an iterable argument (the evaluator's iteration).
 */
export function setMethod(obj: PySet, name: string, items: (v: PyValue, span: Span) => PyValue[]): ((c: CallArgs) => PyValue) | undefined {
  const others = (c: CallArgs): PySet[] => c.args.map((a) => (a instanceof PySet ? a : new PySet('set', items(a, c.span).map((x) => hashable(x, c.span)))));
  const mutable = (c: CallArgs): void => {
    if (obj.typeName === 'frozenset') throw new CompileError(`AttributeError: 'frozenset' object has no attribute '${name}'`, c.span);
  };
  const combine = (op: string) => (c: CallArgs): PySet => others(c).reduce<PySet>((acc, o) => setBinop(op, acc, o)!, PySet.merged(obj.typeName, obj));
  switch (name) {
    case 'add': return (c) => (mutable(c), obj.add(hashable(c.args[0] ?? null, c.span)), null);
    case 'remove': return (c) => {
      mutable(c);
      const v = c.args[0] ?? null;
      if (!obj.delete(hashable(v, c.span))) throw new CompileError(`KeyError: ${typeof v === 'string' ? `'${v}'` : String(v)}`, c.span);
      return null;
    };
    case 'discard': return (c) => (mutable(c), obj.delete(hashable(c.args[0] ?? null, c.span)), null);
    case 'pop': return (c) => {
      mutable(c);
      const first = obj.items()[0];
      if (first === undefined) throw new CompileError("KeyError: 'pop from an empty set'", c.span);
      obj.delete(first);
      return first;
    };
    case 'clear': return (c) => (mutable(c), obj.entries.clear(), null);
    case 'update': return (c) => {
      mutable(c);
      for (const o of others(c)) obj.merge(o);
      return null;
    };
    case 'copy': return () => PySet.merged(obj.typeName, obj);
    case 'union': return combine('|');
    case 'intersection': return combine('&');
    case 'difference': return combine('-');
    case 'symmetric_difference': return combine('^');
    case 'issubset': return (c) => setCompare('<=', obj, others(c)[0]!)!;
    case 'issuperset': return (c) => setCompare('>=', obj, others(c)[0]!)!;
    case 'isdisjoint': return (c) => [...obj.entries.keys()].every((k) => !others(c)[0]!.entries.has(k));
  }
  return undefined;
}
