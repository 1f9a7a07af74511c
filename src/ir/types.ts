// The array IR: three small records, as in JAX's autodidax.
//   Var  — an SSA value with an abstract type (shape + dtype)
//   Eqn  — `outs = prim[params](inputs)`
//   Func — typed parameters, equations in order, results
// Primitive names and params follow JAX's jaxprs so that a dump reads like one.
import type { DType, NanOrigin } from '../../runtime/program.js';
import { DTYPES } from './dtypes.js';
import type { Span } from '../common/span.js';
import type { Prim } from './prims.js';

/** Element types: the runtime's (runtime/program.ts declares the kernel-program format). */
export type { DType, NanOrigin };

/** Abstract value: what is known at compile time about an array. */
export interface AVal {
  shape: readonly number[];
  dtype: DType;
  /** JAX's weak type: a Python scalar that has not yet met a typed array. */
  weak?: boolean;
}

export interface Var {
  kind: 'var';
  id: number; // unique within a Func
  aval: AVal;
  /** A name from the Python source, for dumps and generated code. */
  hint?: string;
}

export interface Lit {
  kind: 'lit';
  value: number; // bools as 0/1
  aval: AVal; // always rank 0
}

export type Atom = Var | Lit;

export type Params = Record<string, unknown>;

export interface Eqn {
  prim: Prim;
  inputs: Atom[];
  outputs: Var[];
  params: Params;
  span?: Span;
  /**
   * Set on a dot_general made by autodiff's transpose rule (a weight
   * gradient). In JAX such a dot carries out_sharding = the primal operand's
   * sharding, so in Explicit sharding mode it does not raise when both
   * contracting dimensions are sharded: its result is unsharded on those
   * axes (an all-reduce). Not a param: it does not print.
   */
  transposed?: true;
  /**
   * A dot_general's `out_sharding=` (jnp.dot(..., out_sharding=P(...))), as
   * mesh axes per result dimension: under Explicit axes its result is laid
   * out so, sharded contracting dimensions included (their partial sums are
   * reduced to it), as JAX's dot_general sharding rule allows then.
   */
  outSharding?: string[][];
  /** Under jax_debug_nans: where it was applied (the traceback and jit levels its NaN check reports). */
  nanOrigin?: NanOrigin;
  /**
   * The mesh axes of an `out_sharding=P(..., unreduced={...})`: the result
   * keeps its partial sums over them (each device its own), unreduced in its
   * type, until a reshard adds them up. Not a param.
   */
  outUnreduced?: string[];
  /**
   * Set by autodiff's transpose of reduce_sum on its broadcast: JAX gives it
   * out_sharding = the operand's sharding, so over Explicit axes it is laid
   * out like this value (a var of the same function). Not a param.
   */
  shardingLike?: Var;
  /**
   * Set on autodiff's transposed dot_general: the primal value whose
   * cotangent it computes. A value reduced over mesh axes (`{R:X}`) has an
   * unreduced cotangent (`{U:X}`), as JAX's cotangent shardings have it. Not a param.
   */
  cotangentOf?: Var;
  /**
   * Set on the broadcast_in_dim of an operand of a binary operation (`x *
   * 2.0`, `m + v`): JAX broadcasts only to the rank (a rank-0 operand not at
   * all) and leaves size-1 axes to lax's implicit broadcasting; make_jaxpr
   * shows it so (src/ir/jaxpr_printer.ts). Not a param.
   */
  operandBroadcast?: true;
  /**
   * Set on the `add` by which autodiff's transpose accumulates the cotangents
   * of a value used more than once: JAX's add_any, and make_jaxpr prints it so. Not a param.
   */
  addAny?: true;
  /**
   * Set where JAX's batching rule computes the equation's axes with NumPy (vmap of a reduction, an unbatched
   * operand's broadcast): make_jaxpr prints its `axes` / `broadcast_dimensions` as np.int64(n). Not a param.
   */
  numpyParams?: true;
  /** With numpyParams: how many leading entries are plain ints all the same (the batch axes an outer vmap added). */
  numpyPlainLead?: number;
  /**
   * The jit calls nested in a traced function that this equation was traced
   * in (inlined there), outermost first: make_jaxpr shows each as a jit
   * equation (src/ir/jaxpr_printer.ts). Not a param.
   */
  calls?: EqnCall[];
  /**
   * Set on the equations of one call of a jax.numpy function that JAX compiles with jit (linspace,
   * mean, polyval, ...; src/lower/jnp_jitted.ts) traced in a host segment: XLA compiles that call as
   * one computation, so the rewrites of whole programs (passes/xla_algebraic.ts, fma_contraction.ts)
   * apply among equations of the same region even in JAX's op-by-op execution. Under a transformation
   * run op by op (jax.grad, jacfwd, vmap outside jit) the call stays one computation: its JVP and batched
   * equations keep its region, its transposed ones form a region of their own. Not a param.
   */
  jitRegion?: number;
}

let lastJitRegion = 0;

/** A jit region (Eqn.jitRegion) no equation has yet. */
export const freshJitRegion = (): number => ++lastJitRegion;

/** A jit call inlined into the function that calls it (see Eqn.calls). */
export interface EqnCall {
  name: string;
  inputs: Atom[];
  outputs: Atom[];
  /**
   * The equation JAX shows for the call (default `jit`: a custom_jvp / custom_vjp function's
   * custom_jvp_call / custom_vjp_call, a checkpoint's remat2) and its params in JAX's order,
   * each a text or null where the call's jaxpr goes (default: name, jaxpr).
   */
  prim?: string;
  params?: [string, string | null][];
}

export interface Func {
  name: string;
  params: Var[];
  eqns: Eqn[];
  results: Atom[];
  /** Named mapped axes in scope (pmap axis_name → size), for collectives. */
  axisEnv?: { name: string; size: number }[];
}

export const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

export const sameShape = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((d, i) => d === b[i]);

/** Real floating dtypes (float32, float16, bfloat16). */
export const isFloat = (d: DType): boolean => DTYPES[d].kind === 'float';
/** Float or complex: the dtypes that carry tangents (JAX's inexact). */
export const isInexact = (d: DType): boolean => DTYPES[d].kind === 'float' || DTYPES[d].kind === 'complex';
export const isComplex = (d: DType): boolean => DTYPES[d].kind === 'complex';
export const isInt = (d: DType): boolean => DTYPES[d].kind === 'int' || DTYPES[d].kind === 'uint';

export const avalStr = (a: AVal): string => `${shortDtype(a.dtype)}[${a.shape.join(',')}]`;
/** An array type as JAX's error messages write it: `float32[3,4]`, `bool[]`. */
export const jaxTypeStr = (a: AVal): string => `${a.dtype}[${a.shape.join(',')}]`;

export function shortDtype(d: DType): string {
  return DTYPES[d].short;
}
