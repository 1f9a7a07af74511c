// NumPy arrays on the host at run time: what generated code computes where a
// program's NumPy values are known only when it runs (drawn in a loop that
// stays a loop, or too large to build at compile time). A flat row-major
// buffer with its shape and NumPy dtype; the compiler knows every shape and
// dtype (src/lower/host_numpy.ts), so each function here takes the result's
// dtype as NumPy's promotion rules gave it. int64, uint32 and bool elements are held
// in a Float64Array (exact to 2**53), float32 ones in a Float32Array.
import { numpyRepr, numpyStr } from '../format/numpy_array.js';

export type NpDType = 'float64' | 'float32' | 'int64' | 'int32' | 'uint32' | 'bool';

export interface NdArray {
  readonly shape: readonly number[];
  readonly dtype: NpDType;
  readonly data: Float64Array | Float32Array;
}

/** A Python number beside an array, or an array. */
export type Operand = NdArray | number | boolean;

const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** An array of `dtype` holding `values` (cast as NumPy casts them). */
export function array(shape: readonly number[], dtype: NpDType, values: ArrayLike<number>): NdArray {
  const cast = caster(dtype);
  const data = dtype === 'float32' ? new Float32Array(values.length) : new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) data[i] = cast(values[i]!);
  return { shape: [...shape], dtype, data };
}

/** NumPy's cast of one element to `dtype` (float → int truncates; int32 wraps). */
function caster(dtype: NpDType): (v: number) => number {
  switch (dtype) {
    case 'float64':
    case 'float32':
      return (v) => v;
    case 'int64':
      return Math.trunc;
    case 'int32':
      return (v) => Math.trunc(v) | 0;
    case 'uint32':
      return (v) => Math.trunc(v) >>> 0;
    case 'bool':
      return (v) => (v !== 0 ? 1 : 0);
  }
}

export function astype(x: NdArray, dtype: NpDType): NdArray {
  return array(x.shape, dtype, x.data);
}

/** x.reshape(shape): the same elements (shape already resolved by the compiler). */
export function reshape(x: NdArray, shape: readonly number[]): NdArray {
  return { shape: [...shape], dtype: x.dtype, data: x.data };
}

const asArray = (v: Operand): NdArray => (typeof v === 'object' ? v : { shape: [], dtype: 'float64', data: Float64Array.of(Number(v)) });

/** The shape two shapes broadcast to (the compiler checked that they do). */
function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => {
    const x = a[i - n + a.length] ?? 1;
    const y = b[i - n + b.length] ?? 1;
    return x === 1 ? y : x;
  });
}

/** For each element of `shape` (row-major), the offset of the element of `x` broadcast to it. */
function broadcastOffsets(x: NdArray, shape: readonly number[]): Int32Array | null {
  if (x.shape.length === shape.length && x.shape.every((d, i) => d === shape[i])) return null;
  const n = size(shape);
  const out = new Int32Array(n);
  const pad = shape.length - x.shape.length;
  const strides = shape.map((_, k) => (k < pad || x.shape[k - pad] === 1 ? 0 : size(x.shape.slice(k - pad + 1))));
  const idx = new Array<number>(shape.length).fill(0);
  let off = 0;
  for (let i = 0; i < n; i++) {
    out[i] = off;
    for (let k = shape.length - 1; k >= 0; k--) {
      idx[k]!++;
      off += strides[k]!;
      if (idx[k]! < shape[k]!) break;
      off -= strides[k]! * shape[k]!;
      idx[k] = 0;
    }
  }
  return out;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '//' | '%' | '**' | '<' | '<=' | '>' | '>=' | '==' | '!=' | 'maximum' | 'minimum';

const pyMod = (a: number, b: number): number => {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
};

const BINARY: Record<BinaryOp, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '//': (a, b) => Math.floor(a / b),
  '%': pyMod,
  '**': (a, b) => a ** b,
  '<': (a, b) => +(a < b),
  '<=': (a, b) => +(a <= b),
  '>': (a, b) => +(a > b),
  '>=': (a, b) => +(a >= b),
  '==': (a, b) => +(a === b),
  '!=': (a, b) => +(a !== b),
  maximum: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)),
  minimum: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b)),
};

