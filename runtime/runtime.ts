// The runtime object generated code talks to: simulated devices, arrays and
// their placement (one device, or sharded along an axis across devices),
// program calls (single device and pmap), and the output sink.
import type { Backend, DeviceBuffer } from './backend.js';
import type { CpuBuffer, DType, ProgramSpec } from './program.js';
import { newCpuBuffer } from './program.js';

export interface Device {
  readonly id: number;
  readonly platform: 'cpu' | 'webgpu';
}

/** A device array: global shape and dtype, stored whole on one device or in shards. */
export class JArray {
  constructor(
    readonly rt: Runtime,
    readonly shape: readonly number[],
    readonly dtype: DType,
    /** One buffer per device holding it; a single buffer when not sharded. */
    readonly shards: readonly DeviceBuffer[],
    /** The axis split across `shards`, or null when `shards[0]` holds the whole array. */
    readonly shardAxis: number | null,
  ) {}

  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** The elements in row-major order (a readback). */
  async data(): Promise<CpuBuffer> {
    if (this.shardAxis === null) return this.rt.backend.read(this.shards[0]!);
    const parts = await Promise.all(this.shards.map((s) => this.rt.backend.read(s)));
    return stackAlong(parts, this.shape, this.shardAxis, this.dtype);
  }
}

/** Interleave per-device parts (each the global shape without `axis`) into the global array. */
function stackAlong(parts: CpuBuffer[], shape: readonly number[], axis: number, dtype: DType): CpuBuffer {
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = parts.length;
  const out = newCpuBuffer(dtype, outer * n * inner);
  for (let o = 0; o < outer; o++) {
    for (let d = 0; d < n; d++) out.set(parts[d]!.subarray(o * inner, (o + 1) * inner), (o * n + d) * inner);
  }
  return out;
}

/** The slice at index d of `axis`, for each d: the inverse of stackAlong. */
function unstackAlong(data: CpuBuffer, shape: readonly number[], axis: number, dtype: DType): CpuBuffer[] {
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = shape[axis]!;
  return Array.from({ length: n }, (_, d) => {
    const part = newCpuBuffer(dtype, outer * inner);
    for (let o = 0; o < outer; o++) part.set(data.subarray((o * n + d) * inner, (o * n + d + 1) * inner), o * inner);
    return part;
  });
}

export interface RuntimeOptions {
  devices: number;
  /** Where printed text goes; process.stdout in Node, a page element in a browser. */
  write: (text: string) => void;
}

export class Runtime {
  readonly deviceList: Device[];

  constructor(
    readonly backend: Backend,
    readonly options: RuntimeOptions,
  ) {
    this.deviceList = Array.from({ length: options.devices }, (_, id) => ({ id, platform: backend.kind }));
  }

  devices(): Device[] {
    return this.deviceList;
  }

  /** repr(device): JAX's `CpuDevice(id=0)`; a WebGPU device prints as `WebGpuDevice(id=0)`. */
  deviceRepr(id: number): string {
    return `${this.backend.kind === 'cpu' ? 'CpuDevice' : 'WebGpuDevice'}(id=${id})`;
  }

  /** str(device): `cpu:0` or `webgpu:0`. */
  deviceStr(id: number): string {
    return `${this.backend.kind}:${id}`;
  }

  /** Python's print: the caller has already joined the arguments. */
  print(text: string): void {
    this.options.write(text);
  }

  /** An array with known contents, placed on device 0. */
  constant(shape: readonly number[], dtype: DType, values: ArrayLike<number>): JArray {
    const data = newCpuBuffer(dtype, values.length);
    data.set(values);
    return new JArray(this, shape, dtype, [this.backend.upload(0, dtype, data)], null);
  }

  /** The whole array in one buffer on `device` (gathering shards if needed). */
  private async whole(x: JArray, device: number): Promise<DeviceBuffer> {
    if (x.shardAxis === null) {
      const b = x.shards[0]!;
      return b.device === device ? b : this.backend.copy(b, device);
    }
    if (x.shardAxis === 0) return this.backend.concat([...x.shards], device);
    return this.backend.upload(device, x.dtype, await x.data());
  }

  /** Run a single-device program (jit, host segment) on device 0. */
  async call(program: ProgramSpec, args: JArray[]): Promise<JArray[]> {
    const bufs = await Promise.all(args.map((a) => this.whole(a, 0)));
    const [outs] = this.backend.run(program, [0], [bufs]);
    return outs!.map((b, i) => new JArray(this, program.resultShapes[i]!, b.dtype, [b], null));
  }

  /**
   * Run a per-device program under pmap over `axisSize` devices. `inAxes[i]`
   * is the mapped axis of argument i (null: replicated); `outAxes[j]` is
   * where result j's device axis goes.
   */
  async pmap(
    program: ProgramSpec,
    args: JArray[],
    inAxes: (number | null)[],
    outAxes: number[],
    axisSize: number,
  ): Promise<JArray[]> {
    if (axisSize > this.deviceList.length) {
      throw new Error(`compiling computation that requires ${axisSize} logical devices, but only ${this.deviceList.length} XLA devices are available (num_replicas=${axisSize})`);
    }
    const devices = Array.from({ length: axisSize }, (_, d) => d);
    const perDevice: DeviceBuffer[][] = devices.map(() => []);
    for (let i = 0; i < args.length; i++) {
      const shards = await this.shardsFor(args[i]!, inAxes[i] ?? null, axisSize);
      shards.forEach((s, d) => perDevice[d]!.push(s));
    }
    const outs = this.backend.run(program, devices, perDevice);
    return program.results.map((_, j) => {
      const local = program.resultShapes[j]!;
      const axis = outAxes[j]!;
      const shape = [...local.slice(0, axis), axisSize, ...local.slice(axis)];
      return new JArray(this, shape, outs[0]![j]!.dtype, devices.map((d) => outs[d]![j]!), axis);
    });
  }

  /** Device d's buffer for one pmap argument. */
  private async shardsFor(x: JArray, axis: number | null, n: number): Promise<DeviceBuffer[]> {
    if (axis === null) {
      const src = await this.whole(x, 0);
      return Array.from({ length: n }, (_, d) => (d === 0 ? src : this.backend.copy(src, d)));
    }
    if (x.shardAxis === axis && x.shards.length === n && x.shards.every((s, d) => s.device === d)) return [...x.shards];
    if (axis === 0) {
      const src = await this.whole(x, 0);
      const chunk = x.size / n;
      return Array.from({ length: n }, (_, d) => this.backend.copy(src, d, d * chunk, chunk));
    }
    const parts = unstackAlong(await x.data(), x.shape, axis, x.dtype);
    return parts.map((p, d) => this.backend.upload(d, x.dtype, p));
  }

  async sync(): Promise<void> {
    await this.backend.sync();
  }
}
