// jax.shard_map (and jax.experimental.shard_map.shard_map): a per-device
// program over a mesh. The body is traced once, with each argument's
// per-device block shape and the mesh axes as its named axes (so psum,
// all_gather, ppermute, axis_index, … resolve against them, as under pmap);
// the host call runs that program on every device of the mesh (`rt.spmd`),
// the arguments laid out as in_specs name and the results as out_specs name.
import { CompileError } from '../common/diagnostics.js';
import { axesSize, localShape, replicated, sameShardings, shardedTypeStr, type DimShardings } from '../ir/sharding.js';
import type { Atom, AVal } from '../ir/types.js';
import { asParams, type ShardMapParams, type Spec } from '../ir/shard_map.js';
import { explicitPvary } from '../ir/vma.js';
import type * as A from '../parser/ast.js';
import type { Interp } from './interp.js';
import { carryDebugCalls, debugCallAtoms, deliverDebugCalls, recordDebugCall, takeDebugCalls, type DebugCall } from './debug_prints.js';
import { Text } from './text.js';
import { PySet } from './sets.js';
import { argTypeSharding, contextMesh, layoutVar, noteShardMapTrace, spmdCallExpr, varyingOfAll } from './lib_sharding.js';
import { arg } from './modules.js';
import { PyAbstractMesh, PyShardMapped, abstractMeshStr, dimsOf, meshShape, meshStr, noteShardMapMesh, underJit, sameMesh, specRepr, tupleRepr } from './shardings.js';
import { HostCallbackInTrace, replaying } from './callback_staging.js';
import { compareKeys, flatten } from './transforms.js';
import {
  HostArray, NdArray, PyBuiltin, PyDict, PyList, PyMesh, PyNamedSharding, PyObject, PyPartitionSpec, PyTuple, Trace, Tracer, isArray, typeName,
  type CallArgs, type PyValue,
} from './values.js';

interface ShardMapOptions {
  mesh: PyMesh | null;
  inSpecs: PyValue;
  outSpecs: PyValue;
  /** check_vma (check_rep): results must not vary over the mesh axes their out_spec leaves out. */
  checkVma: boolean;
  /** axis_names: the mesh axes the body is manual over (null: all of them). */
  axisNames: string[] | null;
}

/** The mesh axes a shard_map's body is manual over, in mesh order. */
const manualAxes = (mesh: PyMesh, opts: ShardMapOptions): string[] => mesh.axisNames.filter((n) => !opts.axisNames || opts.axisNames.includes(n));

/** jax.shard_map(f, mesh=, in_specs=, out_specs=, axis_names=, check_vma=) — or, without `f`, a decorator. */
export function shardMapOf(ip: Interp, c: CallArgs, what: string): PyValue {
  for (const k of c.kwargs.keys()) {
    if (!['f', 'mesh', 'in_specs', 'out_specs', 'axis_names', 'check_vma', 'check_rep', 'auto'].includes(k)) {
      throw new CompileError(`TypeError: ${what}() got an unexpected keyword argument '${k}'`, c.span);
    }
  }
  const meshV = c.kwargs.get('mesh') ?? c.args[1] ?? null;
  if (meshV !== null && !(meshV instanceof PyMesh)) throw new CompileError(`TypeError: ${what}: mesh must be a jax.sharding.Mesh, got ${typeName(meshV)}`, c.span);
  const inSpecs = c.kwargs.has('in_specs') ? c.kwargs.get('in_specs') : c.args[2];
  const outSpecs = c.kwargs.has('out_specs') ? c.kwargs.get('out_specs') : c.args[3];
  if (outSpecs === undefined) throw new CompileError(`TypeError: ${what}() missing required keyword argument 'out_specs'`, c.span);
  // axis_names: the mesh axes the body is manual over (the others stay the compiler's: the body is the same on their devices)
  const axisNamesV = c.kwargs.get('axis_names') ?? null;
  const axisNames = axisNamesV === null ? null : (axisNamesV instanceof PyTuple || axisNamesV instanceof PyList ? axisNamesV.items : axisNamesV instanceof PySet ? [...axisNamesV.entries.values()] : [axisNamesV]);
  if (axisNames && axisNames.some((n) => typeof n !== 'string')) throw new CompileError(`TypeError: ${what}: axis_names must be a set of mesh axis names`, c.span);
  const check = c.kwargs.get('check_vma') ?? c.kwargs.get('check_rep') ?? true;
  const opts: ShardMapOptions = { mesh: meshV, inSpecs: inSpecs ?? null, outSpecs, checkVma: check !== false && check !== null && check !== 0n, axisNames: axisNames as string[] | null };
  const make = (f: PyValue): PyShardMapped => {
    const name = f && typeof f === 'object' && 'name' in f ? String((f as { name: string }).name) : 'shard_map';
    return new PyShardMapped(name, (call) => callShardMap(ip, f, name, opts, call));
  };
  const f = c.kwargs.get('f') ?? c.args[0];
  return f === undefined ? new PyBuiltin(what, (d) => make(arg(d, 0, 'f'))) : make(f);
}

