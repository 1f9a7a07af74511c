// Lowering of jax.jvp / vjp / linearize / jacfwd / jacrev / hessian, custom_jvp / custom_vjp,
// eval_shape and check_grads: where their programs go, what is (not) traced, and JAX's errors.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';

const c = (body: string) => compile(`import jax\nimport jax.numpy as jnp\n${body}`, { file: 't.py' });
const allPrims = (r: ReturnType<typeof c>): string[] => r.hostProgram.programs.flatMap((p) => p.func.eqns.map((e) => e.prim));

describe('forward and reverse mode', () => {
  it('jvp inside jit is inlined into the jitted program: primal and tangent are its results', () => {
    const r = c('f = jax.jit(lambda x, v: jax.jvp(jnp.sin, (x,), (v,)))\nprint(f(jnp.ones(2), jnp.ones(2)))\n');
    const jit = r.hostProgram.programs.find((p) => p.kind === 'jit' && p.func.eqns.some((e) => e.prim === 'cos'))!;
    expect(jit.func.results).toHaveLength(2);
    expect(jit.func.params).toHaveLength(2);
  });
  it('a vjp function can be called several times', () => {
    const r = c('y, pull = jax.vjp(jnp.sin, jnp.ones(3))\nprint(pull(jnp.ones(3)), pull(2 * jnp.ones(3)))\n');
    expect(allPrims(r).filter((p) => p === 'cos').length).toBeGreaterThanOrEqual(1);
  });
  it('jacrev and jacfwd: the basis is built from iota', () => {
    const r = c('print(jax.jacrev(jnp.sin)(jnp.ones(3)), jax.jacfwd(jnp.sin)(jnp.ones(3)))\n');
    expect(allPrims(r)).toContain('iota');
  });
});

describe('custom derivative rules', () => {
  const log1pexp = '@jax.custom_jvp\ndef f(x):\n    return jnp.log(1.0 + jnp.exp(x))\n@f.defjvp\ndef f_jvp(p, t):\n    return f(p[0]), t[0] * (1.0 - 1.0 / (1.0 + jnp.exp(p[0])))\n';
  it('no custom call reaches a program', () => {
    const r = c(`${log1pexp}print(f(1.0), jax.grad(f)(1.0), jax.vmap(jax.grad(f))(jnp.ones(2)))\n`);
    expect(allPrims(r).some((p) => p.startsWith('custom_'))).toBe(false);
  });
  it('outside differentiation the function is called plainly (no rule traced)', () => {
    const r = c(`${log1pexp}print(f(1.0))\n`);
    expect(allPrims(r)).not.toContain('div');
  });
  it('a custom_jvp without a rule is an AttributeError at the call', () => {
    expect(() => c('@jax.custom_jvp\ndef f(x):\n    return x\nprint(f(1.0))\n')).toThrow('AttributeError: No JVP defined for custom_jvp function f using defjvp.');
  });
  it('a custom_vjp under jvp is refused as JAX refuses it', () => {
    expect(() => c('@jax.custom_vjp\ndef f(x):\n    return x\nf.defvjp(lambda x: (x, None), lambda r, g: (g,))\nprint(jax.jvp(f, (1.0,), (1.0,)))\n')).toThrow(
      "TypeError: can't apply forward-mode autodiff (jvp) to a custom_vjp function.",
    );
  });
});

describe('jvp errors (JAX wording)', () => {
  it('primals and tangents must be tuples or lists', () => {
    expect(() => c('jax.jvp(jnp.sin, 1.0, 1.0)\n')).toThrow('TypeError: primal and tangent arguments to jax.jvp must be tuples or lists; found float and float.');
  });
  it('shapes must agree', () => {
    expect(() => c('jax.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),))\n')).toThrow('ValueError: jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent shape as (2,)');
  });
  it('jacfwd of an integer input', () => {
    expect(() => c('jax.jacfwd(lambda x: x * 2)(jnp.arange(3))\n')).toThrow('TypeError: jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.');
  });
});

describe('eval_shape and check_grads', () => {
  it('eval_shape emits no program', () => {
    const r = c('print(jax.eval_shape(lambda x: jnp.sin(x) @ x.T, jax.ShapeDtypeStruct((2, 3), jnp.float32)))\n');
    expect(r.hostProgram.programs).toHaveLength(0);
  });
  it('check_grads becomes run-time checks', () => {
    const r = c('from jax.test_util import check_grads\ncheck_grads(jnp.sin, (1.0,), order=1)\n');
    expect(r.host).toContain('jx.assertTrue(');
  });
});
