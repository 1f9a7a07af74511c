// The autodiff pass: every JVP/transpose rule checked numerically against
// central finite differences (float64 reference evaluator), ties and zero
// gradients against closed forms, and the emitted primitive sequence against
// what JAX's grad produces where the order decides float32 rounding.
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import { printFunc } from '../../src/ir/printer.js';
import type { Prim } from '../../src/ir/prims.js';
import type { Atom, AVal, DType, Func, Params, Var } from '../../src/ir/types.js';
import { vjpFunc } from '../../src/passes/autodiff.js';
import { type Arr, evalFunc, evalSpmd } from '../helpers/ir_eval.js';

const f32 = (...shape: number[]): AVal => ({ shape, dtype: 'float32' });
const sz = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);
const allAxes = (a: Atom): number[] => a.aval.shape.map((_, i) => i);

/** Input i of a case: a shape, its data, and whether it is differentiated. */
interface Input {
  aval: AVal;
  data: number[];
  wrt?: boolean;
}
const x = (shape: number[], data: number[], wrt = true): Input => ({ aval: f32(...shape), data, wrt });
const xi = (shape: number[], data: number[], dtype: DType = 'int32'): Input => ({ aval: { shape, dtype }, data, wrt: false });

type Body = (b: FuncBuilder, xs: Var[]) => Atom;

/** loss(xs, w) = sum(body(xs) * w): a scalar with a different weight per output element. */
function lossFunc(inputs: Input[], body: Body): { f: Func; w: Arr } {
  const b = new FuncBuilder('f');
  const xs = inputs.map((i) => b.addParam(i.aval));
  const y = body(b, xs);
  const wv = b.addParam(f32(...y.aval.shape));
  const s = b.bind1('reduce_sum', [b.bind1('mul', [y, wv])], { axes: allAxes(y) });
  const n = sz(y.aval.shape);
  return { f: b.finish([s]), w: { shape: [...y.aval.shape], data: Array.from({ length: n }, (_, i) => 0.75 + 0.5 * ((i * 7) % 5) - 0.3 * (i % 2)) } };
}

const arrs = (inputs: Input[]): Arr[] => inputs.map((i) => ({ shape: [...i.aval.shape], data: [...i.data] }));

/** The gradients vjpFunc computes (float64 evaluation), per wrt input. */
function gradsOf(inputs: Input[], body: Body): { grads: Arr[]; f: Func; w: Arr } {
  const { f, w } = lossFunc(inputs, body);
  const g = vjpFunc(f, [...inputs.map((i) => !!i.wrt), false]);
  const res = evalFunc(g, [...arrs(inputs), w]);
  return { grads: res.slice(1), f, w };
}

/** Central differences of the loss, per element of each wrt input. */
function finiteDiffs(f: Func, inputs: Input[], w: Arr): number[][] {
  return inputs.flatMap((inp, k) => {
    if (!inp.wrt) return [];
    return [
      inp.data.map((v, j) => {
        const h = 1e-6 * Math.max(1, Math.abs(v));
        const at = (d: number): number => {
          const a = arrs(inputs);
          a[k]!.data[j] = v + d;
          return evalFunc(f, [...a, w])[0]!.data[0]!;
        };
        return (at(h) - at(-h)) / (2 * h);
      }),
    ];
  });
}

function expectClose(actual: number[], expected: number[], tol = 2e-6): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    if (Math.abs(a - e) > tol * (1 + Math.abs(e))) {
      throw new Error(`element ${i}: got ${a}, expected ${e} (all: [${actual.join(', ')}] vs [${expected.join(', ')}])`);
    }
  });
}

function checkGrad(inputs: Input[], body: Body): void {
  const { grads, f, w } = gradsOf(inputs, body);
  const fd = finiteDiffs(f, inputs, w);
  expect(grads.length).toBe(fd.length);
  grads.forEach((g, k) => {
    expect(g.shape).toEqual(inputs.filter((i) => i.wrt)[k]!.aval.shape);
    expectClose(g.data, fd[k]!);
  });
}

