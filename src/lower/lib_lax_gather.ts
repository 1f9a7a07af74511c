// jax.lax's gather and scatter front ends (slicing.py): lax.gather and
// lax.scatter / scatter_add / scatter_sub / scatter_mul / scatter_min /
// scatter_max with JAX's GatherDimensionNumbers, ScatterDimensionNumbers and
// GatherScatterMode, binding the IR's gather and scatter primitives
// (src/ir/indexing.ts) that jnp indexing and `.at[]` lower to.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { ScatterDims, ScatterPrim } from '../ir/indexing.js';
import { defineMembers, ENUM } from './enums.js';
import { iterate } from './expr.js';
import { gatherWith, parseMode, type IndexOptions } from './indexing.js';
import type { Interp } from './interp.js';
import { arg } from './modules.js';
import { truthy } from './pyops.js';
import { PyClass, PyInstance, PyTuple, PyUserClass, type CallArgs, type PyValue, type Tracer } from './values.js';

const GATHER_FIELDS = ['offset_dims', 'collapsed_slice_dims', 'start_index_map', 'operand_batching_dims', 'start_indices_batching_dims'];
const SCATTER_FIELDS = ['update_window_dims', 'inserted_window_dims', 'scatter_dims_to_operand_dims', 'operand_batching_dims', 'scatter_indices_batching_dims'];
const noBatching = (fields: string[]): Map<string, PyValue> => new Map(fields.slice(3).map((f) => [f, new PyTuple([])]));

/** lax.GatherDimensionNumbers and lax.ScatterDimensionNumbers: NamedTuples (the batching dims default to ()). */
const GATHER_DIMS = new PyClass('GatherDimensionNumbers', GATHER_FIELDS, noBatching(GATHER_FIELDS), 'namedtuple');
const SCATTER_DIMS = new PyClass('ScatterDimensionNumbers', SCATTER_FIELDS, noBatching(SCATTER_FIELDS), 'namedtuple');

/** lax.GatherScatterMode: an Enum (CLIP, FILL_OR_DROP, PROMISE_IN_BOUNDS, ONE_HOT). */
const MODE = new PyUserClass('GatherScatterMode', [ENUM], 'jax._src.lax.slicing');
const MODE_NAMES: Record<string, string> = { CLIP: 'clip', FILL_OR_DROP: 'fill', PROMISE_IN_BOUNDS: 'promise_in_bounds', ONE_HOT: 'one_hot' };
Object.keys(MODE_NAMES).forEach((n, i) => MODE.attrs.set(n, BigInt(i + 1)));
defineMembers(MODE, { start: { line: 1, col: 1, offset: 0 }, end: { line: 1, col: 1, offset: 0 } });

