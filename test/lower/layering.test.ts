// src/lower's import graph (type-only imports count): the only cycle is the
// evaluator core, and the core imports no library module (the API modules,
// array methods and sharding objects reach it through the Library that
// lower/index.ts builds).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../src/lower');
const CORE = ['attrs.ts', 'expr.ts', 'format.ts', 'interp.ts', 'printf.ts', 'stmt.ts'];

function importGraph(): Map<string, string[]> {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const src = readFileSync(join(DIR, f), 'utf8');
    const targets = [...src.matchAll(/(?:import|export)\s[^;]*?from\s+'\.\/([^']+)\.js'/gs)].map((m) => `${m[1]}.ts`);
    graph.set(f, targets.filter((t) => files.includes(t)));
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)!.includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('src/lower layering', () => {
  it('has one import cycle, the evaluator core', () => {
    expect(cycles(importGraph())).toEqual([CORE]);
  });

  it('keeps library modules out of the core', () => {
    const graph = importGraph();
    const libraries = [...graph.keys()].filter((f) => f.startsWith('lib_') || f === 'array_methods.ts' || f === 'transforms.ts' || f === 'index.ts');
    for (const f of CORE) expect(graph.get(f)!.filter((t) => libraries.includes(t)), f).toEqual([]);
  });
});
