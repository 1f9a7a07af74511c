// Lists known only when the program runs (HostList): a list that a loop running on the host appends to
// (`while loss > 1e-3: history.append(float(loss))`) cannot be specialised at compile time, so the loop
// that first needs it lowers it again with the list as a TS array declared before the loop. Here: the
// promotion (PromoteToHostList, thrown by list.append where the list must stay static) and the list's
// operations (append, extend, pop, len, indexing, slicing, sum/max/min, repr), each computing what
// CPython does on the same items. Its items are host scalars of one type, or device arrays of one
// type (`history.append(params)` in a `while` on a loss read back).
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HStmt } from '../ir/host.js';
import type { Span } from '../parser/ast.js';
import { HostArray, HostList, HostZip, PyRange, type HostEachPart, HostScalar, isArray, NeedsStatic, PyInstance, PyDict, PyList, PyTuple, scalarKind, typeName, type ListElem, type PyValue, type Scope } from './values.js';
import type { AVal } from '../ir/types.js';
import { pyFloatRepr, pyStrRepr } from '../../runtime/format/index.js';

/** What the list operations need of the interpreter. */
export interface HostListCtx {
  emit(s: HStmt): void;
  freshName(hint: string): string;
  /** A device array as a TS variable of the host program. */
  hostArray(v: PyValue, span: Span): HostArray;
}

/** The list made before any host loop that this one is the loop's copy of. */
export const rootList = (l: PyList): PyList => {
  while (l.origin) l = l.origin;
  return l;
};

/** list.append (or extend) in a loop that runs on the host: the loop that owns the list lowers again with it as a HostList. */
export class PromoteToHostList extends NeedsStatic {
  constructor(
    readonly list: PyList,
    readonly elem: ListElem,
    span: Span,
  ) {
    super('list.append inside a loop that runs on the host', span);
  }
}

const sameAval = (a: AVal, b: AVal): boolean => a.dtype === b.dtype && !!a.weak === !!b.weak && a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i]);
const isArrayElem = (e: ListElem): e is AVal => typeof e !== 'string';
const elemText = (e: ListElem): string => (isArrayElem(e) ? 'Array' : e);

/** The type the items of a static list would have as a HostList (null: not scalars of one type, nor arrays of one type on one device). */
export function hostListElem(items: readonly PyValue[], added: readonly PyValue[]): ListElem | null {
  const all = [...items, ...added];
  if (all.length && all.every(isArray)) {
    const first = all[0] as HostArray;
    const aval = first.aval;
    return all.every((x) => sameAval((x as HostArray).aval, aval) && !(x instanceof HostArray && x.sharding)) ? aval : null;
  }
  const kinds = new Set(all.map(scalarKind));
  if (kinds.size !== 1 || kinds.has(null)) return null;
  // an int beyond 2**53 would lose its exact value in a TS number
  if (all.some((x) => typeof x === 'bigint' && !Number.isSafeInteger(Number(x)))) return null;
  return [...kinds][0]!;
}

const tsType = (elem: ListElem): string => (isArrayElem(elem) ? 'jx.JArray[]' : elem === 'str' ? 'string[]' : elem === 'bool' ? 'boolean[]' : 'number[]');

const lit = (v: PyValue): HExpr => {
  if (v instanceof HostScalar) return v.expr;
  return { k: 'lit', value: typeof v === 'bigint' ? Number(v) : (v as string | number | boolean) };
};

/** An item of a list of type `elem` as a TS value (a device array: its variable). */
const itemExpr = (ctx: HostListCtx, elem: ListElem, v: PyValue, span: Span): HExpr => (isArrayElem(elem) ? { k: 'var', name: ctx.hostArray(v, span).name } : lit(v));

/** Declares `list` (static items) as a TS array: the HostList that stands for it from here on. */
export function declareHostList(ctx: HostListCtx, list: PyList, elem: ListElem, hint: string, span: Span): HostList {
  const items = list.items.map((x) => itemExpr(ctx, elem, x, span));
  const name = ctx.freshName(hint);
  ctx.emit({ k: 'const', names: [name], value: { k: 'array', items }, type: tsType(elem) });
  return new HostList(name, elem);
}

