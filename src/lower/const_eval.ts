// The concrete value of a traced array where JAX has one: differentiation
// outside jit (grad, vjp, jvp, jacobians, custom_jvp / custom_vjp rules)
// traces with concrete primals, so `if x < 3:`, `bool(x)`, `float(x)` and a
// boolean mask `x[mask]` work there; inside jit, pmap or vmap they stay JAX's
// concretization errors. jaxts traces every differentiation to IR with
// abstract parameters; a value is concrete at compile time when every input
// of its cone is a compile-time constant (a Python or NumPy number, a device
// constant made from one, the result of an eager host computation on such
// values), and no trace on the way up to the host stages its operations
// (jit, pmap, vmap). This module evaluates such a cone with float32
// arithmetic (each result rounded, as XLA computes on CPU); a primitive it
// has no rule for makes the value unknown.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { strides } from '../passes/index_math.js';
import type { GatherDims, GatherMode, ScatterDims } from '../ir/indexing.js';
import { isFloat, type Atom, type DType, type Eqn, type Func, type Var } from '../ir/types.js';
import { castScalar, jaxDtype } from './arrays.js';
import { HostArray, NdArray, NpScalar, Trace, Tracer, type PyValue } from './values.js';

/** A concrete array: row-major data, bools as 0/1. */
export interface Concrete {
  shape: number[];
  dtype: DType;
  data: number[];
}

/**
 * Why a traced value has no concrete value: 'staged' where JAX has none
 * either (inside jit, pmap or vmap; a tangent), 'runtime' where JAX has one
 * but jaxts learns it only when the program runs (a device array argument).
 */
export type NotConcrete = 'staged' | 'runtime';

/** Host arrays whose value is known at compile time: device constants and results of eager host computations on them. */
const knownHost = new WeakMap<HostArray, () => Concrete | NotConcrete>();

/** `h` holds the constant `nd` (a snapshot: a later in-place change of `nd` makes a new constant). */
export function noteHostConstant(h: HostArray, nd: NdArray): void {
  const value: Concrete = { shape: [...nd.shape], dtype: jaxDtype(nd.dtype), data: nd.data.map((v) => castScalar(v, jaxDtype(nd.dtype))) };
  knownHost.set(h, () => value);
}

/** `outs[i]` is result i of `func` applied to `args` by the host program (an eager host segment). */
export function noteHostResults(func: Func, args: HostArray[], outs: HostArray[]): void {
  const memo = new Map<number, Concrete | NotConcrete>();
  const leaf = (p: Var): Concrete | NotConcrete => {
    const i = func.params.indexOf(p);
    return i < 0 ? 'staged' : concreteValue(args[i]!);
  };
  outs.forEach((o, i) => knownHost.set(o, () => cone(func.eqns, func.results[i]!, leaf, memo)));
}

/** Traces that stage their operations: a value computed there has no concrete value in JAX. */
const STAGING = new Set<Trace['kind']>(['jit', 'pmap', 'vmap']);

/**
 * Variables made inside `with jax.ensure_compile_time_eval():` blocks, per trace: [first id, end id) ranges
 * (an open block ends at Infinity). JAX evaluates such operations eagerly, so a value among them whose cone
 * reaches no traced argument is concrete even inside jit; one that reaches one stays staged.
 */
const eagerRanges = new WeakMap<Trace, [number, number][]>();

/** Opens an ensure_compile_time_eval block on trace `t`; the function returned closes it. */
export function beginCompileTimeEval(t: Trace): () => void {
  const ranges = eagerRanges.get(t) ?? [];
  eagerRanges.set(t, ranges);
  const r: [number, number] = [t.builder.nextVarId, Infinity];
  ranges.push(r);
  return () => void (r[1] = t.builder.nextVarId);
}

function madeEagerly(v: Tracer): boolean {
  const a = v.atom;
  return a.kind === 'var' && (eagerRanges.get(v.trace)?.some(([lo, hi]) => a.id >= lo && a.id < hi) ?? false);
}

/** The value of a tracer made inside an ensure_compile_time_eval block when it is concrete (JAX shows it as an array). */
export function eagerValue(v: Tracer): Concrete | null {
  if (!madeEagerly(v)) return null;
  const c = concreteValue(v);
  return typeof c === 'string' ? null : c;
}

