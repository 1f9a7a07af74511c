// The CPU backend's float32 matrix product: a WebAssembly SIMD128 micro-kernel
// (written here as bytes by a small emitter: no toolchain, no native add-on)
// with register blocking (MR rows × NR columns of accumulators in v128
// locals), cache blocking along the contraction (KC) and packed operand
// panels, driven from JS, which gathers (packs) the operands through any
// strides, so transposed and batched dot_generals take the same path.
//
// Every output element is summed in order k = 0, 1, …, K−1 from 0, with a
// float32 product and a float32 sum per step (f32x4.mul then f32x4.add):
// bit for bit what the scalar loop of the JS kernels computes. A product in
// XLA's order (DotLayout's `kc`, src/passes/dot_order.ts) runs `gemm_fma`:
// each step a fused multiply-add, computed in float64 lanes (the product is
// exact there; the float64 sum then float32 rounding differs from one rounding
// only where the sum lands exactly on a float32 midpoint after float64 rounded
// it; relaxed-SIMD FMA is not in every engine), each block of kc items summed from 0 and then added to the result,
// as XLA's Eigen product does.
//
// Large products run across cores (runtime/cpu/threads.ts): the packed
// operands sit in a shared memory and helper threads take blocks of output
// rows × columns; each output element is still summed by one thread in the
// same order, so the result does not depend on the thread count.
//
// Where WebAssembly SIMD is missing, the scalar loop runs, in the same order.

import { fma32 } from './math.js';
import { type ChunkFn, helperCount, ThreadPool } from './threads.js';

/**
 * Rows and columns of the register block (8 accumulators + 2 + 1 v128 values fit x64's 16
 * vector registers; 6×8 and 4×16 spill in V8 and ran 5× slower); KC: the contraction block,
 * MC: the rows of packed x kept in L2 while one NR-column panel of y (KC × NR, in L1) sweeps them.
 */
const MR = 4;
const NR = 8;
const NV = NR / 4;
const KC = 256;
const MC = 128;
/** Output columns of one thread chunk: NB panels of NR (a chunk is MC rows × NB·NR columns). */
const NB = 16;
/** The least multiply-adds (M·N·K) for which a product is split across threads. */
const THREAD_MIN_WORK = 1 << 21;
/** The shared memory's maximum (64 KiB pages): 2 GiB. */
const MAX_PAGES = 32768;

// ---------- a minimal WebAssembly binary emitter ----------

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  if: [0x04, 0x40],
  else: [0x05],
  end: [0x0b],
  br: (d: number) => [0x0c, ...uleb(d)],
  brIf: (d: number) => [0x0d, ...uleb(d)],
  get: (l: number) => [0x20, ...uleb(l)],
  set: (l: number) => [0x21, ...uleb(l)],
  i32: (n: number) => [0x41, ...sleb(n)],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  i32Mul: [0x6c],
  i32Eqz: [0x45],
  i32Ne: [0x47],
  i32LtU: [0x49],
  simd: (code: number, ...imm: number[]) => [0xfd, ...uleb(code), ...imm],
};
/** memarg: alignment (log2) and offset */
const mem = (align: number, offset: number): number[] => [...uleb(align), ...uleb(offset)];
const v128Load = (offset: number) => op.simd(0x00, ...mem(4, offset));
const v128Store = (offset: number) => op.simd(0x0b, ...mem(4, offset));
const load32Splat = (offset: number) => op.simd(0x09, ...mem(2, offset));
const v128Zero = op.simd(0x0c, ...new Array<number>(16).fill(0));
const f32x4Add = op.simd(0xe4);
const f32x4Mul = op.simd(0xe6);
const f64x2PromoteLow = op.simd(0x5f);
const f32x4DemoteZero = op.simd(0x5e);
const f64x2Add = op.simd(0xf0);
const f64x2Mul = op.simd(0xf2);
/** i8x16.shuffle with lanes `bytes` of the two operands (0–15 the first, 16–31 the second). */
const shuffle = (bytes: number[]) => op.simd(0x0d, ...bytes);
const range = (from: number, n: number): number[] => [...Array(n).keys()].map((i) => from + i);
/** The high two float32 lanes of a vector, moved low. */
const highHalf = shuffle([...range(8, 8), ...range(8, 8)]);
/** The low two lanes of the first vector, then the low two of the second. */
const lowHalves = shuffle([...range(0, 8), ...range(16, 8)]);

