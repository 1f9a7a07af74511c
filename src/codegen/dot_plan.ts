// Which contraction of a CPU kernel the runtime's blocked matrix product
// (runtime/cpu/gemm.ts, WebAssembly SIMD) computes instead of the kernel's
// scalar loop, and with which strides. A dot_general's contraction (a `reduce`
// marked `dot`) qualifies when it multiplies two loads whose indices are
// affine in the loop counter and whose offsets over the output index fit the
// runtime's layout (rows × columns, batches of rows); the offsets are checked
// for every output element here, at compile time. The product sums each
// element in the same order as the loop, so the numbers are the same.
import type { KBinary, KExpr, Kernel } from '../ir/kernel.js';
import type { DotLayout } from '../../runtime/cpu/gemm.js';
import { children, freeRvars } from '../ir/kernel.js';

type Reduce = Extract<KExpr, { op: 'reduce' }>;
type Load = Extract<KExpr, { op: 'load' }>;


export interface DotPlan {
  reduce: Reduce;
  /** The inputs the two factors load. */
  x: number;
  y: number;
  layout: DotLayout;
}

/** Below this many multiply-adds the scalar loop is as fast as packing for the matrix product. */
const MIN_WORK = 4096;

/** The contraction of `k` the matrix product takes (the largest it can), with its layout; null if none. */
export function planDot(k: Kernel): DotPlan | null {
  return planDots(k, 1)[0] ?? null;
}

/**
 * The contractions of `k` the matrix product takes (at most `most`), the one with the most work first (a
 * layer's 128-wide product, not the 1-wide one beside it): a fused gradient sums several products.
 */
export function planDots(k: Kernel, most = Infinity): DotPlan[] {
  const found: Reduce[] = [];
  findDots(k.body, new Set(), found);
  const plans: DotPlan[] = [];
  for (const f of found.sort((a, b) => b.extent - a.extent)) {
    if (plans.length >= most) break;
    const plan = planOne(k, f);
    if (plan) plans.push(plan);
  }
  return plans;
}

function planOne(k: Kernel, found: Reduce): DotPlan | null {
  const S = k.output.size;
  if (S * found.extent < MIN_WORK) return null;
  const { a, b } = found.body as { a: Load; b: Load };
  // either factor may be the row factor: the wider rows (then the longer batches) make the better product
  // (one memo: the two indices often share subexpressions of the output index)
  const memo = new Map<KExpr, Int32Array | null>();
  const ba = evalAll(a.index, found.id, 0, S, memo);
  const bb = ba && evalAll(b.index, found.id, 0, S, memo);
  if (!ba || !bb) return null;
  // the counter's coefficients (constants: the indices are affine in it)
  const ka = evalAll(a.index, found.id, 1, 1)![0]! - ba[0]!;
  const kb = evalAll(b.index, found.id, 1, 1)![0]! - bb[0]!;
  const plans = [layoutOf(found, [a, ba, ka], [b, bb, kb], S), layoutOf(found, [b, bb, kb], [a, ba, ka], S)].filter((p) => p !== null);
  const size = (p: DotPlan): number => p.layout.N * S + p.layout.M;
  return plans.sort((p, q) => size(q) - size(p))[0] ?? null;
}

/** The contractions of `e` the matrix product could take, in the order of a walk. */
function findDots(e: KExpr, seen: Set<KExpr>, out: Reduce[]): void {
  if (seen.has(e)) return;
  seen.add(e);
  if (e.op === 'reduce') {
    const m = e.body;
    if (
      e.dot && e.fn === 'sum' && e.dtype === 'float32' && freeRvars(e).size === 0 &&
      m.op === 'bin' && m.fn === 'mul' && m.a.op === 'load' && m.b.op === 'load' &&
      m.a.dtype === 'float32' && m.b.dtype === 'float32' &&
      affine(m.a.index, e.id) && affine(m.b.index, e.id)
    ) out.push(e);
    return;
  }
  for (const c of children(e)) findDots(c, seen, out);
}

/** Whether `e` is (terms without counter `r`) + c·r for a constant c. */
function affine(e: KExpr, r: number): boolean {
  if (!freeRvars(e).has(r)) return true;
  if (e.op === 'rvar') return true;
  if (e.op === 'bin' && (e.fn === 'add' || e.fn === 'sub')) return affine(e.a, r) && affine(e.b, r);
  if (e.op === 'bin' && e.fn === 'mul') {
    return (e.a.op === 'const' && affine(e.b, r)) || (e.b.op === 'const' && affine(e.a, r));
  }
  return false;
}

/**
 * An int32 index expression at every output index g < S with the counter r fixed, computed a
 * node at a time over whole arrays (shared subtrees once); null if it reads anything but g and r.
 */
