// Browser tests of the playground page (dist/playground, from `npm run build`)
// in headless Chromium with WebGPU on SwiftShader: seed 001's first block run
// from localhost against real JAX's output, the loss plot (screenshots under
// test-results/), a compile error shown inline, and the page opened as a file.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_COLOR, type LossPoint } from '../../playground/plot.js';
import { servePlayground, type PlaygroundServer } from '../../src/playground.js';
import { compareOutputs } from '../golden/compare.js';
import { hasChromium, launch } from './chromium.js';
import { decodePng, hexColor, pixelsNear } from './png.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist/playground');
const RESULTS = join(ROOT, 'test-results');
const GOLDEN = readFileSync(join(ROOT, 'fixtures/seed001/01_mesh_linear_regression.out'), 'utf8');

interface PageApi {
  state: string;
  output: string;
  points: LossPoint[];
  status: string;
}

/** The page's state (window.__jaxtsPlayground). */
const api = (page: Page): Promise<PageApi> =>
  page.evaluate(() => {
    const p = (window as unknown as { __jaxtsPlayground: PageApi }).__jaxtsPlayground;
    return { state: p.state, output: p.output, points: [...p.points], status: p.status };
  });

/** Click Run and wait for the run to end (done or error). */
async function runAndWait(page: Page, timeout = 45_000): Promise<PageApi> {
  await page.click('#run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset['state'] ?? ''), null, { timeout });
  return api(page);
}

/** The status of a GET of `path` sent as is (fetch would normalize `..` away). */
const rawStatus = (url: string, path: string): Promise<number | undefined> =>
  new Promise((ok, fail) => {
    const { hostname, port } = new URL(url);
    get({ hostname, port, path }, (res) => ok(res.resume().statusCode)).on('error', fail);
  });

/** The first lines `jaxts playground` prints (once it printed the file URL). */
function banner(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('file://') && out.endsWith('\n')) ok(out);
    });
    child.on('exit', (code) => fail(new Error(`jaxts playground exited (${code}): ${out}`)));
  });
}

function ensureBuilt(): void {
  if (!existsSync(join(DIST, 'playground.js'))) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
}

