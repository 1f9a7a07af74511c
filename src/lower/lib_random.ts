// jax.random with JAX 0.10's defaults: threefry keys, raw (uint32[2],
// `PRNGKey`) or typed (key<fry>, `key`; see keys.ts), and
// `jax_threefry_partitionable=True`. Every function is the same sequence of
// primitives JAX traces (see jax/_src/random/core.py), so the bits are
// identical and floats match to the ulp given the same erf_inv/log1p.
//   random bits of element i (row-major) = y0 ^ y1 of threefry(key, (0, i))
//   split(key, n)[i]                      = threefry(key, (0, i))
//   fold_in(key, d)                       = threefry(key, (0, d))
import { CompileError } from '../common/diagnostics.js';
import { isInt, type Atom, type DType, type Var } from '../ir/types.js';
import { markFma } from '../passes/fma_contraction.js';
import { xlaAlgebraic } from '../passes/xla_algebraic.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { arg, builtinModule, dtypeArg, shapeArgs } from './modules.js';
import { fmtShape } from './arrays.js';
import { KEY_DTYPE, KEY_IMPL, wrapKeys } from './keys.js';
import { withOutSharding } from './lib_sharding.js';
import { defaultFloat, defaultInt } from './x64.js';
import { callRandomPrelude, RANDOM_PRELUDE_FUNCTIONS } from './random_prelude.js';
import { hostScalarArray } from './transforms.js';
import { HostArray, HostScalar, NdArray, NpScalar, PyKeyArray, PyList, PyModule, PyTuple, type CallArgs, type PyValue, Tracer } from './values.js';

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
      if (!isInt(dt) && dt !== 'bool') throw new CompileError(`TypeError: PRNG key seed must be an integer; got ${dt}`, span);
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

  /** The shape of a sampler's parameter (a Python scalar: ()). */
  shapeOf(v: PyValue, span: Span): readonly number[] {
    return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ? [] : this.ops.aval(v, span).shape;
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

  /**
   * `_random_bits(key, 64, shape)` as its high and low uint32 words (jaxts has no uint64): threefry's
   * two outputs, which JAX joins as hi << 32 | lo.
   */
  private bits64(key: Tracer, shape: readonly number[], span: Span): [Tracer, Tracer] {
    const [hi, lo] = this.counters(shape, span);
    return this.threefry(key, hi, lo, shape, span);
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
    if (dtype !== 'float32' && dtype !== 'float64') throw new CompileError('TypeError: uniform only accepts floating point dtypes.', span);
    const o = this.ops;
    const lo = o.asArray(minval, span, dtype);
    const hi = o.asArray(maxval, span, dtype);
    let floats: Tracer;
    if (dtype === 'float64') {
      // JAX's bitcast of (bits >> 12) | bits(1.0) less 1.0 is the top 52 of the 64 bits over 2**52, exactly
      const [hiWord, loWord] = this.bits64(key, shape, span);
      const mantissa = o.binary('add', o.binary('mul', o.convert(hiWord, 'float64', span), 2 ** 20, span), o.convert(o.binary('shift_right_logical', loWord, 12n, span), 'float64', span), span);
      floats = o.binary('mul', mantissa, 2 ** -52, span);
    } else {
      const bits = this.bits(key, shape, span);
      const floatBits = o.binary('or', o.binary('shift_right_logical', bits, 9n, span), 0x3f800000n, span);
      floats = o.binary('sub', o.bitcast(floatBits, 'float32', span), new NpScalar('float32', 1), span);
    }
    const scaled = o.binary('add', o.binary('mul', floats, o.binary('sub', hi, lo, span), span), lo, span);
    return o.binary('max', lo, scaled, span);
  }

  normal(key: Tracer, shape: number[], dtype: DType, span: Span): Tracer {
    if (dtype !== 'float32' && dtype !== 'float64') throw new CompileError('TypeError: normal only accepts floating point dtypes.', span);
    // nextafter(-1, 0) in the dtype
    const lo = new NpScalar(dtype, dtype === 'float64' ? -1 + 2 ** -53 : -0.99999994);
    const u = this.uniform(key, shape, dtype, lo, new NpScalar(dtype, 1), span);
    const sqrt2 = new NpScalar(dtype, Math.SQRT2);
    return this.ops.binary('mul', sqrt2, this.ops.unary('erf_inv', u, span), span);
  }

  randint(key: Tracer, shape: number[], minval: PyValue, maxval: PyValue, dtype: DType, span: Span): Tracer {
    if (dtype === 'int64') return this.randint64(key, shape, minval, maxval, span);
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

  /**
   * randint with int64 (x64): JAX's rule on 64-bit random words, each taken mod the span from its two
   * uint32 words ((hi mod s)·(2**32 mod s) + lo mod s, mod s). int64 values are integral doubles, so the
   * result is JAX's while the span is below 2**26 (every product stays under 2**53).
   */
  private randint64(key: Tracer, shape: number[], minval: PyValue, maxval: PyValue, span: Span): Tracer {
    const o = this.ops;
    const lo = o.convert(o.asArray(minval, span), 'int64', span);
    const hi = o.convert(o.asArray(maxval, span), 'int64', span);
    const keys = this.split(key, [2], span);
    const s = o.select(o.compare('le', hi, lo, span), o.full([], 1, 'int64', span), o.binary('sub', hi, lo, span), span);
    const rem = (x: PyValue): Tracer => o.binary('rem', x, s, span);
    const word32 = rem(o.full([], 2 ** 32, 'int64', span));
    const mod64 = ([h, l]: [Tracer, Tracer]): Tracer => rem(o.binary('add', o.binary('mul', rem(o.convert(h, 'int64', span)), word32, span), rem(o.convert(l, 'int64', span)), span));
    const higher = mod64(this.bits64(o.index(keys, [{ kind: 'int', value: 0 }], span), shape, span));
    const lower = mod64(this.bits64(o.index(keys, [{ kind: 'int', value: 1 }], span), shape, span));
    const mult = rem(o.binary('mul', word32, word32, span));
    return o.binary('add', lo, rem(o.binary('add', o.binary('mul', higher, mult, span), lower, span)), span);
  }

  bernoulli(key: Tracer, p: PyValue, shape: number[] | null, span: Span): Tracer {
    // the dtype of p (a Python float: the default float)
    const dtype = this.ops.aval(p, span).dtype === 'float64' ? 'float64' : 'float32';
    const prob = this.ops.asArray(p, span, dtype);
    const u = this.uniform(key, shape ?? [...prob.aval.shape], dtype, 0, 1, span);
    return this.ops.compare('lt', u, prob, span);
  }

  // The samplers below are JAX's (jax/_src/random/core.py), primitive for primitive.

  private f32(x: number): NpScalar {
    return new NpScalar('float32', x);
  }
  private un(prim: 'log' | 'log1p' | 'neg' | 'exp' | 'tan' | 'sqrt' | 'sign' | 'abs' | 'floor' | 'erf' | 'erf_inv', x: PyValue, span: Span): Tracer {
    return this.ops.unary(prim, x, span);
  }
  private bin(prim: 'add' | 'sub' | 'mul' | 'div', x: PyValue, y: PyValue, span: Span): Tracer {
    return this.ops.binary(prim, x, y, span);
  }
  /** `_gumbel(..., mode='low')`: -log(-log(uniform(minval=tiny))). */
  gumbel(key: Tracer, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', this.f32(F32_TINY), 1, span);
    return this.un('neg', this.un('log', this.un('neg', this.un('log', u, span), span), span), span);
  }
  /** `_exponential`: -log1p(-u). */
  exponential(key: Tracer, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', 0, 1, span);
    return this.un('neg', this.un('log1p', this.un('neg', u, span), span), span);
  }
  /** `_laplace`: sign(u) * log1p(-|u|), u uniform in (-1 + epsneg, 1). */
  laplace(key: Tracer, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', this.f32(-1 + F32_EPSNEG), 1, span);
    return this.bin('mul', this.un('sign', u, span), this.un('log1p', this.un('neg', this.un('abs', u, span), span), span), span);
  }
  /** `_logistic`: log(x) - log1p(-x), x uniform in (tiny, 1). */
  logistic(key: Tracer, shape: number[], span: Span): Tracer {
    const x = this.uniform(key, shape, 'float32', this.f32(F32_TINY), 1, span);
    return this.bin('sub', this.un('log', x, span), this.un('log1p', this.un('neg', x, span), span), span);
  }
  /** `_cauchy`: tan(pi * (u - 0.5)), u uniform in (eps, 1). */
  cauchy(key: Tracer, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', this.f32(F32_EPS), 1, span);
    return this.un('tan', this.bin('mul', this.f32(Math.PI), this.bin('sub', u, this.f32(0.5), span), span), span);
  }
  /** `_lognormal`: exp(normal * sigma). */
  lognormal(key: Tracer, sigma: PyValue, shape: number[], span: Span): Tracer {
    return this.un('exp', this.bin('mul', this.normal(key, shape, 'float32', span), this.ops.convert(this.ops.asArray(sigma, span), 'float32', span), span), span);
  }
  /** `_pareto`: exp(exponential / b). */
  pareto(key: Tracer, b: PyValue, shape: number[], span: Span): Tracer {
    return this.un('exp', this.bin('div', this.exponential(key, shape, span), this.ops.convert(this.ops.asArray(b, span), 'float32', span), span), span);
  }
  /** `_rayleigh`: scale * sqrt(log(u) * -2). */
  rayleigh(key: Tracer, scale: PyValue, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', 0, 1, span);
    const s = this.ops.broadcastTo(this.ops.convert(this.ops.asArray(scale, span), 'float32', span).atom, shape, span);
    return this.bin('mul', this.ops.tracer(s), this.un('sqrt', this.bin('mul', this.un('log', u, span), this.ops.full([], -2, 'float32', span), span), span), span);
  }
  /** `_weibull_min`: (-log1p(-u)) ** (1 / concentration) * scale. */
  weibullMin(key: Tracer, scale: PyValue, concentration: PyValue, shape: number[], span: Span): Tracer {
    const u = this.uniform(key, shape, 'float32', 0, 1, span);
    const e = this.un('neg', this.un('log1p', this.un('neg', u, span), span), span);
    return this.bin('mul', this.ops.power(e, this.ops.binary('div', 1.0, concentration, span), span), scale, span);
  }
  /** `_triangular`: the inverse CDF on either side of the mode. */
  triangular(key: Tracer, left: PyValue, mode: PyValue, right: PyValue, shape: number[], span: Span): Tracer {
    const o = this.ops;
    const bc = (v: PyValue): Tracer => o.tracer(o.broadcastTo(o.convert(o.asArray(v, span), 'float32', span).atom, shape, span));
    const [l, m, r] = [bc(left), bc(mode), bc(right)];
    const fc = this.bin('div', this.bin('sub', m, l, span), this.bin('sub', r, l, span), span);
    const u = this.uniform(key, shape, 'float32', 0, 1, span);
    const out1 = this.bin('add', l, this.un('sqrt', this.bin('mul', this.bin('mul', u, this.bin('sub', r, l, span), span), this.bin('sub', m, l, span), span), span), span);
    const oneMinus = this.bin('sub', 1n, u, span);
    const out2 = this.bin('sub', r, this.un('sqrt', this.bin('mul', this.bin('mul', oneMinus, this.bin('sub', r, l, span), span), this.bin('sub', r, m, span), span), span), span);
    return o.select(o.compare('lt', u, fc, span), out1, out2, span);
  }
  /** `_geometric`: floor(log(u) / log1p(-p)) + 1, u = 0 mapped to 1. */
  geometric(key: Tracer, p: PyValue, shape: number[], dtype: DType, span: Span): Tracer {
    const o = this.ops;
    let u = this.uniform(key, shape, 'float32', 0, 1, span);
    u = o.select(o.compare('eq', u, 0n, span), o.full([], 1, 'float32', span), u, span);
    const logU = this.un('log', u, span);
    const lomp = o.tracer(o.broadcastTo(this.un('log1p', this.un('neg', o.asArray(p, span, 'float32'), span), span).atom, shape, span));
    const g = this.bin('add', this.un('floor', this.bin('div', logU, lomp, span), span), 1n, span);
    return o.convert(g, dtype, span);
  }
  /** `_rademacher`: 2 * bernoulli(0.5) - 1 in `dtype`. */
  rademacher(key: Tracer, shape: number[], dtype: DType, span: Span): Tracer {
    const b = this.ops.convert(this.bernoulli(key, 0.5, shape, span), dtype, span);
    return this.ops.convert(this.bin('sub', this.bin('mul', 2n, b, span), 1n, span), dtype, span);
  }
  /** `_truncated_normal`: sqrt2 * erf_inv(u) for u uniform in (erf(lower/sqrt2), erf(upper/sqrt2)), clipped inside (lower, upper). */
  truncatedNormal(key: Tracer, lower: PyValue, upper: PyValue, shape: number[] | null, span: Span): Tracer {
    const o = this.ops;
    const lo = o.convert(o.asArray(lower, span), 'float32', span);
    const hi = o.convert(o.asArray(upper, span), 'float32', span);
    const outShape = shape ?? broadcastShapes(lo.aval.shape, hi.aval.shape);
    const sqrt2 = this.f32(Math.SQRT2);
    const a = this.un('erf', this.bin('div', lo, sqrt2, span), span);
    const b = this.un('erf', this.bin('div', hi, sqrt2, span), span);
    const u = this.uniform(key, outShape, 'float32', a, b, span);
    const out = this.bin('mul', sqrt2, this.un('erf_inv', u, span), span);
    const above = nextAfter(o, o.stopGradient(lo, span), 1, span);
    const below = nextAfter(o, o.stopGradient(hi, span), -1, span);
    return o.binary('min', o.binary('max', out, above, span), below, span);
  }
  /** A function of jax.numpy or jax.lax, called as the program would. */
  private fn(module: 'jax.numpy' | 'jax.lax', name: string, args: PyValue[], kwargs: Record<string, PyValue>, span: Span): PyValue {
    const f = this.ip.library.importModule(module, span).attrs.get(name)!;
    return this.ip.call(f, { args, kwargs: new Map(Object.entries(kwargs)), span });
  }
  /** `_shuffle`: sort by fresh random 32-bit keys, ceil(3 ln n / ln(2^32 - 1)) rounds. */
  shuffle(key: Tracer, x: Tracer, axis: number, span: Span): Tracer {
    const n = x.aval.shape.reduce((a, b) => a * b, 1);
    const rounds = Math.ceil((3 * Math.log(Math.max(1, n))) / Math.log(4294967295));
    let k = key;
    let out = x;
    for (let i = 0; i < rounds; i++) {
      const keys = this.split(k, [2], span);
      k = this.ops.index(keys, [{ kind: 'int', value: 0 }], span);
      const sortKeys = this.bits(this.ops.index(keys, [{ kind: 'int', value: 1 }], span), [...out.aval.shape], span);
      const sorted = this.fn('jax.lax', 'sort_key_val', [sortKeys, out], { dimension: BigInt(axis) }, span) as PyTuple;
      out = sorted.items[1] as Tracer;
    }
    return out;
  }
  /** `permutation(key, x, axis, independent)`: an int shuffles arange(x); an array its slices along `axis`. */
  permutation(key: Tracer, x: PyValue, axis: number, independent: boolean, span: Span): Tracer {
    if (typeof x === 'bigint') return this.shuffle(key, this.ops.arange(0, Number(x), 1, 'int32', span), 0, span);
    const arr = this.ops.asArray(x, span);
    const nd = arr.aval.shape.length;
    if (nd === 0) throw new CompileError('TypeError: x must be an integer or at least 1-dimensional', span);
    const ax = ((axis % nd) + nd) % nd;
    if (independent || nd === 1) return this.shuffle(key, arr, ax, span);
    const ind = this.shuffle(key, this.ops.arange(0, arr.aval.shape[ax]!, 1, 'int32', span), 0, span);
    return this.fn('jax.numpy', 'take', [arr, ind, BigInt(ax)], { unique_indices: true }, span) as Tracer;
  }
  /** `choice(key, a, shape, replace, p, axis)`, JAX's four cases. */
  choice(key: Tracer, a: PyValue, shape: number[], replace: boolean, p: PyValue, axis: number, span: Span): Tracer {
    const o = this.ops;
    const arr = o.asArray(a, span);
    const nd = arr.aval.shape.length;
    const ax = nd ? ((axis % nd) + nd) % nd : 0;
    const nInputs = nd === 0 ? Number(this.ip.static(a, 'the population size of jax.random.choice', span)) : arr.aval.shape[ax]!;
    const nDraws = shape.reduce((x, y) => x * y, 1);
    if (nDraws === 0) return o.full(shape, 0, arr.aval.dtype, span);
    if (nInputs <= 0) throw new CompileError('ValueError: a must be greater than 0 unless no samples are taken', span);
    if (!replace && nDraws > nInputs) {
      throw new CompileError(`ValueError: Cannot take a larger sample (size ${nDraws}) than population (size ${nInputs}) when 'replace=False'`, span);
    }
    const take = (ind: Tracer): Tracer => (nd === 0 ? ind : (this.fn('jax.numpy', 'take', [arr, ind, BigInt(ax)], {}, span) as Tracer));
    let result: Tracer;
    if (p === null) {
      if (replace) result = take(this.randint(key, shape, 0n, BigInt(nInputs), 'int32', span));
      else {
        const perm = this.permutation(key, nd === 0 ? BigInt(nInputs) : arr, ax, false, span);
        const idx = Array.from({ length: perm.aval.shape.length }, (_, d) => (d === ax ? { kind: 'slice' as const, start: 0, stop: nDraws, step: 1 } : { kind: 'slice' as const, start: null, stop: null, step: null }));
        result = o.index(perm, idx, span);
      }
    } else {
      const pa = o.asArray(p, span, 'float32');
      if (pa.aval.shape.length !== 1 || pa.aval.shape[0] !== nInputs) {
        throw new CompileError(`ValueError: p must be None or a 1D vector with the same size as a.shape[axis]. p has shape (${pa.aval.shape.join(', ')}${pa.aval.shape.length === 1 ? ',' : ''}) and a.shape[axis] is ${nInputs}.`, span);
      }
      let ind: Tracer;
      if (replace) {
        const cuml = this.fn('jax.numpy', 'cumsum', [pa], {}, span) as Tracer;
        const last = o.index(cuml, [{ kind: 'int', value: -1 }], span);
        const r = this.bin('mul', last, this.bin('sub', 1n, this.uniform(key, shape, 'float32', 0, 1, span), span), span);
        ind = o.convert(this.fn('jax.numpy', 'searchsorted', [cuml, r], {}, span) as Tracer, 'int32', span);
      } else {
        const g = this.bin('add', this.gumbel(key, [nInputs], span), this.un('log', pa, span), span);
        ind = o.convert((this.fn('jax.lax', 'top_k', [g, BigInt(nDraws)], {}, span) as PyTuple).items[1] as Tracer, 'int32', span);
      }
      result = take(ind);
    }
    const outShape = nd === 0 ? shape : [...arr.aval.shape.slice(0, ax), ...shape, ...arr.aval.shape.slice(ax + 1)];
    return o.reshape(result, outShape, span);
  }
  /** `_categorical` without replacement: the Gumbel top-k trick. */
  categoricalNoReplace(key: Tracer, logits: PyValue, axis: number, shape: number[] | null, span: Span): Tracer {
    const o = this.ops;
    const l = o.asArray(logits, span);
    const ls = l.aval.shape;
    const nd = ls.length;
    const ax = ((axis % nd) + nd) % nd;
    const batch = ls.filter((_, d) => d !== ax);
    const out = shape ?? batch;
    const prefix = out.slice(0, out.length - batch.length);
    const k = prefix.reduce((a, b) => a * b, 1);
    if (k > ls[ax]!) throw new CompileError(`ValueError: Number of samples without replacement (${k}) cannot exceed number of categories (${ls[ax]}).`, span);
    const perturbed = this.bin('add', l, this.gumbel(key, [...ls], span), span);
    const moved = o.moveAxis(perturbed, ax, nd - 1, span);
    const indices = (this.fn('jax.lax', 'top_k', [moved, BigInt(k)], {}, span) as PyTuple).items[1] as Tracer;
    // lax.reshape(indices, shape, dimensions=(last, 0, 1, ...)): the sample axis first
    const r = indices.aval.shape.length;
    const perm = [r - 1, ...Array.from({ length: r - 1 }, (_, i) => i)];
    return o.reshape(o.transpose(indices, perm, span), out, span);
  }
  /** `_categorical` with replacement: argmax(gumbel + logits) along `axis` (the Gumbel-max trick). */
  categorical(key: Tracer, logits: PyValue, axis: number, shape: number[] | null, span: Span): Tracer {
    const o = this.ops;
    const l = o.asArray(logits, span);
    const ls = l.aval.shape;
    const nd = ls.length;
    if (axis < -nd || axis >= nd) throw new CompileError(`ValueError: axis ${axis} is out of bounds for array of dimension ${nd}`, span);
    const ax = axis >= 0 ? axis - nd : axis;
    const batch = ls.filter((_, d) => d !== ax + nd);
    const out = shape ?? batch;
    if (out.length < batch.length || batch.some((n, i) => out[out.length - batch.length + i] !== n && n !== 1)) {
      throw new CompileError(`ValueError: categorical parameter shapes (${batch.join(', ')}) must be broadcast-compatible with shape argument (${out.join(', ')})`, span);
    }
    const prefix = out.slice(0, out.length - batch.length);
    const logitsShape = out.slice(out.length - batch.length);
    logitsShape.splice(((ax % nd) + nd) % nd, 0, ls[ax + nd]!);
    const g = this.gumbel(key, [...prefix, ...logitsShape], span);
    const expanded = prefix.length ? o.reshape(l, [...prefix.map(() => 1), ...ls], span) : l;
    const jnp = this.ip.library.importModule('jax.numpy', span);
    return this.ip.call(jnp.attrs.get('argmax')!, { args: [this.bin('add', g, expanded, span)], kwargs: new Map([['axis', BigInt(ax)]]), span }) as Tracer;
  }
}

// float32 constants of jnp.finfo(np.float32)
const F32_TINY = 1.1754943508222875e-38;
const F32_EPS = 1.1920928955078125e-7;
const F32_EPSNEG = 5.960464477539063e-8;

function broadcastShapes(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    return x === 1 ? y : x;
  });
}

