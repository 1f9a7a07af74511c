// Per-element formatters of NumPy's arrayprint (FloatingFormat, IntegerFormat,
// BoolFormat): look at all the elements that will be shown, fix a common
// notation and padding, and return a function printing one element.

import { formatFloatPositional, formatFloatScientific, type TrimMode } from './dragon4.js';
import { bf16Str, isFloatDType, toBigInt, toBool, toFloat, type NpDType, type ScalarValue } from './numpy_scalar.js';
import type { PrintOptions } from './print_options.js';

/** Prints one element of the array the formatter was built for. */
export type ElementFormatter = (v: ScalarValue) => string;

function maxLen(strs: readonly string[]): number {
  let m = 0;
  for (const s of strs) if (s.length > m) m = s.length;
  return m;
}

/** Python's str.partition / split on the first occurrence. */
function splitFirst(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + sep.length)];
}

/** NumPy's FloatingFormat for float32/float64 data (the shown elements). */
export function floatingFormatter(values: readonly number[], dtype: 'float16' | 'float32' | 'float64', opts: PrintOptions): (x: number) => string {
  const kind = dtype;
  const plus = opts.sign === '+';
  let precision = opts.floatmode === 'unique' ? -1 : opts.precision;
  const finite = values.filter((v) => Number.isFinite(v));

  let expFormat = false;
  let maxVal = -Infinity;
  let minVal = Infinity;
  for (const v of finite) {
    if (v === 0) continue;
    const a = Math.abs(v);
    if (a > maxVal) maxVal = a;
    if (a < minVal) minVal = a;
  }
  if (maxVal !== -Infinity) {
    // NEP 50: Python float constants compare/divide in the array's dtype.
    const cutoffMax = dtype === 'float16' ? 1e3 : dtype === 'float32' ? 1e6 : 1e8;
    const small = toFloat(1e-4, dtype);
    const ratio = toFloat(maxVal / minVal, dtype);
    if (maxVal >= cutoffMax || (!opts.suppress && (minVal < small || ratio > 1000))) expFormat = true;
  }

  let padLeft: number;
  let padRight: number;
  let trim: TrimMode;
  let expSize = -1;
  let unique = true;
  let minDigits = -1;

  if (finite.length === 0) {
    padLeft = 0;
    padRight = 0;
    trim = '.';
  } else if (expFormat) {
    let t: TrimMode = '.';
    if (opts.floatmode === 'fixed') {
      t = 'k';
      unique = false;
    }
    const strs = finite.map((x) => formatFloatScientific(x, kind, { precision, unique, trim: t, sign: plus }));
    const fracStrs: string[] = [];
    const expStrs: string[] = [];
    for (const s of strs) {
      const [f, e] = splitFirst(s, 'e');
      fracStrs.push(f);
      expStrs.push(e);
    }
    const intParts: string[] = [];
    const fracParts: string[] = [];
    for (const s of fracStrs) {
      const [i, f] = splitFirst(s, '.');
      intParts.push(i);
      fracParts.push(f);
    }
    expSize = maxLen(expStrs) - 1;
    trim = 'k';
    precision = maxLen(fracParts);
    minDigits = precision;
    padLeft = maxLen(intParts);
    padRight = expSize + 2 + precision;
  } else {
    let t: TrimMode = '.';
    if (opts.floatmode === 'fixed') {
      t = 'k';
      unique = false;
    }
    const strs = finite.map((x) => formatFloatPositional(x, kind, { precision, unique, fractional: true, trim: t, sign: plus }));
    const intParts: string[] = [];
    const fracParts: string[] = [];
    for (const s of strs) {
      const [i, f] = splitFirst(s, '.');
      intParts.push(i);
      fracParts.push(f);
    }
    padLeft = maxLen(intParts);
    padRight = maxLen(fracParts);
    if (opts.floatmode === 'fixed' || opts.floatmode === 'maxprec_equal') {
      precision = padRight;
      minDigits = padRight;
      trim = 'k';
    } else {
      trim = '.';
      minDigits = 0;
    }
  }

  if (opts.sign === ' ' && !finite.some((v) => v < 0 || Object.is(v, -0))) padLeft += 1;

  if (finite.length !== values.length) {
    const neginf = opts.sign !== '-' || values.some((v) => v === -Infinity);
    const offset = padRight + 1;
    padLeft = Math.max(padLeft, opts.nanstr.length - offset, opts.infstr.length + (neginf ? 1 : 0) - offset);
  }

  return (x: number): string => {
    if (!Number.isFinite(x)) {
      let ret: string;
      if (Number.isNaN(x)) ret = (plus ? '+' : '') + opts.nanstr;
      else ret = (x < 0 ? '-' : plus ? '+' : '') + opts.infstr;
      return ' '.repeat(Math.max(0, padLeft + padRight + 1 - ret.length)) + ret;
    }
    if (expFormat) {
      return formatFloatScientific(x, kind, { precision, minDigits, unique, trim, sign: plus, padLeft, expDigits: expSize });
    }
    return formatFloatPositional(x, kind, { precision, minDigits, unique, fractional: true, trim, sign: plus, padLeft, padRight });
  };
}

