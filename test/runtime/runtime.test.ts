// The runtime's array placement: pmap sharding along any axis and gathering back.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import type { ProgramSpec } from '../../runtime/program.js';
import { Runtime } from '../../runtime/runtime.js';

const identity = (n: number): ProgramSpec => ({
  name: 'id', params: [{ dtype: 'int32', size: n }], buffers: [], kernels: [], steps: [],
  results: [{ kind: 'param', index: 0 }], resultShapes: [[n]],
});

describe('runtime', () => {
  it('shards along axis 1 and stacks results back along out_axes', async () => {
    const rt = new Runtime(new CpuBackend(), { devices: 4, write: () => {} });
    const x = rt.constant([2, 4], 'int32', [0, 1, 2, 3, 4, 5, 6, 7]);
    const [y0] = await rt.pmap(identity(2), [x], [1], [0], 4);
    expect(y0!.shape).toEqual([4, 2]);
    expect([...(await y0!.data())]).toEqual([0, 4, 1, 5, 2, 6, 3, 7]);
    const [y1] = await rt.pmap(identity(2), [x], [1], [1], 4);
    expect([...(await y1!.data())]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
  it('keeps a pmap output on its devices when the next pmap maps the same axis', async () => {
    const rt = new Runtime(new CpuBackend(), { devices: 2, write: () => {} });
    const x = rt.constant([2, 3], 'int32', [1, 2, 3, 4, 5, 6]);
    const [y] = await rt.pmap(identity(3), [x], [0], [0], 2);
    const [z] = await rt.pmap(identity(3), [y!], [0], [0], 2);
    expect(z!.shards[1]).toBe(y!.shards[1]);
  });
});
