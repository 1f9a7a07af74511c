// Control flow (cond / while / scan equations holding sub-Funcs) through the
// passes: compilation into control steps over sub-programs, the runtime's step
// executor, batching rules, and autodiff (JVP + partial eval + transpose).
import { describe, expect, it } from 'vitest';
import { FuncBuilder, lit } from '../../src/ir/builder.js';
import type { Func } from '../../src/ir/types.js';
import { jvpFunc, vjpFunc } from '../../src/passes/autodiff.js';
import { kernelProgram } from '../../src/passes/pipeline.js';
import { simplify } from '../../src/passes/simplify.js';
import { vmapFunc } from '../../src/passes/vmap.js';
import { printFunc } from '../../src/ir/printer.js';
import { renderJs } from '../../src/codegen/js.js';
import type { Program } from '../../src/ir/kernel.js';
import type { ProgramSpec } from '../../runtime/program.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import { runProgram } from '../../runtime/control.js';
import * as rt from '../../runtime/index.js';

const f32 = (...shape: number[]) => ({ shape, dtype: 'float32' as const });
const i32 = { shape: [], dtype: 'int32' as const };

/** body(c, x) = (sin(c) * x, c): a scan body with one carry and one y. */
function scanBody(): Func {
  const b = new FuncBuilder('body');
  const c = b.addParam(f32());
  const x = b.addParam(f32());
  return b.finish([b.bind1('mul', [b.bind1('sin', [c]), x]), c]);
}

/** f(c0, xs) = scan(body, c0, xs): (final carry, stacked ys). */
function scanFunc(n: number): Func {
  const b = new FuncBuilder('f');
  const c0 = b.addParam(f32());
  const xs = b.addParam(f32(n));
  const outs = b.bind('scan', [c0, xs], { jaxpr: scanBody(), length: n, reverse: false, unroll: 1, num_consts: 0, num_carry: 1 });
  return b.finish(outs);
}

/** f(i, x) = cond(i, [x + 1, x * 2]). */
function condFunc(): Func {
  const br = (prim: 'add' | 'mul', v: number): Func => {
    const b = new FuncBuilder(`b_${prim}`);
    const x = b.addParam(f32());
    return b.finish([b.bind1(prim, [x, lit(v, 'float32')])]);
  };
  const b = new FuncBuilder('f');
  const i = b.addParam(i32);
  const x = b.addParam(f32());
  return b.finish(b.bind('cond', [i, x], { branches: [br('add', 1), br('mul', 2)] }));
}

/** The program's ProgramSpec, its kernels rendered to JS (the CPU backend runs them). */
function spec(p: Program): ProgramSpec {
  return {
    ...p,
    kernels: p.kernels.map((k, i) => {
      const { source, helpers } = renderJs(k, `k${i}`, false);
      const names = [...helpers];
      // the generated kernel function, with the runtime helpers it calls (as the generated module imports them)
      const cpu = new Function(...names, `${source}; return k${i};`)(...names.map((n) => (rt as Record<string, unknown>)[n])) as ProgramSpec['kernels'][number]['cpu'];
      return { ...k, wgsl: '', cpu };
    }),
    programs: p.programs?.map(spec),
  } as ProgramSpec;
}

async function run(f: Func, args: number[][], dtypes: ('float32' | 'int32')[]): Promise<number[][]> {
  const be = new CpuBackend();
  const bufs = args.map((a, i) => be.upload(0, dtypes[i]!, dtypes[i] === 'int32' ? Int32Array.from(a) : Float32Array.from(a)));
  const [outs] = await runProgram(be, spec(kernelProgram(simplify(f))), [0], [bufs]);
  return Promise.all(outs!.map(async (o) => [...(await be.read(o))]));
}

