#!/usr/bin/env node
// Benchmark helper for scripts/bench-scaling.mjs (prints figures; never a test):
// what bounds the scaling figures, measured on this machine with trivial
// kernels, so that the bench's closing notes can name a bound with a number.
//   node scripts/bench-bounds.mjs cpu     -> one JSON line: the CPU side
//   node scripts/bench-bounds.mjs webgpu  -> one JSON line: the WebGPU adapter
// CPU figures are CPU time of one thread (process.cpuUsage), so other load on
// the machine does not inflate them (but the all-threads peak is wall time).
// CPU: WebAssembly SIMD128's measured peak (independent f32x4 mul + add chains;
// one thread, and one per core at once), JS's cost per element of the float32
// math replays the CPU kernels call (tanh32, exp32: XLA's sequences, bit for bit)
// and of a plain fused multiply-add loop, and the memory bandwidth of a copy.
// WebGPU: a trivial elementwise kernel's throughput (GB/s), a mul-add loop's
// GFLOP/s, and the cost of one dispatch + submit + wait on the adapter.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const ROOT = resolve(new URL('.', import.meta.url).pathname, '..');
const DIST = process.env.BENCH_DIST ?? join(ROOT, 'dist');
const what = process.argv[2] ?? 'cpu';

/**
 * Best-of-5 time of f (ms), after one warm-up call: this process's CPU time (user + system), which
 * other processes on a loaded machine do not inflate (f runs on this thread alone).
 */
function best(f) {
  f();
  let b = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = process.cpuUsage();
    f();
    const d = process.cpuUsage(t);
    b = Math.min(b, (d.user + d.system) / 1000);
  }
  return b;
}

// ---------- WebAssembly SIMD128 peak ----------
// peak(iters): 8 independent accumulators, each step acc = acc + a * b (f32x4.mul, f32x4.add):
// 8 × 4 lanes × 2 flops per iteration
function peakModule() {
  const uleb = (n) => {
    const o = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      o.push(b);
    } while (n);
    return o;
  };
  const simd = (c) => [0xfd, ...uleb(c)];
  const ACC = 8;
  const code = [];
  // locals: 0 = iters (param), 1..8 accumulators, 9 = a, 10 = b (v128)
  code.push(0x43, ...new Uint8Array(new Float32Array([1.0000001]).buffer), ...simd(0x13), 0x21, 9); // a = f32x4.splat(1.0000001)
  code.push(0x43, ...new Uint8Array(new Float32Array([1e-7]).buffer), ...simd(0x13), 0x21, 10); // b = f32x4.splat(1e-7)
  code.push(0x03, 0x40); // loop
  for (let i = 0; i < ACC; i++) code.push(0x20, 1 + i, 0x20, 9, 0x20, 10, ...simd(0xe6), ...simd(0xe4), 0x21, 1 + i);
  code.push(0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b); // iters -= 1; br_if iters
  // return the lanes' sum of every accumulator's lane 0 (keeps the work alive)
  code.push(0x43, 0, 0, 0, 0);
  for (let i = 0; i < ACC; i++) code.push(0x20, 1 + i, ...simd(0x1f), 0, 0x92); // f32x4.extract_lane 0; f32.add
  code.push(0x0b);
  const body = [1, ACC + 2, 0x7b, ...code];
  const sec = (id, b) => [id, ...uleb(b.length), ...b];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...sec(1, [1, 0x60, 1, 0x7f, 1, 0x7d]),
    ...sec(3, [1, 0]),
    ...sec(7, [1, 4, ...'peak'.split('').map((c) => c.charCodeAt(0)), 0, 0]),
    ...sec(10, [1, ...uleb(body.length), ...body]),
  ];
  return new WebAssembly.Module(new Uint8Array(bytes));
}

const PEAK_ITERS = 20_000_000;
const FLOPS_PER_ITER = 8 * 4 * 2;

async function simdPeak() {
  const mod = peakModule();
  const peak = new WebAssembly.Instance(mod).exports.peak;
  // V8 compiles wasm with its baseline tier first and optimizes a function after it has run a while (no
  // on-stack replacement): many short calls first
  for (let i = 0; i < 2000; i++) peak(2000);
  const ms = best(() => peak(PEAK_ITERS / 4));
  const one = (PEAK_ITERS / 4) * FLOPS_PER_ITER / ms / 1e6;
  // all cores at once: one worker per core, each the same loop; the slowest sets the rate
  const n = availableParallelism();
  const src = `
const { parentPort, workerData } = require('node:worker_threads');
const peak = new WebAssembly.Instance(workerData.mod).exports.peak;
for (let i = 0; i < 2000; i++) peak(2000);
parentPort.on('message', () => { const t = performance.now(); peak(workerData.iters); parentPort.postMessage(performance.now() - t); });
// (wall time: the threads run at once; on a loaded machine this figure falls, the one-thread CPU-time figure does not)
parentPort.postMessage('ready');`;
  const ws = Array.from({ length: n }, () => new Worker(src, { eval: true, workerData: { mod, iters: PEAK_ITERS } }));
  await Promise.all(ws.map((w) => new Promise((r) => w.once('message', r))));
  let bestAll = 0;
  for (let k = 0; k < 3; k++) {
    const times = await Promise.all(ws.map((w) => new Promise((r) => { w.once('message', r); w.postMessage(0); })));
    bestAll = Math.max(bestAll, (n * PEAK_ITERS * FLOPS_PER_ITER) / Math.max(...times) / 1e6);
  }
  await Promise.all(ws.map((w) => w.terminate()));
  return { simd128OneThreadGflops: one, simd128AllThreadsGflops: bestAll, threads: n };
}

