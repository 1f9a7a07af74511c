// Python's builtins (print, len, range, str, int, min/max, isinstance, …) and
// the standard modules a lesson imports (os, functools, typing), as
// compile-time objects. Each function decides what is static and what runs
// on the host.
import { printSilenced } from './callback_staging.js';
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import { pyRoundDigits } from '../../runtime/format/index.js';
import { hashFloat, hashInt, hashStr, hashTuple } from '../../runtime/format/python_hash.js';
import { concretizationMessage } from './tracer_origin.js';
import type * as A from '../parser/ast.js';
import { binop, compare, hostTruth, iterate, iterItems, truthyStatic } from './expr.js';
import { staticCompare, truthy } from './pyops.js';
import { PySet, hashable } from './sets.js';
import { recordDebugCall } from './debug_prints.js';
import { formatOf, inlinedJitsNow, reprOf, strOf, textValue, tracePrintKey, withConcrete } from './format.js';
import { hexpr, PySlice, type Interp } from './interp.js';
import { filterIterator, mapIterator } from './iterators.js';
import { arg, intArg, numArg } from './modules.js';
import { ndUnarySame } from './ndarray.js';
import { hostNdUnary } from './host_numpy.js';
import { Text } from './text.js';
import { checkItems } from './limits.js';
import { declareHostList, hostListCopy, hostListElem, hostListLen, hostListReduce, hostListSorted, hostListTruthOf, hostZip } from './host_list.js';
import { concreteValue, runtimeOnlyError } from './const_eval.js';
import { countInto, getAttr, pySorted } from './attrs.js';
import { runTimeExtreme, runTimeKeys } from './host_select.js';
import {
  BUILTIN_EXCEPTIONS, EXCEPTIONS, callDunder, newException, raiseValue, dataclassField, FROZEN_INSTANCE_ERROR, NOT_IMPLEMENTED, OBJECT, makeDataclass, setClassAttr,
} from './classes.js';
import {
  PyComplex, objectId, dictKey, PyFunction,
  HostList, HostNd, HostScalar, HostZip, NdArray, NpScalar, PyBuiltin, PyClass, PyDescriptor, PyNativeObject, PyInstance, PySuper, PyUserClass, PyDevice, PyDeviceArray, PyKeyArray, PyDict, PyIterator, PyList, PyModule, PyPartial, PyRange, PyTuple,
  isArray, typeName, NeedsStatic, Tracer, type CallArgs, type PyValue,
} from './values.js';
import { deferShardMapPrint } from './shard_map.js';

type Fn = (c: CallArgs) => PyValue;

const mod = (name: string, entries: Record<string, PyValue>): PyModule => new PyModule(name, new Map(Object.entries(entries)));
const fn = (name: string, f: Fn): PyBuiltin => new PyBuiltin(name, f);

