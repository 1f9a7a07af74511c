// A trace: the Func being recorded for a jit/pmap/vmap body or a host segment.
// Values from outside the trace (host arrays, tracers of an enclosing trace)
// become extra parameters when first used — JAX's closed-over constants.
import { FuncBuilder } from '../ir/builder.js';
import type { Atom, Var } from '../ir/types.js';
import { HostArray, Tracer } from './values.js';

export type TraceKind = 'segment' | 'jit' | 'pmap' | 'vmap' | 'grad';

export class Trace {
  readonly builder: FuncBuilder;
  /** Outer values used inside, in parameter order after the declared parameters. */
  readonly captured: (HostArray | Tracer)[] = [];
  private captureVar = new Map<HostArray | Tracer, Var>();
  /** Tracers made on this trace so far (none: a flush has nothing to look for). */
  tracers = 0;

  constructor(
    name: string,
    readonly kind: TraceKind,
    readonly parent: Trace | null,
    /** Named axes in scope (pmap axis_name → size), innermost last. */
    readonly axisEnv: { name: string; size: number }[] = [],
  ) {
    this.builder = new FuncBuilder(name);
  }

  /** This trace's atom for an array value, capturing it when it comes from outside. */
  atomOf(v: Tracer | HostArray): Atom {
    let outer: HostArray | Tracer = v;
    if (v instanceof Tracer) {
      if (v.trace === this) return v.atom;
      if (v.materialized) outer = v.materialized;
    }
    let p = this.captureVar.get(outer);
    if (!p) {
      p = this.builder.addParam(outer instanceof HostArray ? outer.aval : outer.aval, outer instanceof HostArray ? outer.name : undefined);
      this.captureVar.set(outer, p);
      this.captured.push(outer);
    }
    return p;
  }

}
