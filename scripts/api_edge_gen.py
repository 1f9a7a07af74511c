#!/usr/bin/env python3
"""Edge-case fixtures for the supported JAX API: every supported function against real JAX.

A table (TABLE below) classifies every function that jaxts supports (what scripts/api_coverage.py and
docs/API.md report as supported) of jax.numpy (with linalg and fft), jax.lax, jax.nn (with
initializers), jax.scipy.special/stats/linalg and jax.random by its signature kind: unary elementwise,
binary elementwise with broadcasting, reduction (axis, keepdims, negative axes), cumulative, or
custom (hand-written calls: shape ops, indexing, creation, linalg, random with keys, ...). Each kind
expands into cases on the same inputs: empty arrays, 0-d scalars, Python scalars, broadcasting, bad
broadcasting, negative and out-of-range axes, int32/float32/bool inputs, NaN and inf, and `jax.grad`
where the function is differentiable. Each case prints one labelled line (`label -> dtype shape value`,
or `label -> ErrorName` when JAX raises: the exception is caught so that the program goes on).

Functions that have no edge test are listed in NO_EDGE_TEST with the reason (collectives need a named
axis, control flow takes functions, ...); scripts/api_coverage.py reads TABLE and NO_EDGE_TEST to
report per module how many supported functions have edge tests (docs/API.md).

    python3 scripts/api_edge_gen.py                 # writes fixtures/api_edge/NN_kind.py
    bash scripts/oracle.sh fixtures/api_edge/*.py   # goldens from real JAX (only from the oracle)

The golden test then runs every batch on both backends. Inputs are drawn from Python's `random` with a
fixed seed, so the output is deterministic.
"""
import argparse
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------- the table

# Python prefix of each module in the generated programs.
PREFIX = {
    'jax.numpy': 'jnp.', 'jax.numpy.linalg': 'jnp.linalg.', 'jax.numpy.fft': 'jnp.fft.', 'jax.lax': 'lax.',
    'jax.nn': 'jax.nn.', 'jax.nn.initializers': 'jax.nn.initializers.', 'jax.random': 'jax.random.',
    'jax.scipy.special': 'jax.scipy.special.', 'jax.scipy.stats': 'jax.scipy.stats.', 'jax.scipy.linalg': 'jax.scipy.linalg.',
    'jax': 'jax.', 'jax.tree_util': 'jax.tree_util.', 'jax.tree': 'jax.tree.', 'jax.example_libraries.optimizers': 'optimizers.',
    'jax.example_libraries.stax': 'stax.',
}


def names(s):
    return s.split()


# Unary elementwise: (module, batch, names).
UNARY = [
    ('jax.numpy', 'jnp_unary', names('''abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan
        atanh ceil conj conjugate cos cosh deg2rad degrees exp exp2 expm1 fabs floor imag isfinite isinf isnan isneginf
        isposinf isreal iscomplex log log10 log1p log2 negative positive rad2deg radians real reciprocal rint round around
        sign signbit sin sinc sinh spacing sqrt square tan tanh trunc logical_not nan_to_num angle frexp modf
        bitwise_not bitwise_invert invert''')),
    ('jax.lax', 'lax_unary', names('''abs acos acosh asin asinh atan atanh ceil cos cosh digamma erf erf_inv erfc exp exp2
        expm1 floor is_finite lgamma log log1p logistic neg reciprocal round rsqrt sign sin sinh sqrt square tan tanh
        bitwise_not clz population_count''')),
    ('jax.nn', 'nn', names('''celu elu gelu hard_sigmoid hard_silu hard_swish hard_tanh identity leaky_relu log1mexp
        log_sigmoid mish relu relu6 selu sigmoid silu soft_sign softplus sparse_plus sparse_sigmoid squareplus swish tanh''')),
    ('jax.scipy.special', 'scipy', names('digamma entr erf erfc erfinv expit')),
    ('jax.scipy.special', 'scipy2', names('gamma gammaln log_ndtr loggamma logit ndtr ndtri')),
    ('jax.lax', 'lax3', names('bessel_i0e bessel_i1e cbrt')),
    ('jax.scipy.special', 'scipy3', names('gammasgn factorial i0 i0e i1 i1e erfcx spence')),
    ('jax.scipy.special', 'scipy4', names('expi exp1')),
]

# Binary elementwise (broadcasting for jnp; lax requires equal shapes and dtypes).
BINARY = [
    ('jax.numpy', 'jnp_binary', names('''add arctan2 atan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift
        bitwise_right_shift left_shift right_shift copysign divide divmod equal float_power floor_divide fmax fmin fmod
        gcd lcm greater greater_equal heaviside hypot ldexp less less_equal logaddexp logaddexp2 logical_and logical_or
        logical_xor maximum minimum mod multiply nextafter not_equal pow power remainder subtract true_divide''')),
    ('jax.lax', 'lax_binary', names('''add atan2 div eq ge gt le lt max min mul ne pow rem sub bitwise_and bitwise_or
        bitwise_xor shift_left shift_right_arithmetic shift_right_logical''')),
    ('jax.scipy.special', 'scipy', names('betaln xlog1py xlogy')),
    ('jax.lax', 'lax4', names('igamma igammac igamma_grad_a')),
    ('jax.lax', 'lax3', names('nextafter zeta')),
    ('jax.scipy.special', 'scipy3', names('beta boxcox boxcox1p kl_div rel_entr poch comb')),
    ('jax.scipy.special', 'scipy4', names('gammainc gammaincc')),
]

# Reductions with axis / keepdims.
REDUCTION = [
    ('jax.numpy', 'jnp_reduce', names('''all any amax amin max min mean median nanmax nanmean nanmedian nanmin nanprod
        nansum nanstd nanvar prod ptp std sum var count_nonzero argmax argmin nanargmax nanargmin average''')),
    ('jax.nn', 'nn', names('log_softmax logmeanexp logsumexp softmax standardize glu')),
    ('jax.scipy.special', 'scipy', names('logsumexp')),
]

# Cumulative along an axis.
CUMULATIVE = [
    ('jax.numpy', 'jnp_reduce', names('cumsum cumprod cumulative_sum cumulative_prod nancumsum nancumprod')),
]

# Hand-written cases: module -> batch -> {name: [(suffix, call), ...]}. `F` in a call stands for the function.
# Inputs available: see INPUTS.
CUSTOM = {}


def custom(module, batch, table):
    CUSTOM.setdefault(module, {}).setdefault(batch, {}).update(table)


def C(*pairs):
    """Cases from alternating suffix, call strings."""
    return [(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)]


custom('jax.numpy', 'jnp_reduce', {
    'percentile': C('m', 'F(m23, 30)', 'ax', 'F(m23, jnp.array([10.0, 90.0]), axis=-1)', 'kd', 'F(m23, 50, axis=0, keepdims=True)',
                    'nan', 'F(xf, 50)', 'int', 'F(mi23, 25, axis=1)', 'grad', 'jax.grad(lambda x: F(x, 40))(m23)'),
    'quantile': C('m', 'F(m23, 0.3)', 'ax', 'F(m23, jnp.array([0.1, 0.9]), axis=-1)', 'meth', "F(m23, 0.5, axis=1, method='lower')",
                  'bad', 'F(m23, 0.5, axis=5)', 'grad', 'jax.grad(lambda x: F(x, 0.4))(m23)'),
    'nanpercentile': C('m', 'F(xf, 30)', 'ax', 'F(m23, 50, axis=-1)'),
    'nanquantile': C('m', 'F(xf, 0.3)', 'ax', 'F(m23, 0.5, axis=-1, keepdims=True)'),
    'diff': C('m', 'F(m23)', 'ax0', 'F(m23, axis=0)', 'n2', 'F(v5, n=2)', 'pre', 'F(v3, prepend=0.0, append=jnp.array([9.0]))',
              'empty', 'F(xe, axis=0)', 'int', 'F(mi23)', 'bool', 'F(xb)', 'nan', 'F(xf)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x) ** 2))(v5)'),
    'ediff1d': C('m', 'F(m23)', 'ends', 'F(v3, to_end=jnp.array([1.0]), to_begin=0.0)', 'empty', 'F(xe)', 'int', 'F(mi23)'),
    'trapezoid': C('m', 'F(m23)', 'dx', 'F(m23, dx=0.5, axis=0)', 'x', 'F(v3, x=jnp.array([0.0, 1.0, 3.0]))', 'empty', 'F(jnp.zeros((0,)))',
                   'grad', 'jax.grad(lambda y: F(y))(v5)'),
    'gradient': C('v', 'F(v5)', 'm', 'F(m23)', 'ax', 'F(m23, axis=-1)', 'dx', 'F(v5, 2.0)'),
})

custom('jax.numpy', 'jnp_shape', {
    'reshape': C('m', 'F(m23, (3, 2))', 'neg', 'F(m23, (-1,))', 'bad', 'F(m23, (4, 2))', 'empty', 'F(xe, (3, 0))', '0d', 'F(x0, (1, 1))',
                 'order', "F(m23, (3, 2), order='F')", 'grad', 'jax.grad(lambda x: jnp.sum(F(x, (3, 2)) * jnp.arange(6.0).reshape(3, 2)))(m23)'),
    'ravel': C('m', 'F(m23)', 'F', "F(m23, order='F')", '0d', 'F(x0)', 'empty', 'F(xe)'),
    'transpose': C('m', 'F(m23)', 'axes', 'F(t234, (2, 0, 1))', 'neg', 'F(t234, (-1, 0, 1))', 'bad', 'F(t234, (0, 1))', '0d', 'F(x0)',
                   'grad', 'jax.grad(lambda x: jnp.sum(F(x) * jnp.arange(6.0).reshape(3, 2)))(m23)'),
    'permute_dims': C('m', 'F(t234, (1, 2, 0))', 'bad', 'F(t234, (0, 0, 1))'),
    'matrix_transpose': C('m', 'F(t234)', '1d', 'F(v3)'),
    'swapaxes': C('m', 'F(t234, 0, -1)', 'bad', 'F(m23, 0, 2)'),
    'moveaxis': C('m', 'F(t234, 0, -1)', 'multi', 'F(t234, (0, 1), (-1, -2))', 'bad', 'F(m23, 3, 0)'),
    'rollaxis': C('m', 'F(t234, 2)', 'neg', 'F(t234, -1, 1)'),
    'expand_dims': C('m', 'F(m23, 0)', 'neg', 'F(m23, -1)', 'tuple', 'F(v3, (0, 2))', '0d', 'F(x0, 0)', 'bad', 'F(v3, 3)'),
    'squeeze': C('m', 'F(jnp.ones((1, 3, 1)))', 'ax', 'F(jnp.ones((1, 3, 1)), axis=-1)', 'bad', 'F(m23, axis=0)', '0d', 'F(x0)',
                 'empty', 'F(jnp.zeros((1, 0)))'),
    'atleast_1d': C('0d', 'F(x0)', 'v', 'F(v3)', 'multi', 'F(x0, m23)'),
    'atleast_2d': C('0d', 'F(x0)', 'v', 'F(v3)', 'm', 'F(t234)'),
    'atleast_3d': C('0d', 'F(x0)', 'v', 'F(v3)', 'm', 'F(m23)'),
    'broadcast_to': C('v', 'F(v3, (2, 3))', '0d', 'F(x0, (2,))', 'bad', 'F(v3, (2, 4))', 'empty', 'F(v3, (0, 3))',
                      'grad', 'jax.grad(lambda x: jnp.sum(F(x, (4, 3))))(v3)'),
    'broadcast_arrays': C('m', 'F(m23, v3, x0)', 'bad', 'F(m23, jnp.ones(4))'),
    'broadcast_shapes': C('ok', 'F((2, 1), (3,))', 'bad', 'F((2,), (3,))', 'empty', 'F((0, 1), (1, 4))'),
    'concatenate': C('m', 'F([m23, m23])', 'ax', 'F([m23, m23], axis=-1)', 'none', 'F([m23, v3], axis=None)', 'bad', 'F([m23, v3])',
                     'mixed', 'F([mi23, m23])', 'empty', 'F([xe, m23])', 'grad', 'jax.grad(lambda x: jnp.sum(F([x, 2 * x]) ** 2))(v3)'),
    'concat': C('m', 'F([m23, m23], axis=1)', 'bad', 'F([m23, v3])'),
    'stack': C('m', 'F([v3, v3])', 'ax', 'F([v3, v3], axis=-1)', 'bad', 'F([v3, v5])', '0d', 'F([x0, x0])', 'empty', 'F([])'),
    'hstack': C('v', 'F([v3, v5])', 'm', 'F([m23, m23])', '0d', 'F([x0, x0])'),
    'vstack': C('v', 'F([v3, v3])', 'm', 'F([m23, v3])', 'bad', 'F([v3, v5])'),
    'dstack': C('v', 'F([v3, v3])', 'm', 'F([m23, m23])'),
    'column_stack': C('v', 'F([v3, v3])', 'm', 'F([m23.T, v3])'),
    'block': C('m', 'F([[m23, m23], [m23, m23]])', 'v', 'F([v3, v5])'),
    'split': C('n', 'F(v6, 3)', 'idx', 'F(v6, [1, 4])', 'ax', 'F(m23, 3, axis=-1)', 'bad', 'F(v5, 2)'),
    'array_split': C('n', 'F(v5, 2)', 'ax', 'F(m23, 2, axis=1)'),
    'hsplit': C('m', 'F(m23, 3)', 'v', 'F(v6, 2)'),
    'vsplit': C('m', 'F(m23, 2)', 'bad', 'F(v6, 2)'),
    'dsplit': C('m', 'F(t234, 2)', 'bad', 'F(m23, 2)'),
    'unstack': C('m', 'F(m23)', 'ax', 'F(m23, axis=-1)'),
    'flip': C('m', 'F(m23)', 'ax', 'F(m23, axis=-1)', 'tuple', 'F(t234, (0, 2))', '0d', 'F(x0)'),
    'fliplr': C('m', 'F(m23)', 'bad', 'F(v3)'),
    'flipud': C('m', 'F(m23)', 'v', 'F(v3)'),
    'rot90': C('m', 'F(m23)', 'k', 'F(m23, k=-1)', 'k2', 'F(t234, 2, axes=(1, 2))', 'bad', 'F(v3)'),
    'roll': C('v', 'F(v5, 2)', 'neg', 'F(v5, -7)', 'ax', 'F(m23, 1, axis=-1)', 'multi', 'F(m23, (1, 2), axis=(0, 1))', 'empty', 'F(xe, 1)',
              'grad', 'jax.grad(lambda x: jnp.sum(F(x, 1) * jnp.arange(5.0)))(v5)'),
    'tile': C('v', 'F(v3, 2)', 'm', 'F(m23, (2, 1))', 'more', 'F(v3, (2, 1, 2))', '0d', 'F(x0, 3)', 'zero', 'F(v3, 0)'),
    'repeat': C('v', 'F(v3, 2)', 'ax', 'F(m23, 2, axis=-1)', 'arr', 'F(v3, jnp.array([1, 0, 2]), total_repeat_length=3)', 'none', 'F(m23, 2)',
                'list', 'F(v3, [2, 1, 0])'),
    'resize': C('grow', 'F(v3, (2, 4))', 'shrink', 'F(m23, 4)'),
    'pad': C('c', 'F(v3, 2)', 'pair', 'F(m23, ((1, 0), (0, 2)))', 'val', 'F(v3, 1, constant_values=9.0)', 'edge', "F(v3, 2, mode='edge')",
             'refl', "F(v5, 2, mode='reflect')", 'sym', "F(v5, 2, mode='symmetric')", 'wrap', "F(v5, 3, mode='wrap')",
             'grad', 'jax.grad(lambda x: jnp.sum(F(x, 1, mode="edge") ** 2))(v3)'),
    'append': C('v', 'F(v3, 1.0)', 'ax', 'F(m23, m23, axis=-1)', 'none', 'F(m23, v3)'),
    'insert': C('v', 'F(v3, 1, 9.0)', 'ax', 'F(m23, 0, v3, axis=0)', 'neg', 'F(v5, -1, 7.0)'),
    'delete': C('v', 'F(v5, 1)', 'list', 'F(v5, [0, 2])', 'ax', 'F(m23, 1, axis=-1)'),
})

custom('jax.numpy', 'jnp_create', {
    'array': C('list', 'F([1, 2, 3])', 'float', 'F([1.0, 2])', 'bool', 'F([True, False])', 'dtype', 'F([1.7, -2.2], dtype=jnp.int32)',
               'nested', 'F([[1, 2], [3, 4]])', 'empty', 'F([])', '0d', 'F(3.5)', 'ragged', 'F([[1], [2, 3]])'),
    'asarray': C('list', 'F([1, 2])', 'arr', 'F(m23)', 'dtype', 'F(mi23, dtype=jnp.float32)', 'np', 'F(np.arange(3))'),
    'arange': C('n', 'F(5)', 'range', 'F(2, 9, 3)', 'float', 'F(0.0, 1.0, 0.25)', 'neg', 'F(5, 0, -2)', 'empty', 'F(3, 3)',
                'dtype', 'F(4, dtype=jnp.float32)'),
    'linspace': C('n', 'F(0, 1, 5)', 'noend', 'F(0.0, 1.0, 4, endpoint=False)', 'one', 'F(2.0, 3.0, 1)', 'zero', 'F(0.0, 1.0, 0)',
                  'step', 'F(0, 10, 5, retstep=True)', 'int', 'F(0, 10, 4, dtype=jnp.int32)', 'arr', 'F(jnp.zeros(2), jnp.ones(2), 3)',
                  'ax', 'F(jnp.zeros(2), jnp.ones(2), 3, axis=-1)'),
    'logspace': C('n', 'F(0, 2, 3)', 'base', 'F(0.0, 3.0, 4, base=2.0)', 'noend', 'F(0, 1, 2, endpoint=False)'),
    'geomspace': C('n', 'F(1, 1000, 4)', 'neg', 'F(-1.0, -16.0, 5)', 'noend', 'F(1.0, 8.0, 3, endpoint=False)', 'bad', 'F(0.0, 1.0, 3)'),
    'zeros': C('n', 'F(3)', 'shape', 'F((2, 0))', 'dtype', 'F((2,), jnp.int32)', '0d', 'F(())', 'bool', 'F(2, dtype=bool)'),
    'ones': C('n', 'F(3)', 'shape', 'F((1, 2))', 'dtype', 'F(2, dtype=jnp.bool_)'),
    'empty': C('n', 'F((2, 2)).shape', 'dtype', 'F(3, jnp.int32).dtype'),
    'full': C('n', 'F(3, 7)', 'float', 'F((2, 2), 1.5)', 'dtype', 'F(2, 3.7, dtype=jnp.int32)', 'arr', 'F((2, 3), v3)', 'bool', 'F(2, True)'),
    'zeros_like': C('m', 'F(m23)', 'int', 'F(mi23)', 'dtype', 'F(m23, dtype=jnp.int32)', 'shape', 'F(v3, shape=(2,))'),
    'ones_like': C('m', 'F(mi23)', 'bool', 'F(xb)', '0d', 'F(x0)'),
    'empty_like': C('m', 'F(m23).shape'),
    'full_like': C('m', 'F(m23, 2)', 'int', 'F(mi23, 2.7)', 'dtype', 'F(v3, 1, dtype=jnp.bool_)'),
    'eye': C('n', 'F(3)', 'rect', 'F(2, 4)', 'k', 'F(3, k=1)', 'kneg', 'F(3, 4, k=-2)', 'dtype', 'F(2, dtype=jnp.int32)', 'zero', 'F(0)'),
    'identity': C('n', 'F(3)', 'dtype', 'F(2, dtype=jnp.bool_)'),
    'tri': C('n', 'F(3)', 'k', 'F(3, 4, k=-1)', 'dtype', 'F(2, dtype=jnp.int32)'),
    'tril': C('m', 'F(m33)', 'k', 'F(m23, k=1)', 'neg', 'F(m33, -1)', 'batch', 'F(t234)', 'bad', 'F(v3)'),
    'triu': C('m', 'F(m33)', 'k', 'F(m23, k=-1)', 'batch', 'F(t234, 1)'),
    'diag': C('v', 'F(v3)', 'k', 'F(v3, k=-1)', 'm', 'F(m23)', 'mk', 'F(m33, 1)', 'bad', 'F(t234)'),
    'diagflat': C('v', 'F(v3)', 'm', 'F(m23, k=1)'),
    'diagonal': C('m', 'F(m23)', 'off', 'F(m33, offset=-1)', 'ax', 'F(t234, axis1=-1, axis2=0)', 'bad', 'F(v3)'),
    'trace': C('m', 'F(m33)', 'off', 'F(m23, offset=1)', 'batch', 'F(t234, axis1=1, axis2=2)', 'int', 'F(mi23)'),
    'vander': C('v', 'F(v3)', 'n', 'F(v3, 2)', 'inc', 'F(v3, increasing=True)'),
    'meshgrid': C('xy', 'F(v3, jnp.arange(2))', 'ij', "F(v3, jnp.arange(2.0), indexing='ij')", 'one', 'F(v3)'),
    'indices': C('n', 'F((2, 3))', 'sparse', 'F((2, 3), sparse=True)'),
    'fromfunction': C('f', 'F(lambda i, j: i + 2 * j, (2, 3))', 'dtype', 'F(lambda i: i * 2, (3,), dtype=jnp.int32)'),
    'tril_indices': C('n', 'F(3)', 'k', 'F(3, k=-1)', 'm', 'F(3, 1, 4)'),
    'triu_indices': C('n', 'F(3)', 'k', 'F(3, k=1)'),
    'tril_indices_from': C('m', 'F(m33)', 'k', 'F(m23, k=1)'),
    'trim_zeros': C('z', 'F(jnp.array([0, 0, 1, 0, 2, 0]))', 'f', "F(jnp.array([0.0, 1.0, 0.0]), trim='f')", 'b', "F(jnp.array([0.0, 1.0, 0.0]), 'b')", 'm', 'F(m23)', 'ax', 'F(jnp.eye(3)[1:], axis=-1)', 'nan', 'F(xf2)', 'empty', 'F(xe)', 'bool', 'F(xb)'),
    'triu_indices_from': C('m', 'F(m33)', 'bad', 'F(v3)'),
    'diag_indices': C('n', 'F(3)', 'nd', 'F(2, ndim=3)'),
    'diag_indices_from': C('m', 'F(m33)', 'bad', 'F(m23)'),
    'mask_indices': C('n', 'F(3, jnp.triu)', 'size', 'F(3, jnp.triu, size=6)', 'k', 'F(3, jnp.tril, -1, size=3)'),
    'hamming': C('n', 'F(5)', 'one', 'F(1)', 'zero', 'F(0)'),
    'hanning': C('n', 'F(5)', 'one', 'F(1)'),
    'bartlett': C('n', 'F(5)', 'zero', 'F(0)'),
    'blackman': C('n', 'F(6)', 'one', 'F(1)'),
    'fromstring': C('s', "F('1 2 3', sep=' ')", 'comma', "F('1.5,2', dtype=jnp.float32, sep=',')"),
    'copy': C('m', 'F(m23)', '0d', 'F(x0)'),
    'astype': C('f2i', 'F(xf[:7], jnp.int32)', 'i2b', 'F(xi, bool)', 'b2f', 'F(xb, jnp.float32)', 'nan2i', 'F(xf, jnp.int32)',
                'u', 'F(xi, jnp.uint32)'),
})

