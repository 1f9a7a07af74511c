// Compiling and running a program inside the playground's worker: the
// compiler emits two ES modules (host + kernels) that import the runtime; the
// runtime bundled into the worker is exposed to them through a Blob-URL module
// re-exporting it, the kernels module gets a Blob URL, the host imports it and
// is imported itself.
import * as runtime from '../runtime/index.js';
import { inlineSourceMapComment } from '../src/codegen/sourcemap.js';
import { compile, type CompileResult } from '../src/compile.js';
import type { BackendChoice } from './protocol.js';

export interface CompiledProgram {
  host: string;
  kernels: string;
  baseName: string;
}

export interface ProgramModule {
  main: (rt: runtime.Runtime) => Promise<void>;
  deviceCount: number;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
let runtimeUrl: string | null = null;

/** A module URL whose exports are this page's runtime (made once). */
export function runtimeModuleUrl(): string {
  if (runtimeUrl) return runtimeUrl;
  (globalThis as { __jaxtsRuntime?: typeof runtime }).__jaxtsRuntime = runtime;
  const lines = Object.keys(runtime)
    .filter((k) => IDENT.test(k) && k !== 'default')
    .map((k) => `export const ${k} = r.${k};`);
  runtimeUrl = moduleUrl(`const r = globalThis.__jaxtsRuntime;\n${lines.join('\n')}\n`);
  return runtimeUrl;
}

function moduleUrl(text: string): string {
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

/**
 * Compile Python source to JS modules importing the page's runtime; throws
 * CompileError. The host module carries its source map, so the browser's
 * devtools show (and step through) the Python lines.
 */
export function compileSource(source: string, file: string): { program: CompiledProgram; result: CompileResult } {
  const r = compile(source, { file, flavor: 'js', runtimeImport: runtimeModuleUrl() });
  const host = `${r.host}${r.host.endsWith('\n') ? '' : '\n'}${inlineSourceMapComment(r.hostMap)}\n`;
  return { program: { host, kernels: r.kernels, baseName: r.baseName }, result: r };
}

/**
 * Import a compiled program: the kernels module first, then the host with its
 * import of it redirected. `url` is the host module's URL, as stack traces name it.
 */
export async function loadProgram(p: CompiledProgram): Promise<{ module: ProgramModule; url: string }> {
  const kernelsUrl = moduleUrl(p.kernels);
  const spec = `./${p.baseName}.kernels.js`;
  const host = p.host.split(`'${spec}'`).join(`'${kernelsUrl}'`).split(`"${spec}"`).join(`"${kernelsUrl}"`);
  const hostUrl = moduleUrl(host);
  try {
    return { module: (await import(hostUrl)) as ProgramModule, url: hostUrl };
  } finally {
    URL.revokeObjectURL(hostUrl);
    URL.revokeObjectURL(kernelsUrl);
  }
}

let gpuBackend: Promise<runtime.WebGpuBackend | null> | null = null;

/** The worker's WebGPU backend, made once (a GPUDevice per run would be slow); null without an adapter. */
function webGpuBackend(): Promise<runtime.WebGpuBackend | null> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) return Promise.resolve(null);
  gpuBackend ??= runtime.createWebGpuBackend(gpu).then(
    (b) => {
      void b?.gpu.lost.then(() => (gpuBackend = null));
      return b;
    },
    () => null,
  );
  return gpuBackend;
}

/** After a failed run the device may hold errors or lost state: the next run starts a fresh one. */
export function resetWebGpu(): void {
  const old = gpuBackend;
  gpuBackend = null;
  void old?.then((b) => b?.gpu.destroy());
}

/** A runtime on the chosen backend ('auto': WebGPU when an adapter exists, else the CPU backend). */
export async function makeRuntime(choice: BackendChoice, devices: number, write: (text: string) => void): Promise<runtime.Runtime> {
  const gpu = choice === 'cpu' ? null : await webGpuBackend();
  if (!gpu && choice === 'webgpu') throw new Error('no WebGPU adapter is available in this browser (choose the CPU backend)');
  return new runtime.Runtime(gpu ?? new runtime.CpuBackend(), { devices, write });
}
