// The WGSL shaders that give a workgroup a tile or an element (src/codegen/wgsl.ts): the tiled
// matrix product with a fused epilogue, batched and transposed; reductions shared by a workgroup;
// a long reduction split over workgroups (two entry points and a scratch binding). Run on the
// WebGPU backend over stacked devices and checked against the CPU backend (the product),
// against XLA's tree order summed here (the float32 sums, bit for bit), and whole-array sums (one
// invocation each) against the CPU backend's YNNPACK order (runtime/cpu/reduce.ts).
import { describe, expect, it } from 'vitest';
import { renderJs } from '../../src/codegen/js.js';
import { treeLevels } from '../../src/codegen/kernel_walker.js';
import { renderWgsl, wgslPartials, wgslWorkgroups } from '../../src/codegen/wgsl.js';
import type { KBinary, KExpr, Kernel, ReduceFn } from '../../src/ir/kernel.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import type { CpuKernel, DType, KernelSpec, ProgramSpec } from '../../runtime/program.js';
import * as runtimeHelpers from '../../runtime/index.js';
import { wideSum32 } from '../../runtime/cpu/reduce.js';
import { webgpuBackend } from '../helpers/fixtures.js';

const F = 'float32' as const;
const gid: KExpr = { op: 'gid', dtype: 'int32', bound: 0 };
const int = (value: number): KExpr => ({ op: 'const', value, dtype: 'int32' });
const load = (input: number, index: KExpr, dtype: DType = F): KExpr => ({ op: 'load', input, index, dtype });
const bin = (fn: KBinary, a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn, a, b, dtype: a.dtype });
const rvar = (id: number): KExpr => ({ op: 'rvar', id, dtype: 'int32', bound: 0 });
const reduce = (fn: ReduceFn, id: number, extent: number, body: KExpr, dot = false): KExpr => ({ op: 'reduce', fn, id, extent, body, dtype: body.dtype, ...(dot ? { dot } : {}) });
const tanh = (x: KExpr): KExpr => ({ op: 'un', fn: 'tanh', x, dtype: F });

function kernel(name: string, inputs: [DType, number][], out: [DType, number], body: KExpr): Kernel {
  return { name, inputs: inputs.map(([dtype, size]) => ({ dtype, size })), output: { dtype: out[0], size: out[1] }, body, usesDevice: false };
}

/** The kernel as generated code carries it. */
function spec(k: Kernel): KernelSpec {
  const { source, helpers } = renderJs(k, 'kernel', false);
  const lib = runtimeHelpers as unknown as Record<string, unknown>;
  const cpu = new Function(...helpers, `${source}\nreturn kernel;`)(...helpers.map((h) => lib[h])) as CpuKernel;
  const workgroups = wgslWorkgroups(k);
  const partials = wgslPartials(k);
  return { name: k.name, wgsl: renderWgsl(k), cpu, inputs: k.inputs, output: k.output, usesDevice: false, ...(workgroups ? { workgroups } : {}), ...(partials ? { partials } : {}) };
}

/** A program of the one kernel on its parameters. */
function program(k: Kernel): ProgramSpec {
  return {
    name: k.name,
    params: k.inputs,
    buffers: [k.output],
    kernels: [spec(k)],
    steps: [{ kind: 'kernel', kernel: 0, inputs: k.inputs.map((_, index) => ({ kind: 'param' as const, index })), output: 0 }],
    results: [{ kind: 'buf', index: 0 }],
    resultShapes: [[k.output.size]],
  };
}

const DEVICES = [0, 1];
/** Input j of device d: deterministic values of both signs, spread in magnitude. */
function data(dtype: DType, size: number, j: number, d: number): Float32Array | Int32Array {
  if (dtype === 'int32') return Int32Array.from({ length: size }, (_, i) => ((i * 7919 + j * 31 + d * 17) % 201) - 100);
  return Float32Array.from({ length: size }, (_, i) => Math.fround(Math.sin(i * 0.37 + j + d * 0.5) * (1 + (i % 13))));
}

/** Per device, the kernel's output on the backend (inputs uploaded stacked, as a pmap's are). */
async function runOn(b: CpuBackend | Awaited<ReturnType<typeof webgpuBackend>>, k: Kernel): Promise<number[][]> {
  if (!b) return [];
  const args = DEVICES.map((d) => k.inputs.map((s, j) => b.upload(d, s.dtype, data(s.dtype, s.size, j, d))));
  const outs = b.run(program(k), DEVICES, args);
  return Promise.all(outs.map(async (o) => [...(await b.read(o[0]!))]));
}

/** The float32 sum of `xs` in XLA's tree order (kernel_walker.ts's treeLevels). */
function treeSum(xs: number[]): number {
  let items = xs;
  for (const lo of treeLevels(xs.length)) {
    const next: number[] = [];
    for (let w = 0; w * 32 - lo < items.length; w++) {
      let p = 0;
      for (let c = Math.max(w * 32 - lo, 0); c < Math.min(w * 32 - lo + 32, items.length); c++) p = Math.fround(p + items[c]!);
      next.push(p);
    }
    items = next;
  }
  return items.reduce((acc, v) => Math.fround(acc + v), 0);
}

