// NumPy at run time: the lowering of NumPy values known only when the program
// runs (HostNd), for the two places compile-time NumPy cannot go — a draw of
// np.random in a loop that stays a loop (a training loop of 20,000 steps), and
// an array too large to build at compile time. Shapes and dtypes stay known
// now (NumPy's promotion rules are applied here); each operation becomes one
// call of runtime/numpy (`const x = jx.np.binary('+', a, b, 'float64')`).
// Everything else NumPy computes stays compile-time (ndarray.ts).
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HStmt } from '../ir/host.js';
import type { Span } from '../parser/ast.js';
import { MT19937 } from '../../runtime/numpy/mt19937.js';
import type { PCG64 } from '../../runtime/numpy/pcg64.js';
import { jaxDtype } from './arrays.js';
import { HostArray, HostList, HostNd, HostScalar, NdArray, NeedsStatic, NpScalar, PyList, PyTuple, typeName, type PyValue } from './values.js';

type NpDType = NdArray['dtype'];

/** What run-time NumPy needs of the interpreter. */
export interface HostNumpyCtx {
  emit(s: HStmt): void;
  freshName(hint: string): string;
  /** The names being assigned (`x1 = ...`): the hint for a value's TS name. */
  nameHints: string[];
  /** `const NAME = value` at the top of main(), once per `key`. */
  hoisted(key: string, hint: string, value: HExpr): string;
}

/** Compile-time NumPy arrays that run-time NumPy reads: each is declared once, at the top of main(). */
const hoistedIds = new WeakMap<NdArray, number>();
let hoistedCount = 0;

// ------------------------------------------------------------ generators whose state lives in the program

/** A bit generator's state moved to the program: the TS variable holding it, in the order they were declared. */
const runTimeGens = new Map<MT19937 | PCG64, string>();

/** Lookups of `runTimeGen` that found a generator in the program: a loop whose body made one draws at run time. */
let runTimeLookups = 0;
export const runTimeLookupMark = (): number => runTimeLookups;
/** The TS variable of a generator whose draws happen at run time (null: still drawn at compile time). */
export const runTimeGen = (g: MT19937 | PCG64): string | null => {
  const name = runTimeGens.get(g) ?? null;
  if (name !== null) runTimeLookups++;
  return name;
};

/** How many generators have moved to the program (Interp.checkpoint keeps it). */
export const genMark = (): number => runTimeGens.size;

/** A rollback dropped the declarations after `mark`: those generators draw at compile time again. */
export function forgetGensSince(mark: number): void {
  [...runTimeGens.keys()].slice(mark).forEach((g) => runTimeGens.delete(g));
}

/**
 * A draw of np.random inside a loop that stays a loop at run time: the outermost such loop lowers again
 * with the generator declared before it (in the state the compile-time draws left it in).
 */
export class PromoteRng extends NeedsStatic {
  constructor(
    readonly gen: MT19937 | PCG64,
    message: string,
    span: Span,
  ) {
    super(message, span);
  }
}

/** Declares `g` in the program in its current state; from here on its draws happen at run time. */
export function declareGen(ctx: HostNumpyCtx, g: MT19937 | PCG64): string {
  const name = ctx.freshName(g instanceof MT19937 ? 'np_random' : 'rng');
  let e: HExpr;
  if (g instanceof MT19937) {
    const r = g.recipe();
    e = 'seed' in r ? call('MT19937.fromSeed', [lit(r.seed), lit(r.drawn), lit(r.gauss)]) : call('MT19937.fromState', [litArray(r.key), lit(r.pos), lit(r.hasGauss), lit(r.gauss)]);
  } else e = call('PCG64.fromState', g.recipe().map(lit));
  ctx.emit({ k: 'const', names: [name], value: e });
  runTimeGens.set(g, name);
  runTimeVarTypes.set(name, g instanceof MT19937 ? 'jx.np.MT19937' : 'jx.np.PCG64');
  return name;
}

