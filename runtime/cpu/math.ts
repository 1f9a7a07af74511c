// Float32 elementwise math for the CPU (plain JS) backend: every function takes
// and returns float32 values held in JS doubles.
//
// Where XLA's CPU backend (jaxlib 0.10.2, x86-64 with FMA) evaluates a function
// with its own polynomial/rational approximation, the same operations are
// replayed here in float32 arithmetic (Math.fround after every step, and an
// exact float32 fused multiply-add where LLVM contracts a multiply and an add
// into `vfmadd`), so results are bit-identical to jax on such a machine:
//   exp32, expm1_32, log32, log1p32, tanh32, logistic32, erf32, erfInv32.
// The sequences were read from XLA's optimized LLVM IR and x86 assembly
// (XLA_FLAGS=--xla_dump_to) and checked against jax on millions of inputs.
// sin32 and cos32 are glibc's sinf/cosf (which XLA calls), in float64; tan32 and
// pow32 call glibc's tanf/powf in XLA; here they are float64 Math.* rounded to
// float32 (within 1 ulp of correctly rounded).
//
// Subnormals: XLA CPU runs with flush-to-zero/denormals-are-zero; these
// functions do not flush (a subnormal input is treated as its value and a
// subnormal result is returned), which is the only place results may differ
// from jax beyond the functions noted above.
//
// Naming: float32 function `name` is `name32`, or `name_32` when the name ends
// in a digit (expm1_32). CPU_MATH_FUNCTIONS maps the WGSL names (jx_ prefix
// dropped) to these implementations.

import { RSQRT_ESTIMATE } from './rsqrt_table.js';

const fr = Math.fround;

// ---------------------------------------------------------------------------
// Bit helpers

const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);

/** Bit pattern of a float32 value. */
export function f32ToBits(x: number): number {
  f32buf[0] = x;
  return u32buf[0]!;
}

/** Float32 value of a bit pattern. */
export function bitsToF32(b: number): number {
  u32buf[0] = b >>> 0;
  return f32buf[0]!;
}

const FLT_MIN_NORMAL = 1.1754943508222875e-38; // 2^-126

/** XLA CPU's flush to zero (FTZ/DAZ): a subnormal float32 becomes a zero of its sign; NaN stays. */
export function ftz32(x: number): number {
  // one comparison of |x| (the same values as -min < x < min): V8 compiles it to a single branch, and a
  // kernel's inner loop calls this two or three times per element (the two-comparison form took 2x longer)
  return Math.abs(x) < FLT_MIN_NORMAL ? x * 0 : x;
}

/**
 * Correctly rounded float32 fused multiply-add a*b+c (a, b, c float32).
 * a*b is exact in float64; the float64 sum is fixed up when it lands exactly
 * on a float32 rounding midpoint (the only case where double rounding errs).
 */
export function fma32(a: number, b: number, c: number): number {
  const p = a * b;
  const s = p + c;
  const r = fr(s);
  if (r === s) return r; // exact, or infinite
  // double rounding can only err when s is a float32 midpoint (the common case stops here; NaN too)
  const r2 = 2 * s - r; // the other float32 neighbour when s is a midpoint
  if (fr(r2) !== r2 || r2 === r || !Number.isFinite(r)) return r;
  // TwoSum error of p + c
  const bb = s - p;
  const e = p - (s - bb) + (c - bb);
  if (e === 0) return r;
  return e > 0 ? Math.max(r, r2) : Math.min(r, r2);
}

// ---------------------------------------------------------------------------
// log (XLA CPU: Eigen/Cephes plog_float, FMA-contracted as LLVM does on x86)

