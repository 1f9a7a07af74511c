// Python tracebacks of the exceptions a program raises and catches at compile time (the `traceback`
// module's format_exc/print_exc): the frames an exception leaves on its way from where it is raised to
// the `except` that catches it, each with its file, line, function, source line and CPython 3.11's
// position markers (`^^^^`, or `~~^~~` under a binary operator or a subscript).
import type { Span } from '../common/span.js';
import type * as A from '../parser/ast.js';
import { parse } from '../parser/index.js';

/** One frame of a traceback: the function and the span of what it was running. */
export interface TbFrame {
  name: string;
  span: Span;
}

/** What an exception in flight has collected: the frames it left (innermost first) and the span it is at in the current one. */
const inFlight = new WeakMap<object, { left: TbFrame[]; at: Span | null }>();

/** The span an error was raised at (PyRaise and CompileError both carry one). */
const spanOf = (e: object): Span | null => ((e as { span?: Span | null }).span ?? null);

/** An exception `e` leaves the frame of function `name`, which `callSpan` called. */
export function leaveFrame(e: unknown, name: string, callSpan: Span): void {
  if (e === null || typeof e !== 'object') return;
  let f = inFlight.get(e);
  if (!f) inFlight.set(e, (f = { left: [], at: spanOf(e) }));
  if (f.at) f.left.push({ name, span: f.at });
  f.at = callSpan;
}

/** The traceback of `e`, caught in the frame of function `name`: its frames, outermost first. */
export function caughtFrames(e: unknown, name: string): TbFrame[] {
  if (e === null || typeof e !== 'object') return [];
  const f = inFlight.get(e) ?? { left: [], at: spanOf(e) };
  return [...(f.at ? [{ name, span: f.at }] : []), ...[...f.left].reverse()];
}

/** An exception an `except` caught when the program ran: the host variable holding it (a runtime PyExc). */
export const runTimeCaught = new WeakMap<object, string>();

/** The traceback of each exception an `except` caught (what traceback.format_exc shows while it is handled). */
export const caughtTracebacks = new WeakMap<object, TbFrame[]>();

/** The markers CPython 3.11 puts under a BinOp or Subscript segment (anchors into the segment), or null. */
function anchors(segment: string): [number, number] | null {
  let mod: A.Module;
  try {
    mod = parse(segment);
  } catch {
    return null;
  }
  const st = mod.body.length === 1 ? mod.body[0]! : null;
  if (st?.kind !== 'ExprStmt') return null;
  const e = st.value;
  if (e.kind === 'BinOp') {
    const opStart = e.left.span.end.offset;
    const opText = segment.slice(opStart, e.right.span.start.offset);
    const lead = opText.length - opText.trimStart().length;
    let left = opStart + lead;
    let right = left + 1;
    if (lead + 1 < opText.length && !/\s/.test(opText[lead + 1]!)) right++;
    while (left < segment.length && /[\s)#]/.test(segment[left]!)) {
      left++;
      right++;
    }
    return [left, right];
  }
  if (e.kind === 'Subscript') {
    let left = e.value.span.end.offset;
    let right = e.slice.span.end.offset + 1;
    while (left < segment.length && segment[left] !== '[') left++;
    while (right < segment.length && segment[right] !== ']') right++;
    if (right < segment.length) right++;
    return [left, right];
  }
  return null;
}

/** One frame as CPython's traceback.format_frame_summary writes it (`lines`: the file's source lines). */
export function frameText(file: string, lines: readonly string[], f: TbFrame): string {
  const line = lines[f.span.start.line - 1] ?? '';
  let out = `  File "${file}", line ${f.span.start.line}, in ${f.name}\n`;
  const stripped = line.trim();
  if (!stripped) return out;
  out += `    ${stripped}\n`;
  const start = f.span.start.col - 1;
  const oneLine = f.span.end.line === f.span.start.line;
  const end = oneLine ? f.span.end.col - 1 : line.trimEnd().length;
  const marks = oneLine ? anchors(line.slice(start, end)) : null;
  if (end - start < stripped.length || (marks && marks[1] - marks[0] > 0)) {
    const indent = line.length - line.trimStart().length;
    const width = end - start;
    const caret = marks ? '~'.repeat(marks[0]) + '^'.repeat(marks[1] - marks[0]) + '~'.repeat(Math.max(0, width - marks[1])) : '^'.repeat(width);
    out += `    ${' '.repeat(start - indent)}${caret}\n`;
  }
  return out;
}

/**
 * `Traceback (most recent call last):` with the frames (at most `limit`: the outermost ones; a
 * negative limit keeps the innermost), then the exception's own line.
 */
export function tracebackText(file: string, source: string, frames: readonly TbFrame[], last: string, limit: number | null): string {
  const lines = source.split(/\r\n|\r|\n/);
  const shown = limit === null ? frames : limit >= 0 ? frames.slice(0, limit) : frames.slice(limit);
  return `Traceback (most recent call last):\n${shown.map((f) => frameText(file, lines, f)).join('')}${last}\n`;
}