/** `np.random.get_state()` of a legacy generator whose state is in the program: a tuple of run-time values. */
export function runTimeGetState(ctx: HostNumpyCtx, gen: string): PyTuple {
  const name = ctx.freshName(ctx.nameHints[0] ?? 'rng_state');
  ctx.emit({ k: 'const', names: [name], value: call('getState', [{ k: 'var', name: gen }]) });
  runTimeVarTypes.set(name, 'jx.np.LegacyState');
  const field = (key: string): HExpr => ({ k: 'member', x: { k: 'var', name }, key });
  const key = hostNd(ctx, 'rng_key', field('key'), [624], 'uint32');
  return new PyTuple(['MT19937', key, new HostScalar(field('pos'), 'int'), new HostScalar(field('hasGauss'), 'int'), new HostScalar(field('gauss'), 'float')]);
}

/** `np.random.set_state(state)` on a generator whose state is in the program (`items` may be known only at run time). */
export function runTimeSetState(ctx: HostNumpyCtx, gen: string, items: readonly PyValue[], span: Span): void {
  const key = operand(ctx, items[1]!, span);
  if (key.shape.length !== 1 || key.shape[0] !== 624) throw new CompileError('ValueError: state must be 624 elements', span);
  const scalar = (x: PyValue | undefined, d: number): HExpr => {
    if (x === undefined) return lit(d);
    const o = operand(ctx, x, span);
    if (o.shape.length) throw new CompileError('TypeError: only 0-dimensional arrays can be converted to Python scalars', span);
    return o.weak ? o.e : call('item', [o.e]);
  };
  ctx.emit({ k: 'expr', e: call('setState', [{ k: 'var', name: gen }, key.e, scalar(items[2], 624), scalar(items[3], 0), scalar(items[4], 0)]) });
}

/** A draw at run time from generator `gen` (`fn` of runtime/numpy/random.ts): a Python number when `shape` is null. */
export function runTimeDraw(ctx: HostNumpyCtx, gen: string, fn: string, args: HExpr[], shape: readonly number[] | null, dtype: 'float64' | 'int64'): PyValue {
  const e = call(fn, [{ k: 'var', name: gen }, ...args, shape === null ? lit(null) : litArray(shape)]);
  const hint = ctx.nameHints[0] ?? 'draw';
  if (shape !== null) return hostNd(ctx, hint, e, shape, dtype);
  const name = ctx.freshName(hint);
  ctx.emit({ k: 'const', names: [name], value: e });
  return new HostScalar({ k: 'var', name }, dtype === 'float64' ? 'float' : 'int');
}

const lit = (value: string | number | boolean | null): HExpr => ({ k: 'lit', value });
const litArray = (xs: readonly number[]): HExpr => ({ k: 'array', items: xs.map(lit) });
const call = (fn: string, args: HExpr[]): HExpr => ({ k: 'call', callee: `jx.np.${fn}`, args });

/** The TS types of the host variables run-time NumPy declares (generators, arrays), by name. */
export const runTimeVarTypes = new Map<string, string>();

/** Binds `e` (an ndarray expression) to a fresh const: the HostNd it holds. */
export function hostNd(ctx: HostNumpyCtx, hint: string, e: HExpr, shape: readonly number[], dtype: NpDType): HostNd {
  const name = ctx.freshName(ctx.nameHints[0] ?? hint);
  ctx.emit({ k: 'const', names: [name], value: e });
  runTimeVarTypes.set(name, 'jx.np.NdArray');
  return new HostNd(name, [...shape], dtype);
}

/**
 * A 0-d result as the value NumPy gives: a NumPy scalar, which prints and computes as the Python number
 * for float64, int64 and bool (a run-time number here); float32 stays a 0-d array.
 */
function scalarOrNd(ctx: HostNumpyCtx, hint: string, e: HExpr, shape: readonly number[], dtype: NpDType): PyValue {
  const x = hostNd(ctx, hint, e, shape, dtype);
  if (shape.length || dtype === 'float32' || dtype === 'int32') return x;
  const item = call('item', [{ k: 'var', name: x.name }]);
  return dtype === 'bool' ? new HostScalar({ k: 'bin', op: '!==', a: item, b: lit(0) }, 'bool') : new HostScalar(item, dtype === 'int64' ? 'int' : 'float');
}

/** Whether `v` is a run-time NumPy value or holds one at the top of a list or tuple. */
export const isHostNd = (v: PyValue): boolean => v instanceof HostNd || ((v instanceof PyList || v instanceof PyTuple) && v.items.some((x) => x instanceof HostNd));

// ------------------------------------------------------------ operands and NumPy's promotion

