// Expression evaluation: Python semantics for static values, array operators
// traced into IR, and host expressions for values known only at run time.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type { Prim } from '../ir/prims.js';
import { isFloat, jaxTypeStr } from '../ir/types.js';
import { DTYPES } from '../ir/dtypes.js';
import type * as A from '../parser/ast.js';
import * as ipArrays from './arrays.js';
import { getAttr } from './attrs.js';
import { staticBinary, staticCompare, truthy } from './pyops.js';
import { formatFString, textValue } from './format.js';
import { percentFormat } from './printf.js';
import { ELLIPSIS, hexpr, Interp, PySlice } from './interp.js';
import { hostNdBinary, hostNdIndex, hostNdMatmul, hostNdUnary } from './host_numpy.js';
import {
  PyComplex,
  HostArray,
  HostList, HostScalar, HostZip,
  PyClass,
  PyInstance,
  PySuper,
  PyUserClass,
  PyBuiltin,
  NdArray,
  HostNd,
  HostSlice,
  NpScalar,
  PyDict,
  PyFunction,
  PyIterator,
  PyList,
  PyObject,
  PyTuple,
  Scope,
  checkDictKey,
  isArray,
  scalarKind,
  typeName,
  type PyValue, NeedsStatic,
  Tracer,
  exactInt,
} from './values.js';
import type { DType } from '../ir/types.js';
import { isAdvancedKey, ndAdvancedIndex, ndAdvancedSetItem, ndCompare, ndFrom, ndIndex, ndOperator, ndSetItem, npScalarBinop, type AdvancedItem } from './ndarray.js';
import { indexArray } from './indexing.js';
import { callDunder, instanceEquals, NOT_IMPLEMENTED, setClassAttr } from './classes.js';
import { SUPER_SELF } from './interp.js';
import { inLoopsThatStay } from './stmt.js';
import { checkItems } from './limits.js';
import { hostListFind, hostListIndex, hostListTruth } from './host_list.js';
import { concreteValue, runTimeDecision } from './const_eval.js';
import { PySet, hashable, setBinop } from './sets.js';
import { deviceMismatch } from './shardings.js';
import { errorPage, originMsg } from './tracer_origin.js';


