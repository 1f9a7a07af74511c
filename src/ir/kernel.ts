// The kernel IR: what fusion produces and the WGSL/JS renderers consume.
// A kernel computes one output buffer; each invocation (thread) computes the
// element at linear index `gid` as an expression tree over loads of its inputs.
// Movement ops (broadcast, reshape, transpose, slice) have become index
// arithmetic; reductions are loops inside the expression. The buffers and
// steps a program hands the runtime are the runtime's own format
// (runtime/program.ts); this file adds what the renderers consume.
import type { BufferSpec, BufRef, DType, KernelSpec, ProgramSpec, StepSpec } from '../../runtime/program.js';

export type { BufferSpec, BufRef, StepSpec };

/** Elementwise functions of one operand (the kernel renderers spell each one). */
export type KUnary =
  | 'neg' | 'not' | 'abs' | 'sign' | 'floor' | 'ceil' | 'round' | 'sqrt' | 'rsqrt' | 'is_finite'
  | 'sin' | 'cos' | 'tan' | 'exp' | 'log' | 'log1p' | 'expm1' | 'tanh' | 'logistic' | 'erf' | 'erf_inv'
  /** Reinterpret the 32 bits as the node's dtype. */
  | 'bitcast_convert_type';

/** Elementwise functions of two operands. Comparisons give bool. */
export type KBinary =
  | 'add' | 'sub' | 'mul' | 'div' | 'rem' | 'pow' | 'max' | 'min' | 'atan2'
  | 'and' | 'or' | 'xor'
  | 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge'
  | 'shift_left' | 'shift_right_logical' | 'shift_right_arithmetic';

/** Pure helpers with several results. */
export type KCall = 'threefry2x32';

export type ReduceFn = 'sum' | 'max' | 'min' | 'prod';

export type KExpr =
  | { op: 'const'; value: number; dtype: DType }
  /** The invocation's linear output index (i32). */
  | { op: 'gid'; dtype: 'int32'; bound: number }
  /** A reduction loop counter (i32), 0 ≤ rvar < bound. */
  | { op: 'rvar'; id: number; dtype: 'int32'; bound: number }
  /** The simulated device's index along the mapped axes (i32). */
  | { op: 'device'; dtype: 'int32' }
  | { op: 'load'; input: number; index: KExpr; dtype: DType }
  | { op: 'un'; fn: KUnary; x: KExpr; dtype: DType }
  /**
   * `fma`: an add or sub whose operand `a` (or `b`), a float32 multiply used nowhere else, is
   * fused with it into one fused multiply-add, rounded once, as LLVM contracts XLA's CPU code
   * (passes/fma_contraction.ts).
   */
  | { op: 'bin'; fn: KBinary; a: KExpr; b: KExpr; dtype: DType; fma?: 'a' | 'b' }
  /** cond ? a : b */
  | { op: 'select'; cond: KExpr; a: KExpr; b: KExpr; dtype: DType }
  | { op: 'cast'; x: KExpr; dtype: DType }
  /**
   * A pure helper with several results (threefry2x32 → two words); `part`
   * picks one. Both parts of one call share a single evaluation.
   */
  | { op: 'call'; fn: KCall; args: KExpr[]; part: number; dtype: DType }
  /**
   * `dot`: the contraction of a dot_general (XLA adds it in order, as a matmul, not as a tree-rewritten reduce).
   * `fma`: a float32 sum over a major axis whose summand is a product used nowhere else: XLA's loop
   * accumulates it with a fused multiply-add (passes/fma_contraction.ts). `lib`: a float32 sum of an
   * operand of 4096 or more elements over one block of adjacent axes, which XLA's CPU build hands to its
   * library (YNNPACK): the number of elements after the reduced axes (1: each result sums one contiguous
   * row; k > 1: each result sums a column whose elements lie k apart, and the sum's order depends on k).
   * `lanes`: a float32 sum of a whole (R, C) array that XLA's loop runs vectorized over its rows: lane
   * i mod `vf` adds row i (of `row` elements) in order, the lanes (from +0) then fold pairwise, the second
   * half onto the first (passes/index_rules.ts vectorLanes). `inOrder`: a float32 sum or product over
   * several axes, none longer than 32, which XLA's tree rewriter leaves alone (it windows each long axis).
   * `order`: a float32 dot whose contraction XLA's CPU code sums in a known order (passes/dot_order.ts):
   * each step a fused multiply-add; in each run of `block` items (summed from zero, then added to the
   * total) item k of the first ⌊run/lanes⌋·lanes goes to accumulator k mod `lanes`, the rest into a tail
   * in order; the accumulators fold in adjacent pairs ((a0 + a1) + (a2 + a3)) or in halves (the second
   * half onto the first), and the tail is added after them.
   */
  | { op: 'reduce'; fn: ReduceFn; id: number; extent: number; body: KExpr; dtype: DType; dot?: boolean; fma?: true; lib?: number; lanes?: { vf: number; row: number }; inOrder?: true; order?: DotOrder };

