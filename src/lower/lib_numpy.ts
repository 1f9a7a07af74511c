// Host NumPy (`import numpy as np`): arrays computed at compile time
// (NdArray, operations in ndarray.ts), np.random (lib_numpy_random.ts),
// and np.array of devices (a mesh's device grid).
import { PyGridIndexer } from './grids.js';
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { iterate } from './expr.js';
import { getAttr } from './attrs.js';
import type { Interp } from './interp.js';
import { deviceArrayOf } from './lib_sharding.js';
import { numpyRandomModule } from './lib_numpy_random.js';
import { callPrelude } from './jnp_prelude.js';
import { DTYPES } from '../ir/dtypes.js';
import { resolvePrintOptions, setPrintOptions, type PrintOptions } from '../../runtime/format/index.js';
import { checkItems, checkShape } from './limits.js';
import { arangeArgs, arg, builtinModule, intArg, numArg, shapeArgs } from './modules.js';
import { broadcastShapes, fmtShape, staticNd } from './arrays.js';
import { jaxTypeStr } from '../ir/types.js';
import { ALL_DTYPES } from '../ir/dtypes.js';
import { JAX_NAMES } from './jax_names.js';
import type { HExpr } from '../ir/host.js';
import { truthy } from './pyops.js';
import { hostNdQuantile, hostNdAstype, hostNdFromDevice, hostNdFromList, hostNdRound, hostNdBinary, hostNdJoin, hostNdMatmul, hostNdReduce, hostNdUnary, isHostNd, runTimeNumberList } from './host_numpy.js';
import { ndArange, ndConcatenate, ndCorrcoef, ndCov, ndBroadcast, ndCompare, ndFrom, ndLogical, ndIsclose, ndLinspace, ndMatmul, ndReduce, ndReshape, ndSplit, ndStack, ndTranspose, ndUnaryFloat, ndUnaryPredicate, ndUnarySame, roundHalfEven, type NdReduction } from './ndarray.js';
import { HostArray, HostList, HostNd, HostScalar, NdArray, NpScalar, PyBuiltin, PyClass, PyInstance, PyUserClass, PyDict, PyDevice, PyDeviceArray, PyDType, PyList, PyTuple, Tracer, isArray, typeName as pyTypeName, type CallArgs, type PyModule, type PyValue } from './values.js';
import { arrayConversionMessage } from './tracer_origin.js';

export function numpyModule(ip: Interp, jnp: PyModule): PyModule {
  const dt = (name: NdArray['dtype'] | 'complex64' | 'complex128'): PyDType => new PyDType(name, true);
  const filled = (value: number) => (c: CallArgs): NdArray => {
    const s = shapeOf(arg(c, 0, 'shape'), c.span);
    checkShape(s, c.span);
    const dtype = npDtypeArg(arg(c, 1, 'dtype', null), c.span) ?? 'float64';
    return new NdArray(s, dtype, new Array(s.reduce((a, b) => a * b, 1)).fill(dtype === 'bool' ? Number(value !== 0) : value));
  };
  const boolType = dt('bool');
  const mod = builtinModule('numpy', {
    random: numpyRandomModule(ip),
    mgrid: new PyGridIndexer(false, false),
    ogrid: new PyGridIndexer(true, false),
    ...Object.fromEntries(ALL_DTYPES.filter((d) => d !== 'bfloat16' && d !== 'bool' && d !== 'complex64').map((d) => [d, dt(d)])),
    float64: dt('float64'),
    int64: dt('int64'),
    complex64: dt('complex64'),
    complex128: dt('complex128'),
    bool_: boolType,
    bool: boolType,
    ndarray: new PyClass('ndarray', [], new Map(), 'marker', 'numpy'),
    dtype: (c) => new PyDType(anyDtype(arg(c, 0, 'dtype'), c.span), true),
    finfo: (c) => callPrelude(ip, 'finfo', c),
    set_printoptions: (c) => setPrintOptionsCall(ip, c),
    printoptions: (c) => printOptionsContext(ip, c),
    get_printoptions: () => printOptionsDict(),
    iinfo: (c) => callPrelude(ip, '_np_iinfo', c),
    pi: Math.PI,
    e: Math.E,
    euler_gamma: 0.5772156649015329,
    inf: Infinity,
    nan: NaN,
    newaxis: null,
    arange: (c) => {
      const { start, stop, step, isFloat } = arangeArgs(c);
      checkItems(Math.ceil((stop - start) / step), 'a NumPy array', c.span);
      return ndArange(start, stop, step, isFloat);
    },
    array: (c) => npArray(ip, c, jnp),
    asarray: (c) => npArray(ip, c, jnp),
    stack: (c) => join(ip, jnp, 'stack', c),
    concatenate: (c) => join(ip, jnp, 'concatenate', c),
    reshape: (c) => ndReshape(ndFrom(arg(c, 0, 'a'), c.span), shapeArgs([arg(c, 1, 'newshape')], c.span), c.span),
    zeros: filled(0),
    split: (c) => {
      const sec = arg(c, 1, 'indices_or_sections');
      const sections = sec instanceof PyList || sec instanceof PyTuple || sec instanceof NdArray ? iterate(ip, sec, c.span).map((v) => intArg(v, 'indices_or_sections', c.span)) : intArg(sec, 'indices_or_sections', c.span);
      return new PyList(ndSplit(ndFrom(arg(c, 0, 'ary'), c.span), sections, intArg(arg(c, 2, 'axis', 0n), 'axis', c.span), c.span));
    },
    ones: filled(1),
    full: (c) => {
      const v = arg(c, 1, 'fill_value');
      if ((c.kwargs.get('dtype') ?? c.args[2] ?? null) !== null) throw new CompileError('jaxts: numpy.full with a dtype argument is not supported (the fill value gives the dtype)', c.span);
      if (typeof v !== 'number' && typeof v !== 'bigint') throw new CompileError(`jaxts: numpy.full needs a Python int or float fill value known at compile time, got ${pyTypeName(v)}`, c.span);
      const s = shapeOf(arg(c, 0, 'shape'), c.span);
      checkShape(s, c.span);
      return new NdArray(s, typeof v === 'number' ? 'float64' : 'int64', new Array(s.reduce((a, b) => a * b, 1)).fill(Number(v)));
    },
    ...hostFunctions(ip, jnp),
  });
  viaJnp(ip, jnp).forEach((f, name) => mod.attrs.has(name) || mod.attrs.set(name, f));
  return mod;
}

