// jax.numpy semantics on traced arrays: dtype promotion with weak types,
// NumPy broadcasting, reductions, dot/matmul, reshape and indexing. Each
// function records primitives into the current trace and returns a Tracer.
import type { Span } from '../parser/ast.js';
import { CompileError } from '../common/diagnostics.js';
import { lit, type FuncBuilder } from '../ir/builder.js';
import { ShapeError } from '../ir/primitives.js';
import { PRIMS, type Prim } from '../ir/prims.js';
import type { Atom, AVal, DType, Eqn, NanOrigin, Params } from '../ir/types.js';
import { isFloat, isInexact, size } from '../ir/types.js';
import { DTYPES, isNarrow, narrowValue, type DTypeKind } from '../ir/dtypes.js';
import { HostArray, HostNd, HostScalar, NdArray, NeedsStatic, NpScalar, PyComplex, PyTuple, PyList, Tracer, type PyValue, type Trace, typeName } from './values.js';
import { checkTracedOps } from './limits.js';
import { canonicalDtype, defaultFloat, x64Enabled } from './x64.js';

/** An `out_sharding=` of a jnp function: the mesh axes per dimension of a result of a given shape, and the axes it is left unreduced over. */
export type OutSharding = ((shape: readonly number[]) => string[][]) & { readonly unreduced?: readonly string[] };

/** What the lowering provides to array operations. */
export interface ArrayContext {
  trace(): Trace;
  /** A host constant for a compile-time NumPy array. */
  constant(nd: NdArray): HostArray;
  /** A device array made by the host program from a NumPy array known only at run time. */
  hostNdArray(x: HostNd): HostArray;
  /** The equations of host segment `t` checked as JAX checks each eager op (sharding in types); throws JAX's error. */
  checkEager(t: Trace): void;
  /** Under jax_debug_nans: where a primitive applied at `span` comes from (for its NaN check), else undefined. */
  nanOrigin(span: Span): NanOrigin | undefined;
}

export const fmtShape = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;

export class ArrayOps {
  constructor(private readonly ctx: ArrayContext) {}

  // ------------------------------------------------------------ conversion

  /** The atom of an array-like value (array, NumPy array, Python scalar) in the current trace. */
  atom(v: PyValue, span: Span): Atom {
    const t = this.ctx.trace();
    if (v instanceof Tracer || v instanceof HostArray) return t.atomOf(v);
    if (typeof v === 'boolean') return lit(v ? 1 : 0, 'bool', true);
    if (typeof v === 'bigint') {
      // a weak int beside a uint32 array may take up to 2**32 - 1 (asArray rejects those alone)
      if (x64Enabled()) {
        if (v < -(2n ** 63n) || v >= 2n ** 64n) throw new CompileError(`OverflowError: Python int ${v} too large to convert to int64`, span);
        return lit(Number(BigInt.asIntN(64, v)), 'int64', true);
      }
      if (v < -(2n ** 31n) || v >= 2n ** 32n) throw new CompileError(`OverflowError: Python int ${v} too large to convert to int32`, span);
      return lit(Number(BigInt.asIntN(32, v)), 'int32', true);
    }
    if (typeof v === 'number') return lit(v, defaultFloat(), true);
    // a Python complex is a weak complex64 scalar: a literal when real, else complex(re, im) of weak parts
    if (v instanceof PyComplex) {
      if (v.im === 0 && !Object.is(v.im, -0)) return lit(v.re, 'complex64', true);
      return this.bind('complex', [lit(v.re, 'float32', true), lit(v.im, 'float32', true)], {}, span);
    }
    if (v instanceof NpScalar) return lit(v.value, jaxDtype(v.dtype));
    if (v instanceof NdArray) return t.atomOf(this.ctx.constant(v));
    if (v instanceof HostNd) return t.atomOf(this.ctx.hostNdArray(v));
    if (v instanceof PyList || (v instanceof PyTuple && !v.cls)) return this.atom(this.asArray(v, span), span);
    // a host loop that feeds its index to an array function unrolls, as for the array operators
    if (v instanceof HostScalar) throw new NeedsStatic('an array operation with a value computed on the host at run time', span);
    throw new CompileError(`TypeError: Value ${typeName(v)} is not a valid JAX type`, span);
  }

  tracer(a: Atom): Tracer {
    return new Tracer(this.ctx.trace(), a);
  }

  aval(v: PyValue, span: Span): AVal {
    if (v instanceof Tracer || v instanceof HostArray) return v.aval;
    return this.atom(v, span).aval;
  }

  /** Bind one equation; `mark` annotates it (before an eager op's sharding checks see it). */
  bind(prim: Prim, inputs: Atom[], params: Params, span: Span, mark?: (e: Eqn) => void): Atom {
    const t = this.ctx.trace();
    const builder = t.builder;
    checkTracedOps(builder.eqns.length, span);
    let out: Atom;
    try {
      out = builder.bind1(prim, inputs, params, span);
    } catch (e) {
      if (e instanceof ShapeError) throw new CompileError(`TypeError: ${e.message}`, span);
      throw e;
    }
    mark?.(builder.eqns[builder.eqns.length - 1]!);
    this.noteOrigin(builder, span);
    if (t.kind === 'segment') {
      try {
        this.ctx.checkEager(t);
      } catch (e) {
        // the op failed, as JAX's eager op fails: it never happened
        builder.eqns.pop();
        if (e instanceof CompileError && !e.span) throw new CompileError(e.message, span ?? null, e.notes);
        throw e;
      }
    }
    return out;
  }

  /** Under jax_debug_nans: the last equation's origin, for its NaN check. */
  private noteOrigin(builder: FuncBuilder, span: Span): void {
    const origin = this.ctx.nanOrigin(span);
    if (origin) builder.eqns[builder.eqns.length - 1]!.nanOrigin = origin;
  }

