// Python's format-spec mini-language (format(value, spec), f"{x:spec}"):
// the parser and the int / float / str / bool renderers of CPython 3.11's
// Python/formatter_unicode.c, with Python's error messages.

import { doubleToString } from './float_repr.js';
import { isPyObjectLike, pyStr, pyTypeName, PyInt, type PyValue } from './python_repr.js';

/** A Python exception raised while formatting; `message` is Python's text. */
export class PyFormatError extends Error {
  constructor(readonly pyType: 'ValueError' | 'TypeError' | 'OverflowError' | 'KeyError', message: string) {
    super(message);
    this.name = pyType;
  }
}

/** A parsed format spec ([[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type]). */
export interface FormatSpec {
  fill: string;
  align: '<' | '>' | '^' | '=';
  /** '' when no sign was given. */
  sign: '' | '+' | '-' | ' ';
  noNeg0: boolean;
  alternate: boolean;
  /** -1 when not given. */
  width: number;
  grouping: '' | ',' | '_';
  /** -1 when not given. */
  precision: number;
  /** '' when the type was omitted (the renderer's default applies). */
  type: string;
}

type Align = FormatSpec['align'];

const isAlign = (c: string | undefined): c is Align => c === '<' || c === '>' || c === '^' || c === '=';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

function readInt(cps: readonly string[], pos: number): [number, number] {
  let end = pos;
  while (end < cps.length && isDigit(cps[end])) end++;
  if (end === pos) return [-1, pos];
  const text = cps.slice(pos, end).join('');
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new PyFormatError('ValueError', 'Too many decimal digits in format string');
  return [n, end];
}

function cpName(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 32 && cp < 128 ? `'${c}'` : `'\\x${cp.toString(16)}'`;
}

/**
 * Parse a format spec the way CPython does for a value of Python type
 * `typeName` whose renderer defaults to `defaultType` and `defaultAlign`.
 */
export function parseFormatSpec(spec: string, typeName: string, defaultType: string, defaultAlign: Align): FormatSpec {
  const cps = Array.from(spec);
  const end = cps.length;
  let pos = 0;
  const f: FormatSpec = {
    fill: ' ', align: defaultAlign, sign: '', noNeg0: false, alternate: false,
    width: -1, grouping: '', precision: -1, type: defaultType,
  };
  let alignSpecified = false;
  let fillSpecified = false;
  if (end - pos >= 2 && isAlign(cps[pos + 1])) {
    f.align = cps[pos + 1] as Align;
    f.fill = cps[pos]!;
    fillSpecified = true;
    alignSpecified = true;
    pos += 2;
  } else if (end - pos >= 1 && isAlign(cps[pos])) {
    f.align = cps[pos] as Align;
    alignSpecified = true;
    pos += 1;
  }
  const c0 = cps[pos];
  if (c0 === '+' || c0 === '-' || c0 === ' ') {
    f.sign = c0;
    pos++;
  }
  if (cps[pos] === 'z') {
    f.noNeg0 = true;
    pos++;
  }
  if (cps[pos] === '#') {
    f.alternate = true;
    pos++;
  }
  if (!fillSpecified && cps[pos] === '0') {
    f.fill = '0';
    if (!alignSpecified && defaultAlign === '>') f.align = '=';
    pos++;
  }
  [f.width, pos] = readInt(cps, pos);
  if (cps[pos] === ',') {
    f.grouping = ',';
    pos++;
  }
  if (cps[pos] === '_') {
    if (f.grouping !== '') throw new PyFormatError('ValueError', "Cannot specify both ',' and '_'.");
    f.grouping = '_';
    pos++;
  }
  if (cps[pos] === ',' && f.grouping === '_') throw new PyFormatError('ValueError', "Cannot specify both ',' and '_'.");
  if (cps[pos] === '.') {
    pos++;
    const [p, next] = readInt(cps, pos);
    if (p < 0) throw new PyFormatError('ValueError', 'Format specifier missing precision');
    f.precision = p;
    pos = next;
  }
  if (end - pos > 1) {
    throw new PyFormatError('ValueError', `Invalid format specifier '${spec}' for object of type '${typeName}'`);
  }
  if (end - pos === 1) f.type = cps[pos]!;
  if (f.grouping !== '') {
    // PEP 378 allows ',' and '_' for decimal types; PEP 515 allows '_' for b/o/x/X.
    const decimal = 'defgEG%F'.includes(f.type) || f.type === '';
    const binary = f.type.length === 1 && 'boxX'.includes(f.type);
    if (!decimal && !(binary && f.grouping === '_')) {
      throw new PyFormatError('ValueError', `Cannot specify '${f.grouping}' with ${cpName(f.type)}.`);
    }
  }
  return f;
}

function unknownCode(type: string, typeName: string): PyFormatError {
  return new PyFormatError('ValueError', `Unknown format code ${cpName(type)} for object of type '${typeName}'`);
}

