// The CPU backend: buffers are typed arrays and kernels are the generated JS
// loops. Simulated devices each own their arrays.
import type { Backend, DeviceBuffer } from '../backend.js';
import type { BufRef, CpuBuffer, DType, ProgramSpec } from '../program.js';
import { newCpuBuffer } from '../program.js';

export class CpuDeviceBuffer implements DeviceBuffer {
  constructor(
    readonly device: number,
    readonly dtype: DType,
    readonly data: CpuBuffer,
  ) {}
  get size(): number {
    return this.data.length;
  }
}

const cpu = (b: DeviceBuffer): CpuDeviceBuffer => b as CpuDeviceBuffer;

export class CpuBackend implements Backend {
  readonly kind = 'cpu' as const;
  readonly description = 'JavaScript CPU backend';

  upload(device: number, dtype: DType, data: CpuBuffer): DeviceBuffer {
    const buf = newCpuBuffer(dtype, data.length);
    buf.set(data);
    return new CpuDeviceBuffer(device, dtype, buf);
  }

  uploadStacked(devices: number[], dtype: DType, parts: CpuBuffer[]): DeviceBuffer[] {
    return devices.map((d, i) => this.upload(d, dtype, parts[i]!));
  }

  copy(src: DeviceBuffer, device: number, srcOffset = 0, count = src.size - srcOffset): DeviceBuffer {
    const s = cpu(src);
    return this.upload(device, s.dtype, s.data.subarray(srcOffset, srcOffset + count));
  }

  concat(parts: DeviceBuffer[], device: number): DeviceBuffer {
    const total = parts.reduce((n, p) => n + p.size, 0);
    const out = newCpuBuffer(parts[0]!.dtype, total);
    let off = 0;
    for (const p of parts) {
      out.set(cpu(p).data, off);
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

  run(program: ProgramSpec, devices: number[], args: DeviceBuffer[][]): DeviceBuffer[][] {
    const temps = devices.map(() => program.buffers.map((b) => newCpuBuffer(b.dtype, b.size)));
    const arr = (d: number, r: BufRef): CpuBuffer =>
      r.kind === 'param' ? cpu(args[d]![r.index]!).data : temps[d]![r.index]!;
    for (const step of program.steps) {
      if (step.kind === 'kernel') {
        const k = program.kernels[step.kernel]!;
        // a kernel's device index is the device's position in this run (its mesh position)
        devices.forEach((_, d) => k.cpu(step.inputs.map((r) => arr(d, r)), temps[d]![step.output]!, d));
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
    return devices.map((dev, d) =>
      program.results.map((r) => {
        if (r.kind === 'param') return args[d]![r.index]!;
        return new CpuDeviceBuffer(dev, program.buffers[r.index]!.dtype, temps[d]![r.index]!);
      }),
    );
  }

  /** Kernels run as they are called: nothing is queued. */
  submit(): void {}

  async sync(): Promise<void> {}
}
