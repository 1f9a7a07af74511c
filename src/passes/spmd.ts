// SPMD partitioning (GSPMD's): from a global (one-device) Func and the
// shardings chosen by propagation (sharding.ts), the per-device ("local")
// Func every device of the mesh runs, with local shapes and the collectives
// inserted.
//
// The global equations are walked in order. Every global Var has a local
// value: its block in some sharding, possibly with a pending partial sum over
// some mesh axes (after a local dot or reduce_sum over a sharded dimension).
// Each rule (PARTITION_RULES, keyed by primitive name) asks for its operands
// in the layouts it needs; `reshard` gets them there:
//   pending partial sum  → psum, or psum_scatter when the wanted layout
//                          splits a dimension over exactly those axes
//   axes moved between dims → all_to_all
//   sharded → less sharded → all_gather
//   more sharded         → dynamic_slice at axis_index · block (no communication)
// A partial sum is resolved where it is first needed, as XLA all-reduces a
// dot's or reduce's result (only movement primitives, neg and float
// conversions, which give the same floats either way, pass it through).
// Afterwards the all-reduce combiner merges independent psums over the same
// axes into one multi-operand psum (XLA's AllReduceCombiner), moving what
// depends on the earlier one after it; then dead code goes.
import { FuncBuilder, lit } from '../ir/builder.js';
import type { ConvDims } from '../ir/conv.js';
import type { DotDims } from '../ir/primitives.js';
import { isElementwise, type Prim, PRIMS, type StructuralPrim } from '../ir/prims.js';
import { printFunc } from '../ir/printer.js';
import { shardMapParams, specDims } from '../ir/shard_map.js';
import { mapSubFuncs, subFuncs } from '../ir/subfuncs.js';
import type { DimShardings, MeshShape, SpmdProgram } from '../ir/sharding.js';
import { axesSize, localShape, replicaGroups, replicated, sameShardings, shardedTypeStr } from '../ir/sharding.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { isFloat, shortDtype } from '../ir/types.js';
import { dotFree, propagateShardings, reshapeGroups, sliceKeeps, unreducedTypes } from './sharding.js';
import { windowKeeps } from './conv_rules.js';
import { dce } from './simplify.js';

/** A global value on every device: its local block, the block's sharding, and a pending sum over `partial` axes. */
interface LVal {
  atom: Atom;
  dims: DimShardings;
  /** Mesh axes (in mesh order) over which the blocks still have to be summed. */
  partial: readonly string[];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const isPrefix = (p: readonly string[], of: readonly string[]): boolean => p.length <= of.length && p.every((a, i) => of[i] === a);
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => b[i] === x);
const key = (dims: DimShardings): string => dims.map((d) => d.join('+')).join(',');
/** `dims` with the axes in `drop` removed. */
const without = (dims: DimShardings, drop: readonly string[]): DimShardings => dims.map((d) => d.filter((a) => !drop.includes(a)));

/** The context a partitioning rule works in. */
interface Ctx {
  e: Eqn;
  /** The chosen sharding of each output. */
  out: DimShardings[];
  /** Operand i's local value as it is now. */
  val(i: number): LVal;
  /** Operand i in sharding `dims` (partial sums resolved unless `keepPartial` and compatible). */
  get(i: number, dims: DimShardings, keepPartial?: boolean): LVal;
  bind(prim: Prim, inputs: Atom[], params?: Eqn['params']): Var[];
  p: Partitioner;
  /** The result's type is unreduced (sharding.ts unreducedTypes): its operands' partial sums pass on. */
  unreduced?: true;
}

type PartitionRule = (c: Ctx) => LVal[];

class Partitioner {
  readonly b: FuncBuilder;
  private readonly vals = new Map<number, LVal>();
  private readonly cache = new Map<string, LVal>();
  private readonly offsets = new Map<string, Atom>();
  /** Values that are a broadcast of a scalar: made again in any layout instead of being resharded. */
  private readonly splats = new Map<number, { scalar: Atom; params: Eqn['params'] }>();

  constructor(
    readonly mesh: MeshShape,
    name: string,
  ) {
    this.b = new FuncBuilder(name);
  }

  setVal(v: Var, x: LVal): void {
    this.vals.set(v.id, x);
  }

  val(a: Atom): LVal {
    if (a.kind === 'lit') return { atom: a, dims: [], partial: [] };
    const x = this.vals.get(a.id);
    if (!x) throw new Error(`internal: spmd: no local value for var ${a.id}`);
    return x;
  }

