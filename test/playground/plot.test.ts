// The playground's loss parser: which printed lines become (step, loss) points.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTick, parseLosses } from '../../playground/plot.js';

const pairs = (text: string): [number, number][] => parseLosses(text).map((p) => [p.step, p.loss]);

describe('parseLosses', () => {
  it("reads seed 001's training log", () => {
    const out = readFileSync(new URL('../../fixtures/seed001/01_mesh_linear_regression.out', import.meta.url), 'utf8');
    const pts = parseLosses(out);
    expect(pts.map((p) => p.step)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450]);
    expect(pts[0]!.loss).toBe(28.8648);
    expect(new Set(pts.map((p) => p.run))).toEqual(new Set([0]));
  });

  it('pairs step / epoch / iter numbers with the number after "loss"', () => {
    expect(pairs('Step 10: Loss = 1.050035')).toEqual([[10, 1.050035]]);
    expect(pairs('Epoch 3, loss 0.12')).toEqual([[3, 0.12]]);
    expect(pairs('step 50 loss: 3e-2')).toEqual([[50, 0.03]]);
    expect(pairs('iter=7 | train_loss=0.5 | val_loss=0.7')).toEqual([[7, 0.5]]);
    expect(pairs('[epoch #2/10] loss (mse): .25')).toEqual([[2, 0.25]]);
    expect(pairs('iteration 4: loss -1.5e+00')).toEqual([[4, -1.5]]);
  });

  it('ignores lines without a loss value, and non-finite losses', () => {
    expect(pairs('step 1: accuracy 0.9\nlosses: [1, 2]\nstep 2: loss = nan\nsplit 3 loss 4')).toEqual([[0, 4]]); // 'split 3' is no step
  });

  it('numbers step-less losses in order, and starts a new run when the step goes back', () => {
    expect(pairs('loss 3\nloss 2\nloss 1')).toEqual([[0, 3], [1, 2], [2, 1]]);
    expect(parseLosses('step 0 loss 2\nstep 10 loss 1\nstep 0 loss 4').map((p) => p.run)).toEqual([0, 0, 1]);
  });
});

describe('formatTick', () => {
  it('keeps axis labels short', () => {
    expect(formatTick(28.8648)).toBe('28.86');
    expect(formatTick(0.0093)).toBe('0.0093');
    expect(formatTick(0.00001234)).toBe('1.23e-5');
    expect(formatTick(450)).toBe('450');
  });
});
