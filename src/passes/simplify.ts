// Simplification passes on a Func: dead-code elimination, and the algebraic
// rewrites of XLA's simplifier that change float results (so we must make
// them too to print what JAX prints).
import { withSubFuncs } from '../ir/subfuncs.js';
import { type Atom, type Eqn, type Func, type Var } from '../ir/types.js';
import { narrowValue } from '../ir/dtypes.js';
import type { DotDims } from '../ir/primitives.js';
import { xlaAlgebraic, xlaAlgebraicInRegions } from './xla_algebraic.js';

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
 * XLA's AlgebraicSimplifier rewrites a division by a broadcast (or by a
 * constant) into a multiplication by the reciprocal of the smaller operand:
 * `A / broadcast(b)` → `A * broadcast(1 / b)`. So `x / 7`, `jnp.mean` and
 * `x / x.sum(axis=1, keepdims=True)` round like a multiplication by the
 * float32 reciprocal, and we must do the same to print what JAX prints.
 */
export function divByBroadcast(f: Func): Func {
  const broadcastOf = new Map<number, Eqn>(); // var id → the broadcast_in_dim producing it
  let nextId = 0;
  const seen = (v: Var) => (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const fresh = (aval: Var['aval']): Var => ({ kind: 'var', id: nextId++, aval });
  const source = (a: Atom): Atom | undefined => (a.kind === 'lit' ? a : broadcastOf.get(a.id)?.inputs[0]);
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    if (e.prim === 'broadcast_in_dim') broadcastOf.set(e.outputs[0]!.id, e);
    const [a, b] = e.inputs;
    const dt = e.outputs[0]?.aval.dtype;
    // XLA's CPU computes float16 natively (the rewrite applies, in float16); bfloat16 goes to float32
    // through converts the rewrite does not see past, so its divisions stay divisions
    const s = e.prim === 'div' && (dt === 'float32' || dt === 'float16' || dt === 'float64') ? source(b!) : undefined;
    // a value rounded to the division's dtype (float64, float32, or a narrow float held in one)
    const round = (v: number): number => (dt === 'float64' ? v : dt ? narrowValue(Math.fround(v), dt) : v);
    const aSrc = a && source(a);
    // x / ±inf stays a division: the same IEEE result as x * ±0, which shader compilers (SwiftShader) fold to 0
    if (!s || (s.kind === 'lit' && (aSrc?.kind === 'lit' || !Number.isFinite(round(s.value))))) {
      eqns.push(e);
      continue;
    }
    let r: Atom;
    const region = e.jitRegion !== undefined ? { jitRegion: e.jitRegion } : {};
    if (s.kind === 'lit') {
      r = { kind: 'lit', value: round(1 / round(s.value)), aval: { shape: [], dtype: dt! } };
    } else {
      // 1 / b on the broadcast's (smaller) operand
      const ones = fresh(s.aval);
      const one: Atom = { kind: 'lit', value: 1, aval: { shape: [], dtype: dt! } };
      eqns.push({ prim: 'broadcast_in_dim', inputs: [one], outputs: [ones], params: { shape: [...s.aval.shape], broadcast_dimensions: [] }, ...region });
      r = fresh(s.aval);
      eqns.push({ prim: 'div', inputs: [s.aval.shape.length ? ones : one, s], outputs: [r], params: {}, ...region });
    }
    if (b!.kind === 'var') {
      const v = fresh(b!.aval);
      const params = s.kind === 'lit' ? { shape: [...b!.aval.shape], broadcast_dimensions: [] } : broadcastOf.get(b!.id)!.params;
      eqns.push({ prim: 'broadcast_in_dim', inputs: [r], outputs: [v], params, ...region });
      r = v;
    }
    eqns.push({ ...e, prim: 'mul', inputs: [a!, r] });
  }
  return { ...f, eqns };
}

/**
 * XLA's AlgebraicSimplifier rewrites a product with a converted predicate,
 * `convert(p) * x` with p bool, into `select(p, x, 0)`: where p is false the
 * result is +0 even when x is inf or NaN (JAX prints `[0. inf]` for
 * `b.astype(float32) * inf`, and `b / 0` is such a product after the
 * reciprocal rewrite above).
 */
