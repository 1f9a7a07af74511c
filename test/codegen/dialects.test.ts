// The two dialects of the kernel walker agree: every kernel op (each KUnary
// and KBinary on every dtype it takes, bitcasts, casts between all dtypes,
// select, each reduction) is rendered as WGSL and as JS, run on Dawn
// (SwiftShader without a GPU) and on the CPU over the same edge-case inputs,
// and must give the same values: bit for bit, except that NaNs may differ in
// payload, a subnormal float may flush to zero on the GPU, and math that WGSL
// computes within a few ulp (our own WGSL math, sqrt's reciprocal) may differ
// by that much. At the edges (NaN, -0, x / 0, out-of-range conversions) both
// follow XLA's rules, not WGSL's.
import { describe, expect, it } from 'vitest';
import { JS, renderJs } from '../../src/codegen/js.js';
import { renderWgsl } from '../../src/codegen/wgsl.js';
import type { KBinary, KExpr, Kernel, KUnary, ReduceFn } from '../../src/ir/kernel.js';
import * as runtime from '../../runtime/index.js';
import { newCpuBuffer, type CpuBuffer, type CpuKernel, type DType } from '../../runtime/program.js';
import { getTestDevice, runCompute } from '../helpers/gpu.js';

const device = await getTestDevice();

/** The dtypes each op takes (its operands'; the result is bool for comparisons and is_finite). */
const UNARY: Record<KUnary, DType[]> = {
  neg: ['float32', 'int32', 'uint32'],
  not: ['bool', 'int32', 'uint32'],
  abs: ['float32', 'int32', 'uint32'],
  sign: ['float32', 'int32', 'uint32'],
  floor: ['float32'],
  ceil: ['float32'],
  round: ['float32'],
  sqrt: ['float32'],
  rsqrt: ['float32'],
  is_finite: ['float32'],
  sin: ['float32'],
  cos: ['float32'],
  tan: ['float32'],
  exp: ['float32'],
  log: ['float32'],
  log1p: ['float32'],
  expm1: ['float32'],
  tanh: ['float32'],
  logistic: ['float32'],
  erf: ['float32'],
  erf_inv: ['float32'],
  bitcast_convert_type: [], // from one 32-bit dtype to another: below
};
const NUMBERS: DType[] = ['float32', 'int32', 'uint32'];
const INTS: DType[] = ['int32', 'uint32'];
const BINARY: Record<KBinary, DType[]> = {
  add: NUMBERS,
  sub: NUMBERS,
  mul: NUMBERS,
  div: NUMBERS,
  rem: NUMBERS,
  pow: ['float32'],
  max: [...NUMBERS, 'bool'],
  min: [...NUMBERS, 'bool'],
  atan2: ['float32'],
  and: [...INTS, 'bool'],
  or: [...INTS, 'bool'],
  xor: [...INTS, 'bool'],
  eq: [...NUMBERS, 'bool'],
  ne: [...NUMBERS, 'bool'],
  lt: NUMBERS,
  le: NUMBERS,
  gt: NUMBERS,
  ge: NUMBERS,
  shift_left: INTS,
  shift_right_logical: INTS,
  shift_right_arithmetic: INTS,
};
/** Where WGSL's results and the runtime's float32 math may differ, in ulp. */
const APPROX_ULP = 4;
const APPROX: ReadonlySet<string> = new Set(['sin', 'cos', 'tan', 'exp', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'erf', 'erf_inv', 'pow', 'atan2', 'rsqrt']);


/** Edge cases per dtype (no float subnormals: SwiftShader flushes them). */
const VALUES: Record<DType, number[]> = {
  float32: [0, -0, 1, -1, 0.5, -0.5, 1.5, -2.5, 2.5, 3.7, -3.7, 1e-3, 100, -1e30, 3e38, Infinity, -Infinity, NaN],
  int32: [0, 1, -1, 3, -3, 7, -7, 31, 32, 33, 100, 2147483647, -2147483648],
  uint32: [0, 1, 3, 7, 31, 32, 33, 100, 2147483647, 2147483648, 4294967295],
  bool: [0, 1],
  complex64: [], // kernels never see complex64 (passes/complex.ts splits it into float32 parts)
  // the dialects never see the narrow dtypes: the walker gives them their 32-bit lanes
  uint8: [],
  uint16: [],
  int8: [],
  int16: [],
  float16: [],
  bfloat16: [],
  // WGSL has no 64-bit types: their kernels run on the CPU backend only (wgsl.ts wideOp)
  float64: [],
  int64: [],
};