const ARRAY_BINOPS: Record<string, Prim> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '/': 'div',
  '&': 'and',
  '|': 'or',
  '^': 'xor',
};
const ARRAY_CMP: Record<string, Prim> = { '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };

export function evalExpr(ip: Interp, e: A.Expr, scope: Scope): PyValue {
  switch (e.kind) {
    case 'Constant': {
      const v = e.value;
      // a bytes literal would otherwise act (and print) as a str
      if (e.isBytes) throw new CompileError('NotImplementedError: bytes literals are not supported by jaxts', e.span);
      if (v === null || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string') return v;
      if ('ellipsis' in v) return ELLIPSIS;
      return new PyComplex(0, v.imag);
    }
    case 'Name': {
      const v = scope.lookup(e.id);
      if (v === undefined) {
        // a name the function binds somewhere, read before it is bound there
        let frame: Scope | null = scope;
        while (frame && !frame.locals) frame = frame.parent;
        if (frame?.locals?.has(e.id)) throw new CompileError(`UnboundLocalError: cannot access local variable '${e.id}' where it is not associated with a value`, e.span);
        throw new CompileError(`NameError: name '${e.id}' is not defined`, e.span);
      }
      return v;
    }
    case 'JoinedStr':
      return textValue(formatFString(ip, e, scope));
    case 'Tuple':
      return new PyTuple(evalList(ip, e.elts, scope));
    case 'List':
      return new PyList(evalList(ip, e.elts, scope));
    case 'Set': {
      const items = evalList(ip, e.elts, scope).map((x, i) => hashable(ip.static(x, 'a set element', e.elts[i]!.span), e.elts[i]!.span));
      // CPython compiles a display of 3+ constants as a frozenset constant merged into a new set
      const constant = e.elts.length >= 3 && e.elts.every((x) => x.kind === 'Constant');
      return constant ? PySet.merged('set', new PySet('frozenset', items)) : new PySet('set', items);
    }
    case 'Dict': {
      const d = new PyDict();
      e.keys.forEach((k, i) => {
        const v = evalExpr(ip, e.values[i]!, scope);
        if (k === null) {
          if (!(v instanceof PyDict)) throw new CompileError(`TypeError: '${typeName(v)}' object is not a mapping`, e.values[i]!.span);
          v.entries.forEach(([kk, vv]) => d.set(kk, vv));
        } else d.set(checkDictKey(ip.static(evalExpr(ip, k, scope), 'a dict key', k.span), k.span), v);
      });
      return d;
    }
    case 'BinOp': {
      // `a + b + c + …` nests to the left: folded in a loop (a recursion per term overflows the JS stack on long sums)
      const chain: A.BinOp[] = [];
      let left: A.Expr = e;
      for (; left.kind === 'BinOp'; left = left.left) chain.push(left);
      let acc = evalExpr(ip, left, scope);
      for (let i = chain.length - 1; i >= 0; i--) {
        const b = chain[i]!;
        const a = acc;
        acc = ip.holding((hold) => binop(ip, b.op, hold(a), evalExpr(ip, b.right, scope), b.span));
      }
      return acc;
    }
    case 'UnaryOp': {
      const x = evalExpr(ip, e.operand, scope);
      return unaryop(ip, e.op, x, e.span);
    }
    case 'BoolOp': {
      return boolOp(ip, e, 0, scope);
    }
    case 'Compare': {
      let left = evalExpr(ip, e.left, scope);
      let result: PyValue = true;
      for (let i = 0; i < e.ops.length; i++) {
        const right = evalExpr(ip, e.comparators[i]!, scope);
        const r = compare(ip, e.ops[i]!, left, right, e.span);
        if (e.ops.length === 1) return r;
        if (!truthyStatic(ip, r, e.span)) return false;
        result = r;
        left = right;
      }
      return result;
    }
    case 'IfExp': {
      const t = testTruth(ip, e.test, scope);
      if (t instanceof HostScalar) return runTimeChoice(ip, t, evalExpr(ip, e.body, scope), evalExpr(ip, e.orelse, scope), e.span);
      return t ? evalExpr(ip, e.body, scope) : evalExpr(ip, e.orelse, scope);
    }
    case 'Attribute':
      return getAttr(ip, evalExpr(ip, e.value, scope), e.attr, e.attrSpan);
    case 'Subscript':
      return subscript(ip, evalExpr(ip, e.value, scope), evalSliceExpr(ip, e.slice, scope), e.span);
    case 'Slice':
      return evalSliceExpr(ip, e, scope);
    case 'Call':
      return evalCall(ip, e, scope);
    case 'Lambda': {
      const defaults = new Map<string, PyValue>();
      for (const p of e.params) if (p.default) defaults.set(p.name, evalExpr(ip, p.default, scope));
      return new PyFunction('<lambda>', e, scope, defaults);
    }
    case 'GeneratorExp': {
      // the first iterable is evaluated now, as in Python; the items as they are pulled
      const first = evalExpr(ip, e.generators[0]!.iter, scope);
      // over a list known only at run time: its items made at once, into a list of the same kind
      if (first instanceof HostList || first instanceof HostZip) return hostComprehension(ip, e, first, scope);
      if (isArray(first) && ip.atHost) {
        // over a device array at host level: made at once, so each item (an indexing of the array)
        // is held across the flushes that reading it back makes (see comprehension)
        const out: PyValue[] = [];
        comprehension(ip, e.generators, scope, (s) => out.push(evalExpr(ip, e.elt, s)), first);
        return new PyIterator('generator', out[Symbol.iterator](), out);
      }
      return new PyIterator('generator', lazyComprehension(ip, e, first, scope), [first]);
    }
    case 'ListComp': {
      const first = evalExpr(ip, e.generators[0]!.iter, scope);
      if (first instanceof HostList || first instanceof HostZip) return hostComprehension(ip, e, first, scope);
      const out: PyValue[] = [];
      comprehension(ip, e.generators, scope, (s) => out.push(evalExpr(ip, e.elt, s)), first);
      return new PyList(out);
    }
    case 'DictComp': {
      const d = new PyDict();
      comprehension(ip, e.generators, scope, (s) => d.set(checkDictKey(ip.static(evalExpr(ip, e.key, s), 'a dict key', e.key.span), e.key.span), evalExpr(ip, e.value, s)));
      return d;
    }
    case 'SetComp': {
      const out = new PySet('set');
      comprehension(ip, e.generators, scope, (s) => out.add(hashable(ip.static(evalExpr(ip, e.elt, s), 'a set element', e.elt.span), e.elt.span)));
      return out;
    }
    case 'Starred':
      throw new CompileError("SyntaxError: can't use starred expression here", e.span);
    case 'NamedExpr': {
      const v = evalExpr(ip, e.value, scope);
      scope.vars.set(e.target.id, v);
      return v;
    }
    case 'Await':
      throw new CompileError("'await' is not supported", e.span);
    case 'Yield':
      // a generator function's statements `yield x` / `v = yield x` run in stmt.ts (genBlock)
      throw new CompileError(scope === ip.globals ? "SyntaxError: 'yield' outside function" : "'yield' is supported as a statement of a generator function (`yield x`, `v = yield x`), not inside an expression", e.span);
  }
}

export function evalList(ip: Interp, elts: A.Expr[], scope: Scope): PyValue[] {
  return ip.holding((hold) => {
    const out: PyValue[] = [];
    for (const x of elts) {
      // a loop, not push(...items): a long iterable would overflow the call's arguments
      if (x.kind === 'Starred') for (const v of iterate(ip, evalExpr(ip, x.value, scope), x.span)) out.push(hold(v));
      else out.push(hold(evalExpr(ip, x, scope)));
    }
    return out;
  });
}

/** The items of a generator expression, each computed when it is pulled. */
function* lazyComprehension(ip: Interp, e: A.GeneratorExp, first: PyValue, scope: Scope): Generator<PyValue, void, undefined> {
  const inner = new Scope(scope);
  const inFrame = <T>(f: () => T): T => {
    ip.frames.push(inner);
    try {
      return f();
    } finally {
      ip.frames.pop();
    }
  };
  function* loop(i: number): Generator<PyValue, void, undefined> {
    if (i === e.generators.length) {
      yield inFrame(() => evalExpr(ip, e.elt, inner));
      return;
    }
    const g = e.generators[i]!;
    const iter = i === 0 ? first : inFrame(() => evalExpr(ip, g.iter, inner));
    for (const item of iterItems(ip, iter, g.iter.span)) {
      const keep = inFrame(() => (assignTarget(ip, g.target, item, inner), g.ifs.every((c) => truthyStatic(ip, evalExpr(ip, c, inner), c.span))));
      if (keep) yield* loop(i + 1);
    }
  }
  yield* loop(0);
}

/** The comprehension's list in its scope (not a Python name: no program reads it). */
const COMP_LIST = '<listcomp>';

/**
 * `[elt for x in xs if c]` over a list known only when the program runs (`first`): the loop
 * `for x in xs: if c: <listcomp>.append(elt)` in the comprehension's own scope, lowered as a loop of
 * the host program, which makes the list one known only at run time.
 */
function hostComprehension(ip: Interp, e: A.ListComp | A.GeneratorExp, first: HostList | HostZip, scope: Scope): PyValue {
  const span = e.span;
  const inner = new Scope(scope);
  const out = new PyList([]);
  inner.vars.set(COMP_LIST, out);
  inner.vars.set('<iter>', first);
  const name = (id: string): A.Name => ({ kind: 'Name', id, span });
  let body: A.Stmt[] = [{ kind: 'ExprStmt', span: e.elt.span, value: { kind: 'Call', span: e.elt.span, func: { kind: 'Attribute', span: e.elt.span, value: name(COMP_LIST), attr: 'append', attrSpan: e.elt.span }, args: [e.elt], keywords: [] } }];
  for (let i = e.generators.length - 1; i >= 0; i--) {
    const g = e.generators[i]!;
    for (const c of [...g.ifs].reverse()) body = [{ kind: 'If', span: c.span, test: c, body, orelse: [] }];
    body = [{ kind: 'For', span: g.span, target: g.target, iter: i === 0 ? name('<iter>') : g.iter, body, orelse: [] }];
  }
  ip.frames.push(inner);
  try {
    ip.execBlock(body, inner);
  } catch (err) {
    // the items must make a list known only at run time: numbers, strings or arrays of one type
    if (err instanceof NeedsStatic && err.span === e.elt.span && /^list\.append/.test(err.message)) {
      throw new CompileError(`a comprehension over a list known only when the program runs makes numbers, strings or arrays of one type; here its items are ${({ Tuple: 'tuples', List: 'lists', Dict: 'dicts', Set: 'sets' } as Record<string, string>)[e.elt.kind] ?? 'of other types'}`, e.elt.span);
    }
    throw err;
  } finally {
    ip.frames.pop();
  }
  return inner.vars.get(COMP_LIST)!;
}

/** Run `body` for every item of the comprehension's loops (`first`: the first iterable, already evaluated). */
function comprehension(ip: Interp, gens: A.Comprehension[], scope: Scope, body: (s: Scope) => void, first?: PyValue): void {
  const inner = new Scope(scope);
  ip.frames.push(inner);
  try {
    const loop = (i: number): void => {
      if (i === gens.length) return body(inner);
      const g = gens[i]!;
      // the items still to come are roots of any flush in the body (see holdItems)
      ip.holding((hold) => {
        const iter = i === 0 && first !== undefined ? first : evalExpr(ip, g.iter, i === 0 ? scope : inner);
        for (const item of holdItems(iterItems(ip, iter, g.iter.span), iter, hold)) {
          assignTarget(ip, g.target, item, inner);
          if (g.ifs.every((c) => truthyStatic(ip, evalExpr(ip, c, inner), c.span))) loop(i + 1);
        }
      });
    };
    loop(0);
  } finally {
    ip.frames.pop();
  }
}

/**
 * Keeps an iterable and its items (`items`, from iterItems) alive across
 * flushes while a loop runs: a flush materialises only the arrays it can
 * reach, and items not yet assigned to the loop variable are held only here.
 */
export function holdItems(items: Iterable<PyValue>, iterable: PyValue, hold: (v: PyValue) => PyValue): Iterable<PyValue> {
  if (iterable instanceof PyObject) hold(iterable);
  if (Array.isArray(items)) for (const x of items) if (x instanceof PyObject) hold(x);
  return items;
}

/** The items of an iterable known at compile time, pulled one by one from a lazy iterator (map, filter). */
export function iterItems(ip: Interp, v: PyValue, span: A.Span): Iterable<PyValue> {
  return v instanceof PyIterator ? v : iterate(ip, v, span);
}

/** The items of an iterable known at compile time. */
export function iterate(ip: Interp, v: PyValue, span: A.Span): PyValue[] {
  v = ip.static(v, 'the iterable of this loop', span);
  if (v instanceof PyIterator) {
    // an endless iterator (itertools.count, a generator that never returns) stops at the compile-time bound
    const out: PyValue[] = [];
    for (const x of v) {
      out.push(x);
      checkItems(out.length, 'a list of the items of an iterator', span);
    }
    return out;
  }
  if (v instanceof PyList || v instanceof PyTuple) return [...v.items];
  if (v instanceof PyDict) return v.keys();
  if (v instanceof PySet) return v.items();
  if (typeof v === 'string') return [...v];
  if (v instanceof PyInstance) {
    const it = callDunder(ip, v, '__iter__', [], span);
    if (it !== undefined) return it === v ? iterByNext(ip, v, span) : iterate(ip, it, span);
    if (v.cls.lookup('__getitem__') !== undefined && v.cls.lookup('__len__') !== undefined) {
      const n = Number(callDunder(ip, v, '__len__', [], span));
      return Array.from({ length: n }, (_, i) => callDunder(ip, v, '__getitem__', [BigInt(i)], span)!);
    }
  }
  if (v && typeof v === 'object' && v.typeName === 'range' && !(v instanceof HostZip)) {
    const r = v as unknown as { start: bigint; stop: bigint; step: bigint; length: number };
    checkItems(r.length, 'a range', span);
    return Array.from({ length: r.length }, (_, i) => r.start + BigInt(i) * r.step);
  }
  if (v instanceof NdArray) return Array.from({ length: v.shape[0] ?? 0 }, (_, i) => ndIndex(v, [{ kind: 'int', value: i }]));
  const items = ip.library.items(v, span);
  if (items) return items;
  if (isArray(v)) {
    const n = ip.ops.aval(v, span).shape[0];
    if (n === undefined) throw new CompileError('TypeError: iteration over a 0-d array', span);
    return Array.from({ length: n }, (_, i) => ip.ops.index(v, [{ kind: 'int', value: i }], span));
  }
  if (v instanceof HostList || v instanceof HostZip) {
    throw new CompileError(`this use of a ${v instanceof HostList ? 'list' : v.typeName === 'range' ? 'range() with a bound' : `${v.typeName}() of a list`} known only when the program runs needs its items at compile time (a for loop or a list comprehension over it runs on the host)`, span);
  }
  throw new CompileError(`TypeError: '${typeName(v)}' object is not iterable`, span);
}

/** An iterator object (its __iter__ returns itself): __next__ until StopIteration. */
function iterByNext(ip: Interp, v: PyInstance, span: A.Span): PyValue[] {
  const out: PyValue[] = [];
  for (;;) {
    try {
      out.push(callDunder(ip, v, '__next__', [], span) ?? null);
    } catch (e) {
      if (e instanceof CompileError && /^StopIteration\b/.test(e.message)) return out;
      throw e;
    }
    checkItems(out.length, 'an iterator', span);
  }
}

export function assignTarget(ip: Interp, t: A.Expr, v: PyValue, scope: Scope): void {
  switch (t.kind) {
    case 'Name':
      scope.assign(t.id, v);
      return;
    case 'Tuple':
    case 'List': {
      const items = iterate(ip, v, t.span);
      const star = t.elts.findIndex((x) => x.kind === 'Starred');
      if (star < 0) {
        if (items.length !== t.elts.length) {
          throw new CompileError(
            items.length > t.elts.length
              ? `ValueError: too many values to unpack (expected ${t.elts.length})`
              : `ValueError: not enough values to unpack (expected ${t.elts.length}, got ${items.length})`,
            t.span,
          );
        }
        t.elts.forEach((x, i) => assignTarget(ip, x, items[i]!, scope));
      } else {
        const after = t.elts.length - star - 1;
        t.elts.slice(0, star).forEach((x, i) => assignTarget(ip, x, items[i]!, scope));
        assignTarget(ip, (t.elts[star] as A.Starred).value, new PyList(items.slice(star, items.length - after)), scope);
        t.elts.slice(star + 1).forEach((x, i) => assignTarget(ip, x, items[items.length - after + i]!, scope));
      }
      return;
    }
    case 'Subscript': {
      const obj = evalExpr(ip, t.value, scope);
      const key = evalSliceExpr(ip, t.slice, scope);
      if (key instanceof HostSlice || obj instanceof HostNd) throw new NeedsStatic('assigning into a slice or a NumPy array known only when the program runs', t.span);
      if (obj instanceof PyInstance) {
        if (callDunder(ip, obj, '__setitem__', [key, v], t.span) === undefined) throw new CompileError(`TypeError: '${typeName(obj)}' object does not support item assignment`, t.span);
        return;
      }
      if (ip.library.setSubscript(obj, key, v, t.span)) return;
      // (a list or dict made at this depth, in this step of a host loop, changes as at compile time)
      if (ip.dynamicDepth > 0 && !((obj instanceof PyList || obj instanceof PyDict) && obj.depth === ip.dynamicDepth)) throw new NeedsStatic('changing a Python container inside a loop that runs on the host', t.span);
      if (obj instanceof PyDict) obj.set(checkDictKey(ip.static(key, 'a dict key', t.slice.span), t.slice.span), v);
      else if (obj instanceof PyList) {
        const k = ip.static(key, 'a list index', t.slice.span);
        if (typeof k !== 'bigint' && typeof k !== 'boolean') throw new CompileError(`TypeError: list indices must be integers or slices, not ${typeName(k)}`, t.slice.span);
        const i = Number(k) < 0 ? Number(k) + obj.items.length : Number(k);
        if (i < 0 || i >= obj.items.length) throw new CompileError('IndexError: list assignment index out of range', t.span);
        obj.items[i] = v;
      } else if (obj instanceof NdArray) {
        const adv = advancedItems(ip, key, t.slice.span);
        if (adv) ndAdvancedSetItem(obj, adv, v, t.span);
        else ndSetItem(obj, ip.staticIndexItems(key, t.slice.span), v, t.span);
        ip.constantChanged(obj);
      } else if (isArray(obj)) {
        throw new CompileError("TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html", t.span);
      } else throw new CompileError(`TypeError: '${typeName(obj)}' object does not support item assignment`, t.span);
      return;
    }
    case 'Attribute':
      setClassAttr(ip, evalExpr(ip, t.value, scope), t.attr, v, t.attrSpan);
      return;
    case 'Starred':
      throw new CompileError('SyntaxError: starred assignment target must be in a list or tuple', t.span);
    default:
      throw new CompileError(`SyntaxError: cannot assign to ${t.kind.toLowerCase()}`, t.span);
  }
}

function evalSliceExpr(ip: Interp, e: A.Expr, scope: Scope): PyValue {
  if (e.kind === 'Slice') {
    // a bound that is not an index (a float or complex: np.mgrid[0:1:30j]) is kept as written
    const raw = [e.lower, e.upper, e.step].map((x) => (x ? evalExpr(ip, x, scope) : null));
    // a bound known only at run time: the slice indexes run-time NumPy arrays (elsewhere it must be static)
    if (raw.some((v) => v instanceof HostScalar)) return new HostSlice([raw[0]!, raw[1]!, raw[2]!]);
    const bounds = raw.map((v, i) => (v === null ? null : ip.static(v, 'a slice bound', [e.lower, e.upper, e.step][i]!.span)));
    // a NumPy integer has __index__
    const asIndex = (v: PyValue): PyValue => (v instanceof NpScalar && (v.dtype === 'int64' || v.dtype === 'int32') ? BigInt(v.value) : v);
    const ints = bounds.map(asIndex);
    if (!ints.every((v) => v === null || typeof v === 'bigint' || typeof v === 'boolean')) return new PySlice(null, null, null, [bounds[0]!, bounds[1]!, bounds[2]!]);
    const [lower, upper, step] = ints.map((v) => (v === null ? null : Number(v)));
    // a slice is only ever made to index with, where Python raises this
    if (step === 0) throw new CompileError('ValueError: slice step cannot be zero', e.step!.span);
    return new PySlice(lower!, upper!, step!);
  }
  if (e.kind === 'Tuple') return new PyTuple(e.elts.map((x) => evalSliceExpr(ip, x, scope)));
  return evalExpr(ip, e, scope);
}

/** A NumPy key with index arrays (advanced indexing) as items, else null: a basic key. */
function advancedItems(ip: Interp, key: PyValue, span: A.Span): AdvancedItem[] | null {
  const raw = (key instanceof PyTuple && !key.cls ? key.items : [key]).map((it) => ip.static(it, 'an array index', span));
  if (!isAdvancedKey(raw)) return null;
  return raw.flatMap((it): AdvancedItem[] => (it instanceof NdArray || it instanceof PyList ? [it] : ip.indexItems(it, span)));
}

/**
 * An array index (or `.at[]` index) with its ints known only at run time as 0-d int32 arrays, where the
 * loop around them stays a loop (as JAX's dynamic index of a traced int); elsewhere the loop runs
 * unrolled with the index known.
 */
export function runTimeIndex(ip: Interp, key: PyValue, span: A.Span): PyValue {
  const lift = (k: PyValue): PyValue => (k instanceof HostScalar && k.type === 'int' && inLoopsThatStay() ? ip.scalarArray(k, 'int32', 'index', span, true) : k);
  return key instanceof PyTuple && !key.cls ? new PyTuple(key.items.map(lift)) : lift(key);
}

export function subscript(ip: Interp, obj: PyValue, key: PyValue, span: A.Span): PyValue {
  if (obj instanceof PyInstance) {
    const r = callDunder(ip, obj, '__getitem__', [key], span);
    if (r === undefined) throw new CompileError(`TypeError: '${typeName(obj)}' object is not subscriptable`, span);
    return r;
  }
  if (key instanceof HostSlice && !(obj instanceof HostNd)) throw new NeedsStatic('a slice bound must be known at compile time, but it depends on a value computed while the program runs', span);
  if (obj instanceof HostNd || ((obj instanceof NdArray || obj instanceof PyList) && key instanceof HostNd)) {
    return hostNdIndex(ip, obj instanceof PyList ? ndFrom(obj, span) : obj, key, span, (v) => v === ELLIPSIS, (v) => (v instanceof HostSlice ? v.bounds : v instanceof PySlice ? [...v.indices(span)].map((b) => (b === null ? null : BigInt(b))) : null));
  }
  if (isArray(obj) && (key instanceof HostNd || (key instanceof PyTuple && key.items.some((k) => k instanceof HostNd)))) {
    return subscript(ip, obj, key instanceof HostNd ? ip.hostArray(key, span) : new PyTuple((key as PyTuple).items.map((k) => (k instanceof HostNd ? ip.hostArray(k, span) : k))), span);
  }
  if (isArray(obj)) {
    return indexArray(ip.ops, obj, ip.indexItems(runTimeIndex(ip, key, span), span), span);
  }
  if (obj instanceof HostList) return hostListIndex(ip, obj, key, span);
  if (obj instanceof HostScalar && obj.type === 'str') return runTimeStrIndex(obj, key, span);
  // typing's generics (List[int], Generic[T], Optional[X]) are the marker itself: types are not checked
  if (obj instanceof PyClass && obj.kind === 'marker') return obj;
  // tuple[int, ...], dict[str, Array]: a types.GenericAlias
  if (obj instanceof PyBuiltin && TYPE_BUILTINS.has(obj.name)) return new PyClass('GenericAlias', [], new Map(), 'marker', 'types');
  const fromLibrary = ip.library.subscript(obj, key, span);
  if (fromLibrary !== undefined) return fromLibrary;
  if (obj instanceof NdArray) {
    const adv = advancedItems(ip, key, span);
    return adv ? ndAdvancedIndex(obj, adv, span) : ndIndex(obj, ip.staticIndexItems(key, span), span);
  }
  if (obj instanceof PyDict) {
    const k = checkDictKey(ip.static(key, 'a dict key', span), span);
    const v = obj.get(k);
    if (v !== undefined) return v;
    // collections.defaultdict makes the missing value (and keeps it); a Counter counts it 0
    if (obj.flavor?.kind === 'defaultdict' && obj.flavor.factory !== null) {
      // (a key added inside a host loop that does not carry the dict: the loop runs unrolled)
      if (ip.dynamicDepth > 0 && obj.depth !== ip.dynamicDepth) throw new NeedsStatic('a defaultdict adding a key inside a loop that runs on the host', span);
      const made = ip.call(obj.flavor.factory, { args: [], kwargs: new Map(), span });
      obj.set(k, made);
      return made;
    }
    if (obj.flavor?.kind === 'Counter') return 0n;
    throw new CompileError(`KeyError: ${ip.repr(key, span).static}`, span);
  }
  if (obj instanceof PyList || obj instanceof PyTuple || typeof obj === 'string') {
    const items = typeof obj === 'string' ? [...obj] : obj.items;
    if (key instanceof HostScalar && (key.type === 'int' || key.type === 'bool')) {
      const looked = runtimeLookup(items, key, typeName(obj));
      if (looked) return looked;
    }
    key = ip.static(key, 'a list index', span);
    if (key instanceof PySlice) {
      const { sliceIndices } = ipArrays;
      const [s, e, st] = sliceIndices(...key.indices(span), items.length);
      const out: PyValue[] = [];
      for (let i = s; st > 0 ? i < e : i > e; i += st) out.push(items[i]!);
      if (typeof obj === 'string') return out.join('');
      return obj instanceof PyList ? new PyList(out) : new PyTuple(out);
    }
    if (typeof key !== 'bigint' && typeof key !== 'boolean') {
      throw new CompileError(`TypeError: ${typeName(obj)} indices must be integers or slices, not ${typeName(key)}`, span);
    }
    let i = Number(key);
    if (i < 0) i += items.length;
    if (i < 0 || i >= items.length) throw new CompileError(`IndexError: ${typeName(obj) === 'str' ? 'string' : typeName(obj)} index out of range`, span);
    return items[i]!;
  }
  throw new CompileError(`TypeError: '${typeName(obj)}' object is not subscriptable`, span);
}


/** `s[i]` or `s[a:b:c]` of a str known only at run time (`str(loss)[:6]`). */
function runTimeStrIndex(s: HostScalar, key: PyValue, span: A.Span): HostScalar {
  if (key instanceof PySlice) {
    const b = (v: number | null): HExpr => ({ k: 'lit', value: v });
    return new HostScalar({ k: 'call', callee: 'jx.pyStrSlice', args: [s.expr, b(key.start), b(key.stop), b(key.step)] }, 'str');
  }
  if (typeof key === 'bigint' || typeof key === 'boolean' || (key instanceof HostScalar && (key.type === 'int' || key.type === 'bool'))) {
    return new HostScalar({ k: 'call', callee: 'jx.pyStrIndex', args: [s.expr, typeof key === 'boolean' ? { k: 'lit', value: key ? 1 : 0 } : hexpr(key)] }, 'str');
  }
  throw new CompileError(`TypeError: string indices must be integers, not '${typeName(key)}'`, span);
}

/**
 * `items[i]` with an index known only at run time (a token read back from the
 * device): when every item is a Python scalar of one type, a lookup in a
 * table the generated code holds (null otherwise).
 */
function runtimeLookup(items: readonly PyValue[], i: HostScalar, seq: string): HostScalar | null {
  // (items known now, or host values of the same type known at run time, none of them possibly None)
  const kind = (x: PyValue): 'str' | 'int' | 'float' | 'bool' | null => (x instanceof HostScalar && x.raw !== null ? null : scalarKind(x));
  const k = items.length ? kind(items[0]!) : null;
  if (!k || !items.every((x) => kind(x) === k)) return null;
  if (k === 'int' && !items.every((x) => x instanceof HostScalar || Number.isSafeInteger(Number(x)))) return null;
  const table: HExpr = { k: 'array', items: items.map((x) => hexpr(x)) };
  return new HostScalar({ k: 'call', callee: 'jx.pyIndex', args: [table, i.expr, { k: 'lit', value: seq === 'str' ? 'string' : seq }] }, k);
}

/** The jitted jnp function an array operator calls, and its parameters' names (for JAX's device-mismatch error). */
const OPERATOR_FUNCS: Partial<Record<A.BinOpName, [string, string, string]>> = {
  '+': ['add', 'x', 'y'], '-': ['subtract', 'x', 'y'], '*': ['multiply', 'x', 'y'], '/': ['true_divide', 'x1', 'x2'],
  '**': ['power', 'x1', 'x2'], '@': ['matmul', 'a', 'b'], '&': ['bitwise_and', 'x', 'y'], '|': ['bitwise_or', 'x', 'y'], '^': ['bitwise_xor', 'x', 'y'],
};

/** An operator on two arrays committed to different devices raises JAX's DeviceAssignmentMismatchError. */
function checkBinopDevices(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): void {
  const f = OPERATOR_FUNCS[op];
  const placed = (v: PyValue): HostArray | null => (v instanceof HostArray ? v : v instanceof Tracer && v.materialized ? v.materialized : null);
  const x = placed(a);
  const y = placed(b);
  if (!f || !x || !y) return;
  const msg = deviceMismatch(f[0], [{ name: f[1], value: x }, { name: f[2], value: y }]);
  if (msg) throw new CompileError(msg, span);
}

/** Python's built-in classes that are functions here (`int`, `tuple`): they make union and generic types. */
const TYPE_BUILTINS = new Set(['int', 'float', 'bool', 'str', 'complex', 'bytes', 'slice', 'tuple', 'list', 'dict', 'set', 'frozenset', 'type', 'object', 'range']);
const isTypeLike = (v: PyValue): boolean => v === null || v instanceof PyClass || v instanceof PyUserClass || (v instanceof PyBuiltin && TYPE_BUILTINS.has(v.name));

export function binop(ip: Interp, op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): PyValue {
  if (op === '%' && (typeof a === 'string' || (a instanceof HostScalar && a.type === 'str'))) {
    return percentFormat(ip, ip.static(a, 'a format string', span) as string, b, span);
  }
  if (a instanceof PyInstance || b instanceof PyInstance) return instanceBinop(ip, op, a, b, span);
  // `int | slice` in a type annotation or alias: a types.UnionType (types are not checked)
  if (op === '|' && isTypeLike(a) && isTypeLike(b) && (a !== null || b !== null)) return new PyClass('UnionType', [], new Map(), 'marker', 'types');
  // a NumPy array known only at run time: beside a JAX array it becomes one (NumPy defers to JAX's operators)
  if (a instanceof HostNd || b instanceof HostNd) {
    if (isArray(a) || isArray(b)) return binop(ip, op, a instanceof HostNd ? ip.hostArray(a, span) : a, b instanceof HostNd ? ip.hostArray(b, span) : b, span);
    if (op === '@') return hostNdMatmul(ip, a, b, span);
    return hostNdBinary(ip, op, a, b, span);
  }
  if (isArray(a) || isArray(b)) {
    // a Python number known only at run time meets an array: a weakly typed 0-d array, as JAX makes of it
    const lift = (v: PyValue): PyValue =>
      v instanceof HostScalar && v.type !== 'str' ? ip.scalarArray(v, v.type === 'int' ? 'int32' : v.type === 'bool' ? 'bool' : 'float32', 'scalar', span, true) : v;
    a = lift(a);
    b = lift(b);
    checkBinopDevices(op, a, b, span);
    if (op === '@') return ip.ops.matmul(a, b, span);
    if (op === '**') return ip.ops.power(a, b, span);
    if (op === '//') return floorDivide(ip, a, b, span);
    if (op === '%') return remainder(ip, a, b, span);
    if (op === '<<' || op === '>>') return shift(ip, op, a, b, span);
    const prim = ARRAY_BINOPS[op];
    if (!prim) throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, span);
    return ip.ops.binary(prim, a, b, span);
  }
  if (a instanceof NdArray || b instanceof NdArray) return ndOperator(op, a, b, span);
  if (a instanceof HostScalar || b instanceof HostScalar) return hostBinary(op, a, b, span);
  const np = a instanceof NpScalar || b instanceof NpScalar ? npScalarBinop(op, a, b, (x, y) => staticBinary(op, x, y, span)) : null;
  if (np) return np;
  return setBinop(op, a, b) ?? staticBinary(op, a, b, span);
}

const BINOP_DUNDERS: Record<A.BinOpName, string> = {
  '+': 'add', '-': 'sub', '*': 'mul', '/': 'truediv', '//': 'floordiv', '%': 'mod', '**': 'pow', '@': 'matmul',
  '<<': 'lshift', '>>': 'rshift', '&': 'and', '|': 'or', '^': 'xor',
};

/** A binary operator on an instance: `__op__` of the left operand, else `__rop__` of the right one. */
function instanceBinop(ip: Interp, op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): PyValue {
  const name = BINOP_DUNDERS[op];
  const r = callDunder(ip, a, `__${name}__`, [b], span);
  if (r !== undefined && r !== NOT_IMPLEMENTED) return r;
  const l = callDunder(ip, b, `__r${name}__`, [a], span);
  if (l !== undefined && l !== NOT_IMPLEMENTED) return l;
  throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, span);
}

