// NumPy indexing of JAX arrays beyond static slices, lowered as JAX lowers it
// (jax/_src/numpy/indexing.py, jax/_src/ops/scatter.py): `x[i]` with a
// traced scalar is a dynamic_slice; integer-array indices and static boolean
// masks become one gather (JAX's _index_to_gather, whose plan also drives
// the scatters of `x.at[idx].set/add/…`). Gathers clamp out-of-bounds
// indices (mode promise_in_bounds) unless asked otherwise; scatters drop
// out-of-bounds updates.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { lit } from '../ir/builder.js';
import type { GatherDims, GatherMode, ScatterPrim } from '../ir/indexing.js';
import type { Atom, DType } from '../ir/types.js';
import { size } from '../ir/types.js';
import { castScalar, fmtShape, promote, sliceIndices, type ArrayOps, type IndexItem } from './arrays.js';
import { NdArray, PyObject, Tracer, type PyValue } from './values.js';
import { concreteValue, runtimeOnlyError } from './const_eval.js';

/** Options of a gather or scatter from indexing (`x.at[idx].get(mode=…)`, jnp.take). */
export interface IndexOptions {
  mode: GatherMode | null;
  fillValue: number | null;
  indicesAreSorted: boolean;
  uniqueIndices: boolean;
}
export const DEFAULT_OPTIONS: IndexOptions = { mode: null, fillValue: null, indicesAreSorted: false, uniqueIndices: false };