/** An elementwise binary operation, broadcast, computed in double precision and stored as `dtype`. */
export function binary(op: BinaryOp, a: Operand, b: Operand, dtype: NpDType): NdArray {
  const x = asArray(a);
  const y = asArray(b);
  const shape = broadcastShape(x.shape, y.shape);
  const n = size(shape);
  const ox = broadcastOffsets(x, shape);
  const oy = broadcastOffsets(y, shape);
  const f = BINARY[op];
  const intDiv = (op === '//' || op === '%') && (dtype === 'int64' || dtype === 'int32');
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const u = x.data[ox ? ox[i]! : i]!;
    const v = y.data[oy ? oy[i]! : i]!;
    // NumPy's integer division and remainder by zero give 0
    values[i] = intDiv && v === 0 ? 0 : f(u, v);
  }
  return array(shape, dtype, values);
}

export type UnaryOp = 'sin' | 'cos' | 'tan' | 'tanh' | 'exp' | 'log' | 'log2' | 'log10' | 'log1p' | 'expm1' | 'sqrt' | 'abs' | 'negative' | 'sign' | 'floor' | 'ceil' | 'square';

const UNARY: Record<UnaryOp, (v: number) => number> = {
  sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh, exp: Math.exp, log: Math.log, log2: Math.log2, log10: Math.log10,
  log1p: Math.log1p, expm1: Math.expm1, sqrt: Math.sqrt, abs: Math.abs, negative: (v) => -v, floor: Math.floor, ceil: Math.ceil,
  sign: (v) => (Number.isNaN(v) ? NaN : Math.sign(v)), square: (v) => v * v,
};

/** A NumPy ufunc of one argument, stored as `dtype` (float32 inputs compute in float32). */
export function unary(op: UnaryOp, x: Operand, dtype: NpDType): NdArray {
  const a = asArray(x);
  const f = UNARY[op];
  const values = new Float64Array(a.data.length);
  for (let i = 0; i < values.length; i++) values[i] = dtype === 'float32' ? Math.fround(f(a.data[i]!)) : f(a.data[i]!);
  return array(a.shape, dtype, values);
}

/** np.round(x, decimals): half to even, scaling by 10**decimals as NumPy does. */
export function round(x: NdArray, decimals: number): NdArray {
  const f = 10 ** Math.abs(decimals);
  const rint = (v: number): number => {
    const r = Math.round(v);
    return Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : r;
  };
  const values = new Float64Array(x.data.length);
  for (let i = 0; i < values.length; i++) {
    const v = x.data[i]!;
    values[i] = decimals === 0 ? rint(v) : decimals > 0 ? rint(v * f) / f : rint(v / f) * f;
  }
  return array(x.shape, x.dtype, values);
}

export type Reduction = 'sum' | 'prod' | 'max' | 'min' | 'mean' | 'any' | 'all';

/**
 * np.sum / prod / max / min / mean / any / all over `axes` (null: all), in double precision; sums are
 * pairwise over the last axis when it is reduced, as NumPy adds.
 */
export function reduce(kind: Reduction, x: NdArray, axes: readonly number[] | null, keepdims: boolean, dtype: NpDType): NdArray {
  const r = x.shape.length;
  const ax = axes ?? x.shape.map((_, i) => i);
  const outShape = x.shape.map((d, i) => (ax.includes(i) ? 1 : d));
  const n = size(outShape);
  const groups: number[][] = Array.from({ length: n }, () => []);
  const strides = x.shape.map((_, i) => size(x.shape.slice(i + 1)));
  const outStrides = outShape.map((_, i) => size(outShape.slice(i + 1)));
  for (let flat = 0; flat < x.data.length; flat++) {
    let o = 0;
    for (let i = 0; i < r; i++) if (!ax.includes(i)) o += (Math.floor(flat / strides[i]!) % x.shape[i]!) * outStrides[i]!;
    groups[o]!.push(x.data[flat]!);
  }
  const values = groups.map((g) => {
    switch (kind) {
      case 'sum':
        return pairwiseSum(g, dtype === 'float32');
      case 'mean':
        return pairwiseSum(g, x.dtype === 'float32') / g.length;
      case 'prod':
        return g.reduce((a, b) => a * b, 1);
      case 'max':
        return g.reduce((a, b) => (Number.isNaN(a) || b > a || Number.isNaN(b) ? b : a));
      case 'min':
        return g.reduce((a, b) => (Number.isNaN(a) || b < a || Number.isNaN(b) ? b : a));
      case 'any':
        return +g.some((v) => v !== 0);
      case 'all':
        return +g.every((v) => v !== 0);
    }
  });
  const shape = keepdims ? outShape : x.shape.filter((_, i) => !ax.includes(i));
  return array(shape, dtype, values);
}

