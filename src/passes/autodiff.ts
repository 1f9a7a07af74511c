// Reverse-mode autodiff on the array IR, JAX's way: linearize, then transpose.
//
// `vjpFunc` walks a Func forward once. Each equation is re-bound (its primal
// value) and, when an input carries a tangent, its JVP rule (JVP_RULES, keyed
// by primitive name) records the output tangent as *linear* equations over
// tangent placeholders (`Lin`). Whatever a rule computes from primals only
// (cos x for sin, 1 - ans for tanh) is bound at once as an ordinary equation:
// the residuals, as JAX's linearize gets them by partial evaluation. The
// linear equations are then transposed in reverse order (TRANSPOSE_RULES)
// from a cotangent seed of 1.0 on the first result, fan-out accumulated with
// `add` in JAX's order (existing + new), marked as the add_any JAX prints.
//
// Rules mirror jax/_src/lax/lax.py (special.py, slicing.py, parallel.py)
// operation for operation, so that float32 results match JAX to the ulp. Zero
// tangents and cotangents stay symbolic (null) and cost nothing; a gradient
// that is zero everywhere becomes a broadcast of a literal 0. Where JAX relies
// on implicit rank-0 broadcasting (`mul 2.0:f32[] x`), constants here are
// broadcasts of a literal — the same values.
import { FuncBuilder, lit } from '../ir/builder.js';
import type { DotDims } from '../ir/primitives.js';
import { gatherDimsOf, scatterDimsOf, scatterSliceSizes, type GatherDims, type ScatterDims } from '../ir/indexing.js';
import { shapeRule } from '../ir/primitives.js';
import { isControl, type Prim } from '../ir/prims.js';
import type { Atom, AVal, DType, Eqn, Func, Params, Var } from '../ir/types.js';
import { isInexact } from '../ir/types.js';
import { convTransposeLhs, convTransposeRhs, reduceWindowChooserJvp, reduceWindowSumTranspose } from './conv_rules.js';
import { dce } from './simplify.js';
import { asParams, shardMapParams, specAxes, type Spec } from '../ir/shard_map.js';
import { collectiveAxes, explicitPvary, isAllReduce, vmaOfEqn, vmaOfFunc } from '../ir/vma.js';

/** A tangent (or, in the transpose, the value whose cotangent flows back): a placeholder. */
export interface Lin {
  kind: 'lin';
  id: number;
  aval: AVal;
}
/** A tangent, or null for JAX's symbolic Zero. */
export type Tan = Lin | null;
/** An operand of a linear equation: a tangent, or a primal value (a residual or constant). */
export type LAtom = Atom | Lin;

export interface LinEqn {
  prim: Prim;
  inputs: LAtom[];
  params: Params;
  outputs: Lin[];
  /** The jit region of the equation it is a derivative of (Eqn.jitRegion). */
  jitRegion?: number;
}

export interface JvpCtx {
  /** Bind `prim`: a linear equation when an input is a tangent, else a primal equation now. */
  /** `operandBroadcast`: the equation broadcasts a constant operand of a binary operation (see Eqn.operandBroadcast). */
  op(prim: Prim, inputs: LAtom[], params?: Params, operandBroadcast?: true): LAtom;
  opN(prim: Prim, inputs: LAtom[], params?: Params, operandBroadcast?: true): LAtom[];
  /** The equation being differentiated, bound on its primal inputs (JAX's `primitive.bind(*primals)`). */
  primal(): Atom[];
  /** Run the JVP of another primitive (for rules written in terms of others, like reduce_prod). */
  jvp(prim: Prim, xs: Atom[], ts: Tan[], params: Params): JvpOut;
  /** Tracing over Explicit mesh axes (vjpFunc's seedReshard): JAX's `_one(x)` is a reshard of its literal. */
  explicit?: boolean;
}

export interface JvpOut {
  outs: Atom[];
  tans: Tan[];
}

export type JvpRule = (c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn) => JvpOut;

export interface TransposeCtx {
  /** `mark.transposed`: flag the equation as a transposed dot_general (see Eqn.transposed). */
  bind(prim: Prim, inputs: Atom[], params?: Params, mark?: { transposed?: true; cotangentOf?: Atom }): Atom;
  /** Bind a primitive with several results (control flow). */
  bindN(prim: Prim, inputs: Atom[], params: Params): Atom[];
  /** Bind the equations of `f` on `args` (its custom calls stay: a later differentiation applies their rules). */
  inline(f: Func, args: Atom[]): Atom[];
  /** Tell the caller that a custom_vjp's backward function is applied, with its results (VjpOptions.onBackward). */
  usedBackward?(bwd: Func, outs: Atom[]): void;
  /** The primal value a tangent is the tangent of (same type and sharding), where the linearization knows it. */
  primalOf?(l: LAtom): Atom | undefined;
  /** Mark the last equation bound as laid out like `like` (see Eqn.shardingLike). */
  shardLike?(like: Atom): void;
}

/** Cotangents of a linear equation's inputs (null: none) from those of its outputs. */
export type TransposeRule = (c: TransposeCtx, cts: (Atom | null)[], e: LinEqn) => (Atom | null)[];

const isLin = (a: LAtom | null | undefined): a is Lin => !!a && a.kind === 'lin';

function castValue(v: number, dtype: DType): number {
  if (dtype === 'float32' || dtype === 'complex64') return Math.fround(v); // a complex literal is its real part
  if (dtype === 'bool') return v ? 1 : 0;
  return dtype === 'uint32' ? v >>> 0 : v | 0;
}

type Binder = (prim: Prim, inputs: Atom[], params: Params) => LAtom;

/** A constant shaped like `a` (JAX's `_const(x, v)`, `full_like`): a literal, broadcast unless scalar. */
function full(op: Binder, a: AVal, v: number): Atom {
  const l = lit(castValue(v, a.dtype), a.dtype);
  return a.shape.length ? (op('broadcast_in_dim', [l], { shape: [...a.shape], broadcast_dimensions: [] }) as Atom) : l;
}

// ------------------------------------------------------------------ rule helpers

/** JAX's `ad.defjvp`/`defjvp2`: one rule per input, applied to its nonzero tangent; results summed. */
type PartialJvp = (c: JvpCtx, g: Lin, xs: Atom[], ans: Atom, p: Params) => LAtom | null;

function defjvp(...rules: (PartialJvp | null)[]): JvpRule {
  return (c, xs, ts, e) => {
    const outs = c.primal();
    let acc: Tan = null;
    rules.forEach((r, i) => {
      const t = ts[i];
      if (r && t) acc = addTangents(c, acc, asTan(r(c, t, xs, outs[0]!, e.params)));
    });
    return { outs, tans: [acc] };
  };
}

const asTan = (x: LAtom | null): Tan => (isLin(x) ? x : null);

/** JAX's `add_tangents`. */
function addTangents(c: JvpCtx, a: Tan, b: Tan): Tan {
  if (!a) return b;
  if (!b) return a;
  return c.op('add', [a, b]) as Lin;
}

/** JAX's `ad.deflinear2`: the primitive applied to the tangents (zeros instantiated where mixed). */
const linear: JvpRule = (c, xs, ts, e) => {
  const outs = c.primal();
  if (ts.every((t) => !t)) return { outs, tans: outs.map(() => null) };
  const ins = ts.map((t, i) => t ?? full(c.op, xs[i]!.aval, 0));
  return { outs, tans: c.opN(e.prim, ins, e.params).map(asTan) };
};

/** JAX's `ad.defjvp_zero`. */
const zero: JvpRule = (c) => {
  const outs = c.primal();
  return { outs, tans: outs.map(() => null) };
};

// Shorthands for the primitives rules are written in.
const mul = (c: JvpCtx, a: LAtom, b: LAtom): LAtom => c.op('mul', [a, b]);
const add = (c: JvpCtx, a: LAtom, b: LAtom): LAtom => c.op('add', [a, b]);
const sub = (c: JvpCtx, a: LAtom, b: LAtom): LAtom => c.op('sub', [a, b]);
const div = (c: JvpCtx, a: LAtom, b: LAtom): LAtom => c.op('div', [a, b]);
const neg = (c: JvpCtx, a: LAtom): LAtom => c.op('neg', [a]);
const un = (c: JvpCtx, prim: Prim, a: LAtom): LAtom => c.op(prim, [a]);
const square = (c: JvpCtx, a: LAtom): LAtom => c.op('integer_pow', [a], { y: 2 }); // lax.square lowers to x * x too
/** JAX's `_const(x, v)`: a scalar operand of a binary operation (jaxts broadcasts it; make_jaxpr shows the scalar). */
const k = (c: JvpCtx, like: LAtom, v: number): Atom => full((p, i, q) => c.op(p, i, q, true), like.aval, v);
/**
 * JAX's `_one(x)`: `full_like(x, 1, shape=())` with x's sharding made replicated. Over Explicit mesh axes
 * that is a `reshard` of the literal (make_jaxpr shows it); elsewhere the scalar literal, as `k`.
 */
const one = (c: JvpCtx, like: LAtom): Atom => {
  if (!c.explicit) return k(c, like, 1);
  const s = c.op('sharding_constraint', [lit(castValue(1, like.aval.dtype), like.aval.dtype)], { dims: [], reshard: true }) as Atom;
  return like.aval.shape.length ? (c.op('broadcast_in_dim', [s], { shape: [...like.aval.shape], broadcast_dimensions: [] }, true) as Atom) : s;
};
/** JAX's `_ones(x)`/`full_like(x, v)`: a constant of x's shape (make_jaxpr shows its broadcast). */
const kFull = (c: JvpCtx, like: LAtom, v: number): Atom => full(c.op, like.aval, v);
/** lax.select(pred, on_true, on_false) */
const select = (c: JvpCtx, pred: LAtom, onTrue: LAtom, onFalse: LAtom): LAtom => c.op('select_n', [pred, onFalse, onTrue]);

/** JAX's `_balanced_eq(x, z, y)`: 1 where x == z, halved where y == z too (ties share the gradient). */
function balancedEq(c: JvpCtx, x: Atom, z: Atom, y: Atom): LAtom {
  return div(c, select(c, c.op('eq', [x, z]), k(c, z, 1), k(c, z, 0)), select(c, c.op('eq', [y, z]), k(c, z, 2), k(c, z, 1)));
}

/** JAX's `_replace_zero(x)`: x with zeros replaced by ones. */
const replaceZero = (c: JvpCtx, x: Atom): LAtom => select(c, c.op('eq', [x, k(c, x, 0)]), k(c, x, 1), x);

/** [from, from + 1, …, from + n - 1] */
const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);
const argsort = (xs: readonly number[]): number[] => range(xs.length).sort((a, b) => xs[a]! - xs[b]!);

// ------------------------------------------------------------------ JVP rules

/** JAX's `max_p` rule (also min's): the tangent goes to the chosen operand, split evenly on ties. */
/** `a` broadcast to `like`'s shape when it is a scalar (clamp's bounds). */
const shaped = (c: JvpCtx, a: LAtom, like: LAtom): LAtom =>
  a.aval.shape.length === like.aval.shape.length ? a : c.op('broadcast_in_dim', [a], { shape: [...like.aval.shape], broadcast_dimensions: [] });

const maxJvp = defjvp(
  (c, g, [x, y], ans) => mul(c, g, balancedEq(c, x!, ans, y!)),
  (c, g, [x, y], ans) => mul(c, g, balancedEq(c, y!, ans, x!)),
);

/**
 * One entry per primitive; null: no differentiation rule (JAX has none for
 * pmax/pmin). Integer- and bool-valued results never carry a tangent
 * (vjpFunc skips them): their rule is `zero`.
 */
