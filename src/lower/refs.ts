// Mutable array references (jax.new_ref, jax.freeze, JAX's `Ref`): a PyRef is a
// cell holding the current value of a device array. Reading `ref[idx]` indexes
// that value; writing `ref[idx] = v` rebinds it to the updated array (JAX's
// ref_get / ref_swap, discharged as JAX's discharge_state does). A traced
// function that writes a ref made outside it (a jit called at host level, a
// vmap, a lax.scan / fori_loop body) gives the ref's final value as an extra
// result: the program takes the ref as an in-out buffer, and the caller rebinds
// the ref to that result after the call. Refs passed as arguments are fresh
// refs inside the trace, their final values extra results likewise.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import { shortDtype, type Atom, type AVal } from '../ir/types.js';
import { subscript } from './expr.js';
import { indexUpdateMethod, PyIndexUpdateRef, type UpdateCtx } from './indexing.js';
import { ELLIPSIS, PyEllipsis, type Interp } from './interp.js';
import { truthy } from './pyops.js';
import { Text } from './text.js';
import {
  HostArray, NeedsStatic, PyBoundMethod, PyBuiltin, PyFunction, PyInstance, PyObject, PyPartial, PyRef, PyTransformed, PyTuple, PyUserClass, Tracer, isArray, type CallArgs, type PyValue, type Trace,
} from './values.js';

/** How a trace handles writes of refs made outside it. */
/** 'discover': a cond branch or while loop function traced to find the refs it uses (then traced again with them as operands). */
export type RefCarrier = 'jit' | 'vmap' | 'scan' | 'discover';

interface TraceRefs {
  kind: RefCarrier;
  /** Outer refs read or written inside, with their value before the trace (put back when it ends). */
  touched: Map<PyRef, Tracer | HostArray>;
  /** Outer refs written inside. */
  written: Set<PyRef>;
  /** scan bodies: each outer ref's carry parameter (one of the trace's captured parameters), by its place in `captured`. */
  carries: Map<PyRef, number>;
  /** The refs passed in as arguments: outer ref → the ref inside, with the argument's name. */
  args: Map<PyRef, { inner: PyRef; name: string }>;
  /** Where the function was defined and what traced it, for JAX's messages (`function f at FILE:LINE`, `for jit`). */
  fnInfo: string;
}

const traceRefs = new WeakMap<Trace, TraceRefs>();

/** Trace `t` takes refs from outside: call before tracing its body. */
export function carryRefs(t: Trace, kind: RefCarrier, fnInfo = ''): void {
  traceRefs.set(t, { kind, touched: new Map(), written: new Set(), carries: new Map(), args: new Map(), fnInfo });
}

/** `function f at FILE:LINE` as JAX names a traced Python function. */
export function functionInfo(ip: Interp, fn: PyValue): string {
  // JAX names the function a partial or a bound method wraps
  if (fn instanceof PyPartial) return functionInfo(ip, fn.fn);
  if (fn instanceof PyBoundMethod && fn.self instanceof PyInstance && fn.self.cls instanceof PyUserClass) {
    const m = fn.self.cls.lookup(fn.name);
    if (m instanceof PyFunction) return functionInfo(ip, m);
  }
  const f = fn instanceof PyTransformed ? fn.fn : fn;
  // Python's first line of a function is its first decorator's
  if (f instanceof PyFunction) return `${f.def.kind === 'Lambda' ? '<lambda>' : f.name} at ${ip.options.file}:${f.def.kind === 'FunctionDef' && f.def.decorators.length ? f.def.decorators[0]!.span.start.line : f.def.span.start.line}`;
  return fn instanceof PyTransformed ? fn.name : 'function';
}

export const refType = (a: AVal): string => `Ref{${shortDtype(a.dtype) === 'f32' ? 'float32' : a.dtype}[${a.shape.join(',')}]}`;

const isHome = (ip: Interp, r: PyRef): boolean => (r.home === null ? ip.atHost : ip.trace() === r.home);

