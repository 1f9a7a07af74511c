// The log of the script's calls of its top-level functions: the argument
// types of each one's first call (preferring a call from the host), from
// which exports.ts compiles the module's exported functions.
import type { AVal } from '../ir/types.js';
import type { Span } from '../parser/ast.js';
import { jaxDtype } from './arrays.js';
import {
  HostArray, HostScalar, NdArray, NpScalar, PyDict, PyFunction, PyList, PyTransformed, PyTuple, Tracer,
  typeName, type PyClass, type PyNamedSharding, type PyValue, type CallArgs,
} from './values.js';

/** An argument as a call site saw it: arrays by type, Python constants by value. */
export type Abstract =
  | { k: 'array'; aval: AVal; sharding: PyNamedSharding | null }
  | { k: 'static'; value: null | boolean | bigint | number | string }
  | { k: 'scalar'; value: HostScalar }
  | { k: 'tuple'; items: Abstract[]; cls: PyClass | null }
  | { k: 'list'; items: Abstract[] }
  | { k: 'dict'; entries: [string, Abstract][] };

export interface Signature {
  args: Abstract[];
  kwargs: [string, Abstract][];
  span: Span;
  /** Called from the script's top level (preferred over a call inside a traced function). */
  atHost: boolean;
}

/** The argument types of the first call of each function (a reason when one cannot cross to JS). */
export class CallLog {
  private first = new Map<PyValue, Signature | string>();
  private hostCalled = new Set<PyValue>();
  enabled = true;

  /** A call of `fn`; `atHost`: from the script's top level, not inside a trace. */
  record(fn: PyFunction | PyTransformed, call: CallArgs, atHost: boolean): void {
    if (!this.enabled || this.hostCalled.has(fn)) return;
    if (this.first.has(fn) && !atHost) return;
    if (atHost) this.hostCalled.add(fn);
    try {
      this.first.set(fn, { args: call.args.map(abstractOf), kwargs: [...call.kwargs].map(([k, v]) => [k, abstractOf(v)]), span: call.span, atHost });
    } catch (e) {
      this.first.set(fn, e instanceof Unexportable ? e.message : String(e));
    }
  }

  get(fn: PyValue): Signature | string | undefined {
    return this.first.get(fn);
  }
}

class Unexportable extends Error {}

function abstractOf(v: PyValue): Abstract {
  if (v instanceof HostArray) return { k: 'array', aval: v.aval, sharding: v.sharding };
  if (v instanceof Tracer) return { k: 'array', aval: v.aval, sharding: v.materialized?.sharding ?? null };
  if (v instanceof NdArray) return { k: 'array', aval: { shape: v.shape, dtype: jaxDtype(v.dtype) }, sharding: null };
  if (v instanceof NpScalar) return { k: 'static', value: v.value };
  if (v === null || typeof v !== 'object') return { k: 'static', value: v };
  if (v instanceof HostScalar) return { k: 'scalar', value: v };
  if (v instanceof PyTuple) return { k: 'tuple', items: v.items.map(abstractOf), cls: v.cls };
  if (v instanceof PyList) return { k: 'list', items: v.items.map(abstractOf) };
  if (v instanceof PyDict) {
    const keys = v.keys();
    if (!keys.every((k) => typeof k === 'string')) throw new Unexportable('a dict argument has keys that are not strings');
    return { k: 'dict', entries: keys.map((k, i) => [k as string, abstractOf(v.values()[i]!)]) };
  }
  throw new Unexportable(`an argument is a ${typeName(v)}, which cannot come from JS`);
}
