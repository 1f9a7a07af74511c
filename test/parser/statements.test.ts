// Tests of statement parsing: every statement kind of ast.ts, function and
// class definitions (parameters, decorators, docstrings), and target checks.
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/parser/index.js';
import type { ClassDef, FunctionDef, Stmt } from '../../src/parser/index.js';
import { dump, parseError, stmt } from './helpers.js';

/** Statement kinds of a module, recursively summarized. */
function kinds(body: Stmt[]): string[] {
  return body.map((s) => s.kind);
}

describe('simple statements', () => {
  it('parses expression statements and assignments', () => {
    expect(stmt('f(x)\n')).toMatchObject({ kind: 'ExprStmt', value: { kind: 'Call' } });
    const a = stmt('x = 1\n');
    expect(a).toMatchObject({ kind: 'Assign', targets: [{ kind: 'Name', id: 'x' }], value: { kind: 'Constant', value: 1n } });
  });

  it('parses chained assignment with targets in source order', () => {
    const a = stmt('a = b = c = 1\n');
    if (a.kind !== 'Assign') throw new Error(a.kind);
    expect(a.targets.map(dump)).toEqual(['a', 'b', 'c']);
    expect(dump(a.value)).toBe('1');
  });

  it('parses tuple, nested and starred targets', () => {
    const a = stmt('a, (b, c) = x\n');
    if (a.kind !== 'Assign') throw new Error(a.kind);
    expect(dump(a.targets[0]!)).toBe('(tuple a (tuple b c))');
    const b = stmt('first, *rest = [h, *t] = x\n');
    if (b.kind !== 'Assign') throw new Error(b.kind);
    expect(b.targets.map(dump)).toEqual(['(tuple first (* rest))', '(list h (* t))']);
    const c = stmt('x.y, z[0] = 1, 2\n');
    if (c.kind !== 'Assign') throw new Error(c.kind);
    expect(dump(c.targets[0]!)).toBe('(tuple (. x y) ([] z 0))');
    expect(dump(c.value)).toBe('(tuple 1 2)');
  });

  it('parses every augmented assignment operator', () => {
    const ops = ['+', '-', '*', '/', '//', '%', '**', '@', '&', '|', '^', '<<', '>>'];
    const m = parse(ops.map((o) => `x ${o}= 1\n`).join(''));
    expect(m.body.map((s) => (s.kind === 'AugAssign' ? s.op : s.kind))).toEqual(ops);
  });

  it('parses annotated assignments', () => {
    expect(stmt('x: int\n')).toMatchObject({ kind: 'AnnAssign', target: { id: 'x' }, annotation: { id: 'int' }, value: null });
    expect(stmt('self.w: float = 0.0\n')).toMatchObject({
      kind: 'AnnAssign',
      target: { kind: 'Attribute', attr: 'w' },
      value: { kind: 'Constant', value: 0 },
    });
    expect(stmt('weight: jnp.ndarray\n')).toMatchObject({ kind: 'AnnAssign', annotation: { kind: 'Attribute', attr: 'ndarray' } });
  });

  it('parses pass, break, continue, return, del, assert, raise, global, nonlocal', () => {
    const m = parse(
      'pass\nbreak\ncontinue\nreturn\nreturn 1, 2\ndel x, y[0], z.a\nassert x\nassert x, "m"\n' +
        'raise\nraise E\nraise E("x") from err\nglobal a, b\nnonlocal c\n',
    );
    expect(kinds(m.body)).toEqual([
      'Pass',
      'Break',
      'Continue',
      'Return',
      'Return',
      'Del',
      'Assert',
      'Assert',
      'Raise',
      'Raise',
      'Raise',
      'Global',
      'Nonlocal',
    ]);
    const [, , , r0, r1, del, a0, a1, e0, e1, e2, g, n] = m.body;
    expect(r0).toMatchObject({ value: null });
    expect(r1 && r1.kind === 'Return' && r1.value && dump(r1.value)).toBe('(tuple 1 2)');
    expect(del && del.kind === 'Del' && del.targets.map(dump)).toEqual(['x', '([] y 0)', '(. z a)']);
    expect(a0).toMatchObject({ msg: null });
    expect(a1).toMatchObject({ msg: { value: 'm' } });
    expect(e0).toMatchObject({ exc: null, cause: null });
    expect(e1).toMatchObject({ exc: { id: 'E' }, cause: null });
    expect(e2).toMatchObject({ exc: { kind: 'Call' }, cause: { id: 'err' } });
    expect(g).toMatchObject({ names: ['a', 'b'] });
    expect(n).toMatchObject({ names: ['c'] });
  });

  it('parses several simple statements on one line', () => {
    expect(kinds(parse('x = 1; y = 2;\nz\n').body)).toEqual(['Assign', 'Assign', 'ExprStmt']);
  });
});