function evalAll(e: KExpr, r: number, rv: number, S: number, memo = new Map<KExpr, Int32Array | null>()): Int32Array | null {
  const known = memo.get(e);
  if (known !== undefined) return known;
  const out = new Int32Array(S);
  let ok = true;
  switch (e.op) {
    case 'const':
      out.fill(e.value);
      break;
    case 'gid':
      for (let g = 0; g < S; g++) out[g] = g;
      break;
    case 'rvar':
      if (e.id === r) out.fill(rv);
      else ok = false;
      break;
    case 'cast': {
      const x = e.dtype === 'int32' && e.x.dtype === 'bool' ? evalAll(e.x, r, rv, S, memo) : null;
      if (x) out.set(x);
      else ok = false;
      break;
    }
    case 'select': {
      const c = evalAll(e.cond, r, rv, S, memo);
      const a = evalAll(e.a, r, rv, S, memo);
      const b = evalAll(e.b, r, rv, S, memo);
      if (c && a && b) for (let g = 0; g < S; g++) out[g] = c[g] ? a[g]! : b[g]!;
      else ok = false;
      break;
    }
    case 'bin': {
      const a = e.a.dtype === 'int32' || e.a.dtype === 'bool' ? evalAll(e.a, r, rv, S, memo) : null;
      const b = a && evalAll(e.b, r, rv, S, memo);
      ok = !!a && !!b && binAll(e.fn, a, b, out);
      break;
    }
    default:
      ok = false;
  }
  const res = ok ? out : null;
  memo.set(e, res);
  return res;
}

/**
 * out = a fn b elementwise, with a loop per operation (this runs over every output element of every
 * contraction a program compiles: a call through BIN per element made it a good part of compile time).
 * False for an operation BIN lacks.
 */
function binAll(fn: KBinary, a: Int32Array, b: Int32Array, out: Int32Array): boolean {
  const S = out.length;
  switch (fn) {
    case 'add':
      for (let g = 0; g < S; g++) out[g] = a[g]! + b[g]!;
      return true;
    case 'sub':
      for (let g = 0; g < S; g++) out[g] = a[g]! - b[g]!;
      return true;
    case 'mul':
      for (let g = 0; g < S; g++) out[g] = Math.imul(a[g]!, b[g]!);
      return true;
    default: {
      const f = BIN[fn];
      if (!f) return false;
      for (let g = 0; g < S; g++) out[g] = f(a[g]!, b[g]!);
      return true;
    }
  }
}

/** int32 semantics of the kernels (XLA's: x / 0 = -1, x % 0 = x); comparisons give 0/1. */
const BIN: Partial<Record<KBinary, (a: number, b: number) => number>> = {
  add: (a, b) => (a + b) | 0,
  sub: (a, b) => (a - b) | 0,
  mul: (a, b) => Math.imul(a, b),
  div: (a, b) => (b === 0 ? -1 : (a / b) | 0),
  rem: (a, b) => (b === 0 ? a : (a % b) | 0),
  max: Math.max,
  min: Math.min,
  lt: (a, b) => +(a < b),
  le: (a, b) => +(a <= b),
  gt: (a, b) => +(a > b),
  ge: (a, b) => +(a >= b),
  eq: (a, b) => +(a === b),
  ne: (a, b) => +(a !== b),
  and: (a, b) => a & b,
  or: (a, b) => a | b,
};

/** A factor of the product: its load, its index at every output element for k = 0, and its step along k. */
type Factor = [Load, Int32Array, number];

/** The layout with `x` as the row factor and `y` as the column factor, if the offsets fit it for every output element. */
function layoutOf(red: Reduce, [x, bx, xk]: Factor, [y, by, yk]: Factor, S: number): DotPlan | null {
  const K = red.extent;
  // columns: the run of outputs sharing one x row
  let N = 1;
  while (N < S && bx[N] === bx[0]) N++;
  if (S % N !== 0) return null;
  const Q = S / N;
  const yj = N > 1 ? by[1]! - by[0]! : 0;
  for (let q = 0; q < Q; q++) {
    const o = q * N;
    for (let j = 0; j < N; j++) if (bx[o + j] !== bx[o] || by[o + j] !== by[o]! + j * yj) return null;
  }
  // batches: the run of rows sharing one y
  let M = 1;
  while (M < Q && by[M * N] === by[0]) M++;
  if (Q % M !== 0) return null;
  const row = (q: number): number => bx[q * N]!;
  const x0 = row(0);
  const xq = M > 1 ? row(1) - x0 : 0;
  const xb = Q > M ? row(M) - x0 : 0;
  const y0 = by[0]!;
  const yb = Q > M ? by[M * N]! - y0 : 0;
  for (let q = 0; q < Q; q++) {
    const bt = Math.floor(q / M);
    if (row(q) !== x0 + (q % M) * xq + bt * xb || by[q * N] !== y0 + bt * yb) return null;
  }
  return { reduce: red, x: x.input, y: y.input, layout: { Q, M, N, K, x0, xq, xb, xk, y0, yb, yj, yk } };
}