/** `mode=` of an indexing function as JAX's GatherScatterMode.from_any reads it. */
export function parseMode(v: PyValue, span: Span): GatherMode | null {
  if (v === null) return null;
  if (v === 'clip') return 'clip';
  if (v === 'fill' || v === 'drop') return 'fill';
  if (v === 'promise_in_bounds') return 'promise_in_bounds';
  throw new CompileError(`ValueError: Unknown gather mode "${typeof v === 'string' ? v : String(v)}"`, span);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const isAdvanced = (it: IndexItem): boolean => (it.kind === 'array' && it.value.aval.shape.length > 0) || it.kind === 'mask';

/** `x[items]`: static slicing, a dynamic_slice, or a gather, as JAX's rewriting_take picks. */
export function indexArray(ops: ArrayOps, x: PyValue, items: IndexItem[], span: Span, opts: IndexOptions = DEFAULT_OPTIONS): Tracer {
  const arr = ops.asArray(x, span);
  if (opts.mode !== 'fill' && !items.some((it) => it.kind === 'array' || it.kind === 'mask')) return ops.index(arr, items, span);
  checkCount(arr.aval.shape, items, span);
  const dynamic = !items.some(isAdvanced) && items.every((it) => it.kind !== 'slice' || it.step === null || it.step === 1 || it.step === -1);
  if (dynamic && (opts.mode === null || opts.mode === 'promise_in_bounds' || opts.mode === 'clip')) return dynamicIndex(ops, arr, items, span);
  return gatherIndex(ops, arr, items, span, opts);
}

function checkCount(shape: readonly number[], items: IndexItem[], span: Span): void {
  const consumed = items.reduce((n, it) => n + (it.kind === 'mask' ? it.shape.length : it.kind === 'none' || it.kind === 'ellipsis' ? 0 : 1), 0);
  if (consumed > shape.length) throw new CompileError(`IndexError: Too many indices: ${shape.length}-dimensional array indexed with ${consumed} regular indices.`, span);
}

/** The items with the ellipsis replaced by full slices (and trailing full slices added). */
function expandEllipsis(shape: readonly number[], items: IndexItem[]): IndexItem[] {
  const consumed = items.reduce((n, it) => n + (it.kind === 'mask' ? it.shape.length : it.kind === 'none' || it.kind === 'ellipsis' ? 0 : 1), 0);
  const full: IndexItem = { kind: 'slice', start: null, stop: null, step: null };
  const out: IndexItem[] = [];
  for (const it of items) {
    if (it.kind === 'ellipsis') for (let k = 0; k < shape.length - consumed; k++) out.push(full);
    else out.push(it);
  }
  if (!items.some((it) => it.kind === 'ellipsis')) for (let k = consumed; k < shape.length; k++) out.push(full);
  return out;
}

/** JAX's normalize_indices for an array index: negative entries count from the end. */
function normalizeIndex(ops: ArrayOps, t: Tracer, n: number, span: Span): Tracer {
  if (t.aval.dtype === 'uint32') return t;
  if (!t.aval.shape.length) {
    // a scalar: literal operands, as JAX's jaxpr shows them (no promotion of a weak index)
    const neg = ops.bind('lt', [t.atom, lit(0, t.aval.dtype)], {}, span);
    return ops.tracer(ops.bind('select_n', [neg, t.atom, ops.bind('add', [t.atom, lit(n, t.aval.dtype)], {}, span)], {}, span));
  }
  const neg = ops.compare('lt', t, 0n, span);
  return ops.select(neg, ops.binary('add', t, BigInt(n), span), t, span);
}

/** JAX's _dynamic_slice path: scalar array indices and unit-step slices. */
function dynamicIndex(ops: ArrayOps, x: Tracer, items: IndexItem[], span: Span): Tracer {
  const shape = x.aval.shape;
  // each start: a static int or a traced scalar, with its axis size
  const starts: { v: number | Tracer; n: number }[] = [];
  const sizes: number[] = [];
  const rev: number[] = [];
  const squeeze: number[] = [];
  const newAxes: number[] = [];
  let axis = 0;
  for (const it of expandEllipsis(shape, items)) {
    if (it.kind === 'none') {
      newAxes.push(starts.length - squeeze.length + newAxes.length);
      continue;
    }
    const n = shape[axis]!;
    if (it.kind === 'int' || it.kind === 'array') {
      if (n === 0) throw new CompileError(`IndexError: index is out of bounds for axis ${axis} with size 0`, span);
      // a static out-of-bounds int is clamped into the axis, as JAX's dynamic_slice does
      starts.push({ v: it.kind === 'int' && (it.value < -n || it.value >= n) ? (it.value < 0 ? 0 : n - 1) : it.value, n });
      sizes.push(1);
      squeeze.push(axis);
    } else if (it.kind === 'slice') {
      const [s, e, st] = sliceIndices(it.start, it.stop, it.step, n);
      if (st < 0) {
        const start = e + 1 + (Math.abs(s - e - 1) % Math.abs(st));
        starts.push({ v: start, n });
        sizes.push(Math.max(0, s + 1 - start));
        rev.push(axis);
      } else {
        starts.push({ v: s, n });
        sizes.push(Math.max(0, e - s));
      }
    }
    axis++;
  }
  // slicing.dynamic_slice's _dynamic_slice_indices: negative starts count from the end. With several
  // starts, JAX first makes each an int32 array, so static ones are normalized by equations too.
  const many = starts.length > 1;
  const atoms = starts.map(({ v, n }): Atom => {
    if (typeof v === 'number' && !many) return lit(v < 0 ? v + n : v, 'int32');
    const i = typeof v === 'number' ? lit(v, 'int32') : many ? ops.convert(v, 'int32', span).atom : v.atom;
    const neg = ops.bind('lt', [i, lit(0, 'int32')], {}, span);
    const wrapped = ops.bind('add', [i, lit(n, i.aval.dtype)], {}, span);
    return ops.bind('select_n', [neg, i, wrapped], {}, span);
  });
  let a = ops.bind('dynamic_slice', [x.atom, ...atoms.map((t) => (t.aval.dtype === 'int32' ? t : ops.convert(ops.tracer(t), 'int32', span).atom))], { slice_sizes: sizes }, span);
  if (rev.length) a = ops.bind('rev', [a], { dimensions: rev }, span);
  if (squeeze.length) a = ops.bind('squeeze', [a], { dimensions: squeeze }, span);
  return expandDims(ops, ops.tracer(a), newAxes, span);
}

/** lax.expand_dims: one broadcast_in_dim adding every axis of `dims`. */
function expandDims(ops: ArrayOps, y: Tracer, dims: number[], span: Span): Tracer {
  if (!dims.length) return y;
  const rank = y.aval.shape.length + dims.length;
  const shape: number[] = [];
  const bdims: number[] = [];
  let j = 0;
  for (let d = 0; d < rank; d++) {
    if (dims.includes(d)) shape.push(1);
    else {
      shape.push(y.aval.shape[j++]!);
      bdims.push(d);
    }
  }
  return ops.tracer(ops.bind('broadcast_in_dim', [y.atom], { shape, broadcast_dimensions: bdims }, span));
}

/** JAX's _GatherIndexer. */
interface GatherPlan {
  sliceShape: number[];
  gatherSliceShape: number[];
  /** null: no index (nothing to gather, the whole operand is the slice). */
  indices: Atom | null;
  dnums: GatherDims;
  unique: boolean;
  sorted: boolean;
  reversedYDims: number[];
  newaxisDims: number[];
}

/** Boolean masks replaced by the integer arrays of their true positions (np.where), as JAX's expand_bool_indices. */
function expandMasks(ops: ArrayOps, shape: readonly number[], items: IndexItem[], span: Span): IndexItem[] {
  if (!items.some((it) => it.kind === 'mask')) return items;
  const consumed = items.reduce((n, it) => n + (it.kind === 'mask' ? it.shape.length : it.kind === 'none' || it.kind === 'ellipsis' ? 0 : 1), 0);
  const out: IndexItem[] = [];
  let axis = 0;
  items.forEach((it, position) => {
    if (it.kind === 'ellipsis') axis += shape.length - consumed;
    else if (it.kind !== 'none' && it.kind !== 'mask') axis++;
    if (it.kind !== 'mask') {
      out.push(it);
      return;
    }
    const expected = shape.slice(axis, axis + it.shape.length);
    if (!it.shape.every((s, i) => s === 0 || s === expected[i])) {
      throw new CompileError(`IndexError: boolean index did not match shape of indexed array in index ${position}: got ${fmtShape(it.shape)}, expected ${fmtShape(expected)}`, span);
    }
    const where: number[][] = it.shape.map(() => []);
    const st = it.shape.map((_, i) => it.shape.slice(i + 1).reduce((a, b) => a * b, 1));
    it.data.forEach((b, lin) => {
      if (b) st.forEach((s, i) => where[i]!.push(Math.floor(lin / s) % it.shape[i]!));
    });
    for (const w of where) out.push({ kind: 'array', value: ops.asArray(new NdArray([w.length], 'int32', w), span) });
    axis += it.shape.length;
  });
  return out;
}

/** JAX's _index_to_gather. */
function indexToGather(ops: ArrayOps, shape: readonly number[], rawItems: IndexItem[], span: Span): GatherPlan {
  const given = expandMasks(ops, shape, rawItems, span);
  const advPos = given.flatMap((it, i) => (it.kind === 'array' || it.kind === 'int' ? [i] : []));
  const contiguous = advPos.every((p, i) => i === 0 || p - advPos[i - 1]! === 1);
  const items = expandEllipsis(shape, given);
  const advancedIndexer = items.some((it) => it.kind === 'array' && it.value.aval.shape.length > 0);

  // normalize_indices: per consumed axis
  const normed: IndexItem[] = [];
  let ax = 0;
  for (const it of items) {
    if (it.kind === 'none') {
      normed.push(it);
      continue;
    }
    const n = shape[ax++]!;
    if (it.kind === 'int') normed.push({ kind: 'int', value: it.value < 0 ? it.value + n : it.value });
    else if (it.kind === 'array') normed.push({ kind: 'array', value: normalizeIndex(ops, it.value, n, span) });
    else normed.push(it);
  }

  // the advanced indices: (index, position in the items, position in x's axes)
  const adv: { index: Tracer | number; itemPos: number; xAxis: number }[] = [];
  if (advancedIndexer) {
    let j = 0;
    normed.forEach((it, i) => {
      if (it.kind === 'none') return;
      if (it.kind === 'array') adv.push({ index: it.value, itemPos: i, xAxis: j });
      else if (it.kind === 'int') adv.push({ index: it.value, itemPos: i, xAxis: j });
      j++;
    });
  }
  const advItemPos = adv.map((a) => a.itemPos);

  let xAxis = 0;
  let yAxis = 0;
  let collapsedYAxis = 0;
  const offsetDims: number[] = [];
  const collapsed: number[] = [];
  const startIndexMap: number[] = [];
  const gatherIndices: [Atom, number][] = [];
  const gatherIndicesShape: number[] = [];
  const sliceShape: number[] = [];
  const newaxisDims: number[] = [];
  const reversedYDims: number[] = [];
  const gatherSliceShape: number[] = [];
  const asIndex = (v: Tracer | number): Atom => (typeof v === 'number' ? lit(v, 'int32') : ops.convert(v, 'int32', span).atom);

  normed.forEach((it, pos) => {
    if (adv.length && ((contiguous && pos === advItemPos[0]) || (!contiguous && pos === 0))) {
      const arrs = adv.map((a) => a.index);
      const bshape = arrs.reduce<number[]>((s, a) => broadcastTo(s, typeof a === 'number' ? [] : a.aval.shape, span), []);
      const start = gatherIndicesShape.length;
      for (const a of arrs) {
        const atom = typeof a === 'number' ? lit(a, 'int32') : a.atom;
        const b = sameShape(atom.aval.shape, bshape) ? atom : ops.broadcastTo(atom, bshape, span);
        gatherIndices.push([asIndex(typeof a === 'number' && !bshape.length ? a : ops.tracer(b)), start]);
      }
      gatherIndicesShape.push(...bshape);
      startIndexMap.push(...adv.map((a) => a.xAxis));
      collapsed.push(...adv.map((a) => a.xAxis));
      sliceShape.push(...bshape);
      yAxis += bshape.length;
      collapsedYAxis += bshape.length;
    }
    if (advItemPos.includes(pos)) {
      xAxis++;
      gatherSliceShape.push(1);
      return;
    }
    const n = shape[xAxis]!;
    if (it.kind === 'int' || (it.kind === 'array' && it.value.aval.shape.length === 0)) {
      if (n === 0) throw new CompileError(`IndexError: index is out of bounds for axis ${xAxis} with size 0`, span);
      gatherIndices.push([asIndex(it.kind === 'int' ? it.value : it.value), gatherIndicesShape.length]);
      collapsed.push(xAxis);
      gatherSliceShape.push(1);
      startIndexMap.push(xAxis);
      xAxis++;
    } else if (it.kind === 'none') {
      sliceShape.push(1);
      newaxisDims.push(yAxis);
      yAxis++;
    } else if (it.kind === 'slice') {
      const [s, e, step] = sliceIndices(it.start, it.stop, it.step, n);
      const count = step > 0 ? Math.max(0, Math.ceil((e - s) / step)) : Math.max(0, Math.ceil((e - s) / step));
      sliceShape.push(count);
      if (step === 1) {
        if (count !== n) {
          gatherIndices.push([lit(s, 'int32'), gatherIndicesShape.length]);
          startIndexMap.push(xAxis);
        }
        gatherSliceShape.push(count);
        offsetDims.push(collapsedYAxis);
      } else {
        // start + step * iota(count), reversed for a negative step
        let idx: Atom = ops.bind('iota', [], { dtype: 'int32', shape: [count], dimension: 0, sharding: null }, span);
        idx = ops.binary('mul', BigInt(step), ops.tracer(idx), span).atom;
        idx = ops.binary('add', BigInt(s), ops.tracer(idx), span).atom;
        if (step < 0) {
          reversedYDims.push(collapsedYAxis);
          idx = ops.bind('rev', [idx], { dimensions: [0] }, span);
        }
        gatherSliceShape.push(1);
        gatherIndices.push([idx, gatherIndicesShape.length]);
        startIndexMap.push(xAxis);
        gatherIndicesShape.push(count);
        collapsed.push(xAxis);
      }
      collapsedYAxis++;
      yAxis++;
      xAxis++;
    }
  });

  let indices: Atom | null;
  if (!gatherIndices.length) indices = null;
  else if (gatherIndices.length === 1) {
    const g = gatherIndices[0]![0];
    indices = ops.bind('broadcast_in_dim', [g], { shape: [...g.aval.shape, 1], broadcast_dimensions: range(g.aval.shape.length) }, span);
  } else {
    const target = [...gatherIndicesShape, 1];
    const cols = gatherIndices.map(([g, i]) => (sameShape(g.aval.shape, target) ? g : ops.bind('broadcast_in_dim', [g], { shape: target, broadcast_dimensions: range(g.aval.shape.length).map((d) => d + i) }, span)));
    indices = ops.bind('concatenate', cols, { dimension: gatherIndicesShape.length }, span);
  }
  return {
    sliceShape,
    gatherSliceShape,
    indices,
    dnums: { offset_dims: offsetDims, collapsed_slice_dims: [...collapsed].sort((a, b) => a - b), start_index_map: startIndexMap, operand_batching_dims: [], start_indices_batching_dims: [] },
    unique: !adv.length,
    sorted: !adv.length,
    reversedYDims,
    newaxisDims,
  };
}

const sameShape = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);

