// The state of host callbacks' staging (src/lower/callbacks.ts): which jit
// traces may meet a callback (with placeholder results), and the replay of a
// transformed function on the host (its Python prints silent, its dead pure
// callbacks skipped). Kept apart from callbacks.ts so that the
// transformations (transforms.ts, control_flow.ts) and print can ask it
// without an import cycle.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import type { Atom } from '../ir/types.js';
import type { Interp } from './interp.js';
import type { Trace } from './values.js';

/** A callback met inside a trace that cannot run it: the nearest transformation at host level runs without tracing. */
export class HostCallbackInTrace extends CompileError {
  constructor(what: string, where: string, span: A.Span) {
    super(`NotImplementedError: ${what} inside ${where} is not supported by jaxts (at host level, and inside jit, vmap, lax.scan, fori_loop and lax.map called there, it is)`, span);
  }
}

export type Kind = 'pure' | 'io';

/** A jit trace (called at host level) whose callbacks give placeholders, with them in order. */
interface StagedTrace {
  placeholders: { kind: Kind; atoms: Atom[] }[];
}
const stageable = new WeakMap<Trace, StagedTrace>();

/** Per interpreter: how deep in a host replay of a transformation, and the pure callbacks a jit replay skips. */
interface Replay {
  /** > 0: the Python of a transformed function runs again on the host (its own prints are silent). */
  depth: number;
  /** > 0: inside a Python callback (prints print). */
  inCallback: number;
  /** Inside a vmap replay (per element). */
  vmap: number;
  /** Per pure callback of the jit being replayed, in order: whether JAX keeps it (null: all run). */
  live: boolean[] | null;
  next: number;
}
const replays = new WeakMap<Interp, Replay>();
export const replayOf = (ip: Interp): Replay => {
  let r = replays.get(ip);
  if (!r) replays.set(ip, (r = { depth: 0, inCallback: 0, vmap: 0, live: null, next: 0 }));
  return r;
};

/** Whether a Python print() runs now: not while a transformed function's Python is replayed (outside its callbacks). */
export function printSilenced(ip: Interp): boolean {
  const r = replays.get(ip);
  return r !== undefined && r.depth > 0 && r.inCallback === 0;
}

/** The staging of jit trace `t` when it may meet callbacks. */
export const stagedTrace = (t: Trace): StagedTrace | undefined => stageable.get(t);

/** Let the host jit trace `t` meet callbacks (with placeholders); callJit asks stagedLiveness after tracing. */
export function allowCallbacks(t: Trace): void {
  stageable.set(t, { placeholders: [] });
}

/**
 * After tracing: null when `t` met no callback; otherwise, per pure callback in
 * order, whether its results reach `results` (JAX keeps it then).
 */
export function stagedLiveness(t: Trace, results: Atom[]): boolean[] | null {
  const s = stageable.get(t);
  stageable.delete(t);
  if (!s || !s.placeholders.length) return null;
  const live = new Set<number>();
  for (const a of results) if (a.kind === 'var') live.add(a.id);
  const eqns = t.builder.eqns;
  for (let i = eqns.length - 1; i >= 0; i--) {
    const e = eqns[i]!;
    if (e.outputs.some((o) => live.has(o.id))) for (const a of e.inputs) if (a.kind === 'var') live.add(a.id);
  }
  return s.placeholders.filter((p) => p.kind === 'pure').map((p) => p.atoms.some((a) => a.kind === 'var' && live.has(a.id)));
}

/** Run `body` as a host replay of a transformed function: its Python prints are silent, its callbacks run. */
export function replaying<T>(ip: Interp, live: boolean[] | null, body: () => T, perElement = false): T {
  const r = replayOf(ip);
  const saved = { live: r.live, next: r.next };
  r.depth++;
  if (perElement) r.vmap++;
  if (live) Object.assign(r, { live, next: 0 });
  try {
    return body();
  } finally {
    r.depth--;
    if (perElement) r.vmap--;
    Object.assign(r, saved);
  }
}


/** The comment a vmap replay's element leaves before each host effect (a callback, a jax.debug print), to order them as JAX does. */
export const EFFECT_MARK = '\u0000host effect';

/** Before a host effect: inside a vmap replay, mark where it starts (vmapOnHost orders the elements' effects by these). */
export function markEffect(ip: Interp): void {
  if ((replays.get(ip)?.vmap ?? 0) > 0) ip.emit({ k: 'comment', text: EFFECT_MARK });
}
