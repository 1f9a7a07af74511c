// Element rules of gather and the scatters (see passes/index_rules.ts): one
// output element in terms of operand elements, with XLA's out-of-bounds
// semantics. A gather clamps each start index into the operand (mode clip
// and promise_in_bounds; mode fill selects the fill value where a start is
// out of bounds). A scatter's element loops over the scatter positions of
// its updates: the positions whose window covers the element combine into
// it in order (scatter: the last one wins), and a window that does not fit
// the operand is dropped (mode fill/promise_in_bounds) or clamped into it
// (mode clip).
import type { KExpr, ReduceFn } from '../ir/kernel.js';
import type { GatherDims, GatherMode, ScatterDims } from '../ir/indexing.js';
import { isFloat, type DType, type Eqn } from '../ir/types.js';
import { delinearize, iadd, iconst, linearize, type IExpr } from './index_math.js';

/** index_rules.ts's RuleCtx and ElementRule (restated: that module imports this one). */
interface RuleCtx {
  operand(i: number, idx: IExpr[]): KExpr;
  freshLoop(): number;
}
type ElementRule = (ctx: RuleCtx, eqn: Eqn, idx: IExpr[], out: number) => KExpr;

const bin = (fn: 'add' | 'sub' | 'max' | 'min' | 'and' | 'eq' | 'ge' | 'le' | 'lt', a: KExpr, b: KExpr, dtype: DType = 'int32'): KExpr => ({ op: 'bin', fn, a, b, dtype });
const and = (conds: KExpr[]): KExpr | null => (conds.length ? conds.reduce((a, b) => bin('and', a, b, 'bool')) : null);
const asInt = (x: KExpr): KExpr => (x.dtype === 'int32' ? x : { op: 'cast', x, dtype: 'int32' });
const clamp = (x: KExpr, hi: number): KExpr => (x.op === 'const' ? iconst(Math.min(Math.max(x.value, 0), hi)) : bin('min', bin('max', x, iconst(0)), iconst(hi)));

/** Start index `k` of the index vector at batch position `batch` (operand 1). */
const startOf = (ctx: RuleCtx, batch: IExpr[], k: number): KExpr => asInt(ctx.operand(1, [...batch, iconst(k)]));

export const gather: ElementRule = (ctx, e, idx) => {
  const shape = e.inputs[0]!.aval.shape;
  const dn = e.params['dimension_numbers'] as GatherDims;
  const sizes = e.params['slice_sizes'] as number[];
  const mode = e.params['mode'] as GatherMode;
  const batch = idx.filter((_, d) => !dn.offset_dims.includes(d));
  const offsets = dn.offset_dims.map((d) => idx[d]!);
  const inBounds: KExpr[] = [];
  let w = 0;
  const opIdx = shape.map((n, d) => {
    const offset = dn.collapsed_slice_dims.includes(d) ? iconst(0) : offsets[w++]!;
    const k = dn.start_index_map.indexOf(d);
    if (k < 0) return offset;
    const raw = startOf(ctx, batch, k);
    const hi = n - sizes[d]!;
    if (mode === 'fill') inBounds.push(bin('and', bin('ge', raw, iconst(0), 'bool'), bin('le', raw, iconst(hi), 'bool'), 'bool'));
    return iadd(clamp(raw, hi), offset);
  });
  const value = ctx.operand(0, opIdx);
  const cond = and(inBounds);
  if (!cond) return value;
  const fill = e.params['fill_value'] as number;
  return { op: 'select', cond, a: value, b: { op: 'const', value: fill, dtype: value.dtype }, dtype: value.dtype };
};

/** The combination of the element with the covering updates, and the reduction that folds the updates. */
const COMBINE: Record<'scatter_add' | 'scatter_mul' | 'scatter_min' | 'scatter_max', { fn: ReduceFn; op: 'add' | 'mul' | 'min' | 'max' }> = {
  scatter_add: { fn: 'sum', op: 'add' },
  scatter_mul: { fn: 'prod', op: 'mul' },
  scatter_min: { fn: 'min', op: 'min' },
  scatter_max: { fn: 'max', op: 'max' },
};

/** The identity of a reduction, for positions whose window misses the element. */
function identity(fn: ReduceFn, dtype: DType): number {
  if (fn === 'sum') return 0;
  if (fn === 'prod') return 1;
  const big = isFloat(dtype) ? Infinity : dtype === 'int32' ? 2147483647 : dtype === 'uint32' ? 4294967295 : 1;
  const small = isFloat(dtype) ? -Infinity : dtype === 'int32' ? -2147483648 : 0;
  return fn === 'min' ? big : small;
}

