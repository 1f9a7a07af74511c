// jax.numpy functions that JAX compiles with jit, called outside jit: XLA compiles each call as one
// computation, so its rewrites (fused multiply-adds, the algebraic simplifier) apply among the
// function's own operations even in op-by-op code (src/lower/jnp_jitted.ts marks them, the passes
// treat each marked call as a jit program). Against real JAX's bits in fixtures/reference/jnp_jitted.out:
// bit for bit on the CPU backend (but the measured cases below: before, linspace(-3, 3, 1001) differed
// in 610 elements, cross, hypot, logspace, geomspace in dozens), within float32 tolerance on WebGPU.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bitsToF32 } from '../../runtime/cpu/math.js';
import { compileFixture, cpuBackend, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/jnp_jitted.py';

/**
 * Elements the CPU backend computes differently from XLA, as measured, and why:
 * - linspace: LLVM evaluates the last, scalar iterations of XLA's loop (992..999) with `1 - i/1000`
 *   folded as a constant at compile time, rounded twice, where the vector loop fuses it (one element);
 * - linspace_open: LLVM unrolls XLA's 300-element loop completely and folds `1 - i·(1/300)` into
 *   constants at compile time, rounded twice (read from XLA's optimised LLVM IR), where jaxts fuses it;
 * - trapezoid, average, cov: sums over the last axis whose summand is a product, in XLA's vectorised
 *   row loop (not yet modelled); std_axis: 4 of 257 (was 28 before sums over a major axis accumulated
 *   a fused product with one rounding, as XLA's loop does).
 */
const KNOWN_CPU: Record<string, number> = { linspace: 1, linspace_open: 57, std_axis: 4, trapezoid: 6, average: 1, cov: 10 };

/**
 * WebGPU: shader compilers may reassociate and contract float arithmetic (WGSL allows it; SwiftShader
 * folds `(x * 3.3) * 100` into `x * 330`), so results are compared within float32 tolerance;
 * `round` is left out: a reassociated product before rounding to 2 decimals moves the result by 0.01.
 */
const SKIP_WEBGPU = new Set(['round']);

const byName = (text: string): Map<string, number[]> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), [...l.slice(l.indexOf(' ') + 1).matchAll(/\d+/g)].map((m) => Number(m[0]))]));

describe('jitted jax.numpy functions outside jit round as XLA compiles them', async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const compiled = compileFixture(FIXTURE);
  describe('cpu: bit for bit', async () => {
    const actual = byName(await runOn(compiled, cpuBackend()));
    for (const [name, bits] of expected) {
      it(name, () => {
        const got = actual.get(name) ?? [];
        expect(got.length, `${name}: results`).toBe(bits.length);
        const differing = bits.flatMap((b, i) => (got[i] === b ? [] : [i]));
        expect(differing.length, `${name}: differing elements ${differing.slice(0, 8).join(', ')}`).toBeLessThanOrEqual(KNOWN_CPU[name] ?? 0);
      });
    }
  });
  describe('webgpu: within float32 tolerance', async () => {
    const backend = await webgpuBackend();
    const actual = backend ? byName(await runOn(compiled, backend)) : new Map<string, number[]>();
    for (const [name, bits] of expected) {
      it.skipIf(!backend || SKIP_WEBGPU.has(name))(name, () => {
        const got = actual.get(name) ?? [];
        expect(got.length, `${name}: results`).toBe(bits.length);
        // (relative to the result's largest magnitude: sums with cancellation, values crossing zero)
        const scale = Math.max(1, ...bits.map((b) => Math.abs(bitsToF32(b))));
        const far = bits.flatMap((b, i) => {
          const [want, have] = [bitsToF32(b), bitsToF32(got[i]!)];
          return Math.abs(want - have) <= 1e-5 * scale ? [] : [`#${i}: ${have} (JAX ${want})`];
        });
        expect(far, name).toEqual([]);
      });
    }
  });
});

// the same under transformations JAX runs op by op (jacfwd, jacrev, jvp, grad, vmap outside jit): a jitted
// function and its derivative stay one computation (before: jacfwd, the Hessian, jvp and vmap of jvp differed)
describe('jitted jax.numpy functions under op-by-op transformations round as XLA compiles them', async () => {
  const fixture = 'fixtures/reference/jnp_jitted_transformed.py';
  const expected = byName(readFileSync(join(ROOT, fixture.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(fixture), cpuBackend()));
  for (const [name, bits] of expected) {
    it(`cpu: ${name} bit for bit`, () => expect(actual.get(name)).toEqual(bits));
  }
});