  setSplat(v: Var, scalar: Atom, params: Eqn['params']): void {
    this.splats.set(v.id, { scalar, params });
  }

  /** The global value `a` in sharding `dims`, memoised so a value read twice is resharded once. */
  get(a: Atom, dims: DimShardings, keepPartial = false): LVal {
    const x = this.val(a);
    if (a.kind === 'lit') return x;
    const keep = keepPartial && x.partial.length > 0;
    const k = `${a.id}|${key(dims)}|${keep}`;
    let r = this.cache.get(k);
    if (!r) {
      const splat = this.splats.get(a.id);
      if (splat && !x.partial.length && !sameShardings(x.dims, dims)) {
        const shape = localShape(a.aval.shape, dims, this.mesh);
        r = { atom: this.b.bind1('broadcast_in_dim', [splat.scalar], { ...splat.params, shape }), dims, partial: [] };
      } else {
        r = this.reshard(x, dims, keep);
      }
      this.cache.set(k, r);
    }
    return r;
  }

  private axes(names: readonly string[]): { axis_size: number } {
    return { axis_size: axesSize(this.mesh, names) };
  }

  /** Mesh axes in mesh order. */
  meshOrder(names: Iterable<string>): string[] {
    const s = new Set(names);
    return this.mesh.axes.map((a) => a.name).filter((n) => s.has(n));
  }

  /** axis_index over `names` times `block`: where this device's block starts (i32, emitted once per function). */
  offset(names: readonly string[], block: number): Atom {
    const k = `${names.join(',')}*${block}`;
    let v = this.offsets.get(k);
    if (!v) {
      const ix = this.offsets.get(names.join(',')) ?? this.b.bind1('axis_index', [], { axis_name: [...names] });
      this.offsets.set(names.join(','), ix);
      v = block === 1 ? ix : this.b.bind1('mul', [ix, lit(block, 'int32')]);
      this.offsets.set(k, v);
    }
    return v;
  }

  /** Throws unless `dims` is a valid sharding of `shape`: one entry per dim, each dim divisible, no axis twice. */
  checkValid(dims: DimShardings, shape: readonly number[]): void {
    if (dims.length !== shape.length) throw new Error(`internal: spmd: sharding ${key(dims)} has rank ${dims.length}, the array ${shape.length}`);
    const seen = new Set<string>();
    dims.forEach((ax, d) => {
      for (const a of ax) {
        if (seen.has(a)) throw new Error(`internal: spmd: mesh axis '${a}' used twice in ${key(dims)}`);
        seen.add(a);
      }
      if (shape[d]! % axesSize(this.mesh, ax) !== 0) throw new Error(`internal: spmd: dimension ${d} of size ${shape[d]} cannot be split over ${ax.join(',')}`);
    });
  }

  /** Move a local value to sharding `target` (see the header for the steps). */
  reshard(x: LVal, target: DimShardings, keepPartial: boolean): LVal {
    const rank = x.atom.aval.shape.length;
    if (target.length !== rank) throw new Error(`internal: spmd: sharding of rank ${target.length} for a rank-${rank} value`);
    const globalShape = x.atom.aval.shape.map((s, d) => s * axesSize(this.mesh, x.dims[d]!));
    this.checkValid(target, globalShape);
    let atom = x.atom;
    const cur: string[][] = x.dims.map((d) => [...d]);
    let partial = [...x.partial];
    const used = new Set(target.flat());
    if (partial.length && (!keepPartial || partial.some((a) => used.has(a)))) {
      // reduce-scatter when the target splits a dimension over exactly the pending axes
      const d = range(rank).find((i) => {
        const t = target[i]!;
        if (!isPrefix(cur[i]!, t)) return false;
        const extra = t.slice(cur[i]!.length);
        return extra.length === partial.length && extra.every((a) => partial.includes(a));
      });
      if (d !== undefined) {
        const names = target[d]!.slice(cur[d]!.length);
        atom = this.b.bind1('psum_scatter', [atom], { axis_name: names, ...this.axes(names), scatter_dimension: d, tiled: true });
        cur[d] = [...target[d]!];
      } else {
        atom = this.b.bind1('psum', [atom], { axes: partial, ...this.axes(partial) });
      }
      partial = [];
    }
    // all_to_all: the minor axes X of dim i move to the minor end of dim j
    for (let moved = true; moved; ) {
      moved = false;
      for (let i = 0; i < rank && !moved; i++) {
        if (!isPrefix(target[i]!, cur[i]!) || target[i]!.length === cur[i]!.length) continue;
        const xs = cur[i]!.slice(target[i]!.length);
        for (let j = 0; j < rank; j++) {
          if (j === i || !isPrefix(cur[j]!, target[j]!) || !sameList(target[j]!.slice(cur[j]!.length), xs)) continue;
          atom = this.b.bind1('all_to_all', [atom], { axis_name: xs, ...this.axes(xs), split_axis: j, concat_axis: i, tiled: true });
          cur[i] = [...target[i]!];
          cur[j] = [...target[j]!];
          moved = true;
          break;
        }
      }
    }
    // all_gather the axes a dimension must lose
    for (let d = 0; d < rank; d++) {
      if (isPrefix(cur[d]!, target[d]!)) continue;
      let k = 0;
      while (k < cur[d]!.length && cur[d]![k] === target[d]![k]) k++;
      const names = cur[d]!.slice(k);
      atom = this.b.bind1('all_gather', [atom], { axis_name: names, ...this.axes(names), all_gather_dimension: d, tiled: true });
      cur[d] = cur[d]!.slice(0, k);
    }
    // dynamic_slice the axes a dimension must gain
    const extra = range(rank).filter((d) => target[d]!.length > cur[d]!.length);
    if (extra.length) {
      const sizes = localShape(globalShape, target, this.mesh);
      const starts = range(rank).map((d): Atom => {
        if (!extra.includes(d)) return lit(0, 'int32');
        return this.offset(target[d]!.slice(cur[d]!.length), sizes[d]!);
      });
      atom = this.b.bind1('dynamic_slice', [atom, ...starts], { slice_sizes: sizes });
    }
    return { atom, dims: target, partial };
  }
}

