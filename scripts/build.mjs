// Builds dist/: the CLI, the programmatic API and the runtime, bundled by esbuild.
import * as esbuild from 'esbuild';

const external = ['chevrotain', 'yargs', 'yargs/helpers', 'esbuild', 'webgpu'];
const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };
await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', external }),
  esbuild.build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', external }),
  esbuild.build({ ...common, entryPoints: ['runtime/index.ts'], outfile: 'dist/runtime.js', platform: 'neutral' }),
]);
