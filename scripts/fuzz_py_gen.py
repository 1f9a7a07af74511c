#!/usr/bin/env python3
"""Differential-testing generator for Python HOST semantics: seeded random small Python programs.

Each program is a function `pN()` whose body does plain Python on int/float/bool/str values
(floor division, modulo, powers, ints beyond 2**53, float repr), containers (lists, dicts, tuples,
nesting), loops that change a variable's type or structure, comprehensions, classes (methods,
inheritance, super(), properties, class attributes, __repr__), try/except/else/finally, generators
and f-strings with format specs, and prints what it computed. Some programs start from values read
back from a device (`int(jnp.sum(...))`, `float(jnp.array(...))`), so that the host code runs when
the program runs, not at compile time. Programs are written in batches, many per file:

    python3 scripts/fuzz_py_gen.py --seed 0 --count 200 --per-batch 25 --out fixtures/pyhost
    bash scripts/oracle.sh fixtures/pyhost/*.py          # goldens from CPython (the oracle venv)

With --rt-builtins, programs on read-back values also call str methods of run-time strings, compute ints beyond
2**53 from run-time ints, and make tuples of run-time lists; fixtures/pyhost/batch_002_000 is such a batch
(`--seed 2 --count 25 --runtime-every 1 --rt-builtins`).

With --rt-lists, programs on read-back values also append to lists in while loops on those values (lists known only
when the program runs: printed, indexed, sliced, summed, iterated); fixtures/pyhost/batch_001_000 is such a batch
(`--seed 1 --count 25 --runtime-every 1 --rt-lists`).

The checked-in batches under fixtures/pyhost run in `npm test` through the golden test (both
backends). The long mode (`npm run fuzz:py -- --count 2000 --seed 7`, scripts/fuzz_py.sh) writes
more into the git-ignored fixtures/pyhost_long/ and compares them the same way.

Every candidate program is run once here, by this Python, and kept only when it finishes without an
uncaught exception (the generator picks freely and lets CPython say what is valid); the golden still
comes only from the oracle script. The generator is deterministic for a seed (Python's own `random`).
"""
import argparse
import contextlib
import io
import os
import random
import signal

INT_LITS = ['0', '1', '2', '3', '5', '7', '-1', '-3', '-8', '10', '12', '100', '255', '1000', '-17',
            '2**53', '2**53 + 1', '2**63', '-2**63', '3**40', '10**20', '-10**18 - 7', '2**100']
FLOAT_LITS = ['0.0', '-0.0', '0.1', '0.2', '0.5', '1.5', '2.5', '-2.5', '3.0', '1e-07', '1e16', '1e22', '123456.789',
              '1.0e-5', '-7.25', '100.0', '1/3', '2/3', '0.3', "float('inf')", "-float('inf')", '1e300', '5e-324',
              '12345678901234567.0', '0.1 + 0.2']
STR_LITS = ["'a'", "'abc'", "''", "'Hello'", "'x y'", "'42'", "'-3.5'", "'ab,cd'", "'Zz'", '"it\'s"']
FMT_FLOAT = ['', ':.2f', ':.3e', ':g', ':10.4f', ':<8.1f', ':+.1f', ':.0f', ':%', ':.1%', ':e', ':.10g', ':,.2f', '!r', '!s']
FMT_INT = ['', ':5d', ':<5d', ':05d', ':x', ':X', ':o', ':b', ':,', ':+d', ':^7d', '!r', ':e', ':.2f']
STR_METHODS = ['upper()', 'lower()', 'strip()', 'title()', 'swapcase()', 'lstrip("a")', 'replace("a", "-")', 'zfill(5)',
               'center(7, ".")']
SEPS = ['","', '" "', '"-"']
ITERABLES = ['[1, 2.5, -3]', '"abc"', '(True, 0, 7)', 'range(2)', '[[1], [2, 3]]']
ENUMERABLES = ['"xy"', '[0.5, 2]', 'range(3)']
FMT_STR = ['', ':>6', ':<6', ':^7', '!r', ':.2', ':*^9']


