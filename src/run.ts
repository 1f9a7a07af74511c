// Running compiled output in-process: import the generated JS modules as they
// are (`jaxts run`: no bundler on the way), or bundle the generated TypeScript
// with esbuild (the runtime import aliased to a given runtime entry, as tests
// do with the runtime's sources), and call main() with a runtime.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inlineSourceMapComment } from './codegen/sourcemap.js';
import type { CompileResult } from './compile.js';
import type { Runtime } from '../runtime/runtime.js';

/** The 1-based line of the Python source a run-time error was raised at, from its stack (source maps enabled), or null. */
export function pythonLine(e: unknown, baseName: string): number | null {
  const stack = e instanceof Error ? (e.stack ?? '') : '';
  const m = new RegExp(`${baseName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.py:(\\d+)`).exec(stack);
  return m ? Number(m[1]) : null;
}

/** The path of file `name` in `dir`, refusing a name that is not a plain file name there (a separator, `..`). */
function inside(dir: string, name: string): string {
  if (name === '' || name === '.' || name === '..' || basename(name) !== name || name.includes('\\')) throw new Error(`internal: output name ${JSON.stringify(name)} is not a file name`);
  return join(dir, name);
}

/**
 * Write every file into `dir` or none: each goes to a temporary name first; existing files are moved
 * aside, and put back when a rename fails, so a failure leaves `dir` as it was. Returns an error
 * message for the user (`dir` is a file, or cannot be written), or null.
 */
export function writeOutputs(dir: string, files: Record<string, string>, rename: (from: string, to: string) => void = renameSync): string | null {
  if (existsSync(dir) && !statSync(dir).isDirectory()) return `-o: '${dir}' is not a directory`;
  const names = Object.keys(files);
  const folder = names.find((name) => existsSync(join(dir, name)) && statSync(join(dir, name)).isDirectory());
  if (folder !== undefined) return `cannot write to '${join(dir, folder)}': it is a directory`;
  const tag = `${process.pid}.${Date.now()}`;
  const temps = names.map((name) => inside(dir, `.${name}.${tag}.tmp`));
  const backups = names.map((name) => inside(dir, `.${name}.${tag}.bak`));
  const targets = names.map((name) => inside(dir, name));
  const cleanup = (): void => [...temps, ...backups].forEach((p) => rmSync(p, { force: true }));
  try {
    mkdirSync(dir, { recursive: true });
    names.forEach((name, i) => writeFileSync(temps[i]!, files[name]!));
  } catch (e) {
    cleanup();
    return `cannot write to '${dir}': ${e instanceof Error ? e.message.replace(/^\w+: /, '') : String(e)}`;
  }
  const moved: number[] = [];
  const placed: number[] = [];
  try {
    targets.forEach((t, i) => {
      if (existsSync(t)) {
        rename(t, backups[i]!);
        moved.push(i);
      }
    });
    targets.forEach((t, i) => {
      rename(temps[i]!, t);
      placed.push(i);
    });
  } catch (e) {
    // roll back: remove what was placed, restore what was there
    placed.forEach((i) => rmSync(targets[i]!, { force: true }));
    moved.forEach((i) => renameSync(backups[i]!, targets[i]!));
    cleanup();
    return `cannot write to '${dir}': ${e instanceof Error ? e.message.replace(/^\w+: /, '') : String(e)}`;
  }
  cleanup();
  return null;
}

/** `jaxts run … | head`: once the reader of stdout is gone, stop quietly (exit 0) instead of dying with EPIPE. */
export function exitQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

export interface LoadedProgram {
  deviceCount: number;
  /** Set when the program runs on the CPU backend only (64-bit values: module.ts). */
  cpuOnly?: string;
  main: (rt: Runtime) => Promise<void>;
}

/**
 * Import a program compiled with `flavor: 'js'` and `runtimeImport` set to a
 * runtime module's URL: the two modules are written to a temporary folder and
 * imported directly. The host's own source map leads stack traces to the .py.
 */
export async function importCompiledJs(r: CompileResult, importModule: (url: string) => Promise<unknown> = (u) => import(u)): Promise<LoadedProgram> {
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    // the base name is a plain file name (compile.ts), checked again: nothing is written outside `dir`
    writeFileSync(inside(dir, `${r.baseName}.js`), `${r.host}\n${inlineSourceMapComment({ ...r.hostMap, sources: [`${r.baseName}.py`] })}\n`);
    writeFileSync(inside(dir, `${r.baseName}.kernels.js`), r.kernels);
    return (await importModule(pathToFileURL(inside(dir, `${r.baseName}.js`)).href)) as LoadedProgram;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The runtime entry bundled once per process (a promise of the bundle's URL): every program
 * loadCompiled imports shares it, so a test process that runs hundreds of programs bundles and
 * instantiates the runtime once instead of once per program (measured: ~250 ms per program saved).
 */
const runtimeBundles = new Map<string, Promise<string>>();
let runtimeBundleDir: string | null = null;

function bundledRuntime(runtimeEntry: string): Promise<string> {
  let url = runtimeBundles.get(runtimeEntry);
  if (!url) {
    url = (async () => {
      const esbuild = await import('esbuild');
      if (!runtimeBundleDir) {
        const dir = mkdtempSync(join(tmpdir(), 'jaxts-runtime-'));
        runtimeBundleDir = dir;
        process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      }
      const out = join(runtimeBundleDir, `runtime-${runtimeBundles.size}.mjs`);
      await esbuild.build({ entryPoints: [runtimeEntry], bundle: true, format: 'esm', platform: 'neutral', outfile: out, sourcemap: 'inline', logLevel: 'silent' });
      return pathToFileURL(out).href;
    })();
    runtimeBundles.set(runtimeEntry, url);
  }
  return url;
}

/** Bundle and import a compiled program. `runtimeEntry` is the path of jaxts/runtime's entry file (bundled once per process, shared). */
export async function loadCompiled(r: CompileResult, runtimeEntry: string): Promise<LoadedProgram> {
  const esbuild = await import('esbuild');
  const runtimeUrl = await bundledRuntime(runtimeEntry);
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-'));
  try {
    // the host's source map, chained by esbuild, lets a run-time error's stack name the .py line
    writeFileSync(join(dir, `${r.baseName}.ts`), `${r.host}\n${inlineSourceMapComment({ ...r.hostMap, sources: [`${r.baseName}.py`] })}\n`);
    writeFileSync(join(dir, `${r.baseName}.kernels.ts`), r.kernels);
    const out = join(dir, `${r.baseName}.bundle.mjs`);
    await esbuild.build({
      entryPoints: [join(dir, `${r.baseName}.ts`)],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      outfile: out,
      plugins: [{ name: 'jaxts-runtime', setup: (b) => b.onResolve({ filter: /^jaxts\/runtime$/ }, () => ({ path: runtimeUrl, external: true })) }],
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    const mod = (await import(pathToFileURL(out).href)) as LoadedProgram;
    return mod;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
