// The sums of float32 dots of matrices and vectors, bit for bit on the CPU backend, in the order of
// XLA's CPU emitters (src/passes/index_rules.ts dotOrder, src/codegen/kernel_walker.ts),
// against real JAX's bits in fixtures/reference/gemv_order.out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/gemv_order.py';

const byName = (text: string): Map<string, string> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));

describe('matrix-vector products sum as XLA CPU orders them', async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(FIXTURE), cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});
