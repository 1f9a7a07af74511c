// jax.test_util.check_grads: JAX's numerical check of forward- and
// reverse-mode derivatives (jax/_src/public_test_util.py), step for step:
// random tangents and cotangents from NumPy's RandomState(0) (drawn at
// compile time, as NumPy draws them), central differences with eps = 1e-4,
// and `np.testing.assert_allclose` with JAX's float32 gradient tolerance
// (2e-3, scaled by the array size). The values exist only at run time, so
// each comparison becomes a run-time check raising AssertionError.
import { CompileError } from '../common/diagnostics.js';
import { lit } from '../ir/builder.js';
import type { Atom } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { MT19937 } from '../../runtime/numpy/mt19937.js';
import { flatten, jvpCall, vjpCall } from './transforms.js';
import { NdArray, PyBuiltin, PyList, PyTuple, Tracer, type CallArgs, type PyValue } from './values.js';

const EPS = 1e-4;
/** JAX's default_gradient_tolerance for float32. */
const F32_TOL = 2e-3;

interface Tols {
  atol: number | null;
  rtol: number | null;
  eps: number;
}

/** jax.test_util.check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None) */
export function checkGrads(ip: Interp, c: CallArgs): PyValue {
  const span = c.span;
  if (!ip.atHost) throw new CompileError('check_grads inside a transformed function is not supported: its checks run on concrete values', span);
  const get = (name: string, i: number): PyValue | undefined => c.kwargs.get(name) ?? c.args[i];
  const f = get('f', 0);
  const argsV = get('args', 1);
  const orderV = get('order', 2);
  if (f === undefined || argsV === undefined || orderV === undefined) throw new CompileError("TypeError: check_grads() missing required positional arguments: 'f', 'args' and 'order'", span);
  if (!(argsV instanceof PyTuple || argsV instanceof PyList)) throw new CompileError('TypeError: check_grads args must be a tuple or list', span);
  const order = Number(ip.static(orderV, 'the derivative order', span));
  const modesV = get('modes', 3) ?? new PyTuple(['fwd', 'rev']);
  const modes = modesV instanceof PyTuple || modesV instanceof PyList ? modesV.items : [modesV];
  const num = (v: PyValue | undefined): number | null => (v === undefined || v === null ? null : Number(ip.static(v, 'a tolerance', span)));
  const tols: Tols = { atol: num(get('atol', 4)), rtol: num(get('rtol', 5)), eps: num(get('eps', 6)) || EPS };
  // values of the checks live in this function, not in Python variables: held, so that calling a jitted
  // `f` (which flushes the pending host segment) keeps them
  return ip.holding((hold) => {
    const checks = new Checks(ip, span, tols, hold);

    const rec = (fn: PyValue, args: PyValue[], ord: number, msg: string): void => {
      if (modes.includes('fwd')) {
        const fwdMsg = msg ? `JVP of ${msg}` : 'JVP';
        checks.jvp(fn, args, fwdMsg);
        checks.emit();
        if (ord > 1) {
          const jfn = new PyBuiltin('jvp', (cc) => jvpCall(ip, { args: [fn, cc.args[0]!, cc.args[1]!], kwargs: new Map(), span }));
          rec(jfn, [new PyTuple(args), new PyTuple(args)], ord - 1, fwdMsg);
        }
      }
      if (modes.includes('rev')) {
        const revMsg = msg ? `VJP of ${msg}` : 'VJP';
        checks.vjp(fn, args, revMsg);
        checks.emit();
        if (ord > 1) {
          const vfn = new PyBuiltin('f_vjp', (cc) => {
            const [out, pull] = (vjpCall(ip, { args: [fn, ...cc.args], kwargs: new Map(), span }) as PyTuple).items;
            return ip.call(pull!, { args: [out!], kwargs: new Map(), span });
          });
          rec(vfn, args, ord - 1, revMsg);
        }
      }
    };
    rec(f, argsV.items, order, '');
    return null;
  });
}

class Checks {
  private readonly pending: { ok: Tracer; message: string }[] = [];
  constructor(
    private readonly ip: Interp,
    private readonly span: A.Span,
    private readonly tols: Tols,
    private readonly hold: <V extends PyValue>(v: V) => V,
  ) {}