/**
 * The other NumPy functions jax.numpy has, of JAX arrays (and of run-time NumPy arrays, by their device
 * copy): jax.numpy's, as NumPy converts a JAX array with __array__ and computes in its dtype (float32,
 * int32) as jax.numpy does. Of compile-time NumPy values they are not supported.
 */
function viaJnp(ip: Interp, jnp: PyModule): Map<string, PyBuiltin> {
  const out = new Map<string, PyBuiltin>();
  for (const name of JAX_NAMES['numpy'] ?? []) {
    const f = jnp.attrs.get(name);
    if (!(f instanceof PyBuiltin)) continue;
    out.set(name, new PyBuiltin(name, (c) => {
      const values = [...c.args, ...c.kwargs.values()];
      const device = (v: PyValue): boolean => isArray(v) || v instanceof HostNd || ((v instanceof PyList || v instanceof PyTuple) && v.items.some(device));
      if (!values.some(device)) throw new CompileError(`NotImplementedError: numpy.${name} is not supported by jaxts (it is, of JAX arrays)`, c.span);
      const dev = (v: PyValue): PyValue => (v instanceof HostNd ? ip.hostArray(v, c.span) : v instanceof PyList ? new PyList(v.items.map(dev)) : v instanceof PyTuple && !v.cls ? new PyTuple(v.items.map(dev)) : v);
      return f.fn({ ...c, args: c.args.map(dev), kwargs: new Map([...c.kwargs].map(([k, v]) => [k, dev(v)])) });
    }));
  }
  return out;
}

/**
 * NumPy functions on host values: on compile-time NumPy arrays and Python numbers they compute
 * in NumPy's dtypes (float64, int64); on a JAX array they run as the jax.numpy function (NumPy
 * converts it with __array__ and computes in its dtype, float32 or int32, as jax.numpy does).
 */
