// Python values as the lowering sees them, by binding time:
//   static        — JS primitives (bigint = int, number = float, string, boolean,
//                   null = None) and the objects below (tuples, lists, dicts,
//                   functions, modules, NumPy arrays computed at compile time)
//   host-dynamic  — HostScalar: a number/string known only when the program runs
//   device arrays — Tracer (inside a Trace) and HostArray (a host TS variable)
import { CompileError } from '../common/diagnostics.js';
import type { Expr, FunctionDef, Lambda, Span } from '../parser/ast.js';
import type { HExpr } from '../ir/host.js';
import type { Atom, AVal, DType, Var } from '../ir/types.js';
import { FuncBuilder } from '../ir/builder.js';

export type PyValue = null | boolean | bigint | number | string | PyObject;

export abstract class PyObject {
  abstract readonly typeName: string;
}

/** A native object with a Python class of its own (jaxpr variables, primitives): `type(v)` is that class; hashable ones key dicts by identity. */
export abstract class PyNativeObject extends PyObject {
  abstract readonly pyClass: PyClass;
  abstract readonly hashable: boolean;
}

export class PyTuple extends PyObject {
  readonly typeName: string = 'tuple';
  constructor(
    readonly items: PyValue[],
    /** Set for instances of a NamedTuple class. */
    readonly cls: PyClass | null = null,
  ) {
    super();
  }
}

/** A Python complex number (two doubles). Beside an array it is a weakly typed complex64 scalar. */
export class PyComplex extends PyObject {
  readonly typeName = 'complex';
  constructor(
    readonly re: number,
    readonly im: number,
  ) {
    super();
  }
}

/** The host-loop depth the evaluator is at (Interp.dynamicDepth): where a list or dict is made, it may change freely. */
export const hostDepth = { current: 0 };

export class PyList extends PyObject {
  readonly typeName = 'list';
  /** Set on a collections.deque (a list with appendleft/popleft; `maxlen` keeps the last items). */
  deque: { maxlen: number | null } | null = null;
  /** The list a host loop's carry rebuilt this one from (the loop's value of a list made before it). */
  origin: PyList | null = null;
  /** The host-loop depth it was made at (each step of a loop makes its own). */
  readonly depth = hostDepth.current;
  constructor(public items: PyValue[]) {
    super();
  }
}

/** Dict keys are static: str, int, float, bool, None, or tuples of them. */
export class PyDict extends PyObject {
  readonly typeName = 'dict';
  readonly entries = new Map<string, [PyValue, PyValue]>();
  /** The host-loop depth it was made at (each step of a loop makes its own), or of the loop that carries it. */
  depth = hostDepth.current;
  /** collections' dict subclasses: defaultdict's factory for missing keys, Counter (missing keys count 0), OrderedDict. */
  flavor: { kind: 'defaultdict'; factory: PyValue } | { kind: 'Counter' } | { kind: 'OrderedDict' } | null = null;
  get(key: PyValue): PyValue | undefined {
    return this.entries.get(dictKey(key))?.[1];
  }
  set(key: PyValue, value: PyValue): void {
    this.entries.set(dictKey(key), [key, value]);
  }
  keys(): PyValue[] {
    return [...this.entries.values()].map(([k]) => k);
  }
  values(): PyValue[] {
    return [...this.entries.values()].map(([, v]) => v);
  }
}

export function dictKey(k: PyValue): string {
  if (k === null) return 'None';
  if (typeof k === 'bigint') return `i${k}`;
  if (typeof k === 'number') return Number.isInteger(k) ? `i${k}` : `f${k}`;
  if (typeof k === 'boolean') return `i${k ? 1 : 0}`;
  if (typeof k === 'string') return `s${k}`;
  if (k instanceof PyTuple) return `(${k.items.map(dictKey).join(',')})`;
  // an instance of a subclass of str, int, … hashes as its value (unless its class defines __eq__ or __hash__)
  if (k instanceof PyInstance && k.value !== undefined && k.cls.lookup('__eq__') === undefined && k.cls.lookup('__hash__') === undefined) return dictKey(k.value);
  // objects and classes hash by identity (unless a class defines __eq__ without __hash__: unhashable, as in Python)
  if (k instanceof PyInstance && !(k.cls.lookup('__eq__') !== undefined && k.cls.lookup('__hash__') === undefined) && !k.cls.dataclass) return `o${k.address}`;
  if (k instanceof PyUserClass) return `c${identity(k)}`;
  if (k instanceof PyNativeObject && k.hashable) return `n${identity(k)}`;
  // jax.sharding's value objects hash by value, as in JAX (P(('x',)) == P('x'); a mesh by devices, names, types)
  if (k instanceof PyPartitionSpec) return `P(${k.entries.map((e) => (e === null ? '-' : typeof e === 'string' || e.length !== 1 ? String(e) : e[0]!)).join(';')})`;
  if (k instanceof PyMesh) return `M(${k.devices.shape}|${k.devices.ids}|${k.axisNames}|${k.explicit})`;
  if (k instanceof PyNamedSharding) return `N(${dictKey(k.mesh)}${dictKey(k.spec)})`;
  if (k instanceof PyDevice) return `D${k.id}`;
  if (hashesByIdentity(k)) return `h${identity(k)}`;
  throw new TypeError(`unhashable type: '${k.typeName}'`);
}

