// jax.nn functions that JAX writes in Python over jnp and lax (jax/_src/nn/functions.py),
// written the same way in the supported Python subset: dot_product_attention (its XLA
// implementation: grouped heads by vmap, float32 softmax, the masks JAX builds).
import type { Interp } from './interp.js';
import { pythonPrelude } from './python_prelude.js';
import type { CallArgs, PyValue } from './values.js';

const NN_PY = `
import jax
import jax.numpy as jnp
from jax import lax
import numpy as np
import math

def _get_large_negative(dtype):
  return jnp.asarray(-0.7 * float(jnp.finfo(jnp.float32).max), dtype=dtype)

def _get_causal_mask(T, S):
  mask = jnp.tril(jnp.ones((T, S), dtype=bool))
  return mask[None, None, :, :]

def _get_window_mask(T, S, local_window_size):
  query_pos = jnp.arange(T)
  key_pos = jnp.arange(S)
  left_window, right_window = local_window_size
  left_mask = query_pos[..., None] <= key_pos[..., None, :] + left_window
  right_mask = query_pos[..., None] >= key_pos[..., None, :] - right_window
  return jnp.logical_and(right_mask, left_mask)[None, None, :, :]

def _get_padding_mask_logits(T, S, q_seqlen, kv_seqlen):
  q_mask = True
  kv_mask = True
  if q_seqlen is not None:
    q_indices = jnp.arange(0, T)[None, :, None]
    q_mask = q_indices < q_seqlen[:, None, None]
  if kv_seqlen is not None:
    kv_indices = jnp.arange(0, S)[None, None, :]
    kv_mask = kv_indices < kv_seqlen[:, None, None]
  mask = jnp.logical_and(q_mask, kv_mask)
  return mask[:, None, :, :]

def _get_padding_mask_encoded(T, q_seqlen):
  q_indices = jnp.arange(0, T)[None, :]
  mask = q_indices < q_seqlen[:, None]
  return mask[:, :, None, None]

def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
  if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None and local_window_size is None:
    return logits
  combined_mask = jnp.ones_like(logits, dtype=bool)
  if mask is not None:
    combined_mask = jnp.logical_and(combined_mask, mask)
  T, S = logits.shape[2], logits.shape[3]
  if is_causal:
    mask = _get_causal_mask(T, S)
    combined_mask = jnp.logical_and(combined_mask, mask)
  if local_window_size is not None:
    mask = _get_window_mask(T, S, local_window_size)
    combined_mask = jnp.logical_and(combined_mask, mask)
  if q_seqlen is not None or kv_seqlen is not None:
    mask = _get_padding_mask_logits(T, S, q_seqlen, kv_seqlen)
    combined_mask = jnp.logical_and(combined_mask, mask)
  large_negative_number = _get_large_negative(logits.dtype)
  return jnp.where(combined_mask, logits, large_negative_number)

def _dot_product_attention_core(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                                local_window_size, return_residual):
  logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=jnp.float32)
  logits *= jnp.array(scale, dtype=logits.dtype)
  if bias is not None:
    logits = (logits + bias).astype(logits.dtype)
  padded_logits = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
  padded_logits = padded_logits.astype(np.float32)
  probs = jax.nn.softmax(padded_logits, axis=-1).astype(key.dtype)
  encoded = jnp.einsum('BNTS,BSNH->BTNH', probs, value)
  if q_seqlen is not None:
    mask = _get_padding_mask_encoded(encoded.shape[1], q_seqlen)
    encoded *= mask.astype(encoded.dtype)
  if return_residual:
    lse_residual = jax.nn.logsumexp(padded_logits, axis=-1).astype(key.dtype)
    lse_residual = jnp.transpose(lse_residual, (0, 2, 1))
    return encoded, lax.stop_gradient(lse_residual)
  return encoded

def _dot_product_attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                               local_window_size, return_residual=False):
  B, T, N, H = query.shape
  _, S, K, _ = key.shape
  G = N // K
  query = jnp.reshape(query, (B, T, K, G, H))
  def _reshape_to_grouped(t):
    if t is not None:
      tB, tN, tT, tS = t.shape
      if tN == 1:
        t = jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
      else:
        t = jnp.reshape(t, (tB, K, G, tT, tS))
    return t
  bias = _reshape_to_grouped(bias)
  mask = _reshape_to_grouped(mask)
  core = lambda q, b, m: _dot_product_attention_core(q, key, value, b, m, is_causal, scale, q_seqlen, kv_seqlen,
                                                     local_window_size, return_residual)
  output = jax.vmap(core, in_axes=(3, None if bias is None else 2, None if mask is None else 2), out_axes=3)(query, bias, mask)
  if return_residual:
    encoded, lse_residual = output
    return jnp.reshape(encoded, (B, T, N, H)), jnp.reshape(lse_residual, (B, T, N))
  return jnp.reshape(output, (B, T, N, H))

def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual=False):
  output_shape = jnp.asarray(query).shape
  residual_shape = output_shape[:-1]
  def _ensure_4d(t):
    t = jnp.asarray(t)
    dims_to_add = 4 - t.ndim
    if dims_to_add > 0:
      return jnp.expand_dims(t, axis=tuple(range(dims_to_add)))
    return t
  query_arr = _ensure_4d(query)
  key_arr = _ensure_4d(key)
  value_arr = _ensure_4d(value)
  bias = _ensure_4d(bias) if bias is not None else None
  mask = _ensure_4d(mask) if mask is not None else None
  if query_seq_lengths is not None:
    query_seq_lengths = jnp.asarray(query_seq_lengths)
  if key_value_seq_lengths is not None:
    key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
  if isinstance(local_window_size, int):
    local_window_size = (local_window_size, local_window_size)
  def _check_shape_and_dtype(t, shape, dtype, name):
    if t is None:
      return
    if t.ndim != len(shape):
      raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
      raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
      if shape[i] != -1 and t.shape[i] != shape[i]:
        raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")
  B, S, K, H = key_arr.shape
  _check_shape_and_dtype(value_arr, [B, S, K, H], key_arr.dtype, 'value')
  _check_shape_and_dtype(query_arr, [B, -1, -1, H], key_arr.dtype, 'query')
  _check_shape_and_dtype(mask, [-1] * 4, jnp.dtype(bool), 'mask')
  _check_shape_and_dtype(bias, [-1] * 4, None, 'bias')
  _check_shape_and_dtype(query_seq_lengths, [B], jnp.dtype('int32'), 'query_seq_lengths')
  _check_shape_and_dtype(key_value_seq_lengths, [B], jnp.dtype('int32'), 'key_value_seq_lengths')
  if query_arr.shape[-2] % K != 0:
    raise ValueError(f"The number of query heads must be a multiple of key/value heads, but got {query_arr.shape[-2]} vs {K}")
  scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
  if implementation == 'cudnn':
    raise NotImplementedError("dot_product_attention(implementation='cudnn') needs a CUDA GPU; jaxts computes the 'xla' implementation")
  if implementation is not None and implementation != 'xla':
    raise ValueError(f"Unsupported implementation option: {implementation}")
  out = _dot_product_attention_xla(query_arr, key_arr, value_arr, bias, mask, is_causal=is_causal, scale=scale_val,
                                   q_seqlen=query_seq_lengths, kv_seqlen=key_value_seq_lengths,
                                   local_window_size=local_window_size, return_residual=return_residual)
  if return_residual:
    encoded, residual = out
    return jnp.reshape(encoded, output_shape), jnp.reshape(residual, residual_shape)
  return jnp.reshape(out, output_shape)
def _init_orthogonal(scale=1.0, column_axis=-1, dtype=None):
  # jax.nn.initializers.orthogonal (jax/_src/nn/initializers.py)
  def init(key, shape, dtype=dtype, out_sharding=None):
    if out_sharding is not None:
      raise NotImplementedError
    dtype = jnp.float32 if dtype is None else dtype
    if len(shape) < 2:
      raise ValueError("orthogonal initializer requires at least a 2D shape")
    if any(dim == 0 for dim in shape):
      return jnp.zeros(shape, dtype=dtype)
    n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
    Q = jax.random.orthogonal(key, n_rows, (), dtype, n_cols)
    ax = column_axis % len(shape)
    Q = jnp.reshape(Q, tuple(d for i, d in enumerate(shape) if i != ax) + (shape[column_axis],))
    Q = jnp.moveaxis(Q, -1, column_axis)
    return jnp.array(scale, dtype) * Q
  return init

def _init_delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
  # jax.nn.initializers.delta_orthogonal (jax/_src/nn/initializers.py)
  def init(key, shape, dtype=dtype, out_sharding=None):
    if out_sharding is not None:
      raise NotImplementedError
    dtype = jnp.float32 if dtype is None else dtype
    if len(shape) not in [3, 4, 5]:
      raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
    if shape[-1] < shape[-2]:
      raise ValueError("\`fan_in\` must be less or equal than \`fan_out\`. ")
    ortho_init = _init_orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)
    ortho_matrix = ortho_init(key, shape[-2:])
    W = jnp.zeros(shape, dtype=dtype)
    if len(shape) == 3:
      k = shape[0]
      return W.at[(k-1)//2, ...].set(ortho_matrix)
    elif len(shape) == 4:
      k1, k2 = shape[:2]
      return W.at[(k1-1)//2, (k2-1)//2, ...].set(ortho_matrix)
    else:
      k1, k2, k3 = shape[:3]
      return W.at[(k1-1)//2, (k2-1)//2, (k3-1)//2, ...].set(ortho_matrix)
  return init
`;

const PRELUDE = pythonPrelude(NN_PY, 'jax.nn');

/** The jax.nn functions of the prelude, each calling it. */
export function nnPreludeFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return Object.fromEntries(PRELUDE.functions.map((name) => [name, (c: CallArgs) => PRELUDE.call(ip, name, c)]));
}

/** Calls prelude function `name` (a private one too: the initializer builders). */
export const callNnPrelude = (ip: Interp, name: string, c: CallArgs): PyValue => PRELUDE.call(ip, name, c);
