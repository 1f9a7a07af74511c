// jax.lax functions written over other primitives: population_count and clz
// (bit arithmetic), the special functions
// jax.scipy.special already composes (lgamma, digamma, erfc), argmax/argmin,
// the in-dim slicing helpers, dynamic_update_slice (a clamped scatter, XLA's
// semantics), associative_scan and cummax/cummin over it (max and min are
// exact in any order, and JAX differentiates the scan) and the monoid
// reductions (reduce, reduce_and/or/xor).
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import type { Prim } from '../ir/prims.js';
import { iterate } from './expr.js';
import { arg, dtypeArg, shapeArgs } from './modules.js';
import { truthy } from './pyops.js';
import { flatten } from './transforms.js';
import { PyBuiltin, PyTuple, type CallArgs, type PyValue, type Tracer } from './values.js';

export function laxExtraFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const o = ip.ops;
  const A = (v: PyValue, span: Span): Tracer => o.asArray(v, span);
  const call = (module: string, name: string, c: CallArgs): PyValue => {
    const f = ip.library.importModule(module, c.span).attrs.get(name);
    if (!(f instanceof PyBuiltin)) throw new Error(`internal: ${module}.${name} is missing`);
    return f.fn(c);
  };
  const floatOnly = (name: string, c: CallArgs): void => {
    const x = A(arg(c, 0, 'x'), c.span);
    if (x.aval.dtype !== 'float32') throw new CompileError(`TypeError: ${name} does not accept dtype ${x.aval.dtype}. Accepted dtypes are subtypes of floating.`, c.span);
  };
  const special = (name: string, as: string) => (c: CallArgs): PyValue => {
    floatOnly(name, c);
    return call('jax.scipy.special', as, c);
  };
  const axisOf = (v: PyValue, rank: number, span: Span): number => {
    const a = Number(ip.static(v, 'axis', span));
    if (a < -rank || a >= rank) throw new CompileError(`ValueError: axis ${a} is out of bounds for array of dimension ${rank}`, span);
    return a < 0 ? a + rank : a;
  };
  /** JAX's _dynamic_slice_indices: a negative start counts from the end (XLA clamps after). */
  const startIndex = (s: PyValue, n: number, span: Span): Tracer => {
    if (typeof s === 'bigint') return o.asArray(s < 0n ? s + BigInt(n) : s, span, 'int32');
    const t = o.convert(A(s, span), 'int32', span);
    return o.select(o.compare('lt', t, 0n, span), o.binary('add', t, BigInt(n), span), t, span);
  };
  const dynamicUpdateSlice = (x: Tracer, update: Tracer, starts: PyValue[], span: Span): Tracer => {
    const r = x.aval.shape.length;
    if (starts.length !== r) throw new CompileError(`TypeError: dynamic_update_slice: number of start indices (${starts.length}) must match the rank of the operand (${r})`, span);
    if (update.aval.shape.length !== r || update.aval.shape.some((d, i) => d > x.aval.shape[i]!)) {
      throw new CompileError(`TypeError: dynamic_update_slice update shape must be smaller than operand shape, got update shape (${update.aval.shape.join(', ')}) for operand shape (${x.aval.shape.join(', ')}).`, span);
    }
    if (update.aval.dtype !== x.aval.dtype) throw new CompileError(`TypeError: dynamic_update_slice update and operand dtypes must match, got ${x.aval.dtype} and ${update.aval.dtype}.`, span);
    const idx = o.stack(starts.map((s, i) => startIndex(s, x.aval.shape[i]!, span)), 0, span, 'int32');
    const dims = x.aval.shape.map((_, i) => i);
    return o.tracer(o.bind('scatter', [x.atom, idx.atom, update.atom], {
      dimension_numbers: { update_window_dims: dims, inserted_window_dims: [], scatter_dims_to_operand_dims: dims, operand_batching_dims: [], scatter_indices_batching_dims: [] },
      indices_are_sorted: true, unique_indices: true, mode: 'clip', update_jaxpr: null, update_consts: [],
    }, span));
  };
  const sliceIn = (x: Tracer, axis: number, start: number, limit: number, span: Span): Tracer =>
    o.tracer(o.bind('slice', [x.atom], { start_indices: x.aval.shape.map((_, i) => (i === axis ? start : 0)), limit_indices: x.aval.shape.map((d, i) => (i === axis ? limit : d)), strides: null }, span));
  const sliceDim = (x: Tracer, axis: number, start: number, limit: number, stride: number, span: Span): Tracer =>
    o.tracer(o.bind('slice', [x.atom], {
      start_indices: x.aval.shape.map((_, i) => (i === axis ? start : 0)),
      limit_indices: x.aval.shape.map((d, i) => (i === axis ? Math.max(start, limit) : d)),
      strides: stride === 1 ? null : x.aval.shape.map((_, i) => (i === axis ? stride : 1)),
    }, span));
  /** JAX's _interleave: a's elements at the even positions along `axis`, b's at the odd ones. */
  const interleave = (a: Tracer, b: Tracer, axis: number, span: Span): Tracer => {
    const same = a.aval.shape[axis] === b.aval.shape[axis];
    const cfg = (x: Tracer, lo: number, hi: number) => x.aval.shape.map((_, i) => (i === axis ? [lo, hi, 1] : [0, 0, 0]));
    const zero = (x: Tracer) => o.asArray(0, span, x.aval.dtype).atom;
    const ap = o.tracer(o.bind('pad', [a.atom, zero(a)], { padding_config: cfg(a, 0, same ? 1 : 0) }, span));
    const bp = o.tracer(o.bind('pad', [b.atom, zero(b)], { padding_config: cfg(b, 1, same ? 0 : 1) }, span));
    return o.tracer(o.bind(a.aval.dtype === 'bool' ? 'or' : 'add', [ap.atom, bp.atom], {}, span));
  };
  /** JAX's associative_scan (lax/control_flow/loops.py): the parallel prefix scan, slice for slice. */
  const associativeScan = (fn: (a: Tracer[], b: Tracer[]) => Tracer[], elems: Tracer[], reverse: boolean, axis: number, span: Span): Tracer[] => {
    const rev = (x: Tracer) => o.tracer(o.bind('rev', [x.atom], { dimensions: [axis] }, span));
    const scan = (xs: Tracer[]): Tracer[] => {
      const n = xs[0]!.aval.shape[axis]!;
      if (n < 2) return xs;
      const reduced = fn(xs.map((e) => sliceDim(e, axis, 0, n - 1, 2, span)), xs.map((e) => sliceDim(e, axis, 1, n, 2, span)));
      const odd = scan(reduced);
      let even = n % 2 === 0
        ? fn(odd.map((e) => sliceDim(e, axis, 0, e.aval.shape[axis]! - 1, 1, span)), xs.map((e) => sliceDim(e, axis, 2, n, 2, span)))
        : fn(odd, xs.map((e) => sliceDim(e, axis, 2, n, 2, span)));
      even = xs.map((e, k) => o.concatenate([sliceDim(e, axis, 0, 1, 1, span), even[k]!], axis, span));
      return even.map((e, k) => interleave(e, odd[k]!, axis, span));
    };
    const out = scan(reverse ? elems.map(rev) : elems);
    return reverse ? out.map(rev) : out;
  };
  /** cummax / cummin: the prefix scan of lax.max / lax.min (exact; its JVP is the one JAX differentiates, ties shared). */
  const cumulative = (which: 'max' | 'min') => (c: CallArgs): PyValue => {
    const x = A(arg(c, 0, 'operand'), c.span);
    if (x.aval.dtype === 'bool') throw new CompileError(`TypeError: cum${which} does not accept dtype bool. Accepted dtypes are subtypes of number.`, c.span);
    const axis = axisOf(arg(c, 1, 'axis', 0n), x.aval.shape.length, c.span);
    const reverse = truthy(arg(c, 2, 'reverse', false), c.span);
    return associativeScan(([a], [b]) => [o.tracer(o.bind(which, [a!.atom, b!.atom], {}, c.span))], [x], reverse, axis, c.span)[0]!;
  };
  /** lax.reduce_and / _or / _xor over `axes` of a bool or integer operand. */
  const bitReduce = (name: string, prim: 'and' | 'or' | 'xor') => (c: CallArgs): PyValue => {
    const x = A(arg(c, 0, 'operand'), c.span);
    if (x.aval.dtype === 'float32') throw new CompileError(`TypeError: ${name} does not accept dtype float32. Accepted dtypes are subtypes of bool, integer.`, c.span);
    const axes = shapeArgs([arg(c, 1, 'axes')], c.span).map((a) => (a < 0 ? a + x.aval.shape.length : a));
    if (x.aval.dtype === 'bool' && prim !== 'xor') {
      // all / any: min / max of the bools as integers
      const asInt = o.convert(x, 'int32', c.span);
      const red = o.reduce(prim === 'and' ? 'reduce_min' : 'reduce_max', asInt, new PyTuple(axes.map(BigInt)), false, c.span);
      return o.convert(red, 'bool', c.span);
    }
    // a fold along each reduced axis, one slice at a time
    let acc = x;
    for (const a of [...axes].sort((p, q) => q - p)) {
      const n = acc.aval.shape[a]!;
      const squeeze = (t: Tracer): Tracer => o.reshape(t, t.aval.shape.filter((_, i) => i !== a), c.span);
      if (n === 0) {
        const shape = acc.aval.shape.filter((_, i) => i !== a);
        acc = o.full(shape, prim === 'and' ? -1 : 0, acc.aval.dtype, c.span);
        continue;
      }
      let r = squeeze(sliceIn(acc, a, 0, 1, c.span));
      for (let k = 1; k < n; k++) r = o.tracer(o.bind(prim, [r.atom, squeeze(sliceIn(acc, a, k, k + 1, c.span)).atom], {}, c.span));
      acc = r;
    }
    return acc;
  };

  /** An integer operand's 32 bits as uint32, and the way back to its dtype. */
  const bits = (c: CallArgs, name: string): { u: Tracer; back: (t: Tracer) => Tracer } => {
    const x = A(arg(c, 0, 'x'), c.span);
    if (x.aval.dtype !== 'int32' && x.aval.dtype !== 'uint32') throw new CompileError(`TypeError: ${name} does not accept dtype ${x.aval.dtype}. Accepted dtypes are subtypes of integer.`, c.span);
    const dtype = x.aval.dtype;
    return { u: dtype === 'uint32' ? x : o.bitcast(x, 'uint32', c.span), back: (t) => (dtype === 'uint32' ? t : o.bitcast(t, dtype, c.span)) };
  };
  const bin = (prim: Prim, a: Tracer, b: number | Tracer, span: Span): Tracer =>
    o.tracer(o.bind(prim, [a.atom, typeof b === 'number' ? o.tracer(o.broadcastTo(o.asArray(BigInt(b), span, 'uint32').atom, a.aval.shape, span)).atom : b.atom], {}, span));

  return {
    // the bit counts, as XLA expands them on a backend without the instruction (SWAR sums; a binary search for clz)
    population_count: (c) => {
      const { u, back } = bits(c, 'population_count');
      const s = c.span;
      let x = bin('sub', u, bin('and', bin('shift_right_logical', u, 1, s), 0x55555555, s), s);
      x = bin('add', bin('and', x, 0x33333333, s), bin('and', bin('shift_right_logical', x, 2, s), 0x33333333, s), s);
      x = bin('and', bin('add', x, bin('shift_right_logical', x, 4, s), s), 0x0f0f0f0f, s);
      x = bin('add', x, bin('shift_right_logical', x, 8, s), s);
      x = bin('add', x, bin('shift_right_logical', x, 16, s), s);
      return back(bin('and', x, 0x3f, s));
    },
    clz: (c) => {
      const { u, back } = bits(c, 'clz');
      const s = c.span;
      let x = u;
      let n = o.tracer(o.broadcastTo(o.asArray(0n, s, 'uint32').atom, u.aval.shape, s));
      for (const [k, mask] of [[16, 0xffff0000], [8, 0xff000000], [4, 0xf0000000], [2, 0xc0000000], [1, 0x80000000]] as const) {
        const zero = o.compare('eq', bin('and', x, mask, s), o.tracer(o.broadcastTo(o.asArray(0n, s, 'uint32').atom, u.aval.shape, s)), s);
        n = o.select(zero, bin('add', n, k, s), n, s);
        x = o.select(zero, bin('shift_left', x, k, s), x, s);
      }
      const none = o.compare('eq', x, o.tracer(o.broadcastTo(o.asArray(0n, s, 'uint32').atom, u.aval.shape, s)), s);
      return back(o.select(none, bin('add', n, 1, s), n, s));
    },
    associative_scan: (c) => {
      const fn = arg(c, 0, 'fn');
      const elemsV = arg(c, 1, 'elems');
      const reverse = truthy(arg(c, 2, 'reverse', false), c.span);
      const flat = flatten(elemsV);
      const leaves = flat.leaves.map((l) => A(l, c.span));
      if (!leaves.length) throw new CompileError('ValueError: Must have at least one element', c.span);
      const axis = axisOf(arg(c, 3, 'axis', 0n), leaves[0]!.aval.shape.length, c.span);
      const n = leaves[0]!.aval.shape[axis]!;
      if (leaves.some((l) => l.aval.shape[axis] !== n)) throw new CompileError('ValueError: Array inputs to associative_scan must have the same first dimension.', c.span);
      const combine = (a: Tracer[], b: Tracer[]): Tracer[] => {
        const out = ip.call(fn, { args: [flat.unflatten(a), flat.unflatten(b)], kwargs: new Map(), span: c.span });
        return flatten(out).leaves.map((l) => A(l, c.span));
      };
      return flat.unflatten(associativeScan(combine, leaves, reverse, axis, c.span));
    },
    lgamma: special('lgamma', 'gammaln'),
    digamma: special('digamma', 'digamma'),
    erfc: special('erfc', 'erfc'),
    argmax: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 1, 'axis'), x.aval.shape.length, c.span);
      const dtype = dtypeArg(arg(c, 2, 'index_dtype'), c.span) ?? 'int32';
      const out = call('jax.numpy', 'argmax', { args: [x, BigInt(axis)], kwargs: new Map(), span: c.span });
      return o.convert(A(out, c.span), dtype, c.span);
    },
    argmin: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 1, 'axis'), x.aval.shape.length, c.span);
      const dtype = dtypeArg(arg(c, 2, 'index_dtype'), c.span) ?? 'int32';
      const out = call('jax.numpy', 'argmin', { args: [x, BigInt(axis)], kwargs: new Map(), span: c.span });
      return o.convert(A(out, c.span), dtype, c.span);
    },
    cummax: cumulative('max'),
    cummin: cumulative('min'),
    reduce_and: bitReduce('reduce_and', 'and'),
    reduce_or: bitReduce('reduce_or', 'or'),
    reduce_xor: bitReduce('reduce_xor', 'xor'),
    // lax.reduce with a monoid JAX recognizes (lax.add, lax.mul, lax.max, lax.min) and its identity
    reduce: (c) => {
      const x = A(arg(c, 0, 'operands'), c.span);
      const initV = ip.static(arg(c, 1, 'init_values'), 'reduce init_values', c.span);
      const comp = arg(c, 2, 'computation');
      const axes = new PyTuple(shapeArgs([arg(c, 3, 'dimensions')], c.span).map(BigInt));
      const lax = ip.library.importModule('jax.lax', c.span).attrs;
      const init = typeof initV === 'bigint' ? Number(initV) : typeof initV === 'number' ? initV : typeof initV === 'boolean' ? Number(initV) : NaN;
      const isF = x.aval.dtype === 'float32';
      const table: [string, 'reduce_sum' | 'reduce_prod' | 'reduce_max' | 'reduce_min', number][] = [
        ['add', 'reduce_sum', 0], ['mul', 'reduce_prod', 1], ['max', 'reduce_max', isF ? -Infinity : -2147483648], ['min', 'reduce_min', isF ? Infinity : 2147483647],
      ];
      for (const [name, prim, identity] of table) {
        if (comp === lax.get(name) && init === identity) return o.reduce(prim, x, axes, false, c.span);
      }
      throw new CompileError('NotImplementedError: jaxts supports lax.reduce with lax.add, lax.mul, lax.max or lax.min and its identity as init_values', c.span);
    },
    index_in_dim: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 2, 'axis', 0n), x.aval.shape.length, c.span);
      const n = x.aval.shape[axis]!;
      let i = Number(ip.static(arg(c, 1, 'index'), 'index', c.span));
      if (i < 0) i += n;
      if (i < 0 || i >= n) throw new CompileError(`IndexError: index ${i} is out of bounds for axis ${axis} with size ${n}`, c.span);
      const s = sliceIn(x, axis, i, i + 1, c.span);
      return truthy(arg(c, 3, 'keepdims', true), c.span) ? s : o.reshape(s, s.aval.shape.filter((_, d) => d !== axis), c.span);
    },
    dynamic_index_in_dim: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 2, 'axis', 0n), x.aval.shape.length, c.span);
      const starts = x.aval.shape.map((_, i) => (i === axis ? startIndex(arg(c, 1, 'index'), x.aval.shape[i]!, c.span) : o.asArray(0n, c.span, 'int32')));
      const s = o.tracer(o.bind('dynamic_slice', [x.atom, ...starts.map((t) => t.atom)], { slice_sizes: x.aval.shape.map((d, i) => (i === axis ? 1 : d)) }, c.span));
      return truthy(arg(c, 3, 'keepdims', true), c.span) ? s : o.reshape(s, s.aval.shape.filter((_, d) => d !== axis), c.span);
    },
    dynamic_update_slice: (c) => dynamicUpdateSlice(A(arg(c, 0, 'operand'), c.span), A(arg(c, 1, 'update'), c.span), iterate(ip, arg(c, 2, 'start_indices'), c.span), c.span),
    dynamic_update_slice_in_dim: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 3, 'axis'), x.aval.shape.length, c.span);
      return dynamicUpdateSlice(x, A(arg(c, 1, 'update'), c.span), x.aval.shape.map((_, i) => (i === axis ? arg(c, 2, 'start_index') : 0n)), c.span);
    },
    dynamic_update_index_in_dim: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const axis = axisOf(arg(c, 3, 'axis'), x.aval.shape.length, c.span);
      let u = A(arg(c, 1, 'update'), c.span);
      if (u.aval.shape.length === x.aval.shape.length - 1) u = o.expandDims(u, axis, c.span);
      return dynamicUpdateSlice(x, u, x.aval.shape.map((_, i) => (i === axis ? arg(c, 2, 'index') : 0n)), c.span);
    },
    collapse: (c) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const r = x.aval.shape.length;
      const start = axisOf(arg(c, 1, 'start_dimension'), r, c.span);
      const stopV = arg(c, 2, 'stop_dimension', null);
      const stop = stopV === null ? r : Number(ip.static(stopV, 'stop_dimension', c.span)) < 0 ? Number(ip.static(stopV, 'stop_dimension', c.span)) + r : Number(ip.static(stopV, 'stop_dimension', c.span));
      const s = x.aval.shape;
      return o.reshape(x, [...s.slice(0, start), s.slice(start, stop).reduce((p, d) => p * d, 1), ...s.slice(stop)], c.span);
    },
    broadcast_to_rank: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      const rank = Number(ip.static(arg(c, 1, 'rank'), 'rank', c.span));
      const r = x.aval.shape.length;
      if (r >= rank) return x;
      return o.tracer(o.broadcastTo(x.atom, [...Array<number>(rank - r).fill(1), ...x.aval.shape], c.span));
    },
  };
}
