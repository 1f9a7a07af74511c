// The package as a user gets it: `npm pack`, the tarball installed into a
// fresh application outside the repository (without the optional `webgpu`;
// esbuild and typescript linked from this checkout, so no download), then
// `npx jaxts` on a lesson, an app importing a .py through `jaxts/esbuild`
// run in Node and in headless Chromium (its predict shape-polymorphic, called
// at several batch sizes), and the app (with `jaxts compile`'s
// output) type-checked by `tsc --strict` without skipLibCheck. One install
// serves every case.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs } from '../golden/compare.js';
import { ROOT } from '../helpers/fixtures.js';
import { hasChromium, launch, serve } from '../browser/chromium.js';

const GOLDEN = readFileSync(join(ROOT, 'fixtures/app/model.out'), 'utf8');
const LESSON = 'fixtures/seed004/pmap_square';

/** The app: the script through main(), then its training repeated through the exported functions. */
const APP = (runtime: string) => `
import { main, init_params, train_step, predict } from './model.py';
import { array, type Array } from 'jaxts/runtime';
${runtime}
let params: { w: Array; b: Array } = await init_params(array(new Uint32Array([0, 0])));
const x = array(Float32Array.from({ length: 12 }, (_, i) => i / 8), [4, 3]);
const y = array([[0.5, -0.5], [0.25, 0.0], [0.0, 0.25], [-0.5, 0.5]]);
for (let step = 0; step < 3; step++) {
  const [next, loss] = await train_step(params, x, y);
  params = next;
  console.log(\`step \${step}: loss = \${(await loss.data())[0]!.toFixed(6)}\`);
}
const out = await predict(params, x);
await out.data();
console.log(out.toString());
// predict is shape-polymorphic (the plugin's shapes: x is 'b, 3'): any batch size, row for row batch 4's
const rows = [...(await out.data())];
for (const b of [1, 6]) {
  const xb = array(Float32Array.from({ length: 3 * b }, (_, i) => (i % 12) / 8), [b, 3]);
  const yb = [...(await (await predict(params, xb)).data())];
  if (yb.length !== 2 * b || yb.some((v, i) => v !== rows[i % 8])) throw new Error(\`predict at batch \${b} differs from batch 4\`);
}
// main() resolved to the script's top-level values: its trained params predict the same
const again = await predict(script.params, x);
await again.data();
if (again.toString() !== out.toString() || script.step !== 2) throw new Error('main() did not resolve to the trained params');
`;
/** In Node: jaxts/node's runtime (WebGPU through the optional `webgpu` package, else the CPU). */
const NODE_APP = APP(`import { createNodeRuntime } from 'jaxts/node';
const rt = await createNodeRuntime({ backend: 'auto', devices: 4, write: (t) => process.stdout.write(t) });
const script = await main(rt);
await rt.sync();
declare const process: { stdout: { write(t: string): boolean } };`);
/** In a page: navigator.gpu (Chromium's WebGPU). */
const PAGE_APP = `${APP(`const script = await main();`)}\n(window as unknown as { done: boolean }).done = true;\n`;

