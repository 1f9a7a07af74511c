// Tests of f-string parsing: fields, conversions, format specs (with nested
// fields), doubled braces, self-documenting fields, concatenation and spans.
import { describe, expect, it } from 'vitest';
import type { FormattedValue, JoinedStr } from '../../src/parser/index.js';
import { at, ex, expr, parseError } from './helpers.js';

describe('f-strings', () => {
  it('parses format specs', () => {
    expect(ex('f"{x:.4f}"')).toBe('(f {x:(f ".4f")})');
    expect(ex('f"step {step:3d}: loss = {float(loss):.4f}"')).toBe(
      '(f "step " {step:(f "3d")} ": loss = " {(call float loss):(f ".4f")})',
    );
    expect(ex("f'{a:%Y-%m-%d}'")).toBe('(f {a:(f "%Y-%m-%d")})');
  });

  it('parses conversions', () => {
    expect(ex('f"{name!r}"')).toBe('(f {name!r})');
    expect(ex('f"{name!s} {name!a}"')).toBe('(f {name!s} " " {name!a})');
    expect(ex('f"{x!r:>10}"')).toBe('(f {x!r:(f ">10")})');
  });

  it('parses nested fields in format specs', () => {
    expect(ex('f"{x:{w}}"')).toBe('(f {x:(f {w})})');
    expect(ex('f"{x:{w}.{p}f}"')).toBe('(f {x:(f {w} "." {p} "f")})');
    expect(ex('f"{x:>{w}}"')).toBe('(f {x:(f ">" {w})})');
    expect(ex('f"{x:{w:{z}}}"')).toBe('(f {x:(f {w:(f {z})})})');
  });

  it('turns doubled braces into literal braces', () => {
    expect(ex("f'{{literal}} {x} }}'")).toBe('(f "{literal} " {x} " }")');
  });

  it('parses self-documenting fields like CPython (implicit !r without spec)', () => {
    expect(ex("f'{x=}'")).toBe('(f {x ="x="!r})');
    expect(ex("f'{x = }'")).toBe('(f {x ="x = "!r})');
    expect(ex("f'{x=!s}'")).toBe('(f {x ="x="!s})');
    expect(ex("f'{x=:.2f}'")).toBe('(f {x ="x=":(f ".2f")})');
    expect(ex("f'{a.b[0]=}'")).toBe('(f {([] (. a b) 0) ="a.b[0]="!r})');
  });

  it('parses arbitrary expressions in fields', () => {
    expect(ex('f"{a + b * 2}"')).toBe('(f {(+ a (* b 2))})');
    expect(ex("f\"{host_params['w'][:5]}\"")).toBe('(f {([] ([] host_params "w") (slice _ 5 _))})');
    expect(ex("f'{x if y else z}'")).toBe('(f {(if y x z)})');
    expect(ex("f'{a, b}'")).toBe('(f {(tuple a b)})');
    expect(ex("f'{ {1: 2}[1] }'")).toBe('(f {([] (dict 1:2) 1)})');
    expect(ex("f'{(y := 3)}'")).toBe('(f {(:= y 3)})');
    expect(ex("f'{x!r}' if f'{y}' else f''")).toBe('(if (f {y}) (f {x!r}) (f ))');
  });

  it('accepts quote reuse inside fields (PEP 701) and nested f-strings', () => {
    expect(ex("f'{', '.join(xs)}'")).toBe('(f {(call (. ", " join) xs)})');
    expect(ex('f"{f"{x!r}"}"')).toBe('(f {(f {x!r})})');
    expect(ex("f'''{f\"{'a'}\"}'''")).toBe('(f {(f {"a"})})');
  });

  it('decodes escapes in literal parts and keeps raw f-strings raw', () => {
    expect(ex(String.raw`f'\n{x}\t'`)).toBe('(f "\\n" {x} "\\t")');
    expect(ex(String.raw`rf'\d{x}'`)).toBe('(f "\\\\d" {x})');
    expect(ex(String.raw`f'\{x}'`)).toBe('(f "\\\\" {x})');
  });

  it('parses multi-line triple-quoted f-strings', () => {
    expect(ex("f'''a\n{x +\n 1}\nb'''")).toBe('(f "a\\n" {(+ x 1)} "\\nb")');
  });

  it('concatenates adjacent strings and f-strings', () => {
    expect(ex("f'{a}' 'b' f'{c}'")).toBe('(f {a} "b" {c})');
    expect(ex("'a' f'b{x}' 'c' f'd'")).toBe('(f "ab" {x} "cd")');
    expect(ex("f'plain'")).toBe('(f "plain")');
    expect(ex("f''")).toBe('(f )');
  });

  it('gives an empty spec as null', () => {
    const j = expr("f'{x:}'") as JoinedStr;
    expect((j.values[0] as FormattedValue).formatSpec).toBeNull();
  });

  it('gives spans to the string, fields, spec and expressions', () => {
    const j = expr('f"a{x:>{w}}" "b"') as JoinedStr;
    expect(at(j.span)).toBe('1:1-1:17');
    const [lit, field] = j.values;
    expect(lit).toMatchObject({ kind: 'Constant', value: 'a' });
    expect(at(lit!.span)).toBe('1:3-1:4');
    const fv = field as FormattedValue;
    expect(at(fv.span)).toBe('1:4-1:12');
    expect(at(fv.value.span)).toBe('1:5-1:6');
    expect(at(fv.formatSpec!.span)).toBe('1:7-1:11');
    expect(at((fv.formatSpec!.values[1] as FormattedValue).value.span)).toBe('1:9-1:10');
    const k = expr('f"""\n  {value}"""') as JoinedStr;
    expect(at((k.values[1] as FormattedValue).value.span)).toBe('2:4-2:9');
  });

  it('reports errors inside fields at their position', () => {
    expect(parseError("x = f'{a b}'")).toBe('1:10 invalid syntax');
    expect(parseError("f'{1 +}'")).toBe('1:7 invalid syntax');
    expect(parseError("f'{x!z}'")).toBe("1:6 f-string: invalid conversion character 'z': expected 's', 'r', or 'a'");
    expect(parseError("f'{x:{}}'")).toBe("1:7 f-string: valid expression required before '}'");
    expect(parseError("f'{x'")).toBe("1:3 f-string: expecting '}'");
    expect(parseError("f'{*x}'")).toBe('1:4 cannot use starred expression here');
  });
});
