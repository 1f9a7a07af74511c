// Hand-written edge cases for runtime/format: the examples the project's
// docs quote, Python containers, objects with their own __repr__, error
// types, and a guard that the module stays free of Node imports.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  arrayFormat, dtoa, float32ShortestString, formatFloatPositional, formatFloatScientific, formatValue, JaxArrayObject,
  jaxRepr, jaxStr, npScalarRepr, npScalarStr, NumpyArrayObject, NumpyScalar, numpyRepr, numpyStr, parseFormatSpec,
  pyFloatRepr, PyFormatError, pyInt, PyNamedTuple, pyPrintLine, pyRepr, pyStr, pyTuple, shortestDigits,
  type HostArray, type PyValue,
} from '../../../runtime/format/index.js';

const f32 = (shape: number[], values: number[]): HostArray => ({ dtype: 'float32', shape, data: Float32Array.from(values) });
const f64 = (shape: number[], values: number[]): HostArray => ({ dtype: 'float64', shape, data: Float64Array.from(values) });
const i32 = (shape: number[], values: number[]): HostArray => ({ dtype: 'int32', shape, data: Int32Array.from(values) });
const i64 = (shape: number[], values: number[]): HostArray => ({ dtype: 'int64', shape, data: values.map(BigInt) });

describe('Python float repr', () => {
  it.each([
    [0.1, '0.1'], [1e-5, '1e-05'], [1e16, '1e+16'], [1.0, '1.0'], [-0.0, '-0.0'], [Infinity, 'inf'],
    [-Infinity, '-inf'], [NaN, 'nan'], [123456789012345.0, '123456789012345.0'],
    [1.2345678901234568e16, '1.2345678901234568e+16'], [0.0001, '0.0001'], [1e22, '1e+22'], [5e-324, '5e-324'],
    [9999999999999998.0, '9999999999999998.0'], [1.7976931348623157e308, '1.7976931348623157e+308'],
  ])('repr(%s) = %s', (x, want) => {
    expect(pyFloatRepr(x)).toBe(want);
    expect(pyRepr(x)).toBe(want);
    expect(pyStr(x)).toBe(want);
  });

  it('dtoa modes round half to even on the exact binary value', () => {
    expect(dtoa(0.125, 3, 2)).toMatchObject({ digits: '12', decpt: 0 });
    expect(dtoa(2.5, 3, 0)).toMatchObject({ digits: '2', decpt: 1 });
    expect(dtoa(2.675, 3, 2)).toMatchObject({ digits: '267', decpt: 1 }); // 2.67499999...
    expect(dtoa(0.001, 3, 1)).toMatchObject({ digits: '', decpt: -1 });
    expect(dtoa(9.5, 2, 1)).toMatchObject({ digits: '1', decpt: 2 });
  });
});

describe('float32 shortest repr', () => {
  it.each([
    [0.60576403, '0.60576403'], [0.1, '0.1'], [1e-5, '1e-05'], [1e-4, '1e-04'], [1e10, '1e+10'],
    [123456789, '1.2345679e+08'], [-0.028304616, '-0.028304616'], [16777217, '1.6777216e+07'], [65536.5, '65536.5'], [3, '3.0'],
    [999999.94, '999999.94'], [1e6, '1e+06'], [NaN, 'nan'], [-Infinity, '-inf'], [-0, '-0.0'],
  ])('str(np.float32(%s)) = %s', (x, want) => {
    expect(npScalarStr(x, 'float32')).toBe(want);
    expect(npScalarRepr(x, 'float32')).toBe(`np.float32(${want})`);
  });

  it('shortest digits round-trip and agree with JS for float64', () => {
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const buf = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 3000; i++) {
      buf.setUint32(0, Math.floor(rnd() * 2 ** 32));
      buf.setUint32(4, Math.floor(rnd() * 2 ** 32));
      const x = buf.getFloat64(0);
      if (!Number.isFinite(x) || x === 0) continue;
      const { digits, exp10 } = shortestDigits(x, 'float64');
      const js = Math.abs(x).toExponential().replace(/\.|e.*$/g, '');
      expect(digits).toBe(js);
      expect(exp10).toBe(Number(Math.abs(x).toExponential().split('e')[1]));
      const y = Math.fround(x);
      if (!Number.isFinite(y) || y === 0) continue;
      expect(Math.fround(Number(float32ShortestString(y)))).toBe(y);
    }
  });

  it('float32ShortestString', () => {
    expect(float32ShortestString(0.1)).toBe('1e-1');
    expect(float32ShortestString(-1.5)).toBe('-1.5e0');
    expect(float32ShortestString(0)).toBe('0');
  });
});

