#!/usr/bin/env node
// jaxts benchmark, scaling section (issue 21): how step time grows with array
// size, side by side in one run with real JAX (XLA CPU) and jax-js (wasm;
// webgpu with --jaxjs-webgpu) where @jax-js/jax is installed. Prints figures;
// never a test.
//   1. jit(x @ y), float32, N ∈ {64, 256, 512, 1024, 2048}: ms, GFLOP/s, and the fraction
//      of WebAssembly SIMD128's peak on this machine (lscpu: cores × clock × 4 lanes × 2)
//   2. an MLP training step (2-layer tanh MLP, batch 256, jit(value_and_grad) + SGD), widths 32…2048
//   3. an elementwise chain with a sum, jnp.sum(jnp.tanh(x * 2 + 1) * jnp.exp(-x)), n = 10⁴…10⁷ (GB/s read)
//   4. `jaxts compile` time of a jitted function of L unrolled layers beside JAX's
//      jit(f).lower(x).compile(), L ∈ {1, 10, 50, 200}, with the growth exponent
//   5. what bounds the figures, measured with trivial kernels (scripts/bench-bounds.mjs): WebAssembly
//      SIMD128's peak on one thread and on all, JS's cost per element of the float32 math replays, the
//      WebGPU adapter's elementwise throughput, mul-add rate and dispatch cost
//   6. the issue's targets, PASS/MISS, each MISS with the measured bound that explains it
// Steady state: jaxts's step program replayed with its first call's arguments
// (scripts/bench-jaxts-step.mjs), JAX's jitted step called back to back then
// block_until_ready, jax-js's jitted step called back to back then blockUntilReady.
//
// Usage: npm run bench:scaling [-- --quick] [--backends cpu,webgpu] [--no-jax] [--no-jaxjs] [--jaxjs-webgpu]
//   (after `npm run build`; real JAX from the oracle venv .venv/oracle; BENCH_DIST=DIR times another build)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(new URL('.', import.meta.url).pathname, '..');
process.chdir(ROOT);
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const QUICK = argv.includes('--quick');
const BACKENDS = opt('--backends', 'cpu').split(',');
const PY = join(ROOT, '.venv/oracle/bin/python');
// BENCH_DIST: another build to time (scripts/bench-jaxts-step.mjs reads it too), e.g. main's for a before/after table
const DIST = process.env.BENCH_DIST ?? join(ROOT, 'dist');
const WITH_JAX = !argv.includes('--no-jax') && existsSync(PY);
const JAXJS_DEVICES = argv.includes('--no-jaxjs') || !existsSync(join(ROOT, 'node_modules/@jax-js/jax')) ? [] : ['wasm', ...(argv.includes('--jaxjs-webgpu') ? ['webgpu'] : [])];
const PY_ENV = { ...process.env, JAX_PLATFORMS: 'cpu', PYTHONHASHSEED: '0', TF_CPP_MIN_LOG_LEVEL: '1', PYTHONDONTWRITEBYTECODE: '1' };

const MM_N = QUICK ? [64, 256, 512] : [64, 256, 512, 1024, 2048];
const MLP_W = QUICK ? [32, 128, 512] : [32, 128, 512, 1024, 2048];
const EW_N = QUICK ? [1e4, 1e5, 1e6] : [1e4, 1e5, 1e6, 1e7];
const LAYERS = QUICK ? [1, 10, 50] : [1, 10, 50, 200];
const BATCH = 256;

const progress = (msg) => process.stderr.write(`[bench:scaling] ${msg}\n`);
const LOAD0 = loadavg()[0];
const median = (xs) => {
  const s = [...xs].filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const fmt = (x, d = 3) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(d)) : '—');

// ---------- the machine's SIMD128 peak ----------
function simdPeak() {
  const out = spawnSync('lscpu', [], { encoding: 'utf8' }).stdout ?? '';
  const field = (k) => out.match(new RegExp(`^${k}:\\s*(.+)$`, 'm'))?.[1]?.trim();
  const cores = Number(field('CPU\\(s\\)')) || cpus().length;
  // clock: the max MHz when lscpu knows it, else BogoMIPS / 2 (x86 reports twice the clock)
  const mhz = Number(field('CPU max MHz')) || Number(field('CPU MHz')) || Number(field('BogoMIPS')) / 2;
  return { cores, ghz: mhz / 1000, gflops: cores * (mhz / 1000) * 4 * 2 };
}

