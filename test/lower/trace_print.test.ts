// Printing while tracing (tracer text, jit's cache), jax.debug.print and jax.make_jaxpr as lowered host code.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';

const c = (src: string) => compile(src, { file: 't.py' });
const pre = 'import jax\nimport jax.numpy as jnp\n';

describe('printing while tracing', () => {
  it('prints a jit tracer at trace time, keyed by the function and its signature', () => {
    const r = c(`${pre}@jax.jit\ndef f(x):\n    print("x", x)\n    return x\nfor i in range(3):\n    f(jnp.ones(3))\nf(jnp.ones(4))\n`);
    const keys = [...r.host.matchAll(/rt\.tracePrint\("([^"]*)", "x JitTracer\(float32\[(\d)\]\)\\n"\)/g)];
    // main() traces twice (the loop body is lowered once); the exported f repeats the first key
    expect(new Set(keys.map((m) => `${m[1]} ${m[2]}`)).size).toBe(2);
    expect(keys.slice(0, 2).map((m) => m[2])).toEqual(['3', '4']);
  });
  it('shows vmap and grad tracers as JAX 0.10 does', () => {
    const r = c(`${pre}def f(x):\n    print(x)\n    return jnp.sum(x)\njax.jit(jax.vmap(f))(jnp.ones((2, 3)))\njax.jit(jax.grad(f))(jnp.ones(3))\n`);
    expect(r.host).toContain('VmapTracer(aval=float32[3], batched=float32[2,3])');
    expect(r.host).toContain('GradTracer(primal=JitTracer(float32[3]), typeof(tangent)=f32[3])');
  });
  it('makes jax.debug.print operands results of the jitted program, printed after its call', () => {
    const r = c(`${pre}@jax.jit\ndef f(x):\n    jax.debug.print("x={}", x)\n    return x * 2\nprint(f(jnp.ones(2)))\n`);
    const p = r.hostProgram.programs.find((q) => q.kind === 'jit')!;
    expect(p.func.results).toHaveLength(2);
    expect(r.host.indexOf('rt.call(')).toBeLessThan(r.host.indexOf('"x="'));
  });
  it('prints make_jaxpr text at compile time', () => {
    const r = c(`${pre}print(jax.make_jaxpr(jnp.sin)(jnp.ones(3)))\n`);
    expect(r.host).toContain('{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }');
    expect(r.hostProgram.programs).toHaveLength(0);
  });
});
