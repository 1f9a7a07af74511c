// Tests of the CPU backend's float32 math (runtime/cpu/math.ts): bit-exact agreement
// with jax 0.10.2 / XLA CPU (x86-64 with FMA) on recorded samples, ulp bounds
// against float64 references over many inputs, edge cases, the exact float32 FMA,
// the float64 erf/erfinv references (against scipy), and jax.random.normal's
// uniform -> erf_inv pipeline.
import { describe, expect, it } from 'vitest';
import {
  CPU_MATH_FUNCTIONS,
  atan2_32,
  rsqrt32,
  bitsToF32,
  cos32,
  erf32,
  erf64,
  erfc64,
  erfInv32,
  erfInv64,
  exp32,
  expm1_32,
  f32ToBits,
  fma32,
  ftz32,
  log1p32,
  log32,
  logistic32,
  pow32,
  sin32,
  tan32,
  tanh32,
} from '../../runtime/cpu/math.js';

const fr = Math.fround;

/** Ordered integer for float32 bits, so |ord(a) - ord(b)| counts ulps. */
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
  const out: number[] = [];
  const a = Math.log(lo);
  const b = Math.log(hi);
  for (let i = 0; i < n; i++) out.push(fr(Math.exp(a + ((b - a) * i) / (n - 1))));
  return out;
}

function maxUlp(f: (x: number) => number, ref: (x: number) => number, xs: number[]) {
  let max = 0;
  let at = NaN;
  for (const x of xs) {
    const d = ulpDist(f(x), ref(x));
    if (d > max) {
      max = d;
      at = x;
    }
  }
  return { max, at };
}

