// JAX's program objects as Python data (jax.extend.core): what
// jax.make_jaxpr returns — a ClosedJaxpr whose `.jaxpr` has `invars`,
// `outvars`, `constvars` and `eqns` (JaxprEqn: `invars`, `outvars`,
// `primitive`, `params`), its variables (Var) and literals (Literal) — and
// the primitives (`lax.exp_p`, …) whose `bind(*args, **params)` records the
// primitive in the current trace. A jaxpr is compile-time data: the objects
// are views of the traced IR function as JAX would show it
// (src/ir/jaxpr_printer.ts folds jaxts's explicit constants into literals),
// so that an interpreter written in Python over them (the custom-interpreters
// tutorial) evaluates the function again, under any transformation.
import { CompileError } from '../common/diagnostics.js';
import { jaxPrimName } from '../ir/indexing.js';
import { jaxprView, printEqn, printJaxpr, pyFloat, type JaxprTypes, type JaxprView } from '../ir/jaxpr_printer.js';
import { isControl, PRIM_NAMES, PRIMS, type Prim } from '../ir/prims.js';
import type { Atom, AVal, Eqn, Func, Lit, Var } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import { broadcastShapes } from './arrays.js';
import type { Interp } from './interp.js';
import { builtinModule } from './modules.js';
import { iterate } from './expr.js';
import { PySet } from './sets.js';
import { Text } from './text.js';
import {
  HostArray, PyBoundMethod, PyBuiltin, PyClass, PyDict, PyDType, PyList, PyNativeObject, PyTuple, Tracer, isArray, typeName, type CallArgs, type PyModule, type PyValue,
} from './values.js';

const coreClass = (name: string): PyClass => new PyClass(name, [], new Map(), 'marker', 'jax._src.core');
const CLASSES = {
  ClosedJaxpr: coreClass('ClosedJaxpr'),
  Jaxpr: coreClass('Jaxpr'),
  JaxprEqn: coreClass('JaxprEqn'),
  Var: coreClass('Var'),
  Literal: coreClass('Literal'),
  Primitive: coreClass('Primitive'),
};

/** JAX's text of an abstract value: `float32[5,10]`. */
const avalStr = (a: AVal): string => `${a.dtype}[${a.shape.join(',')}]`;

/** A jaxpr variable (core.Var): hashes by identity, shows as `Var(id=…):float32[5]`. */
export class PyJaxprVar extends PyNativeObject {
  readonly typeName = 'Var';
  readonly pyClass = CLASSES.Var;
  readonly hashable = true;
  /** A stable stand-in for CPython's id() (JAX prints the object's address). */
  readonly displayId: number;
  constructor(readonly v: Var) {
    super();
    this.displayId = 140000000000000 + 64 * nextVarId++;
  }
}
let nextVarId = 1;

/** A literal operand (core.Literal): `.val` is its Python value. */
export class PyJaxprLiteral extends PyNativeObject {
  readonly typeName = 'Literal';
  readonly pyClass = CLASSES.Literal;
  readonly hashable = false;
  constructor(readonly lit: Lit) {
    super();
  }
  get val(): PyValue {
    const { value, aval } = this.lit;
    if (aval.dtype === 'bool') return value !== 0;
    return aval.dtype === 'float32' ? value : BigInt(Math.trunc(value));
  }
}

/** A primitive (core.Primitive): one object per primitive, so it keys dicts (`registry[lax.exp_p]`). `jit`: a nested jitted call. */
export class PyPrimitive extends PyNativeObject {
  readonly typeName = 'Primitive';
  readonly pyClass = CLASSES.Primitive;
  readonly hashable = true;
  constructor(readonly prim: Prim | 'jit') {
    super();
  }
  get multipleResults(): boolean {
    return this.prim === 'jit' || isControl(this.prim) || this.prim === 'sort';
  }
  get name(): string {
    return jaxPrimName(this.prim);
  }
}
const primitives = new Map<Prim | 'jit', PyPrimitive>();
export function primitiveObject(prim: Prim | 'jit'): PyPrimitive {
  let p = primitives.get(prim);
  if (!p) primitives.set(prim, (p = new PyPrimitive(prim)));
  return p;
}

