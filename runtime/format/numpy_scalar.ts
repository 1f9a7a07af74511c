// NumPy 2 scalar printing: str(np.float32(x)) / repr → 'np.float32(0.60576403)',
// np.float64, the integer scalars ('np.int64(3)') and np.True_ / np.False_.
// Also the dtype vocabulary shared by the array printers.

import { formatFloatPositional, formatFloatScientific } from './dragon4.js';
import { roundF16 } from './narrow_float.js';
import { pyComplexRepr } from './float_repr.js';

/** NumPy / JAX dtypes the printers know. */
export type NpDType =
  | 'float16' | 'float32' | 'float64' | 'bfloat16'
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64'
  | 'bool'
  | 'complex64';

/** One scalar element as the printers take it. */
export type ScalarValue = number | bigint | boolean;

/** The floats NumPy's own formatter prints (bfloat16 is ml_dtypes', printed by its str: bf16Str). */
export function isFloatDType(dtype: NpDType): dtype is 'float16' | 'float32' | 'float64' {
  return dtype === 'float16' || dtype === 'float32' || dtype === 'float64';
}

export function isIntDType(dtype: NpDType): boolean {
  return !isFloatDType(dtype) && dtype !== 'bool' && dtype !== 'complex64' && dtype !== 'bfloat16';
}

/** str() of an ml_dtypes bfloat16 scalar: C++ stream output of the float, C's %g (6 significant digits). */
export function bf16Str(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  // six significant digits, rounded half to even on the exact binary value (as glibc's printf)
  const [m, e] = formatFloatScientific(x, 'float64', { precision: 5, unique: false, trim: 'k' }).split('e') as [string, string];
  const exp = Number(e);
  const strip = (s: string): string => s.replace(/0+$/, '').replace(/\.$/, '');
  if (exp < -4 || exp >= 6) return `${strip(m)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const digits = m.replace('-', '').replace('.', '');
  const sign = x < 0 ? '-' : '';
  const whole = exp >= 0 ? digits.slice(0, exp + 1) : '0';
  const frac = exp >= 0 ? digits.slice(exp + 1) : '0'.repeat(-exp - 1) + digits;
  return strip(`${sign}${whole}.${frac}`);
}

/** str() of a NumPy complex64 scalar: '(6-8j)', '2j', '(0.1+0.2j)' (each part as a float32's shortest digits). */
export function npComplexStr(re: number, im: number): string {
  const part = (x: number): string => {
    const s = npFloatStr(x, 'float32');
    return s.endsWith('.0') ? s.slice(0, -2) : s;
  };
  return pyComplexRepr(Math.fround(re), Math.fround(im), part);
}

/** Element to JS number for float dtypes (float32 values rounded to float32). */
export function toFloat(v: ScalarValue, dtype: 'float16' | 'float32' | 'float64' | 'bfloat16'): number {
  const n = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
  return dtype === 'float32' ? Math.fround(n) : dtype === 'float16' ? roundF16(n) : n;
}

/** Element to bigint for integer dtypes (numbers truncated toward zero). */
export function toBigInt(v: ScalarValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return BigInt(Math.trunc(v));
}

/** Element to boolean for the bool dtype. */
export function toBool(v: ScalarValue): boolean {
  return typeof v === 'bigint' ? v !== 0n : Boolean(v);
}

/**
 * str() of a NumPy float scalar: shortest repr digits, positional for
 * 1e-4 <= |x| < 1e16 (float64) or < 1e6 (float32, NumPy >= 2.3), else scientific.
 */
export function npFloatStr(x: number, dtype: 'float16' | 'float32' | 'float64'): string {
  const v = toFloat(x, dtype);
  if (Number.isNaN(v)) return 'nan';
  const maxPositional = dtype === 'float16' ? 1e3 : dtype === 'float32' ? 1e6 : 1e16;
  const a = Math.abs(v);
  const positional = v === 0 || (a < maxPositional && a >= 1e-4);
  return positional
    ? formatFloatPositional(v, dtype, { trim: '0' })
    : formatFloatScientific(v, dtype, { trim: '-' });
}

/** str() of a NumPy scalar of any supported dtype ('0.60576403', '3', 'True'). */
export function npScalarStr(v: ScalarValue, dtype: NpDType): string {
  if (isFloatDType(dtype)) return npFloatStr(toFloat(v, dtype), dtype);
  if (dtype === 'bfloat16') return bf16Str(toFloat(v, dtype));
  if (dtype === 'bool') return toBool(v) ? 'True' : 'False';
  return toBigInt(v).toString();
}

/** repr() of a NumPy 2 scalar: 'np.float32(0.60576403)', 'np.int64(3)', 'np.True_'. */
export function npScalarRepr(v: ScalarValue, dtype: NpDType): string {
  if (dtype === 'bool') return toBool(v) ? 'np.True_' : 'np.False_';
  // an ml_dtypes scalar's repr is its str
  if (dtype === 'bfloat16') return bf16Str(toFloat(v, dtype));
  return `np.${dtype}(${npScalarStr(v, dtype)})`;
}
