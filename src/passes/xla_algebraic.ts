// XLA's algebraic rewrites that change float32 results, made on the programs
// XLA compiles as a whole: jit and pmap bodies and the bodies of control flow.
// (JAX runs code outside jit one primitive at a time, so no rewrite spans two
// of its operations there; the pipeline leaves host segments alone.) Each rule
// is XLA's (xla/hlo/transforms/simplifiers/algebraic_simplifier.cc), written
// as an entry of RULES under the primitive it rewrites; measured against JAX
// 0.10.2 on CPU, each one changes hundreds of results in a thousand.
//
//   log(exp(A)) → A            log(sqrt(A)) → log(A)·0.5     log(rsqrt(A)) → log(A)·-0.5
//   log(pow(A,B)) → log(|A|)·B exp(A)·exp(B) → exp(A+B)      (A·C1)·C2 → A·(C1·C2)
//   exp(A)/exp(B) → exp(A−B)   A/exp(B) → A·exp(−B)          A/pow(B,C) → A·pow(B,−C)
//   A/sqrt(B) → A·rsqrt(B)     A/rsqrt(B) → A·sqrt(B)        (one use of the root)
//   (A/B)/(C/D) → (A·D)/(B·C)  (A/B)/C → A/(B·C)             A/(B/C) → (A·C)/B
//   A − C → A + (−C)           (A + C1) + C2 → A + (C1+C2)   (C1 − A) + C2 → (C1+C2) − A
//   C + A → A + C, C·A → A·C   A+0, A−0, A·1, A/1 → A        −(−A) → A
//   S·(A·C) → A·(S·C)          (S: a broadcast scalar that is not a constant)
//   reduce_sum(reduce_sum(A, d1), d2) → reduce_sum(A, d1 ∪ d2)   (the inner sum used once)
// (C: a scalar constant or a broadcast of one; the sums and products of
// constants are folded in float32.) The division by a constant or a broadcast
// is simplify.ts's divByBroadcast, which every program gets.
import { withSubFuncs } from '../ir/subfuncs.js';
import type { Prim } from '../ir/prims.js';
import { sameShape, size, type AVal, type Atom, type Eqn, type Func, type Var } from '../ir/types.js';

/** The equations a constant expression is made of (XLA folds them first): see `folded`. */
const FOLDABLE: ReadonlySet<Prim> = new Set<Prim>(['broadcast_in_dim', 'reshape', 'convert_element_type', 'neg', 'add', 'sub', 'mul', 'div']);

/** What a rule sees: the producers of the (already rewritten) operands, and how to add equations. */
interface Ctx {
  /** The equation that made `a`, if it is a variable made in this function. */
  def(a: Atom): Eqn | undefined;
  /** How many equations and results of the original function use `a`. */
  uses(a: Atom): number;
  /** The scalar value of a constant: a literal or a broadcast of one. */
  constant(a: Atom): number | undefined;
  /** Append `prim(inputs)` and return its result (of type `aval`). */
  emit(prim: Prim, inputs: Atom[], aval: AVal, params?: Eqn['params']): Var;
  /** A float32 constant of type `aval`: a literal, broadcast when `aval` is not a scalar. */
  constant32(value: number, aval: AVal): Atom;
}

/** A rule's answer: the atom that replaces the equation's result, or undefined (no rewrite). */
type Rule = (e: Eqn, x: Ctx) => Atom | undefined;

/** Do these operands all have the result's shape (so a new elementwise equation over them is well formed)? */
const shaped = (out: AVal, ...atoms: Atom[]): boolean => atoms.every((a) => sameShape(a.aval.shape, out.shape));
const isOne = (x: Ctx, a: Atom): boolean => x.constant(a) === 1;
const isZero = (x: Ctx, a: Atom): boolean => x.constant(a) === 0;
const f32 = Math.fround;

