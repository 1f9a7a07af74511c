#!/usr/bin/env node
// Runs scripts/bench-spmd.ts (bundled with esbuild; needs `npm run build` for
// dist/runtime.js and the oracle venv). Usage: npm run bench:spmd
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// inside the package, so that the bundle's bare imports resolve to node_modules
const cache = new URL('../node_modules/.cache/', import.meta.url).pathname;
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'jaxts-bench-'));
const out = join(dir, 'bench-spmd.mjs');
await build({ entryPoints: [new URL('./bench-spmd.ts', import.meta.url).pathname], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: out, logLevel: 'silent', define: { 'import.meta.dirname': JSON.stringify(new URL('.', import.meta.url).pathname) } });
try {
  await import(pathToFileURL(out).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
