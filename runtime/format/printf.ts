// printf-style string formatting, Python's `format % args` (CPython 3.11's
// PyUnicode_Format): the directive scanner with its argument bookkeeping
// (tuple, single value, mapping keys, '*' width/precision), and the
// conversion of one argument. Numbers go through the format-spec renderers:
// `%-+08.3f` is format(x, '<+8.3f'), `%#x` is format(x, '#x').

import { formatStr, formatValue, PyFormatError } from './format_spec.js';
import { PyInt, PyNamedTuple, PyTuple, pyRepr, pyStr, pyTypeName, type PyValue } from './python_repr.js';

/** One conversion, with its width and precision resolved ('*' taken from the arguments). */
export interface PrintfSpec {
  /** '-' flag */
  ljust: boolean;
  /** '+' flag */
  sign: boolean;
  /** ' ' flag */
  blank: boolean;
  /** '#' flag */
  alt: boolean;
  /** '0' flag */
  zero: boolean;
  /** -1 when absent. */
  width: number;
  /** -1 when absent. */
  prec: number;
  /** The conversion character: one of `diuoxXeEfFgGcrsa`. */
  conv: string;
}

/** How the scanner sees the argument values of one caller (compile-time values, run-time values). */
export interface PrintfArgs<V> {
  /** The items when `args` is a tuple (then one item per conversion), else null. */
  tupleItems(args: V): readonly V[] | null;
  /** A mapping other than a tuple or str: `%(key)s` may look keys up in it, and unused arguments are no error. */
  isMapping(args: V): boolean;
  /** `mapping[key]` (raises the caller's KeyError). */
  getItem(mapping: V, key: string): V;
  /** The value of an int argument of '*', or null when it is not an int. */
  starInt(v: V): number | null;
}

export type PrintfPart<V> = string | { value: V; spec: PrintfSpec };

const CONVERSIONS = 'diuoxXeEfFgGcrsa';
const INT_MAX = 2147483647;

/**
 * Scan `fmt` against `args` as `fmt % args` does, calling `out` with each
 * literal piece and each (value, conversion) in order, so that the caller's
 * conversion errors come in Python's order. Throws PyFormatError.
 */