export const JVP_RULES: Record<Prim, JvpRule | null> = {
  // unary float math: lax.py / special.py
  sin: defjvp((c, g, [x]) => mul(c, g, un(c, 'cos', x!))),
  cos: defjvp((c, g, [x]) => neg(c, mul(c, g, un(c, 'sin', x!)))),
  tan: defjvp((c, g, [x], ans) => mul(c, g, add(c, k(c, x!, 1), square(c, ans)))),
  exp: defjvp((c, g, _xs, ans) => mul(c, g, ans)),
  // log(2) * (g * ans); JAX's log(_const(x, 2)) is a constant, folded to float32 ln 2
  exp2: defjvp((c, g, [x], ans) => mul(c, k(c, x!, Math.LN2), mul(c, g, ans))),
  log: defjvp((c, g, [x]) => div(c, g, x!)),
  log1p: defjvp((c, g, [x]) => div(c, g, add(c, x!, one(c, x!)))),
  expm1: defjvp((c, g, _xs, ans) => mul(c, g, add(c, ans, one(c, ans)))),
  tanh: defjvp((c, g, [x], ans) => mul(c, add(c, g, mul(c, g, ans)), sub(c, one(c, x!), ans))),
  logistic: defjvp((c, g, _xs, ans) => mul(c, g, mul(c, ans, sub(c, one(c, ans), ans)))),
  sqrt: defjvp((c, g, [x], ans) => mul(c, g, div(c, k(c, x!, 0.5), ans))),
  rsqrt: defjvp((c, g, [x], ans) => mul(c, g, mul(c, k(c, x!, -0.5), div(c, ans, x!)))),
  erf: defjvp((c, g, [x]) => mul(c, k(c, x!, 2 / Math.sqrt(Math.PI)), mul(c, g, un(c, 'exp', neg(c, square(c, x!)))))),
  erf_inv: defjvp((c, g, [x], ans) => mul(c, k(c, x!, Math.sqrt(Math.PI) / 2), mul(c, g, un(c, 'exp', square(c, ans))))),

  neg: linear,
  copy: linear,
  // the tangent is laid out as the primal (JAX's rule for sharding_constraint and reshard)
  sharding_constraint: linear,
  sign: zero,
  floor: zero,
  ceil: zero,
  round: zero,
  is_finite: zero,
  not: zero,
  // float-valued, but its tangent is zero by definition
  stop_gradient: zero,
  // JAX's _abs_jvp_rule: real(g * conj(x) / replace_zero(complex(ans))) for a complex x
  abs: defjvp((c, g, [x], ans) =>
    x!.aval.dtype === 'complex64'
      ? un(c, 'real', mul(c, g, div(c, un(c, 'conj', x!), replaceZero(c, c.op('convert_element_type', [ans], { new_dtype: 'complex64', weak_type: false }) as Atom))))
      : select(c, c.op('ge', [x!, k(c, x!, 0)]), g, neg(c, g))),
  // complex numbers: all linear (JAX's deflinear2)
  complex: linear,
  real: linear,
  imag: linear,
  conj: linear,

  integer_pow: defjvp((c, g, [x], _ans, p) => {
    const y = p['y'] as number;
    if (y === 0) return null;
    if (y === 1) return g;
    if (y === 2) return mul(c, g, mul(c, k(c, x!, y), x!));
    return mul(c, g, mul(c, k(c, x!, y), c.op('integer_pow', [x!], { y: y - 1 })));
  }),

  convert_element_type: (c, xs, ts, e) => {
    const outs = c.primal();
    const to = e.params['new_dtype'] as DType;
    if (!ts[0] || !isInexact(to) || !isInexact(xs[0]!.aval.dtype)) return { outs, tans: [null] };
    return { outs, tans: [asTan(c.op('convert_element_type', [ts[0]], e.params))] };
  },
  bitcast_convert_type: zero,

  // binary arithmetic
  add: (c, _xs, [xd, yd]) => {
    const outs = c.primal();
    if (xd && yd) return { outs, tans: [c.op('add', [xd, yd]) as Lin] };
    return { outs, tans: [xd ?? yd ?? null] };
  },
  sub: (c, _xs, [xd, yd]) => {
    const outs = c.primal();
    if (xd && yd) return { outs, tans: [c.op('sub', [xd, yd]) as Lin] };
    return { outs, tans: [xd ?? (yd ? (neg(c, yd) as Lin) : null)] };
  },
  mul: defjvp(
    (c, g, [, y]) => mul(c, g, y!),
    (c, g, [x]) => mul(c, x!, g),
  ),
  div: defjvp(
    (c, g, [, y]) => div(c, g, y!),
    (c, g, [x, y]) => mul(c, mul(c, neg(c, g), x!), c.op('integer_pow', [y!], { y: -2 })),
  ),
  rem: defjvp(
    (_c, g) => g,
    (c, g, [x, y]) => mul(c, neg(c, g), mul(c, un(c, 'sign', div(c, x!, y!)), un(c, 'floor', un(c, 'abs', div(c, x!, y!))))),
  ),
  pow: defjvp(
    (c, g, [x, y]) => mul(c, g, mul(c, y!, c.op('pow', [x!, sub(c, y!, kFull(c, y!, 1))]))),
    (c, g, [x], ans) => mul(c, g, mul(c, un(c, 'log', replaceZero(c, x!)), ans)),
  ),
  max: maxJvp,
  min: maxJvp,
  atan2: defjvp(
    (c, g, [x, y]) => mul(c, g, div(c, y!, add(c, square(c, x!), square(c, y!)))),
    (c, g, [x, y]) => mul(c, g, div(c, neg(c, x!), add(c, square(c, x!), square(c, y!)))),
  ),

  // integer and bool results
  and: zero,
  or: zero,
  xor: zero,
  shift_left: zero,
  shift_right_logical: zero,
  shift_right_arithmetic: zero,
  eq: zero,
  ne: zero,
  lt: zero,
  le: zero,
  gt: zero,
  ge: zero,
  threefry2x32: zero,
  iota: zero,
  argmax: zero,
  argmin: zero,
  axis_index: zero,

  // JAX's clamp JVP: the tangent of whichever of min, x, max the result is (x inside the open interval)
  clamp: defjvp(
    (c, g, [lo, x, hi]) => select(c, c.op('and', [c.op('gt', [shaped(c, lo!, x!), x!]), c.op('lt', [shaped(c, lo!, x!), shaped(c, hi!, x!)])]), shaped(c, g, x!), k(c, x!, 0)),
    (c, g, [lo, x, hi]) => select(c, c.op('and', [c.op('gt', [x!, shaped(c, lo!, x!)]), c.op('lt', [x!, shaped(c, hi!, x!)])]), g, k(c, x!, 0)),
    (c, g, [, x, hi]) => select(c, c.op('lt', [shaped(c, hi!, x!), x!]), shaped(c, g, x!), k(c, x!, 0)),
  ),
  select_n: (c, xs, ts) => {
    const outs = c.primal();
    const cases = ts.slice(1);
    const some = cases.find(isLin);
    if (!some) return { outs, tans: [null] };
    const z = full(c.op, some.aval, 0);
    return { outs, tans: [asTan(c.op('select_n', [xs[0]!, ...cases.map((t) => t ?? z)]))] };
  },

  // structure (all linear)
  broadcast_in_dim: linear,
  reshape: linear,
  transpose: linear,
  squeeze: linear,
  rev: linear,
  slice: linear,
  pad: linear,
  concatenate: linear,
  reduce_sum: linear,
  // linear in the operand; the start indices are integers (no tangent)
  dynamic_slice: (c, xs, ts, e) => {
    const outs = c.primal();
    return { outs, tans: [ts[0] ? asTan(c.op('dynamic_slice', [ts[0], ...xs.slice(1)], e.params)) : null] };
  },

  reduce_max: (c, xs, ts, e) => chooser(c, xs, ts, e),
  reduce_min: (c, xs, ts, e) => chooser(c, xs, ts, e),

  reduce_prod: (c, xs, ts, e) => reduceProdJvp(c, xs[0]!, ts[0]!, e.params['axes'] as number[]),

  dot_general: defjvp(
    (c, g, [, y], _ans, p) => c.op('dot_general', [g, y!], p),
    (c, g, [x], _ans, p) => c.op('dot_general', [x!, g], p),
  ),
  reduce_window_sum: linear,
  reduce_window_max: (c, xs, ts, e) => reduceWindowJvp(c, 'max', xs, ts, e),
  reduce_window_min: (c, xs, ts, e) => reduceWindowJvp(c, 'min', xs, ts, e),
  // ad.defbilinear
  conv_general_dilated: defjvp(
    (c, g, [, y], _ans, p) => c.op('conv_general_dilated', [g, y!], p),
    (c, g, [x], _ans, p) => c.op('conv_general_dilated', [x!, g], p),
  ),

  // indexing (slicing.py): linear in the operand and updates, never in the indices
  gather: (c, xs, ts, e) => gatherJvp(c, xs, ts, e),
  scatter_add: (c, xs, ts, e) => scatterAddJvp(c, xs, ts, e),
  scatter: (c, xs, ts, e) => scatterJvp(c, xs, ts, e),
  scatter_mul: (c, xs, ts, e) => scatterMulJvp(c, xs, ts, e),
  scatter_min: (c, xs, ts, e) => scatterExtremalJvp(c, xs, ts, e),
  scatter_max: (c, xs, ts, e) => scatterExtremalJvp(c, xs, ts, e),
  sort: (c, xs, ts, e) => sortJvp(c, xs, ts, e),

  // collectives (parallel.py): linear, except pmax/pmin which JAX cannot differentiate
  psum: linear,
  pvary: linear,
  all_gather: linear,
  psum_scatter: linear,
  all_to_all: linear,
  ppermute: linear,
  pmax: null,
  pmin: null,
  // functions with custom derivative rules: linearizeFunc applies their rules itself
  custom_jvp_call: null,
  custom_vjp_call: null,
  // control flow: the walk differentiates their sub-functions (controlJvp)
  cond: null,
  while: null,
  scan: null,
  shard_map: null,
};

/** JAX's `_reduce_chooser_jvp_rule` (reduce_max, reduce_min): the gradient is split among the tied maxima. */
function chooser(c: JvpCtx, [x]: Atom[], [g]: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  const axes = e.params['axes'] as number[];
  const shape = x!.aval.shape;
  // JAX compares with reshape(ans, keepdims shape) broadcasting implicitly; here the broadcast is explicit
  const kept = range(shape.length).filter((d) => !axes.includes(d));
  const ansB = c.op('broadcast_in_dim', [outs[0]!], { shape: [...shape], broadcast_dimensions: kept });
  const ind = c.op('convert_element_type', [c.op('eq', [x!, ansB])], { new_dtype: g!.aval.dtype, weak_type: false });
  const counts = c.op('reduce_sum', [ind], { axes, out_sharding: null });
  return { outs, tans: [asTan(div(c, c.op('reduce_sum', [mul(c, g!, ind)], { axes, out_sharding: null }), counts))] };
}

/**
 * JAX's `_reduce_prod_jvp_rule`: reduced axes moved to the front and
 * flattened, then a tree of pairwise products (padding odd halves with 1),
 * differentiated step by step. The primal value comes from the tree too.
 */
function reduceProdJvp(c: JvpCtx, x: Atom, t: Tan, axes: number[]): JvpOut {
  const shape = x.aval.shape;
  const nonAxes = range(shape.length).filter((d) => !axes.includes(d));
  const perm = [...axes, ...nonAxes];
  const n = axes.reduce((p, d) => p * shape[d]!, 1);
  const rest = nonAxes.map((d) => shape[d]!);
  let cur: JvpOut = { outs: [x], tans: [t] };
  const step = (prim: Prim, ins: JvpOut[], params: Params): JvpOut =>
    c.jvp(prim, ins.map((v) => v.outs[0]!), ins.map((v) => v.tans[0] ?? null), params);
  if (perm.some((d, i) => d !== i)) cur = step('transpose', [cur], { permutation: perm });
  const newShape = [n, ...rest];
  if (newShape.length !== shape.length || newShape.some((d, i) => d !== cur.outs[0]!.aval.shape[i])) {
    cur = step('reshape', [cur], { new_sizes: newShape, dimensions: null });
  }
  const one: JvpOut = { outs: [lit(1, x.aval.dtype)], tans: [null] };
  while (cur.outs[0]!.aval.shape[0]! > 1) {
    const m = cur.outs[0]!.aval.shape[0]!;
    const n1 = (m + 1) >> 1;
    const sl = (a: number, b: number): Params => ({ start_indices: [a, ...rest.map(() => 0)], limit_indices: [b, ...rest], strides: null });
    const x1 = step('slice', [cur], sl(0, n1));
    let x2 = step('slice', [cur], sl(n1, m));
    if (m - n1 !== n1) x2 = step('pad', [x2, one], { padding_config: [[0, 1, 0], ...rest.map(() => [0, 0, 0])] });
    cur = step('mul', [x1, x2], {});
  }
  if (cur.outs[0]!.aval.shape[0] === 0) {
    return { outs: [full(c.op, { shape: rest, dtype: x.aval.dtype }, 1)], tans: [null] };
  }
  return step('squeeze', [cur], { dimensions: [0] });
}

