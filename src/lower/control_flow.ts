// jax.lax control flow: cond, switch, while_loop, fori_loop, scan, map, as
// JAX writes them (jax/_src/lax/control_flow/{conditionals,loops}.py). Each
// traces its functions into sub-Funcs (values they close over become leading
// constant operands, JAX's consts) and binds one cond / while / scan
// equation; the passes and the runtime run those as nested programs. At top
// level they trace the same way, as JAX does outside jit.
import { HostCallbackInTrace } from './callback_staging.js';
import { scanOnHost, whileOnHost } from './callbacks.js';
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { lit, type FuncBuilder } from '../ir/builder.js';
import type { Atom, AVal, Func } from '../ir/types.js';
import type { HExpr } from '../ir/host.js';
import { isInt, sameShape } from '../ir/types.js';
import { reparam } from './custom_rules.js';
import type { Interp } from './interp.js';
import { deliverDebugCalls, takeDebugCalls, type DebugCall, type Guard } from './debug_prints.js';
import { arg, intArg } from './modules.js';
import { flatten } from './transforms.js';
import { equalityErrors, leafPaths } from './tree_diff.js';
import { noteSubTraceOuters } from './lib_sharding.js';
import { carryRefs, finishRefs, readRef, RetraceRefs, writeRef } from './refs.js';
import {
  HostArray, NdArray, NpScalar, PyBoundMethod, PyBuiltin, PyDict, PyFunction, PyInstance, PyList, PyPartial, PyRef, PyTransformed, PyTuple, PyUserClass, Trace, Tracer,
  isArray, typeName, type CallArgs, type PyValue,
} from './values.js';

/** A function traced for a control-flow primitive: its Func takes [closed-over values..., declared parameters...]. */
interface Traced {
  func: Func;
  captured: (HostArray | Tracer)[];
  /** The Python value it returned (leaves are the Func's results, in order). */
  out: PyValue;
  rebuild: (leaves: PyValue[]) => PyValue;
  outAvals: AVal[];
  /** jax.debug.print calls inside (their shown values are the Func's last `debug.atoms.length` results) and the trace they were made on. */
  debug: { calls: DebugCall[]; count: number; trace: Trace; atoms: Atom[] };
  /** The Func again, its results the declared ones, then `extra`'s atoms (bound in its builder), then the refs' final values. */
  refinish: (extra: (b: FuncBuilder) => Atom[]) => Func;
  /** A loop body's outer refs (jax.new_ref): each a carry, its parameter one of the captured ones, its final value a result after the debug ones. */
  refs: { ref: PyRef; captured: number; init: Tracer | HostArray }[];
}

const isCallable = (v: PyValue): boolean =>
  v instanceof PyFunction || v instanceof PyBuiltin || v instanceof PyBoundMethod || v instanceof PyPartial || v instanceof PyTransformed || v instanceof PyUserClass || v instanceof PyInstance;

/** A pytree's structure as text (leaves are `*`), to compare structures. */
function treeSig(v: PyValue): string {
  if (v instanceof PyTuple) return `${v.cls ? v.cls.name : ''}(${v.items.map(treeSig).join(',')})`;
  if (v instanceof PyList) return `[${v.items.map(treeSig).join(',')}]`;
  if (v instanceof PyDict) return `{${[...v.entries.values()].map(([k, x]) => `${String(k)}:${treeSig(x)}`).sort().join(',')}}`;
  if (v === null) return 'None';
  if (v instanceof PyInstance && v.cls.pytree) return `${v.cls.name}(${flatten(v).leaves.map(() => '*').join(',')})`;
  return '*';
}

const str = (a: AVal): string => `${a.dtype}[${a.shape.join(',')}]`;
const mismatch = (a: AVal, b: AVal): string => (a.dtype !== b.dtype ? ', so the dtypes do not match' : sameShape(a.shape, b.shape) ? '' : ', so the shapes do not match');
const typeMatch = (a: AVal, b: AVal): boolean => a.dtype === b.dtype && sameShape(a.shape, b.shape);
const capitalize = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
/** JAX's list of differences in an error: one sentence, or one bullet per difference. */
const differencesText = (diffs: string[]): string =>
  diffs.length === 1 ? `${capitalize(diffs[0]!)}.\n` : diffs.slice(0, -1).map((d) => `  * ${d};\n`).join('\n') + `  * ${diffs[diffs.length - 1]}.\n`;

/**
 * Trace `body` on fresh parameters of types `avals` in a trace nested in the
 * current one; the Func's parameters come out as [captured..., declared...].
 */
