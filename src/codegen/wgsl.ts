// Kernel IR → WGSL compute shader: the WGSL dialect of the kernel walker
// (kernel_walker.ts), and the shader around its statements. One storage
// binding per input, then the output. One dispatch runs every simulated device
// of a call (the override constant `devices`): invocation t computes element
// t % size of device t / size (the device's position in the run); each binding
// holds all devices' copies stacked ([device][size]): input K's at
// `dev * st<K>` (an override constant: the input's size, or 0 for one copy all
// devices share), the output's at `dev * size`, so the output index is t.
// Transcendentals call our own accurate WGSL math (wgsl_math.ts), not the
// loosely specified built-ins.
import { MAX_WORKGROUPS_X, WORKGROUP_SIZE, type DType } from '../../runtime/program.js';
import type { Kernel } from '../ir/kernel.js';
import { call1, call2, computesOnFloats, walkKernel, type Dialect } from './kernel_walker.js';
import { WGSL_MATH_FUNCTIONS, wgslMathSource } from './wgsl_math.js';

const storageType = (d: DType): string => (d === 'float32' ? 'f32' : d === 'int32' ? 'i32' : 'u32');
const valueType = (d: DType): string => (d === 'bool' ? 'bool' : storageType(d));

/** Shortest decimal string that parses back to the float32 value `v` (and within float32's range, which WGSL checks: not 3.4028235e38). */
function f32Shortest(v: number): string {
  const x = Math.fround(v);
  if (Object.is(x, -0)) return '-0';
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x && Math.abs(Number(s)) <= 3.4028234663852886e38) return String(Number(s));
  }
  return String(x);
}

/**
 * An exact literal: for float32 the shortest decimal that rounds back to the
 * same float32, as an `f` literal; inf and NaN through the run-time bitcast
 * helper jx_f32 (a constant inf/NaN is a shader-creation error).
 */
const INF = 'jx_f32(0x7f800000u)';
const NEG_INF = 'jx_f32(0xff800000u)';

function literal(value: number, dtype: DType): string {
  switch (dtype) {
    case 'float32': {
      const x = Math.fround(value);
      if (Number.isNaN(x)) return 'jx_f32(0x7fc00000u)';
      if (x === Infinity) return INF;
      if (x === -Infinity) return NEG_INF;
      // exponent form needs a mantissa with '.'
      const s = f32Shortest(x);
      return `${/[.e]/.test(s) ? s : `${s}.0`}f`;
    }
    case 'int32':
      return value === -2147483648 ? 'i32(-2147483647 - 1)' : `${value}i`;
    case 'uint32':
      return `${value >>> 0}u`;
    case 'bool':
      return value ? 'true' : 'false';
  }
}

/** A float literal as the WGSL dialect spells it (`1.5f`, `-0.0f`, `3e38f`). */
const FLOAT_LITERAL = /^-?[\d.]+(e[+-]?\d+)?f$/;

/**
 * `a op b`. Two float literals make a constant expression, which WGSL evaluates at shader creation and
 * rejects where it overflows (1.0f / -0.0f): the second one is then read from its bits at run time.
 */
const infix =
  (op: string) =>
  (a: string, b: string): string =>
    FLOAT_LITERAL.test(a) && FLOAT_LITERAL.test(b) ? `(${a} ${op} jx_f32(0x${(f32Bits(Number(b.slice(0, -1))) >>> 0).toString(16)}u))` : `(${a} ${op} ${b})`;

function f32Bits(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}
/** max/min: on bool, or/and; on float32 XLA's, which propagate NaN (jx_max/jx_min). */
const extremum =
  (fn: 'max' | 'min') =>
  (a: string, b: string, dtype: DType): string =>
    dtype === 'bool' ? `(${a} ${fn === 'max' ? '||' : '&&'} ${b})` : `${dtype === 'float32' ? `jx_${fn}` : fn}(${a}, ${b})`;

