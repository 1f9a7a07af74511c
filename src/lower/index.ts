// Lowering entry point: Python AST → host program + array programs.
import { setPrintOptions } from '../../runtime/format/index.js';
import { CompileError } from '../common/diagnostics.js';
import type { HostProgram, HStmt } from '../ir/host.js';
import type { Module } from '../parser/ast.js';
import { checkStatementContext } from '../parser/context.js';
import type { Span } from '../parser/ast.js';
import { arrayAttr } from './array_methods.js';
import { freeVariables, lowerExports, scriptResults } from './exports.js';
import { BreakSignal, ContinueSignal, Interp, isReservedName, ReturnSignal, type Library, type LowerOptions } from './interp.js';
import { jaxprAttr, jaxprText } from './jaxpr_objects.js';
import { userPrimModules } from './user_prims.js';
import { noteModuleFunctions } from './lib_checkpoint.js';
import { jaxModule, jaxSrcModule } from './lib_jax.js';
import { deviceBlocksText } from './shard_map.js';
import { exampleLibrary, preludeSpans } from './lib_example_libraries.js';
import { TQDM_MODULES, tqdmModule } from './lib_tqdm.js';
import { argparseModule } from './lib_argparse.js';
import { hijaxModule } from './lib_hijax.js';
import { layoutModule, rowMajorFormats } from './lib_layout.js';
import { jnpModule } from './lib_jnp.js';
import { laxModule } from './lib_lax.js';
import { nnModule } from './lib_nn.js';
import { numpyModule } from './lib_numpy.js';
import { arrayToPython, installBuiltins, stdlibModules } from './lib_python.js';
import { randomModule } from './lib_random.js';
import { hostScipyModules, scipyModule } from './lib_scipy.js';
import { stdlibExtraModules } from './lib_stdlib.js';
import { richModules } from './lib_rich.js';
import { checkEagerShardings, contextMesh, keySharding, varyingOf, deviceIndex, deviceItems, shardingAttr, shardingModule, shardingText, spmdCall } from './lib_sharding.js';
import { treedefAttr, treedefText, treeModules } from './lib_tree.js';
import { matplotlibModules } from './lib_matplotlib.js';
import { profilerModule } from './lib_profiler.js';
import { execBlock } from './stmt.js';
import { runTimeIndex } from './expr.js';
import { callTransformed } from './transforms.js';
import { jitStageAttr, stageAttr } from './aot.js';
import { callCustom, customAttr } from './custom_rules.js';
import { shapeDtypeAttr, shapeDtypeText } from './eval_shape.js';
import { keyAttr, keyIndex, keyItems, keyText } from './keys.js';
import { runTimeVarTypes } from './host_numpy.js';
import { HostArray, isArray, NeedsStatic, PyBoundMethod, PyDeviceArray, PyKeyArray, PyModule, PyRef, PyTransformed, Tracer } from './values.js';
import { adSpecText, refAttr, refGet, refSet, refText, vjpAttr } from './refs.js';
import { batchedValueOf } from './format.js';
import { indexUpdateMethod, PyIndexUpdateHelper, PyIndexUpdateRef, type UpdateCtx } from './indexing.js';
import { truthy } from './pyops.js';
import { gridIndex, PyGridIndexer, PyIndexTrick } from './grids.js';
import { float0Attr, float0Text } from './float0.js';
import { setX64 } from './x64.js';

export type { LowerOptions };

export function lower(mod: Module, options: LowerOptions): HostProgram {
  const { program, error } = lowerUntilError(mod, options, false);
  if (error) throw error;
  return program!;
}

/** What the module's statements raise at compile time, as the CompileError jaxts reports. */
function moduleError(e: unknown): unknown {
  if (e instanceof CompileError && e.span && preludeSpans.has(e.span)) return new CompileError(e.message, null, e.notes);
  if (e instanceof NeedsStatic) return new CompileError(e.message, preludeSpans.has(e.span) ? null : e.span);
  if (e instanceof ReturnSignal) return new CompileError("SyntaxError: 'return' outside function", null);
  if (e instanceof BreakSignal || e instanceof ContinueSignal) return new CompileError("SyntaxError: 'break' outside loop", null);
  return e;
}

/**
 * Lowers the module; with `partial`, a CompileError raised by a statement ends the program there
 * instead: the host program holds what the statements before it (and the failing one, up to the
 * error) emitted, so that `jaxts run` prints what CPython prints before the exception.
 */
