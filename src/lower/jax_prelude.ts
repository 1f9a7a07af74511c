// Top-level jax functions that JAX writes in Python over other jax functions, written
// the same way in the supported Python subset (jax.fwd_and_bwd over jax.vjp and jax.jit).
import type { Interp } from './interp.js';
import { pythonPrelude } from './python_prelude.js';
import type { CallArgs, PyValue } from './values.js';

const JAX_PY = `
import jax

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
`;

const PRELUDE = pythonPrelude(JAX_PY, 'jax');

/** A call of jax.`name`, one of the prelude's functions. */
export const jaxPreludeCall = (ip: Interp, name: string, c: CallArgs): PyValue => PRELUDE.call(ip, name, c);
