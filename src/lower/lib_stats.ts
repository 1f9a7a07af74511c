// jax.scipy.special (beyond logsumexp/erf/erfinv, which lib_scipy.ts keeps)
// and jax.scipy.stats: each function the elementwise formula JAX writes
// (jax/_src/scipy/special.py, jax/_src/scipy/stats/*.py), over jaxts's
// primitives. lgamma, digamma and erfc are not primitives here: they are
// XLA's own expansions (xla/hlo/builder/lib/math.cc: Lanczos for lgamma and
// digamma, Cephes' erfcf for erfc), so values round as JAX's do on CPU.
import { CompileError } from '../common/diagnostics.js';
import type { Interp } from './interp.js';
import { choleskyLower, Mat, trsm } from './lib_linalg.js';
import { arg, builtinModule } from './modules.js';
import { statsPreludeFunctions } from './scipy_prelude.js';
import { isArray, PyBuiltin, type CallArgs, type PyModule, type PyValue, type Tracer } from './values.js';

type Fn = (c: CallArgs) => PyValue;

const LANCZOS_G = 7;
const LANCZOS_BASE = 0.99999999999980993227684700473478;
const LANCZOS = [
  676.520368121885098567009190444019, -1259.13921672240287047156078755283, 771.3234287776530788486528258894, -176.61502916214059906584551354,
  12.507343278686904814458936853, -0.13857109526572011689554707, 9.984369578019570859563e-6, 1.50563273514931155834e-7,
];
const ERFC_P = [2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1, 3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1];
const ERFC_R = [-1.047766399936249e1, 1.297719955372516e1, -7.495518717768503, 2.921019019210786, -1.0152652792027, 4.218463358204948e-1, -2.820767439740514e-1, 5.641895067754075e-1];
const NDTRI = {
  p0: [-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1, 1.39312609387279679503e1, -1.23916583867381258016],
  q0: [1.0, 1.95448858338141759834, 4.67627912898881538453, 8.63602421390890590575e1, -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1, 1.59056225126211695515e1, -1.18331621121330003142],
  p1: [4.05544892305962419923, 3.15251094599893866154e1, 5.71628192246421288162e1, 4.408050738932008347e1, 1.46849561928858024014e1, 2.18663306850790267539, -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4],
  q1: [1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.1317203825467203044e1, 1.50425385692907503408e1, 2.50464946208309415979, -1.42182922854787788574e-1, -3.80806407691578277194e-2, -9.33259480895457427372e-4],
  p2: [3.2377489177694603597, 6.91522889068984211695, 3.93881025292474443415, 1.33303460815807542389, 2.01485389549179081538e-1, 1.23716634817820021358e-2, 3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.2397453918498329373e-9],
  q2: [1.0, 6.02427039364742014255, 3.67983563856160859403, 1.37702099489081330271, 2.1623699359449663589e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4, 2.89247864745380683936e-6, 6.79019408009981274425e-9],
};

/** The special functions over one call's Mat (elementwise, float32, NumPy broadcasting). */
export class Special {
  constructor(private readonly m: Mat) {}
  private get o() {
    return this.m.ip.ops;
  }
  private k = (v: number): Tracer => this.m.c(v);
  private where = (p: Tracer, t: Tracer, f: Tracer): Tracer => this.m.sel(p, t, f);
  /** Horner from the highest coefficient (XLA's EvaluatePolynomial, jnp.polyval). */
  polyval(coeffs: number[], x: Tracer): Tracer {
    let r = this.k(0);
    for (const c of coeffs) r = this.m.add(this.m.mul(r, x), this.k(c));
    return r;
  }
  log1p = (x: Tracer): Tracer => this.o.unary('log1p', x, this.m.span);
  isinf = (x: Tracer): Tracer => this.m.cmp('eq', this.m.un('abs', x), this.k(Infinity));
  isnan = (x: Tracer): Tracer => this.m.cmp('ne', x, x);

