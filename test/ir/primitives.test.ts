// Shape rules and the IR printer.
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import { ShapeError, shapeRule } from '../../src/ir/primitives.js';
import { printFunc } from '../../src/ir/printer.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });

describe('shape rules', () => {
  it('dot_general contracts and reports mismatches in JAX wording', () => {
    const dn = { contract: [[1], [0]], batch: [[], []] };
    expect(shapeRule('dot_general')([f32(3, 4), f32(4, 5)], { dimension_numbers: dn })).toEqual([f32(3, 5)]);
    expect(() => shapeRule('dot_general')([f32(3, 4), f32(5, 2)], { dimension_numbers: dn })).toThrow(
      'dot_general requires contracting dimensions to have the same shape, got (4,) and (5,).',
    );
  });
  it('broadcast_in_dim, reshape, slice, reduce', () => {
    expect(shapeRule('broadcast_in_dim')([f32(3)], { shape: [2, 3], broadcast_dimensions: [1] })[0]!.shape).toEqual([2, 3]);
    expect(() => shapeRule('reshape')([f32(6)], { new_sizes: [4] })).toThrow(ShapeError);
    expect(shapeRule('slice')([f32(10)], { start_indices: [1], limit_indices: [8], strides: [3] })[0]!.shape).toEqual([3]);
    expect(shapeRule('reduce_sum')([f32(2, 3, 4)], { axes: [0, 2] })[0]!.shape).toEqual([3]);
  });
  it('binary ops need equal shapes and dtypes', () => {
    expect(() => shapeRule('add')([f32(2), { shape: [2], dtype: 'int32' }], {})).toThrow(/same dtypes/);
  });
});

describe('printer', () => {
  it('prints a jaxpr-like program', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4, 2));
    const y = b.bind1('integer_pow', [x], { y: 2 });
    const z = b.bind1('add', [y, b.bind1('sin', [x])]);
    const two = b.bind1('broadcast_in_dim', [lit(2, 'float32')], { shape: [4, 2], broadcast_dimensions: [] });
    const w = b.bind1('mul', [z, two]);
    expect(printFunc(b.finish([w]))).toBe(
      [
        'f = { lambda ; a:f32[4,2]. let',
        '    b:f32[4,2] = integer_pow[y=2] a',
        '    c:f32[4,2] = sin a',
        '    d:f32[4,2] = add b c',
        '    e:f32[4,2] = broadcast_in_dim[shape=(4, 2) broadcast_dimensions=()] 2.0:f32[]',
        '    f:f32[4,2] = mul d e',
        '  in (f,) }',
      ].join('\n'),
    );
  });
});