// ---------- the programs, written once as Python (the same file runs under JAX and jaxts) ----------
const mmSrc = (n) => `import jax
import jax.numpy as jnp
N = ${n}
x = jnp.cos(jnp.arange(N * N, dtype=jnp.float32)).reshape(N, N)
y = jnp.sin(jnp.arange(N * N, dtype=jnp.float32)).reshape(N, N)


@jax.jit
def step(a, b):
    return a @ b


ARGS = (x, y)
for i in range(2):
    z = step(x, y)
print(z[0, 0])
`;
const mlpSrc = (w) => `import jax
import jax.numpy as jnp
W = ${w}
B = ${BATCH}
k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
params = {"w1": jax.random.normal(k1, (W, W)) * 0.05, "b1": jnp.zeros(W), "w2": jax.random.normal(k2, (W, 1)) * 0.05, "b2": jnp.zeros(1)}
x = jax.random.normal(k3, (B, W))
y = jnp.sum(x, axis=1, keepdims=True) * 0.01


def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


@jax.jit
def step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l


ARGS = (params, x, y)
for i in range(2):
    params, l = step(params, x, y)
print(l)
`;
const PMAP_W = QUICK ? [64] : [64, 512];
const pmapSrc = (w) => `import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
from functools import partial
import jax
import jax.numpy as jnp
W = ${w}
B = ${BATCH}
D = 8
k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
p1 = {"w1": jax.random.normal(k1, (W, W)) * 0.05, "b1": jnp.zeros(W), "w2": jax.random.normal(k2, (W, 1)) * 0.05, "b2": jnp.zeros(1)}
params = jax.tree_util.tree_map(lambda a: jnp.stack([a] * D), p1)
x = jax.random.normal(k3, (D, B // D, W))
y = jnp.sum(x, axis=2, keepdims=True) * 0.01


def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


@partial(jax.pmap, axis_name="d")
def step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    g = jax.lax.pmean(g, "d")
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), jax.lax.pmean(l, "d")


ARGS = (params, x, y)
for i in range(2):
    params, l = step(params, x, y)
print(l[0])
`;
const ewSrc = (n) => `import jax
import jax.numpy as jnp
x = jnp.linspace(-1.0, 1.0, ${n})


@jax.jit
def step(x):
    return jnp.sum(jnp.tanh(x * 2 + 1) * jnp.exp(-x))


ARGS = (x,)
for i in range(2):
    s = step(x)
print(s)
`;
const layersSrc = (L) => `import jax
import jax.numpy as jnp


@jax.jit
def f(x):
${Array.from({ length: L }, (_, i) => `    x = jnp.tanh(x * ${(1 + i / 100).toFixed(2)} + ${(i / 1000).toFixed(3)})`).join('\n')}
    return jnp.sum(x)


x = jnp.ones(64)
ARGS = (x,)
print(f(x))
`;

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const CACHE = join(ROOT, 'node_modules/.cache/jaxts-scaling');
rmSync(CACHE, { recursive: true, force: true });
mkdirSync(CACHE, { recursive: true });
const write = (name, src) => {
  writeFileSync(join(CACHE, name), src);
  return `node_modules/.cache/jaxts-scaling/${name}`;
};

