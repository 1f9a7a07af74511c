// Source positions: the one location type the parser, the IR and the
// diagnostics share (neutral: it imports nothing).

/** A source position. */
export interface Pos {
  line: number; // 1-based
  col: number; // 1-based, in UTF-16 code units
  offset: number; // 0-based, UTF-16 code units from the start of the file
}

/** A half-open source range [start, end). */
export interface Span {
  start: Pos;
  end: Pos;
}
