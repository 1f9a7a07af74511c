// NumPy's legacy global RNG (`np.random.seed`, `normal`, `uniform`, `rand`,
// `randn`, `random`, `randint`, `choice`, `permutation`), RandomState and
// default_rng's Generator, run inside the compiler: NumPy values are
// compile-time values, so the draws become constants. The bit generators
// (runtime/numpy/mt19937.ts, pcg64.ts) are the ones generated code runs: where
// a draw must happen at run time (in a loop that stays a loop, or an array too
// large to build now), the generator's state moves to the program there
// (src/lower/host_numpy.ts) and later draws are run-time NumPy values.
import { CompileError } from '../common/diagnostics.js';
import { MT19937, N } from '../../runtime/numpy/mt19937.js';
import type * as A from '../parser/ast.js';
import { fmtShape } from './arrays.js';
import { shapeArgs } from './modules.js';
import { checkItems, checkShape, MAX_STATIC_ITEMS } from './limits.js';
import type { Interp } from './interp.js';
import { ndBinary, ndFrom } from './ndarray.js';
import { PCG64, seedSequenceWords, uint32Words } from '../../runtime/numpy/pcg64.js';
import type { HExpr } from '../ir/host.js';
import { declareGen, hostNd, hostNdIndex, PromoteRng, runTimeDraw, runTimeGen, runTimeGetState, runTimeSetState } from './host_numpy.js';
import {
  HostNd, HostScalar, NdArray, NpScalar, PyBuiltin, PyDType, PyInstance, PyList, PyModule, PyNativeMethod, PyTuple, PyUserClass, isArray, typeName, type CallArgs, type PyValue,
} from './values.js';

// ------------------------------------------------------------ the `np.random` module

const states = new WeakMap<Interp, MT19937>();

/** The global RandomState of one compilation; unseeded, it starts from fresh entropy, as NumPy's does. */
function stateOf(ip: Interp): MT19937 {
  let st = states.get(ip);
  if (!st) {
    st = new MT19937();
    st.seedByArray(Array.from(crypto.getRandomValues(new Uint32Array(N))));
    states.set(ip, st);
  }
  return st;
}

type Num = number | NdArray;
type Fn = (c: CallArgs) => PyValue;

/** Positional-or-keyword arguments by name, as a Python signature binds them. */
function bind(c: CallArgs, fname: string, names: string[]): (PyValue | undefined)[] {
  if (c.args.length > names.length) {
    throw new CompileError(`TypeError: ${fname}() takes at most ${names.length} positional arguments (${c.args.length} given)`, c.span);
  }
  for (const k of c.kwargs.keys()) {
    if (!names.includes(k)) throw new CompileError(`TypeError: ${fname}() got an unexpected keyword argument '${k}'`, c.span);
  }
  return names.map((n, i) => (i < c.args.length ? c.args[i] : c.kwargs.get(n)));
}