/** Note that the current trace uses outer ref `r` (reading or, with `write`, writing it). */
function touch(ip: Interp, r: PyRef, write: boolean, span: A.Span): void {
  if (isHome(ip, r)) return;
  const t = ip.trace();
  // its value lives in this trace already (a loop's carry, a branch's operand, or written here before)
  if (r.value instanceof Tracer && r.value.trace === t) {
    if (write) traceRefs.get(t)?.written.add(r);
    return;
  }
  const info = traceRefs.get(t);
  if (!info) {
    if (!write) return;
    throw new CompileError('NotImplementedError: writing a jax.new_ref made outside this traced function (here a custom_jvp / custom_vjp rule, jvp, jacfwd / jacrev, pmap or shard_map body) is not supported by jaxts; jit, vmap, grad, value_and_grad, lax.scan / fori_loop / while_loop / cond take refs, or make the ref inside', span);
  }
  if (info.args.has(r)) {
    throw new CompileError(`ValueError: when tracing ${info.fnInfo}, a mutable array reference of type ${refType(r.value.aval)} was both closed over and passed as the argument ${info.args.get(r)!.name}`, span);
  }
  if (write && info.kind === 'vmap') {
    throw new CompileError(`Exception: performing a set/swap operation with vmapped value on an unbatched array reference of type ${refType(r.value.aval)}. Move the array reference to be an argument to the vmapped function?`, span);
  }
  if (!info.touched.has(r)) {
    info.touched.set(r, r.value);
    if (info.kind === 'scan' || info.kind === 'discover') {
      // the loop carries the ref: its value at each step is a parameter of the body (a captured one, moved to the carry)
      const a = r.value.aval;
      const p = t.builder.addParam(a.weak && !strongCarry.has(r) ? a : { shape: a.shape, dtype: a.dtype }, undefined);
      t.captured.push(r.value);
      info.carries.set(r, t.captured.length - 1);
      r.value = new Tracer(t, p);
    }
  }
  if (write) info.written.add(r);
}

/** The current value of `r` (a read: `r[...]`). */
export function readRef(ip: Interp, r: PyRef, span: A.Span): Tracer | HostArray {
  touch(ip, r, false, span);
  return r.value;
}

/** Rebind `r` to `v` (an array of its shape and dtype). */
export function writeRef(ip: Interp, r: PyRef, v: Tracer | HostArray, span: A.Span): void {
  if (ip.atHost && ip.dynamicDepth > 0 && r.depth !== ip.dynamicDepth) throw new NeedsStatic('changing a jax.new_ref inside a loop that runs on the host', span);
  touch(ip, r, true, span);
  r.value = v;
}

/**
 * The end of trace `t`: the final values of the refs it wrote (arguments' refs
 * then outer refs), and `commit`, which rebinds the outer refs to the values
 * the call gives for them. The outer refs hold their values from before the
 * trace again.
 */
export function finishRefs(ip: Interp, t: Trace, span: A.Span): { atoms: Atom[]; targets: PyRef[]; commit: (outs: (Tracer | HostArray)[]) => void; touched: boolean; scan: { ref: PyRef; captured: number; init: Tracer | HostArray }[] } {
  const info = traceRefs.get(t);
  if (!info) return { atoms: [], targets: [], commit: () => {}, touched: false, scan: [] };
  traceRefs.delete(t);
  const targets: PyRef[] = [];
  const atoms: Atom[] = [];
  for (const [outer, { inner }] of info.args) {
    if (inner.value === argParams.get(inner)) continue;
    const a = t.atomOf(inner.value);
    targets.push(outer);
    atoms.push(a);
  }
  const scan: { ref: PyRef; captured: number; init: Tracer | HostArray }[] = [];
  for (const [r, before] of info.touched) {
    if (info.kind === 'scan' || info.kind === 'discover') {
      scan.push({ ref: r, captured: info.carries.get(r)!, init: before });
      // a weakly typed carry that the body sets to a strong value is strong, as JAX promotes a loop's weak carry
      const p = t.builder.params[t.builder.params.length - t.captured.length + info.carries.get(r)!]!;
      const v = ip.ops.asArray(r.value, span);
      if (p.aval.weak && !v.aval.weak && info.kind === 'scan') {
        strongCarry.add(r);
        for (const [x, b] of info.touched) x.value = b;
        throw new RetraceRefs();
      }
      atoms.push((p.aval.weak ? v : ip.ops.convert(v, v.aval.dtype, span)).atom);
    } else if (info.written.has(r)) {
      targets.push(r);
      atoms.push(t.atomOf(r.value));
    }
    r.value = before;
  }
  const commit = (outs: (Tracer | HostArray)[]): void => targets.forEach((r, i) => writeRef(ip, r, outs[i]!, span));
  return { atoms, targets, commit, touched: info.touched.size > 0 || info.args.size > 0, scan };
}

