// Error fixtures: each bad program gives `file:line:col: error: …` with a code
// frame at the expected position, through the CLI (exit code 1, no output files).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompileError, formatDiagnostic } from '../../src/common/diagnostics.js';
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
  it('writes only inside the -o directory, whatever the path of the .py', () => {
    const root = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const out = join(root, 'nested', 'out');
    const src = join(root, '..', basename(root), 'prog.py');
    writeFileSync(join(root, 'prog.py'), 'print(1)\n');
    execFileSync('node', [cli, 'compile', src, '-o', out], { stdio: 'pipe' });
    expect(readdirSync(out).sort()).toEqual(['prog.kernels.ts', 'prog.ts', 'prog.ts.map']);
    expect(readdirSync(root).sort()).toEqual(['nested', 'prog.py']);
  });

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

  it('run prints what the program printed before a compile-time error, then the error (as CPython does)', () => {
    const root = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const src = join(root, 'late.py');
    writeFileSync(src, 'import jax.numpy as jnp\nprint("hello")\nx = jnp.ones(3)\nprint(x)\ny = x + jnp.ones(4)\nprint("after")\n');
    let status = 0;
    let stdout = '';
    let stderr = '';
    try {
      execFileSync('node', [cli, 'run', '--backend', 'cpu', src], { stdio: 'pipe' });
    } catch (e) {
      status = (e as { status: number }).status;
      stdout = String((e as { stdout: Buffer }).stdout);
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stdout).toBe('hello\n[1. 1. 1.]\n');
    expect(stderr).toMatch(/late\.py:5:5: error: TypeError: add got incompatible shapes for broadcasting: \(3,\), \(4,\)\./);
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

  it('honours jax_debug_nans: the first NaN raises FloatingPointError naming the primitive and its line, on both backends', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const py = join(dir, 'nans.py');
    const src = [
      'import jax',
      'import jax.numpy as jnp',
      'print(jnp.log(jnp.array([-1.0])))  # before the option: no check',
      'jax.config.update("jax_debug_nans", True)',
      '',
      '@jax.jit',
      'def f(x):',
      '    y = x * 2',
      '    return jnp.log(y - 3.0)',
      '',
      'print(f(jnp.array([2.0, 4.0])))',
      'print(f(jnp.array([1.0, 4.0])))',
      'print("not reached")',
    ];
    writeFileSync(py, src.join('\n') + '\n');
    for (const backend of ['cpu', 'webgpu']) {
      const r = spawnSync('node', [cli, 'run', py, '--backend', backend], { encoding: 'utf8', env: { ...process.env } });
      if (backend === 'webgpu' && /no WebGPU adapter/.test(r.stderr) && !process.env['CI']) continue;
      // JAX re-runs a jit whose output has a NaN op by op, saying so once for the jit and once for jnp.log's own jit
      const deopt = 'Invalid nan value encountered in the output of a jax.jit function. Calling the de-optimized version.\n';
      expect(r.stdout).toBe(`[nan]\n[0.       1.609438]\n${deopt}${deopt}`);
      expect(r.stderr).toBe(`${py}:9: FloatingPointError: invalid value (nan) encountered in log\n`);
      expect(r.status).toBe(1);
    }
  });

  it("names the Python line of a run-time error, in Python's words (exit 1)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const py = join(dir, 'zero.py');
    writeFileSync(py, 'import jax.numpy as jnp\nx = float(jnp.zeros(()))\nprint(7 // 2, 7 % 3)\nprint(1 / (x - 0.0))\n');
    const r = spawnSync('node', [cli, 'run', py, '--backend', 'cpu'], { encoding: 'utf8' });
    expect(r.stdout).toBe('3 1\n');
    expect(r.stderr).toBe(`${py}:4: ZeroDivisionError: float division by zero\n`);
    expect(r.status).toBe(1);
  });
});

