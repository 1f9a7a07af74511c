// The vmap pass: batching rules per primitive. Given a Func and which of its
// parameters carry a batch dimension (always at axis 0 here), produce a Func
// whose batched parameters and all results have a leading batch axis.
import { FuncBuilder } from '../ir/builder.js';
import { batchWindowParams, convBatch } from './conv_rules.js';
import type { DotDims } from '../ir/primitives.js';
import type { GatherDims, ScatterDims } from '../ir/indexing.js';
import { PRIMS, isElementwise, type Prim, type StructuralPrim } from '../ir/prims.js';
import type { Atom, Eqn, Func, Params } from '../ir/types.js';
import type { DimShardings } from '../ir/sharding.js';
import { asParams, shardMapParams, type ShardMapParams, type Spec } from '../ir/shard_map.js';

/** A value in the batched program: its atom and whether axis 0 is the batch axis. */
interface BVal {
  atom: Atom;
  batched: boolean;
}

interface BatchCtx {
  b: FuncBuilder;
  size: number;
  bind(prim: Prim, inputs: Atom[], params: Params): Atom;
  /** Give an unbatched value a leading batch axis by broadcasting. */
  materialize(v: BVal): Atom;
  /** The vmap's own axis name (vmap(axis_name=)), for the sub-functions of control flow. */
  axisName?: string;
  /** Implicit scalar broadcasts an elementwise rule went around: dropped at the end where nothing else uses them. */
  bypassed: Set<number>;
}

/** A batching rule returns one BVal per output of the equation (or the single one). */
type BatchRule = (ctx: BatchCtx, eqn: Eqn, ins: BVal[]) => BVal | BVal[];

const shift = (xs: readonly number[]): number[] => xs.map((d) => d + 1);

// pad: no padding on the batch axis; a batched padding value goes through a mask, as in JAX
const padRule: BatchRule = (c, e, [x, v]) => {
  const config = [[0, 0, 0], ...(e.params['padding_config'] as [number, number, number][])];
  const operand = c.materialize(x!);
  if (!v!.batched) return { atom: c.bind('pad', [operand, v!.atom], { padding_config: config }), batched: true };
  const dtype = operand.aval.dtype;
  const padded = c.bind('pad', [operand, { kind: 'lit', value: 0, aval: { shape: [], dtype } }], { padding_config: config });
  const trues = c.bind('broadcast_in_dim', [{ kind: 'lit', value: 1, aval: { shape: [], dtype: 'bool' } }], { shape: [...operand.aval.shape], broadcast_dimensions: [] });
  const mask = c.bind('pad', [trues, { kind: 'lit', value: 0, aval: { shape: [], dtype: 'bool' } }], { padding_config: config });
  const fill = c.bind('broadcast_in_dim', [v!.atom], { shape: [...padded.aval.shape], broadcast_dimensions: [0] });
  return { atom: c.bind('select_n', [mask, fill, padded], {}), batched: true };
};

/** Reductions over `axes`: the axes move past the batch axis (computed with NumPy in JAX: np.int64 in make_jaxpr). */
const reduceRule: BatchRule = (c, e, [x]) => {
  const atom = c.bind(e.prim, [x!.atom], { ...e.params, axes: shift(e.params['axes'] as number[]) });
  c.b.eqns.at(-1)!.numpyParams = true;
  return { atom, batched: true };
};

