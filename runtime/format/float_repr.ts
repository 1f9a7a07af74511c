// Python float to text: repr(float) and CPython's PyOS_double_to_string
// (format_float_short over David Gay's dtoa modes 0/2/3, reproduced with exact
// BigInt arithmetic and round-half-even), plus the shortest float32 repr.

import { shortestDigits } from './dragon4.js';

/** Output of Gay's dtoa: digits without trailing zeros, decimal point position, sign. */
export interface DtoaResult {
  /** 'inf' / 'nan' for non-finite input. */
  special: 'inf' | 'nan' | null;
  neg: boolean;
  /** Significant digits, no trailing zeros; '' when mode 3 rounded the value to zero. */
  digits: string;
  /** Position of the decimal point relative to the start of `digits`. */
  decpt: number;
}

/** x (finite, non-zero, positive) as an exact fraction num / den, den a power of two. */
function exactFraction(x: number): { num: bigint; den: bigint } {
  // Scale by powers of two (exact) until integral.
  let e = 0;
  let m = x;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  // m is an integer-valued double (possibly huge); BigInt(m) is exact.
  return { num: BigInt(m), den: 1n << BigInt(e) };
}

/** Round num/den to the nearest integer, ties to even (num, den > 0). */
function roundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r = num - q * den;
  const twice = r * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) return q + 1n;
  return q;
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function stripZeros(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '0') end--;
  return s.slice(0, end);
}

/**
 * Gay's dtoa as CPython calls it: mode 0 = shortest round-trip digits,
 * mode 2 = max(1, ndigits) significant digits, mode 3 = ndigits past the
 * decimal point (may be negative). Correctly rounded, ties to even.
 */
export function dtoa(x: number, mode: 0 | 2 | 3, ndigits: number): DtoaResult {
  if (Number.isNaN(x)) return { special: 'nan', neg: false, digits: '', decpt: 0 };
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  if (ax === Infinity) return { special: 'inf', neg, digits: '', decpt: 0 };
  if (ax === 0) return { special: null, neg, digits: '0', decpt: 1 };
  if (mode === 0) {
    // ECMAScript's Number-to-string is the shortest round-trip, closest digits, as Python's repr.
    const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(ax.toExponential());
    if (!m) throw new Error(`dtoa: unexpected toExponential output for ${ax}`);
    return { special: null, neg, digits: stripZeros(m[1]! + (m[2] ?? '')), decpt: Number(m[3]) + 1 };
  }
  const { num, den } = exactFraction(ax);
  if (mode === 3) {
    const r = ndigits >= 0 ? roundHalfEven(num * pow10(ndigits), den) : roundHalfEven(num, den * pow10(-ndigits));
    if (r === 0n) return { special: null, neg, digits: '', decpt: -ndigits };
    const s = r.toString();
    return { special: null, neg, digits: stripZeros(s), decpt: s.length - ndigits };
  }
  const nd = Math.max(1, ndigits);
  // k = floor(log10(ax)), estimated then fixed exactly.
  let k = Math.floor(Math.log10(ax));
  const geq10k = (kk: number): boolean => (kk >= 0 ? num >= pow10(kk) * den : num * pow10(-kk) >= den);
  while (!geq10k(k)) k--;
  while (geq10k(k + 1)) k++;
  const shift = nd - 1 - k;
  let r = shift >= 0 ? roundHalfEven(num * pow10(shift), den) : roundHalfEven(num, den * pow10(-shift));
  let decpt = k + 1;
  if (r === pow10(nd)) {
    r = pow10(nd - 1);
    decpt += 1;
  }
  return { special: null, neg, digits: stripZeros(r.toString()), decpt };
}

/** Flags of PyOS_double_to_string. */
export interface DoubleToStringFlags {
  /** Py_DTSF_SIGN: always write a sign. */
  sign?: boolean;
  /** Py_DTSF_ADD_DOT_0: integral results get '.0' (repr style). */
  addDot0?: boolean;
  /** Py_DTSF_ALT: alternate form ('#'). */
  alt?: boolean;
  /** Py_DTSF_NO_NEG_0: a result that rounds to zero loses its minus sign ('z'). */
  noNeg0?: boolean;
}

/**
 * CPython's PyOS_double_to_string(val, format_code, precision, flags):
 * format_code one of 'e','E','f','F','g','G','r'.
 */
