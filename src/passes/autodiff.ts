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
// `add` in JAX's order (existing + new).
//
// Rules mirror jax/_src/lax/lax.py (special.py, slicing.py, parallel.py)
// operation for operation, so that float32 results match JAX to the ulp. Zero
// tangents and cotangents stay symbolic (null) and cost nothing; a gradient
// that is zero everywhere becomes a broadcast of a literal 0. Where JAX relies
// on implicit rank-0 broadcasting (`mul 2.0:f32[] x`), constants here are
// broadcasts of a literal — the same values.
import { FuncBuilder, lit } from '../ir/builder.js';
import type { DotDims } from '../ir/primitives.js';
import { shapeRule } from '../ir/primitives.js';
import type { Prim } from '../ir/prims.js';
import type { Atom, AVal, DType, Eqn, Func, Params } from '../ir/types.js';
import { isFloat } from '../ir/types.js';
import { dce } from './simplify.js';

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
}

export interface JvpCtx {
  /** Bind `prim`: a linear equation when an input is a tangent, else a primal equation now. */
  op(prim: Prim, inputs: LAtom[], params?: Params): LAtom;
  opN(prim: Prim, inputs: LAtom[], params?: Params): LAtom[];
  /** The equation being differentiated, bound on its primal inputs (JAX's `primitive.bind(*primals)`). */
  primal(): Atom[];
  /** Run the JVP of another primitive (for rules written in terms of others, like reduce_prod). */
  jvp(prim: Prim, xs: Atom[], ts: Tan[], params: Params): JvpOut;
}

export interface JvpOut {
  outs: Atom[];
  tans: Tan[];
}

export type JvpRule = (c: JvpCtx, xs: Atom[], ts: Tan[], e: Eqn) => JvpOut;

export interface TransposeCtx {
  /** `mark.transposed`: flag the equation as a transposed dot_general (see Eqn.transposed). */
  bind(prim: Prim, inputs: Atom[], params?: Params, mark?: { transposed?: true }): Atom;
  /** Bind the equations of `f` on `args` (custom calls in it replaced by their functions). */
  inline(f: Func, args: Atom[]): Atom[];
}

/** Cotangents of a linear equation's inputs (null: none) from those of its outputs. */
export type TransposeRule = (c: TransposeCtx, cts: (Atom | null)[], e: LinEqn) => (Atom | null)[];

const isLin = (a: LAtom | null | undefined): a is Lin => !!a && a.kind === 'lin';