custom('jax.numpy', 'jnp_index', {
    'take': C('v', 'F(v5, jnp.array([0, 4, 1]))', 'ax', 'F(m23, jnp.array([2, 0]), axis=-1)', 'neg', 'F(v5, -1)', 'oob', 'F(v5, 7)',
              'clip', "F(v5, jnp.array([7, -9]), mode='clip')", 'wrap', "F(v5, jnp.array([7, -9]), mode='wrap')",
              'fill', "F(v5, jnp.array([7]), mode='fill', fill_value=-1.0)", 'none', 'F(m23, jnp.array([5]))',
              'grad', 'jax.grad(lambda x: jnp.sum(F(x, jnp.array([0, 0, 2]))))(v3)'),
    'take_along_axis': C('m', 'F(m23, jnp.array([[2, 0], [1, 1]]), axis=1)', 'neg', 'F(m23, jnp.argsort(m23, axis=-1), axis=-1)',
                         'none', 'F(m23, jnp.array([5, 0]), axis=None)', 'bad', 'F(m23, jnp.array([1]), axis=1)'),
    'put_along_axis': C('m', 'F(m23, jnp.array([[0], [2]]), 9.0, axis=1, inplace=False)', 'bad', 'F(m23, jnp.array([[0], [2]]), 9.0, axis=1)'),
    'put': C('v', 'F(v5, jnp.array([0, 2]), jnp.array([7.0, 8.0]), inplace=False)', 'bad', 'F(v5, 0, 1.0)'),
    'place': C('v', 'F(v5, v5 > 0, jnp.array([1.0, 2.0]), inplace=False)', 'bad', 'F(v5, v5 > 0, 1.0)'),
    'where': C('3', 'F(m23 > 0, m23, 0.0)', 'bcast', 'F(xb, 1, jnp.zeros((2, 3)))', 'int', 'F(mi23 > 0, mi23, v3)', 'one', 'F(v5 > 0)',
               'bad', 'F(v3 > 0, v5, 0.0)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x > 0, x * x, -x)))(v5)'),
    'select': C('m', 'F([v5 > 1, v5 < 0], [v5, -v5], 9.0)', 'bad', 'F([v5 > 1], [v5, v5])'),
    'choose': C('wrap', "F(jnp.array([0, 4, 2, -1]), [v6[:4], 2 * v6[:4], 3 * v6[:4]], mode='wrap')", 'v', 'F(jnp.array([0, 1, 2, 1]), [v6[:4], 2 * v6[:4], 3 * v6[:4]])', 'clip', "F(jnp.array([3, -1]), [v3[:2], v5[:2]], mode='clip')"),
    'compress': C('v', 'F(jnp.array([True, False, True]), v3)', 'size', 'F(jnp.array([True, False, True]), v3, size=3)', 'ax', 'F(jnp.array([False, True]), m23, axis=0)'),
    'extract': C('v', 'F(v5 > 0, v5)', 'size', 'F(v5 > 0, v5, size=5, fill_value=-1.0)', 'm', 'F(m23 > 0.5, m23)'),
    'nonzero': C('v', 'F(v5)', 'm', 'F(mi23)', 'size', 'F(v5, size=6, fill_value=-1)', '0d', 'F(x0)', 'empty', 'F(xe)'),
    'flatnonzero': C('v', 'F(m23)', 'vsize', 'F(m23, size=6)', 'size', 'F(v5 > 0, size=2)'),
    'argwhere': C('m', 'F(mi23)', 'msize', 'F(mi23, size=6, fill_value=-1)', 'size', 'F(v5 > 0, size=4)'),
    'searchsorted': C('v', 'F(jnp.array([1.0, 2.0, 2.0, 5.0]), jnp.array([2.0, 0.0, 9.0]))', 'right',
                      "F(jnp.array([1.0, 2.0, 2.0, 5.0]), 2.0, side='right')", 'int', 'F(jnp.arange(5), jnp.array([3, -1]))',
                      'nan', 'F(jnp.array([1.0, float("nan")]), jnp.array([float("nan"), 0.5]))'),
    'digitize': C('v', 'F(v5, jnp.array([-1.0, 0.0, 1.0]))', 'right', 'F(v5, jnp.array([0.0, 1.0]), right=True)',
                  'dec', 'F(v5, jnp.array([1.0, 0.0]))'),
    'ravel_multi_index': C('v', 'F((jnp.array([0, 1]), jnp.array([2, 0])), (2, 3))', 'clip', "F((jnp.array([3]), jnp.array([5])), (2, 3), mode='clip')"),
    'unravel_index': C('v', 'F(jnp.array([0, 4, 5]), (2, 3))', '0d', 'F(4, (2, 3))', 'neg', 'F(jnp.array([-1]), (2, 3))'),
    'ix_': C('v', 'F(jnp.array([0, 1]), jnp.array([2, 0]))'),
    'fill_diagonal': C('m', 'F(m33, 0.0, inplace=False)', 'rect', 'F(m23, jnp.array([7.0, 8.0]), inplace=False)', 'bad', 'F(m33, 0.0)'),
    'isin': C('v', 'F(v5, jnp.array([0.0, 1.0]))', 'inv', 'F(mi23, jnp.array([1, 2]), invert=True)'),
    'unique': C('v', 'F(jnp.array([3, 1, 3, 2, 1]))', 'all', 'F(jnp.array([3, 1, 3]), return_index=True, return_inverse=True, return_counts=True)',
                'size', 'F(jnp.array([3, 1, 3]), size=4, fill_value=0)', 'm', 'F(mi23)', 'ax', 'F(jnp.array([[1, 2], [1, 2], [0, 1]]), axis=0)',
                'nan', 'F(jnp.array([1.0, float("nan"), float("nan")]))', 'empty', 'F(jnp.zeros((0,)))'),
    'unique_values': C('v', 'F(jnp.array([2, 1, 2]))', 'size', 'F(jnp.array([2, 1, 2]), size=2)'),
    'unique_counts': C('v', 'F(jnp.array([2, 1, 2]))', 'size', 'F(jnp.array([2, 1, 2]), size=3)'),
    'unique_inverse': C('v', 'F(jnp.array([2, 1, 2]))', 'size', 'F(jnp.array([2, 1, 2]), size=2)'),
    'unique_all': C('v', 'F(jnp.array([2, 1, 2]))', 'size', 'F(jnp.array([2, 1, 2]), size=2)'),
    'union1d': C('v', 'F(jnp.array([3, 1]), jnp.array([2, 1]))', 'size', 'F(jnp.array([3, 1]), jnp.array([2, 1]), size=4, fill_value=0)'),
    'intersect1d': C('v', 'F(jnp.array([3, 1, 2]), jnp.array([2, 1, 5]))', 'size', 'F(jnp.array([3, 1, 2]), jnp.array([2, 1, 5]), size=3)', 'idx', 'F(jnp.array([3, 1, 2]), jnp.array([2, 1]), return_indices=True)'),
    'setdiff1d': C('v', 'F(jnp.array([3, 1, 2]), jnp.array([2]))', 'size', 'F(jnp.array([3, 1, 2]), jnp.array([2]), size=3)'),
    'setxor1d': C('v', 'F(jnp.array([3, 1, 2]), jnp.array([2, 5]))', 'size', 'F(jnp.array([3, 1, 2]), jnp.array([2, 5]), size=4)'),
    'sort': C('v', 'F(v5)', 'ax', 'F(m23, axis=0)', 'none', 'F(m23, axis=None)', 'nan', 'F(xf)', 'int', 'F(mi23)', 'bool', 'F(xb)',
              'desc', 'F(v5, descending=True)', 'empty', 'F(xe)', '0d', 'F(x0)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x) * jnp.arange(5.0)))(v5)'),
    'argsort': C('v', 'F(v5)', 'ax', 'F(m23, axis=0)', 'nan', 'F(xf)', 'int', 'F(mi23, axis=-1)', 'desc', 'F(v5, descending=True)',
                 'stable', 'F(jnp.array([1, 0, 1, 0]), stable=True)', 'empty', 'F(xe)'),
    'lexsort': C('v', 'F((jnp.array([1, 0, 1]), jnp.array([2, 2, 1])))', 'ax', 'F([m23, m23], axis=0)'),
    'partition': C('v', 'F(v5, 2)', 'ax', 'F(m23, 1, axis=0)'),
    'argpartition': C('v', 'F(v5, 2)'),
    'bincount': C('v', 'F(jnp.array([0, 1, 1, 3]))', 'w', 'F(jnp.array([0, 1, 1]), weights=jnp.array([0.5, 1.0, 2.0]))',
                  'len', 'F(jnp.array([0, 1, 1]), length=5)', 'min', 'F(jnp.array([2]), minlength=4)', 'empty', 'F(jnp.zeros(0, jnp.int32), length=2)'),
    'histogram': C('v', 'F(v6, bins=3)', 'range', 'F(v6, bins=2, range=(0.0, 4.0))', 'edges', 'F(v6, bins=jnp.array([0.0, 1.0, 5.0]))',
                   'dens', 'F(v6, bins=2, density=True)', 'w', 'F(v6, bins=2, weights=v6)'),
    'histogram_bin_edges': C('v', 'F(v6, bins=4)', 'range', 'F(v6, 2, range=(-1.0, 1.0))'),
    'histogram2d': C('v', 'F(v5, v5 * 2, bins=2)'),
    'histogramdd': C('v', 'F(jnp.stack([v5, v5 + 1], axis=1), bins=2)'),
    'interp': C('v', 'F(jnp.array([0.5, 2.5, -1.0, 9.0]), jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 2.0, 3.0]))',
                'lr', 'F(jnp.array([-1.0, 9.0]), jnp.array([0.0, 1.0]), jnp.array([1.0, 2.0]), left=-5.0, right=5.0)',
                'period', 'F(jnp.array([7.0]), jnp.array([0.0, 4.0]), jnp.array([0.0, 1.0]), period=5.0)',
                'grad', 'jax.grad(lambda x: jnp.sum(F(x, jnp.array([0.0, 1.0, 3.0]), jnp.array([0.0, 2.0, 3.0]))))(jnp.array([0.5, 2.0]))'),
    'clip': C('v', 'F(v5, -0.5, 0.5)', 'min', 'F(v5, min=0.0)', 'max', 'F(mi23, max=1)', 'arr', 'F(m23, v3, 1.0)', 'nan', 'F(xf, -1.0, 1.0)',
              'none', 'F(v5)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x, -0.5, 0.5)))(v5)'),
    'piecewise': C('v', 'F(v5, [v5 < 0, v5 >= 0], [lambda x: -x, lambda x: x * 2])', 'const', 'F(v5, [v5 < 0], [0.0, 1.0])'),
    'apply_along_axis': C('v', 'F(jnp.sum, 1, m23)', 'neg', 'F(lambda r: r * 2, -1, m23)'),
    'apply_over_axes': C('v', 'F(jnp.sum, t234, [0, 2])'),
    'vectorize': C('v', 'F(lambda a, b: a * b + 1)(m23, v3)', 'sig', "F(jnp.dot, signature='(n),(n)->()')(m23, v3)"),
})

custom('jax.numpy', 'jnp_misc', {
    'dot': C('vv', 'F(v3, v3)', 'mv', 'F(m23, v3)', 'mm', 'F(m23, m23.T)', '0d', 'F(x0, v3)', 'int', 'F(mi23, mi23.T)', 'bad', 'F(m23, m23)',
             'empty', 'F(xe.T, xe)', 'grad', 'jax.grad(lambda a: F(a, v3))(v3)'),
    'matmul': C('mm', 'F(m23, m23.T)', 'mv', 'F(m23, v3)', 'batch', 'F(t234, jnp.ones((4, 2)))', 'bcast', 'F(jnp.ones((2, 1, 2, 3)), jnp.ones((3, 3, 1)))',
                '0d', 'F(x0, v3)', 'int', 'F(mi23, mi23.T)', 'bad', 'F(m23, m23)', 'grad', 'jax.grad(lambda a: jnp.sum(F(a, m23.T)))(m23)'),
    'vdot': C('v', 'F(v3, v3)', 'm', 'F(m23, m23)', 'bad', 'F(v3, v5)'),
    'vecdot': C('v', 'F(m23, v3)', 'ax', 'F(m23, m23, axis=0)'),
    'matvec': C('v', 'F(m23, v3)', 'bad', 'F(m23, v5)'),
    'vecmat': C('v', 'F(jnp.ones(2), m23)'),
    'inner': C('v', 'F(v3, v3)', 'm', 'F(m23, m23)', '0d', 'F(x0, v3)'),
    'outer': C('v', 'F(v3, jnp.arange(2.0))', 'm', 'F(m23, v3)', 'empty', 'F(xe, v3)'),
    'tensordot': C('n', 'F(t234, jnp.ones((3, 4)), 2)', 'axes', 'F(t234, jnp.ones((4, 2)), axes=([2, 0], [0, 1]))', '0', 'F(v3, v3, 0)',
                   'bad', 'F(v3, v5, 1)'),
    'einsum': C('mm', "F('ij,jk->ik', m23, m23.T)", 'trace', "F('ii', m33)", 'sum', "F('ij->', m23)", 'outer', "F('i,j->ij', v3, v5)",
                'batch', "F('bij,bjk->bik', t234, jnp.ones((2, 4, 2)))", 'ell', "F('...j,j->...', t234, jnp.ones(4))",
                'bad', "F('ij,jk->ik', m23, m23)", 'grad', "jax.grad(lambda a: F('ij,j->', a, v3))(m23)"),
    'kron': C('v', 'F(v3, jnp.array([1.0, 10.0]))', 'm', 'F(m23, jnp.eye(2))'),
    'cross': C('v', 'F(v3, jnp.array([0.0, 1.0, 0.0]))', '2', 'F(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))', 'm', 'F(m23, v3)',
               'bad', 'F(v5, v5)'),
    'convolve': C('v', 'F(v5, jnp.array([1.0, 0.0, -1.0]))', 'same', "F(v5, v3, mode='same')", 'valid', "F(v5, v3, mode='valid')",
                  'int', 'F(jnp.arange(4), jnp.array([1, 1]))', 'empty', 'F(jnp.zeros(0), v3)'),
    'correlate': C('v', 'F(v5, v3)', 'full', "F(v5, v3, mode='full')"),
    'corrcoef': C('m', 'F(m23)', 'xy', 'F(v3, v3 ** 2)', 'col', 'F(m23, rowvar=False)'),
    'cov': C('m', 'F(m23)', 'v', 'F(v5)', 'bias', 'F(m23, bias=True)', 'ddof', 'F(m23, ddof=0)', 'xy', 'F(v3, v3 * 2)', 'col', 'F(m23.T, rowvar=False)'),
    'allclose': C('t', 'F(v3, v3 + 1e-9)', 'f', 'F(v3, v3 + 1.0)', 'nan', 'F(xf, xf)', 'nan2', 'F(xf, xf, equal_nan=True)', 'bc', 'F(m23, v3)'),
    'isclose': C('v', 'F(v5, v5 + 1e-6)', 'nan', 'F(xf, xf, equal_nan=True)', 'tol', 'F(v3, v3 + 0.1, atol=0.2)', 'int', 'F(mi23, mi23)'),
    'array_equal': C('t', 'F(m23, m23)', 'shape', 'F(v3, v5)', 'nan', 'F(xf, xf, equal_nan=True)', 'list', 'F(v3, [1, 2, 3])'),
    'array_equiv': C('t', 'F(m23, jnp.stack([m23[0], m23[0]]))', 'bc', 'F(jnp.ones((2, 3)), jnp.ones(3))'),
    'array_str': C('v', 'F(v3)'),
    'polyval': C('v', 'F(jnp.array([1.0, -2.0, 3.0]), v5)', '0d', 'F(jnp.array([2.0, 1.0]), 3.0)'),
    'polyadd': C('v', 'F(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0]))'),
    'polysub': C('v', 'F(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0]))'),
    'polymul': C('v', 'F(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0]))'),
    'polydiv': C('v', 'F(jnp.array([1.0, 3.0, 2.0]), jnp.array([1.0, 1.0]))'),
    'polyder': C('v', 'F(jnp.array([1.0, 3.0, 2.0]))', 'm', 'F(jnp.array([1.0, 3.0, 2.0, 4.0]), m=2)'),
    'polyint': C('v', 'F(jnp.array([3.0, 2.0]))', 'k', 'F(jnp.array([3.0, 2.0]), k=1.0)'),
    'polyfit': C('v', 'F(jnp.arange(5.0), 2 * jnp.arange(5.0) + 1, 1)'),
    'poly': C('v', 'F(jnp.array([1.0, 2.0]))'),
    'unwrap': C('v', 'F(jnp.array([0.0, 3.0, 6.5, 0.5]))', 'p', 'F(jnp.array([0.0, 3.0, 6.5]), period=4.0)'),
    'shape': C('m', 'F(m23)', '0d', 'F(x0)', 'list', 'F([1, 2])'),
    'ndim': C('m', 'F(t234)', '0d', 'F(3.0)'),
    'size': C('m', 'F(t234)', 'ax', 'F(m23, axis=-1)'),
    'isscalar': C('f', 'F(1.0)', 'arr0', 'F(x0)', 'arr', 'F(v3)'),
    'iscomplexobj': C('v', 'F(v3)'),
    'isrealobj': C('v', 'F(v3)'),
    'iterable': C('v', 'F(v3)', 'n', 'F(3)'),
    'isdtype': C('f', "F(jnp.float32, 'real floating')", 'i', "F(jnp.int32, ('integral', 'bool'))"),
    'issubdtype': C('f', 'F(jnp.float32, jnp.floating)', 'i', 'F(jnp.int32, jnp.floating)'),
    'can_cast': C('f', 'F(jnp.int32, jnp.float32)', 'n', 'F(jnp.float32, jnp.int32)'),
    'promote_types': C('f', 'F(jnp.int32, jnp.float32)', 'b', 'F(bool, jnp.int32)'),
    'result_type': C('f', 'F(mi23, 1.0)', 'b', 'F(xb, xi)', 'w', 'F(m23, mi23)'),
})

custom('jax.numpy.linalg', 'linalg', {
    'inv': C('m', 'F(spd)', 'batch', 'F(spd_b)', 'bad', 'F(m23)', 'int', 'F(jnp.eye(2, dtype=jnp.int32))', 'sing', 'F(jnp.ones((2, 2)))',
             'grad', 'jax.grad(lambda a: jnp.sum(F(a)))(spd)'),
    'det': C('m', 'F(spd)', 'batch', 'F(spd_b)', 'sing', 'F(jnp.ones((3, 3)))', 'empty', 'F(jnp.zeros((0, 0)))', 'bad', 'F(m23)',
             'grad', 'jax.grad(F)(spd)'),
    'slogdet': C('m', 'F(spd)', 'neg', 'F(-spd)', 'batch', 'F(spd_b)', 'grad', 'jax.grad(lambda a: F(a)[1])(spd)'),
    'solve': C('v', 'F(spd, v3)', 'm', 'F(spd, m23.T)', 'batch', 'F(spd_b, jnp.ones((2, 3)))', 'bad', 'F(spd, v5)',
               'grad', 'jax.grad(lambda b: jnp.sum(F(spd, b)))(v3)'),
    'cholesky': C('m', 'F(spd)', 'batch', 'F(spd_b)', 'notpd', 'F(-spd)', 'upper', 'F(spd, upper=True)', 'grad', 'jax.grad(lambda a: jnp.sum(F(a)))(spd)'),
    'qr': C('m', 'F(m33)', 'tall', 'F(m23.T)', 'r', "F(m23.T, mode='r')", 'complete', "F(m23.T, mode='complete')"),
    'eigh': C('m', 'F(spd)[0]', 'vec', 'jnp.abs(F(spd)[1])', 'batch', 'F(spd_b)[0]', 'grad', 'jax.grad(lambda a: jnp.sum(F(a)[0]))(spd)'),
    'eigvalsh': C('m', 'F(spd)', 'U', "F(spd, UPLO='U')"),
    'svd': C('vals', 'F(m23, compute_uv=False)', 'm', 'F(spd)[1]', 'u', 'jnp.abs(F(spd)[0])', 'full', 'F(m23, full_matrices=False)[1]'),
    'svdvals': C('m', 'F(m23)', 'batch', 'F(t234)'),
    'norm': C('v', 'F(v5)', 'ord1', 'F(v5, ord=1)', 'inf', 'F(v5, ord=jnp.inf)', 'm', 'F(m23)', 'fro', "F(m23, ord='fro')", 'nuc', "F(m33, ord='nuc')",
              'm1', 'F(m23, ord=1)', 'ax', 'F(m23, axis=-1)', 'kd', 'F(m23, axis=0, keepdims=True)', '0', 'F(v5, ord=0)', 'empty', 'F(jnp.zeros(0))',
              'm2', 'F(spd, ord=2)', 'grad', 'jax.grad(F)(v3)', 'grad0', 'jax.grad(F)(jnp.zeros(3))'),
    'vector_norm': C('v', 'F(m23)', 'ax', 'F(m23, axis=1, ord=3)', 'kd', 'F(m23, axis=0, keepdims=True)'),
    'matrix_norm': C('m', 'F(m23)', 'inf', 'F(m23, ord=jnp.inf)', 'batch', 'F(t234, ord=1)'),
    'cond': C('m', 'F(spd)', 'p', 'F(spd, p=1)'),
    'matrix_rank': C('m', 'F(spd)', 'low', 'F(jnp.ones((3, 3)))', 'rect', 'F(m23)'),
    'matrix_power': C('m', 'F(spd, 3)', '0', 'F(spd, 0)', 'neg', 'F(spd, -2)', 'bad', 'F(m23, 2)'),
    'pinv': C('m', 'F(m23)', 'sq', 'F(spd)', 'grad', 'jax.grad(lambda a: jnp.sum(F(a)))(spd)'),
    'lstsq': C('m', 'F(m23.T, v3[:3])', 'sq', 'F(spd, v3)[0]'),
    'multi_dot': C('m', 'F([m23, m23.T, v5[:2]])', 'two', 'F([v3, m23.T])'),
    'matmul': C('m', 'F(m23, m23.T)', 'bad', 'F(v3, 2.0)'),
    'outer': C('v', 'F(v3, v5)', 'bad', 'F(m23, v3)'),
    'cross': C('v', 'F(v3, v3[::-1])', 'bad', 'F(jnp.ones(2), jnp.ones(2))'),
    'tensordot': C('pos', 'F(m23, m23, 2)', 'v', 'F(m23, m23, axes=2)', 'ax', 'F(t234, jnp.ones((4, 3)), axes=([2, 1], [0, 1]))'),
    'trace': C('m', 'F(t234)', 'off', 'F(m23, offset=1)'),
    'diagonal': C('m', 'F(t234)', 'off', 'F(m33, offset=-1)'),
    'vecdot': C('v', 'F(m23, v3)'),
    'matrix_transpose': C('v', 'F(t234)', 'bad', 'F(v3)'),
})

