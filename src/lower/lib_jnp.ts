// jax.numpy (and jax.numpy.linalg): each function checks its arguments as JAX
// does and lowers to the primitive sequence JAX traces for it (see
// jax/_src/numpy/lax_numpy.py, reductions.py, array_creation.py), so values
// and gradients round the same way. Array methods (array_methods.ts) call these.
import { CompileError } from '../common/diagnostics.js';
import type { Prim } from '../ir/prims.js';
import type { DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import { broadcastShapes, normalizeAxes, promote } from './arrays.js';
import { iterate } from './expr.js';
import type { Interp } from './interp.js';
import { logsumexp } from './lib_scipy.js';
import { arangeArgs, arg, builtinModule, dtypeArg, intArg, numArg, shapeArgs } from './modules.js';
import { truthy } from './pyops.js';
import { PyClass, PyDType, PyModule, PyTuple, Tracer, typeName, type CallArgs, type PyValue } from './values.js';

type Fn = (c: CallArgs) => PyValue;
type Reduction = 'reduce_sum' | 'reduce_max' | 'reduce_min' | 'reduce_prod';

export function jnpModule(ip: Interp): PyModule {
  const ops = ip.ops;
  const dt = (name: PyDType['name']): PyDType => new PyDType(name);
  const dtypeOf = (c: CallArgs, i: number): DType | undefined => dtypeArg(c.kwargs.get('dtype') ?? c.args[i], c.span);
  const keep = (c: CallArgs): boolean => truthy(c.kwargs.get('keepdims') ?? false, c.span);
  const un = (prim: Prim): Fn => (c) => ops.unary(prim, arg(c, 0, 'x'), c.span);
  const bin = (prim: Prim): Fn => (c) => ops.binary(prim, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span);
  const cmp = (op: 'gt' | 'lt' | 'eq'): Fn => (c) => ops.compare(op, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span);
  const red = (prim: Reduction): Fn => (c) => ops.reduce(prim, arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span);
  const shapeOf = (v: PyValue, span: Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs([v], span));
  const fullLike = (value: number): Fn => (c) => {
    const a = ops.aval(arg(c, 0, 'a'), c.span);
    return ops.full([...a.shape], value, dtypeOf(c, 1) ?? a.dtype, c.span);
  };

  const fns: Record<string, Fn> = {
    arange: (c) => {
      const { start, stop, step, isFloat } = arangeArgs(c);
      return ops.arange(start, stop, step, dtypeOf(c, 99) ?? (isFloat ? 'float32' : 'int32'), c.span);
    },
    linspace: (c) => linspace(ip, c),
    array: (c) => ops.asArray(arg(c, 0, 'object'), c.span, dtypeOf(c, 1)),
    asarray: (c) => ops.asArray(arg(c, 0, 'object'), c.span, dtypeOf(c, 1)),
    astype: (c) => ops.convert(ops.asArray(arg(c, 0, 'x'), c.span), dtypeArg(arg(c, 1, 'dtype'), c.span)!, c.span),
    zeros: (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 0, dtypeOf(c, 1) ?? 'float32', c.span),
    ones: (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 1, dtypeOf(c, 1) ?? 'float32', c.span),
    full: (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), numArg(arg(c, 1, 'fill_value'), 'fill_value', c.span), dtypeOf(c, 2) ?? (typeof c.args[1] === 'bigint' ? 'int32' : 'float32'), c.span),
    zeros_like: fullLike(0),
    ones_like: fullLike(1),
    reshape: (c) => ops.reshape(arg(c, 0, 'a'), shapeArgs([arg(c, 1, 'shape')], c.span), c.span),
    ravel: (c) => ops.reshape(arg(c, 0, 'a'), [-1], c.span),
    transpose: (c) => {
      const axes = arg(c, 1, 'axes', null);
      return ops.transpose(arg(c, 0, 'a'), axes !== null ? shapeArgs([axes], c.span) : null, c.span);
    },
    squeeze: (c) => {
      const a = arg(c, 0, 'a');
      const axis = arg(c, 1, 'axis', null);
      const shape = ops.aval(a, c.span).shape;
      const axes = axis !== null ? normalizeAxes(axis, shape.length, c.span) : shape.flatMap((d, i) => (d === 1 ? [i] : []));
      return ops.reshape(a, shape.filter((_, i) => !axes.includes(i)), c.span);
    },
    stack: (c) => ops.stack(iterate(ip, arg(c, 0, 'arrays'), c.span), intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span),
    concatenate: (c) => ops.concatenate(iterate(ip, arg(c, 0, 'arrays'), c.span), intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span),
    expand_dims: (c) => {
      const x = ops.asArray(arg(c, 0, 'a'), c.span);
      const ax = intArg(arg(c, 1, 'axis'), 'axis', c.span);
      return ops.expandDims(x, ax < 0 ? ax + x.aval.shape.length + 1 : ax, c.span);
    },
    broadcast_to: (c) => {
      const x = ops.asArray(arg(c, 0, 'array'), c.span);
      return ops.tracer(ops.broadcastTo(x.atom, shapeArgs([arg(c, 1, 'shape')], c.span), c.span));
    },
    dot: (c) => ops.dot(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span),
    matmul: (c) => ops.matmul(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span),
    sum: red('reduce_sum'),
    max: red('reduce_max'),
    min: red('reduce_min'),
    prod: red('reduce_prod'),
    mean: (c) => ops.mean(arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    all: (c) => ops.reduce('reduce_min', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    any: (c) => ops.reduce('reduce_max', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    argmax: (c) => argExtreme(ip, 'max', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    argmin: (c) => argExtreme(ip, 'min', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    sin: un('sin'),
    cos: un('cos'),
    tan: un('tan'),
    exp: un('exp'),
    exp2: un('exp2'),
    log: un('log'),
    log1p: un('log1p'),
    expm1: un('expm1'),
    tanh: un('tanh'),
    sqrt: un('sqrt'),
    abs: un('abs'),
    absolute: un('abs'),
    floor: un('floor'),
    ceil: un('ceil'),
    sign: un('sign'),
    negative: un('neg'),
    isfinite: (c) => ops.tracer(ops.bind('is_finite', [ops.asArray(arg(c, 0, 'x'), c.span, 'float32').atom], {}, c.span)),
    square: (c) => ops.power(arg(c, 0, 'x'), 2n, c.span),
    power: (c) => ops.power(arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    add: bin('add'),
    subtract: bin('sub'),
    multiply: bin('mul'),
    divide: bin('div'),
    true_divide: bin('div'),
    maximum: bin('max'),
    minimum: bin('min'),
    greater: cmp('gt'),
    less: cmp('lt'),
    equal: cmp('eq'),
    where: (c) => {
      if (c.args.length === 1) throw new CompileError('jaxts: jnp.where with one argument (nonzero) has a data-dependent shape and is not supported', c.span);
      return where(ip, arg(c, 0, 'condition'), arg(c, 1, 'x'), arg(c, 2, 'y'), c.span);
    },
    clip: (c) => clip(ip, arg(c, 0, 'x'), arg(c, 1, 'min', null), arg(c, 2, 'max', null), c.span),
    logaddexp: (c) => logsumexp(ip, ops.stack([arg(c, 0, 'x1'), arg(c, 1, 'x2')], 0, c.span), 0n, false, c.span),
  };
  const linalg = builtinModule('jax.numpy.linalg', {
    norm: (c) => {
      const ord = arg(c, 1, 'ord', null);
      if (ord !== null) throw new CompileError('jaxts: jnp.linalg.norm supports ord=None only', c.span);
      // ord=None: sqrt(sum(x * x))
      const a = ops.asArray(arg(c, 0, 'x'), c.span, 'float32');
      return ops.unary('sqrt', ops.reduce('reduce_sum', ops.binary('mul', a, a, c.span), arg(c, 2, 'axis', null), keep(c), c.span), c.span);
    },
  });
  return builtinModule('jax.numpy', {
    float32: dt('float32'),
    int32: dt('int32'),
    uint32: dt('uint32'),
    bool_: dt('bool'),
    float64: dt('float64'),
    int64: dt('int64'),
    ndarray: new PyClass('ndarray', [], new Map(), 'marker'),
    pi: Math.PI,
    e: Math.E,
    inf: Infinity,
    nan: NaN,
    linalg,
    ...fns,
  });
}

/** jnp.where(c, x, y): promotion and broadcasting as a binary op. */
function where(ip: Interp, c: PyValue, x: PyValue, y: PyValue, span: Span): Tracer {
  const o = ip.ops;
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
function argExtreme(ip: Interp, kind: 'max' | 'min', x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
  const o = ip.ops;
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

function clip(ip: Interp, x: PyValue, lo: PyValue, hi: PyValue, span: Span): Tracer {
  const o = ip.ops;
  let r: PyValue = x;
  if (lo !== null) r = o.binary('max', lo, r, span);
  if (hi !== null) r = o.binary('min', hi, r, span);
  return o.asArray(r, span);
}

/**
 * jnp.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0), as JAX's _linspace:
 * start * (1 - step) + stop * step with step = iota / div (recovering both ends in float32 arithmetic),
 * the stop appended when `endpoint`, floored before an integer dtype.
 */
function linspace(ip: Interp, c: CallArgs): PyValue {
  const o = ip.ops;
  const span = c.span;
  const num = intArg(arg(c, 2, 'num', 50n), 'num', span);
  if (num < 0) throw new CompileError(`ValueError: Number of samples, ${num}, must be non-negative.`, span);
  const endpoint = truthy(arg(c, 3, 'endpoint', true), span);
  const retstep = truthy(arg(c, 4, 'retstep', false), span);
  let start = o.asArray(arg(c, 0, 'start'), span);
  let stop = o.asArray(arg(c, 1, 'stop'), span);
  // the computation is in float32 (jaxts's one inexact dtype); by default so is the result
  const dtype = dtypeArg(arg(c, 5, 'dtype', null), span) ?? 'float32';
  start = o.convert(start, 'float32', span);
  stop = o.convert(stop, 'float32', span);
  const bounds = broadcastShapes(start.aval.shape, stop.aval.shape, span);
  const bStart = o.tracer(o.broadcastTo(start.atom, bounds, span));
  const bStop = o.tracer(o.broadcastTo(stop.atom, bounds, span));
  let axis = intArg(arg(c, 6, 'axis', 0n), 'axis', span);
  if (axis < 0) axis += bounds.length + 1;
  const withAxis = (n: number): number[] => [...bounds.slice(0, axis), n, ...bounds.slice(axis)];
  const div = endpoint ? num - 1 : num;
  let out: Tracer;
  let delta: Tracer;
  if (num > 1) {
    delta = o.binary('div', o.binary('sub', stop, start, span), o.asArray(div, span, 'float32'), span);
    const iotaShape = withAxis(div).map((d, i) => (i === axis ? d : 1));
    const iota = o.tracer(o.bind('iota', [], { dtype: 'float32', shape: [div], dimension: 0, sharding: null }, span));
    const step = o.binary('div', o.reshape(iota, iotaShape, span), o.asArray(div, span, 'float32'), span);
    const lo = o.binary('mul', o.reshape(bStart, withAxis(1), span), o.binary('sub', 1n, step, span), span);
    out = o.binary('add', lo, o.binary('mul', o.reshape(bStop, withAxis(1), span), step, span), span);
    if (endpoint) out = o.concatenate([out, o.expandDims(bStop, axis, span)], axis, span);
  } else if (num === 1) {
    delta = endpoint ? o.asArray(NaN, span, 'float32') : o.binary('sub', stop, start, span);
    out = o.reshape(bStart, withAxis(1), span);
  } else {
    delta = o.asArray(NaN, span, 'float32');
    out = o.full(withAxis(0), 0, 'float32', span);
  }
  if (dtype !== 'float32') out = o.unary('floor', out, span);
  const result = o.convert(out, dtype, span);
  return retstep ? new PyTuple([result, delta]) : result;
}
