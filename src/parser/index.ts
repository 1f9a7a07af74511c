// Public entry of the parser: `parse(source)` turns Python-subset source text
// into the AST of ast.ts, throwing CompileError on any lexical or syntax error.
import type { Module } from './ast.js';
import { lex } from './lexer.js';
import { parseTokens } from './parser.js';
import { LineMap } from './source.js';

export type * from './ast.js';
export { lex, type StringValue } from './lexer.js';
export { LineMap } from './source.js';
export { checkStatementContext } from './context.js';

/** Parses a whole module. Throws CompileError (with a span) on any error. */
export function parse(source: string): Module {
  const lines = new LineMap(source);
  return parseTokens(lex(source, lines), lines);
}
