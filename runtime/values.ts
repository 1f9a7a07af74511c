// Helpers generated host code calls on values known only at run time:
// printing arrays as NumPy/JAX do, Python str/repr/format of host numbers,
// Python's floor division and modulo, and CPU-kernel conversions.
import { pyFloatPow } from './format/python_pow.js';
import { arrayFormat, formatValue, jaxKeyRepr, jaxRepr, jaxStr, npScalarStr, numpyRepr, numpyStr, pyFloatRepr, PyFormatError, pyPercentFormat, pyStrRepr } from './format/index.js';
import { PythonError, type JArray } from './runtime.js';
import { log as correctLog } from './numpy/mt19937.js';

/** Generated code's release of arrays after their last use (a variable not yet assigned is skipped). */
export function release(...xs: (JArray | undefined)[]): void {
  for (const x of xs) x?.release();
}

/** str(x) of a jax.Array (NumPy's str of its value). */
export async function str(x: JArray): Promise<string> {
  return jaxStr({ dtype: x.dtype, shape: x.shape, data: await x.data() });
}

/** repr(x) of a jax.Array: `Array([...], dtype=float32)`; `weakType` (known at compile time) adds `weak_type=True`; `name` replaces `Array` (a Ref's). */
export async function repr(x: JArray, weakType = false, name = 'Array'): Promise<string> {
  const s = jaxRepr({ dtype: x.dtype, shape: x.shape, data: await x.data() }, { weakType });
  // a jax.Ref shows its buffer's repr under its own name (JAX: "Ref" + repr(buf)[5:])
  return name === 'Array' ? s : name + s.slice(5);
}

/** repr(k) (and str) of a typed PRNG key array, given its key data. */
export async function keyRepr(data: JArray): Promise<string> {
  return jaxKeyRepr({ dtype: data.dtype, shape: data.shape, data: await data.data() });
}

/** format(x, spec) of a jax.Array. */
export async function formatArray(x: JArray, spec: string): Promise<string> {
  const data = await x.data();
  return raisingPython(() => arrayFormat({ dtype: x.dtype, shape: x.shape, data }, spec));
}

/** `f()`, with a formatter's Python exception thrown as an Error whose message reads as Python's. */
function raisingPython<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PyFormatError) throw new Error(`${e.pyType}: ${e.message}`);
    throw e;
  }
}

/** The single element of a 0-d or size-1 array, as a JS number (float(x), x.item()). */
export async function item(x: JArray): Promise<number> {
  const d = await x.data();
  if (d.length !== 1) throw new Error('TypeError: only length-1 arrays can be converted to Python scalars');
  return d[0]!;
}

/** Every element of an array, in row-major order, as JS numbers (x.tolist()). */
export async function values(x: JArray): Promise<readonly number[]> {
  return Array.from(await x.data());
}

export type HostType = 'int' | 'float' | 'bool' | 'str';

const py = (v: number | string | boolean, type: HostType): number | bigint | string | boolean =>
  type === 'int' ? BigInt(Math.trunc(v as number)) : type === 'bool' ? Boolean(v) : type === 'float' ? Number(v) : String(v);

/** str() of a host value of a known Python type. */
export function pyStr(v: number | string | boolean, type: HostType): string {
  if (type === 'float') return pyFloatRepr(v as number);
  if (type === 'bool') return v ? 'True' : 'False';
  if (type === 'int') return String(Math.trunc(v as number));
  return String(v);
}

export function pyRepr(v: number | string | boolean, type: HostType): string {
  return type === 'str' ? pyStrRepr(String(v)) : pyStr(v, type);
}

/** format(v, spec) of a host value of a known Python type. */
export function format(v: number | string | boolean, spec: string, type: HostType): string {
  return raisingPython(() => formatValue(py(v, type), spec));
}

/** One printf-style conversion (`directive` such as '%-8.3f') of a host value: `directive % v`. */
export function printf(v: number | string | boolean, directive: string, type: HostType): string {
  return raisingPython(() => pyPercentFormat(directive, py(v, type)));
}

/** time.time(): seconds since the epoch. */
export function clockTime(): number {
  return Date.now() / 1000;
}

/** time.perf_counter(): a monotonic clock in seconds. */
export function clockPerf(): number {
  return performance.now() / 1000;
}