/** The order of a dot's sum on XLA's CPU backend (KExpr's reduce `order`; lanes > 1 only where block is the whole extent). */
export interface DotOrder {
  lanes: 1 | 4 | 8;
  fold: 'pairs' | 'halves';
  block: number;
}

/** A kernel before rendering: the runtime's KernelSpec with the expression its WGSL and CPU code will compute. */
export interface Kernel extends Omit<KernelSpec, 'wgsl' | 'cpu'> {
  body: KExpr;
  /** The output's shape (the loop XLA's CPU emitter runs over it decides some of its numerics: xlaAtanFrom). */
  shape?: readonly number[];
}

/**
 * A compiled program: a Func after fusion and buffer planning, the runtime's
 * ProgramSpec before its kernels are rendered. It runs once per device (pmap)
 * or on one device (jit, host segments).
 */
export interface Program extends Omit<ProgramSpec, 'kernels' | 'nanChecks' | 'programs'> {
  kernels: Kernel[];
  /** The sub-programs of control-flow steps. */
  programs?: Program[];
  paramShapes: number[][];
  /** Size of the mapped (pmap) axis, or 0 for single-device programs. */
  axisSize: number;
}

/**
 * Hash-consing of expression keys: each node's key names its children by the
 * number of their own key, so a key's length does not grow with the tree.
 * Trees share subtrees (integer_pow squares `x` then squares the square): a
 * key spelling out the whole tree would double in length at each level.
 * Equal keys still mean structurally equal trees (by induction on the
 * children). Ids only grow, so that refreshing the tables never reuses one.
 */
let keyOf = new WeakMap<KExpr, string>();
let internedKeys = new Map<string, number>();
let nextKeyId = 0;

/** Structural key of an expression, for CSE and pattern matching. */
export function exprKey(e: KExpr): string {
  const known = keyOf.get(e);
  if (known !== undefined) return known;
  const full = localKey(e);
  let id = internedKeys.get(full);
  if (id === undefined) {
    if (internedKeys.size >= 1 << 20) {
      keyOf = new WeakMap();
      internedKeys = new Map();
    }
    id = nextKeyId++;
    internedKeys.set(full, id);
  }
  // a leaf keeps its readable key; an inner node is `#id`
  const key = e.op === 'const' || e.op === 'gid' || e.op === 'rvar' || e.op === 'device' ? full : `#${id}`;
  keyOf.set(e, key);
  return key;
}

