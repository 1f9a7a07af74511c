// The collective lowering (src/passes/collectives.ts) on a 2-D mesh: every
// collective becomes one grouped gather plus local primitives, and the
// lowered program computes what the collective did, device by device.
import { describe, expect, it } from 'vitest';
import { FuncBuilder } from '../../src/ir/builder.js';
import type { Prim } from '../../src/ir/prims.js';
import type { Func, Params } from '../../src/ir/types.js';
import { lowerCollectives } from '../../src/passes/collectives.js';
import { kernelProgram } from '../../src/passes/pipeline.js';
import { evalSpmd, type Arr } from '../helpers/ir_eval.js';

const MESH = [{ name: 'a', size: 2 }, { name: 'b', size: 3 }];

/** f(x) = prim[params](x) for x: f32[shape], on the 2x3 mesh. */
function one(prim: Prim, shape: number[], params: Params, inputs = 1): Func {
  const b = new FuncBuilder(prim);
  const xs = Array.from({ length: inputs }, () => b.addParam({ shape, dtype: 'float32' }));
  return b.finish(b.bind(prim, xs, params), MESH);
}

/** Per-device arguments: device p's x holds p*100 + i. */
function args(f: Func): Arr[][] {
  return Array.from({ length: 6 }, (_, p) =>
    f.params.map((v, k) => {
      const n = v.aval.shape.reduce((a, c) => a * c, 1);
      return { shape: [...v.aval.shape], data: Array.from({ length: n }, (_, i) => p * 100 + i + k * 1000) };
    }),
  );
}

function same(f: Func): void {
  const lowered = lowerCollectives(f);
  const gathers = lowered.eqns.filter((e) => e.prim === 'all_gather');
  expect(gathers.length).toBe(1);
  expect(gathers[0]!.params['tiled']).toBe(false);
  expect(lowered.eqns.some((e) => ['psum', 'psum_scatter', 'all_to_all', 'ppermute'].includes(e.prim))).toBe(false);
  expect(evalSpmd(lowered, args(f))).toEqual(evalSpmd(f, args(f)));
}

describe('collective lowering on a 2-D mesh', () => {
  it('psum over one axis, over both, and combined operands', () => {
    same(one('psum', [2, 3], { axes: ['b'], axis_size: 3 }));
    same(one('psum', [4], { axes: ['a'], axis_size: 2 }));
    same(one('psum', [4], { axes: ['b', 'a'], axis_size: 6 }));
    same(one('psum', [2, 2], { axes: ['b'], axis_size: 3 }, 3));
  });
  it('all_gather, psum_scatter and all_to_all within groups', () => {
    same(one('all_gather', [2, 2], { axis_name: ['b'], axis_size: 3, all_gather_dimension: 1, tiled: true }));
    same(one('psum_scatter', [6, 2], { axis_name: ['b'], axis_size: 3, scatter_dimension: 0, tiled: true }));
    same(one('all_to_all', [6, 2], { axis_name: ['b'], axis_size: 3, split_axis: 0, concat_axis: 1, tiled: true }));
    same(one('all_to_all', [4, 3], { axis_name: ['a'], axis_size: 2, split_axis: 0, concat_axis: 1, tiled: true }));
  });
  it('axis_index over a subset of the axes is arithmetic on the mesh position', () => {
    for (const names of [['a'], ['b'], ['b', 'a']]) {
      const b = new FuncBuilder('idx');
      const f = b.finish([b.bind1('axis_index', [], { axis_name: names })], MESH);
      const got = evalSpmd(lowerCollectives(f), args(f)).map((r) => r[0]!.data[0]);
      const want = [0, 1, 2, 3, 4, 5].map((p) => {
        const a = Math.floor(p / 3);
        const bb = p % 3;
        return names.length === 2 ? bb * 2 + a : names[0] === 'a' ? a : bb;
      });
      expect(got).toEqual(want);
    }
  });
  it('the fused program carries the replica groups on its gather step', () => {
    const prog = kernelProgram(one('psum', [4], { axes: ['a'], axis_size: 2 }));
    const steps = prog.steps.filter((s) => s.kind === 'gather');
    expect(steps).toEqual([expect.objectContaining({ groups: [[0, 3], [1, 4], [2, 5]] })]);
    const whole = kernelProgram(one('psum', [4], { axes: ['a', 'b'], axis_size: 6 }));
    expect(whole.steps.find((s) => s.kind === 'gather')).not.toHaveProperty('groups');
  });
});
