// jax.lax: the collectives over named (pmap) axes — psum, pmean, pmax, pmin,
// all_gather, psum_scatter, ppermute, axis_index — mapped over pytrees as JAX
// does, plus the few plain lax functions lessons call.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { Prim } from '../ir/prims.js';
import { isFloat, isInexact } from '../ir/types.js';
import type { Interp } from './interp.js';
import { truthy } from './pyops.js';
import { flatten } from './transforms.js';
import { checksVma, laxShardingFunctions, varyingOf } from './lib_sharding.js';
import { arg, builtinModule, dtypeArg, shapeArgs } from './modules.js';
import { broadcastShapes } from './arrays.js';
import { iterate } from './expr.js';
import { sortArrays, topK } from './indexing.js';
import { controlFlowFunctions } from './control_flow.js';
import { cumulativeAlong } from './cumulative.js';
import { laxConvFunctions } from './lib_lax_conv.js';
import { laxExtraFunctions } from './lib_lax_extra.js';
import { laxGatherFunctions } from './lib_lax_gather.js';
import { laxPreludeFunctions } from './scipy_prelude.js';
import { PRECISION, precisionParam } from './precision.js';
import { primitiveAttrs } from './jaxpr_objects.js';
import { PyBuiltin, PyClass, PyList, PyModule, PyTuple, Tracer, isArray, type CallArgs, type PyValue } from './values.js';

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
  const entries: Record<string, ((c: CallArgs) => PyValue) | PyValue> = {
    ...laxPreludeFunctions(ip),
    ...primitiveAttrs(),
    ...laxFunctions(ip),
    ...laxSortFunctions(ip),
    ...laxConvFunctions(ip),
    ...laxExtraFunctions(ip),
    ...laxGatherFunctions(ip),
    ...controlFlowFunctions(ip),
    Precision: PRECISION,
    // JAX's type aliases (for annotations: `dimension_numbers: lax.DotDimensionNumbers`)
    DotDimensionNumbers: new PyClass('DotDimensionNumbers', [], new Map(), 'marker', 'jax.lax'),
    ConvGeneralDilatedDimensionNumbers: new PyClass('ConvGeneralDilatedDimensionNumbers', [], new Map(), 'marker', 'jax.lax'),
    PrecisionLike: new PyClass('PrecisionLike', [], new Map(), 'marker', 'jax.lax'),
    psum: (c) => reduce('psum', c),
    pmax: (c) => reduce('pmax', c),
    pmin: (c) => reduce('pmin', c),
    pcast: (c) => {
      // jax.lax.pcast(x, axis_name, to=): invariant → varying is pvary (the reduced/unreduced casts are not modelled)
      const axisV = arg(c, 1, 'axis_name');
      if (axisV instanceof PyTuple ? !axisV.items.length : axisV === null) return arg(c, 0, 'x');
      const to = c.kwargs.get('to');
      if (to !== 'varying' && to !== 'reduced' && to !== 'unreduced') {
        throw new CompileError("ValueError: Got unexpected `to` value. Allowed `to` values are: {'unreduced', 'reduced', 'varying'}", c.span);
      }
      const { names, size } = axesOf(ip, axisV, 'pcast', c.span);
      if (!checksVma(ip.trace())) return arg(c, 0, 'x'); // without check_vma there are no varying types: the identity
      return treeMap(arg(c, 0, 'x'), (leaf) => {
        const x = ops.asArray(leaf, c.span);
        const vma = varyingOf(x.trace, x.atom) ?? [];
        const from = new Set(names.map((n) => (vma.includes(n) ? 'varying' : 'invarying')));
        if (from.size > 1) throw new CompileError('ValueError: jax.lax.pcast can only accept axis_name which corresponds to one of varying, unreduced, reduced or invarying state of the input', c.span);
        const f = [...from][0]!;
        if (f !== 'invarying' || to !== 'varying') {
          if (to === 'varying') throw new CompileError(`ValueError: Unsupported pcast from=${f}, to='${to}'`, c.span);
          throw new CompileError(`NotImplementedError: jax.lax.pcast to='${to}' is not supported by jaxts`, c.span);
        }
        return ops.tracer(ops.bind('pvary', [x.atom], { axes: names, axis_size: size }, c.span));
      });
    },
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
      return treeMap(arg(c, 0, 'x'), (leaf) => {
        const n = ops.asArray(leaf, c.span).aval.shape[dim];
        if (names.length && n !== undefined && (tiled ? n % size !== 0 : n !== size)) {
          throw new CompileError(tiled ? `ValueError: tiled reduce_scatter operand scatter dimension size ${n} must be divisible by shard_count ${size}` : `ValueError: reduce_scatter operand scatter dimension size ${n} must match shard count ${size}`, c.span);
        }
        return bind('psum_scatter', leaf, { axis_name: names, axis_size: size, scatter_dimension: dim, tiled }, c.span);
      });
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
        if (split < 0 || split >= r || concat < 0 || concat >= r) throw new CompileError('IndexError: tuple index out of range', c.span);
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
    ...laxShardingFunctions(ip),
  };
  return builtinModule('jax.lax', entries);
}