export function scanPrintf<V>(fmt: string, args: V, a: PrintfArgs<V>, out: (part: PrintfPart<V>) => void): void {
  const cs = Array.from(fmt);
  const items = a.tupleItems(args);
  const dict = items === null && a.isMapping(args) ? args : null;
  let current = args;
  let arglen = items ? items.length : -1;
  let argidx = items ? 0 : -2;
  const nextArg = (): V => {
    if (argidx < arglen) {
      const i = argidx++;
      return arglen < 0 ? current : items![i]!;
    }
    throw new PyFormatError('TypeError', 'not enough arguments for format string');
  };
  const starArg = (): number => {
    const n = a.starInt(nextArg());
    if (n === null) throw new PyFormatError('TypeError', '* wants int');
    return n;
  };
  let pos = 0;
  let lit = '';
  while (pos < cs.length) {
    if (cs[pos] !== '%') {
      lit += cs[pos++];
      continue;
    }
    pos++;
    if (cs[pos] === '%') {
      lit += '%';
      pos++;
      continue;
    }
    if (lit) out(lit);
    lit = '';
    if (cs[pos] === '(') {
      if (dict === null) throw new PyFormatError('TypeError', 'format requires a mapping');
      let depth = 1;
      const start = ++pos;
      for (; pos < cs.length && depth > 0; pos++) {
        if (cs[pos] === ')') depth--;
        else if (cs[pos] === '(') depth++;
      }
      if (depth > 0) throw new PyFormatError('ValueError', 'incomplete format key');
      current = a.getItem(dict, cs.slice(start, pos - 1).join(''));
      arglen = -1;
      argidx = -2;
    }
    const spec: PrintfSpec = { ljust: false, sign: false, blank: false, alt: false, zero: false, width: -1, prec: -1, conv: '' };
    for (; pos < cs.length; pos++) {
      const c = cs[pos];
      if (c === '-') spec.ljust = true;
      else if (c === '+') spec.sign = true;
      else if (c === ' ') spec.blank = true;
      else if (c === '#') spec.alt = true;
      else if (c === '0') spec.zero = true;
      else break;
    }
    const digits = (what: string, max: number): number => {
      let n = 0;
      for (; pos < cs.length && cs[pos]! >= '0' && cs[pos]! <= '9'; pos++) {
        n = n * 10 + Number(cs[pos]);
        if (n > max) throw new PyFormatError('ValueError', `${what} too big`);
      }
      return n;
    };
    if (cs[pos] === '*') {
      pos++;
      spec.width = starArg();
      if (spec.width < 0) {
        spec.ljust = true;
        spec.width = -spec.width;
      }
    } else if (cs[pos] !== undefined && cs[pos]! >= '0' && cs[pos]! <= '9') {
      spec.width = digits('width', Number.MAX_SAFE_INTEGER);
    }
    if (cs[pos] === '.') {
      pos++;
      spec.prec = 0;
      if (cs[pos] === '*') {
        pos++;
        spec.prec = Math.max(0, starArg());
      } else spec.prec = digits('precision', INT_MAX);
    }
    if (cs[pos] === 'h' || cs[pos] === 'l' || cs[pos] === 'L') pos++;
    if (pos >= cs.length) throw new PyFormatError('ValueError', 'incomplete format');
    spec.conv = cs[pos++]!;
    const value = nextArg();
    if (!CONVERSIONS.includes(spec.conv)) {
      const code = spec.conv.codePointAt(0)!;
      const shown = code >= 31 && code <= 126 ? spec.conv : '?';
      throw new PyFormatError('ValueError', `unsupported format character '${shown}' (0x${code.toString(16)}) at index ${pos - 1}`);
    }
    out({ value, spec });
  }
  if (lit) out(lit);
  if (argidx < arglen && dict === null) throw new PyFormatError('TypeError', 'not all arguments converted during string formatting');
}

/** The conversion as a one-argument format string (`%-8.3f`), to apply later with pyPercentFormat. */
export function printfSpecText(s: PrintfSpec): string {
  const flags = `${s.ljust ? '-' : ''}${s.sign ? '+' : ''}${s.blank ? ' ' : ''}${s.alt ? '#' : ''}${s.zero ? '0' : ''}`;
  return `%${flags}${s.width >= 0 ? s.width : ''}${s.prec >= 0 ? `.${s.prec}` : ''}${s.conv}`;
}

/** The TypeError that `spec` raises for an argument of Python type `typeName` that it cannot convert. */
export function printfTypeError(conv: string, typeName: string): PyFormatError {
  if (conv === 'c') return new PyFormatError('TypeError', '%c requires int or char');
  if ('eEfFgG'.includes(conv)) return new PyFormatError('TypeError', `must be real number, not ${typeName}`);
  const what = 'oxX'.includes(conv) ? 'an integer' : 'a real number';
  return new PyFormatError('TypeError', `%${conv} format: ${what} is required, not ${typeName}`);
}

/** ascii(): a repr with every non-ASCII character escaped. */
export function asciiEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out;
}

/** Padding and truncation of an `s`/`r`/`a`/`c` conversion's text, as format(text, spec). */
function padText(s: string, spec: PrintfSpec): string {
  const truncate = spec.prec >= 0 && spec.conv !== 'c' ? `.${spec.prec}` : '';
  if (spec.width < 0 && !truncate) return s;
  return formatStr(s, `${spec.ljust ? '<' : '>'}${spec.width >= 0 ? spec.width : ''}${truncate}`);
}

const signFlag = (spec: PrintfSpec): string => (spec.sign ? '+' : spec.blank ? ' ' : '');