// ---------- runners ----------
function jaxtsStep(file, backend) {
  const r = spawnSync(process.execPath, ['scripts/bench-jaxts-step.mjs', file, 'step', backend], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 900_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop();
  try {
    const j = JSON.parse(line);
    return { ms: median(j.replayMs ?? []), cpuMs: median(j.replayCpuMs ?? []), kernels: j.kernelsPerCall };
  } catch {
    progress(`jaxts ${backend} ${file}: ${(r.stderr ?? '').split('\n').slice(-4).join(' ')}`);
    return { ms: NaN };
  }
}

/** Real JAX: each program's step timed in one Python process; JSON {name: ms}. */
function jaxSteps(cases, env = PY_ENV) {
  if (!WITH_JAX || !cases.length) return {};
  const py = `
import json, sys, time, runpy
import jax
out = {}
for name, path in ${JSON.stringify(cases)}:
    g = runpy.run_path(path)
    step, args = g["step"], g["ARGS"]
    r = step(*args); jax.block_until_ready(r)
    reps, best = 1, []
    while True:
        t = time.perf_counter()
        for _ in range(reps): r = step(*args)
        jax.block_until_ready(r)
        dt = time.perf_counter() - t
        if dt > 0.2: break
        reps *= 4
    cpu = []
    for _ in range(5):
        t = time.perf_counter()
        c = time.process_time()
        for _ in range(reps): r = step(*args)
        jax.block_until_ready(r)
        best.append((time.perf_counter() - t) / reps * 1000)
        cpu.append((time.process_time() - c) / reps * 1000)
    best.sort()
    cpu.sort()
    out[name] = best[2]
    out["cpu:" + name] = cpu[2]
print(json.dumps(out))
`;
  const r = spawnSync(PY, ['-c', py], { encoding: 'utf8', env, maxBuffer: 1 << 26, timeout: 1_800_000 });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    progress(`JAX: ${(r.stderr ?? '').split('\n').slice(-5).join(' ')}`);
    return {};
  }
}

/** JAX's compile time of each layers program: jit(f).lower(x).compile(), ms. */
function jaxCompile(cases) {
  if (!WITH_JAX) return {};
  const py = `
import json, time, runpy
import jax
out = {}
for name, path in ${JSON.stringify(cases)}:
    g = runpy.run_path(path)
    f, x = g["f"], g["ARGS"][0]
    ts = []
    for i in range(3):
        jax.clear_caches()
        t = time.perf_counter()
        jax.jit(f.__wrapped__ if hasattr(f, "__wrapped__") else f).lower(x).compile()
        ts.append((time.perf_counter() - t) * 1000)
    out[name] = sorted(ts)[1]
print(json.dumps(out))
`;
  const r = spawnSync(PY, ['-c', py], { encoding: 'utf8', env: PY_ENV, maxBuffer: 1 << 26, timeout: 900_000 });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    progress(`JAX compile: ${(r.stderr ?? '').split('\n').slice(-5).join(' ')}`);
    return {};
  }
}

/** jax-js: the same three kinds of step; JSON {name: ms} per device. */
function jaxjsSteps(device) {
  const js = `
const device = ${JSON.stringify(device)};
if (device === 'webgpu') {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const mod = await import('webgpu');
  Object.assign(globalThis, mod.globals);
  globalThis.__gpu = mod.create([]);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: globalThis.__gpu, userAgent: 'node' }, configurable: true });
}
const { init, defaultDevice, jit, numpy: np, valueAndGrad, blockUntilReady, random, tree } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules/@jax-js/jax/dist/index.js')).href)});
await init(device);
defaultDevice(device);
const out = {};
async function time(name, run) {
  // jax-js is lazy: every result is kept until all are ready, then disposed
  let r = run(); await blockUntilReady(r); tree.dispose(r);
  let reps = 1, ms, cpu;
  for (;;) {
    const t = performance.now();
    const c = process.cpuUsage();
    const rs = [];
    for (let i = 0; i < reps; i++) rs.push(run());
    await blockUntilReady(rs);
    tree.dispose(rs);
    ms = (performance.now() - t) / reps;
    const d = process.cpuUsage(c);
    cpu = (d.user + d.system) / 1000 / reps;
    if (ms * reps > 200 || reps > 1e4) break;
    reps *= 4;
  }
  out[name] = ms;
  out['cpu:' + name] = cpu;
}
for (const n of ${JSON.stringify(MM_N)}) {
  const x = random.normal(random.key(0), [n, n]), y = random.normal(random.key(1), [n, n]);
  const f = jit((a, b) => np.matmul(a, b));
  await time('mm' + n, () => f(x.ref, y.ref));
}
for (const w of ${JSON.stringify(MLP_W)}) {
  const p = { w1: random.normal(random.key(0), [w, w]).mul(0.05), b1: np.zeros([w]), w2: random.normal(random.key(1), [w, 1]).mul(0.05), b2: np.zeros([1]) };
  const x = random.normal(random.key(2), [${BATCH}, w]);
  const y = np.sum(x.ref, 1, { keepdims: true }).mul(0.01);
  const loss = (p, x, y) => { const h = np.tanh(np.matmul(x, p.w1).add(p.b1)); return np.mean(np.square(np.matmul(h, p.w2).add(p.b2).sub(y))); };
  const step = jit((p, x, y) => { const [l, g] = valueAndGrad(loss)(tree.ref(p), x, y); return [tree.map((a, b) => a.sub(b.mul(0.01)), p, g), l]; });
  await time('mlp' + w, () => step(tree.ref(p), x.ref, y.ref));
}
for (const n of ${JSON.stringify(EW_N)}) {
  const x = np.linspace(-1, 1, n);
  const f = jit((x) => np.sum(np.tanh(x.ref.mul(2).add(1)).mul(np.exp(x.neg()))));
  await time('ew' + n, () => f(x.ref));
}
console.log(JSON.stringify(out));
process.exit(0);
`;
  const file = join(CACHE, `jaxjs-${device}.mjs`);
  writeFileSync(file, js);
  const env = { ...process.env };
  if (device === 'webgpu' && env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD) && !existsSync('/dev/nvidia0') && !existsSync('/dev/dri')) env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8', env, maxBuffer: 1 << 26, timeout: 1_800_000 });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    progress(`jax-js ${device}: ${(r.stderr ?? '').split('\n').slice(-5).join(' ')}`);
    return {};
  }
}