export function installBuiltins(ip: Interp): void {
  /**
   * range() with a bound known only when the program runs (a step known now): a count whose start and length
   * are constants of the host program from here (Python evaluates the bounds once), iterated by a TS loop.
   */
  const runTimeRange = (c: CallArgs): HostZip => {
    const bound = (v: PyValue): HExpr => {
      if (v instanceof HostScalar) {
        if (v.type !== 'int' && v.type !== 'bool') throw new CompileError(`TypeError: '${v.type}' object cannot be interpreted as an integer`, c.span);
        if (v.expr.k === 'lit') return v.type === 'bool' ? { k: 'call', callee: 'Number', args: [v.expr] } : v.expr;
        const name = ip.freshName('bound');
        ip.emit({ k: 'const', names: [name], value: v.type === 'bool' ? { k: 'call', callee: 'Number', args: [v.expr] } : v.expr });
        return { k: 'var', name };
      }
      return { k: 'lit', value: intArg(v, 'a range bound', c.span) };
    };
    if (c.args.length > 2 && c.args[2] instanceof HostScalar) throw new NeedsStatic('a range step known only when the program runs', c.span);
    const step = c.args.length > 2 ? BigInt(intArg(c.args[2]!, 'a range bound', c.span)) : 1n;
    if (step === 0n) throw new CompileError('ValueError: range() arg 3 must not be zero', c.span);
    const [start, stop] = c.args.length === 1 ? [{ k: 'lit', value: 0 } as HExpr, bound(c.args[0]!)] : [bound(c.args[0]!), bound(c.args[1]!)];
    // len(range(start, stop, step)): max(0, ceil((stop - start) / step))
    const diff: HExpr = step > 0n ? { k: 'bin', op: '-', a: stop, b: start } : { k: 'bin', op: '-', a: start, b: stop };
    const steps: HExpr = step === 1n || step === -1n ? diff : { k: 'call', callee: 'Math.ceil', args: [{ k: 'bin', op: '/', a: diff, b: { k: 'lit', value: Number(step < 0n ? -step : step) } }] };
    const length = ip.freshName('range_len');
    ip.emit({ k: 'const', names: [length], value: { k: 'call', callee: 'Math.max', args: [{ k: 'lit', value: 0 }, steps] } });
    const first = start.k === 'lit' ? BigInt(start.value as number) : start;
    return new HostZip('range', [{ k: 'count', start: first, step, length: { k: 'var', name: length } }], [start, stop, ...(step === 1n ? [] : [{ k: 'lit', value: Number(step) } as HExpr])]);
  };
  /** hash(v) as CPython 3.11 computes it (strings with PYTHONHASHSEED=0; objects by identity, as id(v) >> 4). */
  const staticHash = (x: PyValue, span: A.Span): bigint => {
    const h = hashOf(x, span);
    if (typeof h !== 'bigint') throw new NeedsStatic('hash() of a tuple holding a value known only when the program runs', span);
    return h;
  };
  const hashOf = (v: PyValue, span: A.Span): PyValue => {
    if (v instanceof HostScalar) {
      // a run-time int hashes to itself below 2**61 - 1 (which JS numbers cannot reach exactly), -1 to -2
      // a run-time bool hashes to 0 or 1
      if (v.type === 'bool') return new HostScalar({ k: 'call', callee: 'Number', args: [v.expr] }, 'int');
      if (v.type === 'int') return new HostScalar({ k: 'cond', test: { k: 'bin', op: '===', a: v.expr, b: { k: 'lit', value: -1 } }, then: { k: 'lit', value: -2 }, else: v.expr }, 'int');
      throw new NeedsStatic(`hash() of a ${v.type} known only when the program runs`, span);
    }
    if (typeof v === 'bigint' || typeof v === 'boolean') return hashInt(BigInt(v));
    if (typeof v === 'number') return hashFloat(v, objectId(new PyTuple([])) >> 4n);
    if (typeof v === 'string') return hashStr(v);
    if (v instanceof NpScalar) return v.dtype === 'bool' || !v.dtype.startsWith('float') ? hashInt(BigInt(v.value)) : hashFloat(v.value);
    if (v instanceof PyTuple) return hashTuple(v.items.map((x) => staticHash(x, span)));
    if (v instanceof PyInstance) {
      const own = v.cls.lookup('__hash__');
      if (own === null) throw new CompileError(`TypeError: unhashable type: '${typeName(v)}'`, span);
      if (own !== undefined) {
        const h = callDunder(ip, v, '__hash__', [], span);
        if (typeof h !== 'bigint' && typeof h !== 'boolean') throw new CompileError("TypeError: __hash__ method should return an integer", span);
        return hashInt(BigInt(h));
      }
      const dc = v.cls.dataclass;
      if (dc) {
        // a dataclass with eq=True hashes by its fields only when frozen (else it is unhashable, as CPython sets __hash__ = None)
        if (dc.eq && !dc.frozen) throw new CompileError(`TypeError: unhashable type: '${typeName(v)}'`, span);
        if (dc.eq) return hashOf(new PyTuple(dc.fields.map((f) => v.attrs.get(f) ?? null)), span);
      }
      if (v.value !== undefined && v.cls.lookup('__eq__') === undefined) return hashOf(v.value, span);
      // a class that defines __eq__ without __hash__ is unhashable
      if (!dc && v.cls.lookup('__eq__') !== undefined) throw new CompileError(`TypeError: unhashable type: '${typeName(v)}'`, span);
    }
    hashable(v, span);
    const id = objectId(v);
    return id >> 4n;
  };
  const b = ip.builtins.vars;
  const printFn: Fn = (c) => {
    const sep = c.kwargs.has('sep') ? strOf(ip, c.kwargs.get('sep')!, c.span) : Text.of(' ');
    const end = c.kwargs.has('end') ? strOf(ip, c.kwargs.get('end')!, c.span) : Text.of('\n');
    const sepS = sep.static ?? ' ';
    // a jitted function replayed on the host around its callbacks: JAX does not run its Python again
    if (ip.atHost && printSilenced(ip)) return null;
    const hostPrint = (args: PyValue[]): void => {
      ip.flush(args);
      const text = Text.join(args.map((a) => strOf(ip, a, c.span)), sepS).concat(end);
      ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [text.toExpr()] } });
    };
    // in an eager shard_map's body: each device's block, after the program
    if (deferShardMapPrint(ip, c.args, c.span, hostPrint)) return null;
    if (!ip.atHost) {
      const root = ip.outermostTrace();
      if (root && (root.kind === 'vmap' || root.kind === 'grad')) {
        // an eager transformation: the tracers show concrete values (a grad primal, a value vmap does not batch),
        // known when the program runs: print then, as a debug call (the text made twice, first to find the values)
        const values: PyValue[] = [];
        // (with the jits inlined here as they are now: their values show as JitTracers)
        const inJits = inlinedJitsNow();
        const render = (show: (v: PyValue) => Text): Text => inJits(() => withConcrete(show, () => Text.join(c.args.map((a) => strOf(ip, a, c.span)), sepS).concat(end)));
        render((v) => (values.push(v), Text.of('')));
        recordDebugCall(ip.trace(), {
          run: (vals) => {
            ip.flush(vals);
            let i = 0;
            const text = render(() => strOf(ip, vals[i++]!, c.span));
            ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [text.toExpr()] } });
          },
          args: values, kwargs: new Map(), span: c.span, once: true,
        });
        return null;
      }
      // JAX prints while it traces, showing the tracers: once per jit signature (its cache), at the first call
      const text = Text.join(c.args.map((a) => strOf(ip, a, c.span)), sepS).concat(end);
      const key = root ? tracePrintKey(root) : null;
      ip.emit({ k: 'expr', e: key ? { k: 'call', callee: 'rt.tracePrint', args: [{ k: 'lit', value: key }, text.toExpr()] } : { k: 'call', callee: 'rt.print', args: [text.toExpr()] } });
      return null;
    }
    hostPrint(c.args);
    return null;
  };
  const entries: Record<string, PyValue> = {
    print: fn('print', printFn),
    len: fn('len', (c) => {
      const v = arg(c, 0, 'obj');
      if (isArray(v)) {
        const s = ip.ops.aval(v, c.span).shape;
        if (!s.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(s[0]!);
      }
      if (v instanceof NdArray) {
        if (!v.shape.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(v.shape[0]!);
      }
      if (v instanceof PyDeviceArray || v instanceof PyKeyArray) {
        if (!v.shape.length) throw new CompileError('TypeError: len() of unsized object', c.span);
        return BigInt(v.shape[0]!);
      }
      if (v instanceof HostList) return hostListLen(ip, v);
      // (by code points, as Python counts)
      if (v instanceof HostScalar && v.type === 'str') return new HostScalar({ k: 'member', x: { k: 'call', callee: 'Array.from', args: [v.expr] }, key: 'length' }, 'int');
      if (v instanceof PyList || v instanceof PyTuple) return BigInt(v.items.length);
      if (v instanceof PyDict || v instanceof PySet) return BigInt(v.entries.size);
      if (typeof v === 'string') return BigInt([...v].length);
      if (v instanceof PyRange) return BigInt(v.length);
      const count = v instanceof HostZip && v.typeName === 'range' ? v.parts[0] : undefined;
      if (count?.k === 'count' && count.length !== null && typeof count.length === 'object') return new HostScalar(count.length, 'int');
      const n = callDunder(ip, v, '__len__', [], c.span);
      if (n !== undefined) return n;
      throw new CompileError(`TypeError: object of type '${typeName(v)}' has no len()`, c.span);
    }),
    range: fn('range', (c) => {
      if (c.args.length < 1 || c.args.length > 3) throw new CompileError(`TypeError: range expected ${c.args.length ? 'at most 3 arguments' : 'at least 1 argument'}, got ${c.args.length}`, c.span);
      if (c.args.some((a) => a instanceof HostScalar) && ip.atHost) return runTimeRange(c);
      const xs = c.args.map((a) => BigInt(intArg(a, 'a range bound', c.span)));
      if (xs.length === 1) return new PyRange(0n, xs[0]!, 1n);
      if (xs[2] === 0n) throw new CompileError('ValueError: range() arg 3 must not be zero', c.span);
      return new PyRange(xs[0]!, xs[1]!, xs[2] ?? 1n);
    }),
    // flush first: the arrays inside a container (a tuple of fresh results) must all be materialised together
    str: fn('str', (c) => (ip.atHost && ip.flush(c.args), textValue(c.args.length ? strOf(ip, c.args[0]!, c.span) : Text.of('')))),
    repr: fn('repr', (c) => (ip.atHost && ip.flush(c.args), textValue(reprOf(ip, arg(c, 0, 'obj'), c.span)))),
    format: fn('format', (c) => (ip.atHost && ip.flush(c.args), textValue(formatOf(ip, arg(c, 0, 'value'), String(c.args[1] ?? ''), c.span)))),
    int: fn('int', (c) => toScalar(ip, c.args[0] ?? 0n, 'int', c.span)),
    // slice(stop) / slice(start, stop[, step]): bounds known at compile time
    slice: fn('slice', (c) => {
      const b = c.args.map((v) => (v === null ? null : Number(intArg(v, 'slice index', c.span))));
      return b.length === 1 ? new PySlice(null, b[0]!, null) : new PySlice(b[0] ?? null, b[1] ?? null, b[2] ?? null);
    }),
    float: fn('float', (c) => toScalar(ip, c.args[0] ?? 0, 'float', c.span)),
    bool: fn('bool', (c) => hostTruth(ip, c.args[0] ?? false, c.span)),
    complex: fn('complex', (c) => {
      // complex(real=0, imag=0) of static numbers (a complex argument contributes both its parts)
      // (CPython's complex_new: a part adds in only from a complex argument, so complex(2, -0.0) is (2-0j))
      const part = (v: PyValue): [number, number | null] => {
        v = ip.static(v, 'a complex() argument', c.span);
        return v instanceof PyComplex ? [v.re, v.im] : [numArg(v, 'complex()', c.span), null];
      };
      const [a, b] = part(arg(c, 0, 'real', 0n));
      const [d, e] = part(arg(c, 1, 'imag', 0n));
      return new PyComplex(e === null ? a : a - e, b === null ? d : b + d);
    }),
    all: fn('all', (c) => (c.args[0] instanceof HostList ? hostListTruthOf(ip, c.args[0], 'all', c.span) : allOf(ip, iterate(ip, arg(c, 0, 'iterable'), c.span), c.span))),
    any: fn('any', (c) => {
      if (c.args[0] instanceof HostList) return hostListTruthOf(ip, c.args[0], 'any', c.span);
      const ts = iterate(ip, arg(c, 0, 'iterable'), c.span).map((x) => hostTruth(ip, x, c.span));
      if (ts.some((t) => t === true)) return true;
      const dyn = ts.filter((t): t is HostScalar => t instanceof HostScalar);
      return dyn.length ? new HostScalar(dyn.map((t) => t.expr).reduce((a, b) => ({ k: 'bin', op: '||', a, b })), 'bool') : false;
    }),
    iter: fn('iter', (c) => {
      const v = arg(c, 0, 'object');
      if (v instanceof PyIterator) return v;
      // CPython's iterator type of each container (a NumPy array's is numpy's plain `iterator`)
      const kind = v instanceof PyTuple ? 'tuple_iterator' : typeof v === 'string' ? (/^[\x00-\x7f]*$/.test(v) ? 'str_ascii_iterator' : 'str_iterator') : v instanceof PyRange ? 'range_iterator'
        : v instanceof PyDict ? 'dict_keyiterator' : v instanceof PySet ? 'set_iterator' : v instanceof NdArray || v instanceof HostNd ? 'iterator' : 'list_iterator';
      return new PyIterator(kind, iterate(ip, v, c.span)[Symbol.iterator]());
    }),
    next: fn('next', (c) => {
      const v = arg(c, 0, 'iterator');
      // advancing an iterator is a compile-time change: a loop that runs on the host would see one item for all steps
      if (ip.dynamicDepth > 0) throw new NeedsStatic('next() inside a loop that runs on the host', c.span);
      const user = callDunder(ip, v, '__next__', [], c.span);
      if (user !== undefined) return user;
      if (!(v instanceof PyIterator)) throw new CompileError(`TypeError: '${typeName(v)}' object is not an iterator`, c.span);
      // a generator's StopIteration carries its return value
      const r = v.generator ? v.generator.send(null) : v[Symbol.iterator]().next();
      if (!r.done) return r.value;
      if (c.args.length > 1) return c.args[1]!;
      throw raiseValue(ip, newException(EXCEPTIONS.get('StopIteration')!, v.generator && r.value !== null && r.value !== undefined ? [r.value] : []), c.span);
    }),
    list: fn('list', (c) => {
      const src = c.args[0];
      if (src instanceof HostList) return hostListCopy(ip, src);
      const count = src instanceof HostZip && src.typeName === 'range' ? src.parts[0] : undefined;
      if (count?.k === 'count' && count.length !== null) {
        // list(range(n)) of a bound known only at run time
        const name = ip.freshName('items');
        const lit = (x: bigint | number | HExpr): HExpr => (typeof x === 'object' ? x : { k: 'lit', value: Number(x) });
        ip.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'jx.pyRangeList', args: [lit(count.start), lit(count.length), lit(count.step)] }, type: 'number[]' });
        return new HostList(name, 'int');
      }
      return new PyList(c.args.length ? iterate(ip, c.args[0]!, c.span) : []);
    }),
    tuple: fn('tuple', (c) => (c.args[0] instanceof HostList ? hostListCopy(ip, c.args[0], 'tuple') : new PyTuple(c.args.length ? iterate(ip, c.args[0]!, c.span) : []))),
    dict: fn('dict', (c) => {
      const d = new PyDict();
      if (c.args[0] instanceof PyDict) c.args[0].entries.forEach(([k, v]) => d.set(k, v));
      else if (c.args[0] !== undefined) {
        // dict(iterable of key/value pairs)
        for (const kv of iterate(ip, c.args[0], c.span)) {
          const pair = iterate(ip, kv, c.span);
          if (pair.length !== 2) throw new CompileError(`ValueError: dictionary update sequence element has length ${pair.length}; 2 is required`, c.span);
          d.set(pair[0]!, pair[1]!);
        }
      }
      c.kwargs.forEach((v, k) => d.set(k, v));
      return d;
    }),
    map: fn('map', (c) => mapIterator(ip, c)),
    filter: fn('filter', (c) => filterIterator(ip, c)),
    zip: fn('zip', (c) => {
      const host = hostZip(ip, 'zip', c.args, 0n, c.span);
      if (host) return host;
      if (c.args.some((a) => a instanceof PyIterator)) return lazyZip(ip, c);
      const lists = c.args.map((a) => iterate(ip, a, c.span));
      const n = lists.length ? Math.min(...lists.map((l) => l.length)) : 0;
      return new PyList(Array.from({ length: n }, (_, i) => new PyTuple(lists.map((l) => l[i]!))));
    }),
    enumerate: fn('enumerate', (c) => {
      const given = c.args[1] ?? c.kwargs.get('start');
      const start = given !== undefined ? BigInt(intArg(given, 'start', c.span)) : 0n;
      const src = arg(c, 0, 'iterable');
      const host = hostZip(ip, 'enumerate', [src], start, c.span);
      if (host) return host;
      if (src instanceof PyIterator) {
        // an iterator (a generator, itertools.count) is pulled as the pairs are
        const items = src[Symbol.iterator]();
        let i = start;
        return new PyIterator('enumerate', { next: () => { const r = items.next(); return r.done ? r : { done: false, value: new PyTuple([i++, r.value]) }; } }, [src]);
      }
      return new PyList(iterate(ip, arg(c, 0, 'iterable'), c.span).map((x, i) => new PyTuple([start + BigInt(i), x])));
    }),
    sum: fn('sum', (c) => {
      const src = arg(c, 0, 'iterable');
      if (src instanceof HostList) return hostListReduce(ip, src, 'sum', c.args[1] ?? c.kwargs.get('start') ?? 0n, c.span);
      const items = iterate(ip, arg(c, 0, 'iterable'), c.span);
      let acc: PyValue = c.args[1] ?? 0n;
      for (const x of items) acc = binop(ip, '+', acc, x, c.span);
      return acc;
    }),
    min: fn('min', (c) => (c.args.length === 1 && c.args[0] instanceof HostList && !c.kwargs.size ? hostListReduce(ip, c.args[0], 'min', null, c.span) : minmax(ip, c, -1))),
    max: fn('max', (c) => (c.args.length === 1 && c.args[0] instanceof HostList && !c.kwargs.size ? hostListReduce(ip, c.args[0], 'max', null, c.span) : minmax(ip, c, 1))),
    abs: fn('abs', (c) => {
      const v = arg(c, 0, 'x');
      if (isArray(v)) return ip.ops.unary('abs', v, c.span);
      if (typeof v === 'bigint') return v < 0n ? -v : v;
      if (v instanceof PyComplex) return Math.hypot(v.re, v.im);
      if (v instanceof HostScalar && v.type !== 'str') return new HostScalar({ k: 'call', callee: 'Math.abs', args: [v.expr] }, v.type === 'bool' ? 'int' : v.type);
      // NumPy values: their __abs__ is np.absolute (same dtype); a run-time one computes when the program runs
      if (v instanceof NdArray || v instanceof NpScalar) return ndUnarySame(Math.abs, v, c.span);
      if (v instanceof HostNd) return hostNdUnary(ip, 'absolute', v, c.span)!;
      if (v instanceof PyInstance) {
        const r = callDunder(ip, v, '__abs__', [], c.span);
        if (r !== undefined) return r;
        throw new CompileError(`TypeError: bad operand type for abs(): '${typeName(v)}'`, c.span);
      }
      return Math.abs(numArg(v, 'abs()', c.span));
    }),
    round: fn('round', (c) => {
      const x = arg(c, 0, 'number');
      if (x instanceof HostScalar && x.type !== 'str') {
        // a number known when the program runs: CPython's rounding there (runtime/values.ts)
        const nd = c.args[1] ?? c.kwargs.get('ndigits') ?? null;
        if (nd === null) return x.type === 'float' ? new HostScalar({ k: 'call', callee: 'jx.pyRound', args: [x.expr] }, 'int') : new HostScalar(x.type === 'bool' ? { k: 'call', callee: 'Number', args: [x.expr] } : x.expr, 'int');
        const d = nd instanceof HostScalar && nd.type === 'int' ? nd.expr : { k: 'lit' as const, value: intArg(nd, 'ndigits', c.span) };
        const e: HExpr = { k: 'call', callee: 'jx.pyRoundDigits', args: [x.type === 'bool' ? { k: 'call', callee: 'Number', args: [x.expr] } : x.expr, d] };
        return new HostScalar(e, x.type === 'float' ? 'float' : 'int');
      }
      const v = numArg(x, 'round()', c.span);
      if (c.args.length < 2) return BigInt(roundHalfEven(finiteForInt(v, c.span)));
      const d = intArg(c.args[1]!, 'ndigits', c.span);
      // an int stays an int (rounded half to even at a negative ndigits)
      if (typeof x === 'bigint' || typeof x === 'boolean') {
        const n = BigInt(x);
        if (d >= 0) return n;
        const p = 10n ** BigInt(-d);
        let q = n / p;
        let r = n % p;
        if (r < 0n) [q, r] = [q - 1n, r + p];
        if (2n * r > p || (2n * r === p && q % 2n !== 0n)) q += 1n;
        return q * p;
      }
      return roundDigits(v, d);
    }),
    isinstance: fn('isinstance', (c) => {
      const cls = arg(c, 1, 'class_or_tuple');
      const obj = arg(c, 0, 'obj');
      const names = cls instanceof PyTuple ? cls.items : [cls];
      return names.some((n) => {
        if (n === OBJECT) return true;
        if (n instanceof PyUserClass) return obj instanceof PyInstance && obj.cls.isSubclassOf(n);
        if (obj instanceof PyNativeObject && obj.pyClass === n) return true;
        if (n instanceof PyClass && n.kind === 'namedtuple') return obj instanceof PyTuple && obj.cls === n;
        // jax.Array / jnp.ndarray: JAX arrays (typed key arrays too); np.ndarray: NumPy's
        if (n instanceof PyClass && n.kind === 'marker' && n.name === 'ndarray' && n.module === 'numpy') return obj instanceof NdArray;
        if (n instanceof PyClass && n.kind === 'marker' && (n.name === 'Array' || n.name === 'ndarray')) return isArray(obj) || obj instanceof PyKeyArray;
        if (n instanceof PyClass && n.kind === 'marker' && n.name === 'Device' && n.module === 'jax') return obj instanceof PyDevice;
        // a subclass of a built-in type is an instance of it
        if (n instanceof PyBuiltin && obj instanceof PyInstance && obj.cls.builtinType === n.name) return true;
        // bool is a subclass of int
        return n instanceof PyBuiltin && (n.name === typeName(obj) || (n.name === 'tuple' && obj instanceof PyTuple) || (n.name === 'int' && typeName(obj) === 'bool'));
      });
    }),
    issubclass: fn('issubclass', (c) => {
      const sub = arg(c, 0, 'cls');
      const cls = arg(c, 1, 'class_or_tuple');
      const names = cls instanceof PyTuple ? cls.items : [cls];
      if (!(sub instanceof PyUserClass)) throw new CompileError('TypeError: issubclass() arg 1 must be a class', c.span);
      return names.some((n) => n instanceof PyUserClass && sub.isSubclassOf(n));
    }),
    id: fn('id', (c) => objectId(arg(c, 0, 'obj'))),
    hash: fn('hash', (c) => {
      if (c.args.length !== 1 || c.kwargs.size) throw new CompileError(`TypeError: hash() takes exactly one argument (${c.args.length + c.kwargs.size} given)`, c.span);
      return hashOf(c.args[0]!, c.span);
    }),
    type: fn('type', (c) => {
      const cls = classOf(arg(c, 0, 'object'));
      // a built-in type is the builtin itself (type(1.0) is float), NumPy's types the numpy module's (type(x) is np.ndarray)
      if (cls instanceof PyClass && cls.kind === 'marker' && cls.module === undefined && ip.builtins.vars.get(cls.name) instanceof PyBuiltin) return ip.builtins.vars.get(cls.name)!;
      if (cls instanceof PyClass && cls.kind === 'marker' && cls.module === 'numpy') return ip.library.importModule('numpy', c.span).attrs.get(cls.name) ?? cls;
      return cls;
    }),
    object: OBJECT,
    NotImplemented: NOT_IMPLEMENTED,
    super: fn('super', (c) => {
      const cls = arg(c, 0, 'type');
      if (!(cls instanceof PyUserClass) || c.args.length !== 2) throw new CompileError('super() takes a class and an instance here (or no arguments inside a method)', c.span);
      return new PySuper(cls, c.args[1]!);
    }),
    staticmethod: fn('staticmethod', (c) => new PyDescriptor('staticmethod', arg(c, 0, 'function'))),
    classmethod: fn('classmethod', (c) => new PyDescriptor('classmethod', arg(c, 0, 'function'))),
    property: fn('property', (c) => new PyDescriptor('property', arg(c, 0, 'fget'), c.args[1] ?? c.kwargs.get('fset') ?? null)),
    hasattr: fn('hasattr', (c) => {
      try {
        getAttr(ip, arg(c, 0, 'obj'), strName(c, 1), c.span);
        return true;
      } catch (e) {
        if (e instanceof CompileError && /^AttributeError/.test(e.message)) return false;
        throw e;
      }
    }),
    getattr: fn('getattr', (c) => {
      try {
        return getAttr(ip, arg(c, 0, 'obj'), strName(c, 1), c.span);
      } catch (e) {
        if (c.args.length > 2 && e instanceof CompileError && /^AttributeError/.test(e.message)) return c.args[2]!;
        throw e;
      }
    }),
    setattr: fn('setattr', (c) => (setClassAttr(ip, arg(c, 0, 'obj'), strName(c, 1), arg(c, 2, 'value'), c.span), null)),
    // vars(obj): its __dict__ (an object's attributes; a module's names)
    vars: fn('vars', (c) => {
      const obj = arg(c, 0, 'object');
      if (obj instanceof PyModule) {
        const d = new PyDict();
        obj.attrs.forEach((v, k) => d.set(k, v));
        return d;
      }
      try {
        return getAttr(ip, obj, '__dict__', c.span);
      } catch (e) {
        if (e instanceof CompileError && /^AttributeError/.test(e.message)) throw new CompileError('TypeError: vars() argument must have __dict__ attribute', c.span);
        throw e;
      }
    }),
    open: fn('open', (c) => {
      throw new CompileError('open() is not supported: a jaxts program does not read or write files', c.span);
    }),
    // running source text made at run time has no compiled form
    ...Object.fromEntries(['exec', 'eval', 'compile'].map((name) => [name, fn(name, (c) => {
      throw new CompileError(`NotImplementedError: ${name}() is not supported by jaxts (it compiles Python ahead of time and cannot run source text made while the program runs)`, c.span);
    })])),
    None: null,
    True: true,
    False: false,
  };
  for (const [k, v] of Object.entries({ ...entries, ...collectionBuiltins(ip, fn) })) b.set(k, v);
  for (const e of BUILTIN_EXCEPTIONS) b.set(e.name, e);
  // the program is the main module, as `python file.py` runs it
  ip.globals.vars.set('__name__', '__main__');
  // its path as given to the compiler (JAX's messages name it too: `function f at FILE:LINE`)
  ip.globals.vars.set('__file__', ip.options.file);
}

