// Collectives → one communication primitive plus local work. Before fusion,
// every collective over the mapped axis is rewritten into an untiled
// `all_gather` along a new leading axis (the only step the runtime's
// communicator performs: each device receives every device's buffer) and
// ordinary local primitives on the gathered array, which then fuse like any
// other kernel:
//   psum/pmax/pmin x  → reduce_{sum,max,min}(gather(x), axes=[0])   (device order)
//   all_gather x      → movement ops on gather(x)
//   psum_scatter x    → dynamic_slice(reduce_sum(gather(x)), at axis_index * block)
//   ppermute x        → dynamic_slice(gather(x), at source(axis_index)), zeros where no source
//   all_to_all x      → dynamic_slice of my block along split_axis of gather(x), devices' blocks
//                       concatenated along concat_axis
// A psum of several operands (XLA's combined all-reduce) gathers them as one
// flat buffer: one communication step. On a mesh of several axes, a collective
// over some of them runs within replica groups (the fusion pass attaches the
// groups to the gather), and axis_index over a subset of the axes becomes
// arithmetic on the device's mesh position.
import { FuncBuilder } from '../ir/builder.js';
import { lit } from '../ir/builder.js';
import { PRIMS, type Prim } from '../ir/prims.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { size } from '../ir/types.js';

/** The local reduction over the gathered device axis of each all-reduce. */
const REDUCE_OF: Record<'psum' | 'pmax' | 'pmin', Prim> = { psum: 'reduce_sum', pmax: 'reduce_max', pmin: 'reduce_min' };

/** Is `e` the communication step the runtime performs (gather along a new leading axis)? */
export const isDeviceGather = (e: Eqn): boolean =>
  e.prim === 'all_gather' && e.params['all_gather_dimension'] === 0 && !e.params['tiled'];

export function lowerCollectives(f: Func): Func {
  const axes = f.axisEnv ?? [];
  const needs = (e: Eqn): boolean => PRIMS[e.prim].axes !== undefined && !isDeviceGather(e) && !(e.prim === 'axis_index' && (axes.length <= 1 || isWholeMesh(axes, e.params['axis_name'] as string[])));
  if (!f.eqns.some(needs)) return f;
  const b = new FuncBuilder(f.name);
  const env = new Map<number, Atom>();
  for (const p of f.params) env.set(p.id, b.addParam(p.aval, p.hint));
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  for (const e of f.eqns) {
    const ins = e.inputs.map(read);
    const outs = needs(e) ? lowerOne(b, e, ins, axes) : b.bind(e.prim, ins, e.params, e.span);
    e.outputs.forEach((o: Var, i) => env.set(o.id, outs[i]!));
  }
  return b.finish(f.results.map(read), f.axisEnv);
}

/** Does `names` list every axis of the environment, in order (so axis_index is the device position)? */
const isWholeMesh = (env: readonly AxisEntry[], names: readonly string[]): boolean =>
  env.length === names.length && env.every((a, i) => a.name === names[i]);

type AxisEntry = { name: string; size: number };