/** Functions, built-ins, classes, modules and dtypes: hashable by identity, as in Python (dicts keyed by types or functions). */
const hashesByIdentity = (k: PyObject): boolean =>
  k instanceof PyFunction || k instanceof PyBuiltin || k instanceof PyClass || k instanceof PyDType || k instanceof PyModule || k instanceof PyPartial;

/** id(v): an object's identity (distinct for distinct live objects, stable); a number or string's from its value. */
export function objectId(v: PyValue): bigint {
  if (v !== null && typeof v === 'object') return 0x7f0000000000n + 16n * BigInt(identity(v));
  let h = 0x5f0000000000n;
  for (const ch of `${typeof v}:${String(v)}`) h = (h * 31n + BigInt(ch.codePointAt(0)!)) % 0x10000000000n;
  return 0x5f0000000000n + h * 16n;
}

const identities = new WeakMap<object, number>();
const identity = (o: object): number => {
  let i = identities.get(o);
  if (i === undefined) identities.set(o, (i = nextIdentity++));
  return i;
};
let nextIdentity = 1;

/** `k` as a dict key written in the program: a key `dictKey` cannot take is Python's TypeError at `span`. */
export function checkDictKey<T extends PyValue>(k: T, span: Span): T {
  const bad = (v: PyValue): PyValue | undefined => {
    if (v === null || typeof v !== 'object') return undefined;
    if (v instanceof PyTuple) return v.items.map(bad).find((x) => x !== undefined);
    if (v instanceof PyNativeObject && v.hashable) return undefined;
    if (hashesByIdentity(v)) return undefined;
    if (v instanceof PyUserClass || v instanceof PyPartitionSpec || v instanceof PyMesh || v instanceof PyNamedSharding || v instanceof PyDevice) return undefined;
    if (v instanceof PyInstance) {
      try {
        dictKey(v);
        return undefined;
      } catch {
        throw new CompileError(`TypeError: unhashable type: '${v.cls.name}'`, span);
      }
    }
    return v;
  };
  const b = bad(k);
  if (b === undefined) return k;
  if (b instanceof PyList || b instanceof PyDict || b instanceof NdArray || isArray(b)) throw new CompileError(`TypeError: unhashable type: '${typeName(b)}'`, span);
  throw new CompileError(`dict keys of type '${typeName(b)}' are not supported (use str, int, float, bool, None or tuples of them)`, span);
}

export class PyRange extends PyObject {
  readonly typeName = 'range';
  constructor(
    readonly start: bigint,
    readonly stop: bigint,
    readonly step: bigint,
  ) {
    super();
  }
  get length(): number {
    const { start, stop, step } = this;
    if (step > 0n) return stop > start ? Number((stop - start + step - 1n) / step) : 0;
    return start > stop ? Number((start - stop - step - 1n) / -step) : 0;
  }
}

let iteratorCount = 0;

/** A generator object's own protocol: send (next() sends None), throw, close; a finished one's result holds its return value. */
export interface GeneratorControl {
  send(v: PyValue): IteratorResult<PyValue, PyValue>;
  throw(e: unknown): IteratorResult<PyValue, PyValue>;
  close(): void;
}