/** Refs whose loop carry is strongly typed (the body sets them to a strong value). */
const strongCarry = new WeakSet<PyRef>();

/** A loop body set a weakly typed ref to a strong value: trace it again with the ref's carry strong. */
export class RetraceRefs {}

/** The parameter each argument ref started from (unchanged: no result for it). */
const argParams = new WeakMap<PyRef, Tracer>();

/**
 * The refs among a traced function's argument leaves: each becomes a fresh
 * ref inside trace `t` over its parameter. `names` gives each leaf's argument
 * name (JAX's messages name it). Passing one ref twice is JAX's error.
 */
export function argRefs(ip: Interp, t: Trace, leaves: PyValue[], params: PyValue[], names: string[], span: A.Span): PyValue[] {
  const info = traceRefs.get(t);
  const out = [...params];
  leaves.forEach((l, i) => {
    if (!(l instanceof PyRef)) return;
    if (!info) throw new CompileError('NotImplementedError: passing a jax.new_ref to this transformation is not supported by jaxts (jax.jit and jax.vmap take refs)', span);
    const seen = info.args.get(l);
    if (seen) {
      throw new CompileError(`ValueError: only one reference to a mutable array may be passed as an argument to a function, but when tracing ${info.fnInfo} the mutable array reference of type ${refType(l.value.aval)} appeared at both ${seen.name} and ${names[i]}.`, span);
    }
    const p = params[i] as Tracer;
    const inner = new PyRef(p, t, ip.dynamicDepth);
    argParams.set(inner, p);
    info.args.set(l, { inner, name: names[i]! });
    out[i] = inner;
  });
  return out;
}

/** The argument name of an outer ref passed to trace `t`'s function (for jit's "cannot be returned" message). */
export function argRefName(t: Trace, r: PyRef): string | null {
  const info = traceRefs.get(t);
  if (!info) return null;
  for (const { inner, name } of info.args.values()) if (inner === r) return name;
  return null;
}

/** Leaves with each ref replaced by its current value (for shapes and axes). */
export const refValues = (leaves: PyValue[]): PyValue[] => leaves.map((l) => (l instanceof PyRef ? l.value : l));

// ------------------------------------------------------------------ the Ref object

const updateCtx = (ip: Interp): UpdateCtx => ({
  ops: ip.ops,
  indexItems: (key, span) => ip.indexItems(key, span),
  call: (fn, arg, span) => ip.call(fn, { args: [arg], kwargs: new Map(), span }),
  truthy: (v, span) => truthy(v, span),
});

const wholeIndex = (key: PyValue): boolean => key instanceof PyEllipsis || (key instanceof PyTuple && (key.items.length === 0 || (key.items.length === 1 && key.items[0] instanceof PyEllipsis)));

function checkLive(r: PyRef, span: A.Span): void {
  if (r.frozen) throw new CompileError('ValueError: attempting to use a frozen ref (jax.freeze consumed it)', span);
}

