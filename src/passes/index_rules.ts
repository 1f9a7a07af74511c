// Element rules: for each primitive, the expression of one output element
// given its multi-index, in terms of its operands' elements. Fusion composes
// these rules, so movement ops become index arithmetic and elementwise chains
// become one expression.
import { convParams, windowParams } from '../ir/conv.js';
import type { DotOrder, KBinary, KExpr, KUnary, ReduceFn } from '../ir/kernel.js';
import type { DotDims } from '../ir/primitives.js';
import type { CollectivePrim, Prim } from '../ir/prims.js';
import { isFloat, type DType, type Eqn } from '../ir/types.js';
import { DTYPES } from '../ir/dtypes.js';
import { gather, scatter } from './indexing_rules.js';
import { delinearize, iadd, iconst, idiv, imod, imul, isub, linearize, type IExpr } from './index_math.js';
import { xlaDotOrder } from './dot_order.js';

export interface RuleCtx {
  /** Element of operand `i` at multi-index `idx`. */
  operand(i: number, idx: IExpr[]): KExpr;
  /** A fresh reduction loop counter id. */
  freshLoop(): number;
}

/** Element `idx` of output `out` (0 except for multi-output primitives) of `eqn`. */
export type ElementRule = (ctx: RuleCtx, eqn: Eqn, idx: IExpr[], out: number) => KExpr;

const outDtype = (e: Eqn, out = 0): DType => e.outputs[out]!.aval.dtype;

/** The kernel's unary function `fn` (each dialect spells it). */
const unary =
  (fn: KUnary): ElementRule =>
  (ctx, e, idx) => ({ op: 'un', fn, x: ctx.operand(0, idx), dtype: outDtype(e) });

/** The kernel's binary function `fn` (an add or sub marked by fma_contraction.ts keeps its mark). */
const binary =
  (fn: KBinary): ElementRule =>
  (ctx, e, idx) => {
    const mark = e.params['fma'];
    const fma = mark === 'a' || mark === 'b' ? { fma: mark as 'a' | 'b' } : {};
    return { op: 'bin', fn, a: ctx.operand(0, idx), b: ctx.operand(1, idx), dtype: outDtype(e), ...fma };
  };

/** XLA lowers exp2(x) as exp(ln(2) * x), ln(2) rounded to float32. */
const exp2: ElementRule = (ctx, e, idx) => {
  const dtype = outDtype(e);
  const ln2: KExpr = { op: 'const', value: Math.fround(Math.LN2), dtype };
  return { op: 'un', fn: 'exp', x: { op: 'bin', fn: 'mul', a: ln2, b: ctx.operand(0, idx), dtype }, dtype };
};

/**
 * round: rounding_method 0 (AWAY_FROM_ZERO, lax.round's default) takes halves away from zero, as
 * sign(x) * (floor(|x|) + (|x| - floor(|x|) >= 0.5)) (exact in float32; keeps -0 and NaN); the others
 * (TO_NEAREST_EVEN: jnp.round, jnp.rint) are the dialects' round.
 */
const round: ElementRule = (ctx, e, idx) => {
  const dtype = outDtype(e);
  const x = ctx.operand(0, idx);
  if (e.params['rounding_method'] !== 0) return { op: 'un', fn: 'round', x, dtype };
  const ax: KExpr = { op: 'un', fn: 'abs', x, dtype };
  const fl: KExpr = { op: 'un', fn: 'floor', x: ax, dtype };
  const frac: KExpr = { op: 'bin', fn: 'sub', a: ax, b: fl, dtype };
  const up: KExpr = { op: 'bin', fn: 'ge', a: frac, b: { op: 'const', value: 0.5, dtype }, dtype: 'bool' };
  const r: KExpr = { op: 'select', cond: up, a: { op: 'bin', fn: 'add', a: fl, b: { op: 'const', value: 1, dtype }, dtype }, b: fl, dtype };
  return { op: 'bin', fn: 'mul', a: { op: 'un', fn: 'sign', x, dtype }, b: r, dtype };
};

/** The operand element itself (copy, stop_gradient). */
const identity: ElementRule = (ctx, _e, idx) => ctx.operand(0, idx);