describe('Dragon4 (np.format_float_positional / scientific)', () => {
  it('matches NumPy docstring examples', () => {
    expect(formatFloatPositional(Math.PI, 'float32')).toBe('3.1415927');
    expect(formatFloatScientific(1.23e24, 'float32', { unique: false, precision: 15 })).toBe('1.230000071797338e+24');
    expect(formatFloatScientific(1.23e24, 'float32', { expDigits: 4 })).toBe('1.23e+0024');
    expect(formatFloatPositional(0.1, 'float64', { unique: false, precision: 20 })).toBe('0.10000000000000000555');
    expect(formatFloatPositional(1e-10, 'float64', { precision: 3, trim: '-' })).toBe('0');
    expect(formatFloatPositional(12.5, 'float64', { padLeft: 5, padRight: 4 })).toBe('   12.5   ');
  });
});

describe('NumPy arrays', () => {
  it('str and repr basics', () => {
    expect(numpyStr(i64([2, 2], [0, 1, 2, 3]))).toBe('[[0 1]\n [2 3]]');
    expect(numpyRepr(i64([2, 3], [0, 1, 2, 3, 4, 5]))).toBe('array([[0, 1, 2],\n       [3, 4, 5]])');
    expect(numpyRepr(f64([3], [2, 3, 4]))).toBe('array([2., 3., 4.])');
    expect(numpyRepr(f32([2], [0, 1.5]))).toBe('array([0. , 1.5], dtype=float32)');
    expect(numpyStr(f64([2], [0, 1.5]))).toBe('[0.  1.5]');
    expect(numpyRepr(f64([0, 3], []))).toBe('array([], shape=(0, 3), dtype=float64)');
    expect(numpyRepr(f32([0], []))).toBe('array([], dtype=float32)');
    expect(numpyRepr(f32([], [-0.028304616]))).toBe('array(-0.02830462, dtype=float32)');
    expect(numpyStr(f32([], [-0.028304616]))).toBe('-0.028304616');
  });

  it('accepts plain JS arrays as data', () => {
    expect(numpyStr({ dtype: 'bool', shape: [3], data: [true, false, true] })).toBe('[ True False  True]');
    expect(numpyStr({ dtype: 'float32', shape: [2], data: [0.1, 0.2] })).toBe('[0.1 0.2]');
    expect(numpyStr({ dtype: 'int64', shape: [2], data: [1n, -20n] })).toBe('[  1 -20]');
  });

  it('rejects data shorter than the shape', () => {
    expect(() => numpyStr(f32([3], [1, 2]))).toThrow(RangeError);
  });
});

