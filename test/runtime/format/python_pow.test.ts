// Python's float ** (C's pow, correctly rounded) where V8's ** is not: vectors from CPython 3.11.
import { describe, expect, it } from 'vitest';
import { pyFloatPow } from '../../../runtime/format/python_pow.js';

const VECTORS: [number, number, number][] = [
  [2.0, 1.5, 2.8284271247461903],
  [0.30000000000000004, 3.0, 0.027000000000000014],
  [123456.789, 2.0, 15241578750.190521],
  [8.0, 0.5, 2.8284271247461903],
  [-3.0, 3.0, -27.0],
  [-2.5, -3.0, -0.064],
  [7.3, -1.5, 0.050700904808055156],
  [0.001, 0.25, 0.1778279410038923],
  [19.9, 33.0, 7.280337648014377e42],
  [0.7, 0.0625, 0.9779544506629632],
];

describe('pyFloatPow', () => {
  it.each(VECTORS)('%s ** %s is CPython\'s %s', (x, y, want) => {
    expect(pyFloatPow(x, y)).toBe(want);
  });
  it('keeps what ** gives for special values', () => {
    expect(pyFloatPow(0, 2)).toBe(0);
    expect(pyFloatPow(Infinity, 0.5)).toBe(Infinity);
    expect(Number.isNaN(pyFloatPow(-2, 0.5))).toBe(true);
    expect(pyFloatPow(5, 0)).toBe(1);
  });
});