// XLA expands integer_pow by repeated squaring; we do the same, in the same order.
const integerPow: ElementRule = (ctx, e, idx) => {
  const dtype = outDtype(e);
  const y = e.params['y'] as number;
  let x = ctx.operand(0, idx);
  const mul = (a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn: 'mul', a, b, dtype });
  if (y === 0) return { op: 'const', value: 1, dtype };
  let acc: KExpr | null = null;
  // arithmetic, not bit operators: those see only 32 bits (y = 2**31 or 2**40 would lose its bits)
  let n = Math.abs(y);
  if (!Number.isSafeInteger(n)) throw new Error(`internal: integer_pow exponent ${y} is not a safe integer`);
  while (n > 0) {
    if (n % 2 === 1) acc = acc ? mul(acc, x) : x;
    n = Math.floor(n / 2);
    if (n > 0) x = mul(x, x);
  }
  return y < 0 ? { op: 'bin', fn: 'div', a: { op: 'const', value: 1, dtype }, b: acc!, dtype } : acc!;
};

const convertElementType: ElementRule = (ctx, e, idx) => {
  const x = ctx.operand(0, idx);
  const to = outDtype(e);
  return x.dtype === to ? x : { op: 'cast', x, dtype: to };
};

const selectN: ElementRule = (ctx, e, idx) => {
  const pred = e.inputs[0]!.aval.shape.length === 0 ? ctx.operand(0, []) : ctx.operand(0, idx);
  const n = e.inputs.length - 1;
  if (n === 1) return ctx.operand(1, idx);
  if (n === 2) return { op: 'select', cond: asBool(pred), a: ctx.operand(2, idx), b: ctx.operand(1, idx), dtype: outDtype(e) };
  // select_n with an int32 case index: a chain of selects
  let acc = ctx.operand(n, idx);
  for (let k = n - 1; k >= 1; k--) {
    const isK: KExpr = { op: 'bin', fn: 'eq', a: pred, b: iconst(k - 1), dtype: 'bool' };
    acc = { op: 'select', cond: isK, a: ctx.operand(k, idx), b: acc, dtype: outDtype(e) };
  }
  return acc;
};

function asBool(x: KExpr): KExpr {
  return x.dtype === 'bool' ? x : { op: 'bin', fn: 'ne', a: x, b: { op: 'const', value: 0, dtype: x.dtype }, dtype: 'bool' };
}

const broadcastInDim: ElementRule = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const dims = e.params['broadcast_dimensions'] as number[];
  return ctx.operand(0, dims.map((d, i) => (inShape[i] === 1 ? iconst(0) : idx[d]!)));
};

const reshape: ElementRule = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const outShape = e.outputs[0]!.aval.shape;
  return ctx.operand(0, delinearize(linearize(idx, outShape), inShape));
};

const transpose: ElementRule = (ctx, e, idx) => {
  const perm = e.params['permutation'] as number[];
  const inIdx = new Array<IExpr>(perm.length);
  perm.forEach((p, i) => (inIdx[p] = idx[i]!));
  return ctx.operand(0, inIdx);
};

const squeeze: ElementRule = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const dims = (e.params['dimensions'] as number[]).map((d) => (d < 0 ? d + inShape.length : d));
  const inIdx: IExpr[] = [];
  let j = 0;
  for (let i = 0; i < inShape.length; i++) inIdx.push(dims.includes(i) ? iconst(0) : idx[j++]!);
  return ctx.operand(0, inIdx);
};

const rev: ElementRule = (ctx, e, idx) => {
  const shape = e.inputs[0]!.aval.shape;
  const dims = e.params['dimensions'] as number[];
  return ctx.operand(
    0,
    idx.map((x, d) => (dims.includes(d) ? iadd(imul(x, -1), iconst(shape[d]! - 1)) : x)),
  );
};

const slice: ElementRule = (ctx, e, idx) => {
  const start = e.params['start_indices'] as number[];
  const strides = (e.params['strides'] as number[] | null) ?? start.map(() => 1);
  return ctx.operand(0, idx.map((x, d) => iadd(imul(x, strides[d]!), iconst(start[d]!))));
};

