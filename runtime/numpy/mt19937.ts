// NumPy's legacy bit generator, shared by the compiler (np.random at compile
// time, src/lower/lib_numpy_random.ts) and by generated code (np.random at run
// time, runtime/numpy/random.ts): MT19937 with Knuth's init_genrand (int seeds)
// or init_by_array (sequence seeds), 53-bit doubles, the polar Box–Muller
// Gaussian with its cached second value, and masked rejection sampling for
// integers. The Gaussian needs glibc's `log`, which is correctly rounded where
// JS Math.log is not, so `log` here is evaluated in double-double arithmetic
// and rounded once.

// ------------------------------------------------------------ correctly rounded log

import { twoProd, twoSum, type DD } from '../double_double.js';

// The double-double operations of `log` write their result to these two
// registers rather than returning a pair: `log` runs once per Gaussian draw
// (millions for a large np.random.normal), and a pair per operation made it
// spend most of its time allocating. The arithmetic is that of the pair form.
let H = 0;
let L = 0;

/** (H, L) = a + b, double-double. */
function ddAdd(a0: number, a1: number, b0: number, b1: number): void {
  // twoSum(a0, b0), twoSum(a1, b1)
  const s = a0 + b0;
  const sb = s - a0;
  const e = a0 - (s - sb) + (b0 - sb);
  const t = a1 + b1;
  const tb = t - a1;
  const f = a1 - (t - tb) + (b1 - tb);
  // quickTwoSum(s, e + t), then quickTwoSum(s2, e2 + f)
  const et = e + t;
  const s2 = s + et;
  const e2 = et - (s2 - s);
  const ef = e2 + f;
  H = s2 + ef;
  L = ef - (H - s2);
}

/** (H, L) = a * b, double-double. */
function ddMul(a0: number, a1: number, b0: number, b1: number): void {
  // twoProd(a0, b0)
  const p = a0 * b0;
  const t = 134217729 * a0;
  const ah = t - (t - a0);
  const al = a0 - ah;
  const u = 134217729 * b0;
  const bh = u - (u - b0);
  const bl = b0 - bh;
  const e = ah * bh - p + ah * bl + al * bh + al * bl;
  // quickTwoSum(p, e + cross)
  const c = e + (a0 * b1 + a1 * b0);
  H = p + c;
  L = c - (H - p);
}

/** (H, L) = a / b, double-double. */
function ddDiv(a0: number, a1: number, b0: number, b1: number): void {
  const q1 = a0 / b0;
  ddMul(b0, b1, -q1, 0);
  ddAdd(a0, a1, H, L);
  const q2 = H / b0;
  const r0 = H;
  const r1 = L;
  ddMul(b0, b1, -q2, 0);
  ddAdd(r0, r1, H, L);
  const q3 = H / b0;
  const s = q1 + q2;
  const e = q2 - (s - q1);
  ddAdd(s, e, q3, 0);
}

/** ln 2 to 106 bits. */
const LN2: DD = [0.6931471805599453, 2.3190468138462996e-17];
/** 1/(2j+1) as double-doubles: the atanh series of log. */
const ODD_RECIPROCALS: DD[] = Array.from({ length: 11 }, (_, j) => {
  const d = 2 * j + 1;
  const hi = 1 / d;
  const [p, e] = twoProd(hi, d);
  return [hi, (1 - p - e) / d] as DD;
});
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/**
 * Natural log, correctly rounded (as glibc's `log` is in practice; JS Math.log
 * is off by one ulp on a few percent of inputs). x = 2^k m with m in [√½, √2),
 * log m = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172, summed in double-double.
 */
