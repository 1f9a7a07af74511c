// numpy.split on arrays known at compile time (src/lower/ndarray.ts ndSplit): equal sections, split
// points, an axis, and NumPy's error for sections that do not divide the axis (outputs from real NumPy).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { cpuBackend, runOn } from '../helpers/fixtures.js';

const c = (src: string) => compile(src, { file: 't.py' });
const lines = (...xs: string[]): string => ['import numpy as np', ...xs].join('\n') + '\n';

describe('numpy.split', () => {
  it('splits into equal sections, at split points, and along an axis', async () => {
    const src = lines(
      'x = np.arange(12).reshape(3, 4)',
      'print(np.split(np.arange(6), 3))',
      'a, b = np.split(x, [1], axis=0)',
      'print(a.shape, b.shape)',
      'print(np.split(x, [1, 3], axis=1)[1])',
      'print(np.split(x, 2, axis=-1)[0].sum())',
    );
    expect(await runOn(c(src), cpuBackend())).toBe('[array([0, 1]), array([2, 3]), array([4, 5])]\n(1, 4) (2, 4)\n[[ 1  2]\n [ 5  6]\n [ 9 10]]\n27\n');
  });

  it("raises NumPy's error when the sections do not divide the axis", () => {
    expect(() => c(lines('np.split(np.arange(5), 2)'))).toThrow(CompileError);
    expect(() => c(lines('np.split(np.arange(5), 2)'))).toThrow('ValueError: array split does not result in an equal division');
  });
});