// ------------------------------------------------------------------ rules

/**
 * Elementwise primitives a pending partial sum passes through: given which
 * operands are partial, may the result stay partial? Only where that gives
 * the very same floats (XLA all-reduces a dot's or reduce's result before any
 * arithmetic on it; psum(a) * b and psum(a * b) round differently).
 * Only elementwise primitives reach this table. Default (no entry): the
 * partial sum is resolved first; test/ir/rule_tables.test.ts lists the
 * elementwise primitives taking it.
 */
export const LINEAR: Partial<Record<Prim, (partial: boolean[], e: Eqn) => boolean>> = {
  neg: () => true,
  copy: () => true,
  pvary: () => true,
  convert_element_type: (_p, e) => isFloat(e.inputs[0]!.aval.dtype) && isFloat(e.outputs[0]!.aval.dtype),
};

/** The pending axes shared by the partial operands, if the result may stay partial. */
function passPartial(c: Ctx, operands: number[]): string[] | null {
  const vals = operands.map((i) => c.val(i));
  const isP = vals.map((v) => v.partial.length > 0);
  if (!isP.some((x) => x)) return null;
  const rule = LINEAR[c.e.prim];
  if (!c.unreduced && (!rule || !rule(isP, c.e))) return null;
  const first = vals.find((v) => v.partial.length)!.partial;
  if (!vals.every((v) => !v.partial.length || sameList(v.partial, first))) return null;
  return [...first];
}

const elementwise: PartitionRule = (c) => {
  const e = c.e;
  const rank = e.outputs[0]!.aval.shape.length;
  const ops = range(e.inputs.length);
  const partial = passPartial(c, ops);
  const dims = partial ? without(c.out[0]!, partial) : c.out[0]!;
  const ins = ops.map((i) => {
    const a = e.inputs[i]!;
    const t = a.aval.shape.length === rank ? dims : replicated(a.aval.shape.length);
    return c.get(i, t, partial !== null && c.val(i).partial.length > 0).atom;
  });
  return c.bind(e.prim, ins, e.params).map((o) => ({ atom: o, dims, partial: partial ?? [] }));
};

/** Movement primitives that only relabel elements: a partial sum passes through; `target(R)` is the operand layout for result layout R. */
function relabel(target: (c: Ctx, dims: DimShardings) => DimShardings, params?: (c: Ctx, x: LVal, dims: DimShardings) => Eqn['params']): PartitionRule {
  return (c) => {
    const partial = c.val(0).partial;
    const dims = without(c.out[0]!, partial);
    const x = c.get(0, target(c, dims), true);
    const out = c.bind(c.e.prim, [x.atom], params ? params(c, x, dims) : c.e.params)[0]!;
    return [{ atom: out, dims, partial: x.partial }];
  };
}

