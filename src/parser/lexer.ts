// The Python-subset lexer: a Chevrotain lexer for the raw tokens, then a
// layout pass in the manner of CPython's tokenizer that
//  - drops line breaks inside (), [], {} and after a backslash (implicit and
//    explicit line joining), blank lines and comments,
//  - emits NEWLINE at the end of each logical line and INDENT/DEDENT from an
//    indentation stack (tabs advance to the next multiple of 8),
//  - retypes keywords, decodes numbers and strings into token payloads, and
//  - splits f-strings into FSTRING_START, FSTRING_MIDDLE, FIELD_START <expr
//    tokens> [SELF_DOC] [CONVERSION] [SPEC_START …] FIELD_END, FSTRING_END.
// Every problem is reported as a CompileError with the span of the offending text.
import { Lexer, createTokenInstance, type ILexingError, type IToken, type TokenType } from 'chevrotain';
import { CompileError } from '../common/diagnostics.js';
import { LineMap } from './source.js';
import { decodeEscapeAt, decodeNumber, decodeStringBody, nestedStringEnd, type NumberValue, type StringInfo } from './scan.js';
import {
  Case,
  Colon,
  Conversion,
  Dedent,
  FieldEnd,
  FieldStart,
  FStringEnd,
  FStringMiddle,
  FStringStart,
  Indent,
  KEYWORDS,
  LBrace,
  LBracket,
  LParen,
  Match,
  Name,
  Newline,
  NL,
  NumberTok,
  RAW_TOKENS,
  RBrace,
  RBracket,
  RParen,
  SelfDoc,
  SpecStart,
  StringTok,
} from './tokens.js';

/** Payload of a String token after the layout pass. */
export interface StringValue {
  value: string;
  bytes: boolean;
}

const MAX_PAREN_LEVEL = 200;
const MAX_INDENT_LEVEL = 100;

let rawLexer: Lexer | null = null;
/** The token lexer; `validate` runs Chevrotain's checks of the token definitions (slow, so only in tests). */
function newRawLexer(validate: boolean): Lexer {
  return new Lexer(RAW_TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false, skipValidations: !validate });
}
function getRawLexer(): Lexer {
  rawLexer ??= newRawLexer(false);
  return rawLexer;
}

/** Builds the lexer with Chevrotain's validations on; throws if a token definition is ill-formed. */
export function validateLexer(): void {
  const errors = newRawLexer(true).lexerDefinitionErrors;
  if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'));
}

const OPEN_FOR_CLOSE: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

class Layout {
  readonly out: IToken[] = [];

  constructor(
    readonly src: string,
    readonly lines: LineMap,
  ) {}

  fail(message: string, start: number, end: number): never {
    throw new CompileError(message, this.lines.span(start, end));
  }

  mk(type: TokenType, start: number, end: number, payload?: unknown): IToken {
    const t = createTokenInstance(type, this.src.slice(start, end), start, end - 1, NaN, NaN, NaN, NaN);
    if (payload !== undefined) t.payload = payload;
    return t;
  }

  lexError(e: ILexingError): never {
    const o = e.offset;
    const cp = this.src.codePointAt(o) ?? 0;
    const ch = String.fromCodePoint(cp);
    const end = o + ch.length;
    if (cp === 92) {
      if (o + 1 >= this.src.length) this.fail('unexpected EOF while parsing', o, end);
      this.fail('unexpected character after line continuation character', o, end);
    }
    if (cp === 0) this.fail('source code cannot contain null bytes', o, end);
    const hex = cp.toString(16).toUpperCase().padStart(4, '0');
    if (/[\p{C}\p{Z}]/u.test(ch)) this.fail(`invalid non-printable character U+${hex}`, o, end);
    if (cp < 128) this.fail('invalid syntax', o, end);
    this.fail(`invalid character '${ch}' (U+${hex})`, o, end);
  }

  /** Raw-lexes src[start, end), offsets made absolute. */
  rawLex(start: number, end: number): { tokens: IToken[]; errors: ILexingError[] } {
    const text = start === 0 && end === this.src.length ? this.src : this.src.slice(start, end);
    const r = getRawLexer().tokenize(text);
    // 'onlyOffset' tracking leaves endOffset unset; fill it in (inclusive, as Chevrotain's).
    for (const t of r.tokens) {
      t.startOffset += start;
      t.endOffset = t.startOffset + t.image.length - 1;
    }
    if (start !== 0) for (const e of r.errors) e.offset += start;
    return { tokens: r.tokens, errors: r.errors };
  }