/** Elementwise primitives share `elementwiseRule`; every other primitive has its rule here. */
export const BATCH_RULES: Record<StructuralPrim, BatchRule> = {
  // the batch dimension is not split over the mesh
  sharding_constraint: (c, e, [x]) => ({
    atom: c.bind('sharding_constraint', [x!.atom], { dims: [[], ...(e.params['dims'] as DimShardings)] }),
    batched: true,
  }),
  broadcast_in_dim: (c, e, [x]) => {
    const atom = c.bind('broadcast_in_dim', [x!.atom], {
      ...e.params,
      shape: [c.size, ...(e.params['shape'] as number[])],
      broadcast_dimensions: [0, ...shift(e.params['broadcast_dimensions'] as number[])],
    });
    // an operand's implicit broadcast stays one (with size-1 axes in make_jaxpr); the new batch axis is a plain int
    const made = c.b.eqns.at(-1)!;
    if (e.operandBroadcast) made.operandBroadcast = true;
    if (e.numpyParams) Object.assign(made, { numpyParams: true, numpyPlainLead: (e.numpyPlainLead ?? 0) + 1 });
    return { atom, batched: true };
  },
  reshape: (c, e, [x]) => ({
    atom: c.bind('reshape', [x!.atom], { ...e.params, new_sizes: [c.size, ...(e.params['new_sizes'] as number[])] }),
    batched: true,
  }),
  transpose: (c, e, [x]) => ({
    atom: c.bind('transpose', [x!.atom], { permutation: [0, ...shift(e.params['permutation'] as number[])] }),
    batched: true,
  }),
  squeeze: (c, e, [x]) => ({
    atom: c.bind('squeeze', [x!.atom], { dimensions: shift(e.params['dimensions'] as number[]) }),
    batched: true,
  }),
  rev: (c, e, [x]) => ({ atom: c.bind('rev', [x!.atom], { dimensions: shift(e.params['dimensions'] as number[]) }), batched: true }),
  slice: (c, e, [x]) => {
    const strides = e.params['strides'] as number[] | null;
    return {
      atom: c.bind('slice', [x!.atom], {
        start_indices: [0, ...(e.params['start_indices'] as number[])],
        limit_indices: [c.size, ...(e.params['limit_indices'] as number[])],
        strides: strides ? [1, ...strides] : null,
      }),
      batched: true,
    };
  },
  concatenate: (c, e, ins) => ({
    atom: c.bind('concatenate', ins.map((v) => c.materialize(v)), { dimension: (e.params['dimension'] as number) + 1 }),
    batched: true,
  }),
  dot_general: (c, e, [l, r]) => {
    const dn = e.params['dimension_numbers'] as DotDims;
    const [lc, rc] = dn.contract;
    const [lb, rb] = dn.batch;
    const lr = l!.atom.aval.shape.length - (l!.batched ? 1 : 0);
    if (l!.batched && r!.batched) {
      const dims: DotDims = { contract: [shift(lc), shift(rc)], batch: [[0, ...shift(lb)], [0, ...shift(rb)]] };
      return { atom: c.bind('dot_general', [l!.atom, r!.atom], { ...e.params, dimension_numbers: dims }), batched: true };
    }
    // one side batched: its batch axis becomes a free dimension; move it to the front
    const lhsB = l!.batched;
    const dims: DotDims = lhsB
      ? { contract: [shift(lc), rc], batch: [shift(lb), rb] }
      : { contract: [lc, shift(rc)], batch: [lb, shift(rb)] };
    const out = c.bind('dot_general', [l!.atom, r!.atom], { ...e.params, dimension_numbers: dims });
    const nb = lb.length;
    const lfree = lr - lc.length - lb.length;
    const pos = lhsB ? nb : nb + lfree;
    return { atom: moveToFront(c, out, pos), batched: true };
  },
  conv_general_dilated: (c, e, [l, r]) => {
    const arg = (v: BVal) => ({ atom: v.atom, bdim: v.batched ? 0 : null });
    const out = convBatch((prim, ins, p) => c.bind(prim, ins, p), [arg(l!), arg(r!)], e.params);
    return { atom: moveToFront(c, out.atom, out.bdim), batched: true };
  },
  reduce_window_sum: (c, e, [x]) => ({ atom: c.bind(e.prim, [x!.atom], batchWindowParams(e.params)), batched: true }),
  reduce_window_max: (c, e, [x]) => ({ atom: c.bind(e.prim, [x!.atom], batchWindowParams(e.params)), batched: true }),
  reduce_window_min: (c, e, [x]) => ({ atom: c.bind(e.prim, [x!.atom], batchWindowParams(e.params)), batched: true }),
  iota: (c, e) => ({ atom: c.bind('iota', [], e.params), batched: false }),
  axis_index: (c, e) => ({ atom: c.bind('axis_index', [], e.params), batched: false }),
  // a function with a custom derivative: every operand batched (the broadcasts of unbatched ones stay
  // outside, where autodiff sums their cotangents), the function and its rules batched alike
  custom_jvp_call: (c, e, ins) => customCallRule(c, e, ins, ['call', 'jvp']),
  custom_vjp_call: (c, e, ins) => customCallRule(c, e, ins, ['call', 'fwd', 'bwd']),
  cond: (c, e, ins) => condRule(c, e, ins),
  while: (c, e, ins) => whileRule(c, e, ins),
  scan: (c, e, ins) => scanRule(c, e, ins),
  shard_map: (c, e, ins) => shardMapRule(c, e, ins),
  // collectives over a pmap axis act on each vmapped element alike
  psum: (c, e, [x]) => ({ atom: c.bind('psum', [x!.atom], e.params), batched: true }),
  pmax: (c, e, [x]) => ({ atom: c.bind('pmax', [x!.atom], e.params), batched: true }),
  pmin: (c, e, [x]) => ({ atom: c.bind('pmin', [x!.atom], e.params), batched: true }),
  ppermute: (c, e, [x]) => ({ atom: c.bind('ppermute', [x!.atom], e.params), batched: true }),
  all_gather: (c, e, [x]) => ({
    atom: c.bind('all_gather', [x!.atom], { ...e.params, all_gather_dimension: (e.params['all_gather_dimension'] as number) + 1 }),
    batched: true,
  }),
  psum_scatter: (c, e, [x]) => ({
    atom: c.bind('psum_scatter', [x!.atom], { ...e.params, scatter_dimension: (e.params['scatter_dimension'] as number) + 1 }),
    batched: true,
  }),
  all_to_all: (c, e, [x]) => ({
    atom: c.bind('all_to_all', [x!.atom], {
      ...e.params,
      split_axis: (e.params['split_axis'] as number) + 1,
      concat_axis: (e.params['concat_axis'] as number) + 1,
    }),
    batched: true,
  }),
  dynamic_slice: (c, e, [x, ...starts]) => {
    if (starts.some((s) => s.batched)) return dynamicSliceAsGather(c, e, x!, starts);
    const zero: Atom = { kind: 'lit', value: 0, aval: { shape: [], dtype: 'int32' } };
    return {
      atom: c.bind('dynamic_slice', [x!.atom, zero, ...starts.map((s) => s.atom)], { slice_sizes: [c.size, ...(e.params['slice_sizes'] as number[])] }),
      batched: true,
    };
  },
  reduce_sum: reduceRule,
  reduce_max: reduceRule,
  reduce_min: reduceRule,
  reduce_prod: reduceRule,
  argmax: reduceRule,
  argmin: reduceRule,
  pad: padRule,
  gather: gatherRule,
  scatter: scatterRule,
  scatter_add: scatterRule,
  scatter_mul: scatterRule,
  scatter_min: scatterRule,
  scatter_max: scatterRule,
  sort: (c, e, ins) => {
    const atoms = ins.map((v) => c.materialize(v));
    return c.b.bind('sort', atoms, { ...e.params, dimension: (e.params['dimension'] as number) + 1 }).map((atom) => ({ atom, batched: true }));
  },
};

