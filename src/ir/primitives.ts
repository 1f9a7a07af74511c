// Shape/dtype rules: SHAPE_RULES holds one entry per primitive (src/ir/prims.ts
// lists them), computing a bound equation's result types from its operands'.
import { convParams, convShape, reduceWindowShape, windowParams } from './conv.js';
import type { Prim } from './prims.js';
import { blockAval, globalAval, shardMapParams } from './shard_map.js';
import { gatherShape, IndexingShapeError, scatterShape, sortShape } from './indexing.js';
import type { AVal, DType, Func, Params } from './types.js';
import { isFloat, isInt, sameShape } from './types.js';

export class ShapeError extends Error {}

/** Result types of `prim` applied to operands of types `inputs`. */
export type ShapeRule = (inputs: AVal[], params: Params, prim: Prim) => AVal[];

function fmt(shape: readonly number[]): string {
  return `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
}

function sameShapes(prim: string, xs: AVal[]): readonly number[] {
  const s = xs[0]!.shape;
  for (const x of xs) {
    if (x.shape.length !== s.length || x.shape.some((d, i) => d !== s[i])) {
      throw new ShapeError(`${prim} got incompatible shapes for broadcasting: ${xs.map((a) => fmt(a.shape)).join(', ')}.`);
    }
  }
  return s;
}

function sameDtypes(prim: string, xs: AVal[]): DType {
  const d = xs[0]!.dtype;
  for (const x of xs) {
    if (x.dtype !== d) throw new ShapeError(`${prim} requires arguments to have the same dtypes, got ${xs.map((a) => a.dtype).join(', ')}.`);
  }
  return d;
}

const normAxes = (axes: readonly number[], rank: number): number[] => axes.map((a) => (a < 0 ? a + rank : a));


// ------------------------------------------------------------------ rules shared by several primitives

/** Same type as the operand (unary ops, rev, ppermute). */
const sameAsOperand: ShapeRule = ([x]) => [{ shape: x!.shape, dtype: x!.dtype }];

/** Float math on complex operands too (JAX's sin, exp, log, sqrt ... accept complexfloating). */
const COMPLEX_MATH: ReadonlySet<Prim> = new Set<Prim>(['sin', 'cos', 'tan', 'exp', 'log', 'sqrt', 'rsqrt', 'tanh', 'log1p', 'expm1']);

/** Float math: the operand must be float32 (or complex64, for the functions JAX defines on complex numbers). */
const floatUnary: ShapeRule = ([x], _p, prim) => {
  if (!isFloat(x!.dtype) && !(x!.dtype === 'complex64' && COMPLEX_MATH.has(prim))) throw new ShapeError(`${prim} does not accept dtype ${x!.dtype}.`);
  return [{ shape: x!.shape, dtype: x!.dtype }];
};

/** Binary arithmetic and logic: equal shapes and dtypes. */
const binary: ShapeRule = (xs, _p, prim) => [{ shape: sameShapes(prim, xs), dtype: sameDtypes(prim, xs) }];

const compare: ShapeRule = (xs, _p, prim) => {
  sameDtypes(prim, xs);
  return [{ shape: sameShapes(prim, xs), dtype: 'bool' }];
};

// Bitwise shifts (XLA semantics: a shift by >= 32 bits gives 0, or the sign fill
// for an arithmetic right shift).
const shift: ShapeRule = (xs, _p, prim) => {
  const d = sameDtypes(prim, xs);
  if (!isInt(d)) throw new ShapeError(`${prim} does not accept dtype ${d}.`);
  return [{ shape: sameShapes(prim, xs), dtype: d }];
};

const reduce: ShapeRule = ([x], params) => {
  const axes = params['axes'] as number[];
  return [{ shape: x!.shape.filter((_, i) => !axes.includes(i)), dtype: x!.dtype }];
};

const argReduce: ShapeRule = ([x], params) => {
  const axes = params['axes'] as number[];
  return [{ shape: x!.shape.filter((_, i) => !axes.includes(i)), dtype: params['index_dtype'] as DType }];
};

// ------------------------------------------------------------------ one-off rules

/** complex(re, im): two float32 operands of one shape → complex64. */
const complexRule: ShapeRule = (xs) => {
  const d = sameDtypes('complex', xs);
  if (!isFloat(d)) throw new ShapeError(`complex does not accept dtype ${d}. Accepted dtypes are subtypes of floating.`);
  return [{ shape: sameShapes('complex', xs), dtype: 'complex64' }];
};

/** real / imag: the float32 part of a complex64 operand. */
const complexPart: ShapeRule = ([x], _p, prim) => {
  if (x!.dtype !== 'complex64') throw new ShapeError(`${prim} does not accept dtype ${x!.dtype}. Accepted dtypes are subtypes of complexfloating.`);
  return [{ shape: x!.shape, dtype: 'float32' }];
};

/** conj: complex64 (a real operand is converted first, as JAX's lax.conj does). */
const conjRule: ShapeRule = ([x]) => {
  if (x!.dtype !== 'complex64') throw new ShapeError(`conj does not accept dtype ${x!.dtype}. Accepted dtypes are subtypes of complexfloating.`);
  return [{ shape: x!.shape, dtype: 'complex64' }];
};

/** abs: a complex operand's magnitude is float32. */
const absRule: ShapeRule = ([x]) => [{ shape: x!.shape, dtype: x!.dtype === 'complex64' ? 'float32' : x!.dtype }];

const integerPow: ShapeRule = ([x]) => {
  if (x!.dtype === 'bool') throw new ShapeError('integer_pow does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating.');
  return [{ shape: x!.shape, dtype: x!.dtype }];
};

const selectN: ShapeRule = ([pred, ...cases]) => {
  if (pred!.dtype !== 'bool' && pred!.dtype !== 'int32') throw new ShapeError('select_n requires a bool or int32 predicate.');
  const shape = sameShapes('select_n', cases);
  if (pred!.shape.length !== 0) sameShapes('select_n', [pred!, cases[0]!]);
  return [{ shape, dtype: sameDtypes('select_n', cases) }];
};

const broadcastInDim: ShapeRule = ([x], p) => {
  const shape = p['shape'] as number[];
  const dims = p['broadcast_dimensions'] as number[];
  if (dims.length !== x!.shape.length) throw new ShapeError('broadcast_in_dim: broadcast_dimensions must have the operand rank.');
  dims.forEach((d, i) => {
    const s = x!.shape[i]!;
    if (s !== 1 && s !== shape[d]) {
      throw new ShapeError(`Incompatible shapes for broadcasting: ${fmt(x!.shape)} and requested shape ${fmt(shape)}`);
    }
  });
  return [{ shape, dtype: x!.dtype }];
};

const reshape: ShapeRule = ([x], p) => {
  const shape = p['new_sizes'] as number[];
  const n = shape.reduce((a, b) => a * b, 1);
  const m = x!.shape.reduce((a, b) => a * b, 1);
  if (n !== m) throw new ShapeError(`cannot reshape array of shape ${fmt(x!.shape)} (size ${m}) into shape ${fmt(shape)} (size ${n})`);
  return [{ shape, dtype: x!.dtype }];
};

const transpose: ShapeRule = ([x], p) => {
  const perm = p['permutation'] as number[];
  if (perm.length !== x!.shape.length || [...perm].sort((a, b) => a - b).some((d, i) => d !== i)) {
    throw new ShapeError(`transpose permutation isn't a permutation of operand dimensions, got permutation (${perm.join(', ')}${perm.length === 1 ? ',' : ''}) for operand shape ${fmt(x!.shape)}.`);
  }
  return [{ shape: perm.map((i) => x!.shape[i]!), dtype: x!.dtype }];
};