  lgamma(input: Tracer): Tracer {
    const { m, k } = this;
    const needReflect = m.cmp('lt', input, k(0.5));
    const z = this.where(needReflect, m.un('neg', input), m.sub(input, k(1)));
    let x = k(LANCZOS_BASE);
    LANCZOS.forEach((c, i) => {
      x = m.add(x, m.div(k(c), m.add(m.add(z, k(i)), k(1))));
    });
    const t = m.add(k(LANCZOS_G + 0.5), z);
    const logT = m.add(k(Math.log(LANCZOS_G + 0.5)), this.log1p(m.div(z, k(LANCZOS_G + 0.5))));
    // XLA compiles lgamma's expansion as one loop, where LLVM contracts `log_sqrt_two_pi + (…) * log_t` into a
    // fused multiply-add (measured: lgamma(2) is 0, not 4.8e-7): the add carries fma_contraction.ts's mark
    const prod = m.mul(m.sub(m.add(z, k(0.5)), m.div(t, logT)), logT);
    const base = m.bcast(k((Math.log(2) + Math.log(Math.PI)) / 2), prod.aval.shape);
    const fused = this.o.tracer(this.o.bind('add', [base.atom, prod.atom], { fma: 'b' }, m.span));
    const logY = m.add(fused, m.un('log', x));
    const absIn = m.un('abs', input);
    const frac = m.sub(absIn, this.o.unary('floor', absIn, m.span));
    // where no reflection is needed, a harmless 0.5 (JAX's value is the same; its gradient is not NaN)
    const reduced = this.where(needReflect, this.where(m.cmp('gt', frac, k(0.5)), m.sub(k(1), frac), frac), k(0.5));
    const denom = m.un('log', this.o.unary('sin', m.mul(k(Math.PI), reduced), m.span));
    const finite = this.o.tracer(this.o.bind('is_finite', [denom.atom], {}, m.span));
    const reflection = this.where(finite, m.sub(m.sub(k(Math.log(Math.PI)), denom), logY), m.un('neg', denom));
    const result = this.where(needReflect, reflection, logY);
    return this.where(this.isinf(input), m.bcast(k(Infinity), result.aval.shape), result);
  }

  digamma(input: Tracer): Tracer {
    const { m, k } = this;
    const needReflect = m.cmp('lt', input, k(0.5));
    const z = this.where(needReflect, m.un('neg', input), m.sub(input, k(1)));
    let num = k(0);
    let denom = k(LANCZOS_BASE);
    LANCZOS.forEach((c, i) => {
      const zi = m.add(m.add(z, k(i)), k(1));
      num = m.sub(num, m.div(k(c), m.mul(zi, zi)));
      denom = m.add(denom, m.div(k(c), zi));
    });
    const t = m.add(k(LANCZOS_G + 0.5), z);
    const logT = m.add(k(Math.log(LANCZOS_G + 0.5)), this.log1p(m.div(z, k(LANCZOS_G + 0.5))));
    const y = m.sub(m.add(logT, m.div(num, denom)), m.div(k(LANCZOS_G), t));
    const reduced = this.where(needReflect, m.add(input, m.un('abs', this.o.unary('floor', m.add(input, k(0.5)), m.span))), k(0.5));
    const pix = m.mul(k(Math.PI), reduced);
    const reflection = m.sub(y, m.div(m.mul(k(Math.PI), this.o.unary('cos', pix, m.span)), this.o.unary('sin', pix, m.span)));
    const real = this.where(needReflect, reflection, y);
    const pole = m.and(m.cmp('le', input, k(0)), m.cmp('eq', input, this.o.unary('floor', input, m.span)));
    return this.where(pole, m.bcast(k(NaN), real.aval.shape), real);
  }

  erf = (x: Tracer): Tracer => this.o.unary('erf', x, this.m.span);
  erfc(x: Tracer): Tracer {
    const { m, k } = this;
    const absX = m.un('abs', x);
    const z = m.un('exp', m.mul(m.un('neg', x), x));
    const q = m.div(k(1), absX);
    const y = m.mul(q, q);
    const p = this.where(m.cmp('lt', absX, k(2)), this.polyval(ERFC_P, y), this.polyval(ERFC_R, y));
    const tail = m.mul(m.mul(z, q), p);
    const big = this.where(m.cmp('lt', x, k(0)), m.sub(k(2), tail), tail);
    return this.where(m.cmp('lt', absX, k(1)), m.sub(k(1), this.erf(x)), big);
  }

