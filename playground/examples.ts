// The playground's example programs: fixtures bundled into the page as text
// (esbuild's text loader for .py), the first being seed 001's first code block.
import meshLinearRegression from '../fixtures/seed001/01_mesh_linear_regression.py';
import pmapMlp from '../fixtures/seed001/02_pmap_mlp.py';
import allCells from '../fixtures/seed002/07_all_cells.py';

export interface Example {
  id: string;
  title: string;
  /** The file name the program compiles as (diagnostics and generated comments). */
  file: string;
  source: string;
}

export const EXAMPLES: readonly Example[] = [
  { id: 'seed001-01', title: 'seed 001 · mesh linear regression', file: '01_mesh_linear_regression.py', source: meshLinearRegression },
  { id: 'seed001-02', title: 'seed 001 · pmap MLP (pmean)', file: '02_pmap_mlp.py', source: pmapMlp },
  { id: 'seed002-07', title: 'seed 002 · vmap / pmap convolve', file: '07_all_cells.py', source: allCells },
];