/** `r[key]`. */
export function refGet(ip: Interp, r: PyRef, key: PyValue, span: A.Span): PyValue {
  checkLive(r, span);
  const v = readRef(ip, r, span);
  return wholeIndex(key) ? (v instanceof Tracer && v.trace !== ip.trace() ? ip.ops.tracer(ip.ops.atom(v, span)) : v) : subscript(ip, v, key, span);
}

/** `r[key] = x` (JAX's ref_set: `x` takes the ref's dtype). */
export function refSet(ip: Interp, r: PyRef, key: PyValue, x: PyValue, span: A.Span): void {
  checkLive(r, span);
  const cur = readRef(ip, r, span);
  const o = ip.ops;
  let next: PyValue;
  // JAX's ref swap takes a value of the ref's own dtype (a Python int is int32, so not into a float ref)
  const checkDtype = (): void => {
    const xd = x instanceof PyRef ? null : o.asArray(x, span).aval.dtype;
    if (xd !== null && xd !== cur.aval.dtype) throw new CompileError(`ValueError: Invalid dtype for \`swap\`. Ref dtype: ${cur.aval.dtype}. Value dtype: ${xd}. `, span);
  };
  if (wholeIndex(key)) {
    const xv = o.asArray(x, span);
    const shape = cur.aval.shape;
    const sh = xv.aval.shape;
    // and of the shape the index selects (no broadcasting)
    if (sh.join() !== shape.join()) {
      throw new CompileError(`ValueError: Invalid shape for \`swap\`. Ref shape: (${shape.join(', ')}${shape.length === 1 ? ',' : ''}). Expected shape: (${shape.join(', ')}${shape.length === 1 ? ',' : ''}). Value shape: (${sh.join(', ')}${sh.length === 1 ? ',' : ''}). Transforms: (). `, span);
    }
    checkDtype();
    // the stored value is strongly typed (JAX's ref_swap)
    let y = o.convert(xv, cur.aval.dtype, span);
    if (sh.join() !== shape.join()) y = o.tracer(o.broadcastTo(y.atom, [...shape], span));
    next = y;
  } else {
    // the value has the shape the index selects (no broadcasting), then the ref's dtype
    const want = o.aval(subscript(ip, cur, key, span), span).shape;
    const sh = x instanceof PyRef ? want : o.asArray(x, span).aval.shape;
    const tup = (d: readonly number[]): string => `(${d.join(', ')}${d.length === 1 ? ',' : ''})`;
    if (sh.join() !== want.join()) throw new CompileError(`ValueError: Invalid shape for \`swap\`. Ref shape: ${tup(cur.aval.shape)}. Expected shape: ${tup(want)}. Value shape: ${tup(sh)}. `, span);
    checkDtype();
    next = indexUpdateMethod(updateCtx(ip), new PyIndexUpdateRef(cur, key), 'set', { args: [x], kwargs: new Map(), span });
    if (isArray(next)) next = o.convert(o.asArray(next, span), cur.aval.dtype, span);
  }
  if (!isArray(next)) throw new CompileError('internal: a ref update gave no array', span);
  writeRef(ip, r, next, span);
}

/** `jax.new_ref(x)` */
export function newRef(ip: Interp, c: CallArgs): PyValue {
  const x = c.args[0] ?? c.kwargs.get('init_val');
  if (x === undefined) throw new CompileError("TypeError: new_ref() missing 1 required positional argument: 'init_val'", c.span);
  if (x instanceof PyRef) throw new CompileError('TypeError: new_ref: the initial value is a Ref (make a ref from an array)', c.span);
  const v = isArray(x) ? x : ip.ops.asArray(x, c.span);
  return new PyRef(v, ip.atHost ? null : ip.trace(), ip.dynamicDepth);
}

/** `jax.freeze(ref)`: its final value; the ref may not be used again. */
export function freezeRef(ip: Interp, c: CallArgs): PyValue {
  const r = c.args[0] ?? c.kwargs.get('ref');
  if (!(r instanceof PyRef)) throw new CompileError('TypeError: freeze expects a Ref', c.span);
  const v = refGet(ip, r, ELLIPSIS, c.span);
  if (isHome(ip, r)) r.frozen = true;
  return v;
}

