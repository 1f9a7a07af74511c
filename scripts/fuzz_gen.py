#!/usr/bin/env python3
"""Differential-testing program generator: seeded random small JAX programs.

Each program is a jitted function of one to three arrays built from edge
values (0, -0, +-inf, NaN, tiny normals, int32/uint32 extremes, empty and size-1
shapes, broadcasting), an expression over the primitives jaxts supports
(elementwise math, comparisons, integer //, %, shifts and bitwise ops, casts
between all four dtypes, Python scalars with weak types, bool arithmetic and
its TypeErrors, where, clip, integer_pow/pow, logaddexp, reductions over
axes incl. negative ones and tuples with keepdims, argmax/argmin,
cumsum/cumprod, dot/matmul incl. int and bool, reshape/transpose/
broadcast_to), and a print of its result. Each candidate is run under real
JAX first and replaced when it raises (other than the TypeErrors it means
to catch), so the generator runs in the oracle's venv. Programs are written
in batches, many per file, so that one Python process (and one jaxts
compile) covers a hundred programs:

    .venv/oracle/bin/python scripts/fuzz_gen.py --seed 1 --batches 24 --out fixtures/differential
    bash scripts/oracle.sh fixtures/differential/*.py     # goldens from real JAX

Deliberately left out, with the reason next to each: subnormal inputs
(F32_EDGES) and float contractions whose products round (Gen.expr).

Seed 1 batches 16 and 21, once known differences, are checked in: XLA's
simplifier turns a dot of two vectors into a product and a reduction, where
`convert(p) * y` becomes `select(p, y, 0)` (NaN times False is 0), and runs
`jnp.arctan` of small arrays with its own `xla.atan.f32`; jaxts does both now
(src/passes/simplify.ts dotToReduce, src/codegen/kernel_walker.ts xlaAtanFrom).
(Batches 8 and 20 are checked in too: sinh and rsqrt are XLA's bit for bit.)

Seed 2 batches 11-13 and 15 are checked in: XLA's simplifier folds `x ^ x` to 0
(so `arctan2(y, 1 + (x ^ x))` is jnp.arctan's atan2(y, 1) and runs xla.atan.f32),
turns a dot whose contracting dimensions have size 1 (an outer product) into a
multiply, and a sum over axes of size 1 into a reshape (-0 stays -0); jaxts
does all three (src/passes/xla_algebraic.ts TYPED_RULES, src/passes/simplify.ts
degenerateDot, degenerateReduce).

Seed 2 batch 14's p64 (`jnp.mean` of int32 [[2147483647, 0], [-2147483648, 1]]:
0.0 under XLA) is XLA's vectorized order for a small matrix's sum (LLVM
vectorizes the loop over its rows), which jaxts models now (KExpr `lanes`,
src/passes/index_rules.ts vectorLanes).

The checked-in batches under fixtures/differential run in `npm test` through
the golden test (both backends). A longer run generates more batches into a
scratch folder, makes their goldens with the oracle and compares:

    npm run fuzz:diff -- 7 200      # seed 7, 200 batches into fixtures/differential_long/

The generator is deterministic for a seed (Python's own `random`), so a
batch can be regenerated from its header line.
"""
import argparse
import os
import random

# No subnormals among the inputs: XLA CPU's treatment of a subnormal input depends on its fusion and algebraic
# simplification (x * 1.0 is simplified away and keeps it, x * y flushes it; log of one is -103.97 alone and
# -inf inside log2), which no per-primitive rule reproduces. The first generator's batches (batch_000_*, made
# by scripts/fuzz_gen.py at commit 9840083) have them, in the programs whose flush jaxts does follow.
F32_EDGES = ['0.0', '-0.0', '1.0', '-1.0', '0.5', '-2.5', '2.5', '3.7', '-3.7', '1e-07', '100.0', '-1e+30', '3e+38',
             'jnp.inf', '-jnp.inf', 'jnp.nan', '2e-38', '-0.1', '7.0', '-7.0']
