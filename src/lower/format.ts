// str(), repr() and f-strings of lowering values, as Text: static values are
// formatted now with the runtime's Python/NumPy printers; arrays and host
// values become runtime formatting calls.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type * as A from '../parser/ast.js';
import {
  asciiEscape, formatValue, npScalarRepr, npScalarStr, numpyRepr, numpyStr, pyComplexRepr, pyFloatRepr, PyFormatError, pyStrRepr,
} from '../../runtime/format/index.js';
import { getAttr } from './attrs.js';
import { PySet } from './sets.js';
import { evalExpr, subscript } from './expr.js';
import { PySlice, type Interp } from './interp.js';
import { hostNdText } from './host_numpy.js';
import { Text } from './text.js';
import { concreteValue, eagerValue } from './const_eval.js';
import { checkFormatSpec } from './limits.js';
import { hostListRepr } from './host_list.js';
import { callDunder, instanceText } from './classes.js';
import { shardingRepr, tupleRepr } from './shardings.js';
import {
  PyComplex,
  HostList, HostNd, HostScalar, HostZip, PyInstance, NdArray, NpScalar, PyBoundMethod, PyBuiltin, PyClass, PyDevice, PyDict, PyDType, PyFunction, PyIterator, PyList, PyModule,
  PyTransformed, PyTuple, Scope, TangentOf, Tracer, isArray, typeName, type CallArgs, HostArray, type PyValue, type Trace,
} from './values.js';
import { shortDtype, type Atom, type AVal } from '../ir/types.js';

const call = (callee: string, args: HExpr[], isAwait = false): HExpr => ({ k: 'call', callee, args, await: isAwait });

/** The text of a host value that may be None at run time: 'None' there, else `text`. */
const orNoneText = (v: HostScalar, text: HExpr): HExpr => (v.raw === null ? text : { k: 'cond', test: { k: 'bin', op: '===', a: v.raw, b: { k: 'lit', value: null } }, then: { k: 'lit', value: 'None' }, else: text });

/** A Text as a Python str: static when it is known now, else a host string. */
export function textValue(t: Text): PyValue {
  const s = t.static;
  return s !== null ? s : new HostScalar(t.toExpr(), 'str');
}

/**
 * The host variable of an array to format. A tracer of a transformed function
 * (jit, grad, vmap, pmap) has no values yet: str() and repr() give its
 * description (tracerText); other formatting of one is not supported.
 */
function hostArrayToFormat(ip: Interp, v: Tracer | HostArray, what: string, span: A.Span): HostArray {
  if (isTransformTracer(v)) {
    throw new CompileError(`${what} of a traced array inside a transformed function (jit, grad, vmap, pmap) is not supported: JAX gives the tracer's description, not its values`, span);
  }
  return ip.hostArray(v, span);
}

// ------------------------------------------------------------ tracers as JAX shows them

/**
 * jit's cache, for trace-time prints: a host-level jit or pmap trace's key
 * (function, abstract arguments, static arguments). A print while tracing
 * prints when the program first runs with that key, as JAX prints only when
 * it traces (the first call with a signature).
 */
const cacheKeys = new WeakMap<Trace, string>();
const functionIds = new WeakMap<object, number>();
let nextFunctionId = 0;

export function noteTraceCacheKey(ip: Interp, t: Trace, fn: PyValue, leaves: PyValue[], span: A.Span): void {
  let id = 0;
  if (fn && typeof fn === 'object') {
    id = functionIds.get(fn) ?? ++nextFunctionId;
    functionIds.set(fn, id);
  }
  const sig = leaves.map((l) => (isArray(l) ? avalText(ip.ops.aval(l, span)) : l instanceof NdArray ? `np:${l.dtype}[${l.shape.join(',')}]` : `${typeName(l)}:${reprOf(ip, l, span).static ?? '?'}`));
  const key = `${t.kind}${id}(${sig.join(';')})`;
  const gen = failedTraces.get(key) ?? 0;
  cacheKeys.set(t, gen ? `${key}~${gen}` : key);
}

/** Per cache key: how many of its traces failed (JAX caches no failed trace: the next one prints again). */
const failedTraces = new Map<string, number>();

/** Trace `t` raised: a later trace with its signature is a new one (its prints show again). */
export function traceFailed(t: Trace): void {
  const key = cacheKeys.get(t);
  if (key === undefined) return;
  const base = key.replace(/~\d+$/, '');
  failedTraces.set(base, (failedTraces.get(base) ?? 0) + 1);
}

