#!/usr/bin/env node
// Program benchmark (prints figures; never part of the tests): for each real
// program (tutorial fixtures and the corpora given on the command line), the
// time `jaxts compile` takes, the time `jaxts run --backend cpu` takes
// (compile + run) and the time real JAX takes to run the same file, side by
// side. Each figure is wall seconds with CPU seconds (user + system) in
// brackets: the machine is often shared, and CPU time is the steadier one.
// Usage: npm run bench:programs [-- [--no-jax] [--timeout S] FILE.py|DIR ...]
//   (after `npm run build`; with no files: fixtures/tutorials/*.py)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
let jax = true;
let timeout = 120;
const targets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--no-jax') jax = false;
  else if (args[i] === '--timeout') timeout = Number(args[++i]);
  else targets.push(args[i]);
}
if (targets.length === 0) targets.push('fixtures/tutorials');
const files = targets.flatMap((t) =>
  statSync(t).isDirectory()
    ? readdirSync(t).filter((f) => f.endsWith('.py')).sort().map((f) => join(t, f))
    : [t],
);

const PY = process.env.JAXTS_BENCH_PYTHON ?? '/work/corpus/venv/bin/python';
const JAXTS = resolve('bin/jaxts.js');
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
console.log('program | jaxts compile s [cpu] | jaxts run cpu s [cpu] | JAX s [cpu]');
for (const file of files) {
  const dir = resolve(file, '..');
  const base = file.split('/').pop();
  const c = timed('node', [JAXTS, 'compile', base, '-o', out], dir);
  const r = timed('node', [JAXTS, 'run', '--backend', 'cpu', base], dir);
  const j = jax
    ? timed(PY, [ORACLE, base], dir, {
        XLA_FLAGS: '--xla_force_host_platform_device_count=4',
        JAX_PLATFORMS: 'cpu',
        MPLBACKEND: 'Agg',
        PYTHONHASHSEED: '0',
      })
    : undefined;
  console.log(`${file} | ${fmt(c)} | ${fmt(r)} | ${j ? fmt(j) : '-'}`);
}
rmSync(out, { recursive: true, force: true });