function strName(c: CallArgs, i: number): string {
  const v = arg(c, i, 'name');
  if (typeof v !== 'string') throw new CompileError(`TypeError: attribute name must be string, not '${typeName(v)}'`, c.span);
  return v;
}

/** type(v): the class object, qualified by module where Python prints one. */
function classOf(v: PyValue): PyClass | PyUserClass {
  // a traced value is JAX's tracer of its transformation (a staged jaxpr's, vmap's, or linearize's for grad)
  if (v instanceof Tracer && v.trace.kind !== 'segment') {
    const [name, module] = v.trace.kind === 'vmap' ? ['BatchTracer', 'batching'] : v.trace.kind === 'grad' ? [v.trace.jvp ? 'JVPTracer' : 'LinearizeTracer', 'ad'] : ['DynamicJaxprTracer', 'partial_eval'];
    return new PyClass(name, [], new Map(), 'marker', `jax._src.interpreters.${module}`);
  }
  if (isArray(v)) return new PyClass('ArrayImpl', [], new Map(), 'marker', 'jaxlib._jax');
  if (v instanceof NdArray) return new PyClass('ndarray', [], new Map(), 'marker', 'numpy');
  if (v instanceof NpScalar) return new PyClass(v.dtype, [], new Map(), 'marker', 'numpy');
  if (v instanceof PyTuple && v.cls) return v.cls;
  if (v instanceof PyInstance) return v.cls;
  if (v instanceof PyNativeObject) return v.pyClass;
  return new PyClass(typeName(v), [], new Map(), 'marker');
}

