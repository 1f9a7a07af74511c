// jax.lax: the collectives over named (pmap) axes — psum, pmean, pmax, pmin,
// all_gather, psum_scatter, ppermute, axis_index — mapped over pytrees as JAX
// does, plus the few plain lax functions lessons call.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { Prim } from '../ir/prims.js';
import type { Interp } from './interp.js';
import { truthy } from './pyops.js';
import { flatten } from './transforms.js';
import { laxShardingFunctions } from './lib_sharding.js';
import { arg, builtinModule, dtypeArg } from './modules.js';
import { PyList, PyModule, PyTuple, Tracer, isArray, type CallArgs, type PyValue } from './values.js';

/** The named axes of a collective, checked against the enclosing pmaps; JAX skips size-1 axes. */
function axesOf(ip: Interp, v: PyValue, prim: string, span: Span): { names: string[]; size: number } {
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
  const env = ip.trace().axisEnv;
  const names: string[] = [];
  let size = 1;
  for (const it of items) {
    if (typeof it !== 'string') throw new CompileError('jaxts: collective axis names must be strings', span);
    const a = env.find((x) => x.name === it);
    if (!a) throw new CompileError(`NameError: Found an unbound axis name: ${it}. To fix this, please call ${prim} under \`jax.shard_map\`.`, span, [`in jaxts: under jax.pmap(..., axis_name='${it}') or jax.vmap(..., axis_name='${it}')`]);
    if (a.size === 1) continue;
    names.push(it);
    size *= a.size;
  }
  return { names, size };
}

/** Apply `f` to every array leaf of the pytree `x`. */
function treeMap(x: PyValue, f: (leaf: PyValue) => PyValue): PyValue {
  const flat = flatten(x);
  return flat.unflatten(flat.leaves.map(f));
}

