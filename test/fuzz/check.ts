// The fuzz oracle, shared by test/fuzz/fuzz.test.ts and scripts/fuzz.mjs: the
// only allowed outcomes of compiling a variant are a result or a CompileError
// whose span (when it has one) lies inside the file. Anything else — another
// exception, a CompileError located outside the text, a compile slower than
// the time bound — is a crash, reported with a signature and a reduced
// reproduction.
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';

/**
 * The file's lines as diagnostics count them (\n, \r\n and a lone \r end a
 * line, as in CPython and src/parser/source.ts). A text ending in a newline
 * has an empty last line: that is where the parser reports errors at the end
 * of input (EOF, a missing indented block), so the end of file is always a
 * valid position — line = lines.length, col = last line's length + 1.
 */
export function sourceLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Why a position is outside `lines`, or null when it is inside (col may be one past the end of its line). */
export function badPos(lines: string[], pos: { line: number; col: number } | undefined, what: string): string | null {
  if (!pos || !Number.isInteger(pos.line) || !Number.isInteger(pos.col)) return `${what} is not a position: ${JSON.stringify(pos)}`;
  if (pos.line < 1 || pos.line > lines.length) return `${what} line ${pos.line} outside 1..${lines.length}`;
  const len = lines[pos.line - 1]!.length;
  if (pos.col < 1 || pos.col > len + 1) return `${what} col ${pos.col} outside 1..${len + 1} of line ${pos.line}`;
  return null;
}

export type Outcome =
  | { ok: true; ms: number; diagnostic: string | null }
  | { ok: false; ms: number; signature: string; detail: string };

/** Characters of source `limitMs` covers: a longer program (the GPT lesson) gets proportionally more, compile time being linear in its size. */
const LIMIT_CHARS = 6000;

/** Compiles `text` and judges the outcome. `limitMs` bounds the time of one compile (per LIMIT_CHARS of source). */
export function check(text: string, limitMs0: number): Outcome {
  const limitMs = Math.round(Math.max(limitMs0, (limitMs0 * text.length) / LIMIT_CHARS));
  const t0 = performance.now();
  let err: unknown = null;
  try {
    compile(text, { file: 'fuzz.py' });
  } catch (e) {
    err = e;
  }
  const ms = performance.now() - t0;
  const slow = ms > limitMs ? `took ${ms.toFixed(0)} ms (> ${limitMs} ms)` : null;
  if (err === null) return slow ? { ok: false, ms, signature: 'slow compile', detail: slow } : { ok: true, ms, diagnostic: null };
  if (err instanceof CompileError) {
    const lines = sourceLines(text);
    const bad = err.span ? badPos(lines, err.span.start, 'start') ?? badPos(lines, err.span.end, 'end') : null;
    const first = err.message.split('\n')[0]!;
    if (bad) return { ok: false, ms, signature: `CompileError with a bad span: ${normalize(first)}`, detail: `${first} — ${bad}` };
    if (/^internal\b/i.test(first)) return { ok: false, ms, signature: `internal CompileError: ${normalize(first)}`, detail: first };
    if (slow) return { ok: false, ms, signature: 'slow compile', detail: `${slow}: ${first}` };
    return { ok: true, ms, diagnostic: first };
  }
  const e = err as { name?: string; message?: string; stack?: string };
  // a thrown non-Error (a control-flow signal escaping) is named by its class
  const name = err instanceof Error ? e.name : ((err as object | null)?.constructor?.name ?? typeof err);
  const first = String(e?.message ?? err).split('\n')[0]!;
  const where = (e?.stack ?? '').split('\n').find((l) => /\/src\//.test(l))?.trim() ?? '';
  return { ok: false, ms, signature: `${name}: ${normalize(first)}`, detail: `${name}: ${first}${where ? `\n    ${where}` : ''}` };
}

/** A message with its specifics (numbers, quoted names) blurred, so that one bug gives one signature. */
export function normalize(msg: string): string {
  return msg
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

/**
 * A smaller program with the same crash signature: greedy removal of chunks
 * of lines, then of single characters of the remaining lines' ends. Bounded
 * by `budget` compiles and `budgetMs` milliseconds.
 */
export function reduce(text: string, signature: string, limitMs: number, budget = 300, budgetMs = 10_000): string {
  const until = performance.now() + budgetMs;
  const same = (t: string): boolean => {
    if (budget-- <= 0 || performance.now() > until) return false;
    const o = check(t, limitMs);
    return !o.ok && o.signature === signature;
  };
  let lines = text.split('\n');
  for (let chunk = Math.max(1, lines.length >> 1); chunk >= 1 && budget > 0; chunk >>= 1) {
    for (let i = 0; i + chunk <= lines.length && budget > 0; ) {
      const cand = [...lines.slice(0, i), ...lines.slice(i + chunk)];
      if (cand.length && same(cand.join('\n'))) lines = cand;
      else i += chunk;
    }
  }
  return lines.join('\n');
}

/** A JS string literal of `text` that shows every unusual character as an escape. */
export function quote(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