interface Operand {
  e: HExpr;
  shape: readonly number[];
  dtype: NpDType;
  /** A Python number (NEP 50: it takes the array's dtype where its kind allows). */
  weak: boolean;
}

const KIND: Record<NpDType, number> = { bool: 0, int8: 1, int16: 1, int32: 1, int64: 1, uint8: 1, uint16: 1, uint32: 1, float16: 2, bfloat16: 2, float32: 2, float64: 2 };

function operand(ctx: HostNumpyCtx, v: PyValue, span: Span): Operand {
  if (v instanceof HostNd) return { e: { k: 'var', name: v.name }, shape: v.shape, dtype: v.dtype, weak: false };
  if (v instanceof HostScalar) {
    if (v.type === 'str') throw new CompileError(`TypeError: unsupported operand type for a NumPy array: 'str'`, span);
    const e = v.type === 'bool' ? ({ k: 'call', callee: 'Number', args: [v.expr] } as HExpr) : v.expr;
    return { e, shape: [], dtype: v.type === 'float' ? 'float64' : v.type === 'int' ? 'int64' : 'bool', weak: true };
  }
  if (typeof v === 'number') return { e: lit(v), shape: [], dtype: 'float64', weak: true };
  if (typeof v === 'bigint') return { e: lit(Number(v)), shape: [], dtype: 'int64', weak: true };
  if (typeof v === 'boolean') return { e: lit(v ? 1 : 0), shape: [], dtype: 'bool', weak: true };
  const nested = numberLeaves(v);
  if (nested && nested.shape.length) {
    // (nested) lists of Python numbers, some known only at run time: an array of their common kind
    const items = nested.leaves.map((x) => operand(ctx, x, span));
    const dtype: NpDType = !items.length || items.some((o) => o.dtype === 'float64') ? 'float64' : items.some((o) => o.dtype === 'int64') ? 'int64' : 'bool';
    return { e: call('array', [litArray(nested.shape), lit(dtype), { k: 'array', items: items.map((o) => o.e) }]), shape: nested.shape, dtype, weak: false };
  }
  if (v instanceof NpScalar) return { e: call('array', [litArray([]), lit(v.dtype), litArray([v.value])]), shape: [], dtype: v.dtype, weak: false };
  if (v instanceof NdArray) {
    const made = call('array', [litArray(v.shape), lit(v.dtype), litArray(v.data)]);
    if (v.data.length <= 8) return { e: made, shape: v.shape, dtype: v.dtype, weak: false };
    if (!hoistedIds.has(v)) hoistedIds.set(v, ++hoistedCount);
    return { e: { k: 'var', name: ctx.hoisted(`numpy:${hoistedIds.get(v)}`, 'np_array', made) }, shape: v.shape, dtype: v.dtype, weak: false };
  }
  throw new CompileError(`TypeError: unsupported operand type for a NumPy array computed at run time: '${typeName(v)}'`, span);
}

/** The numbers of a (nested) list or tuple of Python numbers of one rectangular shape, in row-major order (null: not such a list). */
function numberLeaves(v: PyValue): { shape: number[]; leaves: PyValue[] } | null {
  if (v instanceof HostScalar ? v.type !== 'str' : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return { shape: [], leaves: [v] };
  if (!(v instanceof PyList || v instanceof PyTuple)) return null;
  const parts = v.items.map(numberLeaves);
  if (!parts.length) return { shape: [0], leaves: [] };
  if (parts.some((p) => p === null || p.shape.join() !== parts[0]!.shape.join())) return null;
  return { shape: [parts.length, ...parts[0]!.shape], leaves: parts.flatMap((p) => p!.leaves) };
}

/** Whether `v` is a (nested) list of Python numbers some of which are known only at run time: np.array makes it at run time. */
export const runTimeNumberList = (v: PyValue): boolean => numberLeaves(v) !== null && hasHostScalar(v);
const hasHostScalar = (v: PyValue): boolean => v instanceof HostScalar || ((v instanceof PyList || v instanceof PyTuple) && v.items.some(hasHostScalar));

/** np.array of such a list. */
export function hostNdFromList(ctx: HostNumpyCtx, v: PyList | PyTuple, span: Span): HostNd {
  const x = operand(ctx, v, span);
  return hostNd(ctx, 'np_array', x.e, x.shape, x.dtype);
}

/** NumPy 2's result dtype of two operands (Python numbers are weak: NEP 50). */
function promote(a: Operand, b: Operand): NpDType {
  if (a.weak && !b.weak) return KIND[a.dtype] > KIND[b.dtype] ? (a.dtype === 'float64' ? 'float64' : 'int64') : b.dtype;
  if (b.weak && !a.weak) return promote(b, a);
  if (a.dtype === b.dtype) return a.dtype;
  const [lo, hi] = KIND[a.dtype] <= KIND[b.dtype] ? [a, b] : [b, a];
  if (KIND[lo.dtype] === KIND[hi.dtype]) return lo.dtype.endsWith('64') ? lo.dtype : hi.dtype;
  if (hi.dtype === 'float32' && (lo.dtype === 'int32' || lo.dtype === 'int64')) return 'float64';
  return hi.dtype;
}

/** NumPy's broadcast of two shapes, with its error. */
function broadcast(a: readonly number[], b: readonly number[], span: Span): number[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => {
    const x = a[i - n + a.length] ?? 1;
    const y = b[i - n + b.length] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      const s = (t: readonly number[]): string => `(${t.join(',')}${t.length === 1 ? ',' : ''})`;
      throw new CompileError(`ValueError: operands could not be broadcast together with shapes ${s(a)} ${s(b)} `, span);
    }
    return x === 1 ? y : x;
  });
}

