// jax.debug.visualize_array_sharding's table (src/lower/lib_sharding.ts shardingTable) against the
// text real JAX 0.10.2 prints through rich when stdout is not a terminal, for a (2, 4) mesh ('x', 'y').
// The oracle venv has no `rich` (JAX then raises), so these tables were captured once with rich 15
// installed beside it; a fixture golden needs `rich` in scripts/oracle-requirements.txt.
import { describe, expect, it } from 'vitest';
import type { DimShardings } from '../../src/ir/sharding.js';
import { shardingTable } from '../../src/lower/lib_sharding.js';

const mesh = { axes: [{ name: 'x', size: 2 }, { name: 'y', size: 4 }], explicit: true };
const devices = [0, 1, 2, 3, 4, 5, 6, 7];
const CASES: [number[], DimShardings, string][] = [
  [[4, 8], [["x"], ["y"]], "┌──────────┬──────────┬──────────┬──────────┐\n│          │          │          │          │\n│  CPU 0   │  CPU 1   │  CPU 2   │  CPU 3   │\n│          │          │          │          │\n│          │          │          │          │\n├──────────┼──────────┼──────────┼──────────┤\n│          │          │          │          │\n│  CPU 4   │  CPU 5   │  CPU 6   │  CPU 7   │\n│          │          │          │          │\n│          │          │          │          │\n└──────────┴──────────┴──────────┴──────────┘\n"],
  [[4, 8], [[], ["y"]], "┌──────────┬──────────┬──────────┬──────────┐\n│          │          │          │          │\n│          │          │          │          │\n│          │          │          │          │\n│          │          │          │          │\n│ CPU 0,4  │ CPU 1,5  │ CPU 2,6  │ CPU 3,7  │\n│          │          │          │          │\n│          │          │          │          │\n│          │          │          │          │\n│          │          │          │          │\n└──────────┴──────────┴──────────┴──────────┘\n"],
  [[8, 4], [["y"], ["x"]], "┌───────┬───────┐\n│ CPU 0 │ CPU 4 │\n├───────┼───────┤\n│ CPU 1 │ CPU 5 │\n├───────┼───────┤\n│ CPU 2 │ CPU 6 │\n├───────┼───────┤\n│ CPU 3 │ CPU 7 │\n└───────┴───────┘\n"],
  [[16], [["x"]], "┌───────────┬───────────┐\n│CPU 0,1,2,3│CPU 4,5,6,7│\n└───────────┴───────────┘\n"],
  [[16], [["x", "y"]], "┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐\n│ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │\n└───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘\n"],
  [[4, 8], [[], []], "┌────────────────────────────────────────────────┐\n│                                                │\n│                                                │\n│                                                │\n│                                                │\n│              CPU 0,1,2,3,4,5,6,7               │\n│                                                │\n│                                                │\n│                                                │\n│                                                │\n└────────────────────────────────────────────────┘\n"],
  [[6], [[]], "┌───────────────────┐\n│CPU 0,1,2,3,4,5,6,7│\n└───────────────────┘\n"],
];

const SINGLE = "┌────────────────────────────────────────────────┐\n│                                                │\n│                                                │\n│                                                │\n│                                                │\n│                     CPU 0                      │\n│                                                │\n│                                                │\n│                                                │\n│                                                │\n└────────────────────────────────────────────────┘\n";

describe('visualize_array_sharding table', () => {
  for (const [shape, dims, text] of CASES) {
    it(`shape (${shape.join(', ')}) split ${JSON.stringify(dims)}`, () => {
      expect(shardingTable(shape, mesh, devices, dims, null)).toBe(text);
    });
  }
  it('an array on one device is one cell', () => {
    expect(shardingTable([4, 8], null, [0], [[], []], null)).toBe(SINGLE);
  });
});
