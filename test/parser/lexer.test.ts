// Tests of the lexer: raw tokens, the NEWLINE/INDENT/DEDENT layout pass,
// string and number decoding, f-string splitting, and lexical errors.
import { describe, expect, it } from 'vitest';
import type { IToken } from 'chevrotain';
import { CompileError } from '../../src/common/diagnostics.js';
import { lex } from '../../src/parser/index.js';

/** Renders tokens compactly: layout tokens by name, others by image, literals with their value. */
function render(t: IToken): string {
  const name = t.tokenType.name;
  if (name === 'NEWLINE' || name === 'INDENT' || name === 'DEDENT') return name;
  if (name === 'String') {
    const v = t.payload as { value: string; bytes: boolean };
    return `${v.bytes ? 'b' : 's'}${JSON.stringify(v.value)}`;
  }
  if (name === 'Number') {
    const v = t.payload as bigint | number | { imag: number };
    return typeof v === 'bigint' ? `int:${v}` : typeof v === 'number' ? `float:${v}` : `imag:${v.imag}`;
  }
  if (name === 'FSTRING_MIDDLE' || name === 'SELF_DOC' || name === 'CONVERSION') return `${name}:${JSON.stringify(t.payload)}`;
  if (name.startsWith('FSTRING') || name.startsWith('FIELD') || name === 'SPEC_START') return name;
  return t.image;
}

function toks(src: string): string {
  return lex(src).map(render).join(' ');
}

function lexError(src: string): string {
  try {
    lex(src);
  } catch (e) {
    if (e instanceof CompileError) return `${e.span?.start.line}:${e.span?.start.col} ${e.message}`;
    throw e;
  }
  throw new Error('no error');
}

describe('lexer: basic tokens', () => {
  it('lexes names, keywords, operators and numbers', () => {
    expect(toks('x = a.b + 1')).toBe('x = a . b + int:1 NEWLINE');
    expect(toks('if not x is None: pass')).toBe('if not x is None : pass NEWLINE');
    expect(toks('a **= b // c >> 2 -> d := e != f')).toBe('a **= b // c >> int:2 -> d := e != f NEWLINE');
    expect(toks('x[...]')).toBe('x [ ... ] NEWLINE');
  });

  it('retypes keywords but not soft keywords', () => {
    const ts = lex('match case type _ lambda await async yield\n');
    expect(ts.map((t) => t.tokenType.name)).toEqual([
      'Name',
      'Name',
      'Name',
      'Name',
      'KW_lambda',
      'KW_await',
      'KW_async',
      'KW_yield',
      'NEWLINE',
    ]);
  });

  it('accepts Unicode identifiers', () => {
    expect(toks('변수 = é_1 + ŝ')).toBe('변수 = é_1 + ŝ NEWLINE');
  });

  it('records 0-based offsets (Chevrotain convention: endOffset inclusive)', () => {
    const [a, eq, one] = lex('ab = 12\n');
    expect([a!.startOffset, a!.endOffset]).toEqual([0, 1]);
    expect([eq!.startOffset, eq!.endOffset]).toEqual([3, 3]);
    expect([one!.startOffset, one!.endOffset]).toEqual([5, 6]);
  });

  it('fills in 1-based lines and columns', () => {
    const ts = lex('a = 1\nif b:\n    "x\\ny"\n');
    const str = ts.find((t) => t.tokenType.name === 'String')!;
    expect([str.startLine, str.startColumn, str.endLine, str.endColumn]).toEqual([3, 5, 3, 10]);
    const indent = ts.find((t) => t.tokenType.name === 'INDENT')!;
    expect([indent.startLine, indent.startColumn]).toEqual([3, 5]);
    for (const t of ts) expect(Number.isInteger(t.startLine) && Number.isInteger(t.startColumn)).toBe(true);
  });

  it('produces only NEWLINE/DEDENT for empty and comment-only input', () => {
    expect(toks('')).toBe('');
    expect(toks('\n\n  \n# c\n   # d')).toBe('');
    expect(toks('\ufeffx')).toBe('x NEWLINE');
  });
});

