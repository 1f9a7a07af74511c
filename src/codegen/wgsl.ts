// Kernel IR → WGSL compute shader. One storage binding per input, then the
// output. One dispatch runs every simulated device of a call (the override
// constant `devices`): invocation t computes element t % size of device
// t / size (the device's position in the run); each binding holds all
// devices' copies stacked ([device][size]): input K's at `dev * st<K>` (an
// override constant: the input's size, or 0 for one copy all devices share),
// the output's at `dev * size`, so the output index is t. Every expression
// node becomes a `let`, shared when the same subexpression appears twice.
import type { KExpr, Kernel } from '../ir/kernel.js';
import { callKey, exprKey } from '../ir/kernel.js';
import type { DType } from '../ir/types.js';
import { LetScopes, reduceLevel } from './let_scopes.js';
import { f32Literal } from './literals.js';
import { wgslMathSource } from './wgsl_math.js';

export const WORKGROUP_SIZE = 64;
/** Workgroups per grid row; larger dispatches use a 2-D grid. */
export const MAX_WORKGROUPS_X = 65535;

const storageType = (d: DType): string => (d === 'float32' ? 'f32' : d === 'int32' ? 'i32' : 'u32');
const valueType = (d: DType): string => (d === 'bool' ? 'bool' : storageType(d));

/** Math functions emitted from our own source instead of WGSL built-ins. */
const MATH_FNS: Record<string, string> = {
  sin: 'jx_sin',
  cos: 'jx_cos',
  tan: 'jx_tan',
  exp: 'jx_exp',
  log: 'jx_log',
  log1p: 'jx_log1p',
  expm1: 'jx_expm1',
  tanh: 'jx_tanh',
  logistic: 'jx_logistic',
  erf: 'jx_erf',
  erf_inv: 'jx_erf_inv',
  pow: 'jx_pow',
};

export function literal(value: number, dtype: DType): string {
  switch (dtype) {
    case 'float32':
      return f32Literal(value, 'wgsl');
    case 'int32':
      return value === -2147483648 ? 'i32(-2147483647 - 1)' : `${value}i`;
    case 'uint32':
      return `${value >>> 0}u`;
    case 'bool':
      return value ? 'true' : 'false';
  }
}