/** A reduction's max/min step (`acc ∘ v`): the operands in the order the JS dialect takes them, so ties of ±0 agree. */
const extremumStep =
  (fn: 'max' | 'min') =>
  (acc: string, v: string, dtype: DType): string =>
    extremum(fn)(v, acc, dtype);

/** Integer x / y and x % y as XLA defines them at y = 0 (x / 0 is -1, or all ones unsigned; x % 0 is x); WGSL gives x and 0. */
function intDivision(fn: 'div' | 'rem') {
  return (a: string, b: string, dtype: DType): string => {
    const value = infix(fn === 'div' ? '/' : '%')(a, b);
    if (dtype === 'float32' && fn === 'div' && (b === INF || b === NEG_INF)) {
      // SwiftShader folds a division by a constant infinity to a zero: x / ±inf is a zero of the
      // product's sign, NaN for an infinite or NaN x
      const zero = `bitcast<f32>((bitcast<u32>(${a}) & 0x80000000u) ^ ${b === INF ? '0u' : '0x80000000u'})`;
      return `select(${zero}, jx_f32(0x7fc00000u), (bitcast<u32>(${a}) & 0x7f800000u) == 0x7f800000u)`;
    }
    if (dtype === 'float32' && fn === 'div' && /^-?0\.0f$/.test(a)) {
      // SwiftShader folds 0 / x to 0: a zero of the quotient's sign, NaN where x is 0 or NaN
      const zero = `bitcast<f32>((bitcast<u32>(${b}) & 0x80000000u) ^ ${a.startsWith('-') ? '0x80000000u' : '0u'})`;
      const nan = `((bitcast<u32>(${b}) & 0x7fffffffu) == 0u || (bitcast<u32>(${b}) & 0x7fffffffu) > 0x7f800000u)`;
      return `select(${zero}, jx_f32(0x7fc00000u), ${nan})`;
    }
    if (dtype === 'float32' || /^[1-9]\d*[iu]$/.test(b)) return value;
    const atZero = fn === 'rem' ? a : dtype === 'uint32' ? '4294967295u' : '-1i';
    // a constant zero divisor is a shader-creation error in the division itself
    if (/^0[iu]$/.test(b)) return atZero;
    return `select(${atZero}, ${value}, ${b} != ${literal(0, dtype)})`;
  };
}

/** The identity of max/min: ∓inf through jx_f32 (a constant inf is a shader-creation error). */
function extremumInit(fn: 'max' | 'min', dtype: DType): string {
  if (dtype === 'float32') return fn === 'max' ? 'jx_f32(0xff800000u)' : 'jx_f32(0x7f800000u)';
  if (dtype === 'int32') return fn === 'max' ? 'i32(-2147483647 - 1)' : '2147483647i';
  if (dtype === 'uint32') return fn === 'max' ? '0u' : '4294967295u';
  return fn === 'max' ? 'false' : 'true';
}

/** XLA shifts: an amount outside [0, 32) gives 0 (or the sign fill for an arithmetic right shift). */
function shift(fn: 'shift_left' | 'shift_right_logical' | 'shift_right_arithmetic') {
  return (a: string, b: string, dtype: DType): string => {
    // WGSL shifts take a u32 amount; logical/arithmetic right shifts follow the operand's signedness
    const m = /^(\d+)[iu]$/.exec(b);
    const small = m !== null && Number(m[1]) < 32;
    // an amount out of range is selected away below, but a constant one must not reach WGSL's shift (a shader error)
    const n = small ? `u32(${b})` : `(u32(${b}) & 31u)`;
    const value =
      fn === 'shift_left'
        ? `(${a} << ${n})`
        : fn === 'shift_right_logical'
          ? dtype === 'uint32' ? `(${a} >> ${n})` : `i32(u32(${a}) >> ${n})`
          : dtype === 'int32' ? `(${a} >> ${n})` : `u32(i32(${a}) >> ${n})`;
    if (small) return value;
    const over = fn === 'shift_right_arithmetic' ? `${valueType(dtype)}(i32(${a}) >> 31u)` : literal(0, dtype);
    return `select(${over}, ${value}, u32(${b}) < 32u)`;
  };
}

