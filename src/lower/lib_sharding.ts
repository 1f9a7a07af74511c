// jax.sharding at compile time: Mesh, jax.make_mesh, PartitionSpec (P),
// NamedSharding, jax.device_put, arrays' `.sharding`, the printing of shards
// and device arrays (meshes and specs print in shardings.ts), and the host
// side of calling a program over sharded arrays (partitioned by
// src/passes/spmd.ts, run by the runtime's `rt.spmd`).
import { BOXES, boxLine, boxRule } from './rich_box.js';
import { CompileError } from '../common/diagnostics.js';
import type { HExpr } from '../ir/host.js';
import type { DimShardings, MeshShape, TypeSharding } from '../ir/sharding.js';
import { shardedDim, type JaxprTypes } from '../ir/jaxpr_printer.js';
import { axesSize, localShape, replicated, shardedTypeStr, vmaUrStr } from '../ir/sharding.js';
import { jaxTypeStr, shortDtype, type Atom, type AVal, type Func, type Var } from '../ir/types.js';
import type * as A from '../parser/ast.js';
import { propagateShardings, reducedTypes, unreducedResults, unreducedTypes } from '../passes/sharding.js';
import type { OutSharding } from './arrays.js';
import { programShardings } from '../passes/spmd.js';
import { vmaOfFunc } from '../ir/vma.js';
import { PySet } from './sets.js';
import { PySlice as PySliceKey } from './interp.js';
import type { Interp } from './interp.js';
import { arg, builtinModule } from './modules.js';
import { PyAbstractMesh, abstractMeshStr, type AxisKind, dimsOf, meshOf, sameMesh, shardMapMeshOf, meshRepr, meshShape, meshStr, pyStr, resultSharding, shardingRepr, specAxes, specRepr, tupleRepr } from './shardings.js';
import { Text } from './text.js';
import { refType } from './refs.js';
import {
  HostArray, NdArray, PyBuiltin, PyDType, PyDevice, PyDeviceArray, PyInstance, PyKeyArray, PyModule, PyObject, PyDict, PyList, PyMesh, PyNamedSharding, PyPartitionSpec, PyRef, PyTuple,
  Trace, Tracer, isArray, typeName, type CallArgs, type PyValue,
} from './values.js';

/** A Python slice object (as in a shard's `index`): `slice(0, 2, None)`. */
export class PySlice extends PyObject {
  readonly typeName = 'slice';
  constructor(
    readonly start: number | null,
    readonly stop: number | null,
  ) {
    super();
  }
}

/** `x.devices()`: the set of devices holding an array (printed in device order). */
export class PyDeviceSet extends PyObject {
  readonly typeName = 'set';
  constructor(readonly ids: number[]) {
    super();
  }
}

/** The sharding of an array on one device (device 0: where jaxts puts unsharded arrays). */
export class PySingleDeviceSharding extends PyObject {
  readonly typeName = 'SingleDeviceSharding';
}

/** jax.sharding.SingleDeviceSharding(device, *, memory_kind=None): unsharded arrays live on device 0. */
function singleDeviceSharding(c: CallArgs): PyValue {
  const device = c.args[0] ?? c.kwargs.get('device');
  if (!(device instanceof PyDevice)) throw new CompileError(`TypeError: SingleDeviceSharding expects a Device, got ${typeName(device ?? null)}`, c.span);
  if (device.id !== 0) throw new CompileError(`NotImplementedError: a SingleDeviceSharding on device ${device.id} is not supported by jaxts (unsharded arrays live on device 0)`, c.span);
  return new PySingleDeviceSharding();
}

/** One element of `x.addressable_shards`: the block a device holds. */
export class PyShard extends PyObject {
  readonly typeName = 'Shard';
  private data: HostArray | null = null;
  constructor(
    readonly array: HostArray,
    /** Mesh position of the device. */
    readonly position: number,
    readonly device: number,
    readonly index: PySlice[],
    readonly replicaId: number,
  ) {
    super();
  }
  /** The block as an array on its device (`rt.shard(x, position)`), emitted on first use. */
  dataArray(ip: Interp): HostArray {
    if (this.data) return this.data;
    const name = ip.freshName(`${this.array.name}_shard${this.position}`);
    ip.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'rt.shard', await: true, args: [{ k: 'var', name: this.array.name }, { k: 'lit', value: this.position }] } });
    const shape = this.index.map((s, d) => (s.start === null ? this.array.aval.shape[d]! : s.stop! - s.start));
    this.data = new HostArray(name, { shape, dtype: this.array.aval.dtype });
    return this.data;
  }
}

// ------------------------------------------------------------ printing

/** str/repr of an array of devices, as NumPy prints an object array. */
export function deviceArrayText(d: PyDeviceArray, repr: boolean): Text {
  const dev = (id: number): Text => new Text([{ k: 'call', callee: 'rt.deviceRepr', args: [{ k: 'lit', value: id }] }]);
  const rows = (shape: number[], ids: number[], depth: number): Text => {
    if (shape.length <= 1) return Text.of('[').concat(Text.join(ids.map(dev), repr ? ', ' : ' '), ']');
    const n = shape[0]!;
    const step = ids.length / n;
    const sub = Array.from({ length: n }, (_, i) => rows(shape.slice(1), ids.slice(i * step, (i + 1) * step), depth + 1));
    return Text.of('[').concat(Text.join(sub, `${repr ? ',' : ''}\n${' '.repeat(depth + 1 + (repr ? 6 : 0))}`), ']');
  };
  const body = rows(d.shape, d.ids, 0);
  return repr ? Text.of('array(').concat(body, ', dtype=object)') : body;
}

const sliceRepr = (s: PySlice): string => `slice(${s.start ?? 'None'}, ${s.stop ?? 'None'}, None)`;

/** Static str()/repr() of the sharding objects, or null for other values. */
export function shardingText(ip: Interp, v: PyValue, repr: boolean): Text | null {
  if (v instanceof PySlice) return Text.of(sliceRepr(v));
  if (v instanceof PyDeviceSet) {
    const dev = (id: number): Text => new Text([{ k: 'call', callee: 'rt.deviceRepr', args: [{ k: 'lit', value: id }] }]);
    return Text.of('{').concat(Text.join(v.ids.map(dev), ', '), '}');
  }
  if (v instanceof PySingleDeviceSharding) {
    return Text.of('SingleDeviceSharding(device=').concat(new Text([{ k: 'call', callee: 'rt.deviceRepr', args: [{ k: 'lit', value: 0 }] }]), ', memory_kind=device)');
  }
  if (v instanceof PyShard) {
    const dev = new Text([{ k: 'call', callee: 'rt.deviceRepr', args: [{ k: 'lit', value: v.device }] }]);
    const data = new Text([{ k: 'call', callee: 'jx.str', await: true, args: [{ k: 'var', name: v.dataArray(ip).name }] }]);
    return Text.of('Shard(device=').concat(dev, `, index=${tupleRepr(v.index.map(sliceRepr))}, replica_id=${v.replicaId}, data=`, data, ')');
  }
  if (v instanceof PyMesh) return Text.of(repr ? meshRepr(v) : meshStr(v));
  if (v instanceof PyAbstractMesh) return Text.of(abstractMeshStr(v));
  if (v instanceof PyAxisType) return Text.of(repr ? v.name : `AxisType.${v.name}`);
  if (v instanceof PyShapedArray) return Text.of(repr && !v.ref ? `ShapedArray(${v.str()})` : v.str());
  if (v instanceof PyNamedSharding && abstractShardings.has(v)) {
    return Text.of(`NamedSharding(mesh=${abstractMeshStr(PyAbstractMesh.of(v.mesh))}, spec=${specRepr(v.spec)})`);
  }
  if (v instanceof PyPartitionSpec) return Text.of(specRepr(v));
  if (v instanceof PyNamedSharding) return Text.of(shardingRepr(v));
  if (v instanceof PyDeviceArray) return deviceArrayText(v, repr);
  return null;
}

/** The host constant holding a layout for `rt.devicePut` / `rt.spmd` (created once at the top of main()). */
export function layoutVar(ip: Interp, mesh: PyMesh, dims: DimShardings): HExpr {
  const axisIndex = (a: string): number => mesh.axisNames.indexOf(a);
  const dimsIdx = dims.map((d) => d.map(axisIndex));
  const key = `${mesh.devices.ids.join(',')}|${mesh.devices.shape.join(',')}|${JSON.stringify(dimsIdx)}`;
  const hint = dims.every((d) => !d.length) ? 'replicated' : `sharded_${dims.map((d) => (d.length ? d.join('_') : 'none')).join('_')}`;
  const lit = (n: number): HExpr => ({ k: 'lit', value: n });
  const name = ip.hoisted(key, hint, {
    k: 'call',
    callee: 'rt.layout',
    args: [
      { k: 'array', items: mesh.devices.ids.map(lit) },
      { k: 'array', items: mesh.devices.shape.map(lit) },
      { k: 'array', items: dimsIdx.map((d) => ({ k: 'array', items: d.map(lit) })) },
    ],
  });
  return { k: 'var', name };
}

/** The host call `rt.spmd(program, args, inLayouts, outLayouts, shapes)`: a partitioned program run on every device of its mesh, each argument and result in the layout given. */
export function spmdCallExpr(program: string, args: readonly string[], inLayouts: HExpr[], outLayouts: HExpr[], shapes: readonly (readonly number[])[]): HExpr {
  const lits = (s: readonly number[]): HExpr => ({ k: 'array', items: s.map((n) => ({ k: 'lit', value: n })) });
  return {
    k: 'call',
    callee: 'rt.spmd',
    await: true,
    args: [
      { k: 'program', name: program },
      { k: 'array', items: args.map((name) => ({ k: 'var', name })) },
      { k: 'array', items: inLayouts },
      { k: 'array', items: outLayouts },
      { k: 'array', items: shapes.map(lits) },
    ],
  };
}

// ------------------------------------------------------------ device_put and SPMD calls

/** A sharding argument: a NamedSharding, or a PartitionSpec resolved against the context mesh (jax.set_mesh). */
export function shardingArg(ip: Interp, v0: PyValue, what: string, span: A.Span): PyNamedSharding | PyValue {
  // a jax.experimental.layout Format (src/lower/lib_layout.ts) places by its sharding (every layout is row-major here)
  const v = v0 instanceof PyInstance && v0.cls.name === 'Format' && v0.cls.module === 'jax._src.layout' ? (v0.attrs.get('sharding') ?? null) : v0;
  if (!(v instanceof PyPartitionSpec)) return v;
  const mesh = contextMesh(ip) ?? (what === 'with_sharding_constraint' || what.startsWith('pjit ') ? legacyMesh(ip) : null);
  if (!mesh) throw new CompileError(noMeshError(v, what), span);
  return checkedSharding(mesh, v, span);
}

/** JAX's error for a PartitionSpec given to `what` with no mesh in context (each API has its own wording). */
function noMeshError(spec: PyPartitionSpec, what: string): string {
  if (what === 'device_put') return 'ValueError: Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put';
  const api = what === 'with_sharding_constraint' ? ['with_sharding_constraint', 'shardings'] : what.startsWith('jit ') || what.startsWith('pjit ') ? ['jit', what.slice(what.indexOf(' ') + 1)] : null;
  if (api) {
    return `RuntimeError: ${api[0]} requires a non-empty mesh in context if you are passing \`PartitionSpec\`s to ${api[1]}. You can define a context mesh via \`jax.set_mesh(mesh)\`. Alternatively, provide \`Sharding\`s to ${api[1]} and then the mesh context manager is not required.`;
  }
  return `ValueError: Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a NamedSharding instance or enter into a mesh context via \`jax.set_mesh\`. Got ${specRepr(spec)}`;
}

/**
 * `out_sharding=` of a jnp function (a PartitionSpec of the context mesh or a
 * NamedSharding): the mesh axes per dimension of a result of shape `shape`.
 */
export function outShardingOf(ip: Interp, s: PyValue, span: A.Span): OutSharding {
  const named = shardingArg(ip, s, 'out_sharding', span);
  if (!(named instanceof PyNamedSharding)) throw new CompileError(`TypeError: out_sharding must be a PartitionSpec or a NamedSharding, got ${typeName(named)}`, span);
  return Object.assign((shape: readonly number[]) => dimsOf(named, shape, span).map((d) => [...d]), { unreduced: named.spec.unreduced });
}

