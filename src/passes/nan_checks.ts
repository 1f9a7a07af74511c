// jax.config.update("jax_debug_nans", True): every program made after it also
// returns each floating-point intermediate, in program order, with the
// primitive and the Python line that made it; the runtime checks them after
// the call and raises JAX's FloatingPointError naming the first primitive
// whose result holds a NaN (as JAX's de-optimized re-run does).
import type { NanCheck } from '../../runtime/program.js';
import { PRIMS } from '../ir/prims.js';
import type { Func, Var } from '../ir/types.js';

/** `func` with its float intermediates appended to the results, and what each one is. */
export function withNanChecks(func: Func): { func: Func; checks: NanCheck[] } {
  const extra: Var[] = [];
  const checks: NanCheck[] = [];
  for (const e of func.eqns) {
    // a NaN in a mover's result came from an operand: it is reported where it was made
    if (PRIMS[e.prim].moves) continue;
    for (const o of e.outputs) {
      if (o.aval.dtype !== 'float32') continue;
      extra.push(o);
      checks.push({ prim: e.prim, line: e.span?.start.line ?? null, ...e.nanOrigin });
    }
  }
  return { func: { ...func, results: [...func.results, ...extra] }, checks };
}