const RULES: Partial<Record<Prim, Rule>> = {
  log: (e, x) => {
    const [a] = e.inputs;
    const d = x.def(a!);
    const out = e.outputs[0]!.aval;
    if (d?.prim === 'exp') return d.inputs[0];
    if (d?.prim === 'sqrt' || d?.prim === 'rsqrt') return x.emit('mul', [x.emit('log', [d.inputs[0]!], out), x.constant32(d.prim === 'sqrt' ? 0.5 : -0.5, out)], out);
    if (d?.prim === 'pow') return x.emit('mul', [x.emit('log', [x.emit('abs', [d.inputs[0]!], out)], out), d.inputs[1]!], out);
    return undefined;
  },
  neg: (e, x) => {
    const d = x.def(e.inputs[0]!);
    return d?.prim === 'neg' ? d.inputs[0] : undefined;
  },
  add: (e, x) => {
    let [a, b] = e.inputs as [Atom, Atom];
    const out = e.outputs[0]!.aval;
    if (isZero(x, b)) return a;
    if (isZero(x, a)) return b;
    if (x.constant(a) !== undefined && x.constant(b) === undefined) [a, b] = [b, a];
    const c2 = x.constant(b);
    const d = x.def(a);
    if (c2 !== undefined && d?.prim === 'add') {
      const c1 = x.constant(d.inputs[1]!);
      if (c1 !== undefined && x.constant(d.inputs[0]!) === undefined) return x.emit('add', [d.inputs[0]!, x.constant32(c1 + c2, out)], out);
    }
    if (c2 !== undefined && d?.prim === 'sub') {
      const c1 = x.constant(d.inputs[0]!);
      if (c1 !== undefined && x.constant(d.inputs[1]!) === undefined) return x.emit('sub', [x.constant32(c1 + c2, out), d.inputs[1]!], out);
    }
    return a === e.inputs[0] ? undefined : x.emit('add', [a, b], out);
  },
  sub: (e, x) => {
    const [a, b] = e.inputs as [Atom, Atom];
    if (isZero(x, b)) return a;
    const c = x.constant(b);
    if (c !== undefined && x.constant(a) === undefined) return x.emit('add', [a, x.constant32(-c, e.outputs[0]!.aval)], e.outputs[0]!.aval);
    return undefined;
  },
  mul: (e, x) => {
    let [a, b] = e.inputs as [Atom, Atom];
    const out = e.outputs[0]!.aval;
    if (isOne(x, b)) return a;
    if (isOne(x, a)) return b;
    if (x.constant(a) !== undefined && x.constant(b) === undefined) [a, b] = [b, a];
    const c2 = x.constant(b);
    const da = x.def(a);
    if (c2 !== undefined && da?.prim === 'mul') {
      const c1 = x.constant(da.inputs[1]!);
      if (c1 !== undefined && x.constant(da.inputs[0]!) === undefined) return x.emit('mul', [da.inputs[0]!, x.constant32(c1 * c2, out)], out);
    }
    const db = x.def(b);
    if (da?.prim === 'exp' && db?.prim === 'exp' && shaped(out, da.inputs[0]!, db.inputs[0]!)) return x.emit('exp', [x.emit('add', [da.inputs[0]!, db.inputs[0]!], out)], out);
    // S·(A·C) → A·(S·C), S a broadcast scalar that is not a constant (the scalars multiply once)
    for (const [s, p] of [[a, b], [b, a]] as const) {
      const scalar = c2 === undefined ? broadcastScalar(x, s) : undefined;
      const dp = x.def(p);
      if (scalar === undefined || dp?.prim !== 'mul' || !shaped(out, p)) continue;
      const [pa, pb] = dp.inputs as [Atom, Atom];
      const [inner, c] = x.constant(pb) !== undefined ? [pa, x.constant(pb)!] : [pb, x.constant(pa)];
      if (c === undefined || x.constant(inner) !== undefined || !shaped(out, inner)) continue;
      const sc = x.emit('mul', [scalar, x.constant32(c, scalar.aval)], scalar.aval);
      return x.emit('mul', [inner, x.emit('broadcast_in_dim', [sc], out, { shape: [...out.shape], broadcast_dimensions: [] })], out);
    }
    return a === e.inputs[0] ? undefined : x.emit('mul', [a, b], out);
  },
  // reduce(reduce(A, d1), d2) → reduce(A, d1 ∪ d2), the inner sum used there only: one sum over all of them
  reduce_sum: (e, x) => {
    const d = x.def(e.inputs[0]!);
    if (d?.prim !== 'reduce_sum' || x.uses(e.inputs[0]!) !== 1) return undefined;
    const inner = d.params['axes'] as number[];
    const kept = d.inputs[0]!.aval.shape.map((_, i) => i).filter((i) => !inner.includes(i));
    const axes = [...inner, ...(e.params['axes'] as number[]).map((a) => kept[a]!)].sort((a, b) => a - b);
    return x.emit('reduce_sum', [d.inputs[0]!], e.outputs[0]!.aval, { ...e.params, axes });
  },
  div: (e, x) => {
    const [a, b] = e.inputs as [Atom, Atom];
    const out = e.outputs[0]!.aval;
    if (isOne(x, b)) return a;
    const da = x.def(a);
    const db = x.def(b);
    if (da?.prim === 'exp' && db?.prim === 'exp' && shaped(out, da.inputs[0]!, db.inputs[0]!)) return x.emit('exp', [x.emit('sub', [da.inputs[0]!, db.inputs[0]!], out)], out);
    if (db?.prim === 'exp' && shaped(out, db.inputs[0]!)) return x.emit('mul', [a, x.emit('exp', [x.emit('neg', [db.inputs[0]!], out)], out)], out);
    if (db?.prim === 'pow' && shaped(out, db.inputs[0]!)) {
      const [base, p] = db.inputs as [Atom, Atom];
      const negP = x.emit('neg', [p], p.aval);
      return x.emit('mul', [a, x.emit('pow', [base, negP], out)], out);
    }
    if ((db?.prim === 'sqrt' || db?.prim === 'rsqrt') && x.uses(b) === 1 && shaped(out, db.inputs[0]!)) return x.emit('mul', [a, x.emit(db.prim === 'sqrt' ? 'rsqrt' : 'sqrt', [db.inputs[0]!], out)], out);
    if (x.constant(b) !== undefined) return undefined; // A / C: divByBroadcast's
    if (!shaped(out, a, b)) return undefined;
    if (da?.prim === 'div' && db?.prim === 'div' && shaped(out, ...da.inputs, ...db.inputs)) {
      const [p, q] = da.inputs as [Atom, Atom];
      const [r, s] = db.inputs as [Atom, Atom];
      return x.emit('div', [x.emit('mul', [p, s], out), x.emit('mul', [q, r], out)], out);
    }
    if (da?.prim === 'div' && shaped(out, ...da.inputs)) return x.emit('div', [da.inputs[0]!, x.emit('mul', [da.inputs[1]!, b], out)], out);
    if (db?.prim === 'div' && shaped(out, ...db.inputs)) return x.emit('div', [x.emit('mul', [a, db.inputs[1]!], out), db.inputs[0]!], out);
    return undefined;
  },
};