const concatenate: ElementRule = (ctx, e, idx) => {
  const dim = e.params['dimension'] as number;
  const offsets: number[] = [];
  let off = 0;
  for (const x of e.inputs) {
    offsets.push(off);
    off += x.aval.shape[dim]!;
  }
  const at = (k: number): KExpr => ctx.operand(k, idx.map((x, d) => (d === dim ? isub(x, offsets[k]!) : x)));
  let acc = at(e.inputs.length - 1);
  for (let k = e.inputs.length - 2; k >= 0; k--) {
    const cond: KExpr = { op: 'bin', fn: 'lt', a: idx[dim]!, b: iconst(offsets[k + 1]!), dtype: 'bool' };
    acc = { op: 'select', cond, a: at(k), b: acc, dtype: outDtype(e) };
  }
  return acc;
};

const iota: ElementRule = (_ctx, e, idx) => {
  const dim = e.params['dimension'] as number;
  const dtype = outDtype(e);
  const i = idx[dim]!;
  return dtype === 'int32' ? i : { op: 'cast', x: i, dtype };
};

/** XLA's CPU build hands a float32 sum whose operand has this many elements or more to its library (YNNPACK). */
const LIBRARY_SUM = 4096;

/**
 * Whether XLA's CPU build sums `axes` of an operand of shape `shape` in its library (YNNPACK), and how:
 * undefined when the operand has fewer than 4096 elements or the reduced axes (size-1 axes aside, which
 * the library drops) are not adjacent; else the number of elements after the reduced axes (1: rows).
 * Measured against JAX 0.10.2 (fixtures/reference/reduction_order_wide.py).
 */
function libraryColumns(shape: readonly number[], axes: readonly number[]): number | undefined {
  if (axes.length === 0 || shape.reduce((a, b) => a * b, 1) < LIBRARY_SUM) return undefined;
  const kept = shape.map((n, d) => (n === 1 ? -1 : d)).filter((d) => d >= 0);
  const reduced = kept.filter((d) => axes.includes(d));
  if (reduced.length === 0) return undefined;
  const first = kept.indexOf(reduced[0]!);
  if (reduced.some((d, i) => kept[first + i] !== d)) return undefined;
  return shape.slice(reduced[reduced.length - 1]! + 1).reduce((a, b) => a * b, 1);
}

/**
 * The vector width XLA CPU's float32 sum of a whole (R, C) array (or of each (R, C) matrix over the last
 * two axes) runs at, if LLVM vectorizes it: the loop
 * over the C ≤ 8 columns is unrolled and the loop over the R ≤ 32 rows vectorized with a reassociating
 * reduction (see KExpr's `lanes`). Measured on the oracle (JAX 0.10.2, AVX2): VF is the largest power of
 * two ≤ R, at most 8 (4 for a sum of the array itself with 7 or 8 columns), and the loop is vectorized only
 * when VF divides R; a fused summand (a conversion, exp) only up to 8 rows (measured there; LLVM's choice
 * for more rows varies). docs/ISSUE19_CHECKLIST.md has the measurements.
 */
function vectorLanes(shape: readonly number[], axes: readonly number[], plain: boolean): { vf: number; row: number } | undefined {
  const n = shape.length;
  if (n < 2 || axes.length !== 2 || axes[0] !== n - 2 || axes[1] !== n - 1) return undefined;
  const [rows, cols] = shape.slice(n - 2) as [number, number];
  if (rows < 2 || rows > 32 || cols < 2 || cols > 8) return undefined;
  const wide = plain && cols >= 7 ? 4 : 8;
  const vf = Math.min(wide, 2 ** Math.floor(Math.log2(rows)));
  if (rows % vf !== 0 || (plain && rows === 12 && cols === 7)) return undefined;
  return { vf, row: cols };
}

