// JAX's ahead-of-time stages on a jitted function: `jit(f).trace(*args)`
// (a Traced, whose `.jaxpr` is the ClosedJaxpr make_jaxpr would show),
// `.lower(*args)` (a Lowered) and `Lowered.compile()` (a Compiled, called as
// the jitted function itself). jaxts compiles the whole program ahead of
// time anyway, so the stages are views of the same trace. `Compiled.as_text()`
// is jaxts's compiled (per-device, partitioned) program in HLO's notation;
// the Lowered stage's StableHLO and the cost analysis are clear errors.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { evalShape } from './eval_shape.js';
import { argAval, makeJaxprOf } from './lib_debug.js';
import { inputFormats, rowMajorFormats } from './lib_layout.js';
import { takeDebugCalls } from './debug_prints.js';
import { dimsOf, meshOf, meshShape } from './shardings.js';
import { flatten } from './transforms.js';
import { partition } from '../passes/spmd.js';
import { printHlo } from '../ir/hlo_text.js';
import {
  HostArray, NdArray, NpScalar, PyBuiltin, PyObject, PyPartial, PyTransformed, PyTuple, PyList, Trace, Tracer, isArray, type CallArgs, type PyValue,
} from './values.js';

/** Lowered.compile(): the compiled stage, called as the jitted function itself. */
export class PyCompiledStage extends PyBuiltin {
  constructor(
    readonly jitted: PyTransformed,
    readonly lowered: CallArgs,
    run: (c: CallArgs) => PyValue,
  ) {
    super('Compiled', run);
  }
}

/** jit(f).trace(*args): the traced stage. */
export class PyTracedStage extends PyObject {
  readonly typeName = 'Traced';
  constructor(
    readonly fn: PyTransformed,
    readonly call: CallArgs,
  ) {
    super();
  }
}

/** jit(f).lower(*args) or Traced.lower(): the lowered stage. */
export class PyLoweredStage extends PyObject {
  readonly typeName = 'Lowered';
  constructor(
    readonly fn: PyTransformed,
    readonly call: CallArgs,
  ) {
    super();
  }
}

/** Attributes of a jitted function for the AOT stages (undefined: not one of them). */
export function jitStageAttr(ip: Interp, fn: PyTransformed, name: string): PyValue | undefined {
  if (fn.transform !== 'jit') return undefined;
  if (name === 'trace') return new PyBuiltin('trace', (c) => new PyTracedStage(fn, c));
  if (name === 'lower') return new PyBuiltin('lower', (c) => new PyLoweredStage(fn, c));
  if (name === 'eval_shape') return new PyBuiltin('eval_shape', (c) => evalShape(ip, { ...c, args: [fn, ...c.args] }));
  return undefined;
}

/** Attributes of the stage objects (undefined: not a stage). */
export function stageAttr(ip: Interp, obj: PyValue, name: string, span: A.Span): PyValue | undefined {
  if (obj instanceof PyTracedStage) {
    switch (name) {
      case 'jaxpr':
        return jaxprOf(ip, obj.fn, obj.call);
      case 'lower':
        return new PyBuiltin('lower', () => new PyLoweredStage(obj.fn, obj.call));
      case 'fun_name':
        return obj.fn.name;
    }
    throw new CompileError(`AttributeError: 'Traced' object has no attribute '${name}'`, span);
  }
  if (obj instanceof PyLoweredStage) {
    switch (name) {
      case 'compile':
        // the compiled stage runs the jitted function (its trace is cached under the same types)
        return new PyBuiltin('compile', () => new PyCompiledStage(obj.fn, obj.call, (c) => ip.call(obj.fn, withStatics(obj.fn, obj.call, c))));
      case 'as_text':
      case 'compiler_ir':
      case 'cost_analysis':
        return new PyBuiltin(name, (c) => {
          throw new CompileError(`NotImplementedError: Lowered.${name}() shows XLA's program, which jaxts does not make (see \`jaxts compile --dump ir\` or \`--dump kernels\`)`, c.span);
        });
    }
    throw new CompileError(`AttributeError: 'Lowered' object has no attribute '${name}'`, span);
  }
  if (obj instanceof PyCompiledStage) {
    switch (name) {
      case 'as_text':
        return new PyBuiltin('as_text', () => compiledText(ip, obj.jitted, obj.lowered));
      case 'input_formats':
        return inputFormats(ip, obj.lowered.args, obj.lowered.kwargs, leafSharding, span);
      case 'output_formats':
        return rowMajorFormats(ip, evalShape(ip, { ...obj.lowered, args: [obj.jitted, ...obj.lowered.args] }), () => null, span);
      case 'cost_analysis':
      case 'memory_analysis':
        return new PyBuiltin(name, (c) => {
          throw new CompileError(`NotImplementedError: Compiled.${name}() is XLA's analysis, which jaxts does not make`, c.span);
        });
    }
    throw new CompileError(`AttributeError: 'Compiled' object has no attribute '${name}'`, span);
  }
  return undefined;
}

