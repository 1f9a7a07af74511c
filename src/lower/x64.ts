// JAX's jax_enable_x64 flag, as the program sets it (jax.config.update, the
// JAX_ENABLE_X64 environment variable, jax.experimental.enable_x64): the
// default float and int dtypes and the canonicalization of the 64-bit names
// follow it (jax/_src/dtypes.py canonicalize_dtype). The flag is global in JAX;
// here it is set as the interpreter reaches the statement that sets it, and
// each compile starts with it off.
import type { DType } from '../ir/dtypes.js';

let enabled = false;

export function setX64(on: boolean): void {
  enabled = on;
}

export const x64Enabled = (): boolean => enabled;

/** The dtype of a Python float and of jnp.zeros's default: float64 under x64, else float32. */
export const defaultFloat = (): DType => (enabled ? 'float64' : 'float32');

/** The dtype of a Python int and of jnp.arange's default: int64 under x64, else int32. */
export const defaultInt = (): DType => (enabled ? 'int64' : 'int32');

/** A dtype name as JAX canonicalizes it: the 64-bit names become 32-bit while x64 is off (complex128 always: jaxts has no complex128). */
export function canonicalDtype(name: DType | 'complex128'): DType {
  if (name === 'complex128') return 'complex64';
  if (enabled) return name;
  return name === 'float64' ? 'float32' : name === 'int64' ? 'int32' : name;
}
