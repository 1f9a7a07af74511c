// The Python-subset parser: a Chevrotain EmbeddedActionsParser over the
// tokens of lexer.ts that builds the AST of ast.ts directly. The grammar it
// implements is grammar/python-subset.md (rule names match). Semantic
// actions run inside ACTION(); syntax errors become CompileErrors with
// CPython-style messages and the span of the offending token.
import {
  EmbeddedActionsParser,
  EOF,
  type IParserErrorMessageProvider,
  type IRecognitionException,
  type IToken,
  type ParserMethod,
} from 'chevrotain';
import { CompileError } from '../common/diagnostics.js';
import type * as A from './ast.js';
import type { StringValue } from './lexer.js';
import type { NumberValue } from './scan.js';
import { LineMap } from './source.js';
import * as T from './tokens.js';

// ------------------------------------------------------------ helpers outside the grammar

type TargetCtx = 'assign' | 'del' | 'for' | 'with' | 'comp';

/** How CPython names an expression in "cannot assign to …". */
function describe(e: A.Expr): string {
  switch (e.kind) {
    case 'Call':
      return 'function call';
    case 'Constant':
      if (e.value === true) return 'True';
      if (e.value === false) return 'False';
      if (e.value === null) return 'None';
      if (typeof e.value === 'object' && 'ellipsis' in e.value) return 'ellipsis';
      return 'literal';
    case 'JoinedStr':
      return 'f-string expression';
    case 'BinOp':
    case 'UnaryOp':
    case 'BoolOp':
      return 'expression';
    case 'Compare':
      return 'comparison';
    case 'Lambda':
      return 'lambda';
    case 'IfExp':
      return 'conditional expression';
    case 'ListComp':
      return 'list comprehension';
    case 'SetComp':
      return 'set comprehension';
    case 'DictComp':
      return 'dict comprehension';
    case 'GeneratorExp':
      return 'generator expression';
    case 'Dict':
      return 'dict literal';
    case 'Set':
      return 'set display';
    case 'NamedExpr':
      return 'named expression';
    case 'Await':
      return 'await expression';
    case 'Yield':
      return 'yield expression';
    case 'Slice':
      return 'slice';
    case 'Tuple':
      return 'tuple';
    case 'List':
      return 'list';
    case 'Starred':
      return 'starred';
    case 'Name':
      return 'name';
    case 'Attribute':
      return 'attribute';
    case 'Subscript':
      return 'subscript';
  }
}

function fail(message: string, span: A.Span): never {
  throw new CompileError(message, span);
}

/** A case's pattern from the expression it parses as (patterns are written in expression syntax). */
function toPattern(e: A.Expr): A.Pattern {
  const span = e.span;
  const isValue = (x: A.Expr): boolean => x.kind === 'Name' || (x.kind === 'Attribute' && isValue(x.value));
  const isNumber = (x: A.Expr): boolean =>
    (x.kind === 'Constant' && (typeof x.value === 'number' || typeof x.value === 'bigint' || (typeof x.value === 'object' && x.value !== null && 'imag' in x.value))) ||
    (x.kind === 'UnaryOp' && x.op === '-' && isNumber(x.operand));
  switch (e.kind) {
    case 'Name':
      return { kind: 'MatchAs', pattern: null, name: e.id === '_' ? null : e.id, span };
    case 'Constant':
      if (e.value === null || typeof e.value === 'boolean') return { kind: 'MatchSingleton', value: e.value, span };
      if (typeof e.value === 'object' && 'ellipsis' in e.value) break;
      return { kind: 'MatchValue', value: e, span };
    case 'UnaryOp':
      if (isNumber(e)) return { kind: 'MatchValue', value: e, span };
      break;
    case 'BinOp':
      if (e.op === '|') {
        const alts = (x: A.Expr): A.Pattern[] => (x.kind === 'BinOp' && x.op === '|' ? [...alts(x.left), ...alts(x.right)] : [toPattern(x)]);
        return { kind: 'MatchOr', patterns: alts(e), span };
      }
      if ((e.op === '+' || e.op === '-') && isNumber(e.left) && isNumber(e.right)) return { kind: 'MatchValue', value: e, span };
      break;
    case 'Attribute':
      if (isValue(e)) return { kind: 'MatchValue', value: e, span };
      break;
    case 'Tuple':
    case 'List': {
      const patterns = e.elts.map((x): A.Pattern => {
        if (x.kind !== 'Starred') return toPattern(x);
        if (x.value.kind !== 'Name') fail('invalid syntax', x.span);
        return { kind: 'MatchStar', name: x.value.id === '_' ? null : x.value.id, span: x.span };
      });
      if (patterns.filter((p) => p.kind === 'MatchStar').length > 1) fail('multiple starred names in sequence pattern', span);
      return { kind: 'MatchSequence', patterns, span };
    }
    case 'Dict': {
      const keys: A.Expr[] = [];
      const patterns: A.Pattern[] = [];
      let rest: string | null = null;
      e.keys.forEach((k, i) => {
        const v = e.values[i]!;
        if (k === null) {
          if (v.kind !== 'Name' || i !== e.keys.length - 1) fail('invalid syntax', v.span);
          rest = v.id;
          return;
        }
        const kp = toPattern(k);
        if (kp.kind !== 'MatchValue' && kp.kind !== 'MatchSingleton') fail('mapping pattern keys may only match literals and attribute lookups', k.span);
        keys.push(k);
        patterns.push(toPattern(v));
      });
      return { kind: 'MatchMapping', keys, patterns, rest, span };
    }
    case 'Call': {
      if (!isValue(e.func)) break;
      const kw = e.keywords.filter((k) => k.arg !== null);
      if (kw.length !== e.keywords.length || e.args.some((a) => a.kind === 'Starred')) fail('invalid syntax', span);
      return { kind: 'MatchClass', cls: e.func, patterns: e.args.map(toPattern), kwdAttrs: kw.map((k) => k.arg!), kwdPatterns: kw.map((k) => toPattern(k.value)), span };
    }
    default:
      break;
  }
  return fail('patterns may only match literals and attribute lookups', span);
}

/** Checks that `e` may be assigned to (or deleted, for ctx 'del'). */
function checkTarget(e: A.Expr, ctx: TargetCtx): void {
  switch (e.kind) {
    case 'Name':
    case 'Attribute':
    case 'Subscript':
      return;
    case 'Tuple':
    case 'List': {
      let stars = 0;
      for (const elt of e.elts) {
        if (elt.kind === 'Starred') {
          if (ctx === 'del') fail('cannot delete starred', elt.span);
          if (++stars > 1) fail('multiple starred expressions in assignment', elt.span);
          checkTarget(elt.value, ctx);
        } else {
          checkTarget(elt, ctx);
        }
      }
      return;
    }
    case 'Starred':
      if (ctx === 'del') fail('cannot delete starred', e.span);
      return fail('starred assignment target must be in a list or tuple', e.span);
    default:
      fail(`cannot ${ctx === 'del' ? 'delete' : 'assign to'} ${describe(e)}`, e.span);
  }
}

/** A bare `*x` is only valid inside a tuple, list, set, call or subscript. */
function noBareStar(e: A.Expr | null): void {
  if (e && e.kind === 'Starred') fail('cannot use starred expression here', e.span);
}

function docstringOf(body: A.Stmt[]): string | null {
  const s = body[0];
  if (s && s.kind === 'ExprStmt' && s.value.kind === 'Constant' && typeof s.value.value === 'string' && !s.value.isBytes) {
    return s.value.value;
  }
  return null;
}

/** Binding strength of the operators folded by the `bitwiseOr` rule. */
const PRECEDENCE: Record<A.BinOpName, number> = {
  '|': 1,
  '^': 2,
  '&': 3,
  '<<': 4,
  '>>': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '//': 6,
  '%': 6,
  '@': 6,
  '**': 7,
};

const BLOCK_CONTEXT = {
  if: "'if' statement",
  elif: "'elif' statement",
  else: "'else' statement",
  for: "'for' statement",
  while: "'while' statement",
  with: "'with' statement",
  try: "'try' statement",
  except: "'except' statement",
  finally: "'finally' statement",
  def: 'function definition',
  class: 'class definition',
  case: "'case' statement",
} as const;
type BlockKind = keyof typeof BLOCK_CONTEXT;

/** One raw parameter item, before the order checks of `buildParams`. */
type ParamItem =
  | { kind: '/'; tok: IToken }
  | { kind: '*'; tok: IToken; name: IToken | null; annotation: A.Expr | null }
  | { kind: '**'; tok: IToken; name: IToken; annotation: A.Expr | null }
  | { kind: 'plain'; name: IToken; annotation: A.Expr | null; default: A.Expr | null };

/** One call argument. */
type ArgItem =
  | { kind: 'pos'; value: A.Expr }
  | { kind: 'star'; value: A.Starred }
  | { kind: 'kw'; kw: A.Keyword };

/** One item of a `{...}` display. */
interface BraceItem {
  key: A.Expr | null;
  value: A.Expr;
  /** `k: v` or `**d` (a dict item) rather than a set element. */
  dictItem: boolean;
  span: A.Span;
}

/** The pieces of one f-string or plain string literal, before concatenation. */
interface StrPiece {
  kind: 'str' | 'f';
  start: number;
  end: number;
  value?: StringValue;
  values?: (A.Constant | A.FormattedValue)[];
}

