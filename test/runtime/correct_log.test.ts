// The correctly rounded log of runtime/numpy/mt19937.ts (NumPy's legacy Gaussian draws need glibc's log):
// its allocation-free double-double form gives, bit for bit, what the pair-returning form it replaced gave
// (that form is kept here as the reference), and agrees with Math.log to within one ulp.
import { describe, expect, it } from 'vitest';
import { log } from '../../runtime/numpy/mt19937.js';
import { ddAdd, ddDiv, ddMul, twoProd, twoSum, type DD } from '../../runtime/double_double.js';

const LN2: DD = [0.6931471805599453, 2.3190468138462996e-17];
const ODD: DD[] = Array.from({ length: 11 }, (_, j) => {
  const d = 2 * j + 1;
  const hi = 1 / d;
  const [p, e] = twoProd(hi, d);
  return [hi, (1 - p - e) / d] as DD;
});
function referenceLog(x: number): number {
  if (!(x > 0) || x === Infinity) return x === 0 ? -Infinity : x === Infinity ? x : NaN;
  if (x === 1) return 0;
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  let k = 0;
  if (x < 2.2250738585072014e-308) {
    x *= 18014398509481984;
    k = -54;
  }
  f64[0] = x;
  k += ((u32[1]! >>> 20) & 0x7ff) - 1023;
  u32[1] = (u32[1]! & 0x000fffff) | 0x3ff00000;
  let m = f64[0]!;
  if (m > Math.SQRT2) {
    m /= 2;
    k += 1;
  }
  const s = ddDiv([m - 1, 0], twoSum(m, 1));
  const s2 = ddMul(s, s);
  let tail = 0;
  for (let j = 21; j >= 11; j--) tail = tail * s2[0] + 1 / (2 * j + 1);
  let acc: DD = [tail, 0];
  for (let j = 10; j >= 0; j--) acc = ddAdd(ddMul(acc, s2), ODD[j]!);
  const lm = ddMul(s, acc);
  const r = ddAdd(ddMul(LN2, [k, 0]), [2 * lm[0], 2 * lm[1]]);
  return r[0] + r[1];
}

describe('correctly rounded log', () => {
  it('matches the pair-returning double-double form bit for bit', () => {
    let seed = 12345;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const xs = [0, -1, 1, 2, 0.5, Math.SQRT2, Math.SQRT1_2, 5e-324, 1e-310, 2.2250738585072014e-308, Number.MAX_VALUE, Infinity, NaN];
    for (let i = 0; i < 20000; i++) xs.push(rand(), rand() * 2, 1 + (rand() - 0.5) * 1e-6, Math.exp((rand() - 0.5) * 1400));
    const differ = xs.filter((x) => !Object.is(log(x), referenceLog(x)));
    expect(differ).toEqual([]);
    const far = xs.filter((x) => x > 0 && x < Infinity && Math.abs(log(x) - Math.log(x)) > Math.abs(Math.log(x)) * 2.3e-16 + 5e-324);
    expect(far).toEqual([]);
  });
});
