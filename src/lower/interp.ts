// The partial evaluator: runs the Python module at compile time. Static values
// are computed; array operations are traced into IR (host segments, jit, pmap,
// vmap bodies); host-dynamic values and prints become the host program.
import { canonicalDtype, setX64 } from './x64.js';
import { frameText, leaveFrame } from './tracebacks.js';
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HostProgram, HStmt, ProgramRequest } from '../ir/host.js';
import { jaxTypeStr, type DType, type Func, type NanOrigin } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { programMesh } from './shardings.js';
import { ArrayOps, castScalar, jaxDtype, type IndexItem } from './arrays.js';
import { arrayIndexItem } from './indexing.js';
import { binop, compare, evalExpr, iterate, subscript, truthyStatic } from './expr.js';
import { getAttr } from './attrs.js';
import { formatOf, reprOf, strOf, textValue } from './format.js';
import { callChoice, execBlock, lazyGenerator, localNames } from './stmt.js';
import { Text } from './text.js';
import { arrayConversionMessage } from './tracer_origin.js';
import { CallLog } from './call_log.js';
import { NameTable } from './name_table.js';
import { noteHostConstant, noteHostResults } from './const_eval.js';
import { forgetGensSince, genMark, hostNdToDevice } from './host_numpy.js';
import { dunder, EXCEPTIONS, instantiate, newException, type PyRaise, raiseValue } from './classes.js';
import {
  HostArray,
  HostChoice,
  hostDepth,
  checkDictKey,
  HostScalar,
  NdArray,
  HostNd,
  NpScalar,
  PyBoundMethod,
  PyBuiltin,
  PyClass,
  PyDevice,
  PyDType,
  PyDict,
  PyFunction,
  PyKeyArray,
  PyRef,
  PyIterator,
  PyList,
  PyMesh,
  PyModule,
  PyNamedSharding,
  PyObject,
  PyPartial,
  PyTransformed,
  PyTuple,
  PyInstance,
  PyUserClass,
  PySuper,
  PyDescriptor,
  Scope,
  Trace,
  Tracer,
  isArray,
  staticValue,
  typeName,
  type CallArgs,
  type PyValue,
  NeedsStatic,
} from './values.js';

/** Most simulated devices XLA_FLAGS may ask for (each has its own buffers and collectives run between them). */
export const MAX_DEVICES = 1024;

/** Nested Python calls allowed at compile time (a deeper recursion is Python's RecursionError, not a JS stack overflow). */
export const MAX_CALL_DEPTH = 1000;

/** A method's hidden local: its first argument, for a bare super() (a name no Python identifier can be). */
export const SUPER_SELF = ' self';

const generatorDefs = new WeakMap<A.FunctionDef, boolean>();
/** Does the function's own body (not a nested function's) contain `yield`? */
function isGenerator(def: A.FunctionDef): boolean {
  let r = generatorDefs.get(def);
  if (r !== undefined) return r;
  const walk = (n: unknown): boolean => {
    if (Array.isArray(n)) return n.some(walk);
    if (!n || typeof n !== 'object') return false;
    const kind = (n as { kind?: string }).kind;
    if (kind === 'Yield') return true;
    if (kind === 'FunctionDef' || kind === 'ClassDef' || kind === 'Lambda') return false;
    return Object.entries(n).some(([k, v]) => k !== 'span' && typeof v === 'object' && walk(v));
  };
  r = walk(def.body);
  generatorDefs.set(def, r);
  return r;
}

export class BreakSignal {}
export class ContinueSignal {}
export class ReturnSignal {
  constructor(readonly value: PyValue) {}
}

// JS reserved words, names that mean something else as a binding (arguments, eval, __proto__, ...), the
// generated module's own names, and globals generated code reads (Math.trunc, NaN, Infinity).
const JS_RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval undefined NaN Infinity constructor ' +
    '__proto__ prototype rt jx main deviceCount runtime programs script Math Number').split(' '),
);

/** Is `name` unusable as a JS identifier of generated code (a reserved word, or a name the module itself uses)? */
export const isReservedName = (name: string): boolean => JS_RESERVED.has(name);

/**
 * What the evaluator core asks of the library layer (the API modules, the
 * transformations, array methods, sharding objects). lower/index.ts builds it
 * and hands it to the interpreter: the core (interp, expr, stmt, attrs,
 * format, printf) imports no library module.
 */
export interface Library {
  /** `import name` / `from name import …`: the module object. */
  importModule(name: string, span: A.Span): PyModule;
  /** An attribute a library defines on a value (array properties and methods, sharding objects'); undefined when none. */
  attr(obj: PyValue, name: string, span: A.Span): PyValue | undefined;
  /** str()/repr() of a library's objects (meshes, shardings, shards, device arrays, PRNG keys); null for other values. */
  text(v: PyValue, repr: boolean, span: A.Span): Text | null;
  /** Inside a shard_map body: the mesh axes a tracer varies over (its type's `{V:...}`); null elsewhere. */
  varying(v: Tracer): string[] | null;
  /** The items of iterating a library's object (an array of devices, of PRNG keys); undefined for other values. */
  items(v: PyValue, span: A.Span): PyValue[] | undefined;
  /** `obj[key]` of a library's object (an array of PRNG keys); undefined for other values. */
  subscript(obj: PyValue, key: PyValue, span: A.Span): PyValue | undefined;
  /** `obj[key] = v` of a library's object (a jax.new_ref); false for other values. */
  setSubscript(obj: PyValue, key: PyValue, v: PyValue, span: A.Span): boolean;
  /** Calling a function made by jax.jit / grad / vmap / pmap. */
  callTransformed(fn: PyTransformed, call: CallArgs): PyValue;
  /** A host segment over arrays laid out on a mesh, partitioned as jit partitions: the host call and the results' shardings. */
  spmdCall(name: string, kind: 'jit' | 'segment', func: Func, args: HostArray[], mesh: PyMesh, span: A.Span | null): { value: HExpr; shardings: PyNamedSharding[] };
  /** A host segment's equations checked as JAX checks eager ops (sharding in types); throws JAX's error. */
  checkEager(t: Trace): void;
  /** The mesh jax.set_mesh set (eager ops over arrays on no mesh run over it, replicated, as JAX's do); null when none. */
  contextMesh(): PyMesh | null;
}

