// runtime/cpu/random.ts: the written-out threefry2x32 (the CPU kernels' random bits) gives the words of the
// loop over its rounds, and JAX's published test vector.
import { describe, expect, it } from 'vitest';
import { threefry2x32, threefry2x32Rounds } from '../../runtime/cpu/random.js';

describe('threefry2x32 written out', () => {
  it("matches JAX's known-answer vector", () => {
    // jax/_src/prng.py tests: key (0x13198a2e, 0x03707344), counter (0x243f6a88, 0x85a308d3)
    expect(threefry2x32(0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3)).toEqual([0xc4923a9c, 0x483df7a0]);
  });

  it('equals the loop over the rounds on edge and random words', () => {
    const edges = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x1bd11bda];
    let s = 12345;
    const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0);
    const words: number[][] = [];
    for (const a of edges) for (const b of edges) words.push([a, b, next(), next()], [next(), next(), a, b]);
    for (let i = 0; i < 20000; i++) words.push([next(), next(), next(), next()]);
    for (const [k0, k1, c0, c1] of words) expect(threefry2x32(k0!, k1!, c0!, c1!)).toEqual(threefry2x32Rounds(k0!, k1!, c0!, c1!));
  });
});