/** NumPy broadcasting of two index shapes, with NumPy's error for advanced indices. */
function broadcastTo(a: readonly number[], b: readonly number[], span: Span): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new CompileError(`ValueError: Incompatible shapes for broadcasting: shapes=[${fmtShape(a)}, ${fmtShape(b)}]`, span);
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** The default fill value of a fill-mode gather (slicing.gather): NaN, the integer minimum, True. */
function defaultFill(dtype: DType): number {
  if (dtype === 'float32') return NaN;
  if (dtype === 'int32') return -2147483648;
  if (dtype === 'uint32') return 4294967295;
  return 1;
}

/** JAX's _gather. */
function gatherIndex(ops: ArrayOps, x: Tracer, items: IndexItem[], span: Span, opts: IndexOptions): Tracer {
  const plan = indexToGather(ops, x.aval.shape, items, span);
  const dtype = x.aval.dtype;
  if (size(plan.sliceShape) === 0) return ops.full(plan.sliceShape, 0, dtype, span);
  let y = x.atom;
  if (plan.indices && size(plan.indices.aval.shape) !== 0) {
    const mode = opts.mode ?? 'promise_in_bounds';
    y = ops.bind(
      'gather',
      [y, plan.indices],
      {
        dimension_numbers: plan.dnums,
        slice_sizes: plan.gatherSliceShape,
        indices_are_sorted: opts.indicesAreSorted || plan.sorted,
        unique_indices: opts.uniqueIndices || plan.unique,
        mode,
        fill_value: mode === 'fill' ? castScalar(opts.fillValue ?? defaultFill(dtype), dtype) : null,
      },
      span,
    );
  }
  if (plan.reversedYDims.length) y = ops.bind('rev', [y], { dimensions: plan.reversedYDims }, span);
  return expandDims(ops, ops.tracer(y), plan.newaxisDims, span);
}

