// Kernel IR → a JS loop over typed arrays, for the CPU backend. float32
// semantics come from Math.fround after every float operation; int32 from
// `| 0` and Math.imul. Transcendentals call the runtime's float32 math.
import type { KExpr, Kernel } from '../ir/kernel.js';
import { callKey, exprKey } from '../ir/kernel.js';
import { LetScopes, reduceLevel } from './let_scopes.js';
import type { DType } from '../ir/types.js';
import { f32Literal } from './literals.js';

/** Runtime float32 math used by CPU kernels (runtime/cpu/math.ts), by primitive. */
export const JS_MATH_FNS: Record<string, string> = {
  sin: 'sin32',
  cos: 'cos32',
  tan: 'tan32',
  exp: 'exp32',
  log: 'log32',
  log1p: 'log1p32',
  expm1: 'expm1_32',
  tanh: 'tanh32',
  logistic: 'logistic32',
  erf: 'erf32',
  erf_inv: 'erfInv32',
  pow: 'pow32',
};

/** Runtime helpers with several results (KExpr 'call'), returning an array. */
export const JS_CALL_FNS: Record<string, string> = {
  threefry2x32: 'threefry2x32',
};

export function jsLiteral(value: number, dtype: DType): string {
  if (dtype === 'float32') return f32Literal(value, 'js');
  if (dtype === 'bool') return value ? 'true' : 'false';
  if (dtype === 'uint32') return String(value >>> 0);
  return String(value | 0);
}

/** The kernel as a function declaration `function NAME(ins, out, device) {...}`; also returns the math helpers it calls. */
export function renderJs(k: Kernel, fnName: string, types = true): { source: string; mathUsed: string[] } {
  const mathUsed = new Set<string>();
  const lets = new LetScopes('    ', (name, text) => `const ${name} = ${text};`);
  const emit = (e: KExpr): string => {
    switch (e.op) {
      case 'const':
        return jsLiteral(e.value, e.dtype);
      case 'gid':
        return 'gid';
      case 'rvar':
        return `r${e.id}`;
      case 'device':
        return 'device';
    }
    const key = exprKey(e);
    const found = lets.lookup(key);
    if (found) return found;
    switch (e.op) {
      case 'load': {
        const raw = `in${e.input}[${emit(e.index)}]`;
        return lets.bind(key, e.dtype === 'bool' ? `${raw} !== 0` : raw);
      }
      case 'un':
        if (e.fn === 'bitcast_convert_type') {
          const b = e.dtype === 'float32' ? 'bitsToF32' : e.x.dtype === 'float32' ? 'f32ToBits' : null;
          if (b) mathUsed.add(b);
          const bits = b ? `${b}(${emit(e.x)})` : emit(e.x);
          return lets.bind(key, e.dtype === 'int32' ? `${bits} | 0` : e.dtype === 'uint32' ? `${bits} >>> 0` : bits);
        }
        return lets.bind(key, unary(e.fn, emit(e.x), e.x.dtype, mathUsed));
      case 'bin':
        return lets.bind(key, binary(e.fn, emit(e.a), emit(e.b), e.a.dtype, mathUsed));
      case 'select':
        return lets.bind(key, `${emit(e.cond)} ? ${emit(e.a)} : ${emit(e.b)}`);
      case 'cast':
        return lets.bind(key, cast(emit(e.x), e.x.dtype, e.dtype));
      case 'reduce': {
        const acc = `acc${e.id}`;
        const init =
          e.fn === 'sum' ? jsLiteral(0, e.dtype) : e.fn === 'prod' ? jsLiteral(1, e.dtype) : reduceInit(e.fn, e.dtype);
        const r = `r${e.id}`;
        lets.loop(
          reduceLevel(lets, e),
          [`let ${acc} = ${init};`, `for (let ${r} = 0; ${r} < ${e.extent}; ${r}++) {`],
          () => lets.line(`${acc} = ${combine(e.fn, acc, emit(e.body), e.dtype)};`),
          { outer: [acc], inner: [r] },
        );
        lets.alias(key, acc);
        return acc;
      }
      case 'call': {
        const ck = callKey(e);
        let tuple = lets.lookup(ck);
        if (!tuple) {
          const f = JS_CALL_FNS[e.fn];
          if (!f) throw new Error(`internal: no JS helper for '${e.fn}'`);
          mathUsed.add(f);
          tuple = lets.bind(ck, `${f}(${e.args.map(emit).join(', ')})`);
        }
        return lets.bind(key, `${tuple}[${e.part}]`);
      }
    }
  };
  const value = emit(k.body);
  const store = k.output.dtype === 'bool' ? `${value} ? 1 : 0` : value;
  const ins = k.inputs.map((_, i) => `in${i}`);
  const source = [
    types ? `function ${fnName}(ins: jx.CpuBuffer[], out: jx.CpuBuffer, device: number): void {` : `function ${fnName}(ins, out, device) {`,
    ins.length ? `  const [${ins.join(', ')}] = ins${types ? ` as [${ins.map(() => 'jx.CpuBuffer').join(', ')}]` : ''};` : '',
    k.usesDevice ? '' : '  void device;',
    `  for (let gid = 0; gid < ${k.output.size}; gid++) {`,
    ...lets.lines,
    `    out[gid] = ${store};`,
    `  }`,
    `}`,
  ]
    .filter((l) => l !== '')
    .join('\n');
  return { source, mathUsed: [...mathUsed] };
}

