// np.random at run time: the draws generated code makes where NumPy's RNG
// runs while the program runs (src/lower/host_numpy.ts decides where). The
// generators are the compiler's own (mt19937.ts for the legacy global state and
// RandomState, pcg64.ts for default_rng's Generator), handed over in the state
// the compile-time draws left them in; the draws are NumPy's, bit for bit.
import { MT19937 } from './mt19937.js';
import { array, type NdArray, type NpDType } from './ndarray.js';
import { PCG64 } from './pcg64.js';

export { MT19937, PCG64 };

/** A bit generator: the legacy MT19937 or a Generator's PCG64. */
export type BitGen = MT19937 | PCG64;

const gaussOf = (g: BitGen): number => (g instanceof MT19937 ? g.gauss() : g.standardNormal());

/** `size` draws (null: one, returned as a Python float) of float64 values. */
function f64(shape: readonly number[] | null, draw: () => number): number | NdArray {
  if (shape === null) return draw();
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) data[i] = draw();
  return { shape: [...shape], dtype: 'float64', data };
}

/** uniform(low, high, size): low + (high - low) * random(). */
export function uniform(g: BitGen, low: number, high: number, shape: null): number;
export function uniform(g: BitGen, low: number, high: number, shape: readonly number[]): NdArray;
export function uniform(g: BitGen, low: number, high: number, shape: readonly number[] | null): number | NdArray {
  const range = high - low;
  return f64(shape, () => low + range * g.nextDouble());
}

/** normal(loc, scale, size): the legacy polar Gaussian, or the Generator's ziggurat. */
export function normal(g: BitGen, loc: number, scale: number, shape: null): number;
export function normal(g: BitGen, loc: number, scale: number, shape: readonly number[]): NdArray;
export function normal(g: BitGen, loc: number, scale: number, shape: readonly number[] | null): number | NdArray {
  return f64(shape, () => loc + scale * gaussOf(g));
}

/** random(size) / rand / random_sample: doubles in [0, 1). */
export function random(g: BitGen, shape: null): number;
export function random(g: BitGen, shape: readonly number[]): NdArray;
export function random(g: BitGen, shape: readonly number[] | null): number | NdArray {
  return f64(shape, () => g.nextDouble());
}

/** standard_normal(size) / randn. */
export function standardNormal(g: BitGen, shape: null): number;
export function standardNormal(g: BitGen, shape: readonly number[]): NdArray;
export function standardNormal(g: BitGen, shape: readonly number[] | null): number | NdArray {
  return f64(shape, () => gaussOf(g));
}

/** randint(low, high, size) / Generator.integers: integers in [low, high] (high inclusive here). */
export function integers(g: BitGen, low: number, high: number, dtype: NpDType, shape: null): number;
export function integers(g: BitGen, low: number, high: number, dtype: NpDType, shape: readonly number[]): NdArray;
export function integers(g: BitGen, low: number, high: number, dtype: NpDType, shape: readonly number[] | null): number | NdArray {
  const rng = BigInt(high - low);
  const draw = (): number => low + Number(g.bounded(rng));
  if (shape === null) return draw();
  const n = shape.reduce((a, b) => a * b, 1);
  return array(shape, dtype, Array.from({ length: n }, draw));
}

/** The order a shuffle of n items leaves them in: swap i with random_interval(i) for i = n-1 … 1. */
function shuffled(g: BitGen, n: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = g.interval(i);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx;
}

/** permutation(n): a shuffled arange(n). */
export function permutation(g: BitGen, n: number): NdArray {
  return array([n], 'int64', shuffled(g, n));
}

/** permutation(x): x's rows in a shuffled order. */
export function permuteRows(g: BitGen, x: NdArray): NdArray {
  const order = shuffled(g, x.shape[0]!);
  const w = x.data.length / Math.max(x.shape[0]!, 1);
  const values: number[] = [];
  for (const r of order) for (let k = 0; k < w; k++) values.push(x.data[r * w + k]!);
  return array(x.shape, x.dtype, values);
}

/** The legacy choice(n, size) with replacement: integers in [0, n) (null size: one, a Python int). */
export function choice(g: BitGen, n: number, shape: null): number;
export function choice(g: BitGen, n: number, shape: readonly number[]): NdArray;
export function choice(g: BitGen, n: number, shape: readonly number[] | null): number | NdArray {
  return shape === null ? integers(g, 0, n - 1, 'int64', null) : integers(g, 0, n - 1, 'int64', shape);
}

/** The legacy choice(n, size, replace=False): the first items of a shuffled arange(n). */
export function choiceWithoutReplacement(g: MT19937, n: number, shape: readonly number[]): NdArray {
  const count = shape.reduce((a, b) => a * b, 1);
  return array(shape, 'int64', shuffled(g, n).slice(0, count));
}

/** The state `np.random.get_state()` gives at run time, item by item: ('MT19937', key, pos, has_gauss, cached_gaussian). */
export interface LegacyState {
  readonly key: NdArray;
  readonly pos: number;
  readonly hasGauss: number;
  readonly gauss: number;
}

/** `get_state()` of a legacy generator: a copy of its 624-word key (uint32) and where it stands in it. */
export function getState(g: MT19937): LegacyState {
  const st = g.state();
  return { key: array([st.key.length], 'uint32', st.key), pos: st.pos, hasGauss: st.hasGauss ? 1 : 0, gauss: st.gauss };
}

/** `set_state(('MT19937', key, pos, has_gauss, cached_gaussian))` with values known at run time. */
export function setState(g: MT19937, key: NdArray, pos: number, hasGauss: number, gauss: number): void {
  if (key.data.length !== 624) throw new Error('ValueError: state must be 624 elements');
  g.setState(Array.from(key.data, (x) => x >>> 0), pos, hasGauss !== 0, gauss);
}
