#!/usr/bin/env node
// jaxts benchmark (issue 6, "Benchmark first"): prints figures, never a test.
// Everything runs on this machine in this process tree, side by side:
//   1. end-to-end wall time per seed lesson and training fixture:
//      `jaxts run --backend cpu|webgpu` beside `python FILE.py` under real JAX (the oracle venv)
//   2. steady-state time per training step: jaxts cpu / webgpu in-process
//      (scripts/bench-jaxts-step.mjs), JAX's jitted/pmapped step (scripts/bench-jax-step.py),
//      and jax-js (wasm, webgpu) running seed 001's linear regression (scripts/jaxjs/linreg.mjs)
//   3. kernels dispatched per step beside the fusions in XLA's compiled HLO
//   4. WebGPU queue.submit / mapAsync per step (Dawn objects wrapped at run time)
//   5. `jaxts compile` time: warm in-process and cold CLI
//   6. the issue's targets, PASS/MISS with the measured ratios
//
// Usage: npm run bench [-- --runs N] [--quick] [--budget SECONDS]
//   (after `npm run build`; the oracle venv .venv/oracle comes from `bash scripts/oracle.sh`)
//   --runs N     runs per end-to-end / cold-compile figure (default 3); medians and min–max
//   --quick      1 run, a subset of lessons and trainers (for development)
//   --budget S   an item stops taking more runs once its runs took S seconds in total (default 8;
//                cold compiles: S/4), which keeps the default bench near 10 minutes on 2 cores
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(new URL('.', import.meta.url).pathname, '..');
process.chdir(ROOT);

// ---------- options ----------
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const QUICK = argv.includes('--quick');
const RUNS = Math.max(1, Number(opt('--runs', QUICK ? 1 : 3)));
const BUDGET_S = Number(opt('--budget', 8));
const PY = join(ROOT, '.venv/oracle/bin/python');
const PY_ENV = {
  JAX_PLATFORMS: 'cpu',
  XLA_FLAGS: '--xla_force_host_platform_device_count=4',
  PYTHONHASHSEED: '0',
  PYTHONIOENCODING: 'utf-8',
  PYTHONDONTWRITEBYTECODE: '1',
  TF_CPP_MIN_LOG_LEVEL: '1',
};

// training fixtures: [file, step function]
// (scripts/bench-trainers.mjs's TRAINERS, fixtures/app/model.py, and seed 001's first block,
//  the lesson jax-js runs too)
const TRAINERS = [
  ['fixtures/seed001/01_mesh_linear_regression.py', 'train_step'],
  ['fixtures/seed003/01_pmap_trainer.py', 'update'],
  ['fixtures/seed001/02_pmap_mlp.py', 'train_step'],
  ['fixtures/seed000/06_train_step_pmean.py', 'train_step'],
  ['fixtures/constructs/softmax_classifier.py', 'step'],
  ['fixtures/app/model.py', 'train_step'],
];
const LINREG = 'fixtures/seed001/01_mesh_linear_regression.py';

const seedLessons = readdirSync('fixtures', { recursive: true })
  .map((f) => join('fixtures', String(f)))
  .filter((f) => /^fixtures\/seed00[^/]*\/.*\.py$/.test(f) && existsSync(f.replace(/\.py$/, '.out')))
  .sort();
const QUICK_LESSONS = ['fixtures/seed000/02_pmap_f.py', 'fixtures/seed002/07_all_cells.py', 'fixtures/seed004/gspmd_square.py', LINREG];
const lessons = QUICK ? seedLessons.filter((f) => QUICK_LESSONS.includes(f)) : seedLessons;
const trainers = QUICK ? TRAINERS.filter(([f]) => f === LINREG || f === 'fixtures/app/model.py') : TRAINERS;
// every program timed end to end: the seed lessons, then the trainers that are not seed lessons
const e2eFiles = [...lessons.map((f) => [f, 'seed']), ...trainers.filter(([f]) => !lessons.includes(f)).map(([f]) => [f, 'trainer'])];

