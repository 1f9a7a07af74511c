// Attribute access: module members, host NumPy arrays' properties and methods,
// container and str methods (`xs.append`, `s.join`), NamedTuple fields; the
// attributes libraries define (JAX arrays' methods, sharding objects) come
// from the library layer (ip.library.attr).
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { ndAstype, ndAttr, ndReshape } from './ndarray.js';
import { JAX_NAMES } from './jax_names.js';
import { suggestName, supportedAlternative } from './suggest.js';
import {
  NdArray, PyBoundMethod, PyClass, PyDevice, PyDict, PyDType, PyFunction, PyList, PyModule, PyTransformed, PyTuple,
  checkDictKey, isArray, typeName, type CallArgs, type PyValue, NeedsStatic,
} from './values.js';
import { arg, dtypeArg, shapeArgs } from './modules.js';
import { checkItems } from './limits.js';
import { iterate } from './expr.js';
import { strFormat, textValue } from './format.js';
import { classAttr } from './classes.js';

const shapeTuple = (s: readonly number[]): PyTuple => new PyTuple(s.map((d) => BigInt(d)));

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
    const near = supportedAlternative(name, supported);
    const hint = near ? ` (the nearest supported: ${mod.name}.${near})` : '';
    return new CompileError(`NotImplementedError: ${mod.name}.${name} is not supported by jaxts${hint}`, span);
  }
  const guess = suggestName(name, real ?? [...mod.attrs.keys()].sort());
  return new CompileError(`AttributeError: module '${mod.name}' has no attribute '${name}'${guess ? `. Did you mean: '${guess}'?` : ''}`, span);
}

export function getAttr(ip: Interp, obj: PyValue, name: string, span: A.Span): PyValue {
  const missing = (): CompileError => {
    if (obj instanceof PyModule) return missingModuleAttr(obj, name, span);
    // an attribute JAX arrays have (x.at, x.argsort, ...) that jaxts does not support
    if (isArray(obj) && JAX_NAMES['jax.Array']?.includes(name)) return new CompileError(`NotImplementedError: the jax.Array attribute '${name}' (x.${name}) is not supported by jaxts`, span);
    return new CompileError(`AttributeError: '${typeName(obj)}' object has no attribute '${name}'`, span);
  };
  if (obj instanceof PyModule) {
    const v = obj.attrs.get(name);
    if (v === undefined) throw missing();
    return v;
  }
  const user = classAttr(ip, obj, name, span);
  if (user !== undefined) return user;
  const lib = ip.library.attr(obj, name, span);
  if (lib !== undefined) return lib;
  if (isArray(obj)) throw missing();
  if (obj instanceof NdArray) {
    const nd = ndAttr(obj, name);
    if (nd !== undefined) return nd;
    switch (name) {
      case 'shape': return shapeTuple(obj.shape);
      case 'ndim': return BigInt(obj.shape.length);
      case 'size': return BigInt(obj.data.length);
      case 'dtype': return new PyDType(obj.dtype);
      case 'reshape': return method(obj, name, (c) => ndReshape(obj, shapeArgs(c.args, c.span), c.span));
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
      case 'splitlines': return method(obj, name, () => new PyList(obj === '' ? [] : obj.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/)));
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
