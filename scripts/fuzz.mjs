#!/usr/bin/env node
// The long fuzz run: scripts/fuzz.ts and its worker (test/fuzz/worker.ts),
// bundled with esbuild straight from the sources (no build needed).
// Usage: npm run fuzz -- [--seed S] [--count N] [--jobs J] [--limit-ms MS] [--hang-ms MS] [--only SUBSTR] [--show N]
// Exit status 1 when a variant crashed the compiler (see test/fuzz/check.ts).
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// inside the package, so that the bundle's bare imports resolve to node_modules
const cache = new URL('../node_modules/.cache/', import.meta.url).pathname;
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'jaxts-fuzz-'));
const src = (p) => new URL(p, import.meta.url).pathname;
await build({
  entryPoints: { fuzz: src('./fuzz.ts'), worker: src('../test/fuzz/worker.ts') },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outdir: dir,
  logLevel: 'silent',
  define: { 'import.meta.dirname': JSON.stringify(src('.')) },
});
try {
  await import(pathToFileURL(join(dir, 'fuzz.js')).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
