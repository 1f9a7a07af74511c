// Double-double arithmetic in pair form: a value is the unevaluated sum hi + lo of two doubles
// (about 106 bits). Used where a result must be correctly rounded: Python's math functions
// (runtime/pymath.ts) and, as the reference for its allocation-free register form, the log of
// NumPy's legacy Gaussian (runtime/numpy/mt19937.ts; test/runtime/correct_log.test.ts).

/** A double-double: the unevaluated sum hi + lo, |lo| at most half an ulp of hi. */
export type DD = readonly [hi: number, lo: number];

/** a + b exactly (Knuth's two-sum). */
export const twoSum = (a: number, b: number): DD => {
  const s = a + b;
  const bb = s - a;
  return [s, a - (s - bb) + (b - bb)];
};
/** a + b exactly, for |a| >= |b| (Dekker's fast two-sum). */
export const quickTwoSum = (a: number, b: number): DD => {
  const s = a + b;
  return [s, b - (s - a)];
};
const SPLITTER = 134217729; // 2^27 + 1 (Dekker's split)
/** a * b exactly (Dekker's product, no fma). */
export const twoProd = (a: number, b: number): DD => {
  const p = a * b;
  const ta = SPLITTER * a;
  const ah = ta - (ta - a);
  const al = a - ah;
  const tb = SPLITTER * b;
  const bh = tb - (tb - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
};
export const ddAdd = (x: DD, y: DD): DD => {
  const [s, e] = twoSum(x[0], y[0]);
  const [t, f] = twoSum(x[1], y[1]);
  const [s2, e2] = quickTwoSum(s, e + t);
  return quickTwoSum(s2, e2 + f);
};
export const ddNeg = (x: DD): DD => [-x[0], -x[1]];
export const ddSub = (x: DD, y: DD): DD => ddAdd(x, ddNeg(y));
export const ddMul = (x: DD, y: DD): DD => {
  const [p, e] = twoProd(x[0], y[0]);
  return quickTwoSum(p, e + (x[0] * y[1] + x[1] * y[0]));
};
/** x / y: three quotient digits, each from the remainder of the previous ones. */
export const ddDiv = (x: DD, y: DD): DD => {
  const q1 = x[0] / y[0];
  let r = ddSub(x, ddMul(y, [q1, 0]));
  const q2 = r[0] / y[0];
  r = ddSub(r, ddMul(y, [q2, 0]));
  const q3 = r[0] / y[0];
  return ddAdd(quickTwoSum(q1, q2), [q3, 0]);
};
