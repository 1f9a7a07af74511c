// Collectives between the simulated devices' buffers (CPU backend), by
// primitive name. The WebGPU backend runs the same reductions as kernels.
import type { CpuBuffer } from './program.js';

type CollectiveFn = (params: Record<string, unknown>, ins: CpuBuffer[], outs: CpuBuffer[]) => void;

const reduceAll =
  (combine: (a: number, b: number) => number): CollectiveFn =>
  (_p, ins, outs) => {
    const n = ins[0]!.length;
    for (let i = 0; i < n; i++) {
      let acc = ins[0]![i]!;
      for (let d = 1; d < ins.length; d++) acc = combine(acc, ins[d]![i]!);
      for (const o of outs) o[i] = acc;
    }
  };

export const COLLECTIVES: Record<string, CollectiveFn> = {
  psum: reduceAll((a, b) => Math.fround(a + b)),
  pmax: reduceAll((a, b) => (a !== a || a > b ? a : b)),
  pmin: reduceAll((a, b) => (a !== a || a < b ? a : b)),
};

export function runCollective(prim: string, params: Record<string, unknown>, ins: CpuBuffer[], outs: CpuBuffer[]): void {
  const fn = COLLECTIVES[prim];
  if (!fn) throw new Error(`collective '${prim}' is not supported by this runtime`);
  fn(params, ins, outs);
}
