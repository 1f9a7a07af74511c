// JAX's check_arraylike for jax.numpy: where a jnp function takes an array, a Python list or
// tuple is a TypeError (`jnp.sum([1, 2, 3])`: "sum requires ndarray or scalar arguments, got
// <class 'list'> at position 0."); only jnp.array/asarray and a few others take sequences.
// Which parameters JAX checks is a generated table (arraylike_table.ts).
import { CompileError } from '../common/diagnostics.js';
import { ARRAYLIKE_PARAMS } from './arraylike_table.js';
import { PyList, PyTuple, type CallArgs, type PyValue } from './values.js';

type Fn = (c: CallArgs) => PyValue;

function reject(shown: string, v: PyValue, position: number, c: CallArgs): never {
  const cls = v instanceof PyList ? 'list' : 'tuple';
  throw new CompileError(`TypeError: ${shown} requires ndarray or scalar arguments, got <class '${cls}'> at position ${position}.`, c.span);
}

/** Raises JAX's TypeError when `name`'s array parameters hold a list or tuple (or, for a sequence parameter, an element does). */
export function checkArraylike(name: string, c: CallArgs): void {
  for (const [index, param, shown, position, elements] of ARRAYLIKE_PARAMS[name] ?? []) {
    const v = index < c.args.length ? c.args[index] : c.kwargs.get(param);
    if (!(v instanceof PyList || v instanceof PyTuple)) continue;
    if (!elements) reject(shown, v, position, c);
    v.items.forEach((x, i) => {
      if (x instanceof PyList || x instanceof PyTuple) reject(shown, x, position + i, c);
    });
  }
}

/** The functions of a jnp module with JAX's check_arraylike in front of each that has one. */
export function withArraylikeChecks(fns: Record<string, Fn>): Record<string, Fn> {
  return Object.fromEntries(
    Object.entries(fns).map(([name, f]): [string, Fn] => [name, ARRAYLIKE_PARAMS[name] ? (c) => (checkArraylike(name, c), f(c)) : f]),
  );
}
