// Lowering of jax.grad / jax.value_and_grad: where the gradient program goes
// (host segment, jit, pmap, vmap bodies) and JAX's errors, in its wording.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';

const c = (body: string) => compile(`import jax\nimport jax.numpy as jnp\n${body}`, { file: 't.py' });
const prims = (r: ReturnType<typeof c>, kind: string): string[] =>
  r.hostProgram.programs.filter((p) => p.kind === kind).flatMap((p) => p.func.eqns.map((e) => e.prim));

describe('jax.grad lowering', () => {
  it('eager grad becomes part of a host segment', () => {
    const r = c('g = jax.grad(lambda x: jnp.sum(jnp.sin(x)))(jnp.arange(3.0))\nprint(g)\n');
    expect(prims(r, 'segment')).toContain('cos');
    expect(r.hostProgram.programs.every((p) => p.kind === 'segment')).toBe(true);
  });
  it('grad inside jit is part of the jitted program', () => {
    const r = c('f = jax.jit(jax.grad(lambda x, y: jnp.sum(x * y), argnums=(0, 1)))\nprint(f(jnp.ones(2), jnp.ones(2)))\n');
    const jit = r.hostProgram.programs.find((p) => p.kind === 'jit')!;
    expect(jit.func.results).toHaveLength(2);
  });
  it('grad inside pmap transposes psum to psum', () => {
    const r = c('f = jax.pmap(jax.grad(lambda x: jnp.sum(jnp.sin(jax.lax.psum(x, "i")))), axis_name="i")\nprint(f(jnp.ones((4, 2))))\n');
    const p = r.hostProgram.programs.find((q) => q.kind === 'pmap')!;
    expect(p.func.params[0]!.aval.shape).toEqual([2]);
  });
  it('closed-over arrays are not differentiated', () => {
    const r = c('w = jnp.arange(3.0)\ng = jax.grad(lambda x: jnp.sum(x * w))(jnp.ones(3))\nprint(g)\n');
    expect(r.host).toContain('rt.call(');
  });
});

describe('jax.grad errors (JAX wording)', () => {
  it('non-scalar output', () => {
    expect(() => c('jax.grad(lambda x: x * 2)(jnp.ones(3))\n')).toThrow('TypeError: Gradient only defined for scalar-output functions. Output had shape: (3,).');
  });
  it('integer input', () => {
    expect(() => c('jax.grad(lambda x: x * 2)(3)\n')).toThrow(
      'TypeError: grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.',
    );
  });
  it('integer output', () => {
    expect(() => c('jax.grad(lambda x: jnp.sum(x).astype(jnp.int32))(jnp.ones(2))\n')).toThrow(
      'TypeError: grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32. For differentiation of functions with integer outputs, use jax.vjp directly.',
    );
  });
  it('argnums beyond the arguments', () => {
    expect(() => c('jax.grad(lambda x, y: x * y, argnums=(0, 2))(3.0, 2.0)\n')).toThrow(
      'TypeError: differentiating with respect to argnums=(0, 2) requires at least 3 positional arguments to be passed by the caller, but got only 2 positional arguments.',
    );
  });
  it('has_aux without a pair', () => {
    expect(() => c('jax.grad(lambda x: x, has_aux=True)(3.0)\n')).toThrow('expected function with aux output to return a two-element tuple');
  });
});
