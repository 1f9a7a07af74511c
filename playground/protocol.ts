// The messages between the playground page (main.ts) and its worker
// (worker.ts), which compiles and runs the program off the page's thread.
export type BackendChoice = 'auto' | 'webgpu' | 'cpu';

/** Page → worker: compile `source` and run it. */
export interface RunRequest {
  type: 'run';
  source: string;
  file: string;
  backend: BackendChoice;
}

/** Where in the Python source an error is (1-based; endCol just past its end when on the same line). */
export interface SourcePlace {
  line: number;
  col: number;
  endCol?: number;
}

/** Worker → page. */
export type WorkerMessage =
  /** Compiled: the timings and the program's dumps (`--dump ir`, `--dump spmd`, `--dump kernels`). */
  | { type: 'compiled'; ms: number; ir: string; spmd: string; kernels: string }
  /** The backend the run uses, in words. */
  | { type: 'backend'; text: string }
  /** Text the program printed. */
  | { type: 'print'; text: string }
  | { type: 'done'; ms: number }
  /** A compile error (CompileError), a run-time error (an exception the program raised) or a bug in jaxts. */
  | { type: 'error'; phase: 'compile' | 'run' | 'internal'; message: string; notes: string[]; place: SourcePlace | null };
