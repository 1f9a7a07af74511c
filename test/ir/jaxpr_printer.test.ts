// The jaxpr printer: JAX's layout (groups that fit on a line stay flat), literals and parameters.
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import { printJaxpr, pyFloat } from '../../src/ir/jaxpr_printer.js';

describe('printJaxpr', () => {
  it('prints a short jaxpr on one line and a longer one as JAX lays it out', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam({ shape: [3], dtype: 'int32' });
    expect(printJaxpr(b.finish([x]))).toBe('{ lambda ; a:i32[3]. let  in (a,) }');
    const c = new FuncBuilder('g');
    const y = c.addParam({ shape: [], dtype: 'float32', weak: true });
    const l = c.bind1('log', [y]);
    const two = c.bind1('broadcast_in_dim', [lit(2, 'float32', true)], { shape: [], broadcast_dimensions: [] });
    const d = c.bind1('div', [l, c.bind1('log', [two])]);
    expect(printJaxpr(c.finish([d]))).toBe(
      ['{ lambda ; a:f32[]. let', '    b:f32[] = log a', '    c:f32[] = log 2.0:f32[]', '    d:f32[] = div b c', '  in (d,) }'].join('\n'),
    );
  });
  it('shows a reduction with its parameters and hides the trivial ones', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam({ shape: [2, 3], dtype: 'float32' });
    const m = b.bind1('reduce_max', [x], { axes: [1], out_sharding: null });
    expect(printJaxpr(b.finish([m]))).toBe('{ lambda ; a:f32[2,3]. let b:f32[2] = reduce_max[axes=(1,)] a in (b,) }');
  });
  it('writes floats as Python does', () => {
    expect(pyFloat(Math.fround(1.67))).toBe('1.6699999570846558');
    expect(pyFloat(2)).toBe('2.0');
    expect(pyFloat(1e-5)).toBe('1e-05');
    expect(pyFloat(0.0001)).toBe('0.0001');
    expect(pyFloat(1e16)).toBe('1e+16');
    expect(pyFloat(-Infinity)).toBe('-inf');
  });
});
