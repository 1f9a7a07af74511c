// Runs every function of the WGSL math library (src/codegen/wgsl_math.ts) on a real
// Dawn device (SwiftShader without a GPU) over ~100k inputs each, and checks the
// max ulp error against float64 references rounded to float32, domain edges
// (+-0, +-inf, NaN, subnormals, overflow/underflow) exactly, and that the shaders
// pass WGSL validation. Prints the measured max-ulp table.
import { describe, expect, it } from 'vitest';
import { WGSL_MATH_FUNCTIONS, wgslMathSource } from '../../src/codegen/wgsl_math.js';
import { bitsToF32, erf64, erfInv32, erfInv64, exp32, f32ToBits, pow32 } from '../../runtime/cpu/math.js';
import { getTestDevice, runCompute } from '../helpers/gpu.js';

const device = await getTestDevice();
const fr = Math.fround;

// ---------------------------------------------------------------- helpers

function kernel(fn: string, arity: 1 | 2): string {
  return `${wgslMathSource([fn])}
@group(0) @binding(0) var<storage, read> xin: array<u32>;
${arity === 2 ? '@group(0) @binding(1) var<storage, read> yin: array<u32>;' : ''}
@group(0) @binding(${arity}) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&xin)) { return; }
  out[i] = bitcast<u32>(${fn}(bitcast<f32>(xin[i])${arity === 2 ? ', bitcast<f32>(yin[i])' : ''}));
}`;
}

/** Runs jx_<name> on the device; inputs and outputs travel as bit patterns. */
async function runGpu(fn: string, xs: number[], ys?: number[]): Promise<Float32Array> {
  const x = new Float32Array(xs);
  const inputs = [new Uint32Array(x.buffer)];
  if (ys) inputs.push(new Uint32Array(new Float32Array(ys).buffer));
  const out = await runCompute(device!, kernel(fn, ys ? 2 : 1), 'main', inputs, x.byteLength, Math.ceil(x.length / 64));
  return new Float32Array(out);
}

function ord(x: number): number {
  const b = f32ToBits(x);
  return b & 0x80000000 ? -(b & 0x7fffffff) : b;
}

/** ulp distance between a float32 result and a float64 reference rounded to float32. */
function ulpDist(got: number, ref: number): number {
  if (Number.isNaN(ref)) return Number.isNaN(got) ? 0 : Infinity;
  const r = fr(ref);
  if (!Number.isFinite(r) || !Number.isFinite(got)) return r === got ? 0 : Infinity;
  return Math.abs(ord(got) - ord(r));
}

function logspace(lo: number, hi: number, n: number): number[] {
  const a = Math.log(lo);
  const b = Math.log(hi);
  return Array.from({ length: n }, (_, i) => fr(Math.exp(a + ((b - a) * i) / (n - 1))));
}
const sym = (xs: number[]) => xs.flatMap((x) => [x, -x]);

let seed = 0x2545f491;
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
}
/** Random float32 bit patterns with |x| in [2^lo, 2^hi). */
function randBits(lo: number, hi: number, n: number, signed = true): number[] {
  return Array.from({ length: n }, () => {
    const e = Math.floor(lo + rnd() * (hi - lo)) + 127;
    const b = ((e << 23) | Math.floor(rnd() * 0x800000)) >>> 0;
    return bitsToF32(signed && rnd() < 0.5 ? (b | 0x80000000) >>> 0 : b);
  });
}

const SUBNORMALS = [bitsToF32(1), bitsToF32(0x80000001), bitsToF32(0x00400000), bitsToF32(0x807fffff), 1e-40, -1e-40];
const SPECIALS = [0, -0, Infinity, -Infinity, NaN, 1, -1, 0.5, -0.5, 2, -2, 3.4028234663852886e38, -3.4028234663852886e38, 1.1754943508222875e-38, ...SUBNORMALS].map(fr);

const logistic64 = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

interface Case {
  fn: string;
  label: string;
  ref: (x: number) => number;
  xs: number[];
  bound: number;
}