/** NumPy's pairwise summation (blocks of 8 partial sums below 128 elements), in float32 when `f32`. */
export function pairwiseSum(v: readonly number[], f32: boolean, lo = 0, n = v.length): number {
  const add = f32 ? (a: number, b: number) => Math.fround(a + b) : (a: number, b: number) => a + b;
  if (n < 8) {
    let s = 0;
    for (let i = 0; i < n; i++) s = add(s, v[lo + i]!);
    return s;
  }
  if (n <= 128) {
    const r = Array.from({ length: 8 }, (_, k) => v[lo + k]!);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let k = 0; k < 8; k++) r[k] = add(r[k]!, v[lo + i + k]!);
    let s = add(add(add(r[0]!, r[1]!), add(r[2]!, r[3]!)), add(add(r[4]!, r[5]!), add(r[6]!, r[7]!)));
    for (; i < n; i++) s = add(s, v[lo + i]!);
    return s;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return add(pairwiseSum(v, f32, lo, n2), pairwiseSum(v, f32, lo + n2, n - n2));
}

/** x.transpose(perm): the axes in the order `perm` gives. */
export function transpose(x: NdArray, perm: readonly number[]): NdArray {
  const shape = perm.map((p) => x.shape[p]!);
  const strides = x.shape.map((_, i) => size(x.shape.slice(i + 1)));
  const n = x.data.length;
  const values = new Float64Array(n);
  const idx = new Array<number>(shape.length).fill(0);
  for (let o = 0; o < n; o++) {
    let off = 0;
    for (let k = 0; k < shape.length; k++) off += idx[k]! * strides[perm[k]!]!;
    values[o] = x.data[off]!;
    for (let k = shape.length - 1; k >= 0; k--) {
      if (++idx[k]! < shape[k]!) break;
      idx[k] = 0;
    }
  }
  return array(shape, x.dtype, values);
}

/** One item of a basic index: an int, a slice (bounds as Python gives them), or a new axis. */
export type IndexItem = number | { start: number | null; stop: number | null; step: number | null } | null;

/** Python's slice.indices(n): normalized start, stop and step. */
function sliceIndices(s: { start: number | null; stop: number | null; step: number | null }, n: number): [number, number, number] {
  const step = s.step ?? 1;
  const clamp = (v: number | null, def: number, lo: number, hi: number): number => (v === null ? def : v < 0 ? Math.max(v + n, lo) : Math.min(v, hi));
  return step > 0 ? [clamp(s.start, 0, 0, n), clamp(s.stop, n, 0, n), step] : [clamp(s.start, n - 1, -1, n - 1), clamp(s.stop, -1, -1, n - 1), step];
}

/** x[items]: basic indexing (ints, slices, new axes; the compiler expanded any ellipsis), a copy. */
export function index(x: NdArray, items: readonly IndexItem[]): NdArray {
  const axes: { idx: number[]; keep: boolean; stride: number }[] = [];
  const shape: number[] = [];
  let d = 0;
  const strides = x.shape.map((_, i) => size(x.shape.slice(i + 1)));
  for (const it of [...items, ...Array.from({ length: x.shape.length - items.filter((i) => i !== null).length }, () => ({ start: null, stop: null, step: null }))]) {
    if (it === null) {
      shape.push(1);
      continue;
    }
    const n = x.shape[d]!;
    const stride = strides[d++]!;
    if (typeof it === 'number') {
      const i = it < 0 ? it + n : it;
      if (i < 0 || i >= n) throw new RangeError(`IndexError: index ${it} is out of bounds for axis ${d - 1} with size ${n}`);
      axes.push({ idx: [i], keep: false, stride });
    } else {
      const [s, e, st] = sliceIndices(it, n);
      const idx: number[] = [];
      for (let i = s; st > 0 ? i < e : i > e; i += st) idx.push(i);
      axes.push({ idx, keep: true, stride });
      shape.push(idx.length);
    }
  }
  const values: number[] = [];
  const walk = (k: number, off: number): void => {
    if (k === axes.length) return void values.push(x.data[off]!);
    for (const i of axes[k]!.idx) walk(k + 1, off + i * axes[k]!.stride);
  };
  walk(0, 0);
  return array(shape, x.dtype, values);
}

/** x[idx] with an integer index array along `axis` (NumPy's take): idx's shape replaces that axis. */
export function take(x: NdArray, idx: NdArray, axis = 0): NdArray {
  const n = x.shape[axis]!;
  const outer = size(x.shape.slice(0, axis));
  const inner = size(x.shape.slice(axis + 1));
  const values = new Float64Array(outer * idx.data.length * inner);
  let o = 0;
  for (let a = 0; a < outer; a++) {
    for (const raw of idx.data) {
      const i = raw < 0 ? raw + n : raw;
      if (i < 0 || i >= n) throw new RangeError(`IndexError: index ${raw} is out of bounds for axis ${axis} with size ${n}`);
      const base = (a * n + i) * inner;
      for (let k = 0; k < inner; k++) values[o++] = x.data[base + k]!;
    }
  }
  return array([...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)], x.dtype, values);
}

