// The TypeScript that `jaxts compile` writes for every golden fixture (host
// driver and kernels) type-checks under `tsc --strict` with skipLibCheck off,
// against the runtime's own declarations (jaxts/runtime mapped to runtime/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, compileFixture, goldenFixtures } from '../helpers/fixtures.js';

describe('generated TypeScript', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-strict-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('of every golden fixture passes tsc --strict', () => {
    const fixtures = goldenFixtures();
    for (const rel of fixtures) {
      const r = compileFixture(rel);
      const out = join(dir, 'gen', dirname(rel));
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${r.baseName}.ts`), r.host);
      writeFileSync(join(out, `${r.baseName}.kernels.ts`), r.kernels);
    }
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: false,
        lib: ['ES2022', 'DOM'], types: ['@webgpu/types'], typeRoots: [join(ROOT, 'node_modules')],
        paths: { 'jaxts/runtime': [join(ROOT, 'runtime/index.ts')] },
      },
      include: ['gen/**/*.ts'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    let report = '';
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    } catch (e) {
      report = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(fixtures.length).toBeGreaterThan(100);
    expect(report).toBe('');
  }, 600_000);
});
