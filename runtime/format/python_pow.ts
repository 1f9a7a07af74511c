// Python's float `**` as CPython computes it (C's pow, correctly rounded in glibc): JS's `**` (V8) is
// not correctly rounded (2 ** 1.5 is 2.82842712474619, CPython 2.8284271247461903). For an exponent
// p / 2^k (k ≤ 4, |p| ≤ 64) the double nearest x ** y is found exactly: the candidates next to V8's
// result are checked against x^p with big-integer arithmetic on the midpoints between doubles.

/** A positive dyadic rational n * 2^e. */
interface Dy {
  n: bigint;
  e: number;
}

const view = new DataView(new ArrayBuffer(8));

/** A finite positive double as n * 2^e. */
function dyOf(v: number): Dy {
  view.setFloat64(0, v);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return exp === 0 ? { n: frac, e: -1074 } : { n: frac | (1n << 52n), e: exp - 1075 };
}

const mul = (a: Dy, b: Dy): Dy => ({ n: a.n * b.n, e: a.e + b.e });

function pow(a: Dy, k: number): Dy {
  let acc: Dy = { n: 1n, e: 0 };
  let base = a;
  for (let m = k; m > 0; m >>= 1) {
    if (m & 1) acc = mul(acc, base);
    if (m > 1) base = mul(base, base);
  }
  return acc;
}

/** The sign of a - b. */
function cmp(a: Dy, b: Dy): number {
  const e = Math.min(a.e, b.e);
  const x = a.n << BigInt(a.e - e);
  const y = b.n << BigInt(b.e - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** (a + b) / 2, exactly. */
function mid(a: number, b: number): Dy {
  const x = dyOf(a);
  const y = dyOf(b);
  const e = Math.min(x.e, y.e);
  return { n: (x.n << BigInt(x.e - e)) + (y.n << BigInt(y.e - e)), e: e - 1 };
}

function nextAfter(v: number, up: boolean): number {
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, up ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

/** `x ** y` on floats, as CPython's float_pow computes it (the caller raises its errors). */
export function pyFloatPow(x: number, y: number): number {
  const r = x ** y;
  if (!(x > 0) || !Number.isFinite(x) || !Number.isFinite(r) || r < 2 ** -1000 || r > 2 ** 1000 || y === 0) {
    // a negative base to an integral power: the sign of the positive base's power
    if (x < 0 && Number.isFinite(x) && Number.isInteger(y) && Number.isFinite(r) && r !== 0) return (Math.abs(y) % 2 === 1 ? -1 : 1) * pyFloatPow(-x, y);
    return r;
  }
  let k = 0;
  while (k <= 4 && !Number.isInteger(y * 2 ** k)) k++;
  const p = y * 2 ** k;
  if (k > 4 || Math.abs(p) > 64) return r;
  const q = 2 ** k;
  const target = p >= 0 ? pow(dyOf(x), p) : null;
  const inv = p < 0 ? pow(dyOf(x), -p) : null;
  // m^q compared with x^p (for p < 0: with 1 / x^|p|, so m^q * x^|p| with 1)
  const side = (m: Dy): number => (target ? cmp(pow(m, q), target) : cmp(mul(pow(m, q), inv!), { n: 1n, e: 0 }));
  let c = r;
  for (let step = 0; step < 4; step++) {
    if (side(mid(c, nextAfter(c, true))) < 0) c = nextAfter(c, true);
    else if (side(mid(nextAfter(c, false), c)) > 0) c = nextAfter(c, false);
    else return c;
  }
  return r;
}
