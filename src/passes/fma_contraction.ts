// Fused multiply-adds where XLA's CPU code has them. LLVM compiles XLA's
// fused loops with floating-point contraction on, so an add or subtract of a
// float32 multiply (or integer_pow, which XLA lowers to multiplies) that
// nothing else uses, in the same loop, becomes one fused multiply-add,
// rounded once. Measured on JAX 0.10.2 (fixtures/reference/xla_jit_rewrites):
// `jit(lambda a, b, c: a * b + c)` equals the correctly rounded fma(a, b, c)
// on every element and differs from the rounded product plus c on a quarter
// of them; an SGD step `p - lr * g` is fma(-lr, g, p); `x.sum(0) * c + b` is
// contracted; a product reaching the add through a broadcast
// (`m + (v * w)[None]`, `x - x.mean(0)`) is not: XLA does not fuse it into the
// larger loop. For `u*v + x*y` LLVM's combiner fuses the left product.
// A float32 sum over major axes (the last axis kept) of such a product is
// XLA's loop over rows adding into an accumulator: each step is contracted
// (`jnp.sum(u * v, axis=0)`, the column sums in std/var; reduce_sum's `fma`).
// The mark is the add's `fma` parameter ('a' or 'b': the operand fused); the
// kernel renderers (src/codegen/kernel_walker.ts) spell it. Host segments
// (JAX's op-by-op execution) are marked only inside control-flow bodies,
// which JAX compiles whole even outside jit, and inside jit regions (the
// calls of jax.numpy functions that JAX compiles with jit; Eqn.jitRegion).
import { withSubFuncs } from '../ir/subfuncs.js';
import { sameShape, type Atom, type Eqn, type Func } from '../ir/types.js';

/**
 * `f` with its contractible adds and subtracts marked, control-flow bodies included. `regions`: only
 * where the add and its product are in the same jit region (a jitted jax.numpy call in a host segment).
 */
export function markFma(f: Func, regions = false): Func {
  const g = regions ? f : withSubFuncs(f, (b) => markFma(b));
  // uses counted per distinct value, as XLA sees them after its CSE (`(a*b + c) * (a*b)` multiplies once)
  const canon = new Map<number, number>();
  const byKey = new Map<string, number>();
  const id = (a: Atom): string => (a.kind === 'var' ? `v${canon.get(a.id) ?? a.id}` : `l${a.value}:${a.aval.dtype}`);
  for (const e of g.eqns) {
    // only products are ever fused: only they need their uses counted after CSE
    if (e.prim !== 'mul' && e.prim !== 'integer_pow') continue;
    const key = `${e.prim}(${e.inputs.map(id).join(',')})${JSON.stringify(e.params)}`;
    const first = byKey.get(key);
    if (first === undefined) byKey.set(key, e.outputs[0]!.id);
    else canon.set(e.outputs[0]!.id, first);
  }
  const uses = new Map<number, number>();
  const use = (a: Atom): void => {
    if (a.kind !== 'var') return;
    const c = canon.get(a.id) ?? a.id;
    uses.set(c, (uses.get(c) ?? 0) + 1);
  };
  g.eqns.forEach((e) => e.inputs.forEach(use));
  g.results.forEach(use);
  const producer = new Map<number, Eqn>();
  for (const e of g.eqns) for (const o of e.outputs) producer.set(o.id, e);
  const product = (a: Atom, out: Atom): boolean => {
    if (a.kind !== 'var' || uses.get(canon.get(a.id) ?? a.id) !== 1 || !sameShape(a.aval.shape, out.aval.shape)) return false;
    const p = producer.get(a.id);
    if (regions && (p?.jitRegion === undefined || p.jitRegion !== region)) return false;
    return p !== undefined && a.aval.dtype === 'float32' && (p.prim === 'mul' || (p.prim === 'integer_pow' && Number(p.params['y']) >= 2));
  };
  // LLVM's rank of a value in the fused loop: inputs and broadcast scalars (hoisted out of the loop) 0,
  // each arithmetic operation one more than its highest operand; casts, negations and layout ops add none
  const ranks = new Map<number, number>();
  const rank = (a: Atom): number => (a.kind === 'var' ? (ranks.get(a.id) ?? 0) : 0);
  for (const e of g.eqns) {
    if (e.outputs.length !== 1) continue;
    const top = Math.max(0, ...e.inputs.map(rank));
    const free = e.prim === 'convert_element_type' || e.prim === 'neg' || e.prim === 'reshape' || (e.prim === 'broadcast_in_dim' && e.inputs[0]!.aval.shape.length > 0);
    const arith = e.prim === 'add' || e.prim === 'sub' || e.prim === 'mul' || e.prim === 'div' || e.prim === 'integer_pow' || e.prim === 'max' || e.prim === 'min';
    ranks.set(e.outputs[0]!.id, free ? top : arith ? top + 1 : 0);
  }
  let changed = false;
  let region: number | undefined;
  const eqns = g.eqns.map((e) => {
    if (e.prim === 'reduce_sum' && e.outputs[0]!.aval.dtype === 'float32') {
      // a sum over major axes only (the last axis kept): XLA's loop adds each row's product into the accumulator
      region = e.jitRegion;
      const x = e.inputs[0]!;
      const axes = e.params['axes'] as number[];
      if (!axes.length || axes.includes(x.aval.shape.length - 1) || !product(x, x)) return e;
      changed = true;
      return { ...e, params: { ...e.params, fma: true } };
    }
    if ((e.prim !== 'add' && e.prim !== 'sub') || e.outputs[0]!.aval.dtype !== 'float32') return e;
    region = e.jitRegion;
    const [a, b] = e.inputs as [Atom, Atom];
    const out = e.outputs[0]!;
    // of two products LLVM fuses the one of lower rank (its Reassociate pass puts it first), the left on a tie
    const fma = product(a, out) && (!product(b, out) || rank(a) <= rank(b)) ? 'a' : product(b, out) ? 'b' : undefined;
    if (!fma) return e;
    changed = true;
    return { ...e, params: { ...e.params, fma } };
  });
  return changed ? { ...g, eqns } : g;
}

/** A host segment: its control-flow bodies and its jit regions (jitted jax.numpy calls) are compiled whole. */
export const markFmaInBodies = (f: Func): Func => {
  const g = withSubFuncs(f, (b) => markFma(b));
  return g.eqns.some((e) => e.jitRegion !== undefined) ? markFma(g, true) : g;
};
