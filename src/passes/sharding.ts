// Sharding propagation (GSPMD's, simplified): choose for every array of a
// global (one-device) Func how it is split over a device mesh.
//
// Each primitive's rule (DIM_RULES, keyed by primitive name) lists *links*
// between its operands' and results' dimensions that should be split the
// same way: elementwise dim d ↔ dim d, a dot's batch and free dims ↔ its
// result's, a reshape's corresponding dims, … plus *peer* links between two
// operands (a dot's contracting dims). Propagation then copies mesh axes
// along links until nothing changes:
//   Auto axes     — forward (operand → result) and backward (result →
//                   operand) passes to a fixed point; a dimension only ever
//                   goes from unsharded to sharded, never back, so it ends.
//                   Parameters the user placed (and forced results) never
//                   change. The first assignment wins a conflict; the SPMD
//                   partitioner (spmd.ts) reconciles by resharding.
//   Explicit axes — JAX's "sharding in types": one forward pass, a result's
//                   sharding computed from its operands', with JAX's errors
//                   for an ambiguous dot_general.
// An assignment is only made where it is valid: the dimension is divisible
// by the axes' total size and no axis is already used by another dimension
// of the same array.
import { CompileError } from '../common/diagnostics.js';
import type { ConvDims } from '../ir/conv.js';
import type { DotDims } from '../ir/primitives.js';
import { isElementwise, type StructuralPrim } from '../ir/prims.js';
import type { DimShardings, MeshShape } from '../ir/sharding.js';
import { axesSize, vmaUrStr } from '../ir/sharding.js';
import { shardMapParams, shardMaps, specDims } from '../ir/shard_map.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { windowKeeps } from './conv_rules.js';
import { dce } from './simplify.js';

/** One dimension of one Var. */
export interface DimRef {
  v: Var;
  d: number;
}

/** `src` (an operand's dim) and `dst` (a result's dim, or for `peer` another operand's) should match. */
export interface DimLink {
  src: DimRef;
  dst: DimRef;
  peer?: true;
}

export type DimRule = (e: Eqn) => DimLink[];

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const link = (a: Var, da: number, b: Var, db: number, peer = false): DimLink =>
  peer ? { src: { v: a, d: da }, dst: { v: b, d: db }, peer: true } : { src: { v: a, d: da }, dst: { v: b, d: db } };

/** Operand `i`'s dims ↔ every result's dims where `keep(d)`, dim for dim (same rank). */
function sameDims(e: Eqn, operands: number[], keep: (d: number) => boolean = () => true): DimLink[] {
  const out: DimLink[] = [];
  for (const i of operands) {
    const a = e.inputs[i];
    if (!a || a.kind !== 'var') continue;
    for (const o of e.outputs) {
      if (a.aval.shape.length !== o.aval.shape.length) continue;
      for (const d of range(o.aval.shape.length)) if (keep(d)) out.push(link(a, d, o, d));
    }
  }
  return out;
}

/**
 * A reshape's dimension groups: maximal runs of input and output dims (size-1
 * dims left out) whose sizes multiply to the same number. Within a group only
 * the major-most dims correspond (a split or merge keeps contiguous blocks
 * there); a 1:1 group is a plain correspondence.
 */
export function reshapeGroups(from: readonly number[], to: readonly number[]): { ins: number[]; outs: number[] }[] {
  const a = range(from.length).filter((i) => from[i] !== 1);
  const b = range(to.length).filter((i) => to[i] !== 1);
  const groups: { ins: number[]; outs: number[] }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const g = { ins: [a[i]!], outs: [b[j]!] };
    let pa = from[a[i++]!]!;
    let pb = to[b[j++]!]!;
    while (pa !== pb) {
      if (pa < pb) {
        if (i >= a.length) break;
        g.ins.push(a[i]!);
        pa *= from[a[i++]!]!;
      } else {
        if (j >= b.length) break;
        g.outs.push(b[j]!);
        pb *= to[b[j++]!]!;
      }
    }
    groups.push(g);
  }
  return groups;
}

function reduceLinks(e: Eqn): DimLink[] {
  const x = e.inputs[0]!;
  if (x.kind !== 'var') return [];
  const axes = e.params['axes'] as number[];
  const kept = range(x.aval.shape.length).filter((d) => !axes.includes(d));
  return kept.map((d, i) => link(x, d, e.outputs[0]!, i));
}