const BINARY_OPS = new Set(['+', '-', '*', '/', '//', '%', '**', '<', '<=', '>', '>=', '==', '!=', 'maximum', 'minimum']);
const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);

/** `a op b` where one operand is a run-time NumPy array (or np.maximum / np.minimum). */
export function hostNdBinary(ctx: HostNumpyCtx, op: string, a: PyValue, b: PyValue, span: Span): PyValue {
  if (!BINARY_OPS.has(op)) throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, span);
  const x = operand(ctx, a, span);
  const y = operand(ctx, b, span);
  const shape = broadcast(x.shape, y.shape, span);
  let dtype = promote(x, y);
  if (COMPARISONS.has(op)) dtype = 'bool';
  else if (op === '/' && KIND[dtype] < 2) dtype = 'float64';
  else if (op === '**' && KIND[dtype] < 2 && !y.weak) dtype = dtype === 'bool' ? 'int64' : dtype;
  return scalarOrNd(ctx, 'np_value', call('binary', [lit(op), x.e, y.e, lit(dtype)]), shape, dtype);
}

/** `a @ b` / np.dot / np.matmul of 1-d and 2-d arrays, one known only at run time. */
export function hostNdMatmul(ctx: HostNumpyCtx, a: PyValue, b: PyValue, span: Span): PyValue {
  const x = operand(ctx, a, span);
  const y = operand(ctx, b, span);
  if (!x.shape.length || !y.shape.length) return hostNdBinary(ctx, '*', a, b, span);
  if (x.shape.length > 2 || y.shape.length > 2) throw new CompileError('matmul of NumPy arrays with more than two dimensions at run time is not supported by jaxts', span);
  const k = x.shape[x.shape.length - 1]!;
  const k2 = y.shape[0]!;
  if (k !== k2) throw new CompileError(`ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ${k2} is different from ${k})`, span);
  const shape = [...x.shape.slice(0, -1), ...y.shape.slice(1)];
  let dtype = promote({ ...x, weak: false }, { ...y, weak: false });
  if (dtype === 'bool') dtype = 'bool';
  return scalarOrNd(ctx, 'np_value', call('matmul', [x.e, y.e, lit(dtype)]), shape, dtype);
}