custom('jax.numpy.fft', 'linalg2', {
    'fftfreq': C('n', 'F(5)', 'd', 'F(4, d=0.5)', 'dtype', 'F(4, dtype=jnp.float32)'),
    'rfftfreq': C('n', 'F(5)', 'd', 'F(6, 0.1)'),
    'fftshift': C('v', 'F(v5)', 'ax', 'F(m23, axes=-1)', 'm', 'F(m23)'),
    'ifftshift': C('v', 'F(v5)', 'ax', 'F(m23, axes=(0,))'),
})

custom('jax.scipy.linalg', 'linalg2', {
    'cho_factor': C('m', 'F(spd)[0]', 'low', 'F(spd, lower=True)[0]'),
    'cho_solve': C('v', 'F(jax.scipy.linalg.cho_factor(spd), v3)', 'm', 'F((jnp.linalg.cholesky(spd), True), m23.T)'),
    'cholesky': C('m', 'F(spd)', 'low', 'F(spd, lower=True)'),
    'det': C('m', 'F(spd)'),
    'eigh': C('m', 'F(spd)[0]', 'vec', 'jnp.abs(F(spd)[1])', 'vals', 'F(spd, eigvals_only=True)'),
    'expm': C('m', 'F(0.1 * spd)', 'zero', 'F(jnp.zeros((2, 2)))', 'batch', 'F(0.1 * spd_b)'),
    'inv': C('m', 'F(spd)'),
    'lu': C('m', 'F(spd)', 'rect', 'F(m23)'),
    'lu_factor': C('m', 'F(spd)'),
    'lu_solve': C('v', 'F(jax.scipy.linalg.lu_factor(spd), v3)', 'T', 'F(jax.scipy.linalg.lu_factor(spd), v3, trans=1)'),
    'qr': C('m', 'F(m33)', 'econ', "F(m23.T, mode='economic')", 'r', "F(m23.T, mode='r')"),
    'solve': C('v', 'F(spd, v3)', 'pos', "F(spd, v3, assume_a='pos')"),
    'solve_triangular': C('v', 'F(jnp.tril(spd), v3, lower=True)', 'up', 'F(jnp.triu(spd), m23.T)', 'T', 'F(jnp.triu(spd), v3, trans=1)',
                          'unit', 'F(jnp.tril(spd), v3, lower=True, unit_diagonal=True)'),
    'svd': C('m', 'F(m23, compute_uv=False)', 'full', 'F(spd, full_matrices=False)[1]'),
})

custom('jax.lax', 'lax_other', {
    'argmax': C('m', 'F(m23, 1, jnp.int32)', 'nan', 'F(xf, 0, jnp.int32)', 'int', 'F(mi23, 0, jnp.int32)', 'bad', 'F(m23, 2, jnp.int32)'),
    'argmin': C('m', 'F(m23, 0, jnp.int32)', 'nan', 'F(xf, 0, jnp.int32)', 'bool', 'F(xb, 0, jnp.int32)'),
    'reduce_sum': C('m', 'F(m23, (1,))', 'all', 'F(m23, (0, 1))', 'none', 'F(m23, ())', 'int', 'F(mi23, (0,))', 'empty', 'F(xe, (0,))',
                    'bad', 'F(m23, (2,))', 'grad', 'jax.grad(lambda x: F(x, (0, 1)))(m23)'),
    'reduce_max': C('m', 'F(m23, (1,))', 'nan', 'F(xf, (0,))', 'empty', 'F(xe, (0,))', 'bool', 'F(xb, (0,))', 'grad', 'jax.grad(lambda x: F(x, (0,)))(v5)'),
    'reduce_min': C('m', 'F(m23, (0,))', 'int', 'F(mi23, (1,))', 'empty', 'F(xe, (0,))'),
    'reduce_prod': C('m', 'F(m23, (1,))', 'int', 'F(mi23, (0, 1))', 'grad', 'jax.grad(lambda x: F(x, (0,)))(v3)'),
    'reduce_and': C('b', 'F(xb, (0,))', 'int', 'F(mi23, (1,))', 'f', 'F(m23, (0,))'),
    'reduce_or': C('b', 'F(xb, (0,))', 'int', 'F(mi23, (0,))'),
    'reduce_xor': C('b', 'F(xb, (0,))', 'int', 'F(mi23, (1,))'),
    'reduce': C('sum', 'F(m23, 0.0, lax.add, (0,))', 'max', 'F(mi23, -100, lax.max, (1,))'),
    'cumsum': C('m', 'F(m23, axis=1)', 'rev', 'F(v5, reverse=True)', 'int', 'F(mi23, axis=0)', 'empty', 'F(xe, axis=0)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x) ** 2))(v3)'),
    'cumprod': C('m', 'F(m23, axis=1)', 'rev', 'F(v5, reverse=True)'),
    'cummax': C('m', 'F(v5)', 'nan', 'F(xf)', 'int', 'F(mi23, axis=1, reverse=True)'),
    'cummin': C('m', 'F(v5)', 'bool', 'F(xb)'),
    'clamp': C('v', 'F(-0.5, v5, 0.5)', 'arr', 'F(jnp.zeros(5), v5, jnp.ones(5))', 'bad', 'F(0, v5, 1)', 'int', 'F(0, mi23, 1)'),
    'select': C('v', 'F(v5 > 0, v5, -v5)', 'bad', 'F(v3 > 0, v5, v5)'),
    'select_n': C('v', 'F(v5 > 0, v5, -v5)', 'idx', 'F(jnp.array([0, 2, 1]), v3, v3 * 2, v3 * 3)', '0d', 'F(True, v3, -v3)'),
    'integer_pow': C('v', 'F(v5, 3)', 'neg', 'F(v5, -2)', 'zero', 'F(v5, 0)', 'int', 'F(mi23, 2)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x, 3)))(v3)'),
    'convert_element_type': C('f2i', 'F(xf, jnp.int32)', 'i2f', 'F(xi, jnp.float32)', 'f2b', 'F(xf, jnp.bool_)', 'i2u', 'F(xi, jnp.uint32)'),
    'bitcast_convert_type': C('f2i', 'F(v3, jnp.int32)', 'i2f', 'F(xi, jnp.float32)', 'bad', 'F(v3, jnp.int8)'),
    'broadcast': C('v', 'F(v3, (2,))', '0d', 'F(x0, (2, 2))'),
    'broadcast_in_dim': C('v', 'F(v3, (2, 3), (1,))', 'bad', 'F(v3, (3, 2), (1,))', 'grad', 'jax.grad(lambda x: jnp.sum(F(x, (4, 3), (1,))))(v3)'),
    'broadcast_to_rank': C('v', 'F(v3, 3)'),
    'broadcasted_iota': C('m', 'F(jnp.int32, (2, 3), 1)', 'f', 'F(jnp.float32, (2, 2), 0)'),
    'iota': C('i', 'F(jnp.int32, 4)', 'f', 'F(jnp.float32, 3)'),
    'collapse': C('m', 'F(t234, 1, 3)', 'all', 'F(t234, 0)'),
    'concatenate': C('m', 'F([m23, m23], 0)', 'bad', 'F([m23, mi23], 0)'),
    'dot': C('mm', 'F(m23, m23.T)', 'vv', 'F(v3, v3)', 'bad', 'F(m23, m23)'),
    'dot_general': C('mm', 'F(m23, m23, (((1,), (1,)), ((), ())))', 'batch', 'F(t234, t234, (((2,), (2,)), ((0,), (0,))))',
                     'grad', 'jax.grad(lambda a: jnp.sum(F(a, m23, (((1,), (1,)), ((), ())))))(m23)'),
    'dynamic_slice': C('v', 'F(v5, (1,), (3,))', 'clip', 'F(v5, (4,), (3,))', 'neg', 'F(v5, (-2,), (2,))', 'm', 'F(m23, (1, 1), (1, 2))',
                       'grad', 'jax.grad(lambda x: jnp.sum(F(x, (1,), (2,))))(v5)'),
    'dynamic_slice_in_dim': C('v', 'F(m23, 1, 2, axis=1)'),
    'dynamic_index_in_dim': C('v', 'F(m23, 1, axis=0)', 'nokeep', 'F(m23, 2, axis=1, keepdims=False)'),
    'dynamic_update_slice': C('v', 'F(v5, jnp.array([9.0, 8.0]), (4,))', 'm', 'F(m23, jnp.ones((1, 2)), (1, 1))', 'bad', 'F(v5, jnp.ones(2, jnp.int32), (0,))'),
    'dynamic_update_slice_in_dim': C('v', 'F(m23, jnp.ones((2, 1)), 2, axis=1)'),
    'dynamic_update_index_in_dim': C('v', 'F(m23, jnp.ones(3), 0, axis=0)'),
    'index_in_dim': C('v', 'F(m23, 1, axis=0)', 'neg', 'F(m23, -1, axis=1, keepdims=False)'),
    'slice': C('v', 'F(v5, (1,), (4,))', 'stride', 'F(v6, (0,), (6,), (2,))', 'm', 'F(m23, (0, 1), (2, 3))', 'bad', 'F(v5, (1,), (7,))'),
    'slice_in_dim': C('v', 'F(m23, 0, 2, axis=1)', 'stride', 'F(v6, 1, 6, 2)'),
    'expand_dims': C('v', 'F(v3, (0,))', 'neg', 'F(v3, (-1,))'),
    'squeeze': C('v', 'F(jnp.ones((1, 3)), (0,))', 'bad', 'F(m23, (0,))'),
    'reshape': C('v', 'F(m23, (3, 2))', 'dims', 'F(m23, (3, 2), (1, 0))', 'bad', 'F(m23, (4,))'),
    'rev': C('v', 'F(m23, (0,))', 'both', 'F(m23, (0, 1))'),
    'transpose': C('v', 'F(t234, (2, 0, 1))', 'bad', 'F(m23, (0,))'),
    'pad': C('v', 'F(v3, 0.0, ((1, 2, 0),))', 'int', 'F(v3, 0.0, ((0, 0, 1),))', 'neg', 'F(v5, -1.0, ((-1, -1, 0),))',
             'grad', 'jax.grad(lambda x: jnp.sum(F(x, 0.0, ((1, 1, 1),)) ** 2))(v3)'),
    'full': C('v', 'F((2, 3), 1.5)', 'dtype', 'F((2,), 3, jnp.float32)'),
    'full_like': C('v', 'F(mi23, 7)', 'dtype', 'F(v3, 2.5, jnp.int32)'),
    'sort': C('v', 'F(v5)', 'nan', 'F(xf)', 'dim', 'F(m23, dimension=0)', 'multi', 'F((jnp.array([2, 1, 2]), v3), num_keys=1)',
              'grad', 'jax.grad(lambda x: jnp.sum(F(x) * jnp.arange(5.0)))(v5)'),
    'sort_key_val': C('v', 'F(v3, jnp.arange(3))', 'm', 'F(m23, mi23, dimension=0)'),
    'top_k': C('v', 'F(v5, 2)', 'm', 'F(m23, 1)', 'nan', 'F(xf, 3)', 'int', 'F(mi23, 2)', 'bad', 'F(v3, 5)',
               'grad', 'jax.grad(lambda x: jnp.sum(F(x, 2)[0]))(v5)'),
    'reduce_window': C('max', 'F(m23, -jnp.inf, lax.max, (1, 2), (1, 1), "VALID")', 'sum', 'F(v6, 0.0, lax.add, (2,), (2,), "SAME")',
                       'pad', 'F(v5, 0.0, lax.add, (3,), (1,), ((1, 1),))'),
    'reduce_window_shape_tuple': C('v', 'F((4, 6), (2, 2), (2, 2), ((0, 0), (0, 0)))'),
    'padtype_to_pads': C('same', 'F((5, 6), (3, 2), (2, 2), "SAME")', 'valid', 'F((5,), (3,), (1,), "VALID")'),
    'conv': C('v', 'F(img, ker, (1, 1), "SAME")', 'valid', 'F(img, ker, (2, 1), "VALID")'),
    'conv_general_dilated': C('v', 'F(img, ker, (1, 1), "SAME")', 'dil', 'F(img, ker, (1, 1), ((1, 1), (0, 0)), lhs_dilation=(1, 1), rhs_dilation=(2, 1))',
                              'nhwc', "F(jnp.transpose(img, (0, 2, 3, 1)), jnp.transpose(ker, (2, 3, 1, 0)), (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
                              'grad', 'jax.grad(lambda k: jnp.sum(F(img, k, (1, 1), "SAME") ** 2))(ker)'),
    'conv_with_general_padding': C('v', 'F(img, ker, (1, 1), ((1, 0), (0, 1)), None, None)'),
    'conv_transpose': C('v', "F(img, jnp.transpose(ker, (2, 3, 1, 0)), (2, 2), 'SAME', dimension_numbers=('NCHW', 'HWIO', 'NCHW'))"),
    'conv_dimension_numbers': C('v', "F((1, 2, 4, 5), (3, 2, 2, 2), ('NCHW', 'OIHW', 'NCHW'))"),
    'stop_gradient': C('v', 'F(v3)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x) * x))(v3)'),
    'map': C('v', 'F(lambda r: r * 2, m23)'),
    'scan': C('v', 'F(lambda c, x: (c + x, c * x), 0.0, v5)', 'none', 'F(lambda c, _: (c + 1, c), 0, None, length=3)',
              'rev', 'F(lambda c, x: (c + x, c), 0.0, v3, reverse=True)', 'grad', 'jax.grad(lambda x: F(lambda c, y: (c * y, c), 1.0, x)[0])(v3)'),
    'fori_loop': C('v', 'F(0, 3, lambda i, c: c + i, 0)', 'f', 'F(1, 4, lambda i, c: c * 2.0, v3)', 'empty', 'F(3, 0, lambda i, c: c + 1, 5)'),
    'while_loop': C('v', 'F(lambda c: c < 10, lambda c: c * 2, 1)', 'arr', 'F(lambda c: c[0] < 3.0, lambda c: c + 1.0, v3)'),
    'cond': C('t', 'F(True, lambda x: x + 1, lambda x: x - 1, v3)', 'arr', 'F(x0 > 1, lambda x: x * 2, lambda x: -x, v3)',
              'bad', 'F(True, lambda x: x, lambda x: x.astype(jnp.int32), v3)'),
    'switch': C('v', 'F(1, [lambda x: x, lambda x: x * 2, lambda x: -x], v3)', 'clip', 'F(7, [lambda x: x, lambda x: -x], v3)',
                'neg', 'F(-3, [lambda x: x, lambda x: -x], v3)'),
    'associative_scan': C('v', 'F(lax.add, v5)', 'rev', 'F(jnp.maximum, v5, reverse=True)', 'ax', 'F(lax.mul, m23, axis=1)'),
})

custom('jax.nn', 'nn', {
    'one_hot': C('v', 'F(jnp.array([0, 2, 5]), 3)', 'neg', 'F(jnp.array([-1, 1]), 3)', 'ax', 'F(jnp.array([0, 1]), 3, axis=0)',
                 'dtype', 'F(jnp.array([1]), 2, dtype=jnp.int32)', 'float', 'F(jnp.array([1.0, 1.5]), 3)'),
})

custom('jax.nn.initializers', 'random', {
    'zeros': C('v', 'F(key, (2, 3))'),
    'ones': C('v', 'F(key, (2,), jnp.int32)'),
    'constant': C('v', 'F(2.5)(key, (2, 2))'),
    'normal': C('v', 'F()(key, (2, 3))', 's', 'F(0.5)(key, (3,))'),
    'uniform': C('v', 'F()(key, (2, 3))', 's', 'F(2.0)(key, (3,))'),
    'truncated_normal': C('v', 'F()(key, (2, 3))', 's', 'F(1.0)(key, (4,))'),
    'variance_scaling': C('v', "F(2.0, 'fan_in', 'truncated_normal')(key, (3, 4))", 'u', "F(1.0, 'fan_avg', 'uniform')(key, (3, 4))",
                          'n', "F(1.0, 'fan_out', 'normal')(key, (3, 4))", 'conv', "F(1.0, 'fan_in', 'normal')(key, (3, 3, 2, 4))"),
})
for _n in names('glorot_normal glorot_uniform he_normal he_uniform kaiming_normal kaiming_uniform lecun_normal lecun_uniform xavier_normal xavier_uniform'):
    CUSTOM['jax.nn.initializers']['random'][_n] = C('v', 'F()(key, (3, 4))', 'dtype', 'F()(key, (2, 3), jnp.float32)', 'conv', 'F()(key, (2, 2, 3, 4))')

custom('jax.random', 'random', {
    'PRNGKey': C('v', 'F(0)', 'big', 'F(2**40)', 'neg', 'F(-1)'),
    'key': C('v', 'jax.random.key_data(F(3))'),
    'key_data': C('v', 'F(jax.random.key(1))', 'raw', 'F(key)'),
    'wrap_key_data': C('v', 'jax.random.key_data(F(key))'),
    'key_impl': C('v', 'F(jax.random.key(0))'),
    'clone': C('v', 'F(key)'),
    'split': C('v', 'F(key)', 'n', 'F(key, 3)', 'shape', 'F(key, (2, 2)).shape'),
    'fold_in': C('v', 'F(key, 7)', 'big', 'F(key, 2**31 + 5)'),
    'bits': C('v', 'F(key, (3,))', '0d', 'F(key)'),
    'uniform': C('v', 'F(key, (3,))', 'range', 'F(key, (2, 2), minval=-1.0, maxval=3.0)', 'arr', 'F(key, (3,), minval=jnp.zeros(3), maxval=v3)',
                 '0d', 'F(key)', 'empty', 'F(key, (0,))'),
    'normal': C('v', 'F(key, (3,))', '0d', 'F(key)', 'empty', 'F(key, (2, 0))'),
    'randint': C('v', 'F(key, (4,), 0, 10)', 'neg', 'F(key, (3,), -5, 5)', 'big', 'F(key, (2,), 0, 2**31 - 1)', 'arr', 'F(key, (3,), jnp.array([0, 10, 100]), 200)'),
    'bernoulli': C('v', 'F(key, 0.3, (5,))', 'arr', 'F(key, jnp.array([0.0, 0.5, 1.0]))'),
    'categorical': C('v', 'F(key, jnp.log(jnp.array([0.2, 0.3, 0.5])), shape=(5,))', 'm', 'F(key, m23)', 'ax', 'F(key, m23, axis=0)'),
    'choice': C('v', 'F(key, 5, (3,))', 'arr', 'F(key, v5, (2,), replace=False)', 'p', 'F(key, 3, (4,), p=jnp.array([0.1, 0.2, 0.7]))'),
    'permutation': C('n', 'F(key, 5)', 'arr', 'F(key, m23)', 'ax', 'F(key, m23, axis=1, independent=True)'),
    'exponential': C('v', 'F(key, (3,))'),
    'gumbel': C('v', 'F(key, (3,))'),
    'laplace': C('v', 'F(key, (3,))'),
    'logistic': C('v', 'F(key, (3,))'),
    'cauchy': C('v', 'F(key, (3,))'),
    'lognormal': C('v', 'F(key, 0.5, (3,))'),
    'pareto': C('v', 'F(key, 2.0, (3,))'),
    'rayleigh': C('v', 'F(key, 2.0, (3,))'),
    'weibull_min': C('v', 'F(key, 1.0, 2.0, (3,))'),
    'triangular': C('v', 'F(key, 0.0, 0.5, 1.0, (3,))'),
    'geometric': C('v', 'F(key, 0.3, (3,))'),
    'rademacher': C('v', 'F(key, (5,))'),
    'truncated_normal': C('v', 'F(key, -1.0, 2.0, (3,))', 'arr', 'F(key, jnp.zeros(2), jnp.ones(2))'),
})

# the samplers JAX writes as while_loops (gamma, poisson, binomial) and those built on them: a batch of
# their own, as each loop iteration is a dispatch and a readback on WebGPU
custom('jax.random', 'random_loops', {
    'gamma': C('v', 'F(key, 2.0, (3,))', 'arr', 'F(key, jnp.array([0.2, 1.0, 7.5]))', 'empty', 'F(key, 1.0, (0,))', 'bad', 'F(key, v3, (2,))',
               'grad', 'jax.grad(lambda a: jnp.sum(F(key, a)))(jnp.array([0.5, 2.0, 9.0]))'),
    'loggamma': C('v', 'F(key, jnp.array([0.05, 1.0, 4.0]))', 'shape', 'F(key, 0.5, (2, 2))'),
    'beta': C('v', 'F(key, 2.0, 5.0, (3,))', 'arr', 'F(key, jnp.array([0.5, 3.0]), 1.5)'),
    'dirichlet': C('v', 'F(key, jnp.array([1.0, 2.0, 0.5]))', 'shape', 'F(key, jnp.ones(2), (2,))', '0d', 'F(key, 1.0)'),
    't': C('v', 'F(key, 4.0, (3,))'),
    'chisquare': C('v', 'F(key, 2.5, (3,))'),
    'f': C('v', 'F(key, 2.0, 6.0, (3,))'),
    'poisson': C('v', 'F(key, 2.5, (4,))', 'arr', 'F(key, jnp.array([0.0, 0.5, 15.0, 250.0]))', 'int', 'F(key, 3, (2,))'),
    'binomial': C('v', 'F(key, 8, 0.4, (4,))', 'arr', 'F(key, jnp.array([3.0, 40.0, 100.0]), jnp.array([0.7, 0.5, 0.1]))', 'nan', 'F(key, 5.0, jnp.array([jnp.nan, -0.5]))'),
    'multinomial': C('v', 'F(key, 10, jnp.array([0.5, 0.25, 0.25]))', 'batch', 'F(key, jnp.array([5.0, 30.0]), jnp.array([[0.1, 0.9], [0.6, 0.4]]))'),
    'maxwell': C('v', 'F(key, (3,))'),
    'double_sided_maxwell': C('v', 'F(key, 0.5, 2.0, (3,))'),
    'generalized_normal': C('v', 'F(key, 1.0, (3,))', 'p3', 'F(key, 3.0, (2,))'),
    'ball': C('v', 'F(key, 2)', 'p1', 'F(key, 3, 1.0, (2,))'),
    'wald': C('v', 'F(key, 1.5, (3,))'),
    'orthogonal': C('v', 'F(key, 3)', 'nm', 'F(key, 3, m=2)', 'batch', 'F(key, 2, (2,))'),
    'multivariate_normal': C('v', 'F(key, jnp.zeros(3), spd)', 'shape', 'F(key, gv, spd, (2,))', 'bad', 'F(key, jnp.zeros(2), spd)'),
})