// ---------- helpers ----------
const T0 = performance.now();
const progress = (msg) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
};
const short = (f) => f.replace(/^fixtures\//, '').replace(/\.py$/, '');

/**
 * Wall time (s) of one command; null when it failed twice. A failed run is
 * retried once and reported: real JAX's forced-4-device CPU client has been
 * seen to abort in a collective on this shared machine, a crash of Python JAX
 * that says nothing of jaxts.
 */
function wallOnce(cmd, args, env = {}) {
  const t = wallTry(cmd, args, env);
  if (t !== null) return t;
  progress('  retrying once');
  return wallTry(cmd, args, env);
}

function wallTry(cmd, args, env) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    progress(`  FAILED (${r.status ?? r.signal}): ${cmd} ${args.join(' ')}\n${String(r.stderr).slice(-600)}`);
    return null;
  }
  return s;
}

/** Up to RUNS runs, fewer once their total passes `budget`: { med, min, max, n } in seconds (failed: true if a run failed). */
function wall(cmd, args, env = {}, budget = BUDGET_S) {
  const ts = [];
  let total = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = wallOnce(cmd, args, env);
    if (t === null) return { med: NaN, min: NaN, max: NaN, n: ts.length + 1, failed: true };
    ts.push(t);
    total += t;
    if (total >= budget) break;
  }
  return { med: median(ts), min: Math.min(...ts), max: Math.max(...ts), n: ts.length };
}

/** Run a helper that prints one JSON line (its last stdout line). */
function json(cmd, args, env = {}) {
  const o = jsonTry(cmd, args, env);
  if (!o.error) return o;
  progress(`  FAILED (${o.error.slice(0, 200)}): ${cmd} ${args.join(' ')}; retrying once`);
  return jsonTry(cmd, args, env);
}

function jsonTry(cmd, args, env) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  const last = String(r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    const o = JSON.parse(last);
    if (r.status !== 0 && !o.error) o.error = `exit ${r.status ?? r.signal}`;
    return o;
  } catch {
    return { error: `exit ${r.status ?? r.signal}: ${String(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ').slice(0, 300)}` };
  }
}

/** Aligned plain-text table: `align` per column, 'l' or 'r' (default: first left, rest right). */
function table(headers, rows, align) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '—' : String(c))));
  const w = headers.map((_, j) => Math.max(...cells.map((r) => (r[j] ?? '').length)));
  const al = align ?? headers.map((_, j) => (j === 0 ? 'l' : 'r'));
  const line = (r) => r.map((c, j) => (al[j] === 'l' ? c.padEnd(w[j]) : c.padStart(w[j]))).join('  ').trimEnd();
  return [line(cells[0]), w.map((x) => '-'.repeat(x)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
const fs2 = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(2));
const fms = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const ratio = (a, b) => (a === null || b === null || a === undefined || b === undefined || !b ? null : a / b);
const fr = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : `${x.toFixed(2)}x`);
const range = (w) => (w && !w.failed ? `${fs2(w.min)}–${fs2(w.max)}` : '—');
const cell = (w) => (w?.failed ? 'FAIL' : fs2(w?.med));
const cellMs = (w) => (w?.failed ? 'FAIL' : w ? fms(w.med * 1e3) : '—');
const section = (title) => console.log(`\n== ${title} ${'='.repeat(Math.max(3, 86 - title.length))}`);

