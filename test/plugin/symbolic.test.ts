// Shape-polymorphic exports (issue 20): the plugin's `shapes` option names
// symbolic dimensions as jax.export does; the app calls the exported functions
// at many batch sizes on both backends, and each row equals the fixed-shape
// program's to float32 rounding (the same .py compiled without shapes); main() prints the real-JAX golden.
// Wrong shapes are errors naming the dimension; the .d.py.ts says the shapes;
// `jaxts compile --shapes` output type-checks under `tsc --strict`; what
// cannot be polymorphic (a size not affine in the symbols) is a compile error.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { compareOutputs } from '../golden/compare.js';
import { ROOT } from '../helpers/fixtures.js';

type PluginFactory = (opts?: { types?: boolean; shapes?: Record<string, Record<string, string | Record<string, string>>> }) => esbuild.Plugin;
const jaxts = async (): Promise<PluginFactory> => ((await import(pathToFileURL(join(ROOT, 'dist/esbuild.js')).href)) as { default: PluginFactory }).default;
type Compile = (source: string, opts: { file: string; shapes?: Record<string, Record<string, string>> }) => { host: string; kernels: string; dts: string };
const compiler = async (): Promise<Compile> => ((await import(pathToFileURL(join(ROOT, 'dist/index.js')).href)) as { compile: Compile }).compile;

const GOLDEN = readFileSync(join(ROOT, 'fixtures/app/classifier.out'), 'utf8');
const BATCHES = [1, 2, 3, 8, 13, 64, 200];

/**
 * The app: main() (printing the golden); then the fixed-shape module's predict on a batch of 8 (the
 * reference), and the polymorphic module's predict and classify at each batch size, rows cycled.
 */
const APP = `
import { main, predict, classify } from './classifier.py';
import * as fixed from './classifier_fixed.py';
import { array } from 'jaxts/runtime';
import { createNodeRuntime } from 'jaxts/node';
const rt = await createNodeRuntime({ backend: process.argv[2] as 'cpu' | 'webgpu', devices: 4 });
await main(rt);
await rt.sync();
const params = await fixed.init_params(array(new Uint32Array([0, 0])), [16, 32, 10]);
const xs = Float32Array.from({ length: 8 * 16 }, (_, i) => Math.fround(Math.sin(i / 5)));
const reference = await fixed.predict(params, array(xs, [8, 16]));
const want = Array.from(await reference.data());
const report: { b: number; shape: readonly number[]; rowsMatch: boolean; classes: number[]; classShape: readonly number[]; want: number[] }[] = [];
for (const b of ${JSON.stringify(BATCHES)}) {
  const x = array(Float32Array.from({ length: b * 16 }, (_, i) => xs[i % (8 * 16)]!), [b, 16]);
  const out = await predict(params, x);
  const got = Array.from(await out.data());
  // to float32 rounding: XLA's summation order of a product depends on its rows (one row sums in order, eight in
  // four lanes: src/passes/dot_order.ts), so a batch of 1 may differ from the batch of 8 in the last bits
  const rowsMatch = got.every((v, i) => Math.abs(v - want[i % (8 * 10)]!) <= 1e-6 * Math.max(1, Math.abs(want[i % (8 * 10)]!)));
  const cls = await classify(params, x);
  const argmax = Array.from({ length: b }, (_, i) => { const row = want.slice((i % 8) * 10, (i % 8) * 10 + 10); return row.indexOf(Math.max(...row)); });
  report.push({ b, shape: out.shape, rowsMatch, classes: Array.from(await cls.data()), classShape: cls.shape, want: argmax });
}
const errors: string[] = [];
for (const bad of [array(new Float32Array(8), [2, 4]), array(new Float32Array(16), [16]), array(new Float32Array(0), [0, 16])]) {
  try {
    await predict(params, bad);
  } catch (e) {
    errors.push(String(e));
  }
}
console.log('REPORT ' + JSON.stringify({ report, errors }));
`;

function appDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-poly-'));
  copyFileSync(join(ROOT, 'fixtures/app/classifier.py'), join(dir, 'classifier.py'));
  copyFileSync(join(ROOT, 'fixtures/app/classifier.py'), join(dir, 'classifier_fixed.py'));
  writeFileSync(join(dir, 'app.ts'), APP);
  // the bundle leaves `webgpu` (Dawn, optional) to Node's resolution: this checkout's
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const SHAPES = { 'classifier.py': { predict: { x: 'b, 16' }, classify: { x: '(b, 16)' } } };

async function build(dir: string): Promise<string> {
  const outfile = join(dir, 'out.mjs');
  await esbuild.build({
    entryPoints: [join(dir, 'app.ts')], bundle: true, format: 'esm', platform: 'node', outfile, external: ['webgpu'], logLevel: 'silent',
    alias: { 'jaxts/node': join(ROOT, 'dist/node.js') },
    plugins: [(await jaxts())({ types: true, shapes: SHAPES })],
  });
  return outfile;
}

interface Report {
  report: { b: number; shape: number[]; rowsMatch: boolean; classes: number[]; classShape: number[]; want: number[] }[];
  errors: string[];
}

