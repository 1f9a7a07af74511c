// jax.nn: the activation and normalisation functions training code uses,
// each written as the primitive sequence JAX traces for it
// (jax/_src/nn/functions.py), so values and gradients round the same way.
import { CompileError } from '../common/diagnostics.js';
import type { DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { logsumexp } from './lib_scipy.js';
import { arg, builtinModule, dtypeArg } from './modules.js';
import { truthy } from './pyops.js';
import type { CallArgs, PyModule, PyValue, Tracer } from './values.js';

/** The composites below, over the interpreter's array operations. */
class NnOps {
  constructor(private readonly ip: Interp) {}

  get ops() {
    return this.ip.ops;
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

  oneHot(x: PyValue, numClasses: number, dtype: DType, span: Span): Tracer {
    const o = this.ops;
    const a = o.asArray(x, span);
    const shape = [...a.aval.shape, numClasses];
    const lhs = o.tracer(o.broadcastTo(o.expandDims(a, a.aval.shape.length, span).atom, shape, span));
    const iota = o.tracer(o.bind('iota', [], { dtype: a.aval.dtype === 'float32' ? 'float32' : 'int32', shape, dimension: shape.length - 1, sharding: null }, span));
    return o.convert(o.compare('eq', lhs, iota, span), dtype, span);
  }
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
    logsumexp: (c) => logsumexp(ip, arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span),
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
