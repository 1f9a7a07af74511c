// Shared by the golden, validation and error suites: the fixture programs,
// compiling them, and running them on a backend with captured output.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type CompileResult } from '../../src/compile.js';
import { loadCompiled } from '../../src/run.js';
import type { Backend } from '../../runtime/backend.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import { nodeWebGpuBackend } from '../../runtime/node.js';
import { Runtime } from '../../runtime/runtime.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RUNTIME_ENTRY = join(ROOT, 'runtime/index.ts');

/** Every fixture program with a golden `.out` (error fixtures and fixtures/reference/, the oracle's data for unit tests, excluded). */
export function goldenFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'errors' && e.name !== 'reference') walk(p);
      } else if (e.name.endsWith('.py') && existsSync(p.replace(/\.py$/, '.out'))) out.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, 'fixtures'));
  return out.sort();
}

export function compileFixture(rel: string): CompileResult {
  return compile(readFileSync(join(ROOT, rel), 'utf8'), { file: rel });
}

/** Run a compiled program on `backend`, returning what it printed. */
export async function runOn(r: CompileResult, backend: Backend): Promise<string> {
  const prog = await loadCompiled(r, RUNTIME_ENTRY);
  let text = '';
  const rt = new Runtime(backend, { devices: prog.deviceCount, write: (t) => (text += t) });
  await prog.main(rt);
  await rt.sync();
  return text;
}

export const cpuBackend = (): Backend => new CpuBackend();

let gpu: Promise<Backend | null> | null = null;
/** The Dawn backend, shared per test process; null (skip) without an adapter unless CI=true. */
export function webgpuBackend(): Promise<Backend | null> {
  gpu ??= nodeWebGpuBackend().then((b) => {
    if (!b && process.env['CI'] === 'true') throw new Error('no WebGPU adapter under CI=true: run scripts/setup-webgpu.sh');
    return b;
  });
  return gpu;
}
