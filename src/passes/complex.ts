// Complex numbers before the kernels: every complex64 value of a per-device
// program becomes two float32 values (its real and imaginary parts), and
// every equation on complex values becomes the float32 equations that
// compute the parts (XLA's elemental emitter does the same expansion). A
// complex64 program parameter or result is one buffer of interleaved
// (re, im) float32 pairs: inside the program it is a float32 array with a
// trailing axis of 2, sliced into its parts on entry and concatenated on
// exit. Kernels and both dialects therefore never see complex64.
import { FuncBuilder, lit } from '../ir/builder.js';
import type { Prim } from '../ir/prims.js';
import type { Atom, AVal, Eqn, Func, Params } from '../ir/types.js';

/** A complex value as its two float32 parts. */
interface Parts {
  re: Atom;
  im: Atom;
}

const isComplexAtom = (a: Atom): boolean => a.aval.dtype === 'complex64';

/** Does `f` compute with complex values anywhere (parameters, equations, results)? */
export function hasComplex(f: Func): boolean {
  return f.params.some(isComplexAtom) || f.results.some(isComplexAtom) || f.eqns.some((e) => e.inputs.some(isComplexAtom) || e.outputs.some(isComplexAtom));
}

/** Primitives that act on the real and imaginary parts separately, with the same params (linear, or only moving elements). */
const PARTWISE: ReadonlySet<Prim> = new Set<Prim>([
  'neg', 'add', 'sub', 'copy', 'stop_gradient', 'sharding_constraint', 'broadcast_in_dim', 'reshape', 'transpose', 'squeeze', 'rev',
  'slice', 'pad', 'concatenate', 'dynamic_slice', 'gather', 'reduce_sum', 'psum', 'all_gather', 'psum_scatter', 'ppermute', 'all_to_all',
]);

/** `f` with its complex values split into float32 parts (the identity on a program without complex values). */
export function splitComplex(f: Func): Func {
  if (!hasComplex(f)) return f;
  const b = new FuncBuilder(f.name);
  const env = new Map<number, Atom | Parts>();
  const f32 = (shape: readonly number[]): AVal => ({ shape, dtype: 'float32' });
  const op = (prim: Prim, inputs: Atom[], params: Params = {}): Atom => b.bind1(prim, inputs, params);
  for (const p of f.params) {
    if (!isComplexAtom(p)) {
      env.set(p.id, b.addParam(p.aval, p.hint));
      continue;
    }
    const shape = p.aval.shape;
    const pairs = b.addParam(f32([...shape, 2]), p.hint);
    const part = (k: number): Atom =>
      op('reshape', [op('slice', [pairs], { start_indices: [...shape.map(() => 0), k], limit_indices: [...shape, k + 1], strides: null })], { new_sizes: [...shape], dimensions: null });
    env.set(p.id, { re: part(0), im: part(1) });
  }
  const read = (a: Atom): Atom | Parts => {
    if (a.kind === 'lit') return isComplexAtom(a) ? { re: lit(a.value, 'float32', a.aval.weak), im: lit(0, 'float32', a.aval.weak) } : a;
    const v = env.get(a.id);
    if (!v) throw new Error(`internal: var ${a.id} read before it is computed`);
    return v;
  };
  for (const e of f.eqns) {
    const ins = e.inputs.map(read);
    const outs = e.outputs;
    if (!ins.some(isParts) && !outs.some(isComplexAtom)) {
      const rs = b.bind(e.prim, ins as Atom[], e.params, e.span);
      if (e.transposed) b.eqns[b.eqns.length - 1]!.transposed = true;
      outs.forEach((o, i) => env.set(o.id, rs[i]!));
      continue;
    }
    env.set(outs[0]!.id, expand(e, ins, op));
  }
  const results = f.results.map((r) => {
    const v = read(r);
    // (a part of a literal, such as jnp.real(1.5 + 0.5j), is a literal: a result must be a variable)
    if (!isParts(v)) return v.kind === 'lit' ? full(op, v, r.aval.shape) : v;
    const shape = r.aval.shape;
    const col = (x: Atom): Atom => op('broadcast_in_dim', [x], { shape: [...shape, 1], broadcast_dimensions: shape.map((_, i) => i) });
    return op('concatenate', [col(full(op, v.re, shape)), col(full(op, v.im, shape))], { dimension: shape.length });
  });
  return b.finish(results, f.axisEnv);
}

