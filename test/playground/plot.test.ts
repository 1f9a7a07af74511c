// The playground's metric parser (which printed lines become (step, value)
// points of which metric) and its axis ticks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTick, niceTicks, parseMetrics } from '../../playground/plot.js';

/** name → [step, value] pairs. */
const pairs = (text: string): Record<string, [number, number][]> =>
  Object.fromEntries(parseMetrics(text).map((m) => [m.name, m.points.map((p): [number, number] => [p.step, p.value])]));

const fixture = (path: string): string => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

describe('parseMetrics', () => {
  it("reads seed 001's training log", () => {
    const [loss, ...rest] = parseMetrics(fixture('seed001/01_mesh_linear_regression.out'));
    expect(rest).toEqual([]);
    expect(loss!.name).toBe('loss');
    expect(loss!.points.map((p) => p.step)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450]);
    expect(loss!.points[0]!.value).toBe(28.8648);
    expect(new Set(loss!.points.map((p) => p.run))).toEqual(new Set([0]));
  });

  it('finds loss and accuracy printed on the same lines', () => {
    const m = parseMetrics(fixture('constructs/softmax_classifier.out'));
    expect(m.map((x) => x.name)).toEqual(['loss', 'acc']);
    expect(m[1]!.points.slice(0, 2)).toEqual([{ step: 0, value: 0.391, run: 0 }, { step: 10, value: 0.938, run: 0 }]);
  });

  it('pairs step / epoch / iter numbers with the number after a metric name', () => {
    expect(pairs('Step 10: Loss = 1.050035\nStep 20: Loss = 1.0')).toEqual({ Loss: [[10, 1.050035], [20, 1]] });
    expect(pairs('Epoch 3, loss 0.12 accuracy 91.5%\nEpoch 4, loss 0.1 accuracy 92%')).toEqual({ loss: [[3, 0.12], [4, 0.1]], accuracy: [[3, 91.5], [4, 92]] });
    expect(pairs('iter=7 | train_loss=0.5 | val_loss=0.7\niter=8 | train_loss=0.4 | val_loss=0.6')).toEqual({ train_loss: [[7, 0.5], [8, 0.4]], val_loss: [[7, 0.7], [8, 0.6]] });
    expect(pairs('[epoch #2/10] loss (mse): .25\n[epoch #3/10] loss (mse): 2e-1')).toEqual({ loss: [[2, 0.25], [3, 0.2]] });
    expect(pairs('Training set accuracy 0.125\nTraining set accuracy 0.5')).toEqual({ 'Training set accuracy': [[0, 0.125], [1, 0.5]] });
  });

  it('leaves out lines without a value, non-finite values, and metrics printed once', () => {
    expect(pairs('step 1: accuracy 0.9\nlosses: [1, 2]\nstep 2: loss = nan\nsplit 3 loss 4\nloss 5')).toEqual({ loss: [[0, 4], [1, 5]] }); // 'split 3' is no step
    expect(pairs('glossary 3\nclass 4\nloss_fn(x) 2')).toEqual({});
  });

  it('numbers step-less values in order, and starts a new run when the step goes back', () => {
    expect(pairs('loss 3\nloss 2\nloss 1')).toEqual({ loss: [[0, 3], [1, 2], [2, 1]] });
    expect(parseMetrics('step 0 loss 2\nstep 10 loss 1\nstep 0 loss 4')[0]!.points.map((p) => p.run)).toEqual([0, 0, 1]);
  });
});

describe('axis ticks', () => {
  it('are round numbers covering the range', () => {
    expect(niceTicks(0, 450)).toEqual([0, 100, 200, 300, 400]);
    expect(niceTicks(0.2, 28.86)).toEqual([5, 10, 15, 20, 25]);
    expect(niceTicks(0.391, 0.969)).toEqual([0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(niceTicks(1, 1)).toEqual([1]);
  });

  it('keep labels short', () => {
    expect(formatTick(28.8648)).toBe('28.86');
    expect(formatTick(0.0093)).toBe('0.0093');
    expect(formatTick(0.00001234)).toBe('1.2e-5');
    expect(formatTick(450)).toBe('450');
  });
});