/** jaxts compile of a file in-process (dist/index.js), median of 3, ms. */
async function jaxtsCompile(file) {
  const { compile } = await import(pathToFileURL(join(DIST, 'index.js')).href);
  const { readFileSync } = await import('node:fs');
  const src = readFileSync(file, 'utf8');
  compile(src, { file });
  const ts = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    compile(src, { file });
    ts.push(performance.now() - t);
  }
  return median(ts);
}

/** Growth exponent of y over x: the least-squares slope of log y on log x. */
function exponent(xs, ys) {
  const p = xs.map((x, i) => [Math.log(x), Math.log(ys[i])]).filter(([, y]) => Number.isFinite(y));
  if (p.length < 2) return NaN;
  const mx = p.reduce((s, [x]) => s + x, 0) / p.length;
  const my = p.reduce((s, [, y]) => s + y, 0) / p.length;
  return p.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / p.reduce((s, [x]) => s + (x - mx) ** 2, 0);
}

// ---------- run ----------
const peak = simdPeak();
const cases = [
  ...MM_N.map((n) => ['mm' + n, write(`mm${n}.py`, mmSrc(n))]),
  ...MLP_W.map((w) => ['mlp' + w, write(`mlp${w}.py`, mlpSrc(w))]),
  ...EW_N.map((n) => ['ew' + n, write(`ew${n}.py`, ewSrc(n))]),
];
const pmapCases = PMAP_W.map((w) => ['pmap' + w, write(`pmap${w}.py`, pmapSrc(w))]);
const layerFiles = LAYERS.map((L) => ['L' + L, write(`layers${L}.py`, layersSrc(L))]);

const res = {};
for (const be of BACKENDS) {
  res[be] = {};
  for (const [name, file] of [...cases, ...pmapCases]) {
    progress(`jaxts ${be} ${name}`);
    const r = jaxtsStep(file, be);
    res[be][name] = r.ms;
    res[be]['cpu:' + name] = r.cpuMs;
  }
}
progress('JAX');
res.jax = {
  ...jaxSteps(cases.map(([n, f]) => [n, join(ROOT, f)])),
  ...jaxSteps(pmapCases.map(([n, f]) => [n, join(ROOT, f)]), { ...PY_ENV, XLA_FLAGS: '--xla_force_host_platform_device_count=8' }),
};
for (const d of JAXJS_DEVICES) {
  progress(`jax-js ${d}`);
  res[`jax-js ${d}`] = jaxjsSteps(d);
}
progress('bounds');
/** scripts/bench-bounds.mjs's JSON for `what` (cpu, webgpu), {} when it fails. */
function bounds(what) {
  const env = { ...process.env };
  if (what === 'webgpu' && env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD) && !existsSync('/dev/nvidia0') && !existsSync('/dev/dri')) env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  const r = spawnSync(process.execPath, ['scripts/bench-bounds.mjs', what], { encoding: 'utf8', env, maxBuffer: 1 << 26, timeout: 600_000 });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    progress(`bounds ${what}: ${(r.stderr ?? '').split('\n').slice(-4).join(' ')}`);
    return {};
  }
}
const bCpu = bounds('cpu');
const bGpu = BACKENDS.includes('webgpu') ? bounds('webgpu') : {};
progress('compile times');
const ctJaxts = {};
for (const [name, file] of layerFiles) ctJaxts[name] = await jaxtsCompile(file);
const ctJax = jaxCompile(layerFiles.map(([n, f]) => [n, join(ROOT, f)]));