/** The cache key noteTraceCacheKey gave trace `t` (jit's cache: the function, argument types, static values). */
export const traceCacheKey = (t: Trace): string | undefined => cacheKeys.get(t);

const printCounts = new WeakMap<Trace, number>();

/** The key of the next trace-time print of trace `t` (null: not a cached trace; it prints on every call). */
export function tracePrintKey(t: Trace): string | null {
  const key = cacheKeys.get(t);
  if (key === undefined) return null;
  const n = printCounts.get(t) ?? 0;
  printCounts.set(t, n + 1);
  return `${key}#${n}`;
}

/** A value of a transformation's trace (not a host segment's, which has values when it runs). */
export const isTransformTracer = (v: PyValue): v is Tracer => v instanceof Tracer && !v.materialized && v.trace.kind !== 'segment';

/** What a vmap or grad trace knows of its parameters: the value passed in, and (vmap) the batch axis. */
interface TraceParams {
  /** Parameter var id → the value the caller passed and its batch axis (vmap; null: not mapped). */
  params: Map<number, { outer: PyValue; batchDim: number | null }>;
  /** vmap: the mapped size. */
  size: number;
}
const traceParams = new WeakMap<Trace, TraceParams>();

/** Record a vmap or grad trace's parameters (transforms.ts, when it makes them). */
export function noteTraceParams(t: Trace, params: { tracer: Tracer; outer: PyValue; batchDim: number | null }[], size = 0): void {
  const m = new Map<number, { outer: PyValue; batchDim: number | null }>();
  for (const p of params) if (p.tracer.atom.kind === 'var') m.set(p.tracer.atom.id, { outer: p.outer, batchDim: p.batchDim });
  traceParams.set(t, { params: m, size });
}

/**
 * `x.val` of a value vmap batches (JAX's BatchTracer.val, which tutorials
 * print): for an argument of the vmapped function, the value the caller
 * passed in, batch axis and all. undefined: `v` is no such argument.
 */
export function batchedValueOf(v: Tracer): PyValue | undefined {
  if (v.trace.kind !== 'vmap' || v.atom.kind !== 'var') return undefined;
  const p = traceParams.get(v.trace)?.params.get(v.atom.id);
  return p && p.batchDim !== null ? p.outer : undefined;
}

/** `float32[3]`, `~float32[]` for a weak type: how JAX shows an abstract value. */
const avalText = (a: AVal): string => `${a.weak ? '~' : ''}${a.dtype}[${a.shape.join(',')}]`;

/**
 * The batch axis of `atom` on vmap trace `t` (null: it does not depend on a
 * mapped argument), or for a grad trace 0 when it depends on a differentiated
 * argument. An equation's result keeps its first batched input's axis where
 * the rank allows (elementwise operations), else axis 0.
 */
function batchDimOf(t: Trace, info: TraceParams, atom: Atom): number | null {
  if (atom.kind !== 'var') return null;
  const dims = new Map<number, number | null>();
  for (const [id, p] of info.params) dims.set(id, p.batchDim);
  if (dims.has(atom.id)) return dims.get(atom.id)!;
  for (const e of t.builder.eqns) {
    const ins = e.inputs.map((a) => (a.kind === 'var' ? dims.get(a.id) ?? null : null));
    const first = e.inputs.findIndex((_, i) => ins[i] !== null);
    for (const o of e.outputs) {
      const d = first < 0 ? null : o.aval.shape.length === e.inputs[first]!.aval.shape.length ? ins[first]! : 0;
      dims.set(o.id, d);
    }
    if (e.outputs.some((o) => o.id === atom.id)) return dims.get(atom.id) ?? null;
  }
  return null;
}

const notConcrete = (span: A.Span): CompileError =>
  new CompileError(
    'str() of a value computed inside jax.grad or jax.vmap outside jit: JAX shows its concrete value here, which jaxts knows only when the program runs (print it, or use jax.debug.print)',
    span,
  );

/**
 * Where a tracer's text shows a concrete value (outside jit, a grad primal or
 * a value vmap does not batch), the text of that value; null: unknown at
 * compile time. A print inside an eager transformation sets it (withConcrete).
 */
let concreteText: ((v: PyValue) => Text) | null = null;

