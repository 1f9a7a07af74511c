// Sharding propagation and SPMD partitioning: which collectives the
// per-device program gets (exact sets, as XLA's GSPMD inserts them), and
// numerically that every device's result block equals the matching block of
// the global program's result (reference evaluator, simulated devices).
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import type { DimShardings, MeshShape } from '../../src/ir/sharding.js';
import { localShape, replicaGroups } from '../../src/ir/sharding.js';
import type { Atom, AVal, Func, Var } from '../../src/ir/types.js';
import { vjpFunc } from '../../src/passes/autodiff.js';
import { propagateShardings } from '../../src/passes/sharding.js';
import { dce } from '../../src/passes/simplify.js';
import type { SpmdProgram } from '../../src/ir/sharding.js';
import { partition, printSpmd } from '../../src/passes/spmd.js';
import { type Arr, evalFunc, evalSpmd } from '../helpers/ir_eval.js';

const f32 = (...shape: number[]): AVal => ({ shape, dtype: 'float32' });
const auto = (...axes: [string, number][]): MeshShape => ({ axes: axes.map(([name, size]) => ({ name, size })), explicit: false });
const explicit = (...axes: [string, number][]): MeshShape => ({ ...auto(...axes), explicit: true });
const mm = { contract: [[1], [0]], batch: [[], []] };
const dot = (b: FuncBuilder, x: Atom, w: Atom, dims: unknown = mm): Var =>
  b.bind1('dot_general', [x, w], { dimension_numbers: dims, precision: null, preferred_element_type: 'float32' });
const allAxes = (a: Atom): number[] => a.aval.shape.map((_, i) => i);
/** jnp.mean over all axes: reduce_sum, then a division by the (weak) element count. */
const mean = (b: FuncBuilder, x: Atom): Var =>
  b.bind1('div', [b.bind1('reduce_sum', [x], { axes: allAxes(x), out_sharding: null }), lit(x.aval.shape.reduce((p, q) => p * q, 1), 'float32', true)]);
const bcast = (b: FuncBuilder, v: number, shape: number[]): Var => b.bind1('broadcast_in_dim', [lit(v, 'float32')], { shape, broadcast_dimensions: [] });