// ------------------------------------------------------------ error messages

const messages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual }) {
    if (actual.tokenType === T.Indent) return 'unexpected indent';
    if (expected === T.Colon) return "expected ':'";
    if (expected === T.Indent) return 'expected an indented block';
    if (expected === T.Else) return "expected 'else' after 'if' expression";
    if (expected === T.LParen) return "expected '('";
    return 'invalid syntax';
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return firstRedundant.tokenType === T.Indent ? 'unexpected indent' : 'invalid syntax';
  },
  buildNoViableAltMessage({ actual, ruleName }) {
    if (actual[0]?.tokenType === T.Indent) return 'unexpected indent';
    if (ruleName === 'tryStmt') return "expected 'except' or 'finally' block";
    return 'invalid syntax';
  },
  buildEarlyExitMessage({ actual }) {
    return actual[0]?.tokenType === T.Indent ? 'unexpected indent' : 'invalid syntax';
  },
};

// ------------------------------------------------------------ the parser

class PythonParser extends EmbeddedActionsParser {
  lines = new LineMap('');
  /** Generator expressions written without their own parentheses, as `f(x for x in y)`. */
  private bareGens = new WeakSet<A.Expr>();

  /** `validate` runs Chevrotain's grammar checks (ambiguities, …): slow, so only in tests. */
  constructor(validate = false) {
    super(T.ALL_TOKENS, {
      maxLookahead: 2,
      recoveryEnabled: false,
      skipValidations: !validate,
      errorMessageProvider: messages,
    });
    this.performSelfAnalysis();
  }

  resetState(lines: LineMap): void {
    this.lines = lines;
    this.bareGens = new WeakSet();
  }

  /** The next token (for error positions after an unexpected failure). */
  nextToken(): IToken {
    return this.LA(1);
  }

  // ---------------------------------------------------------- span helpers

  private sp(start: number, end: number): A.Span {
    return this.lines.span(start, end);
  }
  /** Exclusive end offset of a token. */
  private end(t: IToken): number {
    return t.tokenType === EOF ? this.lines.text.length : t.startOffset + t.image.length;
  }
  private start(t: IToken): number {
    return t.tokenType === EOF ? this.lines.text.length : t.startOffset;
  }
  private tokSpan(t: IToken): A.Span {
    return this.sp(this.start(t), this.end(t));
  }
  /** Span from token `t` to the end of the last consumed token. */
  private from(t: IToken): A.Span {
    return this.sp(this.start(t), this.end(this.LA(0)));
  }
  private fromTo(a: A.Span, b: A.Span): A.Span {
    return { start: a.start, end: b.end };
  }
  private error(message: string, t: IToken): never {
    throw new CompileError(message, this.tokSpan(t));
  }

  // ========================================================== statements

  module = this.RULE('module', (): A.Module => {
    const body: A.Stmt[] = [];
    this.MANY(() => {
      const s = this.SUBRULE(this.statement);
      this.ACTION(() => body.push(...s));
    });
    return this.ACTION(() => ({ kind: 'Module', body, span: this.sp(0, this.lines.text.length) }));
  });

  private statement = this.RULE('statement', (): A.Stmt[] =>
    this.OR([
      { ALT: () => [this.SUBRULE(this.compoundStmt)] },
      { ALT: () => this.SUBRULE(this.simpleStmts) },
    ]),
  );

  private simpleStmts = this.RULE('simpleStmts', (): A.Stmt[] => {
    const stmts: A.Stmt[] = [this.SUBRULE(this.simpleStmt)];
    let empty = false;
    this.MANY(() => {
      const semi = this.CONSUME(T.Semicolon);
      this.ACTION(() => {
        if (empty) this.error('invalid syntax', semi);
        empty = true;
      });
      this.OPTION(() => {
        const s = this.SUBRULE2(this.simpleStmt);
        this.ACTION(() => {
          stmts.push(s);
          empty = false;
        });
      });
    });
    this.CONSUME(T.Newline);
    return stmts;
  });