/** The spec of every leaf of `value`: `specs` is a pytree prefix of it (one P covers a whole subtree). */
function leafSpecs(specs: PyValue, value: PyValue, what: string, span: A.Span): PyPartitionSpec[] {
  if (specs instanceof PyPartitionSpec) return flatten(value).leaves.map(() => specs);
  if (specs === null && !flatten(value).leaves.length) return [];
  if (specs === null && what === 'in_specs') return flatten(value).leaves.map(() => new PyPartitionSpec([]));
  if ((specs instanceof PyTuple || specs instanceof PyList) && (value instanceof PyTuple || value instanceof PyList)) {
    if (specs.items.length !== value.items.length) {
      throw new CompileError(`ValueError: shard_map ${what} is a tuple of length ${specs.items.length}, but the values it describes have ${value.items.length} items`, span);
    }
    return specs.items.flatMap((s, i) => leafSpecs(s, value.items[i]!, what, span));
  }
  if (specs instanceof PyDict && value instanceof PyDict) {
    // in flatten's order: sorted keys
    return [...value.entries.values()].sort(([a], [b]) => compareKeys(a, b)).flatMap(([k, v]) => {
      const s = specs.get(k);
      if (s === undefined) throw new CompileError(`ValueError: shard_map ${what} has no entry for the key ${String(k)}`, span);
      return leafSpecs(s, v, what, span);
    });
  }
  throw new CompileError(`ValueError: shard_map ${what} must be a PartitionSpec or a pytree of them matching the ${what === 'in_specs' ? 'arguments' : 'results'}, got ${typeName(specs)}`, span);
}

/** check_vma: JAX's error when a result may vary over a mesh axis its out_spec leaves out. */
function checkOutVma(t: Trace, fname: string, results: Atom[], specs: PyPartitionSpec[], single: boolean, mesh: PyMesh, manual: string[], span: A.Span): void {
  const msgs: string[] = [];
  const vma = varyingOfAll(t, results) ?? [];
  results.forEach((_, j) => {
    const spec = specs[j]!;
    const mentioned = new Set(spec.entries.flatMap((e) => (e === null ? [] : typeof e === 'string' ? [e] : e)));
    const unmentioned = manual.filter((n) => !mentioned.has(n));
    const varying = vma[j] ?? [];
    if (!unmentioned.some((n) => varying.includes(n))) return;
    const key = single ? '' : `[${j}]`;
    if (unmentioned.length > 1) {
      const need = manual.filter((n) => mentioned.has(n)).join(',');
      const diff = unmentioned.filter((n) => varying.includes(n)).join(',');
      msgs.push(`* out_specs${key} is ${specRepr(spec)} which implies that the corresponding output value is only varying across mesh axes {${need}} and not {${diff}}, but it was inferred to be possibly varying over {${varying.join(',')}}`);
    } else {
      msgs.push(`* out_specs${key} is ${specRepr(spec)} which implies that the corresponding output value is replicated across mesh axis '${unmentioned[0]}', but could not infer replication over any axes`);
    }
  });
  if (!msgs.length) return;
  const body = msgs.length === 1 ? [msgs[0]!.slice(2)] : msgs;
  throw new CompileError(
    `ValueError: shard_map applied to the function '${fname}' was given out_specs which require replication which can't be statically inferred given the mesh:\n\n` +
      `The mesh given has shape ${tupleRepr(mesh.devices.shape.map(String))} with corresponding axis names ${tupleRepr(mesh.axisNames.map((n) => `'${n}'`))}.\n\n` +
      body.join('\n\n') +
      '\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`.',
    span,
  );
}

