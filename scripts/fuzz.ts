// The long fuzz run (bundled and started by scripts/fuzz.mjs): the mutators,
// oracle and worker threads of test/fuzz/ for any seed and count.
//   node scripts/fuzz.mjs [--seed S] [--count N] [--jobs J] [--limit-ms MS] [--hang-ms MS] [--only SUBSTR] [--show N]
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeCrash, fixturePrograms, runFuzz, variantOf } from '../test/fuzz/run.js';

const { values: a } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 1e9) },
    count: { type: 'string', default: '10000' },
    jobs: { type: 'string', default: String(availableParallelism()) },
    'limit-ms': { type: 'string', default: '2000' },
    'hang-ms': { type: 'string', default: '20000' },
    only: { type: 'string' },
    show: { type: 'string', default: '20' },
  },
});
const seed = Number(a.seed);
const count = Number(a.count);
const limitMs = Number(a['limit-ms']);
const root = join(import.meta.dirname, '..');
const fixtures = fixturePrograms(root).filter((f) => !a.only || f.name.includes(a.only));
if (!fixtures.length) throw new Error('no fixture matches --only');
const jobs = Math.max(1, Number(a.jobs));
console.log(`fuzz: seed ${seed}, ${count} variants of ${fixtures.length} fixtures, ${jobs} jobs, ${limitMs} ms per compile`);
const t0 = performance.now();
const report = await runFuzz({
  seed,
  count,
  fixtures,
  // bundled beside this file by scripts/fuzz.mjs
  workerFile: new URL('./worker.js', import.meta.url),
  jobs,
  limitMs,
  hangMs: Number(a['hang-ms']),
  onProgress: (done, n) => console.log(`  ${done}/${count} (${((performance.now() - t0) / 1000).toFixed(0)} s), ${n} distinct crashes`),
});
const sv = report.slowest.i >= 0 ? variantOf(seed, fixtures, report.slowest.i) : null;
console.log(`fuzz: ${report.done} variants in ${report.seconds.toFixed(1)} s (${report.cpuSeconds.toFixed(1)} s CPU); slowest compile ${report.slowest.ms.toFixed(0)} ms${sv ? ` (${sv.fixture.name} variant #${sv.index})` : ''}`);
if (!report.crashes.length) {
  console.log('fuzz: no crashes');
} else {
  console.log(`fuzz: ${report.crashes.length} distinct crashes${report.crashes.length > Number(a.show) ? ` (the first ${a.show})` : ''}`);
  for (const c of report.crashes.slice(0, Number(a.show))) console.log(`\n${describeCrash(c, seed, fixtures, limitMs)}`);
  process.exitCode = 1;
}