export function renderWgsl(k: Kernel): string {
  const mathUsed = new Set<string>();
  const lets = new LetScopes('  ', (name, text) => `let ${name} = ${text};`);
  const loaded = new Set<number>();

  const emit = (e: KExpr): string => {
    switch (e.op) {
      case 'const':
        return literal(e.value, e.dtype);
      case 'gid':
        return 'gid';
      case 'rvar':
        return `r${e.id}`;
      case 'device':
        return 'dev';
    }
    const key = exprKey(e);
    const found = lets.lookup(key);
    if (found) return found;
    switch (e.op) {
      case 'load': {
        loaded.add(e.input);
        const raw = `in${e.input}[base${e.input} + ${emit(e.index)}]`;
        return lets.bind(key, e.dtype === 'bool' ? `(${raw} != 0u)` : raw);
      }
      case 'un':
        if (e.fn === 'bitcast_convert_type') return lets.bind(key, `bitcast<${valueType(e.dtype)}>(${emit(e.x)})`);
        return lets.bind(key, unary(e.fn, emit(e.x), e.x.dtype, mathUsed));
      case 'bin':
        return lets.bind(key, binary(e.fn, emit(e.a), emit(e.b), e.a.dtype, mathUsed));
      case 'select': {
        const c = emit(e.cond);
        const a = emit(e.a);
        const b = emit(e.b);
        return lets.bind(key, `select(${b}, ${a}, ${c})`);
      }
      case 'cast':
        return lets.bind(key, cast(emit(e.x), e.x.dtype, e.dtype));
      case 'reduce': {
        const acc = `acc${e.id}`;
        const init = e.fn === 'sum' ? literal(0, e.dtype) : e.fn === 'prod' ? literal(1, e.dtype) : reduceInit(e.fn, e.dtype);
        if (init.startsWith('jx_f32')) mathUsed.add('jx_f32');
        const r = `r${e.id}`;
        lets.loop(
          reduceLevel(lets, e),
          [`var ${acc}: ${valueType(e.dtype)} = ${init};`, `for (var ${r}: i32 = 0; ${r} < ${e.extent}; ${r}++) {`],
          () => {
            const v = emit(e.body);
            const combined =
              e.fn === 'sum' ? `${acc} + ${v}` : e.fn === 'prod' ? `${acc} * ${v}` : e.dtype === 'bool' ? `${acc} ${e.fn === 'max' ? '||' : '&&'} ${v}` : `${e.fn}(${acc}, ${v})`;
            lets.line(`${acc} = ${combined};`);
          },
          { outer: [acc], inner: [r] },
        );
        lets.alias(key, acc);
        return acc;
      }
      case 'call': {
        const ck = callKey(e);
        let tuple = lets.lookup(ck);
        if (!tuple) {
          const f = `jx_${e.fn}`;
          mathUsed.add(f);
          tuple = lets.bind(ck, `${f}(${e.args.map(emit).join(', ')})`);
        }
        return lets.bind(key, `${tuple}[${e.part}]`);
      }
    }
  };

  const value = emit(k.body);
  if ([...lets.lines, value].some((l) => l.includes('jx_f32('))) mathUsed.add('jx_f32');
  const store = k.output.dtype === 'bool' ? `select(0u, 1u, ${value})` : value;
  const bindings = k.inputs.map(
    (b, i) => `@group(0) @binding(${i}) var<storage, read> in${i}: array<${storageType(b.dtype)}>;`,
  );
  bindings.push(`@group(0) @binding(${k.inputs.length}) var<storage, read_write> out: array<${storageType(k.output.dtype)}>;`);
  // the runtime sets a stride per input when it creates the pipeline (0: one copy shared by all devices)
  const strides = k.inputs.map((b, i) => `override st${i}: i32 = ${b.size};`);
  const bases = [...loaded].sort((a, b) => a - b).map((i) => `  let base${i} = dev * st${i};`);
  const rowThreads = MAX_WORKGROUPS_X * WORKGROUP_SIZE;
  const n = k.output.size;
  return [
    `// ${k.name}: ${n} elements`,
    ...bindings,
    ...strides,
    `override devices: i32 = 1;`,
    mathUsed.size ? wgslMathSource([...mathUsed]) : '',
    `@compute @workgroup_size(${WORKGROUP_SIZE})`,
    `fn main(@builtin(global_invocation_id) g: vec3<u32>) {`,
    // one invocation per output element of every device: element gid of device dev
    `  let t = i32(g.x + g.y * ${rowThreads}u);`,
    `  if (t >= ${n} * devices) { return; }`,
    `  let dev = t / ${n};`,
    `  let gid = t - dev * ${n};`,
    ...bases,
    ...lets.lines,
    `  out[t] = ${store};`,
    `}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

function reduceInit(fn: 'max' | 'min', dtype: DType): string {
  // ∓inf through jx_f32: a constant inf is a shader-creation error
  if (dtype === 'float32') return fn === 'max' ? 'jx_f32(0xff800000u)' : 'jx_f32(0x7f800000u)';
  if (dtype === 'int32') return fn === 'max' ? 'i32(-2147483647 - 1)' : '2147483647i';
  if (dtype === 'uint32') return fn === 'max' ? '0u' : '4294967295u';
  return fn === 'max' ? 'false' : 'true';
}

function unary(fn: string, x: string, dtype: DType, mathUsed: Set<string>): string {
  const m = MATH_FNS[fn];
  if (m) {
    mathUsed.add(m);
    return `${m}(${x})`;
  }
  switch (fn) {
    case 'neg':
      return `-(${x})`;
    case 'not':
      return dtype === 'bool' ? `!(${x})` : `~(${x})`;
    case 'abs':
    case 'floor':
    case 'ceil':
    case 'sign':
    case 'sqrt':
      return `${fn}(${x})`;
    case 'round':
      return `round(${x})`;
    case 'rsqrt':
      return `(1.0f / sqrt(${x}))`;
    case 'is_finite':
      return `((bitcast<u32>(${x}) & 0x7f800000u) != 0x7f800000u)`;
  }
  throw new Error(`internal: no WGSL lowering for unary '${fn}'`);
}

const INFIX: Record<string, string> = {
  add: '+', sub: '-', mul: '*', div: '/', rem: '%',
  eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=',
};

function binary(fn: string, a: string, b: string, dtype: DType, mathUsed: Set<string>): string {
  const m = MATH_FNS[fn];
  if (m) {
    mathUsed.add(m);
    return `${m}(${a}, ${b})`;
  }
  const op = INFIX[fn];
  if (op) return `(${a} ${op} ${b})`;
  switch (fn) {
    case 'max':
    case 'min':
      if (dtype === 'bool') return `(${a} ${fn === 'max' ? '||' : '&&'} ${b})`;
      return `${fn}(${a}, ${b})`;
    case 'atan2':
      return `atan2(${a}, ${b})`;
    case 'and':
      return `(${a} & ${b})`;
    case 'or':
      return `(${a} | ${b})`;
    case 'xor':
      return dtype === 'bool' ? `(${a} != ${b})` : `(${a} ^ ${b})`;
    case 'shift_left':
    case 'shift_right_logical':
    case 'shift_right_arithmetic':
      return shift(fn, a, b, dtype);
  }
  throw new Error(`internal: no WGSL lowering for binary '${fn}'`);
}

/** XLA shifts: an amount outside [0, 32) gives 0 (or the sign fill for an arithmetic right shift). */
function shift(fn: string, a: string, b: string, dtype: DType): string {
  const t = valueType(dtype);
  // WGSL shifts take a u32 amount; logical/arithmetic right shifts follow the operand's signedness
  const value =
    fn === 'shift_left'
      ? `(${a} << u32(${b}))`
      : fn === 'shift_right_logical'
        ? dtype === 'uint32' ? `(${a} >> u32(${b}))` : `i32(u32(${a}) >> u32(${b}))`
        : dtype === 'int32' ? `(${a} >> u32(${b}))` : `u32(i32(${a}) >> u32(${b}))`;
  const m = /^(\d+)[iu]$/.exec(b);
  if (m && Number(m[1]) < 32) return value;
  const over = fn === 'shift_right_arithmetic' ? `${t}(i32(${a}) >> 31u)` : literal(0, dtype);
  return `select(${over}, ${value}, u32(${b}) < 32u)`;
}

function cast(x: string, from: DType, to: DType): string {
  if (to === 'bool') return from === 'bool' ? x : `(${x} != ${literal(0, from)})`;
  if (from === 'bool') return `select(${literal(0, to)}, ${literal(1, to)}, ${x})`;
  return `${valueType(to)}(${x})`;
}