// ------------------------------------------------------------------ transpose rules

/** Apply `f` to the cotangent for the (single) output, giving the one linear input's cotangent. */
const unaryT =
  (f: (c: TransposeCtx, ct: Atom, e: LinEqn) => Atom): TransposeRule =>
  (c, [ct], e) => [f(c, ct!, e)];

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);

function reshapeT(c: TransposeCtx, ct: Atom, shape: readonly number[]): Atom {
  return same(ct.aval.shape, shape) ? ct : c.bind('reshape', [ct], { new_sizes: [...shape], dimensions: null });
}

function transposeT(c: TransposeCtx, ct: Atom, perm: number[]): Atom {
  return perm.every((d, i) => d === i) ? ct : c.bind('transpose', [ct], { permutation: perm });
}

/** lax.expand_dims: a broadcast_in_dim adding unit axes at `dims` of `shape`. */
function expandDims(c: TransposeCtx, x: Atom, shape: readonly number[], dims: number[]): Atom {
  if (!dims.length) return x;
  return c.bind('broadcast_in_dim', [x], { shape: [...shape], broadcast_dimensions: range(shape.length).filter((d) => !dims.includes(d)) });
}

function reduceSum(c: TransposeCtx, x: Atom, axes: number[]): Atom {
  return axes.length ? c.bind('reduce_sum', [x], { axes, out_sharding: null }) : x;
}

const zerosLike = (c: TransposeCtx, a: AVal): Atom => full(c.bind, a, 0);

/** JAX's _reduce_window_chooser_jvp_rule (select_and_gather_add, written with pad, slice and select_n). */
function reduceWindowJvp(c: JvpCtx, fn: 'max' | 'min', xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  const t = ts[0];
  if (!t) return { outs, tans: [null] };
  return { outs, tans: [asTan(reduceWindowChooserJvp<LAtom>(c.op, fn, t, xs[0]!, e.params, outs[0]!.aval.shape))] };
}

/** JAX's `_dot_general_transpose_lhs` (and, swapped, `_rhs`). */
function dotTransposeLhs(c: TransposeCtx, g: Atom, x: AVal, y: Atom, dn: DotDims, params: Params, swapAns: boolean, of?: Atom): Atom {
  const [xContract, yContract] = dn.contract;
  const [xBatch, yBatch] = dn.batch;
  const xKept = range(x.shape.length).filter((d) => !xContract.includes(d) && !xBatch.includes(d));
  const yKept = range(y.aval.shape.length).filter((d) => !yContract.includes(d) && !yBatch.includes(d));
  const nb = xBatch.length;
  const ansBatch = range(nb);
  const ansY = swapAns ? yKept.map((_, i) => nb + i) : yKept.map((_, i) => nb + xKept.length + i);
  const dims: DotDims = { contract: [ansY, yKept], batch: [ansBatch, [...yBatch]] };
  const xContractSortedByY = argsort(yContract).map((i) => xContract[i]!);
  const unsortedAxes = [...xBatch, ...xKept, ...xContractSortedByY];
  const out = c.bind('dot_general', [g, y], { ...params, dimension_numbers: dims }, of ? { transposed: true, cotangentOf: of } : { transposed: true });
  return transposeT(c, out, argsort(unsortedAxes));
}

/** all_gather ↔ psum_scatter: the other collective over the same axis and dimension. */
function renamedCollective(to: Prim, fromDim: string, toDim: string): TransposeRule {
  return unaryT((c, ct, e) =>
    c.bind(to, [ct], { axis_name: e.params['axis_name'], axis_size: e.params['axis_size'], [toDim]: e.params[fromDim], tiled: e.params['tiled'] }),
  );
}

/**
 * Transpose rules of the primitives JVP rules emit as linear equations.
 * Default (no entry): the primitive is never linear in a tangent here, and
 * meeting it in a linear equation is an internal error. The primitives taking
 * the default are listed in test/ir/rule_tables.test.ts.
 */
export const TRANSPOSE_RULES: Partial<Record<Prim, TransposeRule>> = {
  neg: unaryT((c, ct) => c.bind('neg', [ct])),
  copy: unaryT((c, ct) => c.bind('copy', [ct])),
  // (a reshard to a reduced layout: the cotangent, unreduced, is resharded to the operand's layout, adding the partial sums up)
  sharding_constraint: unaryT((c, ct, e) => c.bind('sharding_constraint', [ct], e.params['reduced'] ? { dims: e.params['dims'], reshard: true } : e.params)),
  add: (_c, [ct], e) => e.inputs.map((a) => (isLin(a) ? ct! : null)),
  sub: (c, [ct], e) => [isLin(e.inputs[0]) ? ct! : null, isLin(e.inputs[1]) ? c.bind('neg', [ct!]) : null],
  mul: (c, [ct], e) => {
    const [x, y] = e.inputs;
    return isLin(x) ? [c.bind('mul', [ct!, y as Atom]), null] : [null, c.bind('mul', [x as Atom, ct!])];
  },
  div: (c, [ct], e) => [c.bind('div', [ct!, e.inputs[1] as Atom]), null],
  // JAX's transposes of the complex primitives: complex → (real(t), imag(neg(t))); real → complex(t, 0);
  // imag → complex(0, neg(t)); conj → conj(t)
  complex: (c, [ct], e) => [isLin(e.inputs[0]) ? c.bind('real', [ct!]) : null, isLin(e.inputs[1]) ? c.bind('imag', [c.bind('neg', [ct!])]) : null],
  real: unaryT((c, ct) => c.bind('complex', [ct, zerosLike(c, ct.aval)])),
  imag: unaryT((c, ct) => c.bind('complex', [zerosLike(c, ct.aval), c.bind('neg', [ct])])),
  conj: unaryT((c, ct) => c.bind('conj', [ct])),
  convert_element_type: (c, [ct], e) => {
    const from = e.inputs[0]!.aval.dtype;
    return [ct!.aval.dtype === from ? ct! : c.bind('convert_element_type', [ct!], { new_dtype: from, weak_type: false })];
  },
  select_n: (c, [ct], e) => {
    const which = e.inputs[0] as Atom;
    const zeros = zerosLike(c, ct!.aval);
    const cases = e.inputs.slice(1);
    if (which.aval.dtype === 'bool') {
      if (cases.length === 1) return [null, ct!];
      return [null, isLin(cases[0]) ? c.bind('select_n', [which, ct!, zeros]) : null, isLin(cases[1]) ? c.bind('select_n', [which, zeros, ct!]) : null];
    }
    return [null, ...cases.map((a, i) => (isLin(a) ? c.bind('select_n', [c.bind('eq', [which, full(c.bind, which.aval, i)]), zeros, ct!]) : null))];
  },

  broadcast_in_dim: unaryT((c, ct, e) => {
    const opShape = e.inputs[0]!.aval.shape;
    const bdimsAll = e.params['broadcast_dimensions'] as number[];
    const unitDims = range(opShape.length).filter((i) => opShape[i] === 1);
    const bdims = bdimsAll.filter((_, i) => !unitDims.includes(i));
    const axes = range(ct.aval.shape.length).filter((d) => !bdims.includes(d));
    return expandDims(c, reduceSum(c, ct, axes), opShape, unitDims);
  }),
  reshape: unaryT((c, ct, e) => reshapeT(c, ct, e.inputs[0]!.aval.shape)),
  transpose: unaryT((c, ct, e) => transposeT(c, ct, argsort(e.params['permutation'] as number[]))),
  squeeze: unaryT((c, ct, e) => {
    const shape = e.inputs[0]!.aval.shape;
    const dims = (e.params['dimensions'] as number[]).map((d) => (d < 0 ? d + shape.length : d));
    return expandDims(c, ct, shape, dims);
  }),
  rev: unaryT((c, ct, e) => c.bind('rev', [ct], e.params)),
  slice: unaryT((c, ct, e) => {
    const shape = e.inputs[0]!.aval.shape;
    const start = e.params['start_indices'] as number[];
    const limit = e.params['limit_indices'] as number[];
    const strides = e.params['strides'] as number[] | null;
    let pads: [number, number, number][];
    if (!strides || strides.every((s) => s === 1)) {
      pads = start.map((s, i) => [s, shape[i]! - limit[i]!, 0]);
    } else {
      const ctShape = ct.aval.shape;
      pads = start.map((s, i) => {
        const real = s + (ctShape[i] === 0 ? 0 : 1 + (ctShape[i]! - 1) * strides[i]!);
        return [s, shape[i]! - real, strides[i]! - 1];
      });
    }
    return c.bind('pad', [ct, lit(0, ct.aval.dtype)], { padding_config: pads });
  }),
  pad: (c, [ct], e) => {
    const config = e.params['padding_config'] as [number, number, number][];
    const unpadded = c.bind('pad', [ct!, lit(0, ct!.aval.dtype)], { padding_config: config.map(([lo, hi]) => [-lo, -hi, 0]) });
    const tOp = c.bind('slice', [unpadded], {
      start_indices: config.map(() => 0),
      limit_indices: [...unpadded.aval.shape],
      strides: config.map(([, , interior]) => interior + 1),
    });
    const total = (a: Atom): Atom => reduceSum(c, a, range(a.aval.shape.length));
    const tPad = isLin(e.inputs[1]) ? c.bind('sub', [total(ct!), total(tOp)]) : null;
    return [isLin(e.inputs[0]) ? tOp : null, tPad];
  },
  concatenate: (c, [ct], e) => {
    const dim = e.params['dimension'] as number;
    const shape = ct!.aval.shape;
    let off = 0;
    return e.inputs.map((a) => {
      const n = a.aval.shape[dim]!;
      const start = shape.map((_, d) => (d === dim ? off : 0));
      const limit = shape.map((s, d) => (d === dim ? off + n : s));
      off += n;
      return isLin(a) ? c.bind('slice', [ct!], { start_indices: start, limit_indices: limit, strides: null }) : null;
    });
  },
  reduce_sum: unaryT((c, ct, e) => {
    const shape = e.inputs[0]!.aval.shape;
    const axes = e.params['axes'] as number[];
    const out = c.bind('broadcast_in_dim', [ct], { shape: [...shape], broadcast_dimensions: range(shape.length).filter((d) => !axes.includes(d)) });
    // JAX's transpose broadcasts with out_sharding = the operand's sharding
    const like = c.primalOf?.(e.inputs[0]!);
    if (like) c.shardLike?.(like);
    return out;
  }),
  dot_general: (c, [ct], e) => {
    const [x, y] = e.inputs;
    const dn = e.params['dimension_numbers'] as DotDims;
    if (isLin(x)) return [dotTransposeLhs(c, ct!, x.aval, y as Atom, dn, e.params, false, c.primalOf?.(x)), null];
    const swapped: DotDims = { contract: [dn.contract[1], dn.contract[0]], batch: [dn.batch[1], dn.batch[0]] };
    return [null, dotTransposeLhs(c, ct!, y!.aval, x as Atom, swapped, e.params, true, y ? c.primalOf?.(y) : undefined)];
  },
  reduce_window_sum: unaryT((c, ct, e) => reduceWindowSumTranspose((prim, ins, p) => c.bind(prim, ins, p), ct, e.inputs[0]!.aval.shape, e.params)),
  conv_general_dilated: (c, [ct], e) => {
    const [x, y] = e.inputs;
    const bind = (prim: Prim, ins: Atom[], p: Params): Atom => c.bind(prim, ins, p);
    if (isLin(x)) return [convTransposeLhs(bind, ct!, x.aval, y as Atom, e.params), null];
    return [null, convTransposeRhs(bind, ct!, x as Atom, y!.aval, e.params)];
  },

  gather: (c, [ct], e) => [gatherTranspose(c, ct!, e), null],
  dynamic_slice: (c, [ct], e) => [dynamicSliceTranspose(c, ct!, e), ...e.inputs.slice(1).map(() => null)],
  scatter_add: (c, [ct], e) => scatterAddTranspose(c, ct!, e),
  scatter: (c, [ct], e) => scatterTranspose(c, ct!, e),
  scatter_mul: (c, [ct], e) => [c.bind('scatter_mul', [ct!, e.inputs[1] as Atom, e.inputs[2] as Atom], e.params), null, null],

  // collectives: psum's transpose is a psum (psum = psum + pbroadcast under pmap)
  psum: (c, cts, e) => {
    const all = cts.map((ct, i) => ct ?? zerosLike(c, e.outputs[i]!.aval));
    return all.length === 1 ? [c.bind('psum', all, e.params)] : all.map((a) => c.bind('psum', [a], e.params));
  },
  all_gather: renamedCollective('psum_scatter', 'all_gather_dimension', 'scatter_dimension'),
  // pvary's transpose is a psum over its axes: the vma-aware transposition adds it (as for an implicit pvary)
  pvary: (_c, [ct]) => [ct!],
  psum_scatter: renamedCollective('all_gather', 'scatter_dimension', 'all_gather_dimension'),
  // all_to_all moves blocks from split_axis to concat_axis; its transpose moves them back
  all_to_all: unaryT((c, ct, e) =>
    c.bind('all_to_all', [ct], { ...e.params, split_axis: e.params['concat_axis'], concat_axis: e.params['split_axis'] }),
  ),
  ppermute: unaryT((c, ct, e) =>
    c.bind('ppermute', [ct], { ...e.params, perm: (e.params['perm'] as [number, number][]).map(([s, d]) => [d, s]) }),
  ),
  // the backward function of a custom_vjp, on the residuals and the output cotangents (zeros instantiated)
  cond: (c, cts, e) => condTranspose(c, cts, e),
  scan: (c, cts, e) => scanTranspose(c, cts, e),
  shard_map: (c, cts, e) => shardMapTranspose(c, cts, e),
  while: () => {
    throw new Error('ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.');
  },
  custom_vjp_call: (c, cts, e) => {
    const nRes = e.params['num_res'] as number;
    const res = e.inputs.slice(0, nRes) as Atom[];
    const full = cts.map((ct, i) => ct ?? zerosLike(c, e.outputs[i]!.aval));
    const ins = c.inline(e.params['bwd'] as Func, [...res, ...full]);
    c.usedBackward?.(e.params['bwd'] as Func, ins);
    return [...res.map(() => null), ...e.inputs.slice(nRes).map((a, i) => (isLin(a) ? ins[i]! : null))];
  },
};