class Gen:
    def __init__(self, rng, runtime, rt_lists=False, rt_more=False, rt_builtins=False):
        self.rng = rng
        self.runtime = runtime
        self.rt_lists = rt_lists
        self.rt_more = rt_more
        self.rt_builtins = rt_builtins
        self.env = {}  # name -> type ('int', 'float', 'bool', 'str', 'list', 'dict', 'tuple', 'any')
        self.lines = []
        self.indent = 1
        self.count = 0

    # ---- helpers ----
    def r(self):
        return self.rng.random()

    def pick(self, xs):
        return self.rng.choice(xs)

    def emit(self, line):
        self.lines.append('    ' * self.indent + line)

    def fresh(self, prefix='v'):
        self.count += 1
        return f'{prefix}{self.count}'

    def vars_of(self, *types):
        return [n for n, t in self.env.items() if t in types]

    # ---- expressions ----
    def int_e(self, d):
        vs = self.vars_of('int')
        if d <= 0 or self.r() < 0.3:
            if vs and self.r() < 0.6:
                return self.pick(vs)
            return self.pick(INT_LITS[:14]) if self.r() < 0.8 else f'({self.pick(INT_LITS)})'
        a, b = self.int_e(d - 1), self.int_e(d - 1)
        k = self.r()
        if k < 0.35:
            return f'({a} {self.pick(["+", "-", "*"])} {b})'
        if k < 0.5:
            return f'({a} {self.pick(["//", "%"])} ({b} or {self.pick(["3", "-7", "2"])}))'
        if k < 0.55:
            return f'({a} ** {self.pick(["2", "3", "0", "7", "21", "40"])})'
        if k < 0.6:
            return f'({a} {self.pick(["&", "|", "^"])} {b})'
        if k < 0.63:
            return f'({a} {self.pick(["<<", ">>"])} {self.pick(["1", "3", "10", "64"])})'
        if k < 0.68:
            return f'{self.pick(["abs", "-", "+", "~"])}({a})'
        if k < 0.73:
            return f'{self.pick(["max", "min"])}({a}, {b})'
        if k < 0.78:
            return f'len({self.str_e(d - 1)})'
        if k < 0.83:
            f = self.float_e(d - 1)
            return f'{self.pick(["int", "round", "math.floor", "math.ceil"])}(max(min({f}, 1e15), -1e15))'
        if k < 0.86:
            return f'int({self.bool_e(d - 1)})'
        if k < 0.9:
            return f'sum([{a}, {b}, {self.int_e(0)}])'
        if k < 0.94:
            return f'({a} if {self.bool_e(d - 1)} else {b})'
        if k < 0.97:
            return f'divmod({a}, ({b} or 5))[{self.pick(["0", "1"])}]'
        return f'int({self.pick(STR_LITS[5:6] + ["str(" + a + ")"])})'

    def float_e(self, d):
        vs = self.vars_of('float')
        if d <= 0 or self.r() < 0.3:
            if vs and self.r() < 0.6:
                return self.pick(vs)
            return self.pick(FLOAT_LITS)
        k = self.r()
        if k < 0.3:
            return f'({self.num_e(d - 1)} {self.pick(["+", "-", "*"])} {self.float_e(d - 1)})'
        if k < 0.45:
            return f'({self.num_e(d - 1)} / ({self.num_e(d - 1)} or {self.pick(["4", "0.5", "-3.0"])}))'
        if k < 0.55:
            return f'({self.float_e(d - 1)} {self.pick(["//", "%"])} ({self.num_e(d - 1)} or {self.pick(["0.75", "-2", "3"])}))'
        if k < 0.6:
            return f'(abs({self.float_e(d - 1)}) ** {self.pick(["0.5", "2", "-1", "1.5", "3"])})'
        if k < 0.65:
            return f'float({self.int_e(d - 1)})'
        if k < 0.7:
            return f'round({self.float_e(d - 1)}, {self.pick(["0", "1", "2", "3", "-1"])})'
        if k < 0.75:
            return f'{self.pick(["math.sqrt", "math.exp", "math.log1p", "math.sin", "math.atan"])}(min(abs({self.float_e(d - 1)}), 50.0))'
        if k < 0.8:
            return f'{self.pick(["max", "min"])}({self.float_e(d - 1)}, {self.num_e(d - 1)})'
        if k < 0.85:
            return f'float({self.pick(STR_LITS[5:7] + ["str(" + self.float_e(d - 1) + ")", repr("1e3"), repr("inf"), repr(" 2.5 ")])})'
        if k < 0.9:
            return f'sum([{self.float_e(d - 1)}, {self.num_e(d - 1)}, 0.1])'
        if k < 0.95:
            return f'-{self.float_e(d - 1)}'
        return f'math.fsum([0.1] * {self.pick(["3", "10"])})'

    def num_e(self, d):
        return self.int_e(d) if self.r() < 0.5 else self.float_e(d)

    def bool_e(self, d):
        vs = self.vars_of('bool')
        if d <= 0 or self.r() < 0.2:
            if vs and self.r() < 0.5:
                return self.pick(vs)
            return self.pick(['True', 'False'])
        k = self.r()
        if k < 0.45:
            return f'({self.num_e(d - 1)} {self.pick(["<", "<=", "==", "!=", ">", ">="])} {self.num_e(d - 1)})'
        if k < 0.55:
            return f'({self.str_e(d - 1)} {self.pick(["<", "==", "!=", ">=", "in", "not in"])} {self.str_e(d - 1)})'
        if k < 0.7:
            return f'({self.bool_e(d - 1)} {self.pick(["and", "or"])} {self.bool_e(d - 1)})'
        if k < 0.75:
            return f'(not {self.bool_e(d - 1)})'
        if k < 0.85:
            return f'bool({self.any_scalar(d - 1)})'
        if k < 0.9:
            return f'isinstance({self.any_scalar(d - 1)}, {self.pick(["int", "float", "str", "bool", "(int, float)"])})'
        lv = self.vars_of('list')
        if lv:
            return f'({self.int_e(0)} in {self.pick(lv)})'
        return f'({self.int_e(d - 1)} in [{self.int_e(0)}, {self.int_e(0)}])'

    def str_e(self, d):
        vs = self.vars_of('str')
        if d <= 0 or self.r() < 0.3:
            if vs and self.r() < 0.6:
                return self.pick(vs)
            return self.pick(STR_LITS)
        k = self.r()
        if k < 0.2:
            return f'({self.str_e(d - 1)} + {self.str_e(d - 1)})'
        if k < 0.3:
            return f'str({self.any_scalar(d - 1)})'
        if k < 0.4:
            return f'repr({self.any_value(d - 1)})'
        if k < 0.55:
            return self.fstring(d - 1)
        if k < 0.6:
            return f'({self.str_e(d - 1)} * {self.pick(["0", "2", "3"])})'
        if k < 0.7:
            return f'{self.str_e(d - 1)}.{self.pick(STR_METHODS)}'
        if k < 0.8:
            return f'{self.str_e(d - 1)}[{self.pick(["::-1", "1:", ":2", "::2", "-2:", "1:-1"])}]'
        if k < 0.9:
            return f'{self.pick(SEPS)}.join([{self.str_e(d - 1)}, {self.str_e(d - 1)}])'
        return f'"{self.pick(["%d", "%5.2f", "%s", "%r", "%x"])}" % ({self.num_e(d - 1)},)'

    def fstring(self, d):
        parts = []
        for _ in range(self.rng.randint(1, 3)):
            k = self.r()
            if k < 0.4:
                parts.append('{' + self.float_e(d) + self.pick(FMT_FLOAT) + '}')
            elif k < 0.75:
                parts.append('{' + self.int_e(d) + self.pick(FMT_INT) + '}')
            else:
                parts.append('{' + self.str_e(min(d, 1)) + self.pick(FMT_STR) + '}')
            parts.append(self.pick(['', ' ', '|', ' = ']))
        body = ''.join(parts).replace('"', "'")
        return f'f"{body}"'

    def any_scalar(self, d):
        return self.pick([self.int_e, self.float_e, self.str_e, self.bool_e])(d)

    def list_e(self, d):
        vs = self.vars_of('list')
        k = self.r()
        if vs and k < 0.3:
            return self.pick(vs)
        if k < 0.5 or d <= 0:
            return '[' + ', '.join(self.any_scalar(max(d - 1, 0)) for _ in range(self.rng.randint(0, 4))) + ']'
        if k < 0.65:
            v = self.fresh('i')
            self.env[v] = 'int'
            e = f'[{self.num_e(d - 1)} for {v} in range({self.rng.randint(0, 6)}) if {self.bool_e(d - 1)}]'
            del self.env[v]
            return e
        if k < 0.72:
            return f'sorted([{self.int_e(d - 1)}, {self.int_e(d - 1)}, {self.int_e(0)}]{self.pick(["", ", reverse=True"])})'
        if k < 0.8:
            return f'list(range({self.pick(["5", "-2, 7, 3", "10, 0, -4", "0"])}))'
        if k < 0.86:
            return f'({self.list_e(d - 1)} + {self.list_e(d - 1)})'
        if k < 0.92:
            return f'list({self.str_e(d - 1)})'
        return f'[{self.list_e(d - 1)}, {self.any_scalar(d - 1)}]'

    def any_value(self, d):
        k = self.r()
        if k < 0.6:
            return self.any_scalar(d)
        if k < 0.8:
            return self.list_e(d)
        if k < 0.9:
            return f'({self.any_scalar(d)}, {self.any_scalar(d)})'
        return '{' + f'{self.str_e(0)}: {self.any_scalar(d)}, {self.int_e(0)}: {self.list_e(0)}' + '}'

    # ---- statements ----
    def assign(self):
        t = self.pick(['int', 'int', 'float', 'float', 'str', 'bool', 'list', 'dict', 'tuple'])
        d = self.rng.randint(1, 3)
        if t == 'dict':
            e = '{' + ', '.join(f'{self.str_e(0)}: {self.any_scalar(1)}' for _ in range(self.rng.randint(0, 3))) + '}'
        elif t == 'tuple':
            e = '(' + ', '.join(self.any_scalar(1) for _ in range(self.rng.randint(1, 3))) + ',)'
        else:
            e = {'int': self.int_e, 'float': self.float_e, 'str': self.str_e, 'bool': self.bool_e, 'list': self.list_e}[t](d)
        name = self.pick(list(self.env)) if self.env and self.r() < 0.3 else self.fresh()
        self.env[name] = t
        self.emit(f'{name} = {e}')

    def show(self):
        vs = list(self.env)
        items = [self.pick(vs) for _ in range(self.rng.randint(1, 3))] if vs and self.r() < 0.6 else [self.any_value(2)]
        self.emit(f'print({", ".join(items)})')

    def augassign(self):
        vs = self.vars_of('int', 'float')
        if not vs:
            return self.assign()
        v = self.pick(vs)
        op = self.pick(['+=', '-=', '*=', '//=', '%=', '/=', '**='])
        rhs = self.num_e(1)
        if op in ('//=', '%=', '/='):
            rhs = f'({rhs} or 3)'
        if op == '**=':
            rhs = self.pick(['2', '0.5', '3'])
            self.emit(f'{v} = abs({v})')
        self.emit(f'{v} {op} {rhs}')
        if op in ('/=',) or 'float' in rhs or '.' in rhs:
            self.env[v] = 'float'
        elif op == '**=' and rhs == '0.5':
            self.env[v] = 'float'
        else:
            self.env[v] = 'any' if self.env[v] != 'int' else 'any'

    def loop(self, depth):
        i = self.fresh('i')
        k = self.r()
        if k < 0.6:
            self.emit(f'for {i} in range({self.pick(["3", "4", "1, 6", "5, 0, -2", "0"])}):')
        elif k < 0.8:
            self.emit(f'for {i} in {self.pick(ITERABLES)}:')
        else:
            self.emit(f'for {i}, {i}b in enumerate({self.pick(ENUMERABLES)}):')
            self.env[i + 'b'] = 'any'
        self.env[i] = 'int' if 'range' in self.lines[-1] or 'enumerate' in self.lines[-1] else 'any'
        self.indent += 1
        self.block(depth - 1, self.rng.randint(1, 3), loop=True)
        self.indent -= 1

    def type_changer(self):
        """A statement whose result changes type or structure each time it runs (in a loop)."""
        vs = list(self.env)
        if not vs:
            return self.assign()
        v = self.pick(vs)
        t = self.env[v]
        k = self.r()
        if t == 'int' and k < 0.5:
            self.emit(f'{v} = {v} / {self.pick(["2", "3", "-4"])}')
            self.env[v] = 'float'
        elif t in ('int', 'float') and k < 0.7:
            self.emit(f'{v} = {self.pick(["str(" + v + ")", "[" + v + "]", "(" + v + ", " + v + ")", v + " > 1"])}')
            self.env[v] = 'any'
        elif t == 'list' and k < 0.5:
            self.emit(f'{v}.append({self.any_scalar(1)})')
        elif t == 'list':
            self.emit(f'{v} = [{v}, len({v})]')
        elif t == 'dict':
            self.emit(f'{v}[{self.str_e(1)}] = {self.any_value(1)}')
        elif t == 'str':
            self.emit(f'{v} = {v} + {self.str_e(1)}')
        else:
            self.emit(f'{v} = [{v}]')
            self.env[v] = 'list'

    def cond(self, depth):
        self.emit(f'if {self.bool_e(2)}:')
        self.indent += 1
        self.block(depth - 1, self.rng.randint(1, 2))
        self.indent -= 1
        if self.r() < 0.3:
            self.emit(f'elif {self.bool_e(2)}:')
            self.indent += 1
            self.block(depth - 1, 1)
            self.indent -= 1
        if self.r() < 0.6:
            self.emit('else:')
            self.indent += 1
            self.block(depth - 1, self.rng.randint(1, 2))
            self.indent -= 1

    def while_loop(self, depth):
        c = self.fresh('w')
        self.emit(f'{c} = {self.pick(["0", "1", "10", "2**60"])}')
        self.env[c] = 'int'
        grow = self.r() < 0.5
        self.emit(f'while {c} {self.pick(["< 5", "< 2**62" if grow else "< 9", "> 0 and " + c + " < 20"])}:')
        self.indent += 1
        self.emit(f'{c} = {c} * 3 + 1' if grow else f'{c} += {self.pick(["1", "2", "7"])}')
        saved = dict(self.env)
        self.block(depth - 1, self.rng.randint(0, 2), loop=True)
        self.env = {k: v if saved.get(k) == v else 'any' for k, v in self.env.items()}
        self.env[c] = 'int'
        if self.r() < 0.3:
            self.emit(f'if {c} % 4 == 0:')
            self.emit(f'    {self.pick(["break", "continue"])}')
        self.indent -= 1
        if self.r() < 0.3:
            self.emit('else:')
            self.emit(f'    print("done", {c})')

    def try_block(self, depth):
        self.emit('try:')
        self.indent += 1
        k = self.r()
        if k < 0.25:
            self.emit(f'print({self.num_e(1)} {self.pick(["/", "//", "%"])} {self.pick(["0", "0.0", "(1 - 1)"])})')
        elif k < 0.4:
            self.emit(f'print([1, 2, 3][{self.pick(["3", "-4", "1"])}])')
        elif k < 0.55:
            self.emit(f'print({{"a": 1}}[{self.str_e(0)}])')
        elif k < 0.7:
            self.emit(f'print(int({self.str_e(1)}))')
        elif k < 0.8:
            self.emit(f'raise {self.pick(["ValueError", "TypeError", "KeyError", "RuntimeError"])}({self.str_e(1)})')
        else:
            self.block(depth - 1, 1)
        self.indent -= 1
        exc = self.pick(['ZeroDivisionError', 'IndexError', 'KeyError', 'ValueError', '(ValueError, TypeError)', 'Exception',
                         'ArithmeticError', 'LookupError'])
        self.emit(f'except {exc} as e:')
        self.emit(f'    print("caught", type(e).__name__, {self.pick(["e", "repr(e)", "str(e)", "e.args"])})')
        if self.r() < 0.3:
            self.emit('else:')
            self.emit('    print("no error")')
        if self.r() < 0.5:
            self.emit('finally:')
            self.emit('    print("finally")')

    def comprehension(self):
        i = self.fresh('c')
        self.env[i] = 'int'
        k = self.r()
        src = self.pick(['range(5)', 'range(-3, 4)', '[3, 1, 2]', 'range(1, 10, 3)'])
        if k < 0.35:
            e = f'[{self.num_e(2)} for {i} in {src} if {self.bool_e(1)}]'
        elif k < 0.55:
            e = '{' + f'{i}: {self.any_scalar(1)} for {i} in {src}' + '}'
        elif k < 0.7:
            e = '{' + f'{self.int_e(1)} % 3 for {i} in {src}' + '}'
        elif k < 0.85:
            e = f'{self.pick(["sum", "max", "min", "list", "tuple", "sorted", "any", "all"])}({self.int_e(1)} for {i} in {src})'
        else:
            e = f'[[{i} * j for j in range({i})] for {i} in range(4)]'
        del self.env[i]
        self.emit(f'print({e})')

    def klass(self):
        name = self.fresh('K')
        base = self.fresh('B')
        a = self.pick(INT_LITS[:10])
        self.emit(f'class {base}:')
        self.emit(f'    count = {a}')
        self.emit('    def __init__(self, x, y=2):')
        self.emit('        self.x = x')
        self.emit('        self.y = y')
        self.emit(f'        {base}.count += 1')
        self.emit('    def total(self):')
        self.emit(f'        return self.x * self.y + {self.pick(["1", "0.5", "self.count"])}')
        self.emit('    @property')
        self.emit('    def double(self):')
        self.emit('        return self.x * 2')
        self.emit('    @staticmethod')
        self.emit('    def twice(v):')
        self.emit('        return v + v')
        self.emit('    @classmethod')
        self.emit('    def make(cls, v):')
        self.emit('        return cls(v, v)')
        has_repr = self.r() < 0.6
        if has_repr:
            self.emit('    def __repr__(self):')
            self.emit(f'        return f"{base}({{self.x!r}}, {{self.y!r}})"')
        if self.r() < 0.4:
            self.emit('    def __eq__(self, other):')
            self.emit('        return self.x == other.x')
        self.emit(f'class {name}({base}):')
        self.emit('    def total(self):')
        self.emit(f'        return super().total() {self.pick(["*", "+", "-"])} {self.num_e(0)}')
        if self.r() < 0.5:
            self.emit('    def __call__(self, z):')
            self.emit('        return self.x + z')
            call = f', o({self.int_e(0)})'
        else:
            call = ''
        self.emit('    def __len__(self):')
        self.emit('        return 3')
        x, y = self.num_e(1), self.any_scalar(0) if self.r() < 0.3 else self.num_e(1)
        self.emit(f'o = {name}({x}, {y})')
        self.emit(f'p = {base}.make({self.num_e(1)})')
        self.emit(f'print(o.total(), p.total(), o.double, {base}.twice({self.any_scalar(1)}), {name}.count, len(o){call})')
        self.emit(f'print(isinstance(o, {base}), type(o).__name__, o.x == p.x, [o.y, p.y])')
        if has_repr:
            self.emit('print(repr(p), str(o), [p])')
        self.env.pop('o', None)

    def generator(self):
        g = self.fresh('g')
        self.emit(f'def {g}(n):')
        self.emit('    total = 0')
        self.emit('    for i in range(n):')
        self.emit(f'        total += {self.pick(["i", "i * i", "0.5", "i % 3"])}')
        self.emit(f'        yield {self.pick(["total", "i", "(i, total)", "str(i) * i"])}')
        if self.r() < 0.5:
            self.emit('    yield "end"')
        n = self.pick(['0', '1', '3', '5'])
        k = self.r()
        if k < 0.4:
            self.emit(f'print(list({g}({n})))')
        elif k < 0.7:
            self.emit(f'it = {g}({n})')
            self.emit('print(next(it, "empty"), next(it, "empty"), list(it))')
        else:
            self.emit(f'for x in {g}({n}):')
            self.emit('    print("gen", x)')

    def stmt(self, depth, loop=False):
        k = self.r()
        if k < 0.2:
            return self.assign()
        if k < 0.35:
            return self.show()
        if k < 0.45:
            return self.augassign()
        if k < 0.55 and loop:
            return self.type_changer()
        if depth > 0 and k < 0.62:
            return self.loop(depth)
        if depth > 0 and k < 0.7:
            return self.cond(depth)
        if depth > 0 and k < 0.74:
            return self.while_loop(depth)
        if k < 0.8:
            return self.try_block(depth)
        if k < 0.86:
            return self.comprehension()
        if k < 0.9 and depth >= 2:
            return self.klass()
        if k < 0.94 and depth >= 2:
            return self.generator()
        if k < 0.97:
            return self.type_changer()
        return self.show()

    def block(self, depth, n, loop=False):
        if n == 0:
            self.emit('pass')
        for _ in range(n):
            self.stmt(depth, loop)

    # ---- programs on values known only when the program runs ----
    # jaxts computes these in the generated TypeScript; the generator keeps to what that supports (named in
    # fixtures/errors/ where it stops): host numbers, not containers of them that change, and one type per name.
    def rt_num(self, d, t):
        ints = [n for n, u in self.env.items() if u == 'int']
        floats = [n for n, u in self.env.items() if u == 'float']
        if d <= 0 or self.r() < 0.3:
            pool = ints if t == 'int' else floats
            if pool and self.r() < 0.8:
                return self.pick(pool)
            return self.pick(['0', '1', '2', '3', '7', '-5', '10', '100']) if t == 'int' else self.pick(['0.5', '1.5', '-2.25', '3.0', '1e-07', '1e16', '0.1'])
        k = self.r()
        if t == 'int':
            if k < 0.4:
                return f'({self.rt_num(d - 1, "int")} {self.pick(["+", "-", "*"])} {self.rt_num(d - 1, "int")})'
            if k < 0.6:
                return f'({self.rt_num(d - 1, "int")} {self.pick(["//", "%"])} {self.pick(["3", "-7", "2", "10"])})'
            if k < 0.7:
                return f'({self.rt_num(d - 1, "int")} {self.pick(["&", "|", "^"])} {self.rt_num(d - 1, "int")})'
            if k < 0.8:
                return f'abs({self.rt_num(d - 1, "int")})'
            if k < 0.9:
                return f'{self.pick(["max", "min"])}({self.rt_num(d - 1, "int")}, {self.rt_num(d - 1, "int")})'
            return f'({self.rt_num(d - 1, "int")} ** {self.pick(["2", "3"])})'
        if k < 0.35:
            return f'({self.rt_num(d - 1, self.pick(["int", "float"]))} {self.pick(["+", "-", "*"])} {self.rt_num(d - 1, "float")})'
        if k < 0.5:
            return f'({self.rt_num(d - 1, self.pick(["int", "float"]))} / {self.pick(["3", "-4", "0.5", "7.0"])})'
        if k < 0.65:
            return f'({self.rt_num(d - 1, "float")} {self.pick(["//", "%"])} {self.pick(["0.75", "-2", "3", "0.1"])})'
        if k < 0.75:
            return f'float({self.rt_num(d - 1, "int")})'
        if k < 0.85:
            return f'{self.pick(["max", "min"])}({self.rt_num(d - 1, "float")}, {self.rt_num(d - 1, "float")})'
        if k < 0.9:
            return f'abs({self.rt_num(d - 1, "float")})'
        return f'(abs({self.rt_num(d - 1, "float")}) ** {self.pick(["0.5", "2", "-1"])})'

    def rt_cmp(self):
        t = self.pick(['int', 'float'])
        return f'{self.rt_num(1, t)} {self.pick(["<", "<=", "==", "!=", ">", ">="])} {self.rt_num(1, self.pick(["int", "float"]))}'

    def rt_show(self):
        k = self.r()
        names = list(self.env)
        if k < 0.4:
            self.emit(f'print({", ".join(self.pick(names) for _ in range(self.rng.randint(1, 3)))})')
        elif k < 0.7:
            parts = []
            for _ in range(self.rng.randint(1, 3)):
                n = self.pick(names)
                fmt = self.pick(FMT_INT if self.env[n] == 'int' else FMT_FLOAT if self.env[n] == 'float' else [''])
                parts.append('{' + n + fmt + '}')
            self.emit('print(f"' + ' '.join(parts) + '")')
        elif k < 0.85:
            self.emit(f'print([{self.pick(names)}, {self.rt_num(1, "float")}], ({self.rt_num(1, "int")}, {self.pick(names)}))')
        else:
            self.emit(f'print(str({self.pick(names)}) + "|" + repr({self.rt_num(1, "float")}), {self.rt_cmp()})')

    def rt_stmt(self, depth):
        if self.rt_builtins and depth > 0 and self.indent == 1 and self.r() < 0.3:
            return self.rt_builtins_stmt()
        if self.rt_more and depth > 0 and self.indent == 1 and self.r() < 0.25:
            return self.rt_more_stmt()
        if self.rt_lists and depth > 0 and self.indent == 1 and self.r() < 0.3:
            return self.rt_history() if self.r() < 0.6 else self.rt_best()
        k = self.r()
        if k < 0.35:
            t = self.pick(['int', 'float'])
            # a name first bound inside a run-time loop is not visible after it in jaxts (fixtures/errors/)
            v = self.pick([n for n, u in self.env.items() if u == t] + ([] if self.indent > 1 else [self.fresh()]))
            self.env[v] = t
            self.emit(f'{v} = {self.rt_num(2, t)}')
        elif k < 0.55:
            self.rt_show()
        elif k < 0.7 and depth > 0:
            self.emit(f'if {self.rt_cmp()}:')
            self.indent += 1
            self.rt_show()
            self.indent -= 1
            self.emit('else:')
            self.indent += 1
            self.rt_show()
            self.indent -= 1
        elif k < 0.8 and depth > 0:
            c = self.fresh('w')
            self.emit(f'{c} = a')
            self.env[c] = 'int'
            self.emit(f'while {c} < {self.pick(["5", "20", "a + 4"])}:')
            self.indent += 1
            self.emit(f'{c} = {c} * 2 + 1')
            self.rt_stmt(depth - 1)
            self.indent -= 1
        elif k < 0.9 and depth > 0 and self.indent == 1:
            # (a list changed inside a loop on run-time values is not supported: fixtures/errors/)
            acc = self.fresh('acc')
            self.emit(f'{acc} = []')
            i = self.fresh('i')
            self.emit(f'for {i} in range({self.pick(["3", "4"])}):')
            self.indent += 1
            self.env[i] = 'int'
            self.emit(f'{acc}.append({self.rt_num(1, "float")})')
            self.indent -= 1
            del self.env[i]
            self.emit(f'print({acc}, len({acc}))')
        else:
            t = self.pick(['int', 'float'])
            v = self.pick([n for n, u in self.env.items() if u == t])
            self.emit(f'{v} {self.pick(["+=", "-=", "*="])} {self.rt_num(1, t)}')

    def rt_more_stmt(self):
        """With --rt-more: a for loop over a range whose bound is known only at run time (its accumulator may
        change type), a match on a run-time value, hash() of run-time ints, math functions that may raise."""
        k = self.r()
        if k < 0.35:
            i, acc = self.fresh('i'), self.fresh('s')
            self.emit(f'{acc} = {self.pick(["0", "0.0", "1"])}')
            bound = self.pick(['a', 'a + 2', 'a % 5', '(a * 3) // 2', 'int(b) % 6'])
            rng = self.pick([f'range({bound})', f'range(1, {bound})', f'range({bound}, -1, -1)', f'range(2, {bound} + 3, 2)'])
            self.emit(f'for {i} in {rng}:')
            self.emit(f'    {acc} += {i} * {self.pick(["1", "2", "0.5", "-3"])}')
            self.emit(f'print({acc}, len({rng}), [{i} * {i} for {i} in {rng}], list({rng}))')
        elif k < 0.65:
            if self.r() < 0.5:
                self.emit(f'match {self.pick(["a % 4", "int(b) % 3", "a - 2"])}:')
                self.emit(f'    case {self.pick(["0", "1", "-1"])}:')
                self.emit(f'        print("zero-ish", {self.rt_num(1, "int")})')
                self.emit(f'    case 2 | 3:')
                self.emit(f'        print("two or three")')
                c = self.fresh('c')
                self.emit(f'    case {c} if {c} > {self.pick(["1", "3"])}:')
                self.emit(f'        print("big", {c} * 2)')
                self.emit('    case _:')
                self.emit('        print("other")')
            else:
                p, q = self.fresh('p'), self.fresh('q')
                self.emit(f'match (a % 2, {self.pick(["a % 3", "int(b) % 2"])}):')
                self.emit(f'    case (0, {q}):')
                self.emit(f'        print("even", {q})')
                self.emit(f'    case ({p}, {q}) if {p} == {q}:')
                self.emit(f'        print("same", {p})')
                self.emit('    case (1, 0) | (1, 2):')
                self.emit('        print("odd pair")')
                self.emit('    case _:')
                self.emit('        print("other")')
        elif k < 0.8:
            self.emit(f'print(hash({self.rt_num(1, "int")}), hash(a - {self.pick(["1", "5", "a + 1"])}), hash(a > 2))')
        else:
            e = self.fresh('e')
            fn = self.pick(['exp', 'sqrt', 'log', 'log1p', 'cosh', 'atanh', 'asin'])
            arg = self.pick(['b * 400', '-b', 'b - b', 'b / 1e3', 'a * 1.0', '-1.0 - a'])
            self.emit('try:')
            self.emit(f'    print(math.{fn}({arg}))')
            self.emit(f'except (ValueError, OverflowError) as {e}:')
            self.emit(f'    print(type({e}).__name__, {e})')

    def rt_builtins_stmt(self):
        """With --rt-builtins: str methods of a run-time string, ints beyond 2**53 from run-time ints, a tuple of a
        run-time list."""
        k = self.r()
        if k < 0.4:
            s = self.fresh('s')
            self.emit(f'{s} = f"{self.pick(["  ", "", "x "])}{{a}}{self.pick([",", " ", "-", ", "])}{{b{self.pick(FMT_FLOAT[:6])}}}{self.pick(["  ", "", " Ab", ",z"])}"')
            m = [self.pick(['strip()', 'split()', 'split(",")', 'split(None, 1)', 'rsplit(" ", 1)', 'upper()', 'title()', 'swapcase()',
                            'lstrip(" x")', 'partition(",")', 'rpartition("-")', 'find("1")', 'rfind(" ")', 'count("0")', 'startswith(" ")',
                            'endswith("z")', 'zfill(12)', 'center(15, "*")', 'ljust(10) + "|"', 'isdigit()', 'strip().isalnum()', 'splitlines()'])
                 for _ in range(3)]
            self.emit(f'print({", ".join(f"{s}.{x}" for x in m)}, "|".join({s}.split()))')
        elif k < 0.7:
            base = self.pick(['a', 'a + 1', 'a + 7', '-a - 2', '(a * 3 + 1)'])
            e = self.pick(['19', '23', '30', '41'])
            d = self.pick(['7', '-7', '1000003', '2 ** 61 - 1', '3 ** 40'])
            big = f'({base}) ** {e}'
            self.emit(f'print({big}, {big} // {d}, {big} % {d}, -{big} // {d}, {big} * {self.pick(["10 ** 18", "a", "-3"])} - 1, {big} > 2 ** 60)')
        else:
            h, c = self.fresh('hist'), self.fresh('v')
            self.emit(f'{h} = []')
            self.emit(f'{c} = a')
            self.emit(f'while {c} < {self.pick(["9", "30", "a + 5"])}:')
            self.emit(f'    {c} = {c} * 2 + 1')
            self.emit(f'    {h}.append({self.pick([c, f"{c} % 5", f"{c} / 4"])})')
            t = self.fresh('t')
            self.emit(f'{t} = tuple({h})')
            self.emit(f'print({t}, len({t}), {t}[:2], {t}[::-1], {t} == tuple({h}), sum({t}))')

    def rt_best(self):
        """A best-so-far that starts as None in a while loop on a run-time value (a host value that may be None),
        and a try/except around an error that happens only at run time (its message printed)."""
        best = self.fresh('best')
        c = self.fresh('v')
        self.emit(f'{best} = None')
        self.emit(f'{c} = b')
        self.emit(f'while {c} < {self.pick(["50.0", "1e3", "b + 20"])}:')
        self.indent += 1
        self.emit(f'{c} = abs({c}) * 2 + {self.pick(["1.5", "1", "0.25"])}')
        cand = self.pick([c, f'{c} % 7', f'-{c}', f'round({c} / 3, 2)'])
        self.emit(f'if {best} is None or {cand} {self.pick(["<", ">"])} {best}:')
        self.emit(f'    {best} = {cand}')
        if self.r() < 0.3:
            self.emit(f'if {c} > {self.pick(["30", "100.5"])}:')
            self.emit('    break')
        self.indent -= 1
        self.emit(f'print({best}, {best} is None, {c})')
        k = self.r()
        e = self.fresh('e')
        if k < 0.5:
            self.emit('try:')
            self.emit(f'    print({self.pick(["[1, 2, 3]", "[0.5, 1.5]", "list(range(4))"])}[int({c}) % {self.pick(["3", "5", "7"])}])')
            self.emit(f'except IndexError as {e}:')
            self.emit(f'    print("IndexError", {e})')
        else:
            q = self.fresh('q')
            self.emit('try:')
            lhs, op = self.pick(['10', '2.5']), self.pick(['/', '//', '%'])
            self.emit(f'    {q} = {lhs} {op} (int({c}) % {self.pick(["2", "3"])})')
            self.emit(f'except ZeroDivisionError as {e}:')
            # (the same type on both paths: jaxts keeps one type per name after a run-time branch)
            self.emit(f'    {q} = {"-1" if lhs == "10" and op != "/" else "-1.0"}')
            self.emit(f'    print("ZeroDivisionError:", {e})')
            self.emit('else:')
            self.emit(f'    print("ok", {q})')

    def rt_history(self):
        """A list appended to in a while loop on a run-time value (a list known only when the program runs), then used."""
        hist = self.fresh('hist')
        c = self.fresh('v')
        self.emit(f'{hist} = {self.pick(["[]", "[]", "[0.5]"])}')
        self.emit(f'{c} = b')
        self.env[c] = 'float'
        self.emit(f'while {c} < {self.pick(["50.0", "1e3", "b + 20"])}:')
        self.indent += 1
        self.emit(f'{c} = abs({c}) * 2 + {self.pick(["1.5", "1", "0.25"])}')
        if self.r() < 0.3:
            self.emit(f'if {c} > {self.pick(["4", "10.5"])}:')
            self.indent += 1
        self.emit(f'{hist}.append({self.pick([c, f"round({c}, 2)", f"{c} / 3", f"{c} // 2"])})')
        self.indent = 1
        k = self.r()
        if k < 0.25:
            self.emit(f'print(len({hist}), {hist})')
        elif k < 0.5:
            self.emit(f'print({hist}[-1], {hist}[:2], {hist}[1:-1], sum({hist}))')
        elif k < 0.75:
            x = self.fresh('h')
            self.emit(f'for {x} in {hist}:')
            self.emit(f'    print("item", {x}, f"{{{x}:.3f}}")')
        else:
            self.emit(f'print(max({hist}), min({hist}), bool({hist}))')

    def rt_program(self, name):
        self.lines = [f'def {name}():']
        self.env = {}
        self.indent = 1
        # values known only when the program runs: read back from the device
        self.emit(f'a = int(jnp.sum(jnp.arange({self.rng.randint(1, 6)})))')
        self.emit(f'b = float(jnp.array({self.pick(FLOAT_LITS[:12])}))')
        self.env.update(a='int', b='float')
        for _ in range(self.rng.randint(3, 7)):
            self.rt_stmt(2)
        self.emit(f'print({", ".join(list(self.env)[:6])})')
        return self.lines

    def program(self, name):
        self.lines = [f'def {name}():']
        self.env = {}
        self.indent = 1
        if self.runtime:
            return self.rt_program(name)
        for _ in range(self.rng.randint(3, 7)):
            self.stmt(2)
        names = list(self.env)
        if names:
            self.emit(f'print({", ".join(names[:6])})')
        return self.lines