export interface LowerOptions {
  file: string;
  /** Overrides the device count the program would get (XLA_FLAGS or the default of 4). */
  devices?: number;
  /**
   * Shape-polymorphic exports, lowered at sample sizes: function → parameter path → the array
   * argument's symbolic shape (`spec`, jax.export's syntax) and its value at the sample.
   */
  exportShapes?: ReadonlyMap<string, ReadonlyMap<string, { spec: string; shape: readonly number[] }>>;
  /** The program's text (the source lines a traceback shows). */
  source?: string;
}

export class Interp {
  readonly ops: ArrayOps;
  readonly builtins = new Scope(null);
  readonly globals = new Scope(this.builtins);
  /** Active function scopes (for liveness when flushing host segments). */
  readonly frames: Scope[] = [this.globals];
  private traces: Trace[] = [];
  private hostTrace: Trace;
  private out: HStmt[][] = [[]];
  private readonly names = new NameTable();
  /** Each fresh name's hint (the Python name it was made for), for messages an application sees. */
  readonly freshHints = new Map<string, string>();
  readonly programs: HostProgram['programs'] = [];
  deviceCount = 4;
  deviceCountFrozen = false;
  /** jax.config.update('jax_num_cpu_devices', n) before the first use of the devices: wins over XLA_FLAGS, as in JAX. */
  numCpuDevices: number | null = null;
  private segmentCount = 0;
  /** How many host loops (or ifs on run-time values) being lowered enclose the code being evaluated. */
  get dynamicDepth(): number {
    return hostDepth.current;
  }
  set dynamicDepth(d: number) {
    hostDepth.current = d;
  }
  private constants = new Map<NdArray, HostArray>();
  /** The Python name `name` is used as is (an exported function's parameter): generated names avoid it. */
  reserveName(name: string): void {
    this.names.add(name);
  }
  /**
   * Values evaluated but not yet consumed (earlier call arguments and operands
   * while later ones evaluate): roots for `flush`, like a VM's operand stack.
   */
  readonly held: PyValue[] = [];

  /** Run `fn` with `hold` callable to keep values alive across flushes until `fn` returns. */
  holding<T>(fn: (hold: <V extends PyValue>(v: V) => V) => T): T {
    const n = this.held.length;
    try {
      return fn((v) => (this.held.push(v), v));
    } finally {
      this.held.length = n;
    }
  }
  /** `const constant = rt.constant(...)` statements, hoisted to the top of main() (constants are pure data). */
  private constantStmts: { nd: NdArray | string; stmt: HStmt }[] = [];
  /** Hoisted host values other than arrays (mesh layouts), by a key describing them. */
  private hoistedNames = new Map<string, string>();
  /** `os.environ`, read when the device count is first needed (as XLA reads XLA_FLAGS). */
  environ: PyDict | null = null;
  /** Python names the current assignment binds, to name host variables after them. */
  nameHints: string[] = [];
  /** jax.config.update("jax_debug_nans", True) ran: programs made from now on check for NaNs (src/passes/nan_checks.ts). */
  debugNans = false;
  /** 1-based line of the Python statement being lowered; emitted host statements carry it (source maps). */
  line: number | undefined = undefined;
  /** Inside `with jax.disable_jit():` jitted functions run as plain Python. */
  jitDisabled = 0;
  /** The exceptions whose `except` handlers are running, innermost last (a bare `raise` re-raises the last). */
  readonly handling: PyInstance[] = [];
  /** The Python functions being called, innermost last (a traceback's frame names; '<module>' below them). */
  readonly functionNames: string[] = [];
  /** The span of the call that entered each function of `functionNames`. */
  private readonly callSpans: A.Span[] = [];
  private sourceLines: string[] | undefined;
  /** Argument types of each top-level function's first call, for the module's exports. */
  readonly callLog = new CallLog();

  readonly library: Library;

  constructor(
    readonly options: LowerOptions,
    library: (ip: Interp) => Library,
  ) {
    hostDepth.current = 0;
    setX64(false);
    this.hostTrace = new Trace('segment', 'segment', null);
    this.ops = new ArrayOps({ trace: () => this.trace(), constant: (nd) => this.constant(nd), hostNdArray: (x) => hostNdToDevice(this, x, `${x.name}_device`), checkEager: (t) => this.library.checkEager(t), nanOrigin: (span) => this.nanOrigin(span) });
    if (options.devices) {
      this.deviceCount = options.devices;
      this.deviceCountFrozen = true;
    }
    this.library = library(this);
  }

  // ------------------------------------------------------------ traces and host code

  trace(): Trace {
    return this.traces.length ? this.traces[this.traces.length - 1]! : this.hostTrace;
  }

