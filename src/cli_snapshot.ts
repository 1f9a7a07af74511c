// The jaxts command as a V8 startup snapshot. scripts/build.mjs bundles this
// file as CommonJS and runs `node --build-snapshot` on it: the bundle's
// module code, the Chevrotain lexer and parser construction (their grammar
// analysis) and a warm-up compile run at build time, and their heap is saved
// in dist/snapshot/. bin/jaxts.js then starts `node --snapshot-blob BLOB
// dist/cli.js ARGS`, which resumes from that heap and runs runCli.
import { dirname, resolve } from 'node:path';
import { startupSnapshot } from 'node:v8';
import { compile } from './compile.js';
import { exitWith, runCli } from './cli.js';

/** A small lesson touching the common paths (jit, grad, pmap and psum, random, printing), compiled once at build time. */
const WARM_UP = `import jax
import jax.numpy as jnp

def loss(w, x, y):
    return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

@jax.jit
def step(w, x, y):
    l, g = jax.value_and_grad(loss)(w, x, y)
    return w - 0.1 * g, l

w = jax.random.normal(jax.random.PRNGKey(0), (3, 2))
x = jnp.arange(12.0).reshape(4, 3) / 8
y = jnp.ones((4, 2))
for i in range(3):
    w, l = step(w, x, y)
    if i % 2 == 0:
        print(f"step {i}: loss = {l:.4f}")
total = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(4.0))
print(total, w.shape)
`;
compile(WARM_UP, { file: 'warm_up.py', flavor: 'js', runtimeImport: 'jaxts/runtime' });

/**
 * import() for the resumed process: code from a snapshot has no module
 * loader of its own, so the import runs in a script compiled at run time
 * with the main context's loader (experimental in Node 20, hence the
 * warning it would print being dropped).
 */
function mainContextImport(): (url: string) => Promise<unknown> {
  // required only now, after the snapshot (node:vm is not snapshot-safe); this file is bundled as CommonJS
  const { constants, Script } = require('node:vm') as typeof import('node:vm');
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(typeof warning === 'string' ? warning : warning.message).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) {
      (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
    }
  }) as typeof process.emitWarning;
  const script = new Script('(url) => import(url)', { importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  return script.runInThisContext() as (url: string) => Promise<unknown>;
}

startupSnapshot.setDeserializeMainFunction(() => {
  // argv: node, dist/cli.js (named by the launcher, not run), then the command line
  const distDir = dirname(resolve(process.argv[1]!));
  exitWith(runCli(process.argv.slice(2), { distDir, importModule: mainContextImport() }));
});
