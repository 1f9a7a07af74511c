// Browser tests of the playground page (dist/playground, from `npm run build`)
// in headless Chromium with WebGPU on SwiftShader: seed 001's first block run
// in the page's worker from localhost against real JAX's output, the metric
// plots (screenshots under test-results/), the page painting frames during a
// long CPU run and Stop ending it, the program kept across reloads and in a
// shared URL, compile and run-time errors marked at their line in the editor,
// the jaxpr / SPMD / WGSL tabs, the editor's search and undo, a 390 px wide
// layout, and the page opened as a file.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_COLOR, type Metric } from '../../playground/plot.js';
import { servePlayground, type PlaygroundServer } from '../../src/playground.js';
import { compareOutputs } from '../golden/compare.js';
import { CHROMIUM, hasChromium, launch } from './chromium.js';
import { decodePng, hexColor, pixelsNear } from './png.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist/playground');
const RESULTS = join(ROOT, 'test-results');
const GOLDEN = readFileSync(join(ROOT, 'fixtures/seed001/01_mesh_linear_regression.out'), 'utf8');

interface PageApi {
  state: string;
  output: string;
  metrics: Metric[];
  status: string;
  source: string;
}

/** The page's state (window.__jaxtsPlayground). */
const api = (page: Page): Promise<PageApi> =>
  page.evaluate(() => {
    const p = (window as unknown as { __jaxtsPlayground: PageApi }).__jaxtsPlayground;
    return { state: p.state, output: p.output, metrics: JSON.parse(JSON.stringify(p.metrics)) as Metric[], status: p.status, source: p.source };
  });

/** Open the page and wait until its editor holds a program. */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset['ready'] === 'true', null, { timeout: 20_000 });
}

/** Put `text` in the editor (as one edit). */
const setSource = (page: Page, text: string): Promise<void> =>
  page.evaluate((t) => {
    (window as unknown as { __jaxtsPlayground: PageApi }).__jaxtsPlayground.source = t;
  }, text);

