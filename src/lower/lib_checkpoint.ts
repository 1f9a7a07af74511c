// jax.checkpoint (remat) and jax.ad_checkpoint: what a checkpointed function
// saves for the backward pass. jaxts computes the same values with or without
// rematerialization (a checkpoint changes what is stored, not what is
// computed), so jax.checkpoint marks the equations its function traces with
// its policy, and jax.ad_checkpoint.print_saved_residuals shows the residuals
// JAX's linearization would save: those the policy lets a checkpointed region
// keep, and the region's inputs in place of the values it recomputes.
import { CompileError } from '../common/diagnostics.js';
import type { Atom, Eqn, Func, Var } from '../ir/types.js';
import { freshJitRegion } from '../ir/types.js';
import { markJitCall } from '../ir/jaxpr_printer.js';
import type * as A from '../parser/ast.js';
import { linearizedResiduals } from '../passes/autodiff.js';
import type { Interp } from './interp.js';
import { arg, builtinModule } from './modules.js';
import { flatten } from './transforms.js';
import { truthyStatic } from './expr.js';
import { primitiveObject } from './jaxpr_objects.js';
import { pendingDebugCalls } from './debug_prints.js';
import { PyBuiltin, PyDict, PyFunction, PyList, PyTuple, Trace, Tracer, type CallArgs, type PyModule, type PyValue } from './values.js';

/** A policy: may the region keep this value (the output of `prim`, named `name` by checkpoint_name)? */
type Policy = (e: Eqn, name: string | null) => boolean;

interface Region {
  policy: Policy;
}

/** Equations traced inside jax.checkpoint calls: the regions, outermost first. */
const regions = new WeakMap<Eqn, Region[]>();
/** Values named by checkpoint_name: the name and where it was given. */
const names = new WeakMap<object, { name: string; span: A.Span; eqns?: Eqn[]; at?: number }>();
/** The policies' objects. */
const policies = new WeakMap<PyBuiltin, Policy>();
/** A checkpointed function's own function (for its parameter names). */
const wrapped = new WeakMap<PyBuiltin, PyValue>();

const nothingSaveable: Policy = () => false;
const isDot = (e: Eqn): boolean => e.prim === 'dot_general';
const noBatchDot = (e: Eqn): boolean => isDot(e) && !((e.params['dimension_numbers'] as { batch: number[][] }).batch[0]!.length);

/** How make_jaxpr shows each policy (a remat2 equation's `policy=`). */
const policyTexts = new WeakMap<PyBuiltin, string>();

function policyObject(name: string, p: Policy, shown = `<function ${name} at 0x7f0000000000>`): PyBuiltin {
  const b = new PyBuiltin(name, () => {
    throw new CompileError(`jaxts: the checkpoint policy ${name} is applied by jax.checkpoint, not called`, null);
  });
  policies.set(b, p);
  policyTexts.set(b, shown);
  return b;
}
const frozensetText = (ns: Set<string>): string => (ns.size ? `frozenset({${[...ns].map((n) => `'${n}'`).join(', ')}})` : 'frozenset()');

