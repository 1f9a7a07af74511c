// Creating a Runtime in Node: WebGPU through the optional `webgpu` package
// (Dawn), or the CPU backend. Dawn is asked for an adapter as the user's
// environment configures it (VK_ICD_FILENAMES is never overridden); only when
// it has none is SwiftShader's Vulkan driver (Debian's chromium package)
// tried, for `webgpu`. `auto` runs on a hardware adapter, else on the CPU
// backend, which is faster than a software rasteriser.
// Imports go through ./index.js only: dist/node.js imports dist/runtime.js
// (scripts/build.mjs), so both entries share one Runtime and Array class.
import { existsSync, readdirSync } from 'node:fs';
import { CpuBackend, createWebGpuBackend, Runtime, type Backend } from './index.js';

export type BackendChoice = 'auto' | 'webgpu' | 'cpu';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** What asking Dawn gave: a backend, whether its adapter is a software one, or why there is none. */
export interface NodeWebGpu {
  backend: Backend | null;
  software: boolean;
  /** Why there is no backend (the package missing, Dawn's .node not loading, no adapter). */
  reason: string;
}

type Dawn = typeof import('webgpu');

/** The `webgpu` package, or why it did not load. */
let dawnModule: Promise<Dawn | string> | null = null;

function loadDawn(): Promise<Dawn | string> {
  dawnModule ??= importDawn();
  return dawnModule;
}

async function importDawn(): Promise<Dawn | string> {
  try {
    return await import('webgpu');
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0]!; // not Node's require stack
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && /['"]webgpu['"]/.test(message)) {
      return 'the optional package `webgpu` (Dawn) is not installed: `npm install webgpu` runs jaxts on WebGPU in Node';
    }
    const bundled = /dawn\.node/.test(message) ? ' (a bundle that includes jaxts/node must leave `webgpu` external, e.g. esbuild --external:webgpu)' : '';
    return `the \`webgpu\` package (Dawn) did not load: ${message}${bundled}`;
  }
}

/** Linux without a GPU device node: Vulkan there can only reach software drivers. */
function noGpuDevice(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return !readdirSync('/dev/dri').some((f) => f.startsWith('renderD')) && !existsSync('/dev/nvidia0');
  } catch {
    return !existsSync('/dev/nvidia0');
  }
}

/** A software adapter (SwiftShader, llvmpipe/lavapipe, WARP): slower than the CPU backend. */
function isSoftware(adapter: GPUAdapter): boolean {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  return Boolean(info.isFallbackAdapter) || /swiftshader|llvmpipe|lavapipe|software|warp/i.test(`${info.vendor} ${info.architecture} ${info.device} ${info.description}`);
}

/** Ask a Dawn instance for an adapter and a backend on it, with VK_ICD_FILENAMES set to `icd` meanwhile when given. */
async function dawnBackend(dawn: Dawn, icd: string | null): Promise<{ backend: Backend; software: boolean } | null> {
  const saved = process.env['VK_ICD_FILENAMES'];
  if (icd) process.env['VK_ICD_FILENAMES'] = icd;
  try {
    Object.assign(globalThis, dawn.globals);
    // one Vulkan pipeline cache per device: a kernel whose SPIR-V the driver compiled before (the same
    // kernel in another program, or validated again) is not compiled again (measured on SwiftShader: the
    // golden suite's WebGPU runs and WGSL validation take 20% less time)
    const gpu = dawn.create(['enable-dawn-features=vulkan_monolithic_pipeline_cache']);
    // Dawn aborts if the GPU object is collected while a device is in use: keep it reachable.
    const g = globalThis as { __jaxtsGpus?: GPU[] };
    (g.__jaxtsGpus ??= []).push(gpu);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return null;
    const backend = await createWebGpuBackend(gpu);
    if (!backend) return null;
    (globalThis as { __jaxtsGpu?: GPU }).__jaxtsGpu = gpu; // the instance that gave the adapter (tests make more devices on it)
    return { backend, software: isSoftware(adapter) };
  } finally {
    if (icd) {
      if (saved === undefined) delete process.env['VK_ICD_FILENAMES'];
      else process.env['VK_ICD_FILENAMES'] = saved;
    }
  }
}

let cached: Promise<NodeWebGpu> | null = null;

/**
 * Dawn's WebGPU as this machine offers it: the configured adapter, else
 * (with VK_ICD_FILENAMES unset) SwiftShader's when Chromium is installed.
 * On Linux without a GPU device node the configured Vulkan reaches software
 * drivers only, so SwiftShader is asked first there. Made once per process.
 */
export function nodeWebGpu(): Promise<NodeWebGpu> {
  cached ??= (async (): Promise<NodeWebGpu> => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const dawn = await loadDawn();
    if (typeof dawn === 'string') return { backend: null, software: false, reason: dawn };
    const userIcd = process.env['VK_ICD_FILENAMES'] !== undefined;
    const swiftshader = !userIcd && existsSync(SWIFTSHADER_ICD);
    const tries: (string | null)[] = swiftshader && noGpuDevice() ? [SWIFTSHADER_ICD] : swiftshader ? [null, SWIFTSHADER_ICD] : [null];
    for (const icd of tries) {
      const got = await dawnBackend(dawn, icd);
      if (got) return { ...got, reason: '' };
    }
    return { backend: null, software: false, reason: 'Dawn found none' };
  })();
  return cached;
}

/** A Dawn-backed WebGPU backend (on any adapter, software ones included), or null when there is none. */
export async function nodeWebGpuBackend(): Promise<Backend | null> {
  return (await nodeWebGpu()).backend;
}

export async function createNodeRuntime(opts: {
  backend: BackendChoice;
  devices: number;
  write?: (text: string) => void;
  /** Say on stderr (or through `note`) which backend and adapter runs, and why. */
  verbose?: boolean;
  /** Where notes go (default: stderr). Without `verbose`, the only note says how to get WebGPU when the `webgpu` package is missing or broken. */
  note?: (text: string) => void;
}): Promise<Runtime> {
  const note = opts.note ?? ((t: string) => process.stderr.write(t));
  let backend: Backend | null = null;
  let why = '';
  if (opts.backend === 'webgpu') {
    const got = await nodeWebGpu();
    if (!got.backend) throw new Error(`no WebGPU adapter is available (${got.reason}; try --backend cpu)`);
    backend = got.backend;
  } else if (opts.backend === 'auto') {
    const dawn = await loadDawn();
    if (typeof dawn === 'string') {
      why = dawn;
      if (!opts.verbose) note(`jaxts: running on the CPU backend: ${dawn}\n`);
    } else if (noGpuDevice() && process.env['VK_ICD_FILENAMES'] === undefined) {
      why = 'no GPU device on this machine; the CPU backend is faster than a software WebGPU adapter';
    } else {
      const got = await nodeWebGpu();
      if (got.backend && !got.software) backend = got.backend;
      else if (got.backend) why = `the WebGPU adapter is a software one (${got.backend.description}), slower than the CPU backend`;
      else why = got.reason;
    }
  }
  backend ??= new CpuBackend();
  if (opts.verbose) note(`jaxts: backend ${backend.kind}: ${backend.description}${why ? ` (${why})` : ''}\n`);
  return new Runtime(backend, { devices: opts.devices, write: opts.write ?? ((t) => process.stdout.write(t)), writeErr: (t) => process.stderr.write(t) });
}
