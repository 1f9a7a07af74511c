// Primitives a program defines (jax.extend.core.Primitive, the "How JAX primitives work"
// page): `def_impl`, `def_abstract_eval`, `mlir.register_lowering` (rules written with
// `hlo.AddOp`-style ops, mapped to lax), `ad.primitive_jvps` / `ad.defjvp`,
// `ad.primitive_transposes` and `batching.primitive_batchers`. `bind` on concrete values
// calls the impl (as JAX's eager evaluation does); on traced values it calls the
// abstract evaluation rule and records one equation: a custom_jvp_call whose `call` is
// the primitive's lowering (or impl) traced over lax, whose `jvp` is its registered JVP
// rule traced when a differentiation will need it, and whose `prim_name` makes jaxprs
// show it as JAX does (`multiply_add a b c`). Differentiating it without a JVP rule, or
// evaluating it without an impl, raises JAX's NotImplementedError.
import { CompileError } from '../common/diagnostics.js';
import type { AVal, Func } from '../ir/types.js';
import { lit } from '../ir/builder.js';
import type * as A from '../parser/ast.js';
import { traceFn } from './custom_rules.js';
import { isTransformTracer } from './format.js';
import type { Interp } from './interp.js';
import { avalObject, PyShapedArray } from './jaxpr_objects.js';
import { binop } from './expr.js';
import { builtinModule, dtypeArg } from './modules.js';
import { flatten, pendingLoweringErrors, underDifferentiation } from './transforms.js';
import {
  PyBoundMethod, PyBuiltin, PyClass, PyDict, PyInstance, PyList, PyModule, PyNativeMethod, PyTuple, PyUserClass, Trace, Tracer, typeName, type CallArgs, type PyValue,
} from './values.js';

const noKw = (): Map<string, PyValue> => new Map();

/** The registries and classes of one compilation. */
interface UserPrims {
  primitive: PyUserClass;
  jvps: PyDict;
  transposes: PyDict;
  batchers: PyDict;
  lowerings: Map<PyInstance, PyValue>;
}
const perInterp = new WeakMap<Interp, UserPrims>();

/** `core.ShapedArray(shape, dtype)`. */
export function shapedArray(c: CallArgs): PyShapedArray {
  const shape = c.args[0] ?? c.kwargs.get('shape') ?? null;
  const dtype = c.args[1] ?? c.kwargs.get('dtype') ?? null;
  if (!(shape instanceof PyTuple || shape instanceof PyList) || !shape.items.every((d) => typeof d === 'bigint')) {
    throw new CompileError(`TypeError: ShapedArray: shape must be a tuple of ints, got ${typeName(shape)}`, c.span);
  }
  const dt = dtypeArg(dtype ?? undefined, c.span);
  if (!dt) throw new CompileError(`TypeError: ShapedArray: dtype must be a dtype, got ${typeName(dtype)}`, c.span);
  return avalObject({ shape: shape.items.map((d) => Number(d)), dtype: dt });
}

function userPrims(ip: Interp, lax: PyModule): UserPrims {
  let u = perInterp.get(ip);
  if (u) return u;
  const primitive = new PyUserClass('Primitive', [], 'jax._src.core');
  u = { primitive, jvps: new PyDict(), transposes: new PyDict(), batchers: new PyDict(), lowerings: new Map() };
  perInterp.set(ip, u);
  const self = u;
  primitive.attrs.set('__init__', new PyNativeMethod('__init__', (s, c) => {
    const name = c.args[0] ?? c.kwargs.get('name');
    if (typeof name !== 'string') throw new CompileError(`TypeError: Primitive() needs a name (a str), got ${typeName(name ?? null)}`, c.span);
    const o = s as PyInstance;
    o.attrs.set('name', name);
    o.attrs.set('multiple_results', false);
    o.attrs.set('impl', null);
    o.attrs.set('abstract_eval', null);
    return null;
  }));
  primitive.attrs.set('__repr__', new PyNativeMethod('__repr__', (s) => (s as PyInstance).attrs.get('name')!));
  const setter = (attr: string): PyNativeMethod =>
    new PyNativeMethod(`def_${attr}`, (s, c) => {
      (s as PyInstance).attrs.set(attr, c.args[0] ?? null);
      return c.args[0] ?? null;
    });
  primitive.attrs.set('def_impl', setter('impl'));
  primitive.attrs.set('def_abstract_eval', setter('abstract_eval'));
  primitive.attrs.set('bind', new PyNativeMethod('bind', (s, c) => bindUser(ip, self, lax, s as PyInstance, c)));
  return u;
}

