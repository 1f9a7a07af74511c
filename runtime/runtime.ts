// The runtime object generated code talks to: simulated devices, arrays and
// their placement (one device; stacked along an axis across devices, as pmap
// leaves them; or laid out over a device mesh, as NamedSharding places them),
// program calls (single device, pmap, SPMD over a mesh), and the output sink.
import type { Backend, DeviceBuffer, MemoryStats } from './backend.js';
import { ownResults, runProgram } from './control.js';
import { jaxStr, setPrintOptions, shapeRepr } from './format/index.js';
import type { CpuBuffer, DType, ProgramSpec } from './program.js';
import { newCpuBuffer } from './program.js';

/** An error a Python program raises at run time; `line` (1-based) is where in the Python source, when the runtime knows. */
export class PythonError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
    /** The traceback's frames (CPython's text, one entry per frame, outermost first), when known. */
    readonly frames: readonly string[] | null = null,
  ) {
    super(message);
  }
}

export interface Device {
  readonly id: number;
  readonly platform: 'cpu' | 'webgpu';
}

/**
 * An array's placement on a device mesh (a NamedSharding): the device at each
 * mesh position (row-major, mesh axis 0 slowest), the mesh's axis sizes, and
 * for each array dimension the mesh axes (indices) that split it, major to
 * minor. The device at position p holds the block its coordinates select;
 * axes that split no dimension replicate the array.
 */
export interface Layout {
  readonly devices: readonly number[];
  readonly mesh: readonly number[];
  readonly dims: readonly (readonly number[])[];
}

/**
 * A device array: global shape and dtype, stored whole on one device or in
 * shards. Applications see it as jaxts/runtime's `Array`: `shape`, `dtype`,
 * `await data()`, and `toString()` printing as NumPy prints the value.
 *
 * Device memory is reference counted. Whoever receives an array from the
 * runtime or from a compiled function (an exported function's results,
 * main()'s values) owns one reference and gives it up with `release()`: the
 * memory is reused at once, so a loop that calls a compiled function and
 * releases the results it drops runs in flat memory. `retain()` takes one
 * more reference. An array that is never released is freed only when it is
 * garbage-collected, which may be long after (GPU memory does not prompt a
 * collection). Generated code releases its own arrays after their last use.
 */
export class JArray {
  /** The elements once read back (arrays never change, so one readback serves every later read). */
  private host: CpuBuffer | null = null;
  /** References held; the device buffers are released when it reaches 0. */
  private refs = 1;

  constructor(
    /** The runtime whose devices hold the shards; null for an array made on the host (`array()`), not yet on a device. */
    readonly rt: Runtime | null,
    readonly shape: readonly number[],
    readonly dtype: DType,
    /** One buffer per device holding it (per mesh position with a layout); a single buffer when not sharded. */
    readonly shards: readonly DeviceBuffer[],
    /** The axis split across `shards` (pmap's stacking), or null. */
    readonly shardAxis: number | null,
    /** The mesh layout, when `shards` are the blocks of a NamedSharding (then shardAxis is null). */
    readonly layout: Layout | null = null,
  ) {}

  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  get ndim(): number {
    return this.shape.length;
  }

  /** An array made on the host from its elements (row-major); a runtime uploads it when a program first takes it. */
  static fromHost(shape: readonly number[], dtype: DType, data: CpuBuffer): JArray {
    const a = new JArray(null, shape, dtype, [], null);
    a.host = data;
    return a;
  }

  /** The elements in row-major order (a readback the first time). */
  async data(): Promise<CpuBuffer> {
    if (!this.host) {
      this.checkLive();
      const rt = this.rt!;
      const wanted = this.shardsToRead();
      const parts = await Promise.all(wanted.map((i) => rt.backend.read(this.shards[i]!)));
      this.host ??= this.assemble(new Map(wanted.map((i, k) => [i, parts[k]!])));
    }
    return this.host;
  }

