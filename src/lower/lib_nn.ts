// The jax.numpy extras, jax.nn, jax.scipy.special and jax.tree functions that
// training code uses, each written as the primitive sequence JAX traces for it
// (see jax/_src/nn/functions.py, jax/_src/ops/special.py,
// jax/_src/numpy/reductions.py), so values and gradients round the same way.
import { CompileError } from '../common/diagnostics.js';
import type { DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import { broadcastShapes, normalizeAxes, promote } from './arrays.js';
import { arg, builtinModule } from './modules.js';
import { dtypeArg, shapeArgs } from './attrs.js';
import type { Interp } from './interp.js';
import { truthy } from './pyops.js';
import { flatten } from './transforms.js';
import { PyBuiltin, PyList, PyModule, PyTuple, type CallArgs, type PyValue, Tracer, typeName } from './values.js';

type Fn = (c: CallArgs) => PyValue;

/** Array helpers shared by the functions below. */
class NnOps {
  constructor(private readonly ip: Interp) {}

  get ops() {
    return this.ip.ops;
  }

  /** jnp.where(c, x, y): promotion and broadcasting as a binary op. */
  where(c: PyValue, x: PyValue, y: PyValue, span: Span): Tracer {
    const o = this.ops;
    const cond = o.asArray(c, span, 'bool');
    // promote x and y together (add's rules), then broadcast all three
    const xa = o.atom(x, span);
    const ya = o.atom(y, span);
    const dtype = promote(xa.aval, ya.aval);
    const xs = o.convert(o.asArray(x, span), dtype, span);
    const ys = o.convert(o.asArray(y, span), dtype, span);
    let shape = broadcastShapes(cond.aval.shape, xs.aval.shape, span);
    shape = broadcastShapes(shape, ys.aval.shape, span);
    const b = (t: Tracer) => o.tracer(o.broadcastTo(t.atom, shape, span));
    return o.select(b(cond), b(xs), b(ys), span);
  }

  /** argmax/argmin: the first index of the extreme value (a NaN counts as the extreme, as in XLA). */
  argExtreme(kind: 'max' | 'min', x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
    const o = this.ops;
    let a = o.asArray(x, span);
    if (axis === null) a = o.reshape(a, [-1], span);
    const rank = a.aval.shape.length;
    if (rank === 0) throw new CompileError(`ValueError: attempt to get arg${kind} of an empty sequence`, span);
    // one axis (normalizeAxes takes tuples too; an empty one left none)
    if (axis !== null && typeof axis !== 'bigint') throw new CompileError(`TypeError: '${typeName(axis)}' object cannot be interpreted as an integer`, span);
    const ax = normalizeAxes(axis === null ? 0n : axis, rank, span)[0]!;
    const n = a.aval.shape[ax]!;
    const ext = o.reduce(kind === 'max' ? 'reduce_max' : 'reduce_min', a, BigInt(ax), true, span);
    const extB = o.tracer(o.broadcastTo(ext.atom, a.aval.shape, span));
    let hit = o.compare('eq', a, extB, span);
    if (a.aval.dtype === 'float32') {
      const nanA = o.compare('ne', a, a, span);
      const nanE = o.compare('ne', extB, extB, span);
      hit = o.binary('or', hit, o.binary('and', nanA, nanE, span), span);
    }
    const iota = o.tracer(o.bind('iota', [], { dtype: 'int32', shape: [...a.aval.shape], dimension: ax, sharding: null }, span));
    const big = o.tracer(o.broadcastTo(o.asArray(BigInt(n), span, 'int32').atom, a.aval.shape, span));
    const idx = o.select(hit, iota, big, span);
    return o.reduce('reduce_min', idx, BigInt(ax), keepdims && axis !== null, span);
  }

  relu(x: PyValue, span: Span): Tracer {
    // jax.nn.relu is a custom_jvp of maximum(x, 0) whose derivative is where(x > 0, g, 0):
    // a select reproduces both the values and that derivative (0 at x == 0)
    const o = this.ops;
    const a = o.asArray(x, span);
    const zero = o.tracer(o.broadcastTo(o.asArray(0, span, a.aval.dtype).atom, a.aval.shape, span));
    return o.select(o.compare('gt', a, 0, span), a, zero, span);
  }

  /** jax.nn.softmax (JAX's _softmax: exp(x - stop_gradient(max)) / sum). */
  softmax(x: PyValue, axis: PyValue, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span, 'float32');
    const m = o.reduce('reduce_max', a, axis, true, span);
    const un = o.unary('exp', o.binary('sub', a, o.stopGradient(m, span), span), span);
    return o.binary('div', un, o.reduce('reduce_sum', un, axis, true, span), span);
  }

  /** jax.nn.log_softmax: shifted - log(sum(exp(shifted))). */
  logSoftmax(x: PyValue, axis: PyValue, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span, 'float32');
    const m = o.reduce('reduce_max', a, axis, true, span);
    const shifted = o.binary('sub', a, o.stopGradient(m, span), span);
    const lse = o.unary('log', o.reduce('reduce_sum', o.unary('exp', shifted, span), axis, true, span), span);
    return o.binary('sub', shifted, lse, span);
  }

  /** jax.scipy.special.logsumexp (without b / return_sign). */
  logsumexp(x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span, 'float32');
    const dims = normalizeAxes(axis, a.aval.shape.length, span);
    const dimsV = new PyTuple(dims.map(BigInt));
    let amax = o.reduce('reduce_max', a, dimsV, keepdims, span);
    const finite = o.tracer(o.bind('is_finite', [amax.atom], {}, span));
    amax = o.stopGradient(o.select(finite, amax, o.tracer(o.broadcastTo(o.asArray(0, span, 'float32').atom, amax.aval.shape, span)), span), span);
    let withDims = amax;
    if (!keepdims) for (const d of dims) withDims = o.expandDims(withDims, d, span);
    const expA = o.unary('exp', o.binary('sub', a, o.tracer(o.broadcastTo(withDims.atom, a.aval.shape, span)), span), span);
    const sumexp = o.reduce('reduce_sum', expA, dimsV, keepdims, span);
    return o.binary('add', o.unary('log', o.unary('abs', sumexp, span), span), amax, span);
  }

  oneHot(x: PyValue, numClasses: number, dtype: DType, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span);
    const shape = [...a.aval.shape, numClasses];
    const lhs = o.tracer(o.broadcastTo(o.expandDims(a, a.aval.shape.length, span).atom, shape, span));
    const iota = o.tracer(o.bind('iota', [], { dtype: a.aval.dtype === 'float32' ? 'float32' : 'int32', shape, dimension: shape.length - 1, sharding: null }, span));
    return o.convert(o.compare('eq', lhs, iota, span), dtype, span);
  }

  /** jnp.linalg.norm for ord=None: sqrt(sum(x * x)). */
  norm(x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span, 'float32');
    return o.unary('sqrt', o.reduce('reduce_sum', o.binary('mul', a, a, span), axis, keepdims, span), span);
  }

  clip(x: PyValue, lo: PyValue, hi: PyValue, span: Span): Tracer {
    const o = this.ops;
    let r: PyValue = x;
    if (lo !== null) r = o.binary('max', lo, r, span);
    if (hi !== null) r = o.binary('min', hi, r, span);
    return o.asArray(r, span);
  }
}