/** Bind `f`'s equations on `args` with `bind`, replacing custom calls by their functions (JAX's primal call). */
function inlineExpanded(bind: (prim: Prim, inputs: Atom[], params: Params, span?: Eqn['span']) => Atom[], f: Func, args: Atom[]): Atom[] {
  const env = new Map<number, Atom>(f.params.map((p, i) => [p.id, args[i]!]));
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  for (const e of f.eqns) {
    const xs = e.inputs.map(read);
    const outs = isCustomCall(e.prim) ? inlineExpanded(bind, e.params['call'] as Func, xs) : bind(e.prim, xs, e.params, e.span);
    e.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
  }
  return f.results.map(read);
}

const isCustomCall = (p: Prim): boolean => p === 'custom_jvp_call' || p === 'custom_vjp_call';

/** `f` with its custom calls (custom_jvp / custom_vjp functions) replaced by the functions they call. */
export function expandCustomCalls(f: Func): Func {
  const has = (g: Func): boolean => g.eqns.some((e) => isCustomCall(e.prim));
  if (!has(f)) return f;
  const b = new FuncBuilder(f.name);
  const params = f.params.map((p) => b.addParam(p.aval, p.hint));
  const outs = inlineExpanded((p, i, q, span) => {
    const r = b.bind(p, i, q, span);
    return r;
  }, f, params);
  return b.finish(outs, f.axisEnv);
}

// ------------------------------------------------------------------ the pass

export interface VjpOptions {
  /** Name of the new Func (default: `<name>_vjp`). */
  name?: string;
  /**
   * Cotangents of the first n results become parameters after f's (JAX's
   * `vjp_fun(ct)`); default 0: `f.results[0]`, a float32 scalar, is seeded
   * with 1.0 (grad).
   */
  cotangentParams?: number;
  /**
   * Called with each custom_vjp backward function the transpose applies: its Python side effects (prints)
   * happen then, as in JAX. It returns how many of the function's last results its prints show: those
   * become extra results of the backward program, after all others, in the order of the calls.
   */
  onBackward?: (bwd: Func) => number;
  /**
   * Inside a shard_map with check_vma: the varying mesh axes of each of f's
   * parameters. A value used with one that varies over more axes was
   * implicitly pvary-ed, so its cotangent is psum-med over those axes (pvary's
   * transpose); psum's own transpose is then a pvary, the identity.
   */
  vma?: (readonly string[])[];
  /**
   * Under a context mesh with Explicit axes: the seed 1.0 is a `reshard` of
   * the literal to a replicated scalar (JAX's _one_vjp: full_like with the
   * cotangent's sharding), as make_jaxpr shows it.
   */
  seedReshard?: boolean;
}

/** What the forward (linearize) walk leaves: the primal program bound into `b`, and the linear program. */
/** Which equation of the differentiated function each primal and linear equation of a linearization was made for. */
interface EqnOrigins {
  primal: Map<Eqn, Eqn>;
  lin: Map<LinEqn, Eqn>;
}

/**
 * JAX's linearization of `f` (partial evaluation of its JVP), for showing
 * what the forward pass saves: the primal equations (`eqns`, on `params`,
 * which are f's) and, for each linear equation, the primal values it reads
 * (the residuals), each equation with the equation of `f` it was made for.
 */
export function linearizedResiduals(f: Func, wrt: boolean[]): {
  params: Var[];
  eqns: { eqn: Eqn; origin: Eqn | undefined }[];
  reads: { origin: Eqn | undefined; inputs: Atom[] }[];
} {
  const origins: EqnOrigins = { primal: new Map(), lin: new Map() };
  const { b, linEqns } = linearizeFunc(f, wrt, `${f.name}_lin`, 'linearize', origins);
  return {
    params: [...b.params],
    eqns: b.eqns.map((eqn) => ({ eqn, origin: origins.primal.get(eqn) })),
    reads: linEqns.map((q) => ({ origin: origins.lin.get(q), inputs: q.inputs.filter((a): a is Atom => !isLin(a) && a.kind === 'var') })),
  };
}

interface Linearized {
  b: FuncBuilder;
  read: (a: Atom) => Atom;
  tan: Map<number, Lin>;
  linEqns: LinEqn[];
  seeds: (Lin | null)[];
}

/**
 * JAX's linearize: bind `f`'s primal equations (and the residuals JVP rules
 * compute) into a new builder, recording the tangent computation as linear
 * equations over placeholders seeded on the `wrt` parameters.
 */
function linearizeFunc(f: Func, wrt: boolean[], name: string, what: string, origins?: EqnOrigins, explicit?: boolean): Linearized {
  const b = new FuncBuilder(name);
  const env = new Map<number, Atom>();
  const tan = new Map<number, Lin>();
  const linEqns: LinEqn[] = [];
  let nextLin = 0;
  const newLin = (a: AVal): Lin => ({ kind: 'lin', id: nextLin++, aval: { shape: a.shape, dtype: a.dtype } });
  const seeds = f.params.map((p, i) => {
    env.set(p.id, b.addParam(p.aval, p.hint));
    if (!wrt[i]) return null;
    if (!isInexact(p.aval.dtype)) throw new Error(`${what}: cannot differentiate with respect to a ${p.aval.dtype} parameter`);
    const t = newLin(p.aval);
    tan.set(p.id, t);
    return t;
  });
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);

  const opN = (prim: Prim, inputs: LAtom[], params: Params = {}, operandBroadcast?: true): LAtom[] => {
    if (!inputs.some(isLin)) {
      const outs = b.bind(prim, inputs as Atom[], params);
      if (operandBroadcast && b.eqns.length) b.eqns[b.eqns.length - 1]!.operandBroadcast = true;
      return outs;
    }
    const outputs = shapeRule(prim)(inputs.map((a) => a.aval), params).map(newLin);
    linEqns.push({ prim, inputs, params, outputs });
    return outputs;
  };
  const jvpOf = (prim: Prim, xs: Atom[], ts: Tan[], params: Params, span?: Eqn['span']): JvpOut => {
    const e: Eqn = { prim, inputs: xs, outputs: [], params };
    if (span) e.span = span;
    const primal = (): Atom[] => b.bind(prim, xs, params, span);
    if (ts.every((t) => !t)) {
      const outs = primal();
      return { outs, tans: outs.map(() => null) };
    }
    const rule = JVP_RULES[prim];
    if (!rule) throw new Error(`Differentiation rule for '${prim}' not implemented`);
    const ctx: JvpCtx = { op: (p, i, q, m) => opN(p, i, q, m)[0]!, opN, primal, jvp: (p, x, t, q) => jvpOf(p, x, t, q), ...(explicit ? { explicit } : {}) };
    return rule(ctx, xs, ts, e);
  };

  /** The JVP of a Func's equations on primals `ins` and tangents `tins` (the body of this walk; also custom calls' functions). */
  const walk = (g: Func, ins: Atom[], tins: Tan[], genv: Map<number, Atom>, gtan: Map<number, Lin>): JvpOut => {
    g.params.forEach((p, i) => {
      genv.set(p.id, ins[i]!);
      const t = tins[i];
      if (t) gtan.set(p.id, t);
    });
    const rd = (a: Atom): Atom => (a.kind === 'lit' ? a : genv.get(a.id)!);
    for (const e of g.eqns) {
      const xs = e.inputs.map(rd);
      const ts = e.inputs.map((a) => (a.kind === 'var' ? (gtan.get(a.id) ?? null) : null));
      const anyFloat = e.outputs.some((o) => isInexact(o.aval.dtype));
      const [nb, nl] = [b.eqns.length, linEqns.length];
      const r = eqnJvp(e, xs, anyFloat ? ts : ts.map(() => null));
      // a jitted call's derivative is one computation with it (Eqn.jitRegion)
      if (e.jitRegion !== undefined) {
        for (const q of b.eqns.slice(nb)) q.jitRegion ??= e.jitRegion;
        for (const q of linEqns.slice(nl)) q.jitRegion ??= e.jitRegion;
      }
      // a constant operand's broadcast, re-bound as it was: still shown as JAX's implicit broadcast
      if (e.operandBroadcast && b.eqns.length === nb + 1 && b.eqns[nb]!.prim === e.prim) b.eqns[nb]!.operandBroadcast = true;
      if (origins) {
        // the equations made for `e` (a nested function's own were claimed by its equations first)
        for (const q of b.eqns.slice(nb)) if (!origins.primal.has(q)) origins.primal.set(q, e);
        for (const q of linEqns.slice(nl)) if (!origins.lin.has(q)) origins.lin.set(q, e);
      }
      e.outputs.forEach((o, i) => {
        genv.set(o.id, r.outs[i]!);
        const t = r.tans[i];
        if (t && isInexact(o.aval.dtype)) gtan.set(o.id, t);
      });
    }
    return { outs: g.results.map(rd), tans: g.results.map((a) => (a.kind === 'var' ? (gtan.get(a.id) ?? null) : null)) };
  };
  const walkNew = (g: Func, ins: Atom[], tins: Tan[]): JvpOut => walk(g, ins, tins, new Map(), new Map());
  const zeroTan = (t: Tan, x: Atom): LAtom => t ?? full((p, i, q) => opN(p, i, q)[0]!, x.aval, 0);

  /** JAX's custom_jvp under differentiation: the rule's primal results, its tangents recorded as linear equations. */
  /** `g` applied to operands some of which are tangents: its equations bound or recorded as linear ones. */
  const linearCall = (g: Func, ins: LAtom[]): LAtom[] => {
    const env = new Map<number, LAtom>();
    g.params.forEach((p, i) => env.set(p.id, ins[i]!));
    const rd = (a: Atom): LAtom => (a.kind === 'lit' ? a : env.get(a.id)!);
    for (const q of g.eqns) {
      const qi = q.inputs.map(rd);
      const outs = isCustomCall(q.prim) && q.params['prim_name'] ? userLinear(q, qi) : opN(q.prim, qi, q.params);
      q.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
    }
    return g.results.map(rd);
  };
  // (reverse mode transposes it: JAX needs the primitive's transpose rule; its computation is transposed here)
  const userLinear = (q: Eqn, ins: LAtom[]): LAtom[] => {
    if (what !== 'jvpFunc' && !q.params['transposable']) throw new Error(`NotImplementedError: Transpose rule (for reverse-mode differentiation) for '${String(q.params['prim_name'])}' not implemented`);
    return linearCall(q.params['call'] as Func, ins);
  };
  const customJvp = (e: Eqn, xs: Atom[], ts: Tan[]): JvpOut => {
    // no tangent reaches it: the call stays, for a later differentiation of this result to use its rule
    if (ts.every((t) => !t)) return { outs: opN(e.prim, xs, e.params) as Atom[], tans: xs.map(() => null) };
    const rule = e.params['jvp'] as Func | null;
    if (!rule) throw new Error(`NotImplementedError: Differentiation rule for '${String(e.params['prim_name'])}' not implemented`);
    const renv = new Map<number, LAtom>();
    [...xs, ...xs.map((x, i) => zeroTan(ts[i] ?? null, x))].forEach((a, i) => renv.set(rule.params[i]!.id, a));
    const rd = (a: Atom): LAtom => (a.kind === 'lit' ? a : renv.get(a.id)!);
    for (const q of rule.eqns) {
      const ins = q.inputs.map(rd);
      let outs: LAtom[];
      if (isCustomCall(q.prim) && ins.some(isLin) && q.params['prim_name']) {
        // a primitive the program defined, applied to tangents in a JVP rule: its computation, linear in them
        outs = userLinear(q, ins);
      } else if (isCustomCall(q.prim)) {
        if (ins.some(isLin)) throw new Error(`TypeError: a custom_jvp rule applies a function with a custom derivative to tangents, which jaxts cannot differentiate`);
        outs = eqnJvp(q, ins as Atom[], ins.map(() => null)).outs;
      } else {
        outs = opN(q.prim, ins, q.params);
      }
      q.outputs.forEach((o, i) => renv.set(o.id, outs[i]!));
    }
    const n = (e.params['call'] as Func).results.length;
    const res = rule.results.map(rd);
    const outs = res.slice(0, n).map((a) => {
      if (isLin(a)) throw new Error('TypeError: the primal output of a custom_jvp rule depends on the tangents');
      return a;
    });
    return { outs, tans: res.slice(n).map(asTan) };
  };

  /** JAX's custom_vjp under differentiation: the forward function now, the backward one as the transpose of a linear equation. */
  const customVjp = (e: Eqn, xs: Atom[], ts: Tan[]): JvpOut => {
    const call = e.params['call'] as Func;
    if (ts.every((t) => !t)) return { outs: opN(e.prim, xs, e.params) as Atom[], tans: xs.map(() => null) };
    const fwd = walkNew(e.params['fwd'] as Func, xs, xs.map(() => null));
    const n = call.results.length;
    const res = fwd.outs.slice(n);
    const tans = opN('custom_vjp_call', [...res, ...xs.map((x, i) => zeroTan(ts[i] ?? null, x))], { ...e.params, num_res: res.length });
    return { outs: fwd.outs.slice(0, n), tans: tans.map(asTan) };
  };

  const eqnJvp = (e: Eqn, xs: Atom[], ts: Tan[]): JvpOut => {
    if (isControl(e.prim) && ts.some((t) => t)) return controlJvp({ b, opN }, e, xs, ts);
    if (e.prim === 'custom_jvp_call') return customJvp(e, xs, ts);
    if (e.prim === 'custom_vjp_call') return customVjp(e, xs, ts);
    return jvpOf(e.prim, xs, ts, e.params, e.span);
  };

  // f's own parameters are already bound (env); walk its equations
  const top = walk({ ...f, params: [] }, [], [], env, tan);
  void top;
  return { b, read, tan, linEqns, seeds };
}

