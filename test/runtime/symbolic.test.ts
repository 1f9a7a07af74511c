// runtime/symbolic.ts: jax.export's symbolic-shape syntax, and the symbols'
// values solved from an exported function's arguments (with jax.export's errors).
import { describe, expect, it } from 'vitest';
import { dims, dimText, parseSymbolicShape, symbolic } from '../../runtime/symbolic.js';

const texts = (s: string): string[] => parseSymbolicShape(s).map(dimText);
const arr = (shape: number[]): { shape: number[] } => ({ shape });

describe('symbolic shapes', () => {
  it("parses jax.export's syntax: bare or parenthesised, integers, symbols, multiples and sums", () => {
    expect(texts('b, 1')).toEqual(['b', '1']);
    expect(texts('(b, 784)')).toEqual(['b', '784']);
    expect(texts('(b,)')).toEqual(['b']);
    expect(texts('()')).toEqual([]);
    expect(texts('2*b, n + 1, b*3 - 2, 4 * k')).toEqual(['2*b', 'n + 1', '3*b - 2', '4*k']);
    expect(() => parseSymbolicShape('b; 3')).toThrow("ValueError: Invalid polymorphic shape specification: 'b; 3'");
    expect(() => parseSymbolicShape('b, , 3')).toThrow('an empty dimension');
    expect(() => parseSymbolicShape('b**2')).toThrow("'b**2' is not an integer, a symbol, or a sum of multiples of symbols");
  });

  it('solves the symbols from the arguments, in any order of the equations', () => {
    expect(dims('f', [[arr([6, 4]), 'x', '(2*b, n)'], [arr([4, 5]), 'w', '(n, m)']])).toEqual({ b: 3, n: 4, m: 5 });
    expect(dims('f', [[arr([7]), 'x', '(b + n,)'], [arr([3]), 'y', '(n,)']])).toEqual({ b: 4, n: 3 });
  });

  it("reports a shape that does not fit in jax.export's words, naming the dimension", () => {
    expect(() => dims('f', [[arr([2, 5]), 'x', '(b, 4)']])).toThrow("f(): Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size x.shape[1] (= 5) and the specification '4' (= 4).");
    expect(() => dims('f', [[arr([2, 5]), 'x', '(b, n)'], [arr([3]), 'y', '(b,)']])).toThrow("Found inconsistency between dimension size y.shape[0] (= 3) and the specification 'b' (= 2)");
    expect(() => dims('f', [[arr([5]), 'x', '(2*b,)']])).toThrow("Division had remainder 1 when computing the value of 'b'");
    expect(() => dims('f', [[arr([0]), 'x', '(b,)']])).toThrow("Expected value >= 1 for dimension variable 'b'");
    expect(() => dims('f', [[arr([2]), 'x', '(b, 2)']])).toThrow('Rank mismatch for x: expected 2, got 1 (shape (2,))');
    expect(() => dims('f', [['x', 'x', '(b,)']])).toThrow("f(): x must be an Array (jaxts/runtime's array()), got string");
  });

  it('makes a program once per size', () => {
    let made = 0;
    const p = symbolic((d) => ({ n: d['b']! * 2, id: made++ }));
    expect(p({ b: 3 })).toBe(p({ b: 3 }));
    expect(p({ b: 4 }).n).toBe(8);
    expect(made).toBe(2);
  });
});