function staged(t: Trace): boolean {
  for (let s: Trace | null = t; s; s = s.parent) if (STAGING.has(s.kind)) return true;
  return false;
}

/** The concrete value of an array-like value, or why it has none. */
export function concreteValue(v: PyValue): Concrete | NotConcrete {
  // the budget counts one question's work (its cones through the traces above)
  if (depth === 0) spent = 0;
  depth++;
  try {
    return valueOf(v);
  } finally {
    depth--;
  }
}
let depth = 0;

function valueOf(v: PyValue): Concrete | NotConcrete {
  if (typeof v === 'number') return { shape: [], dtype: 'float32', data: [Math.fround(v)] };
  if (typeof v === 'bigint') return { shape: [], dtype: 'int32', data: [Number(BigInt.asIntN(32, v))] };
  if (typeof v === 'boolean') return { shape: [], dtype: 'bool', data: [v ? 1 : 0] };
  if (v instanceof NdArray) return { shape: [...v.shape], dtype: jaxDtype(v.dtype), data: v.data.map((x) => castScalar(x, jaxDtype(v.dtype))) };
  if (v instanceof NpScalar) return { shape: [], dtype: jaxDtype(v.dtype), data: [castScalar(v.value, jaxDtype(v.dtype))] };
  if (v instanceof HostArray) return knownHost.get(v)?.() ?? 'runtime';
  if (v instanceof Tracer) {
    if (v.materialized) return valueOf(v.materialized);
    if (staged(v.trace) && !madeEagerly(v)) return 'staged';
    const t = v.trace;
    let memo = memos.get(t);
    if (!memo) memos.set(t, (memo = new Map()));
    // a parameter stands for a value outside: a primal, or a captured value (none: a tangent)
    const leaf = (p: Var): Concrete | NotConcrete => {
      const outer = t.paramOuter(p);
      return outer === undefined ? 'staged' : valueOf(outer);
    };
    return cone(t.builder.eqns, v.atom, leaf, memo);
  }
  return 'runtime';
}

/** Values already computed, per trace and variable. */
const memos = new WeakMap<Trace, Map<number, Concrete | NotConcrete>>();

const litValue = (a: Atom & { kind: 'lit' }): Concrete => ({ shape: [], dtype: a.aval.dtype, data: [a.value] });

/**
 * The value of `a` among `eqns` (in order): the equations of its cone
 * evaluated, a variable no equation defines (a parameter) read by `leaf`;
 * `memo` keeps every value found.
 */
function cone(eqns: readonly Eqn[], a: Atom, leaf: (p: Var) => Concrete | NotConcrete, memo: Map<number, Concrete | NotConcrete>): Concrete | NotConcrete {
  if (a.kind === 'lit') return litValue(a);
  const known = memo.get(a.id);
  if (known !== undefined) return known;
  const { found, need } = coneOf(eqns, a, (id) => memo.has(id));
  for (const [id, p] of need) memo.set(id, leaf(p));
  const read = (x: Atom): Concrete | NotConcrete => (x.kind === 'lit' ? litValue(x) : memo.get(x.id) ?? 'staged');
  for (let i = found.length - 1; i >= 0; i--) {
    const e = found[i]!;
    const ins = e.inputs.map(read);
    const bad = ins.find((x): x is NotConcrete => typeof x === 'string');
    const outs = bad ? null : evalEqn(e, ins as Concrete[]);
    const why: NotConcrete = bad ?? 'runtime';
    e.outputs.forEach((o, k) => memo.set(o.id, outs ? outs[k]! : why));
  }
  return memo.get(a.id) ?? 'staged';
}

// ------------------------------------------------------------------ evaluation

/** Elements evaluated so far; past the budget a value counts as known only at run time (a cone too large to fold). */
let spent = 0;
const BUDGET = 20_000_000;

/** Evaluate `f` on concrete arguments (null: a primitive without a rule, or over budget). */
function evalFunc(f: Func, args: Concrete[]): Concrete[] | null {
  const memo = new Map<number, Concrete | NotConcrete>();
  const leaf = (p: Var): Concrete | NotConcrete => args[f.params.indexOf(p)] ?? 'staged';
  const outs = f.results.map((r) => cone(f.eqns, r, leaf, memo));
  return outs.some((o) => typeof o === 'string') ? null : (outs as Concrete[]);
}

const size = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

