// The `jax` package at top level: the transformations (jit, grad, vmap, pmap),
// devices, jax.config, device_put / make_mesh / typeof (lib_sharding.ts), and
// its submodules, each built in its own home and attached here.
import { CompileError } from '../common/diagnostics.js';
import { checkGrads } from './check_grads.js';
import { checkpointName, checkpointOf, checkpointPolicies, printSavedResiduals, setRemat3 } from './lib_checkpoint.js';
import { customOf } from './custom_rules.js';
import { hostCallback } from './callbacks.js';
import { PyShapeDtypeStruct, SHAPE_DTYPE_STRUCT, evalShape } from './eval_shape.js';
import { MAX_DEVICES, type Interp } from './interp.js';
import { debugModule, makeJaxprOf } from './lib_debug.js';
import { PyShapedArray as CoreShapedArray, coreModule, extendCoreModule, safeMap } from './jaxpr_objects.js';
import { PyShapedArray, debugShardingFunctions, jaxShardingFunctions } from './lib_sharding.js';
import { arg, builtinModule } from './modules.js';
import { FLOAT0 } from './float0.js';
import { truthy } from './pyops.js';
import { JAX_ERRORS } from './classes.js';
import { shardMapOf } from './shard_map.js';
import { flatten, gradOf, hessianOf, jacfwdOf, jacrevOf, jitOf, jvpCall, linearizeCall, pmapOf, valueAndGradOf, vjpCall, vmapOf } from './transforms.js';
import { PyBuiltin, PyClass, PyContextManager, PyList, PyModule, PyRef, PyTuple, typeName, type CallArgs, type PyValue } from './values.js';
import { readBack } from './lib_numpy.js';
import { adFunctions, newRef, refFunctions } from './refs.js';
import { jaxPreludeCall } from './jax_prelude.js';
import { beginCompileTimeEval } from './const_eval.js';
import { setX64, x64Enabled } from './x64.js';

/** jax, with `submodules` (numpy, lax, random, nn, …) as its attributes and jax.tree_map (`treeMap`). */
/** A jax.config option used as a context manager (`with jax.log_compiles():`) whose setting jaxts has nothing to do for. */
const configContext = (): PyContextManager => new PyContextManager('StateContextManager', () => null, () => undefined);

/** jax.enable_x64(new_val) / jax.experimental.enable_x64(): x64 on (or off) inside the `with` block, restored after it. */
function x64Context(c: CallArgs): PyContextManager {
  const on = truthy(arg(c, 0, 'new_val', true), c.span);
  let before = false;
  return new PyContextManager(
    'StateContextManager',
    () => {
      before = x64Enabled();
      setX64(on);
      return null;
    },
    () => setX64(before),
  );
}

/** Transfer-guard levels that only log (to stderr): the disallowing ones would need jaxts to refuse implicit transfers. */
const TRANSFER_OK = ['allow', 'log', 'log_explicit'];

/** A config option's context manager where `ok` lists the values jaxts honours (the others change behaviour it lacks). */
function configChoice(c: CallArgs, name: string, ok: string[]): PyContextManager {
  const v = arg(c, 0, 'new_val');
  if (typeof v !== 'string' || !ok.includes(v)) {
    throw new CompileError(`NotImplementedError: jax.${name}(${typeof v === 'string' ? `'${v}'` : typeName(v)}) is not supported by jaxts (it supports ${ok.map((x) => `'${x}'`).join(', ')})`, c.span);
  }
  return configContext();
}

/** A boolean config option's context manager: `ok` is the value jaxts computes with (the other changes behaviour it lacks). */
function configBool(c: CallArgs, name: string, ok: boolean): PyContextManager {
  const v = arg(c, 0, 'new_val', true);
  if (typeof v !== 'boolean' && v !== null) throw new CompileError(`TypeError: jax.${name} expects a bool, got ${typeName(v)}`, c.span);
  if ((v ?? true) !== ok) throw new CompileError(`NotImplementedError: jax.${name}(${v === null ? 'True' : v ? 'True' : 'False'}) is not supported by jaxts (it computes with ${name}=${ok ? 'True' : 'False'})`, c.span);
  return configContext();
}

