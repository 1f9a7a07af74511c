// Element rules: for each primitive, the expression of one output element
// given its multi-index, in terms of its operands' elements. Fusion composes
// these rules, so movement ops become index arithmetic and elementwise chains
// become one expression.
import type { KExpr, ReduceFn } from '../ir/kernel.js';
import { BINARY_ARITH, BINARY_LOGIC, COMPARE, type DotDims, UNARY_ANY, UNARY_FLOAT } from '../ir/primitives.js';
import type { DType, Eqn } from '../ir/types.js';
import { delinearize, iadd, iconst, idiv, imod, imul, isub, linearize, type IExpr } from './index_math.js';

export interface RuleCtx {
  /** Element of operand `i` at multi-index `idx`. */
  operand(i: number, idx: IExpr[]): KExpr;
  /** A fresh reduction loop counter id. */
  freshLoop(): number;
}

/** Element `idx` of output `out` (0 except for multi-output primitives) of `eqn`. */
export type ElementRule = (ctx: RuleCtx, eqn: Eqn, idx: IExpr[], out: number) => KExpr;

export const ELEMENT_RULES: Record<string, ElementRule> = {};

const outDtype = (e: Eqn, out = 0): DType => e.outputs[out]!.aval.dtype;

for (const p of [...UNARY_FLOAT, ...UNARY_ANY, 'not', 'is_finite'] as const) {
  ELEMENT_RULES[p] = (ctx, e, idx) =>
    p === 'copy' ? ctx.operand(0, idx) : { op: 'un', fn: p, x: ctx.operand(0, idx), dtype: outDtype(e) };
}
for (const p of [...BINARY_ARITH, ...BINARY_LOGIC, ...COMPARE]) {
  ELEMENT_RULES[p] = (ctx, e, idx) => ({ op: 'bin', fn: p, a: ctx.operand(0, idx), b: ctx.operand(1, idx), dtype: outDtype(e) });
}

// XLA expands integer_pow by repeated squaring; we do the same, in the same order.
ELEMENT_RULES['integer_pow'] = (ctx, e, idx) => {
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

ELEMENT_RULES['convert_element_type'] = (ctx, e, idx) => {
  const x = ctx.operand(0, idx);
  const to = outDtype(e);
  return x.dtype === to ? x : { op: 'cast', x, dtype: to };
};

ELEMENT_RULES['select_n'] = (ctx, e, idx) => {
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

ELEMENT_RULES['broadcast_in_dim'] = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const dims = e.params['broadcast_dimensions'] as number[];
  return ctx.operand(0, dims.map((d, i) => (inShape[i] === 1 ? iconst(0) : idx[d]!)));
};

ELEMENT_RULES['reshape'] = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const outShape = e.outputs[0]!.aval.shape;
  return ctx.operand(0, delinearize(linearize(idx, outShape), inShape));
};

ELEMENT_RULES['transpose'] = (ctx, e, idx) => {
  const perm = e.params['permutation'] as number[];
  const inIdx = new Array<IExpr>(perm.length);
  perm.forEach((p, i) => (inIdx[p] = idx[i]!));
  return ctx.operand(0, inIdx);
};

ELEMENT_RULES['squeeze'] = (ctx, e, idx) => {
  const inShape = e.inputs[0]!.aval.shape;
  const dims = (e.params['dimensions'] as number[]).map((d) => (d < 0 ? d + inShape.length : d));
  const inIdx: IExpr[] = [];
  let j = 0;
  for (let i = 0; i < inShape.length; i++) inIdx.push(dims.includes(i) ? iconst(0) : idx[j++]!);
  return ctx.operand(0, inIdx);
};

ELEMENT_RULES['rev'] = (ctx, e, idx) => {
  const shape = e.inputs[0]!.aval.shape;
  const dims = e.params['dimensions'] as number[];
  return ctx.operand(
    0,
    idx.map((x, d) => (dims.includes(d) ? iadd(imul(x, -1), iconst(shape[d]! - 1)) : x)),
  );
};

ELEMENT_RULES['slice'] = (ctx, e, idx) => {
  const start = e.params['start_indices'] as number[];
  const strides = (e.params['strides'] as number[] | null) ?? start.map(() => 1);
  return ctx.operand(0, idx.map((x, d) => iadd(imul(x, strides[d]!), iconst(start[d]!))));
};