/** Primitives that cut or change some dims: those are unsharded, the others follow the result. */
function keepDims(keeps: (e: Eqn, d: number) => boolean, params: (c: Ctx, local: number[]) => Eqn['params']): PartitionRule {
  return (c) => {
    const e = c.e;
    const dims = c.out[0]!.map((ax, d) => (keeps(e, d) ? ax : []));
    const ins = e.inputs.map((a, i) => (a.aval.shape.length === dims.length ? c.get(i, dims).atom : c.get(i, replicated(a.aval.shape.length)).atom));
    const local = localShape(e.outputs[0]!.aval.shape, dims, c.p.mesh);
    return [{ atom: c.bind(e.prim, ins, params(c, local))[0]!, dims, partial: [] }];
  };
}

function reduceRule(kind: 'sum' | 'max' | 'min' | 'gather'): PartitionRule {
  return (c) => {
    const e = c.e;
    const x = c.val(0);
    const axes = e.params['axes'] as number[];
    const rank = x.atom.aval.shape.length;
    const kept = range(rank).filter((d) => !axes.includes(d));
    const dims = c.out[0]!;
    const usedOut = new Set(dims.flat());
    // operand: kept dims as the result wants; reduced dims stay as they are where that is valid
    const t: string[][] = range(rank).map(() => []);
    kept.forEach((d, i) => (t[d] = [...dims[i]!]));
    if (kind !== 'gather') {
      for (const d of axes) {
        const cur = x.dims[d]!;
        if (!cur.some((a) => usedOut.has(a))) t[d] = [...cur];
      }
    }
    const xin = c.get(0, t);
    let out = c.bind(e.prim, [xin.atom], e.params)[0]!;
    const reducedAxes = c.p.meshOrder(axes.flatMap((d) => t[d]!));
    if (kind === 'sum') return [{ atom: out, dims, partial: reducedAxes }];
    if (reducedAxes.length) {
      const prim = kind === 'max' ? 'pmax' : 'pmin';
      out = c.bind(prim, [out], { axes: reducedAxes, axis_size: axesSize(c.p.mesh, reducedAxes) })[0]!;
    }
    return [{ atom: out, dims, partial: [] }];
  };
}

const dotGeneral: PartitionRule = (c) => {
  const e = c.e;
  const dn = e.params['dimension_numbers'] as DotDims;
  const [lc, rc] = dn.contract;
  const [lb, rb] = dn.batch;
  const { lfree, rfree } = dotFree(e);
  const L = c.val(0);
  const Rv = c.val(1);
  const R = c.out[0]!;
  const nb = lb.length;
  // where each operand dim lands in the result
  const lOut = new Map<number, number>([...lb.map((d, k) => [d, k] as const), ...lfree.map((d, i) => [d, nb + i] as const)]);
  const rOut = new Map<number, number>([...rb.map((d, k) => [d, k] as const), ...rfree.map((d, i) => [d, nb + lfree.length + i] as const)]);
  // contracting axes: from the operands as they are; an axis the result also wants becomes a
  // reduce-scatter later, unless an operand already has it on the dim feeding that result dim
  const chosen: string[][] = [];
  const taken = new Set<string>();
  lc.forEach((ld, k) => {
    const rd = rc[k]!;
    const cands = [L.dims[ld]!, Rv.dims[rd]!].filter((a) => a.length);
    const ok = cands.find((cand) => {
      if (cand.some((a) => taken.has(a))) return false;
      return cand.every((a) => {
        const rdim = R.findIndex((ax) => ax.includes(a));
        if (rdim < 0) return true;
        const feeds = [...lOut].filter(([, o]) => o === rdim).some(([d]) => L.dims[d]!.includes(a)) ||
          [...rOut].filter(([, o]) => o === rdim).some(([d]) => Rv.dims[d]!.includes(a));
        return !feeds;
      });
    });
    chosen.push(ok ? [...ok] : []);
    for (const a of ok ?? []) taken.add(a);
  });
  const cAxes = [...taken];
  const dims = without(R, cAxes);
  const tl: string[][] = L.dims.map(() => []);
  const tr: string[][] = Rv.dims.map(() => []);
  for (const [d, o] of lOut) tl[d] = [...dims[o]!];
  for (const [d, o] of rOut) tr[d] = [...dims[o]!];
  lc.forEach((d, k) => (tl[d] = chosen[k]!));
  rc.forEach((d, k) => (tr[d] = chosen[k]!));
  const l = c.get(0, tl);
  const r = c.get(1, tr);
  return [{ atom: c.bind('dot_general', [l.atom, r.atom], e.params)[0]!, dims, partial: c.p.meshOrder(cAxes) }];
};

