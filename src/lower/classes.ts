// User classes at compile time: `class` statements, instances and their
// attributes, bound methods, @staticmethod/@classmethod/@property, super(),
// the dunder protocols jaxts honours (__init__, __call__, __repr__/__str__,
// __eq__, __getitem__, __len__, __iter__, __bool__, __enter__/__exit__),
// @dataclasses.dataclass, and exceptions: Python's and JAX's exception
// classes, `raise`, and the Python exception a compile error of the user's
// program stands for (so `try: jit(f)(x) except TypeError as e:` catches it).
// This file imports no evaluator-core module: the core calls in, and calls
// back through the ClassHost it passes (the Interp).
import { defineMembers } from './enums.js';
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../common/span.js';
import { Text } from './text.js';
import { PyClass, PyList,
  NeedsStatic, PyBoundMethod, PyBuiltin, PyContextManager, PyPartial, PyTransformed, PyDescriptor, PyDict, PyFunction, PyInstance, PyNativeMethod, PyObject, PySuper, PyTuple,
  PyUserClass, typeName, type CallArgs, type DataclassInfo, type PyValue,
} from './values.js';

/** What this file needs of the interpreter (Interp implements it). */
export interface ClassHost {
  call(fn: PyValue, call: CallArgs): PyValue;
  /** The built-in function `name` (str, list, dict, …). */
  builtin(name: string): PyValue;
  /** Dunder `name` (one of BUILTIN_DUNDERS) applied to a built-in value: what the built-in type does. */
  builtinDunder(value: PyValue, name: string, args: PyValue[], span: Span): PyValue;
  /** Attribute `name` of a built-in value (its methods: `s.upper`, `xs.append`). */
  builtinAttr(value: PyValue, name: string, span: Span): PyValue;
  str(v: PyValue, span: Span): Text;
  repr(v: PyValue, span: Span): Text;
  readonly dynamicDepth: number;
}

const noKw = (): Map<string, PyValue> => new Map();

// ------------------------------------------------------------------ built-in classes

/** `object`: the root of every class. */
export const OBJECT = new PyUserClass('object', [], '');

/** Python's built-in exception classes and JAX's (jax.errors), by name. */
export const EXCEPTIONS = new Map<string, PyUserClass>();

function exc(name: string, base: string | null, module = ''): PyUserClass {
  const c = new PyUserClass(name, [base ? EXCEPTIONS.get(base)! : OBJECT], module);
  EXCEPTIONS.set(name, c);
  return c;
}

const BASE_EXCEPTION = exc('BaseException', null);
BASE_EXCEPTION.attrs.set(
  '__init__',
  new PyNativeMethod('__init__', (self, c) => {
    if (self instanceof PyInstance) self.attrs.set('args', new PyTuple(c.args));
    return null;
  }),
);
for (const [name, base] of [
  ['Exception', 'BaseException'], ['KeyboardInterrupt', 'BaseException'], ['SystemExit', 'BaseException'],
  ['ArithmeticError', 'Exception'], ['ZeroDivisionError', 'ArithmeticError'], ['OverflowError', 'ArithmeticError'],
  ['FloatingPointError', 'ArithmeticError'], ['LookupError', 'Exception'], ['IndexError', 'LookupError'], ['KeyError', 'LookupError'],
  ['TypeError', 'Exception'], ['ValueError', 'Exception'], ['AssertionError', 'Exception'], ['AttributeError', 'Exception'],
  ['NameError', 'Exception'], ['UnboundLocalError', 'NameError'], ['RuntimeError', 'Exception'], ['NotImplementedError', 'RuntimeError'],
  ['RecursionError', 'RuntimeError'], ['StopIteration', 'Exception'], ['ImportError', 'Exception'], ['ModuleNotFoundError', 'ImportError'],
  ['OSError', 'Exception'], ['FileNotFoundError', 'OSError'], ['UnicodeError', 'ValueError'], ['Warning', 'Exception'],
  ['UserWarning', 'Warning'], ['DeprecationWarning', 'Warning'], ['RuntimeWarning', 'Warning'],
] as const) exc(name, base);
// jax.errors: the concretization errors are TypeErrors, as in JAX
for (const [name, base] of [
  ['JAXTypeError', 'TypeError'], ['ConcretizationTypeError', 'TypeError'], ['TracerBoolConversionError', 'ConcretizationTypeError'],
  ['TracerIntegerConversionError', 'TypeError'], ['TracerArrayConversionError', 'TypeError'], ['NonConcreteBooleanIndexError', 'IndexError'],
  ['UnexpectedTracerError', 'Exception'], ['KeyReuseError', 'Exception'], ['JaxRuntimeError', 'Exception'],
] as const) exc(name, base, 'jax.errors');
// raised by sharding-in-types checks (jax._src.core.ShardingTypeError; not exported by jax.errors)
exc('ShardingTypeError', 'Exception', 'jax._src.core');
// a sharding that does not divide an array's shape (jax._src.sharding.IndivisibleError)
exc('IndivisibleError', 'ValueError', 'jax._src.sharding');