/** Run `fn` with concrete values shown by `show` (see concreteText). */
export function withConcrete<T>(show: (v: PyValue) => Text, fn: () => T): T {
  const saved = concreteText;
  concreteText = show;
  try {
    return fn();
  } finally {
    concreteText = saved;
  }
}

/** `show(v)`, formatting normally inside (a concrete value's own text). */
function showConcrete(show: (v: PyValue) => Text, v: PyValue): Text {
  concreteText = null;
  try {
    return show(v);
  } finally {
    concreteText = show;
  }
}

/**
 * The concrete value `v` (an argument passed in, or the traced value itself):
 * its text, when known. A host array passed in is formatted now: the pending
 * host segment is materialised with `args` (every argument of the
 * transformation, which transforms.ts then reads from the new segment).
 */
function concrete(ip: Interp, v: PyValue, span: A.Span, args: PyValue[] = []): Text {
  if (concreteText) return showConcrete(concreteText, v);
  if (v instanceof Tracer && v.trace.kind !== 'segment') {
    // a value computed from compile-time constants (outside jit): JAX's concrete primal
    const c = concreteValue(v);
    if (typeof c === 'string' || c.dtype === 'complex64') throw notConcrete(span);
    return strOf(ip, new NdArray(c.shape, c.dtype, c.data), span);
  }
  if (v instanceof Tracer && !v.materialized) ip.flush(args);
  return strOf(ip, v, span);
}

/** `{V:i}`, `{V:(i,j)}`: a shard_map body's varying axes in a type (none: nothing). */
const vmaText = (axes: readonly string[] | null): string => (!axes?.length ? '' : axes.length === 1 ? `{V:${axes[0]}}` : `{V:(${axes.join(',')})}`);

/** A value `v` of abstract value `a` on trace `t` (of `v` or an enclosing one), as JAX shows it. */
function avalOnTrace(ip: Interp, t: Trace, a: AVal, v: Tracer, span: A.Span): Text {
  switch (t.kind) {
    case 'vmap': {
      const size = traceParams.get(t)?.size ?? 0;
      return Text.of(`VmapTracer(aval=${avalText(a)}, batched=${avalText({ ...a, shape: [size, ...a.shape] })})`);
    }
    case 'grad':
      return gradTracerText(t, a, v, avalOnTrace(ip, t.parent!, a, v, span));
    case 'segment':
      return concrete(ip, v, span);
    default:
      // jit and pmap, and any trace that stages a jaxpr (JAX's DynamicJaxprTrace)
      return Text.of(`JitTracer(${avalText(a)})`);
  }
}

/** The jits being inlined into an enclosing transformation's trace (innermost last): their arguments and first equation. */
const inlinedJits: { trace: Trace; args: ReadonlySet<Atom>; start: number }[] = [];

/** Run `body`, a jit's call inlined into the trace `trace` (its arguments `args`), as JAX traces it: its own trace. */
export function withInlinedJit<T>(trace: Trace, args: readonly Atom[], body: () => T): T {
  inlinedJits.push({ trace, args: new Set(args), start: trace.builder.eqns.length });
  try {
    return body();
  } finally {
    inlinedJits.pop();
  }
}

/** The jits being inlined now, to render a print's text again later (a print inside an eager transformation runs when the program does). */
export function inlinedJitsNow(): <T>(fn: () => T) => T {
  const saved = [...inlinedJits];
  return (fn) => {
    const outer = inlinedJits.splice(0, inlinedJits.length, ...saved);
    try {
      return fn();
    } finally {
      inlinedJits.splice(0, inlinedJits.length, ...outer);
    }
  };
}

/** Is `v` a value of a jit inlined into its trace: an argument it was passed, or a value it made? */
function inInlinedJit(v: Tracer): boolean {
  const j = [...inlinedJits].reverse().find((x) => x.trace === v.trace);
  if (!j) return false;
  if (j.args.has(v.atom)) return true;
  const eqns = v.trace.builder.eqns;
  for (let i = j.start; i < eqns.length; i++) if (eqns[i]!.outputs.includes(v.atom as never)) return true;
  return false;
}

/**
 * str() / repr() of a tracer, as JAX 0.10 shows it: `JitTracer(float32[3])`
 * under jit and pmap, `VmapTracer(aval=float32[], batched=float32[3])` under
 * vmap, `GradTracer(primal=…, typeof(tangent)=f32[])` under grad. Outside
 * jit, a primal or a value vmap does not batch shows its concrete value.
 */
