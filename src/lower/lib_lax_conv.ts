// jax.lax's windowed operations. Convolutions (jax/_src/lax/convolution.py):
// conv_general_dilated binds its primitive with JAX's canonical params; conv,
// conv_with_general_padding and conv_transpose are JAX's wrappers around it;
// conv_dimension_numbers and padtype_to_pads are its static helpers.
// reduce_window (windowed_reductions.py): with lax.add, lax.max or lax.min and
// their identity, the reduce_window_sum/_max/_min primitives.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { convGeneralPermutations, convShape, dilateDim, padtypeToPads, reduceWindowShape, type ConvDims, type ConvParams, type WindowParams } from '../ir/conv.js';
import type { Prim } from '../ir/prims.js';
import type { Interp } from './interp.js';
import { arg, dtypeArg, shapeArgs } from './modules.js';
import { HostScalar, NpScalar, PyBuiltin, PyClass, PyList, PyTuple, Tracer, type CallArgs, type PyValue } from './values.js';

/** lax.ConvDimensionNumbers, a NamedTuple. */
const CONV_DIMS = new PyClass('ConvDimensionNumbers', ['lhs_spec', 'rhs_spec', 'out_spec'], new Map(), 'namedtuple');

/** padtypeToPads with JAX's RuntimeError for an unknown padding string. */
function padsOf(inShape: readonly number[], window: readonly number[], strides: readonly number[], padding: string, span: Span): [number, number][] {
  try {
    return padtypeToPads(inShape, window, strides, padding);
  } catch (e) {
    throw new CompileError(`RuntimeError: ${(e as Error).message}`, span);
  }
}

const isSeq = (v: PyValue): v is PyTuple | PyList => v instanceof PyTuple || v instanceof PyList;
const tuple = (xs: number[]): PyTuple => new PyTuple(xs.map(BigInt));

/** A shape entry as Python holds it: an int, or a NumPy int64 (what np.take and NumPy arithmetic give). */
interface Dim {
  v: number;
  np: boolean;
}
const dimOf = (v: PyValue, span: Span): Dim => {
  if (v instanceof NpScalar && Number.isInteger(v.value)) return { v: v.value, np: true };
  if (typeof v === 'bigint') return { v: Number(v), np: false };
  throw new CompileError('TypeError: Shapes must be 1D sequences of concrete values of integer type', span);
};
const dimValue = (d: Dim): PyValue => (d.np ? new NpScalar('int64', d.v) : BigInt(d.v));
/** core.stride_dim: max((d - window) // stride + 1, 0), Python's max keeping the first maximal argument's type. */
const strideDimOf = (d: Dim, w: Dim, s: Dim): Dim => {
  const v = Math.floor((d.v - w.v) / s.v) + 1;
  return v >= 0 ? { v, np: d.np || w.np || s.np } : { v: 0, np: false };
};

/** The options of one conv_general_dilated call, before its padding is resolved. */
export interface ConvCall {
  strides: number[];
  padding: string | [number, number][];
  lhsDilation: number[] | null;
  rhsDilation: number[] | null;
  dims: ConvDims;
  featureGroupCount: number;
  batchGroupCount: number;
}

