#!/usr/bin/env node
// Trainer benchmark (prints figures; never part of the tests): for each
// training fixture, the kernels and device gathers the step program dispatches
// per step (per device), and end-to-end wall time of `jaxts run` on each
// backend beside `python FILE.py` under real JAX (the oracle venv), medians of
// 3 runs. Usage: node scripts/bench-trainers.mjs   (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { compile } from '../dist/index.js';

const TRAINERS = [
  ['fixtures/seed003/01_pmap_trainer.py', 'update', 1000],
  ['fixtures/seed001/02_pmap_mlp.py', 'train_step', 50],
  ['fixtures/seed000/06_train_step_pmean.py', 'train_step', 101],
  ['fixtures/constructs/softmax_classifier.py', 'step', 60],
];
const PY = '.venv/oracle/bin/python';
const RUNS = 3;

function wall(cmd, args, env = {}) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, ...env } });
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)];
}

console.log(`# jaxts trainer benchmark — ${cpus().length} cores, ${cpus()[0]?.model ?? ''}`);
console.log('fixture | step program: kernels + gathers per step | jaxts cpu s | jaxts webgpu s | python JAX s | steps/s cpu / webgpu / JAX (end to end)');
for (const [file, fnName, steps] of TRAINERS) {
  const r = compile(readFileSync(file, 'utf8'), { file });
  const prog = r.programs.find((p) => p.name === fnName || p.name.startsWith(`${fnName}_`));
  const kernels = prog ? prog.program.steps.filter((s) => s.kind === 'kernel').length : NaN;
  const gathers = prog ? prog.program.steps.filter((s) => s.kind === 'gather').length : NaN;
  const cpu = wall('node', ['bin/jaxts.js', 'run', file, '--backend', 'cpu']);
  const gpu = wall('node', ['bin/jaxts.js', 'run', file, '--backend', 'webgpu']);
  const py = wall(PY, ['scripts/oracle_run.py', file], { XLA_FLAGS: '--xla_force_host_platform_device_count=4' });
  const sps = (t) => (steps / t).toFixed(0);
  console.log(`${file} | ${kernels} + ${gathers} | ${cpu.toFixed(2)} | ${gpu.toFixed(2)} | ${py.toFixed(2)} | ${sps(cpu)} / ${sps(gpu)} / ${sps(py)}`);
}