/**
 * jax.device_get(tree): each JAX array of the tree read back as the numpy.ndarray of its values (JAX's
 * _device_get calls its __array__); tracers and the other leaves are returned as they are.
 */
function deviceGet(ip: Interp, c: CallArgs, treeMap: PyBuiltin): PyValue {
  const leaf = new PyBuiltin('_device_get', (l) => readBack(ip, arg(l, 0, 'x'), c.span));
  return ip.call(treeMap, { args: [leaf, arg(c, 0, 'x')], kwargs: new Map(), span: c.span });
}

export function jaxModule(ip: Interp, submodules: Record<string, PyModule>, treeMap: PyBuiltin): PyModule {
  const fns: Record<string, (c: CallArgs) => PyValue> = {
    pmap: (c) => pmapOf(ip, c),
    vmap: (c) => vmapOf(ip, c),
    jit: (c) => jitOf(ip, c),
    grad: (c) => gradOf(ip, c),
    value_and_grad: (c) => valueAndGradOf(ip, c),
    jvp: (c) => jvpCall(ip, c),
    vjp: (c) => vjpCall(ip, c),
    fwd_and_bwd: (c) => jaxPreludeCall(ip, 'fwd_and_bwd', c),
    linearize: (c) => linearizeCall(ip, c),
    linear_transpose: (c) => linearTransposeOf(ip, c),
    jacfwd: (c) => jacfwdOf(ip, c),
    jacrev: (c) => jacrevOf(ip, c),
    jacobian: (c) => jacrevOf(ip, c),
    hessian: (c) => hessianOf(ip, c),
    custom_jvp: (c) => customOf('custom_jvp', c),
    custom_vjp: (c) => customOf('custom_vjp', c),
    // rematerialization changes what is stored, not what is computed: the function itself
    checkpoint: (c) => checkpointOf(ip, c),
    remat: (c) => checkpointOf(ip, c),
    named_call: (c) => arg(c, 0, 'fun'),
    eval_shape: (c) => evalShape(ip, c),
    pure_callback: (c) => hostCallback(ip, c, 'pure'),
    devices: (c) => devicesOf(ip, c),
    local_devices: (c) => {
      // one process: index 0
      const pi = c.kwargs.get('process_index') ?? (c.args.length > 1 || typeof c.args[0] === 'bigint' ? c.args[0] : null) ?? null;
      if (pi !== null && pi !== 0n) throw new CompileError(`ValueError: Unknown process_index ${ip.repr(pi, c.span).static ?? ''}`, c.span);
      return devicesOf(ip, c);
    },
    device_count: (c) => BigInt(ip.devices(c.span).items.length),
    local_device_count: (c) => BigInt(ip.devices(c.span).items.length),
    process_count: () => 1n,
    process_index: () => 0n,
    block_until_ready: (c) => arg(c, 0, 'x'),
    // the host program runs effects (prints, callbacks) in order: nothing is left to wait for
    effects_barrier: () => null,
    device_get: (c) => deviceGet(ip, c, treeMap),
    make_jaxpr: (c) => makeJaxprOf(ip, c),
    disable_jit: (c) => {
      if (c.args[0] === false || c.kwargs.get('disable') === false) return new PyContextManager('_GeneratorContextManager', () => null, () => undefined);
      return new PyContextManager('_GeneratorContextManager', () => (ip.jitDisabled++, null), () => void ip.jitDisabled--);
    },
    // jax.debug_nans(flag): the jax_debug_nans option for the with block (programs made inside check, or not)
    debug_nans: (c) => {
      const on = Boolean(ip.static(arg(c, 0, 'new_val', true), 'debug_nans', c.span));
      let saved = false;
      return new PyContextManager('_GeneratorContextManager', () => (ip.flush(), (saved = ip.debugNans), (ip.debugNans = on), null), () => void (ip.flush(), (ip.debugNans = saved)));
    },
    // placement: jaxts runs un-sharded computations on its one default device
    default_device: () => new PyContextManager('_GeneratorContextManager', () => null, () => undefined),
    // one process on one host; its numerics are XLA's CPU backend's
    default_backend: () => 'cpu',
    host_count: () => 1n,
    host_id: () => 0n,
    host_ids: () => new PyList([0n]),
    process_indices: () => new PyList([0n]),
    clear_caches: () => null,
    // names in the HLO only: nothing a program prints depends on them
    named_scope: (c) => {
      if (typeof arg(c, 0, 'name') !== 'string') throw new CompileError('TypeError: named_scope name argument must be a string.', c.span);
      return new PyContextManager('ExtendNameStackContextManager', () => null, () => undefined);
    },
    // options that change what is logged (to stderr), or TPU/GPU matmul passes: the CPU results are the same
    default_matmul_precision: () => configContext(),
    log_compiles: () => configContext(),
    explain_cache_misses: () => configContext(),
    checking_leaks: () => configContext(),
    check_tracer_leaks: () => configContext(),
    // options with no effect on what a CPU program computes or prints (internal checks, logging to stderr,
    // the formulation of rules whose values agree); where a value would change behaviour, it is refused
    enable_checks: () => configContext(),
    softmax_custom_jvp: () => configContext(),
    jax2tf_associative_scan_reductions: () => configContext(),
    allow_f16_reductions: () => configContext(),
    array_garbage_collection_guard: (c) => configChoice(c, 'array_garbage_collection_guard', ['allow', 'log']),
    numpy_rank_promotion: (c) => configChoice(c, 'numpy_rank_promotion', ['allow', 'warn']),
    numpy_dtype_promotion: (c) => configChoice(c, 'numpy_dtype_promotion', ['standard']),
    default_prng_impl: (c) => configChoice(c, 'default_prng_impl', ['threefry2x32']),
    legacy_prng_key: (c) => configChoice(c, 'legacy_prng_key', ['allow', 'warn']),
    transfer_guard: (c) => configChoice(c, 'transfer_guard', TRANSFER_OK),
    transfer_guard_host_to_device: (c) => configChoice(c, 'transfer_guard_host_to_device', TRANSFER_OK),
    transfer_guard_device_to_host: (c) => configChoice(c, 'transfer_guard_device_to_host', TRANSFER_OK),
    transfer_guard_device_to_device: (c) => configChoice(c, 'transfer_guard_device_to_device', TRANSFER_OK),
    // the host program reads results when it needs them: an early copy changes nothing it prints
    copy_to_host_async: (c) => arg(c, 0, 'x'),
    // options whose default is what jaxts computes (threefry's partitionable bit layout, raw uint32 keys, no key
    // reuse checks, no NaN/inf checks beyond debug_nans): the default is honoured, another value refused
    threefry_partitionable: (c) => configBool(c, 'threefry_partitionable', true),
    enable_custom_prng: (c) => configBool(c, 'enable_custom_prng', false),
    debug_key_reuse: (c) => configBool(c, 'debug_key_reuse', false),
    debug_infs: (c) => configBool(c, 'debug_infs', false),
    no_tracing: (c) => configBool(c, 'no_tracing', false),
    no_execution: (c) => configBool(c, 'no_execution', false),
    // one thread runs the program: a guard against other threads has nothing to guard
    thread_guard: () => configContext(),
    // operations inside the block are evaluated at compile time where their inputs are constants (src/lower/const_eval.ts)
    ensure_compile_time_eval: () => {
      let close: (() => void) | null = null;
      return new PyContextManager('_GeneratorContextManager', () => ((close = ip.atHost ? null : beginCompileTimeEval(ip.trace())), null), () => void close?.());
    },
    custom_gradient: (c) => jaxPreludeCall(ip, 'custom_gradient', c),
    smap: (c) => jaxPreludeCall(ip, 'smap', c),
    // a ref of type `ty` whose contents the program writes before reading it (inside a trace; JAX has no eager rule)
    empty_ref: (c) => {
      const ty = arg(c, 0, 'ty');
      if (ip.atHost) throw new CompileError("NotImplementedError: Evaluation rule for 'empty_ref' not implemented", c.span);
      if (!(ty instanceof PyShapeDtypeStruct || ty instanceof PyShapedArray || ty instanceof CoreShapedArray)) throw new CompileError(`TypeError: empty_ref expects an abstract value (jax.typeof(x) or a ShapeDtypeStruct), got ${typeName(ty)}`, c.span);
      return newRef(ip, { args: [ip.ops.full([...ty.aval.shape], 0, ty.aval.dtype, c.span)], kwargs: new Map(), span: c.span });
    },
    // the ref's storage is the program's: nothing is left to release
    free_ref: (c) => {
      if (!(arg(c, 0, 'ref') instanceof PyRef)) throw new CompileError('TypeError: free_ref expects a Ref', c.span);
      return new PyTuple([]);
    },
    make_array_from_callback: (c) => jaxPreludeCall(ip, 'make_array_from_callback', c),
    make_array_from_single_device_arrays: (c) => jaxPreludeCall(ip, 'make_array_from_single_device_arrays', c),
    make_array_from_process_local_data: (c) => jaxPreludeCall(ip, 'make_array_from_process_local_data', c),
    enable_x64: x64Context,
    ...jaxShardingFunctions(ip),
    shard_map: (c) => shardMapOf(ip, c, 'shard_map'),
  };
  return builtinModule('jax', {
    ...submodules,
    Array: new PyClass('Array', [], new Map(), 'marker'),
    Ref: new PyClass('Ref', [], new Map(), 'marker', 'jax'),
    Device: new PyClass('Device', [], new Map(), 'marker', 'jax'),
    // mutable array references (src/lower/refs.ts)
    ref: new PyModule('jax.ref', new Map<string, PyValue>([...refFunctions(ip), ['Ref', new PyClass('Ref', [], new Map(), 'marker', 'jax')]])),
    new_ref: refFunctions(ip).get('new_ref')!,
    ad: new PyModule('jax.ad', new Map<string, PyValue>(adFunctions())),
    freeze: refFunctions(ip).get('freeze')!,
    ShapeDtypeStruct: SHAPE_DTYPE_STRUCT,
    // the dtype of integer values' (co)tangents (src/lower/float0.ts); jax.dtypes' dtype queries are jnp's
    float0: FLOAT0,
    dtypes: new PyModule('jax.dtypes', new Map<string, PyValue>([
      ['float0', FLOAT0],
      ...['issubdtype', 'result_type', 'finfo', 'iinfo', 'bfloat16'].map((n): [string, PyValue] => [n, submodules['numpy']!.attrs.get(n)!]),
    ])),
    checkpoint_policies: checkpointPolicies(),
    test_util: builtinModule('jax.test_util', { check_grads: (c) => checkGrads(ip, c) }),
    // jax.ad_checkpoint: rematerialization, names for its policies, and what it saves (src/lower/lib_checkpoint.ts)
    ad_checkpoint: builtinModule('jax.ad_checkpoint', {
      checkpoint: (c) => checkpointOf(ip, c),
      remat: (c) => checkpointOf(ip, c),
      checkpoint_name: (c) => checkpointName(c),
      checkpoint_policies: checkpointPolicies(),
      print_saved_residuals: (c) => printSavedResiduals(ip, c),
    }),
    errors: errorsModule(),
    // jax.extend.core: jaxprs and primitives as Python data (src/lower/jaxpr_objects.ts); jax._src.util's safe_map, which tutorials import
    extend: builtinModule('jax.extend', { core: extendCoreModule(ip) }),
    core: coreModule(ip),
    _src: builtinModule('jax._src', { util: builtinModule('jax._src.util', { safe_map: (c) => safeMap(ip, c) }) }),
    config: builtinModule('jax.config', { update: (c) => configUpdate(ip, c) }),
    experimental: experimentalModule(ip),
    debug: debugModule(ip, debugShardingFunctions(ip)),
    // jax.tree_map was removed in JAX 0.6; the lessons still call it (the oracle aliases it too)
    tree_map: treeMap,
    // the JAX release whose behaviour jaxts reproduces (tutorials print it)
    __version__: '0.10.2',
    ...fns,
  });
}