  private simpleStmt = this.RULE('simpleStmt', (): A.Stmt =>
    this.OR([
      { ALT: () => this.SUBRULE(this.exprStmt) },
      { ALT: () => this.SUBRULE(this.returnStmt) },
      { ALT: () => this.SUBRULE(this.importName) },
      { ALT: () => this.SUBRULE(this.importFrom) },
      { ALT: () => this.SUBRULE(this.raiseStmt) },
      { ALT: () => this.SUBRULE(this.delStmt) },
      { ALT: () => this.SUBRULE(this.assertStmt) },
      { ALT: () => this.SUBRULE(this.globalStmt) },
      {
        ALT: () => {
          const t = this.CONSUME(T.Pass);
          return this.ACTION((): A.Stmt => ({ kind: 'Pass', span: this.tokSpan(t) }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Break);
          return this.ACTION((): A.Stmt => ({ kind: 'Break', span: this.tokSpan(t) }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Continue);
          return this.ACTION((): A.Stmt => ({ kind: 'Continue', span: this.tokSpan(t) }));
        },
      },
    ]),
  );

  private exprStmt = this.RULE('exprStmt', (): A.Stmt => {
    const st = this.LA(1);
    const first = this.SUBRULE(this.starExpressions);
    type Rest =
      | { kind: 'assign'; values: A.Expr[] }
      | { kind: 'aug'; op: IToken; value: A.Expr }
      | { kind: 'ann'; annotation: A.Expr; value: A.Expr | null };
    const rest = this.OPTION(() =>
      this.OR<Rest>([
        {
          ALT: () => {
            const values: A.Expr[] = [];
            this.AT_LEAST_ONE(() => {
              this.CONSUME(T.Assign);
              values.push(this.SUBRULE2(this.starExpressions));
            });
            return { kind: 'assign', values };
          },
        },
        {
          ALT: () => {
            const op = this.CONSUME(T.AugAssignOp);
            const value = this.SUBRULE3(this.starExpressions);
            return { kind: 'aug', op, value };
          },
        },
        {
          ALT: () => {
            this.CONSUME(T.Colon);
            const annotation = this.SUBRULE(this.expression);
            const value = this.OPTION2(() => {
              this.CONSUME2(T.Assign);
              return this.SUBRULE4(this.starExpressions);
            });
            return { kind: 'ann', annotation, value: value ?? null };
          },
        },
      ]),
    );
    return this.ACTION((): A.Stmt => {
      const span = this.from(st);
      if (!rest) {
        noBareStar(first);
        return { kind: 'ExprStmt', value: first, span };
      }
      if (rest.kind === 'assign') {
        const all = [first, ...rest.values];
        const value = all.pop()!;
        noBareStar(value);
        for (const t of all) checkTarget(t, 'assign');
        return { kind: 'Assign', targets: all, value, span };
      }
      if (rest.kind === 'aug') {
        if (first.kind !== 'Name' && first.kind !== 'Attribute' && first.kind !== 'Subscript') {
          fail(`'${describe(first)}' is an illegal expression for augmented assignment`, first.span);
        }
        noBareStar(rest.value);
        const op = rest.op.image.slice(0, -1) as A.BinOpName;
        return { kind: 'AugAssign', target: first, op, value: rest.value, span };
      }
      if (first.kind === 'Tuple' || first.kind === 'List') {
        fail(`only single target (not ${first.kind === 'Tuple' ? 'tuple' : 'list'}) can be annotated`, first.span);
      }
      if (first.kind !== 'Name' && first.kind !== 'Attribute' && first.kind !== 'Subscript') {
        fail('illegal target for annotation', first.span);
      }
      noBareStar(rest.value);
      return { kind: 'AnnAssign', target: first, annotation: rest.annotation, value: rest.value, span };
    });
  });

  private returnStmt = this.RULE('returnStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Return);
    const value = this.OPTION(() => this.SUBRULE(this.starExpressions));
    return this.ACTION((): A.Stmt => {
      noBareStar(value ?? null);
      return { kind: 'Return', value: value ?? null, span: this.from(t) };
    });
  });

  private dottedName = this.RULE('dottedName', (): { name: string; first: IToken } => {
    const first = this.CONSUME(T.Name);
    const parts = [first.image];
    this.MANY(() => {
      this.CONSUME(T.Dot);
      parts.push(this.CONSUME2(T.Name).image);
    });
    return { name: parts.join('.'), first };
  });

  private importName = this.RULE('importName', (): A.Stmt => {
    const t = this.CONSUME(T.Import);
    const names: A.Alias[] = [];
    this.AT_LEAST_ONE_SEP({
      SEP: T.Comma,
      DEF: () => {
        const d = this.SUBRULE(this.dottedName);
        const as = this.OPTION(() => {
          this.CONSUME(T.As);
          return this.CONSUME(T.Name);
        });
        this.ACTION(() => names.push({ name: d.name, asname: as?.image ?? null, span: this.from(d.first) }));
      },
    });
    return this.ACTION((): A.Stmt => ({ kind: 'Import', names, span: this.from(t) }));
  });

  private importAsNames = this.RULE('importAsNames', (parenthesized?: boolean): A.Alias[] => {
    const names: A.Alias[] = [];
    let trailing: IToken | null = null;
    const one = (idx: number): void => {
      const n = this.consume(idx, T.Name);
      const as = this.option(idx, () => {
        this.consume(idx + 10, T.As);
        return this.consume(idx + 20, T.Name);
      });
      this.ACTION(() => {
        names.push({ name: n.image, asname: as?.image ?? null, span: this.from(n) });
        trailing = null;
      });
    };
    one(1);
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
      });
      this.OPTION3(() => one(2));
    });
    this.ACTION(() => {
      if (trailing && !parenthesized) this.error('trailing comma not allowed without surrounding parentheses', trailing);
    });
    return names;
  });

  private importFrom = this.RULE('importFrom', (): A.Stmt => {
    const t = this.CONSUME(T.From);
    let level = 0;
    this.MANY(() =>
      this.OR([
        { ALT: () => void (this.CONSUME(T.Dot), (level += 1)) },
        { ALT: () => void (this.CONSUME(T.Ellipsis), (level += 3)) },
      ]),
    );
    const mod = this.OPTION(() => this.SUBRULE(this.dottedName));
    const imp = this.CONSUME(T.Import);
    this.ACTION(() => {
      if (!mod && level === 0) this.error('invalid syntax', imp);
    });
    const names = this.OR2([
      {
        ALT: () => {
          const s = this.CONSUME(T.Star);
          return this.ACTION(() => [{ name: '*', asname: null, span: this.tokSpan(s) }]);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.LParen);
          const ns = this.SUBRULE(this.importAsNames, { ARGS: [true] });
          this.CONSUME(T.RParen);
          return ns;
        },
      },
      { ALT: () => this.SUBRULE2(this.importAsNames, { ARGS: [false] }) },
    ]);
    return this.ACTION((): A.Stmt => ({ kind: 'ImportFrom', module: mod?.name ?? null, names, level, span: this.from(t) }));
  });

  private raiseStmt = this.RULE('raiseStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Raise);
    let exc: A.Expr | null = null;
    let cause: A.Expr | null = null;
    this.OPTION(() => {
      exc = this.SUBRULE(this.expression);
      this.OPTION2(() => {
        this.CONSUME(T.From);
        cause = this.SUBRULE2(this.expression);
      });
    });
    return this.ACTION((): A.Stmt => ({ kind: 'Raise', exc, cause, span: this.from(t) }));
  });

  private delStmt = this.RULE('delStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Del);
    const targets: A.Expr[] = [this.SUBRULE(this.targetElem)];
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
      });
      this.OPTION(() => {
        targets.push(this.SUBRULE2(this.targetElem));
        trailing = null;
      });
    });
    return this.ACTION((): A.Stmt => {
      for (const x of targets) checkTarget(x, 'del');
      return { kind: 'Del', targets, span: this.from(t) };
    });
  });

  private assertStmt = this.RULE('assertStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Assert);
    const test = this.SUBRULE(this.expression);
    const msg = this.OPTION(() => {
      this.CONSUME(T.Comma);
      return this.SUBRULE2(this.expression);
    });
    return this.ACTION((): A.Stmt => ({ kind: 'Assert', test, msg: msg ?? null, span: this.from(t) }));
  });

  private globalStmt = this.RULE('globalStmt', (): A.Stmt => {
    const kw = this.OR([{ ALT: () => this.CONSUME(T.Global) }, { ALT: () => this.CONSUME(T.Nonlocal) }]);
    const names: string[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => names.push(this.CONSUME(T.Name).image) });
    return this.ACTION(
      (): A.Stmt => ({ kind: kw.tokenType === T.Global ? 'Global' : 'Nonlocal', names, span: this.from(kw) }),
    );
  });

  // ---------------------------------------------------------- compound statements

  private compoundStmt = this.RULE('compoundStmt', (): A.Stmt =>
    this.OR([
      { ALT: () => this.SUBRULE(this.ifStmt) },
      { ALT: () => this.SUBRULE(this.forStmt) },
      { ALT: () => this.SUBRULE(this.whileStmt) },
      { ALT: () => this.SUBRULE(this.withStmt) },
      { ALT: () => this.SUBRULE(this.tryStmt) },
      { ALT: () => this.SUBRULE(this.matchStmt) },
      { ALT: () => this.SUBRULE(this.funcDef) },
      { ALT: () => this.SUBRULE(this.classDef) },
      { ALT: () => this.SUBRULE(this.decorated) },
      { ALT: () => this.SUBRULE(this.asyncUnsupported) },
    ]),
  );

  private block = this.RULE('block', (kind?: BlockKind, header?: IToken): A.Stmt[] =>
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Newline);
          this.ACTION(() => {
            const next = this.LA(1);
            if (next.tokenType !== T.Indent && kind && header) {
              const line = this.lines.pos(header.startOffset).line;
              this.error(`expected an indented block after ${BLOCK_CONTEXT[kind]} on line ${line}`, next);
            }
          });
          this.CONSUME(T.Indent);
          const body: A.Stmt[] = [];
          this.AT_LEAST_ONE(() => {
            const s = this.SUBRULE(this.statement);
            this.ACTION(() => body.push(...s));
          });
          this.CONSUME(T.Dedent);
          return body;
        },
      },
      { ALT: () => this.SUBRULE(this.simpleStmts) },
    ]),
  );

  /** End span of a statement list (the last statement's). */
  private lastSpan(body: A.Stmt[], fallback: IToken): A.Span {
    return body.length > 0 ? body[body.length - 1]!.span : this.tokSpan(fallback);
  }

  private matchStmt = this.RULE('matchStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Match);
    const subject = this.SUBRULE(this.starExpressions);
    this.CONSUME(T.Colon);
    this.CONSUME(T.Newline);
    this.CONSUME(T.Indent);
    const cases: A.MatchCase[] = [];
    this.AT_LEAST_ONE(() => {
      const c = this.SUBRULE(this.caseBlock);
      this.ACTION(() => cases.push(c));
    });
    this.CONSUME(T.Dedent);
    return this.ACTION((): A.Stmt => {
      noBareStar(subject);
      return { kind: 'Match', subject, cases, span: this.fromTo(this.tokSpan(t), cases[cases.length - 1]!.span) };
    });
  });

  private caseBlock = this.RULE('caseBlock', (): A.MatchCase => {
    const t = this.CONSUME(T.Case);
    const st = this.LA(1);
    const elts: A.Pattern[] = [this.SUBRULE(this.casePattern)];
    let comma = false;
    this.MANY(() => {
      this.CONSUME(T.Comma);
      comma = true;
      this.OPTION(() => {
        const p = this.SUBRULE2(this.casePattern);
        this.ACTION(() => elts.push(p));
      });
    });
    const guard = this.OPTION2(() => {
      this.CONSUME(T.If);
      return this.SUBRULE(this.namedExpression);
    });
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['case', t] });
    return this.ACTION((): A.MatchCase => {
      const pattern: A.Pattern = comma ? { kind: 'MatchSequence', patterns: elts, span: this.from(st) } : elts[0]!;
      if (!comma && pattern.kind === 'MatchStar') fail('can\'t use starred expression here', pattern.span);
      return { pattern, guard: guard ?? null, body, span: this.fromTo(this.tokSpan(t), this.lastSpan(body, t)) };
    });
  });

  /** One pattern of a case (an element of its open sequence): `*name`, or an or-pattern with an optional `as name`. */
  private casePattern = this.RULE('casePattern', (): A.Pattern =>
    this.OR([
      {
        ALT: () => {
          const star = this.CONSUME(T.Star);
          const n = this.CONSUME(T.Name);
          return this.ACTION((): A.Pattern => ({ kind: 'MatchStar', name: n.image === '_' ? null : n.image, span: this.from(star) }));
        },
      },
      {
        ALT: () => {
          const st = this.LA(1);
          const e = this.SUBRULE(this.bitwiseOr);
          const as = this.OPTION(() => {
            this.CONSUME(T.As);
            return this.CONSUME2(T.Name);
          });
          return this.ACTION((): A.Pattern => {
            const p = toPattern(e);
            if (!as) return p;
            if (as.image === '_') this.error("cannot use '_' as a target", as);
            return { kind: 'MatchAs', pattern: p, name: as.image, span: this.from(st) };
          });
        },
      },
    ]),
  );

  private ifStmt = this.RULE('ifStmt', (): A.Stmt => {
    const t = this.CONSUME(T.If);
    const test = this.SUBRULE(this.namedExpression);
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['if', t] });
    const orelse = this.OPTION(() =>
      this.OR([{ ALT: () => [this.SUBRULE(this.elifStmt)] }, { ALT: () => this.SUBRULE(this.elseBlock) }]),
    );
    return this.ACTION((): A.Stmt => {
      const els = orelse ?? [];
      return { kind: 'If', test, body, orelse: els, span: this.fromTo(this.tokSpan(t), this.lastSpan(els.length ? els : body, t)) };
    });
  });

  private elifStmt = this.RULE('elifStmt', (): A.If => {
    const t = this.CONSUME(T.Elif);
    const test = this.SUBRULE(this.namedExpression);
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['elif', t] });
    const orelse = this.OPTION(() =>
      this.OR([{ ALT: () => [this.SUBRULE(this.elifStmt)] }, { ALT: () => this.SUBRULE(this.elseBlock) }]),
    );
    return this.ACTION((): A.If => {
      const els = orelse ?? [];
      return { kind: 'If', test, body, orelse: els, span: this.fromTo(this.tokSpan(t), this.lastSpan(els.length ? els : body, t)) };
    });
  });

  private elseBlock = this.RULE('elseBlock', (): A.Stmt[] => {
    const t = this.CONSUME(T.Else);
    this.CONSUME(T.Colon);
    return this.SUBRULE(this.block, { ARGS: ['else', t] });
  });

  private forStmt = this.RULE('forStmt', (): A.Stmt => {
    const t = this.CONSUME(T.For);
    const target = this.SUBRULE(this.targetList);
    this.CONSUME(T.In);
    const iter = this.SUBRULE(this.starExpressions);
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['for', t] });
    const orelse = this.OPTION(() => this.SUBRULE(this.elseBlock));
    return this.ACTION((): A.Stmt => {
      checkTarget(target, 'for');
      noBareStar(iter);
      const els = orelse ?? [];
      return { kind: 'For', target, iter, body, orelse: els, span: this.fromTo(this.tokSpan(t), this.lastSpan(els.length ? els : body, t)) };
    });
  });

  private whileStmt = this.RULE('whileStmt', (): A.Stmt => {
    const t = this.CONSUME(T.While);
    const test = this.SUBRULE(this.namedExpression);
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['while', t] });
    const orelse = this.OPTION(() => this.SUBRULE(this.elseBlock));
    return this.ACTION((): A.Stmt => {
      const els = orelse ?? [];
      return { kind: 'While', test, body, orelse: els, span: this.fromTo(this.tokSpan(t), this.lastSpan(els.length ? els : body, t)) };
    });
  });

  private withItem = this.RULE('withItem', (): A.WithItem => {
    const st = this.LA(1);
    const contextExpr = this.SUBRULE(this.expression);
    const optionalVars = this.OPTION(() => {
      this.CONSUME(T.As);
      return this.SUBRULE(this.targetElem);
    });
    return this.ACTION((): A.WithItem => {
      if (optionalVars) checkTarget(optionalVars, 'with');
      return { contextExpr, optionalVars: optionalVars ?? null, span: this.from(st) };
    });
  });

  private withStmt = this.RULE('withStmt', (): A.Stmt => {
    const t = this.CONSUME(T.With);
    const items: A.WithItem[] = [];
    this.OR({
      IGNORE_AMBIGUITIES: true,
      DEF: [
        {
          // `with (a as b, c as d):` — tried first, as CPython does.
          GATE: () => this.parenthesizedWithItems(),
          ALT: () => {
            this.CONSUME(T.LParen);
            items.push(this.SUBRULE(this.withItem));
            let trailing: IToken | null = null;
            this.MANY(() => {
              const c = this.CONSUME(T.Comma);
              this.ACTION(() => {
                if (trailing) this.error('invalid syntax', c);
                trailing = c;
              });
              this.OPTION(() => {
                items.push(this.SUBRULE2(this.withItem));
                trailing = null;
              });
            });
            this.CONSUME(T.RParen);
          },
        },
        {
          ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE3(this.withItem)) }),
        },
      ],
    });
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['with', t] });
    return this.ACTION((): A.Stmt => ({ kind: 'With', items, body, span: this.fromTo(this.tokSpan(t), this.lastSpan(body, t)) }));
  });

  /** Whether the next tokens are '(' … ')' ':' (parenthesized with-items). */
  private parenthesizedWithItems(): boolean {
    if (this.LA(1).tokenType !== T.LParen) return false;
    let depth = 0;
    for (let k = 1; ; k++) {
      const tt = this.LA(k).tokenType;
      if (tt === EOF || tt === T.Newline) return false;
      if (tt === T.LParen || tt === T.LBracket || tt === T.LBrace) depth++;
      else if (tt === T.RParen || tt === T.RBracket || tt === T.RBrace) {
        if (--depth === 0) return this.LA(k + 1).tokenType === T.Colon;
      }
    }
  }

  private exceptClause = this.RULE('exceptClause', (): A.ExceptHandler => {
    const t = this.CONSUME(T.Except);
    let type: A.Expr | null = null;
    let name: string | null = null;
    this.OPTION(() => {
      type = this.SUBRULE(this.expression);
      this.OPTION2(() => {
        this.CONSUME(T.As);
        name = this.CONSUME(T.Name).image;
      });
    });
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['except', t] });
    return this.ACTION((): A.ExceptHandler => ({ type, name, body, span: this.fromTo(this.tokSpan(t), this.lastSpan(body, t)) }));
  });

  private finallyBlock = this.RULE('finallyBlock', (): A.Stmt[] => {
    const t = this.CONSUME(T.Finally);
    this.CONSUME(T.Colon);
    return this.SUBRULE(this.block, { ARGS: ['finally', t] });
  });

  private tryStmt = this.RULE('tryStmt', (): A.Stmt => {
    const t = this.CONSUME(T.Try);
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['try', t] });
    const handlers: A.ExceptHandler[] = [];
    let orelse: A.Stmt[] = [];
    let finalbody: A.Stmt[] = [];
    this.OR([
      {
        ALT: () => {
          this.AT_LEAST_ONE(() => handlers.push(this.SUBRULE(this.exceptClause)));
          this.OPTION(() => (orelse = this.SUBRULE(this.elseBlock)));
          this.OPTION2(() => (finalbody = this.SUBRULE(this.finallyBlock)));
        },
      },
      { ALT: () => (finalbody = this.SUBRULE2(this.finallyBlock)) },
    ]);
    return this.ACTION((): A.Stmt => {
      const endSpan = finalbody.length
        ? this.lastSpan(finalbody, t)
        : orelse.length
          ? this.lastSpan(orelse, t)
          : handlers.length
            ? handlers[handlers.length - 1]!.span
            : this.lastSpan(body, t);
      return { kind: 'Try', body, handlers, orelse, finalbody, span: this.fromTo(this.tokSpan(t), endSpan) };
    });
  });

  private funcDef = this.RULE('funcDef', (): A.FunctionDef => {
    const asyncTok = this.OPTION(() => this.CONSUME(T.Async));
    const t = this.CONSUME(T.Def);
    const name = this.CONSUME(T.Name);
    this.CONSUME(T.LParen);
    const params = this.OPTION2(() => this.SUBRULE(this.funcParams));
    this.CONSUME(T.RParen);
    const returns = this.OPTION3(() => {
      this.CONSUME(T.Arrow);
      return this.SUBRULE(this.expression);
    });
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['def', t] });
    return this.ACTION((): A.FunctionDef => ({
      kind: 'FunctionDef',
      name: name.image,
      nameSpan: this.tokSpan(name),
      params: params ?? [],
      returns: returns ?? null,
      body,
      decorators: [],
      docstring: docstringOf(body),
      isAsync: asyncTok !== undefined,
      span: this.fromTo(this.tokSpan(asyncTok ?? t), this.lastSpan(body, t)),
    }));
  });

  private asyncUnsupported = this.RULE('asyncUnsupported', (): A.Stmt => {
    this.CONSUME(T.Async);
    const t = this.OR([{ ALT: () => this.CONSUME(T.For) }, { ALT: () => this.CONSUME(T.With) }]);
    return this.ACTION(() => this.error(`'async ${t.image}' statements are not supported`, t));
  });

  private classDef = this.RULE('classDef', (): A.ClassDef => {
    const t = this.CONSUME(T.Class);
    const name = this.CONSUME(T.Name);
    const args = this.OPTION(() => {
      this.CONSUME(T.LParen);
      const a = this.OPTION2(() => this.SUBRULE(this.callArgs));
      this.CONSUME(T.RParen);
      return a;
    });
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.block, { ARGS: ['class', t] });
    return this.ACTION((): A.ClassDef => {
      const bases = args?.args ?? [];
      for (const b of bases) if (this.bareGens.has(b)) fail('invalid syntax', b.span);
      return {
        kind: 'ClassDef',
        name: name.image,
        nameSpan: this.tokSpan(name),
        bases,
        keywords: args?.keywords ?? [],
        body,
        decorators: [],
        docstring: docstringOf(body),
        span: this.fromTo(this.tokSpan(t), this.lastSpan(body, t)),
      };
    });
  });

  private decorated = this.RULE('decorated', (): A.Stmt => {
    const decorators: A.Expr[] = [];
    this.AT_LEAST_ONE(() => {
      this.CONSUME(T.At);
      decorators.push(this.SUBRULE(this.namedExpression));
      this.CONSUME(T.Newline);
    });
    const def = this.OR([{ ALT: () => this.SUBRULE(this.funcDef) }, { ALT: () => this.SUBRULE(this.classDef) }]);
    return this.ACTION((): A.Stmt => {
      def.decorators = decorators;
      return def;
    });
  });

  // ---------------------------------------------------------- parameters

  private paramItem = this.RULE('paramItem', (): ParamItem =>
    this.OR<ParamItem>([
      { ALT: () => ({ kind: '/', tok: this.CONSUME(T.Slash) }) },
      {
        ALT: () => {
          const tok = this.CONSUME(T.Star);
          let name: IToken | null = null;
          let annotation: A.Expr | null = null;
          this.OPTION(() => {
            name = this.CONSUME(T.Name);
            this.OPTION2(() => {
              this.CONSUME(T.Colon);
              annotation = this.SUBRULE(this.expression);
            });
          });
          return { kind: '*', tok, name, annotation };
        },
      },
      {
        ALT: () => {
          const tok = this.CONSUME(T.Pow);
          const name = this.CONSUME2(T.Name);
          const annotation = this.OPTION3(() => {
            this.CONSUME2(T.Colon);
            return this.SUBRULE2(this.expression);
          });
          return { kind: '**', tok, name, annotation: annotation ?? null };
        },
      },
      {
        ALT: () => {
          const name = this.CONSUME3(T.Name);
          const annotation = this.OPTION4(() => {
            this.CONSUME3(T.Colon);
            return this.SUBRULE3(this.expression);
          });
          const dflt = this.OPTION5(() => {
            this.CONSUME(T.Assign);
            return this.SUBRULE4(this.expression);
          });
          return { kind: 'plain', name, annotation: annotation ?? null, default: dflt ?? null };
        },
      },
    ]),
  );

  private lambdaParamItem = this.RULE('lambdaParamItem', (): ParamItem =>
    this.OR<ParamItem>([
      { ALT: () => ({ kind: '/', tok: this.CONSUME(T.Slash) }) },
      {
        ALT: () => {
          const tok = this.CONSUME(T.Star);
          const name = this.OPTION(() => this.CONSUME(T.Name));
          return { kind: '*', tok, name: name ?? null, annotation: null };
        },
      },
      {
        ALT: () => {
          const tok = this.CONSUME(T.Pow);
          const name = this.CONSUME2(T.Name);
          return { kind: '**', tok, name, annotation: null };
        },
      },
      {
        ALT: () => {
          const name = this.CONSUME3(T.Name);
          const dflt = this.OPTION2(() => {
            this.CONSUME(T.Assign);
            return this.SUBRULE(this.expression);
          });
          return { kind: 'plain', name, annotation: null, default: dflt ?? null };
        },
      },
    ]),
  );

  private funcParams = this.RULE('funcParams', (): A.Param[] => {
    const items: ParamItem[] = [this.SUBRULE(this.paramItem)];
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
      });
      this.OPTION(() => {
        items.push(this.SUBRULE2(this.paramItem));
        trailing = null;
      });
    });
    return this.ACTION(() => this.buildParams(items));
  });

  private lambdaParams = this.RULE('lambdaParams', (): A.Param[] => {
    const items: ParamItem[] = [this.SUBRULE(this.lambdaParamItem)];
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
      });
      this.OPTION(() => {
        items.push(this.SUBRULE2(this.lambdaParamItem));
        trailing = null;
      });
    });
    return this.ACTION(() => this.buildParams(items));
  });

  /** Applies Python's parameter-order rules to a parameter list. */
  private buildParams(items: ParamItem[]): A.Param[] {
    const params: A.Param[] = [];
    const seen = new Set<string>();
    let slash = false;
    let star: IToken | null = null;
    let bareStar: IToken | null = null;
    let kwargs = false;
    let sawDefault = false;
    const name = (t: IToken): string => {
      if (seen.has(t.image)) this.error(`duplicate argument '${t.image}' in function definition`, t);
      seen.add(t.image);
      return t.image;
    };
    for (const it of items) {
      if (kwargs) this.error('arguments cannot follow var-keyword argument', it.kind === 'plain' ? it.name : it.tok);
      if (it.kind === '/') {
        if (slash) this.error('/ may appear only once', it.tok);
        if (star) this.error('/ must be ahead of *', it.tok);
        if (params.length === 0) this.error('at least one argument must precede /', it.tok);
        slash = true;
        for (const p of params) p.posOnly = true;
      } else if (it.kind === '*') {
        if (star) this.error('* argument may appear only once', it.tok);
        star = it.tok;
        if (it.name) {
          params.push({
            name: name(it.name),
            annotation: it.annotation,
            default: null,
            star: '*',
            kwOnly: false,
            posOnly: false,
            span: this.spanTo(it.tok, it.annotation ?? it.name),
          });
        } else {
          bareStar = it.tok;
        }
      } else if (it.kind === '**') {
        if (bareStar) this.error('named arguments must follow bare *', bareStar);
        kwargs = true;
        params.push({
          name: name(it.name),
          annotation: it.annotation,
          default: null,
          star: '**',
          kwOnly: false,
          posOnly: false,
          span: this.spanTo(it.tok, it.annotation ?? it.name),
        });
      } else {
        bareStar = null;
        const kwOnly = star !== null;
        if (it.default) sawDefault = sawDefault || !kwOnly;
        else if (sawDefault && !kwOnly) this.error('parameter without a default follows parameter with a default', it.name);
        params.push({
          name: name(it.name),
          annotation: it.annotation,
          default: it.default,
          star: '',
          kwOnly,
          posOnly: false,
          span: this.spanTo(it.name, it.default ?? it.annotation ?? it.name),
        });
      }
    }
    if (bareStar) this.error('named arguments must follow bare *', bareStar);
    return params;
  }

  /** Span from token `a` to the end of token or node `b`. */
  private spanTo(a: IToken, b: IToken | A.Expr): A.Span {
    const end = 'span' in b ? b.span.end.offset : this.end(b);
    return this.sp(a.startOffset, end);
  }

  // ========================================================== expressions

  private starExpressions = this.RULE('starExpressions', (): A.Expr => {
    const st = this.LA(1);
    const elts: A.Expr[] = [this.SUBRULE(this.starExpression)];
    let comma = false;
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
        comma = true;
      });
      this.OPTION(() => {
        elts.push(this.SUBRULE2(this.starExpression));
        trailing = null;
      });
    });
    return this.ACTION((): A.Expr => (comma ? { kind: 'Tuple', elts, span: this.from(st) } : elts[0]!));
  });

  private starExpression = this.RULE('starExpression', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          const value = this.SUBRULE(this.bitwiseOr);
          return this.ACTION((): A.Expr => ({ kind: 'Starred', value, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.expression) },
    ]),
  );

  private starNamedExpression = this.RULE('starNamedExpression', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          const value = this.SUBRULE(this.bitwiseOr);
          return this.ACTION((): A.Expr => ({ kind: 'Starred', value, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.namedExpression) },
    ]),
  );

  private namedExpression = this.RULE('namedExpression', (): A.Expr => {
    const st = this.LA(1);
    const e = this.SUBRULE(this.expression);
    const value = this.OPTION(() => {
      const op = this.CONSUME(T.ColonEqual);
      const v = this.SUBRULE2(this.expression);
      return { op, v };
    });
    return this.ACTION((): A.Expr => {
      if (!value) return e;
      if (e.kind !== 'Name') fail(`cannot use assignment expressions with ${describe(e)}`, e.span);
      return { kind: 'NamedExpr', target: e, value: value.v, span: this.from(st) };
    });
  });

  private expression = this.RULE('expression', (): A.Expr =>
    this.OR([
      { ALT: () => this.SUBRULE(this.lambdef) },
      {
        ALT: () => {
          const st = this.LA(1);
          const body = this.SUBRULE(this.disjunction);
          const rest = this.OPTION(() => {
            this.CONSUME(T.If);
            const test = this.SUBRULE2(this.disjunction);
            this.CONSUME(T.Else);
            const orelse = this.SUBRULE(this.expression);
            return { test, orelse };
          });
          return this.ACTION((): A.Expr =>
            rest ? { kind: 'IfExp', test: rest.test, body, orelse: rest.orelse, span: this.from(st) } : body,
          );
        },
      },
    ]),
  );

  private lambdef = this.RULE('lambdef', (): A.Expr => {
    const t = this.CONSUME(T.Lambda);
    const params = this.OPTION(() => this.SUBRULE(this.lambdaParams));
    this.CONSUME(T.Colon);
    const body = this.SUBRULE(this.expression);
    return this.ACTION((): A.Expr => ({ kind: 'Lambda', params: params ?? [], body, span: this.from(t) }));
  });

  private disjunction = this.RULE('disjunction', (): A.Expr => {
    const st = this.LA(1);
    const values = [this.SUBRULE(this.conjunction)];
    this.MANY(() => {
      this.CONSUME(T.Or);
      values.push(this.SUBRULE2(this.conjunction));
    });
    return this.ACTION((): A.Expr => (values.length === 1 ? values[0]! : { kind: 'BoolOp', op: 'or', values, span: this.from(st) }));
  });

  private conjunction = this.RULE('conjunction', (): A.Expr => {
    const st = this.LA(1);
    const values = [this.SUBRULE(this.inversion)];
    this.MANY(() => {
      this.CONSUME(T.And);
      values.push(this.SUBRULE2(this.inversion));
    });
    return this.ACTION((): A.Expr => (values.length === 1 ? values[0]! : { kind: 'BoolOp', op: 'and', values, span: this.from(st) }));
  });

  private inversion = this.RULE('inversion', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Not);
          const operand = this.SUBRULE(this.inversion);
          return this.ACTION((): A.Expr => ({ kind: 'UnaryOp', op: 'not', operand, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]),
  );

  private comparison = this.RULE('comparison', (): A.Expr => {
    const st = this.LA(1);
    const left = this.SUBRULE(this.bitwiseOr);
    const ops: A.CmpOpName[] = [];
    const comparators: A.Expr[] = [];
    this.MANY(() => {
      const op = this.OR<A.CmpOpName>([
        { ALT: () => this.CONSUME(T.CompOp).image as A.CmpOpName },
        { ALT: () => (this.CONSUME(T.In), 'in') },
        { ALT: () => (this.CONSUME(T.Not), this.CONSUME2(T.In), 'not in') },
        { ALT: () => (this.CONSUME(T.Is), this.OPTION(() => this.CONSUME2(T.Not)) ? 'is not' : 'is') },
      ]);
      ops.push(op);
      comparators.push(this.SUBRULE2(this.bitwiseOr));
    });
    return this.ACTION((): A.Expr => (ops.length === 0 ? left : { kind: 'Compare', left, ops, comparators, span: this.from(st) }));
  });

  /**
   * The binary operators from `|` to `*`: factor (op factor)*, folded by
   * precedence climbing (all left-associative) into BinOps. Each BinOp spans
   * from the first token of its left operand to the last of its right one.
   */
  private bitwiseOr = this.RULE('bitwiseOr', (): A.Expr => {
    const starts: IToken[] = [this.LA(1)];
    const operands: A.Expr[] = [this.SUBRULE(this.factor)];
    const ends: IToken[] = [this.LA(0)];
    const ops: IToken[] = [];
    this.MANY(() => {
      ops.push(this.CONSUME(T.BinaryOp));
      starts.push(this.LA(1));
      operands.push(this.SUBRULE2(this.factor));
      ends.push(this.LA(0));
    });
    return this.ACTION((): A.Expr => {
      if (ops.length === 0) return operands[0]!;
      type Item = { e: A.Expr; start: number; end: number };
      const out: Item[] = [{ e: operands[0]!, start: starts[0]!.startOffset, end: this.end(ends[0]!) }];
      const pending: A.BinOpName[] = [];
      const reduce = (): void => {
        const right = out.pop()!;
        const left = out.pop()!;
        const op = pending.pop()!;
        const span = this.sp(left.start, right.end);
        out.push({ e: { kind: 'BinOp', op, left: left.e, right: right.e, span }, start: left.start, end: right.end });
      };
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!.image as A.BinOpName;
        while (pending.length > 0 && PRECEDENCE[pending[pending.length - 1]!] >= PRECEDENCE[op]) reduce();
        pending.push(op);
        out.push({ e: operands[i + 1]!, start: starts[i + 1]!.startOffset, end: this.end(ends[i + 1]!) });
      }
      while (pending.length > 0) reduce();
      return out[0]!.e;
    });
  });

  private factor: ParserMethod<[], A.Expr> = this.RULE('factor', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.UnaryOpTok);
          const operand = this.SUBRULE(this.factor);
          return this.ACTION((): A.Expr => ({ kind: 'UnaryOp', op: t.image as '-' | '+' | '~', operand, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.power) },
    ]),
  );

  private power = this.RULE('power', (): A.Expr => {
    const st = this.LA(1);
    const left = this.SUBRULE(this.awaitPrimary);
    const right = this.OPTION(() => {
      this.CONSUME(T.Pow);
      return this.SUBRULE(this.factor);
    });
    return this.ACTION((): A.Expr => (right ? { kind: 'BinOp', op: '**', left, right, span: this.from(st) } : left));
  });

  private awaitPrimary = this.RULE('awaitPrimary', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Await);
          const value = this.SUBRULE(this.primary);
          return this.ACTION((): A.Expr => ({ kind: 'Await', value, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE2(this.primary) },
    ]),
  );

  private primary = this.RULE('primary', (): A.Expr => {
    const st = this.LA(1);
    let e = this.SUBRULE(this.atom);
    this.MANY(() =>
      this.OR([
        {
          ALT: () => {
            this.CONSUME(T.Dot);
            const name = this.CONSUME(T.Name);
            e = this.ACTION((): A.Expr => ({ kind: 'Attribute', value: e, attr: name.image, attrSpan: this.tokSpan(name), span: this.from(st) }));
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME(T.LParen);
            const args = this.OPTION(() => this.SUBRULE(this.callArgs));
            const close = this.CONSUME(T.RParen);
            e = this.ACTION((): A.Expr => {
              const a = args?.args ?? [];
              const keywords = args?.keywords ?? [];
              const gen = a.find((x) => this.bareGens.has(x));
              if (gen) {
                if (a.length + keywords.length > 1) fail('Generator expression must be parenthesized', gen.span);
                gen.span = this.sp(open.startOffset, this.end(close));
              }
              return { kind: 'Call', func: e, args: a, keywords, span: this.from(st) };
            });
          },
        },
        {
          ALT: () => {
            this.CONSUME(T.LBracket);
            const slice = this.SUBRULE(this.slices);
            this.CONSUME(T.RBracket);
            e = this.ACTION((): A.Expr => ({ kind: 'Subscript', value: e, slice, span: this.from(st) }));
          },
        },
      ]),
    );
    return e;
  });

  private callArgs = this.RULE('callArgs', (): { args: A.Expr[]; keywords: A.Keyword[] } => {
    const items: ArgItem[] = [this.SUBRULE(this.callArg)];
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
      });
      this.OPTION(() => {
        items.push(this.SUBRULE2(this.callArg));
        trailing = null;
      });
    });
    return this.ACTION(() => {
      const args: A.Expr[] = [];
      const keywords: A.Keyword[] = [];
      let sawKw = false;
      let sawKwUnpack = false;
      for (const it of items) {
        if (it.kind === 'pos') {
          if (sawKwUnpack) fail('positional argument follows keyword argument unpacking', it.value.span);
          if (sawKw) fail('positional argument follows keyword argument', it.value.span);
          args.push(it.value);
        } else if (it.kind === 'star') {
          if (sawKwUnpack) fail('iterable argument unpacking follows keyword argument unpacking', it.value.span);
          args.push(it.value);
        } else {
          if (it.kw.arg === null) sawKwUnpack = true;
          else sawKw = true;
          keywords.push(it.kw);
        }
      }
      return { args, keywords };
    });
  });

  private callArg = this.RULE('callArg', (): ArgItem =>
    this.OR<ArgItem>([
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          const value = this.SUBRULE(this.expression);
          return this.ACTION((): ArgItem => ({ kind: 'star', value: { kind: 'Starred', value, span: this.from(t) } }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Pow);
          const value = this.SUBRULE2(this.expression);
          return this.ACTION((): ArgItem => ({ kind: 'kw', kw: { arg: null, value, span: this.from(t) } }));
        },
      },
      {
        ALT: () => {
          const name = this.CONSUME(T.Name);
          this.CONSUME(T.Assign);
          const value = this.SUBRULE3(this.expression);
          return this.ACTION((): ArgItem => ({ kind: 'kw', kw: { arg: name.image, value, span: this.from(name) } }));
        },
      },
      {
        ALT: () => {
          const st = this.LA(1);
          const value = this.SUBRULE(this.namedExpression);
          const gens = this.OPTION(() => this.SUBRULE(this.compFor));
          return this.ACTION((): ArgItem => {
            if (!gens) return { kind: 'pos', value };
            const g: A.Expr = { kind: 'GeneratorExp', elt: value, generators: gens, span: this.from(st) };
            this.bareGens.add(g);
            return { kind: 'pos', value: g };
          });
        },
      },
    ]),
  );

  private slices = this.RULE('slices', (): A.Expr => {
    const st = this.LA(1);
    const elts: A.Expr[] = [this.SUBRULE(this.slice)];
    let comma = false;
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
        comma = true;
      });
      this.OPTION(() => {
        elts.push(this.SUBRULE2(this.slice));
        trailing = null;
      });
    });
    return this.ACTION((): A.Expr => {
      if (comma || elts[0]!.kind === 'Starred') return { kind: 'Tuple', elts, span: this.from(st) };
      return elts[0]!;
    });
  });

  private slice = this.RULE('slice', (): A.Expr => {
    const st = this.LA(1);
    return this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          const value = this.SUBRULE(this.bitwiseOr);
          return this.ACTION((): A.Expr => ({ kind: 'Starred', value, span: this.from(t) }));
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Colon);
          const rest = this.SUBRULE(this.sliceRest);
          return this.ACTION((): A.Expr => ({ kind: 'Slice', lower: null, ...rest, span: this.from(st) }));
        },
      },
      {
        ALT: () => {
          const lower = this.SUBRULE(this.namedExpression);
          const rest = this.OPTION(() => {
            this.CONSUME2(T.Colon);
            return this.SUBRULE2(this.sliceRest);
          });
          return this.ACTION((): A.Expr => (rest ? { kind: 'Slice', lower, ...rest, span: this.from(st) } : lower));
        },
      },
    ]);
  });

  /** What follows the first ':' of a slice: [upper] [':' [step]]. */
  private sliceRest = this.RULE('sliceRest', (): { upper: A.Expr | null; step: A.Expr | null } => {
    const upper = this.OPTION(() => this.SUBRULE(this.expression));
    const step = this.OPTION2(() => {
      this.CONSUME(T.Colon);
      return this.OPTION3(() => this.SUBRULE2(this.expression));
    });
    return { upper: upper ?? null, step: step ?? null };
  });

  // ---------------------------------------------------------- atoms

  private atom = this.RULE('atom', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Name);
          return this.ACTION((): A.Expr => ({ kind: 'Name', id: /^[\x00-\x7f]*$/.test(t.image) ? t.image : t.image.normalize('NFKC'), span: this.tokSpan(t) }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.NumberTok);
          return this.ACTION((): A.Expr => ({ kind: 'Constant', value: t.payload as NumberValue, span: this.tokSpan(t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.strings) },
      { ALT: () => this.constant(this.CONSUME(T.True), true) },
      { ALT: () => this.constant(this.CONSUME(T.False), false) },
      { ALT: () => this.constant(this.CONSUME(T.None), null) },
      { ALT: () => this.constant(this.CONSUME(T.Ellipsis), { ellipsis: true }) },
      { ALT: () => this.SUBRULE(this.parenAtom) },
      { ALT: () => this.SUBRULE(this.listAtom) },
      { ALT: () => this.SUBRULE(this.braceAtom) },
      { ALT: () => this.SUBRULE(this.yieldExpr) },
    ]),
  );

  /** `yield`, `yield x, y`, `yield from it` (a generator function's body). */
  private yieldExpr = this.RULE('yieldExpr', (): A.Expr => {
    const t = this.CONSUME(T.Yield);
    // (the grammar is recorded by running this body once: alternatives go through OR/OPTION, not `if`)
    const r = this.OR([
      {
        ALT: () => {
          this.CONSUME(T.From);
          return { value: this.SUBRULE(this.expression) as A.Expr | null, isFrom: true };
        },
      },
      { ALT: () => ({ value: this.OPTION(() => this.SUBRULE(this.starExpressions)) ?? null, isFrom: false }) },
    ]);
    return this.ACTION((): A.Expr => ({ kind: 'Yield', value: r.value, isFrom: r.isFrom, span: r.value ? this.fromTo(this.tokSpan(t), r.value.span) : this.tokSpan(t) }));
  });

  private constant(t: IToken, value: A.Constant['value']): A.Expr {
    return this.ACTION((): A.Expr => ({ kind: 'Constant', value, span: this.tokSpan(t) }));
  }

  /** Elements after the first of a tuple/list/set display: (',' [elt])*. */
  private displayTail(elts: A.Expr[]): boolean {
    let comma = false;
    let trailing: IToken | null = null;
    this.MANY5(() => {
      const c = this.CONSUME5(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
        comma = true;
      });
      this.OPTION5(() => {
        elts.push(this.SUBRULE5(this.starNamedExpression));
        trailing = null;
      });
    });
    return comma;
  }

  private parenAtom = this.RULE('parenAtom', (): A.Expr => {
    const open = this.CONSUME(T.LParen);
    const content = this.OPTION(() => {
      const elts = [this.SUBRULE(this.starNamedExpression)];
      const gens = this.OPTION2(() => this.SUBRULE(this.compFor));
      const comma = this.displayTail(elts);
      return { elts, gens, comma };
    });
    this.CONSUME(T.RParen);
    return this.ACTION((): A.Expr => {
      const span = this.from(open);
      if (!content) return { kind: 'Tuple', elts: [], span };
      const { elts, gens, comma } = content;
      if (gens) {
        if (comma) fail('invalid syntax', elts[1]?.span ?? span);
        if (elts[0]!.kind === 'Starred') fail('iterable unpacking cannot be used in comprehension', elts[0]!.span);
        return { kind: 'GeneratorExp', elt: elts[0]!, generators: gens, span };
      }
      if (!comma) {
        noBareStar(elts[0]!);
        return elts[0]!;
      }
      return { kind: 'Tuple', elts, span };
    });
  });

  private listAtom = this.RULE('listAtom', (): A.Expr => {
    const open = this.CONSUME(T.LBracket);
    const content = this.OPTION(() => {
      const elts = [this.SUBRULE(this.starNamedExpression)];
      const gens = this.OPTION2(() => this.SUBRULE(this.compFor));
      const comma = this.displayTail(elts);
      return { elts, gens, comma };
    });
    this.CONSUME(T.RBracket);
    return this.ACTION((): A.Expr => {
      const span = this.from(open);
      if (!content) return { kind: 'List', elts: [], span };
      const { elts, gens, comma } = content;
      if (gens) {
        if (comma) fail('invalid syntax', elts[1]?.span ?? span);
        if (elts[0]!.kind === 'Starred') fail('iterable unpacking cannot be used in comprehension', elts[0]!.span);
        return { kind: 'ListComp', elt: elts[0]!, generators: gens, span };
      }
      return { kind: 'List', elts, span };
    });
  });

  private braceItem = this.RULE('braceItem', (): BraceItem =>
    this.OR<BraceItem>([
      {
        ALT: () => {
          const t = this.CONSUME(T.Pow);
          const value = this.SUBRULE(this.bitwiseOr);
          return this.ACTION((): BraceItem => ({ key: null, value, dictItem: true, span: this.from(t) }));
        },
      },
      {
        ALT: () => {
          const st = this.LA(1);
          const e = this.SUBRULE(this.starNamedExpression);
          const v = this.OPTION(() => {
            this.CONSUME(T.Colon);
            return this.SUBRULE(this.expression);
          });
          return this.ACTION((): BraceItem => {
            if (v === undefined) return { key: null, value: e, dictItem: false, span: e.span };
            if (e.kind === 'Starred') fail('cannot use a starred expression in a dictionary key', e.span);
            return { key: e, value: v, dictItem: true, span: this.from(st) };
          });
        },
      },
    ]),
  );

  private braceAtom = this.RULE('braceAtom', (): A.Expr => {
    const open = this.CONSUME(T.LBrace);
    const content = this.OPTION(() => {
      const items = [this.SUBRULE(this.braceItem)];
      const gens = this.OPTION2(() => this.SUBRULE(this.compFor));
      let comma = false;
      let trailing: IToken | null = null;
      this.MANY(() => {
        const c = this.CONSUME(T.Comma);
        this.ACTION(() => {
          if (trailing) this.error('invalid syntax', c);
          trailing = c;
          comma = true;
        });
        this.OPTION3(() => {
          items.push(this.SUBRULE2(this.braceItem));
          trailing = null;
        });
      });
      return { items, gens, comma };
    });
    this.CONSUME(T.RBrace);
    return this.ACTION((): A.Expr => {
      const span = this.from(open);
      if (!content) return { kind: 'Dict', keys: [], values: [], span };
      const { items, gens, comma } = content;
      const first = items[0]!;
      for (const it of items) if (it.dictItem !== first.dictItem) fail('invalid syntax', it.span);
      if (gens) {
        if (comma) fail('invalid syntax', items[1]?.span ?? span);
        if (first.dictItem) {
          if (first.key === null) fail('dict unpacking cannot be used in dict comprehension', first.span);
          return { kind: 'DictComp', key: first.key, value: first.value, generators: gens, span };
        }
        if (first.value.kind === 'Starred') fail('iterable unpacking cannot be used in comprehension', first.value.span);
        return { kind: 'SetComp', elt: first.value, generators: gens, span };
      }
      if (first.dictItem) return { kind: 'Dict', keys: items.map((i) => i.key), values: items.map((i) => i.value), span };
      return { kind: 'Set', elts: items.map((i) => i.value), span };
    });
  });

  // ---------------------------------------------------------- comprehensions & targets

  private compFor = this.RULE('compFor', (): A.Comprehension[] => {
    const gens: A.Comprehension[] = [];
    this.AT_LEAST_ONE(() => {
      const st = this.LA(1);
      const isAsync = this.OPTION(() => this.CONSUME(T.Async)) !== undefined;
      this.CONSUME(T.For);
      const target = this.SUBRULE(this.targetList);
      this.CONSUME(T.In);
      const iter = this.SUBRULE(this.disjunction);
      const ifs: A.Expr[] = [];
      this.MANY(() => {
        this.CONSUME(T.If);
        ifs.push(this.SUBRULE2(this.disjunction));
      });
      this.ACTION(() => {
        checkTarget(target, 'comp');
        gens.push({ target, iter, ifs, isAsync, span: this.from(st) });
      });
    });
    return gens;
  });

  /** Assignment targets of `for`, comprehensions and `del`: a bitwise_or list. */
  private targetList = this.RULE('targetList', (): A.Expr => {
    const st = this.LA(1);
    const elts: A.Expr[] = [this.SUBRULE(this.targetElem)];
    let comma = false;
    let trailing: IToken | null = null;
    this.MANY(() => {
      const c = this.CONSUME(T.Comma);
      this.ACTION(() => {
        if (trailing) this.error('invalid syntax', c);
        trailing = c;
        comma = true;
      });
      this.OPTION(() => {
        elts.push(this.SUBRULE2(this.targetElem));
        trailing = null;
      });
    });
    return this.ACTION((): A.Expr => (comma ? { kind: 'Tuple', elts, span: this.from(st) } : elts[0]!));
  });

  private targetElem = this.RULE('targetElem', (): A.Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          const value = this.SUBRULE(this.bitwiseOr);
          return this.ACTION((): A.Expr => ({ kind: 'Starred', value, span: this.from(t) }));
        },
      },
      { ALT: () => this.SUBRULE2(this.bitwiseOr) },
    ]),
  );

  // ---------------------------------------------------------- strings

  private strings = this.RULE('strings', (): A.Expr => {
    const pieces: StrPiece[] = [];
    this.AT_LEAST_ONE(() =>
      this.OR([
        {
          ALT: () => {
            const t = this.CONSUME(T.StringTok);
            this.ACTION(() => pieces.push({ kind: 'str', start: t.startOffset, end: this.end(t), value: t.payload as StringValue }));
          },
        },
        {
          ALT: () => {
            const f = this.SUBRULE(this.fstring);
            this.ACTION(() => pieces.push(f));
          },
        },
      ]),
    );
    return this.ACTION(() => this.joinStrings(pieces));
  });

  private joinStrings(pieces: StrPiece[]): A.Expr {
    const span = this.sp(pieces[0]!.start, pieces[pieces.length - 1]!.end);
    const bytes = pieces[0]!.kind === 'str' && pieces[0]!.value!.bytes;
    for (const p of pieces) {
      if ((p.kind === 'str' && p.value!.bytes) !== bytes) fail('cannot mix bytes and nonbytes literals', this.sp(p.start, p.end));
    }
    if (pieces.every((p) => p.kind === 'str')) {
      const value = pieces.map((p) => p.value!.value).join('');
      return bytes ? { kind: 'Constant', value, isBytes: true, span } : { kind: 'Constant', value, span };
    }
    const values: (A.Constant | A.FormattedValue)[] = [];
    for (const p of pieces) {
      if (p.kind === 'str') this.pushConst(values, p.value!.value, this.sp(p.start, p.end));
      else for (const v of p.values!) if (v.kind === 'Constant') this.pushConst(values, v.value as string, v.span);
      else values.push(v);
    }
    return { kind: 'JoinedStr', values, span };
  }

  /** Appends a literal part, merging it into a preceding literal part. */
  private pushConst(values: (A.Constant | A.FormattedValue)[], s: string, span: A.Span): void {
    if (s === '') return;
    const last = values[values.length - 1];
    if (last && last.kind === 'Constant') {
      last.value = (last.value as string) + s;
      last.span = this.fromTo(last.span, span);
    } else {
      values.push({ kind: 'Constant', value: s, span });
    }
  }

  private fstring = this.RULE('fstring', (): StrPiece => {
    const open = this.CONSUME(T.FStringStart);
    const values: (A.Constant | A.FormattedValue)[] = [];
    this.MANY(() =>
      this.OR([
        {
          ALT: () => {
            const m = this.CONSUME(T.FStringMiddle);
            this.ACTION(() => this.pushConst(values, m.payload as string, this.tokSpan(m)));
          },
        },
        { ALT: () => values.push(this.SUBRULE(this.fstringField)) },
      ]),
    );
    const close = this.CONSUME(T.FStringEnd);
    return this.ACTION((): StrPiece => ({ kind: 'f', start: open.startOffset, end: this.end(close), values }));
  });

  private fstringField = this.RULE('fstringField', (): A.FormattedValue => {
    const open = this.CONSUME(T.FieldStart);
    const value = this.SUBRULE(this.starExpressions);
    const selfDoc = this.OPTION(() => this.CONSUME(T.SelfDoc));
    const conv = this.OPTION2(() => this.CONSUME(T.Conversion));
    const spec = this.OPTION3(() => {
      const colon = this.CONSUME(T.SpecStart);
      const parts: (A.Constant | A.FormattedValue)[] = [];
      this.MANY(() =>
        this.OR([
          {
            ALT: () => {
              const m = this.CONSUME(T.FStringMiddle);
              this.ACTION(() => this.pushConst(parts, m.payload as string, this.tokSpan(m)));
            },
          },
          { ALT: () => parts.push(this.SUBRULE2(this.fstringField)) },
        ]),
      );
      return { colon, parts };
    });
    const close = this.CONSUME(T.FieldEnd);
    return this.ACTION((): A.FormattedValue => {
      noBareStar(value);
      let formatSpec: A.JoinedStr | null = null;
      if (spec && spec.parts.length > 0) {
        formatSpec = { kind: 'JoinedStr', values: spec.parts, span: this.sp(this.end(spec.colon), close.startOffset) };
      }
      let conversion = conv ? (conv.payload as 'r' | 's' | 'a') : null;
      // As CPython: `{x=}` without conversion or spec means `{x=!r}`.
      if (selfDoc && !conv && !formatSpec) conversion = 'r';
      return {
        kind: 'FormattedValue',
        value,
        conversion,
        formatSpec,
        selfDoc: selfDoc ? (selfDoc.payload as string) : null,
        span: this.sp(open.startOffset, this.end(close)),
      };
    });
  });
}

