// The layering rules of .dependency-cruiser.cjs (arrows down the pipeline, no
// import cycles outside src/lower's evaluator core), checked with
// dependency-cruiser over src/ and runtime/.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const depcruise = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), ...args], { cwd: ROOT, encoding: 'utf8' });

describe('layering', () => {
  it('src/ and runtime/ follow the pipeline arrows, with no cycle outside the evaluator core', () => {
    const r = depcruise('src', 'runtime', '--config', '.dependency-cruiser.cjs', '--output-type', 'err');
    expect(r.stdout + r.stderr).toContain('no dependency violations found');
    expect(r.status).toBe(0);
  });
});
