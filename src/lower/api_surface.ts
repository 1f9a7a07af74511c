// The API surface jaxts implements, read from its own module tables: for each
// JAX module a program can import, the names it defines (scripts/api_coverage.py
// compares them with the pinned JAX's public names to write docs/API.md). A
// name whose only behaviour is a NotImplementedError is not counted.
import { newInterp } from './index.js';

/** The modules docs/API.md covers, in its order. */
export const API_MODULES = [
  'jax',
  'jax.numpy',
  'jax.numpy.linalg',
  'jax.numpy.fft',
  'jax.lax',
  'jax.nn',
  'jax.nn.initializers',
  'jax.random',
  'jax.scipy.special',
  'jax.scipy.stats',
  'jax.scipy.linalg',
  'jax.tree_util',
  'jax.tree',
  'jax.example_libraries.optimizers',
  'jax.example_libraries.stax',
] as const;

const NOT_IMPLEMENTED: Record<string, readonly string[]> = {};

/** For each module of API_MODULES, the sorted names jaxts defines in it. */
export function apiSurface(): Record<string, string[]> {
  const ip = newInterp({ file: '<api>' });
  const span = { start: { line: 1, col: 1, offset: 0 }, end: { line: 1, col: 1, offset: 0 } };
  const out: Record<string, string[]> = {};
  for (const name of API_MODULES) {
    const mod = ip.library.importModule(name, span);
    const skip = new Set(NOT_IMPLEMENTED[name] ?? []);
    out[name] = [...mod.attrs.keys()].filter((k) => !k.startsWith('_') && !skip.has(k)).sort();
  }
  return out;
}
