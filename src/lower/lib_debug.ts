// JAX's introspection and debugging tools: jax.make_jaxpr (trace a function
// and show its jaxpr as JAX prints it, src/ir/jaxpr_printer.ts) and
// jax.debug.print / jax.debug.callback.
import { CompileError } from '../common/diagnostics.js';
import type { AVal } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { jaxDtype } from './arrays.js';
import { markEffect } from './callback_staging.js';
import { recordDebugCall, takeDebugCalls, type DebugCall } from './debug_prints.js';
import { noteTraceCacheKey, strFormat } from './format.js';
import type { Interp } from './interp.js';
import { builtinModule } from './modules.js';
import { PyClosedJaxpr } from './jaxpr_objects.js';
import { jaxprTypes, noteTraceArgs } from './lib_sharding.js';
import { PyShapeDtypeStruct } from './eval_shape.js';
import { flatten } from './transforms.js';
import {
  HostArray, NdArray, NpScalar, PyBuiltin, PyDict, PyInstance, PyKeyArray, PyList, PyTransformed, PyTuple, Trace, Tracer, isArray, typeName, type CallArgs, type PyModule, type PyValue,
} from './values.js';


/** The abstract value JAX traces an argument leaf as (a Python scalar is weakly typed). */
export function argAval(v: PyValue, span: A.Span): AVal {
  if (v instanceof Tracer || v instanceof HostArray) return v.aval;
  if (v instanceof NdArray) return { shape: v.shape, dtype: jaxDtype(v.dtype) };
  if (v instanceof NpScalar) return { shape: [], dtype: jaxDtype(v.dtype) };
  if (typeof v === 'number') return { shape: [], dtype: 'float32', weak: true };
  if (typeof v === 'bigint') return { shape: [], dtype: 'int32', weak: true };
  if (typeof v === 'boolean') return { shape: [], dtype: 'bool' };
  throw new CompileError(`TypeError: Argument '${typeName(v)}' of type ${typeName(v)} is not a valid JAX type`, span);
}

/**
 * jax.make_jaxpr(fun, static_argnums=(), return_shape=False): a function that traces `fun` with
 * abstract arguments, as jit does, and returns its jaxpr. A print while
 * tracing prints (once per function and signature: the cache JAX shares with jit and eval_shape).
 */
export function makeJaxprOf(ip: Interp, c: CallArgs): PyValue {
  const fn = c.args[0];
  if (fn === undefined) throw new CompileError("TypeError: make_jaxpr() missing 1 required positional argument: 'fun'", c.span);
  const staticSpec = c.kwargs.get('static_argnums') ?? c.args[1] ?? null;
  const statics = new Set<number>(
    staticSpec === null ? [] : (staticSpec instanceof PyTuple ? staticSpec.items : [staticSpec]).map((s) => Number(ip.static(s, 'static_argnums', c.span))),
  );
  for (const k of c.kwargs.keys()) if (k !== 'static_argnums' && k !== 'return_shape') throw new CompileError(`jax.make_jaxpr: option '${k}' is not supported`, c.span);
  const returnShape = c.kwargs.get('return_shape') === true;
  const name = fn && typeof fn === 'object' && 'name' in fn ? String((fn as { name: string }).name) : 'fun';
  return new PyBuiltin(`make_jaxpr(${name})`, (call) => {
    const t = new Trace(name, 'jit', null);
    const dyn = call.args.map((a, i) => (statics.has(i) ? null : a));
    const flat = flatten(new PyTuple([...dyn.map((a) => a ?? null), ...call.kwargs.values()]));
    const params = flat.leaves.map((l) => (isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean'
      ? new Tracer(t, t.builder.addParam(argAval(l, call.span)))
      : l));
    // the arguments' shardings: types over Explicit mesh axes show them
    noteTraceArgs(t, flat.leaves.filter((_, i) => params[i] instanceof Tracer), call.span);
    const rebuilt = (ip.withTrace(t, () => flat.unflatten(params)) as PyTuple).items;
    const args = call.args.map((a, i) => (statics.has(i) ? a : rebuilt[i]!));
    const kwargs = new Map([...call.kwargs.keys()].map((k, i) => [k, rebuilt[call.args.length + i]!]));
    // JAX's trace cache is jit's: a print while tracing shows once per function and signature, whichever of
    // make_jaxpr, jit and eval_shape traced it first
    const keyed = flatten(new PyTuple([...args, ...kwargs.values()]));
    noteTraceCacheKey(ip, t, fn instanceof PyTransformed && fn.transform === 'jit' ? fn.fn : fn, [...keyed.leaves, ...keyed.aux], call.span);
    let shape: PyValue = null;
    const results = ip.withTrace(t, () => {
      const out = flatten(ip.call(fn, { args, kwargs, span: call.span }));
      const atoms = out.leaves.map((l) => ip.ops.asArray(l, call.span).atom);
      // return_shape=True: the output's structure with a ShapeDtypeStruct for each leaf
      shape = out.unflatten(atoms.map((a) => new PyShapeDtypeStruct(a.aval)));
      return atoms;
    });
    takeDebugCalls(t); // JAX shows them as debug_callback equations, and prints nothing
    const func = t.builder.finish(results);
    const cj = new PyClosedJaxpr(func, [...t.captured], jaxprTypes(ip, t, func));
    return returnShape ? new PyTuple([cj, shape]) : cj;
  });
}