/** jax.checkpoint_policies. */
export function checkpointPolicies(): PyModule {
  const namesOf = (c: CallArgs): Set<string> => new Set(c.args.filter((a): a is string => typeof a === 'string'));
  const policyOf = (v: PyValue, span: A.Span): Policy => {
    const p = v instanceof PyBuiltin ? policies.get(v) : undefined;
    if (!p) throw new CompileError('TypeError: a checkpoint policy must be one of jax.checkpoint_policies', span);
    return p;
  };
  return builtinModule('jax.checkpoint_policies', {
    everything_saveable: policyObject('everything_saveable', () => true),
    nothing_saveable: policyObject('nothing_saveable', nothingSaveable),
    dots_saveable: policyObject('dots_saveable', isDot, 'DotsSaveable(only_if_no_batch_dims=False)'),
    checkpoint_dots: policyObject('checkpoint_dots', isDot, 'DotsSaveable(only_if_no_batch_dims=False)'),
    dots_with_no_batch_dims_saveable: policyObject('dots_with_no_batch_dims_saveable', noBatchDot, 'DotsSaveable(only_if_no_batch_dims=True)'),
    checkpoint_dots_with_no_batch_dims: policyObject('checkpoint_dots_with_no_batch_dims', noBatchDot, 'DotsSaveable(only_if_no_batch_dims=True)'),
    save_only_these_names: (c) => {
      const ns = namesOf(c);
      return policyObject('save_only_these_names', (_e, n) => n !== null && ns.has(n), `SaveOnlyTheseNames(saveable_names=${frozensetText(ns)})`);
    },
    save_any_names_but_these: (c) => {
      const ns = namesOf(c);
      return policyObject('save_any_names_but_these', (_e, n) => n !== null && !ns.has(n), `SaveAnyNamesButThese(names=${frozensetText(ns)})`);
    },
    save_and_offload_only_these_names: (c) => {
      const ns = new Set([...iterNames(c.kwargs.get('names_which_can_be_saved')), ...iterNames(c.kwargs.get('names_which_can_be_offloaded'))]);
      const p = policyObject('save_and_offload_only_these_names', (_e, n) => n !== null && ns.has(n), '<function save_and_offload_only_these_names.<locals>.policy at 0x7f0000000000>');
      offloading.add(p);
      return p;
    },
    save_from_both_policies: (c) => {
      const [p, q] = [policyOf(arg(c, 0, 'policy_1'), c.span), policyOf(arg(c, 1, 'policy_2'), c.span)];
      return policyObject('save_from_both_policies', (e, n) => p(e, n) || q(e, n), '<function save_from_both_policies.<locals>.policy at 0x7f0000000000>');
    },
  });
}
/** The policies that offload (their saved values are JAX's Saveable / Offloadable, not True). */
const offloading = new WeakSet<PyBuiltin>();
const iterNames = (v: PyValue | undefined): string[] => (v instanceof PyList || v instanceof PyTuple ? v.items.filter((x): x is string => typeof x === 'string') : []);

/** jax.checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()): `fun`, its equations marked with the policy. */
export function checkpointOf(ip: Interp, c: CallArgs): PyValue {
  for (const k of c.kwargs.keys()) {
    if (!['fun', 'prevent_cse', 'policy', 'static_argnums', 'concrete'].includes(k)) throw new CompileError(`TypeError: checkpoint() got an unexpected keyword argument '${k}'`, c.span);
  }
  if (c.kwargs.has('concrete')) {
    throw new CompileError(
      'NotImplementedError: The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and removed in JAX v0.10.0. In its place please use `static_argnums`; for details refer to https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html.',
      c.span,
    );
  }
  const fun = arg(c, 0, 'fun');
  const pv = c.kwargs.get('policy') ?? null;
  // a Python function of the primitive (and its operands' types and params): JAX's `policy(prim, *avals, **params)`
  const callable = pv instanceof PyFunction && !policies.has(pv as unknown as PyBuiltin);
  const policy = pv === null ? nothingSaveable : callable ? (e: Eqn) => truthyStatic(ip, ip.call(pv, { args: [primitiveObject(e.prim)], kwargs: new Map(), span: c.span }), c.span) : pv instanceof PyBuiltin ? policies.get(pv) : undefined;
  if (!policy) throw new CompileError('TypeError: checkpoint policy must be one of jax.checkpoint_policies (or None)', c.span);
  // jax_remat3 saves none of an offloading policy's values (JAX 0.10's print_saved_residuals shows only the arguments)
  const region: Region = { policy: remat3.has(ip) && pv instanceof PyBuiltin && offloading.has(pv) ? nothingSaveable : policy };
  const name = fun && typeof fun === 'object' && 'name' in fun ? String((fun as { name: string }).name) : 'fun';
  const cacheable = !c.kwargs.has('static_argnums') && fun !== null && typeof fun === 'object';
  // make_jaxpr shows the call as a remat2 equation
  const shown: [string, string | null][] = [
    ['differentiated', 'False'],
    ['jaxpr', null],
    ['policy', pv === null ? 'None' : pv instanceof PyBuiltin && policyTexts.has(pv) ? policyTexts.get(pv)! : pv instanceof PyFunction ? `<function ${pv.name} at 0x7f0000000000>` : 'None'],
    ['prevent_cse', c.kwargs.has('prevent_cse') && !truthyStatic(ip, c.kwargs.get('prevent_cse')!, c.span) ? 'False' : 'True'],
  ];
  const atomsOf = (t: Trace, v: PyValue): Atom[] => flatten(v).leaves.flatMap((l) => (l instanceof Tracer && l.trace === t ? [l.atom] : []));
  const w = new PyBuiltin(name, (call) => {
    const t = ip.trace();
    const eqns = t.builder.eqns;
    const start = eqns.length;
    // JAX traces `fun` once per argument types (its cache is keyed by the function, not the policy):
    // a later call with the same types replays that trace, globals as they were then
    const key = cacheable && !ip.atHost ? traceKey(new PyTuple([...call.args, ...call.kwargs.values()]), [...call.kwargs.keys()]) : null;
    const hit = key !== null ? traced.get(fun as object)?.get(key) : undefined;
    const args = new PyTuple([...call.args, ...call.kwargs.values()]);
    if (hit) {
      const out = replay(ip, hit, region, t, call);
      markJitCall(eqns, start, name, atomsOf(t, args), atomsOf(t, out), { prim: 'remat2', params: shown });
      return out;
    }
    const debugBefore = pendingDebugCalls(t);
    const out = ip.call(fun, call);
    const now = ip.trace().builder.eqns;
    if (now === eqns) for (const e of eqns.slice(start)) regions.set(e, [region, ...(regions.get(e) ?? [])]);
    if (key !== null && now === eqns && pendingDebugCalls(t) === debugBefore) {
      const entry = traceEntry(t, start, args, out);
      if (entry) {
        if (!traced.has(fun as object)) traced.set(fun as object, new Map());
        traced.get(fun as object)!.set(key, entry);
      }
    }
    if (now === eqns && !ip.atHost) markJitCall(eqns, start, name, atomsOf(t, args), atomsOf(t, out), { prim: 'remat2', params: shown });
    return out;
  });
  // jax_remat3's checkpoint is a `*args, **kwargs` wrapper: JAX names its arguments args[0], args[1], …
  if (!remat3.has(ip)) wrapped.set(w, fun);
  return w;
}

