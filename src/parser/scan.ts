// Character-level scanning for the lexer: the custom Chevrotain matchers for
// string literals, numbers and (Unicode) names, and the decoders that turn a
// matched number or string escape into its value, as CPython does.
// Matchers are lenient (they grab a whole malformed literal); the decoders
// report what is wrong with it. Nothing here throws.
import type { CustomPatternMatcherReturn } from 'chevrotain';

// ------------------------------------------------------------ character classes

const ID_START = /[\p{XID_Start}_]/u;
const ID_CONTINUE = /[\p{XID_Continue}]/u;

function isAsciiIdContinue(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length (1 or 2 UTF-16 units) of the identifier character at `p`, or 0 when there is none. */
function idCharLen(text: string, p: number, start: boolean): number {
  const c = text.charCodeAt(p);
  if (Number.isNaN(c)) return 0;
  if (c < 128) {
    if (start) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 ? 1 : 0;
    return isAsciiIdContinue(c) ? 1 : 0;
  }
  const cp = text.codePointAt(p)!;
  const ch = String.fromCodePoint(cp);
  return (start ? ID_START : ID_CONTINUE).test(ch) ? ch.length : 0;
}

function result(image: string, payload?: unknown): CustomPatternMatcherReturn {
  const r = [image] as CustomPatternMatcherReturn;
  if (payload !== undefined) r.payload = payload;
  return r;
}

// ------------------------------------------------------------ names

export function matchName(text: string, offset: number): CustomPatternMatcherReturn | null {
  let p = offset;
  const first = idCharLen(text, p, true);
  if (first === 0) return null;
  p += first;
  for (;;) {
    const c = text.charCodeAt(p);
    if (c < 128) {
      if (isAsciiIdContinue(c)) {
        p++;
        continue;
      }
      break;
    }
    const n = idCharLen(text, p, false);
    if (n === 0) break;
    p += n;
  }
  return result(text.slice(offset, p));
}

// ------------------------------------------------------------ strings

/** What the string matcher learnt about a string token. */
export interface StringInfo {
  /** The prefix, lower-cased: '', 'r', 'b', 'f', 'u', 'rb', 'fr' (normalized order). */
  prefix: string;
  prefixLen: number;
  quote: string;
  /** 1 or 3. */
  quoteLen: number;
  terminated: boolean;
}

const VALID_PREFIXES = new Set(['', 'r', 'u', 'f', 'b', 'br', 'rb', 'fr', 'rf']);

function isPrefixLetter(c: number): boolean {
  // r R b B f F u U
  return c === 114 || c === 82 || c === 98 || c === 66 || c === 102 || c === 70 || c === 117 || c === 85;
}

/**
 * Matches a string literal starting at `offset` (prefix included). An
 * unterminated literal is still matched — to the end of its line, or of the
 * input for a triple-quoted one — with `terminated: false` in its payload.
 * F-strings end by PEP 701 rules (replacement fields may reuse the quote);
 * when that finds no end, the pre-3.12 end (the next unescaped quote) is
 * used so that the f-string splitter can say what is wrong inside.
 */
export function matchString(text: string, offset: number): CustomPatternMatcherReturn | null {
  let i = offset;
  while (i < offset + 2 && isPrefixLetter(text.charCodeAt(i))) i++;
  const q = text.charCodeAt(i);
  if (q !== 34 && q !== 39) return null;
  const rawPrefix = text.slice(offset, i).toLowerCase();
  if (!VALID_PREFIXES.has(rawPrefix)) return null;
  const quote = text[i]!;
  const triple = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  const quoteLen = triple ? 3 : 1;
  const n = text.length;
  let end = rawPrefix.includes('f') ? literalEnd(text, i + quoteLen, n, q, triple, true, 0) : -1;
  let terminated = end >= 0;
  if (!terminated) {
    end = literalEnd(text, i + quoteLen, n, q, triple, false, 0);
    terminated = end >= 0;
    if (!terminated) end = unterminatedEnd(text, i + quoteLen, q, triple);
  }
  let prefix = rawPrefix;
  if (prefix === 'br') prefix = 'rb';
  if (prefix === 'rf') prefix = 'fr';
  const info: StringInfo = { prefix, prefixLen: i - offset, quote, quoteLen, terminated };
  return result(text.slice(offset, end), info);
}

/** Where an unterminated literal's token ends: at the line break, or the end of input. */
function unterminatedEnd(text: string, p: number, q: number, triple: boolean): number {
  if (triple) return text.length;
  while (p < text.length) {
    const c = text.charCodeAt(p);
    if (c === 92) p += text.charCodeAt(p + 1) === 13 && text.charCodeAt(p + 2) === 10 ? 3 : 2;
    else if (c === 10 || c === 13) return p;
    else p++;
  }
  return text.length;
}

const MAX_FSTRING_NESTING = 32;

/**
 * The offset after the closing quote of a literal body starting at `p`, or -1
 * when it does not end before `limit`. With `isF`, replacement fields are
 * skipped by PEP 701 rules.
 */
function literalEnd(text: string, p: number, limit: number, q: number, triple: boolean, isF: boolean, depth: number): number {
  if (depth > MAX_FSTRING_NESTING) return -1;
  while (p < limit) {
    const c = text.charCodeAt(p);
    if (c === 92 /* \ */) {
      const d = text.charCodeAt(p + 1);
      if (isF && (d === 123 || d === 125)) p += 1;
      else p += d === 13 && text.charCodeAt(p + 2) === 10 ? 3 : 2;
      continue;
    }
    if (c === q && (!triple || (text.charCodeAt(p + 1) === q && text.charCodeAt(p + 2) === q))) {
      return p + (triple ? 3 : 1) <= limit ? p + (triple ? 3 : 1) : -1;
    }
    if (!triple && (c === 10 || c === 13)) return -1;
    if (isF && c === 123 /* { */) {
      if (text.charCodeAt(p + 1) === 123) {
        p += 2;
        continue;
      }
      p = fieldEnd(text, p + 1, limit, q, triple, depth);
      if (p < 0) return -1;
      continue;
    }
    p++;
  }
  return -1;
}

/** The offset after the '}' closing a replacement field whose expression starts at `p`, or -1. */
function fieldEnd(text: string, p: number, limit: number, q: number, triple: boolean, depth: number): number {
  let brackets = 0;
  const fieldStart = p;
  while (p < limit) {
    const c = text.charCodeAt(p);
    if (c === 34 || c === 39) {
      const e = nestedStringEnd(text, fieldStart, p, limit, depth + 1);
      if (e < 0) return -1;
      p = e;
      continue;
    }
    if (!triple && (c === 10 || c === 13)) return -1;
    if (c === 40 || c === 91 || c === 123) brackets++;
    else if (c === 41 || c === 93 || c === 125) {
      if (brackets > 0) brackets--;
      else if (c === 125) return p + 1;
    } else if (c === 58 /* : */ && brackets === 0) {
      return specEnd(text, p + 1, limit, q, triple, depth);
    }
    p++;
  }
  return -1;
}

/** The offset after the '}' ending a format spec that starts at `p`, or -1. */
function specEnd(text: string, p: number, limit: number, q: number, triple: boolean, depth: number): number {
  while (p < limit) {
    const c = text.charCodeAt(p);
    if (c === 125) return p + 1;
    if (c === 123) {
      p = fieldEnd(text, p + 1, limit, q, triple, depth + 1);
      if (p < 0) return -1;
      continue;
    }
    if (c === 92) {
      p += 2;
      continue;
    }
    if (c === q || (!triple && (c === 10 || c === 13))) return -1;
    p++;
  }
  return -1;
}

/**
 * The end of a string literal nested in a replacement field, whose quote is
 * at `quoteAt` (its prefix letters, if any, just before it and after
 * `lowest`), or -1 when it does not end before `limit`.
 */
export function nestedStringEnd(text: string, lowest: number, quoteAt: number, limit: number, depth = 0): number {
  let s = quoteAt;
  while (s > lowest && quoteAt - s < 2 && isPrefixLetter(text.charCodeAt(s - 1))) s--;
  if (s > lowest && idCharLen(text, s - 1, false) > 0) s = quoteAt;
  const prefix = text.slice(s, quoteAt).toLowerCase();
  const isF = VALID_PREFIXES.has(prefix) && prefix.includes('f');
  const q = text.charCodeAt(quoteAt);
  const triple = text.charCodeAt(quoteAt + 1) === q && text.charCodeAt(quoteAt + 2) === q && quoteAt + 2 < limit;
  return literalEnd(text, quoteAt + (triple ? 3 : 1), limit, q, triple, isF, depth);
}

export interface EscapeError {
  message: string;
  /** Source offsets of the bad escape. */
  start: number;
  end: number;
}

function hexValue(s: string): number {
  return /^[0-9a-fA-F]+$/.test(s) ? parseInt(s, 16) : -1;
}

/**
 * Decodes the escape sequence whose backslash is at `p` (non-raw literals).
 * Returns the decoded text and the offset after the sequence, or an error.
 */
export function decodeEscapeAt(
  src: string,
  p: number,
  limit: number,
  bytes: boolean,
): { text: string; next: number } | EscapeError {
  const c = src[p + 1];
  if (c === undefined || p + 1 >= limit) return { text: '\\', next: p + 1 };
  switch (c) {
    case '\n':
      return { text: '', next: p + 2 };
    case '\r':
      return { text: '', next: src[p + 2] === '\n' && p + 2 < limit ? p + 3 : p + 2 };
    case '\\':
    case "'":
    case '"':
      return { text: c, next: p + 2 };
    case 'a':
      return { text: '\x07', next: p + 2 };
    case 'b':
      return { text: '\b', next: p + 2 };
    case 'f':
      return { text: '\f', next: p + 2 };
    case 'n':
      return { text: '\n', next: p + 2 };
    case 'r':
      return { text: '\r', next: p + 2 };
    case 't':
      return { text: '\t', next: p + 2 };
    case 'v':
      return { text: '\v', next: p + 2 };
    case 'x': {
      const h = src.slice(p + 2, Math.min(p + 4, limit));
      const v = h.length === 2 ? hexValue(h) : -1;
      if (v < 0) return { message: 'truncated \\xXX escape', start: p, end: Math.min(p + 2 + h.length, limit) };
      return { text: String.fromCharCode(v), next: p + 4 };
    }
    case 'u':
    case 'U': {
      if (bytes) return { text: '\\' + c, next: p + 2 };
      const len = c === 'u' ? 4 : 8;
      const h = src.slice(p + 2, Math.min(p + 2 + len, limit));
      const v = h.length === len ? hexValue(h) : -1;
      if (v < 0) {
        return {
          message: c === 'u' ? 'truncated \\uXXXX escape' : 'truncated \\UXXXXXXXX escape',
          start: p,
          end: Math.min(p + 2 + h.length, limit),
        };
      }
      if (v > 0x10ffff) return { message: 'illegal Unicode character', start: p, end: p + 2 + len };
      return { text: String.fromCodePoint(v), next: p + 2 + len };
    }
    case 'N': {
      if (bytes) return { text: '\\N', next: p + 2 };
      let e = p + 2;
      if (src[e] === '{') {
        const close = src.indexOf('}', e);
        e = close >= 0 && close < limit ? close + 1 : e + 1;
      }
      return { message: '\\N{...} escapes (Unicode character names) are not supported', start: p, end: e };
    }
    default: {
      if (c >= '0' && c <= '7') {
        let e = p + 1;
        let v = 0;
        while (e < limit && e < p + 4 && src[e]! >= '0' && src[e]! <= '7') {
          v = v * 8 + (src.charCodeAt(e) - 48);
          e++;
        }
        if (bytes && v > 0o377) return { message: 'octal escape value out of range', start: p, end: e };
        return { text: String.fromCharCode(v), next: e };
      }
      // Unknown escapes keep the backslash, as CPython does.
      return { text: '\\', next: p + 1 };
    }
  }
}

/**
 * The value of a (non-f) string literal body [start, end). `raw` disables
 * escapes; `bytes` forbids non-ASCII characters and \u, \U, \N escapes.
 */
export function decodeStringBody(
  src: string,
  start: number,
  end: number,
  raw: boolean,
  bytes: boolean,
): { value: string } | EscapeError {
  if (bytes) {
    for (let i = start; i < end; i++) {
      if (src.charCodeAt(i) > 127) {
        return { message: 'bytes can only contain ASCII literal characters', start: i, end: i + 1 };
      }
    }
  }
  if (raw) return { value: src.slice(start, end) };
  let out = '';
  let p = start;
  let run = start;
  while (p < end) {
    if (src.charCodeAt(p) === 92) {
      out += src.slice(run, p);
      const r = decodeEscapeAt(src, p, end, bytes);
      if ('message' in r) return r;
      out += r.text;
      p = r.next;
      run = p;
    } else {
      p++;
    }
  }
  out += src.slice(run, end);
  return { value: out };
}

// ------------------------------------------------------------ numbers

/**
 * Matches a numeric literal at `offset`, leniently: a malformed one such as
 * `1abc` or `0x` is matched whole so that the layout pass can report it.
 */
export function matchNumber(text: string, offset: number): CustomPatternMatcherReturn | null {
  let p = offset;
  const c0 = text.charCodeAt(p);
  if (c0 === 46 /* . */ && !isDigit(text.charCodeAt(p + 1))) return null;
  if (!isDigit(c0) && c0 !== 46) return null;
  const c1 = text[p + 1];
  if (c0 === 48 && c1 !== undefined && 'xXoObB'.includes(c1)) {
    p += 2;
  } else {
    const digits = (): void => {
      while (isDigit(text.charCodeAt(p)) || text.charCodeAt(p) === 95) p++;
    };
    digits();
    if (text.charCodeAt(p) === 46) {
      p++;
      digits();
    }
    const e = text.charCodeAt(p);
    if (e === 101 || e === 69) {
      let q = p + 1;
      const s = text.charCodeAt(q);
      if (s === 43 || s === 45) q++;
      if (isDigit(text.charCodeAt(q))) {
        p = q;
        digits();
      }
    }
    const j = text.charCodeAt(p);
    if (j === 106 || j === 74) p++;
  }
  // Swallow trailing identifier characters: `1abc` is one bad literal.
  for (;;) {
    const n = idCharLen(text, p, false);
    if (n === 0) break;
    p += n;
  }
  return result(text.slice(offset, p));
}

const D = '[0-9](?:_?[0-9])*';
const POINT_FLOAT = `(?:(?:${D})?\\.${D}|${D}\\.)`;
const EXP = `[eE][+-]?${D}`;
const FLOAT_BODY = `(?:${POINT_FLOAT}(?:${EXP})?|${D}${EXP})`;
const FLOAT_RE = new RegExp(`^${FLOAT_BODY}$`);
const IMAG_RE = new RegExp(`^(?:${FLOAT_BODY}|${D})[jJ]$`);
const DEC_RE = /^(?:0(?:_?0)*|[1-9](?:_?[0-9])*)$/;
const HEX_RE = /^0[xX](?:_?[0-9a-fA-F])+$/;
const OCT_RE = /^0[oO](?:_?[0-7])+$/;
const BIN_RE = /^0[bB](?:_?[01])+$/;

export type NumberValue = bigint | number | { imag: number };

/** The value of a numeric literal, or the CPython-style reason it is invalid. */
export function decodeNumber(img: string): { value: NumberValue } | { error: string } {
  const clean = (s: string): string => s.replace(/_/g, '');
  if (HEX_RE.test(img) || OCT_RE.test(img) || BIN_RE.test(img) || DEC_RE.test(img)) {
    return { value: BigInt(clean(img).toLowerCase()) };
  }
  if (FLOAT_RE.test(img)) return { value: Number(clean(img)) };
  if (IMAG_RE.test(img)) return { value: { imag: Number(clean(img.slice(0, -1))) } };
  const p = img.slice(0, 2).toLowerCase();
  if (p === '0x') return { error: 'invalid hexadecimal literal' };
  if (p === '0o' || p === '0b') {
    const kind = p === '0o' ? 'octal' : 'binary';
    const ok = p === '0o' ? /[0-7_]/ : /[01_]/;
    for (const ch of img.slice(2)) {
      if (!ok.test(ch)) {
        return { error: isDigit(ch.charCodeAt(0)) ? `invalid digit '${ch}' in ${kind} literal` : `invalid ${kind} literal` };
      }
    }
    return { error: `invalid ${kind} literal` };
  }
  if (/^0[0-9_]*$/.test(img)) {
    return { error: 'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers' };
  }
  return { error: 'invalid decimal literal' };
}