const un = (prim: Prim, params: Params = {}): Body => (b, [a]) => b.bind1(prim, [a!], params);
const bin = (prim: Prim): Body => (b, [a, c]) => b.bind1(prim, [a!, c!]);

const MID = [-0.7, 0.3, 1.1];
const POS = [0.4, 1.3, 2.2];

describe('autodiff: unary rules against finite differences', () => {
  const cases: [Prim, number[]][] = [
    ['sin', MID], ['cos', MID], ['tan', MID], ['exp', MID], ['exp2', MID], ['log', POS], ['log1p', POS], ['expm1', MID],
    ['tanh', MID], ['logistic', MID], ['sqrt', POS], ['rsqrt', POS], ['erf', MID], ['erf_inv', [-0.5, 0.1, 0.6]],
    ['neg', MID], ['abs', MID], ['copy', MID], ['sign', MID], ['floor', [0.5, -1.3, 2.7]], ['ceil', [0.5, -1.3, 2.7]],
    ['round', [0.2, -1.3, 2.6]],
  ];
  for (const [prim, data] of cases) it(prim, () => checkGrad([x([3], data)], un(prim)));

  for (const y of [0, 1, 2, 3, 5, -1, -2]) it(`integer_pow y=${y}`, () => checkGrad([x([3], POS)], un('integer_pow', { y })));

  it('convert_element_type f32→f32 passes the cotangent, f32→i32 gives zero', () => {
    checkGrad([x([3], MID)], un('convert_element_type', { new_dtype: 'float32', weak_type: false }));
    const { grads } = gradsOf([x([3], MID)], (b, [a]) =>
      b.bind1('convert_element_type', [b.bind1('convert_element_type', [a!], { new_dtype: 'int32', weak_type: false })], { new_dtype: 'float32', weak_type: false }),
    );
    expect(grads[0]!.data).toEqual([0, 0, 0]);
  });
});

describe('autodiff: binary rules against finite differences', () => {
  const A = [0.9, -1.4, 2.3];
  const B = [1.7, 0.6, -0.8];
  for (const prim of ['add', 'sub', 'mul', 'div', 'max', 'min', 'atan2'] as const) {
    it(prim, () => checkGrad([x([3], A), x([3], B)], bin(prim)));
    it(`${prim} (only one side differentiated)`, () => {
      checkGrad([x([3], A), x([3], B, false)], bin(prim));
      checkGrad([x([3], A, false), x([3], B)], bin(prim));
    });
  }
  it('rem', () => checkGrad([x([3], [5.3, -2.2, 3.7]), x([3], [2.1, 1.5, -1.2])], bin('rem')));
  it('pow', () => checkGrad([x([3], POS), x([3], [1.5, -0.7, 2.0])], bin('pow')));
  it('pow at x = 0 (replace_zero keeps the y-gradient finite)', () => {
    const { grads } = gradsOf([x([1], [0]), x([1], [2])], bin('pow'));
    expect(grads.map((g) => g.data[0])).toEqual([0, 0]);
  });
  it('max and min share the gradient equally on ties (JAX balanced_eq)', () => {
    for (const prim of ['max', 'min'] as const) {
      const { grads, w } = gradsOf([x([3], [1, 2, -3]), x([3], [1, 0, -3])], bin(prim));
      expect(grads[0]!.data[0]).toBe(0.5 * w.data[0]!);
      expect(grads[1]!.data[0]).toBe(0.5 * w.data[0]!);
      expect(grads[0]!.data[2]).toBe(0.5 * w.data[2]!);
    }
  });
  it('a value used twice accumulates both cotangents', () => checkGrad([x([3], A)], (b, [a]) => b.bind1('mul', [a!, b.bind1('sin', [a!])])));
});