/** No links: iota and axis_index read no operand; a collective names its mesh axes itself, and propagation does not pass through it. */
const noLinks: DimRule = () => [];

/** Links per primitive; elementwise primitives all use `elementwiseLinks`. */
export const DIM_RULES: Record<StructuralPrim, DimRule> = {
  // its result's layout is fixed (propagateShardings), whatever the operand's
  sharding_constraint: noLinks,
  broadcast_in_dim: (e) => {
    const x = e.inputs[0]!;
    if (x.kind !== 'var') return [];
    const out = e.outputs[0]!;
    const dims = e.params['broadcast_dimensions'] as number[];
    // a size-1 dim broadcast to size n carries nothing
    return dims.flatMap((d, i) => (x.aval.shape[i] === out.aval.shape[d] ? [link(x, i, out, d)] : []));
  },
  reshape: (e) => {
    const x = e.inputs[0]!;
    if (x.kind !== 'var') return [];
    const out = e.outputs[0]!;
    return reshapeGroups(x.aval.shape, out.aval.shape).map((g) => link(x, g.ins[0]!, out, g.outs[0]!));
  },
  transpose: (e) => {
    const x = e.inputs[0]!;
    if (x.kind !== 'var') return [];
    const perm = e.params['permutation'] as number[];
    return perm.map((p, i) => link(x, p, e.outputs[0]!, i));
  },
  squeeze: (e) => {
    const x = e.inputs[0]!;
    if (x.kind !== 'var') return [];
    const r = x.aval.shape.length;
    const dims = (e.params['dimensions'] as number[]).map((d) => (d < 0 ? d + r : d));
    return range(r)
      .filter((d) => !dims.includes(d))
      .map((d, i) => link(x, d, e.outputs[0]!, i));
  },
  rev: (e) => sameDims(e, [0], (d) => !(e.params['dimensions'] as number[]).includes(d)),
  slice: (e) => sameDims(e, [0], (d) => sliceKeeps(e, d)),
  pad: (e) => sameDims(e, [0], (d) => (e.params['padding_config'] as [number, number, number][])[d]!.every((c) => c === 0)),
  dynamic_slice: (e) => sameDims(e, [0], (d) => (e.params['slice_sizes'] as number[])[d] === e.inputs[0]!.aval.shape[d]),
  concatenate: (e) => sameDims(e, range(e.inputs.length), (d) => d !== e.params['dimension']),
  argmax: reduceLinks,
  argmin: reduceLinks,
  dot_general: (e) => {
    const [l, r] = e.inputs;
    const out = e.outputs[0]!;
    const dn = e.params['dimension_numbers'] as DotDims;
    const { lfree, rfree } = dotFree(e);
    const nb = dn.batch[0].length;
    const links: DimLink[] = [];
    if (l!.kind === 'var') {
      dn.batch[0].forEach((d, k) => links.push(link(l as Var, d, out, k)));
      lfree.forEach((d, i) => links.push(link(l as Var, d, out, nb + i)));
    }
    if (r!.kind === 'var') {
      dn.batch[1].forEach((d, k) => links.push(link(r as Var, d, out, k)));
      rfree.forEach((d, i) => links.push(link(r as Var, d, out, nb + lfree.length + i)));
    }
    if (l!.kind === 'var' && r!.kind === 'var') dn.contract[0].forEach((d, k) => links.push(link(l as Var, d, r as Var, dn.contract[1][k]!, true)));
    return links;
  },
  // the batch dimension of lhs is the result's (rhs replicated, as JAX's sharding rule wants)
  conv_general_dilated: (e) => {
    const [l] = e.inputs;
    const dn = e.params['dimension_numbers'] as ConvDims;
    return l!.kind === 'var' && e.params['batch_group_count'] === 1 ? [link(l as Var, dn.lhs_spec[0]!, e.outputs[0]!, dn.out_spec[0]!)] : [];
  },
  reduce_window_sum: (e) => sameDims(e, [0], (d) => windowKeeps(e.params, d)),
  reduce_window_max: (e) => sameDims(e, [0], (d) => windowKeeps(e.params, d)),
  reduce_window_min: (e) => sameDims(e, [0], (d) => windowKeeps(e.params, d)),
  reduce_sum: reduceLinks,
  reduce_max: reduceLinks,
  reduce_min: reduceLinks,
  reduce_prod: reduceLinks,
  iota: noLinks,
  axis_index: noLinks,
  // indexing and sorting carry no layout through (computed on whole operands, as JAX replicates them by default)
  gather: noLinks,
  scatter: noLinks,
  scatter_add: noLinks,
  scatter_mul: noLinks,
  scatter_min: noLinks,
  scatter_max: noLinks,
  sort: noLinks,
  // never in a program (autodiff replaces them)
  custom_jvp_call: noLinks,
  custom_vjp_call: noLinks,
  cond: noLinks,
  while: noLinks,
  scan: noLinks,
  // its operands are resharded to its in_specs, its results laid out as its out_specs say (propagateShardings)
  shard_map: noLinks,
  psum: noLinks,
  pmax: noLinks,
  pmin: noLinks,
  all_gather: noLinks,
  psum_scatter: noLinks,
  ppermute: noLinks,
  all_to_all: noLinks,
};