  private call(fn: PyValue, args: PyValue[]): PyValue {
    return this.hold(this.ip.call(fn, { args: args.map(this.hold), kwargs: new Map(), span: this.span }));
  }

  /** rand_like: rng.randn(*shape) as the leaf's dtype (float32); a Python scalar stays one. */
  private randLike(rng: MT19937, tree: PyValue): PyValue {
    const fl = flatten(tree);
    return fl.unflatten(
      fl.leaves.map((l) => {
        if (typeof l === 'number') return Math.fround(rng.gauss());
        const shape = [...this.ip.ops.aval(l, this.span).shape];
        const n = shape.reduce((a, b) => a * b, 1);
        return new NdArray(shape, 'float32', Array.from({ length: n }, () => Math.fround(rng.gauss())));
      }),
    );
  }

  private leafwise(xs: PyValue, ys: PyValue | null, f: (x: PyValue, y: PyValue | null) => PyValue): PyValue {
    const fx = flatten(xs);
    const ly = ys === null ? null : flatten(ys).leaves;
    return fx.unflatten(fx.leaves.map((x, i) => f(x, ly ? ly[i]! : null)));
  }

  private bin(prim: 'add' | 'sub' | 'mul', x: PyValue, y: PyValue): PyValue {
    return this.ip.ops.binary(prim, x, y, this.span);
  }

  private scalarMul(xs: PyValue, a: number): PyValue {
    return this.leafwise(xs, null, (x) => this.bin('mul', x, this.ip.ops.asArray(a, this.span, 'float32')));
  }

  /** numerical_jvp: (f(x + eps t) - f(x - eps t)) * (0.5 / eps), with inf - inf = 0. */
  private numericalJvp(fn: PyValue, primals: PyValue[], tangents: PyValue[]): PyValue {
    const eps = this.tols.eps;
    const delta = this.scalarMul(new PyTuple(tangents), eps) as PyTuple;
    const plus = this.hold(this.leafwise(new PyTuple(primals), delta, (x, d) => this.bin('add', x, d!)) as PyTuple);
    const minus = this.hold(this.leafwise(new PyTuple(primals), delta, (x, d) => this.bin('sub', x, d!)) as PyTuple);
    const fPos = this.call(fn, plus.items);
    const fNeg = this.call(fn, minus.items);
    const diff = this.leafwise(fPos, fNeg, (x, y) => {
      const o = this.ip.ops;
      const a = o.asArray(x, this.span);
      const b = o.asArray(y!, this.span);
      const eq = o.bind('eq', [a.atom, b.atom], {}, this.span);
      const zero = o.bind('broadcast_in_dim', [lit(0, a.aval.dtype)], { shape: [...a.aval.shape], broadcast_dimensions: [] }, this.span);
      return o.tracer(o.bind('select_n', [eq, o.bind('sub', [a.atom, b.atom], {}, this.span), zero], {}, this.span));
    });
    return this.scalarMul(diff, 0.5 / eps);
  }

  /** inner_prod: sum over leaves of dot(x.ravel(), y.ravel()). */
  private innerProd(xs: PyValue, ys: PyValue): Tracer {
    const lx = flatten(xs).leaves;
    const ly = flatten(ys).leaves;
    const o = this.ip.ops;
    let acc: Tracer | null = null;
    lx.forEach((x, i) => {
      const a = o.reshape(o.asArray(x, this.span), [-1], this.span);
      const b = o.reshape(o.asArray(ly[i]!, this.span), [-1], this.span);
      const d = o.dot(a, b, this.span);
      acc = acc ? (o.binary('add', acc, d, this.span) as Tracer) : d;
    });
    return acc ?? o.asArray(0.0, this.span);
  }

