// The modules a lesson imports (jax, jax.numpy, numpy, os, functools, typing)
// and Python's builtins, as compile-time objects. Each function here decides
// what is static and what is traced.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type { Prim } from '../ir/prims.js';
import { jaxTypeStr, type DType } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { dtypeArg, getAttr, shapeArgs } from './attrs.js';
import { binop, iterate } from './expr.js';
import { formatOf, reprOf, strOf, textValue } from './format.js';
import type { Interp } from './interp.js';
import { ndArange, ndFrom, ndReshape, ndStack } from './numpy_static.js';
import { numpyRandomModule } from './numpy_random.js';
import { truthy } from './pyops.js';
import { Text } from './text.js';
import { filterIterator, mapIterator } from './iterators.js';
import { gradOf, jitOf, pmapOf, valueAndGradOf, vmapOf } from './transforms.js';
import { randomModule } from './lib_random.js';
import { arg, builtinModule } from './modules.js';
import { checkItems, checkShape } from './limits.js';
import { deviceArrayOf, shardingEntries } from './lib_sharding.js';
import { laxModule } from './lib_lax.js';
import { jnpExtras, nnModule, scipyModule, treeModules } from './lib_nn.js';
import {
  HostScalar, NdArray, NpScalar, PyBuiltin, PyClass, PyDevice, PyDeviceArray, PyDict, PyDType, PyList, PyModule, PyPartial, PyRange, PyTuple,
  isArray, typeName, type CallArgs, type PyValue,
} from './values.js';

type Fn = (c: CallArgs) => PyValue;

const mod = (name: string, entries: Record<string, PyValue>): PyModule => new PyModule(name, new Map(Object.entries(entries)));
const fn = (name: string, f: Fn): PyBuiltin => new PyBuiltin(name, f);

function int(ip: Interp, v: PyValue, what: string, span: A.Span): number {
  v = ip.static(v, what, span);
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  if (v instanceof NpScalar && !v.dtype.startsWith('float')) return v.value;
  throw new CompileError(`TypeError: ${what} must be an integer, got ${typeName(v)}`, span);
}

function num(ip: Interp, v: PyValue, what: string, span: A.Span): number {
  v = ip.static(v, what, span);
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  if (typeof v === 'number') return v;
  if (v instanceof NpScalar) return v.value;
  throw new CompileError(`TypeError: ${what} must be a number, got ${typeName(v)}`, span);
}

const modules = new WeakMap<Interp, Map<string, PyModule>>();

export function importModule(ip: Interp, name: string, span: A.Span): PyModule {
  let m = modules.get(ip);
  if (!m) {
    m = buildModules(ip);
    modules.set(ip, m);
  }
  const found = m.get(name);
  if (!found) throw new CompileError(`ModuleNotFoundError: No module named '${name}' (jaxts supports jax, jax.numpy, jax.lax, numpy, os, functools, typing)`, span);
  return found;
}

