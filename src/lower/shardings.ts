// The sharding values' pure side (no interpreter): str/repr of meshes,
// PartitionSpecs and NamedShardings as JAX prints them, and their translation
// to the per-dimension mesh axes the passes work with.
import { CompileError } from '../common/diagnostics.js';
import type { DimShardings, MeshShape } from '../ir/sharding.js';
import { axesSize, sameShardings, shardedTypeStr } from '../ir/sharding.js';
import type * as A from '../parser/ast.js';
import { PyBuiltin, PyMesh, PyNamedSharding, PyObject, PyPartitionSpec, type HostArray, type Trace } from './values.js';

export const pyStr = (s: string): string => `'${s}'`;
export const tupleRepr = (items: string[]): string => `(${items.join(', ')}${items.length === 1 ? ',' : ''})`;
const axisTypes = (m: PyMesh): string => tupleRepr(m.axisNames.map(() => (m.explicit ? 'Explicit' : 'Auto')));

/** str(mesh): `Mesh('data': 4, 'model': 2, axis_types=(Auto, Auto))` */
export function meshStr(m: PyMesh): string {
  const sizes = m.devices.shape;
  return `Mesh(${m.axisNames.map((n, i) => `${pyStr(n)}: ${sizes[i]}`).join(', ')}, axis_types=${axisTypes(m)})`;
}

/** repr(mesh): `Mesh(axis_sizes=(4, 2), axis_names=('data', 'model'), axis_types=(Auto, Auto))` */
export function meshRepr(m: PyMesh): string {
  return `Mesh(axis_sizes=${tupleRepr(m.devices.shape.map(String))}, axis_names=${tupleRepr(m.axisNames.map(pyStr))}, axis_types=${axisTypes(m)})`;
}

/** repr(P(...)): `P('data', None)`, `P()`, `P(('a', 'b'), None)`, `P('x',)` */
export function specRepr(p: PyPartitionSpec): string {
  const items = p.entries.map((e) => (e === null ? 'None' : typeof e === 'string' ? pyStr(e) : tupleRepr(e.map(pyStr))));
  const sets = [['unreduced', p.unreduced] as const, ['reduced', p.reduced] as const]
    .filter(([, axes]) => axes.length)
    .map(([k, axes]) => `${k}={${[...axes].sort().map(pyStr).join(', ')}}`);
  if (sets.length) return `P(${[...items, ...sets].join(', ')})`;
  return items.length ? `P(${items.join(', ')}${items.length === 1 ? ',' : ''})` : 'P()';
}

export function shardingRepr(s: PyNamedSharding): string {
  return `NamedSharding(mesh=${meshStr(s.mesh)}, spec=${specRepr(s.spec)}, memory_kind=device)`;
}

// ------------------------------------------------------------ shardings as the passes see them

export const meshShape = (m: PyMesh): MeshShape => ({ axes: m.axisNames.map((name, i) => ({ name, size: m.devices.shape[i]! })), explicit: m.explicit });

/** The sharding's mesh axes per dimension of a rank-`rank` array (checked as JAX checks device_put). */
export function dimsOf(s: PyNamedSharding, shape: readonly number[], span: A.Span | null): DimShardings {
  const rank = shape.length;
  if (s.spec.entries.length > rank) {
    throw new CompileError(
      `ValueError: One of device_put args is incompatible with its sharding annotation ${shardingRepr(s)}: Sharding ${shardingRepr(s)} is only valid for values of rank at least ${s.spec.entries.length}, but was applied to a value of rank ${rank}.`,
      span,
    );
  }
  const dims = specAxes(s, rank);
  const sizes = meshShape(s.mesh);
  dims.forEach((axes, d) => {
    const n = axesSize(sizes, axes);
    if (shape[d]! % n !== 0 && s.mesh.explicit) {
      // Explicit axes: the type's check (core._check_divisibility), over the mesh's AbstractMesh
      const padded = new PyPartitionSpec([...s.spec.entries, ...Array.from({ length: rank - s.spec.entries.length }, () => null)], s.spec.unreduced, s.spec.reduced);
      throw new CompileError(
        `ValueError: Sharding spec ${tupleRepr(axes.map(pyStr))} implies that array axis ${d} is partitioned ${n} times, but does not evenly divide the dimension size ${shape[d]}. Got shape: ${tupleRepr(shape.map(String))} and sharding NamedSharding(mesh=${abstractMeshStr(PyAbstractMesh.of(s.mesh))}, spec=${specRepr(padded)})`,
        span,
      );
    }
    if (shape[d]! % n !== 0) {
      const factors = dims.map((ax) => axesSize(sizes, ax));
      throw new CompileError(
        `IndivisibleError: Sharding ${shardingRepr(s)} implies that array axis ${d} is partitioned ${n} times, but the dimension size is ${shape[d]} (full shape: ${tupleRepr(shape.map(String))}, per-dimension tiling factors: [${factors.join(', ')}] should evenly divide the shape)`,
        span,
      );
    }
  });
  return dims;
}

