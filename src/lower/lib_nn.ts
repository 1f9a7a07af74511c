// jax.nn: the activation and normalisation functions training code uses,
// each written as the primitive sequence JAX traces for it
// (jax/_src/nn/functions.py), so values and gradients round the same way.
import { callNnPrelude, nnPreludeFunctions } from './nn_prelude.js';
import { JAX_JITTED, withJitRegions } from './jnp_jitted.js';
import { CompileError } from '../common/diagnostics.js';
import { isInexact, type DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { logsumexp } from './lib_scipy.js';
import { checkShapeIndex, normalizeAxes } from './arrays.js';
import { arg, builtinModule, dtypeArg, numArg, shapeArgs } from './modules.js';
import { truthy } from './pyops.js';
import { PyBuiltin, PyDType, PyList, PyTuple, isArray, typeName, type CallArgs, type PyModule, type PyValue, type Tracer } from './values.js';
import { defaultFloat } from './x64.js';

/** The composites below, over the interpreter's array operations. */
class NnOps {
  constructor(private readonly ip: Interp) {}

  get ops() {
    return this.ip.ops;
  }

  relu(x: PyValue, span: Span): Tracer {
    // jax.nn.relu is a custom_jvp of maximum(x, 0) whose derivative is where(x > 0, g, 0):
    // a select reproduces both the values and that derivative (0 at x == 0); x <= 0 is false for NaN,
    // which the maximum keeps
    const o = this.ops;
    let a = o.asArray(x, span);
    // maximum(x, 0) promotes bool with the weak int 0 to int32
    if (a.aval.dtype === 'bool') a = o.convert(a, 'int32', span);
    const zero = o.tracer(o.broadcastTo(o.asArray(0, span, a.aval.dtype).atom, a.aval.shape, span));
    return o.select(o.compare('le', a, 0, span), zero, a, span);
  }

  /** jax.nn.softmax (JAX's _softmax: exp(x - stop_gradient(max)) / sum). */
  softmax(x: PyValue, axis: PyValue, span: Span): Tracer {
    const o = this.ops;
    const a = o.asInexact(x, span);
    const m = o.reduce('reduce_max', a, axis, true, span);
    const un = o.unary('exp', o.binary('sub', a, o.stopGradient(m, span), span), span);
    return o.binary('div', un, o.reduce('reduce_sum', un, axis, true, span), span);
  }

  /** jax.nn.log_softmax: shifted - log(sum(exp(shifted))). */
  logSoftmax(x: PyValue, axis: PyValue, span: Span): Tracer {
    const o = this.ops;
    const a = o.asInexact(x, span);
    const m = o.reduce('reduce_max', a, axis, true, span);
    const shifted = o.binary('sub', a, o.stopGradient(m, span), span);
    const lse = o.unary('log', o.reduce('reduce_sum', o.unary('exp', shifted, span), axis, true, span), span);
    return o.binary('sub', shifted, lse, span);
  }

  /** JAX's _one_hot: expand_dims(x, axis) == broadcasted_iota along the canonicalised output axis. */
  oneHot(x: PyValue, numClasses: number, dtype: DType, axis: number, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span);
    const r = a.aval.shape.length;
    const out = normalizeAxes(BigInt(axis), r + 1, span)[0]!;
    const shape = [...a.aval.shape];
    shape.splice(out, 0, numClasses);
    const lhs = o.tracer(o.broadcastTo(o.expandDims(a, out, span).atom, shape, span));
    const iota = o.tracer(o.bind('iota', [], { dtype: a.aval.dtype === 'float32' ? 'float32' : 'int32', shape, dimension: out, sharding: null }, span));
    return o.convert(o.compare('eq', lhs, iota, span), dtype, span);
  }
}

/** lax's float-only primitives (logistic) raise JAX's TypeError on integer and bool arrays. */
function floating(prim: string, x: PyValue, span: Span): PyValue {
  const d = aval(x);
  if (d && !isInexact(d)) throw new CompileError(`TypeError: ${prim} does not accept dtype ${d}. Accepted dtypes are subtypes of floating, complexfloating.`, span);
  return x;
}