/** The exception classes a program names without importing (builtins). */
export const BUILTIN_EXCEPTIONS = [...EXCEPTIONS.values()].filter((c) => c.module === '');
/** jax.errors' classes. */
export const JAX_ERRORS = [...EXCEPTIONS.values()].filter((c) => c.module === 'jax.errors');

export const isExceptionClass = (c: PyValue): c is PyUserClass => c instanceof PyUserClass && c.isSubclassOf(BASE_EXCEPTION);
export const isException = (v: PyValue): v is PyInstance => v instanceof PyInstance && v.cls.isSubclassOf(BASE_EXCEPTION);

/** An exception raised by the program (or a compile error standing for one) while it runs at compile time. */
export class PyRaise extends CompileError {
  constructor(
    readonly exc: PyInstance,
    message: string,
    span: Span | null,
    notes: string[] = [],
  ) {
    super(message, span, notes);
  }
}

/** `ExcClass(message)` as an instance, without running a user __init__. */
export function newException(cls: PyUserClass, args: PyValue[]): PyInstance {
  const e = new PyInstance(cls);
  e.attrs.set('args', new PyTuple(args));
  return e;
}

/** What `raise v` raises: an instance, or an exception class instantiated without arguments. */
export function raiseValue(host: ClassHost, v: PyValue, span: Span): PyRaise {
  if (isExceptionClass(v)) v = instantiate(host, v, { args: [], kwargs: noKw(), span });
  if (!isException(v)) throw new CompileError('TypeError: exceptions must derive from BaseException', span);
  const text = host.str(v, span).static;
  return new PyRaise(v, text ? `${v.cls.name}: ${text}` : v.cls.name, span);
}

/** JAX's own messages that say "not supported" (a program may catch them); other such messages are jaxts's limits. */
const JAX_NOT_SUPPORTED = /^x\.dtype=\w+ is not supported|^\w+ not supported for input types|^zero-size arrays not supported/;

/**
 * The Python exception a compile error stands for, so `except` can catch it:
 * an error of the user's program worded as Python or JAX raise it
 * (`TypeError: …`, `TracerBoolConversionError: …`). jaxts's own limits
 * ("… is not supported") are not Python exceptions and are never caught.
 */
export function caughtException(e: unknown): PyInstance | null {
  if (e instanceof PyRaise) return e.exc;
  if (!(e instanceof CompileError) || e instanceof NeedsStatic) return null;
  const m = /^([A-Za-z]\w*): ([\s\S]*)$/.exec(e.message);
  const cls = m ? EXCEPTIONS.get(m[1]!) : undefined;
  if (!m || !cls || /jaxts/.test(m[2]!) || (/not supported/.test(m[2]!) && !JAX_NOT_SUPPORTED.test(m[2]!))) return null;
  // CPython adds "Did you mean" where it shows a traceback, not to the exception's message
  const text = ['AttributeError', 'NameError', 'ImportError', 'ModuleNotFoundError'].includes(cls.name) ? m[2]!.replace(/\. Did you mean: '[^']*'\?$/, '') : m[2]!;
  // a KeyError's message is the key's repr: the exception holds the key
  const key = cls.name !== 'KeyError' ? text : /^'[^'\\]*'$|^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : /^-?\d+$/.test(text) ? BigInt(text) : text;
  return newException(cls, [key]);
}