custom('jax.scipy.stats', 'stats', {
    'norm.logpdf': C('v', 'F(v5)', 'loc', 'F(v5, 1.0, 2.0)', 'nan', 'F(xf)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(v3)'),
    'norm.pdf': C('v', 'F(v5, scale=0.5)'),
    'norm.cdf': C('v', 'F(v5)', 'nan', 'F(xf)'),
    'norm.logcdf': C('v', 'F(v5)'),
    'norm.ppf': C('v', 'F(jnp.array([0.0, 0.1, 0.5, 0.99, 1.0]))'),
    'norm.sf': C('v', 'F(v5)'),
    'uniform.logpdf': C('v', 'F(v5)', 'loc', 'F(v5, -1.0, 2.0)'),
    'uniform.pdf': C('v', 'F(v5)'),
    'expon.logpdf': C('v', 'F(v5)'),
    'expon.pdf': C('v', 'F(v5, scale=2.0)'),
    'laplace.logpdf': C('v', 'F(v5)'),
    'laplace.cdf': C('v', 'F(v5)'),
    'logistic.logpdf': C('v', 'F(v5)'),
    'logistic.cdf': C('v', 'F(v5)'),
    'cauchy.logpdf': C('v', 'F(v5)'),
    'gamma.logpdf': C('v', 'F(v5, 2.0)'),
    'beta.logpdf': C('v', 'F(jnp.array([0.1, 0.5, 0.9, 1.5]), 2.0, 3.0)'),
    't.logpdf': C('v', 'F(v5, 3.0)'),
    'multivariate_normal.logpdf': C('v', 'F(m23.T, jnp.zeros(2), jnp.eye(2))', 'one', 'F(v3, jnp.zeros(3), spd)', 'bad', 'F(v3, jnp.zeros(2), jnp.eye(2))'),
    'bernoulli.logpmf': C('v', 'F(jnp.array([0, 1, 2]), 0.3)'),
    'bernoulli.pmf': C('v', 'F(jnp.array([0, 1]), 0.3)'),
    'poisson.logpmf': C('v', 'F(jnp.array([0, 1, 4]), 2.0)'),
    'poisson.pmf': C('v', 'F(jnp.array([0, 1, 4]), 2.0)'),
})

custom('jax.lax', 'lax4', {
    'betainc': C('v', 'F(2.0 * jnp.ones(4), 3.0 * jnp.ones(4), jnp.array([0.0, 0.1, 0.5, 1.0]))', 'nan', 'F(jnp.ones(3), jnp.ones(3), jnp.array([-0.5, nan, 2.0]))',
                 'bad', 'F(jnp.ones(3), jnp.ones(2), jnp.ones(3))', 'int', 'F(vi3, vi3, vi3)', 'grad', 'jax.grad(lambda x: jnp.sum(F(2.0, 3.0, x)))(jnp.array([0.2, 0.7]))'),
    'random_gamma_grad': C('v', 'F(jnp.array([0.5, 1.0, 3.0]), jnp.array([0.2, 1.0, 4.0]))'),
})

custom('jax.lax', 'lax3', {
    'polygamma': C('v', 'F(jnp.array([0.0, 1.0, 2.0, 3.0, 1.0, 0.5]), jnp.array([0.5, 1.0, 2.5, 3.0, -1.5, 2.0]))', 'int', 'F(vi3, vi3)',
                   'grad', 'jax.grad(lambda x: jnp.sum(F(jnp.ones(2), x)))(jnp.array([0.5, 2.0]))'),
    'cumlogsumexp': C('v', 'F(v5)', 'ax', 'F(m23, axis=1)', 'rev', 'F(m23, axis=0, reverse=True)', 'inf', 'F(xf)', 'empty', 'F(xe, axis=0)',
                      'int', 'F(vi3)', 'bad', 'F(m23, axis=2)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(v5)'),
    'batch_matmul': C('m', 'F(t234, jnp.ones((2, 4, 2)))', 'bad', 'F(m23, v3)', 'rank', 'F(t234, m23.T)'),
    'approx_max_k': C('v', 'F(v5, 2)', 'm', 'F(m23, 2, reduction_dimension=0)', 'bad', 'F(v5, 6)'),
    'approx_min_k': C('v', 'F(v5, 3)', 'm', 'F(m23, 1)'),
    'split': C('v', 'F(v6, [1, 2, 3])', 'ax', 'F(m23, (1, 2), axis=1)', 'bad', 'F(v5, [1, 2])', 'neg', 'F(v3, [-1, 4])'),
    'stack': C('v', 'F([v3, v3])', 'ax', 'F([m23, m23], axis=-1)', 'bad', 'F([v3, v5])'),
    'unstack': C('m', 'F(m23)', 'ax', 'F(t234, axis=-1)'),
    'tile': C('v', 'F(v3, (2,))', 'm', 'F(m23, (2, 1))', 'bad', 'F(v3, (2, 2))'),
    'broadcast_like': C('v', 'F(v3, m23)', 'bad', 'F(v5, m23)'),
    'broadcast_shapes': C('ok', 'F((2, 1), (3,))', 'bad', 'F((2,), (3,))'),
    'dtype': C('f', 'F(1.0)', 'i', 'F(mi23)', 'b', 'F(xb)'),
    'empty': C('v', 'F((2, 3), jnp.float32)', 'i', 'F((2,), jnp.int32)'),
    'index_take': C('m', 'F(m23, (jnp.array([0, 1]), jnp.array([2, 0])), (0, 1))', 'ax', 'F(t234, (jnp.array([2, 0]),), (1,))'),
    'mulhi': C('i', 'F(jnp.array([3, -7, 2**30, -1], jnp.int32), jnp.array([5, 9, 16, -1], jnp.int32))',
               'u', 'F(jnp.array([3, 2**31 + 5, 2**32 - 1], jnp.uint32), jnp.array([5, 2**31, 2**32 - 1], jnp.uint32))', 'bad', 'F(v3, v3)'),
    'reduce_precision': C('half', 'F(jnp.array([1.2345678, 3.14159e10, 1e-30, nan, -2.5, inf]), exponent_bits=5, mantissa_bits=10)',
                          'bf16', 'F(v5, exponent_bits=8, mantissa_bits=7)', 'int', 'F(vi3, 5, 10)'),
    'optimization_barrier': C('v', 'F((v3, m23))'),
    'platform_dependent': C('cpu', 'F(v3, cpu=lambda x: x * 3, default=lambda x: x)', 'default', 'F(v3, default=lambda x: x + 1)'),
})

custom('jax.scipy.special', 'scipy4', {
    'betainc': C('v', 'F(2.0, 3.0, jnp.array([0.0, 0.1, 0.5, 0.9, 1.0]))', 'bcast', 'F(jnp.array([0.5, 2.0]), 1.5, jnp.array([[0.3], [0.8]]))',
                 'nan', 'F(1.0, 1.0, jnp.array([-0.5, nan, 2.0]))', 'int', 'F(2, 3, 0.5)', 'grad', 'jax.grad(lambda x: jnp.sum(F(2.0, 3.0, x)))(jnp.array([0.2, 0.7]))'),
    'expn': C('v', 'F(jnp.array([0, 1, 2, 3]), jnp.array([0.5, 1.0, 2.0, 0.0]))', 'bcast', 'F(2, jnp.array([0.1, 1.5, 3.0, 20.0]))',
              'neg', 'F(1, jnp.array([-1.0, nan]))', 'grad', 'jax.grad(lambda x: jnp.sum(F(2, x)))(jnp.array([0.5, 1.5]))'),
})

custom('jax.scipy.special', 'scipy3', {
    'multigammaln': C('v', 'F(jnp.array([2.0, 3.5]), 3)', '0d', 'F(4.0, 2)', 'grad', 'jax.grad(lambda a: jnp.sum(F(a, 2)))(jnp.array([2.0, 3.0]))'),
    'bessel_jn': C('v', 'F(jnp.array([0.5, 1.0, 4.0]), v=2)', 'v0', 'F(jnp.array([1.0, 2.5]), v=0)', 'm', 'F(jnp.array([[1.0, 2.0], [3.0, 6.0]]), v=1)'),
    'zeta': C('v', 'F(jnp.array([1.0, 1.5, 2.0, 3.0, 4.5, 0.5, 2.0, 3.0]), jnp.array([1.0, 1.0, 2.0, 0.5, 3.0, 1.0, -1.0, -2.0]))',
              'bcast', 'F(2.0, jnp.array([0.5, 1.0, 10.0]))', 'int', 'F(2, 3)', 'none', 'F(v3)', 'grad', 'jax.grad(lambda q: jnp.sum(F(3.0, q)))(jnp.array([0.5, 2.0]))'),
    'polygamma': C('v', 'F(jnp.array([0, 1, 2, 3]), jnp.array([0.5, 1.0, 2.5, -1.5]))', 'bcast', 'F(1, jnp.array([0.1, 1.7, 25.0]))', 'float', 'F(1.0, v3)',
                   'grad', 'jax.grad(lambda x: jnp.sum(F(1, x)))(jnp.array([0.5, 2.0]))'),
    'softmax': C('v', 'F(v5)', 'ax', 'F(m23, axis=0)', 'tuple', 'F(t234, axis=(0, 2))', 'nan', 'F(xf)'),
    'log_softmax': C('v', 'F(v5)', 'ax', 'F(m23, axis=0)'),
    'logsumexp': C('b', 'F(v5, b=jnp.array([1.0, -1.0, 2.0, 0.5, 0.1]))', 'neg', 'F(v5, b=-1.0)', 'sign', 'F(v5, b=-1.0, return_sign=True)',
                   'bax', 'F(m23, axis=1, b=jnp.array([1.0, -1.0, 2.0]), keepdims=True)', 'where', 'F(m23, axis=1, where=m23 > 0)',
                   'zero', 'F(v3, b=jnp.zeros(3))', 'grad', 'jax.grad(lambda x: F(x, b=jnp.array([1.0, 2.0, 3.0])))(v3)'),
})

custom('jax.scipy.stats', 'stats2', {
    'binom.logpmf': C('v', 'F(jnp.array([0.0, 1.0, 3.0, 10.0, 11.0]), 10, 0.3)', 'p0', 'F(jnp.array([0, 1]), 5, 0.0)'),
    'binom.pmf': C('v', 'F(jnp.array([0, 2, 5]), 5, 0.4)'),
    'nbinom.logpmf': C('v', 'F(jnp.array([0.0, 1.0, 3.0, -1.0]), 3, 0.4)'),
    'nbinom.pmf': C('v', 'F(jnp.array([0, 2, 5]), 2.5, 0.6)'),
    'geom.logpmf': C('v', 'F(jnp.array([0.0, 1.0, 3.0]), 0.3)'),
    'geom.pmf': C('v', 'F(jnp.array([1, 2, 5]), 0.5)'),
    'betabinom.logpmf': C('v', 'F(jnp.array([0.0, 1.0, 3.0, 11.0]), 10, 2.0, 3.0)', 'bad', 'F(jnp.array([1.0]), 4, -1.0, 1.0)'),
    'betabinom.pmf': C('v', 'F(jnp.array([0, 2, 4]), 4, 0.5, 0.5)'),
    'multinomial.logpmf': C('v', 'F(jnp.array([1, 2, 1]), 4, jnp.array([0.2, 0.5, 0.3]))', 'bad', 'F(jnp.array([1, 2, 1]), 5, jnp.array([0.2, 0.5, 0.3]))',
                            'float', 'F(jnp.array([1.0, 2.0]), 3, jnp.array([0.5, 0.5]))'),
    'multinomial.pmf': C('v', 'F(jnp.array([2, 0, 1]), 3, jnp.array([0.2, 0.5, 0.3]))'),
    'chi2.logpdf': C('v', 'F(jnp.array([-1.0, 0.0, 0.5, 1.5, 3.0]), 3.0)', 'loc', 'F(v5, 2.0, 1.0, 2.0)'),
    'chi2.pdf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 4.0)'),
    'expon.logcdf': C('v', 'F(v5)'),
    'expon.logsf': C('v', 'F(v5, scale=2.0)'),
    'cauchy.logcdf': C('v', 'F(v5)'),
    'cauchy.sf': C('v', 'F(v5)'),
    'cauchy.logsf': C('v', 'F(v5, 1.0, 2.0)'),
    'cauchy.isf': C('v', 'F(jnp.array([0.1, 0.5, 0.9]))'),
    'bernoulli.ppf': C('v', 'F(jnp.array([0.0, 0.1, 0.7, 1.0, 1.5]), 0.3)'),
    'gumbel_l.logpdf': C('v', 'F(v5)', 'bad', 'F(v5, 0.0, -1.0)'),
    'gumbel_l.pdf': C('v', 'F(v5, 1.0, 2.0)'),
    'gumbel_l.logcdf': C('v', 'F(v5)'),
    'gumbel_l.cdf': C('v', 'F(v5)'),
    'gumbel_l.ppf': C('v', 'F(jnp.array([0.0, 0.1, 0.5, 1.0]))'),
    'gumbel_l.logsf': C('v', 'F(v5)'),
    'gumbel_l.sf': C('v', 'F(v5)'),
    'gumbel_r.logpdf': C('v', 'F(v5)', 'bad', 'F(v5, 0.0, -1.0)'),
    'gumbel_r.pdf': C('v', 'F(v5, 1.0, 2.0)'),
    'gumbel_r.logcdf': C('v', 'F(v5)'),
    'gumbel_r.cdf': C('v', 'F(v5)'),
    'gumbel_r.ppf': C('v', 'F(jnp.array([0.0, 0.1, 0.5, 1.0]))'),
    'gumbel_r.logsf': C('v', 'F(v5)'),
    'gumbel_r.sf': C('v', 'F(v5)'),
    'pareto.logpdf': C('v', 'F(jnp.array([0.5, 1.0, 1.5, 3.0]), 2.0)'),
    'pareto.pdf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 2.0, 0.5, 1.5)'),
    'pareto.cdf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 2.0)'),
    'pareto.logcdf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 2.0)'),
    'pareto.sf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 3.0)'),
    'pareto.logsf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 3.0)'),
    'pareto.ppf': C('v', 'F(jnp.array([-0.1, 0.0, 0.5, 0.9]), 2.0)'),
    'gennorm.logpdf': C('v', 'F(v5, 1.5)'),
    'gennorm.pdf': C('v', 'F(v5, 2.0)'),
    'vonmises.logpdf': C('v', 'F(v5, 2.0)', 'bad', 'F(v3, -1.0)'),
    'vonmises.pdf': C('v', 'F(v5, 0.5)'),
    'wrapcauchy.logpdf': C('v', 'F(jnp.array([-1.0, 0.0, 1.0, 6.0, 7.0]), 0.5)', 'bad', 'F(v3, 1.5)'),
    'wrapcauchy.pdf': C('v', 'F(jnp.array([0.0, 1.0, 3.0]), 0.3)'),
    'dirichlet.logpdf': C('v', 'F(jnp.array([0.2, 0.3, 0.5]), jnp.array([1.0, 2.0, 3.0]))', 'short', 'F(jnp.array([0.2, 0.3]), jnp.array([1.0, 2.0, 3.0]))',
                          'batch', 'F(jnp.array([[0.2, 0.4], [0.3, 0.1]]), jnp.array([1.0, 2.0, 3.0]))', 'off', 'F(jnp.array([0.5, 0.6, 0.1]), jnp.array([1.0, 2.0, 3.0]))',
                          'bad', 'F(jnp.array([0.5, 0.5]), jnp.ones((2, 2)))'),
    'dirichlet.pdf': C('v', 'F(jnp.array([0.2, 0.3, 0.5]), jnp.array([1.0, 2.0, 3.0]))'),
    'sem': C('m', 'F(m23)', 'ax', 'F(m23, axis=1)', 'none', 'F(v5, axis=None, ddof=0)', 'kd', 'F(m23, axis=0, keepdims=True)', 'omit', "F(xf[:4], nan_policy='omit')"),
    'rankdata': C('v', 'F(jnp.array([3.0, 1.0, 3.0, 2.0]))', 'min', "F(jnp.array([3, 1, 3, 2]), method='min')", 'max', "F(jnp.array([3, 1, 3, 2]), method='max')",
                  'dense', "F(jnp.array([3, 1, 3, 2]), method='dense')", 'ord', "F(jnp.array([3, 1, 3, 2]), method='ordinal')", 'nan', 'F(xf)',
                  'ax', 'F(m23, axis=1)', 'bad', "F(v3, method='foo')"),
})
custom('jax.scipy.stats', 'stats3', {
    'mode': C('m', 'F(jnp.array([[1, 2, 2, 3], [4, 4, 1, 1], [2, 2, 2, 0]]))', 'ax', 'F(jnp.array([[1, 2, 2], [4, 1, 1]]), axis=1)',
              'none', 'F(v5, axis=None, keepdims=True)', 'bad', "F(v3, nan_policy='foo')", 'field', 'F(jnp.array([1.5, 2.5, 1.5])).count'),
    'chi2.cdf': C('v', 'F(jnp.array([-1.0, 0.0, 0.5, 1.5, 3.0]), 3.0)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x, 3.0)))(jnp.array([0.5, 2.0]))'),
    'chi2.logcdf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 2.0)'),
    'chi2.sf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 2.0)'),
    'chi2.logsf': C('v', 'F(jnp.array([0.5, 1.5, 3.0]), 5.0)'),
    'gamma.cdf': C('v', 'F(jnp.array([-1.0, 0.0, 0.5, 1.5, 3.0]), 2.0)', 'scale', 'F(v5, 2.0, 0.5, 2.0)'),
    'gamma.logcdf': C('v', 'F(jnp.array([0.5, 1.5]), 2.0)'),
    'gamma.sf': C('v', 'F(jnp.array([-1.0, 0.5, 1.5, 3.0]), 2.0)'),
    'gamma.logsf': C('v', 'F(jnp.array([0.5, 1.5]), 2.0)'),
    'beta.cdf': C('v', 'F(jnp.array([-0.1, 0.1, 0.5, 0.9, 1.2]), 2.0, 3.0)'),
    'beta.logcdf': C('v', 'F(jnp.array([0.1, 0.5]), 2.0, 3.0)'),
    'beta.sf': C('v', 'F(jnp.array([0.1, 0.5, 0.9]), 2.0, 3.0)'),
    'beta.logsf': C('v', 'F(jnp.array([0.1, 0.5]), 0.5, 0.5)'),
    'poisson.cdf': C('v', 'F(jnp.array([-1.0, 0.0, 1.0, 3.0, 5.5]), 2.5)'),
    'gennorm.cdf': C('v', 'F(v5, 1.5)'),
    'truncnorm.logpdf': C('v', 'F(v5, -1.0, 2.0)', 'bad', 'F(v3, 1.0, 0.0)', 'tail', 'F(jnp.array([2.5, 3.0]), 2.0, 4.0)'),
    'truncnorm.pdf': C('v', 'F(v5, -1.0, 2.0, 0.5, 2.0)'),
    'truncnorm.logcdf': C('v', 'F(v5, -1.0, 2.0)'),
    'truncnorm.cdf': C('v', 'F(v5, -1.0, 2.0)', 'right', 'F(jnp.array([0.6, 1.0, 3.0]), 0.5, 4.0)'),
    'truncnorm.logsf': C('v', 'F(v5, -1.0, 2.0)'),
    'truncnorm.sf': C('v', 'F(v5, -1.0, 2.0)'),
})

custom('jax.scipy.linalg', 'linalg3', {
    'block_diag': C('m', 'F(jnp.ones((2, 2)), v3, 5.0)', 'none', 'F()', 'int', 'F(mi23, jnp.array([[1.5]]))', 'bad', 'F(t234)'),
    'toeplitz': C('c', 'F(v3)', 'cr', 'F(v3, jnp.array([9.0, 8.0]))', 'int', 'F(vi3)', 'batch', 'F(m23)', '0d', 'F(x0)'),
    'hankel': C('c', 'F(v3)', 'cr', 'F(jnp.array([1.0, 2.0]), jnp.array([7.0, 8.0, 9.0]))', 'bad', 'F(x0)'),
    'circulant': C('v', 'F(v3)', 'batch', 'F(m23)'),
    'leslie': C('v', 'F(jnp.array([0.1, 2.0, 1.0]), jnp.array([0.2, 0.8]))', 'bad', 'F(v3, v3)'),
    'companion': C('v', 'F(jnp.array([1.0, -10.0, 31.0, -30.0]))', 'bad', 'F(jnp.array([1.0]))'),
    'fiedler': C('v', 'F(jnp.array([1, 4, 12]))', 'f', 'F(v3)'),
    'fiedler_companion': C('v', 'F(jnp.array([1.0, -10.0, 31.0, -30.0]))', 'two', 'F(jnp.array([2.0, 3.0]))'),
    'convolution_matrix': C('full', 'F(v3, 4)', 'same', "F(v3, 4, mode='same')", 'valid', "F(v3, 4, mode='valid')", 'bad', 'F(v3, 0)'),
    'hilbert': C('n', 'F(3)', 'zero', 'F(0)'),
    'invhilbert': C('n', 'F(3)'),
    'pascal': C('n', 'F(4)', 'lower', "F(3, 'lower')", 'upper', "F(3, kind='upper')", 'bad', "F(3, 'foo')"),
    'invpascal': C('n', 'F(3)', 'lower', "F(3, 'lower')"),
    'helmert': C('n', 'F(4)', 'full', 'F(3, full=True)', 'bad', 'F(0)'),
    'hadamard': C('n', 'F(4)', 'f', 'F(2, dtype=jnp.float32)', 'bad', 'F(3)'),
    'expm_frechet': C('m', 'F(0.1 * spd, jnp.eye(3))', 'noexpm', 'F(0.1 * spd, m33, compute_expm=False)', 'bad', 'F(spd, m23)'),
})

