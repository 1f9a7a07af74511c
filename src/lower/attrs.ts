// Attribute access: module members, host NumPy arrays' properties and methods,
// container and str methods (`xs.append`, `s.join`), NamedTuple fields; the
// attributes libraries define (JAX arrays' methods, sharding objects) come
// from the library layer (ip.library.attr).
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { PySlice } from './interp.js';
import { ndAstype, ndAttr, ndReshape } from './ndarray.js';
import { JAX_NAMES } from './jax_names.js';
import { suggestName, supportedAlternative } from './suggest.js';
import {
  PyBuiltin, PyComplex, PyDescriptor, PyPartial,
  HostList, HostNd, HostScalar, PyIterator, NdArray, NpScalar, PyBoundMethod, PyClass, PyDevice, PyDict, PyDType, PyFunction, PyList, PyModule, PyTransformed, PyTuple,
  checkDictKey, dictKey, isArray, typeName, type CallArgs, type PyValue, NeedsStatic,
} from './values.js';
import { arg, dtypeArg, intArg, shapeArgs } from './modules.js';
import { staticCompare, staticEquals, truthy } from './pyops.js';
import { checkItems } from './limits.js';
import { iterate } from './expr.js';
import { reprOf, strFormat, textValue } from './format.js';
import { classAttr, EXCEPTIONS, newException, raiseValue } from './classes.js';
import { PySet, setMethod } from './sets.js';
import { Text } from './text.js';
import { runTimeKeys, runTimeSorted } from './host_select.js';
import { declareHostList, hostListElem, hostListFind, hostListJoin, hostListMethod, PromoteToHostList, rootList } from './host_list.js';
import { hostStrMethod } from './host_str.js';
import { hostNdAstype, hostNdReduce, hostNdReshape, hostNdTranspose, type HostReduction } from './host_numpy.js';

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