/** The key of `e` in terms of its children's keys. */
function localKey(e: KExpr): string {
  switch (e.op) {
    case 'const':
      return `c${e.dtype}:${Object.is(e.value, -0) ? '-0' : e.value}`;
    case 'gid':
      return 'gid';
    case 'rvar':
      return `r${e.id}`;
    case 'device':
      return 'dev';
    case 'load':
      return `ld${e.input}[${exprKey(e.index)}]`;
    case 'un':
      return `${e.fn}:${e.dtype}(${exprKey(e.x)})`;
    case 'bin':
      return `${e.fn}${e.fma ? `~${e.fma}` : ''}:${e.dtype}(${exprKey(e.a)},${exprKey(e.b)})`;
    case 'select':
      return `sel(${exprKey(e.cond)},${exprKey(e.a)},${exprKey(e.b)})`;
    case 'cast':
      return `cast:${e.dtype}(${exprKey(e.x)})`;
    case 'reduce':
      // alpha-equivalent: the loop's own counter renamed canonically, so the
      // same reduction under another loop id gets the same key
      return `red${e.fn}${e.dot ? 'dot' : ''}${e.fma ? '~fma' : ''}${e.lib ? `~lib${e.lib}` : ''}${e.order ? `~o${e.order.lanes}${e.order.fold}/${e.order.block}` : ''}:${e.extent}(${exprKey(renameRvar(e.body, e.id, -reduceHeight(e)))})`;
    case 'call':
      return `${callKey(e)}.${e.part}`;
  }
}

/** Key of a helper call without its `part`: both parts share one evaluation. */
export function callKey(e: Extract<KExpr, { op: 'call' }>): string {
  return `call:${e.fn}(${e.args.map(exprKey).join(',')})`;
}

/**
 * Nesting height of reductions in `e` (a reduce without nested reduces: 1).
 * A reduce's canonical counter id is minus its height: distinct from every
 * real id (≥ 0) and from the canonical ids of the reductions nested in its
 * body (smaller heights), so renaming captures nothing.
 */
function reduceHeight(e: KExpr): number {
  const known = heightOf.get(e);
  if (known !== undefined) return known;
  let h = 0;
  for (const c of children(e)) h = Math.max(h, reduceHeight(c));
  if (e.op === 'reduce') h += 1;
  heightOf.set(e, h);
  return h;
}
const heightOf = new WeakMap<KExpr, number>();

/** Ids of the loop counters `e` reads that no reduce inside `e` binds. */
export function freeRvars(e: KExpr): ReadonlySet<number> {
  const known = freeOf.get(e);
  if (known) return known;
  let free: Set<number>;
  if (e.op === 'rvar') free = new Set([e.id]);
  else {
    free = new Set();
    for (const c of children(e)) for (const id of freeRvars(c)) free.add(id);
    if (e.op === 'reduce') free.delete(e.id);
  }
  freeOf.set(e, free);
  return free;
}
const freeOf = new WeakMap<KExpr, ReadonlySet<number>>();

/** The direct operands of a kernel expression node. */
export function children(e: KExpr): KExpr[] {
  switch (e.op) {
    case 'const':
    case 'gid':
    case 'rvar':
    case 'device':
      return [];
    case 'load':
      return [e.index];
    case 'un':
    case 'cast':
      return [e.x];
    case 'bin':
      return [e.a, e.b];
    case 'select':
      return [e.cond, e.a, e.b];
    case 'call':
      return e.args;
    case 'reduce':
      return [e.body];
  }
}

/** `e` with the free counter `from` renamed `to` (subtrees not reading it are shared). */
function renameRvar(e: KExpr, from: number, to: number, memo = new Map<KExpr, KExpr>()): KExpr {
  if (!freeRvars(e).has(from)) return e;
  const done = memo.get(e);
  if (done) return done;
  const r = (c: KExpr): KExpr => renameRvar(c, from, to, memo);
  let out: KExpr;
  switch (e.op) {
    case 'rvar':
      out = { ...e, id: to };
      break;
    case 'load':
      out = { ...e, index: r(e.index) };
      break;
    case 'un':
    case 'cast':
      out = { ...e, x: r(e.x) };
      break;
    case 'bin':
      out = { ...e, a: r(e.a), b: r(e.b) };
      break;
    case 'select':
      out = { ...e, cond: r(e.cond), a: r(e.a), b: r(e.b) };
      break;
    case 'call':
      out = { ...e, args: e.args.map(r) };
      break;
    case 'reduce':
      // `from` is free in the body, so this reduce does not bind it
      out = { ...e, body: r(e.body) };
      break;
    default:
      out = e;
  }
  memo.set(e, out);
  return out;
}