  /**
   * Under jax_debug_nans, where a primitive applied at `span` comes from: the Python frames to it (the
   * traceback JAX's FloatingPointError shows) and how many jit levels JAX re-runs de-optimized on the way:
   * the user's jit, and the jnp function or array operator that applied it (JAX jits those; a lax
   * function binds its primitive directly).
   */
  nanOrigin(span: A.Span): NanOrigin | undefined {
    if (!this.debugNans) return undefined;
    const source = this.options.source ?? '';
    const lines = (this.sourceLines ??= source.split(/\r\n|\r|\n/));
    const spans = [...this.callSpans, span];
    const frames = ['<module>', ...this.functionNames].map((name, i) => frameText(this.options.file, lines, { name, span: spans[i]! }));
    const viaLax = /^(?:jax\.)?lax\./.test(source.slice(span.start.offset, span.end.offset));
    const jitted = this.traces.some((t) => t.kind === 'jit' && t.parent === null);
    return { frames, deopt: (jitted ? 1 : 0) + (viaLax ? 0 : 1) };
  }

  /** The outermost transformation being traced (null at host level): whose cache a trace-time print follows. */
  outermostTrace(): Trace | null {
    return this.traces[0] ?? null;
  }

  get atHost(): boolean {
    return this.traces.length === 0;
  }

  /** Inside transformations JAX runs op by op only (jax.grad, jacfwd, vmap called at host level, not under jit). */
  get opByOp(): boolean {
    return this.traces.length > 0 && this.traces.every((t) => t.kind === 'grad' || t.kind === 'vmap');
  }

  withTrace<T>(t: Trace, fn: () => T): T {
    this.traces.push(t);
    try {
      return fn();
    } finally {
      this.traces.pop();
    }
  }

  /**
   * A mark of the last statement emitted at the top level of the body being lowered (main() or an
   * export); null inside a loop or branch body. A host variable declared there up to the mark stays
   * visible in the rest of that body while the mark is still emitted (see stillEmitted).
   */
  topMark(): { body: number; index: number; stmt: HStmt | undefined } | null {
    if (this.out.length !== 1) return null;
    const top = this.out[0]!;
    return { body: this.bodyEpoch, index: top.length - 1, stmt: top[top.length - 1] };
  }
  /** Is the statement `mark` names still emitted in the body being lowered (no rollback dropped it)? */
  stillEmitted(mark: { body: number; index: number; stmt: HStmt | undefined }): boolean {
    return mark.body === this.bodyEpoch && this.out[0]![mark.index] === mark.stmt;
  }
  /** Which function body (main() or an export) is being lowered. */
  get bodyId(): number {
    return this.bodyEpoch;
  }
  private bodyEpoch = 0;
  private static bodies = 0;

  emit(s: HStmt): void {
    if (s.line === undefined && this.line !== undefined) s.line = this.line;
    this.out[this.out.length - 1]!.push(s);
  }

  /**
   * Lower `fn` as the body of a function of its own (an export): its host
   * statements, constants and hoisted values are its own, not main()'s.
   */
  /** Inside separateScope (an exported function, lowered for callers outside the program): no context mesh applies. */
  private separate = false;
  get inSeparateScope(): boolean {
    return this.separate;
  }
  separateScope(line: number, fn: () => void): { constants: HStmt[]; body: HStmt[] } {
    this.flush();
    const saved = { constantStmts: this.constantStmts, constants: this.constants, hoistedNames: this.hoistedNames, line: this.line, bodyEpoch: this.bodyEpoch, separate: this.separate };
    this.bodyEpoch = ++Interp.bodies;
    this.separate = true;
    this.constantStmts = [];
    this.constants = new Map();
    this.hoistedNames = new Map();
    this.line = line;
    try {
      const body = this.collect(fn);
      return { constants: this.constantStmts.map((c) => c.stmt), body };
    } finally {
      Object.assign(this, saved);
      this.hostTrace = new Trace('segment', 'segment', null);
    }
  }

  /** Collect the statements emitted by `fn` instead of appending them. */
  collect(fn: () => void): HStmt[] {
    this.out.push([]);
    try {
      fn();
      return this.out[this.out.length - 1]!;
    } finally {
      this.out.pop();
    }
  }

  freshName(hint: string): string {
    let base = hint.replace(/[^A-Za-z0-9_$]/g, '_') || 'tmp';
    if (/^[0-9]/.test(base)) base = `_${base}`;
    if (JS_RESERVED.has(base)) base = `${base}_`;
    const name = this.names.fresh(base);
    this.freshHints.set(name, hint);
    return name;
  }

  programName(hint: string): string {
    let base = hint.replace(/[^A-Za-z0-9_$]/g, '_') || 'program';
    if (JS_RESERVED.has(base)) base = `${base}_`;
    return this.names.freshProgram(base);
  }

  /** Ask for an array program (the backend passes compile it: src/passes/pipeline.ts). */
  addProgram(name: string, func: Func, kind: 'jit' | 'pmap' | 'segment'): void {
    this.programs.push({ name, func, kind, debugNans: this.debugNans });
  }

  /** Ask for a program partitioned over a mesh: its per-device program runs on every device (src/passes/spmd.ts). */
  addSpmdProgram(name: string, kind: 'jit' | 'segment', func: Func, mesh: NonNullable<ProgramRequest['mesh']>): void {
    this.programs.push({ name, func, kind, mesh, debugNans: this.debugNans });
  }

  /** `const NAME = value` at the top of main(), once per `key` (pure values such as mesh layouts). */
  hoisted(key: string, hint: string, value: HExpr): string {
    let name = this.hoistedNames.get(key);
    if (name) return name;
    name = this.freshName(hint);
    this.hoistedNames.set(key, name);
    this.constantStmts.push({ nd: key, stmt: { k: 'const', names: [name], value } });
    return name;
  }

