// NumPy's Dragon4 float printer (numpy/_core/src/multiarray/dragon4.c, NumPy 2.4),
// ported to JS BigInt: digit generation (unique/shortest or exact, with
// total-length or fraction-length cutoffs and IEEE round-half-even) and the
// positional / scientific layouts behind np.format_float_positional,
// np.format_float_scientific, array printing and NumPy scalar str/repr.

/** Floating dtypes Dragon4 knows how to decompose. */
export type FloatKind = 'float16' | 'float32' | 'float64';

/**
 * Trim modes, spelled as NumPy's Python API spells them:
 * 'k' keep trailing zeros, '.' trim zeros but keep the point,
 * '0' trim all but one zero after the point, '-' trim zeros and the point.
 */
export type TrimMode = 'k' | '.' | '0' | '-';

/** A finite float taken apart as mantissa * 2^exponent (NumPy's conventions). */
interface Decomposed {
  neg: boolean;
  /** 'inf' / 'nan' for non-finite values; then the other fields are unused. */
  special: 'inf' | 'nan' | null;
  mantissa: bigint;
  exponent: number;
  mantissaBit: number;
  unequalMargins: boolean;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u64 = new Uint32Array(f64.buffer);
// Word order of a float64 inside two uint32s depends on platform endianness.
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function log2Floor(m: bigint): number {
  return m.toString(2).length - 1;
}

/** A float16 value (held exactly in a double) taken apart: 10 mantissa bits, exponent bias 15. */
function decomposeF16(x: number): Decomposed {
  const neg = x < 0 || Object.is(x, -0);
  if (Number.isNaN(x) || !Number.isFinite(x)) return { neg, special: Number.isNaN(x) ? 'nan' : 'inf', mantissa: 0n, exponent: 0, mantissaBit: 0, unequalMargins: false };
  const a = Math.abs(x);
  if (a === 0) return { neg, special: null, mantissa: 0n, exponent: -24, mantissaBit: 0, unequalMargins: false };
  const e = Math.floor(Math.log2(a));
  if (e >= -14) {
    const m = a * 2 ** (10 - e);
    return { neg, special: null, mantissa: BigInt(m), exponent: e - 10, mantissaBit: 10, unequalMargins: e !== -14 && m === 1024 };
  }
  const m = BigInt(a * 2 ** 24);
  return { neg, special: null, mantissa: m, exponent: -24, mantissaBit: log2Floor(m), unequalMargins: false };
}

function decompose(x: number, kind: FloatKind): Decomposed {
  if (kind === 'float16') return decomposeF16(x);
  if (kind === 'float32') {
    f32[0] = x;
    const bits = u32[0]!;
    const mant = bits & 0x7fffff;
    const expo = (bits >>> 23) & 0xff;
    const neg = bits >>> 31 !== 0;
    if (expo === 0xff) {
      return { neg, special: mant === 0 ? 'inf' : 'nan', mantissa: 0n, exponent: 0, mantissaBit: 0, unequalMargins: false };
    }
    if (expo !== 0) {
      return {
        neg, special: null, mantissa: BigInt((1 << 23) | mant), exponent: expo - 127 - 23,
        mantissaBit: 23, unequalMargins: expo !== 1 && mant === 0,
      };
    }
    const m = BigInt(mant);
    return { neg, special: null, mantissa: m, exponent: 1 - 127 - 23, mantissaBit: mant === 0 ? 0 : log2Floor(m), unequalMargins: false };
  }
  f64[0] = x;
  const hi = LITTLE ? u64[1]! : u64[0]!;
  const lo = LITTLE ? u64[0]! : u64[1]!;
  const neg = hi >>> 31 !== 0;
  const expo = (hi >>> 20) & 0x7ff;
  const mantHi = hi & 0xfffff;
  const mant = (BigInt(mantHi) << 32n) | BigInt(lo);
  if (expo === 0x7ff) {
    return { neg, special: mant === 0n ? 'inf' : 'nan', mantissa: 0n, exponent: 0, mantissaBit: 0, unequalMargins: false };
  }
  if (expo !== 0) {
    return {
      neg, special: null, mantissa: (1n << 52n) | mant, exponent: expo - 1023 - 52,
      mantissaBit: 52, unequalMargins: expo !== 1 && mant === 0n,
    };
  }
  return { neg, special: null, mantissa: mant, exponent: 1 - 1023 - 52, mantissaBit: mant === 0n ? 0 : log2Floor(mant), unequalMargins: false };
}

/** NumPy's static output buffer is 16384 chars; it bounds the default cutoff. */
const BUFFER_SIZE = 16384;
const LOG10_2 = 0.30102999566398119521373889472449;

interface DigitsResult {
  /** Decimal digits, first digit non-zero unless the value is 0 or cut off to 0. */
  digits: string;
  /** Base-10 exponent of the first digit. */
  exp10: number;
}

/**
 * The Dragon4 digit generator, step for step as NumPy runs it.
 * cutoffMax / cutoffMin: -1 for none; counted in total digits (fractional=false)
 * or digits after the decimal point (fractional=true).
 */
function dragon4(
  d: Decomposed, unique: boolean, fractional: boolean, cutoffMax: number, cutoffMin: number, bufferSize: number,
): DigitsResult {
  const mantissa = d.mantissa;
  const exponent = d.exponent;
  if (mantissa === 0n) return { digits: '0', exp10: 0 };
  const isEven = (mantissa & 1n) === 0n;
  const unequal = d.unequalMargins;

  let scale: bigint;
  let scaledValue: bigint;
  let marginLow: bigint;
  if (unequal) {
    if (exponent > 0) {
      scaledValue = mantissa << BigInt(exponent + 2);
      scale = 4n;
      marginLow = 1n << BigInt(exponent);
    } else {
      scaledValue = mantissa << 2n;
      scale = 1n << BigInt(-exponent + 2);
      marginLow = 1n;
    }
  } else if (exponent > 0) {
    scaledValue = mantissa << BigInt(exponent + 1);
    scale = 2n;
    marginLow = 1n << BigInt(exponent);
  } else {
    scaledValue = mantissa << 1n;
    scale = 1n << BigInt(-exponent + 1);
    marginLow = 1n;
  }
  // With unequal margins the high margin is always twice the low one.
  const marginHigh = (): bigint => (unequal ? marginLow * 2n : marginLow);

  let digitExponent = Math.ceil((d.mantissaBit + exponent) * LOG10_2 - 0.69);
  if (cutoffMax >= 0 && fractional && digitExponent <= -cutoffMax) {
    digitExponent = -cutoffMax + 1;
  }
  if (digitExponent > 0) {
    scale *= 10n ** BigInt(digitExponent);
  } else if (digitExponent < 0) {
    const p = 10n ** BigInt(-digitExponent);
    scaledValue *= p;
    marginLow *= p;
  }
  if (scaledValue >= scale) {
    digitExponent += 1;
  } else {
    scaledValue *= 10n;
    marginLow *= 10n;
  }

  let cutoffMaxExp = digitExponent - bufferSize;
  if (cutoffMax >= 0) {
    const desired = fractional ? -cutoffMax : digitExponent - cutoffMax;
    if (desired > cutoffMaxExp) cutoffMaxExp = desired;
  }
  let cutoffMinExp = digitExponent;
  if (cutoffMin >= 0) {
    const desired = fractional ? -cutoffMin : digitExponent - cutoffMin;
    if (desired < cutoffMinExp) cutoffMinExp = desired;
  }
  let outExponent = digitExponent - 1;

  const out: number[] = [];
  let low = false;
  let high = false;
  let outputDigit = 0;
  if (unique) {
    for (;;) {
      digitExponent -= 1;
      outputDigit = Number(scaledValue / scale);
      scaledValue %= scale;
      const scaledValueHigh = scaledValue + marginHigh();
      low = isEven ? scaledValue <= marginLow : scaledValue < marginLow;
      high = isEven ? scaledValueHigh >= scale : scaledValueHigh > scale;
      if (((low || high) && digitExponent <= cutoffMinExp) || digitExponent === cutoffMaxExp) break;
      out.push(outputDigit);
      scaledValue *= 10n;
      marginLow *= 10n;
    }
  } else {
    for (;;) {
      digitExponent -= 1;
      outputDigit = Number(scaledValue / scale);
      scaledValue %= scale;
      if (scaledValue === 0n || digitExponent === cutoffMaxExp) break;
      out.push(outputDigit);
      scaledValue *= 10n;
    }
  }

  let roundDown = low;
  if (low === high) {
    const twice = scaledValue * 2n;
    roundDown = twice < scale;
    if (twice === scale) roundDown = (outputDigit & 1) === 0;
  }
  if (roundDown) {
    out.push(outputDigit);
  } else if (outputDigit === 9) {
    for (;;) {
      if (out.length === 0) {
        out.push(1);
        outExponent += 1;
        break;
      }
      const last = out.pop()!;
      if (last !== 9) {
        out.push(last + 1);
        break;
      }
    }
  } else {
    out.push(outputDigit + 1);
  }
  return { digits: out.join(''), exp10: outExponent };
}

/** Options of np.format_float_positional (NumPy's names; -1 = not given). */
export interface PositionalOptions {
  precision?: number;
  unique?: boolean;
  fractional?: boolean;
  trim?: TrimMode;
  sign?: boolean;
  padLeft?: number;
  padRight?: number;
  minDigits?: number;
}

/** Options of np.format_float_scientific (NumPy's names; -1 = not given). */
export interface ScientificOptions {
  precision?: number;
  unique?: boolean;
  trim?: TrimMode;
  sign?: boolean;
  padLeft?: number;
  expDigits?: number;
  minDigits?: number;
}

function signOf(d: Decomposed, sign: boolean): string {
  return d.neg ? '-' : sign ? '+' : '';
}

function infNan(d: Decomposed, signbit: string): string {
  // NumPy prints a sign only for inf, never for nan.
  return d.special === 'inf' ? `${signbit}inf` : 'nan';
}

/**
 * np.format_float_positional(x, ...) for a float32 or float64 value, with
 * NumPy's defaults (unique=True, fractional=True, trim='k').
 */
export function formatFloatPositional(x: number, kind: FloatKind, opts: PositionalOptions = {}): string {
  const precision = opts.precision ?? -1;
  const unique = opts.unique ?? true;
  const fractional = opts.fractional ?? true;
  const trim = opts.trim ?? 'k';
  const padLeft = opts.padLeft ?? -1;
  const padRight = opts.padRight ?? -1;
  const minDigits = opts.minDigits ?? -1;
  const d = decompose(x, kind);
  const signbit = signOf(d, opts.sign ?? false);
  if (d.special) return infNan(d, signbit);
  const hasSign = signbit ? 1 : 0;
  const maxPrintLen = BUFFER_SIZE - 1;
  const { digits, exp10: printExponent } = dragon4(d, unique, fractional, precision, minDigits, maxPrintLen - hasSign);
  const numDigits = digits.length;
  let numWholeDigits: number;
  let numFractionDigits = 0;
  let body: string;
  if (printExponent >= 0) {
    numWholeDigits = printExponent + 1;
    if (numDigits <= numWholeDigits) {
      body = digits + '0'.repeat(numWholeDigits - numDigits);
    } else {
      numFractionDigits = numDigits - numWholeDigits;
      body = `${digits.slice(0, numWholeDigits)}.${digits.slice(numWholeDigits)}`;
    }
  } else {
    const zeros = -(printExponent + 1);
    body = `0.${'0'.repeat(zeros)}${digits}`;
    numFractionDigits = numDigits + zeros;
    numWholeDigits = 1;
  }
  if (trim !== '-' && numFractionDigits === 0) body += '.';

  const addDigits = unique ? minDigits : precision;
  let desiredFractionalDigits = addDigits < 0 ? 0 : addDigits;
  if (!fractional) desiredFractionalDigits = addDigits - numWholeDigits;

  if (trim === '0') {
    if (numFractionDigits === 0) {
      body += '0';
      numFractionDigits++;
    }
  } else if (trim === 'k' && desiredFractionalDigits > numFractionDigits) {
    body += '0'.repeat(desiredFractionalDigits - numFractionDigits);
    numFractionDigits = desiredFractionalDigits;
  }
  if (trim !== 'k' && numFractionDigits > 0) {
    let end = body.length;
    while (body[end - 1] === '0') {
      end--;
      numFractionDigits--;
    }
    body = body.slice(0, end);
    if (body.endsWith('.')) {
      if (trim === '0') {
        body += '0';
        numFractionDigits++;
      } else if (trim === '-') {
        body = body.slice(0, -1);
      }
    }
  }
  if (padRight >= numFractionDigits) {
    if (trim === '-' && numFractionDigits === 0) body += ' ';
    body += ' '.repeat(padRight - numFractionDigits);
  }
  let s = signbit + body;
  if (padLeft > numWholeDigits + hasSign) s = ' '.repeat(padLeft - numWholeDigits - hasSign) + s;
  return s;
}

/**
 * np.format_float_scientific(x, ...) for a float32 or float64 value, with
 * NumPy's defaults (unique=True, trim='k', exponent of at least 2 digits).
 */
export function formatFloatScientific(x: number, kind: FloatKind, opts: ScientificOptions = {}): string {
  const precision = opts.precision ?? -1;
  const unique = opts.unique ?? true;
  const trim = opts.trim ?? 'k';
  const padLeft = opts.padLeft ?? -1;
  let expDigits = opts.expDigits ?? -1;
  const minDigits = opts.minDigits ?? -1;
  const d = decompose(x, kind);
  const signbit = signOf(d, opts.sign ?? false);
  if (d.special) return infNan(d, signbit);

  const leftchars = 1 + (signbit ? 1 : 0);
  let s = padLeft > leftchars ? ' '.repeat(padLeft - leftchars) : '';
  s += signbit;
  const { digits, exp10 } = dragon4(
    d, unique, false, precision < 0 ? -1 : precision + 1, minDigits < 0 ? -1 : minDigits + 1, BUFFER_SIZE - s.length,
  );
  let body = digits[0]!;
  let numFractionDigits = digits.length - 1;
  if (numFractionDigits > 0) body += `.${digits.slice(1)}`;
  if (trim !== '-' && numFractionDigits === 0) body += '.';

  let addDigits = unique ? minDigits : precision;
  addDigits = addDigits < 0 ? 0 : addDigits;
  if (trim === '0') {
    if (numFractionDigits === 0) {
      body += '0';
      numFractionDigits++;
    }
  } else if (trim === 'k' && addDigits > numFractionDigits) {
    body += '0'.repeat(addDigits - numFractionDigits);
    numFractionDigits = addDigits;
  }
  if (trim !== 'k' && numFractionDigits > 0) {
    let end = body.length;
    while (body[end - 1] === '0') {
      end--;
      numFractionDigits--;
    }
    body = body.slice(0, end);
    if (trim === '0' && body.endsWith('.')) {
      body += '0';
      numFractionDigits++;
    }
  }

  if (expDigits > 5) expDigits = 5;
  if (expDigits < 0) expDigits = 2;
  const e = Math.abs(exp10);
  const eStr = String(e).padStart(expDigits, '0');
  return `${s}${body}e${exp10 >= 0 ? '+' : '-'}${eStr}`;
}

/**
 * Shortest round-trip digits of a float32/float64 (NumPy's Dragon4 in unique
 * mode): the digit string (no leading/trailing zeros; '0' for zero) and the
 * base-10 exponent of its first digit. Non-finite values are not accepted.
 */
export function shortestDigits(x: number, kind: FloatKind): { digits: string; exp10: number } {
  const d = decompose(x, kind);
  if (d.special) throw new RangeError(`shortestDigits: non-finite value ${x}`);
  return dragon4(d, true, false, -1, -1, BUFFER_SIZE);
}
