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

describe('a convolution: gathered factors', () => {
  // out[n, o, y, x] = Σ_{c, ky, kx} in[n, c, y + ky - 1, x + kx - 1] · w[o, c, ky, kx], positions in the padding read as 0
  const [NB, C, H, W, O] = [2, 3, 6, 5, 4];
  const S = NB * O * H * W;
  const K = C * 9;
  const g = gid(S);
  const r = rv(0, K);
  const n = bin('div', g, i(O * H * W));
  const o = bin('rem', bin('div', g, i(H * W)), i(O));
  const y = bin('rem', bin('div', g, i(W)), i(H));
  const x = bin('rem', g, i(W));
  const c = bin('div', r, i(9));
  const ky = bin('rem', bin('div', r, i(3)), i(3));
  const kx = bin('rem', r, i(3));
  const py = bin('add', bin('add', y, ky), i(-1));
  const px = bin('add', bin('add', x, kx), i(-1));
  const inside = (p: KExpr, size: number): KExpr => ({ op: 'bin', fn: 'and', a: { op: 'bin', fn: 'ge', a: p, b: i(0), dtype: 'bool' }, b: { op: 'bin', fn: 'lt', a: p, b: i(size), dtype: 'bool' }, dtype: 'bool' });
  const cond: KExpr = { op: 'bin', fn: 'and', a: inside(py, H), b: inside(px, W), dtype: 'bool' };
  const xi = bin('add', bin('add', bin('mul', bin('add', bin('mul', n, i(C)), c), i(H * W)), bin('mul', py, i(W))), px);
  const wi = bin('add', bin('mul', bin('add', bin('mul', o, i(C)), c), i(9)), bin('add', bin('mul', ky, i(3)), kx));
  const prod = bin('mul', ld(0, xi), ld(1, wi));
  const body: KExpr = { op: 'select', cond, a: prod, b: { op: 'const', value: 0, dtype: 'float32' }, dtype: 'float32' };
  const k: Kernel = {
    name: 'k',
    inputs: [{ dtype: 'float32', size: NB * C * H * W }, { dtype: 'float32', size: O * K }],
    output: { dtype: 'float32', size: S },
    body: dotSum(0, K, body),
    usesDevice: false,
  };

  it('packs both factors and sums each output in the scalar loop order', () => {
    const { source } = renderJs(k, 'kernel', false);
    expect(source).toContain('dotF32(px0, py0');
    const fn = new Function('ftz32', 'dotF32', `${source}\nreturn kernel;`)(ftz32, dotF32) as (ins: Float32Array[], out: Float32Array, device: number) => void;
    const ins = [k.inputs[0]!.size, k.inputs[1]!.size].map((len, s) => Float32Array.from({ length: len }, (_, j) => Math.fround(Math.sin(j * 0.61 + s) * 2)));
    const out = new Float32Array(S);
    fn(ins, out, 0);
    const f = Math.fround;
    for (let q = 0; q < S; q++) {
      const [bn, bo, by, bx] = [Math.floor(q / (O * H * W)), Math.floor(q / (H * W)) % O, Math.floor(q / W) % H, q % W];
      let acc = 0;
      for (let t = 0; t < K; t++) {
        const [cc, ty, tx] = [Math.floor(t / 9), Math.floor(t / 3) % 3, t % 3];
        const [sy, sx] = [by + ty - 1, bx + tx - 1];
        const v = sy >= 0 && sy < H && sx >= 0 && sx < W ? f(ins[0]![((bn * C + cc) * H + sy) * W + sx]! * ins[1]![(bo * C + cc) * 9 + ty * 3 + tx]!) : 0;
        acc = f(acc + v);
      }
      expect(out[q]).toBe(acc);
    }
  });

  it('keeps the scalar loop where each factor reads the whole output index', () => {
    const mixed: Kernel = { ...k, body: dotSum(0, K, bin('mul', ld(0, bin('rem', bin('mul', g, r), i(7))), ld(1, bin('rem', bin('add', g, r), i(5))))) };
    expect(renderJs(mixed, 'kernel', false).source).not.toContain('dotF32');
  });
});
