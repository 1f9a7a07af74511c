// Which contraction of a CPU kernel the runtime's blocked matrix product
// (runtime/cpu/gemm.ts, WebAssembly SIMD) computes instead of the kernel's
// scalar loop, and with which strides. A dot_general's contraction (a `reduce`
// marked `dot`) qualifies when it multiplies two loads whose indices are
// affine in the loop counter and whose offsets over the output index fit the
// runtime's layout (rows × columns, batches of rows); the offsets are checked
// for every output element here, at compile time. The product sums each
// element in the same order as the loop (XLA's order where the reduce has
// one, `order`, with one accumulator: the layout's `kc`), so the numbers are
// the same.
import type { KBinary, KExpr, Kernel } from '../ir/kernel.js';
import type { DotLayout } from '../../runtime/cpu/gemm.js';
import { children, freeRvars } from '../ir/kernel.js';

type Reduce = Extract<KExpr, { op: 'reduce' }>;
type Load = Extract<KExpr, { op: 'load' }>;


export interface DotPlan {
  reduce: Reduce;
  /** The inputs the two factors load. */
  x: number;
  y: number;
  layout: DotLayout;
  /**
   * A contraction whose factors are gathered, not strided (a convolution's window: indices that divide the
   * counter, positions in the padding read as 0): the kernel first packs each factor into a matrix of its own
   * (`x`: rows × K, `y`: batches × columns × K) and the product reads those; `x`/`y` then name no input.
   */
  pack?: { x: Pack; y: Pack };
}

/** A gathered factor: its load (read where `cond` holds, 0 elsewhere), and the output index each packed row stands for. */
export interface Pack {
  load: Load;
  cond: KExpr | null;
  /** Packed rows (x: the product's rows; y: batches × columns). */
  rows: number;
  /** The output index row p stands for: ⌊p / per⌋·major + (p mod per)·minor. */
  per: number;
  major: number;
  minor: number;
}

/** Below this many multiply-adds the scalar loop is as fast as packing for the matrix product. */
const MIN_WORK = 4096;

/** The contraction of `k` the matrix product takes (the largest it can), with its layout; null if none. */
export function planDot(k: Kernel): DotPlan | null {
  return planDots(k, 1)[0] ?? null;
}

/**
 * The contractions of `k` the matrix product takes (at most `most`), the one with the most work first (a
 * layer's 128-wide product, not the 1-wide one beside it): a fused gradient sums several products. `xlaOrder`
 * (the CPU backend): leave a product in XLA's order with several accumulators per element to the kernel's loop.
 */
export function planDots(k: Kernel, most = Infinity, gathered = false, xlaOrder = false): DotPlan[] {
  const found: Reduce[] = [];
  findDots(k.body, new Set(), found, gathered);
  const plans: DotPlan[] = [];
  for (const f of found.sort((a, b) => b.extent - a.extent)) {
    if (plans.length >= most) break;
    // (`xlaOrder`: the CPU backend) XLA's order with several accumulators per element: the kernel's loop
    if (xlaOrder && f.order && f.order.lanes > 1) continue;
    const plan = (isStrided(f) ? planOne(k, f) : null) ?? (gathered ? planGathered(k, f) : null);
    if (plan) plans.push(plan);
  }
  return plans;
}

/** A contraction whose body multiplies two float32 loads affine in its counter. */
function isStrided(e: Reduce): boolean {
  const m = e.body;
  return m.op === 'bin' && m.fn === 'mul' && m.a.op === 'load' && m.b.op === 'load' && affine(m.a.index, e.id) && affine(m.b.index, e.id);
}

function planOne(k: Kernel, found: Reduce): DotPlan | null {
  const S = k.output.size;
  if (S * found.extent < MIN_WORK) return null;
  const { a, b } = found.body as { a: Load; b: Load };
  // either factor may be the row factor: the wider rows (then the longer batches) make the better product
  // (one memo: the two indices often share subexpressions of the output index)
  const memo = new Map<KExpr, Int32Array | null>();
  const ba = evalAll(a.index, found.id, 0, S, memo);
  const bb = ba && evalAll(b.index, found.id, 0, S, memo);
  if (!ba || !bb) return null;
  // the counter's coefficients (constants: the indices are affine in it)
  const ka = evalAll(a.index, found.id, 1, 1)![0]! - ba[0]!;
  const kb = evalAll(b.index, found.id, 1, 1)![0]! - bb[0]!;
  const plans = [layoutOf(found, [a, ba, ka], [b, bb, kb], S), layoutOf(found, [b, bb, kb], [a, ba, ka], S)].filter((p) => p !== null);
  const size = (p: DotPlan): number => p.layout.N * S + p.layout.M;
  return plans.sort((p, q) => size(q) - size(p))[0] ?? null;
}

