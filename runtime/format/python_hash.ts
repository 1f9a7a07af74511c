// Python's hash() of numbers, strings and tuples as CPython 3.11 (64-bit) computes it: numbers by their
// value modulo the Mersenne prime 2**61 - 1 (so hash(2.0) == hash(2) and hash(0.5) is 2**60), strings by
// SipHash-1-3 of their UCS-1/2/4 bytes with the key of PYTHONHASHSEED=0 (the oracle's setting; without it
// CPython randomizes string hashes per process), tuples by CPython's xxHash-based combination.

const P = (1n << 61n) - 1n;
const M64 = (1n << 64n) - 1n;

/** A hash as CPython returns it: -1 is reserved (an error in C), so it becomes -2. */
const fixMinusOne = (h: bigint): bigint => (h === -1n ? -2n : h);

/** hash(n) of an int (or bool). */
export function hashInt(n: bigint): bigint {
  const r = (n < 0n ? -n : n) % P;
  return fixMinusOne(n < 0n ? -r : r);
}

const view = new DataView(new ArrayBuffer(8));

/** hash(x) of a float: inf ±314159; the hash of the rational value otherwise (NaN: `nanHash`, CPython hashes it by identity). */
export function hashFloat(x: number, nanHash = 0n): bigint {
  if (Number.isNaN(x)) return nanHash;
  if (!Number.isFinite(x)) return x > 0 ? 314159n : -314159n;
  if (x === 0) return 0n;
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  // |x| = m * 2**e; 2**61 ≡ 1 (mod P), so 2**e ≡ 2**(e mod 61)
  const [m, e] = exp === 0 ? [frac, -1074] : [frac | (1n << 52n), exp - 1075];
  const r = ((m % P) << BigInt(((e % 61) + 61) % 61)) % P;
  return fixMinusOne(x < 0 ? -r : r);
}

const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & M64;

/** SipHash-1-3 with a zero key (CPython's `siphash13`, Python/pyhash.c), of `bytes`. */
function siphash13(bytes: Uint8Array): bigint {
  let v0 = 0x736f6d6570736575n;
  let v1 = 0x646f72616e646f6dn;
  let v2 = 0x6c7967656e657261n;
  let v3 = 0x7465646279746573n;
  const round = (): void => {
    v0 = (v0 + v1) & M64; v2 = (v2 + v3) & M64; v1 = rotl(v1, 13n) ^ v0; v3 = rotl(v3, 16n) ^ v2; v0 = rotl(v0, 32n);
    v2 = (v2 + v1) & M64; v0 = (v0 + v3) & M64; v1 = rotl(v1, 17n) ^ v2; v3 = rotl(v3, 21n) ^ v0; v2 = rotl(v2, 32n);
  };
  const word = (at: number, n: number): bigint => {
    let w = 0n;
    for (let i = n - 1; i >= 0; i--) w = (w << 8n) | BigInt(bytes[at + i]!);
    return w;
  };
  let at = 0;
  for (; bytes.length - at >= 8; at += 8) {
    const mi = word(at, 8);
    v3 ^= mi;
    round();
    v0 ^= mi;
  }
  const b = ((BigInt(bytes.length) << 56n) & M64) | word(at, bytes.length - at);
  v3 ^= b;
  round();
  v0 ^= b;
  v2 ^= 0xffn;
  round();
  round();
  round();
  return (v0 ^ v1) ^ (v2 ^ v3);
}

const signed64 = (u: bigint): bigint => (u >= 1n << 63n ? u - (1n << 64n) : u);

/** hash(s) of a str: SipHash-1-3 of its code points in the narrowest of 1, 2 or 4 bytes each (little-endian). */
export function hashStr(s: string): bigint {
  const cps = Array.from(s, (c) => c.codePointAt(0)!);
  if (cps.length === 0) return 0n;
  const max = Math.max(...cps);
  const width = max < 0x100 ? 1 : max < 0x10000 ? 2 : 4;
  const bytes = new Uint8Array(cps.length * width);
  cps.forEach((cp, i) => {
    for (let k = 0; k < width; k++) bytes[i * width + k] = (cp >>> (8 * k)) & 0xff;
  });
  return fixMinusOne(signed64(siphash13(bytes)));
}

const XXPRIME_1 = 11400714785074694791n;
const XXPRIME_2 = 14029467366897019727n;
const XXPRIME_5 = 2870177450012600261n;

/** hash(t) of a tuple whose items hash to `items` (CPython 3.11's tuplehash). */
export function hashTuple(items: readonly bigint[]): bigint {
  let acc = XXPRIME_5;
  for (const h of items) {
    acc = (acc + (h & M64) * XXPRIME_2) & M64;
    acc = rotl(acc, 31n);
    acc = (acc * XXPRIME_1) & M64;
  }
  acc = (acc + (BigInt(items.length) ^ (XXPRIME_5 ^ 3527539n))) & M64;
  if (acc === M64) return 1546275796n;
  return signed64(acc);
}