/** lax's unary functions whose operand must be floating (JAX's error otherwise). */
const FLOAT_UNARY = ['exp', 'exp2', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'sin', 'cos', 'tan', 'sqrt', 'rsqrt', 'erf', 'erf_inv', 'floor', 'ceil'] as const;
/** lax's unary functions on signed integers and floats (not bool). */
const ANY_UNARY = ['neg', 'sign', 'abs'] as const;
/** lax's binary functions: the operands must have one dtype (lax does not promote). */
const BINARY: Record<string, Prim> = {
  add: 'add', sub: 'sub', mul: 'mul', div: 'div', rem: 'rem', pow: 'pow', max: 'max', min: 'min',
  bitwise_and: 'and', bitwise_or: 'or', bitwise_xor: 'xor', shift_left: 'shift_left',
  shift_right_logical: 'shift_right_logical', shift_right_arithmetic: 'shift_right_arithmetic',
  eq: 'eq', ne: 'ne', lt: 'lt', le: 'le', gt: 'gt', ge: 'ge',
};

/**
 * jax.lax's plain functions: each binds its primitive directly, with lax's strict dtype rules
 * (a Python scalar takes its default dtype; dtypes must then agree, in JAX's words).
 */
export function laxFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const o = ip.ops;
  const A = (v: PyValue, span: Span): Tracer => o.asArray(v, span);
  const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
  const floatOnly = (name: string, x: Tracer, span: Span): void => {
    if (!isFloat(x.aval.dtype)) throw new CompileError(`TypeError: ${name} does not accept dtype ${x.aval.dtype}. Accepted dtypes are subtypes of floating, complexfloating.`, span);
  };
  /** Operands of a lax n-ary op: same dtypes, then rank-0 operands and size-1 axes broadcast. */
  const nary = (name: string, vals: PyValue[], span: Span): Tracer[] => {
    const xs = vals.map((v) => A(v, span));
    const d0 = xs[0]!.aval.dtype;
    if (xs.some((x) => x.aval.dtype !== d0)) {
      throw new CompileError(`TypeError: lax.${name} requires arguments to have the same dtypes, got ${xs.map((x) => x.aval.dtype).join(', ')}. (Tip: jnp.${name === 'sub' ? 'subtract' : name === 'mul' ? 'multiply' : name === 'div' ? 'divide' : name} is a similar function that does automatic type promotion on inputs).`, span);
    }
    const ranks = new Set(xs.map((x) => x.aval.shape.length).filter((r) => r > 0));
    if (ranks.size > 1) throw new CompileError(`TypeError: ${name}: arrays must have the same number of dimensions, got {${[...ranks].join(', ')}}`, span);
    let shape: number[] = [];
    for (const x of xs) shape = broadcastShapes(shape, x.aval.shape, span, name);
    return xs.map((x) => o.tracer(o.broadcastTo(x.atom, shape, span)));
  };
  const binary = (name: string, prim: Prim) => (c: CallArgs): Tracer => {
    const [x, y] = nary(name, [arg(c, 0, 'x'), arg(c, 1, 'y')], c.span);
    if (['and', 'or', 'xor'].includes(prim) && isFloat(x!.aval.dtype)) throw new CompileError(`TypeError: ${name} does not accept dtype ${x!.aval.dtype}. Accepted dtypes are subtypes of integer, bool.`, c.span);
    // lax's dtype rules for arithmetic (no bool; pow takes floats only; rem no complex)
    const accepted = prim === 'pow' ? 'floating, complexfloating' : prim === 'rem' ? 'integer, floating' : ['add', 'sub', 'mul', 'div'].includes(prim) ? 'integer, floating, complexfloating' : null;
    const dt = x!.aval.dtype;
    if (accepted && (dt === 'bool' || (prim === 'pow' && !isInexact(dt)))) {
      throw new CompileError(`TypeError: ${prim} does not accept dtype ${dt} at position 0. Accepted dtypes at position 0 are subtypes of ${accepted}.`, c.span);
    }
    return o.tracer(o.bind(prim, [x!.atom, y!.atom], {}, c.span));
  };
  const unary = (prim: Prim, float: boolean) => (c: CallArgs): Tracer => {
    const x = A(arg(c, 0, 'x'), c.span);
    if (float) floatOnly(prim, x, c.span);
    else if (x.aval.dtype === 'bool') throw new CompileError(`TypeError: ${prim} does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating.`, c.span);
    return o.tracer(o.bind(prim, [x.atom], {}, c.span));
  };
  const ints = (v: PyValue, what: string, span: Span): number[] => shapeArgs([v], span).map((n) => { void what; return n; });
  const entries: Record<string, (c: CallArgs) => PyValue> = {};
  for (const p of FLOAT_UNARY) entries[p] = unary(p, true);
  for (const p of ANY_UNARY) entries[p] = unary(p, false);
  for (const [name, prim] of Object.entries(BINARY)) entries[name] = binary(name, prim);
  Object.assign(entries, {
    round: (c: CallArgs) => {
      const x = A(arg(c, 0, 'x'), c.span);
      floatOnly('round', x, c.span);
      const m = arg(c, 1, 'rounding_method', 0n);
      return o.tracer(o.bind('round', [x.atom], { rounding_method: typeof m === 'bigint' ? Number(m) : 0 }, c.span));
    },
    bitwise_not: (c: CallArgs) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (isFloat(x.aval.dtype)) throw new CompileError(`TypeError: not does not accept dtype ${x.aval.dtype}. Accepted dtypes are subtypes of bool, integer.`, c.span);
      return o.unary('not', x, c.span);
    },
    square: (c: CallArgs) => o.tracer(o.bind('integer_pow', [A(arg(c, 0, 'x'), c.span).atom], { y: 2 }, c.span)),
    reciprocal: (c: CallArgs) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (!isFloat(x.aval.dtype)) throw new CompileError(`TypeError: Integers cannot be raised to negative powers, got integer_pow(x, -1)`, c.span);
      return o.tracer(o.bind('integer_pow', [x.atom], { y: -1 }, c.span));
    },
    integer_pow: (c: CallArgs) => {
      const y = ip.static(arg(c, 1, 'y'), 'integer_pow y', c.span);
      if (typeof y !== 'bigint') throw new CompileError('TypeError: integer_pow y must be an int', c.span);
      return o.tracer(o.bind('integer_pow', [A(arg(c, 0, 'x'), c.span).atom], { y: Number(y) }, c.span));
    },
    is_finite: (c: CallArgs) => {
      const x = A(arg(c, 0, 'x'), c.span);
      floatOnly('is_finite', x, c.span);
      return o.tracer(o.bind('is_finite', [x.atom], {}, c.span));
    },
    convert_element_type: (c: CallArgs) => o.convert(A(arg(c, 0, 'operand'), c.span), dtypeArg(arg(c, 1, 'new_dtype'), c.span)!, c.span),
    select: (c: CallArgs) => {
      const pred = A(arg(c, 0, 'pred'), c.span);
      const [t, f] = nary('select', [arg(c, 1, 'on_true'), arg(c, 2, 'on_false')], c.span);
      if (pred.aval.dtype !== 'bool') throw new CompileError(`TypeError: select_n selector must be of boolean or integer type, got ${pred.aval.dtype}`, c.span);
      if (pred.aval.shape.length && (pred.aval.shape.length !== t!.aval.shape.length || pred.aval.shape.some((d, i) => d !== t!.aval.shape[i]))) {
        throw new CompileError(`TypeError: select_n selector must be scalar or have the same shape as cases, got which.shape=${fmt(pred.aval.shape)} and cases[0].shape=${fmt(t!.aval.shape)}.`, c.span);
      }
      const p = o.tracer(o.broadcastTo(pred.atom, t!.aval.shape, c.span));
      return o.tracer(o.bind('select_n', [p.atom, f!.atom, t!.atom], {}, c.span));
    },
    clamp: (c: CallArgs) => {
      const [lo, x, hi] = [arg(c, 0, 'min'), arg(c, 1, 'x'), arg(c, 2, 'max')].map((v) => A(v, c.span)) as [Tracer, Tracer, Tracer];
      if (lo.aval.dtype !== x.aval.dtype || hi.aval.dtype !== x.aval.dtype) throw new CompileError(`TypeError: lax.clamp requires arguments to have the same dtypes, got ${lo.aval.dtype}, ${x.aval.dtype}, ${hi.aval.dtype}.`, c.span);
      // JAX's clamp primitive: scalar bounds stay scalars
      const b = (t: Tracer) => (t.aval.shape.length ? o.broadcastTo(t.atom, x.aval.shape, c.span) : t.atom);
      return o.tracer(o.bind('clamp', [b(lo), x.atom, b(hi)], {}, c.span));
    },
    dot: (c: CallArgs) => {
      const [x, y] = [A(arg(c, 0, 'lhs'), c.span), A(arg(c, 1, 'rhs'), c.span)];
      const rx = x.aval.shape.length;
      const ry = y.aval.shape.length;
      if (!(rx >= 1 && rx <= 2 && ry >= 1 && ry <= 2 && x.aval.shape[rx - 1] === y.aval.shape[0])) {
        throw new CompileError(`ValueError: jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape=${fmt(x.aval.shape)} rhs_shape=${fmt(y.aval.shape)}`, c.span);
      }
      return dotGeneral(x, y, [[rx - 1], [0]], [[], []], c);
    },
    dot_general: (c: CallArgs) => {
      const dn = arg(c, 2, 'dimension_numbers');
      const pair = (v: PyValue): [number[], number[]] => {
        if (!(v instanceof PyTuple || v instanceof PyList) || v.items.length !== 2) throw new CompileError('TypeError: dot_general dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))', c.span);
        return [ints(v.items[0]!, 'dims', c.span), ints(v.items[1]!, 'dims', c.span)];
      };
      if (!(dn instanceof PyTuple || dn instanceof PyList) || dn.items.length !== 2) throw new CompileError('TypeError: dot_general dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))', c.span);
      return dotGeneral(A(arg(c, 0, 'lhs'), c.span), A(arg(c, 1, 'rhs'), c.span), pair(dn.items[0]!), pair(dn.items[1]!), c);
    },
    broadcast_in_dim: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      return o.tracer(o.bind('broadcast_in_dim', [x.atom], { shape: shapeArgs([arg(c, 1, 'shape')], c.span), broadcast_dimensions: shapeArgs([arg(c, 2, 'broadcast_dimensions')], c.span) }, c.span));
    },
    broadcast: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const sizes = shapeArgs([arg(c, 1, 'sizes')], c.span);
      return o.tracer(o.broadcastTo(x.atom, [...sizes, ...x.aval.shape], c.span));
    },
    reshape: (c: CallArgs) => {
      const dims = arg(c, 2, 'dimensions', null);
      let x = A(arg(c, 0, 'operand'), c.span);
      if (dims !== null) x = o.transpose(x, shapeArgs([dims], c.span), c.span);
      const sizes = shapeArgs([arg(c, 1, 'new_sizes')], c.span);
      const size = (sh: readonly number[]): number => sh.reduce((p, d) => p * d, 1);
      if (sizes.every((d) => d >= 0) && size(sizes) !== size(x.aval.shape)) {
        throw new CompileError(`ValueError: reshape total size must be unchanged, got new_sizes ${fmt(sizes)} (size ${size(sizes)}) for shape ${fmt(x.aval.shape)} (size ${size(x.aval.shape)})`, c.span);
      }
      return o.reshape(x, sizes, c.span);
    },
    transpose: (c: CallArgs) => o.transpose(A(arg(c, 0, 'operand'), c.span), shapeArgs([arg(c, 1, 'permutation')], c.span), c.span),
    squeeze: (c: CallArgs) => {
      const x = A(arg(c, 0, 'array'), c.span);
      const dims = shapeArgs([arg(c, 1, 'dimensions')], c.span).map((d) => (d < 0 ? d + x.aval.shape.length : d));
      if (dims.some((d) => x.aval.shape[d] !== 1)) {
        throw new CompileError(`ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=${fmt(x.aval.shape)} and dimensions=${fmt(dims)}`, c.span);
      }
      return o.tracer(o.bind('squeeze', [x.atom], { dimensions: dims }, c.span));
    },
    expand_dims: (c: CallArgs) => {
      let x = A(arg(c, 0, 'array'), c.span);
      const dims = shapeArgs([arg(c, 1, 'dimensions')], c.span);
      const r = x.aval.shape.length + dims.length;
      for (const d of dims.map((d) => (d < 0 ? d + r : d)).sort((a, b) => a - b)) x = o.expandDims(x, d, c.span);
      return x;
    },
    rev: (c: CallArgs) => o.tracer(o.bind('rev', [A(arg(c, 0, 'operand'), c.span).atom], { dimensions: shapeArgs([arg(c, 1, 'dimensions')], c.span) }, c.span)),
    slice: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const strides = arg(c, 3, 'strides', null);
      const start = shapeArgs([arg(c, 1, 'start_indices')], c.span);
      const limit = shapeArgs([arg(c, 2, 'limit_indices')], c.span);
      if (limit.length === x.aval.shape.length && limit.some((l, i) => l > x.aval.shape[i]!)) {
        throw new CompileError(`TypeError: slice limit_indices must be less than or equal to operand shape, got limit_indices ${fmt(limit)} for operand shape ${fmt(x.aval.shape)}.`, c.span);
      }
      return o.tracer(o.bind('slice', [x.atom], { start_indices: start, limit_indices: limit, strides: strides === null ? null : shapeArgs([strides], c.span) }, c.span));
    },
    slice_in_dim: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const r = x.aval.shape.length;
      let ax = Number(ip.static(arg(c, 4, 'axis', 0n), 'axis', c.span));
      if (ax < 0) ax += r;
      const n = x.aval.shape[ax]!;
      const idx = (v: PyValue, def: number): number => {
        if (v === null) return def;
        const i = Number(ip.static(v, 'index', c.span));
        return i < 0 ? i + n : i;
      };
      const start = idx(arg(c, 1, 'start_index', 0n), 0);
      const limit = idx(arg(c, 2, 'limit_index', null), n);
      const stride = Number(ip.static(arg(c, 3, 'stride', 1n), 'stride', c.span));
      return o.tracer(o.bind('slice', [x.atom], { start_indices: x.aval.shape.map((_, i) => (i === ax ? start : 0)), limit_indices: x.aval.shape.map((d, i) => (i === ax ? limit : d)), strides: stride === 1 ? null : x.aval.shape.map((_, i) => (i === ax ? stride : 1)) }, c.span));
    },
    dynamic_slice: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const starts = iterate(ip, arg(c, 1, 'start_indices'), c.span);
      return dynamicSlice(x, starts, shapeArgs([arg(c, 2, 'slice_sizes')], c.span), c.span);
    },
    dynamic_slice_in_dim: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const r = x.aval.shape.length;
      let ax = Number(ip.static(arg(c, 3, 'axis', 0n), 'axis', c.span));
      if (ax < 0) ax += r;
      const size = Number(ip.static(arg(c, 2, 'slice_size'), 'slice_size', c.span));
      const starts = x.aval.shape.map((_, i) => (i === ax ? arg(c, 1, 'start_index') : 0n));
      return dynamicSlice(x, starts, x.aval.shape.map((d, i) => (i === ax ? size : d)), c.span);
    },
    concatenate: (c: CallArgs) => {
      const xs = iterate(ip, arg(c, 0, 'operands'), c.span).map((v) => A(v, c.span));
      const dim = Number(ip.static(arg(c, 1, 'dimension'), 'dimension', c.span));
      if (xs.some((x) => x.aval.dtype !== xs[0]!.aval.dtype)) throw new CompileError(`TypeError: lax.concatenate requires arguments to have the same dtypes, got ${xs.map((x) => x.aval.dtype).join(', ')}.`, c.span);
      return o.concatenate(xs, dim, c.span);
    },
    pad: (c: CallArgs) => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const v = A(arg(c, 1, 'padding_value'), c.span);
      const cfg = iterate(ip, arg(c, 2, 'padding_config'), c.span).map((t) => shapeArgs([t], c.span) as [number, number, number]);
      return o.tracer(o.bind('pad', [x.atom, v.atom], { padding_config: cfg }, c.span));
    },
    iota: (c: CallArgs) => {
      const dtype = dtypeArg(arg(c, 0, 'dtype'), c.span)!;
      const n = Number(ip.static(arg(c, 1, 'size'), 'size', c.span));
      return o.tracer(o.bind('iota', [], { dtype, shape: [n], dimension: 0, sharding: null }, c.span));
    },
    broadcasted_iota: (c: CallArgs) => {
      const dtype = dtypeArg(arg(c, 0, 'dtype'), c.span)!;
      const shape = shapeArgs([arg(c, 1, 'shape')], c.span);
      const dimV = ip.static(arg(c, 2, 'dimension'), 'dimension', c.span);
      const dim = typeof dimV === 'bigint' ? Number(dimV) : NaN;
      if (!(dim >= 0 && dim < shape.length)) throw new CompileError(`TypeError: iota dimension must be between 0 and len(shape), got dimension=${typeof dimV === 'bigint' || typeof dimV === 'number' ? String(dimV) : 'a non-integer'} for shape (${shape.join(', ')})`, c.span);
      return o.tracer(o.bind('iota', [], { dtype, shape, dimension: dim, sharding: null }, c.span));
    },
    full: (c: CallArgs) => {
      const shape = shapeArgs([arg(c, 0, 'shape')], c.span);
      const fill = arg(c, 1, 'fill_value');
      const dtype = dtypeArg(arg(c, 2, 'dtype', null), c.span) ?? o.aval(fill, c.span).dtype;
      return o.tracer(o.broadcastTo(o.convert(A(fill, c.span), dtype, c.span).atom, shape, c.span));
    },
    full_like: (c: CallArgs) => {
      const x = A(arg(c, 0, 'x'), c.span);
      const dtype = dtypeArg(arg(c, 2, 'dtype', null), c.span) ?? x.aval.dtype;
      return o.tracer(o.broadcastTo(o.convert(A(arg(c, 1, 'fill_value'), c.span), dtype, c.span).atom, x.aval.shape, c.span));
    },
    ...viaJnp(),
    reduce_sum: (c: CallArgs) => o.reduce('reduce_sum', A(arg(c, 0, 'operand'), c.span), new PyTuple(shapeArgs([arg(c, 1, 'axes')], c.span).map(BigInt)), false, c.span),
    reduce_max: (c: CallArgs) => o.reduce('reduce_max', A(arg(c, 0, 'operand'), c.span), new PyTuple(shapeArgs([arg(c, 1, 'axes')], c.span).map(BigInt)), false, c.span),
    reduce_min: (c: CallArgs) => o.reduce('reduce_min', A(arg(c, 0, 'operand'), c.span), new PyTuple(shapeArgs([arg(c, 1, 'axes')], c.span).map(BigInt)), false, c.span),
    reduce_prod: (c: CallArgs) => o.reduce('reduce_prod', A(arg(c, 0, 'operand'), c.span), new PyTuple(shapeArgs([arg(c, 1, 'axes')], c.span).map(BigInt)), false, c.span),
  });
  return entries;

  /** lax functions jaxts writes once, in jax.numpy: the float check here, the work there. */
  function viaJnp(): Record<string, (c: CallArgs) => PyValue> {
    const jnpCall = (name: string, c: CallArgs): PyValue => {
      const f = ip.library.importModule('jax.numpy', c.span).attrs.get(name);
      if (!(f instanceof PyBuiltin)) throw new Error(`internal: jax.numpy.${name} is missing`);
      return f.fn(c);
    };
    const out: Record<string, (c: CallArgs) => PyValue> = {};
    const unaryFloat: Record<string, string> = { atan: 'arctan', asin: 'arcsin', acos: 'arccos', sinh: 'sinh', cosh: 'cosh', asinh: 'arcsinh', acosh: 'arccosh', atanh: 'arctanh' };
    for (const [name, fn] of Object.entries(unaryFloat)) {
      out[name] = (c) => {
        floatOnly(name, A(arg(c, 0, 'x'), c.span), c.span);
        return jnpCall(fn, c);
      };
    }
    out['atan2'] = (c) => {
      const [y, x] = nary('atan2', [arg(c, 0, 'x'), arg(c, 1, 'y')], c.span);
      floatOnly('atan2', y!, c.span);
      return o.tracer(o.bind('atan2', [y!.atom, x!.atom], {}, c.span));
    };
    // lax.cumsum(operand, axis=0, reverse=False): reverse is the flipped cumulative sum flipped back
    const cumulative = (name: 'cumsum' | 'cumprod') => (c: CallArgs): PyValue => {
      const x = A(arg(c, 0, 'operand'), c.span);
      const r = x.aval.shape.length;
      let ax = Number(ip.static(arg(c, 1, 'axis', 0n), 'axis', c.span));
      if (ax < 0) ax += r;
      const reverse = truthy(arg(c, 2, 'reverse', false), c.span);
      // XLA's reverse scan (cumulative.ts), which rounds unlike the flipped forward scan
      if (name === 'cumsum' && reverse && x.aval.dtype !== 'bool') return cumulativeAlong(o, x, ax, 'sum', 0, true, c.span);
      const flip = (t: PyValue): Tracer => o.tracer(o.bind('rev', [A(t, c.span).atom], { dimensions: [ax] }, c.span));
      const call = (t: PyValue): PyValue => jnpCall(name, { args: [t, BigInt(ax)], kwargs: new Map(), span: c.span });
      return reverse ? flip(call(flip(x))) : call(x);
    };
    out['cumsum'] = cumulative('cumsum');
    out['cumprod'] = cumulative('cumprod');
    return out;
  }

  function dotGeneral(x: Tracer, y: Tracer, contract: [number[], number[]], batch: [number[], number[]], c: CallArgs): Tracer {
    const pet = dtypeArg(c.kwargs.get('preferred_element_type'), c.span);
    if (x.aval.dtype !== y.aval.dtype && !pet) {
      throw new CompileError(`TypeError: lax.dot_general requires arguments to have the same dtypes, got ${x.aval.dtype}, ${y.aval.dtype}. (Tip: jnp.dot is a similar function that does automatic type promotion on inputs).`, c.span);
    }
    const dtype = pet ?? x.aval.dtype;
    const precision = precisionParam(c.kwargs.get('precision'), c.span);
    return o.tracer(o.bind('dot_general', [o.convert(x, dtype, c.span).atom, o.convert(y, dtype, c.span).atom], { dimension_numbers: { contract, batch }, precision, preferred_element_type: pet ?? null }, c.span));
  }

  function dynamicSlice(x: Tracer, starts: PyValue[], sizes: number[], span: Span): Tracer {
    if (starts.length !== x.aval.shape.length) throw new CompileError(`TypeError: dynamic_slice: number of start indices (${starts.length}) must match the rank of the operand (${x.aval.shape.length})`, span);
    // JAX's _dynamic_slice_indices: a negative index counts from the end, then XLA clamps
    const idx = starts.map((s, i) => {
      const n = x.aval.shape[i]!;
      if (typeof s === 'bigint') return o.asArray(s < 0n ? s + BigInt(n) : s, span, 'int32');
      const t = o.convert(A(s, span), 'int32', span);
      return o.select(o.compare('lt', t, 0n, span), o.binary('add', t, BigInt(n), span), t, span);
    });
    return o.tracer(o.bind('dynamic_slice', [x.atom, ...idx.map((t) => t.atom)], { slice_sizes: sizes }, span));
  }
}

