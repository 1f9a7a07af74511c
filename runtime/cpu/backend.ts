// The CPU backend: buffers are typed arrays and kernels are the generated JS
// loops. Simulated devices each own their arrays. Memory is counted as on
// WebGPU: a store counts the handles on it, and once all are released its
// ArrayBuffer goes to a pool keyed by size for the next allocation.
import type { Backend, DeviceBuffer, MemoryStats } from '../backend.js';
import type { BufRef, CpuBuffer, DType, ProgramSpec } from '../program.js';
import { newCpuBuffer } from '../program.js';
import { isWide, laneOf } from '../dtypes.js';

/** Typed-array memory shared by the handles on it. */
class Store {
  refs = 0;
  constructor(readonly data: CpuBuffer) {}
}

/** The safety net: stores collected before their handles were released leave the count. */
const reclaim = new FinalizationRegistry<{ bytes: number; stats: MemoryStats }>(({ bytes, stats }) => {
  stats.liveBytes -= bytes;
});

/** The most bytes the pool of released memory keeps for reuse. */
const POOL_CAP = 256 * 2 ** 20;

export class CpuDeviceBuffer implements DeviceBuffer {
  released = false;
  constructor(
    readonly device: number,
    readonly dtype: DType,
    readonly store: Store,
  ) {
    store.refs++;
  }
  get data(): CpuBuffer {
    return this.store.data;
  }
  get size(): number {
    return this.store.data.length;
  }
}

const cpu = (b: DeviceBuffer): CpuDeviceBuffer => b as CpuDeviceBuffer;

/** A typed array of `dtype` over pooled memory (newCpuBuffer's choice of array type). */
const view = (dtype: DType, b: ArrayBuffer): CpuBuffer => {
  const lane = laneOf(dtype);
  return lane === 'float32' || lane === 'complex64' ? new Float32Array(b) : lane === 'int32' ? new Int32Array(b) : lane === 'float64' || lane === 'int64' ? new Float64Array(b) : new Uint32Array(b);
};

export class CpuBackend implements Backend {
  readonly kind = 'cpu' as const;
  readonly description = 'JavaScript CPU backend';
  private readonly stats: MemoryStats = { liveBytes: 0, peakLiveBytes: 0, pooledBytes: 0 };
  /** Released memory by size in bytes. */
  private free = new Map<number, ArrayBuffer[]>();

  /** A store of `size` elements: pooled memory (zeroed when `zero`) or new. */
  private store(dtype: DType, size: number, zero: boolean): Store {
    const bytes = size * (isWide(dtype) ? 8 : 4);
    const pooled = bytes ? this.free.get(bytes)?.pop() : undefined;
    let data: CpuBuffer;
    if (pooled) {
      this.stats.pooledBytes -= bytes;
      data = view(dtype, pooled);
      if (zero) data.fill(0);
    } else {
      data = newCpuBuffer(dtype, size);
    }
    return this.adopt(data);
  }

  /** A store on `data` itself (a whole ArrayBuffer, as `store` and the pool keep them), counted as live. */
  private adopt(data: CpuBuffer): Store {
    const bytes = data.byteLength;
    const s = new Store(data);
    this.stats.liveBytes += bytes;
    this.stats.peakLiveBytes = Math.max(this.stats.peakLiveBytes, this.stats.liveBytes);
    reclaim.register(s, { bytes, stats: this.stats }, s);
    return s;
  }

  private freeStore(s: Store): void {
    reclaim.unregister(s);
    const bytes = s.data.byteLength;
    this.stats.liveBytes -= bytes;
    if (!bytes || this.stats.pooledBytes + bytes > POOL_CAP) return;
    this.stats.pooledBytes += bytes;
    const list = this.free.get(bytes);
    if (list) list.push(s.data.buffer as ArrayBuffer);
    else this.free.set(bytes, [s.data.buffer as ArrayBuffer]);
  }

  upload(device: number, dtype: DType, data: CpuBuffer): DeviceBuffer {
    const s = this.store(dtype, data.length, false);
    s.data.set(data);
    return new CpuDeviceBuffer(device, dtype, s);
  }