/** round(v, d) of a float: CPython's correctly rounded result (exact ties to even). */
const roundDigits = (v: number, d: number): number => pyRoundDigits(v, d);

/** A float about to become a Python int: NaN and infinities have no int (Python's errors). */
function finiteForInt(v: number, span: A.Span): number {
  if (Number.isNaN(v)) throw new CompileError('ValueError: cannot convert float NaN to integer', span);
  if (!Number.isFinite(v)) throw new CompileError('OverflowError: cannot convert float infinity to integer', span);
  return v;
}

function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}


/** min() / max(): of an iterable or of the arguments, with `key=` and `default=` (the first of equal items wins). */
function minmax(ip: Interp, c: CallArgs, sign: 1 | -1): PyValue {
  const items = c.args.length === 1 ? iterate(ip, c.args[0]!, c.span) : c.args;
  if (!items.length) {
    const d = c.kwargs.get('default');
    if (d !== undefined) return d;
    throw new CompileError(`ValueError: ${sign > 0 ? 'max' : 'min'}() ${c.args.length === 1 ? 'iterable argument is empty' : 'expected at least 1 argument, got 0'}`, c.span);
  }
  const keyFn = c.kwargs.get('key') ?? null;
  const keys = keyFn === null ? items : items.map((x) => ip.call(keyFn, { args: [x], kwargs: new Map(), span: c.span }));
  // a key known only at run time chooses the item then
  if (keyFn !== null && runTimeKeys(ip, keys)) return runTimeExtreme(ip, items, keys, sign > 0 ? 'max' : 'min', c.span);
  let best: PyValue = items[0]!;
  let bestKey = keys[0]!;
  for (const [i, x] of items.entries()) {
    if (i === 0) continue;
    const k = keys[i]!;
    if (keyFn === null && (k instanceof HostScalar || bestKey instanceof HostScalar)) {
      // a number known only at run time: a run-time choice, when both are one Python type (as max returns one of them)
      const t = k instanceof HostScalar ? k.type : typeof k === 'bigint' ? 'int' : typeof k === 'number' ? 'float' : null;
      const u = bestKey instanceof HostScalar ? bestKey.type : typeof bestKey === 'bigint' ? 'int' : typeof bestKey === 'number' ? 'float' : null;
      if (t === null || t !== u || t === 'str') throw new NeedsStatic(`${sign > 0 ? 'max' : 'min'}() of values of different types known only when the program runs`, c.span);
      const a = hexpr(k);
      const b = hexpr(bestKey);
      best = bestKey = new HostScalar({ k: 'cond', test: { k: 'bin', op: sign > 0 ? '>' : '<', a, b }, then: a, else: b }, t);
    } else if (isArray(k) || isArray(bestKey)) {
      // arrays (0-d ones, as Python's comparison of NumPy/JAX scalars): the comparison's truth decides, read as bool() would
      if (truthyStatic(ip, compare(ip, sign > 0 ? '>' : '<', k, bestKey, c.span), c.span)) [best, bestKey] = [x, k];
    } else if (typeof k === 'bigint' && typeof bestKey === 'bigint') {
      if (sign > 0 ? k > bestKey : k < bestKey) [best, bestKey] = [x, k];
    } else if (typeof k === 'number' || typeof k === 'bigint' || typeof bestKey === 'number' || typeof bestKey === 'bigint') {
      const a = numArg(k, 'a value', c.span);
      const b = numArg(bestKey, 'a value', c.span);
      if (sign > 0 ? a > b : a < b) [best, bestKey] = [x, k];
    } else if (staticCompare(sign > 0 ? '>' : '<', k, bestKey, c.span)) [best, bestKey] = [x, k];
  }
  return best;
}