/** Does exception `v` match an `except` clause's class (or tuple of classes)? */
export function exceptionMatches(v: PyInstance, clause: PyValue, span: Span): boolean {
  const classes = clause instanceof PyTuple ? clause.items : [clause];
  return classes.some((c) => {
    if (!isExceptionClass(c)) throw new CompileError('TypeError: catching classes that do not inherit from BaseException is not allowed', span);
    return v.cls.isSubclassOf(c);
  });
}

// ------------------------------------------------------------------ subclasses of built-in types

/** The built-in types a class may derive from; the immutable ones take their value when made (__new__). */
const BUILTIN_BASES = new Map<string, { mutable: boolean; cls: PyUserClass | null }>(
  [['str', false], ['int', false], ['float', false], ['tuple', false], ['list', true], ['dict', true]].map(([n, m]) => [n as string, { mutable: m as boolean, cls: null }]),
);

/** The dunders an instance of such a subclass takes from its built-in value where its class does not define them. */
const BUILTIN_DUNDERS = new Set([
  '__getitem__', '__setitem__', '__len__', '__iter__', '__contains__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__', '__bool__', '__format__',
  '__add__', '__radd__', '__mul__', '__rmul__', '__mod__', '__sub__', '__rsub__', '__truediv__', '__rtruediv__', '__floordiv__', '__pow__',
]);

/** The class standing for built-in type `b` as a base (`class StaticStr(str)`), or null when `b` is not one. */
function builtinBase(host: ClassHost, b: PyValue): PyUserClass | null {
  if (!(b instanceof PyBuiltin)) return null;
  const entry = BUILTIN_BASES.get(b.name);
  if (!entry) return null;
  if (!entry.cls) {
    const c = new PyUserClass(b.name, [OBJECT], '');
    c.ownBuiltin = b.name;
    // list.__init__ / dict.__init__ fill the value (a subclass's __init__ calls super().__init__(...)); the
    // immutable types took theirs when the instance was made
    c.attrs.set('__init__', new PyNativeMethod('__init__', (self, call) => {
      if (entry.mutable && self instanceof PyInstance) self.value = host.call(host.builtin(b.name), call);
      return null;
    }));
    entry.cls = c;
  }
  return entry.cls;
}

/** Dunder `name` of an instance of a subclass of a built-in type, from its value (undefined: none). */
function valueDunder(host: ClassHost, v: PyInstance, name: string, span: Span): PyValue | undefined {
  if (v.value === undefined || !BUILTIN_DUNDERS.has(name)) return undefined;
  return new PyBuiltin(name, (c) => host.builtinDunder(v.value!, name, c.args, span));
}

// ------------------------------------------------------------------ class statements

/** The class a `class` statement makes from its bases and evaluated namespace. */
export function makeClass(host: ClassHost, name: string, bases: PyValue[], namespace: Map<string, PyValue>, span: Span): PyUserClass {
  // typing's markers (Generic[T], Protocol) and abc.ABC add nothing a jaxts class needs
  const typingMarker = (b: PyValue): boolean => b instanceof PyClass && b.kind === 'marker' && ['Generic', 'Protocol', 'ABC'].includes(b.name);
  const bs = bases.filter((b) => !typingMarker(b)).map((b) => {
    if (b instanceof PyUserClass) return b;
    const builtin = builtinBase(host, b);
    if (builtin) return builtin;
    throw new CompileError(`TypeError: class '${name}': a base of type '${typeName(b)}' is not supported (bases must be classes defined in the program, object or exception classes)`, span);
  });
  let cls: PyUserClass;
  try {
    // a class body's `__module__ = '…'` names its module, as in Python
    const module = namespace.get('__module__');
    cls = new PyUserClass(name, bs.length ? bs : [OBJECT], typeof module === 'string' ? module : '__main__');
  } catch (e) {
    if (e instanceof TypeError) throw new CompileError(`TypeError: ${e.message}`, span);
    throw e;
  }
  namespace.forEach((v, k) => cls.attrs.set(k, v));
  for (const v of namespace.values()) {
    const fn = v instanceof PyDescriptor ? v.fn : v;
    if (fn instanceof PyFunction) fn.ownerClass = cls;
  }
  defineMembers(cls, span);
  // a dataclass base's fields come first, as in Python
  return cls;
}

