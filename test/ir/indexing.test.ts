// Shape rules of gather, the scatters and sort (src/ir/indexing.ts), and
// their names in IR dumps (JAX's hyphenated scatter-add, …).
import { describe, expect, it } from 'vitest';
import { FuncBuilder } from '../../src/ir/builder.js';
import { ShapeError, shapeRule } from '../../src/ir/primitives.js';
import { printFunc } from '../../src/ir/printer.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });
const i32 = (...shape: number[]) => ({ shape, dtype: 'int32' as const });
const gdn = (offset: number[], collapsed: number[], map: number[]) => ({
  offset_dims: offset, collapsed_slice_dims: collapsed, start_index_map: map, operand_batching_dims: [], start_indices_batching_dims: [],
});
const sdn = (window: number[], inserted: number[], map: number[]) => ({
  update_window_dims: window, inserted_window_dims: inserted, scatter_dims_to_operand_dims: map, operand_batching_dims: [], scatter_indices_batching_dims: [],
});
const gp = (dn: object, sizes: number[]) => ({ dimension_numbers: dn, slice_sizes: sizes, mode: 'promise_in_bounds', fill_value: null, indices_are_sorted: false, unique_indices: false });

describe('gather, scatter and sort shape rules', () => {
  it('gather: batch dims of the indices and the offset dims of the slice, in output order', () => {
    // x[idx] with idx: i32[2, 3] over rows of f32[5, 4]
    expect(shapeRule('gather')([f32(5, 4), i32(2, 3, 1)], gp(gdn([2], [0], [0]), [1, 4]))).toEqual([f32(2, 3, 4)]);
    // x[:, idx]: the offset dim first
    expect(shapeRule('gather')([f32(5, 4), i32(3, 1)], gp(gdn([0], [1], [1]), [5, 1]))).toEqual([f32(5, 3)]);
  });
  it('gather reports XLA errors', () => {
    expect(() => shapeRule('gather')([f32(5, 4), i32(3, 2)], gp(gdn([1], [0], [0]), [1, 4]))).toThrow(/elements in start_index_map/);
    expect(() => shapeRule('gather')([f32(5, 4), i32(3, 1)], gp(gdn([1], [0], [0]), [2, 4]))).toThrow(ShapeError);
    expect(() => shapeRule('gather')([f32(5), f32(3, 1)], gp(gdn([], [0], [0]), [1]))).toThrow(/integer type/);
  });
  it('scatters keep the operand type and check the updates against the indices', () => {
    const p = { dimension_numbers: sdn([1], [0], [0]), mode: 'fill', indices_are_sorted: false, unique_indices: false };
    expect(shapeRule('scatter_add')([f32(5, 4), i32(3, 1), f32(3, 4)], p)).toEqual([f32(5, 4)]);
    expect(() => shapeRule('scatter')([f32(5, 4), i32(3, 1), f32(2, 4)], p)).toThrow(/Bounds of the scatter dimensions/);
    expect(() => shapeRule('scatter_max')([f32(5, 4), i32(3, 1), i32(3, 4)], p)).toThrow(/scatter-max requires arguments to have the same dtypes/);
  });
  it('sort: one result per operand, same shapes', () => {
    expect(shapeRule('sort')([f32(2, 3), i32(2, 3)], { dimension: 1, is_stable: true, num_keys: 1 })).toEqual([f32(2, 3), i32(2, 3)]);
    expect(() => shapeRule('sort')([f32(2, 3), i32(3)], { dimension: 0, is_stable: true, num_keys: 1 })).toThrow(/same shape/);
  });
  it('IR dumps name the scatters as JAX does', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4));
    const i = b.addParam(i32(2, 1));
    const u = b.addParam(f32(2));
    const y = b.bind1('scatter_add', [x, i, u], { dimension_numbers: sdn([], [0], [0]), mode: 'fill', indices_are_sorted: false, unique_indices: false });
    expect(printFunc(b.finish([y]))).toContain('= scatter-add[');
  });
});
