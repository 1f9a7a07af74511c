// Fusion and buffer planning: Func → Program.
// Each equation is either materialised (its own kernel writing a buffer) or
// inlined into its consumers as an expression. Elementwise and movement ops
// inline into a single consumer; a value read by several consumers is
// recomputed in each of them (XLA's producer duplication) when its inlined
// expression is cheap: no reduction, dot or costly op (transcendental, PRNG)
// and at most MAX_DUPLICATE_COST arithmetic nodes, duplicates included.
// A reduction or dot counts its loop's iterations in that cost, so a short
// one (a dot over 3 features) is recomputed like any cheap expression. An
// expression inlined into a dot is recomputed for each element of the other
// operand it meets: it materialises when that extra work passes the same cap.
// Longer ones materialise unless their single consumer is an elementwise op
// of the same shape or a bijective movement op (transpose, reshape, squeeze,
// rev, size-keeping broadcast): then they become its prologue, and still no
// element of theirs is computed twice. Results and
// values read by a device gather are always materialised. Buffers are reused
// once their last reader has run.
import type { BufferSpec, BufRef, KExpr, Kernel, Program, StepSpec } from '../ir/kernel.js';
import { isElementwise, PRIMS } from '../ir/prims.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { sameShape, size } from '../ir/types.js';
import { delinearize, linearize, type IExpr } from './index_math.js';
import { elementRule } from './index_rules.js';
import { scatterExtent } from './indexing_rules.js';
import { isDeviceGather } from './collectives.js';
import { replicaGroups } from '../ir/sharding.js';

/**
 * Longest chain of producers inlined into one kernel expression: a longer
 * chain (a Python loop adding to an array thousands of times) is cut by
 * materialising a buffer, so that kernel expressions, and the recursion that
 * builds them, stay shallow.
 */
const MAX_INLINE_DEPTH = 64;

/**
 * Largest expression (arithmetic nodes of the inlined tree, duplicates
 * included) recomputed in each of several consumers: the bound keeps a
 * diamond of multi-use values from growing kernel bodies exponentially.
 */
const MAX_DUPLICATE_COST = 20;

/** Arithmetic nodes `e` adds to an inlined expression (its operands aside). */
function ownCost(e: Eqn): number {
  if (PRIMS[e.prim].cost === 'index') return 0;
  if (e.prim === 'integer_pow') {
    // the multiplications of repeated squaring (see index_rules)
    let n = Math.abs(e.params['y'] as number);
    let muls = 0;
    for (; n > 1; n = Math.floor(n / 2)) muls += n % 2 === 1 ? 2 : 1;
    return Math.max(muls, 1);
  }
  return 1;
}

/** Iterations of the loop `e` runs per output element: a reduction's reduced extent, a dot's contraction size (1 otherwise). */
function loopExtent(e: Eqn): number {
  if (e.prim === 'dot_general') {
    const [lc] = (e.params['dimension_numbers'] as { contract: [number[], number[]] }).contract;
    return lc.reduce((n, d) => n * e.inputs[0]!.aval.shape[d]!, 1);
  }
  if (PRIMS[e.prim].cost !== 'loop') return 1;
  // a convolution's window times the input features of a group
  if (e.prim === 'conv_general_dilated') {
    const rhs = e.inputs[1]!.aval.shape;
    const outFeatures = rhs[(e.params['dimension_numbers'] as { rhs_spec: number[] }).rhs_spec[0]!]!;
    return size(rhs) / Math.max(1, outFeatures);
  }
  if (e.prim.startsWith('scatter')) return scatterExtent(e);
  return size(e.inputs[0]!.aval.shape) / Math.max(1, size(e.outputs[0]!.aval.shape));
}

/**
 * How many times `consumer` computes each element of its operand `v` when
 * `v` is inlined: once, except in a dot, which reads an operand element for
 * every element of the other operand's free dimensions.
 */
function readsPerElement(consumer: Eqn, v: Var): number {
  if (consumer.prim !== 'dot_general' && consumer.prim !== 'conv_general_dilated') return 1;
  return (size(consumer.outputs[0]!.aval.shape) * loopExtent(consumer)) / Math.max(1, size(v.aval.shape));
}

