// Sums for the CPU backend's kernels that follow the accumulation order of
// XLA CPU's library reduction (YNNPACK, which JAX's CPU build uses for a
// reduction of 4096 or more elements): the summands, stored in a scratch
// array by the kernel, are added in blocks of 64 into 32 lanes, the lanes
// folded pairwise across the blocks (first half onto the second half), the 32
// lanes folded the same way, then the leftover elements after the last whole
// block added in order. Matched against real JAX's printed sums.

let scratch = new Float32Array(0);

/** A reused float32 array of at least `n` elements (its contents are garbage). */
export function f32Scratch(n: number): Float32Array {
  if (scratch.length < n) scratch = new Float32Array(Math.max(n, scratch.length * 2));
  return scratch;
}

const LANES = 32;
const BLOCK = 64;

/** The float32 sum of x[0..n) in YNNPACK's order (x is overwritten). */
export function wideSum32(x: Float32Array, n: number): number {
  const blocks = Math.floor(n / BLOCK);
  // block b's lane j: x[64b + j] + x[64b + 32 + j], stored at x[32b + j]
  for (let b = 0; b < blocks; b++) {
    const src = b * BLOCK;
    const dst = b * LANES;
    for (let j = 0; j < LANES; j++) x[dst + j] = Math.fround(x[src + j]! + x[src + LANES + j]!);
  }
  // fold the blocks: row i += row i + h (a missing row counts as zeros)
  for (let m = blocks; m > 1; ) {
    const h = Math.ceil(m / 2);
    for (let i = 0; i + h < m; i++) {
      const a = i * LANES;
      const b = (i + h) * LANES;
      for (let j = 0; j < LANES; j++) x[a + j] = Math.fround(x[a + j]! + x[b + j]!);
    }
    m = h;
  }
  let acc = 0;
  if (blocks > 0) {
    for (let m = LANES; m > 1; m /= 2) {
      const h = m / 2;
      for (let j = 0; j < h; j++) x[j] = Math.fround(x[j]! + x[j + h]!);
    }
    acc = x[0]!;
  }
  for (let i = blocks * BLOCK; i < n; i++) acc = Math.fround(acc + x[i]!);
  return acc;
}