/** A checkpointed function's trace, kept for later calls with the same argument types (JAX's _trace_to_jaxpr cache). */
interface TracedEntry {
  func: Func;
  /** Per equation: the regions inside this checkpoint it was traced in (its own first). */
  stacks: Region[][];
  /** Per equation: the names checkpoint_name gave its results. */
  named: (ReturnType<typeof names.get> | undefined)[][];
  rebuild: (leaves: PyValue[]) => PyValue;
  /** Where it was traced: the trace's equations and the first of its own. */
  origin: Eqn[];
  start: number;
}
const traced = new WeakMap<object, Map<string, TracedEntry>>();

/** The cache key of a call's arguments: their tree with each array's type and each Python scalar's value (null: not cached). */
function traceKey(args: PyTuple, kwNames: string[]): string | null {
  const walk = (v: PyValue): string | null => {
    if (v instanceof PyTuple || v instanceof PyList) {
      const parts = v.items.map(walk);
      return parts.includes(null) ? null : `${v instanceof PyList ? 'L' : 'T'}(${parts.join(',')})`;
    }
    if (v instanceof PyDict) {
      const parts = v.keys().map((k) => (typeof k === 'string' ? `${k}:${walk(v.get(k)!)}` : null));
      return parts.some((p) => p === null || p.endsWith(':null')) ? null : `D(${parts.join(',')})`;
    }
    if (v instanceof Tracer) return `${v.atom.aval.dtype}[${v.atom.aval.shape.join(',')}]${v.atom.aval.weak ? 'w' : ''}`;
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v === null) return `${typeof v}:${String(v)}`;
    return null;
  };
  const k = walk(args);
  return k === null ? null : `${kwNames.join(',')}|${k}`;
}

