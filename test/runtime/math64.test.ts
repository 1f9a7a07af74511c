// The CPU backend's float64 math (runtime/cpu/math64.ts) against jax's float64 results on XLA's CPU
// backend (jax 0.10.2, jax_enable_x64): exp and tanh are XLA's own sequences, 1 ulp off Math.exp and
// Math.tanh on these inputs; the int64 bitwise operations see all 64 bits.
import { describe, expect, test } from 'vitest';
import { bits64, exp64, f64ToI64, fma64, logistic64, tanh64 } from '../../runtime/cpu/math64.js';

// [x, jnp.exp(x), jnp.tanh(x)] printed by the oracle with repr()
const JAX: [number, number, number][] = [
  [5.478467492858172, 239.4794220878058, 0.9999651272641461],
  [-9.208531449445188, 0.00010018105596183294, -0.9999999799275122],
  [-18.361059042552213, 1.0614349312365783e-8, -0.9999999999999992],
  [0.20694911645890568, 1.2299199875042846, 0.20404446519129818],
  [0.024659964993618777, 1.0249665367595786, 0.0246549675202843],
  [1.0, 2.7182818284590455, 0.7615941559557649],
];

describe('float64 math as XLA computes it', () => {
  test.each(JAX)('exp and tanh of %s', (x, e, t) => {
    expect(exp64(x)).toBe(e);
    expect(tanh64(x)).toBe(t);
  });
  test('edges', () => {
    expect([exp64(710), exp64(-709), exp64(NaN), tanh64(25), tanh64(-25), tanh64(NaN)]).toEqual([Infinity, 0, NaN, 1, -1, NaN]);
    expect(logistic64(0)).toBe(0.5);
  });
  test('fma64 rounds once', () => {
    // (1 + 2^-30)^2 - 1 needs the product's low bits
    const a = 1 + 2 ** -30;
    expect(fma64(a, a, -1)).toBe(2 ** -29 + 2 ** -60);
    expect(a * a - 1).not.toBe(2 ** -29 + 2 ** -60);
  });
  test('int64 bitwise and conversions', () => {
    expect(bits64('and', 2 ** 40 + 5, 2 ** 40 + 3)).toBe(2 ** 40 + 1);
    expect(bits64('shift_left', 1, 40)).toBe(2 ** 40);
    expect(bits64('shift_right_logical', -1, 60)).toBe(15);
    expect(bits64('shift_right_arithmetic', -(2 ** 40), 70)).toBe(-1);
    expect([f64ToI64(NaN), f64ToI64(-2.7), f64ToI64(1e300)]).toEqual([0, -2, 9223372036854775807]);
  });
});
