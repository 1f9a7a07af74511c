// JAX's varying manual axes (vma) inside shard_map: which mesh axes a value
// of a per-device program may differ over. The type rule per equation (as
// JAX's abstract evaluation of each collective gives it) is shared by the
// check of shard_map's out_specs (src/lower) and by reverse-mode autodiff,
// where a value used together with one that varies over more axes was
// implicitly `pvary`-ed, and pvary's transpose is a psum (lax/parallel.py).
import type { Atom, Eqn, Func } from '../ir/types.js';

/** The mesh axes a collective equation names (psum/pmax/pmin: `axes`; the others: `axis_name`). */
export const collectiveAxes = (e: Pick<Eqn, 'params'>): readonly string[] => ((e.params['axes'] ?? e.params['axis_name']) as string[] | undefined) ?? [];

/** Reductions that make their result invariant over their axes (psum, pmax, pmin). */
export const isAllReduce = (prim: string): boolean => prim === 'psum' || prim === 'pmax' || prim === 'pmin';

/**
 * The vma of an equation's results from its operands': an all-reduce removes
 * its axes; axis_index and the collectives JAX pvary-s their operand for
 * (all_gather, psum_scatter, ppermute, all_to_all) vary over theirs; every
 * other primitive unites its operands'.
 */
export function vmaOfEqn(e: Pick<Eqn, 'prim' | 'params'>, ins: ReadonlySet<string>[]): Set<string> {
  const out = new Set<string>();
  for (const s of ins) for (const n of s) out.add(n);
  const names = collectiveAxes(e);
  if (isAllReduce(e.prim)) for (const n of names) out.delete(n);
  else if (['axis_index', 'psum_scatter', 'all_gather', 'ppermute', 'all_to_all', 'pvary'].includes(e.prim)) for (const n of names) out.add(n);
  return out;
}

/** The vma of every variable of `f`, its parameters' given. */
export function vmaOfFunc(f: Pick<Func, 'params' | 'eqns'>, params: readonly (readonly string[])[]): Map<number, Set<string>> {
  const vma = new Map<number, Set<string>>();
  f.params.forEach((p, i) => vma.set(p.id, new Set(params[i] ?? [])));
  const of = (a: Atom): Set<string> => (a.kind === 'var' ? (vma.get(a.id) ?? new Set()) : new Set());
  for (const e of f.eqns) {
    if (isAllReduce(e.prim) && e.outputs.length > 1) {
      // a combined all-reduce (passes/spmd.ts's combiner): one result per operand
      e.outputs.forEach((o, i) => vma.set(o.id, vmaOfEqn(e, [of(e.inputs[i]!)])));
      continue;
    }
    const out = vmaOfEqn(e, e.inputs.map(of));
    for (const o of e.outputs) vma.set(o.id, out);
  }
  return vma;
}
