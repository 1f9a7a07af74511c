// JAX's float0: the dtype of the tangents and cotangents of integer and boolean values
// (jax.grad(..., allow_int=True) returns, for an int or bool input, a NumPy array of dtype
// float0 with the input's shape). Such an array holds no data: it is a host value here,
// printed as NumPy prints it (str `[(b'',) (b'',)]`, repr `TypedNdArray([(b'',), (b'',)], dtype=void)`).
import { array2string, resolvePrintOptions, shapeRepr } from '../../runtime/format/index.js';
import { Text } from './text.js';
import { PyBoundMethod, PyObject, PyTuple, type PyValue } from './values.js';

/** jax.float0 / jax.dtypes.float0: prints as NumPy's structured dtype `[('float0', 'V')]`. */
export class PyFloat0DType extends PyObject {
  readonly typeName = 'dtype';
  readonly name = 'float0';
}

export const FLOAT0 = new PyFloat0DType();

/** A float0 array of a shape (the zero cotangent of an int or bool value of that shape). */
export class PyFloat0Array extends PyObject {
  readonly typeName = 'TypedNdArray';
  constructor(readonly shape: readonly number[]) {
    super();
  }
}

const ELEMENT = "(b'',)";

/** str() / repr() of a float0 array or of the float0 dtype; null for other values. */
export function float0Text(v: PyValue, repr: boolean): Text | null {
  const s = float0String(v, repr);
  return s === null ? null : Text.of(s);
}

function float0String(v: PyValue, repr: boolean): string | null {
  if (v instanceof PyFloat0DType) return repr ? "dtype([('float0', 'V')])" : "[('float0', 'V')]";
  if (!(v instanceof PyFloat0Array)) return null;
  const a = { dtype: 'float32' as const, shape: v.shape, data: [] };
  if (!repr) return v.shape.length ? array2string(a, { separator: ' ', element: ELEMENT }) : ELEMENT;
  // NumPy's array_repr with the class name TypedNdArray: the dtype is never implied
  const prefix = 'TypedNdArray(';
  const size = v.shape.reduce((p, d) => p * d, 1);
  const lst = v.shape.length ? array2string(a, { separator: ', ', prefix, suffix: ')', element: ELEMENT }) : ELEMENT;
  const extras = [...(size === 0 && !(v.shape.length === 1) ? [`shape=${shapeRepr(v.shape)}`] : []), 'dtype=void'];
  const arrStr = `${prefix}${lst},`;
  const extraStr = `${extras.join(', ')})`;
  const lastLineLen = arrStr.length - (arrStr.lastIndexOf('\n') + 1);
  return arrStr + (lastLineLen + extraStr.length + 1 > resolvePrintOptions().linewidth ? `\n${' '.repeat(prefix.length)}` : ' ') + extraStr;
}

/** A float0 array's attributes: shape, ndim, size, dtype. */
export function float0Attr(v: PyValue, name: string): PyValue | undefined {
  if (!(v instanceof PyFloat0Array)) return undefined;
  switch (name) {
    case 'shape': return new PyTuple(v.shape.map((d) => BigInt(d)));
    case 'ndim': return BigInt(v.shape.length);
    case 'size': return BigInt(v.shape.reduce((p, d) => p * d, 1));
    case 'dtype': return FLOAT0;
    case 'block_until_ready': return new PyBoundMethod(v, name, () => v);
  }
  return undefined;
}
