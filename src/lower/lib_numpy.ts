// Host NumPy (`import numpy as np`): arrays computed at compile time
// (NdArray, operations in ndarray.ts), np.random (lib_numpy_random.ts),
// and np.array of devices (a mesh's device grid).
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { iterate } from './expr.js';
import type { Interp } from './interp.js';
import { deviceArrayOf } from './lib_sharding.js';
import { numpyRandomModule } from './lib_numpy_random.js';
import { checkItems, checkShape } from './limits.js';
import { arangeArgs, arg, builtinModule, intArg, shapeArgs } from './modules.js';
import { ndArange, ndFrom, ndReshape, ndStack } from './ndarray.js';
import { NdArray, PyClass, PyDevice, PyDeviceArray, PyDType, PyList, PyTuple, isArray, type CallArgs, type PyModule, type PyValue } from './values.js';

export function numpyModule(ip: Interp): PyModule {
  const dt = (name: NdArray['dtype']): PyDType => new PyDType(name, true);
  const filled = (value: number) => (c: CallArgs): NdArray => {
    const s = shapeOf(arg(c, 0, 'shape'), c.span);
    checkShape(s, c.span);
    return new NdArray(s, 'float64', new Array(s.reduce((a, b) => a * b, 1)).fill(value));
  };
  return builtinModule('numpy', {
    random: numpyRandomModule(ip),
    float32: dt('float32'),
    float64: dt('float64'),
    int32: dt('int32'),
    int64: dt('int64'),
    ndarray: new PyClass('ndarray', [], new Map(), 'marker'),
    pi: Math.PI,
    arange: (c) => {
      const { start, stop, step, isFloat } = arangeArgs(c);
      checkItems(Math.ceil((stop - start) / step), 'a NumPy array', c.span);
      return ndArange(start, stop, step, isFloat);
    },
    array: (c) => npArray(ip, c),
    asarray: (c) => npArray(ip, c),
    stack: (c) => ndStack(iterate(ip, arg(c, 0, 'arrays'), c.span).map((x) => ndFrom(x, c.span)), intArg(arg(c, 1, 'axis', 0n), 'axis', c.span), c.span),
    reshape: (c) => ndReshape(ndFrom(arg(c, 0, 'a'), c.span), shapeArgs([arg(c, 1, 'newshape')], c.span), c.span),
    zeros: filled(0),
    ones: filled(1),
  });
}

const shapeOf = (v: PyValue, span: Span): number[] => (typeof v === 'bigint' ? [Number(v)] : shapeArgs([v], span));

function npArray(ip: Interp, c: CallArgs): PyValue {
  const v = arg(c, 0, 'object');
  const d = c.kwargs.get('dtype') ?? c.args[1];
  if ((v instanceof PyList || v instanceof PyTuple) && v.items.some((x) => x instanceof PyDevice)) return deviceArrayOf(ip, v, c.span);
  if (v instanceof PyDeviceArray) return v;
  if (isArray(v)) throw new CompileError('np.array of a device array (a readback into NumPy) is not supported yet', c.span);
  return ndFrom(v, c.span, d instanceof PyDType ? (d.name as NdArray['dtype']) : undefined);
}