export function log(x: number): number {
  if (!(x > 0) || x === Infinity) return x === 0 ? -Infinity : x === Infinity ? x : NaN;
  if (x === 1) return 0;
  let k = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984; // 2^54
    k = -54;
  }
  f64[0] = x;
  k += ((u32[1]! >>> 20) & 0x7ff) - 1023;
  u32[1] = (u32[1]! & 0x000fffff) | 0x3ff00000;
  let m = f64[0];
  if (m > Math.SQRT2) {
    m /= 2;
    k += 1;
  }
  const [m1, m0] = twoSum(m, 1);
  ddDiv(m - 1, 0, m1, m0);
  const s0 = H;
  const s1 = L;
  // Fast path (Ziv's): log m = 2s + c with c = 2 s^3 (1/3 + s^2/5 + ...) summed in plain doubles, the rest in
  // double-double. Where the sum is farther than its error bound from a rounding boundary, its rounding is
  // the one the full double-double sum below rounds to (that sum is within 2^-100 of the true value too);
  // otherwise (a few percent of inputs) the full sum decides.
  {
    const z = s0 * s0;
    let p = 0;
    for (let j = 13; j >= 1; j--) p = p * z + 1 / (2 * j + 1);
    const c = 2 * s0 * z * p;
    ddMul(LN2[0], LN2[1], k, 0);
    ddAdd(H, L, 2 * s0, 2 * s1);
    ddAdd(H, L, c, 0);
    const y = H + L;
    const rho = H - y + L;
    const err = 2 ** -50 * Math.abs(c) + 2 ** -56 * Math.abs(s0) + 2 ** -90 * (Math.abs(k) + 1);
    f64[0] = y;
    const exponent = (u32[1]! >>> 20) & 0x7ff;
    const powerOfTwo = (u32[1]! & 0x000fffff) === 0 && u32[0] === 0;
    // half an ulp of y (y is a normal number: |log x| > 2^-54 for x != 1)
    const halfUlp = 2 ** (exponent - 1023 - 53);
    if (!powerOfTwo && Math.abs(rho) + err < halfUlp) return y;
  }
  ddMul(s0, s1, s0, s1);
  const q0 = H;
  const q1 = L;
  // terms j >= 11 are below 2^-55 of the sum: plain doubles are enough there
  let tail = 0;
  for (let j = 21; j >= 11; j--) tail = tail * q0 + 1 / (2 * j + 1);
  let acc0 = tail;
  let acc1 = 0;
  for (let j = 10; j >= 0; j--) {
    ddMul(acc0, acc1, q0, q1);
    const c = ODD_RECIPROCALS[j]!;
    ddAdd(H, L, c[0], c[1]);
    acc0 = H;
    acc1 = L;
  }
  ddMul(s0, s1, acc0, acc1);
  const lm0 = H;
  const lm1 = L;
  ddMul(LN2[0], LN2[1], k, 0);
  ddAdd(H, L, 2 * lm0, 2 * lm1);
  return H + L;
}

// ------------------------------------------------------------ MT19937 and NumPy's legacy distributions

export const N = 624;
const M = 397;

/** The state of one legacy RandomState: the MT19937 key and the cached Gaussian. */
export class MT19937 {
  private readonly key = new Uint32Array(N);
  private pos = N;
  private hasGauss = false;
  private gaussNext = 0;
  /** The int seed it was last seeded with, and the 32-bit words drawn since (null: seeded otherwise). */
  private origin: { seed: number; drawn: number } | null = null;

  /** A generator seeded with `seed(s)` that has drawn `drawn` 32-bit words, its Gaussian cache `gauss` (null: empty). */
  static fromSeed(s: number, drawn: number, gauss: number | null = null): MT19937 {
    const g = new MT19937();
    g.seed(s);
    for (let i = 0; i < drawn; i++) g.nextUint32();
    if (gauss !== null) [g.hasGauss, g.gaussNext] = [true, gauss];
    return g;
  }

  /** A generator in the state get_state gives. */
  static fromState(key: readonly number[], pos: number, hasGauss: boolean, gauss: number): MT19937 {
    const g = new MT19937();
    g.setState(key, pos, hasGauss, gauss);
    return g;
  }

  /**
   * How to make this generator again: the arguments of fromSeed where it was seeded with an int (short,
   * readable in generated code), else those of fromState.
   */
  recipe(): { seed: number; drawn: number; gauss: number | null } | { key: number[]; pos: number; hasGauss: boolean; gauss: number } {
    if (this.origin) return { ...this.origin, gauss: this.hasGauss ? this.gaussNext : null };
    const { key, pos, hasGauss, gauss } = this.state();
    return { key, pos, hasGauss, gauss };
  }

  /** `seed(int)`: Knuth's init_genrand, 0 <= s < 2^32. */
  seed(s: number): void {
    this.init(s);
    this.origin = { seed: s >>> 0, drawn: 0 };
  }

