// The order in which XLA's CPU backend sums a float32 dot_general's
// contraction, for the shapes where it was measured (JAX 0.10.2 on an AVX2
// host, against float64 emulations of candidate orders; every element equal:
// fixtures/reference/gemv_order.py and dot_order.py). XLA picks an
// implementation by shape and layout (xla/service/cpu/dot_op_emitter.cc) and
// LLVM compiles it with fused multiply-adds. One table, `DOT_RULES`: the
// first rule that applies gives the order (KExpr's reduce `order`, spelled by
// src/codegen/kernel_walker.ts and runtime/cpu/gemm.ts's gemm_fma); a shape
// no rule covers keeps jaxts's plain order (one float32 product and sum per
// item). Not modelled yet: K = 4j + 2 or 4j + 3 in the product of few
// columns, M ≥ 64 with 24 ≤ N < 64, 17 ≤ N < 24, 64 < N < 128,
// 16 < M < 32 where the block is not known, vector dots of batched operands.
import type { DotOrder } from '../ir/kernel.js';
import type { DotDims } from '../ir/primitives.js';

/** The vector width of XLA CPU's float32 matrix-vector loop along a matrix's rows (AVX2: 8 lanes), and its tile of rows. */
const GEMV_LANES = 8;
const GEMV_TILE_ROWS = 8;
/** The vector width of the products of many rows and few columns along the contraction. */
const NARROW_LANES = 4;
/** Eigen's contraction block of a float32 matrix product with one accumulator per element. */
const EIGEN_KC = 512;

/**
 * A dot's order. `halvesFrom`: the matrix-vector loop folds the lanes of rows before this row (the result's
 * first index) in pairs and of the rows from it in halves (the second half onto the first).
 */
export interface DotRule {
  order: DotOrder;
  halvesFrom?: number;
}

/** What the rules look at: the operands' shapes, the contraction and XLA's canonical (M × K) · (K × N) per batch pair. */
interface DotShape {
  a: readonly number[];
  b: readonly number[];
  /** The one contracting axis of each operand, with no batch axes (else null: only the canonical rules apply). */
  axes: { lc: number; rc: number } | null;
  /** Both operands float32 (the canonical rules were measured for those only). */
  f32: boolean;
  M: number;
  K: number;
  N: number;
}

/** A rule's answer that the order is not known here (jaxts's plain order), ending the search. */
const PLAIN = 'plain';

/** Fused multiply-adds in order, into `lanes` accumulators item k into k mod lanes, in blocks of `block` items. */
const lanes = (n: 1 | 4 | 8, block: number, fold: DotOrder['fold'] = 'pairs'): DotRule => ({ order: { lanes: n, fold, block } });
const inOrder = (s: DotShape): DotRule => lanes(1, s.K);
/** Eigen's product: one accumulator per element, K cut into blocks of `kc` (one block where K is no longer). */
const eigen = (s: DotShape, kc: number): DotRule => lanes(1, Math.min(s.K, kc));
const small = (v: number): boolean => v >= 2 && v < GEMV_LANES;

/** A matrix (rank 2) and a vector, either first: the matrix and the axis it contracts. */
function matrixVector(s: DotShape): { matrix: readonly number[]; axis: number } | null {
  if (!s.axes) return null;
  if (s.a.length === 2 && s.b.length === 1) return { matrix: s.a, axis: s.axes.lc };
  if (s.a.length === 1 && s.b.length === 2) return { matrix: s.b, axis: s.axes.rc };
  return null;
}

/** An operand of rank 2 or more times a matrix, without batch axes: k, m (the lhs's free axes together), n. */
function timesMatrix(s: DotShape): { m: number; k: number; n: number; lc: number; rc: number } | null {
  if (!s.axes || s.a.length < 2 || s.b.length !== 2) return null;
  const { lc, rc } = s.axes;
  const k = s.a[lc]!;
  return { m: s.a.reduce((x, y) => x * y, 1) / k, k, n: s.b[1 - rc]!, lc, rc };
}

/**
 * XLA's orders, first match wins (undefined: the rule does not apply; PLAIN: no order is known). The first rules read the layout
 * (measured for jnp.dot and lax.dot_general with either operand first); the rest XLA's canonical form.
 */
