// jax.Array printing as JAX 0.10.2's ArrayImpl does it: repr
// ('Array([1.5, 2. ], dtype=float32)'), str (NumPy's str of the value),
// format(x, spec) (0-d: as a Python scalar; ndim >= 1: only the empty spec),
// plus printable Python-object wrappers for arrays and NumPy scalars.

import { formatBool, formatFloat, formatInt, PyFormatError } from './format_spec.js';
import { array2string, numpyRepr, numpyStr, shapeRepr, shapeSize, type HostArray } from './numpy_array.js';
import { isFloatDType, npScalarRepr, npScalarStr, toBigInt, toBool, toFloat, type NpDType, type ScalarValue } from './numpy_scalar.js';
import { resolvePrintOptions, type PrintOptions } from './print_options.js';
import type { PyObjectLike } from './python_repr.js';

/** Extra facts JAX shows in a repr. */
export interface JaxReprOptions {
  /** A weakly typed array (e.g. from a Python scalar) adds ', weak_type=True'. */
  weakType?: boolean;
  options?: Partial<PrintOptions>;
}

/**
 * repr(jax.Array): 'Array([[ 11.,  20.],\n       [ 56.,  65.]], dtype=float32)',
 * 'Array(3., dtype=float32)', 'Array([], shape=(0, 3), dtype=float32)'.
 * Follows ArrayImpl.__repr__ exactly, including its line-length test (which
 * puts six spaces, not a newline, before an overlong 'dtype=...').
 */
export function jaxRepr(a: HostArray, o: JaxReprOptions = {}): string {
  const opts = resolvePrintOptions(o.options);
  const prefix = 'Array(';
  const dtypeStr = `dtype=${a.dtype}${o.weakType ? ', weak_type=True' : ''}`;
  const lineWidth = opts.linewidth;
  const s = shapeSize(a.shape) === 0
    ? `[], shape=${shapeRepr(a.shape)}`
    : array2string(a, { separator: ', ', prefix, suffix: ',', options: opts });
  const lastLineLen = s.length - s.lastIndexOf('\n') + 1;
  const sep = lastLineLen + dtypeStr.length + 2 > lineWidth ? ' '.repeat(prefix.length) : ' ';
  return `${prefix}${s},${sep}${dtypeStr})`;
}

/**
 * repr (and str) of a typed PRNG key array, from its uint32 key data (the
 * key shape plus a trailing 2): 'Array((2,), dtype=key<fry>) overlaying:\n[[...]]'.
 */
export function jaxKeyRepr(data: HostArray): string {
  return `Array(${shapeRepr(data.shape.slice(0, -1))}, dtype=key<fry>) overlaying:\n${numpyStr(data)}`;
}

/** str(jax.Array): NumPy's str of its value ('[1.5 2. ]'; 0-d: '-0.028304616', '3', 'True'). */
export function jaxStr(a: HostArray, options?: Partial<PrintOptions>): string {
  return numpyStr(a, options);
}

/** Python value of a 0-d array's element under format(): float, int or bool. */
function formatScalar(v: ScalarValue, dtype: NpDType, spec: string): string {
  if (isFloatDType(dtype) || dtype === 'bfloat16') return formatFloat(toFloat(v, dtype), spec);
  if (dtype === 'bool') return formatBool(toBool(v), spec);
  return formatInt(toBigInt(v), spec);
}

/**
 * format(array, spec) for a jax.Array or np.ndarray (f"{x:.4f}"):
 * a 0-d array formats as the Python float/int/bool of its element (so even
 * f"{x}" of a float32 prints the float64 repr, '0.10000000149011612');
 * ndim >= 1 gives str(x) for an empty spec and otherwise throws TypeError
 * 'unsupported format string passed to numpy.ndarray.__format__' (JAX
 * forwards to NumPy's ndarray.__format__, whose message this is).
 */
export function arrayFormat(a: HostArray, spec: string): string {
  if (a.shape.length === 0) return formatScalar(a.data[0]!, a.dtype, spec);
  if (spec === '') return numpyStr(a);
  throw new PyFormatError('TypeError', 'unsupported format string passed to numpy.ndarray.__format__');
}

/** A jax.Array as a printable Python object (repr inside lists/dicts, str for print). */
export class JaxArrayObject implements PyObjectLike {
  readonly pyTypeName = 'ArrayImpl';
  constructor(readonly array: HostArray, readonly weakType = false) {}
  __repr__(): string {
    return jaxRepr(this.array, { weakType: this.weakType });
  }
  __str__(): string {
    return jaxStr(this.array);
  }
  __format__(spec: string): string {
    return arrayFormat(this.array, spec);
  }
}

/** An np.ndarray as a printable Python object. */
export class NumpyArrayObject implements PyObjectLike {
  readonly pyTypeName = 'ndarray';
  constructor(readonly array: HostArray) {}
  __repr__(): string {
    return numpyRepr(this.array);
  }
  __str__(): string {
    return numpyStr(this.array);
  }
  __format__(spec: string): string {
    return arrayFormat(this.array, spec);
  }
}

/** A NumPy scalar (np.float32(...), np.int64(...), np.True_) as a printable Python object. */
export class NumpyScalar implements PyObjectLike {
  constructor(readonly value: ScalarValue, readonly dtype: NpDType) {}
  get pyTypeName(): string {
    return this.dtype === 'bool' ? 'numpy.bool' : `numpy.${this.dtype}`;
  }
  __repr__(): string {
    return npScalarRepr(this.value, this.dtype);
  }
  __str__(): string {
    return npScalarStr(this.value, this.dtype);
  }
  __format__(spec: string): string {
    return formatScalar(this.value, this.dtype, spec);
  }
}
