// The CPU kernels' matrix products (src/codegen/dot_plan.ts, js.ts): every
// contraction of a kernel that fits the runtime's layout goes to dotF32, and a
// reduction over axes a reshape merged keeps an index affine in its counter
// (src/passes/index_math.ts), so it qualifies too; the results equal the
// scalar loop bit for bit.
import { describe, expect, it } from 'vitest';
import { renderJs } from '../../src/codegen/js.js';
import type { KBinary, KExpr, Kernel } from '../../src/ir/kernel.js';
import { iadd, idiv, imod, imul } from '../../src/passes/index_math.js';
import { dotF32, ftz32 } from '../../runtime/index.js';

const i = (value: number): KExpr => ({ op: 'const', value, dtype: 'int32' });
const gid = (bound: number): KExpr => ({ op: 'gid', dtype: 'int32', bound });
const rv = (id: number, bound: number): KExpr => ({ op: 'rvar', id, dtype: 'int32', bound });
const ld = (input: number, index: KExpr): KExpr => ({ op: 'load', input, index, dtype: 'float32' });
const bin = (fn: KBinary, a: KExpr, b: KExpr): KExpr => ({ op: 'bin', fn, a, b, dtype: a.dtype });
const dotSum = (id: number, extent: number, body: KExpr): KExpr => ({ op: 'reduce', fn: 'sum', id, extent, body, dtype: 'float32', dot: true });

describe('index arithmetic', () => {
  it('(r / c) * (c·s) + (r % c) * s folds to r * s', () => {
    const r = rv(0, 80);
    expect(iadd(imul(idiv(r, 20), 800), imul(imod(r, 20), 40))).toEqual(imul(r, 40));
    expect(iadd(imul(idiv(r, 20), 20), imod(r, 20))).toEqual(r);
    // a stride that is not c·s stays as it is
    expect(iadd(imul(idiv(r, 20), 700), imul(imod(r, 20), 40)).op).toBe('bin');
  });
});

describe('several matrix products in one kernel', () => {
  // out[i, j] = Σ_k a[k, i] b[k, j] + Σ_k c[k, i] d[k, j], k over a (4, 20) pair of axes merged into 80
  const n = 40;
  const g = gid(n * n);
  const row = bin('rem', g, i(n));
  const col = bin('div', g, i(n));
  const merged = (id: number, at: KExpr): KExpr => {
    const r = rv(id, 80);
    return iadd(iadd(imul(idiv(r, 20), 20 * n), imul(imod(r, 20), n)), at);
  };
  const product = (id: number, x: number, y: number): KExpr => dotSum(id, 80, bin('mul', ld(x, merged(id, row)), ld(y, merged(id, col))));
  const k: Kernel = {
    name: 'k',
    inputs: [0, 1, 2, 3].map(() => ({ dtype: 'float32', size: 80 * n })),
    output: { dtype: 'float32', size: n * n },
    body: bin('add', product(0, 0, 1), product(1, 2, 3)),
    usesDevice: false,
  };

  it('computes each with dotF32, as the scalar loop does', () => {
    const { source, helpers } = renderJs(k, 'kernel', false);
    expect(source.match(/dotF32\(/g)?.length).toBe(2);
    expect(helpers).toContain('dotF32');
    const fn = new Function('ftz32', 'dotF32', `${source}\nreturn kernel;`)(ftz32, dotF32) as (ins: Float32Array[], out: Float32Array, device: number) => void;
    const ins = [0, 1, 2, 3].map((s) => Float32Array.from({ length: 80 * n }, (_, j) => Math.fround(Math.sin(j * 0.37 + s) * 3)));
    const out = new Float32Array(n * n);
    fn(ins, out, 0);
    const f = Math.fround;
    for (let o = 0; o < n * n; o++) {
      const [r, c] = [o % n, Math.floor(o / n)];
      let p = 0;
      let q = 0;
      for (let kk = 0; kk < 80; kk++) {
        p = f(p + f(ins[0]![kk * n + r]! * ins[1]![kk * n + c]!));
        q = f(q + f(ins[2]![kk * n + r]! * ins[3]![kk * n + c]!));
      }
      expect(out[o]).toBe(f(p + q));
    }
  });
});