// Bounds: 2 ulp for the functions the library computes its own way (<= 1 ulp measured
// on SwiftShader, room for devices whose division, FMA contraction or optimiser differ);
// exp, expm1, tanh and erf run XLA CPU's own sequences bit for bit (test/codegen/
// transcendentals.test.ts), so their bound is the error of XLA's sequence itself.
const CASES: Case[] = [
  { fn: 'jx_exp', label: 'exp', ref: Math.exp, xs: [...sym(logspace(1e-10, 104, 40000)), ...randBits(-30, 7, 60000)], bound: 4 },
  {
    fn: 'jx_log',
    label: 'log',
    ref: Math.log,
    xs: [...logspace(1e-45, 3.4e38, 40000), ...randBits(-1, 1, 30000, false), ...randBits(-126, 128, 30000, false)],
    bound: 2,
  },
  {
    fn: 'jx_log1p',
    label: 'log1p',
    ref: Math.log1p,
    xs: [...logspace(1e-10, 3e38, 30000), ...logspace(1e-10, 0.99999994, 30000).map((x) => -x), ...randBits(-30, 2, 40000)].filter((x) => x > -1),
    bound: 2,
  },
  { fn: 'jx_expm1', label: 'expm1', ref: Math.expm1, xs: [...sym(logspace(1e-10, 89, 40000)), ...randBits(-30, 7, 60000)], bound: 5 },
  { fn: 'jx_sin', label: 'sin |x|<=1e4', ref: Math.sin, xs: [...sym(logspace(1e-10, 1e4, 40000)), ...randBits(-20, 13, 60000)], bound: 2 },
  { fn: 'jx_cos', label: 'cos |x|<=1e4', ref: Math.cos, xs: [...sym(logspace(1e-10, 1e4, 40000)), ...randBits(-20, 13, 60000)], bound: 2 },
  { fn: 'jx_tan', label: 'tan |x|<=1e4', ref: Math.tan, xs: [...sym(logspace(1e-10, 1e4, 40000)), ...randBits(-20, 13, 60000)], bound: 2 },
  { fn: 'jx_sin', label: 'sin 1e4..1e5', ref: Math.sin, xs: sym(logspace(1e4, 1e5, 50000)), bound: 2 },
  { fn: 'jx_cos', label: 'cos 1e4..1e5', ref: Math.cos, xs: sym(logspace(1e4, 1e5, 50000)), bound: 2 },
  { fn: 'jx_sin', label: 'sin 1e5..3e38', ref: Math.sin, xs: sym(logspace(1e5, 3.4e38, 50000)), bound: 2 },
  { fn: 'jx_cos', label: 'cos 1e5..3e38', ref: Math.cos, xs: sym(logspace(1e5, 3.4e38, 50000)), bound: 2 },
  { fn: 'jx_tan', label: 'tan 1e4..3e38', ref: Math.tan, xs: sym(logspace(1e4, 3.4e38, 50000)), bound: 2 },
  { fn: 'jx_tanh', label: 'tanh', ref: Math.tanh, xs: [...sym(logspace(1e-10, 20, 40000)), ...randBits(-30, 4, 60000)], bound: 4 },
  { fn: 'jx_logistic', label: 'logistic', ref: logistic64, xs: [...sym(logspace(1e-10, 110, 40000)), ...randBits(-30, 7, 60000)], bound: 2 },
  { fn: 'jx_erf', label: 'erf', ref: erf64, xs: [...sym(logspace(1e-10, 5, 40000)), ...randBits(-30, 2, 60000)], bound: 4 },
];

/** float32 values nearest to multiples of pi/2: worst cases for argument reduction. */
function nearMultiplesOfHalfPi(): number[] {
  const out: number[] = [];
  for (let k = 1; k < 70000; k += 7) {
    const v = fr((k * Math.PI) / 2);
    out.push(v, bitsToF32(f32ToBits(v) + 1), bitsToF32(f32ToBits(v) - 1), -v);
  }
  return out;
}

const table: string[] = [];

// ---------------------------------------------------------------- tests

