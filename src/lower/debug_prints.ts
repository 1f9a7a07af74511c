// jax.debug.print / jax.debug.callback inside traced code: each call is
// recorded on its trace with the array operands it shows. When the trace
// ends, the transformation (transforms.ts) makes the operands extra results
// of the traced function and hands the records to the enclosing trace with
// the results in their place (vmap: one record per batch element, as JAX's
// batching rule calls the callback per element), until they reach the host:
// there the print (or the Python callback) runs with the concrete arrays,
// right after the program that computed them.
import { CompileError } from '../common/diagnostics.js';
import type { Atom, Func } from '../ir/types.js';
import type { Interp } from './interp.js';
import type * as A from '../parser/ast.js';
import { isArray, Tracer, type PyValue, type Trace } from './values.js';


export interface DebugCall {
  /** Runs it at host level with the operands concrete (a print's text, or the Python callback). */
  run: (args: PyValue[], kwargs: Map<string, PyValue>) => void;
  args: PyValue[];
  kwargs: Map<string, PyValue>;
  span: A.Span;
  /** A print made while tracing (outside jit): once, not per batch element; under vmap its values are not batched. */
  once?: true;
  /**
   * Made in a branch of lax.cond / lax.switch: it happens only where each
   * guard's index (an int32 scalar, handed on like the shown values) equals
   * its branch. Under vmap a batched index drops its guard: JAX then runs
   * every branch for every element (the cond becomes a select).
   */
  guards?: Guard[];
}

export interface Guard {
  index: PyValue;
  branch: number;
  /** At host level: run `body` where the (concrete) indices equal their branches. */
  when: (guards: Guard[], body: () => void) => void;
}

const pending = new WeakMap<Trace, DebugCall[]>();

/** The traces whose transformation hands their debug calls on (transforms.ts); elsewhere a call would be lost. */
const CARRIERS = new Set<string>(['jit', 'vmap', 'grad', 'custom']);

/** Other traces whose caller hands their debug calls on (an eager shard_map's body: src/lower/shard_map.ts). */
const carriers = new WeakSet<Trace>();
export function carryDebugCalls(t: Trace): void {
  carriers.add(t);
}

export function recordDebugCall(t: Trace, call: DebugCall): void {
  if (!CARRIERS.has(t.kind) && !carriers.has(t)) throw new CompileError(`jax.debug.print / callback (or a print showing a concrete value) inside ${t.kind} is not supported by jaxts yet`, call.span);
  pending.set(t, [...(pending.get(t) ?? []), call]);
}

/** How many debug calls trace `t` has recorded so far. */
export const pendingDebugCalls = (t: Trace): number => pending.get(t)?.length ?? 0;

/** The values a call depends on, in the order they are handed on: its operands, then its guards' indices. */
const shown = (c: DebugCall): PyValue[] => [...c.args, ...c.kwargs.values(), ...(c.guards ?? []).map((g) => g.index)];

/** How many of the atoms takeDebugCalls gives are call `c`'s (its operands and guards on trace `t`). */
export const debugCallAtoms = (c: DebugCall, t: Trace): number => shown(c).filter((v) => v instanceof Tracer && v.trace === t).length;

/** The debug calls of a finished trace and the atoms they show (the traced function's extra results). */
export function takeDebugCalls(t: Trace): { calls: DebugCall[]; atoms: Atom[] } {
  const calls = pending.get(t) ?? [];
  pending.delete(t);
  const atoms: Atom[] = [];
  for (const c of calls) for (const v of shown(c)) if (v instanceof Tracer && v.trace === t) atoms.push(v.atom);
  return { calls, atoms };
}

/**
 * Hand `calls` on with `values` (one per atom takeDebugCalls gave, now values
 * of the enclosing trace `parent`, or host arrays), in order. `perElement`
 * (vmap): each value has a leading batch axis of that size, and `index(v, i)`
 * gives element i; the call happens once per element. At host level the calls
 * run now; inside another trace they are recorded on it.
 */