/**
 * A function's `out_sharding=` keyword (jax.random samplers and others that
 * take one): `f` called without it, its result laid out as it says (JAX's
 * reshard of the result).
 */
export function withOutSharding(ip: Interp, c: CallArgs, f: (c: CallArgs) => PyValue): PyValue {
  const device = c.kwargs.get('device');
  if (device !== undefined && device !== null && ip.atHost) {
    // device= (a Device or a Sharding) of an array made at host level: the new array placed there, as device_put
    const kwargs = new Map(c.kwargs);
    kwargs.delete('device');
    return placeTree(ip, withOutSharding(ip, { ...c, kwargs }, f), device, 'device_put', ip.nameHints.length === 1 ? ip.nameHints[0]! : '', c.span);
  }
  const s = c.kwargs.get('out_sharding');
  if (s === undefined) return f(c);
  const kwargs = new Map(c.kwargs);
  kwargs.delete('out_sharding');
  const out = f({ ...c, kwargs });
  return s === null ? out : placeTree(ip, out, s, 'reshard', ip.nameHints.length === 1 ? ip.nameHints[0]! : '', c.span);
}

const isDevice = (v: PyValue): boolean => v !== null && typeof v === 'object' && v.typeName === 'Device';

/** device_put's values as JAX arrays: Python scalars (weakly typed) and NumPy arrays (in JAX's canonical dtypes) become arrays. */
function onDevice(ip: Interp, v: PyValue, span: A.Span): PyValue {
  if (v instanceof PyTuple || v instanceof PyList) {
    const items = v.items.map((x) => onDevice(ip, x, span));
    return v instanceof PyList ? new PyList(items) : new PyTuple(items, v.cls);
  }
  if (v instanceof PyDict && v.flavor === null) {
    const d = new PyDict();
    for (const [k, x] of v.entries.values()) d.set(k, onDevice(ip, x, span));
    return d;
  }
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof NdArray) return ip.ops.asArray(v, span);
  return v;
}

/** jax.device_put(x, sharding) at host level, over a pytree of arrays (and of shardings, a prefix of it). */
function devicePut(ip: Interp, c: CallArgs): PyValue {
  const target = c.args[1] ?? c.kwargs.get('device') ?? null;
  // with no target the values stay where they are; host values (Python scalars, NumPy arrays) become JAX arrays
  const x = target === null ? onDevice(ip, arg(c, 0, 'x'), c.span) : arg(c, 0, 'x');
  return placeTree(ip, x, target, 'device_put', ip.nameHints.length === 1 ? ip.nameHints[0]! : '', c.span);
}

/** jit(in_shardings=, out_shardings=) at host: `x` (the arguments or results) placed as `target` says. */
export function placeAs(ip: Interp, x: PyValue, target: PyValue, what: string, span: A.Span): PyValue {
  return placeTree(ip, x, target, what, '', span);
}

/** Sharding constraints (with_sharding_constraint, device_put) on the values of each jit trace, by variable. */
const traceConstraints = new WeakMap<Trace, Map<number, PyNamedSharding>>();

/** The constraints on the results of jit trace `t` (null: none). */
export function resultConstraints(t: Trace, func: Func): { shardings: (PyNamedSharding | null)[] } | null {
  const rm = traceResultMesh.get(t);
  if (rm) resultMeshes.set(func, rm);
  const m = traceConstraints.get(t);
  if (!m) return null;
  const shardings = func.results.map((r) => (r.kind === 'var' ? (m.get(r.id) ?? null) : null));
  return shardings.some((s) => s !== null) ? { shardings } : null;
}

/**
 * The mesh of the sharding constraints inside jit trace `t` (with_sharding_constraint, device_put):
 * a jit whose arguments are on no mesh still runs over it, as JAX takes its device assignment from them.
 */
export function constraintMesh(t: Trace): PyMesh | null {
  for (const s of traceConstraints.get(t)?.values() ?? []) return s.mesh;
  return null;
}

/** Place every leaf of `x` as `target` says (a pytree prefix of `x`: one sharding for a whole subtree). */
function placeTree(ip: Interp, x: PyValue, target: PyValue, what: string, hint: string, span: A.Span): PyValue {
  if ((target instanceof PyTuple || target instanceof PyList) && (x instanceof PyTuple || x instanceof PyList)) {
    if (target.items.length !== x.items.length) {
      throw new CompileError(`ValueError: ${what}: the shardings (${target.items.length}) do not match the structure of the values (${x.items.length} items)`, span);
    }
    const items = x.items.map((v, i) => placeTree(ip, v, target.items[i]!, what, hint, span));
    return x instanceof PyList ? new PyList(items) : new PyTuple(items, x.cls);
  }
  const sharding = shardingArg(ip, target, what, span);
  if (!(sharding instanceof PyNamedSharding)) {
    if (sharding === null) return x;
    if (isDevice(sharding) || sharding instanceof PySingleDeviceSharding) return ip.atHost ? putTree(ip, x, null, hint, span) : x;
    throw new CompileError(`jax.${what}: placing on a ${typeName(sharding)} is not supported (use a NamedSharding, a PartitionSpec or a device)`, span);
  }
  // inside jit a device_put is a sharding constraint: the values are unchanged, and a result so
  // constrained leaves the program in that layout
  if (!ip.atHost) {
    if (sharding.spec.unreduced.length && what !== 'reshard') throw new CompileError(`NotImplementedError: jax.${what} to an unreduced sharding (${specRepr(sharding.spec)}) inside a traced function is not supported by jaxts`, span);
    const t = ip.trace();
    if (what === 'reshard' && (sharding.spec.reduced.length || sharding.spec.unreduced.length)) {
      // a reshard to a reduced layout (`{R:X}`: its cotangent is unreduced) or to an unreduced one (`{U:X}`: the
      // first device keeps the value, the others zeros, as XLA lays it out): an equation, so that the type shows it
      const inMesh = (axes: readonly string[]): string[] => sharding.mesh.axisNames.filter((n) => axes.includes(n));
      const layout = sharding.spec.reduced.length ? { reduced: inMesh(sharding.spec.reduced) } : { unreduced: inMesh(sharding.spec.unreduced) };
      const reduceTo = (leaf: PyValue): PyValue => {
        if (leaf instanceof PyTuple || leaf instanceof PyList) {
          const items = leaf.items.map(reduceTo);
          return leaf instanceof PyList ? new PyList(items) : new PyTuple(items, leaf.cls);
        }
        const a = ip.ops.asArray(leaf, span);
        return ip.ops.tracer(ip.ops.bind('sharding_constraint', [a.atom], { dims: dimsOf(sharding, a.aval.shape, span), reshard: true, ...layout }, span));
      };
      return reduceTo(x);
    }
    const own = traceArgs.get(t)?.mesh;
    // an unreduced value resharded to a sharding without those axes: an equation, whose partitioning adds the partial sums up
    const reduceLeaf = (leaf: PyValue): PyValue => {
      if (leaf instanceof PyTuple || leaf instanceof PyList) {
        const items = leaf.items.map(reduceLeaf);
        return leaf instanceof PyList ? new PyList(items) : new PyTuple(items, leaf.cls);
      }
      if (!(leaf instanceof Tracer) || leaf.trace !== t || !tracerDims(ip, leaf, true)?.unreduced.some((a) => !sharding.spec.unreduced.includes(a))) return leaf;
      return ip.ops.tracer(ip.ops.bind('sharding_constraint', [leaf.atom], { dims: dimsOf(sharding, leaf.aval.shape, span), reshard: true }, span));
    };
    if (t.kind === 'jit' && own && sameMesh(own, sharding.mesh)) x = reduceLeaf(x);
    if (t.kind === 'jit' && own && !sameMesh(own, sharding.mesh)) return constrainOnMesh(ip, t, x, own, sharding, span);
    if (t.kind === 'jit') {
      let m = traceConstraints.get(t);
      if (!m) traceConstraints.set(t, (m = new Map()));
      for (const leaf of flattenLeaves(x)) if (leaf instanceof Tracer && leaf.trace === t && leaf.atom.kind === 'var') m.set(leaf.atom.id, sharding);
    }
    return x;
  }
  return putTree(ip, x, sharding, hint, span);
}

/** The jit traces whose values were laid out over another mesh (use_abstract_mesh): their results are reported on it. */
const traceResultMesh = new WeakMap<Trace, PyMesh>();
/** The same, by the finished program (spmdCall reads it). */
const resultMeshes = new WeakMap<Func, PyMesh>();

/**
 * For each axis of mesh `to`, the axes of mesh `from` it spans, when `to` is
 * `from` with runs of consecutive axes merged or split over the same devices
 * in the same order; null otherwise. (Only merges: a `to` axis is a run of `from` axes.)
 */
function axisGroups(from: PyMesh, to: PyMesh): string[][] | null {
  if (from.devices.ids.join() !== to.devices.ids.join()) return null;
  const groups: string[][] = [];
  let i = 0;
  for (let j = 0; j < to.axisNames.length; j++) {
    const g: string[] = [];
    let n = 1;
    while (n < to.devices.shape[j]! && i < from.axisNames.length) {
      n *= from.devices.shape[i]!;
      g.push(from.axisNames[i++]!);
    }
    if (n !== to.devices.shape[j]) return null;
    groups.push(g);
  }
  return i === from.axisNames.length ? groups : null;
}

/** A value of a jit over mesh `own` laid out as `s` (on another mesh over the same devices) says: a constraint in `own`'s axes. */
function constrainOnMesh(ip: Interp, t: Trace, x: PyValue, own: PyMesh, s: PyNamedSharding, span: A.Span): PyValue {
  const groups = axisGroups(own, s.mesh);
  const ids = (m: PyMesh): string => `[${[...m.devices.ids].sort((a, b) => a - b).join(', ')}]`;
  if (ids(own) !== ids(s.mesh)) {
    // JAX's check of a jitted computation's device assignment (pxla._get_and_check_device_assignment)
    throw new CompileError(`ValueError: Received incompatible devices for jitted computation. Got arguments of ${t.builder.name} with device ids ${ids(own)} on platform CPU and device_put inside jit with device ids ${ids(s.mesh)} on platform CPU`, span);
  }
  if (!groups) throw new CompileError(`NotImplementedError: a sharding over ${meshStr(s.mesh)} inside a function over ${meshStr(own)} is not supported by jaxts (the meshes must share their devices, in order)`, span);
  traceResultMesh.set(t, s.mesh);
  const cons = (leaf: PyValue): PyValue => {
    if (leaf instanceof PyTuple || leaf instanceof PyList) {
      const items = leaf.items.map(cons);
      return leaf instanceof PyList ? new PyList(items) : new PyTuple(items, leaf.cls);
    }
    if (!(leaf instanceof Tracer) || leaf.trace !== t) return leaf;
    const dims = dimsOf(s, leaf.aval.shape, span).map((d) => d.flatMap((a) => groups[s.mesh.axisNames.indexOf(a)]!));
    return ip.ops.tracer(ip.ops.bind('sharding_constraint', [leaf.atom], { dims }, span));
  };
  return cons(x);
}

/** A result sharding over `from` told over `to` (a mesh whose axes merge runs of `from`'s), or null when it cannot be. */
function relabelSharding(s: PyNamedSharding, rank: number, to: PyMesh): PyNamedSharding | null {
  const groups = axisGroups(s.mesh, to);
  if (!groups) return null;
  const dims: string[][] = [];
  for (const d of specAxes(s, rank)) {
    const out: string[] = [];
    for (let k = 0; k < d.length; ) {
      const j = groups.findIndex((g) => g.length > 0 && g.every((a, i) => d[k + i] === a));
      if (j < 0) return null;
      out.push(to.axisNames[j]!);
      k += groups[j]!.length;
    }
    dims.push(out);
  }
  return resultSharding(to, dims, null);
}

