// Exported functions: which top-level functions a module exports, the types
// they are compiled for, and running them from JS (arguments checked,
// Python constants fixed, globals of the script read once main() has run).
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile.js';
import { loadCompiled } from '../../src/run.js';
import { array, type JArray } from '../../runtime/index.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import { Runtime } from '../../runtime/runtime.js';
import { RUNTIME_ENTRY } from '../helpers/fixtures.js';

const lower = (src: string): CompileResult => compile(src, { file: 'm.py' });

// each program exports different functions: the loaded module is indexed by name
type Module = Record<string, (...args: unknown[]) => Promise<unknown>> & { main: (rt: Runtime) => Promise<void> };

async function load(r: CompileResult): Promise<{ mod: Module; printed: () => string; rt: Runtime }> {
  let text = '';
  const rt = new Runtime(new CpuBackend(), { devices: 4, write: (t) => (text += t) });
  const mod = (await loadCompiled(r, RUNTIME_ENTRY)) as unknown as Module;
  return { mod, printed: () => text, rt };
}

const values = async (x: unknown): Promise<number[]> => [...(await (x as JArray).data())];

const MODEL = `
import jax
import jax.numpy as jnp

@jax.jit
def predict(params, x):
    return x @ params["w"] + params["b"]

def scale(x, factor):
    return x * factor

def unused(x):
    return x

def main():
    return predict({"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}, jnp.ones((4, 3)))

print(main())
print(scale(jnp.arange(3.0), 2.0))
`;

describe('exported functions', () => {
  it('exports each top-level function the script calls, typed by its first call', () => {
    const hp = lower(MODEL).hostProgram;
    expect(hp.exports.map((x) => x.name)).toEqual(['predict', 'scale', 'main_']);
    const predict = hp.exports[0]!;
    expect(predict.params).toEqual([
      { name: 'params', type: { k: 'object', fields: [['w', { k: 'array', shape: [3, 2], dtype: 'float32' }], ['b', { k: 'array', shape: [2], dtype: 'float32' }]] } },
      { name: 'x', type: { k: 'array', shape: [4, 3], dtype: 'float32' } },
    ]);
    expect(predict.returns).toEqual({ k: 'array', shape: [4, 2], dtype: 'float32' });
    expect(hp.exports[1]!.params[1]).toEqual({ name: 'factor', type: { k: 'literal', value: 2 } });
    expect(hp.unexported).toEqual([{ name: 'unused', reason: 'the script never calls it, so its argument types are unknown' }]);
  });

  it('renders exports as async functions with TS types, a .d.py.ts, and a note on what is not exported', () => {
    const r = lower(MODEL);
    expect(r.host).toContain('export async function predict(params: { w: jx.Array; b: jx.Array }, x: jx.Array): Promise<jx.Array> {');
    expect(r.host).toContain('export async function main_(): Promise<jx.Array> {');
    expect(r.host).toContain('//   unused: the script never calls it');
    expect(r.dts).toContain('export declare function scale(x: jx.Array, factor: 2): Promise<jx.Array>;');
    // one program for predict, though main() and the export both call it
    expect(r.programs.filter((p) => p.name.startsWith('predict'))).toHaveLength(1);
  });

  it('runs from JS: arrays in and out, shapes checked, constants fixed', async () => {
    const { mod, rt } = await load(lower(MODEL));
    await mod.main(rt);
    const w = array([[1, 2], [3, 4], [5, 6]], undefined, 'float32');
    const out = await mod.predict!({ w, b: array([0.5, -0.5]) }, array(Float32Array.from({ length: 12 }, (_, i) => i), [4, 3]));
    expect(await values(out)).toEqual([13.5, 15.5, 40.5, 51.5, 67.5, 87.5, 94.5, 123.5]);
    expect((out as JArray).toString()).toBe('[[ 13.5  15.5]\n [ 40.5  51.5]\n [ 67.5  87.5]\n [ 94.5 123.5]]');
    await expect(mod.predict!({ w, b: array([0.5, -0.5]) }, array(new Float32Array(3)))).rejects.toThrow(
      'predict(): x must be a float32 array of shape (4, 3), as the script calls it, got a float32 array of shape (3,)',
    );
    expect(await values(await mod.scale!(array([1.5, 2.5, 3.5]), 2))).toEqual([3, 5, 7]);
    await expect(mod.scale!(array([1.5, 2.5, 3.5]), 3)).rejects.toThrow('scale(): factor was 2 when the program was compiled and is fixed at that value, got 3');
  });

  it('returns pytrees as objects and arrays (tuples, dicts, NamedTuples)', async () => {
    const r = lower(`
import jax.numpy as jnp
from typing import NamedTuple

class State(NamedTuple):
    w: jnp.ndarray
    step: int

def update(state, g):
    return State(state.w - g, state.step + 1), {"norm": jnp.sum(g * g)}

s, info = update(State(jnp.ones(2), 0), jnp.array([0.5, 0.25]))
print(s.w, s.step, info["norm"])
`);
    expect(r.hostProgram.exports[0]!.returns).toEqual({
      k: 'tuple',
      items: [
        { k: 'object', fields: [['w', { k: 'array', shape: [2], dtype: 'float32' }], ['step', { k: 'literal', value: 1 }]] },
        { k: 'object', fields: [['norm', { k: 'array', shape: [], dtype: 'float32' }]] },
      ],
    });
    const { mod, rt } = await load(r);
    await mod.main(rt);
    const [state, info] = (await mod.update!({ w: array([2, 4], undefined, 'float32'), step: 0 }, array([1, 1], undefined, 'float32'))) as [{ w: JArray; step: number }, { norm: JArray }];
    expect(await values(state.w)).toEqual([1, 3]);
    expect(state.step).toBe(1);
    expect(await values(info.norm)).toEqual([2]);
  });

  it('reads arrays the script computed once main() has run', async () => {
    const r = lower(`
import jax.numpy as jnp
W = jnp.arange(6.0).reshape(3, 2)

def predict(x):
    return x @ W

print(predict(jnp.ones((1, 3))))
`);
    expect(r.hostProgram.scriptState).toHaveLength(1);
    const { mod, rt, printed } = await load(r);
    await expect(mod.predict!(array([[1, 0, 0]], undefined, 'float32'))).rejects.toThrow(/predict\(\) reads \w+, which the script computes: await main\(\) before calling it/);
    await mod.main(rt);
    expect(printed()).toBe('[[6. 9.]]\n');
    expect(await values(await mod.predict!(array([[1, 0, 0]], undefined, 'float32')))).toEqual([0, 1]);
  });

  it('does not export a function that only compiles under pmap, and says why', () => {
    const hp = lower(`
import jax
import jax.numpy as jnp
from jax import lax

def step(x):
    return lax.psum(x, "i")

print(jax.pmap(step, axis_name="i")(jnp.arange(4.0)))
`).hostProgram;
    expect(hp.exports.map((x) => x.name)).toEqual([]);
    expect(hp.unexported[0]!.name).toBe('step');
    expect(hp.unexported[0]!.reason).toMatch(/^it does not compile on its own: NameError: Found an unbound axis name: i\./);
  });
});