/**
 * Rules on integer operands and conversions, which check their own dtypes: `A ^ A → 0`, `A + 0 → A`,
 * and a conversion of a constant is the converted constant (so `arctan2(y, 1 + (x ^ x))` is jnp.arctan's
 * atan2(y, 1), which XLA's emitter runs as its own atan).
 */
const TYPED_RULES: Partial<Record<Prim, Rule>> = {
  xor: (e) => {
    const [a, b] = e.inputs as [Atom, Atom];
    const out = e.outputs[0]!.aval;
    return a.kind === 'var' && b.kind === 'var' && a.id === b.id && isIntLike(out) ? { kind: 'lit', value: 0, aval: { shape: [], dtype: out.dtype } } : undefined;
  },
  add: (e, x) => {
    const [a, b] = e.inputs as [Atom, Atom];
    if (!isIntLike(e.outputs[0]!.aval) || a.aval.dtype !== b.aval.dtype) return undefined;
    return isZero(x, b) ? a : isZero(x, a) ? b : undefined;
  },
  convert_element_type: (e, x) => {
    const [a] = e.inputs as [Atom];
    const out = e.outputs[0]!.aval;
    const c = out.dtype === 'float32' && isIntLike(a.aval) && a.aval.dtype !== 'bool' ? x.constant(a) : undefined;
    return c === undefined ? undefined : x.constant32(c, out);
  },
};
const isIntLike = (a: AVal): boolean => a.dtype === 'int32' || a.dtype === 'uint32' || a.dtype === 'bool';

/** The rank-0 value `a` broadcasts (through broadcasts and reshapes of one element), when it is not a constant. */
function broadcastScalar(x: Ctx, a: Atom): Atom | undefined {
  if (x.constant(a) !== undefined || a.aval.shape.length === 0) return undefined;
  let cur: Atom = a;
  for (let d = x.def(cur); d && (d.prim === 'broadcast_in_dim' || d.prim === 'reshape') && size(d.inputs[0]!.aval.shape) === 1; d = x.def(cur)) {
    cur = d.inputs[0]!;
  }
  if (cur === a || cur.kind !== 'var' || size(cur.aval.shape) !== 1) return undefined;
  if (cur.aval.shape.length === 0) return cur;
  return x.emit('reshape', [cur], { shape: [], dtype: cur.aval.dtype }, { new_sizes: [], dimensions: null });
}

/**
 * One forward sweep of the rules over `f` (its control-flow bodies first). `regions`: only among the
 * equations of one jit region (Eqn.jitRegion: a jitted jax.numpy call in a host segment), whose
 * operands made outside the region are that computation's parameters, not constants.
 */
