// Worker threads for the CPU backend's WebAssembly kernels: helpers that share
// the engine's memory (a shared WebAssembly.Memory) and run chunks of a job
// while the calling thread runs chunks too and then waits (Atomics.wait; a
// spin where the thread may not block, as a browser page's main thread).
//
// Threads exist in Node (worker_threads) and in browsers whose page is
// cross-origin isolated (SharedArrayBuffer); elsewhere, or with
// JAXTS_CPU_THREADS=1, every job runs on the calling thread alone. A helper
// that has not started yet simply takes no chunks, so kernels never wait for
// start-up, and what a chunk computes does not depend on which thread ran it:
// results are the same bit for bit with any number of threads.
//
// The job protocol lives in a small shared Int32Array (`ctl`):
//   SEQ    the job number, bumped (and notified) when a job is posted
//   NEXT   tag·2^16 + the next chunk to take; the tag is the job number mod 2^15, so
//          a helper that wakes late for a finished job can never take a chunk of the next
//   DONE   chunks finished in this job (the poster waits for it to reach CHUNKS)
//   CHUNKS the job's chunk count; ARGS… the job's arguments, read by the chunk function
// A job's chunk function is plain JS over the module's exports and `ctl` (its
// source travels to the helpers as text: it must use nothing but its
// parameters), so a helper needs nothing but the module, the memory, `ctl`
// and that function.

const SEQ = 0;
const NEXT = 1;
const DONE = 2;
const CHUNKS = 3;
/** Chunks the helpers have run, all jobs together (a statistic). */
const HELPED = 4;
/** The first argument slot; a job has at most ARG_SLOTS arguments. */
export const ARGS = 5;
const ARG_SLOTS = 27;

/** A job's chunk function: chunk i of the job whose arguments are ctl[ARGS…], run on the module's exports. */
export type ChunkFn = (exports: WebAssembly.Exports, ctl: Int32Array, i: number) => void;

/** What a helper runs: instantiate the module on the shared memory, then take chunks of each job. */
const helperSource = (chunkFn: ChunkFn): string => `
const chunkFn = (${chunkFn.toString()});
const start = ({ module, memory, ctl }) => {
  const inst = new WebAssembly.Instance(module, { m: { mem: memory } });
  const chunk = (i) => chunkFn(inst.exports, c, i);
  const c = new Int32Array(ctl);
  let seen = Atomics.load(c, ${SEQ});
  for (;;) {
    Atomics.wait(c, ${SEQ}, seen);
    const s = Atomics.load(c, ${SEQ});
    seen = s;
    const tag = (s & 0x7fff) * 65536;
    const n = Atomics.load(c, ${CHUNKS});
    for (;;) {
      const cur = Atomics.load(c, ${NEXT});
      if (cur - (cur & 0xffff) !== tag || (cur & 0xffff) >= n) break;
      if (Atomics.compareExchange(c, ${NEXT}, cur, cur + 1) !== cur) continue;
      chunk(cur & 0xffff);
      Atomics.add(c, ${HELPED}, 1);
      if (Atomics.add(c, ${DONE}, 1) + 1 === n) Atomics.notify(c, ${DONE});
    }
  }
};
if (typeof process !== 'undefined' && process.getBuiltinModule) {
  start(process.getBuiltinModule('node:worker_threads').workerData);
} else {
  self.onmessage = (e) => start(e.data);
}
`;

/** A pool of helpers for one shared module and memory. */
export class ThreadPool {
  private readonly ctl = new Int32Array(new SharedArrayBuffer((ARGS + ARG_SLOTS) * 4));
  private seq = 0;
  private readonly canBlock: boolean;

  private constructor(readonly helpers: number) {
    let block = true;
    try {
      Atomics.wait(this.ctl, SEQ, 1, 0); // throws where this thread may not block
    } catch {
      block = false;
    }
    this.canBlock = block;
  }