/** Under Explicit axes the arguments must already be laid out as in_specs says (JAX's check). */
function checkInSpec(mesh: PyMesh, spec: PyPartitionSpec, dims: DimShardings, have: DimShardings, aval: AVal, span: A.Span): void {
  if (!mesh.explicit || sameShardings(have, dims)) return;
  throw new CompileError(
    `ValueError: in_specs passed to shard_map: ${specRepr(spec)} does not match the specs of the input: ${specRepr(specOf(have))} for arg: ${shardedTypeStr(aval.dtype, aval.shape, have)}. \`in_specs\` is an optional argument so you can omit specifying it and shard_map will infer the in_specs from the arguments. If you want to reshard your inputs, you can use \`jax.reshard\` on the arguments and then pass those args to shard_map.`,
    span,
  );
}

/** A rank-long PartitionSpec for mesh axes per dimension. */
const specOf = (dims: DimShardings): PyPartitionSpec => new PyPartitionSpec(dims.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d])));

/** The traced body of a shard_map: its per-device program, its results' specs, layouts and global shapes. */
interface TracedBody {
  t: Trace;
  results: Atom[];
  out: { value: PyValue; rebuild: (leaves: PyValue[]) => PyValue };
  outSpecs: PyPartitionSpec[];
  outDims: DimShardings[];
  globalShapes: number[][];
}

/** Trace `fn` on the blocks of arguments of global types `avals` laid out as `inDims` (a trace nested in `parent`, or a top-level one). */
function traceShardMapBody(ip: Interp, fn: PyValue, name: string, opts: ShardMapOptions, mesh: PyMesh, flat: ReturnType<typeof flatten>, avals: AVal[], inDims: DimShardings[], specs: PyPartitionSpec[], parent: Trace | null, span: A.Span): TracedBody {
  const shape = meshShape(mesh);
  const manual = manualAxes(mesh, opts);
  const t = new Trace(name, 'pmap', parent, shape.axes.filter((a) => manual.includes(a.name)).map((a) => ({ name: a.name, size: a.size })));
  noteShardMapTrace(t, manual, inDims.map((d) => d.flat()), opts.checkVma, specs);
  // an eager shard_map runs its body on concrete blocks: a print in it shows each device's (after the program)
  if (!parent && !underJit()) {
    eagerBodies.set(t, mesh);
    carryDebugCalls(t);
  }
  const params = avals.map((a, i) => new Tracer(t, t.builder.addParam({ ...a, shape: localShape(a.shape, inDims[i]!, shape) })));
  const { results, out } = ip.withTrace(t, () => {
    const value = ip.call(fn, { args: (flat.unflatten(params) as PyTuple).items, kwargs: new Map(), span });
    const o = flatten(value);
    const atoms: Atom[] = o.leaves.map((l) => {
      if (!isArray(l) && !(l instanceof NdArray) && typeof l !== 'bigint' && typeof l !== 'number' && typeof l !== 'boolean') {
        throw new CompileError(`TypeError: the function returned a ${typeName(l)}, which is not a valid JAX type`, span);
      }
      return ip.ops.asArray(l, span).atom;
    });
    return { results: atoms, out: { value, rebuild: o.unflatten } };
  });
  const outSpecs = leafSpecs(opts.outSpecs, out.value, 'out_specs', span);
  const outDims: DimShardings[] = results.map((r, j) => {
    const spec = outSpecs[j]!;
    const rank = r.aval.shape.length;
    if (spec.entries.length > rank) {
      throw new CompileError(`ValueError: shard_map out_specs ${specRepr(spec)} has ${spec.entries.length} entries, more than the rank ${rank} of the result of shape (${r.aval.shape.join(', ')})`, span);
    }
    return spec.entries.length ? Array.from({ length: rank }, (_, d) => {
      const e = spec.entries[d] ?? null;
      return e === null ? [] : typeof e === 'string' ? [e] : e;
    }) : replicated(rank);
  });
  // (an eager shard_map calls the function through JAX's wrapper `_rem_singleton`)
  if (opts.checkVma) checkOutVma(t, parent ? name : '_rem_singleton', results, outSpecs, opts.outSpecs instanceof PyPartitionSpec, mesh, manual, span);
  const globalShapes = results.map((r, j) => r.aval.shape.map((n, d) => n * axesSize(shape, outDims[j]![d]!)));
  return { t, results, out, outSpecs, outDims, globalShapes };
}