const cols = [...BACKENDS.map((b) => `jaxts ${b}`), 'jax', ...JAXJS_DEVICES.map((d) => `jax-js ${d}`)];
/**
 * The timing the tables and targets use: wall time on a quiet machine; CPU time (all threads of the
 * process) when the load average exceeded the cores during the run, or with --cpu-time (--wall-time
 * forces wall time). CPU time is what a step costs whatever else runs; for multi-threaded runtimes
 * (XLA, jaxts's matrix products) it exceeds their wall time on an idle machine by up to the cores.
 */
const LOAD_MAX = Math.max(LOAD0, loadavg()[0]);
const CPU_TIME = argv.includes('--cpu-time') || (!argv.includes('--wall-time') && LOAD_MAX > peak.cores);
let metric = CPU_TIME ? 'cpu:' : '';
const get = (col, name) => (col.startsWith('jaxts ') ? res[col.slice(6)]?.[metric + name] : res[col]?.[metric + name]) ?? NaN;
const timingNote = (m) => (m ? 'CPU time per step (all threads of the process)' : 'wall time per step');
const table = (title, head, rows) => {
  console.log(`\n${title}`);
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
};

console.log(`# jaxts scaling benchmark (${new Date().toISOString()})`);
console.log(`machine: ${peak.cores} cores × ${peak.ghz.toFixed(2)} GHz; WebAssembly SIMD128 peak ${peak.gflops.toFixed(1)} GFLOP/s (cores × clock × 4 lanes × 2 for FMA)`);
console.log(`timing: ${timingNote(metric)}${CPU_TIME && !argv.includes('--cpu-time') ? ` (the load average reached ${LOAD_MAX.toFixed(1)} on ${peak.cores} cores, which inflates wall time; wall-time tables follow the targets)` : ''}`);
const stepTables = () => {
table(
  'jit(x @ y), float32: ms per step (GFLOP/s; jaxts cpu: fraction of the SIMD128 peak)',
  ['N', ...cols],
  MM_N.map((n) => [n, ...cols.map((c) => {
    const ms = get(c, 'mm' + n);
    const gf = (2 * n ** 3) / ms / 1e6;
    return `${fmt(ms)} (${fmt(gf)}${c === 'jaxts cpu' ? `, ${((gf / peak.gflops) * 100).toFixed(0)}%` : ''})`;
  })]),
);
table(`MLP training step (batch ${BATCH}, jit(value_and_grad) + SGD): ms per step`, ['width', ...cols], MLP_W.map((w) => [w, ...cols.map((c) => fmt(get(c, 'mlp' + w)))]));
table(
  `8-device pmap MLP training step (batch ${BATCH} split over 8 simulated devices, pmean of grads): ms per step (jax-js has no pmap)`,
  ['width', ...cols.filter((c) => !c.startsWith('jax-js'))],
  PMAP_W.map((w) => [w, ...cols.filter((c) => !c.startsWith('jax-js')).map((c) => fmt(get(c, 'pmap' + w)))]),
);
table(
  'elementwise chain jnp.sum(jnp.tanh(x * 2 + 1) * jnp.exp(-x)): ms per step (GB/s read)',
  ['n', ...cols],
  EW_N.map((n) => [n.toExponential(0), ...cols.map((c) => `${fmt(get(c, 'ew' + n))} (${fmt((n * 4) / get(c, 'ew' + n) / 1e6)})`)]),
);
};
stepTables();
table('compile time of L unrolled layers (ms): jaxts compile in-process, JAX jit(f).lower(x).compile()', ['L', 'jaxts', 'jax'], LAYERS.map((L) => [L, fmt(ctJaxts['L' + L]), fmt(ctJax['L' + L])]));
console.log(`\ngrowth exponents (log-log slope): jaxts compile ${fmt(exponent(LAYERS, LAYERS.map((L) => ctJaxts['L' + L])))}, JAX compile ${fmt(exponent(LAYERS, LAYERS.map((L) => ctJax['L' + L])))}`);
for (const c of cols) {
  const mm = exponent(MM_N, MM_N.map((n) => get(c, 'mm' + n)));
  const mlp = exponent(MLP_W, MLP_W.map((w) => get(c, 'mlp' + w)));
  const ew = exponent(EW_N, EW_N.map((n) => get(c, 'ew' + n)));
  const pm = exponent(PMAP_W, PMAP_W.map((w) => get(c, 'pmap' + w)));
  console.log(`  ${c}: matmul time ~ N^${fmt(mm)}, MLP step ~ width^${fmt(mlp)}, pmap MLP step ~ width^${fmt(pm)}, elementwise ~ n^${fmt(ew)}`);
}

