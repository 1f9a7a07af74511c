// The float64 and int64 operations of x64 mode on the CPU backend. XLA's CPU
// code computes float64 exp with its own sequence (replayed here, fused
// multiply-adds included: it matched jax on 5000 inputs) and the other float64
// math through libm calls (glibc); JS's Math.* functions are V8's fdlibm ports,
// within 1 ulp of glibc (measured: 95-97% of results equal).
// int64 values are integral doubles (exact to 2**53, runtime/dtypes.ts); the
// bitwise operations go through BigInt to see all 64 bits.
import { erf64 } from './math.js';
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
export { erf64 };

// XLA's float64 erf_inv (xla/client/lib/math.cc ErfInv64, Giles' approximation): a polynomial in
// w - 3.125, √w - 3.25 or √w - 5 for w = -log1p(-x²) below 6.25, 16 and above; coefficients from the highest
const ERFINV_LT_6_25 = [
  -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18, 1.115787767802518096e-17, -1.333171662854620906e-16,
  2.0972767875968561637e-17, 6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14, 2.6335093153082322977e-12,
  -1.2975133253453532498e-11, -5.4154120542946279317e-11, 1.051212273321532285e-9, -4.1126339803469836976e-9, -2.9070369957882005086e-8,
  4.2347877827932403518e-7, -1.3654692000834678645e-6, -1.3882523362786468719e-5, 0.0001867342080340571352, -0.00074070253416626697512,
  -0.0060336708714301490533, 0.24015818242558961693, 1.6536545626831027356,
];
const ERFINV_LT_16 = [
  2.2137376921775787049e-9, 9.0756561938885390979e-8, -2.7517406297064545428e-7, 1.8239629214389227755e-8, 1.5027403968909827627e-6,
  -4.013867526981545969e-6, 2.9234449089955446044e-6, 1.2475304481671778723e-5, -4.7318229009055733981e-5, 6.8284851459573175448e-5,
  2.4031110387097893999e-5, -0.0003550375203628474796, 0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
  -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334, 3.0838856104922207635,
];
const ERFINV_GE_16 = [
  -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-9, -3.7894654401267369937e-9, 7.6157012080783393804e-9,
  -1.4960026627149240478e-8, 2.9147953450901080826e-8, -6.7711997758452339498e-8, 2.2900482228026654717e-7, -9.9298272942317002539e-7,
  4.5260625972231537039e-6, -1.9681778105531670567e-5, 7.5995277030017761139e-5, -0.00021503011930044477347, -0.00013871931833623122026,
  1.0103004648645343977, 4.8499064014085844221,
];

/** erf_inv(x) as XLA computes a float64 one (its Horner steps fused): ±inf at ±1, NaN outside [-1, 1]. */
export function erfInv64(x: number): number {
  if (Math.abs(x) === 1) return x * Infinity;
  const w = -Math.log1p(-x * x);
  const c = w < 6.25 ? ERFINV_LT_6_25 : w < 16 ? ERFINV_LT_16 : ERFINV_GE_16;
  const t = w < 6.25 ? w - 3.125 : Math.sqrt(w) - (w < 16 ? 3.25 : 5);
  let p = c[0]!;
  for (let i = 1; i < c.length; i++) p = fma64(p, t, c[i]!);
  return p * x;
}

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