/** The contractions of `e` the matrix product could take (not a matrix-vector loop's), in the order of a walk. */
function findDots(e: KExpr, seen: Set<KExpr>, out: Reduce[], gathered: boolean): void {
  if (seen.has(e)) return;
  seen.add(e);
  if (e.op === 'reduce') {
    const m = gathered ? gatheredProduct(e.body) : e.body;
    if (
      e.dot && e.fn === 'sum' && e.dtype === 'float32' && freeRvars(e).size === 0 && m !== null &&
      m.op === 'bin' && m.fn === 'mul' && m.a.op === 'load' && m.b.op === 'load' &&
      m.a.dtype === 'float32' && m.b.dtype === 'float32' &&
      (gathered || (affine(m.a.index, e.id) && affine(m.b.index, e.id)))
    ) out.push(e);
    return;
  }
  for (const c of children(e)) findDots(c, seen, out, gathered);
}

/** The product of a contraction's body `cond ? x * y : 0` (a convolution's) or `x * y`. */
function gatheredProduct(body: KExpr): KExpr | null {
  if (body.op === 'select' && body.b.op === 'const' && body.b.value === 0 && !Object.is(body.b.value, -0)) return body.a;
  return body;
}

/** Whether `e` is (terms without counter `r`) + c·r for a constant c. */
function affine(e: KExpr, r: number): boolean {
  if (!freeRvars(e).has(r)) return true;
  if (e.op === 'rvar') return true;
  if (e.op === 'bin' && (e.fn === 'add' || e.fn === 'sub')) return affine(e.a, r) && affine(e.b, r);
  if (e.op === 'bin' && e.fn === 'mul') {
    return (e.a.op === 'const' && affine(e.b, r)) || (e.b.op === 'const' && affine(e.a, r));
  }
  return false;
}

/**
 * An int32 index expression at every output index g < S with the counter r fixed, computed a
 * node at a time over whole arrays (shared subtrees once); null if it reads anything but g and r.
 */
function evalAll(e: KExpr, r: number, rv: number, S: number, memo = new Map<KExpr, Int32Array | null>()): Int32Array | null {
  const known = memo.get(e);
  if (known !== undefined) return known;
  const out = new Int32Array(S);
  let ok = true;
  switch (e.op) {
    case 'const':
      out.fill(e.value);
      break;
    case 'gid':
      for (let g = 0; g < S; g++) out[g] = g;
      break;
    case 'rvar':
      if (e.id === r) out.fill(rv);
      else ok = false;
      break;
    case 'cast': {
      const x = e.dtype === 'int32' && e.x.dtype === 'bool' ? evalAll(e.x, r, rv, S, memo) : null;
      if (x) out.set(x);
      else ok = false;
      break;
    }
    case 'select': {
      const c = evalAll(e.cond, r, rv, S, memo);
      const a = evalAll(e.a, r, rv, S, memo);
      const b = evalAll(e.b, r, rv, S, memo);
      if (c && a && b) for (let g = 0; g < S; g++) out[g] = c[g] ? a[g]! : b[g]!;
      else ok = false;
      break;
    }
    case 'bin': {
      const a = e.a.dtype === 'int32' || e.a.dtype === 'bool' ? evalAll(e.a, r, rv, S, memo) : null;
      const b = a && evalAll(e.b, r, rv, S, memo);
      ok = !!a && !!b && binAll(e.fn, a, b, out);
      break;
    }
    default:
      ok = false;
  }
  const res = ok ? out : null;
  memo.set(e, res);
  return res;
}

/**
 * out = a fn b elementwise, with a loop per operation (this runs over every output element of every
 * contraction a program compiles: a call through BIN per element made it a good part of compile time).
 * False for an operation BIN lacks.
 */
