// Tests of source spans: line/col/offset of statements and expressions
// (matching CPython's ast positions), including multi-line and non-ASCII text.
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/parser/index.js';
import type { Assign, Call, ClassDef, ExprStmt, For, FunctionDef, If, Subscript } from '../../src/parser/index.js';
import { at, checkSpans, expr } from './helpers.js';

describe('spans', () => {
  it('gives offsets, 1-based lines and 1-based columns', () => {
    const m = parse('x = 1\nyy = f(a, b=2)\n');
    const a = m.body[1] as Assign;
    expect(a.span).toEqual({ start: { line: 2, col: 1, offset: 6 }, end: { line: 2, col: 15, offset: 20 } });
    const call = a.value as Call;
    expect(at(call.span)).toBe('2:6-2:15');
    expect(at(call.func.span)).toBe('2:6-2:7');
    expect(at(call.args[0]!.span)).toBe('2:8-2:9');
    expect(at(call.keywords[0]!.span)).toBe('2:11-2:14');
    expect(m.span).toEqual({ start: { line: 1, col: 1, offset: 0 }, end: { line: 3, col: 1, offset: 21 } });
  });

  it('spans a compound statement to the end of its last body statement', () => {
    const src = 'for i in range(3):\n    if i:\n        print(i)\n\n    # trailing comment\n\nx = 1\n';
    const m = parse(src);
    const f = m.body[0] as For;
    expect(at(f.span)).toBe('1:1-3:17');
    expect(at((f.body[0] as If).span)).toBe('2:5-3:17');
    expect(at(m.body[1]!.span)).toBe('7:1-7:6');
  });

  it('starts a decorated function at def and records the name span', () => {
    const src = '@jax.jit\ndef train_step(params):\n    return params\n';
    const f = parse(src).body[0] as FunctionDef;
    expect(at(f.span)).toBe('2:1-3:18');
    expect(at(f.nameSpan)).toBe('2:5-2:15');
    expect(at(f.decorators[0]!.span)).toBe('1:2-1:9');
    expect(at(f.params[0]!.span)).toBe('2:16-2:22');
  });

  it('records attribute name spans', () => {
    const e = expr('jax.numpy.zeros');
    if (e.kind !== 'Attribute') throw new Error(e.kind);
    expect(at(e.span)).toBe('1:1-1:16');
    expect(at(e.attrSpan)).toBe('1:11-1:16');
    expect(at(e.value.span)).toBe('1:1-1:10');
  });

  it('includes parentheses in the spans CPython includes them in', () => {
    const t = expr('(1, 2)');
    expect(at(t.span)).toBe('1:1-1:7');
    const p = expr('(a)');
    expect(at(p.span)).toBe('1:2-1:3');
    const b = expr('(a) + b');
    expect(at(b.span)).toBe('1:1-1:8');
    const g = expr('sum(x for x in y)') as Call;
    expect(at(g.args[0]!.span)).toBe('1:4-1:18');
    const bare = expr('1, 2');
    expect(at(bare.span)).toBe('1:1-1:5');
  });

  it('spans slices and subscripts', () => {
    const s = expr('x[1:2, ::3]') as Subscript;
    expect(at(s.span)).toBe('1:1-1:12');
    if (s.slice.kind !== 'Tuple') throw new Error(s.slice.kind);
    expect(at(s.slice.span)).toBe('1:3-1:11');
    expect(s.slice.elts.map((e) => at(e.span))).toEqual(['1:3-1:6', '1:8-1:11']);
  });

  it('spans multi-line expressions and strings', () => {
    const m = parse('params = {\n    "w": 1,\n}\ns = """a\nb"""\n');
    expect(at(m.body[0]!.span)).toBe('1:1-3:2');
    expect(at((m.body[1] as Assign).value.span)).toBe('4:5-5:5');
  });

  it('counts columns in UTF-16 code units', () => {
    const m = parse('s = "한국어"; t = 1\nu = "😀" + v\n');
    expect(at(m.body[1]!.span)).toBe('1:12-1:17');
    const add = (m.body[2] as Assign).value;
    if (add.kind !== 'BinOp') throw new Error(add.kind);
    expect(at(add.right.span)).toBe('2:12-2:13');
    expect(add.right.span.start.offset).toBe(28);
  });

  it('handles \\r\\n line endings', () => {
    const m = parse('x = 1\r\nclass A:\r\n    y = 2\r\n');
    const c = m.body[1] as ClassDef;
    expect(at(c.span)).toBe('2:1-3:10');
    expect(at((c.body[0] as ExprStmt).span)).toBe('3:5-3:10');
  });

  it('produces only valid spans for a larger program', () => {
    const src = [
      'import jax',
      'from a import (b,',
      '   c as d)',
      '@dec(1)',
      'class P(NamedTuple):',
      '    """doc"""',
      '    w: jnp.ndarray',
      'def f(a, *b, c=1, **d) -> int:',
      '    x = [i ** 2 for i in range(10) if i % 2]',
      '    y = {k: v for k, v in zip(a, b)}',
      '    z = lambda p, g: p - 0.01 * g',
      '    try:',
      '        w = f"{x!r:>{y}} {z=}"',
      '    except (A, B) as e:',
      '        raise E from e',
      '    finally:',
      '        del x[0], y',
      '    with open(f) as g: pass',
      '    return x[1:2, ..., None], not a < b <= c',
      '',
    ].join('\n');
    checkSpans(parse(src), src);
  });
});