  ndtr(x: Tracer): Tracer {
    const { m, k } = this;
    const h = Math.sqrt(2) * 0.5;
    const w = m.mul(x, k(h));
    const z = m.un('abs', w);
    const y = this.where(m.cmp('lt', z, k(h)), m.add(k(1), this.erf(w)), this.where(m.cmp('gt', w, k(0)), m.sub(k(2), this.erfc(z)), this.erfc(z)));
    return m.mul(k(0.5), y);
  }

  ndtri(p: Tracer): Tracer {
    const { m, k } = this;
    const mcp = this.where(m.cmp('gt', p, k(-Math.expm1(-2))), m.sub(k(1), p), p);
    const smcp = this.where(m.cmp('eq', mcp, k(0)), m.bcast(k(0.5), mcp.aval.shape), mcp);
    const w = m.sub(smcp, k(0.5));
    const ww = m.mul(w, w);
    const big = m.mul(m.add(w, m.mul(m.mul(w, ww), m.div(this.polyval(NDTRI.p0, ww), this.polyval(NDTRI.q0, ww)))), k(-Math.sqrt(2 * Math.PI)));
    const zz = m.un('sqrt', m.mul(k(-2), m.un('log', smcp)));
    const first = m.sub(zz, m.div(m.un('log', zz), zz));
    const inv = m.div(k(1), zz);
    const small = m.sub(first, m.div(m.div(this.polyval(NDTRI.p2, inv), this.polyval(NDTRI.q2, inv)), zz));
    const other = m.sub(first, m.div(m.div(this.polyval(NDTRI.p1, inv), this.polyval(NDTRI.q1, inv)), zz));
    let x = this.where(m.cmp('gt', smcp, k(Math.exp(-2))), big, this.where(m.cmp('ge', zz, k(8)), small, other));
    x = this.where(m.cmp('gt', p, k(1 - Math.exp(-2))), x, m.un('neg', x));
    const inf = m.bcast(k(Infinity), x.aval.shape);
    return this.where(m.cmp('eq', p, k(0)), m.un('neg', inf), this.where(m.cmp('eq', p, k(1)), inf, x));
  }

  logNdtr(x: Tracer, order: number): Tracer {
    const { m, k } = this;
    const lower = -10;
    const upper = 5;
    const gtUpper = m.cmp('gt', x, k(upper));
    const arg = this.where(gtUpper, m.un('neg', x), m.max(x, k(lower)));
    const res = this.ndtr(arg);
    // the asymptotic series below the lower segment
    const xl = this.o.binary('min', x, k(lower), m.span);
    const x2 = m.mul(xl, xl);
    const logScale = m.sub(m.sub(m.mul(k(-0.5), x2), m.un('log', m.un('neg', xl))), k(0.5 * Math.log(2 * Math.PI)));
    // zeros_like(x) (x * 0 would be NaN at -inf)
    let even = m.zeros(xl.aval.shape);
    let odd = m.zeros(xl.aval.shape);
    let x2n = x2;
    let df = 1;
    for (let n = 1; n <= order; n++) {
      df = n === 1 ? 1 : df * (2 * n - 1);
      const y = m.div(k(df), x2n);
      if (n % 2) odd = m.add(odd, y);
      else even = m.add(even, y);
      x2n = m.mul(x2n, x2);
    }
    const series = order <= 0 ? k(1) : m.sub(m.add(k(1), even), odd);
    const lowerVal = m.add(logScale, m.un('log', series));
    const out = this.where(gtUpper, m.un('neg', res), this.where(m.cmp('gt', x, k(lower)), m.un('log', res), lowerVal));
    // NaN in, NaN out (XLA's max and min propagate it; WGSL's need not)
    return this.where(this.isnan(x), x, out);
  }

  xlogy(x: Tracer, y: Tracer, log1p = false): Tracer {
    const { m } = this;
    const ok = this.o.binary('or', m.cmp('ne', x, this.k(0)), this.isnan(y), m.span);
    const v = m.mul(x, log1p ? this.log1p(y) : m.un('log', y));
    return this.where(ok, v, m.mul(x, this.k(0)));
  }
}