const load = (input: number, dtype: DType): KExpr => ({ op: 'load', input, index: { op: 'gid', dtype: 'int32', bound: 0 }, dtype });
const boolResult = (fn: KUnary | KBinary): boolean => fn === 'is_finite' || ['eq', 'ne', 'lt', 'le', 'gt', 'ge'].includes(fn);

/** The kernel's CPU function, with the runtime helpers the JS dialect calls in scope. */
function cpuKernel(k: Kernel): CpuKernel {
  const { source } = renderJs(k, 'kernel', false);
  const helpers = JS.helpers.map((h) => (runtime as unknown as Record<string, unknown>)[h]);
  return new Function(...JS.helpers, `${source}\nreturn kernel;`)(...helpers) as CpuKernel;
}

/** Runs `k` on both backends over `inputs`; returns [WGSL result, JS result]. */
async function runBoth(k: Kernel, inputs: CpuBuffer[]): Promise<[CpuBuffer, CpuBuffer]> {
  const cpu = newCpuBuffer(k.output.dtype, k.output.size);
  cpuKernel(k)(inputs, cpu, 0);
  const raw = await runCompute(device!, renderWgsl(k), 'main', inputs, cpu.byteLength, Math.ceil(k.output.size / 64));
  const gpu = k.output.dtype === 'float32' ? new Float32Array(raw) : k.output.dtype === 'int32' ? new Int32Array(raw) : new Uint32Array(raw);
  return [gpu, cpu];
}

function buffer(dtype: DType, values: number[]): CpuBuffer {
  const b = newCpuBuffer(dtype, values.length);
  values.forEach((v, i) => (b[i] = v));
  return b;
}

/** Distance in ulp between two float32 values (0 for two NaNs; -0 and 0 are one apart). */
function ulps(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  const ord = (x: number): number => {
    const bits = runtime.f32ToBits(x);
    return bits & 0x80000000 ? -(bits & 0x7fffffff) - 1 : bits;
  };
  return Math.abs(ord(a) - ord(b));
}

const flushes = (gpu: number, cpu: number): boolean => Math.abs(cpu) < 2 ** -126 && Object.is(gpu, cpu < 0 ? -0 : 0);
const show = (x: number): string => (Object.is(x, -0) ? '-0' : String(x));

/** The elements where the two results disagree, as `inputs → wgsl vs js` lines. */
function mismatches(gpu: CpuBuffer, cpu: CpuBuffer, tol: number, inputs: (i: number) => number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < cpu.length; i++) {
    const [g, c] = [gpu[i]!, cpu[i]!];
    const same = cpu instanceof Float32Array ? ulps(g, c) <= tol || flushes(g, c) : g === c;
    if (!same) out.push(`${inputs(i).map(show).join(', ')} → wgsl ${show(g)} vs js ${show(c)}`);
  }
  return out;
}

