// The host liveness pass (src/passes/host_release.ts): programs with loops
// that break and continue, conditional rebinding, nested loops, while loops
// on read-back values, lax.scan/while_loop and pytrees print the same with
// and without it, use no array after its release, and leave live only the
// arrays main() hands to its caller.
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/codegen/module.js';
import type { CompileResult } from '../../src/compile.js';
import { lower } from '../../src/lower/index.js';
import { parse } from '../../src/parser/index.js';
import { releaseDeadArrays } from '../../src/passes/host_release.js';
import { compilePrograms } from '../../src/passes/pipeline.js';
import { loadCompiled } from '../../src/run.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import type { JArray } from '../../runtime/index.js';
import { Runtime } from '../../runtime/runtime.js';
import { RUNTIME_ENTRY } from '../helpers/fixtures.js';

const FLOW = `
import jax
import jax.numpy as jnp

@jax.jit
def step(x, y):
    return x * 0.5 + y, x.sum()

x = jnp.ones(8)
y = jnp.arange(8.0)
best = x
for i in range(20):
    x, s = step(x, y)
    if i % 3 == 0:
        continue
    if float(s) > 60.0:
        best = x
    if i == 15:
        break
print(x, best)
n = 0
z = y
while float(z.sum()) < 1000.0:
    z = z * 2.0
    n += 1
print(n, z)
for i in range(3):
    for j in range(2):
        y = y + x
print(y)
w = y if n > 3 else x
print(w)
`;

const CONTROL = `
import jax
import jax.numpy as jnp
from jax import lax

def body(c, x):
    return c * 0.9 + x, c.sum()

xs = jnp.ones((1000, 16))
c, ys = lax.scan(body, jnp.zeros(16), xs)
print(c[:3], ys[-3:])

def cond(s):
    return s[0] < 100
def wb(s):
    return (s[0] + 1, s[1] * 1.01)
i, v = lax.while_loop(cond, wb, (0, jnp.ones(4)))
print(i, v)
params = {"w": jnp.ones(3), "b": jnp.zeros(3)}
for k in range(4):
    params = jax.tree_util.tree_map(lambda p: p - 0.1, params)
    if k == 2:
        old = params
print(params, old)
`;

function build(src: string, release: boolean): CompileResult {
  let hp = lower(parse(src), { file: 'm.py' });
  if (release) hp = releaseDeadArrays(hp);
  return { ...generate(hp, compilePrograms(hp), 'm', {}), hostProgram: hp, baseName: 'm' };
}

async function run(r: CompileResult): Promise<{ text: string; rt: Runtime; values: unknown }> {
  const mod = (await loadCompiled(r, RUNTIME_ENTRY)) as unknown as { main: (rt: Runtime) => Promise<unknown> };
  let text = '';
  const rt = new Runtime(new CpuBackend(), { devices: 4, write: (t) => (text += t) });
  const values = await mod.main(rt);
  return { text, rt, values };
}

/** The distinct arrays in main()'s values. */
function arraysIn(v: unknown, out = new Set<JArray>()): Set<JArray> {
  if (v && typeof v === 'object') {
    if ('shards' in v) out.add(v as JArray);
    else Object.values(v).forEach((x) => arraysIn(x, out));
  }
  return out;
}

describe('host release pass', () => {
  for (const [name, src] of [['loops, branches, break/continue', FLOW], ['scan, while_loop, pytrees', CONTROL]] as const) {
    it(`${name}: prints the same, and frees every array main() does not return`, async () => {
      const before = await run(build(src, false));
      const after = await run(build(src, true));
      expect(after.text).toBe(before.text);
      const returned = [...arraysIn(after.values)].reduce((n, a) => n + a.size * 4, 0);
      expect(after.rt.memory().liveBytes).toBe(returned);
    });
  }

  it("gives main()'s caller a reference per name when one array has two (a list element and a variable)", async () => {
    const src = 'import jax\nimport jax.numpy as jnp\nstep = jax.jit(lambda x: (x * 0.5, (x * x).sum()))\nx = jnp.ones(4)\nlosses = []\nfor i in range(3):\n    x, loss = step(x)\n    losses.append(loss)\nprint(losses[-1])\n';
    const r = build(src, true);
    expect(r.host).toMatch(/loss: \w+\.retain\(\)/);
    const { values, rt } = await run(r);
    const v = values as { losses: JArray[]; loss: JArray; x: JArray };
    v.losses.forEach((l) => l.release());
    expect([...(await v.loss.data())]).toEqual([0.25]); // x = 0.25 before the last step
    v.loss.release();
    v.x.release();
    expect(rt.memory().liveBytes).toBe(0);
  });

  it('releases a loop-carried array right after the call that reads it last', () => {
    const r = build('import jax\nimport jax.numpy as jnp\nx = jnp.zeros(4)\nfor i in range(3):\n    x = jax.jit(lambda v: v + 1)(x)\nprint(x)\n', true);
    expect(r.host).toMatch(/const \[(\w+)\] = await rt\.call\(programs\.\w+, \[(\w+)\]\);\n\s+jx\.release\(\2\);\n\s+\2 = \1;/);
  });
});