/**
 * The vma of the linear program's values (a tangent varies as its primal),
 * and the transpose of the implicit pvary JAX puts on an operand that varies
 * over fewer axes than its equation needs: a psum of its cotangent over them.
 */
function linearVma(f: Func, b: FuncBuilder, params: (readonly string[])[], seeds: (Lin | null)[], linEqns: LinEqn[]) {
  // the primal program's params are f's, in order (linearizeFunc)
  const primal = vmaOfFunc(b, params);
  const lin = new Map<number, Set<string>>();
  seeds.forEach((s, i) => s && lin.set(s.id, new Set(params[i] ?? [])));
  const of = (a: LAtom): Set<string> => (isLin(a) ? (lin.get(a.id) ?? new Set()) : a.kind === 'var' ? (primal.get(a.id) ?? new Set()) : new Set());
  const needs = new Map<LinEqn, Set<string>>();
  for (const e of linEqns) {
    const ins = e.inputs.map(of);
    const out = vmaOfEqn(e, ins);
    for (const o of e.outputs) lin.set(o.id, out);
    // what the operands were made to vary over: the result's axes, and an all-reduce's own
    const need = new Set(out);
    if (isAllReduce(e.prim)) for (const n of collectiveAxes(e)) need.add(n);
    needs.set(e, need);
  }
  const env = f.axisEnv ?? [];
  const sizes = new Map(env.map((a) => [a.name, a.size] as const));
  return {
    pvaryT(bb: FuncBuilder, e: LinEqn, a: Lin, r: Atom): Atom {
      const have = lin.get(a.id) ?? new Set<string>();
      const missing = env.map((x) => x.name).filter((n) => needs.get(e)!.has(n) && !have.has(n));
      if (!missing.length) return r;
      const size = missing.reduce((k, n) => k * sizes.get(n)!, 1);
      // a constant cotangent is the same on every device: its sum is a product
      if (r.kind === 'lit') return lit(r.value * size, r.aval.dtype, r.aval.weak === true);
      return bb.bind1('psum', [r], { axes: missing, axis_size: size });
    },
  };
}

/** A zero array of `a`'s type (JAX's instantiate_zeros). */
function zerosOf(b: FuncBuilder, a: AVal): Atom {
  return b.bind1('broadcast_in_dim', [lit(0, a.dtype)], { shape: [...a.shape], broadcast_dimensions: [] });
}

/**
 * The VJP of `f` with respect to the parameters marked in `wrt` (float
 * arrays): a Func with the same parameters (then, with `cotangentParams`, one
 * cotangent per leading result) whose results are
 * `[...f.results, ...cotangents of the wrt parameters]`. Without
 * `cotangentParams`, `f.results[0]` (a float32 scalar) is differentiated with
 * a seed of 1.0; the other results pass through (`has_aux`).
 */
export function vjpFunc(f: Func, wrt: boolean[], opts: VjpOptions = {}): Func {
  const nCt = opts.cotangentParams ?? 0;
  const out0 = f.results[0];
  if (nCt === 0 && (!out0 || out0.aval.shape.length !== 0 || !isInexact(out0.aval.dtype))) {
    throw new Error('vjpFunc: the first result must be a float32 scalar');
  }
  const { b, read, tan, linEqns, seeds } = linearizeFunc(f, wrt, opts.name ?? `${f.name}_vjp`, 'vjpFunc', undefined, opts.seedReshard);
  // each tangent of one of f's values → that value's primal in `b`
  const linPrimal = new Map<number, Atom>();
  for (const [id, l] of tan) linPrimal.set(l.id, read({ kind: 'var', id, aval: l.aval } as Var));

  // backward: transpose the linear equations in reverse
  const ct = new Map<number, Atom>();
  // (the transposed equations belong to no jit region: JAX's op-by-op jacrev of a jitted call, measured on the
  // autodiff cookbook's tanh, rounds as the equations one by one)
  const accum = (l: Lin, x: Atom): void => {
    const prev = ct.get(l.id);
    if (!prev) return void ct.set(l.id, x);
    ct.set(l.id, b.bind1('add', [prev, x]));
    b.eqns[b.eqns.length - 1]!.addAny = true;
  };
  if (nCt === 0) {
    const tOut = out0!.kind === 'var' ? tan.get(out0!.id) : undefined;
    // JAX's _one(ans) is full_like(ans, 1): weak when the output is (a weak cotangent then needs no cast below)
    const one = lit(1, out0!.aval.dtype, out0!.aval.weak === true);
    if (tOut) accum(tOut, opts.seedReshard ? b.bind1('sharding_constraint', [one], { dims: [], reshard: true }) : one);
  } else {
    const ctParams = f.results.slice(0, nCt).map((r) => b.addParam({ shape: r.aval.shape, dtype: r.aval.dtype }, 'ct'));
    f.results.slice(0, nCt).forEach((r, i) => {
      const t = r.kind === 'var' ? tan.get(r.id) : undefined;
      if (t) accum(t, ctParams[i]!);
    });
  }
  // values that custom_vjp backward rules print: extra results, after the cotangents
  const shown: Atom[] = [];
  const tctx: TransposeCtx = {
    bind: (p, i, q = {}, mark) => {
      const v = b.bind1(p, i, q);
      if (mark?.transposed) b.eqns[b.eqns.length - 1]!.transposed = true;
      if (mark?.cotangentOf?.kind === 'var') b.eqns[b.eqns.length - 1]!.cotangentOf = mark.cotangentOf;
      return v;
    },
    bindN: (p, i, q) => b.bind(p, i, q),
    inline: (g, args) => b.inline(g, args),
    usedBackward: (g, outs) => {
      const n = opts.onBackward?.(g) ?? 0;
      if (n) shown.push(...outs.slice(outs.length - n));
    },
    primalOf: (l) => (l.kind === 'lin' ? linPrimal.get(l.id) : undefined),
    shardLike: (like) => {
      if (like.kind === 'var') b.eqns[b.eqns.length - 1]!.shardingLike = like;
    },
  };
  const vma = opts.vma ? linearVma(f, b, opts.vma, seeds, linEqns) : null;
  for (let i = linEqns.length - 1; i >= 0; i--) {
    const e = linEqns[i]!;
    const cts = e.outputs.map((o) => {
      const v = ct.get(o.id) ?? null;
      ct.delete(o.id);
      return v;
    });
    if (cts.every((v) => !v)) continue;
    if (vma && e.prim === 'psum') {
      // psum_invariant's transpose is pvary: the cotangent as it is (pvary-ed operands below)
      const res = cts.map((v, j) => v ?? zerosLike(tctx, e.outputs[j]!.aval));
      e.inputs.forEach((a, j) => {
        if (isLin(a)) accum(a, vma.pvaryT(b, e, a, res[j]!));
      });
      continue;
    }
    const rule = TRANSPOSE_RULES[e.prim];
    if (!rule) throw new Error(`internal: no transpose rule for linear primitive '${e.prim}'`);
    const res = rule(tctx, cts, e);
    e.inputs.forEach((a, j) => {
      const r = res[j];
      if (isLin(a) && r) accum(a, vma ? vma.pvaryT(b, e, a, r) : r);
    });
  }

  const grads = f.params.flatMap((p, i) => {
    const s = seeds[i];
    if (!s) return [];
    let g = ct.get(s.id) ?? lit(0, p.aval.dtype);
    if (g.kind === 'lit') g = b.bind1('broadcast_in_dim', [g], { shape: [...p.aval.shape], broadcast_dimensions: [] });
    // a cotangent takes its primal's weak type, as JAX's vjp casts it (a complex one keeps the type its
    // transposes give: real's and imag's transposes build it with a strong zero part)
    const weak = p.aval.weak === true;
    if ((g.aval.weak === true) !== weak && !(p.aval.dtype === 'complex64' && weak)) g = b.bind1('convert_element_type', [g], { new_dtype: p.aval.dtype, weak_type: weak });
    return [g];
  });
  return dce(b.finish([...f.results.map(read), ...grads, ...shown], f.axisEnv));
}

export interface JvpOptions {
  /** Name of the new Func (default: `<name>_jvp`). */
  name?: string;
  /** How many leading results get a tangent (default: all); the rest pass through (`has_aux`). */
  tangentResults?: number;
  /**
   * jax.linearize's linear function: its tangent equations belong to no jit region (measured: it rounds a
   * jitted call's tangent op by op, where jax.jvp fuses it with the call).
   */
  linearized?: true;
}

