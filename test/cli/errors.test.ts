// Error fixtures: each bad program gives `file:line:col: error: …` with a code
// frame at the expected position, through the CLI (exit code 1, no output files).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompileError, formatDiagnostic } from '../../src/diagnostics.js';
import { compile } from '../../src/compile.js';
import { ROOT } from '../helpers/fixtures.js';

const dir = join(ROOT, 'fixtures/errors');
const cases = readdirSync(dir).filter((f) => f.endsWith('.py'));

describe('error fixtures', () => {
  for (const f of cases) {
    it(f, () => {
      const want = JSON.parse(readFileSync(join(dir, f.replace(/\.py$/, '.expected.json')), 'utf8')) as { line: number; col: number; message: string };
      const src = readFileSync(join(dir, f), 'utf8');
      let err: unknown = null;
      try {
        compile(src, { file: f });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CompileError);
      const text = formatDiagnostic(`fixtures/errors/${f}`, src, err as CompileError);
      expect(text.split('\n')[0]).toMatch(new RegExp(`^fixtures/errors/${f}:${want.line}:${want.col}: error: `));
      expect(text).toContain(want.message);
      expect(text).toContain(`${want.line} | `); // code frame
    });
  }
});

const cli = join(ROOT, 'bin/jaxts.js');
describe.skipIf(!existsSync(join(ROOT, 'dist/cli.js')))('CLI', () => {
  it('reports a compile error with exit code 1 and writes no files', () => {
    const out = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    let status = 0;
    let stderr = '';
    try {
      execFileSync('node', [cli, 'compile', join(dir, 'undefined_name.py'), '-o', out], { stdio: 'pipe' });
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr).toMatch(/undefined_name\.py:7:39: error: NameError: name 'n_device' is not defined/);
    expect(stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(readdirSync(out)).toEqual([]);
  });

  it('exits 2 on a usage error', () => {
    let status = 0;
    try {
      execFileSync('node', [cli, 'frobnicate'], { stdio: 'pipe' });
    } catch (e) {
      status = (e as { status: number }).status;
    }
    expect(status).toBe(2);
  });

  it('compiles to FILE.ts (with its source map) and FILE.kernels.ts and dumps readable IR', () => {
    const out = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const ir = execFileSync('node', [cli, 'compile', join(ROOT, 'fixtures/seed000/02_pmap_f.py'), '-o', out, '--dump', 'ir'], { encoding: 'utf8' });
    expect(ir).toContain('{ lambda ;');
    expect(ir).toMatch(/integer_pow\[y=2\]/);
    expect(ir).toContain('sin');
    expect(readdirSync(out).sort()).toEqual(['02_pmap_f.kernels.ts', '02_pmap_f.ts', '02_pmap_f.ts.map']);
    expect(readFileSync(join(out, '02_pmap_f.ts'), 'utf8')).toMatch(/\/\/# sourceMappingURL=02_pmap_f\.ts\.map\n$/);
    const map = JSON.parse(readFileSync(join(out, '02_pmap_f.ts.map'), 'utf8')) as { sources: string[]; mappings: string };
    expect(map.sources).toEqual([relative(out, join(ROOT, 'fixtures/seed000/02_pmap_f.py'))]);
    expect(map.mappings).toMatch(/[A-Za-z]/);
  });

  it('dumps the partitioned step of seed 001 block 1: one combined gradient all-reduce, no all-gather', () => {
    const out = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const dump = execFileSync('node', [cli, 'compile', join(ROOT, 'fixtures/seed001/01_mesh_linear_regression.py'), '-o', out, '--dump', 'spmd'], { encoding: 'utf8' });
    const step = dump.split('\n\n').find((s) => s.startsWith('# spmd train_step'))!;
    expect(step).toContain('on mesh (data=4), auto axes');
    expect(step).toContain('f32[256@data,32]');
    const collectives = step.split('\n').filter((l) => /= (psum|all_gather|psum_scatter|all_to_all|ppermute)\[/.test(l));
    expect(collectives).toHaveLength(1);
    expect(collectives[0]).toMatch(/psum\[axes=\(data,\) axis_size=4 replica_groups=\{\{0,1,2,3\}\}\]/);
  });

  it('runs a lesson on the CPU backend', () => {
    const text = execFileSync('node', [cli, 'run', join(ROOT, 'fixtures/seed004/pmap_square.py'), '--backend', 'cpu'], { encoding: 'utf8' });
    expect(text).toBe(readFileSync(join(ROOT, 'fixtures/seed004/pmap_square.out'), 'utf8'));
  });
});
