// jax.numpy (and jax.numpy.linalg): each function checks its arguments as JAX
// does and lowers to the primitive sequence JAX traces for it (see
// jax/_src/numpy/lax_numpy.py, reductions.py, array_creation.py), so values
// and gradients round the same way. Array methods (array_methods.ts) call these.
import { PyGridIndexer, PyIndexTrick } from './grids.js';
import { precisionParam } from './precision.js';
import { CompileError } from '../common/diagnostics.js';
import type { Prim } from '../ir/prims.js';
import type { DType } from '../ir/types.js';
import { ALL_DTYPES } from '../ir/dtypes.js';
import type { Span } from '../parser/ast.js';
import { broadcastShapes, castScalar, checkShapeIndex, fmtShape, normalizeAxes, promote, weakPromoted } from './arrays.js';
import { lit } from '../ir/builder.js';
import { binop, iterate, subscript } from './expr.js';
import { concreteValue, runtimeOnlyError } from './const_eval.js';
import { concretizationMessage } from './tracer_origin.js';
import { PySlice, type Interp } from './interp.js';
import { arangeArgs, arg, builtinModule, dtypeArg, intArg, numArg, shapeArgs } from './modules.js';
import { truthy } from './pyops.js';
import { broadcastedIota, DEFAULT_OPTIONS, gatherWith, normalizeArrayIndex, parseMode, revDim, scatterIndex, sortArrays, topK } from './indexing.js';
import type { GatherMode } from '../ir/indexing.js';
import { isFloat, isInt, size, type Atom, type Eqn } from '../ir/types.js';
import { markJitCall } from '../ir/jaxpr_printer.js';
import { onContextMesh, outShardingOf, withOutSharding } from './lib_sharding.js';
import type { OutSharding } from './arrays.js';

/** The jnp functions whose result takes an `out_sharding=` (dot and einsum give it to their dot_general instead). */
const OUT_SHARDING_FNS = ['zeros', 'ones', 'full', 'empty', 'zeros_like', 'ones_like', 'full_like', 'empty_like', 'arange', 'reshape', 'ravel', 'broadcast_to', 'repeat', 'tril', 'triu'];
import { fftFunctions, linalgFunctions, namedResult } from './lib_linalg.js';
import { callPrelude, PRELUDE_FUNCTIONS } from './jnp_prelude.js';
import { JAX_JITTED, withJitRegions } from './jnp_jitted.js';
import { DTYPE_CATEGORIES, dtypeFunctions } from './jnp_dtypes.js';
import { withArraylikeChecks } from './arraylike.js';
import { isArray, PyClass, PyComplex, PyDType, PyList, PyModule, PyTuple, Tracer, typeName, type CallArgs, type PyValue } from './values.js';
import { checkNotRef } from './refs.js';
import { cumulativeAlong } from './cumulative.js';
import { hostNdFromList, hostNdToDevice, runTimeNumberList } from './host_numpy.js';
import { defaultFloat, defaultInt } from './x64.js';

type Fn = (c: CallArgs) => PyValue;
type Reduction = 'reduce_sum' | 'reduce_max' | 'reduce_min' | 'reduce_prod';