const nameOf = (p: PyInstance): string => p.attrs.get('name') as string;
/** `prim.bind`, bound. */
const bindOf = (p: PyInstance): PyValue => {
  const m = p.cls.lookup('bind') as PyNativeMethod;
  return new PyBoundMethod(p, 'bind', (c) => m.fn(p, c));
};

/** `prim.bind(*args)`. */
function bindUser(ip: Interp, u: UserPrims, lax: PyModule, p: PyInstance, c: CallArgs): PyValue {
  const span = c.span;
  const name = nameOf(p);
  if (c.kwargs.size) throw new CompileError(`NotImplementedError: parameters of a user-defined primitive's bind (${[...c.kwargs.keys()].join(', ')}) are not supported by jaxts`, span);
  const traced = c.args.some((a) => isTransformTracer(a) || (a instanceof Tracer && !ip.atHost));
  if (!traced) {
    // eager evaluation: the impl, on the values themselves
    const impl = p.attrs.get('impl') ?? null;
    if (impl === null) throw new CompileError(`NotImplementedError: Evaluation rule for '${name}' not implemented`, span);
    return ip.call(impl, { args: c.args, kwargs: noKw(), span });
  }
  const avals = c.args.map((a) => ip.ops.aval(a, span));
  // the abstract evaluation rule, on ShapedArrays (its output type is the equation's)
  const absEval = p.attrs.get('abstract_eval') ?? null;
  if (absEval === null) throw new CompileError(`NotImplementedError: Abstract evaluation for '${name}' not implemented`, span);
  const outAval = ip.call(absEval, { args: avals.map((a) => avalObject(a)), kwargs: noKw(), span });
  if (!(outAval instanceof PyShapedArray)) throw new CompileError(`NotImplementedError: an abstract evaluation rule returning ${typeName(outAval)} (not one ShapedArray) is not supported by jaxts`, span);
  const strip = (a: AVal): AVal => ({ shape: a.shape, dtype: a.dtype });
  const want = outAval.aval;
  // a result of the abstract evaluation's type (a weakly typed lax result made strong, as its ShapedArray says)
  const typed = (l: PyValue): PyValue => {
    const a = ip.ops.asArray(l, span).atom;
    if (a.aval.weak !== true || want.weak === true || a.aval.dtype !== want.dtype) return l;
    return ip.ops.tracer(ip.ops.bind('convert_element_type', [a], { new_dtype: want.dtype, weak_type: false }, span));
  };
  // the computation: the lowering rule (hlo ops as lax), else the impl, traced on the operand types
  const lowering = u.lowerings.get(p);
  const impl = p.attrs.get('impl') ?? null;
  let noLowering = false;
  if (lowering === undefined) {
    const missing = new CompileError(`NotImplementedError: MLIR translation rule for primitive '${name}' not found for platform cpu`, span);
    // under jit, JAX fails when it compiles the traced function (the jit call raises after tracing)
    let staged: Trace | null = null;
    for (let t: Trace | null = ip.trace(); t; t = t.parent) if (t.kind === 'jit') staged = t;
    if (impl === null) throw missing;
    if (staged && !pendingLoweringErrors.has(staged)) pendingLoweringErrors.set(staged, missing);
    noLowering = staged !== null;
  }
  const ctx = new PyInstance(loweringContextClass);
  const call = closedFunc(traceFn(ip, `${name}_call`, avals, span, (ps) => {
    // (under a jit that will fail to compile it, JAX calls neither: its result stands in as zeros)
    const out = lowering !== undefined
      ? ip.call(lowering, { args: [ctx, ...ps.map((t) => hloValue(t))], kwargs: noKw(), span })
      : noLowering ? ip.ops.tracer(ip.ops.bind('broadcast_in_dim', [lit(0, want.dtype)], { shape: [...want.shape], broadcast_dimensions: [] }, span))
      : ip.call(impl!, { args: ps, kwargs: noKw(), span });
    const leaves = flatten(out).leaves.map((l) => (l instanceof PyInstance && hloValues.has(l) ? hloValues.get(l)! : l));
    if (leaves.length !== 1) throw new CompileError(`NotImplementedError: a user-defined primitive with ${leaves.length} results is not supported by jaxts`, span);
    return leaves.map(typed);
  }), name, span);
  // its JVP rule, traced when a differentiation will apply it
  let jvp: Func | null = null;
  const jvpRule = u.jvps.get(p);
  if (jvpRule !== undefined && underDifferentiation(ip)) {
    jvp = closedFunc(traceFn(ip, `${name}_jvp`, [...avals, ...avals.map(strip)], span, (ps) => {
      const n = avals.length;
      const out = ip.call(jvpRule, { args: [new PyTuple(ps.slice(0, n)), new PyTuple(ps.slice(n))], kwargs: noKw(), span });
      const leaves = flatten(out).leaves;
      if (leaves.length !== 2) throw new CompileError(`TypeError: the JVP rule of '${name}' must return a pair (primal_out, tangent_out)`, span);
      return leaves.map(typed);
    }), name, span);
  }
  const atoms = c.args.map((a) => ip.ops.asArray(a, span).atom);
  const callAval = call.results[0]!.aval;
  if (callAval.dtype !== want.dtype || callAval.shape.join() !== want.shape.join()) {
    throw new CompileError(`TypeError: the lowering of '${name}' gives ${callAval.dtype}[${callAval.shape.join(',')}], its abstract evaluation ${want.dtype}[${want.shape.join(',')}]`, span);
  }
  const outs = ip.trace().builder.bind('custom_jvp_call', atoms, { call, jvp, prim_name: name, batchable: u.batchers.get(p) !== undefined, transposable: u.transposes.get(p) !== undefined }, span);
  return ip.ops.tracer(outs[0]!);
}