// Samples of jax.jit(f)(x) from jax 0.10.2 on x86-64 (float32 bit patterns); most are
// inputs where the correctly rounded result differs from XLA's, so only an exact
// replay of XLA's algorithm matches.
const XLA: Record<string, { x: number[]; y: number[] }> = {
  exp32: {
    x: [0xbeea3cb2, 0xbf00c753, 0xbf0514d7, 0xc21bf35c, 0xbf56036e, 0xbebd158d, 0xbe9445f5, 0xc16ca199, 0x3f0c5572, 0x3eb6ac45, 0xbed3aee5, 0x3f7cb249, 0xbdfe5d63, 0xbed01d2e, 0xbf637e66, 0xbed9b429, 0x4026707e, 0xbe89116a, 0xbe685454, 0xbee5a593, 0xbf629808, 0x3efb3a76, 0xbe2ef9fb, 0x3edd1ca2, 0x32a25031, 0xbedf1efc, 0x3f381015, 0x3ae0432a, 0x3f6e2cf2, 0xc30910f6, 0xbedde4f0, 0x3e022ebd, 0xbec17855, 0x34892e32, 0xbf6f9632, 0x3ef00396, 0x3245e9be, 0xbf698de0, 0xb50397f9, 0x34fa2584],
    y: [0x3f22039a, 0x3f1acce2, 0x3f183860, 0x2357ac52, 0x3eddec88, 0x3f30f370, 0x3f3fa202, 0x34cab7cc, 0x3fdd73e4, 0x3fb6e07e, 0x3f294f76, 0x402bbd4c, 0x3f621984, 0x3f2a7eac, 0x3ed28a52, 0x3f2754c6, 0x41578d74, 0x3f43df7c, 0x3f4c090c, 0x3f23791e, 0x3ed3481e, 0x3fd11424, 0x3f57ca08, 0x3fc52296, 0x3f800000, 0x3f2591ed, 0x40035a09, 0x3f80381d, 0x402244e7, 0x00000000, 0x3f25f79a, 0x3f915a3c, 0x3f2f710d, 0x3f800002, 0x3ec8d378, 0x3fcc8c8c, 0x3f800000, 0x3ecd9d56, 0x3f7ffff8, 0x3f800004],
  },
  expm1_32: {
    x: [0x3e303442, 0x3f6c3062, 0x3ba38262, 0x3f02be4d, 0xbe39e494, 0xbeb59f31, 0xbd647781, 0xbf229df4, 0x3e5c28ab, 0xbf539e52, 0xbf7a2814, 0xbda5f78e, 0x3f7269dc, 0x3c283c45, 0x3e9161d5, 0x3b7db29e, 0x3ed1efb9, 0xbef64234, 0x3f447751, 0xbcedf41b, 0xbcad7097, 0xbefd283e, 0x3ea46bd1, 0x3d991b56, 0xc0f8b0e1, 0x3e422bc4, 0x3b88ee34, 0x3edf0a02, 0xb700d342, 0x3dcc76d5, 0x3853d9d5, 0x309c0aa0, 0x3f16808c, 0x3dd55f58, 0xbe418365, 0x3b362993, 0x3ceeffba, 0x357710bc, 0x3e8cd879, 0x33ad96a9],
    y: [0x3e4045c2, 0x3fc20794, 0x3ba3eaff, 0x3f2a9eb8, 0xbe29fefe, 0xbe98e6fd, 0xbd5e363f, 0xbef0bbc2, 0x3e759dfc, 0xbf0ffebc, 0xbf1fa602, 0xbd9f6b90, 0x3fc9f4a0, 0x3c291a25, 0x3ea81f92, 0x3b7e307b, 0x3f01c1f8, 0xbec37dc3, 0x3f93beac, 0xbcea87e3, 0xbcab9ddc, 0xbec7ba2c, 0x3ec1e3e3, 0x3d9ef9a3, 0xbf7fe460, 0x3e55cd1c, 0x3b89378b, 0x3f0bc1d2, 0xb700d322, 0x3dd704d8, 0x3853db34, 0x309c0aa0, 0x3f4cda0c, 0x3de0e246, 0xbe3053ea, 0x3b366a71, 0x3cf284f7, 0x357710c4, 0x3ea21fad, 0x33ad96a9],
  },
  log32: {
    x: [0x3f7c16ab, 0x3f235122, 0x3f4ecc31, 0x3f4cf315, 0x3f301c5a, 0x3f6b6a22, 0x3f31ff96, 0x3f26f486, 0x3ec73b34, 0x3f06ed4f, 0x3ee4642f, 0x3e4cb31f, 0x3f6f5617, 0x3eb90fa1, 0x3f1e4878, 0x3f1f1ef1, 0x3f2ec7a4, 0x3f27f6fd, 0x3d98a6dc, 0x3eed2bbb, 0x3ebb3d73, 0x3f1a74c9, 0x3ec943c4, 0x3f3ac803, 0x163d7af2, 0xb8eb2d2d, 0x3ed571fa, 0x3f4ca73f, 0x3f754012, 0xbf3e1ebe, 0x7d8712c2, 0x0a589960, 0x0c9e6468, 0x3f4d0543, 0xa21beafd, 0x3e913ee3, 0xbee0fb35, 0xbf0373bf, 0x3df4353c, 0x040504b5],
    y: [0xbc7c43e0, 0xbee622e0, 0xbe5a8f2e, 0xbe63c068, 0xbebf855f, 0xbdabaeb4, 0xbeba0ff4, 0xbedadb00, 0xbf71a0b4, 0xbf23f41e, 0xbf4ea8dc, 0xbfce121e, 0xbd89d8af, 0xbf8241fe, 0xbef62a6a, 0xbef3767e, 0xbec367aa, 0xbed7c4c3, 0xc0262c64, 0xbf4500d6, 0xbf80c26c, 0xbf01592c, 0xbf6f0734, 0xbea16704, 0xc2648e4c, 0xffffffff, 0xbf5ffc5b, 0xbe653b94, 0xbd2fb60d, 0xffffffff, 0x42ac0211, 0xc293480e, 0xc28cf9d7, 0xbe636596, 0xffffffff, 0xbfa14458, 0xffffffff, 0xffffffff, 0xc0081a32, 0xc2a4e462],
  },
  log1p32: {
    x: [0x3f0a4e99, 0x3f2c48e5, 0x3f59880d, 0x3ee37d95, 0x3f1c2844, 0x3f7f91bd, 0x3edc9666, 0xbf339418, 0x3f361964, 0x3f0d3c6b, 0x408efc27, 0xbf505a12, 0x3f494441, 0x3f090ca9, 0x3f02d5bd, 0xbebb0abb, 0x3f301bed, 0xbf6a492b, 0xbed83da1, 0xbf575e21, 0x3efb7576, 0x3f190dbf, 0x3ea49812, 0xbdb063da, 0xb529aa47, 0xbf6c2019, 0x2df88695, 0xb2aadcbd, 0xbf11ae79, 0xabe47e4e, 0xbefb2df2, 0xbf020cd6, 0x3f6e0008, 0x3f71c547, 0x3c36442e, 0xbf034208, 0xbed66ff4, 0x3275b606, 0x400c0175, 0xb7169d5a],
    y: [0x3edd28dc, 0x3f03bd88, 0x3f1d7351, 0x3ebc3ae6, 0x3ef3d41a, 0x3f313af0, 0x3eb76d9e, 0xbf9abdac, 0x3f098a64, 0x3ee0f2e6, 0x3fd977a8, 0xbfd735ee, 0x3f1480b9, 0x3edb862a, 0x3ed35d37, 0xbee8c50e, 0x3f060422, 0xc01de6cc, 0xbf0c7cc4, 0xbfeb993c, 0x3ecc8fcd, 0x3eeff563, 0x3e8eb7e6, 0xbdb873d8, 0xb529aa4b, 0xc0239125, 0x2df88695, 0xb2aadcbd, 0xbf57809b, 0xabe47e4e, 0xbf2cab84, 0xbf359443, 0x3f2848a2, 0x3f2a3af2, 0x3c35428d, 0xbf380bc0, 0xbf0aee5e, 0x3275b606, 0x3f9462ca, 0xb7169d86],
  },
  tanh32: {
    x: [0xbe4893af, 0xbe9d63c2, 0xbe7fe210, 0xbe600b27, 0xbf4d823b, 0x3d8bc413, 0xbea88369, 0x3e3b31b7, 0x3df8d488, 0xbf6471b3, 0xbd045292, 0x3bd0224d, 0x3f6b56f3, 0xbd8b26ae, 0xbebc8599, 0x3d496ed4, 0x3a47ce8e, 0x3e31a074, 0x3e8a84cf, 0x3f669e8f, 0xbb0314a6, 0x3efd7f4a, 0xc0067dbb, 0xbce2a052, 0xbf6043f1, 0xbfc52bbf, 0xbf4a4c77, 0xb96f0c3b, 0x3e595a97, 0xc0687b06, 0xba7ddf33, 0xbf0d149f, 0xbe75f43d, 0xbf37f4c7, 0xbf34cba7, 0x3e078f31, 0xbe475901, 0xb8c9593d, 0xbf264f7c, 0x37358a42],
    y: [0xbe460ce9, 0xbe989cd2, 0xbe7aafcf, 0xbe5c8923, 0xbf2a638e, 0x3d8b8ca0, 0xbea2ae60, 0x3e3922ee, 0x3df79cea, 0xbf366a2a, 0xbd0446ca, 0x3bd02194, 0x3f39be90, 0xbd8aeff6, 0xbeb470ae, 0x3d49454b, 0x3a47ce8a, 0x3e2fddca, 0x3e873c3b, 0x3f377aa1, 0xbb03149a, 0x3eeaa198, 0xbf7874f5, 0xbce29185, 0xbf345569, 0xbf698518, 0xbf289602, 0xb96f0c3b, 0x3e5625bc, 0xbf7fa45e, 0xba7ddf2c, 0xbf0057e5, 0xbe7154b7, 0xbf1db406, 0xbf1bba21, 0x3e06c5e0, 0xbe44ddee, 0xb8c9593d, 0xbf124989, 0x37358a42],
  },
  logistic32: {
    x: [0x3eb01797, 0xbc92580d, 0xbf026b11, 0xc263b241, 0x3ef273e7, 0xbe1a2391, 0x3f3bd066, 0x3efc4dcb, 0xb831b794, 0x3f640602, 0xc04422b3, 0xbed22e84, 0xb55aa86f, 0xbb44a72a, 0xbe30c46a, 0xc187a6e0, 0xbf2489e1, 0xb404c0ba, 0xbf11790d, 0xb79b6d32, 0xbdc38f31, 0xbcf62291, 0x3f6c30ca, 0x3ad9ce5d, 0xb4075c35, 0x3867a242, 0xbe662316, 0x3e4c09e6, 0xbf775b4a, 0xb9b5bc76, 0xbe91ec6f, 0x3f4c52d7, 0xbf433926, 0x3eec6240, 0x3f994fde, 0xbdcafbb2, 0x3e40dab5, 0x3de641a5, 0x3f39e9d0],
    y: [0x3f15cc0e, 0x3efdb6a3, 0x3ec02a63, 0x166ae704, 0x3f1dc0af, 0x3eecc4d8, 0x3f2cf47b, 0x3f1eea38, 0x3efffe9c, 0x3f358385, 0x3d36a496, 0x3ecc2e26, 0x3efffff8, 0x3eff9dae, 0x3ee9f575, 0x3339b7bc, 0x3eb07355, 0x3f000000, 0x3eb928e0, 0x3effff64, 0x3ef3c96e, 0x3efc2788, 0x3f372ff6, 0x3f001b3a, 0x3f000000, 0x3f0000e8, 0x3ee35a74, 0x3f0cb5dc, 0x3e8d1f8a, 0x3efff4a5, 0x3edbc39a, 0x3f308811, 0x3ea2dbea, 0x3f1d08b9, 0x3f44a3ca, 0x3ef352ee, 0x3f0c0495, 0x3f07301d, 0x3f2c89b3],
  },
  erf32: {
    x: [0x3f456ff8, 0xbd424cc0, 0xb3b58337, 0xbe9b8f86, 0x3e994ae9, 0x35160e8c, 0xb80145e9, 0xba5856b2, 0xbcfc92a3, 0x3f078d69, 0x32855349, 0xbf226cf0, 0xba4f8052, 0x39e56eea, 0x3f2b902f, 0xb7d107a8, 0x3d412c33, 0xbdc59eb3, 0xb86ec88a, 0x3117d4ad, 0xb2f6a92d, 0xbfc2b4fe, 0xbd16386a, 0xbf14ad01, 0xbf28ae63, 0xbe5acaa8, 0x40e30fb3, 0xbf73d602, 0x3d433101, 0x405620d6, 0x3f4a167a, 0xbeffc79b, 0x33bd4568, 0x365d9c3b, 0x3f0805b2, 0x3ee62af5, 0xbf4db448, 0x30e24fd4, 0xbf393603, 0xbf3a8f92],
    y: [0x3f397efe, 0xbd5b145a, 0xb3ccd0a2, 0xbeaa46c8, 0x3ea7f099, 0x3529522c, 0xb811de7a, 0xba741ca9, 0xbd0e742b, 0x3f0bc93b, 0x32967107, 0xbf2163fc, 0xba6a23d9, 0x3a01719f, 0x3f2820b8, 0xb7ebdd6f, 0x3d59cf7e, 0xbdde4ccd, 0xb886b815, 0x312b529a, 0xb30b29d9, 0xbf77f25a, 0xbd296df7, 0xbf16aa7f, 0xbf26096a, 0xbe732c86, 0x3f800000, 0xbf52703a, 0x3d5c1553, 0x3f7fffdb, 0x3f3c59b6, 0xbf0526b2, 0x33d591d0, 0x367a0f77, 0x3f0c2fab, 0x3ef33b8d, 0xbf3e83ab, 0x30ff5d94, 0xbf319aa2, 0xbf3280c7],
  },
  erfInv32: {
    x: [0xba11f4f8, 0xbed6dce6, 0x3e4db4ee, 0xbc04f996, 0xbc00962d, 0x3f4b9d03, 0xbe6f77d1, 0xb7a05cf1, 0x3e586b92, 0x3d5d6fe7, 0xbee6b126, 0xbe1cb632, 0x3f02fac7, 0xb2db1651, 0x3ee11957, 0xbece50b4, 0x3c26cba9, 0x327d4931, 0x3b70ba02, 0x3f593b66, 0x3eb53901, 0x3f59b0b6, 0x3346a1b2, 0x3739425e, 0xbeab54ef, 0xb9582821, 0xb3bc962c, 0xbf684a91, 0x3e9c9e57, 0xbf1494df, 0xbeb2fbb1, 0x3eac1e6c, 0xb4a56707, 0x39dfe52a, 0xbe45479d, 0x3e7da52d, 0x3e2125dd, 0xbe327b60, 0x38824ccb, 0x3e870b32],
    y: [0xba0159d7, 0xbec829ee, 0x3e3845d8, 0xbbebb22d, 0xbbe3eae2, 0x3f659d6d, 0xbe575b3e, 0xb78e1e38, 0x3e4218dc, 0x3d4464d8, 0xbed8b8c5, 0xbe0bbead, 0x3efadcf7, 0xb2c22933, 0x3ed2d234, 0xbebf6553, 0x3c13d29d, 0x32607801, 0x3b5556d1, 0x3f81d56b, 0x3ea644d6, 0x3f826785, 0x3330085d, 0x37242e85, 0xbe9c9641, 0xb93f905d, 0xb3a72169, 0xbf98378e, 0x3e8e62f9, 0xbf121a38, 0xbea41107, 0x3e9d5a6b, 0xb4929587, 0x39c66c03, 0xbe3091ae, 0x3e64866b, 0x3e0fc09c, 0xbe1f747b, 0x3866f35f, 0x3e73e4ac],
  },
};