/**
 * Batched indices of a gather or scatter whose operand is batched: the batch
 * position joins each index vector as its first component (the operand's
 * batch axis is indexed, then collapsed), as JAX's rules did before XLA had
 * batching dimensions.
 */
function withBatchIndex(c: BatchCtx, idx: BVal): Atom {
  const atom = c.materialize(idx);
  const shape = [...atom.aval.shape];
  const iota = c.bind('iota', [], { dtype: atom.aval.dtype, shape: [...shape.slice(0, -1), 1], dimension: 0, sharding: null });
  return c.bind('concatenate', [iota, atom], { dimension: shape.length - 1 });
}

/** dynamic_slice with batched starts: a gather whose index vectors are the starts (clamped alike), as JAX's batching rule. */
function dynamicSliceAsGather(c: BatchCtx, e: Eqn, x: BVal, starts: BVal[]): BVal {
  const sizes = e.params['slice_sizes'] as number[];
  const r = sizes.length;
  const cols = starts.map((s) => {
    const a = s.atom.aval.dtype === 'int32' ? s.atom : c.bind('convert_element_type', [s.atom], { new_dtype: 'int32', weak_type: false });
    return c.bind('broadcast_in_dim', [a], { shape: [c.size, 1], broadcast_dimensions: s.batched ? [0] : [] });
  });
  const indices: BVal = { atom: cols.length === 1 ? cols[0]! : c.bind('concatenate', cols, { dimension: 1 }), batched: true };
  const params = {
    dimension_numbers: { offset_dims: Array.from({ length: r }, (_, i) => i), collapsed_slice_dims: [], start_index_map: Array.from({ length: r }, (_, i) => i), operand_batching_dims: [], start_indices_batching_dims: [] },
    slice_sizes: sizes,
    indices_are_sorted: false,
    unique_indices: false,
    mode: 'clip',
    fill_value: null,
  };
  const g = { ...e, prim: 'gather' as const, params, inputs: [e.inputs[0]!, indices.atom] };
  return gatherRule(c, g, [x, indices]);
}