/** lax.nextafter(x, ±inf) for float32 `x`: one ulp up (dir 1) or down (dir -1), as C's nextafterf. */
function nextAfter(o: Interp['ops'], x: Tracer, dir: 1 | -1, span: Span): Tracer {
  const bits = o.bitcast(x, 'int32', span);
  // away from zero when x has the direction's sign, toward it otherwise; ±0 steps to the smallest subnormal
  const towardsSign = dir > 0 ? o.compare('ge', bits, 0n, span) : o.compare('lt', bits, 0n, span);
  const stepped = o.binary('add', bits, o.select(towardsSign, o.full([], 1, 'int32', span), o.full([], -1, 'int32', span), span), span);
  const isZero = o.compare('eq', o.binary('and', bits, 0x7fffffffn, span), 0n, span);
  const tiny = o.full([], dir > 0 ? 1 : -2147483647, 'int32', span);
  const nan = o.compare('ne', x, x, span);
  const inf = o.compare('eq', o.unary('abs', x, span), new NpScalar('float32', Infinity), span);
  const atLimit = o.binary('and', inf, dir > 0 ? o.compare('gt', x, 0n, span) : o.compare('lt', x, 0n, span), span);
  const next = o.bitcast(o.select(isZero, tiny, stepped, span), 'float32', span);
  return o.select(o.binary('or', nan, atLimit, span), x, next, span);
}