describe('lexer: layout', () => {
  it('emits INDENT and DEDENT', () => {
    expect(toks('if x:\n    y\n    z\nw\n')).toBe('if x : NEWLINE INDENT y NEWLINE z NEWLINE DEDENT w NEWLINE');
  });

  it('emits several DEDENTs at once and closes blocks at EOF', () => {
    expect(toks('if a:\n  if b:\n    c\nd')).toBe(
      'if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT DEDENT d NEWLINE',
    );
    expect(toks('if a:\n  if b:\n    c')).toBe('if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT DEDENT');
  });

  it('ignores blank lines and comment lines, whatever their indentation', () => {
    expect(toks('if a:\n\n      # comment\n  b\n\n\n  c  # trailing\n')).toBe(
      'if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT',
    );
  });

  it('joins lines inside brackets', () => {
    expect(toks('x = (1,\n  2,\n\n    3)\ny = [\n]\nz = {\n# c\n}\n')).toBe(
      'x = ( int:1 , int:2 , int:3 ) NEWLINE y = [ ] NEWLINE z = { } NEWLINE',
    );
  });

  it('does not indent inside brackets, even across dedented lines', () => {
    expect(toks('def f(a,\nb):\n  pass\n')).toBe('def f ( a , b ) : NEWLINE INDENT pass NEWLINE DEDENT');
  });

  it('joins lines after a backslash', () => {
    expect(toks('x = 1 + \\\n      2\n')).toBe('x = int:1 + int:2 NEWLINE');
    expect(toks('if a and \\\n   b:\n    c\n')).toBe('if a and b : NEWLINE INDENT c NEWLINE DEDENT');
  });

  it('expands tabs to the next multiple of 8', () => {
    // a tab (col 8) is the same level as 8 spaces only when tab-consistent; here the
    // whole block uses tabs, and "\t  " (col 10) is deeper than "\t" (col 8)
    expect(toks('if a:\n\tb\n\tif c:\n\t  d\n')).toBe(
      'if a : NEWLINE INDENT b NEWLINE if c : NEWLINE INDENT d NEWLINE DEDENT DEDENT',
    );
  });

  it('handles \\r\\n and lone \\r line endings', () => {
    expect(toks('if a:\r\n  b\r\nc\r')).toBe('if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE');
  });

  it('reports an inconsistent dedent', () => {
    expect(lexError('if x:\n    a\n  b\n')).toBe('3:3 unindent does not match any outer indentation level');
  });

  it('reports inconsistent tabs and spaces', () => {
    expect(lexError('if x:\n\tpass\n        y\n')).toBe('3:9 inconsistent use of tabs and spaces in indentation');
  });

  it('emits INDENT for an unexpected indent (the parser reports it)', () => {
    expect(toks('x\n  y\n')).toBe('x NEWLINE INDENT y NEWLINE DEDENT');
  });

  it('places layout tokens: NEWLINE on the line break, INDENT/DEDENT zero-width at the next token', () => {
    const ts = lex('if a:\n  b\nc');
    const nl = ts[3]!;
    const indent = ts[4]!;
    const dedent = ts[7]!;
    expect([nl.tokenType.name, nl.startOffset, nl.image]).toEqual(['NEWLINE', 5, '\n']);
    expect([indent.tokenType.name, indent.startOffset, indent.image]).toEqual(['INDENT', 8, '']);
    expect([dedent.tokenType.name, dedent.startOffset, dedent.image]).toEqual(['DEDENT', 10, '']);
    const last = ts[ts.length - 1]!;
    expect([last.tokenType.name, last.startOffset, last.image]).toEqual(['NEWLINE', 11, '']);
  });
});

