// Test helpers for the parser suites: compact S-expression dumps of AST
// expressions, shortcuts to parse one expression or statement, and a checker
// that every span in a tree is a valid position of its source.
import { expect } from 'vitest';
import { CompileError } from '../../src/common/diagnostics.js';
import { LineMap, parse } from '../../src/parser/index.js';
import type { Constant, Expr, FormattedValue, JoinedStr, Module, Param, Span, Stmt } from '../../src/parser/index.js';

function constant(c: Constant): string {
  const v = c.value;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(1) : String(v);
  if (typeof v === 'string') return (c.isBytes ? 'b' : '') + JSON.stringify(v);
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  if ('ellipsis' in v) return '...';
  return `${v.imag}j`;
}

function params(ps: Param[]): string {
  return ps
    .map((p) => {
      let s = p.star + p.name;
      if (p.annotation) s += `:${dump(p.annotation)}`;
      if (p.default) s += `=${dump(p.default)}`;
      if (p.kwOnly) s += '!kw';
      if (p.posOnly) s += '!pos';
      return s;
    })
    .join(' ');
}

function fpart(v: Constant | FormattedValue): string {
  if (v.kind === 'Constant') return JSON.stringify(v.value);
  let s = `{${dump(v.value)}`;
  if (v.selfDoc !== null) s += ` =${JSON.stringify(v.selfDoc)}`;
  if (v.conversion) s += `!${v.conversion}`;
  if (v.formatSpec) s += `:${joined(v.formatSpec)}`;
  return s + '}';
}

function joined(j: JoinedStr): string {
  return `(f ${j.values.map(fpart).join(' ')})`;
}

/** A compact, fully parenthesized rendering of an expression. */
export function dump(e: Expr): string {
  const d = (x: Expr | null): string => (x ? dump(x) : '_');
  const gens = (g: { target: Expr; iter: Expr; ifs: Expr[]; isAsync: boolean }[]): string =>
    g.map((c) => `(${c.isAsync ? 'async-for' : 'for'} ${dump(c.target)} ${dump(c.iter)}${c.ifs.map((i) => ` (if ${dump(i)})`).join('')})`).join(' ');
  switch (e.kind) {
    case 'Name':
      return e.id;
    case 'Constant':
      return constant(e);
    case 'JoinedStr':
      return joined(e);
    case 'BinOp':
      return `(${e.op} ${dump(e.left)} ${dump(e.right)})`;
    case 'UnaryOp':
      return `(${e.op} ${dump(e.operand)})`;
    case 'BoolOp':
      return `(${e.op} ${e.values.map(dump).join(' ')})`;
    case 'Compare':
      return `(cmp ${dump(e.left)} ${e.ops.map((o, i) => `${o} ${dump(e.comparators[i]!)}`).join(' ')})`;
    case 'Call':
      return `(call ${[dump(e.func), ...e.args.map(dump), ...e.keywords.map((k) => (k.arg ? `${k.arg}=${dump(k.value)}` : `**${dump(k.value)}`))].join(' ')})`;
    case 'Attribute':
      return `(. ${dump(e.value)} ${e.attr})`;
    case 'Subscript':
      return `([] ${dump(e.value)} ${dump(e.slice)})`;
    case 'Slice':
      return `(slice ${d(e.lower)} ${d(e.upper)} ${d(e.step)})`;
    case 'Starred':
      return `(* ${dump(e.value)})`;
    case 'Tuple':
      return `(tuple${e.elts.map((x) => ' ' + dump(x)).join('')})`;
    case 'List':
      return `(list${e.elts.map((x) => ' ' + dump(x)).join('')})`;
    case 'Set':
      return `(set${e.elts.map((x) => ' ' + dump(x)).join('')})`;
    case 'Dict':
      return `(dict${e.keys.map((k, i) => ' ' + (k ? `${dump(k)}:${dump(e.values[i]!)}` : `**${dump(e.values[i]!)}`)).join('')})`;
    case 'Lambda':
      return `(lambda (${params(e.params)}) ${dump(e.body)})`;
    case 'IfExp':
      return `(if ${dump(e.test)} ${dump(e.body)} ${dump(e.orelse)})`;
    case 'ListComp':
      return `(listcomp ${dump(e.elt)} ${gens(e.generators)})`;
    case 'SetComp':
      return `(setcomp ${dump(e.elt)} ${gens(e.generators)})`;
    case 'GeneratorExp':
      return `(genexp ${dump(e.elt)} ${gens(e.generators)})`;
    case 'DictComp':
      return `(dictcomp ${dump(e.key)}:${dump(e.value)} ${gens(e.generators)})`;
    case 'NamedExpr':
      return `(:= ${dump(e.target)} ${dump(e.value)})`;
    case 'Yield':
      return `(${e.isFrom ? 'yield-from' : 'yield'} ${d(e.value)})`;
    case 'Await':
      return `(await ${dump(e.value)})`;
  }
}

/** Parses `src` as one expression statement and returns the expression. */
export function expr(src: string): Expr {
  const m = parse(src + '\n');
  expect(m.body).toHaveLength(1);
  const s = m.body[0]!;
  if (s.kind !== 'ExprStmt') throw new Error(`not an expression statement: ${s.kind}`);
  return s.value;
}

/** dump(expr(src)) */
export function ex(src: string): string {
  return dump(expr(src));
}

/** Parses `src` and returns its only statement. */
export function stmt(src: string): Stmt {
  const m = parse(src);
  expect(m.body).toHaveLength(1);
  return m.body[0]!;
}

/** The CompileError `parse(src)` throws, as "line:col message". */
export function parseError(src: string): string {
  try {
    parse(src);
  } catch (e) {
    if (e instanceof CompileError) return `${e.span?.start.line}:${e.span?.start.col} ${e.message}`;
    throw e;
  }
  throw new Error(`no error for ${JSON.stringify(src)}`);
}

/** Line/col of a span, as "l:c-l:c". */
export function at(s: Span): string {
  return `${s.start.line}:${s.start.col}-${s.end.line}:${s.end.col}`;
}

/** Asserts that every span in `tree` is a valid, ordered position range of `src`. */
export function checkSpans(tree: Module | Stmt | Expr, src: string): void {
  const lines = new LineMap(src);
  const check = (s: Span, what: string): void => {
    for (const p of [s.start, s.end]) {
      const q = lines.pos(p.offset);
      if (p.offset < 0 || p.offset > src.length || q.line !== p.line || q.col !== p.col) {
        throw new Error(`bad position in ${what}: ${JSON.stringify(s)}`);
      }
    }
    if (s.start.offset > s.end.offset) throw new Error(`inverted span in ${what}: ${JSON.stringify(s)}`);
  };
  const walk = (n: unknown, what: string): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x, what);
    } else if (n !== null && typeof n === 'object') {
      for (const [k, v] of Object.entries(n)) {
        if (k === 'span' || k === 'nameSpan' || k === 'attrSpan') check(v as Span, (n as { kind?: string }).kind ?? what);
        else walk(v, k);
      }
    }
  };
  walk(tree, 'Module');
}