/**
 * jax.linear_transpose(fun, *primals): the transpose of the linear function
 * `fun`, taking an output cotangent to the tuple of input cotangents. The
 * primals give only shapes and dtypes (arrays or ShapeDtypeStructs); the VJP
 * of a linear function, at any point, is its transpose (the forward pass
 * leaves nothing the backward one reads).
 */
function linearTransposeOf(ip: Interp, c: CallArgs): PyValue {
  const fun = arg(c, 0, 'fun');
  for (const k of c.kwargs.keys()) if (k !== 'reduce_axes') throw new CompileError(`TypeError: linear_transpose() got an unexpected keyword argument '${k}'`, c.span);
  const avals = c.args.slice(1).map((p) => {
    const flat = flatten(p);
    const avals = flat.leaves.map((l) => {
      const aval = l instanceof PyShapeDtypeStruct ? l.aval : ip.ops.aval(l, c.span);
      if (aval.dtype !== 'float32') throw new CompileError(`TypeError: linear_transpose only supports [float or complex] -> [float or complex], and integer -> integer functions, but got ${aval.dtype}`, c.span);
      return aval;
    });
    return { flat, avals };
  });
  return new PyBuiltin(`transposed_fun`, (cc) => {
    if (cc.args.length !== 1) throw new CompileError(`TypeError: transposed_fun() takes 1 positional argument but ${cc.args.length} were given`, cc.span);
    // the point of linearization, made where the transpose is called (inside a jit: in its trace)
    const primals = avals.map(({ flat, avals }) => flat.unflatten(avals.map((a) => ip.ops.full([...a.shape], 0, a.dtype, cc.span))));
    const pair = vjpCall(ip, { args: [fun, ...primals], kwargs: new Map(), span: cc.span }) as PyTuple;
    return ip.call(pair.items[1]!, { args: [cc.args[0]!], kwargs: new Map(), span: cc.span });
  });
}

