// The float64 and int64 operations of x64 mode on the CPU backend. XLA's CPU
// code computes float64 exp with its own sequence (replayed here, fused
// multiply-adds included: it matched jax on 5000 inputs) and the other float64
// math through libm calls (glibc); JS's Math.* functions are V8's fdlibm ports,
// within 1 ulp of glibc (measured: 95-97% of results equal).
// int64 values are integral doubles (exact to 2**53, runtime/dtypes.ts); the
// bitwise operations go through BigInt to see all 64 bits.
import { erf64, erfInv64 } from './math.js';
import { log } from '../numpy/mt19937.js';
import { atan2, cos, sin, tan } from '../pymath.js';

// glibc's sin, cos, tan, atan2 and log: the double nearest the value (runtime/pymath.ts, whose
// double-double evaluation matched jax's float64 results on all but 1 to 11 of 5000 inputs)
export const sin64 = sin;
export const cos64 = cos;
export const tan64 = tan;
export const atan2_64 = atan2;
export const log64 = log;
export const log1p64 = Math.log1p;
export const expm1_64 = Math.expm1;
export const pow64 = Math.pow;
export { erf64, erfInv64 };

/** a * b + c rounded once (Dekker's exact product and Knuth's two-sum; allocation-free for kernels' inner loops). */
export function fma64(a: number, b: number, c: number): number {
  const p = a * b;
  if (!Number.isFinite(p) || p === 0) return p + c;
  const ta = 134217729 * a;
  const ah = ta - (ta - a);
  const al = a - ah;
  const tb = 134217729 * b;
  const bh = tb - (tb - b);
  const bl = b - bh;
  const e = ah * bh - p + ah * bl + al * bh + al * bl;
  const s = p + c;
  const bb = s - p;
  const t = p - (s - bb) + (c - bb);
  return s + (t + e);
}

// XLA's float64 exp (xla/codegen/math/exp.cc, Cephes' rational approximation after Eigen): the bounds,
// log2(e), ln(2) in two parts and the coefficients of P and Q
const EXP_HI = 709.782712893384;
const EXP_LO = -708.3964185322641;
const EXP_P = [1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1];
const EXP_Q = [3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1, 2.00000000000000000009e0];

/** exp(x) as XLA's CPU code computes a float64 exp: exp(g)·2^n for g = x − n·ln 2, each multiply-add fused as LLVM contracts it. */
export function exp64(x: number): number {
  if (x !== x) return NaN;
  if (x > EXP_HI) return Infinity;
  if (x < EXP_LO) return 0;
  const n = Math.floor(fma64(x, 1.4426950408889634, 0.5));
  const g = fma64(-n, 1.42860682030941723212e-6, fma64(-n, 0.693145751953125, x));
  const g2 = g * g;
  const p = fma64(fma64(EXP_P[0]!, g2, EXP_P[1]!), g2, EXP_P[2]!) * g;
  const q = fma64(fma64(fma64(EXP_Q[0]!, g2, EXP_Q[1]!), g2, EXP_Q[2]!), g2, EXP_Q[3]!);
  const e = (p / (q - p)) * 2 + 1;
  // ldexp(e, n) in two steps where 2^n alone is out of range
  return n > 1023 ? e * 2 ** 1023 * 2 ** (n - 1023) : n < -1022 ? e * 2 ** -1022 * 2 ** (n + 1022) : e * 2 ** n;
}

// XLA's float64 tanh (xla/codegen/intrinsic/tanh.cc, Eigen's ptanh_double): x·P(x²)/Q(x²) on x clamped
// to ±17.714196154005176, ±1 from |x| ≥ 20; the coefficients of P and Q from the highest power
const TANH_P = [
  2.615800786048223e-23, 7.653486226874932e-19, 3.130948823138668e-15, 4.2303918148209176e-12, 2.4618379131293676e-9, 6.864436768249707e-7,
  9.383908767426888e-5, 5.980971172444116e-3, 1.5184719640284322e-1, 1,
];
const TANH_Q = [
  6.463747022670968e-21, 5.782506856739004e-17, 1.293019623712688e-13, 1.123643448069622e-10, 4.492975677839634e-8, 8.785185266237659e-6,
  8.295161192716232e-4, 3.437448108450403e-2, 4.8518052973617604e-1, 1,
];

/** tanh(x) as XLA's CPU code computes a float64 tanh, its multiply-adds fused (it matched jax on 5000 inputs). */
export function tanh64(x: number): number {
  if (Math.abs(x) >= 20) return x > 0 ? 1 : -1;
  const c = Math.min(Math.max(x, -17.714196154005176), 17.714196154005176);
  const c2 = c * c;
  let p = TANH_P[0]!;
  let q = TANH_Q[0]!;
  for (let i = 1; i < TANH_P.length; i++) {
    p = fma64(c2, p, TANH_P[i]!);
    q = fma64(c2, q, TANH_Q[i]!);
  }
  return (c * p) / q;
}

export function logistic64(x: number): number {
  return 1 / (1 + exp64(-x));
}

export function rsqrt64(x: number): number {
  return 1 / Math.sqrt(x);
}

/** float → int64 as XLA converts (saturating; NaN → 0). */
export function f64ToI64(x: number): number {
  if (x !== x) return 0;
  if (x >= 9223372036854775807) return 9223372036854775807;
  if (x <= -9223372036854775808) return -9223372036854775808;
  return Math.trunc(x);
}

const big = (x: number): bigint => BigInt(Math.trunc(x));
const int64 = (x: bigint): number => Number(BigInt.asIntN(64, x));

/** The bitwise and shift operations on int64 (`fn`: the IR primitive); a shift outside [0, 64) gives 0, or the sign fill. */
export function bits64(fn: 'and' | 'or' | 'xor' | 'shift_left' | 'shift_right_logical' | 'shift_right_arithmetic', a: number, b: number): number {
  switch (fn) {
    case 'and':
      return int64(big(a) & big(b));
    case 'or':
      return int64(big(a) | big(b));
    case 'xor':
      return int64(big(a) ^ big(b));
    case 'shift_left':
      return b < 0 || b >= 64 ? 0 : int64(big(a) << big(b));
    case 'shift_right_logical':
      return b < 0 || b >= 64 ? 0 : int64(BigInt.asUintN(64, big(a)) >> big(b));
    case 'shift_right_arithmetic':
      return int64(big(a) >> big(b < 0 || b >= 64 ? 63 : b));
  }
}