describe('imports', () => {
  it('parses import with dotted names and aliases', () => {
    expect(stmt('import jax.numpy as jnp, os\n')).toMatchObject({
      kind: 'Import',
      names: [
        { name: 'jax.numpy', asname: 'jnp' },
        { name: 'os', asname: null },
      ],
    });
  });

  it('parses from-imports, relative levels, parentheses and *', () => {
    expect(stmt('from jax.sharding import Mesh, PartitionSpec as P\n')).toMatchObject({
      kind: 'ImportFrom',
      module: 'jax.sharding',
      level: 0,
      names: [
        { name: 'Mesh', asname: null },
        { name: 'PartitionSpec', asname: 'P' },
      ],
    });
    expect(stmt('from . import (a as b,\n  c,)\n')).toMatchObject({ module: null, level: 1, names: [{ name: 'a' }, { name: 'c' }] });
    expect(stmt('from ...pkg.sub import *\n')).toMatchObject({ module: 'pkg.sub', level: 3, names: [{ name: '*' }] });
    expect(stmt('from .... import x\n')).toMatchObject({ module: null, level: 4 });
  });

  it('rejects malformed imports', () => {
    expect(parseError('from import x\n')).toBe('1:6 invalid syntax');
    expect(parseError('from x import a,\n')).toBe('1:16 trailing comma not allowed without surrounding parentheses');
    expect(parseError('import a.b as\n')).toBe('1:14 invalid syntax');
  });
});

describe('compound statements', () => {
  it('nests elif chains as Ifs in orelse', () => {
    const s = stmt('if a:\n    x\nelif b:\n    y\nelif c:\n    z\nelse:\n    w\n');
    if (s.kind !== 'If') throw new Error(s.kind);
    expect(dump(s.test)).toBe('a');
    const e1 = s.orelse[0]!;
    if (e1.kind !== 'If') throw new Error(e1.kind);
    expect(dump(e1.test)).toBe('b');
    const e2 = e1.orelse[0]!;
    if (e2.kind !== 'If') throw new Error(e2.kind);
    expect(dump(e2.test)).toBe('c');
    expect(kinds(e2.orelse)).toEqual(['ExprStmt']);
  });

  it('parses single-line blocks', () => {
    const s = stmt('if x: a = 1; b = 2\n');
    expect(s).toMatchObject({ kind: 'If', orelse: [] });
    expect(kinds((s as { body: Stmt[] }).body)).toEqual(['Assign', 'Assign']);
  });

  it('parses for/else with tuple targets and while/else', () => {
    const f = stmt('for i, (a, b) in enumerate(zip(x, y)):\n    continue\nelse:\n    pass\n');
    if (f.kind !== 'For') throw new Error(f.kind);
    expect(dump(f.target)).toBe('(tuple i (tuple a b))');
    expect(dump(f.iter)).toBe('(call enumerate (call zip x y))');
    expect(kinds(f.orelse)).toEqual(['Pass']);
    const w = stmt('while (n := n - 1) > 0:\n    break\nelse:\n    done()\n');
    if (w.kind !== 'While') throw new Error(w.kind);
    expect(dump(w.test)).toBe('(cmp (:= n (- n 1)) > 0)');
    expect(kinds(w.orelse)).toEqual(['ExprStmt']);
  });

  it('parses with statements, including parenthesized items', () => {
    const w = stmt('with open(f) as g, lock, h() as (a, b):\n    pass\n');
    if (w.kind !== 'With') throw new Error(w.kind);
    expect(w.items.map((i) => [dump(i.contextExpr), i.optionalVars ? dump(i.optionalVars) : null])).toEqual([
      ['(call open f)', 'g'],
      ['lock', null],
      ['(call h)', '(tuple a b)'],
    ]);
    const p = stmt('with (a as b,\n      c as d,):\n    pass\n');
    if (p.kind !== 'With') throw new Error(p.kind);
    expect(p.items.map((i) => i.optionalVars && dump(i.optionalVars))).toEqual(['b', 'd']);
    const t = stmt('with (a, b) as c:\n    pass\n');
    if (t.kind !== 'With') throw new Error(t.kind);
    expect(dump(t.items[0]!.contextExpr)).toBe('(tuple a b)');
  });

  it('parses try/except/else/finally', () => {
    const t = stmt('try:\n    x\nexcept E as e:\n    y\nexcept (A, B):\n    pass\nexcept:\n    raise\nelse:\n    z\nfinally:\n    w\n');
    if (t.kind !== 'Try') throw new Error(t.kind);
    expect(t.handlers.map((h) => [h.type && dump(h.type), h.name])).toEqual([
      ['E', 'e'],
      ['(tuple A B)', null],
      [null, null],
    ]);
    expect(kinds(t.orelse)).toEqual(['ExprStmt']);
    expect(kinds(t.finalbody)).toEqual(['ExprStmt']);
    expect(stmt('try:\n  pass\nfinally:\n  pass\n')).toMatchObject({ kind: 'Try', handlers: [], orelse: [] });
  });
});