export function installBuiltins(ip: Interp): void {
  const b = ip.builtins.vars;
  const printFn: Fn = (c) => {
    const sep = c.kwargs.has('sep') ? strOf(ip, c.kwargs.get('sep')!, c.span) : Text.of(' ');
    const end = c.kwargs.has('end') ? strOf(ip, c.kwargs.get('end')!, c.span) : Text.of('\n');
    const sepS = sep.static ?? ' ';
    // before formatting the arguments: a traced array has no values to format
    if (!ip.atHost) throw new CompileError('print inside a traced function prints tracers in JAX; use jax.debug.print (not supported yet)', c.span);
    ip.flush(c.args);
    const text = Text.join(c.args.map((a) => strOf(ip, a, c.span)), sepS).concat(end);
    ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [text.toExpr()] } });
    return null;
  };
  const entries: Record<string, PyValue> = {
    print: fn('print', printFn),
    len: fn('len', (c) => {
      const v = arg(c, 0, 'obj');
      if (isArray(v)) {
        const s = ip.ops.aval(v, c.span).shape;
        if (!s.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(s[0]!);
      }
      if (v instanceof NdArray) {
        if (!v.shape.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(v.shape[0]!);
      }
      if (v instanceof PyDeviceArray) {
        if (!v.shape.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(v.shape[0]!);
      }
      if (v instanceof PyList || v instanceof PyTuple) return BigInt(v.items.length);
      if (v instanceof PyDict) return BigInt(v.entries.size);
      if (typeof v === 'string') return BigInt([...v].length);
      if (v instanceof PyRange) return BigInt(v.length);
      throw new CompileError(`TypeError: object of type '${typeName(v)}' has no len()`, c.span);
    }),
    range: fn('range', (c) => {
      if (c.args.length < 1 || c.args.length > 3) throw new CompileError(`TypeError: range expected ${c.args.length ? 'at most 3 arguments' : 'at least 1 argument'}, got ${c.args.length}`, c.span);
      const xs = c.args.map((a) => BigInt(int(ip, a, 'a range bound', c.span)));
      if (xs.length === 1) return new PyRange(0n, xs[0]!, 1n);
      if (xs[2] === 0n) throw new CompileError('ValueError: range() arg 3 must not be zero', c.span);
      return new PyRange(xs[0]!, xs[1]!, xs[2] ?? 1n);
    }),
    // flush first: the arrays inside a container (a tuple of fresh results) must all be materialised together
    str: fn('str', (c) => (ip.atHost && ip.flush(c.args), textValue(c.args.length ? strOf(ip, c.args[0]!, c.span) : Text.of('')))),
    repr: fn('repr', (c) => (ip.atHost && ip.flush(c.args), textValue(reprOf(ip, arg(c, 0, 'obj'), c.span)))),
    format: fn('format', (c) => (ip.atHost && ip.flush(c.args), textValue(formatOf(ip, arg(c, 0, 'value'), String(c.args[1] ?? ''), c.span)))),
    int: fn('int', (c) => toScalar(ip, c.args[0] ?? 0n, 'int', c.span)),
    float: fn('float', (c) => toScalar(ip, c.args[0] ?? 0, 'float', c.span)),
    bool: fn('bool', (c) => truthy(ip.static(c.args[0] ?? false, 'bool()', c.span), c.span)),
    list: fn('list', (c) => new PyList(c.args.length ? iterate(ip, c.args[0]!, c.span) : [])),
    tuple: fn('tuple', (c) => new PyTuple(c.args.length ? iterate(ip, c.args[0]!, c.span) : [])),
    dict: fn('dict', (c) => {
      const d = new PyDict();
      if (c.args[0] instanceof PyDict) c.args[0].entries.forEach(([k, v]) => d.set(k, v));
      c.kwargs.forEach((v, k) => d.set(k, v));
      return d;
    }),
    map: fn('map', (c) => mapIterator(ip, c)),
    filter: fn('filter', (c) => filterIterator(ip, c)),
    zip: fn('zip', (c) => {
      const lists = c.args.map((a) => iterate(ip, a, c.span));
      const n = lists.length ? Math.min(...lists.map((l) => l.length)) : 0;
      return new PyList(Array.from({ length: n }, (_, i) => new PyTuple(lists.map((l) => l[i]!))));
    }),
    enumerate: fn('enumerate', (c) => {
      const start = c.args[1] !== undefined ? BigInt(int(ip, c.args[1], 'start', c.span)) : 0n;
      return new PyList(iterate(ip, arg(c, 0, 'iterable'), c.span).map((x, i) => new PyTuple([start + BigInt(i), x])));
    }),
    sum: fn('sum', (c) => {
      const items = iterate(ip, arg(c, 0, 'iterable'), c.span);
      let acc: PyValue = c.args[1] ?? 0n;
      for (const x of items) acc = binop(ip, '+', acc, x, c.span);
      return acc;
    }),
    min: fn('min', (c) => minmax(ip, c, -1)),
    max: fn('max', (c) => minmax(ip, c, 1)),
    abs: fn('abs', (c) => {
      const v = arg(c, 0, 'x');
      if (isArray(v)) return ip.ops.unary('abs', v, c.span);
      if (typeof v === 'bigint') return v < 0n ? -v : v;
      return Math.abs(num(ip, v, 'abs()', c.span));
    }),
    round: fn('round', (c) => {
      const v = num(ip, arg(c, 0, 'number'), 'round()', c.span);
      if (c.args.length < 2) return BigInt(roundHalfEven(finiteForInt(v, c.span)));
      const d = int(ip, c.args[1]!, 'ndigits', c.span);
      return roundDigits(v, d);
    }),
    isinstance: fn('isinstance', (c) => {
      const cls = arg(c, 1, 'class_or_tuple');
      const names = cls instanceof PyTuple ? cls.items : [cls];
      return names.some((n) => n instanceof PyBuiltin && n.name === typeName(arg(c, 0, 'obj')));
    }),
    type: fn('type', (c) => classOf(arg(c, 0, 'object'))),
    None: null,
    True: true,
    False: false,
  };
  for (const [k, v] of Object.entries(entries)) b.set(k, v);
}

/** type(v): the class object, qualified by module where Python prints one. */
function classOf(v: PyValue): PyClass {
  if (isArray(v)) return new PyClass('ArrayImpl', [], new Map(), 'marker', 'jaxlib._jax');
  if (v instanceof NdArray) return new PyClass('ndarray', [], new Map(), 'marker', 'numpy');
  if (v instanceof NpScalar) return new PyClass(v.dtype, [], new Map(), 'marker', 'numpy');
  if (v instanceof PyTuple && v.cls) return v.cls;
  return new PyClass(typeName(v), [], new Map(), 'marker');
}

/** round(v, d) of a float (toFixed takes only 0 <= d <= 100). */
function roundDigits(v: number, d: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  if (d >= 0 && d <= 100) return Number(v.toFixed(d));
  if (d > 100) {
    // significant digits kept: beyond a double's, v is its own rounding; none, a signed zero
    const sig = d + Math.floor(Math.log10(Math.abs(v))) + 1;
    return sig > 100 ? v : sig <= 0 ? v * 0 : Number(v.toPrecision(sig));
  }
  if (-d > 308) return v * 0;
  const m = 10 ** -d;
  return roundHalfEven(v / m) * m;
}

/** A float about to become a Python int: NaN and infinities have no int (Python's errors). */
function finiteForInt(v: number, span: A.Span): number {
  if (Number.isNaN(v)) throw new CompileError('ValueError: cannot convert float NaN to integer', span);
  if (!Number.isFinite(v)) throw new CompileError('OverflowError: cannot convert float infinity to integer', span);
  return v;
}

function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}


function minmax(ip: Interp, c: CallArgs, sign: 1 | -1): PyValue {
  const items = c.args.length === 1 ? iterate(ip, c.args[0]!, c.span) : c.args;
  if (!items.length) throw new CompileError(`ValueError: ${sign > 0 ? 'max' : 'min'}() arg is an empty sequence`, c.span);
  let best: PyValue = items[0]!;
  for (const x of items.slice(1)) {
    const a = num(ip, x, 'a value', c.span);
    const b = num(ip, best, 'a value', c.span);
    if (sign > 0 ? a > b : a < b) best = x;
  }
  return best;
}

/** jax.config.update(name, value): the options a lesson's output depends on. */
function configUpdate(ip: Interp, c: CallArgs): null {
  const name = ip.static(arg(c, 0, 'name'), 'a config option name', c.span);
  const value = ip.static(arg(c, 1, 'val'), 'a config value', c.span);
  switch (name) {
    case 'jax_debug_nans':
      ip.flush(); // operations before the call ran without the check
      ip.debugNans = Boolean(value);
      return null;
    case 'jax_enable_x64':
      if (value) throw new CompileError('NotImplementedError: jax_enable_x64 is not supported by jaxts (arrays are 32-bit, as JAX makes them by default)', c.span);
      return null;
    case 'jax_platform_name':
    case 'jax_platforms':
    case 'jax_default_matmul_precision':
      return null; // jaxts picks its backend at run time; float32 matmuls are what it computes
    default:
      throw new CompileError(`NotImplementedError: jax.config option ${typeof name === 'string' ? name : String(name)} is not supported by jaxts`, c.span);
  }
}

/** int(x) / float(x): static conversion, or a readback of a 0-d array. */
function toScalar(ip: Interp, v: PyValue, kind: 'int' | 'float', span: A.Span): PyValue {
  if (isArray(v)) {
    const aval = ip.ops.aval(v, span);
    if (aval.shape.length !== 0) throw new CompileError(`TypeError: only length-1 arrays can be converted to Python scalars`, span);
    if (!ip.atHost) {
      throw new CompileError(`ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape ${jaxTypeStr(aval)}`, span, [
        `The problem arose with the \`${kind}\` function. If trying to convert the data type of a value, try using \`x.astype(${kind})\` or \`jnp.array(x, ${kind})\` instead.`,
      ]);
    }
    const h = ip.hostArray(v, span);
    const e: HExpr = { k: 'call', callee: 'jx.item', args: [{ k: 'var', name: h.name }], await: true };
    return new HostScalar(kind === 'int' ? { k: 'call', callee: 'Math.trunc', args: [e] } : e, kind);
  }
  if (v instanceof HostScalar) {
    if (v.type === 'str') throw new CompileError(`${kind}() of a string computed at run time is not supported`, span);
    return new HostScalar(kind === 'int' ? { k: 'call', callee: 'Math.trunc', args: [v.expr] } : v.expr, kind);
  }
  if (typeof v === 'string') {
    const t = v.trim();
    if (kind === 'int') {
      if (!/^[+-]?\d+$/.test(t)) throw new CompileError(`ValueError: invalid literal for int() with base 10: ${reprOf(ip, v, span).static}`, span);
      return BigInt(t);
    }
    const inf = /^([+-]?)inf(inity)?$/i.exec(t);
    const f = inf ? (inf[1] === '-' ? -Infinity : Infinity) : Number(t);
    if (Number.isNaN(f) && !/^[+-]?nan$/i.test(t)) throw new CompileError(`ValueError: could not convert string to float: ${reprOf(ip, v, span).static}`, span);
    return f;
  }
  const n = num(ip, v, `${kind}()`, span);
  return kind === 'int' ? BigInt(Math.trunc(finiteForInt(n, span))) : n;
}

// ------------------------------------------------------------------ modules

function buildModules(ip: Interp): Map<string, PyModule> {
  const ops = ip.ops;
  const dt = (name: PyDType['name']): PyDType => new PyDType(name);
  const dtypeOf = (c: CallArgs, i: number): DType | undefined => dtypeArg(c.kwargs.get('dtype') ?? c.args[i], c.span);
  const un = (prim: Prim): PyBuiltin => fn(prim, (c) => ops.unary(prim, arg(c, 0, 'x'), c.span));
  const bin = (prim: Prim): PyBuiltin => fn(prim, (c) => ops.binary(prim, arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span));
  const red = (prim: 'reduce_sum' | 'reduce_max' | 'reduce_min' | 'reduce_prod'): PyBuiltin =>
    fn(prim, (c) => ops.reduce(prim, arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span));
  const shapeOf = (v: PyValue, span: A.Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs(ip, [v], span));

  const jnp = mod('jax.numpy', {
    float32: dt('float32'),
    int32: dt('int32'),
    uint32: dt('uint32'),
    bool_: dt('bool'),
    float64: dt('float64'),
    int64: dt('int64'),
    ndarray: new PyClass('ndarray', [], new Map(), 'marker'),
    pi: Math.PI,
    e: Math.E,
    inf: Infinity,
    nan: NaN,
    arange: fn('arange', (c) => {
      if (c.args.length < 1) throw new CompileError("TypeError: arange() missing required argument 'start' (pos 1)", c.span);
      const nums = c.args.map((a) => ip.static(a, 'an arange bound', c.span));
      const isF = nums.some((n) => typeof n === 'number');
      const vals = nums.map((n) => num(ip, n, 'an arange bound', c.span));
      const [start, stop, step] = vals.length === 1 ? [0, vals[0]!, 1] : [vals[0]!, vals[1]!, vals[2] ?? 1];
      if (step === 0) throw new CompileError('ZeroDivisionError: division by zero', c.span);
      if (!Number.isFinite((stop - start) / step)) throw new CompileError('ValueError: Maximum allowed size exceeded', c.span);
      const dtype = dtypeOf(c, 99) ?? (isF ? 'float32' : 'int32');
      return ops.arange(start, stop, step, dtype, c.span);
    }),
    array: fn('array', (c) => ops.asArray(arg(c, 0, 'object'), c.span, dtypeOf(c, 1))),
    asarray: fn('asarray', (c) => ops.asArray(arg(c, 0, 'object'), c.span, dtypeOf(c, 1))),
    zeros: fn('zeros', (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 0, dtypeOf(c, 1) ?? 'float32', c.span)),
    ones: fn('ones', (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), 1, dtypeOf(c, 1) ?? 'float32', c.span)),
    full: fn('full', (c) => ops.full(shapeOf(arg(c, 0, 'shape'), c.span), num(ip, arg(c, 1, 'fill_value'), 'fill_value', c.span), dtypeOf(c, 2) ?? (typeof c.args[1] === 'bigint' ? 'int32' : 'float32'), c.span)),
    zeros_like: fn('zeros_like', (c) => {
      const a = ops.aval(arg(c, 0, 'a'), c.span);
      return ops.full([...a.shape], 0, dtypeOf(c, 1) ?? a.dtype, c.span);
    }),
    ones_like: fn('ones_like', (c) => {
      const a = ops.aval(arg(c, 0, 'a'), c.span);
      return ops.full([...a.shape], 1, dtypeOf(c, 1) ?? a.dtype, c.span);
    }),
    reshape: fn('reshape', (c) => ops.reshape(arg(c, 0, 'a'), shapeArgs(ip, [arg(c, 1, 'shape')], c.span), c.span)),
    transpose: fn('transpose', (c) => ops.transpose(arg(c, 0, 'a'), c.args[1] ? shapeArgs(ip, [c.args[1]], c.span) : null, c.span)),
    stack: fn('stack', (c) => ops.stack(iterate(ip, arg(c, 0, 'arrays'), c.span), int(ip, arg(c, 1, 'axis', 0n), 'axis', c.span), c.span)),
    concatenate: fn('concatenate', (c) => ops.concatenate(iterate(ip, arg(c, 0, 'arrays'), c.span), int(ip, arg(c, 1, 'axis', 0n), 'axis', c.span), c.span)),
    expand_dims: fn('expand_dims', (c) => {
      const x = ops.asArray(arg(c, 0, 'a'), c.span);
      const ax = int(ip, arg(c, 1, 'axis'), 'axis', c.span);
      return ops.expandDims(x, ax < 0 ? ax + x.aval.shape.length + 1 : ax, c.span);
    }),
    squeeze: fn('squeeze', (c) => getAttrCall(ip, arg(c, 0, 'a'), 'squeeze', c.args.slice(1), c.span)),
    dot: fn('dot', (c) => ops.dot(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span)),
    matmul: fn('matmul', (c) => ops.matmul(arg(c, 0, 'a'), arg(c, 1, 'b'), c.span)),
    sum: red('reduce_sum'),
    max: red('reduce_max'),
    min: red('reduce_min'),
    prod: red('reduce_prod'),
    mean: fn('mean', (c) => ops.mean(arg(c, 0, 'a'), arg(c, 1, 'axis', null), truthy(c.kwargs.get('keepdims') ?? false, c.span), c.span)),
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
    floor: un('floor'),
    ceil: un('ceil'),
    sign: un('sign'),
    negative: un('neg'),
    square: fn('square', (c) => ops.power(arg(c, 0, 'x'), 2n, c.span)),
    power: fn('power', (c) => ops.power(arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    add: bin('add'),
    subtract: bin('sub'),
    multiply: bin('mul'),
    divide: bin('div'),
    true_divide: bin('div'),
    maximum: bin('max'),
    minimum: bin('min'),
    greater: fn('greater', (c) => ops.compare('gt', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    less: fn('less', (c) => ops.compare('lt', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    equal: fn('equal', (c) => ops.compare('eq', arg(c, 0, 'x1'), arg(c, 1, 'x2'), c.span)),
    ...jnpExtras(ip),
  });
  // jnp.float32(x) converts, as a dtype object called
  const jaxMod = mod('jax', {
    numpy: jnp,
    pmap: fn('pmap', (c) => pmapOf(ip, c)),
    vmap: fn('vmap', (c) => vmapOf(ip, c)),
    jit: fn('jit', (c) => jitOf(ip, c)),
    grad: fn('grad', (c) => gradOf(ip, c)),
    value_and_grad: fn('value_and_grad', (c) => valueAndGradOf(ip, c)),
    devices: fn('devices', (c) => ip.devices(c.span)),
    local_devices: fn('local_devices', (c) => ip.devices(c.span)),
    device_count: fn('device_count', (c) => BigInt(ip.devices(c.span).items.length)),
    local_device_count: fn('local_device_count', (c) => BigInt(ip.devices(c.span).items.length)),
    process_count: fn('process_count', () => 1n),
    process_index: fn('process_index', () => 0n),
    block_until_ready: fn('block_until_ready', (c) => arg(c, 0, 'x')),
    Array: new PyClass('Array', [], new Map(), 'marker'),
    random: randomModule(ip),
    config: mod('jax.config', { update: fn('update', (c) => configUpdate(ip, c)) }),
  });
  const environ = new PyDict();
  const os = mod('os', { environ });
  ip.environ = environ;
  const functools = mod('functools', {
    partial: fn('partial', (c) => new PyPartial(arg(c, 0, 'func'), c.args.slice(1), c.kwargs)),
  });
  const marker = (n: string): PyClass => new PyClass(n, [], new Map(), 'marker');
  const typing = mod('typing', {
    NamedTuple: marker('NamedTuple'),
    Tuple: marker('Tuple'),
    List: marker('List'),
    Dict: marker('Dict'),
    Any: marker('Any'),
    Optional: marker('Optional'),
    Callable: marker('Callable'),
    Sequence: marker('Sequence'),
  });
  const npDtype = (name: NdArray['dtype']): PyDType => new PyDType(name, true);
  const np = mod('numpy', {
    random: numpyRandomModule(ip),
    float32: npDtype('float32'),
    float64: npDtype('float64'),
    int32: npDtype('int32'),
    int64: npDtype('int64'),
    ndarray: marker('ndarray'),
    pi: Math.PI,
    arange: fn('arange', (c) => {
      if (c.args.length < 1) throw new CompileError("TypeError: arange() missing required argument 'start' (pos 1)", c.span);
      const nums = c.args.map((a) => ip.static(a, 'an arange bound', c.span));
      const isF = nums.some((n) => typeof n === 'number');
      const vals = nums.map((n) => num(ip, n, 'an arange bound', c.span));
      const [start, stop, step] = vals.length === 1 ? [0, vals[0]!, 1] : [vals[0]!, vals[1]!, vals[2] ?? 1];
      if (step === 0) throw new CompileError('ZeroDivisionError: division by zero', c.span);
      if (!Number.isFinite((stop - start) / step)) throw new CompileError('ValueError: Maximum allowed size exceeded', c.span);
      checkItems(Math.ceil((stop - start) / step), 'a NumPy array', c.span);
      return ndArange(start, stop, step, isF);
    }),
    array: fn('array', (c) => npArray(ip, c)),
    asarray: fn('asarray', (c) => npArray(ip, c)),
    stack: fn('stack', (c) => ndStack(iterate(ip, arg(c, 0, 'arrays'), c.span).map((x) => ndFrom(x, c.span)), int(ip, arg(c, 1, 'axis', 0n), 'axis', c.span), c.span)),
    reshape: fn('reshape', (c) => ndReshape(ndFrom(arg(c, 0, 'a'), c.span), shapeArgs(ip, [arg(c, 1, 'newshape')], c.span), c.span)),
    zeros: fn('zeros', (c) => {
      const s = shapeOf(arg(c, 0, 'shape'), c.span);
      checkShape(s, c.span);
      return new NdArray(s, 'float64', new Array(s.reduce((a, b) => a * b, 1)).fill(0));
    }),
    ones: fn('ones', (c) => {
      const s = shapeOf(arg(c, 0, 'shape'), c.span);
      checkShape(s, c.span);
      return new NdArray(s, 'float64', new Array(s.reduce((a, b) => a * b, 1)).fill(1));
    }),
  });
  const lax = laxModule(ip);
  jaxMod.attrs.set('lax', lax);
  const nn = nnModule(ip);
  const scipy = scipyModule(ip);
  const trees = treeModules(ip);
  jaxMod.attrs.set('nn', nn);
  jaxMod.attrs.set('scipy', scipy);
  jaxMod.attrs.set('tree', trees.tree);
  jaxMod.attrs.set('tree_util', trees.treeUtil);
  // jax.tree_map was removed in JAX 0.6; the lessons still call it (the oracle aliases it too)
  jaxMod.attrs.set('tree_map', trees.map);
  jaxMod.attrs.set('device_get', fn('device_get', (c) => arg(c, 0, 'x')));
  const sharding = shardingEntries(ip);
  const shardingMod = builtinModule('jax.sharding', sharding.sharding);
  jaxMod.attrs.set('sharding', shardingMod);
  for (const [k, f] of Object.entries(sharding.jax)) jaxMod.attrs.set(k, fn(k, f));
  return new Map([
    ['jax', jaxMod],
    ['jax.numpy', jnp],
    ['jax.numpy.linalg', jnp.attrs.get('linalg') as PyModule],
    ['jax.nn', nn],
    ['jax.scipy', scipy],
    ['jax.scipy.special', scipy.attrs.get('special') as PyModule],
    ['jax.tree', trees.tree],
    ['jax.tree_util', trees.treeUtil],
    ['jax.lax', lax],
    ['jax.sharding', shardingMod],
    ['jax.random', jaxMod.attrs.get('random') as PyModule],
    ['numpy', np],
    ['os', os],
    ['functools', functools],
    ['typing', typing],
  ]);
}

function npArray(ip: Interp, c: CallArgs): PyValue {
  const v = arg(c, 0, 'object');
  const d = c.kwargs.get('dtype') ?? c.args[1];
  if ((v instanceof PyList || v instanceof PyTuple) && v.items.some((x) => x instanceof PyDevice)) return deviceArrayOf(ip, v, c.span);
  if (v instanceof PyDeviceArray) return v;
  if (isArray(v)) throw new CompileError('np.array of a device array (a readback into NumPy) is not supported yet', c.span);
  return ndFrom(v, c.span, d instanceof PyDType ? (d.name as NdArray['dtype']) : undefined);
}

function getAttrCall(ip: Interp, obj: PyValue, name: string, args: PyValue[], span: A.Span): PyValue {
  return ip.call(getAttr(ip, obj, name, span), { args, kwargs: new Map(), span });
}
