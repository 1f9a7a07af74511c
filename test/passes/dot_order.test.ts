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

/** XLA's canonical (M × K) · (K × N) as one pair of a batch (only the canonical rules apply). */
const canonical = (M: number, K: number, N: number) => xlaDotOrder([1, M, K], [1, K, N], { contract: [[2], [1]], batch: [[0], [0]] }, true)?.order;
/** lax.dot_general of two unbatched operands contracting axis `lc` of `a` and `rc` of `b`. */
const layout = (a: number[], b: number[], lc: number, rc: number) => xlaDotOrder(a, b, { contract: [[lc], [rc]], batch: [[], []] }, true);

describe("XLA CPU's dot orders by shape", () => {
  it('picks the measured order of each kind of product', () => {
    // (M, K, N)
    expect(canonical(8, 16, 1)).toEqual({ lanes: 8, fold: 'pairs', block: 16 });
    expect(canonical(1, 16, 8)).toEqual({ lanes: 1, fold: 'pairs', block: 16 });
    expect(canonical(4, 3, 5)).toEqual({ lanes: 1, fold: 'pairs', block: 3 });
    expect(canonical(4, 4, 4)).toEqual({ lanes: 1, fold: 'pairs', block: 4 });
    expect(canonical(32, 128, 8)).toEqual({ lanes: 4, fold: 'pairs', block: 128 });
    expect(canonical(32, 784, 128)).toEqual({ lanes: 1, fold: 'pairs', block: 512 });
    expect(canonical(4, 784, 128)).toEqual({ lanes: 1, fold: 'pairs', block: 256 });
    expect(canonical(32, 128, 128)).toEqual({ lanes: 1, fold: 'pairs', block: 128 });
    expect(canonical(128, 64, 64)).toEqual({ lanes: 1, fold: 'pairs', block: 64 });
    // K = 4j + 1 in the product of few columns: 4 accumulators and the last product after them (the walker's
    // tail), also at 64 or fewer multiply-adds; in order for N ≥ 10 up to K = 17 (and K = 10)
    expect(canonical(3, 9, 2)).toEqual({ lanes: 4, fold: 'pairs', block: 9 });
    expect(canonical(2, 301, 3)).toEqual({ lanes: 4, fold: 'pairs', block: 301 });
    expect(canonical(8, 21, 16)).toEqual({ lanes: 4, fold: 'pairs', block: 21 });
    expect(canonical(10, 10, 10)).toEqual({ lanes: 1, fold: 'pairs', block: 10 });
    expect(canonical(16, 13, 16)).toEqual({ lanes: 1, fold: 'pairs', block: 13 });
    expect(canonical(8, 6, 8)).toBeUndefined();
    // not measured: the plain order
    expect(canonical(64, 64, 32)).toBeUndefined();
    expect(canonical(24, 784, 128)).toBeUndefined();
    expect(canonical(1, 64, 1)).toBeUndefined();
    expect(canonical(4, 16, 1)).toBeUndefined();
  });

  it('reads the layout of matrix-vector and narrow products first', () => {
    // a (20, 16) matrix times a vector along its rows: 8 lanes, rows 16.. (after the whole tiles) folded in halves
    expect(layout([20, 16], [16], 1, 0)).toEqual({ order: { lanes: 8, fold: 'pairs', block: 16 }, halvesFrom: 16 });
    expect(layout([16], [24, 16], 0, 1)).toEqual({ order: { lanes: 8, fold: 'pairs', block: 16 } });
    // down its columns, or rows shorter than the lanes: in order
    expect(layout([16, 20], [16], 0, 0)).toEqual({ order: { lanes: 1, fold: 'pairs', block: 16 } });
    expect(layout([20, 5], [5], 1, 0)).toEqual({ order: { lanes: 1, fold: 'pairs', block: 5 } });
    expect(layout([7], [7], 0, 0)).toEqual({ order: { lanes: 1, fold: 'pairs', block: 7 } });
    expect(layout([3, 5], [5, 4], 1, 0)?.order).toEqual({ lanes: 1, fold: 'pairs', block: 5 });
    expect(layout([2, 6, 12], [12, 3], 2, 0)?.order).toEqual({ lanes: 4, fold: 'pairs', block: 12 });
    // not float32 operands: the layout rules only
    expect(xlaDotOrder([1, 4, 8], [1, 8, 4], { contract: [[2], [1]], batch: [[0], [0]] }, false)).toBeUndefined();
  });
});

describe("float32 products add in XLA CPU's order (CPU backend)", async () => {
  const expected = byName(readFileSync(join(ROOT, FIXTURE.replace(/\.py$/, '.out')), 'utf8'));
  const actual = byName(await runOn(compileFixture(FIXTURE), cpuBackend()));
  for (const [name, bits] of expected) {
    it(name, () => expect(actual.get(name)).toBe(bits));
  }
});
