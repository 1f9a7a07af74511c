// The Python AST that the parser produces and the lowering consumes.
// Modelled on CPython's `ast` module, reduced to the accepted subset
// (grammar/python-subset.md). Every node carries the span of its source text.

import type { Pos, Span } from '../common/span.js';
export type { Pos, Span };

interface NodeBase {
  span: Span;
}

// ---------------------------------------------------------------- module

export interface Module extends NodeBase {
  kind: 'Module';
  body: Stmt[];
}

// ---------------------------------------------------------------- statements

export type Stmt =
  | ExprStmt
  | Assign
  | AugAssign
  | AnnAssign
  | FunctionDef
  | ClassDef
  | Return
  | If
  | For
  | While
  | Pass
  | Break
  | Continue
  | Import
  | ImportFrom
  | Assert
  | Del
  | Global
  | Nonlocal
  | Raise
  | With
  | Try
  | Match;

export interface ExprStmt extends NodeBase {
  kind: 'ExprStmt';
  value: Expr;
}

/** `a = b = value`: targets in source order. */
export interface Assign extends NodeBase {
  kind: 'Assign';
  targets: Expr[];
  value: Expr;
}

export interface AugAssign extends NodeBase {
  kind: 'AugAssign';
  target: Expr;
  op: BinOpName;
  value: Expr;
}

/** `x: T` or `x: T = v` (also class fields of a NamedTuple). */
export interface AnnAssign extends NodeBase {
  kind: 'AnnAssign';
  target: Expr;
  annotation: Expr;
  value: Expr | null;
}

export interface Param extends NodeBase {
  name: string;
  annotation: Expr | null;
  default: Expr | null;
  /** '' for a plain parameter, '*' for *args, '**' for **kwargs. */
  star: '' | '*' | '**';
  /** True for parameters after a bare `*` or `*args` (keyword-only). */
  kwOnly: boolean;
  /** True for parameters before a `/` (positional-only). */
  posOnly: boolean;
}

export interface FunctionDef extends NodeBase {
  kind: 'FunctionDef';
  name: string;
  nameSpan: Span;
  params: Param[];
  returns: Expr | null;
  body: Stmt[];
  decorators: Expr[];
  /** The docstring, when the body starts with a string literal statement. */
  docstring: string | null;
  isAsync: boolean;
}

export interface ClassDef extends NodeBase {
  kind: 'ClassDef';
  name: string;
  nameSpan: Span;
  bases: Expr[];
  keywords: Keyword[];
  body: Stmt[];
  decorators: Expr[];
  docstring: string | null;
}

export interface Return extends NodeBase {
  kind: 'Return';
  value: Expr | null;
}

/** `elif` chains are nested Ifs in `orelse`, as in CPython. */
export interface If extends NodeBase {
  kind: 'If';
  test: Expr;
  body: Stmt[];
  orelse: Stmt[];
}

export interface For extends NodeBase {
  kind: 'For';
  target: Expr;
  iter: Expr;
  body: Stmt[];
  orelse: Stmt[];
}

export interface While extends NodeBase {
  kind: 'While';
  test: Expr;
  body: Stmt[];
  orelse: Stmt[];
}

export interface Pass extends NodeBase {
  kind: 'Pass';
}
export interface Break extends NodeBase {
  kind: 'Break';
}
export interface Continue extends NodeBase {
  kind: 'Continue';
}

export interface Alias extends NodeBase {
  /** Dotted name, e.g. 'jax.numpy'. */
  name: string;
  asname: string | null;
}

/** `import a.b as c, d` */
export interface Import extends NodeBase {
  kind: 'Import';
  names: Alias[];
}

/** `from a.b import c as d, e` ; `from . import x` has level 1; `*` is name '*'. */
export interface ImportFrom extends NodeBase {
  kind: 'ImportFrom';
  module: string | null;
  names: Alias[];
  level: number;
}

export interface Assert extends NodeBase {
  kind: 'Assert';
  test: Expr;
  msg: Expr | null;
}

export interface Del extends NodeBase {
  kind: 'Del';
  targets: Expr[];
}

