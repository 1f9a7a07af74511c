// jax.example_libraries (optimizers, stax): written, as JAX writes them, in
// Python (jax/example_libraries/*.py, nearly verbatim) and run by jaxts's own
// evaluator the first time a program imports them. They are compositions of
// jax.numpy / jax.random / jax.nn, so they trace, differentiate, batch and
// shard like the user's code. The one piece written here in TypeScript is the
// pytree flatten/unflatten pair the optimizers' OptimizerState packs with (a
// treedef is a static value: it rides in the state's aux data through jit).
import { CompileError } from '../common/diagnostics.js';
import { parse } from '../parser/index.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { execBlock } from './stmt.js';
import { PyModule, Scope } from './values.js';

/** jax.example_libraries.optimizers (jax/example_libraries/optimizers.py). */
const OPTIMIZERS_PY = `
import functools
from jax import lax
from functools import partial
import jax
import jax.numpy as jnp
from collections import namedtuple

_builtin_map = map
_builtin_zip = zip

def safe_map(f, *args):
  n = len(args[0])
  for i in range(1, len(args)):
    if len(args[i]) != n:
      raise ValueError(f"safe_map() argument {i + 1} is {'shorter' if len(args[i]) < n else 'longer'} than argument 1")
  return list(_builtin_map(f, *args))

def safe_zip(*args):
  lens = tuple(len(a) for a in args)
  for i in range(1, len(args)):
    if lens[i] != lens[0]:
      raise ValueError(f'safe_zip() argument {i} has length {lens[i]} but argument 0 has length {lens[0]}. All lengths: {lens}')
  return list(_builtin_zip(*args))

map = safe_map
zip = safe_zip

def unzip2(xys):
  xs = []
  ys = []
  for x, y in xys:
    xs.append(x)
    ys.append(y)
  return tuple(xs), tuple(ys)

class OptimizerState:
  # JAX's namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"]), registered as a pytree node
  _fields = ('packed_state', 'tree_def', 'subtree_defs')
  def __init__(self, packed_state, tree_def, subtree_defs):
    self.packed_state = packed_state
    self.tree_def = tree_def
    self.subtree_defs = subtree_defs
  def __iter__(self):
    return iter((self.packed_state, self.tree_def, self.subtree_defs))
  def __len__(self):
    return 3
  def __getitem__(self, i):
    return (self.packed_state, self.tree_def, self.subtree_defs)[i]
  def __repr__(self):
    return f"OptimizerState(packed_state={self.packed_state!r}, tree_def={self.tree_def!r}, subtree_defs={self.subtree_defs!r})"

jax.tree_util.register_pytree_node(
    OptimizerState,
    lambda xs: ((xs.packed_state,), (xs.tree_def, xs.subtree_defs)),
    lambda data, xs: OptimizerState(xs[0], data[0], data[1]))

Array = Any
Params = Any
State = Any
Updates = Params
Step = int
Schedule = Callable[[Step], float]
InitFn = Callable[[Any], OptimizerState]
UpdateFn = Callable[[Step, Any, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Any]

class Optimizer(NamedTuple):
  init_fn: Callable
  update_fn: Callable
  params_fn: Callable

def optimizer(opt_maker):
  def tree_opt_maker(*args, **kwargs):
    init, update, get_params = opt_maker(*args, **kwargs)
    def tree_init(x0_tree):
      x0_flat, tree = _tree_flatten(x0_tree)
      initial_states = [init(x0) for x0 in x0_flat]
      states_flat, subtrees = unzip2(map(_tree_flatten, initial_states))
      return OptimizerState(states_flat, tree, subtrees)
    def tree_update(i, grad_tree, opt_state):
      states_flat, tree, subtrees = opt_state
      grad_flat, tree2 = _tree_flatten(grad_tree)
      if len(grad_flat) != len(states_flat):
        msg = ("optimizer update function was passed a gradient tree that did "
               "not match the parameter tree structure with which it was "
               "initialized: parameter tree {} and grad tree {}.")
        raise TypeError(msg.format(tree, tree2))
      states = map(_tree_unflatten, subtrees, states_flat)
      new_states = map(partial(update, i), grad_flat, states)
      new_states_flat, subtrees2 = unzip2(map(_tree_flatten, new_states))
      return OptimizerState(new_states_flat, tree, subtrees)
    def tree_get_params(opt_state):
      states_flat, tree, subtrees = opt_state
      states = map(_tree_unflatten, subtrees, states_flat)
      params = map(get_params, states)
      return _tree_unflatten(tree, params)
    return Optimizer(tree_init, tree_update, tree_get_params)
  return tree_opt_maker

@optimizer
def sgd(step_size):
  step_size = make_schedule(step_size)
  def init(x0):
    return x0
  def update(i, g, x):
    return x - step_size(i) * g
  def get_params(x):
    return x
  return Optimizer(init, update, get_params)

@optimizer
def momentum(step_size, mass):
  step_size = make_schedule(step_size)
  def init(x0):
    v0 = jnp.zeros_like(x0)
    return x0, v0
  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    x = x - step_size(i) * velocity
    return x, velocity
  def get_params(state):
    x, _ = state
    return x
  return init, update, get_params

@optimizer
def nesterov(step_size, mass):
  step_size = make_schedule(step_size)
  def init(x0):
    v0 = jnp.zeros_like(x0)
    return x0, v0
  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    x = x - step_size(i) * (mass * velocity + g)
    return x, velocity
  def get_params(state):
    x, _ = state
    return x
  return init, update, get_params

@optimizer
def adagrad(step_size, momentum=0.9):
  step_size = make_schedule(step_size)
  def init(x0):
    g_sq = jnp.zeros_like(x0)
    m = jnp.zeros_like(x0)
    return x0, g_sq, m
  def update(i, g, state):
    x, g_sq, m = state
    g_sq += jnp.square(g)
    g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
    m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
    x = x - step_size(i) * m
    return x, g_sq, m
  def get_params(state):
    x, _, _ = state
    return x
  return init, update, get_params

@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
  step_size = make_schedule(step_size)
  def init(x0):
    avg_sq_grad = jnp.zeros_like(x0)
    return x0, avg_sq_grad
  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    x = x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x, avg_sq_grad
  def get_params(state):
    x, _ = state
    return x
  return init, update, get_params

@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
  step_size = make_schedule(step_size)
  def init(x0):
    avg_sq_grad = jnp.zeros_like(x0)
    mom = jnp.zeros_like(x0)
    return x0, avg_sq_grad, mom
  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    x = x - mom
    return x, avg_sq_grad, mom
  def get_params(state):
    x, _, _ = state
    return x
  return init, update, get_params

@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  step_size = make_schedule(step_size)
  def init(x0):
    m0 = jnp.zeros_like(x0)
    v0 = jnp.zeros_like(x0)
    return x0, m0, v0
  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m  # First  moment estimate.
    v = (1 - b2) * jnp.square(g) + b2 * v  # Second moment estimate.
    mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))  # Bias correction.
    vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
    x = x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps)
    return x, m, v
  def get_params(state):
    x, _, _ = state
    return x
  return init, update, get_params

@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
  step_size = make_schedule(step_size)
  def init(x0):
    m0 = jnp.zeros_like(x0)
    u0 = jnp.zeros_like(x0)
    return x0, m0, u0
  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m  # First  moment estimate.
    u = jnp.maximum(b2 * u, jnp.abs(g))  # Update exponentially weighted infinity norm.
    x = (x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m
         / (u + eps))
    return x, m, u
  def get_params(state):
    x, _, _ = state
    return x
  return init, update, get_params

@optimizer
def sm3(step_size, momentum=0.9):
  step_size = make_schedule(step_size)
  def splice(seq, i, x):
    lst = list(seq)
    return lst[:i] + list(x) + lst[i + 1:]
  def broadcast_into(ndim, x, axis):
    # x[tuple(splice([None] * ndim, axis, [slice(None)]))]
    return jnp.reshape(x, tuple(x.shape[0] if j == axis else 1 for j in range(ndim)))
  def init(x0):
    x_shape = x0.shape
    x0 = jnp.atleast_1d(x0)
    vs = [jnp.zeros(sz, dtype=x0.dtype) for sz in x0.shape]
    return x0, jnp.zeros_like(x0), vs, x_shape
  def update(i, g, state):
    x, m, vs, x_shape = state
    vs = [broadcast_into(g.ndim, v, i) for i, v in enumerate(vs)]
    accum = vs[0]  # functools.reduce(jnp.minimum, vs)
    for v in vs[1:]:
      accum = jnp.minimum(accum, v)
    accum = accum + jnp.square(g)
    accum_inv_sqrt = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
    m = (1. - momentum) * (g * accum_inv_sqrt) + momentum * m
    x = x - step_size(i) * m
    vs = [accum.max(tuple(splice(range(x.ndim), j, []))) for j in range(x.ndim)]
    return x, m, vs, x_shape
  def get_params(state):
    x, _, _, x_shape = state
    return x.reshape(x_shape)
  return init, update, get_params

def constant(step_size):
  def schedule(i):
    return step_size
  return schedule

def exponential_decay(step_size, decay_steps, decay_rate):
  def schedule(i):
    return step_size * decay_rate ** (i / decay_steps)
  return schedule

def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
  if staircase:
    def schedule(i):
      return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
  else:
    def schedule(i):
      return step_size / (1 + decay_rate * i / decay_steps)
  return schedule

def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
  def schedule(step_num):
    step_num = jnp.minimum(step_num, decay_steps)
    step_mult = (1 - step_num / decay_steps) ** power
    return step_mult * (step_size - final_step_size) + final_step_size
  return schedule

def piecewise_constant(boundaries, values):
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if not boundaries.shape[0] == values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")
  def schedule(i):
    # values[jnp.sum(i > boundaries)]: a scalar index, as the dynamic_slice JAX's gather becomes
    return lax.dynamic_slice(values, (jnp.sum(i > boundaries),), (1,))[0]
  return schedule

def make_schedule(scalar_or_schedule):
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  elif jnp.ndim(scalar_or_schedule) == 0:
    return constant(scalar_or_schedule)
  else:
    raise TypeError(type(scalar_or_schedule))

def l2_norm(tree):
  leaves, _ = _tree_flatten(tree)
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))

def clip_grads(grad_tree, max_norm):
  norm = l2_norm(grad_tree)
  normalize = lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm))
  return jax.tree.map(normalize, grad_tree)

class JoinPoint:
  def __init__(self, subtree):
    self.subtree = subtree
  def __iter__(self):
    yield self.subtree

def unpack_optimizer_state(opt_state):
  states_flat, tree_def, subtree_defs = opt_state
  subtrees = map(_tree_unflatten, subtree_defs, states_flat)
  sentinels = [JoinPoint(subtree) for subtree in subtrees]
  return _tree_unflatten(tree_def, sentinels)

def pack_optimizer_state(marked_pytree):
  sentinels, tree_def = _tree_flatten(marked_pytree)
  assert all(isinstance(s, JoinPoint) for s in sentinels)
  subtrees = [s.subtree for s in sentinels]
  states_flat, subtree_defs = unzip2(map(_tree_flatten, subtrees))
  return OptimizerState(states_flat, tree_def, subtree_defs)
`;

