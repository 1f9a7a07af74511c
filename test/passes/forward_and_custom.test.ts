// Forward mode (jvpFunc), VJPs with cotangent parameters, and custom calls:
// forward and reverse mode agree on a Jacobian; a custom_jvp_call's rule and
// a custom_vjp_call's backward function replace the primitive derivatives.
import { describe, expect, it } from 'vitest';
import { FuncBuilder } from '../../src/ir/builder.js';
import type { AVal, Func } from '../../src/ir/types.js';
import { expandCustomCalls, jvpFunc, vjpFunc } from '../../src/passes/autodiff.js';
import { evalFunc } from '../helpers/ir_eval.js';

const f32 = (...shape: number[]): AVal => ({ shape, dtype: 'float32' });

/** f(x, y) = (sin(x) * y, sum(x * x)) with x, y: f32[3] */
function twoOut(): Func {
  const b = new FuncBuilder('f');
  const x = b.addParam(f32(3));
  const y = b.addParam(f32(3));
  const s = b.bind1('mul', [b.bind1('sin', [x]), y]);
  const n = b.bind1('reduce_sum', [b.bind1('mul', [x, x])], { axes: [0] });
  return b.finish([s, n]);
}

const xv = { shape: [3], data: [0.5, -1, 2] };
const yv = { shape: [3], data: [1.5, 0.25, -2] };

describe('jvpFunc and vjpFunc with cotangent parameters', () => {
  it('jvp: tangents of every result, in forward order', () => {
    const jf = jvpFunc(twoOut(), [true, false]);
    expect(jf.params.length).toBe(3); // x, y, x_dot
    const [s, n, ts, tn] = evalFunc(jf, [xv, yv, { shape: [3], data: [1, 0, 0] }]);
    expect(s!.data[0]).toBeCloseTo(Math.sin(0.5) * 1.5, 5);
    expect(n!.data[0]).toBeCloseTo(5.25, 5);
    expect(ts!.data).toEqual([expect.closeTo(Math.cos(0.5) * 1.5, 5), 0, 0]);
    expect(tn!.data[0]).toBeCloseTo(1, 5);
  });

  it('vjp with cotangent parameters is the transpose of jvp (<J t, c> = <t, J^T c>)', () => {
    const f = twoOut();
    const t = { shape: [3], data: [0.3, -0.7, 1.1] };
    const c = [{ shape: [3], data: [1, 2, -1] }, { shape: [], data: [0.5] }];
    const [, , ts, tn] = evalFunc(jvpFunc(f, [true, false]), [xv, yv, t]);
    const vf = vjpFunc(f, [true, false], { cotangentParams: 2 });
    const [, , g] = evalFunc(vf, [xv, yv, ...c]);
    const lhs = ts!.data.reduce((a, v, i) => a + v * c[0]!.data[i]!, 0) + tn!.data[0]! * c[1]!.data[0]!;
    const rhs = g!.data.reduce((a, v, i) => a + v * t.data[i]!, 0);
    expect(lhs).toBeCloseTo(rhs, 4);
  });
});

/** A custom call of `call` (sin) whose rule says its derivative is 2 (jvp) or whose backward multiplies by 3 (vjp). */
function customFunc(kind: 'custom_jvp_call' | 'custom_vjp_call'): Func {
  const cb = new FuncBuilder('call');
  const cx = cb.addParam(f32());
  const call = cb.finish([cb.bind1('sin', [cx])]);
  const b = new FuncBuilder('f');
  const x = b.addParam(f32());
  let params: Record<string, Func>;
  if (kind === 'custom_jvp_call') {
    const jb = new FuncBuilder('jvp');
    const p = jb.addParam(f32());
    const t = jb.addParam(f32());
    const two = jb.bind1('broadcast_in_dim', [{ kind: 'lit', value: 2, aval: f32() }], { shape: [], broadcast_dimensions: [] });
    params = { call, jvp: jb.finish([jb.bind1('sin', [p]), jb.bind1('mul', [t, two])]) };
  } else {
    const fb = new FuncBuilder('fwd');
    const p = fb.addParam(f32());
    const fwd = fb.finish([fb.bind1('sin', [p]), p]);
    const bb = new FuncBuilder('bwd');
    bb.addParam(f32());
    const ct = bb.addParam(f32());
    const three = bb.bind1('broadcast_in_dim', [{ kind: 'lit', value: 3, aval: f32() }], { shape: [], broadcast_dimensions: [] });
    params = { call, fwd, bwd: bb.finish([bb.bind1('mul', [ct, three])]) };
  }
  const [y] = b.bind(kind, [x], params);
  return b.finish([b.bind1('mul', [y!, y!])]);
}

describe('custom calls', () => {
  it('custom_jvp_call: the rule gives the derivative, the function the value', () => {
    const f = customFunc('custom_jvp_call');
    const [v, g] = evalFunc(vjpFunc(f, [true]), [{ shape: [], data: [0.5] }]);
    expect(v!.data[0]).toBeCloseTo(Math.sin(0.5) ** 2, 6);
    expect(g!.data[0]).toBeCloseTo(2 * Math.sin(0.5) * 2, 5);
    const [, t] = evalFunc(jvpFunc(f, [true]), [{ shape: [], data: [0.5] }, { shape: [], data: [1] }]);
    expect(t!.data[0]).toBeCloseTo(2 * Math.sin(0.5) * 2, 5);
  });

  it('custom_vjp_call: the backward function gives the cotangent; forward mode is refused', () => {
    const f = customFunc('custom_vjp_call');
    const [, g] = evalFunc(vjpFunc(f, [true]), [{ shape: [], data: [0.5] }]);
    expect(g!.data[0]).toBeCloseTo(2 * Math.sin(0.5) * 3, 5);
    expect(() => jvpFunc(f, [true])).toThrow("can't apply forward-mode autodiff (jvp) to a custom_vjp function");
  });

  it('expandCustomCalls: the call remains, its rules go', () => {
    const e = expandCustomCalls(customFunc('custom_jvp_call'));
    expect(e.eqns.map((q) => q.prim)).toEqual(['sin', 'mul']);
  });
});