/**
 * The NamedSharding JAX reports for a program result with mesh axes `dims`:
 * under Auto axes, the first argument's own sharding object when it is
 * equivalent (same rank and placement; JAX keeps the user's spelling), else a spec built from the
 * dims — rank-long under Explicit axes (sharding in types), trailing Nones
 * trimmed under Auto axes (XLA's sharding converted back).
 */
export function resultSharding(mesh: PyMesh, dims: DimShardings, first: { sharding: PyNamedSharding; rank: number } | null): PyNamedSharding {
  if (!mesh.explicit && first && first.rank === dims.length && sameShardings(specAxes(first.sharding, first.rank), dims)) return first.sharding;
  const entries: (string | string[] | null)[] = dims.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d]));
  if (!mesh.explicit) while (entries.length && entries[entries.length - 1] === null) entries.pop();
  return new PyNamedSharding(mesh, new PyPartitionSpec(entries));
}

/** The mesh axes per dimension of a rank-`rank` array that `s` names (missing trailing entries: whole). */
export const specAxes = (s: PyNamedSharding, rank: number): DimShardings =>
  Array.from({ length: rank }, (_, d) => {
    const e = s.spec.entries[d] ?? null;
    return e === null ? [] : typeof e === 'string' ? [e] : e;
  });

export const sameMesh = (a: PyMesh, b: PyMesh): boolean =>
  a === b || (a.axisNames.join() === b.axisNames.join() && a.devices.ids.join() === b.devices.ids.join() && a.devices.shape.join() === b.devices.shape.join() && a.explicit === b.explicit);

/**
 * JAX's DeviceAssignmentMismatchError (jax/_src/stages.py) for a computation
 * `fn` on committed arrays `args` (its parameters' names, each with its
 * array): the message when two of them sit on different device lists (in
 * mesh order), else null.
 */
export function deviceMismatch(fn: string, args: { name: string; value: HostArray }[]): string | null {
  const placed = args.filter((a) => a.value.sharding);
  const first = placed[0];
  if (!first) return null;
  const ids = (a: HostArray): number[] => a.sharding!.mesh.devices.ids;
  const other = placed.find((a) => ids(a.value).join() !== ids(first.value).join());
  if (!other) return null;
  const arg = (a: { name: string; value: HostArray }): string => {
    const m = a.value.sharding!.mesh;
    const dims = m.explicit ? specAxes(a.value.sharding!, a.value.aval.shape.length) : a.value.aval.shape.map(() => []);
    return `argument ${a.name} of ${fn} with shape ${shardedTypeStr(a.value.aval.dtype, a.value.aval.shape, dims)} and with device ids [${ids(a.value).join(', ')}] on platform CPU`;
  };
  return `ValueError: Received incompatible devices for jitted computation. Got ${arg(first)} and ${arg(other)}`;
}

/** The mesh of the shard_maps traced into a trace (or a trace nested in it): its program runs over that mesh. */
const shardMapMeshes = new WeakMap<Trace, PyMesh>();

/** Called when a shard_map equation is bound into `t`: `t` and the traces it is nested in run over `mesh`. */
export function noteShardMapMesh(t: Trace, mesh: PyMesh): void {
  for (let u: Trace | null = t; u; u = u.parent) if (!shardMapMeshes.has(u)) shardMapMeshes.set(u, mesh);
}

/** The mesh a trace's shard_maps run over (null: none). */
export const shardMapMeshOf = (t: Trace): PyMesh | null => shardMapMeshes.get(t) ?? null;

/**
 * The mesh a program traced in `t` runs over: its sharded arguments' mesh, or its shard_maps' when
 * they run over another mesh of the same devices (JAX lays such arguments out anew for the shard_map),
 * or null when neither is sharded.
 */
export function programMesh(args: HostArray[], t: Trace, span: A.Span | null): PyMesh | null {
  const argMesh = meshOf(args, span);
  const inner = shardMapMeshOf(t);
  if (!argMesh) return inner;
  const sameDevices = (a: PyMesh, b: PyMesh): boolean => [...a.devices.ids].sort().join() === [...b.devices.ids].sort().join();
  return inner && !sameMesh(argMesh, inner) && sameDevices(argMesh, inner) ? inner : argMesh;
}