// ------------------------------------------------------------------ attributes

function bind(host: ClassHost, self: PyValue, name: string, v: PyValue): PyValue {
  if (v instanceof PyFunction || v instanceof PyBuiltin || v instanceof PyTransformed || v instanceof PyPartial) {
    return new PyBoundMethod(self, name, (c) => host.call(v, { ...c, args: [self, ...c.args] }));
  }
  if (v instanceof PyNativeMethod) return new PyBoundMethod(self, name, (c) => v.fn(self, c));
  return v;
}

/** A class attribute found on the MRO, as seen through an instance (`inst`) or the class itself (`inst` null). */
function fromClass(host: ClassHost, cls: PyUserClass, inst: PyInstance | null, name: string, v: PyValue, span: Span): PyValue {
  if (v instanceof PyDescriptor) {
    if (v.kind === 'staticmethod') return v.fn;
    if (v.kind === 'classmethod') return new PyBoundMethod(cls, name, (c) => host.call(v.fn, { ...c, args: [cls, ...c.args] }));
    return inst ? host.call(v.fn, { args: [inst], kwargs: noKw(), span }) : v;
  }
  if (!inst) return v;
  if (v instanceof PyFunction || v instanceof PyNativeMethod || v instanceof PyTransformed || v instanceof PyPartial) return bind(host, inst, name, v);
  return v;
}

/** `obj.name` for instances, classes and super(); undefined when `obj` is none of these. */
export function classAttr(host: ClassHost, obj: PyValue, name: string, span: Span): PyValue | undefined {
  if (obj instanceof PyInstance) {
    const onClass = obj.cls.lookup(name);
    if (onClass instanceof PyDescriptor && onClass.kind === 'property' && !slotFirst(obj.cls, name)) return fromClass(host, obj.cls, obj, name, onClass, span);
    const own = obj.attrs.get(name);
    if (own !== undefined) return own;
    if (onClass !== undefined) return fromClass(host, obj.cls, obj, name, onClass, span);
    if (name === '__class__') return obj.cls;
    if (name === '__dict__') {
      const d = new PyDict();
      obj.attrs.forEach((v, k) => d.set(k, v));
      return d;
    }
    if (isException(obj) && name === 'args') return new PyTuple([]);
    // StopIteration.value: a generator's return value
    if (name === 'value' && obj.cls.isSubclassOf(EXCEPTIONS.get('StopIteration')!)) {
      const args = obj.attrs.get('args');
      return args instanceof PyTuple ? (args.items[0] ?? null) : null;
    }
    const getattr = obj.cls.lookup('__getattr__');
    if (getattr !== undefined) return host.call(bind(host, obj, '__getattr__', getattr), { args: [name], kwargs: noKw(), span });
    // a subclass of a built-in type has the type's methods (on its value)
    if (obj.value !== undefined) return valueDunder(host, obj, name, span) ?? host.builtinAttr(obj.value, name, span);
    throw new CompileError(`AttributeError: '${obj.cls.name}' object has no attribute '${name}'`, span);
  }
  if (obj instanceof PyUserClass) {
    const v = obj.lookup(name);
    if (v !== undefined) return fromClass(host, obj, null, name, v, span);
    switch (name) {
      case '__name__':
      case '__qualname__':
        return obj.name;
      case '__module__':
        return obj.module || 'builtins';
      case '__mro__':
        return new PyTuple(obj.mro);
      case '__bases__':
        return new PyTuple(obj.bases);
    }
    throw new CompileError(`AttributeError: type object '${obj.name}' has no attribute '${name}'`, span);
  }
  if (obj instanceof PySuper) {
    const mro = obj.self instanceof PyUserClass ? obj.self.mro : obj.self instanceof PyInstance ? obj.self.cls.mro : [];
    for (const c of mro.slice(mro.indexOf(obj.cls) + 1)) {
      const v = c.attrs.get(name);
      if (v === undefined) continue;
      if (obj.self instanceof PyUserClass) return fromClass(host, obj.self, null, name, v, span);
      if (v instanceof PyDescriptor) return fromClass(host, c, obj.self as PyInstance, name, v, span);
      return bind(host, obj.self, name, v);
    }
    if (name === '__init__') return new PyBoundMethod(obj.self, name, () => null);
    // past the classes of the program: the built-in type's own methods (`super().__getitem__(k)` in a dict subclass)
    if (obj.self instanceof PyInstance && obj.self.value !== undefined) return valueDunder(host, obj.self, name, span) ?? host.builtinAttr(obj.self.value, name, span);
    throw new CompileError(`AttributeError: 'super' object has no attribute '${name}'`, span);
  }
  if (obj instanceof PyContextManager && (name === '__enter__' || name === '__exit__')) {
    return new PyBoundMethod(obj, name, () => (name === '__enter__' ? obj.enter() : (obj.exit(), null)));
  }
  if (obj instanceof PyDescriptor && obj.kind === 'property' && (name === 'setter' || name === 'getter')) {
    return new PyBuiltin(name, (c) => new PyDescriptor('property', name === 'getter' ? c.args[0]! : obj.fn, name === 'setter' ? c.args[0]! : obj.setter));
  }
  return undefined;
}

