// jax.pmap, jax.vmap, jax.jit, jax.grad and jax.value_and_grad: trace the
// wrapped function with abstract arguments, then either emit a host call of
// the compiled program (pmap and jit at host level) or inline the (batched,
// differentiated) result into the current trace.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type { Atom, AVal } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { vjpFunc } from '../passes/autodiff.js';
import { vmapFunc } from '../passes/vmap.js';
import { jaxDtype } from './arrays.js';
import type { Interp } from './interp.js';
import { truthy } from './pyops.js';
import { noteTraceArgs, placeAs, resultConstraints, spmdCall } from './lib_sharding.js';
import { PyShardMapped, meshOf } from './shardings.js';
import { checkTracedOps } from './limits.js';
import {
  HostArray, HostScalar, NdArray, NpScalar, PyDict, PyList, PyTransformed, PyTuple, Trace, Tracer, isArray, typeName,
  type CallArgs, type PyValue,
} from './values.js';

// ------------------------------------------------------------------ pytrees

interface Flat {
  leaves: PyValue[];
  unflatten: (leaves: PyValue[]) => PyValue;
}

export function flatten(v: PyValue): Flat {
  const leaves: PyValue[] = [];
  const build = (x: PyValue): ((ls: PyValue[]) => PyValue) => {
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
    if (x === null) return () => null;
    const i = leaves.length;
    leaves.push(x);
    return (ls) => ls[i]!;
  };
  const f = build(v);
  return { leaves, unflatten: f };
}

