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
import { FuncBuilder } from '../ir/builder.js';
import { lit } from '../ir/builder.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';

const REDUCE_OF: Record<string, string> = { psum: 'reduce_sum', pmax: 'reduce_max', pmin: 'reduce_min' };

/** Is `e` the communication step the runtime performs (gather along a new leading axis)? */
export const isDeviceGather = (e: Eqn): boolean =>
  e.prim === 'all_gather' && e.params['all_gather_dimension'] === 0 && !e.params['tiled'];

export function lowerCollectives(f: Func): Func {
  const lowered = new Set(['psum', 'pmax', 'pmin', 'all_gather', 'psum_scatter', 'ppermute']);
  if (!f.eqns.some((e) => lowered.has(e.prim) && !isDeviceGather(e))) return f;
  const b = new FuncBuilder(f.name);
  const env = new Map<number, Atom>();
  for (const p of f.params) env.set(p.id, b.addParam(p.aval, p.hint));
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  for (const e of f.eqns) {
    const ins = e.inputs.map(read);
    const outs = lowered.has(e.prim) && !isDeviceGather(e) ? lowerOne(b, e, ins) : b.bind(e.prim, ins, e.params, e.span);
    e.outputs.forEach((o: Var, i) => env.set(o.id, outs[i]!));
  }
  return b.finish(f.results.map(read), f.axisEnv);
}

function lowerOne(b: FuncBuilder, e: Eqn, ins: Atom[]): Atom[] {
  const names = (e.params['axes'] ?? e.params['axis_name']) as string[];
  const n = e.prim === 'all_gather' || e.prim === 'psum_scatter' ? (e.params['axis_size'] as number) : null;
  const x = ins[0]!;
  const gather = (v: Atom, size: number): Var =>
    b.bind1('all_gather', [v], { axis_name: names, axis_size: size, all_gather_dimension: 0, tiled: false }, e.span);
  const rank = x.aval.shape.length;
  switch (e.prim) {
    case 'psum':
    case 'pmax':
    case 'pmin': {
      const size = axisSize(e, names);
      return ins.map((v) => b.bind1(REDUCE_OF[e.prim]!, [gather(v, size)], { axes: [0], out_sharding: null }, e.span));
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
      const at = b.bind1('mul', [b.bind1('axis_index', [], { axis_name: names }, e.span), lit(block, 'int32')], {}, e.span);
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
      const me = b.bind1('axis_index', [], { axis_name: names }, e.span);
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
  }
  throw new Error(`internal: no lowering for collective '${e.prim}'`);
}

function axisSize(e: Eqn, names: string[]): number {
  const s = e.params['axis_size'];
  if (typeof s === 'number') return s;
  throw new Error(`internal: collective '${e.prim}' over ${names.join(', ')} has no axis_size`);
}
