// The playground's examples are fixtures: each one imported by
// playground/examples.ts has real JAX's golden beside it (so the golden suite
// runs every example on both backends).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.js';

describe('playground examples', () => {
  const source = readFileSync(join(ROOT, 'playground/examples.ts'), 'utf8');
  const files = [...source.matchAll(/from '\.\.\/(fixtures\/[^']+\.py)'/g)].map((m) => m[1]!);

  it('are fixtures with goldens', () => {
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const f of files) expect(existsSync(join(ROOT, f.replace(/\.py$/, '.out'))), f).toBe(true);
  });
});