/** A reduction with `fn` over the `axes` param: a loop over the reduced elements. */
function reduce(fn: ReduceFn): ElementRule {
  return (ctx, e, idx) => {
    const inShape = e.inputs[0]!.aval.shape;
    const axes = e.params['axes'] as number[];
    const rshape = axes.map((a) => inShape[a]!);
    const extent = rshape.reduce((a, b) => a * b, 1);
    const id = ctx.freshLoop();
    const r: IExpr = { op: 'rvar', id, dtype: 'int32', bound: extent };
    const ridx = delinearize(r, rshape);
    const inIdx: IExpr[] = [];
    let j = 0;
    for (let d = 0; d < inShape.length; d++) {
      const k = axes.indexOf(d);
      inIdx.push(k >= 0 ? ridx[k]! : idx[j++]!);
    }
    const lib = fn === 'sum' && outDtype(e) === 'float32' ? libraryColumns(inShape, axes) : undefined;
    const fma = e.params['fma'] === true && lib === undefined;
    const body = ctx.operand(0, inIdx);
    const lanes = fn === 'sum' && outDtype(e) === 'float32' && !fma ? vectorLanes(inShape, axes, body.op === 'load') : undefined;
    // XLA's tree rewriter windows each reduced dimension longer than 32 on its own: none is, no tree
    const inOrder = axes.length > 1 && extent > 32 && rshape.every((n) => n <= 32);
    return { op: 'reduce', fn, id, extent, body, dtype: outDtype(e), ...(fma && { fma: true as const }), ...(lib !== undefined && { lib }), ...(lanes !== undefined && { lanes }), ...(inOrder && { inOrder: true as const }) };
  };
}

const dotGeneral: ElementRule = (ctx, e, idx) => {
  const [a, b] = e.inputs.map((x) => x.aval.shape);
  const dn = e.params['dimension_numbers'] as DotDims;
  const [lc, rc] = dn.contract;
  const [lb, rb] = dn.batch;
  const cshape = lc.map((d) => a![d]!);
  const extent = cshape.reduce((x, y) => x * y, 1);
  const nb = lb.length;
  const lfree = a!.map((_, i) => i).filter((i) => !lc.includes(i) && !lb.includes(i));
  const rfree = b!.map((_, i) => i).filter((i) => !rc.includes(i) && !rb.includes(i));
  const dtype = outDtype(e);
  const contraction = (order: DotOrder | undefined): KExpr => {
    const id = ctx.freshLoop();
    const r: IExpr = { op: 'rvar', id, dtype: 'int32', bound: extent };
    const cidx = delinearize(r, cshape);
    const lIdx = new Array<IExpr>(a!.length);
    const rIdx = new Array<IExpr>(b!.length);
    lb.forEach((d, i) => (lIdx[d] = idx[i]!));
    rb.forEach((d, i) => (rIdx[d] = idx[i]!));
    lfree.forEach((d, i) => (lIdx[d] = idx[nb + i]!));
    rfree.forEach((d, i) => (rIdx[d] = idx[nb + lfree.length + i]!));
    lc.forEach((d, i) => (lIdx[d] = cidx[i]!));
    rc.forEach((d, i) => (rIdx[d] = cidx[i]!));
    const body: KExpr = { op: 'bin', fn: 'mul', a: ctx.operand(0, lIdx), b: ctx.operand(1, rIdx), dtype };
    return { op: 'reduce', fn: 'sum', id, extent, body, dtype, dot: true, ...(order && { order }) };
  };
  // XLA CPU's order of the sum, where measured (passes/dot_order.ts)
  const rule = dtype === 'float32' ? xlaDotOrder(a!, b!, dn, e.inputs.every((x) => x.aval.dtype === 'float32')) : undefined;
  if (!rule) return contraction(undefined);
  const { order, halvesFrom } = rule;
  const whole = contraction(order);
  if (halvesFrom === undefined) return whole;
  // the rows before `halvesFrom` fold their lanes in pairs, the rows from it in halves (the matrix's row is idx[0])
  const halves = contraction({ ...order, fold: 'halves' });
  if (halvesFrom === 0) return halves;
  return { op: 'select', cond: { op: 'bin', fn: 'lt', a: idx[0]!, b: iconst(halvesFrom), dtype: 'bool' }, a: whole, b: halves, dtype };
};

/**
 * conv_general_dilated (XLA's convolution semantics): a loop over the kernel's
 * window and the input features of the output feature's group. The dilated,
 * padded input position of output position s and window position k is
 * s * stride + k * rhs_dilation - pad_lo; it reads the input where that lies
 * on an undilated element inside the input, and adds 0 elsewhere.
 */