/** Movement ops whose output elements each read a distinct operand element, all of them: an expensive operand inlines without recomputing any element. */
function isBijectiveMove(e: Eqn): boolean {
  if (e.prim === 'transpose' || e.prim === 'reshape' || e.prim === 'squeeze' || e.prim === 'rev') return true;
  return e.prim === 'broadcast_in_dim' && size(e.outputs[0]!.aval.shape) === size(e.inputs[0]!.aval.shape);
}

/**
 * Storage buffers one WebGPU shader may bind: the spec's guaranteed
 * maxStorageBuffersPerShaderStage, which every adapter offers. A kernel binds
 * each buffer it reads and its output, so it reads at most
 * MAX_STORAGE_BINDINGS - 1 buffers: fusion materialises an inlined operand
 * where a kernel would read more, and splits a wider concatenate into a tree.
 */
export const MAX_STORAGE_BINDINGS = 8;
const MAX_KERNEL_INPUTS = MAX_STORAGE_BINDINGS - 1;

/** `f` with every concatenate of more than MAX_KERNEL_INPUTS operands split into a tree of narrower ones. */
function splitWideConcatenates(f: Func): Func {
  if (!f.eqns.some((e) => e.prim === 'concatenate' && e.inputs.length > MAX_KERNEL_INPUTS)) return f;
  let nextId = 1 + Math.max(0, ...f.params.map((p) => p.id), ...f.eqns.flatMap((e) => e.outputs.map((o) => o.id)));
  const eqns: Eqn[] = [];
  const split = (e: Eqn): void => {
    if (e.inputs.length <= MAX_KERNEL_INPUTS) return void eqns.push(e);
    const dim = e.params['dimension'] as number;
    const parts: Atom[] = [];
    for (let i = 0; i < e.inputs.length; i += MAX_KERNEL_INPUTS) {
      const chunk = e.inputs.slice(i, i + MAX_KERNEL_INPUTS);
      if (chunk.length === 1) {
        parts.push(chunk[0]!);
        continue;
      }
      const shape = [...chunk[0]!.aval.shape];
      shape[dim] = chunk.reduce((n, a) => n + a.aval.shape[dim]!, 0);
      const out: Var = { kind: 'var', id: nextId++, aval: { shape, dtype: e.outputs[0]!.aval.dtype } };
      eqns.push({ ...e, inputs: chunk, outputs: [out] });
      parts.push(out);
    }
    split({ ...e, inputs: parts });
  };
  for (const e of f.eqns) {
    if (e.prim === 'concatenate') split(e);
    else eqns.push(e);
  }
  return { ...f, eqns };
}

