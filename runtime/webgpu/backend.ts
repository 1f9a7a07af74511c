// The WebGPU backend: the simulated devices share one GPUDevice. A program
// call runs all its devices at once: every program buffer is one stacked
// GPUBuffer ([device][size]) and each kernel is one dispatch over every
// device's elements (src/codegen/wgsl.ts: invocation t is element t % size of
// device t / size, which reads input K at device * stride K; stride 0 binds
// one copy that all devices share). Arrays are
// views (GPUBuffer + element offset), so a call's results are the next call's
// stacked arguments as they are; a gather over all devices aliases its input.
// Temporaries, stacked copies of unstacked arguments and bind groups are kept
// per (program, device count); a call's results are new (in one block when
// the call only writes them). A call is one command encoder; its command
// buffer waits to be submitted with the others of the same host-loop
// iteration (see enqueue), so a step is one queue.submit however many
// programs it calls. Readback goes through a staging buffer. A block counts
// the views that hold it; released by all of them, its GPUBuffer goes to a
// pool keyed by size once the work queued so far is submitted (the next
// call of that size reuses it), so a host loop runs in flat memory.
import type { Backend, DeviceBuffer, MemoryStats } from '../backend.js';
import type { BufRef, CpuBuffer, DType, KernelSpec, ProgramSpec } from '../program.js';
import { MAX_WORKGROUPS_X, newCpuBuffer, WORKGROUP_SIZE } from '../program.js';

const USAGE = 0x0080 /* STORAGE */ | 0x0004 /* COPY_SRC */ | 0x0008; /* COPY_DST */
const COMPUTE = 0x4; /* GPUShaderStage.COMPUTE */

/** A kernel's pipeline, and the second pass of a split reduction (KernelSpec.partials). */
interface Pipelines {
  pipeline: GPUComputePipeline;
  finish: GPUComputePipeline | null;
}

/** A GPUBuffer shared by the views into it: back to the pool once every view is released (destroyed if it is collected first). */
class Block {
  /** Views holding it. */
  refs = 0;
  constructor(
    readonly buffer: GPUBuffer,
    readonly bytes: number,
  ) {}
}

/** The safety net: blocks collected before their views were released give their buffers back. */
const reclaim = new FinalizationRegistry<{ buffer: GPUBuffer; bytes: number; stats: MemoryStats }>(({ buffer, bytes, stats }) => {
  stats.liveBytes -= bytes;
  buffer.destroy();
});

/** Pools of collected programs give their buffers back. */
const reclaimPool = new FinalizationRegistry<GPUBuffer[]>((bs) => bs.forEach((b) => b.destroy()));

/** The most bytes the pool of released buffers keeps for reuse; beyond it they are destroyed. */
const POOL_CAP = 256 * 2 ** 20;

/** An array on one simulated device: `size` elements from element `offset` of a block (holding one reference to it until released). */
class GpuDeviceBuffer implements DeviceBuffer {
  released = false;
  constructor(
    readonly device: number,
    readonly dtype: DType,
    readonly size: number,
    readonly block: Block,
    readonly offset: number,
  ) {
    block.refs++;
  }

  get buffer(): GPUBuffer {
    return this.block.buffer;
  }
}

const gpuBuf = (b: DeviceBuffer): GpuDeviceBuffer => b as GpuDeviceBuffer;

/**
 * Where a value lives during a call: device d's copy is `size` elements from
 * element `base + d * stride` of `buffer` (`block` when views may outlive the call).
 */
interface Loc {
  buffer: GPUBuffer;
  block: Block | null;
  base: number;
  stride: number;
  size: number;
}

/** A value a step reads: a parameter, or a physical buffer of the plan; `alias`: the all-device gather of it (stride 0). */
type PlanRef = { kind: 'param' | 'phys'; index: number; alias: boolean };

type PlanStep =
  | { kind: 'kernel'; kernel: KernelSpec; inputs: PlanRef[]; output: number; gx: number; gy: number; finish: [number, number] | null }
  | { kind: 'gather'; input: PlanRef; output: number; groups: number[][]; part: number };