  /** check_close: np.testing.assert_allclose(a, b, atol=tol * a.size, rtol=tol * b.size) per leaf, at run time. */
  private close(xs: PyValue, ys: PyValue, msg: string): void {
    const lx = flatten(xs).leaves;
    const ly = flatten(ys).leaves;
    const o = this.ip.ops;
    const s = this.span;
    lx.forEach((x, i) => {
      const a = o.asArray(x, s, 'float32');
      const b = o.asArray(ly[i]!, s, 'float32');
      const shape = [...a.aval.shape];
      const n = shape.reduce((p, q) => p * q, 1);
      const atol = (this.tols.atol ?? F32_TOL) * n;
      const rtol = (this.tols.rtol ?? F32_TOL) * n;
      const k = (v: number): Atom => o.bind('broadcast_in_dim', [lit(v, 'float32')], { shape, broadcast_dimensions: [] }, s);
      const err = o.bind('abs', [o.bind('sub', [a.atom, b.atom], {}, s)], {}, s);
      const bound = o.bind('add', [k(atol), o.bind('mul', [k(rtol), o.bind('abs', [b.atom], {}, s)], {}, s)], {}, s);
      const within = o.bind('le', [err, bound], {}, s);
      // equal values (infinities of one sign) and NaNs in the same places pass, as in assert_allclose
      const same = o.bind('eq', [a.atom, b.atom], {}, s);
      const nans = o.bind('and', [o.bind('ne', [a.atom, a.atom], {}, s), o.bind('ne', [b.atom, b.atom], {}, s)], {}, s);
      const ok = o.bind('or', [o.bind('or', [within, same], {}, s), nans], {}, s);
      const bad = o.bind('convert_element_type', [o.bind('not', [ok], {}, s)], { new_dtype: 'float32', weak_type: false }, s);
      const nBad = shape.length ? o.bind('reduce_sum', [bad], { axes: shape.map((_, d) => d), out_sharding: null }, s) : bad;
      const allOk = o.tracer(o.bind('eq', [nBad, lit(0, 'float32')], {}, s));
      this.pending.push({ ok: this.hold(allOk), message: `\nNot equal to tolerance rtol=${pyNum(rtol)}, atol=${pyNum(atol)}\n${msg}` });
    });
  }

  /** The run-time checks of one check_jvp / check_vjp, in order, after the program computing them. */
  emit(): void {
    const pending = this.pending.splice(0);
    this.ip.flush(pending.map((p) => p.ok));
    for (const p of pending) {
      const h = this.ip.hostArray(p.ok, this.span);
      this.ip.emit({
        k: 'expr',
        e: { k: 'call', callee: 'jx.assertTrue', args: [{ k: 'call', callee: 'jx.item', args: [{ k: 'var', name: h.name }], await: true }, { k: 'lit', value: p.message }] },
      });
    }
  }

  jvp(fn: PyValue, args: PyValue[], msg: string): void {
    const rng = seeded();
    const tangent = this.randLike(rng, new PyTuple(args)) as PyTuple;
    const [vOut, tOut] = this.hold(jvpCall(this.ip, { args: [fn, new PyTuple(args), tangent], kwargs: new Map(), span: this.span }) as PyTuple).items;
    const vExpected = this.call(fn, args);
    const tExpected = this.numericalJvp(fn, args, tangent.items);
    this.close(vOut!, vExpected, `${msg} primal`);
    this.close(tOut!, tExpected, `${msg} tangent`);
  }

  vjp(fn: PyValue, args: PyValue[], msg: string): void {
    const rng = seeded();
    const [vOut, pull] = this.hold(vjpCall(this.ip, { args: [fn, ...args], kwargs: new Map(), span: this.span }) as PyTuple).items;
    const vExpected = this.call(fn, args);
    this.close(vOut!, vExpected, `${msg} primal`);
    const tangent = this.randLike(rng, new PyTuple(args)) as PyTuple;
    const tangentOut = this.numericalJvp(fn, args, tangent.items);
    const cotangent = this.randLike(rng, vOut!);
    const cotangentOut = this.call(pull!, [cotangent]);
    const ip = this.innerProd(tangent, cotangentOut);
    const ipExpected = this.innerProd(tangentOut, cotangent);
    this.close(ip, ipExpected, `${msg} cotangent projection`);
  }
}

/** np.random.RandomState(0) */
function seeded(): MT19937 {
  const r = new MT19937();
  r.seed(0);
  return r;
}

/** A float as Python's repr writes it (0.006, 1e-05). */
function pyNum(v: number): string {
  const s = String(v);
  return s.includes('e') ? s.replace(/e([+-])(\d)$/, 'e$10$2') : s.includes('.') ? s : `${s}.0`;
}
