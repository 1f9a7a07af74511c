// Whole-array float32 sums of 4096 or more elements, and sums over the last axes of 4096 or more
// elements (each row alike), bit for bit on the CPU backend: the order in
// which XLA CPU's library reduction (YNNPACK) adds them (runtime/cpu/reduce.ts), against real JAX's
// bits in fixtures/reference/reduction_order_wide.out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/reduction_order_wide.py';

const byName = (text: string): Map<string, string> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));

describe('wide float32 sums add in XLA CPU\'s library order', async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(FIXTURE), cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});