/** `x`'s arrays laid out as `target` says (null: gathered whole on device 0). */
function putTree(ip: Interp, x: PyValue, target: PyNamedSharding | null, hint: string, span: A.Span): PyValue {
  const put = (leaf: PyValue, hint: string): PyValue => {
    if (leaf instanceof PyTuple || leaf instanceof PyList) {
      const items = leaf.items.map((x, i) => put(x, leaf instanceof PyTuple && leaf.cls ? `${hint}_${leaf.cls.fields[i]}` : hint));
      return leaf instanceof PyList ? new PyList(items) : new PyTuple(items, leaf.cls);
    }
    if (leaf instanceof PyDict) {
      const d = new PyDict();
      for (const [k, v] of leaf.entries.values()) d.set(k, put(v, typeof k === 'string' ? `${hint}_${k}` : hint));
      return d;
    }
    if (leaf === null) return null;
    const h = ip.hostArray(ip.ops.asArray(leaf, span), span);
    if (!target) {
      // to one device: only an array laid out over a mesh moves (the others are on device 0 already)
      if (!h.sharding) return h;
      const one = new PyMesh(new PyDeviceArray([1], [0]), ['_'], false);
      const name = ip.freshName(hint || h.name);
      ip.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'rt.devicePut', await: true, args: [{ k: 'var', name: h.name }, layoutVar(ip, one, replicated(h.aval.shape.length))] } });
      const out = new HostArray(name, { shape: h.aval.shape, dtype: h.aval.dtype });
      if (typedAxes(ip, h.sharding.mesh).length) out.typeSharding = h.sharding;
      return out;
    }
    if (h.sharding?.spec.unreduced.some((a) => !target.spec.unreduced.includes(a))) return putTree(ip, reduceUnreduced(ip, h, target.spec.unreduced, hint, span), target, hint, span);
    if (target.spec.unreduced.length) return putUnreduced(ip, h, target, hint, span);
    const dims = dimsOf(target, h.aval.shape, span);
    const name = ip.freshName(hint || h.name);
    ip.emit({ k: 'const', names: [name], value: { k: 'call', callee: 'rt.devicePut', await: true, args: [{ k: 'var', name: h.name }, layoutVar(ip, target.mesh, dims)] } });
    const out = new HostArray(name, { shape: h.aval.shape, dtype: h.aval.dtype });
    out.sharding = target;
    return out;
  };
  return put(x, hint);
}

/**
 * `h` laid out unreduced over the axes `target.spec.unreduced`: each device
 * keeps the part of the value its block held before, zeros elsewhere, so that
 * the sum over those axes is the value (what JAX's device_put gives for an
 * array sharded over them). A per-device program: the block gathered along
 * each such dimension, then masked to the device's own part.
 */
function putUnreduced(ip: Interp, h: HostArray, target: PyNamedSharding, hint: string, span: A.Span): HostArray {
  const mesh = target.mesh;
  const shape = meshShape(mesh);
  const un = target.spec.unreduced;
  const src = h.sharding && sameMesh(h.sharding.mesh, mesh) ? dimsOf(h.sharding, h.aval.shape, span) : replicated(h.aval.shape.length);
  const want = dimsOf(target, h.aval.shape, span);
  // first laid out as the target, each dimension also sharded over the unreduced axes it was sharded
  // over where that still divides it (those devices keep their own block); over the other unreduced
  // axes the first device holds the value and the others zeros
  const mid: string[][] = want.map((d) => [...d]);
  const placed = new Set<string>();
  want.forEach((d, i) => {
    for (const a of src[i]!) {
      if (!un.includes(a) || d.includes(a) || placed.has(a)) continue;
      if (h.aval.shape[i]! % axesSize(shape, [...mid[i]!, a]) !== 0) continue;
      mid[i]!.push(a);
      placed.add(a);
    }
  });
  const rest = un.filter((a) => !placed.has(a));
  let from = h;
  if (!sameDims(src, mid)) {
    const spec = new PyPartitionSpec(mid.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d])));
    from = putTree(ip, h, new PyNamedSharding(mesh, spec), hint, span) as HostArray;
  }
  const t = new Trace('unreduced', 'pmap', null, shape.axes.map((a) => ({ name: a.name, size: a.size })));
  const local = localShape(h.aval.shape, mid, shape);
  const param = t.builder.addParam({ ...h.aval, shape: local });
  const result = ip.withTrace(t, () => {
    const o = ip.ops;
    let x: Atom = param;
    mid.forEach((axes, d) => {
      const ax = axes.filter((a) => un.includes(a));
      if (!ax.length) return;
      const size = axesSize(shape, ax);
      const block = x.aval.shape[d]!;
      x = o.bind('all_gather', [x], { axis_name: ax, axis_size: size, all_gather_dimension: d, tiled: true }, span);
      // keep the device's own block along d
      const pos = o.bind('iota', [], { dtype: 'int32', shape: [...x.aval.shape], dimension: d, sharding: null }, span);
      const which = o.binary('div', o.tracer(pos), BigInt(block), span, false);
      const me = o.tracer(o.bind('axis_index', [], { axis_name: ax }, span));
      const mine = o.compare('eq', which, me, span);
      x = o.select(mine, o.tracer(x), o.full([...x.aval.shape], 0, x.aval.dtype, span), span).atom;
    });
    if (rest.length) {
      const first = o.compare('eq', o.tracer(o.bind('axis_index', [], { axis_name: rest }, span)), 0n, span);
      const zeros = o.full([...x.aval.shape], 0, x.aval.dtype, span);
      x = o.select(o.tracer(o.broadcastTo(first.atom, x.aval.shape, span)), o.tracer(x), zeros, span).atom;
    }
    return x;
  });
  const func = t.builder.finish([result], t.axisEnv);
  const program = ip.programName('unreduced');
  ip.addProgram(program, func, 'pmap');
  const name = ip.freshName(hint || h.name);
  ip.emit({ k: 'const', names: [name], destructure: true, value: spmdCallExpr(program, [from.name], [layoutVar(ip, mesh, mid)], [layoutVar(ip, mesh, want)], [h.aval.shape]) });
  const out = new HostArray(name, h.aval);
  out.sharding = target;
  return out;
}

/**
 * `h` (unreduced over some mesh axes) with its partial sums over the axes not
 * in `keep` added up: a per-device program, a psum of each device's block
 * (JAX's reshard of an unreduced array: its one all-reduce).
 */
function reduceUnreduced(ip: Interp, h: HostArray, keep: readonly string[], hint: string, span: A.Span): HostArray {
  const s = h.sharding!;
  const mesh = s.mesh;
  const shape = meshShape(mesh);
  const dims = dimsOf(s, h.aval.shape, span);
  const axes = mesh.axisNames.filter((a) => s.spec.unreduced.includes(a) && !keep.includes(a));
  const t = new Trace('reduce', 'pmap', null, shape.axes.map((a) => ({ name: a.name, size: a.size })));
  const param = t.builder.addParam({ ...h.aval, shape: localShape(h.aval.shape, dims, shape) });
  const result = ip.withTrace(t, () => ip.ops.bind('psum', [param], { axes, axis_size: axesSize(shape, axes) }, span));
  const program = ip.programName('reduce');
  ip.addProgram(program, t.builder.finish([result], t.axisEnv), 'pmap');
  const name = ip.freshName(hint || h.name);
  const layout = layoutVar(ip, mesh, dims);
  ip.emit({ k: 'const', names: [name], destructure: true, value: spmdCallExpr(program, [h.name], [layout], [layout], [h.aval.shape]) });
  const out = new HostArray(name, h.aval);
  out.sharding = new PyNamedSharding(mesh, new PyPartitionSpec(s.spec.entries, s.spec.unreduced.filter((a) => keep.includes(a)), s.spec.reduced));
  return out;
}

/**
 * Ask for `func` (a jit body or host segment) partitioned over the arguments'
 * mesh, and return the host call `rt.spmd(...)` plus each result's sharding
 * (sharding propagation decides them now, at trace time; the backend passes
 * partition). Arguments without a sharding are free: propagation picks their layout.
 */
export function spmdCall(
  ip: Interp, name: string, kind: 'jit' | 'segment', func: Func, args: HostArray[], mesh: PyMesh, span: A.Span | null,
  outConstraints: (PyNamedSharding | null)[] = [],
): { value: HExpr; shardings: PyNamedSharding[] } {
  const shape = meshShape(mesh);
  // an argument laid out over another mesh (of the same devices) is free: the call lays it out anew
  const fixed = args.map((a) => (a.sharding && sameMesh(a.sharding.mesh, mesh) ? dimsOf(a.sharding, a.aval.shape, span) : null));
  const outFixed = func.results.map((r, i) => {
    const s = outConstraints[i];
    if (!s || !sameMesh(s.mesh, mesh)) return null;
    // a result constrained unevenly over Auto axes (XLA pads its shards): propagation lays it out, as XLA
    // returns such a result (JAX reports it replicated)
    const sizes = meshShape(mesh);
    if (!mesh.explicit && specAxes(s, r.aval.shape.length).some((axes, d) => r.aval.shape[d]! % axesSize(sizes, axes) !== 0)) return null;
    return dimsOf(s, r.aval.shape, span);
  });
  const constrained = outFixed.some((d) => d !== null);
  let program: { inShardings: DimShardings[]; outShardings: DimShardings[] };
  try {
    program = programShardings(func, shape, fixed, outFixed);
  } catch (e) {
    // a rule's error without a location of its own is reported at the call
    if (e instanceof CompileError && !e.span) throw new CompileError(e.message, span, e.notes);
    throw e;
  }
  // arguments unreduced over some mesh axes, and the results their types leave so (JAX's unreduced values)
  const insU = args.map((a) => a.sharding?.spec.unreduced ?? []);
  const outsU = unreducedResults(func, insU);
  const unreduced = insU.some((u) => u.length) || outsU.some((u) => u.length) ? { ins: insU, outs: outsU } : undefined;
  ip.addSpmdProgram(name, kind, func, { shape, inShardings: fixed, ...(constrained ? { outShardings: outFixed } : {}), traced: program, ...(unreduced ? { unreduced } : {}) });
  const firstArg = args[0]?.sharding ? { sharding: args[0].sharding, rank: args[0].aval.shape.length } : null;
  // a constrained result has the sharding asked for: under Explicit axes as the user spelled it, under
  // Auto axes as XLA's sharding converts back (trailing Nones dropped)
  const shardings = program.outShardings.map((d, i) => {
    const want = outFixed[i];
    if (unreduced && unreduced.outs[i]!.length) {
      // left unreduced (its partial sums per device): so in its sharding's spec
      const s = resultSharding(mesh, d, null);
      return new PyNamedSharding(mesh, new PyPartitionSpec(s.spec.entries, unreduced.outs[i]!));
    }
    if (!want) return resultSharding(mesh, d, firstArg);
    return mesh.explicit ? outConstraints[i]! : resultSharding(mesh, want, null);
  }).map((s, i) => {
    // laid out over another mesh inside (use_abstract_mesh): reported on it where the layout can be told so
    const rm = resultMeshes.get(func);
    return (rm && relabelSharding(s, func.results[i]!.aval.shape.length, rm)) ?? s;
  });
  const value = spmdCallExpr(
    name,
    args.map((a) => a.name),
    program.inShardings.map((d) => layoutVar(ip, mesh, d)),
    program.outShardings.map((d) => layoutVar(ip, mesh, d)),
    func.results.map((r) => r.aval.shape),
  );
  return { value, shardings };
}

/**
 * Eager ops on arrays laid out over Explicit mesh axes check their sharding
 * rules at once, as JAX's do (a host segment is compiled later, but its
 * errors belong to the op that caused them: inside a `try`, say).
 */
export function checkEagerShardings(t: Trace): void {
  const hosts = t.captured.filter((c): c is HostArray => c instanceof HostArray);
  const moved = hosts.find((h) => !h.sharding && h.typeSharding);
  if (moved) {
    // an array device_put to one device from Explicit axes: its type's sharding rules first, then no mesh to run on
    const m = moved.typeSharding!.mesh;
    const ins = t.captured.map((c) => (c instanceof HostArray && (c.sharding ?? c.typeSharding) ? dimsOf((c.sharding ?? c.typeSharding)!, c.aval.shape, null) : null));
    propagateShardings({ name: t.builder.name, params: t.builder.params, eqns: t.builder.eqns, results: [] }, meshShape(m), ins);
    const dims = dimsOf(moved.typeSharding!, moved.aval.shape, null);
    const ty = `${shortDtype(moved.aval.dtype)}[${moved.aval.shape.map((n, i) => shardedDim(n, dims[i]!)).join(',')}]`;
    const axes = `(${m.axisNames.map((a) => `'${a}'`).join(', ')}${m.axisNames.length === 1 ? ',' : ''})`;
    throw new CompileError(`ValueError: Length of device assignment 1 is not equal to the size of the mesh ${m.devices.ids.length} of aval ${ty}({Explicit: ${axes}}). Please enter your \`jit\` into a mesh context via \`jax.set_mesh\`.`, null);
  }
  if (!hosts.some((h) => h.sharding?.mesh.explicit)) return;
  const mesh = meshOf(hosts, null);
  if (!mesh?.explicit) return;
  const b = t.builder;
  const ins = t.captured.map((c) => (c instanceof HostArray && c.sharding ? dimsOf(c.sharding, c.aval.shape, null) : null));
  const func = { name: b.name, params: b.params, eqns: b.eqns, results: [] };
  propagateShardings(func, meshShape(mesh), ins);
  // and the unreduced rules (`jnp.cos(u)` of an unreduced array is JAX's NotImplementedError)
  const insU = t.captured.map((c) => (c instanceof HostArray ? (c.sharding?.spec.unreduced ?? []) : []));
  if (insU.some((u) => u.length)) unreducedTypes(func, insU);
}