const reshape: PartitionRule = (c) => {
  const e = c.e;
  const x = c.val(0);
  const from = e.inputs[0]!.aval.shape;
  const to = e.outputs[0]!.aval.shape;
  const want = without(c.out[0]!, x.partial);
  // per dimension group, only the major-most dims may be split (the same way on both sides)
  const dims: string[][] = to.map(() => []);
  const t: string[][] = from.map(() => []);
  for (const g of reshapeGroups(from, to)) {
    const o0 = g.outs[0]!;
    const ax = want[o0]!;
    const n = axesSize(c.p.mesh, ax);
    if (!ax.length || g.outs.slice(1).some((o) => want[o]!.length) || from[g.ins[0]!]! % n !== 0) continue;
    dims[o0] = [...ax];
    t[g.ins[0]!] = [...ax];
  }
  const xin = c.get(0, t, true);
  const out = c.bind('reshape', [xin.atom], { ...e.params, new_sizes: localShape(to, dims, c.p.mesh) })[0]!;
  return [{ atom: out, dims, partial: xin.partial }];
};

const iota: PartitionRule = (c) => {
  const e = c.e;
  const dims = c.out[0]!;
  const shape = localShape(e.outputs[0]!.aval.shape, dims, c.p.mesh);
  const d = e.params['dimension'] as number;
  let out: Atom = c.bind('iota', [], { ...e.params, shape })[0]!;
  const names = dims[d]!;
  if (names.length) {
    const dtype = e.outputs[0]!.aval.dtype;
    let off: Atom = c.p.offset(names, shape[d]!);
    if (dtype !== 'int32') off = c.bind('convert_element_type', [off], { new_dtype: dtype, weak_type: false })[0]!;
    const offB = c.bind('broadcast_in_dim', [off], { shape, broadcast_dimensions: [] })[0]!;
    out = c.bind('add', [out, offB])[0]!;
  }
  return [{ atom: out, dims, partial: [] }];
};

/** Computed on whole (replicated) operands. */
const replicatedRule: PartitionRule = (c) => {
  const ins = c.e.inputs.map((a, i) => c.get(i, replicated(a.aval.shape.length)).atom);
  return c.bind(c.e.prim, ins, c.e.params).map((o) => ({ atom: o, dims: replicated(o.aval.shape.length), partial: [] }));
};

/** Does `f` hold a shard_map (in its own equations or in a sub-program's)? */
const holdsShardMap = (f: Func): boolean => f.eqns.some((e) => e.prim === 'shard_map' || subFuncs(e).some(holdsShardMap));

/**
 * A sub-program of replicated control flow, run by every device on whole values: partitioned with
 * replicated parameters and results, so that a shard_map in it takes its operands' blocks (a slice
 * at the device's position, no communication) and gathers its results back.
 */
function replicatedSubprogram(f: Func, mesh: MeshShape): Func {
  if (!holdsShardMap(f)) return f;
  const whole = (vs: readonly Atom[]): DimShardings[] => vs.map((v) => replicated(v.aval.shape.length));
  return partition(f, mesh, whole(f.params), whole(f.results)).local;
}

/** cond, while and scan: replicated (replicatedRule), their sub-programs' shard_maps partitioned. */
const controlRule: PartitionRule = (c) => {
  const ins = c.e.inputs.map((a, i) => c.get(i, replicated(a.aval.shape.length)).atom);
  return c.bind(c.e.prim, ins, mapSubFuncs(c.e, (f) => replicatedSubprogram(f, c.p.mesh))).map((o) => ({ atom: o, dims: replicated(o.aval.shape.length), partial: [] }));
};

