// The WebGPU backend's stacked runs: every simulated device in one dispatch
// per kernel, arrays as views into stacked buffers, gathers over all devices
// as aliases, pooled temporaries and reused bind groups. Results must match
// the CPU backend (which runs each device on its own) for axis_index, a
// replicated argument, gathers with and without groups, results fed back as
// arguments, and arguments that are not one stacked buffer.
import { afterEach, describe, expect, it } from 'vitest';
import { renderJs } from '../../src/codegen/js.js';
import { renderWgsl } from '../../src/codegen/wgsl.js';
import type { KBinary, KExpr, Kernel } from '../../src/ir/kernel.js';
import type { Backend, DeviceBuffer } from '../../runtime/backend.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import type { CpuKernel, KernelSpec, ProgramSpec } from '../../runtime/program.js';
import { WebGpuBackend } from '../../runtime/webgpu/backend.js';
import * as runtimeHelpers from '../../runtime/index.js';
import { cpuBackend, runOn, webgpuBackend } from '../helpers/fixtures.js';
import { getTestDevice, runCompute } from '../helpers/gpu.js';
import { compile } from '../../src/compile.js';

const F = 'float32' as const;
const gid = (bound: number): KExpr => ({ op: 'gid', dtype: 'int32', bound });
const int = (value: number): KExpr => ({ op: 'const', value, dtype: 'int32' });
const flt = (value: number): KExpr => ({ op: 'const', value, dtype: F });
const load = (input: number, index: KExpr): KExpr => ({ op: 'load', input, index, dtype: F });
const bin = (fn: KBinary, a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn, a, b, dtype: a.dtype });
const dev: KExpr = { op: 'device', dtype: 'int32' };
const toF = (x: KExpr): KExpr => ({ op: 'cast', x, dtype: F });
const sum = (id: number, extent: number, body: KExpr): KExpr => ({ op: 'reduce', fn: 'sum', id, extent, body, dtype: F });
const rvar = (id: number, bound: number): KExpr => ({ op: 'rvar', id, dtype: 'int32', bound });

/** A kernel as generated code carries it: the WGSL and JS renderers' output. */
function spec(name: string, inputs: number[], size: number, body: KExpr, usesDevice = false): KernelSpec {
  const k: Kernel = { name, inputs: inputs.map((n) => ({ dtype: F, size: n })), output: { dtype: F, size }, body, usesDevice };
  const { source, helpers } = renderJs(k, 'kernel', false);
  // the CPU renderer's output, as the generated module would hold it (with the runtime helpers it imports)
  const lib = runtimeHelpers as unknown as Record<string, unknown>;
  const cpu = new Function(...helpers, `${source}\nreturn kernel;`)(...helpers.map((h) => lib[h])) as CpuKernel;
  return { name, wgsl: renderWgsl(k), cpu, inputs: k.inputs, output: k.output, usesDevice };
}

const N = 4;
const S = 4;
const i = gid(S);

/**
 * x, w → b0 = x·w + axis_index; b1 = all_gather(b0) (an alias on WebGPU);
 * b2 = Σ_d b1[d]; b3 = gather(b0) in groups {0,2}, {3,1}; b4 = b2 + b3[0] − b3[1];
 * b0 = b4/2 + b1[axis_index] (b0 rewritten while b1, its old value's alias, is still read);
 * b5 = b1[axis_index + 1 mod 4] + b0. Results: b5, b4, w.
 */
