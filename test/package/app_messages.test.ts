// What an application sees of a compiled module's errors: Python names, never
// the generated code's internal ones (`params_1`), e.g. calling an exported
// function that reads a value of the script before main() has run.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { loadCompiled } from '../../src/run.js';
import { RUNTIME_ENTRY } from '../helpers/fixtures.js';
import { array } from '../../runtime/index.js';

const SOURCE = `import jax.numpy as jnp

params = jnp.ones((3, 2))
for i in range(3):
    params = params * 0.5

def predict(x):
    return x @ params

print(predict(jnp.ones((1, 3))))
`;

describe('messages an application sees', () => {
  it('an export reading a value of the script before main() names the Python variable and function', async () => {
    const r = compile(SOURCE, { file: 'model.py' });
    expect(r.host).toMatch(/jx\.fromMain\(script\.params_\d+, "params", "predict"\)/);
    const mod = (await loadCompiled(r, RUNTIME_ENTRY)) as unknown as { predict: (x: unknown) => Promise<unknown> };
    await expect(mod.predict(array([[1, 1, 1]]))).rejects.toThrow("predict() reads params, which the script computes: await main() before calling it");
  });
});