const convGeneralDilated: ElementRule = (ctx, e, idx) => {
  const p = convParams(e.params);
  const { lhs_spec, rhs_spec, out_spec } = p.dimension_numbers;
  const lhs = e.inputs[0]!.aval.shape;
  const rhs = e.inputs[1]!.aval.shape;
  const out = e.outputs[0]!.aval.shape;
  const dtype = outDtype(e);
  const nsp = rhs_spec.length - 2;
  const window = rhs_spec.slice(2).map((d) => rhs[d]!);
  const cin = rhs[rhs_spec[1]!]!;
  const cout = rhs[rhs_spec[0]!]!;
  const extent = window.reduce((a, b) => a * b, 1) * cin;
  const id = ctx.freshLoop();
  const r: IExpr = { op: 'rvar', id, dtype: 'int32', bound: extent };
  const [ci, ...k] = delinearize(r, [cin, ...window]);
  const o = idx[out_spec[1]!]!;
  const n = idx[out_spec[0]!]!;
  const lIdx = new Array<IExpr>(lhs.length);
  const rIdx = new Array<IExpr>(rhs.length);
  const fg = p.feature_group_count;
  const bg = p.batch_group_count;
  // the feature group of output feature o reads input features [g * cin, (g + 1) * cin)
  lIdx[lhs_spec[1]!] = fg > 1 ? iadd(imul(idiv(o, cout / fg), cin), ci!) : ci!;
  // the batch group of output feature o reads input batch rows [g * nOut, (g + 1) * nOut)
  lIdx[lhs_spec[0]!] = bg > 1 ? iadd(imul(idiv(o, cout / bg), out[out_spec[0]!]!), n) : n;
  rIdx[rhs_spec[0]!] = o;
  rIdx[rhs_spec[1]!] = ci!;
  const conds: KExpr[] = [];
  for (let i = 0; i < nsp; i++) {
    const [lo] = p.padding[i]!;
    const stride = p.window_strides[i]!;
    const rd = p.rhs_dilation[i]!;
    const ld = p.lhs_dilation[i]!;
    const inSize = lhs[lhs_spec[i + 2]!]!;
    rIdx[rhs_spec[i + 2]!] = k[i]!;
    // position in the dilated input
    const pos = iadd(iadd(imul(idx[out_spec[i + 2]!]!, stride), imul(k[i]!, rd)), iconst(-lo));
    const maxPos = (out[out_spec[i + 2]!]! - 1) * stride + (window[i]! - 1) * rd - lo;
    if (lo > 0) conds.push({ op: 'bin', fn: 'ge', a: pos, b: iconst(0), dtype: 'bool' });
    if (ld > 1) conds.push({ op: 'bin', fn: 'eq', a: imod(pos, ld), b: iconst(0), dtype: 'bool' });
    const at = ld > 1 ? idiv(pos, ld) : pos;
    if (maxPos > (inSize - 1) * ld) conds.push({ op: 'bin', fn: 'lt', a: at, b: iconst(inSize), dtype: 'bool' });
    lIdx[lhs_spec[i + 2]!] = at;
  }
  const prod: KExpr = { op: 'bin', fn: 'mul', a: ctx.operand(0, lIdx), b: ctx.operand(1, rIdx), dtype };
  const cond = conds.length ? conds.reduce((a, b): KExpr => ({ op: 'bin', fn: 'and', a, b, dtype: 'bool' })) : null;
  const body: KExpr = cond ? { op: 'select', cond, a: prod, b: { op: 'const', value: 0, dtype }, dtype } : prod;
  return { op: 'reduce', fn: 'sum', id, extent, body, dtype, dot: true };
};

/**
 * reduce_window_{sum,max,min} (XLA's ReduceWindow): a loop over the window in
 * row-major order, as XLA's CPU backend adds it. Window position k of output
 * position s lies at s * stride + k * window_dilation - pad_lo in the dilated,
 * padded operand; a position off the operand's own elements is the identity.
 */