function isParts(v: Atom | Parts): v is Parts {
  return 're' in v;
}

type Op = (prim: Prim, inputs: Atom[], params?: Params) => Atom;

/** A literal operand as an array of `shape` (a program result must be a computed array). */
function full(op: Op, a: Atom, shape: readonly number[]): Atom {
  return a.kind === 'lit' ? op('broadcast_in_dim', [a], { shape: [...shape], broadcast_dimensions: [] }) : a;
}

/** The parts of one equation's complex result (or its float32 result, for real/imag/abs/eq/ne/convert). */
function expand(e: Eqn, ins: (Atom | Parts)[], op: Op): Atom | Parts {
  const out = e.outputs[0]!;
  const shape = out.aval.shape;
  /** A float32 constant of the result's shape (binary primitives take operands of one shape). */
  const k = (v: number): Atom => full(op, lit(v, 'float32'), shape);
  const zero = (): Atom => k(0);
  const parts = (v: Atom | Parts): Parts => (isParts(v) ? v : { re: v, im: zero() });
  const [x, y] = ins.map(parts) as [Parts, Parts];
  const mul = (a: Atom, c: Atom): Atom => op('mul', [a, c]);
  const add = (a: Atom, c: Atom): Atom => op('add', [a, c]);
  const sub = (a: Atom, c: Atom): Atom => op('sub', [a, c]);
  const div = (a: Atom, c: Atom): Atom => op('div', [a, c]);
  const un = (prim: Prim, a: Atom): Atom => op(prim, [a]);
  const cmul = (p: Parts, q: Parts): Parts => ({ re: sub(mul(p.re, q.re), mul(p.im, q.im)), im: add(mul(p.re, q.im), mul(p.im, q.re)) });
  const abs = (p: Parts): Atom => un('sqrt', add(mul(p.re, p.re), mul(p.im, p.im)));
  const select = (pred: Atom, onTrue: Atom, onFalse: Atom): Atom => op('select_n', [pred, onFalse, onTrue]);
  /** Smith's division, as XLA's EmitComplexDivide scales by the larger part of the divisor. */
  const cdiv = (p: Parts, q: Parts): Parts => {
    const small = op('lt', [un('abs', q.re), un('abs', q.im)]);
    // |q.re| < |q.im|: ratio = q.re / q.im, denom = q.im + q.re * ratio
    const r1 = div(q.re, q.im);
    const d1 = add(q.im, mul(q.re, r1));
    const re1 = div(add(mul(p.re, r1), p.im), d1);
    const im1 = div(sub(mul(p.im, r1), p.re), d1);
    // else: ratio = q.im / q.re, denom = q.re + q.im * ratio
    const r2 = div(q.im, q.re);
    const d2 = add(q.re, mul(q.im, r2));
    const re2 = div(add(p.re, mul(p.im, r2)), d2);
    const im2 = div(sub(p.im, mul(p.re, r2)), d2);
    return { re: select(small, re1, re2), im: select(small, im1, im2) };
  };
  const exp = (p: Parts): Parts => {
    const m = un('exp', p.re);
    return { re: mul(m, un('cos', p.im)), im: mul(m, un('sin', p.im)) };
  };
  const log = (p: Parts): Parts => ({ re: un('log', abs(p)), im: op('atan2', [p.im, p.re]) });
  const coshSinh = (v: Atom): [Atom, Atom] => {
    const half = k(0.5);
    const nv = un('neg', v);
    return [mul(half, add(un('exp', v), un('exp', nv))), mul(half, sub(un('expm1', v), un('expm1', nv)))];
  };
  switch (e.prim) {
    case 'complex':
      return { re: ins[0] as Atom, im: ins[1] as Atom };
    case 'real':
      return x.re;
    case 'imag':
      return x.im;
    case 'conj':
      return { re: x.re, im: un('neg', x.im) };
    case 'abs':
      return abs(x);
    case 'mul':
      return cmul(x, y);
    case 'div':
      return cdiv(x, y);
    case 'exp':
      return exp(x);
    case 'log':
      return log(x);
    case 'pow':
      return exp(cmul(y, log(x)));
    case 'sin': {
      const [ch, sh] = coshSinh(x.im);
      return { re: mul(un('sin', x.re), ch), im: mul(un('cos', x.re), sh) };
    }
    case 'cos': {
      const [ch, sh] = coshSinh(x.im);
      return { re: mul(un('cos', x.re), ch), im: un('neg', mul(un('sin', x.re), sh)) };
    }
    case 'sqrt': {
      // the principal root: t = sqrt((|z| + |re|) / 2); re >= 0: (t, im / 2t), else (|im| / 2t, t with im's sign)
      const m = abs(x);
      const t = un('sqrt', mul(k(0.5), add(m, un('abs', x.re))));
      const q = div(x.im, add(t, t));
      const nonneg = op('ge', [x.re, k(0)]);
      const signed = select(op('lt', [x.im, k(0)]), un('neg', t), t);
      const isZero = op('eq', [m, k(0)]);
      return { re: select(isZero, k(0), select(nonneg, t, un('abs', q))), im: select(isZero, x.im, select(nonneg, q, signed)) };
    }
    case 'integer_pow': {
      const n = e.params['y'] as number;
      let acc: Parts | null = null;
      let base = x;
      for (let k = Math.abs(n); k > 0; k >>= 1) {
        if (k & 1) acc = acc ? cmul(acc, base) : base;
        if (k > 1) base = cmul(base, base);
      }
      const one: Parts = { re: k(1), im: zero() };
      const r = acc ?? one;
      return n < 0 ? cdiv(one, r) : r;
    }
    case 'eq':
      return op('and', [op('eq', [x.re, y.re]), op('eq', [x.im, y.im])]);
    case 'ne':
      return op('or', [op('ne', [x.re, y.re]), op('ne', [x.im, y.im])]);
    case 'select_n': {
      const pred = ins[0] as Atom;
      const cases = ins.slice(1).map(parts);
      return { re: op('select_n', [pred, ...cases.map((c) => c.re)]), im: op('select_n', [pred, ...cases.map((c) => c.im)]) };
    }
    case 'convert_element_type': {
      const to = e.params['new_dtype'];
      if (to === 'complex64') {
        if (isParts(ins[0]!)) return ins[0]!;
        const re = op('convert_element_type', [ins[0] as Atom], { new_dtype: 'float32', weak_type: false });
        return { re, im: full(op, zero(), shape) };
      }
      // complex → real: the real part (JAX warns that the imaginary part is discarded)
      return to === 'float32' ? x.re : op('convert_element_type', [x.re], e.params);
    }
    case 'dot_general': {
      const d = (a: Atom, c: Atom): Atom => op('dot_general', [a, c], e.params);
      if (!isParts(ins[1]!)) return { re: d(x.re, ins[1] as Atom), im: d(x.im, ins[1] as Atom) };
      if (!isParts(ins[0]!)) return { re: d(ins[0] as Atom, y.re), im: d(ins[0] as Atom, y.im) };
      return { re: sub(d(x.re, y.re), d(x.im, y.im)), im: add(d(x.re, y.im), d(x.im, y.re)) };
    }
  }
  if (PARTWISE.has(e.prim) && e.outputs.length === 1) {
    // complex operands by their parts; index operands (dynamic_slice, gather) as they are
    const pick = (k: 're' | 'im'): Atom[] => ins.map((v) => (isParts(v) ? v[k] : v));
    return { re: op(e.prim, pick('re'), e.params), im: op(e.prim, pick('im'), e.params) };
  }
  throw new Error(`NotImplementedError: jaxts does not compute ${e.prim} on complex64 values yet`);
}