  /**
   * The elements without waiting, where that is possible: on the CPU backend
   * (its buffers are host memory), for arrays made on the host, and after
   * `await data()`. An array on WebGPU must be read back with `await data()`
   * first; before that this throws.
   */
  dataSync(): CpuBuffer {
    if (this.host) return this.host;
    this.checkLive();
    const backend = this.rt!.backend;
    if (!backend.readSync) throw new Error(`dataSync(): this array is on ${backend.kind === 'webgpu' ? 'WebGPU' : backend.kind}, which reads back asynchronously: \`await x.data()\` first`);
    const read = backend.readSync.bind(backend);
    this.host = this.assemble(new Map(this.shardsToRead().map((i) => [i, read(this.shards[i]!)])));
    return this.host;
  }

  /** Whether every reference was released (the device memory is gone; a value read back before stays readable). */
  get released(): boolean {
    return this.refs <= 0;
  }

  /** One more reference to this array (each `retain()` is balanced by a `release()`); returns the array. */
  retain(): this {
    this.checkLive();
    this.refs++;
    return this;
  }

  /** Give up one reference; with the last one the device memory goes back to the runtime for reuse. Extra calls do nothing. */
  release(): void {
    if (this.refs <= 0 || --this.refs > 0 || !this.rt) return;
    for (const s of this.shards) this.rt.backend.release(s);
    this.rt.forget(this);
  }

  /** Throw if the device memory was released (a use after release()). */
  checkLive(): void {
    if (this.refs <= 0) throw new Error('an array was used after its last reference was released (JArray.release())');
  }

  /**
   * str(x) as NumPy prints it. On WebGPU the values must be on the host first
   * (`await x.data()`); before that this is a placeholder naming the shape and
   * dtype. On the CPU backend, and for arrays made on the host, it is always the values.
   */
  toString(): string {
    if (!this.host && this.rt?.backend.readSync) this.dataSync();
    if (!this.host) return `Array(shape=${shapeRepr(this.shape)}, dtype=${this.dtype}) on the device; await .data() before printing`;
    return jaxStr({ dtype: this.dtype, shape: this.shape, data: this.host });
  }

  /** The shards a readback needs: one of a replicated array, one per distinct block of a laid-out one, all of a stacked one. */
  private shardsToRead(): number[] {
    const { layout } = this;
    if (layout) {
      if (isReplicated(layout)) return [0];
      const seen = new Set<string>();
      return layout.devices.map((_, p) => p).filter((p) => {
        const key = blockOf(layout, this.shape, p).start.join(',');
        return seen.has(key) ? false : (seen.add(key), true);
      });
    }
    return this.shardAxis === null ? [0] : this.shards.map((_, i) => i);
  }

  /** The whole array from the shards shardsToRead() named, read back. */
  private assemble(parts: Map<number, CpuBuffer>): CpuBuffer {
    const { layout } = this;
    if (layout && !isReplicated(layout)) {
      const out = newCpuBuffer(this.dtype, this.size);
      for (const [p, part] of parts) {
        const block = blockOf(layout, this.shape, p);
        copyBlock(part, block.size, out, this.shape, block.start, true);
      }
      return out;
    }
    if (layout || this.shardAxis === null) return parts.get(0)!;
    return stackAlong([...parts.values()], this.shape, this.shardAxis, this.dtype);
  }
}

const isReplicated = (l: Layout): boolean => l.dims.every((d) => d.length === 0);

const sameLayout = (a: Layout, b: Layout): boolean =>
  a.devices.length === b.devices.length && a.devices.every((d, i) => d === b.devices[i]) &&
  a.mesh.length === b.mesh.length && a.mesh.every((s, i) => s === b.mesh[i]) &&
  a.dims.length === b.dims.length && a.dims.every((d, i) => d.length === b.dims[i]!.length && d.every((x, j) => x === b.dims[i]![j]));

/** The block of an array of `shape` held at mesh position `p`: its start and size per dimension. */
function blockOf(layout: Layout, shape: readonly number[], p: number): { start: number[]; size: number[] } {
  const coords = layout.mesh.map((s, i) => Math.floor(p / layout.mesh.slice(i + 1).reduce((a, b) => a * b, 1)) % s);
  const start: number[] = [];
  const size: number[] = [];
  shape.forEach((n, d) => {
    const axes = layout.dims[d] ?? [];
    const count = axes.reduce((c, a) => c * layout.mesh[a]!, 1);
    const index = axes.reduce((k, a) => k * layout.mesh[a]! + coords[a]!, 0);
    size.push(n / count);
    start.push(index * (n / count));
  });
  return { start, size };
}

