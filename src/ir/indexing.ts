// Gather, scatter and sort: the dimension numbers of XLA's gather and
// scatter (jax/_src/lax/slicing.py's GatherDimensionNumbers and
// ScatterDimensionNumbers), their out-of-bounds modes, and the shape rules of
// gather, scatter / scatter-add / -mul / -min / -max and sort. The index
// vector is always the last dimension of the indices (as in JAX).
import type { AVal, DType, Params } from './types.js';

export class IndexingShapeError extends Error {}

/** JAX's GatherDimensionNumbers. */
export interface GatherDims {
  offset_dims: number[];
  collapsed_slice_dims: number[];
  start_index_map: number[];
  operand_batching_dims: number[];
  start_indices_batching_dims: number[];
}

/** JAX's ScatterDimensionNumbers. */
export interface ScatterDims {
  update_window_dims: number[];
  inserted_window_dims: number[];
  scatter_dims_to_operand_dims: number[];
  operand_batching_dims: number[];
  scatter_indices_batching_dims: number[];
}

/** JAX's GatherScatterMode: clip (clamp indices), fill (gather: fill value; scatter: drop), promise_in_bounds (XLA clamps gathers and drops scatters). */
export type GatherMode = 'clip' | 'fill' | 'promise_in_bounds';

/** The scatter primitives (one combiner each; `scatter` replaces). */
export type ScatterPrim = 'scatter' | 'scatter_add' | 'scatter_mul' | 'scatter_min' | 'scatter_max';
export const SCATTER_PRIMS: readonly ScatterPrim[] = ['scatter', 'scatter_add', 'scatter_mul', 'scatter_min', 'scatter_max'];

/** The name JAX gives a primitive whose IR key cannot hold a hyphen (scatter_add → scatter-add). */
export const jaxPrimName = (prim: string): string => (prim.startsWith('scatter_') ? prim.replace('_', '-') : prim);

const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;

/** The dimension numbers of the scatter that is `dn`'s transpose (and back). */
export function scatterDimsOf(dn: GatherDims): ScatterDims {
  return {
    update_window_dims: dn.offset_dims,
    inserted_window_dims: dn.collapsed_slice_dims,
    scatter_dims_to_operand_dims: dn.start_index_map,
    operand_batching_dims: dn.operand_batching_dims,
    scatter_indices_batching_dims: dn.start_indices_batching_dims,
  };
}
export function gatherDimsOf(dn: ScatterDims): GatherDims {
  return {
    offset_dims: dn.update_window_dims,
    collapsed_slice_dims: dn.inserted_window_dims,
    start_index_map: dn.scatter_dims_to_operand_dims,
    operand_batching_dims: dn.operand_batching_dims,
    start_indices_batching_dims: dn.scatter_indices_batching_dims,
  };
}

/** The slice sizes of the gather reading back what a scatter with `dn` writes from `updates`. */
export function scatterSliceSizes(operand: readonly number[], updates: readonly number[], dn: ScatterDims): number[] {
  let pos = 0;
  return operand.map((_, i) => (dn.inserted_window_dims.includes(i) || dn.operand_batching_dims.includes(i) ? 1 : updates[dn.update_window_dims[pos++]!]!));
}

const isIndex = (d: DType): boolean => d === 'int32' || d === 'uint32';