const LOG_SQRTHF = bitsToF32(0x3f3504f3);
const LOG_P0 = bitsToF32(0x3d9021bb);
const LOG_P1 = bitsToF32(0xbdebd1b8);
const LOG_P2 = bitsToF32(0x3def251a);
const LOG_P3 = bitsToF32(0xbdfe5d4f);
const LOG_P4 = bitsToF32(0x3e11e9bf);
const LOG_P5 = bitsToF32(0xbe2aae50);
const LOG_P6 = bitsToF32(0x3e4cceac);
const LOG_P7 = bitsToF32(0xbe7ffffc);
const LOG_P8 = bitsToF32(0x3eaaaaaa);
const LOG_Q1 = bitsToF32(0xb95e8083); // -2.12194440e-4
const LOG_Q2 = bitsToF32(0x3f318000); // 0.693359375

function xlaLogCore(x: number): number {
  // x: float32 > 0 finite normal (the caller handles the rest)
  const v = x > FLT_MIN_NORMAL ? x : FLT_MIN_NORMAL;
  const bits = f32ToBits(v);
  let e = fr(((bits >>> 23) - 127) + 1);
  const m = bitsToF32((bits & 0x807fffff) | 0x3f000000);
  const mask = m < LOG_SQRTHF;
  const tmp = mask ? m : 0;
  let xm = fr(m - 1);
  if (mask) e = fr(e - 1);
  xm = fr(xm + tmp);
  const x2 = fr(xm * xm);
  const x3 = fr(x2 * xm);
  let y = fma32(LOG_P0, xm, LOG_P1);
  let y1 = fma32(LOG_P3, xm, LOG_P4);
  let y2 = fma32(LOG_P6, xm, LOG_P7);
  y = fma32(y, xm, LOG_P2);
  y1 = fma32(y1, xm, LOG_P5);
  y2 = fma32(y2, xm, LOG_P8);
  y = fma32(y, x3, y1);
  y = fma32(y, x3, y2);
  y = fma32(y, x3, fr(e * LOG_Q1));
  const xr = fma32(-0.5, x2, xm);
  const r = fr(y + xr);
  return fma32(e, LOG_Q2, r);
}

/** Natural log, float32, bit-exact with XLA CPU for normal inputs. */
export function log32(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return -Infinity;
  if (x === Infinity) return Infinity;
  // subnormal input (XLA flushes it to zero and returns -inf): float64 log rounded
  if (x < FLT_MIN_NORMAL) return fr(Math.log(x));
  return xlaLogCore(x);
}

// ---------------------------------------------------------------------------
// log1p (XLA elemental emitter: Cephes rational for |x| < sqrt(2)-1, else log(1+x))

const L1P_THRESHOLD = bitsToF32(0x3ed413cd); // 0.41421356
const L1P_N0 = fr(4.5270000862445199635215e-5);
const L1P_N = [0x3eff40c5, 0x40d284fa, 0x41ef4b9c, 0x4273cc76, 0x426473ad, 0x41a05101].map(bitsToF32);
const L1P_D = [0x417101ad, 0x42a6185b, 0x435dc32d, 0x439a8ca3, 0x43586d8a, 0x42707982].map(bitsToF32);

/** log(1+x), float32, bit-exact with XLA CPU's log-plus-one (normal range). */
export function log1p32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (Math.abs(x) < L1P_THRESHOLD) {
    const x2 = fr(x * x);
    let d = fr(fr(x * 0) + 1);
    let n = fr(fr(x * 0) + L1P_N0);
    for (let i = 0; i < 6; i++) {
      d = fma32(d, x, L1P_D[i]!);
      n = fma32(n, x, L1P_N[i]!);
    }
    const ratio = fr(n / d);
    const x3 = fr(x * x2);
    const t = fma32(-0.5, x2, fr(x3 * ratio));
    return fr(x + t);
  }
  return log32(fr(x + 1));
}

// ---------------------------------------------------------------------------
// exp (XLA CPU polynomial exp; clamps to [-87.8, 88.8], scale 2^n with n in [-127, 127])

const EXP_LOG2E = bitsToF32(0x3fb8aa3b);
const EXP_C1 = bitsToF32(0x3f318000);
const EXP_C2 = bitsToF32(0xb95e8083);
const EXP_P = [0x39506967, 0x3ab743ce, 0x3c088908, 0x3d2aa9c1, 0x3e2aaaaa].map(bitsToF32);
const EXP_LO = fr(-87.8);
const EXP_HI = fr(88.8);

