#!/usr/bin/env node
// Benchmark helper for scripts/bench.mjs (prints figures; never a test): one
// training fixture's step program, timed in-process on one jaxts backend, in
// the way scripts/bench-spmd.ts does it (compile, bundle the generated module
// with esbuild, run main() on a runtime whose program calls are wrapped).
//
//   node scripts/bench-jaxts-step.mjs FILE STEP cpu|webgpu   -> one JSON line
//   node scripts/bench-jaxts-step.mjs --describe               -> the WebGPU adapter description
//   node scripts/bench-jaxts-step.mjs --phases FILE cpu|webgpu -> where `jaxts run`'s time goes:
//        node start-up, module load (compiler, runtime, esbuild), compile, bundle + import of the
//        generated module, runtime creation (the WebGPU adapter and device), main() + sync (ms)
//
// The JSON line has:
//   calls         how often the script called the step program
//   loopStepMs    (end of main() after sync − start of the step's 2nd call) / (calls − 1):
//                 a step as the lesson's host loop runs it, prints and other host work included
//   replayMs[]    steady state: the step program replayed with its first call's arguments,
//                 `reps` back-to-back calls ended by one rt.sync(), per round (ms per step)
//   replayCpuMs[] the same rounds in this process's CPU time (all its threads; a software
//                 WebGPU adapter's threads included), which other load on the machine does not inflate
//   perStep       per interval between two consecutive step calls, split into intervals
//                 that print nothing ("silent") and intervals that print: program calls,
//                 kernel dispatches (CPU: kernels × devices; WebGPU: dispatchWorkgroups calls), backend copy/concat/upload/read
//                 calls, and on WebGPU queue.submit,
//                 mapAsync (readbacks), writeBuffer (uploads), createBindGroup and
//                 createBuffer counted by wrapping the Dawn objects (runtime/ is not modified)
//   kernelsPerCall the step program's kernel steps (per device); stepDevices: devices it runs on
const tBoot = performance.now(); // ms since the process started: node's own start-up
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(new URL('.', import.meta.url).pathname, '..');
// scripts/bench.mjs passes its snapshot of dist/ (so that a rebuild during the run changes nothing)
const DIST = process.env.BENCH_DIST ?? join(ROOT, 'dist');
const { createNodeRuntime, nodeWebGpuBackend } = await import(pathToFileURL(join(DIST, 'node.js')).href);

if (process.argv[2] === '--describe') {
  const b = await nodeWebGpuBackend();
  console.log(JSON.stringify({ description: b ? b.description : null }));
  process.exit(0);
}

const phases = process.argv[2] === '--phases';
const [file, stepName, backendKind] = phases ? [process.argv[3], null, process.argv[4]] : process.argv.slice(2);
const { compile } = await import(pathToFileURL(join(DIST, 'index.js')).href);
const { build } = await import('esbuild');
const tLoad = performance.now();