function compareKeys(a: PyValue, b: PyValue): number {
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

function avalOf(ip: Interp, v: PyValue, span: A.Span): AVal {
  if (v instanceof Tracer || v instanceof HostArray) return v.aval;
  if (v instanceof NdArray) return { shape: v.shape, dtype: jaxDtype(v.dtype) };
  if (typeof v === 'bigint') return { shape: [], dtype: 'int32' };
  if (typeof v === 'number') return { shape: [], dtype: 'float32' };
  if (typeof v === 'boolean') return { shape: [], dtype: 'bool' };
  if (v instanceof HostScalar) throw ip.error('a value computed on the host at run time cannot be passed to a transformed function yet', span);
  throw new CompileError(`TypeError: Argument '${typeName(v)}' of type ${typeName(v)} is not a valid JAX type`, span);
}

function removeAxis(a: AVal, axis: number): AVal {
  return { shape: a.shape.filter((_, i) => i !== axis), dtype: a.dtype };
}

function mappedSize(ip: Interp, leaves: PyValue[], axes: (number | null)[], what: string, span: A.Span): { size: number; axes: (number | null)[] } {
  let size = -1;
  const norm = leaves.map((l, i) => {
    const ax = axes[i]!;
    if (ax === null) return null;
    const a = avalOf(ip, l, span);
    const r = a.shape.length;
    const n = ax < 0 ? ax + r : ax;
    if (n < 0 || n >= r) {
      throw new CompileError(`ValueError: ${what} was requested to map its argument along axis ${ax}, which implies that its rank should be at least ${ax + 1}, but is only ${r} (its shape is (${a.shape.join(', ')}${r === 1 ? ',' : ''}))`, span);
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
export const vmapOf = (ip: Interp, c: CallArgs): PyValue => transformOf('vmap', c, ['in_axes', 'out_axes', 'axis_name'], [0n, 0n, null]);
export const jitOf = (ip: Interp, c: CallArgs): PyValue => transformOf('jit', c, ['static_argnums', 'in_shardings', 'out_shardings'], [null, null, null]);
const GRAD_OPTIONS = ['argnums', 'has_aux', 'holomorphic', 'allow_int'];
export const gradOf = (ip: Interp, c: CallArgs): PyValue => transformOf('grad', c, GRAD_OPTIONS, [0n, false, false, false]);
export const valueAndGradOf = (ip: Interp, c: CallArgs): PyValue => transformOf('value_and_grad', c, GRAD_OPTIONS, [0n, false, false, false]);

// ------------------------------------------------------------------ calls

export function callTransformed(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (call.kwargs.size && (fn.transform === 'pmap' || fn.transform === 'vmap')) {
    throw new CompileError(`${fn.transform}-transformed functions take positional arguments only here`, call.span);
  }
  switch (fn.transform) {
    case 'pmap':
      return callPmap(ip, fn, call);
    case 'vmap':
      return callVmap(ip, fn, call);
    case 'jit':
      return callJit(ip, fn, call);
    case 'grad':
    case 'value_and_grad':
      return callGrad(ip, fn, call);
  }
}

function traceBody(ip: Interp, t: Trace, fn: PyValue, args: PyValue[], kwargs: Map<string, PyValue>, span: A.Span): { results: Atom[]; rebuild: Flat['unflatten'] } {
  return ip.withTrace(t, () => {
    const out = ip.call(fn, { args, kwargs, span });
    const flat = flatten(out);
    const results = flat.leaves.map((l) => {
      if (!isArray(l) && !(l instanceof NdArray) && typeof l !== 'bigint' && typeof l !== 'number' && typeof l !== 'boolean') {
        throw new CompileError(`TypeError: the function returned a ${typeName(l)}, which is not a valid JAX type`, span);
      }
      return ip.ops.asArray(l, span).atom;
    });
    return { results, rebuild: flat.unflatten };
  });
}

function callPmap(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (!ip.atHost) throw new CompileError('jax.pmap inside another transformation (pmap, jit, vmap) is not supported; JAX 0.10 rejects nested pmap too', call.span);
  const args = new PyTuple(call.args);
  const flat = flatten(args);
  const inSpec = fn.options.get('in_axes')!;
  checkInAxesArity(inSpec, args, 'pmap', call.span);
  const axes0 = axesFor(ip, inSpec, args, 'pmap in_axes', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'pmap', call.span);
  const nDev = ip.devices(call.span).items.length;
  if (size > nDev) {
    throw new CompileError(`ValueError: compiling computation that requires ${size} logical devices, but only ${nDev} XLA devices are available (num_replicas=${size})`, call.span);
  }
  const axisName = fn.options.get('axis_name');
  const t = new Trace(fn.name, 'pmap', null, [{ name: typeof axisName === 'string' ? axisName : '_pmap', size }]);
  const params = flat.leaves.map((l, i) => {
    const a = avalOf(ip, l, call.span);
    return new Tracer(t, t.builder.addParam(axes[i] === null ? a : removeAxis(a, axes[i]!)));
  });
  const { results, rebuild } = traceBody(ip, t, fn.fn, flat.unflatten(params) instanceof PyTuple ? (flat.unflatten(params) as PyTuple).items : [], new Map(), call.span);
  const func = t.builder.finish(results, t.axisEnv);
  const name = ip.programName(fn.name);
  ip.addProgram(name, func, 'pmap');
  // host side: materialise the arguments and the captured values
  ip.flush([...flat.leaves, ...t.captured]);
  const argNames = [...flat.leaves, ...t.captured].map((l) => ip.hostArray(l, call.span).name);
  const inAxes = [...axes, ...t.captured.map(() => null)];
  const outSpec = fn.options.get('out_axes')!;
  const outAxes = results.map((_, j) => {
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
  return rebuild(outs);
}

/** Emit `const [a, b] = await CALL` and return host arrays for the results. */
function emitCall(ip: Interp, hint: string, avals: AVal[], shapes: number[][], value: HExpr): HostArray[] {
  const hints = ip.nameHints.length === avals.length ? ip.nameHints : avals.map((_, i) => (avals.length === 1 ? `${hint}_out` : `${hint}_out${i}`));
  const names = hints.map((h) => ip.freshName(h));
  ip.emit({ k: 'const', names, destructure: true, value });
  // a result keeps JAX's weak type (a Python scalar that met no typed array inside)
  return names.map((n, i) => new HostArray(n, { shape: shapes[i]!, dtype: avals[i]!.dtype, ...(avals[i]!.weak ? { weak: true } : {}) }));
}

function callJit(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  // jit of a shard_map is the shard_map's own per-device program
  if (!ip.atHost || fn.fn instanceof PyShardMapped) return ip.call(fn.fn, call);
  // in_shardings / out_shardings: the arguments laid out before the call, the results after it
  const inShardings = fn.options.get('in_shardings') ?? null;
  const outShardings = fn.options.get('out_shardings') ?? null;
  if (inShardings !== null) call = { ...call, args: (placeAs(ip, new PyTuple(call.args), inShardings instanceof PyList ? new PyTuple(inShardings.items) : inShardings, 'jit in_shardings', call.span) as PyTuple).items };
  if (outShardings !== null) {
    const plain = new PyTransformed('jit', fn.fn, new Map([...fn.options].filter(([k]) => k !== 'in_shardings' && k !== 'out_shardings')), fn.name);
    return placeAs(ip, callJit(ip, plain, call), outShardings, 'jit out_shardings', call.span);
  }
  const args = new PyTuple([...call.args, ...call.kwargs.values()]);
  const flat = flatten(args);
  const t = new Trace(fn.name, 'jit', null);
  noteTraceArgs(t, flat.leaves.filter((l) => isArray(l) || l instanceof NdArray), call.span);
  const params = flat.leaves.map((l) => (isArray(l) || l instanceof NdArray ? new Tracer(t, t.builder.addParam(avalOf(ip, l, call.span))) : l));
  const rebuiltArgs = (flat.unflatten(params) as PyTuple).items;
  const kw = new Map([...call.kwargs.keys()].map((k, i) => [k, rebuiltArgs[call.args.length + i]!]));
  const { results, rebuild } = traceBody(ip, t, fn.fn, rebuiltArgs.slice(0, call.args.length), kw, call.span);
  const func = t.builder.finish(results);
  const name = ip.programName(fn.name);
  const arrayLeaves = flat.leaves.filter((l) => isArray(l) || l instanceof NdArray);
  ip.flush([...arrayLeaves, ...t.captured]);
  const hostArgs = [...arrayLeaves, ...t.captured].map((l) => ip.hostArray(l, call.span));
  const avals = results.map((r) => r.aval);
  const shapes = results.map((r) => [...r.aval.shape]);
  const constraints = resultConstraints(t, func);
  const mesh = meshOf(hostArgs, call.span);
  if (mesh) {
    // arrays laid out over a mesh: partition the program (GSPMD) and run it on every device
    const spmd = spmdCall(ip, name, 'jit', func, hostArgs, mesh, call.span, constraints?.shardings);
    const outs = emitCall(ip, fn.name, avals, shapes, spmd.value);
    outs.forEach((o, i) => (o.sharding = spmd.shardings[i]!));
    return rebuild(outs);
  }
  ip.addProgram(name, func, 'jit');
  const outs = emitCall(ip, fn.name, avals, shapes, {
    k: 'call', callee: 'rt.call', await: true,
    args: [{ k: 'program', name }, { k: 'array', items: hostArgs.map((a) => ({ k: 'var', name: a.name })) }],
  });
  return rebuild(outs);
}

/** Can `v` become an array argument (an array, NumPy value or Python number)? */
const isArrayLike = (v: PyValue): boolean =>
  isArray(v) || v instanceof NdArray || v instanceof NpScalar || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';

function callVmap(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const args = new PyTuple(call.args);
  const flat = flatten(args);
  checkInAxesArity(fn.options.get('in_axes')!, args, 'vmap', call.span);
  const axes0 = axesFor(ip, fn.options.get('in_axes')!, args, 'vmap in_axes', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'vmap', call.span);
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
  const { results, rebuild } = traceBody(ip, t, fn.fn, (flat.unflatten(params) as PyTuple).items, new Map(), call.span);
  const func = t.builder.finish(results, t.axisEnv);
  const batched = [...axes.filter((_, i) => !isStatic[i]).map((a) => a !== null), ...t.captured.map(() => false)];
  const bf = vmapFunc(func, batched, size, typeof vmapAxis === 'string' ? vmapAxis : undefined);
  const argAtoms = [
    ...flat.leaves.flatMap((l, i) => {
      if (isStatic[i]) return [];
      return [axes[i] === null ? ip.ops.atom(l, call.span) : ip.ops.moveAxis(ip.ops.asArray(l, call.span), axes[i]!, 0, call.span).atom];
    }),
    ...t.captured.map((c) => ip.ops.atom(c, call.span)),
  ];
  checkTracedOps(parent.builder.eqns.length + bf.eqns.length, call.span);
  const outs = parent.builder.inline(bf, argAtoms);
  const outSpec = fn.options.get('out_axes')!;
  const moved = outs.map((o, j) => {
    const s = outSpec instanceof PyTuple ? outSpec.items[j] : outSpec;
    if (typeof s !== 'bigint') throw new CompileError('vmap out_axes must be an int or a tuple of ints', call.span);
    const r = o.aval.shape.length;
    const n = Number(s) < 0 ? Number(s) + r : Number(s);
    return ip.ops.moveAxis(ip.ops.tracer(o), 0, n, call.span);
  });
  return rebuild(moved);
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
  for (const opt of ['holomorphic', 'allow_int']) {
    if (truthy(fn.options.get(opt)!, span)) throw new CompileError(`jax.${name}: ${opt}=True is not supported`, span);
  }
  const hasAux = truthy(fn.options.get('has_aux')!, span);
  const { nums, single } = argnumsOf(ip, fn, call.args.length, span);
  const parent = ip.trace();
  const t = new Trace(fn.name, 'grad', parent, parent.axisEnv);
  const flats = nums.map((i) => flatten(call.args[i]!));
  const diffLeaves = flats.flatMap((fl) => fl.leaves);
  const args = [...call.args];
  flats.forEach((fl, k) => {
    args[nums[k]!] = fl.unflatten(
      fl.leaves.map((l) => {
        const a = avalOf(ip, l, span);
        if (a.dtype !== 'float32') {
          throw new CompileError(
            `TypeError: grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got ${a.dtype}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.`,
            span,
          );
        }
        return new Tracer(t, t.builder.addParam(typeof l === 'number' ? { ...a, weak: true } : a));
      }),
    );
  });
  const { main, aux } = ip.withTrace(t, () => {
    const out = ip.call(fn.fn, { args, kwargs: call.kwargs, span });
    let mainV = out;
    let auxFlat: Flat | null = null;
    if (hasAux) {
      if (!((out instanceof PyTuple && !out.cls) || out instanceof PyList) || out.items.length !== 2) {
        throw new CompileError(`TypeError: expected function with aux output to return a two-element tuple, but got type ${typeName(out)}`, span);
      }
      mainV = out.items[0]!;
      auxFlat = flatten(out.items[1]!);
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
    if (m.aval.dtype !== 'float32') {
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
  const func = t.builder.finish([main, ...aux.atoms], t.axisEnv);
  const vf = vjpFunc(func, func.params.map((_, i) => i < diffLeaves.length), { name: `${fn.name}_${name}` });
  const argAtoms = [...diffLeaves.map((l) => ip.ops.asArray(l, span).atom), ...t.captured.map((c) => ip.ops.atom(c, span))];
  checkTracedOps(parent.builder.eqns.length + vf.eqns.length, span);
  const outs = parent.builder.inline(vf, argAtoms).map((a) => ip.ops.tracer(a));
  const value = outs[0]!;
  const auxV = aux.flat ? aux.flat.unflatten(outs.slice(1, 1 + aux.atoms.length)) : null;
  let k = 1 + aux.atoms.length;
  const grads = flats.map((fl) => {
    const g = fl.unflatten(outs.slice(k, k + fl.leaves.length));
    k += fl.leaves.length;
    return g;
  });
  const g = single ? grads[0]! : new PyTuple(grads);
  if (name === 'grad') return hasAux ? new PyTuple([g, auxV]) : g;
  return new PyTuple([hasAux ? new PyTuple([value, auxV]) : value, g]);
}