/** time.sleep(s). */
export function sleep(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds * 1000)));
}

/** math.degrees / math.radians. */
export const degrees = (x: number): number => (x * 180) / Math.PI;
export const radians = (x: number): number => (x * Math.PI) / 180;

/** A host value that may be None (`best = None`, then a number), used where Python needs the value itself. */
export function notNone<T>(x: T | null): T {
  if (x === null) throw new Error("TypeError: unsupported operation on 'NoneType'");
  return x;
}

/** A Python exception caught at run time by an `except` clause: its class name and its str(). */
export interface PyExc {
  readonly type: string;
  readonly message: string;
  /** The traceback's frames (CPython's text), outermost first, when known: JAX's errors carry theirs. */
  readonly frames: readonly string[] | null;
}

/** The built-in exception classes' bases, up to Exception. */
const EXC_BASES: Readonly<Record<string, string>> = {
  IndexError: 'LookupError', KeyError: 'LookupError', ZeroDivisionError: 'ArithmeticError', OverflowError: 'ArithmeticError',
  FloatingPointError: 'ArithmeticError', NotImplementedError: 'RuntimeError', RecursionError: 'RuntimeError', ModuleNotFoundError: 'ImportError',
};

/** What an `except` sees of a value thrown at run time: a Python exception (`TypeName: message`); anything else passes on. */
export function pyCaught(e: unknown): PyExc {
  const m = e instanceof Error ? /^([A-Za-z_][\w.]*)(?:: ([\s\S]*))?$/.exec(e.message) : null;
  if (!m || !/(Error|Exception|Warning|StopIteration)$/.test(m[1]!)) throw e;
  const frames = (e as { frames?: readonly string[] | null }).frames ?? null;
  return { type: m[1]!, message: m[2] ?? '', frames };
}

/** str.replace(old, new) of a string known only at run time (every occurrence, as CPython replaces). */
export function pyStrReplace(s: string, old: string, by: string): string {
  return old === '' ? [...s].reduce((acc, ch) => acc + ch + by, by) : s.split(old).join(by);
}

/**
 * traceback.format_exc() of an exception caught at run time: its frames (the first `limit`; a negative
 * limit keeps the last ones) and its line; an error JAX raised ends with the note JAX adds for the frames
 * it filtered out.
 */
export function pyFormatExc(exc: PyExc, limit: number | null): string {
  const frames = exc.frames ?? [];
  const shown = limit === null ? frames : limit >= 0 ? frames.slice(0, limit) : frames.slice(limit);
  const note = exc.frames ? '\n--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.' : '';
  return `Traceback (most recent call last):\n${shown.join('')}${exc.type}${exc.message ? `: ${exc.message}` : ''}${note}\n`;
}

/** Does an `except` clause naming `classes` catch `exc`? */
export function pyExcMatches(exc: PyExc, classes: readonly string[]): boolean {
  if (classes.includes('Exception') || classes.includes('BaseException')) return true;
  for (let t: string | undefined = exc.type; t !== undefined; t = EXC_BASES[t]) if (classes.includes(t)) return true;
  return false;
}

/** Re-raises what no `except` clause caught. */
export function pyRethrow(e: unknown): never {
  throw e;
}

/** `seq[i]` of a table of Python scalars with an index known only at run time (negative counts from the end). */
export function pyIndex<T>(items: readonly T[], i: number, seq: string): T {
  const j = i < 0 ? i + items.length : i;
  if (!Number.isInteger(j) || j < 0 || j >= items.length) throw new Error(`IndexError: ${seq} index out of range`);
  return items[j]!;
}

/** repr() (and str) of a list known only at run time, whose items are host values of one Python type. */
export function pyListRepr(items: readonly (number | string | boolean)[], type: HostType, tuple = false): string {
  return seqRepr(items.map((x) => pyRepr(x, type)), tuple);
}

/** `a == b` of two run-time lists (or tuples) of host scalars: item by item (a bool equals its int). */
export function pySeqEquals(a: readonly (number | string | boolean)[], b: readonly (number | string | boolean)[]): boolean {
  const key = (x: number | string | boolean): number | string => (typeof x === 'boolean' ? Number(x) : x);
  return a.length === b.length && a.every((x, i) => key(x) === key(b[i]!));
}

