// jax.ad_checkpoint.print_saved_residuals and jax.checkpoint's policies: the
// residuals JAX's linearization saves. The expected lines are real JAX 0.10's
// output for this program (the first cells of docs/notebooks/autodiff_remat.md,
// then a pytree argument), run as remat.py.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { cpuBackend, runOn } from '../helpers/fixtures.js';

const PROGRAM = `import jax
import jax.numpy as jnp

def g(W, x):
  y = jnp.dot(W, x)
  return jnp.sin(y)

def f(W1, W2, W3, x):
  x = g(W1, x)
  x = g(W2, x)
  x = g(W3, x)
  return x

W1 = jnp.ones((5, 4))
W2 = jnp.ones((6, 5))
W3 = jnp.ones((7, 6))
x = jnp.ones(4)

from jax.ad_checkpoint import print_saved_residuals
jax.ad_checkpoint.print_saved_residuals(f, W1, W2, W3, x)

def f2(W1, W2, W3, x):
  x = jax.checkpoint(g)(W1, x)
  x = jax.checkpoint(g)(W2, x)
  x = jax.checkpoint(g)(W3, x)
  return x

jax.ad_checkpoint.print_saved_residuals(f2, W1, W2, W3, x)

f3 = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
jax.ad_checkpoint.print_saved_residuals(f3, W1, W2, W3, x)

from jax.ad_checkpoint import checkpoint_name

def f4(W1, W2, W3, x):
  x = checkpoint_name(g(W1, x), name='a')
  x = checkpoint_name(g(W2, x), name='b')
  x = checkpoint_name(g(W3, x), name='c')
  return x

f4 = jax.checkpoint(f4, policy=jax.checkpoint_policies.save_only_these_names('a'))
jax.ad_checkpoint.print_saved_residuals(f4, W1, W2, W3, x)

def loss(params, x, y):
  return jnp.sum((jnp.tanh(params[0] @ x) - y) ** 2)
print_saved_residuals(loss, (jnp.ones((3, 3)),), jnp.ones(3), jnp.ones(3))
print(jax.grad(lambda *a: f3(*a).sum())(W1, W2, W3, x).sum(), jax.grad(lambda *a: f(*a).sum())(W1, W2, W3, x).sum())
`;

const EXPECTED = [
  'f32[5,4] from the argument W1',
  'f32[6,5] from the argument W2',
  'f32[7,6] from the argument W3',
  'f32[4] from the argument x',
  'f32[5] output of sin from remat.py:6:9 (g)',
  'f32[5] output of cos from remat.py:6:9 (g)',
  'f32[6] output of sin from remat.py:6:9 (g)',
  'f32[6] output of cos from remat.py:6:9 (g)',
  'f32[7] output of cos from remat.py:6:9 (g)',
  'f32[5,4] from the argument W1',
  'f32[6,5] from the argument W2',
  'f32[7,6] from the argument W3',
  'f32[4] from the argument x',
  'f32[5] output of sin from remat.py:6:9 (g)',
  'f32[6] output of sin from remat.py:6:9 (g)',
  'f32[5,4] from the argument W1',
  'f32[6,5] from the argument W2',
  'f32[7,6] from the argument W3',
  'f32[4] from the argument x',
  'f32[5] output of dot_general from remat.py:5:6 (g)',
  'f32[6] output of dot_general from remat.py:5:6 (g)',
  'f32[7] output of dot_general from remat.py:5:6 (g)',
  'f32[5,4] from the argument W1',
  'f32[6,5] from the argument W2',
  'f32[7,6] from the argument W3',
  'f32[4] from the argument x',
  "f32[5] named 'a' from remat.py:36:6 (f4)",
  'f32[3,3] from the argument params[0]',
  'f32[3] from the argument x',
  'f32[3] output of tanh from remat.py:45:18 (loss)',
  'f32[3] output of sub from remat.py:45:18 (loss)',
  'f32[3] output of mul from remat.py:45:17 (loss)',
];

