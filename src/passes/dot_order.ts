// The order in which XLA's CPU backend sums a float32 dot_general's
// contraction, for the shapes where it was measured (JAX 0.10.2 on an AVX2
// host, against float64 emulations of candidate orders; every element equal).
// XLA picks an implementation by shape (xla/service/cpu/dot_op_emitter.cc):
//
// - a matrix times a vector (result N = 1): the row-major GEMV emitter, eight
//   accumulators (item k into k mod 8) with fused multiply-adds, folded as
//   neighbours; measured for K a multiple of 8 (other K > 3: a tail not
//   modelled);
// - a vector times a matrix (M = 1, N ≥ 3): the column-major GEMV emitter,
//   one fused multiply-add per item, in order;
// - a contraction of at most 3 items, or a product of at most 64
//   multiply-adds: XLA's naive loop, fused multiply-adds in order;
// - otherwise Eigen's matrix product: for N ≤ 16 four accumulators (K a
//   multiple of 4), with no blocking of K; for 24 ≤ N < 64 with M ≤ 32 one
//   accumulator per element with fused multiply-adds; for N = 64 or N ≥ 128
//   the same with K cut into blocks of 512 (of 256 where 512 < K < 1000,
//   N ≥ 128 and M ≤ 16) whose sums are added to the result.
//
// A batch of products follows the order of each pair; free dimensions count
// as one (M: the product of the left operand's, N: of the right one's), as
// XLA's dot decomposer collapses them. Shapes outside these
// (other K, M ≥ 64 with 24 ≤ N < 64,
// 17 ≤ N < 24, 64 < N < 128, 16 < M < 32 where the block is not known, a
// vector dot) keep jaxts's plain order: one float32 product and sum per item.
import type { XlaDotOrder } from '../ir/kernel.js';

/** Eigen's contraction block of a float32 matrix product with one accumulator per element. */
const EIGEN_KC = 512;

/** One accumulator per element, K cut into blocks of `kc` (one block where K is no longer). */
const eigen = (K: number, kc: number): XlaDotOrder => ({ lanes: 1, block: Math.min(K, kc) });

/**
 * XLA's summation order for a float32 dot of an M × K matrix and a K × N one (of each pair of a batch; M or
 * N is 1 where that operand is a vector), or undefined where it is not known.
 */
export function xlaDotOrder(M: number, K: number, N: number): XlaDotOrder | undefined {
  const inOrder: XlaDotOrder = { lanes: 1, block: K };
  if (M === 1 && N === 1) return undefined;
  if (N === 1) return K <= 3 ? inOrder : K % 8 === 0 && M >= 8 ? { lanes: 8, block: K } : undefined;
  if (K <= 3 || M * K * N <= 64) return inOrder;
  if (M === 1) return N >= 3 ? inOrder : undefined;
  if (N <= 16) return K % 4 === 0 ? { lanes: 4, block: K } : undefined;
  if (N < 64) return N >= 24 && M <= 32 ? inOrder : undefined;
  if (N < 128) return N === 64 ? eigen(K, EIGEN_KC) : undefined;
  if (K <= EIGEN_KC || K >= 1000) return eigen(K, EIGEN_KC);
  // 512 < K < 1000 with 128 or more columns: blocks of 256 for few rows
  return M <= 16 ? eigen(K, EIGEN_KC / 2) : M >= 32 ? eigen(K, EIGEN_KC) : undefined;
}