function gatherRule(c: BatchCtx, e: Eqn, [x, idx]: BVal[]): BVal {
  const dn = e.params['dimension_numbers'] as GatherDims;
  const sizes = e.params['slice_sizes'] as number[];
  if (!x!.batched) {
    // only the indices: their batch axis is the first batch axis of the result
    const params = { ...e.params, dimension_numbers: { ...dn, offset_dims: shift(dn.offset_dims) } };
    return { atom: c.bind('gather', [x!.atom, idx!.atom], params), batched: idx!.batched };
  }
  const dims: GatherDims = {
    ...dn,
    offset_dims: shift(dn.offset_dims),
    collapsed_slice_dims: [0, ...shift(dn.collapsed_slice_dims)],
    start_index_map: [0, ...shift(dn.start_index_map)],
  };
  return { atom: c.bind('gather', [x!.atom, withBatchIndex(c, idx!)], { ...e.params, dimension_numbers: dims, slice_sizes: [1, ...sizes] }), batched: true };
}

function scatterRule(c: BatchCtx, e: Eqn, [x, idx, upd]: BVal[]): BVal {
  const dn = e.params['dimension_numbers'] as ScatterDims;
  const dims: ScatterDims = {
    ...dn,
    update_window_dims: shift(dn.update_window_dims),
    inserted_window_dims: [0, ...shift(dn.inserted_window_dims)],
    scatter_dims_to_operand_dims: [0, ...shift(dn.scatter_dims_to_operand_dims)],
  };
  const atom = c.bind(e.prim, [c.materialize(x!), withBatchIndex(c, idx!), c.materialize(upd!)], { ...e.params, dimension_numbers: dims });
  return { atom, batched: true };
}

function moveToFront(c: BatchCtx, a: Atom, pos: number): Atom {
  if (pos === 0) return a;
  const r = a.aval.shape.length;
  const perm = [pos, ...Array.from({ length: r }, (_, i) => i).filter((i) => i !== pos)];
  return c.bind('transpose', [a], { permutation: perm });
}

/** The rank-0 operand of the implicit broadcast (Eqn.operandBroadcast) that made variable `id`, if one did. */
function scalarSource(b: FuncBuilder, id: number): Atom | null {
  for (let i = b.eqns.length - 1; i >= 0; i--) {
    const e = b.eqns[i]!;
    if (e.outputs[0]?.id !== id) continue;
    return e.prim === 'broadcast_in_dim' && e.operandBroadcast && e.inputs[0]!.aval.shape.length === 0 ? e.inputs[0]! : null;
  }
  return null;
}

