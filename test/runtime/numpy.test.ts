// runtime/numpy: run-time host NumPy (what generated code calls where NumPy values are known only
// when the program runs) and the hand-over of a bit generator's state from compile time to run time.
import { describe, expect, it } from 'vitest';
import * as np from '../../runtime/numpy/index.js';
import { MT19937 } from '../../runtime/numpy/mt19937.js';
import { PCG64 } from '../../runtime/numpy/pcg64.js';

const values = (x: np.NdArray): number[] => [...x.data];

describe('run-time ndarrays', () => {
  it('broadcasts binary operations and stores the given dtype', () => {
    const a = np.array([2, 1], 'float64', [1, 2]);
    const b = np.array([3], 'int64', [10, 20, 30]);
    const s = np.binary('+', a, b, 'float64');
    expect(s.shape).toEqual([2, 3]);
    expect(values(s)).toEqual([11, 21, 31, 12, 22, 32]);
    expect(values(np.binary('//', np.array([3], 'int64', [7, -7, 7]), np.array([3], 'int64', [2, 2, 0]), 'int64'))).toEqual([3, -4, 0]);
    expect(values(np.binary('%', -7, 3, 'int64'))).toEqual([2]);
    expect(np.binary('*', np.array([1], 'float32', [0.1]), 3, 'float32').data).toBeInstanceOf(Float32Array);
  });

  it('reduces over axes and indexes like NumPy', () => {
    const x = np.array([2, 3], 'int64', [1, 2, 3, 4, 5, 6]);
    expect(values(np.reduce('sum', x, [1], false, 'int64'))).toEqual([6, 15]);
    expect(values(np.reduce('mean', x, null, false, 'float64'))).toEqual([3.5]);
    expect(np.reduce('max', x, [0], true, 'int64').shape).toEqual([1, 3]);
    expect(values(np.index(x, [1, { start: null, stop: null, step: -1 }]))).toEqual([6, 5, 4]);
    expect(values(np.take(x, np.array([2], 'int64', [1, 0])))).toEqual([4, 5, 6, 1, 2, 3]);
    expect(values(np.transpose(x, [1, 0]))).toEqual([1, 4, 2, 5, 3, 6]);
    expect(values(np.stack([np.array([2], 'int64', [1, 2]), np.array([2], 'int64', [3, 4])], 1, 'int64'))).toEqual([1, 3, 2, 4]);
    expect(values(np.round(np.array([4], 'float64', [0.5, 1.5, 2.675, -0.125]), 2))).toEqual([0.5, 1.5, 2.68, -0.12]);
    expect(values(np.round(np.array([2], 'float64', [0.5, 1.5]), 0))).toEqual([0, 2]);
    expect(np.str(np.array([2], 'float64', [0.5, 1]))).toBe('[0.5 1. ]');
  });
});

describe('generators handed over to run time', () => {
  it('continues the legacy stream from a seed and the words drawn', () => {
    const g = new MT19937();
    g.seed(7);
    for (let i = 0; i < 5; i++) g.gauss();
    const r = g.recipe();
    if (!('seed' in r)) throw new Error('seeded generator without its seed');
    const h = MT19937.fromSeed(r.seed, r.drawn, r.gauss);
    expect(np.normal(h, 0, 1, [4])).toEqual(np.normal(g, 0, 1, [4]));
    expect(np.uniform(h, -1, 1, null)).toBe(np.uniform(g, -1, 1, null));
  });

  it('get_state and set_state at run time: a uint32 key and the position in it, restored exactly', () => {
    const g = new MT19937();
    g.seed(0);
    g.gauss();
    const st = np.getState(g);
    expect([st.key.dtype, st.key.shape, st.pos, st.hasGauss]).toEqual(['uint32', [624], 4, 1]); // NumPy: seed(0); normal(); get_state()[2:4] == (4, 1)
    const next = np.normal(g, 0, 1, [3]);
    np.setState(g, st.key, st.pos, st.hasGauss, st.gauss);
    expect(np.normal(g, 0, 1, [3])).toEqual(next);
    expect(() => np.setState(g, np.array([3], 'uint32', [1, 2, 3]), 0, 0, 0)).toThrow('state must be 624 elements');
  });

  it('continues a PCG64 stream from its state', () => {
    const g = new PCG64([42]);
    g.next32();
    const h = PCG64.fromState(...g.recipe());
    expect(values(np.permutation(h, 10))).toEqual(values(np.permutation(g, 10)));
    expect(np.integers(h, 0, 9, 'int64', [3])).toEqual(np.integers(g, 0, 9, 'int64', [3]));
  });
});
