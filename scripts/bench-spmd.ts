// GSPMD benchmark (prints figures; never part of the tests), run by
// scripts/bench-spmd.mjs. For each sharded training fixture: the collectives
// in the partitioned step (ours, from the SPMD pass) beside those in XLA's
// compiled HLO for the same step, and steps per second — jaxts in-process on
// each backend (from the step's second call to its last, the host's work
// between steps included) and real JAX's jitted step in steady state (scripts/bench_jax_step.py).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { compile } from '../src/compile.js';
import { loadCompiled } from '../src/run.js';
import { createNodeRuntime } from '../runtime/node.js';
import type { Runtime } from '../runtime/runtime.js';

const FIXTURES: [file: string, step: string][] = [
  ['fixtures/seed001/01_mesh_linear_regression.py', 'train_step'],
  ['fixtures/seed001/03_make_mesh_mlp.py', 'train_step_sharded'],
  ['fixtures/constructs/mesh_2d_train.py', 'step'],
  // the GPT lesson: its GSPMD step, and the same step under shard_map (collectives written out)
  ['fixtures/lessons/gpt_sharded.py', 'train_step'],
  ['fixtures/lessons/gpt_sharded.py', 'train_step_sm'],
];
const COLLECTIVES = ['psum', 'all_gather', 'psum_scatter', 'all_to_all', 'ppermute'];
const ROOT = resolve(import.meta.dirname ?? '.', '..');

async function jaxtsStepsPerSecond(file: string, step: string, backend: 'cpu' | 'webgpu'): Promise<number> {
  const r = compile(readFileSync(join(ROOT, file), 'utf8'), { file });
  const prog = await loadCompiled(r, join(ROOT, 'dist/runtime.js'));
  const rt: Runtime = await createNodeRuntime({ backend, devices: prog.deviceCount });
  rt.options.write = () => {};
  const calls: number[] = [];
  const spmd = rt.spmd.bind(rt);
  rt.spmd = (program, ...rest) => {
    if (program.name === step) calls.push(performance.now());
    return spmd(program, ...rest);
  };
  await prog.main(rt);
  await rt.sync();
  const n = calls.length;
  return ((n - 2) / (calls[n - 1]! - calls[1]!)) * 1000;
}

function jaxStep(file: string, step: string): { collectives: Record<string, number>; fusions: number; step_s: number } {
  const out = execFileSync(join(ROOT, '.venv/oracle/bin/python'), [join(ROOT, 'scripts/bench_jax_step.py'), join(ROOT, file), step], {
    env: { ...process.env, JAX_PLATFORMS: 'cpu', XLA_FLAGS: '--xla_force_host_platform_device_count=4' },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** Steps per second, to two significant digits below 10. */
const rate = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toPrecision(2));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`# jaxts GSPMD benchmark — ${cpus().length} cores, ${cpus()[0]?.model ?? ''}; steps/s are medians of 3 runs`);
console.log('fixture | collectives per step: jaxts | XLA | gathers (comm. steps) | kernels | steps/s jaxts cpu | jaxts webgpu | JAX jit');
// `npm run bench:spmd -- WORD`: only the fixtures whose path contains WORD, or the step named WORD;
// `-- --cpu`: the CPU backend only (WebGPU on SwiftShader takes minutes per run)
const only = process.argv.slice(2).find((a) => !a.startsWith('--'));
const cpuOnly = process.argv.includes('--cpu');
for (const [file, step] of FIXTURES.filter(([f, s]) => !only || f.includes(only) || s === only)) {
  const r = compile(readFileSync(join(ROOT, file), 'utf8'), { file });
  // a jit over sharded arrays is partitioned (spmd.local); a shard_map's program is already per device
  const p = r.programs.find((x) => x.name === step && (x.spmd || x.kind === 'pmap'))!;
  const ours = (p.spmd?.local ?? p.func).eqns.filter((e) => COLLECTIVES.includes(e.prim)).map((e) => `${e.prim}(${((e.params['axes'] ?? e.params['axis_name']) as string[]).join(',')})`);
  const fused = p.program;
  const gathers = fused.steps.filter((s) => s.kind === 'gather').length;
  const kernels = fused.steps.filter((s) => s.kind === 'kernel').length;
  const cpu: number[] = [];
  const gpu: number[] = [];
  for (let i = 0; i < 3; i++) cpu.push(await jaxtsStepsPerSecond(file, step, 'cpu'));
  for (let i = 0; i < 3 && !cpuOnly; i++) gpu.push(await jaxtsStepsPerSecond(file, step, 'webgpu'));
  const jax = jaxStep(file, step);
  const xla = Object.entries(jax.collectives).map(([k, v]) => `${v} ${k}`).join(', ') || 'none';
  console.log(`${file} | ${ours.join(', ') || 'none'} | ${xla} | ${gathers} | ${kernels} (XLA fusions ${jax.fusions}) | ${rate(median(cpu))} | ${cpuOnly ? '-' : rate(median(gpu))} | ${rate(1 / jax.step_s)}`);
}