/** Compile FILE and import its generated module, with jaxts/runtime resolved to DIST/runtime.js (the one DIST/node.js uses). */
async function load(path) {
  const t0 = performance.now();
  const r = compile(readFileSync(join(ROOT, path), 'utf8'), { file: path });
  const t1 = performance.now();
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'jaxts-bench-step-'));
  try {
    writeFileSync(join(dir, `${r.baseName}.ts`), r.host);
    writeFileSync(join(dir, `${r.baseName}.kernels.ts`), r.kernels);
    const out = join(dir, `${r.baseName}.bundle.mjs`);
    const runtimeEntry = join(DIST, 'runtime.js');
    await build({
      entryPoints: [join(dir, `${r.baseName}.ts`)],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      outfile: out,
      logLevel: 'silent',
      plugins: [{ name: 'runtime', setup: (b) => b.onResolve({ filter: /^jaxts\/runtime$/ }, () => ({ path: runtimeEntry, external: true })) }],
    });
    const mod = await import(pathToFileURL(out).href);
    return { r, mod, compileMs: t1 - t0, bundleMs: performance.now() - t1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (phases) {
  // where the time of `node bin/jaxts.js run FILE` (the ES module path, no startup snapshot) goes, the CLI's steps done one by one
  const { mod, compileMs, bundleMs } = await load(file);
  const t0 = performance.now();
  const rt = await createNodeRuntime({ backend: backendKind, devices: mod.deviceCount });
  rt.options.write = () => {};
  const t1 = performance.now();
  await mod.main(rt);
  await rt.sync();
  const t2 = performance.now();
  console.log(JSON.stringify({ file, backend: backendKind, bootMs: tBoot, loadMs: tLoad - tBoot, compileMs, bundleMs, runtimeMs: t1 - t0, mainMs: t2 - t1, totalMs: t2 }));
  process.exit(0);
}

const { r, mod } = await load(file);
const spec = r.programs.find((p) => p.name === stepName) ?? r.programs.find((p) => p.name.startsWith(`${stepName}_`));
const kernelsPerCall = spec ? spec.program.steps.filter((s) => s.kind === 'kernel').length : null;
const progName = spec ? spec.name : stepName;

const rt = await createNodeRuntime({ backend: backendKind, devices: mod.deviceCount });
let lines = 0;
rt.options.write = () => {
  lines++;
};

// counters
const c = { calls: 0, dispatches: 0, copies: 0, concats: 0, uploads: 0, reads: 0, submits: 0, maps: 0, writes: 0, bindGroups: 0, buffers: 0 };
let stepDevices = null;
const backend = rt.backend;
const run = backend.run.bind(backend);
backend.run = (program, devices, args) => {
  if (program.name === progName) stepDevices ??= devices.length;
  // the CPU backend runs each kernel once per device; on WebGPU, dispatchWorkgroups calls are counted below
  if (backend.kind !== 'webgpu') c.dispatches += program.steps.filter((s) => s.kind === 'kernel').length * devices.length;
  return run(program, devices, args);
};
// the backend's other entry points (each is a submit of its own on WebGPU, or a writeBuffer)
for (const [m, k] of [['copy', 'copies'], ['concat', 'concats'], ['upload', 'uploads'], ['read', 'reads']]) {
  if (typeof backend[m] !== 'function') continue;
  const orig = backend[m].bind(backend);
  backend[m] = (...a) => {
    c[k]++;
    return orig(...a);
  };
}
if (backend.kind === 'webgpu') {
  const gpu = backend.gpu;
  const q = gpu.queue;
  const patch = (obj, name, count) => {
    const orig = obj[name];
    obj[name] = function (...a) {
      count();
      return orig.apply(this, a);
    };
  };
  // on the prototype, so that whatever object device.queue returns is counted
  patch(Object.getPrototypeOf(q), 'submit', () => c.submits++);
  patch(Object.getPrototypeOf(q), 'writeBuffer', () => c.writes++);
  const probe = gpu.createBuffer({ size: 4, usage: 0x0001 | 0x0008 });
  patch(Object.getPrototypeOf(probe), 'mapAsync', () => c.maps++);
  probe.destroy();
  patch(Object.getPrototypeOf(gpu), 'createBindGroup', () => c.bindGroups++);
  const probeEnc = gpu.createCommandEncoder();
  const probePass = probeEnc.beginComputePass();
  patch(Object.getPrototypeOf(probePass), 'dispatchWorkgroups', () => c.dispatches++);
  probePass.end();
  patch(Object.getPrototypeOf(gpu), 'createBuffer', () => c.buffers++);
}

/** Call f on every runtime array (JArray: retain/release) in a nest of arrays and objects. */
function forArrays(x, f, seen = new Set()) {
  if (x === null || typeof x !== 'object' || seen.has(x)) return;
  seen.add(x);
  if (typeof x.retain === 'function' && typeof x.release === 'function') return void f(x);
  for (const v of Array.isArray(x) ? x : Object.values(x)) forArrays(v, f, seen);
}

// wrap the runtime's program entry points: call (jit), pmap, spmd (jit over a mesh)
const marks = [];
let captured = null;
let inScript = true;
for (const method of ['call', 'pmap', 'spmd']) {
  if (typeof rt[method] !== 'function') continue;
  const orig = rt[method].bind(rt);
  rt[method] = (program, ...rest) => {
    c.calls++;
    if (inScript && program.name === progName) {
      marks.push({ t: performance.now(), lines, ...c });
      if (!captured) {
        // the generated code releases each array after its last use: keep the first call's arguments alive for the replay
        forArrays(rest, (a) => a.retain());
        captured = { method, args: [program, ...rest] };
      }
    }
    return orig(program, ...rest);
  };
}

await mod.main(rt);
await rt.sync();
const end = { t: performance.now(), lines, ...c };
inScript = false;
if (process.env.BENCH_STEP_TRACE) {
  const iv = marks.slice(1).map((m, i) => (m.t - marks[i].t).toFixed(2));
  console.error(`intervals (ms): ${iv.join(' ')}`);
}

if (!captured) {
  console.log(JSON.stringify({ error: `the script never called a program named ${progName}` }));
  process.exit(1);
}

// intervals between consecutive step calls (the last one, to the end of main, is left out)
const silent = [];
const printing = [];
for (let i = 0; i + 1 < marks.length; i++) {
  const a = marks[i];
  const b = marks[i + 1];
  const d = {};
  for (const k of Object.keys(c)) d[k] = b[k] - a[k];
  (b.lines > a.lines ? printing : silent).push(d);
}
const summarize = (xs) => {
  if (!xs.length) return null;
  const o = { n: xs.length };
  for (const k of Object.keys(xs[0])) {
    const v = xs.map((x) => x[k]);
    o[k] = { min: Math.min(...v), max: Math.max(...v), total: v.reduce((s, x) => s + x, 0) };
  }
  return o;
};
const loopStepMs = marks.length > 1 ? (end.t - marks[1].t) / (marks.length - 1) : null;

// steady state: replay the step with its first call's arguments
const { method, args } = captured;
const once = async () => {
  forArrays(await rt[method](...args), (a) => a.release());
};
let t0 = performance.now();
await once();
await rt.sync();
let est = performance.now() - t0;
t0 = performance.now();
await once();
await rt.sync();
est = Math.min(est, performance.now() - t0);
const reps = Math.max(5, Math.min(500, Math.ceil(150 / Math.max(est, 0.01))));
const rounds = Number(process.env.BENCH_STEP_ROUNDS ?? 7);
const replayMs = [];
const replayCpuMs = [];
for (let k = 0; k < rounds; k++) {
  t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) forArrays(await rt[method](...args), (a) => a.release());
  await rt.sync();
  const c1 = process.cpuUsage(c0);
  replayMs.push((performance.now() - t0) / reps);
  replayCpuMs.push((c1.user + c1.system) / 1000 / reps);
}

console.log(
  JSON.stringify({
    file,
    step: progName,
    backend: backend.kind,
    description: backend.description,
    method,
    calls: marks.length,
    kernelsPerCall,
    stepDevices,
    loopStepMs,
    replayReps: reps,
    replayMs,
    replayCpuMs,
    perStep: { silent: summarize(silent), printing: summarize(printing) },
  }),
);
process.exit(0);
