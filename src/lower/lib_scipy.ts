// jax.scipy (special.logsumexp, erf, erfinv here; host SciPy at the end; the rest of special and stats
// in lib_stats.ts, linalg in lib_linalg.ts), written as the primitive
// sequence JAX traces (jax/_src/ops/special.py); jax.nn.logsumexp and
// jnp.logaddexp use the same logsumexp.
import type { Span } from '../parser/ast.js';
import { normalizeAxes } from './arrays.js';
import type { Interp } from './interp.js';
import { signalFunctions } from './lib_lax_conv.js';
import { linalgFunctions, namedResult } from './lib_linalg.js';
import { specialFunctions, statsModule } from './lib_stats.js';
import { linalgPreludeFunctions, logsumexpFull, specialPreludeFunctions, tracedJv } from './scipy_prelude.js';
import { arg, builtinModule } from './modules.js';
import { truthy } from './pyops.js';
import { erfOf } from './lib_stdlib.js';
import { ndBinary, ndBroadcast, ndFrom, ndUnaryFloat } from './ndarray.js';
import { NdArray, NpScalar, PyBuiltin, PyTuple, isArray, type CallArgs, type PyModule, type PyValue, type Tracer } from './values.js';

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
      if (c.args.length > 2 || ['b', 'return_sign', 'where'].some((k) => c.kwargs.has(k))) return logsumexpFull(ip, c);
      return logsumexp(ip, arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span);
    },
    erf: (c) => ip.ops.unary('erf', arg(c, 0, 'x'), c.span),
    erfinv: (c) => ip.ops.unary('erf_inv', arg(c, 0, 'x'), c.span),
    ...specialPreludeFunctions(ip),
    ...specialFunctions(ip),
  });
  const linalg = builtinModule('jax.scipy.linalg', { ...linalgPreludeFunctions(ip), ...linalgFunctions(ip, {}, namedResult).scipy });
  const signal = builtinModule('jax.scipy.signal', signalFunctions(ip));
  return builtinModule('jax.scipy', { special, linalg, stats: statsModule(ip), signal });
}

// ------------------------------------------------------------ host SciPy

/** ln Γ(x) in double precision (Lanczos, g = 7, n = 9; reflection below 0.5). */
function gammaln(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x <= 0 && Number.isInteger(x)) return Infinity;
  if (x === 1 || x === 2) return 0;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - gammaln(1 - x);
  const g = 7;
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  const z = x - 1;
  let a = c[0]!;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (z + i);
  const t = z + g + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const SQRT1_2 = Math.SQRT1_2;

/** erfc(x) = 1 - erf(x), without the cancellation for large x (the continued fraction of erfOf). */
function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) return 1 - erfOf(x);
  if (x > 27) return 0;
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 300; n++) {
    D = x + (n / 2) * D;
    D = D === 0 ? 1e-300 : 1 / D;
    C = x + n / 2 / C;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (f * Math.sqrt(Math.PI));
}

/** Φ(a), the standard normal CDF, as Cephes' ndtr computes it. */
function ndtr(a: number): number {
  const x = a * SQRT1_2;
  const z = Math.abs(x);
  if (z < SQRT1_2) return 0.5 + 0.5 * erfOf(x);
  const y = 0.5 * erfc(z);
  return x > 0 ? 1 - y : y;
}

/**
 * J_v(x), the Bessel function of the first kind, for an integer order v (in double precision): the power
 * series where it does not cancel (|x| < 12 or v > |x|), else Bessel's integral (1/π)∫₀^π cos(vτ − x sin τ) dτ
 * by the trapezoidal rule, which converges exponentially for this periodic integrand. NaN for another order.
 */
function besselJ(v: number, x: number): number {
  if (Number.isNaN(v) || Number.isNaN(x) || !Number.isInteger(v)) return NaN;
  if (!Number.isFinite(x)) return 0;
  const n = Math.abs(v);
  const sign = v < 0 && n % 2 === 1 ? -1 : 1;
  if (Math.abs(x) < 12 || n > Math.abs(x)) {
    const h = x / 2;
    let term = 1;
    for (let k = 1; k <= n; k++) term *= h / k;
    let sum = term;
    for (let k = 1; k < 500; k++) {
      term *= (-h * h) / (k * (k + n));
      sum += term;
      if (Math.abs(term) <= 1e-17 * Math.abs(sum)) break;
    }
    return sign * sum;
  }
  const m = Math.ceil(Math.abs(x) + n) + 64;
  let s = 0;
  for (let i = 0; i <= m; i++) {
    const t = (Math.PI * i) / m;
    s += (i === 0 || i === m ? 0.5 : 1) * Math.cos(n * t - x * Math.sin(t));
  }
  return (sign * s) / m;
}

/** The host functions of scipy.special on one float (NumPy-style: float64, float32 kept). */
const SPECIAL_UNARY: Record<string, (x: number) => number> = {
  expit: (x) => 1 / (1 + Math.exp(-x)),
  logit: (p) => Math.log(p / (1 - p)),
  log_expit: (x) => (x < 0 ? x - Math.log1p(Math.exp(x)) : -Math.log1p(Math.exp(-x))),
  erf: erfOf,
  erfc,
  ndtr,
  log_ndtr: (x) => Math.log(ndtr(x)),
  gammaln,
  gamma: (x) => (x <= 0 && Number.isInteger(x) ? NaN : Math.sign(x > 0 || Math.floor(-x) % 2 === 1 ? 1 : -1) * Math.exp(gammaln(x))),
};

