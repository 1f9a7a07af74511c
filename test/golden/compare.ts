// Golden-output comparison: does jaxts's stdout say the same thing as real JAX's (the oracle's .out)?
//
// Rules (expected = the oracle's output, actual = jaxts's):
// - Outputs are compared logical line by logical line. A logical line is a physical line plus the lines that
//   continue it while a bracket ( [ { is open and the next line is blank or indented — i.e. one printed
//   NumPy/JAX array — so a float-width change that makes NumPy wrap rows differently is not a difference.
//   Anywhere else a newline is significant: missing or extra lines fail.
// - Within a logical line, text is split into number tokens and text tokens. Text tokens must be equal after
//   collapsing whitespace runs to one space and dropping whitespace that touches a number (padding moves
//   when a 1-ulp difference changes a number's printed width). nan / inf must be equal as text (padding
//   around them is ignored like a number's).
// - Integer tokens (no '.' and no exponent) must be equal exactly; an integer never matches a float token.
// - Float tokens match when |a - e| <= 1e-4 * |e|, or |a - e| <= one unit of e's last printed digit when e
//   shows at least 4 significant digits. (Short numbers such as `3.`, `0.25`, `1.e-05`, `1.0` are shortest
//   representations of round values, so a last-digit change there is a real difference, not rounding.)
//   With `subnormalsMayFlush` (the WebGPU backend: SwiftShader and most GPUs flush subnormals in any operation),
//   an expected float32 subnormal also matches an actual 0. The CPU backend flushes exactly where XLA's CPU
//   does, so it is compared without it.
// - Device names: `CpuDevice(id=N)` in expected matches any `\w+Device(id=N)` in actual, and `cpu:N` in
//   expected matches any `name:N` in actual on the same line.

export interface CompareResult {
  ok: boolean;
  message: string;
}

interface LogicalLine {
  /** 1-based physical line number where the logical line starts. */
  line: number;
  text: string;
}

type Token = { kind: 'num'; text: string } | { kind: 'text'; text: string };

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
// A number, or nan / inf (matched as number-like tokens only so that padding around them is ignored too;
// they must still be equal as text). A complex number's imaginary part is the number before its 'j'.
const NUMBER = /(?<![A-Za-z0-9_.])[-+]?(?:\d+\.?\d*|\.\d+|nan|inf)(?:[eE][-+]?\d+)?(?=j(?![A-Za-z0-9_])|(?![A-Za-z0-9_]))/g;
const NON_FINITE = /^[-+]?(?:nan|inf)$/;
const DEVICE_MARK = '\u0001dev';

function bracketDelta(s: string): number {
  let d = 0;
  for (const ch of s) {
    if (OPEN.has(ch)) d++;
    else if (CLOSE.has(ch)) d--;
  }
  return d;
}

/** Logical lines of an output, and whether it ended with a newline (the usual case: print's end='\\n'). */
function logicalLines(output: string): { lines: LogicalLine[]; finalNewline: boolean } {
  const norm = output.replace(/\r\n?/g, '\n');
  const finalNewline = norm.endsWith('\n');
  const phys = norm === '' ? [] : (finalNewline ? norm.slice(0, -1) : norm).split('\n');
  const out: LogicalLine[] = [];
  let i = 0;
  while (i < phys.length) {
    const start = i;
    let text = phys[i]!;
    let depth = bracketDelta(text);
    i++;
    while (depth > 0 && i < phys.length) {
      const next = phys[i]!;
      if (next !== '' && !/^\s/.test(next)) break;
      text += '\n' + next;
      depth += bracketDelta(next);
      i++;
    }
    out.push({ line: start + 1, text });
  }
  return { lines: out, finalNewline };
}

/** A complex number's imaginary part signed as a number of its own: '0.875-0.352j' reads as '0.875 -0.352j' (as padding would print it). */
const IMAG_SIGN = /(?<=[\d.])([-+])(?=(?:\d+\.?\d*|\.\d+|nan|inf)(?:[eE][-+]?\d+)?j(?![A-Za-z0-9_]))/g;

function tokenize(s: string): Token[] {
  s = s.replace(IMAG_SIGN, ' $1');
  const raw: Token[] = [];
  let last = 0;
  for (const m of s.matchAll(NUMBER)) {
    const at = m.index;
    if (at > last) raw.push({ kind: 'text', text: s.slice(last, at) });
    raw.push({ kind: 'num', text: m[0] });
    last = at + m[0].length;
  }
  if (last < s.length) raw.push({ kind: 'text', text: s.slice(last) });
  const toks: Token[] = [];
  for (let k = 0; k < raw.length; k++) {
    const t = raw[k]!;
    if (t.kind === 'num') {
      toks.push(t);
      continue;
    }
    let text = t.text.replace(/\s+/g, ' ');
    // (a complex element's padding follows its 'j': '-6.559373j ]' against '-6.5593734j]')
    if (raw[k - 1]?.kind === 'num') text = text.trimStart().replace(/^j\s+/, 'j');
    if (raw[k + 1]?.kind === 'num') text = text.trimEnd();
    if (text !== '') toks.push({ kind: 'text', text });
  }
  return toks;
}

function isInteger(tok: string): boolean {
  return !/[.eE]/.test(tok);
}