def runs_cleanly(src):
    """Whether CPython runs `src` without an uncaught exception (and not for long)."""
    import math  # noqa: F401  (the programs use it)
    buf = io.StringIO()
    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(2)
    try:
        with contextlib.redirect_stdout(buf):
            code = compile(src, '<gen>', 'exec')
            exec(code, {'__name__': 'gen', 'math': math, 'jnp': FakeJnp()})
    except Exception:  # noqa: BLE001 - any failure drops the candidate
        return False
    finally:
        signal.alarm(0)
    out = buf.getvalue()
    return len(out) < 4000 and 'at 0x' not in out


def timed_out(*_):
    raise TimeoutError('candidate runs too long')


class FakeJnp:
    """Stands in for jax.numpy while the generator checks a candidate (only the readbacks it emits)."""

    def sum(self, x):
        return sum(x)

    def arange(self, n):
        return list(range(n))

    def array(self, x):
        import struct
        return struct.unpack('f', struct.pack('f', x))[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--per-batch', type=int, default=25)
    ap.add_argument('--runtime-every', type=int, default=4, help='every Nth program starts from device readbacks')
    ap.add_argument('--out', default='fixtures/pyhost')
    ap.add_argument('--rt-lists', action='store_true', help='run-time programs may append to lists in loops on run-time values')
    ap.add_argument('--rt-more', action='store_true', help='run-time programs may loop over ranges with run-time bounds, match on run-time values, hash and call math functions that raise')
    ap.add_argument('--rt-builtins', action='store_true', help='run-time programs may call str methods of run-time strings, compute ints beyond 2**53 and make tuples of run-time lists')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    batches = (a.count + a.per_batch - 1) // a.per_batch
    for b in range(batches):
        rng = random.Random(a.seed * 1_000_003 + b)
        n = min(a.per_batch, a.count - b * a.per_batch)
        flags = (f' --runtime-every {a.runtime_every}' if a.runtime_every != 4 else '') + (' --rt-lists' if a.rt_lists else '') + (' --rt-more' if a.rt_more else '') + (' --rt-builtins' if a.rt_builtins else '')
        lines = [f'# Differential fixture: {n} random Python host programs, scripts/fuzz_py_gen.py --seed {a.seed}{flags} batch {b}.',
                 '# Generated; its golden comes from scripts/oracle.sh (CPython). Do not edit.',
                 'import math', 'import jax.numpy as jnp', '', '']
        for i in range(n):
            runtime = a.runtime_every > 0 and i % a.runtime_every == a.runtime_every - 1
            while True:
                body = Gen(rng, runtime, a.rt_lists, a.rt_more, a.rt_builtins).program(f'p{i}')
                src = '\n'.join(body) + f'\n\n\nprint("== p{i}")\np{i}()\n'
                if runs_cleanly(src):
                    break
            lines += body + ['', '', f'print("== p{i}")', f'p{i}()', '', '']
        with open(os.path.join(a.out, f'batch_{a.seed:03d}_{b:03d}.py'), 'w') as f:
            f.write('\n'.join(lines).rstrip() + '\n')


if __name__ == '__main__':
    main()
