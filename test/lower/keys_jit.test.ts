// Typed PRNG keys (jax.random.key) and jax.jit's options: how keys are carried
// (as their uint32 key data: through jit, vmap and host loops that stay
// loops), which jit arguments are static, and JAX's errors in its wording.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';

const c = (body: string) => compile(`import jax\nimport jax.numpy as jnp\n${body}`, { file: 't.py' });
const jitPrograms = (r: ReturnType<typeof c>) => r.hostProgram.programs.filter((p) => p.kind === 'jit');

describe('typed PRNG keys', () => {
  it('a key passed to jit is its uint32[2] key data', () => {
    const r = c('f = jax.jit(lambda k: jax.random.normal(k, (3,)))\nprint(f(jax.random.key(0)))\n');
    const [p] = jitPrograms(r);
    expect(p!.func.params.map((v) => [v.aval.dtype, v.aval.shape])).toEqual([['uint32', [2]]]);
  });
  it('a host loop carrying a key stays a loop', () => {
    const r = c('key = jax.random.key(0)\nfor i in range(1000):\n    key, sub = jax.random.split(key)\n    print(jax.random.normal(sub))\n');
    expect(r.host).toMatch(/for \(let /);
    expect(r.hostProgram.programs.filter((p) => p.kind === 'segment').length).toBeLessThanOrEqual(3);
  });
  it('fold_in with a host loop index keeps the loop', () => {
    const r = c('key = jax.random.key(0)\nfor i in range(100000):\n    print(jax.random.normal(jax.random.fold_in(key, i)))\n');
    expect(r.host).toMatch(/for \(let /);
    expect(r.host).toContain('rt.constant([], "uint32", [i])');
  });
  it('split keeps the kind of key it is given', () => {
    expect(c('print(jax.random.split(jax.random.PRNGKey(0)).shape)\n').host).toBeTruthy();
    expect(() => c('jax.random.normal(jax.random.split(jax.random.key(0)), (2,))\n')).toThrow(
      'ValueError: normal accepts a single key, but was given a key array of shape (2,) != (). Use jax.vmap for batching.',
    );
    expect(() => c('jax.random.normal(jax.random.split(jax.random.PRNGKey(0), 3), (2,))\n')).toThrow(
      'ValueError: normal accepts a single key, but was given a key array of shape (3, 2) != (). Use jax.vmap for batching.',
    );
  });
  it('wrap_key_data wants uint32 data', () => {
    expect(() => c('jax.random.wrap_key_data(jnp.array([1, 2]))\n')).toThrow(
      'TypeError: JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=int32',
    );
  });
  it('only the threefry implementation', () => {
    expect(() => c('jax.random.key(0, impl="rbg")\n')).toThrow("PRNG implementation 'rbg' other than 'threefry2x32' are not supported");
  });
  it('indexing a key array past its key dimensions', () => {
    expect(() => c('k = jax.random.split(jax.random.key(0))\nprint(k[0, 1])\n')).toThrow('IndexError: Too many indices: 1-dimensional array indexed with 2 regular indices.');
  });
});

describe('jax.jit options', () => {
  it('a static argument is not a parameter of the program; a Python scalar is a weak one', () => {
    const r = c('f = jax.jit(lambda x, n, s: x * n * s, static_argnums=1)\nprint(f(jnp.ones(2), 3, 2.0))\n');
    const [p] = jitPrograms(r);
    expect(p!.func.params.map((v) => [v.aval.dtype, v.aval.shape, v.aval.weak ?? false])).toEqual([
      ['float32', [2], false],
      ['float32', [], true],
    ]);
  });
  it('static_argnames names positional arguments too', () => {
    const r = c('def f(x, n):\n    return x * n\nprint(jax.jit(f, static_argnames="n")(jnp.ones(2), 3))\n');
    expect(jitPrograms(r)[0]!.func.params).toHaveLength(1);
  });
  it('@jax.jit(...) and @partial(jax.jit, ...) decorate', () => {
    const src = (deco: string) => `from functools import partial\n${deco}\ndef f(x, n):\n    return jnp.ones(n) * x\nprint(f(2.0, n=3))\n`;
    // the static n fixes the shape; x is the program's only parameter
    for (const deco of ['@jax.jit(static_argnames="n")', '@partial(jax.jit, static_argnames=("n",), donate_argnums=0)']) {
      const [p] = jitPrograms(c(src(deco)));
      expect(p!.func.params).toHaveLength(1);
      expect(p!.func.results[0]!.aval.shape).toEqual([3]);
    }
  });
  it('JAX errors, in its wording', () => {
    expect(() => c('def f(x, n):\n    return x\njax.jit(f, static_argnums=3)(1.0, 2)\n')).toThrow(
      'ValueError: Jitted function has static_argnums=(3,), but only accepts 2 positional arguments.',
    );
    expect(() => c('def f(x):\n    return x\njax.jit(f, 1)\n')).toThrow('TypeError: jit() takes from 0 to 1 positional arguments but 2 were given');
    expect(() => c('def f(x, n):\n    return x\njax.jit(f, static_argnums=1)(1.0, [1, 2])\n')).toThrow(
      "ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>",
    );
    expect(() => c('def f(x, s):\n    return x\njax.jit(f)(1.0, "a")\n')).toThrow("TypeError: Error interpreting argument to <function f> as an abstract array. The problematic value is of type <class 'str'>");
    expect(() => c('@jax.jit\ndef f(x):\n    return x if x > 0 else -x\nf(2.0)\n')).toThrow('TracerBoolConversionError');
    expect(() => c('jax.jit(lambda x: x, abstracted_axes=None)\n')).toThrow("jax.jit: option 'abstracted_axes' is not supported");
  });
});