/** A PartitionSpec's entries as the shard_map primitive keeps them. */
const specEntries = (p: PyPartitionSpec): Spec => p.entries.map((e) => (e === null ? null : typeof e === 'string' ? e : [...e]));

/**
 * shard_map inside a traced function: one shard_map equation of the
 * enclosing trace, its body the per-device program (values it closes over
 * are extra operands, replicated); spmd partitioning inlines it.
 */
function nestedShardMap(ip: Interp, fn: PyValue, name: string, opts: ShardMapOptions, mesh: PyMesh, call: CallArgs): PyValue {
  const flat = flatten(new PyTuple(call.args));
  const args = flat.leaves.map((l) => {
    if (!isArray(l) && !(l instanceof NdArray) && typeof l !== 'number' && typeof l !== 'bigint' && typeof l !== 'boolean') {
      throw new CompileError(`TypeError: shard_map arguments must be arrays, got ${typeName(l)}`, call.span);
    }
    return ip.ops.asArray(l, call.span);
  });
  // without in_specs (JAX 0.10): the arguments' type shardings
  const specs = opts.inSpecs === null
    ? flat.leaves.map((l, i) => specOf(argTypeSharding(ip, l, mesh) ?? replicated(args[i]!.aval.shape.length)))
    : leafSpecs(opts.inSpecs, new PyTuple(call.args), 'in_specs', call.span);
  const inDims = args.map((a, i) => {
    const spec = specs[i]!;
    if (spec.entries.length > a.aval.shape.length) {
      throw new CompileError(`ValueError: shard_map in_specs ${specRepr(spec)} has ${spec.entries.length} entries, more than the rank ${a.aval.shape.length} of the argument of shape (${a.aval.shape.join(', ')})`, call.span);
    }
    const dims = dimsOf(new PyNamedSharding(mesh, spec), a.aval.shape, call.span);
    if (opts.inSpecs !== null) checkInSpec(mesh, spec, dims, argTypeSharding(ip, flat.leaves[i]!, mesh) ?? replicated(a.aval.shape.length), a.aval, call.span);
    return dims;
  });
  const body = traceShardMapBody(ip, fn, name, opts, mesh, flat, args.map((a) => a.aval), inDims, specs, ip.trace(), call.span);
  const { t, results } = body;
  const raw = t.builder.finish(results, t.axisEnv);
  // with check_vma, JAX's implicit pvary as the equations its trace records
  const jaxpr = opts.checkVma ? explicitPvary(raw, [...inDims.map((d) => d.flat()), ...t.captured.map(() => [])], t.axisEnv) : raw;
  const capturedAtoms = t.captured.map((c) => ip.ops.atom(c, call.span));
  const params: ShardMapParams = {
    jaxpr,
    mesh: meshShape(mesh),
    mesh_repr: opts.mesh ? meshStr(opts.mesh) : abstractMeshStr(PyAbstractMesh.of(mesh)),
    in_specs: [...specs.map(specEntries), ...t.captured.map(() => [])],
    out_specs: body.outSpecs.map(specEntries),
    check_vma: opts.checkVma,
    newly_manual_axes: manualAxes(mesh, opts),
  };
  const outs = ip.ops.bindN('shard_map', [...args.map((a) => a.atom), ...capturedAtoms], asParams(params), call.span);
  noteShardMapMesh(ip.trace(), mesh);
  return body.out.rebuild(outs.map((a) => ip.ops.tracer(a)));
}