/** The equations `start…` of trace `t` as a function of the call's traced arguments (null: they read other values, or make no plain arrays). */
function traceEntry(t: Trace, start: number, args: PyTuple, out: PyValue): TracedEntry | null {
  const eqns = t.builder.eqns.slice(start);
  const params: Var[] = [];
  for (const l of flatten(args).leaves) {
    if (!(l instanceof Tracer)) continue;
    if (l.trace !== t || l.atom.kind !== 'var' || params.some((p) => p.id === (l.atom as Var).id)) return null;
    params.push(l.atom);
  }
  const o = flatten(out);
  if (!o.leaves.every((l) => l instanceof Tracer && l.trace === t)) return null;
  const defined = new Set(params.map((p) => p.id));
  for (const e of eqns) {
    if (e.calls?.length) return null;
    for (const a of e.inputs) if (a.kind === 'var' && !defined.has(a.id)) return null;
    for (const v of e.outputs) defined.add(v.id);
  }
  const results = o.leaves.map((l) => (l as Tracer).atom);
  if (results.some((a) => a.kind === 'var' && !defined.has(a.id))) return null;
  return {
    // copies: the trace's own equations may be rewritten in place once it finishes
    func: { name: t.builder.name, params, eqns: eqns.map((e) => ({ ...e, inputs: [...e.inputs], outputs: [...e.outputs] })), results },
    stacks: eqns.map((e) => [...(regions.get(e) ?? [])]),
    named: eqns.map((e) => e.outputs.map((v) => names.get(v))),
    rebuild: o.unflatten,
    origin: t.builder.eqns,
    start,
  };
}

/** A cached trace, inlined for a call under `region`: its equations keep their inner regions and names. */
function replay(ip: Interp, entry: TracedEntry, region: Region, t: Trace, call: CallArgs): PyValue {
  const b = t.builder;
  // the arrays, as this trace has them (an enclosing trace's values captured)
  const atoms = flatten(new PyTuple([...call.args, ...call.kwargs.values()])).leaves.flatMap((l) => (l instanceof Tracer ? [ip.ops.atom(l, call.span)] : []));
  const start = b.eqns.length;
  const outs = b.inline(entry.func, atoms);
  // a jitted call inside it (Eqn.jitRegion) is a new one each time the trace is replayed
  const jitRegions = new Map<number, number>();
  b.eqns.slice(start).forEach((e, i) => {
    if (e.jitRegion !== undefined) {
      if (!jitRegions.has(e.jitRegion)) jitRegions.set(e.jitRegion, freshJitRegion());
      e.jitRegion = jitRegions.get(e.jitRegion)!;
    }
    regions.set(e, [region, ...entry.stacks[i]!.slice(1)]);
    e.outputs.forEach((v, j) => {
      const n = entry.named[i]![j];
      if (n) names.set(v, n.eqns === entry.origin && n.at !== undefined ? { ...n, eqns: b.eqns, at: start + n.at - entry.start } : n);
    });
  });
  return entry.rebuild(outs.map((a) => new Tracer(t, a)));
}

/** The interpreters where jax.config.update('jax_remat3', True) is in effect. */
const remat3 = new WeakSet<Interp>();

/** jax.config.update('jax_remat3', on): JAX's newer checkpoint implementation (it saves the same residuals). */
export function setRemat3(ip: Interp, on: boolean): void {
  if (on) remat3.add(ip);
  else remat3.delete(ip);
}

/** jax.ad_checkpoint.checkpoint_name(x, name): `x`, named for the policies. */
export function checkpointName(c: CallArgs): PyValue {
  const x = arg(c, 0, 'x');
  const name = arg(c, 1, 'name');
  if (typeof name !== 'string') throw new CompileError('TypeError: checkpoint_name: name must be a string', c.span);
  // `at`: where JAX's name equation goes (after the equations traced so far)
  for (const leaf of flatten(x).leaves) if (leaf instanceof Tracer && leaf.atom.kind === 'var') names.set(leaf.atom, { name, span: c.span, eqns: leaf.trace.builder.eqns, at: leaf.trace.builder.eqns.length });
  return x;
}

// ------------------------------------------------------------ print_saved_residuals

/** The qualified names of the module's functions with their spans (innermost found last). */
const functionSpans = new WeakMap<Interp, { qualname: string; start: number; end: number }[]>();