export function deliverDebugCalls(
  parent: Trace | null,
  calls: DebugCall[],
  values: PyValue[],
  traceOf: Trace,
  perElement?: {
    size: number;
    index: (v: PyValue, i: number) => PyValue;
    /** Per value: whether vmap batched it (every value has the batch axis; an index that was not batched keeps its guard). */
    batched?: boolean[];
  },
  /** At host level: materialise these values together before the calls run (interp's flush). */
  flush?: (vs: PyValue[]) => void,
): void {
  if (!calls.length) return;
  let k = 0;
  const unbatched = new Set<PyValue>();
  const rebuilt = calls.map((c) => {
    const sub = (v: PyValue): PyValue => {
      if (!(v instanceof Tracer && v.trace === traceOf)) return v;
      const j = k++;
      if (perElement?.batched && !perElement.batched[j]) unbatched.add(values[j]!);
      return values[j]!;
    };
    // in takeDebugCalls's order: operands, then guards
    const args = c.args.map(sub);
    const kwargs = new Map([...c.kwargs].map(([n, v]) => [n, sub(v)]));
    const guards = (c.guards ?? []).map((g) => ({ ...g, index: sub(g.index) }));
    // vmap of a cond whose index is batched: every branch runs for every element (JAX's select)
    const kept = perElement?.batched ? guards.filter((g) => !values.includes(g.index) || unbatched.has(g.index)) : guards;
    return { c, args, kwargs, guards: kept };
  });
  const runs: { c: DebugCall; args: PyValue[]; kwargs: Map<string, PyValue>; guards: Guard[] }[] = [];
  for (const { c, args, kwargs, guards } of rebuilt) {
    const first = (v: PyValue): PyValue => (perElement && values.includes(v) && isArray(v) ? perElement.index(v, 0) : v);
    const copies = c.once
      ? [{ args: args.map(first), kwargs: new Map([...kwargs].map(([n, v]) => [n, first(v)])), guards: guards.map((g) => ({ ...g, index: first(g.index) })) }]
      : perElement
      ? Array.from({ length: perElement.size }, (_, i) => {
          const el = (v: PyValue): PyValue => (values.includes(v) && isArray(v) ? perElement.index(v, i) : v);
          return { args: args.map(el), kwargs: new Map([...kwargs].map(([n, v]) => [n, el(v)])), guards: guards.map((g) => ({ ...g, index: el(g.index) })) };
        })
      : [{ args, kwargs, guards }];
    for (const cp of copies) runs.push({ c, ...cp });
  }
  if (parent && parent.kind !== 'segment') {
    for (const r of runs) {
      const call: DebugCall = { ...r.c, args: r.args, kwargs: r.kwargs };
      if (r.guards.length) call.guards = r.guards;
      else delete call.guards;
      recordDebugCall(parent, call);
    }
    return;
  }
  flush?.(runs.flatMap((r) => [...r.args, ...r.kwargs.values(), ...r.guards.map((g) => g.index)]));
  for (const r of runs) {
    if (r.guards.length) r.guards[0]!.when(r.guards, () => r.c.run(r.args, r.kwargs));
    else r.c.run(r.args, r.kwargs);
  }
}

/**
 * The prints a custom_vjp's backward rule made while it was traced, by its
 * (final) Func: they are shown when a transpose applies the rule, as JAX runs
 * the backward rule only then. The `count` values they show are the backward
 * Func's last results.
 */
export interface DeferredPrints {
  calls: DebugCall[];
  trace: Trace | null;
  count: number;
  /** The rule's writes of outer refs (jax.new_ref): their new values are the last `writes.n` of the `count` values, committed when the rule runs. */
  writes?: { n: number; commit: (values: PyValue[]) => void };
}
const backwardPrints = new WeakMap<Func, DeferredPrints>();

export function deferBackwardPrints(bwd: Func, prints: DeferredPrints): void {
  backwardPrints.set(bwd, prints);
}

/** How many of `bwd`'s results are values its prints show (its last ones). */
export const backwardPrintValues = (bwd: Func): number => backwardPrints.get(bwd)?.count ?? 0;

/**
 * A transpose applied the custom_vjp backward function `bwd`, its prints showing `values`: they happen now
 * (at host level, after `results`, the program's other values, are materialised with them).
 */
export function backwardApplied(ip: Interp, bwd: Func, values: PyValue[], results: PyValue[] = []): void {
  const p = backwardPrints.get(bwd);
  if (!p) return;
  const nw = p.writes?.n ?? 0;
  const shown = values.slice(0, values.length - nw);
  deliverDebugCalls(ip.trace(), p.calls, shown, p.trace ?? ip.trace(), undefined, shown.length || results.length ? (vs) => ip.flush([...vs, ...results]) : undefined);
  p.writes?.commit(values.slice(values.length - nw));
}