/**
 * Forward mode (JAX's jvp): a Func whose parameters are f's, then one tangent
 * per `wrt` parameter, and whose results are `[...f.results, ...tangents of
 * the first tangentResults results]` (zeros instantiated, as jax.jvp returns
 * them). The linear program linearize records is evaluated forward on the
 * tangent parameters.
 */
export function jvpFunc(f: Func, wrt: boolean[], opts: JvpOptions = {}): Func {
  const { b, read, tan, linEqns, seeds } = linearizeFunc(f, wrt, opts.name ?? `${f.name}_jvp`, 'jvpFunc');
  const val = new Map<number, Atom>();
  f.params.forEach((p, i) => {
    const s = seeds[i];
    if (s) val.set(s.id, b.addParam({ shape: p.aval.shape, dtype: p.aval.dtype }, p.hint ? `${p.hint}_dot` : 'tangent'));
  });
  for (const e of linEqns) {
    if (e.prim === 'custom_vjp_call') throw new Error("TypeError: can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
    const ins = e.inputs.map((a) => (isLin(a) ? val.get(a.id)! : a));
    const outs = b.bind(e.prim, ins, e.params);
    if (e.jitRegion !== undefined && !opts.linearized) b.eqns[b.eqns.length - 1]!.jitRegion = e.jitRegion;
    e.outputs.forEach((o, i) => val.set(o.id, outs[i]!));
  }
  const n = opts.tangentResults ?? f.results.length;
  const tangents = f.results.slice(0, n).map((r) => {
    const t = r.kind === 'var' ? tan.get(r.id) : undefined;
    return t ? val.get(t.id)! : zerosOf(b, r.aval);
  });
  return dce(b.finish([...f.results.map(read), ...tangents], f.axisEnv));
}

// ------------------------------------------------------------------ gather, scatter, sort (slicing.py, lax.py)

/** A scatter's params from a gather's (JAX's scatter_add in _gather_transpose_rule). */
function scatterParamsOf(p: Params): Params {
  return {
    dimension_numbers: scatterDimsOf(p['dimension_numbers'] as GatherDims),
    indices_are_sorted: p['indices_are_sorted'],
    unique_indices: p['unique_indices'],
    mode: p['mode'],
    update_jaxpr: null,
    update_consts: [],
  };
}

/** The gather reading back, from an operand-shaped `t`, what a scatter with params `p` writes from `updates` (fill 0 where dropped). */
function gatherParamsOf(p: Params, operand: readonly number[], updates: readonly number[], mode: unknown = p['mode']): Params {
  const dn = p['dimension_numbers'] as ScatterDims;
  return {
    dimension_numbers: gatherDimsOf(dn),
    slice_sizes: scatterSliceSizes(operand, updates, dn),
    indices_are_sorted: p['indices_are_sorted'],
    unique_indices: p['unique_indices'],
    mode,
    fill_value: mode === 'fill' ? 0 : null,
  };
}

function gatherJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  return { outs, tans: [ts[0] ? asTan(c.op('gather', [ts[0], xs[1]!], e.params)) : null] };
}

/**
 * dynamic_update_slice(zeros, ct, starts) without that primitive: ct padded by n - s zeros on each side, then the
 * window of size n at n - s - start (the primitive's clamping of that start is the clamping of `start` to [0, n - s]).
 */
function dynamicSliceTranspose(c: TransposeCtx, ct: Atom, e: LinEqn): Atom {
  const shape = e.inputs[0]!.aval.shape;
  const sizes = e.params['slice_sizes'] as number[];
  const padded = c.bind('pad', [ct, lit(0, ct.aval.dtype)], { padding_config: shape.map((n, i) => [n - sizes[i]!, n - sizes[i]!, 0]) });
  const starts = e.inputs.slice(1).map((a, i) => c.bind('sub', [lit(shape[i]! - sizes[i]!, a.aval.dtype), a as Atom]));
  return c.bind('dynamic_slice', [padded, ...starts], { slice_sizes: [...shape] });
}

function gatherTranspose(c: TransposeCtx, ct: Atom, e: LinEqn): Atom {
  const zeros = zerosLike(c, e.inputs[0]!.aval);
  return c.bind('scatter_add', [zeros, e.inputs[1] as Atom, ct], scatterParamsOf(e.params));
}

function scatterAddJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  if (!ts[0] && !ts[2]) return { outs, tans: [null] };
  const g0 = ts[0] ?? full(c.op, xs[0]!.aval, 0);
  const g2 = ts[2] ?? full(c.op, xs[2]!.aval, 0);
  return { outs, tans: [asTan(c.op(e.prim, [g0, xs[1]!, g2], e.params))] };
}

function scatterAddTranspose(c: TransposeCtx, ct: Atom, e: LinEqn): (Atom | null)[] {
  const [x, idx, upd] = e.inputs;
  const updT = isLin(upd) ? c.bind('gather', [ct, idx as Atom], gatherParamsOf(e.params, x!.aval.shape, upd.aval.shape)) : null;
  return [isLin(x) ? ct : null, null, updT];
}

/**
 * JAX's _scatter_jvp. With unique indices, the scatter of the tangents. Else
 * JAX's scheme: scatter positive ids of the updates, gather them back, keep
 * only the operand elements no update replaced and the updates that won,
 * and scatter-add both (primal and tangent alike), so that no scatter needs
 * a transpose.
 */
function scatterJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const [x, idx, upd] = xs as [Atom, Atom, Atom];
  if (e.params['unique_indices']) {
    const outs = c.primal();
    if (!ts[0] && !ts[2]) return { outs, tans: [null] };
    return { outs, tans: [asTan(c.op('scatter', [ts[0] ?? full(c.op, x.aval, 0), idx, ts[2] ?? full(c.op, upd.aval, 0)], e.params))] };
  }
  const dn = e.params['dimension_numbers'] as ScatterDims;
  const updShape = [...upd.aval.shape];
  const idsShape = updShape.map((d, i) => (dn.update_window_dims.includes(i) ? 1 : d));
  const numIds = idsShape.reduce((a, b) => a * b, 1);
  const iota = c.op('iota', [], { dtype: 'uint32', shape: [numIds], dimension: 0, sharding: null });
  let ids = c.op('add', [c.op('reshape', [iota], { new_sizes: idsShape, dimensions: null }), full(c.op, { shape: idsShape, dtype: 'uint32' }, 1)]);
  if (!same(idsShape, updShape)) ids = c.op('broadcast_in_dim', [ids], { shape: updShape, broadcast_dimensions: range(updShape.length) });
  const scattered = c.op('scatter', [full(c.op, { shape: x.aval.shape, dtype: 'uint32' }, 0), idx, ids], e.params) as Atom;
  const gathered = c.op('gather', [scattered, idx], gatherParamsOf(e.params, x.aval.shape, updShape, 'promise_in_bounds'));
  const kept = c.op('eq', [scattered, full(c.op, scattered.aval, 0)]);
  const won = c.op('eq', [ids, gathered]);
  const mask = (m: LAtom, v: LAtom): LAtom => select(c, m, v, full(c.op, v.aval, 0));
  const outs = [c.op('scatter_add', [mask(kept, x), idx, mask(won, upd)], e.params) as Atom];
  if (!ts[0] && !ts[2]) return { outs, tans: [null] };
  const g0 = mask(kept, ts[0] ?? full(c.op, x.aval, 0));
  const g2 = mask(won, ts[2] ?? full(c.op, upd.aval, 0));
  return { outs, tans: [asTan(c.op('scatter_add', [g0, idx, g2], e.params))] };
}

/** JAX's _scatter_transpose_rule (unique indices only, as JAX). */
function scatterTranspose(c: TransposeCtx, ct: Atom, e: LinEqn): (Atom | null)[] {
  const [x, idx, upd] = e.inputs;
  const opT = isLin(x) ? c.bind('scatter', [ct, idx as Atom, zerosLike(c, upd!.aval)], e.params) : null;
  const updT = isLin(upd) ? c.bind('gather', [ct, idx as Atom], gatherParamsOf(e.params, x!.aval.shape, upd.aval.shape)) : null;
  return [opT, null, updT];
}

/** JAX's scatter_mul JVP: linear in the operand; in the updates only with unique indices. */
function scatterMulJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  let acc: Tan = null;
  if (ts[0]) acc = asTan(c.op('scatter_mul', [ts[0], xs[1]!, xs[2]!], e.params));
  if (ts[2]) {
    if (!e.params['unique_indices']) throw new Error('NotImplementedError: scatter_mul gradients are only implemented if `unique_indices=True`');
    const added = c.op('scatter_add', [full(c.op, xs[0]!.aval, 0), xs[1]!, ts[2]], e.params);
    acc = addTangents(c, acc, asTan(mul(c, xs[0]!, added)));
  }
  return { outs, tans: [acc] };
}

/** JAX's _sort_jvp: sort an iota along, then gather each tangent by the permutation. */
function sortJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const shape = [...xs[0]!.aval.shape];
  const dim = e.params['dimension'] as number;
  const iotas = shape.map((_, d) => c.op('iota', [], { dtype: 'int32', shape, dimension: d, sharding: null }) as Atom);
  const sorted = c.opN('sort', [...xs, iotas[dim]!], e.params) as Atom[];
  const perm = sorted[sorted.length - 1]!;
  const outs = sorted.slice(0, -1);
  if (ts.every((t) => !t)) return { outs, tans: outs.map(() => null) };
  // t[idx] with idx = (iota_0, …, perm, …): one index vector per element
  const col = shape.map((_, d) => c.op('broadcast_in_dim', [d === dim ? perm : iotas[d]!], { shape: [...shape, 1], broadcast_dimensions: range(shape.length) }) as Atom);
  const indices = col.length === 1 ? col[0]! : (c.op('concatenate', col, { dimension: shape.length }) as Atom);
  const params: Params = {
    dimension_numbers: { offset_dims: [], collapsed_slice_dims: range(shape.length), start_index_map: range(shape.length), operand_batching_dims: [], start_indices_batching_dims: [] },
    slice_sizes: shape.map(() => 1),
    indices_are_sorted: false,
    unique_indices: false,
    mode: 'promise_in_bounds',
    fill_value: null,
  };
  return { outs, tans: ts.map((t) => (t ? asTan(c.op('gather', [t, indices], params)) : null)) };
}

/**
 * JAX's _scatter_extremal_jvp (scatter-min/-max): the tangent of each element
 * is shared among the values that tie for the result there (the operand's
 * own value counting as one when it is kept).
 */
function scatterExtremalJvp(c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn): JvpOut {
  const outs = c.primal();
  const [x, idx, upd] = xs as [Atom, Atom, Atom];
  if (!ts[0] && !ts[2]) return { outs, tans: [null] };
  const gOp = ts[0] ?? full(c.op, x.aval, 0);
  const gUpd = ts[2] ?? full(c.op, upd.aval, 0);
  const dn = e.params['dimension_numbers'] as ScatterDims;
  const gp: Params = {
    dimension_numbers: gatherDimsOf(dn),
    slice_sizes: scatterSliceSizes(x.aval.shape, upd.aval.shape, dn),
    indices_are_sorted: false,
    unique_indices: false,
    mode: 'promise_in_bounds',
    fill_value: null,
  };
  const sp: Params = { dimension_numbers: dn, indices_are_sorted: false, unique_indices: false, mode: 'fill', update_jaxpr: null, update_consts: [] };
  const gather = (a: LAtom): LAtom => c.op('gather', [a, idx], gp);
  const initial = gather(x);
  const target = gather(outs[0]!);
  const successful = c.op('eq', [upd, target]);
  const retained = c.op('eq', [initial, target]);
  const zerosX = full(c.op, x.aval, 0);
  const ones = full(c.op, upd.aval, 1);
  const zeros = full(c.op, upd.aval, 0);
  const numUpdates = gather(c.op('scatter_add', [zerosX, idx, select(c, successful, ones, zeros)], sp));
  const numRefs = gather(c.op('scatter_add', [zerosX, idx, ones], sp));
  const recip = (v: LAtom): LAtom => div(c, k(c, v, 1), v);
  const updatesNormalizer = select(c, retained, recip(add(c, numUpdates, k(c, numUpdates, 1))), recip(numUpdates));
  const updatesCoef = select(c, successful, updatesNormalizer, zeros);
  const operandNormalizer = select(c, retained, recip(add(c, numUpdates, k(c, numUpdates, 1))), full(c.op, numUpdates.aval, 0));
  const operandCoef = div(c, add(c, k(c, operandNormalizer, -1), operandNormalizer), numRefs);
  const tangentUpdates = add(c, mul(c, gather(gOp), operandCoef), mul(c, gUpd, updatesCoef));
  return { outs, tans: [asTan(c.op('scatter_add', [gOp, idx, tangentUpdates], { ...e.params, update_jaxpr: null }))] };
}