/** 2^n at index n + 127 for n in [-127, 127]; n = -127 (bits (n+127)<<23 = 0) scales to +0. */
const EXP_SCALE = Float64Array.from({ length: 255 }, (_, i) => (i === 0 ? 0 : 2 ** (i - 127)));
const [EXP_P0, EXP_P1, EXP_P2, EXP_P3, EXP_P4] = EXP_P as [number, number, number, number, number];

/** The XLA exp sequence: p · 2^n, p from the polynomial, n the clamped exponent (one function: no pair per element). */
function xlaExp(x: number): number {
  let v = x < EXP_LO ? EXP_LO : x;
  v = v > EXP_HI ? EXP_HI : v;
  let fx = Math.floor(fma32(v, EXP_LOG2E, 0.5));
  fx = fx < -127 ? -127 : fx > 127 ? 127 : fx;
  let r = fma32(-fx, EXP_C1, v);
  r = fma32(-fx, EXP_C2, r);
  let y = fma32(r, EXP_P0, EXP_P1);
  y = fma32(y, r, EXP_P2);
  y = fma32(y, r, EXP_P3);
  y = fma32(y, r, EXP_P4);
  y = fma32(y, r, 0.5);
  const r2 = fr(r * r);
  y = fma32(y, r2, r);
  y = fr(y + 1);
  return fr(y * EXP_SCALE[fx + 127]!);
}

const EXP_UNDERFLOW = fr(-103.97208); // exp(x) < 2^-150 below this
const EXP_XLA_MIN = fr(-87.33654); // XLA's sequence is exact-scaled above this

/** exp, float32; bit-exact with XLA CPU where the result is a normal number. */
export function exp32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x >= EXP_XLA_MIN) return xlaExp(x);
  // Subnormal results (XLA returns 0 here): exp(x) = exp(x + 24 ln2) * 2^-24.
  if (x < EXP_UNDERFLOW) return 0;
  return fr(Math.exp(x)); // float64 exp, single rounding into the subnormal range
}

// ---------------------------------------------------------------------------
// tanh (XLA CPU: Eigen's rational x*P(x^2)/Q(x^2), clamped to +-7.9988)

const TANH_CLAMP = bitsToF32(0x40fff644);
const TANH_P = [0xa59f25c0, 0x2a61337e, 0xaebd37ff, 0x335c0041, 0x3779434a, 0x3a270ded, 0x3ba059dc].map(bitsToF32);
const TANH_Q = [0x35a0d3d8, 0x38f895d6, 0x3b14aa05, 0x3ba059dd].map(bitsToF32);
const TANH_SMALL = fr(4e-4);

function xlaTanh(x: number): number {
  const ax = Math.abs(x);
  if (ax >= 20) return x > 0 ? 1 : -1;
  if (ax < TANH_SMALL) return x;
  const v = x < -TANH_CLAMP ? -TANH_CLAMP : x > TANH_CLAMP ? TANH_CLAMP : x;
  const v2 = fr(v * v);
  let p = fma32(v2, TANH_P[0]!, TANH_P[1]!);
  for (let i = 2; i < 7; i++) p = fma32(v2, p, TANH_P[i]!);
  p = fr(v * p);
  let q = fma32(v2, TANH_Q[0]!, TANH_Q[1]!);
  q = fma32(v2, q, TANH_Q[2]!);
  q = fma32(v2, q, TANH_Q[3]!);
  return fr(p / q);
}

/** tanh, float32, bit-exact with XLA CPU. */
export function tanh32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  return xlaTanh(x);
}

// ---------------------------------------------------------------------------
// expm1 (XLA: exp(x)-1 for |x| > 0.5, else tanh(x/2) * (exp(x)+1))