  // ---------------------------------------------------------- the layout pass

  run(): IToken[] {
    const { tokens, errors } = this.rawLex(0, this.src.length);
    const brackets: IToken[] = [];
    const indents = [0];
    const altIndents = [0];
    let atLineStart = true;
    // Chevrotain reports bad characters separately; the first one is thrown in source order.
    const badChar = errors[0];
    for (const t of tokens) {
      if (badChar && badChar.offset < t.startOffset) this.lexError(badChar);
      if (t.tokenType === NL) {
        if (brackets.length === 0 && !atLineStart) {
          this.out.push(this.mk(Newline, t.startOffset, t.startOffset + t.image.length));
          atLineStart = true;
        }
        continue;
      }
      if (atLineStart) {
        this.indentation(t.startOffset, indents, altIndents);
        atLineStart = false;
      }
      this.token(t, brackets, 'code');
    }
    if (badChar) this.lexError(badChar);
    const n = this.src.length;
    // A backslash continuation right before the end of input continues nothing.
    const cont = /\\(?:\r\n|\r|\n)[ \t\f]*$/.exec(this.src);
    if (cont && brackets.length === 0 && this.continuationAt(cont.index, tokens)) {
      this.fail('unexpected EOF while parsing', cont.index, cont.index + 1);
    }
    if (brackets.length > 0) {
      const b = brackets[brackets.length - 1]!;
      this.fail(`'${b.image}' was never closed`, b.startOffset, b.startOffset + 1);
    }
    if (!atLineStart) this.out.push(this.mk(Newline, n, n));
    for (let i = 1; i < indents.length; i++) this.out.push(this.mk(Dedent, n, n));
    return this.out;
  }

  /** Whether the backslash at `at` is a line continuation (not inside a token or comment). */
  private continuationAt(at: number, tokens: IToken[]): boolean {
    const last = tokens[tokens.length - 1];
    if (last && last.startOffset + last.image.length > at) return false;
    const lineStart = this.lines.lineStart(at);
    const from = last ? Math.max(lineStart, last.startOffset + last.image.length) : lineStart;
    return !this.src.slice(from, at).includes('#');
  }

  /** INDENT/DEDENT for the first token (at `s`) of a logical line. */
  private indentation(s: number, indents: number[], altIndents: number[]): void {
    const src = this.src;
    let col = 0;
    let alt = 0;
    for (let i = this.lines.lineStart(s); i < s; i++) {
      const c = src.charCodeAt(i);
      if (c === 32) {
        col++;
        alt++;
      } else if (c === 9) {
        col = (Math.floor(col / 8) + 1) * 8;
        alt++;
      } else if (c === 12) {
        col = 0;
        alt = 0;
      } else if (!(c === 0xfeff && i === 0)) {
        break;
      }
    }
    const top = indents[indents.length - 1]!;
    const altTop = altIndents[altIndents.length - 1]!;
    const tabError = (): never => this.fail('inconsistent use of tabs and spaces in indentation', s, s);
    if (col === top) {
      if (alt !== altTop) tabError();
    } else if (col > top) {
      if (alt <= altTop) tabError();
      if (indents.length > MAX_INDENT_LEVEL) this.fail('too many levels of indentation', s, s);
      indents.push(col);
      altIndents.push(alt);
      this.out.push(this.mk(Indent, s, s));
    } else {
      while (indents.length > 1 && col < indents[indents.length - 1]!) {
        indents.pop();
        altIndents.pop();
        this.out.push(this.mk(Dedent, s, s));
      }
      if (col !== indents[indents.length - 1]) this.fail('unindent does not match any outer indentation level', s, s);
      if (alt !== altIndents[altIndents.length - 1]) tabError();
    }
  }