/** The sharding an argument of a compiled stage has (null: the default device's). */
const leafSharding = (leaf: PyValue): PyValue => (leaf instanceof HostArray ? leaf.sharding : null);

/**
 * Compiled.as_text(): `fn` traced on the stage's arguments and, when they are
 * laid out over a mesh, partitioned as the call will be (passes/spmd.ts), in
 * HLO's notation (ir/hlo_text.ts).
 */
function compiledText(ip: Interp, fn: PyTransformed, call: CallArgs): string {
  const { nums, names } = staticsOf(fn);
  const t = new Trace(fn.name, 'jit', null);
  const dyn = call.args.map((a, i) => (nums.has(i) ? null : a));
  const dynKw = [...call.kwargs].filter(([k]) => !names.has(k));
  const flat = flatten(new PyTuple([...dyn, ...dynKw.map(([, v]) => v)]));
  const isLeaf = (l: PyValue): boolean => isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean';
  const hosts: (HostArray | null)[] = [];
  const params = flat.leaves.map((l) => {
    if (!isLeaf(l)) return l;
    hosts.push(l instanceof HostArray ? l : l instanceof Tracer ? l.materialized : null);
    return new Tracer(t, t.builder.addParam(argAval(l, call.span)));
  });
  const rebuilt = (ip.withTrace(t, () => flat.unflatten(params)) as PyTuple).items;
  const args = call.args.map((a, i) => (nums.has(i) ? a : rebuilt[i]!));
  const kwargs = new Map([...call.kwargs].map(([k, v]) => [k, names.has(k) ? v : rebuilt[call.args.length + dynKw.findIndex(([n]) => n === k)]!]));
  const results = ip.withTrace(t, () => flatten(ip.call(fn.fn, { args, kwargs, span: call.span })).leaves.map((l) => ip.ops.asArray(l, call.span).atom));
  takeDebugCalls(t);
  const func = t.builder.finish(results);
  const captured = t.captured.map((c) => (c instanceof HostArray ? c : c instanceof Tracer ? c.materialized : null));
  const all = [...hosts, ...captured];
  const mesh = meshOf(all.filter((h): h is HostArray => h !== null), call.span);
  const moduleName = `jit_${fn.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  if (!mesh) return printHlo(func, moduleName, null);
  const shape = meshShape(mesh);
  const fixed = all.map((h) => (h?.sharding ? dimsOf(h.sharding, h.aval.shape, call.span) : null));
  return printHlo(partition(func, shape, fixed).local, moduleName, shape);
}

/** The static arguments of `fn` (static_argnums, static_argnames). */
function staticsOf(fn: PyTransformed): { nums: Set<number>; names: Set<string> } {
  const list = (v: PyValue | undefined): PyValue[] => (v === undefined || v === null ? [] : v instanceof PyTuple || v instanceof PyList ? v.items : [v]);
  return { nums: new Set(list(fn.options.get('static_argnums')).map(Number)), names: new Set(list(fn.options.get('static_argnames')).map(String)) };
}

/** A Compiled stage's call: its (dynamic) arguments, with the static ones the stage was lowered with put back. */
function withStatics(fn: PyTransformed, lowered: CallArgs, c: CallArgs): CallArgs {
  const { nums, names } = staticsOf(fn);
  const args: PyValue[] = [];
  let k = 0;
  for (let i = 0; i < lowered.args.length; i++) args.push(nums.has(i) ? lowered.args[i]! : c.args[k++]!);
  args.push(...c.args.slice(k));
  const kwargs = new Map([...[...lowered.kwargs].filter(([n]) => names.has(n)), ...c.kwargs]);
  return { args, kwargs, span: c.span };
}

/** The jaxpr of `fn` traced on the stage's arguments, its static arguments fixed (as jit's trace shows it). */
function jaxprOf(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const staticNames = staticsOf(fn).names;
  const fixed = new Map([...call.kwargs].filter(([k]) => staticNames.has(k)));
  const target = fixed.size ? new PyPartial(fn.fn, [], fixed) : fn.fn;
  const nums = fn.options.get('static_argnums') ?? null;
  const make = makeJaxprOf(ip, { args: [target], kwargs: new Map(nums === null ? [] : [['static_argnums', nums]]), span: call.span });
  return ip.call(make, { args: call.args, kwargs: new Map([...call.kwargs].filter(([k]) => !staticNames.has(k))), span: call.span });
}
