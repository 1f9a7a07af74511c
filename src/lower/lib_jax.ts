// The `jax` package at top level: the transformations (jit, grad, vmap, pmap),
// devices, jax.config, device_put / make_mesh / typeof (lib_sharding.ts), and
// its submodules, each built in its own home and attached here.
import { CompileError } from '../common/diagnostics.js';
import type { Interp } from './interp.js';
import { jaxShardingFunctions } from './lib_sharding.js';
import { arg, builtinModule } from './modules.js';
import { JAX_ERRORS } from './classes.js';
import { gradOf, jitOf, pmapOf, valueAndGradOf, vmapOf } from './transforms.js';
import { PyBuiltin, PyClass, PyContextManager, type CallArgs, type PyModule, type PyValue } from './values.js';

/** jax, with `submodules` (numpy, lax, random, nn, …) as its attributes and jax.tree_map (`treeMap`). */
export function jaxModule(ip: Interp, submodules: Record<string, PyModule>, treeMap: PyBuiltin): PyModule {
  const fns: Record<string, (c: CallArgs) => PyValue> = {
    pmap: (c) => pmapOf(ip, c),
    vmap: (c) => vmapOf(ip, c),
    jit: (c) => jitOf(ip, c),
    grad: (c) => gradOf(ip, c),
    value_and_grad: (c) => valueAndGradOf(ip, c),
    devices: (c) => ip.devices(c.span),
    local_devices: (c) => ip.devices(c.span),
    device_count: (c) => BigInt(ip.devices(c.span).items.length),
    local_device_count: (c) => BigInt(ip.devices(c.span).items.length),
    process_count: () => 1n,
    process_index: () => 0n,
    block_until_ready: (c) => arg(c, 0, 'x'),
    device_get: (c) => arg(c, 0, 'x'),
    disable_jit: (c) => {
      if (c.args[0] === false || c.kwargs.get('disable') === false) return new PyContextManager('_GeneratorContextManager', () => null, () => undefined);
      return new PyContextManager('_GeneratorContextManager', () => (ip.jitDisabled++, null), () => void ip.jitDisabled--);
    },
    // placement: jaxts runs un-sharded computations on its one default device
    default_device: () => new PyContextManager('_GeneratorContextManager', () => null, () => undefined),
    ...jaxShardingFunctions(ip),
  };
  return builtinModule('jax', {
    ...submodules,
    Array: new PyClass('Array', [], new Map(), 'marker'),
    errors: errorsModule(),
    config: builtinModule('jax.config', { update: (c) => configUpdate(ip, c) }),
    // jax.tree_map was removed in JAX 0.6; the lessons still call it (the oracle aliases it too)
    tree_map: treeMap,
    ...fns,
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
    case 'jax_enable_x64':
      if (value) throw new CompileError('NotImplementedError: jax_enable_x64 is not supported by jaxts (arrays are 32-bit, as JAX makes them by default)', c.span);
      return null;
    case 'jax_platform_name':
    case 'jax_platforms':
    case 'jax_default_matmul_precision':
      return null; // jaxts picks its backend at run time; float32 matmuls are what it computes
    default:
      throw new CompileError(`NotImplementedError: jax.config option ${typeof name === 'string' ? name : String(name)} is not supported by jaxts`, c.span);
  }
}