  /** Handles one non-NL raw token: bracket matching, keywords, literals. */
  private token(t: IToken, brackets: IToken[], where: 'code' | 'fstring'): void {
    const type = t.tokenType;
    if (type === LParen || type === LBracket || type === LBrace) {
      brackets.push(t);
      if (brackets.length > MAX_PAREN_LEVEL) this.fail('too many nested parentheses', t.startOffset, t.startOffset + 1);
    } else if (type === RParen || type === RBracket || type === RBrace) {
      const open = brackets.pop();
      const pre = where === 'fstring' ? 'f-string: ' : '';
      if (!open) this.fail(`${pre}unmatched '${t.image}'`, t.startOffset, t.startOffset + 1);
      if (open.image !== OPEN_FOR_CLOSE[t.image]) {
        const openLine = this.lines.pos(open.startOffset).line;
        const sameLine = openLine === this.lines.pos(t.startOffset).line;
        this.fail(
          `${pre}closing parenthesis '${t.image}' does not match opening parenthesis '${open.image}'` +
            (sameLine ? '' : ` on line ${openLine}`),
          t.startOffset,
          t.startOffset + 1,
        );
      }
    } else if (type === Name) {
      const kw = KEYWORDS.get(t.image);
      if (kw) {
        t.tokenType = kw;
        t.tokenTypeIdx = kw.tokenTypeIdx!;
      }
    } else if (type === NumberTok) {
      const r = decodeNumber(t.image);
      if ('error' in r) this.fail(r.error, t.startOffset, t.startOffset + t.image.length);
      t.payload = r.value satisfies NumberValue;
    } else if (type === StringTok) {
      this.string(t);
      return;
    }
    this.out.push(t);
  }

  // ---------------------------------------------------------- strings

  private string(t: IToken): void {
    const info = t.payload as StringInfo;
    const start = t.startOffset;
    const end = start + t.image.length;
    if (!info.terminated) {
      if (info.prefix.includes('f')) this.unclosedField(start + info.prefixLen + info.quoteLen, end);
      const line = this.lines.pos(Math.max(start, end - 1)).line;
      const what = info.prefix.includes('f') ? 'f-string' : 'string';
      const kind = info.quoteLen === 3 ? `unterminated triple-quoted ${what} literal` : `unterminated ${what} literal`;
      this.fail(`${kind} (detected at line ${line})`, start, end);
    }
    const raw = info.prefix.includes('r');
    const bodyStart = start + info.prefixLen + info.quoteLen;
    const bodyEnd = end - info.quoteLen;
    if (info.prefix.includes('f')) {
      this.out.push(this.mk(FStringStart, start, bodyStart));
      new FStringSplitter(this, bodyStart, bodyEnd, raw).literal(bodyStart, false);
      this.out.push(this.mk(FStringEnd, bodyEnd, end));
      return;
    }
    const bytes = info.prefix.includes('b');
    const r = decodeStringBody(this.src, bodyStart, bodyEnd, raw, bytes);
    if ('message' in r) this.fail(r.message, r.start, r.end);
    t.payload = { value: r.value, bytes } satisfies StringValue;
    this.out.push(t);
  }

  /** In an unterminated f-string body [p, end): reports a replacement field left open, as CPython 3.12 does. */
  private unclosedField(p: number, end: number): void {
    const src = this.src;
    let open = -1;
    let depth = 0;
    while (p < end) {
      const c = src[p]!;
      if (open < 0) {
        if (c === '\\') p += 2;
        else if (c === '{' && src[p + 1] === '{') p += 2;
        else {
          if (c === '{') open = p;
          depth = 0;
          p++;
        }
        continue;
      }
      if (c === '"' || c === "'") {
        const e = nestedStringEnd(src, open + 1, p, end);
        if (e < 0) {
          const line = this.lines.pos(Math.max(p, end - 1)).line;
          this.fail(`unterminated string literal (detected at line ${line})`, p, end);
        }
        p = e;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') {
        if (depth > 0) depth--;
        else if (c === '}') open = -1;
      }
      p++;
    }
    if (open >= 0) this.fail("'{' was never closed", open, open + 1);
  }

  /** Lexes the expression of an f-string field, src[start, end), into `out`. */
  fieldTokens(start: number, end: number): void {
    const { tokens, errors } = this.rawLex(start, end);
    if (errors.length > 0) this.lexError(errors[0]!);
    const brackets: IToken[] = [];
    for (const t of tokens) {
      if (t.tokenType === NL) continue;
      this.token(t, brackets, 'fstring');
    }
    if (brackets.length > 0) {
      const b = brackets[brackets.length - 1]!;
      this.fail(`f-string: '${b.image}' was never closed`, b.startOffset, b.startOffset + 1);
    }
  }
}

