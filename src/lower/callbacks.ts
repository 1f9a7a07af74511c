// Host callbacks: jax.pure_callback and jax.experimental.io_callback. The
// Python callback runs on the host when the program runs (its prints appear
// in order with jax.debug.print's), on concrete arrays, and what it returns
// is used by the rest of the computation. jaxts runs such a computation in
// stages around each host call: at host level the callback is host code
// between the array segments before and after it (interp's flush cuts the
// segment there). A transformation called at host level whose trace meets a
// callback runs as its reference semantics on the host instead:
// - jit: its trace still runs (trace-time prints happen once per signature,
//   as in JAX, and the callbacks' results are placeholders) to find the pure
//   callbacks whose results are dead (JAX removes those); then the function
//   runs as under jax.disable_jit, its Python prints silent (JAX does not run
//   the Python again), a dead pure callback not called;
// - vmap: once per batch element (vmap_method 'sequential', and unordered
//   io_callback, as JAX's batching rules do; for 'expand_dims' /
//   'broadcast_all' JAX calls the callback once on the batch, with the same
//   values as per element);
// - lax.scan / fori_loop / map: the steps one after another on the host;
// - lax.while_loop whose functions make jax.debug calls: a host loop (a TS
//   while on the readback of cond_fun), the calls once per iteration.
// Under grad JAX raises (callbacks have no JVP), and so does jaxts. A callback
// where none of these applies (a custom_jvp / custom_vjp rule's, under grad or
// hessian at host level) whose operands have compile-time values (as JAX's
// differentiation outside jit traces concrete primals) runs while tracing.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { AVal } from '../ir/types.js';
import { jaxDtype } from './arrays.js';
import { HostCallbackInTrace, markEffect, replayOf, replaying, stagedTrace, type Kind } from './callback_staging.js';
import { concreteValue } from './const_eval.js';
import { recordDebugCall } from './debug_prints.js';
import { PyShapeDtypeStruct } from './eval_shape.js';
import type { Interp } from './interp.js';
import { flatten, stackTrees, underDifferentiation } from './transforms.js';
import {
  HostArray, NdArray, NpScalar, PyBuiltin, PyList, PyTuple, Scope, Tracer, typeName, type CallArgs, type PyValue,
} from './values.js';

/** The abstract value of one leaf of result_shape_dtypes (a ShapeDtypeStruct, an array, a NumPy scalar). */
function resultAval(v: PyValue, span: A.Span): AVal {
  if (v instanceof PyShapeDtypeStruct) return v.aval;
  if (v instanceof Tracer || v instanceof HostArray) return { shape: v.aval.shape, dtype: v.aval.dtype };
  if (v instanceof NdArray) return { shape: v.shape, dtype: jaxDtype(v.dtype) };
  if (v instanceof NpScalar) return { shape: [], dtype: jaxDtype(v.dtype) };
  throw new CompileError(`TypeError: result_shape_dtypes: expected a pytree of objects with shape and dtype, got ${typeName(v)}`, span);
}

const VMAP_METHODS = ['sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', 'legacy_vectorized', null];