/** The format-spec prefix ([align][sign][#][0][width]) of a numeric conversion. */
function numberSpec(spec: PrintfSpec, alt: boolean, width: number): string {
  const zero = spec.zero && !spec.ljust ? '0' : '';
  return `${spec.ljust ? '<' : ''}${signFlag(spec)}${alt ? '#' : ''}${zero}${width >= 0 ? width : ''}`;
}

function intArg(v: PyValue, conv: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (v instanceof PyInt) return BigInt(v.value);
  if (typeof v === 'number' && !'oxX'.includes(conv)) {
    if (Number.isNaN(v)) throw new PyFormatError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(v)) throw new PyFormatError('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(v));
  }
  throw printfTypeError(conv, pyTypeName(v));
}

function formatInteger(x: bigint, spec: PrintfSpec): string {
  const type = 'diu'.includes(spec.conv) ? 'd' : spec.conv;
  const alt = spec.alt && type !== 'd';
  if (spec.prec < 0) return formatValue(x, numberSpec(spec, alt, spec.width) + type);
  // the precision is a minimum digit count: zero-fill the digits, then pad to the width
  const body = (x < 0n || spec.sign || spec.blank ? 1 : 0) + (alt ? 2 : 0) + spec.prec;
  if (spec.zero && !spec.ljust) return formatValue(x, numberSpec(spec, alt, Math.max(spec.width, body)) + type);
  const digits = formatValue(x, `${signFlag(spec)}${alt ? '#' : ''}${body > 0 ? `0${body}` : ''}${type}`);
  return padText(digits, { ...spec, prec: -1 });
}

function formatChar(v: PyValue): string {
  if (typeof v === 'string' && Array.from(v).length === 1) return v;
  if (typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyInt) {
    const n = intArg(v, 'c');
    if (n < 0n || n > 0x10ffffn) throw new PyFormatError('OverflowError', '%c arg not in range(0x110000)');
    return String.fromCodePoint(Number(n));
  }
  throw printfTypeError('c', pyTypeName(v));
}

/** One conversion of one value (a Python scalar or any value the printers know). Throws PyFormatError. */
export function formatPrintfArg(v: PyValue, spec: PrintfSpec): string {
  switch (spec.conv) {
    case 's':
      return padText(pyStr(v), spec);
    case 'r':
      return padText(pyRepr(v), spec);
    case 'a':
      return padText(asciiEscape(pyRepr(v)), spec);
    case 'c':
      return padText(formatChar(v), spec);
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
      if (!(typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyInt)) {
        throw printfTypeError(spec.conv, pyTypeName(v));
      }
      const x = v instanceof PyInt ? BigInt(v.value) : v;
      return formatValue(x, `${numberSpec(spec, spec.alt, spec.width)}.${spec.prec < 0 ? 6 : spec.prec}${spec.conv}`);
    }
    default:
      return formatInteger(intArg(v, spec.conv), spec);
  }
}

const RUNTIME_ARGS: PrintfArgs<PyValue> = {
  tupleItems: (v) => (v instanceof PyTuple || v instanceof PyNamedTuple ? v.items : null),
  isMapping: (v) => typeof v === 'object' && v !== null && !(v instanceof PyInt) && typeof v !== 'string',
  getItem: (m, key) => {
    const found = m instanceof Map ? m.get(key) : (m as Record<string, PyValue>)[key];
    if (found === undefined) throw new PyFormatError('KeyError', pyRepr(key));
    return found;
  },
  starInt: (v) => (typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyInt ? Number(intArg(v, 'd')) : null),
};

/** Python's `fmt % args` on values the printers know (a PyTuple is a tuple of arguments). Throws PyFormatError. */
export function pyPercentFormat(fmt: string, args: PyValue): string {
  let out = '';
  scanPrintf(fmt, args, RUNTIME_ARGS, (p) => {
    out += typeof p === 'string' ? p : formatPrintfArg(p.value, p.spec);
  });
  return out;
}