function reduceWindow(fn: 'sum' | 'max' | 'min'): ElementRule {
  return (ctx, e, idx) => {
    const p = windowParams(e.params);
    const shape = e.inputs[0]!.aval.shape;
    const out = e.outputs[0]!.aval.shape;
    const dtype = outDtype(e);
    const extent = p.window_dimensions.reduce((a, b) => a * b, 1);
    const id = ctx.freshLoop();
    const k = delinearize({ op: 'rvar', id, dtype: 'int32', bound: extent }, p.window_dimensions);
    const conds: KExpr[] = [];
    const at = idx.map((s, i) => {
      const [lo] = p.padding[i]!;
      const bd = p.base_dilation[i]!;
      const stride = p.window_strides[i]!;
      const wd = p.window_dilation[i]!;
      const pos = iadd(iadd(imul(s, stride), imul(k[i]!, wd)), iconst(-lo));
      const maxPos = (out[i]! - 1) * stride + (p.window_dimensions[i]! - 1) * wd - lo;
      if (lo > 0) conds.push({ op: 'bin', fn: 'ge', a: pos, b: iconst(0), dtype: 'bool' });
      if (bd > 1) conds.push({ op: 'bin', fn: 'eq', a: imod(pos, bd), b: iconst(0), dtype: 'bool' });
      const j = bd > 1 ? idiv(pos, bd) : pos;
      if (maxPos > (shape[i]! - 1) * bd) conds.push({ op: 'bin', fn: 'lt', a: j, b: iconst(shape[i]!), dtype: 'bool' });
      return j;
    });
    const x = ctx.operand(0, at);
    const { kind, bits } = DTYPES[dtype];
    const identity = fn === 'sum' ? 0 : isFloat(dtype) ? (fn === 'max' ? -Infinity : Infinity) : kind === 'uint' ? (fn === 'max' ? 0 : 2 ** bits - 1) : fn === 'max' ? -(2 ** (bits - 1)) : 2 ** (bits - 1) - 1;
    const cond = conds.length ? conds.reduce((a, b): KExpr => ({ op: 'bin', fn: 'and', a, b, dtype: 'bool' })) : null;
    const body: KExpr = cond ? { op: 'select', cond, a: x, b: { op: 'const', value: identity, dtype }, dtype } : x;
    return { op: 'reduce', fn, id, extent, body, dtype, dot: true };
  };
}

const axisIndex: ElementRule = () => ({ op: 'device', dtype: 'int32' });

const dynamicSlice: ElementRule = (ctx, e, idx) => {
  const shape = e.inputs[0]!.aval.shape;
  const sizes = e.params['slice_sizes'] as number[];
  return ctx.operand(
    0,
    idx.map((x, d) => {
      if (sizes[d] === shape[d]) return x; // the clamped start is 0
      const s = ctx.operand(d + 1, []);
      const lo: KExpr = { op: 'bin', fn: 'max', a: s.dtype === 'int32' ? s : { op: 'cast', x: s, dtype: 'int32' }, b: iconst(0), dtype: 'int32' };
      const start: KExpr = lo.a.op === 'const' ? iconst(Math.min(Math.max(lo.a.value, 0), shape[d]! - sizes[d]!)) : { op: 'bin', fn: 'min', a: lo, b: iconst(shape[d]! - sizes[d]!), dtype: 'int32' };
      return iadd(x, start);
    }),
  );
};

const bitcastConvertType: ElementRule = (ctx, e, idx) => {
  const x = ctx.operand(0, idx);
  return x.dtype === outDtype(e) ? x : { op: 'un', fn: 'bitcast_convert_type', x, dtype: outDtype(e) };
};

const threefry2x32: ElementRule = (ctx, e, idx, out) => ({
  op: 'call',
  fn: 'threefry2x32',
  args: [0, 1, 2, 3].map((i) => ctx.operand(i, idx)),
  part: out,
  dtype: outDtype(e, out),
});

// pad: operand element (j - lo) / (interior + 1) where that is a whole in-range index, else the padding value.
const pad: ElementRule = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const config = e.params['padding_config'] as [number, number, number][];
  const conds: KExpr[] = [];
  const inIdx = idx.map((x, d) => {
    const [lo, hi, interior] = config[d]!;
    const j = lo >= 0 ? isub(x, lo) : iadd(x, iconst(-lo));
    if (lo > 0) conds.push({ op: 'bin', fn: 'ge', a: j, b: iconst(0), dtype: 'bool' });
    const step = interior + 1;
    if (step > 1) conds.push({ op: 'bin', fn: 'eq', a: imod(j, step), b: iconst(0), dtype: 'bool' });
    const i = step > 1 ? idiv(j, step) : j;
    if (hi > 0) conds.push({ op: 'bin', fn: 'lt', a: i, b: iconst(inShape[d]!), dtype: 'bool' });
    return i;
  });
  const inside = ctx.operand(0, inIdx);
  if (!conds.length) return inside;
  const cond = conds.reduce((a, b): KExpr => ({ op: 'bin', fn: 'and', a, b, dtype: 'bool' }));
  return { op: 'select', cond, a: inside, b: ctx.operand(1, []), dtype: outDtype(e) };
};

