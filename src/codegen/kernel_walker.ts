// The one walker over the kernel IR (src/ir/kernel.ts) behind both kernel
// renderers. It turns a kernel's expression into statements: one temporary per
// distinct subexpression (let_scopes.ts places each at the outermost loop
// level where it can live), one loop per reduction, a single evaluation per
// helper call shared by its parts, and finally the value the invocation stores.
// How each operation, literal, load and loop is spelled comes from a Dialect:
// wgsl.ts (WebGPU compute shaders) and js.ts (the CPU backend's JS), each of
// which also frames the statements into a whole shader or function.
// The dialects see only 32-bit lanes (float32, int32, uint32, bool): a narrow
// dtype (int8, float16, bfloat16, …) is computed in its lane and the walker
// brings each result back into the narrow type (Dialect.narrow).
import type { DType } from '../../runtime/program.js';
import { DTYPES, isNarrow, laneOf, type DTypeInfo } from '../ir/dtypes.js';
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
  /** XLA CPU's own atan (`xla.atan.f32`), for the elements xlaAtanFrom gives it. */
  atanXla(x: string): string;
  /** float32 `a * b + c` rounded once (a fused multiply-add). */
  fma(a: string, b: string, c: string): string;
  cast(x: string, from: DType, to: DType): string;
  /** A lane value brought into narrow dtype `dtype`: integers wrap, float16/bfloat16 round to nearest even. */
  narrow(x: string, dtype: DType): string;
  /** Each reduction's start value and its step (`acc ∘ v`). */
  readonly reduce: { readonly [F in ReduceFn]: Reduction };
  /** The lines opening a reduction: the accumulator's declaration, then the loop header over `counter`. */
  reduceLoop(acc: string, init: string, dtype: DType, counter: string, extent: number): string[];
  /** The helper function computing each call's results, a tuple indexed by the call's part. */
  readonly calls: { readonly [F in KCall]: string };
  /**
   * Helpers summing a whole array of 4096 or more float32 elements in the order of XLA's library
   * reduction: `scratch(n)` gives an array the loop stores the summands in, `sum(array, n)` adds them,
   * `columnSum(array, n, k)` adds them as the column of a k-column sum over leading axes; `add(acc, v)`
   * is that library's own float32 step (no flushing), for a column short enough to add in place.
   */
  readonly wideSum?: { readonly scratch: string; readonly sum: string; readonly columnSum: string; add(acc: string, v: string): string };
  /**
   * The same library order without a scratch array, for a dialect whose invocation keeps no long arrays:
   * loops over the summands (the counter of the innermost is `r`), `step(v)` adding summand v, `footer`
   * closing the loops with `acc` set. `cols` as libraryColumns gives it.
   */
  libraryLoops?(acc: string, r: string, id: number, extent: number, cols: number): { header: string[]; step(v: string): string[]; footer: string };
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

