// JAX arrays' properties and methods (`x.shape`, `x.T`, `x.sum(axis)`,
// `x.reshape(2, 3)`, `x.astype(...)`, …). As in JAX (jax/_src/numpy/array_methods.py),
// each method calls its jax.numpy function with the array as the first argument.
import type * as A from '../parser/ast.js';
import { PyIndexUpdateHelper } from './indexing.js';
import { PyBoundMethod, PyBuiltin, PyDType, PyTuple, type CallArgs, type HostArray, type PyModule, type PyValue, type Tracer } from './values.js';

const shapeTuple = (s: readonly number[]): PyTuple => new PyTuple(s.map((d) => BigInt(d)));

/** `x.name` of a JAX array, with `jnp` the jax.numpy module; undefined when arrays have no such attribute. */
export function arrayAttr(jnp: PyModule, x: Tracer | HostArray, name: string, span: A.Span): PyValue | undefined {
  const aval = x.aval;
  const jnpCall = (fn: string, args: PyValue[], kwargs: CallArgs['kwargs'], at: A.Span): PyValue => {
    const f = jnp.attrs.get(fn);
    if (!(f instanceof PyBuiltin)) throw new Error(`internal: jax.numpy.${fn} is not a function`);
    return f.fn({ args: [x, ...args], kwargs, span: at });
  };
  /** x.name(*args, **kwargs) is jnp.name(x, *args, **kwargs). */
  const same = (fn: string): PyBoundMethod => new PyBoundMethod(x, name, (c) => jnpCall(fn, c.args, c.kwargs, c.span));
  /** x.reshape(2, 3) / x.transpose(1, 0): several positional arguments are one tuple argument. */
  const packed = (fn: string): PyBoundMethod =>
    new PyBoundMethod(x, name, (c) => jnpCall(fn, c.args.length <= 1 ? c.args : [new PyTuple(c.args)], new Map(), c.span));
  switch (name) {
    case 'shape': return shapeTuple(aval.shape);
    case 'ndim': return BigInt(aval.shape.length);
    case 'size': return BigInt(aval.shape.reduce((a, b) => a * b, 1));
    // bytes per element from the dtype's width (bool: one byte), as NumPy
    case 'itemsize':
    case 'nbytes': {
      const item = aval.dtype === 'bool' ? 1 : Math.max(1, Number(/\d+/.exec(aval.dtype)?.[0] ?? 8) / 8);
      return BigInt(name === 'itemsize' ? item : item * aval.shape.reduce((a, b) => a * b, 1));
    }
    case 'dtype': return new PyDType(aval.dtype);
    case 'T': return jnpCall('transpose', [], new Map(), span);
    case 'real': return jnpCall('real', [], new Map(), span);
    case 'imag': return jnpCall('imag', [], new Map(), span);
    case 'reshape': return new PyBoundMethod(x, name, (c) => jnpCall('reshape', [c.args.length === 1 ? c.args[0]! : new PyTuple(c.args)], c.kwargs.has('order') ? new Map([['order', c.kwargs.get('order')!]]) : new Map(), c.span));
    case 'transpose': return packed('transpose');
    case 'astype':
    case 'sum':
    case 'max':
    case 'min':
    case 'prod':
    case 'mean':
    case 'std':
    case 'var':
    case 'all':
    case 'any':
    case 'argmax':
    case 'argmin':
    case 'cumsum':
    case 'cumprod':
    case 'clip':
    case 'round':
    case 'dot':
    case 'diagonal':
    case 'trace':
    case 'swapaxes':
    case 'repeat':
    case 'copy':
    case 'ptp':
    case 'squeeze':
    case 'sort':
    case 'argsort':
    case 'take':
    case 'searchsorted':
    case 'nonzero':
    case 'choose':
    case 'conj':
    case 'conjugate':
    case 'argpartition': return same(name);
    case 'flatten':
    case 'ravel': return same('ravel');
    case 'at': return new PyIndexUpdateHelper(x);
    case 'block_until_ready': return new PyBoundMethod(x, name, () => x);
    // starts a device-to-host copy that a later readback waits for: nothing to do here, returns None
    case 'copy_to_host_async': return new PyBoundMethod(x, name, () => null);
  }
  return undefined;
}