function each(shape: readonly number[], f: (idx: number[]) => void): void {
  const n = size(shape);
  const idx = shape.map(() => 0);
  for (let lin = 0; lin < n; lin++) {
    f(idx);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
    }
  }
}

function at(a: Concrete, idx: readonly number[]): number {
  const st = strides(a.shape);
  let lin = 0;
  idx.forEach((x, i) => (lin += x * st[i]!));
  return a.data[lin]!;
}

const UNARY: Partial<Record<string, (x: number) => number>> = {
  sin: Math.sin, cos: Math.cos, tan: Math.tan, exp: Math.exp, exp2: (x) => 2 ** x, log: Math.log, log1p: Math.log1p, expm1: Math.expm1,
  tanh: Math.tanh, logistic: (x) => 1 / (1 + Math.exp(-x)), sqrt: Math.sqrt, rsqrt: (x) => 1 / Math.sqrt(x), neg: (x) => -x,
  sign: (x) => (x > 0 ? 1 : x < 0 ? -1 : x), abs: Math.abs, floor: Math.floor, ceil: Math.ceil, round: (x) => Math.sign(x) * Math.round(Math.abs(x)),
  copy: (x) => x, stop_gradient: (x) => x, sharding_constraint: (x) => x, is_finite: (x) => (Number.isFinite(x) ? 1 : 0), convert_element_type: (x) => x,
};

const BINARY: Partial<Record<string, (a: number, b: number, dtype: DType) => number>> = {
  add: (a, b) => a + b, sub: (a, b) => a - b, mul: (a, b, d) => (d === 'float32' ? a * b : Math.imul(a, b)),
  div: (a, b, d) => (d === 'float32' ? a / b : b === 0 ? -1 : Math.trunc(a / b)), rem: (a, b, d) => (d !== 'float32' && b === 0 ? a : a % b), pow: Math.pow,
  max: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)), min: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b)),
  atan2: Math.atan2, and: (a, b) => a & b, or: (a, b) => a | b, xor: (a, b) => a ^ b,
  eq: (a, b) => +(a === b), ne: (a, b) => +(a !== b), lt: (a, b) => +(a < b), le: (a, b) => +(a <= b), gt: (a, b) => +(a > b), ge: (a, b) => +(a >= b),
};

const outShape = (e: Eqn, k = 0): number[] => [...e.outputs[k]!.aval.shape];
const elem = (x: Concrete, i: number): number => (x.data.length === 1 ? x.data[0]! : x.data[i]!);

function reduce(x: Concrete, axes: readonly number[], shape: number[], init: number, f: (acc: number, v: number) => number): number[] {
  const data = new Array<number>(size(shape)).fill(init);
  const ost = strides(shape);
  let lin = 0;
  each(x.shape, (idx) => {
    let o = 0;
    let j = 0;
    idx.forEach((v, d) => {
      if (!axes.includes(d)) o += v * ost[j++]!;
    });
    data[o] = f(data[o]!, x.data[lin++]!);
  });
  return data;
}

/** A value as `dtype` holds it (a NaN is true as a bool, as XLA converts it). */
const cast = (v: number, dtype: DType): number => (dtype === 'bool' ? +(v !== 0) : castScalar(v, dtype));

/** One equation's results (null: no rule here). */
function evalEqn(e: Eqn, ins: Concrete[]): Concrete[] | null {
  const n = Math.max(1, ...ins.map((x) => x.data.length), ...e.outputs.map((o) => size(o.aval.shape)));
  spent += n;
  if (spent > BUDGET) return null;
  const data = rule(e, ins);
  if (!data) return null;
  return e.outputs.map((o, k) => ({ shape: [...o.aval.shape], dtype: o.aval.dtype, data: data[k]!.map((v) => cast(v, o.aval.dtype)) }));
}