/** np.concatenate(xs, axis) (the compiler checked the shapes and gave the result's dtype). */
export function concatenate(xs: readonly Operand[], axis: number, dtype: NpDType): NdArray {
  const arrays = xs.map(asArray);
  const first = arrays[0]!;
  const outer = size(first.shape.slice(0, axis));
  const shape = [...first.shape];
  shape[axis] = arrays.reduce((s, a) => s + a.shape[axis]!, 0);
  const values: number[] = [];
  for (let o = 0; o < outer; o++) {
    for (const a of arrays) {
      const w = size(a.shape.slice(axis));
      for (let k = 0; k < w; k++) values.push(a.data[o * w + k]!);
    }
  }
  return array(shape, dtype, values);
}

/** np.stack(xs, axis): each array gains a new axis there, then they are concatenated along it. */
export function stack(xs: readonly Operand[], axis: number, dtype: NpDType): NdArray {
  const arrays = xs.map(asArray);
  const s = arrays[0]!.shape;
  return concatenate(arrays.map((a) => reshape(a, [...s.slice(0, axis), 1, ...s.slice(axis)])), axis, dtype);
}

/** a @ b for 1-d and 2-d arrays (a vector is a row on the left, a column on the right), summed in double precision. */
export function matmul(a: NdArray, b: NdArray, dtype: NpDType): NdArray {
  const [n, k] = a.shape.length === 1 ? [1, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
  const m = b.shape.length === 1 ? 1 : b.shape[1]!;
  const values = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += a.data[i * k + t]! * b.data[t * m + j]!;
      values[i * m + j] = dtype === 'float32' ? Math.fround(s) : s;
    }
  }
  return array([...a.shape.slice(0, -1), ...b.shape.slice(1)], dtype, values);
}

/** The single element of a size-1 array, as the Python number `item()` gives. */
export function item(x: NdArray): number {
  if (x.data.length !== 1) throw new RangeError('ValueError: can only convert an array of size 1 to a Python scalar');
  return x.data[0]!;
}

/** str(x) as NumPy prints it. */
export function str(x: NdArray): string {
  return numpyStr(x);
}

/** repr(x) as NumPy prints it. */
export function repr(x: NdArray): string {
  return numpyRepr(x);
}

/**
 * np.quantile(x, qs) over the whole array by NumPy's default 'linear' method: the sorted values at
 * (n - 1) * q, interpolated as NumPy's _lerp does (from the nearer end past the midpoint), in `dtype`
 * (the float32 of a float32 array with a Python-number q; float64 otherwise). A NaN anywhere gives NaN.
 */
export function quantile(x: NdArray, qs: readonly number[], shape: readonly number[], dtype: NpDType): NdArray {
  const sorted = Array.from(x.data).sort((a, b) => a - b);
  const f = dtype === 'float32' ? Math.fround : (v: number): number => v;
  const n = sorted.length;
  const values = qs.map((q) => {
    if (sorted.some(Number.isNaN)) return NaN;
    const vi = (n - 1) * q;
    const lo = Math.min(Math.max(Math.floor(vi), 0), n - 1);
    const hi = Math.min(lo + 1, n - 1);
    // (gamma is a Python float: 1 - gamma is taken in double precision, each rounded to the dtype where it meets the array)
    const t = vi - Math.floor(vi);
    const [a, b] = [f(sorted[lo]!), f(sorted[hi]!)];
    const diff = f(b - a);
    return t >= 0.5 ? f(b - f(diff * f(1 - t))) : f(a + f(diff * f(t)));
  });
  return array(shape, dtype, values);
}

/** np.median(x) over the whole array: the mean of the middle one or two sorted values (NaN: NaN), in `dtype`. */
export function median(x: NdArray, dtype: NpDType): NdArray {
  const sorted = Array.from(x.data).sort((a, b) => a - b);
  const n = sorted.length;
  const mid = sorted.slice((n - 1) >> 1, (n >> 1) + 1);
  const m = sorted.some(Number.isNaN) ? NaN : pairwiseSum(mid, dtype === 'float32') / mid.length;
  return array([], dtype, [m]);
}
