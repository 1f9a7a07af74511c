// Where a jit-traced value came from, for JAX's concretization errors (a tracer's
// `_origin_msg`): "The error occurred while tracing the function f at FILE:LINE for
// jit. This concrete value was not available in Python because it depends on the
// value of the argument x." The arguments are the jit trace's declared parameters the
// value depends on, found by walking its equations back from the value.
import { jaxTypeStr, type AVal } from '../ir/types.js';
import type { Trace } from './values.js';
import { Tracer, type PyValue } from './values.js';

interface JitOrigin {
  /** `f at FILE:LINE for jit` */
  info: string;
  /** The argument name of each declared parameter. */
  names: string[];
}
const origins = new WeakMap<Trace, JitOrigin>();

/** Trace `t` traces a function for jit: `info` is `f at FILE:LINE for jit`, `names` name its parameters. */
export function noteJitOrigin(t: Trace, info: string, names: string[]): void {
  origins.set(t, { info, names });
}

/** JAX's origin message of `v` (starting with a newline), or '' where none is known. */
export function originMsg(v: PyValue): string {
  if (!(v instanceof Tracer) || v.atom.kind !== 'var') return '';
  const o = origins.get(v.trace);
  if (!o) return '';
  const b = v.trace.builder;
  const need = new Set([v.atom.id]);
  for (let i = b.eqns.length - 1; i >= 0; i--) {
    const e = b.eqns[i]!;
    if (e.outputs.some((x) => need.has(x.id))) for (const a of e.inputs) if (a.kind === 'var') need.add(a.id);
  }
  const pos = b.params.slice(0, o.names.length).flatMap((p, i) => (need.has(p.id) ? [i] : []));
  if (!pos.length) return '';
  const names = pos.map((i) => o.names[i]!);
  const args = names.length === 1 ? `the argument ${names[0]}`
    : names.length === 2 ? `the arguments ${names[0]} and ${names[1]}`
    : `the arguments ${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]}`;
  return `\nThe error occurred while tracing the function ${o.info}. This concrete value was not available in Python because it depends on the value${pos.length > 1 ? 's' : ''} of ${args}.`;
}

/** The line JAX's errors end with: `See https://docs.jax.dev/en/latest/errors.html#jax.errors.NAME`. */
export const errorPage = (name: string): string => `\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.${name}`;

/** JAX's ConcretizationTypeError for traced `v` of type `aval`, `context` saying where (`The problem arose with …`). */
export const concretizationMessage = (v: PyValue, aval: AVal, context: string): string =>
  `ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape ${jaxTypeStr(aval)}\n${context}${originMsg(v)}\n${errorPage('ConcretizationTypeError')}`;

/** JAX's TracerIntegerConversionError: traced `v` used as a Python index (range, an int argument). */
export const indexConversionMessage = (v: Tracer): string =>
  `TracerIntegerConversionError: The __index__() method was called on traced array with shape ${jaxTypeStr(v.aval)}${originMsg(v)}${errorPage('TracerIntegerConversionError')}`;

/** JAX's TracerArrayConversionError: traced `v` converted to a NumPy array. */
export const arrayConversionMessage = (v: Tracer): string =>
  `TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape ${jaxTypeStr(v.aval)}${originMsg(v)}${errorPage('TracerArrayConversionError')}`;
