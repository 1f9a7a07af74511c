// WGSL float32 math library for generated kernels: exp, log, log1p, expm1, sin,
// cos, tan, tanh, logistic, erf, erf_inv and pow as `jx_*` functions.
//
// WGSL's built-in transcendentals are far too imprecise (and log(0), log(<0),
// tanh(large) are wrong on SwiftShader), so everything here is built from
// + - * /, sqrt, floor, comparisons, select, bitcast and integer ops only.
// Design rules, so results stay within ~1-2 ulp on any conforming device:
//  - NaN/inf/sign/zero/subnormal classification is done on the bit pattern
//    (NaN comparisons are unreliable: on SwiftShader `x != x` is false for NaN),
//    and NaN/inf are produced at run time through jx_f32(bits) (a constant
//    NaN/inf is a shader-creation error).
//  - Subnormal inputs are read through integer normalisation and subnormal
//    results are assembled with integer rounding (jx_ldexp), because devices
//    may flush denormals (SwiftShader flushes both inputs and results).
//  - Products that must be exact use operands split into 12-bit halves with a
//    bit mask (so FMA contraction cannot change them); argument reduction for
//    sin/cos/tan is a Payne-Hanek reduction in 32-bit integer arithmetic, exact
//    for every float32 input; divisions that dominate the error go through
//    jx_div, which corrects the quotient with an exact residual (WGSL allows
//    2.5 ulp for `/`).
//  - Optimisers may fold algebraic identities (SwiftShader's SPIR-V optimiser
//    turns x - ((1 + x) - 1) into 0), so no result depends on an error-free
//    transformation surviving: rounding errors that matter are recovered with
//    integer-derived scalings (jx_add1_err) or 12-bit masked splits, and the
//    few remaining Fast2Sum corrections are optional refinements. Generic
//    reassociation of unrelated terms is assumed not to happen.
// exp, log, log1p, expm1, tanh, logistic, erf and erf_inv replay XLA CPU's own sequences (the
// CPU backend's, runtime/cpu/math.ts) so that both backends print what jax prints: plain
// operations where XLA rounds twice, and jx_fma where LLVM contracts XLA's code into a fused
// multiply-add (WGSL's fma() need not be fused: SwiftShader's rounds twice). The library's own
// kernels remain for what XLA's sequences leave to the device: subnormal inputs and results
// (jx_exp below -87.34, jx_log of a subnormal), and sin, cos, tan and pow (glibc's in XLA).

import { RSQRT_ESTIMATE } from '../../runtime/cpu/rsqrt_table.js';

interface MathFn {
  deps: readonly string[];
  code: string;
}

/** Public functions this module provides (in the order they are documented). */
export const WGSL_MATH_FUNCTIONS: readonly string[] = [
  'jx_exp',
  'jx_atan_xla',
  'jx_log',
  'jx_log1p',
  'jx_expm1',
  'jx_sin',
  'jx_cos',
  'jx_tan',
  'jx_tanh',
  'jx_logistic',
  'jx_erf',
  'jx_erf_inv',
  'jx_pow',
];