  /**
   * The parts are made for the upload (Backend.uploadStacked): each whole typed array of the dtype's lane
   * becomes the device's buffer as it is, with no copy (a sharded device_put of a large array copied it twice).
   */
  uploadStacked(devices: number[], dtype: DType, parts: CpuBuffer[]): DeviceBuffer[] {
    const lane = newCpuBuffer(dtype, 0).constructor;
    return devices.map((d, i) => {
      const part = parts[i]!;
      const whole = part.constructor === lane && part.byteOffset === 0 && part.byteLength === part.buffer.byteLength && part.byteLength > 0;
      return whole ? new CpuDeviceBuffer(d, dtype, this.adopt(part)) : this.upload(d, dtype, part);
    });
  }

  copy(src: DeviceBuffer, device: number, srcOffset = 0, count = src.size - srcOffset): DeviceBuffer {
    const s = cpu(src);
    return this.upload(device, s.dtype, s.data.subarray(srcOffset, srcOffset + count));
  }

  concat(parts: DeviceBuffer[], device: number): DeviceBuffer {
    const total = parts.reduce((n, p) => n + p.size, 0);
    const out = this.store(parts[0]!.dtype, total, false);
    let off = 0;
    for (const p of parts) {
      out.data.set(cpu(p).data, off);
      off += p.size;
    }
    return new CpuDeviceBuffer(device, parts[0]!.dtype, out);
  }

  async read(buf: DeviceBuffer): Promise<CpuBuffer> {
    return cpu(buf).data.slice();
  }

  readSync(buf: DeviceBuffer): CpuBuffer {
    return cpu(buf).data.slice();
  }

  share(buf: DeviceBuffer): DeviceBuffer {
    const b = cpu(buf);
    if (b.released) throw new Error('internal: a released buffer was shared');
    return new CpuDeviceBuffer(b.device, b.dtype, b.store);
  }

  release(buf: DeviceBuffer): void {
    const b = cpu(buf);
    if (b.released) return;
    b.released = true;
    if (--b.store.refs === 0) this.freeStore(b.store);
  }

  memory(): MemoryStats {
    return { ...this.stats };
  }

  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][]): DeviceBuffer[][] {
    const stores = devices.map(() => program.buffers.map((b) => this.store(b.dtype, b.size, true)));
    const temps = stores.map((ss) => ss.map((s) => s.data));
    const arr = (d: number, r: BufRef): CpuBuffer =>
      r.kind === 'param' ? cpu(args[d]![r.index]!).data : temps[d]![r.index]!;
    for (const step of program.steps) {
      if (step.kind === 'kernel') {
        const k = program.kernels[step.kernel]!;
        // a kernel's device index is the device's position in this run (its mesh position)
        // the inputs array is built by push, so that its elements kind (its map) is the same whether this
        // loop runs interpreted or optimized (Array.prototype.map's result differs between the two, and
        // every kernel's optimized code, which destructures it, was thrown away at the change)
        for (let d = 0; d < devices.length; d++) {
          const ins: CpuBuffer[] = [];
          for (const r of step.inputs) ins.push(arr(d, r));
          k.cpu(ins, temps[d]![step.output]!, d);
        }
      } else if (step.kind === 'gather') {
        const groups = step.groups ?? [devices.map((_, d) => d)];
        for (const g of groups) {
          const ins = g.map((d) => arr(d, step.input));
          for (const d of g) ins.forEach((x, k) => temps[d]![step.output]!.set(x, k * x.length));
        }
      } else {
        throw new Error(`internal: ${program.name}: a ${step.kind} step in a straight-line program (runtime/control.ts runs it)`);
      }
    }
    const outs = devices.map((dev, d) =>
      program.results.map((r) => {
        if (r.kind === 'param') return args[d]![r.index]!;
        return new CpuDeviceBuffer(dev, program.buffers[r.index]!.dtype, stores[d]![r.index]!);
      }),
    );
    // the temporaries no result holds go back to the pool now: the kernels have run
    stores.flat().forEach((s) => {
      if (!s.refs) this.freeStore(s);
    });
    return outs;
  }

  /** Kernels run as they are called: nothing is queued. */
  submit(): void {}

  async sync(): Promise<void> {}
}
