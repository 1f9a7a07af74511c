// XLA's arithmetic rewrites inside jit, bit for bit on the CPU backend: the algebraic simplifier's
// float-changing rules (src/passes/xla_algebraic.ts) and LLVM's fused multiply-adds
// (src/passes/fma_contraction.ts), against real JAX's bits in fixtures/reference/xla_jit_rewrites.out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/xla_jit_rewrites.py';

const byName = (text: string): Map<string, string> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));

describe('jit programs round as XLA CPU rewrites them', async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(FIXTURE), cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});
