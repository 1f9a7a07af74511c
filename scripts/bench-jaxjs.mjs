#!/usr/bin/env node
// Benchmark helper for scripts/bench.mjs (prints figures; never a test): runs
// scripts/jaxjs/linreg.mjs (seed 001's linear regression written with jax-js)
// on one jax-js device in this Node process and prints one JSON line.
//
//   node scripts/bench-jaxjs.mjs wasm|webgpu
//
// jax-js's README lists Node as Wasm-only, but its WebGPU backend only needs
// `navigator.gpu`: Node 20 has no `navigator`, so for 'webgpu' this installs
// { gpu } from the `webgpu` package (Dawn; SwiftShader without a GPU, set up
// as runtime/node.ts does for jaxts), the same adapter jaxts's WebGPU backend uses.
const device = process.argv[2] ?? 'wasm';
if (device === 'webgpu') {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const icd = '/usr/lib/chromium/vk_swiftshader_icd.json';
  const { existsSync } = await import('node:fs');
  if (!process.env.VK_ICD_FILENAMES && existsSync(icd)) process.env.VK_ICD_FILENAMES = icd;
  const mod = await import('webgpu');
  Object.assign(globalThis, mod.globals);
  // keep the GPU object reachable (Dawn aborts if it is collected while a device is in use)
  globalThis.__benchGpu = mod.create([]);
  const nav = globalThis.navigator ?? {};
  Object.defineProperty(globalThis, 'navigator', {
    value: Object.assign(nav, { gpu: globalThis.__benchGpu, userAgent: nav.userAgent ?? `Node.js/${process.version}` }),
    configurable: true,
  });
}
// on WebGPU, count dispatches and submits per steady-state step (Dawn's prototypes wrapped)
const count = { dispatches: 0, submits: 0 };
if (device === 'webgpu') {
  for (const [cls, m, k] of [[globalThis.GPUComputePassEncoder, 'dispatchWorkgroups', 'dispatches'], [globalThis.GPUQueue, 'submit', 'submits']]) {
    const orig = cls.prototype[m];
    cls.prototype[m] = function (...a) {
      count[k]++;
      return orig.apply(this, a);
    };
  }
}
let perStep = null;
let at = null;
const onSteady = (phase, steps) => {
  if (phase === 'start') at = { ...count };
  else perStep = { dispatches: (count.dispatches - at.dispatches) / steps, submits: (count.submits - at.submits) / steps };
};
const { runLinreg } = await import('./jaxjs/linreg.mjs');
const rounds = Number(process.env.BENCH_STEP_ROUNDS ?? 7);
try {
  const r = await runLinreg(device, { rounds, onSteady });
  let adapter = null;
  if (device === 'webgpu') {
    const { getWebGPUDevice } = await import('@jax-js/jax');
    const info = getWebGPUDevice().adapterInfo;
    adapter = info ? `${info.vendor} ${info.architecture} ${info.description}`.trim() : null;
  }
  console.log(JSON.stringify({ ...r, adapter, perStep: device === 'webgpu' ? perStep : null, threads: typeof SharedArrayBuffer !== 'undefined' && typeof Worker !== 'undefined' ? 'workers' : 'single' }));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ device, error: String(e?.message ?? e) }));
  process.exit(1);
}
