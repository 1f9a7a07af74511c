// Python arithmetic, comparison and truthiness on static values: ints are
// bigints (arbitrary precision, floor division), floats are numbers.
import { pyFloatPow } from '../../runtime/format/python_pow.js';
import { shardingEquals } from './shardings.js';
import { treedefEquals } from './treedef.js';
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import { NdArray, NpScalar, PyComplex, PyDict, PyDType, PyList, PyTuple, typeName, type PyValue } from './values.js';
import { checkIntBits, checkItems, intBits } from './limits.js';
import { PySet, setCompare } from './sets.js';

const toNum = (v: bigint | number | boolean): number => (typeof v === 'number' ? v : Number(v));
const isIntLike = (v: PyValue): v is bigint | boolean => typeof v === 'bigint' || typeof v === 'boolean';

const EXACT = 2n ** 53n;

/** int / int as CPython computes it: the double nearest the exact quotient (ints beyond 2**53 are not rounded first). */
function intTrueDiv(x: bigint, y: bigint, span: A.Span): number {
  const abs = (v: bigint): bigint => (v < 0n ? -v : v);
  if (abs(x) <= EXACT && abs(y) <= EXACT) return Number(x) / Number(y);
  const negative = (x < 0n) !== (y < 0n);
  const a = abs(x);
  const b = abs(y);
  if (a === 0n) return negative ? -0 : 0;
  // a quotient of at least 55 bits (a sticky last bit for what is left): BigInt → Number rounds it once, correctly
  const shift = 55 - (a.toString(2).length - b.toString(2).length);
  const num = shift > 0 ? a << BigInt(shift) : a;
  const den = shift < 0 ? b << BigInt(-shift) : b;
  let q = num / den;
  if (num % den !== 0n) q |= 1n;
  let r = Number(q);
  for (let s = shift; s !== 0; ) {
    const step = Math.max(-1000, Math.min(1000, s));
    r *= 2 ** -step;
    s -= step;
  }
  if (!Number.isFinite(r)) throw new CompileError('OverflowError: integer division result too large for a float', span);
  return negative ? -r : r;
}