const squeeze: ShapeRule = ([x], p) => {
  const dims = normAxes(p['dimensions'] as number[], x!.shape.length);
  for (const d of dims) {
    if (x!.shape[d] !== 1) throw new ShapeError(`cannot select an axis to squeeze out which has size not equal to one, got shape=${fmt(x!.shape)} and dimensions=(${dims.join(', ')},)`);
  }
  return [{ shape: x!.shape.filter((_, i) => !dims.includes(i)), dtype: x!.dtype }];
};

const slice: ShapeRule = ([x], p) => {
  const start = p['start_indices'] as number[];
  const limit = p['limit_indices'] as number[];
  const strides = (p['strides'] as number[] | null) ?? start.map(() => 1);
  const shape = start.map((s, i) => Math.max(0, Math.ceil((limit[i]! - s) / strides[i]!)));
  return [{ shape, dtype: x!.dtype }];
};

const concatenate: ShapeRule = (xs, p) => {
  const dim = p['dimension'] as number;
  const first = xs[0]!;
  const shape = [...first.shape];
  shape[dim] = 0;
  for (const x of xs) {
    if (x.shape.length !== first.shape.length || x.shape.some((d, i) => i !== dim && d !== first.shape[i])) {
      throw new ShapeError(`Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension ${dim} for shapes ${xs.map((a) => fmt(a.shape)).join(', ')}.`);
    }
    shape[dim] += x.shape[dim]!;
  }
  return [{ shape, dtype: sameDtypes('concatenate', xs) }];
};

