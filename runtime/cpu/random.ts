// JAX's threefry2x32 PRNG block for CPU kernels: 20 rounds with a key
// injection every 4, on uint32 words (JS numbers kept in [0, 2^32)).
const ROTATIONS = [13, 15, 26, 6, 17, 29, 16, 24] as const;

/**
 * threefry2x32(key = (k0, k1), counter = (c0, c1)) → the two output words. The rounds are written out (constant
 * rotations, the key schedule in locals, int32 words wrapped by `| 0`): a kernel calls this once per random element.
 */
export function threefry2x32(k0: number, k1: number, c0: number, c1: number): [number, number] {
  const a = k0 | 0;
  const b = k1 | 0;
  const c = a ^ b ^ 0x1bd11bda;
  let x0 = (c0 + a) | 0;
  let x1 = (c1 + b) | 0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 13) | (x1 >>> 19)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 15) | (x1 >>> 17)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 26) | (x1 >>> 6)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 6) | (x1 >>> 26)) ^ x0;
  x0 = (x0 + b) | 0;
  x1 = (x1 + c + 1) | 0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 17) | (x1 >>> 15)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 29) | (x1 >>> 3)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 16) | (x1 >>> 16)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 24) | (x1 >>> 8)) ^ x0;
  x0 = (x0 + c) | 0;
  x1 = (x1 + a + 2) | 0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 13) | (x1 >>> 19)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 15) | (x1 >>> 17)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 26) | (x1 >>> 6)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 6) | (x1 >>> 26)) ^ x0;
  x0 = (x0 + a) | 0;
  x1 = (x1 + b + 3) | 0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 17) | (x1 >>> 15)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 29) | (x1 >>> 3)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 16) | (x1 >>> 16)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 24) | (x1 >>> 8)) ^ x0;
  x0 = (x0 + b) | 0;
  x1 = (x1 + c + 4) | 0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 13) | (x1 >>> 19)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 15) | (x1 >>> 17)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 26) | (x1 >>> 6)) ^ x0;
  x0 = (x0 + x1) | 0;
  x1 = ((x1 << 6) | (x1 >>> 26)) ^ x0;
  x0 = (x0 + c) | 0;
  x1 = (x1 + a + 5) | 0;
  return [x0 >>> 0, x1 >>> 0];
}

/** The same function as a loop over the rounds (the reference the written-out one is tested against). */
export function threefry2x32Rounds(k0: number, k1: number, c0: number, c1: number): [number, number] {
  const ks = [k0 >>> 0, k1 >>> 0, (k0 ^ k1 ^ 0x1bd11bda) >>> 0];
  let x0 = (c0 + ks[0]!) >>> 0;
  let x1 = (c1 + ks[1]!) >>> 0;
  for (let g = 0; g < 5; g++) {
    for (let r = 0; r < 4; r++) {
      const rot = ROTATIONS[(g % 2) * 4 + r]!;
      x0 = (x0 + x1) >>> 0;
      x1 = (((x1 << rot) | (x1 >>> (32 - rot))) ^ x0) >>> 0;
    }
    x0 = (x0 + ks[(g + 1) % 3]!) >>> 0;
    x1 = (x1 + ks[(g + 2) % 3]! + g + 1) >>> 0;
  }
  return [x0, x1];
}