// ------------------------------------------------------------ attributes and modules

/** Attributes of the sharding objects and of arrays' `.sharding`; undefined when `name` is not one. */
export function shardingAttr(ip: Interp, obj: PyValue, name: string, span: A.Span): PyValue | undefined {
  if (obj instanceof PyMesh) {
    const sizes = obj.devices.shape;
    switch (name) {
      case 'axis_names': return new PyTuple(obj.axisNames);
      case 'devices': return obj.devices;
      case 'size': return BigInt(obj.devices.ids.length);
      case 'shape': {
        const d = new PyDict();
        obj.axisNames.forEach((n, i) => d.set(n, BigInt(sizes[i]!)));
        return d;
      }
      case 'axis_sizes': return new PyTuple(sizes.map((s) => BigInt(s)));
      case 'axis_types': return new PyTuple(obj.axisNames.map(() => (obj.explicit ? AXIS_TYPES.Explicit : AXIS_TYPES.Auto)));
      case 'abstract_mesh': return PyAbstractMesh.of(obj);
      case '__enter__': return new PyBuiltin(name, () => enterMesh(ip, obj) ?? null);
      case '__exit__': return new PyBuiltin(name, () => (exitMesh(ip, obj), null));
    }
  }
  if (obj instanceof PySetMesh || obj instanceof PyUseAbstractMesh) {
    if (name === '__enter__') return new PyBuiltin(name, () => enterMesh(ip, obj) ?? null);
    if (name === '__exit__') return new PyBuiltin(name, () => (exitMesh(ip, obj), null));
  }
  if (obj instanceof PyAbstractMesh) {
    switch (name) {
      case 'axis_names': return new PyTuple(obj.axisNames);
      case 'size': return BigInt(obj.sizes.reduce((a, b) => a * b, 1));
      case 'axis_sizes': return new PyTuple(obj.sizes.map((s) => BigInt(s)));
      case 'axis_types': return new PyTuple(obj.types.map((t) => AXIS_TYPES[t]));
      case 'shape': {
        const d = new PyDict();
        obj.axisNames.forEach((n, i) => d.set(n, BigInt(obj.sizes[i]!)));
        return d;
      }
      case 'empty': return obj.sizes.length === 0;
    }
  }
  if (obj instanceof PyShapedArray) {
    const v = typeAttr(obj, name);
    if (v !== undefined) return v;
  }
  if (obj instanceof PyManualAxisType && name === 'varying') return new PySet('frozenset', obj.varying);
  // P(..., unreduced=, reduced=): frozensets of mesh axis names
  if (obj instanceof PyPartitionSpec && (name === 'unreduced' || name === 'reduced')) return new PySet('frozenset', obj[name]);
  if (obj instanceof PyNamedSharding || obj instanceof PySingleDeviceSharding) {
    const named = obj instanceof PyNamedSharding ? obj : null;
    switch (name) {
      case 'mesh': if (named) return named.mesh; break;
      case 'spec': if (named) return named.spec; break;
      case 'memory_kind': return 'device';
      case 'is_fully_addressable': return true;
      case 'num_devices': return BigInt(named ? named.mesh.devices.ids.length : 1);
      case 'device_set':
      case 'addressable_devices': return new PyDeviceSet(named ? [...named.mesh.devices.ids].sort((a, b) => a - b) : [0]);
      case 'is_fully_replicated': return named ? named.spec.entries.every((e) => e === null || (Array.isArray(e) && e.length === 0)) || named.mesh.devices.ids.length === 1 : true;
      case 'devices_indices_map':
        // {device: the slices of a global_shape array it holds}, in device-id order as JAX's dict
        return new PyBuiltin(name, (c) => {
          const v = arg(c, 0, 'global_shape');
          const shape = (v instanceof PyTuple || v instanceof PyList ? v.items : [v]).map((n) => Number(ip.static(n, 'a shape', c.span)));
          const d = new PyDict();
          const devs = ip.devices().items;
          // Python slices (a program indexes its data with them: make_array_from_callback's callbacks do)
          const key = (s: PySlice): PySliceKey => new PySliceKey(s.start, s.stop, null);
          const full = () => new PyTuple(shape.map(() => new PySliceKey(null, null, null)));
          if (!named) d.set(devs[0]!, full());
          else for (const { device, index } of [...shardIndices(shape, named, c.span)].sort((a, b) => a.device - b.device)) d.set(devs[device]!, new PyTuple(index.map(key)));
          return d;
        });
      case 'shard_shape':
        return new PyBuiltin(name, (c) => {
          const v = arg(c, 0, 'global_shape');
          const shape = (v instanceof PyTuple || v instanceof PyList ? v.items : [v]).map((n) => Number(ip.static(n, 'a shape', c.span)));
          if (!named) return new PyTuple(shape.map((n) => BigInt(n)));
          const dims = dimsOf(named, shape, c.span);
          return new PyTuple(localShape(shape, dims, meshShape(named.mesh)).map((n) => BigInt(n)));
        });
    }
  }
  if (obj instanceof PyDeviceArray) {
    switch (name) {
      case 'shape': return new PyTuple(obj.shape.map((s) => BigInt(s)));
      case 'ndim': return BigInt(obj.shape.length);
      case 'size': return BigInt(obj.ids.length);
      case 'reshape':
      case 'flatten':
      case 'ravel':
        return new PyBuiltin(name, (c) => reshapeDevices(ip, obj, name === 'reshape' ? c.args : [-1n], c.span));
      case 'tolist':
        return new PyBuiltin(name, () => deviceItems(ip, obj));
    }
  }
  if (obj instanceof PyShard) {
    switch (name) {
      case 'device': return ip.devices().items[obj.device]!;
      case 'index': return new PyTuple(obj.index);
      case 'replica_id': return BigInt(obj.replicaId);
      case 'data': return obj.dataArray(ip);
    }
  }
  if (obj instanceof PySlice) {
    if (name === 'start') return obj.start === null ? null : BigInt(obj.start);
    if (name === 'stop') return obj.stop === null ? null : BigInt(obj.stop);
    if (name === 'step') return null;
  }
  if (isArray(obj) && (name === 'addressable_shards' || name === 'sharding') && obj instanceof Tracer && !obj.materialized && obj.trace.kind !== 'segment') {
    // JAX's wording: only concrete arrays have these; a tracer's placement is decided when the program is partitioned
    throw new CompileError(`AttributeError: The '${name}' attribute is not available on traced array with shape ${jaxTypeStr(obj.aval)}.`, span);
  }
  if (isArray(obj) && name === 'addressable_shards') {
    const h = ip.hostArray(obj, span);
    if (!h.sharding) throw new CompileError('x.addressable_shards of an array on a single device is not supported; place it with jax.device_put(x, NamedSharding(...))', span);
    return new PyList(shardsOf(h, h.sharding, span));
  }
  if (isArray(obj) && name === 'devices' && !(obj instanceof Tracer && !obj.materialized && obj.trace.kind !== 'segment')) {
    return new PyBuiltin(name, () => {
      const h = ip.hostArray(obj, span);
      return new PyDeviceSet(h.sharding ? [...new Set(h.sharding.mesh.devices.ids)].sort((a, b) => a - b) : [0]);
    });
  }
  if (isArray(obj) && name === 'device' && !(obj instanceof Tracer && !obj.materialized && obj.trace.kind !== 'segment')) {
    // Array.device: the one device an array lives on; an array over several devices answers its sharding
    const h = ip.hostArray(obj, span);
    if (!h.sharding) return new PyDevice(0);
    const ids = [...new Set(h.sharding.mesh.devices.ids)];
    return ids.length === 1 ? new PyDevice(ids[0]!) : h.sharding;
  }
  if (isArray(obj) && name === 'committed' && !(obj instanceof Tracer && !obj.materialized && obj.trace.kind !== 'segment')) {
    // placed over a mesh (device_put, or computed from arrays so placed): committed to those devices
    return ip.hostArray(obj, span).sharding !== null;
  }
  if (isArray(obj) && name === 'is_fully_replicated' && !(obj instanceof Tracer && !obj.materialized && obj.trace.kind !== 'segment')) {
    const h = ip.hostArray(obj, span);
    return !h.sharding || dimsOf(h.sharding, h.aval.shape, span).every((d) => d.length === 0);
  }
  if (isArray(obj) && name === 'sharding') {
    const h = ip.hostArray(obj, span);
    return h.sharding ?? new PySingleDeviceSharding();
  }
  return undefined;
}

/** The shards of `h` in mesh order: each device's block (index) and its replica number among devices holding the same block. */
function shardsOf(h: HostArray, s: PyNamedSharding, span: A.Span): PyShard[] {
  const seen = new Map<string, number>();
  return shardIndices(h.aval.shape, s, span).map(({ device, index }, p) => {
    const key = index.map(sliceRepr).join();
    const replica = seen.get(key) ?? 0;
    seen.set(key, replica + 1);
    return new PyShard(h, p, device, index, replica);
  });
}

/** Per device of the mesh (in mesh order): its id and the slices of a `shape` array it holds under `s`. */
function shardIndices(shape: readonly number[], s: PyNamedSharding, span: A.Span): { device: number; index: PySlice[] }[] {
  const dims = dimsOf(s, shape, span);
  const sizes = s.mesh.devices.shape;
  const strides = sizes.map((_, i) => sizes.slice(i + 1).reduce((a, b) => a * b, 1));
  return s.mesh.devices.ids.map((device, p) => {
    const coords = sizes.map((n, i) => Math.floor(p / strides[i]!) % n);
    const index = shape.map((n, d) => {
      const axes = dims[d]!.map((a) => s.mesh.axisNames.indexOf(a));
      if (!axes.length) return new PySlice(null, null);
      const count = axes.reduce((k, a) => k * sizes[a]!, 1);
      const k = axes.reduce((acc, a) => acc * sizes[a]! + coords[a]!, 0);
      return new PySlice(k * (n / count), (k + 1) * (n / count));
    });
    return { device, index };
  });
}

function reshapeDevices(ip: Interp, d: PyDeviceArray, args: PyValue[], span: A.Span): PyDeviceArray {
  const items = args.length === 1 && (args[0] instanceof PyTuple || args[0] instanceof PyList) ? (args[0] as PyTuple).items : args;
  const dims = items.map((v) => {
    if (typeof v !== 'bigint') throw new CompileError(`TypeError: 'tuple' object cannot be interpreted as an integer, got ${typeName(v)}`, span);
    return Number(v);
  });
  const n = d.ids.length;
  const known = dims.filter((x) => x !== -1).reduce((a, b) => a * b, 1);
  const shape = dims.map((x) => (x === -1 ? n / known : x));
  if (shape.reduce((a, b) => a * b, 1) !== n || shape.some((x) => !Number.isInteger(x))) {
    throw new CompileError(`ValueError: cannot reshape array of size ${n} into shape ${tupleRepr(dims.map(String))}`, span);
  }
  return new PyDeviceArray(shape, d.ids);
}

/** `devices[i]`, `devices[a:b:c]` of an array of devices (along its first axis). */
export function deviceIndex(ip: Interp, d: PyDeviceArray, key: PyValue, span: A.Span): PyValue {
  const rows = deviceItems(ip, d).items;
  const n = rows.length;
  if (typeof key === 'bigint') {
    const i = Number(key) < 0 ? Number(key) + n : Number(key);
    if (i < 0 || i >= n) throw new CompileError(`IndexError: index ${key} is out of bounds for axis 0 with size ${n}`, span);
    return rows[i]!;
  }
  if (!(key instanceof PySliceKey)) throw new CompileError(`jaxts: indexing an array of devices with ${typeName(key)} is not supported (an int or a slice is)`, span);
  const step = key.step ?? 1;
  const norm = (v: number | null, def: number): number => (v === null ? def : v < 0 ? Math.max(v + n, step < 0 ? -1 : 0) : Math.min(v, step < 0 ? n - 1 : n));
  const start = norm(key.start, step < 0 ? n - 1 : 0);
  const stop = norm(key.stop, step < 0 ? -1 : n);
  const picked: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) picked.push(i);
  const step1 = d.ids.length / n;
  return new PyDeviceArray([picked.length, ...d.shape.slice(1)], picked.flatMap((i) => d.ids.slice(i * step1, (i + 1) * step1)));
}

