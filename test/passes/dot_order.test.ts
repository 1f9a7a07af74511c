// Float32 matrix products of several shapes, bit for bit on the CPU backend: the order in which XLA's
// CPU backend adds each contraction (src/passes/dot_order.ts; runtime/cpu/gemm.ts's gemm_fma for the
// large ones), against real JAX's bits in fixtures/reference/dot_order.out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { xlaDotOrder } from '../../src/passes/dot_order.js';
import { compileFixture, cpuBackend, ROOT, runOn } from '../helpers/fixtures.js';

const FIXTURE = 'fixtures/reference/dot_order.py';

const byName = (text: string): Map<string, string> =>
  new Map(text.trim().split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));

describe("XLA CPU's dot orders by shape", () => {
  it('picks the measured order of each kind of product', () => {
    // (M, K, N)
    expect(xlaDotOrder(8, 16, 1)).toEqual({ lanes: 8, block: 16 });
    expect(xlaDotOrder(1, 16, 8)).toEqual({ lanes: 1, block: 16 });
    expect(xlaDotOrder(4, 3, 5)).toEqual({ lanes: 1, block: 3 });
    expect(xlaDotOrder(4, 4, 4)).toEqual({ lanes: 1, block: 4 });
    expect(xlaDotOrder(32, 128, 8)).toEqual({ lanes: 4, block: 128 });
    expect(xlaDotOrder(32, 784, 128)).toEqual({ lanes: 1, block: 512 });
    expect(xlaDotOrder(4, 784, 128)).toEqual({ lanes: 1, block: 256 });
    expect(xlaDotOrder(32, 128, 128)).toEqual({ lanes: 1, block: 128 });
    expect(xlaDotOrder(128, 64, 64)).toEqual({ lanes: 1, block: 64 });
    // not measured: the plain order
    expect(xlaDotOrder(64, 64, 32)).toBeUndefined();
    expect(xlaDotOrder(24, 784, 128)).toBeUndefined();
    expect(xlaDotOrder(1, 64, 1)).toBeUndefined();
    expect(xlaDotOrder(4, 16, 1)).toBeUndefined();
  });
});

describe("float32 products add in XLA CPU's order (CPU backend)", async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(FIXTURE), cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});