export interface DotDims {
  contract: [number[], number[]];
  batch: [number[], number[]];
}

const dotGeneral: ShapeRule = ([a, b], p) => {
  const dn = p['dimension_numbers'] as DotDims;
  const [lc, rc] = dn.contract;
  const [lb, rb] = dn.batch;
  lc.forEach((d, i) => {
    if (a!.shape[d] !== b!.shape[rc[i]!]) {
      throw new ShapeError(
        `dot_general requires contracting dimensions to have the same shape, got ${fmt(lc.map((j) => a!.shape[j]!))} and ${fmt(rc.map((j) => b!.shape[j]!))}.`,
      );
    }
  });
  lb.forEach((d, i) => {
    if (a!.shape[d] !== b!.shape[rb[i]!]) {
      throw new ShapeError(
        `dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got ${fmt(lb.map((j) => a!.shape[j]!))} and ${fmt(rb.map((j) => b!.shape[j]!))}.`,
      );
    }
  });
  const free = (s: readonly number[], used: number[]) => s.filter((_, i) => !used.includes(i));
  const shape = [...lb.map((d) => a!.shape[d]!), ...free(a!.shape, [...lc, ...lb]), ...free(b!.shape, [...rc, ...rb])];
  return [{ shape, dtype: sameDtypes('dot_general', [a!, b!]) }];
};

// Collectives over named (pmap) axes, with JAX's param names. Shapes are per
// device. `axes` / `axis_name` list the mapped axis names; `axis_size` is the
// product of their sizes.
//   psum/pmax/pmin   {axes, axis_size}               same shape
//   all_gather       {axis_name, axis_size, all_gather_dimension, tiled}
//   psum_scatter     {axis_name, axis_size, scatter_dimension, tiled}
//   ppermute         {axis_name, axis_size, perm: [src, dst][]}  same shape
//   all_to_all       {axis_name, axis_size, split_axis, concat_axis, tiled}
//                    tiled: dimension split_axis is cut into axis_size blocks, block k goes to
//                    device k, and the received blocks are concatenated along concat_axis
//   axis_index       {axis_name}                     i32[]
const allReduce: ShapeRule = (xs) => xs.map((x) => ({ shape: x.shape, dtype: x.dtype }));

const allGather: ShapeRule = ([x], p) => {
  const n = p['axis_size'] as number;
  const d = p['all_gather_dimension'] as number;
  const shape = [...x!.shape];
  if (p['tiled']) shape[d] = shape[d]! * n;
  else shape.splice(d, 0, n);
  return [{ shape, dtype: x!.dtype }];
};

const psumScatter: ShapeRule = ([x], p) => {
  const n = p['axis_size'] as number;
  const d = p['scatter_dimension'] as number;
  const shape = [...x!.shape];
  if (p['tiled']) {
    if (shape[d]! % n !== 0) throw new ShapeError(`psum_scatter: dimension ${d} of size ${shape[d]} is not divisible by the axis size ${n}`);
    shape[d] = shape[d]! / n;
  } else {
    if (shape[d] !== n) throw new ShapeError(`psum_scatter: dimension ${d} of size ${shape[d]} must equal the axis size ${n} when tiled=False`);
    shape.splice(d, 1);
  }
  return [{ shape, dtype: x!.dtype }];
};