// ---------- 0. header ----------
if (!existsSync('dist/index.js') || !existsSync('dist/node.js')) {
  console.error('bench: dist/ is missing: run `npm run build` first');
  process.exit(2);
}
if (!existsSync(PY)) {
  console.error('bench: the oracle venv is missing: run `bash scripts/oracle.sh` first');
  process.exit(2);
}
// A snapshot of dist/ (inside the package, so that its bare imports resolve to node_modules):
// other work rebuilding dist/ during the run does not change what is measured.
mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
// The launcher bin/jaxts.js is copied beside it, as in the package: it starts the command from a
// startup snapshot, the way `jaxts` runs from a shell or npx (built below, before any timing, into
// the copy's own cache folder).
const COPY = mkdtempSync(join(ROOT, 'node_modules/.cache/jaxts-bench-'));
const DIST = join(COPY, 'dist');
mkdirSync(join(DIST, 'snapshot'), { recursive: true });
mkdirSync(join(COPY, 'bin'));
for (const f of ['cli.js', 'index.js', 'node.js', 'runtime.js', 'snapshot/cli.cjs']) {
  copyFileSync(join(ROOT, 'dist', f), join(DIST, f));
}
copyFileSync(join(ROOT, 'bin/jaxts.js'), join(COPY, 'bin/jaxts.js'));
chmodSync(join(COPY, 'bin/jaxts.js'), 0o755);
process.on('exit', () => rmSync(COPY, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));
process.env.BENCH_DIST = DIST; // for scripts/bench-jaxts-step.mjs
const JAXTS = join(COPY, 'bin/jaxts.js'); // the command as a shell runs it
const CLI = join(DIST, 'cli.js'); // the command as an ES module, without the snapshot (`node bin/jaxts.js`)
process.env.JAXTS_CACHE_DIR = join(COPY, 'cache');
spawnSync(process.execPath, [JAXTS], { env: { ...process.env, JAXTS_LAUNCHER_BUILD: '1' } }); // the launcher's first-use build, done now
const SNAPSHOT = spawnSync(process.execPath, [JAXTS, '--help'], { encoding: 'utf8', env: { ...process.env, JAXTS_TRACE_LAUNCHER: '1' } }).stderr.includes('--snapshot-blob');
const { compile } = await import(pathToFileURL(join(DIST, 'index.js')).href);
const jaxVersion = spawnSync(PY, ['-c', 'import jax, jaxlib; print(jax.__version__, jaxlib.__version__)'], { encoding: 'utf8', env: { ...process.env, ...PY_ENV } }).stdout.trim().split(' ');
const adapter = json(process.execPath, ['scripts/bench-jaxts-step.mjs', '--describe']);
const jaxjsVersion = JSON.parse(readFileSync('node_modules/@jax-js/jax/package.json', 'utf8')).version;
const load0 = loadavg();

console.log('# jaxts benchmark (npm run bench) — figures, not a test');
const kv = [
  ['date', new Date().toISOString()],
  ['cpu', `${cpus().length} cores, ${cpus()[0]?.model ?? '?'}`],
  ['load average', `${load0.map((x) => x.toFixed(2)).join(' ')} at start (the machine is shared: figures are noisy while it is above the core count)`],
  ['node', process.version],
  ['jax (oracle venv)', `jax ${jaxVersion[0] ?? '?'}, jaxlib ${jaxVersion[1] ?? '?'}; CPU; XLA_FLAGS=${PY_ENV.XLA_FLAGS}`],
  ['jax-js', `@jax-js/jax ${jaxjsVersion}: wasm (single-threaded: Node has no Worker global) and webgpu (Dawn from the webgpu package as navigator.gpu)`],
  ['WebGPU adapter', adapter.description ?? `none (${adapter.error ?? 'no adapter'})`],
  ['runs', `${RUNS} per end-to-end / cold-compile figure: median and min–max; to keep the bench near 10 minutes an item stops early once its runs took ${BUDGET_S} s (cold compile: ${BUDGET_S / 4} s): see column n`],
  ['steady state', 'one process per backend; the step replayed with its first call\'s arguments (jax-js: fed back): 7 rounds of back-to-back calls + one sync; median and min–max over rounds'],
  ['mode', QUICK ? '--quick: 1 run, a subset of lessons and trainers' : 'full'],
  ['jaxts', `dist/ as built at start (copied; \`jaxts run\` = bin/jaxts.js run, run as a program: ${SNAPSHOT ? 'Node started from the command\'s startup snapshot' : 'NO startup snapshot built, so the ES module path'}), commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}${spawnSync('git', ['status', '--porcelain', 'src', 'runtime'], { encoding: 'utf8' }).stdout.trim() ? ' + uncommitted src/runtime changes' : ''}`],
];
for (const [k, v] of kv) console.log(`${(k + ':').padEnd(19)} ${v}`);

// ---------- 1. end to end ----------
section('1. end to end: `jaxts run FILE` vs `python FILE.py` under real JAX (wall s)');
const e2e = new Map();
for (const [file, kind] of e2eFiles) {
  progress(`e2e ${file}`);
  const cpu = wall(JAXTS, ['run', file, '--backend', 'cpu']);
  const gpu = wall(JAXTS, ['run', file, '--backend', 'webgpu']);
  const jax = wall(PY, ['scripts/oracle_run.py', file], PY_ENV);
  e2e.set(file, { kind, cpu, gpu, jax });
}
console.log(table(
  ['program', 'kind', 'jaxts cpu', 'min–max', 'n', 'jaxts webgpu', 'min–max', 'n', 'JAX (python)', 'min–max', 'n', 'cpu/JAX', 'webgpu/JAX'],
  [...e2e].map(([f, r]) => [short(f), r.kind, cell(r.cpu), range(r.cpu), r.cpu?.n, cell(r.gpu), range(r.gpu), r.gpu?.n, cell(r.jax), range(r.jax), r.jax?.n, fr(ratio(r.cpu?.med, r.jax?.med)), fr(ratio(r.gpu?.med, r.jax?.med))]),
  ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
));

