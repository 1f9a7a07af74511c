// Builds dist/: the CLI, the programmatic API, the esbuild plugin, the
// runtime (browser-safe) and its Node entry, the playground page (esbuild),
// and their type declarations (tsc).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
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
const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };
await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', external, plugins: [runtimeAsDist] }),
  esbuild.build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', external }),
  esbuild.build({ ...common, entryPoints: ['src/esbuild.ts'], outfile: 'dist/esbuild.js', external }),
  esbuild.build({ ...common, entryPoints: ['runtime/index.ts'], outfile: 'dist/runtime.js', platform: 'neutral' }),
  // jaxts/node imports jaxts/runtime (not a copy of it), so arrays and runtimes are the same classes
  esbuild.build({ ...common, entryPoints: ['runtime/node.ts'], outfile: 'dist/node.js', external, plugins: [runtimeAsDist] }),
  // the playground page: the compiler and the runtime bundled for the browser as one classic script, plus its HTML and CSS
  esbuild
    .build({ entryPoints: ['playground/main.ts'], outfile: 'dist/playground/playground.js', bundle: true, format: 'iife', platform: 'browser', target: 'es2022', minify: true, sourcemap: true, loader: { '.py': 'text' }, logLevel: 'warning' })
    .then(() => ['index.html', 'playground.css'].forEach((f) => copyFileSync(`playground/${f}`, `dist/playground/${f}`))),
]);

// Declarations for jaxts, jaxts/runtime, jaxts/node and jaxts/esbuild (dist/types), when a source is newer than them.
const stamp = 'dist/types/runtime/index.d.ts';
const newest = (dir) => readdirSync(dir, { recursive: true }).reduce((t, f) => Math.max(t, statSync(`${dir}/${f}`).mtimeMs), 0);
if (!existsSync(stamp) || Math.max(newest('src'), newest('runtime')) > statSync(stamp).mtimeMs) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.types.json'], { stdio: 'inherit' });
  utimesSync(stamp, new Date(), new Date());
}