/** The operands of a jnp binary function as arrays of their promoted numeric dtype (bool → int32), broadcast together. */
function numericOperands(ip: Interp, a: PyValue, b: PyValue, span: A.Span): [Tracer, Tracer, DType] {
  const o = ip.ops;
  let dt = ipArrays.promote(o.aval(a, span), o.aval(b, span));
  if (dt === 'bool') dt = 'int32';
  const [x, y] = [o.asArray(a, span, dt), o.asArray(b, span, dt)];
  const shape = ipArrays.broadcastShapes(x.aval.shape, y.aval.shape, span);
  return [o.tracer(o.broadcastTo(x.atom, shape, span)), o.tracer(o.broadcastTo(y.atom, shape, span)), dt];
}

/** jnp.floor_divide as JAX writes it: lax.div for integers (exact, XLA's x / 0) corrected toward -inf; floats by CPython's float_divmod. */
function floorDivide(ip: Interp, a: PyValue, b: PyValue, span: A.Span): PyValue {
  const o = ip.ops;
  const [x, y, dt] = numericOperands(ip, a, b, span);
  if (DTYPES[dt].kind === 'uint') return o.binary('div', x, y, span, false);
  if (DTYPES[dt].kind === 'int') {
    const q = o.binary('div', x, y, span, false);
    const signs = o.compare('ne', o.unary('sign', x, span), o.unary('sign', y, span), span);
    const inexact = o.compare('ne', o.binary('rem', x, y, span), 0n, span);
    return o.select(o.binary('and', signs, inexact, span), o.binary('sub', q, 1n, span), q, span);
  }
  const mod = o.binary('rem', x, y, span);
  const x1 = o.select(o.compare('eq', y, 0.0, span), x, o.binary('sub', x, mod, span), span);
  const div = o.binary('div', x1, y, span);
  const ind = o.binary('and', o.compare('ne', mod, 0.0, span), o.compare('ne', o.unary('sign', y, span), o.unary('sign', mod, span), span), span);
  return o.unary('round', o.select(ind, o.binary('sub', div, 1.0, span), div, span), span);
}