// ---------- bounds, measured ----------
const nsPerEl = (ms, n) => (ms * 1e6) / n;
const avx512 = peak.cores * peak.ghz * 16 * 2 * 2; // 16 float32 lanes, FMA = 2 flops, 2 FMA pipes per core
console.log('\nbounds, measured with trivial kernels (scripts/bench-bounds.mjs; CPU figures are one thread\'s CPU time, so load does not inflate them)');
if (Number.isFinite(bCpu.simd128OneThreadGflops)) {
  console.log(`  WebAssembly SIMD128 (f32x4 mul + add, 8 independent chains): ${fmt(bCpu.simd128OneThreadGflops)} GFLOP/s on one thread → ${fmt(bCpu.simd128OneThreadGflops * peak.cores)} GFLOP/s on ${peak.cores} cores (${fmt(bCpu.simd128AllThreadsGflops)} measured with all threads at once, wall time); the lscpu formula says ${fmt(peak.gflops)}`);
  console.log(`  AVX-512 (XLA's instructions) by the same formula: cores × clock × 16 lanes × 2 (FMA) × 2 pipes = ${fmt(avx512)} GFLOP/s`);
  console.log(`  JS per element, one thread: copy ${fmt(bCpu.copyNsPerElement)} ns, x*2+1 ${fmt(bCpu.maddNsPerElement)} ns (${fmt(bCpu.ftzMaddNsPerElement)} ns with XLA's flush to zero), tanh32 ${fmt(bCpu.tanh32NsPerElement)} ns and exp32 ${fmt(bCpu.exp32NsPerElement)} ns (XLA's float32 sequences replayed bit for bit; Math.tanh: ${fmt(bCpu.mathTanhNsPerElement)} ns, not XLA's digits)`);
}
if (Number.isFinite(bGpu.elementwiseNsPerElement)) {
  console.log(`  WebGPU (${bGpu.adapter}): trivial elementwise kernel ${fmt(bGpu.elementwiseNsPerElement)} ns per element (${fmt(bGpu.elementwiseGBps)} GB/s), mul-add loop ${fmt(bGpu.mulAddGflops)} GFLOP/s, one dispatch + submit + wait ${fmt(bGpu.dispatchSubmitWaitMs)} ms`);
}
console.log(`  load average (1 min) at the start ${LOAD0.toFixed(1)}, at the end ${loadavg()[0].toFixed(1)} on ${peak.cores} cores (wall time grows with other load; CPU time does not)`);

const mark = (ok) => (ok === null ? 'n/a ' : ok ? 'PASS' : 'MISS');
const printTargets = (title, lines) => {
  console.log(`\n${title}`);
  for (const [ok, text, bound] of lines) {
    console.log(`  ${mark(ok)}  ${text}`);
    if (ok === false && bound) console.log(`        bound: ${bound}`);
  }
};
const worstBy = (names, f) => {
  const rs = names.map((name) => [name, f(name)]).filter(([, r]) => Number.isFinite(r));
  return rs.length ? rs.reduce((a, b) => (b[1] > a[1] ? b : a)) : [null, NaN];
};
const gfl = (c, n) => (2 * n ** 3) / get(c, 'mm' + n) / 1e6;
const simdAll = bCpu.simd128OneThreadGflops * peak.cores;
const tanhExpNs = bCpu.tanh32NsPerElement + bCpu.exp32NsPerElement;