const mixProgram: ProgramSpec = {
  name: 'mix',
  params: [{ dtype: F, size: S }, { dtype: F, size: S }],
  buffers: [S, N * S, S, 2 * S, S, S].map((size) => ({ dtype: F, size })),
  kernels: [
    spec('xw', [S, S], S, bin('add', bin('mul', load(0, i), load(1, i)), toF(dev)), true),
    spec('sum', [N * S], S, sum(0, N, load(0, bin('add', bin('mul', rvar(0, N), int(S)), i)))),
    spec('diff', [S, 2 * S], S, bin('sub', bin('add', load(0, i), load(1, i)), load(1, bin('add', i, int(S))))),
    spec('mine', [S, N * S], S, bin('add', bin('mul', load(0, i), flt(0.5)), load(1, bin('add', bin('mul', dev, int(S)), i))), true),
    spec('next', [N * S, S], S, bin('add', load(0, bin('add', bin('mul', bin('rem', bin('add', dev, int(1)), int(N)), int(S)), i)), load(1, i)), true),
  ],
  steps: [
    { kind: 'kernel', kernel: 0, inputs: [{ kind: 'param', index: 0 }, { kind: 'param', index: 1 }], output: 0 },
    { kind: 'gather', input: { kind: 'buf', index: 0 }, output: 1 },
    { kind: 'kernel', kernel: 1, inputs: [{ kind: 'buf', index: 1 }], output: 2 },
    { kind: 'gather', input: { kind: 'buf', index: 0 }, output: 3, groups: [[0, 2], [3, 1]] },
    { kind: 'kernel', kernel: 2, inputs: [{ kind: 'buf', index: 2 }, { kind: 'buf', index: 3 }], output: 4 },
    { kind: 'kernel', kernel: 3, inputs: [{ kind: 'buf', index: 4 }, { kind: 'buf', index: 1 }], output: 0 },
    { kind: 'kernel', kernel: 4, inputs: [{ kind: 'buf', index: 1 }, { kind: 'buf', index: 0 }], output: 5 },
  ],
  results: [{ kind: 'buf', index: 5 }, { kind: 'buf', index: 4 }, { kind: 'param', index: 1 }],
  resultShapes: [[S], [S], [S]],
};

/** p → a = p + 1 → b = a·2 → c = b − p: temporaries a and b, one result. */
const chainProgram: ProgramSpec = {
  name: 'chain',
  params: [{ dtype: F, size: S }],
  buffers: [S, S, S].map((size) => ({ dtype: F, size })),
  kernels: [
    spec('inc', [S], S, bin('add', load(0, i), flt(1))),
    spec('dbl', [S], S, bin('mul', load(0, i), flt(2))),
    spec('sub', [S, S], S, bin('sub', load(0, i), load(1, i))),
  ],
  steps: [
    { kind: 'kernel', kernel: 0, inputs: [{ kind: 'param', index: 0 }], output: 0 },
    { kind: 'kernel', kernel: 1, inputs: [{ kind: 'buf', index: 0 }], output: 1 },
    { kind: 'kernel', kernel: 2, inputs: [{ kind: 'buf', index: 1 }, { kind: 'param', index: 0 }], output: 2 },
  ],
  results: [{ kind: 'buf', index: 2 }],
  resultShapes: [[S]],
};

/** p → b0 = 2p; b1 = all_gather(b0), returned: a result that aliases a buffer of the call. */
const gatherResultProgram: ProgramSpec = {
  name: 'gather_result',
  params: [{ dtype: F, size: S }],
  buffers: [{ dtype: F, size: S }, { dtype: F, size: N * S }],
  kernels: [spec('dbl', [S], S, bin('mul', load(0, i), flt(2)))],
  steps: [
    { kind: 'kernel', kernel: 0, inputs: [{ kind: 'param', index: 0 }], output: 0 },
    { kind: 'gather', input: { kind: 'buf', index: 0 }, output: 1 },
  ],
  results: [{ kind: 'buf', index: 1 }],
  resultShapes: [[N * S]],
};

/** The all-device gather of a parameter, returned: a result that aliases the (stacked) argument. */
const gatherParamProgram: ProgramSpec = {
  name: 'gather_param',
  params: [{ dtype: F, size: S }],
  buffers: [{ dtype: F, size: N * S }],
  kernels: [],
  steps: [{ kind: 'gather', input: { kind: 'param', index: 0 }, output: 0 }],
  results: [{ kind: 'buf', index: 0 }],
  resultShapes: [[N * S]],
};