  private init(s: number): void {
    const key = this.key;
    key[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const p = key[i - 1]!;
      key[i] = (Math.imul(1812433253, p ^ (p >>> 30)) + i) >>> 0;
    }
    this.pos = N;
    this.hasGauss = false;
    this.gaussNext = 0;
  }

  /** get_state(): the key, the position in it, and the cached Gaussian. */
  state(): { key: number[]; pos: number; hasGauss: boolean; gauss: number } {
    return { key: [...this.key], pos: this.pos, hasGauss: this.hasGauss, gauss: this.gaussNext };
  }

  /** set_state(...): as get_state gave it. */
  setState(key: readonly number[], pos: number, hasGauss: boolean, gauss: number): void {
    this.key.set(key);
    this.pos = pos;
    this.hasGauss = hasGauss;
    this.gaussNext = hasGauss ? gauss : 0;
    this.origin = null;
  }

  /** `seed([a, b, ...])`: init_by_array of the 32-bit words. */
  seedByArray(init: readonly number[]): void {
    this.init(19650218);
    this.hasGauss = false;
    this.gaussNext = 0;
    this.origin = null;
    const mt = this.key;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, init.length); k > 0; k--) {
      const p = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(p ^ (p >>> 30), 1664525)) + init[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= init.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const p = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(p ^ (p >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private generate(): void {
    const key = this.key;
    const mix = (a: number, b: number, c: number): number => {
      const y = (a & 0x80000000) | (b & 0x7fffffff);
      return (c ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
    };
    let i = 0;
    for (; i < N - M; i++) key[i] = mix(key[i]!, key[i + 1]!, key[i + M]!);
    for (; i < N - 1; i++) key[i] = mix(key[i]!, key[i + 1]!, key[i + M - N]!);
    key[N - 1] = mix(key[N - 1]!, key[0]!, key[M - 1]!);
    this.pos = 0;
  }

  nextUint32(): number {
    if (this.pos === N) this.generate();
    if (this.origin) this.origin.drawn++;
    let y = this.key[this.pos++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    return (y ^ (y >>> 18)) >>> 0;
  }

  nextUint64(): bigint {
    const hi = this.nextUint32();
    return (BigInt(hi) << 32n) | BigInt(this.nextUint32());
  }

  /** random_sample: a 53-bit double in [0, 1). */
  nextDouble(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** legacy_gauss: polar Box–Muller, the second value kept for the next call. */
  gauss(): number {
    if (this.hasGauss) {
      this.hasGauss = false;
      const g = this.gaussNext;
      this.gaussNext = 0;
      return g;
    }
    let x1: number, x2: number, r2: number;
    do {
      x1 = 2 * this.nextDouble() - 1;
      x2 = 2 * this.nextDouble() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt((-2 * log(r2)) / r2);
    this.gaussNext = f * x1;
    this.hasGauss = true;
    return f * x2;
  }

  /** An integer in [0, rng] by masked rejection (random_bounded_uint64 with use_masked). */
  bounded(rng: bigint): bigint {
    if (rng === 0n) return 0n;
    if (rng <= 0xffffffffn) {
      const r = Number(rng);
      if (r === 0xffffffff) return BigInt(this.nextUint32());
      const mask = maskOf(r);
      let v: number;
      while ((v = (this.nextUint32() & mask) >>> 0) > r);
      return BigInt(v);
    }
    if (rng === 0xffffffffffffffffn) return this.nextUint64();
    let mask = rng;
    for (let sh = 1n; sh <= 32n; sh *= 2n) mask |= mask >> sh;
    let v: bigint;
    while ((v = this.nextUint64() & mask) > rng);
    return v;
  }

  /** random_interval: an integer in [0, max], as shuffle draws it. */
  interval(max: number): number {
    if (max === 0) return 0;
    if (max <= 0xffffffff) {
      const mask = maskOf(max);
      let v: number;
      while ((v = (this.nextUint32() & mask) >>> 0) > max);
      return v;
    }
    return Number(this.bounded(BigInt(max)));
  }
}

/** The smallest all-ones mask >= r (r < 2^32). */
function maskOf(r: number): number {
  let m = r;
  m |= m >>> 1;
  m |= m >>> 2;
  m |= m >>> 4;
  m |= m >>> 8;
  m |= m >>> 16;
  return m >>> 0;
}