/**
 * Runs `body`, a sampler that JAX compiles whole (its `_sampler` is `@jit`, even when called
 * op by op), and gives the equations it recorded at host level what XLA does to a compiled
 * program: its float-changing algebraic rewrites (`c / sqrt(d)` is `c * rsqrt(d)` in gamma) and
 * its fused multiply-adds (`floats * (maxval - minval) + minval` in uniform). Inside a jitted
 * program the backend pipeline does the same; in a host segment only control-flow bodies get them.
 */
function compiledWhole(ip: Interp, body: () => PyValue): PyValue {
  if (!ip.atHost) return body();
  const builder = ip.trace().builder;
  const start = builder.eqns.length;
  const out = body();
  if (!(out instanceof Tracer) || !ip.atHost || ip.trace().builder !== builder || builder.eqns.length <= start) return out;
  const eqns = builder.eqns.splice(start);
  // the region as a function of the values it reads from before it
  const defined = new Set(eqns.flatMap((e) => e.outputs.map((o) => o.id)));
  const free = new Map<number, Var>();
  const read = (a: Atom): void => {
    if (a.kind === 'var' && !defined.has(a.id)) free.set(a.id, a);
  };
  for (const e of eqns) e.inputs.forEach(read);
  read(out.atom);
  const params = [...free.values()];
  const region = markFma(xlaAlgebraic({ name: 'sampler', params, eqns, results: [out.atom] }));
  const [result] = builder.inline(region, params);
  return ip.ops.tracer(result!);
}

