// Running compiled output in-process: bundle the generated TypeScript with
// esbuild (the runtime import aliased to this installation's runtime), import
// it, and call main() with a runtime.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { CompileResult } from './compile.js';
import type { Runtime } from '../runtime/runtime.js';

export interface LoadedProgram {
  deviceCount: number;
  main: (rt: Runtime) => Promise<void>;
}

/** Bundle and import a compiled program. `runtimeEntry` is the path of jaxts/runtime's entry file. */
export async function loadCompiled(r: CompileResult, runtimeEntry: string): Promise<LoadedProgram> {
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-'));
  try {
    writeFileSync(join(dir, `${r.baseName}.ts`), r.host);
    writeFileSync(join(dir, `${r.baseName}.kernels.ts`), r.kernels);
    const out = join(dir, `${r.baseName}.bundle.mjs`);
    await esbuild.build({
      entryPoints: [join(dir, `${r.baseName}.ts`)],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      outfile: out,
      alias: { 'jaxts/runtime': runtimeEntry },
      logLevel: 'silent',
    });
    const mod = (await import(pathToFileURL(out).href)) as LoadedProgram;
    return mod;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