/** JAX's _scatter_update / _scatter_impl: `x.at[items].<op>(y)` with `prim` the scatter. */
export function scatterIndex(ops: ArrayOps, xv: PyValue, items: IndexItem[], yv: PyValue, prim: ScatterPrim, span: Span, opts: IndexOptions = DEFAULT_OPTIONS): Tracer {
  const x0 = ops.asArray(xv, span);
  checkCount(x0.aval.shape, items, span);
  const isIntX = x0.aval.dtype === 'int32' || x0.aval.dtype === 'uint32';
  // a Python scalar stays a literal (JAX's jaxpr shows `7.0:f32[]`); an int fitting an integer x takes x's dtype
  let y0: Atom = typeof yv === 'bigint' && isIntX ? lit(castScalar(Number(yv), x0.aval.dtype), x0.aval.dtype) : ops.atom(yv, span);
  const plan = indexToGather(ops, x0.aval.shape, items, span);
  if (size(plan.sliceShape) === 0) return x0;
  const dtype = promote(x0.aval, y0.aval);
  const x = x0.aval.dtype === dtype ? x0 : ops.convert(x0, dtype, span);
  if (y0.aval.dtype !== dtype) y0 = y0.kind === 'lit' ? lit(castScalar(y0.value, dtype), dtype) : ops.convert(ops.tracer(y0), dtype, span).atom;
  // y broadcast to the slice shape (jnp.broadcast_to), None axes squeezed, negative steps reversed
  const ys = y0.aval.shape;
  if (ys.length > plan.sliceShape.length || ys.some((d, i) => d !== 1 && d !== plan.sliceShape[plan.sliceShape.length - ys.length + i])) {
    throw new CompileError(`ValueError: Incompatible shapes for broadcasting: ${fmtShape(ys)} and requested shape ${fmtShape(plan.sliceShape)}`, span);
  }
  let y = ops.broadcastTo(y0, plan.sliceShape, span);
  if (plan.newaxisDims.length) y = ops.bind('squeeze', [y], { dimensions: plan.newaxisDims }, span);
  if (plan.reversedYDims.length) y = ops.bind('rev', [y], { dimensions: plan.reversedYDims }, span);
  // no index at all (x.at[:]): one scatter position whose window is the whole operand
  const indices = plan.indices ?? ops.bind('iota', [], { dtype: 'int32', shape: [0], dimension: 0, sharding: null }, span);
  const out = ops.bind(
    prim,
    [x.atom, indices, y],
    {
      dimension_numbers: {
        update_window_dims: plan.dnums.offset_dims,
        inserted_window_dims: plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims: plan.dnums.start_index_map,
        operand_batching_dims: [],
        scatter_indices_batching_dims: [],
      },
      indices_are_sorted: plan.sorted || opts.indicesAreSorted,
      unique_indices: plan.unique || opts.uniqueIndices,
      mode: opts.mode ?? 'fill',
      update_jaxpr: null,
      update_consts: [],
    },
    span,
  );
  const res = ops.tracer(out);
  if (x0.aval.dtype === dtype && !!x0.aval.weak === !!res.aval.weak) return res;
  return ops.tracer(ops.bind('convert_element_type', [out], { new_dtype: x0.aval.dtype, weak_type: !!x0.aval.weak }, span));
}

