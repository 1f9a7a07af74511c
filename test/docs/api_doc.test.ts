// docs/API.md is generated (scripts/api_coverage.py): its marks and coverage
// figures must agree with jaxts's module tables as they are now.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_MODULES, apiSurface } from '../../src/lower/api_surface.js';

const doc = readFileSync(join(import.meta.dirname, '../../docs/API.md'), 'utf8');

describe('docs/API.md', () => {
  const surface = apiSurface();
  const sections = new Map<string, { name: string; kind: string; yes: boolean; excluded: boolean }[]>();
  let current: { name: string; kind: string; yes: boolean; excluded: boolean }[] | null = null;
  for (const line of doc.split('\n')) {
    const h = /^## (\S+)$/.exec(line);
    if (h) sections.set(h[1]!, (current = []));
    const row = /^\| `([^`]+)` \| (\w+) \| (yes|no) \| (.*)\|$/.exec(line);
    if (row && current) current.push({ name: row[1]!, kind: row[2]!, yes: row[3] === 'yes', excluded: row[4]!.startsWith('excluded (') });
  }

  it('covers every module of the surface', () => {
    expect([...sections.keys()]).toEqual([...API_MODULES]);
  });

  it.each([...API_MODULES])('%s: every mark matches the tables (regenerate with scripts/api_coverage.py)', (mod) => {
    const have = new Set(surface[mod]);
    const wrong = (sections.get(mod) ?? []).filter((r) => r.yes !== have.has(r.name)).map((r) => `${r.name}: ${r.yes ? 'yes' : 'no'}`);
    expect(wrong).toEqual([]);
  });

  it('states the coverage figures of its tables', () => {
    for (const mod of API_MODULES) {
      const rows = sections.get(mod) ?? [];
      const yes = rows.filter((r) => r.yes).length;
      const fns = rows.filter((r) => r.kind === 'function' && !r.excluded);
      const pct = (s: number, n: number): string => (n ? `${Math.round((100 * s) / n)}%` : '-');
      const fnYes = fns.filter((r) => r.yes).length;
      expect(doc).toContain(`| [${mod}](#${mod.replace(/\./g, '')}) | ${fnYes} | ${fns.length} | ${pct(fnYes, fns.length)} | ${yes} | ${rows.length} |`);
    }
  });
});