const idxArg = (c: CallArgs, i: number): PyValue => c.args[i] ?? c.kwargs.get('idx') ?? new PyTuple([]);

/** Attributes of a Ref: shape, dtype, ndim, size, and get / set / swap / addupdate. */
export function refAttr(ip: Interp, r: PyRef, name: string, span: A.Span): PyValue | undefined {
  const a = r.value.aval;
  switch (name) {
    case 'shape':
      return new PyTuple(a.shape.map((d) => BigInt(d)));
    case 'ndim':
      return BigInt(a.shape.length);
    case 'size':
      return BigInt(a.shape.reduce((x, y) => x * y, 1));
    case 'dtype':
      return ip.library.attr(ip.ops.tracer(ip.ops.atom(r.value, span)), 'dtype', span);
    case 'get':
      return new PyBoundMethod(r, name, (c) => refGet(ip, r, idxArg(c, 0), c.span));
    case 'set':
      return new PyBoundMethod(r, name, (c) => (refSet(ip, r, idxArg(c, 1), c.args[0] ?? c.kwargs.get('value')!, c.span), null));
    case 'swap':
      return new PyBoundMethod(r, name, (c) => {
        const old = refGet(ip, r, idxArg(c, 1), c.span);
        refSet(ip, r, idxArg(c, 1), c.args[0] ?? c.kwargs.get('value')!, c.span);
        return old;
      });
    case 'addupdate':
      return new PyBoundMethod(r, name, (c) => (refAdd(ip, r, idxArg(c, 1), c.args[0] ?? c.kwargs.get('x')!, c.span), null));
    case 'unsafe_buffer_pointer':
      return new PyBoundMethod(r, name, () => bufferAddress(r));
  }
  return undefined;
}

/** Ref.unsafe_buffer_pointer(): the address of the ref's buffer, the same for its whole life (writes update it in place). */
const addresses = new WeakMap<PyRef, bigint>();
let nextAddress = 0x55c1_3a20_0000n;
function bufferAddress(r: PyRef): bigint {
  let a = addresses.get(r);
  if (a === undefined) {
    a = nextAddress;
    nextAddress += 0x1000n;
    addresses.set(r, a);
  }
  return a;
}

/** `r[key] += x` as ref_addupdate. */
function refAdd(ip: Interp, r: PyRef, key: PyValue, x: PyValue, span: A.Span): void {
  const cur = readRef(ip, r, span);
  const added = wholeIndex(key) ? ip.ops.binary('add', cur, x, span) : indexUpdateMethod(updateCtx(ip), new PyIndexUpdateRef(cur, key), 'add', { args: [x], kwargs: new Map(), span });
  if (!isArray(added)) throw new CompileError('internal: a ref update gave no array', span);
  let next: Tracer | HostArray = added;
  // an add-update keeps the ref's type (a weakly typed ref stays weak)
  if (cur.aval.weak && !next.aval.weak) next = ip.ops.tracer(ip.ops.bind('convert_element_type', [ip.ops.atom(next, span)], { new_dtype: cur.aval.dtype, weak_type: true }, span));
  writeRef(ip, r, next, span);
}