/** jax.example_libraries.stax (jax/example_libraries/stax.py). */
const STAX_PY = `
import functools
from jax import lax
from jax import random
import jax.numpy as jnp
from jax.nn import (relu, log_softmax, softmax, softplus, sigmoid, elu,
                    leaky_relu, selu, gelu, standardize)
from jax.nn.initializers import glorot_normal, normal, ones, zeros

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
  def init_fun(rng, input_shape):
    output_shape = input_shape[:-1] + (out_dim,)
    k1, k2 = random.split(rng)
    W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return output_shape, (W, b)
  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b
  return init_fun, apply_fun

def GeneralConv(dimension_numbers, out_chan, filter_shape,
                strides=None, padding='VALID', W_init=None,
                b_init=normal(1e-6)):
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))
  def init_fun(rng, input_shape):
    filter_shape_iter = iter(filter_shape)
    kernel_shape = [out_chan if c == 'O' else
                    input_shape[lhs_spec.index('C')] if c == 'I' else
                    next(filter_shape_iter) for c in rhs_spec]
    output_shape = lax.conv_general_shape_tuple(
        input_shape, kernel_shape, strides, padding, dimension_numbers)
    bias_shape = [out_chan if c == 'C' else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
    return output_shape, (W, b)
  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers) + b
  return init_fun, apply_fun
Conv = functools.partial(GeneralConv, ('NHWC', 'HWIO', 'NHWC'))

def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape,
                         strides=None, padding='VALID', W_init=None,
                         b_init=normal(1e-6)):
  lhs_spec, rhs_spec, out_spec = dimension_numbers
  one = (1,) * len(filter_shape)
  strides = strides or one
  W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))
  def init_fun(rng, input_shape):
    filter_shape_iter = iter(filter_shape)
    kernel_shape = [out_chan if c == 'O' else
                    input_shape[lhs_spec.index('C')] if c == 'I' else
                    next(filter_shape_iter) for c in rhs_spec]
    output_shape = lax.conv_transpose_shape_tuple(
        input_shape, kernel_shape, strides, padding, dimension_numbers)
    bias_shape = [out_chan if c == 'C' else 1 for c in out_spec]
    k1, k2 = random.split(rng)
    W, b = W_init(k1, kernel_shape), b_init(k2, bias_shape)
    return output_shape, (W, b)
  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return lax.conv_transpose(inputs, W, strides, padding,
                              dimension_numbers=dimension_numbers) + b
  return init_fun, apply_fun
Conv1DTranspose = functools.partial(GeneralConvTranspose, ('NHC', 'HIO', 'NHC'))
ConvTranspose = functools.partial(GeneralConvTranspose,
                                  ('NHWC', 'HWIO', 'NHWC'))

def _pooling_layer(reducer, init_val, rescaler=None):
  def PoolingLayer(window_shape, strides=None, padding='VALID', spec=None):
    strides = strides or (1,) * len(window_shape)
    rescale = rescaler(window_shape, strides, padding) if rescaler else None
    if spec is None:
      non_spatial_axes = 0, len(window_shape) + 1
    else:
      non_spatial_axes = spec.index('N'), spec.index('C')
    for i in sorted(non_spatial_axes):
      window_shape = window_shape[:i] + (1,) + window_shape[i:]
      strides = strides[:i] + (1,) + strides[i:]
    def init_fun(rng, input_shape):
      padding_vals = lax.padtype_to_pads(input_shape, window_shape,
                                         strides, padding)
      ones = (1,) * len(window_shape)
      out_shape = lax.reduce_window_shape_tuple(
        input_shape, window_shape, strides, padding_vals, ones, ones)
      return out_shape, ()
    def apply_fun(params, inputs, **kwargs):
      out = lax.reduce_window(inputs, init_val, reducer, window_shape,
                              strides, padding)
      return rescale(out, inputs, spec) if rescale else out
    return init_fun, apply_fun
  return PoolingLayer
MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)

def _normalize_by_window_size(dims, strides, padding):
  def rescale(outputs, inputs, spec):
    if spec is None:
      non_spatial_axes = 0, inputs.ndim - 1
    else:
      non_spatial_axes = spec.index('N'), spec.index('C')
    spatial_shape = tuple(inputs.shape[i]
                          for i in range(inputs.ndim)
                          if i not in non_spatial_axes)
    one = jnp.ones(spatial_shape, dtype=inputs.dtype)
    window_sizes = lax.reduce_window(one, 0., lax.add, dims, strides, padding)
    for i in sorted(non_spatial_axes):
      window_sizes = jnp.expand_dims(window_sizes, i)
    return outputs / window_sizes
  return rescale
AvgPool = _pooling_layer(lax.add, 0., _normalize_by_window_size)

def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
              beta_init=zeros, gamma_init=ones):
  _beta_init = lambda rng, shape: beta_init(rng, shape) if center else ()
  _gamma_init = lambda rng, shape: gamma_init(rng, shape) if scale else ()
  axis = (axis,) if jnp.isscalar(axis) else axis
  def init_fun(rng, input_shape):
    shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
    k1, k2 = random.split(rng)
    beta, gamma = _beta_init(k1, shape), _gamma_init(k2, shape)
    return input_shape, (beta, gamma)
  def apply_fun(params, x, **kwargs):
    beta, gamma = params
    # v[ed] with ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
    def ed(v):
      return jnp.expand_dims(v, tuple(i for i in range(jnp.ndim(x)) if i in axis))
    z = standardize(x, axis, epsilon=epsilon)
    if center and scale: return ed(gamma) * z + ed(beta)
    if center: return z + ed(beta)
    if scale: return ed(gamma) * z
    return z
  return init_fun, apply_fun

def elementwise(fun, **fun_kwargs):
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
  return init_fun, apply_fun
Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)

def Flatten():
  def init_fun(rng, input_shape):
    size = 1
    for d in input_shape[1:]:
      size = size * d
    output_shape = input_shape[0], size
    return output_shape, ()
  def apply_fun(params, inputs, **kwargs):
    return jnp.reshape(inputs, (inputs.shape[0], -1))
  return init_fun, apply_fun
Flatten = Flatten()

def Identity():
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: inputs
  return init_fun, apply_fun
Identity = Identity()

def FanOut(num):
  init_fun = lambda rng, input_shape: ([input_shape] * num, ())
  apply_fun = lambda params, inputs, **kwargs: [inputs] * num
  return init_fun, apply_fun

def FanInSum():
  init_fun = lambda rng, input_shape: (input_shape[0], ())
  apply_fun = lambda params, inputs, **kwargs: sum(inputs)
  return init_fun, apply_fun
FanInSum = FanInSum()

def FanInConcat(axis=-1):
  def init_fun(rng, input_shape):
    ax = axis % len(input_shape[0])
    concat_size = sum(shape[ax] for shape in input_shape)
    out_shape = input_shape[0][:ax] + (concat_size,) + input_shape[0][ax+1:]
    return out_shape, ()
  def apply_fun(params, inputs, **kwargs):
    return jnp.concatenate(inputs, axis)
  return init_fun, apply_fun

def Dropout(rate, mode='train'):
  def init_fun(rng, input_shape):
    return input_shape, ()
  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get('rng', None)
    if rng is None:
      msg = ("Dropout layer requires apply_fun to be called with a PRNG key "
             "argument. That is, instead of \`apply_fun(params, inputs)\`, call "
             "it like \`apply_fun(params, inputs, rng)\` where \`rng\` is a "
             "PRNG key (e.g. from \`jax.random.key\`).")
      raise ValueError(msg)
    if mode == 'train':
      keep = random.bernoulli(rng, rate, inputs.shape)
      return jnp.where(keep, inputs / rate, 0)
    else:
      return inputs
  return init_fun, apply_fun

def serial(*layers):
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers)
  def init_fun(rng, input_shape):
    params = []
    for init_fun in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, param = init_fun(layer_rng, input_shape)
      params.append(param)
    return input_shape, params
  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop('rng', None)
    rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
    for fun, param, rng in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=rng, **kwargs)
    return inputs
  return init_fun, apply_fun

def parallel(*layers):
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers)
  def init_fun(rng, input_shape):
    rngs = random.split(rng, nlayers)
    return zip(*[init(rng, shape) for init, rng, shape
                 in zip(init_funs, rngs, input_shape)])
  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop('rng', None)
    rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
    return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
  return init_fun, apply_fun

def shape_dependent(make_layer):
  def init_fun(rng, input_shape):
    return make_layer(input_shape)[0](rng, input_shape)
  def apply_fun(params, inputs, **kwargs):
    return make_layer(inputs.shape)[1](params, inputs, **kwargs)
  return init_fun, apply_fun
`;

