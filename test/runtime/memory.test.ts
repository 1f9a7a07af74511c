// Deterministic freeing: a host loop of jitted 1M-element updates and an
// application calling an exported function 5,000 times each run in flat
// device memory (the runtime's live-byte count stays under a fixed bound)
// on both backends, because generated code releases each array after its
// last use and the backends reuse released buffers. On a software WebGPU
// adapter (SwiftShader: about 130 ms per 1M-element step on a loaded
// 2-core machine) the arrays have 64K elements; the step count stays.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { loadCompiled } from '../../src/run.js';
import type { Backend } from '../../runtime/backend.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import { array, type JArray } from '../../runtime/index.js';
import { nodeWebGpu } from '../../runtime/node.js';
import { Runtime } from '../../runtime/runtime.js';
import { createWebGpuBackend } from '../../runtime/webgpu/backend.js';
import { RUNTIME_ENTRY } from '../helpers/fixtures.js';

const N = Number(process.env['JAXTS_MEM_N'] ?? 1_000_000);
const N_SOFTWARE = Math.min(N, 65_536);
const STEPS = Number(process.env['JAXTS_MEM_STEPS'] ?? 5000);
/** A few arrays at once, whatever the loop length (5,000 unreleased 1M-element steps would be 20 GB). */
const bound = (n: number): number => 6 * n * 4;

const source = (n: number): string => `
import jax
import jax.numpy as jnp

@jax.jit
def step(x):
    return x * 0.5 + 1.0

x = jnp.zeros(${n})
for i in range(${STEPS}):
    x = step(x)
print(x[:3])
`;

type Module = { main: (rt: Runtime) => Promise<{ x: JArray }>; step: (x: unknown) => Promise<JArray> };

/** Each backend (one of this suite's own, so that its peak counts only this suite's arrays) and its array size. */
async function backends(): Promise<[string, number, () => Promise<Backend | null>][]> {
  const gpu = await nodeWebGpu();
  if (!gpu.backend && process.env['CI'] === 'true') throw new Error('no WebGPU adapter under CI=true');
  const webgpu = async (): Promise<Backend | null> => (gpu.backend ? createWebGpuBackend((globalThis as { __jaxtsGpu?: GPU }).__jaxtsGpu!) : null);
  return [
    ['cpu', N, async () => new CpuBackend()],
    ['webgpu', gpu.software ? N_SOFTWARE : N, webgpu],
  ];
}

describe('device memory stays flat', async () => {
  for (const [name, n, make] of await backends()) {
    const mod = (await loadCompiled(compile(source(n), { file: 'memory.py' }), RUNTIME_ENTRY)) as unknown as Module;
    it(`${name}: ${STEPS} steps of a jitted ${n}-element update in a host loop`, { timeout: 600_000 }, async () => {
      const backend = await make();
      if (!backend) return;
      let text = '';
      const rt = new Runtime(backend, { devices: 4, write: (t) => (text += t) });
      const { x } = await mod.main(rt);
      await rt.sync();
      // x_{k+1} = x_k / 2 + 1 converges to 2
      expect(text).toBe('[2. 2. 2.]\n');
      const m = rt.memory();
      expect(m.peakLiveBytes).toBeLessThan(bound(n));
      expect(m.liveBytes).toBe(n * 4); // main()'s result x, which the caller now owns
      x.release();
      expect(rt.memory().liveBytes).toBe(0);
    });

    it(`${name}: ${STEPS} application calls of an exported function on ${n} elements that release what they drop`, { timeout: 600_000 }, async () => {
      const backend = await make();
      if (!backend) return;
      const rt = new Runtime(backend, { devices: 4, write: () => {} });
      const { x: first } = await mod.main(rt);
      first.release();
      let x: JArray = array(new Float32Array(n));
      for (let i = 0; i < STEPS; i++) {
        const y = await mod.step(x);
        x.release();
        x = y;
      }
      expect([...(await x.data()).subarray(0, 2)]).toEqual([2, 2]);
      const m = rt.memory();
      expect(m.peakLiveBytes).toBeLessThan(bound(n));
      expect(m.liveBytes).toBe(n * 4);
      x.release();
      expect(rt.memory().liveBytes).toBe(0);
    });
  }
});
