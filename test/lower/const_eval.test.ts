// The compile-time values of traced arrays where JAX has concrete ones
// (src/lower/const_eval.ts): its evaluator against the reference IR evaluator,
// the traces that stage (jit, pmap, vmap) giving none, and differentiation on
// values known only at run time lowered once per outcome.
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { concreteValue, noteHostConstant, noteHostResults } from '../../src/lower/const_eval.js';
import { HostArray, NdArray, Trace, Tracer } from '../../src/lower/values.js';
import { evalFunc } from '../helpers/ir_eval.js';

describe('compile-time values', () => {
  it('evaluates a host computation on constants as the reference evaluator does in float32', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam({ shape: [2, 3], dtype: 'float32' });
    const y = b.addParam({ shape: [3], dtype: 'float32' });
    const yb = b.bind1('broadcast_in_dim', [y], { shape: [2, 3], broadcast_dimensions: [1] });
    const full = (v: number, shape: number[]) => b.bind1('broadcast_in_dim', [lit(v, 'float32')], { shape, broadcast_dimensions: [] });
    const s = b.bind1('mul', [b.bind1('add', [x, yb]), full(0.1, [2, 3])]);
    const p = b.bind1('integer_pow', [s], { y: 3 });
    const r = b.bind1('reduce_sum', [p], { axes: [1] });
    const m = b.bind1('gt', [r, full(1, [2])]);
    const t = b.bind1('transpose', [b.bind1('select_n', [b.bind1('lt', [x, full(2, [2, 3])]), x, s])], { permutation: [1, 0] });
    const f = b.finish([r, m, t]);
    const xd = [0.5, 1, 1.5, 2, 2.5, 3];
    const yd = [0.25, -1, 3];
    const args = [new HostArray('x', { shape: [2, 3], dtype: 'float32' }), new HostArray('y', { shape: [3], dtype: 'float32' })];
    noteHostConstant(args[0]!, new NdArray([2, 3], 'float32', xd));
    noteHostConstant(args[1]!, new NdArray([3], 'float32', yd));
    const outs = f.results.map((_, i) => new HostArray(`o${i}`, f.results[i]!.aval));
    noteHostResults(f, args, outs);
    const want = evalFunc(f, [{ shape: [2, 3], data: xd.map(Math.fround) }, { shape: [3], data: yd.map(Math.fround) }], { f32: true });
    outs.forEach((o, i) => {
      const got = concreteValue(o);
      expect(typeof got).toBe('object');
      if (typeof got === 'string') return;
      expect(got.shape).toEqual(want[i]!.shape);
      got.data.forEach((v, k) => expect(v).toBeCloseTo(want[i]!.data[k]!, 6));
    });
  });

  it("reads a differentiation's parameters from its primals, and gives nothing under jit or vmap", () => {
    const host = new Trace('segment', 'segment', null);
    const g = new Trace('f', 'grad', host);
    const p = g.builder.addParam({ shape: [], dtype: 'float32', weak: true });
    g.outer.set(p, 2.5);
    const lt = new Tracer(g, g.builder.bind1('lt', [g.builder.bind1('mul', [p, p]), lit(7, 'float32')]));
    expect(concreteValue(lt)).toEqual({ shape: [], dtype: 'bool', data: [1] });
    // a tangent stands for no value
    const tan = new Tracer(g, g.builder.addParam({ shape: [], dtype: 'float32' }));
    expect(concreteValue(tan)).toBe('staged');
    // a run-time array: known only when the program runs
    const q = g.builder.addParam({ shape: [], dtype: 'float32' });
    g.outer.set(q, new HostArray('loss', { shape: [], dtype: 'float32' }));
    expect(concreteValue(new Tracer(g, g.builder.bind1('neg', [q])))).toBe('runtime');
    for (const kind of ['jit', 'vmap'] as const) {
      const j = new Trace('j', kind, null);
      const inner = new Trace('f', 'grad', j);
      const v = inner.builder.addParam({ shape: [], dtype: 'float32' });
      inner.outer.set(v, 1);
      expect(concreteValue(new Tracer(inner, inner.builder.bind1('neg', [v])))).toBe('staged');
    }
  });
});

describe('differentiation on values known only at run time', () => {
  const src = (body: string): string => `import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    if x < 3:\n        return 3. * x ** 2\n    return -4 * x\n\nx = jax.random.uniform(jax.random.key(0), ()) * 6\n${body}`;

  it('lowers the statement once per outcome of the condition, which the host program reads back first', () => {
    const ts = compile(src('g = jax.grad(f)(x)\nprint(g)\n'), { file: 't.py' }).host;
    expect(ts.match(/\bif \(\(await jx\.item\(/g)?.length).toBe(1);
    expect(ts).toContain('} else {');
  });

  it('bounds the outcomes of one statement, and keeps no function made in one outcome', () => {
    const err = (body: string): string => {
      try {
        compile(src(body), { file: 't.py' });
      } catch (e) {
        if (e instanceof CompileError) return e.message;
        throw e;
      }
      throw new Error('compiled');
    };
    expect(err('def h(x):\n    while x < 10:\n        x = x * 2\n    return x\nprint(jax.grad(h)(x))\n')).toMatch(/^NotImplementedError: jaxts lowers this statement once per outcome .* up to 6 conditions/);
    expect(err('y, f_vjp = jax.vjp(f, x)\nprint(f_vjp(1.))\n')).toMatch(/^NotImplementedError: 'f_vjp' is a function \(or object\) made by a differentiation that branched/);
  });
});