/** Splits the body [start, end) of one f-string into tokens (see the file comment). */
class FStringSplitter {
  private readonly src: string;

  constructor(
    private readonly lx: Layout,
    readonly start: number,
    readonly end: number,
    readonly raw: boolean,
  ) {
    this.src = lx.src;
  }

  /** Literal text up to the end of the body, or (in a format spec) up to the closing '}'. */
  literal(p: number, inSpec: boolean): number {
    const { src, end, lx } = this;
    let buf = '';
    let litStart = p;
    const flush = (to: number): void => {
      if (to > litStart) lx.out.push(lx.mk(FStringMiddle, litStart, to, buf));
      buf = '';
    };
    while (p < end) {
      const c = src[p]!;
      if (c === '\\') {
        const next = src[p + 1];
        if (this.raw || next === '{' || next === '}') {
          buf += '\\';
          p++;
          continue;
        }
        const r = decodeEscapeAt(src, p, end, false);
        if ('message' in r) this.lx.fail(r.message, r.start, r.end);
        buf += r.text;
        p = r.next;
      } else if (c === '{') {
        // (inside a format spec, '{' always opens a nested field, as in CPython)
        if (!inSpec && src[p + 1] === '{' && p + 1 < end) {
          buf += '{';
          p += 2;
        } else {
          flush(p);
          p = this.field(p);
          litStart = p;
        }
      } else if (c === '}') {
        if (inSpec) {
          flush(p);
          return p;
        }
        if (src[p + 1] === '}' && p + 1 < end) {
          buf += '}';
          p += 2;
        } else {
          lx.fail("f-string: single '}' is not allowed", p, p + 1);
        }
      } else {
        buf += c;
        p++;
      }
    }
    if (inSpec) lx.fail("f-string: expecting '}'", p, p);
    flush(p);
    return p;
  }

  /** A replacement field whose '{' is at `open`; returns the offset after its '}'. */
  private field(open: number): number {
    const { src, end, lx } = this;
    lx.out.push(lx.mk(FieldStart, open, open + 1));
    const exprStart = open + 1;
    const stack: string[] = [];
    let q = exprStart;
    let exprEnd = -1;
    let selfDocEnd = -1;
    while (exprEnd < 0) {
      if (q >= end) lx.fail("f-string: expecting '}'", open, open + 1);
      const c = src[q]!;
      if (c === "'" || c === '"') {
        q = this.skipNestedString(exprStart, q);
        continue;
      }
      if (c === '\\') lx.fail('f-string expression part cannot include a backslash', q, q + 1);
      if (c === '#') lx.fail("f-string expression part cannot include '#'", q, q + 1);
      if (c === '(' || c === '[' || c === '{') {
        stack.push(c);
      } else if (c === ')' || c === ']' || c === '}') {
        if (stack.length > 0) {
          const o = stack.pop()!;
          if (o !== OPEN_FOR_CLOSE[c]) {
            lx.fail(`f-string: closing parenthesis '${c}' does not match opening parenthesis '${o}'`, q, q + 1);
          }
        } else if (c === '}') {
          exprEnd = q;
          break;
        } else {
          lx.fail(`f-string: unmatched '${c}'`, q, q + 1);
        }
      } else if (stack.length === 0) {
        if ((c === '!' && src[q + 1] !== '=') || c === ':') {
          exprEnd = q;
          break;
        }
        if (c === '=' && src[q + 1] !== '=' && !'=!<>'.includes(src[q - 1] ?? '')) {
          let r = q + 1;
          while (r < end && (src[r] === ' ' || src[r] === '\t' || src[r] === '\n' || src[r] === '\r')) r++;
          const d = src[r];
          if (r < end && (d === '!' || d === ':' || d === '}')) {
            exprEnd = q;
            selfDocEnd = r;
            break;
          }
        }
      }
      q++;
    }
    if (src.slice(exprStart, exprEnd).trim() === '') {
      lx.fail(`f-string: valid expression required before '${src[exprEnd]}'`, exprEnd, exprEnd + 1);
    }
    if (src[exprEnd] === ':' && /^\s*lambda\b/.test(src.slice(exprStart, exprEnd))) {
      lx.fail('f-string: lambda expressions are not allowed without parentheses', exprStart, exprEnd);
    }
    lx.fieldTokens(exprStart, exprEnd);
    q = exprEnd;
    if (selfDocEnd >= 0) {
      lx.out.push(lx.mk(SelfDoc, q, selfDocEnd, src.slice(exprStart, selfDocEnd)));
      q = selfDocEnd;
    }
    if (src[q] === '!') {
      const conv = q + 1 < end ? src[q + 1]! : '';
      if (conv === '' || conv === '}' || conv === ':') lx.fail('f-string: missing conversion character', q + 1, q + 2);
      if (conv !== 'r' && conv !== 's' && conv !== 'a') {
        lx.fail(`f-string: invalid conversion character '${conv}': expected 's', 'r', or 'a'`, q + 1, q + 2);
      }
      lx.out.push(lx.mk(Conversion, q, q + 2, conv));
      q += 2;
    }
    if (q < end && src[q] === ':') {
      lx.out.push(lx.mk(SpecStart, q, q + 1));
      q = this.literal(q + 1, true);
    }
    if (q >= end || src[q] !== '}') {
      const what = src[q - 2] === '!' ? "':' or '}'" : "'}'";
      lx.fail(`f-string: expecting ${what}`, q < end ? q : open, q < end ? q + 1 : open + 1);
    }
    lx.out.push(lx.mk(FieldEnd, q, q + 1));
    return q + 1;
  }

