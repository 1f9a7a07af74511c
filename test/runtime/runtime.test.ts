// The runtime's array placement: pmap sharding along any axis and gathering
// back; mesh layouts (device_put with a NamedSharding, shards, readback);
// grouped gathers.
import { describe, expect, it } from 'vitest';
import { CpuBackend, type CpuDeviceBuffer } from '../../runtime/cpu/backend.js';
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
    // the same memory (a handle of z's own on it: y and z are released separately)
    expect((z!.shards[1] as CpuDeviceBuffer).data).toBe((y!.shards[1] as CpuDeviceBuffer).data);
    expect(z!.shards[1]).not.toBe(y!.shards[1]);
  });
  it('lays an array out over a 2-D mesh and reads it back', async () => {
    const rt = new Runtime(new CpuBackend(), { devices: 4, write: () => {} });
    const x = rt.constant([4, 6], 'int32', Array.from({ length: 24 }, (_, i) => i));
    // mesh (a=2, b=2) on devices [3, 2, 1, 0]; dim 0 split over a, dim 1 over b
    const layout = rt.layout([3, 2, 1, 0], [2, 2], [[0], [1]]);
    const y = await rt.devicePut(x, layout);
    expect(y.shards.map((s) => s.device)).toEqual([3, 2, 1, 0]);
    expect([...(await rt.backend.read(y.shards[1]!))]).toEqual([3, 4, 5, 9, 10, 11]);
    expect([...(await (await rt.shard(y, 2)).data())]).toEqual([12, 13, 14, 18, 19, 20]);
    expect([...(await y.data())]).toEqual([...(await x.data())]);
    expect(await rt.devicePut(y, layout)).toBe(y);
    // dim 0 split over both axes (b minor): one row per device
    const z = await rt.devicePut(y, rt.layout([0, 1, 2, 3], [2, 2], [[0, 1], []]));
    expect(z.shards[0]!.size).toBe(6);
    expect([...(await rt.backend.read(z.shards[1]!))]).toEqual([6, 7, 8, 9, 10, 11]);
    expect([...(await z.data())]).toEqual([...(await x.data())]);
    // replicated over b: both devices of a row hold the same block
    const r = await rt.devicePut(x, rt.layout([0, 1, 2, 3], [2, 2], [[0], []]));
    expect([...(await rt.backend.read(r.shards[1]!))]).toEqual([...(await rt.backend.read(r.shards[0]!))]);
    expect([...(await r.data())]).toEqual([...(await x.data())]);
  });
  it('gathers within replica groups', () => {
    const b = new CpuBackend();
    const prog: ProgramSpec = {
      name: 'g', params: [{ dtype: 'int32', size: 1 }], buffers: [{ dtype: 'int32', size: 2 }], kernels: [],
      steps: [{ kind: 'gather', input: { kind: 'param', index: 0 }, output: 0, groups: [[0, 2], [3, 1]] }],
      results: [{ kind: 'buf', index: 0 }], resultShapes: [[2]],
    };
    const outs = b.run(prog, [0, 1, 2, 3], [0, 1, 2, 3].map((d) => [b.upload(d, 'int32', new Int32Array([d * 10]))]));
    expect(outs.map((o) => [...(o[0] as unknown as { data: Int32Array }).data])).toEqual([[0, 20], [30, 10], [0, 20], [30, 10]]);
  });
});