// ------------------------------------------------------------ jax.debug

/**
 * jax.debug: `print(fmt, *args, **kwargs)` formats with str.format when the
 * values are known (at run time, after the program that computes them;
 * under vmap once per element); `callback(fn, *args, **kwargs)` calls the
 * Python function then, with concrete arrays, at host level.
 */
export function debugModule(ip: Interp, others: Record<string, (c: CallArgs) => PyValue> = {}): PyModule {
  const record = (c: CallArgs, run: DebugCall['run'], args: PyValue[], kwargs: Map<string, PyValue>): null => {
    const isTree = (v: PyValue): boolean => v instanceof PyTuple || v instanceof PyList || v instanceof PyDict || (v instanceof PyInstance && v.cls.pytree !== null);
    if (![...args, ...kwargs.values()].some(isTree)) {
      if (ip.atHost) run(args, kwargs);
      else recordDebugCall(ip.trace(), { run, args, kwargs, span: c.span });
      return null;
    }
    // pytree arguments: their leaves are what the call shows, each an array (JAX's debug_callback takes arrays:
    // a nested Python scalar prints as Array(2, dtype=int32, weak_type=True)); the trees are rebuilt to format
    const names = [...kwargs.keys()];
    const flat = flatten(new PyTuple([new PyTuple(args), new PyTuple([...kwargs.values()])]));
    // (inside a transformation the callback gets the values back from buffers: no longer weakly typed)
    const asLeaf = (l: PyValue): PyValue => {
      if (l instanceof PyKeyArray) return l;
      const a = ip.ops.asArray(l, c.span);
      return ip.atHost || !a.aval.weak ? a : ip.ops.tracer(ip.ops.bind('convert_element_type', [a.atom], { new_dtype: a.aval.dtype, weak_type: false }, c.span));
    };
    const leaves = flat.leaves.map(asLeaf);
    const rebuilt = (ls: PyValue[]): void => {
      const [a, k] = (flat.unflatten(ls) as PyTuple).items as [PyTuple, PyTuple];
      run(a.items, new Map(names.map((n, i) => [n, k.items[i]!])));
    };
    if (ip.atHost) rebuilt(leaves);
    else recordDebugCall(ip.trace(), { run: (ls) => rebuilt(ls), args: leaves, kwargs: new Map(), span: c.span });
    return null;
  };
  return builtinModule('jax.debug', {
    ...others,
    print: (c) => {
      const fmt = c.args[0];
      if (typeof fmt !== 'string') throw new CompileError('TypeError: jax.debug.print needs a format string', c.span);
      const kwargs = new Map([...c.kwargs].filter(([k]) => k !== 'ordered'));
      return record(c, (args, kw) => {
        markEffect(ip);
        ip.flush([...args, ...kw.values()]);
        const text = strFormat(ip, fmt, { args, kwargs: kw, span: c.span }).concat('\n');
        ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [text.toExpr()] } });
      }, c.args.slice(1), kwargs);
    },
    // JAX's debugger reads its commands from stdin; jaxts's programs read no input, so the session is
    // JAX's with stdin at end-of-file: the prompt, then `quit` (SystemExit inside the callback, which fails)
    breakpoint: (c) => {
      for (const k of c.kwargs.keys()) {
        if (!['backend', 'filter_frames', 'num_frames', 'ordered', 'token'].includes(k)) throw new CompileError(`TypeError: breakpoint() got an unexpected keyword argument '${k}'`, c.span);
      }
      return record(c, () => {
        ip.flush([]);
        ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [{ k: 'lit', value: 'Entering jdb:\n(jdb) ' }] } });
        const msg = 'jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: SystemExit: 0 (jax.debug.breakpoint: the debugger read end-of-file from stdin)';
        ip.emit({ k: 'expr', e: { k: 'call', callee: 'jx.pyRaise', args: [{ k: 'lit', value: msg }, { k: 'lit', value: c.span.start.line }] } });
      }, [], new Map());
    },
    callback: (c) => {
      const fn = c.args[0];
      if (fn === undefined) throw new CompileError("TypeError: callback() missing 1 required positional argument: 'callback'", c.span);
      const kwargs = new Map([...c.kwargs].filter(([k]) => k !== 'ordered'));
      return record(c, (args, kw) => {
        markEffect(ip);
        ip.flush([...args, ...kw.values()]);
        ip.call(fn, { args, kwargs: kw, span: c.span });
      }, c.args.slice(1), kwargs);
    },
  });
}