/** A nested jit call as its jaxpr shows it: one `jit` equation over the call's equations. */
interface JitGroup {
  name: string;
  func: Func;
}

/** One equation (core.JaxprEqn). */
export class PyJaxprEqn extends PyNativeObject {
  readonly typeName = 'JaxprEqn';
  readonly pyClass = CLASSES.JaxprEqn;
  readonly hashable = true;
  constructor(
    /** The equation, or the nested jit call it stands for. */
    readonly eqn: Eqn | JitGroup,
    readonly invars: PyList,
    readonly outvars: PyList,
  ) {
    super();
  }
  get primitive(): PyPrimitive {
    return primitiveObject('func' in this.eqn ? 'jit' : this.eqn.prim);
  }
}

/** An open jaxpr (core.Jaxpr): its variables are made once, so equations and outvars share them. */
export class PyJaxpr extends PyNativeObject {
  readonly typeName = 'Jaxpr';
  readonly pyClass = CLASSES.Jaxpr;
  readonly hashable = true;
  private vars = new Map<number, PyJaxprVar>();
  private view: JaxprView;
  private built: { invars: PyList; outvars: PyList; constvars: PyList; eqns: PyList } | null = null;
  constructor(
    readonly func: Func,
    readonly constCount: number,
    /** The shardings its types show (traced over Explicit mesh axes). */
    readonly types?: JaxprTypes,
  ) {
    super();
    this.view = jaxprView(func, constCount);
  }
  get text(): string {
    return printJaxpr(this.func, this.constCount, this.types);
  }
  private atom(a: Atom): PyValue {
    if (a.kind === 'lit') return new PyJaxprLiteral(a);
    let v = this.vars.get(a.id);
    if (!v) this.vars.set(a.id, (v = new PyJaxprVar(a)));
    return v;
  }
  parts(): { invars: PyList; outvars: PyList; constvars: PyList; eqns: PyList } {
    if (!this.built) {
      const { consts, params, eqns, results } = this.view;
      const invars = new PyList(params.map((p) => this.atom(p)));
      const constvars = new PyList(consts.map((p) => this.atom(p)));
      const eqnObjs = new PyList(groupJitCalls(eqns, this.view.resolve).map((e) => ('func' in e
        ? new PyJaxprEqn(e, new PyList(e.func.params.map((a) => this.atom(a))), new PyList(e.func.results.map((o) => this.atom(o))))
        : new PyJaxprEqn(e, new PyList(e.inputs.map((a) => this.atom(a))), new PyList(e.outputs.map((o) => this.atom(o)))))));
      this.built = { invars, constvars, eqns: eqnObjs, outvars: new PyList(results.map((r) => this.atom(r))) };
    }
    return this.built;
  }
}

/**
 * The equations with each nested jit call (Eqn.calls, the printer's `jit`
 * equations) as one group: its jaxpr takes the values it reads from outside
 * (closed over, first) and the call's arguments.
 */
function groupJitCalls(eqns: Eqn[], resolve: (a: Atom) => Atom): (Eqn | JitGroup)[] {
  const out: (Eqn | JitGroup)[] = [];
  for (let i = 0; i < eqns.length;) {
    const call = eqns[i]!.calls?.[0];
    if (!call) {
      out.push(eqns[i++]!);
      continue;
    }
    let j = i;
    while (j < eqns.length && eqns[j]!.calls?.[0] === call) j++;
    const run = eqns.slice(i, j).map((e) => ({ ...e, calls: e.calls!.slice(1) }));
    i = j;
    const defined = new Set(run.flatMap((e) => e.outputs.map((o) => o.id)));
    const outs = call.outputs.map(resolve);
    const ins = call.inputs.map(resolve);
    if (outs.some((o) => o.kind !== 'var' || !defined.has(o.id)) || ins.some((a) => a.kind !== 'var')) {
      out.push(...run);
      continue;
    }
    const inIds = new Set(ins.map((a) => (a as Var).id));
    const consts: Var[] = [];
    for (const e of run) for (const a of e.inputs) if (a.kind === 'var' && !defined.has(a.id) && !inIds.has(a.id) && !consts.some((c) => c.id === a.id)) consts.push(a);
    out.push({ name: call.name, func: { name: call.name, params: [...consts, ...(ins as Var[])], eqns: run, results: outs } });
  }
  return out;
}