progress('floors');
const floors = [
  ['node -e 0', process.execPath, ['-e', '0'], {}],
  ['jaxts --help (launcher + Node from the startup snapshot)', JAXTS, ['--help'], {}],
  ['node dist/cli.js --help (no snapshot: ES module load)', process.execPath, [CLI, '--help'], {}],
  ['python -c "import jax"', PY, ['-c', 'import jax'], PY_ENV],
  ['python -c "import jax; jax.devices()" (+ XLA CPU client)', PY, ['-c', 'import jax; jax.devices()'], PY_ENV],
].map(([name, cmd, args, env]) => [name, wall(cmd, args, env)]);
console.log('\nfloors (wall s): what every run pays before the program itself');
console.log(table(['command', 'median', 'min–max', 'n'], floors.map(([n, w]) => [n, cell(w), range(w), w?.n])));

console.log('\nwhere the time of `node bin/jaxts.js run` (no snapshot) goes (ms, one run each; the CLI\'s steps done in-process by scripts/bench-jaxts-step.mjs --phases; webgpu for the trainers only);');
console.log('from the startup snapshot, module load and the parser\'s construction are already done, and compile (1st) is partly warm:');
const phaseRows = [];
const trainerFiles = new Set(trainers.map(([f]) => f));
for (const [file] of e2eFiles) {
  for (const backend of trainerFiles.has(file) ? ['cpu', 'webgpu'] : ['cpu']) {
    progress(`phases ${file} ${backend}`);
    const p = json(process.execPath, ['scripts/bench-jaxts-step.mjs', '--phases', file, backend]);
    phaseRows.push(p.error ? [short(file), backend, 'ERR', '', '', '', '', '', ''] : [short(file), backend, fms(p.bootMs), fms(p.loadMs), fms(p.compileMs), fms(p.bundleMs), fms(p.runtimeMs), fms(p.mainMs), fms(p.totalMs)]);
  }
}
console.log(table(['program', 'backend', 'node start', 'module load', 'compile (1st)', 'bundle+import', 'runtime', 'main()+sync', 'total'], phaseRows, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
console.log('module load: dist/index.js + dist/node.js + esbuild (chevrotain and its lodash-es modules included); compile (1st): the first compile() in a fresh process (cold JIT), compare section 5\'s warm figure.');

// ---------- 2. steady-state step ----------
section('2. steady-state time per training step (ms; in-process, replaying the first call\'s arguments)');
const steps = new Map();
for (const [file, step] of trainers) {
  progress(`step ${file} (${step}): jaxts cpu`);
  const cpu = json(process.execPath, ['scripts/bench-jaxts-step.mjs', file, step, 'cpu']);
  progress(`step ${file} (${step}): jaxts webgpu`);
  const gpu = json(process.execPath, ['scripts/bench-jaxts-step.mjs', file, step, 'webgpu']);
  progress(`step ${file} (${step}): JAX`);
  const jax = json(PY, ['scripts/bench-jax-step.py', file, step, '20', '7'], PY_ENV);
  steps.set(file, { step, cpu, gpu, jax });
}
progress('jax-js linear regression: wasm');
const jjWasm = json(process.execPath, ['scripts/bench-jaxjs.mjs', 'wasm']);
progress('jax-js linear regression: webgpu');
const jjGpu = json(process.execPath, ['scripts/bench-jaxjs.mjs', 'webgpu']);
const rep = (o) => (o && !o.error && o.replayMs ? { med: median(o.replayMs), min: Math.min(...o.replayMs), max: Math.max(...o.replayMs) } : null);
const jaxMs = (o) => (o && !o.error && o.step_s !== undefined ? { med: o.step_s * 1e3, min: o.step_min_s * 1e3, max: o.step_max_s * 1e3 } : null);
const jjMs = (o) => (o && !o.error && o.steadyStepMs ? { med: median(o.steadyStepMs), min: Math.min(...o.steadyStepMs), max: Math.max(...o.steadyStepMs) } : null);
const rng = (x) => (x ? `${fms(x.min)}–${fms(x.max)}` : '—');
const stepRows = [];
for (const [file, s] of steps) {
  const c = rep(s.cpu);
  const g = rep(s.gpu);
  const j = jaxMs(s.jax);
  stepRows.push([
    `${short(file)} (${s.step}, ${s.jax.kind ?? s.cpu.method ?? '?'})`,
    c ? fms(c.med) : s.cpu.error ? 'ERR' : '—', rng(c),
    g ? fms(g.med) : s.gpu.error ? 'ERR' : '—', rng(g),
    j ? fms(j.med) : s.jax.error ? 'ERR' : '—', rng(j),
    fr(ratio(c?.med, j?.med)), fr(ratio(g?.med, j?.med)),
    fms(s.cpu.loopStepMs), fms(s.gpu.loopStepMs),
  ]);
}
const jw = jjMs(jjWasm);
const jg = jjMs(jjGpu);
const lin = steps.get(LINREG);
for (const [name, o, x] of [['jax-js wasm: linreg (seed001/01 in JS, 1 device)', jjWasm, jw], ['jax-js webgpu: linreg (seed001/01 in JS, 1 device)', jjGpu, jg]]) {
  stepRows.push([name, ...(o.device === 'wasm' ? [fms(x?.med), rng(x), '', ''] : ['', '', fms(x?.med), rng(x)]), '', '', '', '', ...(o.device === 'wasm' ? [fms(o.loopMs / o.loopSteps), ''] : ['', fms(o.loopMs / o.loopSteps)])]);
}
console.log(table(['step (kind)', 'jaxts cpu', 'min–max', 'jaxts webgpu', 'min–max', 'JAX jit/pmap', 'min–max', 'cpu/JAX', 'webgpu/JAX', 'in-loop cpu', 'in-loop webgpu'], stepRows));
console.log('in-loop: (end of the script − 2nd step call) / (calls − 1) in the lesson\'s own loop, prints and other host work included (scripts/bench-spmd.ts\'s measure); for jax-js, its 500-step loop with a print every 50.');
console.log('jax-js has no pmap or sharding: its linreg runs the whole 256-row batch on ONE device; seed001/01 under jaxts and JAX runs it as 4 simulated devices (64 rows each) with an all-reduce.');
if (lin) {
  const c = rep(lin.cpu);
  const g = rep(lin.gpu);
  console.log(`linreg step: jaxts cpu / jax-js wasm = ${fr(ratio(c?.med, jw?.med))}; jaxts webgpu / jax-js webgpu = ${fr(ratio(g?.med, jg?.med))}; jaxts cpu / JAX = ${fr(ratio(c?.med, jaxMs(lin.jax)?.med))}`);
  const sil = lin.gpu.perStep?.silent;
  if (sil) console.log(`jaxts webgpu linreg: per step ${sil.dispatches.min} dispatches (${lin.gpu.kernelsPerCall} kernels, each one dispatch for all ${lin.gpu.stepDevices} devices), ${sil.submits.min} queue.submit, ${sil.bindGroups.min} createBindGroup, ${sil.buffers.min} createBuffer.`);
}
for (const o of [jjWasm, jjGpu]) {
  if (o.error) console.log(`jax-js ${o.device}: ERROR ${o.error}`);
  else console.log(`jax-js ${o.device}: first call (trace + compile) ${fms(o.firstStepMs)} ms;${o.perStep ? ` per steady step ${o.perStep.dispatches.toFixed(1)} dispatches, ${o.perStep.submits.toFixed(1)} queue.submit;` : ''} losses printed: ${o.lines.slice(0, 2).join(', ')} … ${o.lines[o.lines.length - 2]}`);
}
for (const [file, s] of steps) for (const [k, o] of [['jaxts cpu', s.cpu], ['jaxts webgpu', s.gpu], ['JAX', s.jax]]) if (o.error) console.log(`${short(file)} ${k}: ERROR ${o.error}`);

// ---------- 3. kernels per step ----------
section('3. kernels dispatched per training step vs fusions in XLA\'s compiled HLO');
console.log(table(
  ['step', 'jaxts kernels/call', 'devices', 'dispatches/step (all programs)', 'programs/step', 'XLA fusions', 'XLA entry ops', 'XLA collectives'],
  [...steps].map(([file, s]) => {
    const sil = s.cpu.perStep?.silent;
    const perCallDispatch = sil ? `${sil.dispatches.min}${sil.dispatches.max !== sil.dispatches.min ? `–${sil.dispatches.max}` : ''}` : '—';
    return [
      `${short(file)} (${s.step})`,
      s.cpu.kernelsPerCall ?? '—',
      s.cpu.stepDevices ?? '—',
      perCallDispatch,
      sil ? `${sil.calls.min}${sil.calls.max !== sil.calls.min ? `–${sil.calls.max}` : ''}` : '—',
      s.jax.fusions ?? '—',
      s.jax.entry_ops ?? '—',
      s.jax.collectives ? Object.entries(s.jax.collectives).map(([k, v]) => `${v} ${k}`).join(', ') || 'none' : '—',
    ];
  }),
));
console.log('jaxts kernels/call: kernel steps of the compiled step program (compile() → programs[i].program.steps), per device;');
console.log('dispatches/step: kernels × devices of every program the host loop runs between two step calls that print nothing;');
console.log('XLA fusions: `fusion` instructions in the compiled HLO (per device for pmap); entry ops: every non-trivial ENTRY instruction (fusions, dots, collectives, copies).');

// ---------- 4. WebGPU submits and readbacks ----------
section('4. WebGPU: queue.submit / mapAsync / buffers per step (Dawn objects wrapped in-process)');
console.log(table(
  ['step', 'silent steps', 'submits/step', 'of which copies', 'mapAsync', 'writeBuffer', 'createBindGroup', 'createBuffer', 'printing steps', 'submits', 'mapAsync'],
  [...steps].map(([file, s]) => {
    const sil = s.gpu.perStep?.silent;
    const pr = s.gpu.perStep?.printing;
    const mm = (x) => (x ? (x.min === x.max ? `${x.min}` : `${x.min}–${x.max}`) : '—');
    const cc = sil ? { min: sil.copies.min + sil.concats.min, max: sil.copies.max + sil.concats.max } : null;
    return [`${short(file)} (${s.step})`, sil?.n ?? 0, mm(sil?.submits), mm(cc), sil ? sil.maps.total : '—', mm(sil?.writes), mm(sil?.bindGroups), mm(sil?.buffers), pr?.n ?? 0, mm(pr?.submits), mm(pr?.maps)];
  }),
));
console.log('per interval between two consecutive step calls: "silent" intervals print nothing (mapAsync: their total), "printing" ones print; the last step, followed by');
console.log('the script\'s final prints, is left out. copies: backend copy()/concat() calls (one submit each), e.g. re-splitting a host array over the pmap devices.');

// ---------- 5. compile ----------
section('5. `jaxts compile` time per program (ms)');
const compileRows = [];
const compiles = new Map();
const tmp = mkdtempSync(join(tmpdir(), 'jaxts-bench-compile-'));
for (const [file] of e2eFiles) {
  progress(`compile ${file}`);
  const src = readFileSync(file, 'utf8');
  let warm = null;
  try {
    for (let i = 0; i < 2; i++) compile(src, { file });
    const ts = [];
    const t1 = performance.now();
    while (ts.length < 7 || (ts.length < 25 && performance.now() - t1 < 1500)) {
      const t0 = performance.now();
      compile(src, { file });
      ts.push(performance.now() - t0);
    }
    warm = { med: median(ts), min: Math.min(...ts), max: Math.max(...ts), n: ts.length };
  } catch (e) {
    progress(`  compile error: ${e.message}`);
  }
  const cold = wall(JAXTS, ['compile', file, '-o', tmp], {}, BUDGET_S / 4);
  compiles.set(file, { warm, cold });
  compileRows.push([short(file), warm ? fms(warm.med) : 'FAIL', warm ? `${fms(warm.min)}–${fms(warm.max)}` : '—', warm?.n, cellMs(cold), cold && !cold.failed ? `${fms(cold.min * 1e3)}–${fms(cold.max * 1e3)}` : '—', cold?.n]);
}
rmSync(tmp, { recursive: true, force: true });
console.log(table(['program', 'warm in-process', 'min–max', 'n', 'cold CLI', 'min–max', 'n'], compileRows));
console.log('warm: compile() from dist/index.js called repeatedly in one process (2 warm-up calls, then ≥ 7); cold: `jaxts compile FILE -o TMPDIR` wall time, bin/jaxts.js run as a program (node start from the startup snapshot + compile + write).');

// ---------- 6. targets ----------
section('6. targets (issue 6)');
const T = [];
const verdict = (ok) => (ok === null ? 'n/a ' : ok ? 'PASS' : 'MISS');
function target(name, items, limit, strict = false) {
  // items: [label, ratio|null]
  const known = items.filter(([, r]) => r !== null && r !== undefined && !Number.isNaN(r));
  const ok = known.length === 0 ? null : known.every(([, r]) => (strict ? r < limit : r <= limit)) && known.length === items.length;
  const worst = known.reduce((w, x) => (!w || x[1] > w[1] ? x : w), null);
  const pass = known.filter(([, r]) => (strict ? r < limit : r <= limit)).length;
  T.push([verdict(ok), name, worst ? `worst ${fr(worst[1])} (${worst[0]})` : 'not measured', `${pass}/${items.length} within`]);
  return items;
}
const seedE2e = [...e2e].filter(([, r]) => r.kind === 'seed');
target('jaxts run e2e ≤ 0.3× JAX, every seed lesson, CPU backend', seedE2e.map(([f, r]) => [short(f), ratio(r.cpu?.med, r.jax?.med)]), 0.3);
target('jaxts run e2e < 1× JAX, every seed lesson, WebGPU backend', seedE2e.map(([f, r]) => [short(f), ratio(r.gpu?.med, r.jax?.med)]), 1, true);
target('steady-state step ≤ JAX jit/pmap step, CPU backend', [...steps].map(([f, s]) => [short(f), ratio(rep(s.cpu)?.med, jaxMs(s.jax)?.med)]), 1);
target('steady-state step ≤ jax-js wasm (linreg), CPU backend', [[short(LINREG), lin ? ratio(rep(lin.cpu)?.med, jw?.med) : null]], 1);
target('steady-state step ≤ jax-js WebGPU (linreg), WebGPU backend', [[short(LINREG), lin ? ratio(rep(lin.gpu)?.med, jg?.med) : null]], 1);
target('kernels/step ≤ XLA fusions, every trainer', [...steps].map(([f, s]) => [short(f), s.cpu.kernelsPerCall != null && s.jax.fusions != null ? s.cpu.kernelsPerCall / Math.max(s.jax.fusions, 1e-9) : null]), 1);
target('compile ≤ 100 ms warm, every seed lesson (ratio to 100 ms)', [...compiles].filter(([f]) => lessons.includes(f)).map(([f, c]) => [short(f), c.warm ? c.warm.med / 100 : null]), 1);
{
  // exactly one queue.submit per step, no readback at steps that print nothing (WebGPU, every trainer)
  const items = [...steps].map(([f, s]) => {
    const sil = s.gpu.perStep?.silent;
    return [short(f), sil ? { submitsOk: sil.submits.min === 1 && sil.submits.max === 1, maps: sil.maps.total, sub: sil.submits, n: sil.n } : null];
  });
  const measured = items.filter(([, x]) => x && x.n > 0);
  const okSubmit = measured.length ? measured.every(([, x]) => x.submitsOk) : null;
  const okMaps = measured.length ? measured.every(([, x]) => x.maps === 0) : null;
  const bad1 = measured.filter(([, x]) => !x.submitsOk).map(([f, x]) => `${f}: ${x.sub.min === x.sub.max ? x.sub.min : `${x.sub.min}–${x.sub.max}`}`);
  const bad2 = measured.filter(([, x]) => x.maps).map(([f, x]) => `${f}: ${x.maps}`);
  T.push([verdict(okSubmit), 'exactly one queue.submit per step (WebGPU, steps that print nothing)', bad1.length ? `submits/step ${bad1.join('; ')}` : `1 in every silent step of ${measured.length} trainers`, `${measured.length - bad1.length}/${measured.length} within`]);
  T.push([verdict(okMaps), 'no readback (mapAsync) at steps that print nothing (WebGPU)', bad2.length ? `mapAsync ${bad2.join('; ')}` : `0 in ${measured.reduce((n, [, x]) => n + x.n, 0)} silent steps`, `${measured.length - bad2.length}/${measured.length} within`]);
}
console.log(table(['', 'target', 'measured', ''], T, ['l', 'l', 'l', 'r']));
console.log(`\nbench took ${((performance.now() - T0) / 1000).toFixed(0)} s; load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