function castValue(v: number, dtype: DType): number {
  if (dtype === 'float32') return Math.fround(v);
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
const k = (c: JvpCtx, like: LAtom, v: number): Atom => full(c.op, like.aval, v);
/** lax.select(pred, on_true, on_false) */
const select = (c: JvpCtx, pred: LAtom, onTrue: LAtom, onFalse: LAtom): LAtom => c.op('select_n', [pred, onFalse, onTrue]);

/** JAX's `_balanced_eq(x, z, y)`: 1 where x == z, halved where y == z too (ties share the gradient). */
function balancedEq(c: JvpCtx, x: Atom, z: Atom, y: Atom): LAtom {
  return div(c, select(c, c.op('eq', [x, z]), k(c, z, 1), k(c, z, 0)), select(c, c.op('eq', [y, z]), k(c, z, 2), k(c, z, 1)));
}

/** JAX's `_replace_zero(x)`: x with zeros replaced by ones. */
const replaceZero = (c: JvpCtx, x: Atom): LAtom => select(c, c.op('eq', [x, k(c, x, 0)]), k(c, x, 1), x);

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const argsort = (xs: readonly number[]): number[] => range(xs.length).sort((a, b) => xs[a]! - xs[b]!);

// ------------------------------------------------------------------ JVP rules

/** JAX's `max_p` rule (also min's): the tangent goes to the chosen operand, split evenly on ties. */
const maxJvp = defjvp(
  (c, g, [x, y], ans) => mul(c, g, balancedEq(c, x!, ans, y!)),
  (c, g, [x, y], ans) => mul(c, g, balancedEq(c, y!, ans, x!)),
);

/**
 * One entry per primitive; null: no differentiation rule (JAX has none for
 * pmax/pmin; dynamic_slice's would need dynamic_update_slice for its
 * transpose). Integer- and bool-valued results never carry a tangent
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
  log1p: defjvp((c, g, [x]) => div(c, g, add(c, x!, k(c, x!, 1)))),
  expm1: defjvp((c, g, _xs, ans) => mul(c, g, add(c, ans, k(c, ans, 1)))),
  tanh: defjvp((c, g, [x], ans) => mul(c, add(c, g, mul(c, g, ans)), sub(c, k(c, x!, 1), ans))),
  logistic: defjvp((c, g, _xs, ans) => mul(c, g, mul(c, ans, sub(c, k(c, ans, 1), ans)))),
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
  abs: defjvp((c, g, [x]) => select(c, c.op('ge', [x!, k(c, x!, 0)]), g, neg(c, g))),

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
    if (!ts[0] || !isFloat(to) || !isFloat(xs[0]!.aval.dtype)) return { outs, tans: [null] };
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
    (c, g, [x, y]) => mul(c, g, mul(c, y!, c.op('pow', [x!, sub(c, y!, k(c, y!, 1))]))),
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
  dynamic_slice: null,

  reduce_max: (c, xs, ts, e) => chooser(c, xs, ts, e),
  reduce_min: (c, xs, ts, e) => chooser(c, xs, ts, e),

  reduce_prod: (c, xs, ts, e) => reduceProdJvp(c, xs[0]!, ts[0]!, e.params['axes'] as number[]),

  dot_general: defjvp(
    (c, g, [, y], _ans, p) => c.op('dot_general', [g, y!], p),
    (c, g, [x], _ans, p) => c.op('dot_general', [x!, g], p),
  ),

  // collectives (parallel.py): linear, except pmax/pmin which JAX cannot differentiate
  psum: linear,
  all_gather: linear,
  psum_scatter: linear,
  all_to_all: linear,
  ppermute: linear,
  pmax: null,
  pmin: null,
  // functions with custom derivative rules: linearizeFunc applies their rules itself
  custom_jvp_call: null,
  custom_vjp_call: null,
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

/** JAX's `_dot_general_transpose_lhs` (and, swapped, `_rhs`). */
function dotTransposeLhs(c: TransposeCtx, g: Atom, x: AVal, y: Atom, dn: DotDims, params: Params, swapAns: boolean): Atom {
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
  const out = c.bind('dot_general', [g, y], { ...params, dimension_numbers: dims }, { transposed: true });
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
  sharding_constraint: unaryT((c, ct, e) => c.bind('sharding_constraint', [ct], e.params)),
  add: (_c, [ct], e) => e.inputs.map((a) => (isLin(a) ? ct! : null)),
  sub: (c, [ct], e) => [isLin(e.inputs[0]) ? ct! : null, isLin(e.inputs[1]) ? c.bind('neg', [ct!]) : null],
  mul: (c, [ct], e) => {
    const [x, y] = e.inputs;
    return isLin(x) ? [c.bind('mul', [ct!, y as Atom]), null] : [null, c.bind('mul', [x as Atom, ct!])];
  },
  div: (c, [ct], e) => [c.bind('div', [ct!, e.inputs[1] as Atom]), null],
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
    return c.bind('broadcast_in_dim', [ct], { shape: [...shape], broadcast_dimensions: range(shape.length).filter((d) => !axes.includes(d)) });
  }),
  dot_general: (c, [ct], e) => {
    const [x, y] = e.inputs;
    const dn = e.params['dimension_numbers'] as DotDims;
    if (isLin(x)) return [dotTransposeLhs(c, ct!, x.aval, y as Atom, dn, e.params, false), null];
    const swapped: DotDims = { contract: [dn.contract[1], dn.contract[0]], batch: [dn.batch[1], dn.batch[0]] };
    return [null, dotTransposeLhs(c, ct!, y!.aval, x as Atom, swapped, e.params, true)];
  },

  // collectives: psum's transpose is a psum (psum = psum + pbroadcast under pmap)
  psum: (c, cts, e) => {
    const all = cts.map((ct, i) => ct ?? zerosLike(c, e.outputs[i]!.aval));
    return all.length === 1 ? [c.bind('psum', all, e.params)] : all.map((a) => c.bind('psum', [a], e.params));
  },
  all_gather: renamedCollective('psum_scatter', 'all_gather_dimension', 'scatter_dimension'),
  psum_scatter: renamedCollective('all_gather', 'scatter_dimension', 'all_gather_dimension'),
  // all_to_all moves blocks from split_axis to concat_axis; its transpose moves them back
  all_to_all: unaryT((c, ct, e) =>
    c.bind('all_to_all', [ct], { ...e.params, split_axis: e.params['concat_axis'], concat_axis: e.params['split_axis'] }),
  ),
  ppermute: unaryT((c, ct, e) =>
    c.bind('ppermute', [ct], { ...e.params, perm: (e.params['perm'] as [number, number][]).map(([s, d]) => [d, s]) }),
  ),
  // the backward function of a custom_vjp, on the residuals and the output cotangents (zeros instantiated)
  custom_vjp_call: (c, cts, e) => {
    const nRes = e.params['num_res'] as number;
    const res = e.inputs.slice(0, nRes) as Atom[];
    const full = cts.map((ct, i) => ct ?? zerosLike(c, e.outputs[i]!.aval));
    const ins = c.inline(e.params['bwd'] as Func, [...res, ...full]);
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
}