export function laxConvFunctions(ip: Interp): Record<string, ((c: CallArgs) => PyValue) | PyValue> {
  const o = ip.ops;
  const A = (v: PyValue, span: Span): Tracer => o.asArray(v, span);
  const ints = (v: PyValue, span: Span): number[] => shapeArgs([ip.static(v, 'convolution argument', span)], span);
  const intOrNull = (v: PyValue, span: Span): number[] | null => (v === null ? null : ints(v, span));

  /** conv_dimension_numbers: None, three spec strings, or a ConvDimensionNumbers (three tuples of ints). */
  const dimensionNumbers = (lhs: readonly number[], rhs: readonly number[], v: PyValue, span: Span): ConvDims => {
    if (lhs.length !== rhs.length) throw new CompileError(`TypeError: convolution requires lhs and rhs ndim to be equal, got ${lhs.length} and ${rhs.length}.`, span);
    const dn = ip.static(v, 'dimension_numbers', span);
    if (dn === null) {
      const iota = lhs.map((_, i) => i);
      return { lhs_spec: iota, rhs_spec: [...iota], out_spec: [...iota] };
    }
    if (!isSeq(dn)) throw new CompileError(`TypeError: convolution dimension_numbers must be tuple/list or None, got ${typeof dn}.`, span);
    if (dn.items.length !== 3) throw new CompileError(`TypeError: convolution dimension_numbers list/tuple must be length 3, got ${dn.items.length}.`, span);
    if (dn.items.every(isSeq)) {
      const [l, r, out] = dn.items.map((x) => ints(x, span)) as [number[], number[], number[]];
      return { lhs_spec: l, rhs_spec: r, out_spec: out };
    }
    if (!dn.items.every((x) => typeof x === 'string')) throw new CompileError('TypeError: convolution dimension_numbers elements must be strings.', span);
    const specs = dn.items as [string, string, string];
    specs.forEach((s, i) => {
      if (s.length !== lhs.length) {
        throw new CompileError(`TypeError: convolution dimension_numbers[${i}] must have len equal to the ndim of lhs and rhs, got ${s.length} for lhs and rhs shapes (${lhs.join(', ')}) and (${rhs.join(', ')}).`, span);
      }
    });
    const out = convGeneralPermutations(specs);
    if (typeof out === 'string') throw new CompileError(out, span);
    return out;
  };

  const paddingArg = (v: PyValue, span: Span): string | [number, number][] => {
    const p = ip.static(v, 'padding', span);
    if (typeof p === 'string') return p;
    if (!isSeq(p)) throw new CompileError(`ValueError: padding argument to conv_general_dilated should be a string or a sequence of (low, high) pairs, got ${String(p)}`, span);
    return p.items.map((pair) => {
      const xs = isSeq(pair) ? pair.items : [];
      if (xs.length !== 2 || xs.some((x) => typeof x !== 'bigint')) throw new CompileError('ValueError: padding argument to conv_general_dilated should be a string or a sequence of (low, high) pairs', span);
      return [Number(xs[0]), Number(xs[1])] as [number, number];
    });
  };

  /** conv_general_dilated(lhs, rhs, ...) with its arguments parsed. */
  const convGeneral = (lhs: Tracer, rhs: Tracer, call: ConvCall, preferred: PyValue, span: Span): Tracer => {
    const nsp = lhs.aval.shape.length - 2;
    const { dims } = call;
    const lhsDil = call.lhsDilation ?? Array<number>(nsp).fill(1);
    const rhsDil = call.rhsDilation ?? Array<number>(nsp).fill(1);
    let padding: [number, number][];
    if (typeof call.padding === 'string') {
      if (lhsDil.some((d) => d !== 1)) {
        throw new CompileError('ValueError: String padding is not implemented for transposed convolution using this op. Please either exactly specify the required padding or use conv_transpose.', span);
      }
      const window = dims.rhs_spec.slice(2).map((d, i) => dilateDim(rhs.aval.shape[d]!, rhsDil[i]!));
      try {
        padding = padtypeToPads(dims.lhs_spec.slice(2).map((d) => lhs.aval.shape[d]!), window, call.strides, call.padding);
      } catch (e) {
        throw new CompileError(`RuntimeError: ${(e as Error).message}`, span);
      }
    } else padding = call.padding;
    let dtype = lhs.aval.dtype;
    if (lhs.aval.dtype !== rhs.aval.dtype) {
      throw new CompileError(`TypeError: conv_general_dilated requires arguments to have the same dtypes, got ${lhs.aval.dtype}, ${rhs.aval.dtype}.`, span);
    }
    const pet = preferred === null || preferred === undefined ? undefined : dtypeArg(preferred, span);
    if (pet && pet !== dtype) {
      lhs = o.convert(lhs, pet, span);
      rhs = o.convert(rhs, pet, span);
      dtype = pet;
    }
    if (lhs.aval.dtype === 'bool') throw new CompileError('TypeError: conv_general_dilated does not accept dtype bool.', span);
    const params: ConvParams = {
      window_strides: call.strides, padding, lhs_dilation: lhsDil, rhs_dilation: rhsDil, dimension_numbers: dims,
      feature_group_count: call.featureGroupCount, batch_group_count: call.batchGroupCount, precision: null, preferred_element_type: null,
    };
    try {
      convShape(lhs.aval, rhs.aval, params);
    } catch (e) {
      throw new CompileError(`ValueError: ${(e as Error).message}`, span);
    }
    return o.tracer(o.bind('conv_general_dilated', [lhs.atom, rhs.atom], params as unknown as Record<string, unknown>, span));
  };

  const conv_general_dilated = (c: CallArgs): PyValue => {
    const lhs = A(arg(c, 0, 'lhs'), c.span);
    const rhs = A(arg(c, 1, 'rhs'), c.span);
    const dims = dimensionNumbers(lhs.aval.shape, rhs.aval.shape, arg(c, 6, 'dimension_numbers', null), c.span);
    const count = (i: number, name: string): number => Number(ip.static(arg(c, i, name, 1n), name, c.span));
    return convGeneral(lhs, rhs, {
      strides: ints(arg(c, 2, 'window_strides'), c.span),
      padding: paddingArg(arg(c, 3, 'padding'), c.span),
      lhsDilation: intOrNull(arg(c, 4, 'lhs_dilation', null), c.span),
      rhsDilation: intOrNull(arg(c, 5, 'rhs_dilation', null), c.span),
      dims, featureGroupCount: count(7, 'feature_group_count'), batchGroupCount: count(8, 'batch_group_count'),
    }, arg(c, 10, 'preferred_element_type', null), c.span);
  };

  /** JAX's _conv_transpose_padding for one spatial dimension. */
  const transposePadding = (k: number, s: number, padding: string | [number, number], span: Span): [number, number] => {
    let padLen: number;
    let padA: number;
    if (padding === 'SAME') {
      padLen = k + s - 2;
      padA = s > k - 1 ? k - 1 : Math.ceil(padLen / 2);
    } else if (padding === 'VALID') {
      padLen = k + s - 2 + Math.max(k - s, 0);
      padA = k - 1;
    } else if (Array.isArray(padding)) {
      const pads = padding.map((p) => k - p - 1);
      padA = pads[0]!;
      padLen = pads[0]! + pads[1]!;
    } else throw new CompileError(`ValueError: Invalid padding mode: ${String(padding)}`, span);
    return [padA, padLen - padA];
  };

  /** reduce_window with a monoid: its primitive (JAX's _get_monoid_window_reducer); another init value combined after, where no padding reads it. */
  const reduceWindow = (c: CallArgs): PyValue => {
    const x = A(arg(c, 0, 'operand'), c.span);
    const initV = ip.static(arg(c, 1, 'init_value'), 'reduce_window init_value', c.span);
    const comp = arg(c, 2, 'computation');
    const window = ints(arg(c, 3, 'window_dimensions'), c.span);
    const r = x.aval.shape.length;
    const stridesV = arg(c, 4, 'window_strides', null);
    const strides = stridesV === null ? window.map(() => 1) : ints(stridesV, c.span);
    const baseDil = intOrNull(arg(c, 6, 'base_dilation', null), c.span) ?? window.map(() => 1);
    const winDil = intOrNull(arg(c, 7, 'window_dilation', null), c.span) ?? window.map(() => 1);
    const padV = ip.static(arg(c, 5, 'padding', 'VALID'), 'padding', c.span);
    let padding: [number, number][];
    if (typeof padV === 'string') {
      try {
        padding = padtypeToPads(x.aval.shape, window.map((w, i) => dilateDim(w, winDil[i] ?? 1)), strides, padV);
      } catch (e) {
        throw new CompileError(`RuntimeError: ${(e as Error).message}`, c.span);
      }
    } else padding = paddingArg(padV, c.span) as [number, number][];
    const lax = ip.library.importModule('jax.lax', c.span).attrs;
    const which: 'sum' | 'max' | 'min' | null = comp === lax.get('add') ? 'sum' : comp === lax.get('max') ? 'max' : comp === lax.get('min') ? 'min' : null;
    if (!which) {
      const name = comp instanceof PyBuiltin ? comp.name : 'this function';
      throw new CompileError(`NotImplementedError: jaxts supports lax.reduce_window with lax.add, lax.max or lax.min as the computation, not ${name}`, c.span);
    }
    let init: number | null = null;
    if (typeof initV === 'number') init = initV;
    else if (typeof initV === 'bigint') init = Number(initV);
    else if (typeof initV === 'boolean') init = Number(initV);
    else if (initV instanceof NpScalar) init = Number(initV.value);
    else if (initV instanceof HostScalar) init = null;
    const dtype = x.aval.dtype;
    const identity = which === 'sum' ? 0 : dtype === 'float32' ? (which === 'max' ? -Infinity : Infinity) : dtype === 'int32' ? (which === 'max' ? -2147483648 : 2147483647) : which === 'max' ? 0 : 4294967295;
    const params: WindowParams = { window_dimensions: window, window_strides: strides, padding, base_dilation: baseDil, window_dilation: winDil };
    try {
      reduceWindowShape(x.aval, params, `reduce_window_${which}`);
    } catch (e) {
      throw new CompileError(`TypeError: ${(e as Error).message}`, c.span);
    }
    if (window.length !== r) throw new CompileError(`TypeError: reduce_window got the wrong number of window_dimensions for operand`, c.span);
    const prim = `reduce_window_${which}` as Prim;
    const out = o.tracer(o.bind(prim, [x.atom], params as unknown as Record<string, unknown>, c.span));
    if (init === identity) return out;
    const padded = padding.some(([lo, hi]) => lo !== 0 || hi !== 0) || baseDil.some((d) => d !== 1);
    if (init === null || padded) {
      throw new CompileError(`NotImplementedError: jaxts supports lax.reduce_window with a padded window only when init_value is the identity of the computation (${identity})`, c.span);
    }
    // XLA starts each window from the init value: one more application of the monoid
    const initT = o.tracer(o.broadcastTo(o.convert(A(initV, c.span), dtype, c.span).atom, out.aval.shape, c.span));
    return o.tracer(o.bind(which === 'sum' ? 'add' : which, [out.atom, initT.atom], {}, c.span));
  };

  const iterSeq = (v: PyValue, span: Span): PyValue[] => {
    const x = ip.static(v, 'shape', span);
    if (!isSeq(x)) throw new CompileError('TypeError: expected a sequence of integers', span);
    return x.items;
  };

  /** conv_shape_tuple (canonical NC... order) or conv_general_shape_tuple (any layout; NumPy int64 entries, as np.take gives). */
  const convShapeTuple = (c: CallArgs, general: boolean): PyValue => {
    let lhs = iterSeq(arg(c, 0, 'lhs_shape'), c.span).map((v) => dimOf(v, c.span));
    let rhs = iterSeq(arg(c, 1, 'rhs_shape'), c.span).map((v) => dimOf(v, c.span));
    const strides = iterSeq(arg(c, 2, 'window_strides'), c.span).map((v) => dimOf(v, c.span));
    let outPerm: number[] | null = null;
    if (general) {
      const dims = dimensionNumbers(lhs.map((d) => d.v), rhs.map((d) => d.v), arg(c, 4, 'dimension_numbers'), c.span);
      lhs = dims.lhs_spec.map((d) => ({ v: lhs[d]!.v, np: true }));
      rhs = dims.rhs_spec.map((d) => ({ v: rhs[d]!.v, np: true }));
      outPerm = dims.out_spec;
    }
    const padV = paddingArg(arg(c, 3, general ? 'padding' : 'pads'), c.span);
    const pads = typeof padV === 'string' ? padsOf(lhs.slice(2).map((d) => d.v), rhs.slice(2).map((d) => d.v), strides.map((d) => d.v), padV, c.span) : padV;
    if (pads.length !== lhs.length - 2) throw new CompileError(`TypeError: Wrong number of explicit pads for convolution: expected ${lhs.length - 2}, got ${pads.length}.`, c.span);
    // np.add: NumPy int64 entries
    const padded = lhs.slice(2).map((d, i) => ({ v: d.v + pads[i]![0] + pads[i]![1], np: true }));
    if (padded.some((d) => d.v < 0)) throw new CompileError('ValueError: Negative padding is larger than the size of the corresponding dimension', c.span);
    const bg = general ? 1 : Number(ip.static(arg(c, 4, 'batch_group_count', 1n), 'batch_group_count', c.span));
    const n0 = bg > 1 ? { v: Math.floor(lhs[0]!.v / bg), np: lhs[0]!.np } : lhs[0]!;
    const outT = [n0, rhs[0]!, ...padded.map((d, i) => strideDimOf(d, rhs[i + 2]!, strides[i]!))];
    if (!outPerm) return new PyTuple(outT.map(dimValue));
    const out = new Array<Dim>(outT.length);
    outPerm.forEach((d, i) => (out[d] = { v: outT[i]!.v, np: true }));
    return new PyTuple(out.map(dimValue));
  };

  return {
    reduce_window: reduceWindow,
    // JAX's shape helpers, with Python's int / NumPy int64 kinds of the entries (stax prints them)
    reduce_window_shape_tuple: (c: CallArgs) => {
      const dims = (v: PyValue): Dim[] => iterSeq(v, c.span).map((v) => dimOf(v, c.span));
      let shape = dims(arg(c, 0, 'operand_shape'));
      let window = dims(arg(c, 1, 'window_dimensions'));
      const strides = dims(arg(c, 2, 'window_strides'));
      const padding = iterSeq(arg(c, 3, 'padding'), c.span).map((p) => iterSeq(p, c.span).map((v) => dimOf(v, c.span)));
      const dilate = (xs: Dim[], r: PyValue): Dim[] => {
        if (r === null) return xs;
        const rs = dims(r);
        // core.dilate_dim: d itself for a dilation of 1, else max(1 + r * (d - 1), 0)
        return xs.map((d, i) => {
          const r = rs[i]!;
          if (r.v === 1) return d;
          const v = 1 + r.v * (d.v - 1);
          return v >= 0 ? { v, np: d.np || r.np } : { v: 0, np: false };
        });
      };
      shape = dilate(shape, arg(c, 4, 'base_dilation', null));
      window = dilate(window, arg(c, 5, 'window_dilation', null));
      const padded = shape.map((d, i) => ({ v: d.v + padding[i]![0]!.v + padding[i]![1]!.v, np: d.np || padding[i]![0]!.np || padding[i]![1]!.np }));
      return new PyTuple(padded.map((d, i) => dimValue(strideDimOf(d, window[i]!, strides[i]!))));
    },
    conv_general_permutations: (c: CallArgs) => convPermutations(ip, arg(c, 0, 'dimension_numbers'), c.span),
    conv_shape_tuple: (c: CallArgs) => convShapeTuple(c, false),
    conv_general_shape_tuple: (c: CallArgs) => convShapeTuple(c, true),
    conv_transpose_shape_tuple: (c: CallArgs) => {
      const dims = dimensionNumbers(ints(arg(c, 0, 'lhs_shape'), c.span), ints(arg(c, 1, 'rhs_shape'), c.span), arg(c, 4, 'dimension_numbers'), c.span);
      const lhsT = dims.lhs_spec.map((d) => ints(arg(c, 0, 'lhs_shape'), c.span)[d]!);
      const rhsT = dims.rhs_spec.map((d) => ints(arg(c, 1, 'rhs_shape'), c.span)[d]!);
      const strides = ints(arg(c, 2, 'window_strides'), c.span);
      const padV = paddingArg(arg(c, 3, 'padding'), c.span);
      const pads = typeof padV === 'string' ? rhsT.slice(2).map((k, i) => transposePadding(k, strides[i]!, padV, c.span)) : padV;
      const outSpace = lhsT.slice(2).map((n, i) => (n - 1) * strides[i]! - rhsT[i + 2]! + 2 + pads[i]![0] + pads[i]![1]);
      const outT = [lhsT[0]!, rhsT[0]!, ...outSpace];
      const out = new Array<number>(outT.length);
      dims.out_spec.forEach((d, i) => (out[d] = outT[i]!));
      return new PyTuple(out.map((v) => new NpScalar('int64', v)));
    },
    conv_general_dilated,
    conv: (c: CallArgs) => {
      const lhs = A(arg(c, 0, 'lhs'), c.span);
      const rhs = A(arg(c, 1, 'rhs'), c.span);
      const dims = dimensionNumbers(lhs.aval.shape, rhs.aval.shape, null, c.span);
      return convGeneral(lhs, rhs, { strides: ints(arg(c, 2, 'window_strides'), c.span), padding: paddingArg(arg(c, 3, 'padding'), c.span), lhsDilation: null, rhsDilation: null, dims, featureGroupCount: 1, batchGroupCount: 1 }, arg(c, 5, 'preferred_element_type', null), c.span);
    },
    conv_with_general_padding: (c: CallArgs) => {
      const lhs = A(arg(c, 0, 'lhs'), c.span);
      const rhs = A(arg(c, 1, 'rhs'), c.span);
      const dims = dimensionNumbers(lhs.aval.shape, rhs.aval.shape, null, c.span);
      return convGeneral(lhs, rhs, {
        strides: ints(arg(c, 2, 'window_strides'), c.span), padding: paddingArg(arg(c, 3, 'padding'), c.span),
        lhsDilation: intOrNull(arg(c, 4, 'lhs_dilation'), c.span), rhsDilation: intOrNull(arg(c, 5, 'rhs_dilation'), c.span),
        dims, featureGroupCount: 1, batchGroupCount: 1,
      }, arg(c, 7, 'preferred_element_type', null), c.span);
    },
    conv_transpose: (c: CallArgs) => {
      const lhs = A(arg(c, 0, 'lhs'), c.span);
      let rhs = A(arg(c, 1, 'rhs'), c.span);
      const nd = lhs.aval.shape.length;
      if (nd !== rhs.aval.shape.length || nd < 2) throw new CompileError('AssertionError: conv_transpose needs lhs and rhs of one rank >= 2', c.span);
      const strides = ints(arg(c, 2, 'strides'), c.span);
      const padding = paddingArg(arg(c, 3, 'padding'), c.span);
      let rhsDil = intOrNull(arg(c, 4, 'rhs_dilation', null), c.span);
      let dnArg = ip.static(arg(c, 5, 'dimension_numbers', null), 'dimension_numbers', c.span);
      if (dnArg === null) {
        const defaults: Record<number, [string, string, string]> = { 2: ['NC', 'IO', 'NC'], 3: ['NHC', 'HIO', 'NHC'], 4: ['NHWC', 'HWIO', 'NHWC'], 5: ['NHWDC', 'HWDIO', 'NHWDC'] };
        const d = defaults[nd];
        if (!d) throw new CompileError('ValueError: No 4+ dimensional dimension_number defaults.', c.span);
        dnArg = new PyTuple(d);
      }
      const dims = dimensionNumbers(lhs.aval.shape, rhs.aval.shape, dnArg, c.span);
      const kSdims = dims.rhs_spec.slice(2).map((d) => rhs.aval.shape[d]!);
      rhsDil ??= kSdims.map(() => 1);
      const consistent = Boolean(ip.static(arg(c, 9, 'use_consistent_padding', false), 'use_consistent_padding', c.span));
      let pads: [number, number][];
      if (consistent || padding === 'SAME' || padding === 'VALID') {
        pads = kSdims.map((k, i) => transposePadding(dilateDim(k, rhsDil![i]!), strides[i]!, typeof padding === 'string' ? padding : padding[i]!, c.span));
      } else if (typeof padding === 'string') throw new CompileError(`ValueError: Invalid padding mode: ${padding}`, c.span);
      else pads = padding;
      if (Boolean(ip.static(arg(c, 6, 'transpose_kernel', false), 'transpose_kernel', c.span))) {
        rhs = o.tracer(o.bind('rev', [rhs.atom], { dimensions: dims.rhs_spec.slice(2) }, c.span));
        const perm = rhs.aval.shape.map((_, i) => i);
        [perm[dims.rhs_spec[0]!], perm[dims.rhs_spec[1]!]] = [perm[dims.rhs_spec[1]!]!, perm[dims.rhs_spec[0]!]!];
        rhs = o.transpose(rhs, perm, c.span);
      }
      return convGeneral(lhs, rhs, { strides: strides.map(() => 1), padding: pads, lhsDilation: strides, rhsDilation: rhsDil, dims, featureGroupCount: 1, batchGroupCount: 1 }, arg(c, 8, 'preferred_element_type', null), c.span);
    },
    conv_dimension_numbers: (c: CallArgs) => {
      const shape = (v: PyValue): number[] => (v instanceof Tracer ? [...v.aval.shape] : ints(v, c.span));
      const d = dimensionNumbers(shape(arg(c, 0, 'lhs_shape')), shape(arg(c, 1, 'rhs_shape')), arg(c, 2, 'dimension_numbers'), c.span);
      return new PyTuple([tuple(d.lhs_spec), tuple(d.rhs_spec), tuple(d.out_spec)], CONV_DIMS);
    },
    ConvDimensionNumbers: CONV_DIMS,
    padtype_to_pads: (c: CallArgs) => {
      const pads = padsOf(ints(arg(c, 0, 'in_shape'), c.span), ints(arg(c, 1, 'window_shape'), c.span), ints(arg(c, 2, 'window_strides'), c.span), String(ip.static(arg(c, 3, 'padding'), 'padding', c.span)), c.span);
      return new PyList(pads.map((p) => tuple(p)));
    },
  };
}

