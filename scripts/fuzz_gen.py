#!/usr/bin/env python3
"""Differential-testing program generator: seeded random small JAX programs.

Each program is a jitted function of one to three arrays built from edge
values (0, -0, +-inf, NaN, subnormals, int32/uint32 extremes, empty and size-1
shapes, broadcasting), an expression over the elementwise and reduction
primitives jaxts supports, and a print of its result. Programs are written in
batches, many per file, so that one Python process (and one jaxts compile)
covers a hundred programs:

    python3 scripts/fuzz_gen.py --seed 0 --batches 20 --per-batch 100 --out fixtures/differential
    bash scripts/oracle.sh fixtures/differential/*.py     # goldens from real JAX

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

F32_EDGES = ['0.0', '-0.0', '1.0', '-1.0', '0.5', '-2.5', '2.5', '3.7', '-3.7', '1e-07', '100.0', '-1e+30', '3e+38',
             'jnp.inf', '-jnp.inf', 'jnp.nan', '1e-40', '-1e-40', '7.0', '-7.0']
I32_EDGES = ['0', '1', '-1', '3', '-3', '7', '-7', '31', '32', '100', '2147483647', '-2147483648']
U32_EDGES = ['0', '1', '3', '7', '31', '32', '100', '2147483647', '2147483648', '4294967295']
BOOL_EDGES = ['True', 'False']
EDGES = {'float32': F32_EDGES, 'int32': I32_EDGES, 'uint32': U32_EDGES, 'bool': BOOL_EDGES}

SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (1, 3), (2, 1), (3, 1)]

# op name -> (arity, operand dtypes accepted, template); the result dtype follows JAX's promotion
UNARY_FLOAT = ['jnp.sin', 'jnp.cos', 'jnp.exp', 'jnp.log', 'jnp.tanh', 'jnp.sqrt', 'jax.nn.sigmoid', 'jnp.log1p',
               'jnp.expm1', 'jnp.floor', 'jnp.ceil', 'jnp.round', 'jax.nn.relu', 'jnp.isnan', 'jnp.isfinite']
UNARY_NUM = ['jnp.abs', 'jnp.negative', 'jnp.sign', 'jnp.square']
BINARY_NUM = ['+', '-', '*', '/', '//', '%', 'jnp.maximum', 'jnp.minimum', '<', '<=', '==', '!=', '>']
BINARY_INT = ['&', '|', '^', '<<', '>>']
REDUCE = ['jnp.sum', 'jnp.max', 'jnp.min', 'jnp.prod', 'jnp.argmax', 'jnp.argmin', 'jnp.mean']

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


class Gen:
    def __init__(self, rng):
        self.rng = rng

    def array(self, dtype, shape):
        n = 1
        for d in shape:
            n *= d
        vals = [self.rng.choice(EDGES[dtype]) for _ in range(n)]

        def nest(vs, sh):
            if not sh:
                return vs[0]
            step = len(vs) // sh[0] if sh[0] else 0
            return '[' + ', '.join(nest(vs[i * step:(i + 1) * step], sh[1:]) for i in range(sh[0])) + ']'
        text = nest(vals, list(shape)) if shape else vals[0]
        if shape and 0 in shape:
            return f'jnp.zeros({shape!r}, dtype=jnp.{dtype}{"_" if dtype == "bool" else ""})'
        return f'jnp.array({text}, dtype=jnp.{dtype}{"_" if dtype == "bool" else ""})'

    def expr(self, env, depth):
        """(text, dtype, shape) of a random expression over the parameters in env."""
        r = self.rng.random()
        if depth == 0 or r < 0.25:
            name, dtype, shape = self.rng.choice(env)
            return name, dtype, shape
        x, dt, sh = self.expr(env, depth - 1)
        r = self.rng.random()
        if r < 0.3:
            op = self.rng.choice(UNARY_FLOAT + UNARY_NUM)
            if op in UNARY_FLOAT:
                if dt != 'float32':
                    x, dt = f'{x}.astype(jnp.float32)', 'float32'
                out = 'bool' if op in ('jnp.isnan', 'jnp.isfinite') else 'float32'
                return f'{op}({x})', out, sh
            if dt == 'bool' or (op == 'jnp.negative' and dt == 'uint32') or (op in ('jnp.abs', 'jnp.sign') and dt == 'uint32'):
                x, dt = f'{x}.astype(jnp.int32)', 'int32'
            return f'{op}({x})', dt, sh
        if r < 0.75:
            y, dt2, sh2 = self.expr(env, depth - 1)
            shape = broadcast(sh, sh2)
            if shape is None:
                return x, dt, sh
            ints = dt in ('int32', 'uint32') and dt2 in ('int32', 'uint32')
            op = self.rng.choice(BINARY_NUM + (BINARY_INT if ints else []))
            if op in BINARY_INT and dt != dt2:
                y, dt2 = f'{y}.astype(jnp.{dt})', dt
            if op == '-' and dt == 'bool' and dt2 == 'bool':
                x, dt = f'{x}.astype(jnp.int32)', 'int32'
            if op in ('<<', '>>'):
                y = f'({y} & 31)'
            p = promote(dt, dt2)
            if op in ('<', '<=', '==', '!=', '>'):
                return f'({x} {op} {y})', 'bool', shape
            if op in ('jnp.maximum', 'jnp.minimum'):
                return f'{op}({x}, {y})', p, shape
            if op == '/':
                return f'({x} / {y})', 'float32', shape
            if op in ('//', '%', '*', '+') and p == 'bool':
                if op in ('//', '%'):
                    return f'({x}.astype(jnp.int32) {op} {y})', 'int32', shape
            if op in ('&', '|', '^', '<<', '>>'):
                return f'({x} {op} {y})', p, shape
            return f'({x} {op} {y})', p, shape
        if r < 0.85:
            c, dtc, shc = self.expr(env, depth - 1)
            y, dt2, sh2 = self.expr(env, depth - 1)
            shape = broadcast(sh, sh2)
            shape = shape and broadcast(shape, shc)
            if shape is None:
                return x, dt, sh
            if dtc != 'bool':
                c = f'({c} > {"0.0" if dtc == "float32" else "0"})'
            return f'jnp.where({c}, {x}, {y})', promote(dt, dt2), shape
        if r < 0.93:
            to = self.rng.choice(['float32', 'int32', 'uint32', 'bool'])
            return f'{x}.astype(jnp.{to}{"_" if to == "bool" else ""})', to, sh
        if not sh or 0 in sh:
            return x, dt, sh
        op = self.rng.choice(REDUCE)
        axis = self.rng.choice([None] + list(range(len(sh))))
        rest = () if axis is None else tuple(d for i, d in enumerate(sh) if i != axis)
        if op in ('jnp.argmax', 'jnp.argmin'):
            return f'{op}({x}, axis={axis})', 'int32', rest
        if op == 'jnp.mean':
            return f'{op}({x}, axis={axis})', 'float32', rest
        if op in ('jnp.sum', 'jnp.prod'):
            out = 'int32' if dt == 'bool' else dt
            return f'{op}({x}, axis={axis})', out, rest
        return f'{op}({x}, axis={axis})', dt, rest

    def program(self, i):
        n = self.rng.choice([1, 2, 2, 3])
        base = self.rng.choice(SHAPES)
        env = []
        for k in range(n):
            dtype = self.rng.choice(['float32', 'float32', 'float32', 'int32', 'uint32', 'bool'])
            shape = base if self.rng.random() < 0.6 else self.rng.choice(SHAPES)
            if broadcast(base, shape) is None:
                shape = base
            env.append((f'x{k}', dtype, shape))
        text, _, _ = self.expr(env, self.rng.choice([1, 2, 2, 3]))
        params = ', '.join(name for name, _, _ in env)
        args = ', '.join(self.array(dt, sh) for _, dt, sh in env)
        return [f'def p{i}({params}):', f'    return {text}', '', '', f'print("p{i}", jax.jit(p{i})({args}))', '', '']


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--batches', type=int, default=20)
    ap.add_argument('--per-batch', type=int, default=100)
    ap.add_argument('--out', default='fixtures/differential')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for b in range(a.batches):
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