const allToAll: ShapeRule = ([x], p) => {
  const n = p['axis_size'] as number;
  const split = p['split_axis'] as number;
  const concat = p['concat_axis'] as number;
  if (!p['tiled']) throw new ShapeError('all_to_all: only tiled=True is supported');
  const shape = [...x!.shape];
  if (shape[split]! % n !== 0) throw new ShapeError(`all_to_all: dimension ${split} of size ${shape[split]} is not divisible by the axis size ${n}`);
  shape[split] = shape[split]! / n;
  shape[concat] = shape[concat]! * n;
  return [{ shape, dtype: x!.dtype }];
};

// dynamic_slice(operand, *start_indices) {slice_sizes}: starts are int32
// scalars, clamped (as in XLA) so the slice stays inside the operand.
const dynamicSlice: ShapeRule = ([x, ...starts], p) => {
  const sizes = p['slice_sizes'] as number[];
  if (starts.length !== x!.shape.length || sizes.length !== x!.shape.length) {
    throw new ShapeError('dynamic_slice: need one start index and one slice size per operand dimension.');
  }
  for (const s of starts) if (s.shape.length !== 0 || !isInt(s.dtype)) throw new ShapeError('dynamic_slice: start indices must be integer scalars.');
  sizes.forEach((n, i) => {
    if (n < 0 || n > x!.shape[i]!) throw new ShapeError(`dynamic_slice: slice size ${n} does not fit dimension ${i} of size ${x!.shape[i]}.`);
  });
  return [{ shape: sizes, dtype: x!.dtype }];
};

/** Bit reinterpretation. */
const bitcastConvertType: ShapeRule = ([x], p) => {
  const to = p['new_dtype'] as DType;
  if (x!.dtype === 'bool' || to === 'bool') throw new ShapeError('bitcast_convert_type does not accept bool.');
  return [{ shape: x!.shape, dtype: to }];
};

// threefry2x32: JAX's counter-based PRNG block, elementwise over four
// same-shape uint32 arrays (key words k0 k1, counter words x0 x1) with two
// uint32 results.
const threefry2x32: ShapeRule = (xs) => {
  for (const x of xs) if (x.dtype !== 'uint32') throw new ShapeError('threefry2x32 requires uint32 arguments.');
  const shape = sameShapes('threefry2x32', xs);
  return [{ shape, dtype: 'uint32' }, { shape, dtype: 'uint32' }];
};

// pad(operand, padding_value) {padding_config: [lo, hi, interior] per dim}:
// lo/hi may be negative (cropping); interior inserts values between elements.
// The transpose of slice.
const pad: ShapeRule = ([x, v], p) => {
  const config = p['padding_config'] as [number, number, number][];
  if (v!.shape.length !== 0) throw new ShapeError('pad: padding_value must be a scalar.');
  if (config.length !== x!.shape.length) throw new ShapeError('pad: padding_config must have one entry per operand dimension.');
  const shape = x!.shape.map((n, i) => {
    const [lo, hi, interior] = config[i]!;
    if (interior < 0) throw new ShapeError(`pad: interior padding must be non-negative, got ${interior}.`);
    const d = lo + hi + n + Math.max(0, n - 1) * interior;
    if (d < 0) throw new ShapeError(`Dimension size after padding is not at least 0, got result shape ${fmt(x!.shape)} with padding ${lo}, ${hi}, ${interior}.`);
    return d;
  });
  return [{ shape, dtype: sameDtypes('pad', [x!, v!]) }];
};

/** A rule of ir/indexing.ts, its errors as ShapeErrors. */
function indexingRule(rule: (xs: AVal[], p: Params, prim: Prim) => AVal[]): ShapeRule {
  return (xs, p, prim) => {
    try {
      return rule(xs, p, prim);
    } catch (e) {
      throw e instanceof IndexingShapeError ? new ShapeError(e.message) : e;
    }
  };
}
/** clamp(min, x, max): min and max are scalars or x's shape, all of x's dtype. */
const clamp: ShapeRule = ([lo, x, hi]) => {
  for (const b of [lo!, hi!]) {
    if (b.shape.length && !sameShape(b.shape, x!.shape)) throw new ShapeError(`Clamp with non-scalar bounds must have the same shape as the operand, got ${fmt(b.shape)} and ${fmt(x!.shape)}.`);
  }
  if (lo!.dtype !== x!.dtype || hi!.dtype !== x!.dtype) throw new ShapeError(`lax.clamp requires arguments to have the same dtypes, got ${lo!.dtype}, ${x!.dtype}, ${hi!.dtype}.`);
  return [{ shape: x!.shape, dtype: x!.dtype }];
};