function sweep(f: Func, regions = false): { func: Func; changed: boolean } {
  let nextId = 0;
  const seen = (v: Var): void => void (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const useCount = new Map<number, number>();
  const use = (a: Atom): void => void (a.kind === 'var' && useCount.set(a.id, (useCount.get(a.id) ?? 0) + 1));
  f.eqns.forEach((e) => e.inputs.forEach(use));
  f.results.forEach(use);

  const producer = new Map<number, Eqn>();
  const subst = new Map<number, Atom>();
  const rename = (a: Atom): Atom => (a.kind === 'var' ? (subst.get(a.id) ?? a) : a);
  const eqns: Eqn[] = [];
  const push = (e: Eqn): void => {
    eqns.push(e);
    for (const o of e.outputs) producer.set(o.id, e);
  };
  /**
   * The value of a constant (XLA folds constant expressions first): a literal, or a broadcast, reshape or
   * conversion of a constant, or float32 arithmetic on constants (1 / 10.0), up to `depth` equations deep.
   */
  const folded = (a: Atom, depth: number): number | undefined => {
    if (a.kind === 'lit') return a.value;
    const d = depth > 0 ? inRegion(producer.get(a.id)) : undefined;
    // only these equations fold: the walk never enters any other (it would be exponential in `depth`)
    if (!d || d.outputs.length !== 1 || !FOLDABLE.has(d.prim)) return undefined;
    const p = folded(d.inputs[0]!, depth - 1);
    if (p === undefined) return undefined;
    if (d.prim === 'broadcast_in_dim' || d.prim === 'reshape') return p;
    if (d.prim === 'convert_element_type') return d.outputs[0]!.aval.dtype === 'float32' && d.inputs[0]!.aval.dtype !== 'bool' ? f32(p) : undefined;
    if (d.prim === 'neg') return -p;
    if (d.outputs[0]!.aval.dtype !== 'float32') return undefined;
    const q = folded(d.inputs[1]!, depth - 1);
    if (q === undefined) return undefined;
    const op = ({ add: p + q, sub: p - q, mul: p * q, div: p / q } as Partial<Record<Prim, number>>)[d.prim];
    return op === undefined ? undefined : f32(op);
  };
  /** The region of the equation being rewritten (regions mode). */
  let region: number | undefined;
  const inRegion = (d: Eqn | undefined): Eqn | undefined => (!regions || d?.jitRegion === region ? d : undefined);
  const ctx: Ctx = {
    def: (a) => (a.kind === 'var' ? inRegion(producer.get(a.id)) : undefined),
    uses: (a) => (a.kind === 'var' ? (useCount.get(a.id) ?? 0) : 0),
    constant: (a) => folded(a, 8),
    emit: (prim, inputs, aval, params = {}) => {
      const v: Var = { kind: 'var', id: nextId++, aval: { shape: [...aval.shape], dtype: aval.dtype } };
      push({ prim, inputs, outputs: [v], params, ...(region !== undefined && { jitRegion: region }) });
      return v;
    },
    constant32: (value, aval) => {
      const lit: Atom = { kind: 'lit', value: f32(value), aval: { shape: [], dtype: 'float32' } };
      if (!aval.shape.length) return lit;
      return ctx.emit('broadcast_in_dim', [lit], aval, { shape: [...aval.shape], broadcast_dimensions: [] });
    },
  };
  let changed = false;
  for (const e0 of f.eqns) {
    const e = { ...e0, inputs: e0.inputs.map(rename) };
    region = e.jitRegion;
    const rule = regions && region === undefined ? undefined : RULES[e.prim];
    const typed = regions && region === undefined ? undefined : TYPED_RULES[e.prim];
    const out = e.outputs[0];
    const float32 = e.outputs.length === 1 && out!.aval.dtype === 'float32' && e.inputs.every((a) => a.aval.dtype === 'float32');
    const r = (rule && float32 ? rule(e, ctx) : undefined) ?? (typed && e.outputs.length === 1 ? typed(e, ctx) : undefined);
    if (r === undefined) {
      push(e);
      continue;
    }
    changed = true;
    // the rewritten value takes the place of the equation's result (a broadcast where it was a scalar
    // or a literal: a program's results and control-flow operands are variables)
    if (r.kind === 'var' && r.aval.shape.length === out!.aval.shape.length) subst.set(out!.id, r);
    else push({ prim: 'broadcast_in_dim', inputs: [r], outputs: [out!], params: { shape: [...out!.aval.shape], broadcast_dimensions: [] }, ...(region !== undefined && { jitRegion: region }) });
  }
  return { func: { ...f, eqns, results: f.results.map(rename) }, changed };
}

/** XLA's float-changing algebraic rewrites, to a fixed point (as XLA reruns its simplifier until nothing changes). */
export function xlaAlgebraic(f: Func): Func {
  return toFixedPoint(withSubFuncs(f, xlaAlgebraic), false);
}

/**
 * The rewrites within each jit region of a host segment (a jitted jax.numpy call, compiled by XLA as
 * one computation; the rest of the segment runs op by op). Control-flow bodies are the caller's.
 */
export const xlaAlgebraicInRegions = (f: Func): Func => (f.eqns.some((e) => e.jitRegion !== undefined) ? toFixedPoint(f, true) : f);

function toFixedPoint(f: Func, regions: boolean): Func {
  let g = f;
  for (let i = 0; i < 8; i++) {
    const r = sweep(g, regions);
    g = r.func;
    if (!r.changed) break;
  }
  return g;
}
