// jax.numpy.linalg and jax.scipy.linalg: the factorizations (LU with partial
// pivoting, Cholesky, Householder QR, Jacobi eigh and SVD) and what JAX builds
// on them (solve, inv, det, slogdet, pinv, lstsq, matrix_rank, norm, …).
//
// Why compositions, not primitives: JAX binds lu/cholesky/qr/eigh/svd as
// primitives that XLA hands to LAPACK. jaxts's kernels are per-element
// expressions (passes/index_rules.ts); a sequential factorization does not fit
// that model without a new kernel kind in both dialects. So each factorization
// is written here as the sequence of its column steps, unrolled at trace time
// over existing primitives (static slices, masked selects, one-hot
// contractions, argmax-by-reduction): every step is LAPACK's own arithmetic
// (getf2's reciprocal-scaled multipliers and rank-1 update, trsm's
// column-ordered substitutions, potf2, larfg/larf Householder reflections),
// so values agree with JAX's LAPACK-backed CPU results to float32 rounding,
// and autodiff, vmap and jit come for free (gradients are the derivatives of
// the same functions JAX differentiates). Row swaps and permutations use
// selects and one-hot contractions, which are exact. eigh and svd use cyclic
// Jacobi sweeps (as XLA's own eigh expander does); eigenvectors are unique
// only up to sign, so those may differ in sign from LAPACK's. The cost is
// O(n) traced steps per factorization (O(n^2) rotations for Jacobi): meant
// for the small matrices of lessons.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { DType } from '../ir/types.js';
import { broadcastShapes, normalizeAxes } from './arrays.js';
import type { Interp } from './interp.js';
import { iterate } from './expr.js';
import { arg, intArg } from './modules.js';
import { truthy } from './pyops.js';
import { controlFlowFunctions } from './control_flow.js';
import { NdArray, PyBuiltin, PyClass, PyList, PyTuple, Tracer, type CallArgs, type PyValue } from './values.js';

type Fn = (c: CallArgs) => PyValue;