/** The index item of an array-valued index at `position` (a NumPy bool array is a static mask). */
export function arrayIndexItem(ops: ArrayOps, v: PyValue, position: number, span: Span): IndexItem {
  const dtype = v instanceof NdArray ? v.dtype : ops.aval(v, span).dtype;
  if (v instanceof NdArray && dtype === 'bool') return { kind: 'mask', shape: [...v.shape], data: v.data.map((b) => b !== 0) };
  if (dtype === 'bool') {
    // outside jit (eager code, differentiation) JAX has the mask's value: known at compile time when its cone is
    const c = concreteValue(v);
    if (typeof c !== 'string') return { kind: 'mask', shape: c.shape, data: c.data.map((b) => b !== 0) };
    if (c === 'runtime') throw runtimeOnlyError('a boolean mask index (its result shape depends on its values)', span);
    throw new CompileError(`NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[${ops.aval(v, span).shape.join(',')}]\n\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError`, span, [
      'a boolean mask whose values are known only when the program runs has no static result shape: use jnp.where(mask, x, 0) or an integer index array instead',
    ]);
  }
  if (dtype === 'float32' || dtype === 'float64') throw new CompileError(`IndexError: Indexer must have integer or boolean type, got indexer with type ${dtype} at position ${position}`, span);
  return { kind: 'array', value: ops.asArray(v, span) };
}