export function tracerText(ip: Interp, v: Tracer, span: A.Span): Text {
  const t = v.trace;
  const eager = eagerValue(v);
  if (eager && eager.dtype !== 'complex64') return strOf(ip, new NdArray(eager.shape, eager.dtype, eager.data), span);
  // a jit called inside vmap or grad (inlined into their trace): inside it, JAX's values are the jit's tracers
  if (t.kind !== 'jit' && t.kind !== 'segment' && inInlinedJit(v)) return Text.of(`JitTracer(${avalText(v.aval)}${vmaText(ip.library.varying(v))})`);
  if (t.kind !== 'vmap' && t.kind !== 'grad' && t.kind !== 'segment') return Text.of(`JitTracer(${avalText(v.aval)}${vmaText(ip.library.varying(v))})`);
  const info = traceParams.get(t);
  if (!info || t.kind === 'segment') return avalOnTrace(ip, t, v.aval, v, span);
  const param = v.atom.kind === 'var' ? info.params.get(v.atom.id) : undefined;
  const dim = batchDimOf(t, info, v.atom);
  // the value on the enclosing trace: the argument passed in, or (not depending on the transformed arguments) the value itself
  const outerText = (): Text => (param ? (isTransformTracer(param.outer) ? strOf(ip, param.outer, span) : concrete(ip, param.outer, span, [...info.params.values()].map((p) => p.outer))) : avalOnTrace(ip, t.parent!, v.aval, v, span));
  if (t.kind === 'vmap') {
    if (dim === null) return outerText();
    const batched = [...v.aval.shape];
    batched.splice(dim, 0, info.size);
    return Text.of(`VmapTracer(aval=${avalText(v.aval)}, batched=${avalText({ ...v.aval, shape: batched })})`);
  }
  // grad: a value that does not depend on a differentiated argument is the outer trace's
  if (dim === null) return outerText();
  return gradTracerText(t, v.aval, v, outerText());
}

/** A value `v` of abstract value `a` on grad trace `t`, its primal shown as `primal`. */
function gradTracerText(t: Trace, a: AVal, v: Tracer, primal: Text): Text {
  // jax.jvp shows the tangent too (a print made eagerly: its value computed with the primal's, transforms.ts)
  if (t.jvp && concreteText) return Text.of('JVPTracer(primal=').concat(primal, ', tangent=', showConcrete(concreteText, new TangentOf(v)), ')');
  // jax.jacfwd pushes the whole basis forward at once: the tangent is batched over it
  if (t.jacfwdBasis !== null) return Text.of('JVPTracer(primal=').concat(primal, `, tangent=VmapTracer(aval=${avalText(a)}, batched=${avalText({ ...a, shape: [t.jacfwdBasis, ...a.shape] })}))`);
  return Text.of('GradTracer(primal=').concat(primal, `, typeof(tangent)=${shortDtype(a.dtype)}[${a.shape.join(',')}])`);
}

/** The Python type of host value `v` as a TS expression (a float that may still be an int: chosen at run time). */
const hostTypeExpr = (v: HostScalar): HExpr =>
  v.intWhen ? { k: 'cond', test: v.intWhen.test, then: { k: 'lit', value: v.intWhen.type }, else: { k: 'lit', value: v.type } } : { k: 'lit', value: v.type };

/** An array unreduced over some mesh axes has no value to show: JAX prints its shape, dtype and sharding. */
function unreducedText(v: PyValue): Text | null {
  const h = v instanceof HostArray ? v : v instanceof Tracer && v.materialized ? v.materialized : null;
  if (!h?.sharding?.spec.unreduced.length) return null;
  return Text.of(`Array(shape=${tupleRepr(h.aval.shape.map(String))}, dtype=${h.aval.dtype}, sharding=${shardingRepr(h.sharding)})`);
}