/** Array helpers over matrices in the last two axes (any leading batch axes), bound to one call's span. */
export class Mat {
  constructor(
    readonly ip: Interp,
    readonly span: Span,
  ) {}
  private get o() {
    return this.ip.ops;
  }
  f32(v: PyValue): Tracer {
    const x = this.o.asArray(v, this.span);
    return x.aval.dtype === 'float32' ? x : this.o.convert(x, 'float32', this.span);
  }
  /** float32, or complex64 for a complex array (the factorizations that take complex matrices). */
  inexact(v: PyValue): Tracer {
    const x = this.o.asArray(v, this.span);
    return x.aval.dtype === 'complex64' ? x : this.f32(x);
  }
  /** x as complex64 where `like` is complex (a real value entering a complex computation). */
  likeDtype(x: Tracer, like: Tracer): Tracer {
    return like.aval.dtype === 'complex64' ? this.o.convert(x, 'complex64', this.span) : x;
  }
  c(v: number, dtype: DType = 'float32'): Tracer {
    return this.o.asArray(dtype === 'float32' ? v : BigInt(v), this.span, dtype);
  }
  add = (a: PyValue, b: PyValue): Tracer => this.o.binary('add', a, b, this.span);
  sub = (a: PyValue, b: PyValue): Tracer => this.o.binary('sub', a, b, this.span);
  mul = (a: PyValue, b: PyValue): Tracer => this.o.binary('mul', a, b, this.span);
  div = (a: PyValue, b: PyValue): Tracer => this.o.binary('div', a, b, this.span);
  max = (a: PyValue, b: PyValue): Tracer => this.o.binary('max', a, b, this.span);
  un = (prim: 'abs' | 'sqrt' | 'neg' | 'log' | 'exp' | 'sign' | 'rsqrt', a: PyValue): Tracer => this.o.unary(prim, a, this.span);
  cmp = (op: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge', a: PyValue, b: PyValue): Tracer => this.o.compare(op, a, b, this.span);
  and = (a: Tracer, b: Tracer): Tracer => this.o.binary('and', a, b, this.span);
  /** select with NumPy broadcasting of all three operands. */
  sel = (p: Tracer, t: Tracer, f: Tracer): Tracer => {
    const shape = broadcastShapes(broadcastShapes(p.aval.shape, t.aval.shape, this.span), f.aval.shape, this.span);
    return this.o.select(this.bcast(p, shape), t, f, this.span);
  };
  sum = (x: Tracer, axis: number, keep = true): Tracer => this.o.reduce('reduce_sum', x, BigInt(axis), keep, this.span);
  redMax = (x: Tracer, axis: number, keep = true): Tracer => this.o.reduce('reduce_max', x, BigInt(axis), keep, this.span);
  redMin = (x: Tracer, axis: number, keep = true): Tracer => this.o.reduce('reduce_min', x, BigInt(axis), keep, this.span);
  matmul = (a: Tracer, b: Tracer): Tracer => this.o.matmul(a, b, this.span);
  /** The last two axes swapped. */
  mT(x: Tracer): Tracer {
    const r = x.aval.shape.length;
    return this.o.transpose(x, [...Array(r - 2).keys(), r - 1, r - 2], this.span);
  }
  iota(shape: readonly number[], dim: number): Tracer {
    return this.o.tracer(this.o.bind('iota', [], { dtype: 'int32', shape: [...shape], dimension: dim, sharding: null }, this.span));
  }
  bcast(x: Tracer, shape: readonly number[]): Tracer {
    return this.o.tracer(this.o.broadcastTo(x.atom, shape, this.span));
  }
  /** x[..., start:stop] along `axis` (negative counts from the end), keeping the axis. */
  slice(x: Tracer, axis: number, start: number, stop: number): Tracer {
    const shape = x.aval.shape;
    const ax = axis < 0 ? axis + shape.length : axis;
    if (start === 0 && stop === shape[ax]) return x;
    return this.o.tracer(this.o.bind('slice', [x.atom], { start_indices: shape.map((_, i) => (i === ax ? start : 0)), limit_indices: shape.map((d, i) => (i === ax ? stop : d)), strides: null }, this.span));
  }
  /** Row i as [..., 1, n]; column j as [..., m, 1]; entry (i, j) as [..., 1, 1]. */
  row = (x: Tracer, i: number): Tracer => this.slice(x, -2, i, i + 1);
  col = (x: Tracer, j: number): Tracer => this.slice(x, -1, j, j + 1);
  at = (x: Tracer, i: number, j: number): Tracer => this.block(x, i, j);
  /** Entry (i, j) of the last two axes as [..., 1, 1], in one slice. */
  block(x: Tracer, i: number, j: number): Tracer {
    const shape = x.aval.shape;
    const r = shape.length;
    const start = shape.map((_, d) => (d === r - 2 ? i : d === r - 1 ? j : 0));
    const limit = shape.map((n, d) => (d === r - 2 ? i + 1 : d === r - 1 ? j + 1 : n));
    return this.o.tracer(this.o.bind('slice', [x.atom], { start_indices: start, limit_indices: limit, strides: null }, this.span));
  }
  /** Drop the trailing axes of size 1 that `keep` reductions and slices left. */
  squeezeLast(x: Tracer, n: number): Tracer {
    return this.o.reshape(x, x.aval.shape.slice(0, x.aval.shape.length - n), this.span);
  }
  zeros(shape: readonly number[]): Tracer {
    return this.o.full([...shape], 0, 'float32', this.span);
  }
  eye(n: number, batch: readonly number[] = []): Tracer {
    const e = this.o.convert(this.cmp('eq', this.iota([n, n], 0), this.iota([n, n], 1)), 'float32', this.span);
    return batch.length ? this.bcast(e, [...batch, n, n]) : e;
  }
  /** The diagonal of the last two axes: [..., min(m, n)] (exact: masked sums of one entry). */
  diag(x: Tracer): Tracer {
    const s = x.aval.shape;
    const k = Math.min(s[s.length - 2]!, s[s.length - 1]!);
    const sq = this.slice(this.slice(x, -2, 0, k), -1, 0, k);
    const mask = this.cmp('eq', this.iota(sq.aval.shape, s.length - 2), this.iota(sq.aval.shape, s.length - 1));
    return this.sum(this.sel(mask, sq, this.zeros(sq.aval.shape)), -1, false);
  }
  stack(xs: Tracer[], axis: number): Tracer {
    return this.o.stack(xs, axis, this.span);
  }
  concat(xs: Tracer[], axis: number): Tracer {
    return this.o.concatenate(xs, axis, this.span);
  }
  /** Row-index and column-index grids of a [..., m, n] shape. */
  grids(shape: readonly number[]): [Tracer, Tracer] {
    return [this.iota(shape, shape.length - 2), this.iota(shape, shape.length - 1)];
  }
}

/** LU with partial pivoting (LAPACK getf2): the packed factors, the pivot rows (getrf's ipiv, 0-based) and the row permutation. */
export function luFactor(m: Mat, a: Tracer): { lu: Tracer; pivots: Tracer; perm: Tracer } {
  const shape = a.aval.shape;
  const r = shape.length;
  const rows = shape[r - 2]!;
  const cols = shape[r - 1]!;
  const batch = shape.slice(0, -2);
  const [R, C] = m.grids(shape);
  const rIdx = m.iota([...batch, rows, 1], r - 2);
  const permRows = m.iota([...batch, rows], r - 2);
  let A = a;
  let perm = permRows;
  const pivots: Tracer[] = [];
  for (let k = 0; k < Math.min(rows, cols); k++) {
    // isamax over rows k..m-1 of column k: the first largest magnitude; a NaN is never larger (row k when it is NaN)
    const absK = m.un('abs', m.col(A, k));
    const nanK = m.cmp('ne', absK, absK);
    const mag = m.sel(m.cmp('lt', rIdx, m.c(k, 'int32')), m.c(-1), m.sel(nanK, m.c(-0.5), absK));
    const best = m.redMax(mag, r - 2);
    const hit = m.cmp('eq', mag, m.bcast(best, mag.aval.shape));
    const first = m.redMin(m.sel(hit, rIdx, m.c(rows, 'int32')), r - 2);
    const p = m.sel(m.slice(nanK, -2, k, k + 1), m.c(k, 'int32'), first); // [..., 1, 1]
    pivots.push(m.squeezeLast(p, 1));
    // swap rows k and p (selects and a one-hot sum: exact)
    const isP = m.cmp('eq', R, m.bcast(p, shape));
    const isK = m.cmp('eq', R, m.c(k, 'int32'));
    const rowP = m.sum(m.sel(isP, A, m.zeros(shape)), r - 2);
    const rowK = m.row(A, k);
    A = m.sel(isK, m.bcast(rowP, shape), m.sel(isP, m.bcast(rowK, shape), A));
    const pv = m.squeezeLast(p, 1); // [..., 1]
    const isPv = m.cmp('eq', permRows, m.bcast(pv, perm.aval.shape));
    const isKv = m.cmp('eq', permRows, m.c(k, 'int32'));
    const permP = m.sum(m.sel(isPv, perm, m.bcast(m.c(0, 'int32'), perm.aval.shape)), r - 2);
    const permK = m.slice(perm, -1, k, k + 1);
    perm = m.sel(isKv, m.bcast(permP, perm.aval.shape), m.sel(isPv, m.bcast(permK, perm.aval.shape), perm));
    // multipliers: column k below the pivot times 1 / pivot; then the rank-1 update of the trailing block
    const l = m.mul(m.col(A, k), m.div(m.c(1), m.at(A, k, k)));
    const below = m.cmp('gt', R, m.c(k, 'int32'));
    A = m.sel(m.and(below, m.cmp('eq', C, m.c(k, 'int32'))), m.bcast(l, shape), A);
    const upd = m.mul(l, m.row(A, k));
    A = m.sel(m.and(below, m.cmp('gt', C, m.c(k, 'int32'))), m.sub(A, upd), A);
  }
  const piv = pivots.length ? m.concat(pivots, -1) : m.bcast(m.c(0, 'int32'), [...batch, 0]);
  return { lu: A, pivots: piv, perm };
}

/**
 * Solve T X = B for triangular T (trsm, left side, no transpose): column-ordered
 * substitution, forward for lower, backward for upper; `unit`: T's diagonal is 1.
 */
export function trsm(m: Mat, T: Tracer, B: Tracer, lower: boolean, unit: boolean): Tracer {
  const n = T.aval.shape[T.aval.shape.length - 1]!;
  const [R] = m.grids(B.aval.shape);
  let X = B;
  for (let step = 0; step < n; step++) {
    const k = lower ? step : n - 1 - step;
    if (!unit) X = m.sel(m.cmp('eq', R, m.c(k, 'int32')), m.bcast(m.div(m.row(X, k), m.at(T, k, k)), X.aval.shape), X);
    const rest = lower ? k < n - 1 : k > 0;
    if (rest) X = m.sel(m.cmp(lower ? 'gt' : 'lt', R, m.c(k, 'int32')), m.sub(X, m.mul(m.col(T, k), m.row(X, k))), X);
  }
  return X;
}

/** The permutation as a one-hot matrix P with P[i, j] = (perm[i] == j): P @ b takes b's rows in perm's order. */
function permMatrix(m: Mat, perm: Tracer): Tracer {
  const n = perm.aval.shape[perm.aval.shape.length - 1]!;
  const shape = [...perm.aval.shape, n];
  const p = m.bcast(m.ip.ops.expandDims(perm, perm.aval.shape.length, m.span), shape);
  return m.ip.ops.convert(m.cmp('eq', p, m.iota(shape, shape.length - 1)), 'float32', m.span);
}

/** Broadcast the batch axes of a [..., n, n] and b [..., n, k] against each other. */
function broadcastBatch(m: Mat, a: Tracer, b: Tracer): [Tracer, Tracer] {
  const ba = a.aval.shape.slice(0, -2);
  const bb = b.aval.shape.slice(0, -2);
  const r = Math.max(ba.length, bb.length);
  const pad = (s: readonly number[]): number[] => [...Array(r - s.length).fill(1), ...s] as number[];
  const batch = pad(ba).map((d, i) => Math.max(d, pad(bb)[i]!));
  return [m.bcast(a, [...batch, ...a.aval.shape.slice(-2)]), m.bcast(b, [...batch, ...b.aval.shape.slice(-2)])];
}

/** lu_solve: x with a x = b, from a's LU factors (b: [..., n, k]). */
function luSolve(m: Mat, lu: Tracer, perm: Tracer, b: Tracer): Tracer {
  const x = m.matmul(permMatrix(m, perm), b);
  return trsm(m, lu, trsm(m, lu, x, true, true), false, false);
}

/**
 * Cholesky (potf2, lower): L with L Lᵀ = a (L Lᴴ = a for a complex Hermitian a: cpotf2, whose diagonal
 * is the square root of the real part); where a is not positive definite, NaN in the lower triangle
 * (as JAX on CPU).
 */
export function choleskyLower(m: Mat, a: Tracer): Tracer {
  const shape = a.aval.shape;
  const r = shape.length;
  const n = shape[r - 1]!;
  const complex = a.aval.dtype === 'complex64';
  const [R, C] = m.grids(shape);
  let A = a;
  let ok: Tracer | null = null;
  for (let j = 0; j < n; j++) {
    const ajj = complex ? m.ip.ops.real(m.at(A, j, j), m.span) : m.at(A, j, j);
    const pos = m.cmp('gt', ajj, m.c(0));
    ok = ok ? m.and(ok, pos) : pos;
    const d = m.un('sqrt', ajj);
    const isJ = m.cmp('eq', C, m.c(j, 'int32'));
    const below = m.cmp('gt', R, m.c(j, 'int32'));
    const l = m.mul(m.col(A, j), m.div(m.c(1), d));
    A = m.sel(m.and(isJ, m.cmp('eq', R, m.c(j, 'int32'))), m.bcast(m.likeDtype(d, a), shape), A);
    A = m.sel(m.and(isJ, below), m.bcast(l, shape), A);
    // trailing update of the lower part: A[i, k] -= l_i conj(l_k) for i >= k > j
    const lt = complex ? m.ip.ops.conj(m.mT(l), m.span) : m.mT(l);
    A = m.sel(m.and(below, m.and(m.cmp('gt', C, m.c(j, 'int32')), m.cmp('ge', R, C))), m.sub(A, m.mul(l, lt)), A);
  }
  // NaN where the factorization failed, then the lower triangle (JAX's CPU lowering, then tril)
  const filled = ok ? m.sel(m.bcast(ok, shape), A, m.bcast(m.likeDtype(m.c(NaN), a), shape)) : A;
  return m.sel(m.cmp('ge', R, C), filled, m.likeDtype(m.zeros(shape), a));
}

/** slapy2: sqrt(x² + y²) without needless overflow. */
function lapy2(m: Mat, x: Tracer, y: Tracer): Tracer {
  const ax = m.un('abs', x);
  const ay = m.un('abs', y);
  const w = m.max(ax, ay);
  const z = m.ip.ops.binary('min', ax, ay, m.span);
  const q = m.div(z, w);
  const r = m.mul(w, m.un('sqrt', m.add(m.c(1), m.mul(q, q))));
  return m.sel(m.cmp('eq', z, m.c(0)), w, r);
}

/** Householder QR (geqr2 + org2r): Q ([..., m, m] complete or [..., m, k] reduced) and R. */
export function householderQR(m: Mat, a: Tracer, complete: boolean, wantQ: boolean): { q: Tracer | null; r: Tracer } {
  const shape = a.aval.shape;
  const rank = shape.length;
  const rows = shape[rank - 2]!;
  const cols = shape[rank - 1]!;
  const batch = shape.slice(0, -2);
  const k = Math.min(rows, cols);
  const [R, C] = m.grids(shape);
  const rIdx = m.iota([...batch, rows, 1], rank - 2);
  let A = a;
  const vs: Tracer[] = [];
  const taus: Tracer[] = [];
  for (let i = 0; i < k; i++) {
    // slarfg on A[i:, i]
    const alpha = m.at(A, i, i);
    const below = m.cmp('gt', rIdx, m.c(i, 'int32'));
    const x = m.sel(below, m.col(A, i), m.zeros(rIdx.aval.shape));
    const xnorm = m.un('sqrt', m.sum(m.mul(x, x), rank - 2));
    const zero = m.cmp('eq', xnorm, m.c(0));
    const mag = lapy2(m, alpha, xnorm);
    const beta = m.sel(m.cmp('ge', alpha, m.c(0)), m.un('neg', mag), mag);
    const tau = m.sel(zero, m.c(0), m.div(m.sub(beta, alpha), beta));
    const scale = m.div(m.c(1), m.sub(alpha, beta));
    const isI = m.cmp('eq', rIdx, m.c(i, 'int32'));
    const v = m.sel(isI, m.bcast(m.c(1), rIdx.aval.shape), m.sel(zero, m.zeros(rIdx.aval.shape), m.mul(x, scale))); // [..., m, 1], 0 above i
    const newAlpha = m.sel(zero, alpha, beta);
    // column i: beta on the diagonal, zeros below (R's column)
    const colI = m.cmp('eq', C, m.c(i, 'int32'));
    A = m.sel(m.and(colI, m.cmp('eq', R, m.c(i, 'int32'))), m.bcast(newAlpha, shape), m.sel(m.and(colI, m.cmp('gt', R, m.c(i, 'int32'))), m.zeros(shape), A));
    // slarf from the left on A[i:, i+1:]: w = Cᵀv, C += v (-tau w)
    if (i + 1 < cols) {
      const w = m.sum(m.mul(A, v), rank - 2); // [..., 1, n]
      const t = m.mul(m.un('neg', tau), w);
      A = m.sel(m.and(m.cmp('ge', R, m.c(i, 'int32')), m.cmp('gt', C, m.c(i, 'int32'))), m.add(A, m.mul(v, t)), A);
    }
    vs.push(v);
    taus.push(tau);
  }
  const rOut = complete || rows <= cols ? A : m.slice(A, -2, 0, k);
  const [Rr, Rc] = m.grids(rOut.aval.shape);
  const rFactor = m.sel(m.cmp('le', Rr, Rc), rOut, m.zeros(rOut.aval.shape));
  if (!wantQ) return { q: null, r: rFactor };
  // org2r: Q from the reflectors, last first
  const qCols = complete ? rows : k;
  const qShape = [...batch, rows, qCols];
  const [QR, QC] = m.grids(qShape);
  let Q = m.ip.ops.convert(m.cmp('eq', QR, QC), 'float32', m.span);
  Q = m.bcast(Q, qShape);
  for (let i = k - 1; i >= 0; i--) {
    const v = vs[i]!;
    const tau = taus[i]!;
    if (i + 1 < qCols) {
      const w = m.sum(m.mul(Q, v), rank - 2);
      const t = m.mul(m.un('neg', tau), w);
      Q = m.sel(m.and(m.cmp('ge', QR, m.c(i, 'int32')), m.cmp('gt', QC, m.c(i, 'int32'))), m.add(Q, m.mul(v, t)), Q);
    }
    // column i: -tau v below, 1 - tau on the diagonal, zeros above
    const colI = m.cmp('eq', QC, m.c(i, 'int32'));
    const col = m.sel(m.cmp('eq', m.iota(v.aval.shape, rank - 2), m.c(i, 'int32')), m.bcast(m.sub(m.c(1), tau), v.aval.shape), m.mul(m.un('neg', tau), v));
    Q = m.sel(colI, m.bcast(col, qShape), Q);
  }
  return { q: Q, r: rFactor };
}

/** The Jacobi rotation (c, s) that zeroes the off-diagonal entry of [[app, apq], [apq, aqq]] (Golub & Van Loan's sym.schur2). */
function jacobiRotation(m: Mat, app: Tracer, aqq: Tracer, apq: Tracer): [Tracer, Tracer] {
  const zero = m.cmp('eq', apq, m.c(0));
  const safe = m.sel(zero, m.c(1), apq);
  const tau = m.div(m.sub(aqq, app), m.mul(m.c(2), safe));
  const sgn = m.sel(m.cmp('ge', tau, m.c(0)), m.c(1), m.c(-1));
  const t = m.div(sgn, m.add(m.un('abs', tau), m.un('sqrt', m.add(m.c(1), m.mul(tau, tau)))));
  const c = m.div(m.c(1), m.un('sqrt', m.add(m.c(1), m.mul(t, t))));
  return [m.sel(zero, m.c(1), c), m.sel(zero, m.c(0), m.mul(t, c))];
}

/** The rounds of a round-robin tournament on n indices (the circle method): disjoint pairs (p < q), every pair once per sweep. */
function tournament(n: number): [number, number][][] {
  const N = n % 2 ? n + 1 : n;
  const rest = Array.from({ length: N - 1 }, (_, i) => i + 1);
  const rounds: [number, number][][] = [];
  for (let r = 0; r < N - 1; r++) {
    const order = [0, ...rest.slice(r), ...rest.slice(0, r)];
    const pairs: [number, number][] = [];
    for (let i = 0; i < N / 2; i++) {
      const a = order[i]!;
      const b = order[N - 1 - i]!;
      if (a < n && b < n) pairs.push(a < b ? [a, b] : [b, a]);
    }
    rounds.push(pairs);
  }
  return rounds;
}

const sweepsFor = (n: number): number => (n <= 2 ? 1 : n <= 6 ? 4 : n <= 10 ? 5 : 6);

/**
 * Parallel-order Jacobi: in each round of a tournament the disjoint pairs are
 * rotated at once by one orthogonal J built from the 2x2 problems
 * [[gpp, gpq], [gpq, gqq]] of `gram(state)` (the matrix itself for eigh, XᵀX
 * for the one-sided SVD); `apply` takes J to the next state. The rounds run as
 * one lax.scan over the pairs of every round of every sweep (two int32 index
 * vectors per round), so the traced program does not grow with n: each
 * selection and scatter is a contraction with a one-hot matrix built from the
 * round's indices (exact).
 */
function jacobiRounds(m: Mat, n: number, init: Tracer[], gram: (state: Tracer[]) => Tracer, apply: (state: Tracer[], J: Tracer) => Tracer[]): Tracer[] {
  const rounds = tournament(n);
  const h = Math.floor(n / 2);
  const sweeps = sweepsFor(n);
  const all = Array.from({ length: sweeps }, () => rounds).flat();
  const indices = (side: 0 | 1): NdArray => new NdArray([all.length, h], 'int32', all.flatMap((pairs) => pairs.map((pq) => pq[side])));
  const o = m.ip.ops;
  const f32 = (x: Tracer): Tracer => o.convert(x, 'float32', m.span);
  const I = m.eye(n);
  const step = (state: Tracer[], p: Tracer, q: Tracer): Tracer[] => {
    // one-hot selectors [n, h]: column k picks index p_k (q_k)
    const rowsN = m.iota([n, h], 0);
    const Sp = f32(m.cmp('eq', rowsN, m.bcast(o.reshape(p, [1, h], m.span), [n, h])));
    const Sq = f32(m.cmp('eq', rowsN, m.bcast(o.reshape(q, [1, h], m.span), [n, h])));
    const SpT = m.mT(Sp);
    const SqT = m.mT(Sq);
    const G = gram(state);
    const r = G.aval.shape.length;
    // G[p_k, ·] as rows ([..., h, n]), then the entry in column p_k or q_k
    const rowsP = m.matmul(SpT, G);
    const rowsQ = m.matmul(SqT, G);
    const gpp = m.sum(m.mul(rowsP, SpT), r - 1, false);
    const gpq = m.sum(m.mul(rowsP, SqT), r - 1, false);
    const gqq = m.sum(m.mul(rowsQ, SqT), r - 1, false);
    const [c, sn] = jacobiRotation(m, gpp, gqq, gpq);
    // J: c on the paired diagonal, s at (p, q), -s at (q, p), the identity elsewhere
    const spread = (v: Tracer, S: Tracer): Tracer => o.reshape(m.matmul(o.expandDims(v, r - 2, m.span), S), [...v.aval.shape.slice(0, -1), n], m.span);
    const paired = m.add(SpT, SqT);
    const unpaired = m.sub(m.c(1), m.sum(paired, 0, false)); // [n]: 1 where no pair holds the index
    const cCol = m.add(spread(c, paired), unpaired); // [..., n]: c of column j's pair
    const sRow = spread(sn, SpT); // [..., n]: s in row p
    const partner = m.matmul(Sp, SqT); // [n, n]: 1 at (p_k, q_k)
    const diagJ = m.mul(I, o.expandDims(cCol, r - 2, m.span));
    const up = m.mul(partner, o.expandDims(sRow, r - 1, m.span));
    const J = m.add(m.sub(diagJ, m.mT(up)), up);
    return apply(state, J);
  };
  const body = new PyBuiltin('jacobi_round', (c) => {
    const state = (c.args[0] as PyTuple).items as Tracer[];
    const [p, q] = (c.args[1] as PyTuple).items as Tracer[];
    return new PyTuple([new PyTuple(step(state, p!, q!)), null]);
  });
  const xs = new PyTuple([indices(0), indices(1)].map((x) => o.asArray(x, m.span, 'int32')));
  const scan = controlFlowFunctions(m.ip)['scan']!;
  const out = scan({ args: [body, new PyTuple(init), xs], kwargs: new Map(), span: m.span }) as PyTuple;
  return (out.items[0] as PyTuple).items as Tracer[];
}

/** Indices that sort `w` ([..., n]) ascending (stable) as a one-hot matrix P[i, r] = (rank of w_i == r). */
function sortMatrix(m: Mat, w: Tracer, descending: boolean): Tracer {
  const shape = w.aval.shape;
  const n = shape[shape.length - 1]!;
  const r = shape.length;
  const wi = m.bcast(m.ip.ops.expandDims(w, r, m.span), [...shape, n]); // [..., i, j] = w_i
  const wj = m.bcast(m.ip.ops.expandDims(w, r - 1, m.span), [...shape, n]); // w_j
  const [I, J] = m.grids([...shape, n]);
  const before = m.ip.ops.binary('or', m.cmp(descending ? 'gt' : 'lt', wj, wi), m.and(m.cmp('eq', wj, wi), m.cmp('lt', J, I)), m.span);
  const rank = m.sum(m.ip.ops.convert(before, 'int32', m.span), r); // [..., n, 1]: rank of w_i
  return m.ip.ops.convert(m.cmp('eq', m.bcast(rank, [...shape, n]), J), 'float32', m.span);
}

/** w [..., n] times the one-hot P [..., n, n]: w reordered. */
function reorder(m: Mat, w: Tracer, P: Tracer): Tracer {
  const r = w.aval.shape.length;
  return m.ip.ops.reshape(m.matmul(m.ip.ops.expandDims(w, r - 1, m.span), P), [...w.aval.shape], m.span);
}

/** Symmetric eigendecomposition by Jacobi sweeps: eigenvalues ascending, eigenvectors as columns. */
export function jacobiEigh(m: Mat, a: Tracer): { w: Tracer; v: Tracer } {
  const shape = a.aval.shape;
  const n = shape[shape.length - 1]!;
  const batch = shape.slice(0, -2);
  const [A, V] = jacobiRounds(m, n, [a, m.eye(n, batch)], ([A]) => A!, ([A, V], J) => [m.matmul(m.mT(J), m.matmul(A!, J)), m.matmul(V!, J)]);
  const w = m.diag(A);
  const P = sortMatrix(m, w, false);
  return { w: reorder(m, w, P), v: m.matmul(V, P) };
}

/** SVD by one-sided (Hestenes) Jacobi: U [..., m, k], s [..., k] descending, Vᵀ [..., k, n]. */
export function jacobiSVD(m: Mat, a: Tracer, full: boolean): { u: Tracer; s: Tracer; vt: Tracer } {
  const shape = a.aval.shape;
  const rows = shape[shape.length - 2]!;
  const cols = shape[shape.length - 1]!;
  if (rows < cols) {
    const t = jacobiSVD(m, m.mT(a), full);
    return { u: m.mT(t.vt), s: t.s, vt: m.mT(t.u) };
  }
  const batch = shape.slice(0, -2);
  const n = cols;
  const r = shape.length;
  const [U, V] = jacobiRounds(m, n, [a, m.eye(n, batch)], ([U]) => m.matmul(m.mT(U!), U!), ([U, V], J) => [m.matmul(U!, J), m.matmul(V!, J)]);
  const sig = m.un('sqrt', m.sum(m.mul(U, U), r - 2, false)); // [..., n]
  const P = sortMatrix(m, sig, true);
  const safe = m.sel(m.cmp('eq', sig, m.c(0)), m.c(1), sig);
  let u = m.matmul(m.div(U, m.ip.ops.expandDims(safe, r - 2, m.span)), P);
  const vt = m.mT(m.matmul(V, P));
  if (full && rows > cols) {
    // the orthogonal complement of U's columns: the last columns of a complete QR of U
    const { q } = householderQR(m, u, true, true);
    u = m.concat([u, m.slice(q!, -1, cols, rows)], -1);
  }
  return { u, s: reorder(m, sig, P), vt };
}

// ------------------------------------------------------------------ the API

const resultClasses = new Map<string, PyClass>();
/** A result NamedTuple of jax.numpy.linalg (EighResult, SVDResult, QRResult, SlogdetResult). */
export function namedResult(name: string, fields: string[], items: PyValue[]): PyValue {
  let cls = resultClasses.get(name);
  if (!cls) resultClasses.set(name, (cls = new PyClass(name, fields, new Map(), 'namedtuple')));
  return new PyTuple(items, cls);
}

type Result = (name: string, fields: string[], items: PyValue[]) => PyValue;

/** The jax.numpy.linalg functions (beside those jax.numpy already defines), and jax.scipy.linalg's. */
export function linalgFunctions(ip: Interp, jnp: Record<string, Fn>, result: Result): { numpy: Record<string, Fn>; scipy: Record<string, Fn> } {
  const o = ip.ops;
  const M = (c: CallArgs): Mat => new Mat(ip, c.span);
  const kw = (c: CallArgs, i: number, name: string, dflt: PyValue): PyValue => arg(c, i, name, dflt);
  const square = (m: Mat, x: Tracer, fn: string): void => {
    const s = x.aval.shape;
    if (s.length < 2 || s[s.length - 1] !== s[s.length - 2]) throw new CompileError(`ValueError: Argument to ${fn} must have shape [..., n, n], got ${fmt(s)}.`, m.span);
  };
  const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
  // JAX's symmetrize: (x + _H(x)) / 2, _H the conjugate transpose
  const symmetrize = (m: Mat, x: Tracer): Tracer => m.div(m.add(x, o.conj(m.mT(x), m.span)), m.c(2));

  const solve = (m: Mat, a: Tracer, b: Tracer): Tracer => {
    if (a.aval.shape.length < 2) throw new CompileError(`ValueError: left hand array must be at least two dimensional; got a.shape=${fmt(a.aval.shape)}`, m.span);
    square(m, a, 'solve');
    const vec = b.aval.shape.length === 1;
    let bm = vec ? o.expandDims(b, 1, m.span) : b;
    if (bm.aval.shape[bm.aval.shape.length - 2] !== a.aval.shape[a.aval.shape.length - 1]) {
      throw new CompileError(`ValueError: solve: a and b have incompatible shapes ${fmt(a.aval.shape)} and ${fmt(b.aval.shape)}`, m.span);
    }
    let am: Tracer;
    [am, bm] = broadcastBatch(m, a, bm);
    const { lu, perm } = luFactor(m, am);
    const x = luSolve(m, lu, perm, bm);
    return vec ? m.squeezeLast(x, 1) : x;
  };
  const inv = (m: Mat, a: Tracer): Tracer => {
    const s = a.aval.shape;
    if (s.length < 2 || s[s.length - 1] !== s[s.length - 2]) throw new CompileError(`ValueError: Argument to inv must have shape [..., n, n], got ${fmt(s)}.`, m.span);
    return solve(m, a, m.eye(s[s.length - 1]!, s.slice(0, -2)));
  };
  const slogdet = (m: Mat, a: Tracer): [Tracer, Tracer] => {
    const s = a.aval.shape;
    if (s.length < 2 || s[s.length - 1] !== s[s.length - 2]) throw new CompileError(`ValueError: Argument to slogdet() must have shape [..., n, n], got ${fmt(s)}`, m.span);
    const n = s[s.length - 1]!;
    const el = (i: number, j: number): Tracer => m.squeezeLast(m.at(a, i, j), 2);
    if (n === 1 || n === 2) {
      const det = n === 1 ? el(0, 0) : m.sub(m.mul(el(0, 0), el(1, 1)), m.mul(el(0, 1), el(1, 0)));
      return [m.un('sign', det), m.un('log', m.un('abs', det))];
    }
    const { lu, pivots } = luFactor(m, a);
    const diag = m.diag(lu);
    const isZero = m.redMax(m.cmp('eq', diag, m.c(0)), s.length - 2, false);
    const iota = m.iota(pivots.aval.shape, pivots.aval.shape.length - 1);
    const count = (b: Tracer): Tracer => m.sum(o.convert(b, 'int32', m.span), s.length - 2, false);
    const parity = m.add(count(m.cmp('ne', pivots, iota)), count(m.cmp('lt', diag, m.c(0))));
    const odd = m.cmp('eq', o.binary('rem', parity, m.c(2, 'int32'), m.span), m.c(1, 'int32'));
    const sign = m.sel(isZero, m.c(0), m.sel(odd, m.c(-1), m.c(1)));
    const logdet = m.sel(isZero, m.c(-Infinity), m.sum(m.un('log', m.un('abs', diag)), s.length - 2, false));
    return [sign, logdet];
  };
  const det = (m: Mat, a: Tracer): Tracer => {
    const s = a.aval.shape;
    const n = s[s.length - 1]!;
    const el = (i: number, j: number): Tracer => m.squeezeLast(m.at(a, i, j), 2);
    if (s.length >= 2 && n === 2 && s[s.length - 2] === 2) return m.sub(m.mul(el(0, 0), el(1, 1)), m.mul(el(0, 1), el(1, 0)));
    if (s.length >= 2 && n === 3 && s[s.length - 2] === 3) {
      const t = (i: [number, number], j: [number, number], k: [number, number]): Tracer => m.mul(m.mul(el(...i), el(...j)), el(...k));
      let d = m.add(m.add(t([0, 0], [1, 1], [2, 2]), t([0, 1], [1, 2], [2, 0])), t([0, 2], [1, 0], [2, 1]));
      d = m.sub(m.sub(m.sub(d, t([0, 2], [1, 1], [2, 0])), t([0, 0], [1, 2], [2, 1])), t([0, 1], [1, 0], [2, 2]));
      return d;
    }
    if (s.length < 2 || n !== s[s.length - 2]) throw new CompileError(`ValueError: Argument to _det() must have shape [..., n, n], got ${fmt(s)}`, m.span);
    const [sign, logdet] = slogdet(m, a);
    return m.mul(sign, m.un('exp', logdet));
  };
  const svd = (m: Mat, a: Tracer, full: boolean): { u: Tracer; s: Tracer; vt: Tracer } => {
    if (a.aval.shape.length < 2) throw new CompileError(`ValueError: Argument to singular value decomposition must have ndims >= 2, got shape ${fmt(a.aval.shape)}`, m.span);
    return jacobiSVD(m, a, full);
  };
  const eps = 2 ** -23;

  const numpy: Record<string, Fn> = {
    solve: (c) => {
      const m = M(c);
      return solve(m, m.f32(arg(c, 0, 'a')), m.f32(arg(c, 1, 'b')));
    },
    inv: (c) => {
      const m = M(c);
      return inv(m, m.f32(arg(c, 0, 'a')));
    },
    det: (c) => {
      const m = M(c);
      return det(m, m.f32(arg(c, 0, 'a')));
    },
    slogdet: (c) => {
      const m = M(c);
      return result('SlogdetResult', ['sign', 'logabsdet'], slogdet(m, m.f32(arg(c, 0, 'a'))));
    },
    cholesky: (c) => {
      const m = M(c);
      let a = m.inexact(arg(c, 0, 'a'));
      square(m, a, 'cholesky');
      if (truthy(c.kwargs.get('symmetrize_input') ?? true, c.span)) a = symmetrize(m, a);
      const L = choleskyLower(m, a);
      return truthy(c.kwargs.get('upper') ?? false, c.span) ? m.mT(L) : L;
    },
    qr: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const mode = String(kw(c, 1, 'mode', 'reduced'));
      if (a.aval.shape.length < 2) throw new CompileError(`ValueError: Argument to qr must have ndims >= 2, got shape ${fmt(a.aval.shape)}`, c.span);
      if (!['reduced', 'complete', 'r', 'full'].includes(mode)) throw new CompileError(`ValueError: Unsupported QR decomposition mode '${mode}'`, c.span);
      const { q, r } = householderQR(m, a, mode === 'complete', mode !== 'r');
      return mode === 'r' ? r : result('QRResult', ['Q', 'R'], [q!, r]);
    },
    eigh: (c) => {
      const m = M(c);
      let a = m.f32(arg(c, 0, 'a'));
      square(m, a, 'eigh');
      const uplo = kw(c, 1, 'UPLO', null);
      if (truthy(c.kwargs.get('symmetrize_input') ?? true, c.span)) a = symmetrize(m, a);
      else {
        const [R, C] = m.grids(a.aval.shape);
        const lowerHalf = m.sel(m.cmp(uplo === 'U' ? 'le' : 'ge', R, C), a, m.zeros(a.aval.shape));
        const strict = m.sel(m.cmp(uplo === 'U' ? 'lt' : 'gt', R, C), a, m.zeros(a.aval.shape));
        a = m.add(lowerHalf, m.mT(strict));
      }
      const { w, v } = jacobiEigh(m, a);
      return result('EighResult', ['eigenvalues', 'eigenvectors'], [w, v]);
    },
    eigvalsh: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      square(m, a, 'eigvalsh');
      return jacobiEigh(m, symmetrize(m, a)).w;
    },
    svd: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const full = truthy(kw(c, 1, 'full_matrices', true), c.span);
      const uv = truthy(kw(c, 2, 'compute_uv', true), c.span);
      const r = svd(m, a, full && uv);
      return uv ? result('SVDResult', ['U', 'S', 'Vh'], [r.u, r.s, r.vt]) : r.s;
    },
    svdvals: (c) => {
      const m = M(c);
      return svd(m, m.f32(arg(c, 0, 'x')), false).s;
    },
    pinv: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const s = a.aval.shape;
      const rtolV = kw(c, 1, 'rtol', c.kwargs.get('rcond') ?? null);
      const rtol = rtolV === null ? m.c(10 * Math.max(s[s.length - 1]!, s[s.length - 2]!) * eps) : m.f32(rtolV);
      const { u, s: sv, vt } = svd(m, a, false);
      const cutoff = m.mul(rtol, m.slice(sv, -1, 0, 1));
      const sCut = m.sel(m.cmp('gt', sv, cutoff), sv, m.bcast(m.c(Infinity), sv.aval.shape));
      return m.matmul(m.mT(vt), m.div(m.mT(u), o.expandDims(sCut, sCut.aval.shape.length, c.span)));
    },
    lstsq: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      let b = m.f32(arg(c, 1, 'b'));
      const rcondV = kw(c, 2, 'rcond', null);
      if (a.aval.shape.length !== 2) throw new CompileError(`TypeError: ${a.aval.shape.length}-dimensional array given. Array must be two-dimensional`, c.span);
      if (a.aval.shape[0] !== b.aval.shape[0]) throw new CompileError('ValueError: Leading dimensions of input arrays must match', c.span);
      const vec = b.aval.shape.length === 1;
      if (vec) b = o.expandDims(b, 1, c.span);
      if (b.aval.shape.length !== 2) throw new CompileError(`TypeError: ${b.aval.shape.length}-dimensional array given. Array must be one or two-dimensional`, c.span);
      const [rows, cols] = a.aval.shape as [number, number];
      const rcond = rcondV === null ? m.c(eps * Math.max(rows, cols)) : m.f32(rcondV);
      const { u, s, vt } = svd(m, a, false);
      const s0 = m.slice(s, -1, 0, 1);
      const mask = m.and(m.cmp('gt', s, m.c(0)), m.cmp('ge', s, m.mul(rcond, s0)));
      const rank = m.sum(o.convert(mask, 'int32', c.span), 0, false);
      const safe = m.sel(mask, s, m.bcast(m.c(1), s.aval.shape));
      const sInv = o.expandDims(m.sel(mask, m.div(m.c(1), safe), m.zeros(s.aval.shape)), 1, c.span);
      const uTb = m.matmul(m.mT(u), b);
      let x = m.matmul(m.mT(vt), m.mul(sInv, uTb));
      const r = m.sub(b, m.matmul(a, x));
      const resid = m.mul(m.un('sqrt', m.sum(m.mul(r, r), 0, false)), m.un('sqrt', m.sum(m.mul(r, r), 0, false)));
      if (vec) x = o.reshape(x, [-1], c.span);
      return new PyTuple([x, resid, rank, s]);
    },
    matrix_rank: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'M'));
      const tolV = kw(c, 1, 'rtol', c.kwargs.get('tol') ?? null);
      if (a.aval.shape.length < 2) return o.convert(o.reduce('reduce_max', m.cmp('ne', a, m.c(0)), null, false, c.span), 'int32', c.span);
      const s = svd(m, a, false).s;
      const shape = a.aval.shape;
      const rank = s.aval.shape.length;
      const tol = tolV === null ? m.mul(m.redMax(s, rank - 1, false), m.c(Math.max(shape[shape.length - 1]!, shape[shape.length - 2]!) * eps)) : m.f32(tolV);
      return m.sum(o.convert(m.cmp('gt', s, o.expandDims(tol, tol.aval.shape.length, c.span)), 'int32', c.span), rank - 1, false);
    },
    matrix_power: (c) => {
      const m = M(c);
      let a = o.asArray(arg(c, 0, 'a'), c.span);
      const s = a.aval.shape;
      if (s.length < 2) throw new CompileError(`TypeError: ${s.length}-dimensional array given. Array must be at least two-dimensional`, c.span);
      if (s[s.length - 2] !== s[s.length - 1]) throw new CompileError('TypeError: Last 2 dimensions of the array must be square', c.span);
      let n = intArg(arg(c, 1, 'n'), 'n', c.span);
      if (n === 0) return m.bcast(o.convert(m.eye(s[s.length - 1]!), a.aval.dtype, c.span), s);
      if (n < 0) {
        a = inv(m, m.f32(a));
        n = -n;
      }
      if (n === 1) return a;
      if (n === 2) return m.matmul(a, a);
      if (n === 3) return m.matmul(m.matmul(a, a), a);
      let z: Tracer | null = null;
      let res: Tracer | null = null;
      while (n > 0) {
        z = z === null ? a : m.matmul(z, z);
        const bit = n % 2;
        n = Math.floor(n / 2);
        if (bit) res = res === null ? z : m.matmul(res, z);
      }
      return res!;
    },
    norm: (c) => norm(M(c), m0(c, 'x'), kw(c, 1, 'ord', null), kw(c, 2, 'axis', null), truthy(kw(c, 3, 'keepdims', false), c.span)),
    vector_norm: (c) => {
      const m = M(c);
      const x = m.f32(arg(c, 0, 'x'));
      const axis = c.kwargs.get('axis') ?? null;
      const ord = c.kwargs.get('ord') ?? 2n;
      return vectorNorm(m, x, ord, axis === null ? null : normalizeAxes(axis, x.aval.shape.length, c.span), truthy(c.kwargs.get('keepdims') ?? false, c.span));
    },
    matrix_norm: (c) => norm(M(c), m0(c, 'x'), c.kwargs.get('ord') ?? 'fro', new PyTuple([-2n, -1n]), truthy(c.kwargs.get('keepdims') ?? false, c.span)),
    cond: (c) => {
      const m = M(c);
      const x = m.f32(arg(c, 0, 'x'));
      const p = kw(c, 1, 'p', null);
      if (p === null || p === 2n || p === -2n) {
        const s = svd(m, x, false).s;
        const r = s.aval.shape.length;
        const hi = m.slice(s, -1, 0, 1);
        const lo = m.slice(s, -1, s.aval.shape[r - 1]! - 1, s.aval.shape[r - 1]!);
        return m.squeezeLast(p === -2n ? m.div(lo, hi) : m.div(hi, lo), 1);
      }
      const r = x.aval.shape.length;
      const ax = new PyTuple([BigInt(r - 2), BigInt(r - 1)]);
      return m.mul(norm(m, x, p, ax, false), norm(m, inv(m, x), p, ax, false));
    },
    outer: (c) => {
      const m = M(c);
      const x = o.asArray(arg(c, 0, 'x1'), c.span);
      const y = o.asArray(arg(c, 1, 'x2'), c.span);
      if (x.aval.shape.length !== 1 || y.aval.shape.length !== 1) throw new CompileError(`ValueError: Input arrays must be one-dimensional, but they are x1.ndim=${x.aval.shape.length} and x2.ndim=${y.aval.shape.length}`, c.span);
      return m.mul(o.expandDims(x, 1, c.span), o.expandDims(y, 0, c.span));
    },
    cross: (c) => {
      const [x1, x2] = [o.asArray(arg(c, 0, 'x1'), c.span), o.asArray(arg(c, 1, 'x2'), c.span)];
      const n1 = x1.aval.shape.at(-1);
      const n2 = x2.aval.shape.at(-1);
      if (n1 !== 3 || n2 !== 3) throw new CompileError(`ValueError: Both input arrays must be (arrays of) 3-dimensional vectors, but they have x1.shape[axis]=${n1} and x2.shape[axis]=${n2}`, c.span);
      return jnp['cross']!({ args: [x1, x2], kwargs: new Map(), span: c.span });
    },
    trace: (c) => {
      const x = o.asArray(arg(c, 0, 'x'), c.span);
      const r = x.aval.shape.length;
      return jnp['trace']!({ args: [x, c.kwargs.get('offset') ?? 0n, BigInt(r - 2), BigInt(r - 1)], kwargs: new Map(), span: c.span });
    },
    diagonal: (c) => {
      const x = o.asArray(arg(c, 0, 'x'), c.span);
      const r = x.aval.shape.length;
      return jnp['diagonal']!({ args: [x, c.kwargs.get('offset') ?? 0n, BigInt(r - 2), BigInt(r - 1)], kwargs: new Map(), span: c.span });
    },
    matrix_transpose: (c) => jnp['matrix_transpose']!(c),
    matmul: (c) => o.matmul(arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    tensordot: (c) => {
      // jnp.linalg.tensordot(x1, x2, /, *, axes=2)
      if (c.args.length > 2) throw new CompileError(`TypeError: tensordot() takes 2 positional arguments but ${c.args.length} were given`, c.span);
      return jnp['tensordot']!({ args: [arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.kwargs.get('axes') ?? 2n], kwargs: new Map(), span: c.span });
    },
    vecdot: (c) => {
      const m = M(c);
      const x = o.asArray(arg(c, 0, 'x1'), c.span);
      const y = o.asArray(arg(c, 1, 'x2'), c.span);
      const axis = intArg(c.kwargs.get('axis') ?? -1n, 'axis', c.span);
      const prod = m.mul(x, y);
      return m.sum(prod, axis < 0 ? axis + prod.aval.shape.length : axis, false);
    },
    multi_dot: (c) => {
      const arrays = iterate(ip, arg(c, 0, 'arrays'), c.span).map((v) => o.asArray(v, c.span));
      if (arrays.length < 2) throw new CompileError(`ValueError: multi_dot requires at least two arrays; got len(arrays)=${arrays.length}`, c.span);
      return multiDot(ip, arrays, c.span);
    },
  };

  const m0 = (c: CallArgs, name: string): Tracer => new Mat(ip, c.span).f32(arg(c, 0, name));
  const isInf = (v: PyValue, sign: 1 | -1): boolean => typeof v === 'number' && v === sign * Infinity;
  const ordNum = (v: PyValue): number | null => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : null);

  function vectorNorm(m: Mat, x: Tracer, ord: PyValue, axes: number[] | null, keep: boolean): Tracer {
    const ax: PyValue = axes === null ? null : new PyTuple(axes.map(BigInt));
    const red = (prim: 'reduce_sum' | 'reduce_max' | 'reduce_min', v: Tracer): Tracer => o.reduce(prim, v, ax, keep, m.span);
    const n = ordNum(ord);
    if (ord === null || n === 2) return m.un('sqrt', red('reduce_sum', m.mul(x, x)));
    if (isInf(ord, 1)) return red('reduce_max', m.un('abs', x));
    if (isInf(ord, -1)) return red('reduce_min', m.un('abs', x));
    if (n === 0) return red('reduce_sum', o.convert(m.cmp('ne', x, m.c(0)), 'float32', m.span));
    if (n === 1) return red('reduce_sum', m.un('abs', x));
    if (typeof ord === 'string' || n === null) {
      let msg = `ValueError: Invalid order '${String(ord)}' for vector norm.`;
      if (ord === 'inf') msg += "Use 'jax.numpy.inf' instead.";
      if (ord === '-inf') msg += "Use '-jax.numpy.inf' instead.";
      throw new CompileError(msg, m.span);
    }
    const out = red('reduce_sum', o.binary('pow', m.un('abs', x), m.c(n), m.span));
    return o.binary('pow', out, m.c(Math.fround(1 / Math.fround(n))), m.span);
  }

  function norm(m: Mat, x: Tracer, ord: PyValue, axis: PyValue, keep: boolean): Tracer {
    const nd = x.aval.shape.length;
    let axes: number[];
    if (axis === null) {
      if (ord === null) return m.un('sqrt', o.reduce('reduce_sum', m.mul(x, x), null, keep, m.span));
      axes = [...Array(nd).keys()];
    } else axes = normalizeAxes(axis, nd, m.span);
    if (axes.length === 1) return vectorNorm(m, x, ord === null ? 2n : ord, axes, keep);
    if (axes.length !== 2) throw new CompileError(`ValueError: Improper number of axes for norm: axis=${fmt(axes)}. Pass one axis to compute a vector-norm, or two axes to compute a matrix-norm.`, m.span);
    let [rowAx, colAx] = axes as [number, number];
    const n = ordNum(ord);
    const sumAbs = (a: number): Tracer => o.reduce('reduce_sum', m.un('abs', x), BigInt(a), keep, m.span);
    const ext = (prim: 'reduce_max' | 'reduce_min', v: Tracer, a: number): Tracer => o.reduce(prim, v, BigInt(a), keep, m.span);
    if (ord === null || ord === 'f' || ord === 'fro') return m.un('sqrt', o.reduce('reduce_sum', m.mul(x, x), new PyTuple(axes.map(BigInt)), keep, m.span));
    if (n === 1 || n === -1) {
      if (!keep && colAx > rowAx) colAx -= 1;
      return ext(n === 1 ? 'reduce_max' : 'reduce_min', sumAbs(rowAx), colAx);
    }
    if (isInf(ord, 1) || isInf(ord, -1)) {
      if (!keep && rowAx > colAx) rowAx -= 1;
      return ext(isInf(ord, 1) ? 'reduce_max' : 'reduce_min', sumAbs(colAx), rowAx);
    }
    if (ord === 'nuc' || n === 2 || n === -2) {
      const rest = [...Array(nd).keys()].filter((i) => i !== rowAx && i !== colAx);
      const moved = o.transpose(x, [...rest, rowAx, colAx], m.span);
      const s = jacobiSVD(m, moved, false).s;
      const last = s.aval.shape.length - 1;
      let y = n === 2 ? m.redMax(s, last, false) : n === -2 ? m.redMin(s, last, false) : m.sum(s, last, false);
      if (keep) for (const a of [...axes].sort((p, q) => p - q)) y = o.expandDims(y, a, m.span);
      return y;
    }
    throw new CompileError(`ValueError: Invalid order '${String(ord)}' for matrix norm.`, m.span);
  }

  const luFn: Fn = (c) => {
    // jax.scipy.linalg.lu: p, l, u with a = p @ l @ u
    const m = M(c);
    const a = m.f32(arg(c, 0, 'a'));
    const s = a.aval.shape;
    const [rows, cols] = [s[s.length - 2]!, s[s.length - 1]!];
    const k = Math.min(rows, cols);
    const { lu, perm } = luFactor(m, a);
    const [R, C] = m.grids(s);
    const lFull = m.sel(m.cmp('gt', R, C), lu, m.sel(m.cmp('eq', R, C), m.bcast(m.c(1), s), m.zeros(s)));
    const l = m.slice(lFull, -1, 0, k);
    const uFull = m.sel(m.cmp('le', R, C), lu, m.zeros(s));
    const u = m.slice(uFull, -2, 0, k);
    const p = m.mT(permMatrix(m, perm));
    return new PyTuple([p, l, u]);
  };
  const choFactor = (c: CallArgs): { m: Mat; L: Tracer; lower: boolean } => {
    const m = M(c);
    const a = m.f32(arg(c, 0, 'a'));
    const lower = truthy(kw(c, 1, 'lower', false), c.span);
    return { m, L: choleskyLower(m, symmetrize(m, a)), lower };
  };
  const scipy: Record<string, Fn> = {
    lu: luFn,
    lu_factor: (c) => {
      const m = M(c);
      const { lu, pivots } = luFactor(m, m.f32(arg(c, 0, 'a')));
      return new PyTuple([lu, pivots]);
    },
    lu_solve: (c) => {
      const m = M(c);
      const lp = iterate(ip, arg(c, 0, 'lu_and_piv'), c.span);
      const lu = m.f32(lp[0]!);
      const piv = o.asArray(lp[1]!, c.span);
      let b = m.f32(arg(c, 1, 'b'));
      const n = lu.aval.shape[lu.aval.shape.length - 1]!;
      // the permutation from the pivots: swap k with piv[k], in order
      let perm = m.iota([n], 0);
      const rowsI = m.iota([n], 0);
      for (let k = 0; k < piv.aval.shape[piv.aval.shape.length - 1]!; k++) {
        const p = m.slice(piv, -1, k, k + 1);
        const isP = m.cmp('eq', rowsI, m.bcast(p, [n]));
        const isK = m.cmp('eq', rowsI, m.c(k, 'int32'));
        const permP = m.sum(m.sel(isP, perm, m.bcast(m.c(0, 'int32'), [n])), 0);
        const permK = m.slice(perm, -1, k, k + 1);
        perm = m.sel(isK, m.bcast(permP, [n]), m.sel(isP, m.bcast(permK, [n]), perm));
      }
      const vec = b.aval.shape.length === 1;
      if (vec) b = o.expandDims(b, 1, c.span);
      const x = luSolve(m, lu, perm, b);
      return vec ? m.squeezeLast(x, 1) : x;
    },
    solve_triangular: (c) => {
      const m = M(c);
      let a = m.f32(arg(c, 0, 'a'));
      let b = m.f32(arg(c, 1, 'b'));
      const trans = kw(c, 2, 'trans', 0n);
      let lower = truthy(kw(c, 3, 'lower', false), c.span);
      const unit = truthy(kw(c, 4, 'unit_diagonal', false), c.span);
      if (trans === 1n || trans === 2n || trans === 'T' || trans === 'C') {
        a = m.mT(a);
        lower = !lower;
      }
      const [R, C] = m.grids(a.aval.shape);
      a = m.sel(m.cmp(lower ? 'ge' : 'le', R, C), a, m.zeros(a.aval.shape));
      const vec = b.aval.shape.length === a.aval.shape.length - 1;
      if (vec) b = o.expandDims(b, b.aval.shape.length, c.span);
      [a, b] = broadcastBatch(m, a, b);
      const x = trsm(m, a, b, lower, unit);
      return vec ? m.squeezeLast(x, 1) : x;
    },
    cholesky: (c) => {
      const { m, L, lower } = choFactor(c);
      return lower ? L : m.mT(L);
    },
    cho_factor: (c) => {
      const { m, L, lower } = choFactor(c);
      return new PyTuple([lower ? L : m.mT(L), lower]);
    },
    cho_solve: (c) => {
      const m = M(c);
      const cl = iterate(ip, arg(c, 0, 'c_and_lower'), c.span);
      const lower = truthy(cl[1]!, c.span);
      const f = m.f32(cl[0]!);
      const L = lower ? f : m.mT(f);
      let b = m.f32(arg(c, 1, 'b'));
      const vec = b.aval.shape.length === 1;
      if (vec) b = o.expandDims(b, 1, c.span);
      const [R, Cc] = m.grids(L.aval.shape);
      const Lt = m.sel(m.cmp('ge', R, Cc), L, m.zeros(L.aval.shape));
      const x = trsm(m, m.mT(Lt), trsm(m, Lt, b, true, false), false, false);
      return vec ? m.squeezeLast(x, 1) : x;
    },
    solve: (c) => numpy['solve']!({ args: [arg(c, 0, 'a'), arg(c, 1, 'b')], kwargs: new Map(), span: c.span }),
    inv: (c) => numpy['inv']!({ args: [arg(c, 0, 'a')], kwargs: new Map(), span: c.span }),
    det: (c) => numpy['det']!({ args: [arg(c, 0, 'a')], kwargs: new Map(), span: c.span }),
    qr: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const mode = String(c.kwargs.get('mode') ?? 'full');
      const { q, r } = householderQR(m, a, mode === 'full', mode !== 'r');
      return mode === 'r' ? new PyTuple([r]) : new PyTuple([q!, r]);
    },
    eigh: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const { w, v } = jacobiEigh(m, symmetrize(m, a));
      return truthy(c.kwargs.get('eigvals_only') ?? false, c.span) ? w : new PyTuple([w, v]);
    },
    svd: (c) => {
      const m = M(c);
      const a = m.f32(arg(c, 0, 'a'));
      const r = svd(m, a, truthy(kw(c, 1, 'full_matrices', true), c.span));
      return truthy(kw(c, 2, 'compute_uv', true), c.span) ? new PyTuple([r.u, r.s, r.vt]) : r.s;
    },
    pinv: (c) => numpy['pinv']!(c),
    expm: (c) => expm(new Mat(ip, c.span), new Mat(ip, c.span).f32(arg(c, 0, 'A'))),
  };

  /** expm as JAX computes it at float32 (jax/_src/scipy/linalg.py): Padé 3, 5 or 7 by the 1-norm, scaling and squaring (at most 16). */
  function expm(m: Mat, A0: Tracer): Tracer {
    const s = A0.aval.shape;
    if (s.length !== 2 || s[0] !== s[1]) throw new CompileError(`ValueError: expected A to be a (batched) square matrix, got A.shape=${fmt(s)}`, m.span);
    const n = s[0]!;
    const I = m.eye(n);
    const l1 = m.redMax(m.sum(m.un('abs', A0), 0, false), 0, false);
    const maxnorm = 3.92572478313866;
    const log2 = (x: Tracer): Tracer => m.div(m.un('log', x), m.c(Math.LN2));
    const nSq = m.max(m.c(0), o.unary('floor', log2(m.div(l1, m.c(maxnorm))), m.span));
    const A = m.div(A0, o.binary('pow', m.c(2), nSq, m.span));
    const A2 = m.matmul(A, A);
    const A4 = m.matmul(A2, A2);
    const A6 = m.matmul(A4, A2);
    const poly = (b: number[], ps: Tracer[], start: number): Tracer => {
      // b[start + 2k] * ps[k] summed from the highest power down, then + b[start] * I
      let acc: Tracer | null = null;
      for (let k = ps.length - 1; k >= 0; k--) {
        const t = m.mul(m.c(b[start + 2 * (k + 1)]!), ps[k]!);
        acc = acc ? m.add(acc, t) : t;
      }
      return m.add(acc!, m.mul(m.c(b[start]!), I));
    };
    const pade = (b: number[], ps: Tracer[]): [Tracer, Tracer] => [m.matmul(A, poly(b, ps, 1)), poly(b, ps, 0)];
    const [u3, v3] = pade([120, 60, 12, 1], [A2]);
    const [u5, v5] = pade([30240, 15120, 3360, 420, 30, 1], [A2, A4]);
    const [u7, v7] = pade([17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1], [A2, A4, A6]);
    const first = m.bcast(m.cmp('lt', l1, m.c(0.4258730016922831)), s);
    const second = m.bcast(m.cmp('lt', l1, m.c(1.880152677804762)), s);
    const U = m.sel(first, u3, m.sel(second, u5, u7));
    const V = m.sel(first, v3, m.sel(second, v5, v7));
    let R = solve(m, m.add(m.un('neg', U), V), m.add(U, V));
    for (let i = 0; i < 16; i++) R = m.sel(m.bcast(m.cmp('gt', nSq, m.c(i)), s), m.matmul(R, R), R);
    return R;
  }

  return { numpy, scipy };
}

