// Kernel IR → a JS loop over typed arrays, for the CPU backend: the JS dialect
// of the kernel walker (kernel_walker.ts), and the function around its
// statements. float32 semantics come from Math.fround after every float
// operation; int32 from `| 0` and Math.imul. Transcendentals call the
// runtime's float32 math (runtime/cpu/math.ts). float64 (x64 mode) is JS's own
// number, and int64 an integral number (runtime/cpu/math64.ts).
import type { DType } from '../../runtime/program.js';
import type { KBinary, Kernel, KUnary } from '../ir/kernel.js';
import { planDots, renderPack, type DotPlan } from './dot_plan.js';
import { call1, computesOnFloats, walkKernel, type Dialect } from './kernel_walker.js';

/**
 * An exact literal: for float32 the double equal to the float32 (its shortest
 * float32 digits would parse to another double: 1.4142135 ≠ fround(Math.SQRT2)).
 */
function jsLiteral(value: number, dtype: DType): string {
  if (dtype === 'float32') {
    const x = Math.fround(value);
    return Object.is(x, -0) ? '-0' : String(x); // NaN, Infinity and -Infinity are JS globals
  }
  if (dtype === 'bool') return value ? 'true' : 'false';
  if (dtype === 'float64') return Object.is(value, -0) ? '-0' : String(value);
  if (dtype === 'int64') return String(Math.trunc(value));
  if (dtype === 'uint32') return String(value >>> 0);
  return String(value | 0);
}

const fr = (s: string): string => `Math.fround(${s})`;

/** A math function: the runtime's float32 replay of XLA's, or its float64 one. */
const math =
  (f32: string, f64: string) =>
  (x: string, from: DType): string =>
    `${from === 'float64' ? f64 : f32}(${x})`;