// ------------------------------------------------------------ entry point

let instance: PythonParser | null = null;

/** Builds a parser with Chevrotain's grammar validations on; throws if the grammar is ill-formed. */
export function validateGrammar(): void {
  new PythonParser(true);
}

const LINE_START = new Set([T.Newline, T.Indent, T.Dedent]);

/** Explains a plain "invalid syntax" after a soft keyword or Python 2 `print` at the start of a line. */
function softKeywordHint(t: IToken, tokens: IToken[]): { message: string; at: IToken } | null {
  const i = tokens.indexOf(t);
  const prev = tokens[i - 1];
  if (i < 1 || prev!.tokenType !== T.Name || (i >= 2 && !LINE_START.has(tokens[i - 2]!.tokenType))) return null;
  const starts = [T.Name, T.NumberTok, T.StringTok, T.FStringStart, T.LParen, T.LBracket, T.LBrace, T.Minus, T.Tilde];
  if (!starts.includes(t.tokenType)) return null;
  const at = prev!;
  if (at.image === 'type' && t.tokenType === T.Name) return { message: "'type' statements are not supported", at };
  if (at.image === 'print') return { message: "Missing parentheses in call to 'print'. Did you mean print(...)?", at };
  return null;
}

function recognitionError(e: IRecognitionException, tokens: IToken[], lines: LineMap): CompileError {
  let t = e.token;
  const atEof = t.tokenType === EOF || Number.isNaN(t.startOffset);
  let message = e.message;
  if (message === 'invalid syntax' && atEof) message = 'unexpected EOF while parsing';
  const hint = message === 'invalid syntax' ? softKeywordHint(t, tokens) : null;
  if (hint) ({ message, at: t } = hint);
  const start = atEof ? lines.text.length : t.startOffset;
  const end = atEof ? start : start + t.image.length;
  return new CompileError(message, lines.span(start, end));
}

