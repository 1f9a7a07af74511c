// Builds dist/: the CLI (an ES module, and the script bin/jaxts.js builds a V8
// startup snapshot from), the programmatic API, the esbuild plugin, the runtime
// (browser-safe) and its Node entry, the playground page (esbuild), and their
// type declarations (tsc).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { delimiter } from 'node:path';
import * as esbuild from 'esbuild';

/**
 * The runtime exists once in dist/ (runtime.js, and node.js importing it):
 * the CLI and jaxts/node import those files rather than copying them, so a
 * program, the CLI and an application share one Runtime and Array class.
 */
const runtimeAsDist = {
  name: 'runtime-as-dist',
  setup(build) {
    build.onResolve({ filter: /^\.\/index\.js$/ }, (a) => (a.importer.endsWith('runtime/node.ts') ? { path: './runtime.js', external: true } : undefined));
    build.onResolve({ filter: /^\.\.\/runtime\/node\.js$/ }, () => ({ path: './node.js', external: true }));
  },
};

const external = ['esbuild', 'webgpu'];
// NODE_PATH's folders are searched too (esbuild's nodePaths), as Node does
const nodePaths = process.env.NODE_PATH ? process.env.NODE_PATH.split(delimiter) : [];
const common = { nodePaths, bundle: true, format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };
await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/cli_main.ts'], outfile: 'dist/cli.js', external, plugins: [runtimeAsDist] }),
  // the same command as one CommonJS script for `node --build-snapshot` (it imports the runtime at run time, by URL)
  // (the playground's import.meta.url goes unused there: the CLI passes the page's folder)
  esbuild.build({ ...common, format: 'cjs', sourcemap: false, entryPoints: ['src/cli_snapshot.ts'], outfile: 'dist/snapshot/cli.cjs', external, logOverride: { 'empty-import-meta': 'silent' } }),
  esbuild.build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', external }),
  esbuild.build({ ...common, entryPoints: ['src/esbuild.ts'], outfile: 'dist/esbuild.js', external }),
  esbuild.build({ ...common, entryPoints: ['runtime/index.ts'], outfile: 'dist/runtime.js', platform: 'neutral' }),
  // jaxts/node imports jaxts/runtime (not a copy of it), so arrays and runtimes are the same classes
  esbuild.build({ ...common, entryPoints: ['runtime/node.ts'], outfile: 'dist/node.js', external, plugins: [runtimeAsDist] }),
  // the playground page: the compiler and the runtime bundled as the worker's script, which the page's
  // classic script (the editor and the UI) carries as text; plus its HTML and CSS
  buildPlayground(),
]);

/**
 * The playground's two bundles: playground/worker.ts (compiler + runtime, an
 * ES module run in a Web Worker) first, then playground/main.ts, which gets
 * that bundle's text as the module `playground-worker` and every
 * fixtures/lessons/*.py as `playground-lessons`.
 */
async function buildPlayground() {
  const browser = { bundle: true, platform: 'browser', target: 'es2022', minify: true, loader: { '.py': 'text' }, logLevel: 'warning' };
  const worker = await esbuild.build({ ...browser, entryPoints: ['playground/worker.ts'], format: 'iife', write: false, outdir: 'dist/playground' });
  const workerSource = worker.outputFiles[0].text;
  const lessonsDir = 'fixtures/lessons';
  const lessons = existsSync(lessonsDir)
    ? readdirSync(lessonsDir)
        .filter((f) => f.endsWith('.py'))
        .sort()
        .map((f) => {
          const source = readFileSync(`${lessonsDir}/${f}`, 'utf8');
          const title = /^#\s*(?:Source:\s*)?(.+)$/m.exec(source)?.[1]?.trim() ?? f;
          return { name: f.replace(/\.py$/, ''), title: title.length > 60 ? `${title.slice(0, 57)}…` : title, source };
        })
    : [];
  const virtual = {
    name: 'playground-modules',
    setup(build) {
      build.onResolve({ filter: /^playground-(worker|lessons)$/ }, (a) => ({ path: a.path, namespace: 'playground' }));
      build.onLoad({ filter: /.*/, namespace: 'playground' }, (a) =>
        a.path === 'playground-worker' ? { contents: workerSource, loader: 'text' } : { contents: JSON.stringify(lessons), loader: 'json' },
      );
    },
  };
  await esbuild.build({ ...browser, entryPoints: ['playground/main.ts'], outfile: 'dist/playground/playground.js', format: 'iife', sourcemap: true, plugins: [virtual] });
  for (const f of ['index.html', 'playground.css']) copyFileSync(`playground/${f}`, `dist/playground/${f}`);
}

// No startup snapshot is built here: a blob loads only into the Node that
// made it, so bin/jaxts.js builds one from dist/snapshot/cli.cjs on first use,
// into a cache folder. (Blobs an older build left in dist/ go.)
for (const f of readdirSync('dist/snapshot')) if (f.endsWith('.blob')) rmSync(`dist/snapshot/${f}`);

// Declarations for jaxts, jaxts/runtime, jaxts/node and jaxts/esbuild (dist/types), when a source is newer than them.
const stamp = 'dist/types/runtime/index.d.ts';
const newest = (dir) => readdirSync(dir, { recursive: true }).reduce((t, f) => Math.max(t, statSync(`${dir}/${f}`).mtimeMs), 0);
if (!existsSync(stamp) || Math.max(newest('src'), newest('runtime')) > statSync(stamp).mtimeMs) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.types.json'], { stdio: 'inherit' });
  utimesSync(stamp, new Date(), new Date());
}
