// Helpers for the compile-time Python modules (jax, jax.random, jax.lax, ...):
// reading a call's positional-or-keyword arguments and building a module of
// builtin functions.
import { CompileError } from '../common/diagnostics.js';
import { PyBuiltin, PyModule, type CallArgs, type PyValue } from './values.js';

/** Argument `name` at position `i` (or by keyword), else `def`; a missing required one is JAX's TypeError. */
export function arg(c: CallArgs, i: number, name: string, def?: PyValue): PyValue {
  if (i < c.args.length) return c.args[i]!;
  if (c.kwargs.has(name)) return c.kwargs.get(name)!;
  if (def !== undefined) return def;
  throw new CompileError(`TypeError: missing required argument '${name}'`, c.span);
}

/** A module whose function entries become builtins; other entries (submodules, constants) stay as they are. */
export function builtinModule(name: string, entries: Record<string, ((c: CallArgs) => PyValue) | PyValue>): PyModule {
  return new PyModule(
    name,
    new Map(Object.entries(entries).map(([k, f]) => [k, typeof f === 'function' ? new PyBuiltin(k, f as (c: CallArgs) => PyValue) : f])),
  );
}