/** A lazy iterator (`map(...)`, `filter(...)`): each item is computed when a loop pulls it, once. */
export class PyIterator extends PyObject implements Iterable<PyValue> {
  /** A stand-in for CPython's id(), for the repr's `at 0x...`. */
  readonly address = 0x7f3a5c000000 + 0x40 * iteratorCount++;
  /** Set on the generator objects of generator functions. */
  generator: GeneratorControl | null = null;
  constructor(
    readonly typeName: 'map' | 'filter' | 'list_iterator' | 'tuple_iterator' | 'str_ascii_iterator' | 'str_iterator' | 'range_iterator' | 'dict_keyiterator' | 'set_iterator' | 'iterator' | 'list_reverseiterator' | 'reversed' | 'generator' | 'zip' | 'enumerate' | 'callable_iterator' | `itertools.${string}`,
    private readonly items: Iterator<PyValue>,
    /** What the items are made from (the source iterables' items): kept alive across flushes until pulled. */
    readonly roots: PyValue[] = [],
  ) {
    super();
  }
  [Symbol.iterator](): Iterator<PyValue> {
    // no return(): leaving a loop early must not close the iterator (Python resumes it later)
    return { next: () => this.items.next() };
  }
}

/** A name → value scope: a function's locals, or the module's globals. */
export class Scope {
  readonly vars = new Map<string, PyValue>();
  /** Names declared `global` / `nonlocal` here: the scope that holds them. */
  readonly outer = new Map<string, Scope>();
  /** A function call's scope: the names its function binds (Python's locals: unbound until bound here, never looked up outside). */
  locals: ReadonlySet<string> | null = null;
  constructor(readonly parent: Scope | null) {}
  /** Bind `name` (in the scope a global/nonlocal declaration names, else here). */
  assign(name: string, v: PyValue): void {
    (this.outer.get(name) ?? this).vars.set(name, v);
  }
  lookup(name: string): PyValue | undefined {
    const o = this.outer.get(name);
    if (o) return o.lookup(name);
    for (let s: Scope | null = this; s; s = s.parent) {
      if (s.vars.has(name)) return s.vars.get(name);
      if (s.locals?.has(name)) return undefined;
    }
    return undefined;
  }
}

export class PyFunction extends PyObject {
  readonly typeName = 'function';
  /** The class whose body defined this function (a method): what `super()` starts from. */
  ownerClass: PyUserClass | null = null;
  constructor(
    readonly name: string,
    readonly def: FunctionDef | Lambda,
    /** Mutable only for methods: a class body's functions see the scope around the class, not its namespace. */
    public closure: Scope,
    readonly defaults: Map<string, PyValue>,
  ) {
    super();
  }
}

export interface CallArgs {
  args: PyValue[];
  kwargs: Map<string, PyValue>;
  span: Span;
  /** Source expressions of the positional arguments, when known (for names in generated code). */
  argExprs?: (Expr | null)[];
}

export class PyBuiltin extends PyObject {
  readonly typeName = 'builtin_function_or_method';
  /** Attributes of a built-in class's object (itertools.chain.from_iterable). */
  readonly attrs = new Map<string, PyValue>();
  constructor(
    readonly name: string,
    readonly fn: (call: CallArgs) => PyValue,
  ) {
    super();
  }
}

export class PyModule extends PyObject {
  readonly typeName = 'module';
  constructor(
    readonly name: string,
    readonly attrs: Map<string, PyValue>,
  ) {
    super();
  }
}

/** A class: NamedTuple subclasses, and the marker classes of the API (types, dtypes). */
export class PyClass extends PyObject {
  readonly typeName = 'type';
  /** A typing.NamedTuple class body's methods and class attributes (bound to the tuple when looked up on it). */
  readonly methods = new Map<string, PyValue>();
  /** A marker class that can be called (core.ShapedArray(shape, dtype)): its constructor. */
  construct: ((call: CallArgs) => PyValue) | null = null;
  constructor(
    readonly name: string,
    readonly fields: string[],
    readonly defaults: Map<string, PyValue>,
    readonly kind: 'namedtuple' | 'marker',
    /** The defining module for classes that print qualified (`<class 'numpy.ndarray'>`). */
    readonly module?: string,
  ) {
    super();
  }
}

/** A dtype object such as jnp.float32 (callable: converts). */
export class PyDType extends PyObject {
  readonly typeName = 'dtype';
  constructor(
    readonly name: DType | 'float64' | 'int64' | 'complex128',
    /** NumPy's (np.float32) rather than jax.numpy's. */
    readonly numpy = false,
  ) {
    super();
  }
}

export class PyDevice extends PyObject {
  readonly typeName = 'Device';
  constructor(readonly id: number) {
    super();
  }
}