export function strOf(ip: Interp, v: PyValue, span: A.Span): Text {
  if (typeof v === 'string') return Text.of(v);
  if (isTransformTracer(v)) return tracerText(ip, v, span);
  const un = unreducedText(v);
  if (un) return un;
  if (isArray(v) && concreteText) return showConcrete(concreteText, v);
  if (isArray(v)) return new Text([call('jx.str', [{ k: 'var', name: hostArrayToFormat(ip, v, 'str()', span).name }], true)]);
  if (v instanceof HostScalar && v.exact) return new Text([call('String', [v.exact])]);
  if (v instanceof HostScalar) return new Text([orNoneText(v, v.type === 'str' ? v.expr : call('jx.pyStr', [v.expr, hostTypeExpr(v)]))]);
  if (v instanceof NdArray) return Text.of(numpyStr({ dtype: v.dtype, shape: v.shape, data: v.data }));
  if (v instanceof HostNd) return new Text([hostNdText(v, false)]);
  if (v instanceof NpScalar) return Text.of(npScalarStr(v.value, v.dtype));
  if (v instanceof PyDevice) return new Text([call('rt.deviceStr', [{ k: 'lit', value: v.id }])]);
  if (v instanceof PyDType) return Text.of(v.name);
  const user = instanceText(ip, v, false, span);
  if (user) return user;
  const sh = ip.library.text(v, false, span);
  if (sh) return sh;
  return reprOf(ip, v, span);
}


/** The builtins that are classes (their repr is `<class 'int'>`). */
const BUILTIN_TYPES = new Set(['bool', 'bytes', 'complex', 'dict', 'float', 'frozenset', 'int', 'list', 'object', 'range', 'set', 'slice', 'str', 'tuple', 'type', 'enumerate', 'zip', 'map', 'filter', 'reversed']);
export function reprOf(ip: Interp, v: PyValue, span: A.Span): Text {
  if (v === null) return Text.of('None');
  if (typeof v === 'boolean') return Text.of(v ? 'True' : 'False');
  if (typeof v === 'bigint') return Text.of(v.toString());
  if (typeof v === 'number') return Text.of(pyFloatRepr(v));
  if (v instanceof PyComplex) return Text.of(pyComplexRepr(v.re, v.im));
  if (typeof v === 'string') return Text.of(pyStrRepr(v));
  if (isTransformTracer(v)) return tracerText(ip, v, span);
  const un = unreducedText(v);
  if (un) return un;
  if (isArray(v)) {
    const h = hostArrayToFormat(ip, v, 'repr()', span);
    const args: HExpr[] = [{ k: 'var', name: h.name }];
    if (h.aval.weak) args.push({ k: 'lit', value: true });
    return new Text([call('jx.repr', args, true)]);
  }
  if (v instanceof HostScalar && v.exact) return new Text([call('String', [v.exact])]);
  if (v instanceof HostScalar) return new Text([orNoneText(v, call('jx.pyRepr', [v.expr, hostTypeExpr(v)]))]);
  if (v instanceof HostList) return new Text([hostListRepr(ip, v)]);
  if (v instanceof HostZip && v.bounds.length) return Text.of('range(').concat(Text.join(v.bounds.map((b) => new Text([call('jx.pyStr', [b, { k: 'lit', value: 'int' }])])), ', '), ')');
  if (v instanceof NdArray) return Text.of(numpyRepr({ dtype: v.dtype, shape: v.shape, data: v.data }));
  if (v instanceof HostNd) return new Text([hostNdText(v, true)]);
  if (v instanceof NpScalar) return Text.of(npScalarRepr(v.value, v.dtype));
  if (v instanceof PyDevice) return new Text([call('rt.deviceRepr', [{ k: 'lit', value: v.id }])]);
  // ml_dtypes' types print unquoted: dtype(bfloat16)
  if (v instanceof PyDType) return Text.of(v.name === 'bfloat16' ? 'dtype(bfloat16)' : `dtype('${v.name}')`);
  const user = instanceText(ip, v, true, span);
  if (user) return user;
  const sh = ip.library.text(v, true, span);
  if (sh) return sh;
  if (v instanceof PyTuple || v instanceof PyList || v instanceof PyDict) {
    // a container inside itself (xs.append(xs)) shows as [...], as in Python
    if (reprActive.has(v)) return Text.of(v instanceof PyList ? '[...]' : v instanceof PyDict ? '{...}' : '(...)');
    reprActive.add(v);
    try {
      return containerRepr(ip, v, span);
    } finally {
      reprActive.delete(v);
    }
  }
  if (v instanceof PySet) {
    const items = Text.join(v.items().map((x) => reprOf(ip, x, span)), ', ');
    if (v.typeName === 'frozenset') return v.entries.size ? Text.of('frozenset({').concat(items, '})') : Text.of('frozenset()');
    return v.entries.size ? Text.of('{').concat(items, '}') : Text.of('set()');
  }
  if (v instanceof PySlice) {
    // slice(start, stop, step), as Python shows it
    const parts = v.values ? v.values.map((x) => reprOf(ip, x, span)) : [v.start, v.stop, v.step].map((x) => Text.of(x === null ? 'None' : String(x)));
    return Text.of('slice(').concat(Text.join(parts, ', '), ')');
  }
  if (v instanceof PyFunction || v instanceof PyTransformed) return Text.of(`<function ${v.name}>`);
  if (v instanceof PyBuiltin) return Text.of(BUILTIN_TYPES.has(v.name) ? `<class '${v.name}'>` : `<built-in function ${v.name}>`);
  if (v instanceof PyIterator) return Text.of(`<${v.typeName} object at 0x${v.address.toString(16)}>`);
  if (v instanceof PyBoundMethod) return Text.of(`<bound method ${v.name}>`);
  if (v instanceof PyModule) return Text.of(`<module '${v.name}'>`);
  if (v instanceof PyClass) return Text.of(`<class '${v.kind === 'namedtuple' ? '__main__.' : v.module ? `${v.module}.` : ''}${v.name}'>`);
  return Text.of(`<${typeName(v)} object>`);
}