/** Iterating an array of devices: devices (1-D) or rows. */
export function deviceItems(ip: Interp, d: PyDeviceArray): PyList {
  const devices = ip.devices().items;
  if (d.shape.length <= 1) return new PyList(d.ids.map((i) => devices[i]!));
  const n = d.shape[0]!;
  const step = d.ids.length / n;
  return new PyList(Array.from({ length: n }, (_, i) => new PyDeviceArray(d.shape.slice(1), d.ids.slice(i * step, (i + 1) * step))));
}

const axisNamesArg = (v: PyValue, span: A.Span): string[] => {
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
  return items.map((x) => {
    if (typeof x !== 'string') throw new CompileError(`TypeError: mesh axis names must be strings, got ${typeName(x)}`, span);
    return x;
  });
};

/** A member of the enum jax.sharding.AxisType: str `AxisType.Explicit`, repr `Explicit`. */
export class PyAxisType extends PyObject {
  readonly typeName = 'AxisType';
  constructor(readonly name: 'Explicit' | 'Auto' | 'Manual') {
    super();
  }
}
const AXIS_TYPES = { Explicit: new PyAxisType('Explicit'), Auto: new PyAxisType('Auto'), Manual: new PyAxisType('Manual') };

/** axis_types=(AxisType.Explicit, ...): all Explicit or all Auto (mixed meshes are not supported). */
function explicitArg(v: PyValue | undefined, def: boolean, span: A.Span): boolean {
  if (v === undefined || v === null) return def;
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
  const kinds = new Set(items.map((x) => (x === AXIS_TYPES.Explicit ? 'e' : x === AXIS_TYPES.Auto ? 'a' : '?')));
  if (kinds.has('?') || kinds.size !== 1) throw new CompileError('axis_types: only all-Explicit or all-Auto meshes are supported by jaxts (jax.sharding.AxisType.Explicit / .Auto)', span);
  return kinds.has('e');
}

function newMesh(ip: Interp, c: CallArgs): PyMesh {
  let devices = arg(c, 0, 'devices');
  if (devices instanceof PyList || devices instanceof PyTuple) devices = deviceArrayOf(ip, devices, c.span);
  if (!(devices instanceof PyDeviceArray)) throw new CompileError(`TypeError: Mesh needs an array of devices (np.array(jax.devices())), got ${typeName(devices)}`, c.span);
  const names = axisNamesArg(arg(c, 1, 'axis_names'), c.span);
  if (names.length !== devices.shape.length) {
    throw new CompileError(`ValueError: Mesh requires the ndim of its first argument (\`devices\`) to equal the length of its second argument (\`axis_names\`), but got devices.ndim == ${devices.shape.length} and len(axis_names) == ${names.length}.`, c.span);
  }
  return new PyMesh(devices, names, explicitArg(c.kwargs.get('axis_types') ?? c.args[2], false, c.span));
}

/** `np.array(devices)`: a list of devices as an array of devices. */
export function deviceArrayOf(ip: Interp, v: PyList | PyTuple, span: A.Span): PyDeviceArray {
  const ids = v.items.map((d) => {
    if (!(d && typeof d === 'object' && d.typeName === 'Device')) throw new CompileError(`TypeError: expected a device, got ${typeName(d)}`, span);
    return (d as unknown as { id: number }).id;
  });
  return new PyDeviceArray([ids.length], ids);
}

function makeMesh(ip: Interp, c: CallArgs): PyMesh {
  const shapeV = arg(c, 0, 'axis_shapes');
  const items = shapeV instanceof PyTuple || shapeV instanceof PyList ? shapeV.items : [shapeV];
  const shape = items.map((x) => {
    if (typeof x !== 'bigint') throw new CompileError(`TypeError: axis_shapes must be ints, got ${typeName(x)}`, c.span);
    return Number(x);
  });
  const names = axisNamesArg(arg(c, 1, 'axis_names'), c.span);
  if (names.length !== shape.length) throw new CompileError(`ValueError: len(axis_shapes)=${shape.length} should be equal to len(axis_names)=${names.length}`, c.span);
  const n = shape.reduce((a, b) => a * b, 1);
  // devices=: the devices to lay out (in order), else the first n of jax.devices()
  const given = c.kwargs.get('devices') ?? c.args[3] ?? null;
  const pool = given === null ? null : given instanceof PyDeviceArray ? given : given instanceof PyList || given instanceof PyTuple ? deviceArrayOf(ip, given, c.span) : null;
  if (given !== null && !pool) throw new CompileError(`TypeError: make_mesh devices must be a sequence of devices, got ${typeName(given)}`, c.span);
  const have = pool ? pool.ids.length : ip.devices(c.span).items.length;
  if (n > have) throw new CompileError(`ValueError: Number of devices ${have} must be >= the product of mesh_shape ${tupleRepr(shape.map(String))}`, c.span);
  const ids = pool ? pool.ids.slice(0, n) : Array.from({ length: n }, (_, i) => i);
  return new PyMesh(new PyDeviceArray(shape, ids), names, explicitArg(c.kwargs.get('axis_types') ?? c.args[2], true, c.span));
}

function partitionSpec(c: CallArgs): PyPartitionSpec {
  const axisSet = (k: string): string[] => {
    const v = c.kwargs.get(k) ?? null;
    if (v === null) return [];
    const items = v instanceof PySet ? [...v.entries.values()] : v instanceof PyTuple || v instanceof PyList ? v.items : [v];
    return axisNamesArg(new PyTuple(items), c.span);
  };
  for (const k of c.kwargs.keys()) {
    if (k !== 'unreduced' && k !== 'reduced') throw new CompileError(`TypeError: PartitionSpec.__init__() got an unexpected keyword argument '${k}'`, c.span);
  }
  return new PyPartitionSpec(
    c.args.map((v) => {
      if (v === null || typeof v === 'string') return v;
      if (v instanceof PyTuple || v instanceof PyList) return axisNamesArg(v, c.span);
      throw new CompileError(`TypeError: PartitionSpec entries must be None, a mesh axis name or a tuple of them, got ${typeName(v)}`, c.span);
    }),
    axisSet('unreduced'),
    axisSet('reduced'),
  );
}

function namedSharding(c: CallArgs): PyNamedSharding {
  const mesh = arg(c, 0, 'mesh');
  const spec = arg(c, 1, 'spec');
  if (!(mesh instanceof PyMesh)) throw new CompileError(`TypeError: NamedSharding needs a Mesh, got ${typeName(mesh)}`, c.span);
  if (!(spec instanceof PyPartitionSpec)) throw new CompileError(`TypeError: NamedSharding needs a PartitionSpec, got ${typeName(spec)}`, c.span);
  return checkedSharding(mesh, spec, c.span);
}

/** NamedSharding(mesh, spec), checked as JAX checks it. */
function checkedSharding(mesh: PyMesh, spec: PyPartitionSpec, span: A.Span): PyNamedSharding {
  const used = new Set<string>();
  for (const e of spec.entries) {
    for (const a of e === null ? [] : typeof e === 'string' ? [e] : e) {
      if (!mesh.axisNames.includes(a)) throw new CompileError(`ValueError: Resource axis: ${a} of ${specRepr(spec)} is not found in mesh: ${tupleRepr(mesh.axisNames.map(pyStr))}.`, span);
      if (used.has(a)) throw new CompileError(`DuplicateSpecError: A single NamedSharding spec specification can map every mesh axis to at most one positional dimension, but ${specRepr(spec)} has duplicate entries for \`${a}\``, span);
      used.add(a);
    }
  }
  return new PyNamedSharding(mesh, spec);
}

// ------------------------------------------------------------ the context mesh (jax.set_mesh)

/** The mesh set by jax.set_mesh (JAX's abstract mesh), and the meshes of enclosing `with mesh:` blocks. */
interface MeshContext {
  current: PyMesh | null;
  legacy: PyMesh[];
  /** The abstract meshes of enclosing auto_axes / explicit_axes calls (JAX's use_abstract_mesh), innermost last. */
  cast: PyAbstractMesh[];
}
const meshContexts = new WeakMap<Interp, MeshContext>();
const meshContext = (ip: Interp): MeshContext => {
  let m = meshContexts.get(ip);
  if (!m) meshContexts.set(ip, (m = { current: null, legacy: [], cast: [] }));
  return m;
};

/** The mesh a bare PartitionSpec resolves against: jax.set_mesh's (`with mesh:` does not set it). */
export function contextMesh(ip: Interp): PyMesh | null {
  return meshContext(ip).current;
}

/**
 * An array made from Python or NumPy data (jnp.array, jnp.asarray) at host level under jax.set_mesh:
 * JAX places it on the context mesh, replicated (`P()`), as eager ops' results are.
 */
export function onContextMesh(ip: Interp, v: PyValue, span: A.Span): PyValue {
  const mesh = contextMesh(ip);
  if (!mesh || !ip.atHost || ip.inSeparateScope) return v;
  // the data is a host constant (or an array made before the mesh was set), captured as is by the pending segment
  const i = v instanceof Tracer && v.trace === ip.trace() && v.atom.kind === 'var' ? v.trace.builder.params.indexOf(v.atom) : -1;
  const h = i >= 0 ? (v as Tracer).trace.captured[i] : v;
  if (!(h instanceof HostArray) || h.sharding || h.typeSharding) return v;
  return putTree(ip, h, new PyNamedSharding(mesh, new PyPartitionSpec([])), '', span);
}

/** `key.sharding` of a typed PRNG key array: its key data's, without the data's trailing dimension. */
export function keySharding(ip: Interp, k: PyKeyArray, span: A.Span): PyValue {
  const h = ip.hostArray(k.data, span);
  if (!h.sharding) return new PySingleDeviceSharding();
  const s = h.sharding.spec;
  return new PyNamedSharding(h.sharding.mesh, new PyPartitionSpec(s.entries.slice(0, k.shape.length), s.unreduced, s.reduced));
}

/** The innermost `with mesh:` mesh (with_sharding_constraint's P resolves against it too). */
const legacyMesh = (ip: Interp): PyMesh | null => meshContext(ip).legacy.at(-1) ?? null;

/**
 * What `jax.set_mesh(mesh)` returns. The call sets the mesh at once (JAX's
 * set_mesh as a statement); as a context manager, leaving the block restores
 * the mesh set before.
 */
export class PySetMesh extends PyObject {
  readonly typeName = 'set_mesh';
  constructor(
    readonly mesh: PyMesh,
    readonly previous: PyMesh | null,
  ) {
    super();
  }
}

/**
 * What `jax.sharding.use_abstract_mesh(am)` returns: inside its block the
 * context mesh is `am` over the devices of the mesh outside (the first
 * prod(am.axis_sizes) of them, in order), so PartitionSpecs name its axes.
 */
export class PyUseAbstractMesh extends PyObject {
  readonly typeName = 'use_abstract_mesh';
  previous: PyMesh | null = null;
  constructor(readonly mesh: PyMesh) {
    super();
  }
}

function useAbstractMesh(ip: Interp, c: CallArgs): PyUseAbstractMesh {
  const am = arg(c, 0, 'mesh');
  if (!(am instanceof PyAbstractMesh)) throw new CompileError(`ValueError: Expected mesh of type \`jax.sharding.AbstractMesh\`. Got ${typeName(am)}`, c.span);
  return new PyUseAbstractMesh(concreteMesh(ip, am, contextMesh(ip), c.span));
}

/** The concrete mesh an abstract mesh names over the devices of `outer` (or of the whole machine). */
function concreteMesh(ip: Interp, am: PyAbstractMesh, outer: PyMesh | null, span: A.Span | null): PyMesh {
  const n = am.sizes.reduce((a, b) => a * b, 1);
  const ids = outer ? outer.devices.ids : Array.from({ length: ip.devices(span).items.length }, (_, i) => i);
  if (n > ids.length) throw new CompileError(`ValueError: the abstract mesh ${abstractMeshStr(am)} needs ${n} devices; the context mesh has ${ids.length}`, span);
  if (am.types.some((t) => t !== am.types[0])) throw new CompileError('use_abstract_mesh with a mesh mixing Auto and Explicit axes is not supported by jaxts', span);
  return new PyMesh(new PyDeviceArray([...am.sizes], ids.slice(0, n)), [...am.axisNames], am.types[0] !== 'Auto');
}