/** Record the module's functions (src/lower/index.ts, before running it): the `(fn)` of a source location. */
export function noteModuleFunctions(ip: Interp, mod: A.Module): void {
  const out: { qualname: string; start: number; end: number }[] = [];
  const walk = (node: unknown, qual: string): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n, qual);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as { kind?: string; name?: string; span?: A.Span };
    let inner = qual;
    if (n.kind === 'FunctionDef' || n.kind === 'Lambda') {
      const own = n.kind === 'Lambda' ? '<lambda>' : n.name!;
      const q = qual ? `${qual}.${own}` : own;
      if (n.span) out.push({ qualname: q, start: n.span.start.offset, end: n.span.end.offset });
      inner = `${q}.<locals>`;
    } else if (n.kind === 'ClassDef') inner = qual ? `${qual}.${n.name}` : n.name!;
    for (const [k, v] of Object.entries(node)) if (k !== 'span' && k !== 'nameSpan' && typeof v === 'object') walk(v, inner);
  };
  walk(mod.body, '');
  functionSpans.set(ip, out);
}

/** `file:line:col (function)`, as JAX's source_info_util.summarize shows a frame. */
function summarize(ip: Interp, span: A.Span | undefined): string {
  if (!span) return 'unknown';
  const fns = (functionSpans.get(ip) ?? []).filter((f) => f.start <= span.start.offset && span.end.offset <= f.end);
  const fn = fns.reduce<{ qualname: string; start: number; end: number } | null>((best, f) => (!best || f.start >= best.start ? f : best), null);
  return `${ip.options.file}:${span.start.line}:${span.start.col - 1} (${fn ? fn.qualname : '<module>'})`;
}

/** The names of the flattened arguments, as JAX's debug info has them: `W1`, `params[0]`, `params['w']`. */
function argNames(fun: PyValue, args: PyValue[], kwargs: Map<string, PyValue>): string[] {
  let f = fun;
  while (f instanceof PyBuiltin && wrapped.has(f)) f = wrapped.get(f)!;
  const params = f instanceof PyFunction ? f.def.params.map((p) => p.name) : [];
  const out: string[] = [];
  const walk = (v: PyValue, path: string): void => {
    if (v instanceof PyTuple || v instanceof PyList) v.items.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v instanceof PyDict) {
      const keys = v.keys();
      const sorted = keys.every((k) => typeof k === 'string') ? [...(keys as string[])].sort() : keys;
      for (const k of sorted) walk(v.get(k)!, `${path}[${typeof k === 'string' ? `'${k}'` : String(k)}]`);
    } else if (v !== null) out.push(path);
  };
  args.forEach((a, i) => walk(a, params[i] ?? `args[${i}]`));
  for (const [k, v] of kwargs) walk(v, k);
  return out;
}

const avalShort = (v: Var): string => `${({ float32: 'f32', int32: 'i32', uint32: 'u32', bool: 'bool' } as Record<string, string>)[v.aval.dtype] ?? v.aval.dtype}[${v.aval.shape.join(',')}]`;