describe('autodiff: selection and structure', () => {
  it('select_n with a bool predicate', () =>
    checkGrad([xi([3], [1, 0, 1], 'bool'), x([3], MID), x([3], POS)], (b, [p, a, c]) => b.bind1('select_n', [p!, a!, c!])));
  it('select_n with an int32 case index and a constant case', () =>
    checkGrad([xi([3], [2, 0, 1]), x([3], MID), x([3], POS, false), x([3], [3, 4, 5])], (b, [p, a, c, d]) => b.bind1('select_n', [p!, a!, c!, d!])));
  it('select_n with a scalar predicate', () =>
    checkGrad([xi([], [1], 'bool'), x([3], MID), x([3], POS)], (b, [p, a, c]) => b.bind1('select_n', [p!, a!, c!])));
  it('broadcast_in_dim: new axes, a unit axis, a scalar', () => {
    checkGrad([x([3], MID)], un('broadcast_in_dim', { shape: [2, 3], broadcast_dimensions: [1] }));
    checkGrad([x([1, 3], MID)], un('broadcast_in_dim', { shape: [2, 4, 3], broadcast_dimensions: [1, 2] }));
    checkGrad([x([], [0.7])], un('broadcast_in_dim', { shape: [2, 2], broadcast_dimensions: [] }));
  });
  const M = [0.1, -0.5, 0.9, 1.3, -2.1, 0.4];
  it('reshape', () => checkGrad([x([2, 3], M)], un('reshape', { new_sizes: [3, 2], dimensions: null })));
  it('transpose', () => checkGrad([x([2, 3, 1], M)], un('transpose', { permutation: [2, 0, 1] })));
  it('squeeze', () => checkGrad([x([2, 1, 3], M)], un('squeeze', { dimensions: [1] })));
  it('rev', () => checkGrad([x([2, 3], M)], un('rev', { dimensions: [1] })));
  it('slice, with and without strides', () => {
    checkGrad([x([2, 3], M)], un('slice', { start_indices: [0, 1], limit_indices: [2, 3], strides: null }));
    checkGrad([x([6], M)], un('slice', { start_indices: [1], limit_indices: [6], strides: [2] }));
    checkGrad([x([6], M)], un('slice', { start_indices: [0], limit_indices: [5], strides: [3] }));
  });
  it('pad: interior, negative (cropping) and padding-value gradients', () => {
    const pv = x([], [0.25]);
    checkGrad([x([2, 3], M), pv], (b, [a, v]) => b.bind1('pad', [a!, v!], { padding_config: [[1, 0, 1], [-1, 2, 0]] }));
    checkGrad([x([6], M), pv], (b, [a, v]) => b.bind1('pad', [a!, v!], { padding_config: [[2, -1, 2]] }));
  });
  it('concatenate, one operand not differentiated', () =>
    checkGrad([x([2, 1], [0.3, 0.8]), x([2, 2], [1, 2, 3, 4], false), x([2, 3], M)], (b, xs) => b.bind1('concatenate', xs, { dimension: 1 })));
});