  /** Bind a primitive with several results (control flow, sort). */
  bindN(prim: Prim, inputs: Atom[], params: Params, span: Span): Atom[] {
    const builder = this.ctx.trace().builder;
    checkTracedOps(builder.eqns.length, span);
    try {
      const outs = builder.bind(prim, inputs, params, span);
      this.noteOrigin(builder, span);
      return outs;
    } catch (e) {
      if (e instanceof ShapeError) throw new CompileError(`TypeError: ${e.message}`, span);
      throw e;
    }
  }

  /** `jnp.asarray` of a (possibly nested) list of array-likes: constant-folds static data, else stacks. */
  /** JAX's promote_args_inexact for one value: floats keep their dtype, integers and bools become float32. */
  asInexact(v: PyValue, span: Span): Tracer {
    const x = this.asArray(v, span);
    return isInexact(x.aval.dtype) ? x : this.convert(x, defaultFloat(), span);
  }

  asArray(v: PyValue, span: Span, dtype?: DType): Tracer {
    if (v instanceof PyList || (v instanceof PyTuple && !v.cls)) {
      const nd = staticNd(v);
      if (nd) return this.asArray(nd, span, dtype);
      const parts = staticComplexParts(v);
      if (parts) {
        // complex constants: complex(re, im) of two float32 constants
        const [re, im] = parts.map((p) => this.asArray(p, span, 'float32').atom) as [Atom, Atom];
        const z = this.tracer(this.bind('complex', [re, im], {}, span));
        return dtype ? this.convert(z, dtype, span) : z;
      }
      // JAX's jnp.array of a sequence: every element is first made an array of the result dtype (strongly
      // typed), then they are stacked (convert_element_type before each broadcast_in_dim in a jaxpr)
      const items = v.items.map((x) => this.asArray(x, span));
      if (!items.length) return this.stack(items, 0, span, dtype);
      const dt = dtype ?? items.map((x) => x.aval).reduce((p, q) => ({ shape: [], dtype: promote(p, q) })).dtype;
      return this.stack(items, 0, span, dt, true);
    }
    if (v instanceof NdArray) {
      const x = this.tracer(this.atom(v, span));
      return dtype ? this.convert(x, dtype, span) : x;
    }
    if (typeof v === 'bigint' && v >= 2n ** 31n && dtype !== 'uint32') throw new CompileError(`OverflowError: Python int ${v} too large to convert to int32`, span);
    const a = this.atom(v, span);
    let x: Atom = a;
    if (a.kind === 'lit') x = this.bind('broadcast_in_dim', [a], { shape: [], broadcast_dimensions: [] }, span);
    const t = this.tracer(x);
    return dtype ? this.convert(t, dtype, span) : t;
  }

  /** An explicit conversion (astype, dtype=...): the result is strongly typed, as in JAX. */
  convert(x: Tracer, dtype: DType, span: Span): Tracer {
    if (x.aval.dtype === dtype && !x.aval.weak) return x;
    return this.tracer(this.convertAtom(x.atom, dtype, span));
  }

  /** An implicit promotion (jnp's own): `x` as `dtype`, weakly typed when `weak` (both operands of jnp.where weak). */
  promoteTo(x: Tracer, dtype: DType, weak: boolean, span: Span): Tracer {
    return this.tracer(this.convertAtom(x.atom, dtype, span, weak));
  }

  /** `a` as `dtype`; `weak` keeps it weakly typed (a weak operand promoted to another weak operand's dtype). */
  private convertAtom(a: Atom, dtype: DType, span: Span, weak = false): Atom {
    if (a.aval.dtype === dtype && (a.aval.weak === true) === weak) return a;
    if (a.kind === 'lit') return lit(castScalar(a.value, dtype), dtype, weak);
    return this.bind('convert_element_type', [a], { new_dtype: dtype, weak_type: weak }, span);
  }

    // ------------------------------------------------------------ elementwise

  /** A binary jnp operation with promotion and broadcasting. `kind` picks the output dtype rule. */
  binary(prim: Prim, x: PyValue, y: PyValue, span: Span, trueDivide = true): Tracer {
    let a = this.atom(x, span);
    let b = this.atom(y, span);
    let dtype = promote(a.aval, b.aval);
    if (prim === 'div' && !isInexact(dtype) && trueDivide) dtype = defaultFloat(); // true_divide (lax.div divides integers)
    if (prim === 'sub' && dtype === 'bool') {
      throw new CompileError('TypeError: sub does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of integer, floating, complexfloating.', span);
    }
    // the result is weak when the promoted type is a weak one (JAX's lattice): weak op weak, or a weak
    // operand of a higher kind than the typed one (int32 array * 2.0 is a weak float32)
    const weak = weakPromoted(a.aval, b.aval);
    a = this.convertAtom(a, dtype, span, weak);
    b = this.convertAtom(b, dtype, span, weak);
    const shape = broadcastShapes(a.aval.shape, b.aval.shape, span, sameRank(a.aval.shape, b.aval.shape) ? prim : undefined);
    // (after the shapes: jnp broadcasts its operands before lax checks the dtype)
    if ((prim === 'and' || prim === 'or' || prim === 'xor') && isFloat(dtype)) {
      throw new CompileError(`TypeError: ${prim === 'and' ? 'bitwise_and' : prim === 'or' ? 'bitwise_or' : 'bitwise_xor'} got incompatible dtypes float32`, span);
    }
    a = this.operand(a, shape, span);
    b = this.operand(b, shape, span);
    return this.tracer(this.bind(prim, [a, b], {}, span));
  }

