// The playground's loss plot: losses parsed from printed training-loop lines
// (`step   0: loss = 1.2345`, `Epoch 3, loss 0.12`, `iter 50 loss: 3e-2`)
// and a canvas line plot of them against the step, with min/max axis labels.

export interface LossPoint {
  /** The step / epoch / iteration number printed on the line (else the point's index in its run). */
  step: number;
  loss: number;
  /** Training runs in one output: a step lower than the last one starts a new run (a new line). */
  run: number;
}

export const LINE_COLOR = '#e8590c';
const AXIS_COLOR = '#9aa1ad';
const LABEL_COLOR = '#4b5563';

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
/** `step 3`, `Step: 3`, `epoch #3`, `iter=3`, `iteration 3/100`, `[step 3]`. */
const STEP_RE = /(?<![a-z])(?:step|epoch|iter(?:ation)?|it)s?\s*[:#=]?\s*(\d+)/i;
/** `loss = 1.5`, `Loss: 1.5`, `train_loss 1.5`, `loss=nan` (nan / inf are skipped). */
const LOSS_RE = new RegExp(String.raw`loss(?![a-z])\s*(?:\([^)]*\))?\s*[:=]?\s*(${NUM}|nan|inf)`, 'i');

/** The (step, loss) pairs printed in `text`, one per line that names a loss. */
export function parseLosses(text: string): LossPoint[] {
  const points: LossPoint[] = [];
  let run = 0;
  for (const line of text.split('\n')) {
    const m = LOSS_RE.exec(line);
    const loss = m ? Number(m[1]) : NaN;
    if (!Number.isFinite(loss)) continue;
    const s = STEP_RE.exec(line);
    const prev = points.at(-1);
    const step = s ? Number(s[1]) : prev ? prev.step + 1 : 0;
    if (s && prev && step <= prev.step) run++;
    points.push({ step, loss, run });
  }
  return points;
}

interface Frame {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Scale {
  x: (step: number) => number;
  y: (loss: number) => number;
  log: boolean;
}

/** Log scale when every loss is positive and they span more than two decades. */
function makeScale(points: readonly LossPoint[], f: Frame): Scale {
  const steps = points.map((p) => p.step);
  const losses = points.map((p) => p.loss);
  const [x0, x1] = [Math.min(...steps), Math.max(...steps)];
  const [l0, l1] = [Math.min(...losses), Math.max(...losses)];
  const log = l0 > 0 && l1 / l0 > 100;
  const tf = (v: number): number => (log ? Math.log10(v) : v);
  const [y0, y1] = [tf(l0), tf(l1)];
  const sx = x1 > x0 ? (f.right - f.left) / (x1 - x0) : 0;
  const sy = y1 > y0 ? (f.bottom - f.top) / (y1 - y0) : 0;
  return {
    x: (s) => (sx ? f.left + (s - x0) * sx : (f.left + f.right) / 2),
    y: (l) => (sy ? f.bottom - (tf(l) - y0) * sy : (f.top + f.bottom) / 2),
    log,
  };
}

/** A number as an axis label: short, exponent form for very large or small values. */
export function formatTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}

function drawAxes(ctx: CanvasRenderingContext2D, f: Frame, points: readonly LossPoint[], log: boolean): void {
  ctx.strokeStyle = AXIS_COLOR;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(f.left, f.top);
  ctx.lineTo(f.left, f.bottom);
  ctx.lineTo(f.right, f.bottom);
  ctx.stroke();
  const steps = points.map((p) => p.step);
  const losses = points.map((p) => p.loss);
  ctx.fillStyle = LABEL_COLOR;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  ctx.fillText(formatTick(Math.max(...losses)), f.left - 4, f.top - 2);
  ctx.textBaseline = 'bottom';
  ctx.fillText(formatTick(Math.min(...losses)), f.left - 4, f.bottom + 2);
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText(String(Math.min(...steps)), f.left, f.bottom + 4);
  ctx.textAlign = 'right';
  ctx.fillText(String(Math.max(...steps)), f.right, f.bottom + 4);
  ctx.textAlign = 'center';
  ctx.fillText('step', (f.left + f.right) / 2, f.bottom + 4);
  ctx.save();
  ctx.translate(12, (f.top + f.bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(log ? 'loss (log)' : 'loss', 0, -6);
  ctx.restore();
}

function drawLine(ctx: CanvasRenderingContext2D, points: readonly LossPoint[], scale: Scale): void {
  ctx.strokeStyle = LINE_COLOR;
  ctx.fillStyle = LINE_COLOR;
  ctx.lineWidth = 2;
  ctx.lineJoin = 'round';
  for (const run of new Set(points.map((p) => p.run))) {
    const pts = points.filter((p) => p.run === run);
    ctx.beginPath();
    pts.forEach((p, i) => (i ? ctx.lineTo(scale.x(p.step), scale.y(p.loss)) : ctx.moveTo(scale.x(p.step), scale.y(p.loss))));
    ctx.stroke();
    for (const p of pts) {
      ctx.beginPath();
      ctx.arc(scale.x(p.step), scale.y(p.loss), 2.5, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
}

/** Draw `points` on `canvas`, sized to its CSS box at the device pixel ratio. Nothing is drawn for < 2 points. */
export function drawPlot(canvas: HTMLCanvasElement, points: readonly LossPoint[]): void {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth || canvas.width));
  const h = Math.max(1, Math.round(canvas.clientHeight || canvas.height));
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, w, h);
  if (points.length < 2) return;
  const frame: Frame = { left: 64, right: w - 20, top: 12, bottom: h - 22 };
  const scale = makeScale(points, frame);
  drawAxes(ctx, frame, points, scale.log);
  drawLine(ctx, points, scale);
}