// ------------------------------------------------------------------ control flow (JAX's jvp, partial eval and transpose of cond / while / scan)

/** What a control-flow JVP needs of the linearize walk: the primal builder and the linear binder. */
interface LinCtx {
  b: FuncBuilder;
  opN: (prim: Prim, inputs: LAtom[], params?: Params) => LAtom[];
}

const plain = (a: AVal): AVal => ({ shape: a.shape, dtype: a.dtype });

/**
 * JAX's partial evaluation of a JVP (linearize) of `g`, differentiated with
 * respect to the parameters marked in `wrt`: `primal` maps g's parameters to
 * [g's results..., residuals...]; `lin` maps [residuals..., one tangent per
 * `wrt` parameter...] to the tangents of the results marked in `outMask`
 * (zeros instantiated). `nz`: which results' tangents are not symbolically zero.
 */
function splitLinear(g: Func, wrt: boolean[], outMask: boolean[]): { primal: Func; lin: Func; nRes: number; nz: boolean[] } {
  const { b, read, tan, linEqns, seeds } = linearizeFunc(g, wrt, `${g.name}_primal`, 'linearize');
  const res: Atom[] = [];
  const resIdx = new Map<number, number>();
  for (const e of linEqns) {
    for (const a of e.inputs) if (a.kind === 'var' && !resIdx.has(a.id)) resIdx.set(a.id, res.push(a) - 1);
  }
  const primal = dce(b.finish([...g.results.map(read), ...res], g.axisEnv));
  const lb = new FuncBuilder(`${g.name}_lin`);
  const resP = res.map((r) => lb.addParam(r.aval));
  const val = new Map<number, Atom>();
  for (const s of seeds) if (s) val.set(s.id, lb.addParam(s.aval));
  const rd = (a: LAtom): Atom => (isLin(a) ? val.get(a.id)! : a.kind === 'lit' ? a : resP[resIdx.get(a.id)!]!);
  for (const e of linEqns) {
    // (in no jit region: a control-flow body is compiled whole anyway, and vjpSplit's is transposed, whose
    // equations take none)
    const outs = lb.bind(e.prim, e.inputs.map(rd), e.params);
    e.outputs.forEach((o, i) => val.set(o.id, outs[i]!));
  }
  const nz = g.results.map((r) => r.kind === 'var' && tan.has(r.id));
  const touts = g.results.flatMap((r, j) => (!outMask[j] ? [] : [nz[j] ? val.get(tan.get((r as { id: number }).id)!.id)! : zerosOf(lb, plain(r.aval))]));
  return { primal, lin: dce(lb.finish(touts, g.axisEnv)), nRes: res.length, nz };
}

/**
 * JAX's vjp with its residuals as values (what a VJP object carries): `fwd`
 * maps f's parameters to [f's results..., residuals...]; `bwd` maps
 * [residuals..., one cotangent per leading `nCt` result...] to the cotangent
 * of each `wrt` parameter. `resParam[k]`: the parameter that residual k is (a
 * primal saved as it is), or -1.
 */
export function vjpSplit(f: Func, wrt: boolean[], nCt: number): { fwd: Func; bwd: Func; resParam: number[] } {
  const { primal, lin, nRes } = splitLinear(f, wrt, f.results.map((_, j) => j < nCt));
  const resParam = primal.results.slice(f.results.length).map((r) => (r.kind === 'var' ? primal.params.findIndex((p) => p.id === r.id) : -1));
  return { fwd: primal, bwd: transposeFunc(lin, lin.params.map((_, i) => i >= nRes)), resParam };
}

/**
 * The transpose of a function linear in the parameters marked `linear`:
 * parameters [the others (residuals)..., one cotangent per result...],
 * results: the cotangent of each linear parameter.
 */
function transposeFunc(lin: Func, linear: boolean[], vma?: (readonly string[])[]): Func {
  const nOut = lin.results.length;
  const v = vjpFunc(lin, linear, { cotangentParams: nOut, name: `${lin.name}_T`, ...(vma ? { vma } : {}) });
  const b = new FuncBuilder(`${lin.name}_T`);
  const args: Atom[] = lin.params.map(() => lit(0, 'float32'));
  lin.params.forEach((p, i) => {
    if (!linear[i]) args[i] = b.addParam(p.aval, p.hint);
  });
  const cts = lin.results.map((r) => b.addParam(plain(r.aval), 'ct'));
  lin.params.forEach((p, i) => {
    if (linear[i]) args[i] = zerosOf(b, plain(p.aval));
  });
  const outs = b.inline(v, [...args, ...cts]).slice(nOut);
  return dce(b.finish(outs, lin.axisEnv));
}

/** `f` with its parameters in a new order: new parameter k is f's parameter `order[k]`. */
function permuteParams(f: Func, order: number[], results?: (outs: Atom[], b: FuncBuilder) => Atom[]): Func {
  const b = new FuncBuilder(f.name);
  const ps = order.map((i) => b.addParam(f.params[i]!.aval, f.params[i]!.hint));
  const args: Atom[] = [];
  order.forEach((i, k) => (args[i] = ps[k]!));
  const outs = b.inline(f, args);
  return b.finish(results ? results(outs, b) : outs, f.axisEnv);
}

function controlJvp(c: LinCtx, e: Eqn, xs: Atom[], ts: Tan[]): JvpOut {
  if (e.prim === 'cond') return condJvp(c, e, xs, ts);
  if (e.prim === 'scan') return scanJvp(c, e, xs, ts);
  if (e.prim === 'shard_map') return shardMapJvp(c, e, xs, ts);
  return whileJvp(c, e, xs, ts);
}

/** JAX's cond JVP + partial eval: a primal cond giving every branch's residuals (zeros from the other branches), and a linear cond of the branches' tangent parts. */
function condJvp({ b, opN }: LinCtx, e: Eqn, xs: Atom[], ts: Tan[]): JvpOut {
  const [index, ...ops] = xs;
  const tops = ts.slice(1);
  const branches = e.params['branches'] as Func[];
  const nOut = e.outputs.length;
  const wrt = tops.map((t) => !!t);
  const outMask = e.outputs.map((o) => isInexact(o.aval.dtype));
  const splits = branches.map((g) => splitLinear(g, wrt, outMask));
  const resAvals = splits.flatMap((s) => s.primal.results.slice(nOut).map((r) => plain(r.aval)));
  const offs: number[] = [];
  splits.reduce((acc, s) => (offs.push(acc), acc + s.nRes), 0);
  const primals = splits.map((s, k) =>
    permuteParams(s.primal, range(s.primal.params.length), (r, pb) => [
      ...r.slice(0, nOut),
      ...resAvals.map((a, i) => (i >= offs[k]! && i < offs[k]! + s.nRes ? r[nOut + i - offs[k]!]! : zerosOf(pb, a))),
    ]),
  );
  const all = b.bind('cond', [index!, ...ops], { ...e.params, branches: primals });
  const outs = all.slice(0, nOut);
  const res = all.slice(nOut);
  const nT = wrt.filter((w) => w).length;
  const lins = splits.map((s, k) => {
    const lb = new FuncBuilder(`${s.lin.name}_cond`);
    const rp = resAvals.map((a) => lb.addParam(a));
    const tp = s.lin.params.slice(s.nRes).map((p) => lb.addParam(p.aval));
    return lb.finish(lb.inline(s.lin, [...rp.slice(offs[k]!, offs[k]! + s.nRes), ...tp]), s.lin.axisEnv);
  });
  void nT;
  const tanIns = tops.filter((t): t is Lin => !!t);
  const tOut = outMask.some((m) => m) ? opN('cond', [index!, ...res, ...tanIns], { branches: lins }) : [];
  let q = 0;
  return { outs, tans: e.outputs.map((_, j) => (outMask[j] ? asTan(tOut[q++]!) : null)) };
}

/** Zeros for the missing cotangents of `e`'s outputs. */
const fullCts = (c: TransposeCtx, cts: (Atom | null)[], e: LinEqn): Atom[] => cts.map((ct, i) => ct ?? zerosLike(c, e.outputs[i]!.aval));

/** The transpose of a linear cond: a cond of the transposed branches (index and residuals as they are). */
function condTranspose(c: TransposeCtx, cts: (Atom | null)[], e: LinEqn): (Atom | null)[] {
  const [index, ...rest] = e.inputs;
  const linear = rest.map(isLin);
  const branches = (e.params['branches'] as Func[]).map((g) => transposeFunc(g, linear));
  const res = rest.filter((a) => !isLin(a)) as Atom[];
  const outs = c.bindN('cond', [index as Atom, ...res, ...fullCts(c, cts, e)], { branches });
  let k = 0;
  return [null, ...rest.map((a) => (isLin(a) ? outs[k++]! : null))];
}

/**
 * JAX's scan JVP + partial eval: the carry tangents found by a fixpoint; a
 * primal scan also stacking the residuals of every step, and a linear scan
 * of the body's tangent part over them.
 */
function scanJvp({ b, opN }: LinCtx, e: Eqn, xs: Atom[], ts: Tan[]): JvpOut {
  const nC = e.params['num_consts'] as number;
  const nK = e.params['num_carry'] as number;
  const body = e.params['jaxpr'] as Func;
  const nX = xs.length - nC - nK;
  const tc = ts.slice(0, nC);
  const tk = ts.slice(nC, nC + nK);
  const tx = ts.slice(nC + nK);
  const floatOut = body.results.map((r) => isInexact(r.aval.dtype));
  let carryNz = tk.map((t) => !!t);
  let split: ReturnType<typeof splitLinear>;
  for (;;) {
    split = splitLinear(body, [...tc.map((t) => !!t), ...carryNz, ...tx.map((t) => !!t)], [...carryNz, ...floatOut.slice(nK)]);
    const nz = split.nz;
    if (!carryNz.some((z, i) => !z && nz[i])) break;
    carryNz = carryNz.map((z, i) => z || nz[i]!);
  }
  const nRes = split.nRes;
  const nY = body.results.length - nK;
  // primal: the scan with the residuals as extra stacked outputs
  const all = b.bind('scan', xs, { ...e.params, jaxpr: split.primal });
  const outs = all.slice(0, nK + nY);
  const resStacked = all.slice(nK + nY);
  // linear: consts = const tangents, carry = carry tangents, xs = [residuals, x tangents]
  const lin = split.lin;
  const nTc = tc.filter((t) => t).length;
  const nTk = carryNz.filter((z) => z).length;
  const nTx = tx.filter((t) => t).length;
  // lin's parameters: [res, tc, tk, tx] → the scan's order [tc, tk, res, tx]
  const linBody = permuteParams(lin, [...range(nTc, nRes), ...range(nTk, nRes + nTc), ...range(nRes), ...range(nTx, nRes + nTc + nTk)]);
  const carryIn = tk.flatMap((t, i) => (carryNz[i] ? [t ?? (opN('broadcast_in_dim', [lit(0, xs[nC + i]!.aval.dtype)], { shape: [...xs[nC + i]!.aval.shape], broadcast_dimensions: [] })[0]!)] : []));
  const yMask = floatOut.slice(nK);
  const tOut = nTk + yMask.filter((m) => m).length
    ? opN('scan', [...tc.filter((t): t is Lin => !!t), ...carryIn, ...resStacked, ...tx.filter((t): t is Lin => !!t)], {
        ...e.params,
        jaxpr: linBody,
        num_consts: nTc,
        num_carry: nTk,
      })
    : [];
  void nX;
  let q = 0;
  const tans: Tan[] = [];
  for (let i = 0; i < nK; i++) tans.push(carryNz[i] ? asTan(tOut[q++]!) : null);
  for (let j = 0; j < nY; j++) tans.push(yMask[j] ? asTan(tOut[q++]!) : null);
  return { outs, tans };
}

