// Classes, exceptions and with statements in lowering (src/lower/classes.ts):
// what runs at compile time folds to Python's output, a compile error of the
// program is catchable as the Python exception it names, and jaxts's own
// limits are not; objects that host loops carry become loop variables.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { cpuBackend, runOn } from '../helpers/fixtures.js';

const c = (src: string) => compile(src, { file: 't.py' });
const run = async (src: string): Promise<string> => runOn(c(src), cpuBackend());

function compileError(src: string): CompileError {
  try {
    c(src);
  } catch (e) {
    if (e instanceof CompileError) return e;
    throw e;
  }
  throw new Error(`no error compiling ${src}`);
}

describe('classes', () => {
  it('runs methods, inheritance with super(), class attributes and descriptors', async () => {
    const src = [
      'class A:',
      '    n = 0',
      '    def __init__(self, x):',
      '        self.x = x',
      '        A.n += 1',
      '    def get(self):',
      '        return self.x',
      '    @property',
      '    def twice(self):',
      '        return self.x * 2',
      '    @classmethod',
      '    def make(cls):',
      '        return cls(7)',
      'class B(A):',
      '    def get(self):',
      '        return super().get() + 100',
      'b = B.make()',
      'print(b.get(), b.twice, A.n, type(b).__name__, isinstance(b, A))',
    ].join('\n');
    expect(await run(src)).toBe('107 14 1 B True\n');
  });

  it('prints dataclasses as Python does and refuses to change a frozen one', async () => {
    const src = [
      'from dataclasses import dataclass',
      '@dataclass(frozen=True)',
      'class P:',
      '    x: int',
      '    y: float = 0.5',
      'p = P(1)',
      'print(p, p == P(1, 0.5))',
      'try:',
      '    p.x = 2',
      'except AttributeError as e:',
      '    print(type(e).__name__, e)',
    ].join('\n');
    expect(await run(src)).toBe("P(x=1, y=0.5) True\nFrozenInstanceError cannot assign to field 'x'\n");
  });

  it('names a method a class lacks as Python does', () => {
    expect(compileError('class A:\n    pass\nA().f()\n').message).toBe("AttributeError: 'A' object has no attribute 'f'");
    expect(compileError('class A:\n    pass\nA(1)\n').message).toBe('TypeError: A() takes no arguments');
  });

  it('lowers a loop that sets an attribute of an object holding an array as a TS loop', () => {
    const src = [
      'import jax.numpy as jnp',
      'class M:',
      '    def __init__(self):',
      '        self.w = jnp.zeros(3)',
      'm = M()',
      'for i in range(100):',
      '    m.w = m.w + 1.0',
      'print(m.w)',
    ].join('\n');
    const r = c(src);
    expect(r.hostProgram.body.some((s) => s.k === 'for')).toBe(true);
  });

  it('unrolls a loop whose body changes an object through a method', async () => {
    const src = ['class C:', '    def __init__(self):', '        self.n = 0', '    def inc(self):', '        self.n += 1', 'c = C()', 'for _ in range(3):', '    c.inc()', 'print(c.n)'].join('\n');
    expect(await run(src)).toBe('3\n');
  });
});

describe('exceptions', () => {
  it('catches a raised exception by a base class, runs else and finally', async () => {
    const src = [
      'def f(x):',
      '    try:',
      '        if x:',
      '            raise KeyError("k")',
      '    except LookupError as e:',
      '        print("caught", repr(e))',
      '    else:',
      '        print("else")',
      '    finally:',
      '        print("finally")',
      'f(True)',
      'f(False)',
    ].join('\n');
    expect(await run(src)).toBe("caught KeyError('k')\nfinally\nelse\nfinally\n");
  });

  it("catches JAX's error for a traced branch as TracerBoolConversionError and TypeError", async () => {
    const src = [
      'import jax',
      'import jax.numpy as jnp',
      '@jax.jit',
      'def f(x):',
      '    return x if x > 0 else -x',
      'try:',
      '    f(jnp.ones(()))',
      'except TypeError as e:',
      '    print(type(e).__name__, isinstance(e, jax.errors.ConcretizationTypeError))',
      '    print(str(e).splitlines()[0])',
    ].join('\n');
    expect(await run(src)).toBe('TracerBoolConversionError True\nAttempted boolean conversion of traced array with shape bool[].\n');
  });

  it('does not catch what jaxts does not support', () => {
    const e = compileError('import jax\ntry:\n    jax.live_arrays()\nexcept Exception:\n    pass\n');
    expect(e.message).toMatch(/not supported by jaxts/);
  });

  it('stops compiling at an uncaught raise, with the exception', () => {
    const e = compileError('class Oops(Exception):\n    pass\nraise Oops("bad", 2)\n');
    expect(e.message).toBe("Oops: ('bad', 2)");
    expect(e.span?.start.line).toBe(3);
    expect(compileError('assert 1 == 2, "no"\n').message).toBe('AssertionError: no');
  });
});

describe('with statements', () => {
  it('calls __enter__ and __exit__ and lets __exit__ suppress an exception', async () => {
    const src = [
      'class M:',
      '    def __enter__(self):',
      '        print("enter")',
      '        return 5',
      '    def __exit__(self, t, v, tb):',
      '        print("exit", t.__name__ if t else None)',
      '        return True',
      'with M() as x:',
      '    print(x)',
      '    raise ValueError("x")',
      'print("after")',
    ].join('\n');
    expect(await run(src)).toBe('enter\n5\nexit ValueError\nafter\n');
  });

  it('rejects open() and values that are not context managers', () => {
    expect(compileError('with open("f.txt") as f:\n    pass\n').message).toMatch(/^open\(\) is not supported/);
    expect(compileError('with 3:\n    pass\n').message).toBe("TypeError: 'int' object does not support the context manager protocol");
  });
});

describe('pytree classes', () => {
  it('flattens a registered class under grad and rebuilds it', async () => {
    const src = [
      'import jax',
      'import jax.numpy as jnp',
      'class P:',
      '    def __init__(self, w, tag):',
      '        self.w = w',
      '        self.tag = tag',
      'jax.tree_util.register_pytree_node(P, lambda p: ((p.w,), p.tag), lambda tag, ch: P(ch[0], tag))',
      'g = jax.grad(lambda p: jnp.sum(p.w ** 2))(P(jnp.arange(3.0), "t"))',
      'print(type(g).__name__, g.tag, g.w)',
    ].join('\n');
    expect(await run(src)).toBe('P t [0. 2. 4.]\n');
  });

  it("refuses an unregistered instance as a jit argument (JAX's TypeError)", () => {
    expect(compileError('import jax\nclass C:\n    pass\njax.jit(lambda c: 1.0)(C())\n').message).toMatch(/^TypeError: Error interpreting argument to <function <lambda>> as an abstract array. The problematic value is of type <class '__main__.C'>/);
  });
});