/** multi_dot: JAX contracts the chain in the order that minimises the cost (numpy's _multi_dot_matrix_chain_order). */
function multiDot(ip: Interp, arrays: Tracer[], span: Span): Tracer {
  const o = ip.ops;
  const first = arrays[0]!.aval.shape.length === 1 ? o.expandDims(arrays[0]!, 0, span) : arrays[0]!;
  const lastIn = arrays[arrays.length - 1]!;
  const last = lastIn.aval.shape.length === 1 ? o.expandDims(lastIn, 1, span) : lastIn;
  const mats = [first, ...arrays.slice(1, -1), last];
  const n = mats.length;
  const dims = [mats[0]!.aval.shape[0]!, ...mats.map((x) => x.aval.shape[1]!)];
  const cost: number[][] = Array.from({ length: n }, () => Array(n).fill(0));
  const split: number[][] = Array.from({ length: n }, () => Array(n).fill(0));
  for (let l = 1; l < n; l++) {
    for (let i = 0; i < n - l; i++) {
      const j = i + l;
      cost[i]![j] = Infinity;
      for (let k = i; k < j; k++) {
        const q = cost[i]![k]! + cost[k + 1]![j]! + dims[i]! * dims[k + 1]! * dims[j + 1]!;
        if (q < cost[i]![j]!) {
          cost[i]![j] = q;
          split[i]![j] = k;
        }
      }
    }
  }
  const chain = (i: number, j: number): Tracer => (i === j ? mats[i]! : o.dot(chain(i, split[i]![j]!), chain(split[i]![j]! + 1, j), span));
  let out = chain(0, n - 1);
  if (arrays[0]!.aval.shape.length === 1) out = o.reshape(out, out.aval.shape.slice(1), span);
  if (lastIn.aval.shape.length === 1) out = o.reshape(out, out.aval.shape.slice(0, -1), span);
  return out;
}


