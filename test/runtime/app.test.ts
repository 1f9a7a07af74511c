// The application-facing runtime API: host-made arrays, the Array class's
// data()/dataSync()/toString(), createRuntime's fallback, and the default runtime.
import { describe, expect, it } from 'vitest';
import { CpuBackend, Runtime, array, createRuntime, runtime, type DeviceBuffer } from '../../runtime/index.js';

describe('array()', () => {
  it('infers shape and dtype as NumPy does (int32 for integers, float32 for floats)', async () => {
    const a = array([[1, 2, 3], [4, 5, 6]]);
    expect([a.shape, a.dtype]).toEqual([[2, 3], 'int32']);
    const b = array([[0.5, 1], [2, 3]]);
    expect([b.shape, b.dtype, [...(await b.data())]]).toEqual([[2, 2], 'float32', [0.5, 1, 2, 3]]);
    expect(array(3).shape).toEqual([]);
    expect(array(new Uint32Array([0, 42])).dtype).toBe('uint32');
    expect(array(new Float32Array(6), [2, 3]).shape).toEqual([2, 3]);
  });

  it('rejects ragged nesting and a shape that does not fit the data', () => {
    expect(() => array([[1, 2], [3]])).toThrow('ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape');
    expect(() => array(new Float32Array(5), [2, 3])).toThrow('ValueError: cannot reshape array of size 5 into shape (2, 3)');
  });

  it('prints as NumPy prints it', () => {
    expect(array([[1.5, 2], [3, 4]]).toString()).toBe('[[1.5 2. ]\n [3.  4. ]]');
    expect(array([1, 2, 3]).toString()).toBe('[1 2 3]');
  });
});

describe('runtimes', () => {
  it('falls back to the CPU backend without navigator.gpu, and fails clearly when WebGPU is required', async () => {
    const rt = await createRuntime({ devices: 2, write: () => {} });
    expect(rt.backend.kind).toBe('cpu');
    expect(rt.devices()).toHaveLength(2);
    await expect(createRuntime({ backend: 'webgpu' })).rejects.toThrow('no WebGPU adapter is available');
  });

  it('keeps the runtime main() was given as the default, and grows it when a module needs more devices', async () => {
    const given = await createRuntime({ devices: 4, backend: 'cpu', write: () => {} });
    expect(await runtime(4, given)).toBe(given);
    expect(await runtime(2)).toBe(given);
    const bigger = await runtime(8);
    expect(bigger).not.toBe(given);
    expect(bigger.devices()).toHaveLength(8);
  });

  it("device arrays print once read, and a runtime adopts another's arrays", async () => {
    const a = await createRuntime({ backend: 'cpu', write: () => {} });
    const b = await createRuntime({ backend: 'cpu', write: () => {} });
    const x = a.constant([2], 'float32', [1, 2]);
    const y = await b.adopt(x);
    expect(y.rt).toBe(b);
    expect(await b.adopt(y)).toBe(y);
    expect([...(await y.data())]).toEqual([1, 2]);
    expect(y.toString()).toBe('[1. 2.]');
  });

  it('on the CPU backend arrays print and read without await; on a backend without sync reads, a placeholder until data()', async () => {
    const cpu = await createRuntime({ backend: 'cpu', write: () => {} });
    const x = cpu.constant([2, 2], 'float32', [1, 2, 3, 4]);
    expect(x.toString()).toBe('[[1. 2.]\n [3. 4.]]');
    expect([...cpu.constant([3], 'int32', [5, 6, 7]).dataSync()]).toEqual([5, 6, 7]);
    // a backend that reads back only asynchronously, as WebGPU does
    class AsyncOnly extends CpuBackend {
      override readonly kind = 'cpu' as const;
      override readSync = undefined as unknown as (b: DeviceBuffer) => Float32Array;
    }
    const rt = new Runtime(new AsyncOnly(), { devices: 1, write: () => {} });
    const y = rt.constant([2], 'float32', [1, 2]);
    expect(y.toString()).toBe('Array(shape=(2,), dtype=float32) on the device; await .data() before printing');
    expect(() => y.dataSync()).toThrow('dataSync(): this array is on cpu, which reads back asynchronously: `await x.data()` first');
    await y.data();
    expect(y.toString()).toBe('[1. 2.]');
    expect([...y.dataSync()]).toEqual([1, 2]);
  });
});
