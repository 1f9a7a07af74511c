// Exact float32 literals for generated WGSL and JS: for WGSL the shortest
// decimal that rounds back to the same float32 (an `f` literal), for JS the
// double equal to the float32; a bit pattern or name for inf/NaN.

/** Shortest decimal string that parses back to the float32 value `v`. */
export function f32Shortest(v: number): string {
  const x = Math.fround(v);
  if (Object.is(x, -0)) return '-0';
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

export function f32Literal(v: number, lang: 'wgsl' | 'js'): string {
  const x = Math.fround(v);
  // WGSL: through the run-time bitcast helper jx_f32 (a constant inf/NaN is a shader-creation error)
  if (Number.isNaN(x)) return lang === 'wgsl' ? 'jx_f32(0x7fc00000u)' : 'NaN';
  if (x === Infinity) return lang === 'wgsl' ? 'jx_f32(0x7f800000u)' : 'Infinity';
  if (x === -Infinity) return lang === 'wgsl' ? 'jx_f32(0xff800000u)' : '-Infinity';
  // JS: the double that equals the float32 exactly (the shortest float32 digits
  // would parse to a different double, e.g. 1.4142135 ≠ fround(Math.SQRT2))
  if (lang === 'js') return Object.is(x, -0) ? '-0' : String(x);
  const s = f32Shortest(x);
  // WGSL: an abstract-float literal with an f suffix; exponent form needs a mantissa with '.'
  return `${/[.e]/.test(s) ? s : `${s}.0`}f`;
}