/** jnp.left_shift / jnp.right_shift: lax's shifts on the promoted integers (a logical right shift for unsigned). */
function shift(ip: Interp, op: '<<' | '>>', a: PyValue, b: PyValue, span: A.Span): PyValue {
  const [x, y, dt] = numericOperands(ip, a, b, span);
  const prim: Prim = op === '<<' ? 'shift_left' : DTYPES[dt].kind === 'uint' ? 'shift_right_logical' : 'shift_right_arithmetic';
  if (isFloat(dt)) throw new CompileError(`TypeError: ${prim} does not accept dtype ${dt} at position 0. Accepted dtypes at position 0 are subtypes of integer.`, span);
  return ip.ops.binary(prim, x, y, span);
}

/** jnp.remainder: lax.rem with the sign of the divisor; an integer divisor of 0 counts as 1 (so x % 0 is 0). */
function remainder(ip: Interp, a: PyValue, b: PyValue, span: A.Span): PyValue {
  const o = ip.ops;
  let [x, y, dt] = numericOperands(ip, a, b, span);
  const zero = isFloat(dt) ? 0.0 : 0n;
  if (!isFloat(dt)) y = o.select(o.compare('eq', y, 0n, span), o.tracer(o.broadcastTo(o.asArray(1n, span, dt).atom, y.aval.shape, span)), y, span);
  const r = o.binary('rem', x, y, span);
  const signDiffers = o.compare('ne', o.compare('lt', r, zero, span), o.compare('lt', y, zero, span), span);
  const fix = o.binary('and', signDiffers, o.compare('ne', r, zero, span), span);
  return o.select(fix, o.binary('add', r, y, span), r, span);
}