describe('autodiff: reductions and dot_general', () => {
  const T = [0.3, -1.2, 2.5, 0.7, 1.9, -0.4, 0.05, 1.1, -2.2, 0.6, 0.9, -1.7];
  for (const prim of ['reduce_sum', 'reduce_max', 'reduce_min', 'reduce_prod'] as const) {
    it(prim, () => {
      checkGrad([x([2, 3, 2], T)], un(prim, { axes: [1] }));
      checkGrad([x([2, 3, 2], T)], un(prim, { axes: [0, 2] }));
      checkGrad([x([12], T)], un(prim, { axes: [0] }));
    });
  }
  it('reduce_prod of a unit axis and of 5 elements (tree with padding)', () => {
    checkGrad([x([1, 3], [0.5, 2, 3])], un('reduce_prod', { axes: [0] }));
    checkGrad([x([5], [0.5, 2, -3, 1.5, 0.8])], un('reduce_prod', { axes: [0] }));
  });
  it('reduce_max divides the gradient among tied maxima', () => {
    const { grads, w } = gradsOf([x([4], [2, 5, 5, 5])], un('reduce_max', { axes: [0] }));
    expect(grads[0]!.data).toEqual([0, 1 / 3, 1 / 3, 1 / 3].map((v) => v * w.data[0]!));
  });
  const dot = (contract: [number[], number[]], batch: [number[], number[]] = [[], []]): Body => (b, [l, r]) =>
    b.bind1('dot_general', [l!, r!], { dimension_numbers: { contract, batch }, precision: null, preferred_element_type: 'float32' });
  const R = (n: number, s = 0): number[] => Array.from({ length: n }, (_, i) => Math.sin(1.3 * i + s));
  it('dot_general: matrix product, vector product', () => {
    checkGrad([x([2, 3], R(6)), x([3, 4], R(12, 1))], dot([[1], [0]]));
    checkGrad([x([3], R(3)), x([3], R(3, 2))], dot([[0], [0]]));
    checkGrad([x([2, 3], R(6)), x([3], R(3, 2), false)], dot([[1], [0]]));
  });
  it('dot_general: batch dimensions, several contracting dimensions out of order', () => {
    checkGrad([x([2, 3, 4], R(24)), x([2, 4, 5], R(40, 1))], dot([[2], [1]], [[0], [0]]));
    checkGrad([x([3, 2, 4], R(24)), x([4, 5, 3], R(60, 1))], dot([[0, 2], [2, 0]]));
    checkGrad([x([4, 2, 3], R(24)), x([3, 2, 5], R(30, 1))], dot([[2], [0]], [[1], [1]]));
  });
});

describe('autodiff: collectives (per-device gradient of the loss summed over devices)', () => {
  const N = 4;
  /** Per device: build loss_d; check grad on device d against d(sum_d loss_d)/dx_d. */
  function checkSpmd(shape: number[], body: Body): void {
    const b = new FuncBuilder('f');
    const p = b.addParam(f32(...shape));
    const y = body(b, [p]);
    const w = b.addParam(f32(...y.aval.shape));
    const f = b.finish([b.bind1('reduce_sum', [b.bind1('mul', [y, w])], { axes: allAxes(y) })], [{ name: 'i', size: N }]);
    const n = sz(shape);
    const xs = Array.from({ length: N }, (_, d) => ({ shape, data: Array.from({ length: n }, (_, j) => Math.cos(d + 0.7 * j)) }));
    const ws = Array.from({ length: N }, (_, d) => ({ shape: [...y.aval.shape], data: Array.from({ length: sz(y.aval.shape) }, (_, j) => 1 + 0.1 * d - 0.2 * j) }));
    const g = vjpFunc(f, [true, false]);
    const res = evalSpmd(g, xs.map((xd, d) => [xd, ws[d]!]));
    const total = (xx: Arr[]): number => evalSpmd(f, xx.map((xd, d) => [xd, ws[d]!])).reduce((s, r) => s + r[0]!.data[0]!, 0);
    for (let d = 0; d < N; d++) {
      const fd = xs[d]!.data.map((v, j) => {
        const h = 1e-6;
        const at = (e: number): number => total(xs.map((xd, k) => (k === d ? { shape, data: xd.data.map((u, i) => (i === j ? v + e : u)) } : xd)));
        return (at(h) - at(-h)) / (2 * h);
      });
      expectClose(res[d]![1]!.data, fd);
    }
  }
  const axis = { axis_name: ['i'], axis_size: N };
  it('psum', () => checkSpmd([3], (b, [a]) => b.bind1('sin', [b.bind1('psum', [a!], { axes: ['i'] })])));
  it('all_gather (stacked and tiled)', () => {
    checkSpmd([3], (b, [a]) => b.bind1('integer_pow', [b.bind1('all_gather', [a!], { ...axis, all_gather_dimension: 1, tiled: false })], { y: 2 }));
    checkSpmd([2, 3], (b, [a]) => b.bind1('sin', [b.bind1('all_gather', [a!], { ...axis, all_gather_dimension: 0, tiled: true })]));
  });
  it('psum_scatter (stacked and tiled)', () => {
    checkSpmd([4, 3], (b, [a]) => b.bind1('sin', [b.bind1('psum_scatter', [a!], { ...axis, scatter_dimension: 0, tiled: false })]));
    checkSpmd([3, 8], (b, [a]) => b.bind1('sin', [b.bind1('psum_scatter', [a!], { ...axis, scatter_dimension: 1, tiled: true })]));
  });
  it('ppermute (inverse permutation)', () =>
    checkSpmd([3], (b, [a]) => b.bind1('exp', [b.bind1('ppermute', [a!], { axis_name: ['i'], perm: [[0, 1], [1, 2], [2, 3], [3, 0]] })])));
  it('pmax has no differentiation rule (as in JAX)', () => {
    const b = new FuncBuilder('f');
    const p = b.addParam(f32());
    const f = b.finish([b.bind1('pmax', [p], { axes: ['i'] })]);
    expect(() => vjpFunc(f, [true])).toThrow("Differentiation rule for 'pmax' not implemented");
  });
});