/** What jax.make_jaxpr(f)(*args) returns (core.ClosedJaxpr): the jaxpr and the captured arrays it closes over (`consts`). */
export class PyClosedJaxpr extends PyNativeObject {
  readonly typeName = 'ClosedJaxpr';
  readonly pyClass = CLASSES.ClosedJaxpr;
  readonly hashable = true;
  readonly jaxpr: PyJaxpr;
  constructor(
    func: Func,
    readonly consts: (HostArray | Tracer)[] = [],
    types?: JaxprTypes,
  ) {
    super();
    this.jaxpr = new PyJaxpr(func, consts.length, types);
  }
  get text(): string {
    return this.jaxpr.text;
  }
}

// ------------------------------------------------------------ parameters as Python values

/** The order of the parameters JAX gives a primitive (jaxts's IR omits some: JAX's default, None, is shown). */
const JAX_PARAM_ORDER: Partial<Record<Prim, string[]>> = {
  broadcast_in_dim: ['shape', 'broadcast_dimensions', 'sharding'],
  dot_general: ['dimension_numbers', 'precision', 'preferred_element_type', 'out_sharding'],
  reduce_sum: ['axes', 'out_sharding'],
  reduce_max: ['axes', 'out_sharding'],
  reduce_min: ['axes', 'out_sharding'],
  reduce_prod: ['axes', 'out_sharding'],
  convert_element_type: ['new_dtype', 'weak_type', 'sharding'],
  reshape: ['new_sizes', 'dimensions', 'sharding'],
  iota: ['dtype', 'shape', 'dimension', 'sharding'],
  transpose: ['permutation'],
  mul: ['out_dtype'],
  // JAX's transcendental functions take an accuracy (None: the default)
  ...Object.fromEntries((['exp', 'exp2', 'log', 'log1p', 'expm1', 'tanh', 'logistic', 'sin', 'cos', 'tan', 'sqrt', 'rsqrt'] as const).map((p) => [p, ['accuracy']])),
  squeeze: ['dimensions'],
};
const DTYPE_PARAMS = new Set(['dtype', 'new_dtype', 'preferred_element_type']);
const DTYPES = new Set<string>(['float32', 'float64', 'int32', 'int64', 'uint32', 'bool']);

/** Python values made from IR parameters, and the IR values they stand for (bind takes them back). */
const paramOrigin = new WeakMap<object, unknown>();

function paramPy(key: string, v: unknown): PyValue {
  let out: PyValue;
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') {
    if (typeof v === 'string' && DTYPE_PARAMS.has(key) && DTYPES.has(v)) out = new PyDType(v as PyDType['name']);
    else return v;
  } else if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  else if (Array.isArray(v)) out = new PyTuple(v.map((x) => paramPy(key, x)));
  else if (typeof v === 'object' && 'eqns' in v && 'params' in v) out = new PyClosedJaxpr(v as Func);
  else if (typeof v === 'object' && 'contract' in v && 'batch' in v) {
    // dot_general's dimension numbers: ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))
    const d = v as { contract: number[][]; batch: number[][] };
    out = new PyTuple([paramPy(key, d.contract), paramPy(key, d.batch)]);
  } else if (typeof v === 'object') out = new PyTuple(Object.values(v as Record<string, unknown>).map((x) => paramPy(key, x)));
  else return String(v);
  paramOrigin.set(out, v);
  return out;
}

/** An equation's parameters as JAX's `eqn.params` dict. */
function paramsDict(e: Eqn): PyDict {
  const d = new PyDict();
  const order = JAX_PARAM_ORDER[e.prim as Prim] ?? [];
  for (const k of [...order, ...Object.keys(e.params).filter((k) => !order.includes(k))]) d.set(k, paramPy(k, e.params[k]));
  return d;
}

