// Every primitive of the IR, defined once: its name (the key of PRIMS, as in
// JAX's jaxprs) and the facts other stages ask about it. The per-primitive
// rule tables (shape: ir/primitives.ts; JVP and transpose: passes/autodiff.ts;
// batching: passes/vmap.ts; kernel elements: passes/index_rules.ts; sharding
// links: passes/sharding.ts; partitioning: passes/spmd.ts) are keyed by `Prim`
// or a subset of it named here, so a primitive added to PRIMS makes `tsc`
// name every full table that lacks it. The two partial tables (transpose
// rules, spmd's LINEAR) list their default takers in
// test/ir/rule_tables.test.ts.

/** The classification facts of one primitive. Absent flags are false. */
export interface PrimInfo {
  /** Output element i depends only on element i of each operand (rank-0 operands aside). */
  readonly elementwise?: true;
  /** Operands must be float32 (jnp promotes integers first, as JAX's promote_args_inexact). */
  readonly floatOnly?: true;
  /** The result is never weakly typed (JAX strips weak_type for it). */
  readonly strong?: true;
  /** Only moves or selects operand values: a NaN in its result came from an operand. */
  readonly moves?: true;
  /**
   * Work per element in a fused kernel (passes/fusion.ts): `index` — index
   * arithmetic only, no arithmetic node; `arith` — one arithmetic node (cheap
   * enough to recompute in several consumers); `costly` — a polyfilled
   * transcendental or the PRNG, never recomputed; `loop` — a reduction or
   * contraction loop per element.
   */
  readonly cost: 'index' | 'arith' | 'costly' | 'loop';
  /**
   * Named mesh axes: `collective` — communicates between the devices of the
   * axes it names (lowered to a device gather plus local work before fusion);
   * `position` — reads the device's position along them.
   */
  readonly axes?: 'collective' | 'position';
  /** Control flow: its params hold sub-functions (Funcs); it runs as a step of its own (never fused), its sub-functions as nested programs. */
  readonly control?: true;
}

