// jax.numpy's dtype functions (jax/_src/dtypes.py): result_type, promote_types,
// can_cast, issubdtype, isdtype, and NumPy's abstract scalar-type hierarchy
// (jnp.floating, jnp.integer, …) they answer questions about. jaxts's dtypes are
// the dtype table's (src/ir/dtypes.ts); float64/int64 names canonicalize to
// their 32-bit kin, as in JAX without x64.
import { CompileError } from '../common/diagnostics.js';
import { DTYPES } from '../ir/dtypes.js';
import { isFloat, isInt, type AVal, type DType } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import { promote } from './arrays.js';
import type { Interp } from './interp.js';
import { arg, dtypeArg } from './modules.js';
import { isArray, PyClass, PyComplex, PyDType, PyTuple, typeName, type CallArgs, type PyValue } from './values.js';

/** NumPy's abstract scalar types, each with its parent. */
const PARENT: Record<string, string | null> = {
  generic: null,
  number: 'generic',
  integer: 'number',
  signedinteger: 'integer',
  unsignedinteger: 'integer',
  inexact: 'number',
  floating: 'inexact',
  complexfloating: 'inexact',
  flexible: 'generic',
  character: 'flexible',
  object_: 'generic',
};
const LEAF = (d: DType): string => DTYPES[d].category;

export const DTYPE_CATEGORIES: Record<string, PyClass> = Object.fromEntries(Object.keys(PARENT).map((n) => [n, new PyClass(n, [], new Map(), 'marker', 'numpy')]));

/** A concrete dtype, an abstract category, or neither. */
function dtypeOrCategory(ip: Interp, v: PyValue, span: Span): { dtype: DType } | { category: string } {
  if (v instanceof PyClass && v.kind === 'marker' && PARENT[v.name] !== undefined && DTYPE_CATEGORIES[v.name] === v) return { category: v.name };
  if (isArray(v) || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyComplex) return { dtype: ip.ops.aval(v, span).dtype };
  const d = dtypeArg(v, span);
  if (d === undefined) throw new CompileError(`TypeError: Cannot interpret '${typeName(v)}' as a data type`, span);
  return { dtype: d };
}

function chain(start: string): string[] {
  const out: string[] = [];
  for (let c: string | null = start; c !== null; c = PARENT[c] ?? null) out.push(c);
  return out;
}

/** The aval a result_type argument stands for: arrays and Python scalars as themselves (scalars weak), dtypes strong. */
function typeAval(ip: Interp, v: PyValue, span: Span): AVal {
  if (isArray(v) || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyComplex) return ip.ops.aval(v, span);
  const d = dtypeArg(v, span);
  if (d === undefined) throw new CompileError('ValueError: at least one array or dtype is required', span);
  return { shape: [], dtype: d, weak: false };
}

const dt = (d: DType): PyDType => new PyDType(d);

/** numpy.can_cast's 'safe' rule among jaxts's dtypes (the value of the target is wide enough for every source value). */
function safeCast(from: DType, to: DType): boolean {
  if (from === to || from === 'bool') return true;
  const f = DTYPES[from];
  const t = DTYPES[to];
  // the significand bits of each float (complex64: its float32 parts)
  const mantissa: Partial<Record<DType, number>> = { float16: 11, bfloat16: 8, float32: 24, complex64: 24 };
  if (f.kind === 'uint' || f.kind === 'int') {
    if (t.kind === 'uint') return f.kind === 'uint' && t.bits > f.bits;
    if (t.kind === 'int') return t.bits > f.bits;
    const valueBits = f.kind === 'int' ? f.bits - 1 : f.bits;
    return t.kind !== 'bool' && (mantissa[to] ?? 0) >= valueBits;
  }
  // float16 and bfloat16 fit float32 (not each other); float32 fits complex64
  if (f.kind === 'float') return to === 'complex64' || (from !== 'float32' && to === 'float32');
  return false;
}

export function dtypeFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return {
    result_type: (c) => {
      if (c.args.length === 0) throw new CompileError('ValueError: at least one array or dtype is required', c.span);
      const avals = c.args.map((a) => typeAval(ip, a, c.span));
      let acc = avals[0]!;
      for (const a of avals.slice(1)) acc = { shape: [], dtype: promote(acc, a), weak: acc.weak === true && a.weak === true };
      return dt(acc.dtype);
    },
    promote_types: (c) => {
      const a = dtypeArg(arg(c, 0, 'a'), c.span);
      const b = dtypeArg(arg(c, 1, 'b'), c.span);
      if (a === undefined || b === undefined) throw new CompileError("TypeError: Cannot interpret 'NoneType' as a data type", c.span);
      return dt(promote({ shape: [], dtype: a, weak: false }, { shape: [], dtype: b, weak: false }));
    },
    can_cast: (c) => {
      const fromV = arg(c, 0, 'from_');
      const from = isArray(fromV) ? ip.ops.aval(fromV, c.span).dtype : dtypeArg(fromV, c.span);
      const to = dtypeArg(arg(c, 1, 'to'), c.span);
      const casting = arg(c, 2, 'casting', 'safe');
      if (from === undefined || to === undefined) throw new CompileError("TypeError: Cannot interpret 'NoneType' as a data type", c.span);
      const kind = (d: DType): number => ({ bool: 0, uint: 1, int: 2, float: 3, complex: 4 })[DTYPES[d].kind];
      switch (casting) {
        case 'no':
        case 'equiv':
          return from === to;
        case 'safe':
          return safeCast(from, to);
        case 'same_kind':
          // a cast within one kind (float to float), never signed to unsigned
          return safeCast(from, to) || kind(to) >= kind(from);
        case 'unsafe':
          return true;
        default:
          throw new CompileError("ValueError: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe'", c.span);
      }
    },
    issubdtype: (c) => {
      const a = dtypeOrCategory(ip, arg(c, 0, 'arg1'), c.span);
      const b = dtypeOrCategory(ip, arg(c, 1, 'arg2'), c.span);
      if ('dtype' in b) return 'dtype' in a && a.dtype === b.dtype;
      const start = 'dtype' in a ? LEAF(a.dtype) : a.category;
      // bool is numpy.bool_, a direct child of generic
      return chain(start).includes(b.category);
    },
    isdtype: (c) => {
      const d = dtypeArg(arg(c, 0, 'dtype'), c.span);
      if (d === undefined) throw new CompileError("TypeError: Cannot interpret 'NoneType' as a data type", c.span);
      const kindV = arg(c, 1, 'kind');
      const kinds = kindV instanceof PyTuple ? kindV.items : [kindV];
      return kinds.some((k) => {
        if (typeof k === 'string') {
          switch (k) {
            case 'bool':
              return d === 'bool';
            case 'signed integer':
              return DTYPES[d].kind === 'int';
            case 'unsigned integer':
              return DTYPES[d].kind === 'uint';
            case 'integral':
              return isInt(d);
            case 'real floating':
              return isFloat(d);
            case 'complex floating':
              return false;
            case 'numeric':
              return d !== 'bool';
            default:
              throw new CompileError(`ValueError: Unrecognized data type kind: '${k}'.`, c.span);
          }
        }
        const kd = dtypeArg(k, c.span);
        return kd === d;
      });
    },
  };
}