  /** A compile-time NumPy array changed in place (`a[i] = v`): its later uses need a new device constant. */
  constantChanged(nd: NdArray): void {
    this.constants.delete(nd);
  }

  /** A compile-time NumPy array as a device constant created by the host program. */
  constant(nd: NdArray): HostArray {
    let h = this.constants.get(nd);
    if (h) return h;
    const dtype = jaxDtype(nd.dtype);
    const name = this.freshName('constant');
    const stmt: HStmt = {
      k: 'const',
      names: [name],
      value: {
        k: 'call',
        callee: 'rt.constant',
        args: [{ k: 'array', items: nd.shape.map((d) => ({ k: 'lit', value: d })) }, { k: 'lit', value: dtype }, { k: 'array', items: nd.data.map((v) => ({ k: 'lit', value: v })) }],
      },
    };
    this.constantStmts.push({ nd, stmt });
    h = new HostArray(name, { shape: nd.shape, dtype });
    noteHostConstant(h, nd);
    this.constants.set(nd, h);
    return h;
  }

  /**
   * Materialise the pending host segment: every traced array still reachable
   * from a Python variable (or `roots`) becomes a host variable.
   */
  flush(roots: PyValue[] = []): void {
    const t = this.hostTrace;
    // nothing traced since the last flush: skip the walk over every live value (a print in a loop unrolled
    // beside a growing list made each step cost the whole list)
    if (!t.tracers && !t.builder.eqns.length && !t.builder.params.length) return;
    const live = this.liveTracers(t, roots);
    const isParam = (tr: Tracer): boolean => tr.atom.kind === 'var' && t.builder.params.includes(tr.atom);
    if (!t.builder.eqns.length && [...live.keys()].every(isParam)) {
      // nothing computed (a literal, such as a folded jnp.zeros(()), still needs a program to make it)
      this.resolveParams(roots);
      this.hostTrace = new Trace('segment', 'segment', null);
      return;
    }
    const outputs: { tracer: Tracer; name: string }[] = [];
    const seen = new Map<string, Tracer>();
    for (const [tracer, hint] of live) {
      const a = tracer.atom;
      if (a.kind === 'var' && t.builder.params.includes(a)) {
        tracer.materialized = t.captured[t.builder.params.indexOf(a)] as HostArray;
        continue;
      }
      const key = a.kind === 'var' ? `v${a.id}` : `l${a.value}:${a.aval.dtype}`;
      const same = seen.get(key);
      if (same) {
        tracer.materialized = same.materialized;
        continue;
      }
      seen.set(key, tracer);
      outputs.push({ tracer, name: this.freshName(hint) });
      tracer.materialized = new HostArray(outputs[outputs.length - 1]!.name, a.aval);
    }
    // under jax_debug_nans an eager computation whose value is dropped (`f(5.)` as a statement) still runs, as
    // JAX runs each op, so that its NaN check raises: its last value is the segment's (unread) result
    const lastEqn = t.builder.eqns[t.builder.eqns.length - 1];
    const unread = !outputs.length && this.debugNans && lastEqn ? this.freshName('unread') : null;
    if (outputs.length || unread) {
      const results = unread ? [lastEqn!.outputs[0]!] : outputs.map(({ tracer }) => {
        const a = tracer.atom;
        return a.kind === 'lit' ? t.builder.bind1('broadcast_in_dim', [{ ...a, aval: { shape: [], dtype: a.aval.dtype } }], { shape: [], broadcast_dimensions: [] }) : a;
      });
      const name = this.programName(`compute_${unread ?? outputs[0]!.name}`);
      const func = t.builder.finish(results);
      const args = t.captured as HostArray[];
      // (with none, under jax.set_mesh: over its mesh, replicated, as JAX runs eager ops)
      const mesh = programMesh(args, t, null) ?? (this.separate ? null : this.library.contextMesh());
      let value: HExpr;
      if (mesh) {
        // eager ops on arrays laid out over a mesh run partitioned, as jit does
        const call = this.library.spmdCall(name, 'segment', func, args, mesh, null);
        value = call.value;
        outputs.forEach((o, i) => (o.tracer.materialized!.sharding = call.shardings[i]!));
      } else {
        this.addProgram(name, func, 'segment');
        noteHostResults(func, args, outputs.map((o) => o.tracer.materialized!));
        value = { k: 'call', callee: 'rt.call', await: true, args: [{ k: 'program', name }, { k: 'array', items: args.map((c) => ({ k: 'var', name: c.name })) }] };
      }
      this.segmentCount++;
      this.emit({ k: 'const', names: unread ? [unread] : outputs.map((o) => o.name), destructure: true, value });
    }
    this.hostTrace = new Trace('segment', 'segment', null);
  }

  private resolveParams(roots: PyValue[]): void {
    const t = this.hostTrace;
    for (const [tracer] of this.liveTracers(t, roots)) {
      const a = tracer.atom;
      if (a.kind === 'var' && t.builder.params.includes(a)) tracer.materialized = t.captured[t.builder.params.indexOf(a)] as HostArray;
    }
  }

