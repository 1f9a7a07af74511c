// The playground's metric plots: every metric a training loop prints (loss,
// accuracy, error, perplexity, … as in `step   0: loss = 1.2345`,
// `Epoch 3, loss 0.12 acc 0.91`, `Training set accuracy 0.125`) parsed from
// the output, and one canvas line plot per metric against the step, with
// "nice" ticks on both axes.

export interface MetricPoint {
  /** The step / epoch / iteration number printed on the line (else the point's index in its run). */
  step: number;
  value: number;
  /** Training runs in one output: a step lower than the last one starts a new run (a new line). */
  run: number;
}

export interface Metric {
  /** As printed first (`loss`, `Training set accuracy`), compared case-insensitively. */
  name: string;
  points: MetricPoint[];
}

export const LINE_COLOR = '#e8590c';
const GRID_COLOR = '#e5e7eb';
const AXIS_COLOR = '#9aa1ad';
const LABEL_COLOR = '#4b5563';

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
/** `step 3`, `Step: 3`, `epoch #3`, `iter=3`, `iteration 3/100`, `[step 3]`. */
const STEP_RE = /(?<![a-z])(?:step|epoch|iter(?:ation)?|it)s?\s*[:#=]?\s*(\d+)/i;
const METRIC_WORDS = 'loss|accuracy|acc|error|err|mse|mae|rmse|nll|perplexity|ppl|reward|return|score|f1|precision|recall';
/** `loss = 1.5`, `Loss: 1.5`, `train_loss 1.5`, `val acc 0.9`, `Training set accuracy 0.125`, `loss(avg) 2`; nan / inf are skipped. */
const METRIC_RE = new RegExp(
  String.raw`(?<![A-Za-z])((?:(?:train(?:ing)?|test|val(?:id(?:ation)?)?|eval)(?:[ _]set)?[ _])?(?:${METRIC_WORDS}))(?![A-Za-z])\s*(?:\([^)]*\))?\s*[:=]?\s*(${NUM}|nan|inf)(?![\w.])`,
  'gi',
);

/** The metrics printed in `text`, in the order they first appear; a metric printed once is left out. */
export function parseMetrics(text: string): Metric[] {
  const byName = new Map<string, Metric>();
  const order: Metric[] = [];
  for (const line of text.split('\n')) {
    const s = STEP_RE.exec(line);
    for (const m of line.matchAll(METRIC_RE)) {
      const value = Number(m[2]);
      if (!Number.isFinite(value)) continue;
      const key = m[1]!.toLowerCase().replace(/[ _]+/g, ' ');
      let metric = byName.get(key);
      if (!metric) {
        metric = { name: m[1]!, points: [] };
        byName.set(key, metric);
        order.push(metric);
      }
      const prev = metric.points.at(-1);
      const step = s ? Number(s[1]) : prev ? prev.step + 1 : 0;
      const run = prev ? (s && step <= prev.step ? prev.run + 1 : prev.run) : 0;
      metric.points.push({ step, value, run });
    }
  }
  return order.filter((m) => m.points.length >= 2);
}

/** About `count` round tick values (1, 2 or 5 × 10^k apart) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const mag = 10 ** Math.floor(Math.log10((hi - lo) / count));
  const ticksFor = (step: number): number[] => {
    const ticks: number[] = [];
    for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) ticks.push(i === 0 ? 0 : Number((i * step).toPrecision(12)));
    return ticks;
  };
  // the step (1, 2, 5 or 10 × 10^k) whose tick count is nearest `count`
  const options = [1, 2, 5, 10].map((k) => ticksFor(k * mag));
  return options.reduce((best, t) => (Math.abs(t.length - count) < Math.abs(best.length - count) ? t : best));
}

/** A number as an axis label: short, exponent form for very large or small values. */
export function formatTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

interface Frame {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Axes {
  x: (step: number) => number;
  y: (value: number) => number;
  xTicks: number[];
  yTicks: number[];
  /** y on a log10 scale (the ticks are then powers of ten or their exponents). */
  log: boolean;
}

/** Log scale when every value is positive and they span more than two decades. */
function makeAxes(points: readonly MetricPoint[], f: Frame): Axes {
  const steps = points.map((p) => p.step);
  const values = points.map((p) => p.value);
  const [x0, x1] = [Math.min(...steps), Math.max(...steps)];
  const [v0, v1] = [Math.min(...values), Math.max(...values)];
  const log = v0 > 0 && v1 / v0 > 100;
  const tf = (v: number): number => (log ? Math.log10(v) : v);
  let [y0, y1] = [tf(v0), tf(v1)];
  if (y1 === y0) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const yTicks = log ? niceTicks(Math.ceil(y0), Math.floor(y1), 5).filter((t) => Number.isInteger(t)) : niceTicks(y0, y1, 5);
  const xTicks = x1 > x0 ? niceTicks(x0, x1, Math.max(2, Math.min(6, Math.floor((f.right - f.left) / 60)))).filter((t) => Number.isInteger(t)) : [x0];
  const sx = x1 > x0 ? (f.right - f.left) / (x1 - x0) : 0;
  const sy = (f.bottom - f.top) / (y1 - y0);
  return {
    x: (s) => (sx ? f.left + (s - x0) * sx : (f.left + f.right) / 2),
    y: (v) => f.bottom - (tf(v) - y0) * sy,
    xTicks,
    yTicks: log ? yTicks.map((t) => 10 ** t) : yTicks,
    log,
  };
}

function drawAxes(ctx: CanvasRenderingContext2D, f: Frame, axes: Axes, name: string): void {
  ctx.lineWidth = 1;
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = LABEL_COLOR;
  // y ticks: a grid line and a label each
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of axes.yTicks) {
    const y = Math.round(axes.y(t)) + 0.5;
    if (y < f.top - 1 || y > f.bottom + 1) continue;
    ctx.strokeStyle = GRID_COLOR;
    ctx.beginPath();
    ctx.moveTo(f.left, y);
    ctx.lineTo(f.right, y);
    ctx.stroke();
    ctx.strokeStyle = AXIS_COLOR;
    ctx.beginPath();
    ctx.moveTo(f.left - 4, y);
    ctx.lineTo(f.left, y);
    ctx.stroke();
    ctx.fillText(formatTick(t), f.left - 6, y);
  }
  // x ticks
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of axes.xTicks) {
    const x = Math.round(axes.x(t)) + 0.5;
    ctx.strokeStyle = AXIS_COLOR;
    ctx.beginPath();
    ctx.moveTo(x, f.bottom);
    ctx.lineTo(x, f.bottom + 4);
    ctx.stroke();
    ctx.fillText(String(t), x, f.bottom + 6);
  }
  ctx.strokeStyle = AXIS_COLOR;
  ctx.beginPath();
  ctx.moveTo(f.left + 0.5, f.top);
  ctx.lineTo(f.left + 0.5, f.bottom + 0.5);
  ctx.lineTo(f.right, f.bottom + 0.5);
  ctx.stroke();
  ctx.textAlign = 'right';
  ctx.fillText('step', f.right, f.bottom + 20);
  ctx.save();
  ctx.translate(12, (f.top + f.bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.fillText(axes.log ? `${name} (log)` : name, 0, -6);
  ctx.restore();
}

function drawLine(ctx: CanvasRenderingContext2D, points: readonly MetricPoint[], axes: Axes): void {
  ctx.strokeStyle = LINE_COLOR;
  ctx.fillStyle = LINE_COLOR;
  ctx.lineWidth = 2;
  ctx.lineJoin = 'round';
  for (const run of new Set(points.map((p) => p.run))) {
    const pts = points.filter((p) => p.run === run);
    ctx.beginPath();
    pts.forEach((p, i) => (i ? ctx.lineTo(axes.x(p.step), axes.y(p.value)) : ctx.moveTo(axes.x(p.step), axes.y(p.value))));
    ctx.stroke();
    for (const p of pts) {
      ctx.beginPath();
      ctx.arc(axes.x(p.step), axes.y(p.value), 2.5, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
}

/** Draw `metric` on `canvas`, sized to its CSS box at the device pixel ratio. */
export function drawPlot(canvas: HTMLCanvasElement, metric: Metric): void {
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
  if (metric.points.length < 2) return;
  const frame: Frame = { left: 66, right: w - 16, top: 10, bottom: h - 34 };
  const axes = makeAxes(metric.points, frame);
  drawAxes(ctx, frame, axes, metric.name);
  drawLine(ctx, metric.points, axes);
}