export function lowerUntilError(mod: Module, options: LowerOptions, partial: boolean): { program: HostProgram | null; error: CompileError | null } {
  checkStatementContext(mod);
  runTimeVarTypes.clear();
  setPrintOptions(null); // np.set_printoptions of an earlier compilation does not carry over
  const ip = newInterp(options);
  noteModuleFunctions(ip, mod);
  let error: CompileError | null = null;
  try {
    if (!partial) execBlock(ip, mod.body, ip.globals);
    else {
      // statement by statement: what a failing statement began (a loop's pending arrays) is dropped, so the
      // program up to it is whole (each statement its own segments: this runs only after a failed compile)
      for (const st of mod.body) {
        ip.flush();
        const start = ip.checkpoint();
        try {
          execBlock(ip, [st], ip.globals);
        } catch (e) {
          ip.rollback(start);
          throw e;
        }
      }
    }
  } catch (e) {
    const err = moduleError(e);
    if (!partial || !(err instanceof CompileError)) throw err;
    error = err;
  }
  if (error) {
    // the statements emitted until the error (no exports: the module did not finish)
    const body = ip.finishModule();
    return { program: { file: options.file, deviceCount: ip.deviceCount, programs: ip.programs, body, exports: [], unexported: [], scriptState: [], results: [] }, error };
  }
  const body = ip.finishModule();
  const { exports, unexported } = lowerExports(ip, ip.callLog, isReservedName, options.exportShapes);
  // an export may read arrays main() computed (a global the function uses): main() keeps them in `script`
  const mainNames = new Set(body.flatMap((s) => (s.k === 'const' || s.k === 'let' ? s.names : [])));
  const scriptState = new Set<string>();
  const kept = exports.filter((x) => {
    const params = new Set(x.params.map((p) => p.name));
    const free = freeVariables(x.body, [...params, 'rt', 'deviceCount']);
    const missing = free.filter((n) => !mainNames.has(n) || params.has(n));
    if (missing.length) {
      unexported.push({ name: x.pyName, reason: `it reads ${missing.join(', ')}, computed where an exported function cannot see it` });
      return false;
    }
    x.body.unshift(
      ...free.map((n): HStmt => ({ k: 'const', names: [n], line: x.line, value: { k: 'call', callee: 'jx.fromMain', args: [{ k: 'member', x: { k: 'var', name: 'script' }, key: n }, { k: 'lit', value: ip.freshHints.get(n) ?? n }, { k: 'lit', value: x.pyName }] } })),
    );
    free.forEach((n) => scriptState.add(n));
    return true;
  });
  const results = scriptResults(ip, mainNames);
  const scriptTypes = Object.fromEntries([...scriptState].flatMap((n) => (runTimeVarTypes.has(n) ? [[n, runTimeVarTypes.get(n)!]] : [])));
  return { program: { file: options.file, deviceCount: ip.deviceCount, programs: ip.programs, body, exports: kept, unexported, scriptState: [...scriptState], scriptTypes, results }, error: null };
}

/** An interpreter with Python's builtins installed and the library layer (below) attached. */
export function newInterp(options: LowerOptions): Interp {
  const ip = new Interp(options, library);
  installBuiltins(ip);
  return ip;
}

/**
 * The library layer the evaluator core calls into: the API modules by import
 * name (built on the first import), JAX arrays' methods (delegating to
 * jax.numpy), the sharding objects, and calls of transformed functions.
 */