/** CPython's _PyUnicode_InsertThousandsGrouping, zero-filling up to minWidth. */
function groupDigits(digits: string, minWidth: number, groupSize: number, sep: string): string {
  let mw = Math.max(0, minWidth);
  let remaining = digits.length;
  let dpos = digits.length;
  const chunks: string[] = [];
  const take = (len: number): void => {
    const nZeros = Math.max(0, len - remaining);
    const nChars = Math.max(0, Math.min(remaining, len));
    chunks.push('0'.repeat(nZeros) + digits.slice(dpos - nChars, dpos));
    dpos -= nChars;
    remaining -= nChars;
  };
  let broken = false;
  if (groupSize > 0) {
    for (;;) {
      const len = Math.min(groupSize, Math.max(remaining, mw, 1));
      take(len);
      mw -= len;
      if (remaining <= 0 && mw <= 0) {
        broken = true;
        break;
      }
      mw -= sep.length;
    }
  }
  if (!broken) take(Math.max(remaining, mw, 1));
  return chunks.reverse().join(sep);
}

interface NumberParts {
  /** '-' when the number is negative. */
  signChar: '' | '-';
  /** '0x' etc. (already cased), written between sign and padding. */
  prefix: string;
  /** Leading digit run that grouping applies to ('' for inf/nan and 'c'). */
  digits: string;
  hasDecimal: boolean;
  /** Everything after the digit run and decimal point. */
  remainder: string;
}

/** calc_number_widths + fill_number: padding, sign, prefix, grouping, remainder. */
function renderNumber(f: FormatSpec, p: NumberParts, groupSize: number, sep: string, upper: boolean): string {
  let sign = '';
  if (f.sign === '+') sign = p.signChar === '-' ? '-' : '+';
  else if (f.sign === ' ') sign = p.signChar === '-' ? '-' : ' ';
  else if (p.signChar === '-') sign = '-';
  const nonDigit = sign.length + p.prefix.length + (p.hasDecimal ? 1 : 0) + Array.from(p.remainder).length;
  const minWidth = f.fill === '0' && f.align === '=' ? f.width - nonDigit : 0;
  let grouped = p.digits.length === 0 ? '' : groupDigits(p.digits, minWidth, groupSize, sep);
  if (upper) grouped = grouped.toUpperCase();
  const nPadding = f.width - (nonDigit + grouped.length);
  let lpad = 0;
  let spad = 0;
  let rpad = 0;
  if (nPadding > 0) {
    switch (f.align) {
      case '<': rpad = nPadding; break;
      case '^': lpad = Math.floor(nPadding / 2); rpad = nPadding - lpad; break;
      case '=': spad = nPadding; break;
      default: lpad = nPadding; break;
    }
  }
  return f.fill.repeat(lpad) + sign + p.prefix + f.fill.repeat(spad) + grouped
    + (p.hasDecimal ? '.' : '') + p.remainder + f.fill.repeat(rpad);
}

function groupingOf(f: FormatSpec, forcedNone: boolean): [number, string] {
  if (forcedNone || f.grouping === '') return [0, ''];
  if (f.grouping === ',') return [3, ','];
  const four = f.type === 'b' || f.type === 'o' || f.type === 'x' || f.type === 'X';
  return [four ? 4 : 3, '_'];
}

function padString(s: string, f: FormatSpec): string {
  const n = Array.from(s).length;
  const total = f.width >= 0 && f.width > n ? f.width : n;
  let lpad: number;
  if (f.align === '>') lpad = total - n;
  else if (f.align === '^') lpad = Math.floor((total - n) / 2);
  else lpad = 0;
  const rpad = total - n - lpad;
  return f.fill.repeat(lpad) + s + f.fill.repeat(rpad);
}

/** format(s, spec) for a Python str. */
export function formatStr(s: string, spec: string): string {
  if (spec === '') return s;
  const f = parseFormatSpec(spec, 'str', 's', '<');
  if (f.type !== 's') throw unknownCode(f.type, 'str');
  if (f.sign !== '') throw new PyFormatError('ValueError', 'Sign not allowed in string format specifier');
  if (f.noNeg0) throw new PyFormatError('ValueError', 'Negative zero coercion (z) not allowed in string format specifier');
  if (f.alternate) throw new PyFormatError('ValueError', 'Alternate form (#) not allowed in string format specifier');
  if (f.align === '=') throw new PyFormatError('ValueError', "'=' alignment not allowed in string format specifier");
  let text = s;
  if (f.precision >= 0) {
    const cps = Array.from(s);
    if (cps.length >= f.precision) text = cps.slice(0, f.precision).join('');
  }
  return padString(text, f);
}

function floatParts(str: string): NumberParts {
  let i = 0;
  let signChar: '' | '-' = '';
  if (str[0] === '-') {
    signChar = '-';
    i = 1;
  }
  let j = i;
  while (j < str.length && isDigit(str[j])) j++;
  const hasDecimal = str[j] === '.';
  return { signChar, prefix: '', digits: str.slice(i, j), hasDecimal, remainder: str.slice(hasDecimal ? j + 1 : j) };
}