describe.skipIf(!device)('WGSL math on Dawn', () => {
  it('the whole library passes WGSL validation', async () => {
    const src = wgslMathSource([...WGSL_MATH_FUNCTIONS]);
    const calls = WGSL_MATH_FUNCTIONS.map((f, i) => `  acc += ${f}(x${f === 'jx_pow' ? ', x' : ''}) * ${i + 1}.0;`).join('\n');
    const code = `${src}
@group(0) @binding(0) var<storage, read> xin: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() {
  let x = xin[0];
  var acc = 0.0;
${calls}
  out[0] = acc;
}`;
    const r = new Float32Array(await runCompute(device!, code, 'main', [new Float32Array([0.25])], 4, 1));
    expect(Number.isFinite(r[0]!)).toBe(true);
  });

  it('rejects invalid WGSL through runCompute', async () => {
    await expect(runCompute(device!, 'fn main( {', 'main', [new Float32Array(1)], 4, 1)).rejects.toThrow(/WGSL validation failed/);
  });

  for (const c of CASES) {
    it(`${c.label}: max ulp <= ${c.bound}`, async () => {
      const xs = [...c.xs, ...SPECIALS];
      const got = await runGpu(c.fn, xs);
      let max = 0;
      let at = 0;
      for (let i = 0; i < xs.length; i++) {
        const d = ulpDist(got[i]!, c.ref(xs[i]!));
        if (d > max) {
          max = d;
          at = xs[i]!;
        }
      }
      table.push(`${c.label.padEnd(16)} ${String(max).padStart(3)}  (bound ${c.bound}, n=${xs.length}, worst x=${at})`);
      expect(max, `worst at x=${at}`).toBeLessThanOrEqual(c.bound);
    });
  }

  it('sin/cos/tan near multiples of pi/2: max ulp <= 2', async () => {
    const xs = nearMultiplesOfHalfPi();
    for (const [fn, ref] of [
      ['jx_sin', Math.sin],
      ['jx_cos', Math.cos],
      ['jx_tan', Math.tan],
    ] as const) {
      const got = await runGpu(fn, xs);
      let max = 0;
      for (let i = 0; i < xs.length; i++) max = Math.max(max, ulpDist(got[i]!, ref(xs[i]!)));
      table.push(`${`${fn.slice(3)} near k*pi/2`.padEnd(16)} ${String(max).padStart(3)}  (bound 2, n=${xs.length})`);
      expect(max, fn).toBeLessThanOrEqual(2);
    }
  });

  it('erf_inv: XLA ErfInv32 on jx_log1p, vs true erfinv and vs the XLA replay', async () => {
    const bulk = [...sym(logspace(1e-10, 0.9, 30000)), ...randBits(-30, -1, 20000)];
    const tail = sym(Array.from({ length: 40000 }, (_, i) => fr(0.9 + (0.1 * (i + 1)) / 40001)).filter((x) => x < 1));
    const near1 = sym(Array.from({ length: 2000 }, (_, i) => fr(1 - (i + 1) * 2 ** -24)));
    const xs = [...bulk, ...tail, ...near1, ...SPECIALS];
    const got = await runGpu('jx_erf_inv', xs);
    let bulkMax = 0;
    let tailMax = 0;
    let xlaMax = 0;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const d = ulpDist(got[i]!, erfInv64(x));
      if (Math.abs(x) <= 0.9) bulkMax = Math.max(bulkMax, d);
      else tailMax = Math.max(tailMax, d);
      xlaMax = Math.max(xlaMax, ulpDist(got[i]!, erfInv32(x)));
    }
    table.push(`erf_inv |x|<=0.9  ${String(bulkMax).padStart(2)}  (bound 4; XLA's algorithm itself: 3)`);
    table.push(`erf_inv |x|>0.9   ${String(tailMax).padStart(2)}  (bound 80; XLA's algorithm itself: 65)`);
    table.push(`erf_inv vs XLA    ${String(xlaMax).padStart(2)}  (bound 4: same algorithm, log1p differs)`);
    expect(bulkMax).toBeLessThanOrEqual(4);
    expect(tailMax).toBeLessThanOrEqual(80);
    expect(xlaMax).toBeLessThanOrEqual(4);
  });

  it('pow: max ulp <= 2 on finite results', async () => {
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < 100000; i++) {
      let x: number;
      let y: number;
      if (i % 4 === 0) {
        // x near 1, large |y|: stresses the precision of y*log2(x)
        x = fr(1 + (rnd() - 0.5) * 2 ** -Math.floor(rnd() * 20));
        y = fr((rnd() - 0.5) * 2 ** Math.floor(rnd() * 30));
      } else if (i % 4 === 1) {
        // results near overflow / into the subnormal range
        x = fr(Math.exp((rnd() * 2 - 1) * 40));
        y = fr(((rnd() < 0.5 ? 88 : -100) + rnd() * 4) / Math.log(x));
      } else {
        x = fr(Math.exp((rnd() * 2 - 1) * 20));
        y = fr((rnd() * 2 - 1) * 30);
        if (i % 4 === 2) {
          y = Math.round(y);
          if (rnd() < 0.5) x = -x;
        }
      }
      xs.push(x);
      ys.push(y);
    }
    const got = await runGpu('jx_pow', xs, ys);
    let max = 0;
    let at = '';
    for (let i = 0; i < xs.length; i++) {
      const ref = Math.pow(xs[i]!, ys[i]!);
      if (!Number.isFinite(fr(ref)) || Number.isNaN(ref)) continue;
      const d = ulpDist(got[i]!, ref);
      if (d > max) {
        max = d;
        at = `x=${xs[i]} y=${ys[i]}`;
      }
    }
    table.push(`${'pow'.padEnd(16)} ${String(max).padStart(3)}  (bound 2, n=${xs.length}, worst ${at})`);
    expect(max, at).toBeLessThanOrEqual(2);
  });

  it('pow: C99 special cases, signs and integer exponents', async () => {
    const vals = [0, -0, 1, -1, 2, -2, 0.5, -0.5, 3, -8, Infinity, -Infinity, NaN, 1 / 3, 1e-40, -1e-40, 1e30].map(fr);
    const xs: number[] = [];
    const ys: number[] = [];
    for (const x of vals) for (const y of vals) xs.push(x), ys.push(y);
    const got = await runGpu('jx_pow', xs, ys);
    const bad: string[] = [];
    for (let i = 0; i < xs.length; i++) {
      const want = pow32(xs[i]!, ys[i]!);
      const g = got[i]!;
      const ok = Number.isNaN(want)
        ? Number.isNaN(g)
        : want === 0 || !Number.isFinite(want)
          ? Object.is(g, want)
          : ulpDist(g, want) <= 1;
      if (!ok) bad.push(`pow(${xs[i]}, ${ys[i]}) = ${g}, want ${want}`);
    }
    expect(bad).toEqual([]);
  });

  it('domain edges are exact', async () => {
    const N = NaN;
    const I = Infinity;
    const sub = bitsToF32(1);
    // [function, input, expected]; expected NaN means any NaN, zeros compare with sign
    const edges: [string, number, number][] = [
      ['jx_exp', 0, 1], ['jx_exp', -0, 1], ['jx_exp', I, I], ['jx_exp', -I, 0], ['jx_exp', N, N],
      ['jx_exp', 88.72283172607422, exp32(88.72283172607422)], ['jx_exp', 88.72283935546875, I], ['jx_exp', 100, I],
      ['jx_exp', -104, 0], ['jx_exp', -100, fr(Math.exp(-100))], ['jx_exp', -90, fr(Math.exp(-90))], ['jx_exp', sub, 1],
      ['jx_log', 0, -I], ['jx_log', -0, -I], ['jx_log', -1, N], ['jx_log', -I, N], ['jx_log', I, I], ['jx_log', N, N],
      ['jx_log', 1, 0], ['jx_log', sub, fr(Math.log(sub))], ['jx_log', 1e-40, fr(Math.log(fr(1e-40)))], ['jx_log', -sub, N],
      ['jx_log1p', -1, -I], ['jx_log1p', -1.5, N], ['jx_log1p', -I, N], ['jx_log1p', I, I], ['jx_log1p', 0, 0],
      ['jx_log1p', -0, -0], ['jx_log1p', sub, sub], ['jx_log1p', N, N], ['jx_log1p', fr(-0.99999994), Math.log1p(fr(-0.99999994))],
      ['jx_expm1', 0, 0], ['jx_expm1', -0, -0], ['jx_expm1', I, I], ['jx_expm1', -I, -1], ['jx_expm1', N, N],
      ['jx_expm1', sub, sub], ['jx_expm1', -sub, -sub], ['jx_expm1', 100, I], ['jx_expm1', -20, -1],
      ['jx_sin', 0, 0], ['jx_sin', -0, -0], ['jx_sin', sub, sub], ['jx_sin', -1e-40, fr(-1e-40)], ['jx_sin', I, N], ['jx_sin', -I, N], ['jx_sin', N, N],
      ['jx_cos', 0, 1], ['jx_cos', -0, 1], ['jx_cos', sub, 1], ['jx_cos', I, N], ['jx_cos', N, N],
      ['jx_tan', 0, 0], ['jx_tan', -0, -0], ['jx_tan', sub, sub], ['jx_tan', I, N], ['jx_tan', N, N],
      ['jx_tanh', 0, 0], ['jx_tanh', -0, -0], ['jx_tanh', I, 1], ['jx_tanh', -I, -1], ['jx_tanh', 50, 1], ['jx_tanh', -9.5, -1],
      ['jx_tanh', 1e38, 1], ['jx_tanh', N, N], ['jx_tanh', sub, sub], ['jx_tanh', -1e-40, fr(-1e-40)],
      ['jx_logistic', 0, 0.5], ['jx_logistic', -0, 0.5], ['jx_logistic', I, 1], ['jx_logistic', -I, 0], ['jx_logistic', N, N],
      ['jx_logistic', 100, 1], ['jx_logistic', -100, fr(Math.exp(-100))], ['jx_logistic', -110, 0],
      ['jx_erf', 0, 0], ['jx_erf', -0, -0], ['jx_erf', I, 1], ['jx_erf', -I, -1], ['jx_erf', 10, 1], ['jx_erf', -4, -1], ['jx_erf', N, N],
      ['jx_erf', 1e-40, fr(fr(1e-40) * 1.1283791670955126)], ['jx_erf', -sub, -sub * 1],
      ['jx_erf_inv', 0, 0], ['jx_erf_inv', -0, -0], ['jx_erf_inv', 1, I], ['jx_erf_inv', -1, -I], ['jx_erf_inv', 1.0000001, N],
      ['jx_erf_inv', -2, N], ['jx_erf_inv', I, N], ['jx_erf_inv', N, N], ['jx_erf_inv', 1e-40, fr(fr(1e-40) * 0.886226925452758)],
    ];
    const byFn = new Map<string, [number, number][]>();
    for (const [fn, x, want] of edges) byFn.set(fn, [...(byFn.get(fn) ?? []), [x, want]]);
    const bad: string[] = [];
    for (const [fn, list] of byFn) {
      const got = await runGpu(fn, list.map((p) => p[0]));
      list.forEach(([x, want], i) => {
        const g = got[i]!;
        const ok = Number.isNaN(want) ? Number.isNaN(g) : Object.is(g, fr(want)) || (want !== 0 && ulpDist(g, want) <= 1 && Number.isFinite(want));
        if (!ok) bad.push(`${fn}(${x}) = ${g} (0x${f32ToBits(g).toString(16)}), want ${fr(want)}`);
      });
    }
    expect(bad).toEqual([]);
  });

  it('prints the measured table', () => {
    console.log(`WGSL float32 math on ${device ? 'Dawn' : '-'}, max ulp vs float64 reference:\n  ${table.join('\n  ')}`);
  });
});