export function staticBinary(op: A.BinOpName, a: PyValue, b: PyValue, span: A.Span): PyValue {
  if (a instanceof NpScalar) a = a.dtype.startsWith('float') ? a.value : BigInt(a.value);
  if (b instanceof NpScalar) b = b.dtype.startsWith('float') ? b.value : BigInt(b.value);
  const isSeq = (v: PyValue): boolean => typeof v === 'string' || v instanceof PyList || (v instanceof PyTuple && !v.cls);
  const bad = (): CompileError =>
    // a sequence times a non-int: CPython's sequence-repeat message
    op === '*' && (isSeq(a) || isSeq(b))
      ? new CompileError(`TypeError: can't multiply sequence by non-int of type '${typeName(isSeq(a) ? b : a)}'`, span)
      : new CompileError(`TypeError: unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`, span);
  if (isIntLike(a) && isIntLike(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*':
        checkIntBits(intBits(x) + intBits(y), span);
        return x * y;
      case '/':
        if (y === 0n) throw new CompileError('ZeroDivisionError: division by zero', span);
        return intTrueDiv(x, y, span);
      case '//': {
        if (y === 0n) throw new CompileError('ZeroDivisionError: integer division or modulo by zero', span);
        const q = x / y;
        return (x % y !== 0n && (x < 0n) !== (y < 0n)) ? q - 1n : q;
      }
      case '%': {
        if (y === 0n) throw new CompileError('ZeroDivisionError: integer modulo by zero', span);
        const r = x % y;
        return r !== 0n && (r < 0n) !== (y < 0n) ? r + y : r;
      }
      case '**':
        if (y < 0n) return pyFloatPow(Number(x), Number(y));
        if (x > 1n || x < -1n) checkIntBits(intBits(x) * Number(y), span);
        return x ** y;
      case '<<':
        if (y < 0n) throw new CompileError('ValueError: negative shift count', span);
        if (x !== 0n) checkIntBits(intBits(x) + Number(y), span);
        return x << y;
      case '>>':
        if (y < 0n) throw new CompileError('ValueError: negative shift count', span);
        return x >> y;
      case '&': return x & y;
      case '|': return x | y;
      case '^': return x ^ y;
      default: throw bad();
    }
  }
  if ((a instanceof PyComplex || b instanceof PyComplex) && isNumber(a) && isNumber(b)) return complexBinary(op, toComplex(a), toComplex(b), span) ?? (() => { throw bad(); })();
  if ((typeof a === 'number' || isIntLike(a)) && (typeof b === 'number' || isIntLike(b))) {
    const x = toNum(a);
    const y = toNum(b);
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case '/':
        if (y === 0) throw new CompileError('ZeroDivisionError: float division by zero', span);
        return x / y;
      case '//':
        if (y === 0) throw new CompileError('ZeroDivisionError: float floor division by zero', span);
        return floatFloorDiv(x, y);
      case '%': {
        if (y === 0) throw new CompileError('ZeroDivisionError: float modulo', span);
        return floatMod(x, y);
      }
      case '**': {
        // CPython's float_pow errors (a negative base to a fractional power would be a complex number)
        if (x === 0 && y < 0) throw new CompileError('ZeroDivisionError: 0.0 cannot be raised to a negative power', span);
        const r = pyFloatPow(x, y);
        if (r !== r && x < 0 && Number.isFinite(y)) throw new CompileError('a negative number to a fractional power is a complex number, which jaxts does not support', span);
        if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw new CompileError("OverflowError: (34, 'Numerical result out of range')", span);
        return r;
      }
      default: throw bad();
    }
  }
  if (typeof a === 'string' && typeof b === 'string' && op === '+') {
    checkItems(a.length + b.length, 'a str', span);
    return a + b;
  }
  if (op === '*' && (typeof a === 'string' || a instanceof PyList || a instanceof PyTuple) && isIntLike(b)) return repeat(a, Number(b), span);
  if (op === '*' && (typeof b === 'string' || b instanceof PyList || b instanceof PyTuple) && isIntLike(a)) return repeat(b, Number(a), span);
  if (op === '+' && a instanceof PyList && b instanceof PyList) {
    checkItems(a.items.length + b.items.length, 'a list', span);
    return new PyList([...a.items, ...b.items]);
  }
  if (op === '+' && a instanceof PyTuple && b instanceof PyTuple && !a.cls && !b.cls) {
    checkItems(a.items.length + b.items.length, 'a tuple', span);
    return new PyTuple([...a.items, ...b.items]);
  }
  throw bad();
}

const isNumber = (v: PyValue): v is bigint | boolean | number | PyComplex => typeof v === 'number' || isIntLike(v) || v instanceof PyComplex;
const toComplex = (v: bigint | boolean | number | PyComplex): PyComplex => (v instanceof PyComplex ? v : new PyComplex(toNum(v), 0));

/** Python's complex arithmetic (CPython's complexobject.c: _Py_c_quot's scaled division, _Py_c_pow); null: no such operator. */
function complexBinary(op: A.BinOpName, a: PyComplex, b: PyComplex, span: A.Span): PyComplex | null {
  switch (op) {
    case '+': return new PyComplex(a.re + b.re, a.im + b.im);
    case '-': return new PyComplex(a.re - b.re, a.im - b.im);
    case '*': return complexMul(a, b);
    case '/': return complexDiv(a, b, span);
    case '**': {
      if (b.re === 0 && b.im === 0) return new PyComplex(1, 0);
      if (a.re === 0 && a.im === 0) {
        if (b.im !== 0 || b.re < 0) throw new CompileError('ZeroDivisionError: zero to a negative or complex power', span);
        return new PyComplex(0, 0);
      }
      // an integral exponent up to 100 multiplies (c_powi), as CPython does
      if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 100) {
        let acc = new PyComplex(1, 0);
        let base = a;
        for (let n = Math.abs(b.re); n > 0; n = Math.floor(n / 2)) {
          if (n % 2) acc = complexMul(acc, base);
          base = complexMul(base, base);
        }
        return b.re < 0 ? complexDiv(new PyComplex(1, 0), acc, span) : acc;
      }
      const vabs = Math.hypot(a.re, a.im);
      let len = vabs ** b.re;
      const at = Math.atan2(a.im, a.re);
      let phase = at * b.re;
      if (b.im !== 0) {
        len /= Math.exp(at * b.im);
        phase += b.im * Math.log(vabs);
      }
      return new PyComplex(len * Math.cos(phase), len * Math.sin(phase));
    }
    default: return null;
  }
}

