// Tests of syntax errors: CPython-style messages and exact line:col of the
// offending token, for parser-level, layout-level and lexical errors.
import { describe, expect, it } from 'vitest';
import { CompileError } from '../../src/common/diagnostics.js';
import { checkStatementContext, parse } from '../../src/parser/index.js';
import { parseError } from './helpers.js';

describe('syntax errors', () => {
  it('reports invalid syntax at the offending token', () => {
    expect(parseError('x = \n')).toBe('1:5 invalid syntax');
    expect(parseError('x = 1 2\n')).toBe('1:7 invalid syntax');
    expect(parseError('a.1\n')).toBe('1:2 invalid syntax');
    expect(parseError('x = [1, 2,, 3]\n')).toBe('1:11 invalid syntax');
    expect(parseError('x;;y\n')).toBe('1:3 invalid syntax');
    expect(parseError('else:\n  pass\n')).toBe('1:1 invalid syntax');
    expect(parseError('@dec\nx = 1\n')).toBe('2:1 invalid syntax');
    expect(parseError('def f(x):\n    return x +\n')).toBe('2:15 invalid syntax');
  });

  it("reports expected ':'", () => {
    expect(parseError('if x\n    pass\n')).toBe("1:5 expected ':'");
    expect(parseError('def f()\n    pass\n')).toBe("1:8 expected ':'");
    expect(parseError('class A\n')).toBe("1:8 expected ':'");
    expect(parseError('for x in y\n  pass\n')).toBe("1:11 expected ':'");
    expect(parseError('while 1\n  pass\n')).toBe("1:8 expected ':'");
  });

  it('reports missing and unexpected indentation', () => {
    expect(parseError('def f():\nreturn 1\n')).toBe('2:1 expected an indented block after function definition on line 1');
    expect(parseError('if x:\npass\n')).toBe("2:1 expected an indented block after 'if' statement on line 1");
    expect(parseError('for a in b:\n    pass\nelse:\nx\n')).toBe("4:1 expected an indented block after 'else' statement on line 3");
    expect(parseError('class A:\n')).toBe('2:1 expected an indented block after class definition on line 1');
    expect(parseError('  x = 1\n')).toBe('1:3 unexpected indent');
    expect(parseError('x = 1\n    y = 2\n')).toBe('2:5 unexpected indent');
    expect(parseError('if x:\n    a\n  b\n')).toBe('3:3 unindent does not match any outer indentation level');
  });

  it('reports unclosed and mismatched brackets', () => {
    expect(parseError('print(f(x)\ny = 2\n')).toBe("1:6 '(' was never closed");
    expect(parseError('x = {1: [2,\n')).toBe("1:9 '[' was never closed");
    expect(parseError('foo(a, b]\n')).toBe("1:9 closing parenthesis ']' does not match opening parenthesis '('");
    expect(parseError('x = )\n')).toBe("1:5 unmatched ')'");
  });

  it('reports unterminated strings', () => {
    expect(parseError("x = 'abc\ny = 1\n")).toBe('1:5 unterminated string literal (detected at line 1)');
    expect(parseError('def f():\n    """doc\n    return 1\n')).toBe('2:5 unterminated triple-quoted string literal (detected at line 3)');
  });

  it('reports unexpected EOF', () => {
    expect(parseError('x = (1 +')).toBe("1:5 '(' was never closed");
    expect(parseError('x = 1 + \\')).toBe('1:9 unexpected EOF while parsing');
    expect(parseError('if x:\n    if y:\n')).toBe("3:1 expected an indented block after 'if' statement on line 2");
  });

  it('reports specific messages', () => {
    expect(parseError('try:\n  pass\nx = 1\n')).toBe("3:1 expected 'except' or 'finally' block");
    expect(parseError('x = 1 if 2\n')).toBe("1:11 expected 'else' after 'if' expression");
    expect(parseError("print 'hello'\n")).toBe("1:1 Missing parentheses in call to 'print'. Did you mean print(...)?");
  });

  it('rejects constructs outside the subset with a clear message', () => {
    expect(parseError('async def f():\n    async for x in y: pass\n')).toBe("2:11 'async for' statements are not supported");
    expect(parseError('async with x: pass\n')).toBe("1:7 'async with' statements are not supported");
    expect(parseError('match x:\n    case 1 as _: pass\n')).toBe("2:15 cannot use '_' as a target");
    expect(parseError("s = '\\N{DASH}'\n")).toBe('1:6 \\N{...} escapes (Unicode character names) are not supported');
  });

  it('throws CompileError with a span usable by formatDiagnostic', () => {
    let err: unknown;
    try {
      parse('x = 1\ny = (2 +\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CompileError);
    expect((err as CompileError).span).toEqual({
      start: { line: 2, col: 5, offset: 10 },
      end: { line: 2, col: 6, offset: 11 },
    });
  });

  it('fails cleanly on pathological nesting', () => {
    expect(parseError('('.repeat(201) + ')'.repeat(201))).toBe('1:201 too many nested parentheses');
    expect(parseError(Array.from({ length: 102 }, (_, i) => ' '.repeat(i) + 'if x:').join('\n') + '\n' + ' '.repeat(102) + 'pass\n')).toBe(
      '102:102 too many levels of indentation',
    );
    // Deep enough to exhaust the stack: a CompileError, and the parser still works afterwards.
    const deep = parseError('x = ' + '-'.repeat(20000) + '1\n');
    expect(deep).toMatch(/too many nested expressions$/);
    expect(parse('x = -(-(-1))\n').body).toHaveLength(1);
  });

  it('reports return, break and continue outside their function or loop, as CPython compiles them', () => {
    // parse() accepts them anywhere, as ast.parse does; lower() runs checkStatementContext first
    const context = (src: string): string => {
      try {
        checkStatementContext(parse(src));
      } catch (e) {
        if (e instanceof CompileError) return `${e.span?.start.line}:${e.span?.start.col} ${e.message}`;
        throw e;
      }
      return 'ok';
    };
    expect(context('return 5\n')).toBe("1:1 'return' outside function");
    expect(context('class A:\n    return 1\n')).toBe("2:5 'return' outside function");
    expect(context('def f():\n    break\n')).toBe("2:5 'break' outside loop");
    // a function's body is not inside the loop around its definition
    expect(context('for i in range(3):\n    def g():\n        continue\n    g()\n')).toBe("3:9 'continue' not properly in loop");
    expect(context('for i in range(3):\n    pass\nelse:\n    break\n')).toBe("4:5 'break' outside loop");
    expect(context('def f():\n    while True:\n        if x:\n            break\n        return 1\n')).toBe('ok');
  });
});