/** NumPy's IntegerFormat: right-aligned to the widest of str(max), str(min). */
export function integerFormatter(values: readonly bigint[], opts: PrintOptions): (x: bigint) => string {
  let sign = opts.sign;
  let width = 0;
  if (values.length > 0) {
    let max = values[0]!;
    let min = values[0]!;
    for (const v of values) {
      if (v > max) max = v;
      if (v < min) min = v;
    }
    let maxLenStr = max.toString().length;
    if (sign === ' ' && min < 0n) sign = '-';
    if (max >= 0n && (sign === '+' || sign === ' ')) maxLenStr += 1;
    width = Math.max(maxLenStr, min.toString().length);
  }
  return (x: bigint): string => {
    const s = x < 0n ? x.toString() : (sign === '+' ? '+' : sign === ' ' ? ' ' : '') + x.toString();
    return s.padStart(width, ' ');
  };
}

/**
 * NumPy's ComplexFloatingFormat for complex64 data given as interleaved (re, im) pairs: the real
 * parts as one float column, the imaginary parts as another with sign '+', then 'j' before the
 * imaginary column's padding. The formatter takes an element's index into `data`.
 */
export function complexFormatter(shown: readonly number[], data: ArrayLike<ScalarValue>, opts: PrintOptions): (i: number) => string {
  const re = (i: number): number => toFloat(data[2 * i]!, 'float32');
  const im = (i: number): number => toFloat(data[2 * i + 1]!, 'float32');
  const fr = floatingFormatter(shown.map(re), 'float32', opts);
  const fi = floatingFormatter(shown.map(im), 'float32', { ...opts, sign: '+' });
  return (i) => {
    const s = fi(im(i));
    const n = s.trimEnd().length;
    return `${fr(re(i))}${s.slice(0, n)}j${s.slice(n)}`;
  };
}

/** Formatter for the shown elements of an array of the given dtype. */
export function elementFormatter(
  values: readonly ScalarValue[], dtype: NpDType, is0d: boolean, opts: PrintOptions,
): ElementFormatter {
  if (isFloatDType(dtype)) {
    const f = floatingFormatter(values.map((v) => toFloat(v, dtype)), dtype, opts);
    return (v) => f(toFloat(v, dtype));
  }
  // ml_dtypes' bfloat16 is printed element by element with its str (NumPy's fallback), unpadded
  if (dtype === 'bfloat16') return (v) => bf16Str(toFloat(v, dtype));
  if (dtype === 'bool') {
    const truestr = is0d ? 'True' : ' True';
    return (v) => (toBool(v) ? truestr : 'False');
  }
  const f = integerFormatter(values.map(toBigInt), opts);
  return (v) => f(toBigInt(v));
}