# jax (top level): transformations over small functions on the edge inputs, the device and config queries, and the
# context managers (run through `within`, which enters the manager and calls the function inside).
custom('jax', 'jax_top', {
    'grad': C('v', 'F(lambda x: jnp.sum(jnp.sin(x) * x))(v3)', '0d', 'F(lambda x: x ** 3)(x0)', 'py', 'F(lambda x: x * x)(1.5)',
              'int', 'F(lambda x: x * 2)(3)', 'argnums', 'F(lambda a, b: jnp.sum(a * b), argnums=(0, 1))(v3, m23)',
              'neg', 'F(lambda a, b: jnp.sum(a * b), argnums=-1)(v3, v3)', 'aux', 'F(lambda x: (jnp.sum(x ** 2), x * 2), has_aux=True)(v3)',
              'empty', 'F(lambda x: jnp.sum(x ** 2))(xe)', 'nan', 'F(lambda x: jnp.sum(jnp.sqrt(x)))(xf)',
              'nonscalar', 'F(lambda x: x)(v3)', 'dict', "F(lambda p: jnp.sum(p['w'] * 2.0 + p['b']))({'w': v3, 'b': x0})"),
    'value_and_grad': C('v', 'F(lambda x: jnp.sum(x ** 2))(v3)', '0d', 'F(jnp.sin)(x0)', 'aux', 'F(lambda x: (jnp.sum(x), x), has_aux=True)(m23)',
                        'argnums', 'F(lambda a, b: jnp.sum(a @ b), argnums=1)(m23, m23.T)', 'nonscalar', 'F(lambda x: x * 2)(v3)',
                        'empty', 'F(lambda x: jnp.sum(x))(xe)'),
    'jit': C('v', 'F(jnp.sin)(v3)', 'static', 'F(lambda x, n: x * n, static_argnums=1)(v3, 3)', 'static_neg', 'F(lambda x, n: x ** n, static_argnums=-1)(v3, 2)',
             'empty', 'F(lambda x: x + 1)(xe)', '0d', 'F(lambda x: x * 2)(x0)', 'nan', 'F(lambda x: jnp.maximum(x, 0.0))(xf)',
             'bcast', "F(lambda d: d['a'] + d['b'])({'a': v3, 'b': m23})", 'int', 'F(lambda x: x // 2)(xi)', 'bool', 'F(jnp.logical_not)(xb)',
             'names', "F(lambda x, y: x - y, static_argnames='y')(v3, y=2.0)", 'donate', 'F(lambda x: x * 2, donate_argnums=0)(v3 + 0)',
             'py', 'F(lambda x: x + 1)(2)', 'tracer', 'F(lambda x: int(x))(x0)'),
    'vmap': C('v', 'F(jnp.dot)(m23, m23)', 'none', 'F(lambda a, b: a * b, in_axes=(0, None))(m23, v3)', 'neg', 'F(jnp.sum, in_axes=-1)(m23)',
              'out', 'F(lambda x: x * 2, out_axes=1)(m23)', 'empty', 'F(jnp.sum)(xe)', 'bad', 'F(lambda a, b: a + b)(m23, v5)',
              '0d', 'F(lambda x: x)(x0)', 'nested', 'F(F(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(v3, v5)',
              'dict', "F(lambda d: d['x'] * d['y'])({'x': m23, 'y': m23})", 'int', 'F(jnp.argmax)(mi23)'),
    'pmap': C('v', 'F(lambda x: x * 2)(jnp.arange(4.0))', 'psum', "F(lambda x: lax.psum(x, 'i'), axis_name='i')(jnp.arange(8.0).reshape(4, 2))",
              'none', 'F(lambda a, b: a + b, in_axes=(0, None))(jnp.arange(4.0), x0)', 'bad', 'F(lambda x: x)(jnp.arange(5.0))',
              'int', 'F(lambda x: x + 1)(jnp.arange(2))'),
    'jvp': C('v', 'F(jnp.sin, (v3,), (jnp.ones(3),))', '0d', 'F(lambda x: x ** 2, (x0,), (x0,))', 'bad', 'F(jnp.sin, (v3,), (jnp.ones(2),))',
             'empty', 'F(jnp.exp, (xe,), (xe,))', 'nan', 'F(jnp.log, (xf,), (jnp.ones(10),))', 'two', 'F(lambda a, b: a * b, (v3, v3), (v3, jnp.zeros(3)))'),
    'vjp': C('v', 'F(jnp.sin, v3)[1](jnp.ones(3))', 'primal', 'F(jnp.sin, v3)[0]', '0d', 'F(lambda x: x ** 3, x0)[1](x0)',
             'bcast', 'F(lambda a, b: a * b, m23, v3)[1](jnp.ones((2, 3)))', 'empty', 'F(jnp.tanh, xe)[1](xe)', 'bad', 'F(jnp.sin, v3)[1](jnp.ones(2))'),
    'linearize': C('v', 'F(jnp.sin, v3)[1](jnp.ones(3))', 'primal', 'F(jnp.exp, m23)[0]', '0d', 'F(lambda x: x ** 3, x0)[1](2.0)'),
    'linear_transpose': C('v', 'F(lambda x: 2.0 * x, v3)(v3)', 'sum', 'F(lambda x: jnp.sum(x, axis=-1), m23)(v3[:2])',
                          'bcast', 'F(lambda x: jnp.broadcast_to(x, (2, 3)), v3)(m23)'),
    'hessian': C('v', 'F(lambda x: jnp.sum(x ** 3))(v3)', '0d', 'F(lambda x: jnp.sin(x))(x0)', 'm', 'F(lambda x: jnp.sum(x ** 2))(m23).shape'),
    'jacfwd': C('v', 'F(jnp.sin)(v3)', '0d', 'F(lambda x: x ** 2)(x0)', 'm', 'F(lambda x: x * 2)(m23).shape', 'argnums', 'F(lambda a, b: a * b, argnums=1)(v3, v3)',
                'empty', 'F(lambda x: x + 1)(jnp.zeros(0))', 'int', 'F(lambda x: x)(xi)'),
    'jacrev': C('v', 'F(jnp.sin)(v3)', '0d', 'F(lambda x: x ** 2)(x0)', 'm', 'F(lambda x: x @ x.T)(m23).shape', 'argnums', 'F(lambda a, b: a * b, argnums=(0, 1))(v3, v3)',
                'aux', 'F(lambda x: (x ** 2, 7), has_aux=True)(v3)', 'int', 'F(lambda x: x)(xi)'),
    'jacobian': C('v', 'F(jnp.cos)(v3)', '0d', 'F(jnp.exp)(x0)'),
    'checkpoint': C('v', 'jax.grad(F(lambda x: jnp.sum(jnp.sin(x) ** 2)))(v3)', 'policy', 'jax.grad(F(lambda x: jnp.sum(jnp.exp(x)), policy=jax.checkpoint_policies.nothing_saveable))(v3)',
                    'plain', 'F(lambda x: x * 2)(m23)', 'static', 'F(lambda x, n: x * n, static_argnums=(1,))(v3, 3)'),
    'remat': C('v', 'jax.grad(F(lambda x: jnp.sum(jnp.tanh(x))))(v3)', '0d', 'jax.grad(F(jnp.sin))(x0)'),
    'eval_shape': C('v', 'F(lambda x: x @ x.T, m23)', 'bcast', 'F(jnp.add, m23, v3)', 'empty', 'F(jnp.sum, xe)', 'tuple', 'F(lambda x: (x, x[0]), t234)',
                    'int', 'F(lambda x: x > 0, mi23)', 'struct', 'F(jnp.sin, jax.ShapeDtypeStruct((2, 5), jnp.float32))'),
    'make_jaxpr': C('v', 'F(lambda x: jnp.sin(x) * 2.0)(v3)', '0d', 'F(lambda x: x + 1)(x0)', 'two', 'F(lambda a, b: a @ b)(m23, m23.T)'),
    'typeof': C('v', 'F(v3)', '0d', 'F(x0)', 'i', 'F(mi23)', 'b', 'F(xb)', 'e', 'F(xe)', 'py', 'F(1.5)'),
    'device_put': C('v', 'F(v3)', 'py', 'F(1.5)', 'np', 'F(np.arange(3))', 'tree', "F({'a': x0, 'b': (v3,)})", 'dev', 'F(m23, jax.devices()[1])',
                    'empty', 'F(xe)'),
    'device_get': C('v', 'F(v3)', '0d', 'F(x0)', 'tree', "F({'a': x0, 'b': [1, 2.5]})", 'empty', 'F(xe)', 'i', 'F(mi23)'),
    'block_until_ready': C('v', 'F(v3)', 'tree', 'F((m23, {"k": x0}))', 'py', 'F(3)'),
    'devices': C('n', 'len(F())', 'id', '[d.id for d in F()]', 'cpu', "len(F('cpu'))", 'bad', "F('tpu')"),
    'local_devices': C('n', 'len(F())', 'id', '[d.id for d in F()]', 'p', 'len(F(process_index=0))'),
    'device_count': C('n', 'F()'),
    'local_device_count': C('n', 'F()'),
    'process_count': C('n', 'F()'),
    'process_index': C('n', 'F()'),
    'process_indices': C('n', 'F()'),
    'host_count': C('n', 'F()'),
    'host_id': C('n', 'F()'),
    'host_ids': C('n', 'F()'),
    'default_backend': C('n', 'F()'),
    'clear_caches': C('n', 'F()', 'after', 'within_after(F, lambda: jax.jit(jnp.cos)(v3))'),
    'effects_barrier': C('n', 'F()'),
    'make_mesh': C('v', "F((2, 2), ('x', 'y')).axis_names", 'shape', "F((4,), ('d',)).devices.shape", 'size', "F((2, 2), ('x', 'y')).size",
                   'bad', "F((3,), ('x',))"),
    'shard_map': C('v', "F(lambda x: x * 2, mesh=jax.make_mesh((4,), ('x',)), in_specs=P('x'), out_specs=P('x'))(jnp.arange(8.0))",
                   'psum', "F(lambda x: lax.psum(jnp.sum(x), 'x'), mesh=jax.make_mesh((4,), ('x',)), in_specs=P('x'), out_specs=P())(jnp.arange(8.0))",
                   'bad', "F(lambda x: x, mesh=jax.make_mesh((4,), ('x',)), in_specs=P('x'), out_specs=P('x'))(jnp.arange(6.0))"),
    'reshard': C('v', "F(jnp.arange(8.0), NamedSharding(jax.make_mesh((4,), ('x',)), P('x')))",
                 'spec', "F(jnp.arange(8.0), NamedSharding(jax.make_mesh((4,), ('x',)), P('x'))).sharding.spec"),
    'named_call': C('v', "F(jnp.sin, name='s')(v3)", 'grad', "jax.grad(F(lambda x: jnp.sum(x ** 2), name='sq'))(v3)", 'jit', "jax.jit(F(lambda x: x + 1))(x0)"),
    'named_scope': C('v', "within(F('scope'), lambda: jnp.sin(v3))", 'jit', "jax.jit(lambda x: within(F('in'), lambda: x * 2))(m23)", 'bad', 'within(F(3), lambda: v3)'),
    'new_ref': C('v', 'ref_roundtrip(F, v3)', '0d', 'ref_roundtrip(F, x0)'),
    'freeze': C('v', 'F(jax.new_ref(m23))'),
    'pure_callback': C('v', 'F(np.sin, jax.ShapeDtypeStruct((3,), jnp.float32), v3)', 'jit',
                       'jax.jit(lambda x: F(lambda y: np.asarray(y) * 2, jax.ShapeDtypeStruct(x.shape, x.dtype), x))(m23)',
                       'vmap', "jax.vmap(lambda x: F(np.cos, jax.ShapeDtypeStruct((), jnp.float32), x, vmap_method='sequential'))(v3)"),
    'disable_jit': C('v', 'within(F(), lambda: jax.jit(lambda x: x + 1)(v3))', 'false', 'within(F(False), lambda: jax.jit(jnp.cos)(x0))'),
    'debug_nans': C('ok', 'within(F(True), lambda: jax.jit(jnp.sqrt)(v5 * v5))', 'nan', 'within(F(True), lambda: jax.jit(jnp.log)(jnp.array(-1.0)))',
                    'off', 'within(F(False), lambda: jax.jit(jnp.log)(jnp.array(-1.0)))'),
    'check_tracer_leaks': C('v', 'within(F(True), lambda: jax.jit(jnp.sin)(v3))'),
    'checking_leaks': C('v', 'within(F(), lambda: jax.jit(jnp.cos)(v3))'),
    'enable_x64': C('off', 'within(F(False), lambda: jnp.arange(3) * 2)'),
    'log_compiles': C('v', 'within(F(), lambda: jax.jit(jnp.tan)(x0))'),
    'explain_cache_misses': C('v', 'within(F(), lambda: jax.jit(jnp.exp)(x0))'),
    'default_device': C('v', 'within(F(jax.devices()[0]), lambda: jnp.ones(2) + 1)'),
    'default_matmul_precision': C('v', "within(F('highest'), lambda: m23 @ m23.T)", 'float32', "within(F('float32'), lambda: jnp.dot(v3, v3))"),
    'enable_checks': C('v', 'within(F(True), lambda: jax.jit(jnp.sin)(v3))'),
    'softmax_custom_jvp': C('v', 'within(F(True), lambda: jax.grad(lambda x: jax.nn.softmax(x)[0])(v3))'),
    'jax2tf_associative_scan_reductions': C('v', 'within(F(False), lambda: jnp.cumsum(m23, axis=-1))'),
    'allow_f16_reductions': C('v', 'within(F(True), lambda: jnp.sum(v5))'),
    'array_garbage_collection_guard': C('v', "within(F('allow'), lambda: v3 * 2)"),
    'numpy_rank_promotion': C('allow', "within(F('allow'), lambda: m23 + v3)", 'warn', "within(F('warn'), lambda: m23 * x0)"),
    'numpy_dtype_promotion': C('v', "within(F('standard'), lambda: mi23 + v3)"),
    'default_prng_impl': C('v', "within(F('threefry2x32'), lambda: jax.random.uniform(jax.random.key(3), (3,)))"),
    'legacy_prng_key': C('v', "within(F('allow'), lambda: jax.random.normal(key, (2,)))"),
    'transfer_guard': C('v', "within(F('allow'), lambda: jnp.asarray(np.arange(3.0)) + 1)", 'log', "within(F('log'), lambda: jax.device_put(v3))"),
    'transfer_guard_host_to_device': C('v', "within(F('allow'), lambda: jax.device_put(np.ones(2)))"),
    'transfer_guard_device_to_host': C('v', "within(F('allow'), lambda: jax.device_get(v3))"),
    'transfer_guard_device_to_device': C('v', "within(F('allow'), lambda: jax.device_put(v3, jax.devices()[1]))"),
    'copy_to_host_async': C('v', 'F(v3)', '0d', 'F(x0)', 'empty', 'F(xe)'),
    'Device': C('v', 'isinstance(jax.devices()[0], jax.Device)', 'no', 'isinstance(v3, jax.Device)', 'local', '[isinstance(d, jax.Device) for d in jax.local_devices()]'),
})

# jax.tree_util and jax.tree: pytrees of the edge inputs (empty containers, None, 0-d leaves, nesting, is_leaf).
custom('jax.tree_util', 'tree', {
    'tree_map': C('v', "F(lambda x: x * 2, {'a': v3, 'b': (x0, [mi23])})", 'none', 'F(lambda x: x, (None, v3))', 'empty', 'F(lambda x: x + 1, [])',
                  'two', 'F(jnp.add, (v3, m23), (x0, v3))', 'bad', 'F(jnp.add, (v3, v3), [v3, v3])', 'leaf', 'F(lambda x: x, [[1, 2], [3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1)',
                  'py', 'F(lambda x: x + 1, [1, 2.5, True])'),
    'tree_leaves': C('v', "F({'b': [1, 2], 'a': (x0, None)})", 'empty', 'F(())', 'none', 'F(None)', 'leaf', 'F(v3)', 'is_leaf', 'F([(1, 2), (3,)], is_leaf=lambda x: isinstance(x, tuple))'),
    'tree_flatten': C('v', "F({'x': v3, 'y': [x0, 2]})", 'empty', 'F({})', 'none', 'F([None, 1])'),
    'tree_unflatten': C('v', "F(jax.tree_util.tree_structure({'a': 1, 'b': (2, 3)}), [v3, x0, 5])", 'bad', 'F(jax.tree_util.tree_structure((1, 2)), [1])'),
    'tree_structure': C('v', "F({'a': v3, 'b': (1, None)})", 'leaf', 'F(v3)', 'num', "F({'a': v3, 'b': [1, 2]}).num_leaves"),
    'tree_all': C('v', 'F([True, 1, v3.shape])', 'f', 'F([True, 0])', 'empty', 'F([])'),
    'tree_reduce': C('v', 'F(lambda a, b: a + b, [1, 2, (3, 4)])', 'init', 'F(lambda a, b: a + b, [], 10)', 'arr', 'F(jnp.add, [v3, v3, x0])',
                     'empty', 'F(lambda a, b: a + b, [])'),
    'tree_reduce_associative': C('v', 'F(lambda a, b: a * b, [1, 2, 3, 4, 5])', 'arr', 'F(jnp.maximum, (v3, m23[0], m23[1]))', 'empty', 'F(lambda a, b: a + b, [])',
                                 'ident', 'F(lambda a, b: a + b, [], identity=0)'),
    'tree_transpose': C('v', "F(jax.tree_util.tree_structure([0, 0]), jax.tree_util.tree_structure((0, 0, 0)), [(1, 2, 3), (4, 5, 6)])",
                        'bad', "F(jax.tree_util.tree_structure([0, 0]), jax.tree_util.tree_structure((0, 0)), [(1, 2, 3), (4, 5, 6)])"),
    'tree_broadcast': C('v', "F([1, 2], [(3, 4), {'a': 5}])", 'none', 'F(None, [1, 2])', 'bad', 'F([1, 2], [1])'),
    'tree_flatten_with_path': C('v', "F({'a': [v3, x0], 'b': (1,)})", 'empty', 'F([])'),
    'tree_leaves_with_path': C('v', "F([{'k': 1}, (2, None)])"),
    'tree_map_with_path': C('v', "F(lambda p, x: (jax.tree_util.keystr(p), x), {'a': [1, 2], 'b': 3})", 'arr', 'F(lambda p, x: x * len(p), [v3, (x0,)])'),
    'keystr': C('v', "F((jax.tree_util.DictKey('a'), jax.tree_util.SequenceKey(0)))", 'empty', 'F(())',
                'simple', "F((jax.tree_util.DictKey('a'), jax.tree_util.SequenceKey(1)), simple=True, separator='/')"),
    'all_leaves': C('v', 'F([1, 2, v3])', 'no', 'F([(1, 2)])', 'empty', 'F([])'),
    'treedef_children': C('v', "F(jax.tree_util.tree_structure(((1, 2), [3])))", 'leaf', 'F(jax.tree_util.tree_structure(1))'),
    'treedef_tuple': C('v', 'F([jax.tree_util.tree_structure(1), jax.tree_util.tree_structure((1, [2]))])', 'empty', 'F([])',
                       'unflat', 'jax.tree_util.tree_unflatten(F((jax.tree_util.tree_structure(0), jax.tree_util.tree_structure({"k": 0}))), [v3, x0])'),
    'treedef_is_leaf': C('v', 'F(jax.tree_util.tree_structure(1))', 'no', 'F(jax.tree_util.tree_structure((1,)))', 'none', 'F(jax.tree_util.tree_structure(None))'),
    'register_pytree_node': C('v', 'jax.tree_util.tree_leaves(Pair(v3, x0))', 'map', 'jax.tree_util.tree_map(lambda x: x * 2, Pair(1.0, v3)).total()',
                              'grad', 'jax.grad(lambda p: jnp.sum(p.a * p.b))(Pair(v3, x0)).b'),
    'register_pytree_node_class': C('v', 'jax.tree_util.tree_leaves(Box(v3, 5))', 'map', 'jax.tree_util.tree_map(lambda x: x + 1, Box(m23, 2)).x',
                                    'jit', 'jax.jit(lambda b: b.x * b.n)(Box(v3, 4))'),
    'register_pytree_with_keys': C('v', 'jax.tree_util.tree_flatten_with_path(KPair(v3, x0))[0][1][0]', 'leaves', 'len(jax.tree_util.tree_leaves(KPair(1, (2, 3))))'),
    'register_pytree_with_keys_class': C('v', 'jax.tree_util.keystr(jax.tree_util.tree_leaves_with_path(KBox(1.0, 2.0))[1][0])',
                                         'map', 'jax.tree_util.tree_map(lambda x: x * 3, KBox(v3, x0)).y'),
    'register_dataclass': C('v', 'jax.tree_util.tree_leaves(DPoint(v3, x0, 7))', 'map', 'jax.tree_util.tree_map(lambda x: -x, DPoint(1.0, 2.0, 3)).tag',
                            'jit', 'jax.jit(lambda p: p.x + p.y)(DPoint(v3, x0, 1))'),
    'register_static': C('v', 'jax.tree_util.tree_leaves((StaticTag(), v3))', 'jit', 'jax.jit(lambda t, x: x * 2)(StaticTag(), x0)'),
})
custom('jax.tree', 'tree', {
    'map': C('v', "F(lambda x: x + 1, {'a': v3, 'b': [x0]})", 'multi', 'F(jnp.multiply, [v3, 2.0], [m23, x0])', 'none', 'F(lambda x: x, [None])',
             'bad', 'F(jnp.add, (1, 2), (1,))'),
    'leaves': C('v', "F([v3, {'z': 1, 'a': 2}])", 'empty', 'F({})', 'none', 'F([None, None])'),
    'flatten': C('v', 'F((v3, (x0, 1)))', 'empty', 'F([])'),
    'unflatten': C('v', 'F(jax.tree.structure([0, (0, 0)]), [v3, x0, 1])', 'bad', 'F(jax.tree.structure([0]), [1, 2])'),
    'structure': C('v', "F({'a': [1, None], 'b': v3})", 'leaf', 'F(x0)'),
    'all': C('v', 'F([1, [True]])', 'f', 'F([1, [False]])', 'empty', 'F(())'),
    'reduce': C('v', 'F(jnp.add, [v3, m23])', 'init', 'F(lambda a, b: a + b, [1, 2], 100)', 'empty', 'F(lambda a, b: a + b, ())'),
    'reduce_associative': C('v', 'F(lambda a, b: a + b, [1, 2, 3])', 'ident', 'F(lambda a, b: a * b, [], identity=1)'),
    'transpose': C('v', 'F(jax.tree.structure((0, 0)), jax.tree.structure([0, 0, 0]), ([1, 2, 3], [4, 5, 6]))'),
    'broadcast': C('v', 'F(0, (1, [2, 3]))', 'tree', 'F((v3, x0), ([1, 2], 3))'),
    'flatten_with_path': C('v', "F({'a': (v3, 1)})", 'empty', 'F(None)'),
    'leaves_with_path': C('v', 'F([[1], (2,)])'),
    'map_with_path': C('v', 'F(lambda p, x: len(p) + x, [1, (2, [3])])'),
})