/** The jax.ref module's functions (get, set, swap, addupdate, new_ref, freeze). */
export function refFunctions(ip: Interp): Map<string, PyBuiltin> {
  const ref = (c: CallArgs): PyRef => {
    const r = c.args[0] ?? c.kwargs.get('ref');
    if (!(r instanceof PyRef)) throw new CompileError('TypeError: expected a Ref', c.span);
    return r;
  };
  const val = (c: CallArgs): PyValue => c.args[2] ?? c.kwargs.get('value') ?? c.kwargs.get('x')!;
  const idx = (c: CallArgs): PyValue => {
    const i = c.args[1] ?? c.kwargs.get('idx') ?? null;
    return i === null ? new PyTuple([]) : i;
  };
  return new Map([
    ['new_ref', new PyBuiltin('new_ref', (c) => newRef(ip, c))],
    ['freeze', new PyBuiltin('freeze', (c) => freezeRef(ip, c))],
    ['get', new PyBuiltin('get', (c) => refGet(ip, ref(c), idx(c), c.span))],
    ['set', new PyBuiltin('set', (c) => (refSet(ip, ref(c), idx(c), val(c), c.span), null))],
    ['swap', new PyBuiltin('swap', (c) => {
      const old = refGet(ip, ref(c), idx(c), c.span);
      refSet(ip, ref(c), idx(c), val(c), c.span);
      return old;
    })],
    ['addupdate', new PyBuiltin('addupdate', (c) => (refAdd(ip, ref(c), idx(c), val(c), c.span), null))],
  ]);
}

/** str() and repr() of a Ref: `Ref([0., 2., 0.], dtype=float32)` (both are the repr, as in JAX). */
export function refText(ip: Interp, v: PyValue, span: A.Span): Text | null {
  if (!(v instanceof PyRef)) return null;
  if (v.value instanceof Tracer && !v.value.materialized && v.value.trace.kind !== 'segment') return Text.of(refType(v.value.aval));
  const h = ip.hostArray(v.value, span);
  return new Text([{ k: 'call', callee: 'jx.repr', args: [{ k: 'var', name: h.name }, { k: 'lit', value: h.aval.weak === true }, { k: 'lit', value: 'Ref' }], await: true }]);
}

/** jnp functions given a Ref: JAX's check of array-like arguments. */
export function checkNotRef(fname: string, args: PyValue[], span: A.Span): void {
  const i = args.findIndex((a) => a instanceof PyRef);
  if (i >= 0) throw new CompileError(`TypeError: ${fname} requires ndarray or scalar arguments, got <class 'jax._src.interpreters.partial_eval.DynamicJaxprTracer'> at position ${i}.`, span);
}

// ------------------------------------------------------------------ jax.vjp's with_refs (jax.ad.GradValue / DontWant)

/** jax.ad.GradValue() / DontWant() (what with_refs is told per primal), and DidntWant() / GradRef() (what it gives for DontWant / a ref). */
export class PyAdSpec extends PyObject {
  constructor(readonly kind: 'GradValue' | 'DontWant' | 'DidntWant' | 'GradRef') {
    super();
  }
  get typeName(): string {
    return this.kind;
  }
}

/** Per function jax.vjp returned: its `with_refs(*specs)`. */
export const vjpWithRefs = new WeakMap<PyBuiltin, (specs: PyValue[], span: A.Span) => PyBuiltin>();

/** A cotangent accumulated into a ref (with_refs): an add-update of the whole ref. */
export function refAddGrad(ip: Interp, r: PyRef, g: PyValue, span: A.Span): void {
  refAdd(ip, r, ELLIPSIS, g, span);
}

/** The jax.ad module's GradValue and DontWant. */
export const adFunctions = (): Map<string, PyBuiltin> =>
  new Map([
    ['GradValue', new PyBuiltin('GradValue', () => new PyAdSpec('GradValue'))],
    ['DontWant', new PyBuiltin('DontWant', () => new PyAdSpec('DontWant'))],
  ]);

/** Attributes of with_refs's objects: `f_vjp.with_refs`. */
export function vjpAttr(obj: PyValue, name: string, span: A.Span): PyValue | undefined {
  if (!(obj instanceof PyBuiltin) || name !== 'with_refs') return undefined;
  const w = vjpWithRefs.get(obj);
  return w && new PyBuiltin('with_refs', (c) => w(c.args, c.span ?? span));
}

export const adSpecText = (v: PyValue): Text | null => (v instanceof PyAdSpec ? Text.of(`${v.kind}()`) : null);