/** A bool array where JAX negates or subtracts it (neg, sub) raises that primitive's TypeError. */
function noBool(x: PyValue, prim: 'neg' | 'sub', span: Span): PyValue {
  if (aval(x) !== 'bool') return x;
  if (prim === 'neg') throw new CompileError('TypeError: neg does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating.', span);
  throw new CompileError('TypeError: sub does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of integer, floating, complexfloating.', span);
}

/** The dtype of an array argument (Python scalars: null, they are weakly typed). */
function aval(x: PyValue): DType | null {
  return isArray(x) ? x.aval.dtype : null;
}

/** The first argument, after checking that every keyword is one of the function's parameters (Python's TypeError). */
function kwargs(c: CallArgs, fname: string, params: string[]): PyValue {
  for (const k of c.kwargs.keys()) if (!params.includes(k)) throw new CompileError(`TypeError: ${fname}() got an unexpected keyword argument '${k}'`, c.span);
  return arg(c, 0, params[0]!);
}

/** jax.nn */
export function nnModule(ip: Interp, random: PyModule): PyModule {
  const nn = new NnOps(ip);
  const o = ip.ops;
  const axisOf = (c: CallArgs, i: number): PyValue => arg(c, i, 'axis', -1n);
  const fns: Record<string, (c: CallArgs) => PyValue> = {
    relu: (c) => nn.relu(arg(c, 0, 'x'), c.span),
    sigmoid: (c) => o.unary('logistic', floating('logistic', arg(c, 0, 'x'), c.span), c.span),
    softmax: (c) => nn.softmax(noBool(kwargs(c, 'softmax', ['x', 'axis', 'where']), 'sub', c.span), axisOf(c, 1), c.span),
    log_softmax: (c) => nn.logSoftmax(noBool(kwargs(c, 'log_softmax', ['x', 'axis', 'where']), 'sub', c.span), axisOf(c, 1), c.span),
    logsumexp: (c) => logsumexp(ip, arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span),
    one_hot: (c) => {
      const n = ip.static(arg(c, 1, 'num_classes'), 'num_classes', c.span);
      if (typeof n !== 'bigint') throw new CompileError('TypeError: one_hot num_classes must be an int', c.span);
      const axis = ip.static(c.kwargs.get('axis') ?? -1n, 'axis', c.span);
      if (typeof axis !== 'bigint') throw new CompileError('NotImplementedError: jaxts supports jax.nn.one_hot with an integer axis (not a named axis)', c.span);
      return nn.oneHot(arg(c, 0, 'x'), Number(n), dtypeArg(c.kwargs.get('dtype'), c.span) ?? defaultFloat(), Number(axis), c.span);
    },
    silu: (c) => {
      const x = o.asInexact(floating('logistic', arg(c, 0, 'x'), c.span), c.span);
      return o.binary('mul', x, o.unary('logistic', x, c.span), c.span);
    },
    tanh: (c) => o.unary('tanh', arg(c, 0, 'x'), c.span),
    ...activations(ip),
  };
  return builtinModule('jax.nn', { ...nnPreludeFunctions(ip), ...withJitRegions(ip, fns, JAX_JITTED.nn), initializers: initializers(ip, random) });
}