function formatFloatWith(x: number, f: FormatSpec): string {
  let type = f.type;
  let precision = f.precision;
  let defaultPrecision = 6;
  let addDot0 = false;
  let addPct = false;
  let val = x;
  if (type === '') {
    addDot0 = true;
    type = 'r';
    defaultPrecision = 0;
  }
  if (type === 'n') type = 'g';
  if (type === '%') {
    type = 'f';
    val *= 100;
    addPct = true;
  }
  if (precision < 0) precision = defaultPrecision;
  else if (type === 'r') type = 'g';
  let buf = doubleToString(val, type as 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'r', precision, {
    addDot0, alt: f.alternate, noNeg0: f.noNeg0,
  });
  if (addPct) buf += '%';
  const [groupSize, sep] = groupingOf(f, f.type === 'n');
  return renderNumber(f, floatParts(buf), groupSize, sep, false);
}

/** format(x, spec) for a Python float. */
export function formatFloat(x: number, spec: string): string {
  if (spec === '') return doubleToString(x, 'r', 0, { addDot0: true });
  const f = parseFormatSpec(spec, 'float', '', '>');
  switch (f.type) {
    case '': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%':
      return formatFloatWith(x, f);
    default:
      throw unknownCode(f.type, 'float');
  }
}

function intToFloat(v: bigint): number {
  const x = Number(v);
  if (!Number.isFinite(x)) throw new PyFormatError('OverflowError', 'int too large to convert to float');
  return x;
}

function formatIntWith(v: bigint, f: FormatSpec): string {
  if (f.precision !== -1) throw new PyFormatError('ValueError', 'Precision not allowed in integer format specifier');
  if (f.noNeg0) throw new PyFormatError('ValueError', 'Negative zero coercion (z) not allowed in integer format specifier');
  if (f.type === 'c') {
    if (f.sign !== '') throw new PyFormatError('ValueError', "Sign not allowed with integer format specifier 'c'");
    if (f.alternate) throw new PyFormatError('ValueError', "Alternate form (#) not allowed with integer format specifier 'c'");
    if (v > 0x7fffffffffffffffn || v < -0x8000000000000000n) {
      throw new PyFormatError('OverflowError', 'Python int too large to convert to C long');
    }
    if (v < 0n || v > 0x10ffffn) throw new PyFormatError('OverflowError', '%c arg not in range(0x110000)');
    const ch = String.fromCodePoint(Number(v));
    return renderNumber(f, { signChar: '', prefix: '', digits: '', hasDecimal: false, remainder: ch }, 0, '', false);
  }
  let base = 10;
  let prefix = '';
  switch (f.type) {
    case 'b': base = 2; prefix = '0b'; break;
    case 'o': base = 8; prefix = '0o'; break;
    case 'x': base = 16; prefix = '0x'; break;
    case 'X': base = 16; prefix = '0X'; break;
    default: break;
  }
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString(base);
  const [groupSize, sep] = groupingOf(f, f.type === 'n');
  return renderNumber(
    f, { signChar: neg ? '-' : '', prefix: f.alternate ? prefix : '', digits, hasDecimal: false, remainder: '' },
    groupSize, sep, f.type === 'X',
  );
}

/** format(v, spec) for a Python int (typeName 'bool' formats True/False as 1/0 with Python's bool messages). */
export function formatInt(v: bigint | number, spec: string, typeName = 'int'): string {
  const b = typeof v === 'bigint' ? v : BigInt(Math.trunc(v));
  if (spec === '') return b.toString();
  const f = parseFormatSpec(spec, typeName, 'd', '>');
  switch (f.type) {
    case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n':
      return formatIntWith(b, f);
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
      return formatFloatWith(intToFloat(b), f);
    default:
      throw unknownCode(f.type, typeName);
  }
}

/** format(b, spec) for a Python bool: 'True' for an empty spec, else formatted as the int 1/0. */
export function formatBool(b: boolean, spec: string): string {
  if (spec === '') return b ? 'True' : 'False';
  return formatInt(b ? 1n : 0n, spec, 'bool');
}

/**
 * Python's format(value, spec) / f"{value:spec}": numbers, strings, bools by
 * the mini-language; objects with __format__ by it; anything else only with an
 * empty spec (str(value)), else TypeError as object.__format__ raises it.
 * Throws PyFormatError carrying Python's exception type and message.
 */
export function formatValue(value: PyValue, spec: string): string {
  if (typeof value === 'number') return formatFloat(value, spec);
  if (typeof value === 'bigint') return formatInt(value, spec);
  if (typeof value === 'boolean') return formatBool(value, spec);
  if (typeof value === 'string') return formatStr(value, spec);
  if (value instanceof PyInt) return formatInt(value.value, spec);
  if (isPyObjectLike(value) && value.__format__) return value.__format__(spec);
  if (spec === '') return pyStr(value);
  throw new PyFormatError('TypeError', `unsupported format string passed to ${pyTypeName(value)}.__format__`);
}