describe('function definitions', () => {
  it('parses parameters of every kind', () => {
    const f = stmt('def f(a, b=1, /, c: int = 2, *args: str, d, e=3, **kw: float) -> None:\n    pass\n') as FunctionDef;
    expect(f.params.map((p) => [p.name, p.star, p.posOnly, p.kwOnly, p.annotation && dump(p.annotation), p.default && dump(p.default)])).toEqual([
      ['a', '', true, false, null, null],
      ['b', '', true, false, null, '1'],
      ['c', '', false, false, 'int', '2'],
      ['args', '*', false, false, 'str', null],
      ['d', '', false, true, null, null],
      ['e', '', false, true, null, '3'],
      ['kw', '**', false, false, 'float', null],
    ]);
    expect(f.returns && dump(f.returns)).toBe('None');
    expect(f.isAsync).toBe(false);
  });

  it('parses a bare * and trailing commas over several lines', () => {
    const f = stmt('def f(\n    a,\n    *,\n    k,\n):\n    pass\n') as FunctionDef;
    expect(f.params.map((p) => `${p.name}:${p.kwOnly}`)).toEqual(['a:false', 'k:true']);
  });

  it('parses decorators, async and nested functions', () => {
    const f = stmt('@jax.jit\n@functools.partial(jax.pmap, axis_name="i")\nasync def f(x):\n    def g(y):\n        return y\n    return await g(x)\n') as FunctionDef;
    expect(f.decorators.map(dump)).toEqual(['(. jax jit)', '(call (. functools partial) (. jax pmap) axis_name="i")']);
    expect(f.isAsync).toBe(true);
    expect(kinds(f.body)).toEqual(['FunctionDef', 'Return']);
  });

  it('sets docstring from a leading string statement and keeps the statement', () => {
    const f = stmt("def f():\n    '''Doc\n    more.'''\n    return 1\n") as FunctionDef;
    expect(f.docstring).toBe('Doc\n    more.');
    expect(kinds(f.body)).toEqual(['ExprStmt', 'Return']);
    expect((stmt('def f():\n    x = "no"\n') as FunctionDef).docstring).toBeNull();
    expect((stmt('def f():\n    f"{x}"\n') as FunctionDef).docstring).toBeNull();
    expect((stmt('def f(): b"x"\n') as FunctionDef).docstring).toBeNull();
    expect((stmt('def f(): "one-liner"\n') as FunctionDef).docstring).toBe('one-liner');
  });

  it('rejects bad parameter lists', () => {
    expect(parseError('def f(a=1, b): pass')).toBe('1:12 parameter without a default follows parameter with a default');
    expect(parseError('def f(a, a): pass')).toBe("1:10 duplicate argument 'a' in function definition");
    expect(parseError('def f(*): pass')).toBe('1:7 named arguments must follow bare *');
    expect(parseError('def f(**k, a): pass')).toBe('1:12 arguments cannot follow var-keyword argument');
    expect(parseError('def f(/, a): pass')).toBe('1:7 at least one argument must precede /');
    expect(parseError('def f(*a, /): pass')).toBe('1:11 / must be ahead of *');
    expect(parseError('def f(*a, *b): pass')).toBe('1:11 * argument may appear only once');
  });
});