/** Elementwise: every same-rank operand's dim d ↔ every result's dim d (a rank-0 operand has no dims). */
const elementwiseLinks: DimRule = (e) => sameDims(e, range(e.inputs.length));

export function linksOf(e: Eqn): DimLink[] {
  if (isElementwise(e.prim)) return elementwiseLinks(e);
  return DIM_RULES[e.prim](e);
}

/** Is dimension d of a slice's operand taken whole (start 0, full limit, stride 1)? */
export function sliceKeeps(e: Eqn, d: number): boolean {
  const start = e.params['start_indices'] as number[];
  const limit = e.params['limit_indices'] as number[];
  const strides = e.params['strides'] as number[] | null;
  return start[d] === 0 && limit[d] === e.inputs[0]!.aval.shape[d] && (!strides || strides[d] === 1);
}

/** A dot_general's free (neither batch nor contracting) dims of each operand. */
export function dotFree(e: Eqn): { lfree: number[]; rfree: number[] } {
  const dn = e.params['dimension_numbers'] as DotDims;
  const [l, r] = e.inputs;
  const free = (rank: number, c: number[], b: number[]): number[] => range(rank).filter((d) => !c.includes(d) && !b.includes(d));
  return { lfree: free(l!.aval.shape.length, dn.contract[0], dn.batch[0]), rfree: free(r!.aval.shape.length, dn.contract[1], dn.batch[1]) };
}

// ------------------------------------------------------------------ unreduced values

/** Primitives whose result stays unreduced when all their operands are, over the same axes (sums of partial sums, relabelings). */
const KEEPS_UNREDUCED = new Set<string>(['add', 'sub', 'add_any', 'neg', 'copy', 'convert_element_type', 'transpose', 'reshape', 'squeeze']);

/**
 * The mesh axes each value of `f` is unreduced over (JAX's unreduced types):
 * a dot_general's `out_sharding=P(..., unreduced=…)`, a jax.reshard to
 * `P(..., unreduced=…)`, parameters arriving so
 * (`ins`), passed on by KEEPS_UNREDUCED primitives; every other use adds the
 * partial sums up first (the partitioner's psum).
 */