/**
 * The ifs on run-time values being lowered, innermost last, each with the objects whose attributes its
 * branches set and those attributes before the if (stmt.ts's dynamicIf merges them after it, as names).
 */
export const branchObjects: { depth: number; saved: Map<PyInstance, Map<string, PyValue>> }[] = [];

/** Whether the innermost if on a run-time value may set `obj`'s attributes (an object its enclosing code may change): it records it. */
function ownedByBranch(obj: PyInstance, depth: number): boolean {
  const b = branchObjects[branchObjects.length - 1];
  if (!b || b.depth !== depth || obj.carriedDepth !== depth - 1) return false;
  b.saved.set(obj, new Map(obj.attrs));
  obj.carriedDepth = depth;
  return true;
}

/** `obj.name = v` (instances and classes). */
/** Is `name` in the __slots__ of a class that comes before the class defining it (a slot shadows a base's property)? */
function slotFirst(cls: PyUserClass, name: string): boolean {
  for (const c of cls.mro) {
    const slots = c.attrs.get('__slots__');
    if (slots === name || ((slots instanceof PyList || slots instanceof PyTuple) && slots.items.includes(name))) return true;
    if (c.attrs.has(name)) return false;
  }
  return false;
}

export function setClassAttr(host: ClassHost, obj: PyValue, name: string, v: PyValue, span: Span): void {
  // a typing.NamedTuple class's methods may be set after the class body (Jaxpr.__repr__ = ...)
  if (obj instanceof PyClass && obj.kind === 'namedtuple') {
    obj.methods.set(name, v);
    return;
  }
  if (obj instanceof PyInstance) {
    const onClass = obj.cls.lookup(name);
    if (onClass instanceof PyDescriptor && onClass.kind === 'property' && !slotFirst(obj.cls, name)) {
      if (onClass.setter === null) throw new CompileError(`AttributeError: property '${name}' of '${obj.cls.name}' object has no setter`, span);
      host.call(onClass.setter, { args: [obj, v], kwargs: noKw(), span });
      return;
    }
    if (obj.cls.mro.some((c) => c.dataclass?.frozen) && !obj.initializing) {
      throw new PyRaise(newException(FROZEN_INSTANCE_ERROR, [`cannot assign to field '${name}'`]), `dataclasses.FrozenInstanceError: cannot assign to field '${name}'`, span);
    }
    // an attribute changed in a loop lowered as a TS loop is carried by the loop only when the loop carries the object
    if (host.dynamicDepth > 0 && obj.carriedDepth !== host.dynamicDepth && !ownedByBranch(obj, host.dynamicDepth)) throw new NeedsStatic('changing an attribute of an object inside a loop that runs on the host', span);
    obj.attrs.set(name, v);
    return;
  }
  if (obj instanceof PyUserClass) {
    if (!obj.module) throw new CompileError(`TypeError: cannot set '${name}' attribute of immutable type '${obj.name}'`, span);
    if (host.dynamicDepth > 0) throw new NeedsStatic('changing a class attribute inside a loop that runs on the host', span);
    obj.attrs.set(name, v);
    return;
  }
  if (obj instanceof PyFunction) {
    throw new CompileError(`setting attributes of functions is not supported`, span);
  }
  throw new CompileError(`AttributeError: '${typeName(obj)}' object has no attribute '${name}' (and no __dict__ for setting new attributes)`, span);
}