export interface Global extends NodeBase {
  kind: 'Global';
  names: string[];
}

export interface Nonlocal extends NodeBase {
  kind: 'Nonlocal';
  names: string[];
}

export interface Raise extends NodeBase {
  kind: 'Raise';
  exc: Expr | null;
  cause: Expr | null;
}

export interface WithItem extends NodeBase {
  contextExpr: Expr;
  optionalVars: Expr | null;
}

export interface With extends NodeBase {
  kind: 'With';
  items: WithItem[];
  body: Stmt[];
}

export interface ExceptHandler extends NodeBase {
  type: Expr | null;
  name: string | null;
  body: Stmt[];
}

export interface Try extends NodeBase {
  kind: 'Try';
  body: Stmt[];
  handlers: ExceptHandler[];
  orelse: Stmt[];
  finalbody: Stmt[];
}

/** `match subject:` with its `case pattern [if guard]:` blocks, tried in order. */
export interface Match extends NodeBase {
  kind: 'Match';
  subject: Expr;
  cases: MatchCase[];
}

export interface MatchCase extends NodeBase {
  pattern: Pattern;
  guard: Expr | null;
  body: Stmt[];
}

/** A match statement's patterns (CPython's ast.pattern nodes). */
export type Pattern =
  /** a literal or a dotted name: matches a subject equal (==) to it */
  | (NodeBase & { kind: 'MatchValue'; value: Expr })
  /** None, True, False: matches the very object (is) */
  | (NodeBase & { kind: 'MatchSingleton'; value: null | boolean })
  /** `[a, *rest]`, `(a, b)`, `a, b` */
  | (NodeBase & { kind: 'MatchSequence'; patterns: Pattern[] })
  /** `*name` (`*_` when name is null) inside a sequence pattern */
  | (NodeBase & { kind: 'MatchStar'; name: string | null })
  /** `{key: p, **rest}` */
  | (NodeBase & { kind: 'MatchMapping'; keys: Expr[]; patterns: Pattern[]; rest: string | null })
  /** `Cls(p, attr=q)` */
  | (NodeBase & { kind: 'MatchClass'; cls: Expr; patterns: Pattern[]; kwdAttrs: string[]; kwdPatterns: Pattern[] })
  /** `p as name`; a capture `name` (pattern null), the wildcard `_` (both null) */
  | (NodeBase & { kind: 'MatchAs'; pattern: Pattern | null; name: string | null })
  /** `p | q` */
  | (NodeBase & { kind: 'MatchOr'; patterns: Pattern[] });

// ---------------------------------------------------------------- expressions

export type Expr =
  | Name
  | Constant
  | JoinedStr
  | BinOp
  | UnaryOp
  | BoolOp
  | Compare
  | Call
  | Attribute
  | Subscript
  | Slice
  | Starred
  | TupleExpr
  | ListExpr
  | DictExpr
  | SetExpr
  | Lambda
  | IfExp
  | ListComp
  | SetComp
  | DictComp
  | GeneratorExp
  | NamedExpr
  | Await
  | Yield;

export interface Name extends NodeBase {
  kind: 'Name';
  id: string;
}

/**
 * A literal. Integers keep arbitrary precision as bigint; floats are numbers;
 * `...` is Ellipsis. Adjacent string literals are already concatenated.
 * `bytes` literals keep their text in `value` with `isBytes` set.
 */
export interface Constant extends NodeBase {
  kind: 'Constant';
  value: bigint | number | string | boolean | null | { ellipsis: true } | { imag: number };
  isBytes?: boolean;
}

/** An f-string: literal parts are Constant strings, fields are FormattedValue. */
export interface JoinedStr extends NodeBase {
  kind: 'JoinedStr';
  values: (Constant | FormattedValue)[];
}

export interface FormattedValue extends NodeBase {
  kind: 'FormattedValue';
  value: Expr;
  /** '!r' → 'r', '!s' → 's', '!a' → 'a', none → null. */
  conversion: 'r' | 's' | 'a' | null;
  /** The format spec after ':', itself possibly containing nested fields. */
  formatSpec: JoinedStr | null;
  /** For `f"{x=}"`: the literal text `x=` that Python prints before the value. */
  selfDoc: string | null;
}