/** The mesh shared by the sharded arguments, or null when none is sharded (a single-device program). */
export function meshOf(args: HostArray[], span: A.Span | null): PyMesh | null {
  let mesh: PyMesh | null = null;
  for (const a of args) {
    const m = a.sharding?.mesh;
    if (!m) continue;
    // meshes of the same device list (in order) are one device assignment, as JAX checks it
    if (mesh && mesh.devices.ids.join() !== m.devices.ids.join()) {
      throw new CompileError(`ValueError: Received incompatible devices for jitted computation. Got argument ${a.name} of ${meshStr(m)} and another argument of ${meshStr(mesh)}.`, span);
    }
    mesh ??= m;
  }
  return mesh;
}


// ------------------------------------------------------------ abstract meshes and equality

/** A mesh axis's type (jax.sharding.AxisType). */
export type AxisKind = 'Explicit' | 'Auto';

/** jax.sharding.AbstractMesh: axis sizes, names and types without devices (`concrete`: made from a Mesh, printing its device kind). */
export class PyAbstractMesh extends PyObject {
  readonly typeName = 'AbstractMesh';
  constructor(
    readonly sizes: number[],
    readonly axisNames: string[],
    /** Per axis, in axis order. */
    readonly types: readonly AxisKind[],
    readonly concrete: boolean,
  ) {
    super();
  }
  static of(m: PyMesh): PyAbstractMesh {
    return new PyAbstractMesh([...m.devices.shape], [...m.axisNames], m.axisNames.map(() => (m.explicit ? 'Explicit' : 'Auto')), true);
  }
  /** This mesh with the axes `axes` given type `kind` (JAX's AbstractMesh.update_axis_types). */
  withTypes(axes: readonly string[], kind: AxisKind): PyAbstractMesh {
    return new PyAbstractMesh(this.sizes, this.axisNames, this.axisNames.map((n, i) => (axes.includes(n) ? kind : this.types[i]!)), this.concrete);
  }
  /** The axes of type `kind`. */
  axesOf(kind: AxisKind): string[] {
    return this.axisNames.filter((_, i) => this.types[i] === kind);
  }
}

/** str/repr(AbstractMesh): `AbstractMesh('x': 2, axis_types=(Explicit,), device_kind=cpu, num_cores=None, platform=cpu)`. */
export function abstractMeshStr(m: PyAbstractMesh): string {
  if (!m.sizes.length) return 'AbstractMesh((), axis_types=())';
  const types = tupleRepr([...m.types]);
  const kind = m.concrete ? ', device_kind=cpu, num_cores=None, platform=cpu' : '';
  return `AbstractMesh(${m.axisNames.map((n, i) => `${pyStr(n)}: ${m.sizes[i]}`).join(', ')}, axis_types=${types}${kind})`;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => [...a].sort().join() === [...b].sort().join();
const sameEntries = (a: PyPartitionSpec, b: PyPartitionSpec): boolean =>
  a.entries.length === b.entries.length &&
  sameSet(a.unreduced, b.unreduced) &&
  sameSet(a.reduced, b.reduced) &&
  a.entries.every((e, i) => {
    const f = b.entries[i]!;
    return Array.isArray(e) && Array.isArray(f) ? e.length === f.length && e.every((x, j) => x === f[j]) : e === f;
  });

/** `==` between sharding objects as JAX compares them (by value); undefined when `a` and `b` are not both ones. */
export function shardingEquals(a: unknown, b: unknown): boolean | undefined {
  if (a instanceof PyMesh && b instanceof PyMesh) return sameMesh(a, b);
  if (a instanceof PyPartitionSpec && b instanceof PyPartitionSpec) return sameEntries(a, b);
  if (a instanceof PyNamedSharding && b instanceof PyNamedSharding) return sameMesh(a.mesh, b.mesh) && sameEntries(a.spec, b.spec);
  if (a instanceof PyAbstractMesh && b instanceof PyAbstractMesh) {
    return a.types.join() === b.types.join() && a.sizes.join() === b.sizes.join() && a.axisNames.join() === b.axisNames.join();
  }
  const single = (v: unknown): boolean => v instanceof PyObject && v.typeName === 'SingleDeviceSharding';
  if (single(a) && single(b)) return true; // jaxts puts unsharded arrays on device 0
  return undefined;
}

/** Depth of jax.jit calls of shard_map-ped functions: their bodies are traced as jit's (a print shows tracers). */
let jitting = 0;
export function asJitted<T>(f: () => T): T {
  jitting++;
  try {
    return f();
  } finally {
    jitting--;
  }
}
export const underJit = (): boolean => jitting > 0;

/** A function made by jax.shard_map: calling it runs the body on every device of the mesh (see shard_map.ts). */
export class PyShardMapped extends PyBuiltin {}
