// Source positions: maps 0-based UTF-16 offsets to 1-based line/col `Pos`
// values. Line terminators are \n, \r\n and a lone \r, as in CPython.
import type { Pos, Span } from './ast.js';

export class LineMap {
  /** Offset of the first character of each line. */
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        this.starts.push(i + 1);
      } else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      }
    }
  }

  /** Index (0-based) of the line containing `offset`. */
  lineIndex(offset: number): number {
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Offset of the start of the line containing `offset`. */
  lineStart(offset: number): number {
    return this.starts[this.lineIndex(offset)]!;
  }

  pos(offset: number): Pos {
    const o = Number.isFinite(offset) ? Math.max(0, Math.min(offset, this.text.length)) : this.text.length;
    const li = this.lineIndex(o);
    return { line: li + 1, col: o - this.starts[li]! + 1, offset: o };
  }

  /** The span [start, end). */
  span(start: number, end: number): Span {
    return { start: this.pos(start), end: this.pos(Math.max(start, end)) };
  }
}