/** Elementwise ops: broadcast unbatched array operands; scalars (rank-0 literals) stay. */
function elementwiseRule(c: BatchCtx, e: Eqn, ins: BVal[]): BVal[] {
  const atoms = ins.map((v, i) => {
    if (v.batched) return v.atom;
    // select_n's predicate may be a scalar
    if (e.prim === 'select_n' && i === 0 && v.atom.aval.shape.length === 0) return v.atom;
    // clamp's bounds may be scalars
    if (e.prim === 'clamp' && i !== 1 && v.atom.aval.shape.length === 0) return v.atom;
    // an unbatched operand that is itself a scalar's implicit broadcast (`x + 2.0`) is broadcast from the scalar
    const src = v.atom.kind === 'var' ? scalarSource(c.b, v.atom.id) : null;
    if (src) c.bypassed.add((v.atom as { id: number }).id);
    const a = src ? c.bind('broadcast_in_dim', [src], { shape: [c.size, ...v.atom.aval.shape], broadcast_dimensions: [] }) : c.materialize(v);
    // JAX's broadcast_batcher leaves a rank-0 operand to lax and gives another one a size-1 batch axis
    // (NumPy-computed broadcast_dimensions): make_jaxpr shows them so
    const last = c.b.eqns.at(-1)!;
    last.operandBroadcast = true;
    if (!src && v.atom.aval.shape.length) last.numpyParams = true;
    return a;
  });
  if (e.prim === 'clamp') {
    // a batched bound of a scalar: broadcast to the operand's batched shape
    const x = atoms[1]!;
    for (const i of [0, 2]) {
      const a = atoms[i]!;
      if (a.aval.shape.length && a.aval.shape.length !== x.aval.shape.length) atoms[i] = c.bind('broadcast_in_dim', [a], { shape: [...x.aval.shape], broadcast_dimensions: [0] });
    }
  }
  return c.b.bind(e.prim, atoms, e.params).map((atom) => ({ atom, batched: true }));
}

function customCallRule(c: BatchCtx, e: Eqn, ins: BVal[], funcs: string[]): BVal[] {
  const atoms = ins.map((v) => c.materialize(v));
  const params = { ...e.params };
  if (e.params['prim_name'] && !e.params['batchable']) throw new Error(`NotImplementedError: Batching rule for '${String(e.params['prim_name'])}' not implemented`);
  for (const k of funcs) {
    const f = e.params[k] as Func | null;
    if (!f) continue;
    params[k] = vmapFunc(f, f.params.map(() => true), c.size);
  }
  return c.b.bind(e.prim, atoms, params).map((atom) => ({ atom, batched: true }));
}

/**
 * Batch `f` over a leading axis of size `size` on the parameters marked in
 * `batched`. All results of the new Func carry the batch axis at 0.
 */
/** The mesh axes a collective names (psum's `axes`, the others' `axis_name`). */
const namesOf = (e: Eqn): string[] | null => {
  if (PRIMS[e.prim].axes === undefined) return null;
  return ((e.params['axes'] ?? e.params['axis_name']) as string[] | undefined) ?? null;
};

/**
 * A collective over the vmap's own named axis (vmap(axis_name=)): the batch
 * is the axis, so an all-reduce reduces along the batch (an unbatched
 * operand is the same for every element: psum multiplies it by the size),
 * axis_index is the position in the batch, all_gather is the whole batch.
 * Names of enclosing pmap axes in the same collective stay a collective.
 */