describe('control flow programs', () => {
  it('a scan compiles to one scan step over its body program (a loop, not unrolled)', () => {
    const p = kernelProgram(scanFunc(1000));
    expect(p.steps.map((s) => s.kind)).toEqual(['scan']);
    expect(p.programs).toHaveLength(1);
    expect(p.programs![0]!.kernels.length).toBeLessThanOrEqual(2);
  });

  it('straight-line code around a control step becomes call steps', () => {
    const b = new FuncBuilder('f');
    const x = b.addParam(f32());
    const i = b.bind1('convert_element_type', [b.bind1('gt', [x, lit(0, 'float32')])], { new_dtype: 'int32', weak_type: false });
    const [y] = b.bind('cond', [i, x], { branches: condFunc().eqns[0]!.params['branches'] });
    const f = b.finish([b.bind1('neg', [y!])]);
    expect(kernelProgram(f).steps.map((s) => s.kind)).toEqual(['call', 'cond', 'call']);
  });

  it('the step executor runs scan, cond and while on the CPU backend', async () => {
    const [c, ys] = await run(scanFunc(3), [[0.5], [1, 2, 3]], ['float32', 'float32']);
    let ref = Math.fround(0.5);
    const refYs: number[] = [];
    for (const x of [1, 2, 3]) {
      refYs.push(ref);
      ref = Math.fround(Math.fround(Math.sin(ref)) * x);
    }
    expect(ys).toEqual(refYs);
    expect(c![0]).toBeCloseTo(ref, 5);
    expect(await run(condFunc(), [[0], [3]], ['int32', 'float32'])).toEqual([[4]]);
    expect(await run(condFunc(), [[7], [3]], ['int32', 'float32'])).toEqual([[6]]);
    // while c < 100: c = c * 3
    const cb = new FuncBuilder('cond');
    const cc = cb.addParam(f32());
    const bb = new FuncBuilder('body');
    const bc = bb.addParam(f32());
    const b = new FuncBuilder('w');
    const x = b.addParam(f32());
    const w = b.finish(
      b.bind('while', [x], {
        cond_jaxpr: cb.finish([cb.bind1('lt', [cc, lit(100, 'float32')])]),
        cond_nconsts: 0,
        body_jaxpr: bb.finish([bb.bind1('mul', [bc, lit(3, 'float32')])]),
        body_nconsts: 0,
      }),
    );
    expect(await run(w, [[1]], ['float32'])).toEqual([[243]]);
  });

  it('the IR printer shows sub-functions nested', () => {
    expect(printFunc(condFunc())).toContain('branches=(b_add = { lambda ; a:f32[]. let');
  });
});

describe('control flow rules', () => {
  it('vmap: a batched cond index becomes a select_n of both branches', () => {
    const bf = vmapFunc(condFunc(), [true, true], 4);
    expect(bf.eqns.some((e) => e.prim === 'cond')).toBe(false);
    expect(bf.eqns.at(-1)!.prim).toBe('select_n');
    expect(vmapFunc(condFunc(), [false, true], 4).eqns.map((e) => e.prim)).toEqual(['cond']);
  });

  it('vmap: a scan moves the batch axis of xs behind the scanned one', () => {
    const bf = vmapFunc(scanFunc(5), [true, true], 3);
    expect(bf.eqns.map((e) => e.prim)).toEqual(['transpose', 'scan', 'transpose']);
    expect(bf.results.map((r) => r.aval.shape)).toEqual([[3], [3, 5]]);
  });

  it('grad of a scan: a forward scan stacking residuals, then a reverse scan of the transposed body', () => {
    const f = scanFunc(4);
    const b = new FuncBuilder('loss');
    const c0 = b.addParam(f32());
    const xs = b.addParam(f32(4));
    const [c] = b.inline(f, [c0, xs]);
    const g = vjpFunc(b.finish([c!]), [true, true]);
    const scans = g.eqns.filter((e) => e.prim === 'scan');
    expect(scans).toHaveLength(2);
    expect(scans.map((e) => e.params['reverse'])).toEqual([false, true]);
    expect(g.results.map((r) => r.aval.shape)).toEqual([[], [], [4]]);
  });

  it('jvp of a while carries its tangent in a while; its transpose is JAX\'s error', () => {
    const cb = new FuncBuilder('cond');
    const cc = cb.addParam(f32());
    const bb = new FuncBuilder('body');
    const bc = bb.addParam(f32());
    const b = new FuncBuilder('w');
    const x = b.addParam(f32());
    const w = b.finish(
      b.bind('while', [x], {
        cond_jaxpr: cb.finish([cb.bind1('lt', [cc, lit(100, 'float32')])]),
        cond_nconsts: 0,
        body_jaxpr: bb.finish([bb.bind1('sin', [bc])]),
        body_nconsts: 0,
      }),
    );
    const j = jvpFunc(w, [true]);
    expect(j.eqns.filter((e) => e.prim === 'while').map((e) => e.outputs.length)).toEqual([1, 2]);
    expect(() => vjpFunc(w, [true])).toThrow(/Reverse-mode differentiation does not work for lax.while_loop/);
  });
});
