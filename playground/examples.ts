// The playground's example programs: fixtures bundled into the page as text
// (esbuild's text loader for .py), each with its real-JAX golden beside it in
// the repository. The first is seed 001's first code block. Every lesson in
// fixtures/lessons/ is added too (scripts/build.mjs's `playground-lessons`
// module), after these.
import LESSONS from 'playground-lessons';
import meshLinearRegression from '../fixtures/seed001/01_mesh_linear_regression.py';
import pmapMlp from '../fixtures/seed001/02_pmap_mlp.py';
import allCells from '../fixtures/seed002/07_all_cells.py';
import pmapSquare from '../fixtures/seed004/pmap_square.py';
import gspmdSquare from '../fixtures/seed004/gspmd_square.py';
import gradBasics from '../fixtures/constructs/grad_basics.py';
import prng from '../fixtures/constructs/prng.py';
import mesh2dTrain from '../fixtures/constructs/mesh_2d_train.py';
import softmaxClassifier from '../fixtures/constructs/softmax_classifier.py';

export interface Example {
  id: string;
  title: string;
  /** The file name the program compiles as (diagnostics and generated comments). */
  file: string;
  source: string;
}

export const EXAMPLES: readonly Example[] = [
  { id: 'data-parallel', title: 'Data-parallel linear regression (mesh)', file: '01_mesh_linear_regression.py', source: meshLinearRegression },
  { id: 'pmap', title: 'pmap basics: one array over two devices', file: 'pmap_square.py', source: pmapSquare },
  { id: 'gspmd', title: 'GSPMD: NamedSharding and jit', file: 'gspmd_square.py', source: gspmdSquare },
  { id: 'grad', title: 'grad, value_and_grad, jacobians', file: 'grad_basics.py', source: gradBasics },
  { id: 'random', title: 'jax.random: keys, split, samplers', file: 'prng.py', source: prng },
  { id: 'sharded-train', title: 'Sharded training step (data × model mesh)', file: 'mesh_2d_train.py', source: mesh2dTrain },
  { id: 'classifier', title: 'Softmax classifier: loss and accuracy', file: 'softmax_classifier.py', source: softmaxClassifier },
  { id: 'pmap-mlp', title: 'pmap MLP with pmean gradients', file: '02_pmap_mlp.py', source: pmapMlp },
  { id: 'convolve', title: 'vmap and pmap of a convolution', file: '07_all_cells.py', source: allCells },
  ...LESSONS.map((l) => ({ id: `lesson-${l.name}`, title: `Lesson: ${l.title}`, file: `${l.name}.py`, source: l.source })),
];
