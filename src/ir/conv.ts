// The params of the windowed primitives, conv_general_dilated and
// reduce_window_{sum,max,min}, and the arithmetic on them that several stages
// share (jax/_src/lax/convolution.py, windowed_reductions.py): the shape
// rules, the padding of the transpose rules, and the dimension-number helpers. Data and arithmetic
// only; the rules themselves live in their tables.
import type { AVal, Params } from './types.js';

/** JAX's ConvDimensionNumbers: (batch, feature, spatial...) of lhs and out; (out feature, in feature, spatial...) of rhs. */
export interface ConvDims {
  lhs_spec: number[];
  rhs_spec: number[];
  out_spec: number[];
}

/** The params of a conv_general_dilated equation, as JAX names them. */
export interface ConvParams {
  window_strides: number[];
  padding: [number, number][];
  lhs_dilation: number[];
  rhs_dilation: number[];
  dimension_numbers: ConvDims;
  feature_group_count: number;
  batch_group_count: number;
  precision: null;
  preferred_element_type: null;
}

export const convParams = (p: Params): ConvParams => p as unknown as ConvParams;

/** core.dilate_dim: a dimension of size d dilated by r has size max((d - 1) * r + 1, 0). */
export const dilateDim = (d: number, r: number): number => (r === 1 ? d : Math.max(0, 1 + r * (d - 1)));

/** core.stride_dim: windows of size `window` with stride `stride` in `d` elements. */
export const strideDim = (d: number, window: number, stride: number): number => Math.max(0, Math.floor((d - window) / stride) + 1);

const take = (xs: readonly number[], perm: readonly number[]): number[] => perm.map((i) => xs[i]!);
const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;

/** lax.padtype_to_pads: the (low, high) pads of 'SAME', 'SAME_LOWER' or 'VALID'. */
export function padtypeToPads(inShape: readonly number[], window: readonly number[], strides: readonly number[], padding: string): [number, number][] {
  const p = padding.toUpperCase();
  if (p === 'VALID') return inShape.map(() => [0, 0]);
  if (p !== 'SAME' && p !== 'SAME_LOWER') throw new Error(`Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got ${padding}.`);
  return inShape.map((d, i) => {
    const out = Math.ceil(d / strides[i]!);
    const total = Math.max(0, (out - 1) * strides[i]! + window[i]! - d);
    const small = Math.floor(total / 2);
    return p === 'SAME' ? [small, total - small] : [total - small, small];
  });
}