/** WGSL literal for a float32 value (exact: the shortest double repr of the float32). */
function f32lit(v: number): string {
  const r = Math.fround(v);
  if (!Number.isFinite(r)) throw new Error(`f32lit: ${v}`);
  const s = String(r);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

// --- pow's log2 table: c_i = 1 + i/32 (i = -9..13), invc_i = 1/c_i rounded to 12
// significant bits (so m_hi * invc_i is exact; invc = 1 at i = 0), and
// G_i = -log2(invc_i) as a 12-bit head (so e + head is exact) plus a float tail.
const hi12 = (v: number) => {
  const b = new Float32Array([v]);
  new Uint32Array(b.buffer)[0]! &= 0xfffff000;
  return b[0]!;
};
const POW_TABLE = (() => {
  const invc: number[] = [];
  const ghi: number[] = [];
  const glo: number[] = [];
  for (let i = -9; i <= 13; i++) {
    const v = 1 / (1 + i / 32);
    const k = v >= 1 ? 11 : 12;
    const ic = i === 0 ? 1 : Math.round(v * 2 ** k) / 2 ** k;
    const g = -Math.log2(ic);
    const h = hi12(g);
    invc.push(ic);
    ghi.push(h);
    glo.push(Math.fround(g - h));
  }
  return { invc, ghi, glo };
})();
const LOG2E_HI = hi12(Math.LOG2E);
const LOG2E_LO = Math.fround(Math.LOG2E - LOG2E_HI);

const arr = (xs: number[]) => xs.map(f32lit).join(', ');

/** WGSL literal of the float32 with bit pattern b (XLA's constants are quoted by their bits). */
function fb(b: number): string {
  return f32lit(new Float32Array(new Uint32Array([b]).buffer)[0]!);
}
/** c0 + w * (c1 + w * (... + w * cn)) as fdlibm's atanf writes it (plain operations, rounded each), c_i by bits */
function atanHorner(bits: number[]): string {
  return bits.slice(0, -1).reduceRight((acc, b) => `(${fb(b)} + w * ${acc})`, fb(bits[bits.length - 1]!));
}
/**
 * XLA CPU's rsqrt estimate table (runtime/cpu/rsqrt_table.ts) in 256 chunks of 32 entries, three words a
 * chunk: the first entry's 12-bit field, then the 31 decrements to the next entries, 2 bits each (16 in the
 * second word, 15 in the third).
 */
const RSQRT_CHUNKS: number[] = (() => {
  const out: number[] = [];
  for (let c = 0; c < 256; c++) {
    const v = (j: number): number => RSQRT_ESTIMATE[c * 32 + j]!;
    let lo = 0;
    let hi = 0;
    for (let j = 1; j < 32; j++) {
      const d = v(j - 1) - v(j);
      if (j <= 16) lo |= d << (2 * (j - 1));
      else hi |= d << (2 * (j - 17));
    }
    out.push(v(0), lo >>> 0, hi >>> 0);
  }
  return out;
})();

/** A Horner chain as XLA CPU runs it: `v = jx_fma(x, v, c)` per constant (`jx_fma(v, x, c)` with vFirst). */
function fmaChain(v: string, x: string, bits: number[], vFirst = false): string {
  return bits.map((b) => (vFirst ? `  ${v} = jx_fma(${v}, ${x}, ${fb(b)});` : `  ${v} = jx_fma(${x}, ${v}, ${fb(b)});`)).join('\n');
}

const FUNCS: Record<string, MathFn> = {
  jx_f32: {
    deps: [],
    code: `// float32 from bits, evaluated at run time (a const NaN/inf is a shader-creation error)
fn jx_f32(b: u32) -> f32 { return bitcast<f32>(b); }`,
  },
  jx_isnan: {
    deps: [],
    code: `fn jx_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }`,
  },
  jx_nan: {
    deps: ['jx_f32'],
    code: `fn jx_nan() -> f32 { return jx_f32(0x7fc00000u); }`,
  },
  // XLA's semantics at the edges, where WGSL's built-ins differ (NaN, -0, out-of-range conversions)
  jx_max: {
    deps: ['jx_isnan'],
    code: `// XLA's max (LLVM's maximum): NaN propagates and -0 < +0 (WGSL's max may return the other operand)
fn jx_max(a: f32, b: f32) -> f32 {
  if (jx_isnan(a)) { return a; }
  if (jx_isnan(b)) { return b; }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b)); }
  return select(b, a, a > b);
}`,
  },
  jx_min: {
    deps: ['jx_isnan'],
    code: `// XLA's min (LLVM's minimum): NaN propagates and -0 < +0
fn jx_min(a: f32, b: f32) -> f32 {
  if (jx_isnan(a)) { return a; }
  if (jx_isnan(b)) { return b; }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b)); }
  return select(b, a, a < b);
}`,
  },
  jx_ftz: {
    deps: [],
    code: `// a subnormal as a zero of its sign (XLA CPU's flush to zero), on the bits
fn jx_ftz(x: f32) -> f32 { return select(x, bitcast<f32>(bitcast<u32>(x) & 0x80000000u), (bitcast<u32>(x) & 0x7f800000u) == 0u); }`,
  },
  jx_sign: {
    deps: ['jx_isnan'],
    code: `// XLA's sign: ±0 and NaN are returned as they are (WGSL's sign gives 0)
fn jx_sign(x: f32) -> f32 { return select(sign(x), x, (bitcast<u32>(x) & 0x7fffffffu) == 0u || jx_isnan(x)); }`,
  },
  jx_f2i: {
    deps: ['jx_isnan'],
    code: `// float32 → int32 as XLA converts: truncation, saturating at the int32 range, NaN → 0
fn jx_f2i(x: f32) -> i32 {
  if (jx_isnan(x)) { return 0i; }
  if (x >= 2147483648.0f) { return 2147483647i; }
  if (x <= -2147483648.0f) { return i32(-2147483647 - 1); }
  return i32(x);
}`,
  },
  jx_f16: {
    deps: [],
    code: `// a float32 rounded to float16 (to nearest even; overflow to ±inf; subnormals on the 2^-24 grid), held in a float32
fn jx_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let a = b & 0x7fffffffu;
  let s = b & 0x80000000u;
  if (a >= 0x7f800000u) { return x; }
  if (a >= 0x477ff000u) { return bitcast<f32>(s | 0x7f800000u); }
  if (a < 0x38800000u) { return bitcast<f32>(s | bitcast<u32>(round(bitcast<f32>(a) * 16777216.0f) / 16777216.0f)); }
  return bitcast<f32>(s | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
}`,
  },
  jx_bf16: {
    deps: [],
    code: `// a float32 rounded to bfloat16 (to nearest even; NaN stays NaN), held in a float32
fn jx_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return x; }
  return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}`,
  },
  jx_f2u: {
    deps: ['jx_isnan'],
    code: `// float32 → uint32 as XLA converts: truncation, saturating at the uint32 range, NaN → 0
fn jx_f2u(x: f32) -> u32 {
  if (jx_isnan(x) || x <= 0.0f) { return 0u; }
  if (x >= 4294967296.0f) { return 4294967295u; }
  return u32(x);
}`,
  },
  jx_atan: {
    deps: ['jx_div', 'jx_f32'],
    code: `// atan as glibc's atanf (fdlibm, which XLA CPU calls), operation for operation; divisions through jx_div
fn jx_atan(x: f32) -> f32 {
  let hx = bitcast<u32>(x);
  let ix = hx & 0x7fffffffu;
  let neg = (hx & 0x80000000u) != 0u;
  if (ix >= 0x4c000000u) {
    if (ix > 0x7f800000u) { return x; }
    let r = jx_f32(0x3fc90fdau) + jx_f32(0x33a22168u);
    return select(r, -r, neg);
  }
  if (ix < 0x31000000u) { return x; }
  var t = x;
  var id = -1;
  let a = abs(x);
  if (ix >= 0x3ee00000u) {
    if (ix < 0x3f300000u) { id = 0; t = jx_div(2.0f * a - 1.0f, 2.0f + a); }
    else if (ix < 0x3f980000u) { id = 1; t = jx_div(a - 1.0f, a + 1.0f); }
    else if (ix < 0x401c0000u) { id = 2; t = jx_div(a - 1.5f, 1.0f + 1.5f * a); }
    else { id = 3; t = jx_div(-1.0f, a); }
  }
  let z = t * t;
  let w = z * z;
  let s1 = z * ${atanHorner([0x3eaaaaab, 0x3e124925, 0x3dba2e6e, 0x3d886b35, 0x3d4bda59, 0x3c8569d7])};
  let s2 = w * ${atanHorner([0xbe4ccccd, 0xbde38e38, 0xbd9d8795, 0xbd6ef16b, 0xbd15a221])};
  let p = t * (s1 + s2);
  if (id < 0) { return t - p; }
  var hi = ${fb(0x3fc90fda)};
  var lo = ${fb(0x33a22168)};
  if (id == 0) { hi = ${fb(0x3eed6338)}; lo = ${fb(0x31ac3769)}; }
  else if (id == 1) { hi = ${fb(0x3f490fda)}; lo = ${fb(0x33222168)}; }
  else if (id == 2) { hi = ${fb(0x3f7b985e)}; lo = ${fb(0x33140fb4)}; }
  let r = hi - ((p - lo) - t);
  return select(r, -r, neg);
}`,
  },
  jx_atan_xla: {
    deps: ['jx_fma', 'jx_div'],
    code: `// XLA CPU's own atan (xla.atan.f32), which its loop runs for the elements it does not vectorize
// (runtime/cpu/math.ts atanXla32): r = min(|x|, 1/|x|), r * P(r²)/Q(r²) with fmas, π/2 - that above 1
fn jx_atan_xla(x: f32) -> f32 {
  let a = abs(x);
  if (!(a >= ${fb(0x3a83126f)})) { return x; }
  let big = a > 1.0f;
  // 1/|x| is subnormal (flushed by XLA's FTZ) from 2^126 on; jx_div cannot take an infinite divisor
  let r = select(a, select(jx_div(1.0f, a), 0.0f, a >= ${fb(0x7e800000)}), big);
  let z = r * r;
  let p = jx_fma(jx_fma(z, ${fb(0x3de56e67)}, ${fb(0x3f3acba0)}), z, ${fb(0x3f4f9d60)});
  let q = jx_fma(jx_fma(jx_fma(z, ${fb(0x3c2557b4)}, ${fb(0x3e90fdb4)}), z, 1.0f), z, ${fb(0x3f4f9d60)});
  var v = r * jx_div(p, q);
  if (big) { v = ${fb(0x3fc90fdb)} - v; }
  return select(v, -v, (bitcast<u32>(x) & 0x80000000u) != 0u);
}`,
  },
  jx_atan2: {
    deps: ['jx_isnan', 'jx_nan', 'jx_copysign', 'jx_atan', 'jx_div'],
    code: `// atan2 as glibc's atan2f (fdlibm, which XLA CPU calls), with C's rules for NaN, signed zeros and
// infinities (WGSL's atan2 leaves them undefined)
fn jx_atan2(y: f32, x: f32) -> f32 {
  if (jx_isnan(y) || jx_isnan(x)) { return jx_nan(); }
  if (bitcast<u32>(x) == 0x3f800000u) { return jx_atan(y); }
  let ay = bitcast<u32>(y) & 0x7fffffffu;
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  let pi = ${fb(0x40490fdb)};
  let pi_lo = ${fb(0xb3bbbd2e)};
  if (ay == 0u) { return select(y, jx_copysign(pi, y), xneg); }
  if (ax == 0u) { return jx_copysign(${fb(0x3fc90fdb)}, y); }
  if (ay == 0x7f800000u) {
    if (ax == 0x7f800000u) { return jx_copysign(select(${fb(0x3f490fdb)}, ${fb(0x4016cbe4)}, xneg), y); }
    return jx_copysign(${fb(0x3fc90fdb)}, y);
  }
  if (ax == 0x7f800000u) { return jx_copysign(select(0.0f, pi, xneg), y); }
  let k = (i32(ay) - i32(ax)) >> 23u;
  var z: f32;
  if (k > 60) { z = ${fb(0x3fc90fdb)} + 0.5f * pi_lo; }
  else if (xneg && k < -60) { z = 0.0f; }
  else { z = jx_atan(abs(jx_div(y, x))); }
  if (!xneg) { return jx_copysign(z, y); }
  // pi_lo built from x's sign bit (set here), so that the optimiser cannot fold pi - (z - pi_lo) into (pi + pi_lo) - z
  let lo = bitcast<f32>((bitcast<u32>(x) & 0x80000000u) | 0x33bbbd2eu);
  let r = pi - (z - lo);
  return jx_copysign(r, y);
}`,
  },
  jx_rsqrt: {
    deps: ['jx_isnan', 'jx_nan', 'jx_fma'],
    code: `// XLA CPU's rsqrt: the hardware estimate of the oracle's machine (a table over the exponent's parity and the
// top 12 mantissa bits, runtime/cpu/rsqrt_table.ts) and one Newton step with fused multiply-adds
const JX_RSQRT = array<u32, 768>(${RSQRT_CHUNKS.map((w) => `${w}u`).join(', ')});
fn jx_rsqrt(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if (jx_isnan(x)) { return jx_nan(); }
  if ((b & 0x7fffffffu) < 0x00800000u) { return bitcast<f32>((b & 0x80000000u) | 0x7f800000u); }
  if (b >= 0x80000000u) { return jx_nan(); }
  if (b == 0x7f800000u) { return 0.0f; }
  let e = i32(b >> 23u) - 127;
  let idx = (u32(e & 1) << 12u) | ((b >> 11u) & 0xfffu);
  let c = (idx >> 5u) * 3u;
  let j = idx & 31u;
  let lo = JX_RSQRT[c + 1u] & select(0xffffffffu, (1u << (2u * j)) - 1u, j < 16u);
  let hi = JX_RSQRT[c + 2u] & select(0u, (1u << (2u * (j - 16u))) - 1u, j > 16u);
  let dec = countOneBits(lo) + countOneBits(lo & 0xaaaaaaaau) + countOneBits(hi) + countOneBits(hi & 0xaaaaaaaau);
  let field = JX_RSQRT[c] - dec;
  let y = bitcast<f32>((u32(126 - (e >> 1u)) << 23u) | (field << 11u));
  return jx_fma(y * -0.5f, jx_fma(x * y, y, -1.0f), y);
}`,
  },
  jx_copysign: {
    deps: [],
    code: `fn jx_copysign(mag: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(mag) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}`,
  },
  jx_exp2i: {
    deps: [],
    code: `// 2^k for k in [-126, 127]
fn jx_exp2i(k: i32) -> f32 { return bitcast<f32>(u32(k + 127) << 23u); }`,
  },
  jx_ldexp: {
    deps: [],
    code: `// y * 2^k for finite, normal, nonzero y: exact, or correctly rounded into the
// subnormal range; overflow gives +-inf. Integer-only, so flush-to-zero cannot bite.
fn jx_ldexp(y: f32, k: i32) -> f32 {
  let u = bitcast<u32>(y);
  let s = u & 0x80000000u;
  let e = i32((u >> 23u) & 0xffu) + k;
  if (e >= 255) { return bitcast<f32>(s | 0x7f800000u); }
  if (e >= 1) { return bitcast<f32>(s | (u32(e) << 23u) | (u & 0x007fffffu)); }
  let sh = 1 - e;
  if (sh > 25) { return bitcast<f32>(s); }
  let shu = u32(sh);
  let m = (u & 0x007fffffu) | 0x00800000u;
  let q = m >> shu;
  let rem = m & ((1u << shu) - 1u);
  let half = 1u << (shu - 1u);
  let up = select(0u, 1u, rem > half || (rem == half && (q & 1u) == 1u));
  return bitcast<f32>(s | (q + up));
}`,
  },
  jx_split_exp: {
    deps: [],
    code: `struct jx_mexp { m: f32, e: i32 }
// |x| = m * 2^e with m in [1, 2), from the bits of |x| (finite, nonzero; subnormals included)
fn jx_split_exp(ax: u32) -> jx_mexp {
  var e = i32(ax >> 23u);
  var mb = ax & 0x007fffffu;
  if (e == 0) {
    let s = countLeadingZeros(mb) - 8u;
    mb = (mb << s) & 0x007fffffu;
    e = 1 - i32(s);
  }
  return jx_mexp(bitcast<f32>(mb | 0x3f800000u), e - 127);
}`,
  },
  jx_hi12: {
    deps: [],
    code: `// the upper 12 significant bits of x (x - jx_hi12(x) is exact and has <= 12 bits)
fn jx_hi12(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u); }`,
  },
  jx_add1_err: {
    deps: [],
    code: `// (1 + x) - up exactly, for up = fl(1 + x) and x in [-0.5, 2^23]. Worked in units of
// ulp(up) with scalings built from up's bits, so no optimiser can fold it to zero
// the way it folds x - ((1 + x) - 1).
fn jx_add1_err(x: f32, up: f32) -> f32 {
  let eb = bitcast<u32>(up) & 0x7f800000u;
  let g = bitcast<f32>(eb - 0x0b800000u);
  let invg = bitcast<f32>(0x8a800000u - eb);
  let uu = f32((bitcast<u32>(up) & 0x007fffffu) | 0x00800000u);
  return ((invg - uu) + x * invg) * g;
}`,
  },
  jx_fma: {
    deps: ['jx_hi12'],
    code: `// a*b + c rounded once, as XLA CPU's vfmadd: WGSL's fma() need not be fused (SwiftShader's rounds
// twice), so a*b = ph + pl exactly (Dekker, 12-bit masked halves), ph + c = s + e (TwoSum), s + (e + pl).
// Matches a correctly rounded fma on all of 200k random operand triples on SwiftShader.
fn jx_fma(a: f32, b: f32, c: f32) -> f32 {
  let ph = a * b;
  let ah = jx_hi12(a);
  let al = a - ah;
  let bh = jx_hi12(b);
  let bl = b - bh;
  let pl = (((ah * bh - ph) + ah * bl) + al * bh) + al * bl;
  let s = ph + c;
  let bb = s - ph;
  let e = (ph - (s - bb)) + (c - bb);
  return s + (e + pl);
}`,
  },
  jx_div: {
    deps: ['jx_hi12'],
    code: `// a / b to ~0.5 ulp whatever the device's division accuracy (normal-range operands):
// the residual a - q*b is formed exactly from 12-bit pieces.
fn jx_div(a: f32, b: f32) -> f32 {
  let q = a / b;
  let qh = jx_hi12(q);
  let ql = q - qh;
  let bh = jx_hi12(b);
  let bl = b - bh;
  let r = (((a - qh * bh) - qh * bl) - ql * bh) - ql * bl;
  return q + r / b;
}`,
  },
  jx_mul_tiny: {
    deps: ['jx_split_exp', 'jx_ldexp'],
    code: `// x * c for tiny (possibly subnormal) x and c in [0.5, 2), correct without denormal support
fn jx_mul_tiny(x: f32, c: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax == 0u) { return x; }
  let me = jx_split_exp(ax);
  let y = jx_ldexp(me.m * c, me.e);
  return bitcast<f32>(bitcast<u32>(y) | (bitcast<u32>(x) & 0x80000000u));
}`,
  },

  // ---------------------------------------------------------------- exp
  jx_exp_core: {
    deps: ['jx_add1_err'],
    code: `struct jx_expr { k: i32, hi: f32, lo: f32 }
// exp(x) = (hi + lo) * 2^k for |x| <= 104: Cody-Waite x = k ln2 + rh + rl (k*C1 exact),
// minimax e^r - 1 on |r| <= ln2/2 with the linear part unrounded, lo = rounding error of 1 + p
fn jx_exp_core(x: f32) -> jx_expr {
  let k = floor(x * 1.44269504 + 0.5);
  let rh = x - k * 0.693359375;
  let rl = k * 2.12194440e-4;
  let r = rh + rl;
  let q = (r * r) * (0.500000012 + r * (0.166666655 + r * (0.0416657959 + r * (0.00833345190 + r * (0.00139819995 + r * 0.000198756915)))));
  let p = rh + (rl + q);
  let hi = 1.0 + p;
  return jx_expr(i32(k), hi, jx_add1_err(p, hi));
}`,
  },
  jx_exp_xla: {
    deps: ['jx_fma'],
    code: `// XLA CPU's exp (Cephes polynomial; fma where LLVM contracts) for x >= -87.33654, NaN and +inf:
// p * 2^n with x clamped to [-87.8, 88.8] and n to [-127, 127]
fn jx_exp_xla(x: f32) -> f32 {
  let v = clamp(x, ${f32lit(-87.8)}, ${f32lit(88.8)});
  let fx = clamp(floor(jx_fma(v, ${fb(0x3fb8aa3b)}, 0.5)), -127.0, 127.0);
  var r = jx_fma(-fx, ${fb(0x3f318000)}, v);
  r = jx_fma(-fx, ${fb(0xb95e8083)}, r);
  var y = jx_fma(r, ${fb(0x39506967)}, ${fb(0x3ab743ce)});
${fmaChain('y', 'r', [0x3c088908, 0x3d2aa9c1, 0x3e2aaaaa, 0x3f000000], true)}
  y = jx_fma(y, r * r, r) + 1.0;
  return y * bitcast<f32>(u32(i32(fx) + 127) << 23u);
}`,
  },
  jx_exp: {
    deps: ['jx_f32', 'jx_ldexp', 'jx_exp_core', 'jx_exp_xla'],
    code: `// exp: XLA CPU's sequence where the result is normal; below -87.33654 (subnormal results)
// the fdlibm-style kernel with integer scaling
fn jx_exp(x: f32) -> f32 {
  let u = bitcast<u32>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) { return x; }
  if (u >= 0x42b17218u && u <= 0x7f800000u) { return jx_f32(0x7f800000u); }
  if (u <= 0x7f800000u || x >= -87.33654) { return jx_exp_xla(x); }
  if (u >= 0xc2d00000u) { return 0.0; }
  let c = jx_exp_core(x);
  return jx_ldexp(c.hi + c.lo, c.k);
}`,
  },

  // ---------------------------------------------------------------- log family
  jx_log_core: {
    deps: [],
    code: `// log(1+f) + fe*ln2 + c for f in [sqrt(1/2)-1, sqrt(2)-1] (fdlibm logf kernel,
// ln2 split so fe*C1 is exact)
fn jx_log_core(f: f32, fe: f32, c: f32) -> f32 {
  let s = f / (2.0 + f);
  let z = s * s;
  let w = z * z;
  let rr = z * (0.66666662693 + w * 0.28498786688) + w * (0.40000972152 + w * 0.24279078841);
  let hfsq = 0.5 * f * f;
  let lo = fe * -2.12194440e-4 + (c + s * (hfsq + rr));
  // fe*C1 + f as an exact pair (Fast2Sum: |fe*C1| >= |f| unless fe == 0)
  let a = fe * 0.693359375;
  let sh = a + f;
  let sl = f - (sh - a);
  return sh + ((sl - hfsq) + lo);
}`,
  },
  jx_log_xla: {
    deps: ['jx_fma'],
    code: `// XLA CPU's log (Eigen/Cephes plog_float, fma where LLVM contracts) for normal x > 0
fn jx_log_xla(x: f32) -> f32 {
  let bits = bitcast<u32>(x);
  var e = f32(i32(bits >> 23u) - 126);
  let m = bitcast<f32>((bits & 0x807fffffu) | 0x3f000000u);
  let mask = m < ${fb(0x3f3504f3)};
  var xm = m - 1.0;
  e = e - select(0.0, 1.0, mask);
  xm = xm + select(0.0, m, mask);
  let x2 = xm * xm;
  let x3 = x2 * xm;
  var y = jx_fma(${fb(0x3d9021bb)}, xm, ${fb(0xbdebd1b8)});
  var y1 = jx_fma(${fb(0xbdfe5d4f)}, xm, ${fb(0x3e11e9bf)});
  var y2 = jx_fma(${fb(0x3e4cceac)}, xm, ${fb(0xbe7ffffc)});
  y = jx_fma(y, xm, ${fb(0x3def251a)});
  y1 = jx_fma(y1, xm, ${fb(0xbe2aae50)});
  y2 = jx_fma(y2, xm, ${fb(0x3eaaaaaa)});
  y = jx_fma(y, x3, y1);
  y = jx_fma(y, x3, y2);
  y = jx_fma(y, x3, e * ${fb(0xb95e8083)});
  let r = y + jx_fma(-0.5, x2, xm);
  return jx_fma(e, ${fb(0x3f318000)}, r);
}`,
  },
  jx_log: {
    deps: ['jx_f32', 'jx_nan', 'jx_split_exp', 'jx_log_core', 'jx_log_xla'],
    code: `// log: XLA CPU's sequence for normal inputs; subnormal ones read through integer normalisation
fn jx_log(x: f32) -> f32 {
  let u = bitcast<u32>(x);
  let ax = u & 0x7fffffffu;
  if (ax > 0x7f800000u) { return jx_nan(); }
  if (ax == 0u) { return jx_f32(0xff800000u); }
  if (u >= 0x80000000u) { return jx_nan(); }
  if (u == 0x7f800000u) { return x; }
  if (ax >= 0x00800000u) { return jx_log_xla(x); }
  let me = jx_split_exp(ax);
  var m = me.m;
  var e = me.e;
  if (m > 1.41421356) { m = m * 0.5; e = e + 1; }
  return jx_log_core(m - 1.0, f32(e), 0.0);
}`,
  },
  jx_log1p: {
    deps: ['jx_fma', 'jx_log'],
    code: `// XLA's log1p: the Cephes rational x - x^2/2 + x^3 P(x)/Q(x) below sqrt(2)-1, else log(1 + x)
fn jx_log1p(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax > 0x7f800000u) { return x; }
  if (ax < 0x33800000u) { return x; }
  if (ax >= 0x3ed413cdu) { return jx_log(x + 1.0); }
  let x2 = x * x;
  var d = 1.0;
  var n = ${f32lit(4.5270000862445199635215e-5)};
${[0x3eff40c5, 0x40d284fa, 0x41ef4b9c, 0x4273cc76, 0x426473ad, 0x41a05101].map((b, i) => `  d = jx_fma(d, x, ${fb([0x417101ad, 0x42a6185b, 0x435dc32d, 0x439a8ca3, 0x43586d8a, 0x42707982][i]!)});\n  n = jx_fma(n, x, ${fb(b)});`).join('\n')}
  let t = jx_fma(-0.5, x2, (x * x2) * (n / d));
  return x + t;
}`,
  },

  // ---------------------------------------------------------------- expm1
  jx_expm1: {
    deps: ['jx_exp_xla', 'jx_tanh'],
    code: `// XLA's expm1: exp(x) - 1 for |x| > 0.5, else tanh(x/2) * (exp(x) + 1); -1 below -87.33654
fn jx_expm1(x: f32) -> f32 {
  let u = bitcast<u32>(x);
  let ax = u & 0x7fffffffu;
  if (ax > 0x7f800000u) { return x; }
  // below 2^-24 XLA's tanh(x/2) * (exp(x) + 1) is x/2 * 2 (x/2 may be subnormal, which a device flushes)
  if (ax < 0x33800000u) { return x; }
  let small = ax <= 0x3f000000u;
  if (!small && u > 0x80000000u && x < -87.33654) { return -1.0; }
  let e = jx_exp_xla(x);
  if (!small) { return e - 1.0; }
  return jx_tanh(x * 0.5) * (e + 1.0);
}`,
  },

  // ---------------------------------------------------------------- tanh, logistic
  jx_tanh: {
    deps: ['jx_fma', 'jx_div'],
    code: `// XLA CPU's tanh (Eigen's rational x P(x^2) / Q(x^2), fma where LLVM contracts, clamped to
// +-7.9988); x below 4e-4, +-1 from 20
fn jx_tanh(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax > 0x7f800000u) { return x; }
  if (ax >= 0x41a00000u) { return bitcast<f32>((bitcast<u32>(x) & 0x80000000u) | 0x3f800000u); }
  if (bitcast<f32>(ax) < ${f32lit(4e-4)}) { return x; }
  let v = clamp(x, ${fb(0xc0fff644)}, ${fb(0x40fff644)});
  let v2 = v * v;
  var p = jx_fma(v2, ${fb(0xa59f25c0)}, ${fb(0x2a61337e)});
${fmaChain('p', 'v2', [0xaebd37ff, 0x335c0041, 0x3779434a, 0x3a270ded, 0x3ba059dc])}
  var q = jx_fma(v2, ${fb(0x35a0d3d8)}, ${fb(0x38f895d6)});
${fmaChain('q', 'v2', [0x3b14aa05, 0x3ba059dd])}
  return jx_div(v * p, q);
}`,
  },
  jx_logistic: {
    deps: ['jx_nan', 'jx_isnan', 'jx_exp', 'jx_div'],
    code: `// XLA CPU's logistic, as the CPU backend runs it: 1 / (exp(-x) + 1); exp(x) below -87.33654
fn jx_logistic(x: f32) -> f32 {
  if (jx_isnan(x)) { return jx_nan(); }
  if (x < -87.33654) { return jx_exp(x); }
  return jx_div(1.0, jx_exp(-x) + 1.0);
}`,
  },

  // ---------------------------------------------------------------- sin, cos, tan
  jx_umul: {
    deps: [],
    code: `// full 32x32 -> 64-bit product as (lo, hi)
fn jx_umul(a: u32, b: u32) -> vec2<u32> {
  let al = a & 0xffffu;
  let ah = a >> 16u;
  let bl = b & 0xffffu;
  let bh = b >> 16u;
  let ll = al * bl;
  let lh = al * bh;
  let hl = ah * bl;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return vec2<u32>(a * b, ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}`,
  },
  jx_trig_reduce: {
    deps: ['jx_umul', 'jx_exp2i'],
    code: `// 2/pi in 32-bit words, after one word of leading zeros
const JX_TWO_OVER_PI = array<u32, 10>(0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
  0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au);
struct jx_trig { q: u32, hi: f32, lo: f32 }
// x = q*pi/2 + (hi + lo), |hi + lo| <= pi/4, for finite x. Payne-Hanek in integers:
// exact for every float32 (the result carries ~48 bits of the reduced argument).
fn jx_trig_reduce(x: f32) -> jx_trig {
  let u = bitcast<u32>(x);
  let ax = u & 0x7fffffffu;
  if (ax <= 0x3f490fdbu) { return jx_trig(0u, x, 0.0); }
  // |x| = m * 2^E; only bits E-1 .. E+94 of 2/pi matter modulo 4
  let big_e = i32(ax >> 23u) - 150;
  let m = (ax & 0x007fffffu) | 0x00800000u;
  let j = u32(big_e + 30);
  let w = j >> 5u;
  let sh = j & 31u;
  let t0 = JX_TWO_OVER_PI[w];
  let t1 = JX_TWO_OVER_PI[w + 1u];
  let t2 = JX_TWO_OVER_PI[w + 2u];
  let t3 = JX_TWO_OVER_PI[w + 3u];
  var b2 = t0;
  var b1 = t1;
  var b0 = t2;
  if (sh != 0u) {
    b2 = (t0 << sh) | (t1 >> (32u - sh));
    b1 = (t1 << sh) | (t2 >> (32u - sh));
    b0 = (t2 << sh) | (t3 >> (32u - sh));
  }
  // m * (b2:b1:b0) mod 2^96 = quadrant (2 bits) . fraction (94 bits)
  let p0 = jx_umul(m, b0);
  let p1 = jx_umul(m, b1);
  var f0 = p0.x;
  var f1 = p1.x + p0.y;
  let top = m * b2 + p1.y + select(0u, 1u, f1 < p1.x);
  var q = top >> 30u;
  var f2 = top & 0x3fffffffu;
  var neg = false;
  if ((f2 & 0x20000000u) != 0u) {
    // fraction >= 1/2: next quadrant, fraction - 1 (negate the 94-bit value)
    q = q + 1u;
    neg = true;
    f0 = ~f0 + 1u;
    let c0 = select(0u, 1u, f0 == 0u);
    f1 = ~f1 + c0;
    let c1 = select(0u, 1u, f1 == 0u && c0 == 1u);
    f2 = (~f2 + c1) & 0x3fffffffu;
  }
  // normalise the 96-bit fraction so its leading one is bit 95
  var ws = 0u;
  if (f2 == 0u) { f2 = f1; f1 = f0; f0 = 0u; ws = 32u; }
  if (f2 == 0u) { f2 = f1; f1 = f0; f0 = 0u; ws = 64u; }
  if (f2 == 0u) { return jx_trig(q & 3u, 0.0, 0.0); }
  let s = countLeadingZeros(f2);
  var hi32 = f2;
  if (s != 0u) { hi32 = (f2 << s) | (f1 >> (32u - s)); }
  // radians = hi32 * 2^(-30-lz) quarter turns * pi/2, pi/2 = 0xc90fdaa2 * 2^-31
  let pr = jx_umul(hi32, 0xc90fdaa2u);
  var ph = pr.y;
  var pl = pr.x;
  var e2 = 0;
  if ((ph & 0x80000000u) == 0u) {
    ph = (ph << 1u) | (pl >> 31u);
    pl = pl << 1u;
    e2 = 1;
  }
  let sc = -61 - i32(ws + s) - e2;
  var hi = f32(ph >> 8u) * jx_exp2i(sc + 40);
  var lo = f32(((ph & 0xffu) << 16u) | (pl >> 16u)) * jx_exp2i(max(sc + 16, -126));
  if (neg != ((u & 0x80000000u) != 0u)) {
    hi = -hi;
    lo = -lo;
  }
  if ((u & 0x80000000u) != 0u) { q = 0u - q; }
  return jx_trig(q & 3u, hi, lo);
}`,
  },
  jx_sin_poly: {
    deps: [],
    code: `// sin(r + rl), |r| <= pi/4, |rl| <= ulp(r)
fn jx_sin_poly(r: f32, rl: f32) -> f32 {
  let z = r * r;
  let s = (r * z) * (-0.166666672 + z * (0.0083333794 + z * (-0.000198530761 + z * 2.83274471e-6)));
  return r + (s + rl * (1.0 - 0.5 * z));
}`,
  },
  jx_cos_poly: {
    deps: ['jx_hi12', 'jx_add1_err'],
    code: `// cos(r + rl), |r| <= pi/4; r*r/2 is formed exactly from 12-bit halves
fn jx_cos_poly(r: f32, rl: f32) -> f32 {
  let z = r * r;
  let c = (z * z) * (0.0416666679 + z * (-0.001388898 + z * (2.48220022e-5 + z * -2.88774373e-7)));
  let rh = jx_hi12(r);
  let rt = r - rh;
  let hz = 0.5 * (rh * rh);
  let hzl = rh * rt + 0.5 * (rt * rt);
  let w = 1.0 - hz;
  return w + ((jx_add1_err(-hz, w) - hzl) + (c - r * rl));
}`,
  },
  jx_sin: {
    deps: ['jx_nan', 'jx_trig_reduce', 'jx_sin_poly', 'jx_cos_poly'],
    code: `fn jx_sin(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) { return jx_nan(); }
  if (ax < 0x39800000u) { return x; }
  let t = jx_trig_reduce(x);
  var r: f32;
  if ((t.q & 1u) == 0u) { r = jx_sin_poly(t.hi, t.lo); } else { r = jx_cos_poly(t.hi, t.lo); }
  return select(r, -r, (t.q & 2u) != 0u);
}`,
  },
  jx_cos: {
    deps: ['jx_nan', 'jx_trig_reduce', 'jx_sin_poly', 'jx_cos_poly'],
    code: `fn jx_cos(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) { return jx_nan(); }
  if (ax < 0x39800000u) { return 1.0; }
  let t = jx_trig_reduce(x);
  var r: f32;
  if ((t.q & 1u) == 0u) { r = jx_cos_poly(t.hi, t.lo); } else { r = jx_sin_poly(t.hi, t.lo); }
  return select(r, -r, ((t.q + 1u) & 2u) != 0u);
}`,
  },
  jx_tan: {
    deps: ['jx_nan', 'jx_trig_reduce', 'jx_div'],
    code: `fn jx_tan(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) { return jx_nan(); }
  if (ax < 0x39800000u) { return x; }
  let t = jx_trig_reduce(x);
  let r = t.hi;
  let z = r * r;
  let t3 = (r * z) * (0.333333492 + z * (0.133326724 + z * (0.054059457 + z * (0.0212826468
    + z * (0.0108381836 + z * (8.30642821e-5 + z * 0.00438084453))))));
  let th = r + t3;
  let tl = (t3 - (th - r)) + t.lo * (1.0 + th * th);
  if ((t.q & 1u) == 0u) { return th + tl; }
  // -1/(th + tl) = q + q^2 tl with q = -1/th
  let qq = jx_div(-1.0, th);
  return qq + (qq * qq) * tl;
}`,
  },

  // ---------------------------------------------------------------- erf, erf_inv
  jx_erf: {
    deps: ['jx_fma', 'jx_mul_tiny', 'jx_div'],
    code: `// XLA CPU's erf: x P(x^2) / Q(x^2) with fma, +-1 from 3.8325
fn jx_erf(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax > 0x7f800000u) { return x; }
  if (ax >= 0x407547cbu) { return bitcast<f32>((bitcast<u32>(x) & 0x80000000u) | 0x3f800000u); }
  if (ax < 0x00800000u) { return jx_mul_tiny(x, ${fb(0x3f906eba)}); }
  let x2 = x * x;
  var p = jx_fma(x2, ${fb(0x39702d51)}, ${fb(0x3b5f5da2)});
${fmaChain('p', 'x2', [0x3d50b6eb, 0x3e3da740, 0x3f906eba])}
  var q = jx_fma(x2, ${fb(0xb3fd3906)}, ${fb(0x37c588df)});
${fmaChain('q', 'x2', [0x3a856d28, 0x3c6687d4, 0x3de34c21, 0x3efeb44a, 0x3f800000])}
  return jx_div(x * p, q);
}`,
  },
  jx_erf_inv: {
    deps: ['jx_fma', 'jx_f32', 'jx_nan', 'jx_copysign', 'jx_log1p', 'jx_mul_tiny'],
    code: `// XLA's ErfInv32 (Giles): w = -log1p(-x*x); polynomial in w-2.5 (w < 5) or sqrt(w)-3
fn jx_erf_inv(x: f32) -> f32 {
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  if (ax > 0x3f800000u) { return jx_nan(); }
  if (ax == 0x3f800000u) { return jx_copysign(jx_f32(0x7f800000u), x); }
  let w0 = -jx_log1p(-(x * x));
  var p: f32;
  if (w0 < 5.0) {
    let w = w0 - 2.5;
    p = 2.81022636e-08;
    p = jx_fma(p, w, 3.43273939e-07);
    p = jx_fma(p, w, -3.5233877e-06);
    p = jx_fma(p, w, -4.39150654e-06);
    p = jx_fma(p, w, 0.00021858087);
    p = jx_fma(p, w, -0.00125372503);
    p = jx_fma(p, w, -0.00417768164);
    p = jx_fma(p, w, 0.246640727);
    p = jx_fma(p, w, 1.50140941);
  } else {
    let w = sqrt(w0) - 3.0;
    p = -0.000200214257;
    p = jx_fma(p, w, 0.000100950558);
    p = jx_fma(p, w, 0.00134934322);
    p = jx_fma(p, w, -0.00367342844);
    p = jx_fma(p, w, 0.00573950773);
    p = jx_fma(p, w, -0.0076224613);
    p = jx_fma(p, w, 0.00943887047);
    p = jx_fma(p, w, 1.00167406);
    p = jx_fma(p, w, 2.83297682);
  }
  if (ax < 0x01000000u) { return jx_mul_tiny(x, p); }
  return p * x;
}`,
  },

  // ---------------------------------------------------------------- pow
  jx_pow: {
    deps: ['jx_f32', 'jx_nan', 'jx_split_exp', 'jx_hi12', 'jx_ldexp'],
    code: `const JX_POW_INVC = array<f32, 23>(${arr(POW_TABLE.invc)});
const JX_POW_G_HI = array<f32, 23>(${arr(POW_TABLE.ghi)});
const JX_POW_G_LO = array<f32, 23>(${arr(POW_TABLE.glo)});
// pow(x, y) = 2^(y log2|x|), C99 special cases, sign from odd integer y.
// log2|x| = J + q1 + q2 + rest with J = e + G_hi and the q's exact products; its
// 12-bit head hh makes y_hi * hh exact, so T = y log2|x| is reduced to k + r with
// ~2^-33 relative accuracy using only exact products and Sterbenz subtractions.
fn jx_pow(x: f32, y: f32) -> f32 {
  let ux = bitcast<u32>(x);
  let uy = bitcast<u32>(y);
  let ax = ux & 0x7fffffffu;
  let ay = uy & 0x7fffffffu;
  if (ay == 0u || ux == 0x3f800000u) { return 1.0; }
  if (ax > 0x7f800000u || ay > 0x7f800000u) { return jx_nan(); }
  // y integer class: 0 not an integer, 1 odd, 2 even
  let ey = i32(ay >> 23u) - 127;
  var yint = 0u;
  if (ey >= 24) {
    yint = 2u;
  } else if (ey >= 0) {
    let mant = (ay & 0x007fffffu) | 0x00800000u;
    let fb = u32(23 - ey);
    if ((mant & ((1u << fb) - 1u)) == 0u) { yint = select(2u, 1u, ((mant >> fb) & 1u) == 1u); }
  }
  let yneg = uy >= 0x80000000u;
  let sgn = select(0u, ux & 0x80000000u, yint == 1u);
  if (ay == 0x7f800000u) {
    if (ax == 0x3f800000u) { return 1.0; }
    return select(0.0, jx_f32(0x7f800000u), (ax > 0x3f800000u) != yneg);
  }
  if (ax == 0u) { return jx_f32(sgn | select(0u, 0x7f800000u, yneg)); }
  if (ax == 0x7f800000u) { return jx_f32(sgn | select(0x7f800000u, 0u, yneg)); }
  if (ux >= 0x80000000u && yint == 0u) { return jx_nan(); }
  if (uy == 0x3f800000u) { return x; }
  let me = jx_split_exp(ax);
  var m = me.m;
  var e = me.e;
  if (m > 1.41421356) { m = m * 0.5; e = e + 1; }
  let idx = u32(i32(floor((m - 1.0) * 32.0 + 0.5)) + 9);
  let invc = JX_POW_INVC[idx];
  // t = m*invc - 1 = ta + tb (both exact) = th + tt (th: 12-bit head)
  let mh = jx_hi12(m);
  let ta = mh * invc - 1.0;
  let tb = (m - mh) * invc;
  let t = ta + tb;
  let th = jx_hi12(t);
  var tt = (ta - th) + tb;
  if (abs(t) < 0.00048828125) { tt = t - th; }
  // log(1+t) = th + p2 + w, p2 = -th^2/2 exact
  let p2 = -0.5 * (th * th);
  let w = ((tt - th * tt) - 0.5 * (tt * tt))
    + (t * t * t) * (0.333333333 + t * (-0.25 + t * (0.2 + t * -0.166666667)));
  let jj = f32(e) + JX_POW_G_HI[idx];
  let p2h = jx_hi12(p2);
  let q1 = ${f32lit(LOG2E_HI)} * th;
  let q2 = ${f32lit(LOG2E_HI)} * p2h;
  let rest = JX_POW_G_LO[idx] + ((${f32lit(LOG2E_LO)} * (th + p2) + ${f32lit(LOG2E_HI)} * (p2 - p2h)) + 1.44269504 * w);
  let hh = jx_hi12(jj + (q1 + (q2 + rest)));
  let d = (((jj - hh) + q1) + q2) + rest;
  // T = y log2|x| = yh*hh (exact) + bt
  let yh = jx_hi12(y);
  let big = yh * hh;
  let bt = (y - yh) * hh + y * d;
  let tq = big + bt;
  if (tq > 129.0) { return jx_f32(sgn | 0x7f800000u); }
  if (tq < -151.0) { return jx_f32(sgn); }
  let k = floor(tq + 0.5);
  let z = ((big - k) + bt) * 0.693147181;
  let p = z + (z * z) * (0.500000012 + z * (0.166666655 + z * (0.0416657959 + z * (0.00833345190 + z * (0.00139819995 + z * 0.000198756915)))));
  let res = jx_ldexp(1.0 + p, i32(k));
  return bitcast<f32>(bitcast<u32>(res) | sgn);
}`,
  },
  // JAX's threefry2x32 block (20 rounds, key schedule with 0x1BD11BDA).
  jx_threefry2x32: {
    deps: [],
    code: `fn jx_rotl(x: u32, r: u32) -> u32 { return (x << r) | (x >> (32u - r)); }
fn jx_threefry2x32(k0: u32, k1: u32, c0: u32, c1: u32) -> vec2<u32> {
  var ks = array<u32, 3>(k0, k1, k0 ^ k1 ^ 0x1BD11BDAu);
  var rot = array<u32, 8>(13u, 15u, 26u, 6u, 17u, 29u, 16u, 24u);
  var x0 = c0 + k0;
  var x1 = c1 + k1;
  for (var g = 0u; g < 5u; g++) {
    for (var r = 0u; r < 4u; r++) {
      x0 += x1;
      x1 = jx_rotl(x1, rot[(g % 2u) * 4u + r]) ^ x0;
    }
    x0 += ks[(g + 1u) % 3u];
    x1 += ks[(g + 2u) % 3u] + g + 1u;
  }
  return vec2<u32>(x0, x1);
}`,
  },
};

/**
 * WGSL source defining the requested functions (names with or without the
 * `jx_` prefix, public or helper) and everything they depend on, each exactly
 * once, dependencies first.
 */
export function wgslMathSource(names: string[]): string {
  const out: string[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (raw: string) => {
    const name = raw.startsWith('jx_') ? raw : `jx_${raw}`;
    if (done.has(name)) return;
    const fn = FUNCS[name];
    if (!fn) throw new Error(`wgslMathSource: unknown function '${raw}'`);
    if (visiting.has(name)) throw new Error(`wgslMathSource: dependency cycle at '${name}'`);
    visiting.add(name);
    for (const d of fn.deps) visit(d);
    visiting.delete(name);
    done.add(name);
    out.push(fn.code);
  };
  for (const n of names) visit(n);
  return out.length ? `${out.join('\n\n')}\n` : '';
}