export function mulByPredicate(f: Func): Func {
  const predOf = new Map<number, Atom>(); // var id → the bool it was converted from
  let nextId = 0;
  const seen = (v: Var) => (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    const out = e.outputs[0];
    if (e.prim === 'convert_element_type' && e.inputs[0]!.aval.dtype === 'bool' && out!.aval.dtype === 'float32') predOf.set(out!.id, e.inputs[0]!);
    const [a, b] = e.inputs;
    const pa = a?.kind === 'var' ? predOf.get(a.id) : undefined;
    const pb = b?.kind === 'var' ? predOf.get(b.id) : undefined;
    const pred = pa ?? pb;
    const other = pa ? b : a;
    const same = (x: Atom | undefined): boolean => x !== undefined && x.aval.shape.length === out?.aval.shape.length && x.aval.shape.every((d, i) => d === out.aval.shape[i]);
    if (e.prim !== 'mul' || out!.aval.dtype !== 'float32' || !pred || !same(pred) || !same(other)) {
      eqns.push(e);
      continue;
    }
    const zeros: Var = { kind: 'var', id: nextId++, aval: { shape: [...out!.aval.shape], dtype: 'float32' } };
    const zero: Atom = { kind: 'lit', value: 0, aval: { shape: [], dtype: 'float32' } };
    eqns.push({ prim: 'broadcast_in_dim', inputs: [zero], outputs: [zeros], params: { shape: [...out!.aval.shape], broadcast_dimensions: [] }, ...(e.jitRegion !== undefined && { jitRegion: e.jitRegion }) });
    eqns.push({ ...e, prim: 'select_n', inputs: [pred, zeros, other!] });
  }
  return { ...f, eqns };
}

/**
 * XLA's AlgebraicSimplifier strength-reduces a dot whose operands both have only batch and contracting
 * dimensions (a vector-vector dot: `v @ w`, `jnp.dot(v, w)`, `einsum('bk,bk->b')`) into
 * `reduce_sum(lhs * rhs)` over the contracting dimensions (each operand transposed to batch-major,
 * contracting-minor). The sum then runs in XLA's reduction order (windows of 32, its library's from 4096),
 * not a dot's, and a converted bool operand becomes a select (mulByPredicate): NaN times False is 0.
 * Without batch dimensions, a sum in order (32 elements or fewer) fuses each product into it (measured on
 * the oracle: `jnp.dot(v, w)` of 5 to 32 elements is a chain of fused multiply-adds).
 */
export function dotToReduce(f: Func): Func {
  let nextId = 0;
  const seen = (v: Var) => (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const boolOf = new Map<number, Atom>(); // var id → the bool a convert_element_type made it from
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    const out = e.outputs[0];
    if (e.prim === 'convert_element_type' && e.inputs[0]!.aval.dtype === 'bool') boolOf.set(out!.id, e.inputs[0]!);
    const dn = e.params['dimension_numbers'] as DotDims | undefined;
    const [a, b] = e.inputs;
    const vectorLike = (x: Atom, side: 0 | 1): boolean => dn!.batch[side].length + dn!.contract[side].length === x.aval.shape.length;
    if (e.prim !== 'dot_general' || !dn || out?.aval.dtype !== 'float32' || a!.aval.dtype !== 'float32' || !vectorLike(a!, 0) || !vectorLike(b!, 1)) {
      eqns.push(e);
      continue;
    }
    const extra = { ...(e.jitRegion !== undefined && { jitRegion: e.jitRegion }), ...(e.span !== undefined && { span: e.span }) };
    /** The operand transposed to batch-major, contracting-minor (a converted bool: the bool transposed, then converted). */
    const arrange = (x: Atom, side: 0 | 1): Atom => {
      const perm = [...dn.batch[side], ...dn.contract[side]];
      if (x.kind === 'lit' || perm.every((d, i) => d === i)) return x;
      const move = (v: Atom): Var => {
        const t: Var = { kind: 'var', id: nextId++, aval: { shape: perm.map((d) => v.aval.shape[d]!), dtype: v.aval.dtype } };
        eqns.push({ prim: 'transpose', inputs: [v], outputs: [t], params: { permutation: perm }, ...extra });
        return t;
      };
      const p = boolOf.get(x.id);
      if (!p) return move(x);
      const c: Var = { kind: 'var', id: nextId++, aval: { shape: perm.map((d) => x.aval.shape[d]!), dtype: 'float32' } };
      eqns.push({ prim: 'convert_element_type', inputs: [move(p)], outputs: [c], params: { new_dtype: 'float32', weak_type: false }, ...extra });
      boolOf.set(c.id, p);
      return c;
    };
    const lhs = arrange(a!, 0);
    const rhs = arrange(b!, 1);
    const nb = dn.batch[0].length;
    const prod: Var = { kind: 'var', id: nextId++, aval: { shape: [...lhs.aval.shape], dtype: 'float32' } };
    eqns.push({ prim: 'mul', inputs: [lhs, rhs], outputs: [prod], params: {}, ...extra });
    const axes = dn.contract[0].map((_, i) => nb + i);
    // without batch dimensions XLA's loop adds the fused product in order (LLVM contracts it: fma_contraction.ts)
    eqns.push({ prim: 'reduce_sum', inputs: [prod], outputs: [out], params: { axes, out_sharding: null, ...(nb === 0 && { fma: true }) }, ...extra });
  }
  return { ...f, eqns };
}