/** A physical stacked buffer: pooled across calls (`temp`), or new each call because a result lives in it. */
interface Phys {
  size: number; // elements per device
  dtype: DType;
  temp: boolean;
  /** A result that the call itself reads gets a block of its own (a buffer may not be read and written in one dispatch). */
  ownBlock: boolean;
  what: string;
}

/**
 * A program's buffer plan for a device count: program buffers become
 * physical buffers (a buffer's successive values share one unless an alias
 * still reads it), gathers over all devices become aliases.
 */
interface Plan {
  phys: Phys[];
  steps: PlanStep[];
  results: PlanRef[];
  /** Parameters that an aliased gather reads: they must be stacked with stride = size. */
  gathered: Set<number>;
  /** Parameters that a result aliases: a stacked copy of them must be new each call. */
  escaping: Set<number>;
}

interface Pool {
  plan: Plan;
  /** The pooled physical buffers (undefined for those of results). */
  temps: (GPUBuffer | undefined)[];
  /** Stacked copies of parameters that were not stacked already (pooled). */
  params: (GPUBuffer | undefined)[];
  /** Per plan step of a split reduction, its scratch buffer of partial results. */
  scratch: (GPUBuffer | undefined)[];
  /** Per plan step, the bind group of the last call and what it bound. */
  bindGroups: ({ key: (GPUBuffer | number)[]; group: GPUBindGroup } | undefined)[];
  /** Everything the pool created, destroyed when the pool is collected. */
  owned: GPUBuffer[];
}