export function laxModule(ip: Interp): PyModule {
  const ops = ip.ops;
  const bind = (prim: Prim, x: PyValue, params: Record<string, unknown>, span: Span): Tracer => {
    let a = ops.asArray(x, span);
    if (a.aval.dtype === 'bool') a = ops.convert(a, 'int32', span);
    return ops.tracer(ops.bind(prim, [a.atom], params, span));
  };
  /** psum/pmax/pmin of one leaf; a Python number is a constant: psum multiplies it by the axis size. */
  const reduce = (prim: 'psum' | 'pmax' | 'pmin', c: CallArgs) => {
    const { names, size } = axesOf(ip, arg(c, 1, 'axis_name'), prim, c.span);
    return treeMap(arg(c, 0, 'x'), (leaf) => {
      if (!names.length) return leaf;
      if (!isArray(leaf) && (typeof leaf === 'bigint' || typeof leaf === 'number')) {
        if (prim !== 'psum') return leaf;
        return typeof leaf === 'bigint' ? leaf * BigInt(size) : leaf * size;
      }
      return bind(prim, leaf, { axes: names, axis_size: size }, c.span);
    });
  };
  const entries: Record<string, (c: CallArgs) => PyValue> = {
    psum: (c) => reduce('psum', c),
    pmax: (c) => reduce('pmax', c),
    pmin: (c) => reduce('pmin', c),
    pmean: (c) => {
      const { size } = axesOf(ip, arg(c, 1, 'axis_name'), 'pmean', c.span);
      const summed = reduce('psum', c);
      return treeMap(summed, (v) => ops.binary('div', v, BigInt(size), c.span));
    },
    all_gather: (c) => {
      const { names, size } = axesOf(ip, arg(c, 1, 'axis_name'), 'all_gather', c.span);
      const axis = Number(ip.static(arg(c, 2, 'axis', 0n), 'all_gather axis', c.span));
      const tiled = truthy(ip.static(arg(c, 3, 'tiled', false), 'all_gather tiled', c.span), c.span);
      return treeMap(arg(c, 0, 'x'), (leaf) => {
        const x = ops.asArray(leaf, c.span);
        const r = x.aval.shape.length;
        const d = axis < 0 ? axis + r + (tiled ? 0 : 1) : axis;
        // JAX's canonicalize_axis: a tiled gather concatenates along an existing axis, an untiled one inserts one
        if (!(d >= 0 && d < r + (tiled ? 0 : 1))) throw new CompileError(`ValueError: axis ${axis} is out of bounds for array of dimension ${r + (tiled ? 0 : 1)}`, c.span);
        if (!names.length) return tiled ? x : ops.expandDims(x, d, c.span);
        return bind('all_gather', x, { axis_name: names, axis_size: size, all_gather_dimension: d, tiled }, c.span);
      });
    },
    psum_scatter: (c) => {
      const { names, size } = axesOf(ip, arg(c, 1, 'axis_name'), 'psum_scatter', c.span);
      const dim = Number(ip.static(arg(c, 2, 'scatter_dimension', 0n), 'scatter_dimension', c.span));
      const tiled = truthy(ip.static(arg(c, 3, 'tiled', false), 'psum_scatter tiled', c.span), c.span);
      return treeMap(arg(c, 0, 'x'), (leaf) => bind('psum_scatter', leaf, { axis_name: names, axis_size: size, scatter_dimension: dim, tiled }, c.span));
    },
    ppermute: (c) => {
      const { names, size } = axesOf(ip, arg(c, 1, 'axis_name'), 'ppermute', c.span);
      const permV = ip.static(arg(c, 2, 'perm'), 'ppermute perm', c.span);
      const pairs = (permV instanceof PyList || permV instanceof PyTuple ? permV.items : []).map((p) => {
        const xs = p instanceof PyTuple || p instanceof PyList ? p.items : [];
        if (xs.length !== 2 || typeof xs[0] !== 'bigint' || typeof xs[1] !== 'bigint') {
          throw new CompileError('TypeError: ppermute perm must be a sequence of (source, destination) integer pairs', c.span);
        }
        return [Number(xs[0]), Number(xs[1])] as [number, number];
      });
      const srcs = new Set(pairs.map((p) => p[0]));
      const dsts = new Set(pairs.map((p) => p[1]));
      if (srcs.size !== pairs.length || dsts.size !== pairs.length) {
        throw new CompileError(`ValueError: ppermute sources and destinations must be unique, got ${pairs.map((p) => `(${p[0]}, ${p[1]})`).join(', ')}.`, c.span);
      }
      for (const [s, d] of pairs) {
        if (s < 0 || s >= size || d < 0 || d >= size) {
          throw new CompileError(`ValueError: ppermute permutation contains an index out of range for the axis size ${size}`, c.span);
        }
      }
      return treeMap(arg(c, 0, 'x'), (leaf) => bind('ppermute', leaf, { axis_name: names, axis_size: size, perm: pairs }, c.span));
    },
    all_to_all: (c) => {
      const { names, size } = axesOf(ip, arg(c, 1, 'axis_name'), 'all_to_all', c.span);
      const split0 = Number(ip.static(arg(c, 2, 'split_axis'), 'all_to_all split_axis', c.span));
      const concat0 = Number(ip.static(arg(c, 3, 'concat_axis'), 'all_to_all concat_axis', c.span));
      const tiled = truthy(ip.static(c.kwargs.get('tiled') ?? false, 'all_to_all tiled', c.span), c.span);
      return treeMap(arg(c, 0, 'x'), (leaf) => {
        const x = ops.asArray(leaf, c.span);
        const r = x.aval.shape.length;
        const split = split0 < 0 ? split0 + r : split0;
        const concat = concat0 < 0 ? concat0 + r : concat0;
        if (tiled) return names.length ? bind('all_to_all', x, { axis_name: names, axis_size: size, split_axis: split, concat_axis: concat, tiled: true }, c.span) : x;
        if (x.aval.shape[split] !== size) {
          throw new CompileError(`ValueError: all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they are ${size} and ${x.aval.shape[split]} respectively.`, c.span);
        }
        // as JAX lowers it: a unit axis at concat_axis, the tiled exchange, the split axis squeezed out
        const y = ops.expandDims(x, concat, c.span);
        const s = concat <= split ? split + 1 : split;
        const z = names.length ? bind('all_to_all', y, { axis_name: names, axis_size: size, split_axis: s, concat_axis: concat, tiled: true }, c.span) : y;
        const shape = z.aval.shape.filter((_, d) => d !== s);
        return ops.reshape(z, shape, c.span);
      });
    },
    axis_size: (c) => {
      const items = ((v: PyValue) => (v instanceof PyTuple || v instanceof PyList ? v.items : [v]))(arg(c, 0, 'axis_name'));
      const env = ip.trace().axisEnv;
      let size = 1;
      for (const it of items) {
        const a = env.find((x) => x.name === it);
        if (!a) throw new CompileError(`NameError: unbound axis name: ${String(it)}`, c.span);
        size *= a.size;
      }
      return BigInt(size);
    },
    axis_index: (c) => {
      const { names } = axesOf(ip, arg(c, 0, 'axis_name'), 'axis_index', c.span);
      if (!names.length) return ops.asArray(0n, c.span);
      return ops.tracer(ops.bind('axis_index', [], { axis_name: names }, c.span));
    },
    bitcast_convert_type: (c) => {
      const to = dtypeArg(arg(c, 1, 'new_dtype'), c.span);
      if (!to) throw new CompileError('TypeError: bitcast_convert_type needs a dtype', c.span);
      return ops.bitcast(arg(c, 0, 'operand'), to, c.span);
    },
    stop_gradient: (c) => ops.stopGradient(arg(c, 0, 'x'), c.span),
    erf_inv: (c) => ops.unary('erf_inv', arg(c, 0, 'x'), c.span),
    ...laxShardingFunctions(ip),
  };
  return builtinModule('jax.lax', entries);
}
