// jax.custom_jvp and jax.custom_vjp: functions with their own differentiation
// rules. Outside any differentiation the function is simply called. Under one
// (a grad / jvp / vjp / jacobian trace encloses the call) the function and its
// rule functions are traced and a custom_jvp_call / custom_vjp_call equation
// is recorded; passes/autodiff.ts then applies the rule (or, when no tangent
// reaches the call, the function itself).
//
// The equation's operands are the differentiated leaves, then every value the
// traced functions close over (their captures, merged); each traced function's
// parameters are rearranged to that layout:
//   call  [leaves, U] → outputs: the primal part of jvp or fwd (as in JAX, the function itself is not traced)
//   jvp   [leaves, U, tangents, tangents of U (unused)] → outputs, output tangents
//   fwd   [leaves, U]                      → outputs, residuals, U
//   bwd   [residuals, U, output cotangents] → one cotangent per leaf
import { CompileError } from '../common/diagnostics.js';
import { FuncBuilder, lit } from '../ir/builder.js';
import { markJitCall } from '../ir/jaxpr_printer.js';
import { preludeSpans } from './lib_example_libraries.js';
import type { Atom, AVal, Func, Var } from '../ir/types.js';
import { dce } from '../passes/simplify.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { deferBackwardPrints, deliverDebugCalls, takeDebugCalls, type DeferredPrints } from './debug_prints.js';
import { carryRefs, finishRefs } from './refs.js';
import { avalOf, flatten, underDifferentiation } from './transforms.js';
import {
  HostArray, NdArray, NpScalar, PyBuiltin, PyFunction, PyList, PyRef, PyTransformed, PyTuple, Trace, Tracer, isArray, typeName, type CallArgs, type PyValue,
} from './values.js';