/** A parameter given to `bind` back as the IR's value. */
function paramIr(v: PyValue, span: Span): unknown {
  if (v !== null && typeof v === 'object' && paramOrigin.has(v)) return paramOrigin.get(v);
  if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyTuple || v instanceof PyList) return v.items.map((x) => paramIr(x, span));
  if (v instanceof PyDType) return v.name;
  if (v instanceof PyClosedJaxpr) return v.jaxpr.func;
  throw new CompileError(`jaxts: a primitive parameter of type ${typeName(v)} is not supported`, span);
}

// ------------------------------------------------------------ bind

/** `prim.bind(*args, **params)`: the primitive applied in the current trace (eagerly at host level). */
function bindPrimitive(ip: Interp, p: PyPrimitive, c: CallArgs): PyValue {
  if (p.prim === 'jit') {
    // a nested jit call: its jaxpr evaluated on the arguments (inlined, as jaxts inlines nested jits)
    const j = c.kwargs.get('jaxpr');
    if (!(j instanceof PyClosedJaxpr)) throw new CompileError("TypeError: jit.bind() needs the jaxpr= of the call (a ClosedJaxpr)", c.span);
    return evalJaxpr(ip, j.jaxpr.func, [...j.consts], c.args, c.span);
  }
  const prim = p.prim;
  const ops = ip.ops;
  const params: Record<string, unknown> = {};
  for (const [k, v] of c.kwargs) params[k] = paramIr(v, c.span);
  // operands: arrays as they are; Python scalars (literals) take the first array's dtype, as JAX's weak types do
  const arrays = c.args.filter(isArray);
  const elementwise = PRIMS[prim].elementwise === true;
  const dtype = arrays.length && elementwise ? ops.aval(arrays[0]!, c.span).dtype : undefined;
  let atoms = c.args.map((a) => (isArray(a) ? ops.atom(a, c.span) : ops.asArray(a, c.span, dtype).atom));
  if (elementwise && atoms.length > 1) {
    // a rank-0 literal or a size-1 axis broadcasts, as in JAX's jaxprs
    const shape = atoms.map((a) => a.aval.shape).reduce((s, t) => broadcastShapes(s, t, c.span, prim));
    atoms = atoms.map((a) => {
      const out = ops.broadcastTo(a, shape, c.span);
      // an operand's implicit broadcast, which the jaxpr shows as JAX's does (a rank-0 literal stays one)
      if (out !== a) ip.trace().builder.eqns.at(-1)!.operandBroadcast = true;
      return out;
    });
  }
  if (p.multipleResults) return new PyList(ops.bindN(prim, atoms, params, c.span).map((a) => ops.tracer(a)));
  return ops.tracer(ops.bind(prim, atoms, params, c.span));
}

/** The jaxpr's equations bound again, in order, on `args` (then `consts` for its constvars): a list of its outputs. */
function evalJaxpr(ip: Interp, f: Func, consts: PyValue[], args: PyValue[], span: Span): PyValue {
  const nargs = f.params.length - consts.length;
  if (args.length !== nargs) throw new CompileError(`TypeError: the jaxpr takes ${nargs} arguments, got ${args.length}`, span);
  const env = new Map<number, Atom>();
  f.params.forEach((p, i) => env.set(p.id, ip.ops.atom(i < nargs ? args[i]! : consts[i - nargs]!, span)));
  const read = (a: Atom): Atom => (a.kind === 'lit' ? a : env.get(a.id)!);
  for (const e of f.eqns) {
    let ins = e.inputs.map(read);
    // a jaxpr's elementwise operation broadcasts a rank-0 or size-1 operand (JAX's implicit broadcasting)
    if (PRIMS[e.prim].elementwise && e.outputs.length === 1) ins = ins.map((a) => ip.ops.broadcastTo(a, e.outputs[0]!.aval.shape, span));
    const outs = e.outputs.length === 1 && !isControl(e.prim) && e.prim !== 'sort'
      ? [ip.ops.bind(e.prim, ins, e.params, span)]
      : ip.ops.bindN(e.prim, ins, e.params, span);
    e.outputs.forEach((o, i) => env.set(o.id, outs[i]!));
  }
  return new PyList(f.results.map((r) => ip.ops.tracer(read(r))));
}