/** `[a, b]`, or as a tuple `(a, b)` (one item: `(a,)`). */
const seqRepr = (parts: string[], tuple: boolean): string => (tuple ? `(${parts.join(', ')}${parts.length === 1 ? ',' : ''})` : `[${parts.join(', ')}]`);

/** repr() of a run-time list of jax.Arrays (`weakType`: of weakly typed ones). */
export async function pyArrayListRepr(items: readonly JArray[], weakType = false, tuple = false): Promise<string> {
  const parts: string[] = [];
  for (const x of items) parts.push(await repr(x, weakType));
  return seqRepr(parts, tuple);
}

/** Python's order of two numbers or two strings (strings by code point): negative, zero or positive. */
function pyCompare(a: number | string | boolean, b: number | string | boolean): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [[...a].map((ch) => ch.codePointAt(0)!), [...b].map((ch) => ch.codePointAt(0)!)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
}

/** sorted() of a run-time list, in place on its copy: Python's order (numbers by value, strings by code point; stable). */
export function pyListSort<T extends number | string | boolean>(items: T[], reverse = false): void {
  // reverse=True keeps equal items in their order, as Python's does
  items.sort((a, b) => (reverse ? pyCompare(b, a) : pyCompare(a, b)));
}

/** The indices of `keys` in the order sorted(..., key=) puts their items (stable, also with reverse=True). */
export function pySortOrder(keys: readonly (number | string | boolean)[], reverse = false): number[] {
  return keys.map((_, i) => i).sort((i, j) => (reverse ? pyCompare(keys[j]!, keys[i]!) : pyCompare(keys[i]!, keys[j]!)));
}

/** The index of the item max(..., key=) (min) returns: the first whose key no later key exceeds (undercuts). */
export function pyArgExtreme(keys: readonly (number | string | boolean)[], which: 'max' | 'min'): number {
  let best = 0;
  for (let i = 1; i < keys.length; i++) if (which === 'max' ? pyCompare(keys[i]!, keys[best]!) > 0 : pyCompare(keys[i]!, keys[best]!) < 0) best = i;
  return best;
}

/** items[i] of a choice made at run time (sorted/max/min with a key known only then). */
export function pyPick<T>(items: readonly T[], i: number): T {
  return items[i]!;
}

/** list(range(start, ...)) of `length` items known only at run time. */
export function pyRangeList(start: number, length: number, step: number): number[] {
  return Array.from({ length }, (_, i) => start + i * step);
}

/** sum() of a run-time list of ints or floats (CPython 3.11 adds left to right, from `start`). */
export function pyListSum(items: readonly number[], start = 0): number {
  let s = start;
  for (const x of items) s += x;
  return s;
}

/** any() / all() of a run-time list of numbers, strings or bools (Python's truth: 0, -0.0, '' and False are false, NaN true). */
export function pyListTruth(items: readonly (number | string | boolean)[], which: 'any' | 'all'): boolean {
  const truth = (x: number | string | boolean): boolean => x !== 0 && x !== '' && x !== false;
  return which === 'any' ? items.some(truth) : items.every(truth);
}

/**
 * `xs.index(x)`, `xs.count(x)`, `x in xs` of a run-time list of numbers, strings or bools (Python's ==:
 * True equals 1, an int equals the float of its value); `shown`: repr(x) for index's ValueError.
 */
export function pyListFind(items: readonly (number | string | boolean)[], x: number | string | boolean, which: 'index' | 'count' | 'in', shown = ''): number | boolean {
  const key = typeof x === 'boolean' ? Number(x) : x;
  const eq = (y: number | string | boolean): boolean => (typeof y === 'boolean' ? Number(y) : y) === key;
  if (which === 'count') return items.filter(eq).length;
  const i = items.findIndex(eq);
  if (which === 'in') return i >= 0;
  if (i < 0) throw new Error(`ValueError: ${shown} is not in list`);
  return i;
}

/** max() / min() of a run-time list: the first item no later one beats (Python's comparisons, NaN included). */
export function pyListExtreme<T extends number | string | boolean>(items: readonly T[], which: 'max' | 'min'): T {
  if (!items.length) throw new Error(`ValueError: ${which}() arg is an empty sequence`);
  let best = items[0]!;
  for (const x of items) if (which === 'max' ? x > best : x < best) best = x;
  return best;
}

