// JAX's varying manual axes (vma) inside shard_map: which mesh axes a value
// of a per-device program may differ over. The type rule per equation (as
// JAX's abstract evaluation of each collective gives it) is shared by the
// check of shard_map's out_specs (src/lower) and by reverse-mode autodiff,
// where a value used together with one that varies over more axes was
// implicitly `pvary`-ed, and pvary's transpose is a psum (lax/parallel.py).
import { FuncBuilder } from './builder.js';
import { isControl } from './prims.js';
import type { Atom, Eqn, Func } from './types.js';

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

/** Collectives whose operand JAX pvary-s over their own axes (lax/parallel.py). */
const PVARY_OWN = new Set(['all_gather', 'psum_scatter', 'ppermute', 'all_to_all']);

/**
 * `f` (a shard_map body with check_vma) with JAX's implicit pvary made
 * explicit, as JAX's trace records it: before an equation, every operand
 * that varies over fewer mesh axes than the equation needs (its result's
 * axes, and an all-reduce's or a moving collective's own) becomes
 * `pvary[axes=…]` of it. Control flow is left alone (JAX asks the user to
 * pcast its operands). `params`: each parameter's varying axes; `axes`: the
 * mesh axes in order with their sizes.
 */
export function explicitPvary(f: Func, params: readonly (readonly string[])[], axes: readonly { name: string; size: number }[]): Func {
  const b = new FuncBuilder(f.name);
  const env = new Map<number, Atom>();
  const vma = new Map<number, Set<string>>();
  f.params.forEach((p, i) => {
    const q = b.addParam(p.aval, p.hint);
    env.set(p.id, q);
    vma.set(q.id, new Set(params[i] ?? []));
  });
  const of = (a: Atom): Set<string> => (a.kind === 'var' ? (vma.get(a.id) ?? new Set()) : new Set());
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  const splats = new Map<number, Eqn>();
  for (const e of f.eqns) {
    let ins = e.inputs.map(read);
    if (!isControl(e.prim) && !(isAllReduce(e.prim) && e.outputs.length > 1)) {
      const need = vmaOfEqn(e, ins.map(of));
      if (isAllReduce(e.prim)) for (const n of collectiveAxes(e)) need.add(n);
      else if (PVARY_OWN.has(e.prim)) {
        need.clear();
        for (const n of collectiveAxes(e)) need.add(n);
      }
      const pvary = (a: Atom, missing: readonly { name: string; size: number }[]): Atom => {
        const v = b.bind1('pvary', [a], { axes: missing.map((x) => x.name), axis_size: missing.reduce((k, x) => k * x.size, 1) }, e.span);
        vma.set(v.id, new Set([...of(a), ...missing.map((x) => x.name)]));
        return v;
      };
      ins = ins.map((a) => {
        if (a.kind !== 'var') return a;
        const have = of(a);
        const missing = axes.filter((x) => need.has(x.name) && !have.has(x.name));
        if (!missing.length) return a;
        // an operand broadcast for a binary operation: JAX pvary-s the smaller operand itself
        const bc = splats.get(a.id);
        if (!bc) return pvary(a, missing);
        const v = b.bind1('broadcast_in_dim', [pvary(bc.inputs[0]!, missing)], bc.params, e.span);
        b.eqns[b.eqns.length - 1]!.operandBroadcast = true;
        vma.set(v.id, new Set([...have, ...missing.map((x) => x.name)]));
        return v;
      });
    }
    const outs = b.bind(e.prim, ins, e.params, e.span);
    const made = b.eqns[b.eqns.length - 1]!;
    if (e.operandBroadcast && e.prim === 'broadcast_in_dim') splats.set(outs[0]!.id, made);
    if (e.transposed) made.transposed = true;
    if (e.operandBroadcast) made.operandBroadcast = true;
    if (e.calls) made.calls = e.calls;
    if (isAllReduce(e.prim) && outs.length > 1) outs.forEach((o, i) => vma.set(o.id, vmaOfEqn(e, [of(ins[i]!)])));
    else {
      const out = vmaOfEqn(e, ins.map(of));
      for (const o of outs) vma.set(o.id, out);
    }
    e.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
  }
  return b.finish(f.results.map(read), f.axisEnv);
}

/** The varying mesh axes (in the order of `axes`) of every variable of a shard_map body. */
export function bodyVma(f: Pick<Func, 'params' | 'eqns'>, params: readonly (readonly string[])[], axes: readonly string[]): Map<number, string[]> {
  const vma = vmaOfFunc(f, params);
  return new Map([...vma].map(([id, s]) => [id, axes.filter((n) => s.has(n))]));
}
