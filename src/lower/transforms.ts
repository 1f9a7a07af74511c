// jax.pmap, jax.vmap, jax.jit, jax.grad and jax.value_and_grad: trace the
// wrapped function with abstract arguments, then either emit a host call of
// the compiled program (pmap and jit at host level) or inline the (batched,
// differentiated) result into the current trace.
import { PyFloat0Array } from './float0.js';
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HStmt, ProgramRequest } from '../ir/host.js';
import type { Atom, AVal, DType, Func } from '../ir/types.js';
import { isFloat, isInexact, size as sizeOf } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { markJitCall } from '../ir/jaxpr_printer.js';
import { expandCustomCalls, jvpFunc, vjpFunc, vjpSplit } from '../passes/autodiff.js';
import { combineAllReduces } from '../passes/spmd.js';
import { vmapFunc } from '../passes/vmap.js';
import { jaxDtype } from './arrays.js';
import { wrapKeys } from './keys.js';
import type { Interp } from './interp.js';
import { truthy } from './pyops.js';
import { noteTraceArgs, placeAs, resultConstraints, spmdCall } from './lib_sharding.js';
import { PyShardMapped, asJitted, meshOf, meshStr, programMesh } from './shardings.js';
import { checksVma, constraintMesh, contextMesh, onExplicitMesh, varyingOfAll } from './lib_sharding.js';
import { checkTracedOps } from './limits.js';
import { noteTraceCacheKey, noteTraceParams, traceCacheKey, traceFailed, withInlinedJit } from './format.js';
import { backwardApplied, backwardPrintValues, carryDebugCalls, deliverDebugCalls, takeDebugCalls, type DebugCall } from './debug_prints.js';
import { EFFECT_MARK, HostCallbackInTrace, allowCallbacks, markEffect, replaying, stagedLiveness } from './callback_staging.js';
import { dce } from '../passes/simplify.js';
import { argRefName, argRefs, carryRefs, finishRefs, functionInfo, PyAdSpec, refAddGrad, refType, refValues, vjpWithRefs } from './refs.js';
import { noteJitOrigin } from './tracer_origin.js';
import { defaultFloat, defaultInt } from './x64.js';
import {
  HostArray, HostNd, HostScalar, PyBoundMethod, PyComplex, PyDescriptor, PyNativeMethod, PyUserClass, PyDeviceArray, PyMesh, PyRef, PyNamedSharding, PyPartitionSpec, NdArray, NpScalar, PyBuiltin, PyDict, PyFunction, PyInstance, PyKeyArray, PyList, PyPartial, PyTransformed, PyTuple, TangentOf, Trace, Tracer, isArray, typeName,
  type CallArgs, type PyValue,
} from './values.js';

// ------------------------------------------------------------------ pytrees

interface Flat {
  leaves: PyValue[];
  unflatten: (leaves: PyValue[]) => PyValue;
  /** The aux data of the registered pytree classes in it, in order (static: part of jit's cache key). */
  aux: PyValue[];
}

/**
 * An auxiliary output (has_aux) as a Flat of its traced leaves only: JAX hands the Python scalars
 * in it back as they are (`jax.grad(f, has_aux=True)` of an aux 7 gives 7, not an array).
 */
function auxFlatOf(v: PyValue, keyData = false): Flat {
  const all = flatten(v, keyData);
  const isStatic = (l: PyValue): boolean => typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean';
  return {
    leaves: all.leaves.filter((l) => !isStatic(l)),
    aux: all.aux,
    unflatten: (dyn) => {
      let k = 0;
      return all.unflatten(all.leaves.map((l) => (isStatic(l) ? l : dyn[k++]!)));
    },
  };
}

/**
 * The leaves of pytree `v` and how to rebuild it. A typed PRNG key array is a
 * leaf; with `keyData` (the transformations' view) its leaf is its uint32 key
 * data, and rebuilding wraps the leaf back into a key array.
 */
export function flatten(v: PyValue, keyData = false): Flat {
  const leaves: PyValue[] = [];
  const auxes: PyValue[] = [];
  const build = (x: PyValue): ((ls: PyValue[]) => PyValue) => {
    if (keyData && x instanceof PyKeyArray) {
      const i = leaves.length;
      leaves.push(x.data);
      return (ls) => wrapKeys(ls[i] as Tracer | HostArray);
    }
    if (x instanceof PyTuple || x instanceof PyList) {
      const fs = x.items.map(build);
      return (ls) => (x instanceof PyList ? new PyList(fs.map((f) => f(ls))) : new PyTuple(fs.map((f) => f(ls)), x.cls));
    }
    if (x instanceof PyDict) {
      // JAX flattens dicts in sorted key order, and rebuilds them in that order
      const entries = [...x.entries.values()].sort(([a], [b]) => compareKeys(a, b));
      const fs = entries.map(([k, y]) => [k, build(y)] as const);
      return (ls) => {
        const d = new PyDict();
        for (const [k, f] of fs) d.set(k, f(ls));
        return d;
      };
    }
    if (x instanceof PyInstance && x.cls.pytree) {
      // a registered class: its flatten function's children are subtrees, its aux data static
      const def = x.cls.pytree;
      const { children, aux } = def.flatten(x);
      auxes.push(aux);
      const fs = children.map(build);
      return (ls) => def.unflatten(aux, fs.map((f) => f(ls)));
    }
    if (x === null) return () => null;
    // with_refs's DidntWant() is a pytree without leaves, as None
    if (x instanceof PyAdSpec) return () => x;
    const i = leaves.length;
    leaves.push(x);
    return (ls) => ls[i]!;
  };
  const f = build(v);
  return { leaves, unflatten: f, aux: auxes };
}

