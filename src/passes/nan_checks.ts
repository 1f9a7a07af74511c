// jax.config.update("jax_debug_nans", True): every program made after it also
// returns each floating-point intermediate, in program order, with the
// primitive and the Python line that made it; the runtime checks them after
// the call and raises JAX's FloatingPointError naming the first primitive
// whose result holds a NaN (as JAX's de-optimized re-run does).
import type { NanCheck } from '../../runtime/program.js';
import type { Func, Var } from '../ir/types.js';

/** Primitives that only move or select values: a NaN in their result came from an input, reported where it was made. */
const MOVES = new Set([
  'broadcast_in_dim', 'reshape', 'transpose', 'squeeze', 'expand_dims', 'slice', 'dynamic_slice', 'dynamic_update_slice', 'concatenate', 'pad', 'rev',
  'convert_element_type', 'copy', 'select_n', 'all_gather', 'all_to_all', 'ppermute', 'psum_scatter',
]);

/** `func` with its float intermediates appended to the results, and what each one is. */
export function withNanChecks(func: Func): { func: Func; checks: NanCheck[] } {
  const extra: Var[] = [];
  const checks: NanCheck[] = [];
  for (const e of func.eqns) {
    if (MOVES.has(e.prim)) continue;
    for (const o of e.outputs) {
      if (o.aval.dtype !== 'float32') continue;
      extra.push(o);
      checks.push({ prim: e.prim, line: e.span?.start.line ?? null });
    }
  }
  return { func: { ...func, results: [...func.results, ...extra] }, checks };
}