/** Builtins over collections and characters: set, frozenset, sorted, reversed, divmod, chr, ord, pow, callable. */
function collectionBuiltins(ip: Interp, fn: (name: string, f: Fn) => PyBuiltin): Record<string, PyValue> {
  const items = (c: CallArgs, i: number, name: string): PyValue[] => iterate(ip, arg(c, i, name), c.span);
  const setOf = (kind: 'set' | 'frozenset') => (c: CallArgs): PySet => {
    const src = c.args[0];
    if (src instanceof PySet) return PySet.merged(kind, src);
    return new PySet(kind, src !== undefined ? items(c, 0, 'iterable').map((x) => hashable(x, c.span)) : []);
  };
  return {
    set: fn('set', setOf('set')),
    frozenset: fn('frozenset', setOf('frozenset')),
    sorted: fn('sorted', (c) => {
      const src = c.args[0];
      if (src instanceof HostList && !c.kwargs.has('key')) return hostListSorted(ip, src, truthy(c.kwargs.get('reverse') ?? false, c.span), c.span);
      const xs = items(c, 0, 'iterable');
      // numbers or strings known only when the program runs: sorted at run time
      const elem = ip.atHost && !c.kwargs.has('key') && xs.some((x) => x instanceof HostScalar) ? hostListElem(xs, []) : null;
      if (elem) return hostListSorted(ip, declareHostList(ip, new PyList(xs), elem, 'items', c.span), truthy(c.kwargs.get('reverse') ?? false, c.span), c.span);
      return new PyList(pySorted(ip, xs, c));
    }),
    reversed: fn('reversed', (c) => {
      const v = arg(c, 0, 'sequence');
      if (v instanceof PySet) throw new CompileError(`TypeError: '${typeName(v)}' object is not reversible`, c.span);
      return new PyIterator(v instanceof PyList ? 'list_reverseiterator' : 'reversed', items(c, 0, 'sequence').reverse()[Symbol.iterator]());
    }),
    divmod: fn('divmod', (c) => new PyTuple([binop(ip, '//', arg(c, 0, 'x'), arg(c, 1, 'y'), c.span), binop(ip, '%', arg(c, 0, 'x'), arg(c, 1, 'y'), c.span)])),
    pow: fn('pow', (c) => {
      const r = binop(ip, '**', arg(c, 0, 'base'), arg(c, 1, 'exp'), c.span);
      const m = c.args[2] ?? c.kwargs.get('mod') ?? null;
      return m === null ? r : binop(ip, '%', r, m, c.span);
    }),
    chr: fn('chr', (c) => String.fromCodePoint(intArg(arg(c, 0, 'i'), 'chr()', c.span))),
    ord: fn('ord', (c) => {
      const s = arg(c, 0, 'c');
      if (typeof s !== 'string' || [...s].length !== 1) {
        throw new CompileError(typeof s === 'string' ? `TypeError: ord() expected a character, but string of length ${[...s].length} found` : `TypeError: ord() expected string of length 1, but ${typeName(s)} found`, c.span);
      }
      return BigInt(s.codePointAt(0)!);
    }),
    callable: fn('callable', (c) => {
      const v = arg(c, 0, 'obj');
      return v instanceof PyBuiltin || v instanceof PyClass || v instanceof PyUserClass || (v !== null && typeof v === 'object' && ['function', 'PjitFunction', 'method'].includes(v.typeName)) || (v instanceof PyInstance && v.cls.lookup('__call__') !== undefined);
    }),
  };
}

