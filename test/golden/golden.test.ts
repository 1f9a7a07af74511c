// Golden tests: every fixture is compiled, run on the CPU backend and on
// WebGPU (Dawn + SwiftShader here), and compared with real JAX's output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareOutputs } from './compare.js';
import { PENDING } from './pending.js';
import type { CompileResult } from '../../src/compile.js';
import { compileFixture, cpuBackend, goldenFixtures, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';


/**
 * Fixtures whose WebGPU output differs from XLA's only in the sign of a zero, because SwiftShader's
 * shader compiler folds `x * 0.0` to `0.0` when x is a constant of the shader (fast-math; measured: even
 * `inf * 0.0` folds to 0 there, while the same kernel on values read from buffers gives -0 and NaN).
 * On WebGPU, `-0.` compares equal to `0.` in these fixtures only.
 */
const SWIFTSHADER_FOLDS_TIMES_ZERO = new Set([
  'fixtures/tutorials/custom_derivative_rules_2.py',
  'fixtures/tutorials/complex_differentiation.py',
  'fixtures/constructs/complex_arithmetic.py',
  'fixtures/constructs/complex_grads.py',
]);
// (a complex number's zero part too: '(1-0j)' is '(1+0j)', '1.-0.j' is '1.+0.j')
const unsignZeros = (s: string): string => s.replace(/(?<![\w.])-0\.(?!\d)/g, '0.').replace(/(?<=[\d.])-0(\.?)j/g, '+0$1j');

/** Each fixture is compiled once and run on both backends. */
const compiled = new Map<string, CompileResult>();
const compileOnce = (f: string): CompileResult => {
  let r = compiled.get(f);
  if (!r) compiled.set(f, (r = compileFixture(f)));
  return r;
};

const expected = (f: string): string => readFileSync(join(ROOT, f.replace(/\.py$/, '.out')), 'utf8');

for (const backendName of ['cpu', 'webgpu'] as const) {
  describe(`golden (${backendName})`, () => {
    for (const f of goldenFixtures()) {
      const run = PENDING[f] ? it.skip : it;
      run(f, async () => {
        const backend = backendName === 'cpu' ? cpuBackend() : await webgpuBackend();
        if (!backend) return; // no adapter outside CI: webgpuBackend() throws under CI=true
        // a program on 64-bit values (jax_enable_x64) runs on the CPU backend only: a WebGPU runtime is refused, naming the op
        if (backend.kind === 'webgpu' && /^export const cpuOnly = /m.test(compileOnce(f).host)) {
          await expect(runOn(compileOnce(f), backend)).rejects.toThrow(/runs on the CPU backend only: \w+ on 64-bit values/);
          return;
        }
        const actual = await runOn(compileOnce(f), backend);
        const loose = backendName === 'webgpu' && SWIFTSHADER_FOLDS_TIMES_ZERO.has(f);
        const opts = { subnormalsMayFlush: backendName === 'webgpu' };
        const r = loose ? compareOutputs(unsignZeros(expected(f)), unsignZeros(actual), opts) : compareOutputs(expected(f), actual, opts);
        expect(r.ok, r.message).toBe(true);
      });
    }
  });
}