/**
 * SciPy on the host (`import scipy`): scipy.special's elementwise functions
 * and scipy.stats.norm on NumPy values known at compile time, in float64 as
 * SciPy computes (float32 kept, as its ufuncs do); on a JAX array (a value
 * read back, a callback's operand) the jax.scipy function of the same name.
 */
export function hostScipyModules(ip: Interp, jaxScipy: PyModule): Map<string, PyModule> {
  const jaxFn = (mod: PyModule, name: string): PyBuiltin | undefined => {
    const f = mod.attrs.get(name);
    return f instanceof PyBuiltin ? f : undefined;
  };
  const anyJax = (c: CallArgs): boolean => [...c.args, ...c.kwargs.values()].some((a) => isArray(a));
  const jaxSpecial = jaxScipy.attrs.get('special') as PyModule;
  const special: Record<string, (c: CallArgs) => PyValue> = {};
  for (const [name, f] of Object.entries(SPECIAL_UNARY)) {
    special[name] = (c) => {
      const j = jaxFn(jaxSpecial, name);
      if (anyJax(c) && j) return j.fn(c);
      return ndUnaryFloat(f, arg(c, 0, 'x'), c.span);
    };
  }
  special['jv'] = (c) => {
    if (anyJax(c)) return tracedJv(ip, c);
    const v = ndFrom(arg(c, 0, 'v'), c.span);
    const z = ndFrom(arg(c, 1, 'z'), c.span);
    // scipy.special.jv's loops are ff->f and dd->d: float32 only when both operands are float32
    const shape = ndBinary('+', v, z, c.span).shape;
    const vb = ndBroadcast(v, shape);
    const zb = ndBroadcast(z, shape);
    const dtype = v.dtype === 'float32' && z.dtype === 'float32' ? 'float32' : 'float64';
    const data = vb.data.map((o, i) => (dtype === 'float32' ? Math.fround(besselJ(o, zb.data[i]!)) : besselJ(o, zb.data[i]!)));
    return shape.length ? new NdArray(shape, dtype, data) : new NpScalar(dtype, data[0]!);
  };
  special['xlogy'] = (c) => {
    const j = jaxFn(jaxSpecial, 'xlogy');
    if (anyJax(c) && j) return j.fn(c);
    const x = ndFrom(arg(c, 0, 'x'), c.span, 'float64');
    const y = ndFrom(arg(c, 1, 'y'), c.span, 'float64');
    const logy = ndUnaryFloat(Math.log, y, c.span);
    const prod = ndBinary('*', x, logy, c.span);
    const zero = ndBroadcast(x, prod.shape);
    const data = prod.data.map((v, i) => (zero.data[i] === 0 && !Number.isNaN(ndBroadcast(y, prod.shape).data[i]!) ? 0 : v));
    return prod.shape.length ? new NdArray(prod.shape, 'float64', data) : new NpScalar('float64', data[0]!);
  };
  const jaxNorm = (jaxScipy.attrs.get('stats') as PyModule).attrs.get('norm') as PyModule;
  /** norm.NAME(x, loc=0, scale=1) = g((x - loc) / scale) (/ scale for a density). */
  const normFn = (name: string, g: (z: number) => number, density: 'pdf' | 'logpdf' | null) => (c: CallArgs): PyValue => {
    const j = jaxFn(jaxNorm, name);
    if (anyJax(c) && j) return j.fn(c);
    const loc = arg(c, 1, 'loc', 0);
    const scale = arg(c, 2, 'scale', 1);
    const z = ndBinary('/', ndBinary('-', ndFrom(arg(c, 0, 'x'), c.span, 'float64'), loc, c.span), scale, c.span);
    const v = ndUnaryFloat(g, z, c.span);
    const out = density === 'pdf' ? ndBinary('/', v, scale, c.span) : density === 'logpdf' ? ndBinary('-', v, ndUnaryFloat(Math.log, ndFrom(scale, c.span, 'float64'), c.span), c.span) : v;
    return out instanceof NdArray && !out.shape.length ? new NpScalar(out.dtype, out.data[0]!) : out;
  };
  const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
  const norm = builtinModule('scipy.stats.norm', {
    pdf: normFn('pdf', (z) => Math.exp(-0.5 * z * z - LOG_SQRT_2PI), 'pdf'),
    logpdf: normFn('logpdf', (z) => -0.5 * z * z - LOG_SQRT_2PI, 'logpdf'),
    cdf: normFn('cdf', ndtr, null),
    logcdf: normFn('logcdf', (z) => Math.log(ndtr(z)), null),
    sf: normFn('sf', (z) => ndtr(-z), null),
  });
  const specialMod = builtinModule('scipy.special', special);
  const stats = builtinModule('scipy.stats', { norm });
  return new Map([
    ['scipy', builtinModule('scipy', { special: specialMod, stats })],
    ['scipy.special', specialMod],
    ['scipy.stats', stats],
  ]);
}