const complexMul = (a: PyComplex, b: PyComplex): PyComplex => new PyComplex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);

function complexDiv(a: PyComplex, b: PyComplex, span: A.Span): PyComplex {
  const ar = Math.abs(b.re);
  const ai = Math.abs(b.im);
  if (ar >= ai) {
    if (ar === 0) throw new CompileError('ZeroDivisionError: division by zero', span);
    const ratio = b.im / b.re;
    const denom = b.re + b.im * ratio;
    return new PyComplex((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom);
  }
  const ratio = b.re / b.im;
  const denom = b.re * ratio + b.im;
  return new PyComplex((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom);
}

/** Python's float `x // y` (CPython's float_floor_div: 1.0 // 0.1 is 9.0, not floor(1.0 / 0.1)). */
export function floatFloorDiv(x: number, y: number): number {
  let mod = x % y;
  let div = (x - mod) / y;
  // C's truth of a double: NaN is true (inf // y is nan, not 0)
  if (mod !== 0 && y < 0 !== mod < 0) {
    mod += y;
    div -= 1;
  }
  if (div === 0) return (x / y < 0 || Object.is(x / y, -0)) ? -0 : 0;
  let q = Math.floor(div);
  if (div - q > 0.5) q += 1;
  return q;
}

/** Python's float `x % y` (CPython's float_rem: the sign follows the divisor, a zero result too). */
export function floatMod(x: number, y: number): number {
  const r = x % y;
  if (r === 0) return y < 0 ? -0 : 0;
  return r < 0 !== y < 0 ? r + y : r;
}

function repeat(v: string | PyList | PyTuple, n: number, span: A.Span): PyValue {
  const len = typeof v === 'string' ? v.length : v.items.length;
  if (len && n > 0) checkItems(len * n, `a ${typeName(v)}`, span);
  if (typeof v === 'string') return v.repeat(Math.max(0, n));
  const items: PyValue[] = [];
  for (let i = 0; i < n; i++) for (const x of v.items) items.push(x);
  return v instanceof PyList ? new PyList(items) : new PyTuple(items);
}

export function staticEquals(a: PyValue, b: PyValue): boolean {
  if ((a instanceof PyComplex || b instanceof PyComplex) && isNumber(a) && isNumber(b)) {
    const [x, y] = [toComplex(a), toComplex(b)];
    return x.re === y.re && x.im === y.im;
  }
  if ((typeof a === 'bigint' || typeof a === 'number' || typeof a === 'boolean') && (typeof b === 'bigint' || typeof b === 'number' || typeof b === 'boolean')) {
    return numOrder(a, b) === 0;
  }
  // dtypes compare by name, and with their names (x.dtype == jnp.float32, x.dtype == 'int32'); bool_ is bool
  if (a instanceof PyDType || b instanceof PyDType) {
    const name = (v: PyValue): string | null => (v instanceof PyDType ? v.name : typeof v === 'string' ? (v === 'bool_' ? 'bool' : v) : null);
    return name(a) !== null && name(a) === name(b);
  }
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  // the same container (Python compares items by identity first: xs.append(xs); xs == xs)
  if (a === b) return true;
  const sharding = shardingEquals(a, b);
  if (sharding !== undefined) return sharding;
  const treedef = treedefEquals(a, b, staticEquals);
  if (treedef !== undefined) return treedef;
  if ((a instanceof PyList && b instanceof PyList) || (a instanceof PyTuple && b instanceof PyTuple)) {
    return a.items.length === b.items.length && a.items.every((x, i) => staticEquals(x, b.items[i]!));
  }
  if (a instanceof PySet && b instanceof PySet) return setCompare('==', a, b)!;
  if (a instanceof PyDict && b instanceof PyDict) {
    return a.entries.size === b.entries.size && [...a.entries].every(([k, [, v]]) => b.entries.has(k) && staticEquals(v, b.entries.get(k)![1]));
  }
  return a === b;
}

export function staticCompare(op: A.CmpOpName, a: PyValue, b: PyValue, span: A.Span): boolean {
  switch (op) {
    case '==': return staticEquals(a, b);
    case '!=': return !staticEquals(a, b);
    case 'in':
    case 'not in': {
      let found: boolean;
      if (b instanceof PyList || b instanceof PyTuple) found = b.items.some((x) => staticEquals(x, a));
      else if (b instanceof PyDict) found = b.keys().some((x) => staticEquals(x, a));
      else if (b instanceof PySet) found = b.has(a);
      else if (typeof b === 'string' && typeof a === 'string') found = b.includes(a);
      else throw new CompileError(`TypeError: argument of type '${typeName(b)}' is not iterable`, span);
      return op === 'in' ? found : !found;
    }
    default: {
      const sc = setCompare(op, a, b);
      if (sc !== undefined) return sc;
      const c = order(a, b, op, span);
      return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
    }
  }
}

/**
 * The sign of a - b for Python numbers, exactly as CPython compares them (an int beyond 2**53 with
 * another int or a float is not rounded first); NaN when unordered (a NaN compares false).
 */
function numOrder(a: bigint | number | boolean, b: bigint | number | boolean): number {
  if (typeof a !== 'number' && typeof b !== 'number') {
    const [x, y] = [BigInt(a), BigInt(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
  // an int and a float
  const [i, f, flip] = typeof a === 'number' ? [BigInt(b as bigint | boolean), a, -1] : [BigInt(a), b as number, 1];
  if (Number.isNaN(f)) return NaN;
  if (!Number.isFinite(f)) return f > 0 ? -flip : flip;
  const fl = BigInt(Math.floor(f));
  return (i < fl ? -1 : i > fl ? 1 : Number.isInteger(f) ? 0 : -1) * flip;
}

function order(a: PyValue, b: PyValue, op: string, span: A.Span): number {
  if ((typeof a === 'bigint' || typeof a === 'number' || typeof a === 'boolean') && (typeof b === 'bigint' || typeof b === 'number' || typeof b === 'boolean')) return numOrder(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((a instanceof PyList && b instanceof PyList) || (a instanceof PyTuple && b instanceof PyTuple)) {
    for (let i = 0; i < Math.min(a.items.length, b.items.length); i++) {
      if (!staticEquals(a.items[i]!, b.items[i]!)) return order(a.items[i]!, b.items[i]!, op, span);
    }
    return a.items.length - b.items.length;
  }
  throw new CompileError(`TypeError: '${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, span);
}

export function truthy(v: PyValue, span: A.Span): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof PyList || v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyDict) return v.entries.size > 0;
  if (v instanceof PySet) return v.entries.size > 0;
  if (v instanceof NpScalar) return v.value !== 0;
  if (v instanceof PyComplex) return v.re !== 0 || v.im !== 0;
  if (v instanceof NdArray) {
    // a one-element NumPy array is its element's truth; an empty one is False (NumPy 2 raises there)
    if (v.data.length === 1) return v.data[0] !== 0;
    if (v.data.length === 0) throw new CompileError('ValueError: The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.', span);
  }
  if (v.typeName === 'numpy.ndarray') throw new CompileError('ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()', span);
  return true;
}