function hostBinary(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): PyValue {
  const ta = hostType(a, span);
  const tb = hostType(b, span);
  if (ta === 'str' || tb === 'str') {
    if (op === '+' && ta === 'str' && tb === 'str') return new HostScalar({ k: 'concat', parts: [hexpr(a), hexpr(b)] }, 'str');
    throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${ta}' and '${tb}'`, span);
  }
  const isInt = ta !== 'float' && tb !== 'float';
  if (isInt) {
    const big = bigIntBinary(op, a, b, span);
    if (big) return big;
  }
  const x = hexpr(a);
  const y = hexpr(b);
  // Python words a division by zero by the operands' types: the float flag goes to the runtime
  const call = (fn: string): HExpr => ({ k: 'call', callee: `jx.${fn}`, args: isInt ? [x, y] : [x, y, { k: 'lit', value: true }] });
  // a float that may still be an int (a zero-trip loop's, HostScalar.intWhen) with an int: an int when it is
  // (the value is the same number either way)
  const still = (r: HostScalar): HostScalar => {
    const tests = [a, b].map((v) => (v instanceof HostScalar ? (v.intWhen?.test ?? (v.type === 'float' ? null : true)) : typeof v === 'number' ? null : true));
    if (r.type !== 'float' || tests.some((t) => t === null) || tests.every((t) => t === true)) return r;
    const [p, q] = tests as (HExpr | true)[];
    r.intWhen = { test: p === true ? (q as HExpr) : q === true ? p : { k: 'bin', op: '&&', a: p, b: q }, type: 'int' };
    return r;
  };
  switch (op) {
    case '+':
    case '-':
    case '*':
      return still(new HostScalar({ k: 'bin', op, a: x, b: y }, isInt ? 'int' : 'float'));
    case '/':
      return new HostScalar(call('truediv'), 'float');
    case '//':
      return still(new HostScalar(call('floordiv'), isInt ? 'int' : 'float'));
    case '%':
      return still(new HostScalar(call('mod'), isInt ? 'int' : 'float'));
    case '**':
      // an int to a negative int power is a float in Python
      if (!isInt) return new HostScalar(call('floatpow'), 'float');
      if (typeof b === 'bigint' || typeof b === 'boolean') return BigInt(b) >= 0n ? new HostScalar({ k: 'bin', op: '**', a: x, b: y }, 'int') : new HostScalar(call('floatpow'), 'float');
      throw new NeedsStatic('an int to a power known only when the program runs (its type depends on the sign)', span);
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      if (isInt) return new HostScalar({ k: 'call', callee: 'jx.bitop', args: [{ k: 'lit', value: op }, x, y] }, ta === 'bool' && tb === 'bool' && op !== '<<' && op !== '>>' ? 'bool' : 'int');
      throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${ta}' and '${tb}'`, span);
    default:
      throw new NeedsStatic(`operator ${op} on values computed at run time is not supported`, span);
  }
}

