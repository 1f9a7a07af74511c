// The golden suite, one shard of it per test file (golden_<k>.test.ts): each fixture of the shard is
// compiled once, and that one compile is run on the CPU backend and on WebGPU (Dawn + SwiftShader here)
// and compared with real JAX's output, its WGSL kernels are validated by Dawn, and its generated
// TypeScript is type-checked with the rest of the shard's under `tsc --strict`. Shards take every
// count-th fixture of the sorted list, so that the test processes share the work whatever fixtures
// are added; run one fixture with `npx vitest run test/golden -t '<path fragment>'`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareOutputs } from './compare.js';
import { PENDING } from './pending.js';
import type { CompileResult } from '../../src/compile.js';
import { renderWgsl, wideOp } from '../../src/codegen/wgsl.js';
import type { Kernel, Program } from '../../src/ir/kernel.js';
import { WebGpuBackend } from '../../runtime/webgpu/backend.js';
import { compileFixture, cpuBackend, goldenFixtures, ROOT, runOn, webgpuBackend } from '../helpers/fixtures.js';

/**
 * Fixtures whose WebGPU output differs from XLA's only in the sign of a zero, because SwiftShader's
 * shader compiler folds `x * 0.0` to `0.0` when x is a constant of the shader (fast-math; measured: even
 * `inf * 0.0` folds to 0 there, while the same kernel on values read from buffers gives -0 and NaN).
 * On WebGPU, `-0.` compares equal to `0.` in these fixtures only.
 */
const SWIFTSHADER_FOLDS_TIMES_ZERO = new Set([
  'fixtures/tutorials/custom_derivative_rules_2.py',
  'fixtures/tutorials/complex_differentiation.py',
  'fixtures/constructs/complex_arithmetic.py',
  'fixtures/constructs/complex_grads.py',
]);
// (a complex number's zero part too: '(1-0j)' is '(1+0j)', '1.-0.j' is '1.+0.j')
const unsignZeros = (s: string): string => s.replace(/(?<![\w.])-0\.(?!\d)/g, '0.').replace(/(?<=[\d.])-0(\.?)j/g, '+0$1j');

const expected = (f: string): string => readFileSync(join(ROOT, f.replace(/\.py$/, '.out')), 'utf8');

/**
 * The generated suites (fixtures/differential, fixtures/pyhost, fixtures/api_edge: thousands of small
 * kernels of the same shapes) have their WGSL validated for their first fixture only; the golden tests run
 * all of them on WebGPU anyway. (With every api_edge batch validated, one process's Dawn device held so
 * many pipelines that its worker died.)
 */
const GENERATED = /^fixtures\/(differential|pyhost|api_edge)\//;
const validatedFixtures = (all: string[]): Set<string> => {
  const firstOf = new Set<string>();
  return new Set(all.filter((f) => {
    const m = GENERATED.exec(f);
    if (!m) return true;
    if (firstOf.has(m[1]!)) return false;
    firstOf.add(m[1]!);
    return true;
  }));
};

/** A program's kernels with their WGSL, then those of its control-flow sub-programs. */
const kernelsOf = (p: Program, wgsl: string[]): [Kernel, string][] => [
  ...p.kernels.map((k, i): [Kernel, string] => [k, wgsl[i]!]),
  ...(p.programs ?? []).flatMap((q) => kernelsOf(q, q.kernels.map((k) => (wideOp(k) === null ? renderWgsl(k) : '')))),
];

/**
 * Every kernel of `r` must pass Dawn's validation, also with the override constants the WebGPU backend
 * sets: `devices` (4) and each input's stride st<K> at 0 (an input that all devices share).
 */
async function validateWgsl(r: CompileResult, device: GPUDevice): Promise<void> {
  for (const p of r.programs) {
    for (const [i, [kernel, code]] of kernelsOf(p.program, p.wgsl).entries()) {
      if (wideOp(kernel) !== null) continue; // on 64-bit values (jax_enable_x64): no WGSL, the CPU backend runs it
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
}

/** tsc --strict (skipLibCheck off) over generated modules in `dir`, against the runtime's own declarations; tsc's report, '' when clean. */
function strictTypeCheck(dir: string): string {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: false,
      lib: ['ES2022', 'DOM'], types: ['@webgpu/types'], typeRoots: [join(ROOT, 'node_modules')],
      paths: { 'jaxts/runtime': [join(ROOT, 'runtime/index.ts')] },
    },
    include: ['gen/**/*.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    return '';
  } catch (e) {
    return String((e as { stdout?: string }).stdout ?? e);
  }
}

/** Registers shard `index` (1-based) of `count`: every count-th golden fixture, from the index-th on. */
export function goldenShard(index: number, count: number): void {
  const all = goldenFixtures();
  const fixtures = all.filter((_, i) => i % count === index - 1);
  const validated = validatedFixtures(all.filter((f) => !PENDING[f]));
  const dir = mkdtempSync(join(tmpdir(), 'jaxts-golden-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The fixture compiled last: its tests run one after another, so one compile serves them all. */
  let current: { file: string; result: CompileResult } | null = null;
  /** The fixtures whose generated TypeScript is in `dir`. */
  const written = new Set<string>();
  const compiled = (f: string): CompileResult => {
    if (current?.file !== f) {
      current = null; // (a failed compile is not kept: the next test of the fixture meets the same error)
      const result = compileFixture(f);
      current = { file: f, result };
      // the generated TypeScript, for the shard's tsc --strict check
      const out = join(dir, 'gen', dirname(f));
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${result.baseName}.ts`), result.host);
      writeFileSync(join(out, `${result.baseName}.kernels.ts`), result.kernels);
      written.add(f);
    }
    return current.result;
  };

  for (const f of fixtures) {
    const run = PENDING[f] ? it.skip : it;
    describe(f, () => {
      for (const backendName of ['cpu', 'webgpu'] as const) {
        run(`golden (${backendName})`, async () => {
          const backend = backendName === 'cpu' ? cpuBackend() : await webgpuBackend();
          if (!backend) return; // no adapter outside CI: webgpuBackend() throws under CI=true
          // a program on 64-bit values (jax_enable_x64) runs on the CPU backend only: a WebGPU runtime is refused, naming the op
          if (backend.kind === 'webgpu' && /^export const cpuOnly = /m.test(compiled(f).host)) {
            await expect(runOn(compiled(f), backend)).rejects.toThrow(/runs on the CPU backend only: \w+ on 64-bit values/);
            return;
          }
          const actual = await runOn(compiled(f), backend);
          const loose = backendName === 'webgpu' && SWIFTSHADER_FOLDS_TIMES_ZERO.has(f);
          const opts = { subnormalsMayFlush: backendName === 'webgpu' };
          const r = loose ? compareOutputs(unsignZeros(expected(f)), unsignZeros(actual), opts) : compareOutputs(expected(f), actual, opts);
          expect(r.ok, r.message).toBe(true);
        });
      }
      if (validated.has(f)) {
        it('WGSL validation (Dawn)', async () => {
          const backend = await webgpuBackend();
          if (backend instanceof WebGpuBackend) await validateWgsl(compiled(f), backend.gpu);
        });
      }
    });
  }

  it(`generated TypeScript of shard ${index}/${count} passes tsc --strict`, () => {
    for (const f of fixtures) if (!written.has(f)) compiled(f); // pending fixtures, or all of them when this test runs alone
    expect(fixtures.length).toBeGreaterThan(10);
    expect(strictTypeCheck(dir)).toBe('');
  }, 600_000);
}