/** exp(x)-1, float32, bit-exact with XLA CPU (normal range). */
export function expm1_32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const h = fr(x * 0.5);
  // keeps -0 and subnormals; below 2^-125, x/2 is subnormal and XLA's expm1 returns x (measured)
  if (Math.abs(h) < FLT_MIN_NORMAL) return x;
  if (x >= EXP_XLA_MIN || Math.abs(x) <= 0.5) {
    const e = xlaExp(x);
    if (Math.abs(x) > 0.5) return fr(e - 1);
    return fr(xlaTanh(h) * fr(e + 1));
  }
  return -1; // x < -87.3: exp(x) - 1 rounds to -1
}

// ---------------------------------------------------------------------------
// logistic (jax.nn.sigmoid lowers to 1 / (exp(-x) + 1))

/** Logistic sigmoid 1/(1+exp(-x)), float32, bit-exact with XLA CPU (normal range). */
export function logistic32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  // subnormal results (XLA flushes them to 0): 1 + exp(x) rounds to 1 there
  if (x < EXP_XLA_MIN) return exp32(x);
  return fr(1 / fr(exp32(-x) + 1));
}

// ---------------------------------------------------------------------------
// erf (XLA CPU: x*P(x^2)/Q(x^2) with explicit fma, +-1 for |x| >= 3.8325)

const ERF_BIG = bitsToF32(0x407547cb);
const ERF_P = [0x39702d51, 0x3b5f5da2, 0x3d50b6eb, 0x3e3da740, 0x3f906eba].map(bitsToF32);
const ERF_Q = [0xb3fd3906, 0x37c588df, 0x3a856d28, 0x3c6687d4, 0x3de34c21, 0x3efeb44a, 0x3f800000].map(bitsToF32);

/** erf, float32, bit-exact with XLA CPU (normal range). */
export function erf32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (Math.abs(x) >= ERF_BIG) return x > 0 ? 1 : -1;
  const x2 = fr(x * x);
  let p = fma32(x2, ERF_P[0]!, ERF_P[1]!);
  for (let i = 2; i < 5; i++) p = fma32(x2, p, ERF_P[i]!);
  p = fr(x * p);
  let q = fma32(x2, ERF_Q[0]!, ERF_Q[1]!);
  for (let i = 2; i < 7; i++) q = fma32(x2, q, ERF_Q[i]!);
  return fr(p / q);
}

// ---------------------------------------------------------------------------
// erf_inv (XLA/StableHLO ErfInv32, Giles; uses XLA's log1p)

const ERFINV_A = [
  2.81022636e-8, 3.43273939e-7, -3.5233877e-6, -4.39150654e-6, 0.00021858087, -0.00125372503, -0.00417768164,
  0.246640727, 1.50140941,
].map(fr);
const ERFINV_B = [
  -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
  1.00167406, 2.83297682,
].map(fr);

/**
 * Inverse error function, float32, bit-exact with XLA CPU (x86-64 with FMA):
 * w = -log1p(-x*x); w < 5 ? poly_a(w - 2.5) : poly_b(sqrt(w) - 3); result p*x;
 * |x| == 1 gives +-inf, |x| > 1 NaN.
 */
export function erfInv32(x: number): number {
  const l = log1p32(fr(x * -x));
  let w: number;
  let c: number[];
  if (l > -5) {
    w = fr(-2.5 - l);
    c = ERFINV_A;
  } else {
    w = fr(fr(Math.sqrt(-l)) + -3);
    c = ERFINV_B;
  }
  let p = fma32(c[0]!, w, c[1]!);
  for (let i = 2; i < 9; i++) p = fma32(p, w, c[i]!);
  if (Math.abs(x) === 1) p = Infinity;
  return fr(x * p);
}

// ---------------------------------------------------------------------------
// Functions XLA CPU takes from glibc (sinf, cosf, tanf, powf)

// sinf and cosf as glibc (2.28+) computes them, in float64: |x| < pi/4 directly; |x| < 120 reduced by
// one multiply-subtract of a float64 pi/2; larger |x| by a 96-bit fixed-point product with the bits of
// 4/pi; then an odd (sine) or even (cosine) polynomial in float64, rounded once to float32.

