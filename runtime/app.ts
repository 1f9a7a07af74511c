// What compiled modules and applications use around `main()` and the exported
// functions: creating a runtime anywhere (a page's navigator.gpu, else the
// CPU backend), the module-wide default runtime, host-made arrays, and the
// checks an exported function makes on the arrays an application passes it.
import type { Backend } from './backend.js';
import { CpuBackend } from './cpu/backend.js';
import { shapeRepr } from './format/index.js';
import type { CpuBuffer, DType } from './program.js';
import { newCpuBuffer } from './program.js';
import { JArray, Runtime } from './runtime.js';
import { createWebGpuBackend } from './webgpu/backend.js';

export interface CreateRuntimeOptions {
  /** Simulated devices (default 4, as the lessons force with XLA_FLAGS). */
  devices?: number;
  /** 'auto' (default): WebGPU when an adapter is available, else the CPU backend. */
  backend?: 'auto' | 'webgpu' | 'cpu';
  /** The WebGPU entry point; default `navigator.gpu`. */
  gpu?: GPU;
  /** Where printed text goes; default console.log, one call per printed line. */
  write?: (text: string) => void;
}

/** A runtime for a page, a worker, or any JS host with `navigator.gpu` (Node: see jaxts/node). */
export async function createRuntime(opts: CreateRuntimeOptions = {}): Promise<Runtime> {
  let backend: Backend | null = null;
  const gpu = opts.gpu ?? (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;
  if (opts.backend !== 'cpu' && gpu) backend = await createWebGpuBackend(gpu);
  if (!backend && opts.backend === 'webgpu') throw new Error('no WebGPU adapter is available (use backend: "cpu")');
  return new Runtime(backend ?? new CpuBackend(), { devices: opts.devices ?? 4, write: opts.write ?? consoleLines() });
}

/** Printed text to console.log, a line at a time (Python's print may end a line in a later call). */
function consoleLines(): (text: string) => void {
  let pending = '';
  return (text) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop()!;
    for (const l of lines) console.log(l);
  };
}

let current: Promise<Runtime> | null = null;

/**
 * The runtime compiled modules run on. `main(rt)` makes `rt` the default for
 * the exported functions called after it; without one, the first call
 * creates a runtime with `createRuntime()`, with at least `devices` devices.
 */
export async function runtime(devices: number, given?: Runtime, cpuOnly?: string): Promise<Runtime> {
  if (cpuOnly !== undefined && given?.backend.kind === 'webgpu') throw new Error(cpuOnlyMessage(cpuOnly));
  if (given) {
    current = Promise.resolve(given);
    return given;
  }
  if (current && (await current).devices().length >= devices) return current;
  if (cpuOnly !== undefined && current && (await current).backend.kind === 'webgpu') current = null;
  current = createRuntime({ devices, backend: cpuOnly !== undefined ? 'cpu' : 'auto' });
  return current;
}

/** The error for a program on 64-bit values given a WebGPU runtime. */
export const cpuOnlyMessage = (why: string): string => `the program runs on the CPU backend only: ${why}; WGSL has no float64 or int64 (use the CPU backend)`;

type Nested = number | boolean | readonly Nested[];

/**
 * An array made on the host: `array([[1, 2], [3, 4]])`, or a typed array with
 * its shape. The dtype follows NumPy's choice for the values (float32 for
 * floats, JAX's default), unless given.
 */
export function array(values: Nested | CpuBuffer, shape?: readonly number[], dtype?: DType): JArray {
  if (ArrayBuffer.isView(values)) {
    const dt: DType = dtype ?? (values instanceof Int32Array ? 'int32' : values instanceof Uint32Array ? 'uint32' : 'float32');
    const data = newCpuBuffer(dt, values.length);
    data.set(values);
    const s = shape ?? [values.length];
    if (s.reduce((a, b) => a * b, 1) !== values.length) throw new Error(`ValueError: cannot reshape array of size ${values.length} into shape (${s.join(', ')})`);
    return JArray.fromHost(s, dt, data);
  }
  const inferred: number[] = [];
  for (let v: Nested = values; Array.isArray(v); v = (v as readonly Nested[])[0]!) inferred.push((v as readonly Nested[]).length);
  const flat: number[] = [];
  let floats = false;
  const walk = (v: Nested, d: number): void => {
    if (Array.isArray(v)) {
      if (v.length !== inferred[d]) throw new Error('ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape');
      for (const x of v as readonly Nested[]) walk(x, d + 1);
    } else {
      if (d !== inferred.length) throw new Error('ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape');
      const n = Number(v);
      if (typeof v === 'number' && !Number.isInteger(n)) floats = true;
      flat.push(n);
    }
  };
  walk(values as Nested, 0);
  return array(newCpuBuffer(dtype ?? (floats ? 'float32' : 'int32'), flat.length).map((_, i) => flat[i]!) as CpuBuffer, shape ?? inferred, dtype ?? (floats ? 'float32' : 'int32'));
}

const isArray = (x: unknown): x is JArray => typeof x === 'object' && x !== null && 'shape' in x && 'dtype' in x && typeof (x as JArray).data === 'function';


/**
 * An argument of an exported function: `x` must be an array of the shape and
 * dtype the function was compiled for (a number for a 0-d array); it comes
 * back on `rt`'s devices.
 */
export async function arg(rt: Runtime, x: unknown, shape: readonly number[], dtype: DType, path: string, fn: string): Promise<JArray> {
  if (typeof x === 'number' || typeof x === 'boolean') x = array(x as number, [], dtype);
  // structural, not instanceof: an application may bundle its own copy of this module
  if (!isArray(x)) throw new TypeError(`${fn}(): ${path} must be an Array (jaxts/runtime's array()), got ${x === null ? 'null' : typeof x}`);
  if (x.dtype !== dtype || x.shape.length !== shape.length || x.shape.some((n, i) => n !== shape[i])) {
    throw new TypeError(
      `${fn}(): ${path} must be a ${dtype} array of shape ${shapeRepr(shape)}, as the script calls it, got a ${x.dtype} array of shape ${shapeRepr(x.shape)}; ` +
        `jaxts compiles each function for the shapes the script passes it`,
    );
  }
  return rt.adopt(x);
}

/** An argument the function was compiled for as a Python constant: the caller must pass that value. */
export function staticArg<T extends number | string | boolean | null>(x: unknown, expected: T, path: string, fn: string): T {
  if (x !== expected && !(typeof expected === 'number' && typeof x === 'number' && Object.is(x, expected))) {
    throw new TypeError(`${fn}(): ${path} was ${JSON.stringify(expected)} when the program was compiled and is fixed at that value, got ${JSON.stringify(x)}`);
  }
  return expected;
}

/** A value of the script's run (a global an exported function reads): present once main() has finished. */
export function fromMain<T>(value: T | undefined, name: string, fn: string): T {
  if (value === undefined) throw new Error(`${fn}() reads ${name}, which the script computes: await main() before calling it`);
  return value;
}
