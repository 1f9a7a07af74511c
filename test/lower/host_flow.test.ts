// Host control flow on values known only when the program runs (src/lower/stmt.ts, expr.ts): if, while,
// assert, bool() and and/or on device readbacks at host level become TS branches and loops; names the
// branches bind merge; jit's trace cache keeps the globals a trace read (src/lower/transforms.ts).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { cpuBackend, runOn } from '../helpers/fixtures.js';

const c = (src: string) => compile(src, { file: 't.py' });
const run = async (src: string): Promise<string> => runOn(c(src), cpuBackend());
const lines = (...xs: string[]): string => ['import jax', 'import jax.numpy as jnp', ...xs].join('\n') + '\n';

function compileError(src: string): CompileError {
  try {
    c(src);
  } catch (e) {
    if (e instanceof CompileError) return e;
    throw e;
  }
  throw new Error(`no error compiling ${src}`);
}

describe('host control flow on run-time values', () => {
  it('stages a while loop whose test reads a device value back, starting from a Python int', async () => {
    const src = lines('@jax.jit', 'def step(i):', '  return i + 1', 'i = 0', 'while i < 5:', '  i = step(i)', 'print(i)');
    expect(await run(src)).toBe('5\n');
    // one TS loop, not five unrolled calls
    expect(c(src).host).toMatch(/while \(true\)/);
  });

  it('keeps a host loop a loop when an if on its index binds a name nothing reads after it', async () => {
    const src = lines('@jax.jit', 'def step(x):', '  return x * 0.5 + 1.0', 'x = jnp.zeros(2)', 'for i in range(400):', '  x = step(x)', '  if i % 100 == 0:', '    m = x.sum()', "    print(i, m)", 'print(x)');
    expect(await run(src)).toBe('0 2.0\n100 4.0\n200 4.0\n300 4.0\n[2. 2.]\n');
    // one TS loop, not 400 unrolled steps
    expect(c(src).host).toMatch(/for \(let i/);
    expect(c(src).host.split('\n').length).toBeLessThan(60);
  });

  it('keeps a long loop that appends to a list a loop where its NumPy draws happen at run time already', async () => {
    // the first loop moves np.random's state to the program; the second draws from it there (real JAX prints the same)
    const src = lines('import numpy as np', 'np.random.seed(0)', 's = 0.0', 'for i in range(150):', '  s = s + np.random.uniform()', 'hist = []', 'for i in range(150):', '  hist.append(np.random.uniform())', 'print(len(hist), s, hist[-1])');
    expect(await run(src)).toBe('150 76.54214585735667 0.9608346580630002\n');
    // two TS loops, not 150 unrolled draws
    expect(c(src).host).toMatch(/for \(let i_1 = 0; i_1 < 150/);
    expect(c(src).host.split('\n').length).toBeLessThan(60);
  });

  it('runs the loop unrolled where a name bound on one path of such an if is read after it', async () => {
    const src = lines('x = jnp.zeros(2)', 'for i in range(3):', '  x = x + 1', '  if i == 0:', '    m = x.sum()', '  print(m)');
    expect(await run(src)).toBe('2.0\n2.0\n2.0\n');
  });

  it('merges the names both branches of an if bind', async () => {
    const src = lines('v = jnp.arange(3.0)', 'if v.sum() > 1:', '  w = v + 1', '  k = 3', 'else:', '  w = v - 1', '  k = 4', 'print(w, k)');
    expect(await run(src)).toBe('[1. 2. 3.] 3\n');
  });

  it('names the variable whose branches disagree in type', () => {
    const e = compileError(lines('v = jnp.arange(3.0)', 'if v.sum() > 1:', '  w = v', 'else:', '  w = 1', 'print(w)'));
    expect(e.message).toMatch(/'w' is assigned values of different types in the branches/);
  });

  it('breaks out of a loop under a run-time condition', async () => {
    const src = lines('x = jnp.float32(1.0)', 'n = 0', 'while True:', '  x = x * 2', '  n += 1', '  if x > 20:', '    break', 'print(n, x)');
    expect(await run(src)).toBe('5 32.0\n');
  });

  it('checks an assert on a device value when the program runs', async () => {
    const ok = lines('a = jnp.ones(3)', "assert jnp.allclose(a, a), 'same'", "print('ok')");
    expect(await run(ok)).toBe('ok\n');
    const bad = lines('a = jnp.ones(3)', "assert jnp.allclose(a, a + 1), 'they differ'", "print('not reached')");
    await expect(run(bad)).rejects.toThrow(/^AssertionError: they differ$/);
  });

  it('keeps TracerBoolConversionError inside jit', () => {
    const e = compileError(lines('@jax.jit', 'def f(x):', '  if x > 0:', '    return x', '  return -x', 'f(1.0)'));
    expect(e.message).toMatch(/^TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool\[\]/);
  });

  it('a Python int that becomes a float in a host loop prints as a float', async () => {
    expect(await run(lines('count = 0', 'for _ in range(3):', '  count += 0.5', 'print(count)'))).toBe('1.5\n');
  });
});

describe("jit's trace cache", () => {
  it('runs the cached trace, with the globals it read, until the types change', async () => {
    const src = lines('s = 2.0', '@jax.jit', 'def f(x):', '  return x * s', 'print(f(1.0))', 's = 10.0', 'print(f(3.0))', 'print(f(jnp.ones(2)))');
    expect(await run(src)).toBe('2.0\n6.0\n[10. 10.]\n');
    // two traces: f32[] (the second call runs the first call's program) and f32[2]
    const main = /async function main[^]*?\n}\n/.exec(c(src).host)![0];
    expect([...main.matchAll(/rt\.call\((programs\.f\w*)/g)].map((m) => m[1])).toEqual(['programs.f', 'programs.f', 'programs.f_1']);
  });
});

describe('exact host semantics', () => {
  it("floors floats as CPython does (1.0 // 0.1 is 9.0), at compile time and at run time", async () => {
    expect(await run(lines('print(1.0 // 0.1, -1.0 // 0.1, 7.5 // -2)', 'y = jnp.float32(2.0)', 'print(float(y) // 0.1)'))).toBe('9.0 -10.0 -4.0\n19.0\n');
  });

  it('rebinds a function, or a tuple to a list, in a loop (the loop runs unrolled)', async () => {
    const src = lines('f = jnp.sin', 'for _ in range(3):', '  f = jax.grad(f)', 'print(f(1.0))', 't = (1, 2)', 'for i in range(2):', '  t = [i, i]', 'print(t)', 'd = {"a": 1}', 'for i in range(2):', '  d = {"b": i}', 'print(d)');
    expect(await run(src)).toBe('-0.5403023\n[1, 1]\n{\'b\': 1}\n');
  });

  it('keeps an int beyond 2**53 exact in a loop', async () => {
    expect(await run(lines('big = 3**80', 'for i in range(2):', '  big = big * 3', 'print(big)'))).toBe('1330279464729113309844748891857449678409\n');
  });

  it('updates a NumPy array and a list in place, seen through another name', async () => {
    expect(await run(lines('import numpy as np', 'a = np.zeros(2)', 'b = a', 'a += 10', 'print(b)', 'l = [1]', 'm = l', 'l += [2]', 'print(m)'))).toBe('[10. 10.]\n[1, 2]\n');
    expect(compileError(lines('import numpy as np', 'a = np.arange(3)', 'a /= 2')).message).toMatch(/^UFuncTypeError: Cannot cast ufunc 'divide' output from dtype\('float64'\) to dtype\('int64'\)/);
  });

  it('lowers a sum of 2,000 terms without overflowing the stack', async () => {
    expect(await run(lines(`x = ${Array(2000).fill('1').join(' + ')}`, 'a = jnp.ones(2)', `print(x, ${Array(2000).fill('a').join(' + ')})`))).toBe('2000 [2000. 2000.]\n');
  });
});


describe('lazy generators', () => {
  it('runs a generator function as its items are pulled, so an endless one works with next()', async () => {
    const src = lines('def stream():', '  i = 0', '  while True:', "    print('make', i)", '    yield i', '    i += 1', 's = stream()', "print('start')", 'print(next(s))', 'print(next(s))');
    expect(await run(src)).toBe('start\nmake 0\n0\nmake 1\n1\n');
  });

  it('pulls generator expressions and itertools iterators lazily, zip stopping with the shortest', async () => {
    const src = lines('import itertools', 'g = (x * 2 for x in itertools.count())', 'print(next(g), next(g))', 'print(list(zip("ab", itertools.count(1))))', 'print(list(itertools.islice(itertools.cycle([1, 2]), 3)))');
    expect(await run(src)).toBe("0 2\n[('a', 1), ('b', 2)]\n[1, 2, 1]\n");
  });

  it('says where a yield stands that it does not support', () => {
    const e = compileError(lines('def g():', '  print((yield 1))', 'list(g())'));
    expect(e.message).toMatch(/'yield' inside this expression of a generator is not supported/);
  });
});