/**
 * Copy between a block (row-major, `blockSize`) and the whole array (`shape`)
 * at `start`: into the whole array when `toWhole`, else out of it.
 */
function copyBlock(block: CpuBuffer, blockSize: readonly number[], whole: CpuBuffer, shape: readonly number[], start: readonly number[], toWhole: boolean): void {
  const rank = shape.length;
  const n = blockSize.reduce((a, b) => a * b, 1);
  if (!n) return;
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const inner = rank ? blockSize[rank - 1]! : 1;
  const idx = blockSize.map(() => 0);
  for (let b = 0; b < n; b += inner) {
    let w = 0;
    for (let d = 0; d < rank; d++) w += (start[d]! + idx[d]!) * strides[d]!;
    if (toWhole) whole.set(block.subarray(b, b + inner), w);
    else block.set(whole.subarray(w, w + inner), b);
    for (let d = rank - 2; d >= 0; d--) {
      if (++idx[d]! < blockSize[d]!) break;
      idx[d] = 0;
    }
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
  /** Where text for stderr goes (Python's logging); default console.error, a line at a time. */
  writeErr?: (text: string) => void;
}

export class Runtime {
  readonly deviceList: Device[];
  /** pmap placements made of each array (by mapped axis and device count), kept while the array lives. */
  private placed = new WeakMap<JArray, Map<string, DeviceBuffer[]>>();

  constructor(
    readonly backend: Backend,
    readonly options: RuntimeOptions,
  ) {
    this.deviceList = Array.from({ length: options.devices }, (_, id) => ({ id, platform: backend.kind }));
    // a program starts under NumPy's default print options (np.set_printoptions of an earlier one does not carry over)
    setPrintOptions(null);
  }

  devices(): Device[] {
    return this.deviceList;
  }

  /** Device memory in bytes: `liveBytes` held by arrays not yet released (and their placements), `pooledBytes` kept for reuse. */
  memory(): MemoryStats {
    return this.backend.memory();
  }

  /** `x` was released: drop the pmap placements made of it. */
  forget(x: JArray): void {
    for (const shards of this.placed.get(x)?.values() ?? []) shards.forEach((s) => this.backend.release(s));
    this.placed.delete(x);
  }

  /** `outs` as handles the caller owns (control.ts's ownResults). */
  private own(outs: DeviceBuffer[][], inputs: readonly (readonly DeviceBuffer[])[]): DeviceBuffer[][] {
    return ownResults(this.backend, outs, inputs);
  }

  /** repr(device): JAX's `CpuDevice(id=0)`; a WebGPU device prints as `WebGpuDevice(id=0)`. */
  deviceRepr(id: number): string {
    return `${this.backend.kind === 'cpu' ? 'CpuDevice' : 'WebGpuDevice'}(id=${id})`;
  }

  /** str(device): `cpu:0` or `webgpu:0`. */
  deviceStr(id: number): string {
    return `${this.backend.kind}:${id}`;
  }

  /**
   * str() of a value inside an eager shard_map, as JAX shows it: each device's
   * block (`x` stacks them on its leading axis, in mesh order) under
   * `On cpu:0 at mesh coordinates (i,) = (0,):`, one paragraph per device.
   */
  async deviceBlocksStr(x: JArray, ids: readonly number[], coords: readonly string[]): Promise<string> {
    const data = await x.data();
    const shape = x.shape.slice(1);
    const n = shape.reduce((a, b) => a * b, 1);
    return ids
      .map((id, k) => `On ${this.deviceStr(id)} at mesh coordinates ${coords[k]}:\n${jaxStr({ dtype: x.dtype, shape, data: data.slice(k * n, (k + 1) * n) })}\n`)
      .join('\n');
  }

  /** Python's print: the caller has already joined the arguments. */
  print(text: string): void {
    this.options.write(text);
  }

  private errPending = '';

  /** Text Python writes to stderr (logging): `writeErr`, else console.error a line at a time. */
  printErr(text: string): void {
    if (this.options.writeErr) return this.options.writeErr(text);
    const lines = (this.errPending + text).split('\n');
    this.errPending = lines.pop()!;
    for (const l of lines) console.error(l);
  }

  private noted = new Set<string>();

  /** A one-line note about the run on stderr (the console in a browser), once per text. */
  note(text: string): void {
    if (this.noted.has(text)) return;
    this.noted.add(text);
    console.error(text);
  }

  private traced = new Set<string>();

  /**
   * A print that JAX runs while tracing a jit'd function: only the first time
   * a program runs for `key` (the function and its argument signature), as
   * JAX prints only when it traces, not on a cache hit.
   */
  tracePrint(key: string, text: string): void {
    if (this.traced.has(key)) return;
    this.traced.add(key);
    this.options.write(text);
  }

  /** An array with known contents, placed on device 0. */
  constant(shape: readonly number[], dtype: DType, values: ArrayLike<number>): JArray {
    const data = newCpuBuffer(dtype, values.length);
    data.set(values);
    return new JArray(this, shape, dtype, [this.backend.upload(0, dtype, data)], null);
  }

  /** A reference of the caller's own to `x` held by this runtime's devices: arrays made on the host, or by another runtime, are uploaded to device 0. */
  async adopt(x: JArray): Promise<JArray> {
    return x.rt === this ? x.retain() : this.constant(x.shape, x.dtype, await x.data());
  }

  /** A mesh layout (generated code creates each once, at the top of main()). */
  layout(devices: number[], mesh: number[], dims: number[][]): Layout {
    return { devices, mesh, dims };
  }

  /** jax.device_put(x, NamedSharding): a new reference to `x` laid out over the mesh (to `x` itself when it already is). */
  async devicePut(x: JArray, layout: Layout): Promise<JArray> {
    if (x.layout && sameLayout(x.layout, layout)) return x.retain();
    let shards: DeviceBuffer[];
    if (isReplicated(layout)) {
      const src = await this.whole(x, layout.devices[0]!);
      shards = layout.devices.map((d, p) => (p === 0 ? src : this.backend.copy(src, d)));
    } else {
      const data = await x.data();
      const parts = layout.devices.map((_, p) => {
        const block = blockOf(layout, x.shape, p);
        const part = newCpuBuffer(x.dtype, block.size.reduce((a, b) => a * b, 1));
        copyBlock(part, block.size, data, x.shape, block.start, false);
        return part;
      });
      shards = this.backend.uploadStacked([...layout.devices], x.dtype, parts);
    }
    return new JArray(this, x.shape, x.dtype, shards, null, layout);
  }

  /**
   * Run a partitioned (SPMD) program on every device of a mesh: each argument
   * is first laid out as `inLayouts[i]` asks (a no-op when it already is), and
   * result j comes back laid out as `outLayouts[j]`.
   */
  async spmd(program: ProgramSpec, args: JArray[], inLayouts: Layout[], outLayouts: Layout[], shapes: number[][]): Promise<JArray[]> {
    const placed = await Promise.all(args.map((a, i) => this.devicePut(a, inLayouts[i]!)));
    const devices = [...(inLayouts[0] ?? outLayouts[0]!).devices];
    const ins = devices.map((_, p) => placed.map((a) => a.shards[p]!));
    const outs = this.own(await runProgram(this.backend, program, devices, ins), ins);
    placed.forEach((a) => a.release());
    return outLayouts.map((l, j) => new JArray(this, shapes[j]!, outs[0]![j]!.dtype, devices.map((_, p) => outs[p]![j]!), null, l));
  }

  /** x.addressable_shards[p].data: the block the device at mesh position `p` holds, as an array on that device. */
  async shard(x: JArray, p: number): Promise<JArray> {
    if (!x.layout) throw new Error('internal: shard() of an array without a mesh layout');
    x.checkLive();
    const block = blockOf(x.layout, x.shape, p);
    return new JArray(this, block.size, x.dtype, [this.backend.share(x.shards[p]!)], null);
  }

  /** The whole array in one buffer on `device` (gathering shards if needed): a handle the caller releases. */
  private async whole(x: JArray, device: number): Promise<DeviceBuffer> {
    x.checkLive();
    if (x.layout) {
      if (!isReplicated(x.layout)) return this.backend.upload(device, x.dtype, await x.data());
      const b = x.shards[x.layout.devices.indexOf(device)] ?? x.shards[0]!;
      return b.device === device ? this.backend.share(b) : this.backend.copy(b, device);
    }
    if (x.shardAxis === null) {
      const b = x.shards[0]!;
      return b.device === device ? this.backend.share(b) : this.backend.copy(b, device);
    }
    if (x.shardAxis === 0) return this.backend.concat([...x.shards], device);
    return this.backend.upload(device, x.dtype, await x.data());
  }

  /** Run a single-device program (jit, host segment) on device 0. */
  async call(program: ProgramSpec, args: JArray[]): Promise<JArray[]> {
    const bufs = await Promise.all(args.map((a) => this.whole(a, 0)));
    const [outs] = this.own(await runProgram(this.backend, program, [0], [bufs]), [bufs]);
    bufs.forEach((b) => this.backend.release(b));
    return this.checkNans(program, outs!.map((b, i) => new JArray(this, program.resultShapes[i]!, b.dtype, [b], null)));
  }

  /**
   * jax_debug_nans: raise JAX's FloatingPointError for the first checked
   * intermediate that holds a NaN (with the Python line of its primitive and
   * its traceback), after the line JAX prints for each jit it re-runs
   * de-optimized; the caller gets the results before the checked ones.
   */
  private async checkNans(program: ProgramSpec, outs: JArray[]): Promise<JArray[]> {
    const checks = program.nanChecks;
    if (!checks) return outs;
    const n = outs.length - checks.length;
    try {
      for (let i = 0; i < checks.length; i++) {
        if ((await outs[n + i]!.data()).some(Number.isNaN)) {
          outs.slice(0, n).forEach((x) => x.release());
          const check = checks[i]!;
          for (let k = 0; k < (check.deopt ?? 0); k++) this.print('Invalid nan value encountered in the output of a jax.jit function. Calling the de-optimized version.\n');
          throw new PythonError(`FloatingPointError: invalid value (nan) encountered in ${check.prim}`, check.line, check.frames ?? null);
        }
      }
    } finally {
      outs.slice(n).forEach((x) => x.release());
    }
    return outs.slice(0, n);
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
    const outs = this.own(await runProgram(this.backend, program, devices, perDevice), perDevice);
    return this.checkNans(program, program.results.map((_, j) => {
      const local = program.resultShapes[j]!;
      const axis = outAxes[j] ?? 0; // a NaN-checked intermediate (jax_debug_nans) stacks along 0
      const shape = [...local.slice(0, axis), axisSize, ...local.slice(axis)];
      return new JArray(this, shape, outs[0]![j]!.dtype, devices.map((d) => outs[d]![j]!), axis);
    }));
  }

  /** Device d's buffer for one pmap argument. */
  private async shardsFor(x: JArray, axis: number | null, n: number): Promise<DeviceBuffer[]> {
    x.checkLive();
    if (x.shardAxis === axis && x.shards.length === n && x.shards.every((s, d) => s.device === d)) return [...x.shards];
    // arrays never change: an argument the host passes to every step (a dataset) is split over the devices once
    let byPlacement = this.placed.get(x);
    if (!byPlacement) this.placed.set(x, (byPlacement = new Map()));
    const key = `${axis}/${n}`;
    let shards = byPlacement.get(key);
    if (!shards) byPlacement.set(key, (shards = await this.splitFor(x, axis, n)));
    return shards;
  }

  private async splitFor(x: JArray, axis: number | null, n: number): Promise<DeviceBuffer[]> {
    if (axis === null) {
      const src = await this.whole(x, 0);
      return Array.from({ length: n }, (_, d) => (d === 0 ? src : this.backend.copy(src, d)));
    }
    if (axis === 0) {
      const src = await this.whole(x, 0);
      const chunk = x.size / n;
      const parts = Array.from({ length: n }, (_, d) => this.backend.copy(src, d, d * chunk, chunk));
      this.backend.release(src);
      return parts;
    }
    const parts = unstackAlong(await x.data(), x.shape, axis, x.dtype);
    return this.backend.uploadStacked(parts.map((_, d) => d), x.dtype, parts);
  }

  /** Generated code calls this at the start of each iteration of a host loop that runs programs: the previous iteration's device work goes out as one submission. */
  submit(): void {
    this.backend.submit();
  }

  async sync(): Promise<void> {
    await this.backend.sync();
  }
}