describe('print_saved_residuals', () => {
  it("shows what JAX's linearization saves, under jax.checkpoint's policies and checkpoint_name", async () => {
    const out = (await runOn(compile(PROGRAM, { file: 'remat.py' }), cpuBackend())).split('\n');
    expect(out.slice(0, EXPECTED.length)).toEqual(EXPECTED);
    // rematerialization changes what is saved, not what is computed
    const [a, b] = out[EXPECTED.length]!.split(' ').map(Number);
    expect(a).toBeCloseTo(b!, 4);
  });
  it("shows closed-over arrays as constants and an implicitly broadcast operand as JAX's operation takes it; make_jaxpr's return_shape", async () => {
    // real JAX 0.10's output for this program, run as rs2.py
    const program = "import jax\nimport jax.numpy as jnp\nfrom jax.ad_checkpoint import print_saved_residuals\nM = jnp.arange(6.0).reshape(2, 3)\ndef h(x):\n  return jnp.sum(jnp.sin(M @ x) * M[0, 0])\nprint_saved_residuals(h, jnp.ones(3))\ndef k(p, n):\n  return jnp.exp(p['w'] * n) + p['b']\nprint_saved_residuals(k, {'w': jnp.ones(2), 'b': 1.0}, 3)\ncj, shape = jax.make_jaxpr(lambda x: (x * 2, {'s': x.sum()}), return_shape=True)(jnp.ones(3))\nprint(shape)\n";
    const expected = "f32[2,3] from a constant\nf32[2] output of cos from rs2.py:6:17 (h)\nf32[] output of squeeze from rs2.py:6:34 (h)\nf32[] output of convert_element_type from rs2.py:9:17 (k)\nf32[2] output of exp from rs2.py:9:9 (k)\n(ShapeDtypeStruct(shape=(3,), dtype=float32), {'s': ShapeDtypeStruct(shape=(), dtype=float32)})\n";
    expect(await runOn(compile(program, { file: 'rs2.py' }), cpuBackend())).toBe(expected);
  });
  it("lists a named value where JAX's name equation is; under jax_remat3 a checkpointed function's arguments are args[i] and an offloading policy saves nothing", async () => {
    // real JAX 0.10's output for this program (docs/new_docs/301/remat.md's cells), run as r3.py
    const program = "import jax\nimport jax.numpy as jnp\nfrom jax.ad_checkpoint import checkpoint_name, print_saved_residuals\njax.config.update('jax_remat3', True)\ndef loss(params, x, y):\n  return jnp.sum((predict(params, x) - y)**2)\ndef predict(params, x):\n  *Ws, Wlast = params\n  for i, W in enumerate(Ws):\n    x = layer(W, x)\n    x = checkpoint_name(x, name=f'layer{i}_output')\n  x = jnp.dot(Wlast, x)\n  return x\ndef layer(W, x):\n  return jnp.sin(jnp.dot(W, x))\nparams = [jnp.ones((4, 4))] * 3\nx = y = jnp.ones(4)\nprint_saved_residuals(loss, params, x, y)\nloss_checkpoint = jax.checkpoint(loss, policy=jax.checkpoint_policies.save_any_names_but_these('layer1_output'))\nprint_saved_residuals(loss_checkpoint, params, x, y)\npolicy = jax.checkpoint_policies.save_and_offload_only_these_names(\n    names_which_can_be_saved=['y'], names_which_can_be_offloaded=['z'], offload_src='device', offload_dst='pinned_host')\ndef f_offload(x):\n  y = checkpoint_name(jnp.sin(x), 'y')\n  z = checkpoint_name(jnp.sin(y), 'z')\n  return jnp.sum(jnp.sin(z))\nprint_saved_residuals(jax.checkpoint(f_offload, policy=policy), jnp.arange(4.))\n";
    const expected = "f32[4,4] from the argument params[0]\nf32[4,4] from the argument params[1]\nf32[4,4] from the argument params[2]\nf32[4] from the argument x\nf32[4] output of cos from r3.py:15:9 (layer)\nf32[4] named 'layer0_output' from r3.py:11:8 (predict)\nf32[4] output of cos from r3.py:15:9 (layer)\nf32[4] named 'layer1_output' from r3.py:11:8 (predict)\nf32[4] output of mul from r3.py:6:17 (loss)\nf32[4,4] from the argument args[0][0]\nf32[4,4] from the argument args[0][1]\nf32[4,4] from the argument args[0][2]\nf32[4] from the argument args[1]\nf32[4] from the argument args[2]\nf32[4] named 'layer0_output' from r3.py:11:8 (predict)\nf32[4] from the argument args[0]\n";
    expect(await runOn(compile(program, { file: 'r3.py' }), cpuBackend())).toBe(expected);
  });
});
