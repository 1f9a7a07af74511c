// A fuzz worker thread (started by run.ts from an esbuild bundle of this
// file): compiles its share of the variants and reports each outcome, posting
// 'start' first so that the watchdog in run.ts can name a variant that hangs.
import { parentPort, workerData } from 'node:worker_threads';
import { check } from './check.js';
import { variantOf, type Job, type Msg } from './run.js';

const job = workerData as Job;
const post = (m: Msg): void => parentPort!.postMessage(m);
for (const i of job.indices) {
  post({ k: 'start', i });
  const v = variantOf(job.seed, job.fixtures, i);
  const o = check(v.text, job.limitMs);
  post(o.ok ? { k: 'ok', i, ms: o.ms } : { k: 'crash', i, signature: o.signature, detail: o.detail, ms: o.ms });
}
post({ k: 'done' });