/** Number of significant digits shown and the value of one unit in the last printed digit. */
function lastDigit(tok: string): { sig: number; unit: number } {
  const m = /^[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(tok);
  if (!m) return { sig: 0, unit: 0 };
  const intPart = m[1] ?? '';
  const frac = m[2] ?? '';
  const exp = m[3] ? Number(m[3]) : 0;
  const sig = (intPart + frac).replace(/^0+/, '').length;
  return { sig, unit: Math.pow(10, exp - frac.length) };
}

export interface CompareOptions {
  /** An expected float32 subnormal matches an actual 0 (a device that flushes subnormals everywhere). */
  subnormalsMayFlush?: boolean;
}

function numbersMatch(e: string, a: string, opts: CompareOptions): string | null {
  // the same text (also a number beyond the double range, 1e+3000, that Number reads as infinity)
  if (e === a) return null;
  if (NON_FINITE.test(e) || NON_FINITE.test(a)) return e === a ? null : `${JSON.stringify(a)} differs from expected ${JSON.stringify(e)}`;
  if (isInteger(e) || isInteger(a)) {
    if (isInteger(e) && isInteger(a) && BigInt(e.replace(/^\+/, '')) === BigInt(a.replace(/^\+/, ''))) return null;
    return `number ${a} differs from expected ${e}`;
  }
  const ev = Number(e);
  const av = Number(a);
  // documented tolerance: a float32 subnormal that XLA's CPU keeps may print as a zero from a device that
  // flushes subnormals (SwiftShader and most GPUs do, in any operation)
  if (opts.subnormalsMayFlush && av === 0 && ev !== 0 && Math.abs(ev) < 2 ** -126) return null;
  const diff = Math.abs(av - ev);
  let tol = 1e-4 * Math.abs(ev);
  const { sig, unit } = lastDigit(e);
  if (sig >= 4) tol = Math.max(tol, unit * (1 + 1e-9));
  if (diff <= tol) return null;
  return `number ${a} differs from expected ${e} by ${diff.toPrecision(3)} (tolerance ${tol.toPrecision(3)})`;
}

function normalizeDevices(expected: string, actual: string): [string, string] {
  let e = expected.replace(/\bCpuDevice\(id=(\d+)\)/g, `${DEVICE_MARK}(id=$1)`);
  let a = actual.replace(/\b\w+Device\(id=(\d+)\)/g, `${DEVICE_MARK}(id=$1)`);
  if (/\bcpu:\d+\b/.test(e)) {
    e = e.replace(/\bcpu:(\d+)\b/g, `${DEVICE_MARK}:$1`);
    a = a.replace(/\b[A-Za-z_]\w*:(\d+)\b/g, `${DEVICE_MARK}:$1`);
  }
  return [e, a];
}

/** Why two logical lines differ, or null when they match. */
function lineDifference(expected: string, actual: string, opts: CompareOptions): string | null {
  const [e, a] = normalizeDevices(expected, actual);
  const et = tokenize(e);
  const at = tokenize(a);
  const n = Math.min(et.length, at.length);
  for (let k = 0; k < n; k++) {
    const x = et[k]!;
    const y = at[k]!;
    if (x.kind !== y.kind) {
      return `expected ${x.kind === 'num' ? 'number' : 'text'} ${JSON.stringify(x.text)}, got ${
        y.kind === 'num' ? 'number' : 'text'
      } ${JSON.stringify(y.text)}`;
    }
    if (x.kind === 'text') {
      if (x.text !== y.text) return `text ${JSON.stringify(y.text)} differs from expected ${JSON.stringify(x.text)}`;
    } else {
      const why = numbersMatch(x.text, y.text, opts);
      if (why) return why;
    }
  }
  if (et.length > n) return `line ends early; expected more: ${JSON.stringify(et.slice(n).map((t) => t.text).join(' '))}`;
  if (at.length > n) return `line goes on: ${JSON.stringify(at.slice(n).map((t) => t.text).join(' '))}`;
  return null;
}

function show(s: string): string {
  const j = JSON.stringify(s);
  return j.length > 400 ? j.slice(0, 400) + '…' : j;
}

export function compareOutputs(expected: string, actual: string, opts: CompareOptions = {}): CompareResult {
  const { lines: el, finalNewline: eNl } = logicalLines(expected);
  const { lines: al, finalNewline: aNl } = logicalLines(actual);
  const n = Math.min(el.length, al.length);
  for (let k = 0; k < n; k++) {
    const e = el[k]!;
    const a = al[k]!;
    const why = lineDifference(e.text, a.text, opts);
    if (why) {
      const where = e.line === a.line ? `line ${e.line}` : `line ${e.line} (actual line ${a.line})`;
      return {
        ok: false,
        message: `output differs at ${where}: ${why}\n  expected: ${show(e.text)}\n  actual:   ${show(a.text)}`,
      };
    }
  }
  if (el.length > n) {
    const e = el[n]!;
    return { ok: false, message: `output ends early at line ${e.line}\n  expected: ${show(e.text)}\n  actual:   <end of output>` };
  }
  if (al.length > n) {
    const a = al[n]!;
    return {
      ok: false,
      message: `unexpected extra output at line ${a.line}\n  expected: <end of output>\n  actual:   ${show(a.text)}`,
    };
  }
  if (eNl !== aNl) {
    const last = el[el.length - 1]?.line ?? 1;
    return {
      ok: false,
      message: eNl
        ? `missing final newline after line ${last}`
        : `unexpected final newline after line ${last} (expected output ends without one)`,
    };
  }
  return { ok: true, message: 'outputs match' };
}