function callShardMap(ip: Interp, fn: PyValue, name: string, opts: ShardMapOptions, call: CallArgs): PyValue {
  if (call.kwargs.size) throw new CompileError('shard_map-transformed functions take positional arguments only here', call.span);
  const mesh = opts.mesh ?? contextMesh(ip);
  if (!mesh) throw new CompileError('ValueError: shard_map requires a mesh: pass mesh= or set one with jax.set_mesh', call.span);
  const ctx = contextMesh(ip);
  if (opts.mesh && ctx && !sameMesh(ctx, opts.mesh)) {
    throw new CompileError(`ValueError: The context mesh ${abstractMeshStr(PyAbstractMesh.of(ctx))} should match the mesh passed to shard_map ${meshStr(opts.mesh)}`, call.span);
  }
  if (!ip.atHost) return nestedShardMap(ip, fn, name, opts, mesh, call);
  const args = new PyTuple(call.args);
  const flat = flatten(args);
  // the arguments as arrays on the host
  const hosts = flat.leaves.map((l) => {
    if (!isArray(l) && !(l instanceof NdArray) && typeof l !== 'number' && typeof l !== 'bigint' && typeof l !== 'boolean') {
      throw new CompileError(`TypeError: shard_map arguments must be arrays, got ${typeName(l)}`, call.span);
    }
    return ip.hostArray(ip.ops.asArray(l, call.span), call.span);
  });
  // an argument's own placement on this mesh, as a rank-long spec (replicated when it has none)
  const own = (h: HostArray): DimShardings =>
    h.sharding && sameMesh(h.sharding.mesh, mesh) ? dimsOf(h.sharding, h.aval.shape, call.span) : replicated(h.aval.shape.length);
  // without in_specs (JAX 0.10): the arguments' own shardings
  const specs = opts.inSpecs === null ? hosts.map((h) => specOf(own(h))) : leafSpecs(opts.inSpecs, args, 'in_specs', call.span);
  const inDims = hosts.map((h, i) => {
    const spec = specs[i]!;
    if (spec.entries.length > h.aval.shape.length) {
      throw new CompileError(`ValueError: shard_map in_specs ${specRepr(spec)} has ${spec.entries.length} entries, more than the rank ${h.aval.shape.length} of the argument of shape (${h.aval.shape.join(', ')})`, call.span);
    }
    const dims = dimsOf(new PyNamedSharding(mesh, spec), h.aval.shape, call.span);
    // under Explicit axes the arguments must already be laid out as in_specs says (JAX's check)
    const have = own(h);
    checkInSpec(mesh, spec, dims, have, h.aval, call.span);
    return dims;
  });
  let body: TracedBody;
  try {
    body = traceShardMapBody(ip, fn, name, opts, mesh, flat, hosts.map((h) => h.aval), inDims, specs, null, call.span);
  } catch (e) {
    // a host callback inside (jax.pure_callback, io_callback): the body runs on the host once per device, on its blocks
    if (!(e instanceof HostCallbackInTrace) || !ip.atHost) throw e;
    return shardMapOnHost(ip, fn, opts, mesh, flat, hosts, inDims, call.span);
  }
  const { t, out, outSpecs } = body;
  // prints in the body show every device's block: extra results stacked on a leading axis over the whole mesh
  const debug = takeDebugCalls(t);
  const shownVma = varyingOfAll(t, debug.atoms) ?? [];
  const shown = debug.atoms.map((a) => t.builder.bind1('reshape', [a], { new_sizes: [1, ...a.aval.shape], dimensions: null }));
  const n = mesh.devices.ids.length;
  const results = [...body.results, ...shown];
  const outDims = [...body.outDims, ...shown.map((a) => [[...mesh.axisNames], ...replicated(a.aval.shape.length - 1)])];
  const globalShapes = [...body.globalShapes, ...shown.map((a) => [n, ...a.aval.shape.slice(1)])];
  // the program runs on every device of the mesh (the body's own axes: only its manual ones)
  const func = t.builder.finish(results, meshShape(mesh).axes.map((a) => ({ name: a.name, size: a.size })));
  const program = ip.programName(name);
  ip.addProgram(program, func, 'pmap');
  // closed-over arrays are replicated on every device
  ip.flush(t.captured);
  const captured = t.captured.map((v) => ip.hostArray(v, call.span));
  const argNames = [...hosts, ...captured].map((h) => h.name);
  const inLayouts = [...inDims, ...captured.map((h) => replicated(h.aval.shape.length))].map((d) => layoutVar(ip, mesh, d));
  const hints = ip.nameHints.length === results.length ? ip.nameHints : results.map((_, i) => (i >= outSpecs.length ? `${name}_shown${i - outSpecs.length}` : outSpecs.length === 1 ? `${name}_out` : `${name}_out${i}`));
  const names = hints.map((h) => ip.freshName(h));
  const value = spmdCallExpr(program, argNames, inLayouts, outDims.map((d) => layoutVar(ip, mesh, d)), globalShapes);
  ip.emit({ k: 'const', names, destructure: true, value });
  const outs = names.map((n, j) => {
    const a = results[j]!.aval;
    const h = new HostArray(n, { shape: globalShapes[j]!, dtype: a.dtype, ...(a.weak ? { weak: true } : {}) });
    if (j < outSpecs.length) h.sharding = new PyNamedSharding(mesh, outSpecs[j]!);
    return h;
  });
  // in program order: a print shows every device's block at once; jax.debug.print / callback runs once per
  // device with its block (element k of the stacked values: device k of the mesh)
  // device with its block (JAX's eager rule zips the operands' blocks: a value varying over some mesh axes has
  // one block per position along those axes, in mesh order, so the call runs as often as its fewest blocks)
  const shownValues = outs.slice(outSpecs.length);
  const blocks = new Map<PyValue, number[]>();
  shownValues.forEach((v, j) => blocks.set(v, devicesAlong(mesh, shownVma[j] ?? [])));
  const index = (v: PyValue, i: number): PyValue => ip.ops.index(v, [{ kind: 'int', value: blocks.get(v)?.[i] ?? i }], call.span);
  let at = 0;
  for (const c of debug.calls) {
    const values = shownValues.slice(at, (at += debugCallAtoms(c, t)));
    const size = Math.min(...values.map((v) => blocks.get(v)!.length));
    deliverDebugCalls(null, [c], values, t, shardMapPrints.has(c) ? undefined : { size: values.length ? size : 0, index }, (vs) => ip.flush([...vs, ...shownValues]));
  }
  return out.rebuild(outs.slice(0, outSpecs.length));
}