/** The containers whose repr is being built (an inner occurrence is `[...]`). */
const reprActive = new Set<PyTuple | PyList | PyDict>();

function containerRepr(ip: Interp, v: PyTuple | PyList | PyDict, span: A.Span): Text {
  if (v instanceof PyTuple) {
    if (v.cls) {
      return Text.of(`${v.cls.name}(`).concat(Text.join(v.items.map((x, i) => Text.of(`${v.cls!.fields[i]}=`).concat(reprOf(ip, x, span))), ', '), ')');
    }
    return Text.of('(').concat(Text.join(v.items.map((x) => reprOf(ip, x, span)), ', '), v.items.length === 1 ? ',)' : ')');
  }
  if (v instanceof PyList) {
    const list = Text.of('[').concat(Text.join(v.items.map((x) => reprOf(ip, x, span)), ', '), ']');
    if (!v.deque) return list;
    return Text.of('deque(').concat(list, v.deque.maxlen === null ? ')' : `, maxlen=${v.deque.maxlen})`);
  }
  const pairs = [...v.entries.values()];
  const flavor = v.flavor;
  if (flavor?.kind === 'OrderedDict') {
    if (!pairs.length) return Text.of('OrderedDict()');
    return Text.of('OrderedDict([').concat(Text.join(pairs.map(([k, x]) => Text.of('(').concat(reprOf(ip, k, span), ', ', reprOf(ip, x, span), ')')), ', '), '])');
  }
  // a Counter shows its most common first (a stable sort of the counts)
  if (flavor?.kind === 'Counter') pairs.sort((a, b) => Number(b[1]) - Number(a[1]));
  const items = pairs.map(([k, x]) => reprOf(ip, k, span).concat(': ', reprOf(ip, x, span)));
  const body = Text.of('{').concat(Text.join(items, ', '), '}');
  if (flavor?.kind === 'Counter') return pairs.length ? Text.of('Counter(').concat(body, ')') : Text.of('Counter()');
  if (flavor?.kind === 'defaultdict') {
    const f = flavor.factory;
    const shown = f instanceof PyBuiltin && BUILTIN_TYPES.has(f.name) ? Text.of(`<class '${f.name}'>`) : reprOf(ip, f, span);
    return Text.of('defaultdict(').concat(shown, ', ', body, ')');
  }
  return body;
}

/** `f()`, with the runtime formatter's Python exceptions reported as compile errors at `span`. */
export function pyErrors<T>(span: A.Span, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PyFormatError) throw new CompileError(`${e.pyType}: ${e.message}`, span);
    throw e;
  }
}