  /** `x ** y`: integer_pow for a static integer exponent, like jnp.power. */
  power(x: PyValue, y: PyValue, span: Span): Tracer {
    if (typeof y === 'bigint' || (typeof y === 'boolean')) {
      const n = Number(y);
      // integer_pow multiplies by repeated squaring over the exponent's bits, which a double holds exactly up to 2**53
      if (!Number.isSafeInteger(n)) throw new CompileError(`OverflowError: the exponent ${y} is too large for integer_pow (at most 2**53 - 1)`, span);
      let a = this.atom(x, span);
      if (a.kind === 'lit') return this.power(this.asArray(x, span), y, span);
      // jnp.power (and jnp.square) promote bool to int first (promote_dtypes_numeric)
      if (a.aval.dtype === 'bool') a = this.convertAtom(a, 'int32', span);
      if (n < 0 && !isInexact(a.aval.dtype)) {
        throw new CompileError('ValueError: Integers to negative integer powers are not allowed.', span);
      }
      return this.tracer(this.bind('integer_pow', [a], { y: n }, span));
    }
    const ax = this.atom(x, span);
    const ay = this.atom(y, span);
    if (ax.aval.dtype === 'bool' || ay.aval.dtype === 'bool') {
      const numeric = (v: PyValue, a: Atom): PyValue => (a.aval.dtype === 'bool' ? this.tracer(this.convertAtom(a, 'int32', span)) : v);
      return this.power(numeric(x, ax), numeric(y, ay), span);
    }
    if (promote(ax.aval, ay.aval) === 'complex64') return this.binary('pow', x, y, span);
    const d = promote(ax.aval, ay.aval);
    if (d !== 'float32' && d !== 'float64') return this.powIntInt(x, y, span);
    return this.binary('pow', this.convertLike(x, d, span), this.convertLike(y, d, span), span);
  }

  /** An integer to an integer array power: JAX's _pow_int_int, binary exponentiation over the exponent's low 6 bits. */
  private powIntInt(x: PyValue, y: PyValue, span: Span): Tracer {
    const dtype = promote(this.aval(x, span), this.aval(y, span));
    const shape = broadcastShapes(this.aval(x, span).shape, this.aval(y, span).shape, span);
    const bc = (v: PyValue): Tracer => this.tracer(this.broadcastTo(this.convert(this.asArray(v, span), dtype, span).atom, shape, span));
    let x1 = bc(x);
    let x2 = bc(y);
    const zero = this.full(shape, 0, dtype, span);
    const one = this.full(shape, 1, dtype, span);
    let acc = this.select(this.binary('and', this.compare('eq', x1, zero, span), this.compare('ne', x2, zero, span), span), zero, one, span);
    for (let i = 0; i < 6; i++) {
      acc = this.select(this.compare('ne', this.binary('and', x2, one, span), zero, span), this.binary('mul', acc, x1, span), acc, span);
      x1 = this.binary('mul', x1, x1, span);
      x2 = this.binary('shift_right_logical', x2, one, span);
    }
    return acc;
  }

  private convertLike(v: PyValue, dtype: DType, span: Span): PyValue {
    const a = this.atom(v, span);
    if (a.kind === 'lit') return v;
    return this.tracer(this.convertAtom(a, dtype, span));
  }

  unary(prim: Prim, x: PyValue, span: Span): Tracer {
    let a = this.atom(x, span);
    if (a.kind === 'lit') {
      // a Python scalar stays weakly typed, as in JAX (jnp.log(2.0) is a weak float32)
      const dtype = PRIMS[prim].floatOnly && a.aval.dtype !== 'complex64' ? defaultFloat() : a.aval.dtype;
      a = this.bind('broadcast_in_dim', [lit(castScalar(a.value, dtype), dtype, a.aval.weak === true)], { shape: [], broadcast_dimensions: [] }, span);
    }
    if (PRIMS[prim].floatOnly && !isInexact(a.aval.dtype)) a = this.convertAtom(a, defaultFloat(), span);
    if ((prim === 'neg' || prim === 'sign') && a.aval.dtype === 'bool') throw new CompileError(`TypeError: ${prim} does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, complexfloating.`, span);
    return this.tracer(this.bind(prim, [a], {}, span));
  }

  compare(prim: Prim, x: PyValue, y: PyValue, span: Span): Tracer {
    let a = this.atom(x, span);
    let b = this.atom(y, span);
    const dtype = promote(a.aval, b.aval);
    // weak operands of a weak promoted type stay weak (`x < 10` of a weak x converts nothing, as in JAX)
    const weak = weakPromoted(a.aval, b.aval);
    a = this.convertAtom(a, dtype, span, weak);
    b = this.convertAtom(b, dtype, span, weak);
    const shape = broadcastShapes(a.aval.shape, b.aval.shape, span, sameRank(a.aval.shape, b.aval.shape) ? prim : undefined);
    return this.tracer(this.bind(prim, [this.operand(a, shape, span), this.operand(b, shape, span)], {}, span));
  }

  /** An operand of a binary operation broadcast to `shape`, its broadcast marked (Eqn.operandBroadcast). */
  private operand(a: Atom, shape: readonly number[], span: Span): Atom {
    const out = this.broadcastTo(a, shape, span);
    if (out !== a) this.ctx.trace().builder.eqns.at(-1)!.operandBroadcast = true;
    return out;
  }

  /** lax.select(pred, on_true, on_false): the branches are broadcast to the predicate's shape. */
  select(pred: Tracer, onTrue: Tracer, onFalse: Tracer, span: Span): Tracer {
    const shape = pred.aval.shape;
    const t = this.broadcastTo(onTrue.atom, shape, span);
    const f = this.broadcastTo(onFalse.atom, shape, span);
    return this.tracer(this.bind('select_n', [pred.atom, f, t], {}, span));
  }

  // ------------------------------------------------------------ complex numbers

