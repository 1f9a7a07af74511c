// The CPU dialect's column sums in XLA's library order (kernel_walker.ts libraryColumns, runtime/cpu/reduce.ts
// columnSum32): a column of at most one block (4 rows) is added in place, in order from zero, with no scratch
// array nor call; a longer one goes to columnSum32. Both give columnSum32's floats bit for bit.
import { describe, expect, it } from 'vitest';
import { renderJs } from '../../src/codegen/js.js';
import type { KExpr, Kernel } from '../../src/ir/kernel.js';
import type { CpuKernel } from '../../runtime/program.js';
import * as runtimeHelpers from '../../runtime/index.js';
import { columnSum32 } from '../../runtime/cpu/reduce.js';

const F = 'float32' as const;
const int = (value: number): KExpr => ({ op: 'const', value, dtype: 'int32' });
const gid: KExpr = { op: 'gid', dtype: 'int32', bound: 0 };
const rvar: KExpr = { op: 'rvar', id: 0, dtype: 'int32', bound: 0 };

/** out[j] = Σ_r x[r·cols + j], a sum over the leading axis of an rows × cols array, as XLA's library adds it. */
function columnKernel(rows: number, cols: number): Kernel {
  const index: KExpr = { op: 'bin', fn: 'add', a: { op: 'bin', fn: 'mul', a: rvar, b: int(cols), dtype: 'int32' }, b: gid, dtype: 'int32' };
  const body: KExpr = { op: 'reduce', fn: 'sum', id: 0, extent: rows, body: { op: 'load', input: 0, index, dtype: F }, dtype: F, lib: cols };
  return { name: 'columns', inputs: [{ dtype: F, size: rows * cols }], output: { dtype: F, size: cols }, body, usesDevice: false };
}

function run(k: Kernel, x: Float32Array): { source: string; out: Float32Array } {
  const { source, helpers } = renderJs(k, 'kernel', false);
  const lib = runtimeHelpers as unknown as Record<string, unknown>;
  const cpu = new Function(...helpers, `${source}\nreturn kernel;`)(...helpers.map((h) => lib[h])) as CpuKernel;
  const out = new Float32Array(k.output.size);
  cpu([x], out, 0);
  return { source, out };
}

/** Values whose float32 sums depend on the order: large and small of both signs, a negative zero, a subnormal. */
function data(n: number): Float32Array {
  const x = Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * 0.71) * 10 ** ((i % 9) - 4)));
  x[3] = -0;
  x[5] = 1e-40;
  x[7] = 3e38;
  return x;
}

describe('column sums of the CPU dialect', () => {
  for (const rows of [1, 2, 3, 4, 5, 17, 300]) {
    it(`${rows} rows of 2048 columns: ${rows <= 4 ? 'in place' : 'columnSum32'}, bit for bit`, () => {
      const cols = 2048;
      const x = data(rows * cols);
      const { source, out } = run(columnKernel(rows, cols), x);
      expect(source.includes('columnSum32(')).toBe(rows > 4);
      for (let j = 0; j < cols; j++) {
        const column = Float32Array.from({ length: rows }, (_, r) => x[r * cols + j]!);
        expect(Object.is(out[j], columnSum32(column, rows, cols)), `column ${j}`).toBe(true);
      }
    });
  }
});