/** `xs.extend(ys)` of run-time lists (item by item: a long list would overflow push's arguments). */
export function pyListExtend<T>(items: T[], more: readonly T[]): void {
  for (const x of [...more]) items.push(x);
}

/** `xs.pop(i)` of a run-time list (i defaults to the last item). */
export function pyListPop<T>(items: T[], i = -1): T {
  if (!items.length) throw new Error('IndexError: pop from empty list');
  const j = i < 0 ? i + items.length : i;
  if (j < 0 || j >= items.length) throw new Error('IndexError: pop index out of range');
  return items.splice(j, 1)[0]!;
}

/** `s[i]` of a str known only at run time (by code points, as Python indexes). */
export function pyStrIndex(s: string, i: number): string {
  return pyIndex(Array.from(s), i, 'string');
}

/** `seq[start:stop:step]` of a str or list known only at run time (null: the bound left out), as Python slices. */
export function pySlice<T>(items: readonly T[], start: number | null, stop: number | null, step: number | null): T[] {
  const n = items.length;
  const st = step ?? 1;
  if (st === 0) throw new Error('ValueError: slice step cannot be zero');
  const clamp = (v: number | null, dflt: number, lo: number, hi: number): number => (v === null ? dflt : v < 0 ? Math.max(v + n, lo) : Math.min(v, hi));
  const a = st > 0 ? clamp(start, 0, 0, n) : clamp(start, n - 1, -1, n - 1);
  const b = st > 0 ? clamp(stop, n, 0, n) : clamp(stop, -1, -1, n - 1);
  const out: T[] = [];
  for (let i = a; st > 0 ? i < b : i > b; i += st) out.push(items[i]!);
  return out;
}

/** `s[start:stop:step]` of a str known only at run time. */
export function pyStrSlice(s: string, start: number | null, stop: number | null, step: number | null): string {
  return pySlice(Array.from(s), start, stop, step).join('');
}

/** Python's `/` on host numbers; `floats`: an operand is a float (Python words the error by type). */
export function truediv(a: number, b: number, floats = false): number {
  if (b === 0) throw new Error(`ZeroDivisionError: ${floats ? 'float division by zero' : 'division by zero'}`);
  return a / b;
}