  /**
   * Start `helpers` threads running `module` (which imports m.mem) on `memory`, taking chunks
   * with `chunkFn`; null where threads cannot run here.
   */
  static start(module: WebAssembly.Module, memory: WebAssembly.Memory, helpers: number, chunkFn: ChunkFn): ThreadPool | null {
    if (helpers < 1) return null;
    const pool = new ThreadPool(helpers);
    const data = { module, memory, ctl: pool.ctl.buffer };
    const HELPER_SOURCE = helperSource(chunkFn);
    try {
      const wt = nodeWorkerThreads();
      for (let i = 0; i < helpers; i++) {
        if (wt) {
          const w = new wt.Worker(HELPER_SOURCE, { eval: true, workerData: data });
          w.unref(); // helpers never keep the process alive
        } else {
          const url = URL.createObjectURL(new Blob([HELPER_SOURCE], { type: 'text/javascript' }));
          new Worker(url).postMessage(data);
        }
      }
    } catch {
      return null;
    }
    return pool;
  }

  /** Chunks the helper threads have run so far. */
  get helperChunks(): number {
    return Atomics.load(this.ctl, HELPED);
  }

  /**
   * Run chunks 0…n−1 of a job (arguments in `args`, read by the chunk function from
   * ctl[ARGS…]); `run(i)` runs chunk i on this thread. Returns when every chunk has run.
   */
  run(n: number, args: number[], run: (ctl: Int32Array, i: number) => void): void {
    if (args.length > ARG_SLOTS) throw new Error('internal: a thread job with too many arguments');
    const c = this.ctl;
    this.seq = (this.seq + 1) & 0x7fffffff;
    const tag = (this.seq & 0x7fff) * 65536;
    // NEXT first: a helper still looking at the last job can take nothing from now on
    Atomics.store(c, NEXT, tag);
    Atomics.store(c, DONE, 0);
    Atomics.store(c, CHUNKS, n);
    args.forEach((a, i) => Atomics.store(c, ARGS + i, a));
    Atomics.store(c, SEQ, this.seq);
    Atomics.notify(c, SEQ);
    for (;;) {
      const cur = Atomics.load(c, NEXT);
      if ((cur & 0xffff) >= n) break;
      if (Atomics.compareExchange(c, NEXT, cur, cur + 1) !== cur) continue;
      run(c, cur & 0xffff);
      Atomics.add(c, DONE, 1);
    }
    for (;;) {
      const d = Atomics.load(c, DONE);
      if (d >= n) break;
      if (this.canBlock) Atomics.wait(c, DONE, d);
    }
  }
}

interface WorkerThreads {
  Worker: new (src: string, opts: { eval: boolean; workerData: unknown }) => { unref(): void };
}

/** node:worker_threads where this is Node, else null (a browser). */
function nodeWorkerThreads(): WorkerThreads | null {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return (p?.getBuiltinModule?.('node:worker_threads') as WorkerThreads | undefined) ?? null;
}

/**
 * How many helper threads to start besides the calling one: JAXTS_CPU_THREADS − 1 when set,
 * else the machine's parallelism − 1 (at most 7); 0 where shared memory is not available
 * (a browser page that is not cross-origin isolated).
 */
export function helperCount(): number {
  const g = globalThis as { process?: { env?: Record<string, string | undefined>; getBuiltinModule?: (id: string) => unknown }; crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } };
  if (typeof SharedArrayBuffer === 'undefined') return 0;
  const node = g.process?.getBuiltinModule !== undefined;
  if (!node && (g.crossOriginIsolated !== true || typeof Worker === 'undefined')) return 0;
  const env = Number(g.process?.env?.['JAXTS_CPU_THREADS']);
  if (Number.isInteger(env) && env >= 1) return Math.min(env, 64) - 1;
  const os = node ? (g.process!.getBuiltinModule!('node:os') as { availableParallelism?: () => number; cpus: () => unknown[] }) : null;
  const cores = os ? (os.availableParallelism?.() ?? os.cpus().length) : (g.navigator?.hardwareConcurrency ?? 1);
  return Math.max(0, Math.min(cores, 8) - 1);
}