export function unreducedTypes(f: Func, ins: readonly (readonly string[])[]): Map<number, readonly string[]> {
  const u = new Map<number, readonly string[]>();
  const reduced = reducedTypes(f);
  f.params.forEach((p, i) => {
    if (ins[i]?.length) u.set(p.id, ins[i]!);
  });
  const of = (a: Atom): readonly string[] => (a.kind === 'var' ? (u.get(a.id) ?? []) : []);
  const defs = new Map<number, Eqn>();
  for (const e of f.eqns) {
    for (const o of e.outputs) defs.set(o.id, e);
    let out: readonly string[] = [];
    if (e.prim === 'mul' && e.inputs.some((a) => of(a).length)) {
      // JAX's rule: a product with an unreduced operand needs the other reduced over those axes (jaxts tracks no reduced values inside)
      const [l, r] = e.inputs as [Atom, Atom];
      const side = of(l).length ? ['RHS', 'LHS'] : ['LHS', 'RHS'];
      // an operand jaxts broadcast (`u * 2.`) shows as JAX has it, unbroadcast
      const shown = (a: Atom): Atom => (a.kind === 'var' && defs.get(a.id)?.operandBroadcast ? defs.get(a.id)!.inputs[0]! : a);
      const type = (a: Atom): string => `${shown(a).aval.dtype}[${shown(a).aval.shape.join(',')}]${vmaUrStr({ unreduced: of(a) })}`;
      throw new CompileError(`ShardingTypeError: ${side[0]} should be reduced along the same axes ${side[1]} is unreduced on. Got lhs=${type(l)} and rhs=${type(r)}`, e.span ?? null);
    }
    if (e.prim === 'add' && !e.addAny && e.inputs.some((a) => of(a).length) && !e.inputs.every((a) => of(a).length)) {
      // JAX's _add_ur_rule: a sum of an unreduced value and a reduced one would need communication
      const [lhs, rhs] = of(e.inputs[0]!).length ? ['lhs', 'rhs'] : ['rhs', 'lhs'];
      throw new CompileError(`ShardingTypeError: ${lhs} is unreduced while ${rhs} is not. \`add\` operation does not allow this because there will be implicit communication. Please reduce ${lhs} via \`reshard\` before calling \`add\`.`, e.span ?? null);
    }
    if (isElementwise(e.prim) && !KEEPS_UNREDUCED.has(e.prim) && e.inputs.some((a) => of(a).length)) {
      // JAX has an unreduced rule only for sums, relabelings and products with a reduced operand
      throw new CompileError(`NotImplementedError: unreduced rule for ${e.prim} is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues`, e.span ?? null);
    }
    // the cotangent of a value reduced over mesh axes is unreduced over them
    if (e.prim === 'dot_general') out = e.outUnreduced ?? (e.cotangentOf ? (reduced.get(e.cotangentOf.id) ?? []) : []);
    else if (e.prim === 'sharding_constraint') out = (e.params['unreduced'] as readonly string[] | undefined) ?? [];
    else if (KEEPS_UNREDUCED.has(e.prim) && e.inputs.every((a) => a.kind === 'var')) {
      const first = of(e.inputs[0]!);
      if (first.length && e.inputs.every((a) => of(a).join() === first.join())) out = first;
    }
    if (out.length) for (const o of e.outputs) u.set(o.id, out);
  }
  return u;
}

/** The mesh axes each value of `f` is reduced over (JAX's `{R:X}` types): a jax.reshard to `P(..., reduced={…})`. */
export function reducedTypes(f: Func): Map<number, readonly string[]> {
  const r = new Map<number, readonly string[]>();
  for (const e of f.eqns) {
    const axes = e.prim === 'sharding_constraint' ? (e.params['reduced'] as readonly string[] | undefined) : undefined;
    if (axes?.length) r.set(e.outputs[0]!.id, axes);
  }
  return r;
}

/** The mesh axes each result of `f` leaves unreduced over. */
export function unreducedResults(f: Func, ins: readonly (readonly string[])[]): (readonly string[])[] {
  const u = unreducedTypes(f, ins);
  return f.results.map((r) => (r.kind === 'var' ? (u.get(r.id) ?? []) : []));
}

// ------------------------------------------------------------------ the pass

/** Python's repr of a PartitionSpec-like tuple: `('dp',)`, `(None, ('a', 'b'))`. */
export function specRepr(dims: readonly (readonly string[])[]): string {
  const one = (ax: readonly string[]): string =>
    !ax.length ? 'None' : ax.length === 1 ? `'${ax[0]}'` : `(${ax.map((a) => `'${a}'`).join(', ')})`;
  return `(${dims.map(one).join(', ')}${dims.length === 1 ? ',' : ''})`;
}

class State {
  readonly sh = new Map<number, string[][]>();
  readonly fixed = new Set<number>();
  changed = false;

  constructor(readonly mesh: MeshShape) {}

  dims(v: Var): string[][] {
    let s = this.sh.get(v.id);
    if (!s) this.sh.set(v.id, (s = v.aval.shape.map(() => [])));
    return s;
  }

  fix(v: Var, dims: DimShardings): void {
    this.sh.set(
      v.id,
      v.aval.shape.map((_, d) => [...(dims[d] ?? [])]),
    );
    this.fixed.add(v.id);
  }

  /** Give dim `r.d` the axes `axes` if it is unsharded, not fixed, and the result is valid. */
  assign(r: DimRef, axes: readonly string[], forbidden?: ReadonlySet<string>): void {
    if (!axes.length || this.fixed.has(r.v.id)) return;
    const s = this.dims(r.v);
    if (s[r.d]!.length) return;
    if (forbidden && axes.some((a) => forbidden.has(a))) return;
    if (s.some((ax) => ax.some((a) => axes.includes(a)))) return;
    if (r.v.aval.shape[r.d]! % axesSize(this.mesh, axes) !== 0) return;
    s[r.d] = [...axes];
    this.changed = true;
  }