describe('autodiff: second derivatives (rules applied to transposed programs)', () => {
  /** d/dx of sum(grad(loss)(x) * w2): differentiates the emitted pads, selects, broadcasts, ... */
  function checkHessian(inputs: Input[], body: Body): void {
    const { f, w } = lossFunc(inputs, body);
    const g = vjpFunc(f, [true, false]);
    const b = new FuncBuilder('h');
    const xp = b.addParam(inputs[0]!.aval);
    const wp = b.addParam(w.shape.length ? f32(...w.shape) : f32());
    const [, gx] = b.inline(g, [xp, wp]);
    const w2 = b.addParam(f32(...inputs[0]!.aval.shape));
    const h = b.finish([b.bind1('reduce_sum', [b.bind1('mul', [gx!, w2])], { axes: allAxes(gx!) })]);
    const hv = vjpFunc(h, [true, false, false]);
    const w2v = { shape: [...inputs[0]!.aval.shape], data: inputs[0]!.data.map((_, i) => 1 - 0.3 * i) };
    const x0 = arrs(inputs)[0]!;
    const res = evalFunc(hv, [x0, w, w2v])[1]!;
    const fd = x0.data.map((v, j) => {
      const hh = 1e-5;
      const at = (e: number): number => evalFunc(h, [{ shape: x0.shape, data: x0.data.map((u, i) => (i === j ? v + e : u)) }, w, w2v])[0]!.data[0]!;
      return (at(hh) - at(-hh)) / (2 * hh);
    });
    expectClose(res.data, fd, 1e-5);
  }
  it('tanh, sin·x, slices, products, max', () => {
    checkHessian([x([3], MID)], un('tanh'));
    checkHessian([x([3], MID)], (b, [a]) => b.bind1('mul', [a!, b.bind1('sin', [a!])]));
    checkHessian([x([6], [0.1, -0.5, 0.9, 1.3, -2.1, 0.4])], (b, [a]) => b.bind1('exp', [b.bind1('slice', [a!], { start_indices: [1], limit_indices: [6], strides: [2] })]));
    checkHessian([x([5], [0.5, 2, -3, 1.5, 0.8])], un('reduce_prod', { axes: [0] }));
    checkHessian([x([2, 3], [0.1, -0.5, 0.9, 1.3, -2.1, 0.4])], (b, [a]) => b.bind1('integer_pow', [b.bind1('reduce_max', [a!], { axes: [1] })], { y: 3 }));
  });
});

