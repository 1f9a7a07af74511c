// Float32 sums of an operand of 4096 or more elements (whole arrays, rows of any length, columns of sums
// over leading or middle axes), bit for bit on both backends: the order in which XLA CPU's library
// reduction (YNNPACK) adds them (runtime/cpu/reduce.ts; WGSL's libraryLoops in src/codegen/wgsl.ts),
// against real JAX's bits in fixtures/reference/reduction_order_wide.out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, cpuBackend, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/reduction_order_wide.py';

const byName = (text: string): Map<string, string> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));

const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
const compiled = compileFixture(FIXTURE);

describe('wide float32 sums add in XLA CPU\'s library order (CPU backend)', async () => {
  const actual = byName(await runOn(compiled, cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});

describe('wide float32 sums add in XLA CPU\'s library order (WebGPU)', async () => {
  const backend = await webgpuBackend();
  const actual = backend ? byName(await runOn(compiled, backend)) : undefined;
  for (const [name, bits] of expected) {
    it.skipIf(!actual)(name, () => expect(actual!.get(name)).toBe(bits));
  }
});