  /** Tracers of trace `t` reachable from the frames and `roots`, with a variable name for each. */
  private liveTracers(t: Trace, roots: PyValue[]): Map<Tracer, string> {
    const found = new Map<Tracer, string>();
    const seen = new Set<object>();
    const visit = (v: PyValue, name: string): void => {
      // host values hold no tracers: skipped before the set (a long unrolled loop appends thousands to a list
      // that every flush walks)
      if (!(v instanceof PyObject) || v instanceof HostScalar || v instanceof HostArray || v instanceof NdArray || v instanceof HostNd || seen.has(v)) return;
      seen.add(v);
      if (v instanceof Tracer) {
        if (v.trace === t && !v.materialized && !found.has(v)) found.set(v, name);
      } else if (v instanceof PyTuple || v instanceof PyList) {
        const fields = v instanceof PyTuple && v.cls ? v.cls.fields : null;
        v.items.forEach((x, i) => visit(x, fields ? `${name}_${fields[i]}` : name));
      } else if (v instanceof PyDict) {
        for (const [k, x] of v.entries.values()) visit(x, typeof k === 'string' ? `${name}_${k}` : name);
      } else if (v instanceof PyPartial) {
        v.args.forEach((x) => visit(x, name));
        v.kwargs.forEach((x) => visit(x, name));
      } else if (v instanceof PyFunction) {
        visitScope(v.closure);
      } else if (v instanceof PyBoundMethod || v instanceof PySuper) {
        visit(v.self, name);
      } else if (v instanceof PyKeyArray) {
        visit(v.data, name);
      } else if (v instanceof PyRef) {
        visit(v.value, name);
      } else if (v instanceof PyInstance || v instanceof PyUserClass) {
        for (const [k, x] of v.attrs) visit(x, `${name}_${k}`);
      } else if (v instanceof PyDescriptor) {
        visit(v.fn, name);
      } else if (v instanceof PyIterator) {
        // a map/filter not yet run through: the items it will pull
        v.roots.forEach((x) => visit(x, name));
      }
    };
    const visitScope = (s: Scope): void => {
      for (let sc: Scope | null = s; sc && sc !== this.builtins; sc = sc.parent) {
        if (seen.has(sc)) return;
        seen.add(sc);
        for (const [n, v] of sc.vars) visit(v, n);
      }
    };
    roots.forEach((r) => visit(r, 'value'));
    this.held.forEach((r) => visit(r, 'value'));
    for (let i = this.frames.length - 1; i >= 0; i--) visitScope(this.frames[i]!);
    return found;
  }

  /** A host variable holding the array value `v` (flushing or creating a constant as needed). */
  hostArray(v: PyValue, span: A.Span): HostArray {
    if (v instanceof HostArray) return v;
    if (v instanceof Tracer) {
      if (!v.materialized) {
        if (v.trace !== this.hostTrace) throw new CompileError('internal: a traced value escaped its trace', span);
        this.flush([v]);
      }
      return v.materialized!;
    }
    if (v instanceof NdArray) return this.constant(v);
    if (v instanceof HostNd) return hostNdToDevice(this, v, `${v.name}_device`);
    const t = this.withTrace(this.hostTrace, () => this.ops.asArray(v, span));
    this.traces.length === 0 && this.flush([t]);
    return this.hostArray(t, span);
  }