/** The `jax.random` module. */
export function randomModule(ip: Interp): PyModule {
  const r = new Random(ip);
  const shapeOf = (c: CallArgs, i: number, name: string, def?: PyValue): number[] => {
    const v = arg(c, i, name, def);
    // a bare int is a 1-D shape (core.canonicalize_shape)
    return shapeArgs([typeof v === 'bigint' ? new PyTuple([v]) : v], c.span);
  };
  const dtypeOf = (c: CallArgs, i: number, def: DType): DType => {
    const d = arg(c, i, 'dtype', null);
    return d === null ? def : (dtypeArg(d, c.span) ?? def);
  };
  const key = (c: CallArgs, what: string): Tracer => r.keyData(arg(c, 0, 'key'), what, c.span);
  /** The dtype argument of a float sampler: float32 (JAX's ValueError for others). */
  const floatDtype = (c: CallArgs, i: number, what: string): void => {
    const d = dtypeOf(c, i, defaultFloat());
    if (d !== 'float32' && d !== 'float64') throw new CompileError(`ValueError: dtype argument to \`${what}\` must be a float dtype, got ${d}`, c.span);
  };
  /** An optional shape argument; None: the broadcast shape of the parameters. */
  const optShape = (c: CallArgs, i: number, params: PyValue[]): number[] => {
    const v = c.args[i] ?? c.kwargs.get('shape') ?? null;
    if (v !== null) return shapeArgs([v], c.span);
    return params.reduce<number[]>((s, p) => broadcastShapes(s, r.shapeOf(p, c.span)), []);
  };
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
    key_dtype: (c) => {
      impl(c, 0);
      return KEY_DTYPE;
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
      r.uniform(key(c, 'uniform'), shapeOf(c, 1, 'shape', new PyTuple([])), dtypeOf(c, 2, defaultFloat()), arg(c, 3, 'minval', 0), arg(c, 4, 'maxval', 1), c.span),
    normal: (c) => r.normal(key(c, 'normal'), shapeOf(c, 1, 'shape', new PyTuple([])), dtypeOf(c, 2, defaultFloat()), c.span),
    randint: (c) =>
      r.randint(key(c, 'randint'), shapeOf(c, 1, 'shape'), arg(c, 2, 'minval'), arg(c, 3, 'maxval'), dtypeOf(c, 4, defaultInt()), c.span),
    bernoulli: (c) => {
      const shape = arg(c, 2, 'shape', null);
      return r.bernoulli(key(c, 'bernoulli'), arg(c, 1, 'p', 0.5), shape === null ? null : shapeArgs([shape], c.span), c.span);
    },
    gumbel: (c) => (floatDtype(c, 2, 'gumbel'), r.gumbel(key(c, 'gumbel'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span)),
    exponential: (c) => (floatDtype(c, 2, 'exponential'), r.exponential(key(c, 'exponential'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span)),
    laplace: (c) => (floatDtype(c, 2, 'laplace'), r.laplace(key(c, 'laplace'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span)),
    logistic: (c) => (floatDtype(c, 2, 'logistic'), r.logistic(key(c, 'logistic'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span)),
    cauchy: (c) => (floatDtype(c, 2, 'cauchy'), r.cauchy(key(c, 'cauchy'), shapeOf(c, 1, 'shape', new PyTuple([])), c.span)),
    lognormal: (c) => {
      floatDtype(c, 3, 'lognormal');
      const sigma = arg(c, 1, 'sigma', new NpScalar('float32', 1));
      return r.lognormal(key(c, 'lognormal'), sigma, optShape(c, 2, [sigma]), c.span);
    },
    pareto: (c) => {
      floatDtype(c, 3, 'pareto');
      const b = arg(c, 1, 'b');
      return r.pareto(key(c, 'pareto'), b, optShape(c, 2, [b]), c.span);
    },
    rayleigh: (c) => {
      floatDtype(c, 3, 'rayleigh');
      const scale = arg(c, 1, 'scale', 1.0);
      return r.rayleigh(key(c, 'rayleigh'), scale, optShape(c, 2, [scale]), c.span);
    },
    weibull_min: (c) => {
      floatDtype(c, 4, 'weibull_min');
      return r.weibullMin(key(c, 'weibull_min'), arg(c, 1, 'scale'), arg(c, 2, 'concentration'), shapeOf(c, 3, 'shape', new PyTuple([])), c.span);
    },
    triangular: (c) => {
      floatDtype(c, 5, 'triangular');
      const [l, m, rt] = [arg(c, 1, 'left'), arg(c, 2, 'mode'), arg(c, 3, 'right')];
      return r.triangular(key(c, 'triangular'), l, m, rt, optShape(c, 4, [l, m, rt]), c.span);
    },
    geometric: (c) => {
      const p = arg(c, 1, 'p');
      return r.geometric(key(c, 'geometric'), p, optShape(c, 2, [p]), dtypeOf(c, 3, 'int32'), c.span);
    },
    rademacher: (c) => r.rademacher(key(c, 'rademacher'), shapeOf(c, 1, 'shape', new PyTuple([])), dtypeOf(c, 2, 'int32'), c.span),
    truncated_normal: (c) => {
      floatDtype(c, 4, 'truncated_normal');
      const shape = arg(c, 3, 'shape', null);
      return r.truncatedNormal(key(c, 'truncated_normal'), arg(c, 1, 'lower'), arg(c, 2, 'upper'), shape === null ? null : shapeArgs([shape], c.span), c.span);
    },
    categorical: (c) => {
      const replace = arg(c, 4, 'replace', true);
      const shape = arg(c, 3, 'shape', null);
      const s = shape === null ? null : shapeArgs([shape], c.span);
      const axis = Number(arg(c, 2, 'axis', -1n));
      if (replace === false) return r.categoricalNoReplace(key(c, 'categorical'), arg(c, 1, 'logits'), axis, s, c.span);
      return r.categorical(key(c, 'categorical'), arg(c, 1, 'logits'), axis, s, c.span);
    },
    permutation: (c) => r.permutation(key(c, 'permutation'), arg(c, 1, 'x'), Number(arg(c, 2, 'axis', 0n)), arg(c, 3, 'independent', false) === true, c.span),
    choice: (c) => {
      const shapeV = arg(c, 2, 'shape', new PyTuple([]));
      if (!(shapeV instanceof PyTuple) && !(shapeV instanceof PyList)) {
        throw new CompileError(`TypeError: shape argument of jax.random.choice must be a sequence, got ${String(shapeV)}`, c.span);
      }
      return r.choice(key(c, 'choice'), arg(c, 1, 'a'), shapeArgs([shapeV], c.span), arg(c, 3, 'replace', true) !== false, arg(c, 4, 'p', null), Number(arg(c, 5, 'axis', 0n)), c.span);
    },
  };
  // the samplers JAX writes as loops (gamma, poisson, binomial) and those built on them: Python, as JAX writes them
  for (const name of RANDOM_PRELUDE_FUNCTIONS) entries[name] ??= (c) => callRandomPrelude(ip, name, c);
  // the samplers' out_sharding= (the key functions take none); each sampler is compiled whole, as JAX jits it
  const keyFns = ['PRNGKey', 'key', 'key_data', 'wrap_key_data', 'key_impl', 'clone', 'split', 'fold_in'];
  // (orthogonal and multivariate_normal factor with LAPACK in XLA: their QR/eigh/SVD are not fused loops)
  const unfused = ['orthogonal', 'multivariate_normal'];
  for (const [name, f] of Object.entries(entries)) {
    if (keyFns.includes(name)) continue;
    entries[name] = unfused.includes(name) ? (c) => withOutSharding(ip, c, f) : (c) => compiledWhole(ip, () => withOutSharding(ip, c, f));
  }
  return builtinModule('jax.random', entries);
}
