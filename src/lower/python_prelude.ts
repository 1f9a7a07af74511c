// A library module written in the supported Python subset (jax.numpy's composites in
// jnp_prelude.ts, jax.random's samplers in random_prelude.ts): parsed and run once per
// compilation; a call of one of its functions reports its errors at the user's call site.
import { CompileError } from '../common/diagnostics.js';
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { execBlock } from './stmt.js';
import { markSpans, preludeSpans } from './lib_example_libraries.js';
import { NeedsStatic, Scope, type CallArgs, type PyValue } from './values.js';

export interface PythonPrelude {
  /** Its public functions: the names of its top-level `def`s without a leading underscore. */
  readonly functions: string[];
  /** Calls function `name` (loading the module on first use in this compilation). */
  call(ip: Interp, name: string, c: CallArgs): PyValue;
}

/** The prelude of Python `source`, standing for module `module` (named in its AttributeError). */
export function pythonPrelude(source: string, module: string): PythonPrelude {
  const loaded = new WeakMap<Interp, Scope>();
  const scopeOf = (ip: Interp): Scope => {
    let scope = loaded.get(ip);
    if (scope) return scope;
    scope = new Scope(ip.builtins);
    loaded.set(ip, scope);
    const mod = parse(source);
    markSpans(mod);
    execBlock(ip, mod.body, scope);
    return scope;
  };
  return {
    functions: [...source.matchAll(/^def ([a-z][a-z0-9_]*)\(/gm)].map((m) => m[1]!),
    call(ip, name, c) {
      const fn = scopeOf(ip).vars.get(name);
      if (fn === undefined) throw new CompileError(`AttributeError: module '${module}' has no attribute '${name}'`, c.span);
      try {
        return ip.call(fn, c);
      } catch (e) {
        if (e instanceof CompileError && (e.span === null || preludeSpans.has(e.span))) throw new CompileError(e.message, c.span, e.notes);
        if (e instanceof NeedsStatic && preludeSpans.has(e.span)) throw new CompileError(e.message, c.span);
        throw e;
      }
    },
  };
}