/** jax.pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None, **kwargs) and io_callback(..., ordered=False). */
export function hostCallback(ip: Interp, c: CallArgs, kind: Kind): PyValue {
  const [fn, shapes] = c.args;
  const fname = kind === 'pure' ? 'pure_callback' : 'io_callback';
  if (fn === undefined || shapes === undefined) throw new CompileError(`TypeError: ${fname}() missing required positional arguments: 'callback' and 'result_shape_dtypes'`, c.span);
  const kwargs = new Map(c.kwargs);
  kwargs.delete('sharding');
  const vmapMethod = kwargs.get('vmap_method') ?? null;
  kwargs.delete('vmap_method');
  const ordered = kwargs.get('ordered') === true;
  kwargs.delete('ordered');
  if (kind === 'pure' && !VMAP_METHODS.includes(vmapMethod as string | null)) {
    throw new CompileError(`ValueError: vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: ${typeof vmapMethod === 'string' ? vmapMethod : typeName(vmapMethod)}`, c.span);
  }
  const outFlat = flatten(shapes);
  const avals = outFlat.leaves.map((l) => resultAval(l, c.span));
  const args = c.args.slice(2);
  if (!ip.atHost) {
    // JAX's JVP rule raises where an operand carries a tangent (an operand traced under grad)
    const traced = flatten(new PyTuple([...args, ...kwargs.values()])).leaves.some((l) => l instanceof Tracer && l.trace.kind !== 'segment');
    // (a custom rule's trace takes one level of differentiation off: its callbacks are not differentiated)
    if (traced && underDifferentiation(ip)) throw new CompileError(kind === 'pure' ? 'ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.' : 'ValueError: IO callbacks do not support JVP.', c.span);
    const t = ip.trace();
    if (!avals.length && t.kind !== 'segment') {
      // nothing comes back: a host call after the program, with the operands' values (as jax.debug.callback)
      recordDebugCall(t, {
        run: (as, kw) => {
          markEffect(ip);
          ip.flush([...as, ...kw.values()]);
          replayOf(ip).inCallback++;
          try {
            ip.call(fn, { args: as, kwargs: kw, span: c.span });
          } finally {
            replayOf(ip).inCallback--;
          }
        },
        args, kwargs, span: c.span,
      });
      return null;
    }
    const staged = stagedTrace(t);
    if (!staged) {
      // operands JAX would hold concretely (differentiation outside jit traces with concrete primals: a
      // custom rule's callbacks): the callback runs now, as JAX runs it while tracing, on NumPy arrays
      const known = concreteOperands(args, kwargs);
      if (known) return callConcrete(ip, fn, known.args, known.kwargs, outFlat, avals, fname, c.span);
    }
    if (!staged) throw new HostCallbackInTrace(`jax.${kind === 'pure' ? 'pure_callback' : 'experimental.io_callback'}`, t.kind === 'jit' ? 'this transformation' : t.kind, c.span);
    const outs = avals.map((a) => new Tracer(t, t.builder.addParam(a)));
    staged.placeholders.push({ kind, atoms: outs.map((o) => o.atom) });
    return outFlat.unflatten(outs);
  }
  const r = replayOf(ip);
  if (r.vmap > 0) {
    if (kind === 'io' && ordered) throw new CompileError('ValueError: Cannot `vmap` ordered IO callback.', c.span);
    if (kind === 'pure' && vmapMethod === null) {
      throw new CompileError("NotImplementedError: vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None.", c.span);
    }
  }
  if (kind === 'pure' && r.depth > 0 && r.live) {
    // a pure callback whose result the jitted function does not use: JAX's dead-code elimination drops it
    const live = r.live[r.next++] ?? true;
    if (!live) return outFlat.unflatten(avals.map((a) => ip.ops.tracer(ip.ops.broadcastTo(ip.ops.asArray(0, c.span, a.dtype).atom, a.shape, c.span))));
  }
  markEffect(ip);
  ip.flush(args);
  r.inCallback++;
  let out: PyValue;
  try {
    out = ip.call(fn, { args, kwargs, span: c.span });
  } finally {
    r.inCallback--;
  }
  return checkedResults(ip, out, outFlat, avals, fname, c.span);
}

/** The operands as NumPy arrays when every leaf has a concrete value (null: one has none). */
function concreteOperands(args: PyValue[], kwargs: Map<string, PyValue>): { args: PyValue[]; kwargs: Map<string, PyValue> } | null {
  const all = flatten(new PyTuple([new PyTuple(args), new PyTuple([...kwargs.values()])]));
  const leaves: PyValue[] = [];
  for (const l of all.leaves) {
    if (!(l instanceof Tracer || l instanceof HostArray)) {
      leaves.push(l);
      continue;
    }
    const v = concreteValue(l);
    if (typeof v === 'string' || v.dtype === 'complex64') return null;
    leaves.push(new NdArray(v.shape, v.dtype, v.data));
  }
  const [a, k] = (all.unflatten(leaves) as PyTuple).items as [PyTuple, PyTuple];
  return { args: a.items, kwargs: new Map([...kwargs.keys()].map((name, i) => [name, k.items[i]!])) };
}

/** A callback run while tracing, on concrete operands: its results are constants of the trace. */
function callConcrete(ip: Interp, fn: PyValue, args: PyValue[], kwargs: Map<string, PyValue>, outFlat: ReturnType<typeof flatten>, avals: AVal[], fname: string, span: A.Span): PyValue {
  const r = replayOf(ip);
  r.inCallback++;
  let out: PyValue;
  try {
    out = ip.call(fn, { args, kwargs, span });
  } finally {
    r.inCallback--;
  }
  return checkedResults(ip, out, outFlat, avals, fname, span);
}

