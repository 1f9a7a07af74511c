#!/usr/bin/env node
// Program benchmark (prints figures; never part of the tests): for each real
// program (tutorial fixtures and the corpora given on the command line), the
// time `jaxts compile` takes, the time `jaxts run --backend cpu` takes
// (compile + run) and the time real JAX takes to run the same file, side by
// side. Each figure is wall seconds with CPU seconds (user + system) in
// brackets: the machine is often shared, and CPU time is the steadier one.
// The generated TypeScript's size (KB) shows a host loop that ran unrolled.
// Usage: npm run bench:programs [-- [--no-jax] [--timeout S] [--loops N] [--cli FILE] FILE.py|DIR ...]
//   (after `npm run build`; with no files: fixtures/tutorials/*.py)
//   --loops N   runs a copy of each program whose top-level `for ... in range(K)` loops (K a literal
//               above 1) take N steps: how compile and run time grow with a training loop's length
//   --cli FILE  times another build's command (e.g. a copy of main's dist/cli.js) instead of bin/jaxts.js
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
let jax = true;
let timeout = 120;
let loops = null;
let cli = 'bin/jaxts.js';
const targets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--no-jax') jax = false;
  else if (args[i] === '--timeout') timeout = Number(args[++i]);
  else if (args[i] === '--loops') loops = Number(args[++i]);
  else if (args[i] === '--cli') cli = args[++i];
  else targets.push(args[i]);
}
if (targets.length === 0) targets.push('fixtures/tutorials');
const files = targets.flatMap((t) =>
  statSync(t).isDirectory()
    ? readdirSync(t).filter((f) => f.endsWith('.py')).sort().map((f) => join(t, f))
    : [t],
);

const PY = process.env.JAXTS_BENCH_PYTHON ?? resolve('.venv/oracle/bin/python');
const JAXTS = resolve(cli);
const ORACLE = resolve('scripts/oracle_run.py');

/** Runs a command under /usr/bin/time; wall and CPU seconds, exit status. */
function timed(cmd, argv, cwd, env = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '@@CPU %U %S', '--', 'timeout', String(timeout), cmd, ...argv], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /@@CPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  const cpu = m ? Number(m[1]) + Number(m[2]) : NaN;
  const status = r.status ?? -1;
  return { wall, cpu, status };
}

const fmt = (t) =>
  t.status === 124 ? `TIMEOUT(${timeout})` : `${t.wall.toFixed(1)} [${t.cpu.toFixed(1)}]${t.status ? ` rc=${t.status}` : ''}`;

const out = mkdtempSync(join(tmpdir(), 'jaxts-bench-'));
/** The program to time: `file`, or a copy beside it whose top-level range loops take `loops` steps. */
function program(file) {
  if (loops === null) return file;
  const text = readFileSync(file, 'utf8').replace(/^(for [^\n]* in range\()\s*(\d+)\s*(\):)/gm, (m, head, k, tail) => (Number(k) > 1 ? `${head}${loops}${tail}` : m));
  const copy = file.replace(/\.py$/, `.loops${loops}.py`);
  writeFileSync(copy, text);
  return copy;
}
console.log(`program | jaxts compile s [cpu] | TS KB | jaxts run cpu s [cpu] | JAX s [cpu]${loops === null ? '' : ` (top-level range loops: ${loops} steps)`}`);
for (const original of files) {
  const file = program(original);
  const dir = resolve(file, '..');
  const base = file.split('/').pop();
  const c = timed('node', [JAXTS, 'compile', base, '-o', out], dir);
  const ts = join(out, base.replace(/\.py$/, '.ts'));
  const kb = c.status === 0 ? (statSync(ts).size / 1024).toFixed(0) : '-';
  const r = timed('node', [JAXTS, 'run', '--backend', 'cpu', base], dir);
  const j = jax
    ? timed(PY, [ORACLE, base], dir, {
        XLA_FLAGS: '--xla_force_host_platform_device_count=4',
        JAX_PLATFORMS: 'cpu',
        MPLBACKEND: 'Agg',
        PYTHONHASHSEED: '0',
      })
    : undefined;
  console.log(`${original} | ${fmt(c)} | ${kb} | ${fmt(r)} | ${j ? fmt(j) : '-'}`);
  if (file !== original) rmSync(file);
}
rmSync(out, { recursive: true, force: true });