function buildPlan(program: ProgramSpec, n: number): Plan {
  // values: every write of a program buffer (and each buffer's initial value) is a version
  interface Version {
    buf: number;
    def: number;
    lastUse: number;
    /** The version or parameter this one is the all-device gather of. */
    aliasOf: { kind: 'version'; v: Version } | { kind: 'param'; index: number } | null;
    result: boolean;
    read: boolean;
    phys: number;
  }
  const versions: Version[] = [];
  const newVersion = (buf: number, def: number, aliasOf: Version['aliasOf'] = null): Version => {
    const v: Version = { buf, def, lastUse: def, aliasOf, result: false, read: false, phys: -1 };
    versions.push(v);
    return v;
  };
  const cur = program.buffers.map((_, j) => newVersion(j, -1));
  type Val = { kind: 'param'; index: number } | { kind: 'version'; v: Version };
  const val = (r: BufRef): Val => (r.kind === 'param' ? { kind: 'param', index: r.index } : { kind: 'version', v: cur[r.index]! });
  const use = (x: Val, step: number): void => {
    if (x.kind === 'param') return;
    x.v.lastUse = Math.max(x.v.lastUse, step);
    x.v.read = true;
    if (x.v.aliasOf?.kind === 'version') use(x.v.aliasOf, step);
  };
  const gathered = new Set<number>();
  type RawStep =
    | { kind: 'kernel'; kernel: KernelSpec; inputs: Val[]; output: Version }
    | { kind: 'gather'; input: Val; output: Version; groups: number[][]; part: number };
  const raw: RawStep[] = [];
  program.steps.forEach((step, s) => {
    if (step.kind === 'kernel') {
      const inputs = step.inputs.map(val);
      inputs.forEach((x) => use(x, s));
      const output = newVersion(step.output, s);
      cur[step.output] = output;
      raw.push({ kind: 'kernel', kernel: program.kernels[step.kernel]!, inputs, output });
      return;
    }
    if (step.kind !== 'gather') throw new Error(`internal: ${program.name}: a ${step.kind} step in a straight-line program (runtime/control.ts runs it)`);
    const input = val(step.input);
    use(input, s);
    const outSize = program.buffers[step.output]!.size;
    const inSize = step.input.kind === 'param' ? program.params[step.input.index]!.size : program.buffers[step.input.index]!.size;
    // every device's output is all devices' inputs in device order: the stacked input itself
    const aliasable = !step.groups && outSize === n * inSize && (input.kind === 'param' || !input.v.aliasOf);
    if (aliasable) {
      if (input.kind === 'param') gathered.add(input.index);
      cur[step.output] = newVersion(step.output, s, input);
      return;
    }
    const groups = step.groups ?? [Array.from({ length: n }, (_, d) => d)];
    const output = newVersion(step.output, s);
    cur[step.output] = output;
    raw.push({ kind: 'gather', input, output, groups, part: outSize / groups[0]!.length });
  });
  const escaping = new Set<number>();
  const resultVals = program.results.map(val);
  for (const x of resultVals) {
    if (x.kind === 'param') continue;
    x.v.result = true;
    x.v.lastUse = Infinity;
    const a = x.v.aliasOf;
    if (a?.kind === 'param') escaping.add(a.index);
    if (a?.kind === 'version') {
      a.v.result = true;
      a.v.lastUse = Infinity;
    }
  }

  // physical buffers: a version goes to its buffer's home unless something there is still live
  const phys: Phys[] = [];
  const occupants: Version[][] = [];
  const home = new Map<number, number>();
  const newPhys = (v: Version, temp: boolean): number => {
    const spec = program.buffers[v.buf]!;
    phys.push({ size: spec.size, dtype: spec.dtype, temp, ownBlock: false, what: `${program.name}: buffer ${v.buf}` });
    occupants.push([]);
    return phys.length - 1;
  };
  for (const v of [...versions].sort((a, b) => a.def - b.def)) {
    // an alias lives in its source; an initial value nothing reads needs no buffer
    if (v.aliasOf || (v.def < 0 && !v.read && !v.result)) continue;
    if (v.result) {
      v.phys = newPhys(v, false);
      phys[v.phys]!.ownBlock = v.read;
    } else {
      let h = home.get(v.buf);
      if (h === undefined || occupants[h]!.some((u) => u.lastUse >= v.def)) {
        h = newPhys(v, true);
        if (!home.has(v.buf)) home.set(v.buf, h);
      }
      v.phys = h;
    }
    occupants[v.phys]!.push(v);
  }
  const ref = (x: Val): PlanRef => {
    if (x.kind === 'param') return { kind: 'param', index: x.index, alias: false };
    const a = x.v.aliasOf;
    if (!a) return { kind: 'phys', index: x.v.phys, alias: false };
    return a.kind === 'param' ? { kind: 'param', index: a.index, alias: true } : { kind: 'phys', index: a.v.phys, alias: true };
  };
  const steps = raw.map((st): PlanStep => {
    if (st.kind === 'gather') return { kind: 'gather', input: ref(st.input), output: st.output.phys, groups: st.groups, part: st.part };
    const groups = st.kernel.workgroups !== undefined ? st.kernel.workgroups * n : Math.ceil((st.kernel.output.size * n) / WORKGROUP_SIZE);
    return {
      kind: 'kernel',
      kernel: st.kernel,
      inputs: st.inputs.map(ref),
      output: st.output.phys,
      gx: Math.min(groups, MAX_WORKGROUPS_X),
      gy: Math.ceil(groups / MAX_WORKGROUPS_X),
      // a split reduction's second pass: a workgroup per output element
      finish: st.kernel.partials ? [Math.min(st.kernel.output.size * n, MAX_WORKGROUPS_X), Math.ceil((st.kernel.output.size * n) / MAX_WORKGROUPS_X)] : null,
    };
  });
  return { phys, steps, results: resultVals.map(ref), gathered, escaping };
}