describe('WGSL workgroup shaders', () => {
  it('a tiled matrix product with a fused epilogue, batched, one factor transposed, edges not multiples of the tile', async () => {
    const gpu = await webgpuBackend();
    if (!gpu) return;
    // out[b, m, n] = tanh(Σ_k x[b, m, k] · y[b, n, k] + bias[n]); B = 2, M = 130, N = 70, K = 240
    const [B, M, N, K] = [2, 130, 70, 240];
    const b = bin('div', gid, int(M * N));
    const m = bin('rem', bin('div', gid, int(N)), int(M));
    const n = bin('rem', gid, int(N));
    const x = load(0, bin('add', bin('mul', bin('add', bin('mul', b, int(M)), m), int(K)), rvar(0)));
    const y = load(1, bin('add', bin('mul', bin('add', bin('mul', b, int(N)), n), int(K)), rvar(0)));
    const k = kernel('mm', [[F, B * M * K], [F, B * N * K], [F, N]], [F, B * M * N], tanh(bin('add', reduce('sum', 0, K, bin('mul', x, y), true), load(2, n))));
    expect(wgslWorkgroups(k)).toBeGreaterThan(B);
    const [g, c] = [await runOn(gpu, k), await runOn(new CpuBackend(), k)];
    for (const d of DEVICES) g[d]!.forEach((v, i) => expect(Math.abs(v - c[d]![i]!)).toBeLessThan(1e-5));
  });

  it('reductions shared by a workgroup sum in XLA tree order, bit for bit (float32), and exactly (int32, max)', async () => {
    const gpu = await webgpuBackend();
    if (!gpu) return;
    // out[r] = Σ_i x[r, i] + max_i x[r, i] over rows of 5000; and an int32 row sum
    const [R, C] = [3, 5000];
    const at = bin('add', bin('mul', gid, int(C)), rvar(0));
    const kf = kernel('rows', [[F, R * C]], [F, R], bin('add', reduce('sum', 0, C, load(0, at)), reduce('max', 1, C, load(0, bin('add', bin('mul', gid, int(C)), rvar(1))))));
    const ki = kernel('irows', [['int32', R * C]], ['int32', R], reduce('sum', 0, C, load(0, at, 'int32')));
    expect(wgslWorkgroups(kf)).toBe(R);
    const [gf, gi] = [await runOn(gpu, kf), await runOn(gpu, ki)];
    for (const d of DEVICES) {
      const xs = [...data(F, R * C, 0, d)];
      const is = [...data('int32', R * C, 0, d)];
      for (let r = 0; r < R; r++) {
        const row = xs.slice(r * C, (r + 1) * C);
        expect(gf[d]![r]).toBe(Math.fround(treeSum(row) + Math.max(...row)));
        expect(gi[d]![r]).toBe(is.slice(r * C, (r + 1) * C).reduce((a, v) => a + v, 0));
      }
    }
  });

  it.each([5000, 100_000, 1_500_003])('a whole-array float32 sum of %i elements adds in the CPU backend\'s (YNNPACK\'s) order, bit for bit', async (n) => {
    const gpu = await webgpuBackend();
    if (!gpu) return;
    const k = kernel('total', [[F, n]], [F, 1], reduce('sum', 0, n, tanh(load(0, rvar(0)))));
    expect(wgslWorkgroups(k)).toBeUndefined(); // one invocation adds it, in the library's order
    const g = await runOn(gpu, k);
    // the summands as the one-invocation loop computes them on this adapter: an elementwise kernel's output
    const t = kernel('tanh', [[F, n]], [F, n], tanh(load(0, gid)));
    const terms = await runOn(gpu, t);
    for (const d of DEVICES) expect(g[d]![0]).toBe(wideSum32(Float32Array.from(terms[d]!), n));
  });

  it('a long reduction of a few elements split over workgroups keeps the tree order', async () => {
    const gpu = await webgpuBackend();
    if (!gpu) return;
    const [R, n] = [2, 100_000];
    const at = bin('add', bin('mul', gid, int(n)), rvar(0));
    const k = kernel('rows', [[F, R * n]], [F, R], reduce('sum', 0, n, tanh(load(0, at))));
    expect(wgslPartials(k)).toBeGreaterThan(R);
    const g = await runOn(gpu, k);
    const t = kernel('tanh', [[F, R * n]], [F, R * n], tanh(load(0, gid)));
    const terms = await runOn(gpu, t);
    for (const d of DEVICES) for (let r = 0; r < R; r++) expect(g[d]![r]).toBe(treeSum(terms[d]!.slice(r * n, (r + 1) * n)));
  });
});