/** Device `p`'s coordinate along each mesh axis (row-major device order). */
function meshCoords(mesh: PyMesh, p: number): Map<string, number> {
  const sizes = mesh.devices.shape;
  const out = new Map<string, number>();
  let rest = p;
  for (let i = sizes.length - 1; i >= 0; i--) {
    out.set(mesh.axisNames[i]!, rest % sizes[i]!);
    rest = Math.floor(rest / sizes[i]!);
  }
  return out;
}

/** The block index along one array dimension sharded over `axes` (major first) of the device at `coords`. */
function blockIndex(mesh: PyMesh, axes: readonly string[], coords: Map<string, number>): number {
  let k = 0;
  for (const a of axes) k = k * mesh.devices.shape[mesh.axisNames.indexOf(a)]! + coords.get(a)!;
  return k;
}

/**
 * An eager shard_map whose body calls back to the host: as JAX runs a callback once per device with that
 * device's block, the body runs on the host for each device of the mesh in order (its blocks cut from the
 * arguments as in_specs say), and each result is put together from the devices' blocks as out_specs say.
 */
function shardMapOnHost(ip: Interp, fn: PyValue, opts: ShardMapOptions, mesh: PyMesh, flat: ReturnType<typeof flatten>, hosts: HostArray[], inDims: DimShardings[], span: A.Span): PyValue {
  const n = mesh.devices.ids.length;
  const block = (h: HostArray, dims: DimShardings, coords: Map<string, number>): Tracer => {
    const items = h.aval.shape.map((size, d) => {
      const axes = dims[d] ?? [];
      if (!axes.length) return { kind: 'slice' as const, start: null, stop: null, step: null };
      const b = size / axes.reduce((m, a) => m * mesh.devices.shape[mesh.axisNames.indexOf(a)]!, 1);
      const k = blockIndex(mesh, axes, coords);
      return { kind: 'slice' as const, start: k * b, stop: (k + 1) * b, step: null };
    });
    return ip.ops.index(h, items, span);
  };
  const outs: PyValue[] = [];
  // (the devices' results stay reachable: a flush for a later device materialises them)
  return ip.holding((hold) => {
    hosts.forEach(hold);
    ip.flush();
    replaying(ip, null, () => {
      for (let p = 0; p < n; p++) {
        const coords = meshCoords(mesh, p);
        const args = (flat.unflatten(hosts.map((h, i) => block(h, inDims[i]!, coords))) as PyTuple).items;
        outs.push(hold(ip.call(fn, { args, kwargs: new Map(), span })));
        ip.flush();
      }
    });
    return assembleBlocks(ip, opts, mesh, outs, span);
  });
}