// ---------- targets (CPU backend) ----------
if (res.cpu) {
  const lines = [];
  const wasm = 'jax-js wasm';
  const big = MM_N.filter((n) => n >= 256);
  const [mmWorstN, mmWorst] = worstBy(big, (n) => get('jaxts cpu', 'mm' + n) / get(wasm, 'mm' + n));
  const vsJaxjs = 1 / mmWorst;
  lines.push([
    Number.isFinite(vsJaxjs) ? vsJaxjs >= 2 : null,
    `matmul N ≥ 256: ≥ 2× jax-js wasm's GFLOP/s — worst ${fmt(vsJaxjs)}× (N = ${mmWorstN})`,
    `jaxts ${fmt(gfl('jaxts cpu', mmWorstN))} GFLOP/s = ${fmt((gfl('jaxts cpu', mmWorstN) / simdAll) * 100)}% of the measured SIMD128 peak on all cores (${fmt(simdAll)}); 2× jax-js needs ${fmt(2 * gfl(wasm, mmWorstN))} GFLOP/s. Products of 2M+ multiply-adds split over ${peak.cores} threads${metric ? ': CPU time counts every thread (jax-js wasm runs on one), so on an idle machine the wall-time rate is up to the cores times this' : `; with other load the second thread gets little of a core (load ${loadavg()[0].toFixed(1)})`}`,
  ]);
  if (MM_N.includes(1024)) {
    const g = gfl('jaxts cpu', 1024);
    lines.push([
      g / peak.gflops >= 0.6,
      `matmul N = 1024: ≥ 60% of SIMD128 peak (lscpu formula, ${fmt(peak.gflops)} GFLOP/s) — ${fmt(g)} GFLOP/s, ${((g / peak.gflops) * 100).toFixed(0)}%`,
      `the measured SIMD128 peak is ${fmt(simdAll)} GFLOP/s on all cores (4 vector pipes per core and the boost clock, which the formula leaves out): ${fmt((g / simdAll) * 100)}% of it; the micro-kernel does mul + add (no FMA, to keep XLA's rounding), and packing runs in JS`,
    ]);
  }
  const small = MLP_W.filter((w) => w <= 128);
  const large = MLP_W.filter((w) => w >= 512);
  const mlpBound = (w) => {
    const tanhMs = (BATCH * w * bCpu.tanh32NsPerElement) / 1e6;
    const flops = 3 * 2 * BATCH * w * w;
    return `width ${w}: tanh32 alone over the ${BATCH}×${w} hidden layer costs ${fmt(tanhMs)} ms of CPU time (${fmt(bCpu.tanh32NsPerElement)} ns each, one thread) and the three products (${fmt(flops / 1e6)} MFLOP) ${fmt(flops / simdAll / 1e6)} ms at the SIMD128 peak, against XLA's ${fmt(get('jax', 'mlp' + w))} ms per step on AVX-512 (${fmt(avx512)} GFLOP/s by the formula, ${fmt(avx512 / simdAll)}× the measured SIMD128 peak)`;
  };
  if (WITH_JAX) {
    const [ws, rs] = worstBy(small, (w) => get('jaxts cpu', 'mlp' + w) / get('jax', 'mlp' + w));
    lines.push([rs <= 5, `MLP step, widths ≤ 128: within 5× of XLA — worst ${fmt(rs)}× (width ${ws})`, ws && mlpBound(ws)]);
    if (large.length) {
      const [wl, rl] = worstBy(large, (w) => get('jaxts cpu', 'mlp' + w) / get('jax', 'mlp' + w));
      lines.push([rl <= 8, `MLP step, widths ≥ 512: within 8× of XLA — worst ${fmt(rl)}× (width ${wl})`, wl && mlpBound(wl)]);
    }
    const [en, ew] = worstBy(EW_N, (n) => get('jaxts cpu', 'ew' + n) / get('jax', 'ew' + n));
    lines.push([
      ew <= 10,
      `elementwise chain: within 10× of XLA — worst ${fmt(ew)}× (n = ${en?.toExponential(0)})`,
      en && `tanh32 + exp32 (XLA's sequences, bit for bit, in JS on one thread) cost ${fmt(tanhExpNs)} ns per element of CPU time; XLA takes ${fmt(nsPerEl(get('jax', 'ew' + en), en))} ns per element (AVX-512, ${peak.cores} threads); jaxts ${fmt(nsPerEl(get('jaxts cpu', 'ew' + en), en))} ns`,
    ]);
  }
  const [ejn, ewJ] = worstBy(EW_N, (n) => get('jaxts cpu', 'ew' + n) / get(wasm, 'ew' + n));
  lines.push([
    Number.isFinite(ewJ) ? 1 / ewJ >= 2 : null,
    `elementwise chain: ≥ 2× jax-js wasm — worst ${fmt(1 / ewJ)}× (n = ${ejn?.toExponential(0)})`,
    ejn && `jax-js uses the engine's own tanh/exp (not XLA's digits: ${fmt(bCpu.mathTanhNsPerElement)} ns for Math.tanh); jaxts replays XLA's, ${fmt(tanhExpNs)} ns per element for tanh32 + exp32, on one thread`,
  ]);
  lines.push([false, 'reductions parallel (CPU)', 'only dot_general runs on helper threads; the JS kernels (elementwise chains, reductions) run on one thread: sending a generated kernel to a worker needs the kernel source and its runtime helpers there, and buffers in shared memory']);
  const ct = exponent(LAYERS, LAYERS.map((L) => ctJaxts['L' + L]));
  lines.push([ct <= 1.15, `compile time grows at most linearly in L — exponent ${fmt(ct)}`]);
  printTargets('targets (CPU backend)', lines);
}