  copy(from: DimRef, to: DimRef, forbidden?: ReadonlySet<string>): void {
    this.assign(to, this.dims(from.v)[from.d]!, forbidden);
  }
}

/**
 * The sharding of every Var of `global` (params, equation outputs) on `mesh`.
 * `inShardings[i]` null: parameter i is free. `outShardings[i]` non-null:
 * result i is forced to that layout (Auto mode propagates it backward).
 */
export function propagateShardings(
  global: Func,
  mesh: MeshShape,
  inShardings: (DimShardings | null)[],
  outShardings: (DimShardings | null)[] = [],
): Map<number, DimShardings> {
  const st = new State(mesh);
  global.params.forEach((p, i) => {
    const s = inShardings[i];
    if (s) st.fix(p, s);
    else if (mesh.explicit) st.fix(p, p.aval.shape.map(() => []));
    else st.dims(p);
  });
  // a sharding constraint's result is laid out as it says (Auto and Explicit axes alike)
  for (const e of global.eqns) if (e.prim === 'sharding_constraint') st.fix(e.outputs[0]!, e.params['dims'] as DimShardings);
  // so is a shard_map's, as its out_specs say
  for (const e of shardMaps(global)) e.outputs.forEach((o, j) => st.fix(o, specDims(shardMapParams(e.params).out_specs[j] ?? [], o.aval.shape.length)));
  if (mesh.explicit) {
    for (const e of global.eqns) explicitStep(st, e);
  } else {
    global.results.forEach((r, i) => {
      const s = outShardings[i];
      if (s && r.kind === 'var' && !st.fixed.has(r.id)) st.fix(r, s);
    });
    // dead equations constrain nothing (the partitioner sees the program after dead-code elimination)
    const links = dce(global).eqns.map(linksOf);
    do {
      st.changed = false;
      for (const ls of links) {
        for (const l of ls) {
          st.copy(l.src, l.dst);
          if (l.peer) st.copy(l.dst, l.src);
        }
      }
      for (let i = links.length - 1; i >= 0; i--) {
        const ls = links[i]!;
        for (let j = ls.length - 1; j >= 0; j--) {
          const l = ls[j]!;
          st.copy(l.dst, l.src);
          if (l.peer) st.copy(l.src, l.dst);
        }
      }
    } while (st.changed);
  }
  const out = new Map<number, DimShardings>();
  for (const p of global.params) out.set(p.id, st.dims(p));
  for (const e of global.eqns) for (const o of e.outputs) out.set(o.id, st.dims(o));
  return out;
}

const SHORT_DTYPES: Record<string, string> = { float32: 'f32', float64: 'f64', int32: 'i32', int64: 'i64', uint32: 'u32', bool: 'bool' };

/** `i32[4@X,4]`: JAX's short aval notation (core.str_short_aval with short dtypes). */
function shortAval(dtype: string, shape: readonly number[], dims: readonly (readonly string[])[]): string {
  const parts = shape.map((n, d) => {
    const ax = dims[d] ?? [];
    return ax.length === 0 ? String(n) : ax.length === 1 ? `${n}@${ax[0]}` : `${n}@(${ax.join(',')})`;
  });
  return `${SHORT_DTYPES[dtype] ?? dtype}[${parts.join(',')}]`;
}

/**
 * JAX's broadcasting_sharding_rule for an elementwise primitive over Explicit
 * axes: operands that split a dimension differently are an error, and so is a
 * result that would use one mesh axis twice.
 */
