// The jax.numpy (and jax.numpy.linalg, jax.nn) functions that JAX 0.10.2 compiles with jit: those
// decorated with @jit / @partial(jit, ...) / @api.jit in jax/_src/numpy/*.py and jax/_src/nn/functions.py,
// every ufunc (unary_ufunc and binary_ufunc wrap the function in jit(inline=True)), and the public
// functions whose work is done by a jitted helper (linspace → _linspace, mean → _mean, sum →
// _reduce_sum, power → _power, where → _where, ...). Called outside jit, such a function is still one
// XLA computation, so XLA's rewrites of whole programs (fused multiply-adds, the algebraic simplifier)
// apply among its own operations: `jnp.linspace(-3, 3, 1001)` computes start·(1−step) + stop·step with
// one rounding for the first product. `inJitRegion` marks the equations such a call traces in a host
// segment (Eqn.jitRegion); the passes treat each region as a jit program (src/passes/simplify.ts,
// fma_contraction.ts). Inside a jit trace the marks change nothing (the whole program is compiled).
import { freshJitRegion } from '../ir/types.js';
import type { Interp } from './interp.js';
import type { CallArgs, PyValue } from './values.js';

const words = (s: string): string[] => s.trim().split(/\s+/);

/** jax.numpy functions compiled with jit (JAX 0.10.2; aliases included). */
const JNP = words(`
  linspace geomspace logspace take take_along_axis put_along_axis
  argmax argmin nanargmax nanargmin convolve correlate diag flip fliplr flipud moveaxis pad piecewise roll
  squeeze allclose angle append around atleast_1d atleast_2d atleast_3d block clip corrcoef cov cross
  diagonal diff digitize ediff1d fmax fmin gcd gradient i0 isclose iscomplex isreal kron lcm nan_to_num
  packbits ravel resize rollaxis rot90 round searchsorted swapaxes trace trapezoid tril triu trunc fix
  unpackbits unstack unwrap vander
  roots poly polyadd polyder polyfit polyint polysub polyval
  average mean ptp all any max min amax amin prod sum std var cumsum cumulative_sum cumprod cumulative_prod
  count_nonzero median nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
  nanquantile nanstd nansum nanvar percentile quantile
  argpartition argsort lexsort partition sort sort_complex
  dot inner matmul matvec outer vdot vecmat
  where broadcast_arrays
  power pow float_power abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin
  asinh atan atan2 atanh bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_right_shift
  bitwise_and bitwise_or bitwise_xor cbrt ceil conj conjugate copysign cos cosh deg2rad radians rad2deg
  degrees divmod equal exp exp2 expm1 fabs floor floor_divide fmod frexp greater greater_equal heaviside
  hypot imag invert isfinite isinf isnan ldexp left_shift less less_equal log log10 log1p log2 logical_not
  logical_and logical_or logical_xor modf nextafter not_equal positive negative real reciprocal remainder
  mod right_shift rint sign signbit sin sinc sinh spacing sqrt square tan tanh true_divide divide add
  subtract multiply maximum minimum logaddexp logaddexp2
`);

/** jax.numpy.linalg functions compiled with jit. */
const LINALG = words('pinv cholesky cond det eigh eigvals eigvalsh inv matrix_power matrix_rank norm qr slogdet solve svd');

/** jax.nn functions compiled with jit. */
const NN = words(`
  identity relu squareplus softplus sparse_plus soft_sign sigmoid sparse_sigmoid silu swish mish log_sigmoid
  elu leaky_relu hard_tanh celu selu glu logmeanexp log_softmax standardize relu6 hard_sigmoid hard_silu
  hard_swish log1mexp
`);

export const JAX_JITTED: Readonly<Record<'jnp' | 'linalg' | 'nn', ReadonlySet<string>>> = {
  jnp: new Set(JNP),
  linalg: new Set(LINALG),
  nn: new Set(NN),
};

/**
 * Call `f` as JAX calls a jitted function: at host level, the equations it traces form one jit region
 * (Eqn.jitRegion; a jitted function called inside another one's region joins the outer region, as
 * jit(inline=True) inlines it), also under transformations that JAX runs op by op (Interp.opByOp: the
 * region's derivatives stay one computation). Inside a jit trace the call is left as it is.
 */
export function inJitRegion(ip: Interp, f: () => PyValue): PyValue {
  if (!ip.atHost && !ip.opByOp) return f();
  const builder = ip.trace().builder;
  const start = builder.eqns.length;
  const out = f();
  // (a call that ended the host segment, to read a value back, is not one computation)
  if (ip.trace().builder !== builder) return out;
  const region = freshJitRegion();
  for (let i = start; i < builder.eqns.length; i++) builder.eqns[i]!.jitRegion = region;
  return out;
}

/** `fns` with each function named in `names` run as a jit region (inJitRegion). */
export function withJitRegions<F extends (c: CallArgs) => PyValue>(ip: Interp, fns: Record<string, F>, names: ReadonlySet<string>): Record<string, F> {
  return Object.fromEntries(Object.entries(fns).map(([k, f]) => [k, names.has(k) ? (((c: CallArgs) => inJitRegion(ip, () => f(c))) as F) : f]));
}
