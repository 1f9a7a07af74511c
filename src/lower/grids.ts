// np.mgrid / np.ogrid and jnp.mgrid / jnp.ogrid: index objects whose slices describe grids
// (np.mgrid[0:1:30j, 0:2]). A complex step is a number of points, the end included. NumPy's
// grids are computed at compile time as its nd_grid does (indices * step + start, in the
// result type of the bounds); JAX's are jnp.linspace / jnp.arange pieces through jnp.meshgrid.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { PySlice } from './interp.js';
import { NdArray, PyComplex, PyList, PyModule, PyObject, PyTuple, type PyValue } from './values.js';

export class PyGridIndexer extends PyObject {
  readonly typeName: string;
  constructor(
    /** ogrid: arrays shaped to broadcast against each other, not one dense stack. */
    readonly sparse: boolean,
    /** jnp's (JAX arrays) rather than NumPy's (compile-time NumPy arrays). */
    readonly jax: boolean,
  ) {
    super();
    this.typeName = jax ? (sparse ? '_Ogrid' : '_Mgrid') : sparse ? 'OGridClass' : 'MGridClass';
  }
}

/** One slice of a grid: its bounds as numbers, whether the step counts points, and whether a bound is a float. */
interface GridSlice {
  start: number;
  stop: number;
  step: number;
  points: boolean;
  float: boolean;
}

function gridSlice(s: PyValue, span: A.Span): GridSlice {
  if (!(s instanceof PySlice)) throw new CompileError('TypeError: a grid index takes slices (np.mgrid[0:5, 0:1:10j])', span);
  const raw: PyValue[] = s.values ? [...s.values] : [s.start === null ? null : BigInt(s.start), s.stop === null ? null : BigInt(s.stop), s.step === null ? null : BigInt(s.step)];
  const num = (v: PyValue, dflt: number): number => {
    if (v === null) return dflt;
    if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
    if (typeof v === 'number') return v;
    if (v instanceof PyComplex) return Math.hypot(v.re, v.im);
    throw new CompileError(`TypeError: unsupported grid bound of type ${v === null ? 'None' : typeof v}`, span);
  };
  if (raw[1] === null) throw new CompileError("TypeError: unsupported operand type(s) for -: 'NoneType' and 'int'", span);
  return {
    start: num(raw[0]!, 0),
    stop: num(raw[1]!, 0),
    step: num(raw[2]!, 1),
    points: raw[2] instanceof PyComplex,
    float: raw.some((v) => typeof v === 'number' || v instanceof PyComplex),
  };
}

/** `grid[key]`: NumPy's or JAX's arrays. */
export function gridIndex(ip: Interp, g: PyGridIndexer, key: PyValue, jnp: PyModule, span: A.Span): PyValue {
  const tuple = key instanceof PyTuple && !key.cls;
  const slices = (tuple ? key.items : [key]).map((k) => gridSlice(ip.static(k, 'a grid slice', span), span));
  return g.jax ? jaxGrid(ip, g.sparse, tuple, slices, jnp, span) : numpyGrid(g.sparse, tuple, slices);
}

/** NumPy's nd_grid.__getitem__, at compile time. */
function numpyGrid(sparse: boolean, tuple: boolean, slices: GridSlice[]): PyValue {
  const float = slices.some((s) => s.float);
  const dtype = float ? 'float64' : 'int64';
  // the spacing of a counted grid: (stop - start) / (n - 1), or 1 for one point
  const spacing = (s: GridSlice): number => (s.points ? (Math.trunc(s.step) !== 1 ? (s.stop - s.start) / (Math.trunc(s.step) - 1) : 1) : s.step);
  const size = (s: GridSlice): number => (s.points ? Math.trunc(s.step) : Math.max(0, Math.ceil((s.stop - s.start) / s.step)));
  const value = (s: GridSlice, i: number): number => i * spacing(s) + s.start;
  if (!tuple) {
    const s = slices[0]!;
    if (s.points) return new NdArray([size(s)], dtype, Array.from({ length: size(s) }, (_, i) => value(s, i)));
    return new NdArray([size(s)], dtype, Array.from({ length: size(s) }, (_, i) => s.start + i * s.step));
  }
  const sizes = slices.map(size);
  if (sparse) {
    return new PyTuple(slices.map((s, k) => new NdArray(sizes.map((n, j) => (j === k ? n : 1)), dtype, Array.from({ length: sizes[k]! }, (_, i) => value(s, i)))));
  }
  const total = sizes.reduce((a, b) => a * b, 1);
  const strides = sizes.map((_, k) => sizes.slice(k + 1).reduce((a, b) => a * b, 1));
  const data: number[] = [];
  slices.forEach((s, k) => {
    for (let f = 0; f < total; f++) data.push(value(s, Math.floor(f / strides[k]!) % sizes[k]!));
  });
  return new NdArray([slices.length, ...sizes], dtype, data);
}

/** JAX's _Mgrid / _Ogrid: jnp.linspace (counted) or jnp.arange pieces, through jnp.meshgrid(indexing='ij'). */
function jaxGrid(ip: Interp, sparse: boolean, tuple: boolean, slices: GridSlice[], jnp: PyModule, span: A.Span): PyValue {
  const call = (name: string, args: PyValue[], kwargs: [string, PyValue][] = []): PyValue => ip.call(jnp.attrs.get(name)!, { args, kwargs: new Map(kwargs), span });
  const bound = (x: number, float: boolean): PyValue => (float || !Number.isInteger(x) ? x : BigInt(x));
  const piece = (s: GridSlice): PyValue =>
    s.points ? call('linspace', [bound(s.start, true), bound(s.stop, true), BigInt(Math.trunc(s.step))]) : call('arange', [bound(s.start, s.float), bound(s.stop, s.float), bound(s.step, s.float)]);
  if (!tuple) return piece(slices[0]!);
  const pieces = slices.map(piece);
  const grids = call('meshgrid', pieces, [['indexing', 'ij'], ['sparse', sparse]]);
  if (sparse) return grids;
  const items = grids instanceof PyList || grids instanceof PyTuple ? grids.items : [grids];
  const dtype = call('result_type', items);
  return call('stack', [new PyList(items.map((x) => call('asarray', [x], [['dtype', dtype]])))], [['axis', 0n]]);
}

/**
 * jnp.s_ / jnp.index_exp / jnp.r_ / jnp.c_: objects whose subscript is the value (an index
 * expression, or JAX's _AxisConcat concatenation of slices, scalars and arrays); `get` computes it.
 */
export class PyIndexTrick extends PyObject {
  constructor(
    readonly typeName: string,
    readonly get: (key: PyValue, span: A.Span) => PyValue,
  ) {
    super();
  }
}
