// Unit tests for the golden-output comparator (test/golden/compare.ts): what counts as "prints the same".
import { describe, expect, it } from 'vitest';
import { compareOutputs } from './compare.js';

function pass(expected: string, actual: string): void {
  const r = compareOutputs(expected, actual);
  expect(r.message).toBe('outputs match');
  expect(r.ok).toBe(true);
}

function fail(expected: string, actual: string, ...fragments: string[]): string {
  const r = compareOutputs(expected, actual);
  expect(r.ok).toBe(false);
  for (const f of fragments) expect(r.message).toContain(f);
  return r.message;
}

describe('compareOutputs: identical and tolerated differences', () => {
  it('passes identical output', () => {
    const out = 'Input shape: (4, 4)\n[[ 0  1]\n [ 4  9]]\n';
    pass(out, out);
    pass('', '');
  });

  it('passes a 1-ulp float32 difference that changes the printed digits and the padding', () => {
    const e = '[[ 0.         1.841471 ]\n [ 4.9092975  9.14112  ]]\n';
    const a = '[[ 0.         1.8414711]\n [ 4.9092975  9.141121 ]]\n';
    pass(e, a);
  });

  it('passes padding changes in repr() of arrays', () => {
    pass('Array([ 1. , -2. ,  0.5], dtype=float32)\n', 'Array([1., -2., 0.5], dtype=float32)\n');
    pass('[   0    1    2 ... 1997 1998 1999]\n', '[0 1 2 ... 1997 1998 1999]\n');
  });

  it('passes a last-digit flip in fixed-precision formatting', () => {
    pass('loss: 0.1250\n', 'loss: 0.1251\n');
    pass('3.1416|  7|\n', '3.1415|  7|\n');
  });

  it('passes differences within 1e-4 relative', () => {
    pass('1234.5\n', '1234.6\n');
    pass('[1.2345679e+08 5.0000000e-01]\n', '[1.2345680e+08 5.0000000e-01]\n');
  });

  it('passes when NumPy wraps a long row at a different place', () => {
    const e = '[0.         0.33333334 0.6666667  1.\n 1.3333334 ]\n';
    const a = '[0.         0.33333334 0.6666667\n 1.         1.3333334 ]\n';
    pass(e, a);
  });

  it('matches CpuDevice(id=N) against any XDevice(id=N) and cpu:N against name:N', () => {
    pass('[CpuDevice(id=0), CpuDevice(id=1)]\n', '[WebGpuDevice(id=0), WebGpuDevice(id=1)]\n');
    pass("['cpu:0', 'cpu:1']\n0 cpu:0\n", "['webgpu:0', 'webgpu:1']\n0 webgpu:0\n");
    pass('devices: [CpuDevice(id=0)]\n', 'devices: [CpuDevice(id=0)]\n');
  });

  it('treats nan and inf as text', () => {
    pass('[nan inf -inf]\n', '[ nan  inf -inf]\n');
  });

  it('normalizes CRLF line endings', () => {
    pass('a\nb\n', 'a\r\nb\r\n');
  });
});

describe('compareOutputs: real differences', () => {
  it('fails on a different float beyond tolerance', () => {
    fail('[1.841471 2.5]\n', '[1.85 2.5]\n', 'line 1', '1.85', '1.841471');
  });

  it('fails when a short (round) float changes its last digit', () => {
    fail('[1. 2. 3.]\n', '[1. 2. 4.]\n', 'line 1');
    fail('[0.25 0.5 ]\n', '[0.26 0.5 ]\n', 'line 1');
    fail('Array([1.e-07, 3.e-07], dtype=float32)\n', 'Array([1.e-07, 2.e-07], dtype=float32)\n');
  });

  it('fails on any integer difference and on int vs float', () => {
    fail('66 int32\n', '67 int32\n', '67', '66');
    fail('[0 1 4 9]\n', '[0. 1. 4. 9.]\n', 'line 1');
    fail('(4, 32, 784)\n', '(4, 32, 785)\n');
  });

  it('fails on text differences, including dtype names and words', () => {
    fail('Array([0, 1], dtype=int32)\n', 'Array([0, 1], dtype=int64)\n', 'line 1');
    fail('Array(3, dtype=int32, weak_type=True)\n', 'Array(3, dtype=int32)\n');
    fail('device 개수: 4\n', 'device count: 4\n');
    fail('a -> 1\n', 'a->1\n');
    fail('[nan 1.]\n', '[inf 1.]\n');
  });

  it('fails on missing and extra lines', () => {
    fail('a\nb\nc\n', 'a\nb\n', 'line 3', 'ends early');
    fail('a\nb\n', 'a\nb\nc\n', 'line 3', 'extra output');
    fail('a\n', 'a', 'missing final newline');
    fail('x\n\ny\n', 'x\ny\n', 'line 2');
  });

  it('fails on a row structure change even when the numbers agree', () => {
    fail('[[1 2]\n [3 4]]\n', '[1 2 3 4]\n');
    fail('[[1 2]\n [3 4]]\n', '[[1 2 3 4]]\n');
  });

  it('does not treat a different device index or non-device text as a device', () => {
    fail('[CpuDevice(id=0)]\n', '[CpuDevice(id=1)]\n');
    fail('step:3\n', 'stage:3\n');
    fail('CpuDevice(id=0)\n', 'cpu:0\n');
  });

  it('reports the first differing line with its number, expected and actual', () => {
    const msg = fail('ok\nsame\nvalue: 1.5\nlast\n', 'ok\nsame\nvalue: 2.5\nlast\n');
    expect(msg).toContain('line 3');
    expect(msg).toContain('expected: "value: 1.5"');
    expect(msg).toContain('actual:   "value: 2.5"');
  });
});

describe('compareOutputs: subnormals', () => {
  it('an expected subnormal printed as 0 matches only where the device may flush (WebGPU), not on the CPU backend', () => {
    expect(compareOutputs('[1.e-40 2.e+00]\n', '[0. 2.]\n', { subnormalsMayFlush: true }).ok).toBe(true);
    const r = compareOutputs('[1.e-40 2.e+00]\n', '[0. 2.]\n');
    expect(r.ok).toBe(false);
    expect(r.message).toContain('differs from expected 1.e-40');
  });
});
