// Operations on NdArray, the NumPy arrays computed at compile time (the `np.`
// calls of a lesson; the numpy module itself is lib_numpy.ts): creation,
// reshape, basic indexing and broadcasting arithmetic in NumPy's own dtypes
// (int64, float64). They reach the device as constants.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import { broadcastShapes, sliceIndices, staticNd, type IndexItem } from './arrays.js';
import { NdArray, NpScalar, PyList, PyTuple, typeName, type PyValue } from './values.js';

const prod = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

export function ndFrom(v: PyValue, span: A.Span, dtype?: NdArray['dtype']): NdArray {
  let nd: NdArray | null = v instanceof NdArray ? v : null;
  if (!nd && (v instanceof PyList || v instanceof PyTuple)) {
    const parts = v.items.map((x) => (x instanceof NdArray ? x : null));
    if (parts.length && parts.every((p) => p)) nd = ndStack(parts as NdArray[], 0, span);
    else nd = staticNd(v);
  }
  if (!nd && (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')) nd = staticNd(new PyList([v]));
  if (nd && !(v instanceof NdArray) && (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')) nd = new NdArray([], nd.dtype, nd.data);
  if (!nd) throw new CompileError(`np.array of ${typeName(v)} is not supported at compile time`, span);
  return dtype && dtype !== nd.dtype ? ndAstype(nd, dtype) : nd;
}

export function ndAstype(x: NdArray, dtype: NdArray['dtype']): NdArray {
  const conv = dtype.startsWith('int') ? Math.trunc : dtype === 'bool' ? (v: number) => (v ? 1 : 0) : dtype === 'float32' ? Math.fround : (v: number) => v;
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
  const dtype = items.some((x) => x.dtype.startsWith('float')) ? 'float64' : items[0]!.dtype;
  return new NdArray([items.length, ...s0], dtype, items.flatMap((x) => x.data));
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
    else {
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
