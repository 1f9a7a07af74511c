// Operations on NdArray, the NumPy arrays computed at compile time (the `np.`
// calls of a lesson; the numpy module itself is lib_numpy.ts): creation,
// reshape, basic indexing and broadcasting arithmetic in NumPy's own dtypes
// (int64, float64). They reach the device as constants.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import { narrowValue } from '../ir/dtypes.js';
import { isFloat } from '../ir/types.js';
import { pairwiseSum } from '../../runtime/numpy/ndarray.js';
import { broadcastShapes, sliceIndices, staticNd, type IndexItem } from './arrays.js';
import { NdArray, NpScalar, PyBoundMethod, PyList, PyTuple, typeName, type CallArgs, type PyValue } from './values.js';

const prod = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

export function ndFrom(v: PyValue, span: A.Span, dtype?: NdArray['dtype']): NdArray {
  let nd: NdArray | null = v instanceof NdArray ? v : null;
  if (!nd && (v instanceof PyList || v instanceof PyTuple)) {
    const parts = v.items.map((x) => (x instanceof NdArray ? x : null));
    if (parts.length && parts.every((p) => p)) nd = ndStack(parts as NdArray[], 0, span);
    else nd = staticNd(v);
  }
  // a NumPy scalar: a 0-d array of its own dtype
  if (!nd && v instanceof NpScalar) nd = new NdArray([], v.dtype, [v.value]);
  if (!nd && (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')) nd = staticNd(new PyList([v]));
  if (nd && !(v instanceof NdArray) && (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')) nd = new NdArray([], nd.dtype, nd.data);
  if (!nd) throw new CompileError(`np.array of ${typeName(v)} is not supported at compile time`, span);
  return dtype && dtype !== nd.dtype ? ndAstype(nd, dtype) : nd;
}

export function ndAstype(x: NdArray, dtype: NdArray['dtype']): NdArray {
  const conv =
    dtype === 'int64' || dtype === 'bool' || dtype === 'float64'
      ? dtype === 'int64' ? Math.trunc : dtype === 'bool' ? (v: number) => (v ? 1 : 0) : (v: number) => v
      : isFloat(dtype) ? (v: number) => narrowValue(Math.fround(v), dtype) : (v: number) => narrowValue(Number.isFinite(v) ? Math.trunc(v) : 0, dtype);
  return new NdArray(x.shape, dtype, x.data.map(conv));
}

export function ndArange(start: number, stop: number, step: number, isFloat: boolean): NdArray {
  const n = Math.max(0, Math.ceil((stop - start) / step));
  return new NdArray([n], isFloat ? 'float64' : 'int64', Array.from({ length: n }, (_, i) => start + i * step));
}

export function ndReshape(x: NdArray, shape: number[], span: A.Span): NdArray {
  const n = prod(x.shape);
  const s = [...shape];
  const u = s.indexOf(-1);
  if (u >= 0) s[u] = n / prod(s.filter((_, i) => i !== u));
  if (prod(s) !== n || !Number.isInteger(s[u] ?? 0)) {
    throw new CompileError(`ValueError: cannot reshape array of size ${n} into shape (${shape.join(', ')}${shape.length === 1 ? ',' : ''})`, span);
  }
  return new NdArray(s, x.dtype, x.data);
}

export function ndStack(items: NdArray[], axis: number, span: A.Span): NdArray {
  if (!items.length) throw new CompileError('ValueError: need at least one array to stack', span);
  const s0 = items[0]!.shape;
  if (items.some((x) => x.shape.join() !== s0.join())) throw new CompileError('ValueError: all input arrays must have the same shape', span);
  if (axis !== 0) throw new CompileError('np.stack with axis != 0 is not supported at compile time', span);
  // NumPy's result type of the items: float32 stays float32 when every item is float32
  const dtype = items.some((x) => x.dtype.startsWith('float')) ? (items.every((x) => x.dtype === 'float32') ? 'float32' : 'float64') : items.some((x) => x.dtype !== items[0]!.dtype) ? 'int64' : items[0]!.dtype;
  return new NdArray([items.length, ...s0], dtype, items.flatMap((x) => x.data));
}

/** np.concatenate along `axis` (NumPy's checks; the dtype of the widest input). */
export function ndConcatenate(items: NdArray[], axis: number, span: A.Span): NdArray {
  if (!items.length) throw new CompileError('ValueError: need at least one array to concatenate', span);
  const s0 = items[0]!.shape;
  if (!s0.length) throw new CompileError('ValueError: zero-dimensional arrays cannot be concatenated', span);
  const a = axis < 0 ? axis + s0.length : axis;
  if (a < 0 || a >= s0.length) throw new CompileError(`numpy.exceptions.AxisError: axis ${axis} is out of bounds for array of dimension ${s0.length}`, span);
  if (items.some((x) => x.shape.length !== s0.length || x.shape.some((d, i) => i !== a && d !== s0[i]))) {
    throw new CompileError('ValueError: all the input array dimensions except for the concatenation axis must match exactly', span);
  }
  const dtype = items.some((x) => x.dtype.startsWith('float')) ? (items.every((x) => x.dtype === 'float32') ? 'float32' : 'float64') : items.some((x) => x.dtype !== 'bool') ? 'int64' : 'bool';
  const outer = prod(s0.slice(0, a));
  const data: number[] = [];
  for (let o = 0; o < outer; o++) {
    for (const x of items) {
      const w = prod(x.shape.slice(a));
      data.push(...x.data.slice(o * w, (o + 1) * w));
    }
  }
  return new NdArray(s0.map((d, i) => (i === a ? items.reduce((t, x) => t + x.shape[a]!, 0) : d)), dtype, data);
}

/** numpy.split: `sections` equal parts, or the parts between the split points, along `axis`. */
export function ndSplit(x: NdArray, sections: number | number[], axis: number, span: A.Span): NdArray[] {
  const ax = axis < 0 ? axis + x.shape.length : axis;
  if (!(ax >= 0 && ax < x.shape.length)) throw new CompileError(`AxisError: axis ${axis} is out of bounds for array of dimension ${x.shape.length}`, span);
  const n = x.shape[ax]!;
  if (typeof sections === 'number' && (sections <= 0 || n % sections !== 0)) {
    throw new CompileError(sections <= 0 ? 'ValueError: number sections must be larger than 0.' : 'ValueError: array split does not result in an equal division', span);
  }
  const points = typeof sections === 'number' ? Array.from({ length: sections - 1 }, (_, i) => ((i + 1) * n) / sections) : sections;
  const bounds = [0, ...points, n];
  const lead: IndexItem[] = Array.from({ length: ax }, () => ({ kind: 'slice', start: null, stop: null, step: null }));
  return bounds.slice(1).map((stop, i) => ndIndex(x, [...lead, { kind: 'slice', start: bounds[i]!, stop, step: null }], span) as NdArray);
}

export function ndIndex(x: NdArray, items: IndexItem[], span: A.Span | null = null): PyValue {
  const consumed = items.filter((i) => i.kind === 'int' || i.kind === 'slice').length;
  if (consumed > x.shape.length) {
    throw new CompileError(`IndexError: too many indices for array: array is ${x.shape.length}-dimensional, but ${consumed} were indexed`, span);
  }
  // general path: compute the selected positions per axis
  const axes: { idx: number[]; keep: boolean }[] = [];
  let d = 0;
  const newAxesAt: number[] = [];
  for (const it of items) {
    if (it.kind === 'none') {
      newAxesAt.push(axes.filter((a) => a.keep).length + newAxesAt.length);
      continue;
    }
    if (it.kind === 'ellipsis') {
      const rest = x.shape.length - items.filter((i) => i.kind === 'int' || i.kind === 'slice').length;
      for (let k = 0; k < rest; k++) axes.push({ idx: range(x.shape[d++]!), keep: true });
      continue;
    }
    const n = x.shape[d++]!;
    if (it.kind === 'int') {
      const i = it.value < 0 ? it.value + n : it.value;
      if (i < 0 || i >= n) throw new CompileError(`IndexError: index ${it.value} is out of bounds for axis ${d - 1} with size ${n}`, span);
      axes.push({ idx: [i], keep: false });
    }
    else if (it.kind === 'slice') {
      const [s, e, st] = sliceIndices(it.start, it.stop, it.step, n);
      const idx: number[] = [];
      for (let i = s; st > 0 ? i < e : i > e; i += st) idx.push(i);
      axes.push({ idx, keep: true });
    }
  }
  while (d < x.shape.length) axes.push({ idx: range(x.shape[d++]!), keep: true });
  const strides = x.shape.map((_, i) => prod(x.shape.slice(i + 1)));
  const data: number[] = [];
  const walk = (k: number, off: number): void => {
    if (k === axes.length) {
      data.push(x.data[off]!);
      return;
    }
    for (const i of axes[k]!.idx) walk(k + 1, off + i * strides[k]!);
  };
  walk(0, 0);
  const shape = axes.filter((a) => a.keep).map((a) => a.idx.length);
  for (const p of newAxesAt) shape.splice(p, 0, 1);
  if (!shape.length) return new NpScalar(x.dtype, data[0]!);
  return new NdArray(shape, x.dtype, data);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A binary operator on NumPy arrays: `@` is matmul, the rest elementwise (0-d results are NumPy scalars, as NumPy's). */
export function ndOperator(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): NdArray | NpScalar {
  const r = op === '@' ? ndMatmul(a, b, span) : ndBinary(op, a, b, span);
  return r instanceof NdArray && r.shape.length === 0 ? new NpScalar(r.dtype, r.data[0]!) : r;
}

/**
 * Arithmetic of a NumPy scalar with a NumPy scalar or a Python number: a NumPy scalar of NumPy's
 * result dtype (a Python number is weak: np.float32 * 2.0 is float32, np.int64 * 2.0 float64).
 * Null for operators and operands this does not cover.
 */
export function npScalarBinop(op: A.BinOpName, a: PyValue, b: PyValue, compute: (x: PyValue, y: PyValue) => PyValue): NpScalar | null {
  if (!['+', '-', '*', '/', '//', '%', '**'].includes(op)) return null;
  const kind = (v: PyValue): NdArray['dtype'] | 'pyint' | 'pyfloat' | null =>
    v instanceof NpScalar ? v.dtype : typeof v === 'bigint' || typeof v === 'boolean' ? 'pyint' : typeof v === 'number' ? 'pyfloat' : null;
  const [ka, kb] = [kind(a), kind(b)];
  if (ka === null || kb === null) return null;
  const isF = (k: string): boolean => k.startsWith('float') || k === 'pyfloat';
  const strong = [ka, kb].filter((k): k is NdArray['dtype'] => k !== 'pyint' && k !== 'pyfloat');
  const rank = ['bool', 'int32', 'uint32', 'int64', 'float32', 'float64'];
  let dtype = strong.reduce((x, y) => (rank.indexOf(y) > rank.indexOf(x) ? y : x));
  if ((ka === 'pyfloat' || kb === 'pyfloat') && !isF(dtype)) dtype = 'float64';
  if (dtype === 'float32' && strong.some((k) => k === 'int64' || k === 'int32' || k === 'uint32')) dtype = 'float64';
  if (dtype === 'bool' && (ka === 'pyint' || kb === 'pyint' || op !== '*')) dtype = 'int64';
  if (op === '/' && !isF(dtype)) dtype = 'float64';
  const num = (v: PyValue): number | bigint => (v instanceof NpScalar ? (isF(dtype) ? v.value : BigInt(Math.trunc(v.value))) : isF(dtype) ? Number(v) : typeof v === 'boolean' ? BigInt(v) : (v as bigint));
  const r = compute(num(a), num(b));
  const v = typeof r === 'bigint' ? Number(r) : typeof r === 'number' ? r : NaN;
  return new NpScalar(dtype, dtype === 'float32' ? Math.fround(v) : dtype === 'bool' ? (v ? 1 : 0) : v);
}

export function ndBinary(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): NdArray {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  const weakA = !(a instanceof NdArray);
  const weakB = !(b instanceof NdArray);
  const isF = (n: NdArray) => n.dtype.startsWith('float');
  let dtype: NdArray['dtype'] =
    weakA ? (isF(x) && !isF(y) ? 'float64' : y.dtype) : weakB ? (isF(y) && !isF(x) ? 'float64' : x.dtype) : isF(x) || isF(y) ? 'float64' : x.dtype === 'bool' && y.dtype === 'bool' ? 'bool' : 'int64';
  if (op === '/') dtype = 'float64';
  const shape = broadcastShapes(x.shape, y.shape, span);
  const at = (n: NdArray, i: number): number => {
    let off = 0;
    let rem = i;
    const st = shape.map((_, k) => prod(shape.slice(k + 1)));
    const pad = shape.length - n.shape.length;
    shape.forEach((_, k) => {
      const c = Math.floor(rem / st[k]!);
      rem -= c * st[k]!;
      if (k >= pad && n.shape[k - pad] !== 1) off += c * prod(n.shape.slice(k - pad + 1));
    });
    return n.data[off]!;
  };
  const f = NP_OPS[op];
  if (!f) throw new CompileError(`TypeError: unsupported operand type(s) for ${op}: 'numpy.ndarray'`, span);
  const isInt = dtype.startsWith('int');
  const data = range(prod(shape)).map((i) => {
    const r = f(at(x, i), at(y, i), isInt);
    return isInt ? Math.trunc(r) : r;
  });
  return new NdArray(shape, dtype, data);
}

const NP_OPS: Partial<Record<A.BinOpName, (a: number, b: number, int: boolean) => number>> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '//': (a, b) => Math.floor(a / b),
  '%': (a, b) => ((a % b) + b) % b,
  '**': (a, b) => a ** b,
};

const isFloatNd = (d: NdArray['dtype']): boolean => d === 'float64' || d === 'float32';

/** A NumPy ufunc of one float argument: float64 unless the input is float32 (NumPy keeps float32). */
export function ndUnaryFloat(f: (v: number) => number, v: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(v, span);
  const dtype = x.dtype === 'float32' ? 'float32' : 'float64';
  const data = x.data.map((a) => (dtype === 'float32' ? Math.fround(f(a)) : f(a)));
  return x.shape.length === 0 ? new NpScalar(dtype, data[0]!) : new NdArray(x.shape, dtype, data);
}

/** A NumPy ufunc that keeps the dtype (abs, negative, sign, floor/ceil/round for floats). */
export function ndUnarySame(f: (v: number) => number, v: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(v, span);
  const data = x.data.map((a) => (x.dtype === 'float32' ? Math.fround(f(a)) : f(a)));
  return x.shape.length === 0 ? new NpScalar(x.dtype, data[0]!) : new NdArray(x.shape, x.dtype, data);
}

/** A NumPy ufunc of one argument with a bool result (isnan, isinf, isfinite). */
export function ndUnaryPredicate(f: (v: number) => boolean, v: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(v, span);
  const data = x.data.map((a) => (f(a) ? 1 : 0));
  return x.shape.length === 0 ? new NpScalar('bool', data[0]!) : new NdArray(x.shape, 'bool', data);
}

/** Round half to even, as np.round (decimals scale by 10**decimals as NumPy does). */
export function roundHalfEven(v: number, decimals = 0): number {
  const f = 10 ** decimals;
  const y = decimals ? v * f : v;
  const r = Math.round(y);
  const even = Math.abs(y % 1) === 0.5 ? 2 * Math.round(y / 2) : r;
  return decimals ? even / f : even;
}

export type NdReduction = 'sum' | 'prod' | 'max' | 'min' | 'mean' | 'any' | 'all';

/** np.sum/prod/max/min/mean/any/all over `axes` (null: all), NumPy's result dtypes (sum of bool/int32 is int64). */
export function ndReduce(kind: NdReduction, v: PyValue, axes: number[] | null, keepdims: boolean, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(v, span);
  const r = x.shape.length;
  const ax = (axes ?? range(r)).map((a) => {
    const n = a < 0 ? a + r : a;
    if (n < 0 || n >= r) throw new CompileError(`numpy.exceptions.AxisError: axis ${a} is out of bounds for array of dimension ${r}`, span);
    return n;
  });
  if ((kind === 'max' || kind === 'min') && ax.some((a) => x.shape[a] === 0)) {
    throw new CompileError(`ValueError: zero-size array to reduction operation ${kind === 'max' ? 'maximum' : 'minimum'} which has no identity`, span);
  }
  const outShape = x.shape.map((d, i) => (ax.includes(i) ? 1 : d));
  const n = prod(outShape);
  const init = kind === 'sum' || kind === 'mean' || kind === 'any' ? 0 : kind === 'prod' || kind === 'all' ? 1 : kind === 'max' ? -Infinity : Infinity;
  const acc = new Array<number>(n).fill(init);
  const strides = x.shape.map((_, i) => prod(x.shape.slice(i + 1)));
  const outStrides = outShape.map((_, i) => prod(outShape.slice(i + 1)));
  x.data.forEach((val, flat) => {
    let o = 0;
    for (let i = 0; i < r; i++) if (!ax.includes(i)) o += Math.floor(flat / strides[i]!) % x.shape[i]! * outStrides[i]!;
    const a = acc[o]!;
    acc[o] = kind === 'sum' || kind === 'mean' ? a + val : kind === 'prod' ? a * val : kind === 'max' ? (Number.isNaN(val) || val > a ? val : a) : kind === 'min' ? (Number.isNaN(val) || val < a ? val : a) : kind === 'any' ? (a || val ? 1 : 0) : a && val ? 1 : 0;
  });
  const count = ax.reduce((p, a) => p * x.shape[a]!, 1);
  let dtype: NdArray['dtype'] = x.dtype;
  if (kind === 'mean') dtype = x.dtype === 'float32' ? 'float32' : 'float64';
  else if (kind === 'any' || kind === 'all') dtype = 'bool';
  else if ((kind === 'sum' || kind === 'prod') && !isFloatNd(x.dtype)) dtype = 'int64';
  const data = acc.map((a) => {
    const m = kind === 'mean' ? a / count : a;
    return dtype === 'float32' ? Math.fround(m) : m;
  });
  const shape = keepdims ? outShape : x.shape.filter((_, i) => !ax.includes(i));
  return shape.length === 0 ? new NpScalar(dtype, data[0]!) : new NdArray(shape, dtype, data);
}

export function ndTranspose(x: NdArray, perm: number[] | null): NdArray {
  const r = x.shape.length;
  const p = perm ? perm.map((d) => (d < 0 ? d + r : d)) : range(r).reverse();
  const shape = p.map((d) => x.shape[d]!);
  const strides = x.shape.map((_, i) => prod(x.shape.slice(i + 1)));
  const outStrides = shape.map((_, i) => prod(shape.slice(i + 1)));
  const data = range(x.data.length).map((flat) => {
    let off = 0;
    for (let i = 0; i < r; i++) off += (Math.floor(flat / outStrides[i]!) % shape[i]!) * strides[p[i]!]!;
    return x.data[off]!;
  });
  return new NdArray(shape, x.dtype, data);
}

/** np.dot / `@` for vectors and matrices (NumPy's float64 or int64 arithmetic). */
export function ndMatmul(a: PyValue, b: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  if (x.shape.length === 0 || y.shape.length === 0) return ndBinary('*', x, y, span);
  if (x.shape.length > 2 || y.shape.length > 2) throw new CompileError('np.matmul of arrays with more than two dimensions is not supported at compile time', span);
  const X = x.shape.length === 1 ? new NdArray([1, x.shape[0]!], x.dtype, x.data) : x;
  const Y = y.shape.length === 1 ? new NdArray([y.shape[0]!, 1], y.dtype, y.data) : y;
  const [n, k] = X.shape as [number, number];
  const [k2, m] = Y.shape as [number, number];
  if (k !== k2) throw new CompileError(`ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ${k2} is different from ${k})`, span);
  const data: number[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) {
    let s = 0;
    for (let t = 0; t < k; t++) s += X.data[i * k + t]! * Y.data[t * m + j]!;
    data.push(s);
  }
  const dtype = isFloatNd(x.dtype) || isFloatNd(y.dtype) ? (x.dtype === 'float32' && y.dtype === 'float32' ? 'float32' : 'float64') : 'int64';
  const shape = [...(x.shape.length === 2 ? [n] : []), ...(y.shape.length === 2 ? [m] : [])];
  const out = dtype === 'float32' ? data.map(Math.fround) : data;
  return shape.length === 0 ? new NpScalar(dtype, out[0]!) : new NdArray(shape, dtype, out);
}

/** np.isclose elementwise (NumPy's |a - b| <= atol + rtol * |b|, infinities equal when equal). */
export function ndIsclose(a: PyValue, b: PyValue, rtol: number, atol: number, equalNan: boolean, span: A.Span): NdArray {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  const shape = broadcastShapes(x.shape, y.shape, span);
  const bx = ndBroadcast(x, shape);
  const by = ndBroadcast(y, shape);
  const data = bx.data.map((u, i) => {
    const v = by.data[i]!;
    if (Number.isNaN(u) || Number.isNaN(v)) return equalNan && Number.isNaN(u) && Number.isNaN(v) ? 1 : 0;
    if (!Number.isFinite(u) || !Number.isFinite(v)) return u === v ? 1 : 0;
    return Math.abs(u - v) <= atol + rtol * Math.abs(v) ? 1 : 0;
  });
  return new NdArray(shape, 'bool', data);
}

const ND_CMP: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b, '==': (a, b) => a === b, '!=': (a, b) => a !== b,
};

/** An elementwise comparison of NumPy values (broadcast): a bool array, or a NumPy bool for 0-d operands. */
export function ndCompare(op: string, a: PyValue, b: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  const f = ND_CMP[op];
  if (!f) throw new CompileError(`TypeError: '${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, span);
  const shape = broadcastShapes(x.shape, y.shape, span);
  const bx = ndBroadcast(x, shape);
  const by = ndBroadcast(y, shape);
  const data = bx.data.map((v, i) => (f(v, by.data[i]!) ? 1 : 0));
  return shape.length ? new NdArray(shape, 'bool', data) : new NpScalar('bool', data[0]!);
}

/** NumPy's logical ufuncs (np.logical_and/or/xor) on NumPy values (broadcast): a bool array, or a NumPy bool for 0-d operands. */
export function ndLogical(op: 'and' | 'or' | 'xor', a: PyValue, b: PyValue, span: A.Span): NdArray | NpScalar {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  const shape = broadcastShapes(x.shape, y.shape, span);
  const bx = ndBroadcast(x, shape);
  const by = ndBroadcast(y, shape);
  const f = op === 'and' ? (p: boolean, q: boolean) => p && q : op === 'or' ? (p: boolean, q: boolean) => p || q : (p: boolean, q: boolean) => p !== q;
  const data = bx.data.map((v, i) => (f(v !== 0, by.data[i]! !== 0) ? 1 : 0));
  return shape.length ? new NdArray(shape, 'bool', data) : new NpScalar('bool', data[0]!);
}

export function ndBroadcast(x: NdArray, shape: number[]): NdArray {
  if (x.shape.length === shape.length && x.shape.every((d, i) => d === shape[i])) return x;
  const pad = shape.length - x.shape.length;
  const strides = x.shape.map((_, i) => prod(x.shape.slice(i + 1)));
  const outStrides = shape.map((_, i) => prod(shape.slice(i + 1)));
  const data = range(prod(shape)).map((flat) => {
    let off = 0;
    for (let i = pad; i < shape.length; i++) {
      const d = x.shape[i - pad]!;
      if (d !== 1) off += (Math.floor(flat / outStrides[i]!) % shape[i]!) * strides[i - pad]!;
    }
    return x.data[off]!;
  });
  return new NdArray(shape, x.dtype, data);
}

/** np.linspace in float64 as NumPy computes it: start + arange(num) * step, the stop exact when `endpoint`. */
export function ndLinspace(start: number, stop: number, num: number, endpoint: boolean): NdArray {
  const div = endpoint ? num - 1 : num;
  const step = div > 0 ? (stop - start) / div : NaN;
  const data = range(num).map((i) => (div > 0 ? start + i * step : start));
  if (endpoint && num > 1) data[num - 1] = stop;
  return new NdArray([num], 'float64', data);
}

/** Attributes and methods of a compile-time NumPy array beyond shape/dtype/reshape/astype (attrs.ts has those). */
export function ndAttr(x: NdArray, name: string): PyValue | undefined {
  const method = (f: (c: CallArgs) => PyValue): PyBoundMethod => new PyBoundMethod(x, name, f);
  const axes = (v: PyValue, span: A.Span): number[] | null =>
    v === null ? null : v instanceof PyTuple || v instanceof PyList ? v.items.map((a) => Number(a as bigint)) : (typeof v === 'bigint' ? [Number(v)] : (() => { throw new CompileError(`TypeError: axis must be an int or tuple of ints, got ${typeName(v)}`, span); })());
  const red = (kind: NdReduction) => method((c) => ndReduce(kind, x, axes(c.args[0] ?? c.kwargs.get('axis') ?? null, c.span), c.kwargs.get('keepdims') === true, c.span));
  switch (name) {
    case 'T': return ndTranspose(x, null);
    // x.transpose(2, 1, 0) or x.transpose((2, 1, 0)) / ([2, 1, 0])
    case 'transpose': return method((c) => {
      const one = c.args.length === 1 && (c.args[0] instanceof PyTuple || c.args[0] instanceof PyList) ? c.args[0].items : c.args;
      return ndTranspose(x, one.length ? one.map((a) => Number(a as bigint)) : null);
    });
    case 'sum': return red('sum');
    case 'prod': return red('prod');
    case 'max': return red('max');
    case 'min': return red('min');
    case 'mean': return red('mean');
    case 'any': return red('any');
    case 'all': return red('all');
    case 'flatten':
    case 'ravel': return method((c) => ndReshape(x, [-1], c.span));
    case 'copy': return method(() => new NdArray([...x.shape], x.dtype, [...x.data]));
    // in place along the last axis, NaN last (NumPy's default axis=-1)
    case 'sort': return method(() => {
      const n = x.shape[x.shape.length - 1] ?? 1;
      for (let i = 0; i < x.data.length; i += n) x.data.splice(i, n, ...x.data.slice(i, i + n).sort((p, q) => (Number.isNaN(p) ? 1 : Number.isNaN(q) ? -1 : p - q)));
      return null;
    });
    case 'tolist': return method(() => ndToList(x));
    case 'item': return method((c) => {
      if (x.data.length !== 1) throw new CompileError('ValueError: can only convert an array of size 1 to a Python scalar', c.span);
      const v = x.data[0]!;
      return x.dtype === 'bool' ? v !== 0 : x.dtype.startsWith('int') ? BigInt(v) : v;
    });
    case 'dot': return method((c) => ndMatmul(x, c.args[0]!, c.span));
  }
  return undefined;
}

function ndToList(x: NdArray): PyValue {
  const scalar = (v: number): PyValue => (x.dtype === 'bool' ? v !== 0 : x.dtype.startsWith('int') ? BigInt(v) : v);
  if (x.shape.length === 0) return scalar(x.data[0]!);
  const walk = (d: number, off: number): PyValue => {
    const n = x.shape[d]!;
    const stride = prod(x.shape.slice(d + 1));
    return new PyList(range(n).map((i) => (d === x.shape.length - 1 ? scalar(x.data[off + i]!) : walk(d + 1, off + i * stride))));
  };
  return walk(0, 0);
}

/** `x[items] = v` on a compile-time NumPy array, in place (v broadcast and cast to x's dtype, as NumPy does). */
export function ndSetItem(x: NdArray, items: IndexItem[], v: PyValue, span: A.Span, selected?: { shape: number[]; offsets: number[] }): void {
  const positions = selected ? new NdArray(selected.shape, 'int64', selected.offsets) : ndIndex(new NdArray(x.shape, 'int64', range(x.data.length)), items, span);
  const pos = positions instanceof NdArray ? positions : new NdArray([], 'int64', [(positions as NpScalar).value]);
  if (!(v instanceof NdArray) && !(typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || v instanceof NpScalar || v instanceof PyList || v instanceof PyTuple)) {
    throw new CompileError(`TypeError: assigning a ${typeName(v)} into a NumPy array computed at compile time is not supported`, span);
  }
  const val = v instanceof NpScalar ? new NdArray([], v.dtype, [v.value]) : ndFrom(v, span);
  const shape = broadcastShapes(pos.shape, val.shape, span);
  if (shape.length !== pos.shape.length || shape.some((d, i) => d !== pos.shape[i])) {
    throw new CompileError(`ValueError: could not broadcast input array from shape (${val.shape.join(',')}) into shape (${pos.shape.join(',')})`, span);
  }
  const b = ndBroadcast(val, shape);
  const cast = x.dtype.startsWith('int') ? Math.trunc : x.dtype === 'bool' ? (a: number) => (a ? 1 : 0) : x.dtype === 'float32' ? Math.fround : (a: number) => a;
  pos.data.forEach((p, i) => {
    x.data[p] = cast(b.data[i]!);
  });
}

// ------------------------------------------------------------ advanced (integer and boolean array) indexing

/** An index item of a compile-time array with NumPy's advanced indices: an int64 index array, already checked. */
type NdItem = Exclude<IndexItem, { kind: 'array' } | { kind: 'mask' }> | { kind: 'nd'; value: NdArray };

/** A key item of advanced indexing: a basic item, or an index array (a list is read as one, as NumPy does). */
export type AdvancedItem = IndexItem | NdArray | PyList;

/** Does a NumPy index key (its items, static) hold an integer or boolean array, or a list? */
export function isAdvancedKey(items: readonly PyValue[]): boolean {
  return items.some((it) => (it instanceof NdArray && (it.shape.length > 0 || it.dtype === 'bool')) || it instanceof PyList);
}

/**
 * NumPy's indexing of a compile-time array when the key holds index arrays (x[idx], eye(10)[labels],
 * x[rows, cols], x[mask]): `items` are the key's items, already static. Index arrays broadcast
 * together; their shape takes their place when they (with any integer indices) are adjacent in
 * the key, else it comes first (NumPy's rule). Returns a NumPy scalar for a 0-d result.
 */
export function ndAdvancedIndex(x: NdArray, items: readonly AdvancedItem[], span: A.Span): PyValue {
  const { shape, offsets } = ndAdvancedOffsets(x, items, span);
  if (!shape.length) return new NpScalar(x.dtype, x.data[offsets[0]!]!);
  return new NdArray(shape, x.dtype, offsets.map((o) => x.data[o]!));
}

/** `x[key] = v` with index arrays: the selected positions take v broadcast to the selection's shape. */
export function ndAdvancedSetItem(x: NdArray, items: readonly AdvancedItem[], v: PyValue, span: A.Span): void {
  const { shape, offsets } = ndAdvancedOffsets(x, items, span);
  ndSetItem(x, [], v, span, { shape, offsets });
}

function ndAdvancedOffsets(x: NdArray, raw: readonly AdvancedItem[], span: A.Span): { shape: number[]; offsets: number[] } {
  // the key as items: lists become arrays, a boolean array becomes the integer arrays of its nonzero positions
  const items: NdItem[] = [];
  for (const it of raw) {
    if (!(it instanceof NdArray || it instanceof PyList)) {
      if (it.kind === 'array' || it.kind === 'mask') throw new CompileError('indexing a NumPy array with a JAX array is not supported here yet', span);
      items.push(it);
      continue;
    }
    const a = it instanceof NdArray ? it : ndFrom(it, span);
    if (a.dtype === 'bool') {
      for (const nz of nonzero(a)) items.push({ kind: 'nd', value: nz });
    } else if (a.dtype.startsWith('float')) {
      throw new CompileError('IndexError: arrays used as indices must be of integer (or boolean) type', span);
    } else if (!a.shape.length) items.push({ kind: 'int', value: a.data[0]! });
    else items.push({ kind: 'nd', value: a });
  }
  if (items.filter((i) => i.kind === 'ellipsis').length > 1) throw new CompileError("IndexError: an index can only have a single ellipsis ('...')", span);
  const consumed = items.filter((i) => i.kind === 'int' || i.kind === 'slice' || i.kind === 'nd').length;
  if (consumed > x.shape.length) {
    throw new CompileError(`IndexError: too many indices for array: array is ${x.shape.length}-dimensional, but ${consumed} were indexed`, span);
  }
  // expand the ellipsis (or pad at the end) with full slices
  const full: NdItem = { kind: 'slice', start: null, stop: null, step: null };
  const at = items.findIndex((i) => i.kind === 'ellipsis');
  const fill = Array.from({ length: x.shape.length - consumed }, () => full);
  const key = at >= 0 ? [...items.slice(0, at), ...fill, ...items.slice(at + 1)] : [...items, ...fill];
  // integer indices count as advanced beside index arrays (NumPy)
  const adv = key.map((i) => i.kind === 'nd' || i.kind === 'int');
  const advShape = broadcastShapes(
    key.flatMap((i) => (i.kind === 'nd' ? [i.value.shape] : [])).reduce<number[][]>((acc, s) => [...acc, [...s]], []).reduce((a, s) => broadcastShapes(a, s, span), [] as number[]),
    [],
    span,
  );
  const advAt = key.flatMap((_, k) => (adv[k] ? [k] : []));
  const adjacent = advAt.every((k, j) => j === 0 || k === advAt[j - 1]! + 1);
  // per key item: the source axis it reads (none for None), and its positions along that axis
  const strides = x.shape.map((_, i) => prod(x.shape.slice(i + 1)));
  type Basic = { axis: number | null; idx: number[] };
  const basics: { pos: number; b: Basic }[] = [];
  const advanced: { axis: number; read: (flat: number) => number }[] = [];
  let d = 0;
  key.forEach((it, k) => {
    if (it.kind === 'none') return void basics.push({ pos: k, b: { axis: null, idx: [0] } });
    const axis = d++;
    const n = x.shape[axis]!;
    const wrap = (v: number): number => {
      const i = v < 0 ? v + n : v;
      if (i < 0 || i >= n) throw new CompileError(`IndexError: index ${v} is out of bounds for axis ${axis} with size ${n}`, span);
      return i;
    };
    if (it.kind === 'slice') {
      const [s, e, st] = sliceIndices(it.start, it.stop, it.step, n);
      const idx: number[] = [];
      for (let i = s; st > 0 ? i < e : i > e; i += st) idx.push(i);
      basics.push({ pos: k, b: { axis, idx } });
    } else if (it.kind === 'int') {
      const i = wrap(it.value);
      advanced.push({ axis, read: () => i });
    } else if (it.kind === 'nd') {
      const b = ndBroadcast(it.value, advShape);
      const checked = b.data.map(wrap);
      advanced.push({ axis, read: (flat) => checked[flat]! });
    }
  });
  const hasArrays = key.some((i) => i.kind === 'nd');
  const advCount = hasArrays ? prod(advShape) : 1;
  const before = hasArrays && adjacent ? basics.filter((b) => b.pos < advAt[0]!) : [];
  const after = hasArrays && adjacent ? basics.filter((b) => b.pos > advAt[0]!) : basics;
  const shape = [...before.map((b) => b.b.idx.length), ...(hasArrays ? advShape : []), ...after.map((b) => b.b.idx.length)];
  const offsets: number[] = [];
  const walkBasics = (list: typeof basics, j: number, off: number, done: (off: number) => void): void => {
    if (j === list.length) return done(off);
    const { axis, idx } = list[j]!.b;
    for (const i of idx) walkBasics(list, j + 1, axis === null ? off : off + i * strides[axis]!, done);
  };
  walkBasics(before, 0, 0, (o1) => {
    for (let f = 0; f < advCount; f++) {
      const o2 = advanced.reduce((o, a) => o + a.read(f) * strides[a.axis]!, o1);
      walkBasics(after, 0, o2, (o3) => void offsets.push(o3));
    }
  });
  return { shape, offsets };
}

/** The integer arrays of a boolean array's nonzero positions, one per axis (np.nonzero). */
function nonzero(a: NdArray): NdArray[] {
  const strides = a.shape.map((_, i) => prod(a.shape.slice(i + 1)));
  const hits = a.data.flatMap((v, i) => (v ? [i] : []));
  return a.shape.map((n, ax) => new NdArray([hits.length], 'int64', hits.map((i) => Math.floor(i / strides[ax]!) % n)));
}

/**
 * np.cov (NumPy's lib/_function_base_impl.py) in float64: the variables are rows (columns when not
 * `rowvar`), `y`'s appended; each is centred on its mean (NumPy's pairwise sum), and C = X Xᵀ · (1 / fact)
 * with fact = observations − ddof (ddof: 1, or 0 when `bias`). A single variable gives a 0-d array.
 */
export function ndCov(m: PyValue, y: PyValue, rowvar: boolean, bias: boolean, ddof: number | null, span: A.Span): NdArray {
  const rows = (v: PyValue, what: string): NdArray => {
    const x = ndAstype(ndFrom(v, span), 'float64');
    if (x.shape.length > 2) throw new CompileError(`ValueError: ${what} has more than 2 dimensions`, span);
    const x2 = x.shape.length === 2 ? x : new NdArray([1, x.data.length], 'float64', x.data);
    return !rowvar && x2.shape[0] !== 1 ? ndTranspose(x2, null) : x2;
  };
  const parts = [rows(m, 'm'), ...(y === null ? [] : [rows(y, 'y')])];
  const n = parts[0]!.shape[1]!;
  if (parts.some((p) => p.shape[1] !== n)) throw new CompileError('ValueError: all the input array dimensions except for the concatenation axis must match exactly', span);
  const vars = parts.flatMap((p) => range(p.shape[0]!).map((i) => p.data.slice(i * n, (i + 1) * n)));
  const centred = vars.map((row) => {
    const mean = pairwiseSum(row, false) / n;
    return row.map((v) => v - mean);
  });
  const fact = Math.max(n - (ddof ?? (bias ? 0 : 1)), 0);
  const scale = 1 / fact;
  const data = centred.flatMap((a) => centred.map((b) => a.reduce((s, v, t) => s + v * b[t]!, 0) * scale));
  return new NdArray(vars.length === 1 ? [] : [vars.length, vars.length], 'float64', data);
}

/** np.corrcoef: np.cov divided by the standard deviations of both variables, clipped to [-1, 1]. */
export function ndCorrcoef(x: PyValue, y: PyValue, rowvar: boolean, span: A.Span): NdArray | NpScalar {
  const c = ndCov(x, y, rowvar, false, null, span);
  if (!c.shape.length) return new NpScalar('float64', c.data[0]! / c.data[0]!);
  const k = c.shape[0]!;
  const sd = range(k).map((i) => Math.sqrt(c.data[i * k + i]!));
  return new NdArray(c.shape, 'float64', c.data.map((v, f) => Math.min(1, Math.max(-1, v / sd[Math.floor(f / k)]! / sd[f % k]!))));
}