const SOURCES: Record<string, string> = { optimizers: OPTIMIZERS_PY, stax: STAX_PY };
const loaded = new WeakMap<Interp, PyModule>();

/** The source spans of the example libraries' code: an error raised there has no place in the user's file (lower() drops the span). */
export const preludeSpans = new WeakSet<object>();
export function markSpans(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) markSpans(x);
    return;
  }
  const o = node as Record<string, unknown>;
  if (typeof o['start'] === 'object' && typeof o['end'] === 'object' && o['start'] !== null && 'line' in (o['start'] as object)) {
    preludeSpans.add(o);
    return;
  }
  for (const v of Object.values(o)) markSpans(v);
}

/**
 * `jax.example_libraries` or one of its modules: the package (whose modules
 * appear as they are imported, as in Python) or the module, its Python
 * source run once per compilation in a scope of its own.
 */
export function exampleLibrary(ip: Interp, name: string, jax: PyModule, span: Span): PyModule {
  let pkg = loaded.get(ip);
  if (!pkg) {
    pkg = new PyModule('jax.example_libraries', new Map());
    loaded.set(ip, pkg);
    jax.attrs.set('example_libraries', pkg);
  }
  if (name === 'jax.example_libraries') return pkg;
  const sub = name.slice('jax.example_libraries.'.length);
  const have = pkg.attrs.get(sub);
  if (have instanceof PyModule) return have;
  const source = SOURCES[sub];
  if (source === undefined) throw new CompileError(`ModuleNotFoundError: No module named '${name}'`, span);
  const scope = new Scope(ip.builtins);
  // the optimizers pack their state with jax.tree_util's flatten / unflatten (their treedefs print as JAX's)
  const treeUtil = ip.library.importModule('jax.tree_util', span);
  scope.vars.set('_tree_flatten', treeUtil.attrs.get('tree_flatten')!);
  scope.vars.set('_tree_unflatten', treeUtil.attrs.get('tree_unflatten')!);
  const typing = ip.library.importModule('typing', span);
  for (const k of ['NamedTuple', 'Callable', 'Any']) {
    const v = typing.attrs.get(k);
    if (v !== undefined) scope.vars.set(k, v);
  }
  const mod0 = parse(source);
  markSpans(mod0);
  execBlock(ip, mod0.body, scope);
  const attrs = new Map([...scope.vars].filter(([k]) => !k.startsWith('_')));
  const mod = new PyModule(name, attrs);
  pkg.attrs.set(sub, mod);
  return mod;
}
