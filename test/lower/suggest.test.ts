// Misspelled and unsupported JAX names: Python's "Did you mean" suggestion
// (expected strings are CPython 3.11's, from the oracle venv), and the
// "not supported by jaxts" message for names real JAX has.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { JAX_NAMES } from '../../src/lower/jax_names.js';
import { suggestName } from '../../src/lower/suggest.js';

const errorOf = (src: string): string => {
  try {
    compile(src, { file: 'm.py' });
  } catch (e) {
    if (e instanceof CompileError) return e.message;
    throw e;
  }
  return '';
};

describe('suggestions', () => {
  it("suggests as CPython does for jax.numpy's names", () => {
    const names = JAX_NAMES['jax.numpy']!;
    const cases: [string, string | null][] = [
      ['meen', 'mean'], ['zeross', 'zeros'], ['xyz', null], ['Sum', 'sum'], ['cumsun', 'cumsum'], ['linespace', 'linspace'], ['arang', 'arange'], ['tanhh', 'tanh'],
    ];
    for (const [name, want] of cases) expect(suggestName(name, names), name).toBe(want);
  });

  it('words a misspelling as Python and an unsupported JAX function as jaxts', () => {
    expect(errorOf('import jax.numpy as jnp\nprint(jnp.meen(jnp.ones(3)))\n')).toBe("AttributeError: module 'jax.numpy' has no attribute 'meen'. Did you mean: 'mean'?");
    expect(errorOf('import jax.numpy as jnp\nprint(jnp.xyz)\n')).toBe("AttributeError: module 'jax.numpy' has no attribute 'xyz'");
    expect(errorOf('import jax.numpy as jnp\nprint(jnp.einsum_path("ij,jk", jnp.ones((2, 2)), jnp.ones((2, 2))))\n')).toBe('NotImplementedError: jax.numpy.einsum_path is not supported by jaxts');
    expect(errorOf('import jax.numpy as jnp\nprint(jnp.unique(jnp.ones(3)))\n')).toMatch(/^NotImplementedError: jaxts: jnp.unique without size= has a shape that depends on the values; pass size=/);
    expect(errorOf('import jax.numpy as jnp\nprint(jnp.linalg.eig(jnp.eye(3)))\n')).toBe('NotImplementedError: jax.numpy.linalg.eig is not supported by jaxts (the nearest supported: jax.numpy.linalg.eigh)');
    expect(errorOf('import jax.numpy as jnp\nx = jnp.zeros(3).tobytes()\n')).toBe("NotImplementedError: the jax.Array attribute 'tobytes' (x.tobytes) is not supported by jaxts");
    expect(errorOf('import jax.numpy as jnp\nx = jnp.zeros(3).foo\n')).toBe("AttributeError: 'ArrayImpl' object has no attribute 'foo'");
    expect(errorOf('import jax\nprint(jax.lax.rng_bit_generator)\n')).toBe('NotImplementedError: jax.lax.rng_bit_generator is not supported by jaxts');
  });
});
