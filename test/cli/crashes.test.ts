// Command-line inputs that used to crash jaxts or escape its folders (issue 19):
// odd file names, -o naming a file or failing half-way, out-of-range option
// values, and a reader of stdout that goes away (`| head`). Runs the built CLI
// (dist/), as a user does.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateDevices, validateHost, validatePort } from '../../src/cli_validate.js';
import { writeOutputs } from '../../src/run.js';
import { ROOT } from '../helpers/fixtures.js';

const cli = join(ROOT, 'bin/jaxts.js');
const work = mkdtempSync(join(tmpdir(), 'jaxts-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const PROGRAM = 'import jax.numpy as jnp\nprint(jnp.arange(3) * 2)\n';
const jaxts = (args: string[], cwd = work) => spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });

describe('jaxts command line', () => {
  it('runs a file whose path has a newline and ../ without writing outside its temporary folder', () => {
    const dir = join(work, 'd\n');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(work, 'victim.js'), 'keep');
    writeFileSync(join(work, 'victim.py'), PROGRAM);
    const r = jaxts(['run', 'd\n/../victim.py', '--backend', 'cpu']);
    expect(r.stdout).toBe('[0 2 4]\n');
    expect(readFileSync(join(work, 'victim.js'), 'utf8')).toBe('keep');
  });

  it('compiles a\\b.py to a module whose kernels file exists', () => {
    const out = join(work, 'out_backslash');
    writeFileSync(join(work, 'a\\b.py'), PROGRAM);
    expect(jaxts(['compile', 'a\\b.py', '-o', out]).status).toBe(0);
    const files = readdirSync(out);
    const host = files.find((f) => f.endsWith('.ts') && !f.endsWith('.kernels.ts'))!;
    const imported = /from ['"]\.\/(.*\.kernels)\.js['"]/.exec(readFileSync(join(out, host), 'utf8'))![1]!;
    expect(files).toContain(`${imported}.ts`);
  });

  it('reports -o naming a file as a user error', () => {
    writeFileSync(join(work, 'p.py'), PROGRAM);
    writeFileSync(join(work, 'afile'), '');
    const r = jaxts(['compile', 'p.py', '-o', 'afile']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^jaxts: error: -o: '.*afile' is not a directory\n$/);
  });

  it('rejects out-of-range --devices and --port, and an empty --host, with exit code 2', () => {
    writeFileSync(join(work, 'p.py'), PROGRAM);
    for (const args of [['run', 'p.py', '--devices', '99999999999999999999'], ['playground', '--port', '99999'], ['playground', '--host', '']]) {
      const r = jaxts(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^jaxts: error: --(devices|port|host) must be/);
    }
  });

  it('stops quietly when the reader of stdout goes away (| head)', () => {
    writeFileSync(join(work, 'loop.py'), 'import jax.numpy as jnp\nfor i in range(3000):\n    print(jnp.ones(3) * i)\n');
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(cli)} run loop.py --backend cpu | head -1`], { cwd: work, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toBe('[0. 0. 0.]\n');
    expect(r.stderr).not.toMatch(/EPIPE/);
  });
});

describe('compile output', () => {
  it('is all or nothing: when a rename fails, the folder is left as it was', () => {
    const dir = join(work, 'atomic');
    mkdirSync(dir);
    writeFileSync(join(dir, 'x.ts'), 'old x');
    // the last rename fails
    const failLast = (from: string, to: string): void => {
      if (to.endsWith('z.ts')) throw new Error('EACCES: permission denied');
      renameSync(from, to);
    };
    const err = writeOutputs(dir, { 'x.ts': 'new x', 'y.ts': 'new y', 'z.ts': 'new z' }, failLast);
    expect(err).toMatch(/^cannot write to/);
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('old x');
    expect(readdirSync(dir)).toEqual(['x.ts']);
    // a folder in the way is named, and nothing is touched
    mkdirSync(join(dir, 'z.ts'));
    expect(writeOutputs(dir, { 'x.ts': 'new x', 'z.ts': 'new z' })).toMatch(/it is a directory$/);
    expect(readFileSync(join(dir, 'x.ts'), 'utf8')).toBe('old x');
  });

  it('reports an unwritable folder as a message', () => {
    const dir = join(work, 'readonly');
    mkdirSync(dir);
    chmodSync(dir, 0o500);
    const err = writeOutputs(dir, { 'x.ts': 'x' });
    chmodSync(dir, 0o700);
    // root may write anyway; then the write succeeded
    if (err !== null) expect(err).toMatch(/^cannot write to/);
  });
});

describe('option validation', () => {
  it('accepts the sensible values and names the wrong ones', () => {
    expect(validateDevices('8')).toEqual({ ok: true, value: 8 });
    expect(validateDevices('0').ok).toBe(false);
    expect(validateDevices('99999999999999999999').ok).toBe(false);
    expect(validatePort('0')).toEqual({ ok: true, value: 0 });
    expect(validatePort('65536').ok).toBe(false);
    expect(validateHost('localhost')).toEqual({ ok: true, value: 'localhost' });
    expect(validateHost(' ').ok).toBe(false);
  });
});
