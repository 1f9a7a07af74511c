// The WebGPU backend: the simulated devices share one GPUDevice and each owns
// its buffers. A program call encodes every step of every device into one
// compute pass and submits once; readback goes through a staging buffer.
import type { Backend, DeviceBuffer } from '../backend.js';
import type { BufRef, CpuBuffer, DType, KernelSpec, ProgramSpec } from '../program.js';
import { MAX_WORKGROUPS_X, newCpuBuffer, WORKGROUP_SIZE } from '../program.js';

const USAGE = 0x0080 /* STORAGE */ | 0x0004 /* COPY_SRC */ | 0x0008; /* COPY_DST */
const COMPUTE = 0x4; /* GPUShaderStage.COMPUTE */

class GpuDeviceBuffer implements DeviceBuffer {
  constructor(
    readonly device: number,
    readonly dtype: DType,
    readonly size: number,
    readonly buffer: GPUBuffer,
  ) {}
}

const gpuBuf = (b: DeviceBuffer): GpuDeviceBuffer => b as GpuDeviceBuffer;

/** Buffers of collected arrays are destroyed when their owner is garbage-collected. */
const reclaim = new FinalizationRegistry<GPUBuffer>((b) => b.destroy());

export class WebGpuBackend implements Backend {
  readonly kind = 'webgpu' as const;
  private pipelines = new WeakMap<KernelSpec, GPUComputePipeline>();
  private deviceIndex = new Map<number, GPUBuffer>();
  private errors: string[] = [];
  /** Set once the GPUDevice is lost: every later call fails with it instead of waiting forever. */
  private lostMessage: string | null = null;
  private readonly lost: Promise<never>;

  constructor(
    readonly gpu: GPUDevice,
    readonly description: string,
  ) {
    gpu.addEventListener('uncapturederror', (ev) => {
      this.errors.push((ev as GPUUncapturedErrorEvent).error.message);
    });
    this.lost = gpu.lost.then((info) => {
      this.lostMessage = `the WebGPU device was lost (${info.reason}${info.message ? `: ${info.message}` : ''}); create a new runtime`;
      throw new Error(this.lostMessage);
    });
    this.lost.catch(() => {}); // observed by the calls that race it
  }

  private checkAlive(): void {
    if (this.lostMessage) throw new Error(this.lostMessage);
  }

  /** A buffer of `size` elements; `what` names it in the error when it exceeds the device's binding limit. */
  private alloc(device: number, dtype: DType, size: number, owned: boolean, what = 'an array'): GpuDeviceBuffer {
    this.checkAlive();
    const limit = this.gpu.limits.maxStorageBufferBindingSize;
    if (size * 4 > limit) {
      throw new Error(
        `${what} of ${size} ${dtype} elements (${size * 4} bytes) is larger than this WebGPU device's maxStorageBufferBindingSize ` +
          `(${limit} bytes); use smaller arrays or the CPU backend`,
      );
    }
    const buffer = this.gpu.createBuffer({ size: Math.max(4, size * 4), usage: USAGE });
    const b = new GpuDeviceBuffer(device, dtype, size, buffer);
    if (owned) reclaim.register(b, buffer);
    return b;
  }

