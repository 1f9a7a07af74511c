// Every WGSL kernel the fixtures produce must pass Dawn's validation, also
// with the override constants the WebGPU backend sets: `devices` (4) and each
// input's stride st<K> at 0 (an input that all devices share).
import { describe, expect, it } from 'vitest';
import { WebGpuBackend } from '../../runtime/webgpu/backend.js';
import { compileFixture, goldenFixtures, webgpuBackend } from '../helpers/fixtures.js';
import { PENDING } from '../golden/pending.js';
import type { Kernel, Program } from '../../src/ir/kernel.js';
import { renderWgsl } from '../../src/codegen/wgsl.js';

/** A program's kernels with their WGSL, then those of its control-flow sub-programs. */
const kernelsOf = (p: Program, wgsl: string[]): [Kernel, string][] => [
  ...p.kernels.map((k, i): [Kernel, string] => [k, wgsl[i]!]),
  ...(p.programs ?? []).flatMap((q) => kernelsOf(q, q.kernels.map(renderWgsl))),
];

/**
 * The generated suites (fixtures/differential, fixtures/pyhost, fixtures/api_edge: thousands of small
 * kernels of the same shapes) are validated through one batch each here; the golden test runs all of them
 * on WebGPU anyway. (With every api_edge batch, this file's Dawn device held so many pipelines that its
 * worker died when it ran beside the golden suite.)
 */
const GENERATED = /^fixtures\/(differential|pyhost|api_edge)\//;
const validated = (all: string[]): string[] => {
  const firstOf = new Set<string>();
  return all.filter((f) => {
    const m = GENERATED.exec(f);
    if (!m) return true;
    if (firstOf.has(m[1]!)) return false;
    firstOf.add(m[1]!);
    return true;
  });
};

describe('WGSL validation (Dawn)', () => {
  for (const f of validated(goldenFixtures().filter((x) => !PENDING[x]))) {
    it(f, async () => {
      const backend = await webgpuBackend();
      if (!(backend instanceof WebGpuBackend)) return;
      const device = backend.gpu;
      for (const p of compileFixture(f).programs) {
        for (const [i, [kernel, code]] of kernelsOf(p.program, p.wgsl).entries()) {
          device.pushErrorScope('validation');
          const module = device.createShaderModule({ code });
          const info = await module.getCompilationInfo();
          device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
          const shared = { devices: 4, ...Object.fromEntries(kernel.inputs.map((_, k) => [`st${k}`, 0])) };
          device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants: shared } });
          const err = await device.popErrorScope();
          const errors = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
          expect(errors, `${p.name} kernel ${i}:\n${code}`).toEqual([]);
          expect(err?.message ?? null, `${p.name} kernel ${i}`).toBeNull();
        }
      }
    });
  }
});