const IMPL: Record<string, (x: number) => number> = {
  exp32,
  expm1_32,
  log32,
  log1p32,
  tanh32,
  logistic32,
  erf32,
  erfInv32,
};

describe('bit-exact with XLA CPU', () => {
  for (const [name, { x, y }] of Object.entries(XLA)) {
    it(name, () => {
      const bad: string[] = [];
      x.forEach((xb, i) => {
        const g = IMPL[name]!(bitsToF32(xb));
        const got = f32ToBits(g);
        if (Number.isNaN(g) && Number.isNaN(bitsToF32(y[i]!))) return; // NaN payloads may differ
        if (got !== y[i]) bad.push(`x=0x${xb.toString(16)} got 0x${got.toString(16)} want 0x${y[i]!.toString(16)}`);
      });
      expect(bad).toEqual([]);
    });
  }

  it('jax.random.normal: uniform(bits) -> sqrt(2) * erf_inv', () => {
    // jax.random.bits(key(0), (16,)) and jax.random.normal(key(0), (16,)), float32 bits
    const bits = [
      0xf29a4fa7, 0xfa843692, 0x55110e28, 0x77faa835, 0x91e43bb7, 0x2a5e6943, 0x4f68ea7d, 0xb081ccfe, 0xbf2c1963,
      0x2bc79dd6, 0xfc40270d, 0x0678ed8d, 0xa3d9c8a9, 0x900c8352, 0xe632e10b, 0xef3dda7c, 0x7d1c13a2,
    ];
    const want = [
      0x3fcfb2bd, 0x40019df0, 0xbede0017, 0xbda10222, 0x3e34512c, 0xbf78dad7, 0xbefd97cc, 0x3efd1f31, 0x3f2a12cc,
      0xbf733dea, 0x400b7d6d, 0xbffa4260, 0x3eb79695, 0x3e21950c, 0x3fa37783, 0x3fc156e9, 0xbce7df15, // last: key(42)
    ];
    const lo = fr(-0.99999994); // nextafter(-1, 0)
    const span = fr(1 - lo);
    const got = bits.map((b) => {
      const f = fr(bitsToF32((b >>> 9) | 0x3f800000) - 1);
      const u = Math.max(lo, fma32(f, span, lo));
      return f32ToBits(fr(fr(Math.SQRT2) * erfInv32(u)));
    });
    expect(got).toEqual(want);
    expect(bitsToF32(want[16]!)).toBe(fr(-0.028304616));
  });
});