const fr = (s: string): string => `Math.fround(${s})`;

function combine(fn: string, acc: string, v: string, dtype: DType): string {
  if (fn === 'sum') return arith('add', acc, v, dtype);
  if (fn === 'prod') return arith('mul', acc, v, dtype);
  if (dtype === 'bool') return fn === 'max' ? `${acc} || ${v}` : `${acc} && ${v}`;
  // XLA's max/min propagate NaN
  return fn === 'max' ? `(${v} > ${acc} || ${v} !== ${v} ? ${v} : ${acc})` : `(${v} < ${acc} || ${v} !== ${v} ? ${v} : ${acc})`;
}

function reduceInit(fn: 'max' | 'min', dtype: DType): string {
  if (dtype === 'float32') return fn === 'max' ? '-Infinity' : 'Infinity';
  if (dtype === 'int32') return fn === 'max' ? '-2147483648' : '2147483647';
  if (dtype === 'uint32') return fn === 'max' ? '0' : '4294967295';
  return fn === 'max' ? 'false' : 'true';
}

function arith(fn: string, a: string, b: string, dtype: DType): string {
  const op = { add: '+', sub: '-', mul: '*', div: '/', rem: '%' }[fn]!;
  if (dtype === 'float32') return fr(`${a} ${op} ${b}`);
  if (dtype === 'int32') return fn === 'mul' ? `Math.imul(${a}, ${b})` : fn === 'div' || fn === 'rem' ? `(${b} === 0 ? ${fn === 'div' ? -1 : a} : (${a} ${op} ${b}) | 0)` : `(${a} ${op} ${b}) | 0`;
  if (dtype === 'uint32') return fn === 'mul' ? `Math.imul(${a}, ${b}) >>> 0` : `(${a} ${op} ${b}) >>> 0`;
  throw new Error(`internal: arithmetic on ${dtype}`);
}

