// Programs with control flow (cond / while / scan equations): the Func is cut
// at each control-flow equation; the straight-line runs between them become
// sub-programs (fused and planned as any program), each control equation a
// step over the sub-programs of its branches or bodies (compiled the same
// way, recursively). runtime/control.ts runs the steps; loops stay loops.
import type { BufferSpec, BufRef, Program, StepSpec } from '../ir/kernel.js';
import { isControl } from '../ir/prims.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { size } from '../ir/types.js';

/** Does `f` hold a control-flow equation (then it compiles through controlProgram)? */
export const hasControl = (f: Func): boolean => f.eqns.some((e) => isControl(e.prim));

/**
 * `f` with every literal result (and literal control-flow operand) made by a
 * broadcast: programs read and write buffers only.
 */
export function materializeLiterals(f: Func): Func {
  let next = 0;
  for (const v of [...f.params, ...f.eqns.flatMap((e) => e.outputs)]) next = Math.max(next, v.id + 1);
  const eqns: Eqn[] = [];
  const make = (a: Atom): Var => {
    const v: Var = { kind: 'var', id: next++, aval: a.aval };
    eqns.push({ prim: 'broadcast_in_dim', inputs: [a], outputs: [v], params: { shape: [], broadcast_dimensions: [] } });
    return v;
  };
  for (const e of f.eqns) {
    if (isControl(e.prim) && e.inputs.some((a) => a.kind === 'lit')) eqns.push({ ...e, inputs: e.inputs.map((a) => (a.kind === 'lit' ? make(a) : a)) });
    else eqns.push(e);
  }
  const results = f.results.map((a) => (a.kind === 'lit' ? make(a) : a));
  return eqns.length === f.eqns.length && results.every((r, i) => r === f.results[i]) ? f : { ...f, eqns, results };
}

/** The program of a Func with control flow; `compile` compiles any Func (the sub-programs). */
export function controlProgram(f: Func, compile: (g: Func) => Program): Program {
  const paramIndex = new Map<number, number>(f.params.map((p, i) => [p.id, i]));
  const bufOf = new Map<number, number>();
  const buffers: BufferSpec[] = [];
  const programs: Program[] = [];
  const steps: StepSpec[] = [];
  const ref = (a: Atom): BufRef => {
    if (a.kind === 'lit') throw new Error('internal: a literal operand of a control-flow step');
    const p = paramIndex.get(a.id);
    if (p !== undefined) return { kind: 'param', index: p };
    const b = bufOf.get(a.id);
    if (b === undefined) throw new Error(`internal: var ${a.id} read before it is computed`);
    return { kind: 'buf', index: b };
  };
  const define = (vs: Var[]): number[] =>
    vs.map((v) => {
      const b = buffers.push({ dtype: v.aval.dtype, size: size(v.aval.shape) }) - 1;
      bufOf.set(v.id, b);
      return b;
    });
  const sub = (g: Func, name: string): number => programs.push(compile({ ...g, name, axisEnv: g.axisEnv ?? f.axisEnv })) - 1;

  // which vars each position still needs: read by a later equation or a result
  const neededAfter: Set<number>[] = [];
  const live = new Set<number>(f.results.filter((r): r is Var => r.kind === 'var').map((r) => r.id));
  for (let i = f.eqns.length - 1; i >= 0; i--) {
    neededAfter[i] = new Set(live);
    for (const a of f.eqns[i]!.inputs) if (a.kind === 'var') live.add(a.id);
  }

  let run: Eqn[] = [];
  let runEnd = -1;
  const flush = (): void => {
    if (!run.length) return;
    const defined = new Set(run.flatMap((e) => e.outputs.map((o) => o.id)));
    const params: Var[] = [];
    for (const e of run) for (const a of e.inputs) if (a.kind === 'var' && !defined.has(a.id) && !params.some((p) => p.id === a.id)) params.push(a);
    const results = run.flatMap((e) => e.outputs).filter((o) => neededAfter[runEnd]!.has(o.id));
    if (results.length) {
      const k = sub({ name: '', params, eqns: run, results }, `${f.name}_s${programs.length}`);
      steps.push({ kind: 'call', program: k, inputs: params.map(ref), outputs: define(results) });
    }
    run = [];
  };
  f.eqns.forEach((e, i) => {
    if (!isControl(e.prim)) {
      run.push(e);
      runEnd = i;
      return;
    }
    flush();
    const name = `${f.name}_${e.prim}${programs.length}`;
    if (e.prim === 'cond') {
      const branches = (e.params['branches'] as Func[]).map((b, k) => sub(b, `${name}_b${k}`));
      const [index, ...ins] = e.inputs;
      steps.push({ kind: 'cond', index: ref(index!), branches, inputs: ins.map(ref), outputs: define(e.outputs) });
    } else if (e.prim === 'while') {
      const nc = e.params['cond_nconsts'] as number;
      const nb = e.params['body_nconsts'] as number;
      steps.push({
        kind: 'while',
        cond: sub(e.params['cond_jaxpr'] as Func, `${name}_cond`),
        body: sub(e.params['body_jaxpr'] as Func, `${name}_body`),
        condConsts: e.inputs.slice(0, nc).map(ref),
        bodyConsts: e.inputs.slice(nc, nc + nb).map(ref),
        init: e.inputs.slice(nc + nb).map(ref),
        outputs: define(e.outputs),
      });
    } else {
      const nConsts = e.params['num_consts'] as number;
      const nCarry = e.params['num_carry'] as number;
      steps.push({
        kind: 'scan',
        body: sub(e.params['jaxpr'] as Func, `${name}_body`),
        length: e.params['length'] as number,
        reverse: e.params['reverse'] === true,
        consts: e.inputs.slice(0, nConsts).map(ref),
        init: e.inputs.slice(nConsts, nConsts + nCarry).map(ref),
        xs: e.inputs.slice(nConsts + nCarry).map(ref),
        outputs: define(e.outputs),
      });
    }
  });
  flush();
  return {
    name: f.name,
    params: f.params.map((p) => ({ dtype: p.aval.dtype, size: size(p.aval.shape) })),
    paramShapes: f.params.map((p) => [...p.aval.shape]),
    buffers,
    kernels: [],
    steps,
    results: f.results.map(ref),
    resultShapes: f.results.map((r) => [...r.aval.shape]),
    axisSize: f.axisEnv?.reduce((a, x) => a * x.size, 1) ?? 0,
    programs,
  };
}
