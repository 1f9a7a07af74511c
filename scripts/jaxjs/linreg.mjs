// jax-js (@jax-js/jax) version of seed 001's first block
// (fixtures/seed001/01_mesh_linear_regression.py): N, D = 4096, 32 data from
// jax.random, a linear model, a jitted value_and_grad SGD step (lr 0.01) over
// the first 256 rows, 500 steps with a printed loss every 50. jax-js has no
// pmap/sharding, so this runs on ONE device (the lesson shards the 256-row
// batch over 4 simulated devices; the arithmetic per step is the same).
//
// Browser-safe (no Node imports): scripts/bench-jaxjs.mjs imports it in Node
// (wasm; webgpu with Dawn's GPU object installed as navigator.gpu); a page
// could import it unchanged. jax-js arrays are reference counted: every call
// consumes its array arguments, `.ref` keeps one alive.
import { blockUntilReady, defaultDevice, init, jit, numpy as np, random, tree, valueAndGrad } from '@jax-js/jax';

const N = 4096;
const D = 32;
const BATCH = 256;
const LR = 0.01;

const predict = (params, x) => np.matmul(x, params.w).add(params.b);
const lossFn = (params, x, y) => np.mean(np.square(predict(params, x).sub(y)));

/**
 * Runs the lesson on `device` ('wasm' | 'webgpu' | 'cpu'). Returns
 * { device, lines, firstStepMs, loopMs, loopSteps, steadyStepMs[] }:
 * `firstStepMs` is the first call (trace + kernel compilation); `loopMs` the
 * lesson's 500-step loop with its prints (a readback every 50 steps);
 * `steadyStepMs[r]` the ms per step of round r: `reps` back-to-back step calls
 * ended by one blockUntilReady (as scripts/bench_jax_step.py times JAX).
 * jax-js's PRNG does not reproduce JAX's streams, so the data (and the printed
 * losses) differ from the lesson's; the arithmetic per step is the same.
 * `onSteady('start')` and `onSteady('end', steps)` bracket the steady rounds.
 */
export async function runLinreg(device, { steps = 500, printEvery = 50, reps = 50, rounds = 7, log = () => {}, onSteady = () => {} } = {}) {
  const available = await init(device);
  if (!available.includes(device)) throw new Error(`jax-js: device ${device} is not available (have ${available.join(', ') || 'none'})`);
  defaultDevice(device);
  const lines = [];

  // ============ 1. data ============
  const [key1, xKey, yKey] = splitN(random.key(42), 3);
  const X = random.normal(xKey, [N, D]);
  const trueW = random.normal(random.key(1), [D]);
  const y = np.matmul(X.ref, trueW.ref).add(random.normal(yKey, [N]).mul(0.1));
  const [key2, initKey] = splitN(key1, 2);
  key2.dispose();
  const params0 = { w: random.normal(initKey, [D]).mul(0.01), b: np.zeros([]) };
  const xb = X.slice([0, BATCH]);
  const yb = y.slice([0, BATCH]);
  trueW.dispose();

  // ============ 3. train step ============
  const trainStep = jit((params, x, yv) => {
    const [loss, grads] = valueAndGrad(lossFn)(tree.ref(params), x, yv);
    const newParams = tree.map((p, g) => p.sub(g.mul(LR)), params, grads);
    return [newParams, loss];
  });

  // first call: tracing + kernel compilation
  let params = params0;
  let t0 = performance.now();
  const [p1, l1] = trainStep(params, xb.ref, yb.ref);
  await blockUntilReady([p1, l1]);
  const firstStepMs = performance.now() - t0;
  l1.dispose();
  params = p1;

  // ============ 5. the lesson's loop (prints every 50) ============
  t0 = performance.now();
  for (let step = 0; step < steps; step++) {
    const [np1, loss] = trainStep(params, xb.ref, yb.ref);
    params = np1;
    if (step % printEvery === 0) {
      const v = (await loss.data())[0];
      const line = `step ${String(step).padStart(3)}: loss = ${v.toFixed(4)}`;
      lines.push(line);
      log(line);
    } else {
      loss.dispose();
    }
  }
  await blockUntilReady(params);
  const loopMs = performance.now() - t0;

  // ============ steady state: back-to-back steps, one sync per round ============
  const steadyStepMs = [];
  onSteady('start');
  for (let r = 0; r < rounds; r++) {
    t0 = performance.now();
    let last;
    for (let i = 0; i < reps; i++) {
      const [np1, loss] = trainStep(params, xb.ref, yb.ref);
      params = np1;
      if (last) last.dispose();
      last = loss;
    }
    await blockUntilReady([params, last]);
    steadyStepMs.push((performance.now() - t0) / reps);
    last.dispose();
  }
  onSteady('end', rounds * reps);
  const w = await params.w.ref.slice([0, 5]).jsAsync();
  lines.push(`final w[:5]: ${w.map((v) => v.toFixed(4)).join(' ')}`);
  tree.dispose(params);
  xb.dispose();
  yb.dispose();
  trainStep.dispose();
  return { device, lines, firstStepMs, loopMs, loopSteps: steps, steadyStepMs };
}

function splitN(key, n) {
  const ks = random.split(key, n);
  return Array.from({ length: n }, (_, i) => (i < n - 1 ? ks.ref : ks).slice(i));
}