export class WebGpuBackend implements Backend {
  readonly kind = 'webgpu' as const;
  /** Per kernel: its bind group layout and a pipeline per set of input strides. */
  private pipelines = new WeakMap<KernelSpec, { layout: GPUBindGroupLayout; byStrides: Map<string, Pipelines> }>();
  private pools = new WeakMap<ProgramSpec, Map<number, Pool>>();
  /** Bound in place of an empty array (a binding cannot be empty). */
  private empty: GPUBuffer | null = null;
  /** Encoded command buffers not yet submitted, in order, and what they bind (kept reachable so no buffer of theirs is destroyed first). */
  private pending: GPUCommandBuffer[] = [];
  private pendingKeep: unknown[] = [];
  /** The program of the first pending call: when it is called again, a new iteration of the host loop has begun. */
  private pendingFirst: ProgramSpec | null = null;
  private flushScheduled = false;
  private errors: string[] = [];
  private readonly stats: MemoryStats = { liveBytes: 0, peakLiveBytes: 0, pooledBytes: 0 };
  /** Released buffers by size in bytes, ready for reuse. */
  private free = new Map<number, GPUBuffer[]>();
  /** Buffers released while queued work may still read them: pooled once that work is submitted. */
  private freeAfterSubmit: GPUBuffer[] = [];
  /** Set once the GPUDevice is lost: every later call fails with it instead of waiting forever. */
  private lostMessage: string | null = null;
  private readonly lost: Promise<never>;
  private readonly align: number;

  constructor(
    readonly gpu: GPUDevice,
    readonly description: string,
  ) {
    gpu.addEventListener('uncapturederror', (ev) => {
      // handled here (the next sync throws it): without preventDefault() Dawn also prints it on stdout
      ev.preventDefault();
      this.errors.push((ev as GPUUncapturedErrorEvent).error.message);
    });
    this.lost = gpu.lost.then((info) => {
      this.lostMessage = `the WebGPU device was lost (${info.reason}${info.message ? `: ${info.message}` : ''}); create a new runtime`;
      throw new Error(this.lostMessage);
    });
    this.lost.catch(() => {}); // observed by the calls that race it
    this.align = gpu.limits.minStorageBufferOffsetAlignment / 4; // elements
  }

  private checkAlive(): void {
    if (this.lostMessage) throw new Error(this.lostMessage);
  }

  /**
   * Check that `devices` stacked copies of `size` elements fit one binding;
   * `what` names the buffer in the error.
   */
  private checkSize(what: string, dtype: DType, size: number, devices: number): void {
    const limit = this.gpu.limits.maxStorageBufferBindingSize;
    const bytes = size * devices * 4;
    if (bytes > limit) {
      const count = devices > 1 ? `${size} ${dtype} elements per device, stacked for ${devices} devices (${bytes} bytes)` : `${size} ${dtype} elements (${bytes} bytes)`;
      throw new Error(
        `${what} of ${count} is larger than this WebGPU device's maxStorageBufferBindingSize (${limit} bytes); ` +
          `use smaller arrays${devices > 1 ? ', fewer devices' : ''} or the CPU backend`,
      );
    }
  }