function namedAxisRule(ctx: BatchCtx, e: Eqn, ins: BVal[], axis: string): BVal[] {
  const names = namesOf(e)!;
  const others = names.filter((n) => n !== axis);
  const reduce = { psum: 'reduce_sum', pmax: 'reduce_max', pmin: 'reduce_min' } as const;
  switch (e.prim) {
    case 'psum':
    case 'pmax':
    case 'pmin':
      return ins.map((x) => {
        let r: Atom;
        if (x.batched) r = ctx.bind(reduce[e.prim as 'psum' | 'pmax' | 'pmin'], [x.atom], { axes: [0], out_sharding: null });
        else if (e.prim === 'psum') r = ctx.bind('mul', [x.atom, { kind: 'lit', value: ctx.size, aval: { shape: [], dtype: x.atom.aval.dtype } }], {});
        else r = x.atom;
        if (others.length) {
          const n = e.params['axis_size'];
          r = ctx.bind(e.prim, [r], { ...e.params, axes: others, ...(typeof n === 'number' ? { axis_size: n / ctx.size } : {}) });
        }
        return { atom: r, batched: false };
      });
    case 'axis_index':
      if (others.length) break;
      return [{ atom: ctx.bind('iota', [], { dtype: 'int32', shape: [ctx.size], dimension: 0, sharding: null }), batched: true }];
    case 'all_gather': {
      if (others.length) break;
      const x = ctx.materialize(ins[0]!);
      const d = e.params['all_gather_dimension'] as number;
      const rank = x.aval.shape.length;
      const perm = [...Array(rank).keys()].slice(1);
      perm.splice(d, 0, 0);
      let g = d === 0 ? x : ctx.bind('transpose', [x], { permutation: perm });
      if (e.params['tiled']) g = ctx.bind('reshape', [g], { new_sizes: [...e.outputs[0]!.aval.shape], dimensions: null });
      return [{ atom: g, batched: false }];
    }
  }
  throw new Error(`vmap: ${e.prim} over the vmapped axis '${axis}'${others.length ? ' together with other axes' : ''} is not supported`);
}

export function vmapFunc(f: Func, batched: boolean[], size: number, axisName?: string, outBatched?: boolean[]): Func {
  const b = new FuncBuilder(`${f.name}_batched`);
  const env = new Map<number, BVal>();
  f.params.forEach((p, i) => {
    const isB = batched[i]!;
    const atom = b.addParam(isB ? { shape: [size, ...p.aval.shape], dtype: p.aval.dtype } : p.aval, p.hint);
    env.set(p.id, { atom, batched: isB });
  });
  const ctx: BatchCtx = {
    b,
    size,
    ...(axisName === undefined ? {} : { axisName }),
    bypassed: new Set(),
    bind: (prim, inputs, params) => b.bind1(prim, inputs, params),
    materialize: (v) => {
      if (v.batched) return v.atom;
      const a = v.atom.kind === 'lit' ? { ...v.atom, aval: { shape: [], dtype: v.atom.aval.dtype } } : v.atom;
      const s = a.aval.shape;
      return b.bind1('broadcast_in_dim', [a], { shape: [size, ...s], broadcast_dimensions: s.map((_, i) => i + 1) });
    },
  };
  const read = (a: Atom): BVal => (a.kind === 'lit' ? { atom: a, batched: false } : env.get(a.id)!);
  for (const e of f.eqns) {
    const ins = e.inputs.map(read);
    const first = b.eqns.length;
    let outs: BVal[];
    if (axisName !== undefined && namesOf(e)?.includes(axisName)) {
      outs = namedAxisRule(ctx, e, ins, axisName);
    } else if (!ins.some((v) => v.batched)) {
      outs = b.bind(e.prim, ins.map((v) => v.atom), e.params, e.span).map((atom) => ({ atom, batched: false }));
      if (e.operandBroadcast) b.eqns.at(-1)!.operandBroadcast = true;
    } else if (isElementwise(e.prim)) {
      outs = elementwiseRule(ctx, e, ins);
    } else {
      const r = BATCH_RULES[e.prim](ctx, e, ins);
      outs = Array.isArray(r) ? r : [r];
    }
    // a jitted call batched is still one computation (Eqn.jitRegion)
    if (e.jitRegion !== undefined) for (const q of b.eqns.slice(first)) q.jitRegion ??= e.jitRegion;
    e.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
  }
  // (outBatched: which results were batched before materialize gave every one the batch axis)
  outBatched?.push(...f.results.map((r) => read(r).batched));
  const results = f.results.map((r) => ctx.materialize(read(r)));
  if (ctx.bypassed.size) {
    const used = new Set<number>();
    for (const e of b.eqns) for (const a of e.inputs) if (a.kind === 'var') used.add(a.id);
    for (const a of results) if (a.kind === 'var') used.add(a.id);
    const dead = b.eqns.filter((e) => ctx.bypassed.has(e.outputs[0]!.id) && !used.has(e.outputs[0]!.id));
    for (const e of dead) b.eqns.splice(b.eqns.indexOf(e), 1);
  }
  return b.finish(results, axisName === undefined ? f.axisEnv : f.axisEnv?.filter((a) => a.name !== axisName));
}