# jax.example_libraries.optimizers: a few steps of each optimizer on a quadratic over edge pytrees (a dict of a
# vector, a matrix and a 0-d leaf; an empty array), schedules at several steps, and the helpers.
custom('jax.example_libraries.optimizers', 'optim', {
    'sgd': C('v', 'run_opt(F(0.1))', 'sched', 'run_opt(F(optimizers.exponential_decay(0.1, 1, 0.5)))', 'empty', 'run_opt(F(0.1), xe)',
             '0d', 'run_opt(F(0.5), x0)'),
    'momentum': C('v', 'run_opt(F(0.1, 0.9))', '0d', 'run_opt(F(0.05, mass=0.5), x0)', 'empty', 'run_opt(F(0.1, 0.9), xe)'),
    'nesterov': C('v', 'run_opt(F(0.1, 0.9))', '0d', 'run_opt(F(0.05, 0.5), x0)'),
    'adagrad': C('v', 'run_opt(F(0.1))', 'mom', 'run_opt(F(0.1, momentum=0.5), x0)', 'empty', 'run_opt(F(0.1), xe)'),
    'rmsprop': C('v', 'run_opt(F(0.1))', 'args', 'run_opt(F(0.05, gamma=0.5, eps=1e-3), x0)'),
    'rmsprop_momentum': C('v', 'run_opt(F(0.1))', 'args', 'run_opt(F(0.05, gamma=0.5, momentum=0.1), x0)'),
    'adam': C('v', 'run_opt(F(0.1))', 'args', 'run_opt(F(0.05, b1=0.5, b2=0.9, eps=1e-3), x0)', 'empty', 'run_opt(F(1e-3), xe)',
              'sched', 'run_opt(F(optimizers.inverse_time_decay(0.1, 1, 0.5)))', 'nan', 'run_opt(F(0.1), xf)'),
    'adamax': C('v', 'run_opt(F(0.1))', '0d', 'run_opt(F(0.05, b1=0.8), x0)'),
    'sm3': C('v', 'run_opt(F(0.1))', 'mom', 'run_opt(F(0.1, momentum=0.5), m23)', '0d', 'run_opt(F(0.1), x0)'),
    'constant': C('v', 'sched_at(F(0.3))'),
    'exponential_decay': C('v', 'sched_at(F(0.5, 2, 0.1))', 'int', 'sched_at(F(1, 3, 0.5))'),
    'inverse_time_decay': C('v', 'sched_at(F(0.5, 2, 0.1))', 'stair', 'sched_at(F(0.5, 2, 1.0, staircase=True))'),
    'polynomial_decay': C('v', 'sched_at(F(1.0, 3, 0.1))', 'pow', 'sched_at(F(1.0, 4, 0.0, power=2.0))'),
    'piecewise_constant': C('v', 'sched_at(F([1, 3], [1.0, 0.5, 0.1]))', 'bad', 'F([1, 3], [1.0, 0.5])'),
    'make_schedule': C('v', 'sched_at(F(0.2))', 'fn', 'sched_at(F(lambda i: 1.0 / (i + 1)))'),
    'l2_norm': C('v', "F({'a': v3, 'b': (m23, x0)})", 'empty', 'F([xe])', 'nan', 'F(xf[:5])', 'none', 'F([])'),
    'clip_grads': C('v', "F({'a': v3, 'b': m23}, 1.0)", 'big', 'F(v3, 100.0)', 'zero', 'F((jnp.zeros(3),), 1.0)'),
    'unpack_optimizer_state': C('v', "[j.subtree for j in jax.tree_util.tree_leaves(F(optimizers.adam(0.1)[0]({'w': v3, 'b': x0})))]"),
    'pack_optimizer_state': C('v', "optimizers.adam(0.1)[2](F(optimizers.unpack_optimizer_state(optimizers.adam(0.1)[0]({'w': v3, 'b': x0}))))"),
    'optimizer': C('v', 'run_opt(my_sgd(0.25))', '0d', 'run_opt(my_sgd(1.0), x0)'),
    'unzip2': C('v', 'F([(1, 2), (3, 4), (5, 6)])', 'empty', 'F([])'),
    'NamedTuple': C('v', "F('Pt', [('x', float), ('y', float)])(1.0, 2.5)"),
    'safe_map': C('v', 'F(lambda a, b: a * b, [1, 2], (v3, x0))', 'short', 'F(lambda a, b: a, [1, 2], [1])', 'long', 'F(lambda a, b: a, [1], [1, 2])', 'empty', 'F(lambda a: a, [])'),
    'safe_zip': C('v', 'F([1, 2], (v3, x0))', 'bad', 'F([1, 2], [1])', 'three', 'F((1,), (2,), (3,))'),
    'map': C('v', 'F(jnp.sin, [v3, x0])'),
    'zip': C('v', 'F([1, 2], [3, 4])', 'bad', 'F([1], [])'),
    'namedtuple': C('v', "F('Pair', ['a', 'b'])(x0, 2)", 'str', "F('P3', 'x y z')(1, 2, 3)._fields"),
})

# jax.example_libraries.stax: init and apply of each layer on small shapes (batch of 2; 0-d and empty where the layer
# takes them), combinators over them, and the elementwise functions and initializers it exports.
custom('jax.example_libraries.stax', 'stax', {
    'Dense': C('v', 'layer(F(3), (2, 4))', 'init', 'layer(F(2, W_init=stax.ones, b_init=stax.zeros), (2, 3))', 'batch', 'layer(F(2), (2, 2, 3))',
               'grad', 'layer_grad(F(2), (2, 3))'),
    'Conv': C('v', "layer(F(2, (2, 2)), (1, 4, 5, 2))", 'pad', "layer(F(3, (3, 3), padding='SAME', strides=(2, 1)), (1, 4, 5, 2))",
              'grad', "layer_grad(F(2, (2, 2)), (1, 3, 3, 1))"),
    'GeneralConv': C('v', "layer(F(('NCHW', 'OIHW', 'NCHW'), 2, (2, 2)), (1, 2, 4, 5))", 'dil', "layer(F(('NHWC', 'HWIO', 'NHWC'), 1, (2, 2), rhs_dilation=(2, 1)), (1, 4, 5, 2))"),
    'ConvTranspose': C('v', "layer(F(2, (2, 2)), (1, 3, 3, 1))", 'stride', "layer(F(1, (3, 3), strides=(2, 2), padding='SAME'), (1, 3, 3, 1))"),
    'Conv1DTranspose': C('v', "layer(F(2, (3,)), (1, 5, 2))"),
    'GeneralConvTranspose': C('v', "layer(F(('NCH', 'IOH', 'NCH'), 2, (2,)), (1, 1, 4))"),
    'BatchNorm': C('v', 'layer(F(), (3, 4))', 'axis', "layer(F(axis=(0, 1, 2)), (1, 4, 5, 2))", 'nocenter', 'layer(F(center=False, scale=False), (3, 4))',
                   'grad', 'layer_grad(F(), (3, 2))'),
    'Dropout': C('test', "layer(F(0.5, mode='test'), (2, 3))", 'train', "layer(F(0.5), (2, 3), rng=key)", 'norng', "layer(F(0.5), (2, 3))"),
    'MaxPool': C('v', 'layer(F((2, 2)), (1, 4, 5, 2))', 'stride', "layer(F((2, 2), strides=(2, 2), padding='SAME'), (1, 4, 5, 2))"),
    'AvgPool': C('v', 'layer(F((2, 2)), (1, 4, 5, 2))', 'same', "layer(F((3, 3), padding='SAME'), (1, 4, 5, 1))"),
    'SumPool': C('v', 'layer(F((2, 1)), (1, 4, 5, 1))', 'grad', 'layer_grad(F((2, 2)), (1, 3, 3, 1))'),
    'FanOut': C('v', 'layer(F(3), (2, 3))'),
    'FanInConcat': C('v', 'layer(stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(2), stax.Dense(3)), F()), (2, 4))',
                     'ax', 'layer(stax.serial(stax.FanOut(2), F(axis=0)), (2, 3))'),
    'serial': C('v', 'layer(F(stax.Dense(4), stax.Relu, stax.Dense(2), stax.LogSoftmax), (2, 3))', 'empty', 'layer(F(), (2, 3))',
                'grad', 'layer_grad(F(stax.Dense(3), stax.Tanh, stax.Dense(1)), (4, 2))'),
    'parallel': C('v', 'layer(stax.serial(stax.FanOut(2), F(stax.Dense(2), stax.Identity), stax.FanInSum), (2, 2))'),
    'shape_dependent': C('v', 'layer(F(lambda s: stax.Dense(s[-1])), (2, 3))'),
    'elementwise': C('v', 'layer(F(jnp.abs), (2, 3))', 'kw', 'layer(F(jax.nn.leaky_relu, negative_slope=0.2), (2, 3))'),
    'relu': C('v', 'F(xf)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv)'),
    'elu': C('v', 'F(xf)'),
    'gelu': C('v', 'F(xf)', 'exact', 'F(v5, approximate=False)'),
    'selu': C('v', 'F(xf)'),
    'sigmoid': C('v', 'F(xf)'),
    'softplus': C('v', 'F(xf)'),
    'leaky_relu': C('v', 'F(xf)'),
    'softmax': C('v', 'F(m23)', 'ax', 'F(m23, axis=0)'),
    'log_softmax': C('v', 'F(m23)'),
    'logsoftmax': C('v', 'F(v5)'),
    'standardize': C('v', 'F(m23)', 'ax', 'F(m23, axis=0)'),
    'glorot': C('v', 'F()(key, (3, 4))', 'scale', 'F(1, 0, 2.0)(key, (2, 3, 5))'),
    'glorot_normal': C('v', 'F()(key, (3, 4))'),
    'normal': C('v', 'F()(key, (2, 3))', 'std', 'F(0.5)(key, (4,))'),
    'randn': C('v', 'F()(key, (2, 3))', 'std', 'F(2.0)(key, (3,))'),
    'ones': C('v', 'F(key, (2, 3))', 'empty', 'F(key, (0,))'),
    'zeros': C('v', 'F(key, (2,))'),
})

# jax.numpy.fft: the complex transforms on real and complex inputs (the results are complex), axes, n/s, norms.
custom('jax.numpy.fft', 'fft', {
    'fft': C('v', 'F(v5)', 'n', 'F(v5, n=8)', 'trunc', 'F(v5, n=3)', 'ax', 'F(m23, axis=0)', 'ortho', "F(v6, norm='ortho')", 'fwd', "F(v3, norm='forward')",
             'int', 'F(vi3)', 'cplx', 'F(v3 + 1j * v3)', 'bad', 'F(v3, n=0)', 'grad', 'jax.grad(lambda x: jnp.sum(jnp.abs(F(x)) ** 2))(gv)'),
    'ifft': C('v', 'F(v5)', 'n', 'F(v6, n=4)', 'ax', 'F(m23, axis=-2)', 'ortho', "F(v3, norm='ortho')", 'round', 'F(jnp.fft.fft(v5)).real'),
    'fft2': C('v', 'F(m23)', 's', 'F(m23, s=(3, 4))', 'batch', 'F(t234)', 'axes', 'F(t234, axes=(0, 2))', 'bad', 'F(v3)'),
    'ifft2': C('v', 'F(m23)', 'batch', 'F(t234)', 'ortho', "F(m23, norm='ortho')"),
    'fftn': C('v', 'F(t234)', 'axes', 'F(t234, axes=(-1,))', '1d', 'F(v5)', 's', 'F(m23, s=(2, 2))'),
    'ifftn': C('v', 'F(t234)', 'axes', 'F(t234, axes=(0, 1))'),
    'rfft': C('v', 'F(v5)', 'even', 'F(v6)', 'n', 'F(v5, n=8)', 'ax', 'F(m23, axis=0)', 'ortho', "F(v6, norm='ortho')", 'int', 'F(vi3)', 'cplx', 'F(v3 + 1j)',
              'grad', 'jax.grad(lambda x: jnp.sum(jnp.abs(F(x))))(gv)'),
    'irfft': C('v', 'F(jnp.fft.rfft(v6))', 'odd', 'F(jnp.fft.rfft(v5), n=5)', 'real', 'F(v3)', 'ax', 'F(m23, axis=0)', 'ortho', "F(v3, norm='ortho')"),
    'rfft2': C('v', 'F(m23)', 'batch', 'F(t234)', 's', 'F(m23, s=(2, 4))'),
    'irfft2': C('v', 'F(jnp.fft.rfft2(t234))', 's', 'F(jnp.fft.rfft2(m23), s=(2, 3))'),
    'rfftn': C('v', 'F(t234)', 'axes', 'F(t234, axes=(0, -1))'),
    'irfftn': C('v', 'F(jnp.fft.rfftn(t234))', 's', 'F(jnp.fft.rfftn(t234), s=(2, 3, 4))'),
})

# Collectives under jax.pmap (4 devices, axis 'i') and jax.shard_map (mesh4, axis 'x'); helpers in EXTRA_HEADER.
custom('jax.lax', 'collect', {
    'psum': C('v', "pm(lambda x: F(x, 'i'), r4)", 'int', "pm(lambda x: F(x, 'i'), ri4)", 'nan', "pm(lambda x: F(x, 'i'), n4)",
              'tree', "pm(lambda x: F((x, {'a': 2 * x}), 'i'), r4)", 'py', "pm(lambda x: x + F(1, 'i'), r4)", 'bad', "pm(lambda x: F(x, 'j'), r4)",
              'smap', "smap(lambda x: F(x, 'x'), r4, o=P())"),
    'pmean': C('v', "pm(lambda x: F(x, 'i'), r4)", 'int', "pm(lambda x: F(x, 'i'), ri4)", 'nan', "pm(lambda x: F(x, 'i'), n4)"),
    'pmax': C('v', "pm(lambda x: F(x, 'i'), r4)", 'int', "pm(lambda x: F(x, 'i'), ri4)", 'nan', "pm(lambda x: F(x, 'i'), n4)"),
    'pmin': C('v', "pm(lambda x: F(x, 'i'), r4)", 'int', "pm(lambda x: F(x, 'i'), ri4)", 'nan', "pm(lambda x: F(x, 'i'), n4)"),
    'all_gather': C('v', "pm(lambda x: F(x, 'i'), r4)", 'tiled', "pm(lambda x: F(x, 'i', tiled=True), r4)", 'axis', "pm(lambda x: F(x, 'i', axis=1), r4)",
                    'neg', "pm(lambda x: F(x, 'i', axis=-1), r4)", 'int', "pm(lambda x: F(x, 'i'), ri4)", '0d', "pm(lambda x: F(x, 'i'), n4)"),
    'all_to_all': C('v', "pm(lambda x: F(x, 'i', 0, 0), sq4)", 'tiled', "pm(lambda x: F(x, 'i', 0, 0, tiled=True), sq4)",
                    'bad', "pm(lambda x: F(x, 'i', 1, 0), r4)"),
    'ppermute': C('v', "pm(lambda x: F(x, 'i', [(0, 1), (1, 2), (2, 3), (3, 0)]), r4)", 'part', "pm(lambda x: F(x, 'i', [(0, 2)]), ri4)",
                  'bad', "pm(lambda x: F(x, 'i', [(0, 1), (1, 1)]), r4)"),
    'psum_scatter': C('v', "pm(lambda x: F(x, 'i'), sq4)", 'tiled', "pm(lambda x: F(x, 'i', tiled=True), jnp.arange(32.0).reshape(4, 8))",
                      'bad', "pm(lambda x: F(x, 'i'), r4)"),
    'axis_index': C('v', "pm(lambda x: F('i') + x, ri4)", 'bad', "pm(lambda x: F('j'), r4)", 'smap', "smap(lambda x: x * F('x'), r4)"),
    'axis_size': C('v', "pm(lambda x: x * F('i'), r4)"),
    'with_sharding_constraint': C('v', "jax.jit(lambda x: F(x * 2, NamedSharding(mesh4a, P('x'))))(r4)",
                                  'explicit', "jax.jit(lambda x: F(x * 2, NamedSharding(mesh4, P('x'))))(r4)",
                                  'none', "jax.jit(lambda x: F(x + 1, NamedSharding(mesh4a, P())))(v3)",
                                  'spec', "jax.jit(lambda x: F(x * 2, NamedSharding(mesh4a, P(None, 'x'))))(sq4).sharding.spec",
                                  'bad', "jax.jit(lambda x: F(x, NamedSharding(mesh4a, P('x'))))(v3)"),
})
custom('jax.numpy', 'collect', {
    'unique_all': C('fields', 'F(jnp.array([3, 1, 3, 2]), size=4, fill_value=0).inverse_indices'),
    'unique_counts': C('fields', 'F(jnp.array([3.0, 1.0, 3.0, nan]), size=3).counts'),
    'unique_inverse': C('fields', 'F(jnp.array([[2, 1], [1, 2]]), size=2).inverse_indices'),
    'set_printoptions': C('prec', 'printed_with(lambda: F(precision=3), v5)', 'sup', 'printed_with(lambda: F(suppress=True), jnp.array([1e-6, 1.0]))'),
})