const devices = Array.from({ length: N }, (_, d) => d);
const vec = (d: number, k: number): Float32Array => Float32Array.from({ length: S }, (_, j) => d * 10 + j + k);
const readAll = (b: Backend, outs: DeviceBuffer[][]): Promise<number[][][]> =>
  Promise.all(outs.map((o) => Promise.all(o.map(async (x) => [...(await b.read(x))]))));

async function gpu(): Promise<WebGpuBackend | null> {
  const b = await webgpuBackend();
  return b instanceof WebGpuBackend ? b : null;
}

const restores: (() => void)[] = [];
afterEach(() => restores.splice(0).forEach((r) => r()));

/** Count calls of a method on the prototype of `obj` (Dawn's classes), recording their arguments, until the test ends. */
function countCalls(obj: object, method: string): { calls: unknown[][] } {
  const proto = Object.getPrototypeOf(obj) as Record<string, (...a: unknown[]) => unknown>;
  const orig = proto[method]!;
  const calls: unknown[][] = [];
  proto[method] = function (this: unknown, ...a: unknown[]) {
    calls.push(a);
    return orig.apply(this, a);
  };
  restores.push(() => void (proto[method] = orig));
  return { calls };
}

describe('WebGPU stacked runs', () => {
  it('match the CPU backend over several steps: axis_index, a replicated argument, gathers with and without groups, fed-back and unstacked arguments', async () => {
    const g = await gpu();
    if (!g) return;
    const c = new CpuBackend();
    const state = new Map<Backend, DeviceBuffer[][]>();
    for (const b of [c, g] as Backend[]) {
      // step 0: x from separate uploads, w replicated (one upload, copies on the other devices)
      const w0 = b.upload(0, F, Float32Array.from([1, 2, 3, 4]));
      const args = devices.map((d) => [b.upload(d, F, vec(d, 0)), d === 0 ? w0 : b.copy(w0, d)]);
      state.set(b, b.run(mixProgram, devices, args));
    }
    for (let step = 1; step < 6; step++) {
      const reads = await Promise.all([c, g].map((b) => readAll(b, state.get(b)!)));
      expect(reads[1], `step ${step - 1}`).toEqual(reads[0]);
      for (const b of [c, g] as Backend[]) {
        const prev = state.get(b)!;
        // results fed back: x = b5, w = the w result; at step 3 one device's x is a fresh upload,
        // at step 4 w comes as separate uploads (neither is one stacked buffer)
        const args = devices.map((d) => [
          step === 3 && d === 1 ? b.upload(d, F, vec(d, 7)) : prev[d]![0]!,
          step === 4 ? b.upload(d, F, vec(0, 1)) : prev[d]![2]!,
        ]);
        state.set(b, b.run(mixProgram, devices, args));
      }
    }
    const last = await Promise.all([c, g].map((b) => readAll(b, state.get(b)!)));
    expect(last[1]).toEqual(last[0]);
  });

  it('gives results that alias a gathered argument (stacked or not) or a gathered buffer', async () => {
    const g = await gpu();
    if (!g) return;
    const c = new CpuBackend();
    for (const b of [c, g] as Backend[]) {
      const separate = devices.map((d) => [b.upload(d, F, vec(d, 0))]);
      const stacked = b.uploadStacked(devices, F, devices.map((d) => vec(d, 0))).map((x) => [x]);
      for (const args of [separate, stacked]) {
        const outs = b.run(gatherParamProgram, devices, args);
        const want = devices.flatMap((d) => [...vec(d, 0)]);
        expect(await readAll(b, outs)).toEqual(devices.map(() => [want]));
      }
      // twice: the second call must not overwrite the first call's results
      const x = devices.map((d) => [b.upload(d, F, vec(d, 0))]);
      const first = b.run(gatherResultProgram, devices, x);
      b.run(gatherResultProgram, devices, devices.map((d) => [b.upload(d, F, vec(d, 5))]));
      const doubled = devices.map((d) => [...vec(d, 0)].map((v) => 2 * v));
      expect(await readAll(b, first)).toEqual(devices.map(() => [doubled.flat()]));
    }
  });

  it('issues one dispatch per kernel for all devices', async () => {
    const g = await gpu();
    if (!g) return;
    const pass = g.gpu.createCommandEncoder().beginComputePass();
    const dispatches = countCalls(pass, 'dispatchWorkgroups');
    pass.end();
    const w = g.uploadStacked(devices, F, devices.map(() => vec(0, 1)));
    const args = devices.map((d) => [g.upload(d, F, vec(d, 0)), w[d]!]);
    g.run(mixProgram, devices, args);
    await g.sync();
    // one grid over every device's elements (here N·S = 16: one workgroup of 64)
    expect(dispatches.calls).toEqual(mixProgram.kernels.map(() => [Math.ceil((N * S) / 64), 1]));
  });

  it('reuses bind groups and temporaries on the next call, and binds fed-back results without copies', async () => {
    const g = await gpu();
    if (!g) return;
    const bindGroups = countCalls(g.gpu, 'createBindGroup');
    const buffers = countCalls(g.gpu, 'createBuffer');
    const enc = g.gpu.createCommandEncoder();
    const copies = countCalls(enc, 'copyBufferToBuffer');
    const x = g.uploadStacked(devices, F, devices.map((d) => vec(d, 0))).map((b) => [b]);
    const counts = (): number[] => [bindGroups.calls.length, buffers.calls.length, copies.calls.length];
    const before = counts();
    const first = g.run(chainProgram, devices, x);
    const afterFirst = counts();
    g.run(chainProgram, devices, x);
    const afterSecond = counts();
    g.run(chainProgram, devices, first); // the first call's results as arguments
    const afterThird = counts();
    // first call: 3 bind groups, 2 pooled temporaries + 1 result block
    expect(afterFirst.map((n, j) => n - before[j]!)).toEqual([3, 3, 0]);
    // same arguments: only the kernel writing the result (a new block) binds anew
    expect(afterSecond.map((n, j) => n - afterFirst[j]!)).toEqual([1, 1, 0]);
    // new arguments (stacked results): the kernels reading them and the one writing the result
    expect(afterThird.map((n, j) => n - afterSecond[j]!)).toEqual([2, 1, 0]);
    const want = devices.map((d) => [[...vec(d, 0)].map((v) => (v + 1) * 2 - v)]);
    expect(await readAll(g, first)).toEqual(want);
  });
});