/**
 * gemm(pa, pb, pc, mPanels, nPanels, kc, ldc, accumulate): for each NR-column panel of packed B
 * (at pb, kc × NR floats each) and MR-row panel of packed A (at pa, kc × MR floats each),
 * C[panel] (row stride ldc bytes) = (accumulate ? C : 0) + Σ_k a ⊗ b, k in order.
 * gemm_fma: the same with XLA's order (DotLayout's `kc`): each step a fused multiply-add (the
 * product and sum in float64, then rounded to float32 once), the block summed from 0 and then
 * added to C where `accumulate`.
 */
function gemmBody(fused: boolean): number[] {
  // params 0..7, then locals
  const [pa, pb, pc, mP, nP, kc, ldc, accum] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [ib, jb, k, ap, bp, cp] = [8, 9, 10, 11, 12, 13];
  const acc = (r: number, c: number): number => 14 + r * NV + c;
  // plain: bv(c) the f32x4 of B; fused: bv(2c), bv(2c + 1) its low and high halves as f64x2
  const bv = (c: number): number => 14 + MR * NV + c;
  const av = 14 + MR * NV + 2 * NV;
  const code: number[] = [];
  const emit = (...parts: number[][]): void => {
    for (const p of parts) code.push(...p);
  };
  const cAddr = (r: number): void => {
    emit(op.get(cp));
    if (r > 0) emit(op.get(ldc), op.i32(r), op.i32Mul, op.i32Add);
  };
  emit(op.i32(0), op.set(jb), op.block, op.loop); // for jb
  emit(op.get(jb), op.get(nP), op.i32LtU, op.i32Eqz, op.brIf(1));
  emit(op.i32(0), op.set(ib), op.block, op.loop); // for ib
  emit(op.get(ib), op.get(mP), op.i32LtU, op.i32Eqz, op.brIf(1));
  // cp = pc + ib*MR*ldc + jb*NR*4
  emit(op.get(pc), op.get(ib), op.i32(MR), op.i32Mul, op.get(ldc), op.i32Mul, op.i32Add);
  emit(op.get(jb), op.i32(NR * 4), op.i32Mul, op.i32Add, op.set(cp));
  // accumulators: C or 0 (fused: 0)
  if (!fused) {
    emit(op.get(accum), op.if);
    for (let r = 0; r < MR; r++) {
      for (let c = 0; c < NV; c++) {
        cAddr(r);
        emit(v128Load(c * 16), op.set(acc(r, c)));
      }
    }
    emit(op.else);
  }
  for (let r = 0; r < MR; r++) for (let c = 0; c < NV; c++) emit(v128Zero, op.set(acc(r, c)));
  if (!fused) emit(op.end);
  // ap = pa + ib*kc*MR*4; bp = pb + jb*kc*NR*4; k = kc
  emit(op.get(pa), op.get(ib), op.get(kc), op.i32Mul, op.i32(MR * 4), op.i32Mul, op.i32Add, op.set(ap));
  emit(op.get(pb), op.get(jb), op.get(kc), op.i32Mul, op.i32(NR * 4), op.i32Mul, op.i32Add, op.set(bp));
  emit(op.get(kc), op.set(k));
  emit(op.loop);
  if (fused) {
    for (let c = 0; c < NV; c++) {
      emit(op.get(bp), v128Load(c * 16), f64x2PromoteLow, op.set(bv(2 * c)));
      emit(op.get(bp), v128Load(c * 16), op.get(bp), v128Load(c * 16), highHalf, f64x2PromoteLow, op.set(bv(2 * c + 1)));
    }
    for (let r = 0; r < MR; r++) {
      emit(op.get(ap), load32Splat(r * 4), f64x2PromoteLow, op.set(av));
      for (let c = 0; c < NV; c++) {
        // acc = round32(a·b + acc), two lanes at a time in float64 (a·b is exact there)
        emit(op.get(av), op.get(bv(2 * c)), f64x2Mul, op.get(acc(r, c)), f64x2PromoteLow, f64x2Add, f32x4DemoteZero);
        emit(op.get(av), op.get(bv(2 * c + 1)), f64x2Mul, op.get(acc(r, c)), op.get(acc(r, c)), highHalf, f64x2PromoteLow, f64x2Add, f32x4DemoteZero);
        emit(lowHalves, op.set(acc(r, c)));
      }
    }
  } else {
    for (let c = 0; c < NV; c++) emit(op.get(bp), v128Load(c * 16), op.set(bv(c)));
    for (let r = 0; r < MR; r++) {
      emit(op.get(ap), load32Splat(r * 4), op.set(av));
      for (let c = 0; c < NV; c++) emit(op.get(acc(r, c)), op.get(av), op.get(bv(c)), f32x4Mul, f32x4Add, op.set(acc(r, c)));
    }
  }
  emit(op.get(ap), op.i32(MR * 4), op.i32Add, op.set(ap));
  emit(op.get(bp), op.i32(NR * 4), op.i32Add, op.set(bp));
  emit(op.get(k), op.i32(1), op.i32Sub, op.set(k), op.get(k), op.brIf(0));
  emit(op.end);
  // store (fused: added to C where accumulating)
  const store = (add: boolean): void => {
    for (let r = 0; r < MR; r++) {
      for (let c = 0; c < NV; c++) {
        cAddr(r);
        if (add) cAddr(r);
        emit(...(add ? [v128Load(c * 16), op.get(acc(r, c)), f32x4Add] : [op.get(acc(r, c))]));
        emit(v128Store(c * 16));
      }
    }
  };
  if (fused) {
    emit(op.get(accum), op.if);
    store(true);
    emit(op.else);
    store(false);
    emit(op.end);
  } else store(false);
  emit(op.get(ib), op.i32(1), op.i32Add, op.set(ib), op.br(0), op.end, op.end);
  emit(op.get(jb), op.i32(1), op.i32Add, op.set(jb), op.br(0), op.end, op.end);
  emit(op.end);
  const locals = [
    [...uleb(6), I32],
    [...uleb(MR * NV + 2 * NV + 1), V128],
  ];
  return [...vec(locals), ...code];
}

