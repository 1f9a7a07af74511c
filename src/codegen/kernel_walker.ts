// The one walker over the kernel IR (src/ir/kernel.ts) behind both kernel
// renderers. It turns a kernel's expression into statements: one temporary per
// distinct subexpression (let_scopes.ts places each at the outermost loop
// level where it can live), one loop per reduction, a single evaluation per
// helper call shared by its parts, and finally the value the invocation stores.
// How each operation, literal, load and loop is spelled comes from a Dialect:
// wgsl.ts (WebGPU compute shaders) and js.ts (the CPU backend's JS), each of
// which also frames the statements into a whole shader or function.
import type { DType } from '../../runtime/program.js';
import type { KBinary, KCall, KExpr, Kernel, KUnary, ReduceFn } from '../ir/kernel.js';
import { callKey, exprKey } from '../ir/kernel.js';
import { LetScopes, reduceLevel } from './let_scopes.js';

/** How one target language spells the kernel IR. */
export interface Dialect {
  /** Indentation of the statements computing one element. */
  readonly indent: string;
  /** The declaration of temporary `name` holding `value`. */
  declare(name: string, value: string): string;
  /** An exact literal of `dtype`. */
  literal(value: number, dtype: DType): string;
  /** The names the frame gives the output index and the device index. */
  readonly gid: string;
  readonly device: string;
  /** Element `index` of input `input`, as a value of `dtype` (a bool buffer holds 0/1 words). */
  load(input: number, index: string, dtype: DType): string;
  /** `x` is of dtype `from`, the result of dtype `to`. */
  readonly unary: { readonly [F in KUnary]: (x: string, from: DType, to: DType) => string };
  /** Both operands are of dtype `dtype`; comparisons give bool. */
  readonly binary: { readonly [F in KBinary]: (a: string, b: string, dtype: DType) => string };
  /** `cond ? a : b` */
  select(cond: string, a: string, b: string): string;
  cast(x: string, from: DType, to: DType): string;
  /** Each reduction's start value and its step (`acc ∘ v`). */
  readonly reduce: { readonly [F in ReduceFn]: Reduction };
  /** The lines opening a reduction: the accumulator's declaration, then the loop header over `counter`. */
  reduceLoop(acc: string, init: string, dtype: DType, counter: string, extent: number): string[];
  /** The helper function computing each call's results, a tuple indexed by the call's part. */
  readonly calls: { readonly [F in KCall]: string };
  /** Every helper function the spellings above may call; the walker reports the ones a kernel calls. */
  readonly helpers: readonly string[];
}

export interface Reduction {
  init(dtype: DType): string;
  combine(acc: string, v: string, dtype: DType): string;
}

export interface WalkedKernel {
  /** The statements computing the element, indented. */
  lines: string[];
  /** The element's value (a name or a literal). */
  value: string;
  /** The inputs the statements read, ascending. */
  loaded: number[];
  /** The dialect's helpers the statements call, in the dialect's order. */
  helpers: string[];
}

export function walkKernel(k: Kernel, d: Dialect): WalkedKernel {
  const lets = new LetScopes(d.indent, (name, value) => d.declare(name, value));
  const loaded = new Set<number>();

  const emit = (e: KExpr): string => {
    switch (e.op) {
      case 'const':
        return d.literal(e.value, e.dtype);
      case 'gid':
        return d.gid;
      case 'rvar':
        return `r${e.id}`;
      case 'device':
        return d.device;
    }
    const key = exprKey(e);
    const found = lets.lookup(key);
    if (found) return found;
    switch (e.op) {
      case 'load':
        loaded.add(e.input);
        return lets.bind(key, d.load(e.input, emit(e.index), e.dtype));
      case 'un':
        return lets.bind(key, d.unary[e.fn](emit(e.x), e.x.dtype, e.dtype));
      case 'bin': {
        const a = emit(e.a);
        return lets.bind(key, d.binary[e.fn](a, emit(e.b), e.a.dtype));
      }
      case 'select': {
        const cond = emit(e.cond);
        const a = emit(e.a);
        return lets.bind(key, d.select(cond, a, emit(e.b)));
      }
      case 'cast':
        return lets.bind(key, d.cast(emit(e.x), e.x.dtype, e.dtype));
      case 'reduce': {
        const acc = `acc${e.id}`;
        const r = `r${e.id}`;
        const { init, combine } = d.reduce[e.fn];
        lets.loop(
          reduceLevel(lets, e),
          d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent),
          () => lets.line(`${acc} = ${combine(acc, emit(e.body), e.dtype)};`),
          { outer: [acc], inner: [r] },
        );
        lets.alias(key, acc);
        return acc;
      }
      case 'call': {
        const ck = callKey(e);
        const tuple = lets.lookup(ck) ?? lets.bind(ck, `${d.calls[e.fn]}(${e.args.map(emit).join(', ')})`);
        return lets.bind(key, `${tuple}[${e.part}]`);
      }
    }
  };

  const value = emit(k.body);
  const lines = lets.lines;
  const text = [...lines, value].join('\n');
  return {
    lines,
    value,
    loaded: [...loaded].sort((a, b) => a - b),
    helpers: d.helpers.filter((h) => new RegExp(`\\b${h}\\(`).test(text)),
  };
}

/** Spells an operation as a call of function `f` on its one operand. */
export const call1 =
  (f: string) =>
  (x: string): string =>
    `${f}(${x})`;

/** Spells an operation as a call of function `f` on its two operands. */
export const call2 =
  (f: string) =>
  (a: string, b: string): string =>
    `${f}(${a}, ${b})`;

/** Does `e` compute on float32 values (arithmetic, comparisons, math), rather than only move them? */
export function computesOnFloats(e: KExpr): boolean {
  switch (e.op) {
    case 'const':
    case 'gid':
    case 'rvar':
    case 'device':
      return false;
    case 'load':
      return computesOnFloats(e.index);
    case 'un':
      return (e.x.dtype === 'float32' && !['neg', 'abs', 'bitcast_convert_type'].includes(e.fn)) || computesOnFloats(e.x);
    case 'bin':
      return e.a.dtype === 'float32' || computesOnFloats(e.a) || computesOnFloats(e.b);
    case 'select':
      return computesOnFloats(e.cond) || computesOnFloats(e.a) || computesOnFloats(e.b);
    case 'cast':
      return e.x.dtype === 'float32' || computesOnFloats(e.x);
    case 'call':
      return e.args.some(computesOnFloats);
    case 'reduce':
      return e.dtype === 'float32' || computesOnFloats(e.body);
  }
}