function setMesh(ip: Interp, c: CallArgs): PySetMesh {
  const mesh = arg(c, 0, 'mesh');
  if (!(mesh instanceof PyMesh)) throw new CompileError(`ValueError: Expected mesh of type \`jax.sharding.Mesh\`. Got ${typeName(mesh)}`, c.span);
  const ctx = meshContext(ip);
  const out = new PySetMesh(mesh, ctx.current);
  // eager ops traced so far ran over the mesh set before (their results' shardings say which)
  ip.flush();
  ctx.current = mesh;
  return out;
}

/**
 * The `with` hook: entering a context manager of this module (`with
 * jax.set_mesh(mesh):`, `with mesh:`). Returns the value `as` binds, or
 * undefined when `v` is not one of this module's context managers (jax.set_mesh(m) binds None,
 * `with mesh:` the mesh). The same
 * operations are reachable as the values' `__enter__` / `__exit__` attributes.
 */
export function enterMesh(ip: Interp, v: PyValue): PyValue | undefined {
  if (v instanceof PySetMesh) return null; // set already by the call; `as` binds None, as in JAX
  if (v instanceof PyUseAbstractMesh) {
    const ctx = meshContext(ip);
    ip.flush();
    v.previous = ctx.current;
    ctx.current = v.mesh;
    return null;
  }
  if (v instanceof PyMesh) {
    meshContext(ip).legacy.push(v);
    return v;
  }
  return undefined;
}

/** The `with` hook: leaving the block entered by enterMesh; false when `v` is not one of this module's context managers. */
export function exitMesh(ip: Interp, v: PyValue): boolean {
  const ctx = meshContext(ip);
  if (v instanceof PySetMesh || v instanceof PyUseAbstractMesh) {
    if (ctx.current !== v.previous) ip.flush();
    ctx.current = v.previous;
    return true;
  }
  if (v instanceof PyMesh) {
    ctx.legacy.pop();
    return true;
  }
  return false;
}

function getAbstractMesh(ip: Interp): PyAbstractMesh {
  const ctx = meshContext(ip);
  const cast = ctx.cast.at(-1);
  if (cast) return cast;
  return ctx.current ? PyAbstractMesh.of(ctx.current) : new PyAbstractMesh([], [], [], false);
}

/**
 * Whether a function of `leaves` traces over Explicit axes of the context
 * mesh (jax.set_mesh): some leaf is laid out on that mesh (JAX's types then
 * carry it; arrays made before the mesh was set do not).
 */
export function onExplicitMesh(ip: Interp, leaves: readonly PyValue[]): boolean {
  const m = contextMesh(ip);
  if (m === null || !typedAxes(ip, m).length) return false;
  const meshOfValue = (v: PyValue | undefined, depth = 0): PyMesh | null => {
    if (v instanceof HostArray) return v.sharding?.mesh ?? null;
    if (!(v instanceof Tracer) || depth > 32) return null;
    if (v.materialized) return meshOfValue(v.materialized, depth + 1);
    const own = traceArgs.get(v.trace)?.mesh;
    if (own) return own;
    const i = v.atom.kind === 'var' ? v.trace.builder.params.indexOf(v.atom) : -1;
    return i < 0 ? null : meshOfValue(v.trace.paramOuter(v.atom as Var) ?? subTraceOuters.get(v.trace)?.[i] ?? undefined, depth + 1);
  };
  return leaves.some((l) => {
    const lm = meshOfValue(l);
    return lm !== null && sameMesh(lm, m);
  });
}

/** The mesh axes whose shardings show in types now: an auto_axes / explicit_axes cast's Explicit axes, else `mesh`'s if it is Explicit. */
function typedAxes(ip: Interp, mesh: PyMesh): string[] {
  const cast = meshContext(ip).cast.at(-1);
  if (cast) return cast.axesOf('Explicit');
  return mesh.explicit ? [...mesh.axisNames] : [];
}

const keepAxes = (dims: DimShardings, axes: readonly string[]): DimShardings => dims.map((d) => d.filter((a) => axes.includes(a)));

function abstractMesh(c: CallArgs): PyAbstractMesh {
  const sizesV = arg(c, 0, 'axis_sizes');
  const sizes = (sizesV instanceof PyTuple || sizesV instanceof PyList ? sizesV.items : [sizesV]).map((x) => {
    if (typeof x !== 'bigint') throw new CompileError(`TypeError: axis_sizes must be ints, got ${typeName(x)}`, c.span);
    return Number(x);
  });
  const names = axisNamesArg(arg(c, 1, 'axis_names'), c.span);
  if (names.length !== sizes.length) throw new CompileError(`ValueError: len(axis_sizes)=${sizes.length} should be equal to len(axis_names)=${names.length}`, c.span);
  const explicit = explicitArg(c.kwargs.get('axis_types') ?? c.args[2], false, c.span);
  return new PyAbstractMesh(sizes, names, names.map(() => (explicit ? 'Explicit' : 'Auto')), false);
}

// ------------------------------------------------------------ jax.typeof

/** jax.typeof(x): JAX's ShapedArray, printing `float32[8@X,4]` (mesh axes show under Explicit axes). */
/** `jax.typeof(x).manual_axis_type` inside shard_map: `.varying`, the mesh axes x varies over. */
class PyManualAxisType extends PyObject {
  readonly typeName = 'ManualAxisType';
  constructor(readonly varying: string[]) {
    super();
  }
}

export class PyShapedArray extends PyObject {
  get typeName(): string {
    return this.ref ? 'AbstractRef' : 'ShapedArray';
  }
  constructor(
    readonly aval: AVal,
    readonly dims: DimShardings,
    readonly mesh: PyMesh | null,
    /** Inside shard_map: the mesh axes the value varies over (printed `{V:i}`, `{V:(i,j)}`). */
    readonly varying: string[] = [],
    /** A typed PRNG key array: JAX shows its element type as `key<fry>` (aval: the key array's shape). */
    readonly prngKey = false,
    /** The mesh axes its sharding's spec holds it unreduced / reduced over (printed `{U:X}`, `{R:X}`). */
    readonly unreduced: readonly string[] = [],
    readonly reduced: readonly string[] = [],
    /** A mutable array's type (AbstractRef): printed `Ref{float32[3]}`, its inner_aval the array's. */
    readonly ref = false,
  ) {
    super();
  }
  str(): string {
    if (this.prngKey) return `key<fry>[${this.aval.shape.join(',')}]`;
    if (this.ref) return refType(this.aval);
    const order = (axes: readonly string[]): string[] => (this.mesh ? this.mesh.axisNames.filter((a) => axes.includes(a)) : [...axes]);
    const suffix = vmaUrStr({ varying: this.varying, unreduced: order(this.unreduced), reduced: order(this.reduced) });
    return (this.aval.weak ? '~' : '') + shardedTypeStr(this.aval.dtype, this.aval.shape, this.dims) + suffix;
  }
}

/** typeof(x).sharding: a NamedSharding over the mesh's AbstractMesh (printed as such). */
const abstractShardings = new WeakSet<PyNamedSharding>();

/** The arguments' shardings of each jit trace (what typeof inside the traced function reads). */
const traceArgs = new WeakMap<Trace, { mesh: PyMesh; dims: (DimShardings | null)[]; unreduced: (readonly string[])[] }>();

/** Called by jit before tracing: the array arguments (`leaves`, in parameter order) and their shardings. */
export function noteTraceArgs(t: Trace, leaves: PyValue[], span: A.Span): void {
  const hosts = leaves.map((l) => (l instanceof HostArray ? l : l instanceof Tracer ? l.materialized : null));
  const mesh = meshOf(hosts.filter((h): h is HostArray => h !== null), span);
  if (mesh) traceArgs.set(t, { mesh, dims: hosts.map((h) => (h?.sharding ? dimsOf(h.sharding, h.aval.shape, span) : null)), unreduced: hosts.map((h) => h?.sharding?.spec.unreduced ?? []) });
}

/** The sharding in the type of a tracer of a jit over Explicit mesh axes (sharding propagation over the trace so far). */
function tracerDims(ip: Interp, t: Tracer, allAxes = false): { dims: DimShardings; mesh: PyMesh; unreduced: readonly string[] } | null {
  if (t.atom.kind !== 'var') return null;
  const b = t.trace.builder;
  const all = traceShardings(ip, t.trace, { name: b.name, params: b.params, eqns: [...b.eqns], results: [t.atom] }, allAxes);
  const dims = all?.dims.get(t.atom.id);
  return all && dims ? { dims, mesh: all.mesh, unreduced: all.unreduced.get(t.atom.id) ?? [] } : null;
}

/** The shardings of every value of `func` (trace `t`, finished or not) that types show: its mesh's typed axes; null when none. */
function traceShardings(ip: Interp, t: Trace, func: Func, allAxes = false): { dims: Map<number, DimShardings>; unreduced: Map<number, readonly string[]>; mesh: PyMesh } | null {
  const info = traceArgs.get(t);
  // the arguments' mesh, or the mesh of the shard_maps the function calls
  const mesh = info?.mesh ?? shardMapMeshOf(t);
  if (!mesh) return null;
  const typed = allAxes ? mesh.axisNames : typedAxes(ip, mesh);
  if (!typed.length) return null;
  const nArgs = info?.dims.length ?? func.params.length;
  const hostOf = (i: number): HostArray | undefined => ((c) => (c instanceof HostArray ? c : c?.materialized ?? undefined))(t.captured[i - nArgs]);
  const ins = func.params.map((p, i) => {
    if (info && i < info.dims.length) return info.dims[i] ?? null;
    const h = hostOf(i);
    return h?.sharding && sameMesh(h.sharding.mesh, mesh) ? specAxes(h.sharding, h.aval.shape.length) : null;
  });
  const dims = propagateShardings(func, meshShape(mesh), ins);
  for (const [id, d] of dims) dims.set(id, keepAxes(d, typed));
  const insU = func.params.map((_, i) => (info && i < info.unreduced.length ? info.unreduced[i]! : (hostOf(i)?.sharding?.spec.unreduced ?? [])));
  return { dims, unreduced: unreducedTypes(func, insU), mesh };
}

/** The types of a traced function's values as its printed jaxpr shows them (make_jaxpr, Traced.jaxpr); undefined outside Explicit axes. */
export function jaxprTypes(ip: Interp, t: Trace, func: Func): JaxprTypes | undefined {
  const all = traceShardings(ip, t, func);
  if (!all) return undefined;
  const out = new Map<number, TypeSharding>();
  const reduced = reducedTypes(func);
  for (const [id, dims] of all.dims) out.set(id, { dims, unreduced: all.unreduced.get(id) ?? [], reduced: reduced.get(id) ?? [] });
  return out;
}

/**
 * The sharding in the type of an argument of a shard_map without in_specs
 * (JAX infers them from the arguments' types): a host array's placement, a
 * tracer's type sharding, through the values a differentiation's parameters
 * stand for. Null: none on `mesh` (replicated).
 */
export function argTypeSharding(ip: Interp, v: PyValue, mesh: PyMesh): DimShardings | null {
  if (v instanceof HostArray) return v.sharding && sameMesh(v.sharding.mesh, mesh) ? specAxes(v.sharding, v.aval.shape.length) : null;
  if (!(v instanceof Tracer)) return null;
  if (v.materialized) return argTypeSharding(ip, v.materialized, mesh);
  const d = tracerDims(ip, v);
  if (d) return sameMesh(d.mesh, mesh) ? d.dims : null;
  const i = v.atom.kind === 'var' ? v.trace.builder.params.indexOf(v.atom) : -1;
  const outer = i < 0 ? undefined : (v.trace.paramOuter(v.atom as Var) ?? subTraceOuters.get(v.trace)?.[i] ?? undefined);
  return outer === undefined ? null : argTypeSharding(ip, outer, mesh);
}

/** The outer values whose types a control-flow body's parameters take (a scan's carries, a cond's operands): by parameter, null where none. */
const subTraceOuters = new WeakMap<Trace, readonly (PyValue | undefined)[]>();