function binAll(fn: KBinary, a: Int32Array, b: Int32Array, out: Int32Array): boolean {
  const S = out.length;
  switch (fn) {
    case 'add':
      for (let g = 0; g < S; g++) out[g] = a[g]! + b[g]!;
      return true;
    case 'sub':
      for (let g = 0; g < S; g++) out[g] = a[g]! - b[g]!;
      return true;
    case 'mul':
      for (let g = 0; g < S; g++) out[g] = Math.imul(a[g]!, b[g]!);
      return true;
    default: {
      const f = BIN[fn];
      if (!f) return false;
      for (let g = 0; g < S; g++) out[g] = f(a[g]!, b[g]!);
      return true;
    }
  }
}

/** int32 semantics of the kernels (XLA's: x / 0 = -1, x % 0 = x); comparisons give 0/1. */
const BIN: Partial<Record<KBinary, (a: number, b: number) => number>> = {
  add: (a, b) => (a + b) | 0,
  sub: (a, b) => (a - b) | 0,
  mul: (a, b) => Math.imul(a, b),
  div: (a, b) => (b === 0 ? -1 : (a / b) | 0),
  rem: (a, b) => (b === 0 ? a : (a % b) | 0),
  max: Math.max,
  min: Math.min,
  lt: (a, b) => +(a < b),
  le: (a, b) => +(a <= b),
  gt: (a, b) => +(a > b),
  ge: (a, b) => +(a >= b),
  eq: (a, b) => +(a === b),
  ne: (a, b) => +(a !== b),
  and: (a, b) => a & b,
  or: (a, b) => a | b,
};

/** A factor of the product: its load, its index at every output element for k = 0, and its step along k. */
type Factor = [Load, Int32Array, number];

/** The layout with `x` as the row factor and `y` as the column factor, if the offsets fit it for every output element. */
function layoutOf(red: Reduce, [x, bx, xk]: Factor, [y, by, yk]: Factor, S: number): DotPlan | null {
  const K = red.extent;
  // columns: the run of outputs sharing one x row
  let N = 1;
  while (N < S && bx[N] === bx[0]) N++;
  if (S % N !== 0) return null;
  const Q = S / N;
  const yj = N > 1 ? by[1]! - by[0]! : 0;
  for (let q = 0; q < Q; q++) {
    const o = q * N;
    for (let j = 0; j < N; j++) if (bx[o + j] !== bx[o] || by[o + j] !== by[o]! + j * yj) return null;
  }
  // batches: the run of rows sharing one y
  let M = 1;
  while (M < Q && by[M * N] === by[0]) M++;
  if (Q % M !== 0) return null;
  const row = (q: number): number => bx[q * N]!;
  const x0 = row(0);
  const xq = M > 1 ? row(1) - x0 : 0;
  const xb = Q > M ? row(M) - x0 : 0;
  const y0 = by[0]!;
  const yb = Q > M ? by[M * N]! - y0 : 0;
  for (let q = 0; q < Q; q++) {
    const bt = Math.floor(q / M);
    if (row(q) !== x0 + (q % M) * xq + bt * xb || by[q * N] !== y0 + bt * yb) return null;
  }
  return { reduce: red, x: x.input, y: y.input, layout: { Q, M, N, K, x0, xq, xb, xk, y0, yb, yj, yk, ...(red.order && { kc: red.order.block }) } };
}

// ---------- gathered factors (convolutions) ----------

/** The least outputs per batch of a gathered product (rows × columns that share the packed factors). */
const MIN_BATCH = 16;
/** The most floats the packed factors of one gathered contraction may take (128 MiB). */
const MAX_PACKED = 1 << 25;

/** Does `e` read the output index? */
function readsGid(e: KExpr, memo: Map<KExpr, boolean>): boolean {
  const known = memo.get(e);
  if (known !== undefined) return known;
  const v = e.op === 'gid' || children(e).some((c) => readsGid(c, memo));
  memo.set(e, v);
  return v;
}

/** The largest subterms of `roots` that read the output index and not the counter `r`: all a factor knows of its output element. */
function leavesOf(roots: KExpr[], r: number, memo: Map<KExpr, boolean>): KExpr[] {
  const out = new Set<KExpr>();
  const seen = new Set<KExpr>();
  const walk = (e: KExpr): void => {
    if (seen.has(e) || !readsGid(e, memo)) return;
    seen.add(e);
    if (!freeRvars(e).has(r)) out.add(e);
    else for (const c of children(e)) walk(c);
  };
  roots.forEach(walk);
  return [...out];
}