function checkBroadcastSharding(st: State, e: Eqn): void {
  const ops = e.inputs.filter((a) => a.aval.shape.length > 0);
  if (ops.length < 2) return;
  const rank = ops[0]!.aval.shape.length;
  if (ops.some((a) => a.aval.shape.length !== rank)) return;
  const specs = ops.map((a) => (a.kind === 'var' ? st.dims(a) : a.aval.shape.map(() => [])));
  const key = (d: readonly string[]): string => d.join(',');
  const entry = (d: readonly string[]): string => (d.length === 0 ? 'None' : d.length === 1 ? `'${d[0]}'` : `(${d.map((x) => `'${x}'`).join(', ')})`);
  const result: (readonly string[])[] = [];
  for (let i = 0; i < rank; i++) {
    const ss = specs.map((s) => s[i]!);
    if (ss.every((x) => key(x) === key(ss[0]!))) {
      result.push(ss[0]!);
      continue;
    }
    const nonTrivial = ss.filter((x, j) => !(ops[j]!.aval.shape[i] === 1 && x.length === 0));
    if (!nonTrivial.length) result.push([]);
    else if (nonTrivial.every((x) => key(x) === key(nonTrivial[0]!))) result.push(nonTrivial[0]!);
    else {
      const set = ss.filter((x) => x.length > 0);
      if (set.some((x) => key(x) !== key(set[0]!))) {
        const tuple = (s: readonly (readonly string[])[]): string => `(${s.map(entry).join(', ')}${s.length === 1 ? ',' : ''})`;
        throw new CompileError(`ShardingTypeError: ${e.prim} got incompatible shardings for broadcasting: ${specs.map(tuple).join(', ')}.`, e.span ?? null);
      }
      result.push(set[0] ?? []);
    }
  }
  const used = result.flat();
  if (new Set(used).size !== used.length) {
    const out = e.outputs[0]!;
    throw new CompileError(
      `ShardingTypeError: ${e.prim} operation with inputs: ${e.inputs.map((a, j) => shortAval(a.aval.dtype, a.aval.shape, a.kind === 'var' ? st.dims(a) : [])).join(', ')} produces an illegally sharded result: ${shortAval(out.aval.dtype, out.aval.shape, result)}`,
      e.span ?? null,
    );
  }
}

/** Explicit axes: a result's sharding from its operands' (JAX's sharding rules), checked like JAX. */
function explicitStep(st: State, e: Eqn): void {
  const links = linksOf(e);
  let forbidden: Set<string> | undefined;
  if (isElementwise(e.prim) && !e.transposed) checkBroadcastSharding(st, e);
  const like = e.shardingLike && st.sh.get(e.shardingLike.id);
  if (like && like.length === e.outputs[0]!.aval.shape.length) {
    // autodiff's broadcast of a reduction's cotangent: laid out as the reduction's operand (JAX's out_sharding)
    st.fix(e.outputs[0]!, like);
    return;
  }
  if (e.prim === 'dot_general' && e.outSharding) {
    // out_sharding given: the result is laid out as it says, whatever the operands' contracting axes
    st.fix(e.outputs[0]!, e.outSharding);
    return;
  }
  if (e.prim === 'dot_general') {
    const [l, r] = e.inputs;
    const dn = e.params['dimension_numbers'] as DotDims;
    const spec = (a: Atom, ds: number[]): string[][] => ds.map((d) => (a.kind === 'var' ? st.dims(a)[d]! : []));
    const lb = spec(l!, dn.batch[0]);
    const rb = spec(r!, dn.batch[1]);
    const lc = spec(l!, dn.contract[0]);
    const rc = spec(r!, dn.contract[1]);
    const differ = (x: string[][], y: string[][]): boolean =>
      x.some((a, i) => a.length > 0 && y[i]!.length > 0 && (a.length !== y[i]!.length || a.some((n, j) => n !== y[i]![j])));
    if (differ(lb, rb)) {
      throw new CompileError(
        `ShardingTypeError: dot_general requires lhs batch dimensions and rhs batch dimensions to have the consistent sharding, got ${specRepr(lb)} and ${specRepr(rb)}.`,
        e.span ?? null,
      );
    }
    if (!e.transposed) {
      if (differ(lc, rc)) {
        throw new CompileError(
          `ShardingTypeError: dot_general requires contracting dimensions to have consistent sharding, got ${specRepr(lc)} and ${specRepr(rc)}.`,
          e.span ?? null,
        );
      }
      if (lc.some((a, i) => a.length > 0 && rc[i]!.length > 0)) {
        throw new CompileError(
          'ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter.' +
            ` Got lhs_contracting_spec=${specRepr(lc)} and rhs_contracting_spec=${specRepr(rc)}`,
          e.span ?? null,
        );
      }
    } else {
      // autodiff's transposed dot (out_sharding = the primal's): unsharded on the contracting axes
      forbidden = new Set([...lc.flat(), ...rc.flat()]);
    }
  }
  for (const l of links) if (!l.peer) st.copy(l.src, l.dst, forbidden);
  for (const o of e.outputs) st.fixed.add(o.id);
}