/**
 * One entry per primitive a kernel computes. Collectives have none: they are
 * lowered to a device gather plus local primitives before fusion
 * (passes/collectives.ts). null: no kernel; argmax/argmin are never bound by
 * the lowering (jnp.argmax is reduce_max, iota and reduce_min).
 */
export const ELEMENT_RULES: Record<Exclude<Prim, CollectivePrim>, ElementRule | null> = {
  sin: unary('sin'),
  cos: unary('cos'),
  tan: unary('tan'),
  exp: unary('exp'),
  exp2,
  log: unary('log'),
  log1p: unary('log1p'),
  expm1: unary('expm1'),
  tanh: unary('tanh'),
  logistic: unary('logistic'),
  sqrt: unary('sqrt'),
  rsqrt: unary('rsqrt'),
  erf: unary('erf'),
  erf_inv: unary('erf_inv'),
  neg: unary('neg'),
  sign: unary('sign'),
  abs: unary('abs'),
  floor: unary('floor'),
  ceil: unary('ceil'),
  round,
  copy: identity,
  sharding_constraint: identity,
  not: unary('not'),
  is_finite: unary('is_finite'),
  stop_gradient: identity,
  pvary: identity,
  integer_pow: integerPow,
  convert_element_type: convertElementType,
  bitcast_convert_type: bitcastConvertType,
  add: binary('add'),
  sub: binary('sub'),
  mul: binary('mul'),
  div: binary('div'),
  rem: binary('rem'),
  pow: binary('pow'),
  max: binary('max'),
  min: binary('min'),
  atan2: binary('atan2'),
  and: binary('and'),
  or: binary('or'),
  xor: binary('xor'),
  shift_left: binary('shift_left'),
  shift_right_logical: binary('shift_right_logical'),
  shift_right_arithmetic: binary('shift_right_arithmetic'),
  eq: binary('eq'),
  ne: binary('ne'),
  lt: binary('lt'),
  le: binary('le'),
  gt: binary('gt'),
  ge: binary('ge'),
  select_n: selectN,
  // min(max(x, lo), hi), XLA's clamp (scalar bounds read once)
  clamp: (ctx, e, idx) => {
    const at = (i: number): KExpr => (e.inputs[i]!.aval.shape.length === 0 ? ctx.operand(i, []) : ctx.operand(i, idx));
    const dtype = outDtype(e);
    return { op: 'bin', fn: 'min', a: { op: 'bin', fn: 'max', a: at(1), b: at(0), dtype }, b: at(2), dtype };
  },
  threefry2x32,
  broadcast_in_dim: broadcastInDim,
  reshape,
  transpose,
  squeeze,
  rev,
  slice,
  dynamic_slice: dynamicSlice,
  pad,
  concatenate,
  iota,
  reduce_sum: reduce('sum'),
  reduce_max: reduce('max'),
  reduce_min: reduce('min'),
  reduce_prod: reduce('prod'),
  argmax: null,
  argmin: null,
  dot_general: dotGeneral,
  conv_general_dilated: convGeneralDilated,
  reduce_window_sum: reduceWindow('sum'),
  reduce_window_max: reduceWindow('max'),
  reduce_window_min: reduceWindow('min'),
  gather,
  scatter,
  scatter_add: scatter,
  scatter_mul: scatter,
  scatter_min: scatter,
  scatter_max: scatter,
  // lowered to ranks and a scatter before fusion (passes/sort_lowering.ts)
  sort: null,
  axis_index: axisIndex,
  // complex values are split into float32 parts before the kernels (passes/complex.ts)
  complex: null,
  real: null,
  imag: null,
  conj: null,
  // replaced by autodiff before a program is formed
  custom_jvp_call: null,
  custom_vjp_call: null,
  cond: null,
  while: null,
  scan: null,
  shard_map: null,
};

const rules: Partial<Record<Prim, ElementRule | null>> = ELEMENT_RULES;

/** `prim`'s element rule, or undefined where a kernel cannot compute it. */
export function elementRule(prim: Prim): ElementRule | undefined {
  return rules[prim] ?? undefined;
}
