// Which contraction of a CPU kernel the runtime's blocked matrix product
// (runtime/cpu/gemm.ts, WebAssembly SIMD) computes instead of the kernel's
// scalar loop, and with which strides. A dot_general's contraction (a `reduce`
// marked `dot`) qualifies when it multiplies two loads whose indices are
// affine in the loop counter and whose offsets over the output index fit the
// runtime's layout (rows × columns, batches of rows); the offsets are checked
// for every output element here, at compile time. The product sums each
// element in the same order as the loop, so the numbers are the same.
import type { KExpr, Kernel } from '../ir/kernel.js';
import { freeRvars } from '../ir/kernel.js';

type Reduce = Extract<KExpr, { op: 'reduce' }>;
type Load = Extract<KExpr, { op: 'load' }>;

/** runtime/cpu/gemm.ts's DotLayout: the numbers the generated call passes. */
export interface DotLayout {
  Q: number;
  M: number;
  N: number;
  K: number;
  x0: number;
  xq: number;
  xb: number;
  xk: number;
  y0: number;
  yb: number;
  yj: number;
  yk: number;
}

export interface DotPlan {
  reduce: Reduce;
  /** The inputs the two factors load. */
  x: number;
  y: number;
  layout: DotLayout;
}

/** Below this many multiply-adds the scalar loop is as fast as packing for the matrix product. */
const MIN_WORK = 4096;

/** The first contraction of `k` the matrix product can take, with its layout; null if none. */
export function planDot(k: Kernel): DotPlan | null {
  const found = findDot(k.body, new Set());
  if (!found) return null;
  const S = k.output.size;
  if (S * found.extent < MIN_WORK) return null;
  const { a, b } = found.body as { a: Load; b: Load };
  // either factor may be the row factor: the wider rows (then the longer batches) make the better product
  const plans = [layoutOf(found, a, b, S), layoutOf(found, b, a, S)].filter((p) => p !== null);
  const size = (p: DotPlan): number => p.layout.N * S + p.layout.M;
  return plans.sort((p, q) => size(q) - size(p))[0] ?? null;
}

function findDot(e: KExpr, seen: Set<KExpr>): Reduce | null {
  if (seen.has(e)) return null;
  seen.add(e);
  if (e.op === 'reduce') {
    const m = e.body;
    if (
      e.dot && e.fn === 'sum' && e.dtype === 'float32' && freeRvars(e).size === 0 &&
      m.op === 'bin' && m.fn === 'mul' && m.a.op === 'load' && m.b.op === 'load' &&
      m.a.dtype === 'float32' && m.b.dtype === 'float32' &&
      affine(m.a.index, e.id) && affine(m.b.index, e.id)
    ) return e;
    return null;
  }
  for (const c of children(e)) {
    const f = findDot(c, seen);
    if (f) return f;
  }
  return null;
}

function children(e: KExpr): KExpr[] {
  switch (e.op) {
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
    default:
      return [];
  }
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

type IntFn = (g: number, r: number) => number;

/** An int32 index expression of the output index g and the counter r as a function; null if it reads anything else. */
function intFn(e: KExpr, r: number): IntFn | null {
  switch (e.op) {
    case 'const': {
      const v = e.value;
      return () => v;
    }
    case 'gid':
      return (g) => g;
    case 'rvar':
      return e.id === r ? (_g, k) => k : null;
    case 'cast':
      return e.dtype === 'int32' && e.x.dtype === 'bool' ? intFn(e.x, r) : null;
    case 'select': {
      const [c, a, b] = [intFn(e.cond, r), intFn(e.a, r), intFn(e.b, r)];
      return c && a && b ? (g, k) => (c(g, k) ? a(g, k) : b(g, k)) : null;
    }
    case 'bin': {
      const a = intFn(e.a, r);
      const b = intFn(e.b, r);
      if (!a || !b || (e.a.dtype !== 'int32' && e.a.dtype !== 'bool')) return null;
      switch (e.fn) {
        case 'add': return (g, k) => (a(g, k) + b(g, k)) | 0;
        case 'sub': return (g, k) => (a(g, k) - b(g, k)) | 0;
        case 'mul': return (g, k) => Math.imul(a(g, k), b(g, k));
        case 'div': return (g, k) => { const d = b(g, k); return d === 0 ? -1 : (a(g, k) / d) | 0; };
        case 'rem': return (g, k) => { const d = b(g, k); return d === 0 ? a(g, k) : (a(g, k) % d) | 0; };
        case 'max': return (g, k) => Math.max(a(g, k), b(g, k));
        case 'min': return (g, k) => Math.min(a(g, k), b(g, k));
        case 'lt': return (g, k) => +(a(g, k) < b(g, k));
        case 'le': return (g, k) => +(a(g, k) <= b(g, k));
        case 'gt': return (g, k) => +(a(g, k) > b(g, k));
        case 'ge': return (g, k) => +(a(g, k) >= b(g, k));
        case 'eq': return (g, k) => +(a(g, k) === b(g, k));
        case 'ne': return (g, k) => +(a(g, k) !== b(g, k));
        case 'and': return (g, k) => a(g, k) & b(g, k);
        case 'or': return (g, k) => a(g, k) | b(g, k);
        default: return null;
      }
    }
    default:
      return null;
  }
}

/** The layout with `x` as the row factor and `y` as the column factor, if the offsets fit it for every output element. */
function layoutOf(red: Reduce, x: Load, y: Load, S: number): DotPlan | null {
  const fx = intFn(x.index, red.id);
  const fy = intFn(y.index, red.id);
  if (!fx || !fy) return null;
  const K = red.extent;
  const xk = fx(0, 1) - fx(0, 0);
  const yk = fy(0, 1) - fy(0, 0);
  const bx = new Int32Array(S);
  const by = new Int32Array(S);
  for (let g = 0; g < S; g++) {
    bx[g] = fx(g, 0);
    by[g] = fy(g, 0);
  }
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
