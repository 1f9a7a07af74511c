// JAX's dtype promotion (the lattice with weak types, x64 disabled and enabled) against the tables the
// pinned JAX computes (scripts/promotion_table.py writes test/lower/promotion_table*.json).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { promote, weakPromoted } from '../../src/lower/arrays.js';
import { setX64 } from '../../src/lower/x64.js';
import type { AVal, DType } from '../../src/ir/types.js';

const load = (name: string): Record<string, [string, boolean]> => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as Record<string, [string, boolean]>;
const table = load('./promotion_table.json');
const tableX64 = load('./promotion_table_x64.json');

/** An operand of the table: a dtype, or a Python scalar (weak int/float/complex). */
function aval(name: string, x64 = false): AVal {
  const weak: Record<string, DType> = x64 ? { weak_int: 'int64', weak_float: 'float64' } : { weak_int: 'int32', weak_float: 'float32', weak_complex: 'complex64' };
  return weak[name] ? { shape: [], dtype: weak[name]!, weak: true } : { shape: [], dtype: name as DType, weak: false };
}

describe('dtype promotion', () => {
  test.each(Object.entries(table))('%s', (pair, [dtype, weak]) => {
    const [a, b] = pair.split(',') as [string, string];
    expect([promote(aval(a), aval(b)), weakPromoted(aval(a), aval(b))]).toEqual([dtype, weak]);
  });
});

describe('dtype promotion with jax_enable_x64', () => {
  test.each(Object.entries(tableX64))('%s', (pair, [dtype, weak]) => {
    const [a, b] = pair.split(',') as [string, string];
    setX64(true);
    try {
      expect([promote(aval(a, true), aval(b, true)), weakPromoted(aval(a, true), aval(b, true))]).toEqual([dtype, weak]);
    } finally {
      setX64(false);
    }
  });
});