describe('autodiff: pass structure', () => {
  it('passes other results through and puts gradients after them', () => {
    const b = new FuncBuilder('f');
    const p = b.addParam(f32(3));
    const q = b.addParam(f32(3));
    const s = b.bind1('reduce_sum', [b.bind1('mul', [p, q])], { axes: [0] });
    const aux = b.bind1('cos', [p]);
    const g = vjpFunc(b.finish([s, aux]), [false, true]);
    expect(g.results.map((r) => r.aval.shape)).toEqual([[], [3], [3]]);
    const [v, a, gq] = evalFunc(g, [{ shape: [3], data: [1, 2, 3] }, { shape: [3], data: [4, 5, 6] }]);
    expect(v!.data).toEqual([32]);
    expect(a!.data).toEqual([1, 2, 3].map(Math.cos));
    expect(gq!.data).toEqual([1, 2, 3]);
  });
  it('a gradient that does not depend on the output is a broadcast literal zero, an identity gradient a broadcast one', () => {
    const b = new FuncBuilder('f');
    b.addParam(f32(2));
    const q = b.addParam(f32());
    const g = vjpFunc(b.finish([q]), [true, true]);
    expect(printFunc(g)).toBe(
      [
        'f_vjp = { lambda ; a:f32[2] b:f32[]. let',
        '    c:f32[2] = broadcast_in_dim[shape=(2,) broadcast_dimensions=()] 0.0:f32[]',
        '    d:f32[] = broadcast_in_dim[shape=() broadcast_dimensions=()] 1.0:f32[]',
        '  in (b, c, d) }',
      ].join('\n'),
    );
  });
  it('rejects a non-scalar first result', () => {
    const b = new FuncBuilder('f');
    const p = b.addParam(f32(2));
    expect(() => vjpFunc(b.finish([p]), [true])).toThrow('float32 scalar');
  });
  it('integer inputs and integer intermediates carry no tangent', () => {
    checkGrad([x([3], MID), xi([3], [1, 2, 3])], (b, [a, n]) => b.bind1('mul', [a!, b.bind1('convert_element_type', [n!], { new_dtype: 'float32', weak_type: false })]));
    checkGrad([x([3], MID)], (b, [a]) => {
      const i = b.bind1('argmax', [a!], { axes: [0], index_dtype: 'int32' });
      const fi = b.bind1('convert_element_type', [i], { new_dtype: 'float32', weak_type: false });
      return b.bind1('mul', [b.bind1('broadcast_in_dim', [fi], { shape: [3], broadcast_dimensions: [] }), b.bind1('sin', [a!])]);
    });
  });
  it('keeps literal operands', () => checkGrad([x([], [0.8])], (b, [a]) => b.bind1('div', [lit(1, 'float32'), b.bind1('mul', [a!, lit(3, 'float32')])])));
});