export type BinOpName =
  | '+'
  | '-'
  | '*'
  | '/'
  | '//'
  | '%'
  | '**'
  | '@'
  | '<<'
  | '>>'
  | '&'
  | '|'
  | '^';

export interface BinOp extends NodeBase {
  kind: 'BinOp';
  op: BinOpName;
  left: Expr;
  right: Expr;
}

export interface UnaryOp extends NodeBase {
  kind: 'UnaryOp';
  op: '-' | '+' | '~' | 'not';
  operand: Expr;
}

/** `a and b and c` is one BoolOp with three values. */
export interface BoolOp extends NodeBase {
  kind: 'BoolOp';
  op: 'and' | 'or';
  values: Expr[];
}

export type CmpOpName = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'is' | 'is not' | 'in' | 'not in';

/** `a < b <= c`: left=a, ops=['<','<='], comparators=[b,c]. */
export interface Compare extends NodeBase {
  kind: 'Compare';
  left: Expr;
  ops: CmpOpName[];
  comparators: Expr[];
}

export interface Keyword extends NodeBase {
  /** null for `**kwargs`. */
  arg: string | null;
  value: Expr;
}

/** Positional args may include Starred (`*xs`). */
export interface Call extends NodeBase {
  kind: 'Call';
  func: Expr;
  args: Expr[];
  keywords: Keyword[];
}

export interface Attribute extends NodeBase {
  kind: 'Attribute';
  value: Expr;
  attr: string;
  attrSpan: Span;
}

/** `x[i]`, `x[i, j]` (slice is a TupleExpr), `x[1:2]` (slice is a Slice). */
export interface Subscript extends NodeBase {
  kind: 'Subscript';
  value: Expr;
  slice: Expr;
}

export interface Slice extends NodeBase {
  kind: 'Slice';
  lower: Expr | null;
  upper: Expr | null;
  step: Expr | null;
}

export interface Starred extends NodeBase {
  kind: 'Starred';
  value: Expr;
}

export interface TupleExpr extends NodeBase {
  kind: 'Tuple';
  elts: Expr[];
}

export interface ListExpr extends NodeBase {
  kind: 'List';
  elts: Expr[];
}

/** `{**d, k: v}`: a null key marks a `**d` entry. */
export interface DictExpr extends NodeBase {
  kind: 'Dict';
  keys: (Expr | null)[];
  values: Expr[];
}

export interface SetExpr extends NodeBase {
  kind: 'Set';
  elts: Expr[];
}

export interface Lambda extends NodeBase {
  kind: 'Lambda';
  params: Param[];
  body: Expr;
}

export interface IfExp extends NodeBase {
  kind: 'IfExp';
  test: Expr;
  body: Expr;
  orelse: Expr;
}

export interface Comprehension extends NodeBase {
  target: Expr;
  iter: Expr;
  ifs: Expr[];
  isAsync: boolean;
}

export interface ListComp extends NodeBase {
  kind: 'ListComp';
  elt: Expr;
  generators: Comprehension[];
}

export interface SetComp extends NodeBase {
  kind: 'SetComp';
  elt: Expr;
  generators: Comprehension[];
}

export interface DictComp extends NodeBase {
  kind: 'DictComp';
  key: Expr;
  value: Expr;
  generators: Comprehension[];
}

export interface GeneratorExp extends NodeBase {
  kind: 'GeneratorExp';
  elt: Expr;
  generators: Comprehension[];
}

/** `(y := f(x))` */
export interface NamedExpr extends NodeBase {
  kind: 'NamedExpr';
  target: Name;
  value: Expr;
}

/** `yield x` / `yield from xs`: makes the enclosing function a generator. */
export interface Yield extends NodeBase {
  kind: 'Yield';
  value: Expr | null;
  isFrom: boolean;
}

export interface Await extends NodeBase {
  kind: 'Await';
  value: Expr;
}

export type Node = Module | Stmt | Expr;
