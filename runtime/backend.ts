// The interface both backends implement: per-device buffers, uploads,
// readbacks, and running a program's steps on a set of devices. Buffers
// never change once made, so a backend may share memory between them (the
// WebGPU backend's buffers are views into stacked GPU buffers). Memory is
// reference counted: every buffer handle a backend returns holds one
// reference to its memory until `release`; memory no handle holds goes back
// to a pool of its size for reuse (a handle that is never released is freed
// when it is garbage-collected).
import type { DType, ProgramSpec } from './program.js';

/** An opaque device buffer; `device` is the simulated device that owns it. */
export interface DeviceBuffer {
  readonly device: number;
  readonly dtype: DType;
  readonly size: number; // elements
}

/** Device memory in bytes: held by unreleased buffers (now, and at most since the backend was made), and kept in the pool for reuse. */
export interface MemoryStats {
  liveBytes: number;
  peakLiveBytes: number;
  pooledBytes: number;
}

export interface Backend {
  readonly kind: 'webgpu' | 'cpu';
  /** A human-readable adapter description. */
  readonly description: string;
  upload(device: number, dtype: DType, data: Float32Array | Int32Array | Uint32Array | Float64Array): DeviceBuffer;
  /**
   * `parts[d]` uploaded to `devices[d]`, for each d (on WebGPU one stacked buffer, so a run binds them without
   * copies). The parts are the backend's after the call (the CPU backend keeps them as the buffers): the caller
   * makes them for the upload and neither reads nor writes them again.
   */
  uploadStacked(devices: number[], dtype: DType, parts: (Float32Array | Int32Array | Uint32Array | Float64Array)[]): DeviceBuffer[];
  /** `count` elements of `src` from `srcOffset`, as a buffer on `device` (a view of the same memory where the backend can). */
  copy(src: DeviceBuffer, device: number, srcOffset?: number, count?: number): DeviceBuffer;
  /** Concatenate buffers (in order) into one new buffer on `device`. */
  concat(parts: DeviceBuffer[], device: number): DeviceBuffer;
  read(buf: DeviceBuffer): Promise<Float32Array | Int32Array | Uint32Array | Float64Array>;
  /** The same without waiting, where the backend's buffers are host memory (the CPU backend); WebGPU has none. */
  readSync?(buf: DeviceBuffer): Float32Array | Int32Array | Uint32Array | Float64Array;
  /** A second handle on `buf`'s memory, with a reference of its own. */
  share(buf: DeviceBuffer): DeviceBuffer;
  /** Give up `buf`'s reference (once per handle; later calls do nothing); memory no handle holds is reused. */
  release(buf: DeviceBuffer): void;
  memory(): MemoryStats;
  /**
   * Run `program` once per device in `devices`; `args[d]` are device d's
   * parameter buffers. Returns each device's result buffers (a result that
   * is a parameter is the parameter's handle itself). `inLoop`: a
   * call from a control-flow loop (runtime/control.ts), not a new iteration
   * of a host loop.
   */
  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][], inLoop?: boolean): DeviceBuffer[][];
  /** Hand the device the work queued so far (the WebGPU backend batches a host-loop iteration's calls into one submission). */
  submit(): void;
  /** Wait until submitted work is done (and report device errors). */
  sync(): Promise<void>;
}
