// Helpers for the compile-time Python modules (jax, jax.numpy, numpy, ...):
// reading a call's arguments (positional-or-keyword, shapes, dtypes, static
// numbers) and building a module of builtin functions.
import { CompileError } from '../common/diagnostics.js';
import type { DType } from '../ir/types.js';
import { isDType } from '../ir/dtypes.js';
import type { Span } from '../parser/ast.js';
import { NpScalar, PyBuiltin, PyDType, PyList, PyModule, PyTuple, staticValue, Tracer, typeName, type CallArgs, type PyValue } from './values.js';
import { concretizationMessage, indexConversionMessage, originMsg } from './tracer_origin.js';
import { canonicalDtype, defaultFloat, defaultInt } from './x64.js';

/** Argument `name` at position `i` (or by keyword), else `def`; a missing required one is JAX's TypeError. */
export function arg(c: CallArgs, i: number, name: string, def?: PyValue): PyValue {
  if (i < c.args.length) return c.args[i]!;
  if (c.kwargs.has(name)) return c.kwargs.get(name)!;
  if (def !== undefined) return def;
  throw new CompileError(`TypeError: missing required argument '${name}'`, c.span);
}

/** A module whose function entries become builtins; other entries (submodules, constants) stay as they are. */
export function builtinModule(name: string, entries: Record<string, ((c: CallArgs) => PyValue) | PyValue>): PyModule {
  return new PyModule(
    name,
    new Map(Object.entries(entries).map(([k, f]) => [k, typeof f === 'function' ? new PyBuiltin(k, f as (c: CallArgs) => PyValue) : f])),
  );
}

/** Integers from `reshape(2, 3)` or `reshape((2, 3))`. */
export function shapeArgs(args: PyValue[], span: Span): number[] {
  const items = args.length === 1 && (args[0] instanceof PyTuple || args[0] instanceof PyList) ? (args[0] as PyTuple).items : args;
  const jitTracer = (v: PyValue): boolean => v instanceof Tracer && v.trace.kind === 'jit';
  if (items.some(jitTracer) && items.every((v) => jitTracer(v) || typeof v === 'bigint')) {
    // JAX's message for a traced dimension inside jit: the shape, then where the tracer came from
    const text = items.map((v) => (v instanceof Tracer ? `JitTracer(${v.aval.weak ? '~' : ''}${v.aval.dtype}[${v.aval.shape.join(',')}])` : String(v)));
    throw new CompileError(
      `TypeError: Shapes must be 1D sequences of concrete values of integer type, got (${text.join(', ')}${text.length === 1 ? ',' : ''}).\nIf using \`jit\`, try using \`static_argnums\` or applying \`jit\` to smaller subfunctions.${items.map(originMsg).join('')}`,
      span,
    );
  }
  return items.map((v) => {
    v = staticValue(v, 'a shape', span);
    if (v instanceof NpScalar && (v.dtype === 'int64' || v.dtype === 'int32')) return v.value;
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: Shapes must be 1D sequences of concrete values of integer type, got ${typeName(v)}`, span);
    return Number(v);
  });
}

export function dtypeArg(v: PyValue | undefined, span: Span): DType | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof PyDType) return canonicalDtype(v.name);
  if (typeof v === 'string') {
    const name = v === 'bool_' ? 'bool' : v;
    if (!isDType(name) && name !== 'complex128') throw new CompileError(`TypeError: data type '${v}' not understood`, span);
    return dtypeArg(new PyDType(name as PyDType['name']), span);
  }
  // Python's own types as dtypes (NumPy's rule; int and float are 64-bit there, 32-bit in JAX without x64)
  if (v instanceof PyBuiltin && (v.name === 'bool' || v.name === 'int' || v.name === 'float' || v.name === 'complex')) return v.name === 'bool' ? 'bool' : v.name === 'int' ? defaultInt() : v.name === 'complex' ? 'complex64' : defaultFloat();
  throw new CompileError(`TypeError: data type ${typeName(v)} not understood`, span);
}

/** A static integer argument (a bool counts, as in Python; a NumPy integer scalar too). */
export function intArg(v: PyValue, what: string, span: Span): number {
  v = staticValue(v, what, span);
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  if (v instanceof NpScalar && !v.dtype.startsWith('float')) return v.value;
  if (v instanceof Tracer) throw new CompileError(indexConversionMessage(v), span);
  throw new CompileError(`TypeError: ${what} must be an integer, got ${typeName(v)}`, span);
}

/** A static number argument. */
export function numArg(v: PyValue, what: string, span: Span): number {
  v = staticValue(v, what, span);
  if (typeof v === 'bigint' || typeof v === 'boolean') return Number(v);
  if (typeof v === 'number') return v;
  if (v instanceof NpScalar) return v.value;
  throw new CompileError(`TypeError: ${what} must be a number, got ${typeName(v)}`, span);
}

/** arange's bounds (`arange(stop)` or `arange(start, stop[, step])`), checked as NumPy checks them; `isFloat`: a bound is a float. */
export function arangeArgs(c: CallArgs): { start: number; stop: number; step: number; isFloat: boolean } {
  if (c.args.length < 1) throw new CompileError("TypeError: arange() missing required argument 'start' (pos 1)", c.span);
  const nums = c.args.map((a) => staticValue(a, 'an arange bound', c.span));
  nums.forEach((n, i) => {
    const name = i === 0 ? (nums.length === 1 ? 'stop' : 'start') : i === 1 ? 'stop' : 'step';
    if (n instanceof Tracer) throw new CompileError(concretizationMessage(n, n.aval, `It arose in the jnp.arange argument '${name}'`), c.span);
  });
  const isFloat = nums.some((n) => typeof n === 'number');
  const vals = nums.map((n) => numArg(n, 'an arange bound', c.span));
  const [start, stop, step] = vals.length === 1 ? [0, vals[0]!, 1] : [vals[0]!, vals[1]!, vals[2] ?? 1];
  if (step === 0) throw new CompileError('ZeroDivisionError: division by zero', c.span);
  if (!Number.isFinite((stop - start) / step)) throw new CompileError('ValueError: Maximum allowed size exceeded', c.span);
  return { start, stop, step, isFloat };
}
