// Typed PRNG key arrays (`jax.random.key`): JAX's key<fry> dtype. A key
// array of shape S is carried as its uint32 key data of shape S + (2,)
// (PyKeyArray in values.ts); this file gives it the behaviour of a JAX array:
// indexing and iteration over its key dimensions, `.shape`/`.dtype`/`.ndim`,
// and printing as JAX prints it ('Array((), dtype=key<fry>) overlaying:\n[0 0]').
import { indexArray } from './indexing.js';
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { Text } from './text.js';
import { HostArray, PyBoundMethod, PyKeyArray, PyObject, PyTuple, Tracer, type PyValue } from './values.js';

/** The dtype of typed keys: prints as `key<fry>`. */
export class PyKeyDType extends PyObject {
  readonly typeName = 'dtype';
  readonly name = 'key<fry>';
}

export const KEY_DTYPE = new PyKeyDType();

/** The name JAX's default PRNG implementation prints as (`jax.random.key_impl(k)`). */
export const KEY_IMPL = 'threefry2x32';

/** Wrap uint32 key data (shape S + (2,)) as a key array of shape S. */
export function wrapKeys(data: Tracer | HostArray): PyKeyArray {
  return new PyKeyArray(data);
}

/** `keys[idx]`: indexing over the key dimensions keeps each key's two words. */
export function keyIndex(ip: Interp, k: PyKeyArray, key: PyValue, span: A.Span): PyKeyArray {
  const items = ip.indexItems(key, span);
  const consumed = items.reduce((n, i) => n + (i.kind === 'mask' ? i.shape.length : i.kind === 'int' || i.kind === 'slice' || i.kind === 'array' ? 1 : 0), 0);
  const rank = k.shape.length;
  if (consumed > rank) throw new CompileError(`IndexError: Too many indices: ${rank}-dimensional array indexed with ${consumed} regular indices.`, span);
  return wrapKeys(indexArray(ip.ops, k.data, [...items, { kind: 'slice', start: null, stop: null, step: null }], span));
}

/** The keys of iterating a key array along its first dimension. */
export function keyItems(ip: Interp, k: PyKeyArray, span: A.Span): PyKeyArray[] {
  const n = k.shape[0];
  if (n === undefined) throw new CompileError('TypeError: iteration over a 0-d key array', span);
  return Array.from({ length: n }, (_, i) => wrapKeys(ip.ops.index(k.data, [{ kind: 'int', value: i }], span)));
}

/** `k.name` of a key array; undefined for names key arrays lack. */
export function keyAttr(k: PyKeyArray, name: string): PyValue | undefined {
  const shape = k.shape;
  switch (name) {
    case 'shape': return new PyTuple(shape.map((d) => BigInt(d)));
    case 'ndim': return BigInt(shape.length);
    case 'size': return BigInt(shape.reduce((a, b) => a * b, 1));
    case 'dtype': return KEY_DTYPE;
    case 'block_until_ready': return new PyBoundMethod(k, name, () => k);
  }
  return undefined;
}

/** str()/repr() of a key array or the key dtype (they print the same); null for other values. */
export function keyText(ip: Interp, v: PyValue, span: A.Span): Text | null {
  if (v instanceof PyKeyDType) return Text.of(v.name);
  if (!(v instanceof PyKeyArray)) return null;
  const d = v.data;
  if (d instanceof Tracer && !d.materialized && d.trace.kind === 'jit') return Text.of(`JitTracer(key<fry>[${v.shape.join(',')}])`);
  if (d instanceof Tracer && !d.materialized && d.trace.kind !== 'segment') {
    throw new CompileError('printing a traced key array inside a transformed function (jit, grad, vmap, pmap) is not supported: JAX gives the tracer\'s description, not its values', span);
  }
  const h = ip.hostArray(d, span);
  return new Text([{ k: 'call', callee: 'jx.keyRepr', args: [{ k: 'var', name: h.name }], await: true }]);
}