describe('shape-polymorphic exports', () => {
  let outfile: Promise<string> | null = null;
  const dir = appDir();
  const built = (): Promise<string> => (outfile ??= build(dir));

  for (const backend of ['cpu', 'webgpu'] as const) {
    it(`predict and classify take any batch size on the ${backend} backend, row for row the fixed-shape program's`, async () => {
      const r = spawnSync(process.execPath, [await built(), backend], { encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '1' } });
      if (backend === 'webgpu' && /no WebGPU adapter/.test(r.stderr) && process.env['CI'] !== 'true') return;
      expect(r.status, r.stderr).toBe(0);
      const [printed, json] = r.stdout.split('REPORT ');
      const cmp = compareOutputs(GOLDEN, printed!);
      expect(cmp.ok, cmp.message).toBe(true);
      const { report, errors } = JSON.parse(json!) as Report;
      expect(report.map((x) => x.b)).toEqual(BATCHES);
      for (const { b, shape, rowsMatch, classes, classShape, want } of report) {
        expect(shape, `b = ${b}`).toEqual([b, 10]);
        expect(rowsMatch, `b = ${b}`).toBe(true);
        expect(classShape).toEqual([b]);
        expect(classes).toEqual(want);
      }
      expect(errors).toEqual([
        "TypeError: predict(): Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size x.shape[1] (= 4) and the specification '16' (= 16). Using the following polymorphic shapes specifications: x.shape = (b, 16). Obtained dimension variables: 'b' = 2 from specification 'b' for dimension x.shape[0] (= 2).",
        'TypeError: predict(): Input shapes do not match the polymorphic shapes specification. Rank mismatch for x: expected 2, got 1 (shape (16,)). Using the following polymorphic shapes specifications: x.shape = (b, 16).',
        "TypeError: predict(): Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: x.shape = (b, 16). Obtained dimension variables: 'b' = 0 from specification 'b' for dimension x.shape[0] (= 0).",
      ]);
    });
  }

  it('the .d.py.ts names the symbolic shapes, and the app type-checks under tsc --strict', async () => {
    await built();
    const dts = readFileSync(join(dir, 'classifier.d.py.ts'), 'utf8');
    expect(dts).toContain('x: f32[b,16]) -> f32[b,10] (classifier.py:17); shape-polymorphic: x: (b, 16) */');
    expect(dts).toContain('x: f32[b,16]) -> i32[b] (classifier.py:25); shape-polymorphic: x: (b, 16) */');
    expect(tsc(dir, ['app.ts'])).toBe('');
  });

  it('`jaxts compile --shapes` writes a module whose sizes read the symbols, and it type-checks under tsc --strict', () => {
    const out = mkdtempSync(join(tmpdir(), 'jaxts-poly-cli-'));
    copyFileSync(join(ROOT, 'fixtures/app/classifier.py'), join(out, 'classifier.py'));
    execFileSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'compile', join(out, 'classifier.py'), '-o', out, '--shapes', 'predict.x=b, 16', '--shapes', 'classify.x=(b, 16)']);
    const host = readFileSync(join(out, 'classifier.ts'), 'utf8');
    expect(host).toContain('const dims = jx.dims("predict", [[x, "x", "(b, 16)"]]);');
    expect(host).toMatch(/await jx\.arg\(rt, x, \[dims\.b, 16\], "float32", "x", "predict"\)/);
    expect(host).toMatch(/rt\.call\(programs\.predict_1\(dims\), /);
    const kernels = readFileSync(join(out, 'classifier.kernels.ts'), 'utf8');
    expect(kernels).toMatch(/export const predict_1 = jx\.symbolic\(\(dims: jx\.Dims\): jx\.ProgramSpec => \(\{/);
    expect(kernels).toMatch(/"size":\(10 \* dims\.b\)/);
    writeFileSync(join(out, 'use.ts'), "import { predict } from './classifier.js';\nexport const f = predict;\n");
    expect(tsc(out, ['use.ts'])).toBe('');
  });

  it('solves several symbols, multiples (`2*b, n`) and a mean over the batch (1/b), checked against the arithmetic on both backends', async () => {
    const compile = await compiler();
    const d = mkdtempSync(join(tmpdir(), 'jaxts-poly-2-'));
    writeFileSync(
      join(d, 'pairs.py'),
      [
        'import jax', 'import jax.numpy as jnp', '',
        '@jax.jit', 'def pair_sums(x, w):', '    return (x.reshape(-1, 2, x.shape[1]).sum(axis=1) @ w) * 2.0', '',
        '@jax.jit', 'def center(x):', '    return x - x.mean(axis=0)', '',
        'print(pair_sums(jnp.ones((4, 3)), jnp.ones((3, 5))))', 'print(center(jnp.ones((4, 3))))', '',
      ].join('\n'),
    );
    const shapes = { pair_sums: { x: '2*b, n', w: 'n, m' }, center: { x: 'b, 3' } };
    const r = compile(readFileSync(join(d, 'pairs.py'), 'utf8'), { file: 'pairs.py', shapes });
    expect(r.dts).toContain('pair_sums(x: f32[2*b,n], w: f32[n,m]) -> f32[b,m]');
    writeFileSync(
      join(d, 'app.ts'),
      `import { main, pair_sums, center } from './pairs.py';
import { array } from 'jaxts/runtime';
import { createNodeRuntime } from 'jaxts/node';
await main(await createNodeRuntime({ backend: process.argv[2] as 'cpu' | 'webgpu', devices: 4 }));
const out: string[] = [];
for (const b of [1, 3, 10, 300]) {
  const y = await center(array(Float32Array.from({ length: 3 * b }, (_, i) => i), [b, 3]));
  out.push(JSON.stringify([y.shape, Array.from(await y.data())]));
}
for (const [b, n, m] of [[1, 1, 1], [3, 2, 4], [5, 7, 2]] as const) {
  const x = array(Float32Array.from({ length: 2 * b * n }, (_, i) => i), [2 * b, n]);
  const w = array(Float32Array.from({ length: n * m }, (_, i) => (i % 3) - 1), [n, m]);
  const y = await pair_sums(x, w);
  out.push(JSON.stringify([y.shape, Array.from(await y.data())]));
}
try { await pair_sums(array(new Float32Array(9), [3, 3]), array(new Float32Array(6), [3, 2])); } catch (e) { out.push(String(e)); }
console.log(out.join('\\n'));
`,
    );
    const outfile = join(d, 'out.mjs');
    await esbuild.build({
      entryPoints: [join(d, 'app.ts')], bundle: true, format: 'esm', platform: 'node', outfile, external: ['webgpu'], logLevel: 'silent',
      alias: { 'jaxts/node': join(ROOT, 'dist/node.js') }, plugins: [(await jaxts())({ shapes })],
    });
    symlinkSync(join(ROOT, 'node_modules'), join(d, 'node_modules'));
    // center(x) of rows i*3 + j: x - mean over rows = 3 * (i - (b - 1) / 2)
    const centered = [1, 3, 10, 300].map((b) => JSON.stringify([[b, 3], Array.from({ length: 3 * b }, (_, k) => 3 * (Math.floor(k / 3) - (b - 1) / 2))]));
    for (const backend of ['cpu', 'webgpu']) {
    const all = execFileSync(process.execPath, [outfile, backend], { encoding: 'utf8' }).trim().split('\n').slice(-8);
    expect(all.slice(0, 4)).toEqual(centered);
    const lines = all.slice(4);
    const expected = [[1, 1, 1], [3, 2, 4], [5, 7, 2]].map(([b, n, m]) => {
      const y: number[] = [];
      for (let i = 0; i < b!; i++) {
        for (let k = 0; k < m!; k++) {
          let s = 0;
          for (let j = 0; j < n!; j++) s += (2 * i * n! + j + (2 * i + 1) * n! + j) * ((j * m! + k) % 3 - 1);
          y.push(2 * s);
        }
      }
      return JSON.stringify([[b, m], y]);
    });
    expect(lines.slice(0, 3)).toEqual(expected);
    expect(lines[3]).toBe(
      "TypeError: pair_sums(): Input shapes do not match the polymorphic shapes specification. Division had remainder 1 when computing the value of 'b'. Using the following polymorphic shapes specifications: x.shape = (2*b, n),w.shape = (n, m).",
    );
    }
  });

  it('rejects what cannot be shape-polymorphic, naming it', async () => {
    const compile = await compiler();
    const src = 'import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef center(x):\n    return jnp.outer(x, x)\n\nprint(center(jnp.ones(4)))\n';
    // a size b*b: JAX takes it, jaxts's sizes are of degree 1 in each symbol
    expect(() => compile(src, { file: 'c.py', shapes: { center: { x: 'b' } } })).toThrow(/^shapes: a size in the compiled kernels is not a polynomial of degree 1 in each symbol \((\d+ at b = \d+; ){3}\d+ at b = 257\): `.*`$/);
    expect(() => compile(src, { file: 'c.py', shapes: { centre: { x: 'b, 3' } } })).toThrow('shapes: the script defines no top-level function centre to export');
    expect(() => compile(src, { file: 'c.py', shapes: { center: { y: 'b, 3' } } })).toThrow('shapes: center has no array argument y (its array arguments: x)');
    expect(() => compile(src, { file: 'c.py', shapes: { center: { x: 'b; 3' } } })).toThrow("shapes: center's x: ValueError: Invalid polymorphic shape specification: 'b; 3'");
  });
});

/** `tsc --strict` over `files` in `dir`, jaxts/runtime mapped to the built types; its output ('' when clean). */
function tsc(dir: string, files: string[]): string {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, allowArbitraryExtensions: true, skipLibCheck: true,
      lib: ['ES2022', 'DOM'], types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')],
      paths: { 'jaxts/runtime': [join(ROOT, 'dist/types/runtime/index.d.ts')], 'jaxts/node': [join(ROOT, 'dist/types/runtime/node.d.ts')] },
    },
    files,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  try {
    return execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    return (e as { stdout: string }).stdout;
  }
}
