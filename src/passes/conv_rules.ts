// The windowed primitives' differentiation and batching rules, written as JAX
// writes them (jax/_src/lax/convolution.py: _conv_general_dilated_transpose_lhs,
// _rhs, _conv_general_dilated_batch_rule; windowed_reductions.py) over a `bind`
// that autodiff's and vmap's contexts both provide.
import { lit } from '../ir/builder.js';
import { convParams, specTranspose, vjpLhsPadding, vjpRhsPadding, windowParams, type ConvDims, type ConvParams, type WindowParams } from '../ir/conv.js';
import type { Prim } from '../ir/prims.js';
import type { Atom, AVal, Params } from '../ir/types.js';

export type Bind = (prim: Prim, inputs: Atom[], params: Params) => Atom;

const take = (xs: readonly number[], perm: readonly number[]): number[] => perm.map((i) => xs[i]!);

/** lax.reshape(x, shape) (no-op when the shape is unchanged). */
function reshape(bind: Bind, x: Atom, shape: number[]): Atom {
  const s = x.aval.shape;
  if (s.length === shape.length && s.every((d, i) => d === shape[i])) return x;
  return bind('reshape', [x], { new_sizes: shape, dimensions: null });
}

/** JAX's _reshape_axis_into: axis `src` merged into axis `dst` (of the array without `src`), as its major part. */
export function reshapeAxisInto(bind: Bind, src: number, dst: number, x: Atom): Atom {
  const rank = x.aval.shape.length;
  const perm = [...Array(rank).keys()].filter((i) => i !== src);
  perm.splice(dst, 0, src);
  const newShape = x.aval.shape.filter((_, i) => i !== src);
  newShape[dst] = newShape[dst]! * x.aval.shape[src]!;
  const t = perm.every((p, i) => p === i) ? x : bind('transpose', [x], { permutation: perm });
  return reshape(bind, t, newShape);
}

/** JAX's _reshape_axis_out_of: axis `src` split into (size1, rest). */
export function reshapeAxisOutOf(bind: Bind, src: number, size1: number, x: Atom): Atom {
  const shape = [...x.aval.shape];
  shape.splice(src, 1, size1, shape[src]! / size1);
  return reshape(bind, x, shape);
}

const conv = (bind: Bind, lhs: Atom, rhs: Atom, p: ConvParams): Atom => bind('conv_general_dilated', [lhs, rhs], p as unknown as Params);

/** JAX's _conv_general_dilated_transpose_lhs: the cotangent of lhs (shaped `lhs`) from g. */
export function convTransposeLhs(bind: Bind, g: Atom, lhs: AVal, rhsIn: Atom, params: Params): Atom {
  const p = convParams(params);
  const { lhs_spec, rhs_spec, out_spec } = p.dimension_numbers;
  const rhsShape = rhsIn.aval.shape;
  let rhs = rhsIn;
  let fg = p.feature_group_count;
  const bg = p.batch_group_count;
  if (fg > 1) {
    rhs = reshapeAxisOutOf(bind, rhs_spec[0]!, fg, rhs);
    rhs = reshapeAxisInto(bind, rhs_spec[0]!, rhs_spec[1]!, rhs);
  } else if (bg > 1) {
    rhs = reshapeAxisOutOf(bind, rhs_spec[0]!, bg, rhs);
    rhs = reshapeAxisInto(bind, rhs_spec[0]!, rhs_spec[1]!, rhs);
    fg = bg;
  }
  const dims: ConvDims = { lhs_spec: out_spec, rhs_spec: specTranspose(rhs_spec), out_spec: lhs_spec };
  const padding = vjpLhsPadding(
    take(lhs.shape, lhs_spec.slice(2)), take(rhsShape, rhs_spec.slice(2)), p.window_strides,
    take(g.aval.shape, out_spec.slice(2)), p.padding, p.lhs_dilation, p.rhs_dilation,
  );
  const revd = bind('rev', [rhs], { dimensions: rhs_spec.slice(2) });
  let out = conv(bind, g, revd, {
    ...p, window_strides: p.lhs_dilation, padding, lhs_dilation: p.window_strides, rhs_dilation: p.rhs_dilation,
    dimension_numbers: dims, feature_group_count: fg, batch_group_count: 1,
  });
  if (bg > 1) {
    out = reshapeAxisOutOf(bind, lhs_spec[1]!, bg, out);
    out = reshapeAxisInto(bind, lhs_spec[1]!, lhs_spec[0]!, out);
  }
  return out;
}