/** Whether `v` holds `target` (in a container or an object's attributes), as loops carry them. */
function holds(v: PyValue, target: PyList, seen = new Set<PyValue>()): boolean {
  if (v === target) return true;
  if (v === null || typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  if (v instanceof PyList || v instanceof PyTuple) return v.items.some((x) => holds(x, target, seen));
  if (v instanceof PyDict) return v.values().some((x) => holds(x, target, seen));
  if (v instanceof PyInstance) return [...v.attrs.values()].some((x) => holds(x, target, seen));
  return false;
}

/** Whether `target` is reachable from the variables of `vars` or of the scopes around `scope`. */
export function reachable(vars: ReadonlyMap<string, PyValue>, scope: Scope, target: PyList): boolean {
  for (const v of vars.values()) if (holds(v, target)) return true;
  for (let s = scope.parent; s; s = s.parent) for (const v of s.vars.values()) if (holds(v, target)) return true;
  return false;
}

/** Replaces `target` by `by` wherever the variables of `scope` (and the scopes around it) hold it. */
export function replaceList(scope: Scope, target: PyList, by: HostList): void {
  const seen = new Set<PyValue>();
  const swap = (v: PyValue): PyValue => {
    if (v === target) return by;
    if (v === null || typeof v !== 'object' || seen.has(v)) return v;
    seen.add(v);
    if (v instanceof PyList) v.items = v.items.map(swap);
    else if (v instanceof PyTuple) v.items.forEach((x, i) => ((v.items as PyValue[])[i] = swap(x)));
    else if (v instanceof PyDict) v.entries.forEach((kv) => (kv[1] = swap(kv[1])));
    else if (v instanceof PyInstance) v.attrs.forEach((x, k) => v.attrs.set(k, swap(x)));
    return v;
  };
  for (let s: Scope | null = scope; s; s = s.parent) s.vars.forEach((v, k) => s!.vars.set(k, swap(v)));
}

const listVar = (h: HostList): HExpr => ({ k: 'var', name: h.name });

/** `value`, which goes into `h`: a host scalar of the list's type, or a device array of its type. */
function item(ctx: HostListCtx, h: HostList, value: PyValue, span: Span): HExpr {
  const elem = h.elem;
  if (isArrayElem(elem)) {
    if (isArray(value) && sameAval(value.aval, elem) && !(value instanceof HostArray && value.sharding)) return itemExpr(ctx, elem, value, span);
    const what = isArray(value) ? `an array of type ${value.aval.dtype}${JSON.stringify(value.aval.shape)}` : `a value of type '${typeName(value)}'`;
    throw new CompileError(`a list known only when the program runs holds arrays of one type (here ${elem.dtype}${JSON.stringify(elem.shape)}); this adds ${what}`, span);
  }
  const kind = scalarKind(value);
  if (kind !== elem || (typeof value === 'bigint' && !Number.isSafeInteger(Number(value)))) {
    throw new CompileError(`a list known only when the program runs holds values of one type (here ${elem}); this adds a value of type '${kind ?? (value as { typeName?: string })?.typeName ?? 'object'}'`, span);
  }
  return lit(value);
}

/** A value computed now from the list's current items (they change as the program appends). */
function snapshot(ctx: HostListCtx, e: HExpr, type: ListElem, hint: string): HostScalar | HostArray {
  const name = ctx.freshName(hint);
  ctx.emit({ k: 'const', names: [name], value: e });
  return isArrayElem(type) ? new HostArray(name, type) : new HostScalar({ k: 'var', name }, type);
}

/** A scalar computed now from the list. */
const scalarSnapshot = (ctx: HostListCtx, e: HExpr, type: HostScalar['type'], hint: string): HostScalar => snapshot(ctx, e, type, hint) as HostScalar;

/** The item of `h` that a TS expression (of the list's items) holds, as a Python value. */
export const listItem = (h: HostList, e: HExpr & { k: 'var' }): HostScalar | HostArray => (isArrayElem(h.elem) ? new HostArray(e.name, h.elem) : new HostScalar(e, h.elem));

/** The methods of a HostList (undefined: not one). */
export function hostListMethod(ctx: HostListCtx, h: HostList, name: string): ((args: PyValue[], span: Span) => PyValue) | undefined {
  const call = (method: string, args: HExpr[]): HStmt => ({ k: 'expr', e: { k: 'call', callee: `${h.name}.${method}`, args } });
  // a tuple has only the methods that read it
  if (h.kind === 'tuple' && name !== 'index' && name !== 'count') return undefined;
  switch (name) {
    case 'append':
      return (args, span) => (ctx.emit(call('push', [item(ctx, h, args[0] ?? null, span)])), null);
    case 'extend':
      return (args, span) => {
        const src = args[0] ?? null;
        if (src instanceof HostList) {
          const same = isArrayElem(src.elem) && isArrayElem(h.elem) ? sameAval(src.elem, h.elem) : src.elem === h.elem;
          if (!same) throw new CompileError(`a list known only when the program runs holds values of one type (here ${elemText(h.elem)}); this adds values of type '${elemText(src.elem)}'`, span);
          ctx.emit({ k: 'expr', e: { k: 'call', callee: 'jx.pyListExtend', args: [listVar(h), listVar(src)] } });
          return null;
        }
        if (src instanceof PyList || src instanceof PyTuple) {
          for (const x of src.items) ctx.emit(call('push', [item(ctx, h, x, span)]));
          return null;
        }
        throw new CompileError(`extending a list known only when the program runs with a '${(src as { typeName?: string })?.typeName ?? typeof src}' is not supported`, span);
      };
    case 'pop':
      return (args) => snapshot(ctx, { k: 'call', callee: 'jx.pyListPop', args: [listVar(h), ...args.map(lit)] }, h.elem, 'popped');
    case 'clear':
      return () => (ctx.emit({ k: 'assign', name: `${h.name}.length`, value: { k: 'lit', value: 0 } }), null);
    case 'copy':
      return () => copyList(ctx, h, []);
    case 'index':
    case 'count':
      return (args, span) => hostListFind(ctx, h, args[0] ?? null, name, span);
  }
  return undefined;
}

function copyList(ctx: HostListCtx, h: HostList, args: HExpr[], kind: HostList['kind'] = 'list'): HostList {
  const name = ctx.freshName(h.name);
  ctx.emit({ k: 'const', names: [name], value: { k: 'call', callee: `${h.name}.slice`, args }, type: tsType(h.elem) });
  return new HostList(name, h.elem, kind);
}

/** len(h), at this point of the program. */
export const hostListLen = (ctx: HostListCtx, h: HostList): HostScalar => scalarSnapshot(ctx, { k: 'member', x: listVar(h), key: 'length' }, 'int', 'n');

/** bool(h). */
export const hostListTruth = (ctx: HostListCtx, h: HostList): HostScalar => scalarSnapshot(ctx, { k: 'bin', op: '>', a: { k: 'member', x: listVar(h), key: 'length' }, b: { k: 'lit', value: 0 } }, 'bool', 'nonempty');

/** repr(h) (and str), at this point of the program. */
export const hostListRepr = (ctx: HostListCtx, h: HostList): HExpr =>
  scalarSnapshot(
    ctx,
    isArrayElem(h.elem)
      ? { k: 'call', callee: 'jx.pyArrayListRepr', args: [listVar(h), { k: 'lit', value: !!h.elem.weak }, { k: 'lit', value: h.kind === 'tuple' }], await: true }
      : { k: 'call', callee: 'jx.pyListRepr', args: [listVar(h), { k: 'lit', value: h.elem }, { k: 'lit', value: h.kind === 'tuple' }] },
    'str',
    'text',
  ).expr;

/** h[i] (an int, known now or at run time) or h[a:b] (a slice of static bounds, step 1). */
export function hostListIndex(ctx: HostListCtx, h: HostList, key: PyValue, span: Span): PyValue {
  if (key instanceof HostScalar ? key.type === 'int' || key.type === 'bool' : typeof key === 'bigint' || typeof key === 'boolean') {
    const i: HExpr = typeof key === 'boolean' ? { k: 'lit', value: key ? 1 : 0 } : lit(key);
    return snapshot(ctx, { k: 'call', callee: 'jx.pyIndex', args: [listVar(h), i, { k: 'lit', value: h.kind }] }, h.elem, 'item');
  }
  const sl = key as { typeName?: string; start?: PyValue; stop?: PyValue; step?: PyValue };
  if (sl?.typeName === 'slice') {
    const bound = (b: PyValue | undefined): HExpr | null => {
      if (b === null || b === undefined) return null;
      if (typeof b === 'number' || typeof b === 'bigint' || (b instanceof HostScalar && b.type === 'int')) return lit(b);
      throw new CompileError(`TypeError: slice indices must be integers or None or have an __index__ method`, span);
    };
    const start = bound(sl.start);
    const stop = bound(sl.stop);
    if (sl.step !== null && sl.step !== undefined && sl.step !== 1) {
      // Python's slicing with a step (runtime/values.ts pySlice; a zero step raises ValueError when it runs)
      const name = ctx.freshName(h.name);
      const nul: HExpr = { k: 'lit', value: null };
      ctx.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'jx.pySlice', args: [listVar(h), start ?? nul, stop ?? nul, bound(sl.step)!] }, type: tsType(h.elem) });
      return new HostList(name, h.elem, h.kind);
    }
    // JS's slice clamps and counts negative bounds from the end as Python's does for step 1
    return copyList(ctx, h, stop ? [start ?? { k: 'lit', value: 0 }, stop] : start ? [start] : [], h.kind);
  }
  throw new CompileError(`TypeError: ${h.kind} indices must be integers or slices, not ${(key as { typeName?: string })?.typeName ?? typeof key}`, span);
}