// ------------------------------------------------------------------ control flow

const sameType = (a: AVal, b: AVal): boolean => a.dtype === b.dtype && sameShape(a.shape, b.shape);
const typeList = (as: readonly AVal[]): string => `[${as.map((a) => `${a.dtype}[${a.shape.join(',')}]`).join(', ')}]`;

/** cond[branches]: an int32 index, then the operands every branch takes; the branches' results. */
const cond: ShapeRule = ([index, ...ops], p) => {
  const branches = p['branches'] as Func[];
  if (index!.dtype !== 'int32' || index!.shape.length) throw new ShapeError(`cond: index must be an int32 scalar, got ${index!.dtype}[${index!.shape.join(',')}]`);
  const outs = branches[0]!.results.map((r) => r.aval);
  for (const b of branches) {
    if (b.params.length !== ops.length || !b.params.every((q, i) => sameType(q.aval, ops[i]!))) throw new ShapeError(`cond: branch inputs ${typeList(b.params.map((q) => q.aval))} do not match the operands ${typeList(ops)}`);
    if (b.results.length !== outs.length || !b.results.every((r, i) => sameType(r.aval, outs[i]!))) throw new ShapeError('cond: branches must have equal output types');
  }
  return outs;
};

/** while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts]: cond consts, body consts, carry → carry. */
const whileLoop: ShapeRule = (ins, p) => {
  const nc = p['cond_nconsts'] as number;
  const nb = p['body_nconsts'] as number;
  const body = p['body_jaxpr'] as Func;
  const carry = ins.slice(nc + nb);
  const outs = body.results.map((r) => r.aval);
  if (outs.length !== carry.length || !outs.every((a, i) => sameType(a, carry[i]!))) throw new ShapeError(`body_fun output and input must have identical types, got\n${typeList(outs)}\nand\n${typeList(carry)}.`);
  const pred = (p['cond_jaxpr'] as Func).results;
  if (pred.length !== 1 || pred[0]!.aval.dtype !== 'bool' || pred[0]!.aval.shape.length) throw new ShapeError('cond_fun must return a boolean scalar');
  return outs;
};

/** scan[jaxpr length num_consts num_carry ...]: consts, carry, xs (stacked on a leading axis of `length`) → carry, stacked ys. */
const scan: ShapeRule = (ins, p) => {
  const body = p['jaxpr'] as Func;
  const length = p['length'] as number;
  const nConsts = p['num_consts'] as number;
  const nCarry = p['num_carry'] as number;
  const carry = ins.slice(nConsts, nConsts + nCarry);
  const outs = body.results.map((r) => r.aval);
  if (!carry.every((a, i) => outs[i] && sameType(a, outs[i]!))) throw new ShapeError(`scan carry output and input must have identical types, got\n${typeList(outs.slice(0, nCarry))}\nand\n${typeList(carry)}.`);
  for (const x of ins.slice(nConsts + nCarry)) {
    if (x.shape[0] !== length) throw new ShapeError(`scan: xs must have a leading axis of length ${length}, got ${x.dtype}[${x.shape.join(',')}]`);
  }
  return [...outs.slice(0, nCarry), ...outs.slice(nCarry).map((a) => ({ shape: [length, ...a.shape], dtype: a.dtype, ...(a.weak ? { weak: true } : {}) }))];
};

/** shard_map[jaxpr mesh in_specs out_specs ...]: operands → results, global shapes from the body's blocks and the specs. */
const shardMap: ShapeRule = (ins, p) => {
  const { jaxpr, mesh, in_specs: inSpecs, out_specs: outSpecs } = shardMapParams(p);
  ins.forEach((a, i) => {
    const want = blockAval(a, inSpecs[i] ?? [], mesh);
    const have = jaxpr.params[i]?.aval;
    if (!have || !sameType(want, have)) throw new ShapeError(`shard_map: operand ${i} of type ${typeList([a])} does not split into the body's parameter ${have ? typeList([have]) : '(none)'}`);
  });
  return jaxpr.results.map((r, j) => globalAval(r.aval, outSpecs[j] ?? [], mesh));
};