/** A float64 from a hexadecimal significand "1.xxxx" and a binary exponent. */
const hexf = (m: string, e: number): number => (parseInt(m.replace('.', ''), 16) / 16 ** (m.length - 2)) * 2 ** e;
const SC_HPI_INV = hexf('1.45F306DC9C883', 23); // 2/pi, scaled by 2^24
const SC_HPI = hexf('1.921FB54442D18', 0); // pi/2
const SC_PI63 = hexf('1.921FB54442D18', -62); // 2pi / 2^64
const SC_COS = [1, -hexf('1.ffffffd0c621c', -2), hexf('1.55553e1068f19', -5), -hexf('1.6c087e89a359d', -10), hexf('1.99343027bf8c3', -16)] as const;
const SC_SIN = [-hexf('1.555545995a603', -3), hexf('1.1107605230bc4', -7), -hexf('1.994eb3774cf24', -13)] as const;
const SC_SIGN = [1, -1, -1, 1] as const;
/** 4/pi's bits: entry i is the 32 bits that start 8(i - 3) bits after the binary point (the first three shorter). */
const INV_PIO4 = (() => {
  const hex = 'A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163';
  const bits = BigInt(`0x${hex}`);
  const total = hex.length * 4;
  return Array.from({ length: 24 }, (_, i) => Number((bits >> BigInt(total - 8 * (i + 1))) & 0xffffffffn));
})();
const top12 = (x: number): number => (f32ToBits(x) >>> 20) & 0x7ff;
const TOP_PIO4 = top12(Math.PI / 4);
const TOP_TINY = top12(2 ** -12);
const TOP_120 = top12(120);

/** The sine (even n) or cosine (odd n) polynomial at x (x2 = x*x), the cosine's sign flipped when `neg`. */
function sincosPoly(x: number, x2: number, n: number, neg: boolean): number {
  if ((n & 1) === 0) {
    const x3 = x * x2;
    const s1 = SC_SIN[1] + x2 * SC_SIN[2];
    const x7 = x3 * x2;
    return fr(x + x3 * SC_SIN[0] + x7 * s1);
  }
  const k = neg ? -1 : 1;
  const x4 = x2 * x2;
  const c2 = k * SC_COS[3] + x2 * (k * SC_COS[4]);
  const c1 = k * SC_COS[0] + x2 * (k * SC_COS[1]);
  const x6 = x4 * x2;
  return fr(c1 + x4 * (k * SC_COS[2]) + x6 * c2);
}

/** x (|x| >= 120, finite) modulo pi/2 in [-pi/4, pi/4] from its bits, and the quadrant. */
function reduceLarge(bits: number): [number, number] {
  const off = (bits >>> 26) & 15;
  const shift = BigInt((bits >>> 23) & 7);
  const xi = BigInt((bits & 0xffffff) | 0x800000) << shift;
  const M64 = (1n << 64n) - 1n;
  const r0 = (xi * BigInt(INV_PIO4[off]!)) & 0xffffffffn;
  const r1 = xi * BigInt(INV_PIO4[off + 4]!);
  const r2 = xi * BigInt(INV_PIO4[off + 8]!);
  let res = (((r2 >> 32n) | (r0 << 32n)) + r1) & M64;
  const n = ((res + (1n << 61n)) & M64) >> 62n;
  res = (res - (n << 62n)) & M64;
  return [Number(BigInt.asIntN(64, res)) * SC_PI63, Number(n)];
}

/** sin (cos when `cos`), float32, as glibc's sinf/cosf. */
function sinCos32(y: number, cos: boolean): number {
  const t = top12(y);
  if (t < TOP_PIO4) {
    if (t < TOP_TINY) return cos ? 1 : y;
    return sincosPoly(y, y * y, cos ? 1 : 0, false);
  }
  if (t >= 0x7f8) return NaN;
  let x: number;
  let n: number;
  let q: number;
  if (t < TOP_120) {
    n = (((y * SC_HPI_INV) | 0) + 0x800000) >> 24;
    x = y - n * SC_HPI;
    q = n;
  } else {
    const bits = f32ToBits(y);
    [x, n] = reduceLarge(bits);
    q = n + (bits >>> 31);
  }
  const s = SC_SIGN[q & 3]!;
  return sincosPoly(x * s, x * x, cos ? n ^ 1 : n, (q & 2) !== 0);
}