/** sum(h), max(h), min(h). */
export function hostListReduce(ctx: HostListCtx, h: HostList, which: 'sum' | 'max' | 'min', start: PyValue, span: Span): HostScalar {
  const elem = h.elem;
  if (isArrayElem(elem)) throw new CompileError(`${which}() of a list of arrays known only when the program runs is not supported`, span);
  if (which === 'sum') {
    if (elem === 'str') throw new CompileError("TypeError: unsupported operand type(s) for +: 'int' and 'str'", span);
    const k = scalarKind(start);
    if (k !== 'int' && k !== 'float' && k !== 'bool') throw new CompileError(`sum() of a list known only when the program runs starts from a number`, span);
    const type = elem === 'float' || k === 'float' ? 'float' : 'int';
    return scalarSnapshot(ctx, { k: 'call', callee: 'jx.pyListSum', args: [listVar(h), typeof start === 'boolean' ? { k: 'lit', value: start ? 1 : 0 } : lit(start)] }, type, 'total');
  }
  return scalarSnapshot(ctx, { k: 'call', callee: 'jx.pyListExtreme', args: [listVar(h), { k: 'lit', value: which }] }, elem, which);
}

/** h.index(x), h.count(x), x in h: x a number, string or bool (known now or at run time). */
export function hostListFind(ctx: HostListCtx, h: HostList, x: PyValue, which: 'index' | 'count' | 'in', span: Span): HostScalar {
  const kind = scalarKind(x);
  if (isArrayElem(h.elem) || (kind !== 'int' && kind !== 'float' && kind !== 'bool' && kind !== 'str')) {
    throw new CompileError(`${which === 'in' ? "'in'" : `list.${which}()`} of a list known only when the program runs with an item of type '${isArrayElem(h.elem) ? 'Array' : typeName(x)}' is not supported`, span);
  }
  // a str never equals a number: the search finds nothing (an index raises ValueError)
  const args: HExpr[] = [listVar(h), lit(x), { k: 'lit', value: which }];
  if (which === 'index') args.push(x instanceof HostScalar ? { k: 'call', callee: 'jx.pyRepr', args: [x.expr, { k: 'lit', value: x.type }] } : { k: 'lit', value: typeof x === 'string' ? pyStrRepr(x) : typeof x === 'number' ? pyFloatRepr(x) : typeof x === 'boolean' ? (x ? 'True' : 'False') : String(x) });
  return scalarSnapshot(ctx, { k: 'call', callee: 'jx.pyListFind', args }, which === 'in' ? 'bool' : 'int', which === 'in' ? 'found' : which);
}