export function doubleToString(
  val: number, formatCode: 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'r', precision: number, flags: DoubleToStringFlags = {},
): string {
  let code: 'e' | 'f' | 'g' | 'r';
  let upper = false;
  let mode: 0 | 2 | 3;
  switch (formatCode) {
    case 'E': upper = true; code = 'e'; mode = 2; precision++; break;
    case 'e': code = 'e'; mode = 2; precision++; break;
    case 'F': upper = true; code = 'f'; mode = 3; break;
    case 'f': code = 'f'; mode = 3; break;
    case 'G': upper = true; code = 'g'; mode = 2; if (precision === 0) precision = 1; break;
    case 'g': code = 'g'; mode = 2; if (precision === 0) precision = 1; break;
    default: code = 'r'; mode = 0; precision = 0; break;
  }
  const r = dtoa(val, mode, precision);
  let sign = r.neg;
  if (r.special) {
    if (r.special === 'nan') sign = false;
    const word = upper ? r.special.toUpperCase() : r.special;
    return (sign ? '-' : flags.sign ? '+' : '') + word;
  }
  const digits = r.digits;
  const digitsLen = digits.length;
  let decpt = r.decpt;
  if (flags.noNeg0 && sign && (digitsLen === 0 || digits === '0')) sign = false;

  let useExp = false;
  let exp = 0;
  let vdigitsEnd = digitsLen;
  switch (code) {
    case 'e':
      useExp = true;
      vdigitsEnd = precision;
      break;
    case 'f':
      vdigitsEnd = decpt + precision;
      break;
    case 'g':
      if (decpt <= -4 || decpt > (flags.addDot0 ? precision - 1 : precision)) useExp = true;
      if (flags.alt) vdigitsEnd = precision;
      break;
    default:
      if (decpt <= -4 || decpt > 16) useExp = true;
      break;
  }
  if (useExp) {
    exp = decpt - 1;
    decpt = 1;
  }
  const vdigitsStart = decpt <= 0 ? decpt - 1 : 0;
  if (!useExp && flags.addDot0) vdigitsEnd = vdigitsEnd > decpt ? vdigitsEnd : decpt + 1;
  else vdigitsEnd = vdigitsEnd > decpt ? vdigitsEnd : decpt;

  let p = sign ? '-' : flags.sign ? '+' : '';
  if (decpt <= 0) {
    p += `${'0'.repeat(decpt - vdigitsStart)}.${'0'.repeat(-decpt)}`;
  } else {
    p += '0'.repeat(-vdigitsStart);
  }
  if (decpt > 0 && decpt <= digitsLen) {
    p += `${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  } else {
    p += digits;
  }
  if (digitsLen < decpt) {
    p += `${'0'.repeat(decpt - digitsLen)}.${'0'.repeat(vdigitsEnd - decpt)}`;
  } else {
    p += '0'.repeat(vdigitsEnd - digitsLen);
  }
  if (p.endsWith('.') && !flags.alt) p = p.slice(0, -1);
  if (useExp) {
    const a = Math.abs(exp);
    p += `${upper ? 'E' : 'e'}${exp < 0 ? '-' : '+'}${a < 10 ? `0${a}` : String(a)}`;
  }
  return p;
}

/** Python's repr(float) (and str(float)): '0.1', '1e-05', '1e+16', '1.0', '-0.0', 'inf', 'nan'. */
export function pyFloatRepr(x: number): string {
  return doubleToString(x, 'r', 0, { addDot0: true });
}

/** repr() (and str) of a Python complex: '(1+2j)', '2j', '(-0-1j)', '(nan+infj)'. */
export function pyComplexRepr(re: number, im: number, part: (x: number) => string = (x) => doubleToString(x, 'r', 0, {})): string {
  const i = part(im);
  const imag = `${i.startsWith('-') ? '' : '+'}${i}j`;
  if (re === 0 && !Object.is(re, -0)) return imag.startsWith('+') ? imag.slice(1) : imag;
  return `(${part(re)}${imag})`;
}

/**
 * The shortest decimal string (JS-parsable, no exponent style guarantees) that
 * rounds back to the same float32 as `x`. Example: 0.1f → '0.1'.
 */
export function float32ShortestString(x: number): string {
  const v = Math.fround(x);
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const { digits, exp10 } = shortestDigits(v, 'float32');
  return `${v < 0 ? '-' : ''}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp10}`;
}

/**
 * Python's round(x, ndigits) of a float, as CPython computes it: the exact
 * binary value rounded to `ndigits` decimal places (ties, which only an exact
 * value can be, to even), then the nearest double to that decimal.
 */
export function pyRoundDigits(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0 || ndigits > 323) return x;
  if (ndigits < -308) return x < 0 ? -0 : 0;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const bits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exp = -1074;
  if (bits !== 0) {
    mant |= 1n << 52n;
    exp = bits - 1075;
  }
  // |x| * 10**ndigits = num / den exactly
  const num = mant * (exp > 0 ? 2n ** BigInt(exp) : 1n) * (ndigits > 0 ? 10n ** BigInt(ndigits) : 1n);
  const den = (exp < 0 ? 2n ** BigInt(-exp) : 1n) * (ndigits < 0 ? 10n ** BigInt(-ndigits) : 1n);
  let q = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  const r = Number(`${q}e${-ndigits}`);
  return x < 0 ? -r : r;
}