/** shardMapOnHost's result: each leaf put together from the devices' blocks `outs` (in device order) as out_specs say. */
function assembleBlocks(ip: Interp, opts: ShardMapOptions, mesh: PyMesh, outs: PyValue[], span: A.Span): PyValue {
  const n = mesh.devices.ids.length;
  const first = flatten(outs[0]!);
  const outSpecs = leafSpecs(opts.outSpecs, outs[0]!, 'out_specs', span);
  const leaves = first.leaves.map((_, j) => {
    const blocks = outs.map((o) => ip.ops.asArray(flatten(o).leaves[j]!, span));
    const rank = blocks[0]!.aval.shape.length;
    const spec = outSpecs[j]!;
    const dims: string[][] = Array.from({ length: rank }, (_, d) => {
      const e = spec.entries[d] ?? null;
      return e === null ? [] : typeof e === 'string' ? [e] : [...e];
    });
    // the grid of blocks: along each dimension, one block per position of its mesh axes (the first device there)
    const grid = dims.map((axes) => axes.reduce((m, a) => m * mesh.devices.shape[mesh.axisNames.indexOf(a)]!, 1));
    const at = (cell: number[]): Tracer => {
      for (let p = 0; p < n; p++) {
        const coords = meshCoords(mesh, p);
        if (dims.every((axes, d) => blockIndex(mesh, axes, coords) === cell[d])) return blocks[p]!;
      }
      return blocks[0]!;
    };
    const build = (d: number, cell: number[]): Tracer =>
      d === rank ? at(cell) : grid[d] === 1 ? build(d + 1, [...cell, 0]) : ip.ops.concatenate(Array.from({ length: grid[d]! }, (_, k) => build(d + 1, [...cell, k])), d, span);
    return build(0, []);
  });
  return first.unflatten(leaves);
}