I32_EDGES = ['0', '1', '-1', '3', '-3', '7', '-7', '31', '32', '100', '2147483647', '-2147483648']
U32_EDGES = ['0', '1', '3', '7', '31', '32', '100', '2147483647', '2147483648', '4294967295']
BOOL_EDGES = ['True', 'False']
EDGES = {'float32': F32_EDGES, 'int32': I32_EDGES, 'uint32': U32_EDGES, 'bool': BOOL_EDGES}

SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (1, 3), (2, 1), (3, 1), (2, 3), (3, 2), (4,), (2, 2)]

UNARY_FLOAT = ['jnp.sin', 'jnp.cos', 'jnp.exp', 'jnp.log', 'jnp.tanh', 'jnp.sqrt', 'jax.nn.sigmoid', 'jnp.log1p',
               'jnp.expm1', 'jnp.floor', 'jnp.ceil', 'jnp.round', 'jax.nn.relu', 'jnp.isnan', 'jnp.isfinite',
               'jnp.tan', 'jnp.arctan', 'jnp.sinh', 'jnp.cosh', 'jnp.log2', 'jnp.exp2', 'jax.lax.erf', 'jax.lax.rsqrt',
               'jax.nn.softplus', 'jax.nn.silu', 'jnp.trunc', 'jnp.reciprocal']
UNARY_NUM = ['jnp.abs', 'jnp.negative', 'jnp.sign', 'jnp.square', '-']
BINARY_NUM = ['+', '-', '*', '/', '//', '%', 'jnp.maximum', 'jnp.minimum', '<', '<=', '==', '!=', '>', '>=']
BINARY_INT = ['&', '|', '^', '<<', '>>']
BINARY_FLOAT = ['jnp.logaddexp', 'jnp.power', 'jnp.arctan2']
REDUCE = ['jnp.sum', 'jnp.max', 'jnp.min', 'jnp.prod', 'jnp.argmax', 'jnp.argmin', 'jnp.mean', 'jnp.any', 'jnp.all']
# Python scalars (weak types) per operand kind
SCALARS = {'float32': ['0', '1', '2', '-3', '0.5', '2.5', '-1.5', '1e-30', 'float("inf")'],
           'int32': ['0', '1', '2', '3', '-1', '-7', '31', '33'],
           'uint32': ['0', '1', '2', '3', '7', '31', '33'],
           'bool': ['True', 'False', '1', '0', '2', '0.5']}

KIND = {'bool': 0, 'uint32': 1, 'int32': 1, 'float32': 2}


def promote(a, b):
    if a == b:
        return a
    if KIND[a] == 2 or KIND[b] == 2:
        return 'float32'
    if a == 'bool':
        return b
    if b == 'bool':
        return a
    return 'int32'


def broadcast(s, t):
    out = []
    for i in range(max(len(s), len(t))):
        x = s[len(s) - 1 - i] if i < len(s) else 1
        y = t[len(t) - 1 - i] if i < len(t) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def size(sh):
    n = 1
    for d in sh:
        n *= d
    return n


def jdt(dtype):
    return f'jnp.{dtype}{"_" if dtype == "bool" else ""}'