/** The callback's results as the declared arrays (JAX's error where a shape differs). */
function checkedResults(ip: Interp, out: PyValue, outFlat: ReturnType<typeof flatten>, avals: AVal[], fname: string, span: A.Span): PyValue {
  const c = { span };
  if (!avals.length) return null;
  const got = flatten(out).leaves;
  if (got.length !== avals.length) throw new CompileError(`TypeError: ${fname}: the callback returned ${got.length} values, but result_shape_dtypes declares ${avals.length}`, c.span);
  return outFlat.unflatten(got.map((v, i) => {
    const a = avals[i]!;
    const x = ip.ops.asArray(v, c.span, a.dtype);
    if (x.aval.shape.length !== a.shape.length || x.aval.shape.some((d, k) => d !== a.shape[k])) {
      throw new CompileError(`RuntimeError: Incorrect output shape for ${fname}: expected ${a.dtype}[${a.shape.join(',')}] but got ${x.aval.dtype}[${x.aval.shape.join(',')}]`, c.span);
    }
    return x;
  }));
}

/** A jitted function's result as jit gives it: every leaf an array (a Python number becomes a weakly typed one). */
export function asJitResult(ip: Interp, out: PyValue, span: A.Span): PyValue {
  const flat = flatten(out, true);
  return flat.unflatten(flat.leaves.map((l) => (typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean' || l instanceof NdArray || l instanceof NpScalar ? ip.ops.asArray(l, span) : l)));
}

/** lax.scan at host level of a body that calls back to the host: its steps one after another. */
export function scanOnHost(ip: Interp, init: PyValue, xs: PyValue, length: number, reverse: boolean, apply: (carry: PyValue, x: PyValue) => PyValue, span: A.Span): PyValue {
  const xflat = flatten(xs, true);
  let carry = init;
  const ys = new Array<PyValue>(length);
  // the steps' results stay reachable (a flush in a later step materialises them)
  return ip.holding((hold) => replaying(ip, null, () => {
    hold(xs);
    hold(init);
    for (let k = 0; k < length; k++) {
      const i = reverse ? length - 1 - k : k;
      const x = xflat.unflatten(xflat.leaves.map((l) => ip.ops.index(l, [{ kind: 'int', value: i }], span)));
      const out = apply(carry, x);
      if (!(out instanceof PyTuple || out instanceof PyList) || out.items.length !== 2) throw new CompileError(`TypeError: scan body output must be a pair, got ${typeName(out)}.`, span);
      hold(out);
      carry = out.items[0]!;
      ys[i] = out.items[1]!;
    }
    if (length === 0) throw new CompileError('NotImplementedError: a lax.scan of length 0 that calls back to the host is not supported by jaxts', span);
    return new PyTuple([carry, stackTrees(ip, ys, () => 0, span)]);
  }));
}

/**
 * lax.while_loop at host level whose functions call back to the host: the
 * Python loop `while cond_fun(val): val = body_fun(val)` lowered as the host
 * program's own loop (its test a readback), the functions' Python prints
 * silent (JAX traced them once, before).
 */
export function whileOnHost(ip: Interp, init: PyValue, test: (v: PyValue) => PyValue, step: (v: PyValue) => PyValue, span: A.Span): PyValue {
  // under vmap JAX runs the body for every element while any goes on (a finished one too): not element by element
  if (replayOf(ip).vmap > 0) throw new CompileError('NotImplementedError: jax.debug.print / jax.debug.callback inside lax.while_loop under vmap is not supported by jaxts', span);
  const scope = new Scope(null);
  scope.vars.set('cond_fun', new PyBuiltin('cond_fun', (c) => test(c.args[0]!)));
  scope.vars.set('body_fun', new PyBuiltin('body_fun', (c) => step(c.args[0]!)));
  // the loop starts from materialised arrays (the host loop's carried values)
  const flat = flatten(init, true);
  ip.flush(flat.leaves);
  scope.vars.set('val', flat.unflatten(flat.leaves.map((l) => ip.hostArray(l, span))));
  const name = (id: string): A.Name => ({ kind: 'Name', id, span });
  const callOf = (f: string): A.Call => ({ kind: 'Call', func: name(f), args: [name('val')], keywords: [], span });
  const loop: A.While = { kind: 'While', test: callOf('cond_fun'), body: [{ kind: 'Assign', targets: [name('val')], value: callOf('body_fun'), span }], orelse: [], span };
  // (a frame of its own, so that the host segment's flushes see the carried value)
  ip.frames.push(scope);
  try {
    replaying(ip, null, () => ip.execBlock([loop], scope));
  } finally {
    ip.frames.pop();
  }
  return scope.vars.get('val')!;
}
