// conv_general_dilated's transpose and batching rules, written as JAX writes
// them (jax/_src/lax/convolution.py: _conv_general_dilated_transpose_lhs,
// _rhs, _conv_general_dilated_batch_rule) over a `bind` that autodiff's and
// vmap's contexts both provide.
import { convParams, specTranspose, vjpLhsPadding, vjpRhsPadding, type ConvDims, type ConvParams } from '../ir/conv.js';
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
