// The interface both backends implement: per-device buffers, uploads,
// readbacks, and running a program's steps on a set of devices.
import type { DType, ProgramSpec } from './program.js';

/** An opaque device buffer; `device` is the simulated device that owns it. */
export interface DeviceBuffer {
  readonly device: number;
  readonly dtype: DType;
  readonly size: number; // elements
}

export interface Backend {
  readonly kind: 'webgpu' | 'cpu';
  /** A human-readable adapter description. */
  readonly description: string;
  upload(device: number, dtype: DType, data: Float32Array | Int32Array | Uint32Array): DeviceBuffer;
  /** A copy of `count` elements from `src` at `srcOffset` into a new buffer on `device`. */
  copy(src: DeviceBuffer, device: number, srcOffset?: number, count?: number): DeviceBuffer;
  /** Concatenate buffers (in order) into one new buffer on `device`. */
  concat(parts: DeviceBuffer[], device: number): DeviceBuffer;
  read(buf: DeviceBuffer): Promise<Float32Array | Int32Array | Uint32Array>;
  /**
   * Run `program` once per device in `devices`; `args[d]` are device d's
   * parameter buffers. Returns each device's result buffers.
   */
  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][]): DeviceBuffer[][];
  /** Wait until submitted work is done (and report device errors). */
  sync(): Promise<void>;
}
