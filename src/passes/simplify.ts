// Simplification passes on a Func: dead-code elimination.
import type { Func } from '../ir/types.js';

/** Drop equations whose outputs nothing needs. */
export function dce(f: Func): Func {
  const live = new Set<number>();
  for (const r of f.results) if (r.kind === 'var') live.add(r.id);
  const kept = [];
  for (let i = f.eqns.length - 1; i >= 0; i--) {
    const e = f.eqns[i]!;
    if (!e.outputs.some((o) => live.has(o.id))) continue;
    kept.push(e);
    for (const a of e.inputs) if (a.kind === 'var') live.add(a.id);
  }
  return { ...f, eqns: kept.reverse() };
}