/** The rest of jax.nn's activations, each the primitive sequence of jax/_src/nn/functions.py. */
function activations(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const o = ip.ops;
  const X = (c: CallArgs, name = 'x'): Tracer => o.asInexact(arg(c, 0, name), c.span);
  const full = (x: Tracer, v: number, span: Span): Tracer => o.full([...x.aval.shape], v, x.aval.dtype, span);
  const where = (cond: Tracer, a: Tracer, b: Tracer, span: Span): Tracer => o.select(cond, a, b, span);
  const num = (c: CallArgs, i: number, name: string, def: number): number => numArg(arg(c, i, name, def), name, c.span);
  /** jnp.logaddexp(x, 0) as JAX's custom_jvp body: max + log1p(exp(-|x - 0|)), x + 0 where that is NaN. */
  const softplus = (x: Tracer, span: Span): Tracer => {
    const zero = o.asArray(0, span, 'float32');
    const amax = o.binary('max', x, zero, span);
    const delta = o.binary('sub', x, zero, span);
    const isnan = o.compare('ne', delta, delta, span);
    const sum = o.binary('add', x, zero, span);
    const r = o.binary('add', amax, o.unary('log1p', o.unary('exp', o.unary('neg', o.unary('abs', delta, span), span), span), span), span);
    const y = where(isnan, sum, r, span);
    // JAX's custom JVP (_logaddexp_jvp): the tangent is t * exp(x - y), 1/2 at x = 0 where the
    // composite's own derivative is 0. The value is y exactly; only the derivative comes from the rule.
    const slope = o.unary('exp', o.binary('sub', x, y, span), span);
    return o.binary('add', o.stopGradient(y, span), o.tangentTerm(x, slope, span), span);
  };
  const elu = (x: Tracer, alpha: number, span: Span): Tracer => {
    const pos = o.compare('gt', x, 0, span);
    const safe = where(pos, full(x, 0, span), x, span);
    return where(pos, x, o.binary('mul', o.asArray(alpha, span, 'float32'), o.unary('expm1', safe, span), span), span);
  };
  const relu6 = (x: Tracer, span: Span): Tracer => o.binary('min', o.binary('max', x, 0.0, span), 6.0, span);
  return {
    softplus: (c) => softplus(X(c), c.span),
    log_sigmoid: (c) => {
      noBool(arg(c, 0, 'x'), 'neg', c.span);
      return o.unary('neg', softplus(o.unary('neg', X(c), c.span), c.span), c.span);
    },
    soft_sign: (c) => {
      const x = X(c);
      return o.binary('div', x, o.binary('add', o.unary('abs', x, c.span), 1.0, c.span), c.span);
    },
    gelu: (c) => {
      const x = X(c);
      const approximate = truthy(arg(c, 1, 'approximate', true), c.span);
      if (approximate) {
        const cdf = o.binary('mul', 0.5, o.binary('add', 1.0, o.unary('tanh', o.binary('mul', o.asArray(Math.sqrt(2 / Math.PI), c.span, 'float32'), o.binary('add', x, o.binary('mul', o.asArray(0.044715, c.span, 'float32'), o.power(x, 3n, c.span), c.span), c.span), c.span), c.span), c.span), c.span);
        return o.binary('mul', x, cdf, c.span);
      }
      // 0.5 x erfc(-x / sqrt(2)), erfc(z) = 1 - erf(z)
      const z = o.binary('mul', o.unary('neg', x, c.span), o.asArray(Math.SQRT1_2, c.span, 'float32'), c.span);
      return o.binary('mul', o.binary('mul', 0.5, x, c.span), o.binary('sub', 1.0, o.unary('erf', z, c.span), c.span), c.span);
    },
    elu: (c) => elu(X(c), num(c, 1, 'alpha', 1.0), c.span),
    selu: (c) => o.binary('mul', o.asArray(1.0507009873554804934193349852946, c.span, 'float32'), elu(X(c), 1.6732632423543772848170429916717, c.span), c.span),
    celu: (c) => {
      const x = X(c);
      const alpha = o.asArray(num(c, 1, 'alpha', 1.0), c.span, 'float32');
      return o.binary('add', o.binary('max', x, 0.0, c.span), o.binary('mul', alpha, o.unary('expm1', o.binary('div', o.binary('min', x, 0.0, c.span), alpha, c.span), c.span), c.span), c.span);
    },
    leaky_relu: (c) => {
      const x = X(c);
      const slope = num(c, 1, 'negative_slope', 0.01);
      return where(o.compare('ge', x, 0, c.span), x, o.binary('mul', o.asArray(slope, c.span, 'float32'), x, c.span), c.span);
    },
    relu6: (c) => relu6(X(c), c.span),
    hard_sigmoid: (c) => o.binary('div', relu6(o.binary('add', X(c), 3.0, c.span), c.span), 6.0, c.span),
    hard_silu: (c) => {
      const x = X(c);
      return o.binary('mul', x, o.binary('div', relu6(o.binary('add', x, 3.0, c.span), c.span), 6.0, c.span), c.span);
    },
    hard_swish: (c) => {
      const x = X(c);
      return o.binary('mul', x, o.binary('div', relu6(o.binary('add', x, 3.0, c.span), c.span), 6.0, c.span), c.span);
    },
    hard_tanh: (c) => {
      // where(x > 1, 1, where(x < -1, -1, x)): the weak 1 and -1 take x's dtype (bool promotes to int32)
      let x = o.asArray(arg(c, 0, 'x'), c.span);
      if (x.aval.dtype === 'bool') x = o.convert(x, 'int32', c.span);
      const dt = x.aval.dtype;
      const k = where(o.compare('lt', x, -1, c.span), o.full([...x.aval.shape], -1, dt, c.span), x, c.span);
      return where(o.compare('gt', x, 1, c.span), o.full([...x.aval.shape], 1, dt, c.span), k, c.span);
    },
    identity: (c) => o.asArray(arg(c, 0, 'x'), c.span),
    sparse_sigmoid: (c) => {
      const clip = ip.library.importModule('jax.numpy', c.span).attrs.get('clip');
      const x = X(c);
      if (!(clip instanceof PyBuiltin)) throw new Error('internal: jax.numpy.clip is missing');
      const clipped = clip.fn({ args: [o.binary('add', x, 1.0, c.span), 0.0, 2.0], kwargs: new Map(), span: c.span });
      return o.binary('mul', 0.5, clipped, c.span);
    },
    // logsumexp(x) - log(n), n the number of elements reduced
    logmeanexp: (c) => {
      if (c.kwargs.has('where') || c.args.length > 2) throw new CompileError('NotImplementedError: jaxts supports jax.nn.logmeanexp(x, axis, keepdims) without where', c.span);
      const x = o.asInexact(arg(c, 0, 'x'), c.span);
      const axis = arg(c, 1, 'axis', null);
      const keepdims = truthy(c.kwargs.get('keepdims') ?? false, c.span);
      const lse = logsumexp(ip, x, axis, keepdims, c.span);
      const n = x.aval.shape.length ? normalizeAxes(axis, x.aval.shape.length, c.span).reduce((p, d) => p * x.aval.shape[d]!, 1) : 1;
      return o.binary('sub', lse, o.unary('log', o.asArray(n, c.span, 'float32'), c.span), c.span);
    },
    sparse_plus: (c) => {
      const x = X(c);
      const mid = o.binary('div', o.power(o.binary('add', x, 1.0, c.span), 2n, c.span), 4.0, c.span);
      const h = where(o.compare('ge', x, 1.0, c.span), x, mid, c.span);
      return where(o.compare('le', x, -1.0, c.span), full(x, 0, c.span), h, c.span);
    },
    squareplus: (c) => {
      const x = X(c);
      const b = num(c, 1, 'b', 4);
      return o.binary('div', o.binary('add', x, o.unary('sqrt', o.binary('add', o.power(x, 2n, c.span), o.asArray(b, c.span, 'float32'), c.span), c.span), c.span), 2.0, c.span);
    },
    mish: (c) => {
      const x = X(c);
      return o.binary('mul', x, o.unary('tanh', softplus(x, c.span), c.span), c.span);
    },
    swish: (c) => {
      const x = X(c);
      floating('logistic', arg(c, 0, 'x'), c.span);
      return o.binary('mul', x, o.unary('logistic', x, c.span), c.span);
    },
    log1mexp: (c) => {
      noBool(arg(c, 0, 'x'), 'neg', c.span);
      const x = X(c);
      const small = o.compare('lt', x, o.asArray(Math.LN2, c.span, 'float32'), c.span);
      const a = o.unary('log', o.unary('neg', o.unary('expm1', o.unary('neg', x, c.span), c.span), c.span), c.span);
      const b = o.unary('log1p', o.unary('neg', o.unary('exp', o.unary('neg', x, c.span), c.span), c.span), c.span);
      return where(small, a, b, c.span);
    },
    glu: (c) => {
      const x = o.asArray(kwargs(c, 'glu', ['x', 'axis']), c.span);
      const r = x.aval.shape.length;
      const axisV = arg(c, 1, 'axis', -1n);
      // x.shape[axis] (Python's tuple indexing) comes first
      if (axisV instanceof PyTuple) throw new CompileError('TypeError: tuple indices must be integers or slices, not tuple', c.span);
      checkShapeIndex(axisV, r, c.span);
      const ax = normalizeAxes(axisV, r, c.span)[0]!;
      const n = x.aval.shape[ax]!;
      if (n % 2 !== 0) throw new CompileError('AssertionError: axis size must be divisible by 2', c.span);
      const half = (lo: number): Tracer => o.tracer(o.bind('slice', [x.atom], { start_indices: x.aval.shape.map((_, i) => (i === ax ? lo : 0)), limit_indices: x.aval.shape.map((d, i) => (i === ax ? lo + n / 2 : d)), strides: null }, c.span));
      return o.binary('mul', half(0), o.unary('logistic', half(n / 2), c.span), c.span);
    },
    standardize: (c) => {
      const x = X(c);
      kwargs(c, 'standardize', ['x', 'axis', 'mean', 'variance', 'epsilon', 'where', 'algorithm']);
      const axis = arg(c, 1, 'axis', -1n);
      checkShapeIndex(axis, x.aval.shape.length, c.span);
      const eps = num(c, 4, 'epsilon', 1e-5);
      const mean = o.mean(x, axis, true, c.span);
      const meanSq = o.mean(o.power(x, 2n, c.span), axis, true, c.span);
      const variance = o.binary('max', 0, o.binary('sub', meanSq, o.power(mean, 2n, c.span), c.span), c.span);
      return o.binary('mul', o.binary('sub', x, mean, c.span), o.unary('rsqrt', o.binary('add', variance, o.asArray(eps, c.span, 'float32'), c.span), c.span), c.span);
    },
  };
}