/** sin, float32 (glibc's sinf, which XLA CPU calls). */
export function sin32(x: number): number {
  return sinCos32(x, false);
}

/** cos, float32 (glibc's cosf, which XLA CPU calls). */
export function cos32(x: number): number {
  return sinCos32(x, true);
}

/** tan, float32 (float64 Math.tan rounded). */
export function tan32(x: number): number {
  return fr(Math.tan(x));
}

/**
 * pow, float32, with C99/IEEE special cases (which XLA's powf follows and JS's
 * Math.pow does not): pow(1, y) = 1 and pow(-1, +-inf) = 1 even for NaN/inf y.
 */
export function pow32(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return fr(Math.pow(x, y));
}

// ---------------------------------------------------------------------------
// rsqrt: XLA CPU's is the hardware estimate (vrsqrtss) plus one Newton step, y + (-y/2)(x y y - 1) with two
// fused multiply-adds; the estimate is the oracle machine's (runtime/cpu/rsqrt_table.ts). Zeros, infinities,
// negatives and subnormals get the estimate alone: +-inf, 0, NaN, and +-inf (a subnormal reads as a zero).

/** vrsqrtss's estimate of 1/sqrt(x) for a positive normal x. */
export function rsqrtEstimate32(x: number): number {
  const b = f32ToBits(x);
  const e = ((b >>> 23) & 0xff) - 127;
  const field = RSQRT_ESTIMATE[((e & 1) << 12) | ((b >>> 11) & 0xfff)]!;
  return bitsToF32(((126 - (e >> 1)) << 23) | (field << 11));
}

/** 1/sqrt(x), float32, bit-exact with XLA CPU's jax.lax.rsqrt on the oracle's machine. */
export function rsqrt32(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (Math.abs(x) < FLT_MIN_NORMAL) return 1 / (x === 0 ? x : x * 0); // +-0 and subnormals: +-inf
  if (x < 0) return NaN;
  if (x === Infinity) return 0;
  const y = rsqrtEstimate32(x);
  return fma32(fr(y * -0.5), fma32(fr(x * y), y, -1), y);
}

// ---------------------------------------------------------------------------
// atan2 / atan: XLA CPU calls glibc's atan2f (2.36: fdlibm's float code, e_atan2f.c and s_atanf.c,
// plain float32 operations without contraction), which these replay operation for operation. jnp.arctan,
// arcsin and arccos reach it through atan2 (CHLO's expansions), so all four are bit-exact with XLA.

const ATAN_HI = [0x3eed6338, 0x3f490fda, 0x3f7b985e, 0x3fc90fda].map(bitsToF32);
const ATAN_LO = [0x31ac3769, 0x33222168, 0x33140fb4, 0x33a22168].map(bitsToF32);
/** fdlibm's aT[0..10] (aT[0] is its decimal 3.3333334327e-01, 0x3eaaaaab, not the comment's 0x3eaaaaaa) */
const ATAN_T = [
  0x3eaaaaab, 0xbe4ccccd, 0x3e124925, 0xbde38e38, 0x3dba2e6e, 0xbd9d8795, 0x3d886b35, 0xbd6ef16b, 0x3d4bda59,
  0xbd15a221, 0x3c8569d7,
].map(bitsToF32);
const PI_F = bitsToF32(0x40490fdb);
const PI_O_2 = bitsToF32(0x3fc90fdb);
const PI_O_4 = bitsToF32(0x3f490fdb);
const PI_LO = bitsToF32(0xb3bbbd2e);