/**
 * jax.scipy.signal.convolve / correlate / convolve2d (jax/_src/scipy/signal.py,
 * _convolve_nd): the smaller operand flipped and slid over the larger with
 * conv_general_dilated, as JAX does for method 'direct' (and 'auto').
 */
/** lax.conv_general_permutations(('NHWC', 'HWIO', 'NHWC')): each spec's (N or O, C or I, spatial...) positions (src/ir/conv.ts), with JAX's checks. */
function convPermutations(ip: Interp, dn: PyValue, span: Span): PyValue {
  const specs = isSeq(dn) ? dn.items : [];
  if (specs.length !== 3) throw new CompileError(`ValueError: ${specs.length > 3 ? 'too many values to unpack (expected 3)' : `not enough values to unpack (expected 3, got ${specs.length})`}`, span);
  if (!specs.every((v) => typeof v === 'string')) {
    const i = specs.findIndex((v) => typeof v !== 'string');
    throw new CompileError(`TypeError: convolution dimension_numbers[${i}] must contain the characters '${i === 1 ? 'O' : 'N'}' and '${i === 1 ? 'I' : 'C'}' exactly once, got ${ip.str(specs[i]!, span).static ?? ''}.`, span);
  }
  const dims = convGeneralPermutations(specs as [string, string, string]);
  if (typeof dims === 'string') throw new CompileError(dims, span);
  const tuple = (xs: number[]): PyTuple => new PyTuple(xs.map((k) => BigInt(k)));
  return new PyTuple([tuple(dims.lhs_spec), tuple(dims.rhs_spec), tuple(dims.out_spec)]);
}