function traceSub(ip: Interp, name: string, avals: AVal[], span: Span, body: (ps: Tracer[]) => PyValue, what?: string, carriesRefs: 'scan' | 'discover' | null = null, outers?: readonly (PyValue | undefined)[]): Traced {
  const parent = ip.trace();
  const t = new Trace(name, 'jit', parent, parent.axisEnv);
  // the parameters' types (their shardings) are those of the values they stand for
  if (outers) noteSubTraceOuters(t, outers);
  const ps = avals.map((a) => new Tracer(t, t.builder.addParam(a)));
  if (carriesRefs) carryRefs(t, carriesRefs);
  return ip.withTrace(t, () => {
    let out: PyValue;
    try {
      out = body(ps);
    } catch (e) {
      finishRefs(ip, t, span);
      throw e;
    }
    const refs = finishRefs(ip, t, span);
    const flat = flatten(out, true);
    const atoms = flat.leaves.map((l) => {
      if (!(isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean')) {
        throw new CompileError(`TypeError: Value ${ip.repr(l, span).static ?? typeName(l)} of type ${typeName(l)} is not a valid JAX type`, span);
      }
      return ip.ops.asArray(l, span).atom;
    });
    // jax.debug.print inside: a scan body gives the values it shows as extra stacked results, printed per step;
    // a cond branch gives them as extra results too (condCore pads each branch with the others' values)
    const debug = takeDebugCalls(t);
    // (a while loop's iterations are not known ahead: at host level it runs as a host loop, callbacks.ts)
    if (debug.calls.length && what) throw new HostCallbackInTrace('jax.debug.print / jax.debug.callback', what, debug.calls[0]!.span);
    const n = avals.length;
    const m = t.captured.length;
    const finishWith = (extra: Atom[]): Func => {
      const f = t.builder.finish([...atoms, ...extra, ...refs.atoms], t.axisEnv);
      // consts first, as JAX's jaxprs take them
      return m ? reparam(f, f.params.map((p) => p.aval).slice(n).concat(avals), [...avals.map((_, i) => m + i), ...t.captured.map((_, i) => i)]) : f;
    };
    return {
      func: finishWith(debug.atoms), captured: [...t.captured], out, rebuild: flat.unflatten, outAvals: atoms.map((a) => a.aval),
      debug: { calls: debug.calls, count: debug.atoms.length, trace: t, atoms: debug.atoms },
      refinish: (extra) => finishWith(extra(t.builder)),
      refs: refs.scan,
    };
  });
}

/** The funcs of several traced functions over the union of their captures: each takes [U..., declared...]. */
function mergeConsts(ip: Interp, ts: Traced[], span: Span): { funcs: Func[]; consts: Atom[] } {
  const U: (HostArray | Tracer)[] = [];
  for (const t of ts) for (const c of t.captured) if (!U.includes(c)) U.push(c);
  const uAvals = U.map((c) => c.aval);
  const funcs = ts.map((t) => {
    if (t.captured.length === U.length && t.captured.every((c, i) => U[i] === c)) return t.func;
    const m = t.captured.length;
    const declared = t.func.params.slice(m).map((p) => p.aval);
    // t.func's parameter i: a capture (its place in U) or a declared one (after U)
    const where = [...t.captured.map((c) => U.indexOf(c)), ...declared.map((_, i) => U.length + i)];
    return reparam(t.func, [...uAvals, ...declared], where);
  });
  return { funcs, consts: U.map((c) => ip.ops.atom(c, span)) };
}

/** Array-like leaves as atoms of the current trace (Python scalars stay literals, as in JAX's jaxprs). */
function leafAtoms(ip: Interp, leaves: PyValue[], span: Span): Atom[] {
  return leaves.map((l) => {
    if (!(isArray(l) || l instanceof NdArray || l instanceof NpScalar || typeof l === 'number' || typeof l === 'bigint' || typeof l === 'boolean' || l instanceof PyList || l instanceof PyTuple)) {
      throw new CompileError(`TypeError: Value ${ip.repr(l, span).static ?? typeName(l)} of type ${typeName(l)} is not a valid JAX type`, span);
    }
    return ip.ops.atom(l, span);
  });
}

const fnInfo = (ip: Interp, f: PyValue): string => {
  if (f instanceof PyFunction) return `${f.def.kind === 'Lambda' ? '<lambda>' : f.name} at ${ip.options.file}:${f.def.span.start.line}`;
  return typeName(f);
};

/** The first parameter's name of a Python function (JAX names the carry after it). */
function firstParam(f: PyValue): string | null {
  if (f instanceof PyFunction) return f.def.params[0]?.name ?? null;
  return null;
}

/** JAX's _check_carry_type. */
function checkCarry(ip: Interp, name: string, carryName: string | null, inTree: PyValue, outTree: PyValue, inAvals: AVal[], outAvals: AVal[], span: Span): void {
  const component = (path: string): string =>
    carryName ? (path ? `the input carry component ${carryName}${path}` : `the input carry ${carryName}`) : path ? `the input carry at path ${path}` : 'the input carry';
  if (treeSig(inTree) !== treeSig(outTree)) {
    // JAX compares the carry's abstract values: a leaf is a ShapedArray
    const diffs = equalityErrors(ip, inTree, outTree, "<class 'jax._src.core.ShapedArray'>", span).map(
      (d) => `${component(d.path)} is a ${d.thing1} but the corresponding component of the carry output is a ${d.thing2}, so ${d.explanation}`,
    );
    if (!diffs.length) return;
    throw new CompileError(
      `TypeError: ${name} function carry input and carry output must have the same pytree structure, but they differ:\n\n${differencesText(diffs)}\n` +
        'Revise the function so that the carry output has the same pytree structure as the carry input.',
      span,
    );
  }
  const paths = leafPaths(ip, inTree, span);
  const diffs = inAvals.flatMap((a, i) =>
    typeMatch(a, outAvals[i]!) ? [] : [`${component(paths[i] ?? '')} has type ${str(a)} but the corresponding output carry component has type ${str(outAvals[i]!)}${mismatch(a, outAvals[i]!)}`],
  );
  if (!diffs.length) return;
  throw new CompileError(
    `TypeError: ${name} function carry input and carry output must have equal types, but they differ:\n\n${differencesText(diffs)}\nRevise the function so that all output types match the corresponding input types.`,
    span,
  );
}

/**
 * JAX's _promote_weak_typed_input: a weakly typed initial carry leaf whose
 * body output has another dtype is converted to it (a weak 0 carried as a
 * float32); only a weak type differing is no mismatch.
 */
function promoteWeak(ip: Interp, init: Atom[], outAvals: AVal[], span: Span): { atoms: Atom[]; changed: boolean } {
  let changed = false;
  const atoms = init.map((a, i) => {
    const o = outAvals[i];
    if (!o || !a.aval.weak || !sameShape(a.aval.shape, o.shape) || a.aval.dtype === o.dtype) return a;
    if (a.aval.dtype === 'bool' || (a.aval.dtype === 'float32' && o.dtype !== 'float32')) return a;
    changed = true;
    if (a.kind === 'lit') return lit(o.dtype === 'float32' ? Math.fround(a.value) : a.value, o.dtype);
    return ip.ops.bind('convert_element_type', [a], { new_dtype: o.dtype, weak_type: false }, span);
  });
  return { atoms, changed };
}

/** scan's `unroll`: a bool (True: the whole length) or a non-negative int. */
function unrollArg(v: PyValue, length: number, span: Span): number {
  if (typeof v === 'boolean') return v ? Math.max(length, 1) : 1;
  const n = intArg(v, 'unroll', span);
  if (n < 0) throw new CompileError('ValueError: `unroll` must be a `bool` or a non-negative `int`.', span);
  return n;
}

/**
 * JAX's forwarding in lax.scan: a carry the body passes through unchanged
 * becomes a leading constant (its output is the initial value), and a y that
 * is an x as it is comes out as the xs themselves, not a stacked copy.
 * `outputs` maps the pruned scan's outputs back to the full list.
 */
function forwardScan(body: Func, consts: Atom[], init: Atom[], xs: Atom[], nDebug: number): { body: Func; consts: Atom[]; init: Atom[]; moved: boolean[]; outputs: (outs: Atom[]) => Atom[] } {
  const P = body.params;
  const nc = consts.length;
  const nK = init.length;
  const same = (a: Atom, i: number): boolean => a.kind === 'var' && a.id === P[i]!.id;
  const moved = init.map((_, j) => same(body.results[j]!, nc + j));
  const carryP = P.slice(nc, nc + nK);
  const params = [...carryP.filter((_, j) => moved[j]), ...P.slice(0, nc), ...carryP.filter((_, j) => !moved[j]), ...P.slice(nc + nK)];
  const nc2 = nc + moved.filter((m) => m).length;
  const nK2 = nK - (nc2 - nc);
  const ys = body.results.slice(nK, body.results.length - nDebug);
  // a y forwarded from an x: the index of that x
  const xOf = ys.map((y) => {
    const i = y.kind === 'var' ? params.findIndex((p) => p.id === y.id) : -1;
    return i >= nc2 + nK2 ? i - nc2 - nK2 : -1;
  });
  const results = [...body.results.slice(0, nK).filter((_, j) => !moved[j]), ...ys.filter((_, k) => xOf[k]! < 0), ...body.results.slice(body.results.length - nDebug)];
  return {
    body: { ...body, params, results },
    consts: [...init.filter((_, j) => moved[j]), ...consts],
    init: init.filter((_, j) => !moved[j]),
    moved,
    outputs: (outs) => {
      let k = 0;
      const carry = init.map((a, j) => (moved[j] ? a : outs[k++]!));
      const yOuts = xOf.map((x) => (x >= 0 ? xs[x]! : outs[k++]!));
      return [...carry, ...yOuts, ...outs.slice(k)];
    },
  };
}

/**
 * At host level: run `body` (a jax.debug call from a branch of a cond) where
 * the concrete indices equal their branches, as a TypeScript `if` on the values read back.
 */
function guarded(ip: Interp, guards: Guard[], body: () => void, span: Span): void {
  ip.flush(guards.map((g) => g.index));
  const tests: HExpr[] = guards.map((g) => ({
    k: 'bin', op: '===', a: { k: 'call', callee: 'jx.item', args: [{ k: 'var', name: ip.hostArray(g.index, span).name }], await: true }, b: { k: 'lit', value: g.branch },
  }));
  const then = ip.collect(() => {
    body();
    ip.flush();
  });
  ip.emit({ k: 'if', test: tests.reduce((a, b) => ({ k: 'bin', op: '&&', a, b })), then, else: [] });
}

const tracersOf = (ip: Interp, atoms: Atom[]): PyValue[] => atoms.map((a) => ip.ops.tracer(a));

/** Thrown when a cond's branches or a while loop use refs made outside: they are traced again with the refs as operands. */
class RefsFound {
  constructor(readonly refs: PyRef[]) {}
}

function refsFound(ts: Traced[]): void {
  const refs = [...new Set(ts.flatMap((t) => t.refs.map((x) => x.ref)))];
  if (refs.length) throw new RefsFound(refs);
}

/** `f` with each ref's value bound to `vals` (a traced operand), put back after. */
function bindRefs<T>(refs: PyRef[], vals: PyValue[], f: () => T): T {
  const before = refs.map((r) => r.value);
  refs.forEach((r, i) => (r.value = vals[i] as Tracer));
  try {
    return f();
  } finally {
    refs.forEach((r, i) => (r.value = before[i]!));
  }
}

export function controlFlowFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  const ops = ip.ops;
  /** `plain()`, or where its functions use refs made outside, `withRefs` on the refs and their values, whose new values it writes back. */
  const withRefOperands = (span: Span, plain: () => PyValue, withRefs: (refs: PyRef[], vals: PyValue[]) => { out: PyValue; refVals: PyValue[] }): PyValue => {
    try {
      return plain();
    } catch (e) {
      if (!(e instanceof RefsFound)) throw e;
      const { out, refVals } = withRefs(e.refs, e.refs.map((r) => readRef(ip, r, span)));
      e.refs.forEach((r, i) => writeRef(ip, r, ops.asArray(refVals[i]!, span), span));
      return out;
    }
  };
  const call = (f: PyValue, args: PyValue[], span: Span): PyValue => ip.call(f, { args, kwargs: new Map(), span });

  /** Bind a cond over `index` (an int32 scalar atom) with branches applied to `operands` (a tuple of the positional operands). */
  const condCore = (index: Atom, branches: PyValue[], callBranch: (k: number, ops: PyValue[]) => PyValue, operands: PyTuple, api: 'cond' | 'switch', span: Span): PyValue =>
    withRefOperands(span, () => condCore0(index, branches, callBranch, operands, api, span), (refs, vals) => {
      // the refs the branches use are operands and results of every branch
      const ops2 = new PyTuple([...operands.items, new PyTuple(vals)]);
      const out = condCore0(index, branches, (k, xs) => bindRefs(refs, (xs[xs.length - 1] as PyTuple).items, () => new PyTuple([callBranch(k, xs.slice(0, -1)), new PyTuple(refs.map((r) => r.value))])), ops2, api, span) as PyTuple;
      return { out: out.items[0]!, refVals: (out.items[1] as PyTuple).items };
    });

  const condCore0 = (index: Atom, branches: PyValue[], callBranch: (k: number, ops: PyValue[]) => PyValue, operands: PyTuple, api: 'cond' | 'switch', span: Span): PyValue => {
    const flat = flatten(operands, true);
    const opAtoms = leafAtoms(ip, flat.leaves, span);
    const avals = opAtoms.map((a) => a.aval);
    const traced = branches.map((_, k) =>
      traceSub(ip, `${api}_branch${k}`, avals, span, (ps) => callBranch(k, (flat.unflatten(ps) as PyTuple).items), undefined, 'discover', flat.leaves),
    );
    refsFound(traced);
    const names = api === 'cond' ? ['true_fun', 'false_fun'] : branches.map((_, k) => (k ? `branch${k}` : 'branch 0'));
    const t0 = traced[0]!;
    traced.slice(1).forEach((t, k) => {
      const n2 = names[k + 1]!;
      const at = (path: string): string => (path ? ` at path ${path}` : '');
      if (treeSig(t0.out) !== treeSig(t.out)) {
        const diffs = equalityErrors(ip, t0.out, t.out, 'pytree leaf', span).map(
          (d) => `${names[0]} output${at(d.path)} is a ${d.thing1} but ${n2} output${at(d.path)} is a ${d.thing2}, so ${d.explanation}`,
        );
        if (diffs.length) {
          throw new CompileError(
            `TypeError: ${api} branch outputs must have the same pytree structure, but they differ:\n\n${names[0]} is ${fnInfo(ip, branches[0]!)}\n${n2} is ${fnInfo(ip, branches[k + 1]!)}\n\n` +
              `${diffs.length === 1 ? `${diffs[0]}.\n` : differencesText(diffs)}\nRevise ${names[0]} and/or ${n2} so that they have the same pytree structure.`,
            span,
          );
        }
      }
      const paths = leafPaths(ip, t0.out, span);
      const diffs = t0.outAvals.flatMap((a, i) =>
        typeMatch(a, t.outAvals[i]!) ? [] : [`the output of ${names[0]}${at(paths[i] ?? '')} has type ${str(a)} but the corresponding output of ${n2} has type ${str(t.outAvals[i]!)}${mismatch(a, t.outAvals[i]!)}`],
      );
      if (diffs.length) {
        throw new CompileError(
          `TypeError: ${api} branches must have equal output types but they differ.\n\n${names[0]} is ${fnInfo(ip, branches[0]!)}\n${n2} is ${fnInfo(ip, branches[k + 1]!)}\n\n${differencesText(diffs)}\nRevise ${names[0]} and/or ${n2} so that all output types match.`,
          span,
        );
      }
    });
    // jax.debug calls in the branches: every branch gives the values that each branch's calls show (zeros for
    // the others'), after its declared results; the calls happen where the index selects their branch
    const dbg = traced.map((t) => t.debug);
    if (dbg.some((d) => d.count)) {
      traced.forEach((t, k) => {
        t.func = t.refinish((b) => dbg.flatMap((d, j) => (j === k ? d.atoms : d.atoms.map((a) => b.bind1('broadcast_in_dim', [lit(0, a.aval.dtype, a.aval.weak === true)], { shape: [...a.aval.shape], broadcast_dimensions: [] })))));
      });
    }
    // the branches (in order of the index: cond's false branch first) over the merged constants
    const order = api === 'cond' ? [1, 0] : branches.map((_, k) => k);
    const { funcs, consts } = mergeConsts(ip, order.map((k) => traced[k]!), span);
    const all = [...consts, ...opAtoms];
    // outputs every branch forwards from the same input are not results of the cond (JAX prunes them)
    const fwd = funcs[0]!.results.map((r, j) => {
      const at = (f: Func, a: Atom): number => (a.kind === 'var' ? f.params.findIndex((p) => p.id === a.id) : -1);
      const i = at(funcs[0]!, r);
      return i >= 0 && funcs.every((f) => at(f, f.results[j]!) === i) ? i : -1;
    });
    const pruned = funcs.map((f) => ({ ...f, results: f.results.filter((_, j) => fwd[j]! < 0) }));
    // per result: the branch (by index) whose jax.debug calls show it, or -1 (vmap's select keeps that branch's value)
    const nDeclared = t0.outAvals.length;
    const owners = dbg.flatMap((d, k) => d.atoms.map(() => order.indexOf(k)));
    const shownBy = owners.length ? { shown_by: [...Array.from({ length: nDeclared }, () => -1), ...owners].filter((_, j) => fwd[j]! < 0) } : {};
    const outs = pruned[0]!.results.length ? ops.bindN('cond', [index, ...all], { branches: pruned, ...shownBy }, span) : [];
    let k = 0;
    // a weak output of one branch and a strong one of another is strong (the cond's result type is branch 0's)
    const leaves = fwd.map((i) => ops.tracer(i >= 0 ? ops.asArray(ops.tracer(all[i]!), span).atom : outs[k++]!));
    const results = leaves.slice(0, nDeclared);
    let at = nDeclared;
    const shown = dbg.map((d) => leaves.slice(at, (at += d.count)));
    // in the order of the index (a vmap that batches it runs every branch, in that order)
    order.forEach((k, i) => {
      const d = dbg[k]!;
      if (!d.calls.length || (index.kind === 'lit' && index.value !== i)) return;
      const guard: Guard = { index: ops.tracer(index), branch: i, when: (gs, body) => guarded(ip, gs, body, span) };
      const calls = index.kind === 'lit' ? d.calls : d.calls.map((c) => ({ ...c, guards: [...(c.guards ?? []), guard] }));
      deliverDebugCalls(ip.trace(), calls, shown[k]!, d.trace, undefined, (vs) => ip.flush([...vs, ...results]));
    });
    return t0.rebuild(results);
  };

  const cond = (c: CallArgs): PyValue => {
    let args = c.args;
    let opsV: PyValue[];
    let tf = args[1] ?? c.kwargs.get('true_fun');
    let ff = args[2] ?? c.kwargs.get('false_fun');
    let callBranch = (k: number, xs: PyValue[]): PyValue => call(k === 0 ? tf! : ff!, xs, c.span);
    if (args.length === 5 && !isCallable(args[1]!) && isCallable(args[2]!)) {
      // the old form cond(pred, true_operand, true_fun, false_operand, false_fun)
      const [, xt, ft, xf, ff2] = args;
      tf = ft!;
      ff = ff2!;
      opsV = [xt!, xf!];
      callBranch = (k, xs) => call(k === 0 ? ft! : ff2!, [xs[k]!], c.span);
      args = [args[0]!];
    } else {
      if (tf === undefined || ff === undefined || !isCallable(tf) || !isCallable(ff)) throw new CompileError('TypeError: lax.cond: true_fun and false_fun arguments should be callable.', c.span);
      opsV = args.slice(3);
      if (c.kwargs.has('operand')) {
        if (opsV.length) throw new CompileError(`TypeError: if 'operand' keyword is passed then no positional operands can be passed, got operand=${ip.repr(c.kwargs.get('operand')!, c.span).static} and positional operands ${ip.repr(new PyTuple(opsV), c.span).static}`, c.span);
        opsV = [c.kwargs.get('operand')!];
      }
    }
    const pred = args[0] ?? c.kwargs.get('pred');
    if (pred === undefined || pred === null) throw new CompileError('TypeError: cond predicate is None', c.span);
    if (pred instanceof PyTuple || pred instanceof PyList) throw new CompileError(`TypeError: Pred must be a scalar, got ${ip.repr(pred, c.span).static} of type <class '${typeName(pred)}'>`, c.span);
    const p = ops.atom(pred, c.span);
    if (p.aval.shape.length) throw new CompileError(`TypeError: Pred must be a scalar, got ${ip.repr(pred, c.span).static} of shape (${p.aval.shape.join(', ')}${p.aval.shape.length === 1 ? ',' : ''}).`, c.span);
    let b: Atom = p;
    if (p.aval.dtype !== 'bool') b = p.kind === 'lit' ? lit(p.value !== 0 ? 1 : 0, 'bool') : ops.bind('ne', [p, lit(0, p.aval.dtype, p.aval.weak === true)], {}, c.span);
    const index = b.kind === 'lit' ? lit(b.value, 'int32') : ops.bind('convert_element_type', [b], { new_dtype: 'int32', weak_type: false }, c.span);
    return condCore(index, [tf!, ff!], callBranch, new PyTuple(opsV), 'cond', c.span);
  };

  const switchFn = (c: CallArgs): PyValue => {
    const idx = arg(c, 0, 'index');
    const bv = arg(c, 1, 'branches');
    const branches = bv instanceof PyTuple || bv instanceof PyList ? bv.items : null;
    if (!branches || !branches.every(isCallable)) throw new CompileError('TypeError: lax.switch: branches argument should be a sequence of callables.', c.span);
    let opsV = c.args.slice(2);
    if (c.kwargs.has('operand')) opsV = [c.kwargs.get('operand')!];
    const i = ops.atom(idx, c.span);
    if (i.aval.shape.length) throw new CompileError(`TypeError: Branch index must be scalar, got ${ip.repr(idx, c.span).static} of shape (${i.aval.shape.join(', ')}${i.aval.shape.length === 1 ? ',' : ''}).`, c.span);
    if (!isInt(i.aval.dtype)) throw new CompileError(`TypeError: Index type must be an integer, got ${ip.repr(idx, c.span).static} as ${i.aval.dtype}`, c.span);
    if (!branches.length) throw new CompileError('ValueError: Empty branch sequence', c.span);
    if (branches.length === 1) return call(branches[0]!, opsV, c.span);
    let index: Atom;
    if (i.kind === 'lit') index = lit(Math.min(Math.max(i.value, 0), branches.length - 1), 'int32');
    else {
      const x = i.aval.dtype === 'int32' && !i.aval.weak ? i : ops.bind('convert_element_type', [i], { new_dtype: 'int32', weak_type: false }, c.span);
      index = ops.bind('clamp', [lit(0, 'int32'), x, lit(branches.length - 1, 'int32')], {}, c.span);
    }
    return condCore(index, branches, (k, xs) => call(branches[k]!, xs, c.span), new PyTuple(opsV), 'switch', c.span);
  };

  /** Trace a loop body (and while's cond) on the carry, promoting weak initial values as JAX does; returns the final traces and the carry atoms. */
  const traceCarried = <T>(init: Atom[], trace: (avals: AVal[]) => { outAvals: AVal[]; r: T }, span: Span): { r: T; init: Atom[] } => {
    let first = trace(init.map((a) => a.aval));
    const { atoms, changed } = promoteWeak(ip, init, first.outAvals, span);
    if (changed) first = trace(atoms.map((a) => a.aval));
    return { r: first.r, init: atoms };
  };

  const whileLoop = (c: CallArgs): PyValue => {
    const condFun = arg(c, 0, 'cond_fun');
    const bodyFun = arg(c, 1, 'body_fun');
    const initVal = arg(c, 2, 'init_val');
    if (!isCallable(condFun) || !isCallable(bodyFun)) throw new CompileError('TypeError: lax.while_loop: body_fun and cond_fun arguments should be callable.', c.span);
    return whileCore(condFun, bodyFun, initVal, 'while_loop body', firstParam(bodyFun), (f, v) => call(f, [v], c.span), c.span);
  };

  const whileCore = (condFun: PyValue, bodyFun: PyValue, initVal: PyValue, name: string, carryName: string | null, apply: (f: PyValue, v: PyValue) => PyValue, span: Span): PyValue =>
    withRefOperands(span, () => whileHeld(condFun, bodyFun, initVal, name, carryName, apply, span), (refs, vals) => {
      // the refs the loop uses are carried beside its value
      const out = whileHeld(condFun, bodyFun, new PyTuple([initVal, new PyTuple(vals)]), name, carryName, (f, v) => {
        const [c, rv] = (v as PyTuple).items;
        return bindRefs(refs, (rv as PyTuple).items, () => (f === bodyFun ? new PyTuple([apply(f, c!), new PyTuple(refs.map((r) => r.value))]) : apply(f, c!)));
      }, span) as PyTuple;
      return { out: out.items[0]!, refVals: (out.items[1] as PyTuple).items };
    });

  // (the initial value stays reachable: a flush while tracing must not lose it, whileOnHost starts from it)
  const whileHeld = (condFun: PyValue, bodyFun: PyValue, initVal: PyValue, name: string, carryName: string | null, apply: (f: PyValue, v: PyValue) => PyValue, span: Span): PyValue =>
    ip.holding((hold) => whileTraced(condFun, bodyFun, hold(initVal), name, carryName, apply, span));

  const whileTraced = (condFun: PyValue, bodyFun: PyValue, initVal: PyValue, name: string, carryName: string | null, apply: (f: PyValue, v: PyValue) => PyValue, span: Span): PyValue => {
    const flat = flatten(initVal, true);
    const init0 = leafAtoms(ip, flat.leaves, span);
    let traced: ReturnType<typeof traceCarried<{ ct: Traced; bt: Traced }>>;
    try {
      traced = traceCarried(
      init0,
      (avals) => {
        const ct = traceSub(ip, 'while_cond', avals, span, (ps) => apply(condFun, flat.unflatten(ps)), 'lax.while_loop', 'discover', flat.leaves);
        if (treeSig(ct.out) !== '*' || ct.outAvals.length !== 1) throw new CompileError(`TypeError: cond_fun must return a boolean scalar, but got pytree ${treeSig(ct.out)}.`, span);
        const pa = ct.outAvals[0]!;
        if (pa.dtype !== 'bool' || pa.shape.length) throw new CompileError(`TypeError: cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(${pa.dtype === 'bool' ? 'bool' : pa.dtype}[${pa.shape.join(',')}])].`, span);
        const bt = traceSub(ip, 'while_body', avals, span, (ps) => apply(bodyFun, flat.unflatten(ps)), 'lax.while_loop', 'discover', flat.leaves);
        refsFound([ct, bt]);
        return { outAvals: bt.outAvals, r: { ct, bt } };
      },
      span,
    );
    } catch (e) {
      // jax.debug calls (or host callbacks) inside, at host level: a host loop (src/lower/callbacks.ts)
      if (!(e instanceof HostCallbackInTrace) || !ip.atHost) throw e;
      return whileOnHost(ip, initVal, (v) => apply(condFun, v), (v) => apply(bodyFun, v), span);
    }
    const { r, init } = traced;
    checkCarry(ip, name, carryName, initVal, r.bt.out, init.map((a) => a.aval), r.bt.outAvals, span);
    const condC = r.ct.captured.map((x) => ops.atom(x, span));
    const bodyC = r.bt.captured.map((x) => ops.atom(x, span));
    const outs = ops.bindN(
      'while',
      [...condC, ...bodyC, ...init],
      { body_jaxpr: r.bt.func, body_nconsts: bodyC.length, cond_jaxpr: r.ct.func, cond_nconsts: condC.length },
      span,
    );
    return flat.unflatten(tracersOf(ip, outs));
  };

  /** scan(f, init, xs, length, reverse, unroll): `f` applied through `apply(carry, x)`. */
  const scanCore = (
    /** The body's first parameter, as JAX's carry errors name it (fori_loop's body is JAX's own `scanned_fun(loop_carry, _)`). */
    carryName: string | null,
    initVal: PyValue,
    xsVal: PyValue,
    lengthV: PyValue,
    reverse: boolean,
    unrollV: PyValue,
    apply: (carry: PyValue, x: PyValue) => PyValue,
    span: Span,
  ): PyValue => {
    const iflat = flatten(initVal, true);
    const xflat = flatten(xsVal, true);
    const init0 = leafAtoms(ip, iflat.leaves, span);
    const xs = leafAtoms(ip, xflat.leaves, span).map((a) => (a.kind === 'lit' ? ops.asArray(ops.tracer(a), span).atom : a));
    for (const x of xs) {
      if (!x.aval.shape.length) throw new CompileError(`ValueError: scan got value with no leading axis to scan over: ${xflat.leaves.map((l) => ip.repr(l, span).static).join(', ')}.`, span);
    }
    const lengths = xs.map((x) => x.aval.shape[0]!);
    let length: number;
    if (lengthV !== null) {
      length = intArg(lengthV, 'length', span);
      if (!lengths.every((l) => l === length)) throw new CompileError(`ValueError: scan got \`length\` argument of ${length} which disagrees with leading axis sizes [${lengths.join(', ')}].`, span);
    } else {
      if (new Set(lengths).size > 1) throw new CompileError(`ValueError: scan got values with different leading axis sizes: ${lengths.join(', ')}.`, span);
      if (!lengths.length) throw new CompileError('ValueError: scan got no values to scan over and `length` not provided.', span);
      length = lengths[0]!;
    }
    const unroll = unrollArg(unrollV, length, span);
    const xAvals = xs.map((x) => ({ shape: x.aval.shape.slice(1), dtype: x.aval.dtype }));
    const nCarry = init0.length;
    let carryOut: PyValue = null;
    let traced: ReturnType<typeof traceCarried<Traced>>;
    try {
      traced = traceCarried(
      init0,
      (avals) => {
        const body = (): Traced => traceSub(ip, 'scan_body', [...avals, ...xAvals], span, (ps) => {
          const out = apply(iflat.unflatten(ps.slice(0, nCarry)), xflat.unflatten(ps.slice(nCarry)));
          if (!(out instanceof PyTuple || out instanceof PyList) || out.items.length !== 2) throw new CompileError(`TypeError: scan body output must be a pair, got ${ip.repr(out, span).static ?? typeName(out)}.`, span);
          carryOut = out.items[0]!;
          return out;
        }, undefined, 'scan', iflat.leaves);
        let bt: Traced;
        // a ref's weak carry set to a strong value: again, the carry strong (once per ref)
        for (let tries = 0; ; tries++) {
          try {
            bt = body();
            break;
          } catch (e) {
            if (!(e instanceof RetraceRefs) || tries > 8) throw e;
          }
        }
        return { outAvals: bt.outAvals.slice(0, flatten(carryOut, true).leaves.length), r: bt };
      },
      span,
    );
    } catch (e) {
      // a host callback in the body, at host level: the steps one after another on the host (src/lower/callbacks.ts)
      if (!(e instanceof HostCallbackInTrace) || !ip.atHost) throw e;
      return scanOnHost(ip, initVal, xsVal, length, reverse, apply, span);
    }
    const { r, init } = traced;
    const nOutCarry = flatten(carryOut, true).leaves.length;
    checkCarry(ip, 'scan body', carryName, initVal, carryOut, init.map((a) => a.aval), r.outAvals.slice(0, nOutCarry), span);
    const nd = r.debug.count;
    // refs the body uses are carried: their parameters move from the consts to the end of the carry, their final values likewise
    const nRef = r.refs.length;
    let body = r.func;
    let consts = r.captured.map((x) => ops.atom(x, span));
    let carryInit = init;
    if (nRef) {
      const m = r.captured.length;
      const P = body.params;
      const R = body.results;
      const refAt = r.refs.map((x) => x.captured);
      const constAt = consts.map((_, i) => i).filter((i) => !refAt.includes(i));
      body = {
        ...body,
        params: [...constAt.map((i) => P[i]!), ...P.slice(m, m + init.length), ...refAt.map((i) => P[i]!), ...P.slice(m + init.length)],
        results: [...R.slice(0, init.length), ...R.slice(R.length - nRef), ...R.slice(init.length, R.length - nRef)],
      };
      carryInit = [...init, ...r.refs.map((x) => ops.convert(ops.asArray(x.init, span), x.init.aval.dtype, span).atom)];
      consts = constAt.map((i) => consts[i]!);
    }
    const fwd = forwardScan(body, consts, carryInit, xs, nd);
    const outs0 = ops.bindN(
      'scan',
      [...fwd.consts, ...fwd.init, ...xs],
      {
        jaxpr: fwd.body,
        length,
        reverse,
        unroll,
        num_consts: fwd.consts.length,
        num_carry: fwd.init.length,
      },
      span,
    );
    const outsAll = fwd.outputs(outs0);
    r.refs.forEach((x, i) => writeRef(ip, x.ref, ops.tracer(outsAll[init.length + i]!), span));
    const outs = [...outsAll.slice(0, init.length), ...outsAll.slice(init.length + nRef)];
    const asTracer = (a: Atom): Tracer => (a.kind === 'lit' ? ops.asArray(ops.tracer(a), span) : ops.tracer(a));
    // a carry passed through is the initial value as it was given (a Python scalar stays one, as in JAX)
    const results = outs.slice(0, outs.length - nd).map((a, j) => (j < nCarry && fwd.moved[j] && init[j] === init0[j] ? iflat.leaves[j]! : asTracer(a)));
    if (nd) {
      // each step's shown values, step by step in the order the steps ran (a flush at host level keeps the results)
      const stacked = tracersOf(ip, outs.slice(outs.length - nd));
      const steps = Array.from({ length }, (_, k) => (reverse ? length - 1 - k : k));
      const values = steps.flatMap((i) => stacked.map((v) => ops.index(v, [{ kind: 'int', value: i }], span)));
      deliverDebugCalls(ip.trace(), steps.flatMap(() => r.debug.calls), values, r.debug.trace, undefined, (vs) => ip.flush([...vs, ...results]));
    }
    return r.rebuild(results);
  };

  const scan = (c: CallArgs): PyValue => {
    const f = arg(c, 0, 'f');
    if (!isCallable(f)) throw new CompileError('TypeError: lax.scan: f argument should be a callable.', c.span);
    const reverse = ip.static(arg(c, 4, 'reverse', false), 'scan reverse', c.span) === true;
    return scanCore(firstParam(f), arg(c, 1, 'init'), arg(c, 2, 'xs', null), arg(c, 3, 'length', null), reverse, arg(c, 5, 'unroll', 1n), (carry, x) => call(f, [carry, x], c.span), c.span);
  };

  const fori = (c: CallArgs): PyValue => {
    const lower = arg(c, 0, 'lower');
    const upper = arg(c, 1, 'upper');
    const body = arg(c, 2, 'body_fun');
    const initVal = arg(c, 3, 'init_val');
    const unrollV = arg(c, 4, 'unroll', null);
    if (!isCallable(body)) throw new CompileError('TypeError: lax.fori_loop: body_fun argument should be callable.', c.span);
    const lo = ops.atom(lower, c.span);
    const hi = ops.atom(upper, c.span);
    let dtype = lo.aval.dtype === hi.aval.dtype ? lo.aval.dtype : null;
    if (!dtype && lo.aval.dtype === 'int32' || hi.aval.dtype === 'int32') {
      if (lo.aval.weak && !hi.aval.weak) dtype = hi.aval.dtype;
      else if (!lo.aval.weak && hi.aval.weak) dtype = lo.aval.dtype;
    }
    if (!dtype) throw new CompileError(`TypeError: lower and upper arguments to fori_loop must have equal types, got ${lo.aval.dtype} and ${hi.aval.dtype}`, c.span);
    const concrete = (v: PyValue): boolean => typeof v === 'bigint' || typeof v === 'boolean' || v instanceof NpScalar;
    if (concrete(lower) && concrete(upper)) {
      // static bounds: a scan over (i, x), as JAX lowers it
      const l = intArg(lower, 'lower', c.span);
      const u = intArg(upper, 'upper', c.span);
      const res = scanCore(
        'loop_carry',
        new PyTuple([lower, initVal]),
        null,
        BigInt(Math.max(u - l, 0)),
        false,
        unrollV ?? false,
        (carry, _x) => {
          const [i, x] = (carry as PyTuple).items;
          // i + 1 held while the body runs: on the host (a callback inside) the body may flush
          return ip.holding((hold) => {
            const next = hold(ops.binary('add', i!, 1n, c.span));
            return new PyTuple([new PyTuple([next, call(body, [i!, x!], c.span)]), null]);
          });
        },
        c.span,
      );
      return ((res as PyTuple).items[0] as PyTuple).items[1]!;
    }
    if (unrollV !== null && unrollV !== false && unrollV !== 1n) throw new CompileError('ValueError: Can only use `unroll` in `fori_loop` if the loop bounds are statically known.', c.span);
    const lw = lo.aval.dtype === dtype ? lower : ops.convert(ops.asArray(lower, c.span), dtype, c.span);
    const up = hi.aval.dtype === dtype ? upper : ops.convert(ops.asArray(upper, c.span), dtype, c.span);
    const res = whileCore(
      new PyBuiltin('_fori_cond_fun', (cc) => {
        const [i, u] = (cc.args[0] as PyTuple).items;
        return ops.compare('lt', i!, u!, c.span);
      }),
      new PyBuiltin('while_body_fun', (cc) => {
        const [i, u, x] = (cc.args[0] as PyTuple).items;
        // (i + 1 held while the body runs: run as a host loop, a jax.debug.print in it flushes the host segment)
        return ip.holding((hold) => new PyTuple([hold(ops.binary('add', i!, 1n, c.span)), u!, call(body, [i!, x!], c.span)]));
      }),
      new PyTuple([lw, up, initVal]),
      'while_loop body',
      'loop_carry',
      (f, v) => call(f, [v], c.span),
      c.span,
    );
    return (res as PyTuple).items[2]!;
  };

  /** lax.map(f, xs, batch_size=B): a scan over batches of B, each a vmap of f, then a vmap over the remainder (JAX's way). */
  const batchedMap = (f: PyValue, xs: PyValue, B: number, span: Span): PyValue => {
    const flat = flatten(xs, true);
    if (!flat.leaves.length) return call(f, [xs], span);
    const leaves = flat.leaves.map((l) => ops.asArray(l, span));
    const n = leaves[0]!.aval.shape[0]!;
    const nb = B === 0 ? 0 : Math.floor(n / B);
    const rem = B === 0 ? n : n % B;
    const vf = new PyTransformed('vmap', f, new Map<string, PyValue>([['in_axes', 0n], ['out_axes', 0n], ['axis_name', null]]), 'vmap');
    const rows = (x: Tracer, lo: number, hi: number): Tracer =>
      ops.tracer(ops.bind('slice', [x.atom], { start_indices: x.aval.shape.map((_, i) => (i ? 0 : lo)), limit_indices: x.aval.shape.map((d, i) => (i ? d : hi)), strides: null }, span));
    let scanYs: PyValue = null;
    if (nb > 0) {
      const batches = flat.unflatten(leaves.map((x) => ops.reshape(rows(x, 0, nb * B), [nb, B, ...x.aval.shape.slice(1)], span)));
      const res = scanCore('_', new PyTuple([]), batches, null, false, 1n, (_c, x) => new PyTuple([new PyTuple([]), call(vf, [x], span)]), span);
      scanYs = (res as PyTuple).items[1]!;
    }
    const remYs = rem ? call(vf, [flat.unflatten(leaves.map((x) => rows(x, nb * B, n)))], span) : null;
    if (scanYs === null) return remYs;
    const yf = flatten(scanYs, true);
    const merged = yf.leaves.map((y, j) => {
      const t = ops.asArray(y, span);
      const joined = ops.reshape(t, [-1, ...t.aval.shape.slice(2)].map((d, i) => (i === 0 ? nb * B : d)), span);
      return remYs === null ? joined : ops.concatenate([joined, flatten(remYs, true).leaves[j]!], 0, span);
    });
    return yf.unflatten(merged);
  };

  const map = (c: CallArgs): PyValue => {
    const f = arg(c, 0, 'f');
    const xs = arg(c, 1, 'xs');
    const bs = c.kwargs.get('batch_size') ?? null;
    if (bs !== null) return batchedMap(f, xs, intArg(bs, 'batch_size', c.span), c.span);
    const res = scanCore('_', new PyTuple([]), xs, null, false, 1n, (_c, x) => new PyTuple([new PyTuple([]), call(f, [x], c.span)]), c.span);
    return (res as PyTuple).items[1]!;
  };

  const selectN = (c: CallArgs): PyValue => {
    const which = ops.asArray(arg(c, 0, 'which'), c.span);
    const cases = c.args.slice(1).map((x) => ops.asArray(x, c.span));
    if (!cases.length) throw new CompileError('ValueError: select_n called with no cases', c.span);
    if (which.aval.dtype !== 'bool' && which.aval.dtype !== 'int32') throw new CompileError(`TypeError: select_n selector must be of boolean or integer type, got ${which.aval.dtype}`, c.span);
    if (which.aval.dtype === 'bool' && cases.length > 2) throw new CompileError('TypeError: select_n with a boolean predicate must have at most 2 cases', c.span);
    if (cases.length === 1) return cases[0]!;
    return ops.tracer(ops.bind('select_n', [which.atom, ...cases.map((x) => x.atom)], {}, c.span));
  };

  return { cond, switch: switchFn, while_loop: whileLoop, fori_loop: fori, scan, map, select_n: selectN };
}