/** any(h) / all(h) of a list of numbers, strings or bools known only at run time. */
export function hostListTruthOf(ctx: HostListCtx, h: HostList, which: 'any' | 'all', span: Span): HostScalar {
  if (isArrayElem(h.elem)) throw new CompileError(`${which}() of a list of arrays known only when the program runs is not supported`, span);
  return scalarSnapshot(ctx, { k: 'call', callee: 'jx.pyListTruth', args: [listVar(h), { k: 'lit', value: which }] }, 'bool', which);
}

/**
 * zip(...) or enumerate(...) of a list known only when the program runs (null: none is one): a `for`
 * over it runs as a TS loop up to the shortest stream. Static lists become run-time ones, ranges counts.
 */
export function hostZip(ctx: HostListCtx, kind: 'zip' | 'enumerate', args: readonly PyValue[], start: bigint, span: Span): HostZip | null {
  if (!args.some((a) => a instanceof HostList)) return null;
  const part = (a: PyValue): HostEachPart => {
    if (a instanceof HostList) return { k: 'list', list: a };
    if (a instanceof PyRange) return { k: 'count', start: a.start, step: a.step, length: a.length };
    if (a instanceof PyList || a instanceof PyTuple) {
      const elem = a.items.length ? hostListElem(a.items, []) : null;
      if (elem) return { k: 'list', list: declareHostList(ctx, new PyList([...a.items]), elem, 'items', span) };
    }
    throw new CompileError(`${kind}() of a list known only when the program runs with a ${typeName(a)} (other than a range, or a list of numbers, strings or arrays of one type) is not supported`, span);
  };
  return new HostZip(kind, kind === 'enumerate' ? [{ k: 'count', start, step: 1n, length: null }, { k: 'list', list: args[0] as HostList }] : args.map(part));
}