function rule(e: Eqn, ins: Concrete[]): number[][] | null {
  const p = e.params;
  const [x, y] = ins;
  const u = UNARY[e.prim];
  if (u) return [x!.data.map(u)];
  const b = BINARY[e.prim];
  if (b) return [Array.from({ length: size(outShape(e)) }, (_, i) => b(elem(x!, i), elem(y!, i), x!.dtype))];
  switch (e.prim) {
    case 'not':
      return [x!.data.map((v) => (x!.dtype === 'bool' ? 1 - v : ~v))];
    case 'integer_pow': {
      const k = p['y'] as number;
      // XLA multiplies by repeated squaring; each product rounds to float32
      const f32 = x!.dtype === 'float32';
      return [x!.data.map((v) => {
        let acc = 1;
        let base = v;
        for (let m = Math.abs(k); m; m >>= 1) {
          if (m & 1) acc = f32 ? Math.fround(acc * base) : Math.imul(acc, base);
          base = f32 ? Math.fround(base * base) : Math.imul(base, base);
        }
        return k < 0 ? 1 / acc : acc;
      })];
    }
    case 'select_n': {
      const cases = ins.slice(1);
      return [Array.from({ length: size(outShape(e)) }, (_, i) => elem(cases[elem(x!, i)]!, i))];
    }
    case 'clamp':
      return [Array.from({ length: size(outShape(e)) }, (_, i) => Math.min(Math.max(elem(y!, i), elem(x!, i)), elem(ins[2]!, i)))];
    case 'broadcast_in_dim': {
      const dims = p['broadcast_dimensions'] as number[];
      const out: number[] = [];
      each(outShape(e), (idx) => out.push(at(x!, dims.map((d, i) => (x!.shape[i] === 1 ? 0 : idx[d]!)))));
      return [out];
    }
    case 'reshape':
    case 'squeeze':
      return [[...x!.data]];
    case 'transpose': {
      const perm = p['permutation'] as number[];
      const out: number[] = [];
      each(outShape(e), (idx) => {
        const src = new Array<number>(perm.length);
        perm.forEach((q, i) => (src[q] = idx[i]!));
        out.push(at(x!, src));
      });
      return [out];
    }
    case 'rev': {
      const dims = p['dimensions'] as number[];
      const out: number[] = [];
      each(x!.shape, (idx) => out.push(at(x!, idx.map((v, d) => (dims.includes(d) ? x!.shape[d]! - 1 - v : v)))));
      return [out];
    }
    case 'slice': {
      const start = p['start_indices'] as number[];
      const st = (p['strides'] as number[] | null) ?? start.map(() => 1);
      const out: number[] = [];
      each(outShape(e), (idx) => out.push(at(x!, idx.map((v, d) => start[d]! + v * st[d]!))));
      return [out];
    }
    case 'concatenate': {
      const dim = p['dimension'] as number;
      const out: number[] = [];
      each(outShape(e), (idx) => {
        let i = idx[dim]!;
        let k = 0;
        while (i >= ins[k]!.shape[dim]!) i -= ins[k++]!.shape[dim]!;
        out.push(at(ins[k]!, idx.map((v, d) => (d === dim ? i : v))));
      });
      return [out];
    }
    case 'iota': {
      const dim = p['dimension'] as number;
      const out: number[] = [];
      each(outShape(e), (idx) => out.push(idx[dim]!));
      return [out];
    }
    case 'reduce_sum':
    case 'reduce_prod':
    case 'reduce_max':
    case 'reduce_min': {
      const axes = p['axes'] as number[];
      const f32 = x!.dtype === 'float32';
      const r = (f: (a: number, v: number) => number): (a: number, v: number) => number => (f32 ? (a, v) => Math.fround(f(a, v)) : f);
      const [init, f] = {
        reduce_sum: [0, r((a, v) => a + v)] as const,
        reduce_prod: [1, r((a, v) => a * v)] as const,
        reduce_max: [-Infinity, (a: number, v: number) => (Number.isNaN(a) || Number.isNaN(v) ? NaN : Math.max(a, v))] as const,
        reduce_min: [Infinity, (a: number, v: number) => (Number.isNaN(a) || Number.isNaN(v) ? NaN : Math.min(a, v))] as const,
      }[e.prim];
      return [reduce(x!, axes, outShape(e), init, f)];
    }
    case 'gather':
      return [gather(x!, y!, outShape(e), p['dimension_numbers'] as GatherDims, p['slice_sizes'] as number[], p['mode'] as GatherMode, p['fill_value'] as number | null)];
    case 'scatter':
    case 'scatter_add':
    case 'scatter_mul':
    case 'scatter_min':
    case 'scatter_max':
      return [scatter(e.prim, x!, y!, ins[2]!, p['dimension_numbers'] as ScatterDims, p['mode'] as GatherMode)];
    case 'custom_jvp_call':
    case 'custom_vjp_call': {
      // the function's primal part, on the call's operands
      const outs = evalFunc(p['call'] as Func, ins);
      return outs && outs.map((o) => o.data);
    }
    default:
      return null;
  }
}

