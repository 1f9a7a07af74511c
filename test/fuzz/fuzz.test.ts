// Seeded fuzzing of the whole compiler: 10,000 mutations of the fixture
// programs (mutate.ts: tokens and lines deleted, duplicated, swapped;
// indentation changed; truncation; awkward Unicode; a token swapped for an
// edge-case value), 1 to 3 per variant, each compiled with compile(). The only allowed outcomes are a result or a CompileError whose
// span lies inside the file (check.ts: lines end at \n, \r\n or \r; the end of
// the text — one past the last line's last character — is a valid position);
// no other exception, no compile over 2 s (re-timed alone before it counts),
// no hang (a worker with no result for 20 s is stopped, its variant
// reported). Deterministic: a fixed seed, variants spread evenly over the
// fixtures. The longer run with any seed: npm run fuzz -- --seed S --count N.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.js';
import { badPos, sourceLines } from './check.js';
import { mutate, Rng, tokenize } from './mutate.js';
import { describeCrash, fixturePrograms, runFuzz } from './run.js';

const SEED = 20_240_607;
const COUNT = 10_000;
const LIMIT_MS = 2000;
const HANG_MS = 20_000;

let dir = '';
let workerFile = '';
beforeAll(async () => {
  // the worker threads run a bundle of worker.ts (vitest's transform does not reach them); inside the
  // package, so that its bare imports resolve to node_modules
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'jaxts-fuzz-test-'));
  workerFile = join(dir, 'worker.mjs');
  await build({ entryPoints: [join(ROOT, 'test/fuzz/worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: workerFile, logLevel: 'silent' });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fuzz', () => {
  it('mutates deterministically', () => {
    const text = 'import jax\nx = jax.numpy.ones((2, 3))\nfor i in range(3):\n    print(f"{i}: {x}")\n';
    const a = Array.from({ length: 50 }, (_, i) => mutate(text, new Rng(i)).text);
    const b = Array.from({ length: 50 }, (_, i) => mutate(text, new Rng(i)).text);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(40);
    expect(tokenize(text).join('')).toBe(text);
  });

  it('accepts a span inside the file, end of file included', () => {
    const lines = sourceLines('ab\r\ncd\n');
    expect(lines).toEqual(['ab', 'cd', '']);
    expect(badPos(lines, { line: 1, col: 3 }, 'start')).toBeNull();
    expect(badPos(lines, { line: 3, col: 1 }, 'start')).toBeNull();
    expect(badPos(lines, { line: 1, col: 4 }, 'start')).toMatch(/col 4 outside 1..3/);
    expect(badPos(lines, { line: 4, col: 1 }, 'start')).toMatch(/line 4 outside 1..3/);
    expect(badPos(lines, { line: 0, col: 1 }, 'start')).not.toBeNull();
  });

  it(`compiles ${COUNT} mutated fixture programs: a result or a located CompileError, each within ${LIMIT_MS} ms`, async () => {
    const fixtures = fixturePrograms(ROOT);
    expect(fixtures.length).toBeGreaterThan(40);
    expect(fixtures.some((f) => f.name.startsWith('fixtures/errors/'))).toBe(true);
    const report = await runFuzz({ seed: SEED, count: COUNT, fixtures, workerFile, jobs: 2, limitMs: LIMIT_MS, hangMs: HANG_MS });
    const shown = report.crashes.slice(0, 20).map((c) => describeCrash(c, SEED, fixtures, LIMIT_MS));
    expect(report.crashes.length, `${report.crashes.length} distinct crashes (seed ${SEED}):\n\n${shown.join('\n\n')}\n`).toBe(0);
    expect(report.done).toBe(COUNT);
  }, 600_000);
});