/** glibc's atanf (fdlibm), float32 operation for operation. */
export function atan32(x: number): number {
  const hx = f32ToBits(x) | 0;
  const ix = hx & 0x7fffffff;
  if (ix >= 0x4c000000) {
    if (ix > 0x7f800000) return NaN;
    const r = fr(ATAN_HI[3]! + ATAN_LO[3]!);
    return hx > 0 ? r : -r;
  }
  let id: number;
  let t = x;
  if (ix < 0x3ee00000) {
    if (ix < 0x31000000) return x;
    id = -1;
  } else {
    t = Math.abs(x);
    if (ix < 0x3f980000) {
      if (ix < 0x3f300000) {
        id = 0;
        t = fr(fr(fr(2 * t) - 1) / fr(2 + t));
      } else {
        id = 1;
        t = fr(fr(t - 1) / fr(t + 1));
      }
    } else if (ix < 0x401c0000) {
      id = 2;
      t = fr(fr(t - 1.5) / fr(1 + fr(1.5 * t)));
    } else {
      id = 3;
      t = fr(-1 / t);
    }
  }
  const z = fr(t * t);
  const w = fr(z * z);
  const T = ATAN_T;
  let s1 = fr(T[8]! + fr(w * T[10]!));
  for (const k of [6, 4, 2, 0]) s1 = fr(T[k]! + fr(w * s1));
  s1 = fr(z * s1);
  let s2 = fr(T[7]! + fr(w * T[9]!));
  for (const k of [5, 3, 1]) s2 = fr(T[k]! + fr(w * s2));
  s2 = fr(w * s2);
  const p = fr(t * fr(s1 + s2));
  if (id < 0) return fr(t - p);
  const r = fr(ATAN_HI[id]! - fr(fr(p - ATAN_LO[id]!) - t));
  return hx < 0 ? -r : r;
}

/**
 * XLA CPU's own atan, `xla.atan.f32` (read from the LLVM IR its loop-fusion emitter produces for atan2(x, 1)):
 * x itself below |x| < 1e-3, else r = min(|x|, 1/|x|), z = r², r·(P(z)/Q(z)) with fused multiply-adds,
 * π/2 minus that above 1, x's sign copied. XLA runs it for the elements its loop does not vectorize
 * (src/codegen/kernel_walker.ts, xlaAtanFrom); the vectorized ones call glibc's atanf (atan32).
 */
export function atanXla32(x: number): number {
  const a = Math.abs(x);
  if (a < ATANX_SMALL || a !== a) return x;
  const big = a > 1;
  const r = big ? fr(1 / a) : a;
  const z = fr(r * r);
  const p = fma32(fma32(z, ATANX_P[0]!, ATANX_P[1]!), z, ATANX_P[2]!);
  const q = fma32(fma32(fma32(z, ATANX_Q[0]!, ATANX_Q[1]!), z, 1), z, ATANX_Q[2]!);
  let v = fr(r * fr(p / q));
  if (big) v = fr(PI_O_2 - v);
  return x < 0 || Object.is(x, -0) ? -v : v;
}
const ATANX_SMALL = fr(1e-3);
const ATANX_P = [0x3de56e67, 0x3f3acba0, 0x3f4f9d60].map(bitsToF32);
const ATANX_Q = [0x3c2557b4, 0x3e90fdb4, 0x3f4f9d60].map(bitsToF32);

/** glibc's atan2f (fdlibm), float32 operation for operation, under XLA's DAZ/FTZ: operands are classified by their
 * bits (a subnormal x is not a zero there) and the division reads them flushed. */