function lowerOne(b: FuncBuilder, e: Eqn, ins: Atom[], env: readonly AxisEntry[]): Atom[] {
  const names = (e.params['axes'] ?? e.params['axis_name']) as string[];
  const n = e.prim === 'all_gather' || e.prim === 'psum_scatter' || e.prim === 'all_to_all' ? (e.params['axis_size'] as number) : null;
  const x = ins[0]!;
  const gather = (v: Atom, size: number): Var =>
    b.bind1('all_gather', [v], { axis_name: names, axis_size: size, all_gather_dimension: 0, tiled: false }, e.span);
  const axisIndex = (): Atom => (isWholeMesh(env, names) || env.length <= 1 ? b.bind1('axis_index', [], { axis_name: names }, e.span) : meshIndex(b, env, names, e));
  const rank = x?.aval.shape.length ?? 0;
  switch (e.prim) {
    case 'axis_index':
      return [meshIndex(b, env, names, e)];
    case 'psum':
    case 'pmax':
    case 'pmin': {
      const size = axisSize(e, names);
      const reduce = REDUCE_OF[e.prim];
      if (ins.length > 1 && ins.every((v) => v.aval.dtype === x.aval.dtype)) return combined(b, e, ins, gather(flatConcat(b, e, ins), size), reduce);
      return ins.map((v) => b.bind1(reduce, [gather(v, size)], { axes: [0], out_sharding: null }, e.span));
    }
    case 'all_gather': {
      const d = e.params['all_gather_dimension'] as number;
      const g = gather(x, n!);
      const perm = [...Array(rank + 1).keys()].slice(1);
      perm.splice(d, 0, 0);
      const moved = d === 0 ? g : b.bind1('transpose', [g], { permutation: perm }, e.span);
      if (!e.params['tiled']) return [moved];
      return [b.bind1('reshape', [moved], { new_sizes: [...e.outputs[0]!.aval.shape], dimensions: null }, e.span)];
    }
    case 'psum_scatter': {
      const d = e.params['scatter_dimension'] as number;
      const tiled = e.params['tiled'] as boolean;
      const sum = b.bind1('reduce_sum', [gather(x, n!)], { axes: [0], out_sharding: null }, e.span);
      const block = tiled ? x.aval.shape[d]! / n! : 1;
      const at = b.bind1('mul', [axisIndex(), lit(block, 'int32')], {}, e.span);
      const starts: Atom[] = x.aval.shape.map((_, i) => (i === d ? at : lit(0, 'int32')));
      const sizes = x.aval.shape.map((s, i) => (i === d ? block : s));
      const sliced = b.bind1('dynamic_slice', [sum, ...starts], { slice_sizes: sizes }, e.span);
      if (tiled) return [sliced];
      return [b.bind1('reshape', [sliced], { new_sizes: [...e.outputs[0]!.aval.shape], dimensions: null }, e.span)];
    }
    case 'ppermute': {
      const perm = e.params['perm'] as [number, number][];
      const size = axisSize(e, names);
      const g = gather(x, size);
      // source device of each destination, as a select chain on axis_index; -1: receives zeros
      const me = axisIndex();
      let src: Atom = lit(-1, 'int32');
      for (const [s, dst] of perm) {
        const isDst = b.bind1('eq', [me, lit(dst, 'int32')], {}, e.span);
        src = b.bind1('select_n', [isDst, src, lit(s, 'int32')], {}, e.span);
      }
      const has = b.bind1('ge', [src, lit(0, 'int32')], {}, e.span);
      const clamped = b.bind1('max', [src, lit(0, 'int32')], {}, e.span);
      const starts: Atom[] = [clamped, ...x.aval.shape.map(() => lit(0, 'int32'))];
      const row = b.bind1('dynamic_slice', [g, ...starts], { slice_sizes: [1, ...x.aval.shape] }, e.span);
      const value = b.bind1('reshape', [row], { new_sizes: [...x.aval.shape], dimensions: null }, e.span);
      const zeros = b.bind1('broadcast_in_dim', [lit(0, x.aval.dtype)], { shape: [...x.aval.shape], broadcast_dimensions: [] }, e.span);
      const hasB = b.bind1('broadcast_in_dim', [has], { shape: [...x.aval.shape], broadcast_dimensions: [] }, e.span);
      return [b.bind1('select_n', [hasB, zeros, value], {}, e.span)];
    }
    case 'all_to_all': {
      const split = e.params['split_axis'] as number;
      const concat = e.params['concat_axis'] as number;
      const block = x.aval.shape[split]! / n!;
      const g = gather(x, n!);
      // every device's block number `me` along split_axis
      const at = b.bind1('mul', [axisIndex(), lit(block, 'int32')], {}, e.span);
      const starts: Atom[] = [lit(0, 'int32'), ...x.aval.shape.map((_, i) => (i === split ? at : lit(0, 'int32')))];
      const sizes = [n!, ...x.aval.shape.map((s, i) => (i === split ? block : s))];
      const mine = b.bind1('dynamic_slice', [g, ...starts], { slice_sizes: sizes }, e.span);
      // the device axis goes just before concat_axis, then merges into it
      const perm = [...Array(rank + 1).keys()].slice(1);
      perm.splice(concat, 0, 0);
      const moved = b.bind1('transpose', [mine], { permutation: perm }, e.span);
      return [b.bind1('reshape', [moved], { new_sizes: [...e.outputs[0]!.aval.shape], dimensions: null }, e.span)];
    }
  }
  throw new Error(`internal: no lowering for collective '${e.prim}'`);
}

/** The operands flattened and concatenated into one vector (one buffer to communicate). */
function flatConcat(b: FuncBuilder, e: Eqn, ins: Atom[]): Var {
  const flat = ins.map((v) => b.bind1('reshape', [v], { new_sizes: [size(v.aval.shape)], dimensions: null }, e.span));
  return b.bind1('concatenate', flat, { dimension: 0 }, e.span);
}

/** Reduce the gathered flat vector over devices and cut it back into the operands. */
function combined(b: FuncBuilder, e: Eqn, ins: Atom[], g: Var, reduce: Prim): Atom[] {
  const total = b.bind1(reduce, [g], { axes: [0], out_sharding: null }, e.span);
  let off = 0;
  return ins.map((v) => {
    const n = size(v.aval.shape);
    const part = b.bind1('slice', [total], { start_indices: [off], limit_indices: [off + n], strides: null }, e.span);
    off += n;
    return b.bind1('reshape', [part], { new_sizes: [...v.aval.shape], dimensions: null }, e.span);
  });
}

/** axis_index over `names` on a mesh of axes `env`: the row-major index of the device's coordinates along `names`. */
function meshIndex(b: FuncBuilder, env: readonly AxisEntry[], names: readonly string[], e: Eqn): Atom {
  const pos = b.bind1('axis_index', [], { axis_name: env.map((a) => a.name) }, e.span);
  let idx: Atom = lit(0, 'int32');
  for (const name of names) {
    const k = env.findIndex((a) => a.name === name);
    if (k < 0) throw new Error(`internal: axis '${name}' is not in the program's axes`);
    const stride = env.slice(k + 1).reduce((s, a) => s * a.size, 1);
    const coord = b.bind1('rem', [b.bind1('div', [pos, lit(stride, 'int32')], {}, e.span), lit(env[k]!.size, 'int32')], {}, e.span);
    idx = b.bind1('add', [b.bind1('mul', [idx, lit(env[k]!.size, 'int32')], {}, e.span), coord], {}, e.span);
  }
  return idx;
}

function axisSize(e: Eqn, names: string[]): number {
  const s = e.params['axis_size'];
  if (typeof s === 'number') return s;
  throw new Error(`internal: collective '${e.prim}' over ${names.join(', ')} has no axis_size`);
}