/** A number or bool literal as jsLiteral writes it (NaN and ±Infinity are globals of type number, not literals). */
const LITERAL = /^(?:-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|true|false)$/;
const literalValue = (s: string): number | boolean => (s === 'true' ? true : s === 'false' ? false : Number(s));
const COMPARE: Record<string, (a: number | boolean, b: number | boolean) => boolean> = {
  '===': (a, b) => a === b,
  '!==': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/**
 * An operator giving bool: its operands are names or literals, so it needs no
 * parentheses. Two literals compare now (TypeScript rejects `2 === 0`: TS2367).
 */
const compare =
  (op: string) =>
  (a: string, b: string): string =>
    LITERAL.test(a) && LITERAL.test(b) ? String(COMPARE[op]!(literalValue(a), literalValue(b))) : `${a} ${op} ${b}`;

/**
 * `const t = v;`, or `let` where v's TypeScript type may be a literal type (a
 * literal, or a select between names or literals, like `(c ? 1 : 0)`): a
 * `let` widens it to number or boolean, so comparing the name with another
 * literal type-checks (TS2367 otherwise, as TypeScript narrows through
 * aliased conditions).
 */
function declare(name: string, value: string): string {
  const literalTyped = LITERAL.test(value) || /^\(?\S+ \? \S+ : \S+?\)?$/.test(value);
  return `${literalTyped ? 'let' : 'const'} ${name} = ${value};`;
}

type Arith = 'add' | 'sub' | 'mul' | 'div' | 'rem';
const ARITH_OPS: Record<Arith, string> = { add: '+', sub: '-', mul: '*', div: '/', rem: '%' };

/** + - * / % wrapped to the dtype: float32 rounding, int32/uint32 wraparound; x / 0 = -1 (all ones unsigned) and x % 0 = x, as in XLA. */
function arith(fn: Arith) {
  const op = ARITH_OPS[fn];
  return (a: string, b: string, dtype: DType): string => {
    if (dtype === 'float32') return fr(`${a} ${op} ${b}`);
    if (dtype === 'float64') return `(${a} ${op} ${b})`;
    if (dtype === 'int64') {
      // exact while the values stay within 2**53 (runtime/dtypes.ts); a literal divisor decides the zero test now
      if (fn === 'div') return /^-?\d+$/.test(b) ? (Number(b) === 0 ? '-1' : `Math.trunc(${a} / ${b})`) : `(${b} === 0 ? -1 : Math.trunc(${a} / ${b}))`;
      if (fn === 'rem') return /^-?\d+$/.test(b) ? (Number(b) === 0 ? a : `(${a} % ${b})`) : `(${b} === 0 ? ${a} : ${a} % ${b})`;
      return `(${a} ${op} ${b})`;
    }
    // XLA's bool add/mul (jnp.add, matmul of bools) are or/and
    if (dtype === 'bool' && (fn === 'add' || fn === 'mul')) return `(${a} ${fn === 'add' ? '||' : '&&'} ${b})`;
    if (dtype === 'int32' || dtype === 'uint32') {
      const wrap = dtype === 'int32' ? '| 0' : '>>> 0';
      if (fn === 'mul') return dtype === 'int32' ? `Math.imul(${a}, ${b})` : `Math.imul(${a}, ${b}) >>> 0`;
      if (fn !== 'div' && fn !== 'rem') return `(${a} ${op} ${b}) ${wrap}`;
      // XLA's x/0 (all ones) and x%0 (x); a literal divisor decides the zero test now
      // (generated TypeScript must not compare two literals: TS2367)
      const zero = fn === 'div' ? (dtype === 'int32' ? '-1' : '4294967295') : a;
      if (/^-?\d+$/.test(b)) return Number(b) === 0 ? zero : `(${a} ${op} ${b}) ${wrap}`;
      return `(${b} === 0 ? ${zero} : (${a} ${op} ${b}) ${wrap})`;
    }
    throw new Error(`internal: arithmetic on ${dtype}`);
  };
}

/** & | ^: on bool, && || !==. */
function bitwise(fn: 'and' | 'or' | 'xor') {
  return (a: string, b: string, dtype: DType): string => {
    if (dtype === 'bool') return `${a} ${{ and: '&&', or: '||', xor: '!==' }[fn]} ${b}`;
    if (dtype === 'int64') return `bits64('${fn}', ${a}, ${b})`;
    const v = `${a} ${{ and: '&', or: '|', xor: '^' }[fn]} ${b}`;
    return dtype === 'uint32' ? `(${v}) >>> 0` : v;
  };
}

/** XLA shifts: an amount outside [0, 32) gives 0 (or the sign fill for an arithmetic right shift). */
function shift(fn: 'shift_left' | 'shift_right_logical' | 'shift_right_arithmetic') {
  return (a: string, b: string, dtype: DType): string => {
    if (dtype === 'int64') return `bits64('${fn}', ${a}, ${b})`;
    const wrap = dtype === 'uint32' ? '>>> 0' : '| 0';
    const op = fn === 'shift_left' ? '<<' : fn === 'shift_right_logical' ? '>>>' : '>>';
    const value = `(${a} ${op} ${b}) ${wrap}`;
    const amount = /^\d+$/.test(b) ? Number(b) : null;
    if (amount !== null && amount < 32) return value;
    const over = fn === 'shift_right_arithmetic' ? `(${a} ${dtype === 'uint32' ? '>= 2147483648' : '< 0'} ? ${dtype === 'uint32' ? 4294967295 : -1} : 0)` : '0';
    const inRange = dtype === 'uint32' ? `${b} < 32` : `${b} >= 0 && ${b} < 32`;
    return `(${inRange} ? ${value} : ${over})`;
  };
}

/** The identity of max/min. */
function extremumInit(fn: 'max' | 'min', dtype: DType): string {
  if (dtype === 'float32' || dtype === 'float64') return fn === 'max' ? '-Infinity' : 'Infinity';
  if (dtype === 'int64') return fn === 'max' ? '-9223372036854775808' : '9223372036854775807';
  if (dtype === 'int32') return fn === 'max' ? '-2147483648' : '2147483647';
  if (dtype === 'uint32') return fn === 'max' ? '0' : '4294967295';
  return fn === 'max' ? 'false' : 'true';
}

/**
 * max/min as XLA computes them (LLVM's maximum/minimum): NaN propagates, and -0 < +0 (of two equal
 * zeros max takes a +0 and min a -0); on integers the plain comparison.
 */
function extremum(fn: 'max' | 'min') {
  return (a: string, b: string, dtype: DType): string => {
    if (dtype === 'bool') return fn === 'max' ? `${a} || ${b}` : `${a} && ${b}`;
    const op = fn === 'max' ? '>' : '<';
    if (dtype !== 'float32' && dtype !== 'float64') return `(${a} ${op} ${b} ? ${a} : ${b})`;
    // (JS's Math.max/min are the same function; a float64 operand may be a literal, which the test below must not compare)
    if (dtype === 'float64') return `Math.${fn}(${a}, ${b})`;
    return `(${a} !== ${a} || ${a} ${op} ${b} ? ${a} : ${b} !== ${b} || ${b} ${op} ${a} ? ${b} : ${a} === 0 && 1 / ${a} ${fn === 'max' ? '<' : '>'} 0 ? ${b} : ${a})`;
  };
}

/** A reduction's max/min step: the element first, so a NaN accumulator stays. */
const extremumStep =
  (fn: 'max' | 'min') =>
  (acc: string, v: string, dtype: DType): string =>
    extremum(fn)(v, acc, dtype);

export const JS: Dialect = {
  indent: '    ',
  declare,
  literal: jsLiteral,
  gid: 'gid',
  device: 'device',
  load: (input, index, dtype) => (dtype === 'bool' ? `in${input}[${index}] !== 0` : `in${input}[${index}]`),
  unary: {
    // (a negative literal is parenthesised: `--0.3` is not an expression)
    neg: (x, from) => {
      const v = x.startsWith('-') ? `(${x})` : x;
      return from === 'float32' || from === 'float64' ? `-${v}` : from === 'int64' ? `(0 - ${v})` : from === 'int32' ? `-${v} | 0` : `-${v} >>> 0`;
    },
    not: (x, from) => (from === 'bool' ? `!${x}` : from === 'int32' ? `~${x}` : from === 'int64' ? `(-1 - ${x})` : `~${x} >>> 0`),
    // jnp.abs of bool and uint32 is the identity
    abs: (x, from) => (from === 'bool' || from === 'uint32' ? x : from === 'float32' || from === 'float64' || from === 'int64' ? `Math.abs(${x})` : `Math.abs(${x}) | 0`),
    sign: (x, from) => (from === 'float32' || from === 'float64' ? `(${x} !== ${x} ? NaN : Math.sign(${x}))` : `Math.sign(${x})`),
    floor: (x, from) => (from === 'float32' || from === 'float64' ? `Math.floor(${x})` : x),
    ceil: (x, from) => (from === 'float32' || from === 'float64' ? `Math.ceil(${x})` : x),
    round: call1('roundHalfEven32'),
    sqrt: (x, from) => (from === 'float64' ? `Math.sqrt(${x})` : fr(`Math.sqrt(${x})`)),
    rsqrt: math('rsqrt32', 'rsqrt64'),
    is_finite: (x) => `Number.isFinite(${x})`,
    sin: math('sin32', 'sin64'),
    cos: math('cos32', 'cos64'),
    tan: math('tan32', 'tan64'),
    exp: math('exp32', 'exp64'),
    log: math('log32', 'log64'),
    log1p: math('log1p32', 'log1p64'),
    expm1: math('expm1_32', 'expm1_64'),
    tanh: math('tanh32', 'tanh64'),
    logistic: math('logistic32', 'logistic64'),
    erf: math('erf32', 'erf64'),
    erf_inv: math('erfInv32', 'erfInv64'),
    bitcast_convert_type: (x, from, to) => {
      const bits = to === 'float32' ? `bitsToF32(${x})` : from === 'float32' ? `f32ToBits(${x})` : x;
      return to === 'int32' ? `${bits} | 0` : to === 'uint32' ? `${bits} >>> 0` : bits;
    },
  },
  binary: {
    add: arith('add'),
    sub: arith('sub'),
    mul: arith('mul'),
    div: arith('div'),
    rem: arith('rem'),
    pow: (a, b, dtype) => (dtype === 'float64' ? `pow64(${a}, ${b})` : `pow32(${a}, ${b})`),
    max: extremum('max'),
    min: extremum('min'),
    atan2: (a, b, dtype) => (dtype === 'float64' ? `atan2_64(${a}, ${b})` : `atan2_32(${a}, ${b})`),
    and: bitwise('and'),
    or: bitwise('or'),
    xor: bitwise('xor'),
    eq: compare('==='),
    ne: compare('!=='),
    lt: compare('<'),
    le: compare('<='),
    gt: compare('>'),
    ge: compare('>='),
    shift_left: shift('shift_left'),
    shift_right_logical: shift('shift_right_logical'),
    shift_right_arithmetic: shift('shift_right_arithmetic'),
  },
  select: (cond, a, b) => `${cond} ? ${a} : ${b}`,
  atanXla: call1('atanXla32'),
  cast: (x, from, to) => {
    if (to === 'bool') return from === 'bool' ? x : compare('!==')(x, '0');
    if (from === 'bool') return `(${x} ? 1 : 0)`;
    if (to === 'float32') return fr(x);
    // every float32, int32, uint32 and int64 (within 2**53) is a float64
    if (to === 'float64') return x;
    if (to === 'int64') return from === 'float32' || from === 'float64' ? `f64ToI64(${x})` : x;
    // an int64 wraps into 32 bits as `| 0` and `>>> 0` wrap a double
    if (from === 'int64') return to === 'int32' ? `${x} | 0` : `${x} >>> 0`;
    if (from === 'float32') return to === 'int32' ? `f32ToI32(${x})` : `f32ToU32(${x})`;
    return to === 'int32' ? `${x} | 0` : `${x} >>> 0`;
  },
  reduce: {
    sum: { init: (dtype) => jsLiteral(0, dtype), combine: arith('add') },
    prod: { init: (dtype) => jsLiteral(1, dtype), combine: arith('mul') },
    max: { init: (dtype) => extremumInit('max', dtype), combine: extremumStep('max') },
    min: { init: (dtype) => extremumInit('min', dtype), combine: extremumStep('min') },
  },
  reduceLoop: (acc, init, _dtype, r, extent) => [`let ${acc} = ${init};`, `for (let ${r} = 0; ${r} < ${extent}; ${r}++) {`],
  fma: (a, b, c) => `fma32(${a}, ${b}, ${c})`,
  narrow: (x, dtype) => {
    switch (dtype) {
      case 'float16':
        return `roundF16(${x})`;
      case 'bfloat16':
        return `roundBf16(${x})`;
      case 'uint8':
      case 'uint16':
        return `(${x}) & ${dtype === 'uint8' ? 255 : 65535}`;
      case 'int8':
      case 'int16':
        return `(${x}) << ${dtype === 'int8' ? 24 : 16} >> ${dtype === 'int8' ? 24 : 16}`;
      default:
        return x;
    }
  },
  calls: { threefry2x32: 'threefry2x32' },
  wideSum: { scratch: 'f32Scratch', sum: 'wideSum32', columnSum: 'columnSum32', add: (acc, v) => fr(`${acc} + ${v}`) },
  // exported by jaxts/runtime (runtime/cpu/math.ts, random.ts)
  helpers: [
    'sin32', 'cos32', 'tan32', 'exp32', 'log32', 'log1p32', 'expm1_32', 'tanh32', 'logistic32', 'erf32', 'erfInv32', 'pow32', 'atan2_32', 'atanXla32', 'rsqrt32',
    'fma32', 'roundHalfEven32', 'f32ToI32', 'f32ToU32', 'bitsToF32', 'f32ToBits', 'threefry2x32', 'ftz32',
    'f32Scratch', 'wideSum32', 'columnSum32', 'dotF32', 'roundF16', 'roundBf16',
    'sin64', 'cos64', 'tan64', 'exp64', 'log64', 'log1p64', 'expm1_64', 'tanh64', 'logistic64', 'erf64', 'erfInv64', 'pow64', 'atan2_64', 'rsqrt64',
    'f64ToI64', 'bits64',
  ],
};

/**
 * The float32 operations XLA's CPU code runs with FTZ and DAZ set: arithmetic reads a subnormal operand
 * as zero and flushes a subnormal result; comparisons, max/min, sqrt, rounding and sign read
 * operands so. Math functions (exp,
 * tanh, ...) and rem (fmod) are the runtime's replays of XLA's own sequences, and select, neg, abs, min/max and copies
 * pass values on unchanged, as XLA's do.
 */
const FLUSHED_ARITH: readonly KBinary[] = ['add', 'sub', 'mul', 'div', 'pow'];
/** Binary functions that take their operands' bits as they are and apply DAZ themselves (glibc's atan2f classifies
 * its operands by their bits before its arithmetic reads a subnormal as zero); their results are flushed. */
const FLUSHED_RESULT: readonly KBinary[] = ['atan2'];
const FLUSHED_COMPARE: readonly KBinary[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'max', 'min'];
/** Unary operations that read a subnormal operand as zero. */
const FLUSHED_UNARY: readonly KUnary[] = ['sqrt', 'rsqrt', 'floor', 'ceil', 'round', 'sign'];
/** The smallest normal float32 (FLT_MIN): XLA CPU flushes a float32 of smaller magnitude to a zero of its sign. */
const FLT_MIN = '1.1754943508222875e-38';
/** The kernel's scratch variable of a flush whose operand is an expression, read right after it is set. */
const FLUSH_SCRATCH = 'fz';
const IDENT = /^[A-Za-z_$][\w$]*$/;
/**
 * XLA CPU's flush to zero of float32 `x` (runtime/cpu/math.ts ftz32) written out, so that no call boxes the
 * number (a kernel calls it at each arithmetic step; TurboFan stops inlining calls past its budget, and each
 * call left allocates its argument and result): a name read twice, an expression through FLUSH_SCRATCH (JS
 * evaluates left to right, so a flush nested in `x` is done with the scratch before `x` sets it).
 */
function flushText(x: string): string {
  if (IDENT.test(x)) return `(Math.abs(${x}) < ${FLT_MIN} ? ${x} * 0 : ${x})`;
  return `(${FLUSH_SCRATCH} = ${x}, Math.abs(${FLUSH_SCRATCH}) < ${FLT_MIN} ? ${FLUSH_SCRATCH} * 0 : ${FLUSH_SCRATCH})`;
}
/** Is `x` one flush as flushText writes it (its value already flushed)? */
function isFlushCall(x: string): boolean {
  if (!x.endsWith(')') || !(x.startsWith(`(${FLUSH_SCRATCH} = `) || x.startsWith('(Math.abs('))) return false;
  let depth = 0;
  for (let i = 0; i < x.length; i++) {
    if (x[i] === '(') depth++;
    else if (x[i] === ')' && --depth === 0) return i === x.length - 1 && x.includes(`< ${FLT_MIN} ? `);
  }
  return false;
}

/**
 * The JS dialect for a kernel that computes on floats: XLA CPU's flush to zero (ftz32) where its arithmetic applies it.
 * One per kernel: it remembers the temporaries that hold a flushed value, so that a flush of them is left out (the
 * same values).
 */
function flushing(): Dialect {
  const flushed = new Set<string>();
  const ftz = (x: string): string => (flushed.has(x) || isFlushCall(x) ? x : flushText(x));
  return {
    ...JS,
    declare: (name, value) => {
      if (isFlushCall(value)) flushed.add(name);
      return JS.declare(name, value);
    },
    // math functions (log, expm1, ...) and rem (fmod) see a subnormal as it is
    unary: Object.fromEntries(
      Object.entries(JS.unary).map(([fn, f]) => [fn, FLUSHED_UNARY.includes(fn as KUnary) ? (x: string, from: DType, to: DType) => f(from === 'float32' ? ftz(x) : x, from, to) : f]),
    ) as Dialect['unary'],
    binary: Object.fromEntries(
      Object.entries(JS.binary).map(([fn, f]) => {
        const arith = FLUSHED_ARITH.includes(fn as KBinary);
        const compare = FLUSHED_COMPARE.includes(fn as KBinary);
        if (FLUSHED_RESULT.includes(fn as KBinary)) return [fn, (a: string, b: string, d: DType) => (d === 'float32' ? flushText(f(a, b, d)) : f(a, b, d))];
        if (!arith && !compare) return [fn, f];
        // x != x (isnan) and x == x read one value: flushing it changes nothing, and keeps the pattern visible
        return [fn, (a: string, b: string, d: DType) => (d !== 'float32' || a === b ? f(a, b, d) : arith ? flushText(f(ftz(a), ftz(b), d)) : f(ftz(a), ftz(b), d))];
      }),
    ) as Dialect['binary'],
    // DAZ reads the operands' subnormals as zero, FTZ flushes the result
    fma: (a, b, c) => flushText(JS.fma(ftz(a), ftz(b), ftz(c))),
    // a float is true when nonzero after the flush (XLA: bool(1e-40) is False)
    cast: (x, from, to) => JS.cast(from === 'float32' && to === 'bool' ? ftz(x) : x, from, to),
    reduce: {
      ...JS.reduce,
      max: { init: JS.reduce.max.init, combine: (acc, v, d) => JS.reduce.max.combine(acc, d === 'float32' ? ftz(v) : v, d) },
      min: { init: JS.reduce.min.init, combine: (acc, v, d) => JS.reduce.min.combine(acc, d === 'float32' ? ftz(v) : v, d) },
      sum: { init: JS.reduce.sum.init, combine: (acc, v, d) => (d === 'float32' ? flushText(JS.reduce.sum.combine(acc, ftz(v), d)) : JS.reduce.sum.combine(acc, v, d)) },
      prod: { init: JS.reduce.prod.init, combine: (acc, v, d) => (d === 'float32' ? flushText(JS.reduce.prod.combine(acc, ftz(v), d)) : JS.reduce.prod.combine(acc, v, d)) },
    },
  };
}

/** The kernel as a function declaration `function NAME(ins, out, device) {...}`; also returns the runtime helpers it calls. */
export function renderJs(k: Kernel, fnName: string, types = true): { source: string; helpers: string[] } {
  // a dot_general's contractions go to the runtime's matrix product (dot_plan.ts): the first into the
  // runtime's reused result array, any other into an array of its own
  // (a convolution's gathered factors are packed into matrices of their own first)
  const dots = planDots(k, Infinity, true, true);
  const dotName = (i: number): string => (i === 0 ? 'dot' : `dot${i}`);
  const factors = (d: DotPlan, i: number): [string, string] => (d.pack ? [`px${i}`, `py${i}`] : [`in${d.x}`, `in${d.y}`]);
  const dotCall = (d: DotPlan, i: number): string =>
    `dotF32(${factors(d, i).join(', ')}, ${JSON.stringify(d.layout).replace(/"/g, '').replace(/[:,]/g, '$& ')}${i > 0 ? `, new Float32Array(${d.layout.Q * d.layout.N})` : ''}`;
  const packs = dots.flatMap((d, i) => {
    if (!d.pack) return [];
    const [px, py] = factors(d, i);
    return [...renderPack(d.pack.x, px, d.layout.K)!, ...renderPack(d.pack.y, py, d.layout.K)!].map((l) => `  ${l}`);
  });
  const whole = dots.length > 0 && k.body === dots[0]!.reduce;
  const { lines, value, helpers } = walkKernel(k, computesOnFloats(k.body) ? flushing() : JS, dots.length && !whole ? new Map(dots.map((d, i) => [d.reduce, `${dotName(i)}[gid]`])) : undefined);
  const store = k.output.dtype === 'bool' ? `${value} ? 1 : 0` : value;
  const hoisted = hoistInvariants(lines, JS.indent);
  const ins = k.inputs.map((_, i) => `in${i}`);
  const source = [
    types ? `function ${fnName}(ins: jx.CpuBuffer[], out: jx.CpuBuffer, device: number): void {` : `function ${fnName}(ins, out, device) {`,
    ins.length ? `  const [${ins.join(', ')}] = ins${types ? ` as [${ins.map(() => 'jx.CpuBuffer').join(', ')}]` : ''};` : '',
    k.usesDevice ? '' : '  void device;',
    lines.some((l) => l.includes(`(${FLUSH_SCRATCH} = `)) ? `  let ${FLUSH_SCRATCH} = 0;` : '',
    ...packs,
    ...(whole
      ? [`  ${dotCall(dots[0]!, 0)}, out${types ? ' as Float32Array' : ''});`]
      : [
          ...dots.map((d, i) => `  const ${dotName(i)} = ${dotCall(d, i)});`),
          ...hoisted.prologue,
          `  for (let gid = 0; gid < ${k.output.size}; gid++) {`,
          ...hoisted.body,
          `    out[gid] = ${store};`,
          `  }`,
        ]),
    `}`,
  ]
    .filter((l) => l !== '')
    .join('\n');
  return { source, helpers: dots.length ? [...helpers, 'dotF32'] : helpers };
}

/** Runtime helpers that compute a number from numbers and nothing else (no shared array in or out). */
const PURE_HELPERS = new Set([
  'sin32', 'cos32', 'tan32', 'exp32', 'log32', 'log1p32', 'expm1_32', 'tanh32', 'logistic32', 'erf32', 'erfInv32', 'pow32', 'atan2_32', 'rsqrt32',
  'fma32', 'roundHalfEven32', 'f32ToI32', 'f32ToU32', 'bitsToF32', 'f32ToBits', 'ftz32', 'roundF16', 'roundBf16',
]);
/** Names a hoisted statement may read besides hoisted temporaries, inputs and pure helpers. */
const GLOBALS = new Set(['Math', 'Number', 'NaN', 'Infinity', 'true', 'false', 'device', FLUSH_SCRATCH]);

/**
 * Loop-invariant code motion out of the loop over output elements: the statements directly in its body
 * (`const tN = ...;` at the body's indent) that read no output index, loop counter or accumulator, only
 * inputs, literals, pure helpers and statements hoisted before them, run once before the loop (an Adam
 * step's bias correction `1 - b1 ** (i + 1)`, a scalar parameter's load). The same values: each is a
 * pure function of what it reads, and the kernel writes no input.
 */
export function hoistInvariants(lines: readonly string[], indent: string): { prologue: string[]; body: string[] } {
  const prologue: string[] = [];
  const body: string[] = [];
  const hoisted = new Set<string>();
  const DECL = new RegExp(`^${indent}(?:const|let) (t\\d+) = (.*);$`);
  // A mutable temporary that a branch assigns later (`t1 = acc0;` in an if/else) is not invariant.
  const assigned = new Set(lines.flatMap((l) => /^\s*(t\d+) = /.exec(l)?.[1] ?? []));
  for (const line of lines) {
    const m = DECL.exec(line);
    const ok =
      m !== null &&
      !assigned.has(m[1]!) &&
      // identifiers, leaving out property names (Math.fround)
      [...m[2]!.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)].every(([id]) => hoisted.has(id) || /^in\d+$/.test(id) || PURE_HELPERS.has(id) || GLOBALS.has(id));
    if (ok) {
      hoisted.add(m[1]!);
      prologue.push(line.slice(indent.length - 2));
    } else body.push(line);
  }
  return { prologue, body };
}