  upload(device: number, dtype: DType, data: CpuBuffer): DeviceBuffer {
    const b = this.alloc(device, dtype, data.length, true);
    if (data.length) this.gpu.queue.writeBuffer(b.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  }

  copy(src: DeviceBuffer, device: number, srcOffset = 0, count = src.size - srcOffset): DeviceBuffer {
    const out = this.alloc(device, src.dtype, count, true);
    if (count) {
      const enc = this.gpu.createCommandEncoder();
      enc.copyBufferToBuffer(gpuBuf(src).buffer, srcOffset * 4, out.buffer, 0, count * 4);
      this.gpu.queue.submit([enc.finish()]);
    }
    return out;
  }

  concat(parts: DeviceBuffer[], device: number): DeviceBuffer {
    const total = parts.reduce((n, p) => n + p.size, 0);
    const out = this.alloc(device, parts[0]!.dtype, total, true);
    const enc = this.gpu.createCommandEncoder();
    let off = 0;
    for (const p of parts) {
      if (p.size) enc.copyBufferToBuffer(gpuBuf(p).buffer, 0, out.buffer, off * 4, p.size * 4);
      off += p.size;
    }
    this.gpu.queue.submit([enc.finish()]);
    return out;
  }

  async read(buf: DeviceBuffer): Promise<CpuBuffer> {
    const b = gpuBuf(buf);
    const out = newCpuBuffer(b.dtype, b.size);
    if (!b.size) return out;
    const staging = this.gpu.createBuffer({ size: b.size * 4, usage: 0x0001 /* MAP_READ */ | 0x0008 });
    const enc = this.gpu.createCommandEncoder();
    enc.copyBufferToBuffer(b.buffer, 0, staging, 0, b.size * 4);
    this.gpu.queue.submit([enc.finish()]);
    await Promise.race([staging.mapAsync(0x0001 /* READ */), this.lost]);
    out.set(new (out.constructor as new (b: ArrayBuffer) => CpuBuffer)(staging.getMappedRange().slice(0)));
    staging.unmap();
    staging.destroy();
    this.throwErrors();
    return out;
  }

  private pipeline(k: KernelSpec): GPUComputePipeline {
    let p = this.pipelines.get(k);
    if (!p) {
      const module = this.gpu.createShaderModule({ code: k.wgsl, label: k.name });
      // an explicit layout: 'auto' would drop bindings the compiler proves unused (a folded branch)
      const entries: GPUBindGroupLayoutEntry[] = k.inputs.map((_, i) => ({ binding: i, visibility: COMPUTE, buffer: { type: 'read-only-storage' } }));
      entries.push({ binding: k.inputs.length, visibility: COMPUTE, buffer: { type: 'storage' } });
      if (k.usesDevice) entries.push({ binding: k.inputs.length + 1, visibility: COMPUTE, buffer: { type: 'read-only-storage' } });
      const layout = this.gpu.createPipelineLayout({ bindGroupLayouts: [this.gpu.createBindGroupLayout({ entries, label: k.name })] });
      p = this.gpu.createComputePipeline({ layout, compute: { module, entryPoint: 'main' }, label: k.name });
      this.pipelines.set(k, p);
    }
    return p;
  }

  private deviceIndexBuffer(device: number): GPUBuffer {
    let b = this.deviceIndex.get(device);
    if (!b) {
      b = this.gpu.createBuffer({ size: 4, usage: USAGE });
      this.gpu.queue.writeBuffer(b, 0, new Int32Array([device]));
      this.deviceIndex.set(device, b);
    }
    return b;
  }

  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][]): DeviceBuffer[][] {
    const resultBufs = new Set(program.results.filter((r) => r.kind === 'buf').map((r) => r.index));
    const temps = devices.map((dev) =>
      program.buffers.map((b, i) => this.alloc(dev, b.dtype, b.size, resultBufs.has(i), `${program.name}: buffer ${i}`)),
    );
    const at = (d: number, r: BufRef): GpuDeviceBuffer =>
      r.kind === 'param' ? gpuBuf(args[d]![r.index]!) : temps[d]![r.index]!;
    const enc = this.gpu.createCommandEncoder({ label: program.name });
    let pass: GPUComputePassEncoder | null = null;
    for (const step of program.steps) {
      if (step.kind === 'kernel') {
        const k = program.kernels[step.kernel]!;
        const pipeline = this.pipeline(k);
        const n = k.output.size;
        if (!n) continue;
        const groups = Math.ceil(n / WORKGROUP_SIZE);
        const gx = Math.min(groups, MAX_WORKGROUPS_X);
        const gy = Math.ceil(groups / MAX_WORKGROUPS_X);
        pass ??= enc.beginComputePass();
        pass.setPipeline(pipeline);
        devices.forEach((_, d) => {
          const entries: GPUBindGroupEntry[] = step.inputs.map((r, i) => ({ binding: i, resource: { buffer: at(d, r).buffer } }));
          entries.push({ binding: step.inputs.length, resource: { buffer: temps[d]![step.output]!.buffer } });
          // a kernel's device index is the device's position in this run (its mesh position)
          if (k.usesDevice) entries.push({ binding: step.inputs.length + 1, resource: { buffer: this.deviceIndexBuffer(d) } });
          pass!.setBindGroup(0, this.gpu.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }));
          pass!.dispatchWorkgroups(gx, gy);
        });
      } else {
        // gather: copy every device's input into every device's output (copies sit between passes)
        pass?.end();
        pass = null;
        const groups = step.groups ?? [devices.map((_, d) => d)];
        const n = program.buffers[step.output]!.size / groups[0]!.length;
        if (n) {
          for (const g of groups) {
            g.forEach((d) => g.forEach((src, k) => enc.copyBufferToBuffer(at(src, step.input).buffer, 0, temps[d]![step.output]!.buffer, k * n * 4, n * 4)));
          }
        }
      }
    }
    pass?.end();
    this.gpu.queue.submit([enc.finish()]);
    // temporaries that are not results can go as soon as the queue is done with them
    temps.forEach((ts) => ts.forEach((t, i) => resultBufs.has(i) || t.buffer.destroy()));
    return devices.map((_, d) => program.results.map((r) => at(d, r)));
  }

  async sync(): Promise<void> {
    this.checkAlive();
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