/** `functools.partial(f, *args, **kwargs)` */
export class PyPartial extends PyObject {
  readonly typeName = 'functools.partial';
  constructor(
    readonly fn: PyValue,
    readonly args: PyValue[],
    readonly kwargs: Map<string, PyValue>,
  ) {
    super();
  }
}

/** A method bound to its receiver (`xs.append`, `x.reshape`). */
export class PyBoundMethod extends PyObject {
  readonly typeName = 'method';
  constructor(
    readonly self: PyValue,
    readonly name: string,
    readonly fn: (call: CallArgs) => PyValue,
  ) {
    super();
  }
}

/** The result of `jax.pmap` / `vmap` / `jit` / `grad` / `value_and_grad` / `jacfwd` / `jacrev` applied to a function. */
export class PyTransformed extends PyObject {
  readonly typeName = 'function';
  constructor(
    readonly transform: 'pmap' | 'vmap' | 'jit' | 'grad' | 'value_and_grad' | 'jacfwd' | 'jacrev' | 'custom_jvp' | 'custom_vjp',
    readonly fn: PyValue,
    readonly options: Map<string, PyValue>,
    readonly name: string,
  ) {
    super();
  }
}

/** A NumPy array computed at compile time (NumPy's own dtypes: float64, int64, ...). */
export class NdArray extends PyObject {
  readonly typeName = 'numpy.ndarray';
  constructor(
    readonly shape: number[],
    readonly dtype: Exclude<DType, 'complex64'> | 'float64' | 'int64',
    readonly data: number[],
  ) {
    super();
  }
}

/** A NumPy scalar (np.float32(0.5), an element of an NdArray). */
export class NpScalar extends PyObject {
  readonly typeName = 'numpy.generic';
  constructor(
    readonly dtype: NdArray['dtype'],
    readonly value: number,
  ) {
    super();
  }
}

// A trace: the Func being recorded for a jit/pmap/vmap body or a host segment.
// Values from outside the trace (host arrays, tracers of an enclosing trace)
// become extra parameters when first used — JAX's closed-over constants.
/** 'custom': a custom_jvp / custom_vjp function or rule being traced (custom functions inside it are called plainly). */
export type TraceKind = 'segment' | 'jit' | 'pmap' | 'vmap' | 'grad' | 'custom';

export class Trace {
  readonly builder: FuncBuilder;
  /** Outer values used inside, in parameter order after the declared parameters. */
  readonly captured: (HostArray | Tracer)[] = [];
  private captureVar = new Map<HostArray | Tracer, Var>();
  /** Tracers made on this trace so far (none: a flush has nothing to look for). */
  tracers = 0;

  constructor(
    name: string,
    readonly kind: TraceKind,
    readonly parent: Trace | null,
    /** Named axes in scope (pmap axis_name → size), innermost last. */
    readonly axisEnv: { name: string; size: number }[] = [],
  ) {
    this.builder = new FuncBuilder(name);
  }

  /** The values a differentiation's declared parameters stand for (its primals), by parameter: src/lower/const_eval.ts reads them. */
  readonly outer = new Map<Var, PyValue>();

  /** The outer value parameter `p` stands for: a primal (see `outer`) or a captured value (undefined: none known, such as a tangent). */
  paramOuter(p: Var): PyValue | undefined {
    const o = this.outer.get(p);
    if (o !== undefined) return o;
    for (const [c, v] of this.captureVar) if (v === p) return c;
    return undefined;
  }

  /** This trace's atom for an array value, capturing it when it comes from outside. */
  /** Set when a jit call's trace is over: a value of it used later leaked out (JAX's UnexpectedTracerError). */
  finished = false;
  /** Set on jax.jvp's trace (a 'grad' trace whose values are JAX's JVPTracers, not linearize's). */
  jvp = false;
  /** Set on jax.jacfwd's trace: the size of the basis its tangents are batched over (a print shows JVPTracer(primal=..., tangent=VmapTracer(...))). */
  jacfwdBasis: number | null = null;