// ------------------------------------------------------------------ calls and protocols

/** `Class(...)`: a new instance, initialised by __init__ (or the dataclass's generated one). */
export function instantiate(host: ClassHost, cls: PyUserClass, call: CallArgs): PyInstance {
  const inst = new PyInstance(cls);
  // an object made in a loop body that runs on the host is that step's own: the body may set its attributes
  inst.carriedDepth = host.dynamicDepth;
  const builtinType = cls.builtinType;
  if (builtinType) {
    // str.__new__ (and int's, tuple's, …) makes the value from the arguments; a list or dict starts empty
    const mutable = BUILTIN_BASES.get(builtinType)!.mutable;
    inst.value = host.call(host.builtin(builtinType), mutable ? { args: [], kwargs: noKw(), span: call.span } : { ...call, kwargs: builtinType === 'dict' ? call.kwargs : noKw() });
    const ownInit = cls.mro.find((c) => c.attrs.has('__init__'));
    if (!mutable && ownInit?.ownBuiltin) return inst;
  }
  const dc = dataclassOf(cls);
  const init = cls.lookup('__init__');
  const ownInit = cls.mro.find((c) => c.attrs.has('__init__'));
  if (dc && (!ownInit || (ownInit.dataclass && !ownInit.attrs.has('__init__')) || mroIndex(cls, ownInit) > mroIndex(cls, dc.owner))) {
    inst.initializing = true;
    try {
      dataclassInit(host, inst, dc.info, call);
    } finally {
      inst.initializing = false;
    }
    const post = cls.lookup('__post_init__');
    if (post !== undefined) host.call(bind(host, inst, '__post_init__', post), { args: [], kwargs: noKw(), span: call.span });
    return inst;
  }
  if (init === undefined) {
    if (call.args.length || call.kwargs.size) throw new CompileError(`TypeError: ${cls.name}() takes no arguments`, call.span);
    return inst;
  }
  inst.initializing = true;
  try {
    const r = host.call(bind(host, inst, '__init__', init), call);
    if (r !== null) throw new CompileError(`TypeError: __init__() should return None, not '${typeName(r)}'`, call.span);
  } finally {
    inst.initializing = false;
  }
  return inst;
}

const mroIndex = (cls: PyUserClass, c: PyUserClass): number => cls.mro.indexOf(c);

function dataclassOf(cls: PyUserClass): { info: DataclassInfo; owner: PyUserClass } | null {
  const owner = cls.mro.find((c) => c.dataclass);
  return owner ? { info: owner.dataclass!, owner } : null;
}

function dataclassInit(host: ClassHost, inst: PyInstance, dc: DataclassInfo, call: CallArgs): void {
  const name = inst.cls.name;
  const kwargs = new Map(call.kwargs);
  if (call.args.length > dc.fields.length) {
    throw new CompileError(`TypeError: ${name}.__init__() takes ${dc.fields.length + 1} positional arguments but ${call.args.length + 1} were given`, call.span);
  }
  dc.fields.forEach((f, i) => {
    let v: PyValue | undefined;
    if (i < call.args.length) {
      if (kwargs.has(f)) throw new CompileError(`TypeError: ${name}.__init__() got multiple values for argument '${f}'`, call.span);
      v = call.args[i]!;
    } else if (kwargs.has(f)) {
      v = kwargs.get(f)!;
      kwargs.delete(f);
    } else if (dc.defaults.has(f)) {
      const d = dc.defaults.get(f)!;
      v = d instanceof DefaultFactory ? host.call(d.factory, { args: [], kwargs: noKw(), span: call.span }) : d;
    } else throw new CompileError(`TypeError: ${name}.__init__() missing 1 required positional argument: '${f}'`, call.span);
    inst.attrs.set(f, v);
  });
  for (const k of kwargs.keys()) throw new CompileError(`TypeError: ${name}.__init__() got an unexpected keyword argument '${k}'`, call.span);
}

