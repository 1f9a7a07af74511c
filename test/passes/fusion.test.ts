// Fusion policy: producer duplication of cheap multi-use values, reductions
// and dots through bijective movement ops, and kernels per training step.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { FuncBuilder } from '../../src/ir/builder.js';
import type { KExpr, Program } from '../../src/ir/kernel.js';
import type { Atom } from '../../src/ir/types.js';
import { kernelProgram } from '../../src/passes/pipeline.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });
/** A constant array of `shape`, as the tracer writes it (a broadcast scalar literal). */
const full = (b: FuncBuilder, shape: number[], value: number): Atom => {
  const lit: Atom = { kind: 'lit', value, aval: f32() };
  return b.bind1('broadcast_in_dim', [lit], { shape, broadcast_dimensions: [] });
};
const dot = (contract: [number[], number[]]) => ({ dimension_numbers: { contract, batch: [[], []] } });

/** Nodes of a kernel expression as a tree (shared subtrees counted each time), stopping past `cap`. */
function treeSize(e: KExpr, cap = 10_000): number {
  let n = 0;
  const walk = (x: KExpr): void => {
    if (++n > cap) return;
    for (const k of ['index', 'x', 'a', 'b', 'cond', 'body'] as const) {
      const c = (x as Record<string, unknown>)[k];
      if (c && typeof c === 'object') walk(c as KExpr);
    }
    if (x.op === 'call') x.args.forEach(walk);
  };
  walk(e);
  return n;
}

const kernelSteps = (p: Program): number => p.steps.filter((s) => s.kind === 'kernel').length;

/** Kernel steps of the compiled program `step` (or its first specialisation `step_N`) in `file`. */
function kernelsPerCall(source: string, file: string, step: string): number {
  const r = compile(source, { file });
  const spec = r.programs.find((p) => p.name === step) ?? r.programs.find((p) => p.name.startsWith(`${step}_`));
  if (!spec) throw new Error(`no program ${step} in ${file}`);
  return kernelSteps(spec.program);
}

describe('fusion: element rules', () => {
  it('computes exp2 as XLA lowers it: exp(ln 2 * x), ln 2 rounded to float32', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4));
    const p = kernelProgram(b.finish([b.bind1('exp2', [x])]));
    const ln2: KExpr = { op: 'const', value: Math.fround(Math.LN2), dtype: 'float32' };
    const load: KExpr = { op: 'load', input: 0, index: { op: 'gid', dtype: 'int32', bound: 4 }, dtype: 'float32' };
    expect(p.kernels[0]!.body).toEqual({ op: 'un', fn: 'exp', x: { op: 'bin', fn: 'mul', a: ln2, b: load, dtype: 'float32' }, dtype: 'float32' });
  });
});

describe('fusion: producer duplication', () => {
  it('recomputes a cheap value read by several consumers in each of them', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(8));
    const y = b.addParam(f32(8));
    const d = b.bind1('sub', [x, y]);
    const out = b.bind1('add', [b.bind1('mul', [d, d]), b.bind1('neg', [d])]);
    const p = kernelProgram(b.finish([out]));
    expect(p.kernels).toHaveLength(1);
    expect(p.steps[0]!.kind === 'kernel' && p.steps[0]!.inputs).toEqual([{ kind: 'param', index: 0 }, { kind: 'param', index: 1 }]);
  });

  it('duplicates a cheap prologue into two reductions (a compiled jit)', () => {
    const src = [
      'import jax',
      'import jax.numpy as jnp',
      '',
      '@jax.jit',
      'def f(x, y):',
      '    d = x - y',
      '    return jnp.sum(d * d), d.sum(axis=0)',
      '',
      'print(f(jnp.ones((4, 3)), jnp.zeros((4, 3))))',
    ].join('\n');
    // one kernel per reduction; `d` is no longer a kernel of its own
    expect(kernelsPerCall(src, 'dup.py', 'f')).toBe(2);
  });

  it('does not duplicate a transcendental, a reduction or a result', () => {
    for (const prim of ['exp', 'exp2', 'tanh', 'log', 'sin'] as const) {
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(8));
      const c = b.bind1(prim, [x]);
      const p = kernelProgram(b.finish([b.bind1('add', [b.bind1('mul', [c, c]), b.bind1('neg', [c])])]));
      expect(p.kernels.map((k) => k.name)).toEqual([`f_k0_${prim}`, 'f_k1_add']);
    }
    {
      // a long loop (64 iterations per element) is not recomputed
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(4, 64));
      const s = b.bind1('reduce_sum', [x], { axes: [1] });
      const p = kernelProgram(b.finish([b.bind1('add', [b.bind1('mul', [s, s]), b.bind1('neg', [s])])]));
      expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_reduce_sum', 'f_k1_add']);
    }
    {
      // a short one (a sum over 3 features) is, as any cheap expression
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(4, 3));
      const s = b.bind1('reduce_sum', [x], { axes: [1] });
      const p = kernelProgram(b.finish([b.bind1('reduce_sum', [b.bind1('mul', [s, s])], { axes: [0] }), b.bind1('neg', [s])]));
      expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_reduce_sum', 'f_k1_neg']);
    }
    {
      // a result is written anyway: its other consumer reads that buffer
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(8));
      const c = b.bind1('add', [x, x]);
      const p = kernelProgram(b.finish([c, b.bind1('mul', [c, full(b, [8], 2)])]));
      expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_add', 'f_k1_mul']);
      expect(p.steps[1]!.kind === 'kernel' && p.steps[1]!.inputs).toEqual([{ kind: 'buf', index: 0 }]);
    }
  });

  it('bounds kernel bodies on a diamond chain of 40 multi-use values', () => {
    const b = new FuncBuilder('f');
    let u = b.addParam(f32(16));
    let v = b.addParam(f32(16));
    // each of u, v is read by both next values: fully inlined, the tree doubles per level
    for (let i = 0; i < 40; i++) [u, v] = [b.bind1('add', [u, v]), b.bind1('mul', [u, v])];
    const t0 = performance.now();
    const p = kernelProgram(b.finish([b.bind1('sub', [u, v])]));
    expect(performance.now() - t0).toBeLessThan(2000);
    for (const k of p.kernels) expect(treeSize(k.body)).toBeLessThan(200);
    // still fused: far fewer kernels than the 81 equations
    expect(p.kernels.length).toBeLessThan(40);
  });
});

