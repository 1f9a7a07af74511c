// The sub-functions a control-flow equation holds in its params (cond's
// branches, while's cond_jaxpr and body_jaxpr, scan's jaxpr), for the passes
// that must look inside them.
import { isControl } from './prims.js';
import type { Eqn, Func, Params } from './types.js';

/** The sub-functions of `e` (none unless it is control flow). */
export function subFuncs(e: Eqn): Func[] {
  if (!isControl(e.prim)) return [];
  if (e.prim === 'cond') return e.params['branches'] as Func[];
  if (e.prim === 'while') return [e.params['cond_jaxpr'] as Func, e.params['body_jaxpr'] as Func];
  return [e.params['jaxpr'] as Func];
}

/** `e`'s params with each sub-function replaced by `fn` of it. */
export function mapSubFuncs(e: Eqn, fn: (f: Func) => Func): Params {
  if (!isControl(e.prim)) return e.params;
  if (e.prim === 'cond') return { ...e.params, branches: (e.params['branches'] as Func[]).map(fn) };
  if (e.prim === 'while') return { ...e.params, cond_jaxpr: fn(e.params['cond_jaxpr'] as Func), body_jaxpr: fn(e.params['body_jaxpr'] as Func) };
  return { ...e.params, jaxpr: fn(e.params['jaxpr'] as Func) };
}

/** `f` with every control-flow equation's sub-functions replaced by `fn` of them. */
export function withSubFuncs(f: Func, fn: (g: Func) => Func): Func {
  if (!f.eqns.some((e) => isControl(e.prim))) return f;
  return { ...f, eqns: f.eqns.map((e) => (isControl(e.prim) ? { ...e, params: mapSubFuncs(e, fn) } : e)) };
}