const FLOAT_UFUNCS = new Set(['sin', 'cos', 'tan', 'tanh', 'exp', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt']);
const SAME_UFUNCS = new Set(['abs', 'negative', 'sign', 'floor', 'ceil', 'square']);

/** A NumPy ufunc of one argument on a run-time array (null: not one this handles). */
export function hostNdUnary(ctx: HostNumpyCtx, name: string, v: PyValue, span: Span): PyValue | null {
  const op = name === 'absolute' ? 'abs' : name;
  if (!FLOAT_UFUNCS.has(op) && !SAME_UFUNCS.has(op)) return null;
  const x = operand(ctx, v, span);
  const dtype: NpDType = FLOAT_UFUNCS.has(op) || ((op === 'floor' || op === 'ceil') && x.dtype === 'bool') ? (x.dtype === 'float32' ? 'float32' : 'float64') : x.dtype;
  return scalarOrNd(ctx, 'np_value', call('unary', [lit(op), x.e, lit(dtype)]), x.shape, dtype);
}

export type HostReduction = 'sum' | 'prod' | 'max' | 'min' | 'mean' | 'any' | 'all';

/** np.sum / mean / ... of a run-time array (or a run-time list of numbers) over `axes` (null: all). */
export function hostNdReduce(ctx: HostNumpyCtx, kind: HostReduction, v: PyValue, axes: number[] | null, keepdims: boolean, span: Span): PyValue {
  let x: Operand;
  if (v instanceof HostList) {
    if (v.elem === 'str') throw new CompileError(`TypeError: cannot perform reduce with flexible type`, span);
    const dtype: NpDType = v.elem === 'float' ? 'float64' : v.elem === 'int' ? 'int64' : 'bool';
    // the list's length is known only at run time: reduced whole, it gives a scalar
    if (axes !== null && !(axes.length === 1 && (axes[0] === 0 || axes[0] === -1))) throw new CompileError(`numpy.exceptions.AxisError: axis ${axes[0]} is out of bounds for array of dimension 1`, span);
    const length: HExpr = { k: 'member', x: { k: 'var', name: v.name }, key: 'length' };
    x = { e: call('array', [{ k: 'array', items: [length] }, lit(dtype), { k: 'var', name: v.name }]), shape: [-1], dtype, weak: false };
    axes = null;
    if (keepdims) throw new NeedsStatic('keepdims on a list known only when the program runs', span);
  } else x = operand(ctx, v, span);
  const r = x.shape.length;
  const ax = (axes ?? x.shape.map((_, i) => i)).map((a) => {
    const n = a < 0 ? a + r : a;
    if (n < 0 || n >= r) throw new CompileError(`numpy.exceptions.AxisError: axis ${a} is out of bounds for array of dimension ${r}`, span);
    return n;
  });
  let dtype: NpDType = x.dtype;
  if (kind === 'mean') dtype = x.dtype === 'float32' ? 'float32' : 'float64';
  else if (kind === 'any' || kind === 'all') dtype = 'bool';
  else if ((kind === 'sum' || kind === 'prod') && KIND[x.dtype] < 2) dtype = 'int64';
  const shape = keepdims ? x.shape.map((d, i) => (ax.includes(i) ? 1 : d)) : x.shape.filter((_, i) => !ax.includes(i));
  const axesArg = axes === null ? lit(null) : litArray(ax);
  return scalarOrNd(ctx, kind, call('reduce', [lit(kind), x.e, axesArg, lit(keepdims), lit(dtype)]), shape, dtype);
}

/** np.round(x, decimals) of a run-time array (ints are unchanged for decimals >= 0). */
export function hostNdRound(ctx: HostNumpyCtx, x: HostNd, decimals: number): HostNd {
  if (KIND[x.dtype] < 2 && decimals >= 0) return x;
  return hostNd(ctx, 'np_value', call('round', [{ k: 'var', name: x.name }, lit(decimals)]), x.shape, x.dtype);
}

/** A compile-time NumPy array as one the program holds (a loop changes it at run time). */
export function hostNdOf(ctx: HostNumpyCtx, x: NdArray, hint: string): HostNd {
  return hostNd(ctx, hint, call('array', [litArray(x.shape), lit(x.dtype), litArray(x.data)]), x.shape, x.dtype);
}

/** A JAX array read back to the host (jax.device_get): the run-time NumPy array of its values, in its dtype. */
export function hostNdFromDevice(ctx: HostNumpyCtx, x: HostArray, dtype: NpDType): HostNd {
  const values: HExpr = { k: 'call', callee: 'jx.values', args: [{ k: 'var', name: x.name }], await: true };
  return hostNd(ctx, `${x.name}_np`, call('array', [litArray(x.aval.shape), lit(dtype), values]), x.aval.shape, dtype);
}

/** x.astype(dtype). */
export function hostNdAstype(ctx: HostNumpyCtx, x: HostNd, dtype: NpDType): HostNd {
  if (dtype === x.dtype) return x;
  return hostNd(ctx, 'np_value', call('astype', [{ k: 'var', name: x.name }, lit(dtype)]), x.shape, dtype);
}

/** x.reshape(shape) (one -1 resolved here, with NumPy's error). */
export function hostNdReshape(ctx: HostNumpyCtx, x: HostNd, shape: number[], span: Span): HostNd {
  const n = x.shape.reduce((a, b) => a * b, 1);
  const s = [...shape];
  const u = s.indexOf(-1);
  if (u >= 0) s[u] = n / s.filter((_, i) => i !== u).reduce((a, b) => a * b, 1);
  if (s.reduce((a, b) => a * b, 1) !== n || !Number.isInteger(s[u] ?? 0)) {
    throw new CompileError(`ValueError: cannot reshape array of size ${n} into shape (${shape.join(', ')}${shape.length === 1 ? ',' : ''})`, span);
  }
  return hostNd(ctx, 'np_value', call('reshape', [{ k: 'var', name: x.name }, litArray(s)]), s, x.dtype);
}

/** x.T (all axes reversed). */
export function hostNdTranspose(ctx: HostNumpyCtx, x: HostNd): HostNd {
  const perm = x.shape.map((_, i) => x.shape.length - 1 - i);
  return hostNd(ctx, 'np_value', call('transpose', [{ k: 'var', name: x.name }, litArray(perm)]), perm.map((p) => x.shape[p]!), x.dtype);
}

/** np.stack / np.concatenate of arrays of which some are known only at run time. */
export function hostNdJoin(ctx: HostNumpyCtx, how: 'stack' | 'concatenate', items: readonly PyValue[], axis: number, span: Span): HostNd {
  if (!items.length) throw new CompileError(how === 'stack' ? 'ValueError: need at least one array to stack' : 'ValueError: need at least one array to concatenate', span);
  const ops = items.map((v) => operand(ctx, v, span));
  const dtype = ops.reduce((d, o) => promote({ ...o, dtype: d, weak: false }, { ...o, weak: false }), ops[0]!.dtype);
  const s0 = ops[0]!.shape;
  let shape: number[];
  if (how === 'stack') {
    if (ops.some((o) => o.shape.join() !== s0.join())) throw new CompileError('ValueError: all input arrays must have the same shape', span);
    const a = axis < 0 ? axis + s0.length + 1 : axis;
    shape = [...s0.slice(0, a), ops.length, ...s0.slice(a)];
    axis = a;
  } else {
    const a = axis < 0 ? axis + s0.length : axis;
    if (ops.some((o) => o.shape.length !== s0.length || o.shape.some((d, i) => i !== a && d !== s0[i]))) {
      throw new CompileError('ValueError: all the input array dimensions except for the concatenation axis must match exactly', span);
    }
    shape = s0.map((d, i) => (i === a ? ops.reduce((t, o) => t + o.shape[a]!, 0) : d));
    axis = a;
  }
  return hostNd(ctx, 'np_value', call(how, [{ k: 'array', items: ops.map((o) => o.e) }, lit(axis), lit(dtype)]), shape, dtype);
}

// ------------------------------------------------------------ indexing

/** The host loops being lowered: their index variable and the values it takes (for the length of `x[i:i + n]`). */
export const loopIndexRanges = new Map<string, { start: number; stop: number; step: number }>();

/** The values an int expression over one loop index takes, or null when it reads other run-time values. */
function valuesOf(e: HExpr): number[] | null {
  const vars = new Set<string>();
  let ok = true;
  const scan = (x: HExpr): void => {
    if (x.k === 'var') loopIndexRanges.has(x.name) ? vars.add(x.name) : (ok = false);
    else if (x.k === 'bin' && ['+', '-', '*'].includes(x.op)) (scan(x.a), scan(x.b));
    else if (x.k === 'call' && (x.callee === 'jx.floordiv' || x.callee === 'jx.mod') && x.args.length === 2) x.args.forEach(scan);
    else if (x.k !== 'lit' || typeof x.value !== 'number') ok = false;
  };
  scan(e);
  if (!ok || vars.size > 1) return null;
  const evalAt = (x: HExpr, i: number): number => {
    if (x.k === 'lit') return x.value as number;
    if (x.k === 'var') return i;
    if (x.k === 'bin') {
      const [a, b] = [evalAt(x.a, i), evalAt(x.b, i)];
      return x.op === '+' ? a + b : x.op === '-' ? a - b : a * b;
    }
    const [a, b] = (x as { args: HExpr[] }).args.map((y) => evalAt(y, i)) as [number, number];
    if ((x as { callee: string }).callee === 'jx.floordiv') return Math.floor(a / b);
    const r = a % b;
    return r !== 0 && r < 0 !== b < 0 ? r + b : r;
  };
  const v = [...vars][0];
  if (v === undefined) return [evalAt(e, 0)];
  const r = loopIndexRanges.get(v)!;
  const out: number[] = [];
  for (let i = r.start; r.step > 0 ? i < r.stop : i > r.stop; i += r.step) {
    out.push(evalAt(e, i));
    if (out.length > 1_000_000) return null;
  }
  return out;
}

/** Python's slice.indices(n) length. */
function sliceLength(start: number | null, stop: number | null, step: number | null, n: number): number {
  const st = step ?? 1;
  const clamp = (v: number | null, def: number, lo: number, hi: number): number => (v === null ? def : v < 0 ? Math.max(v + n, lo) : Math.min(v, hi));
  const [s, e] = st > 0 ? [clamp(start, 0, 0, n), clamp(stop, n, 0, n)] : [clamp(start, n - 1, -1, n - 1), clamp(stop, -1, -1, n - 1)];
  return Math.max(0, st > 0 ? Math.ceil((e - s) / st) : Math.ceil((s - e) / -st));
}

/** A bound of a slice: static, or a run-time int whose every value the loops give yields one length. */
function sliceItem(bounds: readonly PyValue[], n: number, span: Span): { e: HExpr; length: number } {
  const vals = bounds.map((b): number[] | null => {
    if (b === null) return null;
    if (typeof b === 'bigint' || typeof b === 'boolean') return [Number(b)];
    if (b instanceof HostScalar && (b.type === 'int' || b.type === 'bool')) {
      const v = valuesOf(b.expr);
      if (!v) throw new NeedsStatic("the length of a slice of a NumPy array known only when the program runs must be known at compile time (its bounds here depend on other run-time values)", span);
      return v;
    }
    throw new CompileError('TypeError: slice indices must be integers or None or have an __index__ method', span);
  });
  const count = Math.max(1, ...vals.map((v) => v?.length ?? 1));
  let length = -1;
  for (let k = 0; k < count; k++) {
    const at = (j: number): number | null => (vals[j] ? vals[j]![vals[j]!.length === 1 ? 0 : k]! : null);
    if (at(2) === 0) throw new CompileError('ValueError: slice step cannot be zero', span);
    const len = sliceLength(at(0), at(1), at(2), n);
    if (length >= 0 && len !== length) {
      throw new NeedsStatic(`a slice of a NumPy array known only when the program runs whose length changes from step to step (${length}, then ${len}) is not supported`, span);
    }
    length = len;
  }
  const b = (v: PyValue): HExpr => (v === null ? lit(null) : v instanceof HostScalar ? v.expr : lit(Number(v as bigint | boolean)));
  return { e: { k: 'object', entries: [['start', b(bounds[0]!)], ['stop', b(bounds[1]!)], ['step', b(bounds[2]!)]] }, length };
}

/**
 * x[key] for a run-time NumPy array `x` (or a compile-time one indexed by a run-time index array): basic
 * indexing (ints, slices whose bounds may be run-time, None, ...) or one integer index array (`x[perm]`).
 */
export function hostNdIndex(ctx: HostNumpyCtx, obj: PyValue, key: PyValue, span: Span, ellipsis: (v: PyValue) => boolean, sliceOf: (v: PyValue) => readonly PyValue[] | null): PyValue {
  const x = operand(ctx, obj, span);
  const items = key instanceof PyTuple && !key.cls ? key.items : [key];
  // one index array (a run-time one, or a compile-time int array or list): NumPy's take along axis 0
  if (items.length === 1) {
    const k = items[0]!;
    const idx = k instanceof HostNd ? operand(ctx, k, span) : k instanceof NdArray || k instanceof PyList ? operand(ctx, k instanceof PyList ? listNd(k, span) : k, span) : null;
    if (idx) {
      if (idx.dtype === 'bool' || KIND[idx.dtype] === 2) throw new NeedsStatic('indexing a NumPy array known only when the program runs with a boolean or float array', span);
      if (!x.shape.length) throw new CompileError('IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed', span);
      return hostNd(ctx, 'np_value', call('take', [x.e, idx.e]), [...idx.shape, ...x.shape.slice(1)], x.dtype);
    }
  }
  const consumed = items.filter((it) => it !== null && !ellipsis(it)).length;
  if (consumed > x.shape.length) throw new CompileError(`IndexError: too many indices for array: array is ${x.shape.length}-dimensional, but ${consumed} were indexed`, span);
  const out: HExpr[] = [];
  const shape: number[] = [];
  let d = 0;
  for (const it of items) {
    if (it === null) {
      out.push(lit(null));
      shape.push(1);
      continue;
    }
    if (ellipsis(it)) {
      for (let k = 0; k < x.shape.length - consumed; k++) {
        out.push({ k: 'object', entries: [['start', lit(null)], ['stop', lit(null)], ['step', lit(null)]] });
        shape.push(x.shape[d++]!);
      }
      continue;
    }
    const n = x.shape[d++]!;
    const bounds = sliceOf(it);
    if (bounds) {
      const s = sliceItem(bounds, n, span);
      out.push(s.e);
      shape.push(s.length);
    } else if (typeof it === 'bigint' || typeof it === 'boolean' || (it instanceof NpScalar && KIND[it.dtype] === 1)) {
      const i = Number(it instanceof NpScalar ? it.value : it);
      if (i < -n || i >= n) throw new CompileError(`IndexError: index ${i} is out of bounds for axis ${d - 1} with size ${n}`, span);
      out.push(lit(i));
    } else if (it instanceof HostScalar && it.type === 'int') out.push(it.expr);
    else throw new NeedsStatic(`indexing a NumPy array known only when the program runs with a ${typeName(it)}`, span);
  }
  while (d < x.shape.length) shape.push(x.shape[d++]!);
  return scalarOrNd(ctx, 'np_value', call('index', [x.e, { k: 'array', items: out }]), shape, x.dtype);
}

const listNd = (l: PyList, span: Span): NdArray => {
  if (!l.items.every((x) => typeof x === 'bigint')) throw new NeedsStatic('indexing a NumPy array known only when the program runs with a list of non-ints', span);
  return new NdArray([l.items.length], 'int64', l.items.map(Number));
};

/** `dtype` as a device array of JAX's dtype (float64 → float32), made where the host program has the values. */
export function hostNdToDevice(ctx: HostNumpyCtx, x: HostNd, hint: string): HostArray {
  const dtype = jaxDtype(x.dtype);
  const name = ctx.freshName(hint);
  ctx.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'rt.constant', args: [litArray(x.shape), lit(dtype), { k: 'member', x: { k: 'var', name: x.name }, key: 'data' }] } });
  return new HostArray(name, { shape: [...x.shape], dtype });
}