/** A typing.NamedTuple class's method or class attribute `name`, seen through tuple `self` (null: through the class). */
export function namedTupleMember(ip: Interp, cls: PyClass, self: PyTuple | null, name: string, span: A.Span): PyValue | undefined {
  const m = cls.methods.get(name);
  if (m instanceof PyDescriptor) {
    if (m.kind === 'staticmethod') return m.fn;
    if (m.kind === 'classmethod') return method(cls, name, (c) => ip.call(m.fn, { ...c, args: [cls, ...c.args] }));
    return self ? ip.call(m.fn, { args: [self], kwargs: new Map(), span }) : m;
  }
  if (self && (m instanceof PyFunction || m instanceof PyPartial || m instanceof PyTransformed)) return method(self, name, (c) => ip.call(m, { ...c, args: [self, ...c.args] }));
  return m;
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
  // every object's __class__ is its type (x.__class__ is type(x))
  if (name === '__class__') return ip.call(ip.builtins.vars.get('type')!, { args: [obj], kwargs: new Map(), span });
  if (isArray(obj)) throw missing();
  // str.replace of a string known only at run time (a traceback's text), with strings known now
  if (obj instanceof HostScalar && obj.type === 'str' && name === 'replace') {
    return method(obj, name, (c) => new HostScalar({ k: 'call', callee: 'jx.pyStrReplace', args: [obj.expr, { k: 'lit', value: strArg(c, 0) }, { k: 'lit', value: strArg(c, 1) }] }, 'str'));
  }
  const str = obj instanceof HostScalar && obj.type === 'str' && obj.raw === null ? hostStrMethod(ip, obj, name) : undefined;
  if (str) return str;
  if (obj instanceof PyComplex || typeof obj === 'number') {
    const [re, im] = obj instanceof PyComplex ? [obj.re, obj.im] : [obj, 0];
    if (name === 'real') return re;
    if (name === 'imag') return im;
    if (name === 'conjugate') return method(obj, name, () => (obj instanceof PyComplex ? new PyComplex(re, -im) : re));
  }
  if (obj instanceof PySlice && (name === 'start' || name === 'stop' || name === 'step')) {
    const k = name === 'start' ? 0 : name === 'stop' ? 1 : 2;
    if (obj.values) return obj.values[k]!;
    const v = [obj.start, obj.stop, obj.step][k]!;
    return v === null ? null : BigInt(v);
  }
  if (obj instanceof NpScalar) {
    // a NumPy scalar has a 0-d array's attributes (dtype, shape, astype, item, …); a method's 0-d result is a scalar again
    const zeroD = new NdArray([], obj.dtype, [obj.value]);
    const scalar = (v: PyValue): PyValue => (v instanceof NdArray && v.shape.length === 0 ? new NpScalar(v.dtype, v.data[0]!) : v);
    let v: PyValue;
    try {
      v = getAttr(ip, zeroD, name, span);
    } catch (e) {
      if (e instanceof CompileError && e.message.startsWith('AttributeError')) throw missing();
      throw e;
    }
    return v instanceof PyBoundMethod ? method(obj, name, (c) => scalar(ip.call(v, c))) : scalar(v);
  }
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
  if (obj instanceof HostNd) {
    const red = (kind: HostReduction) => method(obj, name, (c) => {
      const a = arg(c, 0, 'axis', null);
      const axes = a === null ? null : a instanceof PyTuple ? a.items.map((x) => intArg(x, 'axis', c.span)) : [intArg(a, 'axis', c.span)];
      return hostNdReduce(ip, kind, obj, axes, c.kwargs.get('keepdims') === true, c.span);
    });
    switch (name) {
      case 'shape': return shapeTuple(obj.shape);
      case 'ndim': return BigInt(obj.shape.length);
      case 'size': return BigInt(obj.shape.reduce((a, b) => a * b, 1));
      case 'dtype': return new PyDType(obj.dtype, true);
      case 'T': return obj.shape.length < 2 ? obj : hostNdTranspose(ip, obj);
      case 'reshape': return method(obj, name, (c) => hostNdReshape(ip, obj, shapeArgs(c.args, c.span), c.span));
      case 'flatten':
      case 'ravel': return method(obj, name, (c) => hostNdReshape(ip, obj, [-1], c.span));
      case 'copy': return method(obj, name, () => obj);
      case 'astype': return method(obj, name, (c) => {
        const d = arg(c, 0, 'dtype');
        const dn = d instanceof PyDType ? d.name : dtypeArg(d, c.span);
        if (dn === undefined || dn.startsWith('complex')) throw new CompileError(`TypeError: data type ${typeName(d)} not understood`, c.span);
        return hostNdAstype(ip, obj, dn as NdArray['dtype']);
      });
      case 'sum': case 'prod': case 'max': case 'min': case 'mean': case 'any': case 'all':
        return red(name);
      case 'item': case 'tolist': return method(obj, name, (c) => hostNdToPython(obj, name, c.span));
    }
    // a method run-time NumPy lacks computes as the jax.Array's, of the array's device copy
    if (JAX_NAMES['jax.Array']?.includes(name)) return getAttr(ip, ip.hostArray(obj, span), name, span);
    throw missing();
  }
  if (obj instanceof PyTuple && obj.cls) {
    const i = obj.cls.fields.indexOf(name);
    if (i >= 0) return obj.items[i]!;
    const m = namedTupleMember(ip, obj.cls, obj, name, span);
    if (m !== undefined) return m;
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
  if (obj instanceof PyDict && obj.flavor) {
    const m = flavoredDictMethod(ip, obj, name);
    if (m) return method(obj, name, m);
  }
  if (obj instanceof PyList && obj.deque) {
    const m = dequeMethod(ip, obj, obj.deque, name);
    if (m) return method(obj, name, m);
  }
  if (obj instanceof PyDict) {
    switch (name) {
      case 'keys': return method(obj, name, () => new PyList(obj.keys()));
      case 'values': return method(obj, name, () => new PyList(obj.values()));
      case 'items': return method(obj, name, () => new PyList([...obj.entries.values()].map(([k, v]) => new PyTuple([k, v]))));
      case 'get': return method(obj, name, (c) => obj.get(checkDictKey(arg(c, 0, 'key'), c.span)) ?? c.args[1] ?? null);
    }
    const mutate = (c: CallArgs): void => {
      if (ip.dynamicDepth > 0 && obj.depth !== ip.dynamicDepth) throw new NeedsStatic(`dict.${name} inside a loop that runs on the host`, c.span);
    };
    switch (name) {
      case 'pop': return method(obj, name, (c) => {
        mutate(c);
        const key = checkDictKey(arg(c, 0, 'key'), c.span);
        const v = obj.get(key);
        if (v === undefined) {
          if (c.args.length > 1) return c.args[1]!;
          throw new CompileError(`KeyError: ${typeof key === 'string' ? `'${key}'` : String(key)}`, c.span);
        }
        obj.entries.delete(dictKey(key));
        return v;
      });
      case 'popitem': return method(obj, name, (c) => {
        mutate(c);
        const last = [...obj.entries.keys()].at(-1);
        if (last === undefined) throw new CompileError("KeyError: 'popitem(): dictionary is empty'", c.span);
        const [k, v] = obj.entries.get(last)!;
        obj.entries.delete(last);
        return new PyTuple([k, v]);
      });
      case 'setdefault': return method(obj, name, (c) => {
        const key = checkDictKey(arg(c, 0, 'key'), c.span);
        const v = obj.get(key);
        if (v !== undefined) return v;
        mutate(c);
        const d = c.args[1] ?? null;
        obj.set(key, d);
        return d;
      });
      case 'update': return method(obj, name, (c) => {
        mutate(c);
        const src = c.args[0];
        if (src instanceof PyDict) src.entries.forEach(([k, v]) => obj.set(k, v));
        else if (src !== undefined) {
          for (const kv of iterate(ip, src, c.span)) {
            const pair = kv instanceof PyTuple || kv instanceof PyList ? kv.items : [];
            if (pair.length !== 2) throw new CompileError('ValueError: dictionary update sequence element has the wrong length; 2 is required', c.span);
            obj.set(checkDictKey(pair[0]!, c.span), pair[1]!);
          }
        }
        c.kwargs.forEach((v, k) => obj.set(k, v));
        return null;
      });
      case 'copy': return method(obj, name, () => {
        const d = new PyDict();
        obj.entries.forEach(([k, v]) => d.set(k, v));
        return d;
      });
      case 'clear': return method(obj, name, (c) => (mutate(c), obj.entries.clear(), null));
    }
  }
  if (obj instanceof PySet) {
    const m = setMethod(obj, name, (v, span) => iterate(ip, v, span));
    if (m) return method(obj, name, m);
  }
  if (obj instanceof PyIterator && obj.generator) {
    const g = obj.generator;
    // a generator's results: the next item, or StopIteration (carrying the return value) once it returns
    const item = (r: IteratorResult<PyValue, PyValue>, span: A.Span): PyValue => {
      if (!r.done) return r.value;
      throw raiseValue(ip, newException(EXCEPTIONS.get('StopIteration')!, r.value === null ? [] : [r.value]), span);
    };
    const guard = (span: A.Span): void => {
      if (ip.dynamicDepth > 0) throw new NeedsStatic(`generator.${name} inside a loop that runs on the host`, span);
    };
    switch (name) {
      case 'send': return method(obj, name, (c) => (guard(c.span), item(g.send(arg(c, 0, 'value')), c.span)));
      case 'throw': return method(obj, name, (c) => (guard(c.span), item(g.throw(raiseValue(ip, arg(c, 0, 'typ'), c.span)), c.span)));
      case 'close': return method(obj, name, (c) => (guard(c.span), g.close(), null));
    }
  }
  if (obj instanceof HostList) {
    const m = hostListMethod(ip, obj, name);
    if (m) return method(obj, name, (c) => m(c.args, c.span));
  }
  if (obj instanceof PyList) {
    const mutate = (c: CallArgs, added?: PyValue[]): void => {
      // a list made at this depth (in this step of a host loop) changes as at compile time
      if (ip.dynamicDepth === 0 || obj.depth === ip.dynamicDepth) return;
      // items added in a loop that runs on the host: the list becomes one known only at run time
      const elem = added && !obj.deque ? hostListElem(obj.items, added) : null;
      if (elem) throw new PromoteToHostList(rootList(obj), elem, c.span);
      throw new NeedsStatic(`list.${name} inside a loop that runs on the host`, c.span);
    };
    /** index/count where the item or some items are known only at run time (numbers or strings of one type): searched then. */
    const runTimeFind = (v: PyValue, which: 'index' | 'count', span: A.Span): HostScalar | null => {
      if (!ip.atHost || !(v instanceof HostScalar || obj.items.some((x) => x instanceof HostScalar))) return null;
      const elem = hostListElem(obj.items, []);
      return elem && typeof elem === 'string' ? hostListFind(ip, declareHostList(ip, obj, elem, 'items', span), v, which, span) : null;
    };
    switch (name) {
      case 'append': return method(obj, name, (c) => (mutate(c, [arg(c, 0, 'object')]), obj.items.push(arg(c, 0, 'object')), null));
      case 'extend': return method(obj, name, (c) => {
        const src = arg(c, 0, 'iterable');
        mutate(c, src instanceof PyList || src instanceof PyTuple ? src.items : undefined);
        // a loop, not push(...items): a long iterable would overflow the call's arguments
        for (const x of iterate(ip, arg(c, 0, 'iterable'), c.span)) obj.items.push(x);
        return null;
      });
      case 'pop': return method(obj, name, (c) => {
        mutate(c);
        if (!obj.items.length) throw new CompileError('IndexError: pop from empty list', c.span);
        if (!c.args.length) return obj.items.pop()!;
        let i = intArg(c.args[0]!, 'an index', c.span);
        if (i < 0) i += obj.items.length;
        if (i < 0 || i >= obj.items.length) throw new CompileError('IndexError: pop index out of range', c.span);
        return obj.items.splice(i, 1)[0]!;
      });
      case 'insert': return method(obj, name, (c) => {
        mutate(c);
        let i = intArg(arg(c, 0, 'index'), 'an index', c.span);
        const n = obj.items.length;
        i = i < 0 ? Math.max(0, i + n) : Math.min(i, n);
        obj.items.splice(i, 0, arg(c, 1, 'object'));
        return null;
      });
      case 'remove': return method(obj, name, (c) => {
        mutate(c);
        const i = obj.items.findIndex((x) => staticEquals(x, arg(c, 0, 'value')));
        if (i < 0) throw new CompileError('ValueError: list.remove(x): x not in list', c.span);
        obj.items.splice(i, 1);
        return null;
      });
      case 'index': return method(obj, name, (c) => {
        const v = arg(c, 0, 'value');
        const found = runTimeFind(v, 'index', c.span);
        if (found) return found;
        const i = obj.items.findIndex((x) => staticEquals(x, v));
        if (i < 0) throw new CompileError(`ValueError: ${reprOf(ip, v, c.span).static ?? 'value'} is not in list`, c.span);
        return BigInt(i);
      });
      case 'count': return method(obj, name, (c) => runTimeFind(arg(c, 0, 'value'), 'count', c.span) ?? BigInt(obj.items.filter((x) => staticEquals(x, arg(c, 0, 'value'))).length));
      case 'reverse': return method(obj, name, (c) => (mutate(c), obj.items.reverse(), null));
      case 'copy': return method(obj, name, () => new PyList([...obj.items]));
      case 'clear': return method(obj, name, (c) => (mutate(c), (obj.items.length = 0), null));
      case 'sort': return method(obj, name, (c) => {
        mutate(c);
        const sorted = pySorted(ip, obj.items, c);
        obj.items.splice(0, obj.items.length, ...sorted);
        return null;
      });
    }
  }
  if (typeof obj === 'string') {
    switch (name) {
      case 'join': return method(obj, name, (c) => {
        const src = arg(c, 0, 'iterable');
        if (src instanceof HostList) return hostListJoin(ip, src, obj, c.span);
        const items = iterate(ip, src, c.span);
        if (items.every((x) => typeof x === 'string')) return (items as string[]).join(obj);
        // strings known only at run time (a character looked up by a token read back from the device)
        if (items.every((x) => typeof x === 'string' || (x instanceof HostScalar && x.type === 'str'))) {
          return textValue(Text.join(items.map((x) => (typeof x === 'string' ? Text.of(x) : new Text([(x as HostScalar).expr]))), obj));
        }
        const bad = items.findIndex((x) => typeof x !== 'string' && !(x instanceof HostScalar && x.type === 'str'));
        throw new CompileError(`TypeError: sequence item ${bad}: expected str instance, ${typeName(items[bad]!)} found`, c.span);
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
      case 'isdigit': return method(obj, name, () => /^\p{Nd}+$/u.test(obj));
      case 'isalpha': return method(obj, name, () => /^\p{L}+$/u.test(obj));
      case 'isalnum': return method(obj, name, () => /^[\p{L}\p{Nd}]+$/u.test(obj));
      case 'isspace': return method(obj, name, () => /^\s+$/.test(obj));
      case 'isupper': return method(obj, name, () => /\p{Lu}/u.test(obj) && !/\p{Ll}/u.test(obj));
      case 'islower': return method(obj, name, () => /\p{Ll}/u.test(obj) && !/\p{Lu}/u.test(obj));
      case 'swapcase': return method(obj, name, () => [...obj].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join(''));
      case 'ljust': case 'rjust': case 'center': return method(obj, name, (c) => {
        const w = intArg(arg(c, 0, 'width'), 'width', c.span);
        const fill = c.args.length > 1 ? strArg(c, 1) : ' ';
        const pad = Math.max(0, w - [...obj].length);
        if (name === 'ljust') return obj + fill.repeat(pad);
        if (name === 'rjust') return fill.repeat(pad) + obj;
        // CPython's centre: the extra fill goes left when the padding and the width are both odd
        const left = Math.floor(pad / 2) + (pad & w & 1);
        return fill.repeat(left) + obj + fill.repeat(pad - left);
      });
      case 'index': case 'rindex': case 'rfind': return method(obj, name, (c) => {
        const i = name === 'index' ? obj.indexOf(strArg(c, 0)) : obj.lastIndexOf(strArg(c, 0));
        if (i < 0 && name !== 'rfind') throw new CompileError('ValueError: substring not found', c.span);
        return BigInt(i);
      });
      case 'rsplit': return method(obj, name, (c) => {
        const sep = c.args.length && c.args[0] !== null ? strArg(c, 0) : null;
        const max = c.args.length > 1 ? intArg(c.args[1]!, 'maxsplit', c.span) : -1;
        const parts = sep === null ? obj.trim().split(/\s+/).filter((s) => s !== '') : obj.split(sep);
        if (max < 0 || parts.length <= max + 1) return new PyList(parts);
        const head = parts.slice(0, parts.length - max).join(sep ?? ' ');
        return new PyList([head, ...parts.slice(parts.length - max)]);
      });
      case 'partition': case 'rpartition': return method(obj, name, (c) => {
        const sep = strArg(c, 0);
        const i = name === 'partition' ? obj.indexOf(sep) : obj.lastIndexOf(sep);
        if (i < 0) return new PyTuple(name === 'partition' ? [obj, '', ''] : ['', '', obj]);
        return new PyTuple([obj.slice(0, i), sep, obj.slice(i + sep.length)]);
      });
    }
  }
  if (obj instanceof PyDevice) {
    if (name === 'id') return BigInt(obj.id);
  }
  if (obj instanceof PyDType && (name === 'name' || name === '__name__')) return obj.name;
  // the scalar type (np.float32 is a NumPy PyDType here)
  if (obj instanceof PyDType && name === 'type') return new PyDType(obj.name, true);
  if (obj instanceof PyClass && (name === '__name__' || name === '__qualname__')) return obj.name;
  if (obj instanceof PyClass && obj.methods.has(name)) return namedTupleMember(ip, obj, null, name, span)!;
  if ((obj instanceof PyFunction || obj instanceof PyTransformed || obj instanceof PyBuiltin) && name === '__name__') return obj.name;
  if (obj instanceof PyBuiltin && obj.attrs.has(name)) return obj.attrs.get(name)!;
  if (obj instanceof PyFunction && name === '__doc__') return obj.def.kind === 'FunctionDef' ? obj.def.docstring : null;
  throw missing();
}

/** Counter's and OrderedDict's own methods (defaultdict has only dict's). */
function flavoredDictMethod(ip: Interp, d: PyDict, name: string): ((c: CallArgs) => PyValue) | undefined {
  const flavor = d.flavor!;
  if (flavor.kind === 'Counter') {
    const byCount = (): [PyValue, PyValue][] => [...d.entries.values()].sort((a, b) => Number(b[1]) - Number(a[1]));
    switch (name) {
      case 'most_common': return (c) => {
        const n = c.args[0] ?? c.kwargs.get('n') ?? null;
        const pairs = byCount();
        return new PyList((n === null ? pairs : pairs.slice(0, intArg(n, 'n', c.span))).map(([k, v]) => new PyTuple([k, v])));
      };
      case 'update': case 'subtract': return (c) => {
        countInto(ip, d, c.args[0] ?? null, name === 'update' ? 1n : -1n, c.span);
        return null;
      };
      case 'total': return () => [...d.entries.values()].reduce<bigint>((s, [, v]) => s + BigInt(v as bigint), 0n);
      case 'elements': return () => new PyList([...d.entries.values()].flatMap(([k, v]) => Array.from({ length: Math.max(0, Number(v)) }, () => k)));
    }
  }
  if (flavor.kind === 'OrderedDict') {
    switch (name) {
      case 'move_to_end': return (c) => {
        const key = checkDictKey(arg(c, 0, 'key'), c.span);
        const k = dictKey(key);
        const e = d.entries.get(k);
        if (!e) throw new CompileError(`KeyError: ${reprOf(ip, key, c.span).static}`, c.span);
        d.entries.delete(k);
        if (truthy(c.args[1] ?? c.kwargs.get('last') ?? true, c.span)) d.entries.set(k, e);
        else {
          const rest = [...d.entries];
          d.entries.clear();
          d.entries.set(k, e);
          for (const [kk, vv] of rest) d.entries.set(kk, vv);
        }
        return null;
      };
    }
  }
  return undefined;
}

/** Counter(iterable or mapping) / Counter.update: add `sign` per occurrence (a mapping adds its counts). */
export function countInto(ip: Interp, d: PyDict, src: PyValue, sign: bigint, span: A.Span): void {
  if (src === null) return;
  const add = (k: PyValue, n: bigint): void => {
    const key = checkDictKey(k, span);
    const cur = d.get(key);
    d.set(key, (cur === undefined ? 0n : BigInt(cur as bigint)) + n);
  };
  if (src instanceof PyDict) for (const [k, v] of src.entries.values()) add(k, sign * BigInt(v as bigint));
  else for (const x of iterate(ip, src, span)) add(x, sign);
}

/** collections.deque's methods beyond list's. */
function dequeMethod(ip: Interp, q: PyList, info: { maxlen: number | null }, name: string): ((c: CallArgs) => PyValue) | undefined {
  const trimRight = (): void => {
    if (info.maxlen !== null && q.items.length > info.maxlen) q.items.splice(info.maxlen);
  };
  const trimLeft = (): void => {
    if (info.maxlen !== null && q.items.length > info.maxlen) q.items.splice(0, q.items.length - info.maxlen);
  };
  switch (name) {
    case 'append': return (c) => (q.items.push(arg(c, 0, 'x')), trimLeft(), null);
    case 'appendleft': return (c) => (q.items.unshift(arg(c, 0, 'x')), trimRight(), null);
    case 'extend': return (c) => {
      for (const x of iterate(ip, arg(c, 0, 'iterable'), c.span)) q.items.push(x);
      trimLeft();
      return null;
    };
    case 'extendleft': return (c) => {
      for (const x of iterate(ip, arg(c, 0, 'iterable'), c.span)) q.items.unshift(x);
      trimRight();
      return null;
    };
    case 'pop': return (c) => {
      if (!q.items.length) throw new CompileError('IndexError: pop from an empty deque', c.span);
      return q.items.pop()!;
    };
    case 'popleft': return (c) => {
      if (!q.items.length) throw new CompileError('IndexError: pop from an empty deque', c.span);
      return q.items.shift()!;
    };
    case 'rotate': return (c) => {
      const n = q.items.length;
      if (!n) return null;
      const k = ((intArg(c.args[0] ?? 1n, 'n', c.span) % n) + n) % n;
      q.items.unshift(...q.items.splice(n - k, k));
      return null;
    };
    case 'maxlen': return () => (info.maxlen === null ? null : BigInt(info.maxlen));
  }
  return undefined;
}

/** Python's sort of `xs` with the call's `key=` and `reverse=` (stable, also when reversed): list.sort and sorted(). */
export function pySorted(ip: Interp, xs: readonly PyValue[], c: CallArgs): PyValue[] {
  const keyFn = c.kwargs.get('key') ?? null;
  const keys = xs.map((x) => (keyFn === null ? x : ip.call(keyFn, { args: [x], kwargs: new Map(), span: c.span })));
  const reverse = truthy(c.kwargs.get('reverse') ?? false, c.span);
  if (runTimeKeys(ip, keys)) return runTimeSorted(ip, xs, keys, reverse, c.span);
  const idx = xs.map((_, i) => i);
  idx.sort((i, j) => {
    const [a, b] = reverse ? [keys[j]!, keys[i]!] : [keys[i]!, keys[j]!];
    return staticCompare('<', a, b, c.span) ? -1 : staticCompare('<', b, a, c.span) ? 1 : 0;
  });
  return idx.map((i) => xs[i]!);
}

/** x.item() / x.tolist() of a run-time NumPy array: Python scalars of its kind (nested in lists for tolist). */
function hostNdToPython(x: HostNd, how: 'item' | 'tolist', span: A.Span): PyValue {
  const size = x.shape.reduce((a, b) => a * b, 1);
  const kind = x.dtype === 'bool' ? 'bool' : x.dtype.startsWith('float') ? 'float' : 'int';
  const data: HExpr = { k: 'member', x: { k: 'var', name: x.name }, key: 'data' };
  const at = (i: number): HostScalar => {
    const e: HExpr = { k: 'index', x: data, index: i };
    return new HostScalar(kind === 'bool' ? { k: 'bin', op: '!==', a: e, b: { k: 'lit', value: 0 } } : e, kind);
  };
  if (how === 'item' || !x.shape.length) {
    if (size !== 1) throw new CompileError('ValueError: can only convert an array of size 1 to a Python scalar', span);
    return at(0);
  }
  const nest = (dim: number, off: number): PyList => {
    const stride = x.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
    return new PyList(Array.from({ length: x.shape[dim]! }, (_, i) => (dim + 1 === x.shape.length ? at(off + i) : nest(dim + 1, off + i * stride))));
  };
  return nest(0, 0);
}
