// The generated code's name table (src/lower/name_table.ts): fresh names take
// the first free suffix, and a rollback to a mark undoes exactly the names,
// program names and suffix counters taken since, so that lowering again after
// a failed attempt makes the very names it would have made the first time.
import { describe, expect, it } from 'vitest';
import { NameTable } from '../../src/lower/name_table.js';

describe('NameTable', () => {
  it('takes a base, then its first free suffix', () => {
    const t = new NameTable();
    t.add('x_2');
    expect([t.fresh('x'), t.fresh('x'), t.fresh('x'), t.fresh('x')]).toEqual(['x', 'x_1', 'x_3', 'x_4']);
    expect(t.freshProgram('x')).toBe('x_5');
    expect(t.freshProgram('step')).toBe('step');
    expect(t.fresh('step')).toBe('step_1');
  });

  it('rolls back to a mark: names, program names and suffixes', () => {
    const t = new NameTable();
    t.fresh('a');
    t.fresh('a');
    const mark = t.mark();
    const first = [t.fresh('a'), t.fresh('b'), t.freshProgram('p'), t.fresh('a')];
    t.add('z');
    t.rollback(mark);
    expect(['a_2', 'b', 'p', 'a_3', 'z'].map((n) => t.has(n))).toEqual([false, false, false, false, false]);
    expect(t.has('a_1')).toBe(true);
    expect([t.fresh('a'), t.fresh('b'), t.freshProgram('p'), t.fresh('a')]).toEqual(first);
  });
});