  atomOf(v: Tracer | HostArray): Atom {
    let outer: HostArray | Tracer = v;
    if (v instanceof Tracer) {
      if (v.trace === this) return v.atom;
      if (v.materialized) outer = v.materialized;
      else if (v.trace.finished) {
        const a = v.atom.aval;
        throw new CompileError(
          `UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type ${a.dtype}[${a.shape.join(',')}] wrapped in a DynamicJaxprTracer to escape the scope of the transformation.\nJAX transformations require that functions explicitly return their outputs, and disallow saving intermediate values to global state.\nThe function being traced when the value leaked was ${v.trace.builder.name} traced for jit.`,
          null,
        );
      }
    }
    let p = this.captureVar.get(outer);
    if (!p) {
      p = this.builder.addParam(outer instanceof HostArray ? outer.aval : outer.aval, outer instanceof HostArray ? outer.name : undefined);
      this.captureVar.set(outer, p);
      this.captured.push(outer);
    }
    return p;
  }
}

/** A device array inside a trace: an IR atom of that trace. */
export class Tracer extends PyObject {
  readonly typeName = 'ArrayImpl';
  /** Set when the trace (a host segment) was flushed and this value kept. */
  materialized: HostArray | null = null;
  constructor(
    readonly trace: Trace,
    readonly atom: Atom,
  ) {
    super();
    trace.tracers++;
  }
  get aval(): AVal {
    return this.atom.aval;
  }
}

/** A device array held in a host (TS) variable. */
export class HostArray extends PyObject {
  readonly typeName = 'ArrayImpl';
  /** Its NamedSharding when it is laid out over a mesh (device_put, or a result of an SPMD program); null: on one device. */
  sharding: PyNamedSharding | null = null;
  /**
   * On one device, moved there by device_put(x, device) from a layout over Explicit mesh axes: JAX 0.10
   * keeps that sharding in its type (jax.typeof), and its eager ops fail (they have no mesh to run on).
   */
  typeSharding: PyNamedSharding | null = null;
  constructor(
    readonly name: string,
    readonly aval: AVal,
  ) {
    super();
  }
}

/**
 * A typed PRNG key array (`jax.random.key`): dtype key<fry>, shape `data`'s
 * without the trailing 2. It is carried as its uint32 key data (a device
 * array); src/lower/keys.ts gives it its operations.
 */
export class PyKeyArray extends PyObject {
  readonly typeName = 'PRNGKeyArray';
  constructor(readonly data: Tracer | HostArray) {
    super();
  }
  get shape(): readonly number[] {
    return this.data.aval.shape.slice(0, -1);
  }
}

/** `np.array(jax.devices())` and its reshapes: a NumPy array of devices (ids, row-major). */
export class PyDeviceArray extends PyObject {
  readonly typeName = 'numpy.ndarray';
  constructor(
    readonly shape: number[],
    readonly ids: number[],
  ) {
    super();
  }
}

/** jax.sharding.Mesh: devices arranged on named axes; `explicit` for Explicit axis types (jax.make_mesh). */
export class PyMesh extends PyObject {
  readonly typeName = 'Mesh';
  constructor(
    readonly devices: PyDeviceArray,
    readonly axisNames: string[],
    readonly explicit: boolean,
  ) {
    super();
  }
}

/** jax.sharding.PartitionSpec: per dimension None, a mesh axis name, or a tuple of them. */
export class PyPartitionSpec extends PyObject {
  readonly typeName = 'PartitionSpec';
  constructor(
    readonly entries: (string | string[] | null)[],
    /** P(..., unreduced={...}): mesh axes over which the devices hold partial sums of the value. */
    readonly unreduced: readonly string[] = [],
    /** P(..., reduced={...}): mesh axes over which the value is replicated and its cotangent unreduced. */
    readonly reduced: readonly string[] = [],
  ) {
    super();
  }
}

/** jax.sharding.NamedSharding(mesh, spec). */
export class PyNamedSharding extends PyObject {
  readonly typeName = 'NamedSharding';
  constructor(
    readonly mesh: PyMesh,
    readonly spec: PyPartitionSpec,
  ) {
    super();
  }
}

/**
 * A NumPy array known only when the program runs (src/lower/host_numpy.ts): drawn by np.random in a loop
 * that stays a loop, or too large to build at compile time. A TS variable holding a runtime/numpy ndarray;
 * its shape and dtype are known now.
 */
export class HostNd extends PyObject {
  readonly typeName = 'numpy.ndarray';
  constructor(
    readonly name: string,
    readonly shape: readonly number[],
    readonly dtype: NdArray['dtype'],
  ) {
    super();
  }
}