/** The result type of conv_general_dilated, with JAX's checks (an Error with JAX's wording when they fail). */
export function convShape(lhs: AVal, rhs: AVal, p: ConvParams): AVal {
  const dn = p.dimension_numbers;
  if (lhs.shape.length !== rhs.shape.length) {
    throw new Error(`conv_general_dilated lhs and rhs must have the same number of dimensions, but got ${fmt(lhs.shape)} and ${fmt(rhs.shape)}.`);
  }
  const fg = p.feature_group_count;
  const bg = p.batch_group_count;
  if (!(fg > 0)) throw new Error(`conv_general_dilated feature_group_count must be a positive integer, got ${fg}.`);
  const lhsFeatures = lhs.shape[dn.lhs_spec[1]!]!;
  if (lhsFeatures % fg) throw new Error(`conv_general_dilated feature_group_count must divide lhs feature dimension size, but ${fg} does not divide ${lhsFeatures}.`);
  const rhsIn = rhs.shape[dn.rhs_spec[1]!]!;
  if (lhsFeatures / fg !== rhsIn) {
    throw new Error(`conv_general_dilated lhs feature dimension size divided by feature_group_count must equal the rhs input feature dimension size, but ${lhsFeatures} // ${fg} != ${rhsIn}.`);
  }
  const rhsOut = rhs.shape[dn.rhs_spec[0]!]!;
  if (rhsOut % fg) throw new Error(`conv_general_dilated rhs output feature dimension size must be a multiple of feature_group_count, but ${rhsOut} is not a multiple of ${fg}.`);
  if (!(bg > 0)) throw new Error(`conv_general_dilated batch_group_count must be a positive integer, got ${bg}.`);
  const lhsBatch = lhs.shape[dn.lhs_spec[0]!]!;
  if (bg > 1 && lhsBatch % bg) throw new Error(`conv_general_dilated batch_group_count must divide lhs batch dimension size, but ${bg} does not divide ${lhsBatch}.`);
  if (rhsOut % bg) throw new Error(`conv_general_dilated rhs output feature dimension size must be a multiple of batch_group_count, but ${rhsOut} is not a multiple of ${bg}.`);
  if (bg > 1 && fg > 1) throw new Error(`At most one of batch_group_count and feature_group_count may be > 1, got batch_group_count=${bg} and feature_group_count=${fg}`);
  const nsp = dn.rhs_spec.length - 2;
  if (nsp !== p.window_strides.length) {
    throw new Error(`conv_general_dilated window and window_strides must have the same number of dimensions, but got ${nsp} and ${p.window_strides.length}`);
  }
  if (p.padding.length !== nsp) throw new Error(`Wrong number of explicit pads for convolution: expected ${nsp}, got ${p.padding.length}.`);
  const lhsT = take(lhs.shape, dn.lhs_spec);
  const rhsT = take(rhs.shape, dn.rhs_spec);
  const lhsSp = lhsT.slice(2).map((d, i) => dilateDim(d, p.lhs_dilation[i]!) + p.padding[i]![0] + p.padding[i]![1]);
  if (lhsSp.some((d) => d < 0)) {
    throw new Error(`Negative padding is larger than the size of the corresponding dimension: got padding=(${p.padding.map(([a, b]) => `(${a}, ${b})`).join(', ')}${p.padding.length === 1 ? ',' : ''}) for lhs_shape[2:]=${fmt(lhsT.slice(2))}`);
  }
  const window = rhsT.slice(2).map((d, i) => dilateDim(d, p.rhs_dilation[i]!));
  const outT = [bg > 1 ? lhsT[0]! / bg : lhsT[0]!, rhsT[0]!, ...lhsSp.map((d, i) => strideDim(d, window[i]!, p.window_strides[i]!))];
  const shape = new Array<number>(outT.length);
  dn.out_spec.forEach((d, i) => (shape[d] = outT[i]!));
  if (lhs.dtype !== rhs.dtype) throw new Error(`conv_general_dilated requires arguments to have the same dtypes, got ${lhs.dtype}, ${rhs.dtype}.`);
  return { shape, dtype: lhs.dtype };
}

/** JAX's _conv_general_vjp_lhs_padding. */
export function vjpLhsPadding(inShape: number[], window: number[], strides: number[], outShape: number[], padding: [number, number][], lhsDil: number[], rhsDil: number[]): [number, number][] {
  return inShape.map((d, i) => {
    const lhsD = dilateDim(d, lhsDil[i]!);
    const rhsD = dilateDim(window[i]!, rhsDil[i]!);
    const outD = dilateDim(outShape[i]!, strides[i]!);
    const before = rhsD - padding[i]![0] - 1;
    return [before, lhsD + rhsD - 1 - outD - before];
  });
}

/** JAX's _conv_general_vjp_rhs_padding. */
export function vjpRhsPadding(inShape: number[], window: number[], strides: number[], outShape: number[], padding: [number, number][], lhsDil: number[], rhsDil: number[]): [number, number][] {
  return inShape.map((d, i) => {
    const lhsD = dilateDim(d, lhsDil[i]!);
    const rhsD = dilateDim(window[i]!, rhsDil[i]!);
    const outD = dilateDim(outShape[i]!, strides[i]!);
    const lo = padding[i]![0];
    return [lo, outD - lhsD + (rhsD - lo - 1)];
  });
}

/** (spec[1], spec[0], spec[2:]...) */
export const specTranspose = (spec: number[]): number[] => [spec[1]!, spec[0]!, ...spec.slice(2)];