  /** Skips a string literal nested in a field expression; returns the offset after it. */
  private skipNestedString(fieldStart: number, q: number): number {
    const e = nestedStringEnd(this.src, fieldStart, q, this.end);
    if (e < 0) this.lx.fail('f-string: unterminated string', q, q + 1);
    return e;
  }
}

/**
 * Retypes the soft keywords: a `match` name that starts a line reading `match …:` followed by an
 * indented block whose first line starts with a `case` name, and the `case` names that start the
 * lines of that block. Elsewhere both stay names (`match = re.match(...)`).
 */
function markSoftKeywords(tokens: IToken[]): void {
  const retype = (t: IToken, type: TokenType): void => {
    t.tokenType = type;
    t.tokenTypeIdx = type.tokenTypeIdx!;
  };
  const lineStart = (i: number): boolean => i === 0 || [Newline, Indent, Dedent].includes(tokens[i - 1]!.tokenType);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.tokenType !== Name || t.image !== 'match' || !lineStart(i)) continue;
    let nl = i + 1;
    while (nl < tokens.length && tokens[nl]!.tokenType !== Newline) nl++;
    const first = tokens[nl + 2];
    if (nl < i + 3 || tokens[nl - 1]!.tokenType !== Colon || tokens[nl + 1]?.tokenType !== Indent || first?.tokenType !== Name || first.image !== 'case') continue;
    retype(t, Match);
    // the case lines: names `case` at the start of a line one level inside
    for (let j = nl + 2, depth = 1; j < tokens.length && depth > 0; j++) {
      const u = tokens[j]!;
      if (u.tokenType === Indent) depth++;
      else if (u.tokenType === Dedent) depth--;
      else if (depth === 1 && u.tokenType === Name && u.image === 'case' && lineStart(j)) retype(u, Case);
    }
  }
}

/**
 * Tokenizes Python source: Chevrotain tokens plus the synthesized NEWLINE,
 * INDENT, DEDENT, keyword and f-string tokens (no EOF token). Throws
 * CompileError on any lexical error.
 */
export function lex(source: string, lines: LineMap = new LineMap(source)): IToken[] {
  try {
    const tokens = new Layout(source, lines).run();
    markSoftKeywords(tokens);
    // Fill in Chevrotain's line/column fields (1-based; end = last character, inclusive).
    for (const t of tokens) {
      const s = lines.pos(t.startOffset);
      const e = t.image.length > 0 ? lines.pos(t.startOffset + t.image.length - 1) : { line: s.line, col: s.col - 1 };
      t.startLine = s.line;
      t.startColumn = s.col;
      t.endLine = e.line;
      t.endColumn = e.col;
    }
    return tokens;
  } catch (e) {
    if (e instanceof CompileError) throw e;
    // Defensive: the lexer promises CompileError only (e.g. on stack exhaustion).
    throw new CompileError(`internal lexer error: ${e instanceof Error ? e.message : String(e)}`, lines.span(0, 0));
  }
}
