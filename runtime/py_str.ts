// Python's str methods on strings known only when the program runs (a label read from the
// command line, an f-string of a loss): what CPython computes, one function per method. Generated
// code calls them as `jx.pyStrMethods.NAME(s, ...args)`; an argument left out is null.

/** The characters str.split() and str.strip() treat as whitespace when given no argument. */
const WHITESPACE = /[\s\x1c-\x1f\x85]/u;

const isSpace = (ch: string): boolean => WHITESPACE.test(ch);

/** Python's slice bounds start/end of a search (None: the whole string), clamped, in code points. */
function window(s: string[], start: number | null, end: number | null): [number, number] {
  const n = s.length;
  const clamp = (v: number | null, dflt: number): number => (v === null ? dflt : v < 0 ? Math.max(0, v + n) : Math.min(v, n));
  return [clamp(start, 0), clamp(end, n)];
}

function stripped(s: string, chars: string | null, left: boolean, right: boolean): string {
  const cs = [...s];
  const drop = (ch: string): boolean => (chars === null ? isSpace(ch) : chars.includes(ch));
  let a = 0;
  let b = cs.length;
  while (left && a < b && drop(cs[a]!)) a++;
  while (right && b > a && drop(cs[b - 1]!)) b--;
  return cs.slice(a, b).join('');
}

export const strip = (s: string, chars: string | null = null): string => stripped(s, chars, true, true);
export const lstrip = (s: string, chars: string | null = null): string => stripped(s, chars, true, false);
export const rstrip = (s: string, chars: string | null = null): string => stripped(s, chars, false, true);
export const upper = (s: string): string => s.toUpperCase();
export const lower = (s: string): string => s.toLowerCase();
export const swapcase = (s: string): string => [...s].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join('');
export const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
export const title = (s: string): string => s.toLowerCase().replace(/(^|[^\p{L}])(\p{L})/gu, (_, a: string, b: string) => a + b.toUpperCase());

/** str.split(sep=None, maxsplit=-1): runs of whitespace (leading and trailing dropped), or each `sep`. */
export function split(s: string, sep: string | null = null, maxsplit: number | null = null): string[] {
  const max = maxsplit === null || maxsplit < 0 ? Infinity : maxsplit;
  if (sep === '') throw new Error('ValueError: empty separator');
  const out: string[] = [];
  if (sep === null) {
    const cs = [...s];
    let i = 0;
    while (i < cs.length) {
      while (i < cs.length && isSpace(cs[i]!)) i++;
      if (i === cs.length) break;
      if (out.length === max) {
        out.push(cs.slice(i).join(''));
        break;
      }
      let j = i;
      while (j < cs.length && !isSpace(cs[j]!)) j++;
      out.push(cs.slice(i, j).join(''));
      i = j;
    }
    return out;
  }
  let rest = s;
  while (out.length < max) {
    const k = rest.indexOf(sep);
    if (k < 0) break;
    out.push(rest.slice(0, k));
    rest = rest.slice(k + sep.length);
  }
  out.push(rest);
  return out;
}

/** str.rsplit(sep=None, maxsplit=-1): split() from the right end. */
export function rsplit(s: string, sep: string | null = null, maxsplit: number | null = null): string[] {
  if (maxsplit === null || maxsplit < 0) return split(s, sep);
  const rev = (x: string): string => [...x].reverse().join('');
  return split(rev(s), sep === null ? null : rev(sep), maxsplit).map(rev).reverse();
}

/** str.splitlines(): the lines, without their line breaks. */
export function splitlines(s: string): string[] {
  const out = s.split(/\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]/);
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** str.partition(sep) / str.rpartition(sep). */
export function partition(s: string, sep: string, fromRight = false): [string, string, string] {
  if (sep === '') throw new Error('ValueError: empty separator');
  const i = fromRight ? s.lastIndexOf(sep) : s.indexOf(sep);
  if (i < 0) return fromRight ? ['', '', s] : [s, '', ''];
  return [s.slice(0, i), sep, s.slice(i + sep.length)];
}

export const rpartition = (s: string, sep: string): [string, string, string] => partition(s, sep, true);

/** str.find(sub, start, end) in code points (-1: not there); rfind from the right. */
export function find(s: string, sub: string, start: number | null = null, end: number | null = null, fromRight = false): number {
  const cs = [...s];
  const [a, b] = window(cs, start, end);
  if (b - a < [...sub].length) return -1;
  const hay = cs.slice(a, b).join('');
  const k = fromRight ? hay.lastIndexOf(sub) : hay.indexOf(sub);
  return k < 0 ? -1 : a + [...hay.slice(0, k)].length;
}