export function laxGatherFunctions(ip: Interp): Record<string, ((c: CallArgs) => PyValue) | PyValue> {
  const o = ip.ops;
  const ints = (v: PyValue, what: string, span: Span): number[] => iterate(ip, ip.static(v, what, span), span).map((x) => Number(ip.static(x, what, span)));
  /** A dimension-numbers argument: the NamedTuple (or a tuple of its fields) as a record of int lists. */
  const dimsOf = (v: PyValue, fields: string[], cls: PyClass, fname: string, span: Span): Record<string, number[]> => {
    if (!(v instanceof PyTuple) || (v.cls !== undefined && v.cls !== cls) || v.items.length < 3) {
      throw new CompileError(`TypeError: ${fname}: dimension_numbers must be a lax.${cls.name}, got ${ip.repr(v, span).static ?? 'a value'}`, span);
    }
    return Object.fromEntries(fields.map((f, i) => [f, v.items[i] === undefined ? [] : ints(v.items[i]!, f, span)]));
  };
  /** mode=: a GatherScatterMode member or its string (None: PROMISE_IN_BOUNDS for gather, FILL_OR_DROP for the scatters, as JAX picks). */
  const modeOf = (v: PyValue, span: Span, none: 'fill' | 'promise_in_bounds'): 'clip' | 'fill' | 'promise_in_bounds' => {
    const s = v instanceof PyInstance && v.cls === MODE ? MODE_NAMES[String(v.attrs.get('name'))]! : v;
    if (s === 'one_hot') throw new CompileError('NotImplementedError: lax gather/scatter mode ONE_HOT is not supported by jaxts', span);
    return parseMode(s, span) ?? none;
  };
  const indicesOf = (v: PyValue, span: Span): Tracer => {
    const idx = o.asArray(v, span);
    if (idx.aval.dtype !== 'int32' && idx.aval.dtype !== 'uint32') throw new CompileError('ValueError: indices must have an integer type', span);
    return idx;
  };

  const gather = (c: CallArgs): PyValue => {
    const x = o.asArray(arg(c, 0, 'operand'), c.span);
    const idx = indicesOf(arg(c, 1, 'start_indices'), c.span);
    const dn = dimsOf(arg(c, 2, 'dimension_numbers'), GATHER_FIELDS, GATHER_DIMS, 'gather', c.span);
    if (dn['operand_batching_dims']!.length || dn['start_indices_batching_dims']!.length) throw new CompileError('NotImplementedError: lax.gather with batching dims is not supported by jaxts', c.span);
    const sizes = ints(arg(c, 3, 'slice_sizes'), 'slice_sizes', c.span);
    const fill = c.kwargs.get('fill_value') ?? null;
    const opts: IndexOptions = {
      mode: modeOf(c.kwargs.get('mode') ?? null, c.span, 'promise_in_bounds'),
      fillValue: fill === null ? null : Number(ip.static(fill, 'fill_value', c.span)),
      indicesAreSorted: truthy(c.kwargs.get('indices_are_sorted') ?? false, c.span),
      uniqueIndices: truthy(c.kwargs.get('unique_indices') ?? false, c.span),
    };
    const dnums = { offset_dims: dn['offset_dims']!, collapsed_slice_dims: dn['collapsed_slice_dims']!, start_index_map: dn['start_index_map']! };
    return gatherWith(o, x, idx, dnums, sizes, c.span, opts);
  };

  /** lax.scatter*(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted, unique_indices, mode). */
  const scatter = (name: string, prim: ScatterPrim, negate = false) => (c: CallArgs): PyValue => {
    const x = o.asArray(arg(c, 0, 'operand'), c.span);
    const idx = indicesOf(arg(c, 1, 'scatter_indices'), c.span);
    let u = o.asArray(arg(c, 2, 'updates'), c.span);
    if (u.aval.dtype !== x.aval.dtype) {
      if (!u.aval.weak) throw new CompileError(`TypeError: lax.scatter requires arguments to have the same dtypes, got ${x.aval.dtype}, ${u.aval.dtype}.`, c.span);
      u = o.convert(u, x.aval.dtype, c.span);
    }
    if (negate) u = o.tracer(o.bind('neg', [u.atom], {}, c.span));
    const dn = dimsOf(arg(c, 3, 'dimension_numbers'), SCATTER_FIELDS, SCATTER_DIMS, name, c.span) as unknown as ScatterDims;
    if (dn.operand_batching_dims.length || dn.scatter_indices_batching_dims.length) throw new CompileError(`NotImplementedError: lax.${name} with batching dims is not supported by jaxts`, c.span);
    const params = {
      dimension_numbers: dn,
      indices_are_sorted: truthy(c.kwargs.get('indices_are_sorted') ?? false, c.span),
      unique_indices: truthy(c.kwargs.get('unique_indices') ?? false, c.span),
      mode: modeOf(c.kwargs.get('mode') ?? null, c.span, 'fill'),
      update_jaxpr: null,
      update_consts: [],
    };
    return o.tracer(o.bind(prim, [x.atom, idx.atom, u.atom], params, c.span));
  };

  return {
    GatherDimensionNumbers: GATHER_DIMS,
    ScatterDimensionNumbers: SCATTER_DIMS,
    GatherScatterMode: MODE,
    gather,
    scatter: scatter('scatter', 'scatter'),
    scatter_add: scatter('scatter_add', 'scatter_add'),
    // JAX's scatter_sub primitive subtracts each update: the same values as adding its negation
    scatter_sub: scatter('scatter_sub', 'scatter_add', true),
    scatter_mul: scatter('scatter_mul', 'scatter_mul'),
    scatter_min: scatter('scatter_min', 'scatter_min'),
    scatter_max: scatter('scatter_max', 'scatter_max'),
  };
}