  /**
   * A host value known only at run time (a host loop's index, `float(loss)`) as a 0-d device array of
   * `dtype`, made where the host program has the value (`weak`: JAX's weak type of a Python scalar).
   */
  scalarArray(v: HostScalar, dtype: DType, hint: string, span: A.Span, weak = false): HostArray {
    if (!this.atHost) throw new NeedsStatic('an array operation with a value computed on the host at run time', span);
    const name = this.freshName(hint);
    const x: HExpr = v.type === 'bool' ? { k: 'call', callee: 'Number', args: [v.expr] } : v.expr;
    this.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'rt.constant', args: [{ k: 'array', items: [] }, { k: 'lit', value: dtype }, { k: 'array', items: [x] }] } });
    return new HostArray(name, weak ? { shape: [], dtype, weak } : { shape: [], dtype });
  }

  finishModule(): HStmt[] {
    this.flush();
    return [...this.constantStmts.map((c) => c.stmt), ...this.out[0]!];
  }

  // ------------------------------------------------------------ errors

  static(v: PyValue, what: string, span: A.Span): Exclude<PyValue, HostScalar> {
    return staticValue(v, what, span);
  }

  error(msg: string, span: A.Span): CompileError {
    return new CompileError(msg, span);
  }

  // ------------------------------------------------------------ subclasses of built-in types (ClassHost)

  builtin(name: string): PyValue {
    return this.builtins.vars.get(name)!;
  }
  builtinAttr(value: PyValue, name: string, span: A.Span): PyValue {
    return getAttr(this, value, name, span);
  }
  builtinDunder(value: PyValue, name: string, args: PyValue[], span: A.Span): PyValue {
    const ops: Record<string, A.BinOpName> = { add: '+', mul: '*', mod: '%', sub: '-', truediv: '/', floordiv: '//', pow: '**' };
    const m = /^__(r?)(add|mul|mod|sub|truediv|floordiv|pow)__$/.exec(name);
    if (m) return m[1] ? binop(this, ops[m[2]!]!, args[0]!, value, span) : binop(this, ops[m[2]!]!, value, args[0]!, span);
    const cmp: Record<string, A.CmpOpName> = { __eq__: '==', __ne__: '!=', __lt__: '<', __le__: '<=', __gt__: '>', __ge__: '>=' };
    if (cmp[name]) return compare(this, cmp[name]!, value, args[0]!, span);
    switch (name) {
      case '__getitem__':
        return subscript(this, value, args[0]!, span);
      case '__setitem__': {
        const [key, v] = args as [PyValue, PyValue];
        if (value instanceof PyDict) value.set(checkDictKey(this.static(key, 'a dict key', span), span), v);
        else if (value instanceof PyList) {
          const k = Number(this.static(key, 'a list index', span));
          const i = k < 0 ? k + value.items.length : k;
          if (!Number.isInteger(i) || i < 0 || i >= value.items.length) throw this.error('IndexError: list assignment index out of range', span);
          value.items[i] = v;
        } else throw this.error(`TypeError: '${typeName(value)}' object does not support item assignment`, span);
        return null;
      }
      case '__len__':
        return this.call(this.builtin('len'), { args: [value], kwargs: new Map(), span });
      case '__iter__':
        return value;
      case '__contains__':
        return compare(this, 'in', args[0]!, value, span);
      case '__bool__':
        return truthyStatic(this, value, span);
      case '__format__':
        return textValue(formatOf(this, value, String(args[0] ?? ''), span));
    }
    throw this.error(`AttributeError: '${typeName(value)}' object has no attribute '${name}'`, span);
  }

  // ------------------------------------------------------------ calling

  call(fn: PyValue, call: CallArgs): PyValue {
    if (fn instanceof PyBuiltin || fn instanceof PyBoundMethod) return fn.fn(call);
    if (fn instanceof HostChoice) return callChoice(this, fn, call);
    if (fn instanceof PyFunction || fn instanceof PyTransformed) this.callLog.record(fn, call, this.atHost);
    if (fn instanceof PyFunction) return this.callFunction(fn, call);
    if (fn instanceof PyPartial) {
      const kwargs = new Map(fn.kwargs);
      call.kwargs.forEach((v, k) => kwargs.set(k, v));
      return this.call(fn.fn, { ...call, args: [...fn.args, ...call.args], kwargs });
    }
    if (fn instanceof PyTransformed) return this.library.callTransformed(fn, call);
    if (fn instanceof PyDType) return this.convertDType(fn, call);
    if (fn instanceof PyClass && fn.kind === 'namedtuple') return this.constructNamedTuple(fn, call);
    if (fn instanceof PyClass && fn.kind === 'marker' && fn.name === 'NamedTuple' && fn.module === undefined) return this.functionalNamedTuple(call);
    if (fn instanceof PyClass && fn.construct) return fn.construct(call);
    if (fn instanceof PyUserClass) return instantiate(this, fn, call);
    if (fn instanceof PyDescriptor && fn.kind !== 'property') return this.call(fn.fn, call);
    if (fn instanceof PyInstance) {
      const m = dunder(this, fn, '__call__', call.span);
      if (m !== undefined) return this.call(m, call);
    }
    throw this.error(`TypeError: '${typeName(fn)}' object is not callable`, call.span);
  }


  /** typing.NamedTuple's functional form: NamedTuple('P', [('x', float), ('y', int)]) or NamedTuple('P', x=float). */
  private functionalNamedTuple(call: CallArgs): PyValue {
    const name = call.args[0];
    if (typeof name !== 'string') throw this.error('TypeError: NamedTuple() missing required argument: typename', call.span);
    const spec = call.args[1] ?? null;
    const fields = spec === null ? [...call.kwargs.keys()] : iterate(this, spec, call.span).map((f) => {
      const pair = f instanceof PyTuple || f instanceof PyList ? f.items : [];
      if (pair.length !== 2 || typeof pair[0] !== 'string') throw this.error(`TypeError: NamedTuple('Name', [(f0, t0), (f1, t1), ...]); each t must be a type`, call.span);
      return pair[0];
    });
    return new PyClass(name, fields, new Map(), 'namedtuple');
  }

  private constructNamedTuple(cls: PyClass, call: CallArgs): PyValue {
    const items: PyValue[] = [];
    cls.fields.forEach((f, i) => {
      if (i < call.args.length) items.push(call.args[i]!);
      else if (call.kwargs.has(f)) items.push(call.kwargs.get(f)!);
      else if (cls.defaults.has(f)) items.push(cls.defaults.get(f)!);
      else throw this.error(`TypeError: ${cls.name}.__new__() missing 1 required positional argument: '${f}'`, call.span);
    });
    if (call.args.length > cls.fields.length) {
      throw this.error(`TypeError: ${cls.name}.__new__() takes ${cls.fields.length + 1} positional arguments but ${call.args.length + 1} were given`, call.span);
    }
    return new PyTuple(items, cls);
  }

  callFunction(fn: PyFunction, call: CallArgs): PyValue {
    // Python's own limit is 1000 frames; a Python call here (through jit, grad, vmap) takes up to ~3 KB of
    // JS stack, and Node's default stack overflows near 250 such levels: that overflow is a RecursionError too
    if (this.frames.length > MAX_CALL_DEPTH) throw this.recursionError(call.span);
    const scope = new Scope(fn.closure);
    if (fn.def.kind !== 'Lambda') scope.locals = localNames(fn.def.body);
    this.bindParams(fn, scope, call);
    // a method's `__class__` cell and first argument: what a bare super() means
    if (fn.ownerClass) {
      scope.vars.set('__class__', fn.ownerClass);
      const first = fn.def.params[0];
      if (first && first.star === '') scope.vars.set(SUPER_SELF, scope.vars.get(first.name)!);
    }
    this.frames.push(scope);
    const name = fn.def.kind === 'Lambda' ? '<lambda>' : fn.name;
    this.functionNames.push(name);
    this.callSpans.push(call.span);
    try {
      if (fn.def.kind === 'Lambda') return this.eval(fn.def.body, scope);
      // a generator's body runs as its items are pulled
      if (isGenerator(fn.def)) return lazyGenerator(this, fn, scope);
      try {
        this.execBlock(fn.def.body, scope);
      } catch (e) {
        if (e instanceof ReturnSignal) return e.value;
        throw e;
      }
      return null;
    } catch (e) {
      // JS's stack ran out first: Python's RecursionError, which the program may catch (an inner frame
      // short of stack to build it passes the RangeError on to the next one out)
      if (e instanceof RangeError && e.message.includes('call stack')) e = this.recursionError(call.span);
      // the frame an exception leaves, for its traceback
      leaveFrame(e, name, call.span);
      throw e;
    } finally {
      this.frames.pop();
      this.functionNames.pop();
      this.callSpans.pop();
    }
  }

  /** Python's RecursionError, raised at `span`. */
  private recursionError(span: A.Span): PyRaise {
    return raiseValue(this, newException(EXCEPTIONS.get('RecursionError')!, ['maximum recursion depth exceeded']), span);
  }

  private bindParams(fn: PyFunction, scope: Scope, call: CallArgs): void {
    const params = fn.def.params;
    const name = fn.name;
    let pos = 0;
    const kwargs = new Map(call.kwargs);
    for (const p of params) {
      if (p.star === '*') {
        scope.vars.set(p.name, new PyTuple(call.args.slice(pos)));
        pos = call.args.length;
      } else if (p.star === '**') {
        const d = new PyDict();
        kwargs.forEach((v, k) => d.set(k, v));
        kwargs.clear();
        scope.vars.set(p.name, d);
      } else if (!p.kwOnly && pos < call.args.length) {
        if (kwargs.has(p.name)) throw this.error(`TypeError: ${name}() got multiple values for argument '${p.name}'`, call.span);
        scope.vars.set(p.name, call.args[pos++]!);
      } else if (kwargs.has(p.name)) {
        scope.vars.set(p.name, kwargs.get(p.name)!);
        kwargs.delete(p.name);
      } else if (fn.defaults.has(p.name)) {
        scope.vars.set(p.name, fn.defaults.get(p.name)!);
      } else {
        throw this.error(`TypeError: ${name}() missing 1 required positional argument: '${p.name}'`, call.span);
      }
    }
    if (pos < call.args.length) {
      const n = params.filter((p) => p.star === '' && !p.kwOnly).length;
      throw this.error(`TypeError: ${name}() takes ${n} positional argument${n === 1 ? '' : 's'} but ${call.args.length} were given`, call.span);
    }
    for (const k of kwargs.keys()) throw this.error(`TypeError: ${name}() got an unexpected keyword argument '${k}'`, call.span);
  }

  execBlock(body: A.Stmt[], scope: Scope): void {
    execBlock(this, body, scope);
  }
  eval(e: A.Expr, scope: Scope): PyValue {
    return evalExpr(this, e, scope);
  }
  str(v: PyValue, span: A.Span): Text {
    return strOf(this, v, span);
  }
  repr(v: PyValue, span: A.Span): Text {
    return reprOf(this, v, span);
  }

  /** `jnp.float32(x)` converts to a JAX array; `np.float32(x)` makes a NumPy scalar. */
  private convertDType(d: PyDType, call: CallArgs): PyValue {
    const x = call.args[0] ?? 0n;
    if (d.numpy) {
      const v = this.static(x, 'a NumPy scalar', call.span);
      if (d.name === 'complex64' || d.name === 'complex128') throw this.error(`np.${d.name}() is not supported by jaxts (NumPy complex scalars)`, call.span);
      if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') {
        const n = Number(v);
        if (d.name !== 'float32' && d.name !== 'float64' && d.name !== 'bool' && !Number.isFinite(n)) {
          throw this.error(Number.isNaN(n) ? 'ValueError: cannot convert float NaN to integer' : 'OverflowError: cannot convert float infinity to integer', call.span);
        }
        const name = d.name;
        if (name === 'uint32' || name === 'int64' || name === 'float64' || name === 'bool') return new NpScalar(name === 'uint32' ? 'int64' : name, name === 'int64' ? Math.trunc(n) : n);
        // the 32-bit and narrower dtypes: a float rounds to its type, an integer truncates and wraps
        return new NpScalar(name, castScalar(n, name));
      }
      // a value known when the program runs (a host callback's operand): NumPy values then are arrays on the host
      if ((v instanceof Tracer || v instanceof HostArray) && !v.aval.shape.length) {
        return this.ops.convert(this.ops.asArray(v, call.span), canonicalDtype(d.name), call.span);
      }
      throw this.error(`np.${d.name}() of a ${typeName(v)} is not supported`, call.span);
    }
    const dt = canonicalDtype(d.name);
    if (x instanceof HostScalar && x.type !== 'str' && this.atHost) {
      // a number known only at run time: a device scalar made where the host program has it
      const v = x.type === 'float' && !dt.startsWith('float') ? new HostScalar({ k: 'call', callee: 'Math.trunc', args: [x.expr] }, 'int') : x;
      return this.scalarArray(v, dt, this.nameHints[0] ?? 'scalar', call.span);
    }
    return this.ops.asArray(x, call.span, dt);
  }

  /** Mark the emitted-code position, to undo a failed attempt at lowering a host loop. */
  checkpoint(): { lens: number[]; constants: number; programs: number; names: number; hostTrace: Trace; gens: number } {
    return { lens: this.out.map((o) => o.length), constants: this.constantStmts.length, programs: this.programs.length, names: this.names.mark(), hostTrace: this.hostTrace, gens: genMark() };
  }

  rollback(c: ReturnType<Interp['checkpoint']>): void {
    this.out.length = c.lens.length;
    c.lens.forEach((n, i) => (this.out[i]!.length = n));
    for (const { nd } of this.constantStmts.splice(c.constants)) {
      if (typeof nd === 'string') this.hoistedNames.delete(nd);
      else this.constants.delete(nd);
    }
    this.programs.length = c.programs;
    this.names.rollback(c.names);
    this.hostTrace = new Trace('segment', 'segment', null);
    forgetGensSince(c.gens);
  }

  // ------------------------------------------------------------ indexing
  /** Index items with no array index (host NumPy arrays, key arrays): an array index is not supported there yet. */
  staticIndexItems(v: PyValue, span: A.Span): IndexItem[] {
    const items = this.indexItems(v, span);
    // a NumPy array indexed by a traced value converts it with __array__: JAX's TracerArrayConversionError
    for (const it of items) {
      if (it.kind !== 'array' || it.value.trace.kind === 'segment') continue;
      throw this.error(arrayConversionMessage(it.value), span);
    }
    if (items.some((it) => it.kind === 'array' || it.kind === 'mask')) throw this.error('indexing with an array (gather) is not supported here yet; use static integer or slice indices', span);
    return items;
  }

  indexItems(v: PyValue, span: A.Span): IndexItem[] {
    const items = v instanceof PyTuple && !v.cls ? v.items : [v];
    if (items.filter((it) => it instanceof PyEllipsis).length > 1) throw this.error("IndexError: an index can only have a single ellipsis ('...')", span);
    return items.map((it, position): IndexItem => {
      it = this.static(it, 'an array index', span);
      if (it === null) return { kind: 'none' };
      if (typeof it === 'bigint' || typeof it === 'boolean') return { kind: 'int', value: Number(it) };
      // a NumPy integer (np.int64(2), an element of a NumPy index array) indexes as an int
      if (it instanceof NpScalar && !it.dtype.startsWith('float') && it.dtype !== 'bool') return { kind: 'int', value: it.value };
      if (it instanceof PySlice) {
        const bounds = it.values;
        if (bounds && bounds.some((b) => b instanceof Tracer && b.trace.kind === 'jit') && bounds.every((b) => b === null || typeof b === 'bigint' || b instanceof Tracer)) {
          // a traced bound inside jit: JAX's IndexError, naming the slice as Python shows it
          const text = bounds.map((b) => (b === null ? 'None' : b instanceof Tracer ? `JitTracer(${b.aval.weak ? '~' : ''}${jaxTypeStr(b.aval)})` : String(b)));
          throw this.error(`IndexError: Slice entries must be static integers. Got slice(${text.join(', ')}) at position ${position}`, span);
        }
        const [start, stop, step] = it.indices(span);
        return { kind: 'slice', start, stop, step };
      }
      if (it instanceof PyEllipsis) return { kind: 'ellipsis' };
      if (isArray(it) || it instanceof NdArray) return arrayIndexItem(this.ops, it, position, span);
      // a list inside a tuple index is an index array (JAX's _split_index_for_jit); alone it is an error
      if ((it instanceof PyList || (it instanceof PyTuple && !it.cls)) && v instanceof PyTuple && !v.cls) return arrayIndexItem(this.ops, this.ops.asArray(it, span), position, span);
      if (it instanceof PyList) {
        throw this.error('TypeError: Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.', span);
      }
      throw this.error(`IndexError: only integers, slices (\`:\`), ellipsis (\`...\`), numpy.newaxis (\`None\`) and integer or boolean arrays are valid indices`, span);
    });
  }

  /** The simulated devices; the first call fixes their number (`span`: where, for an XLA_FLAGS count out of range). */
  devices(span: A.Span | null = null): PyList {
    if (!this.deviceCountFrozen && this.numCpuDevices !== null) this.deviceCount = this.numCpuDevices;
    else if (!this.deviceCountFrozen) {
      const flags = this.environ?.get('XLA_FLAGS');
      const m = typeof flags === 'string' ? /--xla_force_host_platform_device_count=(\d+)/.exec(flags) : null;
      if (m) {
        const n = Number(m[1]);
        if (!(n >= 1 && n <= MAX_DEVICES)) {
          throw new CompileError(`XLA_FLAGS: --xla_force_host_platform_device_count=${m[1]} is not a number of devices jaxts simulates (1 to ${MAX_DEVICES})`, span);
        }
        this.deviceCount = n;
      }
    }
    this.deviceCountFrozen = true;
    return new PyList(Array.from({ length: this.deviceCount }, (_, i) => new PyDevice(i)));
  }
}

export class PySlice extends PyObject {
  readonly typeName = 'slice';
  constructor(
    readonly start: number | null,
    readonly stop: number | null,
    readonly step: number | null,
    /** The bounds as written when one is not an index (a float or complex: np.mgrid[0:1:30j]); start/stop/step are null then. */
    readonly values: readonly [PyValue, PyValue, PyValue] | null = null,
  ) {
    super();
  }

  /** The integer bounds, or Python's TypeError where the slice indexes a sequence or an array. */
  indices(span: A.Span): [number | null, number | null, number | null] {
    if (this.values) throw new CompileError('TypeError: slice indices must be integers or None or have an __index__ method', span);
    return [this.start, this.stop, this.step];
  }
}

export class PyEllipsis extends PyObject {
  readonly typeName = 'ellipsis';
}
export const ELLIPSIS = new PyEllipsis();

export { hexpr } from './values.js';