/** A slice with a bound known only at run time (`perm[i:i + batch]`): it indexes run-time NumPy arrays. */
export class HostSlice extends PyObject {
  readonly typeName = 'slice';
  constructor(readonly bounds: readonly [PyValue, PyValue, PyValue]) {
    super();
  }
}

/** A value known only at run time on the host: a loop index, `float(loss)`, a formatted string. */
export class HostScalar extends PyObject {
  /**
   * Set on a value that may be None at run time (`best = None`, then `best = loss` in a host loop): a TS
   * variable of type `T | null`. `expr` reads it as a `T` (a TypeError at run time where it is None).
   */
  raw: HExpr | null = null;
  /**
   * Set on a float carried out of a loop that made an int (or bool) a float, where the loop may run zero
   * times at run time (`s = 1; for i in range(n): s += 0.5`): the TS test under which the value is still
   * that int (the loop did not run), so that it prints as one (`1`, not `1.0`).
   */
  intWhen: { test: HExpr; type: 'int' | 'bool' } | null = null;
  /**
   * Set on an int that may pass 2**53 (a power, or arithmetic with such an int): its exact value, a TS
   * `bigint` expression; `expr` is then that value as a double (`Number(exact)`), for what reads it as one.
   */
  exact: HExpr | null = null;
  constructor(
    readonly expr: HExpr,
    readonly type: 'int' | 'float' | 'bool' | 'str',
  ) {
    super();
  }
  /** An int whose exact value is the TS bigint expression `exact`. */
  static bigInt(exact: HExpr): HostScalar {
    const v = new HostScalar({ k: 'call', callee: 'Number', args: [exact] }, 'int');
    v.exact = exact;
    return v;
  }
  /** A value of `type` or None, held in `raw` (a TS expression of type `T | null`). */
  static orNone(raw: HExpr, type: HostScalar['type']): HostScalar {
    const v = new HostScalar({ k: 'call', callee: 'jx.notNone', args: [raw] }, type);
    v.raw = raw;
    return v;
  }
  get typeName(): string {
    return this.type;
  }
}

/** The TS expression of a host value that may be None (`T | null`): its raw variable, or its plain value. */
export const rawExpr = (v: HostScalar): HExpr => v.raw ?? v.expr;

/**
 * A list whose items are known only when the program runs: one a loop that runs on the host appends to
 * (`while loss > 1e-3: history.append(float(loss))`). A TS array (`name`) of host scalars of one Python type.
 */
/** The items of a HostList: host scalars of one Python type, or device arrays of one type (shape, dtype, weak type). */
export type ListElem = HostScalar['type'] | AVal;

export class HostList extends PyObject {
  constructor(
    readonly name: string,
    readonly elem: ListElem,
    /** A tuple made of such a list (`tuple(history)`): the same TS array, immutable, shown as a tuple. */
    readonly kind: 'list' | 'tuple' = 'list',
  ) {
    super();
  }
  get typeName(): string {
    return this.kind;
  }
}

/**
 * One stream of a `for` over values known only when the program runs: a HostList's items, or a count
 * (enumerate's index, a range zipped with such a list, a range with bounds known only at run time: then its
 * start and length are TS expressions, constants evaluated where range() was called).
 */
export type HostEachPart = { k: 'list'; list: HostList } | { k: 'count'; start: bigint | HExpr; step: bigint; length: number | HExpr | null };

/** zip() or enumerate() with a list known only when the program runs, or a range() whose bounds are: a `for` over it is a loop of the host program. */
export class HostZip extends PyObject {
  constructor(
    readonly typeName: 'zip' | 'enumerate' | 'range',
    readonly parts: readonly HostEachPart[],
    /** A range's start, stop and step (its repr: range(0, n)). */
    readonly bounds: readonly HExpr[] = [],
  ) {
    super();
  }
}

/**
 * A value a run-time `if` chose: a function (or object) made in each branch, such as the `vjp_fun` of a
 * `jax.vjp` on either path. `test` (a TS boolean variable holding the if's test) picks `a` or `b`; a call
 * calls both in the two arms of a TS if.
 */
export class HostChoice extends PyObject {
  constructor(
    readonly test: HExpr,
    readonly a: PyValue,
    readonly b: PyValue,
  ) {
    super();
  }
  get typeName(): string {
    const t = (v: PyValue): string => (v === null ? 'NoneType' : typeof v === 'object' ? v.typeName : typeof v);
    return t(this.a) === t(this.b) ? t(this.a) : 'object';
  }
}

