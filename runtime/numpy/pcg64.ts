// numpy.random.default_rng's bit generator, run inside the compiler like the
// legacy RandomState (lib_numpy_random.ts): SeedSequence (NumPy's hash-mixing
// of the seed's 32-bit words into a 4-word pool), PCG64 (128-bit LCG with the
// XSL-RR output; 32-bit draws split a 64-bit one, low half first), and the
// Generator's draws bit for bit: 53-bit doubles, the ziggurat standard normal
// (numpy/random/src/distributions/distributions.c), Lemire's bounded integers,
// and random_interval for shuffles.
import { FI_DOUBLE, KI_DOUBLE, WI_DOUBLE, ZIGGURAT_NOR_INV_R, ZIGGURAT_NOR_R } from './ziggurat.js';

const M32 = 0xffffffffn;
const M64 = (1n << 64n) - 1n;
const M128 = (1n << 128n) - 1n;
const MULT = (2549297995355413924n << 64n) | 4865540595714422341n;

const INIT_A = 0x43b0d7e5;
const MULT_A = 0x931e8875;
const INIT_B = 0x8b51f9dd;
const MULT_B = 0x58f38ded;
const MIX_MULT_L = 0xca01f9dd;
const MIX_MULT_R = 0x4973f715;
const POOL_SIZE = 4;

/** _int_to_uint32_array: a non-negative int as 32-bit words, lowest first (0 is one word). */
export function uint32Words(n: bigint): number[] {
  if (n === 0n) return [0];
  const out: number[] = [];
  for (; n > 0n; n >>= 32n) out.push(Number(n & M32));
  return out;
}

/** SeedSequence(entropy).generate_state(nWords, uint64), the entropy assembled (with its spawn key). */
export function seedSequenceState(entropy: readonly number[], nWords64: number): bigint[] {
  const words = seedSequenceWords(entropy, 2 * nWords64);
  return Array.from({ length: nWords64 }, (_, k) => BigInt(words[2 * k]!) | (BigInt(words[2 * k + 1]!) << 32n));
}

/** SeedSequence's generate_state(nWords32, uint32) of its assembled entropy (32-bit words). */
export function seedSequenceWords(entropy: readonly number[], nWords32: number): number[] {
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    value = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    value = Math.imul(value, hashConst) >>> 0;
    return (value ^ (value >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = Array.from({ length: POOL_SIZE }, (_, i) => hashmix(i < entropy.length ? entropy[i]! : 0));
  for (let src = 0; src < POOL_SIZE; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!));
  }
  for (let src = POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < POOL_SIZE; dst++) pool[dst] = mix(pool[dst]!, hashmix(entropy[src]!));
  }
  let h = INIT_B;
  const words: number[] = [];
  for (let i = 0; i < nWords32; i++) {
    let v = (pool[i % POOL_SIZE]! ^ h) >>> 0;
    h = Math.imul(h, MULT_B) >>> 0;
    v = Math.imul(v, h) >>> 0;
    words.push((v ^ (v >>> 16)) >>> 0);
  }
  return words;
}

export class PCG64 {
  private state = 0n;
  private inc = 0n;
  private hasUint32 = false;
  private uinteger = 0;

  /** PCG64(seed): seeded from SeedSequence(seed)'s four 64-bit words (state high/low, increment high/low). */
  constructor(entropy: readonly number[]) {
    const [s0, s1, i0, i1] = seedSequenceState(entropy, 4) as [bigint, bigint, bigint, bigint];
    this.inc = (((i0 << 64n) | i1) << 1n | 1n) & M128;
    this.step();
    this.state = (this.state + ((s0 << 64n) | s1)) & M128;
    this.step();
  }

  /** A generator in the state `recipe()` gave (the 128-bit words as hex strings). */
  static fromState(state: string, inc: string, hasUint32: boolean, uinteger: number): PCG64 {
    const g = Object.create(PCG64.prototype) as PCG64;
    [g.state, g.inc, g.hasUint32, g.uinteger] = [BigInt(state), BigInt(inc), hasUint32, uinteger];
    return g;
  }

  /** fromState's arguments for this generator's current state. */
  recipe(): [state: string, inc: string, hasUint32: boolean, uinteger: number] {
    return [`0x${this.state.toString(16)}`, `0x${this.inc.toString(16)}`, this.hasUint32, this.uinteger];
  }

  private step(): void {
    this.state = (this.state * MULT + this.inc) & M128;
  }

  next64(): bigint {
    this.step();
    const x = ((this.state >> 64n) ^ this.state) & M64;
    const rot = this.state >> 122n;
    return ((x >> rot) | (x << ((64n - rot) & 63n))) & M64;
  }

  next32(): number {
    if (this.hasUint32) {
      this.hasUint32 = false;
      return this.uinteger;
    }
    const n = this.next64();
    this.hasUint32 = true;
    this.uinteger = Number(n >> 32n);
    return Number(n & M32);
  }

  /** next_double: the top 53 bits of a 64-bit draw, in [0, 1). */
  nextDouble(): number {
    return Number(this.next64() >> 11n) / 9007199254740992;
  }

  /** random_standard_normal: the ziggurat with 256 layers and its exact tail. */
  standardNormal(): number {
    for (;;) {
      let r = this.next64();
      const idx = Number(r & 0xffn);
      r >>= 8n;
      const sign = Number(r & 1n);
      const rabs = Number((r >> 1n) & 0x000fffffffffffffn);
      let x = rabs * WI_DOUBLE[idx]!;
      if (sign) x = -x;
      if (rabs < KI_DOUBLE[idx]!) return x;
      if (idx === 0) {
        for (;;) {
          const xx = -ZIGGURAT_NOR_INV_R * Math.log1p(-this.nextDouble());
          const yy = -Math.log1p(-this.nextDouble());
          if (yy + yy > xx * xx) return Math.floor(rabs / 256) % 2 ? -(ZIGGURAT_NOR_R + xx) : ZIGGURAT_NOR_R + xx;
        }
      }
      if ((FI_DOUBLE[idx - 1]! - FI_DOUBLE[idx]!) * this.nextDouble() + FI_DOUBLE[idx]! < Math.exp(-0.5 * x * x)) return x;
    }
  }

  /** random_bounded_uint64(off=0, rng) with Lemire's method: an integer in [0, rng]. */
  bounded(rng: bigint): bigint {
    if (rng === 0n) return 0n;
    if (rng <= M32) {
      if (rng === M32) return BigInt(this.next32());
      const excl = rng + 1n;
      let m = BigInt(this.next32()) * excl;
      let left = m & M32;
      if (left < excl) {
        const threshold = (M32 - rng) % excl;
        while (left < threshold) {
          m = BigInt(this.next32()) * excl;
          left = m & M32;
        }
      }
      return m >> 32n;
    }
    if (rng === M64) return this.next64();
    const excl = rng + 1n;
    let m = this.next64() * excl;
    let left = m & M64;
    if (left < excl) {
      const threshold = (M64 - rng) % excl;
      while (left < threshold) {
        m = this.next64() * excl;
        left = m & M64;
      }
    }
    return m >> 64n;
  }

  /** random_interval(max): masked rejection, 32-bit draws when max fits in 32 bits. */
  interval(max: number): number {
    if (max === 0) return 0;
    let mask = BigInt(max);
    for (let sh = 1n; sh <= 32n; sh *= 2n) mask |= mask >> sh;
    const m = BigInt(max);
    let v: bigint;
    if (max <= 0xffffffff) while ((v = BigInt(this.next32()) & mask) > m);
    else while ((v = this.next64() & mask) > m);
    return Number(v);
  }
}
