// The playground page's script (bundled to dist/playground/playground.js as a
// classic script): the editor, the example picker, Run and Stop, the output
// pane with its metric plots, the jaxpr / SPMD / WGSL tabs, and the program
// kept in localStorage and the URL. Compiling and running happen in a Web
// Worker (worker.ts), so the page stays responsive; Stop terminates it.
// `window.__jaxtsPlayground` exposes the page's state to tests.
import WORKER_SOURCE from 'playground-worker';
import { Editor } from './editor.js';
import { EXAMPLES } from './examples.js';
import { drawPlot, parseMetrics, type Metric } from './plot.js';
import type { BackendChoice, RunRequest, WorkerMessage } from './protocol.js';
import { decodeSource, encodeSource, loadSaved, save } from './storage.js';

type RunState = 'idle' | 'compiling' | 'running' | 'done' | 'error' | 'stopped';
type Tab = 'output' | 'ir' | 'spmd' | 'kernels';

/** What tests (and the console) can read and do. */
export interface PlaygroundApi {
  readonly state: RunState;
  /** Everything the program printed in the last run. */
  readonly output: string;
  readonly metrics: readonly Metric[];
  readonly status: string;
  /** The editor's text. */
  source: string;
  run(): void;
  stop(): void;
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
  stop: byId<HTMLButtonElement>('stop'),
  share: byId<HTMLButtonElement>('share'),
  status: byId<HTMLElement>('status'),
  output: byId<HTMLPreElement>('output'),
  plots: byId<HTMLElement>('plots'),
  tabs: Array.from(document.querySelectorAll<HTMLButtonElement>('#tabs [role=tab]')),
  dumps: { ir: byId<HTMLPreElement>('dump-ir'), spmd: byId<HTMLPreElement>('dump-spmd'), kernels: byId<HTMLPreElement>('dump-kernels') },
};

let state: RunState = 'idle';
let printed = '';
let metrics: Metric[] = [];
let plotQueued = false;
let worker: Worker | null = null;
let workerUrl: string | null = null;
let started = 0;
let compileMs = 0;
let backend = '';
/** Set while the page itself puts a program in the editor at start-up (nothing to keep yet). */
let starting = true;

const editor = new Editor({ parent: byId('editor'), onRun: () => run(), onChange: (text) => starting || keep(text) });

function setState(s: RunState): void {
  state = s;
  document.body.dataset['state'] = s;
  const busy = s === 'compiling' || s === 'running';
  ui.run.disabled = busy;
  ui.stop.disabled = !busy;
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
    updatePlots();
  });
}

/** One figure per printed metric (made once, redrawn as points arrive). */
function updatePlots(): void {
  metrics = parseMetrics(printed);
  const figures = Array.from(ui.plots.querySelectorAll<HTMLElement>('figure'));
  figures.slice(metrics.length).forEach((f) => f.remove());
  metrics.forEach((m, i) => {
    let fig = figures[i];
    if (!fig) {
      fig = document.createElement('figure');
      fig.className = 'plot';
      fig.append(document.createElement('canvas'), document.createElement('figcaption'));
      ui.plots.append(fig);
    }
    const canvas = fig.querySelector('canvas')!;
    canvas.setAttribute('aria-label', `${m.name} against step`);
    canvas.dataset['metric'] = m.name;
    canvas.dataset['points'] = String(m.points.length);
    fig.querySelector('figcaption')!.textContent = `${m.name} against step (${m.points.length} points)`;
    drawPlot(canvas, m);
  });
  ui.plots.hidden = metrics.length === 0;
}

function resetResults(): void {
  printed = '';
  ui.output.replaceChildren();
  for (const pre of Object.values(ui.dumps)) pre.textContent = '';
  updatePlots();
}

function showTab(tab: Tab): void {
  for (const b of ui.tabs) {
    const on = b.dataset['tab'] === tab;
    b.setAttribute('aria-selected', String(on));
    byId(`panel-${b.dataset['tab']}`).hidden = !on;
  }
  if (tab === 'output') updatePlots();
}

