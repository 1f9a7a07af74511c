// jax.scipy (special.logsumexp, erf, erfinv here; the rest of special and stats
// in lib_stats.ts, linalg in lib_linalg.ts), written as the primitive
// sequence JAX traces (jax/_src/ops/special.py); jax.nn.logsumexp and
// jnp.logaddexp use the same logsumexp.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { normalizeAxes } from './arrays.js';
import type { Interp } from './interp.js';
import { signalFunctions } from './lib_lax_conv.js';
import { linalgFunctions, namedResult } from './lib_linalg.js';
import { specialFunctions, statsModule } from './lib_stats.js';
import { arg, builtinModule } from './modules.js';
import { truthy } from './pyops.js';
import { PyTuple, type PyModule, type PyValue, type Tracer } from './values.js';

/** jax.scipy.special.logsumexp (without b / return_sign). */
export function logsumexp(ip: Interp, x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
  const o = ip.ops;
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

export function scipyModule(ip: Interp): PyModule {
  const special = builtinModule('jax.scipy.special', {
    logsumexp: (c) => {
      if (c.kwargs.has('b') || c.kwargs.has('return_sign')) throw new CompileError('jaxts: logsumexp supports a, axis and keepdims only', c.span);
      return logsumexp(ip, arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span);
    },
    erf: (c) => ip.ops.unary('erf', arg(c, 0, 'x'), c.span),
    erfinv: (c) => ip.ops.unary('erf_inv', arg(c, 0, 'x'), c.span),
    ...specialFunctions(ip),
  });
  const linalg = builtinModule('jax.scipy.linalg', linalgFunctions(ip, {}, namedResult).scipy);
  const signal = builtinModule('jax.scipy.signal', signalFunctions(ip));
  return builtinModule('jax.scipy', { special, linalg, stats: statsModule(ip), signal });
}
