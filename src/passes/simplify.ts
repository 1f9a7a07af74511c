// Simplification passes on a Func: dead-code elimination, and the algebraic
// rewrites of XLA's simplifier that change float results (so we must make
// them too to print what JAX prints).
import type { Atom, Eqn, Func, Var } from '../ir/types.js';

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

/**
 * XLA's AlgebraicSimplifier rewrites `A / Const` (a constant or a broadcast of
 * one, A not constant) into `A * (1 / Const)` for floats, so `x / 7` and
 * `jnp.mean` round like a multiplication by the float32 reciprocal.
 */
export function divByConstant(f: Func): Func {
  const constant = new Map<number, number>(); // var id → the scalar it broadcasts
  let nextId = 0;
  const seen = (v: Var) => (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const scalarOf = (a: Atom): number | undefined => (a.kind === 'lit' ? a.value : constant.get(a.id));
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    if (e.prim === 'broadcast_in_dim' && e.inputs[0]!.kind === 'lit') constant.set(e.outputs[0]!.id, e.inputs[0]!.value);
    const [a, b] = e.inputs;
    const c = b && scalarOf(b);
    if (e.prim !== 'div' || e.outputs[0]!.aval.dtype !== 'float32' || c === undefined || scalarOf(a!) !== undefined) {
      eqns.push(e);
      continue;
    }
    const recip = Math.fround(1 / Math.fround(c));
    let r: Atom = { kind: 'lit', value: recip, aval: { shape: [], dtype: 'float32' } };
    if (b!.aval.shape.length) {
      const v: Var = { kind: 'var', id: nextId++, aval: b!.aval };
      eqns.push({ prim: 'broadcast_in_dim', inputs: [r], outputs: [v], params: { shape: [...b!.aval.shape], broadcast_dimensions: [] } });
      r = v;
    }
    eqns.push({ ...e, prim: 'mul', inputs: [a!, r] });
  }
  return { ...f, eqns };
}

/** The simplifications every program gets before fusion. */
export const simplify = (f: Func): Func => dce(divByConstant(f));