/** jax.nn.initializers: each builder returns init(key, shape, dtype), drawing with jax.random as JAX does. */
function initializers(ip: Interp, random: PyModule): PyModule {
  const o = ip.ops;
  const call = (fn: string, args: PyValue[], span: Span): Tracer => {
    const f = random.attrs.get(fn);
    if (!(f instanceof PyBuiltin)) throw new Error(`internal: jax.random.${fn} is missing`);
    return o.asArray(f.fn({ args, kwargs: new Map(), span }), span);
  };
  const f32 = (v: number, span: Span): Tracer => o.asArray(v, span, 'float32');
  const initFn = (name: string, draw: (key: PyValue, shape: number[], dtype: DType, span: Span) => PyValue, dtypeDefault: PyValue) =>
    new PyBuiltin(name, (c) => {
      const shape = shapeArgs([arg(c, 1, 'shape')], c.span);
      const dtype = dtypeArg(arg(c, 2, 'dtype', dtypeDefault), c.span) ?? defaultFloat();
      return draw(arg(c, 0, 'key'), shape, dtype, c.span);
    });
  const shapeTuple = (s: number[]): PyTuple => new PyTuple(s.map(BigInt));
  /** jax.random.truncated_normal(key, lower, upper, shape): sqrt(2) erf_inv(uniform(erf(lower/sqrt2), erf(upper/sqrt2))), clipped inside (lower, upper). */
  const truncatedNormal = (key: PyValue, lower: number, upper: number, shape: number[], dtype: DType, span: Span): Tracer => {
    const sqrt2 = f32(Math.SQRT2, span);
    const a = o.unary('erf', o.binary('div', f32(lower, span), sqrt2, span), span);
    const b = o.unary('erf', o.binary('div', f32(upper, span), sqrt2, span), span);
    const u = call('uniform', [key, shapeTuple(shape), new PyDType(dtype === 'float32' ? 'float32' : 'float32'), a, b], span);
    const out = o.binary('mul', sqrt2, o.unary('erf_inv', u, span), span);
    const next = (v: number, dir: 1 | -1): number => {
      const buf = new Float32Array([v]);
      const bits = new Int32Array(buf.buffer);
      if (v === 0) return dir * 1.401298464324817e-45;
      bits[0] = bits[0]! + ((v > 0) === (dir > 0) ? 1 : -1);
      return buf[0]!;
    };
    return o.binary('min', f32(next(Math.fround(upper), -1), span), o.binary('max', f32(next(Math.fround(lower), 1), span), out, span), span);
  };
  const fans = (shape: number[], inAxis: PyValue, outAxis: PyValue, batchAxis: PyValue, span: Span): [number, number] => {
    const size = (v: PyValue): number => {
      // JAX's _compute_fans: an int axis, else an iterable of axes
      if (!(v instanceof PyTuple || v instanceof PyList || typeof v === 'bigint')) throw new CompileError(`TypeError: '${typeName(v)}' object is not iterable`, span);
      const axes = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
      return axes.reduce<number>((p, a) => { let i = Number(a as bigint); if (i < 0) i += shape.length; return p * shape[i]!; }, 1);
    };
    if (typeof inAxis === 'bigint' && inAxis === -2n && shape.length <= 1) {
      throw new CompileError(`ValueError: Can't compute input and output sizes of a ${shape.length}-dimensional weights tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.`, span);
    }
    const inSize = size(inAxis);
    const outSize = size(outAxis);
    const receptive = shape.reduce((p, d) => p * d, 1) / inSize / outSize / size(batchAxis);
    return [inSize * receptive, outSize * receptive];
  };
  const varianceScaling = (scale: number, mode: string, distribution: string, inAxis: PyValue, outAxis: PyValue, batchAxis: PyValue, dtype: PyValue, span: Span): PyBuiltin => {
    if (!['fan_in', 'fan_out', 'fan_avg', 'fan_geo_avg'].includes(mode)) throw new CompileError(`ValueError: invalid mode for variance scaling initializer: ${mode}`, span);
    if (!['truncated_normal', 'normal', 'uniform'].includes(distribution)) throw new CompileError(`ValueError: invalid distribution for variance scaling initializer: ${distribution}`, span);
    return initFn('init', (key, shape, dt, at) => {
      const [fanIn, fanOut] = fans(shape, inAxis, outAxis, batchAxis, at);
      const denominator = mode === 'fan_in' ? fanIn : mode === 'fan_out' ? fanOut : mode === 'fan_avg' ? (fanIn + fanOut) / 2 : Math.sqrt(fanIn * fanOut);
      const variance = f32(scale / denominator, at);
      if (distribution === 'truncated_normal') {
        const stddev = o.binary('div', o.unary('sqrt', variance, at), f32(0.87962566103423978, at), at);
        return o.binary('mul', truncatedNormal(key, -2, 2, shape, dt, at), stddev, at);
      }
      if (distribution === 'normal') return o.binary('mul', call('normal', [key, shapeTuple(shape), new PyDType('float32')], at), o.unary('sqrt', variance, at), at);
      const u = call('uniform', [key, shapeTuple(shape), new PyDType('float32'), -1n], at);
      return o.binary('mul', u, o.unary('sqrt', o.binary('mul', f32(3, at), variance, at), at), at);
    }, dtype);
  };
  /** A named variance-scaling builder: glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None). */
  const named = (scale: number, mode: string, distribution: string) => (c: CallArgs): PyValue =>
    varianceScaling(scale, mode, distribution, arg(c, 0, 'in_axis', -2n), arg(c, 1, 'out_axis', -1n), arg(c, 2, 'batch_axis', new PyTuple([])), arg(c, 3, 'dtype', null), c.span);
  const str = (v: PyValue, what: string, span: Span): string => {
    if (typeof v !== 'string') throw new CompileError(`TypeError: ${what} must be a string`, span);
    return v;
  };
  const zerosOnes = (value: number) => (c: CallArgs): PyValue => {
    const shape = shapeArgs([arg(c, 1, 'shape')], c.span);
    return o.full(shape, value, dtypeArg(arg(c, 2, 'dtype', null), c.span) ?? defaultFloat(), c.span);
  };
  return builtinModule('jax.nn.initializers', {
    zeros: zerosOnes(0),
    ones: zerosOnes(1),
    constant: (c) => {
      const value = arg(c, 0, 'value');
      return initFn('init', (_key, shape, dt, at) => o.tracer(o.broadcastTo(o.asArray(value, at, dt).atom, shape, at)), arg(c, 1, 'dtype', null));
    },
    normal: (c) => {
      const stddev = numArg(arg(c, 0, 'stddev', 1e-2), 'stddev', c.span);
      return initFn('init', (key, shape, _dt, at) => o.binary('mul', call('normal', [key, shapeTuple(shape), new PyDType('float32')], at), f32(stddev, at), at), arg(c, 1, 'dtype', null));
    },
    uniform: (c) => {
      const scale = numArg(arg(c, 0, 'scale', 1e-2), 'scale', c.span);
      return initFn('init', (key, shape, _dt, at) => o.binary('mul', call('uniform', [key, shapeTuple(shape), new PyDType('float32')], at), f32(scale, at), at), arg(c, 1, 'dtype', null));
    },
    truncated_normal: (c) => {
      const stddev = numArg(arg(c, 0, 'stddev', 1e-2), 'stddev', c.span);
      const lower = numArg(arg(c, 2, 'lower', -2.0), 'lower', c.span);
      const upper = numArg(arg(c, 3, 'upper', 2.0), 'upper', c.span);
      return initFn('init', (key, shape, dt, at) => o.binary('mul', truncatedNormal(key, lower, upper, shape, dt, at), f32(stddev, at), at), arg(c, 1, 'dtype', null));
    },
    variance_scaling: (c) =>
      varianceScaling(numArg(arg(c, 0, 'scale'), 'scale', c.span), str(arg(c, 1, 'mode'), 'mode', c.span), str(arg(c, 2, 'distribution'), 'distribution', c.span),
        arg(c, 3, 'in_axis', -2n), arg(c, 4, 'out_axis', -1n), arg(c, 5, 'batch_axis', new PyTuple([])), arg(c, 6, 'dtype', null), c.span),
    glorot_uniform: named(1, 'fan_avg', 'uniform'),
    xavier_uniform: named(1, 'fan_avg', 'uniform'),
    glorot_normal: named(1, 'fan_avg', 'truncated_normal'),
    xavier_normal: named(1, 'fan_avg', 'truncated_normal'),
    lecun_uniform: named(1, 'fan_in', 'uniform'),
    lecun_normal: named(1, 'fan_in', 'truncated_normal'),
    he_uniform: named(2, 'fan_in', 'uniform'),
    kaiming_uniform: named(2, 'fan_in', 'uniform'),
    he_normal: named(2, 'fan_in', 'truncated_normal'),
    kaiming_normal: named(2, 'fan_in', 'truncated_normal'),
    // over jax.random.orthogonal's QR, as JAX writes them (nn_prelude.ts)
    orthogonal: (c) => callNnPrelude(ip, '_init_orthogonal', c),
    delta_orthogonal: (c) => callNnPrelude(ip, '_init_delta_orthogonal', c),
  });
}