describe('JAX arrays', () => {
  it('repr', () => {
    expect(jaxRepr(f32([2, 3], [11, 20, 29, 56, 65, 74]))).toBe(
      'Array([[11., 20., 29.],\n       [56., 65., 74.]], dtype=float32)',
    );
    expect(jaxRepr(f32([2, 3], [11, 20, 29, 56, 65, 174]))).toBe(
      'Array([[ 11.,  20.,  29.],\n       [ 56.,  65., 174.]], dtype=float32)',
    );
    expect(jaxRepr(f32([2], [1.5, 2]))).toBe('Array([1.5, 2. ], dtype=float32)');
    expect(jaxRepr(f32([0, 3], []))).toBe('Array([], shape=(0, 3), dtype=float32)');
    expect(jaxRepr({ dtype: 'bool', shape: [2], data: Uint8Array.from([1, 0]) })).toBe('Array([ True, False], dtype=bool)');
    expect(jaxRepr(i32([3], [1, 2, 3]))).toBe('Array([1, 2, 3], dtype=int32)');
    expect(jaxRepr(f32([], [3]))).toBe('Array(3., dtype=float32)');
    expect(jaxRepr(f32([], [2]), { weakType: true })).toBe('Array(2., dtype=float32, weak_type=True)');
  });

  it('str of 0-d arrays is the scalar', () => {
    expect(jaxStr(f32([], [-0.028304616]))).toBe('-0.028304616');
    expect(jaxStr(i32([], [3]))).toBe('3');
    expect(jaxStr({ dtype: 'bool', shape: [], data: [true] })).toBe('True');
  });

  it('format(): 0-d as a Python scalar, ndim >= 1 only with an empty spec', () => {
    expect(arrayFormat(f32([], [-0.028304616]), '.4f')).toBe('-0.0283');
    expect(arrayFormat(f32([], [0.1]), '')).toBe('0.10000000149011612');
    expect(arrayFormat(i32([], [3]), '3d')).toBe('  3');
    expect(arrayFormat(f32([2], [1, 2]), '')).toBe('[1. 2.]');
    let err: unknown;
    try {
      arrayFormat(f32([2], [1, 2]), '.2f');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PyFormatError);
    expect(err).toBeInstanceOf(Error);
    expect((err as PyFormatError).pyType).toBe('TypeError');
    expect((err as PyFormatError).message).toBe('unsupported format string passed to numpy.ndarray.__format__');
  });
});

describe('Python values', () => {
  it('scalars and containers', () => {
    expect(pyRepr(null)).toBe('None');
    expect(pyRepr(true)).toBe('True');
    expect(pyRepr(3n)).toBe('3');
    expect(pyRepr(pyInt(3))).toBe('3');
    expect(pyRepr(pyInt(1e21))).toBe('1000000000000000000000');
    expect(pyRepr(3)).toBe('3.0');
    expect(pyRepr(pyTuple(pyInt(1)))).toBe('(1,)');
    expect(pyRepr(pyTuple())).toBe('()');
    expect(pyRepr(pyTuple(pyInt(2), pyInt(3)))).toBe('(2, 3)');
    expect(pyRepr([])).toBe('[]');
    expect(pyRepr({})).toBe('{}');
    expect(pyStr([new NumpyScalar(0.60576403, 'float32'), 1.0, 'a', null, pyTuple(pyInt(1)), pyTuple(), { w: 1.5, b: [2n] }]))
      .toBe("[np.float32(0.60576403), 1.0, 'a', None, (1,), (), {'w': 1.5, 'b': [2]}]");
    expect(pyRepr([new NumpyScalar(0.60576403, 'float32'), new NumpyScalar(3n, 'int64'), new NumpyScalar(true, 'bool')]))
      .toBe('[np.float32(0.60576403), np.int64(3), np.True_]');
    expect(pyRepr(new Map<PyValue, PyValue>([[pyInt(1), 'x'], ['k', pyTuple()]]))).toBe("{1: 'x', 'k': ()}");
  });

  it('strings', () => {
    expect(pyStr('plain')).toBe('plain');
    expect(pyRepr('plain')).toBe("'plain'");
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr('a\'b"c')).toBe("'a\\'b\"c'");
    expect(pyRepr('tab\t\u00e9\u0000')).toBe("'tab\\té\\x00'");
  });

  it('objects print with their own __repr__/__str__', () => {
    const arr = new JaxArrayObject(f32([2], [1.5, 2]));
    expect(pyStr(arr)).toBe('[1.5 2. ]');
    expect(pyStr([arr])).toBe('[Array([1.5, 2. ], dtype=float32)]');
    expect(pyStr({ w: arr })).toBe("{'w': Array([1.5, 2. ], dtype=float32)}");
    expect(pyRepr(pyTuple(new NumpyArrayObject(i64([3], [0, 1, 2]))))).toBe('(array([0, 1, 2]),)');
    expect(pyRepr(new PyNamedTuple('Params', ['w', 'b'], [new NumpyArrayObject(f64([2], [1, 2])), pyInt(3)])))
      .toBe('Params(w=array([1., 2.]), b=3)');
    expect(pyPrintLine(['loss', 0.25, pyInt(3), arr])).toBe('loss 0.25 3 [1.5 2. ]');
  });

  it('recursive lists print [...]', () => {
    const x: PyValue[] = [pyInt(1), pyInt(2)];
    x.push(x);
    expect(pyRepr(x)).toBe('[1, 2, [...]]');
  });
});