/**
 * JAX's scan transpose: a reverse scan of the transposed body, carrying the
 * cotangents of the carry and accumulating those of the linear constants
 * (existing + new); non-linear constants and xs (residuals) pass as they are.
 */
function scanTranspose(c: TransposeCtx, cts: (Atom | null)[], e: LinEqn): (Atom | null)[] {
  const nC = e.params['num_consts'] as number;
  const nK = e.params['num_carry'] as number;
  const body = e.params['jaxpr'] as Func;
  const length = e.params['length'] as number;
  const consts = e.inputs.slice(0, nC);
  const xsIn = e.inputs.slice(nC + nK);
  const linC = consts.map(isLin);
  const linX = xsIn.map(isLin);
  const T = transposeFunc(body, [...linC, ...range(nK).map(() => true), ...linX]);
  const nlC = consts.filter((a) => !isLin(a)) as Atom[];
  const res = xsIn.filter((a) => !isLin(a)) as Atom[];
  const lC = consts.filter(isLin);
  const nY = e.outputs.length - nK;
  // the transposed body: [non-linear consts..., acc..., ct carry..., residuals_i..., ct y_i...] → [acc'..., ct carry..., ct x_i...]
  const tb = new FuncBuilder(`${body.name}_T`);
  const pNl = nlC.map((a) => tb.addParam(a.aval));
  const pAcc = lC.map((a) => tb.addParam(plain(a.aval)));
  const pCt = body.params.slice(nC, nC + nK).map((p) => tb.addParam(plain(p.aval)));
  const pRes = res.map((a) => tb.addParam({ shape: a.aval.shape.slice(1), dtype: a.aval.dtype }));
  const pY = body.results.slice(nK).map((r) => tb.addParam(plain(r.aval)));
  const g = tb.inline(T, [...pNl, ...pRes, ...pCt, ...pY]);
  const acc = pAcc.map((a, i) => tb.bind1('add', [a, g[i]!]));
  const tBody = tb.finish([...acc, ...g.slice(lC.length)], body.axisEnv);
  const full = fullCts(c, cts, e);
  const outs = c.bindN('scan', [...nlC, ...lC.map((l) => zerosLike(c, l.aval)), ...full.slice(0, nK), ...res, ...full.slice(nK)], {
    ...e.params,
    jaxpr: tBody,
    length,
    reverse: e.params['reverse'] !== true,
    num_consts: nlC.length,
    num_carry: lC.length + nK,
  });
  void nY;
  let a = 0;
  let x = lC.length + nK;
  return [
    ...consts.map((q) => (isLin(q) ? outs[a++]! : null)),
    ...range(nK).map((i) => outs[lC.length + i]!),
    ...xsIn.map((q) => (isLin(q) ? outs[x++]! : null)),
  ];
}

/**
 * JAX's while JVP: a while over (carry, carry tangents) with the body's JVP,
 * the carry tangents found by a fixpoint. It is recorded as a linear equation
 * (forward mode binds it as it is); it has no transpose, as in JAX.
 */
function whileJvp({ b, opN }: LinCtx, e: Eqn, xs: Atom[], ts: Tan[]): JvpOut {
  const cn = e.params['cond_nconsts'] as number;
  const bn = e.params['body_nconsts'] as number;
  const body = e.params['body_jaxpr'] as Func;
  const cond = e.params['cond_jaxpr'] as Func;
  const nK = xs.length - cn - bn;
  const tb = ts.slice(cn, cn + bn);
  const tk = ts.slice(cn + bn);
  const wrtB = tb.map((t) => !!t);
  let carryNz = tk.map((t) => !!t);
  for (;;) {
    const nz = splitLinear(body, [...wrtB, ...carryNz], carryNz).nz;
    if (!carryNz.some((z, i) => !z && nz[i])) break;
    carryNz = carryNz.map((z, i) => z || nz[i]!);
  }
  const outs = b.bind('while', xs, e.params);
  const jb = jvpFunc(body, [...wrtB, ...carryNz], { name: `${body.name}_jvp` });
  const nTb = wrtB.filter((w) => w).length;
  const nTk = carryNz.filter((z) => z).length;
  // jb's parameters: [consts, carry, t consts, t carry] → [consts, t consts, carry, t carry]; results: carry, the tangents of carryNz
  const newBody = permuteParams(jb, [...range(bn), ...range(nTb, bn + nK), ...range(nK, bn), ...range(nTk, bn + nK + nTb)], (r) => [
    ...r.slice(0, nK),
    ...r.slice(nK).filter((_, i) => carryNz[i]),
  ]);
  const cb = new FuncBuilder(`${cond.name}_jvp`);
  const cps = cond.params.map((p) => cb.addParam(p.aval, p.hint));
  for (let i = 0; i < nTk; i++) cb.addParam(plain(xs[cn + bn + carryNz.map((z, j) => (z ? j : -1)).filter((j) => j >= 0)[i]!]!.aval));
  const newCond = cb.finish(cb.inline(cond, cps), cond.axisEnv);
  const carryT = tk.flatMap((t, i) => (carryNz[i] ? [t ?? (opN('broadcast_in_dim', [lit(0, xs[cn + bn + i]!.aval.dtype)], { shape: [...xs[cn + bn + i]!.aval.shape], broadcast_dimensions: [] })[0]!)] : []));
  const lin = opN('while', [...xs.slice(0, cn + bn), ...tb.filter((t): t is Lin => !!t), ...xs.slice(cn + bn), ...carryT], {
    cond_jaxpr: newCond,
    cond_nconsts: cn,
    body_jaxpr: newBody,
    body_nconsts: bn + nTb,
  });
  let q = nK;
  return { outs, tans: range(nK).map((i) => (carryNz[i] ? asTan(lin[q++]!) : null)) };
}

// ------------------------------------------------------------------ shard_map (JAX's _shard_map_jvp, partial eval and transpose)

/** The mesh axes (in mesh order) of each value in `atoms` of a shard_map body whose parameters vary as `params` say. */
function varyingIn(body: Func, params: (readonly string[])[], atoms: Atom[], mesh: readonly string[]): string[][] {
  const vma = vmaOfFunc(body, params);
  return atoms.map((a) => {
    const set = a.kind === 'var' ? (vma.get(a.id) ?? new Set<string>()) : new Set<string>();
    return mesh.filter((n) => set.has(n));
  });
}

/**
 * shard_map's JVP with partial evaluation: a primal shard_map of the body's
 * primal part that also gives its residuals (each a block of shape [1, ...]
 * stacked over the mesh axes it varies over, as JAX's residual specs), and
 * a linear shard_map of the body's tangent part over them.
 */
function shardMapJvp({ b, opN }: LinCtx, e: Eqn, xs: Atom[], ts: Tan[]): JvpOut {
  const p = shardMapParams(e.params);
  const body = p.jaxpr;
  const nOut = body.results.length;
  const wrt = ts.map((t) => !!t);
  const outMask = e.outputs.map((o) => isInexact(o.aval.dtype));
  const split = splitLinear(body, wrt, outMask);
  const resAtoms = split.primal.results.slice(nOut);
  const inVma = p.in_specs.map(specAxes);
  const axes = p.check_vma ? varyingIn(split.primal, inVma, resAtoms, p.newly_manual_axes) : resAtoms.map(() => [...p.newly_manual_axes]);
  // a residual is stacked on its leading dimension over the axes it varies over (a scalar first becomes [1])
  const resSpecs: Spec[] = axes.map((ax) => (ax.length ? [ax.length === 1 ? ax[0]! : ax] : []));
  const scalar = (a: AVal): boolean => a.shape.length === 0;
  // JAX's order: the residuals, then the results
  const primal = permuteParams(split.primal, range(body.params.length), (r, pb) => [
    ...r.slice(nOut).map((x) => (scalar(x.aval) ? pb.bind1('reshape', [x], { new_sizes: [1], dimensions: null }) : x)),
    ...r.slice(0, nOut),
  ]);
  const all = b.bind('shard_map', xs, asParams({ ...p, jaxpr: primal, out_specs: [...resSpecs, ...p.out_specs] }));
  const res = all.slice(0, resSpecs.length);
  const outs = all.slice(resSpecs.length);
  if (!outMask.some((m) => m)) return { outs, tans: outs.map(() => null) };
  // the linear body: [residual blocks..., tangents...] → the tangents of the float results
  const lb = new FuncBuilder(`${split.lin.name}_shmap`);
  const rp = resAtoms.map((a) => lb.addParam(scalar(a.aval) ? { ...plain(a.aval), shape: [1] } : plain(a.aval)));
  const tp = split.lin.params.slice(split.nRes).map((q) => lb.addParam(q.aval));
  const rs = rp.map((q, i) => (scalar(resAtoms[i]!.aval) ? lb.bind1('reshape', [q], { new_sizes: [], dimensions: null }) : q));
  const linBody = lb.finish(lb.inline(split.lin, [...rs, ...tp]), split.lin.axisEnv);
  const tanIns = ts.filter((t): t is Lin => !!t);
  const tOut = opN('shard_map', [...res, ...tanIns], asParams({
    ...p,
    jaxpr: linBody,
    in_specs: [...resSpecs, ...p.in_specs.filter((_, i) => wrt[i])],
    out_specs: p.out_specs.filter((_, j) => outMask[j]),
  }));
  let q = 0;
  return { outs, tans: e.outputs.map((_, j) => (outMask[j] ? asTan(tOut[q++]!) : null)) };
}

/**
 * shard_map's transpose: a shard_map of the transposed body, on the
 * non-linear operands and the results' cotangents, giving the cotangents of
 * the linear operands laid out as their in_specs. With check_vma the body's
 * vma types put the psums in (pvary's transpose); without it, as JAX does,
 * a result's cotangent is divided by the size of the axes its out_spec leaves
 * out and an operand's cotangent psum-med over those its in_spec leaves out.
 */
function shardMapTranspose(c: TransposeCtx, cts: (Atom | null)[], e: LinEqn): (Atom | null)[] {
  const p = shardMapParams(e.params);
  const linear = e.inputs.map(isLin);
  const env = p.jaxpr.axisEnv ?? [];
  const unmentioned = (s: Spec): string[] => p.newly_manual_axes.filter((n) => !specAxes(s).includes(n));
  const sizeOf = (names: string[]): number => names.reduce((k, n) => k * (env.find((a) => a.name === n)?.size ?? 1), 1);
  const T = transposeFunc(p.jaxpr, linear, p.check_vma ? p.in_specs.map(specAxes) : undefined);
  const full = fullCts(c, cts, e).map((ct, j) => {
    const n = p.check_vma ? 1 : sizeOf(unmentioned(p.out_specs[j]!));
    return n === 1 ? ct : c.bind('div', [ct, full0(c, ct.aval, n)]);
  });
  // JAX's order: the cotangents, then the non-linear operands
  const nonLin = e.inputs.filter((a) => !isLin(a)) as Atom[];
  const nOut = e.outputs.length;
  const inSpecs = [...p.out_specs, ...p.in_specs.filter((_, i) => !linear[i])];
  const linSpecs = p.in_specs.filter((_, i) => linear[i]);
  const ordered = permuteParams(T, [...range(nOut, nonLin.length), ...range(nonLin.length)], (outs, tb) =>
    p.check_vma
      ? outs
      : outs.map((o, k) => {
          const names = unmentioned(linSpecs[k]!);
          return names.length ? tb.bind1('psum', [o], { axes: names, axis_size: sizeOf(names) }) : o;
        }),
  );
  const body = p.check_vma ? explicitPvary(ordered, inSpecs.map(specAxes), env) : ordered;
  const outs = c.bindN('shard_map', [...full, ...nonLin], asParams({ ...p, jaxpr: body, in_specs: inSpecs, out_specs: linSpecs }));
  let k = 0;
  return e.inputs.map((a) => (isLin(a) ? outs[k++]! : null));
}

/** A constant `v` shaped like `a`, bound through a transpose context. */
function full0(c: TransposeCtx, a: AVal, v: number): Atom {
  return full((prim, inputs, params) => c.bind(prim, inputs, params), a, v);
}