# Wave 9: the jax, jax.tree_util and jax.lax names added since (batch api9).
custom('jax', 'api9', {
    'ensure_compile_time_eval': C('v', 'within(F(), lambda: jnp.arange(3) * 2)',
                                  'jit', 'jax.jit(lambda x: x * within(F(), lambda: 2.0 if jnp.sin(3.0) > 0 else -1.0))(v3)',
                                  'int', 'jax.jit(lambda x: x[:within(F(), lambda: int(jnp.sum(jnp.arange(3))))])(v5)',
                                  'bad', 'jax.jit(lambda x: within(F(), lambda: x * 2 if x[0] > 0 else x))(v3)'),
    'custom_gradient': C('v', 'cg_square(v3)', 'grad', 'jax.grad(lambda x: jnp.sum(cg_square(x)))(v3)',
                         'leaf', 'jax.grad(lambda x: 3.0 * cg_clip(x))(x0)', 'two', 'jax.grad(cg_two, argnums=(0, 1))(2.0, 5.0)',
                         'jit', 'jax.jit(jax.grad(lambda x: jnp.sum(cg_square(x))))(m23)', '0d', 'jax.grad(cg_square)(x0)'),
    'make_array_from_callback': C('v', "F((4, 2), NamedSharding(mesh4, P('x')), lambda idx: g8[idx])",
                                  'spec', "F((4, 2), NamedSharding(mesh4, P('x')), lambda idx: g8[idx]).sharding.spec",
                                  '2d', "F((4, 4), NamedSharding(mesh22, P('x', 'y')), lambda idx: g16[idx])",
                                  'shards', "tuple(s.data.shape for s in F((4, 4), NamedSharding(mesh22, P('x', 'y')), lambda idx: g16[idx]).addressable_shards)",
                                  'repl', "F((3,), NamedSharding(mesh4, P()), lambda idx: np.array([1, 2, 3], np.int32))",
                                  'sum', "jnp.sum(F((4, 2), NamedSharding(mesh4, P('x')), lambda idx: g8[idx]) * 2)",
                                  'bad', "F((4, 2), NamedSharding(mesh4, P('x')), lambda idx: g8)"),
    'make_array_from_single_device_arrays': C('v', "F((4,), NamedSharding(mesh4, P('x')), [jax.device_put(jnp.array([float(i)]), d) for i, d in enumerate(jax.devices())])",
                                              '2d', "F((2, 2), NamedSharding(mesh22, P('x', 'y')), [jax.device_put(jnp.array([[i]]), d) for i, d in enumerate(jax.devices())])",
                                              'bad', "F((4,), NamedSharding(mesh4, P('x')), [jnp.array([1.0, 2.0])] * 4)"),
    'make_array_from_process_local_data': C('v', "F(NamedSharding(mesh4, P('x')), g8)",
                                            'spec', "F(NamedSharding(mesh4, P('x')), g8).sharding.spec",
                                            'shape', "F(NamedSharding(mesh4, P('x')), np.ones((4, 2), np.float32), (4, 2))"),
    'threefry_partitionable': C('v', 'within(F(True), lambda: jax.random.normal(jax.random.PRNGKey(0), (3,)))'),
    'enable_custom_prng': C('v', 'within(F(False), lambda: jax.random.uniform(jax.random.PRNGKey(1), (2,)))'),
    'debug_key_reuse': C('v', 'within(F(False), lambda: jnp.sum(v3))'),
    'debug_infs': C('v', 'within(F(False), lambda: jnp.log(jnp.zeros(2)))'),
    'no_tracing': C('v', 'within(F(False), lambda: jax.jit(jnp.sin)(x0))'),
    'no_execution': C('v', 'within(F(False), lambda: v3 * 2)'),
    'thread_guard': C('v', 'within(F(True), lambda: jnp.cos(x0))'),
    'smap': C('v', "within(jax.set_mesh(mesh4a), lambda: F(lambda x: x * lax.axis_index('x'), in_axes=0, out_axes=0, axis_name='x')(jnp.arange(8.0)))",
              'none', "within(jax.set_mesh(mesh4a), lambda: F(lambda x, y: x + y, in_axes=(1, None), out_axes=1, axis_name='x')(jnp.ones((2, 8)), 3.0))",
              'psum', "within(jax.set_mesh(mesh4a), lambda: jax.jit(F(lambda x: lax.psum(x, 'x'), in_axes=0, out_axes=None, axis_name='x'))(jnp.arange(4.0)))",
              'bad', "within(jax.set_mesh(mesh4a), lambda: F(lambda x: x, in_axes=0, out_axes=0, axis_name=('x',))(jnp.arange(4.0)))"),
    'empty_ref': C('jit', 'jax.jit(ref_fill)(v3)', 'int', "jax.jit(lambda x: ref_fill(x, jax.ShapeDtypeStruct((2, 3), jnp.int32)))(mi23)",
                   'host', 'F(jax.ShapeDtypeStruct((3,), jnp.float32))',
                   'dtype', "jax.jit(lambda x: within_ref(F(jax.typeof(x)), set0))(v3)",
                   'shape', "jax.jit(lambda x: within_ref(F(jax.typeof(x)), set_all))(v3)"),
    'fwd_and_bwd': C('v', 'fb(jax.fwd_and_bwd, jnp.sin, v3, 0)', 'nojit', 'fb(jax.fwd_and_bwd, lambda x: x ** 2 * 3.0, m23, 0, jitted=False)',
                     'two', 'fb(jax.fwd_and_bwd, lambda x, y: x * y, (v3, 2.0), (0, 1))'),
    'free_ref': C('v', 'F(jax.new_ref(v3))', 'jit', 'jax.jit(lambda x: F(jax.new_ref(x)))(v3)'),
    'vmap': C('size', 'F(lambda: jnp.float32(1.0), axis_size=3)()', 'sizenone', 'F(lambda x: x * 2, in_axes=None, axis_size=3)(v3)',
              'sizeok', 'F(lambda x, y: x + y, in_axes=(0, None), axis_size=2)(m23, v3)', 'sizebad', 'F(lambda x: x, axis_size=3)(v5)'),
})
custom('jax.tree_util', 'api9', {
    'flatten_one_level': C('list', 'F([1, [2, 3]])', 'tuple', 'F((v3, x0))', 'dict', "F({'b': 1, 'a': [2]})", 'none', 'F(None)',
                           'empty', 'F(())', 'leaf', 'F(3)', 'arr', 'F(v3)'),
    'flatten_one_level_with_keys': C('list', 'F([1, 2])', 'dict', "F({'b': 1, 'a': 2})", 'none', 'F(None)', 'leaf', 'F(2.5)'),
    'is_tree_node': C('list', 'F(list)', 'tuple', 'F(tuple)', 'dict', 'F(dict)', 'none', 'F(type(None))', 'int', 'F(int)',
                      'arr', 'F(jax.Array)', 'inst', 'F([1])'),
})
custom('jax.lax', 'api9', {
    'gather': C('v', 'F(x10, jnp.array([[0], [1], [1], [2]]), gdn, (1,))', 'enum', 'F(x10, jnp.array([[2], [0]]), gdn, (1,), mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)',
                'oob', 'F(x10, jnp.array([[5], [-1], [0]]), gdn, (1,))', 'clip', "F(x10, jnp.array([[5], [-1]]), gdn, (1,), mode='clip')",
                'fill', "F(x10, jnp.array([[5], [0]]), gdn, (1,), mode='fill')", 'fillf', "F(v3, jnp.array([[5], [0]]), gdn, (1,), mode='fill')",
                'fillv', "F(x10, jnp.array([[5], [0]]), gdn, (1,), mode='fill', fill_value=-7)", '2d', 'F(m23, jnp.array([[1], [0], [1]]), gdn2, (1, 3))',
                'grad', 'jax.grad(lambda m: jnp.sum(F(m, jnp.array([[1], [0], [1]]), gdn2, (1, 3)) ** 2))(m23)',
                'vmap', 'jax.vmap(lambda r: F(r, jnp.array([[2], [0]]), gdn, (1,)))(m23)', 'bad', 'F(x10, jnp.array([[0.5]]), gdn, (1,))'),
    'scatter': C('v', 'F(jnp.zeros(5), si, su, sdn)', 'clip', "F(jnp.zeros(5), si, su, sdn, mode='clip')", 'int', 'F(jnp.zeros(5, jnp.int32), si, jnp.array([1, 2, 3, 4]), sdn)',
                 'bad', 'F(jnp.zeros(5), si, jnp.array([1, 2, 3, 4]), sdn)'),
    'scatter_add': C('v', 'F(jnp.ones(5), si, su, sdn)', 'clip', "F(jnp.ones(5), si, su, sdn, mode='clip')", 'enum', 'F(jnp.ones(5), si, su, sdn, mode=lax.GatherScatterMode.FILL_OR_DROP)',
                     'grad', 'jax.grad(lambda u, z: jnp.sum(F(z, si, u, sdn) ** 2), argnums=(0, 1))(su, jnp.ones(5))',
                     'vmap', 'jax.vmap(lambda u: F(jnp.zeros(5), si, u, sdn))(jnp.stack([su, su * 2]))', 'py', 'F(jnp.ones(5), si, 2.0 * jnp.ones(4), sdn)'),
    'scatter_sub': C('v', 'F(jnp.ones(5), si, su, sdn)', 'int', 'F(jnp.ones(5, jnp.int32), si, jnp.array([1, 2, 3, 4]), sdn)',
                     'grad', 'jax.grad(lambda u: jnp.sum(F(jnp.ones(5), si, u, sdn) ** 2))(su)'),
    'scatter_mul': C('v', 'F(jnp.full(5, 2.0), si, su, sdn)', 'grad', 'jax.grad(lambda z: jnp.sum(F(z, si, su, sdn)))(jnp.full(5, 2.0))'),
    'scatter_min': C('v', 'F(jnp.full(5, 2.0), si, su, sdn)', 'nan', 'F(jnp.full(5, 2.0), si, jnp.array([nan, 1.0, 3.0, 0.0]), sdn)'),
    'scatter_max': C('v', 'F(jnp.full(5, 2.0), si, su, sdn)', 'int', 'F(jnp.full(5, 2, jnp.int32), si, jnp.array([1, 5, 3, 4]), sdn)'),
    'conv_general_permutations': C('v', "F(('NHWC', 'HWIO', 'NHWC'))", 'nchw', "F(('NCHW', 'OIHW', 'NCHW'))", '1d', "F(('NWC', 'WIO', 'NCW'))",
                                   'bad', "F(('NHW', 'HWIO', 'NHWC'))", 'dup', "F(('NCHH', 'OIHW', 'NCHW'))", 'spatial', "F(('NCHW', 'OIHW', 'NCWD'))"),
    'conv_shape_tuple': C('v', "F((1, 2, 8, 8), (3, 2, 3, 3), (1, 1), 'SAME')", 'pads', 'F((1, 2, 8, 8), (3, 2, 3, 3), (2, 2), [(1, 1), (0, 0)])',
                          'valid', "F((2, 3, 9), (4, 3, 2), (3,), 'VALID')"),
    'conv_general_shape_tuple': C('v', "F((1, 8, 8, 2), (3, 3, 2, 3), (1, 1), 'VALID', ('NHWC', 'HWIO', 'NHWC'))",
                                  'same', "F((1, 8, 8, 2), (3, 3, 2, 3), (2, 1), 'SAME', ('NHWC', 'HWIO', 'NHWC'))"),
    'conv_transpose_shape_tuple': C('v', "F((1, 8, 8, 2), (3, 3, 2, 3), (2, 2), 'SAME', ('NHWC', 'HWIO', 'NHWC'))",
                                    'valid', "F((1, 2, 8, 8), (3, 2, 3, 3), (2, 2), 'VALID', ('NCHW', 'OIHW', 'NCHW'))"),
    'pshuffle': C('v', "pm(lambda x: F(x, 'i', [3, 0, 1, 2]), r4)", 'id', "pm(lambda x: F(x, 'i', [0, 1, 2, 3]), r4)",
                  'bad', "pm(lambda x: F(x, 'i', [0, 0, 1, 2]), r4)"),
    'pswapaxes': C('v', "pm(lambda x: F(x, 'i', 0), sq4)"),
    'composite': C('v', "F(comp_tan, name='my.tangent')(v3)", 'jit', "jax.jit(F(comp_tan, name='my.tangent'))(x0)",
                   'grad', "jax.grad(F(comp_tan, name='my.tangent'))(x0)"),
})

custom('jax.nn', 'api9', {
    'dot_product_attention': C('v', 'F(aq, ak, av)', 'causal', 'F(aq, ak, av, is_causal=True)', 'mask', 'F(aq, ak, av, mask=amask, scale=0.5)',
                               'bias', 'F(aq, ak, av, bias=abias)', '3d', 'F(aq[0], ak[0], av[0])',
                               'seqlen', 'F(aq, ak, av, query_seq_lengths=jnp.array([2, 3]), key_value_seq_lengths=jnp.array([4, 1]))',
                               'window', 'F(aq, ak, av, local_window_size=1)', 'resid', 'F(aq, ak, av, return_residual=True)',
                               'grad', 'jax.grad(lambda q: jnp.sum(F(q, ak, av, is_causal=True) ** 2))(aq)',
                               'heads', 'F(aq[:, :, :3], ak, av)', 'dtype', 'F(aq, ak, av.astype(jnp.int32))', 'impl', "F(aq, ak, av, implementation='foo')"),
})
custom('jax.scipy.special', 'api9', {
    'bernoulli': C('0', 'F(0)', '1', 'F(1)', '2', 'F(2)', '3', 'F(3)', '10', 'F(10)', 'neg', 'F(-1)', 'float', 'F(2.5)'),
    'dawsn': C('f32', 'F(xf)', 'i32', 'F(xi)', '0d', 'F(x0)', 'py', 'F(0.5)', 'empty', 'F(xe)', '2d', 'F(m23 * 3)',
               'big', 'F(jnp.array([3.25, 4.0, 6.25, 9.0, 100.0, -7.0]))', 'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv)'),
    'owens_t': C('v', 'F(jnp.array([0.0, 0.5, 1.0, 2.0, -1.0, 0.3, 5.0]), jnp.array([0.5, 1.0, 2.0, 0.2, -0.7, 3.0, 0.0]))',
                 'bcast', 'F(m23, v3)', 'py', 'F(1.0, 0.5)', 'int', 'F(xi, 2)', 'nan', 'F(xf, xf2)', 'empty', 'F(xe, v3)',
                 'grad', 'jax.grad(lambda a, b: jnp.sum(F(a, b)), argnums=(0, 1))(gv, gv2)'),
})
custom('jax.numpy.linalg', 'api9', {
    'tensorinv': C('v', 'F(t236)', 'ind1', 'F(t623, 1)', 'bad', 'F(t236, 1)', 'zero', 'F(t236, 0)',
                   'grad', 'jax.grad(lambda m: jnp.sum(F(m)))(jnp.eye(4).reshape(2, 2, 2, 2) * 2 + 0.1)'),
    'tensorsolve': C('v', 'F(t224, m22)', 'bad', 'F(t236, m22)', 'axes', 'F(jnp.moveaxis(t224, 0, 2), m22, axes=(2,))',
                     'grad', 'jax.grad(lambda b: jnp.sum(F(t224, b)))(m22)'),
})

# Wave 12: jax.scipy.linalg's polar, qr_multiply and hessenberg (batch api12).
custom('jax.scipy.linalg', 'api12', {
    'polar': C('m', 'F(m33 + jnp.eye(3))', 'svd', "F(m33, method='svd')", 'left', "F(m23, side='left')", 'bad', 'F(m23)', '1d', 'F(v3)',
               'side', "F(m33, side='up')"),
    'qr_multiply': C('right', 'F(m33, v3)', 'left', "F(m33, m33, mode='left')", 'rect', "F(m23.T, jnp.ones((2, 3)))",
                     'bad', 'F(m33, v5)', 'mode', "F(m33, v3, mode='up')"),
    'hessenberg': C('m', 'F(m33)', 'q', 'F(m33, calc_q=True)', 'batch', 'F(jnp.stack([m33, m33.T]))', 'empty', 'F(jnp.zeros((0, 0)))'),
})

# Wave 10: the names added since (batch api10).
custom('jax.numpy', 'api10', {
    'cbrt': C('f32', 'F(xf)', 'i32', 'F(xi)', '0d', 'F(x0)', 'py', 'F(8)', 'empty', 'F(xe)', '2d', 'F(m23 * 8)',
              'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv)'),
    'bitwise_count': C('i32', 'F(xi)', 'bool', 'F(xb)', 'u8', 'F(jnp.array([255, 7, 0], jnp.uint8))', '2d', 'F(mi23)', 'py', 'F(7)',
                       'float', 'F(xf)', 'empty', 'F(jnp.zeros((0,), jnp.int32))'),
    'i0': C('f32', 'F(xf)', 'i32', 'F(xi)', '0d', 'F(x0)', 'empty', 'F(xe)', '2d', 'F(m23)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv2)',
            'grad0', 'jax.grad(F)(0.0)'),
    'kaiser': C('v', 'F(5, 3.0)', '1', 'F(1, 2.0)', '0', 'F(0, 1.0)', 'arr', 'F(4, jnp.array(2.0))', 'even', 'F(6, 0.5)'),
    'packbits': C('v', 'F(pbits)', 'little', "F(pbits, bitorder='little')", 'axis', 'F(pb2, axis=1)', 'neg', 'F(pb2, axis=-2)',
                  'bool', 'F(xb)', '2d', 'F(mi23)', 'float', 'F(xf)', 'order', "F(xb, bitorder='middle')", 'empty', 'F(jnp.zeros((0,), jnp.int32))'),
    'unpackbits': C('v', 'F(pbytes)', 'count', 'F(pbytes, count=11)', 'pad', 'F(pbytes, count=20)', 'trim', 'F(pbytes, count=-5)',
                    'little', "F(pbytes, bitorder='little')", 'axis', 'F(pb2u, axis=1)', '0d', 'F(jnp.uint8(27))', 'int', 'F(xi)',
                    'round', 'jnp.packbits(F(pb2u, axis=0), axis=0)'),
    's_': C('slice', 'jnp.s_[1:3]', 'tuple', 'jnp.s_[::2, 1]', 'int', 'jnp.s_[2]', 'use', 'v5[jnp.s_[1:4]]', 'ell', 'm23[jnp.s_[..., 1]]'),
    'index_exp': C('int', 'jnp.index_exp[2]', 'slice', 'jnp.index_exp[1:3]', 'tuple', 'jnp.index_exp[::2, 1]', 'use', 'm23[jnp.index_exp[1]]'),
    'r_': C('slices', 'jnp.r_[1:4, 7]', 'arrays', 'jnp.r_[v3, 0, 0:1:3j]', 'float', 'jnp.r_[0.5, v3]', 'dir2', "jnp.r_['0,2', [1, 2], [3, 4]]",
            'r', "jnp.r_['r', [1, 2]]", 'c', "jnp.r_['c', 1:3]", 'mat', 'jnp.r_[m23, m23]', 'axis1', "jnp.r_['1', m23, m23]",
            'trans', "jnp.r_['0,2,0', [1, 2], [3, 4]]", 'bad', "jnp.r_[v3, 'r']", 'baddir', "jnp.r_['x', v3]"),
    'c_': C('v', 'jnp.c_[v3, v3 * 2]', 'mat', 'jnp.c_[m23, m23[:, :1]]', 'slice', 'jnp.c_[0:3, v3]', 'scalar', 'jnp.c_[1, 2, 3]',
            'int', 'jnp.c_[vi3, vi3]'),
    'get_printoptions': C('prec', "F()['precision']", 'width', "F()['linewidth']", 'thr', "F()['threshold']"),
    'where': C('weak', 'jnp.where(True, 2.0, 0.0)', 'weakb', 'jnp.where(xb, 1.0, -1.0)', 'mixed', 'jnp.where(xb, v3, 0.0)',
               'grad', 'jax.value_and_grad(lambda x: jnp.where(True, x, 0.0))(2.0)'),
})
custom('jax.numpy.fft', 'api10', {
    'hfft': C('v', 'F(v5)', 'n', 'F(v5, n=5)', 'short', 'F(v5, n=4)', 'ortho', "F(v5, norm='ortho')", 'fwd', "F(v5, norm='forward')",
              'bwd', "F(v5, norm='backward')", '2d', 'F(m23)', 'axis0', 'F(m23, axis=0)', 'cplx', 'F(jnp.array([1 + 2j, 3 - 1j, 0.5 + 0j]))',
              'int', 'F(vi3)', 'axes', 'F(m23, axis=(0, 1))', 'bad', "F(v5, norm='sideways')",
              'grad', 'jax.grad(lambda v: jnp.sum(F(v) ** 2))(v5)'),
    'ihfft': C('v', 'F(v5)', 'n', 'F(v5, n=6)', 'ortho', "F(v5, norm='ortho')", 'fwd', "F(v5, norm='forward')", '2d', 'F(m23)',
               'axis0', 'F(m23, axis=0)', 'int', 'F(vi3)', 'round', 'jnp.fft.hfft(F(v6), n=4)', 'cplx', 'F(jnp.array([1 + 2j, 3 - 1j]))',
               'grad', 'jax.grad(lambda v: jnp.sum(jnp.abs(F(v)) ** 2))(v5)'),
})
custom('jax.nn.initializers', 'api10', {
    'orthogonal': C('sq', 'F()(key, (3, 3))', 'wide', 'F(scale=2.0)(key, (2, 5))', 'col0', 'F(column_axis=0)(key, (4, 2))',
                    '3d', 'F()(key, (2, 3, 4)).shape', 'orth', 'jnp.round(F()(key, (5, 3)).T @ F()(key, (5, 3)), 5)',
                    'empty', 'F()(key, (0, 3))', '1d', 'F()(key, (3,))', 'dtype', 'F(dtype=jnp.float32)(key, (2, 2)).dtype'),
    'delta_orthogonal': C('3d', 'F()(key, (3, 2, 2))', '4d', 'F()(key, (3, 3, 2, 3)).shape', 'center', 'F()(key, (3, 3, 2, 2))[1, 1]',
                          '5d', 'jnp.sum(F()(key, (1, 1, 3, 2, 2)) ** 2)', '2d', 'F()(key, (2, 2))', 'fan', 'F()(key, (3, 3, 2))'),
})
custom('jax.example_libraries.optimizers', 'api10', {
    'OptimizerState': C('repr', "repr(opt_st)", 'str', "str(opt_st)", 'len', 'len(opt_st)', 'item', 'opt_st[1]',
                        'unpack', "[str(t) for t in opt_st][1:]", 'field', 'opt_st.subtree_defs', 'leaves', 'len(jax.tree_util.tree_leaves(opt_st))',
                        'update', "str(opt_upd(0, {'w': jnp.ones(2), 'b': 1.0}, opt_st).packed_state)"),
})
custom('jax.random', 'api10', {
    'key_dtype': C('v', 'F()', 'eq', 'F() == jax.random.key(0).dtype', 'impl', "F('threefry2x32')"),
})
custom('jax', 'api10', {
    'grad': C('int', 'jax.grad(lambda x, n: jnp.sum(x * n), argnums=(0, 1), allow_int=True)(v3, vi3)',
              'intpy', 'jax.grad(lambda n: 1.0 * n, allow_int=True)(3)',
              'bool', 'jax.grad(lambda x, b: jnp.sum(jnp.where(b, x, 0.0)), argnums=(0, 1), allow_int=True)(v3, xb)',
              'int2d', 'jax.grad(lambda n: jnp.sum(n * 1.0), allow_int=True)(mi23)',
              'tree', "jax.grad(lambda p: p['w'] * 2.0 + p['n'], allow_int=True)({'w': 1.0, 'n': 2})",
              'float0', 'jax.grad(lambda x, n: jnp.sum(x * n), argnums=1, allow_int=True)(v3, vi3).dtype == jax.float0',
              'noallow', 'jax.grad(lambda n: 1.0 * n)(3)'),
    'value_and_grad': C('int', 'jax.value_and_grad(lambda x, n: jnp.sum(x * n), argnums=(0, 1), allow_int=True)(v3, vi3)'),
})

# Supported functions without edge tests, with the reason.
NO_EDGE_TEST = {
    ('jax.lax', name): 'collective: needs a named axis (pmap/shard_map); tested by fixtures/constructs/collectives.py and the seed lessons'
    for name in names('all_gather all_to_all axis_index axis_size pmax pmean pmin ppermute psum psum_scatter')
}
NO_EDGE_TEST[('jax.lax', 'with_sharding_constraint')] = 'needs a mesh and a sharding; tested by the sharding fixtures'
for _n in names('InitFn ParamsFn Schedule UpdateFn'):
    NO_EDGE_TEST[('jax.example_libraries.optimizers', _n)] = 'a type alias (typing.Callable[...]) for annotations: nothing to call'
NO_EDGE_TEST[('jax.tree_util', 'KeyPath')] = 'a type alias (tuple[KeyEntry, ...]) for annotations: nothing to call'
NO_EDGE_TEST[('jax.tree', 'static')] = 'a dataclasses.field for register_dataclass, not a function of arrays; tested by fixtures/constructs/tree_static_dataclass.py'