/** Python's `a // b` of ints that may pass 2**53 (TS bigints): toward -inf. */
export function bigFloordiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new Error('ZeroDivisionError: integer division or modulo by zero');
  const q = a / b;
  return (a % b !== 0n) && ((a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** Python's `a % b` of ints that may pass 2**53: the sign of the divisor. */
export function bigMod(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new Error('ZeroDivisionError: integer modulo by zero');
  const r = a % b;
  return r !== 0n && (r < 0n) !== (b < 0n) ? r + b : r;
}

/** Python's `a == b` of an int that may pass 2**53 (a TS bigint) and a number: exact, as JS's loose equality is. */
export function bigEq(a: bigint | number, b: bigint | number): boolean {
  return a == b;
}

/** Python's `//` on host numbers. */
export function floordiv(a: number, b: number, floats = false): number {
  if (b === 0) throw new Error(`ZeroDivisionError: ${floats ? 'float floor division by zero' : 'integer division or modulo by zero'}`);
  if (!floats) return Math.floor(a / b);
  // CPython's float_floor_div: 1.0 // 0.1 is 9.0, not floor(1.0 / 0.1)
  let mod = a % b;
  let div = (a - mod) / b;
  // C's truth of a double: NaN is true (inf // y is nan, not 0)
  if (mod !== 0 && b < 0 !== mod < 0) {
    mod += b;
    div -= 1;
  }
  if (div === 0) return a / b < 0 || Object.is(a / b, -0) ? -0 : 0;
  const q = Math.floor(div);
  return div - q > 0.5 ? q + 1 : q;
}

/** math.log: correctly rounded, as glibc's log (JS's Math.log is 1 ulp off on some inputs). */
export const pyLog = correctLog;

/**
 * A math module function of one float, with CPython's checks (math_1): a NaN from a number is a domain error
 * (ValueError), an infinity from a finite number an OverflowError where `f` can overflow, else a domain error.
 */
export function math1(f: (x: number) => number, x: number, canOverflow: boolean): number {
  const r = f(x);
  if (Number.isNaN(r) && !Number.isNaN(x)) throw new Error('ValueError: math domain error');
  if (!Number.isFinite(r) && !Number.isNaN(r) && Number.isFinite(x)) throw new Error(canOverflow ? 'OverflowError: math range error' : 'ValueError: math domain error');
  return r;
}

/** Python's `**` on host numbers where an operand is a float (or the int exponent is negative); `floats` keeps the calling convention of truediv / floordiv / mod (the message is the same either way). */
export function floatpow(a: number, b: number, floats = false): number {
  // (CPython words an int to a negative power as the float power it computes)
  if (a === 0 && b < 0) throw new Error('ZeroDivisionError: 0.0 cannot be raised to a negative power');
  const r = pyFloatPow(a, b);
  if (r !== r && a < 0 && Number.isFinite(b)) throw new Error('jaxts: a negative number to a fractional power is a complex number, which jaxts does not support');
  if (!Number.isFinite(r) && Number.isFinite(a) && Number.isFinite(b)) throw new Error("OverflowError: (34, 'Numerical result out of range')");
  return r;
}

/** Python's `&`, `|`, `^`, `<<`, `>>` on host ints (and bools: `&`, `|`, `^` of two bools is a bool). */
export function bitop(op: '&' | '|' | '^', a: boolean, b: boolean): boolean;
export function bitop(op: string, a: number | boolean, b: number | boolean): number;
export function bitop(op: string, a: number | boolean, b: number | boolean): number | boolean {
  const x = BigInt(a);
  const y = BigInt(b);
  if ((op === '<<' || op === '>>') && y < 0n) throw new Error('ValueError: negative shift count');
  const r = op === '&' ? x & y : op === '|' ? x | y : op === '^' ? x ^ y : op === '<<' ? x << y : x >> y;
  return typeof a === 'boolean' && typeof b === 'boolean' && op !== '<<' && op !== '>>' ? r !== 0n : Number(r);
}

/** Python's `%` on host numbers (the sign follows the divisor). */
export function mod(a: number, b: number, floats = false): number {
  if (b === 0) throw new Error(`ZeroDivisionError: ${floats ? 'float modulo' : 'integer modulo by zero'}`);
  const r = a % b;
  // a float zero takes the divisor's sign (CPython's float_rem)
  if (r === 0) return floats && b < 0 ? -0 : 0;
  return r < 0 !== b < 0 ? r + b : r;
}

/** Round half to even in float32 (jnp.round). */
export function roundHalfEven32(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Python's round(x) of a float: the nearest integer, ties to even. */
export function pyRound(x: number): number {
  if (Number.isNaN(x)) throw new Error('ValueError: cannot convert float NaN to integer');
  if (!Number.isFinite(x)) throw new Error('OverflowError: cannot convert float infinity to integer');
  return roundHalfEven32(x);
}

/** float32 → int32 as XLA converts on CPU (truncation; out of range saturates, NaN → 0). */
export function f32ToI32(x: number): number {
  if (x !== x) return 0;
  if (x >= 2147483647) return 2147483647;
  if (x <= -2147483648) return -2147483648;
  return Math.trunc(x) | 0;
}

export function f32ToU32(x: number): number {
  if (x !== x || x <= 0) return 0;
  if (x >= 4294967295) return 4294967295;
  return Math.trunc(x) >>> 0;
}

/** A check made at run time (jax.test_util.check_grads): Python's AssertionError when it fails. */
export function assertTrue(ok: number | boolean, message: string, line: number | null = null): void {
  if (!ok) throw new PythonError(`AssertionError: ${message}`, line);
}

/** Values np.testing compares: a JAX array, or NumPy values the compiler knew (shape, dtype, data). */
export interface TestedValues {
  readonly shape: readonly number[];
  readonly dtype: 'float32' | 'float64' | 'int32' | 'int64' | 'uint32' | 'bool';
  readonly data: ArrayLike<number>;
}

/**
 * np.testing.assert_allclose ('close'), assert_array_equal ('equal') and assert_array_almost_equal
 * ('almost', within 1.5 * 10**-decimal) of values known at run time: NumPy's element-wise check in
 * float64 (a scalar broadcasts), and on failure its AssertionError text.
 */
export async function assertClose(
  kind: 'close' | 'equal' | 'almost',
  actual: JArray | TestedValues,
  desired: JArray | TestedValues,
  tol: { rtol: number; atol: number; equalNan: boolean; decimal: number },
  errMsg: string,
  line: number | null = null,
): Promise<void> {
  const values = async (v: JArray | TestedValues): Promise<TestedValues> =>
    'rt' in v ? { shape: v.shape, dtype: v.dtype as TestedValues['dtype'], data: await v.data() } : v;
  const [a, d] = [await values(actual), await values(desired)];
  const n = Math.max(a.data.length, d.data.length);
  const at = (v: TestedValues, i: number): number => Number(v.data[v.data.length === 1 ? 0 : i]);
  let bad = 0;
  let maxAbs = 0;
  let maxRel = -1;
  const where: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = at(a, i);
    const y = at(d, i);
    const nan = Number.isNaN(x) || Number.isNaN(y);
    let ok: boolean;
    if (nan) ok = Number.isNaN(x) && Number.isNaN(y) && (kind !== 'close' || tol.equalNan);
    else if (x === y) ok = true;
    else if (kind === 'close') ok = Math.abs(x - y) <= tol.atol + tol.rtol * Math.abs(y);
    else if (kind === 'almost') ok = Math.abs(y - x) < 1.5 * 10 ** -tol.decimal;
    else ok = false;
    if (ok) continue;
    bad++;
    if (where.length < 5) where.push(i);
    if (!nan && Number.isFinite(x) && Number.isFinite(y)) {
      maxAbs = Math.max(maxAbs, Math.abs(x - y));
      if (y !== 0) maxRel = Math.max(maxRel, Math.abs(x - y) / Math.abs(y));
    }
  }
  if (!bad) return;
  const header =
    kind === 'close' ? `Not equal to tolerance rtol=${pyFloatRepr(tol.rtol).replace(/\.0$/, '')}, atol=${pyFloatRepr(tol.atol).replace(/\.0$/, '')}` : kind === 'equal' ? 'Arrays are not equal' : `Arrays are not almost equal to ${tol.decimal} decimals`;
  const scalar = (v: number): string => numpyStr({ dtype: 'float64', shape: [], data: [v] });
  const [na, nd] = kind === 'close' ? ['ACTUAL', 'DESIRED'] : ['x', 'y'];
  // the multi-index of each of the first five mismatches, and the two values there
  const shape = a.data.length >= d.data.length ? a.shape : d.shape;
  const index = (i: number): string => `[${shape.map((_, k) => Math.floor(i / shape.slice(k + 1).reduce((p, q) => p * q, 1)) % shape[k]!).join(', ')}]`;
  const shown = where.map((i) => ` ${index(i)}: ${npScalarStr(at(a, i), a.dtype)} (${na}), ${npScalarStr(at(d, i), d.dtype)} (${nd})`);
  const lines = [
    '',
    header,
    errMsg,
    `Mismatched elements: ${bad} / ${n} (${Number(((100 * bad) / n).toPrecision(3))}%)`,
    ...(shape.length ? [`${bad === 1 ? 'Mismatch at index' : bad <= 5 ? 'Mismatch at indices' : 'First 5 mismatches are at indices'}:\n${shown.join('\n')}`] : []),
    `Max absolute difference among violations: ${scalar(maxAbs)}`,
    `Max relative difference among violations: ${scalar(maxRel < 0 ? Infinity : maxRel)}`,
    ` ${na}: ${numpyRepr(a, { precision: 6 })}`,
    ` ${nd}: ${numpyRepr(d, { precision: 6 })}`,
  ];
  throw new PythonError(`AssertionError: ${lines.join('\n')}`, line);
}

/** An exception the Python program raises at run time (`message`: `TypeName: text`), at 1-based `line` when known. */
export function pyRaise(message: string, line: number | null = null): never {
  throw new PythonError(message, line);
}

/** Python's `assert ok, message` checked at run time: AssertionError (with the message when there is one). */
export function pyAssert(ok: boolean, message: string | null, line: number | null = null): void {
  if (!ok) throw new PythonError(message === null ? 'AssertionError' : `AssertionError: ${message}`, line);
}