/** The module: `gemm` and `gemm_fma` (gemmBody) over the imported memory. */
function gemmModule(shared: boolean): Uint8Array<ArrayBuffer> {
  const bodies = [gemmBody(false), gemmBody(true)];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec(new Array(8).fill([I32])), 0x00]])), // type: (i32 × 8) → ()
    // import m.mem: memory, min 1 page (shared: flags 3, with a maximum)
    ...section(2, vec([[...name('m'), ...name('mem'), 0x02, ...(shared ? [0x03, 0x01, ...uleb(MAX_PAGES)] : [0x00, 0x01])]])),
    ...section(3, vec([[0x00], [0x00]])), // functions 0 and 1 have type 0
    ...section(7, vec([[...name('gemm'), 0x00, 0x00], [...name('gemm_fma'), 0x00, 0x01]])),
    ...section(10, vec(bodies.map((b) => [...uleb(b.length), ...b]))),
  ];
  return new Uint8Array(bytes);
}

// ---------- the driver ----------

type GemmFn = (pa: number, pb: number, pc: number, mP: number, nP: number, kc: number, ldc: number, accum: number) => void;

interface Engine {
  memory: WebAssembly.Memory;
  exports: WebAssembly.Exports;
  gemm: GemmFn;
  gemmFma: GemmFn;
  f32: Float32Array;
  module: WebAssembly.Module;
  /** Helper threads to start on the shared memory (0: the memory is not shared). */
  helpers: number;
  /** The helpers, started at the first product large enough to split; null: this thread alone. */
  pool: ThreadPool | null | undefined;
}

let engine: Engine | null | undefined;

function getEngine(): Engine | null {
  if (engine !== undefined) return engine;
  const helpers = helperCount();
  for (const shared of helpers > 0 ? [true, false] : [false]) {
    try {
      const memory = new WebAssembly.Memory(shared ? { initial: 16, maximum: MAX_PAGES, shared: true } : { initial: 16 });
      const module = new WebAssembly.Module(gemmModule(shared));
      const instance = new WebAssembly.Instance(module, { m: { mem: memory } });
      engine = { memory, module, exports: instance.exports, gemm: instance.exports['gemm'] as GemmFn, gemmFma: instance.exports['gemm_fma'] as GemmFn, f32: new Float32Array(memory.buffer), helpers: shared ? helpers : 0, pool: shared ? undefined : null };
      return engine;
    } catch {
      // no shared memory (then no SIMD either, below) or no WebAssembly SIMD here
    }
  }
  engine = null;
  return engine;
}