/**
 * A contraction `Σ_r cond ? x·y : 0` whose loads gather (a convolution's): the layout of the product of the packed
 * factors, where the output index decides x only through its row and y only through its batch and column (each
 * checked at every output element, on the parts of the output index each factor reads). Null if no layout fits.
 */
function planGathered(k: Kernel, red: Reduce): DotPlan | null {
  const S = k.output.size;
  const K = red.extent;
  if (S * K < MIN_WORK) return null;
  const cond = red.body.op === 'select' ? red.body.cond : null;
  const m = (cond ? (red.body as { a: KExpr }).a : red.body) as { a: Load; b: Load };
  const gidMemo = new Map<KExpr, boolean>();
  const evalMemo = new Map<KExpr, Int32Array | null>();
  const values = (roots: KExpr[]): Int32Array[] | null => {
    const vs = leavesOf(roots, red.id, gidMemo).map((l) => evalAll(l, red.id, 0, S, evalMemo));
    return vs.every((v) => v !== null) ? (vs as Int32Array[]) : null;
  };
  const plans: DotPlan[] = [];
  for (const [x, y] of [[m.a, m.b], [m.b, m.a]] as const) {
    for (const condOnY of cond ? [true, false] : [true]) {
      const xc = cond && !condOnY ? cond : null;
      const yc = cond && condOnY ? cond : null;
      const lx = values(xc ? [x.index, xc] : [x.index]);
      const ly = values(yc ? [y.index, yc] : [y.index]);
      if (!lx || !ly) continue;
      const plan = gatheredLayout(red, S, K, { load: x, cond: xc }, lx, { load: y, cond: yc }, ly);
      if (plan && renderPack(plan.pack!.x, 'p', K) && renderPack(plan.pack!.y, 'p', K)) plans.push(plan);
    }
  }
  const size = (p: DotPlan): number => (p.pack!.x.rows + p.pack!.y.rows) * K;
  return plans.sort((p, q) => size(p) - size(q))[0] ?? null;
}

/** How many of the first `count` indices 0, step, 2·step, … every array keeps its value at 0 along. */
function runOf(vs: Int32Array[], count: number, step: number): number {
  let n = 1;
  while (n < count && vs.every((v) => v[n * step] === v[0])) n++;
  return n;
}

function gatheredLayout(
  red: Reduce, S: number, K: number, x: { load: Load; cond: KExpr | null }, lx: Int32Array[], y: { load: Load; cond: KExpr | null }, ly: Int32Array[],
): DotPlan | null {
  // columns: the outputs sharing one x row; rows of a batch: those sharing one y
  const N = runOf(lx, S, 1);
  if (S % N !== 0) return null;
  const Q = S / N;
  const M = runOf(ly, Q, N);
  if (Q % M !== 0) return null;
  const B = Q / M;
  // a product per output element (each factor reads all of its index) is the scalar loop's work, packed twice
  if (M * N < MIN_BATCH) return null;
  let shared = true;
  for (let g = 0; g < S; g++) {
    const q = (g / N) | 0;
    const j = g - q * N;
    const b = (q / M) | 0;
    for (const v of lx) {
      if (v[g] !== v[q * N]) return null;
      if (v[g] !== v[(q - b * M) * N]) shared = false;
    }
    for (const v of ly) if (v[g] !== v[b * M * N + j]) return null;
  }
  const xRows = shared ? M : Q;
  if ((xRows + B * N) * K > MAX_PACKED) return null;
  return {
    reduce: red,
    x: x.load.input,
    y: y.load.input,
    layout: { Q, M, N, K, x0: 0, xq: K, xb: shared ? 0 : M * K, xk: 1, y0: 0, yb: N * K, yj: K, yk: 1 },
    pack: {
      x: { ...x, rows: xRows, per: xRows, major: 0, minor: N },
      y: { ...y, rows: B * N, per: N, major: M * N, minor: 1 },
    },
  };
}

/**
 * JS statements that pack a gathered factor into `name` (a Float32Array of rows × K: row p, element r is the
 * factor's value at the output index row p stands for and counter r); null if its index uses an operation
 * this renderer lacks. The int32 arithmetic is the JS kernels' (`| 0`, Math.imul, literal divisors).
 */
