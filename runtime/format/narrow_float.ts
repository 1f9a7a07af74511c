// float16 and bfloat16 rounding of a float32 value, bit-exact as XLA rounds (to nearest even).
// The printers need it (NumPy prints float16 by its own digits); runtime/dtypes.ts hands it to
// the kernels and the compiler.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 `x` rounded to bfloat16 (round to nearest even; NaN stays NaN), as a float32. */
export function roundBf16(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  if ((b & 0x7fffffff) > 0x7f800000) return NaN;
  u32[0] = ((b + 0x7fff + ((b >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32[0];
}

/** float32 `x` rounded to float16 (round to nearest even, overflow to ±inf, subnormals kept), as a float32. */
export function roundF16(x: number): number {
  const v = Math.fround(x);
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  if (a >= 65520) return v > 0 ? Infinity : -Infinity;
  // the float16 spacing at |v|: 2^(e-10) for normal numbers (e >= -14), 2^-24 for subnormals
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const ulp = 2 ** (e - 10);
  const q = a / ulp; // exact: a power-of-two scaling
  let r = Math.floor(q);
  const frac = q - r;
  if (frac > 0.5 || (frac === 0.5 && r % 2 === 1)) r += 1;
  return Math.sign(v) * r * ulp;
}
