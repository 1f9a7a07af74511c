// The float64 and int64 operations of x64 mode on the CPU backend. XLA's CPU
// code computes float64 math through LLVM's libm calls (glibc); JS's Math.*
// functions are V8's fdlibm ports, within 1 ulp of them (most results equal).
// int64 values are integral doubles (exact to 2**53, runtime/dtypes.ts); the
// bitwise operations go through BigInt to see all 64 bits.
import { erf64, erfInv64 } from './math.js';

export const sin64 = Math.sin;
export const cos64 = Math.cos;
export const tan64 = Math.tan;
export const exp64 = Math.exp;
export const log64 = Math.log;
export const log1p64 = Math.log1p;
export const expm1_64 = Math.expm1;
export const tanh64 = Math.tanh;
export const pow64 = Math.pow;
export const atan2_64 = Math.atan2;
export { erf64, erfInv64 };

export function logistic64(x: number): number {
  return 1 / (1 + Math.exp(-x));
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
