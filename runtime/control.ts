// The control-flow step executor: runs a program whose steps are lax.cond,
// while_loop and scan (and straight-line sub-programs between them) on any
// backend, by running its sub-programs through Backend.run. Loops stay
// loops here: a 10,000-step scan is 10,000 calls of one body program. A
// scan's trip count is static (no readback); a while predicate and a cond
// index are read back per step. Devices of one run move in lockstep (a
// collective in a body needs them all): a while loop runs until every
// device's predicate is false, a device whose predicate is false keeping its
// carry; a cond runs each branch some device picked and each device keeps
// its own branch's results. A loop releases what each iteration supersedes
// (the previous carry, a scan's row views, a while predicate), so a long
// loop runs in flat memory.
import type { Backend, DeviceBuffer } from './backend.js';
import type { BufRef, ProgramSpec } from './program.js';
import { newCpuBuffer } from './program.js';

/**
 * Result handles that the caller can own and release: one that is an input's
 * handle (a program returning its parameter), or that appears twice, becomes
 * a handle of its own on the same memory.
 */
export function ownResults(backend: Backend, outs: DeviceBuffer[][], inputs: readonly (readonly DeviceBuffer[])[]): DeviceBuffer[][] {
  const seen = new Set(inputs.flat());
  return outs.map((o) =>
    o.map((b) => {
      if (seen.has(b)) return backend.share(b);
      seen.add(b);
      return b;
    }),
  );
}

/** Run `program` once per device in `devices` (`args[d]`: device d's parameters); straight-line programs go to the backend as they are. */
export async function runProgram(backend: Backend, program: ProgramSpec, devices: number[], args: DeviceBuffer[][], inLoop = false): Promise<DeviceBuffer[][]> {
  const subs = program.programs;
  if (!subs) return backend.run(program, devices, args, inLoop);
  const bufs: DeviceBuffer[][] = devices.map(() => []);
  const get = (d: number, r: BufRef): DeviceBuffer => (r.kind === 'param' ? args[d]![r.index]! : bufs[d]![r.index]!);
  const gets = (rs: BufRef[]): DeviceBuffer[][] => devices.map((_, d) => rs.map((r) => get(d, r)));
  const put = (outputs: number[], res: DeviceBuffer[][]): void => devices.forEach((_, d) => outputs.forEach((o, j) => (bufs[d]![o] = res[d]![j]!)));
  const cat = (a: DeviceBuffer[][], b: DeviceBuffer[][]): DeviceBuffer[][] => a.map((x, d) => [...x, ...b[d]!]);
  /** Handles this call made: those it does not return are released at the end. */
  const mine = new Set<DeviceBuffer>();
  const made = (bs: DeviceBuffer[][]): DeviceBuffer[][] => (bs.forEach((b) => b.forEach((x) => mine.add(x))), bs);
  /** A sub-program's results, each a handle of the caller's own. */
  const run = async (p: number, ins: DeviceBuffer[][]): Promise<DeviceBuffer[][]> => made(ownResults(backend, await runProgram(backend, subs[p]!, devices, ins, true), ins));
  const release = (bs: DeviceBuffer[]): void => bs.forEach((b) => backend.release(b));
  /** The first element of each device's scalar. */
  const scalars = (bs: DeviceBuffer[]): Promise<number[]> => Promise.all(bs.map(async (b) => (await backend.read(b))[0]!));

  for (const step of program.steps) {
    switch (step.kind) {
      case 'call':
        put(step.outputs, await run(step.program, gets(step.inputs)));
        break;
      case 'cond': {
        const n = step.branches.length;
        const picks = (await scalars(devices.map((_, d) => get(d, step.index)))).map((i) => Math.min(Math.max(i | 0, 0), n - 1));
        const ins = gets(step.inputs);
        const outs = new Map<number, DeviceBuffer[][]>();
        for (const k of new Set(picks)) outs.set(k, await run(step.branches[k]!, ins));
        put(step.outputs, devices.map((_, d) => outs.get(picks[d]!)![d]!));
        break;
      }
      case 'while': {
        const cc = gets(step.condConsts);
        const bc = gets(step.bodyConsts);
        let carry = gets(step.init);
        /** Per device: whether its carry was made by the loop (and is released once superseded). */
        const fresh = devices.map(() => false);
        for (;;) {
          const pred = await run(step.cond, cat(cc, carry));
          const go = (await scalars(pred.map((r) => r[0]!))).map((v) => v !== 0);
          pred.forEach(release);
          if (!go.some((g) => g)) break;
          const next = await run(step.body, cat(bc, carry));
          carry = carry.map((c, d) => {
            if (!go[d]) return release(next[d]!), c;
            if (fresh[d]) release(c);
            fresh[d] = true;
            return next[d]!;
          });
        }
        put(step.outputs, carry);
        break;
      }
      case 'scan': {
        const body = subs[step.body]!;
        const consts = gets(step.consts);
        let carry = gets(step.init);
        const xs = gets(step.xs);
        const nc = step.init.length;
        const yOut = step.outputs.slice(nc);
        // per device, per y: the rows in index order
        const ys: DeviceBuffer[][][] = devices.map(() => yOut.map(() => new Array<DeviceBuffer>(step.length)));
        for (let k = 0; k < step.length; k++) {
          const i = step.reverse ? step.length - 1 - k : k;
          const rows = xs.map((xd, d) =>
            xd.map((x, j) => {
              const n = body.params[nc + consts[d]!.length + j]!.size;
              return backend.copy(x, devices[d]!, i * n, n);
            }),
          );
          const ins = devices.map((_, d) => [...consts[d]!, ...carry[d]!, ...rows[d]!]);
          const out = made(ownResults(backend, await runProgram(backend, body, devices, ins, true), ins));
          rows.forEach(release);
          if (k > 0) carry.forEach(release);
          carry = out.map((o) => o.slice(0, nc));
          out.forEach((o, d) => o.slice(nc).forEach((y, j) => (ys[d]![j]![i] = y)));
        }
        const stacked = made(devices.map((dev, d) =>
          yOut.map((o, j) => {
            const parts = ys[d]![j]!;
            if (!parts.length) return backend.upload(dev, program.buffers[o]!.dtype, newCpuBuffer(program.buffers[o]!.dtype, 0));
            const whole = backend.concat(parts, dev);
            release(parts);
            return whole;
          }),
        ));
        put(step.outputs, cat(carry, stacked));
        break;
      }
      default:
        throw new Error(`internal: ${program.name}: a ${step.kind} step beside control-flow steps (straight-line parts are sub-programs)`);
    }
  }
  const results = devices.map((_, d) => program.results.map((r) => get(d, r)));
  const kept = new Set(results.flat());
  mine.forEach((b) => kept.has(b) || backend.release(b));
  return results;
}
