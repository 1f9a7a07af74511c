// runtime/py_str.ts and the run-time int helpers: Python's str methods and exact big-int division on values
// known only when the program runs, checked against what CPython gives for the same calls.
import { describe, expect, it } from 'vitest';
import * as s from '../../runtime/py_str.js';
import { bigFloordiv, bigMod, pySeqEquals } from '../../runtime/values.js';

describe('str methods at run time', () => {
  it('splits as CPython does (whitespace runs, maxsplit, rsplit, empty separator)', () => {
    expect(s.split('  a  b c  ')).toEqual(['a', 'b', 'c']);
    expect(s.split('  a  b c  ', null, 1)).toEqual(['a', 'b c  ']);
    expect(s.split('a,,b', ',')).toEqual(['a', '', 'b']);
    expect(s.rsplit('  a  b c  ', null, 1)).toEqual(['  a  b', 'c']);
    expect(s.rsplit('a-b-c', '-', 1)).toEqual(['a-b', 'c']);
    expect(s.split('', null)).toEqual([]);
    expect(() => s.split('ab', '')).toThrow('ValueError: empty separator');
    expect(s.splitlines('a\nb\r\nc\n')).toEqual(['a', 'b', 'c']);
  });
  it('searches and counts in code points, with start/end', () => {
    expect(s.find('step=10', '=')).toBe(4);
    expect(s.rfind('abcabc', 'b')).toBe(4);
    expect(s.find('abc', 'z')).toBe(-1);
    expect(s.count('abc', '')).toBe(4);
    expect(s.count('aaaa', 'aa')).toBe(2);
    expect(s.startswith('hello', 'll', 2)).toBe(true);
    expect(() => s.index('abc', 'z')).toThrow('ValueError: substring not found');
  });
  it('pads, strips and partitions', () => {
    expect(s.zfill('-42', 6)).toBe('-00042');
    expect(s.center('10', 7, '-')).toBe('---10--');
    expect(s.strip('xxhixx', 'x')).toBe('hi');
    expect(s.partition('k=v=w', '=')).toEqual(['k', '=', 'v=w']);
    expect(s.rpartition('k=v=w', '=')).toEqual(['k=v', '=', 'w']);
    expect(s.rpartition('kv', '=')).toEqual(['', '', 'kv']);
  });
});

describe('ints beyond 2**53 at run time', () => {
  it('floor-divides and takes the modulo toward -inf', () => {
    const big = 6n ** 30n;
    expect(bigFloordiv(big, 7n)).toBe(31581988531533336842825n);
    expect(bigFloordiv(-big, 7n)).toBe(-31581988531533336842826n);
    expect(bigMod(-big, 7n)).toBe(6n);
    expect(bigMod(big, -7n)).toBe(-6n);
    expect(() => bigMod(big, 0n)).toThrow('ZeroDivisionError: integer modulo by zero');
  });
  it('compares run-time lists item by item, a bool as its int', () => {
    expect(pySeqEquals([1, 2], [1, 2])).toBe(true);
    expect(pySeqEquals([1, true], [1, 1])).toBe(true);
    expect(pySeqEquals([1], [1, 2])).toBe(false);
  });
});