/** The index vector of `indices` at batch position `batch` (the index vector is the last dimension). */
function indexVector(indices: Concrete, batch: readonly number[]): number[] {
  const k = indices.shape[indices.shape.length - 1]!;
  return Array.from({ length: k }, (_, j) => at(indices, [...batch, j]));
}

/** XLA's gather: start indices clamped into the operand (a fill mode fills windows that do not fit). */
function gather(x: Concrete, indices: Concrete, shape: number[], dn: GatherDims, sizes: number[], mode: GatherMode, fill: number | null): number[] {
  const windowDims = sizes.map((_, d) => d).filter((d) => !dn.collapsed_slice_dims.includes(d));
  const out: number[] = [];
  each(shape, (idx) => {
    const vec = indexVector(indices, idx.filter((_, d) => !dn.offset_dims.includes(d)));
    const start = x.shape.map(() => 0);
    dn.start_index_map.forEach((d, j) => (start[d] = vec[j]!));
    const fits = start.every((s0, d) => s0 >= 0 && s0 + sizes[d]! <= x.shape[d]!);
    if (mode === 'fill' && !fits) return void out.push(fill ?? (isFloat(x.dtype) ? NaN : 0));
    const src = start.map((s0, d) => Math.min(Math.max(s0, 0), x.shape[d]! - sizes[d]!));
    dn.offset_dims.forEach((o, w) => (src[windowDims[w]!]! += idx[o]!));
    out.push(at(x, src));
  });
  return out;
}

const COMBINE: Record<string, (a: number, b: number) => number> = {
  scatter: (_a, b) => b,
  scatter_add: (a, b) => a + b,
  scatter_mul: (a, b) => a * b,
  scatter_min: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b)),
  scatter_max: (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)),
};

/** XLA's scatter, updates applied in order: a window that does not fit is dropped (clip mode clamps its start). */
function scatter(prim: string, x: Concrete, indices: Concrete, updates: Concrete, dn: ScatterDims, mode: GatherMode): number[] {
  const out = [...x.data];
  const st = strides(x.shape);
  const windowDims = x.shape.map((_, d) => d).filter((d) => !dn.inserted_window_dims.includes(d));
  const sizes = x.shape.map((_, d) => (dn.inserted_window_dims.includes(d) ? 1 : updates.shape[dn.update_window_dims[windowDims.indexOf(d)]!]!));
  const combine = COMBINE[prim]!;
  const round = x.dtype === 'float32' ? Math.fround : (v: number): number => cast(v, x.dtype);
  let lin = 0;
  each(updates.shape, (idx) => {
    const v = updates.data[lin++]!;
    const vec = indexVector(indices, idx.filter((_, d) => !dn.update_window_dims.includes(d)));
    const start = x.shape.map(() => 0);
    dn.scatter_dims_to_operand_dims.forEach((d, j) => (start[d] = vec[j]!));
    const fits = start.every((s0, d) => s0 >= 0 && s0 + sizes[d]! <= x.shape[d]!);
    if (!fits && mode !== 'clip') return;
    const dst = start.map((s0, d) => Math.min(Math.max(s0, 0), x.shape[d]! - sizes[d]!));
    dn.update_window_dims.forEach((u, w) => (dst[windowDims[w]!]! += idx[u]!));
    const o = dst.reduce((acc, i, d) => acc + i * st[d]!, 0);
    out[o] = round(combine(out[o]!, v));
  });
  return out;
}

/**
 * jaxts's limit where JAX has a concrete value that jaxts learns only when
 * the program runs: `what` needs it while the program is compiled.
 */
export function runtimeOnlyError(what: string, span: Span): CompileError {
  return new CompileError(
    `NotImplementedError: ${what} needs the value of an array that JAX knows here (outside jit, differentiation and eager code work on concrete values), but that jaxts knows only when the program runs: it depends on a device array computed at run time`,
    span,
    ['jaxts decides this while it compiles the program: compute the choice with jnp.where or lax.cond, or pass a value known at compile time (a Python number or a constant array)'],
  );
}

// ------------------------------------------------------------------ run-time values: forking the host statement