/** Click Run and wait for the run to end (done or error). */
async function runAndWait(page: Page, timeout = 45_000): Promise<PageApi> {
  await page.click('#run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset['state'] ?? ''), null, { timeout });
  return api(page);
}

/** A CPU-heavy program that prints a loss every few steps for minutes. */
const LONG_RUN = `import jax
import jax.numpy as jnp

x = jnp.ones((192, 192)) / 192.0
for i in range(100000):
    x = jnp.tanh(x @ x + 0.5)
    if i % 5 == 0:
        print(f"step {i}: loss {float(x.mean()):.5f}")
`;

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
      await open(page, server.url);
      result = await runAndWait(page);
    });

    afterAll(async () => {
      await page?.close();
    });

    it('prints what real JAX prints, on WebGPU in the worker', async () => {
      expect(errors).toEqual([]);
      expect(result.state, result.output).toBe('done');
      const shown = await page.locator('#output').textContent();
      expect(shown).toBe(result.output);
      const cmp = compareOutputs(GOLDEN, shown ?? '');
      expect(cmp.ok, cmp.message).toBe(true);
      expect(result.status).toMatch(/^WebGPU \(.*\) · compile \d+ ms · run \d+(\.\d)? m?s$/);
      // the worker compiled and ran it: the page's own script has no compiler (it carries the worker's as text)
      expect(await page.evaluate(() => typeof (window as unknown as { __jaxtsRuntime?: unknown }).__jaxtsRuntime)).toBe('undefined');
    });

    it('plots the printed losses as a descending line with ticks', async () => {
      expect(result.metrics.map((m) => m.name)).toEqual(['loss']);
      const points = result.metrics[0]!.points;
      expect(points.length).toBeGreaterThanOrEqual(10);
      expect(points[0]).toEqual({ step: 0, value: 28.8648, run: 0 });
      const canvas = page.locator('#plots canvas');
      expect(await canvas.getAttribute('data-points')).toBe(String(points.length));
      const plot = await canvas.screenshot();
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

    it('shows the jaxpr, the per-device SPMD program and the WGSL kernels in tabs', async () => {
      const tab = async (name: string, panel: string): Promise<string> => {
        await page.click(`#tabs [data-tab=${name}]`);
        expect(await page.locator(`#panel-${name}`).isVisible()).toBe(true);
        expect(await page.locator('#panel-output').isVisible()).toBe(false);
        return (await page.locator(panel).textContent()) ?? '';
      };
      const ir = await tab('ir', '#dump-ir');
      expect(ir).toMatch(/\{ lambda /);
      expect(ir).toContain('dot_general');
      const spmd = await tab('spmd', '#dump-spmd');
      expect(spmd).toMatch(/psum|all_reduce|all-reduce/);
      writeFileSync(join(RESULTS, 'playground-tab-spmd.png'), await page.screenshot());
      const wgsl = await tab('kernels', '#dump-kernels');
      expect(wgsl).toContain('@compute');
      await page.click('#tabs [data-tab=output]');
      expect(await page.locator('#output').isVisible()).toBe(true);
    });
  });

  it('runs in a worker: the page paints frames during a long CPU run, and Stop ends it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await open(page, server.url);
      await setSource(page, LONG_RUN);
      await page.selectOption('#backend', 'cpu');
      await page.click('#run');
      await page.waitForFunction(() => (window as unknown as { __jaxtsPlayground: PageApi }).__jaxtsPlayground.output.includes('step 5:'), null, { timeout: 60_000 });
      // frames painted in 2 s of the run (a page blocked by the run paints none)
      const frames = await page.evaluate(
        () =>
          new Promise<number>((ok) => {
            let n = 0;
            const t0 = performance.now();
            const tick = (t: number): void => {
              n++;
              if (t - t0 < 2000) requestAnimationFrame(tick);
              else ok(n);
            };
            requestAnimationFrame(tick);
          }),
      );
      const running = await api(page);
      expect(running.state).toBe('running');
      expect(frames).toBeGreaterThan(20);
      // the editor takes typing meanwhile
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('# typed during the run');
      expect((await api(page)).source).toContain('# typed during the run');
      expect(await page.locator('#stop').isEnabled()).toBe(true);
      await page.click('#stop');
      const stopped = await api(page);
      expect(stopped.state).toBe('stopped');
      expect(stopped.status).toMatch(/^CPU backend · stopped after \d/);
      await page.waitForTimeout(1000);
      expect((await api(page)).output).toBe(stopped.output);
      expect(await page.locator('#stop').isDisabled()).toBe(true);
      expect(stopped.metrics[0]!.name).toBe('loss');
      // a new run starts a new worker
      await setSource(page, 'import jax.numpy as jnp\nprint(jnp.arange(3) * 2)\n');
      const again = await runAndWait(page);
      expect(again.state).toBe('done');
      expect(again.output).toBe('[0 2 4]\n');
      console.log(`playground: ${frames} frames painted in 2 s during a CPU run in the worker`);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('offers the examples in English, each a fixture with its real-JAX golden', async () => {
    const page = await browser.newPage();
    try {
      await open(page, server.url);
      const options = await page.locator('#example option:not([hidden])').evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));
      const ids = options.map(([id]) => id);
      for (const id of ['data-parallel', 'pmap', 'gspmd', 'grad', 'random', 'sharded-train', 'classifier']) expect(ids).toContain(id);
      // every fixtures/lessons/*.py is an example too (the sharded GPT lesson, when it is there)
      const lessons = existsSync(join(ROOT, 'fixtures/lessons')) ? readdirSync(join(ROOT, 'fixtures/lessons')).filter((f) => f.endsWith('.py')) : [];
      expect(ids.filter((id) => id!.startsWith('lesson-')).length).toBe(lessons.length);
      for (const [id, title] of options) if (!id!.startsWith('lesson-')) expect(title).toMatch(/^[\x20-\x7e×·–—…]+$/);
    } finally {
      await page.close();
    }
  });

  it('keeps edits across a reload (localStorage) and in a shareable URL', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await open(page, server.url);
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('\nprint("kept")');
      await page.waitForFunction(() => location.hash.startsWith('#code='), null, { timeout: 5000 });
      const source = (await api(page)).source;
      expect(source.endsWith('print("kept")')).toBe(true);
      const shared = page.url();
      await page.reload();
      await page.waitForFunction(() => document.body.dataset['ready'] === 'true');
      expect((await api(page)).source).toBe(source);
      // the link opens the same program in a browser that never saw it
      const other = await browser.newPage();
      try {
        await open(other, shared);
        expect((await api(other)).source).toBe(source);
        expect(await other.locator('#example').inputValue()).toBe('own');
        // and without the link the new browser starts with the first example
        await open(other, server.url);
        expect((await api(other)).source).toBe(readFileSync(join(ROOT, 'fixtures/seed001/01_mesh_linear_regression.py'), 'utf8'));
      } finally {
        await other.close();
      }
      // picking an example replaces the program (undoably) and is kept too
      const before = page.url();
      await page.selectOption('#example', 'grad');
      await page.waitForFunction((u) => location.href !== u, before);
      await page.reload();
      await page.waitForFunction(() => document.body.dataset['ready'] === 'true');
      expect((await api(page)).source).toBe(readFileSync(join(ROOT, 'fixtures/constructs/grad_basics.py'), 'utf8'));
      expect(await page.locator('#example').inputValue()).toBe('grad');
    } finally {
      await context.close();
    }
  });

  it('marks a compile error at its line in the editor; editing clears it, undo brings the text back', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await open(page, server.url);
      await setSource(page, 'import jax.numpy as jnp\nx = jnp.ones((3,))\ny = x + undefined_name\nprint(y)\n');
      const r = await runAndWait(page, 15_000);
      expect(r.state).toBe('error');
      expect(r.status).toBe('compile error at line 3');
      const box = page.locator('.cm-error-box');
      expect(await box.isVisible()).toBe(true);
      expect(await box.getAttribute('data-line')).toBe('3');
      expect(await box.textContent()).toContain("3:9: error: NameError: name 'undefined_name' is not defined");
      expect(await page.locator('.cm-error-gutter').textContent()).toBe('3');
      expect(await page.locator('.cm-error-span').textContent()).toBe('undefined_name');
      expect(await page.locator('#output .err').textContent()).toContain("playground.py:3:9: error: NameError: name 'undefined_name' is not defined");
      // the box sits just below line 3
      const line3 = (await page.locator('.cm-error-line').boundingBox())!;
      expect(await page.locator('.cm-error-line').textContent()).toBe('y = x + undefined_name');
      const boxTop = (await box.boundingBox())!.y;
      expect(boxTop).toBeGreaterThanOrEqual(line3.y + line3.height - 1);
      expect(boxTop).toBeLessThanOrEqual(line3.y + line3.height + 8);
      writeFileSync(join(RESULTS, 'playground-compile-error.png'), await page.screenshot());
      // editing clears it; Tab indents by four spaces; undo takes the edits back
      await page.locator('.cm-error-line').click();
      await page.keyboard.press('End');
      await page.keyboard.type('  # x');
      expect(await box.count()).toBe(0);
      await page.keyboard.press('Home');
      await page.keyboard.press('Tab');
      expect((await api(page)).source.split('\n')[2]).toBe('    y = x + undefined_name  # x');
      // (the typed characters are one undo step, the indent another)
      for (let i = 0; i < 2; i++) await page.keyboard.press('Control+z');
      expect((await api(page)).source.split('\n')[2]).toBe('y = x + undefined_name');
    } finally {
      await page.close();
    }
  });

  it('marks a run-time error at its line, with what was printed before it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await open(page, server.url);
      await setSource(page, 'import jax.numpy as jnp\nx = jnp.arange(4.0)\nprint(x)\n\nassert float(x.sum()) < 0, "the sum must be negative"\nprint("never")\n');
      await page.selectOption('#backend', 'cpu');
      const r = await runAndWait(page, 15_000);
      expect(r.state).toBe('error');
      expect(r.output).toBe('[0. 1. 2. 3.]\n');
      expect(r.status).toBe('CPU backend · runtime error at line 5');
      const box = page.locator('.cm-error-box');
      expect(await box.getAttribute('data-line')).toBe('5');
      expect(await box.getAttribute('data-phase')).toBe('run');
      expect(await box.textContent()).toBe('line 5: AssertionError: the sum must be negative');
      expect(await page.locator('.cm-error-gutter').textContent()).toBe('5');
      expect(await page.locator('#output .err').textContent()).toBe('playground.py:5: AssertionError: the sum must be negative\n');
      writeFileSync(join(RESULTS, 'playground-runtime-error.png'), await page.screenshot());
    } finally {
      await page.close();
    }
  });

  it('is a real editor: Python highlighting, search', async () => {
    const page = await browser.newPage();
    try {
      await open(page, server.url);
      await setSource(page, 'import jax.numpy as jnp\n\ndef train_step(x):\n    return "step", x\n\nprint(train_step(jnp.ones(2)))\n');
      // keywords and strings are coloured (CodeMirror's highlight style puts them in spans)
      const colours = await page.evaluate(() => {
        const spans = Array.from(document.querySelectorAll('.cm-line span'));
        const of = (t: string): string => getComputedStyle(spans.find((s) => s.textContent === t)!).color;
        return { kw: of('import'), def: of('def'), text: getComputedStyle(document.querySelector('.cm-line')!).color };
      });
      expect(colours.kw).not.toBe(colours.text);
      expect(colours.def).toBe(colours.kw);
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+f');
      const field = page.locator('.cm-search input[name=search]');
      expect(await field.isVisible()).toBe(true);
      await field.fill('train_step');
      await page.keyboard.press('Enter');
      expect(await page.locator('.cm-selectionMatch, .cm-searchMatch').count()).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  it('fits a 390 px wide phone screen', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      await open(page, server.url);
      await page.selectOption('#example', 'classifier');
      await page.tap('#run');
      await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset['state'] ?? ''), null, { timeout: 60_000 });
      const r = await api(page);
      expect(r.state, r.output).toBe('done');
      expect(r.metrics.map((m) => m.name)).toEqual(['loss', 'acc']);
      // nothing wider than the screen; every control on it and tappable
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      for (const sel of ['#example', '#backend', '#run', '#stop', '#share', '#tabs [data-tab=kernels]', '#editor', '#output']) {
        const b = (await page.locator(sel).boundingBox())!;
        expect(b.x, sel).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width, sel).toBeLessThanOrEqual(390);
        expect(b.height, sel).toBeGreaterThanOrEqual(24);
      }
      // the editor above the output, both full width
      const [ed, out] = [(await page.locator('#editor').boundingBox())!, (await page.locator('#output').boundingBox())!];
      expect(out.y).toBeGreaterThan(ed.y + ed.height - 1);
      expect(ed.width).toBeGreaterThan(340);
      // typing works with a touch keyboard's input (CodeMirror's contenteditable)
      await page.locator('.cm-content').tap();
      await page.keyboard.insertText('x = 1\n');
      expect((await api(page)).source).toContain('x = 1\n');
      writeFileSync(join(RESULTS, 'playground-390px.png'), await page.screenshot({ fullPage: true }));
    } finally {
      await page.close();
    }
  }, 90_000);

  it('falls back to the CPU backend without an adapter; a runtime error shows in red', async () => {
    // a Chromium without WebGPU's flags: its worker gets no adapter (an init script would not reach the worker)
    const plain = await chromium.launch({ executablePath: CHROMIUM });
    const page = await plain.newPage();
    try {
      await open(page, server.url);
      await page.selectOption('#backend', 'webgpu');
      const failed = await runAndWait(page, 15_000);
      expect(failed.state).toBe('error');
      const err = page.locator('#output .err');
      expect(await err.textContent()).toContain('no WebGPU adapter is available');
      expect(await err.evaluate((e) => getComputedStyle(e).color)).toBe('rgb(255, 138, 128)');
      await page.selectOption('#backend', 'auto');
      const r = await runAndWait(page);
      expect(r.state).toBe('done');
      expect(r.status).toMatch(/^CPU backend \(no WebGPU adapter\) · compile \d+ ms · run \d+(\.\d)? m?s$/);
      const cmp = compareOutputs(GOLDEN, r.output);
      expect(cmp.ok, cmp.message).toBe(true);
    } finally {
      await plain.close();
    }
  });

  it('runs the default program when opened as a file', async () => {
    const page = await browser.newPage();
    try {
      await open(page, pathToFileURL(join(DIST, 'index.html')).href);
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