/** Called by cond / scan before tracing a body: parameter i has the type (sharding included) of `outers[i]`. */
export function noteSubTraceOuters(t: Trace, outers: readonly (PyValue | undefined)[]): void {
  subTraceOuters.set(t, outers);
}

/**
 * The shard_map traces: the mesh axes in order, each parameter's varying axes (its in_spec's), check_vma,
 * and each parameter's in_spec (its unreduced and reduced axes show in the parameter's type: `{U:i}`, `{R:i}`).
 */
const shardMapTraces = new WeakMap<Trace, { axes: string[]; params: string[][]; checkVma: boolean; specs: readonly PyPartitionSpec[] }>();

/** Called by shard_map before tracing its body. */
export function noteShardMapTrace(t: Trace, axes: string[], params: string[][], checkVma: boolean, specs: readonly PyPartitionSpec[]): void {
  shardMapTraces.set(t, { axes, params, checkVma, specs });
}

/**
 * The mesh axes a value of a shard_map body varies over (JAX's vma): a
 * parameter over its in_spec's axes, then passes/vma.ts's rule per equation.
 */
const varyingAxes = (t: Tracer): string[] | null => varyingOf(t.trace, t.atom);

/** The varying mesh axes of `atom` in the shard_map trace `trace` (mesh order); null outside one. */
export function varyingOf(trace: Trace, atom: Atom): string[] | null {
  return varyingOfAll(trace, [atom])?.[0] ?? null;
}

/** varyingOf for several atoms at once (one walk of the trace). */
export function varyingOfAll(trace: Trace, atoms: Atom[]): string[][] | null {
  const info = shardMapTraces.get(trace);
  if (!info) return null;
  const vma = vmaOfFunc(trace.builder, info.params);
  return atoms.map((a) => {
    const set = a.kind === 'var' ? (vma.get(a.id) ?? new Set<string>()) : new Set<string>();
    return info.axes.filter((n) => set.has(n));
  });
}

/** Whether `trace` is the body of a shard_map with check_vma (JAX's implicit pvary and its transposes apply). */
export const checksVma = (trace: Trace): boolean => shardMapTraces.get(trace)?.checkVma === true;

function typeOf(ip: Interp, c: CallArgs): PyValue {
  const x = arg(c, 0, 'x');
  if (x instanceof PyKeyArray) return new PyShapedArray({ shape: [...x.shape], dtype: 'uint32' }, replicated(x.shape.length), null, [], true);
  // a ref's type: its array's, strongly typed (jax.new_ref(1.) holds a float32[])
  if (x instanceof PyRef) {
    const { shape, dtype } = x.value.aval;
    return new PyShapedArray({ shape, dtype }, replicated(shape.length), null, [], false, [], [], true);
  }
  const a = ip.ops.aval(x, c.span);
  if (x instanceof Tracer && !x.materialized && x.trace.kind !== 'segment') {
    const v = varyingAxes(x);
    if (v) {
      // a shard_map parameter's type shows its in_spec's unreduced and reduced axes
      const i = x.atom.kind === 'var' ? x.trace.builder.params.indexOf(x.atom) : -1;
      const spec = shardMapTraces.get(x.trace)?.specs[i];
      return new PyShapedArray(a, replicated(a.shape.length), null, v, false, spec?.unreduced ?? [], spec?.reduced ?? []);
    }
    const t = tracerDims(ip, x);
    return new PyShapedArray(a, t?.dims ?? replicated(a.shape.length), t?.mesh ?? null, [], false, t?.unreduced ?? []);
  }
  // a host array closed over by a traced function keeps its placement
  const h = x instanceof HostArray ? x : x instanceof Tracer && x.materialized ? x.materialized : isArray(x) && ip.atHost ? ip.hostArray(x, c.span) : null;
  const s = h?.sharding ?? h?.typeSharding ?? null;
  const mesh = s?.mesh ?? null;
  const dims = s ? keepAxes(dimsOf(s, a.shape, c.span), typedAxes(ip, s.mesh)) : replicated(a.shape.length);
  return new PyShapedArray(a, dims, mesh, [], false, h?.sharding?.spec.unreduced ?? [], h?.sharding?.spec.reduced ?? []);
}

function typeAttr(t: PyShapedArray, name: string): PyValue | undefined {
  switch (name) {
    case 'shape': return new PyTuple(t.aval.shape.map((n) => BigInt(n)));
    case 'ndim': return BigInt(t.aval.shape.length);
    case 'size': return BigInt(t.aval.shape.reduce((p, n) => p * n, 1));
    case 'dtype': return new PyDType(t.aval.dtype);
    case 'weak_type': return Boolean(t.aval.weak);
    case 'inner_aval': if (t.ref) return new PyShapedArray(t.aval, t.dims, t.mesh); break;
    case 'manual_axis_type': case 'mat': return new PyManualAxisType(t.varying);
    case 'sharding': {
      if (!t.mesh) return new PySingleDeviceSharding();
      const entries = t.dims.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d]));
      const s = new PyNamedSharding(t.mesh, new PyPartitionSpec(entries, t.unreduced, t.reduced));
      abstractShardings.add(s);
      return s;
    }
  }
  return undefined;
}

// ------------------------------------------------------------ with_sharding_constraint, reshard

/** jax.lax.with_sharding_constraint(x, s): at host a placement; under Explicit axes an assertion, as in JAX. */
function withShardingConstraint(ip: Interp, c: CallArgs): PyValue {
  const x = arg(c, 0, 'x');
  const target = arg(c, 1, 'shardings');
  if (ip.atHost && isArray(x)) {
    const s = shardingArg(ip, target, 'with_sharding_constraint', c.span);
    const h = ip.hostArray(x, c.span);
    if (s instanceof PyNamedSharding && s.mesh.explicit && h.sharding?.mesh.explicit) {
      const have = dimsOf(h.sharding, h.aval.shape, c.span);
      const want = dimsOf(s, h.aval.shape, c.span);
      if (!sameDims(have, want)) {
        const spec = (d: DimShardings): string => specRepr(new PyPartitionSpec(d.map((a) => (a.length === 0 ? null : a.length === 1 ? a[0]! : [...a]))));
        throw new CompileError(
          `AssertionError: \`with_sharding_constraint\` acts as an assert when all axes of mesh are of type \`Explicit\`. The array sharding: ${spec(have)} did not match the sharding provided: ${specRepr(s.spec)}. Please use \`jax.sharding.reshard\` to shard your input to the sharding you want.`,
          c.span,
        );
      }
    }
  }
  if (!ip.atHost) {
    // inside a traced function, a spec naming Explicit mesh axes is refused (their layout is the type's; reshard changes it)
    const s = shardingArg(ip, target, 'with_sharding_constraint', c.span);
    if (s instanceof PyNamedSharding && s.mesh.explicit && s.spec.entries.some((e) => e !== null && e.length > 0)) {
      const m = s.mesh;
      const axes = m.axisNames.map((n, i) => `${pyStr(n)}: ${m.devices.shape[i]}`).join(', ');
      const types = tupleRepr(m.axisNames.map(() => 'Explicit'));
      throw new CompileError(
        `ValueError: The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of the mesh. Got spec=${specRepr(s.spec)} and mesh=AbstractMesh(${axes}, axis_types=${types}, device_kind=cpu, num_cores=None, platform=cpu). You probably meant to use \`reshard\` API?`,
        c.span,
      );
    }
  }
  return placeTree(ip, x, target, 'with_sharding_constraint', ip.nameHints.length === 1 ? ip.nameHints[0]! : '', c.span);
}

const sameDims = (a: DimShardings, b: DimShardings): boolean => a.length === b.length && a.every((d, i) => d.join() === b[i]!.join());

/** jax.reshard(x, s): `x` laid out as `s` says (inside jit the values are unchanged). */
function reshard(ip: Interp, c: CallArgs): PyValue {
  return placeTree(ip, arg(c, 0, 'x'), arg(c, 1, 'out_shardings'), 'reshard', ip.nameHints.length === 1 ? ip.nameHints[0]! : '', c.span);
}

// ------------------------------------------------------------ auto_axes, explicit_axes

/**
 * jax.sharding.auto_axes / explicit_axes (`f`, or as a decorator factory with
 * `axes=`, `out_sharding=` / `in_sharding=`): calling the result runs `f` with
 * the mesh axes `axes` (default: all) of type `kind`, as JAX's pjit.py does —
 * the arguments recast on entry, the results on exit.
 */
function axesCast(ip: Interp, c: CallArgs, kind: AxisKind): PyValue {
  const what = kind === 'Auto' ? 'auto_axes' : 'explicit_axes';
  const axes = c.kwargs.get('axes') ?? null;
  const given = c.kwargs.get(kind === 'Auto' ? 'out_sharding' : 'in_sharding') ?? null;
  const wrap = (f: PyValue): PyBuiltin => new PyBuiltin(what, (call) => callCast(ip, f, kind, axes, given, call));
  const f = c.args[0];
  return f === undefined ? new PyBuiltin(what, (call) => wrap(arg(call, 0, 'f'))) : wrap(f);
}

function callCast(ip: Interp, f: PyValue, kind: AxisKind, axesV: PyValue, given: PyValue, call: CallArgs): PyValue {
  const span = call.span;
  const key = kind === 'Auto' ? 'out_sharding' : 'in_sharding';
  const kwargs = new Map(call.kwargs);
  let sharding = given;
  if (sharding === null) {
    if (!kwargs.has(key)) throw new CompileError(`TypeError: Missing required keyword argument: '${key}'`, span);
    sharding = kwargs.get(key)!;
    kwargs.delete(key);
  }
  const run = (args: PyValue[]): PyValue => ip.call(f, { args, kwargs, span });
  const outer = getAbstractMesh(ip);
  const mesh = contextMesh(ip);
  if (!mesh || !outer.sizes.length) {
    if (kind === 'Auto') return run(call.args);
    throw new CompileError('ValueError: Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a mesh context when using `explicit_axes` API.', span);
  }
  const axes = axesV === null ? outer.axisNames : axisNamesArg(axesV, span);
  const outerAuto = outer.axesOf('Auto');
  if (kind === 'Auto' && outerAuto.length === axes.length && axes.every((a) => outerAuto.includes(a))) return run(call.args);
  const inner = outer.withTypes(axes, kind);
  const ctx = meshContext(ip);
  ctx.cast.push(inner);
  let out: PyValue;
  try {
    // Auto: each argument keeps only the shardings on the axes still Explicit; Explicit: laid out as in_sharding says
    const args = kind === 'Auto'
      ? call.args.map((a) => castTree(ip, a, mesh, inner, (leaf) => keepAxes(leafDims(ip, leaf, mesh, span), inner.axesOf('Explicit')), span))
      : castTree(ip, new PyTuple(call.args), mesh, inner, fromSharding(ip, sharding, span), span) as PyTuple;
    out = run(args instanceof PyTuple ? args.items : args);
  } finally {
    ctx.cast.pop();
  }
  // Auto: the results laid out as out_sharding says; Explicit: they keep their layout on the axes Explicit outside
  if (kind === 'Auto') return castTree(ip, out, mesh, outer, fromSharding(ip, sharding, span), span);
  return castTree(ip, out, mesh, outer, (leaf) => keepAxes(leafDims(ip, leaf, mesh, span), outer.axesOf('Explicit')), span);
}

/** The layout a sharding argument (a NamedSharding or a PartitionSpec of the context mesh) gives an array leaf. */
function fromSharding(ip: Interp, s: PyValue, span: A.Span): (leaf: PyValue) => DimShardings {
  const named = shardingArg(ip, s, 'reshard', span);
  if (!(named instanceof PyNamedSharding)) throw new CompileError(`ValueError: Reshard should only be used with out_shardings which are non-None and have a non-empty mesh. Got sharding ${typeName(named)}.`, span);
  return (leaf) => dimsOf(named, ip.ops.aval(leaf, span).shape, span);
}

/** An array leaf's mesh axes per dimension: a host array's placement, a traced value's propagated layout. */
function leafDims(ip: Interp, leaf: PyValue, mesh: PyMesh, span: A.Span): DimShardings {
  if (leaf instanceof Tracer && !leaf.materialized && leaf.trace.kind !== 'segment') {
    const info = traceArgs.get(leaf.trace);
    if (!info || leaf.atom.kind !== 'var') return replicated(leaf.aval.shape.length);
    const b = leaf.trace.builder;
    const func: Func = { name: b.name, params: b.params, eqns: [...b.eqns], results: [leaf.atom] };
    const ins = b.params.map((_, i) => info.dims[i] ?? null);
    return propagateShardings(func, meshShape(info.mesh), ins).get(leaf.atom.id) ?? replicated(leaf.aval.shape.length);
  }
  const h = ip.hostArray(leaf, span);
  return h.sharding && sameMesh(h.sharding.mesh, mesh) ? dimsOf(h.sharding, h.aval.shape, span) : replicated(h.aval.shape.length);
}