export function signalFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const o = ip.ops;
  const flip = (x: Tracer, span: Span): Tracer => o.tracer(o.bind('rev', [x.atom], { dimensions: x.aval.shape.map((_, i) => i) }, span));
  const convolveNd = (a: PyValue, b: PyValue, modeV: PyValue, span: Span, flipSecond: boolean): Tracer => {
    const mode = ip.static(modeV, 'mode', span);
    if (mode !== 'full' && mode !== 'same' && mode !== 'valid') throw new CompileError("ValueError: mode must be one of ['full', 'same', 'valid']", span);
    let in1 = o.asArray(a, span);
    let in2 = o.asArray(b, span);
    if (in1.aval.shape.length !== in2.aval.shape.length) throw new CompileError('ValueError: in1 and in2 must have the same number of dimensions', span);
    const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
    if (!in1.aval.shape.reduce((x, y) => x * y, 1) || !in2.aval.shape.reduce((x, y) => x * y, 1)) {
      throw new CompileError(`ValueError: zero-size arrays not supported in convolutions, got shapes ${fmt(in1.aval.shape)} and ${fmt(in2.aval.shape)}.`, span);
    }
    in1 = o.convert(in1, 'float32', span);
    in2 = o.convert(in2, 'float32', span);
    if (flipSecond) in2 = flip(in2, span);
    const s1 = in1.aval.shape;
    const s2 = in2.aval.shape;
    const noSwap = s1.every((d, i) => d >= s2[i]!);
    const swap = s1.every((d, i) => d <= s2[i]!);
    if (!(noSwap || swap)) throw new CompileError('ValueError: One input must be smaller than the other in every dimension.', span);
    const shapeO = [...s2];
    if (swap) [in1, in2] = [in2, in1];
    const shape = in2.aval.shape;
    in2 = flip(in2, span);
    const padding: [number, number][] = shape.map((s, i) => {
      const so = shapeO[i]!;
      if (mode === 'valid') return [0, 0];
      if (mode === 'same') return [s - 1 - Math.floor((so - 1) / 2), s - so + Math.floor((so - 1) / 2)];
      return [s - 1, s - 1];
    });
    const lhs = o.reshape(in1, [1, 1, ...in1.aval.shape], span);
    const rhs = o.reshape(in2, [1, 1, ...in2.aval.shape], span);
    const iota = lhs.aval.shape.map((_, i) => i);
    const params: ConvParams = {
      window_strides: shape.map(() => 1), padding, lhs_dilation: shape.map(() => 1), rhs_dilation: shape.map(() => 1),
      dimension_numbers: { lhs_spec: iota, rhs_spec: [...iota], out_spec: [...iota] }, feature_group_count: 1, batch_group_count: 1, precision: null, preferred_element_type: null,
    };
    const out = o.tracer(o.bind('conv_general_dilated', [lhs.atom, rhs.atom], params as unknown as Record<string, unknown>, span));
    return o.reshape(out, out.aval.shape.slice(2), span);
  };
  const twoD = (name: string, c: CallArgs): void => {
    const boundary = ip.static(arg(c, 3, 'boundary', 'fill'), 'boundary', c.span);
    const fill = ip.static(arg(c, 4, 'fillvalue', 0n), 'fillvalue', c.span);
    if (boundary !== 'fill' || Number(fill) !== 0) throw new CompileError(`NotImplementedError: ${name}() only supports boundary='fill', fillvalue=0`, c.span);
    if (o.asArray(arg(c, 0, 'in1'), c.span).aval.shape.length !== 2 || o.asArray(arg(c, 1, 'in2'), c.span).aval.shape.length !== 2) {
      throw new CompileError(`ValueError: ${name}() only supports 2-dimensional inputs.`, c.span);
    }
  };
  const method = (c: CallArgs): void => {
    const m = ip.static(arg(c, 3, 'method', 'auto'), 'method', c.span);
    if (m === 'fft') throw new CompileError("NotImplementedError: jaxts computes jax.scipy.signal convolutions with method='direct' (conv_general_dilated), not 'fft'", c.span);
    if (m !== 'auto' && m !== 'direct') throw new CompileError(`ValueError: Got method='${String(m)}'; expected 'auto', 'fft', or 'direct'.`, c.span);
  };
  return {
    convolve: (c) => {
      method(c);
      return convolveNd(arg(c, 0, 'in1'), arg(c, 1, 'in2'), arg(c, 2, 'mode', 'full'), c.span, false);
    },
    correlate: (c) => {
      method(c);
      return convolveNd(arg(c, 0, 'in1'), arg(c, 1, 'in2'), arg(c, 2, 'mode', 'full'), c.span, true);
    },
    convolve2d: (c) => {
      twoD('convolve2d', c);
      return convolveNd(arg(c, 0, 'in1'), arg(c, 1, 'in2'), arg(c, 2, 'mode', 'full'), c.span, false);
    },
  };
}
