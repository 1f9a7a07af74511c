// Python's math module on floats, as CPython computes them with glibc: JS's Math.exp, Math.sin … (V8's
// fdlibm ports) are 1 ulp off glibc on some inputs (math.exp(1.7)). exp, sin, cos, tan and erf compute in
// double-double arithmetic (about 106 bits) from their series after argument reduction; atan, atan2,
// asin, acos and log2 take one Newton step from V8's result (within an ulp) with the residual in
// double-double. The last rounding is one double operation, so these give the double nearest the
// function's value, as glibc's do but for rare near-ties. glibc computes sinh, cosh, tanh, asinh, acosh
// and log10 with fdlibm's formulas on its own (nearly correctly rounded) exp and log: those formulas are
// followed here on the correctly rounded exp and log. expm1, log1p and atanh are fdlibm's in both (JS's
// Math). Domain and range errors are raised by math1 (values.ts) from the NaN or infinity returned here.

import { log } from './numpy/mt19937.js';
import { ddAdd as add, ddDiv as div, ddMul as mul, ddNeg as neg, ddSub as sub, twoProd, type DD } from './double_double.js';

const d = (x: number): DD => [x, 0];
const ONE: DD = [1, 0];

/** v * 2^k without overflow of the power itself (exact unless the result is subnormal). */
function scale(v: number, k: number): number {
  while (k > 1000) (v *= 2 ** 1000), (k -= 1000);
  while (k < -1000) (v *= 2 ** -1000), (k += 1000);
  return v * 2 ** k;
}
const scaleDD = (x: DD, k: number): DD => [scale(x[0], k), scale(x[1], k)];

const LN2: DD = [0.6931471805599453, 2.3190468138462996e-17];
const PIO2 = [1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33] as const;
const TWO_OVER_SQRTPI: DD = [1.1283791670955126, 1.533545961316588e-17];
const ONE_OVER_SQRTPI: DD = [0.5641895835477563, 7.66772980658294e-18];

/** e^x = m * 2^k, m in [0.7, 1.5], for a double-double x of moderate size. */
function expParts(x: DD): { m: DD; k: number } {
  const k = Math.round(x[0] / LN2[0]);
  const r = sub(sub(x, twoProd(k, LN2[0])), twoProd(k, LN2[1]));
  // Horner on the Taylor series: |r| <= 0.35, 27 terms leave less than 2^-110
  let s = ONE;
  for (let n = 27; n >= 1; n--) s = add(ONE, div(mul(r, s), d(n)));
  return { m: s, k };
}
const expDD = (x: DD): DD => {
  const { m, k } = expParts(x);
  return scaleDD(m, k);
};

export function exp(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x > 709.8) return Infinity;
  if (x < -745.2) return 0;
  const { m, k } = expParts(d(x));
  return scale(m[0] + m[1], k);
}

/**
 * sinh and cosh as glibc computes them (fdlibm's e_sinh.c / e_cosh.c on glibc's exp and expm1): from
 * expm1 below 22, from exp above, exp(|x|/2)^2/2 near overflow.
 */
export function sinh(x: number): number {
  const ax = Math.abs(x);
  if (!Number.isFinite(x) || ax < 2 ** -28) return x;
  const h = x < 0 ? -0.5 : 0.5;
  if (ax < 22) {
    const t = Math.expm1(ax);
    return ax < 1 ? h * (2 * t - (t * t) / (t + 1)) : h * (t + t / (t + 1));
  }
  if (ax < 709.782712893384) return h * exp(ax);
  if (ax <= 710.4758600739439) {
    const w = exp(0.5 * ax);
    return h * w * w;
  }
  return x * Infinity;
}
export function cosh(x: number): number {
  const ax = Math.abs(x);
  if (Number.isNaN(x)) return x;
  if (ax < 0.5 * LN2[0]) {
    const t = Math.expm1(ax);
    const w = 1 + t;
    return ax < 2 ** -55 ? w : 1 + (t * t) / (w + w);
  }
  if (ax < 22) {
    const t = exp(ax);
    return 0.5 * t + 0.5 / t;
  }
  if (ax < 709.782712893384) return 0.5 * exp(ax);
  if (ax <= 710.4758600739439) {
    const w = exp(0.5 * ax);
    return 0.5 * w * w;
  }
  return Infinity;
}