/** `x.at`: JAX's _IndexUpdateHelper. */
export class PyIndexUpdateHelper extends PyObject {
  readonly typeName = '_IndexUpdateHelper';
  constructor(readonly array: PyValue) {
    super();
  }
}

/** `x.at[idx]`: JAX's _IndexUpdateRef. */
export class PyIndexUpdateRef extends PyObject {
  readonly typeName = '_IndexUpdateRef';
  constructor(
    readonly array: PyValue,
    readonly index: PyValue,
  ) {
    super();
  }
}

/** What `x.at[idx].<method>` needs from the evaluator. */
export interface UpdateCtx {
  ops: ArrayOps;
  indexItems(key: PyValue, span: Span): IndexItem[];
  /** Call a Python function on one argument (`.apply(func)`). */
  call(fn: PyValue, arg: PyValue, span: Span): PyValue;
  /** A value that must be static, as Python. */
  truthy(v: PyValue, span: Span): boolean;
}

type CallLike = { args: PyValue[]; kwargs: Map<string, PyValue>; span: Span };

/** The methods of `x.at[idx]` (JAX's _IndexUpdateRef), each as JAX writes it. */
export function indexUpdateMethod(c: UpdateCtx, ref: PyIndexUpdateRef, name: string, call: CallLike): PyValue {
  const { ops } = c;
  const span = call.span;
  const allowed = name === 'get' ? ['indices_are_sorted', 'unique_indices', 'mode', 'fill_value', 'out_sharding'] : ['indices_are_sorted', 'unique_indices', 'mode', 'out_sharding'];
  for (const k of call.kwargs.keys()) if (!allowed.includes(k)) throw new CompileError(`TypeError: _IndexUpdateRef.${name}() got an unexpected keyword argument '${k}'`, span);
  const kw = (k: string): PyValue => call.kwargs.get(k) ?? null;
  const fill = kw('fill_value');
  if (fill !== null && typeof fill !== 'number' && typeof fill !== 'bigint' && typeof fill !== 'boolean') throw new CompileError('ValueError: fill_value argument to indexed get() must be a scalar', span);
  const opts: IndexOptions = {
    mode: parseMode(kw('mode'), span),
    fillValue: fill === null ? null : Number(fill),
    indicesAreSorted: c.truthy(kw('indices_are_sorted') ?? false, span),
    uniqueIndices: c.truthy(kw('unique_indices') ?? false, span),
  };
  const items = (): IndexItem[] => c.indexItems(ref.index, span);
  const value = (): PyValue => {
    const v = call.args[0];
    if (v === undefined) throw new CompileError(`TypeError: _IndexUpdateRef.${name}() missing 1 required positional argument: 'values'`, span);
    return v;
  };
  const scatter = (prim: ScatterPrim): Tracer => scatterIndex(ops, ref.array, items(), value(), prim, span, opts);
  switch (name) {
    case 'get':
      return indexArray(ops, ref.array, items(), span, opts);
    case 'set':
      return scatter('scatter');
    case 'add':
      return scatter('scatter_add');
    case 'multiply':
    case 'mul':
      return scatter('scatter_mul');
    case 'min':
      return scatter('scatter_min');
    case 'max':
      return scatter('scatter_max');
    case 'divide':
    case 'power': {
      // x / scatter_mul(ones, idx, y): JAX's divide and power
      const x = ops.asArray(ref.array, span);
      const ones = ops.full([...x.aval.shape], 1, x.aval.dtype, span);
      const factors = scatterIndex(ops, ones, items(), value(), 'scatter_mul', span, opts);
      return name === 'divide' ? ops.binary('div', x, factors, span) : ops.power(x, factors, span);
    }
    case 'apply': {
      // func applied once to each indexed element: func(x) where a scatter marks the indexed positions
      const fn = call.args[0];
      if (fn === undefined) throw new CompileError("TypeError: _IndexUpdateRef.apply() missing 1 required positional argument: 'func'", span);
      const x = ops.asArray(ref.array, span);
      const applied = ops.asArray(c.call(fn, x, span), span);
      const none = ops.full([...x.aval.shape], 0, 'bool', span);
      const marked = scatterIndex(ops, none, items(), true, 'scatter', span, opts);
      return ops.select(marked, applied.aval.dtype === x.aval.dtype ? applied : ops.convert(applied, x.aval.dtype, span), x, span);
    }
  }
  throw new CompileError(`AttributeError: '_IndexUpdateRef' object has no attribute '${name}'`, span);
}

