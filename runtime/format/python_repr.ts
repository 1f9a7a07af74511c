// Python value printing: str() and repr() of None, bool, int, float, str
// (CPython's quote choice and escapes), tuple, list, dict, NamedTuple, and any
// object that brings its own __repr__/__str__ (arrays, NumPy scalars, ...).

import { pyFloatRepr } from './float_repr.js';

/** A Python int held as a JS number (a bare JS number means a Python float). */
export class PyInt {
  constructor(readonly value: number | bigint) {}
}

/** Wraps a JS number or bigint as a Python int. */
export function pyInt(value: number | bigint): PyInt {
  return new PyInt(value);
}

/** A Python tuple (a JS array means a Python list). */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/** Builds a Python tuple. */
export function pyTuple(...items: PyValue[]): PyTuple {
  return new PyTuple(items);
}

/** A typing.NamedTuple / collections.namedtuple instance: 'Params(w=..., b=...)'. */
export class PyNamedTuple {
  constructor(readonly typeName: string, readonly fields: readonly string[], readonly items: readonly PyValue[]) {}
}

/** An object that prints itself, as a Python object with __repr__ (and maybe __str__/__format__). */
export interface PyObjectLike {
  __repr__(): string;
  __str__?(): string;
  __format__?(spec: string): string;
}

/** A plain JS object prints as a dict with str keys, in insertion order. */
export interface PyDictRecord {
  readonly [key: string]: PyValue;
}

/**
 * The Python values the printers understand:
 * null/undefined → None, boolean → bool, bigint or PyInt → int,
 * number → float, string → str, PyTuple → tuple, JS array → list,
 * Map or plain object → dict, PyNamedTuple, or any PyObjectLike.
 */
export type PyValue =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | PyInt
  | PyTuple
  | PyNamedTuple
  | readonly PyValue[]
  | ReadonlyMap<PyValue, PyValue>
  | PyObjectLike
  | PyDictRecord;

/** True for objects that print themselves. */
export function isPyObjectLike(v: unknown): v is PyObjectLike {
  return typeof v === 'object' && v !== null && typeof (v as { __repr__?: unknown }).__repr__ === 'function';
}

function isPlainObject(v: object): v is PyDictRecord {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Python int text of a number or bigint. */
export function pyIntStr(v: number | bigint): string {
  if (typeof v === 'bigint') return v.toString();
  if (!Number.isFinite(v)) throw new RangeError(`not an integer: ${v}`);
  return BigInt(Math.trunc(v)).toString();
}

// Characters CPython's str.isprintable() rejects: Unicode "Other" and "Separator"
// categories, except the ASCII space.
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** repr(str) as CPython writes it: quote choice, \\n \\t \\r \\\\ escapes, \\xhh / \\uhhhh / \\Uhhhhhhhh for non-printables. */
export function pyStrRepr(s: string): string {
  const hasSingle = s.includes("'");
  const hasDouble = s.includes('"');
  const quote = hasSingle && !hasDouble ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x100) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/** Python type name of a value, as error messages spell it. */
export function pyTypeName(v: PyValue): string {
  if (v === null || v === undefined) return 'NoneType';
  switch (typeof v) {
    case 'boolean': return 'bool';
    case 'number': return 'float';
    case 'bigint': return 'int';
    case 'string': return 'str';
    default: break;
  }
  if (v instanceof PyInt) return 'int';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyNamedTuple) return v.typeName;
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'dict';
  if (isPyObjectLike(v)) {
    const name = (v as { pyTypeName?: unknown }).pyTypeName;
    return typeof name === 'string' ? name : 'object';
  }
  return 'dict';
}

function reprInner(v: PyValue, active: Set<object>): string {
  if (v === null || v === undefined) return 'None';
  switch (typeof v) {
    case 'boolean': return v ? 'True' : 'False';
    case 'number': return pyFloatRepr(v);
    case 'bigint': return v.toString();
    case 'string': return pyStrRepr(v);
    default: break;
  }
  if (v instanceof PyInt) return pyIntStr(v.value);
  if (isPyObjectLike(v)) return v.__repr__();
  if (active.has(v)) {
    if (Array.isArray(v)) return '[...]';
    if (v instanceof PyTuple || v instanceof PyNamedTuple) return '(...)';
    return '{...}';
  }
  active.add(v);
  try {
    if (v instanceof PyTuple) {
      const items = v.items.map((x) => reprInner(x, active));
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
    }
    if (v instanceof PyNamedTuple) {
      const parts = v.fields.map((f, i) => `${f}=${reprInner(v.items[i], active)}`);
      return `${v.typeName}(${parts.join(', ')})`;
    }
    if (Array.isArray(v)) {
      return `[${(v as readonly PyValue[]).map((x) => reprInner(x, active)).join(', ')}]`;
    }
    if (v instanceof Map) {
      const parts: string[] = [];
      for (const [k, x] of v as ReadonlyMap<PyValue, PyValue>) parts.push(`${reprInner(k, active)}: ${reprInner(x, active)}`);
      return `{${parts.join(', ')}}`;
    }
    if (isPlainObject(v)) {
      const parts = Object.keys(v).map((k) => `${pyStrRepr(k)}: ${reprInner(v[k], active)}`);
      return `{${parts.join(', ')}}`;
    }
    throw new TypeError(`pyRepr: cannot print ${Object.prototype.toString.call(v)} as a Python value`);
  } finally {
    active.delete(v);
  }
}

/** Python repr(v). */
export function pyRepr(v: PyValue): string {
  return reprInner(v, new Set());
}

/** Python str(v): strings as themselves, objects through __str__, containers as their repr. */
export function pyStr(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (isPyObjectLike(v)) return v.__str__ ? v.__str__() : v.__repr__();
  return pyRepr(v);
}

/** What print(*args, sep=' ', end='') writes (without the trailing newline). */
export function pyPrintLine(args: readonly PyValue[], sep = ' '): string {
  return args.map(pyStr).join(sep);
}