export const WGSL: Dialect = {
  indent: '  ',
  declare: (name, value) => `let ${name} = ${value};`,
  literal,
  gid: 'gid',
  device: 'dev',
  load: (input, index, dtype) => {
    const raw = `in${input}[base${input} + ${index}]`;
    return dtype === 'bool' ? `(${raw} != 0u)` : raw;
  },
  unary: {
    // WGSL has no unary minus on u32
    neg: (x, from) => (from === 'uint32' ? `(0u - ${x})` : `-(${x})`),
    not: (x, from) => (from === 'bool' ? `!(${x})` : `~(${x})`),
    // jnp.abs of bool and uint32 is the identity
    abs: (x, from) => (from === 'bool' || from === 'uint32' ? x : `abs(${x})`),
    // WGSL's sign takes no u32
    sign: (x, from) => (from === 'float32' ? `jx_sign(${x})` : from === 'uint32' ? `select(0u, 1u, ${x} != 0u)` : `sign(${x})`),
    floor: call1('floor'),
    ceil: call1('ceil'),
    round: call1('round'),
    sqrt: call1('sqrt'),
    rsqrt: (x) => `(1.0f / sqrt(${x}))`,
    is_finite: (x) => `((bitcast<u32>(${x}) & 0x7f800000u) != 0x7f800000u)`,
    sin: call1('jx_sin'),
    cos: call1('jx_cos'),
    tan: call1('jx_tan'),
    exp: call1('jx_exp'),
    log: call1('jx_log'),
    log1p: call1('jx_log1p'),
    expm1: call1('jx_expm1'),
    tanh: call1('jx_tanh'),
    logistic: call1('jx_logistic'),
    erf: call1('jx_erf'),
    erf_inv: call1('jx_erf_inv'),
    bitcast_convert_type: (x, _from, to) => `bitcast<${valueType(to)}>(${x})`,
  },
  binary: {
    // XLA's bool add/mul are or/and
    add: (a, b, dtype) => infix(dtype === 'bool' ? '||' : '+')(a, b),
    sub: infix('-'),
    mul: (a, b, dtype) => infix(dtype === 'bool' ? '&&' : '*')(a, b),
    div: intDivision('div'),
    rem: intDivision('rem'),
    pow: call2('jx_pow'),
    max: extremum('max'),
    min: extremum('min'),
    atan2: call2('jx_atan2'),
    and: infix('&'),
    or: infix('|'),
    xor: (a, b, dtype) => (dtype === 'bool' ? `(${a} != ${b})` : `(${a} ^ ${b})`),
    // x != x (jnp.isnan): by its bits, as shader compilers may fold the comparison away
    eq: (a, b, dtype) => (dtype === 'float32' && a === b ? `((bitcast<u32>(${a}) & 0x7fffffffu) <= 0x7f800000u)` : `(${a} == ${b})`),
    // NaN != x is true, which Dawn/SwiftShader's comparison does not give: tested on the bits
    ne: (a, b, dtype) =>
      dtype !== 'float32' ? `(${a} != ${b})` : a === b ? `jx_isnan(${a})` : `(${a} != ${b} || jx_isnan(${a}) || jx_isnan(${b}))`,
    // WGSL orders no bools: false < true spelled out
    lt: (a, b, dtype) => (dtype === 'bool' ? `(!${a} && ${b})` : infix('<')(a, b)),
    le: (a, b, dtype) => (dtype === 'bool' ? `(!${a} || ${b})` : infix('<=')(a, b)),
    gt: (a, b, dtype) => (dtype === 'bool' ? `(${a} && !${b})` : infix('>')(a, b)),
    ge: (a, b, dtype) => (dtype === 'bool' ? `(${a} || !${b})` : infix('>=')(a, b)),
    shift_left: shift('shift_left'),
    shift_right_logical: shift('shift_right_logical'),
    shift_right_arithmetic: shift('shift_right_arithmetic'),
  },
  select: (cond, a, b) => `select(${b}, ${a}, ${cond})`,
  cast: (x, from, to) => {
    // a float is true unless ±0 or subnormal (flushed, as on XLA's CPU); NaN is true: on its exponent bits
    if (to === 'bool') return from === 'bool' ? x : from === 'float32' ? `((bitcast<u32>(${x}) & 0x7f800000u) != 0u)` : `(${x} != ${literal(0, from)})`;
    if (from === 'float32' && to !== 'float32') return `jx_f2${to === 'int32' ? 'i' : 'u'}(${x})`;
    if (from === 'bool') return `select(${literal(0, to)}, ${literal(1, to)}, ${x})`;
    return `${valueType(to)}(${x})`;
  },
  reduce: {
    sum: { init: (dtype) => literal(0, dtype), combine: (acc, v, dtype) => `${acc} ${dtype === 'bool' ? '||' : '+'} ${v}` },
    prod: { init: (dtype) => literal(1, dtype), combine: (acc, v, dtype) => `${acc} ${dtype === 'bool' ? '&&' : '*'} ${v}` },
    max: { init: (dtype) => extremumInit('max', dtype), combine: extremumStep('max') },
    min: { init: (dtype) => extremumInit('min', dtype), combine: extremumStep('min') },
  },
  reduceLoop: (acc, init, dtype, r, extent) => [
    `var ${acc}: ${valueType(dtype)} = ${init};`,
    `for (var ${r}: i32 = 0; ${r} < ${extent}; ${r}++) {`,
  ],
  calls: { threefry2x32: 'jx_threefry2x32' },
  helpers: ['jx_f32', 'jx_isnan', 'jx_ftz', 'jx_max', 'jx_min', 'jx_sign', 'jx_f2i', 'jx_f2u', 'jx_atan2', ...WGSL_MATH_FUNCTIONS, 'jx_threefry2x32'],
};