/** jax.scipy.special's functions beyond logsumexp, erf, erfinv. */
export function specialFunctions(ip: Interp): Record<string, Fn> {
  const S = (c: CallArgs): { m: Mat; s: Special } => {
    const m = new Mat(ip, c.span);
    return { m, s: new Special(m) };
  };
  /** ndtr, ndtri and log_ndtr take float32 (or float64) arrays only: jnp.asarray(x).dtype else TypeError. */
  const floatArg = (c: CallArgs, name: string, tail: string): PyValue => {
    const x = arg(c, 0, name);
    const dtype = isArray(x) ? x.aval.dtype : typeof x === 'bigint' ? 'int32' : typeof x === 'boolean' ? 'bool' : 'float32';
    if (dtype !== 'float32') throw new CompileError(`TypeError: x.dtype=${dtype} is not supported${tail}.`, c.span);
    return x;
  };
  const un = (name: string, f: (s: Special, m: Mat, x: Tracer) => Tracer): Fn => (c) => {
    const { m, s } = S(c);
    return f(s, m, m.f32(arg(c, 0, name)));
  };
  return {
    gammaln: un('x', (s, _m, x) => s.lgamma(x)),
    // the principal branch: NaN where x <= 0
    loggamma: un('x', (s, m, x) => m.sel(m.cmp('gt', x, m.c(0)), s.lgamma(x), m.c(NaN))),
    digamma: un('x', (s, _m, x) => s.digamma(x)),
    // gammasgn(x) * exp(lgamma(x)), gammasgn as JAX's select: NaN at poles (negative integers, -inf) and NaN,
    // -1 on (-1, 0), (-3, -2), … and at -0.0, else 1
    gamma: un('x', (s, m, x) => {
      const o = ip.ops;
      const fl = o.unary('floor', x, m.span);
      const neg = m.cmp('lt', x, m.c(0));
      const nanCase = o.binary('or', m.and(neg, m.cmp('eq', x, fl)), s.isnan(x), m.span);
      const oddFloor = m.cmp('ne', o.binary('rem', fl, m.c(2), m.span), m.c(0));
      const negZero = m.and(m.cmp('eq', x, m.c(0)), m.cmp('lt', m.div(m.c(1), x), m.c(0)));
      const minus = o.binary('or', m.and(neg, oddFloor), negZero, m.span);
      const sign = m.sel(nanCase, m.c(NaN), m.sel(minus, m.c(-1), m.c(1)));
      return m.mul(sign, m.un('exp', s.lgamma(x)));
    }),
    betaln: (c) => {
      const { m, s } = S(c);
      const a = m.f32(arg(c, 0, 'a'));
      const b = m.f32(arg(c, 1, 'b'));
      return m.sub(m.add(s.lgamma(a), s.lgamma(b)), s.lgamma(m.add(a, b)));
    },
    erfc: un('x', (s, _m, x) => s.erfc(x)),
    ndtr: (c) => {
      const { m, s } = S(c);
      return s.ndtr(m.f32(floatArg(c, 'x', ', see docstring for supported types')));
    },
    ndtri: (c) => {
      const { m, s } = S(c);
      return s.ndtri(m.f32(floatArg(c, 'p', ', see docstring for supported types')));
    },
    log_ndtr: (c) => {
      const { m, s } = S(c);
      const order = arg(c, 1, 'series_order', 3n);
      if (typeof order !== 'bigint') throw new CompileError('TypeError: series_order must be a Python integer.', c.span);
      if (order < 0n) throw new CompileError('ValueError: series_order must be non-negative.', c.span);
      if (order > 30n) throw new CompileError('ValueError: series_order must be <= 30.', c.span);
      return s.logNdtr(m.f32(floatArg(c, 'x', '')), Number(order));
    },
    xlogy: (c) => {
      const { m, s } = S(c);
      return s.xlogy(m.f32(arg(c, 0, 'x')), m.f32(arg(c, 1, 'y')));
    },
    xlog1py: (c) => {
      const { m, s } = S(c);
      return s.xlogy(m.f32(arg(c, 0, 'x')), m.f32(arg(c, 1, 'y')), true);
    },
    entr: un('x', (s, m, x) => {
      // -x log x for x > 0, 0 at 0, -inf below
      const xlogx = s.xlogy(x, x);
      return m.sel(m.cmp('lt', x, m.c(0)), m.c(-Infinity), m.un('neg', xlogx));
    }),
    logit: un('x', (_s, m, x) => m.un('log', m.div(x, m.sub(m.c(1), x)))),
    expit: un('x', (_s, m, x) => ip.ops.unary('logistic', x, m.span)),
  };
}