/** list(h) or tuple(h): a copy (a tuple of a tuple is itself). */
export const hostListCopy = (ctx: HostListCtx, h: HostList, kind: HostList['kind'] = 'list'): HostList => (kind === 'tuple' && h.kind === 'tuple' ? h : copyList(ctx, h, [], kind));

/** sorted(h) (reverse=): a sorted copy, in Python's order of numbers or of strings (by code point). */
export function hostListSorted(ctx: HostListCtx, h: HostList, reverse: boolean, span: Span): HostList {
  if (isArrayElem(h.elem)) throw new CompileError('sorted() of a list of arrays known only when the program runs is not supported', span);
  const out = copyList(ctx, h, []);
  ctx.emit({ k: 'expr', e: { k: 'call', callee: 'jx.pyListSort', args: [listVar(out), { k: 'lit', value: reverse }] } });
  return out;
}

/** sep.join(h) of a list of strings known only at run time. */
export function hostListJoin(ctx: HostListCtx, h: HostList, sep: string, span: Span): HostScalar {
  if (h.elem !== 'str') throw new CompileError(`TypeError: sequence item 0: expected str instance, ${elemText(h.elem)} found`, span);
  return scalarSnapshot(ctx, { k: 'call', callee: `${h.name}.join`, args: [{ k: 'lit', value: sep }] }, 'str', 'joined');
}