// ------------------------------------------------------------------ control flow (JAX's batching rules of cond / while / scan)

/** Swap the two leading axes (a scan's stacking axis and the batch axis). */
function swapLeading(c: BatchCtx, a: Atom): Atom {
  const r = a.aval.shape.length;
  return c.bind('transpose', [a], { permutation: [1, 0, ...Array.from({ length: r - 2 }, (_, i) => i + 2)] });
}

/** `which` (batched, [B]) broadcast to `like`'s shape, for select_n. */
function selector(c: BatchCtx, which: Atom, like: Atom): Atom {
  if (like.aval.shape.length === 1) return which;
  return c.bind('broadcast_in_dim', [which], { shape: [...like.aval.shape], broadcast_dimensions: [0] });
}

/**
 * cond: a batched index turns it into a select between every branch's
 * (batched) results, as JAX does; otherwise each branch is batched alike.
 */
function condRule(c: BatchCtx, e: Eqn, [index, ...ops]: BVal[]): BVal[] {
  const branches = e.params['branches'] as Func[];
  if (index!.batched) {
    const atoms = ops.map((v) => c.materialize(v));
    const outs = branches.map((g) => c.b.inline(vmapFunc(g, g.params.map(() => true), c.size, c.axisName), atoms));
    // a value a branch's jax.debug call shows (src/lower/control_flow.ts): every branch runs, each shows its own
    const shownBy = e.params['shown_by'] as number[] | undefined;
    return outs[0]!.map((_, j) => {
      const owner = shownBy?.[j] ?? -1;
      if (owner >= 0) return { atom: outs[owner]![j]!, batched: true };
      const cases = outs.map((o) => o[j]!);
      return { atom: c.bind('select_n', [selector(c, index!.atom, cases[0]!), ...cases], {}), batched: true };
    });
  }
  const mask = ops.map((v) => v.batched);
  const bs = branches.map((g) => vmapFunc(g, mask, c.size, c.axisName));
  return c.b.bind('cond', [index!.atom, ...ops.map((v) => v.atom)], { ...e.params, branches: bs }).map((atom) => ({ atom, batched: true }));
}

/**
 * while: every carry batched; a batched predicate runs the loop while any
 * element's holds, each element's carry kept once its own predicate fails
 * (JAX's rule: the cond is `any`, the body selects).
 */