describe('wgslMathSource', () => {
  it('emits each function once, dependencies first', () => {
    const src = wgslMathSource(['jx_tanh', 'logistic', 'jx_tanh', 'jx_exp']);
    const defs = [...src.matchAll(/^fn (\w+)/gm)].map((m) => m[1]!);
    expect(new Set(defs).size).toBe(defs.length);
    for (const f of ['jx_tanh', 'jx_logistic', 'jx_exp', 'jx_exp_xla', 'jx_fma', 'jx_div', 'jx_ldexp']) expect(defs).toContain(f);
    expect(defs.indexOf('jx_fma')).toBeLessThan(defs.indexOf('jx_tanh'));
    expect(defs.indexOf('jx_exp_core')).toBeLessThan(defs.indexOf('jx_exp'));
  });
  it('provides every listed function and rejects unknown names', () => {
    const src = wgslMathSource([...WGSL_MATH_FUNCTIONS]);
    for (const f of WGSL_MATH_FUNCTIONS) expect(src).toMatch(new RegExp(`^fn ${f}\\(`, 'm'));
    expect(wgslMathSource([])).toBe('');
    expect(() => wgslMathSource(['jx_sqrtish'])).toThrow(/unknown function/);
  });
  it('uses no WGSL built-in transcendentals', () => {
    const src = wgslMathSource([...WGSL_MATH_FUNCTIONS]).replace(/\/\/.*$/gm, '');
    const builtins = /(?<![\w.])(exp|exp2|log|log2|sin|cos|tan|tanh|sinh|cosh|pow|atan|atan2|asin|acos|fma|inverseSqrt)\s*\(/g;
    expect(src.match(builtins)).toBeNull();
  });
});