describe('format()', () => {
  it.each([
    [1e16, '', '1e+16'], [0.1, '.3', '0.1'], [3.14159, '.4f', '3.1416'], [0.5, ':>10'.slice(1), '       0.5'],
    [-1.5, '+.2e', '-1.50e+00'], [1234567.891, ',', '1,234,567.891'], [0.25, '%', '25.000000%'],
    [3.14159, '08.3f', '0003.142'], [2.5, '.0f', '2'], [0.125, '.2f', '0.12'],
  ] as [number, string, string][])('format(%s, %j) = %j', (x, spec, want) => {
    expect(formatValue(x, spec)).toBe(want);
  });

  it('ints, bools, strings', () => {
    expect(formatValue(pyInt(7), '3d')).toBe('  7');
    expect(formatValue(255n, '#x')).toBe('0xff');
    expect(formatValue(1234567n, '_')).toBe('1_234_567');
    expect(formatValue(true, '')).toBe('True');
    expect(formatValue(true, '>5')).toBe('    1');
    expect(formatValue('ab', '^9s')).toBe('   ab    ');
    expect(formatValue('ab', '05')).toBe('ab000');
    expect(formatValue(new NumpyScalar(0.60576403, 'float32'), '.3f')).toBe('0.606');
  });

  it('errors carry Python exception type and message', () => {
    const cases: [PyValue, string, string, string][] = [
      [1.5, 'd', 'ValueError', "Unknown format code 'd' for object of type 'float'"],
      ['abc', 'd', 'ValueError', "Unknown format code 'd' for object of type 'str'"],
      [pyInt(1), '.2d', 'ValueError', 'Precision not allowed in integer format specifier'],
      [null, '>4', 'TypeError', 'unsupported format string passed to NoneType.__format__'],
      [[pyInt(1)], 'x', 'TypeError', 'unsupported format string passed to list.__format__'],
      [pyInt(1), 'abc', 'ValueError', "Invalid format specifier 'abc' for object of type 'int'"],
      [10n ** 400n, 'f', 'OverflowError', 'int too large to convert to float'],
    ];
    for (const [v, spec, type, msg] of cases) {
      let err: unknown;
      try {
        formatValue(v, spec);
      } catch (e) {
        err = e;
      }
      expect(err, `${spec}`).toBeInstanceOf(PyFormatError);
      expect([(err as PyFormatError).pyType, (err as PyFormatError).message]).toEqual([type, msg]);
    }
    expect(formatValue(null, '')).toBe('None');
    expect(formatValue(pyTuple(pyInt(1)), '')).toBe('(1,)');
  });

  it('parses specs', () => {
    expect(parseFormatSpec('*^+z#012,.3f', 'float', '', '>')).toEqual({
      fill: '*', align: '^', sign: '+', noNeg0: true, alternate: true, width: 12, grouping: ',', precision: 3, type: 'f',
    });
    expect(parseFormatSpec('08.3f', 'float', '', '>')).toMatchObject({ fill: '0', align: '=', width: 8 });
  });
});

describe('module hygiene', () => {
  it('runtime/format imports nothing outside itself (browser-safe)', () => {
    const dir = new URL('../../../runtime/format/', import.meta.url);
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const src = readFileSync(new URL(f, dir), 'utf8');
      const specs = [...src.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
      for (const s of specs) expect(s, `${f} imports ${s}`).toMatch(/^\.\/[\w.]+\.js$/);
      expect(src.startsWith('//'), `${f} opens with a comment`).toBe(true);
    }
  });
});