/** Collective equations of the local program, as `prim:axes` → count. */
function collectives(p: SpmdProgram): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of p.local.eqns) {
    if (!['psum', 'pmax', 'pmin', 'all_gather', 'psum_scatter', 'all_to_all', 'ppermute'].includes(e.prim)) continue;
    const k = `${e.prim}:${((e.params['axes'] ?? e.params['axis_name']) as string[]).join(',')}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

// ------------------------------------------------------------------ numeric check

const sz = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

function rand(shape: number[], seed: number): Arr {
  return { shape, data: Array.from({ length: sz(shape) }, (_, i) => Math.sin(1.7 * i + 0.3 * seed + 0.1 * i * seed) + 0.25 * Math.cos(0.37 * i * (seed + 1))) };
}

/** The block of `a` that mesh position `dev` holds in sharding `dims`. */
function blockOf(a: Arr, dims: DimShardings, mesh: MeshShape, dev: number): Arr {
  const sizes = mesh.axes.map((x) => x.size);
  const coords = sizes.map((s, i) => Math.floor(dev / sz(sizes.slice(i + 1))) % s);
  const shape = localShape(a.shape, dims, mesh);
  const off = a.shape.map((_, d) => {
    let k = 0;
    for (const n of dims[d] ?? []) {
      const i = mesh.axes.findIndex((m) => m.name === n);
      k = k * sizes[i]! + coords[i]!;
    }
    return k * shape[d]!;
  });
  const data: number[] = [];
  const st = a.shape.map((_, d) => sz(a.shape.slice(d + 1)));
  const idx = shape.map(() => 0);
  for (let lin = 0; lin < sz(shape); lin++) {
    data.push(a.data[idx.reduce((s, v, d) => s + (v + off[d]!) * st[d]!, 0)]!);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
    }
  }
  return { shape, data };
}

/** Run the global program on random inputs and the local one on every device's blocks; compare blocks. */
function checkNumeric(p: SpmdProgram): void {
  const args = p.global.params.map((v, i) => rand([...v.aval.shape], i + 1));
  const want = evalFunc(p.global, args);
  const n = sz(p.mesh.axes.map((a) => a.size));
  const perDev = Array.from({ length: n }, (_, dev) => args.map((a, i) => blockOf(a, p.inShardings[i]!, p.mesh, dev)));
  const got = evalSpmd(p.local, perDev);
  for (let dev = 0; dev < n; dev++) {
    want.forEach((w, i) => {
      const exp = blockOf(w, p.outShardings[i]!, p.mesh, dev);
      const g = got[dev]![i]!;
      expect(g.shape).toEqual(exp.shape);
      g.data.forEach((v, j) => {
        const e = exp.data[j]!;
        expect(Math.abs(v - e)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(e)));
      });
    });
  }
}

// ------------------------------------------------------------------ programs

/** x @ w with the given shapes. */
function matmul(xs: number[], ws: number[]): Func {
  const b = new FuncBuilder('matmul');
  const x = b.addParam(f32(...xs), 'x');
  const w = b.addParam(f32(...ws), 'w');
  return b.finish([dot(b, x, w)]);
}

/** loss(w, x, y) = mean((x @ w - y) ** 2), or without y: mean((x @ w) ** 2). */
function lsq(withY: boolean): Func {
  const b = new FuncBuilder('loss');
  const w = b.addParam(f32(8), 'w');
  const x = b.addParam(f32(16, 8), 'x');
  let p: Atom = dot(b, x, w);
  if (withY) p = b.bind1('sub', [p, b.addParam(f32(16), 'y')]);
  return b.finish([mean(b, b.bind1('integer_pow', [p], { y: 2 }))]);
}

/** The seed MLP loss: mean((tanh(x @ w1) @ w2 - y) ** 2). */
function mlpLoss(): Func {
  const b = new FuncBuilder('mlp_loss');
  const w1 = b.addParam(f32(8, 16), 'w1');
  const w2 = b.addParam(f32(16, 4), 'w2');
  const x = b.addParam(f32(32, 8), 'x');
  const y = b.addParam(f32(32, 4), 'y');
  const h = b.bind1('tanh', [dot(b, x, w1)]);
  const d = b.bind1('sub', [dot(b, h, w2), y]);
  return b.finish([mean(b, b.bind1('integer_pow', [d], { y: 2 }))]);
}

/** A gradient program (grad only, or value_and_grad) with respect to the parameters marked. */
function gradOf(f: Func, wrt: boolean[], withValue: boolean): Func {
  const g = vjpFunc(f, wrt);
  return withValue ? g : dce({ ...g, results: g.results.slice(1) });
}

const R = (n: number): DimShardings => Array.from({ length: n }, () => []);

describe('spmd: collectives inserted (exact sets)', () => {
  it('1. batch-sharded x @ replicated w: no collectives, result batch-sharded', () => {
    const p = partition(matmul([16, 8], [8, 4]), auto(['x', 4]), [[['x'], []], R(2)]);
    expect(collectives(p)).toEqual({});
    expect(p.outShardings).toEqual([[['x'], []]]);
    expect(p.local.params.map((v) => v.aval.shape)).toEqual([[4, 8], [8, 4]]);
    expect(p.local.results[0]!.aval.shape).toEqual([4, 4]);
    checkNumeric(p);
  });

  it('2. contracting dim sharded on both operands: one psum', () => {
    const p = partition(matmul([8, 16], [16, 4]), auto(['x', 4]), [[[], ['x']], [['x'], []]]);
    expect(collectives(p)).toEqual({ 'psum:x': 1 });
    expect(p.outShardings).toEqual([R(2)]);
    checkNumeric(p);
  });

  it('3. 2D mesh: data-sharded x @ model-sharded W: no collectives, result sharded both ways', () => {
    const p = partition(matmul([16, 8], [8, 6]), auto(['data', 4], ['model', 2]), [[['data'], []], [[], ['model']]]);
    expect(collectives(p)).toEqual({});
    expect(p.outShardings).toEqual([[['data'], ['model']]]);
    expect(p.local.axisEnv).toEqual([{ name: 'data', size: 4 }, { name: 'model', size: 2 }]);
    checkNumeric(p);
  });

  it('4. mean over a batch-sharded vector: one psum of a scalar', () => {
    const b = new FuncBuilder('m');
    const x = b.addParam(f32(16));
    const p = partition(b.finish([mean(b, x)]), auto(['x', 4]), [[['x']]]);
    expect(collectives(p)).toEqual({ 'psum:x': 1 });
    const ps = p.local.eqns.find((e) => e.prim === 'psum')!;
    expect(ps.inputs.map((a) => a.aval.shape)).toEqual([[]]);
    checkNumeric(p);
  });

  it('5. grad of mean((x @ w) ** 2) w.r.t. replicated w: one psum; value_and_grad too (combiner)', () => {
    const ins: DimShardings[] = [R(1), [['x'], []]];
    const g = partition(gradOf(lsq(false), [true, false], false), auto(['x', 4]), ins);
    expect(collectives(g)).toEqual({ 'psum:x': 1 });
    expect(g.outShardings).toEqual([R(1)]);
    checkNumeric(g);
    const vg = partition(gradOf(lsq(false), [true, false], true), auto(['x', 4]), ins);
    expect(collectives(vg)).toEqual({ 'psum:x': 1 });
    checkNumeric(vg);
  });

  it('5b. value_and_grad of mean((x @ w - y) ** 2), x and y batch-sharded: ONE psum (loss and [8] gradient), no all_gather', () => {
    const p = partition(gradOf(lsq(true), [true, false, false], true), auto(['x', 4]), [R(1), [['x'], []], [['x']]]);
    expect(collectives(p)).toEqual({ 'psum:x': 1 });
    const ps = p.local.eqns.find((e) => e.prim === 'psum')!;
    expect(ps.inputs.map((a) => a.aval.shape).sort((a, b) => a.length - b.length)).toEqual([[], [8]]);
    expect(ps.outputs).toHaveLength(2);
    checkNumeric(p);
  });

  it('6. Megatron MLP relu(x @ W1) @ W2: exactly one psum over model', () => {
    const mk = (): Func => {
      const b = new FuncBuilder('mlp');
      const x = b.addParam(f32(8, 16), 'x');
      const w1 = b.addParam(f32(16, 32), 'W1');
      const w2 = b.addParam(f32(32, 16), 'W2');
      const h = dot(b, x, w1);
      const r = b.bind1('max', [h, bcast(b, 0, [8, 32])]);
      return b.finish([dot(b, r, w2)]);
    };
    for (const mesh of [auto(['data', 2], ['model', 2]), auto(['model', 4])]) {
      const p = partition(mk(), mesh, [R(2), [[], ['model']], [['model'], []]]);
      expect(collectives(p)).toEqual({ 'psum:model': 1 });
      checkNumeric(p);
    }
  });

  it('7. reshard P(x) → P(): one all_gather', () => {
    const b = new FuncBuilder('id');
    const x = b.addParam(f32(16));
    const p = partition(b.finish([x]), auto(['x', 4]), [[['x']]], [R(1)]);
    expect(collectives(p)).toEqual({ 'all_gather:x': 1 });
    expect(p.outShardings).toEqual([R(1)]);
    checkNumeric(p);
  });

  it("8. reshard P('x', None) → P(None, 'x'): one all_to_all", () => {
    const b = new FuncBuilder('id');
    const x = b.addParam(f32(8, 12));
    const p = partition(b.finish([x]), auto(['x', 4]), [[['x'], []]], [[[], ['x']]]);
    expect(collectives(p)).toEqual({ 'all_to_all:x': 1 });
    checkNumeric(p);
  });

  it('9. explicit axes: an ambiguous contracting dot raises; Auto gives one psum; the MLP gradient does not raise', () => {
    const ins: DimShardings[] = [[[], ['dp']], [['dp'], []]];
    expect(() => partition(matmul([8, 16], [16, 4]), explicit(['dp', 4]), ins)).toThrow(
      "ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec=('dp',) and rhs_contracting_spec=('dp',)",
    );
    expect(collectives(partition(matmul([8, 16], [16, 4]), auto(['dp', 4]), ins))).toEqual({ 'psum:dp': 1 });
    const g = gradOf(mlpLoss(), [true, true, false, false], true);
    const p = partition(g, explicit(['dp', 4]), [null, null, [['dp'], []], [['dp'], []]]);
    expect(p.inShardings).toEqual([R(2), R(2), [['dp'], []], [['dp'], []]]);
    // loss and both weight gradients: all-reduced, in one combined psum
    expect(collectives(p)).toEqual({ 'psum:dp': 1 });
    expect(p.outShardings).toEqual([[], R(2), R(2)]);
    checkNumeric(p);
  });
});

describe('spmd: sharding_constraint (jax.reshard, auto_axes / explicit_axes casts)', () => {
  it('fixes its result layout: a constraint to P() gathers, one back to P(x) slices locally', () => {
    const b = new FuncBuilder('cast');
    const x = b.addParam(f32(16, 4));
    const whole = b.bind1('sharding_constraint', [x], { dims: R(2) });
    const y = b.bind1('neg', [whole]);
    const out = b.bind1('sharding_constraint', [y], { dims: [['x'], []] });
    const f = b.finish([out]);
    for (const mesh of [auto(['x', 4]), explicit(['x', 4])]) {
      const dims = propagateShardings(f, mesh, [[['x'], []]]);
      expect(dims.get(whole.id)).toEqual(R(2));
      const p = partition(f, mesh, [[['x'], []]]);
      if (mesh.explicit) expect(dims.get(y.id)).toEqual(R(2));
      expect(collectives(p)).toEqual({ 'all_gather:x': 1 });
      expect(p.outShardings).toEqual([[['x'], []]]);
      checkNumeric(p);
    }
  });

  it('under Explicit axes, a constraint dropping an axis makes an illegal broadcast legal', () => {
    const b = new FuncBuilder('add');
    const x = b.addParam(f32(4, 4));
    const y = b.addParam(f32(4, 4));
    const ins: DimShardings[] = [[['x'], []], [[], ['x']]];
    expect(() => propagateShardings(b.finish([b.bind1('add', [x, y])]), explicit(['x', 2]), ins)).toThrow('produces an illegally sharded result: f32[4@x,4@x]');
    const c = new FuncBuilder('add');
    const cx = c.addParam(f32(4, 4));
    const cy = c.addParam(f32(4, 4));
    const cast = c.bind1('sharding_constraint', [cy], { dims: R(2) });
    const p = partition(c.finish([c.bind1('add', [cx, cast])]), explicit(['x', 2]), ins);
    expect(p.outShardings).toEqual([[['x'], []]]);
    checkNumeric(p);
  });
});

describe('spmd: more layouts (numeric)', () => {
  it('reduce-scatter when the consumer wants the summed result sharded on the same axis', () => {
    const b = new FuncBuilder('rs');
    const x = b.addParam(f32(8, 16));
    const w = b.addParam(f32(16, 4));
    const bias = b.addParam(f32(8, 4));
    const p = partition(b.finish([b.bind1('add', [dot(b, x, w), bias])]), auto(['x', 4]), [[[], ['x']], [['x'], []], [['x'], []]]);
    expect(collectives(p)).toEqual({ 'psum_scatter:x': 1 });
    expect(p.outShardings).toEqual([[['x'], []]]);
    checkNumeric(p);
  });

  it('one side sharded on the contracting dim: the other is sliced locally, then one psum', () => {
    const p = partition(matmul([8, 16], [16, 4]), auto(['x', 4]), [[[], ['x']], R(2)]);
    expect(collectives(p)).toEqual({ 'psum:x': 1 });
    expect(p.local.eqns.some((e) => e.prim === 'dynamic_slice')).toBe(true);
    checkNumeric(p);
  });

  it('free parameters take the sharding propagation chooses', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(16, 8));
    const y = b.addParam(f32(16, 8));
    const p = partition(b.finish([b.bind1('mul', [b.bind1('sin', [x]), y])]), auto(['x', 4]), [[['x'], []], null]);
    expect(p.inShardings).toEqual([[['x'], []], [['x'], []]]);
    expect(collectives(p)).toEqual({});
    checkNumeric(p);
  });

  it('2D mesh: reductions over both axes, broadcasting, transposes, reshapes', () => {
    const mesh = auto(['data', 2], ['model', 2]);
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8, 12), 'x');
    const v = b.addParam(f32(12), 'v');
    const vb = b.bind1('broadcast_in_dim', [v], { shape: [8, 12], broadcast_dimensions: [1] });
    const s = b.bind1('exp', [b.bind1('mul', [x, vb])]);
    const t = b.bind1('transpose', [s], { permutation: [1, 0] });
    const r = b.bind1('reshape', [t], { new_sizes: [4, 3, 8], dimensions: null });
    const mx = b.bind1('reduce_max', [x], { axes: [1], out_sharding: null });
    const tot = b.bind1('reduce_sum', [x], { axes: [0, 1], out_sharding: null });
    const p = partition(b.finish([r, mx, tot]), mesh, [[['data'], ['model']], [['model']]]);
    expect(p.outShardings[0]).toEqual([['model'], [], ['data']]);
    expect(collectives(p)).toEqual({ 'pmax:model': 1, 'psum:data,model': 1 });
    checkNumeric(p);
  });

  it('reshape merging and splitting a sharded major dim keeps the axis', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8, 4));
    const m = b.bind1('reshape', [x], { new_sizes: [32], dimensions: null });
    const sp = b.bind1('reshape', [x], { new_sizes: [4, 2, 4], dimensions: null });
    for (const mesh of [auto(['dp', 4]), explicit(['dp', 4])]) {
      const p = partition(b.finish([m, sp]), mesh, [[['dp'], []]]);
      expect(p.outShardings).toEqual([[['dp']], [['dp'], [], []]]);
      expect(collectives(p)).toEqual({});
      checkNumeric(p);
    }
  });

  it('iota with a sharded result: local iota plus the block offset', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(16, 4));
    const i = b.bind1('iota', [], { dtype: 'float32', shape: [16, 4], dimension: 0, sharding: null });
    const p = partition(b.finish([b.bind1('add', [x, i])]), auto(['x', 4]), [[['x'], []]]);
    expect(collectives(p)).toEqual({});
    expect(p.local.eqns.some((e) => e.prim === 'axis_index')).toBe(true);
    checkNumeric(p);
  });

  it('argmax over a sharded dim gathers first; slices and concatenation keep uncut dims sharded', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8, 12));
    const am = b.bind1('argmax', [x], { axes: [1], index_dtype: 'int32' });
    const sl = b.bind1('slice', [x], { start_indices: [0, 2], limit_indices: [8, 10], strides: null });
    const cat = b.bind1('concatenate', [sl, sl], { dimension: 1 });
    const p = partition(b.finish([am, cat]), auto(['r', 2], ['c', 2]), [[['r'], ['c']]]);
    expect(p.outShardings).toEqual([[['r']], [['r'], []]]);
    expect(collectives(p)).toEqual({ 'all_gather:c': 1 });
    checkNumeric(p);
  });

  it('two mesh axes on one dimension, resharded to the other dimension', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8, 8));
    const p = partition(b.finish([b.bind1('neg', [x])]), auto(['a', 2], ['b', 2]), [[['a', 'b'], []]], [[['a'], ['b']]]);
    expect(collectives(p)).toEqual({ 'all_to_all:b': 1 });
    checkNumeric(p);
    const q = partition(b.finish([x]), auto(['a', 2], ['b', 2]), [[['a'], ['b']]], [[[], ['b', 'a']]]);
    checkNumeric(q);
  });

  it('a contracting axis the result already uses through the other operand: that operand is gathered instead', () => {
    const p = partition(matmul([16, 8], [8, 4]), auto(['x', 4]), [[['x'], []], [['x'], []]]);
    expect(collectives(p)).toEqual({ 'all_gather:x': 1 });
    expect(p.outShardings).toEqual([[['x'], []]]);
    checkNumeric(p);
  });

  it('batched dot_general on a 2D mesh (batch on one axis, contracting on the other)', () => {
    const b = new FuncBuilder('bmm');
    const x = b.addParam(f32(4, 6, 8));
    const y = b.addParam(f32(4, 8, 2));
    const z = dot(b, x, y, { contract: [[2], [1]], batch: [[0], [0]] });
    const p = partition(b.finish([z]), auto(['b', 2], ['k', 2]), [[['b'], [], ['k']], null]);
    expect(p.inShardings[1]).toEqual([['b'], ['k'], []]);
    expect(collectives(p)).toEqual({ 'psum:k': 1 });
    expect(p.outShardings).toEqual([[['b'], [], []]]);
    checkNumeric(p);
  });

  it('rev, pad, dynamic_slice, squeeze, select_n keep the dims they do not touch sharded', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8, 6, 1));
    const sq = b.bind1('squeeze', [x], { dimensions: [2] });
    const rv = b.bind1('rev', [sq], { dimensions: [1] });
    const pd = b.bind1('pad', [rv, lit(0, 'float32')], { padding_config: [[0, 0, 0], [1, 2, 1]] });
    const ds = b.bind1('dynamic_slice', [pd, lit(0, 'int32'), lit(3, 'int32')], { slice_sizes: [8, 4] });
    const pos = b.bind1('gt', [ds, bcast(b, 0, [8, 4])]);
    const sel = b.bind1('select_n', [pos, bcast(b, -1, [8, 4]), ds]);
    const p = partition(b.finish([sel, rv]), auto(['x', 2], ['y', 2]), [[['x', 'y'], [], []]]);
    expect(collectives(p)).toEqual({});
    expect(p.outShardings).toEqual([[['x', 'y'], []], [['x', 'y'], []]]);
    checkNumeric(p);
  });

  it('a dim sharded over two axes reduce-scattered over both after a contraction', () => {
    const b = new FuncBuilder('rs2');
    const x = b.addParam(f32(8, 16));
    const w = b.addParam(f32(16, 4));
    const bias = b.addParam(f32(8, 4));
    const p = partition(b.finish([b.bind1('add', [dot(b, x, w), bias])]), auto(['a', 2], ['b', 2]), [[[], ['a', 'b']], [['a', 'b'], []], [['a', 'b'], []]]);
    expect(collectives(p)).toEqual({ 'psum_scatter:a,b': 1 });
    checkNumeric(p);
  });

  it('explicit axes: transposed dots of the MLP gradient are unsharded on their contracting axis', () => {
    const g = gradOf(mlpLoss(), [true, true, false, false], true);
    const sh = propagateShardings(g, explicit(['dp', 4]), [null, null, [['dp'], []], [['dp'], []]]);
    // transposed dots (weight gradients) are unsharded on the contracting axis
    const tdots = g.eqns.filter((e) => e.prim === 'dot_general' && e.transposed);
    expect(tdots.length).toBeGreaterThan(0);
    let weightGrads = 0;
    for (const e of tdots) {
      const dn = e.params['dimension_numbers'] as { contract: [number[], number[]] };
      const contracted = e.inputs.flatMap((a, k) => (a.kind === 'var' ? dn.contract[k]!.flatMap((d) => sh.get(a.id)![d]!) : []));
      for (const ax of contracted) expect(sh.get(e.outputs[0]!.id)!.flat()).not.toContain(ax);
      if (contracted.includes('dp')) weightGrads++;
    }
    expect(weightGrads).toBe(2);
    // the input cotangent of the hidden layer stays batch-sharded
    expect(tdots.some((e) => sh.get(e.outputs[0]!.id)![0]![0] === 'dp')).toBe(true);
  });
});

describe('spmd: combiner and dump', () => {
  it('merges independent psums over the same axes into one, moving dependent equations after it', () => {
    // two partial sums; the first's result is used (sin) before the second is needed
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(16));
    const y = b.addParam(f32(16));
    const s1 = b.bind1('reduce_sum', [x], { axes: [0], out_sharding: null });
    const u = b.bind1('sin', [s1]);
    const s2 = b.bind1('reduce_sum', [y], { axes: [0], out_sharding: null });
    const p = partition(b.finish([u, s2]), auto(['x', 4]), [[['x']], [['x']]]);
    expect(collectives(p)).toEqual({ 'psum:x': 1 });
    const prims = p.local.eqns.map((e) => e.prim);
    expect(prims.indexOf('sin')).toBeGreaterThan(prims.indexOf('psum'));
    checkNumeric(p);
  });

  it('does not merge a psum that depends on the other', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(16));
    const y = b.addParam(f32(16));
    const s1 = b.bind1('reduce_sum', [x], { axes: [0], out_sharding: null });
    const sb = b.bind1('broadcast_in_dim', [b.bind1('sin', [s1])], { shape: [16], broadcast_dimensions: [] });
    const s2 = b.bind1('reduce_sum', [b.bind1('mul', [y, sb])], { axes: [0], out_sharding: null });
    const p = partition(b.finish([s2]), auto(['x', 4]), [[['x']], [['x']]]);
    expect(collectives(p)).toEqual({ 'psum:x': 2 });
    checkNumeric(p);
  });

  it('printSpmd: header with sharded types, collectives with replica groups', () => {
    const p = partition(matmul([16, 8], [8, 6]), auto(['data', 4], ['model', 2]), [[['data'], []], [[], ['model']]], [[['data'], []]]);
    const s = printSpmd(p, 'step');
    const lines = s.split('\n');
    expect(lines[0]).toBe('# spmd step on mesh (data=4, model=2), auto axes');
    expect(s).toContain('in 0: f32[16@data,8]');
    expect(s).toContain('in 1: f32[8,6@model]');
    expect(s).toContain('out 0: f32[16@data,6]');
    const ag = lines.find((l) => l.includes('= all_gather['))!;
    expect(ag).toContain(`replica_groups={${replicaGroups(p.mesh, ['model']).map((g) => `{${g.join(',')}}`).join(',')}}]`);
    expect(ag).toContain('replica_groups={{0,1},{2,3},{4,5},{6,7}}');
  });
});