/**
 * Thrown where a condition outside jit has a value known only at run time:
 * the host statement being lowered (stmt.ts execForking) computes `cond` in
 * the host program, reads it back, and lowers itself once per outcome in the
 * two arms of a run-time `if`, replaying the decisions taken so far.
 */
export class ForkRequest extends Error {
  constructor(
    readonly cond: PyValue,
    readonly span: Span,
  ) {
    super('internal: a fork request escaped its host statement');
  }
}

/** The most run-time decisions one host statement may take (each doubles its code). */
export const MAX_FORKS = 6;

/** The decisions replayed in the host statement being lowered (null: none forks). */
let replay: { decisions: boolean[]; next: number } | null = null;

/**
 * Lower `run` (a host statement) replaying `decisions` at its run-time
 * conditions; a new condition throws ForkRequest (null: none may fork, such
 * as a host loop's test, which is lowered once for every iteration).
 */
export function withDecisions<T>(decisions: boolean[] | null, run: () => T): T {
  const saved = replay;
  replay = decisions && { decisions, next: 0 };
  try {
    return run();
  } finally {
    replay = saved;
  }
}

/** The truth of `v`, a condition known only when the program runs, in the arm being lowered (or a fork request). */
export function runTimeDecision(v: PyValue, span: Span): boolean {
  if (!replay) throw runtimeOnlyError('this condition', span);
  if (replay.next < replay.decisions.length) return replay.decisions[replay.next++]!;
  if (replay.decisions.length >= MAX_FORKS) {
    throw new CompileError(
      `NotImplementedError: jaxts lowers this statement once per outcome of each condition on a value known only when the program runs, up to ${MAX_FORKS} conditions; this one takes more`,
      span,
      ['compute the choice with jnp.where or lax.cond (or lax.while_loop for a loop), or pass values known at compile time'],
    );
  }
  throw new ForkRequest(v, span);
}

/** Where the host segment builds a value's copy: its atom for a host value, and equations bound there. */
export interface HostBuilder {
  /** The host atom of a value that lives at host level (null: none, such as a stale traced value). */
  atom(v: PyValue): Atom | null;
  bind(e: Eqn, inputs: Atom[]): Atom[];
}

/**
 * The cone of `v` copied into the host segment: what the host program must
 * compute to know `v` (null where the cone reaches a staged value).
 */
export function hostCopy(v: PyValue, host: HostBuilder, memos = new Map<Trace, Map<number, Atom | null>>()): Atom | null {
  if (!(v instanceof Tracer) || v.materialized) return host.atom(v);
  const direct = host.atom(v);
  if (direct) return direct;
  const t = v.trace;
  if (staged(t)) return null;
  let memo = memos.get(t);
  if (!memo) memos.set(t, (memo = new Map()));
  if (v.atom.kind === 'lit') return v.atom;
  const want = v.atom;
  if (memo.has(want.id)) return memo.get(want.id)!;
  const eqns = t.builder.eqns;
  const { found, need } = coneOf(eqns, want, (id) => memo.has(id));
  for (const [id, p] of need) {
    const outer = t.paramOuter(p);
    memo.set(id, outer === undefined ? null : hostCopy(outer, host, memos));
  }
  for (let i = found.length - 1; i >= 0; i--) {
    const e = found[i]!;
    const ins = e.inputs.map((x) => (x.kind === 'lit' ? x : memo.get(x.id) ?? null));
    const outs = ins.every((x): x is Atom => x !== null) ? host.bind(e, ins) : null;
    e.outputs.forEach((o, k) => memo.set(o.id, outs ? outs[k]! : null));
  }
  return memo.get(want.id) ?? null;
}

/**
 * The equations `v` depends on, found walking back from the last one (latest first), and the
 * variables it reaches that no equation makes (parameters, or values `known` already holds).
 */
function coneOf(eqns: readonly Eqn[], v: Var, known: (id: number) => boolean): { found: Eqn[]; need: Map<number, Var> } {
  const need = new Map<number, Var>([[v.id, v]]);
  const found: Eqn[] = [];
  for (let i = eqns.length - 1; i >= 0 && need.size; i--) {
    const e = eqns[i]!;
    if (!e.outputs.some((o) => need.has(o.id))) continue;
    found.push(e);
    e.outputs.forEach((o) => need.delete(o.id));
    for (const x of e.inputs) if (x.kind === 'var' && !known(x.id)) need.set(x.id, x);
  }
  return { found, need };
}