export function atan2_32(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  const hx = f32ToBits(x) | 0;
  const hy = f32ToBits(y) | 0;
  const ix = hx & 0x7fffffff;
  const iy = hy & 0x7fffffff;
  if (hx === 0x3f800000) return atan32(y);
  const m = ((hy >>> 31) & 1) | ((hx >>> 30) & 2);
  if (iy === 0) return m < 2 ? y : m === 2 ? PI_F : -PI_F;
  if (ix === 0) return hy < 0 ? -PI_O_2 : PI_O_2;
  if (ix === 0x7f800000) {
    if (iy === 0x7f800000) {
      const r = m < 2 ? PI_O_4 : fr(3 * PI_O_4);
      return m & 1 ? -r : r;
    }
    return m === 0 ? 0 : m === 1 ? -0 : m === 2 ? PI_F : -PI_F;
  }
  if (iy === 0x7f800000) return hy < 0 ? -PI_O_2 : PI_O_2;
  const k = (iy - ix) >> 23;
  let z: number;
  if (k > 60) z = fr(PI_O_2 + fr(0.5 * PI_LO));
  else if (hx < 0 && k < -60) z = 0;
  else z = atan32(Math.abs(ftz32(fr(ftz32(y) / ftz32(x))))); // the division reads and writes subnormals as zeros (DAZ/FTZ)
  switch (m) {
    case 0:
      return z;
    case 1:
      return -z;
    case 2:
      return fr(PI_F - fr(z - PI_LO));
    default:
      return fr(fr(z - PI_LO) - PI_F);
  }
}

// ---------------------------------------------------------------------------
// float64 erf / erfc / erfinv (references for tests; not float32 kernels)

const TWO_OVER_SQRTPI = 1.1283791670955126;

/** erfc for x >= 2 by Lentz's continued fraction (converges in < 100 terms there). */
function erfcCF(x: number): number {
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
  const tiny = 1e-300;
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    D = x + a * D;
    D = D === 0 ? tiny : 1 / D;
    C = x + a / C;
    if (C === 0) C = tiny;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-17) break;
  }
  return Math.exp(-x * x) / (Math.sqrt(Math.PI) * f);
}

/** erf in float64 (Taylor series below 2, continued fraction above; ~1e-15 relative). */
export function erf64(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (!Number.isFinite(x)) return x > 0 ? 1 : -1;
  const ax = Math.abs(x);
  if (ax >= 2) {
    const r = 1 - erfcCF(ax);
    return x < 0 ? -r : r;
  }
  const z = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= -z / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-18 * Math.abs(sum)) break;
  }
  return sum * TWO_OVER_SQRTPI;
}

/** erfc in float64. */
export function erfc64(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (!Number.isFinite(x)) return x > 0 ? 0 : 2;
  if (x >= 2) return erfcCF(x);
  if (x <= -2) return 2 - erfcCF(-x);
  return 1 - erf64(x);
}

/** Inverse erf in float64 (Newton iterations on erf64/erfc64). */
export function erfInv64(x: number): number {
  if (Number.isNaN(x) || x < -1 || x > 1) return NaN;
  if (x === 1) return Infinity;
  if (x === -1) return -Infinity;
  if (x === 0) return x;
  const s = x < 0 ? -1 : 1;
  const ax = Math.abs(x);
  // initial guess from the float32 algorithm, then Newton on the better-conditioned form
  let y = Math.abs(erfInv32(fr(ax)));
  if (!Number.isFinite(y)) y = 5;
  if (y === 0) y = ax / TWO_OVER_SQRTPI;
  for (let i = 0; i < 6; i++) {
    const d = TWO_OVER_SQRTPI * Math.exp(-y * y);
    // f = erf(y) - ax, in the form that does not cancel
    const f = ax > 0.5 ? 1 - ax - erfc64(y) : erf64(y) - ax;
    const step = f / d;
    y -= step;
    if (Math.abs(step) <= 1e-17 * y) break;
  }
  return s * y;
}

// ---------------------------------------------------------------------------

/** Unary float32 functions keyed by their WGSL names without the `jx_` prefix. */
export const CPU_MATH_FUNCTIONS: Readonly<Record<string, (x: number) => number>> = {
  exp: exp32,
  log: log32,
  log1p: log1p32,
  expm1: expm1_32,
  sin: sin32,
  cos: cos32,
  tan: tan32,
  tanh: tanh32,
  logistic: logistic32,
  erf: erf32,
  erf_inv: erfInv32,
  atan: atan32,
  atan_xla: atanXla32,
  rsqrt: rsqrt32,
};
