// Lowering: binding times, host loops, pmap/vmap programs, diagnostics.
import { describe, expect, it } from 'vitest';
import { compile, dumpIr } from '../../src/compile.js';
import { CompileError } from '../../src/diagnostics.js';

const c = (src: string) => compile(src, { file: 't.py' });

describe('lowering', () => {
  it('folds static prints into constant strings', () => {
    const r = c('x = (1, 2)\nprint(f"shape: {x}", 3 * 7)\n');
    expect(r.host).toContain('rt.print("shape: (1, 2) 21\\n");');
    expect(r.hostProgram.programs).toHaveLength(0);
  });
  it('keeps a host loop as a TS loop with the index as a run-time value', () => {
    const r = c('total = 0\nfor i in range(5):\n    total += i\n    print(i, total)\n');
    expect(r.host).toMatch(/for \(let i = 0; i < 5; i\+\+\)/);
    expect(r.host).toContain('let total = 0;');
  });
  it('unrolls a host loop whose body needs the index at compile time', () => {
    const r = c('import jax.numpy as jnp\nx = jnp.arange(4)\nout = []\nfor i in range(3):\n    out.append(x[i])\nprint(out)\n');
    expect(r.host).not.toMatch(/for \(/);
  });
  it('traces pmap into one per-device program with the axis size', () => {
    const r = c('import jax\nimport jax.numpy as jnp\ny = jax.pmap(lambda v: v * 2, axis_name="i")(jnp.arange(8).reshape(4, 2))\nprint(y)\n');
    const p = r.hostProgram.programs.find((q) => q.kind === 'pmap')!;
    expect(p.func.params[0]!.aval.shape).toEqual([2]);
    expect(p.func.axisEnv).toEqual([{ name: 'i', size: 4 }]);
    expect(r.host).toContain('rt.pmap(');
    expect(dumpIr(r)).toContain('# pmap');
  });
  it('reads the device count from XLA_FLAGS set in the program', () => {
    const r = c('import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"\nimport jax\nprint(jax.device_count())\n');
    expect(r.hostProgram.deviceCount).toBe(8);
    expect(r.host).toContain('rt.print("8\\n")');
  });
  it('reports a pmap over more devices than exist, in JAX wording', () => {
    expect(() => c('import jax\nimport jax.numpy as jnp\njax.pmap(lambda v: v)(jnp.zeros((5, 2)))\n')).toThrow(
      /compiling computation that requires 5 logical devices, but only 4 XLA devices are available/,
    );
  });
  it('reports branching on a traced value', () => {
    try {
      c('import jax\ndef f(x):\n    if x > 0:\n        return x\n    return -x\njax.vmap(f)(jax.numpy.arange(3))\n');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CompileError);
      expect((e as CompileError).message).toMatch(/TracerBoolConversionError/);
      expect((e as CompileError).span!.start.line).toBe(3);
    }
  });
  it('reports dot shape mismatches with JAX wording', () => {
    expect(() => c('import jax.numpy as jnp\njnp.dot(jnp.ones(4), jnp.ones(5))\n')).toThrow(
      'dot_general requires contracting dimensions to have the same shape, got (4,) and (5,).',
    );
  });
});