describe('class definitions', () => {
  it('parses bases, keywords, annotated fields and methods', () => {
    const c = stmt(
      'class Params(NamedTuple, metaclass=M, **kw):\n  """The params."""\n  weight: jnp.ndarray\n  bias: jnp.ndarray = None\n  def m(self): ...\n',
    ) as ClassDef;
    expect(c.name).toBe('Params');
    expect(c.bases.map(dump)).toEqual(['NamedTuple']);
    expect(c.keywords.map((k) => [k.arg, dump(k.value)])).toEqual([
      ['metaclass', 'M'],
      [null, 'kw'],
    ]);
    expect(c.docstring).toBe('The params.');
    expect(kinds(c.body)).toEqual(['ExprStmt', 'AnnAssign', 'AnnAssign', 'FunctionDef']);
  });

  it('parses classes without parentheses and with decorators', () => {
    expect(stmt('class A: pass\n')).toMatchObject({ kind: 'ClassDef', bases: [], keywords: [], decorators: [] });
    expect(stmt('class A(): pass\n')).toMatchObject({ kind: 'ClassDef', bases: [] });
    const c = stmt('@dataclass\nclass A:\n    x: int\n') as ClassDef;
    expect(c.decorators.map(dump)).toEqual(['dataclass']);
  });
});

describe('target checks', () => {
  it('rejects invalid assignment targets', () => {
    expect(parseError('f() = 1')).toBe('1:1 cannot assign to function call');
    expect(parseError('1 = x')).toBe('1:1 cannot assign to literal');
    expect(parseError('a + b = 1')).toBe('1:1 cannot assign to expression');
    expect(parseError('None = 1')).toBe('1:1 cannot assign to None');
    expect(parseError('x = y = f() = 1')).toBe('1:9 cannot assign to function call');
    expect(parseError('(a, 1) = x')).toBe('1:5 cannot assign to literal');
    expect(parseError('a, *b, *c = x')).toBe('1:8 multiple starred expressions in assignment');
    expect(parseError('*a = x')).toBe('1:1 starred assignment target must be in a list or tuple');
    expect(parseError('x = *a')).toBe('1:5 cannot use starred expression here');
  });

  it('rejects invalid augmented, annotated and del targets', () => {
    expect(parseError('(a, b) += 1')).toBe("1:1 'tuple' is an illegal expression for augmented assignment");
    expect(parseError('a, b: int')).toBe('1:1 only single target (not tuple) can be annotated');
    expect(parseError('f(): int')).toBe('1:1 illegal target for annotation');
    expect(parseError('del f()')).toBe('1:5 cannot delete function call');
    expect(parseError('del *a')).toBe('1:5 cannot delete starred');
    expect(parseError('for f() in x: pass')).toBe('1:5 cannot assign to function call');
    expect(parseError('with a as 1: pass')).toBe('1:11 cannot assign to literal');
  });
});

describe('generators', () => {
  it('parses yield, yield with a tuple, bare yield and yield from', () => {
    const f = parse('def g(xs):\n    yield 1\n    yield a, b\n    x = yield\n    yield from xs\n').body[0] as FunctionDef;
    const vals = f.body.map((s) => (s.kind === 'ExprStmt' ? dump(s.value) : s.kind === 'Assign' ? dump(s.value) : s.kind));
    expect(vals).toEqual(['(yield 1)', '(yield (tuple a b))', '(yield _)', '(yield-from xs)']);
  });
});