// Without Chromium the suite skips, except under CI, where beforeAll fails.
describe.skipIf(!hasChromium && !process.env['CI'])('playground page', () => {
  let browser: Browser;
  let server: PlaygroundServer;

  beforeAll(async () => {
    if (!hasChromium) throw new Error('playground tests: no Chromium at /usr/bin/chromium (CI=true; run scripts/setup-webgpu.sh as root)');
    ensureBuilt();
    mkdirSync(RESULTS, { recursive: true });
    [browser, server] = await Promise.all([launch(), servePlayground({ port: 0, root: DIST })]);
  });

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.close()]);
  });

  describe('seed 001 block 1, served from localhost', () => {
    let page: Page;
    let result: PageApi;
    const errors: string[] = [];

    beforeAll(async () => {
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      result = await runAndWait(page);
    });

    afterAll(async () => {
      await page?.close();
    });

    it('prints what real JAX prints, on WebGPU', async () => {
      expect(errors).toEqual([]);
      expect(result.state, result.output).toBe('done');
      const shown = await page.locator('#output').textContent();
      expect(shown).toBe(result.output);
      const cmp = compareOutputs(GOLDEN, shown ?? '');
      expect(cmp.ok, cmp.message).toBe(true);
      expect(result.status).toMatch(/^WebGPU \(.*\) · compile \d+ ms · run \d+ ms$/);
    });

    it('plots the printed losses as a descending line', async () => {
      expect(result.points.length).toBeGreaterThanOrEqual(10);
      expect(result.points[0]).toEqual({ step: 0, loss: 28.8648, run: 0 });
      expect(await page.locator('#plot').getAttribute('data-points')).toBe(String(result.points.length));
      const plot = await page.locator('#plot').screenshot();
      writeFileSync(join(RESULTS, 'playground-plot.png'), plot);
      writeFileSync(join(RESULTS, 'playground-page.png'), await page.screenshot({ fullPage: true }));
      const line = pixelsNear(decodePng(plot), hexColor(LINE_COLOR), 12);
      expect(line.length).toBeGreaterThan(100);
      const xs = line.map((p) => p.x);
      const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
      const meanY = (from: number, to: number): number => {
        const ys = line.filter((p) => p.x >= from && p.x <= to).map((p) => p.y);
        return ys.reduce((a, b) => a + b, 0) / ys.length;
      };
      const band = (x1 - x0) * 0.1;
      expect(x1 - x0).toBeGreaterThan(200);
      // higher on screen (smaller y) at the left: the loss falls
      expect(meanY(x0, x0 + band)).toBeLessThan(meanY(x1 - band, x1) - 50);
    });
  });

  it('shows a compile error inline, below its line', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(server.url);
      await page.fill('#code', 'import jax.numpy as jnp\nx = jnp.ones((3,))\ny = x + undefined_name\nprint(y)\n');
      const r = await runAndWait(page, 15_000);
      expect(r.state).toBe('error');
      const box = page.locator('#error-box');
      expect(await box.isVisible()).toBe(true);
      expect(await box.getAttribute('data-line')).toBe('3');
      expect(await box.textContent()).toContain("NameError: name 'undefined_name' is not defined");
      expect(await page.locator('#gutter-lines .error').textContent()).toBe('3');
      // the box's top is just below line 3 of the editor
      const { lineTop, lineHeight } = await page.evaluate(() => {
        const code = document.getElementById('code')!;
        const cs = getComputedStyle(code);
        const lh = parseFloat(cs.lineHeight);
        return { lineTop: code.getBoundingClientRect().top + parseFloat(cs.paddingTop) + 2 * lh - code.scrollTop, lineHeight: lh };
      });
      const boxTop = (await box.boundingBox())!.y;
      expect(boxTop).toBeGreaterThanOrEqual(lineTop + lineHeight);
      expect(boxTop).toBeLessThanOrEqual(lineTop + lineHeight + 6);
      // editing clears it; Tab indents by four spaces
      await page.locator('#code').press('End');
      await page.keyboard.type('#');
      expect(await box.isVisible()).toBe(false);
      await page.keyboard.press('Tab');
      expect(await page.locator('#code').inputValue()).toMatch(/print\(y\)\n# {4}$/);
    } finally {
      await page.close();
    }
  });

  it('falls back to the CPU backend without an adapter; a runtime error shows in red', async () => {
    const page = await browser.newPage();
    try {
      await page.addInitScript(() => {
        if (navigator.gpu) navigator.gpu.requestAdapter = async () => null;
      });
      await page.goto(server.url);
      await page.selectOption('#backend', 'webgpu');
      const failed = await runAndWait(page, 15_000);
      expect(failed.state).toBe('error');
      const err = page.locator('#output .err');
      expect(await err.textContent()).toContain('no WebGPU adapter is available');
      expect(await err.evaluate((e) => getComputedStyle(e).color)).toBe('rgb(255, 138, 128)');
      await page.selectOption('#backend', 'auto');
      const r = await runAndWait(page);
      expect(r.state).toBe('done');
      expect(r.status).toMatch(/^CPU backend \(no WebGPU adapter\) · compile \d+ ms · run \d+ ms$/);
      const cmp = compareOutputs(GOLDEN, r.output);
      expect(cmp.ok, cmp.message).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('runs the default program when opened as a file', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(pathToFileURL(join(DIST, 'index.html')).href);
      await page.click('#run');
      await page.waitForFunction(() => (window as unknown as { __jaxtsPlayground: PageApi }).__jaxtsPlayground.output.includes('\n'), null, { timeout: 30_000 });
      const first = (await api(page)).output.split('\n')[0];
      expect(first).toBe(GOLDEN.split('\n')[0]);
    } finally {
      await page.close();
    }
  });

  it('`jaxts playground` serves the page', async () => {
    const cli = join(ROOT, 'dist/cli.js');
    const child = spawn(process.execPath, [cli, 'playground', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const text = await banner(child);
      const url = /^jaxts playground: (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl\+C to stop\)$/m.exec(text)?.[1];
      expect(url, text).toBeDefined();
      expect(text).toContain(pathToFileURL(join(DIST, 'index.html')).href);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<script src="playground.js"></script>');
      expect((await fetch(`${url}playground.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(await rawStatus(url!, '/../../package.json')).toBe(404);
    } finally {
      child.kill('SIGINT');
    }
  });
});