// jax.jit(jnp.sin/cos/tan) samples: XLA calls glibc's sinf/cosf/tanf, which are not
// correctly rounded (sinf/cosf < 0.56 ulp, tanf < 1.2 ulp; they differ from the
// correctly rounded float32 in ~1.4% / 0.6% / 3.3% of inputs). sin32/cos32/tan32
// round float64 Math.* instead, so they agree with jax to within 1 ulp.
const GLIBC: Record<string, { x: number[]; y: number[] }> = {
  sin32: {
    x: [0x3f0582af, 0xbf34dc57, 0xbe73083b, 0x3f010647, 0xbe5bb1a9, 0xc17230b3, 0x47c70b4d, 0xbf2728ce, 0x459314c7, 0xbf2994ea, 0xc5099ed6, 0x3ef606d4, 0x3f3f6c37, 0x44ae1216, 0x3f419bcf, 0xbf0450e6, 0x3da1298e, 0xb9e3408d, 0x444a7ced, 0x3bc05231],
    y: [0x3eff147f, 0xbf262fba, 0xbe70c1c9, 0x3ef74319, 0xbe5a0331, 0xbf0a608d, 0xbeeb484d, 0xbf1b8816, 0x3ef19497, 0xbf1d72d7, 0xbea58643, 0x3eecaadd, 0x3f2e13a2, 0xbf3e912e, 0x3f2fac4f, 0xbefd0185, 0x3da0fefd, 0xb9e3408d, 0xbf0c1121, 0x3bc051e9],
  },
  cos32: {
    x: [0xbf5247f9, 0xc093fa53, 0xbf780d4d, 0xbf74c527, 0xc88a65f7, 0xbf794dde, 0xc6368dd4, 0x41da83e4, 0x3f5b37b7, 0x4187cafb, 0x4921dabb, 0xc16ab2f3, 0xbf35ac59, 0xc18eab5b, 0xbe735703, 0x40edc3ba, 0xbebdd3d0, 0xbacdd338, 0xbedf427d, 0xbb43a9e4],
    y: [0x3f2e6269, 0xbdb4288e, 0x3f10f00d, 0x3f13a183, 0x3efd231a, 0x3f0fe75e, 0xbf7df813, 0xbf12d5bd, 0x3f27bcae, 0xbe999406, 0xbee9415e, 0xbf01c0a5, 0x3f42327b, 0x3f06e0bf, 0x3f78ce3f, 0x3ed29110, 0x3f6e9b0e, 0x3f7fffeb, 0x3f680b7d, 0x3f7fffb5],
  },
  tan32: {
    x: [0xc7be46a4, 0x3f6d3233, 0xbf103cd3, 0x3f34ae52, 0x3f37ce05, 0xbf2ceb05, 0xbf373e37, 0xc546121f, 0x3f5c7a2d, 0x41b88d97, 0x3eeb084d, 0x3f605257, 0x3d1cca0f, 0x3ed38c20, 0x3f108fce, 0xbef67a7d, 0xc853689c, 0xbeaf3437, 0xc1fef5c6, 0xbf4502fe],
    y: [0xbf098e54, 0x3faa66a6, 0xbf21b96a, 0x3f5a2b7a, 0x3f5f9e92, 0xbf4d1a40, 0xbf5ea186, 0x3f6724f2, 0x3f950d66, 0x3fee5c40, 0x3efd1014, 0x3f99a976, 0x3d1cddad, 0x3ee077f9, 0x3f222d9a, 0xbf05bbba, 0x45f02f81, 0xbeb660fe, 0xbef9e7dd, 0xbf780668],
  },
};