/** tanh as glibc computes it (fdlibm's s_tanh.c on expm1). */
export function tanh(x: number): number {
  const ax = Math.abs(x);
  if (Number.isNaN(x)) return x;
  if (ax >= 22) return Math.sign(x);
  if (ax < 2 ** -55) return x * (1 + x);
  let z: number;
  if (ax >= 1) z = 1 - 2 / (Math.expm1(2 * ax) + 2);
  else {
    const t = Math.expm1(-2 * ax);
    z = -t / (t + 2);
  }
  return x < 0 ? -z : z;
}
/** x = k pi/2 + r, |r| <= pi/4 (|x| < 2^30), r in double-double. */
function reduce(x: number): { r: DD; k: number } {
  const k = Math.round(x / PIO2[0]);
  let r = sub(d(x), twoProd(k, PIO2[0]));
  r = sub(r, twoProd(k, PIO2[1]));
  return { r: sub(r, d(k * PIO2[2])), k };
}

/** sin r and cos r of |r| <= pi/4 from their series. */
function sinCosSmall(r: DD): [DD, DD] {
  const r2 = mul(r, r);
  let s: DD = ONE;
  let c: DD = ONE;
  for (let n = 32; n >= 2; n -= 2) {
    s = sub(ONE, div(mul(r2, s), d(n * (n + 1))));
    c = sub(ONE, div(mul(r2, c), d((n - 1) * n)));
  }
  return [mul(r, s), c];
}

/** sin x and cos x in double-double (|x| < 2^30). */
function sinCosDD(x: number): [DD, DD] {
  const { r, k } = reduce(x);
  const [s, c] = sinCosSmall(r);
  switch (((k % 4) + 4) % 4) {
    case 0: return [s, c];
    case 1: return [c, neg(s)];
    case 2: return [neg(s), neg(c)];
    default: return [neg(c), s];
  }
}

const TRIG_LIMIT = 2 ** 30;

export function sin(x: number): number {
  if (x === 0 || !Number.isFinite(x) || Math.abs(x) >= TRIG_LIMIT) return Math.sin(x);
  const s = sinCosDD(x)[0];
  return s[0] + s[1];
}
export function cos(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= TRIG_LIMIT) return Math.cos(x);
  const c = sinCosDD(x)[1];
  return c[0] + c[1];
}
export function tan(x: number): number {
  if (x === 0 || !Number.isFinite(x) || Math.abs(x) >= TRIG_LIMIT) return Math.tan(x);
  const [s, c] = sinCosDD(x);
  const t = div(s, c);
  return t[0] + t[1];
}

/** t0 + corr rounded once: t0 is V8's result (within an ulp), corr the Newton correction. */
const newton = (t0: number, corr: number): number => (Number.isFinite(corr) ? t0 + corr : t0);

export function atan2(y: number, x: number): number {
  const t0 = Math.atan2(y, x);
  // zeros, infinities and NaNs: the exact special values C's atan2 gives (as V8's)
  if (!Number.isFinite(x) || !Number.isFinite(y) || x === 0 || y === 0 || Math.abs(t0) >= TRIG_LIMIT) return t0;
  // tan(θ - t0) = (y cos t0 - x sin t0) / (x cos t0 + y sin t0); scaled by a power of 2 to keep the products finite
  const e = Math.floor(Math.log2(Math.max(Math.abs(x), Math.abs(y))));
  const [ys, xs] = [scale(y, -e), scale(x, -e)];
  const [s, c] = sinCosDD(t0);
  const num = sub(mul(d(ys), c), mul(d(xs), s));
  const den = xs * c[0] + ys * s[0];
  return newton(t0, (num[0] + num[1]) / den);
}
export const atan = (x: number): number => (Number.isFinite(x) && x !== 0 ? atan2(x, 1) : Math.atan(x));

export function asin(x: number): number {
  const t0 = Math.asin(x);
  if (!Number.isFinite(t0) || x === 0 || Math.abs(x) === 1) return t0;
  const [s, c] = sinCosDD(t0);
  const r = sub(d(x), s);
  return newton(t0, (r[0] + r[1]) / c[0]);
}
export function acos(x: number): number {
  const t0 = Math.acos(x);
  if (!Number.isFinite(t0) || Math.abs(x) === 1) return t0;
  const [s, c] = sinCosDD(t0);
  const r = sub(c, d(x));
  return newton(t0, (r[0] + r[1]) / s[0]);
}