describe('lexer: brackets', () => {
  it('reports unclosed, unmatched and mismatched brackets', () => {
    expect(lexError('f(a,\n  [b\n')).toBe("2:3 '[' was never closed");
    expect(lexError('x = )\n')).toBe("1:5 unmatched ')'");
    expect(lexError('x = (1, [2, 3)\n')).toBe("1:14 closing parenthesis ')' does not match opening parenthesis '['");
    expect(lexError('x = (1,\n2]\n')).toBe("2:2 closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  });

  it('limits nesting to 200 brackets', () => {
    expect(lexError('('.repeat(201))).toBe('1:201 too many nested parentheses');
  });
});

describe('lexer: numbers', () => {
  it('decodes integers as bigint', () => {
    expect(toks('0 7 1_000 0x1F 0XdeAD_beef 0o17 0b1010 00 123456789012345678901234567890')).toBe(
      'int:0 int:7 int:1000 int:31 int:3735928559 int:15 int:10 int:0 int:123456789012345678901234567890 NEWLINE',
    );
  });

  it('decodes floats and imaginary numbers', () => {
    expect(toks('1. .5 1e-3 1_000.0 1E+10 2.5e3 1e400 1j 1.5J 0j 1e2j 010j')).toBe(
      'float:1 float:0.5 float:0.001 float:1000 float:10000000000 float:2500 float:Infinity imag:1 imag:1.5 imag:0 imag:100 imag:10 NEWLINE',
    );
  });

  it('rejects malformed numbers', () => {
    expect(lexError('1abc')).toBe('1:1 invalid decimal literal');
    expect(lexError('x = 1_')).toBe('1:5 invalid decimal literal');
    expect(lexError('1__0')).toBe('1:1 invalid decimal literal');
    expect(lexError('0x')).toBe('1:1 invalid hexadecimal literal');
    expect(lexError('0o8')).toBe("1:1 invalid digit '8' in octal literal");
    expect(lexError('0b2')).toBe("1:1 invalid digit '2' in binary literal");
    expect(lexError('012')).toBe(
      '1:1 leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
    );
  });
});

describe('lexer: strings', () => {
  it('lexes all quote styles and prefixes', () => {
    expect(toks(`'a' "b" '''c''' """d""" u'e' R'\\d' rb'\\x' B"z"`)).toBe(
      's"a" s"b" s"c" s"d" s"e" s"\\\\d" b"\\\\x" b"z" NEWLINE',
    );
  });

  it('decodes escapes like CPython', () => {
    const [t] = lex(String.raw`'\n\t\\\'\"\a\b\f\v\r\0\101\x41\u00e9\U0001F600\d'`);
    expect(t!.payload).toEqual({ value: '\n\t\\\'"\x07\b\f\v\r\0AAé😀\\d', bytes: false });
  });

  it('keeps \\u escapes literal in bytes', () => {
    expect(lex(String.raw`b'\u12\x41'`)[0]!.payload).toEqual({ value: '\\u12A', bytes: true });
  });

  it('handles line continuations inside strings and line breaks in triple-quoted ones', () => {
    expect(lex("'ab\\\ncd'")[0]!.payload).toEqual({ value: 'abcd', bytes: false });
    expect(lex("'''ab\ncd'''")[0]!.payload).toEqual({ value: 'ab\ncd', bytes: false });
    expect(lex('r"\\""')[0]!.payload).toEqual({ value: '\\"', bytes: false });
  });

  it('does not treat a name followed by a quote as a prefix', () => {
    expect(toks(`xr'a'`)).toBe(`xr s"a" NEWLINE`);
  });

  it('reports unterminated strings', () => {
    expect(lexError("x = 'abc\n")).toBe('1:5 unterminated string literal (detected at line 1)');
    expect(lexError('x = """abc\n\ny')).toBe('1:5 unterminated triple-quoted string literal (detected at line 3)');
  });

  it('reports bad escapes and non-ASCII bytes', () => {
    expect(lexError(String.raw`'\x4'`)).toBe('1:2 truncated \\xXX escape');
    expect(lexError(String.raw`'\u12'`)).toBe('1:2 truncated \\uXXXX escape');
    expect(lexError(String.raw`'\U00110000'`)).toBe('1:2 illegal Unicode character');
    expect(lexError(String.raw`'\N{DASH}'`)).toBe('1:2 \\N{...} escapes (Unicode character names) are not supported');
    expect(lexError("b'é'")).toBe('1:3 bytes can only contain ASCII literal characters');
  });
});

describe('lexer: f-strings', () => {
  it('splits an f-string into its parts', () => {
    expect(toks('f"a{x!r:>{w}}b"')).toBe(
      'FSTRING_START FSTRING_MIDDLE:"a" FIELD_START x CONVERSION:"r" SPEC_START FSTRING_MIDDLE:">" FIELD_START w FIELD_END FIELD_END FSTRING_MIDDLE:"b" FSTRING_END NEWLINE',
    );
  });

  it('handles doubled braces, escapes and self-documenting fields', () => {
    expect(toks(String.raw`f'{{\n}}{x = }'`)).toBe(
      'FSTRING_START FSTRING_MIDDLE:"{\\n}" FIELD_START x SELF_DOC:"x = " FIELD_END FSTRING_END NEWLINE',
    );
  });

  it('lexes field expressions with absolute offsets, nested strings and brackets', () => {
    const ts = lex(`f"{d['k'][0]:.2f}"`);
    expect(ts.map(render).join(' ')).toBe(
      'FSTRING_START FIELD_START d [ s"k" ] [ int:0 ] SPEC_START FSTRING_MIDDLE:".2f" FIELD_END FSTRING_END NEWLINE',
    );
    expect(ts[2]!.startOffset).toBe(3); // d
    expect(ts[4]!.startOffset).toBe(5); // 'k'
  });

  it('finds the end of an f-string by PEP 701 rules', () => {
    expect(toks(`f'{', '.join(a)}' + x`)).toBe(
      `FSTRING_START FIELD_START s", " . join ( a ) FIELD_END FSTRING_END + x NEWLINE`,
    );
  });

  it('ignores line breaks inside fields of triple-quoted f-strings', () => {
    expect(toks("f'''{\nx\n+ 1}'''")).toBe('FSTRING_START FIELD_START x + int:1 FIELD_END FSTRING_END NEWLINE');
  });

  it('reports malformed f-strings', () => {
    expect(lexError("f'{x'")).toBe("1:3 f-string: expecting '}'");
    expect(lexError("f'}'")).toBe("1:3 f-string: single '}' is not allowed");
    expect(lexError("f'{}'")).toBe("1:4 f-string: valid expression required before '}'");
    expect(lexError("f'{x!}'")).toBe('1:6 f-string: missing conversion character');
    expect(lexError("f'{x!z}'")).toBe("1:6 f-string: invalid conversion character 'z': expected 's', 'r', or 'a'");
    expect(lexError("f'{x)}'")).toBe("1:5 f-string: unmatched ')'");
    expect(lexError("f'{x#}'")).toBe("1:5 f-string expression part cannot include '#'");
    expect(lexError("f'{lambda x: 1}'")).toBe('1:4 f-string: lambda expressions are not allowed without parentheses');
  });
});

describe('lexer: bad characters', () => {
  it('reports invalid characters with their code point', () => {
    expect(lexError('x = €\n')).toBe("1:5 invalid character '€' (U+20AC)");
    expect(lexError('x\u00a0= 1')).toBe('1:2 invalid non-printable character U+00A0');
    expect(lexError('x = $')).toBe('1:5 invalid syntax');
    expect(lexError('\0')).toBe('1:1 source code cannot contain null bytes');
  });

  it('reports a misplaced backslash', () => {
    expect(lexError('x = 1 \\ 2')).toBe('1:7 unexpected character after line continuation character');
    expect(lexError('x = 1 \\')).toBe('1:7 unexpected EOF while parsing');
    expect(lexError('x = \\\n')).toBe('1:5 unexpected EOF while parsing');
  });

  it('reports the first error in source order', () => {
    expect(lexError("x = )\n'abc")).toBe("1:5 unmatched ')'");
    expect(lexError("'abc\nx = )")).toBe('1:1 unterminated string literal (detected at line 1)');
    expect(lexError('$ = )')).toBe('1:1 invalid syntax');
  });
});
