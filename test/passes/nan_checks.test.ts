// jax_debug_nans: programs made after the option return their float
// intermediates for the runtime's NaN check, each with its primitive and line.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';

describe('jax_debug_nans', () => {
  it('checks the float intermediates of programs made after the option, naming primitive and line', () => {
    const r = compile(
      ['import jax', 'import jax.numpy as jnp', 'a = jnp.sqrt(jnp.ones(2))', 'jax.config.update("jax_debug_nans", True)', 'b = jnp.log(a - 3.0)', 'print(a, b)', ''].join('\n'),
      { file: 'm.py' },
    );
    const [before, after] = r.programs;
    expect(before!.nanChecks).toBeUndefined();
    expect(after!.nanChecks).toMatchObject([
      { prim: 'sub', line: 5 },
      { prim: 'log', line: 5 },
    ]);
    expect(after!.func.results).toHaveLength(3);
    expect(r.kernels).toMatch(/nanChecks: \[\{"prim":"sub","line":5,.*\{"prim":"log","line":5,/);
  });

  it('can be turned off again', () => {
    const r = compile(['import jax', 'import jax.numpy as jnp', 'jax.config.update("jax_debug_nans", True)', 'jax.config.update("jax_debug_nans", False)', 'print(jnp.log(jnp.ones(2)))', ''].join('\n'), { file: 'm.py' });
    expect(r.hostProgram.programs.every((p) => !p.debugNans)).toBe(true);
    expect(r.programs.every((p) => !p.nanChecks)).toBe(true);
  });
});
