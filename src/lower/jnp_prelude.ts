// The jax.numpy functions written, as JAX writes them, in Python
// (jax/_src/numpy/lax_numpy.py, ufuncs.py, reductions.py, polynomial.py,
// setops.py, window_functions.py, nearly verbatim, on the jnp/lax functions
// jaxts already has), run by jaxts's own evaluator the first time a program
// calls one of them. They trace, differentiate, batch and shard like the
// user's code. An error raised in this source is reported at the user's call.
import type { Interp } from './interp.js';
import { pythonPrelude } from './python_prelude.js';
import type { CallArgs, PyValue } from './values.js';

const JNP_PY = `
import jax
import jax.numpy as jnp
from jax import lax
import math
import numpy as np

# NumPy's finfo / iinfo (jnp.finfo is ml_dtypes' finfo, the same numbers and text): the limits of each
# dtype as NumPy computes them, its float fields NumPy scalars of the dtype.
_FINFO = {
  'float16': (16, 0.0009765625, 0.00048828125, 65504.0, 6.103515625e-05, 5.960464477539063e-08, 0.001, 3, -10, -11, 16, -14, 5, 10, '0.001', '6.55040e+04'),
  'bfloat16': (16, 0.0078125, 0.00390625, 3.3895313892515355e+38, 1.1754943508222875e-38, 9.183549615799121e-41, 0.01, 2, -7, -8, 128, -126, 8, 7, '0.0100098', '3.38953e+38'),
  'float32': (32, 1.1920928955078125e-07, 5.960464477539063e-08, 3.4028234663852886e+38, 1.1754943508222875e-38, 1.401298464324817e-45, 1e-06, 6, -23, -24, 128, -126, 8, 23, '1e-06', '3.4028235e+38'),
  'float64': (64, 2.220446049250313e-16, 1.1102230246251565e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 5e-324, 1e-15, 15, -52, -53, 1024, -1022, 11, 52, '1e-15', '1.7976931348623157e+308'),
}

_IINFO = {'int8': (8, 'i'), 'uint8': (8, 'u'), 'int16': (16, 'i'), 'uint16': (16, 'u'), 'int32': (32, 'i'), 'uint32': (32, 'u'), 'int64': (64, 'i'), 'uint64': (64, 'u')}

class finfo:
  def __init__(self, dtype):
    dt = np.dtype(dtype)
    if dt.name not in _FINFO:
      raise ValueError(f"data type <class 'numpy.{dt.name}'> not inexact")
    (bits, eps, epsneg, mx, tiny, sub, res, precision, machep, negep, maxexp, minexp, nexp, nmant, res_str, max_str) = _FINFO[dt.name]
    scalar = dt.type
    self.dtype = dt
    self.bits = bits
    self.eps = scalar(eps)
    self.epsneg = scalar(epsneg)
    self.max = scalar(mx)
    self.min = scalar(-mx)
    self.tiny = scalar(tiny)
    self.smallest_normal = scalar(tiny)
    self.smallest_subnormal = scalar(sub)
    self.resolution = scalar(res)
    self.precision = precision
    self.machep = machep
    self.negep = negep
    self.maxexp = maxexp
    self.minexp = minexp
    self.nexp = nexp
    self.iexp = nexp
    self.nmant = nmant
    self._repr = f"finfo(resolution={res_str}, min=-{max_str}, max={max_str}, dtype={dt.name})"

  def __repr__(self):
    return self._repr

  def __str__(self):
    line = '-' * 63
    return (f"Machine parameters for {self.dtype}\\n{line}\\n"
            f"precision = {self.precision}   resolution = {self.resolution}\\n"
            f"machep = {self.machep}   eps =        {self.eps}\\n"
            f"negep =  {self.negep}   epsneg =     {self.epsneg}\\n"
            f"minexp = {self.minexp}   tiny =       {self.tiny}\\n"
            f"maxexp = {self.maxexp}   max =        {self.max}\\n"
            f"nexp =   {self.nexp}   min =        -max\\n"
            f"smallest_normal = {self.smallest_normal}   smallest_subnormal = {self.smallest_subnormal}\\n{line}\\n")

class iinfo:
  def __init__(self, int_type):
    dt = np.dtype(int_type)
    if dt.name not in _IINFO:
      kind = 'b' if dt.name == 'bool' else 'f' if dt.name in _FINFO else 'O'
      raise ValueError(f"Invalid integer data type '{kind}'.")
    self.dtype = dt
    self._numpy = False
    self.bits, self.kind = _IINFO[dt.name]
    if self.kind == 'u':
      self.min = 0
      self.max = 2 ** self.bits - 1
    else:
      self.min = -(2 ** (self.bits - 1))
      self.max = 2 ** (self.bits - 1) - 1

  def __repr__(self):
    return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"

  def __str__(self):
    if not self._numpy:
      return repr(self)
    line = '-' * 63
    return f"Machine parameters for {self.dtype}\\n{line}\\nmin = {self.min}\\nmax = {self.max}\\n{line}\\n"

def _np_iinfo(int_type):
  # numpy.iinfo: jnp.iinfo (ml_dtypes') prints as its repr, NumPy's as a table
  info = iinfo(int_type)
  info._numpy = True
  return info

def _canon(axis, ndim):
  if axis < -ndim or axis >= ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
  return axis + ndim if axis < 0 else axis

def _isint(x):
  return x.dtype == jnp.int32 or x.dtype == jnp.uint32

def _isfloat(x):
  return x.dtype == jnp.float32

def _inexact(x):
  x = jnp.asarray(x)
  return x if x.dtype == jnp.float32 else x.astype(jnp.float32)

def _promote(*xs):
  xs = [jnp.asarray(x) for x in xs]
  dt = jnp.result_type(*xs)
  return [x if x.dtype == dt else x.astype(dt) for x in xs]

def _promote_inexact(*xs):
  xs = _promote(*xs)
  return [x if x.dtype == jnp.float32 else x.astype(jnp.float32) for x in xs]

def _index_tuple(v):
  if isinstance(v, (tuple, list)):
    return tuple(v)
  return (v,)

# ---- shapes and broadcasting

def broadcast_shapes(*shapes):
  shapes = [_index_tuple(s) for s in shapes]
  if not shapes:
    return ()
  nd = max(len(s) for s in shapes)
  padded = [(1,) * (nd - len(s)) + tuple(s) for s in shapes]
  out = []
  for i in range(nd):
    sizes = [s[i] for s in padded]
    big = [d for d in sizes if d != 1]
    if any(d != big[0] for d in big):
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
    out.append(big[0] if big else 1)
  return tuple(out)

def broadcast_arrays(*args):
  arrs = [jnp.asarray(a) for a in args]
  shape = broadcast_shapes(*[a.shape for a in arrs])
  return [a if a.shape == shape else jnp.broadcast_to(a, shape) for a in arrs]

def rollaxis(a, axis, start=0):
  a = jnp.asarray(a)
  n = a.ndim
  axis = _canon(axis, n)
  if not -n <= start <= n:
    raise ValueError(f"start={start} must satisfy {-n}<=start<={n}")
  if start < 0:
    start += n
  if start > axis:
    start -= 1
  return jnp.moveaxis(a, axis, start)

def resize(a, new_shape):
  new_shape = _index_tuple(new_shape)
  if any(d < 0 for d in new_shape):
    raise ValueError("all elements of \`new_shape\` must be non-negative")
  arr = jnp.ravel(a)
  new_size = math.prod(new_shape)
  if arr.size == 0 or new_size == 0:
    return jnp.zeros(new_shape, arr.dtype)
  repeats = -(-new_size // arr.size)
  arr = jnp.tile(arr, repeats)[:new_size]
  return jnp.reshape(arr, new_shape)

def append(arr, values, axis=None):
  if axis is None:
    return jnp.concatenate([jnp.ravel(arr), jnp.ravel(values)], 0)
  return jnp.concatenate([arr, values], axis=axis)

def block(arrays):
  depth = 0
  probe = arrays
  while isinstance(probe, list):
    if len(probe) == 0:
      raise ValueError("Lists cannot be empty")
    depth += 1
    probe = probe[0]
  def leaves(x):
    if isinstance(x, list):
      out = []
      for y in x:
        out += leaves(y)
      return out
    return [jnp.asarray(x)]
  nd = max(depth, max(a.ndim for a in leaves(arrays)))
  def rec(x, d):
    if isinstance(x, list):
      parts = [rec(y, d + 1) for y in x]
      return jnp.concatenate(parts, axis=d - depth)
    x = jnp.asarray(x)
    return jnp.reshape(x, (1,) * (nd - x.ndim) + x.shape)
  if not isinstance(arrays, list):
    return jnp.asarray(arrays)
  return rec(arrays, 0)

# ---- elementwise

def around(a, decimals=0, out=None):
  return jnp.round(a, decimals)

def pow(x1, x2):
  return jnp.power(x1, x2)

def bitwise_not(x):
  x = jnp.asarray(x)
  return jnp.logical_not(x) if x.dtype == jnp.bool_ else lax.bitwise_not(x)

def bitwise_invert(x):
  return bitwise_not(x)

def invert(x):
  return bitwise_not(x)

def copysign(x1, x2):
  x1, x2 = _promote_inexact(x1, x2)
  return jnp.where(jnp.signbit(x2).astype(bool), -lax.abs(x1), lax.abs(x1))

def fmod(x1, x2):
  # promote_args_numeric: one dtype (bool counts as int32) and one shape
  x1, x2 = jnp.broadcast_arrays(*_promote(x1, x2))
  if x1.dtype == jnp.bool_:
    x1, x2 = x1.astype(jnp.int32), x2.astype(jnp.int32)
  if _isint(x1):
    x2 = jnp.where(x2 == 0, jnp.ones_like(x2), x2)
  return lax.rem(x1, x2)

def modf(x, out=None):
  x = _inexact(x)
  whole = jnp.where(lax.ge(x, jnp.zeros_like(x)), jnp.floor(x), jnp.ceil(x))
  return x - whole, whole

def frexp(x):
  return _frexp(_inexact(x))

@jax.custom_jvp
def _frexp(x):
  cond = lax.abs(x) < 1.1754943508222875e-38
  x1 = jnp.where(cond, x * float(1 << 23), x)
  x2 = jnp.where(cond, jnp.int32(-23), jnp.int32(0))
  x1 = lax.bitcast_convert_type(x1, jnp.int32)
  x2 = x2 + (((x1 >> 23) & 255) - 127 + 1)
  x1 = x1 & (~(255 << 23))
  x1 = x1 | (126 << 23)
  x1 = lax.bitcast_convert_type(x1, jnp.float32)
  cond = jnp.isinf(x) | jnp.isnan(x) | (x == 0)
  x2 = jnp.where(cond, jnp.zeros_like(x2), x2)
  return jnp.where(cond, x, x1), x2

@_frexp.defjvp
def _frexp_jvp(primals, tangents):
  x, = primals
  t, = tangents
  m, e = _frexp(x)
  mdot = t * jnp.exp2(-e.astype(t.dtype))
  return (m, e), (mdot, jnp.zeros_like(e))

def ldexp(x1, x2):
  x1 = jnp.asarray(x1)
  x2 = jnp.asarray(x2)
  if _isfloat(x2):
    raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
  x1 = _inexact(x1)
  x2 = x2.astype(x1.dtype)
  m, e = frexp(x1)
  e = (e.astype(x2.dtype) + x2).astype(x1.dtype)
  m = jnp.where(e > 0, m * 2, m)
  e = jnp.where(e > 0, e - 1, e)
  x = m * (2 ** e.astype(m.dtype))
  return jnp.where(jnp.isinf(x1) | (x1 == 0), x1, x)

def _gcd_cond_fn(xs):
  x1, x2 = xs
  return jnp.any(x2 != 0)

def _gcd_body_fn(xs):
  x1, x2 = xs
  x1, x2 = (jnp.where(x2 != 0, x2, x1), jnp.where(x2 != 0, lax.rem(x1, jnp.where(x2 != 0, x2, 1)), jnp.zeros_like(x2)))
  return (jnp.where(x1 < x2, x2, x1), jnp.where(x1 < x2, x1, x2))

def gcd(x1, x2):
  x1, x2 = _promote(x1, x2)
  if not _isint(x1):
    raise ValueError("Arguments to jax.numpy.gcd must be integers.")
  x1, x2 = broadcast_arrays(x1, x2)
  g, _ = lax.while_loop(_gcd_cond_fn, _gcd_body_fn, (jnp.abs(x1), jnp.abs(x2)))
  return g

def lcm(x1, x2):
  x1, x2 = _promote(x1, x2)
  x1, x2 = jnp.abs(x1), jnp.abs(x2)
  if not _isint(x1):
    raise ValueError("Arguments to jax.numpy.lcm must be integers.")
  d = gcd(x1, x2)
  return jnp.where(d == 0, jnp.zeros_like(d), jnp.multiply(x1, jnp.floor_divide(x2, jnp.where(d == 0, 1, d))))

def iterable(y):
  try:
    iter(y)
  except TypeError:
    return False
  return True

def nextafter(x1, x2):
  x1, x2 = _promote_inexact(x1, x2)
  x1, x2 = broadcast_arrays(x1, x2)
  # XLA's NextAfter on the float32 bit patterns
  xb = lax.bitcast_convert_type(x1, jnp.int32)
  yb = lax.bitcast_convert_type(x2, jnp.int32)
  sign_mask = jnp.int32(-2147483648)
  abs_x = xb & 2147483647
  abs_y = yb & 2147483647
  nan = jnp.isnan(x1) | jnp.isnan(x2)
  x_zero = abs_x == 0
  y_zero = abs_y == 0
  from_zero = (yb & sign_mask) | 1
  toward_zero = (abs_x > abs_y) | ((xb & sign_mask) != (yb & sign_mask))
  stepped = jnp.where(toward_zero, xb - 1, xb + 1)
  result = jnp.where(x_zero, jnp.where(y_zero, yb, from_zero), stepped)
  result = jnp.where(abs_x == abs_y, jnp.where(x_zero & y_zero, yb, jnp.where(xb == yb, yb, stepped)), result)
  out = lax.bitcast_convert_type(result, jnp.float32)
  return jnp.where(nan, jnp.nan, out)

def spacing(x):
  arr = _inexact(x)
  inf = jnp.full_like(arr, jnp.inf)
  result = nextafter(arr, copysign(inf, arr)) - arr
  return jnp.where(result == 0, copysign(1.401298464324817e-45, arr), result)

def array_equiv(a1, a2):
  a1 = jnp.asarray(a1)
  a2 = jnp.asarray(a2)
  return (a1 == a2).all()

def array_str(a, max_line_width=None, precision=None, suppress_small=None):
  if max_line_width is not None or precision is not None or suppress_small is not None:
    raise NotImplementedError("jaxts: jnp.array_str supports NumPy's default formatting only")
  return str(np.asarray(a))

def fromstring(string, dtype=float, count=-1, *, sep):
  if sep == '':
    raise NotImplementedError("jaxts: jnp.fromstring reads text only (sep must not be empty; binary mode is deprecated in NumPy)")
  items = [t for t in string.split(sep if sep.strip() else None) if t.strip()]
  if count >= 0:
    items = items[:count]
  conv = float if jnp.issubdtype(dtype, jnp.inexact) else int
  return jnp.array([conv(t) for t in items], dtype=dtype)

# ---- creation and windows

def _window(M, name):
  if not isinstance(M, int):
    raise TypeError(f"M argument of jnp.{name} must be an integer")
  return M

def blackman(M):
  M = _window(M, 'blackman')
  if M <= 1:
    return lax.full((M,), 1, jnp.float32)
  n = lax.iota(jnp.float32, M)
  return 0.42 - 0.5 * jnp.cos(2 * math.pi * n / (M - 1)) + 0.08 * jnp.cos(4 * math.pi * n / (M - 1))

def bartlett(M):
  M = _window(M, 'bartlett')
  if M <= 1:
    return lax.full((M,), 1, jnp.float32)
  n = lax.iota(jnp.float32, M)
  return 1 - jnp.abs(2 * n + 1 - M) / (M - 1)

def hamming(M):
  M = _window(M, 'hamming')
  if M <= 1:
    return lax.full((M,), 1, jnp.float32)
  n = lax.iota(jnp.float32, M)
  return 0.54 - 0.46 * jnp.cos(2 * math.pi * n / (M - 1))

def hanning(M):
  M = _window(M, 'hanning')
  if M <= 1:
    return lax.full((M,), 1, jnp.float32)
  n = lax.iota(jnp.float32, M)
  return 0.5 * (1 - jnp.cos(2 * math.pi * n / (M - 1)))

def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
  lin = jnp.linspace(start, stop, num, endpoint=endpoint, axis=axis)
  out = jnp.power(jnp.asarray(base, jnp.float32), lin)
  return out if dtype is None else out.astype(dtype)

def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
  start = _inexact(start)
  stop = _inexact(stop)
  sign = jnp.sign(start)
  res = sign * logspace(jnp.log10(start / sign), jnp.log10(stop / sign), num, endpoint=endpoint, base=10.0, axis=axis)
  return res if dtype is None else res.astype(dtype)

def indices(dimensions, dtype=None, sparse=False):
  dtype = jnp.int32 if dtype is None else dtype
  dimensions = tuple(dimensions)
  N = len(dimensions)
  output = []
  s = dimensions
  for i, dim in enumerate(dimensions):
    idx = lax.iota(dtype, dim)
    if sparse:
      s = (1,) * i + (dim,) + (1,) * (N - i - 1)
    output.append(lax.broadcast_in_dim(idx, s, (i,)))
  if sparse:
    return tuple(output)
  return jnp.stack(output, 0) if output else jnp.array([], dtype=dtype)

def fromfunction(function, shape, *, dtype=float, **kwargs):
  shape = _index_tuple(shape)
  n = len(shape)
  def wrap(f, i):
    if i == n:
      return f
    return wrap(jax.vmap(f, in_axes=tuple(0 if i == j else None for j in range(n))[::-1]), i + 1)
  return wrap(function, 0)(*(jnp.arange(s, dtype=dtype) for s in shape), **kwargs)

def vander(x, N=None, increasing=False):
  x = jnp.asarray(x)
  if x.ndim != 1:
    raise ValueError("x must be a one-dimensional array")
  N = x.shape[0] if N is None else N
  if N < 0:
    raise ValueError("N must be nonnegative")
  iota = lax.iota(x.dtype, N)
  if not increasing:
    iota = lax.sub(jnp.asarray(N - 1, x.dtype), iota)
  return jnp.power(x[..., None], jnp.expand_dims(iota, tuple(range(x.ndim))))

def ix_(*args):
  n = len(args)
  output = []
  for i, a in enumerate(args):
    a = jnp.asarray(a)
    if a.ndim != 1:
      raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}")
    if a.dtype == jnp.bool_:
      raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not supported by jaxts (their shape depends on the values)")
    shape = [1] * n
    shape[i] = a.shape[0]
    if a.size == 0:
      output.append(lax.full(shape, 0, jnp.int32))
    else:
      output.append(lax.broadcast_in_dim(a, shape, (i,)))
  return tuple(output)

# ---- indices

def nonzero(a, *, size=None, fill_value=None):
  arr = jnp.asarray(a)
  if arr.ndim == 0:
    raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.")
  mask = arr if arr.dtype == jnp.bool_ else (arr != 0)
  if size is None:
    # inside a transformation the count is not concrete: JAX's ConcretizationTypeError
    int(mask.sum())
    raise NotImplementedError("jaxts: jnp.nonzero without size= has a shape that depends on the values; pass size= (the size argument of jnp.nonzero must be statically specified to use jnp.nonzero within JAX transformations)")
  calculated_size = size
  if arr.size == 0 or calculated_size == 0:
    return tuple(jnp.zeros(calculated_size, int) for dim in arr.shape)
  flat_indices = jnp.cumsum(jnp.bincount(jnp.cumsum(mask), length=calculated_size))
  strides = []
  acc = 1
  for d in reversed(arr.shape):
    strides.insert(0, acc)
    acc *= d
  out = tuple((flat_indices // stride) % n for stride, n in zip(strides, arr.shape))
  if fill_value is not None:
    fill_value_tup = fill_value if isinstance(fill_value, tuple) else arr.ndim * (fill_value,)
    if any(jnp.shape(val) != () for val in fill_value_tup):
      raise ValueError(f"fill_value must be a scalar or a tuple of length {arr.ndim}; got {fill_value}")
    fill_mask = jnp.arange(calculated_size) >= mask.sum()
    out = tuple(jnp.where(fill_mask, fval, entry) for fval, entry in zip(fill_value_tup, out))
  return out

def flatnonzero(a, *, size=None, fill_value=None):
  return nonzero(jnp.ravel(a), size=size, fill_value=fill_value)[0]

def argwhere(a, *, size=None, fill_value=None):
  a = jnp.asarray(a)
  result = jnp.transpose(jnp.vstack(nonzero(jnp.atleast_1d(a), size=size, fill_value=fill_value)))
  if a.ndim == 0:
    return result[:0].reshape(result.shape[0], 0)
  return result.reshape(result.shape[0], a.ndim)

def _where1(condition, size=None, fill_value=None):
  return nonzero(condition, size=size, fill_value=fill_value)

def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
  condition_arr = jnp.asarray(condition).astype(bool)
  arr = jnp.asarray(a)
  if condition_arr.ndim != 1:
    raise ValueError("condition must be a 1D array")
  if axis is None:
    axis = 0
    arr = jnp.ravel(arr)
  else:
    arr = jnp.moveaxis(arr, axis, 0)
  condition_arr = condition_arr[:arr.shape[0]]
  arr = arr[:condition_arr.shape[0]]
  if size is None:
    int(condition_arr.sum())
    raise NotImplementedError("jaxts: jnp.compress without size= has a shape that depends on the values; pass size= (the size argument of jnp.compress must be specified in order to use jnp.compress within JAX transformations)")
  if not 0 <= size <= arr.shape[0]:
    raise ValueError(f"size must be positive and not greater than the size of the array axis; got size={size} for a.shape[axis]={arr.shape[0]}")
  mask = jnp.expand_dims(condition_arr, tuple(range(1, arr.ndim)))
  arr = jnp.where(mask, arr, jnp.array(fill_value, dtype=arr.dtype))
  result = arr[jnp.argsort(condition_arr, stable=True, descending=True)][:size]
  return jnp.moveaxis(result, 0, axis)

def extract(condition, arr, *, size=None, fill_value=0):
  return compress(jnp.ravel(condition), jnp.ravel(arr), size=size, fill_value=fill_value)

def unravel_index(indices, shape):
  indices_arr = jnp.asarray(indices)
  shape = list(_index_tuple(shape))
  out_indices = [0] * len(shape)
  for i, s in reversed(list(enumerate(shape))):
    indices_arr, out_indices[i] = jnp.divmod(indices_arr, s)
  oob_pos = indices_arr > 0
  oob_neg = indices_arr < -1
  return tuple(jnp.where(oob_pos, s - 1, jnp.where(oob_neg, 0, i)) for s, i in zip(shape, out_indices))

def ravel_multi_index(multi_index, dims, mode='raise', order='C'):
  dims = tuple(dims)
  if len(multi_index) != len(dims):
    raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
  arrs = [jnp.asarray(i) for i in multi_index]
  for i in arrs:
    if not _isint(i):
      raise TypeError("only int indices permitted")
  if mode == 'raise':
    raise NotImplementedError("jaxts: jnp.ravel_multi_index with mode='raise' checks the values at trace time; use mode='wrap' or mode='clip' (the error occurred because ravel_multi_index was jit-compiled with mode='raise')")
  elif mode == 'clip':
    arrs = [jnp.clip(i, 0, d - 1) for i, d in zip(arrs, dims)]
  elif mode == 'wrap':
    arrs = [i % d for i, d in zip(arrs, dims)]
  elif mode != 'ignore':
    raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
  if order == 'F':
    strides = [math.prod(dims[:k]) for k in range(len(dims))]
  elif order == 'C':
    strides = [math.prod(dims[k + 1:]) for k in range(len(dims))]
  else:
    raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
  result = jnp.array(0, dtype=jnp.int32)
  for i, s in zip(arrs, strides):
    result = result + i.astype(jnp.int32) * int(s)
  return result

def _triu_size(n, m, k):
  if k < 0:
    return n * m - _triu_size(m, n, (1 - k))
  elif k >= m:
    return 0
  else:
    mk = min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)

def triu_indices(n, k=0, m=None):
  m = n if m is None else m
  i, j = nonzero(jnp.triu(jnp.ones((n, m)), k=k), size=_triu_size(n, m, k))
  return i, j

def tril_indices(n, k=0, m=None):
  m = n if m is None else m
  i, j = nonzero(jnp.tril(jnp.ones((n, m)), k=k), size=_triu_size(m, n, -k))
  return i, j

def triu_indices_from(arr, k=0):
  shape = jnp.shape(arr)
  if len(shape) != 2:
    raise ValueError("Only 2-D inputs are accepted")
  return triu_indices(shape[0], k=k, m=shape[1])

def tril_indices_from(arr, k=0):
  shape = jnp.shape(arr)
  if len(shape) != 2:
    raise ValueError("Only 2-D inputs are accepted")
  return tril_indices(shape[0], k=k, m=shape[1])

def mask_indices(n, mask_func, k=0, *, size=None):
  if size is None:
    raise NotImplementedError("jaxts: jnp.mask_indices without size= has a shape that depends on the values; pass size=")
  i, j = nonzero(mask_func(jnp.ones((n, n)), k), size=size)
  return (i, j)

def diag_indices(n, ndim=2):
  if n < 0:
    raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
  if ndim < 0:
    raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
  return (lax.iota(jnp.int32, n),) * ndim

def diag_indices_from(arr):
  arr = jnp.asarray(arr)
  nd = arr.ndim
  if not arr.ndim >= 2:
    raise ValueError("input array must be at least 2-d")
  s = arr.shape
  if any(d != s[0] for d in s):
    raise ValueError("All dimensions of input must be of equal length")
  return diag_indices(s[0], ndim=nd)

def diagflat(v, k=0):
  v_ravel = jnp.ravel(v)
  v_length = v_ravel.shape[0]
  adj_length = v_length + abs(k)
  res = jnp.zeros(adj_length * adj_length, dtype=v_ravel.dtype)
  i = jnp.arange(0, adj_length - abs(k))
  if k >= 0:
    fi = i + k + i * adj_length
  else:
    fi = i + (i - k) * adj_length
  res = res.at[fi].set(v_ravel)
  return res.reshape(adj_length, adj_length)

def fill_diagonal(a, val, wrap=False, *, inplace=True):
  if inplace:
    raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
  if wrap:
    raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
  a = jnp.asarray(a)
  val = jnp.asarray(val)
  if a.ndim < 2:
    raise ValueError("array must be at least 2-d")
  if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
    raise ValueError("All dimensions of input must be of equal length")
  n = min(a.shape)
  idx = diag_indices(n, a.ndim)
  if val.ndim == 0:
    return a.at[idx].set(val)
  v = val.ravel()
  return a.at[idx].set(jnp.tile(v, -(-n // v.shape[0]))[:n])

def put(a, ind, v, mode=None, *, inplace=True):
  if inplace:
    raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to instead return an updated array.")
  arr = jnp.asarray(a)
  ind_arr = jnp.ravel(jnp.asarray(ind))
  v_arr = jnp.ravel(jnp.asarray(v))
  if not arr.size or not ind_arr.size or not v_arr.size:
    return arr
  v_arr = jnp.broadcast_to(jnp.tile(v_arr, -(-ind_arr.size // v_arr.size)) if v_arr.size < ind_arr.size else v_arr[:ind_arr.size], ind_arr.shape)
  if mode is None:
    scatter_mode = "drop"
  elif mode == "clip":
    ind_arr = jnp.clip(ind_arr, 0, arr.size - 1)
    scatter_mode = "promise_in_bounds"
  elif mode == "wrap":
    ind_arr = ind_arr % arr.size
    scatter_mode = "promise_in_bounds"
  elif mode == "raise":
    raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
  else:
    raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
  return arr.at[jnp.unravel_index(ind_arr, arr.shape)].set(v_arr, mode=scatter_mode)

def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
  if inplace:
    raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to instead return an updated array.")
  a = jnp.asarray(arr)
  idx = jnp.asarray(indices)
  if axis is None:
    a = a.ravel()
    axis = 0
    idx = idx.ravel()
  axis = _canon(axis, a.ndim)
  if idx.ndim != a.ndim:
    raise ValueError("indices and arr must have the same number of dimensions; " + f"{idx.ndim} vs. {a.ndim}")
  shape = broadcast_shapes(tuple(d if i != axis else 1 for i, d in enumerate(a.shape)), tuple(d if i != axis else 1 for i, d in enumerate(idx.shape)))
  full = tuple(shape[i] if i != axis else idx.shape[axis] for i in range(a.ndim))
  idx = jnp.broadcast_to(idx, full)
  idx = jnp.where(idx < 0, idx + a.shape[axis], idx)
  index = tuple(idx if i == axis else lax.broadcasted_iota(jnp.int32, full, i) for i in range(a.ndim))
  return a.at[index].set(jnp.broadcast_to(jnp.asarray(values, a.dtype), full), mode=mode)

def place(arr, mask, vals, *, inplace=True):
  if inplace:
    raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are immutable. Pass inplace=False to instead return an updated array.")
  raise NotImplementedError("jaxts: jnp.place has a shape that depends on the values of mask")

def delete(arr, obj, axis=None, *, assume_unique_indices=False):
  a = jnp.asarray(arr)
  if axis is None:
    a = a.ravel()
    axis = 0
  axis = _canon(axis, a.ndim)
  n = a.shape[axis]
  if isinstance(obj, int):
    obj = _canon(obj, n)
    return jnp.concatenate([lax.slice_in_dim(a, 0, obj, axis=axis), lax.slice_in_dim(a, obj + 1, n, axis=axis)], axis=axis)
  if isinstance(obj, (list, tuple)):
    raise TypeError(f"delete requires ndarray or scalar arguments, got {type(obj)} at position 1.")
  o = jnp.asarray(obj)
  if o.dtype == jnp.bool_:
    raise NotImplementedError("jaxts: jnp.delete with a boolean mask has a shape that depends on the values")
  if not _isint(o):
    raise ValueError(f"np.delete(arr, obj): got obj.dtype={o.dtype}; must be integer or bool.")
  if not assume_unique_indices:
    raise NotImplementedError("jaxts: jnp.delete with an array of indices needs assume_unique_indices=True (the indices are not known at compile time)")
  obj_array = o.ravel()
  obj_array = jnp.clip(jnp.where(obj_array < 0, obj_array + n, obj_array), 0, n)
  obj_array = jnp.sort(obj_array)
  obj_array = obj_array - jnp.arange(obj_array.shape[0], dtype=obj_array.dtype)
  i = jnp.arange(n - obj_array.size, dtype=obj_array.dtype)
  i = i + (i[None, :] >= obj_array[:, None]).sum(0, dtype=i.dtype)
  return jnp.take(a, i, axis=axis)

def insert(arr, obj, values, axis=None):
  a = jnp.asarray(arr)
  values_arr = jnp.asarray(values)
  if axis is None:
    a = jnp.ravel(a)
    axis = 0
  axis = _canon(axis, a.ndim)
  indices = jnp.asarray(obj)
  if indices.ndim > 1:
    raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}")
  if not _isint(indices):
    if indices.size == 0:
      indices = indices.astype(int)
    else:
      raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
  values_arr = values_arr.astype(a.dtype)
  if values_arr.ndim < a.ndim:
    values_arr = values_arr.reshape((1,) * (a.ndim - values_arr.ndim) + values_arr.shape)
  if indices.size == 1:
    index = jnp.ravel(indices)[0]
    if indices.ndim == 0:
      values_arr = jnp.moveaxis(values_arr, 0, axis)
    indices = jnp.full(values_arr.shape[axis], index)
  n_input = a.shape[axis]
  n_insert = broadcast_shapes(indices.shape, (values_arr.shape[axis],))[0]
  out_shape = list(a.shape)
  out_shape[axis] += n_insert
  out = jnp.zeros(tuple(out_shape), a.dtype)
  indices = jnp.where(indices < 0, indices + n_input, indices)
  indices = jnp.clip(indices, 0, n_input)
  values_ind = indices.at[jnp.argsort(indices)].add(jnp.arange(n_insert, dtype=indices.dtype))
  arr_mask = jnp.ones(n_input + n_insert, dtype=bool).at[values_ind].set(False)
  arr_ind = nonzero(arr_mask, size=n_input)[0]
  vshape = list(out_shape)
  vshape[axis] = n_insert
  out = jnp.moveaxis(out, axis, 0)
  out = out.at[values_ind].set(jnp.moveaxis(jnp.broadcast_to(values_arr, tuple(vshape)), axis, 0))
  out = out.at[arr_ind].set(jnp.moveaxis(a, axis, 0))
  return jnp.moveaxis(out, 0, axis)

def choose(a, choices, out=None, mode='raise'):
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
  a = jnp.asarray(a)
  choices = [jnp.asarray(c) for c in choices]
  if not _isint(a):
    raise ValueError("\`a\` array must be integer typed")
  N = len(choices)
  if mode == 'raise':
    raise NotImplementedError("jaxts: jnp.choose with mode='raise' checks the values at trace time; use mode='wrap' or mode='clip' (the error occurred because jnp.choose was jit-compiled with mode='raise')")
  elif mode == 'wrap':
    arr = a % N
  elif mode == 'clip':
    arr = jnp.clip(a, 0, N - 1)
  else:
    raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
  arr, *choices = broadcast_arrays(arr, *choices)
  return jnp.array(choices)[(arr,) + indices(arr.shape, sparse=True)]

def piecewise(x, condlist, funclist, *args, **kw):
  x_arr = jnp.asarray(x)
  nc, nf = len(condlist), len(funclist)
  if nf == nc + 1:
    funclist = funclist[-1:] + funclist[:-1]
  elif nf == nc:
    funclist = [0] + list(funclist)
  else:
    raise ValueError(f"with {nc} condition(s), either {nc} or {nc+1} functions are expected; got {nf}")
  condlist = jnp.asarray(condlist, dtype=bool)
  if condlist.ndim == x_arr.ndim:
    condlist = condlist[None]
  indices = jnp.argmax(jnp.cumsum(jnp.concatenate([jnp.zeros_like(condlist[:1]), condlist], 0), 0), 0)
  branches = [(lambda xx, f=f: f(xx, *args, **kw)) if callable(f) else (lambda xx, f=f: jnp.full(xx.shape, f, xx.dtype)) for f in funclist]
  return jax.vmap(lambda i, xx: lax.switch(i, branches, xx))(indices.ravel(), x_arr.ravel()).reshape(x_arr.shape)

# ---- differences, histograms

def ediff1d(ary, to_end=None, to_begin=None):
  arr = jnp.ravel(ary)
  result = lax.sub(arr[1:], arr[:-1])
  if to_begin is not None:
    result = jnp.concatenate((jnp.ravel(jnp.asarray(to_begin).astype(arr.dtype)), result))
  if to_end is not None:
    result = jnp.concatenate((result, jnp.ravel(jnp.asarray(to_end).astype(arr.dtype))))
  return result

def gradient(f, *varargs, axis=None, edge_order=None):
  if edge_order is not None:
    raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
  a, *spacing = _promote_inexact(f, *varargs)
  def sliced(x, start, stop, ax):
    return lax.slice_in_dim(x, start, stop, axis=ax)
  def along(a, h, ax):
    n = a.shape[ax]
    upper_edge = sliced(a, 1, 2, ax) - sliced(a, 0, 1, ax)
    lower_edge = sliced(a, n - 1, n, ax) - sliced(a, n - 2, n - 1, ax)
    if h.ndim == 0:
      inner = (sliced(a, 2, n, ax) - sliced(a, 0, n - 2, ax)) * 0.5 / h
      lower_edge = lower_edge / h
      upper_edge = upper_edge / h
    elif h.ndim == 1:
      if h.shape[0] != n:
        raise ValueError("Spacing arrays must have the same length as the dimension along which the gradient is calculated.")
      h_shape = [1] * a.ndim
      h_shape[ax] = h.shape[0]
      h = h.reshape(h_shape)
      upper_edge = upper_edge / (sliced(h, 1, 2, ax) - sliced(h, 0, 1, ax))
      lower_edge = lower_edge / (sliced(h, n - 1, n, ax) - sliced(h, n - 2, n - 1, ax))
      dx1 = sliced(h, 1, n - 1, ax) - sliced(h, 0, n - 2, ax)
      dx2 = sliced(h, 2, n, ax) - sliced(h, 1, n - 1, ax)
      ca = -(dx2) / (dx1 * (dx1 + dx2))
      cb = (dx2 - dx1) / (dx1 * dx2)
      cc = dx1 / (dx2 * (dx1 + dx2))
      inner = ca * sliced(a, 0, n - 2, ax) + cb * sliced(a, 1, n - 1, ax) + cc * sliced(a, 2, n, ax)
    else:
      raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return jnp.concatenate((upper_edge, inner, lower_edge), axis=ax)
  if axis is None:
    axis_tuple = tuple(range(a.ndim))
  else:
    axis_tuple = tuple(_canon(i, a.ndim) for i in _index_tuple(axis))
  if len(axis_tuple) == 0:
    return []
  if min(s for i, s in enumerate(a.shape) if i in axis_tuple) < 2:
    raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 elements are required.")
  if len(spacing) == 0:
    dx = [jnp.asarray(1.0)] * len(axis_tuple)
  elif len(spacing) == 1:
    dx = list(spacing) * len(axis_tuple)
  elif len(spacing) == len(axis_tuple):
    dx = list(spacing)
  else:
    raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
  a_grad = [along(a, h, ax) for ax, h in zip(axis_tuple, dx)]
  return a_grad[0] if len(axis_tuple) == 1 else a_grad

def unwrap(p, discont=None, axis=-1, period=2 * math.pi):
  p = jnp.asarray(p)
  p, period = _promote(p, period)
  if p.shape[axis] == 0:
    return p
  if discont is None:
    discont = period / 2
  if _isint(p):
    interval = period // 2
  else:
    interval = period / 2
  dd = jnp.diff(p, axis=axis)
  ddmod = jnp.mod(dd + interval, period) - interval
  ddmod = jnp.where((ddmod == -interval) & (dd > 0), interval, ddmod)
  ph_correct = jnp.where(jnp.abs(dd) < discont, 0, ddmod - dd)
  ax = _canon(axis, p.ndim)
  n = p.shape[ax]
  up = jnp.concatenate((lax.slice_in_dim(p, 0, 1, axis=ax), lax.slice_in_dim(p, 1, n, axis=ax) + jnp.cumsum(ph_correct, axis=ax)), axis=ax)
  return up

def digitize(x, bins, right=False, *, method=None):
  x = jnp.asarray(x)
  bins_arr = jnp.asarray(bins)
  if bins_arr.ndim != 1:
    raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
  if bins_arr.shape[0] == 0:
    return jnp.zeros_like(x, dtype=jnp.int32)
  side = 'right' if not right else 'left'
  return jnp.where(bins_arr[-1] >= bins_arr[0], jnp.searchsorted(bins_arr, x, side=side), bins_arr.shape[0] - jnp.searchsorted(bins_arr[::-1], x, side=side))

def histogram_bin_edges(a, bins=10, range=None, weights=None):
  if isinstance(bins, str):
    raise NotImplementedError("string values for \`bins\` not implemented.")
  arr = _inexact(a)
  if jnp.ndim(bins) == 1:
    return jnp.asarray(bins, dtype=jnp.float32)
  if range is None:
    range = [arr.min(), arr.max()]
  range = jnp.asarray(range, dtype=jnp.float32)
  if jnp.shape(range) != (2,):
    raise ValueError(f"\`range\` must be either None or a sequence of scalars, got {range}")
  range = (jnp.where(jnp.ptp(range) == 0, range[0] - 0.5, range[0]), jnp.where(jnp.ptp(range) == 0, range[1] + 0.5, range[1]))
  return jnp.linspace(range[0], range[1], bins + 1, dtype=jnp.float32)

def histogram(a, bins=10, range=None, weights=None, density=None):
  if weights is None:
    a = _inexact(a)
    weights = jnp.ones_like(a)
  else:
    if jnp.shape(a) != jnp.shape(weights):
      raise ValueError("weights should have the same shape as a.")
    a, weights = _promote_inexact(a, weights)
  bin_edges = histogram_bin_edges(a, bins, range, weights)
  bin_idx = jnp.searchsorted(bin_edges, a, side='right')
  bin_idx = jnp.where(a == bin_edges[-1], bin_edges.shape[0] - 1, bin_idx)
  counts = jnp.zeros(bin_edges.shape[0], weights.dtype).at[bin_idx].add(weights)[1:]
  if density:
    bin_widths = jnp.diff(bin_edges)
    counts = counts / bin_widths / counts.sum()
  return counts, bin_edges

def histogramdd(sample, bins=10, range=None, weights=None, density=None):
  sample = _inexact(sample)
  if weights is not None:
    weights = _inexact(weights)
  N, D = sample.shape
  if weights is not None and weights.shape != (N,):
    raise ValueError("should have one weight for each sample.")
  if isinstance(bins, int) or jnp.ndim(bins) == 0:
    bins = D * [bins]
  bin_idx_by_dim = []
  bin_edges_by_dim = []
  for i in builtin_range(D):
    rg = None if range is None else range[i]
    bin_edges = histogram_bin_edges(sample[:, i], bins[i], rg, weights)
    bin_idx = jnp.searchsorted(bin_edges, sample[:, i], side='right')
    bin_idx = jnp.where(sample[:, i] == bin_edges[-1], bin_idx - 1, bin_idx)
    bin_idx_by_dim.append(bin_idx)
    bin_edges_by_dim.append(bin_edges)
  nbins = tuple(e.shape[0] + 1 for e in bin_edges_by_dim)
  dedges = [jnp.diff(e) for e in bin_edges_by_dim]
  xy = ravel_multi_index(tuple(bin_idx_by_dim), nbins, mode='clip')
  hist = jnp.bincount(xy, weights, length=math.prod(nbins))
  hist = jnp.reshape(hist, nbins)
  for i in builtin_range(D):
    hist = lax.slice_in_dim(hist, 1, nbins[i] - 1, axis=i)
  if density:
    hist = hist / jnp.sum(hist)
    for norm in builtin_range(D):
      shape = [1] * D
      shape[norm] = nbins[norm] - 2
      hist = hist / dedges[norm].reshape(shape)
  return hist, bin_edges_by_dim

builtin_range = range

def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
  x = jnp.asarray(x)
  y = jnp.asarray(y)
  try:
    N = len(bins)
  except TypeError:
    N = 1
  if N != 1 and N != 2:
    x_edges = y_edges = jnp.asarray(bins)
    bins = [x_edges, y_edges]
  sample = jnp.transpose(jnp.array([x, y]))
  hist, edges = histogramdd(sample, bins, range, weights, density)
  return hist, edges[0], edges[1]

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
  if m is not None and jnp.ndim(m) > 2:
    raise ValueError("m has more than 2 dimensions")
  X = jnp.atleast_2d(_inexact(m))
  if not rowvar and X.shape[0] != 1:
    X = X.T
  if X.shape[0] == 0:
    return jnp.array([]).reshape(0, 0)
  if y is not None:
    y_arr = jnp.atleast_2d(_inexact(y))
    if not rowvar and y_arr.shape[0] != 1:
      y_arr = y_arr.T
    X = jnp.concatenate((X, y_arr), axis=0)
  if ddof is None:
    ddof = 1 if bias == 0 else 0
  w = None
  if fweights is not None:
    fw = jnp.asarray(fweights)
    w = fw.astype(jnp.float32)
  if aweights is not None:
    aw = _inexact(aweights)
    w = aw if w is None else w * aw
  if w is None:
    f = X.shape[1] - ddof
    avg = jnp.mean(X, axis=1)
    X = X - avg[:, None]
    X_T = X.T
    return jnp.squeeze(jnp.matmul(X, X_T) / f)
  avg = jnp.average(X, axis=1, weights=w)
  w_sum = jnp.sum(w)
  if ddof == 0:
    f = w_sum
  elif aweights is None:
    f = w_sum - ddof
  else:
    f = w_sum - ddof * jnp.sum(w * aw) / w_sum
  X = X - avg[:, None]
  X_T = (X * w).T
  return jnp.squeeze(jnp.matmul(X, X_T) / f)

def corrcoef(x, y=None, rowvar=True):
  c = cov(x, y, rowvar)
  if len(jnp.shape(c)) == 0:
    return jnp.divide(c, c)
  d = jnp.diag(c)
  stddev = jnp.sqrt(d)
  c = c / stddev[:, None] / stddev[None, :]
  return c

def interp(x, xp, fp, left=None, right=None, period=None):
  x, xp, fp = _promote_inexact(x, xp, fp)
  if xp.ndim != 1 or fp.ndim != 1:
    raise ValueError("xp and fp must be one-dimensional")
  if xp.shape[0] != fp.shape[0]:
    raise ValueError("xp and fp must have the same length")
  if period is not None:
    if left is not None or right is not None:
      raise ValueError("left and right must be None when period is specified")
    period = jnp.abs(jnp.asarray(period, jnp.float32))
    x = x % period
    xp = xp % period
    i = jnp.argsort(xp)
    xp = xp[i]
    fp = fp[i]
    xp = jnp.concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = jnp.concatenate([fp[-1:], fp, fp[:1]])
  i = jnp.clip(jnp.searchsorted(xp, x, side='right'), 1, xp.shape[0] - 1)
  df = fp[i] - fp[i - 1]
  dx = xp[i] - xp[i - 1]
  delta = x - xp[i - 1]
  epsilon = 1.1920928955078125e-07
  dx0 = lax.abs(dx) <= epsilon
  f = jnp.where(dx0, fp[i - 1], fp[i - 1] + (delta / jnp.where(dx0, 1, dx)) * df)
  if period is None:
    f = jnp.where(x < xp[0], fp[0] if left is None else left, f)
    f = jnp.where(x > xp[-1], fp[-1] if right is None else right, f)
  return f

# ---- products

def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
  x1 = jnp.asarray(x1)
  x2 = jnp.asarray(x2)
  if x1.shape[axis] != x2.shape[axis]:
    raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with axis={axis}")
  x1 = jnp.moveaxis(x1, axis, -1)
  x2 = jnp.moveaxis(x2, axis, -1)
  return jnp.sum(x1 * x2, axis=-1)

def matvec(x1, x2, /):
  x1 = jnp.asarray(x1)
  x2 = jnp.asarray(x2)
  return jnp.matmul(x1, x2[..., None])[..., 0]

def vecmat(x1, x2, /):
  x1 = jnp.asarray(x1)
  x2 = jnp.asarray(x2)
  return jnp.matmul(x1[..., None, :], x2)[..., 0, :]

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
  arr = jnp.asarray(arr)
  num_dims = arr.ndim
  axis = _canon(axis, num_dims)
  func = lambda arr: func1d(arr, *args, **kwargs)
  for i in range(1, num_dims - axis):
    func = jax.vmap(func, in_axes=i, out_axes=-1)
  for i in range(axis):
    func = jax.vmap(func, in_axes=0, out_axes=0)
  return func(arr)

def apply_over_axes(func, a, axes):
  a = jnp.asarray(a)
  for axis in _index_tuple(axes):
    b = func(a, axis)
    a = b if b.ndim == a.ndim else jnp.expand_dims(b, axis)
  return a

def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
  if signature is not None:
    raise NotImplementedError("jaxts: jnp.vectorize with signature= is not supported")
  def wrapped(*args, **kwargs):
    excl = [i for i in range(len(args)) if i in excluded]
    idx = [i for i in range(len(args)) if i not in excluded]
    arrs = broadcast_arrays(*[args[i] for i in idx])
    def call(*xs):
      full = list(args)
      for i, x in zip(idx, xs):
        full[i] = x
      return pyfunc(*full, **kwargs)
    f = call
    nd = arrs[0].ndim if arrs else 0
    for _ in range(nd):
      f = jax.vmap(f)
    return f(*arrs)
  return wrapped

# ---- nan-aware reductions

def _nan_fill(a, value):
  a = jnp.asarray(a)
  return jnp.where(jnp.isnan(a), value, a) if _isfloat(a) else a

def nancumsum(a, axis=None, dtype=None, out=None):
  return jnp.cumsum(_nan_fill(a, 0), axis=axis, dtype=dtype)

def nancumprod(a, axis=None, dtype=None, out=None):
  return jnp.cumprod(_nan_fill(a, 1), axis=axis, dtype=dtype)

def nanargmax(a, axis=None, out=None, keepdims=None):
  a = jnp.asarray(a)
  if not _isfloat(a):
    return jnp.argmax(a, axis=axis, keepdims=keepdims)
  nan_mask = jnp.isnan(a)
  a = jnp.where(nan_mask, -jnp.inf, a)
  res = jnp.argmax(a, axis=axis, keepdims=keepdims)
  return jnp.where(jnp.all(nan_mask, axis=axis, keepdims=keepdims), -1, res)

def nanargmin(a, axis=None, out=None, keepdims=None):
  a = jnp.asarray(a)
  if not _isfloat(a):
    return jnp.argmin(a, axis=axis, keepdims=keepdims)
  nan_mask = jnp.isnan(a)
  a = jnp.where(nan_mask, jnp.inf, a)
  res = jnp.argmin(a, axis=axis, keepdims=keepdims)
  return jnp.where(jnp.all(nan_mask, axis=axis, keepdims=keepdims), -1, res)

def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
  a = _inexact(a)
  a_mean = jnp.nanmean(a, axis, keepdims=True)
  centered = jnp.where(jnp.isnan(a), 0, a - a_mean)
  centered = centered * centered
  normalizer = jnp.sum(jnp.logical_not(jnp.isnan(a)), axis=axis, keepdims=keepdims)
  normalizer = normalizer - ddof
  normalizer_mask = lax.le(normalizer, 0)
  result = jnp.sum(centered, axis, keepdims=keepdims)
  result = jnp.where(normalizer_mask, jnp.nan, result)
  divisor = jnp.where(normalizer_mask, 1, normalizer).astype(jnp.float32)
  out = lax.div(result, divisor)
  return out if dtype is None else out.astype(dtype)

def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
  return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))

def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
  if method != "linear":
    raise NotImplementedError(f"jaxts: jnp.nanquantile method={method!r} is not supported (only 'linear')")
  a = _inexact(a)
  q = _inexact(q)
  if axis is None:
    a = a.ravel()
    axis = 0
  axis = _canon(axis, a.ndim)
  a = jnp.moveaxis(a, axis, -1)
  n = a.shape[-1]
  a = jnp.sort(a, axis=-1)
  counts = jnp.sum(jnp.logical_not(jnp.isnan(a)), axis=-1).astype(jnp.float32)
  qs = q.ravel()
  outs = []
  for j in range(qs.shape[0]):
    qj = qs[j]
    pos = qj * (counts - 1)
    low = jnp.clip(jnp.floor(pos), 0, n - 1)
    high = jnp.clip(low + 1, 0, jnp.maximum(counts - 1, 0))
    hw = pos - low
    lw = 1 - hw
    li = low.astype(jnp.int32)[..., None]
    hi = high.astype(jnp.int32)[..., None]
    lv = jnp.take_along_axis(a, li, axis=-1)[..., 0]
    hv = jnp.take_along_axis(a, hi, axis=-1)[..., 0]
    r = lv * lw + hv * hw
    outs.append(jnp.where(counts == 0, jnp.nan, r))
  res = jnp.stack(outs, 0).reshape(q.shape + outs[0].shape)
  if keepdims:
    res = jnp.expand_dims(res, q.ndim + axis)
  return res

def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
  return nanquantile(a, _inexact(q) / 100, axis=axis, method=method, keepdims=keepdims)

def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
  return nanquantile(a, 0.5, axis=axis, keepdims=keepdims)

# ---- set operations

def _require_size(name, size):
  if size is None:
    raise NotImplementedError(f"jaxts: jnp.{name} without size= has a shape that depends on the values; pass size= (the size argument of jnp.{name} must be specified to use it within JAX transformations)")

def _unique_sorted_mask(ar, axis, equal_nan):
  aux = jnp.moveaxis(ar, axis, 0)
  size = aux.shape[0]
  out_shape = aux.shape[1:]
  if math.prod(out_shape) == 0:
    size = 1
    perm = jnp.zeros(1, dtype=int)
  elif aux.ndim == 1:
    perm = jnp.argsort(aux, stable=True)
  else:
    perm = jnp.lexsort(aux.reshape(size, math.prod(out_shape)).T[::-1])
  aux = aux[perm]
  if aux.size:
    if _isfloat(aux) and equal_nan:
      neq = lambda x, y: lax.ne(x, y) & ~(jnp.isnan(x) & jnp.isnan(y))
    else:
      neq = lax.ne
    mask = jnp.ones(size, dtype=bool).at[1:].set(jnp.any(neq(aux[1:], aux[:-1]), tuple(range(1, aux.ndim))))
  else:
    mask = jnp.zeros(size, dtype=bool)
  return aux, mask, perm

def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False, equal_nan=True, size=None, fill_value=None, return_true_size=False):
  axis = _canon(axis, ar.ndim)
  if ar.shape[axis] == 0 and size and fill_value is None:
    raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified")
  aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
  _require_size("unique", size)
  ind = nonzero(mask, size=size)[0]
  result = aux[ind] if aux.size else aux
  if fill_value is not None:
    fill_value = jnp.asarray(fill_value).astype(result.dtype)
    if result.shape[0]:
      valid = lax.expand_dims(jnp.arange(size) < mask.sum(), tuple(range(1, result.ndim)))
      result = jnp.where(valid, result, fill_value)
    else:
      result = jnp.full((size,) + result.shape[1:], fill_value, result.dtype)
  result = jnp.moveaxis(result, 0, axis)
  ret = (result,)
  if return_index:
    if aux.size:
      ret += (perm[ind],)
    else:
      ret += (perm,)
  if return_inverse:
    if aux.size:
      imask = jnp.cumsum(mask) - 1
      inv_idx = jnp.zeros(mask.shape, dtype=int)
      inv_idx = inv_idx.at[perm].set(imask)
    else:
      inv_idx = jnp.zeros(ar.shape[axis], dtype=int)
    ret += (inv_idx,)
  if return_counts:
    if aux.size:
      idx = nonzero(mask, size=size + 1)[0]
      idx = idx.at[1:].set(jnp.where(idx[1:], idx[1:], mask.size))
      ret += (jnp.diff(idx),)
    elif ar.shape[axis]:
      ret += (jnp.full((1,), ar.shape[axis], dtype=int),)
    else:
      ret += (jnp.zeros(0, dtype=int),)
  if return_true_size:
    ret += (mask.sum(),)
  return ret[0] if len(ret) == 1 else ret

def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True):
  arr = jnp.asarray(ar)
  if arr.ndim == 0:
    arr = arr.reshape(1)
  if axis is None:
    axis = 0
    arr = arr.ravel()
  return _unique(arr, axis, return_index, return_inverse, return_counts, equal_nan=equal_nan, size=size, fill_value=fill_value)

class _UniqueAllResult:
  def __init__(self, values, indices, inverse_indices, counts):
    self.values = values
    self.indices = indices
    self.inverse_indices = inverse_indices
    self.counts = counts
  def __iter__(self):
    return iter((self.values, self.indices, self.inverse_indices, self.counts))
  def __repr__(self):
    return f"UniqueAllResult(values={self.values!r}, indices={self.indices!r}, inverse_indices={self.inverse_indices!r}, counts={self.counts!r})"

class _UniqueCountsResult:
  def __init__(self, values, counts):
    self.values = values
    self.counts = counts
  def __iter__(self):
    return iter((self.values, self.counts))
  def __repr__(self):
    return f"UniqueCountsResult(values={self.values!r}, counts={self.counts!r})"

class _UniqueInverseResult:
  def __init__(self, values, inverse_indices):
    self.values = values
    self.inverse_indices = inverse_indices
  def __iter__(self):
    return iter((self.values, self.inverse_indices))
  def __repr__(self):
    return f"UniqueInverseResult(values={self.values!r}, inverse_indices={self.inverse_indices!r})"

def unique_all(x, /, *, size=None, fill_value=None):
  x = jnp.asarray(x)
  values, indices, inverse_indices, counts = unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
  inverse_indices = inverse_indices.reshape(x.shape)
  return _UniqueAllResult(values, indices, inverse_indices, counts)

def unique_counts(x, /, *, size=None, fill_value=None):
  values, counts = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
  return _UniqueCountsResult(values, counts)

def unique_inverse(x, /, *, size=None, fill_value=None):
  x = jnp.asarray(x)
  values, inverse_indices = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
  inverse_indices = inverse_indices.reshape(x.shape)
  return _UniqueInverseResult(values, inverse_indices)

def unique_values(x, /, *, size=None, fill_value=None):
  return unique(x, equal_nan=False, size=size, fill_value=fill_value)

def isin(element, test_elements, assume_unique=False, invert=False, *, method='auto'):
  element, test_elements = _promote(element, test_elements)
  arr1 = element.ravel()
  arr2 = test_elements.ravel()
  if arr1.size == 0 or arr2.size == 0:
    result = (jnp.ones if invert else jnp.zeros)(arr1.shape, dtype=bool)
  elif invert:
    result = (arr1[:, None] != arr2[None, :]).all(-1)
  else:
    result = (arr1[:, None] == arr2[None, :]).any(-1)
  return result.reshape(element.shape)

def _unique_mask1d(aux):
  return jnp.ones(aux.shape[0], dtype=bool).at[1:].set(aux[1:] != aux[:-1])

def _select_first(vals, mask, size, fill_value):
  result = vals[nonzero(mask, size=size)[0]]
  if fill_value is None:
    fill_value = result[0]
  return jnp.where(jnp.arange(size) < mask.sum(), result, jnp.asarray(fill_value).astype(vals.dtype))

def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  _require_size("setdiff1d", size)
  a1, a2 = _promote(jnp.ravel(ar1), jnp.ravel(ar2))
  fill_value = 0 if fill_value is None else fill_value
  if a1.size == 0:
    return jnp.full((size,), fill_value, a1.dtype)
  a1 = jnp.sort(a1)
  mask = ~isin(a1, a2)
  if not assume_unique:
    mask = mask & _unique_mask1d(a1)
  return _select_first(a1, mask, size, fill_value)

def union1d(ar1, ar2, *, size=None, fill_value=None):
  _require_size("union1d", size)
  return unique(jnp.concatenate([jnp.ravel(ar1), jnp.ravel(ar2)]), size=size, fill_value=fill_value)

def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
  _require_size("setxor1d", size)
  a1, a2 = _promote(jnp.ravel(ar1), jnp.ravel(ar2))
  a1 = jnp.sort(a1)
  a2 = jnp.sort(a2)
  m1 = ~isin(a1, a2)
  m2 = ~isin(a2, a1)
  if not assume_unique:
    m1 = m1 & _unique_mask1d(a1)
    m2 = m2 & _unique_mask1d(a2)
  vals = jnp.concatenate([a1, a2])
  mask = jnp.concatenate([m1, m2])
  order = jnp.lexsort((vals, ~mask))
  return _select_first(vals[order], mask[order], size, fill_value)

def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None, fill_value=None):
  _require_size("intersect1d", size)
  if return_indices:
    raise NotImplementedError("jaxts: jnp.intersect1d with return_indices=True is not supported")
  a1, a2 = _promote(jnp.ravel(ar1), jnp.ravel(ar2))
  a1 = jnp.sort(a1)
  mask = isin(a1, a2)
  if not assume_unique:
    mask = mask & _unique_mask1d(a1)
  return _select_first(a1, mask, size, fill_value)

# ---- polynomials

def poly(seq_of_zeros):
  seq = jnp.atleast_1d(_inexact(seq_of_zeros))
  sh = seq.shape
  if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
    raise NotImplementedError("jaxts: jnp.poly of a square matrix needs its eigenvalues (complex), which jaxts does not have")
  if seq.ndim != 1:
    raise ValueError("input must be 1d or non-empty square 2d array.")
  dt = seq.dtype
  if seq.shape[0] == 0:
    return jnp.ones((), dtype=dt)
  a = jnp.ones((1,), dtype=dt)
  for k in range(seq.shape[0]):
    a = jnp.convolve(a, jnp.array([jnp.ones((), dt), -seq[k]]), mode='full')
  return a

def polyval(p, x, *, unroll=16):
  p_arr, x_arr = _promote(p, x)
  shape = broadcast_shapes(p_arr.shape[1:], x_arr.shape)
  y = lax.full_like(x_arr, 0, shape=shape, dtype=x_arr.dtype)
  y, _ = lax.scan(lambda y, p: (y * x_arr + p, None), y, p_arr, unroll=unroll)
  return y

def polyadd(a1, a2):
  a1_arr, a2_arr = _promote(a1, a2)
  if a2_arr.shape[0] <= a1_arr.shape[0]:
    return a1_arr.at[-a2_arr.shape[0]:].add(a2_arr)
  else:
    return a2_arr.at[-a1_arr.shape[0]:].add(a1_arr)

def polysub(a1, a2):
  a1, a2 = _promote(a1, a2)
  return polyadd(a1, -a2)

def polyint(p, m=1, k=None):
  k = 0 if k is None else k
  p_arr, k_arr = _promote_inexact(p, k)
  if m < 0:
    raise ValueError("Order of integral must be positive (see polyder)")
  k_arr = jnp.atleast_1d(k_arr)
  if k_arr.shape[0] == 1:
    k_arr = jnp.full((m,), k_arr[0])
  if k_arr.shape != (m,):
    raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
  if m == 0:
    return p_arr
  grid = (jnp.arange(p_arr.shape[0] + m, dtype=p_arr.dtype)[None] - jnp.arange(m, dtype=p_arr.dtype)[:, None])
  coeff = jnp.maximum(1, grid).prod(0)[::-1]
  return jnp.true_divide(jnp.concatenate((p_arr, k_arr)), coeff)

def polyder(p, m=1):
  p_arr = _inexact(p)
  if m < 0:
    raise ValueError("Order of derivative must be positive")
  if m == 0:
    return p_arr
  coeff = (jnp.arange(m, p_arr.shape[0], dtype=p_arr.dtype)[None] - jnp.arange(m, dtype=p_arr.dtype)[:, None]).prod(0)
  return p_arr[:-m] * coeff[::-1]

def polymul(a1, a2, *, trim_leading_zeros=False):
  a1_arr, a2_arr = _promote_inexact(a1, a2)
  if trim_leading_zeros:
    raise NotImplementedError("jaxts: jnp.polymul with trim_leading_zeros=True needs the values at trace time")
  if a1_arr.shape[0] == 0:
    a1_arr = jnp.zeros(1, dtype=a2_arr.dtype)
  if a2_arr.shape[0] == 0:
    a2_arr = jnp.zeros(1, dtype=a1_arr.dtype)
  return jnp.convolve(a1_arr, a2_arr, mode='full')

def polydiv(u, v, *, trim_leading_zeros=False):
  u_arr, v_arr = _promote_inexact(u, v)
  m = u_arr.shape[0] - 1
  n = v_arr.shape[0] - 1
  scale = 1. / v_arr[0]
  q = jnp.zeros(max(m - n + 1, 1), dtype=u_arr.dtype)
  for k in range(0, m - n + 1):
    d = scale * u_arr[k]
    q = q.at[k].set(d)
    u_arr = u_arr.at[k:k + n + 1].add(-d * v_arr)
  if trim_leading_zeros:
    raise NotImplementedError("jaxts: jnp.polydiv with trim_leading_zeros=True needs the values at trace time")
  return q, u_arr

def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
  if w is not None or full or cov:
    raise NotImplementedError("jaxts: jnp.polyfit supports only x, y, deg and rcond")
  x_arr, y_arr = _promote_inexact(x, y)
  if deg < 0:
    raise ValueError("expected deg >= 0")
  if x_arr.ndim != 1:
    raise TypeError("expected 1D vector for x")
  if x_arr.size == 0:
    raise TypeError("expected non-empty vector for x")
  if y_arr.ndim < 1 or y_arr.ndim > 2:
    raise TypeError("expected 1D or 2D array for y")
  if x_arr.shape[0] != y_arr.shape[0]:
    raise TypeError("expected x and y to have same length")
  order = deg + 1
  if rcond is None:
    rcond = x_arr.shape[0] * 1.1920928955078125e-07
  lhs = vander(x_arr, order)
  rhs = y_arr
  scale = jnp.sqrt((lhs * lhs).sum(axis=0))
  lhs = lhs / scale[None, :]
  c, resids, rank, s = jnp.linalg.lstsq(lhs, rhs, rcond)
  c = (c.T / scale).T
  return c

def _linalg_tensorinv(a, ind=2):
  # jnp.linalg.tensorinv (JAX's linalg.py)
  arr = jnp.asarray(a)
  if not isinstance(ind, int):
    raise TypeError(f"'{type(ind).__name__}' object cannot be interpreted as an integer")
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer; got ind={ind}")
  contracting_shape, batch_shape = arr.shape[:ind], arr.shape[ind:]
  flatshape = (math.prod(contracting_shape), math.prod(batch_shape))
  if flatshape[0] != flatshape[1]:
    raise ValueError("tensorinv is only possible when the product of the first \`ind\` dimensions equals that of the remaining dimensions."
                     f" got arr.shape={arr.shape} with ind={ind}.")
  return jnp.linalg.inv(arr.reshape(flatshape)).reshape(*batch_shape, *contracting_shape)

def cbrt(x, /):
  x, = _promote_inexact(x)
  return lax.cbrt(x)

def bitwise_count(x, /):
  # JAX's promote_args_numeric: bools become ints; following numpy, the count of the absolute value, as uint8
  x = jnp.asarray(x)
  # (and the narrower ints are counted in int32: the same bits of their absolute values)
  if x.dtype in (jnp.bool_, jnp.int8, jnp.uint8, jnp.int16, jnp.uint16):
    x = x.astype(jnp.int32)
  return lax.population_count(jnp.abs(x)).astype('uint8')

def i0(x):
  x_arr, = _promote_inexact(x)
  if not jnp.issubdtype(x_arr.dtype, jnp.floating):
    raise ValueError(f"Unsupported input type to jax.numpy.i0: {x_arr.dtype}")
  return _i0(x_arr)

@jax.custom_jvp
def _i0(x):
  abs_x = lax.abs(x)
  return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))

@_i0.defjvp
def _i0_jvp(primals, tangents):
  primal_out, tangent_out = jax.jvp(_i0.fun, primals, tangents)
  return primal_out, jnp.where(primals[0] == 0, 0.0, tangent_out)

def kaiser(M, beta):
  M = _window(M, 'kaiser')
  if M <= 1:
    return lax.full((M,), 1, jnp.float32)
  n = lax.iota(jnp.float32, M)
  alpha = 0.5 * (M - 1)
  return i0(beta * jnp.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)

def packbits(a, axis=None, bitorder="big"):
  arr = jnp.asarray(a)
  if not (jnp.issubdtype(arr.dtype, jnp.integer) or arr.dtype == jnp.bool_):
    raise TypeError('Expected an input array of integer or boolean data type')
  if bitorder not in ['little', 'big']:
    raise ValueError("'order' must be either 'little' or 'big'")
  arr = lax.ne(arr, jnp.zeros((), arr.dtype)).astype('uint8')
  bits = jnp.arange(8, dtype='uint8')
  if bitorder == 'big':
    bits = bits[::-1]
  if axis is None:
    arr = jnp.ravel(arr)
    axis = 0
  arr = jnp.swapaxes(arr, axis, -1)
  remainder = arr.shape[-1] % 8
  if remainder:
    arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - remainder, 0)])
  arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
  bits = jnp.expand_dims(bits, tuple(range(arr.ndim - 1)))
  packed = (arr << bits).sum(-1).astype('uint8')
  return jnp.swapaxes(packed, axis, -1)

def unpackbits(a, axis=None, count=None, bitorder="big"):
  arr = jnp.asarray(a)
  if arr.dtype != jnp.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if bitorder not in ['little', 'big']:
    raise ValueError("'order' must be either 'little' or 'big'")
  bits = jnp.asarray(1) << jnp.arange(8, dtype='uint8')
  if bitorder == 'big':
    bits = bits[::-1]
  if axis is None:
    arr = jnp.ravel(arr)
    axis = 0
  arr = jnp.swapaxes(arr, axis, -1)
  unpacked = ((arr[..., None] & jnp.expand_dims(bits, tuple(range(arr.ndim)))) > 0).astype('uint8')
  unpacked = unpacked.reshape(unpacked.shape[:-2] + (-1,))
  if count is not None:
    if count > unpacked.shape[-1]:
      unpacked = jnp.pad(unpacked, [(0, 0)] * (unpacked.ndim - 1) + [(0, count - unpacked.shape[-1])])
    else:
      unpacked = unpacked[..., :count]
  return jnp.swapaxes(unpacked, axis, -1)

def _axis_concat(key, axis, ndmin, trans1d, op_name):
  # jnp.r_ / jnp.c_ (JAX's _AxisConcat.__getitem__)
  key_tup = key if isinstance(key, tuple) else (key,)
  params = [axis, ndmin, trans1d, -1]
  directive = key_tup[0]
  if isinstance(directive, str):
    key_tup = key_tup[1:]
    if directive == "r":
      params[-1] = 0
    elif directive == "c":
      params[-1] = 1
    else:
      vec = directive.split(",")
      k = len(vec)
      if k < 4:
        vec += params[k:]
      else:
        vec = vec[:3] + [params[-1]]
      try:
        params = [int(v) for v in vec]
      except ValueError:
        raise ValueError(f"could not understand directive {directive!r}")
  axis, ndmin, trans1d, matrix = params
  output = []
  for item in key_tup:
    if isinstance(item, slice):
      start = item.start or 0
      step = item.step or 1
      if isinstance(step, complex):
        newobj = jnp.linspace(start, item.stop, int(abs(step)))
      else:
        newobj = jnp.arange(start, item.stop, step)
      item_ndim = 0
    elif isinstance(item, str):
      raise ValueError("string directive must be placed at the beginning")
    else:
      newobj = jnp.asarray(item)
      item_ndim = newobj.ndim
    if newobj.ndim < ndmin:
      newobj = lax.expand_dims(newobj, tuple(range(ndmin - newobj.ndim)))
    if trans1d != -1 and ndmin - item_ndim > 0:
      shape_obj = tuple(range(ndmin))
      num_lshifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
      shape_obj = tuple(shape_obj[num_lshifts:] + shape_obj[:num_lshifts])
      newobj = jnp.transpose(newobj, shape_obj)
    output.append(newobj)
  res = jnp.concatenate(tuple(output), axis=axis)
  if matrix != -1 and res.ndim == 1:
    res = jnp.expand_dims(res, matrix)
  return res

def _linalg_tensorsolve(a, b, axes=None):
  # jnp.linalg.tensorsolve (JAX's linalg.py)
  a_arr, b_arr = jnp.asarray(a), jnp.asarray(b)
  if axes is not None:
    a_arr = jnp.moveaxis(a_arr, axes, len(axes) * (a_arr.ndim - 1,))
  out_shape = a_arr.shape[b_arr.ndim:]
  if a_arr.shape[:b_arr.ndim] != b_arr.shape:
    raise ValueError("After moving axes to end, leading shape of a must match shape of b."
                     f" got a.shape={a_arr.shape}, b.shape={b_arr.shape}")
  if b_arr.size != math.prod(out_shape):
    raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]);"
                     f" got a.shape={a_arr.shape}, b.ndim={b_arr.ndim}.")
  a_arr = a_arr.reshape(b_arr.size, math.prod(out_shape))
  return jnp.linalg.solve(a_arr, b_arr.ravel()).reshape(out_shape)
`;

const PRELUDE = pythonPrelude(JNP_PY, 'jax.numpy');

/** Every public function of the prelude (its names without a leading underscore, less the module-level helpers). */
export const PRELUDE_FUNCTIONS = PRELUDE.functions;

/** Calls prelude function `name` (loading the prelude once per compilation); its errors point at the user's call. */
export const callPrelude = (ip: Interp, name: string, c: CallArgs): PyValue => PRELUDE.call(ip, name, c);