export function jnpModule(ip: Interp): PyModule {
  const ops = ip.ops;
  const dt = (name: PyDType['name']): PyDType => new PyDType(name);
  const dtypeOf = (c: CallArgs, i: number): DType | undefined => dtypeArg(c.kwargs.get('dtype') ?? c.args[i], c.span);
  const keep = (c: CallArgs): boolean => truthy(c.kwargs.get('keepdims') ?? false, c.span);
  const un = (prim: Prim): Fn => (c) => (checkNotRef(prim, c.args, c.span), ops.unary(prim, arg(c, 0, 'x'), c.span));
  const bin = (prim: Prim): Fn => (c) => ops.binary(prim, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span);
  const cmp = (op: 'gt' | 'lt' | 'eq'): Fn => (c) => ops.compare(op, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span);
  const red = (prim: Reduction): Fn => (c) => {
    // check_arraylike: a tuple or list of arrays is not an array to reduce (NumPy would stack it)
    const a = arg(c, 0, 'a');
    if ((a instanceof PyTuple && !a.cls) || a instanceof PyList) {
      if (a.items.some(isArray)) throw new CompileError(`TypeError: ${prim.slice(7)} requires ndarray or scalar arguments, got <class '${a instanceof PyList ? 'list' : 'tuple'}'> at position 0.`, c.span);
    }
    if (prim === 'reduce_max' || prim === 'reduce_min') checkIdentity(ip, prim, c);
    const where = c.kwargs.get('where') ?? null;
    const initial = c.kwargs.get('initial') ?? null;
    // jnp.sum/prod's `dtype`: JAX's _reduction converts the operand to it first
    const dtype = prim === 'reduce_sum' || prim === 'reduce_prod' ? dtypeOf(c, 2) : undefined;
    const operand = (): PyValue => (dtype ? ops.convert(ops.asArray(arg(c, 0, 'a'), c.span), dtype, c.span) : arg(c, 0, 'a'));
    if (where === null && initial === null) return ops.reduce(prim, operand(), arg(c, 1, 'axis', null), keep(c), c.span);
    // JAX's _reduction: masked-out elements become the identity (or `initial`), then op(initial, result)
    let x = ops.asArray(operand(), c.span);
    if (x.aval.dtype === 'bool' && (prim === 'reduce_sum' || prim === 'reduce_prod')) x = ops.convert(x, 'int32', c.span);
    const name = prim.slice(7);
    const op = ({ reduce_sum: 'add', reduce_prod: 'mul', reduce_max: 'max', reduce_min: 'min' } as const)[prim];
    const initArr = initial === null ? null : ops.convert(ops.asArray(initial, c.span), x.aval.dtype, c.span);
    if (initArr && initArr.aval.shape.length) throw new CompileError(`ValueError: initial value must be a scalar. Got array of shape (${initArr.aval.shape.join(', ')}${initArr.aval.shape.length === 1 ? ',' : ''})`, c.span);
    if (where !== null) {
      if (!initArr && (prim === 'reduce_max' || prim === 'reduce_min')) throw new CompileError(`ValueError: reduction operation ${name} does not have an identity, so to use a where mask one has to specify 'initial'`, c.span);
      const isF = x.aval.dtype === 'float32';
      const identity = prim === 'reduce_sum' ? 0 : prim === 'reduce_prod' ? 1 : prim === 'reduce_max' ? (isF ? -Infinity : -2147483648) : isF ? Infinity : 2147483647;
      const fill = ops.full([], identity, x.aval.dtype, c.span);
      const w = ops.asArray(where, c.span);
      if (w.aval.dtype !== 'bool') throw new CompileError(`TypeError: where must be boolean, got ${w.aval.dtype}`, c.span);
      const shape = broadcastShapes(x.aval.shape, w.aval.shape, c.span);
      x = ops.select(ops.tracer(ops.broadcastTo(w.atom, shape, c.span)), ops.tracer(ops.broadcastTo(x.atom, shape, c.span)), fill, c.span);
    }
    const out = ops.reduce(prim, x, arg(c, 1, 'axis', null), keep(c), c.span);
    return initArr ? ops.binary(op, initArr, out, c.span) : out;
  };

  /** jnp.reshape/ravel with NumPy's `order`: 'F' reshapes the reversed-axes view and reverses the result (JAX's _reshape). */
  const reshapeOrder = (c: CallArgs, shape: number[], order: PyValue): Tracer => {
    if (order === 'C' || order === null) return ops.reshape(arg(c, 0, 'a'), shape, c.span);
    if (order === 'A') throw new CompileError('NotImplementedError: np.reshape order=A is not implemented.', c.span);
    if (order !== 'F') throw new CompileError(`ValueError: Unexpected value for 'order' argument: ${typeof order === 'string' ? order : typeName(order)}.`, c.span);
    const x = ops.asArray(arg(c, 0, 'a'), c.span);
    const rev = (n: number): number[] => [...Array(n).keys()].reverse();
    const r = ops.reshape(ops.transpose(x, rev(x.aval.shape.length), c.span), [...shape].reverse(), c.span);
    return ops.transpose(r, rev(r.aval.shape.length), c.span);
  };
  const shapeOf = (v: PyValue, span: Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs([v], span));
  const fullLike = (value: number): Fn => (c) => {
    const a = ops.aval(arg(c, 0, 'a'), c.span);
    const shape = arg(c, 2, 'shape', null);
    const dtype = dtypeOf(c, 1);
    // JAX's full_like: weakly typed like `a` when no dtype is given (jnp.zeros_like(0.5) is a weak float32)
    return ops.full(shape !== null ? shapeOf(shape, c.span) : [...a.shape], value, dtype ?? a.dtype, c.span, dtype === undefined && a.weak === true);
  };

  /** A list of Python numbers some of which are read back at run time (`jnp.array(losses)`): made on the host, then moved to the device. */
  const hostNumbers = (v: PyValue, span: Span): PyValue =>
    ip.atHost && (v instanceof PyList || v instanceof PyTuple) && runTimeNumberList(v) ? hostNdToDevice(ip, hostNdFromList(ip, v, span), 'array') : v;

  const fns: Record<string, Fn> = withArraylikeChecks({
    arange: (c) => {
      const { start, stop, step, isFloat } = arangeArgs(c);
      return ops.arange(start, stop, step, dtypeOf(c, 99) ?? (isFloat ? defaultFloat() : defaultInt()), c.span);
    },
    linspace: (c) => linspace(ip, c),
    array: (c) => {
      const obj = notNone(arg(c, 0, 'object'), c.span);
      const x = ops.asArray(hostNumbers(obj, c.span), c.span, dtypeOf(c, 1));
      // jnp.array copies by default: a traced array that needs no conversion becomes a `copy` in the jaxpr
      const copied = obj instanceof Tracer && x.atom === obj.atom && !ip.atHost && truthy(arg(c, 2, 'copy', true), c.span) ? ops.tracer(ops.bind('copy', [x.atom], {}, c.span)) : x;
      return onContextMesh(ip, copied, c.span);
    },
    asarray: (c) => onContextMesh(ip, ops.asArray(hostNumbers(notNone(arg(c, 0, 'a'), c.span), c.span), c.span, dtypeOf(c, 1)), c.span),
    astype: (c) => ops.convert(ops.asArray(arg(c, 0, 'x'), c.span), dtypeArg(arg(c, 1, 'dtype'), c.span)!, c.span),
    zeros: (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 0, dtypeOf(c, 1) ?? defaultFloat(), c.span),
    ones: (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 1, dtypeOf(c, 1) ?? defaultFloat(), c.span),
    full: (c) => {
      const shape = shapeOf(arg(c, 0, 'shape'), c.span);
      const fv = arg(c, 1, 'fill_value');
      const dtype = dtypeOf(c, 2);
      if (isArray(fv)) {
        // an array fill value is broadcast to the shape (weakly typed as it is, when no dtype is given)
        const x = ops.asArray(fv, c.span);
        return ops.tracer(ops.broadcastTo((dtype === undefined ? x : ops.convert(x, dtype, c.span)).atom, shape, c.span));
      }
      // JAX's lax.full: a Python number without a dtype fills a weakly typed array (jnp.full((2,), 5) is a weak int32)
      const weak = dtype === undefined && (typeof fv === 'number' || typeof fv === 'bigint');
      return ops.full(shape, numArg(fv, 'fill_value', c.span), dtype ?? (typeof fv === 'boolean' ? 'bool' : typeof fv === 'bigint' ? defaultInt() : defaultFloat()), c.span, weak);
    },
    zeros_like: fullLike(0),
    ones_like: fullLike(1),
    reshape: (c) => reshapeOrder(c, shapeArgs([arg(c, 1, 'shape')], c.span), arg(c, 2, 'order', 'C')),
    ravel: (c) => reshapeOrder(c, [-1], arg(c, 1, 'order', 'C')),
    transpose: (c) => {
      const axes = arg(c, 1, 'axes', null);
      return ops.transpose(arg(c, 0, 'a'), axes !== null ? shapeArgs([axes], c.span) : null, c.span);
    },
    squeeze: (c) => {
      const a = arg(c, 0, 'a');
      const axis = arg(c, 1, 'axis', null);
      const shape = ops.aval(a, c.span).shape;
      const axes = axis !== null ? normalizeAxes(axis, shape.length, c.span) : shape.flatMap((d, i) => (d === 1 ? [i] : []));
      if (axes.some((d) => shape[d] !== 1)) {
        throw new CompileError(`ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=${fmtShape(shape)} and dimensions=${fmtShape(axes)}`, c.span);
      }
      return ops.reshape(a, shape.filter((_, i) => !axes.includes(i)), c.span);
    },
    stack: (c) => ops.stack(iterate(ip, arg(c, 0, 'arrays'), c.span), intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span),
    concatenate: (c) => {
      const xs = iterate(ip, arg(c, 0, 'arrays'), c.span);
      // axis=None: the arrays are flattened first
      if (arg(c, 1, 'axis', 0n) === null) return ops.concatenate(xs.map((x) => ops.reshape(x, [-1], c.span)), 0, c.span);
      return ops.concatenate(xs, intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span);
    },
    expand_dims: (c) => {
      const x = ops.asArray(arg(c, 0, 'a'), c.span);
      const axis = arg(c, 1, 'axis');
      if (axis instanceof PyTuple || axis instanceof PyList) {
        // several axes: each counted in the result's rank, inserted in increasing order
        const out = x.aval.shape.length + axis.items.length;
        const axes = axis.items.map((v) => intArg(v, 'axis', c.span)).map((a) => (a < 0 ? a + out : a)).sort((a, b) => a - b);
        if (axes.some((a, i) => a < 0 || a >= out || axes[i + 1] === a)) throw new CompileError(`ValueError: repeated or out-of-range axis in expand_dims: ${fmtShape(axes)}`, c.span);
        return axes.reduce((t, a) => ops.expandDims(t, a, c.span), x);
      }
      const ax = intArg(axis, 'axis', c.span);
      return ops.expandDims(x, ax < 0 ? ax + x.aval.shape.length + 1 : ax, c.span);
    },
    broadcast_to: (c) => {
      const x = ops.asArray(arg(c, 0, 'array'), c.span);
      const shape = shapeArgs([arg(c, 1, 'shape')], c.span);
      // NumPy's rule: trailing dimensions equal or 1 (JAX's _broadcast_to words the error this way)
      const r = shape.length - x.aval.shape.length;
      if (r < 0 || x.aval.shape.some((d, i) => d !== 1 && d !== shape[r + i])) {
        const ty = (s: readonly number[]): string => `${x.aval.dtype}[${s.join(',')}]`;
        throw new CompileError(`ValueError: Incompatible types for broadcasting: input type=${ty(x.aval.shape)} and requested type=${ty(shape)}`, c.span);
      }
      return ops.tracer(ops.broadcastTo(x.atom, shape, c.span));
    },
    dot: (c) => {
      const s = c.kwargs.get('out_sharding') ?? null;
      return ops.dot(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span, s === null ? undefined : outShardingOf(ip, s, c.span), precisionParam(c.kwargs.get('precision'), c.span));
    },
    matmul: (c) => ops.matmul(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span, precisionParam(c.kwargs.get('precision'), c.span)),
    sum: red('reduce_sum'),
    max: red('reduce_max'),
    min: red('reduce_min'),
    prod: red('reduce_prod'),
    mean: (c) => {
      const a = ops.asArray(arg(c, 0, 'a'), c.span);
      checkShapeIndex(arg(c, 1, 'axis', null), a.aval.shape.length, c.span);
      return ops.mean(a, arg(c, 1, 'axis', null), keep(c), c.span);
    },
    all: (c) => ops.reduce('reduce_min', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    any: (c) => ops.reduce('reduce_max', ops.asArray(arg(c, 0, 'a'), c.span, 'bool'), arg(c, 1, 'axis', null), keep(c), c.span),
    argmax: (c) => argExtreme(ip, 'max', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    argmin: (c) => argExtreme(ip, 'min', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span),
    sin: un('sin'),
    cos: un('cos'),
    tan: un('tan'),
    exp: un('exp'),
    exp2: un('exp2'),
    log: un('log'),
    log1p: un('log1p'),
    expm1: un('expm1'),
    tanh: un('tanh'),
    sqrt: un('sqrt'),
    abs: un('abs'),
    absolute: un('abs'),
    // integers and bools are their own floor and ceil (JAX returns them unchanged)
    floor: (c) => (isFloat(ops.aval(arg(c, 0, 'x'), c.span).dtype) ? ops.unary('floor', arg(c, 0, 'x'), c.span) : ops.asArray(arg(c, 0, 'x'), c.span)),
    ceil: (c) => (isFloat(ops.aval(arg(c, 0, 'x'), c.span).dtype) ? ops.unary('ceil', arg(c, 0, 'x'), c.span) : ops.asArray(arg(c, 0, 'x'), c.span)),
    angle: (c) => {
      const z = arg(c, 0, 'z');
      const deg = truthy(arg(c, 1, 'deg', false), c.span);
      const [re, im] = [ops.real(z, c.span), ops.imag(z, c.span)].map((x) => ops.convert(x, defaultFloat(), c.span)) as [Tracer, Tracer];
      const r = ops.binary('atan2', im, re, c.span);
      return deg ? ops.binary('mul', r, Math.fround(180 / Math.PI), c.span) : r;
    },
    iscomplexobj: (c) => isArray(arg(c, 0, 'x')) || arg(c, 0, 'x') instanceof PyComplex ? ops.aval(arg(c, 0, 'x'), c.span).dtype === 'complex64' : false,
    isrealobj: (c) => !(isArray(arg(c, 0, 'x')) || arg(c, 0, 'x') instanceof PyComplex) || ops.aval(arg(c, 0, 'x'), c.span).dtype !== 'complex64',
    iscomplex: (c) => ops.compare('ne', ops.imag(arg(c, 0, 'x'), c.span), 0, c.span),
    isreal: (c) => ops.compare('eq', ops.imag(arg(c, 0, 'x'), c.span), 0, c.span),
    sign: un('sign'),
    negative: un('neg'),
    square: (c) => ops.power(arg(c, 0, 'x'), 2n, c.span),
    power: (c) => ops.power(arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    add: bin('add'),
    subtract: bin('sub'),
    multiply: bin('mul'),
    divide: bin('div'),
    true_divide: bin('div'),
    maximum: bin('max'),
    minimum: bin('min'),
    greater: cmp('gt'),
    less: cmp('lt'),
    equal: cmp('eq'),
    where: (c) => {
      // one argument: nonzero (its size= makes the shape static)
      if (c.args.length === 1 && !c.kwargs.has('x')) return callPrelude(ip, '_where1', c);
      return where(ip, arg(c, 0, 'condition'), arg(c, 1, 'x'), arg(c, 2, 'y'), c.span);
    },
    clip: (c) => clip(ip, arg(c, 0, 'x'), arg(c, 1, 'min', null), arg(c, 2, 'max', null), c.span),
    ...composites(ip),
    ...sortingFunctions(ip),
    ...dtypeFunctions(ip),
    ...Object.fromEntries(PRELUDE_FUNCTIONS.map((name): [string, Fn] => [name, (c) => callPrelude(ip, name, c)])),
    finfo: (c) => callPrelude(ip, 'finfo', c),
    iinfo: (c) => callPrelude(ip, 'iinfo', c),
  });
  // JAX's out_sharding= of these functions: the result laid out as it says (against the context mesh for a P)
  for (const name of OUT_SHARDING_FNS) {
    const f = fns[name];
    if (f) fns[name] = (c) => withOutSharding(ip, c, f);
  }
  const linalgFns = {
    ...linalgFunctions(ip, fns, namedResult).numpy,
    // composites over inv and solve, as JAX writes them (jnp_prelude.ts)
    tensorinv: (c: CallArgs) => callPrelude(ip, '_linalg_tensorinv', c),
    tensorsolve: (c: CallArgs) => callPrelude(ip, '_linalg_tensorsolve', c),
  };
  const linalg = builtinModule('jax.numpy.linalg', withJitRegions(ip, linalgFns, JAX_JITTED.linalg));
  const fft = builtinModule('jax.numpy.fft', fftFunctions(ip, fns));
  return builtinModule('jax.numpy', {
    mgrid: new PyGridIndexer(false, true),
    ogrid: new PyGridIndexer(true, true),
    // NumPy's index expressions; r_ / c_ concatenate along the first / last axis (jnp_prelude.ts _axis_concat)
    s_: new PyIndexTrick('IndexExpression', (key) => key),
    index_exp: new PyIndexTrick('IndexExpression', (key) => (key instanceof PyTuple ? key : new PyTuple([key]))),
    r_: new PyIndexTrick('RClass', (key, span) => callPrelude(ip, '_axis_concat', { args: [key, 0n, 1n, -1n, 'r_'], kwargs: new Map(), span })),
    c_: new PyIndexTrick('CClass', (key, span) => callPrelude(ip, '_axis_concat', { args: [key, -1n, 2n, 0n, 'c_'], kwargs: new Map(), span })),
    ...Object.fromEntries(ALL_DTYPES.map((d) => [d, dt(d)])),
    bool_: dt('bool'),
    bool: dt('bool'),
    float64: dt('float64'),
    int64: dt('int64'),
    complex64: dt('complex64'),
    complex128: dt('complex128'),
    // NumPy's aliases: the 64-bit types, which JAX makes 32-bit while x64 is off
    float_: dt('float64'),
    double: dt('float64'),
    single: dt('float32'),
    int_: dt('int64'),
    csingle: dt('complex64'),
    cdouble: dt('complex128'),
    complex_: dt('complex128'),
    ndarray: new PyClass('ndarray', [], new Map(), 'marker'),
    ...DTYPE_CATEGORIES,
    pi: Math.PI,
    e: Math.E,
    euler_gamma: 0.5772156649015329,
    inf: Infinity,
    nan: NaN,
    newaxis: null,
    linalg,
    fft,
    ...withJitRegions(ip, fns, JAX_JITTED.jnp),
  });
}

/** jnp.array / jnp.asarray refuse None in JAX's words (a registered class rebuilt from None leaves meets this). */
function notNone(v: PyValue, span: Span): PyValue {
  if (v === null) throw new CompileError('ValueError: None is not a valid value for jnp.array', span);
  return v;
}

/** jnp.where(c, x, y): promotion and broadcasting as a binary op. */
function where(ip: Interp, c: PyValue, x: PyValue, y: PyValue, span: Span): Tracer {
  const o = ip.ops;
  const cond = o.asArray(c, span, 'bool');
  // promote x and y together (add's rules), then broadcast all three
  const xa = o.atom(x, span);
  const ya = o.atom(y, span);
  const dtype = promote(xa.aval, ya.aval);
  // weak when the promoted type is (jnp.where(c, 2.0, 0.0) is a weak float32, as in JAX)
  const weak = weakPromoted(xa.aval, ya.aval);
  const xs = o.promoteTo(o.asArray(x, span), dtype, weak, span);
  const ys = o.promoteTo(o.asArray(y, span), dtype, weak, span);
  let shape = broadcastShapes(cond.aval.shape, xs.aval.shape, span);
  shape = broadcastShapes(shape, ys.aval.shape, span);
  const b = (t: Tracer) => o.tracer(o.broadcastTo(t.atom, shape, span));
  return o.select(b(cond), b(xs), b(ys), span);
}

/** JAX's check before a max/min reduction without `initial`: reducing an axis of size 0 has no identity. */
function checkIdentity(ip: Interp, prim: 'reduce_max' | 'reduce_min', c: CallArgs): void {
  if (c.kwargs.has('initial') && c.kwargs.get('initial') !== null) return;
  const shape = ip.ops.aval(arg(c, 0, 'a'), c.span).shape;
  if (normalizeAxes(arg(c, 1, 'axis', null), shape.length, c.span).some((d) => shape[d] === 0)) {
    throw new CompileError(`ValueError: zero-size array to reduction operation ${prim === 'reduce_max' ? 'max' : 'min'} which has no identity`, c.span);
  }
}

/** argmax/argmin: the first index of the extreme value (a NaN counts as the extreme, as in XLA). */
function argExtreme(ip: Interp, kind: 'max' | 'min', x: PyValue, axis: PyValue, keepdims: boolean, span: Span): Tracer {
  const o = ip.ops;
  let a = o.asArray(x, span);
  if (axis === null) a = o.reshape(a, [-1], span);
  const rank = a.aval.shape.length;
  if (rank === 0) throw new CompileError(`ValueError: attempt to get arg${kind} of an empty sequence`, span);
  // one axis (normalizeAxes takes tuples too; an empty one left none)
  if (axis !== null && typeof axis !== 'bigint') throw new CompileError(`TypeError: '${typeName(axis)}' object cannot be interpreted as an integer`, span);
  if (axis !== null) checkShapeIndex(axis, rank, span);
  const ax = normalizeAxes(axis === null ? 0n : axis, rank, span)[0]!;
  const n = a.aval.shape[ax]!;
  if (n === 0) throw new CompileError(`ValueError: attempt to get arg${kind} of an empty sequence`, span);
  const ext = o.reduce(kind === 'max' ? 'reduce_max' : 'reduce_min', a, BigInt(ax), true, span);
  const extB = o.tracer(o.broadcastTo(ext.atom, a.aval.shape, span));
  let hit = o.compare('eq', a, extB, span);
  if (isFloat(a.aval.dtype)) {
    const nanA = o.compare('ne', a, a, span);
    const nanE = o.compare('ne', extB, extB, span);
    hit = o.binary('or', hit, o.binary('and', nanA, nanE, span), span);
  }
  const iota = o.tracer(o.bind('iota', [], { dtype: 'int32', shape: [...a.aval.shape], dimension: ax, sharding: null }, span));
  const big = o.tracer(o.broadcastTo(o.asArray(BigInt(n), span, 'int32').atom, a.aval.shape, span));
  const idx = o.select(hit, iota, big, span);
  return o.reduce('reduce_min', idx, BigInt(ax), keepdims && axis !== null, span);
}

function clip(ip: Interp, x: PyValue, lo: PyValue, hi: PyValue, span: Span): Tracer {
  const o = ip.ops;
  let r: PyValue = x;
  if (lo !== null) r = o.binary('max', lo, r, span);
  if (hi !== null) r = o.binary('min', hi, r, span);
  return o.asArray(r, span);
}

/**
 * jnp.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0), as JAX's _linspace:
 * start * (1 - step) + stop * step with step = iota / div (recovering both ends in float32 arithmetic),
 * the stop appended when `endpoint`, floored before an integer dtype.
 */
function linspace(ip: Interp, c: CallArgs): PyValue {
  const o = ip.ops;
  const span = c.span;
  const num = intArg(arg(c, 2, 'num', 50n), 'num', span);
  if (num < 0) throw new CompileError(`ValueError: Number of samples, ${num}, must be non-negative.`, span);
  const endpoint = truthy(arg(c, 3, 'endpoint', true), span);
  const retstep = truthy(arg(c, 4, 'retstep', false), span);
  let start = o.asArray(arg(c, 0, 'start'), span);
  let stop = o.asArray(arg(c, 1, 'stop'), span);
  // the computation is in the inexact result dtype (float32 for integers), by default that of start and stop
  const joined = promote(start.aval, stop.aval);
  const dtype = dtypeArg(arg(c, 5, 'dtype', null), span) ?? (isFloat(joined) ? joined : defaultFloat());
  const ct = isFloat(dtype) ? dtype : defaultFloat();
  start = o.convert(start, ct, span);
  stop = o.convert(stop, ct, span);
  const bounds = broadcastShapes(start.aval.shape, stop.aval.shape, span);
  const bStart = o.tracer(o.broadcastTo(start.atom, bounds, span));
  const bStop = o.tracer(o.broadcastTo(stop.atom, bounds, span));
  let axis = intArg(arg(c, 6, 'axis', 0n), 'axis', span);
  if (axis < 0) axis += bounds.length + 1;
  const withAxis = (n: number): number[] => [...bounds.slice(0, axis), n, ...bounds.slice(axis)];
  const div = endpoint ? num - 1 : num;
  let out: Tracer;
  let delta: Tracer;
  if (num > 1) {
    delta = o.binary('div', o.binary('sub', stop, start, span), o.asArray(div, span, ct), span);
    const iotaShape = withAxis(div).map((d, i) => (i === axis ? d : 1));
    const iota = o.tracer(o.bind('iota', [], { dtype: ct, shape: [div], dimension: 0, sharding: null }, span));
    const step = o.binary('div', o.reshape(iota, iotaShape, span), o.asArray(div, span, ct), span);
    const lo = o.binary('mul', o.reshape(bStart, withAxis(1), span), o.binary('sub', 1n, step, span), span);
    out = o.binary('add', lo, o.binary('mul', o.reshape(bStop, withAxis(1), span), step, span), span);
    if (endpoint) out = o.concatenate([out, o.expandDims(bStop, axis, span)], axis, span);
  } else if (num === 1) {
    delta = endpoint ? o.asArray(NaN, span, ct) : o.binary('sub', stop, start, span);
    out = o.reshape(bStart, withAxis(1), span);
  } else {
    delta = o.asArray(NaN, span, ct);
    out = o.full(withAxis(0), 0, ct, span);
  }
  if (!isFloat(dtype)) out = o.unary('floor', out, span);
  const result = o.convert(out, dtype, span);
  return retstep ? new PyTuple([result, delta]) : result;
}

/**
 * The jax.numpy functions that JAX writes as compositions of lax operations
 * (lax_numpy.py, ufuncs.py, reductions.py, tensor_contractions.py, einsum.py),
 * each lowered to the same sequence.
 */
function composites(ip: Interp): Record<string, Fn> {
  const o = ip.ops;
  const A = (v: PyValue, span: Span, dtype?: DType): Tracer => o.asArray(v, span, dtype);
  const keep = (c: CallArgs): boolean => truthy(c.kwargs.get('keepdims') ?? false, c.span);
  const iota = (dtype: DType, shape: number[], dimension: number, span: Span): Tracer =>
    o.tracer(o.bind('iota', [], { dtype, shape, dimension, sharding: null }, span));
  const bcast = (x: Tracer, shape: readonly number[], span: Span): Tracer => o.tracer(o.broadcastTo(x.atom, shape, span));
  const sliceAxis = (x: Tracer, axis: number, start: number, stop: number, span: Span): Tracer => {
    const shape = x.aval.shape;
    if (start === 0 && stop === shape[axis]) return x;
    return o.tracer(o.bind('slice', [x.atom], { start_indices: shape.map((_, i) => (i === axis ? start : 0)), limit_indices: shape.map((d, i) => (i === axis ? stop : d)), strides: null }, span));
  };
  const rev = (x: Tracer, dims: number[], span: Span): Tracer => (dims.length ? o.tracer(o.bind('rev', [x.atom], { dimensions: dims }, span)) : x);
  /** promote_args_inexact: ints and bools become float32 (jaxts's one inexact dtype). */
  const inexact = (v: PyValue, span: Span): Tracer => {
    const x = A(v, span);
    return isFloat(x.aval.dtype) ? x : o.convert(x, defaultFloat(), span);
  };
  const axisOne = (v: PyValue, rank: number, span: Span): number => normalizeAxes(BigInt(intArg(v, 'axis', span)), rank, span)[0]!;
  const floating = (x: Tracer): boolean => isFloat(x.aval.dtype);
  const toBool = (x: Tracer, span: Span): Tracer => (x.aval.dtype === 'bool' ? x : o.compare('ne', x, o.asArray(0, span, x.aval.dtype), span));
  const isnan = (x: Tracer, span: Span): Tracer => (floating(x) ? o.compare('ne', x, x, span) : o.full([...x.aval.shape], 0, 'bool', span));
  const isinfOf = (x: Tracer, sign: 0 | 1 | -1, span: Span): Tracer => {
    if (!floating(x)) return o.full([...x.aval.shape], 0, 'bool', span);
    if (sign === 0) return o.compare('eq', o.unary('abs', x, span), o.asArray(Infinity, span, defaultFloat()), span);
    return o.compare('eq', x, o.asArray(sign * Infinity, span, defaultFloat()), span);
  };
  const isfinite = (x: Tracer, span: Span): Tracer => (floating(x) ? o.tracer(o.bind('is_finite', [x.atom], {}, span)) : o.full([...x.aval.shape], 1, 'bool', span));
  const logical = (prim: 'and' | 'or' | 'xor'): Fn => (c) => {
    const x = toBool(A(arg(c, 0, 'x1'), c.span), c.span);
    const y = toBool(A(arg(c, 1, 'x2'), c.span), c.span);
    return o.binary(prim, x, y, c.span);
  };
  const tri = (n: number, m: number, k: number, span: Span): Tracer =>
    o.compare('ge', o.binary('add', iota('int32', [n, m], 0, span), BigInt(k), span), iota('int32', [n, m], 1, span), span);
  const eye = (n: number, m: number, k: number, dtype: DType, span: Span): Tracer =>
    o.convert(o.compare('eq', o.binary('add', iota('int32', [n, m], 0, span), BigInt(k), span), iota('int32', [n, m], 1, span), span), dtype, span);
  const atleast = (x: Tracer, n: 1 | 2 | 3, span: Span): Tracer => {
    const s = x.aval.shape;
    if (s.length >= n) return x;
    if (n === 1) return o.reshape(x, [1], span);
    if (n === 2) return o.reshape(x, s.length === 0 ? [1, 1] : [1, s[0]!], span);
    return o.reshape(x, s.length === 0 ? [1, 1, 1] : s.length === 1 ? [1, s[0]!, 1] : [...s, 1], span);
  };
  /** jnp.atleast_Nd(*arys): one array, or a list of them for several. */
  const atleastN = (c: CallArgs, n: 1 | 2 | 3): PyValue => {
    const xs = c.args.map((v) => atleast(A(v, c.span), n, c.span));
    return xs.length === 1 ? xs[0]! : new PyList(xs);
  };
  const items = (v: PyValue, span: Span): Tracer[] => iterate(ip, v, span).map((x) => A(x, span));
  const tile = (x: Tracer, reps: number[], span: Span): Tracer => {
    const aShape = [...Array(Math.max(0, reps.length - x.aval.shape.length)).fill(1), ...x.aval.shape] as number[];
    const r = [...Array(Math.max(0, aShape.length - reps.length)).fill(1), ...reps] as number[];
    const inter = aShape.flatMap((d) => [1, d]);
    const b = bcast(o.reshape(x, inter, span), aShape.flatMap((d, i) => [r[i]!, d]), span);
    return o.reshape(b, aShape.map((d, i) => d * r[i]!), span);
  };
  const diagonal = (x: Tracer, offset: number, ax1: number, ax2: number, span: Span): Tracer => {
    const r = x.aval.shape.length;
    if (r < 2) throw new CompileError('ValueError: diagonal requires an array of at least two dimensions.', span);
    const a1 = normalizeAxes(BigInt(ax1), r, span)[0]!;
    const a2 = normalizeAxes(BigInt(ax2), r, span)[0]!;
    if (a1 === a2) throw new CompileError('ValueError: axis1 and axis2 must not be equal', span);
    const rest = Array.from({ length: r }, (_, i) => i).filter((i) => i !== a1 && i !== a2);
    const t = o.transpose(x, [...rest, a1, a2], span);
    const n = x.aval.shape[a1]!;
    const m = x.aval.shape[a2]!;
    const size = Math.max(0, Math.min(n + Math.min(offset, 0), m - Math.max(offset, 0)));
    const batch = rest.map((i) => x.aval.shape[i]!);
    // the diagonal is every (m + 1)-th element of the flattened matrix from its first element
    if (size === 0) return o.full([...batch, 0], 0, x.aval.dtype, span);
    const flat = o.reshape(t, [...batch, n * m], span);
    const first = offset >= 0 ? offset : -offset * m;
    const stop = first + (size - 1) * (m + 1) + 1;
    return o.tracer(o.bind('slice', [flat.atom], { start_indices: [...batch.map(() => 0), first], limit_indices: [...batch, stop], strides: [...batch.map(() => 1), m + 1] }, span));
  };
  const cumulative = (kind: 'sum' | 'prod' | 'max' | 'min', arrayApi = false): Fn => (c) => {
    let x = A(arg(c, 0, 'a'), c.span);
    const axisV = arg(c, 1, 'axis', null);
    if (arrayApi && x.aval.shape.length === 0) {
      throw new CompileError(`ValueError: The input must be non-scalar to take a cumulative ${kind === 'sum' ? 'sum' : 'product'}, however a scalar value or scalar array was given.`, c.span);
    }
    if (arrayApi && axisV === null && x.aval.shape.length > 1) {
      throw new CompileError(`ValueError: The input array has rank ${x.aval.shape.length}, however axis was not set to an explicit value. The axis argument is only optional for one-dimensional arrays.`, c.span);
    }
    const dtype = dtypeArg(c.kwargs.get('dtype') ?? c.args[2], c.span);
    if (axisV === null) x = o.reshape(x, [-1], c.span);
    if (x.aval.dtype === 'bool' && (kind === 'sum' || kind === 'prod')) x = o.convert(x, 'int32', c.span);
    if (dtype) x = o.convert(x, dtype, c.span);
    const r = x.aval.shape.length;
    if (r === 0) throw new CompileError(`ValueError: axis 0 is out of bounds for array of dimension 0`, c.span);
    const ax = axisV === null ? 0 : axisOne(axisV, r, c.span);
    const ident = kind === 'sum' ? 0 : kind === 'prod' ? 1 : kind === 'max' ? (floating(x) ? -Infinity : -2147483648) : floating(x) ? Infinity : 2147483647;
    const fill = x.aval.dtype === 'bool' ? (kind === 'max' ? 0 : 1) : ident;
    if (kind !== 'prod' && (kind === 'sum' ? x.aval.dtype !== 'bool' : floating(x) || x.aval.dtype === 'int32')) {
      // XLA's scan (cumulative.ts); a sum keeps a narrow integer dtype (it wraps), unlike jnp.sum's promotion
      return cumulativeAlong(o, x, ax, kind, fill, false, c.span);
    }
    const t = o.moveAxis(x, ax, r - 1, c.span);
    const n = t.aval.shape[r - 1]!;
    // out[..., i] reduces x[..., j] over j <= i: a masked reduction over a new last axis
    const shape = [...t.aval.shape, n];
    const xs = bcast(o.expandDims(t, r - 1, c.span), shape, c.span);
    const mask = bcast(tri(n, n, 0, c.span), shape, c.span);
    const masked = o.select(mask, xs, o.full(shape, fill, x.aval.dtype, c.span), c.span);
    const prim = kind === 'sum' ? 'reduce_sum' : kind === 'prod' ? 'reduce_prod' : kind === 'max' ? 'reduce_max' : 'reduce_min';
    let red = o.reduce(prim, masked, BigInt(r), false, c.span);
    // a cumulative sum keeps a narrow integer dtype (it wraps), unlike jnp.sum's promotion
    if (red.aval.dtype !== x.aval.dtype) red = o.convert(red, x.aval.dtype, c.span);
    return o.moveAxis(red, r - 1, ax, c.span);
  };
  const variance = (c: CallArgs): Tracer => {
    const a = inexact(arg(c, 0, 'a'), c.span);
    const axis = arg(c, 1, 'axis', null);
    checkShapeIndex(axis, a.aval.shape.length, c.span);
    const ddof = numArg(c.kwargs.get('ddof') ?? c.kwargs.get('correction') ?? c.args[3] ?? 0n, 'ddof', c.span);
    const mean = o.mean(a, axis, true, c.span);
    const centered = o.power(o.binary('sub', a, mean, c.span), 2n, c.span);
    const axes = normalizeAxes(axis, a.aval.shape.length, c.span);
    const n = axes.reduce((p, d) => p * a.aval.shape[d]!, 1);
    const normalizer = n - ddof;
    const s = o.reduce('reduce_sum', centered, axis, keep(c), c.span);
    const out = o.binary('div', s, o.asArray(normalizer, c.span, defaultFloat()), c.span);
    return normalizer > 0 ? out : o.full([...out.aval.shape], NaN, defaultFloat(), c.span);
  };
  const isclose = (c: CallArgs): Tracer => {
    let a = A(arg(c, 0, 'a'), c.span);
    let b = A(arg(c, 1, 'b'), c.span);
    const dtype = promote(o.aval(arg(c, 0, 'a'), c.span), o.aval(arg(c, 1, 'b'), c.span));
    a = o.convert(a, dtype === 'float32' || dtype === 'float64' ? dtype : defaultFloat(), c.span);
    b = o.convert(b, dtype === 'float32' || dtype === 'float64' ? dtype : defaultFloat(), c.span);
    const rtol = A(numArg(arg(c, 2, 'rtol', 1e-5), 'rtol', c.span), c.span, defaultFloat());
    const atol = A(numArg(arg(c, 3, 'atol', 1e-8), 'atol', c.span), c.span, defaultFloat());
    const equalNan = truthy(arg(c, 4, 'equal_nan', false), c.span);
    const bothNan = o.binary('and', isnan(a, c.span), isnan(b, c.span), c.span);
    const fin = isfinite(b, c.span);
    const inRange = o.compare('le', o.unary('abs', o.binary('sub', a, b, c.span), c.span), o.binary('add', atol, o.binary('mul', rtol, o.unary('abs', b, c.span), c.span), c.span), c.span);
    const out = o.binary('or', o.compare('eq', a, b, c.span), o.binary('and', bcast(fin, inRange.aval.shape, c.span), inRange, c.span), c.span);
    return equalNan ? o.binary('or', out, bothNan, c.span) : out;
  };
  const tensordot = (a: Tracer, b: Tracer, ca: number[], cb: number[], span: Span): Tracer => {
    const dtype = promote(a.aval, b.aval);
    a = o.convert(a, dtype, span);
    b = o.convert(b, dtype, span);
    for (let i = 0; i < ca.length; i++) {
      if (a.aval.shape[ca[i]!] !== b.aval.shape[cb[i]!]) {
        throw new CompileError(`TypeError: dot_general requires contracting dimensions to have the same shape, got (${ca.map((d) => a.aval.shape[d]).join(', ')},) and (${cb.map((d) => b.aval.shape[d]).join(', ')},).`, span);
      }
    }
    return o.tracer(o.bind('dot_general', [a.atom, b.atom], { dimension_numbers: { contract: [ca, cb], batch: [[], []] }, precision: null, preferred_element_type: dtype }, span));
  };
  const stackLike = (n: 1 | 2 | 3, axisFor: (t: Tracer) => number): Fn => (c) => {
    const xs = items(arg(c, 0, 'tup'), c.span).map((x) => atleast(x, n, c.span));
    if (!xs.length) throw new CompileError('ValueError: Need at least one array to concatenate.', c.span);
    return o.concatenate(xs, axisFor(xs[0]!), c.span, dtypeArg(c.kwargs.get('dtype'), c.span));
  };
  const flip = (c: CallArgs): Tracer => {
    const x = A(arg(c, 0, 'm'), c.span);
    return rev(x, normalizeAxes(arg(c, 1, 'axis', null), x.aval.shape.length, c.span), c.span);
  };
  const roll = (x: Tracer, shifts: number[], axes: number[], span: Span): Tracer => {
    for (let k = 0; k < axes.length; k++) {
      const ax = axes[k]!;
      const n = x.aval.shape[ax]!;
      if (n === 0) continue;
      const i = (((-shifts[k]!) % n) + n) % n;
      x = o.concatenate([sliceAxis(x, ax, i, n, span), sliceAxis(x, ax, 0, i, span)], ax, span);
    }
    return x;
  };
  const intList = (v: PyValue, what: string, span: Span): number[] =>
    v instanceof PyTuple || v instanceof PyList ? v.items.map((x) => intArg(x, what, span)) : [intArg(v, what, span)];
  const trilu = (lower: boolean): Fn => (c) => {
    const m = A(arg(c, 0, 'm'), c.span);
    const k = intArg(arg(c, 1, 'k', 0n), 'k', c.span);
    const s = m.aval.shape;
    if (s.length < 2) throw new CompileError(`ValueError: ${lower ? 'tril' : 'triu'} requires an array of at least two dimensions`, c.span);
    const mask = bcast(tri(s[s.length - 2]!, s[s.length - 1]!, lower ? k : k - 1, c.span), s, c.span);
    const zeros = o.full([...s], 0, m.aval.dtype, c.span);
    return lower ? o.select(mask, m, zeros, c.span) : o.select(mask, zeros, m, c.span);
  };
  const shapeArgsOf = (v: PyValue, span: Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs([v], span));
  const unaryInexact = (f: (x: Tracer, span: Span) => Tracer): Fn => (c) => f(inexact(arg(c, 0, 'x'), c.span), c.span);
  const logBase = (base: number) => unaryInexact((x, span) => o.binary('div', o.unary('log', x, span), o.unary('log', o.asArray(base, span, defaultFloat()), span), span));

  return {
    trim_zeros: (c) => trimZeros(ip, c),
    eye: (c) => {
      const n = intArg(arg(c, 0, 'N'), 'N', c.span);
      const mV = arg(c, 1, 'M', null);
      const m = mV === null ? n : intArg(mV, 'M', c.span);
      return eye(n, m, intArg(arg(c, 2, 'k', 0n), 'k', c.span), dtypeArg(arg(c, 3, 'dtype', null), c.span) ?? defaultFloat(), c.span);
    },
    identity: (c) => {
      const n = intArg(arg(c, 0, 'n'), 'n', c.span);
      return eye(n, n, 0, dtypeArg(arg(c, 1, 'dtype', null), c.span) ?? defaultFloat(), c.span);
    },
    tri: (c) => {
      const n = intArg(arg(c, 0, 'N'), 'N', c.span);
      const mV = arg(c, 1, 'M', null);
      return o.convert(tri(n, mV === null ? n : intArg(mV, 'M', c.span), intArg(arg(c, 2, 'k', 0n), 'k', c.span), c.span), dtypeArg(arg(c, 3, 'dtype', null), c.span) ?? defaultFloat(), c.span);
    },
    tril: trilu(true),
    triu: trilu(false),
    var: variance,
    std: (c) => o.unary('sqrt', variance(c), c.span),
    isclose,
    allclose: (c) => o.reduce('reduce_min', isclose(c), null, false, c.span),
    array_equal: (c) => {
      const a = A(arg(c, 0, 'a1'), c.span);
      const b = A(arg(c, 1, 'a2'), c.span);
      const sa = a.aval.shape;
      const sb = b.aval.shape;
      if (sa.length !== sb.length || sa.some((d, i) => d !== sb[i])) return o.asArray(false, c.span, 'bool');
      let eq = o.compare('eq', a, b, c.span);
      if (truthy(arg(c, 2, 'equal_nan', false), c.span)) eq = o.binary('or', eq, o.binary('and', isnan(a, c.span), isnan(b, c.span), c.span), c.span);
      return o.reduce('reduce_min', eq, null, false, c.span);
    },
    isnan: (c) => isnan(A(arg(c, 0, 'x'), c.span), c.span),
    isinf: (c) => isinfOf(A(arg(c, 0, 'x'), c.span), 0, c.span),
    isposinf: (c) => isinfOf(A(arg(c, 0, 'x'), c.span), 1, c.span),
    isneginf: (c) => isinfOf(A(arg(c, 0, 'x'), c.span), -1, c.span),
    isfinite: (c) => isfinite(A(arg(c, 0, 'x'), c.span), c.span),
    logical_and: logical('and'),
    logical_or: logical('or'),
    logical_xor: logical('xor'),
    logical_not: (c) => o.unary('not', toBool(A(arg(c, 0, 'x'), c.span), c.span), c.span),
    bitwise_and: (c) => o.binary('and', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    bitwise_or: (c) => o.binary('or', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    bitwise_xor: (c) => o.binary('xor', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    less_equal: (c) => o.compare('le', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    greater_equal: (c) => o.compare('ge', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    not_equal: (c) => o.compare('ne', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span),
    vdot: (c) => o.dot(o.reshape(A(arg(c, 0, 'a'), c.span), [-1], c.span), o.reshape(A(arg(c, 1, 'b'), c.span), [-1], c.span), c.span),
    tensordot: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const b = A(arg(c, 1, 'b'), c.span);
      const axes = arg(c, 2, 'axes', 2n);
      const ra = a.aval.shape.length;
      const rb = b.aval.shape.length;
      let ca: number[];
      let cb: number[];
      if (typeof axes === 'bigint') {
        const n = Number(axes);
        if (n < 0 || n > Math.min(ra, rb)) throw new CompileError(`TypeError: Number of tensordot axes (axes ${n}) exceeds input ranks (${ra} and ${rb})`, c.span);
        ca = Array.from({ length: n }, (_, i) => ra - n + i);
        cb = Array.from({ length: n }, (_, i) => i);
      } else if ((axes instanceof PyTuple || axes instanceof PyList) && axes.items.length === 2) {
        ca = normalizeAxes(axes.items[0]!, ra, c.span);
        cb = normalizeAxes(axes.items[1]!, rb, c.span);
        if (ca.length !== cb.length) throw new CompileError(`TypeError: tensordot requires axes lists to have equal length, got ${ca.length} and ${cb.length}.`, c.span);
      } else throw new CompileError('TypeError: tensordot axes argument must be an int, a pair of ints, or a pair of lists/tuples of ints.', c.span);
      return tensordot(a, b, ca, cb, c.span);
    },
    inner: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const b = A(arg(c, 1, 'b'), c.span);
      if (a.aval.shape.length === 0 || b.aval.shape.length === 0) return o.binary('mul', a, b, c.span);
      return tensordot(a, b, [a.aval.shape.length - 1], [b.aval.shape.length - 1], c.span);
    },
    outer: (c) => {
      const a = o.reshape(A(arg(c, 0, 'a'), c.span), [-1], c.span);
      const b = o.reshape(A(arg(c, 1, 'b'), c.span), [-1], c.span);
      return o.binary('mul', o.expandDims(a, 1, c.span), o.expandDims(b, 0, c.span), c.span);
    },
    kron: (c) => {
      let a = A(arg(c, 0, 'a'), c.span);
      let b = A(arg(c, 1, 'b'), c.span);
      const dtype = promote(a.aval, b.aval);
      a = o.convert(a, dtype, c.span);
      b = o.convert(b, dtype, c.span);
      const r = Math.max(a.aval.shape.length, b.aval.shape.length);
      const pad = (x: Tracer): number[] => [...Array(r - x.aval.shape.length).fill(1), ...x.aval.shape] as number[];
      const sa = pad(a);
      const sb = pad(b);
      const ar = o.reshape(a, sa.flatMap((d) => [d, 1]), c.span);
      const br = o.reshape(b, sb.flatMap((d) => [1, d]), c.span);
      return o.reshape(o.binary('mul', ar, br, c.span), sa.map((d, i) => d * sb[i]!), c.span);
    },
    vstack: stackLike(2, () => 0),
    row_stack: stackLike(2, () => 0),
    hstack: stackLike(1, (t) => (t.aval.shape.length === 1 ? 0 : 1)),
    dstack: stackLike(3, () => 2),
    column_stack: (c) => {
      const xs = items(arg(c, 0, 'tup'), c.span).map((x) => (x.aval.shape.length < 2 ? o.reshape(atleast(x, 1, c.span), [-1, 1], c.span) : x));
      return o.concatenate(xs, 1, c.span);
    },
    atleast_1d: (c) => atleastN(c, 1),
    atleast_2d: (c) => atleastN(c, 2),
    atleast_3d: (c) => atleastN(c, 3),
    tile: (c) => tile(A(arg(c, 0, 'A'), c.span), intList(arg(c, 1, 'reps'), 'reps', c.span), c.span),
    repeat: (c) => {
      let a = A(arg(c, 0, 'a'), c.span);
      const repeats = intArg(arg(c, 1, 'repeats'), 'repeats', c.span);
      const axisV = arg(c, 2, 'axis', null);
      if (axisV === null) a = o.reshape(a, [-1], c.span);
      const ax = axisV === null ? 0 : axisOne(axisV, a.aval.shape.length, c.span);
      const shape = [...a.aval.shape];
      const e = o.expandDims(a, ax + 1, c.span);
      const reps = e.aval.shape.map((_, i) => (i === ax + 1 ? repeats : 1));
      shape[ax] = shape[ax]! * repeats;
      return o.reshape(tile(e, reps, c.span), shape, c.span);
    },
    roll: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const shift = intList(arg(c, 1, 'shift'), 'shift', c.span);
      const axisV = arg(c, 2, 'axis', null);
      if (axisV === null) return o.reshape(roll(o.reshape(a, [-1], c.span), [shift[0]!], [0], c.span), [...a.aval.shape], c.span);
      const axes = normalizeAxes(axisV, a.aval.shape.length, c.span);
      const n = Math.max(axes.length, shift.length);
      const bc = (xs: number[]): number[] => (xs.length === 1 ? Array(n).fill(xs[0]) : xs);
      if ((axes.length !== 1 && axes.length !== n) || (shift.length !== 1 && shift.length !== n)) throw new CompileError('ValueError: shape mismatch: objects cannot be broadcast to a single shape.', c.span);
      return roll(a, bc(shift), bc(axes), c.span);
    },
    copy: (c) => o.tracer(o.bind('copy', [A(arg(c, 0, 'a'), c.span).atom], {}, c.span)),
    flip,
    fliplr: (c) => {
      const m = A(arg(c, 0, 'm'), c.span);
      return rev(m, normalizeAxes(1n, m.aval.shape.length, c.span), c.span);
    },
    flipud: (c) => rev(A(arg(c, 0, 'm'), c.span), [0], c.span),
    rot90: (c) => {
      const m = A(arg(c, 0, 'm'), c.span);
      const k = ((intArg(arg(c, 1, 'k', 1n), 'k', c.span) % 4) + 4) % 4;
      const axesV = arg(c, 2, 'axes', new PyTuple([0n, 1n]));
      const [a1, a2] = normalizeAxes(axesV, m.aval.shape.length, c.span) as [number, number];
      const perm = m.aval.shape.map((_, i) => i);
      perm[a1] = a2;
      perm[a2] = a1;
      if (k === 0) return m;
      if (k === 2) return rev(m, [a1, a2], c.span);
      if (k === 1) return o.transpose(rev(m, [a2], c.span), perm, c.span);
      return rev(o.transpose(m, perm, c.span), [a2], c.span);
    },
    diagonal: (c) => diagonal(A(arg(c, 0, 'a'), c.span), intArg(arg(c, 1, 'offset', 0n), 'offset', c.span), intArg(arg(c, 2, 'axis1', 0n), 'axis1', c.span), intArg(arg(c, 3, 'axis2', 1n), 'axis2', c.span), c.span),
    trace: (c) => {
      const d = diagonal(A(arg(c, 0, 'a'), c.span), intArg(arg(c, 1, 'offset', 0n), 'offset', c.span), intArg(arg(c, 2, 'axis1', 0n), 'axis1', c.span), intArg(arg(c, 3, 'axis2', 1n), 'axis2', c.span), c.span);
      return o.reduce('reduce_sum', d, -1n, false, c.span);
    },
    diag: (c) => {
      const v = A(arg(c, 0, 'v'), c.span);
      const k = intArg(arg(c, 1, 'k', 0n), 'k', c.span);
      if (v.aval.shape.length === 2) return diagonal(v, k, 0, 1, c.span);
      if (v.aval.shape.length !== 1) throw new CompileError('ValueError: diag input must be 1d or 2d', c.span);
      const n = v.aval.shape[0]! + Math.abs(k);
      const mask = o.compare('eq', o.binary('add', iota('int32', [n, n], 0, c.span), BigInt(k), c.span), iota('int32', [n, n], 1, c.span), c.span);
      // v laid along the diagonal: padded to n, indexed by the column (k >= 0: entry (i, i + k) is v[i])
      const padded = o.tracer(o.bind('pad', [v.atom, lit(0, v.aval.dtype)], { padding_config: [k >= 0 ? [k, 0, 0] : [0, -k, 0]] }, c.span));
      const b = o.tracer(o.bind('broadcast_in_dim', [padded.atom], { shape: [n, n], broadcast_dimensions: [1] }, c.span));
      return o.select(mask, b, o.full([n, n], 0, v.aval.dtype, c.span), c.span);
    },
    meshgrid: (c) => {
      const xs = c.args.map((x) => A(x, c.span));
      const indexing = c.kwargs.get('indexing') ?? 'xy';
      if (indexing !== 'xy' && indexing !== 'ij') throw new CompileError(`ValueError: Valid values for indexing are 'xy' and 'ij', got ${String(indexing)}`, c.span);
      for (const x of xs) if (x.aval.shape.length !== 1) throw new CompileError(`ValueError: Arguments to jax.numpy.meshgrid must be 1D, got shape ${fmtShape(x.aval.shape)}`, c.span);
      const args = [...xs];
      const swap = indexing === 'xy' && args.length >= 2;
      if (swap) [args[0], args[1]] = [args[1]!, args[0]!];
      // sparse: each output keeps its own axis and is 1 along the others
      const sparse = truthy(c.kwargs.get('sparse') ?? false, c.span);
      const shape = args.map((a) => (sparse ? 1 : a.aval.shape[0]!));
      const shapeOf = (i: number, a: Tracer): number[] => (sparse ? shape.map((d, j) => (j === i ? a.aval.shape[0]! : d)) : shape);
      const out = args.map((a, i) => o.tracer(o.bind('broadcast_in_dim', [a.atom], { shape: shapeOf(i, a), broadcast_dimensions: [i] }, c.span)));
      if (swap) [out[0], out[1]] = [out[1]!, out[0]!];
      return new PyList(out);
    },
    swapaxes: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const r = a.aval.shape.length;
      // JAX indexes a permutation array with the axes (NumPy's IndexError)
      for (const v of [arg(c, 1, 'axis1'), arg(c, 2, 'axis2')]) {
        const i = intArg(v, 'axis', c.span);
        if (i >= r || i < -r) throw new CompileError(`IndexError: index ${i} is out of bounds for axis 0 with size ${r}`, c.span);
      }
      const a1 = axisOne(arg(c, 1, 'axis1'), r, c.span);
      const a2 = axisOne(arg(c, 2, 'axis2'), r, c.span);
      const perm = a.aval.shape.map((_, i) => (i === a1 ? a2 : i === a2 ? a1 : i));
      return o.transpose(a, perm, c.span);
    },
    moveaxis: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const r = a.aval.shape.length;
      const src = normalizeAxes(arg(c, 1, 'source'), r, c.span);
      const dst = normalizeAxes(arg(c, 2, 'destination'), r, c.span);
      if (src.length !== dst.length) throw new CompileError('ValueError: Inconsistent number of elements: ' + `${src.length} vs ${dst.length}`, c.span);
      const perm: number[] = Array.from({ length: r }, (_, i) => i).filter((i) => !src.includes(i));
      [...dst.map((d, i) => [d, src[i]!] as const)].sort((x, y) => x[0] - y[0]).forEach(([d, s]) => perm.splice(d, 0, s));
      return o.transpose(a, perm, c.span);
    },
    reciprocal: unaryInexact((x, span) => o.power(x, -1n, span)),
    log2: logBase(2),
    // JAX multiplies by 1 / log(10) rounded to float32
    log10: unaryInexact((x, span) => o.binary('mul', o.unary('log', x, span), o.asArray(0.4342944819032518, span, defaultFloat()), span)),
    deg2rad: unaryInexact((x, span) => o.binary('mul', x, o.asArray(Math.PI / 180, span, defaultFloat()), span)),
    radians: unaryInexact((x, span) => o.binary('mul', x, o.asArray(Math.PI / 180, span, defaultFloat()), span)),
    rad2deg: unaryInexact((x, span) => o.binary('mul', x, o.asArray(180 / Math.PI, span, defaultFloat()), span)),
    degrees: unaryInexact((x, span) => o.binary('mul', x, o.asArray(180 / Math.PI, span, defaultFloat()), span)),
    rsqrt: unaryInexact((x, span) => o.unary('rsqrt', x, span)),
    round: (c) => {
      const x = A(arg(c, 0, 'a'), c.span);
      const decimals = intArg(arg(c, 1, 'decimals', 0n), 'decimals', c.span);
      // JAX's round checks issubdtype(dtype, inexact) after the integer early return, which bool misses
      if (x.aval.dtype === 'bool') throw new CompileError("ValueError: data type <class 'numpy.bool'> not inexact", c.span);
      if (!floating(x)) return x;
      const rnd = (t: Tracer): Tracer => o.tracer(o.bind('round', [t.atom], { rounding_method: 1 }, c.span));
      if (decimals === 0) return rnd(x);
      const f = o.asArray(10 ** decimals, c.span, defaultFloat());
      return o.binary('div', rnd(o.binary('mul', x, f, c.span)), f, c.span);
    },
    hypot: (c) => {
      const [x1, x2] = [inexact(arg(c, 0, 'x1'), c.span), inexact(arg(c, 1, 'x2'), c.span)].map((x) => o.unary('abs', x, c.span)) as [Tracer, Tracer];
      const idxInf = o.binary('or', isinfOf(x1, 1, c.span), isinfOf(x2, 1, c.span), c.span);
      const hi = o.binary('max', x1, x2, c.span);
      const lo = o.binary('min', x1, x2, c.span);
      const z = o.compare('eq', hi, 0, c.span);
      const safe = o.select(z, o.full([...hi.aval.shape], 1, defaultFloat(), c.span), hi, c.span);
      const r = o.binary('mul', hi, o.unary('sqrt', o.binary('add', 1, o.power(o.binary('div', lo, safe, c.span), 2n, c.span), c.span), c.span), c.span);
      const x = o.select(z, hi, r, c.span);
      return o.select(idxInf, o.full([...x.aval.shape], Infinity, defaultFloat(), c.span), x, c.span);
    },
    nan_to_num: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (!floating(x)) return x;
      const num = (name: string, i: number, def: number): number => {
        const v = arg(c, i, name, null);
        return v === null ? def : numArg(v, name, c.span);
      };
      const F32_MAX = 3.4028234663852886e38;
      const s = [...x.aval.shape];
      let out = o.select(isnan(x, c.span), o.full(s, num('nan', 2, 0), defaultFloat(), c.span), x, c.span);
      out = o.select(isinfOf(out, 1, c.span), o.full(s, num('posinf', 3, F32_MAX), defaultFloat(), c.span), out, c.span);
      return o.select(isinfOf(out, -1, c.span), o.full(s, num('neginf', 4, -F32_MAX), defaultFloat(), c.span), out, c.span);
    },
    average: (c) => {
      const a = inexact(arg(c, 0, 'a'), c.span);
      const axis = arg(c, 1, 'axis', null);
      const w = arg(c, 2, 'weights', null);
      if (w === null) return o.mean(a, axis, keep(c), c.span);
      let wt = inexact(w, c.span);
      if (wt.aval.shape.length !== a.aval.shape.length) {
        if (axis === null) throw new CompileError('ValueError: Axis must be specified when shapes of a and weights differ.', c.span);
        const ax = axisOne(axis, a.aval.shape.length, c.span);
        wt = o.tracer(o.bind('broadcast_in_dim', [wt.atom], { shape: [...a.aval.shape], broadcast_dimensions: [ax] }, c.span));
      }
      const wsum = o.reduce('reduce_sum', wt, axis, keep(c), c.span);
      return o.binary('div', o.reduce('reduce_sum', o.binary('mul', a, wt, c.span), axis, keep(c), c.span), wsum, c.span);
    },
    cumsum: cumulative('sum'),
    cumprod: cumulative('prod'),
    cumulative_sum: cumulative('sum', true),
    cumulative_prod: cumulative('prod', true),
    ptp: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const axis = arg(c, 1, 'axis', null);
      checkIdentity(ip, 'reduce_max', c);
      return o.binary('sub', o.reduce('reduce_max', a, axis, keep(c), c.span), o.reduce('reduce_min', a, axis, keep(c), c.span), c.span);
    },
    count_nonzero: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      return o.reduce('reduce_sum', o.convert(toBool(a, c.span), 'int32', c.span), arg(c, 1, 'axis', null), keep(c), c.span);
    },
    amax: (c) => (checkIdentity(ip, 'reduce_max', c), o.reduce('reduce_max', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span)),
    amin: (c) => (checkIdentity(ip, 'reduce_min', c), o.reduce('reduce_min', arg(c, 0, 'a'), arg(c, 1, 'axis', null), keep(c), c.span)),
    positive: (c) => A(arg(c, 0, 'x'), c.span),
    fabs: unaryInexact((x, span) => o.unary('abs', x, span)),
    sinc: unaryInexact((x, span) => {
      const z = o.compare('eq', x, 0, span);
      const pix = o.binary('mul', x, o.asArray(Math.PI, span, defaultFloat()), span);
      const safe = o.select(z, o.full([...x.aval.shape], 1, defaultFloat(), span), pix, span);
      return o.select(z, o.full([...x.aval.shape], 1, defaultFloat(), span), o.binary('div', o.unary('sin', safe, span), safe, span), span);
    }),
    split: (c) => splitLike(c, true),
    pad: (c) => {
      const a = A(arg(c, 0, 'array'), c.span);
      const r = a.aval.shape.length;
      const mode = arg(c, 2, 'mode', 'constant');
      const INDEXED = ['edge', 'wrap', 'reflect', 'symmetric'];
      if (mode !== 'constant' && !(typeof mode === 'string' && INDEXED.includes(mode))) {
        throw new CompileError(`NotImplementedError: jnp.pad mode='${String(mode)}' is not supported by jaxts (constant, edge, wrap, reflect and symmetric are)`, c.span);
      }
      const pw = arg(c, 1, 'pad_width');
      // pad_width: int, (before, after), or one (before, after) per axis
      const pairs = (v: PyValue): [number, number][] => {
        if (!(v instanceof PyTuple || v instanceof PyList)) { const n = intArg(v, 'pad_width', c.span); return Array(r).fill([n, n]); }
        if (v.items.every((x) => !(x instanceof PyTuple || x instanceof PyList))) {
          const ns = v.items.map((x) => intArg(x, 'pad_width', c.span));
          const pr: [number, number] = ns.length === 1 ? [ns[0]!, ns[0]!] : [ns[0]!, ns[1]!];
          return Array(r).fill(pr);
        }
        const ps = v.items.map((x) => { const ns = intList(x, 'pad_width', c.span); return [ns[0]!, ns[1] ?? ns[0]!] as [number, number]; });
        return ps.length === 1 ? Array(r).fill(ps[0]) : ps;
      };
      const p = pairs(pw);
      if (p.length !== r) throw new CompileError(`ValueError: jnp.pad: pad_width with nd=${r} has unsupported shape (${p.length}, 2).`, c.span);
      if (mode !== 'constant') return padIndexed(a, p, mode as string, c.span);
      const cv = numArg(c.kwargs.get('constant_values') ?? 0n, 'constant_values', c.span);
      return o.tracer(o.bind('pad', [a.atom, lit(castScalar(cv, a.aval.dtype), a.aval.dtype)], { padding_config: p.map(([lo, hi]) => [lo, hi, 0]) }, c.span));
    },
    einsum: (c) => einsum(ip, c, tensordotGeneral),
    mod: (c) => binop(ip, '%', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    remainder: (c) => binop(ip, '%', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    left_shift: (c) => binop(ip, '<<', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    right_shift: (c) => binop(ip, '>>', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    bitwise_left_shift: (c) => binop(ip, '<<', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    bitwise_right_shift: (c) => binop(ip, '>>', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    floor_divide: (c) => binop(ip, '//', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span),
    divmod: (c) => new PyTuple([binop(ip, '//', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span), binop(ip, '%', A(arg(c, 0, 'x1'), c.span), arg(c, 1, 'x2'), c.span)]),
    float_power: (c) => o.binary('pow', inexact(arg(c, 0, 'x1'), c.span), inexact(arg(c, 1, 'x2'), c.span), c.span),
    // lax.real / imag / conj of a complex array; of a real one, the array (imag: its zeros)
    real: (c) => o.real(arg(c, 0, 'val'), c.span),
    imag: (c) => o.imag(arg(c, 0, 'val'), c.span),
    conj: (c) => o.conj(arg(c, 0, 'x'), c.span),
    conjugate: (c) => o.conj(arg(c, 0, 'x'), c.span),
    trunc: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (!floating(x)) return x;
      return o.select(o.compare('lt', x, 0, c.span), o.unary('ceil', x, c.span), o.unary('floor', x, c.span), c.span);
    },
    rint: (c) => o.tracer(o.bind('round', [inexact(arg(c, 0, 'x'), c.span).atom], { rounding_method: 1 }, c.span)),
    heaviside: (c) => {
      const x1 = inexact(arg(c, 0, 'x1'), c.span);
      const x2 = inexact(arg(c, 1, 'x2'), c.span);
      const shape = broadcastShapes(x1.aval.shape, x2.aval.shape, c.span);
      const f = (v: number): Tracer => o.full(shape, v, defaultFloat(), c.span);
      const b1 = bcast(x1, shape, c.span);
      // x1 where it is NaN, else x2 where it is 0
      const atZero = o.select(o.compare('ne', b1, b1, c.span), b1, bcast(x2, shape, c.span), c.span);
      return o.select(o.compare('lt', b1, 0, c.span), f(0), o.select(o.compare('gt', b1, 0, c.span), f(1), atZero, c.span), c.span);
    },
    fmax: (c) => fminmax('gt', c),
    fmin: (c) => fminmax('lt', c),
    signbit: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (!floating(x)) return o.compare('lt', x, 0, c.span);
      const bits = o.bitcast(x, 'int32', c.span);
      return o.convert(o.binary('shift_right_logical', bits, 31n, c.span), 'bool', c.span);
    },
    nansum: (c) => nanReduce('reduce_sum', 0, c),
    nanprod: (c) => nanReduce('reduce_prod', 1, c),
    nanmax: (c) => nanReduce('reduce_max', -Infinity, c),
    nanmin: (c) => nanReduce('reduce_min', Infinity, c),
    nanmean: (c) => {
      const a = inexact(arg(c, 0, 'a'), c.span);
      const axis = arg(c, 1, 'axis', null);
      const count = o.reduce('reduce_sum', o.convert(o.unary('not', isnan(a, c.span), c.span), defaultFloat(), c.span), axis, keep(c), c.span);
      const total = o.reduce('reduce_sum', o.select(isnan(a, c.span), o.full([...a.aval.shape], 0, defaultFloat(), c.span), a, c.span), axis, keep(c), c.span);
      return o.binary('div', total, count, c.span);
    },
    diff: (c) => {
      let a = A(arg(c, 0, 'a'), c.span);
      const n = intArg(arg(c, 1, 'n', 1n), 'n', c.span);
      const ax = axisOne(arg(c, 2, 'axis', -1n), a.aval.shape.length, c.span);
      // prepend / append: a scalar is broadcast to one slice along the axis, then concatenated (as JAX's diff)
      const edge = (v: PyValue): Tracer => {
        const t = A(v, c.span);
        if (t.aval.shape.length > 0) return t;
        return o.tracer(o.broadcastTo(t.atom, a.aval.shape.map((d, i) => (i === ax ? 1 : d)), c.span));
      };
      const pre = arg(c, 3, 'prepend', null);
      const app = arg(c, 4, 'append', null);
      if (pre !== null || app !== null) a = o.concatenate([...(pre !== null ? [edge(pre)] : []), a, ...(app !== null ? [edge(app)] : [])], ax, c.span);
      for (let i = 0; i < n; i++) {
        const len = a.aval.shape[ax]!;
        if (len === 0) break;
        const hi = sliceAxis(a, ax, 1, len, c.span);
        const lo = sliceAxis(a, ax, 0, len - 1, c.span);
        a = a.aval.dtype === 'bool' ? o.binary('xor', hi, lo, c.span) : o.binary('sub', hi, lo, c.span);
      }
      return a;
    },
    cross: (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const b = A(arg(c, 1, 'b'), c.span);
      const ra = a.aval.shape.length;
      const rb = b.aval.shape.length;
      const [na, nb] = [a.aval.shape[ra - 1], b.aval.shape[rb - 1]];
      if (c.args.length > 2 || c.kwargs.size) throw new CompileError('NotImplementedError: jaxts supports jnp.cross(a, b) along the last axis (no axisa, axisb, axisc or axis)', c.span);
      if ((na !== 2 && na !== 3) || (nb !== 2 && nb !== 3)) throw new CompileError('ValueError: Dimension must be either 2 or 3 for cross product', c.span);
      const at = (x: Tracer, i: number): Tracer => o.reshape(sliceAxis(x, x.aval.shape.length - 1, i, i + 1, c.span), x.aval.shape.slice(0, -1), c.span);
      const m = (x: Tracer, y: Tracer): Tracer => o.binary('mul', x, y, c.span);
      // 2-vectors: the z component is 0; two of them give the scalar z of the product
      if (na === 2 && nb === 2) return o.binary('sub', m(at(a, 0), at(b, 1)), m(at(a, 1), at(b, 0)), c.span);
      const comps = (x: Tracer, n: number): Tracer[] => [at(x, 0), at(x, 1), n === 3 ? at(x, 2) : o.full(x.aval.shape.slice(0, -1), 0, x.aval.dtype, c.span)];
      const [a0, a1, a2] = comps(a, na!) as [Tracer, Tracer, Tracer];
      const [b0, b1, b2] = comps(b, nb!) as [Tracer, Tracer, Tracer];
      const parts = [o.binary('sub', m(a1, b2), m(a2, b1), c.span), o.binary('sub', m(a2, b0), m(a0, b2), c.span), o.binary('sub', m(a0, b1), m(a1, b0), c.span)];
      return o.stack(parts, -1, c.span);
    },
    empty: (c) => o.full(shapeArgsOf(arg(c, 0, 'shape'), c.span), 0, dtypeArg(arg(c, 1, 'dtype', null), c.span) ?? defaultFloat(), c.span),
    empty_like: (c) => {
      const x = A(arg(c, 0, 'prototype'), c.span);
      return o.full([...x.aval.shape], 0, dtypeArg(arg(c, 1, 'dtype', null), c.span) ?? x.aval.dtype, c.span);
    },
    full_like: (c) => {
      const x = A(arg(c, 0, 'a'), c.span);
      const dtype = dtypeArg(arg(c, 2, 'dtype', null), c.span) ?? x.aval.dtype;
      return bcast(o.convert(A(arg(c, 1, 'fill_value'), c.span), dtype, c.span), x.aval.shape, c.span);
    },
    ndim: (c) => BigInt(o.aval(arg(c, 0, 'a'), c.span).shape.length),
    // np.isscalar, or an array of rank 0
    isscalar: (c) => {
      const v = arg(c, 0, 'element');
      if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return true;
      return isArray(v) ? o.aval(v, c.span).shape.length === 0 : false;
    },
    shape: (c) => new PyTuple(o.aval(arg(c, 0, 'a'), c.span).shape.map(BigInt)),
    size: (c) => {
      const shape = o.aval(arg(c, 0, 'a'), c.span).shape;
      const axis = arg(c, 1, 'axis', null);
      const axes = axis === null ? shape.map((_, i) => i) : normalizeAxes(axis, shape.length, c.span);
      return BigInt(axes.reduce((p, d) => p * shape[d]!, 1));
    },
    concat: (c) => o.concatenate(iterate(ip, arg(c, 0, 'arrays'), c.span), intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span),
    permute_dims: (c) => o.transpose(arg(c, 0, 'a'), shapeArgsOf(arg(c, 1, 'axes'), c.span), c.span),
    matrix_transpose: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      const r = x.aval.shape.length;
      if (r < 2) throw new CompileError(`ValueError: x must be at least two-dimensional for matrix_transpose; got ndim=${r}`, c.span);
      return o.transpose(x, [...Array(r - 2).keys(), r - 1, r - 2], c.span);
    },
    unstack: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      const ax = axisOne(arg(c, 1, 'axis', 0n), x.aval.shape.length, c.span);
      return new PyTuple(Array.from({ length: x.aval.shape[ax]! }, (_, i) => o.reshape(sliceAxis(x, ax, i, i + 1, c.span), x.aval.shape.filter((_, k) => k !== ax), c.span)));
    },
    select: (c) => {
      const conds = iterate(ip, arg(c, 0, 'condlist'), c.span).map((x) => A(x, c.span, 'bool'));
      const choices = iterate(ip, arg(c, 1, 'choicelist'), c.span).map((x) => A(x, c.span));
      if (conds.length !== choices.length) throw new CompileError(`ValueError: condlist must have length equal to choicelist (${choices.length}), got len(condlist)=${conds.length}`, c.span);
      let out: PyValue = arg(c, 2, 'default', 0n);
      for (let i = conds.length - 1; i >= 0; i--) out = where(ip, conds[i]!, choices[i]!, out, c.span);
      return A(out, c.span);
    },
    logaddexp: (c) => {
      const x1 = inexact(arg(c, 0, 'x1'), c.span);
      const x2 = inexact(arg(c, 1, 'x2'), c.span);
      const shape = broadcastShapes(x1.aval.shape, x2.aval.shape, c.span);
      const [a, b] = [bcast(x1, shape, c.span), bcast(x2, shape, c.span)];
      const amax = o.binary('max', a, b, c.span);
      const delta = o.binary('sub', a, b, c.span);
      const r = o.binary('add', amax, o.unary('log1p', o.unary('exp', o.unary('neg', o.unary('abs', delta, c.span), c.span), c.span), c.span), c.span);
      const y = o.select(o.compare('ne', delta, delta, c.span), o.binary('add', a, b, c.span), r, c.span);
      // JAX's custom JVP (_logaddexp_jvp): tangents t1 * exp(x1 - y) + t2 * exp(x2 - y); the value stays y
      const sg = (t: Tracer): Tracer => o.stopGradient(t, c.span);
      const tangent = (x: Tracer): Tracer => o.tangentTerm(x, o.unary('exp', o.binary('sub', x, y, c.span), c.span), c.span);
      return o.binary('add', sg(y), o.binary('add', tangent(a), tangent(b), c.span), c.span);
    },
    logaddexp2: (c) => {
      const x1 = inexact(arg(c, 0, 'x1'), c.span);
      const x2 = inexact(arg(c, 1, 'x2'), c.span);
      const amax = o.binary('max', x1, x2, c.span);
      const delta = o.binary('sub', x1, x2, c.span);
      const invln2 = o.asArray(1 / Math.LN2, c.span, defaultFloat());
      const r = o.binary('add', amax, o.binary('mul', invln2, o.unary('log1p', o.unary('exp2', o.unary('neg', o.unary('abs', delta, c.span), c.span), c.span), c.span), c.span), c.span);
      return o.select(o.compare('ne', delta, delta, c.span), o.binary('add', x1, x2, c.span), r, c.span);
    },
    trapezoid: (c) => {
      const y = inexact(arg(c, 0, 'y'), c.span);
      const xV = arg(c, 1, 'x', null);
      const dx = numArg(arg(c, 2, 'dx', 1.0), 'dx', c.span);
      const ax = axisOne(arg(c, 3, 'axis', -1n), y.aval.shape.length, c.span);
      const n = y.aval.shape[ax]!;
      if (n === 0) throw new CompileError(`IndexError: index is out of bounds for axis ${ax} with size 0`, c.span);
      const hi = sliceAxis(y, ax, 1, n, c.span);
      const lo = sliceAxis(y, ax, 0, n - 1, c.span);
      const avg = o.binary('mul', 0.5, o.binary('add', hi, lo, c.span), c.span);
      if (xV === null) return o.binary('mul', o.asArray(dx, c.span, defaultFloat()), o.reduce('reduce_sum', avg, BigInt(ax), false, c.span), c.span);
      const x = inexact(xV, c.span);
      const xn = x.aval.shape.length === 1 ? x : o.moveAxis(x, axisOne(arg(c, 3, 'axis', -1n), x.aval.shape.length, c.span), x.aval.shape.length - 1, c.span);
      let d = o.binary('sub', sliceAxis(xn, xn.aval.shape.length - 1, 1, n, c.span), sliceAxis(xn, xn.aval.shape.length - 1, 0, n - 1, c.span), c.span);
      d = o.moveAxis(d, d.aval.shape.length - 1, x.aval.shape.length === 1 ? 0 : ax, c.span);
      if (x.aval.shape.length === 1) d = o.tracer(o.bind('broadcast_in_dim', [d.atom], { shape: [...avg.aval.shape], broadcast_dimensions: [ax] }, c.span));
      return o.reduce('reduce_sum', o.binary('mul', d, avg, c.span), BigInt(ax), false, c.span);
    },
    ...inverseTrig(),
    convolve: (c) => conv1d(c, 'convolve'),
    correlate: (c) => conv1d(c, 'correlate'),
    array_split: (c) => splitLike(c, false),
    hsplit: (c) => splitAt(c, A(arg(c, 0, 'ary'), c.span).aval.shape.length === 1 ? 0 : 1),
    vsplit: (c) => splitAt(c, 0),
    dsplit: (c) => splitAt(c, 2),
  };
  /**
   * arctan2 is the atan2 primitive; the other inverse-trigonometric and hyperbolic functions,
   * primitives in JAX, are written as XLA's CHLO expands them (atan(x) = atan2(x, 1),
   * asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x))), acos(x) = atan2(sqrt((1 - x)(1 + x)), x), ...; read from
   * the HLO XLA compiles), so the values are XLA's bit for bit where the primitives are.
   */
  function inverseTrig(): Record<string, Fn> {
    const one = (x: Tracer, span: Span): Tracer => o.full([...x.aval.shape], 1, defaultFloat(), span);
    const atan2 = (y: Tracer, x: Tracer, span: Span): Tracer => o.tracer(o.bind('atan2', [y.atom, x.atom], {}, span));
    /** sqrt((1 - x)(1 + x)), CHLO's form of sqrt(1 - x²) */
    const sqrt1mx2 = (x: Tracer, span: Span): Tracer =>
      o.unary('sqrt', o.binary('mul', o.binary('sub', 1.0, x, span), o.binary('add', x, 1.0, span), span), span);
    const half = (t: Tracer, span: Span): Tracer => o.binary('mul', t, 0.5, span);
    /** e^x / 2 as exp(x + log(1/2)), finite up to where the result is */
    const expHalf = (x: Tracer, span: Span): Tracer => o.unary('exp', o.binary('add', x, o.asArray(Math.log(0.5), span, defaultFloat()), span), span);
    const fns: Record<string, (x: Tracer, span: Span) => Tracer> = {
      arctan: (x, span) => atan2(x, one(x, span), span),
      arcsin: (x, span) => o.binary('mul', 2.0, atan2(x, o.binary('add', 1.0, sqrt1mx2(x, span), span), span), span),
      arccos: (x, span) => atan2(sqrt1mx2(x, span), x, span),
      sinh: (x, span) => {
        const small = o.compare('lt', o.unary('abs', x, span), 1.0, span);
        // (e + e / (e + 1)) / 2 with e = expm1(x), as CHLO writes it
        const e = o.unary('expm1', x, span);
        const viaExpm1 = half(o.binary('add', e, o.binary('div', e, o.binary('add', e, 1.0, span), span), span), span);
        return o.select(small, viaExpm1, o.binary('sub', expHalf(x, span), expHalf(o.unary('neg', x, span), span), span), span);
      },
      cosh: (x, span) => o.binary('add', expHalf(x, span), expHalf(o.unary('neg', x, span), span), span),
      arcsinh: (x, span) => {
        const a = o.unary('abs', x, span);
        const a2 = o.binary('mul', a, a, span);
        const small = o.unary('log1p', o.binary('add', a, o.binary('div', a2, o.binary('add', 1.0, o.unary('sqrt', o.binary('add', a2, 1.0, span), span), span), span), span), span);
        // from sqrt(float32 max) on, a² overflows: asinh(a) = log(a) + log(2), as XLA does (and inf stays inf)
        const big = o.compare('gt', a, 1.8446743e19, span);
        const r = o.select(big, o.binary('add', o.unary('log', a, span), Math.fround(Math.LN2), span), small, span);
        return o.binary('mul', o.unary('sign', x, span), r, span);
      },
      arccosh: (x, span) => o.unary('log', o.binary('add', x, o.unary('sqrt', o.binary('mul', o.binary('add', x, 1.0, span), o.binary('sub', x, 1.0, span), span), span), span), span),
      arctanh: (x, span) => half(o.unary('log1p', o.binary('div', o.binary('mul', 2.0, x, span), o.binary('sub', 1.0, x, span), span), span), span),
    };
    const out: Record<string, Fn> = {};
    for (const [name, f] of Object.entries(fns)) {
      const fn: Fn = (c) => f(inexact(arg(c, 0, 'x'), c.span), c.span);
      out[name] = fn;
      // the array-API spellings
      const alias = name.startsWith('arc') ? `a${name.slice(3)}` : null;
      if (alias) out[alias] = fn;
    }
    const arctan2: Fn = (c) => {
      const y = inexact(arg(c, 0, 'x1'), c.span);
      const x = inexact(arg(c, 1, 'x2'), c.span);
      const shape = broadcastShapes(y.aval.shape, x.aval.shape, c.span);
      return atan2(bcast(y, shape, c.span), bcast(x, shape, c.span), c.span);
    };
    out['arctan2'] = arctan2;
    out['atan2'] = arctan2;
    return out;
  }
  /**
   * jnp.convolve / jnp.correlate (JAX's _conv): the padded signal's windows times the kernel.
   * JAX calls conv_general_dilated; here the windows are one matrix (the padded signal tiled,
   * cut to rows of length L + 1 whose first m entries are a window) contracted with dot_general.
   */
  function conv1d(c: CallArgs, op: 'convolve' | 'correlate'): Tracer {
    let x = inexact(arg(c, 0, 'a'), c.span);
    let y = inexact(arg(c, 1, 'v'), c.span);
    const mode = arg(c, 2, 'mode', op === 'convolve' ? 'full' : 'valid');
    if (x.aval.shape.length !== 1 || y.aval.shape.length !== 1) throw new CompileError(`ValueError: ${op}() only support 1-dimensional inputs.`, c.span);
    if (!x.aval.shape[0] || !y.aval.shape[0]) throw new CompileError(`ValueError: ${op}: inputs cannot be empty, got shapes ${fmtShape(x.aval.shape)} and ${fmtShape(y.aval.shape)}.`, c.span);
    let reverseOut = false;
    if (x.aval.shape[0]! < y.aval.shape[0]!) {
      [x, y] = [y, x];
      reverseOut = op === 'correlate';
    }
    if (op === 'convolve') y = rev(y, [0], c.span);
    const m = y.aval.shape[0]!;
    let pads: [number, number];
    if (mode === 'valid') pads = [0, 0];
    else if (mode === 'same') pads = [Math.floor(m / 2), m - Math.floor(m / 2) - 1];
    else if (mode === 'full') pads = [m - 1, m - 1];
    else throw new CompileError("ValueError: mode must be one of ['full', 'same', 'valid']", c.span);
    let xp = o.tracer(o.bind('pad', [x.atom, lit(0, defaultFloat())], { padding_config: [[pads[0], pads[1], 0]] }, c.span));
    // the output reversed is the reversed signal's windows times the reversed kernel
    if (reverseOut) [xp, y] = [rev(xp, [0], c.span), rev(y, [0], c.span)];
    const L = xp.aval.shape[0]!;
    const nOut = L - m + 1;
    // row i of the (nOut, L + 1) matrix starts at xp[i]: its first m entries are the i-th window
    const flat = o.reshape(tile(xp, [nOut + 1], c.span), [-1], c.span);
    const rows = o.reshape(sliceAxis(flat, 0, 0, nOut * (L + 1), c.span), [nOut, L + 1], c.span);
    const windows = sliceAxis(rows, 1, 0, m, c.span);
    return tensordotGeneral(windows, y, [[1], [0]], [[], []], c.span);
  }
  function fminmax(op: 'gt' | 'lt', c: CallArgs): Tracer {
    const x1 = A(arg(c, 0, 'x1'), c.span);
    const x2 = A(arg(c, 1, 'x2'), c.span);
    const dtype = promote(x1.aval, x2.aval);
    const a = o.convert(x1, dtype, c.span);
    const b = o.convert(x2, dtype, c.span);
    const shape = broadcastShapes(a.aval.shape, b.aval.shape, c.span);
    const [ba, bb] = [bcast(a, shape, c.span), bcast(b, shape, c.span)];
    return o.select(o.binary('or', o.compare(op, ba, bb, c.span), isnan(bb, c.span), c.span), ba, bb, c.span);
  }
  function nanReduce(prim: 'reduce_sum' | 'reduce_prod' | 'reduce_max' | 'reduce_min', init: number, c: CallArgs): Tracer {
    const a = A(arg(c, 0, 'a'), c.span);
    const axis = arg(c, 1, 'axis', null);
    if (prim === 'reduce_max' || prim === 'reduce_min') checkIdentity(ip, prim, c);
    if (!floating(a)) return o.reduce(prim, a, axis, keep(c), c.span);
    const out = o.reduce(prim, o.select(isnan(a, c.span), o.full([...a.aval.shape], init, defaultFloat(), c.span), a, c.span), axis, keep(c), c.span);
    if (prim === 'reduce_sum' || prim === 'reduce_prod') return out;
    // an all-NaN slice gives NaN, as JAX's _nan_reduction
    const allNan = o.reduce('reduce_min', isnan(a, c.span), axis, keep(c), c.span);
    return o.select(allNan, o.full([...out.aval.shape], NaN, defaultFloat(), c.span), out, c.span);
  }
  /**
   * jnp.pad's edge, wrap, reflect and symmetric modes, axis by axis: each output position along the axis reads
   * one input position (NumPy's rule); runs of consecutive positions are slices (reversed where they descend),
   * concatenated. Pure data movement: the values and gradients are JAX's.
   */
  function padIndexed(x: Tracer, pads: [number, number][], mode: string, span: Span): Tracer {
    let out = x;
    pads.forEach(([lo, hi], ax) => {
      if (!lo && !hi) return;
      const n = out.aval.shape[ax]!;
      if (n === 0) throw new CompileError(`ValueError: can't extend empty axis ${ax} using modes other than 'constant' or 'empty'`, span);
      const mod = (i: number, m: number): number => ((i % m) + m) % m;
      const source = (i: number): number => {
        if (mode === 'edge') return Math.min(Math.max(i, 0), n - 1);
        if (mode === 'wrap') return mod(i, n);
        if (mode === 'reflect') {
          if (n === 1) return 0;
          const m = mod(i, 2 * n - 2);
          return m < n ? m : 2 * n - 2 - m;
        }
        const m = mod(i, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
      };
      const idx = Array.from({ length: lo + n + hi }, (_, k) => source(k - lo));
      const parts: Tracer[] = [];
      for (let k = 0; k < idx.length; ) {
        const step = k + 1 < idx.length && Math.abs(idx[k + 1]! - idx[k]!) === 1 ? idx[k + 1]! - idx[k]! : 0;
        let e = k + 1;
        while (step && e < idx.length && idx[e]! - idx[e - 1]! === step) e++;
        const a = Math.min(idx[k]!, idx[e - 1]!);
        const part = sliceAxis(out, ax, a, a + (e - k), span);
        parts.push(step < 0 ? rev(part, [ax], span) : part);
        k = e;
      }
      out = o.concatenate(parts, ax, span);
    });
    return out;
  }

  function splitAt(c: CallArgs, axis: number): PyValue {
    // JAX reads ary.shape[axis] first
    if (axis >= A(arg(c, 0, 'ary'), c.span).aval.shape.length) throw new CompileError('IndexError: tuple index out of range', c.span);
    return splitLike({ ...c, args: [c.args[0]!, c.args[1] ?? c.kwargs.get('indices_or_sections')!, BigInt(axis)], kwargs: new Map() }, true);
  }
  function splitLike(c: CallArgs, strict: boolean): PyValue {
    const a = A(arg(c, 0, 'ary'), c.span);
    const spec = arg(c, 1, 'indices_or_sections');
    const ax = axisOne(arg(c, 2, 'axis', 0n), a.aval.shape.length, c.span);
    const n = a.aval.shape[ax]!;
    let bounds: number[];
    if (typeof spec === 'bigint') {
      const k = Number(spec);
      if (k <= 0) throw new CompileError('ValueError: number sections must be larger than 0.', c.span);
      if (strict && n % k !== 0) throw new CompileError(`ValueError: array split does not result in an equal division: ${n} / ${k}`, c.span);
      // NumPy's array_split: the first n % k parts one longer
      const q = Math.floor(n / k);
      const r = n % k;
      bounds = [0];
      for (let i = 0; i < k; i++) bounds.push(bounds[i]! + q + (i < r ? 1 : 0));
    } else {
      bounds = [0, ...intList(spec, 'indices', c.span), n];
      const sizes = bounds.slice(1).map((b, i) => b - bounds[i]!);
      if (sizes.some((d) => d < 0)) throw new CompileError(`ValueError: Sizes passed to split must be nonnegative, got [${sizes.map((d) => `np.int64(${d})`).join(', ')}]`, c.span);
    }
    const parts: Tracer[] = [];
    for (let i = 0; i + 1 < bounds.length; i++) parts.push(sliceAxis(a, ax, bounds[i]!, bounds[i + 1]!, c.span));
    return new PyList(parts);
  }
  function tensordotGeneral(a: Tracer, b: Tracer, contract: [number[], number[]], batch: [number[], number[]], span: Span, mark?: (e: Eqn) => void): Tracer {
    const dtype = promote(a.aval, b.aval);
    return o.tracer(o.bind('dot_general', [o.convert(a, dtype, span).atom, o.convert(b, dtype, span).atom], { dimension_numbers: { contract, batch }, precision: null, preferred_element_type: dtype }, span, mark));
  }
}

/**
 * einsum's out_sharding=: the last contraction's dot_general gives its result laid out as asked
 * (its dimensions `ix`, the result's `out`).
 */
function outShardingMark(ix: string, out: string, outSharding: OutSharding): (e: Eqn) => void {
  return (e) => {
    const shape = e.outputs[0]!.aval.shape;
    const dims = outSharding([...out].map((ch) => shape[ix.indexOf(ch)]!));
    e.outSharding = [...ix].map((ch) => (out.includes(ch) ? [...dims[out.indexOf(ch)]!] : []));
    if (outSharding.unreduced?.length) e.outUnreduced = [...outSharding.unreduced];
  };
}

type DotGeneral = (a: Tracer, b: Tracer, contract: [number[], number[]], batch: [number[], number[]], span: Span, mark?: (e: Eqn) => void) => Tracer;

/**
 * jnp.einsum: explicit ('ij,jk->ik') and implicit ('ij,jk') subscripts. Each operand first sums
 * the indices no other operand or the output uses and takes diagonals of repeated ones; operands
 * are then contracted left to right with dot_general (shared indices kept in the output are batch
 * dimensions), and the result transposed to the output order, as JAX's _einsum does per pair.
 */
/**
 * einsum subscripts with `...` written out (as opt_einsum's parser does): each operand's ellipsis stands for its
 * leading dimensions, right-aligned across operands and named by unused letters; operands whose ellipsis
 * dimensions are 1 where another's are larger are broadcast (NumPy's rule); an implicit output puts the
 * ellipsis dimensions first. `operands` is updated in place.
 */
function expandEllipsis(o: Interp['ops'], s: string, operands: Tracer[], span: Span): string {
  const [lhs, rhs] = s.split('->') as [string, string | undefined];
  const inputs = lhs.split(',');
  if (inputs.some((t) => t.replace('...', '').includes('.')) || (rhs !== undefined && rhs.replace('...', '').includes('.'))) throw new CompileError("ValueError: Invalid Ellipses.", span);
  const nEll = inputs.map((t, i) => {
    if (!t.includes('...')) return 0;
    const n = (operands[i]?.aval.shape.length ?? 0) - (t.length - 3);
    if (n < 0) throw new CompileError(`ValueError: Ellipses lengths do not match.`, span);
    return n;
  });
  const maxEll = Math.max(0, ...nEll);
  const used = new Set(s);
  const free = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].filter((ch) => !used.has(ch));
  const ell = free.slice(0, maxEll);
  // the broadcast size of each ellipsis dimension
  const sizes = ell.map((_, k) => Math.max(1, ...inputs.map((t, i) => (t.includes('...') && k >= maxEll - nEll[i]! ? operands[i]!.aval.shape[k - (maxEll - nEll[i]!)]! : 1))));
  inputs.forEach((t, i) => {
    if (!t.includes('...')) return;
    const x = operands[i]!;
    const off = maxEll - nEll[i]!;
    const shape = x.aval.shape.map((d, j) => (j < nEll[i]! ? sizes[j + off]! : d));
    x.aval.shape.forEach((d, j) => {
      if (j < nEll[i]! && d !== 1 && d !== sizes[j + off]) throw new CompileError(`ValueError: operands could not be broadcast together with remapped shapes`, span);
    });
    if (shape.some((d, j) => d !== x.aval.shape[j])) operands[i] = o.tracer(o.broadcastTo(x.atom, shape, span));
    inputs[i] = t.replace('...', ell.slice(off).join(''));
  });
  let out: string;
  if (rhs === undefined) {
    const counts = new Map<string, number>();
    for (const ch of inputs.join('')) if (!ell.includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    out = ell.join('') + [...counts].filter(([, n]) => n === 1).map(([ch]) => ch).sort().join('');
  } else out = rhs.replace('...', ell.join(''));
  return `${inputs.join(',')}->${out}`;
}

function einsum(ip: Interp, c: CallArgs, dotGeneral: DotGeneral): Tracer {
  const o = ip.ops;
  const span = c.span;
  const spec = c.args[0];
  if (typeof spec !== 'string') throw new CompileError('NotImplementedError: jaxts supports jnp.einsum with a subscripts string only', span);
  const operands = c.args.slice(1).map((x) => o.asArray(x, span));
  const outS = c.kwargs.get('out_sharding') ?? null;
  const outSharding = outS === null ? null : outShardingOf(ip, outS, span);
  let s = spec.replace(/\s+/g, '');
  if (s.includes('.')) s = expandEllipsis(o, s, operands, span);
  const [lhs, rhsSpec] = s.split('->') as [string, string | undefined];
  const inputs = lhs.split(',');
  if (inputs.length !== operands.length) throw new CompileError(`ValueError: Number of einsum subscripts must be equal to the number of operands.`, span);
  let out: string;
  if (rhsSpec === undefined) {
    const counts = new Map<string, number>();
    for (const ch of inputs.join('')) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    out = [...counts].filter(([, n]) => n === 1).map(([ch]) => ch).sort().join('');
  } else out = rhsSpec;
  const terms: { x: Tracer; ix: string }[] = operands.map((x, i) => {
    const ix = inputs[i]!;
    if (ix.length !== x.aval.shape.length) throw new CompileError(`ValueError: Einstein sum subscript '${ix}' does not contain the correct number of indices for operand ${i}.`, span);
    return { x, ix };
  });
  // one operand's own work: diagonals of repeated indices, sums of indices used nowhere else
  const reduceOwn = (t: { x: Tracer; ix: string }, keepers: string): { x: Tracer; ix: string } => {
    let { x, ix } = t;
    for (;;) {
      const dup = [...ix].findIndex((ch, i) => ix.indexOf(ch) !== i);
      if (dup < 0) break;
      const first = ix.indexOf(ix[dup]!);
      const n = x.aval.shape[first]!;
      // the diagonal over (first, dup), moved to the position of `first`
      const perm = [...Array(ix.length).keys()].filter((i) => i !== first && i !== dup);
      const tr = o.transpose(x, [...perm, first, dup], span);
      const rest = perm.map((i) => x.aval.shape[i]!);
      const flat = o.reshape(tr, [...rest, n * n], span);
      const d = o.tracer(o.bind('slice', [flat.atom], { start_indices: [...rest.map(() => 0), 0], limit_indices: [...rest, n * n], strides: [...rest.map(() => 1), n + 1] }, span));
      x = d;
      ix = perm.map((i) => ix[i]).join('') + ix[first];
    }
    const sumAxes = [...ix].flatMap((ch, i) => (keepers.includes(ch) ? [] : [i]));
    if (sumAxes.length) {
      x = o.reduce('reduce_sum', x, new PyTuple(sumAxes.map((i) => BigInt(i))), false, span);
      ix = [...ix].filter((_, i) => !sumAxes.includes(i)).join('');
    }
    return { x, ix };
  };
  const othersOf = (k: number, list: { ix: string }[]): string => list.filter((_, i) => i !== k).map((t) => t.ix).join('') + out;
  let cur = terms.map((t, k) => reduceOwn(t, othersOf(k, terms)));
  while (cur.length > 1) {
    const [a, b] = [cur[0]!, cur[1]!];
    const later = cur.slice(2).map((t) => t.ix).join('') + out;
    const shared = [...a.ix].filter((ch) => b.ix.includes(ch));
    const batch = shared.filter((ch) => later.includes(ch));
    const contract = shared.filter((ch) => !later.includes(ch));
    const ix = batch.join('') + [...a.ix].filter((ch) => !shared.includes(ch)).join('') + [...b.ix].filter((ch) => !shared.includes(ch)).join('');
    const mark = outSharding && cur.length === 2 ? outShardingMark(ix, out, outSharding) : undefined;
    const r = dotGeneral(a.x, b.x, [contract.map((ch) => a.ix.indexOf(ch)), contract.map((ch) => b.ix.indexOf(ch))], [batch.map((ch) => a.ix.indexOf(ch)), batch.map((ch) => b.ix.indexOf(ch))], span, mark);
    cur = [reduceOwn({ x: r, ix }, cur.slice(2).map((t) => t.ix).join('') + out), ...cur.slice(2)];
  }
  const last = reduceOwn(cur[0]!, out);
  for (const ch of out) if (!last.ix.includes(ch)) throw new CompileError(`ValueError: einstein sum subscripts string included output subscript '${ch}' which never appeared in an input`, span);
  return o.transpose(last.x, [...out].map((ch) => last.ix.indexOf(ch)), span);
}

/**
 * Sorting, searching and gather-based functions (jax/_src/numpy/sorting.py,
 * indexing.py's take/take_along_axis, reductions.py's quantiles), each the
 * lax sequence JAX traces: lax.sort with an iota for the indices, rev for
 * descending order, gathers for takes and quantiles.
 */
function sortingFunctions(ip: Interp): Record<string, Fn> {
  const o = ip.ops;
  const A = (v: PyValue, span: Span): Tracer => o.asArray(v, span);
  const flag = (c: CallArgs, name: string, def: boolean): boolean => truthy(c.kwargs.get(name) ?? def, c.span);
  /** `a` and the dimension of `axis` (None: `a` flattened, dimension 0). */
  const along = (a: Tracer, axis: PyValue, span: Span): [Tracer, number] =>
    axis === null ? [o.reshape(a, [-1], span), 0] : [a, normalizeAxes(axis, a.aval.shape.length, span)[0]!];
  const noKindOrder = (c: CallArgs, fn: string): void => {
    if ((c.kwargs.get('kind') ?? null) !== null) throw new CompileError(`TypeError: 'kind' argument to ${fn} is not supported. Use stable=True or stable=False to specify sort stability.`, c.span);
    if ((c.kwargs.get('order') ?? null) !== null) throw new CompileError(`TypeError: 'order' argument to ${fn} is not supported.`, c.span);
  };
  const inexact = (x: Tracer, span: Span): Tracer => (isFloat(x.aval.dtype) ? x : o.convert(x, defaultFloat(), span));
  /** A function JAX decorates with @jit: inside a trace, make_jaxpr shows its equations as one `jit[name=…]` equation. */
  const jitted = (name: string, f: Fn): Fn => (c) => {
    if (ip.atHost) return f(c);
    const eqns = ip.trace().builder.eqns;
    const start = eqns.length;
    const out = f(c);
    const atoms = (vs: PyValue[]): Atom[] => vs.flatMap((v) => (v instanceof Tracer && v.trace === ip.trace() ? [v.atom] : []));
    markJitCall(eqns, start, name, atoms([...c.args, ...c.kwargs.values()]), atoms([out]));
    return out;
  };
  /** XLA's total order after JAX's sort canonicalisation (-0.0 = 0.0, NaNs last), as int32 keys. */
  const totalKey = (x: Tracer, span: Span): Tracer => {
    if (!isFloat(x.aval.dtype)) return x.aval.dtype === 'bool' ? o.convert(x, 'int32', span) : x;
    const zero = o.full([...x.aval.shape], 0, defaultFloat(), span);
    let v = o.select(o.compare('eq', x, zero, span), zero, x, span);
    v = o.select(o.compare('ne', x, x, span), o.full([...x.aval.shape], NaN, defaultFloat(), span), v, span);
    const bits = o.bitcast(v, 'int32', span);
    return o.select(o.compare('lt', bits, 0n, span), o.binary('xor', bits, BigInt(0x7fffffff), span), bits, span);
  };

  const argsort = (c: CallArgs): Tracer => {
    noKindOrder(c, 'argsort');
    const [arr0, dim] = along(A(arg(c, 0, 'a'), c.span), arg(c, 1, 'axis', -1n), c.span);
    const stable = flag(c, 'stable', true);
    const descending = flag(c, 'descending', false);
    let arr = arr0;
    let iota = broadcastedIota(o, 'int32', arr.aval.shape, dim, c.span);
    if (descending && stable) {
      arr = revDim(o, arr, dim, c.span);
      iota = revDim(o, iota, dim, c.span);
    }
    const [, indices] = sortArrays(o, [arr, iota], dim, stable, 1, c.span);
    return descending ? revDim(o, indices!, dim, c.span) : indices!;
  };

  /** JAX's _quantile (squash_nans=False) for an int axis or None, q a scalar or a vector. */
  const quantile = (c: CallArgs, q0: Tracer, fn: string): Tracer => {
    const method = arg(c, 5, 'method', 'linear');
    if (typeof method !== 'string' || !['linear', 'lower', 'higher', 'midpoint', 'nearest'].includes(method)) {
      throw new CompileError("ValueError: method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'", c.span);
    }
    const keepdims = truthy(arg(c, 6, 'keepdims', false), c.span);
    const a0 = inexact(A(arg(c, 0, 'a'), c.span), c.span);
    const axisV = arg(c, 2, 'axis', null);
    if (axisV instanceof PyTuple || axisV instanceof PyList) throw new CompileError(`NotImplementedError: jnp.${fn} with a tuple of axes is not supported by jaxts`, c.span);
    const [a1, axis] = along(a0, axisV, c.span);
    const q = q0;
    if (q.aval.shape.length > 1) throw new CompileError(`ValueError: q must be have rank <= 1, got shape ${fmtShape(q.aval.shape)}`, c.span);
    const shape = a1.aval.shape;
    // a NaN anywhere along the axis makes the whole quantile NaN
    const anyNan = o.reduce('reduce_max', o.compare('ne', a1, a1, c.span), BigInt(axis), true, c.span);
    const nanB = o.tracer(o.broadcastTo(anyNan.atom, shape, c.span));
    const a = sortArrays(o, [o.select(nanB, o.full([...shape], NaN, defaultFloat(), c.span), a1, c.span)], axis, true, 1, c.span)[0]!;
    const n = shape[axis]!;
    const qs = o.binary('mul', q, n - 1, c.span);
    const low = o.unary('floor', qs, c.span);
    const high = o.unary('ceil', qs, c.span);
    const highW = o.binary('sub', qs, low, c.span);
    const lowW = o.binary('sub', 1.0, highW, c.span);
    const clampI = (v: Tracer): Tracer => o.convert(o.binary('max', 0.0, o.binary('min', v, n - 1, c.span), c.span), 'int32', c.span);
    const qn = q.aval.shape.length;
    const sliceSizes = shape.map((d, i) => (i === axis ? 1 : d));
    const dn = { offset_dims: Array.from({ length: shape.length - 1 }, (_, i) => i + qn), collapsed_slice_dims: [axis], start_index_map: [axis] };
    const at = (i: Tracer): Tracer => gatherWith(o, a, o.expandDims(i, i.aval.shape.length, c.span), dn, sliceSizes, c.span);
    const lowV = at(clampI(low));
    const highV = at(clampI(high));
    const weight = (w: Tracer): Tracer => (qn === 1 ? o.tracer(o.bind('broadcast_in_dim', [w.atom], { shape: [...lowV.aval.shape], broadcast_dimensions: [0] }, c.span)) : w);
    let result: Tracer;
    if (method === 'linear') result = o.binary('add', o.binary('mul', lowV, weight(lowW), c.span), o.binary('mul', highV, weight(highW), c.span), c.span);
    else if (method === 'lower') result = lowV;
    else if (method === 'higher') result = highV;
    else if (method === 'nearest') result = o.select(o.compare('le', weight(highW), 0.5, c.span), lowV, highV, c.span);
    else result = o.binary('mul', o.binary('add', lowV, highV, c.span), 0.5, c.span);
    if (!keepdims) return result;
    const kept = axisV === null ? a0.aval.shape.map(() => 1) : a0.aval.shape.map((d, i) => (i === axis ? 1 : d));
    return o.reshape(result, [...q.aval.shape, ...kept], c.span);
  };

  /** JAX's partition/argpartition: the kth+1 smallest (top_k of the negation), then the rest by top_k. */
  const partitionFn = (c: CallArgs, indices: boolean): Tracer => {
    const a = A(arg(c, 0, 'a'), c.span);
    const r = a.aval.shape.length;
    const axis = normalizeAxes(arg(c, 2, 'axis', -1n), r, c.span)[0]!;
    const n = a.aval.shape[axis]!;
    const kth0 = intArg(arg(c, 1, 'kth'), 'kth', c.span);
    if (kth0 < -n || kth0 >= n) throw new CompileError(`ValueError: axis ${kth0} is out of bounds for array of dimension ${n}`, c.span);
    if (a.aval.dtype === 'uint32') throw new CompileError(`NotImplementedError: jnp.${indices ? 'argpartition' : 'partition'} of unsigned integers is not supported by jaxts`, c.span);
    const kth = kth0 < 0 ? kth0 + n : kth0;
    const swap = (t: Tracer): Tracer => (axis === r - 1 ? t : o.moveAxis(t, axis, r - 1, c.span));
    const unswap = (t: Tracer): Tracer => (axis === r - 1 ? t : o.moveAxis(t, r - 1, axis, c.span));
    const arr = swap(a);
    const [negBottom, bottomInd] = topK(o, o.unary('neg', arr, c.span), kth + 1, c.span);
    if (!indices) {
      const [top] = topK(o, arr, n - kth - 1, c.span);
      return unswap(o.concatenate([o.unary('neg', negBottom, c.span), top], r - 1, c.span));
    }
    // the top indices through a proxy: ones, zero where the bottom indices are
    const shape = [...arr.aval.shape];
    const pos = o.tracer(o.bind('broadcast_in_dim', [broadcastedIota(o, 'int32', shape, r - 1, c.span).atom], { shape: [...shape, kth + 1], broadcast_dimensions: shape.map((_, i) => i) }, c.span));
    const bot = o.tracer(o.bind('broadcast_in_dim', [bottomInd.atom], { shape: [...shape, kth + 1], broadcast_dimensions: [...shape.slice(0, -1).map((_, i) => i), r] }, c.span));
    const hit = o.reduce('reduce_max', o.compare('eq', pos, bot, c.span), BigInt(r), false, c.span);
    const proxy = o.select(hit, o.full(shape, 0, defaultFloat(), c.span), o.full(shape, 1, defaultFloat(), c.span), c.span);
    const [, topInd] = topK(o, proxy, n - kth - 1, c.span);
    return unswap(o.concatenate([bottomInd, topInd], r - 1, c.span));
  };

  return {
    sort: jitted('sort', (c) => {
      noKindOrder(c, 'sort');
      const [arr, dim] = along(A(arg(c, 0, 'a'), c.span), arg(c, 1, 'axis', -1n), c.span);
      const [out] = sortArrays(o, [arr], dim, flag(c, 'stable', true), 1, c.span);
      return flag(c, 'descending', false) ? revDim(o, out!, dim, c.span) : out!;
    }),
    argsort: jitted('argsort', argsort),
    lexsort: jitted('lexsort', (c) => {
      const keysV = arg(c, 0, 'keys');
      const keys = keysV instanceof PyTuple || keysV instanceof PyList ? keysV.items.map((k) => A(k, c.span)) : iterate(ip, A(keysV, c.span), c.span).map((k) => A(k, c.span));
      if (!keys.length) throw new CompileError('TypeError: need sequence of keys with len > 0 in lexsort', c.span);
      const s0 = keys[0]!.aval.shape;
      if (keys.some((k) => fmtShape(k.aval.shape) !== fmtShape(s0))) throw new CompileError('ValueError: all keys need to be the same shape', c.span);
      if (!s0.length) throw new CompileError('TypeError: every key must have at least one dimension', c.span);
      const axis = normalizeAxes(arg(c, 1, 'axis', -1n), s0.length, c.span)[0]!;
      const iota = broadcastedIota(o, 'int32', s0, axis, c.span);
      const sorted = sortArrays(o, [...keys.reverse(), iota], axis, true, keys.length, c.span);
      return sorted[sorted.length - 1]!;
    }),
    searchsorted: jitted('searchsorted', (c) => {
      const a = A(arg(c, 0, 'a'), c.span);
      const v = A(arg(c, 1, 'v'), c.span);
      const side = arg(c, 2, 'side', 'left');
      if (side !== 'left' && side !== 'right') throw new CompileError(`ValueError: side=${String(side)} is not recognized; must be 'left' or 'right'`, c.span);
      if (a.aval.shape.length !== 1) throw new CompileError('ValueError: a should be 1-dimensional', c.span);
      if ((arg(c, 3, 'sorter', null)) !== null) throw new CompileError('NotImplementedError: jnp.searchsorted with sorter is not supported by jaxts', c.span);
      // JAX's compare_all: count the sorted entries before each query in the sort order
      const dtype = promote(a.aval, v.aval);
      const ka = totalKey(o.convert(a, dtype, c.span), c.span);
      const kv = totalKey(o.convert(v, dtype, c.span), c.span);
      const shape = [a.aval.shape[0]!, ...v.aval.shape];
      const ab = o.tracer(o.bind('broadcast_in_dim', [ka.atom], { shape, broadcast_dimensions: [0] }, c.span));
      const vb = o.tracer(o.bind('broadcast_in_dim', [kv.atom], { shape, broadcast_dimensions: v.aval.shape.map((_, i) => i + 1) }, c.span));
      const before = o.compare(side === 'left' ? 'lt' : 'le', ab, vb, c.span);
      return o.reduce('reduce_sum', o.convert(before, 'int32', c.span), 0n, false, c.span);
    }),
    take: jitted('_take', (c) => {
      const a0 = A(arg(c, 0, 'a'), c.span);
      let idx = A(arg(c, 1, 'indices'), c.span);
      const [a, axis] = along(a0, arg(c, 2, 'axis', null), c.span);
      if ((arg(c, 3, 'out', null)) !== null) throw new CompileError("NotImplementedError: The 'out' argument to jnp.take is not supported.", c.span);
      const modeV = arg(c, 4, 'mode', null);
      if (!isInt(idx.aval.dtype)) throw new CompileError(`TypeError: take: indices must have an integer type; got ${idx.aval.dtype}`, c.span);
      const n = a.aval.shape[axis]!;
      let mode: GatherMode;
      if (modeV === null || modeV === 'fill') {
        mode = 'fill';
        idx = normalizeArrayIndex(o, idx, n, c.span);
      } else if (modeV === 'raise') throw new CompileError("NotImplementedError: The 'raise' mode to jnp.take is not supported.", c.span);
      else if (modeV === 'wrap') {
        idx = o.binary('rem', o.binary('add', o.binary('rem', idx, BigInt(n), c.span), BigInt(n), c.span), BigInt(n), c.span);
        mode = 'promise_in_bounds';
      } else if (modeV === 'clip') mode = 'clip';
      else throw new CompileError(`ValueError: Invalid mode '${String(modeV)}' for np.take`, c.span);
      const fill = arg(c, 7, 'fill_value', null);
      const sizes = [...a.aval.shape];
      const k = idx.aval.shape.length;
      if (sizes[axis] === 0) {
        if (size(idx.aval.shape) !== 0) throw new CompileError('IndexError: Cannot do a non-empty jnp.take() from an empty axis.', c.span);
        return a;
      }
      if (size(idx.aval.shape) === 0) return o.full([...sizes.slice(0, axis), ...idx.aval.shape, ...sizes.slice(axis + 1)], 0, a.aval.dtype, c.span);
      sizes[axis] = 1;
      const dn = {
        offset_dims: [...Array.from({ length: axis }, (_, i) => i), ...Array.from({ length: a.aval.shape.length - axis - 1 }, (_, i) => axis + k + i)],
        collapsed_slice_dims: [axis],
        start_index_map: [axis],
      };
      const opts = { ...DEFAULT_OPTIONS, mode, fillValue: fill === null ? null : Number(fill as number), uniqueIndices: flag(c, 'unique_indices', false), indicesAreSorted: flag(c, 'indices_are_sorted', false) };
      return gatherWith(o, a, o.expandDims(idx, k, c.span), dn, sizes, c.span, opts);
    }),
    take_along_axis: jitted('take_along_axis', (c) => {
      const arr0 = A(arg(c, 0, 'arr'), c.span);
      let idx = A(arg(c, 1, 'indices'), c.span);
      const axisV = arg(c, 2, 'axis');
      const [arr1, axis] = along(arr0, axisV, c.span);
      if (!isInt(idx.aval.dtype)) throw new CompileError(`TypeError: take_along_axis indices must be of integer type, got ${idx.aval.dtype}`, c.span);
      if (axisV === null && idx.aval.shape.length !== 1) throw new CompileError(`ValueError: when axis=None, indices must have a single dimension; got ${idx.aval.shape.length}`, c.span);
      const r = arr1.aval.shape.length;
      if (idx.aval.shape.length !== r) throw new CompileError(`ValueError: indices and arr must have the same number of dimensions; ${idx.aval.shape.length} vs. ${r}`, c.span);
      const mode = parseMode(arg(c, 3, 'mode', null), c.span) ?? 'fill';
      // the other axes broadcast against each other
      const outShape = arr1.aval.shape.map((d, i) => (i === axis ? idx.aval.shape[i]! : broadcastShapes([d], [idx.aval.shape[i]!], c.span)[0]!));
      const arrShape = outShape.map((d, i) => (i === axis ? arr1.aval.shape[i]! : d));
      const arr = o.tracer(o.broadcastTo(arr1.atom, arrShape, c.span));
      idx = o.tracer(o.broadcastTo(idx.atom, outShape, c.span));
      if (mode !== 'promise_in_bounds') idx = normalizeArrayIndex(o, o.convert(idx, 'int32', c.span), arrShape[axis]!, c.span);
      const cols = outShape.map((_, d) => o.expandDims(d === axis ? o.convert(idx, 'int32', c.span) : broadcastedIota(o, 'int32', outShape, d, c.span), r, c.span));
      const indices = cols.length === 1 ? cols[0]! : o.concatenate(cols, r, c.span);
      const fill = arg(c, 4, 'fill_value', null);
      const all = Array.from({ length: r }, (_, i) => i);
      return gatherWith(o, arr, indices, { offset_dims: [], collapsed_slice_dims: all, start_index_map: all }, all.map(() => 1), c.span, { ...DEFAULT_OPTIONS, mode, fillValue: fill === null ? null : Number(fill as number) });
    }),
    bincount: (c) => {
      const x = A(arg(c, 0, 'x'), c.span);
      if (!isInt(x.aval.dtype)) throw new CompileError(`TypeError: x argument to bincount must have an integer type; got ${x.aval.dtype}`, c.span);
      if (x.aval.shape.length !== 1) throw new CompileError('ValueError: only 1-dimensional input supported.', c.span);
      const minlength = intArg(arg(c, 2, 'minlength', 0n), 'minlength', c.span);
      const lengthV = c.kwargs.get('length') ?? null;
      if (lengthV === null) {
        throw new CompileError("ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: The error occurred because of argument 'x' of jnp.bincount. To avoid this error, pass a static `length` argument.", c.span, [
          'jaxts knows array values only when the program runs: pass length=… (the number of bins)',
        ]);
      }
      const length = intArg(lengthV, 'length', c.span);
      void minlength; // checked as JAX does; with a static length JAX ignores it
      const wV = arg(c, 1, 'weights', null);
      const w = wV === null ? null : A(wV, c.span);
      if (w && fmtShape(w.aval.shape) !== fmtShape(x.aval.shape)) throw new CompileError('ValueError: shape of weights must match shape of x.', c.span);
      // zeros(length).at[clip(x, 0)].add(weights, mode='drop')
      const clipped = o.binary('max', x, 0n, c.span);
      const zeros = o.full([length], 0, w ? w.aval.dtype : 'int32', c.span);
      return scatterIndex(o, zeros, [{ kind: 'array', value: clipped }], w ?? 1n, 'scatter_add', c.span, { ...DEFAULT_OPTIONS, mode: 'fill' });
    },
    partition: jitted('partition', (c) => partitionFn(c, false)),
    argpartition: jitted('argpartition', (c) => partitionFn(c, true)),
    quantile: jitted('quantile', (c) => quantile(c, inexact(A(arg(c, 1, 'q'), c.span), c.span), 'quantile')),
    percentile: jitted('percentile', (c) => {
      const q = o.binary('div', inexact(A(arg(c, 1, 'q'), c.span), c.span), 100.0, c.span);
      return jitted('quantile', (d) => quantile(d, q, 'percentile'))(c);
    }),
    median: jitted('median', (c) => {
      const args: CallArgs = { args: [arg(c, 0, 'a'), 0.5, arg(c, 1, 'axis', null), null, false, 'linear', arg(c, 4, 'keepdims', false)], kwargs: new Map(), span: c.span };
      return jitted('quantile', (d) => quantile(d, A(0.5, d.span), 'median'))(args);
    }),
  };
}

/**
 * jnp.trim_zeros (JAX's lax_numpy.py): it needs filt's values (core.concrete_or_error), and slices each
 * axis of `axis` (all by default) from the first to past the last index where an element is nonzero
 * (leading zeros only for 'f' in `trim`, trailing only for 'b').
 */
function trimZeros(ip: Interp, c: CallArgs): PyValue {
  const x = ip.ops.asArray(arg(c, 0, 'filt'), c.span);
  const trim = arg(c, 1, 'trim', 'fb');
  if (typeof trim !== 'string') throw new CompileError(`AttributeError: '${typeName(trim)}' object has no attribute 'lower'`, c.span);
  const value = concreteValue(x);
  if (value === 'runtime') throw runtimeOnlyError('jnp.trim_zeros', c.span);
  if (value === 'staged') throw new CompileError(concretizationMessage(x, x.aval, 'Error arose in the `filt` argument of trim_zeros()'), c.span);
  const shape = value.shape;
  const axes = new Set(normalizeAxes(arg(c, 2, 'axis', null), shape.length, c.span));
  const [front, back] = ['f', 'b'].map((k) => trim.toLowerCase().includes(k));
  if (!axes.size || (!front && !back)) return x;
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const slices = shape.map((n, ax) => {
    if (!axes.has(ax)) return new PySlice(null, null, null);
    // the indices along `ax` where any element is nonzero (NaN counts)
    const hit = Array.from({ length: n }, () => false);
    value.data.forEach((v, flat) => v !== 0 && (hit[Math.floor(flat / strides[ax]!) % n] = true));
    if (!hit.includes(true)) return new PySlice(0, 0, null);
    return new PySlice(front ? hit.indexOf(true) : null, back ? hit.lastIndexOf(true) + 1 : null, null);
  });
  return subscript(ip, x, new PyTuple(slices), c.span);
}