export function numpyRandomModule(ip: Interp): PyModule {
  /** The RandomState whose method is running (its functions are the module's), else null: the global state. */
  let bound: MT19937 | null = null;
  /** Every draw changes the compile-time state: not possible in a loop that stays a loop at run time. */
  const rng = (fname: string, span: A.Span): MT19937 => {
    const g = bound ?? stateOf(ip);
    if (runTimeGen(g) !== null) throw new CompileError(`np.random.${fname} after draws that happen at run time is not supported by jaxts`, span);
    if (ip.dynamicDepth > 0) throw new PromoteRng(g, `np.random.${fname} inside a loop that runs on the host`, span);
    return g;
  };
  /**
   * Where `g` draws `count` values at run time, its TS variable: its state is in the program already, the
   * draw is in a loop that stays a loop (the loop lowers again with the state declared before it), or the
   * values are too many to build now (the state moves to the program here). Null: a compile-time draw.
   */
  const runTime = (g: MT19937 | PCG64, fname: string, shape: readonly number[] | null, span: A.Span): string | null => {
    const name = runTimeGen(g);
    if (name !== null) return name;
    if (ip.dynamicDepth > 0) throw new PromoteRng(g, `np.random.${fname} inside a loop that runs on the host`, span);
    if (shape && prod(shape) > MAX_STATIC_ITEMS) return declareGen(ip, g);
    if (shape) checkShape(shape, span);
    return null;
  };
  const legacyGen = (): MT19937 => bound ?? stateOf(ip);
  /** A draw whose parameters must be plain numbers at run time (arrays of parameters are compile-time only). */
  const scalarParams = (params: Num[], fname: string, span: A.Span): number[] => {
    if (params.some((p) => typeof p !== 'number')) throw new CompileError(`np.random.${fname} with array parameters at run time is not supported by jaxts`, span);
    return params as number[];
  };
  const nums = (xs: number[]): HExpr[] => xs.map((x) => ({ k: 'lit', value: x }));
  const value = (v: PyValue, what: string, span: A.Span): ReturnType<Interp['static']> => {
    if (isArray(v)) {
      throw new CompileError(`np.random: ${what} is a JAX array; NumPy's RNG runs at compile time and needs NumPy values or Python numbers`, span);
    }
    return ip.static(v, what, span);
  };
  const pyInt = (v: PyValue, what: string, span: A.Span): bigint => {
    v = value(v, what, span);
    if (typeof v === 'bigint') return v;
    if (typeof v === 'boolean') return v ? 1n : 0n;
    if (v instanceof NpScalar && !v.dtype.startsWith('float')) return BigInt(v.value);
    throw new CompileError(`TypeError: '${typeName(v)}' object cannot be interpreted as an integer`, span);
  };
  const numParam = (v: PyValue, what: string, span: A.Span): Num => {
    v = value(v, what, span);
    if (typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'number') return Number(v);
    if (v instanceof NpScalar) return v.value;
    const nd = ndFrom(v, span);
    return nd.shape.length ? nd : nd.data[0]!;
  };
  /** `size`: None, an int, or a sequence of ints. */
  const sizeOf = (v: PyValue | undefined, span: A.Span): number[] | null => {
    if (v === undefined || v === null) return null;
    v = value(v, 'size', span);
    let s: number[];
    if (v instanceof PyTuple || v instanceof PyList) s = shapeArgs([v], span);
    else if (typeof v === 'bigint' || (v instanceof NpScalar && !v.dtype.startsWith('float'))) s = [Number(pyInt(v, 'size', span))];
    else {
      const shown = typeof v === 'number' ? String(v).replace(/^(-?\d+)$/, '$1.0') : typeName(v);
      throw new CompileError(`TypeError: expected a sequence of integers or a single integer, got '${shown}'`, span);
    }
    if (s.some((d) => d < 0)) throw new CompileError('ValueError: negative dimensions are not allowed', span);
    return s;
  };
  const dimsOf = (c: CallArgs): number[] => {
    if (c.kwargs.size) throw new CompileError(`TypeError: got an unexpected keyword argument '${[...c.kwargs.keys()][0]}'`, c.span);
    const s = c.args.map((a) => Number(pyInt(a, 'a dimension', c.span)));
    if (s.some((d) => d < 0)) throw new CompileError('ValueError: negative dimensions are not allowed', c.span);
    return s;
  };
  const f64 = (shape: number[] | null, draw: () => number): PyValue =>
    shape === null ? draw() : new NdArray(shape, 'float64', Array.from({ length: prod(shape) }, draw));

  /**
   * A continuous distribution with float parameters (NumPy's `cont`): a Python float when
   * every parameter is a scalar and size is None, else a float64 array, parameters broadcast.
   */
  const cont = (span: A.Span, params: Num[], size: number[] | null, draw: (...p: number[]) => number): PyValue => {
    if (params.every((p) => typeof p === 'number') && size === null) return draw(...(params as number[]));
    const shapes = params.map((p) => (typeof p === 'number' ? [] : p.shape));
    const full = broadcastArgs(size ? [size, ...shapes] : shapes, span);
    if (size && full.join() !== size.join()) throw new CompileError(`ValueError: size ${fmtShape(size)} is too small for parameters broadcast to ${fmtShape(full)}`, span);
    const at = params.map((p) => (typeof p === 'number' ? () => p : broadcastReader(p, full)));
    return new NdArray(full, 'float64', Array.from({ length: prod(full) }, (_, i) => draw(...at.map((g) => g(i)))));
  };
  const anyOf = (p: Num, pred: (x: number) => boolean): boolean => (typeof p === 'number' ? pred(p) : p.data.some(pred));

  const normal: Fn = (c) => {
    const [loc, scale, size] = bind(c, 'normal', ['loc', 'scale', 'size']);
    const l = numParam(loc ?? 0, 'loc', c.span);
    const s = numParam(scale ?? 1, 'scale', c.span);
    if (anyOf(s, (x) => x < 0)) throw new CompileError('ValueError: scale < 0', c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTime(legacyGen(), 'normal', sz, c.span);
    if (gen !== null) return runTimeDraw(ip, gen, 'normal', nums(scalarParams([l, s], 'normal', c.span)), sz, 'float64');
    const st = rng('normal', c.span);
    return cont(c.span, [l, s], sz, (m, sd) => m! + sd! * st.gauss());
  };
  const uniform: Fn = (c) => {
    const [low, high, size] = bind(c, 'uniform', ['low', 'high', 'size']);
    const lo = numParam(low ?? 0, 'low', c.span);
    const hi = numParam(high ?? 1, 'high', c.span);
    const range = typeof lo === 'number' && typeof hi === 'number' ? hi - lo : ndBinary('-', hi, lo, c.span);
    if (anyOf(range, (x) => !Number.isFinite(x))) throw new CompileError('OverflowError: Range exceeds valid bounds', c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTime(legacyGen(), 'uniform', sz, c.span);
    if (gen !== null) return runTimeDraw(ip, gen, 'uniform', nums(scalarParams([lo, hi], 'uniform', c.span)), sz, 'float64');
    const st = rng('uniform', c.span);
    return cont(c.span, [lo, range], sz, (a, r) => a! + r! * st.nextDouble());
  };
  const sample = (name: string): Fn => (c) => {
    const [size] = bind(c, name, ['size']);
    const sz = sizeOf(size, c.span);
    const gen = runTime(legacyGen(), name, sz, c.span);
    if (gen !== null) return runTimeDraw(ip, gen, 'random', [], sz, 'float64');
    const st = rng(name, c.span);
    return f64(sz, () => st.nextDouble());
  };
  const standardNormal: Fn = (c) => {
    const [size] = bind(c, 'standard_normal', ['size']);
    const sz = sizeOf(size, c.span);
    const gen = runTime(legacyGen(), 'standard_normal', sz, c.span);
    if (gen !== null) return runTimeDraw(ip, gen, 'standardNormal', [], sz, 'float64');
    const st = rng('standard_normal', c.span);
    return f64(sz, () => st.gauss());
  };

  const randint: Fn = (c) => {
    const [low, high, size, dtype] = bind(c, 'randint', ['low', 'high', 'size', 'dtype']);
    const dt = intDType(dtype, c.span);
    const bound = (v: PyValue, what: string): bigint => {
      v = value(v, what, c.span);
      if (typeof v === 'number' || (v instanceof NpScalar && v.dtype.startsWith('float'))) {
        const x = typeof v === 'number' ? v : v.value;
        if (!Number.isFinite(x)) throw new CompileError(`${Number.isNaN(x) ? 'ValueError' : 'OverflowError'}: cannot convert float ${x} to integer`, c.span);
        return BigInt(Math.trunc(x));
      }
      if (v instanceof NdArray || v instanceof PyList || v instanceof PyTuple) throw new CompileError('np.random.randint with array bounds is not supported at compile time', c.span);
      return pyInt(v, what, c.span);
    };
    let lo = bound(low ?? null, 'low');
    let hi: bigint;
    if (high === undefined || high === null) [lo, hi] = [0n, lo];
    else hi = bound(high, 'high');
    hi -= 1n;
    const bits = dt.dtype === 'int32' ? 31n : 63n;
    if (lo < -(1n << bits)) throw new CompileError(`ValueError: low is out of bounds for ${dt.dtype}`, c.span);
    if (hi > (1n << bits) - 1n) throw new CompileError(`ValueError: high is out of bounds for ${dt.dtype}`, c.span);
    if (lo > hi) throw new CompileError(`ValueError: ${lo === 0n ? 'high <= 0' : 'low >= high'}`, c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTime(legacyGen(), 'randint', sz, c.span);
    if (gen !== null) {
      if (sz === null && !dt.python) throw new CompileError('np.random.randint of a NumPy integer scalar at run time is not supported by jaxts', c.span);
      const args: HExpr[] = [...nums([Number(lo), Number(hi)]), { k: 'lit', value: dt.dtype }];
      return runTimeDraw(ip, gen, 'integers', args, sz, 'int64');
    }
    const st = rng('randint', c.span);
    const draw = (): bigint => lo + st.bounded(hi - lo);
    if (sz === null) return dt.python ? draw() : new NpScalar(dt.dtype, Number(draw()));
    return new NdArray(sz, dt.dtype, Array.from({ length: prod(sz) }, () => Number(draw())));
  };

  /** A shuffled copy: legacy shuffle swaps i with random_interval(i) for i = n-1 … 1. */
  const shuffledIndices = (st: MT19937, n: number): number[] => {
    const idx = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = st.interval(i);
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    return idx;
  };
  const permutation: Fn = (c) => {
    const [x] = bind(c, 'permutation', ['x']);
    if (x instanceof HostNd) return runTimePermutation(legacyGen(), x, 'permutation', c.span);
    const v = value(x ?? null, 'x', c.span);
    if (typeof v === 'bigint' || (v instanceof NpScalar && !v.dtype.startsWith('float'))) {
      const n = Math.max(Number(pyInt(v, 'x', c.span)), 0);
      const gen = runTime(legacyGen(), 'permutation', [n], c.span);
      if (gen !== null) return hostNd(ip, 'perm', { k: 'call', callee: 'jx.np.permutation', args: [{ k: 'var', name: gen }, { k: 'lit', value: n }] }, [n], 'int64');
      checkItems(n, 'a NumPy array', c.span);
      return new NdArray([n], 'int64', shuffledIndices(rng('permutation', c.span), n));
    }
    const nd = ndFrom(v, c.span);
    if (nd.shape.length && (runTimeGen(legacyGen()) !== null || ip.dynamicDepth > 0)) return runTimePermutation(legacyGen(), nd, 'permutation', c.span);
    if (!nd.shape.length) throw new CompileError('IndexError: x must be an integer or at least 1-dimensional', c.span);
    return takeRows(nd, shuffledIndices(rng('permutation', c.span), nd.shape[0]!));
  };

  const choice: Fn = (c) => {
    const [a, size, replace, p] = bind(c, 'choice', ['a', 'size', 'replace', 'p']);
    const av = value(a ?? null, 'a', c.span);
    // a list of strings: NumPy draws from its str array and gives one of the strings
    const strings = (av instanceof PyList || av instanceof PyTuple) && av.items.length && av.items.every((x) => typeof x === 'string') ? av.items : null;
    const pool = strings || typeof av === 'bigint' || typeof av === 'boolean' || (av instanceof NpScalar && !av.dtype.startsWith('float')) ? null : ndFrom(av, c.span);
    if (pool && pool.shape.length !== 1) {
      throw new CompileError(pool.shape.length ? 'ValueError: a must be 1-dimensional' : 'ValueError: a must be 1-dimensional or an integer', c.span);
    }
    if (strings && size !== undefined && size !== null) throw new CompileError('np.random.choice of strings with a size (an array of strings) is not supported by jaxts', c.span);
    const popSize = strings ? strings.length : pool ? pool.shape[0]! : Number(pyInt(av, 'a', c.span));
    const shape = sizeOf(size, c.span);
    const count = shape ? prod(shape) : 1;
    if (popSize <= 0 && count !== 0) {
      throw new CompileError(pool ? "ValueError: 'a' cannot be empty unless no samples are taken" : 'ValueError: a must be greater than 0 unless no samples are taken', c.span);
    }
    let probs: number[] | null = null;
    if (p !== undefined && p !== null) {
      const pn = ndFrom(value(p, 'p', c.span), c.span, 'float64');
      if (pn.shape.length !== 1) throw new CompileError('ValueError: p must be 1-dimensional', c.span);
      if (pn.data.length !== popSize) throw new CompileError("ValueError: 'a' and 'p' must have same size", c.span);
      if (pn.data.some((x) => Number.isNaN(x))) throw new CompileError('ValueError: probabilities contain NaN', c.span);
      if (pn.data.some((x) => x < 0)) throw new CompileError('ValueError: probabilities are not non-negative', c.span);
      if (Math.abs(kahanSum(pn.data) - 1) > 1.4901161193847656e-8) throw new CompileError('ValueError: probabilities do not sum to 1', c.span);
      probs = [...pn.data];
    }
    const rep = replace === undefined ? true : value(replace, 'replace', c.span);
    const gen = runTime(legacyGen(), 'choice', shape, c.span);
    if (gen !== null && strings) throw new CompileError('np.random.choice of strings with its generator at run time is not supported by jaxts', c.span);
    if (gen !== null) return runTimeChoice(gen, pool, popSize, shape, rep !== false && rep !== 0n, probs !== null, true, c.span);
    let idx: number[];
    if (rep !== false && rep !== 0n) {
      const st = rng('choice', c.span);
      idx = Array.from({ length: count }, probs ? ((cdf) => () => searchRight(cdf, st.nextDouble()))(normalizedCdf(probs)) : () => Number(st.bounded(BigInt(popSize - 1))));
    } else {
      if (count > popSize) throw new CompileError("ValueError: Cannot take a larger sample than population when 'replace=False'", c.span);
      if (probs && probs.filter((x) => x > 0).length < count) throw new CompileError('ValueError: Fewer non-zero entries in p than size', c.span);
      const st = rng('choice', c.span);
      if (!probs) checkItems(popSize, 'a NumPy array', c.span);
      if (!probs) idx = shuffledIndices(st, popSize).slice(0, count);
      else {
        idx = [];
        while (idx.length < count) {
          const xs = Array.from({ length: count - idx.length }, () => st.nextDouble());
          for (const i of idx) probs[i] = 0;
          const cdf = normalizedCdf(probs);
          const fresh: number[] = [];
          for (const x of xs) {
            const j = searchRight(cdf, x);
            if (!fresh.includes(j)) fresh.push(j);
          }
          idx.push(...fresh);
        }
      }
    }
    if (strings) return strings[idx[0]!]!;
    if (!pool) return shape === null ? BigInt(idx[0]!) : new NdArray(shape, 'int64', idx);
    if (shape === null) return new NpScalar(pool.dtype, pool.data[idx[0]!]!);
    return new NdArray(shape, pool.dtype, idx.map((i) => pool.data[i]!));
  };

  const seed: Fn = (c) => {
    const [s] = bind(c, 'seed', ['seed']);
    const v = value(s ?? null, 'seed', c.span);
    if (v === null) throw new CompileError('np.random.seed() without a seed draws OS entropy; jaxts runs NumPy\'s RNG at compile time and needs a fixed seed', c.span);
    const gen = runTimeGen(legacyGen());
    if (gen !== null && (typeof v === 'bigint' || typeof v === 'boolean')) {
      if (BigInt(v) < 0n || BigInt(v) > 0xffffffffn) throw new CompileError('ValueError: Seed must be between 0 and 2**32 - 1', c.span);
      ip.emit({ k: 'expr', e: { k: 'call', callee: `${gen}.seed`, args: [{ k: 'lit', value: Number(v) }] } });
      return null;
    }
    const st = rng('seed', c.span);
    if (typeof v === 'bigint' || typeof v === 'boolean' || (v instanceof NpScalar && !v.dtype.startsWith('float'))) {
      const n = pyInt(v, 'seed', c.span);
      if (n < 0n || n > 0xffffffffn) throw new CompileError('ValueError: Seed must be between 0 and 2**32 - 1', c.span);
      st.seed(Number(n));
      return null;
    }
    const nd = ndFrom(v, c.span);
    if (nd.dtype.startsWith('float')) {
      throw new CompileError("TypeError: Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'", c.span);
    }
    if (!nd.data.length) throw new CompileError('ValueError: Seed must be non-empty', c.span);
    if (nd.shape.length !== 1) throw new CompileError('ValueError: Seed array must be 1-d', c.span);
    if (nd.data.some((x) => x < 0 || x > 0xffffffff)) throw new CompileError('ValueError: Seed must be between 0 and 2**32 - 1', c.span);
    st.seedByArray(nd.data);
    return null;
  };

  // get_state(): ('MT19937', key (uint32[624]), pos, has_gauss, cached_gaussian)
  const getState: Fn = (c) => {
    const [legacy] = bind(c, 'get_state', ['legacy']);
    if (legacy !== undefined && value(legacy, 'legacy', c.span) === false) throw new CompileError('np.random.get_state(legacy=False) is not supported by jaxts', c.span);
    const g = bound ?? stateOf(ip);
    const gen = runTimeGen(g);
    if (gen !== null) return runTimeGetState(ip, gen);
    const st = rng('get_state', c.span).state();
    return new PyTuple(['MT19937', new NdArray([N], 'uint32', st.key), BigInt(st.pos), BigInt(st.hasGauss ? 1 : 0), st.gauss]);
  };
  const setState: Fn = (c) => {
    const [state] = bind(c, 'set_state', ['state']);
    const v = value(state ?? null, 'state', c.span);
    const items = v instanceof PyTuple || v instanceof PyList ? v.items : null;
    if (!items || (items.length !== 3 && items.length !== 5)) throw new CompileError('ValueError: state must be a dict or a tuple.', c.span);
    if (items[0] !== 'MT19937') throw new CompileError('ValueError: set_state can only be used with legacy MT19937 state instances.', c.span);
    const g = bound ?? stateOf(ip);
    // a state known only at run time, or a generator whose draws happen at run time: set it in the program
    if (runTimeGen(g) !== null || items.some((x) => x instanceof HostNd || x instanceof HostScalar)) {
      if (ip.dynamicDepth > 0 && runTimeGen(g) === null) throw new PromoteRng(g, 'np.random.set_state inside a loop that runs on the host', c.span);
      runTimeSetState(ip, runTimeGen(g) ?? declareGen(ip, g), items, c.span);
      return null;
    }
    const key = ndFrom(value(items[1]!, 'state', c.span), c.span);
    if (key.data.length !== N) throw new CompileError('ValueError: state must be 624 elements', c.span);
    const num = (x: PyValue | undefined, d: number): number => (x === undefined ? d : Number(typeof x === 'object' && x instanceof NpScalar ? x.value : (x as number | bigint | boolean)));
    rng('set_state', c.span).setState(key.data.map((x) => x >>> 0), num(items[2], N), num(items[3], 0) !== 0, num(items[4], 0));
    return null;
  };

  // ------------------------------------------------------------ numpy.random.Generator (default_rng: PCG64)
  const generators = new WeakMap<PyValue & object, PCG64>();
  const generatorCls = new PyUserClass('Generator', [], 'numpy.random');
  /** A Generator method: `draw` gives the bit generator once the arguments are checked (a draw changes compile-time state). */
  const method = (name: string, f: (c: CallArgs, draw: () => PCG64, runTimeName: (shape: readonly number[] | null) => string | null) => PyValue): void => {
    generatorCls.attrs.set(name, new PyNativeMethod(name, (self, c) => {
      const g = generators.get(self as PyInstance)!;
      return f(
        c,
        () => {
          if (runTimeGen(g) !== null) throw new CompileError(`Generator.${name} after draws that happen at run time is not supported by jaxts`, c.span);
          if (ip.dynamicDepth > 0) throw new PromoteRng(g, `Generator.${name} inside a loop that runs on the host`, c.span);
          return g;
        },
        (shape) => runTime(g, `Generator.${name}`, shape, c.span),
      );
    }));
  };
  const floatDtype = (d: PyValue | undefined, span: A.Span): void => {
    const name = d === undefined || d === null ? 'float64' : d instanceof PyDType ? d.name : typeof d === 'string' ? d : typeName(d);
    if (name !== 'float64') throw new CompileError(`Generator draws of dtype ${name} are not supported by jaxts (float64 is)`, span);
  };
  generatorCls.attrs.set('__repr__', new PyNativeMethod('__repr__', () => 'Generator(PCG64)'));
  method('random', (c, draw, runTimeName) => {
    const [size, dtype] = bind(c, 'random', ['size', 'dtype']);
    floatDtype(dtype, c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTimeName(sz);
    if (gen !== null) return runTimeDraw(ip, gen, 'random', [], sz, 'float64');
    const g = draw();
    return f64(sz, () => g.nextDouble());
  });
  method('standard_normal', (c, draw, runTimeName) => {
    const [size, dtype] = bind(c, 'standard_normal', ['size', 'dtype']);
    floatDtype(dtype, c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTimeName(sz);
    if (gen !== null) return runTimeDraw(ip, gen, 'standardNormal', [], sz, 'float64');
    const g = draw();
    return f64(sz, () => g.standardNormal());
  });
  method('normal', (c, draw, runTimeName) => {
    const [loc, scale, size] = bind(c, 'normal', ['loc', 'scale', 'size']);
    const l = numParam(loc ?? 0, 'loc', c.span);
    const sc = numParam(scale ?? 1, 'scale', c.span);
    if (anyOf(sc, (x) => x < 0)) throw new CompileError('ValueError: scale < 0', c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTimeName(sz);
    if (gen !== null) return runTimeDraw(ip, gen, 'normal', nums(scalarParams([l, sc], 'normal', c.span)), sz, 'float64');
    const g = draw();
    return cont(c.span, [l, sc], sz, (m, sd) => m! + sd! * g.standardNormal());
  });
  method('uniform', (c, draw, runTimeName) => {
    const [low, high, size] = bind(c, 'uniform', ['low', 'high', 'size']);
    const lo = numParam(low ?? 0, 'low', c.span);
    const hi = numParam(high ?? 1, 'high', c.span);
    const range = typeof lo === 'number' && typeof hi === 'number' ? hi - lo : ndBinary('-', hi, lo, c.span);
    if (anyOf(range, (x) => !Number.isFinite(x))) throw new CompileError('OverflowError: Range exceeds valid bounds', c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTimeName(sz);
    if (gen !== null) return runTimeDraw(ip, gen, 'uniform', nums(scalarParams([lo, hi], 'uniform', c.span)), sz, 'float64');
    const g = draw();
    return cont(c.span, [lo, range], sz, (a, r) => a! + r! * g.nextDouble());
  });
  method('integers', (c, draw, runTimeName) => {
    const [low, high, size, dtype, endpoint] = bind(c, 'integers', ['low', 'high', 'size', 'dtype', 'endpoint']);
    const python = dtype instanceof PyBuiltin && dtype.name === 'int';
    const dt = python ? { dtype: 'int64' as const } : intDType(dtype ?? new PyDType('int64', true), c.span);
    const bound = (v: PyValue, what: string): bigint => {
      v = value(v, what, c.span);
      if (v instanceof NdArray || v instanceof PyList || v instanceof PyTuple) throw new CompileError('Generator.integers with array bounds is not supported at compile time', c.span);
      return pyInt(v, what, c.span);
    };
    let lo = bound(low ?? null, 'low');
    let hi: bigint;
    if (high === undefined || high === null) [lo, hi] = [0n, lo];
    else hi = bound(high, 'high');
    const closed = endpoint !== undefined && value(endpoint, 'endpoint', c.span) === true;
    if (!closed) hi -= 1n;
    const bits = dt.dtype === 'int32' ? 31n : 63n;
    if (lo < -(1n << bits)) throw new CompileError(`ValueError: low is out of bounds for ${dt.dtype}`, c.span);
    if (hi > (1n << bits) - 1n) throw new CompileError(`ValueError: high is out of bounds for ${dt.dtype}`, c.span);
    if (lo > hi) throw new CompileError(`ValueError: ${closed ? 'low > high' : 'low >= high'}`, c.span);
    const sz = sizeOf(size, c.span);
    const gen = runTimeName(sz);
    if (gen !== null) {
      if (sz === null && !python) throw new CompileError('Generator.integers of a NumPy integer scalar at run time is not supported by jaxts', c.span);
      return runTimeDraw(ip, gen, 'integers', [...nums([Number(lo), Number(hi)]), { k: 'lit', value: dt.dtype }], sz, 'int64');
    }
    const g = draw();
    const one = (): bigint => lo + g.bounded(hi - lo);
    if (sz === null) return python ? one() : new NpScalar(dt.dtype, Number(one()));
    return new NdArray(sz, dt.dtype, Array.from({ length: prod(sz) }, () => Number(one())));
  });
  /** Generator.shuffle's order: swap i with random_interval(i) for i = n-1 … 1. */
  const intervalShuffle = <T>(g: PCG64, xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = g.interval(i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  /** _shuffle_int: swap i with a Lemire-bounded draw in [0, i] for i = n-1 … first. */
  const boundedShuffle = (g: PCG64, xs: number[], first: number): void => {
    for (let i = xs.length - 1; i >= first; i--) {
      const j = Number(g.bounded(BigInt(i)));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
  };
  method('permutation', (c, draw, runTimeName) => {
    const [x] = bind(c, 'permutation', ['x', 'axis']);
    if (x instanceof HostNd) return runTimePermutation(draw, x, 'Generator.permutation', c.span, runTimeName);
    const v = value(x ?? null, 'x', c.span);
    if (typeof v === 'bigint' || (v instanceof NpScalar && !v.dtype.startsWith('float'))) {
      const n = Math.max(Number(pyInt(v, 'x', c.span)), 0);
      const gen = runTimeName([n]);
      if (gen !== null) return hostNd(ip, 'perm', { k: 'call', callee: 'jx.np.permutation', args: [{ k: 'var', name: gen }, { k: 'lit', value: n }] }, [n], 'int64');
      checkItems(n, 'a NumPy array', c.span);
      return new NdArray([n], 'int64', intervalShuffle(draw(), Array.from({ length: n }, (_, i) => i)));
    }
    const nd = ndFrom(v, c.span);
    if (!nd.shape.length) throw new CompileError('numpy.exceptions.AxisError: axis 0 is out of bounds for array of dimension 0', c.span);
    if (runTimeName(null) !== null) return runTimePermutation(draw, nd, 'Generator.permutation', c.span, runTimeName);
    return takeRows(nd, intervalShuffle(draw(), Array.from({ length: nd.shape[0]! }, (_, i) => i)));
  });
  method('shuffle', (c, draw) => {
    const [x] = bind(c, 'shuffle', ['x', 'axis']);
    const v = value(x ?? null, 'x', c.span);
    if (v instanceof PyList) {
      intervalShuffle(draw(), v.items);
      return null;
    }
    if (!(v instanceof NdArray) || !v.shape.length) throw new CompileError(`TypeError: Generator.shuffle of a ${typeName(v)} is not supported (a list or a NumPy array is)`, c.span);
    const rows = takeRows(v, intervalShuffle(draw(), Array.from({ length: v.shape[0]! }, (_, i) => i)));
    rows.data.forEach((d, i) => (v.data[i] = d));
    return null;
  });
  method('choice', (c, draw, runTimeName) => {
    const [a, size, replace, p, , shuffle] = bind(c, 'choice', ['a', 'size', 'replace', 'p', 'axis', 'shuffle']);
    const av = value(a ?? null, 'a', c.span);
    const pool = typeof av === 'bigint' || typeof av === 'boolean' || (av instanceof NpScalar && !av.dtype.startsWith('float')) ? null : ndFrom(av, c.span);
    if (pool && !pool.shape.length) throw new CompileError('ValueError: a must be a sequence or an integer, not <class \'float\'>', c.span);
    const popSize = pool ? pool.shape[0]! : Number(pyInt(av, 'a', c.span));
    const shape = sizeOf(size, c.span);
    const count = shape ? prod(shape) : 1;
    if (popSize <= 0 && count !== 0) {
      throw new CompileError(pool ? "ValueError: a cannot be empty unless no samples are taken" : 'ValueError: a must be a positive integer unless no samples are taken', c.span);
    }
    let probs: number[] | null = null;
    if (p !== undefined && p !== null) {
      const pn = ndFrom(value(p, 'p', c.span), c.span, 'float64');
      if (pn.shape.length !== 1) throw new CompileError('ValueError: p must be 1-dimensional', c.span);
      if (pn.data.length !== popSize) throw new CompileError('ValueError: a and p must have same size', c.span);
      const sum = kahanSum(pn.data);
      if (Number.isNaN(sum)) throw new CompileError('ValueError: Probabilities contain NaN', c.span);
      if (pn.data.some((x) => x < 0)) throw new CompileError('ValueError: Probabilities are not non-negative', c.span);
      if (Math.abs(sum - 1) > 1.4901161193847656e-8) throw new CompileError('ValueError: Probabilities do not sum to 1. See Notes section of docstring for more information.', c.span);
      probs = [...pn.data];
    }
    const rep = replace === undefined ? true : value(replace, 'replace', c.span);
    const gen = runTimeName(shape);
    if (gen !== null) return runTimeChoice(gen, pool, popSize, shape, rep !== false && rep !== 0n, probs !== null, false, c.span);
    let idx: number[];
    if (rep !== false && rep !== 0n) {
      const g = draw();
      if (probs) {
        const cdf = normalizedCdf(probs);
        idx = Array.from({ length: count }, () => searchRight(cdf, g.nextDouble()));
      } else idx = Array.from({ length: count }, () => Number(g.bounded(BigInt(popSize - 1))));
    } else {
      if (count > popSize) throw new CompileError('ValueError: Cannot take a larger sample than population when replace is False', c.span);
      if (probs && probs.filter((x) => x > 0).length < count) throw new CompileError('ValueError: Fewer non-zero entries in p than size', c.span);
      const g = draw();
      if (probs) {
        idx = [];
        while (idx.length < count) {
          const xs = Array.from({ length: count - idx.length }, () => g.nextDouble());
          for (const i of idx) probs[i] = 0;
          const cdf = normalizedCdf(probs);
          for (const x of xs) {
            const j = searchRight(cdf, x);
            if (!idx.includes(j) && idx.length < count) idx.push(j);
          }
        }
      } else if (popSize > 10000 && count > Math.floor(popSize / (shuffle === false ? 20 : 50))) {
        checkItems(popSize, 'a NumPy array', c.span);
        const all = Array.from({ length: popSize }, (_, i) => i);
        boundedShuffle(g, all, Math.max(popSize - count, 1));
        idx = all.slice(popSize - count);
      } else {
        // Floyd's algorithm over an open-addressing set, as NumPy draws it
        let mask = Math.floor(1.2 * count);
        for (let sh = 1; sh <= 16; sh *= 2) mask |= mask >>> sh;
        const set = new Array<number>(mask + 1).fill(-1);
        idx = [];
        for (let j = popSize - count; j < popSize; j++) {
          const val = Number(g.bounded(BigInt(j)));
          let loc = val & mask;
          while (set[loc] !== -1 && set[loc] !== val) loc = (loc + 1) & mask;
          if (set[loc] === -1) {
            set[loc] = val;
            idx.push(val);
          } else {
            loc = j & mask;
            while (set[loc] !== -1) loc = (loc + 1) & mask;
            set[loc] = j;
            idx.push(j);
          }
        }
        if (shuffle !== false) boundedShuffle(g, idx, 1);
      }
    }
    if (!pool) return shape === null ? BigInt(idx[0]!) : new NdArray(shape, 'int64', idx);
    if (shape === null) return pool.shape.length === 1 ? new NpScalar(pool.dtype, pool.data[idx[0]!]!) : takeRows(pool, [idx[0]!]);
    const rows = takeRows(pool, idx);
    return new NdArray([...shape, ...pool.shape.slice(1)], pool.dtype, rows.data);
  });
  const defaultRng: Fn = (c) => {
    const [seedV] = bind(c, 'default_rng', ['seed']);
    const v = value(seedV ?? null, 'seed', c.span);
    if (v instanceof PyInstance && v.cls === generatorCls) return v;
    if (v === null) throw new CompileError("np.random.default_rng() without a seed draws OS entropy; jaxts runs NumPy's RNG at compile time and needs a fixed seed", c.span);
    const g = new PyInstance(generatorCls);
    generators.set(g, new PCG64(v instanceof PyInstance && v.cls === seedSequenceCls ? assembledEntropy(v, c.span) : seedWords(v, c.span)));
    return g;
  };

  // ------------------------------------------------------------ numpy.random.SeedSequence
  /** A seed (an int, or ints in sequences or arrays) as NumPy's 32-bit words (_coerce_to_uint32_array). */
  const seedWords = (x: PyValue, span: A.Span): number[] => {
    if (x instanceof PyList || x instanceof PyTuple) return x.items.flatMap((y) => seedWords(y, span));
    if (x instanceof NdArray) return x.data.flatMap((d) => seedWords(BigInt(d), span));
    const n = pyInt(x, 'seed', span);
    if (n < 0n) throw new CompileError('ValueError: expected non-negative integer', span);
    return uint32Words(n);
  };
  const seedSequenceCls = new PyUserClass('SeedSequence', [], 'numpy.random');
  const ssAttr = (self: PyValue, name: string): PyValue => (self as PyInstance).attrs.get(name) ?? null;
  /** get_assembled_entropy: the entropy's words, padded to the pool size (4) when a spawn key follows. */
  const assembledEntropy = (self: PyValue, span: A.Span): number[] => {
    const run = seedWords(ssAttr(self, 'entropy'), span);
    const spawn = seedWords(ssAttr(self, 'spawn_key'), span);
    return [...run, ...(spawn.length && run.length < 4 ? new Array<number>(4 - run.length).fill(0) : []), ...spawn];
  };
  const ssMethod = (name: string, f: (self: PyInstance, c: CallArgs) => PyValue): void => void seedSequenceCls.attrs.set(name, new PyNativeMethod(name, (self, c) => f(self as PyInstance, c)));
  ssMethod('__init__', (self, c) => {
    const [entropy, spawnKey] = bind(c, 'SeedSequence', ['entropy', 'spawn_key']);
    if (entropy === undefined || entropy === null) throw new CompileError("np.random.SeedSequence() without entropy draws OS entropy; jaxts runs NumPy's RNG at compile time and needs a fixed seed", c.span);
    seedWords(entropy, c.span);
    self.attrs.set('entropy', entropy);
    self.attrs.set('spawn_key', new PyTuple(spawnKey instanceof PyList || spawnKey instanceof PyTuple ? spawnKey.items : []));
    self.attrs.set('pool_size', 4n);
    self.attrs.set('n_children_spawned', 0n);
    return null;
  });
  ssMethod('spawn', (self, c) => {
    const [nV] = bind(c, 'spawn', ['n_children']);
    const n = pyInt(nV ?? null, 'n_children', c.span);
    const first = ssAttr(self, 'n_children_spawned') as bigint;
    self.attrs.set('n_children_spawned', first + n);
    return new PyList(Array.from({ length: Number(n) }, (_, i) => {
      const child = new PyInstance(seedSequenceCls);
      for (const k of ['entropy', 'pool_size']) child.attrs.set(k, ssAttr(self, k));
      child.attrs.set('spawn_key', new PyTuple([...(ssAttr(self, 'spawn_key') as PyTuple).items, first + BigInt(i)]));
      child.attrs.set('n_children_spawned', 0n);
      return child;
    }));
  });
  ssMethod('generate_state', (self, c) => {
    const [nV, dtype] = bind(c, 'generate_state', ['n_words', 'dtype']);
    const n = Number(pyInt(nV ?? null, 'n_words', c.span));
    const dt = dtype === undefined ? 'uint32' : dtype instanceof PyDType ? dtype.name : typeof dtype === 'string' ? dtype : typeName(dtype);
    if (dt !== 'uint32') throw new CompileError(`NotImplementedError: SeedSequence.generate_state with dtype ${dt} is not supported by jaxts (uint32 is)`, c.span);
    return new NdArray([n], 'uint32', seedSequenceWords(assembledEntropy(self, c.span), n));
  });
  ssMethod('__repr__', (self, c) => {
    const show = (k: string): string => ip.repr(ssAttr(self, k), c.span).static ?? '…';
    const lines = ['SeedSequence(', `    entropy=${show('entropy')},`];
    if ((ssAttr(self, 'spawn_key') as PyTuple).items.length) lines.push(`    spawn_key=${show('spawn_key')},`);
    if (ssAttr(self, 'n_children_spawned') !== 0n) lines.push(`    n_children_spawned=${show('n_children_spawned')},`);
    return [...lines, ')'].join('\n');
  });

  /** permutation(x) of an array at run time: its rows shuffled by the program. */
  function runTimePermutation(g: MT19937 | (() => PCG64), x: HostNd | NdArray, fname: string, span: A.Span, runTimeName?: (s: null) => string | null): HostNd {
    const gen = runTimeName ? runTimeName(null) : runTime(g as MT19937, fname, null, span);
    if (gen === null) {
      if (!(x instanceof HostNd)) throw new Error('internal: a compile-time permutation reached run time');
      throw new CompileError(`${fname} of a NumPy array known only at run time needs its generator at run time (draw with it in the loop)`, span);
    }
    if (!x.shape.length) throw new CompileError('IndexError: x must be an integer or at least 1-dimensional', span);
    const arg: HExpr = x instanceof HostNd ? { k: 'var', name: x.name } : { k: 'call', callee: 'jx.np.array', args: [{ k: 'array', items: x.shape.map((d) => ({ k: 'lit', value: d })) }, { k: 'lit', value: x.dtype }, { k: 'array', items: x.data.map((d) => ({ k: 'lit', value: d })) }] };
    return hostNd(ip, 'perm', { k: 'call', callee: 'jx.np.permuteRows', args: [{ k: 'var', name: gen }, arg] }, x.shape, x.dtype);
  }
  /** choice(a, size, replace) at run time: integers (or items of `pool`) drawn by the program. */
  function runTimeChoice(gen: string, pool: NdArray | null, popSize: number, shape: number[] | null, replace: boolean, weighted: boolean, legacy: boolean, span: A.Span): PyValue {
    if (weighted) throw new CompileError('np.random.choice with p= at run time is not supported by jaxts', span);
    if (!replace && (!legacy || shape === null)) throw new CompileError('choice(..., replace=False) at run time is supported for np.random.choice with a size only', span);
    const g: HExpr = { k: 'var', name: gen };
    const idx: PyValue = replace
      ? runTimeDraw(ip, gen, 'choice', [{ k: 'lit', value: popSize }], shape, 'int64')
      : hostNd(ip, 'idx', { k: 'call', callee: 'jx.np.choiceWithoutReplacement', args: [g, { k: 'lit', value: popSize }, { k: 'array', items: shape!.map((d) => ({ k: 'lit', value: d })) }] }, shape!, 'int64');
    if (!pool) return idx;
    if (pool.shape.length !== 1 || !(idx instanceof HostNd)) throw new CompileError('choice of the items of an array at run time is supported for 1-d arrays with a size', span);
    return hostNdIndex(ip, pool, idx, span, () => false, () => null);
  }

  /** randn / rand: the shape as separate int arguments; `runName` is the draw in runtime/numpy/random.ts. */
  const byDims = (name: string, runName: string, draw: (st: MT19937) => number): Fn => (c) => {
    const s = dimsOf(c);
    const shape = s.length ? s : null;
    const gen = runTime(legacyGen(), name, shape, c.span);
    if (gen !== null) return runTimeDraw(ip, gen, runName, [], shape, 'float64');
    const st = rng(name, c.span);
    return f64(shape, () => draw(st));
  };

  const fn = (name: string, f: Fn): PyBuiltin => new PyBuiltin(name, f);
  /** The legacy functions: the module's draw from the global state, a RandomState's methods from its own. */
  const legacy: [string, Fn][] = [
    ['seed', seed],
    ['get_state', getState],
    ['set_state', setState],
    ['normal', normal],
    ['uniform', uniform],
    ['standard_normal', standardNormal],
    ['randn', byDims('randn', 'standardNormal', (st) => st.gauss())],
    ['rand', byDims('rand', 'random', (st) => st.nextDouble())],
    ['random', sample('random')],
    ['random_sample', sample('random_sample')],
    ['ranf', sample('ranf')],
    ['sample', sample('sample')],
    ['randint', randint],
    ['choice', choice],
    ['permutation', permutation],
  ];

  // ------------------------------------------------------------ numpy.random.RandomState: a legacy MT19937 of its own
  const randomStates = new WeakMap<PyValue & object, MT19937>();
  const randomStateCls = new PyUserClass('RandomState', [], 'numpy.random');
  const drawFrom = (self: PyValue, f: Fn, c: CallArgs): PyValue => {
    const outer = bound;
    bound = randomStates.get(self as PyInstance)!;
    try {
      return f(c);
    } finally {
      bound = outer;
    }
  };
  randomStateCls.attrs.set('__init__', new PyNativeMethod('__init__', (self, c) => {
    const [s] = bind(c, 'RandomState', ['seed']);
    if (s === undefined || s === null) throw new CompileError("np.random.RandomState() without a seed draws OS entropy; jaxts runs NumPy's RNG at compile time and needs a fixed seed", c.span);
    randomStates.set(self as PyInstance, new MT19937());
    return drawFrom(self, seed, c);
  }));
  randomStateCls.attrs.set('__repr__', new PyNativeMethod('__repr__', () => 'RandomState(MT19937)'));
  for (const [name, f] of legacy) randomStateCls.attrs.set(name, new PyNativeMethod(name, (self, c) => drawFrom(self, f, c)));

  return new PyModule(
    'numpy.random',
    new Map<string, PyValue>([
      ...legacy.map(([name, f]): [string, PyValue] => [name, fn(name, f)]),
      ['default_rng', fn('default_rng', defaultRng)],
      ['Generator', generatorCls],
      ['RandomState', randomStateCls],
      ['SeedSequence', seedSequenceCls],
    ]),
  );
}

const prod = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

/** Element i (row-major in `shape`) of x broadcast to `shape`. */
function broadcastReader(x: NdArray, shape: readonly number[]): (i: number) => number {
  const pad = shape.length - x.shape.length;
  const strides = shape.map((_, k) => (k < pad || x.shape[k - pad] === 1 ? 0 : prod(x.shape.slice(k - pad + 1))));
  const dims = shape.map((_, k) => prod(shape.slice(k + 1)));
  return (i) => {
    let off = 0;
    for (let k = 0; k < shape.length; k++) off += Math.floor(i / dims[k]!) % shape[k]! * strides[k]!;
    return x.data[off]!;
  };
}

/** np.broadcast of several shapes, failing with NumPy's message (MultiIter's first conflicting pair). */
function broadcastArgs(shapes: readonly (readonly number[])[], span: A.Span): number[] {
  const nd = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let i = 0; i < nd; i++) {
    let d = 1;
    let src = 0;
    shapes.forEach((s, j) => {
      const t = s[i + s.length - nd] ?? 1;
      if (t === 1) return;
      if (d === 1) [d, src] = [t, j];
      else if (d !== t) {
        throw new CompileError(
          `ValueError: shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg ${src} with shape ${fmtShape(shapes[src]!)} and arg ${j} with shape ${fmtShape(s)}.`,
          span,
        );
      }
    });
    out.push(d);
  }
  return out;
}

function takeRows(x: NdArray, rows: number[]): NdArray {
  const w = prod(x.shape.slice(1));
  return new NdArray(x.shape, x.dtype, rows.flatMap((r) => x.data.slice(r * w, (r + 1) * w)));
}

function intDType(d: PyValue | undefined, span: A.Span): { dtype: 'int64' | 'int32'; python: boolean } {
  if (d === undefined || (d instanceof PyBuiltin && d.name === 'int')) return { dtype: 'int64', python: true };
  const name = d instanceof PyDType ? d.name : typeof d === 'string' ? d : null;
  if (name === 'int64' || name === 'int32') return { dtype: name, python: false };
  throw new CompileError(`np.random.randint with dtype ${name ?? typeName(d)} is not supported (int, int64 and int32 are)`, span);
}

function kahanSum(xs: readonly number[]): number {
  let sum = 0;
  let comp = 0;
  for (const x of xs) {
    const y = x - comp;
    const t = sum + y;
    comp = t - sum - y;
    sum = t;
  }
  return sum;
}

/** cumsum(p) / cumsum(p)[-1], as `choice` builds its table. */
function normalizedCdf(p: readonly number[]): number[] {
  let acc = 0;
  const cdf = p.map((x) => (acc += x));
  return cdf.map((x) => x / acc);
}

/** searchsorted(cdf, u, side='right'). */
function searchRight(cdf: readonly number[], u: number): number {
  let lo = 0;
  let hi = cdf.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! <= u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
