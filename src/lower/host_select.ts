// Choosing among items known now by keys known only when the program runs: `sorted(xs, key=f)`,
// `xs.sort(key=f)` and `max`/`min(xs, key=f)` where `f` gives read-back numbers
// (`min(results, key=lambda r: r['loss'])`, `max(range(n), key=lambda i: accs[i])`). The order, or the
// index of the best item, is computed when the program runs (runtime/values.ts: pySortOrder,
// pyArgExtreme, with Python's comparisons: a stable sort, the first of equal extremes); each result is a
// pick among the items, leaf by leaf: numbers, strings and arrays become run-time values, tuples, lists
// and dicts of one structure keep it.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HStmt } from '../ir/host.js';
import type { Span } from '../parser/ast.js';
import type { ArrayOps } from './arrays.js';
import { staticEquals } from './pyops.js';
import { hexpr, HostArray, HostScalar, isArray, NeedsStatic, PyDict, PyList, PyTuple, scalarKind, typeName, type PyValue } from './values.js';

/** What these choices need of the interpreter (its Interp, not imported: attrs.ts, in the evaluator core, imports this module). */
export interface HostSelectCtx {
  readonly atHost: boolean;
  readonly ops: Pick<ArrayOps, 'aval'>;
  emit(s: HStmt): void;
  freshName(hint: string): string;
  hostArray(v: PyValue, span: Span): HostArray;
}

/** Whether some key is known only when the program runs (and the code runs on the host, where it can be chosen then). */
export const runTimeKeys = (ip: HostSelectCtx, keys: readonly PyValue[]): boolean => ip.atHost && keys.some((k) => k instanceof HostScalar);

/** The keys as one TS array of numbers or of strings (Python's TypeError where numbers meet strings). */
function keyArray(keys: readonly PyValue[], op: '<' | '>', span: Span): HExpr {
  const kinds = keys.map(scalarKind);
  const bad = kinds.findIndex((k) => k === null);
  if (bad >= 0) throw new NeedsStatic(`a key of ${typeName(keys[bad]!)} beside keys known only when the program runs`, span);
  const str = kinds.findIndex((k) => k === 'str');
  const num = kinds.findIndex((k) => k !== 'str');
  if (str >= 0 && num >= 0) {
    const [a, b] = str > num ? [kinds[str], kinds[num]] : [kinds[num], kinds[str]];
    throw new CompileError(`TypeError: '${op}' not supported between instances of '${a}' and '${b}'`, span);
  }
  return { k: 'array', items: keys.map(hexpr) };
}

/** sorted(xs, key=...) (and list.sort) whose keys are known only at run time: the items in that order. */
export function runTimeSorted(ip: HostSelectCtx, xs: readonly PyValue[], keys: readonly PyValue[], reverse: boolean, span: Span): PyValue[] {
  const order = ip.freshName('order');
  ip.emit({ k: 'const', names: [order], value: { k: 'call', callee: 'jx.pySortOrder', args: [keyArray(keys, '<', span), { k: 'lit', value: reverse }] }, type: 'number[]' });
  return xs.map((_, i) => pick(ip, xs, { k: 'index', x: { k: 'var', name: order }, index: i }, span));
}

/** max/min(xs, key=...) whose keys are known only at run time: the first item with the largest (smallest) key. */
export function runTimeExtreme(ip: HostSelectCtx, xs: readonly PyValue[], keys: readonly PyValue[], which: 'max' | 'min', span: Span): PyValue {
  const best = ip.freshName(`arg${which}`);
  ip.emit({ k: 'const', names: [best], value: { k: 'call', callee: 'jx.pyArgExtreme', args: [keyArray(keys, which === 'max' ? '>' : '<', span), { k: 'lit', value: which }] } });
  return pick(ip, xs, { k: 'var', name: best }, span);
}

/** The item at run-time index `idx` among `xs`, as one value of their common structure. */
function pick(ip: HostSelectCtx, xs: readonly PyValue[], idx: HExpr, span: Span): PyValue {
  const first = xs[0]!;
  const scalar = (x: PyValue): boolean => scalarKind(x) !== null;
  if (xs.every((x) => x === first || (scalar(x) && !(x instanceof HostScalar) && scalar(first) && !(first instanceof HostScalar) && typeof x === typeof first && staticEquals(x, first)))) return first;
  const picked = (items: HExpr[], type?: string): string => {
    const name = ip.freshName('picked');
    ip.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'jx.pyPick', args: [{ k: 'array', items }, idx] }, ...(type ? { type } : {}) });
    return name;
  };
  const kind = scalarKind(first);
  if (kind !== null && xs.every((x) => scalarKind(x) === kind)) return new HostScalar({ k: 'var', name: picked(xs.map(hexpr)) }, kind);
  if (xs.every(isArray)) {
    const aval = ip.ops.aval(first, span);
    const arrays = xs.map((x) => ip.hostArray(x, span));
    const same = arrays.every((a) => !a.sharding && a.aval.dtype === aval.dtype && !!a.aval.weak === !!aval.weak && a.aval.shape.join() === aval.shape.join());
    if (same) return new HostArray(picked(arrays.map((a) => ({ k: 'var', name: a.name })), 'jx.JArray'), aval);
  }
  if (first instanceof PyTuple && xs.every((x) => x instanceof PyTuple && x.cls === first.cls && x.items.length === first.items.length)) {
    return new PyTuple(first.items.map((_, j) => pick(ip, xs.map((x) => (x as PyTuple).items[j]!), idx, span)), first.cls);
  }
  if (first instanceof PyList && xs.every((x) => x instanceof PyList && x.items.length === first.items.length)) {
    return new PyList(first.items.map((_, j) => pick(ip, xs.map((x) => (x as PyList).items[j]!), idx, span)));
  }
  if (first instanceof PyDict && xs.every((x) => x instanceof PyDict && [...x.entries.keys()].join('\0') === [...first.entries.keys()].join('\0'))) {
    const d = new PyDict();
    d.flavor = first.flavor;
    for (const [key, [k]] of first.entries) d.set(k, pick(ip, xs.map((x) => (x as PyDict).entries.get(key)![1]), idx, span));
    return d;
  }
  throw new NeedsStatic(`choosing among ${[...new Set(xs.map(typeName))].join(' and ')} values by a key known only when the program runs`, span);
}