/** jax.core.eval_jaxpr(jaxpr, consts, *args): a Jaxpr (or ClosedJaxpr's) evaluated by binding its equations. */
export function evalJaxprCall(ip: Interp, c: CallArgs): PyValue {
  const j = c.args[0];
  const jaxpr = j instanceof PyClosedJaxpr ? j.jaxpr : j;
  if (!(jaxpr instanceof PyJaxpr)) throw new CompileError(`TypeError: eval_jaxpr() needs a Jaxpr, got ${j === undefined ? 'nothing' : typeName(j)}`, c.span);
  const consts = c.args[1] === undefined ? [] : iterate(ip, c.args[1], c.span);
  if (consts.length !== jaxpr.constCount) throw new CompileError(`TypeError: the jaxpr has ${jaxpr.constCount} constvars, got ${consts.length} consts`, c.span);
  return evalJaxpr(ip, jaxpr.func, consts, c.args.slice(2), c.span);
}

// ------------------------------------------------------------ attributes and text

/** An attribute of a jaxpr object (undefined: not one of them, or no such attribute). */
export function jaxprAttr(ip: Interp, obj: PyValue, name: string): PyValue | undefined {
  if (obj instanceof PyClosedJaxpr) {
    switch (name) {
      case 'jaxpr': return obj.jaxpr;
      case 'consts': case 'literals': return new PyList([...obj.consts]);
      case 'in_avals': return new PyList(obj.jaxpr.func.params.slice(0, obj.jaxpr.func.params.length - obj.consts.length).map((p) => avalObject(p.aval)));
      case 'out_avals': return new PyList(obj.jaxpr.func.results.map((r) => avalObject(r.aval)));
      case 'eqns': return obj.jaxpr.parts()[name];
    }
    return undefined;
  }
  if (obj instanceof PyJaxpr) {
    if (name === 'eqns' || name === 'invars' || name === 'outvars' || name === 'constvars') return obj.parts()[name];
    // jaxts's programs have no effects JAX tracks (debug prints are not equations here)
    if (name === 'effects') return new PySet('set');
    return undefined;
  }
  if (obj instanceof PyJaxprEqn) {
    switch (name) {
      case 'invars': return obj.invars;
      case 'outvars': return obj.outvars;
      case 'primitive': return obj.primitive;
      case 'params': {
        if (!('func' in obj.eqn)) return paramsDict(obj.eqn);
        const d = new PyDict();
        d.set('jaxpr', new PyClosedJaxpr(obj.eqn.func));
        d.set('name', obj.eqn.name);
        return d;
      }
      case 'effects': return new PySet('frozenset');
    }
    return undefined;
  }
  if (obj instanceof PyJaxprVar) return name === 'aval' ? avalObject(obj.v.aval) : undefined;
  if (obj instanceof PyShapedArray) {
    const a = obj.aval;
    switch (name) {
      case 'shape': return new PyTuple(a.shape.map((n) => BigInt(n)));
      case 'dtype': return paramPy('dtype', a.dtype);
      case 'ndim': return BigInt(a.shape.length);
      case 'size': return BigInt(a.shape.reduce((x, y) => x * y, 1));
      case 'weak_type': return a.weak === true;
    }
    return undefined;
  }
  if (obj instanceof PyJaxprLiteral) return name === 'val' ? obj.val : name === 'aval' ? avalObject(obj.lit.aval) : undefined;
  if (obj instanceof PyPrimitive) {
    switch (name) {
      case 'name': return obj.name;
      case 'multiple_results': return obj.multipleResults;
      case 'bind': return new PyBoundMethod(obj, 'bind', (c) => bindPrimitive(ip, obj, c));
    }
    return undefined;
  }
  return undefined;
}

const SHAPED_ARRAY = coreClass('ShapedArray');

/** An abstract value (core.ShapedArray): its shape, dtype and text. */
export class PyShapedArray extends PyNativeObject {
  readonly typeName = 'ShapedArray';
  readonly pyClass = SHAPED_ARRAY;
  readonly hashable = true;
  constructor(readonly aval: AVal) {
    super();
  }
}
export const avalObject = (a: AVal): PyShapedArray => new PyShapedArray(a);

