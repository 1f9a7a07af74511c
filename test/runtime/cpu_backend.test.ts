// The CPU backend's uploads (runtime/cpu/backend.ts): uploadStacked keeps each
// part that is a whole typed array of the dtype's lane as the device's buffer
// (no copy: a sharded device_put of a large array made two), copies a part
// that is a view into more memory or of another lane, and counts both as live
// memory that a release returns to the pool.
import { describe, expect, it } from 'vitest';
import { CpuBackend, CpuDeviceBuffer } from '../../runtime/cpu/backend.js';

const data = (b: unknown): Float32Array | Int32Array | Uint32Array | Float64Array => (b as CpuDeviceBuffer).store.data;

describe('CpuBackend.uploadStacked', () => {
  it('keeps whole parts as the buffers, copies views, and counts them', () => {
    const b = new CpuBackend();
    const whole = Float32Array.from([1, 2, 3, 4]);
    const big = Float32Array.from([9, 8, 7, 6, 5, 4]);
    const view = big.subarray(1, 5);
    const [x, y] = b.uploadStacked([0, 1], 'float32', [whole, view]);
    expect(data(x)).toBe(whole);
    expect(data(y)).not.toBe(view);
    expect([...b.readSync(y!)]).toEqual([8, 7, 6, 5]);
    big.fill(0);
    expect([...b.readSync(y!)]).toEqual([8, 7, 6, 5]);
    expect(b.memory().liveBytes).toBe(32);
    b.release(x!);
    b.release(y!);
    expect(b.memory()).toMatchObject({ liveBytes: 0, pooledBytes: 32 });
  });

  it('copies a part of another lane than the dtype', () => {
    const b = new CpuBackend();
    const ints = Int32Array.from([1, 2]);
    const [x] = b.uploadStacked([0], 'float32', [ints]);
    expect(data(x)).toBeInstanceOf(Float32Array);
    expect([...b.readSync(x!)]).toEqual([1, 2]);
  });
});