/** format(v, spec) as Python does it (f"{v:spec}"). */
export function formatOf(ip: Interp, v: PyValue, spec: string, span: A.Span): Text {
  checkFormatSpec(spec, span);
  // f"{x}" of a 0-d array formats it as a Python scalar (a float32 shows its float64 repr)
  if (spec === '' && (isTransformTracer(v) || !(isArray(v) && ip.ops.aval(v, span).shape.length === 0))) return strOf(ip, v, span);
  if (isArray(v)) {
    const aval = ip.ops.aval(v, span);
    if (aval.shape.length !== 0) throw new CompileError('TypeError: unsupported format string passed to ArrayImpl.__format__', span);
    return new Text([call('jx.formatArray', [{ k: 'var', name: hostArrayToFormat(ip, v, 'format()', span).name }, { k: 'lit', value: spec }], true)]);
  }
  // (an int that may pass 2**53 formats exactly where the spec shows every digit)
  if (v instanceof HostScalar && v.exact && (spec === '' || /^[<>^=]?\d*d?$/.test(spec))) return new Text([call('jx.format', [call('String', [v.exact]), { k: 'lit', value: spec.replace(/d$/, '') }, { k: 'lit', value: 'str' }])]);
  if (v instanceof HostScalar) return new Text([call('jx.format', [v.expr, { k: 'lit', value: spec }, { k: 'lit', value: v.type }])]);
  // a 0-d NumPy array known at run time formats as its Python scalar
  if (v instanceof HostNd && v.shape.length === 0) {
    const type = v.dtype === 'bool' ? 'bool' : v.dtype.startsWith('float') ? 'float' : 'int';
    return new Text([call('jx.format', [call('jx.np.item', [{ k: 'var', name: v.name }]), { k: 'lit', value: spec }, { k: 'lit', value: type }])]);
  }
  if (v instanceof NpScalar) {
    return Text.of(pyErrors(span, () => formatValue(v.dtype.startsWith('float') ? v.value : v.dtype === 'bool' ? v.value !== 0 : BigInt(v.value), spec)));
  }
  if (v === null || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string') {
    return Text.of(pyErrors(span, () => formatValue(v, spec)));
  }
  // an object's __format__ (a subclass of a built-in type: its value's)
  const user = v instanceof PyInstance ? callDunder(ip, v, '__format__', [spec], span) : undefined;
  if (user !== undefined) return strOf(ip, user, span);
  throw new CompileError(`TypeError: unsupported format string passed to ${typeName(v)}.__format__`, span);
}

export function formatFString(ip: Interp, e: A.JoinedStr, scope: Scope): Text {
  let out = new Text([]);
  // evaluate every field first, so that their arrays are materialised together
  // (each held while the later ones evaluate: `str(x)` in a later field reads back, flushing what is pending)
  const values = ip.holding((hold) => e.values.map((part) => (part.kind === 'Constant' ? null : hold(evalExpr(ip, part.value, scope)))));
  if (ip.atHost) ip.flush(values);
  for (const [i, part] of e.values.entries()) {
    if (part.kind === 'Constant') {
      out = out.concat(String(part.value));
      continue;
    }
    const v = values[i]!;
    if (part.selfDoc) out = out.concat(part.selfDoc);
    const specText = part.formatSpec ? formatFString(ip, part.formatSpec, scope) : Text.of('');
    const spec = specText.static;
    if (spec === null) throw new CompileError('a format spec computed at run time is not supported', part.span);
    out = out.concat(formatField(ip, v, part.conversion ?? (part.selfDoc && !spec ? 'r' : null), spec, part.span));
  }
  return out;
}

/** One replacement field of an f-string or str.format: `{v!conv:spec}`. */
function formatField(ip: Interp, v: PyValue, conv: string | null, spec: string, span: A.Span): Text {
  if (conv === 'r' || conv === 'a' || conv === 's') {
    let t = conv === 's' ? strOf(ip, v, span) : reprOf(ip, v, span);
    // ascii(): the repr of a value known only at run time (an array) is ASCII already
    if (conv === 'a' && t.static !== null) t = Text.of(asciiEscape(t.static));
    return spec ? formatTextAsStr(t, spec, span) : t;
  }
  return formatOf(ip, v, spec, span);
}

