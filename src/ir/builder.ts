// Builds a Func equation by equation (what a JAX trace does), applying each
// primitive's shape rule as it goes.
import type { Span } from '../common/span.js';
import { shapeRule } from './primitives.js';
import { PRIMS, type Prim } from './prims.js';
import type { Atom, AVal, Eqn, Func, Lit, Params, Var } from './types.js';

export class FuncBuilder {
  readonly params: Var[] = [];
  readonly eqns: Eqn[] = [];
  private nextId = 0;

  constructor(readonly name: string) {}

  /** The id the next variable gets (ids below it are taken). */
  get nextVarId(): number {
    return this.nextId;
  }

  newVar(aval: AVal, hint?: string): Var {
    const v: Var = { kind: 'var', id: this.nextId++, aval: aval.weak ? { shape: aval.shape, dtype: aval.dtype, weak: true } : { shape: aval.shape, dtype: aval.dtype } };
    if (hint) v.hint = hint;
    return v;
  }

  addParam(aval: AVal, hint?: string): Var {
    const v = this.newVar(aval, hint);
    this.params.push(v);
    return v;
  }

  /** Append `outs = prim[params](inputs)` and return the outputs. */
  bind(prim: Prim, inputs: Atom[], params: Params = {}, span?: Span): Var[] {
    const outAvals = shapeRule(prim)(
      inputs.map((a) => a.aval),
      params,
    );
    const weak = weakResult(prim, inputs, params);
    const outputs = outAvals.map((a) => this.newVar(weak ? { ...a, weak } : a));
    const eqn: Eqn = { prim, inputs, outputs, params };
    if (span) eqn.span = span;
    this.eqns.push(eqn);
    return outputs;
  }

  bind1(prim: Prim, inputs: Atom[], params: Params = {}, span?: Span): Var {
    return this.bind(prim, inputs, params, span)[0]!;
  }

  /** Re-bind every equation of `f` here with its parameters replaced by `args`. */
  inline(f: Func, args: Atom[]): Atom[] {
    const env = new Map<number, Atom>(f.params.map((p, i) => [p.id, args[i]!]));
    const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
    for (const e of f.eqns) {
      const outs = this.bind(e.prim, e.inputs.map(read), e.params, e.span);
      if (e.transposed) this.eqns[this.eqns.length - 1]!.transposed = true;
      if (e.operandBroadcast) this.eqns[this.eqns.length - 1]!.operandBroadcast = true;
      if (e.addAny) this.eqns[this.eqns.length - 1]!.addAny = true;
      if (e.numpyParams) this.eqns[this.eqns.length - 1]!.numpyParams = true;
      if (e.nanOrigin) this.eqns[this.eqns.length - 1]!.nanOrigin = e.nanOrigin;
      if (e.jitRegion !== undefined) this.eqns[this.eqns.length - 1]!.jitRegion = e.jitRegion;
      if (e.numpyPlainLead) this.eqns[this.eqns.length - 1]!.numpyPlainLead = e.numpyPlainLead;
      const like = e.shardingLike && env.get(e.shardingLike.id);
      if (like && like.kind === 'var') this.eqns[this.eqns.length - 1]!.shardingLike = like;
      const of = e.cotangentOf && env.get(e.cotangentOf.id);
      if (of && of.kind === 'var') this.eqns[this.eqns.length - 1]!.cotangentOf = of;
      e.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
    }
    return f.results.map(read);
  }

  finish(results: Atom[], axisEnv?: Func['axisEnv']): Func {
    const f: Func = { name: this.name, params: this.params, eqns: this.eqns, results };
    if (axisEnv && axisEnv.length) f.axisEnv = axisEnv;
    return f;
  }
}

/** JAX's standard weak-type rule: a result is weak when all its inputs are (never for a `strong` primitive). */
function weakResult(prim: Prim, inputs: Atom[], params: Params): boolean {
  if (prim === 'convert_element_type') return params['weak_type'] === true;
  // control flow: its sub-functions' result types, weak or not (the shape rule's)
  if (PRIMS[prim].strong || PRIMS[prim].control || !inputs.length) return false;
  // a primitive the program defined: its abstract evaluation's type (its call's results)
  if (params['prim_name'] !== undefined) return false;
  // select_n: its cases decide (JAX's _select_weak_type_rule), not the predicate
  if (prim === 'select_n') return inputs.slice(1).every((a) => a.aval.weak === true);
  return inputs.every((a) => a.aval.weak === true);
}

export const lit = (value: number, dtype: AVal['dtype'], weak = false): Lit => ({
  kind: 'lit',
  value,
  aval: weak ? { shape: [], dtype, weak: true } : { shape: [], dtype },
});
