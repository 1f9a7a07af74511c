// JAX's dtype promotion (the lattice with weak types, x64 disabled) against the table the
// pinned JAX computes (scripts/promotion_table.py writes test/lower/promotion_table.json).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { promote, weakPromoted } from '../../src/lower/arrays.js';
import type { AVal, DType } from '../../src/ir/types.js';

const table = JSON.parse(readFileSync(new URL('./promotion_table.json', import.meta.url), 'utf8')) as Record<string, [string, boolean]>;

/** An operand of the table: a dtype, or a Python scalar (weak int/float/complex). */
function aval(name: string): AVal {
  const weak: Record<string, DType> = { weak_int: 'int32', weak_float: 'float32', weak_complex: 'complex64' };
  return weak[name] ? { shape: [], dtype: weak[name]!, weak: true } : { shape: [], dtype: name as DType, weak: false };
}

describe('dtype promotion', () => {
  test.each(Object.entries(table))('%s', (pair, [dtype, weak]) => {
    const [a, b] = pair.split(',') as [string, string];
    expect([promote(aval(a), aval(b)), weakPromoted(aval(a), aval(b))]).toEqual([dtype, weak]);
  });
});
