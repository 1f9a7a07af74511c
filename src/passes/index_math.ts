// Integer index arithmetic for kernel expressions, with the folding that keeps
// generated kernels short: constants fold, `x % n` vanishes when x < n is
// known, and `(x / c) * c + x % c` becomes x (reshape after delinearize), and
// `(x / c) * (c·s) + (x % c) * s` becomes x * s.
import type { KExpr } from '../ir/kernel.js';
import { exprKey } from '../ir/kernel.js';

export type IExpr = KExpr; // an int32-valued KExpr

export const iconst = (v: number): IExpr => ({ op: 'const', value: v, dtype: 'int32' });

/** Exclusive upper bound of a non-negative index expression, or Infinity. */
export function bound(e: IExpr): number {
  switch (e.op) {
    case 'const':
      return e.value + 1;
    case 'gid':
    case 'rvar':
      return e.bound;
    case 'bin': {
      const a = bound(e.a);
      const b = bound(e.b);
      if (e.fn === 'add') return a + b - 1;
      // a negative factor (rev's `gid * -1`) leaves no bound from the factors' bounds
      if (e.fn === 'mul') return a <= 0 || b <= 0 ? Infinity : (a - 1) * (b - 1) + 1;
      if (e.fn === 'div' && e.b.op === 'const') return Math.ceil(a / e.b.value);
      if (e.fn === 'rem' && e.b.op === 'const') return Math.min(a, e.b.value);
      return Infinity;
    }
    default:
      return Infinity;
  }
}

const isConst = (e: IExpr, v: number): boolean => e.op === 'const' && e.value === v;

export function iadd(a: IExpr, b: IExpr): IExpr {
  if (isConst(a, 0)) return b;
  if (isConst(b, 0)) return a;
  if (a.op === 'const' && b.op === 'const') return iconst(a.value + b.value);
  // (x / c) * (c·s) + (x % c) * s  →  x * s (s = 1: reshape after delinearize; s > 1: a reduction over
  // axes merged by a reshape, whose index then stays affine in its counter: dot_plan.ts can take it)
  const m = matchDivMul(a);
  const r = m && matchRemMul(b, m.c);
  if (m && r && m.k === m.c * r.s && exprKey(r.x) === exprKey(m.x)) return imul(m.x, r.s);
  // keep constants on the right and merge them: (x + c1) + c2
  if (a.op === 'const') return iadd(b, a);
  if (b.op === 'const' && a.op === 'bin' && a.fn === 'add' && a.b.op === 'const') return iadd(a.a, iconst(a.b.value + b.value));
  return { op: 'bin', fn: 'add', a, b, dtype: 'int32' };
}

/** (x / c) * k as { x, c, k }. */
function matchDivMul(e: IExpr): { x: IExpr; c: number; k: number } | null {
  if (e.op !== 'bin' || e.fn !== 'mul' || e.b.op !== 'const') return null;
  const d = e.a;
  if (d.op !== 'bin' || d.fn !== 'div' || d.b.op !== 'const' || d.b.value <= 0) return null;
  return { x: d.a, c: d.b.value, k: e.b.value };
}

/** x % c, or (x % c) * s, as { x, s }. */
function matchRemMul(e: IExpr, c: number): { x: IExpr; s: number } | null {
  const remOf = (r: IExpr): IExpr | null => (r.op === 'bin' && r.fn === 'rem' && r.b.op === 'const' && r.b.value === c ? r.a : null);
  const x = remOf(e);
  if (x) return { x, s: 1 };
  if (e.op !== 'bin' || e.fn !== 'mul' || e.b.op !== 'const' || e.b.value <= 0) return null;
  const y = remOf(e.a);
  return y ? { x: y, s: e.b.value } : null;
}

export function isub(a: IExpr, c: number): IExpr {
  return c === 0 ? a : a.op === 'const' ? iconst(a.value - c) : { op: 'bin', fn: 'sub', a, b: iconst(c), dtype: 'int32' };
}

export function imul(a: IExpr, c: number): IExpr {
  if (c === 0) return iconst(0);
  if (c === 1) return a;
  if (a.op === 'const') return iconst(a.value * c);
  return { op: 'bin', fn: 'mul', a, b: iconst(c), dtype: 'int32' };
}

export function idiv(a: IExpr, c: number): IExpr {
  if (c === 1) return a;
  if (a.op === 'const') return iconst(Math.floor(a.value / c));
  if (bound(a) <= c) return iconst(0);
  return { op: 'bin', fn: 'div', a, b: iconst(c), dtype: 'int32' };
}

export function imod(a: IExpr, c: number): IExpr {
  if (c === 1) return iconst(0);
  if (a.op === 'const') return iconst(a.value % c);
  if (bound(a) <= c) return a;
  return { op: 'bin', fn: 'rem', a, b: iconst(c), dtype: 'int32' };
}

export function strides(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** Row-major multi-index of a linear index. */
export function delinearize(lin: IExpr, shape: readonly number[]): IExpr[] {
  const st = strides(shape);
  return shape.map((d, i) => (d === 1 ? iconst(0) : imod(idiv(lin, st[i]!), d)));
}

/** Row-major linear index of a multi-index. */
export function linearize(idx: readonly IExpr[], shape: readonly number[]): IExpr {
  const st = strides(shape);
  let acc: IExpr = iconst(0);
  idx.forEach((e, i) => {
    if (shape[i] !== 1) acc = iadd(acc, imul(e, st[i]!));
  });
  return acc;
}