// bin/jaxts.js (plain JavaScript, for every OS) starts Node from a startup snapshot of the command,
// which it builds on first use into JAXTS_CACHE_DIR (none is shipped: a blob loads only into the Node that made it).
describe.skipIf(!existsSync(join(ROOT, 'dist/snapshot/cli.cjs')))('launcher and startup snapshot', () => {
  const cache = mkdtempSync(join(tmpdir(), 'jaxts-cache-'));
  /** Run the launcher as a program; stderr's `jaxts launcher:` lines say how the command started. */
  const launch = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, JAXTS_CACHE_DIR: cache, JAXTS_TRACE_LAUNCHER: '1', ...env } });
  const trace = (stderr: string): string => stderr.split('\n').filter((l) => l.startsWith('jaxts launcher: ')).join('\n');
  const program = (stderr: string): string => stderr.split('\n').filter((l) => !l.startsWith('jaxts launcher: ')).join('\n');
  const blobs = () => readdirSync(cache).filter((f) => f.endsWith('.blob'));

  it('builds the snapshot on first use, then runs a lesson from it and prints what the ES module path prints', async () => {
    const py = join(ROOT, 'fixtures/seed004/gspmd_square.py');
    const first = launch(['run', py, '--backend', 'cpu']);
    expect(trace(first.stderr)).toMatch(/building \S+cli-v[\d.]+-[0-9a-f]{16}\.blob in the background\njaxts launcher: import dist\/cli\.js/);
    expect(first.stdout).toBe(readFileSync(join(ROOT, 'fixtures/seed004/gspmd_square.out'), 'utf8'));
    for (let i = 0; i < 600 && blobs().length === 0; i++) await new Promise((ok) => setTimeout(ok, 100));
    expect(blobs()).toHaveLength(1);
    const r = launch(['run', py, '--backend', 'cpu']);
    expect(trace(r.stderr)).toMatch(/^jaxts launcher: node --snapshot-blob \S+cli-v[\d.]+-[0-9a-f]{16}\.blob$/);
    expect(r.stdout).toBe(first.stdout);
    expect(r.status).toBe(0);
    const plain = launch(['run', py, '--backend', 'cpu'], { JAXTS_NO_SNAPSHOT: '1' });
    expect(trace(plain.stderr)).toBe('jaxts launcher: import dist/cli.js');
    expect(plain.stdout).toBe(r.stdout);
  }, 120_000);

  it('reports compile errors, run-time errors and usage errors from the snapshot as the ES module path does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const zero = join(dir, 'zero.py');
    writeFileSync(zero, 'import jax.numpy as jnp\nx = float(jnp.zeros(()))\nprint(1 / (x - 0.0))\n');
    const cases: [string[], number, RegExp][] = [
      [['compile', join(ROOT, 'fixtures/errors/undefined_name.py'), '-o', dir], 1, /undefined_name\.py:7:39: error: NameError: name 'n_device' is not defined\n/],
      [['run', zero, '--backend', 'cpu'], 1, /zero\.py:3: ZeroDivisionError: float division by zero\n$/],
      [['frobnicate'], 2, /^jaxts: error: unknown command 'frobnicate'/],
      [['run', zero, '--backend', 'tpu'], 2, /^jaxts: error: --backend must be one of auto, webgpu, cpu \(got 'tpu'\)/],
      [['compile'], 2, /^jaxts: error: 'jaxts compile' needs a FILE\.py/],
    ];
    for (const [args, status, message] of cases) {
      const snap = launch(args);
      if (blobs().length) expect(trace(snap.stderr)).toMatch(/--snapshot-blob/);
      const plain = spawnSync('node', [cli, ...args], { encoding: 'utf8', env: { ...process.env, JAXTS_NO_SNAPSHOT: '1' } });
      expect(snap.status, args.join(' ')).toBe(status);
      expect(program(snap.stderr)).toMatch(message);
      expect(program(snap.stderr)).toBe(plain.stderr);
      expect(plain.status).toBe(status);
    }
    expect(readdirSync(dir)).toEqual(['zero.py']);
  });

  it('prints the usage for --help', () => {
    const r = launch(['compile', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: jaxts compile <file> [options]');
    expect(r.stdout).toMatch(/--dump .*\(ir\|spmd\|kernels\)/);
  });

  it('says "did you mean" for a misspelt command (exit 2), prints --version and a shell completion script', () => {
    const typo = launch(['compil', 'x.py']);
    expect(typo.status).toBe(2);
    expect(program(typo.stderr)).toMatch(/^jaxts: error: unknown command 'compil' \(commands: compile, run, playground\); did you mean 'compile'\?\n/);
    const version = launch(['--version']);
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    expect(version.status).toBe(0);
    expect(launch(['completion']).stdout).toContain('jaxts --get-yargs-completions');
    expect(launch(['--get-yargs-completions', 'jaxts', 'run', 'x.py', '--b']).stdout.split('\n')).toContain('--backend');
  });
  it('jax.debug.breakpoint: the debugger session of JAX with stdin at end-of-file (the prompt, then the callback fails)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
    const py = join(dir, 'bp.py');
    const src = ['import jax', 'import jax.numpy as jnp', '@jax.jit', 'def f(x):', '  y = jnp.sin(x)', '  jax.debug.print("y = {}", y)', '  jax.debug.breakpoint()', '  return y', 'print(f(0.0))', 'print("not reached")'];
    writeFileSync(py, src.join('\n') + '\n');
    const r = spawnSync('node', [cli, 'run', py, '--backend', 'cpu'], { encoding: 'utf8' });
    expect(r.stdout).toBe('y = 0.0\nEntering jdb:\n(jdb) ');
    expect(r.stderr).toBe(`${py}:7: jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: SystemExit: 0 (jax.debug.breakpoint: the debugger read end-of-file from stdin)\n`);
    expect(r.status).toBe(1);
  });
});