/** JAX's conv_general_permutations for string specs ('NCHW', 'OIHW', 'NCHW'); a message with JAX's wording on error. */
export function convGeneralPermutations(specs: [string, string, string]): ConvDims | string {
  const pairs: [string, string][] = [['N', 'C'], ['O', 'I'], ['N', 'C']];
  for (let i = 0; i < 3; i++) {
    const [a, b] = pairs[i]!;
    const s = specs[i]!;
    const count = (ch: string) => [...s].filter((x) => x === ch).length;
    if (!(count(a) === 1 && count(b) === 1)) return `TypeError: convolution dimension_numbers[${i}] must contain the characters '${a}' and '${b}' exactly once, got ${s}.`;
    if (new Set(s).size !== s.length) return `TypeError: convolution dimension_numbers[${i}] cannot have duplicate characters, got ${s}.`;
  }
  const spatial = (s: string, pair: [string, string]) => [...s].filter((ch) => !pair.includes(ch)).sort().join('');
  if (!(spatial(specs[0], pairs[0]!) === spatial(specs[1], pairs[1]!) && spatial(specs[1], pairs[1]!) === spatial(specs[2], pairs[2]!))) {
    return `TypeError: convolution dimension_numbers elements must each have the same set of spatial characters, got ('${specs.join("', '")}').`;
  }
  const rhs = specs[1];
  const perm = (s: string, pair: [string, string], isRhs: boolean): number[] => {
    let sp = [...s].map((_, i) => i).filter((i) => !pair.includes(s[i]!));
    if (!isRhs) sp = sp.sort((x, y) => rhs.indexOf(s[x]!) - rhs.indexOf(s[y]!));
    return [s.indexOf(pair[0]), s.indexOf(pair[1]), ...sp];
  };
  return { lhs_spec: perm(specs[0], pairs[0]!, false), rhs_spec: perm(specs[1], pairs[1]!, true), out_spec: perm(specs[2], pairs[2]!, false) };
}

/** The params of reduce_window_sum / _max / _min, as JAX names them. */
export interface WindowParams {
  window_dimensions: number[];
  window_strides: number[];
  padding: [number, number][];
  base_dilation: number[];
  window_dilation: number[];
}

export const windowParams = (p: Params): WindowParams => p as unknown as WindowParams;

/** JAX's _common_reduce_window_shape_rule and reduce_window_shape_tuple (an Error with JAX's wording when a check fails). */
export function reduceWindowShape(x: AVal, p: WindowParams, prim: string): AVal {
  const r = x.shape.length;
  if (prim === 'reduce_window_sum' && x.dtype === 'bool') throw new Error('operand to reduce_window_sum must have a number dtype, got bool');
  if (p.window_dimensions.length !== r) {
    throw new Error(`reduce_window got the wrong number of window_dimensions for operand: got operand shape ${fmt(x.shape)} with window_dimensions ${fmt(p.window_dimensions)}.`);
  }
  if (p.window_strides.length !== r) {
    throw new Error(`reduce_window got inconsistent window_strides and window_dimensions: got window_strides ${fmt(p.window_strides)} and window_dimensions ${fmt(p.window_dimensions)}.`);
  }
  if (p.padding.length !== r) throw new Error(`reduce_window got inconsistent padding and window_dimensions: got padding of length ${p.padding.length} for window_dimensions ${fmt(p.window_dimensions)}.`);
  if (p.window_dimensions.some((d) => d <= 0)) throw new Error(`reduce_window window_dimensions must have positive entries, got ${fmt(p.window_dimensions)}.`);
  if (p.window_strides.some((d) => d <= 0)) throw new Error(`reduce_window window_strides must have positive entries, got ${fmt(p.window_strides)}.`);
  const shape = x.shape.map((d, i) => {
    const padded = dilateDim(d, p.base_dilation[i]!) + p.padding[i]![0] + p.padding[i]![1];
    return strideDim(padded, dilateDim(p.window_dimensions[i]!, p.window_dilation[i]!), p.window_strides[i]!);
  });
  return { shape, dtype: x.dtype };
}