/** lax.sort, lax.sort_key_val and lax.top_k (jax/_src/lax/lax.py): the sort primitive; top_k as a stable descending sort. */
function laxSortFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const o = ip.ops;
  const dimOf = (c: CallArgs, i: number, rank: number): number => {
    const d = Number(arg(c, i, 'dimension', -1n) as bigint);
    if (d < -rank || d >= rank) throw new CompileError(`ValueError: axis ${d} is out of bounds for array of dimension ${rank}`, c.span);
    return d < 0 ? d + rank : d;
  };
  return {
    sort: (c) => {
      const operand = arg(c, 0, 'operand');
      const seq = operand instanceof PyTuple || operand instanceof PyList;
      const xs = (seq ? operand.items : [operand]).map((x) => o.asArray(x, c.span));
      const dim = dimOf(c, 1, xs[0]!.aval.shape.length);
      const stable = truthy(arg(c, 2, 'is_stable', true), c.span);
      const numKeys = Number(arg(c, 3, 'num_keys', 1n) as bigint);
      if (numKeys < 1) throw new CompileError(`ValueError: num_keys must be at least 1, got ${numKeys}`, c.span);
      const out = sortArrays(o, xs, dim, stable, numKeys, c.span);
      return seq ? new PyTuple(out) : out[0]!;
    },
    sort_key_val: (c) => {
      const k = o.asArray(arg(c, 0, 'keys'), c.span);
      const v = o.asArray(arg(c, 1, 'values'), c.span);
      const dim = dimOf(c, 2, k.aval.shape.length);
      return new PyTuple(sortArrays(o, [k, v], dim, truthy(arg(c, 3, 'is_stable', true), c.span), 1, c.span));
    },
    top_k: (c) => {
      const x = o.asArray(arg(c, 0, 'operand'), c.span);
      const k = Number(arg(c, 1, 'k') as bigint);
      const r = x.aval.shape.length;
      if (!r) throw new CompileError('TypeError: top_k operand must have >= 1 dimension, got ()', c.span);
      const n = x.aval.shape[r - 1]!;
      if (k < 0) throw new CompileError(`ValueError: k argument to top_k must be nonnegative, got ${k}`, c.span);
      if (k > n) throw new CompileError(`ValueError: k argument to top_k must be no larger than size along axis; got k=${k} with shape=[${x.aval.shape.join(', ')}] and axis=${r - 1}`, c.span);
      return new PyList(topK(o, x, k, c.span));
    },
  };
}
