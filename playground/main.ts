// The playground page's script (bundled to dist/playground/playground.js as a
// classic script): wires the editor, the example picker, the Run button, the
// output pane, the status line and the loss plot. `window.__jaxtsPlayground`
// exposes the page's state to tests.
import { CompileError } from '../src/common/diagnostics.js';
import { Editor } from './editor.js';
import { EXAMPLES } from './examples.js';
import { drawPlot, parseLosses, type LossPoint } from './plot.js';
import { compileSource, loadProgram, makeRuntime, resetWebGpu, type BackendChoice } from './runner.js';

type RunState = 'idle' | 'compiling' | 'running' | 'done' | 'error';

/** What tests (and the console) can read and do. */
export interface PlaygroundApi {
  readonly state: RunState;
  /** Everything the program printed in the last run. */
  readonly output: string;
  readonly points: readonly LossPoint[];
  readonly status: string;
  run(): Promise<void>;
}

const FILE = 'playground.py';

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`playground: #${id} is missing from the page`);
  return el as T;
}

const ui = {
  example: byId<HTMLSelectElement>('example'),
  backend: byId<HTMLSelectElement>('backend'),
  run: byId<HTMLButtonElement>('run'),
  status: byId<HTMLElement>('status'),
  output: byId<HTMLPreElement>('output'),
  plotWrap: byId<HTMLElement>('plot-wrap'),
  plot: byId<HTMLCanvasElement>('plot'),
  plotCaption: byId<HTMLElement>('plot-caption'),
};

const editor = new Editor({
  code: byId<HTMLTextAreaElement>('code'),
  gutterLines: byId<HTMLElement>('gutter-lines'),
  lineMark: byId<HTMLElement>('line-mark'),
  errorSpan: byId<HTMLElement>('error-span'),
  errorBox: byId<HTMLElement>('error-box'),
});

let state: RunState = 'idle';
let printed = '';
let points: LossPoint[] = [];
let plotQueued = false;

function setState(s: RunState): void {
  state = s;
  document.body.dataset['state'] = s;
  ui.run.disabled = s === 'compiling' || s === 'running';
}

function setStatus(text: string, error = false): void {
  ui.status.textContent = text;
  ui.status.classList.toggle('error', error);
}

/** Printed text, appended as it arrives (keeping the pane scrolled to the end if it was). */
function appendOutput(text: string, cls?: string): void {
  const o = ui.output;
  const atEnd = o.scrollTop + o.clientHeight >= o.scrollHeight - 4;
  if (cls) {
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = text;
    o.append(span);
  } else {
    o.append(text);
  }
  if (atEnd) o.scrollTop = o.scrollHeight;
}

function write(text: string): void {
  printed += text;
  appendOutput(text);
  schedulePlot();
}

function schedulePlot(): void {
  if (plotQueued) return;
  plotQueued = true;
  requestAnimationFrame(() => {
    plotQueued = false;
    updatePlot();
  });
}

function updatePlot(): void {
  points = parseLosses(printed);
  ui.plot.dataset['points'] = String(points.length);
  ui.plotWrap.hidden = points.length < 2;
  if (ui.plotWrap.hidden) return;
  ui.plotCaption.textContent = `loss against step (${points.length} points)`;
  drawPlot(ui.plot, points);
}

function resetResults(): void {
  printed = '';
  ui.output.replaceChildren();
  updatePlot();
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.name && e.name !== 'Error' && !e.message.startsWith(e.name) ? `${e.name}: ${e.message}` : e.message;
}

function showCompileError(e: CompileError): void {
  if (e.span) {
    const { start, end } = e.span;
    editor.showError({ line: start.line, col: start.col, endCol: end.line === start.line ? end.col : undefined, message: e.message, notes: e.notes });
    setStatus(`compile error at line ${e.span.start.line}`, true);
  } else {
    appendOutput(`${FILE}: error: ${e.message}\n${e.notes.map((n) => `  note: ${n}\n`).join('')}`, 'err');
    setStatus('compile error', true);
  }
}

/** Let the browser paint (the status line) before the compiler blocks the page. */
const nextFrame = (): Promise<void> => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));

async function run(): Promise<void> {
  if (state === 'compiling' || state === 'running') return;
  editor.clearError();
  resetResults();
  setState('compiling');
  setStatus('compiling…');
  await nextFrame();
  const t0 = performance.now();
  let compiled;
  try {
    compiled = compileSource(editor.value, FILE);
  } catch (e) {
    if (e instanceof CompileError) showCompileError(e);
    else {
      appendOutput(`internal compiler error: ${errorText(e)}\n`, 'err');
      setStatus('internal compiler error', true);
    }
    setState('error');
    return;
  }
  const compileMs = performance.now() - t0;
  await execute(compiled, compileMs);
}

async function execute(compiled: ReturnType<typeof compileSource>, compileMs: number): Promise<void> {
  setState('running');
  setStatus(`running… (compile ${compileMs.toFixed(0)} ms)`);
  let backend = '';
  try {
    const mod = await loadProgram(compiled);
    const choice = ui.backend.value as BackendChoice;
    const rt = await makeRuntime(choice, mod.deviceCount, write);
    backend = rt.backend.kind === 'webgpu' ? `WebGPU (${rt.backend.description || 'adapter'})` : choice === 'cpu' ? 'CPU backend' : 'CPU backend (no WebGPU adapter)';
    setStatus(`${backend} · compile ${compileMs.toFixed(0)} ms · running…`);
    const t1 = performance.now();
    await mod.main(rt);
    await rt.sync();
    const runMs = performance.now() - t1;
    setStatus(`${backend} · compile ${compileMs.toFixed(0)} ms · run ${runMs.toFixed(0)} ms`);
    setState('done');
  } catch (e) {
    console.error(e);
    if (printed && !printed.endsWith('\n')) appendOutput('\n');
    appendOutput(`${errorText(e)}\n`, 'err');
    setStatus(`${backend ? `${backend} · ` : ''}runtime error`, true);
    resetWebGpu();
    setState('error');
  }
  updatePlot();
}

function loadExample(id: string): void {
  const ex = EXAMPLES.find((x) => x.id === id) ?? EXAMPLES[0]!;
  editor.value = ex.source;
  resetResults();
  setStatus('ready');
}

function init(): void {
  for (const ex of EXAMPLES) ui.example.append(new Option(ex.title, ex.id));
  ui.example.addEventListener('change', () => loadExample(ui.example.value));
  ui.run.addEventListener('click', () => void run());
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      void run();
    }
  });
  loadExample(EXAMPLES[0]!.id);
  const api: PlaygroundApi = {
    get state() { return state; },
    get output() { return printed; },
    get points() { return points; },
    get status() { return ui.status.textContent ?? ''; },
    run,
  };
  (window as Window & { __jaxtsPlayground?: PlaygroundApi }).__jaxtsPlayground = api;
}

init();