/** `dataclasses.field(default_factory=f)`: a default made anew for each instance. */
export class DefaultFactory extends PyObject {
  readonly typeName = 'Field';
  constructor(readonly factory: PyValue) {
    super();
  }
}

/** `dataclasses.field(...)` with metadata or without a default: the default (a value or a DefaultFactory), if any, and whether the metadata says 'static'. */
export class FieldSpec extends PyObject {
  readonly typeName = 'Field';
  constructor(
    readonly dflt: PyValue | undefined,
    readonly isStatic: boolean,
  ) {
    super();
  }
}

/**
 * dataclasses.field(default=..., default_factory=..., metadata=...): the default itself (or a DefaultFactory)
 * where that is all it says, else a FieldSpec (no default: a required field; metadata: its 'static' flag).
 */
export function dataclassField(c: CallArgs): PyValue {
  const d = c.kwargs.has('default_factory') ? new DefaultFactory(c.kwargs.get('default_factory')!) : c.kwargs.get('default');
  const metadata = c.kwargs.get('metadata');
  const isStatic = metadata instanceof PyDict && metadata.get('static') === true;
  return d !== undefined && !isStatic ? d : new FieldSpec(d, isStatic);
}

/** dataclasses.FrozenInstanceError (an AttributeError). */
export const FROZEN_INSTANCE_ERROR = new PyUserClass('FrozenInstanceError', [EXCEPTIONS.get('AttributeError')!], 'dataclasses');

/** `@dataclass` / `@dataclass(frozen=True, …)` applied to a class: its annotated fields become __init__'s parameters. */
export function makeDataclass(cls: PyValue, options: Map<string, PyValue>, annotations: string[] | undefined, span: Span): PyValue {
  if (!(cls instanceof PyUserClass) || !annotations) throw new CompileError('TypeError: dataclass() should be called on a class', span);
  const fields: string[] = [];
  const defaults = new Map<string, PyValue>();
  const staticFields = new Set<string>();
  for (const c of [...cls.mro].reverse()) {
    if (!c.dataclass || c === cls) continue;
    for (const f of c.dataclass.fields) {
      if (!fields.includes(f)) fields.push(f);
      if (c.dataclass.defaults.has(f)) defaults.set(f, c.dataclass.defaults.get(f)!);
      if (c.dataclass.staticFields?.has(f)) staticFields.add(f);
    }
  }
  for (const f of annotations) {
    if (!fields.includes(f)) fields.push(f);
    let d = cls.attrs.get(f);
    if (d instanceof FieldSpec) {
      if (d.isStatic) staticFields.add(f);
      d = d.dflt;
      if (d === undefined) cls.attrs.delete(f);
      else cls.attrs.set(f, d);
    }
    if (d !== undefined) {
      defaults.set(f, d);
      // a class attribute that is a field's default stays on the class (as in Python), a factory does not
      if (d instanceof DefaultFactory) cls.attrs.delete(f);
    } else if (fields.slice(0, fields.indexOf(f)).some((g) => defaults.has(g))) {
      throw new CompileError(`TypeError: non-default argument '${f}' follows default argument`, span);
    }
  }
  const flag = (k: string, def: boolean): boolean => {
    const v = options.get(k);
    return v === undefined ? def : v === true;
  };
  cls.dataclass = { fields, defaults, staticFields, frozen: flag('frozen', false), eq: flag('eq', true), repr: flag('repr', true) };
  return cls;
}

/** A dunder method of an instance's class, bound; undefined when the class has none. */
export function dunder(host: ClassHost, v: PyValue, name: string, span: Span): PyValue | undefined {
  if (!(v instanceof PyInstance)) return undefined;
  const m = v.cls.lookup(name);
  return m === undefined ? valueDunder(host, v, name, span) : fromClass(host, v.cls, v, name, m, span);
}

/** Call dunder `name` of `v` with `args`; undefined when the class has none. */
export function callDunder(host: ClassHost, v: PyValue, name: string, args: PyValue[], span: Span): PyValue | undefined {
  const m = dunder(host, v, name, span);
  return m === undefined ? undefined : host.call(m, { args, kwargs: noKw(), span });
}

