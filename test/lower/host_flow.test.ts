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