// ---------- JS per element ----------
async function jsCosts() {
  const rt = await import(pathToFileURL(join(DIST, 'runtime.js')).href);
  const n = 1 << 20;
  const x = Float32Array.from({ length: n }, (_, i) => -1 + (2 * i) / n);
  const y = new Float32Array(n);
  const ns = (f) => (best(f) * 1e6) / n;
  const copy = ns(() => y.set(x));
  const madd = ns(() => {
    for (let i = 0; i < n; i++) y[i] = Math.fround(Math.fround(x[i] * 2) + 1);
  });
  const ftzMadd = ns(() => {
    for (let i = 0; i < n; i++) y[i] = rt.ftz32(Math.fround(rt.ftz32(Math.fround(rt.ftz32(x[i]) * 2)) + 1));
  });
  const tanh = ns(() => {
    for (let i = 0; i < n; i++) y[i] = rt.tanh32(x[i]);
  });
  const exp = ns(() => {
    for (let i = 0; i < n; i++) y[i] = rt.exp32(x[i]);
  });
  const mathTanh = ns(() => {
    for (let i = 0; i < n; i++) y[i] = Math.fround(Math.tanh(x[i]));
  });
  return { copyNsPerElement: copy, maddNsPerElement: madd, ftzMaddNsPerElement: ftzMadd, tanh32NsPerElement: tanh, exp32NsPerElement: exp, mathTanhNsPerElement: mathTanh };
}

// ---------- WebGPU ----------
async function webgpu() {
  const { nodeWebGpuBackend } = await import(pathToFileURL(join(DIST, 'node.js')).href);
  const backend = await nodeWebGpuBackend();
  if (!backend) return { error: 'no WebGPU adapter' };
  const dev = backend.gpu;
  const N = 1 << 22;
  const mk = (size, usage) => dev.createBuffer({ size, usage });
  const S = GPUBufferUsage.STORAGE;
  const a = mk(N * 4, S | GPUBufferUsage.COPY_DST);
  const b = mk(N * 4, S);
  dev.queue.writeBuffer(a, 0, new Float32Array(N).fill(1));
  const pipe = (code) => dev.createComputePipeline({ layout: 'auto', compute: { module: dev.createShaderModule({ code }), entryPoint: 'main' } });
  const ew = pipe(`@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  let i = g.x + g.y * 65535u * 64u;
  if (i < ${N}u) { b[i] = a[i] * 2.0 + 1.0; }
}`);
  const ITER = 1024;
  const fl = pipe(`@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  var v = vec4f(a[g.x]);
  let m = vec4f(1.0000001);
  let c = vec4f(1e-7);
  var w = v + c;
  for (var k = 0u; k < ${ITER}u; k++) { v = v * m + c; w = w * m + c; }
  b[g.x] = v.x + v.y + v.z + v.w + w.x + w.y + w.z + w.w;
}`);
  const group = (p) => dev.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: a } }, { binding: 1, resource: { buffer: b } }] });
  const run = async (p, g, x, y = 1) => {
    const enc = dev.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(p);
    pass.setBindGroup(0, g);
    pass.dispatchWorkgroups(x, y);
    pass.end();
    dev.queue.submit([enc.finish()]);
    await dev.queue.onSubmittedWorkDone();
  };
  const time = async (f) => {
    await f();
    let m = Infinity;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await f();
      m = Math.min(m, performance.now() - t);
    }
    return m;
  };
  const gEw = group(ew);
  const gFl = group(fl);
  const wgs = N / 64;
  const ewMs = await time(() => run(ew, gEw, Math.min(wgs, 65535), Math.ceil(wgs / 65535)));
  const flThreads = 64 * 1024;
  const flMs = await time(() => run(fl, gFl, 1024));
  const tinyMs = await time(() => run(ew, gEw, 1));
  return {
    adapter: backend.description,
    elementwiseGBps: (N * 8) / ewMs / 1e6,
    elementwiseNsPerElement: (ewMs * 1e6) / N,
    mulAddGflops: (flThreads * ITER * 2 * 4 * 2) / flMs / 1e6,
    dispatchSubmitWaitMs: tinyMs,
  };
}

const out = what === 'webgpu' ? await webgpu() : { ...(await simdPeak()), ...(await jsCosts()) };
console.log(JSON.stringify(out));
process.exit(0);