function hostFunctions(ip: Interp, jnp: PyModule): Record<string, ((c: CallArgs) => PyValue) | PyValue> {
  const jnpFn = (name: string) => (c: CallArgs): PyValue => {
    const f = jnp.attrs.get(name);
    if (!(f instanceof PyBuiltin)) throw new Error(`internal: jax.numpy.${name} is missing`);
    return f.fn(c);
  };
  /**
   * A NumPy function: the host computation `host`, or jnp's `name` when an argument is a JAX array, or
   * `run` (run-time NumPy, src/lower/host_numpy.ts) when one is a NumPy value known only at run time.
   */
  const either = (name: string, host: (c: CallArgs) => PyValue, run?: (c: CallArgs) => PyValue) => (c: CallArgs): PyValue => {
    if (c.args.some((a) => isArray(a) || (a instanceof PyList && a.items.some(isArray)))) return jnpFn(name)(c);
    const runTime = (a: PyValue): boolean => isHostNd(a) || a instanceof HostList || (a instanceof HostScalar && a.type !== 'str');
    if (run && c.args.some((a) => runTime(a) || ((a instanceof PyList || a instanceof PyTuple) && a.items.some(runTime)))) return run(c);
    // a function run-time NumPy lacks computes, of a run-time array, as jnp's on its device copy
    if (c.args.some((a) => a instanceof HostNd)) return jnpFn(name)({ ...c, args: onDevice(c.args, c.span) });
    return host(c);
  };
  const x0 = (c: CallArgs, name = 'x'): PyValue => arg(c, 0, name);
  const unaryRun = (name: string) => (c: CallArgs): PyValue => {
    const r = hostNdUnary(ip, name, x0(c), c.span);
    if (r === null) throw new Error(`internal: numpy.${name} has no run-time form`);
    return r;
  };
  const floatFn = (name: string, f: (v: number) => number) => either(name, (c) => ndUnaryFloat(f, x0(c), c.span), unaryRun(name));
  const sameFn = (name: string, f: (v: number) => number) => either(name, (c) => ndUnarySame(f, x0(c), c.span), unaryRun(name));
  const axesOf = (v: PyValue, span: Span): number[] | null => (v === null ? null : v instanceof PyTuple || v instanceof PyList ? v.items.map((a) => intArg(a, 'axis', span)) : [intArg(v, 'axis', span)]);
  const reduction = (name: string, kind: NdReduction) => either(name, (c) =>
    ndReduce(kind, arg(c, 0, 'a'), axesOf(arg(c, 1, 'axis', null), c.span), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span),
  (c) => hostNdReduce(ip, kind, arg(c, 0, 'a'), axesOf(arg(c, 1, 'axis', null), c.span), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span));
  const like = (value: number) => either(value ? 'ones_like' : 'zeros_like', (c) => {
    const x = ndFrom(arg(c, 0, 'a'), c.span);
    return new NdArray([...x.shape], x.dtype, x.data.map(() => value));
  });
  const tol = (c: CallArgs, i: number, name: string, def: number): number => numArg(arg(c, i, name, def), name, c.span);
  const allStatic = (c: CallArgs): boolean => !c.args.slice(0, 2).some((a) => isArray(a) || a instanceof HostNd);
  const onDevice = (args: PyValue[], span: Span): PyValue[] => args.map((a) => (a instanceof HostNd ? ip.hostArray(a, span) : a));
  // np.median / percentile / quantile of a run-time array over all of it: NumPy's own computation (others: jnp's, on the device copy)
  const quantileFn = (name: 'median' | 'percentile' | 'quantile') => either(name, (c) => {
    throw new CompileError(`NotImplementedError: numpy.${name} is not supported by jaxts (it is, of JAX arrays)`, c.span);
  }, (c) => {
    const x = arg(c, 0, 'a');
    const whole = c.args.length <= (name === 'median' ? 1 : 2) && !c.kwargs.size && x instanceof HostNd;
    const r = whole ? hostNdQuantile(ip, name, x, name === 'median' ? null : arg(c, 1, 'q')) : null;
    return r ?? jnpFn(name)({ ...c, args: onDevice(c.args, c.span) });
  });
  return {
    median: quantileFn('median'),
    percentile: quantileFn('percentile'),
    quantile: quantileFn('quantile'),
    // of any array-like (JAX arrays, NumPy arrays, lists, scalars): as jnp's
    size: jnpFn('size'),
    shape: jnpFn('shape'),
    ndim: jnpFn('ndim'),
    sqrt: floatFn('sqrt', Math.sqrt),
    exp: floatFn('exp', Math.exp),
    log: floatFn('log', Math.log),
    log2: floatFn('log2', Math.log2),
    log10: floatFn('log10', Math.log10),
    log1p: floatFn('log1p', Math.log1p),
    expm1: floatFn('expm1', Math.expm1),
    sin: floatFn('sin', Math.sin),
    cos: floatFn('cos', Math.cos),
    tan: floatFn('tan', Math.tan),
    tanh: floatFn('tanh', Math.tanh),
    abs: sameFn('abs', Math.abs),
    absolute: sameFn('absolute', Math.abs),
    negative: sameFn('negative', (v) => -v),
    sign: sameFn('sign', (v) => (Number.isNaN(v) ? NaN : Math.sign(v))),
    floor: floatFn('floor', Math.floor),
    ceil: floatFn('ceil', Math.ceil),
    square: sameFn('square', (v) => v * v),
    isnan: either('isnan', (c) => ndUnaryPredicate(Number.isNaN, x0(c), c.span)),
    isinf: either('isinf', (c) => ndUnaryPredicate((v) => v === Infinity || v === -Infinity, x0(c), c.span)),
    isfinite: either('isfinite', (c) => ndUnaryPredicate(Number.isFinite, x0(c), c.span)),
    // np.clip(a, a_min, a_max): maximum with a_min, then minimum with a_max (either may be None)
    clip: either('clip', (c) => {
      const lo = arg(c, 1, 'a_min', null);
      const hi = arg(c, 2, 'a_max', null);
      const above = lo === null ? ndFrom(arg(c, 0, 'a'), c.span) : ndElementwise2(arg(c, 0, 'a'), lo, Math.max, c.span);
      return hi === null ? above : ndElementwise2(above, hi, Math.min, c.span);
    }),
    round: either('round', (c) => {
      const d = intArg(arg(c, 1, 'decimals', 0n), 'decimals', c.span);
      const x = ndFrom(arg(c, 0, 'a'), c.span);
      if (!x.dtype.startsWith('float') && d >= 0) return arg(c, 0, 'a') instanceof NdArray ? x : x.shape.length ? x : new NpScalar(x.dtype, x.data[0]!);
      return ndUnarySame((v) => roundHalfEven(v, d), x, c.span);
    }, (c) => {
      const x = arg(c, 0, 'a');
      if (!(x instanceof HostNd)) throw new CompileError('np.round of a number known only at run time is not supported by jaxts (round() is)', c.span);
      return hostNdRound(ip, x, intArg(arg(c, 1, 'decimals', 0n), 'decimals', c.span));
    }),
    sum: reduction('sum', 'sum'),
    prod: reduction('prod', 'prod'),
    max: reduction('max', 'max'),
    amax: reduction('max', 'max'),
    min: reduction('min', 'min'),
    amin: reduction('min', 'min'),
    mean: reduction('mean', 'mean'),
    any: reduction('any', 'any'),
    all: reduction('all', 'all'),
    zeros_like: like(0),
    ones_like: like(1),
    transpose: either('transpose', (c) => {
      const p = arg(c, 1, 'axes', null);
      return ndTranspose(ndFrom(arg(c, 0, 'a'), c.span), p === null ? null : shapeArgs([p], c.span));
    }),
    ravel: either('ravel', (c) => ndReshape(ndFrom(arg(c, 0, 'a'), c.span), [-1], c.span)),
    dot: either('dot', (c) => ndMatmul(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span), (c) => hostNdMatmul(ip, arg(c, 0, 'a'), arg(c, 1, 'b'), c.span)),
    matmul: either('matmul', (c) => ndMatmul(arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span), (c) => hostNdMatmul(ip, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    maximum: either('maximum', (c) => ndElementwise2(arg(c, 0, 'x1'), arg(c, 1, 'x2'), Math.max, c.span), (c) => hostNdBinary(ip, 'maximum', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    minimum: either('minimum', (c) => ndElementwise2(arg(c, 0, 'x1'), arg(c, 1, 'x2'), Math.min, c.span), (c) => hostNdBinary(ip, 'minimum', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    linspace: either('linspace', (c) => {
      const num = intArg(arg(c, 2, 'num', 50n), 'num', c.span);
      if (num < 0) throw new CompileError(`ValueError: Number of samples, ${num}, must be non-negative.`, c.span);
      checkItems(num, 'a NumPy array', c.span);
      return ndLinspace(numArg(arg(c, 0, 'start'), 'start', c.span), numArg(arg(c, 1, 'stop'), 'stop', c.span), num, truthy(arg(c, 3, 'endpoint', true), c.span));
    }),
    eye: (c) => {
      const n = intArg(arg(c, 0, 'N'), 'N', c.span);
      const mV = arg(c, 1, 'M', null);
      const m = mV === null ? n : intArg(mV, 'M', c.span);
      const k = intArg(arg(c, 2, 'k', 0n), 'k', c.span);
      checkShape([n, m], c.span);
      return new NdArray([n, m], 'float64', Array.from({ length: n * m }, (_, i) => (Math.floor(i / m) + k === i % m ? 1 : 0)));
    },
    cov: either('cov', (c) => {
      if (arg(c, 5, 'fweights', null) !== null || arg(c, 6, 'aweights', null) !== null) throw new CompileError('NotImplementedError: numpy.cov with fweights or aweights is not supported by jaxts', c.span);
      const ddof = arg(c, 4, 'ddof', null);
      return ndCov(arg(c, 0, 'm'), arg(c, 1, 'y', null), truthy(arg(c, 2, 'rowvar', true), c.span), truthy(arg(c, 3, 'bias', false), c.span), ddof === null ? null : intArg(ddof, 'ddof', c.span), c.span);
    }),
    corrcoef: either('corrcoef', (c) => ndCorrcoef(arg(c, 0, 'x'), arg(c, 1, 'y', null), truthy(arg(c, 2, 'rowvar', true), c.span), c.span)),
    isclose: either('isclose', (c) => ndIsclose(arg(c, 0, 'a'), arg(c, 1, 'b'), tol(c, 2, 'rtol', 1e-5), tol(c, 3, 'atol', 1e-8), truthy(arg(c, 4, 'equal_nan', false), c.span), c.span)),
    allclose: (c) => {
      // NumPy takes array-likes: a list beside a JAX array is a NumPy array (jnp.allclose itself rejects lists)
      if (!allStatic(c)) return jnpFn('allclose')({ ...c, args: onDevice(c.args, c.span).map((a) => (a instanceof PyList || a instanceof PyTuple ? staticNd(a) ?? a : a)) });
      const r = ndIsclose(arg(c, 0, 'a'), arg(c, 1, 'b'), tol(c, 2, 'rtol', 1e-5), tol(c, 3, 'atol', 1e-8), truthy(arg(c, 4, 'equal_nan', false), c.span), c.span);
      return r.data.every((v) => v === 1);
    },
    ...ufuncsAndShapes(ip, either),
    testing: builtinModule('numpy.testing', {
      assert_allclose: (c) => {
        const rtol = tol(c, 2, 'rtol', 1e-7);
        const atol = tol(c, 3, 'atol', 0);
        const equalNan = truthy(arg(c, 4, 'equal_nan', true), c.span);
        if (!allStatic(c)) return runtimeAssert(ip, c, 'close', { rtol, atol, equalNan, decimal: 0 }, String(arg(c, 5, 'err_msg', '')));
        const r = ndIsclose(arg(c, 0, 'actual'), arg(c, 1, 'desired'), rtol, atol, equalNan, c.span);
        const bad = r.data.filter((v) => v === 0).length;
        if (bad) throw new CompileError(`AssertionError: \nNot equal to tolerance rtol=${rtol}, atol=${atol}\n\nMismatched elements: ${bad} / ${r.data.length}`, c.span);
        return null;
      },
      assert_array_equal: (c) => {
        if (!allStatic(c)) return runtimeAssert(ip, c, 'equal', { rtol: 0, atol: 0, equalNan: true, decimal: 0 }, String(arg(c, 2, 'err_msg', '')));
        const r = ndIsclose(arg(c, 0, 'x'), arg(c, 1, 'y'), 0, 0, true, c.span);
        const bad = r.data.filter((v) => v === 0).length;
        if (bad) throw new CompileError(`AssertionError: \nArrays are not equal\n\nMismatched elements: ${bad} / ${r.data.length}`, c.span);
        return null;
      },
      assert_array_almost_equal: (c) => {
        const decimal = intArg(arg(c, 2, 'decimal', 6n), 'decimal', c.span);
        if (!allStatic(c)) return runtimeAssert(ip, c, 'almost', { rtol: 0, atol: 0, equalNan: true, decimal }, String(arg(c, 3, 'err_msg', '')));
        const r = ndIsclose(arg(c, 0, 'x'), arg(c, 1, 'y'), 0, 1.5 * 10 ** -decimal, true, c.span);
        const bad = r.data.filter((v) => v === 0).length;
        if (bad) throw new CompileError(`AssertionError: \nArrays are not almost equal to ${decimal} decimals\n\nMismatched elements: ${bad} / ${r.data.length}`, c.span);
        return null;
      },
    }),
  };
}

/** A NumPy dtype argument (a dtype, its name, or Python's bool/int/float): NumPy's dtype, 64-bit for Python's types. */
function npDtype(v: PyValue, span: Span): NdArray['dtype'] {
  const name = v instanceof PyDType ? v.name : v instanceof PyBuiltin ? ({ bool: 'bool', int: 'int64', float: 'float64' } as Record<string, string>)[v.name] : typeof v === 'string' ? (v === 'bool_' ? 'bool' : v) : undefined;
  if (name === 'float32' || name === 'float64' || name === 'int32' || name === 'int64' || name === 'bool') return name;
  throw new CompileError(`TypeError: data type ${typeof v === 'string' ? `'${v}'` : pyTypeName(v)} not understood (jaxts' NumPy arrays are bool, int32, int64, float32 or float64)`, span);
}

/** np.set_printoptions's parameters, in order. */
const PRINT_OPTION_NAMES = ['precision', 'threshold', 'edgeitems', 'linewidth', 'suppress', 'nanstr', 'infstr', 'formatter', 'sign', 'floatmode'];

/**
 * np.set_printoptions (jnp.set_printoptions is the same function): the options apply to what the
 * compiler formats from here on and, through jx.setPrintOptions at this point of the program, to what
 * the program prints when it runs. None leaves an option as it is.
 */
export function setPrintOptionsCall(ip: Interp, c: CallArgs): null {
  if (c.args.length > PRINT_OPTION_NAMES.length) throw new CompileError(`TypeError: set_printoptions() takes from 0 to ${PRINT_OPTION_NAMES.length} positional arguments but ${c.args.length} were given`, c.span);
  const given = new Map<string, PyValue>(c.args.map((v, i) => [PRINT_OPTION_NAMES[i]!, v]));
  for (const [k, v] of c.kwargs) given.set(k, v);
  const opts: Partial<PrintOptions> = {};
  for (const [k, given0] of given) {
    if (given0 === null) continue;
    const v = ip.static(given0, `np.set_printoptions(${k}=)`, c.span);
    switch (k) {
      case 'precision':
      case 'edgeitems':
      case 'linewidth':
        opts[k] = intArg(v, k, c.span);
        break;
      case 'threshold': {
        // threshold=sys.maxsize or np.inf: never summarize
        const t = numArg(v, k, c.span);
        opts.threshold = Number.isFinite(t) ? t : Number.MAX_SAFE_INTEGER;
        break;
      }
      case 'suppress':
        opts.suppress = truthy(v, c.span);
        break;
      case 'nanstr':
      case 'infstr':
        if (typeof v !== 'string') throw new CompileError(`TypeError: ${k} must be a str`, c.span);
        opts[k] = v;
        break;
      case 'sign':
        if (v !== '-' && v !== '+' && v !== ' ') throw new CompileError("ValueError: sign option must be one of ' ', '+', or '-'", c.span);
        opts.sign = v;
        break;
      case 'floatmode':
        if (v !== 'fixed' && v !== 'unique' && v !== 'maxprec' && v !== 'maxprec_equal') throw new CompileError("ValueError: floatmode option must be one of 'fixed', 'unique', 'maxprec', 'maxprec_equal'", c.span);
        opts.floatmode = v;
        break;
      case 'formatter':
      case 'legacy':
        throw new CompileError(`NotImplementedError: np.set_printoptions(${k}=) is not supported by jaxts`, c.span);
      default:
        throw new CompileError(`TypeError: set_printoptions() got an unexpected keyword argument '${k}'`, c.span);
    }
  }
  applyPrintOptions(ip, opts);
  return null;
}

/** Sets the print options `opts` where the compiler formats and where the program prints. */
function applyPrintOptions(ip: Interp, opts: Partial<PrintOptions>): void {
  setPrintOptions(opts);
  ip.emit({ k: 'expr', e: { k: 'call', callee: 'jx.setPrintOptions', args: [{ k: 'object', entries: Object.entries(opts).map(([k, v]): [string, HExpr] => [k, { k: 'lit', value: v as string | number | boolean }]) }] } });
}

const PRINT_OPTIONS_CONTEXT = new PyUserClass('printoptions', [], 'numpy');

/** np.get_printoptions(): the options as a dict, in NumPy's order. */
function printOptionsDict(): PyDict {
  const o = resolvePrintOptions();
  const d = new PyDict();
  const int = (n: number): PyValue => (Number.isSafeInteger(n) ? BigInt(n) : n);
  const entries: [string, PyValue][] = [['edgeitems', int(o.edgeitems)], ['threshold', int(o.threshold)], ['floatmode', o.floatmode], ['precision', int(o.precision)], ['suppress', o.suppress], ['linewidth', int(o.linewidth)], ['nanstr', o.nanstr], ['infstr', o.infstr], ['sign', o.sign], ['formatter', null], ['legacy', false], ['override_repr', null]];
  entries.forEach(([k, v]) => d.set(k, v));
  return d;
}

/** np.printoptions(...): a context manager that sets the options (as set_printoptions) and restores the earlier ones on exit. */
function printOptionsContext(ip: Interp, c: CallArgs): PyValue {
  const cm = new PyInstance(PRINT_OPTIONS_CONTEXT);
  let saved: PrintOptions | null = null;
  cm.attrs.set('__enter__', new PyBuiltin('__enter__', () => {
    saved = resolvePrintOptions();
    setPrintOptionsCall(ip, c);
    // what it binds: np.get_printoptions()
    return printOptionsDict();
  }));
  cm.attrs.set('__exit__', new PyBuiltin('__exit__', () => {
    if (saved) applyPrintOptions(ip, saved);
    return false;
  }));
  return cm;
}

/** The dtype `np.dtype(v)` names: any dtype jaxts knows (arrays of some exist only on the device). */
function anyDtype(v: PyValue, span: Span): PyDType['name'] {
  if (v instanceof PyDType) return v.name;
  if (typeof v === 'string' && (v in DTYPES || v === 'float64' || v === 'int64' || v === 'complex128' || v === 'bool_')) return v === 'bool_' ? 'bool' : (v as PyDType['name']);
  return npDtype(v, span);
}

/** NumPy's binary ufuncs (broadcast, NumPy's dtypes), comparisons, and the shape functions, on host values. */
function ufuncsAndShapes(ip: Interp, either: (name: string, host: (c: CallArgs) => PyValue) => (c: CallArgs) => PyValue): Record<string, (c: CallArgs) => PyValue> {
  const binary = (name: string, f: (x: number, y: number) => number) => either(name, (c) => ndElementwise2(arg(c, 0, 'x1'), arg(c, 1, 'x2'), f, c.span));
  const cmp = (name: string, op: string) => either(name, (c) => ndCompare(op, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span));
  const shapeTuple = (s: number[]): PyTuple => new PyTuple(s.map((d) => BigInt(d)));
  return {
    add: binary('add', (x, y) => x + y),
    subtract: binary('subtract', (x, y) => x - y),
    multiply: binary('multiply', (x, y) => x * y),
    greater: cmp('greater', '>'),
    greater_equal: cmp('greater_equal', '>='),
    less: cmp('less', '<'),
    less_equal: cmp('less_equal', '<='),
    equal: cmp('equal', '=='),
    not_equal: cmp('not_equal', '!='),
    logical_and: either('logical_and', (c) => ndLogical('and', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    logical_or: either('logical_or', (c) => ndLogical('or', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    logical_xor: either('logical_xor', (c) => ndLogical('xor', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    // an object's own shape / ndim / size attribute first, as NumPy asks it (array-like classes)
    shape: either('shape', (c) => (c.args[0] instanceof PyInstance ? getAttr(ip, c.args[0], 'shape', c.span) : shapeTuple(ndFrom(arg(c, 0, 'a'), c.span).shape))),
    ndim: either('ndim', (c) => (c.args[0] instanceof PyInstance ? getAttr(ip, c.args[0], 'ndim', c.span) : BigInt(ndFrom(arg(c, 0, 'a'), c.span).shape.length))),
    size: either('size', (c) => (c.args[0] instanceof PyInstance ? getAttr(ip, c.args[0], 'size', c.span) : BigInt(ndFrom(arg(c, 0, 'a'), c.span).data.length))),
    broadcast_to: either('broadcast_to', (c) => {
      const x = ndFrom(arg(c, 0, 'array'), c.span);
      const shape = shapeOf(arg(c, 1, 'shape'), c.span);
      const pad = shape.length - x.shape.length;
      if (pad < 0 || x.shape.some((d, i) => d !== 1 && d !== shape[i + pad])) {
        throw new CompileError(`ValueError: operands could not be broadcast together with remapped shapes [original->remapped]: ${fmtShape(x.shape)} and requested shape ${fmtShape(shape)}`, c.span);
      }
      return ndBroadcast(x, shape);
    }),
    expand_dims: either('expand_dims', (c) => {
      const x = ndFrom(arg(c, 0, 'a'), c.span);
      const a = arg(c, 1, 'axis');
      const axes = (a instanceof PyTuple || a instanceof PyList ? a.items : [a]).map((v) => intArg(v, 'axis', c.span));
      const n = x.shape.length + axes.length;
      const norm = axes.map((v) => (v < 0 ? v + n : v));
      if (norm.some((v) => v < 0 || v >= n)) throw new CompileError(`numpy.exceptions.AxisError: axis ${axes.find((v, i) => norm[i]! < 0 || norm[i]! >= n)} is out of bounds for array of dimension ${n}`, c.span);
      const shape: number[] = [];
      let k = 0;
      for (let i = 0; i < n; i++) shape.push(norm.includes(i) ? 1 : x.shape[k++]!);
      return new NdArray(shape, x.dtype, [...x.data]);
    }),
    result_type: (c) => {
      // NumPy's promotion of the arguments' dtypes (Python scalars are weak), as a dtype
      // an object with a dtype attribute counts as that dtype (NumPy asks it)
      const args = c.args.map((v) => (v instanceof PyInstance ? getAttr(ip, v, 'dtype', c.span) : v));
      c = { ...c, args };
      const nds = c.args.map((v) => (v instanceof PyDType ? new NdArray([0], v.name as NdArray['dtype'], []) : ndFrom(v, c.span)));
      const strong = c.args.map((v, i) => (v instanceof NdArray || v instanceof NpScalar || v instanceof PyDType ? nds[i]!.dtype : null)).filter((d) => d !== null);
      const all = strong.length ? strong : nds.map((x) => x.dtype);
      const weakFloat = nds.some((x, i) => x.dtype.startsWith('float') && !(c.args[i] instanceof NdArray || c.args[i] instanceof NpScalar || c.args[i] instanceof PyDType));
      const rank = (d: string): number => ['bool', 'int32', 'int64', 'float32', 'float64'].indexOf(d);
      let best = all.reduce((a, b) => (rank(b) > rank(a) ? b : a));
      if (weakFloat && !best.startsWith('float')) best = 'float64';
      if (best === 'float32' && all.includes('int64')) best = 'float64';
      return new PyDType(best as PyDType['name'], true);
    },
  };
}

/**
 * np.testing's checks of JAX arrays, at run time where their values are known: the arrays are read
 * back and compared as NumPy compares them (jx.assertClose), raising NumPy's AssertionError when they
 * differ. Shapes are known now: a mismatch is NumPy's AssertionError at once.
 */
function runtimeAssert(ip: Interp, c: CallArgs, kind: 'close' | 'equal' | 'almost', tol: { rtol: number; atol: number; equalNan: boolean; decimal: number }, errMsg: string): null {
  const [a, b] = [c.args[0] ?? c.kwargs.get('actual') ?? c.kwargs.get('x') ?? null, c.args[1] ?? c.kwargs.get('desired') ?? c.kwargs.get('y') ?? null];
  if (!ip.atHost) {
    const t = isArray(a) ? a : b;
    throw new CompileError(t instanceof Tracer ? arrayConversionMessage(t) : `TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape ${jaxTypeStr(ip.ops.aval(t!, c.span))}`, c.span);
  }
  ip.flush([a, b]);
  const operand = (v: PyValue): { shape: number[]; e: HExpr } => {
    if (isArray(v) || v instanceof HostNd) {
      const h = ip.hostArray(v, c.span);
      return { shape: [...h.aval.shape], e: { k: 'var', name: h.name } };
    }
    const nd = ndFrom(v, c.span);
    const data: HExpr = { k: 'array', items: nd.data.map((x) => ({ k: 'lit', value: x })) };
    return { shape: nd.shape, e: { k: 'object', entries: [['shape', { k: 'array', items: nd.shape.map((d) => ({ k: 'lit', value: d })) }], ['dtype', { k: 'lit', value: nd.dtype }], ['data', data]] } };
  };
  const [x, y] = [operand(a), operand(b)];
  const size = (s: number[]): number => s.reduce((p, q) => p * q, 1);
  if (x.shape.join() !== y.shape.join() && size(x.shape) !== 1 && size(y.shape) !== 1) {
    const header = kind === 'close' ? `Not equal to tolerance rtol=${tol.rtol}, atol=${tol.atol}` : kind === 'equal' ? 'Arrays are not equal' : `Arrays are not almost equal to ${tol.decimal} decimals`;
    throw new CompileError(`AssertionError: \n${header}\n${errMsg}\n(shapes ${fmtShape(x.shape)}, ${fmtShape(y.shape)} mismatch)`, c.span);
  }
  const tolExpr: HExpr = { k: 'object', entries: [['rtol', { k: 'lit', value: tol.rtol }], ['atol', { k: 'lit', value: tol.atol }], ['equalNan', { k: 'lit', value: tol.equalNan }], ['decimal', { k: 'lit', value: tol.decimal }]] };
  ip.emit({ k: 'expr', e: { k: 'call', callee: 'jx.assertClose', args: [{ k: 'lit', value: kind }, x.e, y.e, tolExpr, { k: 'lit', value: errMsg }, { k: 'lit', value: c.span.start.line }], await: true } });
  return null;
}

function ndElementwise2(a: PyValue, b: PyValue, f: (x: number, y: number) => number, span: Span): NdArray | NpScalar {
  const x = ndFrom(a, span);
  const y = ndFrom(b, span);
  const shape = broadcastShapes(x.shape, y.shape, span);
  const bx = ndBroadcast(x, shape);
  const by = ndBroadcast(y, shape);
  const float = x.dtype.startsWith('float') || y.dtype.startsWith('float');
  const dtype: NdArray['dtype'] = float ? (x.dtype === 'float32' && (y.dtype === 'float32' || !(b instanceof NdArray)) ? 'float32' : 'float64') : 'int64';
  const data = bx.data.map((u, i) => (Number.isNaN(u) || Number.isNaN(by.data[i]!) ? NaN : f(u, by.data[i]!)));
  return shape.length ? new NdArray(shape, dtype, data) : new NpScalar(dtype, data[0]!);
}

/** np.stack / np.concatenate: of JAX arrays, jnp's; of NumPy values known at run time, the program's; else now. */
function join(ip: Interp, jnp: PyModule, how: 'stack' | 'concatenate', c: CallArgs): PyValue {
  const items = iterate(ip, arg(c, 0, 'arrays'), c.span);
  if (hasJaxArray(items)) return callJnp(jnp, how, c);
  const axis = intArg(arg(c, 1, 'axis', 0n), 'axis', c.span);
  if (items.some(isHostNd)) return hostNdJoin(ip, how, items, axis, c.span);
  return (how === 'stack' ? ndStack : ndConcatenate)(items.map((x) => ndFrom(x, c.span)), axis, c.span);
}

const shapeOf = (v: PyValue, span: Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs([v], span));

const hasJaxArray = (xs: PyValue[]): boolean => xs.some((x) => isArray(x) || ((x instanceof PyList || x instanceof PyTuple) && hasJaxArray(x.items)));

function callJnp(jnp: PyModule, name: string, c: CallArgs): PyValue {
  const f = jnp.attrs.get(name);
  if (!(f instanceof PyBuiltin)) throw new Error(`internal: jax.numpy.${name} is missing`);
  return f.fn(c);
}

/** A NumPy dtype argument (np.float32, 'int32', Python's bool/int/float: NumPy's 64-bit int and float) a host array can have. */
function npDtypeArg(v: PyValue, span: Span): NdArray['dtype'] | undefined {
  if (v === null) return undefined;
  if (v instanceof PyBuiltin && (v.name === 'int' || v.name === 'float')) return v.name === 'int' ? 'int64' : 'float64';
  const name = v instanceof PyDType ? v.name : typeof v === 'string' ? (v === 'bool_' ? 'bool' : v) : v instanceof PyBuiltin && v.name === 'bool' ? 'bool' : null;
  if (name !== null && ['float64', 'float32', 'int64', 'int32', 'uint32', 'bool'].includes(name)) return name as NdArray['dtype'];
  throw new CompileError(`jaxts: a host NumPy array of dtype ${name ?? pyTypeName(v)} is not supported`, span);
}

/** The device dtypes a NumPy array read back from a JAX array can have in jaxts (the others stay JAX arrays). */
const READBACK_DTYPES = ['float32', 'int32', 'uint32', 'bool'] as const;

/**
 * A JAX array at host level read back as NumPy's copy (its __array__): the run-time NumPy array of its
 * values and dtype. Any other value (a tracer, a Python number) is returned as it is.
 */
export function readBack(ip: Interp, x: PyValue, span: Span): PyValue {
  if (!ip.atHost || !(x instanceof HostArray || (x instanceof Tracer && x.trace.kind === 'segment'))) return x;
  const dtype = READBACK_DTYPES.find((d) => d === x.aval.dtype);
  if (!dtype) return x;
  const h = ip.hostArray(x, span);
  ip.flush();
  return hostNdFromDevice(ip, h, dtype);
}

/**
 * np.array / np.asarray. Of JAX arrays (a readback), the values stay the device array: NumPy's
 * copy has the same dtype and values, and prints the same (jax.device_get makes the NumPy array).
 */
function npArray(ip: Interp, c: CallArgs, jnp: PyModule): PyValue {
  const v = arg(c, 0, 'object');
  const d = c.kwargs.get('dtype') ?? c.args[1];
  if ((v instanceof PyList || v instanceof PyTuple) && v.items.some((x) => x instanceof PyDevice)) return deviceArrayOf(ip, v, c.span);
  if (v instanceof PyDeviceArray) return v;
  // a traced value has no NumPy value: JAX's TracerArrayConversionError
  if (v instanceof Tracer && v.trace.kind !== 'segment') throw new CompileError(arrayConversionMessage(v), c.span);
  if (isArray(v) || ((v instanceof PyList || v instanceof PyTuple) && hasJaxArray(v.items))) return callJnp(jnp, 'asarray', c);
  if (v instanceof HostNd) return d instanceof PyDType ? hostNdAstype(ip, v, d.name as NdArray['dtype']) : v;
  if ((v instanceof PyList || v instanceof PyTuple) && runTimeNumberList(v)) {
    const x = hostNdFromList(ip, v, c.span);
    return d === undefined ? x : hostNdAstype(ip, x, npDtype(d, c.span));
  }
  if ((v instanceof PyList || v instanceof PyTuple) && v.items.some(isHostNd)) {
    const x = hostNdJoin(ip, 'stack', v.items, 0, c.span);
    return d instanceof PyDType ? hostNdAstype(ip, x, d.name as NdArray['dtype']) : x;
  }
  return ndFrom(v, c.span, d instanceof PyDType ? (d.name as NdArray['dtype']) : undefined);
}