/** JAX's order of a dict's keys when it flattens it. */
export function compareKeys(a: PyValue, b: PyValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A tuple `in_axes` has one entry per positional argument (JAX's check and wording). */
function checkInAxesArity(spec: PyValue, args: PyTuple, transform: 'pmap' | 'vmap', span: A.Span): void {
  if ((spec instanceof PyTuple || spec instanceof PyList) && spec.items.length !== args.items.length) {
    throw new CompileError(
      `ValueError: ${transform} in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=${spec.items.length}, len(args)=${args.items.length}`,
      span,
    );
  }
}

/** Broadcast an axis spec (int / None / nested tuple) over the leaves of `v`. */
function axesFor(ip: Interp, spec: PyValue, v: PyValue, what: string, span: A.Span): (number | null)[] {
  if (spec === null || typeof spec === 'bigint') {
    return flatten(v).leaves.map(() => (spec === null ? null : Number(spec)));
  }
  if ((spec instanceof PyTuple || spec instanceof PyList) && (v instanceof PyTuple || v instanceof PyList)) {
    if (spec.items.length !== v.items.length) throw new CompileError(`ValueError: ${what} specification must be a tree prefix of the corresponding value`, span);
    return spec.items.flatMap((s, i) => axesFor(ip, s, v.items[i]!, what, span));
  }
  if (spec instanceof PyDict && v instanceof PyDict) {
    const keys = [...v.entries.values()].map(([k]) => k).sort((a, b) => (String(a) < String(b) ? -1 : 1));
    return keys.flatMap((k) => axesFor(ip, spec.get(k) ?? null, v.get(k)!, what, span));
  }
  throw new CompileError(`ValueError: ${what} must be an int, None or a tuple of them, got ${typeName(spec)}`, span);
}

export function avalOf(ip: Interp, v: PyValue, span: A.Span): AVal {
  if (v instanceof Tracer || v instanceof HostArray) return v.aval;
  if (v instanceof NdArray || v instanceof HostNd) return { shape: v.shape, dtype: jaxDtype(v.dtype) };
  if (typeof v === 'bigint') return { shape: [], dtype: defaultInt() };
  if (typeof v === 'number') return { shape: [], dtype: defaultFloat() };
  if (v instanceof PyComplex) return { shape: [], dtype: 'complex64' };
  if (typeof v === 'boolean') return { shape: [], dtype: 'bool' };
  if (v instanceof HostScalar) throw ip.error('a value computed on the host at run time cannot be passed to a transformed function yet', span);
  throw new CompileError(`TypeError: Argument '${typeName(v)}' of type ${typeName(v)} is not a valid JAX type`, span);
}

/** In-axes of the leaves of `args` for their flattening with key data: a negative axis of a key array counts from before its key data's trailing 2. */
function keyAxes(args: PyValue, axes: (number | null)[]): (number | null)[] {
  const isKey = flatten(args).leaves.map((l) => l instanceof PyKeyArray);
  return axes.map((a, i) => (a !== null && a < 0 && isKey[i] ? a - 1 : a));
}

function removeAxis(a: AVal, axis: number): AVal {
  return { shape: a.shape.filter((_, i) => i !== axis), dtype: a.dtype };
}

function mappedSize(ip: Interp, leaves: PyValue[], axes: (number | null)[], what: string, span: A.Span, given: number | null = null): { size: number; axes: (number | null)[] } {
  let size = given ?? -1;
  const norm = leaves.map((l, i) => {
    const ax = axes[i]!;
    if (ax === null) return null;
    const a = avalOf(ip, l, span);
    const r = a.shape.length;
    const n = ax < 0 ? ax + r : ax;
    if (n < 0 || n >= r) {
      throw new CompileError(`ValueError: ${what} was requested to map its argument along axis ${ax}, which implies that its rank should be at least ${ax + 1}, but is only ${r} (its shape is (${a.shape.join(', ')}${r === 1 ? ',' : ''}))`, span);
    }
    if (given !== null && a.shape[n] !== given) {
      throw new CompileError(`ValueError: ${what} got inconsistent sizes for array axes to be mapped:\n  * the \`axis_size\` argument was ${given};\n  * one axis had size ${a.shape[n]}: axis ${n} of an argument of type ${a.dtype}[${a.shape.join(',')}]`, span);
    }
    if (size >= 0 && a.shape[n] !== size) {
      throw new CompileError(`ValueError: ${what} got inconsistent sizes for array axes to be mapped: ${size} and ${a.shape[n]}`, span);
    }
    size = a.shape[n]!;
    return n;
  });
  if (size < 0) throw new CompileError(`ValueError: ${what} must have at least one non-None value in in_axes`, span);
  return { size, axes: norm };
}

const opt = (c: CallArgs, name: string, i: number, def: PyValue): PyValue => (c.kwargs.has(name) ? c.kwargs.get(name)! : i < c.args.length ? c.args[i]! : def);

function transformOf(kind: PyTransformed['transform'], c: CallArgs, names: string[], defaults: PyValue[]): PyValue {
  const target = c.args[0];
  const options = new Map<string, PyValue>();
  names.forEach((n, i) => options.set(n, opt(c, n, i + 1, defaults[i]!)));
  for (const k of c.kwargs.keys()) {
    if (!names.includes(k) && !IGNORED_OPTIONS.has(k)) throw new CompileError(`jax.${kind}: option '${k}' is not supported`, c.span);
  }
  if (target === undefined) {
    // used as @partial(jax.pmap, ...) or @jax.jit(...)-style factory
    throw new CompileError(`jax.${kind} needs a function`, c.span);
  }
  const name = target && typeof target === 'object' && 'name' in target ? String((target as { name: string }).name) : kind;
  return new PyTransformed(kind, target, options, name);
}

const IGNORED_OPTIONS = new Set(['donate_argnums', 'devices', 'backend']);

export const pmapOf = (ip: Interp, c: CallArgs): PyValue => transformOf('pmap', c, ['axis_name', 'in_axes', 'out_axes'], [null, 0n, 0n]);
export const vmapOf = (ip: Interp, c: CallArgs): PyValue => transformOf('vmap', c, ['in_axes', 'out_axes', 'axis_name', 'axis_size'], [0n, 0n, null, null]);
/** jax.jit's keyword options jaxts takes (donation, keep_unused, inline, device and backend have no effect here; in/out_shardings place the arguments and results). */
const JIT_OPTIONS = ['static_argnums', 'static_argnames', 'donate_argnums', 'donate_argnames', 'keep_unused', 'inline', 'device', 'backend', 'in_shardings', 'out_shardings'];

/**
 * `jax.jit(f, **options)`; without `f` (`@jax.jit(static_argnames=...)`), a
 * decorator that applies jit with those options, as JAX 0.10 does.
 */
export function jitOf(ip: Interp, c: CallArgs, legacyMesh = false): PyValue {
  if (c.args.length > 1) throw new CompileError(`TypeError: jit() takes from 0 to 1 positional arguments but ${c.args.length} were given`, c.span);
  for (const k of c.kwargs.keys()) {
    if (k === 'fun') throw new CompileError("TypeError: jit() got some positional-only arguments passed as keyword arguments: 'fun'", c.span);
    if (!JIT_OPTIONS.includes(k)) throw new CompileError(`jax.jit: option '${k}' is not supported`, c.span);
  }
  const target = c.args[0];
  if (target === undefined) return new PyBuiltin('jit', (d) => jitOf(ip, { ...d, kwargs: new Map([...c.kwargs, ...d.kwargs]) }, legacyMesh));
  const options = new Map(JIT_OPTIONS.map((n) => [n, c.kwargs.get(n) ?? null]));
  // pjit: PartitionSpecs may also name the axes of a legacy `with mesh:` context
  if (legacyMesh) options.set('pjit', true);
  const name = target && typeof target === 'object' && 'name' in target ? String((target as { name: string }).name) : 'jit';
  return new PyTransformed('jit', target, options, name);
}
const GRAD_OPTIONS = ['argnums', 'has_aux', 'holomorphic', 'allow_int'];
export const gradOf = (ip: Interp, c: CallArgs): PyValue => transformOf('grad', c, GRAD_OPTIONS, [0n, false, false, false]);
export const valueAndGradOf = (ip: Interp, c: CallArgs): PyValue => transformOf('value_and_grad', c, GRAD_OPTIONS, [0n, false, false, false]);
export const jacrevOf = (ip: Interp, c: CallArgs): PyValue => transformOf('jacrev', c, GRAD_OPTIONS, [0n, false, false, false]);
export const jacfwdOf = (ip: Interp, c: CallArgs): PyValue => transformOf('jacfwd', c, ['argnums', 'has_aux', 'holomorphic'], [0n, false, false]);
/** jax.hessian(f, argnums, has_aux) = jacfwd(jacrev(f, argnums, has_aux), argnums, has_aux) */
export function hessianOf(ip: Interp, c: CallArgs): PyValue {
  const inner = transformOf('jacrev', c, ['argnums', 'has_aux', 'holomorphic'], [0n, false, false]) as PyTransformed;
  return new PyTransformed('jacfwd', inner, new Map(inner.options), inner.name);
}

// ------------------------------------------------------------------ calls

export function callTransformed(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (call.kwargs.size && (fn.transform === 'pmap' || fn.transform === 'vmap')) {
    throw new CompileError(`${fn.transform}-transformed functions take positional arguments only here`, call.span);
  }
  if (fn.transform !== 'jit' && fn.transform !== 'pmap') call = liftHostScalars(ip, call);
  switch (fn.transform) {
    case 'pmap':
      return callPmap(ip, fn, call);
    case 'vmap':
      return callVmap(ip, fn, call);
    case 'jit':
      return ip.jitDisabled ? ip.call(fn.fn, call) : callJit(ip, fn, call);
    case 'grad':
    case 'value_and_grad':
      return callGrad(ip, fn, call);
    case 'jacfwd':
    case 'jacrev':
      return callJac(ip, fn, call);
    case 'custom_jvp':
    case 'custom_vjp':
      throw new Error('internal: custom_jvp / custom_vjp functions are called through custom_rules.ts');
  }
}

/**
 * Python numbers known only at run time among the arguments of grad / vmap / jac (a host loop's float
 * `x -= lr * grad(f)(x)`): weakly typed 0-d device arrays, as JAX makes of Python scalars.
 */
function liftHostScalars(ip: Interp, call: CallArgs): CallArgs {
  const isNum = (l: PyValue): l is HostScalar => l instanceof HostScalar && l.type !== 'str';
  const lift = (v: PyValue): PyValue => {
    const fl = flatten(v);
    if (!fl.leaves.some(isNum)) return v;
    return fl.unflatten(fl.leaves.map((l) => (isNum(l) ? ip.scalarArray(l, l.type === 'int' ? 'int32' : l.type === 'bool' ? 'bool' : 'float32', 'arg', call.span, l.type !== 'bool') : l)));
  };
  if (!call.args.some((a) => flatten(a).leaves.some(isNum)) && ![...call.kwargs.values()].some((a) => flatten(a).leaves.some(isNum))) return call;
  return { ...call, args: call.args.map(lift), kwargs: new Map([...call.kwargs].map(([k, v]) => [k, lift(v)])) };
}

/** Per jit trace: the error its compilation raises (a user-defined primitive with no lowering rule, src/lower/user_prims.ts). */
export const pendingLoweringErrors = new WeakMap<Trace, CompileError>();

function traceBody(ip: Interp, t: Trace, fn: PyValue, args: PyValue[], kwargs: Map<string, PyValue>, span: A.Span): { results: Atom[]; rebuild: Flat['unflatten'] } {
  return ip.withTrace(t, () => {
    const out = ip.call(fn, { args, kwargs, span });
    const flat = flatten(out, true);
    const results = flat.leaves.map((l) => {
      if (l instanceof PyRef) {
        const arg = argRefName(t, l);
        throw new CompileError(`ValueError: function ${functionInfo(ip, fn)} traced for ${t.kind} returned a mutable array reference of type ${refType(l.value.aval)}, but mutable array references cannot be returned.${arg ? `\n\nThe returned mutable array was passed in as the argument ${arg}.` : ''}`, span);
      }
      // a NumPy scalar (np.int64, np.float32) is a valid JAX type too
      if (!isArray(l) && !(l instanceof NdArray) && !(l instanceof NpScalar) && typeof l !== 'bigint' && typeof l !== 'number' && typeof l !== 'boolean') {
        throw new CompileError(`TypeError: the function returned a ${typeName(l)}, which is not a valid JAX type`, span);
      }
      return ip.ops.asArray(l, span).atom;
    });
    return { results, rebuild: flat.unflatten };
  });
}

function callPmap(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (!ip.atHost) {
    for (let t: Trace | null = ip.trace(); t; t = t.parent) {
      if (t.kind === 'pmap' || t.axisEnv.length) throw new CompileError('jax.pmap inside another transformation (pmap, jit, vmap) is not supported; JAX 0.10 rejects nested pmap too', call.span);
    }
    return pmapInTrace(ip, fn, call);
  }
  const args = new PyTuple(call.args);
  const flat = flatten(args, true);
  const inSpec = fn.options.get('in_axes')!;
  checkInAxesArity(inSpec, args, 'pmap', call.span);
  const axes0 = axesFor(ip, inSpec, args, 'pmap in_axes', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'pmap', call.span);
  const nDev = ip.devices(call.span).items.length;
  if (size === 0) {
    // JAX builds a mesh of no devices for the mapped axis, and refuses it
    const name = typeof fn.options.get('axis_name') === 'string' ? String(fn.options.get('axis_name')) : '_internal_pmap_axis_name';
    throw new CompileError(`ValueError: One of in_shardings leaf specifications got an empty NamedSharding: NamedSharding(mesh=Mesh(), spec=P('${name}',)) which is not allowed.`, call.span);
  }
  if (size > nDev) {
    throw new CompileError(`ValueError: compiling computation that requires ${size} logical devices, but only ${nDev} XLA devices are available (num_replicas=${size})`, call.span);
  }
  const axisName = fn.options.get('axis_name');
  const t = new Trace(fn.name, 'pmap', null, [{ name: typeof axisName === 'string' ? axisName : '_pmap', size }]);
  noteTraceCacheKey(ip, t, fn.fn, flat.leaves, call.span);
  const params = flat.leaves.map((l, i) => {
    const a = avalOf(ip, l, call.span);
    return new Tracer(t, t.builder.addParam(axes[i] === null ? a : removeAxis(a, axes[i]!)));
  });
  // jax.debug.print / callback inside: their operands are extra results (one block per device), shown after the call
  carryDebugCalls(t);
  let body: ReturnType<typeof traceBody>;
  try {
    body = traceBody(ip, t, fn.fn, ((r) => (r instanceof PyTuple ? r.items : []))(ip.withTrace(t, () => flat.unflatten(params))), new Map(), call.span);
  } catch (e) {
    // a host callback inside (jax.pure_callback, io_callback): the function runs on the host once per device
    if (!(e instanceof HostCallbackInTrace)) throw e;
    takeDebugCalls(t);
    return pmapOnHost(ip, fn, flat, axes, size, call.span);
  }
  const { results: declared, rebuild } = body;
  const debug = takeDebugCalls(t);
  const results = [...declared, ...debug.atoms];
  const func = t.builder.finish(results, t.axisEnv);
  const name = ip.programName(fn.name);
  ip.addProgram(name, func, 'pmap');
  // host side: materialise the arguments and the captured values
  ip.flush([...flat.leaves, ...t.captured]);
  const argNames = [...flat.leaves, ...t.captured].map((l) => ip.hostArray(l, call.span).name);
  const inAxes = [...axes, ...t.captured.map(() => null)];
  const outSpec = fn.options.get('out_axes')!;
  const outAxes = results.map((_, j) => {
    if (j >= declared.length) return 0;
    const s = outSpec instanceof PyTuple ? outSpec.items[j] : outSpec;
    if (typeof s !== 'bigint') throw new CompileError('pmap out_axes must be an int or a tuple of ints', call.span);
    const r = results[j]!.aval.shape.length + 1;
    const n = Number(s);
    return n < 0 ? n + r : n;
  });
  const outs = emitCall(ip, fn.name, results.map((r) => r.aval), results.map((r, j) => {
    const s = [...r.aval.shape];
    s.splice(outAxes[j]!, 0, size);
    return s;
  }), {
    k: 'call', callee: 'rt.pmap', await: true,
    args: [
      { k: 'program', name },
      { k: 'array', items: argNames.map((n) => ({ k: 'var', name: n })) },
      { k: 'array', items: inAxes.map((a) => ({ k: 'lit', value: a })) },
      { k: 'array', items: outAxes.map((a) => ({ k: 'lit', value: a })) },
      { k: 'lit', value: size },
    ],
  });
  // each device runs its calls in order, the devices one after another (JAX's run concurrently)
  for (let d = 0; d < (debug.calls.length ? size : 0); d++) {
    const index = (v: PyValue): PyValue => ip.ops.index(v, [{ kind: 'int', value: d }], call.span);
    deliverDebugCalls(null, debug.calls, outs.slice(declared.length), t, { size: 1, index }, (vs) => ip.flush([...vs, ...outs]));
  }
  return rebuild(outs.slice(0, declared.length));
}

/** pmap of a function that calls back to the host: device after device, each on its slices of the mapped arguments; results stacked along out_axes. */
function pmapOnHost(ip: Interp, fn: PyTransformed, flat: Flat, axes: (number | null)[], size: number, span: A.Span): PyValue {
  const outSpec = fn.options.get('out_axes')!;
  const outs: PyValue[] = [];
  return ip.holding((hold) => {
    flat.leaves.forEach(hold);
    ip.flush();
    replaying(ip, null, () => {
      for (let d = 0; d < size; d++) {
        const el = flat.leaves.map((l, k) => (axes[k] === null ? l : ip.ops.index(ip.ops.moveAxis(ip.ops.asArray(l, span), axes[k]!, 0, span), [{ kind: 'int', value: d }], span)));
        outs.push(hold(ip.call(fn.fn, { args: (flat.unflatten(el) as PyTuple).items, kwargs: new Map(), span })));
        ip.flush();
      }
    });
    return stackTrees(ip, outs, (j) => {
      const s = outSpec instanceof PyTuple ? outSpec.items[j] : outSpec;
      if (typeof s !== 'bigint') throw new CompileError('pmap out_axes must be an int or a tuple of ints', span);
      return Number(s);
    }, span);
  });
}

/** Emit `const [a, b] = await CALL` and return host arrays for the results. */
function emitCall(ip: Interp, hint: string, avals: AVal[], shapes: number[][], value: HExpr): HostArray[] {
  const hints = ip.nameHints.length === avals.length ? ip.nameHints : avals.map((_, i) => (avals.length === 1 ? `${hint}_out` : `${hint}_out${i}`));
  const names = hints.map((h) => ip.freshName(h));
  ip.emit({ k: 'const', names, destructure: true, value });
  // a result keeps JAX's weak type (a Python scalar that met no typed array inside)
  return names.map((n, i) => new HostArray(n, { shape: shapes[i]!, dtype: avals[i]!.dtype, ...(avals[i]!.weak ? { weak: true } : {}) }));
}

/** The positional-or-keyword and keyword-only parameters of a jitted callable (null: unknown, such as a builtin). */
function jitParams(fn: PyValue): { positional: string[]; keywordOnly: string[]; varArgs: boolean; varKw: boolean } | null {
  if (fn instanceof PyTransformed) return jitParams(fn.fn);
  if (fn instanceof PyPartial) {
    const inner = jitParams(fn.fn);
    return inner && { ...inner, positional: inner.positional.slice(fn.args.length) };
  }
  if (fn instanceof PyBoundMethod && fn.self instanceof PyInstance && fn.self.cls instanceof PyUserClass) {
    // a method bound to an instance: its parameters after self
    const m = fn.self.cls.lookup(fn.name);
    const inner = m instanceof PyFunction ? jitParams(m) : null;
    return inner && { ...inner, positional: inner.positional.slice(1) };
  }
  if (!(fn instanceof PyFunction)) return null;
  const ps = fn.def.params;
  return {
    positional: ps.filter((p) => p.star === '' && !p.kwOnly).map((p) => p.name),
    keywordOnly: ps.filter((p) => p.star === '' && p.kwOnly).map((p) => p.name),
    varArgs: ps.some((p) => p.star === '*'),
    varKw: ps.some((p) => p.star === '**'),
  };
}

const tupleStr = (xs: string[]): string => `(${xs.join(', ')}${xs.length === 1 ? ',' : ''})`;

/**
 * Which arguments of a call are static: JAX's static_argnums and
 * static_argnames, each completed from the other through the function's
 * signature (jax/_src/api_util.py infer_argnums_and_argnames).
 */
function staticArgs(fn: PyTransformed, nArgs: number, span: A.Span): { nums: Set<number>; names: Set<string> } {
  const nums0 = fn.options.get('static_argnums') ?? null;
  const names0 = fn.options.get('static_argnames') ?? null;
  const list = (v: PyValue): PyValue[] => (v === null ? [] : v instanceof PyTuple || v instanceof PyList ? v.items : [v]);
  const nums = list(nums0).map((v) => {
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: static_argnums must be an int or a sequence of ints, got ${typeName(v)}`, span);
    return Number(v);
  });
  const names = list(names0).map((v) => {
    if (typeof v !== 'string') throw new CompileError(`TypeError: static_argnames must be a str or a sequence of str, got ${typeName(v)}`, span);
    return v;
  });
  const sig = jitParams(fn.fn);
  if (sig) {
    if (!sig.varArgs) {
      const bad = nums.filter((n) => n >= sig.positional.length || n < -sig.positional.length);
      if (bad.length) {
        throw new CompileError(`ValueError: Jitted function has static_argnums=${tupleStr(nums.map(String))}, but only accepts ${sig.positional.length} positional arguments.`, span);
      }
    }
    if (!sig.varKw) {
      const bad = names.filter((n) => !sig.positional.includes(n) && !sig.keywordOnly.includes(n));
      if (bad.length) {
        throw new CompileError(`ValueError: Jitted function has invalid argnames {${bad.map((n) => `'${n}'`).join(', ')}} in static_argnames. Function does not take these args.`, span);
      }
    }
    if (names0 === null) for (const n of nums) { const p = sig.positional[n < 0 ? n + sig.positional.length : n]; if (p !== undefined) names.push(p); }
    if (nums0 === null) for (const n of names) { const i = sig.positional.indexOf(n); if (i >= 0) nums.push(i); }
  }
  return { nums: new Set(nums.map((n) => (n < 0 ? n + nArgs : n))), names: new Set(names) };
}

/** A static argument must be hashable, as JAX hashes it to look up its compiled program. */
function checkHashableStatic(v: PyValue, span: A.Span): void {
  if (v instanceof PyTuple) return v.items.forEach((x) => checkHashableStatic(x, span));
  if (!(isArray(v) || v instanceof NdArray || v instanceof PyKeyArray || v instanceof PyList || v instanceof PyDict)) return;
  const shown = isArray(v) || v instanceof PyKeyArray ? 'jaxlib._jax.ArrayImpl' : v instanceof NdArray ? 'numpy.ndarray' : typeName(v);
  throw new CompileError(
    `ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class '${shown}'>. The error was:\nTypeError: unhashable type: '${shown}'`,
    span,
  );
}

/** Can `v` be a traced argument of a jitted function (an array or a NumPy or Python number)? */
const isJitArg = (v: PyValue): v is Tracer | HostArray | NdArray | HostNd | NpScalar | HostScalar | bigint | number | boolean =>
  isArray(v) || v instanceof NdArray || v instanceof HostNd || v instanceof NpScalar || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ||
  (v instanceof HostScalar && v.type !== 'str');

/**
 * A host value known only at run time (a host loop's index, `float(loss)`) as
 * a 0-d device array of `dtype`, made where the host program has the value.
 */
export function hostScalarArray(ip: Interp, v: HostScalar, dtype: DType, hint: string, span: A.Span): HostArray {
  return ip.scalarArray(v, dtype, hint, span);
}

/** A NumPy or Python scalar argument as a host constant (a Python scalar's parameter is weakly typed, as in JAX). */
function scalarArg(v: NpScalar | bigint | number | boolean): NdArray {
  if (v instanceof NpScalar) return new NdArray([], v.dtype, [v.value]);
  if (typeof v === 'bigint') return new NdArray([], 'int64', [Number(BigInt.asIntN(32, v))]);
  if (typeof v === 'boolean') return new NdArray([], 'bool', [v ? 1 : 0]);
  return new NdArray([], 'float64', [v]);
}

/** Per jitted Python function: its traces at host level by cache key (see callJit). */
interface JitCacheEntry {
  /** The function body (main() or an export) it was traced in, and where (null: in a loop or branch body). */
  body: number;
  mark: ReturnType<Interp['topMark']>;
  /** Its program request (gone after a rollback of a failed loop lowering). */
  index: number;
  program: ProgramRequest;
  name: string;
  /** The host arrays its trace captured (globals, closures), passed after the arguments. */
  captured: HostArray[];
  avals: AVal[];
  shapes: number[][];
  rebuild: (leaves: PyValue[]) => PyValue;
}
const jitCache = new WeakMap<object, Map<string, JitCacheEntry>>();

function callJit(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  // jit of a shard_map is the shard_map's own per-device program
  if (fn.fn instanceof PyShardMapped && ip.atHost) {
    // its results' shardings as XLA gives them back: the out_specs without trailing Nones
    const out = flatten(asJitted(() => ip.call(fn.fn, call)));
    return out.unflatten(out.leaves.map((l) => {
      if (!(l instanceof HostArray) || !l.sharding) return l;
      const e = [...l.sharding.spec.entries];
      while (e.length && e[e.length - 1] === null) e.pop();
      l.sharding = new PyNamedSharding(l.sharding.mesh, new PyPartitionSpec(e));
      return l;
    }));
  }
  if (!ip.atHost) {
    // inlined into the enclosing trace; its equations remember the call (make_jaxpr shows a nested jit)
    const eqns = ip.trace().builder.eqns;
    const start = eqns.length;
    const atoms = (v: PyValue): Atom[] => flatten(v).leaves.flatMap((l) => (l instanceof Tracer && l.trace === ip.trace() ? [l.atom] : []));
    const out = withInlinedJit(ip.trace(), atoms(new PyTuple([...call.args, ...call.kwargs.values()])), () => (fn.fn instanceof PyShardMapped ? asJitted(() => ip.call(fn.fn, call)) : ip.call(fn.fn, call)));
    const name = fn.name === '<lambda>' || fn.name.startsWith('_lambda') ? '<lambda>' : fn.name;
    // under jax.set_mesh the equation shows the context mesh it was traced under (pjit's ctx_mesh)
    const ctx = contextMesh(ip);
    markJitCall(eqns, start, name, atoms(new PyTuple([...call.args, ...call.kwargs.values()])), atoms(out), ctx ? { params: [['name', name], ['ctx_mesh', meshStr(ctx)], ['jaxpr', null]] } : undefined);
    return out;
  }
  // in_shardings / out_shardings: the arguments laid out before the call, the results after it
  const inShardings = fn.options.get('in_shardings') ?? null;
  const outShardings = fn.options.get('out_shardings') ?? null;
  const api = fn.options.get('pjit') ? 'pjit' : 'jit';
  if (inShardings !== null) call = { ...call, args: (placeAs(ip, new PyTuple(call.args), inShardings instanceof PyList ? new PyTuple(inShardings.items) : inShardings, `${api} in_shardings`, call.span) as PyTuple).items };
  if (outShardings !== null) {
    const plain = new PyTransformed('jit', fn.fn, new Map([...fn.options].filter(([k]) => k !== 'in_shardings' && k !== 'out_shardings')), fn.name);
    return placeAs(ip, callJit(ip, plain, call), outShardings, `${api} out_shardings`, call.span);
  }
  const statics = staticArgs(fn, call.args.length, call.span);
  const kwNames = [...call.kwargs.keys()];
  const isStatic = [...call.args.map((_, i) => statics.nums.has(i)), ...kwNames.map((k) => statics.names.has(k))];
  const all = [...call.args, ...call.kwargs.values()];
  all.forEach((v, i) => isStatic[i] && checkHashableStatic(v, call.span));
  // static arguments stay Python values; the others are flattened to traced leaves
  const args = new PyTuple(all.map((v, i) => (isStatic[i] ? null : v)));
  const flat = flatten(args, true);
  const t = new Trace(fn.name, 'jit', null);
  // refs (jax.new_ref) passed in are in-out buffers of the program (src/lower/refs.ts)
  carryRefs(t, 'jit', `${functionInfo(ip, fn.fn)} for jit`);
  const hasRefs = flat.leaves.some((l) => l instanceof PyRef);
  const arrayLeaves: PyValue[] = flat.leaves.map((l) => {
    if (l instanceof PyRef) return l.value;
    if (!isJitArg(l)) {
      throw new CompileError(
        `TypeError: Error interpreting argument to <function ${fn.name}> as an abstract array. The problematic value is of type <class '${l instanceof PyInstance ? l.cls.qualName : typeName(l)}'>.\nThis typically means that a jit-wrapped function was called with a non-array argument, and this argument was not marked as static using the static_argnums or static_argnames parameters of jax.jit.`,
        call.span,
      );
    }
    if (l instanceof HostScalar) return hostScalarArray(ip, l, l.type === 'int' ? 'int32' : l.type === 'bool' ? 'bool' : 'float32', 'arg', call.span);
    if (l instanceof HostNd) return ip.hostArray(l, call.span);
    return isArray(l) || l instanceof NdArray ? l : scalarArg(l);
  });
  noteTraceArgs(t, arrayLeaves, call.span);
  // a Python number (static, or a host value such as a loop index) is a weakly typed parameter
  const weak = (l: PyValue): boolean => typeof l === 'bigint' || typeof l === 'number' || (l instanceof HostScalar && l.type !== 'bool');
  const params = flat.leaves.map((l, i) => {
    const a = avalOf(ip, arrayLeaves[i]!, call.span);
    return new Tracer(t, t.builder.addParam(weak(l) ? { ...a, weak: true } : a));
  });
  const sig = jitParams(fn.fn);
  const argName = (i: number): string => (i < call.args.length ? sig?.positional[i] ?? `args[${i}]` : kwNames[i - call.args.length]!);
  const leafNames = all.flatMap((v, i) => (isStatic[i] ? [] : flatten(v, true).leaves.map(() => argName(i))));
  noteJitOrigin(t, `${functionInfo(ip, fn.fn)} for jit`, leafNames);
  const traced = (ip.withTrace(t, () => flat.unflatten(argRefs(ip, t, flat.leaves, params, leafNames, call.span))) as PyTuple).items;
  const rebuiltArgs = all.map((v, i) => (isStatic[i] ? v : traced[i]!));
  // jit's cache key: the traced arguments' types and the static ones' values
  // (with the aux data of registered pytree classes: a change there is a new trace, as in JAX)
  const keyed = flatten(new PyTuple(rebuiltArgs));
  noteTraceCacheKey(ip, t, fn.fn, [...keyed.leaves, ...keyed.aux], call.span);
  // JAX's cache: a call with the types (and static values) of an earlier one runs what that call traced,
  // globals read as they were then; jax_debug_nans is part of the key (its program checks for NaNs)
  const cacheKey = `${[...statics.nums].join()}|${[...statics.names].join()}|${traceCacheKey(t)}${ip.debugNans ? '|debug_nans' : ''}`;
  // a function that calls back to the host runs on the host after its first trace (src/lower/callbacks.ts)
  const staged = fn.fn && typeof fn.fn === 'object' ? stagedJits.get(fn.fn)?.get(cacheKey) : undefined;
  if (staged) return replayJit(ip, fn, call, staged.live);
  const hit = fn.fn && typeof fn.fn === 'object' ? jitCache.get(fn.fn)?.get(cacheKey) : undefined;
  const valid = (e: JitCacheEntry): boolean =>
    e.body === ip.bodyId && ip.programs[e.index] === e.program && (!e.captured.length || (e.mark !== null && ip.stillEmitted(e.mark)));
  if (hit && valid(hit) && !hasRefs) {
    ip.flush(arrayLeaves);
    const hostArgs = [...arrayLeaves.map((l) => ip.hostArray(l, call.span)), ...hit.captured];
    if (!meshOf(hostArgs, call.span)) {
      const outs = emitCall(ip, fn.name, hit.avals, hit.shapes, {
        k: 'call', callee: 'rt.call', await: true,
        args: [{ k: 'program', name: hit.name }, { k: 'array', items: hostArgs.map((a) => ({ k: 'var', name: a.name })) }],
      });
      return hit.rebuild(outs);
    }
  }
  const kw = new Map(kwNames.map((k, i) => [k, rebuiltArgs[call.args.length + i]!]));
  allowCallbacks(t);
  let body: ReturnType<typeof traceBody>;
  try {
    body = traceBody(ip, t, fn.fn, rebuiltArgs.slice(0, call.args.length), kw, call.span);
  } catch (e) {
    finishRefs(ip, t, call.span);
    if (!(e instanceof HostCallbackInTrace)) {
      traceFailed(t);
      throw e;
    }
    stagedLiveness(t, []);
    takeDebugCalls(t);
    return stageJit(ip, fn, call, cacheKey, null);
  }
  const { results: declared, rebuild } = body;
  // a primitive the program defined without a lowering rule: compiling the traced function fails
  const missingLowering = pendingLoweringErrors.get(t);
  if (missingLowering) {
    traceFailed(t);
    throw new CompileError(missingLowering.message, call.span);
  }
  // the refs it wrote: their new values are results too, given back to the refs after the call
  const refs = finishRefs(ip, t, call.span);
  // jax.debug calls inside: their operands are extra results, shown after the call
  const debug = takeDebugCalls(t);
  const live = stagedLiveness(t, [...declared, ...debug.atoms]);
  if (live) return stageJit(ip, fn, call, cacheKey, live);
  const nDebug = debug.atoms.length;
  const results = [...declared, ...debug.atoms, ...refs.atoms];
  const func = t.builder.finish(results);
  t.finished = true;
  const name = ip.programName(fn.name);
  ip.flush([...arrayLeaves, ...t.captured]);
  const hostArgs = [...arrayLeaves, ...t.captured].map((l) => ip.hostArray(l, call.span));
  const avals = results.map((r) => r.aval);
  const shapes = results.map((r) => [...r.aval.shape]);
  const constraints = resultConstraints(t, func);
  const mesh = programMesh(hostArgs, t, call.span) ?? constraintMesh(t);
  if (mesh) {
    // arrays laid out over a mesh: partition the program (GSPMD) and run it on every device
    const spmd = spmdCall(ip, name, 'jit', func, hostArgs, mesh, call.span, constraints?.shardings);
    const outs = emitCall(ip, fn.name, avals, shapes, spmd.value);
    outs.forEach((o, i) => (o.sharding = spmd.shardings[i]!));
    deliverDebugCalls(null, debug.calls, outs.slice(declared.length, declared.length + nDebug), t);
    refs.commit(outs.slice(declared.length + nDebug));
    return rebuild(outs.slice(0, declared.length));
  }
  ip.addProgram(name, func, 'jit');
  const index = ip.programs.length - 1;
  const outs = emitCall(ip, fn.name, avals, shapes, {
    k: 'call', callee: 'rt.call', await: true,
    args: [{ k: 'program', name }, { k: 'array', items: hostArgs.map((a) => ({ k: 'var', name: a.name })) }],
  });
  // remembered for later calls in this body; one that captured host arrays only where they stay visible (the body's top level)
  const mark = ip.topMark();
  const captured = hostArgs.slice(arrayLeaves.length);
  if (!debug.calls.length && !refs.touched && (mark || !captured.length) && fn.fn && typeof fn.fn === 'object') {
    if (!jitCache.has(fn.fn)) jitCache.set(fn.fn, new Map());
    jitCache.get(fn.fn)!.set(cacheKey, { body: ip.bodyId, mark, index, program: ip.programs[index]!, name, captured, avals, shapes, rebuild });
  }
  deliverDebugCalls(null, debug.calls, outs.slice(declared.length, declared.length + nDebug), t);
  refs.commit(outs.slice(declared.length + nDebug));
  return rebuild(outs.slice(0, declared.length));
}

/** Per jitted Python function: the cache keys whose trace met a host callback, with the liveness of its pure callbacks. */
const stagedJits = new WeakMap<object, Map<string, { live: boolean[] | null }>>();

/** Remember that this signature of `fn` calls back to the host, and run it there. */
function stageJit(ip: Interp, fn: PyTransformed, call: CallArgs, cacheKey: string, live: boolean[] | null): PyValue {
  if (fn.fn && typeof fn.fn === 'object') {
    if (!stagedJits.has(fn.fn)) stagedJits.set(fn.fn, new Map());
    stagedJits.get(fn.fn)!.set(cacheKey, { live });
  }
  return replayJit(ip, fn, call, live);
}

/** A jitted function that calls back to the host, run on the host as under jax.disable_jit (its results arrays, as jit's). */
function replayJit(ip: Interp, fn: PyTransformed, call: CallArgs, live: boolean[] | null): PyValue {
  ip.jitDisabled++;
  try {
    const out = replaying(ip, live, () => ip.call(fn.fn, call));
    const flat = flatten(out, true);
    return flat.unflatten(flat.leaves.map((l) => (isArrayLike(l) && !isArray(l) ? ip.ops.asArray(l, call.span) : l)));
  } finally {
    ip.jitDisabled--;
  }
}

/**
 * vmap at host level of a function that calls back to the host: the function
 * once per batch element (leaf i mapped along axes[i], null: not mapped), the
 * results stacked along `outAxis(j)`.
 */
export function vmapOnHost(ip: Interp, leaves: PyValue[], axes: (number | null)[], size: number, call: (leaves: PyValue[]) => PyValue, outAxis: (j: number) => number, span: A.Span): PyValue {
  const outs: PyValue[] = [];
  // the elements' results stay reachable (a flush for a later element materialises them)
  return ip.holding((hold) => {
    leaves.forEach(hold);
    ip.flush();
    // each element's host code, its pending array work flushed at its end (no element uses another's)
    const blocks = replaying(ip, null, () =>
      Array.from({ length: size }, (_, i) => ip.collect(() => {
        const el = leaves.map((l, k) => (axes[k] === null ? l : ip.ops.index(ip.ops.moveAxis(ip.ops.asArray(l, span), axes[k]!, 0, span), [{ kind: 'int', value: i }], span)));
        outs.push(hold(call(el)));
        ip.flush();
      })), true);
    // JAX batches each effect over the elements: the k-th host effect of every element, then the next
    const chunks = blocks.map((b) => {
      const cs: HStmt[][] = [[]];
      for (const s of b) s.k === 'comment' && s.text === EFFECT_MARK ? cs.push([]) : cs[cs.length - 1]!.push(s);
      return cs;
    });
    if (chunks.every((c) => c.length === chunks[0]!.length)) {
      chunks[0]!.forEach((_, k) => {
        if (k > 0) markEffect(ip);
        chunks.forEach((c) => c[k]!.forEach((s) => ip.emit(s)));
      });
    } else {
      blocks.forEach((b) => b.forEach((s) => ip.emit(s)));
    }
    return stackTrees(ip, outs, outAxis, span);
  });
}

/** The trees `outs` (one structure) stacked leafwise, leaf j along `axis(j)`. */
export function stackTrees(ip: Interp, outs: PyValue[], axis: (j: number) => number, span: A.Span): PyValue {
  const flats = outs.map((o) => flatten(o, true));
  const first = flats[0]!;
  return first.unflatten(first.leaves.map((_, j) => {
    const items = flats.map((f) => ip.ops.asArray(f.leaves[j]!, span));
    const r = items[0]!.aval.shape.length + 1;
    const ax = axis(j) < 0 ? axis(j) + r : axis(j);
    const stacked = ip.ops.stack(items, ax, span);
    // a batch of weakly typed values (a Python number the function returned) stays weakly typed, as in JAX
    if (!items.every((x) => x.aval.weak) || stacked.aval.weak) return stacked;
    return ip.ops.tracer(ip.ops.bind('convert_element_type', [stacked.atom], { new_dtype: stacked.aval.dtype, weak_type: true }, span));
  }));
}

/** Can `v` become an array argument (an array, NumPy value or Python number)? */
const isArrayLike = (v: PyValue): boolean =>
  isArray(v) || v instanceof NdArray || v instanceof NpScalar || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';

function callVmap(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const args = new PyTuple(call.args);
  const flat0 = flatten(args, true);
  // a ref passed in is read and written per element: its value is a mapped argument and an extra result (src/lower/refs.ts)
  const refLeaves = flat0.leaves;
  const flat = { ...flat0, leaves: refValues(flat0.leaves) };
  checkInAxesArity(fn.options.get('in_axes')!, args, 'vmap', call.span);
  const axes0 = keyAxes(args, axesFor(ip, fn.options.get('in_axes')!, args, 'vmap in_axes', call.span));
  const axisSize = fn.options.get('axis_size') ?? null;
  if (axisSize !== null && typeof axisSize !== 'bigint') throw new CompileError(`TypeError: vmap axis_size must be an int, got ${typeName(axisSize)}`, call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'vmap', call.span, axisSize === null ? null : Number(axisSize));
  const parent = ip.trace();
  // vmap(axis_name=) binds a named axis: collectives over it reduce along the batch (passes/vmap.ts)
  const vmapAxis = fn.options.get('axis_name');
  if (vmapAxis !== null && vmapAxis !== undefined && typeof vmapAxis !== 'string') throw new CompileError('jax.vmap: axis_name must be a string here', call.span);
  const t = new Trace(fn.name, 'vmap', parent, typeof vmapAxis === 'string' ? [...parent.axisEnv, { name: vmapAxis, size }] : parent.axisEnv);
  // an unmapped leaf that is not array-like (a string field of a NamedTuple) passes through as a static value
  const isStatic = flat.leaves.map((l, i) => axes[i] === null && !isArrayLike(l));
  const params = flat.leaves.map((l, i) => {
    if (isStatic[i]) return l;
    const a = avalOf(ip, l, call.span);
    return new Tracer(t, t.builder.addParam(axes[i] === null ? a : removeAxis(a, axes[i]!)));
  });
  noteTraceParams(t, params.flatMap((p, i) => (p instanceof Tracer ? [{ tracer: p, outer: flat.leaves[i]!, batchDim: axes[i]! }] : [])), size);
  carryRefs(t, 'vmap', `${functionInfo(ip, fn.fn)} for vmap`);
  let traced: ReturnType<typeof traceBody>;
  let refs: ReturnType<typeof finishRefs>;
  try {
    traced = traceBody(ip, t, fn.fn, (ip.withTrace(t, () => flat.unflatten(argRefs(ip, t, refLeaves, params, refLeaves.map((_, i) => `args[${i}]`), call.span))) as PyTuple).items, new Map(), call.span);
    refs = finishRefs(ip, t, call.span);
  } catch (e) {
    finishRefs(ip, t, call.span);
    // a host callback inside, at host level: once per batch element on the host (src/lower/callbacks.ts)
    if (!(e instanceof HostCallbackInTrace) || parent.kind !== 'segment' || ip.trace() !== parent) throw e;
    takeDebugCalls(t);
    const outSpec = fn.options.get('out_axes')!;
    const outAxis = (j: number): number => {
      const s = outSpec instanceof PyTuple ? outSpec.items[j] : outSpec;
      if (typeof s !== 'bigint') throw new CompileError('vmap out_axes must be an int or a tuple of ints', call.span);
      return Number(s);
    };
    return vmapOnHost(ip, flat.leaves, axes, size, (ls) => ip.call(fn.fn, { args: (flat.unflatten(ls) as PyTuple).items, kwargs: new Map(), span: call.span }), outAxis, call.span);
  }
  const { results: declared, rebuild } = traced;
  const debug = takeDebugCalls(t);
  const nDebug = debug.atoms.length;
  const results = [...declared, ...debug.atoms, ...refs.atoms];
  const func = t.builder.finish(results, t.axisEnv);
  const batched = [...axes.filter((_, i) => !isStatic[i]).map((a) => a !== null), ...t.captured.map(() => false)];
  const outBatched: boolean[] = [];
  const bf = diffErrors(call.span, () => vmapFunc(func, batched, size, typeof vmapAxis === 'string' ? vmapAxis : undefined, outBatched));
  const argAtoms = [
    ...flat.leaves.flatMap((l, i) => {
      if (isStatic[i]) return [];
      return [axes[i] === null ? ip.ops.atom(l, call.span) : ip.ops.moveAxis(ip.ops.asArray(l, call.span), axes[i]!, 0, call.span).atom];
    }),
    ...t.captured.map((c) => ip.ops.atom(c, call.span)),
  ];
  // the current trace, not `parent`: a print of a host array while tracing flushes the host segment (a new one starts)
  const into = ip.trace();
  checkTracedOps(into.builder.eqns.length + bf.eqns.length, call.span);
  const outs = into.builder.inline(inlinable(ip, bf), argAtoms);
  const debugValues = outs.slice(declared.length, declared.length + nDebug).map((o) => ip.ops.tracer(o));
  // each ref passed in gets its per-element values back along the axis it was mapped over
  refs.commit(outs.slice(declared.length + nDebug).map((o, j) => {
    const at = refLeaves.indexOf(refs.targets[j]!);
    const ax = at >= 0 ? axes[at]! : null;
    if (ax === null) throw new CompileError(`Exception: performing a set/swap operation with vmapped value on an unbatched array reference of type ${refType(o.aval)}. Move the array reference to be an argument to the vmapped function?`, call.span);
    return ip.ops.moveAxis(ip.ops.tracer(o), 0, ax, call.span);
  }));
  const outSpec = fn.options.get('out_axes')!;
  // out_axes is a tree prefix of the result (None: an unmapped result, left without the batch axis)
  const outAxes = axesFor(ip, outSpec, rebuild(outs.slice(0, declared.length).map((o) => ip.ops.tracer(o))), 'vmap out_axes', call.span);
  const moved = outs.slice(0, declared.length).map((o, j) => {
    const s = outAxes.length === declared.length ? outAxes[j]! : outSpec instanceof PyTuple ? outSpec.items[j] : outSpec;
    if (s === null) {
      if (outBatched[j]) throw new CompileError('ValueError: at vmap out_axes, got axis spec None but output was batched on axis 0', call.span);
      return ip.ops.index(ip.ops.tracer(o), [{ kind: 'int', value: 0 }], call.span);
    }
    if (typeof s !== 'bigint' && typeof s !== 'number') throw new CompileError('vmap out_axes must be an int or a tuple of ints', call.span);
    const r = o.aval.shape.length;
    const n = Number(s) < 0 ? Number(s) + r : Number(s);
    return ip.ops.moveAxis(ip.ops.tracer(o), 0, n, call.span);
  });
  // jax.debug calls inside print once per element (JAX's batching rule), in the enclosing trace or now at host level
  const index = (v: PyValue, i: number): PyValue => ip.ops.index(v, [{ kind: 'int', value: i }], call.span);
  deliverDebugCalls(ip.trace(), debug.calls, debugValues, t, { size, index, batched: outBatched.slice(declared.length) }, (vs) => ip.flush([...vs, ...moved]));
  return rebuild(moved);
}

/**
 * pmap called while tracing (make_jaxpr, jit, grad): JAX 0.10's pmap (jax/_src/pmap.py) is
 * jit(shard_map(_fun)) over a mesh of the first `size` devices on the one axis `axis_name`,
 * `_fun` squeezing each argument's mapped axis and expanding each result's.
 */
function pmapInTrace(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const args = new PyTuple(call.args);
  const flat = flatten(args, true);
  const inSpec = fn.options.get('in_axes')!;
  checkInAxesArity(inSpec, args, 'pmap', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axesFor(ip, inSpec, args, 'pmap in_axes', call.span), 'pmap', call.span);
  const nDev = ip.devices(call.span).items.length;
  if (size > nDev) throw new CompileError(`ValueError: compiling computation that requires ${size} logical devices, but only ${nDev} XLA devices are available (num_replicas=${size})`, call.span);
  const nameOpt = fn.options.get('axis_name');
  const name = typeof nameOpt === 'string' ? nameOpt : '_internal_pmap_axis_name';
  const spec = (ax: number | null): PyPartitionSpec => new PyPartitionSpec(ax === null ? [] : [...Array.from({ length: ax }, () => null), name]);
  const outSpec = fn.options.get('out_axes')!;
  const outAxesSpec = (s: PyValue): PyValue => {
    if (s === null) return null;
    if (typeof s === 'bigint') return spec(Number(s));
    if (s instanceof PyTuple || s instanceof PyList) return new PyTuple(s.items.map(outAxesSpec));
    throw new CompileError(`TypeError: pmap out_axes must be an int, None, or (nested) container with those types as leaves, but got ${typeName(s)}.`, call.span);
  };
  const body = new PyBuiltin('_fun', (c) => {
    const squeezed = c.args.map((x, i) => (axes[i] === null ? x : ip.ops.index(x, [...Array.from({ length: axes[i]! }, () => ({ kind: 'slice' as const, start: null, stop: null, step: null })), { kind: 'int', value: 0 }], c.span)));
    const out = ip.call(fn.fn, { args: (flat.unflatten(squeezed) as PyTuple).items, kwargs: new Map(), span: c.span });
    const outFlat = flatten(out);
    const outAxes = axesFor(ip, outSpec, out, 'pmap out_axes', c.span);
    return outFlat.unflatten(outFlat.leaves.map((l, j) => (outAxes[j] === null ? l : ip.ops.expandDims(ip.ops.asArray(l, c.span), outAxes[j]!, c.span))));
  });
  const mesh = new PyMesh(new PyDeviceArray([size], Array.from({ length: size }, (_, i) => i)), [name], false);
  const jax = ip.library.importModule('jax', call.span);
  const kw = new Map<string, PyValue>([['mesh', mesh], ['in_specs', new PyTuple(axes.map(spec))], ['out_specs', outAxesSpec(outSpec)], ['check_vma', false]]);
  const mapped = ip.call(jax.attrs.get('shard_map')!, { args: [body], kwargs: kw, span: call.span });
  return ip.call(jitOf(ip, { args: [mapped], kwargs: new Map(), span: call.span }), { args: flat.leaves, kwargs: new Map(), span: call.span });
}

/** The argnums option as a list of argument positions (and whether it was a single int). */
function argnumsOf(ip: Interp, fn: PyTransformed, nArgs: number, span: A.Span): { nums: number[]; single: boolean } {
  const spec = fn.options.get('argnums')!;
  const items = spec instanceof PyTuple || spec instanceof PyList ? spec.items : [spec];
  const nums = items.map((v) => {
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: argnums must be an int or a tuple of ints, got ${typeName(v)}`, span);
    return Number(v);
  });
  const max = Math.max(...nums);
  if (max >= nArgs) {
    const shown = spec instanceof PyTuple || spec instanceof PyList ? `(${nums.join(', ')}${nums.length === 1 ? ',' : ''})` : String(nums[0]);
    throw new CompileError(
      `TypeError: differentiating with respect to argnums=${shown} requires at least ${max + 1} positional arguments to be passed by the caller, but got only ${nArgs} positional arguments.`,
      span,
    );
  }
  return { nums: nums.map((n) => (n < 0 ? n + nArgs : n)), single: !(spec instanceof PyTuple || spec instanceof PyList) };
}

/**
 * jax.grad / jax.value_and_grad: trace the function with the argnums leaves
 * as parameters (other arguments pass through as they are; arrays among them
 * are captured), differentiate with vjpFunc, and inline the result into the
 * current trace. The gradients rebuild the argnums arguments' pytrees.
 */
function callGrad(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const name = fn.transform;
  const span = call.span;
  const allowInt = truthy(fn.options.get('allow_int')!, span);
  const holomorphic = truthy(fn.options.get('holomorphic')!, span);
  const hasAux = truthy(fn.options.get('has_aux')!, span);
  const { nums, single } = argnumsOf(ip, fn, call.args.length, span);
  const parent = ip.trace();
  const t = new Trace(fn.name, 'grad', parent, parent.axisEnv);
  const flats = nums.map((i) => flatten(call.args[i]!));
  // allow_int: an int or bool leaf is not differentiated (it passes through); its gradient is a float0 array of its shape
  const float0Shapes = flats.map((fl) => fl.leaves.map((): readonly number[] | null => null));
  const diffLeaves: PyValue[] = [];
  const args = [...call.args];
  const gradParams: { tracer: Tracer; outer: PyValue; batchDim: number | null }[] = [];
  flats.forEach((fl, k) => {
    args[nums[k]!] = ip.withTrace(t, () => fl.unflatten(
      fl.leaves.map((l, j) => {
        const a = avalOf(ip, l, span);
        if (holomorphic && a.dtype !== 'complex64') throw new CompileError(`TypeError: grad with holomorphic=True requires inputs with complex dtype, but got ${a.dtype}.`, span);
        if (!isInexact(a.dtype)) {
          if (allowInt) {
            float0Shapes[k]![j] = a.shape;
            return l;
          }
          throw new CompileError(
            `TypeError: grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got ${a.dtype}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.`,
            span,
          );
        }
        diffLeaves.push(l);
        const v = t.builder.addParam(typeof l === 'number' || l instanceof PyComplex ? { ...a, weak: true } : a);
        t.outer.set(v, l);
        const p = new Tracer(t, v);
        gradParams.push({ tracer: p, outer: l, batchDim: 0 });
        return p;
      }),
    ));
  });
  noteTraceParams(t, gradParams);
  // refs passed through (not differentiated) or closed over may be written: their new values are extra primal results
  carryRefs(t, 'jit', `${functionInfo(ip, fn.fn)} for ${name}`);
  let refs: ReturnType<typeof finishRefs> | undefined;
  const { main, aux } = ip.withTrace(t, () => {
    let out: PyValue;
    try {
      out = ip.call(fn.fn, { args, kwargs: call.kwargs, span });
    } finally {
      refs = finishRefs(ip, t, span);
    }
    let mainV = out;
    let auxFlat: Flat | null = null;
    if (hasAux) {
      if (!((out instanceof PyTuple && !out.cls) || out instanceof PyList) || out.items.length !== 2) {
        throw new CompileError(`TypeError: expected function with aux output to return a two-element tuple, but got type ${typeName(out)}`, span);
      }
      mainV = out.items[0]!;
      auxFlat = auxFlatOf(out.items[1]!, true);
    }
    if (!isArray(mainV) && !(mainV instanceof NdArray) && typeof mainV !== 'number' && typeof mainV !== 'bigint' && typeof mainV !== 'boolean') {
      // JAX shows the output; a traced array in it has no text here (format.ts), so then only its type
      const shown = flatten(mainV).leaves.some(isArray) ? `a ${typeName(mainV)}` : ip.repr(mainV, span).static ?? typeName(mainV);
      throw new CompileError(`TypeError: Gradient only defined for scalar-output functions. Output was ${shown}.`, span);
    }
    const m = ip.ops.asArray(mainV, span);
    const shape = m.aval.shape;
    if (shape.length) {
      throw new CompileError(`TypeError: Gradient only defined for scalar-output functions. Output had shape: (${shape.join(', ')}${shape.length === 1 ? ',' : ''}).`, span);
    }
    if (holomorphic && m.aval.dtype !== 'complex64') throw new CompileError(`TypeError: grad with holomorphic=True requires outputs with complex dtype, but got ${m.aval.dtype}.`, span);
    if (!holomorphic && m.aval.dtype === 'complex64') {
      throw new CompileError(
        'TypeError: grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly.',
        span,
      );
    }
    if (!isInexact(m.aval.dtype)) {
      throw new CompileError(
        `TypeError: grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got ${m.aval.dtype}. For differentiation of functions with integer outputs, use jax.vjp directly.`,
        span,
      );
    }
    const auxAtoms = (auxFlat?.leaves ?? []).map((l) => {
      if (!isArray(l) && !(l instanceof NdArray) && typeof l !== 'number' && typeof l !== 'bigint' && typeof l !== 'boolean') {
        throw new CompileError(`TypeError: the auxiliary output contains a ${typeName(l)}, which is not a valid JAX type`, span);
      }
      return ip.ops.asArray(l, span).atom;
    });
    return { main: m.atom, aux: { atoms: auxAtoms, flat: auxFlat } };
  });
  const debug = takeDebugCalls(t);
  const refAtoms = refs!.atoms;
  const func = t.builder.finish([main, ...aux.atoms, ...debug.atoms, ...refAtoms], t.axisEnv);
  const backwards: Func[] = [];
  const onBackward = (bwd: Func): number => (backwards.push(bwd), backwardPrintValues(bwd));
  const argAtoms = [...diffLeaves.map((l) => ip.ops.asArray(l, span).atom), ...t.captured.map((c) => ip.ops.atom(c, span))];
  const into = ip.trace(); // not `parent`: see callVmap
  // in a shard_map body with check_vma, the cotangents follow JAX's vma rules (pvary's transpose is a psum)
  const vma = checksVma(into) ? (varyingOfAll(into, argAtoms) ?? undefined) : undefined;
  const vf0 = diffErrors(span, () => vjpFunc(func, func.params.map((_, i) => i < diffLeaves.length), { name: `${fn.name}_${name}`, onBackward, ...(vma ? { vma } : {}), ...(onExplicitMesh(ip, [...diffLeaves, ...t.captured]) ? { seedReshard: true } : {}) }));
  // the transposes' psums (one per gradient leaf) merged as XLA's all-reduce combiner merges them
  const vf = vma ? combineAllReduces(vf0) : vf0;
  checkTracedOps(into.builder.eqns.length + vf.eqns.length, span);
  const outs = into.builder.inline(inlinable(ip, vf), argAtoms).map((a) => ip.ops.tracer(a));
  const value = outs[0]!;
  const auxV = aux.flat ? aux.flat.unflatten(outs.slice(1, 1 + aux.atoms.length)) : null;
  // jax.debug calls inside show primal values: extra results of the forward pass
  deliverDebugCalls(into, debug.calls, outs.slice(1 + aux.atoms.length, 1 + aux.atoms.length + debug.atoms.length), t, undefined, (vs) => ip.flush([...vs, ...outs]));
  // then what custom_vjp backward rules printed: JAX runs them after the forward pass (their values: the last results)
  deliverBackwardPrints(ip, backwards, outs);
  let k = 1 + aux.atoms.length + debug.atoms.length;
  refs!.commit(outs.slice(k, k + refAtoms.length));
  k += refAtoms.length;
  const grads = flats.map((fl, i) => fl.unflatten(float0Shapes[i]!.map((f0) => (f0 ? new PyFloat0Array(f0) : outs[k++]!))));
  const g = single ? grads[0]! : new PyTuple(grads);
  if (name === 'grad') return hasAux ? new PyTuple([g, auxV]) : g;
  return new PyTuple([hasAux ? new PyTuple([value, auxV]) : value, g]);
}

// ------------------------------------------------------------------ jvp, vjp, linearize, jacobians

/** A function traced for differentiation: its Func takes the differentiated leaves, then the captured values. */
interface Traced {
  func: Func;
  captured: (HostArray | Tracer)[];
  /** The differentiated leaves, as passed. */
  leaves: PyValue[];
  /** One flattening per differentiated argument. */
  argFlats: Flat[];
  out: Flat;
  aux: Flat | null;
  /** jvp, linearize, vjp: the prints of primal values made while tracing (shown when the primal outputs are computed). */
  debug?: { calls: DebugCall[]; atoms: Atom[]; trace: Trace };
}

const isLeafValue = (l: PyValue): boolean => isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean';

/**
 * Trace `fn(*args)` with the leaves of the arguments at `nums` as parameters
 * (the other arguments pass through as they are). Results: the main output's
 * leaves, then (has_aux) the auxiliary output's.
 */
function traceForDiff(ip: Interp, name: string, fn: PyValue, args: PyValue[], nums: number[], kwargs: Map<string, PyValue>, hasAux: boolean, span: A.Span, jacobian: 'jacfwd' | 'jacrev' | null = null): Traced {
  const parent = ip.trace();
  const t = new Trace(name, 'grad', parent, parent.axisEnv);
  t.jvp = name === 'jvp';
  const argFlats = nums.map((i) => flatten(args[i]!));
  const leaves = argFlats.flatMap((fl) => fl.leaves);
  if (jacobian === 'jacfwd') t.jacfwdBasis = leaves.reduce<number>((n, l) => n + sizeOf(avalOf(ip, l, span).shape), 0);
  const callArgs = [...args];
  const params: { tracer: Tracer; outer: PyValue; batchDim: number }[] = [];
  argFlats.forEach((fl, k) => {
    callArgs[nums[k]!] = ip.withTrace(t, () => fl.unflatten(
      fl.leaves.map((l) => {
        const a = avalOf(ip, l, span);
        const v = t.builder.addParam(typeof l === 'number' ? { ...a, weak: true } : a);
        t.outer.set(v, l);
        const p = new Tracer(t, v);
        params.push({ tracer: p, outer: l, batchDim: 0 });
        return p;
      }),
    ));
  });
  // a print inside a jacobian shows a value that does not depend on the arguments as it is
  if (jacobian) noteTraceParams(t, params);
  const r = ip.withTrace(t, () => {
    let out = ip.call(fn, { args: callArgs, kwargs, span });
    let aux: Flat | null = null;
    if (hasAux) {
      if (!((out instanceof PyTuple && !out.cls) || out instanceof PyList) || out.items.length !== 2) {
        throw new CompileError(`TypeError: expected function with aux output to return a two-element tuple, but got type ${typeName(out)}`, span);
      }
      aux = auxFlatOf(out.items[1]!);
      out = out.items[0]!;
    }
    const flat = flatten(out);
    const atoms = [...flat.leaves, ...(aux?.leaves ?? [])].map((l) => {
      if (!isLeafValue(l)) throw new CompileError(`TypeError: the function returned a ${typeName(l)}, which is not a valid JAX type`, span);
      return ip.ops.asArray(l, span).atom;
    });
    return { atoms, out: flat, aux };
  });
  // prints that show no traced value (a print of a string while tracing) are handed on, in order
  const debug = takeDebugCalls(t);
  const func = t.builder.finish(r.atoms, t.axisEnv);
  // linearize, vjp and the jacobians show primal values (GradTracer(primal=...)): extra results of the forward pass (primalOuts)
  if (debug.atoms.length && (name === 'linearize' || name === 'vjp' || name === 'jvp' || jacobian)) return { func, captured: t.captured, leaves, argFlats, out: r.out, aux: r.aux, debug: { ...debug, trace: t } };
  if (debug.atoms.length) throw new CompileError(`jax.debug.print / callback (or a print showing a concrete value) inside jax.${name} is not supported by jaxts yet`, debug.calls[0]!.span);
  deliverDebugCalls(ip.trace(), debug.calls, [], t);
  return { func, captured: t.captured, leaves, argFlats, out: r.out, aux: r.aux };
}

/** jacrev applies a custom_vjp backward rule once per output element: its prints of strings run, its prints of values are not supported. */
function jacrevBackward(ip: Interp, bwd: Func, span: A.Span): number {
  if (backwardPrintValues(bwd)) throw new CompileError('jax.debug.print of a traced value inside a custom_vjp bwd rule under jax.jacrev is not supported by jaxts yet', span);
  backwardApplied(ip, bwd, []);
  return 0;
}

/** Run the prints of the custom_vjp backward rules a backward program applied; the values they show end `outs`. */
function deliverBackwardPrints(ip: Interp, backwards: Func[], outs: Tracer[]): void {
  let k = outs.length - backwards.reduce((n, bwd) => n + backwardPrintValues(bwd), 0);
  for (const bwd of backwards) {
    const n = backwardPrintValues(bwd);
    backwardApplied(ip, bwd, outs.slice(k, k + n), outs);
    k += n;
  }
}

/** The traced Func's arguments in the current trace: the differentiated leaves, then the captured values. */
function primalAtoms(ip: Interp, tr: Traced, span: A.Span): Atom[] {
  return [...tr.leaves.map((l) => ip.ops.asArray(l, span).atom), ...tr.captured.map((c) => ip.ops.atom(c, span))];
}

/**
 * Is a differentiation (grad, jvp, vjp, jacobian) tracing the current code
 * that will differentiate a custom call made here? The rule bodies of a custom
 * call are traced in a 'custom' trace under the differentiation that applies
 * the rule, and that differentiation does not differentiate them again: each
 * 'custom' trace on the way up uses up the nearest differentiation above it.
 * So in `grad(grad(f))` a custom function called inside a rule of another (or
 * of itself: the fixed-point pattern) records its own rule for the outer grad,
 * as JAX does, while a call in a rule under a single grad runs plainly (which
 * also ends a fwd rule's call of its own function).
 */
export function underDifferentiation(ip: Interp): boolean {
  let used = 0;
  for (let t: Trace | null = ip.trace(); t; t = t.parent) {
    if (t.kind === 'custom') used++;
    else if (t.kind === 'grad') {
      if (used === 0) return true;
      used--;
    }
  }
  return false;
}

/** A transformation's result as the current trace takes it: its custom calls kept while an enclosing differentiation needs their rules. */
const inlinable = (ip: Interp, f: Func): Func => (underDifferentiation(ip) ? f : expandCustomCalls(f));

/**
 * Inline a transformation's result into the current trace. Its custom calls
 * (custom_jvp / custom_vjp functions it applied without differentiating them)
 * stay calls while an enclosing differentiation will need their rules.
 */
function inlineInto(ip: Interp, f: Func, args: Atom[], span: A.Span): Tracer[] {
  const b = ip.trace().builder;
  checkTracedOps(b.eqns.length + f.eqns.length, span);
  return b.inline(inlinable(ip, f), args).map((a) => ip.ops.tracer(a));
}

const nOut = (tr: Traced): number => tr.out.leaves.length;
const nAux = (tr: Traced): number => tr.aux?.leaves.length ?? 0;
const isFloatLeaf = (tr: Traced, i: number): boolean => isInexact(tr.func.params[i]!.aval.dtype);
/** Which of the traced Func's parameters are differentiated: the float leaves. */
const wrtOf = (tr: Traced): boolean[] => tr.func.params.map((_, i) => i < tr.leaves.length && isFloatLeaf(tr, i));

function kwBool(ip: Interp, c: CallArgs, name: string): boolean {
  const v = c.kwargs.get(name);
  return v === undefined ? false : truthy(v, c.span);
}

function checkKwargs(c: CallArgs, fname: string, allowed: string[]): void {
  for (const k of c.kwargs.keys()) {
    if (!allowed.includes(k)) throw new CompileError(`TypeError: ${fname}() got an unexpected keyword argument '${k}'`, c.span);
  }
}

/** Primal outputs (and aux) of a traced function, computed in the current trace. */
function primalOuts(ip: Interp, tr: Traced, span: A.Span): { out: PyValue; aux: PyValue } {
  const debug = tr.debug;
  if (debug) {
    // the prints' values too, shown right after (once: JAX prints while it traces the forward pass)
    tr.debug = undefined;
    const all = inlineInto(ip, { ...tr.func, results: [...tr.func.results, ...debug.atoms] }, primalAtoms(ip, tr, span), span);
    const outs = all.slice(0, tr.func.results.length);
    deliverDebugCalls(ip.trace(), debug.calls, all.slice(outs.length), debug.trace, undefined, (vs) => ip.flush([...vs, ...all]));
    return { out: tr.out.unflatten(outs.slice(0, nOut(tr))), aux: tr.aux ? tr.aux.unflatten(outs.slice(nOut(tr))) : null };
  }
  const outs = inlineInto(ip, tr.func, primalAtoms(ip, tr, span), span);
  return { out: tr.out.unflatten(outs.slice(0, nOut(tr))), aux: tr.aux ? tr.aux.unflatten(outs.slice(nOut(tr))) : null };
}

/** jax.jvp(fun, primals, tangents, has_aux=False) */
export function jvpCall(ip: Interp, c: CallArgs): PyValue {
  checkKwargs(c, 'jvp', ['fun', 'primals', 'tangents', 'has_aux']);
  const span = c.span;
  const fn = c.args[0] ?? c.kwargs.get('fun') ?? null;
  const primals = opt(c, 'primals', 1, null);
  const tangents = opt(c, 'tangents', 2, null);
  const hasAux = truthy(opt(c, 'has_aux', 3, false), span);
  if (!(primals instanceof PyTuple || primals instanceof PyList) || !(tangents instanceof PyTuple || tangents instanceof PyList)) {
    throw new CompileError(
      `TypeError: primal and tangent arguments to jax.jvp must be tuples or lists; found ${typeName(primals)} and ${typeName(tangents)}.`,
      span,
    );
  }
  const tr = traceForDiff(ip, 'jvp', fn, primals.items, primals.items.map((_, i) => i), new Map(), hasAux, span);
  const tflat = flatten(new PyTuple(tangents.items)).leaves;
  if (tflat.length !== tr.leaves.length) {
    throw new CompileError('TypeError: primal and tangent arguments to jax.jvp must have the same tree structure', span);
  }
  const wrt = wrtOf(tr);
  tr.leaves.forEach((p, i) => {
    const pa = tr.func.params[i]!.aval;
    const ta = avalOf(ip, tflat[i]!, span);
    if (wrt[i] && ta.dtype !== pa.dtype) {
      throw new CompileError(
        `TypeError: primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype ${pa.dtype} and so expected tangent dtype ${pa.dtype}, but got tangent dtype ${ta.dtype} instead.`,
        span,
      );
    }
    if (ta.shape.length !== pa.shape.length || ta.shape.some((d, k) => d !== pa.shape[k])) {
      const sh = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
      throw new CompileError(`ValueError: jvp called with different primal and tangent shapes;Got primal shape ${sh(pa.shape)} and tangent shape as ${sh(ta.shape)}`, span);
    }
    void p;
  });
  const tanAtoms = tflat.filter((_, i) => wrt[i]).map((t) => ip.ops.asArray(t, span).atom);
  const n = nOut(tr);
  const debug = tr.debug;
  if (debug) {
    // prints inside show JVPTracer(primal=..., tangent=...): the printed values and their tangents are
    // extra results, [outs, printed, aux] with tangents for the first two
    const nd = debug.atoms.length;
    if (debug.atoms.some((a) => !isInexact(a.aval.dtype))) throw new CompileError('a print of a non-float value inside jax.jvp is not supported by jaxts yet', debug.calls[0]!.span);
    const res = tr.func.results;
    const f = { ...tr.func, results: [...res.slice(0, n), ...debug.atoms, ...res.slice(n)] };
    const jfd = diffErrors(span, () => jvpFunc(f, wrt, { name: `${tr.func.name}_jvp`, tangentResults: n + nd }));
    const all = inlineInto(ip, jfd, [...primalAtoms(ip, tr, span), ...tanAtoms], span);
    const shownValues = all.slice(n, n + nd);
    const tangentsShown = all.slice(all.length - nd);
    // (an argument's tangent is the one passed in)
    const tangentOf = (v: PyValue): PyValue => {
      if (!(v instanceof TangentOf)) return v;
      const j = debug.atoms.indexOf(v.primal.atom);
      if (j >= 0) return tangentsShown[j]!;
      const p = tr.func.params.findIndex((q) => q === v.primal.atom);
      if (p < 0 || p >= tflat.length) throw new CompileError('a print inside jax.jvp of a value whose tangent jaxts cannot show is not supported yet', span);
      return tflat[p]!;
    };
    const calls = debug.calls.map((c) => ({ ...c, args: c.args.map(tangentOf) }));
    deliverDebugCalls(ip.trace(), calls, shownValues, debug.trace, undefined, (vs) => ip.flush([...vs, ...all]));
    const nA = nAux(tr);
    const out = tr.out.unflatten(all.slice(0, n));
    const tout = tr.out.unflatten(all.slice(n + nd + nA, n + nd + nA + n));
    if (!hasAux) return new PyTuple([out, tout]);
    return new PyTuple([out, tout, tr.aux!.unflatten(all.slice(n + nd, n + nd + nA))]);
  }
  const jf = diffErrors(span, () => jvpFunc(tr.func, wrt, { name: `${tr.func.name}_jvp`, tangentResults: n }));
  const outs = inlineInto(ip, jf, [...primalAtoms(ip, tr, span), ...tanAtoms], span);
  const out = tr.out.unflatten(outs.slice(0, n));
  const tout = tr.out.unflatten(outs.slice(n + nAux(tr), n + nAux(tr) + n));
  if (!hasAux) return new PyTuple([out, tout]);
  return new PyTuple([out, tout, tr.aux!.unflatten(outs.slice(n, n + nAux(tr)))]);
}

/** jax.linearize(fun, *primals, has_aux=False): (out, f_jvp[, aux]); f_jvp re-applies the JVP at the saved primals. */
export function linearizeCall(ip: Interp, c: CallArgs): PyValue {
  checkKwargs(c, 'linearize', ['has_aux']);
  const span = c.span;
  const hasAux = kwBool(ip, c, 'has_aux');
  const primals = c.args.slice(1);
  const tr = traceForDiff(ip, 'linearize', c.args[0]!, primals, primals.map((_, i) => i), new Map(), hasAux, span);
  const { out, aux } = primalOuts(ip, tr, span);
  const wrt = wrtOf(tr);
  const jf = diffErrors(span, () => jvpFunc(tr.func, wrt, { name: `${tr.func.name}_jvp`, tangentResults: nOut(tr), linearized: true }));
  const fJvp = new PyBuiltin('f_jvp', (cc) => {
    const tflat = flatten(new PyTuple(cc.args)).leaves;
    if (tflat.length !== tr.leaves.length) {
      throw new CompileError(`TypeError: linearized function called on tangent values inconsistent with the original primal values`, cc.span);
    }
    const tanAtoms = tflat.filter((_, i) => wrt[i]).map((t) => ip.ops.asArray(t, cc.span).atom);
    const outs = inlineInto(ip, jf, [...primalAtoms(ip, tr, cc.span), ...tanAtoms], cc.span);
    const n = nOut(tr);
    return tr.out.unflatten(outs.slice(n + nAux(tr), n + nAux(tr) + n));
  });
  return new PyTuple(hasAux ? [out, fJvp, aux] : [out, fJvp]);
}

/** jax.vjp(fun, *primals, has_aux=False): (out, vjp_fun[, aux]); vjp_fun(ct) gives one cotangent per primal, in a tuple. */
export function vjpCall(ip: Interp, c: CallArgs): PyValue {
  checkKwargs(c, 'vjp', ['has_aux']);
  const span = c.span;
  const hasAux = kwBool(ip, c, 'has_aux');
  const primals = c.args.slice(1);
  // a ref-typed primal: JAX 0.10.2 runs the function, and its VJP fails when applied (the gradient of a ref is a ref)
  const refPrimal = primals.flatMap((p) => flatten(p).leaves).find((l): l is PyRef => l instanceof PyRef);
  if (refPrimal) {
    const out = ip.call(c.args[0]!, { args: primals, kwargs: new Map(), span });
    const fail = (cs: A.Span): never => {
      throw new CompileError(`ValueError: Expected cotangent type ${refType(refPrimal.value.aval)} but got ${refType(refPrimal.value.aval).slice(4, -1)}`, cs);
    };
    const vjpFun = new PyBuiltin('vjp_fun', (cc) => fail(cc.span));
    vjpWithRefs.set(vjpFun, () => new PyBuiltin('vjp_fun', (cc) => fail(cc.span)));
    return hasAux ? new PyTuple([(out as PyTuple).items[0]!, vjpFun, (out as PyTuple).items[1]!]) : new PyTuple([out, vjpFun]);
  }
  const tr = traceForDiff(ip, 'vjp', c.args[0]!, primals, primals.map((_, i) => i), new Map(), hasAux, span);
  const { out, aux } = primalOuts(ip, tr, span);
  // the backward program is made when vjp_fun is first called, as JAX transposes then (and runs custom_vjp bwd rules then)
  const vfs = new Map<string, Func>();
  const backwards: Func[] = [];
  /** The cotangents of the primals for cotangent `cc.args[0]`; `want[i]` false: none computed for primal i (null). */
  const apply = (cc: CallArgs, want: boolean[]): PyTuple => {
    const leafArg = tr.argFlats.flatMap((f, k) => f.leaves.map(() => k));
    const wrt = wrtOf(tr).map((w, i) => w && want[leafArg[i] ?? -1] !== false);
    const key = wrt.join();
    if (cc.args.length !== 1) throw new CompileError(`TypeError: The function returned by \`jax.vjp\` applied to ${tr.func.name} was called with ${cc.args.length} arguments, but functions returned by \`jax.vjp\` must be called with a single argument corresponding to the single value returned by ${tr.func.name} (even if the returned value is a tuple or other container).`, cc.span);
    const cts = flatten(cc.args[0]!).leaves;
    if (cts.length !== nOut(tr)) throw new CompileError('ValueError: unexpected tree structure of argument to vjp function', cc.span);
    let vf = vfs.get(key);
    if (!vf) {
      const full = diffErrors(cc.span, () =>
        vjpFunc(tr.func, wrt, { name: `${tr.func.name}_vjp`, cotangentParams: nOut(tr), onBackward: (bwd) => (backwards.push(bwd), backwardPrintValues(bwd)) }),
      );
      // the cotangents only: the primal results were given by jax.vjp (JAX's VJP keeps residuals, it does not recompute them)
      vf = dce({ ...full, results: full.results.slice(nOut(tr) + nAux(tr)) });
      vfs.set(key, vf);
    }
    const ctAtoms = cts.map((ct, j) => {
      const want = tr.func.results[j]!.aval;
      const a = ip.ops.asArray(ct, cc.span);
      if (a.aval.shape.length !== want.shape.length || a.aval.shape.some((d, k) => d !== want.shape[k])) {
        throw new CompileError(`ValueError: unexpected JAX type (e.g. shape/dtype) for argument and cotangent pair: primal ${want.dtype}[${want.shape.join(',')}] and cotangent ${a.aval.dtype}[${a.aval.shape.join(',')}]`, cc.span);
      }
      return a.atom;
    });
    const outs = inlineInto(ip, vf, [...primalAtoms(ip, tr, cc.span), ...ctAtoms], cc.span);
    deliverBackwardPrints(ip, backwards, outs);
    // an int or bool primal's cotangent: a float0 array of its shape
    let k = 0;
    let leaf = 0;
    return new PyTuple(tr.argFlats.map((fl, i) => {
      const leaves = fl.leaves.map(() => leaf++);
      if (want[i] === false) return null;
      return fl.unflatten(leaves.map((j) => (isFloatLeaf(tr, j) ? outs[k++]! : new PyFloat0Array(tr.func.params[j]!.aval.shape))));
    }));
  };
  const vjpFun = new PyBuiltin('vjp_fun', (cc) => apply(cc, []));
  const vjpObj = newVjp(ip, { tr, apply, split: null, span, aux: new PyInstance(vjpClasses(ip).meta) }, null, null);
  // f_vjp.with_refs(spec, ...): per primal a Ref (its cotangent added into it), GradValue() (returned) or DontWant() (not computed)
  vjpWithRefs.set(vjpFun, (specs, sspan) => {
    if (specs.length !== tr.argFlats.length) throw new CompileError(`TypeError: with_refs expects ${tr.argFlats.length} arguments (one per primal), got ${specs.length}`, sspan);
    return new PyBuiltin('vjp_fun', (cc) => {
      const gs = apply(cc, specs.map((s) => !(s instanceof PyAdSpec && s.kind === 'DontWant')));
      return new PyTuple(specs.map((s, i) => {
        if (s instanceof PyRef) {
          refAddGrad(ip, s, gs.items[i]!, cc.span);
          return new PyAdSpec('GradRef');
        }
        return s instanceof PyAdSpec && s.kind === 'DontWant' ? new PyAdSpec('DidntWant') : gs.items[i]!;
      }));
    });
  });
  vjpObjs.get(vjpObj)!.withRefs = vjpFun;
  return new PyTuple(hasAux ? [out, vjpObj, aux] : [out, vjpObj]);
}

// ------------------------------------------------------------------ VJP objects (JAX's api.VJP)

/** What the function jax.vjp returns knows: the traced function and, once its residuals are asked for, the program split at them. */
interface VjpInfo {
  tr: Traced;
  /** The backward pass of the call that made it (it recomputes the forward pass; no residuals are kept). */
  apply: (cc: CallArgs, want: boolean[]) => PyTuple;
  split: ReturnType<typeof vjpSplit> | null;
  span: A.Span;
  /** Its static part as a pytree (a jit cache key): one per jax.vjp call. */
  aux: PyInstance;
}
/**
 * A VJP object: a pytree whose children are `args_res` (per primal argument,
 * the primal where the backward pass reads it, else NotNeeded()) and
 * `opaque_residuals` (the other residuals). Rebuilt from leaves, or with
 * residuals assigned, a call runs the backward program on them.
 */
interface VjpObj {
  info: VjpInfo;
  argsRes: PyValue;
  opaque: PyValue;
  explicit: boolean;
  withRefs?: PyBuiltin;
}
const vjpObjs = new WeakMap<PyInstance, VjpObj>();
const vjpInfos = new WeakMap<PyInstance, VjpInfo>();
const vjpClassCache = new WeakMap<Interp, { vjp: PyUserClass; notNeeded: PyUserClass; meta: PyUserClass }>();

function newVjp(ip: Interp, info: VjpInfo, argsRes: PyValue, opaque: PyValue): PyInstance {
  const o = new PyInstance(vjpClasses(ip).vjp);
  vjpObjs.set(o, { info, argsRes, opaque, explicit: argsRes !== null });
  vjpInfos.set(info.aux, info);
  return o;
}

/** The VJP classes of one compilation (their methods use its interpreter). */
function vjpClasses(ip: Interp): { vjp: PyUserClass; notNeeded: PyUserClass; meta: PyUserClass } {
  let cs = vjpClassCache.get(ip);
  if (cs) return cs;
  const vjp = new PyUserClass('VJP', [], 'jax._src.api');
  const notNeeded = new PyUserClass('NotNeeded', [], 'jax._src.api');
  notNeeded.attrs.set('__repr__', new PyNativeMethod('__repr__', () => 'NotNeeded()'));
  notNeeded.pytree = { flatten: () => ({ children: [], aux: null }), unflatten: () => new PyInstance(notNeeded) };
  const meta = new PyUserClass('partial', [], 'functools');
  cs = { vjp, notNeeded, meta };
  vjpClassCache.set(ip, cs);
  const objOf = (v: PyValue): VjpObj => vjpObjs.get(v as PyInstance)!;
  vjp.pytree = {
    flatten: (v) => {
      const o = objOf(v);
      vjpResiduals(ip, o);
      return { children: [o.argsRes, o.opaque], aux: o.info.aux };
    },
    unflatten: (aux, children) => newVjp(ip, vjpInfos.get(aux as PyInstance)!, children[0]!, children[1]!),
  };
  vjp.attrs.set('__call__', new PyNativeMethod('__call__', (self, c) => {
    const o = objOf(self);
    return o.explicit ? vjpFromResiduals(ip, o, c) : o.info.apply(c, []);
  }));
  const prop = (name: 'argsRes' | 'opaque'): PyDescriptor =>
    new PyDescriptor(
      'property',
      new PyBuiltin(name, (c) => vjpResiduals(ip, objOf(c.args[0]!))[name]),
      new PyBuiltin(name, (c) => {
        const o = vjpResiduals(ip, objOf(c.args[0]!));
        o[name] = c.args[1]!;
        o.explicit = true;
        return null;
      }),
    );
  vjp.attrs.set('args_res', prop('argsRes'));
  vjp.attrs.set('opaque_residuals', prop('opaque'));
  vjp.attrs.set('with_refs', new PyNativeMethod('with_refs', (self, c) => {
    const w = objOf(self).withRefs;
    const f = w && vjpWithRefs.get(w);
    if (!f) throw new CompileError('NotImplementedError: with_refs of a VJP rebuilt from its residuals is not supported by jaxts', c.span);
    return f(c.args, c.span);
  }));
  return cs;
}

/** Compute the residuals of a VJP object made by jax.vjp (in the trace that called it), once. */
function vjpResiduals(ip: Interp, o: VjpObj): VjpObj {
  if (o.argsRes !== null) return o;
  const { info } = o;
  const tr = info.tr;
  info.split ??= diffErrors(info.span, () => vjpSplit(tr.func, wrtOf(tr), nOut(tr)));
  const outs = inlineInto(ip, info.split.fwd, primalAtoms(ip, tr, info.span), info.span);
  const res = outs.slice(tr.func.results.length);
  const used = new Set(info.split.resParam.filter((p) => p >= 0 && p < tr.leaves.length));
  const notNeeded = vjpClasses(ip).notNeeded;
  // per primal argument: its leaves in tuples (JAX's tuptree_map over the primals' tree)
  let k = 0;
  const tup = (fl: Flat, v: PyValue): PyValue => {
    const leaf = (): PyValue => {
      const i = k++;
      return used.has(i) ? tr.leaves[i]! : new PyInstance(notNeeded);
    };
    const walk = (x: PyValue): PyValue => {
      if (x === null) return null;
      if (x instanceof PyTuple || x instanceof PyList) return new PyTuple(x.items.map(walk));
      if (x instanceof PyDict) return new PyTuple([...x.entries.values()].sort(([a], [b]) => compareKeys(a, b)).map(([, y]) => walk(y)));
      if (x instanceof PyInstance && x.cls.pytree) return new PyTuple(x.cls.pytree.flatten(x).children.map(walk));
      return leaf();
    };
    return fl.leaves.length === 1 && fl.leaves[0] === v ? leaf() : walk(v);
  };
  o.argsRes = new PyList(tr.argFlats.map((fl) => tup(fl, fl.unflatten(fl.leaves))));
  o.opaque = new PyList(res.filter((_, j) => !used.has(info.split!.resParam[j]!)));
  return o;
}

/** A call of a VJP object on the residuals it holds: the backward program. */
function vjpFromResiduals(ip: Interp, o: VjpObj, cc: CallArgs): PyTuple {
  const { info } = o;
  const tr = info.tr;
  const split = info.split!;
  if (cc.args.length !== 1) throw new CompileError(`TypeError: The function returned by \`jax.vjp\` applied to ${tr.func.name} was called with ${cc.args.length} arguments, but functions returned by \`jax.vjp\` must be called with a single argument corresponding to the single value returned by ${tr.func.name} (even if the returned value is a tuple or other container).`, cc.span);
  // the leaves of args_res, NotNeeded() included (JAX's tree_leaves with is_leaf=NotNeeded)
  const argLeaves: PyValue[] = [];
  const walk = (x: PyValue): void => {
    if (x === null) return;
    if (x instanceof PyTuple || x instanceof PyList) x.items.forEach(walk);
    else if (x instanceof PyDict) [...x.entries.values()].sort(([a], [b]) => compareKeys(a, b)).forEach(([, y]) => walk(y));
    else if (x instanceof PyInstance && x.cls.pytree && x.cls !== vjpClasses(ip).notNeeded) x.cls.pytree.flatten(x).children.forEach(walk);
    else argLeaves.push(x);
  };
  walk(o.argsRes);
  const opaque = flatten(o.opaque).leaves;
  let nOpaque = 0;
  const resAtoms = split.resParam.map((p) => {
    const isArg = p >= 0 && p < tr.leaves.length;
    const v = isArg ? argLeaves[p] : opaque[nOpaque++];
    if (v === undefined || (v instanceof PyInstance && v.cls === vjpClasses(ip).notNeeded)) {
      throw new CompileError(`ValueError: the backward pass of this VJP reads ${isArg ? `args_res leaf ${p}` : `opaque residual ${nOpaque - 1}`}, which it does not hold`, cc.span);
    }
    return ip.ops.asArray(v, cc.span).atom;
  });
  const cts = flatten(cc.args[0]!).leaves;
  if (cts.length !== nOut(tr)) throw new CompileError('ValueError: unexpected tree structure of argument to vjp function', cc.span);
  const ctAtoms = cts.map((ct) => ip.ops.asArray(ct, cc.span).atom);
  const outs = inlineInto(ip, split.bwd, [...resAtoms, ...ctAtoms], cc.span);
  let k = 0;
  return new PyTuple(tr.argFlats.map((fl) => {
    const g = fl.unflatten(outs.slice(k, k + fl.leaves.length));
    k += fl.leaves.length;
    return g;
  }));
}

/** Columns [off, off + size(shape)) of eye(n), each row reshaped to `shape`: (n, *shape), JAX's _std_basis part. */
function basisBlock(ip: Interp, n: number, off: number, shape: readonly number[], span: A.Span): Atom {
  const m = sizeOf(shape);
  const rows = ip.ops.bind('iota', [], { dtype: 'int32', shape: [n, m], dimension: 0, sharding: null }, span);
  let cols = ip.ops.bind('iota', [], { dtype: 'int32', shape: [n, m], dimension: 1, sharding: null }, span);
  if (off) {
    const o = ip.ops.bind('broadcast_in_dim', [{ kind: 'lit', value: off, aval: { shape: [], dtype: 'int32' } }], { shape: [n, m], broadcast_dimensions: [] }, span);
    cols = ip.ops.bind('add', [cols, o], {}, span);
  }
  const eq = ip.ops.bind('eq', [rows, cols], {}, span);
  const f = ip.ops.bind('convert_element_type', [eq], { new_dtype: 'float32', weak_type: false }, span);
  return shape.length === 1 ? f : ip.ops.bind('reshape', [f], { new_sizes: [n, ...shape], dimensions: null }, span);
}

/** Rows [off, off + size(shape)) of `x` (axis 0), reshaped to `shape` + the rest of x's shape. */
function rowsAs(ip: Interp, x: Atom, off: number, shape: readonly number[], span: A.Span): Atom {
  const m = sizeOf(shape);
  const xs = x.aval.shape;
  let r = x;
  if (off !== 0 || m !== xs[0]) {
    r = ip.ops.bind('slice', [x], { start_indices: xs.map(() => 0).map((z, d) => (d === 0 ? off : z)), limit_indices: xs.map((s, d) => (d === 0 ? off + m : s)), strides: null }, span);
  }
  const want = [...shape, ...xs.slice(1)];
  const cur = r.aval.shape;
  if (want.length === cur.length && want.every((d, i) => d === cur[i])) return r;
  return ip.ops.bind('reshape', [r], { new_sizes: want, dimensions: null }, span);
}

/**
 * jax.jacfwd / jax.jacrev: vmap of the JVP over the standard basis of the
 * inputs (jacfwd), or of the VJP over the standard basis of the outputs
 * (jacrev). Each block has the output leaf's shape followed by the input
 * leaf's; the result nests the inputs' structure inside the output's.
 */
function callJac(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const mode = fn.transform as 'jacfwd' | 'jacrev';
  const span = call.span;
  if (truthy(fn.options.get('holomorphic')!, span)) throw new CompileError(`jax.${mode}: holomorphic=True is not supported (jaxts has no complex numbers)`, span);
  if (fn.options.has('allow_int') && truthy(fn.options.get('allow_int')!, span)) throw new CompileError(`jax.${mode}: allow_int=True is not supported`, span);
  const hasAux = truthy(fn.options.get('has_aux')!, span);
  const { nums, single } = argnumsOf(ip, fn, call.args.length, span);
  for (const i of nums) {
    for (const l of flatten(call.args[i]!).leaves) {
      const dt = avalOf(ip, l, span).dtype;
      if (isFloat(dt)) continue;
      if (mode === 'jacfwd') {
        throw new CompileError(
          `TypeError: jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got ${dt}. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp directly.`,
          span,
        );
      }
      throw new CompileError(
        `TypeError: jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got ${dt}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.`,
        span,
      );
    }
  }
  // JAX checks the inputs with tree_map, which rebuilds each argument from the checks' results (None):
  // a registered class whose unflatten rejects None fails here, as in JAX
  for (const i of nums) {
    const fl = flatten(call.args[i]!);
    fl.unflatten(fl.leaves.map(() => null));
  }
  const tr = traceForDiff(ip, fn.name, fn.fn, call.args, nums, call.kwargs, hasAux, span, mode);
  // prints inside show primal values: computed by the forward pass, shown before the jacobian is
  if (tr.debug) primalOuts(ip, tr, span);
  const outAvals = tr.func.results.slice(0, nOut(tr)).map((r) => r.aval);
  const inAvals = tr.func.params.slice(0, tr.leaves.length).map((p) => p.aval);
  if (mode === 'jacrev') {
    for (const a of outAvals) {
      if (!isFloat(a.dtype)) {
        throw new CompileError(
          `TypeError: jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got ${a.dtype}. For differentiation of functions with integer outputs, use jax.vjp directly.`,
          span,
        );
      }
    }
  }
  const offsets = (avals: AVal[]): number[] => {
    let o = 0;
    return avals.map((a) => {
      const r = o;
      o += sizeOf(a.shape);
      return r;
    });
  };
  const outOff = offsets(outAvals);
  const inOff = offsets(inAvals);
  const M = outAvals.reduce((s, a) => s + sizeOf(a.shape), 0);
  const N = inAvals.reduce((s, a) => s + sizeOf(a.shape), 0);
  const nPrimal = tr.func.params.length;
  const base = primalAtoms(ip, tr, span);
  // block[j][i]: d out_j / d in_i, shape out_j.shape + in_i.shape
  let block: (j: number, i: number) => Atom;
  if (mode === 'jacrev') {
    const vf = diffErrors(span, () => vjpFunc(tr.func, wrtOf(tr), { name: `${tr.func.name}_vjp`, cotangentParams: nOut(tr), onBackward: (bwd) => jacrevBackward(ip, bwd, span) }));
    const bf = vmapFunc(vf, vf.params.map((_, i) => i >= nPrimal), M);
    const basis = outAvals.map((a, j) => basisBlock(ip, M, outOff[j]!, a.shape, span));
    const outs = inlineInto(ip, bf, [...base, ...basis], span);
    const grads = outs.slice(nOut(tr) + nAux(tr)).map((t) => t.atom); // (M, *in_i)
    block = (j, i) => rowsAs(ip, grads[i]!, outOff[j]!, outAvals[j]!.shape, span);
  } else {
    const jf = diffErrors(span, () => jvpFunc(tr.func, wrtOf(tr), { name: `${tr.func.name}_jvp`, tangentResults: nOut(tr) }));
    const bf = vmapFunc(jf, jf.params.map((_, i) => i >= nPrimal), N);
    const basis = inAvals.map((a, i) => basisBlock(ip, N, inOff[i]!, a.shape, span));
    const outs = inlineInto(ip, bf, [...base, ...basis], span);
    const tans = outs.slice(nOut(tr) + nAux(tr)).map((t) => t.atom); // (N, *out_j)
    block = (j, i) => {
      const r = rowsAs(ip, tans[j]!, inOff[i]!, [sizeOf(inAvals[i]!.shape)], span); // (n_i, *out_j)
      const k = r.aval.shape.length;
      const perm = [...range1(1, k), 0];
      const moved = k > 1 ? ip.ops.bind('transpose', [r], { permutation: perm }, span) : r;
      const want = [...outAvals[j]!.shape, ...inAvals[i]!.shape];
      const cur = moved.aval.shape;
      return want.length === cur.length && want.every((d, q) => d === cur[q]) ? moved : ip.ops.bind('reshape', [moved], { new_sizes: want, dimensions: null }, span);
    };
  }
  let leafBase = 0;
  const argBases = tr.argFlats.map((fl) => {
    const b = leafBase;
    leafBase += fl.leaves.length;
    return b;
  });
  const jac = tr.out.unflatten(
    outAvals.map((_, j) => {
      const perArg = tr.argFlats.map((fl, k) => fl.unflatten(fl.leaves.map((_l, q) => ip.ops.tracer(block(j, argBases[k]! + q)))));
      return single ? perArg[0]! : new PyTuple(perArg);
    }),
  );
  if (!hasAux) return jac;
  return new PyTuple([jac, primalOuts(ip, tr, span).aux]);
}

/** A differentiation pass's error worded as a Python exception (a custom rule's misuse) becomes the user's error at the call. */
function diffErrors<T>(span: A.Span, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof Error && !(e instanceof CompileError) && /^[A-Za-z]+Error: /.test(e.message)) throw new CompileError(e.message, span);
    throw e;
  }
}

const range1 = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