// ------------------------------------------------------------------ print inside an eager shard_map

/** The mesh positions (row-major) whose coordinates along the axes not in `axes` are 0: one per block of a value varying over `axes`. */
function devicesAlong(mesh: PyMesh, axes: readonly string[]): number[] {
  const sizes = mesh.devices.shape;
  const out: number[] = [];
  for (let p = 0; p < mesh.devices.ids.length; p++) {
    let rest = p;
    let keep = true;
    for (let i = sizes.length - 1; i >= 0; i--) {
      if (rest % sizes[i]! !== 0 && !axes.includes(mesh.axisNames[i]!)) keep = false;
      rest = Math.floor(rest / sizes[i]!);
    }
    if (keep) out.push(p);
  }
  return out;
}

/** The bodies of eager (host-level) shard_maps, with their meshes. */
const eagerBodies = new WeakMap<Trace, PyMesh>();
/** The debug calls that are such prints. */
const shardMapPrints = new WeakSet<DebugCall>();

/** A value of an eager shard_map's body, shown after the program: every device's block, stacked in mesh order. */
export class PyDeviceBlocks extends PyObject {
  readonly typeName = 'ArrayImpl';
  constructor(
    readonly stacked: HostArray,
    readonly mesh: PyMesh,
  ) {
    super();
  }
}

/**
 * print(...) in the body of an eager shard_map, showing a value of the body:
 * JAX runs the body on each device's block and shows them all. Recorded as a
 * debug call (its values become extra results) and printed, by `emit`, after
 * the program with each such value a PyDeviceBlocks. False: not such a print.
 */
export function deferShardMapPrint(ip: Interp, args: PyValue[], span: A.Span, emit: (args: PyValue[]) => void): boolean {
  if (ip.atHost) return false;
  const t = ip.trace();
  const mesh = eagerBodies.get(t);
  const mine = (v: PyValue | undefined): boolean => v instanceof Tracer && v.trace === t && !v.materialized;
  if (!mesh || !args.some(mine)) return false;
  const call: DebugCall = {
    run: (vals) => emit(vals.map((v, i) => (mine(args[i]) && v instanceof HostArray ? new PyDeviceBlocks(v, mesh) : v))),
    args,
    kwargs: new Map(),
    span,
  };
  shardMapPrints.add(call);
  recordDebugCall(t, call);
  return true;
}

/** str() of a PyDeviceBlocks: `On cpu:0 at mesh coordinates (i,) = (0,):` and its block, per device. */
export function deviceBlocksText(v: PyValue): Text | undefined {
  if (!(v instanceof PyDeviceBlocks)) return undefined;
  const { mesh } = v;
  const sizes = mesh.devices.shape;
  const names = `(${mesh.axisNames.join(', ')},)`;
  const coords = mesh.devices.ids.map((_, k) => {
    const c: number[] = [];
    let r = k;
    for (let d = sizes.length - 1; d >= 0; d--) {
      c.unshift(r % sizes[d]!);
      r = Math.floor(r / sizes[d]!);
    }
    return `${names} = (${c.join(', ')}${c.length === 1 ? ',' : ''})`;
  });
  return new Text([{
    k: 'call',
    callee: 'rt.deviceBlocksStr',
    await: true,
    args: [
      { k: 'var', name: v.stacked.name },
      { k: 'array', items: mesh.devices.ids.map((id) => ({ k: 'lit', value: id })) },
      { k: 'array', items: coords.map((c) => ({ k: 'lit', value: c })) },
    ],
  }]);
}