/** all(xs): False when one item is statically false, else the conjunction of the items known at run time. */
export function allOf(ip: Interp, xs: PyValue[], span: A.Span): boolean | HostScalar {
  const ts = xs.map((x) => hostTruth(ip, x, span));
  if (ts.some((t) => t === false)) return false;
  const dyn = ts.filter((t): t is HostScalar => t instanceof HostScalar);
  return dyn.length ? new HostScalar(dyn.map((t) => t.expr).reduce((a, b) => ({ k: 'bin', op: '&&', a, b })), 'bool') : true;
}

/** int(x) / float(x): static conversion, or a readback of a 0-d array. */
/**
 * `x.item()` and `x.tolist()` of a JAX array: Python scalars (float, int or bool by the array's
 * dtype), nested in lists for tolist. At host level they are read back when the program runs
 * (one readback for the whole array); inside a transformation JAX's ConcretizationTypeError.
 */
export function arrayToPython(ip: Interp, x: PyValue, method: 'item' | 'tolist', c: CallArgs): PyValue {
  const aval = ip.ops.aval(x, c.span);
  if (c.args.length || c.kwargs.size) throw new CompileError(`NotImplementedError: x.${method}() with arguments is not supported by jaxts`, c.span);
  const size = aval.shape.reduce((a, b) => a * b, 1);
  if (method === 'item' && size !== 1) throw new CompileError('ValueError: can only convert an array of size 1 to a Python scalar', c.span);
  if (!ip.atHost) {
    throw new CompileError(concretizationMessage(x, aval, method === 'item' ? 'This occurred in the item() method of jax.Array' : `The problem arose with the \`${method}\` method.`), c.span);
  }
  const kind = aval.dtype === 'bool' ? 'bool' : aval.dtype.startsWith('int') || aval.dtype.startsWith('uint') ? 'int' : 'float';
  const h = ip.hostArray(x, c.span);
  const data = ip.freshName(`${h.name}_values`);
  ip.flush();
  ip.emit({ k: 'const', names: [data], value: { k: 'call', callee: 'jx.values', args: [{ k: 'var', name: h.name }], await: true } });
  const at = (i: number): HostScalar => {
    const e: HExpr = { k: 'index', x: { k: 'var', name: data }, index: i };
    return new HostScalar(kind === 'bool' ? { k: 'bin', op: '!==', a: e, b: { k: 'lit', value: 0 } } : e, kind);
  };
  if (method === 'item' || !aval.shape.length) return at(0);
  const nest = (dim: number, off: number): PyList => {
    const n = aval.shape[dim]!;
    const stride = aval.shape.slice(dim + 1).reduce((a, b) => a * b, 1);
    return new PyList(Array.from({ length: n }, (_, i) => (dim + 1 === aval.shape.length ? at(off + i) : nest(dim + 1, off + i * stride))));
  };
  return nest(0, 0);
}

function toScalar(ip: Interp, v: PyValue, kind: 'int' | 'float', span: A.Span): PyValue {
  if (isArray(v)) {
    const aval = ip.ops.aval(v, span);
    if (aval.shape.length !== 0) throw new CompileError(`TypeError: only length-1 arrays can be converted to Python scalars`, span);
    if (!ip.atHost) {
      // outside jit JAX's differentiation tracers convert to int (not to float) by their concrete primal
      const c = kind === 'int' ? concreteValue(v) : 'staged';
      if (typeof c !== 'string') return BigInt(Math.trunc(finiteForInt(c.data[0]!, span)));
      if (c === 'runtime') throw runtimeOnlyError(`${kind}()`, span);
      throw new CompileError(
        concretizationMessage(v, aval, `The problem arose with the \`${kind}\` function. If trying to convert the data type of a value, try using \`x.astype(${kind})\` or \`jnp.array(x, ${kind})\` instead.`),
        span,
      );
    }
    const h = ip.hostArray(v, span);
    const e: HExpr = { k: 'call', callee: 'jx.item', args: [{ k: 'var', name: h.name }], await: true };
    return new HostScalar(kind === 'int' ? { k: 'call', callee: 'Math.trunc', args: [e] } : e, kind);
  }
  if (v instanceof HostNd) {
    if (v.shape.some((d) => d !== 1)) throw new CompileError('TypeError: only length-1 arrays can be converted to Python scalars', span);
    const e: HExpr = { k: 'call', callee: 'jx.np.item', args: [{ k: 'var', name: v.name }] };
    return new HostScalar(kind === 'int' ? { k: 'call', callee: 'Math.trunc', args: [e] } : e, kind);
  }
  if (v instanceof HostScalar) {
    if (v.type === 'str') return new HostScalar({ k: 'call', callee: kind === 'int' ? 'jx.pyStrMethods.toInt' : 'jx.pyStrMethods.toFloat', args: [v.expr] }, kind);
    return new HostScalar(kind === 'int' ? { k: 'call', callee: 'Math.trunc', args: [v.expr] } : v.expr, kind);
  }
  if (typeof v === 'string') {
    const t = v.trim();
    if (kind === 'int') {
      if (!/^[+-]?\d+$/.test(t)) throw new CompileError(`ValueError: invalid literal for int() with base 10: ${reprOf(ip, v, span).static}`, span);
      return BigInt(t);
    }
    const inf = /^([+-]?)inf(inity)?$/i.exec(t);
    const f = inf ? (inf[1] === '-' ? -Infinity : Infinity) : Number(t);
    if (Number.isNaN(f) && !/^[+-]?nan$/i.test(t)) throw new CompileError(`ValueError: could not convert string to float: ${reprOf(ip, v, span).static}`, span);
    return f;
  }
  const n = numArg(v, `${kind}()`, span);
  return kind === 'int' ? BigInt(Math.trunc(finiteForInt(n, span))) : n;
}

/** zip over an iterator: its tuples pulled as they are needed (an endless iterator beside a list stops with the list). */
function lazyZip(ip: Interp, c: CallArgs): PyIterator {
  const its = c.args.map((a) => (a instanceof PyIterator ? a : new PyIterator('list_iterator', iterate(ip, a, c.span)[Symbol.iterator]()))[Symbol.iterator]());
  let done = !its.length;
  const next = (): IteratorResult<PyValue> => {
    if (done) return { done: true, value: undefined };
    const items: PyValue[] = [];
    for (const it of its) {
      const r = it.next();
      if (r.done) {
        done = true;
        return { done: true, value: undefined };
      }
      items.push(r.value);
    }
    return { done: false, value: new PyTuple(items) };
  };
  return new PyIterator('zip', { next }, c.args);
}