/** jax.numpy functions beyond the core set in api.ts. */
export function jnpExtras(ip: Interp): Record<string, PyValue> {
  const nn = new NnOps(ip);
  const ops = ip.ops;
  const keep = (c: CallArgs) => truthy(c.kwargs.get('keepdims') ?? false, c.span);
  const fns: Record<string, Fn> = {
    where: (c) => {
      if (c.args.length === 1) throw new CompileError('jaxts: jnp.where with one argument (nonzero) has a data-dependent shape and is not supported', c.span);
      return nn.where(arg(c, 0, 'condition'), arg(c, 1, 'x'), arg(c, 2, 'y'), c.span);
    },
    argmax: (c) => nn.argExtreme('max', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    argmin: (c) => nn.argExtreme('min', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    broadcast_to: (c) => {
      const x = ops.asArray(arg(c, 0, 'array'), c.span);
      return ops.tracer(ops.broadcastTo(x.atom, shapeArgs(ip, [arg(c, 1, 'shape')], c.span), c.span));
    },
    clip: (c) => nn.clip(arg(c, 0, 'x'), arg(c, 1, 'min', null), arg(c, 2, 'max', null), c.span),
    isfinite: (c) => ops.tracer(ops.bind('is_finite', [ops.asArray(arg(c, 0, 'x'), c.span, 'float32').atom], {}, c.span)),
    all: (c) => ops.reduce('reduce_min', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    any: (c) => ops.reduce('reduce_max', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    logaddexp: (c) => nn.logsumexp(ops.stack([arg(c, 0, 'x1'), arg(c, 1, 'x2')], 0, c.span), 0n, false, c.span),
  };
  const linalg = builtinModule('jax.numpy.linalg', {
    norm: (c) => {
      const ord = arg(c, 1, 'ord', null);
      if (ord !== null) throw new CompileError('jaxts: jnp.linalg.norm supports ord=None only', c.span);
      return nn.norm(arg(c, 0, 'x'), arg(c, 2, 'axis', null), keep(c), c.span);
    },
  });
  return { ...Object.fromEntries(Object.entries(fns).map(([k, f]) => [k, new PyBuiltin(k, f)])), linalg };
}

/** jax.nn */
export function nnModule(ip: Interp): PyModule {
  const nn = new NnOps(ip);
  const o = ip.ops;
  const axisOf = (c: CallArgs, i: number): PyValue => arg(c, i, 'axis', -1n);
  return builtinModule('jax.nn', {
    relu: (c) => nn.relu(arg(c, 0, 'x'), c.span),
    sigmoid: (c) => o.unary('logistic', arg(c, 0, 'x'), c.span),
    softmax: (c) => nn.softmax(arg(c, 0, 'x'), axisOf(c, 1), c.span),
    log_softmax: (c) => nn.logSoftmax(arg(c, 0, 'x'), axisOf(c, 1), c.span),
    logsumexp: (c) => nn.logsumexp(arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span),
    one_hot: (c) => {
      const n = ip.static(arg(c, 1, 'num_classes'), 'num_classes', c.span);
      if (typeof n !== 'bigint') throw new CompileError('TypeError: one_hot num_classes must be an int', c.span);
      return nn.oneHot(arg(c, 0, 'x'), Number(n), dtypeArg(c.kwargs.get('dtype'), c.span) ?? 'float32', c.span);
    },
    silu: (c) => {
      const x = o.asArray(arg(c, 0, 'x'), c.span, 'float32');
      return o.binary('mul', x, o.unary('logistic', x, c.span), c.span);
    },
    tanh: (c) => o.unary('tanh', arg(c, 0, 'x'), c.span),
  });
}

/** jax.scipy (special.logsumexp) */
export function scipyModule(ip: Interp): PyModule {
  const nn = new NnOps(ip);
  const special = builtinModule('jax.scipy.special', {
    logsumexp: (c) => {
      if (c.kwargs.has('b') || c.kwargs.has('return_sign')) throw new CompileError('jaxts: logsumexp supports a, axis and keepdims only', c.span);
      return nn.logsumexp(arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span);
    },
    erf: (c) => ip.ops.unary('erf', arg(c, 0, 'x'), c.span),
    erfinv: (c) => ip.ops.unary('erf_inv', arg(c, 0, 'x'), c.span),
  });
  return builtinModule('jax.scipy', { special });
}

/** jax.tree / jax.tree_util: map and leaves over pytrees (dicts in sorted key order, lists, tuples, NamedTuples). */
export function treeModules(ip: Interp): { tree: PyModule; treeUtil: PyModule; map: PyBuiltin } {
  const map: Fn = (c) => {
    const f = arg(c, 0, 'f');
    const trees = c.args.slice(1);
    if (!trees.length) throw new CompileError("TypeError: tree_map() missing required argument 'tree'", c.span);
    const first = flatten(trees[0]!);
    const rest = trees.slice(1).map((t) => flatten(t).leaves);
    for (const r of rest) {
      if (r.length !== first.leaves.length) {
        throw new CompileError(`ValueError: Tree structures differ: ${first.leaves.length} leaves vs ${r.length} leaves`, c.span);
      }
    }
    return first.unflatten(first.leaves.map((l, i) => ip.call(f, { args: [l, ...rest.map((r) => r[i]!)], kwargs: new Map(), span: c.span })));
  };
  const leaves: Fn = (c) => new PyList(flatten(arg(c, 0, 'tree')).leaves);
  const entries = { map, leaves };
  return {
    tree: builtinModule('jax.tree', entries),
    treeUtil: builtinModule('jax.tree_util', { tree_map: map, tree_leaves: leaves }),
    map: new PyBuiltin('tree_map', map),
  };
}
