// The playground's worker (bundled into the page's script as text and started
// from a Blob URL, so the page works from a file:// URL too): compiles a
// program, posts its dumps, runs it on WebGPU or the CPU backend and posts
// what it prints. The page stays responsive however long the run takes, and
// Stop terminates this worker.
import { PythonError } from '../runtime/index.js';
import { CompileError } from '../src/common/diagnostics.js';
import { dumpIr, dumpKernels, dumpSpmd } from '../src/compile.js';
import type { RunRequest, SourcePlace, WorkerMessage } from './protocol.js';
import { compileSource, loadProgram, makeRuntime, resetWebGpu } from './runner.js';
import { decodeLineMap, pythonLineOfStack } from './sourcelines.js';

const post = (m: WorkerMessage): void => (self as unknown as { postMessage(m: WorkerMessage): void }).postMessage(m);

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.name && e.name !== 'Error' && !e.message.startsWith(e.name) ? `${e.name}: ${e.message}` : e.message;
}

/** Each dump on its own: a program the dumps cannot print still runs. */
function safeDump(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `# cannot print this: ${errorText(e)}\n`;
  }
}

async function run(req: RunRequest): Promise<void> {
  const t0 = performance.now();
  let compiled;
  try {
    compiled = compileSource(req.source, req.file);
  } catch (e) {
    if (e instanceof CompileError) {
      const place: SourcePlace | null = e.span
        ? { line: e.span.start.line, col: e.span.start.col, endCol: e.span.end.line === e.span.start.line ? e.span.end.col : undefined }
        : null;
      post({ type: 'error', phase: 'compile', message: e.message, notes: [...e.notes], place });
    } else post({ type: 'error', phase: 'internal', message: `internal compiler error: ${errorText(e)}`, notes: [], place: null });
    return;
  }
  const { program, result } = compiled;
  post({
    type: 'compiled',
    ms: performance.now() - t0,
    ir: safeDump(() => dumpIr(result)),
    spmd: safeDump(() => dumpSpmd(result)),
    kernels: safeDump(() => dumpKernels(result)),
  });
  let hostUrl = '';
  try {
    const { module, url } = await loadProgram(program);
    hostUrl = url;
    const rt = await makeRuntime(req.backend, module.deviceCount, (text) => post({ type: 'print', text }));
    const backend = rt.backend.kind === 'webgpu' ? `WebGPU (${rt.backend.description || 'adapter'})` : req.backend === 'cpu' ? 'CPU backend' : 'CPU backend (no WebGPU adapter)';
    post({ type: 'backend', text: backend });
    const t1 = performance.now();
    await module.main(rt);
    await rt.sync();
    post({ type: 'done', ms: performance.now() - t1 });
  } catch (e) {
    console.error(e);
    let line = e instanceof PythonError ? e.line : null;
    if (line === null && e instanceof Error && e.stack && hostUrl) line = pythonLineOfStack(e.stack, hostUrl, decodeLineMap(result.hostMap));
    post({ type: 'error', phase: 'run', message: errorText(e), notes: [], place: line === null ? null : { line, col: 1 } });
    resetWebGpu();
  }
}

self.addEventListener('message', (ev: MessageEvent<RunRequest>) => {
  if (ev.data.type === 'run') void run(ev.data);
});