/**
 * Every array leaf of `x` laid out as `dims(leaf)` says, its type's axes those of abstract mesh
 * `to`. Traced: a sharding_constraint equation. At host: an array already
 * laid out so is relabelled (the same buffers, a mesh of `to`'s axis types), else placed.
 */
function castTree(ip: Interp, x: PyValue, mesh: PyMesh, to: PyAbstractMesh, dims: (leaf: PyValue) => DimShardings, span: A.Span): PyValue {
  const cast = (leaf: PyValue): PyValue => {
    if (leaf instanceof PyTuple || leaf instanceof PyList) {
      const items = leaf.items.map(cast);
      return leaf instanceof PyList ? new PyList(items) : new PyTuple(items, leaf.cls);
    }
    if (leaf instanceof PyDict) {
      const d = new PyDict();
      for (const [k, v] of leaf.entries.values()) d.set(k, cast(v));
      return d;
    }
    if (!isArray(leaf)) return leaf;
    const want = dims(leaf);
    if (leaf instanceof Tracer && !leaf.materialized && leaf.trace.kind !== 'segment') {
      return ip.ops.tracer(ip.ops.bind('sharding_constraint', [leaf.atom], { dims: want }, span));
    }
    const explicit = to.axesOf('Explicit');
    // a mixed mesh keeps the arrays' own mesh (jaxts meshes are all-Explicit or all-Auto)
    const typed = explicit.length === to.axisNames.length ? new PyMesh(mesh.devices, mesh.axisNames, true) : explicit.length === 0 ? new PyMesh(mesh.devices, mesh.axisNames, false) : mesh;
    const target = new PyNamedSharding(typed, new PyPartitionSpec(want.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d]))));
    const h = ip.hostArray(leaf, span);
    if (h.sharding && sameMesh(new PyMesh(h.sharding.mesh.devices, h.sharding.mesh.axisNames, typed.explicit), typed) && sameDims(keepAxes(dimsOf(h.sharding, h.aval.shape, span), explicit), keepAxes(want, explicit))) {
      const out = new HostArray(h.name, h.aval);
      out.sharding = explicit.length ? target : new PyNamedSharding(typed, h.sharding.spec);
      return out;
    }
    return putTree(ip, h, target, ip.nameHints.length === 1 ? ip.nameHints[0]! : '', span);
  };
  return cast(x);
}

/** Entries of the `jax.sharding` module, and the `jax.*` aliases (make_mesh, NamedSharding, P, device_put). */
/** jax.sharding: Mesh, NamedSharding, PartitionSpec, AxisType. */
export function shardingModule(ip: Interp): PyModule {
  const AxisType = new Map<string, PyValue>(Object.entries(AXIS_TYPES));
  return builtinModule('jax.sharding', {
    Mesh: (c) => newMesh(ip, c),
    AbstractMesh: (c) => abstractMesh(c),
    NamedSharding: (c) => namedSharding(c),
    SingleDeviceSharding: (c) => singleDeviceSharding(c),
    PartitionSpec: (c) => partitionSpec(c),
    AxisType: new PyModule('jax.sharding.AxisType', AxisType),
    set_mesh: (c) => setMesh(ip, c),
    get_abstract_mesh: () => getAbstractMesh(ip),
    use_abstract_mesh: (c) => useAbstractMesh(ip, c),
    reshard: (c) => reshard(ip, c),
    auto_axes: (c) => axesCast(ip, c, 'Auto'),
    explicit_axes: (c) => axesCast(ip, c, 'Explicit'),
  });
}

/** The sharding functions of the `jax` package itself (jax.make_mesh, jax.device_put, …). */
export function jaxShardingFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return {
    make_mesh: (c) => makeMesh(ip, c),
    NamedSharding: (c) => namedSharding(c),
    P: (c) => partitionSpec(c),
    device_put: (c) => devicePut(ip, c),
    typeof: (c) => typeOf(ip, c),
    set_mesh: (c) => setMesh(ip, c),
    reshard: (c) => reshard(ip, c),
  };
}

/** jax.lax's sharding entries. */
export function laxShardingFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return { with_sharding_constraint: (c) => withShardingConstraint(ip, c) };
}

// ------------------------------------------------------------ jax.debug.visualize_array_sharding

/** Python's divmod (floor division). */
const divmod = (a: number, b: number): [number, number] => [Math.floor(a / b), a - Math.floor(a / b) * b];

/**
 * The table jax.debug.visualize_sharding prints when stdout is not a
 * terminal (rich's Table, box SQUARE, lines between rows, no colour): one
 * cell per block of a 1-D or 2-D array, naming the devices that hold it,
 * sized as JAX sizes it (debugging.py). `devices[p]`: the device at mesh
 * position p; `dims`: the mesh axes splitting each dimension.
 */
export function shardingTable(shape: readonly number[], mesh: MeshShape | null, devices: readonly number[], dims: DimShardings, span: A.Span | null): string {
  if (shape.length < 1 || shape.length > 2) throw new CompileError('ValueError: `visualize_sharding` only works for shapes with 1 and 2 dimensions.', span);
  const scale = 1;
  const minWidth = 9;
  const maxWidth = 80;
  const baseHeight = Math.trunc(10 * scale);
  const aspect = (shape.length === 2 ? shape[1]! : 1) / shape[0]!;
  const baseWidth = Math.trunc(baseHeight * aspect);
  const heightToWidth = 2.5;
  // the block each device holds: chunk index and size per dimension
  const cells = new Map<string, { row: number; col: number; ids: Set<number>; w: number; h: number | null }>();
  const sizes = mesh ? mesh.axes.map((a) => a.size) : [];
  const positions = mesh ? devices.length : 1;
  for (let p = 0; p < positions; p++) {
    const coord = (name: string): number => {
      const i = mesh!.axes.findIndex((a) => a.name === name);
      return Math.floor(p / sizes.slice(i + 1).reduce((a, b) => a * b, 1)) % sizes[i]!;
    };
    const chunk = shape.map((n, d) => {
      const axes = dims[d] ?? [];
      let idx = 0;
      let parts = 1;
      for (const a of axes) {
        const s = sizes[mesh!.axes.findIndex((x) => x.name === a)]!;
        idx = idx * s + coord(a);
        parts *= s;
      }
      return { idx, size: n / parts };
    });
    const row = shape.length === 2 ? chunk[0]!.idx : 0;
    const col = shape.length === 2 ? chunk[1]!.idx : chunk[0]!.idx;
    const key = `${row},${col}`;
    let cell = cells.get(key);
    if (!cell) {
      const w = shape.length === 2 ? chunk[1]!.size / shape[1]! : chunk[0]!.size / shape[0]!;
      const h = shape.length === 2 ? chunk[0]!.size / shape[0]! : null;
      cells.set(key, (cell = { row, col, ids: new Set(), w, h }));
    }
    cell.ids.add(mesh ? devices[p]! : 0);
  }
  const all = [...cells.values()];
  const nRows = Math.max(...all.map((c) => c.row)) + 1;
  const nCols = Math.max(...all.map((c) => c.col)) + 1;
  // each cell: its text, padding (rich's Padding) and the width it asks for
  type Cell = { entry: string; top: number; bottom: number; left: number; right: number };
  const grid: Cell[][] = [];
  for (let i = 0; i < nRows; i++) {
    const row: Cell[] = [];
    for (let j = 0; j < nCols; j++) {
      const c = cells.get(`${i},${j}`)!;
      const entry = `CPU ${[...c.ids].sort((a, b) => a - b).join(',')}`;
      let width = Math.trunc(c.w * baseWidth * heightToWidth);
      const height = c.h === null ? 1 : Math.trunc(c.h * baseHeight);
      width = Math.min(Math.max(width, minWidth), maxWidth);
      const [left, lrem] = divmod(width - entry.length - 2, 2);
      const [top, trem] = divmod(height - 2, 2);
      row.push({ entry, top: Math.max(top, 0), bottom: Math.max(top + trem, 0), left: Math.max(left, 0), right: Math.max(left + lrem, 0) });
    }
    grid.push(row);
  }
  const colWidths = Array.from({ length: nCols }, (_, j) => Math.max(...grid.map((r) => r[j]!.left + r[j]!.entry.length + r[j]!.right)));
  if (colWidths.reduce((a, b) => a + b, 0) + nCols + 1 > maxWidth) {
    throw new CompileError(`jax.debug.visualize_array_sharding: a table wider than ${maxWidth} columns (rich wraps its cells) is not supported by jaxts`, span);
  }
  const lines = [boxRule(BOXES['SQUARE']!, 'top', colWidths)];
  grid.forEach((row, i) => {
    const height = Math.max(...row.map((c) => c.top + 1 + c.bottom));
    for (let k = 0; k < height; k++) {
      const parts = row.map((c, j) => {
        const w = colWidths[j]!;
        if (k !== c.top) return ' '.repeat(w);
        const inner = w - c.left - c.right;
        const pad = inner - c.entry.length;
        const l = Math.floor(pad / 2);
        return ' '.repeat(c.left + l) + c.entry + ' '.repeat(pad - l + c.right);
      });
      lines.push(boxLine(BOXES['SQUARE']!, 'mid', parts));
    }
    lines.push(boxRule(BOXES['SQUARE']!, i === grid.length - 1 ? 'bottom' : 'row', colWidths));
  });
  return lines.join('\n') + '\n';
}

/** jax.debug.visualize_array_sharding(x): print x's layout (at host; the table is known at compile time). */
function visualizeArraySharding(ip: Interp, c: CallArgs): null {
  const x = arg(c, 0, 'arr');
  if (!isArray(x)) throw new CompileError(`TypeError: visualize_array_sharding needs an array, got ${typeName(x)}`, c.span);
  if (!ip.atHost) throw new CompileError('jax.debug.visualize_array_sharding inside a traced function is not supported by jaxts yet', c.span);
  const h = ip.hostArray(x, c.span);
  const s = h.sharding;
  const text = s
    ? shardingTable(h.aval.shape, meshShape(s.mesh), s.mesh.devices.ids, dimsOf(s, h.aval.shape, c.span), c.span)
    : shardingTable(h.aval.shape, null, [0], replicated(h.aval.shape.length), c.span);
  ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [{ k: 'lit', value: text }] } });
  return null;
}

/** jax.debug.inspect_array_sharding(x, callback=f): f(x.sharding), here at compile time. */
function inspectArraySharding(ip: Interp, c: CallArgs): null {
  const x = arg(c, 0, 'value');
  const callback = arg(c, 1, 'callback');
  const flat = flattenLeaves(x);
  for (const leaf of flat) {
    if (!isArray(leaf)) continue;
    if (leaf instanceof Tracer && !leaf.materialized && leaf.trace.kind !== 'segment') {
      // inside jit: the layout propagated to the value so far, called back while tracing (JAX: while compiling)
      const t = tracerDims(ip, leaf, true);
      const entries = (t?.dims ?? []).map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d]));
      while (entries.length && entries[entries.length - 1] === null) entries.pop();
      const s = t ? new PyNamedSharding(t.mesh, new PyPartitionSpec(entries)) : new PySingleDeviceSharding();
      ip.call(callback, { args: [s], kwargs: new Map(), span: c.span });
      continue;
    }
    const h = ip.hostArray(leaf, c.span);
    ip.call(callback, { args: [h.sharding ?? new PySingleDeviceSharding()], kwargs: new Map(), span: c.span });
  }
  return null;
}

const flattenLeaves = (v: PyValue): PyValue[] =>
  v instanceof PyTuple || v instanceof PyList ? v.items.flatMap(flattenLeaves) : v instanceof PyDict ? [...v.entries.values()].flatMap(([, x]) => flattenLeaves(x)) : [v];

/** jax.debug's sharding entries. */
export function debugShardingFunctions(ip: Interp): Record<string, (c: CallArgs) => PyValue> {
  return {
    visualize_array_sharding: (c) => visualizeArraySharding(ip, c),
    inspect_array_sharding: (c) => inspectArraySharding(ip, c),
  };
}