  /** jnp.real: lax.real of a complex array, else the array itself. */
  real(x: PyValue, span: Span): Tracer {
    const a = this.asArray(x, span);
    return a.aval.dtype === 'complex64' ? this.tracer(this.bind('real', [a.atom], {}, span)) : a;
  }

  /** jnp.imag: lax.imag of a complex array, else zeros like it. */
  imag(x: PyValue, span: Span): Tracer {
    const a = this.asArray(x, span);
    return a.aval.dtype === 'complex64' ? this.tracer(this.bind('imag', [a.atom], {}, span)) : this.full([...a.aval.shape], 0, a.aval.dtype, span);
  }

  /** jnp.conjugate: lax.conj of a complex array, else the array itself. */
  conj(x: PyValue, span: Span): Tracer {
    const a = this.asArray(x, span);
    return a.aval.dtype === 'complex64' ? this.tracer(this.bind('conj', [a.atom], {}, span)) : a;
  }

  /** lax.complex(x, y): float32 operands (promoted and broadcast) → complex64. */
  complex(x: PyValue, y: PyValue, span: Span): Tracer {
    const a = this.convertLike(x, 'float32', span);
    const b = this.convertLike(y, 'float32', span);
    const shape = broadcastShapes(this.aval(a, span).shape, this.aval(b, span).shape, span, 'complex');
    const at = (v: PyValue): Atom => this.broadcastTo(this.convert(this.asArray(v, span), 'float32', span).atom, shape, span);
    return this.tracer(this.bind('complex', [at(a), at(b)], {}, span));
  }

  /** lax.bitcast_convert_type. */
  bitcast(x: PyValue, dtype: DType, span: Span): Tracer {
    return this.tracer(this.bind('bitcast_convert_type', [this.asArray(x, span).atom], { new_dtype: dtype }, span));
  }

  /** lax.stop_gradient: the identity whose cotangent is zero. */
  stopGradient(x: PyValue, span: Span): Tracer {
    return this.tracer(this.bind('stop_gradient', [this.asArray(x, span).atom], {}, span));
  }

  /**
   * (x - stop_gradient(x)) * slope: a zero that carries x's tangent times `slope`, the way a custom JVP rule
   * is written as `stop_gradient(y) + tangentTerm(x, slope)`. Where x is ±inf or NaN it is a plain zero:
   * inf - inf would turn the primal value into NaN, and JAX's custom_jvp never computes it.
   */
  tangentTerm(x: Tracer, slope: Tracer, span: Span): Tracer {
    const finite = this.tracer(this.bind('is_finite', [this.stopGradient(x, span).atom], {}, span));
    const t = this.binary('mul', this.binary('sub', x, this.stopGradient(x, span), span), this.stopGradient(slope, span), span);
    return this.select(finite, t, this.full([...t.aval.shape], 0, t.aval.dtype, span), span);
  }

  broadcastTo(a: Atom, shape: readonly number[], span: Span): Atom {
    const s = a.aval.shape;
    if (s.length === shape.length && s.every((d, i) => d === shape[i])) return a;
    const offset = shape.length - s.length;
    const input = a;
    return this.bind('broadcast_in_dim', [input], { shape: [...shape], broadcast_dimensions: s.map((_, i) => i + offset) }, span);
  }

  // ------------------------------------------------------------ structure

  reshape(x: PyValue, newShape: number[], span: Span): Tracer {
    const a = this.asArray(x, span).atom;
    const n = size(a.aval.shape);
    const unknown = newShape.indexOf(-1);
    const shape = [...newShape];
    if (newShape.filter((d) => d === -1).length > 1) {
      throw new CompileError(`TypeError: can only specify one unknown axis size with a \`-1\` value, got ${fmtShape(newShape)}`, span);
    }
    if (unknown >= 0) {
      const known = shape.reduce((p, d, i) => (i === unknown ? p : p * d), 1);
      if (known === 0 || n % known !== 0) {
        throw new CompileError(`TypeError: cannot reshape array of shape ${fmtShape(a.aval.shape)} (size ${n}) into shape ${fmtShape(newShape)} because the product of specified axis sizes (${known}) does not evenly divide ${n}`, span);
      }
      shape[unknown] = n / known;
    }
    if (size(shape) !== n) {
      throw new CompileError(`TypeError: cannot reshape array of shape ${fmtShape(a.aval.shape)} (size ${n}) into shape ${fmtShape(shape)} (size ${size(shape)})`, span);
    }
    if (shape.length === a.aval.shape.length && shape.every((d, i) => d === a.aval.shape[i])) return this.tracer(a);
    return this.tracer(this.bind('reshape', [a], { new_sizes: shape, dimensions: null }, span));
  }

  transpose(x: PyValue, perm: number[] | null, span: Span): Tracer {
    const a = this.asArray(x, span).atom;
    const r = a.aval.shape.length;
    const p = perm ? perm.map((d) => (d < 0 ? d + r : d)) : Array.from({ length: r }, (_, i) => r - 1 - i);
    // jnp.transpose canonicalizes each axis first (lax.transpose then checks the permutation)
    perm?.forEach((d, i) => {
      if (!(p[i]! >= 0 && p[i]! < r)) throw new CompileError(`ValueError: axis ${d} is out of bounds for array of dimension ${r}`, span);
    });
    if (p.length === r && p.every((d, i) => d === i)) return this.tracer(a);
    return this.tracer(this.bind('transpose', [a], { permutation: p }, span));
  }

  moveAxis(x: Tracer, from: number, to: number, span: Span): Tracer {
    if (from === to) return x;
    const r = x.aval.shape.length;
    const perm = Array.from({ length: r }, (_, i) => i).filter((i) => i !== from);
    perm.splice(to, 0, from);
    return this.transpose(x, perm, span);
  }