/** Elementwise primitives all use `elementwise`; every other primitive has its rule here. */
export const PARTITION_RULES: Record<StructuralPrim, PartitionRule> = {
  // the operand resharded to the layout propagation fixed (params.dims); pending sums resolved
  sharding_constraint: (c) => {
    const un = c.p.meshOrder((c.e.params['unreduced'] as readonly string[] | undefined) ?? []);
    if (!un.length) return [{ atom: c.get(0, c.out[0]!).atom, dims: c.out[0]!, partial: [] }];
    // a reshard to unreduced: already so, the partial sums pass on; else the first device of each group over
    // those axes keeps the value and the others hold zeros (XLA's layout), the sums still to be taken
    const x = c.get(0, c.out[0]!, sameList(c.val(0).partial, un));
    if (x.partial.length) return [x];
    const first = c.bind('eq', [c.p.offset(un, 1), lit(0, 'int32')])[0]!;
    const zeros = c.bind('broadcast_in_dim', [lit(0, x.atom.aval.dtype)], { shape: [...x.atom.aval.shape], broadcast_dimensions: [] })[0]!;
    return [{ atom: c.bind('select_n', [first, zeros, x.atom])[0]!, dims: c.out[0]!, partial: un }];
  },
  dot_general: dotGeneral,
  reshape,
  iota,
  broadcast_in_dim: (c) => {
    const e = c.e;
    const dims = c.out[0]!;
    const x = e.inputs[0]!;
    const out = e.outputs[0]!.aval.shape;
    const bd = e.params['broadcast_dimensions'] as number[];
    const t = bd.map((d, i) => (x.aval.shape[i] === out[d] ? [...dims[d]!] : []));
    const xin = c.get(0, t);
    const shape = localShape(out, dims, c.p.mesh);
    const y = c.bind('broadcast_in_dim', [xin.atom], { ...e.params, shape })[0]!;
    if (!x.aval.shape.length) c.p.setSplat(e.outputs[0]!, xin.atom, e.params);
    return [{ atom: y, dims, partial: [] }];
  },
  transpose: relabel((c, dims) => {
    const perm = c.e.params['permutation'] as number[];
    const t: string[][] = perm.map(() => []);
    perm.forEach((p, i) => (t[p] = [...dims[i]!]));
    return t;
  }),
  squeeze: relabel((c, dims) => {
    const r = c.e.inputs[0]!.aval.shape.length;
    const sq = (c.e.params['dimensions'] as number[]).map((d) => (d < 0 ? d + r : d));
    const t: string[][] = [];
    let j = 0;
    for (let d = 0; d < r; d++) t.push(sq.includes(d) ? [] : [...dims[j++]!]);
    return t;
  }),
  rev: keepDims((e, d) => !(e.params['dimensions'] as number[]).includes(d), (c) => c.e.params),
  slice: keepDims(sliceKeeps, (c, local) => {
    const e = c.e;
    const limit = (e.params['limit_indices'] as number[]).map((l, d) => (sliceKeeps(e, d) ? local[d]! : l));
    return { ...e.params, limit_indices: limit };
  }),
  pad: keepDims((e, d) => (e.params['padding_config'] as [number, number, number][])[d]!.every((x) => x === 0), (c) => c.e.params),
  dynamic_slice: keepDims((e, d) => (e.params['slice_sizes'] as number[])[d] === e.inputs[0]!.aval.shape[d], (c, local) => ({ ...c.e.params, slice_sizes: local })),
  concatenate: keepDims((e, d) => d !== e.params['dimension'], (c) => c.e.params),
  reduce_window_sum: keepDims((e, d) => windowKeeps(e.params, d), (c) => c.e.params),
  reduce_window_max: keepDims((e, d) => windowKeeps(e.params, d), (c) => c.e.params),
  reduce_window_min: keepDims((e, d) => windowKeeps(e.params, d), (c) => c.e.params),
  reduce_sum: reduceRule('sum'),
  reduce_max: reduceRule('max'),
  reduce_min: reduceRule('min'),
  reduce_prod: reduceRule('gather'),
  argmax: reduceRule('gather'),
  argmin: reduceRule('gather'),
  // collectives and axis_index name mesh axes themselves: computed on whole operands
  psum: replicatedRule,
  pmax: replicatedRule,
  pmin: replicatedRule,
  all_gather: replicatedRule,
  psum_scatter: replicatedRule,
  ppermute: replicatedRule,
  all_to_all: replicatedRule,
  axis_index: replicatedRule,
  // indexing and sorting: computed on whole (replicated) operands
  // split over the batch dimension only (DIM_RULES links lhs's to the result's); rhs whole
  conv_general_dilated: (c) => {
    const e = c.e;
    const dn = e.params['dimension_numbers'] as ConvDims;
    const dims: string[][] = c.out[0]!.map((ax, d) => (d === dn.out_spec[0] && e.params['batch_group_count'] === 1 ? [...ax] : []));
    const t: string[][] = e.inputs[0]!.aval.shape.map(() => []);
    t[dn.lhs_spec[0]!] = dims[dn.out_spec[0]!]!;
    const ins = [c.get(0, t).atom, c.get(1, replicated(e.inputs[1]!.aval.shape.length)).atom];
    return [{ atom: c.bind(e.prim, ins, e.params)[0]!, dims, partial: [] }];
  },
  gather: replicatedRule,
  scatter: replicatedRule,
  scatter_add: replicatedRule,
  scatter_mul: replicatedRule,
  scatter_min: replicatedRule,
  scatter_max: replicatedRule,
  sort: replicatedRule,
  // never in a program (autodiff replaces them)
  custom_jvp_call: replicatedRule,
  custom_vjp_call: replicatedRule,
  // control flow inside a mesh program runs replicated: its operands gathered, its sub-programs unpartitioned
  // but for the shard_maps in them (controlRule)
  cond: controlRule,
  while: controlRule,
  scan: controlRule,
  // the operands resharded to the in_specs, then the per-device body itself (its collectives are the program's)
  shard_map: (c) => {
    const { jaxpr, in_specs: inSpecs } = shardMapParams(c.e.params);
    const ins = c.e.inputs.map((a, i) => c.get(i, specDims(inSpecs[i] ?? [], a.aval.shape.length)).atom);
    return c.p.b.inline(jaxpr, ins).map((atom, j) => ({ atom, dims: c.out[j]!, partial: [] }));
  },
};

