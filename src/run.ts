// Running compiled output in-process: import the generated JS modules as they
// are (`jaxts run`: no bundler on the way), or bundle the generated TypeScript
// with esbuild (the runtime import aliased to a given runtime entry, as tests
// do with the runtime's sources), and call main() with a runtime.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export interface LoadedProgram {
  deviceCount: number;
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
    writeFileSync(join(dir, `${r.baseName}.js`), `${r.host}\n${inlineSourceMapComment({ ...r.hostMap, sources: [`${r.baseName}.py`] })}\n`);
    writeFileSync(join(dir, `${r.baseName}.kernels.js`), r.kernels);
    return (await importModule(pathToFileURL(join(dir, `${r.baseName}.js`)).href)) as LoadedProgram;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bundle and import a compiled program. `runtimeEntry` is the path of jaxts/runtime's entry file. */
export async function loadCompiled(r: CompileResult, runtimeEntry: string): Promise<LoadedProgram> {
  const esbuild = await import('esbuild');
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
      alias: { 'jaxts/runtime': runtimeEntry },
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    const mod = (await import(pathToFileURL(out).href)) as LoadedProgram;
    return mod;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