class Gen:
    """Random expressions; dtypes and shapes are tracked approximately here and checked exactly by running
    each candidate program under real JAX (see `valid`); a candidate that raises anything but the TypeErrors
    bool arithmetic is meant to raise is replaced by the next candidate."""

    def __init__(self, rng):
        self.rng = rng

    def array(self, dtype, shape):
        n = size(shape)
        vals = [self.rng.choice(EDGES[dtype]) for _ in range(n)]

        def nest(vs, sh):
            if not sh:
                return vs[0]
            step = len(vs) // sh[0] if sh[0] else 0
            return '[' + ', '.join(nest(vs[i * step:(i + 1) * step], sh[1:]) for i in range(sh[0])) + ']'
        text = nest(vals, list(shape)) if shape else vals[0]
        if shape and 0 in shape:
            return f'jnp.zeros({shape!r}, dtype={jdt(dtype)})'
        return f'jnp.array({text}, dtype={jdt(dtype)})'

    def axes(self, sh, allow_tuple=True):
        """An axis argument for a reduction over shape sh: None, an int (maybe negative) or a tuple."""
        nd = len(sh)
        r = self.rng.random()
        if nd == 0 or r < 0.25:
            return None, ()
        if allow_tuple and nd >= 2 and r < 0.4:
            ax = tuple(sorted(self.rng.sample(range(nd), 2)))
            ax = tuple(a - nd if self.rng.random() < 0.5 else a for a in ax)
            return ax, tuple(d for i, d in enumerate(sh) if i not in {a % nd for a in ax})
        a = self.rng.randrange(nd)
        rest = tuple(d for i, d in enumerate(sh) if i != a)
        return (a - nd if self.rng.random() < 0.4 else a), rest

    def expr(self, env, depth, top=False):
        """(text, dtype, shape) of a random expression over the parameters in env."""
        rng = self.rng
        r = rng.random()
        if depth == 0 or (r < 0.2 and not top):
            name, dtype, shape = rng.choice(env)
            return name, dtype, shape
        x, dt, sh = self.expr(env, depth - 1)
        r = rng.random()
        if r < 0.22:
            op = rng.choice(UNARY_FLOAT + UNARY_NUM)
            if op in UNARY_FLOAT:
                if dt != 'float32':
                    x, dt = f'{x}.astype(jnp.float32)', 'float32'
                out = 'bool' if op in ('jnp.isnan', 'jnp.isfinite') else 'float32'
                return f'{op}({x})', out, sh
            if op == '-':
                self.raises |= dt == 'bool'
                return f'(-{x})', dt, sh
            if dt == 'bool' and rng.random() < 0.7:
                x, dt = f'{x}.astype(jnp.int32)', 'int32'
            self.raises |= dt == 'bool'
            return f'{op}({x})', dt, sh
        if r < 0.55:
            if rng.random() < 0.3:
                # a Python scalar operand: weak-type promotion
                y, dt2, sh2 = rng.choice(SCALARS[dt]), dt, ()
                if '.' in y or 'inf' in y or 'e' in y:
                    dt2 = 'float32'
                swap = rng.random() < 0.4
            else:
                y, dt2, sh2 = self.expr(env, depth - 1)
                swap = False
            shape = broadcast(sh, sh2)
            if shape is None:
                return x, dt, sh
            ints = dt in ('int32', 'uint32', 'bool') and dt2 in ('int32', 'uint32', 'bool')
            op = rng.choice(BINARY_NUM + (BINARY_INT if ints else []) + BINARY_FLOAT + ['**'])
            p = promote(dt, dt2)
            if op == '**':
                k = rng.choice(['2', '3', '0', '-1', '-2', '4'])
                if dt != 'float32' and k.startswith('-'):
                    k = '2'
                return f'({x} ** {k})', ('int32' if dt == 'bool' else dt), sh
            a, b = (y, x) if swap else (x, y)
            if op in BINARY_FLOAT:
                if p != 'float32':
                    a = f'{a}.astype(jnp.float32)'
                return f'{op}({a}, {b})', 'float32', shape
            if op in ('<', '<=', '==', '!=', '>', '>='):
                return f'({a} {op} {b})', 'bool', shape
            if op in ('jnp.maximum', 'jnp.minimum'):
                return f'{op}({a}, {b})', p, shape
            if op == '/':
                return f'({a} / {b})', 'float32', shape
            if op in ('-', '//', '%') and p == 'bool':
                self.raises = True
            return f'({a} {op} {b})', p, shape
        if r < 0.63:
            c, dtc, shc = self.expr(env, depth - 1)
            y, dt2, sh2 = self.expr(env, depth - 1)
            shape = broadcast(sh, sh2)
            shape = shape and broadcast(shape, shc)
            if shape is None:
                return x, dt, sh
            if dtc != 'bool':
                c = f'({c} > {"0.0" if dtc == "float32" else "0"})'
            return f'jnp.where({c}, {x}, {y})', promote(dt, dt2), shape
        if r < 0.70:
            to = rng.choice(['float32', 'int32', 'uint32', 'bool'])
            return f'{x}.astype({jdt(to)})', to, sh
        if r < 0.74:
            lo, hi = rng.choice([('-1', '1'), ('0', '3'), ('None', '0'), ('0.5', 'None'), ('2', '-2')])
            if dt == 'bool':
                x, dt = f'{x}.astype(jnp.int32)', 'int32'
            if dt != 'float32' and '.' in lo:
                lo = '0'
            if dt == 'uint32':
                lo = lo.lstrip('-')
                hi = hi.lstrip('-')
            return f'jnp.clip({x}, {lo}, {hi})', dt, sh
        if r < 0.80:
            # shape ops
            k = rng.random()
            if k < 0.3:
                return f'{x}.reshape(-1)', dt, (size(sh),)
            if k < 0.5 and len(sh) >= 2:
                perm = list(range(len(sh)))
                rng.shuffle(perm)
                return f'jnp.transpose({x}, {tuple(perm)!r})', dt, tuple(sh[i] for i in perm)
            if k < 0.6 and len(sh) >= 1:
                return f'{x}.T', dt, tuple(reversed(sh))
            if k < 0.8 and size(sh) > 0 and size(sh) % 2 == 0:
                n = size(sh)
                return f'{x}.reshape(2, -1)', dt, (2, n // 2)
            new = (2,) + tuple(sh)
            return f'jnp.broadcast_to({x}, {new!r})', dt, new
        if r < 0.86:
            # contractions
            y, dt2, sh2 = self.expr(env, depth - 1)
            fn = rng.choice(['@', 'jnp.dot', 'jnp.matmul'])
            if len(sh) == 0 or len(sh) > 2:
                return x, dt, sh
            if len(sh2) == 0 or sh2[0] != sh[-1] or len(sh2) > 2:
                y, dt2, sh2 = x, dt, sh
                if len(sh) == 2:
                    y, sh2 = f'{x}.T', (sh[1], sh[0])
            if sh2[0] != sh[-1]:
                return x, dt, sh
            out = tuple(sh[:-1]) + tuple(sh2[1:])
            p = promote(dt, dt2)
            # float operands are whole numbers in [-1000, 1000] (NaN stays NaN), so that every product and partial
            # sum is exact: XLA's dot accumulates with FMA (unrounded products: cancellation leaves their
            # rounding error, an overflowing product meeting an infinite sum stays inf) and jaxts rounds each
            # product, which no printed-digit tolerance covers
            if dt == 'float32':
                x = f'jnp.round(jnp.clip({x}, -1000, 1000))'
            if dt2 == 'float32':
                y = f'jnp.round(jnp.clip({y}, -1000, 1000))'
            if fn == '@':
                return f'({x} @ {y})', p, out
            return f'{fn}({x}, {y})', p, out
        if r < 0.90 and sh:
            op = rng.choice(['jnp.cumsum', 'jnp.cumprod'])
            a = rng.randrange(len(sh))
            ax = a - len(sh) if rng.random() < 0.4 else a
            return f'{op}({x}, axis={ax})', ('int32' if dt == 'bool' else dt), sh
        if not sh or 0 in sh:
            return x, dt, sh
        op = rng.choice(REDUCE)
        if op in ('jnp.argmax', 'jnp.argmin'):
            ax, rest = self.axes(sh, allow_tuple=False)
            if rng.random() < 0.3 and ax is not None:
                return f'{op}({x}, axis={ax}, keepdims=True)', 'int32', sh[:ax % len(sh)] + (1,) + sh[ax % len(sh) + 1:]
            return f'{op}({x}, axis={ax})', 'int32', rest
        ax, rest = self.axes(sh)
        keep = ', keepdims=True' if rng.random() < 0.2 else ''
        if keep:
            rest = tuple(1 for _ in sh) if ax is None else tuple(
                1 if i in ({ax % len(sh)} if isinstance(ax, int) else {a % len(sh) for a in ax}) else d
                for i, d in enumerate(sh))
        if op in ('jnp.any', 'jnp.all'):
            return f'{op}({x}, axis={ax!r}{keep})', 'bool', rest
        if op == 'jnp.mean':
            return f'{op}({x}, axis={ax!r}{keep})', 'float32', rest
        if op in ('jnp.sum', 'jnp.prod'):
            out = 'int32' if dt == 'bool' else dt
            return f'{op}({x}, axis={ax!r}{keep})', out, rest
        return f'{op}({x}, axis={ax!r}{keep})', dt, rest

    def candidate(self, i):
        rng = self.rng
        self.raises = False
        n = rng.choice([1, 2, 2, 3])
        base = rng.choice(SHAPES)
        env = []
        for k in range(n):
            dtype = rng.choice(['float32', 'float32', 'float32', 'int32', 'uint32', 'bool'])
            shape = base if rng.random() < 0.6 else rng.choice(SHAPES)
            if broadcast(base, shape) is None:
                shape = base
            env.append((f'x{k}', dtype, shape))
        text, _, _ = self.expr(env, rng.choice([1, 2, 2, 3, 3, 4]), top=True)
        params = ', '.join(name for name, _, _ in env)
        args = ', '.join(self.array(dt, sh) for _, dt, sh in env)
        head = [f'def p{i}({params}):', f'    return {text}', '', '']
        call = f'print("p{i}", jax.jit(p{i})({args}))'
        if not self.raises:
            return head + [call, '', '']
        return head + ['try:', f'    {call}', 'except TypeError as e:', f'    print("p{i}", "TypeError:", e)', '', '']

    def program(self, i):
        """The first candidate that real JAX runs without an unexpected error."""
        while True:
            lines = self.candidate(i)
            if not lines[1].strip().startswith('return x') and valid(lines):
                return lines


def valid(lines):
    """Does the program run under real JAX (as the oracle will run it) without an unexpected exception?"""
    import contextlib
    import io
    import jax  # noqa: F401  (the generator runs in the oracle's venv)
    import jax.numpy as jnp  # noqa: F401
    import warnings
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            exec('\n'.join(lines), {'jax': jax, 'jnp': jnp})
    except Exception:  # noqa: BLE001 -- any other error: draw another program
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--batches', type=int, default=20)
    ap.add_argument('--per-batch', type=int, default=100)
    ap.add_argument('--out', default='fixtures/differential')
    ap.add_argument('--first', type=int, default=0, help='number of the first batch')
    a = ap.parse_args()
    # as scripts/oracle.sh runs the programs
    os.environ.setdefault('JAX_PLATFORMS', 'cpu')
    os.environ.setdefault('XLA_FLAGS', '--xla_force_host_platform_device_count=4')
    os.makedirs(a.out, exist_ok=True)
    for b in range(a.first, a.first + a.batches):
        rng = random.Random(a.seed * 1_000_003 + b)
        g = Gen(rng)
        lines = [f'# Differential fixture: {a.per_batch} random programs, scripts/fuzz_gen.py --seed {a.seed} batch {b}.',
                 '# Generated; its golden comes from scripts/oracle.sh. Do not edit.',
                 'import jax', 'import jax.numpy as jnp', '', '']
        for i in range(a.per_batch):
            lines += g.program(i)
        with open(os.path.join(a.out, f'batch_{a.seed:03d}_{b:03d}.py'), 'w') as f:
            f.write('\n'.join(lines).rstrip() + '\n')


if __name__ == '__main__':
    main()