/** jax.errors: JAX's exception classes (src/lower/classes.ts), for `except jax.errors.TracerBoolConversionError`. */
export function errorsModule(): PyModule {
  return builtinModule('jax.errors', Object.fromEntries(JAX_ERRORS.map((c) => [c.name, c])));
}

/** jax.config.update(name, value): the options a lesson's output depends on. */
function configUpdate(ip: Interp, c: CallArgs): null {
  const name = ip.static(arg(c, 0, 'name'), 'a config option name', c.span);
  const value = ip.static(arg(c, 1, 'val'), 'a config value', c.span);
  switch (name) {
    case 'jax_debug_nans':
      ip.flush(); // operations before the call ran without the check
      ip.debugNans = Boolean(value);
      return null;
    case 'jax_remat3':
      setRemat3(ip, Boolean(value));
      return null;
    case 'jax_enable_x64':
      setX64(Boolean(value));
      return null;
    case 'jax_num_cpu_devices': {
      if (typeof value !== 'bigint') throw new CompileError(`TypeError: jax_num_cpu_devices must be an int, got ${typeof value}`, c.span);
      const n = Number(value);
      if (ip.options.devices) return null; // the caller fixed the device count
      if (ip.deviceCountFrozen) {
        if (n === ip.deviceCount) return null;
        throw new CompileError('RuntimeError: jax_num_cpu_devices config should be updated before backends are initialized i.e. before any JAX operation is executed. You should initialize this config immediately after `import jax`.', c.span);
      }
      if (!(n >= 1 && n <= MAX_DEVICES)) throw new CompileError(`jax_num_cpu_devices=${n} is not a number of devices jaxts simulates (1 to ${MAX_DEVICES})`, c.span);
      ip.numCpuDevices = n;
      return null;
    }
    case 'jax_platform_name':
    case 'jax_platforms':
    case 'jax_default_matmul_precision':
      return null; // jaxts picks its backend at run time; float32 matmuls are what it computes
    case 'jax_explain_cache_misses':
    case 'jax_log_compiles':
    case 'jax_traceback_filtering':
    case 'jax_logging_level':
    case 'jax_debug_log_modules':
      return null; // JAX logs these to stderr: nothing of them reaches the program's output
    case 'jax_dump_ir_to':
    case 'jax_dump_ir_modes':
    case 'jax_compilation_cache_dir':
    case 'jax_enable_compilation_cache':
    case 'jax_persistent_cache_min_entry_size_bytes':
    case 'jax_persistent_cache_min_compile_time_secs':
    case 'jax_persistent_cache_enable_xla_caches':
    case 'jax_raise_persistent_cache_errors':
      return null; // JAX writes IR dumps and its compilation cache to files: the program's output is the same without them
    default:
      throw new CompileError(`NotImplementedError: jax.config option ${typeof name === 'string' ? name : String(name)} is not supported by jaxts`, c.span);
  }
}