const reduceWindow: ShapeRule = ([x], p, prim) => {
  try {
    return [reduceWindowShape(x!, windowParams(p), prim)];
  } catch (err) {
    throw new ShapeError((err as Error).message);
  }
};

// ------------------------------------------------------------------ the table

export const SHAPE_RULES: Record<Prim, ShapeRule> = {
  sin: floatUnary,
  cos: floatUnary,
  tan: floatUnary,
  exp: floatUnary,
  exp2: floatUnary,
  log: floatUnary,
  log1p: floatUnary,
  expm1: floatUnary,
  tanh: floatUnary,
  logistic: floatUnary,
  sqrt: floatUnary,
  rsqrt: floatUnary,
  erf: floatUnary,
  erf_inv: floatUnary,
  neg: sameAsOperand,
  sign: sameAsOperand,
  abs: absRule,
  floor: sameAsOperand,
  ceil: sameAsOperand,
  round: sameAsOperand,
  copy: sameAsOperand,
  sharding_constraint: sameAsOperand,
  not: sameAsOperand,
  is_finite: ([x]) => [{ shape: x!.shape, dtype: 'bool' }],
  stop_gradient: sameAsOperand,
  pvary: sameAsOperand,
  integer_pow: integerPow,
  convert_element_type: ([x], p) => [{ shape: x!.shape, dtype: p['new_dtype'] as DType }],
  bitcast_convert_type: bitcastConvertType,
  add: binary,
  sub: binary,
  mul: binary,
  div: binary,
  rem: binary,
  pow: binary,
  max: binary,
  min: binary,
  atan2: binary,
  complex: complexRule,
  real: complexPart,
  imag: complexPart,
  conj: conjRule,
  and: binary,
  or: binary,
  xor: binary,
  shift_left: shift,
  shift_right_logical: shift,
  shift_right_arithmetic: shift,
  eq: compare,
  ne: compare,
  lt: compare,
  le: compare,
  gt: compare,
  ge: compare,
  select_n: selectN,
  threefry2x32,
  broadcast_in_dim: broadcastInDim,
  reshape,
  transpose,
  squeeze,
  rev: sameAsOperand,
  slice,
  dynamic_slice: dynamicSlice,
  pad,
  concatenate,
  iota: (_xs, p) => [{ shape: p['shape'] as number[], dtype: p['dtype'] as DType }],
  reduce_sum: reduce,
  reduce_max: reduce,
  reduce_min: reduce,
  reduce_prod: reduce,
  argmax: argReduce,
  argmin: argReduce,
  dot_general: dotGeneral,
  conv_general_dilated: ([l, r], p) => {
    try {
      return [convShape(l!, r!, convParams(p))];
    } catch (err) {
      throw new ShapeError((err as Error).message);
    }
  },
  reduce_window_sum: reduceWindow,
  reduce_window_max: reduceWindow,
  reduce_window_min: reduceWindow,
  gather: indexingRule(gatherShape),
  scatter: indexingRule(scatterShape),
  scatter_add: indexingRule(scatterShape),
  scatter_mul: indexingRule(scatterShape),
  scatter_min: indexingRule(scatterShape),
  scatter_max: indexingRule(scatterShape),
  sort: indexingRule(sortShape),
  psum: allReduce,
  pmax: allReduce,
  pmin: allReduce,
  all_gather: allGather,
  psum_scatter: psumScatter,
  ppermute: sameAsOperand,
  all_to_all: allToAll,
  axis_index: () => [{ shape: [], dtype: 'int32' }],
  // the called function's results
  custom_jvp_call: (_xs, p) => (p['call'] as Func).results.map((r) => r.aval),
  custom_vjp_call: (_xs, p) => (p['call'] as Func).results.map((r) => r.aval),
  clamp,
  cond,
  while: whileLoop,
  scan,
  shard_map: shardMap,
};

/** `prim`'s shape rule, for operand types and params. */
export function shapeRule(prim: Prim): (inputs: AVal[], params: Params) => AVal[] {
  const rule = SHAPE_RULES[prim];
  return (inputs, params) => rule(inputs, params, prim);
}
