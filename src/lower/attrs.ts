// Attribute access: module members, array properties and methods
// (`x.shape`, `x.reshape(...)`), container methods (`xs.append`), NamedTuple fields.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { DType } from '../ir/types.js';
import { normalizeAxes } from './arrays.js';
import { NeedsStatic, type Interp } from './interp.js';
import { ndAstype, ndReshape } from './numpy_static.js';
import { JAX_NAMES } from './jax_names.js';
import { suggestName } from './suggest.js';
import {
  HostArray, NdArray, PyBoundMethod, PyClass, PyDevice, PyDict, PyDType, PyFunction, PyList, PyModule, PyTransformed, PyTuple, Tracer,
  checkDictKey, isArray, typeName, type CallArgs, type PyValue,
} from './values.js';
import { truthy } from './pyops.js';
import { arg } from './modules.js';
import { checkItems } from './limits.js';
import { iterate } from './expr.js';
import { shardingAttr } from './lib_sharding.js';
import { strFormat, textValue } from './format.js';

const shapeTuple = (s: readonly number[]): PyTuple => new PyTuple(s.map((d) => BigInt(d)));

/** Integers from `reshape(2, 3)` or `reshape((2, 3))`. */
export function shapeArgs(ip: Interp, args: PyValue[], span: A.Span): number[] {
  const items = args.length === 1 && (args[0] instanceof PyTuple || args[0] instanceof PyList) ? (args[0] as PyTuple).items : args;
  return items.map((v) => {
    v = ip.static(v, 'a shape', span);
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: Shapes must be 1D sequences of concrete values of integer type, got ${typeName(v)}`, span);
    return Number(v);
  });
}

export function dtypeArg(v: PyValue | undefined, span: A.Span): DType | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof PyDType) return v.name === 'float64' ? 'float32' : v.name === 'int64' ? 'int32' : v.name;
  if (typeof v === 'string') {
    const name = v === 'bool_' ? 'bool' : v;
    if (!['float32', 'float64', 'int32', 'int64', 'uint32', 'bool'].includes(name)) throw new CompileError(`TypeError: data type '${v}' not understood`, span);
    return dtypeArg(new PyDType(name as PyDType['name']), span);
  }
  throw new CompileError(`TypeError: data type ${typeName(v)} not understood`, span);
}

const method = (self: PyValue, name: string, fn: (c: CallArgs) => PyValue): PyBoundMethod => new PyBoundMethod(self, name, fn);

function strArg(c: CallArgs, i: number): string {
  const v = c.args[i];
  if (typeof v !== 'string') throw new CompileError(`TypeError: must be str, not ${typeName(v ?? null)}`, c.span);
  return v;
}

function stripChars(s: string, chars: string, left: boolean, right: boolean): string {
  let a = 0;
  let b = s.length;
  while (left && a < b && chars.includes(s[a]!)) a++;
  while (right && b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/**
 * A module attribute jaxts lacks: one the pinned JAX (or NumPy) has is "not
 * supported", with the nearest supported name; any other is Python's
 * AttributeError with its "Did you mean" suggestion.
 */
function missingModuleAttr(mod: PyModule, name: string, span: A.Span): CompileError {
  const real = JAX_NAMES[mod.name];
  if (real?.includes(name)) {
    const supported = [...mod.attrs.keys()].filter((k) => !k.startsWith('_')).sort();
    // Python's suggestion, else the longest supported name inside this one (nanmean → mean)
    const inside = supported.filter((k) => k.length >= 3 && name.includes(k)).sort((a, b) => b.length - a.length)[0];
    const near = suggestName(name, supported) ?? inside;
    const hint = near ? ` (the nearest supported: ${mod.name}.${near})` : '';
    return new CompileError(`NotImplementedError: ${mod.name}.${name} is not supported by jaxts${hint}`, span);
  }
  const guess = suggestName(name, real ?? [...mod.attrs.keys()].sort());
  return new CompileError(`AttributeError: module '${mod.name}' has no attribute '${name}'${guess ? `. Did you mean: '${guess}'?` : ''}`, span);
}

export function getAttr(ip: Interp, obj: PyValue, name: string, span: A.Span): PyValue {
  const missing = (): CompileError =>
    obj instanceof PyModule ? missingModuleAttr(obj, name, span) : new CompileError(`AttributeError: '${typeName(obj)}' object has no attribute '${name}'`, span);
  if (obj instanceof PyModule) {
    const v = obj.attrs.get(name);
    if (v === undefined) throw missing();
    return v;
  }
  const sh = shardingAttr(ip, obj, name, span);
  if (sh !== undefined) return sh;
  if (isArray(obj)) return arrayAttr(ip, obj, name, span) ?? (() => { throw missing(); })();
  if (obj instanceof NdArray) {
    switch (name) {
      case 'shape': return shapeTuple(obj.shape);
      case 'ndim': return BigInt(obj.shape.length);
      case 'size': return BigInt(obj.data.length);
      case 'dtype': return new PyDType(obj.dtype);
      case 'reshape': return method(obj, name, (c) => ndReshape(obj, shapeArgs(ip, c.args, c.span), c.span));
      case 'astype': return method(obj, name, (c) => {
        const d = arg(c, 0, 'dtype');
        const name = d instanceof PyDType ? d.name : dtypeArg(d, c.span);
        if (name === undefined) throw new CompileError(`TypeError: data type ${typeName(d)} not understood`, c.span);
        return ndAstype(obj, name as NdArray['dtype']);
      });
    }
    throw missing();
  }
  if (obj instanceof PyTuple && obj.cls) {
    const i = obj.cls.fields.indexOf(name);
    if (i >= 0) return obj.items[i]!;
    if (name === '_fields') return new PyTuple(obj.cls.fields);
    if (name === '_replace') {
      const cls = obj.cls;
      return method(obj, name, (c) => {
        const items = [...obj.items];
        for (const [k, v] of c.kwargs) {
          const j = cls.fields.indexOf(k);
          if (j < 0) throw new CompileError(`ValueError: Got unexpected field names: ['${k}']`, c.span);
          items[j] = v;
        }
        return new PyTuple(items, cls);
      });
    }
    if (name === '_asdict') {
      return method(obj, name, () => {
        const d = new PyDict();
        obj.cls!.fields.forEach((f, j) => d.set(f, obj.items[j]!));
        return d;
      });
    }
  }
  if (obj instanceof PyDict) {
    switch (name) {
      case 'keys': return method(obj, name, () => new PyList(obj.keys()));
      case 'values': return method(obj, name, () => new PyList(obj.values()));
      case 'items': return method(obj, name, () => new PyList([...obj.entries.values()].map(([k, v]) => new PyTuple([k, v]))));
      case 'get': return method(obj, name, (c) => obj.get(checkDictKey(arg(c, 0, 'key'), c.span)) ?? c.args[1] ?? null);
    }
  }
  if (obj instanceof PyList) {
    const mutate = (c: CallArgs): void => {
      if (ip.dynamicDepth > 0) throw new NeedsStatic(`list.${name} inside a loop that runs on the host`, c.span);
    };
    switch (name) {
      case 'append': return method(obj, name, (c) => (mutate(c), obj.items.push(arg(c, 0, 'object')), null));
      case 'extend': return method(obj, name, (c) => {
        mutate(c);
        // a loop, not push(...items): a long iterable would overflow the call's arguments
        for (const x of iterate(ip, arg(c, 0, 'iterable'), c.span)) obj.items.push(x);
        return null;
      });
      case 'pop': return method(obj, name, (c) => (mutate(c), obj.items.pop() ?? null));
    }
  }
  if (typeof obj === 'string') {
    switch (name) {
      case 'join': return method(obj, name, (c) => {
        const items = iterate(ip, arg(c, 0, 'iterable'), c.span);
        if (items.every((x) => typeof x === 'string')) return (items as string[]).join(obj);
        throw new CompileError('TypeError: sequence item: expected str instance', c.span);
      });
      case 'upper': return method(obj, name, () => obj.toUpperCase());
      case 'lower': return method(obj, name, () => obj.toLowerCase());
      case 'strip': return method(obj, name, (c) => (c.args.length ? stripChars(obj, strArg(c, 0), true, true) : obj.trim()));
      case 'lstrip': return method(obj, name, (c) => (c.args.length ? stripChars(obj, strArg(c, 0), true, false) : obj.trimStart()));
      case 'rstrip': return method(obj, name, (c) => (c.args.length ? stripChars(obj, strArg(c, 0), false, true) : obj.trimEnd()));
      case 'title': return method(obj, name, () => obj.toLowerCase().replace(/(^|[^\p{L}])(\p{L})/gu, (_, a: string, b: string) => a + b.toUpperCase()));
      case 'capitalize': return method(obj, name, () => obj.charAt(0).toUpperCase() + obj.slice(1).toLowerCase());
      case 'replace': return method(obj, name, (c) => obj.split(strArg(c, 0)).join(strArg(c, 1)));
      case 'startswith': return method(obj, name, (c) => obj.startsWith(strArg(c, 0)));
      case 'endswith': return method(obj, name, (c) => obj.endsWith(strArg(c, 0)));
      case 'find': return method(obj, name, (c) => BigInt(obj.indexOf(strArg(c, 0))));
      case 'count': return method(obj, name, (c) => BigInt(obj.split(strArg(c, 0)).length - 1));
      case 'split': return method(obj, name, (c) => new PyList(c.args.length && c.args[0] !== null ? obj.split(strArg(c, 0)) : obj.trim().split(/\s+/).filter((s) => s !== '')));
      case 'zfill': return method(obj, name, (c) => {
        const wv = arg(c, 0, 'width');
        if (typeof wv !== 'bigint' && typeof wv !== 'boolean') throw new CompileError(`TypeError: '${typeName(wv)}' object cannot be interpreted as an integer`, c.span);
        const w = Number(wv);
        checkItems(w, 'a str', c.span);
        const sign = /^[+-]/.test(obj) ? obj[0]! : '';
        return sign + obj.slice(sign.length).padStart(w - sign.length, '0');
      });
      case 'format': return method(obj, name, (c) => textValue(strFormat(ip, obj, c)));
    }
  }
  if (obj instanceof PyDevice) {
    if (name === 'id') return BigInt(obj.id);
  }
  if (obj instanceof PyDType && name === 'name') return obj.name;
  if (obj instanceof PyClass && (name === '__name__' || name === '__qualname__')) return obj.name;
  if ((obj instanceof PyFunction || obj instanceof PyTransformed) && name === '__name__') return obj.name;
  if (obj instanceof PyFunction && name === '__doc__') return obj.def.kind === 'FunctionDef' ? obj.def.docstring : null;
  throw missing();
}

function arrayAttr(ip: Interp, x: Tracer | HostArray, name: string, span: A.Span): PyValue | undefined {
  const aval = x instanceof Tracer ? x.aval : x.aval;
  const ops = ip.ops;
  const axisKw = (c: CallArgs): PyValue => c.kwargs.get('axis') ?? c.args[0] ?? null;
  const keep = (c: CallArgs): boolean => truthy(c.kwargs.get('keepdims') ?? false, c.span);
  switch (name) {
    case 'shape': return shapeTuple(aval.shape);
    case 'ndim': return BigInt(aval.shape.length);
    case 'size': return BigInt(aval.shape.reduce((a, b) => a * b, 1));
    case 'dtype': return new PyDType(aval.dtype);
    case 'T': return ops.transpose(x, null, span);
    case 'reshape': return method(x, name, (c) => ops.reshape(x, shapeArgs(ip, c.args, c.span), c.span));
    case 'transpose': return method(x, name, (c) => ops.transpose(x, c.args.length ? shapeArgs(ip, c.args, c.span) : null, c.span));
    case 'astype': return method(x, name, (c) => ops.convert(ops.asArray(x, c.span), dtypeArg(c.args[0], c.span)!, c.span));
    case 'sum': return method(x, name, (c) => ops.reduce('reduce_sum', x, axisKw(c), keep(c), c.span));
    case 'max': return method(x, name, (c) => ops.reduce('reduce_max', x, axisKw(c), keep(c), c.span));
    case 'min': return method(x, name, (c) => ops.reduce('reduce_min', x, axisKw(c), keep(c), c.span));
    case 'prod': return method(x, name, (c) => ops.reduce('reduce_prod', x, axisKw(c), keep(c), c.span));
    case 'mean': return method(x, name, (c) => ops.mean(x, axisKw(c), keep(c), c.span));
    case 'squeeze': return method(x, name, (c) => {
      const axes = c.args.length ? normalizeAxes(c.args[0]!, aval.shape.length, c.span) : aval.shape.flatMap((d, i) => (d === 1 ? [i] : []));
      return ops.reshape(x, aval.shape.filter((_, i) => !axes.includes(i)), c.span);
    });
    case 'flatten':
    case 'ravel': return method(x, name, (c) => ops.reshape(x, [-1], c.span));
    case 'block_until_ready': return method(x, name, () => x);
  }
  return undefined;
}