const DOT_RULES: readonly ((s: DotShape) => DotRule | typeof PLAIN | undefined)[] = [
  // two vectors: in order
  (s) => (s.axes && s.a.length === 1 && s.b.length === 1 ? inOrder(s) : undefined),
  // a matrix and a vector: the matrix-vector emitters. Down the matrix's columns (contracting its first
  // axis), or rows shorter than the lanes: each sum in order. Along its rows: 8 lanes; the rows of whole
  // tiles of 8 fold their lanes in pairs, the rows left over in halves; items past the last whole vector
  // in order, added last (measured for K from 3 to 100, M from 2 to 64)
  (s) => {
    const mv = matrixVector(s);
    if (!mv) return undefined;
    const rows = mv.matrix[1 - mv.axis]!;
    if (mv.axis === 0 || rows === 1 || mv.matrix[1]! < GEMV_LANES) return inOrder(s);
    const paired = Math.floor(rows / GEMV_TILE_ROWS) * GEMV_TILE_ROWS;
    return paired === rows ? lanes(GEMV_LANES, s.K) : { ...lanes(GEMV_LANES, s.K), halvesFrom: paired };
  },
  // (m, k) · (k, n) with m, n and k from 2 to 7, either operand's contracting axis first or last: in order
  (s) => {
    const t = timesMatrix(s);
    return t && s.a.length === 2 && small(t.m) && small(t.k) && small(t.n) ? inOrder(s) : undefined;
  },
  // many rows (m ≥ 8) times few columns (2 ≤ n ≤ 7), the lhs contracting its last axis and the rhs its
  // first, k a multiple of 4: 4 lanes, folded in pairs (measured for m from 8 to 32, k from 4 to 40)
  (s) => {
    const t = timesMatrix(s);
    return t && t.m >= 8 && small(t.n) && t.k % NARROW_LANES === 0 && t.lc === s.a.length - 1 && t.rc === 0 ? lanes(NARROW_LANES, t.k) : undefined;
  },
  // the canonical rules below were measured on float32 operands
  (s) => (s.f32 && !(s.M === 1 && s.N === 1) ? undefined : PLAIN),
  // a matrix times a column: the row-major matrix-vector emitter, 8 lanes (K a multiple of 8)
  (s) => (s.N === 1 ? (s.K <= 3 ? inOrder(s) : s.K % GEMV_LANES === 0 && s.M >= 8 ? lanes(GEMV_LANES, s.K) : PLAIN) : undefined),
  // the product of few columns (N ≤ 16) with K = 4j + 1, K ≥ 9 (whatever M·K·N): 4 accumulators (as for K a
  // multiple of 4 below), the last product rounded and added after their fold; but in order for N ≥ 10 with
  // K ≤ 17 (and K = 10). Measured for M from 1 to 32, N from 2 to 16, K up to 129; other K vary
  (s) => (s.M > 1 && s.N >= 10 && s.N <= 16 && s.K >= 9 && s.K <= 17 && (s.K % NARROW_LANES === 1 || s.K === 10) ? inOrder(s) : undefined),
  (s) => (s.M > 1 && s.N <= 16 && s.K >= 9 && s.K % NARROW_LANES === 1 ? lanes(NARROW_LANES, s.K) : undefined),
  // a contraction of at most 3 items, or at most 64 multiply-adds: XLA's naive loop, in order
  (s) => (s.K <= 3 || s.M * s.K * s.N <= 64 ? inOrder(s) : undefined),
  // a row times a matrix: the column-major matrix-vector emitter, in order
  (s) => (s.M === 1 ? (s.N >= 3 ? inOrder(s) : PLAIN) : undefined),
  // Eigen's product of few columns: 4 accumulators (K a multiple of 4), no blocking
  (s) => (s.N <= 16 && s.K % NARROW_LANES === 0 ? lanes(NARROW_LANES, s.K) : undefined),
  (s) => (s.N <= 16 ? PLAIN : undefined),
  // Eigen with one accumulator per element: 24 ≤ N < 64 for M ≤ 32; N = 64 or N ≥ 128 in blocks of 512 (of
  // 256 where 512 < K < 1000, N ≥ 128 and M ≤ 16)
  (s) => (s.N < 64 ? (s.N >= 24 && s.M <= 32 ? inOrder(s) : PLAIN) : undefined),
  (s) => (s.N < 128 ? (s.N === 64 ? eigen(s, EIGEN_KC) : PLAIN) : undefined),
  (s) => (s.K <= EIGEN_KC || s.K >= 1000 ? eigen(s, EIGEN_KC) : s.M <= 16 ? eigen(s, EIGEN_KC / 2) : s.M >= 32 ? eigen(s, EIGEN_KC) : PLAIN),
];


/**
 * XLA's summation order for a float32 dot_general of operands of shapes `a` and `b` (an output of another
 * dtype: none), or undefined where it is not known.
 */
export function xlaDotOrder(a: readonly number[], b: readonly number[], dn: DotDims, f32Operands: boolean): DotRule | undefined {
  const [lc, rc] = dn.contract;
  const [lb, rb] = dn.batch;
  const prod = (s: readonly number[], dims: number[]): number => dims.reduce((p, d) => p * s[d]!, 1);
  const free = (s: readonly number[], c: number[], bd: number[]): number[] => s.map((_, i) => i).filter((i) => !c.includes(i) && !bd.includes(i));
  const shape: DotShape = {
    a,
    b,
    axes: lb.length === 0 && lc.length === 1 ? { lc: lc[0]!, rc: rc[0]! } : null,
    f32: f32Operands,
    M: prod(a, free(a, lc, lb)),
    K: prod(a, lc),
    N: prod(b, free(b, rc, rb)),
  };
  for (const rule of DOT_RULES) {
    const r = rule(shape);
    if (r) return r === PLAIN ? undefined : r;
  }
  return undefined;
}