export function renderPack(p: Pack, name: string, K: number): string[] | null {
  const rid = (p.cond ? [p.load.index, p.cond] : [p.load.index]).flatMap((e) => [...freeRvars(e)]);
  if (rid.some((id) => id !== rid[0])) return null;
  const outer: string[] = [];
  const inner: string[] = [];
  const names = new Map<KExpr, string>();
  let failed = false;
  const ex = (e: KExpr): string => {
    const known = names.get(e);
    if (known !== undefined) return known;
    let v: string;
    switch (e.op) {
      case 'const':
        v = e.dtype === 'bool' ? String(e.value !== 0) : e.dtype === 'int32' && Number.isInteger(e.value) ? (e.value < 0 ? `(${e.value})` : String(e.value)) : fail();
        return v;
      case 'gid':
        return 'gid';
      case 'rvar':
        return 'r';
      case 'cast':
        v = e.dtype === 'int32' && e.x.dtype === 'bool' ? `(${ex(e.x)} ? 1 : 0)` : e.dtype === e.x.dtype ? ex(e.x) : fail();
        break;
      case 'select':
        v = `(${ex(e.cond)} ? ${ex(e.a)} : ${ex(e.b)})`;
        break;
      case 'bin': {
        if (e.a.dtype !== e.b.dtype || (e.a.dtype !== 'int32' && e.a.dtype !== 'bool')) return fail();
        const a = ex(e.a);
        const b = ex(e.b);
        v = binJs(e.fn, a, b, e.a.dtype, e.b.op === 'const' ? e.b.value : null) ?? fail();
        break;
      }
      default:
        return fail();
    }
    const t = `t${names.size}`;
    (rid.length && freeRvars(e).has(rid[0]!) ? inner : outer).push(`const ${t} = ${v};`);
    names.set(e, t);
    return t;
  };
  function fail(): string {
    failed = true;
    return '0';
  }
  const idx = ex(p.load.index);
  const c = p.cond ? ex(p.cond) : null;
  if (failed) return null;
  // where the condition fails the index may lie outside the input: it is not read; the other factor's index is only
  // ever read where the condition holds, so past its input it stands for 0 (undefined ?? 0)
  const value = c ? `${c} ? in${p.load.input}[${idx}] : 0` : `in${p.load.input}[${idx}] ?? 0`;
  return [
    `const ${name} = new Float32Array(${p.rows * K});`,
    `for (let row = 0, o = 0; row < ${p.rows}; row++) {`,
    `  const gid = ${[p.major ? `((row / ${p.per}) | 0) * ${p.major}` : '', p.per === p.rows ? 'row' : `(row % ${p.per})`].filter((t) => t).join(' + ')}${p.minor === 1 ? '' : ` * ${p.minor}`};`,
    ...outer.map((l) => `  ${l}`),
    `  for (let r = 0; r < ${K}; r++, o++) {`,
    ...inner.map((l) => `    ${l}`),
    `    ${name}[o] = ${value};`,
    `  }`,
    `}`,
  ];
}

/** An int32 or bool operation as the JS kernels compute it; null for one this renderer lacks. */
function binJs(fn: KBinary, a: string, b: string, d: 'int32' | 'bool', literal: number | null): string | null {
  switch (fn) {
    case 'add': return d === 'int32' ? `(${a} + ${b}) | 0` : null;
    case 'sub': return d === 'int32' ? `(${a} - ${b}) | 0` : null;
    case 'mul': return d === 'int32' ? `Math.imul(${a}, ${b})` : null;
    case 'div': return d === 'int32' && literal !== null && literal !== 0 ? `(${a} / ${b}) | 0` : null;
    case 'rem': return d === 'int32' && literal !== null && literal !== 0 ? `(${a} % ${b}) | 0` : null;
    case 'max': return d === 'int32' ? `Math.max(${a}, ${b})` : null;
    case 'min': return d === 'int32' ? `Math.min(${a}, ${b})` : null;
    case 'lt': return `${a} < ${b}`;
    case 'le': return `${a} <= ${b}`;
    case 'gt': return `${a} > ${b}`;
    case 'ge': return `${a} >= ${b}`;
    case 'eq': return `${a} === ${b}`;
    case 'ne': return `${a} !== ${b}`;
    case 'and': return d === 'bool' ? `${a} && ${b}` : `${a} & ${b}`;
    case 'or': return d === 'bool' ? `${a} || ${b}` : `${a} | ${b}`;
    default: return null;
  }
}
