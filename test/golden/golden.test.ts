// Golden tests: every fixture is compiled, run on the CPU backend and on
// WebGPU (Dawn + SwiftShader here), and compared with real JAX's output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareOutputs } from './compare.js';
import { compileFixture, cpuBackend, goldenFixtures, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';

/** Fixtures that need a feature of a later issue; they are skipped, with the reason. */
export const PENDING: Record<string, string> = {
};

const expected = (f: string): string => readFileSync(join(ROOT, f.replace(/\.py$/, '.out')), 'utf8');

for (const backendName of ['cpu', 'webgpu'] as const) {
  describe(`golden (${backendName})`, () => {
    for (const f of goldenFixtures()) {
      const run = PENDING[f] ? it.skip : it;
      run(f, async () => {
        const backend = backendName === 'cpu' ? cpuBackend() : await webgpuBackend();
        if (!backend) return; // no adapter outside CI: webgpuBackend() throws under CI=true
        const actual = await runOn(compileFixture(f), backend);
        const r = compareOutputs(expected(f), actual, { subnormalsMayFlush: backendName === 'webgpu' });
        expect(r.ok, r.message).toBe(true);
      });
    }
  });
}