/** jax.scipy.stats: a module per distribution. */
export function statsModule(ip: Interp): PyModule {
  type Args = (c: CallArgs, names: [string, PyValue | undefined][]) => { m: Mat; s: Special; v: Tracer[] };
  const args: Args = (c, names) => {
    const m = new Mat(ip, c.span);
    return { m, s: new Special(m), v: names.map(([n, d], i) => m.f32(arg(c, i, n, d))) };
  };
  const L: [string, PyValue][] = [['loc', 0n], ['scale', 1n]];
  const X = (name = 'x'): [string, undefined] => [name, undefined];
  const dist = (name: string, fns: Record<string, Fn>): PyModule => builtinModule(`jax.scipy.stats.${name}`, fns);
  const expOf = (f: Fn): Fn => (c) => new Mat(ip, c.span).un('exp', f(c) as Tracer);
  const std = (m: Mat, x: Tracer, loc: Tracer, scale: Tracer): Tracer => m.div(m.sub(x, loc), scale);

  // norm
  const normLogpdf: Fn = (c) => {
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    const s2 = m.mul(scale!, scale!);
    const logNormalizer = m.un('log', m.mul(m.c(2 * Math.PI), s2));
    const quadratic = m.div(m.mul(m.sub(x!, loc!), m.sub(x!, loc!)), s2);
    return m.div(m.add(logNormalizer, quadratic), m.c(-2));
  };
  const normCdf: Fn = (c) => {
    const { m, s, v: [x, loc, scale] } = args(c, [X(), ...L]);
    return s.ndtr(std(m, x!, loc!, scale!));
  };
  const normLogcdf: Fn = (c) => {
    const { m, s, v: [x, loc, scale] } = args(c, [X(), ...L]);
    return s.logNdtr(std(m, x!, loc!, scale!), 3);
  };
  const normPpf: Fn = (c) => {
    const { m, s, v: [q, loc, scale] } = args(c, [X('q'), ...L]);
    return m.add(m.mul(s.ndtri(q!), scale!), loc!);
  };
  const negated = (f: Fn): Fn => (c) => {
    // f(-x, -loc, scale)
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    return f({ args: [m.un('neg', x!), m.un('neg', loc!), scale!], kwargs: new Map(), span: c.span });
  };
  const norm = dist('norm', {
    logpdf: normLogpdf,
    pdf: expOf(normLogpdf),
    cdf: normCdf,
    logcdf: normLogcdf,
    sf: negated(normCdf),
    logsf: negated(normLogcdf),
    ppf: normPpf,
    isf: (c) => {
      const { m, v: [q, loc, scale] } = args(c, [X('q'), ...L]);
      return normPpf({ args: [m.sub(m.c(1), q!), loc!, scale!], kwargs: new Map(), span: c.span });
    },
  });

  // uniform
  const uniformLogpdf: Fn = (c) => {
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    const logProbs = m.un('neg', m.un('log', scale!));
    const out = ip.ops.binary('or', m.cmp('lt', x!, loc!), m.cmp('gt', x!, m.add(loc!, scale!)), m.span);
    return m.sel(out, m.c(-Infinity), logProbs);
  };
  const uniform = dist('uniform', {
    logpdf: uniformLogpdf,
    pdf: expOf(uniformLogpdf),
    cdf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      const zero = m.c(0);
      const one = m.c(1);
      return m.sel(m.cmp('lt', x!, loc!), zero, m.sel(m.cmp('ge', x!, m.add(loc!, scale!)), one, m.div(m.sub(x!, loc!), scale!)));
    },
    ppf: (c) => {
      const { m, v: [q, loc, scale] } = args(c, [X('q'), ...L]);
      const bad = ip.ops.binary('or', m.cmp('lt', q!, m.c(0)), m.cmp('gt', q!, m.c(1)), m.span);
      return m.sel(bad, m.c(NaN), m.add(loc!, m.mul(scale!, q!)));
    },
  });

  // expon
  const exponLogpdf: Fn = (c) => {
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    const logScale = m.un('log', scale!);
    const linear = m.div(m.sub(x!, loc!), scale!);
    return m.sel(m.cmp('lt', x!, loc!), m.c(-Infinity), m.un('neg', m.add(linear, logScale)));
  };
  const expon = dist('expon', {
    logpdf: exponLogpdf,
    pdf: expOf(exponLogpdf),
    cdf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      const y = std(m, x!, loc!, scale!);
      return m.sel(m.cmp('lt', y, m.c(0)), m.c(0), m.un('neg', ip.ops.unary('expm1', m.un('neg', y), m.span)));
    },
    sf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      const y = std(m, x!, loc!, scale!);
      return m.sel(m.cmp('lt', y, m.c(0)), m.c(1), m.un('exp', m.un('neg', y)));
    },
    ppf: (c) => {
      const { m, v: [q, loc, scale] } = args(c, [X('q'), ...L]);
      const bad = ip.ops.binary('or', m.cmp('lt', q!, m.c(0)), m.cmp('gt', q!, m.c(1)), m.span);
      return m.sel(bad, m.c(NaN), m.add(m.mul(m.un('neg', ip.ops.unary('log1p', m.un('neg', q!), m.span)), scale!), loc!));
    },
  });

  // laplace
  const laplaceLogpdf: Fn = (c) => {
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    const linear = m.div(m.un('abs', m.sub(x!, loc!)), scale!);
    return m.un('neg', m.add(linear, m.un('log', m.mul(m.c(2), scale!))));
  };
  const laplace = dist('laplace', {
    logpdf: laplaceLogpdf,
    pdf: expOf(laplaceLogpdf),
    cdf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      const d = std(m, x!, loc!, scale!);
      return m.sel(m.cmp('le', d, m.c(0)), m.mul(m.c(0.5), m.un('exp', d)), m.sub(m.c(1), m.mul(m.c(0.5), m.un('exp', m.un('neg', d)))));
    },
  });

  // logistic
  const logaddexp = (m: Mat, a: Tracer, b: Tracer): Tracer => {
    // jnp.logaddexp: amax + log1p(exp(-|delta|)), NaN-propagating
    const amax = m.max(a, b);
    const delta = m.sub(a, b);
    const nanD = m.cmp('ne', delta, delta);
    return m.sel(nanD, m.add(a, b), m.add(amax, ip.ops.unary('log1p', m.un('exp', m.un('neg', m.un('abs', delta))), m.span)));
  };
  const logisticLogpdf: Fn = (c) => {
    const { m, v: [x0, loc, scale] } = args(c, [X(), ...L]);
    const x = std(m, x0!, loc!, scale!);
    const half = m.div(x, m.c(2));
    return m.sub(m.mul(m.c(-2), logaddexp(m, half, m.un('neg', half))), m.un('log', scale!));
  };
  const logit = (m: Mat, x: Tracer): Tracer => m.un('log', m.div(x, m.sub(m.c(1), x)));
  const expit = (m: Mat, x: Tracer): Tracer => ip.ops.unary('logistic', x, m.span);
  const logistic = dist('logistic', {
    logpdf: logisticLogpdf,
    pdf: expOf(logisticLogpdf),
    cdf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      return expit(m, std(m, x!, loc!, scale!));
    },
    sf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      return expit(m, m.un('neg', std(m, x!, loc!, scale!)));
    },
    ppf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      return m.add(m.mul(logit(m, x!), scale!), loc!);
    },
    isf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      return m.add(m.mul(m.un('neg', logit(m, x!)), scale!), loc!);
    },
  });

  // cauchy
  const cauchyLogpdf: Fn = (c) => {
    const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
    const sx = std(m, x!, loc!, scale!);
    return m.un('neg', m.add(m.un('log', m.mul(m.c(Math.PI), scale!)), ip.ops.unary('log1p', m.mul(sx, sx), m.span)));
  };
  const atan = (m: Mat, x: Tracer): Tracer => ip.ops.binary('atan2', x, m.bcast(m.c(1), x.aval.shape), m.span);
  const cauchy = dist('cauchy', {
    logpdf: cauchyLogpdf,
    pdf: expOf(cauchyLogpdf),
    cdf: (c) => {
      const { m, v: [x, loc, scale] } = args(c, [X(), ...L]);
      return m.add(m.c(0.5), m.div(atan(m, std(m, x!, loc!, scale!)), m.c(Math.PI)));
    },
    ppf: (c) => {
      const { m, v: [q, loc, scale] } = args(c, [X('q'), ...L]);
      const t = ip.ops.unary('tan', m.mul(m.c(Math.PI), m.sub(q!, m.c(0.5))), m.span);
      return m.add(loc!, m.mul(scale!, t));
    },
  });

  // bernoulli, poisson
  const bernLogpmf: Fn = (c) => {
    const { m, s, v: [k, p, loc] } = args(c, [X('k'), X('p'), ['loc', 0n]]);
    const x = m.sub(k!, loc!);
    const lp = m.add(s.xlogy(x, p!), s.xlogy(m.sub(m.c(1), x), m.un('neg', p!), true));
    return m.sel(ip.ops.binary('or', m.cmp('lt', x, m.c(0)), m.cmp('gt', x, m.c(1)), m.span), m.c(-Infinity), lp);
  };
  const bernoulli = dist('bernoulli', {
    logpmf: bernLogpmf,
    pmf: expOf(bernLogpmf),
    cdf: (c) => {
      const { m, s, v: [k, p] } = args(c, [X('k'), X('p')]);
      const zero = m.c(0);
      const one = m.c(1);
      const or = (a: Tracer, b: Tracer): Tracer => ip.ops.binary('or', a, b, m.span);
      const bad = or(or(s.isnan(k!), s.isnan(p!)), or(m.cmp('lt', p!, zero), m.cmp('gt', p!, one)));
      return m.sel(bad, m.c(NaN), m.sel(m.cmp('lt', k!, zero), zero, m.sel(m.cmp('lt', k!, one), m.sub(one, p!), one)));
    },
  });
  const poisLogpmf: Fn = (c) => {
    const { m, s, v: [k, mu, loc] } = args(c, [X('k'), X('mu'), ['loc', 0n]]);
    const x = m.sub(k!, loc!);
    const lp = m.sub(m.sub(s.xlogy(x, mu!), s.lgamma(m.add(x, m.c(1)))), mu!);
    const bad = ip.ops.binary('or', m.cmp('lt', x, m.c(0)), m.cmp('ne', ip.ops.unary('round', k!, m.span), k!), m.span);
    return m.sel(bad, m.c(-Infinity), lp);
  };
  const poisson = dist('poisson', { logpmf: poisLogpmf, pmf: expOf(poisLogpmf) });

  // gamma, beta, t
  const gammaLogpdf: Fn = (c) => {
    const { m, s, v: [x, a, loc, scale] } = args(c, [X(), X('a'), ...L]);
    const ok = m.cmp('ge', x!, loc!);
    const y = m.sel(ok, std(m, x!, loc!, scale!), m.c(1));
    const linear = m.sub(s.xlogy(m.sub(a!, m.c(1)), y), y);
    const shape = m.add(s.lgamma(a!), m.un('log', scale!));
    return m.sel(ok, m.sub(linear, shape), m.c(-Infinity));
  };
  const gamma = dist('gamma', { logpdf: gammaLogpdf, pdf: expOf(gammaLogpdf) });
  const betaLogpdf: Fn = (c) => {
    const { m, s, v: [x, a, b, loc, scale] } = args(c, [X(), X('a'), X('b'), ...L]);
    const one = m.c(1);
    const zero = m.c(0);
    const betaln = m.sub(m.add(s.lgamma(a!), s.lgamma(b!)), s.lgamma(m.add(a!, b!)));
    const y = std(m, x!, loc!, scale!);
    const linear = m.add(s.xlogy(m.sub(a!, one), y), s.xlogy(m.sub(b!, one), m.un('neg', y), true));
    const lp = m.sub(m.add(m.un('neg', betaln), linear), m.un('log', scale!));
    const or = (p: Tracer, q: Tracer): Tracer => ip.ops.binary('or', p, q, m.span);
    const r = m.sel(or(m.cmp('gt', x!, m.add(loc!, scale!)), m.cmp('lt', x!, loc!)), m.c(-Infinity), lp);
    return m.sel(or(or(m.cmp('le', a!, zero), m.cmp('le', b!, zero)), m.cmp('le', scale!, zero)), m.c(NaN), r);
  };
  const beta = dist('beta', { logpdf: betaLogpdf, pdf: expOf(betaLogpdf) });
  const tLogpdf: Fn = (c) => {
    const { m, s, v: [x, df, loc, scale] } = args(c, [X(), X('df'), ...L]);
    const two = m.c(2);
    const sx = std(m, x!, loc!, scale!);
    const dh = m.div(df!, two);
    const dp = m.add(dh, m.c(0.5));
    const nc = m.mul(m.mul(scale!, scale!), m.c(Math.PI));
    const ntmp = m.div(m.un('log', m.mul(nc, df!)), two);
    const nterm = m.sub(m.add(s.lgamma(dh), ntmp), s.lgamma(dp));
    const quad = m.div(m.mul(sx, sx), df!);
    return m.un('neg', m.add(nterm, m.mul(dp, ip.ops.unary('log1p', quad, m.span))));
  };
  const t = dist('t', { logpdf: tLogpdf, pdf: expOf(tLogpdf) });

  // multivariate_normal: JAX's Cholesky route
  const mvnLogpdf: Fn = (c) => {
    const m = new Mat(ip, c.span);
    const x = m.f32(arg(c, 0, 'x'));
    const mean = m.f32(arg(c, 1, 'mean'));
    const cov = m.f32(arg(c, 2, 'cov'));
    const log2pi = Math.log(2 * Math.PI);
    if (mean.aval.shape.length === 0) {
      const y = m.sub(x, mean);
      return m.sub(m.div(m.mul(m.c(-0.5), m.mul(y, y)), cov), m.mul(m.c(0.5), m.add(m.c(log2pi), m.un('log', cov))));
    }
    const nn = mean.aval.shape[mean.aval.shape.length - 1]!;
    if (cov.aval.shape.length === 0) {
      const y = m.sub(x, mean);
      const yy = m.sum(m.mul(y, y), y.aval.shape.length - 1, false);
      return m.sub(m.div(m.mul(m.c(-0.5), yy), cov), m.mul(m.c(nn / 2), m.add(m.c(log2pi), m.un('log', cov))));
    }
    const cs = cov.aval.shape;
    if (cs.length < 2 || cs[cs.length - 1] !== nn || cs[cs.length - 2] !== nn) throw new CompileError('ValueError: multivariate_normal.logpdf got incompatible shapes', c.span);
    const n = mean.aval.shape[mean.aval.shape.length - 1]!;
    const L = choleskyLower(m, m.div(m.add(cov, m.mT(cov)), m.c(2)));
    const y = m.sub(x, mean); // [..., n]
    const yb = y.aval.shape.length === 1 ? ip.ops.expandDims(y, 1, c.span) : m.mT(y);
    const z = trsm(m, L, yb, true, false); // L z = yᵀ
    const quad = m.sum(m.mul(z, z), z.aval.shape.length - 2, false);
    const quadV = y.aval.shape.length === 1 ? ip.ops.reshape(quad, [], c.span) : quad;
    const logdet = m.sum(m.un('log', m.un('abs', m.diag(L))), L.aval.shape.length - 2, false);
    return m.sub(m.sub(m.mul(m.c(-0.5), quadV), m.c((n / 2) * log2pi)), logdet);
  };
  const multivariate_normal = dist('multivariate_normal', { logpdf: mvnLogpdf, pdf: expOf(mvnLogpdf) });
  const mods: Record<string, PyModule> = { norm, uniform, expon, laplace, logistic, cauchy, bernoulli, poisson, gamma, beta, t, multivariate_normal };
  // the distributions and functions JAX writes in Python (scipy_prelude.ts) fill in the rest
  const prelude = statsPreludeFunctions(ip);
  for (const [name, fns] of prelude) {
    if (!name) continue;
    const mod = mods[name];
    if (!mod) {
      mods[name] = dist(name, fns);
      continue;
    }
    for (const [k, f] of Object.entries(fns)) if (!mod.attrs.has(k)) mod.attrs.set(k, new PyBuiltin(k, f));
  }
  return builtinModule('jax.scipy.stats', { ...mods, ...prelude.get('') });
}
