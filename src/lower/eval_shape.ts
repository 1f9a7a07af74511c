// jax.eval_shape and jax.ShapeDtypeStruct: a function traced on abstract
// values (nothing is computed or emitted); its results' shapes and dtypes.
import { CompileError } from '../common/diagnostics.js';
import type { AVal, DType } from '../ir/types.js';
import type { Interp } from './interp.js';
import { dtypeArg, shapeArgs } from './modules.js';
import { Text } from './text.js';
import { avalOf, flatten } from './transforms.js';
import { jaxDtype } from './arrays.js';
import { NdArray, NpScalar, PyBuiltin, PyDType, PyObject, PyTransformed, typeName, PyTuple, Trace, Tracer, isArray, type CallArgs, type PyValue } from './values.js';
import { noteTraceCacheKey } from './format.js';

/** jax.ShapeDtypeStruct: an array's shape, dtype and weak type, without data. */
export class PyShapeDtypeStruct extends PyObject {
  readonly typeName = 'ShapeDtypeStruct';
  constructor(readonly aval: AVal) {
    super();
  }
}

/** jax.ShapeDtypeStruct(shape, dtype, sharding=None, weak_type=False) */
export function shapeDtypeStruct(c: CallArgs): PyValue {
  const shapeV = c.args[0] ?? c.kwargs.get('shape');
  const dtypeV = c.args[1] ?? c.kwargs.get('dtype');
  if (shapeV === undefined || dtypeV === undefined) throw new CompileError("TypeError: ShapeDtypeStruct.__init__() missing required arguments: 'shape' and 'dtype'", c.span);
  const shape = shapeV instanceof PyTuple ? shapeArgs(shapeV.items, c.span) : shapeArgs([shapeV], c.span);
  const dtype = dtypeArg(dtypeV, c.span);
  if (!dtype) throw new CompileError('TypeError: ShapeDtypeStruct: dtype must be given', c.span);
  const weak = c.kwargs.get('weak_type') === true;
  return new PyShapeDtypeStruct({ shape, dtype, ...(weak ? { weak: true } : {}) });
}

/** jax.ShapeDtypeStruct.like(x): the shape, dtype and weak type of an array (or a NumPy value, a Python scalar). */
function shapeDtypeLike(c: CallArgs): PyValue {
  const x = c.args[0];
  if (x === undefined) throw new CompileError("TypeError: like() missing 1 required positional argument: 'x'", c.span);
  if (x instanceof PyShapeDtypeStruct) return x;
  if (isArray(x)) return new PyShapeDtypeStruct({ ...x.aval });
  if (x instanceof NdArray) return new PyShapeDtypeStruct({ shape: x.shape, dtype: jaxDtype(x.dtype) });
  if (x instanceof NpScalar) return new PyShapeDtypeStruct({ shape: [], dtype: jaxDtype(x.dtype) });
  if (typeof x === 'number' || typeof x === 'bigint') return new PyShapeDtypeStruct({ shape: [], dtype: typeof x === 'number' ? 'float32' : 'int32', weak: true });
  if (typeof x === 'boolean') return new PyShapeDtypeStruct({ shape: [], dtype: 'bool' });
  throw new CompileError(`AttributeError: '${typeName(x)}' object has no attribute 'shape'`, c.span);
}

const numpyName = (d: DType): PyDType['name'] => (d === 'uint32' ? 'int32' : d);

export function shapeDtypeText(v: PyValue): Text | null {
  if (!(v instanceof PyShapeDtypeStruct)) return null;
  const s = v.aval.shape;
  return Text.of(`ShapeDtypeStruct(shape=(${s.join(', ')}${s.length === 1 ? ',' : ''}), dtype=${v.aval.dtype}${v.aval.weak ? ', weak_type=True' : ''})`);
}

/** jax.ShapeDtypeStruct, the class: called, a new one; `.like(x)` one for x's shape and dtype. */
export const SHAPE_DTYPE_STRUCT = new PyBuiltin('ShapeDtypeStruct', (c) => shapeDtypeStruct(c));

export function shapeDtypeAttr(v: PyValue, name: string): PyValue | undefined {
  if (v === SHAPE_DTYPE_STRUCT && name === 'like') return new PyBuiltin('like', (c) => shapeDtypeLike(c));
  if (!(v instanceof PyShapeDtypeStruct)) return undefined;
  switch (name) {
    case 'shape':
      return new PyTuple(v.aval.shape.map(BigInt));
    case 'dtype':
      return new PyDType(numpyName(v.aval.dtype));
    case 'ndim':
      return BigInt(v.aval.shape.length);
    case 'size':
      return BigInt(v.aval.shape.reduce((a, b) => a * b, 1));
    case 'weak_type':
      return v.aval.weak === true;
    case 'sharding':
      return null;
  }
  return undefined;
}

/** jax.eval_shape(fun, *args, **kwargs): the ShapeDtypeStructs of fun's results. */
export function evalShape(ip: Interp, c: CallArgs): PyValue {
  const span = c.span;
  const fn = c.args[0];
  if (fn === undefined) throw new CompileError("TypeError: eval_shape() missing 1 required positional argument: 'fun'", span);
  const flat = flatten(new PyTuple([new PyTuple(c.args.slice(1)), new PyTuple([...c.kwargs.values()])]));
  const parent = ip.trace();
  const t = new Trace('eval_shape', 'jit', parent, parent.axisEnv);
  const params = flat.leaves.map((l) => {
    if (l instanceof PyShapeDtypeStruct) return new Tracer(t, t.builder.addParam(l.aval));
    if (isArray(l) || l instanceof NdArray) return new Tracer(t, t.builder.addParam(avalOf(ip, l, span)));
    if (typeof l === 'number') return new Tracer(t, t.builder.addParam({ shape: [], dtype: 'float32', weak: true }));
    return l;
  });
  const [args, kws] = (ip.withTrace(t, () => flat.unflatten(params)) as PyTuple).items as [PyTuple, PyTuple];
  const kwargs = new Map([...c.kwargs.keys()].map((k, i) => [k, kws.items[i]!]));
  // (prints while tracing show once per function and signature: JAX's trace cache, shared with jit and make_jaxpr)
  if (parent.kind === 'segment') {
    const keyed = flatten(new PyTuple([...args.items, ...kwargs.values()]));
    noteTraceCacheKey(ip, t, fn instanceof PyTransformed && fn.transform === 'jit' ? fn.fn : fn, [...keyed.leaves, ...keyed.aux], span);
  }
  return ip.withTrace(t, () => {
    const out = flatten(ip.call(fn, { args: args.items, kwargs, span }));
    return out.unflatten(out.leaves.map((l) => new PyShapeDtypeStruct(ip.ops.aval(l, span))));
  });
}