function whileRule(c: BatchCtx, e: Eqn, ins: BVal[]): BVal[] {
  const cn = e.params['cond_nconsts'] as number;
  const bn = e.params['body_nconsts'] as number;
  const cond = e.params['cond_jaxpr'] as Func;
  const body = e.params['body_jaxpr'] as Func;
  const cc = ins.slice(0, cn);
  const bc = ins.slice(cn, cn + bn);
  const carry = ins.slice(cn + bn).map((v) => c.materialize(v));
  const nK = carry.length;
  const bCond = vmapFunc(cond, [...cc.map((v) => v.batched), ...carry.map(() => true)], c.size, c.axisName);
  const bBody = vmapFunc(body, [...bc.map((v) => v.batched), ...carry.map(() => true)], c.size, c.axisName);
  // cond: any(pred)
  const cb = new FuncBuilder(`${cond.name}_any`);
  const cps = bCond.params.map((p) => cb.addParam(p.aval, p.hint));
  const [pred] = cb.inline(bCond, cps);
  const asInt = cb.bind1('convert_element_type', [pred!], { new_dtype: 'int32', weak_type: false });
  const anyI = cb.bind1('reduce_max', [asInt], { axes: [0] });
  const anyCond = cb.finish([cb.bind1('gt', [anyI, { kind: 'lit', value: 0, aval: { shape: [], dtype: 'int32' } }])], cond.axisEnv);
  // body: [cond consts, body consts, carry] → select(pred, body(carry), carry)
  const bb = new FuncBuilder(`${body.name}_select`);
  const pcc = bCond.params.slice(0, cn).map((p) => bb.addParam(p.aval, p.hint));
  const pbc = bBody.params.slice(0, bn).map((p) => bb.addParam(p.aval, p.hint));
  const pk = bBody.params.slice(bn).map((p) => bb.addParam(p.aval, p.hint));
  const [p] = bb.inline(bCond, [...pcc, ...pk]);
  const next = bb.inline(bBody, [...pbc, ...pk]);
  const sel = next.map((n, j) => {
    const w = n.aval.shape.length === 1 ? p! : bb.bind1('broadcast_in_dim', [p!], { shape: [...n.aval.shape], broadcast_dimensions: [0] });
    return bb.bind1('select_n', [w, pk[j]!, n]);
  });
  const selBody = bb.finish(sel, body.axisEnv);
  void nK;
  const outs = c.b.bind('while', [...cc.map((v) => v.atom), ...cc.map((v) => v.atom), ...bc.map((v) => v.atom), ...carry], {
    cond_jaxpr: anyCond,
    cond_nconsts: cn,
    body_jaxpr: selBody,
    body_nconsts: cn + bn,
  });
  return outs.map((atom) => ({ atom, batched: true }));
}

/** scan: every carry batched; batched xs and the ys move their batch axis behind the scanned one (and back). */
function scanRule(c: BatchCtx, e: Eqn, ins: BVal[]): BVal[] {
  const nC = e.params['num_consts'] as number;
  const nK = e.params['num_carry'] as number;
  const body = e.params['jaxpr'] as Func;
  const consts = ins.slice(0, nC);
  const carry = ins.slice(nC, nC + nK).map((v) => c.materialize(v));
  const xs = ins.slice(nC + nK);
  const bBody = vmapFunc(body, [...consts.map((v) => v.batched), ...carry.map(() => true), ...xs.map((v) => v.batched)], c.size, c.axisName);
  const outs = c.b.bind('scan', [...consts.map((v) => v.atom), ...carry, ...xs.map((v) => (v.batched ? swapLeading(c, v.atom) : v.atom))], { ...e.params, jaxpr: bBody });
  return outs.map((atom, j) => ({ atom: j < nK ? atom : swapLeading(c, atom), batched: true }));
}

/** shard_map (JAX's _shard_map_batch): the body batched; the batch axis is a leading dimension no mesh axis splits. */
function shardMapRule(c: BatchCtx, e: Eqn, ins: BVal[]): BVal[] {
  const p = shardMapParams(e.params);
  const body = vmapFunc(p.jaxpr, ins.map((v) => v.batched), c.size, c.axisName);
  const lead = (s: Spec): Spec => [null, ...s];
  const params: ShardMapParams = {
    ...p,
    jaxpr: body,
    in_specs: p.in_specs.map((s, i) => (ins[i]!.batched ? lead(s) : s)),
    out_specs: p.out_specs.map(lead),
  };
  return c.b.bind('shard_map', ins.map((v) => v.atom), asParams(params)).map((atom) => ({ atom, batched: true }));
}
