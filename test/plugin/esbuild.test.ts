// The esbuild plugin (dist/esbuild.js, as applications import it): an app that
// imports a .py is bundled and run; its exported functions reproduce the
// script's own output (the real-JAX golden); compile errors are esbuild
// messages located in the .py; edits are picked up on rebuild and in watch
// mode; the .d.py.ts types an app; the bundle's source map reaches the .py.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { compareOutputs } from '../golden/compare.js';
import { ROOT } from '../helpers/fixtures.js';

type PluginFactory = (opts?: { types?: boolean; devices?: number }) => esbuild.Plugin;
const jaxts = async (): Promise<PluginFactory> => ((await import(pathToFileURL(join(ROOT, 'dist/esbuild.js')).href)) as { default: PluginFactory }).default;

const GOLDEN = readFileSync(join(ROOT, 'fixtures/app/model.out'), 'utf8');

/** The app: runs the script, then repeats its training through the exported functions. */
const APP = `
import { main, init_params, train_step, predict } from './model.py';
import { array } from 'jaxts/runtime';

await main();
let params = await init_params(array(new Uint32Array([0, 0])));
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
`;

function appDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-app-'));
  copyFileSync(join(ROOT, 'fixtures/app/model.py'), join(dir, 'model.py'));
  writeFileSync(join(dir, 'app.ts'), APP);
  return dir;
}

const runNode = (file: string): string => execFileSync(process.execPath, [file], { encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '1' } });

describe('esbuild plugin', () => {
  it('bundles an app importing model.py; main() prints the golden and the exported functions repeat it', async () => {
    const dir = appDir();
    const outfile = join(dir, 'out.mjs');
    await esbuild.build({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'node', outfile, plugins: [(await jaxts())()], logLevel: 'silent' });
    const out = runNode(outfile);
    const half = out.slice(0, out.length / 2);
    const r = compareOutputs(GOLDEN, half);
    expect(r.ok, r.message).toBe(true);
    expect(out).toBe(half + half);
  });

  it('reports a compile error as an esbuild message at the .py line and 0-based column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-app-'));
    writeFileSync(join(dir, 'bad.py'), 'import jax.numpy as jnp\nx = jnp.ones(3)\ny = x + undefined_name\nprint(y)\n');
    writeFileSync(join(dir, 'app.ts'), "import { main } from './bad.py';\nawait main();\n");
    const r = await esbuild
      .build({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', write: false, plugins: [(await jaxts())()], logLevel: 'silent' })
      .then(() => null, (e: esbuild.BuildFailure) => e);
    expect(r?.errors).toHaveLength(1);
    const m = r!.errors[0]!;
    expect(m.text).toBe("NameError: name 'undefined_name' is not defined");
    expect(m.location).toMatchObject({ line: 3, column: 8, length: 14, lineText: 'y = x + undefined_name' });
    expect(m.location!.file).toMatch(/bad\.py$/);
  });

  it('picks up an edited .py on rebuild and in watch mode (the .py is a watch file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-app-'));
    const py = join(dir, 'hello.py');
    writeFileSync(py, 'print("one")\n');
    writeFileSync(join(dir, 'app.ts'), "import { main } from './hello.py';\nawait main();\n");
    const outfile = join(dir, 'out.mjs');
    let ended: (() => void) | null = null;
    const onEnd: esbuild.Plugin = { name: 'on-end', setup: (b) => b.onEnd(() => ended?.()) };
    const ctx = await esbuild.context({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'node', outfile, plugins: [(await jaxts())(), onEnd], logLevel: 'silent' });
    try {
      await ctx.rebuild();
      expect(runNode(outfile)).toBe('one\n');
      writeFileSync(py, 'print("two")\n');
      await ctx.rebuild();
      expect(runNode(outfile)).toBe('two\n');
      const rebuilt = new Promise<void>((ok) => (ended = ok));
      await ctx.watch();
      writeFileSync(py, 'print("three")\n');
      await rebuilt;
      expect(runNode(outfile)).toBe('three\n');
    } finally {
      await ctx.dispose();
    }
  });

  it('writes model.d.py.ts: the app type-checks, and a wrong call does not', async () => {
    const dir = appDir();
    await esbuild.build({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'node', write: false, plugins: [(await jaxts())({ types: true })], logLevel: 'silent' });
    const dts = readFileSync(join(dir, 'model.d.py.ts'), 'utf8');
    expect(dts).toContain('export declare function predict(params: { b: jx.Array; w: jx.Array }, x: jx.Array): Promise<jx.Array>;');
    expect(dts).toContain('/** predict(params: {b: f32[2], w: f32[3,2]}, x: f32[4,3]) -> f32[4,2] (model.py:13) */');
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, allowArbitraryExtensions: true, skipLibCheck: true,
        lib: ['ES2022', 'DOM'], types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')],
        paths: { 'jaxts/runtime': [join(ROOT, 'dist/types/runtime/index.d.ts')] },
      },
      files: ['app.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = (): string => {
      try {
        return execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
      } catch (e) {
        return (e as { stdout: string }).stdout;
      }
    };
    expect(tsc()).toBe('');
    writeFileSync(join(dir, 'app.ts'), APP.replace('await predict(params, x)', 'await predict(x)'));
    expect(tsc()).toMatch(/app\.ts\(\d+,\d+\): error TS2554: Expected 2 arguments, but got 1\./);
  });

  it("maps the bundle's generated code back to the .py lines", async () => {
    const dir = appDir();
    const outfile = join(dir, 'out.mjs');
    await esbuild.build({ entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'node', outfile, sourcemap: 'external', plugins: [(await jaxts())()], logLevel: 'silent' });
    const map = new SourceMap(JSON.parse(readFileSync(`${outfile}.map`, 'utf8')));
    const lines = readFileSync(outfile, 'utf8').split('\n');
    const origin = (needle: RegExp): { file: string; line: number } => {
      const i = lines.findIndex((l) => needle.test(l));
      expect(i, String(needle)).toBeGreaterThanOrEqual(0);
      const e = map.findEntry(i, lines[i]!.search(/\S/)) as { originalSource: string; originalLine: number };
      return { file: e.originalSource, line: e.originalLine + 1 };
    };
    // the print in the loop (model.py:33) and the last print (model.py:34)
    expect(origin(/": loss = "/)).toMatchObject({ file: expect.stringMatching(/model\.py$/), line: 33 });
    expect(origin(/rt\.print\(await \w+\(/)).toMatchObject({ file: expect.stringMatching(/model\.py$/), line: 34 });
  });
});