export const rfind = (s: string, sub: string, start: number | null = null, end: number | null = null): number => find(s, sub, start, end, true);

/** str.index / str.rindex: find() that raises where the substring is not there. */
export function index(s: string, sub: string, start: number | null = null, end: number | null = null, fromRight = false): number {
  const i = find(s, sub, start, end, fromRight);
  if (i < 0) throw new Error('ValueError: substring not found');
  return i;
}

export const rindex = (s: string, sub: string, start: number | null = null, end: number | null = null): number => index(s, sub, start, end, true);

/** str.count(sub, start, end): non-overlapping occurrences (an empty `sub`: one more than the characters). */
export function count(s: string, sub: string, start: number | null = null, end: number | null = null): number {
  const cs = [...s];
  const [a, b] = window(cs, start, end);
  if (a > b) return 0;
  const hay = cs.slice(a, b).join('');
  return sub === '' ? [...hay].length + 1 : hay.split(sub).length - 1;
}

export function startswith(s: string, prefix: string, start: number | null = null, end: number | null = null): boolean {
  const cs = [...s];
  const [a, b] = window(cs, start, end);
  return a <= b && cs.slice(a, b).join('').startsWith(prefix);
}

export function endswith(s: string, suffix: string, start: number | null = null, end: number | null = null): boolean {
  const cs = [...s];
  const [a, b] = window(cs, start, end);
  return a <= b && cs.slice(a, b).join('').endsWith(suffix);
}

export const isdigit = (s: string): boolean => /^\p{Nd}+$/u.test(s);
export const isalpha = (s: string): boolean => /^\p{L}+$/u.test(s);
export const isalnum = (s: string): boolean => /^[\p{L}\p{Nd}]+$/u.test(s);
export const isspace = (s: string): boolean => s.length > 0 && [...s].every(isSpace);
export const isupper = (s: string): boolean => /\p{Lu}/u.test(s) && !/\p{Ll}/u.test(s);
export const islower = (s: string): boolean => /\p{Ll}/u.test(s) && !/\p{Lu}/u.test(s);

/** str.zfill(width): zeros after the sign to `width` code points. */
export function zfill(s: string, width: number): string {
  const sign = /^[+-]/.test(s) ? s[0]! : '';
  const body = s.slice(sign.length);
  return sign + '0'.repeat(Math.max(0, width - [...s].length)) + body;
}

function padded(s: string, width: number, fill: string, how: 'ljust' | 'rjust' | 'center'): string {
  if ([...fill].length !== 1) throw new Error('TypeError: The fill character must be exactly one character long');
  const pad = Math.max(0, width - [...s].length);
  if (how === 'ljust') return s + fill.repeat(pad);
  if (how === 'rjust') return fill.repeat(pad) + s;
  // CPython's centre: the extra fill goes left when the padding and the width are both odd
  const left = Math.floor(pad / 2) + (pad & width & 1);
  return fill.repeat(left) + s + fill.repeat(pad - left);
}

export const ljust = (s: string, width: number, fill: string | null = null): string => padded(s, width, fill ?? ' ', 'ljust');
export const rjust = (s: string, width: number, fill: string | null = null): string => padded(s, width, fill ?? ' ', 'rjust');
export const center = (s: string, width: number, fill: string | null = null): string => padded(s, width, fill ?? ' ', 'center');

/** sep.join(items) with a separator known only at run time. */
export const join = (sep: string, items: readonly string[]): string => items.join(sep);

/** int(s) of a string: an optional sign and decimal digits (single underscores between them), whitespace around. */
export function toInt(s: string): number {
  const t = stripped(s, null, true, true);
  if (!/^[+-]?\d+(_\d+)*$/.test(t)) throw new Error(`ValueError: invalid literal for int() with base 10: ${quoted(s)}`);
  return Number(t.replace(/_/g, ''));
}

/** float(s) of a string: a decimal number (underscores between digits), inf/infinity/nan in any case, whitespace around. */
export function toFloat(s: string): number {
  const t = stripped(s, null, true, true);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)([eE][+-]?\d+(_\d+)*)?$/.test(t)) throw new Error(`ValueError: could not convert string to float: ${quoted(s)}`);
  return Number(t.replace(/_/g, ''));
}

/** repr() of a str as an error message shows it. */
const quoted = (s: string): string => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