function library(ip: Interp): Library {
  let table: Map<string, PyModule> | null = null;
  const modules = (): Map<string, PyModule> => (table ??= moduleTable(ip));
  const updateCtx: UpdateCtx = {
    ops: ip.ops,
    indexItems: (key, span) => ip.indexItems(key, span),
    call: (fn, arg, span) => ip.call(fn, { args: [arg], kwargs: new Map(), span }),
    truthy: (v, span) => truthy(v, span),
  };
  let jaxImported = false;
  return {
    importModule(name: string, span: Span): PyModule {
      if (!jaxImported && (name === 'jax' || name.startsWith('jax.'))) {
        // JAX reads JAX_ENABLE_X64 from the environment when it is first imported
        jaxImported = true;
        const env = ip.environ?.get('JAX_ENABLE_X64');
        if (typeof env === 'string' && ['y', 'yes', 't', 'true', 'on', '1'].includes(env.toLowerCase())) setX64(true);
      }
      if (name === 'jax.example_libraries' || name.startsWith('jax.example_libraries.')) return exampleLibrary(ip, name, modules().get('jax')!, span);
      if (name === 'tqdm' || name.startsWith('tqdm.')) return tqdmModule(ip, name, span);
      if (name === 'argparse') return argparseModule(ip);
      if (name === 'jax.experimental.layout') return layoutModule(ip, modules().get('jax.experimental')!);
      if (name === 'jax.experimental.hijax') return hijaxModule(ip, modules().get('jax.experimental')!, modules().get('jax.core')?.attrs.get('ShapedArray'));
      const found = modules().get(name) ?? submodule(modules(), name);
      if (!found) {
        const tops = [...new Set([...modules().keys(), ...TQDM_MODULES, 'argparse'].map((m) => m.split('.')[0]!))].sort();
        throw new CompileError(`ModuleNotFoundError: No module named '${name}' (jaxts supports ${tops.join(', ')})`, span);
      }
      return found;
    },
    attr(obj, name, span) {
      if (obj instanceof PyKeyArray) return keyAttr(obj, name) ?? (name === 'sharding' ? keySharding(ip, obj, span) : undefined);
      const f0 = float0Attr(obj, name);
      if (f0 !== undefined) return f0;
      if (obj instanceof PyRef) return refAttr(ip, obj, name, span);
      const wr = vjpAttr(obj, name, span);
      if (wr !== undefined) return wr;
      if (obj instanceof PyIndexUpdateRef) return new PyBoundMethod(obj, name, (c) => indexUpdateMethod(updateCtx, obj, name, c));
      const sh = shardingAttr(ip, obj, name, span);
      if (sh !== undefined) return sh;
      if (obj instanceof PyTransformed && (obj.transform === 'custom_jvp' || obj.transform === 'custom_vjp')) return customAttr(obj, name);
      if (obj instanceof PyTransformed) {
        const stage = jitStageAttr(ip, obj, name);
        if (stage !== undefined) return stage;
      }
      const st = stageAttr(ip, obj, name, span);
      if (st !== undefined) return st;
      const sds = shapeDtypeAttr(obj, name);
      if (sds !== undefined) return sds;
      if (name === 'val' && obj instanceof Tracer) {
        const b = batchedValueOf(obj);
        if (b !== undefined) return b;
      }
      const jx = jaxprAttr(ip, obj, name);
      if (jx !== undefined) return jx;
      const td = treedefAttr(ip, obj, name);
      if (td !== undefined) return td;
      if (isArray(obj) && name === 'format') return rowMajorFormats(ip, obj, (x) => (x instanceof HostArray ? x.sharding : null), span);
      if (isArray(obj) && (name === 'item' || name === 'tolist')) return new PyBoundMethod(obj, name, (c) => arrayToPython(ip, obj, name, c));
      return isArray(obj) ? arrayAttr(modules().get('jax.numpy')!, obj, name, span) : undefined;
    },
    text: (v, repr, span) => float0Text(v, repr) ?? refText(ip, v, span) ?? adSpecText(v) ?? keyText(ip, v, span) ?? deviceBlocksText(v) ?? shardingText(ip, v, repr) ?? shapeDtypeText(v) ?? jaxprText(v, repr) ?? treedefText(ip, v, span),
    items: (v, span) => (v instanceof PyDeviceArray ? deviceItems(ip, v).items : v instanceof PyKeyArray ? keyItems(ip, v, span) : undefined),
    subscript: (obj, key, span) =>
      obj instanceof PyRef ? refGet(ip, obj, key, span) : obj instanceof PyGridIndexer ? gridIndex(ip, obj, key, modules().get('jax.numpy')!, span) : obj instanceof PyIndexTrick ? obj.get(key, span) : obj instanceof PyKeyArray ? keyIndex(ip, obj, key, span) : obj instanceof PyIndexUpdateHelper ? new PyIndexUpdateRef(obj.array, runTimeIndex(ip, key, span)) : obj instanceof PyDeviceArray ? deviceIndex(ip, obj, key, span) : undefined,
    setSubscript: (obj, key, v, span) => obj instanceof PyRef && (refSet(ip, obj, key, v, span), true),
    callTransformed: (fn, call) => (fn.transform === 'custom_jvp' || fn.transform === 'custom_vjp' ? callCustom(ip, fn, call) : callTransformed(ip, fn, call)),
    spmdCall: (name, kind, func, args, mesh, span) => spmdCall(ip, name, kind, func, args, mesh, span),
    checkEager: (t) => checkEagerShardings(t),
    contextMesh: () => contextMesh(ip),
    varying: (v) => varyingOf(v.trace, v.atom),
  };
}

/** `a.b.c` as a module attribute of an importable module (`import numpy.random as npr`), or undefined. */
function submodule(table: Map<string, PyModule>, name: string): PyModule | undefined {
  const parts = name.split('.');
  for (let i = parts.length - 1; i > 0; i--) {
    let m: PyModule | undefined = table.get(parts.slice(0, i).join('.'));
    for (let j = i; m && j < parts.length; j++) {
      const a = m.attrs.get(parts[j]!);
      m = a instanceof PyModule ? a : undefined;
    }
    if (m) return m;
  }
  return undefined;
}