/** Tokens after which `(` groups (is not a call): operators, delimiters, keywords that take an expression. */
const GROUPING_AFTER = new Set([
  '(', '[', '{', ',', ':', ';', '=', ':=', '->', '+', '-', '*', '/', '%', '@', '**', '//', '<<', '>>', '&', '|', '^', '~', '<', '>', '<=', '>=', '==', '!=',
  '+=', '-=', '*=', '/=', '%=', '@=', '**=', '//=', '<<=', '>>=', '&=', '|=', '^=',
  'return', 'in', 'not', 'and', 'or', 'if', 'elif', 'else', 'yield', 'await', 'assert', 'del', 'while', 'for', 'is', 'lambda',
]);

/**
 * `((x))` is `(x)`: a grouping pair of parentheses around exactly one other pair is dropped, so that
 * deeply nested redundant parentheses (CPython accepts 200) do not each cost the recursive-descent
 * parser a level of every precedence rule.
 */
function dropRedundantParens(tokens: IToken[]): IToken[] {
  const match = new Map<number, number>();
  const open: number[] = [];
  tokens.forEach((t, i) => {
    if (t.image === '(' || t.image === '[' || t.image === '{') open.push(i);
    else if ((t.image === ')' || t.image === ']' || t.image === '}') && open.length) match.set(open.pop()!, i);
  });
  const drop = new Set<number>();
  tokens.forEach((t, i) => {
    if (t.tokenType !== T.LParen || tokens[i + 1]?.tokenType !== T.LParen) return;
    const prev = tokens[i - 1];
    const grouping = !prev || prev.tokenType === T.Newline || prev.tokenType === T.Indent || prev.tokenType === T.Dedent || GROUPING_AFTER.has(prev.image);
    const close = match.get(i);
    if (grouping && close !== undefined && match.get(i + 1) === close - 1) drop.add(i).add(close);
  });
  return drop.size ? tokens.filter((_, i) => !drop.has(i)) : tokens;
}

/** Parses the tokens of `lex` into a Module. Throws CompileError. */
export function parseTokens(tokens: IToken[], lines: LineMap): A.Module {
  const p = (instance ??= new PythonParser());
  p.resetState(lines);
  p.input = dropRedundantParens(tokens);
  let mod: A.Module;
  try {
    mod = p.module();
  } catch (e) {
    if (e instanceof CompileError) throw e;
    const t = p.nextToken();
    instance = null; // its state is unknown now
    if (e instanceof RangeError) {
      const at = Number.isNaN(t.startOffset) ? lines.text.length : t.startOffset;
      throw new CompileError('too many nested expressions', lines.span(at, at));
    }
    throw e;
  }
  if (p.errors.length > 0) throw recognitionError(p.errors[0]!, tokens, lines);
  return mod;
}