/** What the forward (linearize) walk leaves: the primal program bound into `b`, and the linear program. */
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
function linearizeFunc(f: Func, wrt: boolean[], name: string, what: string): Linearized {
  const b = new FuncBuilder(name);
  const env = new Map<number, Atom>();
  const tan = new Map<number, Lin>();
  const linEqns: LinEqn[] = [];
  let nextLin = 0;
  const newLin = (a: AVal): Lin => ({ kind: 'lin', id: nextLin++, aval: { shape: a.shape, dtype: a.dtype } });
  const seeds = f.params.map((p, i) => {
    env.set(p.id, b.addParam(p.aval, p.hint));
    if (!wrt[i]) return null;
    if (!isFloat(p.aval.dtype)) throw new Error(`${what}: cannot differentiate with respect to a ${p.aval.dtype} parameter`);
    const t = newLin(p.aval);
    tan.set(p.id, t);
    return t;
  });
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);

  const opN = (prim: Prim, inputs: LAtom[], params: Params = {}): LAtom[] => {
    if (!inputs.some(isLin)) return b.bind(prim, inputs as Atom[], params);
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
    const ctx: JvpCtx = { op: (p, i, q) => opN(p, i, q)[0]!, opN, primal, jvp: (p, x, t, q) => jvpOf(p, x, t, q) };
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
      const anyFloat = e.outputs.some((o) => isFloat(o.aval.dtype));
      const r = eqnJvp(e, xs, anyFloat ? ts : ts.map(() => null));
      e.outputs.forEach((o, i) => {
        genv.set(o.id, r.outs[i]!);
        const t = r.tans[i];
        if (t && isFloat(o.aval.dtype)) gtan.set(o.id, t);
      });
    }
    return { outs: g.results.map(rd), tans: g.results.map((a) => (a.kind === 'var' ? (gtan.get(a.id) ?? null) : null)) };
  };
  const walkNew = (g: Func, ins: Atom[], tins: Tan[]): JvpOut => walk(g, ins, tins, new Map(), new Map());
  const zeroTan = (t: Tan, x: Atom): LAtom => t ?? full((p, i, q) => opN(p, i, q)[0]!, x.aval, 0);

  /** JAX's custom_jvp under differentiation: the rule's primal results, its tangents recorded as linear equations. */
  const customJvp = (e: Eqn, xs: Atom[], ts: Tan[]): JvpOut => {
    const call = e.params['call'] as Func;
    if (ts.every((t) => !t)) return walkNew(call, xs, ts);
    const rule = e.params['jvp'] as Func;
    const renv = new Map<number, LAtom>();
    [...xs, ...xs.map((x, i) => zeroTan(ts[i] ?? null, x))].forEach((a, i) => renv.set(rule.params[i]!.id, a));
    const rd = (a: Atom): LAtom => (a.kind === 'lit' ? a : renv.get(a.id)!);
    for (const q of rule.eqns) {
      const ins = q.inputs.map(rd);
      let outs: LAtom[];
      if (isCustomCall(q.prim)) {
        if (ins.some(isLin)) throw new Error(`TypeError: a custom_jvp rule applies a function with a custom derivative to tangents, which jaxts cannot differentiate`);
        outs = eqnJvp(q, ins as Atom[], ins.map(() => null)).outs;
      } else {
        outs = opN(q.prim, ins, q.params);
      }
      q.outputs.forEach((o, i) => renv.set(o.id, outs[i]!));
    }
    const n = call.results.length;
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
    if (ts.every((t) => !t)) return walkNew(call, xs, ts);
    const fwd = walkNew(e.params['fwd'] as Func, xs, xs.map(() => null));
    const n = call.results.length;
    const res = fwd.outs.slice(n);
    const tans = opN('custom_vjp_call', [...res, ...xs.map((x, i) => zeroTan(ts[i] ?? null, x))], { ...e.params, num_res: res.length });
    return { outs: fwd.outs.slice(0, n), tans: tans.map(asTan) };
  };

  const eqnJvp = (e: Eqn, xs: Atom[], ts: Tan[]): JvpOut => {
    if (e.prim === 'custom_jvp_call') return customJvp(e, xs, ts);
    if (e.prim === 'custom_vjp_call') return customVjp(e, xs, ts);
    return jvpOf(e.prim, xs, ts, e.params, e.span);
  };

  // f's own parameters are already bound (env); walk its equations
  const top = walk({ ...f, params: [] }, [], [], env, tan);
  void top;
  return { b, read, tan, linEqns, seeds };
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
  if (nCt === 0 && (!out0 || out0.aval.shape.length !== 0 || !isFloat(out0.aval.dtype))) {
    throw new Error('vjpFunc: the first result must be a float32 scalar');
  }
  const { b, read, tan, linEqns, seeds } = linearizeFunc(f, wrt, opts.name ?? `${f.name}_vjp`, 'vjpFunc');

  // backward: transpose the linear equations in reverse
  const ct = new Map<number, Atom>();
  const accum = (l: Lin, x: Atom): void => {
    const prev = ct.get(l.id);
    ct.set(l.id, prev ? b.bind1('add', [prev, x]) : x);
  };
  if (nCt === 0) {
    const tOut = out0!.kind === 'var' ? tan.get(out0!.id) : undefined;
    if (tOut) accum(tOut, lit(1, out0!.aval.dtype));
  } else {
    const ctParams = f.results.slice(0, nCt).map((r) => b.addParam({ shape: r.aval.shape, dtype: r.aval.dtype }, 'ct'));
    f.results.slice(0, nCt).forEach((r, i) => {
      const t = r.kind === 'var' ? tan.get(r.id) : undefined;
      if (t) accum(t, ctParams[i]!);
    });
  }
  const tctx: TransposeCtx = {
    bind: (p, i, q = {}, mark) => {
      const v = b.bind1(p, i, q);
      if (mark?.transposed) b.eqns[b.eqns.length - 1]!.transposed = true;
      return v;
    },
    inline: (g, args) => inlineExpanded((p, i, q, span) => b.bind(p, i, q, span), g, args),
  };
  for (let i = linEqns.length - 1; i >= 0; i--) {
    const e = linEqns[i]!;
    const cts = e.outputs.map((o) => {
      const v = ct.get(o.id) ?? null;
      ct.delete(o.id);
      return v;
    });
    if (cts.every((v) => !v)) continue;
    const rule = TRANSPOSE_RULES[e.prim];
    if (!rule) throw new Error(`internal: no transpose rule for linear primitive '${e.prim}'`);
    const res = rule(tctx, cts, e);
    e.inputs.forEach((a, j) => {
      const r = res[j];
      if (isLin(a) && r) accum(a, r);
    });
  }

  const grads = f.params.flatMap((p, i) => {
    const s = seeds[i];
    if (!s) return [];
    let g = ct.get(s.id) ?? lit(0, p.aval.dtype);
    if (g.kind === 'lit') g = b.bind1('broadcast_in_dim', [g], { shape: [...p.aval.shape], broadcast_dimensions: [] });
    // a cotangent takes its primal's weak type, as JAX's vjp casts it
    const weak = p.aval.weak === true;
    if ((g.aval.weak === true) !== weak) g = b.bind1('convert_element_type', [g], { new_dtype: p.aval.dtype, weak_type: weak });
    return [g];
  });
  return dce(b.finish([...f.results.map(read), ...grads], f.axisEnv));
}

export interface JvpOptions {
  /** Name of the new Func (default: `<name>_jvp`). */
  name?: string;
  /** How many leading results get a tangent (default: all); the rest pass through (`has_aux`). */
  tangentResults?: number;
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
    e.outputs.forEach((o, i) => val.set(o.id, outs[i]!));
  }
  const n = opts.tangentResults ?? f.results.length;
  const tangents = f.results.slice(0, n).map((r) => {
    const t = r.kind === 'var' ? tan.get(r.id) : undefined;
    return t ? val.get(t.id)! : zerosOf(b, r.aval);
  });
  return dce(b.finish([...f.results.map(read), ...tangents], f.axisEnv));
}