/** jax.custom_jvp(fun, nondiff_argnums=()) and jax.custom_vjp(fun, nondiff_argnums=()) */
export function customOf(kind: 'custom_jvp' | 'custom_vjp', c: CallArgs): PyValue {
  const fun = c.args[0] ?? c.kwargs.get('fun');
  if (fun === undefined) throw new CompileError(`TypeError: ${kind}.__init__() missing 1 required positional argument: 'fun'`, c.span);
  for (const k of c.kwargs.keys()) {
    if (k !== 'fun' && k !== 'nondiff_argnums') throw new CompileError(`TypeError: ${kind}.__init__() got an unexpected keyword argument '${k}'`, c.span);
  }
  const spec = c.kwargs.get('nondiff_argnums') ?? c.args[1] ?? new PyTuple([]);
  const items = spec instanceof PyTuple || spec instanceof PyList ? spec.items : [spec];
  const nums = items.map((v) => {
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: nondiff_argnums must be a tuple of ints, got ${typeName(v)}`, c.span);
    return Number(v);
  });
  const name = fun && typeof fun === 'object' && 'name' in fun ? String((fun as { name: string }).name) : kind;
  return new PyTransformed(kind, fun, new Map<string, PyValue>([['nondiff_argnums', new PyTuple(nums.map(BigInt))]]), name);
}

/** `f.defjvp(jvp)`, `f.defjvps(*jvps)`, `f.defvjp(fwd, bwd)` on a custom_jvp / custom_vjp function. */
export function customAttr(fn: PyTransformed, name: string): PyValue | undefined {
  if (fn.transform === 'custom_jvp' && name === 'defjvp') {
    return new PyBuiltin('defjvp', (c) => {
      const rule = c.args[0] ?? c.kwargs.get('jvp');
      if (rule === undefined) throw new CompileError("TypeError: custom_jvp.defjvp() missing 1 required positional argument: 'jvp'", c.span);
      fn.options.set('jvp', rule);
      return rule;
    });
  }
  if (fn.transform === 'custom_jvp' && name === 'defjvps') {
    return new PyBuiltin('defjvps', (c) => {
      fn.options.set('jvps', new PyTuple(c.args));
      return null;
    });
  }
  if (fn.transform === 'custom_vjp' && name === 'defvjp') {
    return new PyBuiltin('defvjp', (c) => {
      const fwd = c.args[0] ?? c.kwargs.get('fwd');
      const bwd = c.args[1] ?? c.kwargs.get('bwd');
      if (fwd === undefined || bwd === undefined) throw new CompileError("TypeError: custom_vjp.defvjp() missing required positional arguments: 'fwd' and 'bwd'", c.span);
      fn.options.set('fwd', fwd);
      fn.options.set('bwd', bwd);
      return null;
    });
  }
  if (name === 'fun' || name === '__wrapped__') return fn.fn;
  return undefined;
}

interface TracedFn {
  func: Func;
  captured: (HostArray | Tracer)[];
}

/** Trace `body` on fresh parameters of types `avals`; its result leaves become the Func's results. */
export function traceFn(ip: Interp, name: string, avals: AVal[], span: A.Span, body: (ps: Tracer[]) => PyValue[], deferPrints?: DeferredPrints, outers: PyValue[] = []): TracedFn {
  const parent = ip.trace();
  const t = new Trace(name, 'custom', parent, parent.axisEnv);
  const ps = avals.map((a, i) => {
    const v = t.builder.addParam(a);
    // a primal parameter stands for its operand (concrete outside jit: src/lower/const_eval.ts)
    if (i < outers.length) t.outer.set(v, outers[i]!);
    return new Tracer(t, v);
  });
  // a backward rule may write refs (jax.new_ref) it was given: their new values are extra results, committed when it runs
  if (deferPrints) carryRefs(t, 'jit', name);
  let refs: ReturnType<typeof finishRefs> | null = null;
  const atoms = ip.withTrace(t, () => {
    try {
      return body(ps).map((l) => {
        if (!(isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean')) {
          throw new CompileError(`TypeError: the function returned a ${typeName(l)}, which is not a valid JAX type`, span);
        }
        return ip.ops.asArray(l, span).atom;
      });
    } finally {
      if (deferPrints) refs = finishRefs(ip, t, span);
    }
  });
  // a print inside a rule runs while the rule is traced (as in JAX): handed on to the enclosing trace, in order;
  // a backward rule's are kept for when a transpose applies it, the values they show as its extra results
  const debug = takeDebugCalls(t);
  if (deferPrints) {
    const w = refs as ReturnType<typeof finishRefs> | null;
    deferPrints.calls.push(...debug.calls);
    deferPrints.trace = t;
    deferPrints.count = debug.atoms.length + (w?.atoms.length ?? 0);
    // a ref keeps the type the rule wrote (a store is strongly typed even where the cotangent that reaches it is weak)
    const asWritten = (v: PyValue, i: number): Tracer | HostArray => {
      const a = ip.ops.asArray(v, span);
      return a.aval.weak && w!.atoms[i]!.aval.weak !== true && a instanceof Tracer ? ip.ops.convert(a, a.aval.dtype, span) : a;
    };
    if (w?.atoms.length) deferPrints.writes = { n: w.atoms.length, commit: (vs) => w.commit(vs.map(asWritten)) };
    return { func: t.builder.finish([...atoms, ...debug.atoms, ...(w?.atoms ?? [])], t.axisEnv), captured: t.captured };
  }
  if (debug.atoms.length) {
    throw new CompileError('jax.debug.print / callback showing a traced value inside a custom_jvp rule or a custom_vjp fwd rule is not supported by jaxts yet', debug.calls[0]!.span);
  }
  deliverDebugCalls(parent, debug.calls, [], t);
  return { func: t.builder.finish(atoms, t.axisEnv), captured: t.captured };
}

/**
 * `f` with its parameters in a new layout: `target` lists the new parameters'
 * types; `where[i]` is the new position of f's parameter i; `extra` adds
 * results computed from the new parameters.
 */
export function reparam(f: Func, target: AVal[], where: number[], extra: (ps: Var[]) => Atom[] = () => []): Func {
  const b = new FuncBuilder(f.name);
  const ps = target.map((a) => b.addParam(a));
  const outs = b.inline(f, where.map((w) => ps[w]!));
  return b.finish([...outs, ...extra(ps)], f.axisEnv);
}

const strip = (a: AVal): AVal => ({ shape: a.shape, dtype: a.dtype });

/** The first `nOut` results of `f` on its first `nIn` parameters, the others (tangents) zero; unused equations dropped. */
function primalPart(f: Func, nOut: number, nIn: number): Func {
  const b = new FuncBuilder(f.name);
  const ps = f.params.slice(0, nIn).map((p) => b.addParam(p.aval, p.hint));
  const zeros = f.params.slice(nIn).map((p) => b.bind1('broadcast_in_dim', [lit(0, p.aval.dtype)], { shape: [...p.aval.shape], broadcast_dimensions: [] }));
  const outs = b.inline(f, [...ps, ...zeros]).slice(0, nOut);
  return dce(b.finish(outs, f.axisEnv));
}

/** Call a custom_jvp / custom_vjp function. */
export function callCustom(ip: Interp, fn: PyTransformed, call: CallArgs): PyValue {
  const span = call.span;
  const kind = fn.transform as 'custom_jvp' | 'custom_vjp';
  if (kind === 'custom_jvp' && !fn.options.has('jvp') && !fn.options.has('jvps')) {
    throw new CompileError(`AttributeError: No JVP defined for custom_jvp function ${fn.name} using defjvp.`, span);
  }
  if (kind === 'custom_vjp' && !fn.options.has('fwd')) {
    throw new CompileError(`AttributeError: No VJP defined for custom_vjp function ${fn.name} using defvjp.`, span);
  }
  if (!underDifferentiation(ip)) {
    // (jaxts's own preludes' custom functions stand for JAX primitives: not shown as calls)
    if (ip.atHost || (fn.fn instanceof PyFunction && preludeSpans.has(fn.fn.def.span))) return ip.call(fn.fn, call);
    // called plainly; make_jaxpr shows the call as JAX's custom_jvp_call / custom_vjp_call equation
    const eqns = ip.trace().builder.eqns;
    const start = eqns.length;
    const out = ip.call(fn.fn, call);
    const atoms = (v: PyValue): Atom[] => flatten(v).leaves.flatMap((l) => (l instanceof Tracer && l.trace === ip.trace() ? [l.atom] : []));
    const ruleName = (k: string): string => {
      const r = fn.options.get(k);
      return r && typeof r === 'object' && 'name' in r && typeof r.name === 'string' ? r.name : k;
    };
    const params: [string, string | null][] = kind === 'custom_jvp'
      ? [['name', fn.name], ['call_jaxpr', null], ['jvp', ruleName(fn.options.has('jvp') ? 'jvp' : 'jvps')], ['symbolic_zeros', 'False']]
      : [['name', fn.name], ['bwd', ruleName('bwd')], ['call_jaxpr', null], ['fwd', ruleName('fwd')], ['symbolic_zeros', 'False']];
    if (ip.trace().builder.eqns === eqns) markJitCall(eqns, start, fn.name, atoms(new PyTuple([...call.args, ...call.kwargs.values()])), atoms(out), { prim: `${kind}_call`, params });
    return out;
  }
  if (call.kwargs.size) {
    throw new CompileError(`TypeError: keyword arguments to the ${kind}-decorated function ${fn.name} are not supported by jaxts under differentiation; pass them positionally`, span);
  }
  const nondiff = new Set((fn.options.get('nondiff_argnums') as PyTuple).items.map((v) => Number(v)));
  const args = call.args;
  const diffIdx = args.map((_, i) => i).filter((i) => !nondiff.has(i));
  const staticArgs = [...nondiff].sort((a, b) => a - b).map((i) => args[i]!);
  const flats = diffIdx.map((i) => flatten(args[i]!));
  // a custom_vjp function's refs (jax.new_ref) pass into its rules as they are: not operands, no cotangent
  const isRef = (l: PyValue): boolean => kind === 'custom_vjp' && l instanceof PyRef;
  const leaves = flats.flatMap((f) => f.leaves).filter((l) => !isRef(l));
  const avals = leaves.map((l) => {
    const a = avalOf(ip, l, span);
    return typeof l === 'number' ? { ...a, weak: true } : a;
  });
  const n = leaves.length;
  /** The differentiated arguments rebuilt from parameters (in order of diffIdx). */
  const diffArgs = (ps: PyValue[]): PyValue[] => {
    let k = 0;
    return flats.map((f) => f.unflatten(f.leaves.map((l) => (isRef(l) ? l : ps[k++]!))));
  };
  const allArgs = (ps: PyValue[]): PyValue[] => {
    const d = diffArgs(ps);
    const out = [...args];
    diffIdx.forEach((i, k) => (out[i] = d[k]!));
    return out;
  };
  const callFn = (f: PyValue, a: PyValue[]): PyValue => ip.call(f, { args: a, kwargs: new Map(), span });

  // the output structure: from the rule's primal output (the function itself is not traced, as in JAX)
  let outFlat = flatten(null);
  let nOut = 0;

  const pairOf = (v: PyValue, what: string): [PyValue, PyValue] => {
    if (!((v instanceof PyTuple && !v.cls) || v instanceof PyList) || v.items.length !== 2) throw new CompileError(`TypeError: ${what}, but got ${ip.repr(v, span).static ?? typeName(v)}.`, span);
    return [v.items[0]!, v.items[1]!];
  };

  const traced: TracedFn[] = [];
  let params: Record<string, Func>;
  let U: (HostArray | Tracer)[];
  const merge = (): void => {
    U = [];
    for (const t of traced) for (const c of t.captured) if (!U.includes(c)) U.push(c);
  };
  const capAt = (t: TracedFn, base: number): number[] => t.captured.map((c) => base + U.indexOf(c));
  const uAvals = (): AVal[] => U.map((c) => c.aval);

  if (kind === 'custom_jvp') {
    const rule = fn.options.get('jvp');
    const jvps = fn.options.get('jvps') as PyTuple | undefined;
    const jvp0 = traceFn(ip, `${fn.name}_jvp`, [...avals, ...avals], span, (ps) => {
      const primals = diffArgs(ps.slice(0, n));
      const tangents = diffArgs(ps.slice(n));
      let pOut: PyValue;
      let tOut: PyValue;
      if (rule !== undefined) {
        [pOut, tOut] = pairOf(
          callFn(rule, [...staticArgs, new PyTuple(primals), new PyTuple(tangents)]),
          `Custom JVP rule ${typeName(rule) === 'function' ? (rule as { name?: string }).name ?? 'jvp' : 'jvp'} for function ${fn.name} must produce a pair (list or tuple of length two) representing primal and tangent outputs`,
        );
      } else {
        // defjvps: one rule per argument, (tangent, ans, *primals) → its contribution, summed
        pOut = callFn(fn.fn, allArgs(ps.slice(0, n)));
        let acc: PyValue = null;
        jvps!.items.forEach((j, k) => {
          if (j === null) return;
          const c = callFn(j, [tangents[k]!, pOut, ...primals]);
          acc = acc === null ? c : ip.ops.binary('add', acc, c, span);
        });
        tOut = acc ?? ip.ops.binary('mul', pOut, 0, span);
      }
      outFlat = flatten(pOut);
      const pf = outFlat.leaves;
      nOut = pf.length;
      const tf = flatten(tOut).leaves;
      if (tf.length !== nOut) {
        throw new CompileError(`TypeError: Custom JVP rule for function ${fn.name} must produce primal and tangent outputs with equal container (pytree) structures`, span);
      }
      return [...pf, ...tf];
    }, undefined, leaves);
    traced.push(jvp0);
    merge();
    const m = U!.length;
    const jvp = reparam(
      jvp0.func,
      [...avals, ...uAvals(), ...avals, ...uAvals()],
      [...avals.map((_, i) => i), ...avals.map((_, i) => n + m + i), ...capAt(jvp0, n)],
    );
    // the function: the rule's primal outputs, with zero tangents
    const call = primalPart(jvp, nOut, n + m);
    params = { call, jvp };
  } else {
    let resFlat = flatten(null);
    const fwd0 = traceFn(ip, `${fn.name}_fwd`, avals, span, (ps) => {
      const [o, r] = pairOf(
        callFn(fn.options.get('fwd')!, allArgs(ps)),
        `Custom VJP fwd rule for function ${fn.name} must produce a pair (list or tuple of length two) where the first element represents the primal output (equal to those of the custom_vjp-decorated function ${fn.name}) and the second element represents residuals (i.e. values stored from the forward pass for use on the backward pass)`,
      );
      outFlat = flatten(o);
      const of = outFlat.leaves;
      nOut = of.length;
      resFlat = flatten(r);
      return [...of, ...resFlat.leaves.filter((l) => !(l instanceof PyRef))];
    }, undefined, leaves);
    // refs among the residuals are handed to the backward rule as they are
    const resLeaves = (ps: PyValue[]): PyValue[] => {
      let k = 0;
      return resFlat.leaves.map((l) => (l instanceof PyRef ? l : ps[k++]!));
    };
    const nRes = resFlat.leaves.filter((l) => !(l instanceof PyRef)).length;
    const resAvals = fwd0.func.results.slice(nOut).map((r) => r.aval);
    const outAvals = fwd0.func.results.slice(0, nOut).map((r) => strip(r.aval));
    const bwdPrints: DeferredPrints = { calls: [], trace: null, count: 0 };
    const bwd0 = traceFn(ip, `${fn.name}_bwd`, [...resAvals, ...outAvals], span, (ps) => {
      const cts = callFn(fn.options.get('bwd')!, [...staticArgs, resFlat.unflatten(resLeaves(ps.slice(0, nRes))), outFlat.unflatten(ps.slice(nRes))]);
      if (!((cts instanceof PyTuple && !cts.cls) || cts instanceof PyList) || cts.items.length !== flats.length) {
        throw new CompileError(
          `TypeError: Custom VJP bwd rule must produce a tuple of length equal to the number of arguments to the primal function (${flats.length}), but got ${ip.repr(cts, span).static ?? typeName(cts)}`,
          span,
        );
      }
      let base = 0;
      return cts.items.flatMap((ct, k) => {
        const fl = flats[k]!;
        const arrays = fl.leaves.filter((l) => !isRef(l)).length;
        base += arrays;
        if (ct === null) {
          return avals.slice(base - arrays, base).map((a) => ip.ops.tracer(ip.ops.bind('broadcast_in_dim', [lit(0, a.dtype)], { shape: [...a.shape], broadcast_dimensions: [] }, span)));
        }
        const ls = flatten(ct).leaves;
        if (ls.length !== fl.leaves.length) throw new CompileError('TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function', span);
        return ls.filter((_, q) => !isRef(fl.leaves[q]!));
      });
    }, bwdPrints);
    traced.push(fwd0, bwd0);
    merge();
    const m = U!.length;
    const fwd = reparam(fwd0.func, [...avals, ...uAvals()], [...avals.map((_, i) => i), ...capAt(fwd0, n)], (ps) => ps.slice(n, n + m));
    const bwd = reparam(
      bwd0.func,
      [...resAvals, ...uAvals(), ...outAvals],
      [...resAvals.map((_, i) => i), ...outAvals.map((_, i) => nRes + m + i), ...capAt(bwd0, nRes)],
    );
    if (bwdPrints.calls.length || bwdPrints.writes) deferBackwardPrints(bwd, bwdPrints);
    // the function: the forward rule's primal outputs
    const call = primalPart(fwd, nOut, n + m);
    params = { call, fwd, bwd };
  }
  const inputs = [...leaves.map((l) => ip.ops.asArray(l, span).atom), ...U!.map((c) => ip.ops.atom(c, span))];
  const b = ip.trace().builder;
  const outs = b.bind(kind === 'custom_jvp' ? 'custom_jvp_call' : 'custom_vjp_call', inputs, params, span);
  return outFlat.unflatten(outs.map((o) => ip.ops.tracer(o)));
}
