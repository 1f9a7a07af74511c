// End to end in a real browser: seed 001's first code block, imported by a
// page through the esbuild plugin, runs in headless Chromium on WebGPU
// (SwiftShader) and prints real JAX's output.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { compareOutputs } from '../golden/compare.js';
import { ROOT } from '../helpers/fixtures.js';
import { hasChromium, launch, serve } from './chromium.js';

const LESSON = 'fixtures/seed001/01_mesh_linear_regression.py';

const PAGE = `<!doctype html><meta charset="utf-8"><title>lesson</title><pre id="out"></pre><script type="module" src="app.js"></script>`;

/** The page's script: run the lesson on WebGPU, printing into #out; report the backend and timings. */
const APP = `
import { main, deviceCount } from './lesson.py';
import { createRuntime } from 'jaxts/runtime';

const out = document.getElementById('out')!;
let firstOutputMs = 0;
let firstLossMs = 0;
const rt = await createRuntime({ devices: deviceCount, write: (text) => {
  firstOutputMs ||= performance.now();
  if (text.includes('loss')) firstLossMs ||= performance.now();
  out.textContent += text;
} });
try {
  await main(rt);
  await rt.sync();
  (window as unknown as { result: unknown }).result = { backend: rt.backend.kind, firstOutputMs, firstLossMs, doneMs: performance.now() };
} catch (e) {
  (window as unknown as { result: unknown }).result = { error: String(e) };
}
`;

const suite = hasChromium || process.env['CI'] ? describe : describe.skip;

suite('a lesson bundled with the plugin, in Chromium', () => {
  it('prints the real-JAX golden on WebGPU', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-page-'));
    writeFileSync(join(dir, 'lesson.py'), readFileSync(join(ROOT, LESSON)));
    writeFileSync(join(dir, 'app.ts'), APP);
    writeFileSync(join(dir, 'index.html'), PAGE);
    const { default: jaxts } = (await import(pathToFileURL(join(ROOT, 'dist/esbuild.js')).href)) as { default: () => esbuild.Plugin };
    await esbuild.build({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: join(dir, 'app.js'), plugins: [jaxts()], logLevel: 'silent' });
    // the bundle has no Node imports: esbuild would have failed on them for platform 'browser'
    const server = await serve(dir);
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await page.waitForFunction(() => 'result' in window, null, { timeout: 100_000 });
      const result = (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as { backend?: string; error?: string; firstOutputMs: number; firstLossMs: number; doneMs: number };
      expect(errors).toEqual([]);
      expect(result.error).toBeUndefined();
      expect(result.backend).toBe('webgpu');
      const printed = await page.textContent('#out');
      const r = compareOutputs(readFileSync(join(ROOT, LESSON.replace(/\.py$/, '.out')), 'utf8'), printed ?? '');
      expect(r.ok, r.message).toBe(true);
      console.log(`seed 001 block 1 in Chromium (WebGPU, SwiftShader): first output ${result.firstOutputMs.toFixed(0)} ms after navigation, first loss ${result.firstLossMs.toFixed(0)} ms, done at ${result.doneMs.toFixed(0)} ms`);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