/** Every importable module, each built by its home file. */
function moduleTable(ip: Interp): Map<string, PyModule> {
  const jnp = jnpModule(ip);
  const random = randomModule(ip);
  const lax = laxModule(ip);
  const nn = nnModule(ip, random);
  const scipy = scipyModule(ip);
  const trees = treeModules(ip);
  const sharding = shardingModule(ip);
  const jax = jaxModule(ip, { numpy: jnp, random, lax, nn, scipy, tree: trees.tree, tree_util: trees.treeUtil, sharding }, trees.map);
  const jaxSrc = jaxSrcModule(jax);
  const userPrims = userPrimModules(ip, jax, lax);
  for (const k of ['lax', 'api', 'lib']) jaxSrc.attrs.set(k, (jax.attrs.get('_src') as PyModule).attrs.get(k)!);
  const profiler = profilerModule(ip);
  jax.attrs.set('profiler', profiler);
  const { os, functools, typing, dataclasses, collections } = stdlibModules(ip);
  const plots = matplotlibModules(ip);
  const numpy = numpyModule(ip, jnp);
  // jnp.dtype, jnp.set_printoptions and jnp.printoptions are numpy's own
  for (const name of ['dtype', 'set_printoptions', 'printoptions', 'get_printoptions']) jnp.attrs.set(name, numpy.attrs.get(name)!);
  return new Map([
    ['jax', jax],
    ['jax.numpy', jnp],
    ['jax.test_util', jax.attrs.get('test_util') as PyModule],
    ['jax.ad_checkpoint', jax.attrs.get('ad_checkpoint') as PyModule],
    ['jax.extend', jax.attrs.get('extend') as PyModule],
    ['jax.core', jax.attrs.get('core') as PyModule],
    ['jax.extend.core', (jax.attrs.get('extend') as PyModule).attrs.get('core') as PyModule],
    ['jax._src.util', (jax.attrs.get('_src') as PyModule).attrs.get('util') as PyModule],
    ['jax.numpy.linalg', jnp.attrs.get('linalg') as PyModule],
    ['jax.numpy.fft', jnp.attrs.get('fft') as PyModule],
    ['jax.nn', nn],
    ['jax.nn.initializers', nn.attrs.get('initializers') as PyModule],
    ['jax.scipy', scipy],
    ['jax.scipy.special', scipy.attrs.get('special') as PyModule],
    ['jax.scipy.linalg', scipy.attrs.get('linalg') as PyModule],
    ['jax.scipy.stats', scipy.attrs.get('stats') as PyModule],
    ['jax.scipy.signal', scipy.attrs.get('signal') as PyModule],
    ...[...(scipy.attrs.get('stats') as PyModule).attrs].map(([k, v]): [string, PyModule] => [`jax.scipy.stats.${k}`, v as PyModule]),
    ['jax.tree', trees.tree],
    ['jax.tree_util', trees.treeUtil],
    ['jax.lax', lax],
    ['jax.sharding', sharding],
    ['jax.experimental', jax.attrs.get('experimental') as PyModule],
    ['jax.experimental.shard_map', (jax.attrs.get('experimental') as PyModule).attrs.get('shard_map') as PyModule],
    ['jax.experimental.pjit', (jax.attrs.get('experimental') as PyModule).attrs.get('pjit') as PyModule],
    ['jax.experimental.mesh_utils', (jax.attrs.get('experimental') as PyModule).attrs.get('mesh_utils') as PyModule],
    ['jax._src', jaxSrc],
    ['jax._src.xla_bridge', jaxSrc.attrs.get('xla_bridge') as PyModule],
    // user-defined primitives and the internals their rules use (src/lower/user_prims.ts)
    ...userPrims,
    ['jax.errors', jax.attrs.get('errors') as PyModule],
    ['jax.random', random],
    ['jax.profiler', profiler],
    ['numpy', numpy],
    ...hostScipyModules(ip, scipy),
    ['os', os],
    ['functools', functools],
    ['typing', typing],
    ['dataclasses', dataclasses],
    ['collections', collections],
    ['collections.abc', collections.attrs.get('abc') as PyModule],
    // the builtins module: the builtin scope itself (builtins.map is map even where a program rebinds map)
    ['builtins', new PyModule('builtins', ip.builtins.vars)],
    ...stdlibExtraModules(ip),
    ...richModules(ip),
    ...plots,
  ]);
}