  /**
   * Queue a command buffer: it is submitted with the others of this host-loop
   * iteration when the next iteration begins (generated loops call submit();
   * for an application's own loop: when the first program of the batch is
   * called again), when something reads a result (read, sync), after 64 of
   * them, or once the host yields to the event loop.
   */
  private enqueue(cb: GPUCommandBuffer, program: ProgramSpec | null, keep: unknown[]): void {
    this.pending.push(cb);
    this.pendingKeep.push(...keep);
    this.pendingFirst ??= program;
    if (this.pending.length >= 64) return this.flush();
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setTimeout(() => {
        this.flushScheduled = false;
        this.flush();
      }, 0);
    }
  }

  submit(): void {
    this.flush();
  }

  /** Submit every pending command buffer in one queue.submit. */
  private flush(): void {
    if (!this.pending.length) return;
    const cbs = this.pending;
    this.pending = [];
    this.pendingKeep = [];
    this.pendingFirst = null;
    if (!this.lostMessage) this.gpu.queue.submit(cbs);
    // later writes to them (an upload) are queued after this submission's reads
    const freed = this.freeAfterSubmit;
    this.freeAfterSubmit = [];
    freed.forEach((b) => this.toPool(b));
  }

  private toPool(b: GPUBuffer): void {
    if (this.stats.pooledBytes + b.size > POOL_CAP || this.lostMessage) return b.destroy();
    this.stats.pooledBytes += b.size;
    const list = this.free.get(b.size);
    if (list) list.push(b);
    else this.free.set(b.size, [b]);
  }

  share(buf: DeviceBuffer): DeviceBuffer {
    const b = gpuBuf(buf);
    if (b.released) throw new Error('internal: a released buffer was shared');
    return new GpuDeviceBuffer(b.device, b.dtype, b.size, b.block, b.offset);
  }

  release(buf: DeviceBuffer): void {
    const b = gpuBuf(buf);
    if (b.released) return;
    b.released = true;
    const block = b.block;
    if (--block.refs > 0) return;
    reclaim.unregister(block);
    this.stats.liveBytes -= block.bytes;
    if (this.pending.length) this.freeAfterSubmit.push(block.buffer);
    else this.toPool(block.buffer);
  }

  memory(): MemoryStats {
    return { ...this.stats };
  }

  private createBuffer(elements: number): GPUBuffer {
    this.checkAlive();
    return this.gpu.createBuffer({ size: Math.max(4, elements * 4), usage: USAGE });
  }

  /** A block for `elements` elements: a pooled buffer of that size, else a new one. */
  private newBlock(elements: number): Block {
    const bytes = Math.max(4, elements * 4);
    let buffer = this.free.get(bytes)?.pop();
    if (buffer) this.stats.pooledBytes -= bytes;
    else buffer = this.createBuffer(elements);
    const b = new Block(buffer, bytes);
    this.stats.liveBytes += bytes;
    this.stats.peakLiveBytes = Math.max(this.stats.peakLiveBytes, this.stats.liveBytes);
    reclaim.register(b, { buffer, bytes, stats: this.stats }, b);
    return b;
  }

  private alloc(device: number, dtype: DType, size: number): GpuDeviceBuffer {
    this.checkAlive();
    this.checkSize('an array', dtype, size, 1);
    return new GpuDeviceBuffer(device, dtype, size, this.newBlock(size), 0);
  }

  upload(device: number, dtype: DType, data: CpuBuffer): DeviceBuffer {
    const b = this.alloc(device, dtype, data.length);
    if (data.length) this.gpu.queue.writeBuffer(b.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  }

  uploadStacked(devices: number[], dtype: DType, parts: CpuBuffer[]): DeviceBuffer[] {
    this.checkAlive();
    const stride = Math.max(0, ...parts.map((p) => p.length));
    this.checkSize('an array', dtype, stride, devices.length);
    const block = this.newBlock(stride * devices.length);
    const data = newCpuBuffer(dtype, stride * devices.length);
    parts.forEach((p, d) => data.set(p, d * stride));
    if (data.length) this.gpu.queue.writeBuffer(block.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return devices.map((dev, d) => new GpuDeviceBuffer(dev, dtype, parts[d]!.length, block, d * stride));
  }

  /** Arrays never change: the copy is a view of the same memory. */
  copy(src: DeviceBuffer, device: number, srcOffset = 0, count = src.size - srcOffset): DeviceBuffer {
    this.checkAlive();
    const s = gpuBuf(src);
    return new GpuDeviceBuffer(device, s.dtype, count, s.block, s.offset + srcOffset);
  }

  concat(parts: DeviceBuffer[], device: number): DeviceBuffer {
    const ps = parts.map(gpuBuf);
    const total = ps.reduce((n, p) => n + p.size, 0);
    const first = ps[0]!;
    // parts that already lie back to back in one block (a stacked result, in device order)
    let next = first.offset;
    if (ps.every((p) => p.block === first.block && p.offset === next && ((next += p.size), true))) {
      return this.copy(first, device, 0, total);
    }
    const out = this.alloc(device, first.dtype, total);
    const enc = this.gpu.createCommandEncoder();
    let off = 0;
    for (const p of ps) {
      if (p.size) enc.copyBufferToBuffer(p.buffer, p.offset * 4, out.buffer, off * 4, p.size * 4);
      off += p.size;
    }
    this.enqueue(enc.finish(), null, [ps, out]);
    return out;
  }

  async read(buf: DeviceBuffer): Promise<CpuBuffer> {
    const b = gpuBuf(buf);
    const out = newCpuBuffer(b.dtype, b.size);
    if (!b.size) return out;
    this.checkAlive();
    const staging = this.gpu.createBuffer({ size: b.size * 4, usage: 0x0001 /* MAP_READ */ | 0x0008 });
    const enc = this.gpu.createCommandEncoder();
    enc.copyBufferToBuffer(b.buffer, b.offset * 4, staging, 0, b.size * 4);
    this.enqueue(enc.finish(), null, [b]);
    this.flush();
    await Promise.race([staging.mapAsync(0x0001 /* READ */), this.lost]);
    out.set(new (out.constructor as new (b: ArrayBuffer) => CpuBuffer)(staging.getMappedRange().slice(0)));
    staging.unmap();
    staging.destroy();
    this.throwErrors();
    return out;
  }

  /** The pipeline of `k` with these input strides (override constants st<K>; the default is the input's size). */
  private pipeline(k: KernelSpec, devices: number, strides: number[]): Pipelines & { layout: GPUBindGroupLayout } {
    let entry = this.pipelines.get(k);
    if (!entry) {
      // checked here, so that the error is ours (Dawn would print its validation text on stdout)
      const max = this.gpu.limits.maxStorageBuffersPerShaderStage;
      if (k.inputs.length + 1 > max) throw new Error(`kernel ${k.name} binds ${k.inputs.length + 1} storage buffers; this WebGPU device allows ${max} per shader`);
      // an explicit layout: 'auto' would drop bindings the compiler proves unused (a folded branch)
      const entries: GPUBindGroupLayoutEntry[] = k.inputs.map((_, i) => ({ binding: i, visibility: COMPUTE, buffer: { type: 'read-only-storage' } }));
      entries.push({ binding: k.inputs.length, visibility: COMPUTE, buffer: { type: 'storage' } });
      if (k.partials) entries.push({ binding: k.inputs.length + 1, visibility: COMPUTE, buffer: { type: 'storage' } });
      entry = { layout: this.gpu.createBindGroupLayout({ entries, label: k.name }), byStrides: new Map() };
      this.pipelines.set(k, entry);
    }
    const key = `${devices}:${strides.join(',')}`;
    let p = entry.byStrides.get(key);
    if (!p) {
      const module = this.gpu.createShaderModule({ code: k.wgsl, label: k.name });
      const constants: Record<string, number> = devices === 1 ? {} : { devices };
      strides.forEach((s, i) => {
        if (s !== k.inputs[i]!.size) constants[`st${i}`] = s;
      });
      const layout = this.gpu.createPipelineLayout({ bindGroupLayouts: [entry.layout] });
      const create = (entryPoint: string): GPUComputePipeline =>
        this.gpu.createComputePipeline({ layout, compute: { module, entryPoint, constants }, label: k.name });
      p = { pipeline: create('main'), finish: k.partials ? create('finish') : null };
      entry.byStrides.set(key, p);
    }
    return { ...p, layout: entry.layout };
  }

  private pool(program: ProgramSpec, n: number): Pool {
    let byCount = this.pools.get(program);
    if (!byCount) this.pools.set(program, (byCount = new Map()));
    let pool = byCount.get(n);
    if (!pool) {
      const plan = buildPlan(program, n);
      for (const p of plan.phys) this.checkSize(p.what, p.dtype, p.size, n);
      const owned: GPUBuffer[] = [];
      const temps = plan.phys.map((p) => {
        if (!p.temp) return undefined;
        const b = this.createBuffer(p.size * n);
        owned.push(b);
        return b;
      });
      pool = { plan, temps, params: [], scratch: [], bindGroups: [], owned };
      reclaimPool.register(pool, owned);
      byCount.set(n, pool);
    }
    return pool;
  }

  /**
   * Parameter i of a call: its views bound as they are when they are one
   * stacked block (stride = size, or 0 for one shared copy), else copied
   * into a stacked buffer (pooled, or new when a result aliases it) by `enc`.
   */
  private paramLoc(program: ProgramSpec, pool: Pool, i: number, views: GpuDeviceBuffer[], enc: GPUCommandEncoder): Loc {
    const n = views.length;
    const size = program.params[i]!.size;
    const v0 = views[0]!;
    const stride = n > 1 ? views[1]!.offset - v0.offset : size;
    const gathered = pool.plan.gathered.has(i);
    const stacked =
      (stride === size || (stride === 0 && !gathered)) &&
      v0.offset % this.align === 0 &&
      views.every((v, d) => v.block === v0.block && v.offset === v0.offset + d * stride && v.size === size);
    if (stacked) return { buffer: v0.buffer, block: v0.block, base: v0.offset, stride, size };
    this.checkSize(`${program.name}: argument ${i}`, program.params[i]!.dtype, size, n);
    let block: Block | null = null;
    let buffer: GPUBuffer;
    if (pool.plan.escaping.has(i)) {
      block = this.newBlock(size * n);
      buffer = block.buffer;
    } else {
      let pooled = pool.params[i];
      if (!pooled) {
        pooled = pool.params[i] = this.createBuffer(size * n);
        pool.owned.push(pooled);
      }
      buffer = pooled;
    }
    if (size) views.forEach((v, d) => enc.copyBufferToBuffer(v.buffer, v.offset * 4, buffer, d * size * 4, size * 4));
    return { buffer, block, base: 0, stride: size, size };
  }

  /** The per-call buffers of the plan's results: write-only ones share one block, each at an aligned offset. */
  private resultLocs(plan: Plan, n: number): (Loc | undefined)[] {
    const locs: (Loc | undefined)[] = plan.phys.map(() => undefined);
    const maxBytes = this.gpu.limits.maxBufferSize;
    const region = (p: Phys): number => Math.ceil(Math.max(1, p.size * n) / this.align) * this.align;
    let batch: number[] = [];
    let total = 0;
    const flush = (): void => {
      if (!batch.length) return;
      const block = this.newBlock(total);
      let off = 0;
      for (const i of batch) {
        const p = plan.phys[i]!;
        locs[i] = { buffer: block.buffer, block, base: off, stride: p.size, size: p.size };
        off += region(p);
      }
      batch = [];
      total = 0;
    };
    plan.phys.forEach((p, i) => {
      if (p.temp) return;
      if (p.ownBlock) {
        const block = this.newBlock(p.size * n);
        locs[i] = { buffer: block.buffer, block, base: 0, stride: p.size, size: p.size };
        return;
      }
      if ((total + region(p)) * 4 > maxBytes) flush();
      batch.push(i);
      total += region(p);
    });
    flush();
    return locs;
  }

  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][], inLoop = false): DeviceBuffer[][] {
    this.checkAlive();
    const n = devices.length;
    // the first program of the pending batch again: the previous host-loop iteration is complete
    // (a loop body of lax.scan / while_loop is called again and again within one program call)
    if (this.pendingFirst === program && !inLoop) this.flush();
    const pool = this.pool(program, n);
    const plan = pool.plan;
    const enc = this.gpu.createCommandEncoder({ label: program.name });
    const params = program.params.map((_, i) => this.paramLoc(program, pool, i, args.map((a) => gpuBuf(a[i]!)), enc));
    const results = this.resultLocs(plan, n);
    const physLoc = (i: number): Loc => {
      const t = pool.temps[i];
      if (t) return { buffer: t, block: null, base: 0, stride: plan.phys[i]!.size, size: plan.phys[i]!.size };
      return results[i]!;
    };
    const loc = (r: PlanRef): Loc => {
      const l = r.kind === 'param' ? params[r.index]! : physLoc(r.index);
      return r.alias ? { ...l, stride: 0, size: l.size * n } : l;
    };
    let pass: GPUComputePassEncoder | null = null;
    plan.steps.forEach((step, s) => {
      if (step.kind === 'kernel') {
        const k = step.kernel;
        if (!k.output.size) return;
        const ins = step.inputs.map(loc);
        const out = physLoc(step.output);
        const { pipeline, finish, layout } = this.pipeline(k, n, ins.map((l) => l.stride));
        const key: (GPUBuffer | number)[] = [];
        const entries: GPUBindGroupEntry[] = [...ins, out].map((l, b) => {
          const bytes = ((n - 1) * l.stride + l.size) * 4;
          let resource: GPUBufferBinding;
          if (bytes) {
            resource = { buffer: l.buffer, offset: l.base * 4, size: bytes };
          } else {
            this.empty ??= this.createBuffer(1);
            resource = { buffer: this.empty, offset: 0, size: 4 };
          }
          key.push(resource.buffer, resource.offset!, resource.size!);
          return { binding: b, resource };
        });
        if (k.partials) {
          let scratch = pool.scratch[s];
          if (!scratch) {
            scratch = pool.scratch[s] = this.createBuffer(k.partials * n);
            pool.owned.push(scratch);
          }
          entries.push({ binding: ins.length + 1, resource: { buffer: scratch } });
        }
        const cached = pool.bindGroups[s];
        let group: GPUBindGroup;
        if (cached && cached.key.length === key.length && cached.key.every((x, j) => x === key[j])) {
          group = cached.group;
        } else {
          group = this.gpu.createBindGroup({ layout, entries, label: k.name });
          pool.bindGroups[s] = { key, group };
        }
        pass ??= enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(step.gx, step.gy);
        if (finish && step.finish) {
          pass.setPipeline(finish);
          pass.dispatchWorkgroups(...step.finish);
        }
        return;
      }
      // a gather within groups: every device's output is its group's inputs in group order (copies sit between passes)
      pass?.end();
      pass = null;
      const input = loc(step.input);
      const out = physLoc(step.output);
      const part = step.part;
      if (!part) return;
      for (const g of step.groups) {
        g.forEach((d) =>
          g.forEach((src, j) =>
            enc.copyBufferToBuffer(input.buffer, (input.base + src * input.stride) * 4, out.buffer, (out.base + d * out.stride + j * part) * 4, part * 4),
          ),
        );
      }
    });
    (pass as GPUComputePassEncoder | null)?.end();
    const outs = devices.map((dev, d) =>
      plan.results.map((r, j) => {
        const ref = program.results[j]!;
        if (r.kind === 'param' && !r.alias) return args[d]![r.index]!;
        const l = loc(r);
        const dtype = ref.kind === 'param' ? program.params[ref.index]!.dtype : program.buffers[ref.index]!.dtype;
        if (!l.block) throw new Error(`internal: ${program.name}: result ${j} lives in a pooled buffer`);
        return new GpuDeviceBuffer(dev, dtype, l.size, l.block, l.base + d * l.stride);
      }),
    );
    this.enqueue(enc.finish(), program, [args, outs, pool]);
    return outs;
  }

  async sync(): Promise<void> {
    this.checkAlive();
    this.flush();
    await Promise.race([this.gpu.queue.onSubmittedWorkDone(), this.lost]);
    this.throwErrors();
  }

  private throwErrors(): void {
    if (this.errors.length) {
      const msg = this.errors.join('\n');
      this.errors = [];
      throw new Error(`WebGPU error: ${msg}`);
    }
  }
}

/** Request a device with the adapter's limits (the spec defaults are far lower). */
export async function createWebGpuBackend(gpu: GPU): Promise<WebGpuBackend | null> {
  const adapter = await gpu.requestAdapter();
  if (!adapter) return null;
  const l = adapter.limits;
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
      maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
    },
  });
  const info = adapter.info;
  return new WebGpuBackend(device, `${info.vendor || 'unknown'} ${info.architecture || ''} ${info.description || ''}`.trim());
}
