// Loop-invariant code motion and sharing of alpha-equivalent reductions in
// the kernel renderers (src/codegen/let_scopes.ts, exprKey of a reduce).
import { describe, expect, it } from 'vitest';
import { hoistInvariants, renderJs } from '../../src/codegen/js.js';
import { renderWgsl } from '../../src/codegen/wgsl.js';
import type { KBinary, KExpr, Kernel } from '../../src/ir/kernel.js';
import { exprKey } from '../../src/ir/kernel.js';
import { ftz32 } from '../../runtime/index.js';

const f = (value: number): KExpr => ({ op: 'const', value, dtype: 'float32' });
const i = (value: number): KExpr => ({ op: 'const', value, dtype: 'int32' });
const gid = (bound: number): KExpr => ({ op: 'gid', dtype: 'int32', bound });
const rv = (id: number, bound: number): KExpr => ({ op: 'rvar', id, dtype: 'int32', bound });
const ld = (input: number, index: KExpr): KExpr => ({ op: 'load', input, index, dtype: 'float32' });
const bin = (fn: KBinary, a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn, a, b, dtype: a.dtype });
const sum = (id: number, extent: number, body: KExpr): KExpr => ({ op: 'reduce', fn: 'sum', id, extent, body, dtype: 'float32' });

function kernel(inputs: number[], size: number, body: KExpr): Kernel {
  return { name: 'k', inputs: inputs.map((n) => ({ dtype: 'float32', size: n })), output: { dtype: 'float32', size }, body, usesDevice: false };
}

/** Render with renderJs and run on float32 inputs. */
function run(k: Kernel, inputs: number[][]): number[] {
  const { source } = renderJs(k, 'kernel', false);
  const fn = new Function('ftz32', `${source}\nreturn kernel;`)(ftz32) as (ins: Float32Array[], out: Float32Array, device: number) => void;
  const out = new Float32Array(k.output.size);
  fn(inputs.map((a) => Float32Array.from(a)), out, 0);
  return [...out];
}

const lineOf = (src: string, re: RegExp): number => src.split('\n').findIndex((l) => re.test(l));
const count = (src: string, re: RegExp): number => src.split('\n').filter((l) => re.test(l)).length;