describe('sin/cos/tan against jax (glibc)', () => {
  const impl: Record<string, (x: number) => number> = { sin32, cos32, tan32 };
  for (const [name, { x, y }] of Object.entries(GLIBC)) {
    it(`${name} within 1 ulp of jax`, () => {
      const worst = Math.max(...x.map((xb, i) => Math.abs(ord(impl[name]!(bitsToF32(xb))) - ord(bitsToF32(y[i]!)))));
      expect(worst).toBeLessThanOrEqual(1);
    });
  }
});

describe('fma32', () => {
  // exact reference with BigInt: values are float32, scale everything by 2^300
  const SCALE = 300n;
  const toBig = (x: number): bigint => {
    const b = f32ToBits(x);
    const e = (b >>> 23) & 0xff;
    const m = BigInt(e === 0 ? (b & 0x7fffff) * 2 : (b & 0x7fffff) | 0x800000);
    const big = m << BigInt(Math.max(0, (e === 0 ? 1 : e) - 150 + 150 + Number(SCALE) - 150));
    return b & 0x80000000 ? -big : big;
  };
  const exactFma = (a: number, b: number, c: number): number => {
    // a*b + c exactly (scaled by 2^(2*300)), then rounded to float32 via float64 steps on the exact value
    const prod = toBig(a) * toBig(b);
    const sum = prod + (toBig(c) << SCALE);
    // round sum (scaled by 2^600) to float32: find float32 neighbours by bisection on the float64 value
    const approx = Number(sum) / 2 ** 600;
    const r = fr(approx);
    const cands = [r, nextF32(r, -Infinity), nextF32(r, Infinity)].filter((v) => Number.isFinite(v));
    let best = r;
    let bestD: bigint | undefined;
    for (const v of cands) {
      const d = sum - (toBig(v) << SCALE);
      const ad = d < 0n ? -d : d;
      if (bestD === undefined || ad < bestD || (ad === bestD && (f32ToBits(v) & 1) === 0)) {
        best = v;
        bestD = ad;
      }
    }
    return best;
  };
  const nextF32 = (x: number, dir: number): number => {
    if (x === 0) return dir > 0 ? bitsToF32(1) : bitsToF32(0x80000001);
    const b = f32ToBits(x);
    return bitsToF32((x > 0) === dir > 0 ? b + 1 : b - 1);
  };

  it('matches an exact BigInt reference, including double-rounding cases', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
    const cases: [number, number, number][] = [
      // a*b is exactly a float32 midpoint away from c in float64 terms
      [fr(1 + 2 ** -12), fr(1 + 2 ** -12), fr(-1)],
      [fr(1 + 2 ** -23), fr(1 - 2 ** -24), fr(2 ** -48)],
      [fr(3), fr(1 / 3), fr(-1)],
    ];
    for (let i = 0; i < 20000; i++) {
      const a = fr((rnd() * 2 - 1) * 2 ** Math.floor(rnd() * 20 - 10));
      const b = fr((rnd() * 2 - 1) * 2 ** Math.floor(rnd() * 20 - 10));
      // c near -a*b (cancellation) or small relative to a*b (midpoint hunting)
      const c = i % 2 ? fr(-a * b * (1 + (rnd() - 0.5) * 2 ** -20)) : fr(a * b * 2 ** -(24 + Math.floor(rnd() * 6)));
      cases.push([a, b, c]);
    }
    const bad = cases.filter(([a, b, c]) => f32ToBits(fma32(a, b, c)) !== f32ToBits(exactFma(a, b, c)));
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it('propagates inf and NaN', () => {
    expect(fma32(Infinity, 1, 1)).toBe(Infinity);
    expect(fma32(Infinity, 0, 1)).toBeNaN();
    expect(fma32(NaN, 1, 1)).toBeNaN();
    expect(Object.is(fma32(-0, 1, 0), 0)).toBe(true);
  });
});

// Measured maxima (XLA's own approximation errors) are noted per line; the bounds
// leave no slack beyond them, since the algorithms are fixed.
describe('ulp error against float64 references', () => {
  const sym = (xs: number[]) => xs.flatMap((x) => [x, -x]);
  const logistic64 = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
  const table: [string, (x: number) => number, (x: number) => number, number[], number][] = [
    ['exp', exp32, Math.exp, sym(logspace(1e-8, 88, 40000)), 5], // XLA exp: 4.7 ulp near 88.7
    ['log', log32, Math.log, logspace(1e-37, 3e38, 80000), 2], // 1.1
    ['log1p', log1p32, Math.log1p, [...logspace(1e-8, 1e30, 40000), ...logspace(1e-8, 0.999, 40000).map((x) => -x)], 3], // 2.5
    ['expm1', expm1_32, Math.expm1, sym(logspace(1e-8, 88, 40000)), 7], // 5.9 near 0.06
    ['tanh', tanh32, Math.tanh, sym(logspace(1e-8, 20, 40000)), 5], // 4.4
    ['logistic', logistic32, logistic64, sym(logspace(1e-8, 100, 40000)), 3], // 2.2
    ['erf', erf32, erf64, sym(logspace(1e-8, 5, 40000)), 6], // 5.3 near 3.7
  ];
  const rows: string[] = [];
  for (const [name, f, ref, xs, bound] of table) {
    it(`${name} <= ${bound} ulp`, () => {
      const { max, at } = maxUlp(f, ref, xs);
      rows.push(`${name.padEnd(9)} ${String(max).padStart(3)}   (bound ${bound}${max ? `, worst x=${at}` : ''})`);
      expect(max).toBeLessThanOrEqual(bound);
    });
  }
  it('erf_inv against true erfinv (XLA ErfInv32 error: small in the bulk, larger near +-1)', () => {
    const bulk = maxUlp(erfInv32, erfInv64, [...logspace(1e-8, 0.9, 20000), ...logspace(1e-8, 0.9, 20000).map((x) => -x)]);
    const tail = maxUlp(erfInv32, erfInv64, Array.from({ length: 20000 }, (_, i) => fr(0.9 + (0.1 * i) / 20000)).filter((x) => x < 1));
    rows.push(`erf_inv   ${String(bulk.max).padStart(3)}   (|x| <= 0.9, bound 4); ${tail.max} on (0.9, 1) (bound 80)`);
    expect(bulk.max).toBeLessThanOrEqual(4);
    expect(tail.max).toBeLessThanOrEqual(80);
  });
  it('pow <= 1 ulp', () => {
    let seed = 1;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
    let max = 0;
    for (let i = 0; i < 50000; i++) {
      const x = fr(Math.exp((rnd() * 2 - 1) * 10));
      const y = fr((rnd() * 2 - 1) * 20);
      max = Math.max(max, ulpDist(pow32(x, y), Math.pow(x, y)));
    }
    rows.push(`pow       ${String(max).padStart(3)}   (bound 1)`);
    expect(max).toBeLessThanOrEqual(1);
  });
  it('prints the table', () => {
    console.log(`CPU float32 math, max ulp vs float64 reference:\n  ${rows.join('\n  ')}`);
  });
});

describe('edge cases', () => {
  const negZero = (x: number) => Object.is(x, -0);
  it('exp', () => {
    expect(exp32(0)).toBe(1);
    expect(exp32(-Infinity)).toBe(0);
    expect(exp32(Infinity)).toBe(Infinity);
    expect(exp32(NaN)).toBeNaN();
    expect(exp32(89)).toBe(Infinity);
    expect(exp32(-104)).toBe(0);
    expect(exp32(-100)).toBe(fr(Math.exp(-100))); // subnormal result (XLA flushes it to 0)
    expect(exp32(bitsToF32(1))).toBe(1);
  });
  it('log / log1p', () => {
    expect(log32(0)).toBe(-Infinity);
    expect(log32(-0)).toBe(-Infinity);
    expect(log32(-1)).toBeNaN();
    expect(log32(Infinity)).toBe(Infinity);
    expect(log32(1)).toBe(0);
    expect(log32(bitsToF32(1))).toBe(fr(Math.log(2 ** -149)));
    expect(log1p32(-1)).toBe(-Infinity);
    expect(log1p32(-2)).toBeNaN();
    expect(log1p32(Infinity)).toBe(Infinity);
    expect(negZero(log1p32(-0))).toBe(true);
    expect(log1p32(1e-30)).toBe(fr(1e-30));
  });
  it('expm1 / tanh / logistic / erf', () => {
    expect(negZero(expm1_32(-0))).toBe(true);
    expect(expm1_32(-Infinity)).toBe(-1);
    expect(expm1_32(Infinity)).toBe(Infinity);
    expect(tanh32(Infinity)).toBe(1);
    expect(tanh32(-30)).toBe(-1);
    expect(negZero(tanh32(-0))).toBe(true);
    expect(tanh32(NaN)).toBeNaN();
    expect(logistic32(0)).toBe(0.5);
    expect(logistic32(Infinity)).toBe(1);
    expect(logistic32(-Infinity)).toBe(0);
    expect(logistic32(-95)).toBe(fr(Math.exp(-95)));
    expect(erf32(Infinity)).toBe(1);
    expect(erf32(-Infinity)).toBe(-1);
    expect(negZero(erf32(-0))).toBe(true);
    expect(erf32(NaN)).toBeNaN();
  });
  it('erf_inv', () => {
    expect(erfInv32(1)).toBe(Infinity);
    expect(erfInv32(-1)).toBe(-Infinity);
    expect(erfInv32(1.5)).toBeNaN();
    expect(erfInv32(NaN)).toBeNaN();
    expect(erfInv32(0)).toBe(0);
    expect(negZero(erfInv32(-0))).toBe(true);
  });
  it('pow follows C99 special cases', () => {
    expect(pow32(0, 0)).toBe(1);
    expect(pow32(NaN, 0)).toBe(1);
    expect(pow32(1, NaN)).toBe(1);
    expect(pow32(-1, Infinity)).toBe(1);
    expect(pow32(-2, 3)).toBe(-8);
    expect(pow32(-2, 2)).toBe(4);
    expect(pow32(-8, 1 / 3)).toBeNaN();
    expect(pow32(0, -1)).toBe(Infinity);
    expect(pow32(-0, -1)).toBe(-Infinity);
    expect(negZero(pow32(-0, 3))).toBe(true);
    expect(pow32(2, 0.5)).toBe(fr(Math.SQRT2));
  });
  it('sin / cos / tan', () => {
    expect(sin32(Infinity)).toBeNaN();
    expect(negZero(sin32(-0))).toBe(true);
    expect(cos32(0)).toBe(1);
    expect(tan32(NaN)).toBeNaN();
  });
  it('CPU_MATH_FUNCTIONS covers the unary WGSL names', () => {
    expect(Object.keys(CPU_MATH_FUNCTIONS).sort()).toEqual(
      ['atan', 'atan_xla', 'cos', 'erf', 'erf_inv', 'exp', 'expm1', 'log', 'log1p', 'logistic', 'rsqrt', 'sin', 'tan', 'tanh'].sort(),
    );
  });

  // values from jax 0.10.2 under jit on the oracle's machine (glibc 2.36's atan2f; XLA's rsqrt)
  it('atan2 follows glibc (C rules for zeros, infinities and NaN; bits from libm)', () => {
    const pi = bitsToF32(0x40490fdb);
    expect(atan2_32(0, -1)).toBe(pi);
    expect(atan2_32(-0, -1)).toBe(-pi);
    expect(Object.is(atan2_32(-0, 1), -0)).toBe(true);
    expect(atan2_32(1, 0)).toBe(bitsToF32(0x3fc90fdb));
    expect(atan2_32(Infinity, -Infinity)).toBe(Math.fround(3 * bitsToF32(0x3f490fdb)));
    expect(atan2_32(NaN, 1)).toBeNaN();
    expect(f32ToBits(atan2_32(0.5, 1))).toBe(1055744824);
    expect(f32ToBits(atan2_32(2.5, 1))).toBe(1066949484);
    // a subnormal x is not a zero to atan2f: y / x reads it as one (DAZ), so |y/x| is taken as huge
    expect(f32ToBits(atan2_32(-3.1698601245880127, -bitsToF32(0x00000010)))).toBe(f32ToBits(-1.570796251296997));
  });

  it('rsqrt is the estimate plus one Newton step', () => {
    expect(rsqrt32(1)).toBe(1);
    expect(rsqrt32(4)).toBe(0.5);
    expect(rsqrt32(0)).toBe(Infinity);
    expect(rsqrt32(-0)).toBe(-Infinity);
    expect(rsqrt32(Infinity)).toBe(0);
    expect(rsqrt32(-1)).toBeNaN();
    // where XLA's differs from 1/sqrt correctly rounded (jax.lax.rsqrt under jit: the bits on the right)
    expect(f32ToBits(rsqrt32(0.27224862575531006))).toBe(1073041683);
    expect(f32ToBits(rsqrt32(19.041133880615234))).toBe(1047177974);
    expect(f32ToBits(rsqrt32(1.5753705501556396))).toBe(1061942834);
    expect(f32ToBits(rsqrt32(3))).toBe(1058262330);
  });
});

describe('float64 references', () => {
  // scipy.special.erf / erfc (float64)
  const ERF: [number, number, number][] = [
    [1e-8, 1.1283791670955125e-8, 0.9999999887162083],
    [0.1, 0.1124629160182849, 0.8875370839817152],
    [0.5, 0.5204998778130465, 0.4795001221869535],
    [1.0, 0.8427007929497148, 0.15729920705028516],
    [1.5, 0.9661051464753108, 0.03389485352468927],
    [2.0, 0.9953222650189527, 0.004677734981047266],
    [2.4, 0.999311486103355, 0.0006885138966450789],
    [2.6, 0.9997639655834707, 0.000236034416529349],
    [3.0, 0.9999779095030014, 2.2090496998585445e-5],
    [4.0, 0.9999999845827421, 1.541725790028002e-8],
    [5.0, 0.9999999999984626, 1.5374597944280347e-12],
    [6.0, 1.0, 2.1519736712498913e-17],
  ];
  it('erf64 / erfc64 match scipy (1e-14 / 1e-12 relative)', () => {
    for (const [x, e, ec] of ERF) {
      expect(Math.abs(erf64(x) - e)).toBeLessThanOrEqual(1e-14 * Math.abs(e));
      expect(Math.abs(erf64(-x) + e)).toBeLessThanOrEqual(1e-14 * Math.abs(e));
      expect(Math.abs(erfc64(x) - ec)).toBeLessThanOrEqual(1e-12 * ec);
    }
  });
  // scipy.special.erfinv(float64(float32(x)))
  const ERFINV: [number, number][] = [
    [1e-6, 8.862269232154821e-7],
    [0.1, 0.08885599182530647],
    [0.25, 0.2253120550121781],
    [0.5, 0.4769362762044699],
    [0.75, 0.8134198475976184],
    [0.9, 1.1630870719457722],
    [0.99, 1.821386600900278],
    [0.999, 2.3267563267961546],
    [0.99999, 3.123205771165071],
    [-0.3, -0.2724627261055238],
    [-0.95, -1.3859037522360773],
  ];
  it('erfInv64 matches scipy; erfInv32 within its ulp budget', () => {
    for (const [x, v] of ERFINV) {
      expect(Math.abs(erfInv64(fr(x)) - v)).toBeLessThanOrEqual(1e-12 * Math.abs(v));
      expect(ulpDist(erfInv32(fr(x)), v)).toBeLessThanOrEqual(Math.abs(x) < 0.99 ? 3 : 80);
    }
  });
});

describe('ftz32 (XLA CPU flush to zero)', () => {
  it('flushes subnormals to a zero of their sign and keeps every other value', () => {
    const min = 2 ** -126;
    const sub = 2 ** -149;
    expect(Object.is(ftz32(sub), 0)).toBe(true);
    expect(Object.is(ftz32(-sub), -0)).toBe(true);
    expect(Object.is(ftz32(min - sub), 0)).toBe(true);
    expect(Object.is(ftz32(-(min - sub)), -0)).toBe(true);
    expect(Object.is(ftz32(0), 0)).toBe(true);
    expect(Object.is(ftz32(-0), -0)).toBe(true);
    for (const x of [min, -min, 1, -1.5, 3e38, -Infinity, Infinity]) expect(ftz32(x)).toBe(x);
    expect(Number.isNaN(ftz32(NaN))).toBe(true);
  });
});