function unary(fn: string, x: string, dtype: DType, mathUsed: Set<string>): string {
  const m = JS_MATH_FNS[fn];
  if (m) {
    mathUsed.add(m);
    return `${m}(${x})`;
  }
  switch (fn) {
    case 'neg':
      return dtype === 'float32' ? `-${x}` : dtype === 'int32' ? `-${x} | 0` : `-${x} >>> 0`;
    case 'not':
      return dtype === 'bool' ? `!${x}` : dtype === 'int32' ? `~${x}` : `~${x} >>> 0`;
    case 'abs':
      return dtype === 'float32' ? `Math.abs(${x})` : `Math.abs(${x}) | 0`;
    case 'sign':
      return dtype === 'float32' ? `(${x} !== ${x} ? NaN : Math.sign(${x}))` : `Math.sign(${x})`;
    case 'floor':
    case 'ceil':
      return dtype === 'float32' ? `Math.${fn}(${x})` : x;
    case 'round':
      return `roundHalfEven32(${x})`;
    case 'sqrt':
      return fr(`Math.sqrt(${x})`);
    case 'rsqrt':
      return fr(`1 / Math.sqrt(${x})`);
    case 'is_finite':
      return `Number.isFinite(${x})`;
  }
  throw new Error(`internal: no JS lowering for unary '${fn}'`);
}

function binary(fn: string, a: string, b: string, dtype: DType, mathUsed: Set<string>): string {
  const m = JS_MATH_FNS[fn];
  if (m) {
    mathUsed.add(m);
    return `${m}(${a}, ${b})`;
  }
  switch (fn) {
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'rem':
      return arith(fn, a, b, dtype);
    case 'max':
      return `(${a} !== ${a} || ${a} > ${b} ? ${a} : ${b})`;
    case 'min':
      return `(${a} !== ${a} || ${a} < ${b} ? ${a} : ${b})`;
    case 'atan2':
      return fr(`Math.atan2(${a}, ${b})`);
    case 'eq':
      return `${a} === ${b}`;
    case 'ne':
      return `${a} !== ${b}`;
    case 'lt':
      return `${a} < ${b}`;
    case 'le':
      return `${a} <= ${b}`;
    case 'gt':
      return `${a} > ${b}`;
    case 'ge':
      return `${a} >= ${b}`;
    case 'and':
    case 'or':
    case 'xor': {
      if (dtype === 'bool') return `${a} ${{ and: '&&', or: '||', xor: '!==' }[fn]} ${b}`;
      const v = `${a} ${{ and: '&', or: '|', xor: '^' }[fn]} ${b}`;
      return dtype === 'uint32' ? `(${v}) >>> 0` : v;
    }
    case 'shift_left':
    case 'shift_right_logical':
    case 'shift_right_arithmetic':
      return shift(fn, a, b, dtype);
  }
  throw new Error(`internal: no JS lowering for binary '${fn}'`);
}

/** XLA shifts: an amount outside [0, 32) gives 0 (or the sign fill for an arithmetic right shift). */
function shift(fn: string, a: string, b: string, dtype: DType): string {
  const wrap = dtype === 'uint32' ? '>>> 0' : '| 0';
  const op = fn === 'shift_left' ? '<<' : fn === 'shift_right_logical' ? '>>>' : '>>';
  const value = `(${a} ${op} ${b}) ${wrap}`;
  const amount = /^\d+$/.test(b) ? Number(b) : null;
  if (amount !== null && amount < 32) return value;
  const over = fn === 'shift_right_arithmetic' ? `(${a} ${dtype === 'uint32' ? '>= 2147483648' : '< 0'} ? ${dtype === 'uint32' ? 4294967295 : -1} : 0)` : '0';
  const inRange = dtype === 'uint32' ? `${b} < 32` : `${b} >= 0 && ${b} < 32`;
  return `(${inRange} ? ${value} : ${over})`;
}

function cast(x: string, from: DType, to: DType): string {
  if (to === 'bool') return from === 'bool' ? x : `${x} !== 0`;
  if (from === 'bool') return to === 'float32' ? `(${x} ? 1 : 0)` : `(${x} ? 1 : 0)`;
  if (to === 'float32') return fr(x);
  if (from === 'float32') return to === 'int32' ? `f32ToI32(${x})` : `f32ToU32(${x})`;
  return to === 'int32' ? `${x} | 0` : `${x} >>> 0`;
}