/**
 * Chunk i of a threaded product: MC rows × NB·NR columns of the packed panels. Its source is
 * sent to the helper threads, so it uses nothing but its parameters (the job's arguments are
 * ctl[5…]: pa, pb, pc, mP, nP, kc, ldc, accumulate, row panels per chunk, column panels per
 * chunk, column chunks, MR·4, NR·4, 1 for gemm_fma).
 */
const gemmChunk: ChunkFn = (exports, c, i) => {
  const nJ = c[15]!;
  const ib = Math.floor(i / nJ) * c[13]!;
  const jb = (i % nJ) * c[14]!;
  const kc = c[10]!;
  const ldc = c[11]!;
  const gemm = exports[c[18] ? 'gemm_fma' : 'gemm'] as (pa: number, pb: number, pc: number, mP: number, nP: number, kc: number, ldc: number, accum: number) => void;
  gemm(c[5]! + ib * kc * c[16]!, c[6]! + jb * kc * c[17]!, c[7]! + ib * (c[16]! / 4) * ldc + jb * c[17]!, Math.min(c[13]!, c[8]! - ib), Math.min(c[14]!, c[9]! - jb), kc, ldc, c[12]!);
};

/** The engine's memory, grown to hold `floats` float32s. */
function ensure(e: Engine, floats: number): Float32Array {
  const bytes = floats * 4;
  if (e.memory.buffer.byteLength < bytes) {
    e.memory.grow(Math.ceil((bytes - e.memory.buffer.byteLength) / 65536));
    e.f32 = new Float32Array(e.memory.buffer);
  }
  return e.f32;
}

/**
 * The layout of a dot_general's contraction as the kernel's output sees it: output
 * element q·N + j (q < Q, j < N) is Σ_{k<K} x[xRow(q) + k·xk] · y[yRow(q) + j·yj + k·yk],
 * where a batch of M rows shares one y: xRow(q) = x0 + (q mod M)·xq + ⌊q/M⌋·xb and
 * yRow(q) = y0 + ⌊q/M⌋·yb.
 */
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
  /**
   * XLA's order (src/passes/dot_order.ts): each step a fused multiply-add, the contraction in blocks of
   * `kc` items, each summed from 0 and then added to the result. Absent: one float32 product and sum per item.
   */
  kc?: number;
}

let result = new Float32Array(0);

/** The helper threads, started on first use; null where there are none. */
function pool(e: Engine): ThreadPool | null {
  if (e.pool === undefined) e.pool = ThreadPool.start(e.module, e.memory, e.helpers, gemmChunk);
  return e.pool;
}

/** The CPU backend's threads: helper threads it starts for large products, and chunks of products they have run. */
export function cpuThreads(): { helpers: number; helperChunks: number } {
  const e = getEngine();
  return { helpers: e?.helpers ?? 0, helperChunks: e?.pool?.helperChunks ?? 0 };
}

/**
 * The contraction (Q·N floats, in `into` or else in an array reused by the next call),
 * summed in order over k in float32 (or in XLA's order: DotLayout's `kc`).
 */
export function dotF32(x: ArrayLike<number>, y: ArrayLike<number>, L: DotLayout, into?: Float32Array): Float32Array {
  const { Q, M, N, K } = L;
  if (!into && result.length < Q * N) result = new Float32Array(Q * N);
  const out = into ?? result;
  const e = getEngine();
  for (let b = 0; b * M < Q; b++) {
    const xBase = L.x0 + b * L.xb;
    const yBase = L.y0 + b * L.yb;
    if (e && K > 0) gemmBatch(e, x, y, out, b * M * N, M, N, K, xBase, L.xq, L.xk, yBase, L.yj, L.yk, L.kc);
    else {
      // no WebAssembly SIMD: the scalar loop, in the same order
      const kc = L.kc ?? K;
      for (let i = 0; i < M; i++) {
        for (let j = 0; j < N; j++) {
          const item = (k: number): [number, number] => [x[xBase + i * L.xq + k * L.xk]!, y[yBase + j * L.yj + k * L.yk]!];
          let acc = 0;
          for (let k0 = 0; k0 < K; k0 += kc) {
            let part = 0;
            for (let k = k0; k < Math.min(K, k0 + kc); k++) {
              const [a, c] = item(k);
              part = L.kc ? fma32(a, c, part) : Math.fround(part + Math.fround(a * c));
            }
            acc = k0 > 0 ? Math.fround(acc + part) : part;
          }
          out[(b * M + i) * N + j] = acc;
        }
      }
    }
  }
  return out;
}

