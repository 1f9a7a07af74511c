// Compile-time diagnostics: the error type every stage throws for a user's
// mistake, and its rendering as `file.py:line:col: error: message` plus a
// code frame (the format of gcc/clang/tsc, which editors understand).
import type { Span } from './span.js';

export class CompileError extends Error {
  constructor(
    message: string,
    readonly span: Span | null,
    /** Extra lines printed after the code frame, e.g. JAX's longer explanation. */
    readonly notes: string[] = [],
  ) {
    super(message);
    this.name = 'CompileError';
  }
}

/** How many columns of its first line (`lineText`) a span underlines: to the line's end when it runs past it. */
export function spanWidth({ start, end }: Span, lineText: string): number {
  return end.line === start.line ? Math.max(1, end.col - start.col) : Math.max(1, lineText.length - start.col + 1);
}

/** Render one diagnostic with a code frame of the offending line. */
export function formatDiagnostic(file: string, source: string, err: CompileError): string {
  if (!err.span) return `${file}: error: ${err.message}\n${err.notes.map((n) => `  note: ${n}\n`).join('')}`;
  const { start } = err.span;
  const lines = source.split(/\r\n|\r|\n/);
  const lineText = lines[start.line - 1] ?? '';
  const gutter = String(start.line).length;
  const width = spanWidth(err.span, lineText);
  const frame =
    `${' '.repeat(gutter)} |\n` +
    `${start.line} | ${lineText}\n` +
    `${' '.repeat(gutter)} | ${' '.repeat(Math.max(0, start.col - 1))}${'^'.repeat(width)}\n`;
  const notes = err.notes.map((n) => `  note: ${n}\n`).join('');
  return `${file}:${start.line}:${start.col}: error: ${err.message}\n${frame}${notes}`;
}