const seconds = (ms: number): string => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The worker: one per page, started again after Stop. Its script is a Blob URL (a file:// page cannot start one from a file). */
function getWorker(): Worker {
  if (worker) return worker;
  workerUrl ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  worker = new Worker(workerUrl, { name: 'jaxts-playground' });
  worker.addEventListener('message', (ev: MessageEvent<WorkerMessage>) => onMessage(ev.data));
  worker.addEventListener('error', (ev) => {
    ev.preventDefault();
    finishError('internal', `the worker failed: ${ev.message || 'could not start'}`, [], null);
  });
  return worker;
}

function onMessage(m: WorkerMessage): void {
  if (state !== 'compiling' && state !== 'running') return;
  switch (m.type) {
    case 'compiled':
      compileMs = m.ms;
      ui.dumps.ir.textContent = m.ir;
      ui.dumps.spmd.textContent = m.spmd;
      ui.dumps.kernels.textContent = m.kernels;
      setState('running');
      setStatus(`running… (compile ${seconds(compileMs)})`);
      break;
    case 'backend':
      backend = m.text;
      setStatus(`${backend} · compile ${seconds(compileMs)} · running…`);
      break;
    case 'print':
      write(m.text);
      break;
    case 'done':
      setStatus(`${backend} · compile ${seconds(compileMs)} · run ${seconds(m.ms)}`);
      setState('done');
      updatePlots();
      break;
    case 'error':
      finishError(m.phase, m.message, m.notes, m.place);
      break;
  }
}

function finishError(phase: 'compile' | 'run' | 'internal', message: string, notes: readonly string[], place: { line: number; col: number; endCol?: number } | null): void {
  if (printed && !printed.endsWith('\n')) appendOutput('\n');
  const where = place ? `${FILE}:${place.line}:${place.col}: ` : `${FILE}: `;
  if (phase === 'compile') appendOutput(`${where}error: ${message}\n${notes.map((n) => `  note: ${n}\n`).join('')}`, 'err');
  else appendOutput(`${place ? `${FILE}:${place.line}: ` : ''}${message}\n`, 'err');
  if (place) {
    const head = phase === 'compile' ? `${place.line}:${place.col}: error: ${message}` : `line ${place.line}: ${message}`;
    editor.showError({ ...place, message: head, notes, phase });
  }
  const what = phase === 'compile' ? 'compile error' : phase === 'run' ? 'runtime error' : 'internal error';
  setStatus(`${backend && phase === 'run' ? `${backend} · ` : ''}${what}${place ? ` at line ${place.line}` : ''}`, true);
  setState('error');
  updatePlots();
  showTab('output');
}

function run(): void {
  if (state === 'compiling' || state === 'running') return;
  editor.clearError();
  resetResults();
  backend = '';
  setState('compiling');
  setStatus('compiling…');
  started = performance.now();
  const req: RunRequest = { type: 'run', source: editor.value, file: FILE, backend: ui.backend.value as BackendChoice };
  getWorker().postMessage(req);
}

/** Stop a run: the worker is terminated (a new one starts with the next run). */
function stop(): void {
  if (state !== 'compiling' && state !== 'running') return;
  worker?.terminate();
  worker = null;
  if (printed && !printed.endsWith('\n')) appendOutput('\n');
  appendOutput('stopped\n', 'err');
  setStatus(`${backend ? `${backend} · ` : ''}stopped after ${seconds(performance.now() - started)}`);
  setState('stopped');
  updatePlots();
}

let keepTimer: ReturnType<typeof setTimeout> | undefined;

/** Keep the text (localStorage now, the URL a moment after the last keystroke). */
function keep(text: string): void {
  save(text);
  if (ui.example.value !== 'own' && EXAMPLES.find((x) => x.id === ui.example.value)?.source !== text) ui.example.value = 'own';
  clearTimeout(keepTimer);
  keepTimer = setTimeout(() => void updateUrl(text), 300);
}

async function updateUrl(text: string): Promise<void> {
  const hash = `#${await encodeSource(text)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

function loadExample(id: string): void {
  const ex = EXAMPLES.find((x) => x.id === id) ?? EXAMPLES[0]!;
  editor.value = ex.source;
  void updateUrl(ex.source);
  resetResults();
  setStatus('ready');
}

/** The program to start with: the URL's, else the one kept in localStorage, else the first example. */
async function initialSource(): Promise<string> {
  return (await decodeSource(location.hash)) ?? loadSaved() ?? EXAMPLES[0]!.source;
}

async function init(): Promise<void> {
  ui.example.append(new Option('your program', 'own'));
  ui.example.options[0]!.hidden = true;
  for (const ex of EXAMPLES) ui.example.append(new Option(ex.title, ex.id));
  ui.example.addEventListener('change', () => loadExample(ui.example.value));
  ui.run.addEventListener('click', () => run());
  ui.stop.addEventListener('click', () => stop());
  ui.share.addEventListener('click', async () => {
    await updateUrl(editor.value);
    try {
      await navigator.clipboard.writeText(location.href);
      setStatus('link copied');
    } catch {
      setStatus('the address bar has the link');
    }
  });
  for (const b of ui.tabs) b.addEventListener('click', () => showTab(b.dataset['tab'] as Tab));
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      run();
    } else if (ev.key === 'Escape' && (state === 'compiling' || state === 'running')) stop();
  });
  window.addEventListener('resize', () => schedulePlot());
  window.addEventListener('hashchange', async () => {
    const text = await decodeSource(location.hash);
    if (text !== null && text !== editor.value) editor.value = text;
  });
  const source = await initialSource();
  editor.value = source;
  starting = false;
  ui.example.value = EXAMPLES.find((x) => x.source === source)?.id ?? 'own';
  setState('idle');
  setStatus('ready');
  const api: PlaygroundApi = {
    get state() { return state; },
    get output() { return printed; },
    get metrics() { return metrics; },
    get status() { return ui.status.textContent ?? ''; },
    get source() { return editor.value; },
    set source(text: string) { editor.value = text; },
    run,
    stop,
  };
  (window as Window & { __jaxtsPlayground?: PlaygroundApi }).__jaxtsPlayground = api;
  document.body.dataset['ready'] = 'true';
}

void init();
