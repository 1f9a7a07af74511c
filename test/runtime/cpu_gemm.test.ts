// The CPU backend's WebAssembly matrix product (runtime/cpu/gemm.ts) and its
// reductions (runtime/cpu/reduce.ts, the walker's tree reduction): the product
// must equal the scalar loop bit for bit for every layout (transposes,
// batches, edges smaller than the register block, contractions longer than
// its cache block), and the sums must follow XLA's order.
import { describe, expect, it } from 'vitest';
import { cpuThreads, dotF32, type DotLayout } from '../../runtime/cpu/gemm.js';
import { fma32 } from '../../runtime/cpu/math.js';
import { f32Scratch, wideSum32 } from '../../runtime/cpu/reduce.js';
import { treeLevels } from '../../src/codegen/kernel_walker.js';

/**
 * The kernels' scalar loop: in order over k, float32 product then float32 sum; with the layout's `kc`,
 * XLA's order: fused multiply-adds, blocks of kc items each summed from 0, then added up.
 */
function scalar(x: Float32Array, y: Float32Array, L: DotLayout): Float32Array {
  const out = new Float32Array(L.Q * L.N);
  const kc = L.kc ?? L.K;
  for (let q = 0; q < L.Q; q++) {
    const b = Math.floor(q / L.M);
    const xr = L.x0 + (q % L.M) * L.xq + b * L.xb;
    const yr = L.y0 + b * L.yb;
    for (let j = 0; j < L.N; j++) {
      let acc = 0;
      for (let k0 = 0; k0 < L.K; k0 += kc) {
        let part = 0;
        for (let k = k0; k < Math.min(L.K, k0 + kc); k++) {
          const [a, c] = [x[xr + k * L.xk]!, y[yr + j * L.yj + k * L.yk]!];
          part = L.kc ? fma32(a, c, part) : Math.fround(part + Math.fround(a * c));
        }
        acc = Math.fround(acc + part);
      }
      out[q * L.N + j] = acc;
    }
  }
  return out;
}

let seed = 1;
const rand = (n: number): Float32Array => Float32Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1);

describe('dotF32', () => {
  const cases: [string, number, number, number, (M: number, N: number, K: number) => Omit<DotLayout, 'Q' | 'M' | 'N' | 'K'>][] = [
    ['x @ y', 1, 1, 1, (_M, N, K) => ({ x0: 0, xq: K, xb: 0, xk: 1, y0: 0, yb: 0, yj: 1, yk: N })],
    ['x.T @ y', 1, 1, 1, (M, N) => ({ x0: 0, xq: 1, xb: 0, xk: M, y0: 0, yb: 0, yj: 1, yk: N })],
    ['x @ y.T', 1, 1, 1, (_M, _N, K) => ({ x0: 0, xq: K, xb: 0, xk: 1, y0: 0, yb: 0, yj: K, yk: 1 })],
    ['batched x @ y', 3, 3, 1, (M, N, K) => ({ x0: 0, xq: K, xb: M * K, xk: 1, y0: 0, yb: K * N, yj: 1, yk: N })],
  ];
  for (const [name, xBatches, yBatches, , layout] of cases) {
    for (const [M, N, K] of [[1, 1, 1], [3, 5, 7], [4, 8, 300], [37, 19, 513], [130, 9, 40], [1, 200, 64], [200, 1, 64]]) {
      it(`${name} ${M}×${K} · ${K}×${N} equals the scalar loop`, () => {
        const batches = Math.max(xBatches, 1);
        const L: DotLayout = { Q: M * (name.startsWith('batched') ? batches : 1), M, N, K, ...layout(M!, N!, K!) };
        const x = rand(M! * K! * xBatches);
        const y = rand(K! * N! * yBatches);
        expect(Array.from(dotF32(x, y, L).subarray(0, L.Q * N!))).toEqual(Array.from(scalar(x, y, L)));
      });
    }
  }
  for (const [M, N, K, kc] of [[3, 5, 7, 7], [4, 8, 300, 300], [37, 19, 1100, 512], [130, 9, 40, 40], [1, 200, 64, 64], [5, 64, 1024, 512]] as const) {
    it(`XLA's order (fused multiply-adds, blocks of ${kc}) ${M}×${K} · ${K}×${N} equals its scalar loop`, () => {
      const L: DotLayout = { Q: M, M, N, K, x0: 0, xq: 1, xb: 0, xk: M, y0: 0, yb: 0, yj: 1, yk: N, kc };
      const x = rand(M * K);
      const y = rand(K * N);
      const fused = Array.from(dotF32(x, y, L).subarray(0, M * N));
      expect(fused).toEqual(Array.from(scalar(x, y, L)));
      // and it is another order than the plain one
      if (K > 8) expect(fused).not.toEqual(Array.from(scalar(x, y, { ...L, kc: undefined })));
    });
  }
  for (const kc of [undefined, 512]) it(`a product split across helper threads equals the scalar loop bit for bit${kc ? ' (XLA\'s order)' : ''}`, async () => {
    const [M, N, K] = [150, 270, kc ? 700 : 300]; // M·N·K above the threading threshold; edges off the blocks
    const L: DotLayout = { Q: M, M, N, K, x0: 0, xq: 1, xb: 0, xk: M, y0: 0, yb: 0, yj: 1, yk: N, ...(kc && { kc }) };
    const x = rand(M * K);
    const y = rand(K * N);
    const want = Array.from(scalar(x, y, L));
    expect(Array.from(dotF32(x, y, L).subarray(0, M * N))).toEqual(want);
    if (cpuThreads().helpers === 0) return; // no helper threads here
    // helpers start asynchronously: run until one has taken a chunk (or give up after 20 s)
    const t0 = Date.now();
    while (cpuThreads().helperChunks === 0 && Date.now() - t0 < 20_000) {
      await new Promise((r) => setTimeout(r, 20));
      expect(Array.from(dotF32(x, y, L).subarray(0, M * N))).toEqual(want);
    }
    expect(cpuThreads().helperChunks).toBeGreaterThan(0);
    expect(Array.from(dotF32(x, y, L).subarray(0, M * N))).toEqual(want);
  }, 60_000);
  it('writes into the given array and handles K = 0', () => {
    const out = new Float32Array(6).fill(7);
    dotF32(new Float32Array(0), new Float32Array(0), { Q: 2, M: 2, N: 3, K: 0, x0: 0, xq: 0, xb: 0, xk: 0, y0: 0, yb: 0, yj: 0, yk: 0 }, out);
    expect(Array.from(out)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('reductions in XLA CPU order', () => {
  it('tree levels: windows of 32 with SAME padding, to a fixed point', () => {
    expect(treeLevels(32)).toEqual([]);
    expect(treeLevels(33)).toEqual([15]);
    expect(treeLevels(1000)).toEqual([12]);
    expect(treeLevels(1025)).toEqual([15, 15]);
  });
  it('whole-array sums of 4096+ elements as JAX prints them', () => {
    const sum = (v: number, n: number): number => {
      const s = f32Scratch(n);
      s.fill(Math.fround(v), 0, n);
      return wideSum32(s, n);
    };
    expect(sum(0.1, 1e6)).toBe(100000);
    expect(sum(1, 2e7)).toBe(2e7);
  });
});