function closedFunc(t: { func: Func; captured: unknown[] }, name: string, span: A.Span): Func {
  if (t.captured.length) throw new CompileError(`NotImplementedError: a rule of primitive '${name}' that uses arrays other than its operands is not supported by jaxts`, span);
  return t.func;
}

// ------------------------------------------------------------ lowering rules: hlo ops as lax

/** A lowering rule's operand or result (an mlir.ir.Value): here a traced array. */
const hloValues = new WeakMap<PyInstance, PyValue>();
const HLO_VALUE = new PyUserClass('Value', [], 'jaxlib.mlir.ir');
function hloValue(v: PyValue): PyInstance {
  const o = new PyInstance(HLO_VALUE);
  hloValues.set(o, v);
  return o;
}
const loweringContextClass = new PyUserClass('LoweringRuleContext', [], 'jax._src.interpreters.mlir');

/** hlo.<Op>: the lax function each computes. */
const HLO_OPS: Record<string, string> = {
  AddOp: 'add', SubtractOp: 'sub', MulOp: 'mul', DivOp: 'div', MaxOp: 'max', MinOp: 'min', PowOp: 'pow', RemOp: 'rem',
  NegOp: 'neg', ExpOp: 'exp', LogOp: 'log', SineOp: 'sin', CosineOp: 'cos', TanhOp: 'tanh', SqrtOp: 'sqrt', RsqrtOp: 'rsqrt', AbsOp: 'abs',
  Log1pOp: 'log1p', Expm1Op: 'expm1', LogisticOp: 'logistic', FloorOp: 'floor', CeilOp: 'ceil', SignOp: 'sign',
};

function hloModule(ip: Interp, lax: PyModule): PyModule {
  const value = hloValue;
  const operand = (v: PyValue, span: A.Span): PyValue => {
    if (v instanceof PyInstance && hloValues.has(v)) return hloValues.get(v)!;
    if (v instanceof PyInstance && v.attrs.has('result')) return operand(v.attrs.get('result')!, span);
    throw new CompileError(`TypeError: an hlo op's operand must be an mlir Value, got ${typeName(v)}`, span);
  };
  const entries = Object.entries(HLO_OPS).map(([op, fn]) => {
    const cls = new PyUserClass(op, [], 'jaxlib.mlir.dialects._stablehlo_ops_gen');
    return [op, new PyBuiltin(op, (c) => {
      const f = lax.attrs.get(fn);
      if (f === undefined) throw new CompileError(`NotImplementedError: hlo.${op} is not supported by jaxts`, c.span);
      const out = ip.call(f, { args: c.args.map((a) => operand(a, c.span)), kwargs: noKw(), span: c.span });
      const o = new PyInstance(cls);
      const r = value(out);
      o.attrs.set('result', r);
      o.attrs.set('results', new PyList([r]));
      return o;
    })] as const;
  });
  return builtinModule('jax._src.lib.mlir.dialects.hlo', Object.fromEntries(entries));
}

