// jax.lax.Precision (an Enum: DEFAULT, HIGH, HIGHEST) and the `precision=`
// argument of dot-like functions, as the `precision` parameter of
// dot_general: a pair (lhs, rhs) of member names, shown by make_jaxpr as
// `precision=(Precision.HIGH, Precision.HIGH)`. The CPU and WebGPU kernels
// compute float32 products in float32 at every precision, as XLA's CPU does.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { defineMembers, ENUM } from './enums.js';
import { PyInstance, PyList, PyNativeMethod, PyTuple, PyUserClass, typeName, type PyValue } from './values.js';

export const PRECISION = new PyUserClass('Precision', [ENUM], 'enum');
PRECISION.attrs.set('DEFAULT', 0n);
PRECISION.attrs.set('HIGH', 1n);
PRECISION.attrs.set('HIGHEST', 2n);
const NOWHERE: Span = { start: { line: 1, col: 1, offset: 0 }, end: { line: 1, col: 1, offset: 0 } }; // the members are ints: defineMembers raises nothing
defineMembers(PRECISION, NOWHERE);
// JAX's Precision: str() is its name, repr() `Precision.NAME`
PRECISION.attrs.set('__str__', new PyNativeMethod('__str__', (self) => String((self as PyInstance).attrs.get('name'))));
PRECISION.attrs.set('__repr__', new PyNativeMethod('__repr__', (self) => `Precision.${String((self as PyInstance).attrs.get('name'))}`));

/** JAX's names for precisions given as strings (lax.Precision's `_missing_`). */
const BY_STRING: Record<string, string> = {
  default: 'DEFAULT', bfloat16: 'DEFAULT', fastest: 'DEFAULT',
  high: 'HIGH', bfloat16_3x: 'HIGH', tensorfloat32: 'HIGH',
  highest: 'HIGHEST', float32: 'HIGHEST',
};

function one(v: PyValue, span: Span): string | null {
  if (v === null) return null;
  if (v instanceof PyInstance && v.cls === PRECISION) return String(v.attrs.get('name'));
  if (typeof v === 'string') {
    const name = BY_STRING[v.toLowerCase()];
    if (name) return name;
  }
  throw new CompileError(
    `ValueError: Precision argument must be one of:\n- None,\n- a string in ['highest', 'float32', 'high', 'bfloat16_3x', 'tensorfloat32', 'default', 'bfloat16', 'fastest', None],\n- a lax.Precision value,\n- a tuple of two lax.Precision values or strings,\n- a lax.DotAlgorithmPreset or the name of one of these presets, or\n- a lax.DotAlgorithm value;\nbut got ${typeof v === 'string' ? v : typeName(v)}.`,
    span,
  );
}

/** The dot_general `precision` parameter for a `precision=` argument (None, a Precision, a string, or a pair of them). */
export function precisionParam(v: PyValue | undefined, span: Span): [string, string] | null {
  if (v === undefined || v === null) return null;
  if (v instanceof PyTuple || v instanceof PyList) {
    if (v.items.length !== 2) throw new CompileError('ValueError: precision argument must be a single value or a tuple of two values', span);
    const [a, b] = v.items.map((x) => one(x, span));
    if (a === null && b === null) return null;
    return [`Precision.${a ?? 'DEFAULT'}`, `Precision.${b ?? 'DEFAULT'}`];
  }
  const p = one(v, span);
  return p === null ? null : [`Precision.${p}`, `Precision.${p}`];
}