/** `fmt.format(*args, **kwargs)`, Python's str.format. */
export function strFormat(ip: Interp, fmt: string, c: CallArgs): Text {
  const span = c.span;
  const fail = (msg: string): CompileError => new CompileError(msg, span);
  let auto: number | null = null; // the next automatic field number; -1 once a field was numbered by hand
  const field = (name: string): PyValue => {
    const m = /^([^.[]*)(.*)$/s.exec(name)!;
    let v: PyValue;
    if (m[1] === '' || /^\d+$/.test(m[1]!)) {
      if (m[1] === '') {
        if (auto === -1) throw fail('ValueError: cannot switch from manual field specification to automatic field numbering');
        auto ??= 0;
      } else if (auto !== null && auto !== -1) {
        throw fail('ValueError: cannot switch from automatic field numbering to manual field specification');
      } else auto = -1;
      const i = m[1] === '' ? auto!++ : Number(m[1]);
      if (i >= c.args.length) throw fail(`IndexError: Replacement index ${i} out of range for positional args tuple`);
      v = c.args[i]!;
    } else {
      v = c.kwargs.get(m[1]!) ?? (() => { throw fail(`KeyError: ${pyStrRepr(m[1]!)}`); })();
    }
    for (let rest = m[2]!; rest; ) {
      const part = /^\.([^.[]+)|^\[([^\]]+)\]/.exec(rest);
      if (!part) {
        throw fail(
          rest[0] === '.' || rest.startsWith('[]') ? 'ValueError: Empty attribute in format string'
            : rest[0] === '[' ? "ValueError: Missing ']' in format string"
              : "ValueError: Only '.' or '[' may follow ']' in format field specifier",
        );
      }
      v = part[1] !== undefined ? getAttr(ip, v, part[1], span) : subscript(ip, v, /^\d+$/.test(part[2]!) ? BigInt(part[2]!) : part[2]!, span);
      rest = rest.slice(part[0].length);
    }
    return v;
  };
  const expand = (text: string, depth: number): Text => {
    if (depth <= 0) throw fail('ValueError: Max string recursion exceeded');
    let out = new Text([]);
    const cs = Array.from(text);
    for (let i = 0; i < cs.length; ) {
      const ch = cs[i++]!;
      if (ch === '}') {
        if (cs[i] !== '}') throw fail("ValueError: Single '}' encountered in format string");
        out = out.concat(cs[i++]!);
      } else if (ch !== '{') out = out.concat(ch);
      else if (i >= cs.length) throw fail("ValueError: Single '{' encountered in format string");
      else if (cs[i] === '{') out = out.concat(cs[i++]!);
      else {
        // field name up to '!', ':' or '}' ('[...]' may hold any of them)
        const start = i;
        let end = '';
        for (; i < cs.length; i++) {
          if (cs[i] === '{') throw fail("ValueError: unexpected '{' in field name");
          if (cs[i] === '[') while (i < cs.length && cs[i] !== ']') i++;
          if (cs[i] === '}' || cs[i] === ':' || cs[i] === '!') break;
        }
        const name = cs.slice(start, i).join('');
        end = cs[i++] ?? '';
        let conv: string | null = null;
        let spec = '';
        if (end === '!') {
          if (i >= cs.length) throw fail('ValueError: end of string while looking for conversion specifier');
          conv = cs[i++]!;
          end = cs[i++] ?? '';
          if (end !== '}' && end !== ':') throw fail(end ? "ValueError: expected ':' after conversion specifier" : 'ValueError: unmatched \'{\' in format spec');
        }
        if (end === ':') {
          let depthCount = 1;
          const specStart = i;
          for (; i < cs.length; i++) {
            if (cs[i] === '{') depthCount++;
            else if (cs[i] === '}' && --depthCount === 0) break;
          }
          if (depthCount) throw fail("ValueError: unmatched '{' in format spec");
          spec = cs.slice(specStart, i++).join('');
        } else if (end !== '}') throw fail("ValueError: expected '}' before end of string");
        const v = field(name);
        if (conv !== null && !'rsa'.includes(conv)) throw fail(`ValueError: Unknown conversion specifier ${conv}`);
        const specText = spec.includes('{') ? expand(spec, depth - 1).static : spec;
        if (specText === null) throw fail('a format spec computed at run time is not supported');
        out = out.concat(formatField(ip, v, conv, specText, span));
      }
    }
    return out;
  };
  if (ip.atHost) ip.flush([...c.args, ...c.kwargs.values()]);
  return expand(fmt, 2);
}

function formatTextAsStr(t: Text, spec: string, span: A.Span): Text {
  checkFormatSpec(spec, span);
  const s = t.static;
  if (s !== null) return Text.of(pyErrors(span, () => formatValue(s, spec)));
  return new Text([call('jx.format', [t.toExpr(), { k: 'lit', value: spec }, { k: 'lit', value: 'str' }])]);
}