/** str(x) or repr(x) of a run-time NumPy array. */
export const hostNdText = (x: HostNd, repr: boolean): HExpr => call(repr ? 'repr' : 'str', [{ k: 'var', name: x.name }]);


/**
 * np.median / np.percentile / np.quantile of a run-time array over all its elements (NumPy's 'linear'
 * method): a float32 array keeps float32 where q is a Python number (NumPy's weak promotion), else
 * float64; a list of q gives an array. null: a q that is not numbers known now.
 */
export function hostNdQuantile(ctx: HostNumpyCtx, name: 'median' | 'percentile' | 'quantile', x: HostNd, q: PyValue): PyValue | null {
  const num = (v: PyValue): number | null => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null);
  const scale = name === 'percentile' ? 100 : 1;
  const v: Operand = { e: { k: 'var', name: x.name }, shape: x.shape, dtype: x.dtype, weak: false };
  if (name === 'median') {
    const dtype: NpDType = x.dtype === 'float32' ? 'float32' : 'float64';
    return scalarOrNd(ctx, 'median', call('median', [v.e, lit(dtype)]), [], dtype);
  }
  const list = q instanceof PyList || q instanceof PyTuple ? q.items.map(num) : null;
  const qs = list ?? [num(q)];
  if (qs.some((a) => a === null)) return null;
  const shape = list ? [list.length] : [];
  const dtype: NpDType = x.dtype === 'float32' && !list ? 'float32' : 'float64';
  return scalarOrNd(ctx, name, call('quantile', [v.e, litArray(qs.map((a) => a! / scale)), litArray(shape), lit(dtype)]), shape, dtype);
}