/** The residuals of `func`'s linearization with respect to its first `nargs` (float) parameters, each with what JAX says of it. */
function savedResiduals(ip: Interp, func: Func, argNamesOf: string[], nargs: number): string[] {
  // the arrays the function closes over (its last parameters) are JAX's constants: not differentiated
  const lin = linearizedResiduals(func, func.params.map((p, i) => i < nargs && p.aval.dtype === 'float32'));
  const paramIndex = new Map(lin.params.map((p, i) => [p.id, i]));
  const producer = new Map<number, { eqn: Eqn; origin: Eqn | undefined; index: number }>();
  lin.eqns.forEach(({ eqn, origin }) => eqn.outputs.forEach((o, index) => producer.set(o.id, { eqn, origin, index })));
  const stackOf = (e: Eqn | undefined): Region[] => (e ? regions.get(e) ?? [] : []);
  /** The name checkpoint_name gave a value: the origin equation's own result it replays. */
  const nameOf = (p: { eqn: Eqn; origin: Eqn | undefined; index: number }): { name: string; span: A.Span; eqns?: Eqn[]; at?: number } | undefined => {
    const o = p.origin;
    if (!o || o.prim !== p.eqn.prim || o.outputs.length !== p.eqn.outputs.length) return undefined;
    return names.get(o.outputs[p.index]!);
  };
  const saved = new Set<number>();
  const seen = new Set<string>();
  // a value read in scope `scope` (a region stack): saved there, or recomputed from its own inputs
  const resolve = (v: Var, scope: Region[]): void => {
    const key = `${v.id}|${scope.length}|${scope.map((r) => regionIds.get(r) ?? regionIds.set(r, regionIds.size).get(r)).join(',')}`;
    if (seen.has(key)) return;
    seen.add(key);
    const p = producer.get(v.id);
    const stack = p ? stackOf(p.origin) : [];
    let k = 0;
    while (k < scope.length && k < stack.length && scope[k] === stack[k]) k++;
    // made outside the innermost region reading it: an input of that region, read by the enclosing scope
    if (k < scope.length) return resolve(v, scope.slice(0, k));
    // an operand's implicit broadcast (`x * 2.0`, a rank-0 operand): JAX's operation takes the operand itself
    const o = p?.origin;
    const x = p?.eqn.inputs[0];
    if (o && o.operandBroadcast && o.prim === 'broadcast_in_dim' && p.eqn.prim === 'broadcast_in_dim' && x?.kind === 'var' && (!x.aval.shape.length || x.aval.shape.length === v.aval.shape.length)) {
      return resolve(x, scope);
    }
    if (!p || !scope.length) {
      saved.add(v.id);
      return;
    }
    const named = nameOf(p);
    if (scope[scope.length - 1]!.policy(p.eqn, named ? named.name : null)) {
      saved.add(v.id);
      return;
    }
    for (const a of p.eqn.inputs) if (a.kind === 'var') resolve(a, scope);
  };
  const regionIds = new Map<Region, number>();
  for (const r of lin.reads) for (const a of r.inputs) if (a.kind === 'var') resolve(a, stackOf(r.origin));
  const lines: string[] = [];
  for (const p of lin.params.slice(nargs)) if (saved.has(p.id)) lines.push(`${avalShort(p)} from a constant`);
  for (const p of lin.params.slice(0, nargs)) if (saved.has(p.id)) lines.push(`${avalShort(p)} from the argument ${argNamesOf[paramIndex.get(p.id)!] ?? `at flattened index ${paramIndex.get(p.id)}`}`);
  // in the order of JAX's linearized jaxpr: a named value where its name equation is (before the equations traced after the naming)
  const originAt = new Map(func.eqns.map((e, i) => [e, i]));
  const keyed: { key: number; sub: number; line: string }[] = [];
  lin.eqns.forEach(({ eqn, origin }, i) => {
    eqn.outputs.forEach((o, index) => {
      if (!saved.has(o.id)) return;
      const named = nameOf({ eqn, origin, index });
      if (!named) return keyed.push({ key: i, sub: 1, line: `${avalShort(o)} output of ${eqn.prim} from ${summarize(ip, origin?.span ?? eqn.span)}` });
      let key = i;
      if (named.eqns === func.eqns && named.at !== undefined) {
        key = lin.eqns.findIndex((l) => l.origin !== undefined && (originAt.get(l.origin) ?? -1) >= named.at!);
        if (key < 0) key = lin.eqns.length;
      }
      keyed.push({ key, sub: 0, line: `${avalShort(o)} named '${named.name}' from ${summarize(ip, named.span)}` });
    });
  });
  keyed.sort((a, b) => a.key - b.key || a.sub - b.sub);
  lines.push(...keyed.map((k) => k.line));
  return lines;
}

/** jax.ad_checkpoint.print_saved_residuals(f, *args, **kwargs). */
export function printSavedResiduals(ip: Interp, c: CallArgs): PyValue {
  const fun = arg(c, 0, 'f');
  const args = c.args.slice(1);
  const t = new Trace('saved_residuals', 'jit', null);
  const flat = flatten(new PyTuple([...args, ...c.kwargs.values()]));
  const params = flat.leaves.map((l) => new Tracer(t, t.builder.addParam(ip.ops.aval(l, c.span))));
  const rebuilt = (ip.withTrace(t, () => flat.unflatten(params)) as PyTuple).items;
  const kwargs = new Map([...c.kwargs.keys()].map((k, i) => [k, rebuilt[args.length + i]!]));
  const results = ip.withTrace(t, () => flatten(ip.call(fun, { args: rebuilt.slice(0, args.length), kwargs, span: c.span })).leaves.map((l) => ip.ops.asArray(l, c.span).atom));
  const func = t.builder.finish(results);
  const names = argNames(fun, args, c.kwargs);
  for (const line of savedResiduals(ip, func, names, flat.leaves.length)) ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [{ k: 'lit', value: `${line}\n` }] } });
  return null;
}
