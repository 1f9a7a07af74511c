// Top-level jax functions that JAX writes in Python over other jax functions, written
// the same way in the supported Python subset (jax.fwd_and_bwd over jax.vjp and jax.jit, jax.custom_gradient over jax.custom_vjp).
import type { Interp } from './interp.js';
import { pythonPrelude } from './python_prelude.js';
import type { CallArgs, PyValue } from './values.js';

const JAX_PY = `
import math
import jax
import numpy as np

def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    def fwd(*args):
        def f_partial(*dyn_args):
            full = list(args)
            for i, a in zip(nums, dyn_args):
                full[i] = a
            return fun(*full)
        return jax.vjp(f_partial, *[args[i] for i in nums], has_aux=has_aux)
    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        g = g[0] if isinstance(argnums, int) else g
        return g
    if jitted:
        fwd = jax.jit(fwd)
        bwd = jax.jit(bwd)
    return fwd, bwd

def custom_gradient(fun):
    # JAX's custom_gradient: a custom_vjp whose backward pass is the rule that fun returns with its value;
    # the residuals are the arguments (the rule is remade from them on the backward pass)
    @jax.custom_vjp
    def wrapped_fun(*args):
        ans, _ = fun(*args)
        return ans
    def fwd(*args):
        ans, _ = fun(*args)
        return ans, args
    def bwd(args, cts):
        _, rule = fun(*args)
        cts_out = rule(cts)
        if jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(cts_out)):
            cts_out = (cts_out,)
        return cts_out
    wrapped_fun.defvjp(fwd, bwd)
    return wrapped_fun

def _check_shards(what, shape, sharding, vals):
    want = tuple(sharding.shard_shape(shape))
    for v in vals:
        if tuple(v.shape) != want:
            raise ValueError(f"Expected shard shape {want} doesn't match the single device array shape {tuple(v.shape)}. Shape of Array is {jax.ShapeDtypeStruct(shape, v.dtype).dtype.name}{list(shape)} with sharding {sharding}")

def _assemble(shape, sharding, index_map, vals, dtype):
    # the global array from the block each device holds, placed as the sharding says
    dt = vals[0].dtype if dtype is None else dtype
    out = jax.numpy.zeros(shape, dt)
    for idx, v in zip(index_map.values(), vals):
        out = out.at[idx].set(v)
    return jax.device_put(out, sharding)

def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    shape = tuple(shape)
    if sharding.is_fully_replicated:
        # JAX asks for the whole array once and gives every device that value
        v = jax.numpy.asarray(data_callback((slice(None),) * len(shape)), dtype)
        _check_shards('make_array_from_callback', shape, sharding, [v])
        return jax.device_put(v, sharding)
    index_map = sharding.devices_indices_map(shape)
    vals = [jax.numpy.asarray(data_callback(idx)) for idx in index_map.values()]
    _check_shards('make_array_from_callback', shape, sharding, vals)
    return _assemble(shape, sharding, index_map, vals, dtype)

def make_array_from_single_device_arrays(shape, sharding, arrays, dtype=None):
    shape = tuple(shape)
    index_map = sharding.devices_indices_map(shape)
    arrays = list(arrays)
    if len(arrays) != len(index_map):
        raise ValueError(f"The number of single device arrays ({len(arrays)}) does not match the number of addressable devices of the sharding ({len(index_map)})")
    _check_shards('make_array_from_single_device_arrays', shape, sharding, arrays)
    return _assemble(shape, sharding, index_map, arrays, dtype)

def _axes_to_pspec(axis_name, axis):
    if axis is None:
        return jax.sharding.PartitionSpec()
    return jax.sharding.PartitionSpec(*([None] * axis + [axis_name]))

def smap(f=None, *, in_axes='<infer>', out_axes, axis_name):
    # JAX's smap: a shard_map over the one mesh axis axis_name of the context mesh, the mapped axes given as ints
    if isinstance(in_axes, str):
        raise NotImplementedError("jax.smap without in_axes (inferred from the arguments' Explicit shardings) is not supported by jaxts")
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a \`str\` or a \`Hashable\`, but got {axis_name}")
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    in_specs = jax.tree_util.tree_map(lambda a: _axes_to_pspec(axis_name, a), in_axes, is_leaf=lambda x: x is None)
    out_specs = jax.tree_util.tree_map(lambda a: _axes_to_pspec(axis_name, a), out_axes, is_leaf=lambda x: x is None)
    return jax.shard_map(f, in_specs=in_specs, out_specs=out_specs, axis_names={axis_name})

def _process_allgather(in_tree, tiled=False):
    # one process: a JAX array (fully addressable) is read back whole; a host value gains the process axis unless tiled
    def one(x):
        if isinstance(x, jax.Array):
            return np.asarray(x)
        return np.asarray(x) if tiled else np.expand_dims(np.asarray(x), 0)
    return jax.tree_util.tree_map(one, in_tree)

def _broadcast_one_to_all(in_tree, is_source=None):
    return jax.tree_util.tree_map(lambda x: np.asarray(x), in_tree)

def _sync_global_devices(name):
    return None

def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False, allow_split_physical_axes=False):
    # jax.experimental.mesh_utils: CPU devices are laid out in jax.devices() order
    if devices is None:
        devices = jax.devices()
    shape = tuple(mesh_shape)
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of mesh_shape {shape}")
    return np.asarray(devices).reshape(shape)

def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    # one process: its local data is the global array
    local_data = jax.numpy.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != tuple(local_data.shape):
        raise ValueError(f"global_shape {tuple(global_shape)} does not match the local data's shape {tuple(local_data.shape)} in a single process")
    return jax.device_put(local_data, sharding)
`;

const PRELUDE = pythonPrelude(JAX_PY, 'jax');

/** A call of jax.`name`, one of the prelude's functions. */
export const jaxPreludeCall = (ip: Interp, name: string, c: CallArgs): PyValue => PRELUDE.call(ip, name, c);