/** The operators on ints that compute exactly in TS bigints (`**`, and any with an int that may pass 2**53). */
const BIGINT_OPS: Partial<Record<A.BinOpName, string>> = { '+': '+', '-': '-', '*': '*', '**': '**', '//': 'jx.bigFloordiv', '%': 'jx.bigMod', '<<': '<<' };

/**
 * An int operation that may pass 2**53, computed as Python computes it, exactly (HostScalar.exact): one
 * on an int that already may, or `**` with an exponent known now (null: the operands stay doubles).
 */
function bigIntBinary(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): HostScalar | null {
  const jsop = BIGINT_OPS[op];
  const exactNow = exactInt(a) !== null || exactInt(b) !== null;
  if (!jsop || !(exactNow || (op === '**' && (typeof b === 'bigint' || typeof b === 'boolean')))) return null;
  if ((op === '**' || op === '<<') && (typeof b === 'bigint' || typeof b === 'boolean') && BigInt(b) < 0n) {
    if (op === '<<') throw new CompileError('ValueError: negative shift count', span);
    return null;
  }
  // (an exponent or shift known only at run time may be negative: Python's float or ValueError)
  if ((op === '**' || op === '<<') && typeof b !== 'bigint' && typeof b !== 'boolean') return null;
  const x = exactInt(a, true)!;
  const y = exactInt(b, true)!;
  return HostScalar.bigInt(jsop.startsWith('jx.') ? { k: 'call', callee: jsop, args: [x, y] } : { k: 'bin', op: jsop, a: x, b: y });
}

function hostType(v: PyValue, span: A.Span): 'int' | 'float' | 'bool' | 'str' {
  if (v instanceof HostScalar) return v.type;
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  throw new CompileError(`TypeError: unsupported operand type: '${typeName(v)}'`, span);
}

function unaryop(ip: Interp, op: A.UnaryOp['op'], x: PyValue, span: A.Span): PyValue {
  if (op === 'not') {
    const t = hostTruth(ip, x, span);
    return t instanceof HostScalar ? new HostScalar({ k: 'unary', op: '!', x: t.expr }, 'bool') : !t;
  }
  if (x instanceof PyInstance) {
    const r = callDunder(ip, x, op === '-' ? '__neg__' : op === '+' ? '__pos__' : '__invert__', [], span);
    if (r === undefined) throw new CompileError(`TypeError: bad operand type for unary ${op}: '${typeName(x)}'`, span);
    return r;
  }
  if (isArray(x)) {
    if (op === '-') return ip.ops.unary('neg', x, span);
    if (op === '+') return x;
    return ip.ops.unary('not', x, span);
  }
  if (x instanceof NdArray) return ndOperator('*', x, op === '-' ? -1n : 1n, span);
  if (x instanceof NpScalar && op !== '~' && x.dtype !== 'bool') return new NpScalar(x.dtype, op === '-' ? -x.value : x.value);
  if (x instanceof HostNd) return op === '-' ? hostNdUnary(ip, 'negative', x, span)! : x;
  if (x instanceof HostScalar) {
    if (op === '-' && x.exact) return HostScalar.bigInt({ k: 'unary', op: '-', x: x.exact });
    if (op === '-') return new HostScalar({ k: 'unary', op: '-', x: x.expr }, x.type === 'bool' ? 'int' : x.type);
    return x;
  }
  if (x instanceof PyComplex) {
    if (op === '-') return new PyComplex(-x.re, -x.im);
    if (op === '+') return x;
  }
  if (op === '-') return staticBinary('*', x, -1n, span);
  if (op === '+') return staticBinary('+', 0n, x, span);
  if (typeof x === 'bigint' || typeof x === 'boolean') return ~BigInt(x);
  throw new CompileError(`TypeError: bad operand type for unary ${op}: '${typeName(x)}'`, span);
}

/** Is `v` a list, tuple or dict with an instance of a user class among its items (at any depth)? */
function holdsInstance(v: PyValue, seen = new Set<PyValue>()): boolean {
  if (seen.has(v)) return false;
  seen.add(v);
  if (v instanceof PyList || v instanceof PyTuple) return v.items.some((x) => x instanceof PyInstance || holdsInstance(x, seen));
  if (v instanceof PyDict) return [...v.entries.values()].some(([, x]) => x instanceof PyInstance || holdsInstance(x, seen));
  return false;
}

/** `a == b` of two lists, two tuples or two dicts, item by item; undefined for other pairs. */
function containerEquals(ip: Interp, a: PyValue, b: PyValue, span: A.Span): boolean | undefined {
  const same = (x: PyValue, y: PyValue): boolean => x === y || truthyStatic(ip, compare(ip, '==', x, y, span), span);
  if ((a instanceof PyList && b instanceof PyList) || (a instanceof PyTuple && b instanceof PyTuple)) {
    return a.items.length === b.items.length && a.items.every((x, i) => same(x, b.items[i]!));
  }
  if (a instanceof PyDict && b instanceof PyDict) {
    return a.entries.size === b.entries.size && [...a.entries].every(([k, [, x]]) => b.entries.has(k) && same(x, b.entries.get(k)![1]));
  }
  return undefined;
}