describe("autodiff: emitted primitive sequences match JAX's grad jaxprs", () => {
  // Each expectation is `jax.make_jaxpr(jax.grad(f))` from JAX 0.10.2 with its
  // implicit scalar broadcasts made explicit (and value_and_grad's value kept).
  const show = (wrt: boolean[], build: (b: FuncBuilder) => Atom): string => {
    const b = new FuncBuilder('f');
    return printFunc(vjpFunc(b.finish([build(b)]), wrt));
  };
  const sum = (b: FuncBuilder, a: Atom): Atom => b.bind1('reduce_sum', [a], { axes: allAxes(a) });
  const bc = (v: number, shape: string): string => `broadcast_in_dim[shape=${shape} broadcast_dimensions=()] ${v.toFixed(1)}:f32[]`;

  it('tanh: (g + g*ans) ... accumulated as ct*(1-ans) + (ct*(1-ans))*ans', () => {
    expect(show([true], (b) => sum(b, b.bind1('tanh', [b.addParam(f32(3))])))).toBe(
      [
        'f_vjp = { lambda ; a:f32[3]. let',
        '    b:f32[3] = tanh a',
        `    c:f32[3] = ${bc(1, '(3,)')}`,
        '    d:f32[3] = sub c b',
        '    e:f32[] = reduce_sum[axes=(0,)] b',
        `    f:f32[3] = ${bc(1, '(3,)')}`,
        '    g:f32[3] = mul f d',
        '    h:f32[3] = mul g b',
        '    i:f32[3] = add g h',
        '  in (e, i) }',
      ].join('\n'),
    );
  });
  it('max with a constant (relu): balanced_eq', () => {
    const out = show([true], (b) => {
      const a = b.addParam(f32(3));
      const z = b.bind1('broadcast_in_dim', [lit(0, 'float32')], { shape: [3], broadcast_dimensions: [] });
      return sum(b, b.bind1('max', [a, z]));
    });
    expect(out.split('\n').slice(3, 13).map((l) => l.trim())).toEqual([
      'd:bool[3] = eq a c',
      `e:f32[3] = ${bc(1, '(3,)')}`,
      `f:f32[3] = ${bc(0, '(3,)')}`,
      'g:f32[3] = select_n d f e',
      'h:bool[3] = eq b c',
      `i:f32[3] = ${bc(2, '(3,)')}`,
      `j:f32[3] = ${bc(1, '(3,)')}`,
      'k:f32[3] = select_n h j i',
      'l:f32[3] = div g k',
      'm:f32[] = reduce_sum[axes=(0,)] c',
    ]);
  });
  it('abs: select and neg, cotangents added in backward order', () => {
    const out = show([true], (b) => sum(b, b.bind1('abs', [b.addParam(f32(3))])));
    expect(out.split('\n').slice(-5, -1).map((l) => l.trim())).toEqual(['h:f32[3] = select_n d f g', 'i:f32[3] = select_n d g f', 'j:f32[3] = neg h', 'k:f32[3] = add i j']);
  });
  it('div: x/y transposes to ct/y and -(ct*y**-2)*x', () => {
    const out = show([true, true], (b) => sum(b, b.bind1('div', [b.addParam(f32(3)), b.addParam(f32(3))])));
    expect(out.split('\n').slice(2).map((l) => l.trim())).toEqual([
      'd:f32[3] = integer_pow[y=-2] b',
      'e:f32[] = reduce_sum[axes=(0,)] c',
      `f:f32[3] = ${bc(1, '(3,)')}`,
      'g:f32[3] = mul f d',
      'h:f32[3] = mul g a',
      'i:f32[3] = neg h',
      'j:f32[3] = div f b',
      'in (e, j, i) }',
    ]);
  });
  it('dot_general: _dot_general_transpose_rhs ends in a transpose, _lhs does not', () => {
    const out = show([true, true], (b) => {
      const dn = { dimension_numbers: { contract: [[1], [0]], batch: [[], []] }, precision: null, preferred_element_type: 'float32' };
      return sum(b, b.bind1('dot_general', [b.addParam(f32(2, 3)), b.addParam(f32(3, 4))], dn));
    });
    const prims = out.split('\n').slice(2, -1).map((l) => {
      const [lhs, rhs] = l.trim().split(' = ');
      return `${lhs} = ${rhs!.split(/[[ ]/)[0]}`;
    });
    expect(prims).toEqual(['d:f32[] = reduce_sum', 'e:f32[2,4] = broadcast_in_dim', 'f:f32[4,3] = dot_general', 'g:f32[3,4] = transpose', 'h:f32[2,3] = dot_general']);
    expect(out).toContain('f:f32[4,3] = dot_general[dimension_numbers={contract=((0,), (0,)), batch=((), ())}');
    expect(out).toContain('h:f32[2,3] = dot_general[dimension_numbers={contract=((1,), (1,)), batch=((), ())}');
  });
});
