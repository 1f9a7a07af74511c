// jax.numpy functions that JAX compiles with jit, called outside jit: XLA compiles each call as one
// computation, so its rewrites (fused multiply-adds, the algebraic simplifier) apply among the
// function's own operations even in op-by-op code (src/lower/jnp_jitted.ts marks them, the passes
// treat each marked call as a jit program). Bit for bit against real JAX's values in
// fixtures/reference/jnp_jitted.out, on both backends.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/jnp_jitted.py';

const byName = (text: string): Map<string, number[]> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), [...l.slice(l.indexOf(' ') + 1).matchAll(/\d+/g)].map((m) => Number(m[0]))]));

/** The indices where two lists of bits differ (a length mismatch counts as a difference at the end). */
const differing = (a: number[] | undefined, b: number[]): number[] => {
  if (!a || a.length !== b.length) return [-1];
  return b.flatMap((v, i) => (a[i] === v ? [] : [i]));
};

describe('jitted jax.numpy functions outside jit round as XLA compiles them', async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const compiled = compileFixture(FIXTURE);
  for (const backendName of ['cpu', 'webgpu'] as const) {
    describe(backendName, async () => {
      const backend = backendName === 'cpu' ? cpuBackend() : await webgpuBackend();
      const actual = backend ? byName(await runOn(compiled, backend)) : new Map<string, number[]>();
      for (const [name, bits] of expected) {
        it.skipIf(!backend)(name, () => expect(differing(actual.get(name), bits), `${name}: differing elements`).toEqual([]));
      }
    });
  }
});