function ruleFor(prim: Prim): PartitionRule {
  return isElementwise(prim) ? elementwise : PARTITION_RULES[prim];
}

// ------------------------------------------------------------------ the pass

/**
 * The layouts a program over `mesh` takes and gives, as sharding propagation
 * decides them. A trace-time fact (the results' shardings are part of their
 * types, and the host call names the layouts), so the lowering asks for it;
 * `partition` later decides the same from the same inputs.
 */
export function programShardings(
  global: Func,
  mesh: MeshShape,
  inShardings: (DimShardings | null)[],
  outShardings: (DimShardings | null)[] = [],
): { varShardings: Map<number, DimShardings>; inShardings: DimShardings[]; outShardings: DimShardings[] } {
  const varShardings = propagateShardings(global, mesh, inShardings, outShardings);
  const sharding = (a: Atom): DimShardings => (a.kind === 'lit' ? [] : (varShardings.get(a.id) ?? replicated(a.aval.shape.length)));
  return {
    varShardings,
    inShardings: global.params.map((v, i) => inShardings[i] ?? sharding(v)),
    outShardings: global.results.map((r, i) => outShardings[i] ?? sharding(r)),
  };
}

/**
 * Partition `global` over `mesh`. `inShardings[i]` null: parameter i is free
 * (propagation chooses). `outShardings[i]` non-null: result i must leave in
 * that layout (jax.device_put inside jit, out_shardings).
 */
export function partition(
  global: Func,
  mesh: MeshShape,
  inShardings: (DimShardings | null)[],
  outShardings: (DimShardings | null)[] = [],
  /** Parameters arriving / results leaving unreduced over these mesh axes (their partial sums pending). */
  unreduced?: { ins: (readonly string[])[]; outs: (readonly string[])[] },
): SpmdProgram {
  const { varShardings, inShardings: ins, outShardings: outs } = programShardings(global, mesh, inShardings, outShardings);
  const sharding = (a: Atom): DimShardings => (a.kind === 'lit' ? [] : (varShardings.get(a.id) ?? replicated(a.aval.shape.length)));
  const p = new Partitioner(mesh, global.name);
  ins.forEach((dims, i) => p.checkValid(dims, global.params[i]!.aval.shape));
  global.params.forEach((v, i) => {
    const dims = ins[i]!;
    const local = p.b.addParam({ ...v.aval, shape: localShape(v.aval.shape, dims, mesh) }, v.hint);
    p.setVal(v, { atom: local, dims, partial: mesh.axes.map((a) => a.name).filter((a) => unreduced?.ins[i]?.includes(a)) });
  });
  // values unreduced in their types (arguments so, out_sharding=, the cotangents of reduced values) keep their partial sums
  const typedInside = global.eqns.some((e) => e.prim === 'sharding_constraint' && (['reduced', 'unreduced'] as const).some((k) => (e.params[k] as readonly string[] | undefined)?.length));
  const typedU = unreduced || typedInside ? unreducedTypes(global, unreduced?.ins ?? []) : null;
  for (const e of global.eqns) {
    const c: Ctx = {
      ...(typedU?.has(e.outputs[0]?.id ?? -1) ? { unreduced: true as const } : {}),
      e,
      out: e.outputs.map(sharding),
      val: (i) => p.val(e.inputs[i]!),
      get: (i, dims, keepPartial = false) => p.get(e.inputs[i]!, dims, keepPartial),
      bind: (prim, inputs, params = {}) => p.b.bind(prim, inputs, params, e.span),
      p,
    };
    const outs = ruleFor(e.prim)(c);
    e.outputs.forEach((o, i) => p.setVal(o, outs[i]!));
  }
  const results = global.results.map((r, i) => {
    const un = unreduced?.outs[i] ?? [];
    const x = p.get(r, outs[i]!, un.length > 0);
    if (un.length && !sameList(x.partial, mesh.axes.map((a) => a.name).filter((a) => un.includes(a)))) {
      throw new Error(`internal: ${global.name}: result ${i} should leave unreduced over ${un.join(', ')}, but its pending sums are over [${x.partial.join(', ')}]`);
    }
    return x.atom;
  });
  const local = dce(combineAllReduces(p.b.finish(results, mesh.axes.map((a) => ({ name: a.name, size: a.size })))));
  return { global, local, mesh, inShardings: ins, outShardings: outs, varShardings };
}