/** Thrown where a value must be known at compile time but is only known at run time. */
export class NeedsStatic extends Error {
  constructor(
    message: string,
    readonly span: Span,
  ) {
    super(message);
  }
}

/** `v`, which must be known at compile time (`what` names it in the error when it is a HostScalar). */
export function staticValue(v: PyValue, what: string, span: Span): Exclude<PyValue, HostScalar> {
  if (v instanceof HostScalar || v instanceof HostSlice || v instanceof HostNd) throw new NeedsStatic(`${what} must be known at compile time, but it depends on a value computed while the program runs`, span);
  return v;
}

/** The Python type of a number, string or bool (known now or at run time); null for other values. */
export const scalarKind = (v: PyValue): HostScalar['type'] | null =>
  v instanceof HostScalar ? v.type : typeof v === 'bigint' ? 'int' : typeof v === 'number' ? 'float' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'str' : null;

export const isArray = (v: PyValue): v is Tracer | HostArray => v instanceof Tracer || v instanceof HostArray;

export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'str';
  }
  if (v instanceof PyTuple && v.cls) return v.cls.name;
  return v.typeName;
}

// ------------------------------------------------------------------ classes (src/lower/classes.ts has their behaviour)

/** What a registered pytree class flattens to: its children (the leaves' subtrees) and static aux data. */
export interface PytreeDef {
  /** `keys`: the children's key-path entries (register_pytree_with_keys, dataclasses); FlattenedIndexKey(i) when absent. */
  flatten(v: PyValue): { children: PyValue[]; aux: PyValue; keys?: PyValue[] };
  unflatten(aux: PyValue, children: PyValue[]): PyValue;
}

/** Per dataclass: its fields in order, their defaults, and the decorator's options. */
export interface DataclassInfo {
  fields: string[];
  defaults: Map<string, PyValue>;
  /** The fields declared with `metadata={'static': True}` (jax.tree.static): register_dataclass's meta fields. */
  staticFields?: Set<string>;
  frozen: boolean;
  eq: boolean;
  repr: boolean;
}

/** A class made by a `class` statement, `object`, and Python's and JAX's exception classes. */
export class PyUserClass extends PyObject {
  readonly typeName = 'type';
  /** The class namespace (methods, class attributes), in definition order. */
  readonly attrs = new Map<string, PyValue>();
  /** Method resolution order, this class first (C3, as CPython). */
  readonly mro: PyUserClass[];
  dataclass: DataclassInfo | null = null;
  pytree: PytreeDef | null = null;
  /** The names the class body annotates (`x: int`), in order: a dataclass's fields. */
  annotations: string[] = [];
  /** Set on the stand-ins for the built-in types a class may derive from (str, int, float, tuple, list, dict). */
  ownBuiltin: string | null = null;
  constructor(
    readonly name: string,
    readonly bases: PyUserClass[],
    /** The module that prints before the name (`<class '__main__.C'>`); '' for builtins printed bare. */
    readonly module = '__main__',
  ) {
    super();
    this.mro = [this, ...c3Merge(bases.map((b) => [...b.mro]).concat([[...bases]]), name)];
  }
  /** A name looked up along the MRO (class attributes and methods). */
  lookup(name: string): PyValue | undefined {
    for (const c of this.mro) if (c.attrs.has(name)) return c.attrs.get(name);
    return undefined;
  }
  /** The built-in type this class derives from (`class StaticStr(str)`: 'str'), else null. */
  get builtinType(): string | null {
    return this.mro.find((c) => c.ownBuiltin)?.ownBuiltin ?? null;
  }
  isSubclassOf(c: PyUserClass): boolean {
    return this.mro.includes(c);
  }
  get qualName(): string {
    return this.module ? `${this.module}.${this.name}` : this.name;
  }
}

function c3Merge(seqs: PyUserClass[][], name: string): PyUserClass[] {
  const out: PyUserClass[] = [];
  for (;;) {
    const rest = seqs.filter((s) => s.length);
    if (!rest.length) return out;
    const head = rest.map((s) => s[0]!).find((c) => !rest.some((s) => s.indexOf(c) > 0));
    if (!head) throw new TypeError(`Cannot create a consistent method resolution order (MRO) for bases of ${name}`);
    out.push(head);
    for (const s of rest) if (s[0] === head) s.shift();
  }
}