/** One matrix product of the batch: out[o + i·N + j] = Σ_k x[xb + i·xq + k·xk] · y[yb + j·yj + k·yk]. */
function gemmBatch(
  e: Engine, x: ArrayLike<number>, y: ArrayLike<number>, out: Float32Array, o: number,
  M: number, N: number, K: number, xb: number, xq: number, xk: number, yb: number, yj: number, yk: number, fusedKc?: number,
): void {
  const nP = Math.ceil(N / NR);
  const Np = nP * NR;
  const KB = fusedKc ?? KC;
  const kcMax = Math.min(K, KB);
  const mP = Math.ceil(M / MR);
  const Mp = mP * MR;
  const aSize = Mp * kcMax;
  const bSize = Np * kcMax;
  const f = ensure(e, aSize + bSize + Mp * Np);
  const pa = 0;
  const pb = aSize;
  const pc = aSize + bSize;
  for (let k0 = 0; k0 < K; k0 += KB) {
    const kc = Math.min(KB, K - k0);
    // pack y: panel jb holds kc rows of NR columns (zeros past N); whole panels without bounds checks
    for (let jb = 0; jb < nP; jb++) {
      let p = pb + jb * kc * NR;
      const j0 = jb * NR;
      if (j0 + NR <= N) {
        for (let k = 0; k < kc; k++) {
          const base = yb + (k0 + k) * yk + j0 * yj;
          for (let c = 0; c < NR; c++) f[p + c] = y[base + c * yj]!;
          p += NR;
        }
        continue;
      }
      for (let k = 0; k < kc; k++) {
        const base = yb + (k0 + k) * yk;
        for (let c = 0; c < NR; c++) {
          const j = j0 + c;
          f[p++] = j < N ? y[base + j * yj]! : 0;
        }
      }
    }
    // pack x: panel ib holds kc columns of MR rows (zeros past M)
    for (let ib = 0; ib < mP; ib++) {
      let p = pa + ib * kc * MR;
      const i0 = ib * MR;
      if (i0 + MR <= M) {
        for (let k = 0; k < kc; k++) {
          // MR = 4 rows
          const base = xb + (k0 + k) * xk + i0 * xq;
          f[p] = x[base]!;
          f[p + 1] = x[base + xq]!;
          f[p + 2] = x[base + 2 * xq]!;
          f[p + 3] = x[base + 3 * xq]!;
          p += MR;
        }
        continue;
      }
      for (let k = 0; k < kc; k++) {
        const base = xb + (k0 + k) * xk;
        for (let r = 0; r < MR; r++) {
          const i = i0 + r;
          f[p++] = i < M ? x[base + i * xq]! : 0;
        }
      }
    }
    const threads = M * N * K >= THREAD_MIN_WORK && e.helpers > 0 ? pool(e) : null;
    if (threads) {
      const nJ = Math.ceil(nP / NB);
      const chunks = Math.ceil(mP / (MC / MR)) * nJ;
      const ex = e.exports;
      threads.run(chunks, [pa * 4, pb * 4, pc * 4, mP, nP, kc, Np * 4, k0 > 0 ? 1 : 0, MC / MR, NB, nJ, MR * 4, NR * 4, fusedKc ? 1 : 0], (c, i) => gemmChunk(ex, c, i));
      continue;
    }
    const gemm = fusedKc ? e.gemmFma : e.gemm;
    for (let ib = 0; ib < mP; ib += MC / MR) {
      gemm((pa + ib * kc * MR) * 4, pb * 4, (pc + ib * MR * Np) * 4, Math.min(MC / MR, mP - ib), nP, kc, Np * 4, k0 > 0 ? 1 : 0);
    }
  }
  if (Np === N) out.set(f.subarray(pc, pc + M * N), o);
  else for (let i = 0; i < M; i++) out.set(f.subarray(pc + i * Np, pc + i * Np + N), o + i * N);
}