const BUILD = `
import * as esbuild from 'esbuild';
import jaxts from 'jaxts/esbuild';
const common = { bundle: true, format: 'esm', plugins: [jaxts({ types: true, shapes: { predict: { x: 'b, 3' } } })], logLevel: 'warning' };
await esbuild.build({ ...common, entryPoints: ['node_app.ts'], platform: 'node', outfile: 'out/node_app.mjs', external: ['webgpu'] });
await esbuild.build({ ...common, entryPoints: ['page_app.ts'], platform: 'browser', outfile: 'out/page_app.js' });
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true,
    allowArbitraryExtensions: true, skipLibCheck: false, lib: ['ES2022', 'DOM'], types: [],
  },
  include: ['*.ts', 'gen/*.ts'],
};

const suite = existsSync(join(ROOT, 'dist/cli.js')) ? describe : describe.skip;

suite('the npm package, installed into a fresh app', () => {
  let app = '';
  let tarball = { size: 0, unpackedSize: 0, files: 0 };
  const env = { ...process.env, JAXTS_CACHE_DIR: '', NODE_NO_WARNINGS: '1', npm_config_update_notifier: 'false' };
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: app, encoding: 'utf8', env });

  beforeAll(() => {
    const work = mkdtempSync(join(tmpdir(), 'jaxts-pkg-'));
    app = join(work, 'app');
    mkdirSync(app);
    env.JAXTS_CACHE_DIR = join(work, 'cache');
    // dist/ is built (npm test builds it first): pack it as it is, without the prepare script's rebuild
    const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] })) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    tarball = { size: packed[0]!.size, unpackedSize: packed[0]!.unpackedSize, files: packed[0]!.entryCount };
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // offline: jaxts's one dependency (@webgpu/types) and the app's tools come from this checkout's node_modules
    const local = ['esbuild', 'typescript', '@webgpu/types'].map((p) => join(ROOT, 'node_modules', p));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed[0]!.filename), ...local], { cwd: app, env, stdio: 'pipe' });
    copyFileSync(join(ROOT, `${LESSON}.py`), join(app, 'lesson.py'));
    copyFileSync(join(ROOT, 'fixtures/app/model.py'), join(app, 'model.py'));
    writeFileSync(join(app, 'node_app.ts'), NODE_APP);
    writeFileSync(join(app, 'page_app.ts'), PAGE_APP);
    writeFileSync(join(app, 'build.mjs'), BUILD);
    // the compiler's and the plugin's typed API (type-checked only)
    writeFileSync(join(app, 'tools.ts'), "import { compile } from 'jaxts';\nimport jaxts from 'jaxts/esbuild';\nexport const host: string = compile('print(1)\\n', { file: 'one.py' }).host;\nexport const plugin: string = jaxts({ types: true, devices: 2 }).name;\n");
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="out/page_app.js"></script>');
  }, 120_000);
  afterAll(() => rmSync(join(app, '..'), { recursive: true, force: true }));

  it('ships dist/ and the launcher, not the tests, fixtures, scripts or a startup snapshot; installs in under 15 MB', () => {
    const pkg = join(app, 'node_modules/jaxts');
    expect(readdirSync(pkg).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json']);
    expect(existsSync(join(pkg, 'dist/cli.js')) && existsSync(join(pkg, 'dist/esbuild.js')) && existsSync(join(pkg, 'dist/snapshot/cli.cjs'))).toBe(true);
    expect(readdirSync(join(pkg, 'dist/snapshot'))).toEqual(['cli.cjs']);
    // the playground `npx jaxts playground` serves (its worker's script is inside playground.js), without source maps
    expect(readdirSync(join(pkg, 'dist/playground')).sort()).toEqual(['index.html', 'playground.css', 'playground.js']);
    // what npm installed for jaxts itself (esbuild and typescript are the app's own, linked)
    const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((s, f) => s + du(join(p, f)), 0) : statSync(p).size);
    const footprint = du(pkg) + du(join(app, 'node_modules/@webgpu/types'));
    expect(footprint).toBeLessThan(15e6);
    console.log(`package: tarball ${(tarball.size / 1e6).toFixed(2)} MB (${tarball.files} files, ${(tarball.unpackedSize / 1e6).toFixed(2)} MB unpacked); installed without webgpu: ${(footprint / 1e6).toFixed(2)} MB`);
  });

  it('npx jaxts runs a lesson (CPU backend, a note on how to get WebGPU), --version, exit 2 on a usage error', () => {
    const r = run('npx', ['--no-install', 'jaxts', 'run', 'lesson.py']);
    expect(r.stdout).toBe(readFileSync(join(ROOT, `${LESSON}.out`), 'utf8'));
    expect(r.stderr).toMatch(/npm install webgpu/);
    expect(r.status).toBe(0);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(run('npx', ['--no-install', 'jaxts', '--version']).stdout).toBe(`${version}\n`);
    expect(run('npx', ['--no-install', 'jaxts', 'compil', 'lesson.py']).status).toBe(2);
  }, 60_000);

  it('builds the startup snapshot for this Node on first use (into JAXTS_CACHE_DIR) and starts from it', async () => {
    run('npx', ['--no-install', 'jaxts', '--version']); // a first use: the build starts in the background
    const blobs = () => (existsSync(env.JAXTS_CACHE_DIR) ? readdirSync(env.JAXTS_CACHE_DIR).filter((f) => f.endsWith('.blob')) : []);
    for (let i = 0; i < 600 && blobs().length === 0; i++) await new Promise((ok) => setTimeout(ok, 100));
    expect(blobs()).toHaveLength(1);
    const r = spawnSync('npx', ['--no-install', 'jaxts', 'run', 'lesson.py', '--backend', 'cpu'], { cwd: app, encoding: 'utf8', env: { ...env, JAXTS_TRACE_LAUNCHER: '1' } });
    expect(r.stderr).toMatch(/^jaxts launcher: node --snapshot-blob /m);
    expect(r.stdout).toBe(readFileSync(join(ROOT, `${LESSON}.out`), 'utf8'));
  }, 90_000);

  it('builds the app with jaxts/esbuild; it prints the golden in Node', () => {
    const b = run(process.execPath, ['build.mjs']);
    expect(b.stderr).toBe('');
    expect(b.status).toBe(0);
    const r = run(process.execPath, ['out/node_app.mjs']);
    expect(r.status, r.stderr).toBe(0);
    const half = r.stdout.slice(0, r.stdout.length / 2);
    const c = compareOutputs(GOLDEN, half);
    expect(c.ok, c.message).toBe(true);
    expect(r.stdout).toBe(half + half);
  });

  it("names the real cause when a bundle includes Dawn's loader without its .node file", () => {
    // as an app that has `webgpu` installed but bundles jaxts/node without marking it external
    writeFileSync(join(app, 'gpu_app.mjs'), "import { createNodeRuntime } from 'jaxts/node';\nawait createNodeRuntime({ backend: 'webgpu', devices: 1 });\n");
    const script = `import * as esbuild from 'esbuild';\nawait esbuild.build({ entryPoints: ['gpu_app.mjs'], bundle: true, format: 'esm', platform: 'node', outfile: 'out/gpu_app.mjs', alias: { webgpu: ${JSON.stringify(join(ROOT, 'node_modules/webgpu/index.js'))} }, logLevel: 'error' });\n`;
    writeFileSync(join(app, 'build_gpu.mjs'), script);
    expect(run(process.execPath, ['build_gpu.mjs']).status).toBe(0);
    const r = run(process.execPath, ['out/gpu_app.mjs']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no WebGPU adapter is available \(the `webgpu` package \(Dawn\) did not load: .*dawn\.node.*must leave `webgpu` external/);
  });

  it.skipIf(!hasChromium && !process.env['CI'])('the same app prints the golden in headless Chromium (WebGPU)', async () => {
    if (!existsSync(join(app, 'out/page_app.js'))) run(process.execPath, ['build.mjs']);
    const server = await serve(app);
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const lines: string[] = [];
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'log' && lines.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.url}index.html`);
      await page.waitForFunction(() => 'done' in window || document.title === 'error', null, { timeout: 60_000 });
      expect(errors).toEqual([]);
      const printed = `${lines.join('\n')}\n`;
      const half = printed.slice(0, printed.length / 2);
      const c = compareOutputs(GOLDEN, half);
      expect(c.ok, c.message).toBe(true);
    } finally {
      await browser.close();
      await server.close();
    }
  }, 90_000);

  it("each entry's declarations type-check alone (they bring @webgpu/types themselves)", () => {
    for (const entry of ['jaxts', 'jaxts/runtime', 'jaxts/node', 'jaxts/esbuild']) {
      const name = `entry_${entry.replace(/\W/g, '_')}`;
      writeFileSync(join(app, `${name}.ts`), `import * as m from '${entry}';\nexport const x: object = m;\n`);
      writeFileSync(join(app, `${name}.json`), JSON.stringify({ compilerOptions: TSCONFIG.compilerOptions, files: [`${name}.ts`] }));
      const r = run('npx', ['--no-install', 'tsc', '-p', `${name}.json`]);
      expect(r.stdout, entry).toBe('');
      expect(r.status, entry).toBe(0);
    }
  }, 120_000);

  it('type-checks the app and `jaxts compile` output with tsc --strict, skipLibCheck off', () => {
    if (!existsSync(join(app, 'model.d.py.ts'))) run(process.execPath, ['build.mjs']);
    // the app's model and a few lessons of other kinds (pmap, sharding, a training loop), as `jaxts compile` writes them
    const lessons = ['fixtures/seed002/07_all_cells.py', 'fixtures/tutorials/Neural_Network_and_Data_Loading.py', 'fixtures/tutorials/06_parallelism.py'];
    for (const file of ['model.py', ...lessons.map((f) => join(ROOT, f))]) {
      const c = run('npx', ['--no-install', 'jaxts', 'compile', file, '-o', 'gen', ...(file === 'model.py' ? ['--shapes', 'predict.x=b, 3'] : [])]);
      expect(c.status, c.stderr).toBe(0);
    }
    const r = run('npx', ['--no-install', 'tsc', '-p', '.']);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