export function compare(ip: Interp, op: A.CmpOpName, a: PyValue, b: PyValue, span: A.Span): PyValue {
  // a host value that may be None at run time, beside None: a test at run time
  const orNone = [a, b].find((x): x is HostScalar => x instanceof HostScalar && x.raw !== null);
  if (orNone && (a === null || b === null) && (op === 'is' || op === 'is not' || op === '==' || op === '!=')) {
    return new HostScalar({ k: 'bin', op: op === 'is' || op === '==' ? '===' : '!==', a: orNone.raw!, b: { k: 'lit', value: null } }, 'bool');
  }
  if ((op === 'in' || op === 'not in') && b instanceof HostList) {
    const found = hostListFind(ip, b, a, 'in', span);
    return op === 'in' ? found : new HostScalar({ k: 'unary', op: '!', x: found.expr }, 'bool');
  }
  if (op === 'is' || op === 'is not') {
    const same = a === b || (a === null && b === null);
    return op === 'is' ? same : !same;
  }
  // a typing.NamedTuple class's own __eq__
  const tupleEq = (op === '==' || op === '!=') && [a, b].find((x): x is PyTuple => x instanceof PyTuple && x.cls !== undefined && x.cls !== null && x.cls.methods.has('__eq__'));
  if (tupleEq) {
    const eq = truthyStatic(ip, ip.call(getAttr(ip, tupleEq, '__eq__', span), { args: [tupleEq === a ? b : a], kwargs: new Map(), span }), span);
    return op === '==' ? eq : !eq;
  }
  // two lists (or tuples) known only at run time, of numbers, strings or bools: item by item when the program runs
  if ((op === '==' || op === '!=') && a instanceof HostList && b instanceof HostList && a !== b && typeof a.elem === 'string' && typeof b.elem === 'string') {
    if (a.kind !== b.kind) return op === '!=';
    const eq: HExpr = { k: 'call', callee: 'jx.pySeqEquals', args: [{ k: 'var', name: a.name }, { k: 'var', name: b.name }] };
    return new HostScalar(op === '==' ? eq : { k: 'unary', op: '!', x: eq }, 'bool');
  }
  // lists, tuples and dicts holding instances: item by item, the instances' own __eq__ deciding (identity first, as CPython)
  if ((op === '==' || op === '!=') && holdsInstance(a) && holdsInstance(b)) {
    const eq = containerEquals(ip, a, b, span);
    if (eq !== undefined) return op === '==' ? eq : !eq;
  }
  // lists or tuples holding arrays: item by item, each comparison's truth deciding (read back at host level, as JAX's bool())
  if ((op === '==' || op === '!=') && ((a instanceof PyList && b instanceof PyList) || (a instanceof PyTuple && b instanceof PyTuple)) && [...a.items, ...b.items].some(isArray)) {
    if (a.items.length !== b.items.length) return op === '!=';
    let eq = true as boolean | HostScalar;
    // the items still to compare stay live while each comparison is read back
    ip.holding((hold) => {
      [...a.items, ...b.items].forEach(hold);
      for (let i = 0; i < a.items.length && eq !== false; i++) {
        const x = a.items[i]!;
        const y = b.items[i]!;
        const t: boolean | HostScalar = x === y ? true : hostTruth(ip, compare(ip, '==', x, y, span), span);
        eq = eq === true ? t : t === true ? eq : t === false ? false : new HostScalar({ k: 'bin', op: '&&', a: (eq as HostScalar).expr, b: t.expr }, 'bool');
      }
    });
    if (op === '==' || typeof eq === 'boolean') return op === '==' ? eq : !eq;
    return new HostScalar({ k: 'unary', op: '!', x: eq.expr }, 'bool');
  }
  if (a instanceof PyInstance || b instanceof PyInstance) {
    if (op === '==' || op === '!=') {
      const eq = instanceEquals(ip, a, b, span, (x, y) => truthyStatic(ip, compare(ip, '==', x, y, span), span));
      return op === '==' ? eq! : !eq;
    }
    if (op === 'in' || op === 'not in') {
      const r = callDunder(ip, b, '__contains__', [a], span);
      const found = r !== undefined ? truthyStatic(ip, r, span) : iterate(ip, b, span).some((x) => truthyStatic(ip, compare(ip, '==', x, a, span), span));
      return op === 'in' ? found : !found;
    }
    const names: Record<string, [string, string]> = { '<': ['__lt__', '__gt__'], '<=': ['__le__', '__ge__'], '>': ['__gt__', '__lt__'], '>=': ['__ge__', '__le__'] };
    const [m, rm] = names[op]!;
    const r = callDunder(ip, a, m, [b], span);
    if (r !== undefined && r !== NOT_IMPLEMENTED) return r;
    const l = callDunder(ip, b, rm, [a], span);
    if (l !== undefined && l !== NOT_IMPLEMENTED) return l;
    throw new CompileError(`TypeError: '${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, span);
  }
  if ((a instanceof HostNd || b instanceof HostNd) && ARRAY_CMP[op]) {
    if (isArray(a) || isArray(b)) return compare(ip, op, a instanceof HostNd ? ip.hostArray(a, span) : a, b instanceof HostNd ? ip.hostArray(b, span) : b, span);
    return hostNdBinary(ip, op, a, b, span);
  }
  if ((isArray(a) || isArray(b)) && ARRAY_CMP[op]) return ip.ops.compare(ARRAY_CMP[op]!, a, b, span);
  // NumPy arrays known at compile time (beside numbers or other NumPy values): elementwise
  if ((a instanceof NdArray || b instanceof NdArray || a instanceof NpScalar || b instanceof NpScalar) && ARRAY_CMP[op] && !(a instanceof HostScalar || b instanceof HostScalar)) return ndCompare(op, a, b, span);
  if (a instanceof HostScalar || b instanceof HostScalar) {
    const jsop = { '==': '===', '!=': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }[op as string];
    if (!jsop) throw new NeedsStatic(`'${op}' on a value computed at run time`, span);
    const scalar = (v: PyValue): PyValue => (v instanceof NpScalar ? (v.dtype.startsWith('float') ? v.value : v.dtype === 'bool' ? v.value !== 0 : BigInt(v.value)) : v);
    const x = scalar(a);
    const y = scalar(b);
    // a run-time number or str beside a container, function or module: never equal, not ordered (as in Python)
    if ((x instanceof PyObject && !(x instanceof HostScalar)) || (y instanceof PyObject && !(y instanceof HostScalar))) {
      if (op === '==' || op === '!=') return op === '!=';
      throw new CompileError(`TypeError: '${op}' not supported between instances of '${typeName(x)}' and '${typeName(y)}'`, span);
    }
    // an int that may pass 2**53 compares exactly (a TS bigint beside a number: loose equality)
    if (exactInt(x) !== null || exactInt(y) !== null) {
      const exact = (v: PyValue): HExpr => exactInt(v) ?? hexpr(v);
      if (jsop === '===' || jsop === '!==') {
        const eq: HExpr = { k: 'call', callee: 'jx.bigEq', args: [exact(x), exact(y)] };
        return new HostScalar(jsop === '===' ? eq : { k: 'unary', op: '!', x: eq }, 'bool');
      }
      return new HostScalar({ k: 'bin', op: jsop, a: exact(x), b: exact(y) }, 'bool');
    }
    return new HostScalar({ k: 'bin', op: jsop, a: hexpr(x), b: hexpr(y) }, 'bool');
  }
  return staticCompare(op, a, b, span);
}

/**
 * Python truthiness where the host program may branch on a value known only at run time: a bool
 * known now, or a run-time bool (a host number or string, or a readback of a one-element device
 * array at host level, as JAX reads a concrete array's value). Inside jit/grad/vmap an array is
 * JAX's TracerBoolConversionError, as in truthyStatic.
 */
export function hostTruth(ip: Interp, v: PyValue, span: A.Span): boolean | HostScalar {
  if (v instanceof HostScalar && v.raw !== null) {
    // None is false; else the value's own truth
    const t = hostTruth(ip, new HostScalar(v.expr, v.type), span) as HostScalar;
    return new HostScalar({ k: 'bin', op: '&&', a: { k: 'bin', op: '!==', a: v.raw, b: { k: 'lit', value: null } }, b: t.expr }, 'bool');
  }
  if (v instanceof HostScalar) {
    if (v.type === 'bool') return v;
    // a float NaN is true in Python (JS truthiness says false)
    return new HostScalar(v.type === 'str' ? { k: 'bin', op: '!==', a: v.expr, b: { k: 'lit', value: '' } } : { k: 'bin', op: '!==', a: v.expr, b: { k: 'lit', value: 0 } }, 'bool');
  }
  if (v instanceof HostList) return hostListTruth(ip, v);
  if (isArray(v) && ip.atHost) {
    const aval = ip.ops.aval(v, span);
    if (aval.shape.reduce((a, b) => a * b, 1) !== 1) {
      throw new CompileError(`ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()`, span);
    }
    const h = ip.hostArray(v, span);
    return new HostScalar({ k: 'bin', op: '!==', a: { k: 'call', callee: 'jx.item', args: [{ k: 'var', name: h.name }], await: true }, b: { k: 'lit', value: 0 } }, 'bool');
  }
  return truthyStatic(ip, v, span);
}

/** Python truthiness of a value that must be known at compile time (or a host bool in host code). */
export function truthyStatic(ip: Interp, v: PyValue, span: A.Span): boolean {
  if (isArray(v)) {
    const aval = ip.ops.aval(v, span);
    // JAX checks the size first (check_bool_conversion), for concrete arrays and tracers alike
    const size = aval.shape.reduce((p, d) => p * d, 1);
    if (size === 0) throw new CompileError('ValueError: The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.', span);
    if (size > 1) throw new CompileError('ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()', span);
    // outside jit (differentiation, eager code) JAX has the value: known at compile time when its cone is
    const c = concreteValue(v);
    if (typeof c !== 'string') return c.data[0] !== 0;
    if (c === 'runtime') return runTimeDecision(v, span);
    throw new CompileError(`TracerBoolConversionError: Attempted boolean conversion of traced array with shape ${jaxTypeStr(aval)}.${originMsg(v)}${errorPage('TracerBoolConversionError')}`, span, [
      'the truth value of a traced array is known only when the program runs: use jnp.where to choose between values',
    ]);
  }
  if (v instanceof PyInstance) {
    const b = callDunder(ip, v, '__bool__', [], span);
    if (b !== undefined) return truthyStatic(ip, b, span);
    const n = callDunder(ip, v, '__len__', [], span);
    if (n !== undefined) return truthyStatic(ip, n, span);
    return true;
  }
  return truthy(ip.static(v, 'this condition', span), span);
}

/**
 * The truth of a condition (`if`, `while`, `assert`, a conditional expression's test): as
 * `hostTruth(evalExpr(e))`, except that `and`/`or`/`not` combine their operands' truths, so a
 * condition whose operands are known only at run time needs no value that is one of them (in
 * `while eps > tol and i < n:`, `eps` may be a device array and `i` a Python int).
 */
export function testTruth(ip: Interp, e: A.Expr, scope: Scope): boolean | HostScalar {
  return ip.holding((hold) => truthOf(ip, e, scope, hold));
}

/** testTruth's walk: each operand's value stays held until the whole condition is built (its truth may read it back). */
function truthOf(ip: Interp, e: A.Expr, scope: Scope, hold: <V extends PyValue>(v: V) => V): boolean | HostScalar {
  if (e.kind === 'UnaryOp' && e.op === 'not') {
    const t = truthOf(ip, e.operand, scope, hold);
    return t instanceof HostScalar ? new HostScalar({ k: 'unary', op: '!', x: t.expr }, 'bool') : !t;
  }
  if (e.kind !== 'BoolOp') return hostTruth(ip, hold(evalExpr(ip, e, scope)), e.span);
  const and = e.op === 'and';
  let acc: boolean | HostScalar = and;
  for (const x of e.values) {
    // Python stops at the first deciding operand known at compile time
    if (acc === !and) return acc;
    const t = truthOf(ip, x, scope, hold);
    if (typeof t === 'boolean') acc = t === and ? acc : t;
    else acc = typeof acc === 'boolean' ? t : new HostScalar({ k: 'bin', op: and ? '&&' : '||', a: acc.expr, b: t.expr }, 'bool');
  }
  return acc;
}

/**
 * `a and b and …` / `a or b or …` from operand `i`: Python returns the deciding operand. Where an
 * operand's truth is known only at run time, the result is a run-time choice between it and the rest.
 */
function boolOp(ip: Interp, e: A.BoolOp, i: number, scope: Scope): PyValue {
  const x = e.values[i]!;
  const v = evalExpr(ip, x, scope);
  if (i === e.values.length - 1) return v;
  const t = hostTruth(ip, v, x.span);
  if (!(t instanceof HostScalar)) return (e.op === 'and' ? !t : t) ? v : boolOp(ip, e, i + 1, scope);
  const rest = ip.holding((hold) => (hold(v), boolOp(ip, e, i + 1, scope)));
  return e.op === 'and' ? runTimeChoice(ip, t, rest, v, e.span) : runTimeChoice(ip, t, v, rest, e.span);
}

/**
 * `a if test else b` where `test` is known only at run time: host numbers, strings or bools of one
 * Python type, or device arrays of one type (whichever the program's run takes).
 */
function runTimeChoice(ip: Interp, test: HostScalar, a: PyValue, b: PyValue, span: A.Span): PyValue {
  if (a === b) return a;
  const ka = scalarKind(a);
  if (ka !== null && ka === scalarKind(b)) return new HostScalar({ k: 'cond', test: test.expr, then: hexpr(a), else: hexpr(b) }, ka);
  if (isArray(a) && isArray(b)) {
    const x = ip.ops.aval(a, span);
    const y = ip.ops.aval(b, span);
    if (x.dtype === y.dtype && x.shape.join() === y.shape.join()) {
      const ha = ip.hostArray(a, span);
      const hb = ip.hostArray(b, span);
      if (ha.sharding === hb.sharding) {
        const name = ip.freshName(ip.nameHints[0] ?? 'choice');
        ip.emit({ k: 'const', names: [name], value: { k: 'cond', test: test.expr, then: { k: 'var', name: ha.name }, else: { k: 'var', name: hb.name } } });
        const out = new HostArray(name, x.weak === y.weak ? x : { shape: x.shape, dtype: x.dtype });
        out.sharding = ha.sharding;
        return out;
      }
    }
  }
  throw new NeedsStatic(`a choice on a value known only when the program runs must give values of one type: here ${typeName(a)} or ${typeName(b)}`, span);
}

function evalCall(ip: Interp, e: A.Call, scope: Scope): PyValue {
  return ip.holding((hold) => {
    const fn = hold(evalExpr(ip, e.func, scope));
    if (fn === ip.builtins.vars.get('super') && e.args.length === 0) {
      // a bare super(): the method's class cell and first argument
      const cls = scope.lookup('__class__');
      const self = scope.lookup(SUPER_SELF);
      if (!(cls instanceof PyUserClass) || self === undefined) throw new CompileError('RuntimeError: super(): no arguments', e.span);
      return new PySuper(cls, self);
    }
    const args: PyValue[] = [];
    const argExprs: (A.Expr | null)[] = [];
    for (const a of e.args) {
      if (a.kind === 'Starred') {
        const items = iterate(ip, evalExpr(ip, a.value, scope), a.span);
        for (const v of items) {
          args.push(hold(v));
          argExprs.push(null);
        }
      } else {
        args.push(hold(evalExpr(ip, a, scope)));
        argExprs.push(a);
      }
    }
    const kwargs = new Map<string, PyValue>();
    for (const k of e.keywords) {
      const v = hold(evalExpr(ip, k.value, scope));
      if (k.arg === null) {
        if (!(v instanceof PyDict)) throw new CompileError('TypeError: argument after ** must be a mapping', k.span);
        v.entries.forEach(([kk, vv]) => kwargs.set(String(kk), vv));
      } else kwargs.set(k.arg, v);
    }
    return ip.call(fn, { args, kwargs, span: e.span, argExprs });
  });
}