  expandDims(x: Tracer, axis: number, span: Span): Tracer {
    const rank = x.aval.shape.length + 1;
    if (!(axis >= 0 && axis < rank)) throw new CompileError(`ValueError: axis ${axis} is out of bounds for array of dimension ${rank}`, span);
    const shape = [...x.aval.shape];
    shape.splice(axis, 0, 1);
    return this.tracer(this.bind('broadcast_in_dim', [x.atom], { shape, broadcast_dimensions: x.aval.shape.map((_, i) => (i < axis ? i : i + 1)) }, span));
  }

  /** jnp.stack (`convertFirst`: each item converted to `dtype` before it is expanded, as jnp.array does). */
  stack(items: PyValue[], axis: number, span: Span, dtype?: DType, convertFirst = false): Tracer {
    if (!items.length) throw new CompileError('ValueError: Need at least one array to stack.', span);
    const arrs = items.map((v) => this.asArray(v, span));
    const shape0 = arrs[0]!.aval.shape;
    // lax.stack's shape rule, in its words
    const shapes = (): string => arrs.map((a) => fmtShape(a.aval.shape)).join(', ');
    if (arrs.some((a) => a.aval.shape.length !== shape0.length)) throw new CompileError(`ValueError: Cannot stack arrays with different numbers of dimensions: got ${shapes()}.`, span);
    if (arrs.some((a) => a.aval.shape.some((d, i) => d !== shape0[i]))) throw new CompileError(`ValueError: All input arrays must have the same shape. Got ${shapes()}.`, span);
    const ax = axis < 0 ? axis + shape0.length + 1 : axis;
    const expanded = arrs.map((a) => this.expandDims(convertFirst && dtype ? this.convert(a, dtype, span) : a, ax, span));
    return this.concatenate(expanded, ax, span, dtype);
  }

  concatenate(items: PyValue[], axis: number, span: Span, dtype?: DType): Tracer {
    if (!items.length) throw new CompileError('ValueError: Need at least one array to concatenate.', span);
    const arrs = items.map((v) => this.asArray(v, span));
    const dt = dtype ?? arrs.map((a) => a.aval).reduce((p, c) => ({ shape: [], dtype: promote(p, c) })).dtype;
    const conv = arrs.map((a) => this.convert(a, dt, span));
    const r = conv[0]!.aval.shape.length;
    if (r === 0) throw new CompileError('ValueError: Zero-dimensional arrays cannot be concatenated.', span);
    const ax = axis < 0 ? axis + r : axis;
    if (!(ax >= 0 && ax < r)) throw new CompileError(`ValueError: axis ${axis} is out of bounds for array of dimension ${r}`, span);
    if (conv.length === 1) return conv[0]!;
    return this.tracer(this.bind('concatenate', conv.map((c) => c.atom), { dimension: ax }, span));
  }

  // ------------------------------------------------------------ reductions and products

  reduce(prim: 'reduce_sum' | 'reduce_max' | 'reduce_min' | 'reduce_prod', x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
    let a = this.asArray(x, span).atom;
    const info = DTYPES[a.aval.dtype];
    const adds = prim === 'reduce_sum' || prim === 'reduce_prod';
    // jnp.sum/prod promote bool and narrow integers to the default int (promote_integers), and
    // compute float16/bfloat16 in float32 (upcast_f16_for_computation), as jax/_src/numpy/reductions.py
    if (adds && (a.aval.dtype === 'bool' || ((info.kind === 'int' || info.kind === 'uint') && isNarrow(a.aval.dtype)))) a = this.convertAtom(a, info.kind === 'uint' ? 'uint32' : 'int32', span);
    const upcast = adds && info.kind === 'float' && isNarrow(a.aval.dtype) ? a.aval.dtype : null;
    if (upcast) a = this.convertAtom(a, defaultFloat(), span);
    const r = a.aval.shape.length;
    const axes = normalizeAxes(axis, r, span);
    let out = this.bind(prim, [a], { axes, out_sharding: null }, span);
    if (upcast) out = this.convertAtom(out, upcast, span);
    if (keepdims) out = this.keepDims(out, a.aval.shape, axes, span);
    return this.tracer(out);
  }

  mean(x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
    let a = this.asArray(x, span);
    // float16/bfloat16 are summed and divided in float32, then rounded back (JAX's _upcast_f16)
    const narrow = isNarrow(a.aval.dtype) && isFloat(a.aval.dtype) ? a.aval.dtype : null;
    if (!isInexact(a.aval.dtype) || narrow) a = this.convert(a, defaultFloat(), span);
    const axes = normalizeAxes(axis, a.aval.shape.length, span);
    const n = axes.reduce((p, d) => p * a.aval.shape[d]!, 1);
    const s = this.reduce('reduce_sum', a, axis, keepdims, span);
    const m = this.binary('div', s, lit(n, 'float32', true).value, span);
    return narrow ? this.convert(m, narrow, span) : m;
  }

  private keepDims(a: Atom, inShape: readonly number[], axes: number[], span: Span): Atom {
    const shape = inShape.map((d, i) => (axes.includes(i) ? 1 : d));
    return this.bind('reshape', [a], { new_sizes: shape, dimensions: null }, span);
  }

  /** jnp.dot semantics; `outSharding`: its `out_sharding=`, the layout of a result of the given shape. */
  dot(x: PyValue, y: PyValue, span: Span, outSharding?: OutSharding, precision: [string, string] | null = null): Tracer {
    let a = this.asArray(x, span).atom;
    let b = this.asArray(y, span).atom;
    const dtype = promote(a.aval, b.aval);
    a = this.convertAtom(a, dtype, span);
    b = this.convertAtom(b, dtype, span);
    const ra = a.aval.shape.length;
    const rb = b.aval.shape.length;
    if (ra === 0 || rb === 0) return this.binary('mul', this.tracer(a), this.tracer(b), span);
    const contract: [number[], number[]] = [[ra - 1], [rb === 1 ? 0 : rb - 2]];
    const mark = outSharding && ((e: Eqn) => {
      e.outSharding = outSharding(e.outputs[0]!.aval.shape);
      if (outSharding.unreduced?.length) e.outUnreduced = [...outSharding.unreduced];
    });
    return this.tracer(this.bind('dot_general', [a, b], { dimension_numbers: { contract, batch: [[], []] }, precision, preferred_element_type: dtype }, span, mark));
  }