export function renderWgsl(k: Kernel): string {
  const { lines, value, loaded, helpers } = walkKernel(k, WGSL);
  // a subnormal result is flushed to a zero of its sign, as on XLA's CPU (most GPUs flush already)
  const flush = k.output.dtype === 'float32' && computesOnFloats(k.body);
  const store = k.output.dtype === 'bool' ? `select(0u, 1u, ${value})` : flush ? `jx_ftz(${value})` : value;
  if (flush && !helpers.includes('jx_ftz')) helpers.push('jx_ftz');
  const bindings = k.inputs.map(
    (b, i) => `@group(0) @binding(${i}) var<storage, read> in${i}: array<${storageType(b.dtype)}>;`,
  );
  bindings.push(`@group(0) @binding(${k.inputs.length}) var<storage, read_write> out: array<${storageType(k.output.dtype)}>;`);
  // the runtime sets a stride per input when it creates the pipeline (0: one copy shared by all devices)
  const strides = k.inputs.map((b, i) => `override st${i}: i32 = ${b.size};`);
  const rowThreads = MAX_WORKGROUPS_X * WORKGROUP_SIZE;
  const n = k.output.size;
  return [
    `// ${k.name}: ${n} elements`,
    ...bindings,
    ...strides,
    `override devices: i32 = 1;`,
    helpers.length ? wgslMathSource(helpers) : '',
    `@compute @workgroup_size(${WORKGROUP_SIZE})`,
    `fn main(@builtin(global_invocation_id) g: vec3<u32>) {`,
    // one invocation per output element of every device: element gid of device dev
    `  let t = i32(g.x + g.y * ${rowThreads}u);`,
    `  if (t >= ${n} * devices) { return; }`,
    // (an empty output returns above; its division by 1 keeps the shader valid: t / 0 is a shader-creation error)
    `  let dev = t / ${Math.max(n, 1)};`,
    `  let gid = t - dev * ${n};`,
    ...loaded.map((i) => `  let base${i} = dev * st${i};`),
    ...lines,
    `  out[t] = ${store};`,
    `}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}
