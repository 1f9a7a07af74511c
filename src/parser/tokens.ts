// Token types of the Python-subset lexer (Chevrotain). `RAW_TOKENS` are the
// ones the Chevrotain lexer matches; the layout pass (lexer.ts) then turns
// NL into NEWLINE/INDENT/DEDENT, names into keywords, and f-strings into
// FSTRING_START … FSTRING_END token runs. `ALL_TOKENS` is the parser vocabulary.
import { createToken, Lexer, type TokenType } from 'chevrotain';
import { matchName, matchNumber, matchString } from './scan.js';

const NA = Lexer.NA;

// ------------------------------------------------------------ categories
export const AugAssignOp = createToken({ name: 'AugAssignOp', pattern: NA });
export const CompOp = createToken({ name: 'CompOp', pattern: NA });
export const UnaryOpTok = createToken({ name: 'UnaryOpTok', pattern: NA });
/** Every operator of the `bitwiseOr` precedence-climbing rule: | ^ & << >> + - * / // % @ */
export const BinaryOp = createToken({ name: 'BinaryOp', pattern: NA });

// ------------------------------------------------------------ layout (raw)
export const NL = createToken({ name: 'NL', pattern: /\r\n|\r|\n/, line_breaks: true });
export const Whitespace = createToken({ name: 'Whitespace', pattern: /[ \t\f]+/, group: Lexer.SKIPPED });
export const Comment = createToken({ name: 'Comment', pattern: /#[^\r\n]*/, group: Lexer.SKIPPED });
export const Continuation = createToken({
  name: 'Continuation',
  pattern: /\\(?:\r\n|\r|\n)/,
  line_breaks: true,
  group: Lexer.SKIPPED,
});
/** A byte-order mark, accepted only as the very first character. */
export const Bom = createToken({
  name: 'Bom',
  pattern: { exec: (text: string, offset: number) => (offset === 0 && text.charCodeAt(0) === 0xfeff ? ['\ufeff'] : null) },
  start_chars_hint: [0xfeff],
  line_breaks: false,
  group: Lexer.SKIPPED,
});

// ------------------------------------------------------------ literals & names
const PREFIX_HINTS = ['"', "'", 'r', 'R', 'b', 'B', 'f', 'F', 'u', 'U'];
export const StringTok = createToken({
  name: 'String',
  pattern: { exec: matchString },
  start_chars_hint: PREFIX_HINTS,
  line_breaks: true,
});
export const NumberTok = createToken({
  name: 'Number',
  pattern: { exec: matchNumber },
  start_chars_hint: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.'],
  line_breaks: false,
});

function nameStartHints(): (string | number)[] {
  const hints: (string | number)[] = ['_'];
  for (let c = 65; c <= 90; c++) hints.push(c, c + 32);
  // Chevrotain buckets char codes above 255 by 255; one hint per bucket
  // routes every non-ASCII character to the (Unicode-aware) name matcher.
  for (let c = 128; c < 256; c++) hints.push(c);
  for (let c = 256; c < 65536; c += 127) hints.push(c);
  hints.push(65535);
  return hints;
}
export const Name = createToken({
  name: 'Name',
  pattern: { exec: matchName },
  start_chars_hint: nameStartHints(),
  line_breaks: false,
});

// ------------------------------------------------------------ operators
function op(name: string, pattern: string, categories: TokenType[] = []): TokenType {
  return createToken({ name, pattern, categories, label: `'${pattern}'` });
}
export const PowAssign = op('PowAssign', '**=', [AugAssignOp]);
export const FloorDivAssign = op('FloorDivAssign', '//=', [AugAssignOp]);
export const RShiftAssign = op('RShiftAssign', '>>=', [AugAssignOp]);
export const LShiftAssign = op('LShiftAssign', '<<=', [AugAssignOp]);
export const Ellipsis = op('Ellipsis', '...');
export const Pow = op('Pow', '**');
export const FloorDiv = op('FloorDiv', '//', [BinaryOp]);
export const LShift = op('LShift', '<<', [BinaryOp]);
export const RShift = op('RShift', '>>', [BinaryOp]);
export const LessEq = op('LessEq', '<=', [CompOp]);
export const GreaterEq = op('GreaterEq', '>=', [CompOp]);
export const EqEq = op('EqEq', '==', [CompOp]);
export const NotEq = op('NotEq', '!=', [CompOp]);
export const Arrow = op('Arrow', '->');
export const ColonEqual = op('ColonEqual', ':=');
export const PlusAssign = op('PlusAssign', '+=', [AugAssignOp]);
export const MinusAssign = op('MinusAssign', '-=', [AugAssignOp]);
export const StarAssign = op('StarAssign', '*=', [AugAssignOp]);
export const SlashAssign = op('SlashAssign', '/=', [AugAssignOp]);
export const PercentAssign = op('PercentAssign', '%=', [AugAssignOp]);
export const AtAssign = op('AtAssign', '@=', [AugAssignOp]);
export const AmpAssign = op('AmpAssign', '&=', [AugAssignOp]);
export const PipeAssign = op('PipeAssign', '|=', [AugAssignOp]);
export const CaretAssign = op('CaretAssign', '^=', [AugAssignOp]);
export const LParen = op('LParen', '(');
export const RParen = op('RParen', ')');
export const LBracket = op('LBracket', '[');
export const RBracket = op('RBracket', ']');
export const LBrace = op('LBrace', '{');
export const RBrace = op('RBrace', '}');
export const Comma = op('Comma', ',');
export const Colon = op('Colon', ':');
export const Semicolon = op('Semicolon', ';');
export const Dot = op('Dot', '.');
export const Assign = op('Assign', '=');
export const Plus = op('Plus', '+', [UnaryOpTok, BinaryOp]);
export const Minus = op('Minus', '-', [UnaryOpTok, BinaryOp]);
export const Star = op('Star', '*', [BinaryOp]);
export const Slash = op('Slash', '/', [BinaryOp]);
export const Percent = op('Percent', '%', [BinaryOp]);
export const At = op('At', '@', [BinaryOp]);
export const Amp = op('Amp', '&', [BinaryOp]);
export const Pipe = op('Pipe', '|', [BinaryOp]);
export const Caret = op('Caret', '^', [BinaryOp]);
export const Tilde = op('Tilde', '~', [UnaryOpTok]);
export const Less = op('Less', '<', [CompOp]);
export const Greater = op('Greater', '>', [CompOp]);

/** What the Chevrotain lexer matches, in priority order. */
export const RAW_TOKENS: TokenType[] = [
  Bom,
  NL,
  Whitespace,
  Comment,
  Continuation,
  StringTok,
  NumberTok,
  Name,
  PowAssign,
  FloorDivAssign,
  RShiftAssign,
  LShiftAssign,
  Ellipsis,
  Pow,
  FloorDiv,
  LShift,
  RShift,
  LessEq,
  GreaterEq,
  EqEq,
  NotEq,
  Arrow,
  ColonEqual,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  PercentAssign,
  AtAssign,
  AmpAssign,
  PipeAssign,
  CaretAssign,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semicolon,
  Dot,
  Assign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  At,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Less,
  Greater,
];

// ------------------------------------------------------------ synthesized by the layout pass
export const Newline = createToken({ name: 'NEWLINE', pattern: NA });
export const Indent = createToken({ name: 'INDENT', pattern: NA });
export const Dedent = createToken({ name: 'DEDENT', pattern: NA });
export const FStringStart = createToken({ name: 'FSTRING_START', pattern: NA });
export const FStringMiddle = createToken({ name: 'FSTRING_MIDDLE', pattern: NA });
export const FStringEnd = createToken({ name: 'FSTRING_END', pattern: NA });
/** The `{` opening a replacement field. */
export const FieldStart = createToken({ name: 'FIELD_START', pattern: NA, label: "'{'" });
/** The `}` closing a replacement field. */
export const FieldEnd = createToken({ name: 'FIELD_END', pattern: NA, label: "'}'" });
/** `=` (plus following blanks) of a self-documenting field `{x=}`. */
export const SelfDoc = createToken({ name: 'SELF_DOC', pattern: NA });
/** `!r`, `!s` or `!a`. */
export const Conversion = createToken({ name: 'CONVERSION', pattern: NA });
/** The `:` starting a format spec. */
export const SpecStart = createToken({ name: 'SPEC_START', pattern: NA });

// ------------------------------------------------------------ keywords (names retyped by the layout pass)
function kw(word: string): TokenType {
  return createToken({ name: `KW_${word}`, pattern: NA, label: `'${word}'` });
}
export const False = kw('False');
export const None = kw('None');
export const True = kw('True');
export const And = kw('and');
export const As = kw('as');
export const Assert = kw('assert');
export const Async = kw('async');
export const Await = kw('await');
export const Break = kw('break');
export const Class = kw('class');
export const Continue = kw('continue');
export const Def = kw('def');
export const Del = kw('del');
export const Elif = kw('elif');
export const Else = kw('else');
export const Except = kw('except');
export const Finally = kw('finally');
export const For = kw('for');
export const From = kw('from');
export const Global = kw('global');
export const If = kw('if');
export const Import = kw('import');
export const In = kw('in');
export const Is = kw('is');
export const Lambda = kw('lambda');
export const Nonlocal = kw('nonlocal');
export const Not = kw('not');
export const Or = kw('or');
export const Pass = kw('pass');
export const Raise = kw('raise');
export const Return = kw('return');
export const Try = kw('try');
export const While = kw('while');
export const With = kw('with');
export const Yield = kw('yield');

// soft keywords: `match` and `case` names retyped only at a match statement's header and its cases (lexer.ts)
export const Match = kw('match');
export const Case = kw('case');

export const KEYWORDS: ReadonlyMap<string, TokenType> = new Map(
  [
    False, None, True, And, As, Assert, Async, Await, Break, Class, Continue, Def, Del, Elif, Else, Except,
    Finally, For, From, Global, If, Import, In, Is, Lambda, Nonlocal, Not, Or, Pass, Raise, Return, Try,
    While, With, Yield,
  ].map((t) => [t.name.slice(3), t]),
);

export const ALL_TOKENS: TokenType[] = [
  ...RAW_TOKENS,
  Newline,
  Indent,
  Dedent,
  FStringStart,
  FStringMiddle,
  FStringEnd,
  FieldStart,
  FieldEnd,
  SelfDoc,
  Conversion,
  SpecStart,
  ...KEYWORDS.values(),
  Match,
  Case,
  AugAssignOp,
  CompOp,
  UnaryOpTok,
  BinaryOp,
];