// ---------- targets (WebGPU backend) ----------
if (res.webgpu) {
  const adapter = bGpu.adapter ?? '';
  const names = [...MM_N.map((n) => 'mm' + n), ...MLP_W.map((w) => 'mlp' + w), ...EW_N.map((n) => 'ew' + n)];
  const lines = [];
  const [vsName, vs] = worstBy(names, (name) => get('jaxts webgpu', name) / get('jax-js webgpu', name));
  const gpuBound = `on ${adapter || 'the adapter'} a trivial elementwise kernel takes ${fmt(bGpu.elementwiseNsPerElement)} ns per element, a mul-add loop reaches ${fmt(bGpu.mulAddGflops)} GFLOP/s and one dispatch + submit + wait ${fmt(bGpu.dispatchSubmitWaitMs)} ms; the tiled dot_general (64×32 tiles staged as vec4 in workgroup memory) reads global memory as scalars and has one tile size for every adapter`;
  lines.push([Number.isFinite(vs) ? vs <= 1 : null, `≤ 1.0× jax-js WebGPU's step time at every size — worst ${fmt(vs)}× (${vsName ?? 'run with --jaxjs-webgpu'})`, gpuBound]);
  if (/swiftshader|llvmpipe|software|cpu/i.test(adapter) && res.cpu) {
    const [cpuName, slow] = worstBy(names, (name) => get('jaxts webgpu', name) / get('jaxts cpu', name));
    lines.push([
      Number.isFinite(slow) ? 1 / slow >= 0.7 : null,
      `software adapter: ≥ 0.7× the CPU backend's speed — worst ${fmt(1 / slow)}× (${cpuName})`,
      `${gpuBound}; the same elementwise work takes ${fmt(bCpu.maddNsPerElement)} ns per element in JS`,
    ]);
  }
  lines.push([true, 'reductions parallel (WebGPU): long reductions run as workgroup trees in XLA\'s order, split over workgroups when the output is small']);
  printTargets(`targets (WebGPU backend: ${adapter || 'unknown adapter'})`, lines);
}

if (CPU_TIME) {
  metric = metric ? '' : 'cpu:';
  console.log(`\n## the same steps in ${timingNote(metric)}`);
  stepTables();
}