const DESCRIPTORS = {
  // unary float math
  sin: { elementwise: true, floatOnly: true, cost: 'costly' },
  cos: { elementwise: true, floatOnly: true, cost: 'costly' },
  tan: { elementwise: true, floatOnly: true, cost: 'costly' },
  exp: { elementwise: true, floatOnly: true, cost: 'costly' },
  exp2: { elementwise: true, floatOnly: true, cost: 'costly' },
  log: { elementwise: true, floatOnly: true, cost: 'costly' },
  log1p: { elementwise: true, floatOnly: true, cost: 'costly' },
  expm1: { elementwise: true, floatOnly: true, cost: 'costly' },
  tanh: { elementwise: true, floatOnly: true, cost: 'costly' },
  logistic: { elementwise: true, floatOnly: true, cost: 'costly' },
  // sqrt and rsqrt are single native instructions (XLA:GPU counts f32 sqrt/rsqrt as cheap too)
  sqrt: { elementwise: true, floatOnly: true, cost: 'arith' },
  rsqrt: { elementwise: true, floatOnly: true, cost: 'arith' },
  erf: { elementwise: true, floatOnly: true, cost: 'costly' },
  erf_inv: { elementwise: true, floatOnly: true, cost: 'costly' },
  // unary, any dtype
  neg: { elementwise: true, cost: 'arith' },
  sign: { elementwise: true, cost: 'arith' },
  abs: { elementwise: true, cost: 'arith' },
  floor: { elementwise: true, cost: 'arith' },
  ceil: { elementwise: true, cost: 'arith' },
  round: { elementwise: true, cost: 'arith' },
  copy: { elementwise: true, moves: true, cost: 'index' },
  not: { elementwise: true, cost: 'arith' },
  is_finite: { elementwise: true, strong: true, cost: 'arith' },
  // the identity whose cotangent is zero
  stop_gradient: { elementwise: true, cost: 'index' },
  // the identity that makes a value vary over mesh axes (inside shard_map; its transpose is a psum)
  pvary: { elementwise: true, moves: true, cost: 'index' },
  integer_pow: { elementwise: true, cost: 'arith' },
  convert_element_type: { elementwise: true, moves: true, cost: 'arith' },
  bitcast_convert_type: { elementwise: true, strong: true, cost: 'arith' },
  // binary arithmetic
  add: { elementwise: true, cost: 'arith' },
  sub: { elementwise: true, cost: 'arith' },
  mul: { elementwise: true, cost: 'arith' },
  div: { elementwise: true, cost: 'arith' },
  rem: { elementwise: true, cost: 'arith' },
  pow: { elementwise: true, cost: 'costly' },
  max: { elementwise: true, cost: 'arith' },
  min: { elementwise: true, cost: 'arith' },
  atan2: { elementwise: true, cost: 'costly' },
  // complex numbers (passes/complex.ts rewrites complex64 values into float32 parts before the kernels):
  // complex(re, im) of two float32 operands; real, imag (complex64 → float32); conj (complex64)
  complex: { elementwise: true, cost: 'arith' },
  real: { elementwise: true, cost: 'arith' },
  imag: { elementwise: true, cost: 'arith' },
  conj: { elementwise: true, cost: 'arith' },
  // bitwise and logical
  and: { elementwise: true, cost: 'arith' },
  or: { elementwise: true, cost: 'arith' },
  xor: { elementwise: true, cost: 'arith' },
  shift_left: { elementwise: true, cost: 'arith' },
  shift_right_logical: { elementwise: true, cost: 'arith' },
  shift_right_arithmetic: { elementwise: true, cost: 'arith' },
  // comparisons
  eq: { elementwise: true, strong: true, cost: 'arith' },
  ne: { elementwise: true, strong: true, cost: 'arith' },
  lt: { elementwise: true, strong: true, cost: 'arith' },
  le: { elementwise: true, strong: true, cost: 'arith' },
  gt: { elementwise: true, strong: true, cost: 'arith' },
  ge: { elementwise: true, strong: true, cost: 'arith' },
  select_n: { elementwise: true, moves: true, cost: 'arith' },
  // lax.clamp(min, x, max): min and max are scalars or shaped like x
  clamp: { elementwise: true, cost: 'arith' },
  // JAX's counter-based PRNG block: two uint32 results
  threefry2x32: { elementwise: true, strong: true, cost: 'costly' },
  // movement
  broadcast_in_dim: { moves: true, cost: 'index' },
  reshape: { moves: true, cost: 'index' },
  transpose: { moves: true, cost: 'index' },
  squeeze: { moves: true, cost: 'index' },
  rev: { moves: true, cost: 'index' },
  slice: { moves: true, cost: 'index' },
  dynamic_slice: { moves: true, cost: 'arith' },
  pad: { moves: true, cost: 'arith' },
  concatenate: { moves: true, cost: 'arith' },
  iota: { strong: true, cost: 'arith' },
  // the identity whose result is laid out as params.dims says over the program's mesh (jax.reshard,
  // the mesh casts of auto_axes / explicit_axes); partitioning turns it into the collectives it needs
  sharding_constraint: { moves: true, cost: 'index' },
  // reductions and contraction
  reduce_sum: { cost: 'loop' },
  reduce_max: { cost: 'loop' },
  reduce_min: { cost: 'loop' },
  reduce_prod: { cost: 'loop' },
  argmax: { strong: true, cost: 'loop' },
  argmin: { strong: true, cost: 'loop' },
  dot_general: { cost: 'loop' },
  // lax.conv_general_dilated with JAX's params (window_strides, padding, lhs_dilation, rhs_dilation,
  // dimension_numbers {lhs_spec, rhs_spec, out_spec}, feature_group_count, batch_group_count)
  conv_general_dilated: { cost: 'loop' },
  // lax.reduce_window with a monoid (params window_dimensions, window_strides, padding, base_dilation,
  // window_dilation): padded elements are the monoid's identity
  reduce_window_sum: { cost: 'loop' },
  reduce_window_max: { cost: 'loop' },
  reduce_window_min: { cost: 'loop' },
  // indexing (ir/indexing.ts): gather reads one operand element per output element; a scatter loops
  // over the updates (its IR keys spell JAX's hyphens as underscores: scatter_add is scatter-add);
  // sort is lowered to ranks and a scatter before fusion (passes/sort_lowering.ts)
  gather: { moves: true, cost: 'arith' },
  scatter: { moves: true, cost: 'loop' },
  scatter_add: { cost: 'loop' },
  scatter_mul: { cost: 'loop' },
  scatter_min: { cost: 'loop' },
  scatter_max: { cost: 'loop' },
  sort: { moves: true, cost: 'loop' },
  // named mesh axes (lowered before fusion: their cost class is never asked)
  psum: { axes: 'collective', cost: 'arith' },
  pmax: { axes: 'collective', cost: 'arith' },
  pmin: { axes: 'collective', cost: 'arith' },
  all_gather: { axes: 'collective', moves: true, cost: 'arith' },
  psum_scatter: { axes: 'collective', moves: true, cost: 'arith' },
  ppermute: { axes: 'collective', moves: true, cost: 'arith' },
  all_to_all: { axes: 'collective', moves: true, cost: 'arith' },
  axis_index: { axes: 'position', strong: true, cost: 'arith' },
  // a call of a function with a custom derivative rule (params: the traced functions). It only exists
  // inside functions being differentiated: autodiff replaces it by the primal call or the rule, and a
  // program never contains one (its cost class is never asked)
  custom_jvp_call: { cost: 'loop' },
  custom_vjp_call: { cost: 'loop' },
  // control flow (lax.cond / switch, while_loop, scan / fori_loop / map), with JAX's params:
  //   cond[branches]                                    index, ops...      → branch results
  //   while[cond_jaxpr body_jaxpr cond_nconsts body_nconsts] cond consts, body consts, carry → carry
  //   scan[jaxpr length reverse unroll num_consts num_carry linear] consts, carry, xs → carry, stacked ys
  cond: { control: true, cost: 'loop' },
  while: { control: true, cost: 'loop' },
  scan: { control: true, cost: 'loop' },
  //   shard_map[jaxpr mesh in_specs out_specs check_vma newly_manual_axes]  args... → results: the per-device
  //   body `jaxpr` run on every device of `mesh` (ir/shard_map.ts); spmd partitioning inlines it
  shard_map: { control: true, cost: 'loop' },
} as const satisfies Record<string, PrimInfo>;

/** A primitive's name. */
export type Prim = keyof typeof DESCRIPTORS;

/** Every primitive's facts. */
export const PRIMS: Readonly<Record<Prim, PrimInfo>> = DESCRIPTORS;

/** Every primitive, in the order PRIMS lists them. */
export const PRIM_NAMES = Object.keys(PRIMS) as Prim[];

/** The primitives whose descriptor has the facts `F`. */
type Having<F> = { [K in Prim]: (typeof DESCRIPTORS)[K] extends F ? K : never }[Prim];

export type ElementwisePrim = Having<{ readonly elementwise: true }>;
/** Primitives with their own (non-elementwise) rule in the batching, sharding and partitioning tables. */
export type StructuralPrim = Exclude<Prim, ElementwisePrim>;
export type CollectivePrim = Having<{ readonly axes: 'collective' }>;

/** True for primitives that map element i of the inputs to element i of the output. */
export type ControlPrim = Having<{ readonly control: true }>;

/** True for control-flow primitives (their params hold sub-functions). */
export const isControl = (prim: Prim): prim is ControlPrim => PRIMS[prim].control === true;

export const isElementwise = (prim: Prim): prim is ElementwisePrim => PRIMS[prim].elementwise === true;
