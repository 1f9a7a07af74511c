// The rounding of jnp.linspace (src/passes/fma_contraction.ts: `constant ± iota·constant` below 352
// elements is not contracted, as XLA folds it), bit for bit on the CPU backend against real JAX's
// output (fixtures/reference/linspace_bits.out, line by line). WebGPU differs: SwiftShader's fma()
// rounds twice (docs/ISSUE19_CHECKLIST.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/linspace_bits.py';

describe('jnp.linspace rounds as XLA CPU does', async () => {
  const expected = readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8').trim().split('\n');
  const actual = (await runOn(compileFixture(FIXTURE), cpuBackend())).trim().split('\n');
  expected.forEach((line, i) => it(`line ${i + 1}`, () => expect(actual[i]).toBe(line)));
});