# Cases JAX and jaxts disagree on that are not fixed: (module, name, suffix) -> reason. The case is left out.
EXCLUDED_CASES = {
    ('jax.scipy.special', 'gammaln', 'i32'): "on WebGPU (SwiftShader) fma(a, b, c) in lgamma's expansion comes out as a*b + c rounded twice: lgamma(2) is 4.8e-7 where XLA's fused multiply-add gives 0; the CPU backend matches JAX",
    ('jax.scipy.special', 'loggamma', 'i32'): "on WebGPU (SwiftShader) fma(a, b, c) in lgamma's expansion comes out as a*b + c rounded twice: lgamma(2) is 4.8e-7 where XLA's fused multiply-add gives 0; the CPU backend matches JAX",
    ('jax.scipy.special', 'betaln', 'bool'): "on WebGPU (SwiftShader) fma(a, b, c) in lgamma's expansion comes out as a*b + c rounded twice: lgamma(2) is 4.8e-7 where XLA's fused multiply-add gives 0; the CPU backend matches JAX",
    ('jax.numpy', 'geomspace', 'bad'): 'on WebGPU (SwiftShader) the NaNs of a start of 0 come out as 0: log(0) flushes; the CPU backend matches JAX',
    ('jax.numpy', 'unique_counts', 'size'): "the result is a NamedTuple that is not a tuple instance in jaxts (JAX's _Unique*Result is one), so isinstance(r, tuple) differs",
    ('jax.numpy', 'unique_inverse', 'size'): "the result is a NamedTuple that is not a tuple instance in jaxts (JAX's _Unique*Result is one), so isinstance(r, tuple) differs",
    ('jax.numpy', 'unique_all', 'size'): "the result is a NamedTuple that is not a tuple instance in jaxts (JAX's _Unique*Result is one), so isinstance(r, tuple) differs",
    ('jax.lax', 'bitcast_convert_type', 'bad'): 'jaxts stops at compile time: NotImplementedError: jax.numpy.int8 is not supported by jaxts',
    ('jax.lax', 'clz', 'grad'): 'JAX raises NotImplementedError, jaxts TypeError',
    ('jax.lax', 'population_count', 'grad'): 'JAX raises NotImplementedError, jaxts TypeError',
    ('jax.lax', 'reduce', 'max'): 'jaxts stops at compile time: NotImplementedError: jaxts supports lax.reduce with lax.add, lax.mul, lax.max or lax.min and its identity as init_values',
    ('jax.nn', 'standardize', 'grad'): 'jaxts computes a different value: float32 (2, 3) [[0. 0. 0.]',
    ('jax.numpy', 'argwhere', 'm'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'bincount', 'min'): 'jaxts raises ConcretizationTypeError where JAX returns a value',
    ('jax.numpy', 'bincount', 'v'): 'jaxts raises ConcretizationTypeError where JAX returns a value',
    ('jax.numpy', 'bincount', 'w'): 'jaxts raises ConcretizationTypeError where JAX returns a value',
    ('jax.numpy', 'choose', 'v'): "jaxts stops at compile time: NotImplementedError: jaxts: jnp.choose with mode='raise' checks the values at trace time; use mode='wrap' or mode='clip' (the error occurred",
    ('jax.numpy', 'compress', 'ax'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'compress', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'einsum', 'bad'): 'JAX raises ValueError, jaxts TypeError',
    ('jax.numpy', 'extract', 'm'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'extract', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'flatnonzero', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'intersect1d', 'idx'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'intersect1d', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'logaddexp2', 'nan'): 'jaxts computes a different value: float32 (10,) [1.1221935 0.        0.7715534 1.        2.436',
    ('jax.numpy', 'mask_indices', 'n'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'matvec', 'bad'): 'JAX raises ValueError, jaxts TypeError',
    ('jax.numpy', 'median', 'tuple'): 'jaxts stops at compile time: NotImplementedError: jnp.median with a tuple of axes is not supported by jaxts',
    ('jax.numpy', 'nanmedian', 'emptyall'): 'JAX raises IndexError, jaxts TypeError',
    ('jax.numpy', 'nanmedian', 'tuple'): "jaxts stops at compile time: TypeError: '<' not supported between instances of 'tuple' and 'int'",
    ('jax.numpy', 'nextafter', 'grad'): 'JAX raises NotImplementedError; jaxts does not check this and returns a value',
    ('jax.numpy', 'nonzero', 'empty'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'nonzero', 'm'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'nonzero', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'place', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'ravel_multi_index', 'v'): "jaxts stops at compile time: NotImplementedError: jaxts: jnp.ravel_multi_index with mode='raise' checks the values at trace time; use mode='wrap' or mode='clip' (the err",
    ('jax.numpy', 'repeat', 'arr'): 'jaxts raises TypeError where JAX returns a value',
    ('jax.numpy', 'setdiff1d', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'setxor1d', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'spacing', 'grad'): 'JAX raises NotImplementedError; jaxts does not check this and returns a value',
    ('jax.numpy', 'union1d', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'all'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'ax'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'empty'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'm'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'nan'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique_all', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique_counts', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique_inverse', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'unique_values', 'v'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy', 'vectorize', 'sig'): 'jaxts stops at compile time: NotImplementedError: jaxts: jnp.vectorize with signature= is not supported',
    ('jax.numpy', 'where', 'one'): 'value-dependent output shape: jaxts compiles ahead of time, where JAX too needs size= (as under jax.jit)',
    ('jax.numpy.linalg', 'eigh', 'grad'): 'jaxts computes a different value: float32 (3, 3) [[nan nan nan]',
    ('jax.scipy.linalg', 'expm', 'batch'): 'jaxts raises ValueError where JAX returns a value',
    ('jax.scipy.linalg', 'qr', 'r'): 'jaxts computes a different value: float32 (2, 2) [[ 2.6220222  1.4626118]',
    ('jax.lax', 'zeta', 'grad'): "JAX raises NotImplementedError for zeta's derivative in x; jaxts's rule has the derivative in q only and gives 0 for x",
    ('jax.lax', 'cumlogsumexp', 'int'): 'JAX raises OverflowError (its -inf start value in int32), jaxts TypeError',
    ('jax', 'pmap', 'bad'): "JAX 0.10.2 raises IndivisibleError (its pmap's sharding check on 5 rows over 4 devices), jaxts the ValueError of JAX's classic pmap (needs 5 devices)",
    ('jax', 'device_get', 'tree'): "np.asarray of a JAX array stays the device array in jaxts (same dtype and values), so a dict's repr shows Array(...) where NumPy's shows array(...)",
    ('jax.lax', 'pmax', 'nan'): "XLA's CPU all-reduce max drops a NaN operand (JAX gives 2 for max(1, nan, -inf, 2)); jaxts's collective propagates it",
    ('jax.lax', 'pmin', 'nan'): "XLA's CPU all-reduce min drops a NaN operand (JAX gives -inf for min(1, nan, -inf, 2)); jaxts's collective propagates it",
    ('jax.lax', 'with_sharding_constraint', 'spec'): "jaxts's jit result keeps no sharding from a with_sharding_constraint on it when the input is unsharded (SingleDeviceSharding, no .spec); JAX's is NamedSharding P(None, 'x')",
    ('jax', 'debug_nans', 'nan'): "jaxts's NaN check raises FloatingPointError when the program runs, where a Python try/except (compile time) cannot catch it: the program stops with JAX's message",
}

# ---------------------------------------------------------------- expansion

UNARY_CASES = C('f32', 'F(xf)', 'i32', 'F(xi)', 'bool', 'F(xb)', '0d', 'F(x0)', 'py', 'F(0.5)', 'empty', 'F(xe)', '2d', 'F(m23)',
                'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv)')
UNARY_LAX_CASES = C('f32', 'F(xf)', 'i32', 'F(xi)', 'bool', 'F(xb)', '0d', 'F(x0)', 'empty', 'F(xe)', '2d', 'F(m23)',
                    'grad', 'jax.grad(lambda x: jnp.sum(F(x)))(gv)')
BINARY_CASES = C('bcast', 'F(m23, v3)', '0d', 'F(m23, x0)', 'py', 'F(v3, 2)', 'pyf', 'F(2.5, mi23)', 'i32', 'F(mi23, vi3)', 'mixed', 'F(mi23, v3)',
                 'bool', 'F(xb, xb)', 'nan', 'F(xf, xf2)', 'empty', 'F(xe, v3)', 'badbc', 'F(m23, v5)',
                 'grad', 'jax.grad(lambda a, b: jnp.sum(F(a, b)), argnums=(0, 1))(gv, gv2)')
BINARY_LAX_CASES = C('same', 'F(m23, m23 + 1)', '0d', 'F(x0, x0)', 'i32', 'F(mi23, mi23 + 1)', 'neg', 'F(xi, xi2)', 'mixed', 'F(mi23, m23)',
                     'bool', 'F(xb, xb)', 'nan', 'F(xf, xf2)', 'empty', 'F(xe, xe)', 'bcast', 'F(m23, v3)',
                     'grad', 'jax.grad(lambda a, b: jnp.sum(F(a, b)), argnums=(0, 1))(gv, gv2)')
REDUCTION_CASES = C('all', 'F(m23)', 'ax-1', 'F(m23, axis=-1)', 'kd', 'F(m23, axis=0, keepdims=True)', 'tuple', 'F(t234, axis=(0, -1))',
                    'badax', 'F(m23, axis=2)', 'empty', 'F(xe, axis=0)', 'emptyall', 'F(xe)', 'i32', 'F(mi23, axis=1)', 'bool', 'F(xb)',
                    'nan', 'F(xf)', '0d', 'F(x0)', 'grad', 'jax.grad(lambda x: jnp.sum(F(x, axis=-1)))(m23)')
CUMULATIVE_CASES = C('ax-1', 'F(m23, axis=-1)', 'none', 'F(m23)', 'ax0', 'F(m23, axis=0)', 'empty', 'F(xe, axis=0)', 'i32', 'F(mi23, axis=1)',
                     'bool', 'F(xb, axis=0)', 'nan', 'F(xf, axis=0)', '0d', 'F(x0)', 'dtype', 'F(mi23, axis=1, dtype=jnp.float32)',
                     'grad', 'jax.grad(lambda x: jnp.sum(F(x, axis=-1) ** 2))(m23)')


def cases():
    """{batch: [(module, name, suffix, call)]} for the whole table, in a stable order."""
    out = {}

    def add(batch, module, name, table):
        for suffix, call in table:
            if (module, name, suffix) in EXCLUDED_CASES:
                continue
            out.setdefault(batch, []).append((module, name, suffix, call.replace('F(', PREFIX[module] + name + '(')))

    for module, batch, ns in UNARY:
        for n in ns:
            add(batch, module, n, UNARY_LAX_CASES if module == 'jax.lax' else UNARY_CASES)
    for module, batch, ns in BINARY:
        for n in ns:
            add(batch, module, n, BINARY_LAX_CASES if module == 'jax.lax' else BINARY_CASES)
    for module, batch, ns in REDUCTION:
        for n in ns:
            add(batch, module, n, REDUCTION_CASES)
    for module, batch, ns in CUMULATIVE:
        for n in ns:
            add(batch, module, n, CUMULATIVE_CASES)
    for module, batches in CUSTOM.items():
        for batch, table in batches.items():
            for n, cs in table.items():
                add(batch, module, n, cs)
    return out


def tested():
    """{module: set of function names with at least one edge case}."""
    out = {}
    for batch in cases().values():
        for module, name, _, _ in batch:
            out.setdefault(module, set()).add(name.split('.')[0])
    return out


BATCH_ORDER = ['jnp_unary', 'jnp_binary', 'jnp_reduce', 'jnp_shape', 'jnp_create', 'jnp_index', 'jnp_misc', 'linalg',
               'lax_unary', 'lax_binary', 'lax_other', 'nn', 'scipy', 'random',
               # split off later so that no batch runs long on WebGPU (SwiftShader): the numbering above stays
               'linalg2', 'stats', 'scipy2', 'random_loops',
               'lax3', 'scipy3', 'stats2', 'linalg3', 'lax4', 'scipy4', 'stats3',
               'jax_top', 'tree', 'optim', 'stax', 'fft', 'collect', 'api9', 'api10', 'api12']

# Batches written as several files (NN_batch_1.py, ...): their while-loop special functions compile to many kernels,
# which SwiftShader compiles slowly; a file of each part stays well inside the golden test's time limit on WebGPU.
SPLIT = {'lax3': 2, 'scipy3': 6, 'stats2': 3, 'lax4': 2, 'scipy4': 4, 'stats3': 2, 'api9': 4, 'api10': 2}

HEADER = '''\
# Generated by scripts/api_edge_gen.py (seed {seed}): edge cases of {what} against real JAX.
# Do not edit: change the generator's table and rerun it, then `bash scripts/oracle.sh` for the golden.
# Each case prints one labelled result (dtype, shape, value) or the name of the error JAX raises.
import jax
import jax.numpy as jnp
import jax.scipy.linalg
import jax.scipy.special
import jax.scipy.stats
import numpy as np
from jax import lax


def show(label, f):
    try:
        r = f()
    except Exception as e:
        print(label, "->", type(e).__name__)
        return
    if isinstance(r, (tuple, list)):
        print(label, "->", type(r).__name__, len(r))
        for i, v in enumerate(r):
            show(f"{{label}}[{{i}}]", lambda: v)
    elif hasattr(r, "dtype"):
        print(label, "->", r.dtype, r.shape, r)
    else:
        print(label, "->", r)


nan = float("nan")
inf = float("inf")
xf = jnp.array([-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, nan, inf, -inf], jnp.float32)
xf2 = jnp.array([1.0, -1.0, 0.0, 0.0, 2.0, inf, nan, 1.0, inf, 3.0], jnp.float32)
xi = jnp.array([-7, -3, -1, 0, 1, 2, 5, 31], jnp.int32)
xi2 = jnp.array([2, -2, 3, 1, -1, 5, 2, 3], jnp.int32)
xb = jnp.array([True, False, True])
x0 = jnp.float32(0.75)
xe = jnp.zeros((0, 3), jnp.float32)
v3 = jnp.array({v3}, jnp.float32)
v5 = jnp.array({v5}, jnp.float32)
v6 = jnp.array({v6}, jnp.float32)
vi3 = jnp.array({vi3}, jnp.int32)
m23 = jnp.array({m23}, jnp.float32)
mi23 = jnp.array({mi23}, jnp.int32)
m33 = jnp.array({m33}, jnp.float32)
t234 = jnp.array({t234}, jnp.float32)
spd = m33 @ m33.T + 3.0 * jnp.eye(3)
spd_b = jnp.stack([spd, spd + jnp.eye(3)])
gv = jnp.array([0.3, 0.6, 1.7], jnp.float32)
gv2 = jnp.array([1.2, -0.4, 2.0], jnp.float32)
img = jnp.array({img}, jnp.float32)
ker = jnp.array({ker}, jnp.float32)
key = jax.random.PRNGKey({seed})
'''


# Imports and helpers that some batches need, after the common header.
EXTRA_HEADER = {
    'collect': """from jax.sharding import NamedSharding, PartitionSpec as P

r4 = jnp.arange(8.0).reshape(4, 2) - 3.0
ri4 = jnp.arange(8).reshape(4, 2) - 3
n4 = jnp.array([1.0, nan, -inf, 2.0])
sq4 = jnp.arange(16.0).reshape(4, 4)
mesh4 = jax.make_mesh((4,), ('x',))
mesh4a = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))


def pm(f, x):
    return jax.pmap(f, axis_name='i')(x)


def smap(f, x, i=P('x'), o=P('x')):
    return jax.shard_map(f, mesh=mesh4, in_specs=i, out_specs=o)(x)


def printed_with(set_options, x):
    set_options()
    s = str(x)
    jnp.set_printoptions(precision=8, suppress=False)
    return s
""",
    'api10': """from jax.example_libraries import optimizers

opt_init, opt_upd, opt_get = optimizers.adam(0.1)
opt_st = opt_init({'w': jnp.ones(2), 'b': 0.5})
pbits = jnp.array([1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1])
pb2 = jnp.array([[1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0], [0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1]])
pbytes = jnp.array([219, 96], jnp.uint8)
pb2u = jnp.array([[154, 3], [49, 255]], jnp.uint8)
""",
    'api9': """import collections
from jax.sharding import NamedSharding, PartitionSpec as P

mesh4 = jax.make_mesh((4,), ('x',))
mesh22 = jax.make_mesh((2, 2), ('x', 'y'))
g8 = np.arange(8.0).reshape(4, 2)
g16 = np.arange(16.0).reshape(4, 4)
r4 = jnp.arange(8.0).reshape(4, 2) - 3.0
sq4 = jnp.arange(16.0).reshape(4, 4)
x10 = jnp.array([10, 11, 12])
gdn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
gdn2 = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
sdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
si = jnp.array([[1], [3], [1], [9]])
su = jnp.array([1.0, 2.0, 3.0, 4.0])


def within(cm, f):
    with cm:
        return f()


def pm(f, x):
    return jax.pmap(f, axis_name='i')(x)


@jax.custom_gradient
def cg_square(x):
    return x ** 2, lambda g: (g * 10.0 * x,)


@jax.custom_gradient
def cg_clip(x):
    return x, lambda g: jnp.clip(g, -0.5, 0.5)


@jax.custom_gradient
def cg_two(a, b):
    return a * b, lambda g: (g * b, g * a * 3.0)


def comp_tan(x):
    return jnp.sin(x) / jnp.cos(x)


mesh4a = jax.make_mesh((4,), ('x',), axis_types=(jax.sharding.AxisType.Auto,))
_k1, _k2, _k3 = jax.random.split(jax.random.PRNGKey(0), 3)
aq = jax.random.normal(_k1, (2, 3, 4, 8))
ak = jax.random.normal(_k2, (2, 5, 2, 8))
av = jax.random.normal(_k3, (2, 5, 2, 8))
amask = jnp.array([[True, False, True, True, False]] * 3)[None, None]
abias = jnp.arange(15.0).reshape(1, 1, 3, 5) * 0.1
t236 = jnp.arange(36.0).reshape(2, 3, 6) ** 1.5 % 7 + jnp.eye(6).reshape(2, 3, 6) * 5
t623 = jnp.arange(36.0).reshape(6, 2, 3) ** 1.5 % 7 + jnp.eye(6).reshape(6, 2, 3) * 5
t224 = jnp.arange(16.0).reshape(2, 2, 4) ** 1.3 % 5 + jnp.eye(4).reshape(2, 2, 4) * 3
m22 = jnp.arange(4.0).reshape(2, 2)


def set0(r):
    r[0] = 5


def set_all(r):
    r[...] = 1.0


def fb(fwd_and_bwd, f, x, argnums, **kw):
    fwd, bwd = fwd_and_bwd(f, argnums, **kw)
    y, res = fwd(*x) if isinstance(x, tuple) else fwd(x)
    return y, bwd(res, jnp.ones_like(y))


def within_ref(r, f):
    f(r)
    return r[...]


def ref_fill(x, ty=None):
    r = jax.empty_ref(jax.typeof(x) if ty is None else ty)
    r[...] = x * 2
    r[0] = jnp.array(5, r.dtype)
    y = r[...]
    jax.free_ref(r)
    return y + 1
""",
    'jax_top': """from jax.sharding import NamedSharding, PartitionSpec as P


def within(cm, f):
    with cm:
        return f()


def within_after(g, f):
    g()
    return f()


def ref_roundtrip(new_ref, x):
    r = new_ref(x)
    r[...] = r[...] * 2
    return jax.freeze(r)
""",
    'tree': """import dataclasses
import functools


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def total(self):
        return jnp.sum(self.a) + jnp.sum(self.b)


jax.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))


@jax.tree_util.register_pytree_node_class
class Box:
    def __init__(self, x, n):
        self.x = x
        self.n = n

    def tree_flatten(self):
        return (self.x,), self.n

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


class KPair:
    def __init__(self, a, b):
        self.a = a
        self.b = b


jax.tree_util.register_pytree_with_keys(
    KPair, lambda p: (((jax.tree_util.GetAttrKey('a'), p.a), (jax.tree_util.GetAttrKey('b'), p.b)), None),
    lambda aux, ch: KPair(*ch))


@jax.tree_util.register_pytree_with_keys_class
class KBox:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def tree_flatten_with_keys(self):
        return ((jax.tree_util.GetAttrKey('x'), self.x), (jax.tree_util.GetAttrKey('y'), self.y)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@functools.partial(jax.tree_util.register_dataclass, data_fields=['x', 'y'], meta_fields=['tag'])
@dataclasses.dataclass
class DPoint:
    x: jax.Array
    y: jax.Array
    tag: int


@jax.tree_util.register_static
class StaticTag:
    def __hash__(self):
        return 1

    def __eq__(self, other):
        return isinstance(other, StaticTag)
""",
    'optim': """from jax.example_libraries import optimizers


def run_opt(opt, params=None, steps=3):
    init_fun, update_fun, get_params = opt
    if params is None:
        params = {'w': v3, 'm': m23, 's': x0}
    state = init_fun(params)
    loss = lambda p: sum(jnp.sum((l - 0.5) ** 2) for l in jax.tree_util.tree_leaves(p))
    for i in range(steps):
        state = update_fun(i, jax.grad(loss)(get_params(state)), state)
    return tuple(jax.tree_util.tree_leaves(get_params(state)))


def sched_at(s):
    return jnp.array([s(i) for i in range(5)])


@optimizers.optimizer
def my_sgd(step_size):
    def init(x):
        return x

    def update(i, g, x):
        return x - step_size * g

    def get(x):
        return x

    return init, update, get
""",
    'stax': """from jax.example_libraries import stax


def layer(l, shape, rng=None):
    init_fun, apply_fun = l
    out_shape, params = init_fun(key, shape)
    x = jax.random.normal(jax.random.PRNGKey(1), shape)
    y = apply_fun(params, x) if rng is None else apply_fun(params, x, rng=rng)
    return jax.tree_util.tree_map(int, out_shape), y, [p.shape for p in jax.tree_util.tree_leaves(params)]


def layer_grad(l, shape):
    init_fun, apply_fun = l
    _, params = init_fun(key, shape)
    x = jax.random.normal(jax.random.PRNGKey(1), shape)
    return tuple(jax.tree_util.tree_leaves(jax.grad(lambda p: jnp.sum(apply_fun(p, x) ** 2))(params)))
""",
}


def values(rng, shape, lo, hi, integer=False):
    if not shape:
        return rng.randint(lo, hi) if integer else round(rng.uniform(lo, hi), 2)
    return [values(rng, shape[1:], lo, hi, integer) for _ in range(shape[0])]


def write(out_dir, seed):
    rng = random.Random(seed)
    inputs = dict(seed=seed, v3=values(rng, (3,), -2, 2), v5=values(rng, (5,), -2, 2), v6=values(rng, (6,), 0, 4),
                  vi3=values(rng, (3,), -4, 4, True), m23=values(rng, (2, 3), -2, 2), mi23=values(rng, (2, 3), -5, 5, True),
                  m33=values(rng, (3, 3), -1, 1), t234=values(rng, (2, 3, 4), -1, 1), img=values(rng, (1, 2, 4, 5), -1, 1),
                  ker=values(rng, (3, 2, 2, 2), -1, 1))
    os.makedirs(out_dir, exist_ok=True)
    batches = cases()
    for i, batch in enumerate(BATCH_ORDER):
        items = batches[batch]
        n = SPLIT.get(batch, 1)
        size = -(-len(items) // n)
        for part in range(n):
            chunk = items[part * size:(part + 1) * size]
            name = batch if n == 1 else f'{batch}_{part + 1}'
            mods = sorted({m for m, _, _, _ in chunk})
            lines = [HEADER.format(what=f"{', '.join(mods)} ({name})", **inputs)]
            if batch in EXTRA_HEADER:
                lines.append(EXTRA_HEADER[batch])
            for module, fname, suffix, call in chunk:
                label = f"{PREFIX[module]}{fname}/{suffix}".replace('jax.', '')
                lines.append(f'show("{label}", lambda: {call})')
            path = os.path.join(out_dir, f'{i + 1:02d}_{name}.py')
            with open(path, 'w', encoding='utf-8') as f:
                f.write('\n'.join(lines) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, default=17)
    ap.add_argument('--out', default=os.path.join(ROOT, 'fixtures', 'api_edge'))
    a = ap.parse_args()
    write(a.out, a.seed)


if __name__ == '__main__':
    main()