/** lax.sort of several same-shape operands along `dimension`, the first `numKeys` as keys. */
export function sortArrays(ops: ArrayOps, xs: Tracer[], dimension: number, isStable: boolean, numKeys: number, span: Span): Tracer[] {
  return ops.bindN('sort', xs.map((x) => x.atom), { dimension, is_stable: isStable, num_keys: numKeys }, span).map((a) => ops.tracer(a));
}

/** lax.broadcasted_iota. */
export function broadcastedIota(ops: ArrayOps, dtype: DType, shape: readonly number[], dimension: number, span: Span): Tracer {
  return ops.tracer(ops.bind('iota', [], { dtype, shape: [...shape], dimension, sharding: null }, span));
}

/** lax.rev along one dimension. */
export function revDim(ops: ArrayOps, x: Tracer, dimension: number, span: Span): Tracer {
  return ops.tracer(ops.bind('rev', [x.atom], { dimensions: [dimension] }, span));
}

/** A gather of `x` with `indices` (index vectors on the last axis) and JAX's parameters. */
export function gatherWith(ops: ArrayOps, x: Tracer, indices: Tracer, dnums: Omit<GatherDims, 'operand_batching_dims' | 'start_indices_batching_dims'>, sliceSizes: number[], span: Span, opts: IndexOptions = DEFAULT_OPTIONS): Tracer {
  const mode = opts.mode ?? 'promise_in_bounds';
  const params = {
    dimension_numbers: { ...dnums, operand_batching_dims: [], start_indices_batching_dims: [] },
    slice_sizes: sliceSizes,
    indices_are_sorted: opts.indicesAreSorted,
    unique_indices: opts.uniqueIndices,
    mode,
    fill_value: mode === 'fill' ? castScalar(opts.fillValue ?? defaultFill(x.aval.dtype), x.aval.dtype) : null,
  };
  return ops.tracer(ops.bind('gather', [x.atom, indices.atom], params, span));
}

/** JAX's _normalize_index for an index array (negative counts from the end). */
export const normalizeArrayIndex = normalizeIndex;

/** lax.top_k along the last axis: the k largest (NaN largest), ties in index order, as a stable descending sort. */
export function topK(ops: ArrayOps, x: Tracer, k: number, span: Span): [Tracer, Tracer] {
  const r = x.aval.shape.length;
  const n = x.aval.shape[r - 1]!;
  const iota = revDim(ops, broadcastedIota(ops, 'int32', x.aval.shape, r - 1, span), r - 1, span);
  const [vals, idx] = sortArrays(ops, [revDim(ops, x, r - 1, span), iota], r - 1, true, 1, span).map((t) => revDim(ops, t, r - 1, span));
  const first = (t: Tracer): Tracer => (k === n ? t : ops.tracer(ops.bind('slice', [t.atom], { start_indices: x.aval.shape.map(() => 0), limit_indices: [...x.aval.shape.slice(0, -1), k], strides: null }, span)));
  return [first(vals!), first(idx!)];
}