// ------------------------------------------------------------ modules

/** The modules of JAX's internals the primitives page imports, by import name. */
export function userPrimModules(ip: Interp, jax: PyModule, lax: PyModule): [string, PyModule][] {
  const u = userPrims(ip, lax);
  const hlo = hloModule(ip, lax);
  const dialects = builtinModule('jax._src.lib.mlir.dialects', { hlo });
  const mlirLib = builtinModule('jax._src.lib.mlir', { dialects });
  const lib = builtinModule('jax._src.lib', { mlir: mlirLib });
  const mlir = builtinModule('jax.interpreters.mlir', {
    register_lowering: (c) => {
      const p = c.args[0];
      if (!(p instanceof PyInstance) || p.cls !== u.primitive) throw new CompileError(`TypeError: register_lowering: expected a Primitive, got ${typeName(p ?? null)}`, c.span);
      u.lowerings.set(p, c.args[1] ?? null);
      return null;
    },
  });
  const zero = new PyUserClass('Zero', [], 'jax._src.ad_util');
  const undefinedPrimal = new PyUserClass('UndefinedPrimal', [], 'jax._src.interpreters.ad');
  const ad = builtinModule('jax.interpreters.ad', {
    Zero: zero as unknown as PyValue,
    UndefinedPrimal: undefinedPrimal as unknown as PyValue,
    is_undefined_primal: (c) => c.args[0] instanceof PyInstance && c.args[0].cls === undefinedPrimal,
    defjvp: (c) => {
      // ad.defjvp(prim, *jvprules): rule i maps (tangent i, *primals) to its part of the output tangent (None: none)
      const [p, ...rules] = c.args;
      if (!(p instanceof PyInstance) || p.cls !== u.primitive) throw new CompileError(`TypeError: defjvp: expected a Primitive, got ${typeName(p ?? null)}`, c.span);
      u.jvps.set(p, new PyBuiltin(`${nameOf(p)}_jvp`, (cc) => {
        const primals = (cc.args[0] as PyTuple).items;
        const tangents = (cc.args[1] as PyTuple).items;
        const out = ip.call(bindOf(p), { args: primals, kwargs: noKw(), span: cc.span });
        let t: PyValue = null;
        rules.forEach((r, i) => {
          if (r === null) return;
          const ti = ip.call(r, { args: [tangents[i]!, ...primals], kwargs: noKw(), span: cc.span });
          t = t === null ? ti : binop(ip, '+', t, ti, cc.span);
        });
        return new PyTuple([out, t]);
      }));
      return null;
    },
  });
  ad.attrs.set('primitive_jvps', u.jvps);
  ad.attrs.set('primitive_transposes', u.transposes);
  const batching = builtinModule('jax.interpreters.batching', {});
  batching.attrs.set('primitive_batchers', u.batchers);
  const interpreters = builtinModule('jax.interpreters', { ad, batching, mlir });
  // jax._src.lax.lax: jax.lax itself; jax._src.api: jax itself
  const srcLax = builtinModule('jax._src.lax', { lax });
  const src = jax.attrs.get('_src') as PyModule;
  for (const [k, v] of [['lax', srcLax], ['api', jax], ['lib', lib]] as const) src.attrs.set(k, v);
  const core = jax.attrs.get('extend') instanceof PyModule ? ((jax.attrs.get('extend') as PyModule).attrs.get('core') as PyModule) : null;
  core?.attrs.set('Primitive', u.primitive);
  const shaped = (jax.attrs.get('core') as PyModule).attrs.get('ShapedArray');
  if (shaped instanceof PyClass) shaped.construct = shapedArray;
  return [
    ['jax.interpreters', interpreters],
    ['jax.interpreters.ad', ad],
    ['jax.interpreters.batching', batching],
    ['jax.interpreters.mlir', mlir],
    ['jax._src.lax', srcLax],
    ['jax._src.lax.lax', lax],
    ['jax._src.api', jax],
    ['jax._src.lib', lib],
    ['jax._src.lib.mlir', mlirLib],
    ['jax._src.lib.mlir.dialects', dialects],
    ['jax._src.lib.mlir.dialects.hlo', hlo],
  ];
}