describe.skipIf(!device)('kernel dialects agree (WGSL on Dawn vs JS)', () => {
  for (const [fn, dtypes] of Object.entries(UNARY) as [KUnary, DType[]][]) {
    for (const dtype of dtypes) {
      it(`${fn} ${dtype}`, async () => {
        const xs = VALUES[dtype];
        const out = boolResult(fn) ? 'bool' : dtype;
        const k = kernel([dtype], xs.length, { op: 'un', fn, x: load(0, dtype), dtype: out }, out);
        const [gpu, cpu] = await runBoth(k, [buffer(dtype, xs)]);
        expect(mismatches(gpu, cpu, APPROX.has(fn) ? APPROX_ULP : 0, (i) => [xs[i]!])).toEqual([]);
      });
    }
  }

  for (const [fn, dtypes] of Object.entries(BINARY) as [KBinary, DType[]][]) {
    for (const dtype of dtypes) {
      it(`${fn} ${dtype}`, async () => {
        const vs = VALUES[dtype];
        const as = vs.flatMap((a) => vs.map(() => a));
        const bs = vs.flatMap(() => vs);
        const out = boolResult(fn) ? 'bool' : dtype;
        const k = kernel([dtype, dtype], as.length, { op: 'bin', fn, a: load(0, dtype), b: load(1, dtype), dtype: out }, out);
        const [gpu, cpu] = await runBoth(k, [buffer(dtype, as), buffer(dtype, bs)]);
        expect(mismatches(gpu, cpu, APPROX.has(fn) ? APPROX_ULP : 0, (i) => [as[i]!, bs[i]!])).toEqual([]);
      });
    }
  }

  for (const from of [...NUMBERS, 'bool'] as DType[]) {
    for (const to of [...NUMBERS, 'bool'] as DType[]) {
      if (from === to) continue;
      const xs = VALUES[from];
      it(`cast ${from} → ${to}`, async () => {
        const k = kernel([from], xs.length, { op: 'cast', x: load(0, from), dtype: to }, to);
        const [gpu, cpu] = await runBoth(k, [buffer(from, xs)]);
        expect(mismatches(gpu, cpu, 0, (i) => [xs[i]!])).toEqual([]);
      });
      if (from === 'bool' || to === 'bool') continue;
      it(`bitcast ${from} → ${to}`, async () => {
        const k = kernel([from], xs.length, { op: 'un', fn: 'bitcast_convert_type', x: load(0, from), dtype: to }, to);
        const [gpu, cpu] = await runBoth(k, [buffer(from, xs)]);
        expect(mismatches(gpu, cpu, 0, (i) => [xs[i]!])).toEqual([]);
      });
    }
  }

  for (const dtype of [...NUMBERS, 'bool'] as DType[]) {
    it(`select ${dtype}`, async () => {
      const xs = VALUES[dtype];
      const conds = xs.map((_, i) => i % 2);
      const cond: KExpr = load(0, 'bool');
      const k = kernel(['bool', dtype, dtype], xs.length, { op: 'select', cond, a: load(1, dtype), b: load(2, dtype), dtype }, dtype);
      const [gpu, cpu] = await runBoth(k, [buffer('bool', conds), buffer(dtype, xs), buffer(dtype, [...xs].reverse())]);
      expect(mismatches(gpu, cpu, 0, (i) => [conds[i]!, xs[i]!])).toEqual([]);
    });
  }

  // out[i] = reduction of row i of an n×n matrix of the edge cases (row i rotated by i)
  for (const fn of ['sum', 'prod', 'max', 'min'] as ReduceFn[]) {
    for (const dtype of (fn === 'max' || fn === 'min' ? [...NUMBERS, 'bool'] : NUMBERS) as DType[]) {
      it(`reduce ${fn} ${dtype}`, async () => {
        const vs = VALUES[dtype];
        const n = vs.length;
        const matrix = vs.flatMap((_, i) => vs.map((_, j) => vs[(i + j) % n]!));
        const gid: KExpr = { op: 'gid', dtype: 'int32', bound: n };
        const r: KExpr = { op: 'rvar', id: 0, dtype: 'int32', bound: n };
        const row: KExpr = { op: 'bin', fn: 'mul', a: gid, b: { op: 'const', value: n, dtype: 'int32' }, dtype: 'int32' };
        const index: KExpr = { op: 'bin', fn: 'add', a: row, b: r, dtype: 'int32' };
        const body: KExpr = { op: 'load', input: 0, index, dtype };
        const k = kernel([dtype], n, { op: 'reduce', fn, id: 0, extent: n, body, dtype }, dtype, matrix.length);
        const [gpu, cpu] = await runBoth(k, [buffer(dtype, matrix)]);
        expect(mismatches(gpu, cpu, 0, (i) => [i])).toEqual([]);
      });
    }
  }
});

function kernel(inputs: DType[], size: number, body: KExpr, out: DType, inputSize = size): Kernel {
  return { name: 'k', inputs: inputs.map((dtype) => ({ dtype, size: inputSize })), output: { dtype: out, size }, body, usesDevice: false };
}