// ------------------------------------------------------------------ all-reduce combiner

/**
 * XLA's AllReduceCombiner: merge psums over the same axes into one
 * multi-operand psum, placed where the later one is, when the later one does
 * not depend on the earlier. Equations between them that use the earlier
 * psum's results move after the merged psum.
 */
export function combineAllReduces(f: Func): Func {
  let eqns = [...f.eqns];
  const axesKey = (e: Eqn): string => (e.params['axes'] as string[]).join(',');
  for (let merged = true; merged; ) {
    merged = false;
    for (let j = 0; j < eqns.length && !merged; j++) {
      const later = eqns[j]!;
      if (later.prim !== 'psum') continue;
      for (let i = j - 1; i >= 0; i--) {
        const earlier = eqns[i]!;
        if (earlier.prim !== 'psum' || axesKey(earlier) !== axesKey(later)) continue;
        // equations between that depend on the earlier psum
        const tainted = new Set(earlier.outputs.map((o) => o.id));
        const moved = new Set<number>();
        for (let k = i + 1; k < j; k++) {
          const e = eqns[k]!;
          if (e.inputs.some((a) => a.kind === 'var' && tainted.has(a.id))) {
            moved.add(k);
            for (const o of e.outputs) tainted.add(o.id);
          }
        }
        if (later.inputs.some((a) => a.kind === 'var' && tainted.has(a.id))) break; // the later one needs the earlier: stop looking
        const psum: Eqn = {
          prim: 'psum',
          inputs: [...earlier.inputs, ...later.inputs],
          outputs: [...earlier.outputs, ...later.outputs],
          params: later.params,
        };
        if (later.span) psum.span = later.span;
        const between = range(j - i - 1).map((k) => i + 1 + k);
        eqns = [
          ...eqns.slice(0, i),
          ...between.filter((k) => !moved.has(k)).map((k) => eqns[k]!),
          psum,
          ...between.filter((k) => moved.has(k)).map((k) => eqns[k]!),
          ...eqns.slice(j + 1),
        ];
        merged = true;
        break;
      }
    }
  }
  return { ...f, eqns };
}

// ------------------------------------------------------------------ dump

/** `--dump spmd`: the partitioned per-device program; each collective line shows its mesh axes and replica groups. */
export function printSpmd(p: SpmdProgram, name: string): string {
  const mesh = p.mesh.axes.map((a) => `${a.name}=${a.size}`).join(', ');
  const lines = [`# spmd ${name} on mesh (${mesh}), ${p.mesh.explicit ? 'explicit' : 'auto'} axes`];
  const typ = (a: Atom, dims: DimShardings): string => shardedTypeStr(shortDtype(a.aval.dtype), a.aval.shape, dims);
  p.global.params.forEach((v, i) => lines.push(`#   in ${i}: ${typ(v, p.inShardings[i]!)}${v.hint ? `  (${v.hint})` : ''}`));
  p.global.results.forEach((r, i) => lines.push(`#   out ${i}: ${typ(r, p.outShardings[i]!)}`));
  const body = printFunc(p.local).split('\n');
  const first = body.findIndex((l) => !l.startsWith('  # axes:')) + 1; // the line after `name = { lambda ...`
  p.local.eqns.forEach((e, i) => {
    if (PRIMS[e.prim].axes !== 'collective') return;
    const names = (e.params['axes'] ?? e.params['axis_name']) as string[];
    const groups = replicaGroups(p.mesh, names)
      .map((g) => `{${g.join(',')}}`)
      .join(',');
    const line = body[first + i]!;
    const at = line.indexOf(`= ${e.prim}[`);
    const close = at < 0 ? -1 : line.indexOf(']', at);
    body[first + i] = close < 0 ? `${line}  replica_groups={${groups}}` : `${line.slice(0, close)} replica_groups={${groups}}${line.slice(close)}`;
  });
  return [...lines, ...body].join('\n');
}