/**
 * XLA's AlgebraicSimplifier turns a dot whose contracting dimensions all have size 1 (or none: an outer
 * product) into a multiply of the operands broadcast to the result (each transposed to batch, free,
 * contracting order, the contracting dimensions reshaped away): each element is one product, so -0 stays
 * -0 where a sum from +0 would give +0 (`x[:, None] @ y[None, :]`, a matrix of one column times a vector).
 * Runs after dotToReduce, which takes the dots whose operands have no free dimensions.
 */
export function degenerateDot(f: Func): Func {
  let nextId = 0;
  const seen = (v: Var) => (nextId = Math.max(nextId, v.id + 1));
  f.params.forEach(seen);
  f.eqns.forEach((e) => e.outputs.forEach(seen));
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    const out = e.outputs[0];
    const dn = e.params['dimension_numbers'] as DotDims | undefined;
    const [a, b] = e.inputs;
    if (e.prim !== 'dot_general' || !dn || out?.aval.dtype !== 'float32' || a!.kind !== 'var' || b!.kind !== 'var' || a!.aval.dtype !== 'float32' || b!.aval.dtype !== 'float32' || !dn.contract[0].every((d) => a!.aval.shape[d] === 1)) {
      eqns.push(e);
      continue;
    }
    const extra = { ...(e.jitRegion !== undefined && { jitRegion: e.jitRegion }), ...(e.span !== undefined && { span: e.span }) };
    const step = (prim: Eqn['prim'], x: Atom, shape: number[], params: Eqn['params']): Var => {
      const v: Var = { kind: 'var', id: nextId++, aval: { shape, dtype: 'float32' } };
      eqns.push({ prim, inputs: [x], outputs: [v], params, ...extra });
      return v;
    };
    const nb = dn.batch[0].length;
    const freeOf = (x: Atom, side: 0 | 1): number[] => x.aval.shape.map((_, d) => d).filter((d) => !dn.batch[side].includes(d) && !dn.contract[side].includes(d));
    const nFreeA = freeOf(a!, 0).length;
    /** The operand broadcast to the result: transposed to batch, free, contracting order, reshaped without the contracting dimensions. */
    const spread = (x: Atom, side: 0 | 1): Var => {
      const free = freeOf(x, side);
      const perm = [...dn.batch[side], ...free, ...dn.contract[side]];
      const kept = [...dn.batch[side], ...free].map((d) => x.aval.shape[d]!);
      let v: Atom = x;
      if (!perm.every((d, i) => d === i)) v = step('transpose', v, perm.map((d) => x.aval.shape[d]!), { permutation: perm });
      if (dn.contract[side].length) v = step('reshape', v, kept, { new_sizes: kept, dimensions: null });
      const dims = kept.map((_, i) => (i < nb || side === 0 ? i : i + nFreeA));
      return step('broadcast_in_dim', v, [...out.aval.shape], { shape: [...out.aval.shape], broadcast_dimensions: dims });
    };
    const lhs = spread(a!, 0);
    const rhs = spread(b!, 1);
    eqns.push({ prim: 'mul', inputs: [lhs, rhs], outputs: [out], params: {}, ...extra });
  }
  return { ...f, eqns };
}

/**
 * XLA's AlgebraicSimplifier turns a reduction whose reduced dimensions all have size 1 into a reshape:
 * `jnp.sum` of one element is that element (-0 stays -0; a sum from +0 gives +0), in jit and op by op.
 */
export function degenerateReduce(f: Func): Func {
  const eqns = f.eqns.map((e): Eqn => {
    const axes = e.params['axes'] as number[] | undefined;
    const x = e.inputs[0];
    if (e.prim !== 'reduce_sum' || !axes || x?.kind !== 'var' || !axes.every((d) => x.aval.shape[d] === 1)) return e;
    const shape = [...e.outputs[0]!.aval.shape];
    return { ...e, prim: 'reshape', params: { new_sizes: shape, dimensions: null } };
  });
  return { ...f, eqns };
}

/** The simplifications of a program XLA compiles whole (a jit or pmap body, a control-flow body). */
const simplifyCompiled = (f: Func): Func => dce(mulByPredicate(xlaAlgebraic(divByBroadcast(degenerateReduce(degenerateDot(dotToReduce(withSubFuncs(f, simplifyCompiled))))))));

/**
 * The simplifications a program gets before fusion. `whole`: XLA compiles it as one computation (jit, pmap),
 * so its algebraic rewrites span operations; a host segment is JAX's op-by-op execution, where only the
 * rewrites inside one jax.numpy function (divByBroadcast, mulByPredicate) happen, XLA's rewrites among
 * the equations of each jitted jax.numpy call (a jit region), and its control-flow bodies are compiled whole.
 */
export const simplify = (f: Func, whole = true): Func =>
  whole ? simplifyCompiled(f) : dce(mulByPredicate(xlaAlgebraicInRegions(divByBroadcast(degenerateReduce(degenerateDot(dotToReduce(withSubFuncs(f, simplifyCompiled))))))));
