// Bounds on the work a program makes the compiler do. The lowering runs the
// program's static parts at compile time, where Python would go on until
// memory or patience ran out (a list of a billion items, 10 ** 10 ** 10, a
// loop that never ends); jaxts stops at the offending source with a
// CompileError instead, so that every compile ends in bounded time and memory.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';

/** Items of a str, list, tuple or NumPy array built at compile time. */
export const MAX_STATIC_ITEMS = 1 << 22;

/** Bits of an int computed at compile time. */
export const MAX_INT_BITS = 1 << 20;

/** Width or precision in a format spec (`f"{x:1000000000}"`). */
export const MAX_FORMAT_WIDTH = 1 << 20;

/** Iterations of a loop run at compile time (a `while` on static values, an unrolled `for`). */
export const MAX_LOOP_STEPS = 10_000;

/** Operations recorded in one traced program (a Python loop in a traced function unrolls into it). */
export const MAX_TRACED_OPS = 50_000;

/** `n` items of `what` (a list, a str, a NumPy array) may be built at compile time. */
export function checkItems(n: number, what: string, span: Span): void {
  if (n > MAX_STATIC_ITEMS) {
    throw new CompileError(`MemoryError: ${what} of ${n} items is too large to build at compile time (the limit is ${MAX_STATIC_ITEMS})`, span);
  }
}

/** A NumPy array of `shape` may be built at compile time: no negative dimension, not too many elements. */
export function checkShape(shape: readonly number[], span: Span): void {
  if (shape.some((d) => d < 0)) throw new CompileError('ValueError: negative dimensions are not allowed', span);
  checkItems(shape.reduce((a, b) => a * b, 1), 'a NumPy array', span);
}

/** Bits of |x| (0 for 0). */
export function intBits(x: bigint): number {
  const a = x < 0n ? -x : x;
  if (a < 1n << 52n) return a === 0n ? 0 : Math.floor(Math.log2(Number(a))) + 1;
  return a.toString(16).length * 4;
}

/** An int of about `bits` bits may be computed at compile time. */
export function checkIntBits(bits: number, span: Span): void {
  if (bits > MAX_INT_BITS) {
    throw new CompileError(`OverflowError: the result would have about ${Math.round(bits)} bits, too large to compute at compile time (the limit is ${MAX_INT_BITS})`, span);
  }
}

/** A traced program of `n` operations may get one more. */
export function checkTracedOps(n: number, span: Span): void {
  if (n >= MAX_TRACED_OPS) {
    throw new CompileError(`the traced program is too large: more than ${MAX_TRACED_OPS} operations (a Python loop in a traced function, or a while loop on arrays, unrolls into it)`, span);
  }
}

/** The widths and precisions of a format spec (`>10.3f`, `%-8.2e`) fit in MAX_FORMAT_WIDTH. */
export function checkFormatWidth(n: number, span: Span): void {
  if (n > MAX_FORMAT_WIDTH) throw new CompileError(`MemoryError: a format width or precision of ${n} is too large (the limit is ${MAX_FORMAT_WIDTH})`, span);
}

/** Every width and precision in format spec text. */
export function checkFormatSpec(spec: string, span: Span): void {
  for (const m of spec.matchAll(/\d+/g)) checkFormatWidth(Number(m[0]), span);
}