  /** jnp.matmul semantics (`@`): batch dims broadcast, vectors promoted. */
  matmul(x: PyValue, y: PyValue, span: Span, precision: [string, string] | null = null): Tracer {
    let a = this.asArray(x, span).atom;
    let b = this.asArray(y, span).atom;
    const ra = a.aval.shape.length;
    const rb = b.aval.shape.length;
    if (ra === 0 || rb === 0) throw new CompileError('ValueError: matmul: Input operand does not have enough dimensions', span);
    if (ra <= 2 && rb <= 2) return this.dot(x, y, span, undefined, precision);
    const dtype = promote(a.aval, b.aval);
    a = this.convertAtom(a, dtype, span);
    b = this.convertAtom(b, dtype, span);
    // general case: broadcast batch dims, then dot_general with batch dimensions
    const aMat = ra === 1 ? this.expandDims(this.tracer(a), 0, span).atom : a;
    const bMat = rb === 1 ? this.expandDims(this.tracer(b), 1, span).atom : b;
    const abatch = aMat.aval.shape.slice(0, -2);
    const bbatch = bMat.aval.shape.slice(0, -2);
    const batch = broadcastShapes(abatch, bbatch, span);
    const A = this.broadcastTo(aMat, [...batch, ...aMat.aval.shape.slice(-2)], span);
    const B = this.broadcastTo(bMat, [...batch, ...bMat.aval.shape.slice(-2)], span);
    const nb = batch.length;
    const bd = Array.from({ length: nb }, (_, i) => i);
    let out: Atom = this.bind('dot_general', [A, B], { dimension_numbers: { contract: [[nb + 1], [nb]], batch: [bd, bd] }, precision, preferred_element_type: dtype }, span);
    if (ra === 1 || rb === 1) {
      const shape = out.aval.shape.filter((_, i) => !((ra === 1 && i === nb) || (rb === 1 && i === nb + 1)));
      out = this.bind('reshape', [out], { new_sizes: shape, dimensions: null }, span);
    }
    return this.tracer(out);
  }

  // ------------------------------------------------------------ creation

  arange(start: number, stop: number, step: number, dtype: DType, span: Span): Tracer {
    const n = Math.max(0, Math.ceil((stop - start) / step));
    if (!isFloat(dtype) && !(Number.isInteger(start) && Number.isInteger(step))) {
      throw new CompileError(`arange with a non-integer start or step and dtype ${dtype} is not supported`, span);
    }
    let x: Tracer = this.tracer(this.bind('iota', [], { dtype, shape: [n], dimension: 0, sharding: null }, span));
    if (step !== 1) x = this.binary('mul', x, isFloat(dtype) ? step : BigInt(step), span);
    if (start !== 0) x = this.binary('add', x, isFloat(dtype) ? start : BigInt(start), span);
    return this.convert(x, dtype, span);
  }

  full(shape: number[], value: number, dtype: DType, span: Span, weak = false): Tracer {
    if (shape.some((d) => d < 0)) throw new CompileError(`TypeError: broadcast_in_dim shape must have every element be nonnegative, got ${fmtShape(shape)}.`, span);
    return this.tracer(this.broadcastTo(lit(castScalar(value, dtype), dtype, weak), shape, span));
  }

  // ------------------------------------------------------------ indexing

  /** Basic indexing with static ints, slices, None and Ellipsis. */
  index(x: PyValue, items: IndexItem[], span: Span): Tracer {
    let a = this.asArray(x, span);
    if (items.some((i) => i.kind === 'array' || i.kind === 'mask')) throw new Error('internal: array indices go through lower/indexing.ts');
    const shape = a.aval.shape;
    const ell = items.findIndex((i) => i.kind === 'ellipsis');
    const consumed = items.filter((i) => i.kind === 'int' || i.kind === 'slice').length;
    if (consumed > shape.length) {
      throw new CompileError(`IndexError: Too many indices: ${shape.length}-dimensional array indexed with ${consumed} regular indices.`, span);
    }
    const expanded: IndexItem[] = [];
    for (const it of items) {
      if (it.kind === 'ellipsis') {
        for (let k = 0; k < shape.length - consumed; k++) expanded.push({ kind: 'slice', start: null, stop: null, step: null });
      } else expanded.push(it);
    }
    if (ell < 0) while (expanded.filter((i) => i.kind !== 'none').length < shape.length) expanded.push({ kind: 'slice', start: null, stop: null, step: null });
    const start: number[] = [];
    const limit: number[] = [];
    const strides: number[] = [];
    const squeeze: number[] = [];
    const newAxes: number[] = [];
    const rev: number[] = [];
    let d = 0;
    let outPos = 0;
    for (const it of expanded) {
      if (it.kind === 'none') {
        newAxes.push(outPos++);
        continue;
      }
      const n = shape[d]!;
      if (it.kind === 'int') {
        // JAX clamps a static out-of-bounds index into the axis (its gather/dynamic_slice semantics); only an empty axis has none
        if (n === 0) throw new CompileError(`IndexError: index ${it.value} is out of bounds for axis ${d} with size ${n}`, span);
        const i = Math.min(Math.max(it.value < 0 ? it.value + n : it.value, 0), n - 1);
        start.push(i);
        limit.push(i + 1);
        strides.push(1);
        squeeze.push(d);
      } else if (it.kind === 'slice') {
        const [s, e, st] = sliceIndices(it.start, it.stop, it.step, n);
        if (st > 0) {
          start.push(s);
          limit.push(Math.max(s, e));
          strides.push(st);
        } else {
          // negative step: slice the mirrored range, then reverse
          const cnt = Math.max(0, Math.ceil((e - s) / st));
          const last = s + (cnt - 1) * st;
          start.push(cnt ? last : 0);
          limit.push(cnt ? s + 1 : 0);
          strides.push(-st);
          rev.push(outPos);
        }
        outPos++;
      }
      d++;
    }
    let atom = a.atom;
    const full = start.every((s, i) => s === 0 && limit[i] === shape[i] && strides[i] === 1);
    if (!full) atom = this.bind('slice', [atom], { start_indices: start, limit_indices: limit, strides: strides.every((s) => s === 1) ? null : strides }, span);
    if (squeeze.length) atom = this.bind('squeeze', [atom], { dimensions: squeeze }, span);
    if (rev.length) atom = this.bind('rev', [atom], { dimensions: rev }, span);
    a = this.tracer(atom);
    for (const ax of newAxes) a = this.expandDims(a, ax, span);
    return a;
  }
}