export function fuse(func: Func): FusedFunc {
  const f = splitWideConcatenates(func);
  const producer = new Map<number, Eqn>();
  const uses = new Map<number, number>();
  const consumers = new Map<number, Eqn[]>();
  for (const e of f.eqns) {
    for (const o of e.outputs) producer.set(o.id, e);
    for (const a of e.inputs) {
      if (a.kind !== 'var') continue;
      uses.set(a.id, (uses.get(a.id) ?? 0) + 1);
      consumers.set(a.id, [...(consumers.get(a.id) ?? []), e]);
    }
  }
  for (const r of f.results) if (r.kind === 'var') uses.set(r.id, (uses.get(r.id) ?? 0) + 1);

  // Decide what inlines (per output var); `expensive` marks expressions that
  // contain a reduction, `costly` ones with a costly op.
  const inline = new Set<number>();
  const expensive = new Set<number>();
  const costly = new Set<number>();
  const resultIds = new Set(f.results.filter((r): r is Var => r.kind === 'var').map((r) => r.id));
  // inlined producers below each var, along the longest chain
  const depth = new Map<number, number>();
  // arithmetic nodes of each var's inlined expression, duplicates included
  const cost = new Map<number, number>();
  const inlinedInputs = (e: Eqn): Var[] => e.inputs.filter((a): a is Var => a.kind === 'var' && inline.has(a.id));
  // the buffers each var's inlined expression reads (params and materialised vars)
  const leaves = new Map<number, Set<number>>();
  const leavesOf = (e: Eqn): Set<number> => {
    const out = new Set<number>();
    for (const a of e.inputs) {
      if (a.kind !== 'var') continue;
      if (inline.has(a.id)) for (const l of leaves.get(a.id)!) out.add(l);
      else out.add(a.id);
    }
    return out;
  };
  for (const e of f.eqns) {
    const isColl = isDeviceGather(e);
    // within the storage-binding limit: materialise the inlined operand reading the most buffers
    let reads = leavesOf(e);
    while (reads.size > MAX_KERNEL_INPUTS) {
      const widest = inlinedInputs(e)
        .filter((a) => leaves.get(a.id)!.size > 1)
        .sort((a, b) => leaves.get(b.id)!.size - leaves.get(a.id)!.size)[0];
      if (!widest) break;
      inline.delete(widest.id);
      reads = leavesOf(e);
    }
    const ins = inlinedInputs(e);
    const exp = PRIMS[e.prim].cost === 'loop' || ins.some((a) => expensive.has(a.id));
    const dear = PRIMS[e.prim].cost === 'costly' || ins.some((a) => costly.has(a.id));
    const d = 1 + Math.max(0, ...ins.map((a) => depth.get(a.id)!));
    // a loop recomputes its body (and the expressions inlined into it) once per iteration
    const c = loopExtent(e) * (ownCost(e) + ins.reduce((n, a) => n + cost.get(a.id)!, 0));
    for (const out of e.outputs) {
      leaves.set(out.id, reads);
      if (exp) expensive.add(out.id);
      if (dear) costly.add(out.id);
      depth.set(out.id, d);
      cost.set(out.id, c);
      const n = uses.get(out.id) ?? 0;
      if (isColl || n === 0 || resultIds.has(out.id) || d >= MAX_INLINE_DEPTH) continue;
      const cs = consumers.get(out.id)!;
      if (cs.some(isDeviceGather)) continue;
      // inlined into a dot, an expression is recomputed for every row it meets: materialise it when that extra work is not small
      if (cs.some((k) => (readsPerElement(k, out) - 1) * c > MAX_DUPLICATE_COST)) continue;
      if (n > 1) {
        // duplicate into every consumer only when recomputing is cheap (a short loop, as a dot over 3 features, counts its iterations)
        if (dear || c > MAX_DUPLICATE_COST) continue;
      } else if (exp && c > MAX_DUPLICATE_COST) {
        const consumer = cs[0]!;
        const epilogue = isElementwise(consumer.prim) && sameShape(consumer.outputs[0]!.aval.shape, out.aval.shape);
        if (!epilogue && !isBijectiveMove(consumer)) continue;
      }
      inline.add(out.id);
    }
  }

  // Build one step per materialised output; operands are named by var id
  // until buffers are planned.
  const kernels: Kernel[] = [];
  const pending: PendingStep[] = [];
  for (const e of f.eqns) {
    if (isDeviceGather(e)) {
      const src = e.inputs[0]!;
      if (src.kind !== 'var') throw new Error('internal: all_gather of a literal');
      const groups = gatherGroups(f, e.params['axis_name'] as string[]);
      pending.push(groups ? { kind: 'gather', reads: [src], out: e.outputs[0]!, groups } : { kind: 'gather', reads: [src], out: e.outputs[0]! });
      continue;
    }
    e.outputs.forEach((out, j) => {
      if (inline.has(out.id) || !uses.get(out.id)) return;
      const { kernel, reads } = buildKernel(`${f.name}_k${kernels.length}_${e.prim}`, e, j, inline, producer);
      kernels.push(kernel);
      pending.push({ kind: 'kernel', kernel: kernels.length - 1, reads, out });
    });
  }
  return { func: f, kernels, steps: pending };
}

/** Fusion's output: the kernels, and the steps in order with their operands still named by Var. */
export interface FusedFunc {
  func: Func;
  kernels: Kernel[];
  steps: PendingStep[];
}

type PendingStep =
  | { kind: 'kernel'; kernel: number; reads: Var[]; out: Var }
  | { kind: 'gather'; reads: Var[]; out: Var; groups?: number[][] };

/** The device groups of a gather over `names`, or null when it spans every device of the program's axes. */
function gatherGroups(f: Func, names: readonly string[]): number[][] | null {
  const env = f.axisEnv ?? [];
  if (env.length === names.length && env.every((a, i) => a.name === names[i])) return null;
  return replicaGroups({ axes: env, explicit: false }, names);
}

