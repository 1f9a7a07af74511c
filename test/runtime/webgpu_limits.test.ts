// The WebGPU backend at the device's limits: a buffer above
// maxStorageBufferBindingSize is rejected with a message naming it and its
// size, and a lost device makes every later call fail instead of hang.
import { describe, expect, it } from 'vitest';
import type { ProgramSpec } from '../../runtime/program.js';
import { createWebGpuBackend, type WebGpuBackend } from '../../runtime/webgpu/backend.js';
import { nodeWebGpuBackend } from '../../runtime/node.js';

/** A WebGPU backend of its own (this suite destroys its device). */
async function freshBackend(): Promise<WebGpuBackend | null> {
  if (!(await nodeWebGpuBackend())) {
    if (process.env['CI'] === 'true') throw new Error('no WebGPU adapter under CI=true');
    return null;
  }
  return createWebGpuBackend((globalThis as { __jaxtsGpu?: GPU }).__jaxtsGpu!);
}

describe('WebGPU limits', () => {
  it('rejects a buffer larger than maxStorageBufferBindingSize, naming the program buffer and its size', async () => {
    const b = await freshBackend();
    if (!b) return;
    const limit = b.gpu.limits.maxStorageBufferBindingSize;
    const n = limit / 4 + 1;
    const program: ProgramSpec = { name: 'huge', params: [], buffers: [{ dtype: 'float32', size: n }], kernels: [], steps: [], results: [{ kind: 'buf', index: 0 }], resultShapes: [[n]] };
    expect(() => b.run(program, [0], [[]])).toThrow(
      `huge: buffer 0 of ${n} float32 elements (${n * 4} bytes) is larger than this WebGPU device's maxStorageBufferBindingSize (${limit} bytes)`,
    );
  });

  it('fails every call after the device is lost, without hanging', async () => {
    const b = await freshBackend();
    if (!b) return;
    const x = b.upload(0, 'float32', new Float32Array([1, 2, 3]));
    expect([...(await b.read(x))]).toEqual([1, 2, 3]);
    b.gpu.destroy();
    await expect(b.read(x)).rejects.toThrow(/the WebGPU device was lost \(destroyed/);
    await expect(b.sync()).rejects.toThrow(/the WebGPU device was lost/);
    expect(() => b.upload(0, 'float32', new Float32Array([1]))).toThrow(/the WebGPU device was lost/);
  });
});