/** gather(operand, indices) {dimension_numbers, slice_sizes, mode, fill_value, …}. */
export function gatherShape([x, idx]: AVal[], p: Params): AVal[] {
  const dn = p['dimension_numbers'] as GatherDims;
  const sizes = p['slice_sizes'] as number[];
  if (!isIndex(idx!.dtype)) throw new IndexingShapeError(`gather indices must have an integer type; got ${idx!.dtype}.`);
  if (dn.operand_batching_dims.length) throw new IndexingShapeError('gather: operand_batching_dims are not supported by jaxts.');
  if (sizes.length !== x!.shape.length) {
    throw new IndexingShapeError(`Gather op must have one slice size for every input dimension; got: len(slice_sizes)=${sizes.length}, input_shape.rank=${x!.shape.length}`);
  }
  const k = idx!.shape[idx!.shape.length - 1] ?? 0;
  if (idx!.shape.length === 0 || k !== dn.start_index_map.length) {
    throw new IndexingShapeError(`Gather op has ${dn.start_index_map.length} elements in start_index_map and the bound of dimension index_vector_dim=${idx!.shape.length - 1} of indices is ${k}. These two numbers must be equal.`);
  }
  sizes.forEach((s, i) => {
    if (s < 0 || s > x!.shape[i]!) throw new IndexingShapeError(`Slice size at index ${i} in gather op is out of range, must be within [0, ${x!.shape[i]! + 1}), got ${s}.`);
  });
  for (const d of dn.collapsed_slice_dims) {
    if (sizes[d] !== 1) throw new IndexingShapeError(`Gather op can only collapse slice dims with bound 1, but bound is ${sizes[d]} for index ${d} at position ${dn.collapsed_slice_dims.indexOf(d)}.`);
  }
  const window = sizes.filter((_, i) => !dn.collapsed_slice_dims.includes(i));
  if (window.length !== dn.offset_dims.length) throw new IndexingShapeError(`All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed; got len(slice_sizes)=${sizes.length}, output_slice_sizes=${fmt(window)}, collapsed_slice_dims=${fmt(dn.collapsed_slice_dims)}.`);
  const batch = idx!.shape.slice(0, -1);
  const rank = batch.length + window.length;
  const shape: number[] = [];
  let b = 0;
  let w = 0;
  for (let d = 0; d < rank; d++) shape.push(dn.offset_dims.includes(d) ? window[w++]! : batch[b++]!);
  return [{ shape, dtype: x!.dtype }];
}

/** scatter*(operand, indices, updates) {dimension_numbers, mode, …}: the operand's type. */
export function scatterShape([x, idx, upd]: AVal[], p: Params, prim: string): AVal[] {
  const dn = p['dimension_numbers'] as ScatterDims;
  if (!isIndex(idx!.dtype)) throw new IndexingShapeError(`${jaxPrimName(prim)} indices must have an integer type; got ${idx!.dtype}.`);
  if (dn.operand_batching_dims.length) throw new IndexingShapeError(`${jaxPrimName(prim)}: operand_batching_dims are not supported by jaxts.`);
  if (upd!.dtype !== x!.dtype) throw new IndexingShapeError(`${jaxPrimName(prim)} requires arguments to have the same dtypes, got ${x!.dtype}, ${upd!.dtype}.`);
  const k = idx!.shape[idx!.shape.length - 1] ?? 0;
  if (idx!.shape.length === 0 || k !== dn.scatter_dims_to_operand_dims.length) {
    throw new IndexingShapeError(`Scatter op has ${dn.scatter_dims_to_operand_dims.length} elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=${idx!.shape.length - 1} of indices is ${k}. These two numbers must be equal.`);
  }
  const batch = idx!.shape.slice(0, -1);
  if (upd!.shape.length !== batch.length + dn.update_window_dims.length) {
    throw new IndexingShapeError(`Updates tensor must be of rank ${batch.length + dn.update_window_dims.length}; got ${upd!.shape.length}.`);
  }
  if (dn.update_window_dims.length + dn.inserted_window_dims.length !== x!.shape.length) {
    throw new IndexingShapeError(`Scatter op has window of size ${dn.update_window_dims.length}; doesn't match operand of rank ${x!.shape.length}.`);
  }
  let b = 0;
  upd!.shape.forEach((s, d) => {
    if (!dn.update_window_dims.includes(d) && s !== batch[b++]) {
      throw new IndexingShapeError(`Bounds of the scatter dimensions of updates must be the same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension ${d}, updates bound is ${s}, scatter_indices bound is ${batch[b - 1]}.`);
    }
  });
  return [{ shape: x!.shape, dtype: x!.dtype }];
}

/** sort(*operands) {dimension, is_stable, num_keys}: one result per operand, same types. */
export function sortShape(xs: AVal[], p: Params): AVal[] {
  const dim = p['dimension'] as number;
  const nk = p['num_keys'] as number;
  const s = xs[0]!.shape;
  if (nk < 1 || nk > xs.length) throw new IndexingShapeError(`num_keys must be at least 1 and at most the number of operands; got num_keys=${nk} and ${xs.length} operands.`);
  if (dim < 0 || dim >= s.length) throw new IndexingShapeError(`sort dimension ${dim} is out of bounds for operands of rank ${s.length}.`);
  for (const x of xs) {
    if (x.shape.length !== s.length || x.shape.some((d, i) => d !== s[i])) throw new IndexingShapeError(`Operands to sort must have the same shape, got ${xs.map((a) => fmt(a.shape)).join(', ')}.`);
  }
  return xs.map((x) => ({ shape: x.shape, dtype: x.dtype }));
}