export const scatter: ElementRule = (ctx, e, idx) => {
  const shape = e.inputs[0]!.aval.shape;
  const upd = e.inputs[2]!.aval.shape;
  const dn = e.params['dimension_numbers'] as ScatterDims;
  const mode = e.params['mode'] as GatherMode;
  const batchShape = e.inputs[1]!.aval.shape.slice(0, -1);
  const extent = batchShape.reduce((a, b) => a * b, 1);
  const dtype = e.outputs[0]!.aval.dtype;
  const windowDims = shape.map((_, d) => d).filter((d) => !dn.inserted_window_dims.includes(d));
  const windowSize = (d: number): number => upd[dn.update_window_dims[windowDims.indexOf(d)]!]!;

  /** Whether scatter position `s` covers this element, and the element of the updates it brings. */
  const at = (s: IExpr): { match: KExpr; lin: IExpr } => {
    const batch = delinearize(s, batchShape);
    const conds: KExpr[] = [];
    const window: IExpr[] = [];
    shape.forEach((n, d) => {
      const inserted = dn.inserted_window_dims.includes(d);
      const size = inserted ? 1 : windowSize(d);
      const k = dn.scatter_dims_to_operand_dims.indexOf(d);
      let start: KExpr = iconst(0);
      if (k >= 0) {
        const raw = startOf(ctx, batch, k);
        if (mode === 'clip') start = clamp(raw, n - size);
        else {
          start = raw;
          conds.push(bin('ge', raw, iconst(0), 'bool'), bin('le', raw, iconst(n - size), 'bool'));
        }
      }
      const off = start.op === 'const' && start.value === 0 ? idx[d]! : bin('sub', idx[d]!, start);
      if (inserted) conds.push(bin('eq', off, iconst(0), 'bool'));
      else {
        if (k >= 0) conds.push(bin('ge', off, iconst(0), 'bool'), bin('lt', off, iconst(size), 'bool'));
        window.push(off);
      }
    });
    // the updates' multi-index: scatter (batch) dims from `s`, window dims from the offsets
    const updIdx: IExpr[] = [];
    let b = 0;
    let w = 0;
    for (let d = 0; d < upd.length; d++) updIdx.push(dn.update_window_dims.includes(d) ? window[w++]! : batch[b++]!);
    const match = and(conds) ?? { op: 'const', value: 1, dtype: 'bool' };
    // off the window the offsets may leave the updates: read element 0 there
    return { match, lin: { op: 'select', cond: match, a: linearize(updIdx, upd), b: iconst(0), dtype: 'int32' } };
  };

  const current = ctx.operand(0, idx);
  if (extent === 0) return current;
  const id = ctx.freshLoop();
  const r: IExpr = { op: 'rvar', id, dtype: 'int32', bound: extent };
  const here = at(r);
  const updateAt = (lin: IExpr): KExpr => ctx.operand(2, delinearize(lin, upd));
  if (e.prim === 'scatter') {
    // the last covering position, or -1
    const last: KExpr = { op: 'reduce', fn: 'max', id, extent, body: { op: 'select', cond: here.match, a: r, b: iconst(-1), dtype: 'int32' }, dtype: 'int32' };
    const found = bin('ge', last, iconst(0), 'bool');
    const winner = at({ op: 'select', cond: found, a: last, b: iconst(0), dtype: 'int32' });
    return { op: 'select', cond: found, a: updateAt(winner.lin), b: current, dtype };
  }
  const { fn, op } = COMBINE[e.prim as keyof typeof COMBINE];
  const body: KExpr = { op: 'select', cond: here.match, a: updateAt(here.lin), b: { op: 'const', value: identity(fn, dtype), dtype }, dtype };
  const folded: KExpr = { op: 'reduce', fn, id, extent, body, dtype };
  if (dtype === 'bool') return { op: 'bin', fn: op === 'add' || op === 'max' ? 'or' : 'and', a: current, b: folded, dtype };
  return { op: 'bin', fn: op, a: current, b: folded, dtype };
};

/** Eqn helper for fusion's cost model: the scatter positions a scatter's element loops over. */
export function scatterExtent(e: Eqn): number {
  return e.inputs[1]!.aval.shape.slice(0, -1).reduce((a, b) => a * b, 1);
}
