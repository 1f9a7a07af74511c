// The fuzz run, shared by test/fuzz/fuzz.test.ts and scripts/fuzz.mjs: the
// variants of every fixture program (variant i is fixture i mod F, its
// (i div F)-th mutation, so that any count spreads evenly), compiled in
// worker threads (worker.ts, bundled by the caller) under a watchdog: a
// synchronous compile cannot be interrupted in-process, so a variant that
// gives no result within `hangMs` has its worker terminated and is reported
// as a hang, and the run goes on after it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { check, quote, reduce } from './check.js';
import { variant } from './mutate.js';

export interface Fixture {
  name: string;
  text: string;
}

export interface Job {
  seed: number;
  fixtures: Fixture[];
  indices: number[];
  limitMs: number;
}

export type Msg =
  | { k: 'start'; i: number }
  | { k: 'crash'; i: number; signature: string; detail: string; ms: number }
  | { k: 'ok'; i: number; ms: number }
  | { k: 'done' };

/** Every `.py` under `root`/fixtures (error fixtures included), sorted by path. */
export function fixturePrograms(root: string): Fixture[] {
  const out: Fixture[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.py')) out.push({ name: relative(root, p), text: readFileSync(p, 'utf8') });
    }
  };
  walk(join(root, 'fixtures'));
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Variant i of a run: fixture i mod F, its (i div F)-th mutation. */
export function variantOf(seed: number, fixtures: Fixture[], i: number): { fixture: Fixture; index: number; text: string; applied: string[] } {
  const fixture = fixtures[i % fixtures.length]!;
  const index = Math.floor(i / fixtures.length);
  return { fixture, index, ...variant(fixture.text, seed, fixture.name, index) };
}

export interface Crash {
  signature: string;
  /** How many variants crashed with this signature. */
  count: number;
  /** The first of them. */
  i: number;
  detail: string;
  text: string;
}

export interface FuzzReport {
  done: number;
  seconds: number;
  /** CPU seconds of this process (all its threads) during the run. */
  cpuSeconds: number;
  slowest: { ms: number; i: number };
  crashes: Crash[];
}

export interface FuzzOptions {
  seed: number;
  count: number;
  fixtures: Fixture[];
  /** The bundled worker.ts. */
  workerFile: string | URL;
  jobs: number;
  /** Bound on one compile; a slower one is re-timed alone before it counts as a crash. */
  limitMs: number;
  /** No result for this long is a hang. */
  hangMs: number;
  onProgress?: (done: number, crashes: number) => void;
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const crashes = new Map<string, Crash>();
  const record = (signature: string, i: number, detail: string): void => {
    const c = crashes.get(signature);
    if (c) c.count++;
    else crashes.set(signature, { signature, count: 1, i, detail, text: variantOf(o.seed, o.fixtures, i).text });
  };
  const slowOnes: { i: number; detail: string }[] = [];
  let done = 0;
  let slowest = { ms: 0, i: -1 };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();

  const runShard = (indices: number[]): Promise<void> =>
    new Promise((resolve) => {
      if (!indices.length) return resolve();
      const w = new Worker(o.workerFile, { workerData: { seed: o.seed, fixtures: o.fixtures, indices, limitMs: o.limitMs } satisfies Job });
      let current = -1;
      let since = performance.now();
      let finished = false;
      const restartAfter = (i: number): void => {
        finished = true;
        clearInterval(timer);
        void w.terminate();
        void runShard(indices.slice(indices.indexOf(i) + 1)).then(resolve);
      };
      const timer = setInterval(() => {
        if (!finished && current >= 0 && performance.now() - since > o.hangMs) {
          record('hang', current, `no result after ${o.hangMs} ms`);
          done++;
          restartAfter(current);
        }
      }, 200);
      w.on('message', (m: Msg) => {
        if (finished) return;
        if (m.k === 'start') {
          current = m.i;
          since = performance.now();
        } else if (m.k === 'ok' || m.k === 'crash') {
          current = -1;
          done++;
          if (m.ms > slowest.ms) slowest = { ms: m.ms, i: m.i };
          if (m.k === 'crash' && m.signature === 'slow compile') slowOnes.push({ i: m.i, detail: m.detail });
          else if (m.k === 'crash') record(m.signature, m.i, m.detail);
          if (done % 1000 === 0) o.onProgress?.(done, crashes.size);
        } else {
          finished = true;
          clearInterval(timer);
          void w.terminate();
          resolve();
        }
      });
      w.on('error', (e) => {
        if (finished) return;
        if (current >= 0) {
          record(`worker died: ${String(e.message).split('\n')[0]}`, current, String(e.stack ?? e));
          done++;
          restartAfter(current);
        } else {
          finished = true;
          clearInterval(timer);
          record(`worker died: ${String(e.message).split('\n')[0]}`, indices[0]!, String(e.stack ?? e));
          resolve();
        }
      });
    });

  const shards = Array.from({ length: o.jobs }, (_, j) => {
    const out: number[] = [];
    for (let i = j; i < o.count; i += o.jobs) out.push(i);
    return out;
  });
  await Promise.all(shards.map(runShard));
  // a compile over the bound while the machine was busy counts only if it is over it alone, too, twice
  // (the first compile alone can still pay for code paths this worker had not yet run hot)
  for (const s of slowOnes) {
    const text = variantOf(o.seed, o.fixtures, s.i).text;
    const again = check(text, o.limitMs);
    if (again.ok || again.signature !== 'slow compile') continue;
    const third = check(text, o.limitMs);
    if (!third.ok && third.signature === 'slow compile') record('slow compile', s.i, `${s.detail}; alone: ${again.detail}, then ${third.detail}`);
  }
  const cpu = process.cpuUsage(cpu0);
  return { done, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, slowest, crashes: [...crashes.values()].sort((a, b) => b.count - a.count) };
}

/** A crash as text: signature, detail, where it came from and a reduced reproduction. */
export function describeCrash(c: Crash, seed: number, fixtures: Fixture[], limitMs: number): string {
  const v = variantOf(seed, fixtures, c.i);
  const small = c.signature === 'hang' || c.signature.startsWith('worker died') ? c.text : reduce(c.text, c.signature, limitMs);
  return (
    `[${c.count}x] ${c.signature}\n  ${c.detail.replace(/\n/g, '\n  ')}\n` +
    `  from ${v.fixture.name} variant #${v.index} (seed ${seed}, ${v.applied.join(' + ')})\n` +
    `  reproduction: ${quote(small)}`
  );
}
