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
import { isNarrow, isWide, laneOf } from '../ir/dtypes.js';
import type { KExpr, Kernel } from '../ir/kernel.js';
import { children, freeRvars } from '../ir/kernel.js';
import { planDot, type DotPlan } from './dot_plan.js';
import { call1, call2, computesOnFloats, libraryColumns, treeLevels, walkKernel, type Dialect } from './kernel_walker.js';
import { WGSL_MATH_FUNCTIONS, wgslMathSource } from './wgsl_math.js';

/** The WGSL element type of a buffer: its dtype's 32-bit lane. */
const storageType = (d: DType): string => (laneOf(d) === 'float32' && d !== 'complex64' ? 'f32' : laneOf(d) === 'int32' ? 'i32' : 'u32');
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
/** -0.0 (SwiftShader stores a constant -0.0f as +0). */
const NEG_ZERO = 'jx_f32(0x80000000u)';

function literal(value: number, dtype: DType): string {
  switch (dtype) {
    case 'float32': {
      const x = Math.fround(value);
      if (Number.isNaN(x)) return 'jx_f32(0x7fc00000u)';
      if (x === Infinity) return INF;
      if (x === -Infinity) return NEG_INF;
      // SwiftShader stores a constant -0.0f as +0 (a stored -0 reads back as 0; atan2(-0, -0) loses its -π)
      if (Object.is(x, -0)) return NEG_ZERO;
      // exponent form needs a mantissa with '.'
      const s = f32Shortest(x);
      return `${/[.e]/.test(s) ? s : `${s}.0`}f`;
    }
    case 'int32':
      // a non-finite int32 constant only arises in index math of an empty extent (a loop that never runs): 0 keeps the WGSL valid
      if (!Number.isFinite(value)) return '0i';
      return value === -2147483648 ? 'i32(-2147483647 - 1)' : `${value}i`;
    case 'uint32':
      return `${value >>> 0}u`;
    case 'bool':
      return value ? 'true' : 'false';
    case 'complex64':
      throw new Error('internal: a complex64 literal reached a kernel (passes/complex.ts splits complex values)');
    default:
      throw new Error(`internal: a ${dtype} literal reached the WGSL dialect (the kernel walker gives it the lane)`);
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
    if (dtype === 'float32' && fn === 'div' && (a === '0.0f' || a === NEG_ZERO)) {
      // SwiftShader folds 0 / x to 0: a zero of the quotient's sign, NaN where x is 0 or NaN
      const zero = `bitcast<f32>((bitcast<u32>(${b}) & 0x80000000u) ^ ${a === NEG_ZERO ? '0x80000000u' : '0u'})`;
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
    rsqrt: (x) => `jx_rsqrt(${x})`,
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
  atanXla: call1('jx_atan_xla'),
  fma: (a, b, c) => `fma(${a}, ${b}, ${c})`,
  narrow: (x, dtype) => {
    switch (dtype) {
      case 'float16':
        return `jx_f16(${x})`;
      case 'bfloat16':
        return `jx_bf16(${x})`;
      case 'uint8':
      case 'uint16':
        return `(${x} & ${dtype === 'uint8' ? '0xffu' : '0xffffu'})`;
      case 'int8':
      case 'int16':
        return `((${x} << ${dtype === 'int8' ? 24 : 16}u) >> ${dtype === 'int8' ? 24 : 16}u)`;
      default:
        return x;
    }
  },
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
  libraryLoops: (acc, r, id, extent, cols) => (cols === 1 ? libraryRowLoops : libraryColumnLoops)(acc, r, id, extent, cols),
  helpers: ['jx_f32', 'jx_isnan', 'jx_ftz', 'jx_max', 'jx_min', 'jx_sign', 'jx_f2i', 'jx_f2u', 'jx_f16', 'jx_bf16', 'jx_atan2', 'jx_rsqrt', ...WGSL_MATH_FUNCTIONS, 'jx_threefry2x32'],
};

/**
 * A row (or whole array) summed by one invocation in the order of XLA CPU's library reduction, as the CPU
 * backend's wideSum32 (runtime/cpu/reduce.ts) adds it: per group of 32768 elements, each of 16 lanes over
 * the group's 1024-element chunks (64-element blocks, in fours), Kahan across chunks; the lanes folded
 * pairwise, then the groups as over a power-of-two count.
 */
function libraryRowLoops(acc: string, r: string, id: number, n: number): { header: string[]; step(v: string): string[]; footer: string } {
  const groups = Math.ceil(n / 32768);
  const v = (name: string): string => `${name}${id}`;
  const [gs, g, lo, hi, ln, j, s, c, ch, end, qe, chunk, quad, b, blk, q] = ['gs', 'g', 'lo', 'hi', 'ln', 'j', 's', 'c', 'ch', 'end', 'qe', 'chunk', 'quad', 'b', 'blk', 'q'].map(v);
  return {
    header: [
      `var ${acc}: f32 = 0.0;`,
      `var ${gs}: array<f32, ${groups}>;`,
      `for (var ${g} = 0; ${g} < ${groups}; ${g}++) {`,
      `  let ${lo} = ${g} * 32768;`,
      `  let ${hi} = min(${n}, ${lo} + 32768);`,
      `  var ${ln}: array<f32, 16>;`,
      `  for (var ${j} = 0; ${j} < 16; ${j}++) {`,
      `    var ${s}: f32 = 0.0;`,
      `    var ${c}: f32 = 0.0;`,
      `    for (var ${ch} = ${lo}; ${ch} < ${hi}; ${ch} += 1024) {`,
      `      let ${end} = min(${hi}, ${ch} + 1024);`,
      `      let ${qe} = ${ch} + (${end} - ${ch}) / 256 * 256;`,
      `      var ${chunk}: f32 = 0.0;`,
      `      var ${quad}: f32 = 0.0;`,
      `      for (var ${b} = ${ch}; ${b} < ${end}; ${b} += 64) {`,
      `        var ${blk}: f32 = 0.0;`,
      `        for (var ${q} = ${b} + ${j}; ${q} < ${b} + 64; ${q} += 16) {`,
      `          let ${r} = min(${q}, ${n - 1});`,
    ],
    step: (x) => [`${blk} = ${blk} + select(0.0, ${x}, ${q} < ${end});`],
    footer: [
      `        }`,
      `        if (${b} < ${qe}) {`,
      `          ${quad} = ${quad} + ${blk};`,
      `          if ((${b} - ${ch}) % 256 == 192) { ${chunk} = ${chunk} + ${quad}; ${quad} = 0.0; }`,
      `        } else { ${chunk} = ${chunk} + ${blk}; }`,
      `      }`,
      `      let y${id} = ${chunk} - ${c};`,
      `      let t${id} = ${s} + y${id};`,
      `      ${c} = (t${id} - ${s}) - y${id};`,
      `      ${s} = t${id};`,
      `    }`,
      `    ${ln}[${j}] = ${s};`,
      `  }`,
      `  for (var h${id} = 8; h${id} > 0; h${id} /= 2) {`,
      `    for (var i${id} = 0; i${id} < h${id}; i${id}++) { ${ln}[i${id}] = ${ln}[i${id}] + ${ln}[i${id} + h${id}]; }`,
      `  }`,
      `  ${gs}[${g}] = ${ln}[0];`,
      `}`,
      ...(groups > 1
        ? [
            `for (var h${id} = ${2 ** Math.ceil(Math.log2(groups)) / 2}; h${id} >= 1; h${id} /= 2) {`,
            `  for (var i${id} = 0; i${id} < h${id} && i${id} + h${id} < ${groups}; i${id}++) { ${gs}[i${id}] = ${gs}[i${id}] + ${gs}[i${id} + h${id}]; }`,
            `}`,
          ]
        : []),
      `${acc} = ${gs}[0];`,
    ].join('\n'),
  };
}

/**
 * A column of a k-column float32 sum over leading axes summed by one invocation as the CPU backend's
 * columnSum32 (runtime/cpu/reduce.ts) adds it: blocks of 4, 16 and 256 rows in order, Kahan over the
 * 256-row chunks of a group of ⌊32768 / k⌋ rows, the groups added in fours.
 */
function libraryColumnLoops(acc: string, r: string, id: number, n: number, cols: number): { header: string[]; step(v: string): string[]; footer: string } {
  const rows = Math.max(1, Math.floor(32768 / cols));
  const v = (name: string): string => `${name}${id}`;
  const [four, gi, g, end, s, c, ch, ce, chunk, six, blk, o] = ['four', 'gi', 'g', 'end', 's', 'c', 'ch', 'ce', 'chunk', 'six', 'blk', 'o'].map(v);
  return {
    header: [
      `var ${acc}: f32 = 0.0;`,
      `var ${four}: f32 = 0.0;`,
      `var ${gi} = 0;`,
      `for (var ${g} = 0; ${g} < ${n}; ${g} += ${rows}) {`,
      `  let ${end} = min(${n}, ${g} + ${rows});`,
      `  var ${s}: f32 = 0.0;`,
      `  var ${c}: f32 = 0.0;`,
      `  for (var ${ch} = ${g}; ${ch} < ${end}; ${ch} += 256) {`,
      `    let ${ce} = min(${end}, ${ch} + 256);`,
      `    var ${chunk}: f32 = 0.0;`,
      `    var ${six}: f32 = 0.0;`,
      `    var ${blk}: f32 = 0.0;`,
      `    for (var ${r} = ${ch}; ${r} < ${ce}; ${r}++) {`,
    ],
    step: (x) => [
      `${blk} = ${blk} + ${x};`,
      `let ${o} = ${r} - ${ch};`,
      `if (${o} % 4 == 3 || ${r} + 1 == ${ce}) {`,
      `  ${six} = ${six} + ${blk};`,
      `  ${blk} = 0.0;`,
      `  if (${o} % 16 == 15 || ${r} + 1 == ${ce}) { ${chunk} = ${chunk} + ${six}; ${six} = 0.0; }`,
      `}`,
    ],
    footer: [
      `    }`,
      `    let y${id} = ${chunk} - ${c};`,
      `    let t${id} = ${s} + y${id};`,
      `    ${c} = (t${id} - ${s}) - y${id};`,
      `    ${s} = t${id};`,
      `  }`,
      `  if (${gi} % 4 == 0) { ${four} = 0.0 + ${s}; } else { ${four} = ${four} + ${s}; }`,
      `  if (${gi} % 4 == 3 || ${end} == ${n}) { ${acc} = ${acc} + ${four}; }`,
      `  ${gi}++;`,
      `}`,
    ].join('\n'),
  };
}

/**
 * The first operation of `k` on a 64-bit value (x64 mode), as the IR names it, or null: WGSL has no
 * float64 or int64, so such a kernel runs on the CPU backend only (module.ts marks the module so).
 */
export function wideOp(k: Kernel): string | null {
  const seen = new Set<KExpr>();
  const visit = (e: KExpr): string | null => {
    if (seen.has(e)) return null;
    seen.add(e);
    for (const c of children(e)) {
      const found = visit(c);
      if (found) return found;
    }
    if (!isWide(e.dtype) && !(e.op === 'cast' && isWide(e.x.dtype))) return null;
    switch (e.op) {
      case 'un':
      case 'bin':
        return e.fn;
      case 'cast':
        return 'convert_element_type';
      case 'reduce':
        return e.dot ? 'dot_general' : `reduce_${e.fn}`;
      default:
        return k.name;
    }
  };
  return visit(k.body) ?? (isWide(k.output.dtype) || k.inputs.some((i) => isWide(i.dtype)) ? k.name : null);
}

export function renderWgsl(k: Kernel): string {
  const shape = shapeOf(k);
  if (shape.kind === 'tiled') return renderTiled(k, shape.dot, shape.groups);
  if (shape.kind === 'cooperative') return renderCooperative(k, shape.reduces, k.output.size, shape.split);
  const { lines, value, loaded, helpers } = walkKernel(k, WGSL);
  const store = storeOf(k, value, helpers);
  const rowThreads = MAX_WORKGROUPS_X * WORKGROUP_SIZE;
  const n = k.output.size;
  return [
    `// ${k.name}: ${n} elements`,
    ...preamble(k, helpers),
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

// ---------- kernels that use a whole workgroup per tile or per element ----------

/** What a kernel's shader looks like: one invocation per element, a tiled matrix product, or workgroup reductions. */
type WgslShape =
  | { kind: 'elementwise' }
  | { kind: 'tiled'; dot: DotPlan; groups: number }
  | { kind: 'cooperative'; reduces: Reduce[]; groups: number; split: Split | null };

type Reduce = Extract<KExpr, { op: 'reduce' }>;

/**
 * The output tile of one workgroup of a tiled matrix product, its invocations (THREADS_M rows of
 * TILE_N / 4: each a block of TILE_M / THREADS_M rows × 4 columns), and the contraction step.
 */
const TILE_M = 64;
const TILE_N = 32;
const THREADS_M = 8;
const TILE_K = 16;
/**
 * Multiply-adds, tiles and contraction length below which a matrix product keeps an invocation per element: a few
 * tiles leave a software adapter's cores idle (SwiftShader runs a workgroup on one thread;
 * measured: lessons whose products made 1 or 2 tiles, or 25 over 32, ran 1.4–4× longer tiled).
 */
const TILED_MIN_WORK = 1 << 22;
const TILED_MIN_K = 64;
const TILED_MIN_TILES = 16;
/**
 * A reduction at least COOPERATIVE_EXTENT long is summed by a workgroup per element when the kernel
 * has too few elements to fill the adapter (at most COOPERATIVE_MAX_OUTPUT), or when the reduction
 * is COOPERATIVE_RATIO times longer than the output (else an invocation per element is faster:
 * a software adapter's cores already have their lanes full, and run no barriers).
 */
const COOPERATIVE_EXTENT = 4096;
const COOPERATIVE_MAX_OUTPUT = 64;
const COOPERATIVE_RATIO = 32;
/** Partial results a workgroup keeps in workgroup memory (4 KiB of float32). */
const PARTIALS = 1024;

const shapes = new WeakMap<Kernel, WgslShape>();

function shapeOf(k: Kernel): WgslShape {
  const known = shapes.get(k);
  if (known) return known;
  let shape: WgslShape = { kind: 'elementwise' };
  const dot = planDot(k);
  const tiles = dot ? (dot.layout.Q / dot.layout.M) * Math.ceil(dot.layout.M / TILE_M) * Math.ceil(dot.layout.N / TILE_N) : 0;
  if (dot && tiles >= TILED_MIN_TILES && dot.layout.K >= TILED_MIN_K && k.output.size * dot.layout.K >= TILED_MIN_WORK && WORKGROUP_SIZE === THREADS_M * (TILE_N / 4)) {
    shape = { kind: 'tiled', dot, groups: tiles };
  } else {
    const reduces = cooperativeReduces(k).filter((r) => k.output.size <= COOPERATIVE_MAX_OUTPUT || r.extent >= COOPERATIVE_RATIO * k.output.size);
    if (reduces.length) {
      const split = splitOf(k, reduces);
      shape = { kind: 'cooperative', reduces, groups: split ? split.windows * k.output.size : k.output.size, split };
    }
  }
  shapes.set(k, shape);
  return shape;
}

/**
 * The reductions of `body` a workgroup can share: outside every other reduction, long, not on
 * bools, and not a float32 dot_general contraction (which sums in order k = 0, 1, …, as XLA's dot).
 */
function cooperativeReduces(k: Kernel): Reduce[] {
  const out: Reduce[] = [];
  const seen = new Set<KExpr>();
  const walk = (e: KExpr): void => {
    if (seen.has(e)) return;
    seen.add(e);
    if (e.op === 'reduce' && freeRvars(e).size === 0 && e.extent >= COOPERATIVE_EXTENT && e.dtype !== 'bool' && !isNarrow(e.dtype) && !(e.dot && e.dtype === 'float32') && !e.inOrder && libraryColumns(k, e) === undefined) {
      out.push(e);
      return;
    }
    if (e.op !== 'reduce') children(e).forEach(walk);
  };
  walk(k.body);
  return out.slice(0, 3); // workgroup memory: three reductions' partials at most
}

/** Workgroups per device of the kernel's shader; undefined: one invocation per output element. */
export function wgslWorkgroups(k: Kernel): number | undefined {
  const s = shapeOf(k);
  return s.kind === 'elementwise' ? undefined : s.groups;
}

/** The bindings, stride overrides and helper functions every shader opens with. */
function preamble(k: Kernel, helpers: string[]): string[] {
  const bindings = k.inputs.map((b, i) => `@group(0) @binding(${i}) var<storage, read> in${i}: array<${storageType(b.dtype)}>;`);
  bindings.push(`@group(0) @binding(${k.inputs.length}) var<storage, read_write> out: array<${storageType(k.output.dtype)}>;`);
  return [
    ...bindings,
    // the runtime sets a stride per input when it creates the pipeline (0: one copy shared by all devices)
    ...k.inputs.map((b, i) => `override st${i}: i32 = ${b.size};`),
    `override devices: i32 = 1;`,
    helpers.length ? wgslMathSource(helpers) : '',
  ];
}

/** What an element's `value` stores: a bool as 0/1; a subnormal float32 flushed to a zero of its sign, as on XLA's CPU (most GPUs flush already). */
function storeOf(k: Kernel, value: string, helpers: string[]): string {
  const flush = k.output.dtype === 'float32' && computesOnFloats(k.body);
  if (flush && !helpers.includes('jx_ftz')) helpers.push('jx_ftz');
  return k.output.dtype === 'bool' ? `select(0u, 1u, ${value})` : flush ? `jx_ftz(${value})` : value;
}

/** The workgroup's index in the run, and the early exit of the workgroups past the last (uniform: barriers follow). */
function workgroupIndex(groups: number): string[] {
  return [
    `  let wg = i32(wid.x + wid.y * ${MAX_WORKGROUPS_X}u);`,
    `  if (wg >= ${groups} * devices) { return; }`,
    `  let dev = wg / ${groups};`,
  ];
}

/** The dialect's helpers that `text` calls. */
const usedHelpers = (text: string): string[] => WGSL.helpers.filter((h) => new RegExp(`\\b${h}\\(`).test(text));

/** The helpers of several walks, in the dialect's order. */
const mergeHelpers = (...lists: string[][]): string[] => WGSL.helpers.filter((h) => lists.some((l) => l.includes(h)));

/** Re-indents walked statements by `pad`. */
const indent = (lines: string[], pad: string): string[] => lines.map((l) => pad + l);

/**
 * A dot_general (dot_plan.ts's layout) as a tiled matrix product: each workgroup computes a
 * TILE_M × TILE_N block of one batch, staging TILE_K-deep slices of both factors in workgroup
 * memory as vec4s; each invocation keeps an 8 × 4 block of sums in vec4 registers. Every element
 * is still summed in order k = 0, 1, …, K−1 from 0 (a product, then a sum), as the one-invocation
 * loop does; the rest of the kernel (a fused epilogue) runs per element with the sum in `dv`.
 */
function renderTiled(k: Kernel, dot: DotPlan, groups: number): string {
  const { Q, M, N, K, x0, xq, xb, xk, y0, yb, yj, yk } = dot.layout;
  const whole = k.body === dot.reduce;
  const walked = walkKernel(k, WGSL, whole ? undefined : new Map([[dot.reduce, 'dv']]));
  const helpers = mergeHelpers(walked.helpers);
  const store = storeOf(k, whole ? 'dv' : walked.value, helpers);
  const tilesN = Math.ceil(N / TILE_N);
  const perBatch = Math.ceil(M / TILE_M) * tilesN;
  const S = k.output.size;
  const RM = TILE_M / THREADS_M;
  // each invocation stages vec4s of 4 rows (columns) at one k. Rows past M, columns past N and k
  // past K read whatever the binding holds there (WGSL clamps an access out of bounds): their
  // sums are never stored, and the contraction stops at K.
  const stage = (name: string, input: number, base: string, tile: number, origin: string, stride: number, kStride: number): string[] => [
    `    for (var i = 0; i < ${(TILE_K * tile) / 4 / WORKGROUP_SIZE}; i++) {`,
    `      let e = i32(lid) + i * ${WORKGROUP_SIZE};`,
    `      let kk = e / ${tile / 4};`,
    `      let at = ${base} + (${origin} + (e % ${tile / 4}) * 4) * ${stride} + (k0 + kk) * ${kStride};`,
    `      ${name}[e] = vec4<f32>(in${input}[at], in${input}[at + ${stride}], in${input}[at + ${2 * stride}], in${input}[at + ${3 * stride}]);`,
    `    }`,
  ];
  const accs = Array.from({ length: RM }, (_, a) => `acc${a}`);
  return [
    `// ${k.name}: ${S} elements, a ${Q / M}×${M}×${N} matrix product over ${K} in ${TILE_M}×${TILE_N} tiles`,
    ...preamble(k, helpers),
    `var<workgroup> tx: array<vec4<f32>, ${(TILE_K * TILE_M) / 4}>;`,
    `var<workgroup> ty: array<vec4<f32>, ${(TILE_K * TILE_N) / 4}>;`,
    `@compute @workgroup_size(${WORKGROUP_SIZE})`,
    `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {`,
    ...workgroupIndex(groups),
    `  let tile = wg - dev * ${groups};`,
    `  let bt = tile / ${perBatch};`,
    `  let m0 = (tile % ${perBatch}) / ${tilesN} * ${TILE_M};`,
    `  let j0 = (tile % ${tilesN}) * ${TILE_N};`,
    // the invocation's rows tm…tm+RM−1 and columns tn…tn+3 of the tile
    `  let tm = i32(lid) / ${TILE_N / 4} * ${RM};`,
    `  let tn = i32(lid) % ${TILE_N / 4} * 4;`,
    `  let bx = dev * st${dot.x} + ${x0} + bt * ${xb};`,
    `  let by = dev * st${dot.y} + ${y0} + bt * ${yb};`,
    ...walked.loaded.map((i) => `  let base${i} = dev * st${i};`),
    ...accs.map((a) => `  var ${a} = vec4<f32>();`),
    `  for (var k0 = 0; k0 < ${K}; k0 += ${TILE_K}) {`,
    ...stage('tx', dot.x, 'bx', TILE_M, 'm0', xq, xk),
    ...stage('ty', dot.y, 'by', TILE_N, 'j0', yj, yk),
    `    workgroupBarrier();`,
    `    let kn = min(${TILE_K}, ${K} - k0);`,
    `    for (var kk = 0; kk < kn; kk++) {`,
    `      let yv = ty[kk * ${TILE_N / 4} + tn / 4];`,
    ...Array.from({ length: RM / 4 }, (_, v) => `      let x${v} = tx[kk * ${TILE_M / 4} + tm / 4 + ${v}];`),
    ...accs.map((a, i) => `      ${a} = ${a} + x${i >> 2}.${'xyzw'[i & 3]} * yv;`),
    `    }`,
    `    workgroupBarrier();`,
    `  }`,
    // the epilogue, per element of the invocation's block
    `  let sums = array<vec4<f32>, ${RM}>(${accs.join(', ')});`,
    `  for (var a = 0; a < ${RM}; a++) {`,
    `    for (var b = 0; b < 4; b++) {`,
    `      if (m0 + tm + a < ${M} && j0 + tn + b < ${N}) {`,
    `        let gid = (bt * ${M} + m0 + tm + a) * ${N} + j0 + tn + b;`,
    `        let dv = sums[a][b];`,
    ...indent(walked.lines, '      '),
    `        out[dev * ${S} + gid] = ${store};`,
    `      }`,
    `    }`,
    `  }`,
    `}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** Lines folding item `c` into `p`, indented by `pad`. */
type Leaf = (p: string, c: string, pad: string) => string[];

/**
 * Lines by which a workgroup reduces `count` items (`leaf`) in XLA's tree order (`levels`, as
 * treeLevels gives for `count`; level l's window w covers its items [32w − lo, 32w − lo + 32), each
 * window summed in order from the identity, then the last level's ≤ 32 windows in order) into
 * `rv`, which invocation 0 holds after them. The windows of the lowest level that fits the
 * workgroup's partials (wa) are spread over the invocations, the level above goes to wb.
 */
function treeReduce(e: Reduce, count: number, levels: number[], leaf: Leaf, wa: string, wb: string, rv: string): string[] {
  const T = valueType(e.dtype);
  const { init, combine } = WGSL.reduce[e.fn];
  if (levels.length === 0) {
    return [`  if (lid == 0u) {`, `    for (var c = 0; c < ${count}; c++) {`, ...leaf(rv, 'c', '      '), `    }`, `  }`];
  }
  // n[l]: the items of level l (n[0] the leaves)
  const n = [count];
  for (let l = 0; l < levels.length; l++) n.push(Math.ceil(n[l]! / 32));
  // h: the lowest level whose windows fit the workgroup's partials (n[levels.length] ≤ 32 always does)
  let h = 0;
  while (n[h + 1]! > PARTIALS) h++;
  const lines = [
    `  for (var w = i32(lid); w < ${n[h + 1]}; w += ${WORKGROUP_SIZE}) {`,
    ...windowOf(e, levels, n, leaf, h, 'w', '    '),
    `    ${wa}[w] = p${h};`,
    `  }`,
    `  workgroupBarrier();`,
  ];
  let last = wa;
  if (h + 1 < levels.length) {
    // the one level left: its ≤ 32 windows over the partials
    const l = h + 1;
    lines.push(
      `  if (lid < ${n[l + 1]}u) {`,
      `    var q: ${T} = ${init(e.dtype)};`,
      `    let s = 32 * i32(lid) - ${levels[l]};`,
      `    for (var c = max(s, 0); c < min(s + 32, ${n[l]}); c++) { q = ${combine('q', `${wa}[c]`, e.dtype)}; }`,
      `    ${wb}[lid] = q;`,
      `  }`,
      `  workgroupBarrier();`,
    );
    last = wb;
  }
  lines.push(`  if (lid == 0u) {`, `    for (var c = 0; c < ${n[levels.length]}; c++) { ${rv} = ${combine(rv, `${last}[c]`, e.dtype)}; }`, `  }`);
  return lines;
}

/** Lines computing `p<l>`, window `w` of level l of the tree (treeReduce), in order from the identity. */
function windowOf(e: Reduce, levels: number[], n: number[], leaf: Leaf, l: number, w: string, pad: string): string[] {
  const { init, combine } = WGSL.reduce[e.fn];
  return [
    `${pad}var p${l}: ${valueType(e.dtype)} = ${init(e.dtype)};`,
    `${pad}let s${l} = 32 * ${w} - ${levels[l]};`,
    `${pad}for (var c${l} = max(s${l}, 0); c${l} < min(s${l} + 32, ${n[l]}); c${l}++) {`,
    ...(l === 0
      ? leaf('p0', 'c0', `${pad}  `)
      : [...windowOf(e, levels, n, leaf, l - 1, `c${l}`, `${pad}  `), `${pad}  p${l} = ${combine(`p${l}`, `p${l - 1}`, e.dtype)};`]),
    `${pad}}`,
  ];
}

/**
 * Where one element's reduction splits over several workgroups (a second entry point, `finish`,
 * combines their partial results): the level of the tree whose windows the first pass's
 * workgroups compute (each with 32 invocations a window of the level below), and how many.
 */
interface Split {
  level: number;
  windows: number;
  /** Partial results per element in the scratch binding (`windows`). */
  scratch: number;
}

/** A kernel of few elements whose one reduction is long enough to be split over workgroups; null if none. */
function splitOf(k: Kernel, reduces: Reduce[]): Split | null {
  if (reduces.length !== 1 || k.output.size > SPLIT_MAX_OUTPUT) return null;
  const e = reduces[0]!;
  const n = [e.extent];
  for (const _ of treeLevels(e.extent)) n.push(Math.ceil(n[n.length - 1]! / 32));
  if (n.length < 3) return null; // at most 1024 elements: one workgroup
  // the highest level with enough windows to keep the adapter's cores busy (few, long workgroups)
  let level = 1;
  while (level + 2 < n.length && n[level + 2]! * k.output.size >= SPLIT_MIN_WORKGROUPS) level++;
  return { level, windows: n[level + 1]!, scratch: n[level + 1]! };
}
const SPLIT_MAX_OUTPUT = 64;
const SPLIT_MIN_WORKGROUPS = 16;

/** Scratch elements per device the kernel's split reduction needs (KernelSpec.partials); undefined if it has none. */
export function wgslPartials(k: Kernel): number | undefined {
  const s = shapeOf(k);
  return s.kind === 'cooperative' && s.split ? s.split.scratch * k.output.size : undefined;
}

/**
 * A kernel of few elements with long reductions: a workgroup per element. Each reduction is
 * computed by the whole workgroup before the element, in the order of XLA's tree reduction
 * (treeLevels), so a float32 sum is the one-invocation loop's, bit for bit. Then invocation 0
 * computes the element, the reductions' values in `rv<id>`. A single long reduction splits: entry
 * point `main` has a workgroup per window of the split level (its partial result to `scratch`),
 * `finish` a workgroup per element, which reduces the partials.
 */
function renderCooperative(k: Kernel, reduces: Reduce[], groups: number, split: Split | null): string {
  const S = k.output.size;
  const walked = walkKernel(k, WGSL, new Map(reduces.map((r) => [r as KExpr, `rv${r.id}`])));
  const parts: string[] = [];
  const helperLists: string[][] = [walked.helpers];
  const loaded = new Set(walked.loaded);
  const partials = new Set<string>();
  let first: string[] = [];
  for (const [slot, e] of reduces.entries()) {
    const T = valueType(e.dtype);
    const { init, combine } = WGSL.reduce[e.fn];
    const body = walkKernel({ ...k, body: e.body }, WGSL);
    helperLists.push(body.helpers);
    body.loaded.forEach((i) => loaded.add(i));
    const wa = `wa${slot}_${T}`;
    const wb = `wb${slot}_${T}`;
    partials.add(`var<workgroup> ${wa}: array<${T}, ${PARTIALS}>;`);
    partials.add(`var<workgroup> ${wb}: array<${T}, 32>;`);
    const element: Leaf = (p, c, pad) => [`${pad}let r${e.id} = ${c};`, ...indent(body.lines, pad.slice(2)), `${pad}${p} = ${combine(p, body.value, e.dtype)};`];
    const levels = treeLevels(e.extent);
    parts.push(`  var rv${e.id}: ${T} = ${init(e.dtype)};`);
    if (!split) {
      parts.push(...treeReduce(e, e.extent, levels, element, wa, wb, `rv${e.id}`), `  workgroupBarrier();`);
      continue;
    }
    // the first pass: workgroup i computes window i of the split level g from 32 windows of level g − 1
    const g = split.level;
    const n = [e.extent];
    for (let l = 0; l < levels.length; l++) n.push(Math.ceil(n[l]! / 32));
    first = [
      `  let gid = rest / ${split.windows};`,
      `  let i = rest - gid * ${split.windows};`,
      ...[...loaded].sort((a, b) => a - b).map((j) => `  let base${j} = dev * st${j};`),
      `  let c = 32 * i - ${levels[g]} + i32(lid);`,
      `  if (c >= 0 && c < ${n[g]}) {`,
      ...windowOf(e, levels, n, element, g - 1, 'c', '    '),
      `    ${wa}[lid] = p${g - 1};`,
      `  }`,
      `  workgroupBarrier();`,
      `  if (lid == 0u) {`,
      `    var q: ${T} = ${init(e.dtype)};`,
      `    let s = 32 * i - ${levels[g]};`,
      `    for (var j = max(s, 0); j < min(s + 32, ${n[g]}); j++) { q = ${combine('q', `${wa}[j - s]`, e.dtype)}; }`,
      `    scratch[(dev * ${S} + gid) * ${split.windows} + i] = q;`,
      `  }`,
    ];
    const fromScratch: Leaf = (p, c, pad) => [`${pad}${p} = ${combine(p, `scratch[(dev * ${S} + gid) * ${split.windows} + ${c}]`, e.dtype)};`];
    parts.push(...treeReduce(e, split.windows, levels.slice(g + 1), fromScratch, wa, wb, `rv${e.id}`));
  }
  const store = storeOf(k, walked.value, []);
  // the frame's own lines call helpers too (a max's identity, its step)
  const helpers = mergeHelpers(...helperLists, usedHelpers([...first, ...parts, store].join('\n')));
  const T0 = valueType(reduces[0]!.dtype);
  return [
    `// ${k.name}: ${S} elements, a workgroup each for its reductions of ${reduces.map((r) => r.extent).join(', ')}${split ? `, split over ${split.windows} workgroups` : ''}`,
    ...preamble(k, helpers),
    ...(split ? [`@group(0) @binding(${k.inputs.length + 1}) var<storage, read_write> scratch: array<${T0}>;`] : []),
    ...partials,
    ...(split
      ? [
          // 32 invocations: a window each of the level below the split
          `@compute @workgroup_size(32)`,
          `fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {`,
          ...workgroupIndex(S * split.windows),
          `  let rest = wg - dev * ${S * split.windows};`,
          ...first,
          `}`,
        ]
      : []),
    `@compute @workgroup_size(${WORKGROUP_SIZE})`,
    `fn ${split ? 'finish' : 'main'}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {`,
    ...workgroupIndex(groups),
    `  let gid = wg - dev * ${S};`,
    ...[...loaded].sort((a, b) => a - b).map((i) => `  let base${i} = dev * st${i};`),
    ...parts,
    `  if (lid == 0u) {`,
    ...indent(walked.lines, '  '),
    `    out[wg] = ${store};`,
    `  }`,
    `}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}
