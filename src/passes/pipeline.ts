// The backend pipeline, one entry for the compiler: every program request the
// lowering recorded becomes a compiled program, through
//   simplify → partition (GSPMD, for requests over a mesh) → NaN checks
//   (under jax_debug_nans) → collective lowering → fusion → buffer plan.
// Programs that come out the same (one jit function called from several
// places, an export beside main()'s call) are compiled once; the host
// program's references to a duplicate are pointed at the first.
import { walkHost, type CompiledProgram, type HostProgram, type ProgramRequest } from '../ir/host.js';
import type { Program } from '../ir/kernel.js';
import { printFunc } from '../ir/printer.js';
import { sameShardings, type DimShardings, type SpmdProgram } from '../ir/sharding.js';
import type { Func } from '../ir/types.js';
import { lowerCollectives } from './collectives.js';
import { controlProgram, hasControl, materializeLiterals } from './control.js';
import { markFma, markFmaInBodies } from './fma_contraction.js';
import { fuse, planBuffers } from './fusion.js';
import { withNanChecks } from './nan_checks.js';
import { simplify } from './simplify.js';
import { expandCustomCalls } from './autodiff.js';
import { hasComplex, splitComplex } from './complex.js';
import { lowerSorts } from './sort_lowering.js';
import { partition } from './spmd.js';

/** Run the backend passes over every program of `hp` (duplicates once; `hp`'s references follow). */
export function compilePrograms(hp: HostProgram): CompiledProgram[] {
  // XLA compiles jit and pmap bodies whole, with its CPU code's fused multiply-adds (a host segment is JAX's op-by-op execution)
  return dedupe(hp, hp.programs.map(devicePrograms)).map((p) => {
    const func = p.kind === 'segment' ? markFmaInBodies(p.func) : markFma(p.func);
    return { ...p, program: kernelProgram({ ...func, name: p.name }) };
  });
}

/**
 * The kernels of one per-device program: sort and collective lowering →
 * fusion → buffer plan; a program with control flow becomes steps over
 * sub-programs compiled the same way (passes/control.ts).
 */
export function kernelProgram(func: Func): Program {
  const f = materializeLiterals(func);
  if (hasControl(f)) {
    if (hasComplex(f)) throw new Error(`NotImplementedError: jaxts does not run control flow (cond, while_loop, scan) over complex64 values yet (program ${f.name})`);
    return controlProgram(f, kernelProgram);
  }
  return complexBuffers(f, planBuffers(fuse(lowerCollectives(lowerSorts(splitComplex(f))))));
}

/**
 * The complex64 parameters and results of `f` in its kernel program `p`: each is one buffer of
 * interleaved (re, im) float32 pairs (passes/complex.ts), typed complex64 with f's shape, so that
 * the runtime makes complex arrays of them (a complex64 buffer's size counts its float32 slots).
 */
function complexBuffers(f: Func, p: Program): Program {
  if (!hasComplex(f)) return p;
  const params = p.params.map((b, i) => (f.params[i]!.aval.dtype === 'complex64' ? { ...b, dtype: 'complex64' as const } : b));
  const paramShapes = p.paramShapes.map((s, i) => (f.params[i]!.aval.dtype === 'complex64' ? [...f.params[i]!.aval.shape] : s));
  const buffers = [...p.buffers];
  f.results.forEach((r, i) => {
    const ref = p.results[i]!;
    if (r.aval.dtype === 'complex64' && ref.kind === 'buf') buffers[ref.index] = { ...buffers[ref.index]!, dtype: 'complex64' };
  });
  return { ...p, params, paramShapes, buffers, resultShapes: f.results.map((r) => [...r.aval.shape]) };
}

type DeviceProgram = Omit<CompiledProgram, 'program'>;

/** The per-device program of a request: simplify, partition, NaN checks. */
function devicePrograms(req: ProgramRequest): DeviceProgram {
  const { name, kind } = req;
  // a primitive the program defined is a call of its computation (a custom_jvp_call whose rules are no longer needed)
  let func = simplify(expandCustomCalls(req.func), kind !== 'segment');
  let spmd: SpmdProgram | undefined;
  if (req.mesh) {
    spmd = partition(func, req.mesh.shape, req.mesh.inShardings, req.mesh.outShardings ?? [], req.mesh.unreduced);
    // the host call was built with the layouts the lowering saw; the partitioner must agree
    const seen = req.mesh.traced;
    const agree = (a: DimShardings[], b: DimShardings[]) => a.length === b.length && a.every((d, i) => sameShardings(d, b[i]!));
    if (!agree(seen.inShardings, spmd.inShardings) || !agree(seen.outShardings, spmd.outShardings)) {
      throw new Error(`internal: program ${name}: the partitioned layouts differ from the traced ones`);
    }
    func = spmd.local;
  }
  // (a program over a mesh is not NaN-checked: rt.spmd lays out only the program's own results)
  if (!req.debugNans || spmd) return spmd ? { name, kind, func, spmd } : { name, kind, func };
  const checked = withNanChecks(func);
  return { name, kind, func: checked.func, nanChecks: checked.checks };
}

/** One program per distinct per-device program; the host program's references to a duplicate point at the first. */
function dedupe(hp: HostProgram, programs: DeviceProgram[]): DeviceProgram[] {
  const first = new Map<string, string>();
  const alias = new Map<string, string>();
  const unique: DeviceProgram[] = [];
  for (const p of programs) {
    const key = `${p.kind}\n${printFunc({ ...p.func, name: '_' })}`;
    const same = first.get(key);
    if (same) alias.set(p.name, same);
    else {
      first.set(key, p.name);
      unique.push(p);
    }
  }
  if (alias.size) {
    for (const body of [hp.body, ...hp.exports.map((x) => x.body)]) {
      walkHost(body, { expr: (e) => void (e.k === 'program' && alias.has(e.name) && (e.name = alias.get(e.name)!)) });
    }
  }
  return unique;
}