/** An instance of a PyUserClass: its attributes are its __dict__. */
export class PyInstance extends PyObject {
  readonly attrs = new Map<string, PyValue>();
  /** A stand-in for CPython's id(), for the default repr's `at 0x...`. */
  readonly address = 0x7f3a6c000000 + 0x40 * instanceCount++;
  /** Set while __init__ runs (a frozen dataclass's fields are assigned then). */
  initializing = false;
  /**
   * The host-loop depth (Interp.dynamicDepth) at which the object's attributes may change: where it was made,
   * or the loop that carries it. Elsewhere inside a host loop, setting one makes the loop unroll.
   */
  carriedDepth = 0;
  /** An instance of a subclass of a built-in type (`class StaticStr(str)`): the built-in value it is (a str, list, dict, …). */
  value: PyValue | undefined = undefined;
  constructor(readonly cls: PyUserClass) {
    super();
  }
  get typeName(): string {
    return this.cls.name;
  }
}
let instanceCount = 0;

/** `@staticmethod`, `@classmethod`, `@property` wrappers of a function in a class body. */
export class PyDescriptor extends PyObject {
  constructor(
    readonly kind: 'staticmethod' | 'classmethod' | 'property',
    readonly fn: PyValue,
    /** A property's setter (`@x.setter`). */
    readonly setter: PyValue = null,
  ) {
    super();
  }
  get typeName(): string {
    return this.kind;
  }
}

/** A method implemented by jaxts on a built-in class (BaseException.__init__): bound like a Python function. */
export class PyNativeMethod extends PyObject {
  readonly typeName = 'method_descriptor';
  constructor(
    readonly name: string,
    readonly fn: (self: PyValue, call: CallArgs) => PyValue,
  ) {
    super();
  }
}

/** `super()` inside a method: attribute lookup starts after `cls` in the MRO of `self`'s class. */
export class PySuper extends PyObject {
  readonly typeName = 'super';
  constructor(
    readonly cls: PyUserClass,
    readonly self: PyValue,
  ) {
    super();
  }
}

/** A context manager jaxts implements (jax.disable_jit(), jax.default_device(d)): what `with` calls on entry and exit. */
export class PyContextManager extends PyObject {
  constructor(
    readonly typeName: string,
    readonly enter: () => PyValue,
    readonly exit: () => void,
  ) {
    super();
  }
}

/**
 * A mutable array reference (`jax.new_ref(x)`, JAX's `Ref`): a cell whose current value is a device array.
 * Reads and writes rebind `value`; traces that write a ref made outside them give its new value as an extra
 * result (an in-out buffer of the program), src/lower/refs.ts.
 */
export class PyRef extends PyObject {
  readonly typeName = 'Ref';
  /** Set once jax.freeze consumed it. */
  frozen = false;
  constructor(
    public value: Tracer | HostArray,
    /** The trace it was made in (null: at host level). */
    readonly home: Trace | null,
    /** The host-loop depth where it was made (a write inside a deeper host loop unrolls that loop). */
    readonly depth: number,
  ) {
    super();
  }
}

/**
 * The tangent of a value jax.jvp traces, as a print inside it shows it (JVPTracer(primal=..., tangent=...)):
 * a placeholder among the print's values that jvpCall (src/lower/transforms.ts) replaces by the tangent it computes.
 */
export class TangentOf extends PyObject {
  readonly typeName = 'tangent';
  constructor(readonly primal: Tracer) {
    super();
  }
}

/** The host expression of a Python scalar (a literal, or a value known only at run time). */
/**
 * The TS expression of an int operand where the operation computes exactly: a TS bigint for an int that
 * may pass 2**53 (HostScalar.exact, or one known now that does), else hexpr's number (null: such an int
 * is not among the operands).
 */
export function exactInt(v: PyValue, anyway = false): HExpr | null {
  if (v instanceof HostScalar && v.exact) return v.exact;
  if (typeof v === 'bigint' && (anyway || !Number.isSafeInteger(Number(v)))) return { k: 'call', callee: 'BigInt', args: [{ k: 'lit', value: v.toString() }] };
  return anyway ? { k: 'call', callee: 'BigInt', args: [hexpr(v)] } : null;
}

export function hexpr(v: PyValue): HExpr {
  if (v instanceof HostScalar) return v.expr;
  if (typeof v === 'bigint') return { k: 'lit', value: Number(v) };
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' || v === null) return { k: 'lit', value: v };
  throw new Error(`internal: no host expression for ${typeName(v)}`);
}