/** `precomputed`: reductions whose value the frame computes before the statements (named by an expression of gid). */
export function walkKernel(k: Kernel, d: Dialect, precomputed?: ReadonlyMap<KExpr, string>): WalkedKernel {
  const lets = new LetScopes(d.indent, (name, value) => d.declare(name, value));
  const loaded = new Set<number>();

  const atanFrom = xlaAtanFrom(k);
  const L = laneOf;
  const nar = (v: string, dtype: DType): string => (isNarrow(dtype) ? d.narrow(v, dtype) : v);
  /** The narrow dtype the next reduction rounds each partial result to (a float16 dot's). */
  let stepNarrow: DType | null = null;
  /** float → narrow integer saturates as XLA's convert (NaN → 0): clamp in float32 first. */
  const clampTo = (x: string, t: DTypeInfo): string => {
    const hi = t.kind === 'uint' ? 2 ** t.bits - 1 : 2 ** (t.bits - 1) - 1;
    const lo = t.kind === 'uint' ? 0 : -(2 ** (t.bits - 1));
    return d.binary.min(d.binary.max(x, d.literal(lo, 'float32'), 'float32'), d.literal(hi, 'float32'), 'float32');
  };
  const emit = (e: KExpr): string => {
    switch (e.op) {
      case 'const':
        return d.literal(e.value, L(e.dtype));
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
        return lets.bind(key, d.load(e.input, emit(e.index), L(e.dtype)));
      case 'un': {
        if (e.fn === 'logistic' && isNarrow(e.dtype)) {
          // XLA expands a narrow float's logistic to 1 / (1 + exp(-x)), each step rounded to the narrow type
          const one = d.literal(1, 'float32');
          const ex = nar(d.unary.exp(nar(d.unary.neg(emit(e.x), 'float32', 'float32'), e.dtype), 'float32', 'float32'), e.dtype);
          return lets.bind(key, nar(d.binary.div(one, nar(d.binary.add(one, ex, 'float32'), e.dtype), 'float32'), e.dtype));
        }
        return lets.bind(key, nar(d.unary[e.fn](emit(e.x), L(e.x.dtype), L(e.dtype)), e.dtype));
      }
      case 'bin': {
        const m = e.fma && e[e.fma];
        if (m && m.op === 'bin' && m.fn === 'mul' && (e.fn === 'add' || e.fn === 'sub')) {
          // a fused multiply-add: x*y + z, x*y - z = fma(x, y, -z), z - x*y = fma(-x, y, z)
          const x = emit(m.a);
          const y = emit(m.b);
          const z = emit(e.fma === 'a' ? e.b : e.a);
          const neg = (v: string): string => d.unary.neg(v, 'float32', 'float32');
          if (e.fn === 'add') return lets.bind(key, d.fma(x, y, z));
          return lets.bind(key, e.fma === 'a' ? d.fma(x, y, neg(z)) : d.fma(neg(x), y, z));
        }
        if (e.fn === 'atan2' && e.dtype === 'float32' && atanFrom !== undefined && e.b.op === 'const' && e.b.value === 1) {
          // jnp.arctan, atan2(x, 1): XLA's loop runs its own atan where it does not vectorize the element
          const x = emit(e.a);
          const own = d.atanXla(x);
          if (atanFrom.from === 0) return lets.bind(key, own);
          const glibc = d.binary.atan2(x, emit(e.b), 'float32');
          const at = atanFrom.period === k.output.size ? d.gid : `(${d.binary.rem(d.gid, d.literal(atanFrom.period, 'int32'), 'int32')})`;
          return lets.bind(key, d.select(d.binary.ge(at, d.literal(atanFrom.from, 'int32'), 'int32'), own, glibc));
        }
        let a = emit(e.a);
        const info = DTYPES[e.a.dtype];
        // a logical right shift sees a narrow signed value's own bits, not its sign-extended lane
        if (e.fn === 'shift_right_logical' && info.kind === 'int' && isNarrow(e.a.dtype)) a = d.binary.and(a, d.literal(2 ** info.bits - 1, 'int32'), 'int32');
        return lets.bind(key, nar(d.binary[e.fn](a, emit(e.b), L(e.a.dtype)), e.dtype));
      }
      case 'select': {
        const cond = emit(e.cond);
        if (LANE_SELECT.has(e.dtype) && (hasLoop(e.a) || hasLoop(e.b)) && !topLevelSum(e.a) && !topLevelSum(e.b)) {
          // a select of reductions (the pieces of a fused concatenation): only the chosen one runs
          const res = lets.mutable((name) => mutable(d, name, d.literal(0, e.dtype), e.dtype));
          lets.ifElse(cond, [() => lets.line(`${res} = ${emit(e.a)};`), () => lets.line(`${res} = ${emit(e.b)};`)]);
          lets.alias(key, res);
          return res;
        }
        const a = emit(e.a);
        return lets.bind(key, d.select(cond, a, emit(e.b)));
      }
      case 'cast': {
        const t = DTYPES[e.dtype];
        const x = emit(e.x);
        const from = DTYPES[e.x.dtype];
        if (from.kind === 'float' && (t.kind === 'int' || t.kind === 'uint') && isNarrow(e.dtype)) return lets.bind(key, d.cast(clampTo(x, t), 'float32', L(e.dtype)));
        return lets.bind(key, nar(d.cast(x, L(e.x.dtype), L(e.dtype)), e.dtype));
      }
      case 'reduce': {
        const pre = precomputed?.get(e);
        if (pre !== undefined) return lets.bind(key, nar(pre, e.dtype));
        if (isNarrow(e.dtype)) {
          // the reduction runs in the lane, its result narrowed. XLA's CPU reduces a narrow float
          // in its own type, each partial sum rounded; only a bfloat16 dot multiplies and adds in
          // float32 (its products not rounded either), rounded once at the end
          const b = e.body;
          if (DTYPES[e.dtype].kind === 'float' && !(e.dot && e.dtype === 'bfloat16')) stepNarrow = e.dtype;
          const body = e.dot && b.op === 'bin' && b.fn === 'mul' && e.dtype === 'bfloat16' ? { ...b, dtype: L(b.dtype) } : b;
          return lets.bind(key, d.narrow(emit({ ...e, dtype: L(e.dtype), body }), e.dtype));
        }
        const acc = `acc${e.id}`;
        const r = `r${e.id}`;
        const { init } = d.reduce[e.fn];
        const step = stepNarrow;
        stepNarrow = null;
        const combine = step ? (acc: string, v: string, dt: DType): string => d.narrow(d.reduce[e.fn].combine(acc, v, dt), step) : d.reduce[e.fn].combine;
        const levels = (e.dtype === 'float32' || e.dtype === 'float64') && (e.fn === 'sum' || e.fn === 'prod') && !e.dot && !e.inOrder ? treeLevels(e.extent) : [];
        const cols = libraryColumns(k, e);
        if (d.wideSum && cols !== undefined && shortColumn(e.extent, cols)) {
          // a column of at most one block of the library's order (runtime/cpu/reduce.ts columnSum32) is
          // its in-order sum from zero: added in place, with no scratch array nor call
          const wide = d.wideSum;
          const [decl, head] = d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent) as [string, string];
          lets.loop(reduceLevel(lets, e), [decl, head], () => lets.line(`${acc} = ${wide.add(acc, emit(e.body))};`), { outer: [acc], inner: [r] }, '}');
        } else if (d.wideSum && cols !== undefined && lets.depth === 0) {
          // a sum as XLA's library reduction adds it (a row as a whole array; a column in its own
          // order, which depends on the number of columns): the summands go to a scratch array
          const buf = `sc${e.id}`;
          const [decl, head] = d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent) as [string, string];
          const sum = cols === 1 ? `${d.wideSum.sum}(${buf}, ${e.extent})` : `${d.wideSum.columnSum}(${buf}, ${e.extent}, ${cols})`;
          lets.loop(
            0,
            [decl, d.declare(buf, `${d.wideSum.scratch}(${e.extent})`), head],
            () => lets.line(`${buf}[${r}] = ${emit(e.body)};`),
            { outer: [acc], inner: [r] },
            `}\n${d.indent}${acc} = ${sum};`,
          );
        } else if (d.libraryLoops && cols !== undefined) {
          const { header, step, footer } = d.libraryLoops(acc, r, e.id, e.extent, cols);
          lets.loop(
            reduceLevel(lets, e),
            header,
            () => step(emit(e.body)).forEach((l) => lets.line(l)),
            { outer: [acc], inner: [r] },
            footer.split('\n').join(`\n${d.indent}${'  '.repeat(reduceLevel(lets, e))}`),
          );
        } else if (e.order && !step) {
          // XLA's order for a dot (KExpr's `order`): accumulator a<id>_<i> takes item k mod lanes by fused
          // multiply-adds (w<id>: the lane) up to the last whole vector, tl<id> the items after it; folded
          // into acc<id> after each block (c<id>: items left in it)
          const { lanes, fold, block } = e.order;
          const [decl, head] = d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent) as [string, string];
          const lane = (i: number): string => `a${e.id}_${i}`;
          const w = `w${e.id}`;
          const c = `c${e.id}`;
          const tail = `tl${e.id}`;
          const lit = (v: number): string => d.literal(v, 'int32');
          const blocked = block < e.extent;
          const full = Math.floor(e.extent / lanes) * lanes;
          const decls = [...Array(lanes).keys()].map((i) => mutable(d, lane(i), init(e.dtype), e.dtype));
          if (lanes > 1) decls.push(mutable(d, w, lit(0), 'int32'));
          if (blocked) decls.push(mutable(d, c, lit(block), 'int32'));
          if (full < e.extent) decls.push(mutable(d, tail, init(e.dtype), e.dtype));
          const folds: string[] = [];
          const into = (l: number, h: number): number => folds.push(`${lane(l)} = ${combine(lane(l), lane(l + h), e.dtype)};`);
          if (fold === 'pairs') for (let h = 1; h < lanes; h *= 2) for (let i = 0; i < lanes; i += 2 * h) into(i, h);
          else for (let h = lanes / 2; h >= 1; h /= 2) for (let i = 0; i < h; i++) into(i, h);
          folds.push(`${acc} = ${combine(acc, lane(0), e.dtype)};`);
          if (full < e.extent) folds.push(`${acc} = ${combine(acc, tail, e.dtype)};`);
          const body = e.body;
          lets.loop(
            reduceLevel(lets, e),
            [decl, ...decls, head],
            () => {
              // each product fused into its accumulator (another summand: times 1)
              const [x, y] = body.op === 'bin' && body.fn === 'mul' ? [emit(body.a), emit(body.b)] : [emit(body), d.literal(1, 'float32')];
              const pad = full < e.extent ? '  ' : '';
              if (pad) lets.line(`if (${d.binary.lt(r, lit(full), 'int32')}) {`);
              if (lanes === 1) lets.line(`${pad}${lane(0)} = ${d.fma(x, y, lane(0))};`);
              else {
                for (let i = 0; i < lanes; i++) lets.line(`${pad}if (${d.binary.eq(w, lit(i), 'int32')}) { ${lane(i)} = ${d.fma(x, y, lane(i))}; }`);
                lets.line(`${pad}${w} = ${d.binary.add(w, lit(1), 'int32')};`);
                lets.line(`${pad}if (${d.binary.eq(w, lit(lanes), 'int32')}) { ${w} = ${lit(0)}; }`);
              }
              if (pad) lets.line(`} else { ${tail} = ${d.fma(x, y, tail)}; }`);
              if (blocked) {
                lets.line(`${c} = ${d.binary.sub(c, lit(1), 'int32')};`);
                lets.line(`if (${d.binary.eq(c, lit(0), 'int32')}) {`);
                lets.line(`  ${c} = ${lit(block)};`);
                folds.forEach((l) => lets.line(`  ${l}`));
                for (let i = 0; i < lanes; i++) lets.line(`  ${lane(i)} = ${init(e.dtype)};`);
                lets.line(`}`);
              }
            },
            { outer: [acc], inner: [r] },
            ['}', ...(blocked && e.extent % block === 0 ? [] : folds)].join(`\n${d.indent}${'  '.repeat(reduceLevel(lets, e))}`),
          );
        } else if (e.lanes && !step) {
          // XLA's vectorized sum of a small matrix (KExpr's `lanes`): vector lanes l<id>_i, w<id> the one
          // taking the next row, q<id> counts the elements left in the current row
          const { vf, row } = e.lanes;
          const [decl, head] = d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent) as [string, string];
          const lane = (i: number): string => `l${e.id}_${i}`;
          const w = `w${e.id}`;
          const q = `q${e.id}`;
          const lit = (v: number): string => d.literal(v, 'int32');
          const decls = [...Array(vf).keys()].map((i) => mutable(d, lane(i), init(e.dtype), e.dtype));
          decls.push(mutable(d, w, lit(0), 'int32'), mutable(d, q, lit(row), 'int32'));
          const fold: string[] = [];
          for (let h = vf / 2; h >= 1; h /= 2) for (let i = 0; i < h; i++) fold.push(`${lane(i)} = ${combine(lane(i), lane(i + h), e.dtype)};`);
          fold.push(`${acc} = ${lane(0)};`);
          lets.loop(
            reduceLevel(lets, e),
            [decl, ...decls, head],
            () => {
              const v = emit(e.body);
              for (let i = 0; i < vf; i++) lets.line(`if (${d.binary.eq(w, lit(i), 'int32')}) { ${lane(i)} = ${combine(lane(i), v, e.dtype)}; }`);
              lets.line(`${q} = ${d.binary.sub(q, lit(1), 'int32')};`);
              lets.line(`if (${d.binary.eq(q, lit(0), 'int32')}) {`);
              lets.line(`  ${q} = ${lit(row)};`);
              lets.line(`  ${w} = ${d.binary.add(w, lit(1), 'int32')};`);
              lets.line(`  if (${d.binary.eq(w, lit(vf), 'int32')}) { ${w} = ${lit(0)}; }`);
              lets.line(`}`);
            },
            { outer: [acc], inner: [r] },
            ['}', ...fold].join(`\n${d.indent}${'  '.repeat(reduceLevel(lets, e))}`),
          );
        } else if (levels.length === 0) {
          lets.loop(
            reduceLevel(lets, e),
            d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent),
            () => {
              // a fused product accumulates with one rounding (XLA's loop, contracted by LLVM)
              const b = e.body;
              if (e.fma && b.op === 'bin' && b.fn === 'mul') {
                const x = emit(b.a);
                lets.line(`${acc} = ${d.fma(x, emit(b.b), acc)};`);
              } else lets.line(`${acc} = ${combine(acc, emit(e.body), e.dtype)};`);
            },
            { outer: [acc], inner: [r] },
          );
        } else {
          // XLA's tree reduction (see treeLevels): partial p<id>_<l> sums the open window of
          // level l, c<id>_<l> counts the items that window still takes
          const [decl, head] = d.reduceLoop(acc, init(e.dtype), e.dtype, r, e.extent) as [string, string];
          const p = (l: number): string => `p${e.id}_${l}`;
          const c = (l: number): string => `c${e.id}_${l}`;
          const up = (l: number): string => (l + 1 < levels.length ? p(l + 1) : acc);
          const decls = levels.flatMap((lo, l) => [
            mutable(d, p(l), init(e.dtype), e.dtype),
            mutable(d, c(l), d.literal(TREE_WINDOW - lo, 'int32'), 'int32'),
          ]);
          // after the loop, the open windows flush upwards (a flushed partial is the identity again)
          const flush = levels.map((_, l) => `${up(l)} = ${combine(up(l), p(l), e.dtype)};`);
          lets.loop(
            reduceLevel(lets, e),
            [decl, ...decls, head],
            () => {
              lets.line(`${p(0)} = ${combine(p(0), emit(e.body), e.dtype)};`);
              const close = (l: number, pad: string): void => {
                lets.line(`${pad}${c(l)} = ${d.binary.sub(c(l), d.literal(1, 'int32'), 'int32')};`);
                lets.line(`${pad}if (${d.binary.eq(c(l), d.literal(0, 'int32'), 'int32')}) {`);
                lets.line(`${pad}  ${c(l)} = ${d.literal(TREE_WINDOW, 'int32')};`);
                lets.line(`${pad}  ${up(l)} = ${combine(up(l), p(l), e.dtype)};`);
                lets.line(`${pad}  ${p(l)} = ${init(e.dtype)};`);
                if (l + 1 < levels.length) close(l + 1, `${pad}  `);
                lets.line(`${pad}}`);
              };
              close(0, '');
            },
            { outer: [acc], inner: [r] },
            ['}', ...flush].join(`\n${d.indent}${'  '.repeat(reduceLevel(lets, e))}`),
          );
        }
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

  /** Whether `e` runs a reduction loop of its own (not one the frame computed before). */
  const loops = new Map<KExpr, boolean>();
  const hasLoop = (e: KExpr): boolean => {
    let v = loops.get(e);
    if (v !== undefined) return v;
    switch (e.op) {
      case 'const': case 'gid': case 'rvar': case 'device': v = false; break;
      case 'load': v = hasLoop(e.index); break;
      case 'un': case 'cast': v = hasLoop(e.x); break;
      case 'bin': v = hasLoop(e.a) || hasLoop(e.b); break;
      case 'select': v = hasLoop(e.cond) || hasLoop(e.a) || hasLoop(e.b); break;
      case 'call': v = e.args.some(hasLoop); break;
      case 'reduce': v = !precomputed?.has(e); break;
    }
    loops.set(e, v);
    return v;
  };

  /** Whether `e` holds a sum XLA hands to its library, which the CPU dialect adds at the kernel's top level (wideSum above). */
  const tops = new Map<KExpr, boolean>();
  const topLevelSum = (e: KExpr): boolean => {
    let v = tops.get(e);
    if (v !== undefined) return v;
    switch (e.op) {
      case 'const': case 'gid': case 'rvar': case 'device': v = false; break;
      case 'load': v = topLevelSum(e.index); break;
      case 'un': case 'cast': v = topLevelSum(e.x); break;
      case 'bin': v = topLevelSum(e.a) || topLevelSum(e.b); break;
      case 'select': v = topLevelSum(e.cond) || topLevelSum(e.a) || topLevelSum(e.b); break;
      case 'call': v = e.args.some(topLevelSum); break;
      case 'reduce': {
        const cols = libraryColumns(k, e);
        v = (!precomputed?.has(e) && d.wideSum !== undefined && cols !== undefined && !shortColumn(e.extent, cols)) || topLevelSum(e.body);
        break;
      }
    }
    tops.set(e, v);
    return v;
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

/** The lane types a select of reductions may branch on (its result is a mutable of that type). */
const LANE_SELECT = new Set<DType>(['float32', 'int32', 'uint32']);

/** The rows of the library's first block in a column sum (runtime/cpu/reduce.ts columnSum32). */
const COLUMN_BLOCK = 4;

/** Whether a library sum of `extent` summands in `cols` columns is a column within one block: its in-order sum. */
const shortColumn = (extent: number, cols: number): boolean => cols > 1 && extent <= COLUMN_BLOCK;

/** JAX's CPU build hands a reduction of this many elements or more to its library (YNNPACK). */
const WIDE_SUM = 4096;

/**
 * How XLA's CPU build adds reduction `e` of kernel `k` in its library (YNNPACK), if it does: 1 when each
 * result is a row (or the whole array) added as a whole-array sum (runtime/cpu/reduce.ts wideSum32), k > 1
 * when each result is a column of a sum over leading or middle axes, its elements k apart (columnSum32),
 * undefined when XLA's own loop adds it (treeLevels). See KExpr's `lib`. Both backends add it in that
 * order: the CPU backend through the dialect's wideSum helpers, WGSL through its libraryLoops.
 */
export function libraryColumns(k: Kernel, e: Extract<KExpr, { op: 'reduce' }>): number | undefined {
  if (e.fn !== 'sum' || e.dot || e.dtype !== 'float32') return undefined;
  return k.output.size === 1 && e.extent >= WIDE_SUM ? 1 : e.lib;
}

/** The window of XLA's TreeReductionRewriter (the CPU compiler's `reduce_window_size`). */
const TREE_WINDOW = 32;

/**
 * How XLA's CPU compiler sums (or multiplies) along a dimension longer than 32:
 * its TreeReductionRewriter, run to a fixed point, turns the reduction into
 * reduce_windows of 32 with stride 32 and SAME padding (the padding split
 * low/high, the low half rounded down), each window summed in order from the
 * identity, then the ≤ 32 results of the last level in order. One entry per
 * level: the low padding (zeros) in front of its first window. Empty for 32 or
 * fewer elements (a plain loop).
 */
export function treeLevels(extent: number): number[] {
  const levels: number[] = [];
  for (let n = extent; n > TREE_WINDOW; ) {
    const out = Math.ceil(n / TREE_WINDOW);
    levels.push(Math.floor((out * TREE_WINDOW - n) / 2));
    n = out;
  }
  return levels;
}

/**
 * Which output elements XLA CPU computes jnp.arctan (atan2(x, 1)) of with its own `xla.atan.f32` rather than
 * glibc's atanf: element i does when i mod `period` >= `from`; undefined: none. Its loop-fusion emitter turns
 * atan2(x, 1) into a call of xla.atan.f32, which LLVM inlines; where LLVM's loop vectorizer widens the loop,
 * the vector lanes call atanf. Measured on the oracle (JAX 0.10.2, AVX2 host) for a lone arctan:
 * - a flat array of n elements: n = 1 calls atanf; from 2 to 49 LLVM unrolls the loop fully (n times a body
 *   of about 6 instructions, under its threshold of 300) and every element runs xla.atan.f32; from 50 on the
 *   loop is vectorized (by 8, with an epilogue of 4) and the last n mod 4 elements run the scalar loop;
 * - a matrix of R rows of C: from C = 40 on the inner loop is vectorized as a flat one (the last C mod 4 of
 *   each row scalar); below, the inner loop is unrolled and the loop over rows is vectorized when R is 4 or
 *   8 (all atanf) and not at all for the other R below 16 (all xla.atan.f32);
 * - three or more dimensions of up to 120 elements: all xla.atan.f32.
 * Not modelled (atanf): matrices of 16 or more rows of fewer than 40 columns (the vectorizer's choices
 * there vary with R), larger arrays of three or more dimensions, reductions (another emitter), and the
 * lower unroll threshold of a fusion with more operations in it.
 */
export function xlaAtanFrom(k: Kernel): { period: number; from: number } | undefined {
  const shape = k.shape;
  const n = k.output.size;
  if (!shape || n <= 1 || hasReduce(k.body)) return undefined;
  const all = { period: n, from: 0 };
  const tail = (m: number): { period: number; from: number } | undefined => (m % 4 === 0 ? undefined : { period: m, from: m - (m % 4) });
  if (shape.length <= 1) return n * XLA_LOOP_BODY_COST < XLA_FULL_UNROLL_THRESHOLD ? all : tail(n);
  if (shape.length > 2) return n <= 120 ? all : undefined;
  const [rows, cols] = shape as [number, number];
  if (cols >= 40) return tail(cols);
  return rows === 4 || rows === 8 || rows >= 16 ? undefined : all;
}
const XLA_LOOP_BODY_COST = 6;
const XLA_FULL_UNROLL_THRESHOLD = 300;

function hasReduce(root: KExpr): boolean {
  const seen = new Set<KExpr>();
  const walk = (e: KExpr): boolean => {
    if (seen.has(e)) return false;
    seen.add(e);
    switch (e.op) {
      case 'reduce':
        return true;
      case 'load':
        return walk(e.index);
      case 'un':
      case 'cast':
        return walk(e.x);
      case 'bin':
        return walk(e.a) || walk(e.b);
      case 'select':
        return walk(e.cond) || walk(e.a) || walk(e.b);
      case 'call':
        return e.args.some(walk);
      default:
        return false;
    }
  };
  return walk(root);
}

/** A mutable variable's declaration: the first line the dialect opens a reduction with (`let`/`var`). */
function mutable(d: Dialect, name: string, init: string, dtype: DType): string {
  return d.reduceLoop(name, init, dtype, '_', 0)[0]!;
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
export function computesOnFloats(root: KExpr): boolean {
  // kernel trees share subtrees (integer_pow's squarings): each node is looked at once
  const seen = new Set<KExpr>();
  const walk = (e: KExpr): boolean => {
    if (seen.has(e)) return false;
    seen.add(e);
    switch (e.op) {
      case 'const':
      case 'gid':
      case 'rvar':
      case 'device':
        return false;
      case 'load':
        return walk(e.index);
      case 'un':
        return (e.x.dtype === 'float32' && !['neg', 'abs', 'bitcast_convert_type'].includes(e.fn)) || walk(e.x);
      case 'bin':
        return e.a.dtype === 'float32' || walk(e.a) || walk(e.b);
      case 'select':
        return walk(e.cond) || walk(e.a) || walk(e.b);
      case 'cast':
        return e.x.dtype === 'float32' || walk(e.x);
      case 'call':
        return e.args.some(walk);
      case 'reduce':
        return e.dtype === 'float32' || walk(e.body);
    }
  };
  return walk(root);
}