/** `a == b` when either is an instance: __eq__, a dataclass's field-wise equality, else identity. */
export function instanceEquals(host: ClassHost, a: PyValue, b: PyValue, span: Span, fieldsEqual: (x: PyValue, y: PyValue) => boolean): boolean | undefined {
  if (!(a instanceof PyInstance) && !(b instanceof PyInstance)) return undefined;
  for (const [x, y] of [[a, b], [b, a]] as const) {
    const r = callDunder(host, x, '__eq__', [y], span);
    if (r !== undefined && r !== NOT_IMPLEMENTED) return r === true || (r !== false && r !== null);
  }
  if (a instanceof PyInstance && b instanceof PyInstance && a.cls === b.cls) {
    const dc = dataclassOf(a.cls);
    if (dc?.info.eq) return dc.info.fields.every((f) => fieldsEqual(a.attrs.get(f) ?? null, b.attrs.get(f) ?? null));
  }
  return a === b;
}

/** `NotImplemented` */
export const NOT_IMPLEMENTED = new (class extends PyObject {
  readonly typeName = 'NotImplementedType';
})();

/**
 * str()/repr() of an instance: its __str__/__repr__, an exception's message,
 * a dataclass's generated repr, else `<__main__.C object at 0x…>`. Null for
 * values that are not instances.
 */
export function instanceText(host: ClassHost, v: PyValue, repr: boolean, span: Span): Text | null {
  if (v instanceof PyUserClass) return Text.of(`<class '${v.qualName}'>`);
  if (v instanceof PyDescriptor && v.kind !== 'property') return Text.of(`<${v.kind}(${host.repr(v.fn, span).static ?? ''})>`);
  if (v instanceof PySuper) return Text.of(`<super: <class '${v.cls.name}'>, <${typeName(v.self)} object>>`);
  if (v === NOT_IMPLEMENTED) return Text.of('NotImplemented');
  // a typing.NamedTuple class's own __str__ / __repr__
  if (v instanceof PyTuple && v.cls && (v.cls.methods.has('__repr__') || (!repr && v.cls.methods.has('__str__')))) {
    const m = v.cls.methods.get(!repr && v.cls.methods.has('__str__') ? '__str__' : '__repr__')!;
    return host.str(host.call(m, { args: [v], kwargs: noKw(), span }), span);
  }
  if (!(v instanceof PyInstance)) return null;
  const user = (name: string): Text | null => {
    const m = v.cls.mro.find((c) => c.attrs.has(name));
    if (!m || m.module === '') return null;
    const r = callDunder(host, v, name, [], span)!;
    if (typeof r !== 'string' && !(r instanceof PyObject && typeName(r) === 'str')) throw new CompileError(`TypeError: ${name} returned non-string (type ${typeName(r)})`, span);
    return host.str(r, span);
  };
  if (!repr) {
    const s = user('__str__');
    if (s) return s;
  }
  const r = user('__repr__');
  if (r) return r;
  if (v.value !== undefined) return repr ? host.repr(v.value, span) : host.str(v.value, span);
  if (v.cls.isSubclassOf(BASE_EXCEPTION)) {
    const args = v.attrs.get('args');
    const items = args instanceof PyTuple ? args.items : [];
    if (repr) return Text.of(`${v.cls.name}(`).concat(Text.join(items.map((x) => host.repr(x, span)), ', '), ')');
    if (items.length === 0) return Text.of('');
    if (items.length === 1) return v.cls.name === 'KeyError' ? host.repr(items[0]!, span) : host.str(items[0]!, span);
    return host.repr(new PyTuple(items), span);
  }
  const dc = dataclassOf(v.cls);
  if (dc?.info.repr) {
    return Text.of(`${v.cls.name}(`).concat(Text.join(dc.info.fields.map((f) => Text.of(`${f}=`).concat(host.repr(v.attrs.get(f) ?? null, span))), ', '), ')');
  }
  return Text.of(`<${v.cls.qualName} object at 0x${v.address.toString(16)}>`);
}
