// jax.pmap, jax.vmap and jax.jit: trace the wrapped function with abstract
// arguments, then either emit a host call of the compiled program (pmap and
// jit at host level) or inline the (batched) result into the current trace.
import { CompileError } from '../diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type { Atom, AVal } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { vmapFunc } from '../passes/vmap.js';
import { jaxDtype } from './arrays.js';
import type { Interp } from './interp.js';
import { Trace } from './trace.js';
import {
  HostArray, HostScalar, NdArray, PyDict, PyList, PyTransformed, PyTuple, Tracer, isArray, typeName,
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
      // JAX flattens dicts in sorted key order
      const entries = [...x.entries.values()].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
      const fs = entries.map(([k, y]) => [k, build(y)] as const);
      return (ls) => {
        const d = new PyDict();
        const byKey = new Map(fs.map(([k, f]) => [k, f(ls)]));
        for (const [k] of x.entries.values()) d.set(k, byKey.get(k)!);
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

function transformOf(kind: 'pmap' | 'vmap' | 'jit', c: CallArgs, names: string[], defaults: PyValue[]): PyValue {
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
export const jitOf = (ip: Interp, c: CallArgs): PyValue => transformOf('jit', c, ['static_argnums'], [null]);

// ------------------------------------------------------------------ calls

export function callTransformed(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (call.kwargs.size && fn.transform !== 'jit') {
    throw new CompileError(`${fn.transform}-transformed functions take positional arguments only here`, call.span);
  }
  switch (fn.transform) {
    case 'pmap':
      return callPmap(ip, fn, call);
    case 'vmap':
      return callVmap(ip, fn, call);
    case 'jit':
      return callJit(ip, fn, call);
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
  const axes0 = axesFor(ip, inSpec, args, 'pmap in_axes', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'pmap', call.span);
  const nDev = ip.devices().items.length;
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
  return names.map((n, i) => new HostArray(n, { shape: shapes[i]!, dtype: avals[i]!.dtype }));
}

function callJit(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  if (!ip.atHost) return ip.call(fn.fn, call);
  const args = new PyTuple([...call.args, ...call.kwargs.values()]);
  const flat = flatten(args);
  const t = new Trace(fn.name, 'jit', null);
  const params = flat.leaves.map((l) => (isArray(l) || l instanceof NdArray ? new Tracer(t, t.builder.addParam(avalOf(ip, l, call.span))) : l));
  const rebuiltArgs = (flat.unflatten(params) as PyTuple).items;
  const kw = new Map([...call.kwargs.keys()].map((k, i) => [k, rebuiltArgs[call.args.length + i]!]));
  const { results, rebuild } = traceBody(ip, t, fn.fn, rebuiltArgs.slice(0, call.args.length), kw, call.span);
  const func = t.builder.finish(results);
  const name = ip.programName(fn.name);
  ip.addProgram(name, func, 'jit');
  const arrayLeaves = flat.leaves.filter((l) => isArray(l) || l instanceof NdArray);
  ip.flush([...arrayLeaves, ...t.captured]);
  const argNames = [...arrayLeaves, ...t.captured].map((l) => ip.hostArray(l, call.span).name);
  const outs = emitCall(ip, fn.name, results.map((r) => r.aval), results.map((r) => [...r.aval.shape]), {
    k: 'call', callee: 'rt.call', await: true,
    args: [{ k: 'program', name }, { k: 'array', items: argNames.map((n) => ({ k: 'var', name: n })) }],
  });
  return rebuild(outs);
}

function callVmap(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const args = new PyTuple(call.args);
  const flat = flatten(args);
  const axes0 = axesFor(ip, fn.options.get('in_axes')!, args, 'vmap in_axes', call.span);
  const { size, axes } = mappedSize(ip, flat.leaves, axes0, 'vmap', call.span);
  const parent = ip.trace();
  const t = new Trace(fn.name, 'vmap', parent, parent.axisEnv);
  const params = flat.leaves.map((l, i) => {
    const a = avalOf(ip, l, call.span);
    return new Tracer(t, t.builder.addParam(axes[i] === null ? a : removeAxis(a, axes[i]!)));
  });
  const { results, rebuild } = traceBody(ip, t, fn.fn, (flat.unflatten(params) as PyTuple).items, new Map(), call.span);
  const func = t.builder.finish(results, t.axisEnv);
  const batched = [...axes.map((a) => a !== null), ...t.captured.map(() => false)];
  const bf = vmapFunc(func, batched, size);
  const argAtoms = [
    ...flat.leaves.map((l, i) => (axes[i] === null ? ip.ops.atom(l, call.span) : ip.ops.moveAxis(ip.ops.asArray(l, call.span), axes[i]!, 0, call.span).atom)),
    ...t.captured.map((c) => ip.ops.atom(c, call.span)),
  ];
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
