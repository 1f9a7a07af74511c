// The vmap pass and fusion.
import { describe, expect, it } from 'vitest';
import { FuncBuilder } from '../../src/ir/builder.js';
import { kernelProgram } from '../../src/passes/pipeline.js';
import { vmapFunc } from '../../src/passes/vmap.js';
import { dce } from '../../src/passes/simplify.js';
import { exprKey, type KExpr } from '../../src/ir/kernel.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });

describe('vmap', () => {
  it('batches a dot with one batched operand (batch axis moves to the front)', () => {
    const b = new FuncBuilder('f');
    const w = b.addParam(f32(3));
    const x = b.addParam(f32(2, 3));
    const y = b.bind1('dot_general', [x, w], { dimension_numbers: { contract: [[1], [0]], batch: [[], []] } });
    const f = b.finish([y]);
    const bf = vmapFunc(f, [true, false], 5);
    expect(bf.params.map((p) => p.aval.shape)).toEqual([[5, 3], [2, 3]]);
    expect(bf.results[0]!.aval.shape).toEqual([5, 2]);
    expect(bf.eqns.map((e) => e.prim)).toEqual(['dot_general', 'transpose']);
  });
  it('broadcasts unbatched operands of elementwise ops', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(3));
    const c = b.addParam(f32(3));
    const f = b.finish([b.bind1('add', [x, c])]);
    const bf = vmapFunc(f, [true, false], 4);
    expect(bf.eqns.map((e) => e.prim)).toEqual(['broadcast_in_dim', 'add']);
    expect(bf.results[0]!.aval.shape).toEqual([4, 3]);
  });
});

describe('fusion', () => {
  it('fuses an elementwise chain with movement ops into one kernel', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam({ shape: [8], dtype: 'int32' });
    const r = b.bind1('reshape', [x], { new_sizes: [4, 2] });
    const c = b.bind1('convert_element_type', [r], { new_dtype: 'float32' });
    const y = b.bind1('sin', [b.bind1('integer_pow', [c], { y: 2 })]);
    const p = kernelProgram(dce(b.finish([y])));
    expect(p.kernels).toHaveLength(1);
    expect(p.steps).toEqual([{ kind: 'kernel', kernel: 0, inputs: [{ kind: 'param', index: 0 }], output: 0 }]);
  });
  it('materialises a value read twice', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8));
    const c = b.bind1('cos', [x]);
    const p = kernelProgram(b.finish([b.bind1('add', [b.bind1('integer_pow', [c], { y: 2 }), b.bind1('sin', [c])])]));
    expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_cos', 'f_k1_add']);
  });
  it('gives a broadcast reduction its own kernel, and reuses dead buffers', () => {
    // (64 iterations per element: a loop this long is not recomputed for each element of the broadcast)
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4, 64));
    const s = b.bind1('reduce_sum', [x], { axes: [1] });
    const bc = b.bind1('broadcast_in_dim', [s], { shape: [4, 64], broadcast_dimensions: [0] });
    const y = b.bind1('sub', [x, bc]);
    const p = kernelProgram(b.finish([y]));
    expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_reduce_sum', 'f_k1_sub']);
  });
  it('folds an elementwise epilogue into a reduction of the same shape', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4, 3));
    const s = b.bind1('reduce_sum', [x], { axes: [1] });
    const three = b.bind1('broadcast_in_dim', [{ kind: 'lit', value: 3, aval: { shape: [], dtype: 'float32' } }], { shape: [4], broadcast_dimensions: [] });
    const m = b.bind1('div', [s, three]);
    const p = kernelProgram(b.finish([m]));
    expect(p.kernels).toHaveLength(1);
    expect(p.kernels[0]!.body.op).toBe('bin');
  });
  it('cuts a very long elementwise chain into kernels of bounded depth (no stack overflow)', () => {
    const b = new FuncBuilder('f');
    let x = b.addParam(f32(3));
    for (let i = 0; i < 5000; i++) x = b.bind1('sin', [x]);
    const p = kernelProgram(b.finish([x]));
    expect(p.kernels.length).toBeGreaterThanOrEqual(5000 / 64);
    expect(p.kernels.length).toBeLessThanOrEqual(5000 / 63 + 1);
  });
  it('expands integer_pow with an exponent beyond 32 bits by squaring, with compact CSE keys', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam({ shape: [4], dtype: 'int32' });
    const p = kernelProgram(b.finish([b.bind1('integer_pow', [x], { y: 2 ** 40 + 3 })]));
    const muls = (e: KExpr): number => (e.op === 'bin' ? 1 + muls(e.a) : 0);
    expect(muls(p.kernels[0]!.body)).toBe(2); // x^(2^40) * x^2 * x, the outermost chain
    expect(exprKey(p.kernels[0]!.body).length).toBeLessThan(20);
  });
});