export type IndexItem =
  | { kind: 'int'; value: number }
  | { kind: 'slice'; start: number | null; stop: number | null; step: number | null }
  | { kind: 'none' }
  | { kind: 'ellipsis' }
  /** An integer array index (any rank; lower/indexing.ts lowers it). */
  | { kind: 'array'; value: Tracer }
  /** A boolean mask known at compile time (row-major data). */
  | { kind: 'mask'; shape: number[]; data: boolean[] };

/** Python's slice.indices(n). */
export function sliceIndices(start: number | null, stop: number | null, step: number | null, n: number): [number, number, number] {
  const st = step ?? 1;
  // evalSliceExpr reports a zero step at its source (ValueError: slice step cannot be zero)
  if (st === 0) throw new Error('internal: slice step cannot be zero');
  const clamp = (v: number | null, def: number, lo: number, hi: number): number => {
    if (v === null) return def;
    let x = v < 0 ? v + n : v;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    return x;
  };
  if (st > 0) return [clamp(start, 0, 0, n), clamp(stop, n, 0, n), st];
  return [clamp(start, n - 1, -1, n - 1), clamp(stop, -1, -1, n - 1), st];
}

/**
 * JAX functions that read `a.shape[axis]` before normalising the axis (mean, var, argmax, glu, ...) raise
 * Python's IndexError for an out-of-range integer axis, where the others raise ValueError (normalizeAxes).
 */
export function checkShapeIndex(axis: PyValue, rank: number, span: Span): void {
  const list = axis instanceof PyTuple || axis instanceof PyList ? axis.items : [axis];
  for (const v of list) {
    if (typeof v === 'bigint' && (v >= BigInt(rank) || v < -BigInt(rank))) throw new CompileError('IndexError: tuple index out of range', span);
  }
}