/** jax._src.xla_bridge (imported by older notebooks): the device queries of the jax module. */
export function jaxSrcModule(jax: PyModule): PyModule {
  const names = ['device_count', 'local_device_count', 'devices', 'local_devices', 'process_count', 'process_index', 'default_backend'];
  const xlaBridge = builtinModule('jax._src.xla_bridge', Object.fromEntries(names.flatMap((n) => (jax.attrs.has(n) ? [[n, jax.attrs.get(n)!]] : []))));
  return builtinModule('jax._src', { xla_bridge: xlaBridge });
}

/** jax.experimental: the older spelling of shard_map (check_rep instead of check_vma). */
export function experimentalModule(ip: Interp): PyModule {
  const shardMap = builtinModule('jax.experimental.shard_map', { shard_map: (c) => shardMapOf(ip, c, 'shard_map') });
  // jax.experimental.pjit.pjit is jax.jit (in_shardings / out_shardings) since JAX 0.4.
  const pjit = builtinModule('jax.experimental.pjit', { pjit: (c) => jitOf(ip, c, true) });
  // jax.experimental.multihost_utils: one process holds every device, so gathering or broadcasting across processes reads values back
  const multihostUtils = builtinModule('jax.experimental.multihost_utils', {
    process_allgather: (c) => jaxPreludeCall(ip, '_process_allgather', c),
    broadcast_one_to_all: (c) => jaxPreludeCall(ip, '_broadcast_one_to_all', c),
    sync_global_devices: (c) => jaxPreludeCall(ip, '_sync_global_devices', c),
  });
  const meshUtils = builtinModule('jax.experimental.mesh_utils', { create_device_mesh: (c) => jaxPreludeCall(ip, 'create_device_mesh', c) });
  return builtinModule('jax.experimental', { shard_map: shardMap, pjit, enable_x64: x64Context, disable_x64: (c) => x64Context({ ...c, args: [false], kwargs: new Map() }), io_callback: (c) => hostCallback(ip, c, 'io'), multihost_utils: multihostUtils, mesh_utils: meshUtils });
}

/** jax.devices(backend=None) / jax.local_devices(process_index=None, backend=None): the one backend is 'cpu'. */
function devicesOf(ip: Interp, c: CallArgs): PyValue {
  const b = c.kwargs.get('backend') ?? (c.kwargs.has('process_index') ? undefined : c.args[c.args.length - 1]);
  if (typeof b === 'string' && b !== 'cpu') throw new CompileError(`RuntimeError: Unknown backend ${b}. Available backends are ['cpu']`, c.span);
  return ip.devices(c.span);
}