/** asinh and acosh as glibc computes them (fdlibm's formulas on glibc's log and log1p). */
export function asinh(x: number): number {
  const ax = Math.abs(x);
  if (!Number.isFinite(x) || ax < 2 ** -28) return x;
  let w: number;
  if (ax > 2 ** 28) w = log(ax) + LN2[0];
  else if (ax > 2) w = log(2 * ax + 1 / (Math.sqrt(x * x + 1) + ax));
  else w = Math.log1p(ax + (x * x) / (1 + Math.sqrt(1 + x * x)));
  return x < 0 ? -w : w;
}
export function acosh(x: number): number {
  if (Number.isNaN(x) || x < 1) return NaN;
  if (x >= 2 ** 28) return x === Infinity ? x : log(x) + LN2[0];
  if (x === 1) return 0;
  if (x > 2) return log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
  const t = x - 1;
  return Math.log1p(t + Math.sqrt(2 * t + t * t));
}

/**
 * The Newton step for t = log_b(x / f) (ln b = lnb): from t0, the correction (x / (f b^t0) - 1) / ln b.
 * b^t0 is m * 2^k (no overflow); x * 2^-k is exact. (asinh/acosh of a large x: log(2x) with f = 1/2.)
 */
function logNewton(x: number, t0: number, lnb: DD, f: number): number {
  const { m, k } = expParts(mul(d(t0), lnb));
  const q = sub(div(d(scale(x, -k)), f === 1 ? m : mul(m, d(f))), ONE);
  return newton(t0, (q[0] + q[1]) / lnb[0]);
}

export function log2(x: number): number {
  const t0 = Math.log2(x);
  if (!Number.isFinite(t0) || !(x > 0)) return t0;
  return logNewton(x, t0, LN2, 1);
}
/** log10 as glibc computes it (fdlibm's e_log10.c: k log10(2) split in two, plus log(m) / ln 10). */
export function log10(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return -Infinity;
  if (x === Infinity) return x;
  let k = 0;
  if (x < 2 ** -1022) (x *= 2 ** 54), (k -= 54);
  const e = Math.floor(Math.log2(x));
  // the exponent as fdlibm reads it from the bits (Math.log2 can round up just below a power of 2)
  const k2 = x >= 2 ** e ? (x < 2 ** (e + 1) ? e : e + 1) : e - 1;
  k += k2;
  const i = k < 0 ? 1 : 0;
  const y = k + i;
  const m = i ? scale(x, -k2) / 2 : scale(x, -k2);
  return y * 3.69423907715893078616e-13 + 4.34294481903251816668e-1 * log(m) + y * 3.01029995663611771306e-1;
}

/** erf (which 0) or erfc (which 1) of x. */
function erfAny(x: number, which: 0 | 1): number {
  if (Number.isNaN(x)) return x;
  const ax = Math.abs(x);
  if (which === 0 && x === 0) return x;
  if (ax >= 6.5) return which === 0 ? Math.sign(x) : x > 0 ? erfcTail(ax) : 2;
  if (ax >= 3 && which === 1 && x > 0) return erfcTail(ax);
  // erf(a) = 2/sqrt(pi) e^{-a^2} sum_n 2^n a^{2n+1} / (1·3·…·(2n+1)): positive terms, no cancellation
  const a2 = twoProd(ax, ax);
  let term: DD = d(ax);
  let sum: DD = term;
  for (let n = 1; n < 400; n++) {
    term = div(mul(mul(term, a2), d(2)), d(2 * n + 1));
    sum = add(sum, term);
    if (Math.abs(term[0]) < Math.abs(sum[0]) * 1e-34) break;
  }
  const erfA = mul(mul(TWO_OVER_SQRTPI, expDD(neg(a2))), sum);
  if (which === 0) return x < 0 ? -(erfA[0] + erfA[1]) : erfA[0] + erfA[1];
  const r = x < 0 ? add(ONE, erfA) : sub(ONE, erfA);
  return r[0] + r[1];
}

/** erfc(a), a >= 3: e^{-a^2}/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + …)))), the continued fraction from its tail. */
function erfcTail(a: number): number {
  if (a > 27.3) return 0;
  let t: DD = d(a);
  for (let n = 300; n >= 1; n--) t = add(d(a), div(d(n / 2), t));
  const a2 = twoProd(a, a);
  const { m, k } = expParts(neg(a2));
  const r = div(mul(ONE_OVER_SQRTPI, m), t);
  return scale(r[0] + r[1], k);
}
export const erf = (x: number): number => erfAny(x, 0);
export const erfc = (x: number): number => erfAny(x, 1);
