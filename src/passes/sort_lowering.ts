// Sort lowering: before fusion, each `sort` becomes primitives a kernel
// computes. Every element's rank along the sorted dimension counts the
// elements ordered before it (keys compared lexicographically in XLA's
// total order after JAX's canonicalisation: -0.0 equals 0.0, every NaN is a
// positive NaN and sorts last; ties broken by position, so the sort is
// stable). The inverse permutation then comes from one more count, and each
// operand is gathered through it: O(n) work per element and no element of a
// rank recomputed (fusion materialises the counts).
import { FuncBuilder, lit } from '../ir/builder.js';
import type { Atom, DType, Eqn, Func, Var } from '../ir/types.js';

export function lowerSorts(f: Func): Func {
  if (!f.eqns.some((e) => e.prim === 'sort')) return f;
  const b = new FuncBuilder(f.name);
  const env = new Map<number, Atom>();
  for (const p of f.params) env.set(p.id, b.addParam(p.aval, p.hint));
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  for (const e of f.eqns) {
    const ins = e.inputs.map(read);
    const outs = e.prim === 'sort' ? lowerSort(b, e, ins) : b.bind(e.prim, ins, e.params, e.span);
    e.outputs.forEach((o: Var, i) => env.set(o.id, outs[i]!));
  }
  return b.finish(f.results.map(read), f.axisEnv);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function lowerSort(b: FuncBuilder, e: Eqn, xs: Atom[]): Atom[] {
  const shape = [...xs[0]!.aval.shape];
  const r = shape.length;
  const dim = e.params['dimension'] as number;
  const numKeys = e.params['num_keys'] as number;
  const n = shape[dim]!;
  // an empty operand is its own sort (a size-0 gather has no valid slice)
  if (shape.includes(0)) return xs;
  const bind = (prim: Parameters<FuncBuilder['bind1']>[0], ins: Atom[], params: Record<string, unknown> = {}): Atom => b.bind1(prim, ins, params, e.span);
  const full = (v: number, dtype: DType, s: number[]): Atom => bind('broadcast_in_dim', [lit(v, dtype)], { shape: s, broadcast_dimensions: [] });
  const pair = [...shape, n];
  // element j of the row at [..., k]: `here` varies with j (dimension dim), `there` with k (the last dimension)
  const here = (a: Atom): Atom => bind('broadcast_in_dim', [a], { shape: pair, broadcast_dimensions: range(r) });
  const there = (a: Atom): Atom => bind('broadcast_in_dim', [a], { shape: pair, broadcast_dimensions: range(r).map((d) => (d === dim ? r : d)) });

  // k before j: keys of k less than j's, lexicographically, ties by position
  const posJ = bind('iota', [], { dtype: 'int32', shape: pair, dimension: dim, sharding: null });
  const posK = bind('iota', [], { dtype: 'int32', shape: pair, dimension: r, sharding: null });
  let before = bind('lt', [posK, posJ]);
  for (let i = numKeys - 1; i >= 0; i--) {
    const key = totalOrderKey(bind, full, xs[i]!);
    const kj = here(key);
    const kk = there(key);
    before = bind('or', [bind('lt', [kk, kj]), bind('and', [bind('eq', [kk, kj]), before])]);
  }
  const rank = bind('reduce_sum', [bind('convert_element_type', [before], { new_dtype: 'int32', weak_type: false })], { axes: [r], out_sharding: null });
  // perm[i] = the position whose rank is i
  const hit = bind('eq', [there(rank), posJ]);
  const perm = bind('reduce_sum', [bind('select_n', [hit, full(0, 'int32', pair), posK])], { axes: [r], out_sharding: null });
  const cols = range(r).map((d) => bind('broadcast_in_dim', [d === dim ? perm : bind('iota', [], { dtype: 'int32', shape, dimension: d, sharding: null })], { shape: [...shape, 1], broadcast_dimensions: range(r) }));
  const indices = cols.length === 1 ? cols[0]! : bind('concatenate', cols, { dimension: r });
  const params = {
    dimension_numbers: { offset_dims: [], collapsed_slice_dims: range(r), start_index_map: range(r), operand_batching_dims: [], start_indices_batching_dims: [] },
    slice_sizes: shape.map(() => 1),
    indices_are_sorted: false,
    unique_indices: true,
    mode: 'promise_in_bounds',
    fill_value: null,
  };
  return xs.map((x) => bind('gather', [x, indices], params));
}

/** An int32 (or uint32) key whose order is XLA's total order of `x` after JAX's _canonicalize_float_for_sort. */
function totalOrderKey(
  bind: (prim: 'eq' | 'ne' | 'lt' | 'select_n' | 'bitcast_convert_type' | 'xor' | 'convert_element_type', ins: Atom[], params?: Record<string, unknown>) => Atom,
  full: (v: number, dtype: DType, s: number[]) => Atom,
  x: Atom,
): Atom {
  const s = [...x.aval.shape];
  const t = x.aval.dtype;
  if (t === 'int32' || t === 'uint32') return x;
  if (t === 'bool') return bind('convert_element_type', [x], { new_dtype: 'int32', weak_type: false });
  // -0.0 → 0.0, every NaN → the positive quiet NaN
  let c = bind('select_n', [bind('eq', [x, full(0, t, s)]), x, full(0, t, s)]);
  c = bind('select_n', [bind('ne', [x, x]), c, full(NaN, t, s)]);
  const bits = bind('bitcast_convert_type', [c], { new_dtype: 'int32' });
  // negative floats: larger magnitude orders first
  const flipped = bind('xor', [bits, full(0x7fffffff, 'int32', s)]);
  return bind('select_n', [bind('lt', [bits, full(0, 'int32', s)]), bits, flipped]);
}