describe('fusion: reductions and dots through movement ops', () => {
  it('inlines a dot through a transpose into an elementwise consumer', () => {
    const b = new FuncBuilder('f');
    const w = b.addParam(f32(3, 2));
    const v = b.addParam(f32(4, 2));
    const c = b.addParam(f32(4, 3));
    const x = b.bind1('dot_general', [v, c], dot([[0], [0]])); // (2, 3)
    const y = b.bind1('transpose', [x], { permutation: [1, 0] });
    const p = kernelProgram(b.finish([b.bind1('sub', [w, b.bind1('mul', [y, full(b, [3, 2], 0.1)])])]));
    expect(p.kernels).toHaveLength(1);
    expect(p.kernels[0]!.name).toBe('f_k0_sub');
  });

  it('inlines a reduction through a size-keeping reshape and broadcast', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32(4, 3));
    const s = b.bind1('reduce_sum', [x], { axes: [1] }); // (4,)
    const r = b.bind1('reshape', [s], { new_sizes: [2, 2], dimensions: null });
    const e = b.bind1('broadcast_in_dim', [r], { shape: [2, 1, 2], broadcast_dimensions: [0, 2] });
    const p = kernelProgram(b.finish([b.bind1('mul', [e, full(b, [2, 1, 2], 2)])]));
    expect(p.kernels).toHaveLength(1);
  });

  it('still materialises a reduction read through a slice or a growing broadcast', () => {
    for (const move of ['slice', 'broadcast_in_dim'] as const) {
      // (a long reduction: a short one inlines anywhere, as it is cheap to recompute)
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(4, 64));
      const s = b.bind1('reduce_sum', [x], { axes: [1] });
      const m =
        move === 'slice'
          ? b.bind1('slice', [s], { start_indices: [1], limit_indices: [3], strides: null })
          : b.bind1('broadcast_in_dim', [s], { shape: [4, 3], broadcast_dimensions: [0] });
      const p = kernelProgram(b.finish([b.bind1('neg', [m])]));
      expect(p.kernels.map((k) => k.name)).toEqual(['f_k0_reduce_sum', 'f_k1_neg']);
    }
  });
});

describe('fusion: expressions read by a dot', () => {
  it('materialises an expression a dot would recompute for each of many rows, and inlines one it reads once per element', () => {
    for (const [rows, kernels] of [[10, 2], [1, 1]] as const) {
      // g = ((x − y)·2)·x (4 arithmetic nodes on [64, 32]); out = a[rows, 64] · g: g is read once per row of a
      const b = new FuncBuilder('f');
      const x = b.addParam(f32(64, 32));
      const y = b.addParam(f32(64, 32));
      const a = b.addParam(f32(rows, 64));
      const g = b.bind1('mul', [b.bind1('mul', [b.bind1('sub', [x, y]), full(b, [64, 32], 2)]), x]);
      const dot = b.bind1('dot_general', [a, g], { dimension_numbers: { contract: [[1], [0]], batch: [[], []] }, precision: null, preferred_element_type: 'float32' });
      const p = kernelProgram(b.finish([dot]));
      expect(p.kernels.length, `${rows} rows`).toBe(kernels);
    }
  });
});

describe('fusion: kernels per training step (XLA fusions in parentheses)', () => {
  // upper bounds: the counts this policy reaches; XLA: 5, 6, 4, 16, 10
  const cases: [string, string, number][] = [
    // 5: the gradient feeding the weights' dot (4 rows × 3 features) is materialised rather than recomputed for each feature
    ['fixtures/app/model.py', 'train_step', 5],
    ['fixtures/seed003/01_pmap_trainer.py', 'update', 6],
    // the dot over 3 features feeding both the loss and the gradient is recomputed in each
    ['fixtures/seed000/06_train_step_pmean.py', 'train_step', 4],
    ['fixtures/constructs/softmax_classifier.py', 'step', 11],
    ['fixtures/seed001/01_mesh_linear_regression.py', 'train_step', 9],
    ['fixtures/seed001/02_pmap_mlp.py', 'train_step', 14],
  ];
  for (const [file, step, max] of cases) {
    it(`${file} ${step}: at most ${max} kernels`, () => {
      const src = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(kernelsPerCall(src, file, step)).toBeLessThanOrEqual(max);
    });
  }
});
