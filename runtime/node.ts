// Creating a Runtime in Node: WebGPU through the `webgpu` package (Dawn),
// falling back to the CPU backend when there is no adapter.
// Imports go through ./index.js only: dist/node.js imports dist/runtime.js
// (scripts/build.mjs), so both entries share one Runtime and Array class.
import { existsSync } from 'node:fs';
import { CpuBackend, createWebGpuBackend, Runtime, type Backend } from './index.js';

export type BackendChoice = 'auto' | 'webgpu' | 'cpu';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** A Dawn-backed WebGPU backend, or null when no adapter is available. */
export async function nodeWebGpuBackend(): Promise<Backend | null> {
  // Without a GPU, SwiftShader (Debian's chromium package) gives Dawn a Vulkan adapter.
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  if (!process.env['VK_ICD_FILENAMES'] && existsSync(SWIFTSHADER_ICD)) process.env['VK_ICD_FILENAMES'] = SWIFTSHADER_ICD;
  let mod: typeof import('webgpu');
  try {
    mod = await import('webgpu');
  } catch {
    return null;
  }
  Object.assign(globalThis, mod.globals);
  // Dawn aborts if the GPU object is collected while a device is in use: keep it reachable.
  const g = globalThis as { __jaxtsGpu?: GPU };
  g.__jaxtsGpu ??= mod.create([]);
  return createWebGpuBackend(g.__jaxtsGpu);
}

export async function createNodeRuntime(opts: {
  backend: BackendChoice;
  devices: number;
  write?: (text: string) => void;
}): Promise<Runtime> {
  let backend: Backend | null = null;
  if (opts.backend !== 'cpu') {
    backend = await nodeWebGpuBackend();
    if (!backend && opts.backend === 'webgpu') throw new Error('no WebGPU adapter is available (try --backend cpu)');
  }
  backend ??= new CpuBackend();
  return new Runtime(backend, { devices: opts.devices, write: opts.write ?? ((t) => process.stdout.write(t)) });
}