/** JAX's _conv_general_dilated_transpose_rhs: the cotangent of rhs (shaped `rhs`) from g; null where g is empty (JAX's Zero). */
export function convTransposeRhs(bind: Bind, g: Atom, lhs: Atom, rhs: AVal, params: Params): Atom | null {
  if (g.aval.shape.some((d) => d === 0)) return null;
  const p = convParams(params);
  const { lhs_spec, rhs_spec, out_spec } = p.dimension_numbers;
  let fg = p.feature_group_count;
  let bg = p.batch_group_count;
  if (bg > 1) {
    fg = bg;
    bg = 1;
  } else if (fg > 1) {
    bg = fg;
    fg = 1;
  }
  const dims: ConvDims = { lhs_spec: specTranspose(lhs_spec), rhs_spec: specTranspose(out_spec), out_spec: specTranspose(rhs_spec) };
  const padding = vjpRhsPadding(
    take(lhs.aval.shape, lhs_spec.slice(2)), take(rhs.shape, rhs_spec.slice(2)), p.window_strides,
    take(g.aval.shape, out_spec.slice(2)), p.padding, p.lhs_dilation, p.rhs_dilation,
  );
  return conv(bind, lhs, g, {
    ...p, window_strides: p.rhs_dilation, padding, lhs_dilation: p.lhs_dilation, rhs_dilation: p.window_strides,
    dimension_numbers: dims, feature_group_count: fg, batch_group_count: bg,
  });
}

/** A batched operand: its atom and the axis of its batch dimension (null: unbatched). */
export interface BatchedArg {
  atom: Atom;
  bdim: number | null;
}

/** JAX's _conv_general_dilated_batch_rule: the batched conv and the axis of its result's batch dimension. */
export function convBatch(bind: Bind, [l, r]: [BatchedArg, BatchedArg], params: Params): { atom: Atom; bdim: number } {
  const p = convParams(params);
  const { lhs_spec, rhs_spec, out_spec } = p.dimension_numbers;
  const lhs = l.atom;
  const rhs = r.atom;
  if (l.bdim !== null && r.bdim !== null) {
    const size = lhs.aval.shape[l.bdim]!;
    let newLhs: Atom;
    let { feature_group_count: fg, batch_group_count: bg } = p;
    if (bg > 1) {
      newLhs = reshapeAxisInto(bind, l.bdim, lhs_spec[0]!, lhs);
      bg *= size;
    } else {
      newLhs = reshapeAxisInto(bind, l.bdim, lhs_spec[1]!, lhs);
      fg *= size;
    }
    const newRhs = reshapeAxisInto(bind, r.bdim, rhs_spec[0]!, rhs);
    const out = conv(bind, newLhs, newRhs, { ...p, feature_group_count: fg, batch_group_count: bg });
    return { atom: reshapeAxisOutOf(bind, out_spec[1]!, size, out), bdim: out_spec[1]! };
  }
  if (l.bdim !== null) {
    const b = l.bdim;
    const size = lhs.aval.shape[b]!;
    if (p.batch_group_count === 1) {
      const newLhs = reshapeAxisInto(bind, b, lhs_spec[0]!, lhs);
      const out = conv(bind, newLhs, rhs, p);
      return { atom: reshapeAxisOutOf(bind, out_spec[0]!, size, out), bdim: out_spec[0]! };
    }
    let newLhs = reshapeAxisOutOf(bind, lhs_spec[0]! + (b <= lhs_spec[0]! ? 1 : 0), p.batch_group_count, lhs);
    newLhs = reshapeAxisInto(bind, b + (lhs_spec[0]! < b ? 1 : 0), lhs_spec[0]! + 1, newLhs);
    newLhs = reshapeAxisInto(bind, lhs_spec[0]!, lhs_spec[0]!, newLhs);
    const out = conv(bind, newLhs, rhs, p);
    return { atom: reshapeAxisOutOf(bind, out_spec[0]!, size, out), bdim: out_spec[0]! };
  }
  const b = r.bdim!;
  const size = rhs.aval.shape[b]!;
  if (p.feature_group_count === 1 && p.batch_group_count === 1) {
    const newRhs = reshapeAxisInto(bind, b, rhs_spec[0]!, rhs);
    const out = conv(bind, lhs, newRhs, p);
    return { atom: reshapeAxisOutOf(bind, out_spec[1]!, size, out), bdim: out_spec[1]! };
  }
  const groups = p.feature_group_count > 1 ? p.feature_group_count : p.batch_group_count;
  let newRhs = reshapeAxisOutOf(bind, rhs_spec[0]! + (b <= rhs_spec[0]! ? 1 : 0), groups, rhs);
  newRhs = reshapeAxisInto(bind, b + (rhs_spec[0]! < b ? 1 : 0), rhs_spec[0]! + 1, newRhs);
  newRhs = reshapeAxisInto(bind, rhs_spec[0]!, rhs_spec[0]!, newRhs);
  let out = conv(bind, lhs, newRhs, p);
  out = reshapeAxisOutOf(bind, out_spec[1]!, groups, out);
  out = reshapeAxisOutOf(bind, out_spec[1]! + 1, size, out);
  out = reshapeAxisInto(bind, out_spec[1]!, out_spec[1]! + 1, out);
  return { atom: out, bdim: out_spec[1]! };
}