/**
 * functools.lru_cache / cache: `f` with a cache of its results by arguments (hashable ones: equal by
 * ==, as a dict finds them; at most `maxsize`, least recently used out first). A call with an
 * argument that is not hashable here (a traced or run-time value) runs `f` uncached.
 */
function memoized(ip: Interp, f: PyValue, maxsize: number | null): PyBuiltin {
  const entries: { args: PyValue[]; value: PyValue }[] = [];
  const name = f instanceof PyFunction || f instanceof PyBuiltin ? f.name : 'wrapper';
  const wrapper = fn(name, (c) => {
    const args = [...c.args, ...[...c.kwargs].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([k, v]) => [`kw:${k}`, v])];
    try {
      args.forEach(dictKey);
    } catch {
      return ip.call(f, c);
    }
    const same = (x: PyValue, y: PyValue): boolean => x === y || dictKey(x) === dictKey(y) || (typeName(x) === typeName(y) && truthyStatic(ip, compare(ip, '==', x, y, c.span), c.span));
    const i = entries.findIndex((e) => e.args.length === args.length && e.args.every((x, j) => same(x, args[j]!)));
    if (i >= 0) {
      const [hit] = entries.splice(i, 1);
      entries.push(hit!);
      return hit!.value;
    }
    const value = ip.call(f, c);
    entries.push({ args, value });
    if (maxsize !== null && entries.length > maxsize) entries.shift();
    return value;
  });
  wrapper.attrs.set('cache_clear', fn('cache_clear', () => ((entries.length = 0), null)));
  wrapper.attrs.set('__wrapped__', f);
  return wrapper;
}

/** itertools: the iterators lessons use (count, cycle, repeat, islice, chain) and product. */
export function itertoolsModule(ip: Interp): PyModule {
  const iter = (name: string, gen: () => Iterator<PyValue>, roots: PyValue[]): PyIterator => new PyIterator(`itertools.${name}`, gen(), roots);
  const num = (v: PyValue, what: string, span: A.Span): bigint | number => {
    const x = ip.static(v, what, span);
    if (typeof x === 'bigint' || typeof x === 'number') return x;
    if (typeof x === 'boolean') return BigInt(x);
    throw new CompileError(`TypeError: a number is required`, span);
  };
  const chain = fn('chain', (c) => iter('chain', function* () {
    for (const src of c.args) yield* iterItems(ip, src, c.span);
  }, c.args));
  chain.attrs.set('from_iterable', fn('from_iterable', (c) => iter('chain', function* () {
    for (const src of iterItems(ip, arg(c, 0, 'iterable'), c.span)) yield* iterItems(ip, src, c.span);
  }, c.args)));
  return mod('itertools', {
    count: fn('count', (c) => {
      let v = num(c.args[0] ?? c.kwargs.get('start') ?? 0n, 'count start', c.span);
      const step = num(c.args[1] ?? c.kwargs.get('step') ?? 1n, 'count step', c.span);
      return iter('count', function* () {
        for (;;) {
          yield v;
          v = typeof v === 'bigint' && typeof step === 'bigint' ? v + step : Number(v) + Number(step);
        }
      }, []);
    }),
    cycle: fn('cycle', (c) => {
      const src = arg(c, 0, 'iterable');
      return iter('cycle', function* () {
        const seen: PyValue[] = [];
        for (const x of iterItems(ip, src, c.span)) {
          seen.push(x);
          yield x;
        }
        if (!seen.length) return;
        for (;;) yield* seen;
      }, [src]);
    }),
    repeat: fn('repeat', (c) => {
      const x = arg(c, 0, 'object');
      const times = c.args[1] ?? c.kwargs.get('times');
      const n = times === undefined ? Infinity : Number(intArg(times, 'times', c.span));
      return iter('repeat', function* () {
        for (let i = 0; i < n; i++) yield x;
      }, [x]);
    }),
    islice: fn('islice', (c) => {
      const src = arg(c, 0, 'iterable');
      const opt = (v: PyValue | undefined): number | null => (v === undefined || v === null ? null : Number(intArg(v, 'islice index', c.span)));
      const [start, stop, step] = c.args.length <= 2 ? [0, opt(c.args[1]), 1] : [opt(c.args[1]) ?? 0, opt(c.args[2]), opt(c.args[3]) ?? 1];
      if (start < 0 || (stop !== null && stop < 0) || step < 1) throw new CompileError('ValueError: Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.', c.span);
      return iter('islice', function* () {
        if (stop !== null && stop <= start) return;
        let i = 0;
        let want = start;
        for (const x of iterItems(ip, src, c.span)) {
          if (i === want) {
            yield x;
            want += step;
          }
          i++;
          // stop pulling once the slice is complete (an endless source is not drained)
          if (stop !== null && (i >= stop || want >= stop)) return;
        }
      }, [src]);
    }),
    chain,
    product: fn('product', (c) => {
      const repeat = Number(intArg(c.kwargs.get('repeat') ?? 1n, 'repeat', c.span));
      const pools = c.args.map((a) => iterate(ip, a, c.span));
      const all = Array.from({ length: repeat }, () => pools).flat();
      let out: PyValue[][] = [[]];
      for (const pool of all) {
        out = out.flatMap((prefix) => pool.map((x) => [...prefix, x]));
        checkItems(out.length, 'itertools.product', c.span);
      }
      return iter('product', () => out.map((xs) => new PyTuple(xs))[Symbol.iterator](), []);
    }),
  });
}