describe('WebGPU submits', () => {
  it('submits once per host-loop iteration however many programs it calls, and before a readback', async () => {
    const g = await gpu();
    if (!g) return;
    const submits = countCalls(g.gpu.queue, 'submit');
    const x0 = g.uploadStacked(devices, F, devices.map((d) => vec(d, 0))).map((b) => [b]);
    await g.sync(); // start from an empty batch
    const base = submits.calls.length;
    let x = x0;
    const perIteration: number[] = [];
    for (let step = 0; step < 5; step++) {
      const before = submits.calls.length;
      // two programs per iteration; the second's result is dropped (its buffers stay alive until submitted)
      const y = g.run(chainProgram, devices, x);
      g.run(gatherResultProgram, devices, y);
      x = y;
      perIteration.push(submits.calls.length - before);
    }
    // the first iteration's batch is submitted when chain is called again, and so on: one submit each
    expect(perIteration).toEqual([0, 1, 1, 1, 1]);
    expect((submits.calls[base]![0] as unknown[]).length).toBe(2); // both programs' command buffers in one submit
    // a readback submits the pending batch first, with its copy, in one submit
    const before = submits.calls.length;
    const got = await readAll(g, [x[0]!.slice(0, 1)]);
    expect(submits.calls.length - before).toBe(1);
    // chain five times from x0: p → (p + 1)·2 − p = p + 2
    expect(got[0]![0]).toEqual([...vec(0, 0)].map((v) => v + 10));
  });

  it('submits once per iteration of a compiled host loop (rt.submit() at its start), two programs an iteration', async () => {
    const g = await gpu();
    if (!g) return;
    const src = [
      'import jax',
      'import jax.numpy as jnp',
      '',
      'step = jax.jit(lambda p, x: p - 0.5 * jnp.sum(x * p, axis=0))',
      'p = jnp.ones(3)',
      'x = jnp.ones((4, 3))',
      'for i in range(6):',
      '    p = step(p[:3] * 1.0, x)',
      'print(p)',
      '',
    ].join('\n');
    const r = compile(src, { file: 'submits.py' });
    expect(r.host).toMatch(/for \(let i = 0; i < 6; i\+\+\) \{\n\s*rt\.submit\(\);\n/);
    // a loop of host arithmetic only has nothing to submit
    expect(compile('t = 0\nfor i in range(3):\n    t = t + i\nprint(t)\n', { file: 'host_loop.py' }).host).not.toContain('rt.submit');
    const submits = countCalls(g.gpu.queue, 'submit');
    const runs = countCalls(g, 'run');
    const out = await runOn(r, g);
    expect(out).toBe(await runOn(r, cpuBackend()));
    // each iteration runs the slicing program and the step; the last iteration goes out with the print's readback
    expect(runs.calls.length).toBeGreaterThanOrEqual(12);
    expect(submits.calls.length).toBeLessThanOrEqual(6 + 2);
  });

  it('submits pending work once the host yields to the event loop', async () => {
    const g = await gpu();
    if (!g) return;
    const submits = countCalls(g.gpu.queue, 'submit');
    const x = g.uploadStacked(devices, F, devices.map((d) => vec(d, 0))).map((b) => [b]);
    await g.sync();
    const before = submits.calls.length;
    g.run(chainProgram, devices, x);
    expect(submits.calls.length).toBe(before);
    await new Promise((ok) => setTimeout(ok, 5));
    expect(submits.calls.length).toBe(before + 1);
  });
});

describe('WGSL kernel convention', () => {
  it('runs every device in one grid: override devices, per-input strides st<K> (0: one shared copy)', async () => {
    const device = await getTestDevice();
    if (!device) return;
    const n = 5;
    const j = gid(n);
    const k = spec('conv', [n, n], n, bin('add', bin('add', bin('mul', load(0, j), flt(10)), load(1, j)), toF(bin('mul', dev, int(100)))), true);
    const x = Float32Array.from({ length: 3 * n }, (_, t) => t); // 3 devices' copies
    const w = Float32Array.from({ length: n }, (_, t) => t / 2); // one copy for all
    const out = new Float32Array(await runCompute(device, k.wgsl, 'main', [x, w], 3 * n * 4, 1, { devices: 3, st1: 0 }));
    expect([...out]).toEqual(Array.from({ length: 3 * n }, (_, t) => x[t]! * 10 + w[t % n]! + 100 * Math.floor(t / n)));
  });
});

describe('WebGPU views', () => {
  it('copies, concatenates and reads views, and runs outputs larger than one grid row on every device', async () => {
    const g = await gpu();
    if (!g) return;
    const parts = g.uploadStacked([0, 1, 2], F, [vec(0, 0), vec(1, 0), vec(2, 0)]);
    // contiguous parts of one block concatenate to a view; others are copied
    expect([...(await g.read(g.concat(parts, 0)))]).toEqual([0, 1, 2].flatMap((d) => [...vec(d, 0)]));
    expect([...(await g.read(g.concat([parts[2]!, parts[0]!], 1)))]).toEqual([...vec(2, 0), ...vec(0, 0)]);
    const part = g.copy(parts[1]!, 2, 1, 2);
    expect([part.device, [...(await g.read(part))]]).toEqual([2, [11, 12]]);
    // 65535 workgroups of 64 per grid row: this output needs a second row (a 2-D grid) on each of 2 devices
    const n = 65535 * 64 + 100;
    const big: ProgramSpec = {
      name: 'big', params: [{ dtype: F, size: 1 }], buffers: [{ dtype: F, size: n }],
      kernels: [spec('iota', [1], n, bin('add', toF(bin('add', gid(n), bin('mul', dev, int(n)))), load(0, int(0))), true)],
      steps: [{ kind: 'kernel', kernel: 0, inputs: [{ kind: 'param', index: 0 }], output: 0 }],
      results: [{ kind: 'buf', index: 0 }], resultShapes: [[n]],
    };
    const one = g.upload(0, F, Float32Array.from([0.5]));
    const outs = g.run(big, [0, 1], [[one], [g.copy(one, 1)]]);
    for (const d of [0, 1]) {
      const got = await g.read(outs[d]![0]!);
      expect([got.length, got[0], got[n - 1]]).toEqual([n, Math.fround(d * n + 0.5), Math.fround(d * n + n - 1 + 0.5)]);
    }
  });
});

describe('WebGPU stacked runs of compiled programs', () => {
  it('print what the CPU backend prints: pmap with axis_index, a replicated argument and a loop feeding results back', async () => {
    const g = await gpu();
    if (!g) return;
    const src = [
      'import os',
      'os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"',
      'import jax',
      'import jax.numpy as jnp',
      '',
      'def step(x, w):',
      '    s = jax.lax.psum(x * w, "i")',
      '    return x * 0.5 + s * 0.25 + jax.lax.axis_index("i"), s',
      '',
      'f = jax.pmap(step, axis_name="i", in_axes=(0, None))',
      'x = jnp.arange(12.0).reshape(4, 3)',
      'w = jnp.array([1.0, 2.0, 3.0])',
      'for _ in range(4):',
      '    x, s = f(x, w)',
      'print(x)',
      'print(s)',
      '',
    ].join('\n');
    const r = compile(src, { file: 'stacked_loop.py' });
    const [cpuOut, gpuOut] = [await runOn(r, cpuBackend()), await runOn(r, g)];
    expect(gpuOut).toBe(cpuOut);
    expect(cpuOut).toContain('[[');
  });

  it('print what the CPU backend prints for a jit over a 2-D mesh with a sum over one mesh axis (a grouped gather), fed back', async () => {
    const g = await gpu();
    if (!g) return;
    const src = [
      'import os',
      'os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"',
      'import jax',
      'import jax.numpy as jnp',
      'from jax.sharding import Mesh, PartitionSpec as P, NamedSharding',
      'import numpy as np',
      '',
      'mesh = Mesh(np.array(jax.devices()).reshape(4, 2), axis_names=("data", "model"))',
      'h = jax.device_put(jnp.arange(64.0).reshape(8, 8), NamedSharding(mesh, P("data", "model")))',
      'w = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P()))',
      '',
      '@jax.jit',
      'def step(h, w):',
      '    return h * 0.5 + w, (h * w).sum(axis=1)',
      '',
      'for _ in range(3):',
      '    h, s = step(h, w)',
      'print(h)',
      'print(s)',
      '',
    ].join('\n');
    const r = compile(src, { file: 'stacked_mesh.py' });
    expect(r.programs.some((p) => p.program.steps.some((st) => st.kind === 'gather' && st.groups))).toBe(true);
    const [cpuOut, gpuOut] = [await runOn(r, cpuBackend()), await runOn(r, g)];
    expect(gpuOut).toBe(cpuOut);
    expect(cpuOut).toContain('[[');
  });
});
