// jax.random with JAX 0.10's defaults: threefry keys, raw (uint32[2],
// `PRNGKey`) or typed (key<fry>, `key`; see keys.ts), and
// `jax_threefry_partitionable=True`. Every function is the same sequence of
// primitives JAX traces (see jax/_src/random/core.py), so the bits are
// identical and floats match to the ulp given the same erf_inv/log1p.
//   random bits of element i (row-major) = y0 ^ y1 of threefry(key, (0, i))
//   split(key, n)[i]                      = threefry(key, (0, i))
//   fold_in(key, d)                       = threefry(key, (0, d))
import { CompileError } from '../common/diagnostics.js';
import type { DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { arg, builtinModule, dtypeArg, shapeArgs } from './modules.js';
import { fmtShape } from './arrays.js';
import { KEY_IMPL, wrapKeys } from './keys.js';
import { hostScalarArray } from './transforms.js';
import { HostArray, HostScalar, NdArray, NpScalar, PyKeyArray, PyModule, PyTuple, type CallArgs, type PyValue, Tracer } from './values.js';

type Fn = (c: CallArgs) => PyValue;

/** Random-number generation on traced uint32 key arrays. */
class Random {
  constructor(private readonly ip: Interp) {}

  private get ops() {
    return this.ip.ops;
  }

  /** `PRNGKey(seed)`: [0, seed mod 2^32] with x64 disabled. */
  prngKey(seed: PyValue, span: Span): Tracer {
    let s = this.ip.static(seed, 'the PRNG seed', span);
    if (s instanceof NpScalar && (s.dtype === 'int32' || s.dtype === 'int64')) s = BigInt(s.value);
    if (s instanceof Tracer || s instanceof HostArray) {
      // a traced seed (threefry_seed): [0, uint32(seed)] along a new last axis, as with x64 disabled
      const dt = s.aval.dtype;
      if (dt !== 'int32' && dt !== 'uint32' && dt !== 'bool') throw new CompileError(`TypeError: PRNG key seed must be an integer; got ${dt}`, span);
      const lo = this.ops.convert(this.ops.asArray(s, span), 'uint32', span);
      const hi = this.ops.full([...lo.aval.shape], 0, 'uint32', span);
      return this.ops.stack([hi, lo], lo.aval.shape.length, span);
    }
    if (typeof s === 'bigint') {
      const lo = Number(BigInt.asUintN(32, s));
      const key = this.ops.asArray(new NdArray([2], 'int64', [0, lo | 0]), span);
      return this.ops.convert(key, 'uint32', span);
    }
    throw new CompileError(`TypeError: PRNGKey accepts a scalar integer seed, got ${String(s)}`, span);
  }

  /** The key data of a single key, typed or raw (a uint32 array of shape (2,)). */
  keyData(v: PyValue, what: string, span: Span): Tracer {
    const typed = v instanceof PyKeyArray;
    const k = this.ops.asArray(typed ? v.data : v, span);
    const s = k.aval.shape;
    if (!typed && (k.aval.dtype !== 'uint32' || s[s.length - 1] !== 2)) {
      throw new CompileError(`TypeError: JAX encountered invalid PRNG key data: expected key_data.dtype = uint32 and a trailing dimension of 2; got dtype=${k.aval.dtype}, shape=${fmtShape(s)}`, span);
    }
    if (s.length !== 1) {
      const shown = typed ? s.slice(0, -1) : s;
      throw new CompileError(`ValueError: ${what} accepts a single key, but was given a key array of shape ${fmtShape(shown)} != (). Use jax.vmap for batching.`, span);
    }
    return k;
  }

  /** `wrap_key_data(data)`: uint32 data with a trailing 2 as a typed key array. */
  wrapKeyData(v: PyValue, span: Span): PyKeyArray {
    const d = v instanceof PyKeyArray ? null : this.ops.asArray(v, span);
    if (!d) throw new CompileError('TypeError: wrap_key_data accepts only uint32 key data, got a key array', span);
    if (d.aval.dtype !== 'uint32') throw new CompileError(`TypeError: JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got dtype=${d.aval.dtype}`, span);
    const s = d.aval.shape;
    if (s[s.length - 1] !== 2) {
      throw new CompileError(`TypeError: threefry2x32 key data must have a trailing dimension of 2, got shape ${fmtShape(s)}`, span);
    }
    return wrapKeys(d);
  }

  private word(key: Tracer, i: number, span: Span): Tracer {
    return this.ops.index(key, [{ kind: 'int', value: i }], span);
  }

  /** threefry2x32 over broadcast operands: the two output words. */
  private threefry(key: Tracer, c0: PyValue, c1: PyValue, shape: readonly number[], span: Span): [Tracer, Tracer] {
    const atoms = [this.word(key, 0, span), this.word(key, 1, span), c0, c1].map((v) =>
      this.ops.broadcastTo(this.ops.asArray(v, span, 'uint32').atom, shape, span),
    );
    const outs = this.ip.trace().builder.bind('threefry2x32', atoms, {}, span);
    return [this.ops.tracer(outs[0]!), this.ops.tracer(outs[1]!)];
  }

  /** JAX's iota_2x32_shape: the row-major index of every element as (hi, lo) words. */
  private counters(shape: readonly number[], span: Span): [PyValue, Tracer] {
    const n = shape.reduce((a, b) => a * b, 1);
    if (n > 0xffffffff) throw new CompileError('jaxts: random arrays of 2^32 or more elements are not supported', span);
    const lo = this.ops.reshape(this.ops.arange(0, n, 1, 'uint32', span), [...shape], span);
    return [0n, lo];
  }

  /** `_random_bits(key, 32, shape)`. */
  bits(key: Tracer, shape: readonly number[], span: Span): Tracer {
    const [hi, lo] = this.counters(shape, span);
    const [y0, y1] = this.threefry(key, hi, lo, shape, span);
    return this.ops.binary('xor', y0, y1, span);
  }

  split(key: Tracer, shape: number[], span: Span): Tracer {
    const [hi, lo] = this.counters(shape, span);
    const [y0, y1] = this.threefry(key, hi, lo, shape, span);
    return this.ops.stack([y0, y1], shape.length, span);
  }

  foldIn(key: Tracer, data: PyValue, span: Span): Tracer {
    const d = typeof data === 'bigint' ? BigInt.asUintN(32, data) : data instanceof HostScalar ? this.hostUint32(data, span) : data;
    const [y0, y1] = this.threefry(key, 0n, d, [], span);
    return this.ops.stack([y0, y1], 0, span);
  }

  /**
   * A host integer known only at run time (a host loop's index) as a uint32
   * device scalar, made where the host program has it: `fold_in(key, i)` in a
   * loop that stays a loop.
   */
  private hostUint32(v: HostScalar, span: Span): HostArray {
    if (v.type !== 'int' && v.type !== 'bool') throw new CompileError(`TypeError: fold_in data must be an integer, got ${v.type}`, span);
    return hostScalarArray(this.ip, v, 'uint32', 'fold_data', span);
  }

  uniform(key: Tracer, shape: number[], dtype: DType, minval: PyValue, maxval: PyValue, span: Span): Tracer {
    if (dtype !== 'float32') throw new CompileError('TypeError: uniform only accepts floating point dtypes.', span);
    const o = this.ops;
    const lo = o.asArray(minval, span, 'float32');
    const hi = o.asArray(maxval, span, 'float32');
    const bits = this.bits(key, shape, span);
    const floatBits = o.binary('or', o.binary('shift_right_logical', bits, 9n, span), 0x3f800000n, span);
    const one = new NpScalar('float32', 1);
    const floats = o.binary('sub', o.bitcast(floatBits, 'float32', span), one, span);
    const scaled = o.binary('add', o.binary('mul', floats, o.binary('sub', hi, lo, span), span), lo, span);
    return o.binary('max', lo, scaled, span);
  }

  normal(key: Tracer, shape: number[], dtype: DType, span: Span): Tracer {
    if (dtype !== 'float32') throw new CompileError('TypeError: normal only accepts floating point dtypes.', span);
    const lo = new NpScalar('float32', -0.99999994); // nextafter(-1, 0) in float32
    const u = this.uniform(key, shape, 'float32', lo, new NpScalar('float32', 1), span);
    const sqrt2 = new NpScalar('float32', Math.SQRT2);
    return this.ops.binary('mul', sqrt2, this.ops.unary('erf_inv', u, span), span);
  }

  randint(key: Tracer, shape: number[], minval: PyValue, maxval: PyValue, dtype: DType, span: Span): Tracer {
    if (dtype !== 'int32' && dtype !== 'uint32') throw new CompileError(`TypeError: randint only accepts integer dtypes, got ${dtype}`, span);
    const o = this.ops;
    const lo = o.convert(o.asArray(minval, span), dtype, span);
    const hi = o.convert(o.asArray(maxval, span), dtype, span);
    const keys = this.split(key, [2], span);
    const higher = this.bits(o.index(keys, [{ kind: 'int', value: 0 }], span), shape, span);
    const lower = this.bits(o.index(keys, [{ kind: 'int', value: 1 }], span), shape, span);
    let span_ = o.convert(o.binary('sub', hi, lo, span), 'uint32', span);
    span_ = o.select(o.compare('le', hi, lo, span), o.full([], 1, 'uint32', span), span_, span);
    let mult = o.binary('rem', o.full([], 65536, 'uint32', span), span_, span);
    mult = o.binary('rem', o.binary('mul', mult, mult, span), span_, span);
    let off = o.binary('add', o.binary('mul', o.binary('rem', higher, span_, span), mult, span), o.binary('rem', lower, span_, span), span);
    off = o.binary('rem', off, span_, span);
    return o.binary('add', lo, o.convert(off, dtype, span), span);
  }

  bernoulli(key: Tracer, p: PyValue, shape: number[] | null, span: Span): Tracer {
    const prob = this.ops.asArray(p, span, 'float32');
    const u = this.uniform(key, shape ?? [...prob.aval.shape], 'float32', 0, 1, span);
    return this.ops.compare('lt', u, prob, span);
  }

}

/** The `jax.random` module. */
export function randomModule(ip: Interp): PyModule {
  const r = new Random(ip);
  const shapeOf = (c: CallArgs, i: number, name: string, def?: PyValue): number[] => {
    const v = arg(c, i, name, def);
    if (typeof v === 'bigint') {
      throw new CompileError(`TypeError: Shapes must be 1D sequences of concrete values of integer type, got ${v}.`, c.span);
    }
    return shapeArgs([v], c.span);
  };
  const dtypeOf = (c: CallArgs, i: number, def: DType): DType => {
    const d = arg(c, i, 'dtype', null);
    return d === null ? def : (dtypeArg(d, c.span) ?? def);
  };
  const key = (c: CallArgs, what: string): Tracer => r.keyData(arg(c, 0, 'key'), what, c.span);
  /** New key data as keys of the argument's kind: typed keys give typed keys, raw keys raw data. */
  const keysLike = (c: CallArgs, data: Tracer): PyValue => (arg(c, 0, 'key') instanceof PyKeyArray ? wrapKeys(data) : data);
  const impl = (c: CallArgs, i: number): void => {
    const v = arg(c, i, 'impl', null);
    if (v !== null && v !== KEY_IMPL) throw new CompileError(`jaxts: PRNG implementation ${typeof v === 'string' ? `'${v}'` : 'objects'} other than '${KEY_IMPL}' are not supported`, c.span);
  };
  const entries: Record<string, Fn> = {
    PRNGKey: (c) => {
      impl(c, 1);
      return r.prngKey(arg(c, 0, 'seed'), c.span);
    },
    key: (c) => {
      impl(c, 1);
      return wrapKeys(r.prngKey(arg(c, 0, 'seed'), c.span));
    },
    key_data: (c) => {
      const k = arg(c, 0, 'keys');
      return k instanceof PyKeyArray ? k.data : r.wrapKeyData(k, c.span).data;
    },
    wrap_key_data: (c) => {
      impl(c, 1);
      return r.wrapKeyData(arg(c, 0, 'key_bits_array'), c.span);
    },
    key_impl: (c) => {
      const k = arg(c, 0, 'keys');
      if (!(k instanceof PyKeyArray)) r.wrapKeyData(k, c.span);
      return KEY_IMPL;
    },
    clone: (c) => arg(c, 0, 'key'),
    split: (c) => {
      const num = arg(c, 1, 'num', 2n);
      const shape = typeof num === 'bigint' ? [Number(num)] : shapeArgs([num], c.span);
      return keysLike(c, r.split(key(c, 'split'), shape, c.span));
    },
    fold_in: (c) => keysLike(c, r.foldIn(key(c, 'fold_in'), arg(c, 1, 'data'), c.span)),
    bits: (c) => r.bits(key(c, 'bits'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span),
    uniform: (c) =>
      r.uniform(key(c, 'uniform'), shapeOf(c, 1, 'shape', new PyTuple([])), dtypeOf(c, 2, 'float32'), arg(c, 3, 'minval', 0), arg(c, 4, 'maxval', 1), c.span),
    normal: (c) => r.normal(key(c, 'normal'), shapeOf(c, 1, 'shape', new PyTuple([])), dtypeOf(c, 2, 'float32'), c.span),
    randint: (c) =>
      r.randint(key(c, 'randint'), shapeOf(c, 1, 'shape'), arg(c, 2, 'minval'), arg(c, 3, 'maxval'), dtypeOf(c, 4, 'int32'), c.span),
    bernoulli: (c) => {
      const shape = arg(c, 2, 'shape', null);
      return r.bernoulli(key(c, 'bernoulli'), arg(c, 1, 'p', 0.5), shape === null ? null : shapeArgs([shape], c.span), c.span);
    },
  };
  return builtinModule('jax.random', entries);
}