describe('loop-invariant code motion', () => {
  // out[g] = sum_r in0[g*4 + r] * (in1[g] * (1/4))  — in1[g] * (1/4) does not depend on r
  const g = gid(3);
  const r = rv(0, 4);
  const inv = bin('mul', ld(1, g), bin('div', f(1), f(4)));
  const k = kernel([12, 3], 3, sum(0, 4, bin('mul', ld(0, bin('add', bin('mul', g, i(4)), r)), inv)));
  const in0 = Array.from({ length: 12 }, (_, j) => j + 1);
  const in1 = [2, 3, 5];

  it('emits the invariant before the loop (JS) and computes the same value', () => {
    const { source } = renderJs(k, 'kernel', false);
    const forLine = lineOf(source, /for \(let r0/);
    const accLine = lineOf(source, /let acc0 = /);
    const invLoad = lineOf(source, /in1\[gid\]/);
    const invDiv = lineOf(source, /Math\.fround\(1 \/ 4\)/);
    expect(invLoad).toBeGreaterThan(-1);
    expect(invLoad).toBeLessThan(accLine);
    expect(invDiv).toBeLessThan(accLine);
    expect(accLine).toBeLessThan(forLine);
    // g*4 is hoisted, g*4 + r is not
    expect(lineOf(source, /Math\.imul\(gid, 4\)/)).toBeLessThan(accLine);
    expect(lineOf(source, /\+ r0\) \| 0/)).toBeGreaterThan(forLine);
    const want = [0, 1, 2].map((gg) => {
      let acc = 0;
      for (let rr = 0; rr < 4; rr++) acc = Math.fround(acc + Math.fround(in0[gg * 4 + rr]! * Math.fround(in1[gg]! * 0.25)));
      return acc;
    });
    expect(run(k, [in0, in1])).toEqual(want);
  });

  it('emits the invariant before the loop (WGSL)', () => {
    const src = renderWgsl(k);
    const varLine = lineOf(src, /var acc0: f32/);
    expect(lineOf(src, /in1\[base1 \+ gid\]/)).toBeLessThan(varLine);
    expect(varLine).toBeLessThan(lineOf(src, /for \(var r0/));
  });

  it('hoists a reduction whose body does not read the enclosing loop counter', () => {
    // out[g] = sum_r0 (in0[r0] - sum_r1 in1[g*2 + r1])
    const inner = sum(1, 2, ld(1, bin('add', bin('mul', g, i(2)), rv(1, 2))));
    const k2 = kernel([4, 6], 3, sum(0, 4, bin('sub', ld(0, rv(0, 4)), inner)));
    const { source } = renderJs(k2, 'kernel', false);
    expect(lineOf(source, /for \(let r1/)).toBeLessThan(lineOf(source, /for \(let r0/));
    const a = [1, 2, 3, 4];
    const b = [1, 10, 100, 1000, 0.5, 0.25];
    const want = [0, 1, 2].map((gg) => {
      const s = Math.fround(b[gg * 2]! + b[gg * 2 + 1]!);
      let acc = 0;
      for (const x of a) acc = Math.fround(acc + Math.fround(x - s));
      return acc;
    });
    expect(run(k2, [a, b])).toEqual(want);
    expect(renderWgsl(k2)).toMatch(/for \(var r1[\s\S]*for \(var r0/);
  });
});

describe('alpha-equivalent reductions', () => {
  const g = gid(2);
  const red = (id: number): KExpr => sum(id, 3, ld(0, bin('add', bin('mul', g, i(3)), rv(id, 3))));

  it('give the same key for another loop id', () => {
    expect(exprKey(red(1))).toBe(exprKey(red(2)));
    expect(exprKey(red(1))).not.toBe(exprKey(sum(3, 4, ld(0, bin('add', bin('mul', g, i(3)), rv(3, 4))))));
  });

  it('render one loop', () => {
    const k = kernel([6], 2, bin('mul', red(1), bin('add', red(2), f(1))));
    const { source } = renderJs(k, 'kernel', false);
    expect(count(source, /for \(let r/)).toBe(1);
    expect(count(renderWgsl(k), /for \(var r/)).toBe(1);
    const a = [1, 2, 3, 4, 5, 6];
    expect(run(k, [a])).toEqual([6 * 7, 15 * 16]);
  });

  it('inside one outer loop render one inner loop', () => {
    // out[g] = sum_r0 (sum_r1 in0[r0*3 + r1]) * (sum_r2 in0[r0*3 + r2])
    const inner = (id: number): KExpr => sum(id, 3, ld(0, bin('add', bin('mul', rv(0, 2), i(3)), rv(id, 3))));
    const k = kernel([6], 1, sum(0, 2, bin('mul', inner(1), inner(2))));
    const { source } = renderJs(k, 'kernel', false);
    expect(count(source, /for \(let r/)).toBe(2);
    expect(run(k, [[1, 2, 3, 4, 5, 6]])).toEqual([6 * 6 + 15 * 15]);
  });

  it('that read different outer loop counters are not merged', () => {
    // out[0] = sum_r0 sum_r1 (sum_r2 in0[r0 + r2]) * (sum_r3 in0[r1 + r3]): r0 vs r1 outside
    const inner = (id: number, outer: number): KExpr => sum(id, 2, ld(0, bin('add', rv(outer, 2), rv(id, 2))));
    expect(exprKey(inner(2, 0))).not.toBe(exprKey(inner(3, 1)));
    const k = kernel([3], 1, sum(0, 2, sum(1, 2, bin('mul', inner(2, 0), inner(3, 1)))));
    const { source } = renderJs(k, 'kernel', false);
    expect(count(source, /for \(let r/)).toBe(4);
    const a = [1, 10, 100];
    const s = (o: number): number => a[o]! + a[o + 1]!;
    let want = 0;
    for (let x = 0; x < 2; x++) for (let y = 0; y < 2; y++) want += s(x) * s(y);
    expect(run(k, [a])).toEqual([want]);
    // the r2 reduction depends on r0 only: hoisted out of the r1 loop
    expect(lineOf(source, /for \(let r2/)).toBeLessThan(lineOf(source, /for \(let r1/));
  });

  it('nested reductions keep their bound and free counters apart', () => {
    // A(id0, id1) = sum_r(id0) sum_r(id1) in0[r(id0)*2 + r(id1)]; B swaps which counter strides
    const A = (o: number, n: number): KExpr => sum(o, 2, sum(n, 2, ld(0, bin('add', bin('mul', rv(o, 2), i(2)), rv(n, 2)))));
    const B = (o: number, n: number): KExpr => sum(o, 2, sum(n, 2, ld(0, bin('add', bin('mul', rv(n, 2), i(2)), rv(o, 2)))));
    expect(exprKey(A(0, 1))).toBe(exprKey(A(5, 7)));
    // B strides by the inner counter: not the same reduction
    expect(exprKey(A(0, 1))).not.toBe(exprKey(B(0, 1)));
    // inner reduction reading the outer counter vs a constant: different
    const C = sum(8, 2, sum(9, 2, ld(0, bin('add', bin('mul', i(1), i(2)), rv(9, 2)))));
    expect(exprKey(A(0, 1))).not.toBe(exprKey(C));
    // value: (A + A') * C with distinct ids, computed once each
    const k = kernel([4], 1, bin('mul', bin('add', A(0, 1), A(2, 3)), bin('sub', B(4, 5), C)));
    const { source } = renderJs(k, 'kernel', false);
    const a = [1, 2, 4, 8];
    // A = B = 15, C = 2*(4+8) = 24
    expect(run(k, [a])).toEqual([(15 + 15) * (15 - 24)]);
    // A(0,1) and A(2,3) share loops; B's sum is the same total but not the same expression
    expect(count(source, /for \(let r/)).toBe(6);
  });
});

describe('loop-invariant code motion out of the loop over output elements (CPU)', () => {
  it('computes a value that reads no output index once, before the loop', () => {
    // out[g] = in0[g] * (in1[0] + 2): in1[0] + 2 is the same for every g
    const g = gid(5);
    const k = kernel([5, 1], 5, bin('mul', ld(0, g), bin('add', ld(1, i(0)), f(2))));
    const { source } = renderJs(k, 'kernel', false);
    const loop = lineOf(source, /for \(let gid/);
    expect(lineOf(source, /in1\[0\]/)).toBeLessThan(loop);
    expect(lineOf(source, /in0\[gid\]/)).toBeGreaterThan(loop);
    expect(run(k, [[1, 2, 3, 4, 5], [0.5]])).toEqual([2.5, 5, 7.5, 10, 12.5]);
  });

  it('keeps in the loop what reads the output index, a loop counter or a statement left there', () => {
    const { prologue, body } = hoistInvariants(
      ['    const t0 = in1[0];', '    const t1 = ftz32(pow32(t0, 2));', '    const t2 = in0[gid];', '    const t3 = Math.fround(t2 + t1);', '    let acc0 = 0;', '    const t4 = f32Scratch(4);'],
      '    ',
    );
    expect(prologue).toEqual(['  const t0 = in1[0];', '  const t1 = ftz32(pow32(t0, 2));']);
    expect(body).toEqual(['    const t2 = in0[gid];', '    const t3 = Math.fround(t2 + t1);', '    let acc0 = 0;', '    const t4 = f32Scratch(4);']);
  });

  it('keeps in the loop a mutable temporary that a branch assigns, and what reads it', () => {
    // a select between reductions under a constant condition: `t1` starts at 0 and one arm sets it
    const lines = ['    let t0 = true;', '    let t1 = 0;', '    const t2 = (gid / 3) | 0;', '    if (t0) {', '      t1 = t2;', '    }', '    const t3 = in0[t1];'];
    const { prologue, body } = hoistInvariants(lines, '    ');
    expect(prologue).toEqual(['  let t0 = true;']);
    expect(body).toEqual(lines.slice(1));
  });
});

describe('a select between reductions', () => {
  // out[g] = g < 2 ? Σ_r x[g*4 + r] : Σ_r 2·x[r] (a fused concatenation's pieces): only the chosen sum runs
  const lt = (a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn: 'lt', a, b, dtype: 'bool' });
  const body: KExpr = {
    op: 'select',
    cond: lt(gid(4), i(2)),
    a: sum(0, 4, ld(0, bin('add', bin('mul', gid(4), i(4)), rv(0, 4)))),
    b: sum(1, 4, bin('mul', f(2), ld(0, rv(1, 4)))),
    dtype: 'float32',
  };
  const k = kernel([16], 4, body);
  const x = Array.from({ length: 16 }, (_, j) => j + 1);

  it('runs each reduction in its own branch (JS), with the same values', () => {
    const { source } = renderJs(k, 'kernel', false);
    expect(source).toMatch(/if \(\w+\) \{\n\s+let acc0 = [^\n]*\n\s+for \(let r0/);
    expect(source).toMatch(/\} else \{\n\s+let acc1 = [^\n]*\n\s+for \(let r1/);
    expect(run(k, [x])).toEqual([10, 26, 20, 20]);
  });

  it('does so in WGSL too', () => {
    const source = renderWgsl(k);
    expect(source).toMatch(/if \(\w+\) \{\n\s+var acc0/);
    expect(source).toMatch(/\} else \{\n\s+var acc1/);
  });
});