// ------------------------------------------------------------------ reduce_window

/** JAX's _reduce_window_sum_transpose_rule: the cotangent padded (strides as interior padding), then windows summed back. */
export function reduceWindowSumTranspose(bind: Bind, ct: Atom, inShape: readonly number[], params: Params): Atom {
  const p = windowParams(params);
  const pads = vjpLhsPadding([...inShape], p.window_dimensions, p.window_strides, [...ct.aval.shape], p.padding, p.base_dilation, p.window_dilation);
  const config = pads.map(([lo, hi], i) => [lo, hi, p.window_strides[i]! - 1]);
  const padded = bind('pad', [ct, lit(0, ct.aval.dtype)], { padding_config: config });
  const ones = inShape.map(() => 1);
  const out: WindowParams = { window_dimensions: p.window_dimensions, window_strides: p.base_dilation, padding: inShape.map(() => [0, 0]), base_dilation: ones, window_dilation: p.window_dilation };
  return bind('reduce_window_sum', [padded], out as unknown as Params);
}

/**
 * The tangent of reduce_window_max / _min: in each window, the tangent at the
 * element XLA's select_and_gather_add picks — the window scanned in row-major
 * order from (∓inf, 0), an element taken unless the kept one is >= (max) or
 * <= (min) it, so the first extreme wins. Written with pad, slice and select_n,
 * whose rules give its transpose (JAX's select_and_scatter_add).
 */
export function reduceWindowChooserJvp<T extends { aval: AVal }>(op: (prim: Prim, inputs: (T | Atom)[], params?: Params) => T, fn: 'max' | 'min', t: T, x: T, params: Params, outShape: readonly number[]): T {
  const p = windowParams(params);
  const dtype = x.aval.dtype;
  const worst = fn === 'max' ? -Infinity : Infinity;
  const config = p.padding.map(([lo, hi], i) => [lo, hi, p.base_dilation[i]! - 1]);
  const xpad = op('pad', [x, lit(worst, dtype)], { padding_config: config });
  const tpad = op('pad', [t, lit(0, t.aval.dtype)], { padding_config: config });
  const full = (v: number, d: typeof dtype): Atom | T => (outShape.length ? op('broadcast_in_dim', [lit(v, d)], { shape: [...outShape], broadcast_dimensions: [] }) : lit(v, d));
  let bestX: Atom | T = full(worst, dtype);
  let bestT: Atom | T = full(0, t.aval.dtype);
  const extent = p.window_dimensions.reduce((a, b) => a * b, 1);
  for (let k = 0; k < extent; k++) {
    let rest = k;
    const offs = new Array<number>(p.window_dimensions.length);
    for (let d = p.window_dimensions.length - 1; d >= 0; d--) {
      offs[d] = rest % p.window_dimensions[d]!;
      rest = Math.floor(rest / p.window_dimensions[d]!);
    }
    const start = offs.map((o, d) => o * p.window_dilation[d]!);
    const sl = { start_indices: start, limit_indices: start.map((s, d) => s + (outShape[d]! - 1) * p.window_strides[d]! + 1), strides: p.window_strides.every((s) => s === 1) ? null : [...p.window_strides] };
    const xs = op('slice', [xpad], sl);
    const ts = op('slice', [tpad], sl);
    const keep = op(fn === 'max' ? 'ge' : 'le', [bestX, xs]);
    bestX = op('select_n', [keep, xs, bestX]);
    bestT = op('select_n', [keep, ts, bestT]);
  }
  return bestT as T;
}

/** reduce_window batched: a unit window over the batch axis (axis 0). */
export function batchWindowParams(params: Params): Params {
  const p = windowParams(params);
  const out: WindowParams = {
    window_dimensions: [1, ...p.window_dimensions], window_strides: [1, ...p.window_strides], padding: [[0, 0], ...p.padding],
    base_dilation: [1, ...p.base_dilation], window_dilation: [1, ...p.window_dilation],
  };
  return out as unknown as Params;
}

/** Does reduce_window keep dimension d as it is (a unit window, no stride, padding or dilation)? */
export function windowKeeps(params: Params, d: number): boolean {
  const p = windowParams(params);
  return p.window_dimensions[d] === 1 && p.window_strides[d] === 1 && p.padding[d]![0] === 0 && p.padding[d]![1] === 0 && p.base_dilation[d] === 1;
}
