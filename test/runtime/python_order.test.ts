// Python's orders at run time: sorted(..., key=) order and max/min(..., key=) choice (runtime/values.ts),
// checked against what CPython does (stable sorts, the first of equal extremes, strings by code point).
import { describe, expect, it } from 'vitest';
import { pyArgExtreme, pyListSort, pySortOrder } from '../../runtime/values.js';

describe('Python order at run time', () => {
  it('sorts keys stably, also in reverse (sorted(range(5), key=lambda i: k[i]))', () => {
    expect(pySortOrder([3, 1, 3, 0, 1])).toEqual([3, 1, 4, 0, 2]);
    expect(pySortOrder([3, 1, 3, 0, 1], true)).toEqual([0, 2, 1, 4, 3]);
    expect(pySortOrder(['b', 'B', 'a'])).toEqual([1, 2, 0]);
  });
  it('picks the first of equal extremes, as max/min do', () => {
    expect(pyArgExtreme([1, 5, 2, 5], 'max')).toBe(1);
    expect(pyArgExtreme([4, 1, 2, 1], 'min')).toBe(1);
    expect(pyArgExtreme([true, false], 'min')).toBe(1);
  });
  it('sorts a list in place by code point', () => {
    const xs = ['é', 'z', 'a'];
    pyListSort(xs);
    expect(xs).toEqual(['a', 'z', 'é']);
  });
});