/** str()/repr() of a jaxpr object (null: not one of them). */
export function jaxprText(v: PyValue, repr = true): Text | null {
  // str() of an abstract value is its short form, `~` marking a weak type
  if (v instanceof PyShapedArray && !repr) return Text.of(`${v.aval.weak ? '~' : ''}${avalStr(v.aval)}`);
  if (v instanceof PyClosedJaxpr || v instanceof PyJaxpr) return Text.of(v.text);
  if (v instanceof PyJaxprVar) return Text.of(`Var(id=${v.displayId}):${avalStr(v.v.aval)}`);
  if (v instanceof PyJaxprLiteral) return Text.of(`Literal(${literalValText(v.lit)})`);
  if (v instanceof PyPrimitive) return Text.of(v.name);
  if (v instanceof PyShapedArray) return Text.of(`ShapedArray(${avalStr(v.aval)}${v.aval.weak ? ', weak_type=True' : ''})`);
  if (v instanceof PyJaxprEqn) return Text.of('func' in v.eqn ? `${v.outvars.items.map((o) => (o instanceof PyJaxprVar ? avalStr(o.v.aval) : '')).join(' ')} = jit[name=${v.eqn.name}]` : printEqn(v.eqn));
  return null;
}

/** A literal's value as JAX's Literal repr shows it: a weakly typed Python scalar is a TypedInt/TypedFloat. */
function literalValText(l: Lit): string {
  const d = l.aval.dtype;
  if (d === 'bool') return l.value ? 'True' : 'False';
  const isFloat = d === 'float32';
  const s = isFloat ? pyFloat(Math.fround(l.value)) : String(Math.trunc(l.value));
  if (!l.aval.weak) return s;
  return `${isFloat ? 'TypedFloat' : 'TypedInt'}(${s}, dtype=${d})`;
}

// ------------------------------------------------------------ modules

/** `lax.<name>_p` for every primitive of the IR. */
export function primitiveAttrs(): Record<string, PyValue> {
  return Object.fromEntries(PRIM_NAMES.map((p) => [`${p}_p`, primitiveObject(p)]));
}

/** jax.core (what JAX 0.10 keeps there): eval_jaxpr and ShapedArray. */
export function coreModule(ip: Interp): PyModule {
  return builtinModule('jax.core', { eval_jaxpr: (c) => evalJaxprCall(ip, c), ShapedArray: SHAPED_ARRAY });
}

/** jax.extend.core: the classes (for isinstance and `type(v) is core.Literal`) and jaxpr_as_fun. */
export function extendCoreModule(ip: Interp): PyModule {
  return builtinModule('jax.extend.core', {
    ...CLASSES,
    jaxpr_as_fun: (c) => {
      const cj = c.args[0];
      if (!(cj instanceof PyClosedJaxpr)) throw new CompileError('TypeError: jaxpr_as_fun() needs a ClosedJaxpr', c.span);
      return new PyBuiltin('jaxpr_as_fun', (call) => evalJaxpr(ip, cj.jaxpr.func, [...cj.consts], call.args, call.span));
    },
  });
}

/** jax._src.util.safe_map: map that checks its arguments have one length; returns a list. */
export function safeMap(ip: Interp, c: CallArgs): PyValue {
  const [fn, ...seqs] = c.args;
  if (fn === undefined) throw new CompileError('TypeError: safe_map() missing 1 required positional argument', c.span);
  const lists = seqs.map((s) => iterate(ip, s, c.span));
  const n = lists[0]?.length ?? 0;
  lists.forEach((l, i) => {
    if (l.length !== n) throw new CompileError(`AssertionError: length mismatch: ${lists.map((x) => x.length).join(', ')}`, c.span, [`argument ${i + 1}`]);
  });
  const out: PyValue[] = [];
  for (let i = 0; i < n; i++) out.push(ip.call(fn, { args: lists.map((l) => l[i]!), kwargs: new Map(), span: c.span }));
  return new PyList(out);
}