export function normalizeAxes(axis: PyValue, rank: number, span: Span): number[] {
  if (axis === null || axis === undefined) return Array.from({ length: rank }, (_, i) => i);
  const list = axis instanceof PyTuple || axis instanceof PyList ? axis.items : [axis];
  return list.map((v) => {
    // a traced axis (a jit argument not marked static): JAX asks for its concrete value
    if (v instanceof Tracer && v.trace.kind !== 'segment') {
      throw new CompileError(`ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape ${v.aval.dtype}[${v.aval.shape.join(',')}]\nThe axis argument must be known statically.`, span);
    }
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: axis must be an int or tuple of ints, got ${typeName(v)}`, span);
    const a = Number(v);
    const n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank) throw new CompileError(`ValueError: axis ${a} is out of bounds for array of dimension ${rank}`, span);
    return n;
  });
}

/**
 * Do the operands of a jnp binary operation have one rank (scalars aside)? Then jnp hands them to the lax
 * primitive unchanged, which words a shape mismatch as a TypeError naming the primitive; operands of different
 * ranks go through `broadcast_shapes` first, which raises JAX's ValueError (numpy_util.promote_shapes).
 */
const sameRank = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length || a.length === 0 || b.length === 0;

/** The broadcast shape of `a` and `b`; `op` (a lax primitive such as 'add') words the error as JAX's binary ops do. */
export function broadcastShapes(a: readonly number[], b: readonly number[], span: Span, op?: string): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) {
      throw new CompileError(
        op ? `TypeError: ${op} got incompatible shapes for broadcasting: ${fmtShape(a)}, ${fmtShape(b)}.` : `ValueError: Incompatible shapes for broadcasting: shapes=[${fmtShape(a)}, ${fmtShape(b)}]`,
        span,
      );
    }
    out.push(x === 1 ? y : x);
  }
  return out;
}

// JAX's type promotion lattice (jax/_src/dtypes.py _type_promotion_lattice): `i*`, `f*`, `c*` are
// the weak types of Python scalars; the 64-bit nodes canonicalize to 32 bits (x64 disabled).
const LATTICE: Record<string, readonly string[]> = {
  b1: ['i*'], 'i*': ['u8', 'i8'],
  u8: ['i16', 'u16'], u16: ['i32', 'u32'], u32: ['i64', 'u64'], u64: ['f*'],
  i8: ['i16'], i16: ['i32'], i32: ['i64'], i64: ['f*'],
  'f*': ['bf16', 'f16', 'c*'], bf16: ['f32'], f16: ['f32'], f32: ['f64', 'c64'], f64: ['c128'],
  'c*': ['c64'], c64: ['c128'], c128: [],
};
const CANONICAL_X32: Record<string, DType> = {
  b1: 'bool', 'i*': 'int32', u8: 'uint8', u16: 'uint16', u32: 'uint32', u64: 'uint32', i8: 'int8', i16: 'int16', i32: 'int32', i64: 'int32',
  'f*': 'float32', bf16: 'bfloat16', f16: 'float16', f32: 'float32', f64: 'float32', 'c*': 'complex64', c64: 'complex64', c128: 'complex64',
};
const CANONICAL_X64: Record<string, DType> = { ...CANONICAL_X32, 'i*': 'int64', i64: 'int64', 'f*': 'float64', f64: 'float64' };
/** Each lattice node with every node above it (itself included). */
const UPPER: Map<string, Set<string>> = new Map();
for (const n of Object.keys(LATTICE)) {
  const up = new Set<string>();
  const walk = (m: string): void => {
    if (up.has(m)) return;
    up.add(m);
    for (const k of LATTICE[m]!) walk(k);
  };
  walk(n);
  UPPER.set(n, up);
}
const WEAK_NODE: Record<DTypeKind, string> = { bool: 'b1', int: 'i*', uint: 'i*', float: 'f*', complex: 'c*' };
const latticeNode = (a: AVal): string => (a.weak ? WEAK_NODE[DTYPES[a.dtype].kind] : a.dtype === 'bool' ? 'b1' : DTYPES[a.dtype].short);

/** The least upper bound of two avals' lattice nodes (the lattice is a join semilattice). */
function joinNodes(a: AVal, b: AVal): string {
  const ua = UPPER.get(latticeNode(a))!;
  const ub = UPPER.get(latticeNode(b))!;
  const common = [...ua].filter((n) => ub.has(n));
  return common.find((n) => common.every((m) => UPPER.get(n)!.has(m)))!;
}

/** Is the promotion of `a` and `b` weakly typed (the join is a weak type, as in JAX's _lattice_result_type)? */
export function weakPromoted(a: AVal, b: AVal): boolean {
  const n = joinNodes(a, b);
  return n === 'i*' || n === 'f*' || n === 'c*';
}

/** JAX's dtype promotion, honouring weak types (Python scalars), under the program's x64 flag. */
export function promote(a: AVal, b: AVal): DType {
  return (x64Enabled() ? CANONICAL_X64 : CANONICAL_X32)[joinNodes(a, b)]!;
}

export function castScalar(v: number, dtype: DType): number {
  switch (dtype) {
    case 'float16':
    case 'bfloat16':
      return narrowValue(v, dtype);
    case 'uint8':
    case 'uint16':
    case 'int8':
    case 'int16':
      return narrowValue(Number.isFinite(v) ? Math.trunc(v) : 0, dtype);
    case 'float32':
    case 'complex64': // a complex literal holds its real part (its imaginary part is 0)
      return Math.fround(v);
    case 'int32':
      return Math.trunc(v) | 0;
    case 'float64':
      return v;
    case 'int64':
      return Number.isFinite(v) ? Math.trunc(v) : 0;
    case 'uint32':
      return Math.trunc(v) >>> 0;
    case 'bool':
      return v ? 1 : 0;
  }
}

/** The JAX dtype a NumPy dtype becomes (the 64-bit ones 32-bit with x64 disabled). */
export function jaxDtype(d: NdArray['dtype']): DType {
  return canonicalDtype(d);
}

/** A nested list/tuple of static numbers, some complex, as the nested lists of their real and imaginary parts; else null. */
function staticComplexParts(v: PyValue): [PyValue, PyValue] | null {
  let complex = false;
  const part = (x: PyValue, k: 're' | 'im'): PyValue => {
    if (x instanceof PyList || (x instanceof PyTuple && !x.cls)) return new PyList(x.items.map((i) => part(i, k)));
    if (x instanceof PyComplex) {
      complex = true;
      return x[k];
    }
    if (typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean') return k === 're' ? Number(x) : 0;
    return x;
  };
  const re = part(v, 're');
  const im = part(v, 'im');
  return complex && staticNd(re) && staticNd(im) ? [re, im] : null;
}

/** A nested list/tuple of static numbers as a NumPy array, or null if any leaf is not static. */
export function staticNd(v: PyValue): NdArray | null {
  const shape: number[] = [];
  const data: number[] = [];
  let kind = 0; // 0 bool, 1 int, 2 float
  // the depth of the scalars: a list there, or a scalar elsewhere, is ragged ([1.5, [1, 2]])
  let leafDepth = -1;
  const walk = (x: PyValue, depth: number): boolean => {
    if (x instanceof PyList || (x instanceof PyTuple && !x.cls)) {
      if (leafDepth >= 0 && depth >= leafDepth) return false;
      if (shape.length <= depth) shape.push(x.items.length);
      else if (shape[depth] !== x.items.length) return false;
      return x.items.every((i) => walk(i, depth + 1));
    }
    if (depth !== shape.length || (leafDepth >= 0 && depth !== leafDepth)) return false;
    leafDepth = depth;
    if (typeof x === 'boolean') data.push(x ? 1 : 0);
    else if (typeof x === 'bigint') {
      kind = Math.max(kind, 1);
      data.push(Number(x));
    } else if (typeof x === 'number') {
      kind = 2;
      data.push(x);
    } else if (x instanceof NpScalar) {
      kind = Math.max(kind, x.dtype.startsWith('float') ? 2 : x.dtype === 'bool' ? 0 : 1);
      data.push(x.value);
    } else return false;
    return true;
  };
  if (!walk(v, 0)) return null;
  // NumPy's dtype of an empty list is float64
  if (!data.length) kind = 2;
  return new NdArray(shape, kind === 2 ? 'float64' : kind === 1 ? 'int64' : 'bool', data);
}