ELEMENT_RULES['concatenate'] = (ctx, e, idx) => {
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

ELEMENT_RULES['iota'] = (_ctx, e, idx) => {
  const dim = e.params['dimension'] as number;
  const dtype = outDtype(e);
  const i = idx[dim]!;
  return dtype === 'int32' ? i : { op: 'cast', x: i, dtype };
};

const REDUCE_FNS: Record<string, ReduceFn> = {
  reduce_sum: 'sum',
  reduce_max: 'max',
  reduce_min: 'min',
  reduce_prod: 'prod',
};
for (const [prim, fn] of Object.entries(REDUCE_FNS)) {
  ELEMENT_RULES[prim] = (ctx, e, idx) => {
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
    return { op: 'reduce', fn, id, extent, body: ctx.operand(0, inIdx), dtype: outDtype(e) };
  };
}

ELEMENT_RULES['dot_general'] = (ctx, e, idx) => {
  const [a, b] = e.inputs.map((x) => x.aval.shape);
  const dn = e.params['dimension_numbers'] as DotDims;
  const [lc, rc] = dn.contract;
  const [lb, rb] = dn.batch;
  const cshape = lc.map((d) => a![d]!);
  const extent = cshape.reduce((x, y) => x * y, 1);
  const id = ctx.freshLoop();
  const r: IExpr = { op: 'rvar', id, dtype: 'int32', bound: extent };
  const cidx = delinearize(r, cshape);
  const nb = lb.length;
  const lfree = a!.map((_, i) => i).filter((i) => !lc.includes(i) && !lb.includes(i));
  const rfree = b!.map((_, i) => i).filter((i) => !rc.includes(i) && !rb.includes(i));
  const lIdx = new Array<IExpr>(a!.length);
  const rIdx = new Array<IExpr>(b!.length);
  lb.forEach((d, i) => (lIdx[d] = idx[i]!));
  rb.forEach((d, i) => (rIdx[d] = idx[i]!));
  lfree.forEach((d, i) => (lIdx[d] = idx[nb + i]!));
  rfree.forEach((d, i) => (rIdx[d] = idx[nb + lfree.length + i]!));
  lc.forEach((d, i) => (lIdx[d] = cidx[i]!));
  rc.forEach((d, i) => (rIdx[d] = cidx[i]!));
  const dtype = outDtype(e);
  const body: KExpr = { op: 'bin', fn: 'mul', a: ctx.operand(0, lIdx), b: ctx.operand(1, rIdx), dtype };
  return { op: 'reduce', fn: 'sum', id, extent, body, dtype };
};

ELEMENT_RULES['axis_index'] = () => ({ op: 'device', dtype: 'int32' });

ELEMENT_RULES['stop_gradient'] = (ctx, _e, idx) => ctx.operand(0, idx);

ELEMENT_RULES['dynamic_slice'] = (ctx, e, idx) => {
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

for (const p of ['shift_left', 'shift_right_logical', 'shift_right_arithmetic'] as const) {
  ELEMENT_RULES[p] = (ctx, e, idx) => ({ op: 'bin', fn: p, a: ctx.operand(0, idx), b: ctx.operand(1, idx), dtype: outDtype(e) });
}

ELEMENT_RULES['bitcast_convert_type'] = (ctx, e, idx) => {
  const x = ctx.operand(0, idx);
  return x.dtype === outDtype(e) ? x : { op: 'un', fn: 'bitcast_convert_type', x, dtype: outDtype(e) };
};

ELEMENT_RULES['threefry2x32'] = (ctx, e, idx, out) => ({
  op: 'call',
  fn: 'threefry2x32',
  args: [0, 1, 2, 3].map((i) => ctx.operand(i, idx)),
  part: out,
  dtype: outDtype(e, out),
});

// pad: operand element (j - lo) / (interior + 1) where that is a whole in-range index, else the padding value.
ELEMENT_RULES['pad'] = (ctx, e, idx) => {
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

export function elementRule(prim: string): ElementRule | undefined {
  return ELEMENT_RULES[prim];
}
