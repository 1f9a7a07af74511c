// Dawn's validation text reaches the user on stderr, never on stdout (where
// the program's printed output goes): a bind group layout with more storage
// buffers than the device allows, made directly on the backend's GPUDevice
// so that the runtime's own check does not stop it first, fails the next
// sync with Dawn's message, and a child process that runs it prints nothing
// on stdout. Runs the built runtime (npm run build).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeWebGpuBackend } from '../../runtime/node.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

const SCRIPT = `
import { nodeWebGpuBackend } from './dist/node.js';
const b = await nodeWebGpuBackend();
const max = b.gpu.limits.maxStorageBuffersPerShaderStage;
const entries = Array.from({ length: max + 4 }, (_, i) => ({ binding: i, visibility: 4, buffer: { type: 'read-only-storage' } }));
b.gpu.createBindGroupLayout({ entries });
try {
  await b.sync();
  process.stderr.write('no error\\n');
} catch (e) {
  process.stderr.write(e.message + '\\n');
  process.exitCode = 1;
}
`;

describe('Dawn validation errors', () => {
  it('go to stderr as the run error, with nothing on stdout', async () => {
    if (!(await nodeWebGpuBackend())) {
      if (process.env['CI'] === 'true') throw new Error('no WebGPU adapter under CI=true');
      return;
    }
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^WebGPU error: .*storage buffers/im);
  });
});