/**
 * cos and sin of 2π m / n, exact at the quarter turns (DUCC's twiddles are exact there, so a
 * transform's zero parts stay zero).
 */
function twiddle(m: number, n: number): [number, number] {
  const r = ((m % n) + n) % n;
  if ((4 * r) % n === 0) return ([[1, 0], [0, 1], [-1, 0], [0, -1]] as [number, number][])[(4 * r) / n]!;
  const a = (2 * Math.PI * r) / n;
  return [Math.cos(a), Math.sin(a)];
}

/**
 * jax.numpy.fft: the helpers (fftfreq, rfftfreq, fftshift, ifftshift) as JAX
 * writes them, and the transforms (fft, ifft, rfft, irfft and their 2-D and
 * n-D forms) as discrete Fourier transforms along one axis at a time: a
 * contraction with the DFT matrix (twiddles computed in double, rounded once),
 * which agrees with XLA's DUCC FFT to float32 rounding.
 */
export function fftFunctions(ip: Interp, jnp: Record<string, Fn>): Record<string, Fn> {
  const o = ip.ops;
  const freqArgs = (c: CallArgs, fn: string): { n: number; d: number } => {
    const nV = arg(c, 0, 'n');
    const dV = arg(c, 1, 'd', 1);
    if (nV instanceof PyTuple || nV instanceof PyList) throw new CompileError(`ValueError: The n argument of jax.numpy.fft.${fn} only takes an int. Got n = ${String(nV)}.`, c.span);
    if (dV instanceof PyTuple || dV instanceof PyList) throw new CompileError(`ValueError: The d argument of jax.numpy.fft.${fn} only takes a single value. Got d = ${String(dV)}.`, c.span);
    if (typeof dV !== 'bigint' && typeof dV !== 'number') throw new CompileError(`jaxts: jnp.fft.${fn} takes a Python number d`, c.span);
    return { n: intArg(nV, 'n', c.span), d: Number(dV) };
  };
  const arange = (start: number, stop: number, span: Span): Tracer => o.arange(start, stop, 1, 'float32', span);
  const shift = (c: CallArgs, inverse: boolean): PyValue => {
    const x = o.asArray(arg(c, 0, 'x'), c.span);
    const axesV = arg(c, 1, 'axes', null);
    const r = x.aval.shape.length;
    const axes = axesV === null ? [...Array(r).keys()] : normalizeAxes(axesV, r, c.span);
    const shifts = axes.map((a) => BigInt(inverse ? -Math.floor(x.aval.shape[a]! / 2) : Math.floor(x.aval.shape[a]! / 2)));
    return jnp['roll']!({ args: [x, new PyTuple(shifts), new PyTuple(axes.map(BigInt))], kwargs: new Map(), span: c.span });
  };
  /** A constant matrix [rows, cols] of f(k, t), as float32. */
  const table = (rows: number, cols: number, f: (k: number, t: number) => number, span: Span): Tracer => {
    const data: number[] = [];
    for (let k = 0; k < rows; k++) for (let t = 0; t < cols; t++) data.push(f(k, t));
    return o.asArray(new NdArray([rows, cols], 'float64', data), span, 'float32');
  };
  /** x contracted along `axis` with m's axis 1 ([out, len]): the result's axis `axis` has m's rows. */
  const along = (x: Tracer, m: Tracer, axis: number, span: Span): Tracer => {
    const dtype = x.aval.dtype;
    const y = o.tracer(o.bind('dot_general', [x.atom, o.convert(m, dtype, span).atom], { dimension_numbers: { contract: [[axis], [1]], batch: [[], []] }, precision: null, preferred_element_type: dtype }, span));
    return o.moveAxis(y, y.aval.shape.length - 1, axis, span);
  };
  /** x with its axis `axis` cut or zero-padded to n (JAX's fft `n` argument). */
  const fitted = (x: Tracer, axis: number, n: number, span: Span): Tracer => {
    const len = x.aval.shape[axis]!;
    if (n < 1) throw new CompileError(`ValueError: jax.numpy.fft: invalid n=${n} (must be positive)`, span);
    if (n === len) return x;
    if (n < len) return o.tracer(o.bind('slice', [x.atom], { start_indices: x.aval.shape.map(() => 0), limit_indices: x.aval.shape.map((d, i) => (i === axis ? n : d)), strides: null }, span));
    const zshape = x.aval.shape.map((d, i) => (i === axis ? n - len : d));
    return o.concatenate([x, o.full(zshape, 0, x.aval.dtype, span)], axis, span);
  };
  type Norm = 'backward' | 'ortho' | 'forward';
  const normOf = (v: PyValue, span: Span): Norm => {
    if (v === null) return 'backward';
    if (v === 'backward' || v === 'ortho' || v === 'forward') return v;
    throw new CompileError(`ValueError: Invalid norm value ${String(v)}; should be "backward","ortho" or "forward".`, span);
  };
  /** The scale of a transform of length n: forward transforms divide under 'forward', inverse ones under 'backward'. */
  const scaled = (x: Tracer, n: number, inverse: boolean, norm: Norm, span: Span): Tracer => {
    if (norm === 'ortho') return o.binary('div', x, o.asArray(Math.fround(Math.sqrt(n)), span, 'float32'), span);
    if ((norm === 'backward') === inverse) return o.binary('div', x, o.asArray(n, span, 'float32'), span);
    return x;
  };
  /** The complex DFT (inverse: the conjugate twiddles) of x along one axis. */
  const dft = (x: Tracer, axis: number, n: number, inverse: boolean, norm: Norm, span: Span): Tracer => {
    const z = fitted(o.convert(x, 'complex64', span), axis, n, span);
    const sign = inverse ? 1 : -1;
    const w = o.complex(table(n, n, (k, t) => twiddle(k * t, n)[0], span), table(n, n, (k, t) => sign * twiddle(k * t, n)[1], span), span);
    return scaled(along(z, w, axis, span), n, inverse, norm, span);
  };
  /** rfft along one axis: the first n // 2 + 1 terms of the DFT of a real x. */
  const rdft = (x: Tracer, axis: number, n: number, norm: Norm, span: Span): Tracer => {
    if (x.aval.dtype === 'complex64') throw new CompileError('ValueError: only real valued inputs supported for rfft', span);
    const z = fitted(o.convert(x, 'complex64', span), axis, n, span);
    const m = Math.floor(n / 2) + 1;
    const w = o.complex(table(m, n, (k, t) => twiddle(k * t, n)[0], span), table(m, n, (k, t) => -twiddle(k * t, n)[1], span), span);
    return scaled(along(z, w, axis, span), n, false, norm, span);
  };
  /** irfft along one axis: the real inverse of a Hermitian spectrum's first n // 2 + 1 terms (the zero and Nyquist terms' imaginary parts ignored). */
  const irdft = (x: Tracer, axis: number, n: number, norm: Norm, span: Span): Tracer => {
    const m = Math.floor(n / 2) + 1;
    const z = fitted(o.convert(x, 'complex64', span), axis, m, span);
    const weight = (k: number): number => (k === 0 || 2 * k === n ? 1 : 2);
    const re = along(o.real(z, span), table(n, m, (t, k) => weight(k) * twiddle(k * t, n)[0], span), axis, span);
    const im = along(o.imag(z, span), table(n, m, (t, k) => weight(k) * twiddle(k * t, n)[1], span), axis, span);
    return scaled(o.binary('sub', re, im, span), n, true, norm, span);
  };
  /**
   * hfft / ihfft as JAX writes them: an unnormalized irfft of conj(a) (XLA's irfft divides by n) or
   * rfft, JAX's norm factor for the name, then hfft's product by n or ihfft's conj and 1 / n.
   */
  const hermitian = (c: CallArgs, name: 'hfft' | 'ihfft'): Tracer => {
    const a = o.asArray(arg(c, 0, 'a'), c.span);
    const axisV = arg(c, 2, 'axis', -1n);
    if (axisV instanceof PyTuple || axisV instanceof PyList) {
      throw new CompileError(`ValueError: jax.numpy.fft.${name} does not support multiple axes. Please use jax.numpy.fft.${name}n. Got axis = ${ip.repr(axisV, c.span).static ?? ''}.`, c.span);
    }
    const x = name === 'hfft' ? o.conj(a, c.span) : a;
    if (!x.aval.shape.length) throw new CompileError(`ValueError: jax.numpy.fft.${name} does not support scalar input`, c.span);
    const axis = axisOf(x, axisV, c.span);
    const nV = arg(c, 1, 'n', null);
    const len = x.aval.shape[axis]!;
    const n = nV === null ? (name === 'hfft' ? 2 * (len - 1) : len) : intArg(nV, 'n', c.span);
    const norm = normOf(arg(c, 3, 'norm', null), c.span);
    let y = name === 'hfft' ? irdft(x, axis, n, 'backward', c.span) : rdft(x, axis, n, 'backward', c.span);
    const inverse = name === 'ihfft';
    const f32 = (v: number): Tracer => o.asArray(Math.fround(v), c.span, 'float32');
    if (norm === 'ortho') y = o.binary('mul', y, f32(inverse ? Math.fround(Math.sqrt(n)) : 1 / Math.fround(Math.sqrt(n))), c.span);
    if (norm === 'forward') y = o.binary('mul', y, f32(inverse ? n : 1 / n), c.span);
    if (!inverse) return o.binary('mul', y, BigInt(n), c.span);
    return o.binary('mul', o.conj(y, c.span), 1 / n, c.span);
  };
  const axisOf = (x: Tracer, v: PyValue, span: Span): number => normalizeAxes(v, x.aval.shape.length, span)[0]!;
  const oneD = (kind: 'fft' | 'ifft' | 'rfft' | 'irfft'): Fn => (c) => {
    const x = o.asArray(arg(c, 0, 'a'), c.span);
    if (!x.aval.shape.length) throw new CompileError(`ValueError: jax.numpy.fft.${kind} does not support scalar input`, c.span);
    const axis = axisOf(x, arg(c, 2, 'axis', -1n), c.span);
    const nV = arg(c, 1, 'n', null);
    const len = x.aval.shape[axis]!;
    const n = nV === null ? (kind === 'irfft' ? 2 * (len - 1) : len) : intArg(nV, 'n', c.span);
    const norm = normOf(arg(c, 3, 'norm', null), c.span);
    if (kind === 'rfft') return rdft(x, axis, n, norm, c.span);
    if (kind === 'irfft') return irdft(x, axis, n, norm, c.span);
    return dft(x, axis, n, kind === 'ifft', norm, c.span);
  };
  /** fftn and its kin: the 1-D transforms over `axes` (the real ones on the last axis: rfftn first, irfftn last). */
  const nD = (kind: 'fft' | 'ifft' | 'rfft' | 'irfft', twoD: boolean): Fn => (c) => {
    let x = o.asArray(arg(c, 0, 'a'), c.span);
    const sV = arg(c, 1, 's', null);
    const axesV = arg(c, 2, 'axes', twoD ? new PyTuple([-2n, -1n]) : null);
    const norm = normOf(arg(c, 3, 'norm', null), c.span);
    const r = x.aval.shape.length;
    const sizes = sV === null ? null : iterate(ip, sV, c.span).map((v) => intArg(v, 's', c.span));
    let axes = axesV === null ? (sizes ? sizes.map((_, i) => r - sizes.length + i) : [...Array(r).keys()]) : normalizeAxes(axesV, r, c.span);
    if (sizes && sizes.length !== axes.length) throw new CompileError('ValueError: Shape and axes have different lengths.', c.span);
    if (!axes.length) return kind === 'irfft' || kind === 'rfft' ? x : o.convert(x, 'complex64', c.span);
    axes = [...axes];
    const nFor = (i: number, last: boolean): number => sizes?.[i] ?? (kind === 'irfft' && last ? 2 * (x.aval.shape[axes[i]!]! - 1) : x.aval.shape[axes[i]!]!);
    const lastI = axes.length - 1;
    if (kind === 'rfft') {
      x = rdft(x, axes[lastI]!, nFor(lastI, true), norm, c.span);
      for (let i = 0; i < lastI; i++) x = dft(x, axes[i]!, nFor(i, false), false, norm, c.span);
      return x;
    }
    if (kind === 'irfft') {
      for (let i = 0; i < lastI; i++) x = dft(x, axes[i]!, nFor(i, false), true, norm, c.span);
      return irdft(x, axes[lastI]!, nFor(lastI, true), norm, c.span);
    }
    axes.forEach((a, i) => (x = dft(x, a, nFor(i, false), kind === 'ifft', norm, c.span)));
    return x;
  };
  return {
    fftfreq: (c) => {
      const { n, d } = freqArgs(c, 'fftfreq');
      const half = n % 2 === 0 ? n / 2 : (n - 1) / 2 + 1;
      const k = o.concatenate([arange(0, half, c.span), arange(-Math.floor(n / 2), 0, c.span)], 0, c.span);
      return o.binary('div', k, o.asArray(Math.fround(d * n), c.span, 'float32'), c.span);
    },
    rfftfreq: (c) => {
      const { n, d } = freqArgs(c, 'rfftfreq');
      return o.binary('div', arange(0, Math.floor(n / 2) + 1, c.span), o.asArray(Math.fround(d * n), c.span, 'float32'), c.span);
    },
    fftshift: (c) => shift(c, false),
    ifftshift: (c) => shift(c, true),
    fft: oneD('fft'),
    ifft: oneD('ifft'),
    rfft: oneD('rfft'),
    irfft: oneD('irfft'),
    fft2: nD('fft', true),
    ifft2: nD('ifft', true),
    rfft2: nD('rfft', true),
    irfft2: nD('irfft', true),
    fftn: nD('fft', false),
    ifftn: nD('ifft', false),
    rfftn: nD('rfft', false),
    irfftn: nD('irfft', false),
    hfft: (c) => hermitian(c, 'hfft'),
    ihfft: (c) => hermitian(c, 'ihfft'),
  };
}