/** The kernel computing `e`'s output `outIndex`, with inlined producers folded in. */
function buildKernel(name: string, e: Eqn, outIndex: number, inline: Set<number>, producer: Map<number, Eqn>): { kernel: Kernel; reads: Var[] } {
  const out = e.outputs[outIndex]!;
  const reads: Var[] = [];
  let loops = 0;
  let usesDevice = false;
  const operandOf = (a: Atom, idx: IExpr[]): KExpr => {
    if (a.kind === 'lit') return { op: 'const', value: a.value, dtype: a.aval.dtype };
    if (inline.has(a.id)) {
      const eq = producer.get(a.id)!;
      return elementOf(eq, idx, eq.outputs.findIndex((o) => o.id === a.id));
    }
    let k = reads.findIndex((v) => v.id === a.id);
    if (k < 0) k = reads.push(a) - 1;
    return { op: 'load', input: k, index: linearize(idx, a.aval.shape), dtype: a.aval.dtype };
  };
  const elementOf = (eq: Eqn, idx: IExpr[], j: number): KExpr => {
    const rule = elementRule(eq.prim);
    if (!rule) throw new Error(`internal: no element rule for primitive '${eq.prim}'`);
    if (eq.prim === 'axis_index') usesDevice = true;
    return rule({ operand: (i, ix) => operandOf(eq.inputs[i]!, ix), freshLoop: () => loops++ }, eq, idx, j);
  };
  const n = size(out.aval.shape);
  const gid: IExpr = { op: 'gid', dtype: 'int32', bound: n };
  const body = elementOf(e, delinearize(gid, out.aval.shape), outIndex);
  const kernel: Kernel = {
    name,
    inputs: reads.map((v) => ({ dtype: v.aval.dtype, size: size(v.aval.shape) })),
    output: { dtype: out.aval.dtype, size: n },
    body,
    usesDevice,
    shape: out.aval.shape,
  };
  return { kernel, reads };
}

/** Memory planning: assign buffers to step outputs, reusing a buffer once its last reader has run. */
export function planBuffers({ func: f, kernels, steps: pending }: FusedFunc): Program {
  const paramIndex = new Map<number, number>(f.params.map((p, i) => [p.id, i]));
  const resultIds = new Set(f.results.filter((r): r is Var => r.kind === 'var').map((r) => r.id));
  const lastRead = new Map<number, number>();
  pending.forEach((s, i) => s.reads.forEach((v) => lastRead.set(v.id, i)));
  const buffers: BufferSpec[] = [];
  const bufOf = new Map<number, number>();
  const free: number[] = [];
  const refOf = (v: Var): BufRef => {
    const p = paramIndex.get(v.id);
    if (p !== undefined) return { kind: 'param', index: p };
    const b = bufOf.get(v.id);
    if (b === undefined) throw new Error(`internal: var ${v.id} read before it is computed`);
    return { kind: 'buf', index: b };
  };
  const steps: StepSpec[] = pending.map((s, i) => {
    const want: BufferSpec = { dtype: s.out.aval.dtype, size: size(s.out.aval.shape) };
    let b = -1;
    if (!resultIds.has(s.out.id)) {
      const k = free.findIndex((x) => buffers[x]!.dtype === want.dtype && buffers[x]!.size === want.size);
      if (k >= 0) b = free.splice(k, 1)[0]!;
    }
    if (b < 0) b = buffers.push(want) - 1;
    const inputs = s.reads.map(refOf);
    bufOf.set(s.out.id, b);
    for (const v of s.reads) {
      const ob = bufOf.get(v.id);
      if (lastRead.get(v.id) === i && ob !== undefined && !resultIds.has(v.id)) free.push(ob);
    }
    return s.kind === 'kernel'
      ? { kind: 'kernel', kernel: s.kernel, inputs, output: b }
      : s.groups
        ? { kind: 'gather', input: inputs[0]!, output: b, groups: s.groups }
        : { kind: 'gather', input: inputs[0]!, output: b };
  });
  const results: BufRef[] = f.results.map((r) => {
    if (r.kind === 'lit') throw new Error('internal: literal result must be materialised by the tracer');
    return refOf(r);
  });
  return {
    name: f.name,
    params: f.params.map((p) => ({ dtype: p.aval.dtype, size: size(p.aval.shape) })),
    paramShapes: f.params.map((p) => [...p.aval.shape]),
    buffers,
    kernels,
    steps,
    results,
    resultShapes: f.results.map((r) => [...r.aval.shape]),
    axisSize: f.axisEnv?.reduce((a, x) => a * x.size, 1) ?? 0,
  };
}