/** os, functools and typing: the parts lessons use (os.environ is what jax reads XLA_FLAGS from). */
export function stdlibModules(ip: Interp): { os: PyModule; functools: PyModule; typing: PyModule; dataclasses: PyModule; collections: PyModule } {
  const environ = new PyDict();
  const str = (c: CallArgs, i: number, name: string): string => {
    const v = ip.static(arg(c, i, name), name, c.span);
    if (typeof v !== 'string') throw new CompileError(`TypeError: expected str, bytes or os.PathLike object, not ${typeName(v)}`, c.span);
    return v;
  };
  // posixpath: string operations only (the file system is not the program's at compile time)
  const split = (p: string): [string, string] => {
    const i = p.lastIndexOf('/') + 1;
    const head = p.slice(0, i);
    return [head && head !== '/'.repeat(head.length) ? head.replace(/\/+$/, '') : head, p.slice(i)];
  };
  const path = mod('os.path', {
    sep: '/',
    join: fn('join', (c) => c.args.map((_, i) => str(c, i, 'path')).reduce((a, b) => (b.startsWith('/') ? b : !a || a.endsWith('/') ? a + b : `${a}/${b}`))),
    basename: fn('basename', (c) => split(str(c, 0, 'p'))[1]),
    dirname: fn('dirname', (c) => split(str(c, 0, 'p'))[0]),
    split: fn('split', (c) => new PyTuple(split(str(c, 0, 'p')))),
    splitext: fn('splitext', (c) => {
      const p = str(c, 0, 'p');
      const base = p.lastIndexOf('/') + 1;
      const dot = p.lastIndexOf('.');
      const stem = p.slice(base).replace(/^\.+/, '');
      if (dot <= base || !stem.includes('.')) return new PyTuple([p, '']);
      return new PyTuple([p.slice(0, dot), p.slice(dot)]);
    }),
    isabs: fn('isabs', (c) => str(c, 0, 's').startsWith('/')),
  });
  const os = mod('os', {
    environ,
    path,
    sep: '/',
    getenv: fn('getenv', (c) => {
      const v = environ.get(str(c, 0, 'key'));
      return v === undefined ? (c.args[1] ?? c.kwargs.get('default') ?? null) : v;
    }),
  });
  ip.environ = environ;
  const functools = mod('functools', {
    partial: fn('partial', (c) => new PyPartial(arg(c, 0, 'func'), c.args.slice(1), c.kwargs)),
    reduce: fn('reduce', (c) => {
      const f = arg(c, 0, 'function');
      const items = iterate(ip, arg(c, 1, 'iterable'), c.span);
      let acc: PyValue | undefined = c.args.length > 2 ? c.args[2]! : items.shift();
      if (acc === undefined) throw new CompileError('TypeError: reduce() of empty iterable with no initial value', c.span);
      for (const x of items) acc = ip.call(f, { args: [acc, x], kwargs: new Map(), span: c.span });
      return acc;
    }),
    // decorators that only change metadata or cache: the function itself (a jaxts program is evaluated once)
    wraps: fn('wraps', () => fn('wraps', (d) => arg(d, 0, 'f'))),
    lru_cache: fn('lru_cache', (c) => {
      const first = c.args[0];
      if (first !== undefined && first !== null && typeof first !== 'bigint') return memoized(ip, first, 128);
      const size = first ?? c.kwargs.get('maxsize') ?? (c.args.length || c.kwargs.has('maxsize') ? null : 128n);
      return fn('lru_cache', (d) => memoized(ip, arg(d, 0, 'f'), size === null ? null : Number(size)));
    }),
    cache: fn('cache', (c) => memoized(ip, arg(c, 0, 'f'), null)),
  });
  const marker = (n: string): PyClass => new PyClass(n, [], new Map(), 'marker');
  const typing = mod('typing', {
    NamedTuple: marker('NamedTuple'),
    Tuple: marker('Tuple'),
    List: marker('List'),
    Dict: marker('Dict'),
    Any: marker('Any'),
    Optional: marker('Optional'),
    Callable: marker('Callable'),
    Sequence: marker('Sequence'),
    Iterable: marker('Iterable'),
    Iterator: marker('Iterator'),
    Mapping: marker('Mapping'),
    Union: marker('Union'),
    Type: marker('Type'),
    Generator: marker('Generator'),
    Set: marker('Set'),
    FrozenSet: marker('FrozenSet'),
    Literal: marker('Literal'),
    Final: marker('Final'),
    ClassVar: marker('ClassVar'),
    Protocol: marker('Protocol'),
    Generic: marker('Generic'),
    Hashable: marker('Hashable'),
    Sized: marker('Sized'),
    NoReturn: marker('NoReturn'),
    TYPE_CHECKING: false,
    cast: fn('cast', (c) => arg(c, 1, 'val')),
    overload: fn('overload', (c) => arg(c, 0, 'func')),
    no_type_check: fn('no_type_check', (c) => arg(c, 0, 'arg')),
    TypeVar: fn('TypeVar', (c) => arg(c, 0, 'name')),
  });
  const dataclass: Fn = (c) => {
    const cls = c.args[0];
    if (cls === undefined) return fn('dataclass', (d) => makeDataclass(arg(d, 0, 'cls'), c.kwargs, (d.args[0] as PyUserClass | undefined)?.annotations, d.span));
    return makeDataclass(cls, c.kwargs, cls instanceof PyUserClass ? cls.annotations : undefined, c.span);
  };
  const dataclasses = mod('dataclasses', {
    dataclass: fn('dataclass', dataclass),
    field: fn('field', (c) => dataclassField(c)),
    FrozenInstanceError: FROZEN_INSTANCE_ERROR,
    asdict: fn('asdict', (c) => {
      const v = arg(c, 0, 'obj');
      if (!(v instanceof PyInstance) || !v.cls.mro.some((k) => k.dataclass)) throw new CompileError('TypeError: asdict() should be called on dataclass instances', c.span);
      const d = new PyDict();
      for (const f of v.cls.mro.find((k) => k.dataclass)!.dataclass!.fields) d.set(f, v.attrs.get(f) ?? null);
      return d;
    }),
    replace: fn('replace', (c) => {
      const v = arg(c, 0, 'obj');
      const dc = v instanceof PyInstance ? v.cls.mro.find((k) => k.dataclass)?.dataclass : undefined;
      if (!(v instanceof PyInstance) || !dc) throw new CompileError('TypeError: replace() should be called on dataclass instances', c.span);
      const kwargs = new Map(dc.fields.map((f): [string, PyValue] => [f, v.attrs.get(f) ?? null]));
      c.kwargs.forEach((x, k) => kwargs.set(k, x));
      return ip.call(v.cls, { args: [], kwargs, span: c.span });
    }),
    fields: fn('fields', (c) => {
      throw new CompileError('dataclasses.fields() is not supported', c.span);
    }),
  });
  const dictFrom = (c: CallArgs, first: number): PyDict => {
    const d = new PyDict();
    const src = c.args[first];
    if (src instanceof PyDict) src.entries.forEach(([k, v]) => d.set(k, v));
    else if (src !== undefined && src !== null) {
      for (const kv of iterate(ip, src, c.span)) {
        const pair = iterate(ip, kv, c.span);
        if (pair.length !== 2) throw new CompileError('ValueError: dictionary update sequence element has the wrong length; 2 is required', c.span);
        d.set(pair[0]!, pair[1]!);
      }
    }
    c.kwargs.forEach((v, k) => d.set(k, v));
    return d;
  };
  const collections = mod('collections', {
    defaultdict: fn('defaultdict', (c) => {
      const d = dictFrom({ ...c, kwargs: c.kwargs }, 1);
      d.flavor = { kind: 'defaultdict', factory: c.args[0] ?? null };
      return d;
    }),
    OrderedDict: fn('OrderedDict', (c) => {
      const d = dictFrom(c, 0);
      d.flavor = { kind: 'OrderedDict' };
      return d;
    }),
    Counter: fn('Counter', (c) => {
      const d = new PyDict();
      d.flavor = { kind: 'Counter' };
      countInto(ip, d, c.args[0] ?? null, 1n, c.span);
      c.kwargs.forEach((v, k) => d.set(k, v));
      return d;
    }),
    deque: fn('deque', (c) => {
      const src = c.args[0] ?? c.kwargs.get('iterable') ?? null;
      const maxlenV = c.args[1] ?? c.kwargs.get('maxlen') ?? null;
      const q = new PyList(src === null ? [] : iterate(ip, src, c.span));
      q.deque = { maxlen: maxlenV === null ? null : intArg(maxlenV, 'maxlen', c.span) };
      if (q.deque.maxlen !== null && q.items.length > q.deque.maxlen) q.items.splice(0, q.items.length - q.deque.maxlen);
      return q;
    }),
    namedtuple: fn('namedtuple', (c) => {
      const name = arg(c, 0, 'typename');
      const spec = arg(c, 1, 'field_names');
      if (typeof name !== 'string') throw new CompileError('TypeError: namedtuple() typename must be a str', c.span);
      const fields = typeof spec === 'string' ? spec.replace(/,/g, ' ').split(/\s+/).filter((x) => x) : iterate(ip, spec, c.span).map((x) => String(x));
      const defaults = new Map<string, PyValue>();
      const defs = c.kwargs.get('defaults');
      if (defs !== undefined && defs !== null) {
        const ds = iterate(ip, defs, c.span);
        ds.forEach((d, i) => defaults.set(fields[fields.length - ds.length + i]!, d));
      }
      return new PyClass(name, fields, defaults, 'namedtuple');
    }),
  });
  // collections.abc's abstract classes are typing's markers (annotations and bases)
  collections.attrs.set('abc', mod('collections.abc', Object.fromEntries(
    ['Callable', 'Hashable', 'Iterable', 'Iterator', 'Mapping', 'Sequence', 'Set', 'Sized', 'Generator'].map((n) => [n, typing.attrs.get(n)!]))));
  return { os, functools, typing, dataclasses, collections };
}
