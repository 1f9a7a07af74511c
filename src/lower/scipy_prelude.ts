// jax.lax's special-function expansions (bessel_i0e/i1e, igamma/igammac, betainc: JAX lowers
// these with its own Python, jax/_src/lax/special.py, or with XLA's Cephes expansions), a few lax
// composites (cumlogsumexp, batch_matmul, approx_max_k, split, ...), and the jax.scipy.special,
// jax.scipy.stats and jax.scipy.linalg functions JAX writes in Python (jax/_src/scipy/*.py),
// nearly verbatim, on the primitives jaxts already has: run by jaxts's own evaluator the first
// time a program calls one (python_prelude.ts). The functions lib_lax.ts, lib_scipy.ts and
// lib_stats.ts already define keep their definitions; these fill in the rest.
import type { Interp } from './interp.js';
import { pythonPrelude } from './python_prelude.js';
import type { CallArgs, PyValue } from './values.js';

const LAX_PY = `
import jax
import jax.numpy as jnp
from jax import lax
import numpy as np

_EPS = 1.1920928955078125e-07
_TINY = 1.1754943508222875e-38
_LOG_MAX = 88.72283935546875

def _float_args(name, *args):
  xs = [jnp.asarray(x) for x in args]
  for i, x in enumerate(xs):
    if x.dtype != jnp.float32:
      raise TypeError(f"{name} does not accept dtype {x.dtype} at position {i}. Accepted dtypes at position {i} are subtypes of floating.")
  shapes = [x.shape for x in xs if x.ndim > 0]
  for s in shapes:
    if s != shapes[0]:
      raise TypeError(f"{name} got incompatible shapes for broadcasting: {', '.join(str(t) for t in shapes)}.")
  if shapes:
    xs = [x if x.shape == shapes[0] else jnp.broadcast_to(x, shapes[0]) for x in xs]
  return xs

def _any(p):
  return jnp.any(p)

def _chebyshev(x, coefficients):
  b0 = jnp.zeros_like(x)
  b1 = jnp.zeros_like(x)
  b2 = jnp.zeros_like(x)
  for c in coefficients:
    b2 = b1
    b1 = b0
    b0 = x * b1 - b2 + c
  return 0.5 * (b0 - b2)

_I0E_A = [-1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
  -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
  -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
  -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
  -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7, 2.89137052083475648297E-6,
  6.88975834691682398426E-5, 3.36911647825569408990E-3, 8.04490411014108831608E-1]
_I1E_A = [9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
  3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
  5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
  2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
  2.52587186443633654823E-1]
_I1E_B = [-3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7, -3.88256480887769039346E-6,
  -1.10588938762623716291E-4, -9.76109749136146840777E-3, 7.78576235018280120474E-1]

@jax.custom_jvp
def _i0e(x):
  z = jnp.abs(x)
  le_8 = _chebyshev(0.5 * z - 2.0, _I0E_A)
  gt_8 = _chebyshev(32.0 / z - 2.0, _I0E_B) / jnp.sqrt(z)
  return lax.select(z <= 8.0, le_8, gt_8)

@_i0e.defjvp
def _i0e_jvp(primals, tangents):
  x, = primals
  g, = tangents
  y = _i0e(x)
  return y, g * (_i1e(x) - jnp.sign(x) * y)

@jax.custom_jvp
def _i1e(x):
  z = jnp.abs(x)
  le_8 = _chebyshev(0.5 * z - 2.0, _I1E_A) * z
  gt_8 = _chebyshev(32.0 / z - 2.0, _I1E_B) / jnp.sqrt(z)
  y = lax.select(z <= 8.0, le_8, gt_8)
  return lax.select(x < 0.0, -y, y)

@_i1e.defjvp
def _i1e_jvp(primals, tangents):
  x, = primals
  g, = tangents
  y = _i1e(x)
  x_is_not_tiny = jnp.abs(x) > _EPS
  safe_x = lax.select(x_is_not_tiny, x, jnp.full_like(x, _EPS))
  dy_dx = _i0e(safe_x) - y * (jnp.sign(safe_x) + 1.0 / safe_x)
  dy_dx = lax.select(x_is_not_tiny, dy_dx, jnp.full_like(x, 0.5))
  return y, g * dy_dx

def bessel_i0e(x):
  x, = _float_args("bessel_i0e", x)
  return _i0e(x)

def bessel_i1e(x):
  x, = _float_args("bessel_i1e", x)
  return _i1e(x)

_VALUE = 1
_DERIVATIVE = 2
_SAMPLE_DERIVATIVE = 3

def _igamma_series(ax, x, a, enabled, mode):
  def cond_fn(vals):
    return _any(vals[0])

  def body_fn(vals):
    enabled, r, c, ans, x, dc_da, dans_da = vals
    r = r + 1.0
    dc_da = dc_da * (x / r) - (c * x) / (r * r)
    dans_da = dans_da + dc_da
    c = c * (x / r)
    ans = ans + c
    if mode == _VALUE:
      conditional = enabled & (c / ans > _EPS)
    else:
      conditional = enabled & (jnp.abs(dc_da / dans_da) > _EPS)
    return (conditional, lax.select(enabled, r, vals[1]), lax.select(enabled, c, vals[2]), lax.select(enabled, ans, vals[3]),
            lax.select(enabled, x, vals[4]), lax.select(enabled, dc_da, vals[5]), lax.select(enabled, dans_da, vals[6]))

  init_vals = (enabled, a, jnp.ones_like(a), jnp.ones_like(a), x, jnp.zeros_like(a), jnp.zeros_like(a))
  vals = lax.while_loop(cond_fn, body_fn, init_vals)
  ans = vals[3]
  dans_da = vals[6]
  if mode == _VALUE:
    return (ans * ax) / a
  dlogax_da = jnp.log(x) - lax.digamma(a + 1.0)
  if mode == _DERIVATIVE:
    return ax * (ans * dlogax_da + dans_da) / a
  return -(dans_da + ans * dlogax_da) * x / a

def _igammac_continued_fraction(ax, x, a, enabled, mode):
  eps = _EPS

  def cond_fn(vals):
    return (vals[5] < 2000.0) & _any(vals[0])

  def body_fn(vals):
    (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
    c = c + 1.0
    y = y + 1.0
    z = z + 2.0
    yc = y * c
    pk = pkm1 * z - pkm2 * yc
    qk = qkm1 * z - qkm2 * yc
    qk_is_nonzero = qk != 0.0
    r = pk / qk
    t = lax.select(qk_is_nonzero, jnp.abs((ans - r) / r), jnp.ones_like(r))
    ans = lax.select(qk_is_nonzero, r, ans)
    dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
    dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
    dans_da_new = lax.select(qk_is_nonzero, (dpk_da - ans * dqk_da) / qk, dans_da)
    grad_conditional = lax.select(qk_is_nonzero, jnp.abs(dans_da_new - dans_da), jnp.ones_like(dans_da))
    pkm2 = pkm1
    pkm1 = pk
    qkm2 = qkm1
    qkm1 = qk
    dpkm2_da = dpkm1_da
    dqkm2_da = dqkm1_da
    dpkm1_da = dpk_da
    dqkm1_da = dqk_da
    rescale = jnp.abs(pk) > 1.0 / eps
    pkm2 = lax.select(rescale, pkm2 * eps, pkm2)
    pkm1 = lax.select(rescale, pkm1 * eps, pkm1)
    qkm2 = lax.select(rescale, qkm2 * eps, qkm2)
    qkm1 = lax.select(rescale, qkm1 * eps, qkm1)
    dpkm2_da = lax.select(rescale, dpkm2_da * eps, dpkm2_da)
    dqkm2_da = lax.select(rescale, dqkm2_da * eps, dqkm2_da)
    dpkm1_da = lax.select(rescale, dpkm1_da * eps, dpkm1_da)
    dqkm1_da = lax.select(rescale, dqkm1_da * eps, dqkm1_da)
    if mode == _VALUE:
      conditional = enabled & (t > eps)
    else:
      conditional = enabled & (grad_conditional > eps)
    return (conditional, lax.select(enabled, ans, vals[1]), lax.select(enabled, t, vals[2]), lax.select(enabled, y, vals[3]),
            lax.select(enabled, z, vals[4]), c, lax.select(enabled, pkm1, vals[6]), lax.select(enabled, qkm1, vals[7]),
            lax.select(enabled, pkm2, vals[8]), lax.select(enabled, qkm2, vals[9]), lax.select(enabled, dpkm2_da, vals[10]),
            lax.select(enabled, dqkm2_da, vals[11]), lax.select(enabled, dpkm1_da, vals[12]), lax.select(enabled, dqkm1_da, vals[13]),
            lax.select(enabled, dans_da_new, vals[14]))

  y = 1.0 - a
  z = x + y + 1.0
  c = jnp.zeros((), x.dtype)
  pkm2 = jnp.ones_like(x)
  qkm2 = x
  pkm1 = x + 1.0
  qkm1 = z * x
  ans = pkm1 / qkm1
  t = jnp.ones_like(x)
  dpkm2_da = jnp.zeros_like(x)
  dqkm2_da = jnp.zeros_like(x)
  dpkm1_da = jnp.zeros_like(x)
  dqkm1_da = -x
  dans_da = (dpkm1_da - ans * dqkm1_da) / qkm1
  init_vals = (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da)
  vals = lax.while_loop(cond_fn, body_fn, init_vals)
  ans = vals[1]
  if mode == _VALUE:
    return ans * ax
  dans_da = vals[14]
  dlogax_da = jnp.log(x) - lax.digamma(a)
  if mode == _DERIVATIVE:
    return ax * (ans * dlogax_da + dans_da)
  return -(dans_da + ans * dlogax_da) * x

def _igamma_impl(a, x):
  is_nan = jnp.isnan(a) | jnp.isnan(x)
  x_is_infinity = x == jnp.inf
  a_is_infinity = a == jnp.inf
  a_is_zero = a == 0.0
  x_is_zero = x == 0.0
  domain_error = (x < 0.0) | (a < 0.0) | (a_is_zero & x_is_zero) | (a_is_infinity & x_is_infinity) | is_nan
  use_igammac = (x >= 1.0) & (x > a)
  ax = a * jnp.log(x) - x - lax.lgamma(a)
  underflow = ax < -_LOG_MAX
  ax = jnp.exp(ax)
  enabled = ~(x_is_zero | domain_error | underflow | x_is_infinity | a_is_infinity)
  output = lax.select(use_igammac,
                      1.0 - _igammac_continued_fraction(ax, x, a, enabled & use_igammac, _VALUE),
                      _igamma_series(ax, x, a, enabled & ~use_igammac, _VALUE))
  output = lax.select(a_is_infinity, jnp.zeros_like(a), output)
  output = lax.select(x_is_zero, jnp.zeros_like(a), output)
  output = lax.select(x_is_infinity, jnp.ones_like(a), output)
  output = lax.select(domain_error, jnp.full_like(a, jnp.nan), output)
  return output

def _igammac_impl(a, x):
  is_nan = jnp.isnan(a) | jnp.isnan(x)
  a_is_zero = a == 0.0
  x_is_zero = x == 0.0
  x_is_infinity = x == jnp.inf
  a_is_infinity = a == jnp.inf
  domain_error = (x < 0.0) | (a < 0.0) | (a_is_zero & x_is_zero) | (a_is_infinity & x_is_infinity) | is_nan
  use_igamma = (x < 1.0) | (x < a)
  ax = a * jnp.log(x) - x - lax.lgamma(a)
  underflow = ax < -_LOG_MAX
  enabled = ~(domain_error | underflow | x_is_infinity | a_is_zero | a_is_infinity)
  ax = jnp.exp(ax)
  igamma_call = _igamma_series(ax, x, a, enabled & use_igamma, _VALUE)
  igammac_cf_call = _igammac_continued_fraction(ax, x, a, enabled & ~use_igamma, _VALUE)
  output = lax.select(use_igamma, 1.0 - igamma_call, igammac_cf_call)
  output = lax.select(a_is_infinity, jnp.ones_like(a), output)
  output = lax.select(x_is_infinity | a_is_zero, jnp.zeros_like(output), output)
  output = lax.select(domain_error, jnp.full_like(a, jnp.nan), output)
  return output

def _igamma_grad_impl(a, x, mode):
  is_nan = jnp.isnan(a) | jnp.isnan(x)
  x_is_zero = x == 0.0
  domain_error = (x < 0.0) | (a <= 0.0)
  use_igammac = (x > 1.0) & (x > a)
  ax = a * jnp.log(x) - x - lax.lgamma(a)
  underflow = ax < -_LOG_MAX
  ax = jnp.exp(ax)
  enabled = ~(x_is_zero | domain_error | underflow | is_nan)
  output = lax.select(use_igammac,
                      -_igammac_continued_fraction(ax, x, a, enabled & use_igammac, mode),
                      _igamma_series(ax, x, a, enabled & ~use_igammac, mode))
  output = lax.select(x_is_zero, jnp.zeros_like(output), output)
  output = lax.select(domain_error | is_nan, jnp.full_like(a, jnp.nan), output)
  return output

def _igamma_gradx(a, x):
  return jnp.exp(-x + (a - 1.0) * jnp.log(x) - lax.lgamma(a))

@jax.custom_jvp
def _igamma(a, x):
  return _igamma_impl(a, x)

@_igamma.defjvp
def _igamma_jvp(primals, tangents):
  a, x = primals
  ta, tx = tangents
  return _igamma(a, x), ta * _igamma_grad_impl(a, x, _DERIVATIVE) + tx * _igamma_gradx(a, x)

@jax.custom_jvp
def _igammac(a, x):
  return _igammac_impl(a, x)

@_igammac.defjvp
def _igammac_jvp(primals, tangents):
  a, x = primals
  ta, tx = tangents
  return _igammac(a, x), -(ta * _igamma_grad_impl(a, x, _DERIVATIVE) + tx * _igamma_gradx(a, x))

def igamma(a, x):
  a, x = _float_args("igamma", a, x)
  return _igamma(a, x)

def igammac(a, x):
  a, x = _float_args("igammac", a, x)
  return _igammac(a, x)

def igamma_grad_a(a, x):
  a, x = _float_args("igamma_grad_a", a, x)
  return _igamma_grad_impl(a, x, _DERIVATIVE)

def random_gamma_grad(a, x, *, dtype=None):
  a, x = _float_args("random_gamma_grad", a, x)
  return _igamma_grad_impl(a, x, _SAMPLE_DERIVATIVE)

def _lentz_thompson_barnett(num_iterations, small, threshold, nth_partial_numerator, nth_partial_denominator, inputs):
  def while_cond_fn(values):
    return (values[0] < num_iterations) & values[1]

  def while_body_fn(values):
    iteration = values[0]
    partial_numerator = nth_partial_numerator(iteration, *inputs)
    partial_denominator = nth_partial_denominator(iteration, *inputs)
    c = partial_denominator + partial_numerator / values[2]
    c = lax.select(jnp.abs(c) < small, jnp.full_like(c, small), c)
    d = partial_denominator + partial_numerator * values[3]
    d = lax.select(jnp.abs(d) < small, jnp.full_like(d, small), d)
    d = 1.0 / d
    delta = c * d
    h = values[4] * delta
    return (iteration + 1, _any(jnp.abs(delta - 1.0) >= threshold), c, d, h)

  partial_denominator = nth_partial_denominator(0, *inputs)
  h = lax.select(jnp.abs(partial_denominator) < small, jnp.full_like(partial_denominator, small), partial_denominator)
  values = lax.while_loop(while_cond_fn, while_body_fn, (1, True, h, jnp.zeros_like(h), h))
  return values[4]

def _betainc_numerator(iteration, a, b, x):
  iteration_bcast = jnp.full(a.shape, iteration)
  iteration_is_even = iteration_bcast % 2 == 0
  iteration_is_one = iteration_bcast == 1
  m = (iteration_bcast - 1) // 2
  m_is_zero = m == 0
  m = m.astype(jnp.float32)
  zero_numerator = -(a + b) * x / (a + 1.0)
  even_numerator = lax.select(m_is_zero, zero_numerator, -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)))
  odd_numerator = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
  numerator = lax.select(iteration_is_even, even_numerator, odd_numerator)
  return lax.select(iteration_is_one, jnp.ones_like(x), numerator)

def _betainc_denominator(iteration, a, b, x):
  iteration_bcast = jnp.full(a.shape, iteration)
  return lax.select(iteration_bcast == 0, jnp.zeros_like(x), jnp.ones_like(x))

def _betainc_impl(a, b, x):
  a_is_zero = (a == 0.0) | (b == jnp.inf)
  b_is_zero = (b == 0.0) | (a == jnp.inf)
  x_is_zero = x == 0.0
  x_is_one = x == 1.0
  is_nan = jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(x)
  result_is_zero = (b_is_zero & ~x_is_one) | (a_is_zero & x_is_zero)
  result_is_one = (a_is_zero & ~x_is_zero) | (b_is_zero & x_is_one)
  result_is_nan = (a < 0.0) | (b < 0.0) | (x < 0.0) | (x > 1.0)
  result_is_nan = result_is_nan | (a_is_zero & b_is_zero) | is_nan
  converges_rapidly = x < (a + 1.0) / (a + b + 2.0)
  a_orig = a
  a = lax.select(converges_rapidly, a, b)
  b = lax.select(converges_rapidly, b, a_orig)
  x = lax.select(converges_rapidly, x, 1.0 - x)
  continued_fraction = _lentz_thompson_barnett(200, _EPS / 2, _EPS / 2, _betainc_numerator, _betainc_denominator, [a, b, x])
  very_small = _TINY * 2
  lbeta_ab_small_a = lax.lgamma(b) - lax.lgamma(a + b)
  lbeta_ab = lax.lgamma(a) + lbeta_ab_small_a
  factor = lax.select(a < very_small, jnp.exp(jnp.log1p(-x) * b - lbeta_ab_small_a),
                      jnp.exp(jnp.log(x) * a + jnp.log1p(-x) * b - lbeta_ab) / a)
  result = continued_fraction * factor
  result = lax.select(converges_rapidly, result, 1.0 - result)
  result = lax.select(result_is_zero, jnp.zeros_like(a), result)
  result = lax.select(result_is_one, jnp.ones_like(a), result)
  result = lax.select(result_is_nan, jnp.full_like(a, jnp.nan), result)
  return result

@jax.custom_jvp
def _betainc(a, b, x):
  return _betainc_impl(a, b, x)

@_betainc.defjvp
def _betainc_jvp(primals, tangents):
  a, b, x = primals
  _, _, tx = tangents
  lbeta = lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)
  partial_x = jnp.exp((b - 1.0) * jnp.log1p(-x) + (a - 1.0) * jnp.log(x) - lbeta)
  return _betainc(a, b, x), partial_x * tx

def betainc(a, b, x):
  a, b, x = _float_args("regularized_incomplete_beta", a, b, x)
  return _betainc(a, b, x)

def _logaddexp(x1, x2):
  amax = lax.max(x1, x2)
  delta = x1 - x2
  return lax.select(jnp.isnan(delta), x1 + x2, amax + jnp.log1p(jnp.exp(-jnp.abs(delta))))

def cumlogsumexp(operand, axis=0, reverse=False):
  operand = jnp.asarray(operand)
  if operand.dtype != jnp.float32:
    raise TypeError(f"cumlogsumexp does not accept dtype {operand.dtype}. Accepted dtypes are subtypes of floating.")
  if not -operand.ndim <= axis < operand.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
  return lax.associative_scan(_logaddexp, operand, reverse=reverse, axis=axis)

def batch_matmul(lhs, rhs, precision=None):
  if lhs.ndim < 2 or rhs.ndim < 2:
    raise ValueError(f'Arguments to batch_matmul must be at least 2D, got {lhs.ndim}, {rhs.ndim}')
  if lhs.ndim != rhs.ndim:
    raise ValueError(f'Arguments to batch_matmul must have same ndim, got {lhs.ndim}, {rhs.ndim}')
  lhs_contract = (lhs.ndim - 1,)
  rhs_contract = (rhs.ndim - 2,)
  batch = tuple(range(lhs.ndim - 2))
  return lax.dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (batch, batch)), precision=precision)

def broadcast_shapes(*shapes):
  return jnp.broadcast_shapes(*shapes)

def _approx_k(operand, k, reduction_dimension, is_max_k):
  operand = jnp.asarray(operand)
  dim = reduction_dimension + operand.ndim if reduction_dimension < 0 else reduction_dimension
  if not 0 <= dim < operand.ndim:
    raise ValueError(f"reduction_dimension {reduction_dimension} is out of bounds for array of dimension {operand.ndim}")
  if k <= 0 or k > operand.shape[dim]:
    raise ValueError(f"k must be in (0, operand.shape[reduction_dimension]] but got k={k}")
  x = jnp.moveaxis(operand, dim, -1)
  if is_max_k:
    values, indices = lax.top_k(x, k)
  else:
    values, indices = lax.top_k(-x, k)
    values = -values
  return [jnp.moveaxis(values, -1, dim), jnp.moveaxis(indices, -1, dim)]

def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1, aggregate_to_topk=True):
  return _approx_k(operand, k, reduction_dimension, True)

def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1, aggregate_to_topk=True):
  return _approx_k(operand, k, reduction_dimension, False)

def split(operand, sizes, axis=0):
  operand = jnp.asarray(operand)
  axis = axis + operand.ndim if axis < 0 else axis
  if not 0 <= axis < operand.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
  sizes = [int(s) for s in sizes]
  if any(s < 0 for s in sizes):
    raise ValueError(f"Sizes passed to split must be nonnegative, got {tuple(sizes)}")
  if sum(sizes) != operand.shape[axis]:
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {operand.shape[axis]} of the operand shape {operand.shape}")
  out = []
  start = 0
  for s in sizes:
    out.append(lax.slice_in_dim(operand, start, start + s, axis=axis))
    start += s
  return out

def optimization_barrier(operand):
  return operand
`;

const LAX_PRELUDE = pythonPrelude(LAX_PY, 'jax.lax');

/** The lax functions of the prelude, each calling it (a name lib_lax.ts defines keeps its definition). */
export function laxPreludeFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return Object.fromEntries(LAX_PRELUDE.functions.map((name) => [name, (c: CallArgs) => LAX_PRELUDE.call(ip, name, c)]));
}
