// Shardings of arrays over a device mesh, as the SPMD passes see them.
//   MeshShape     — the mesh's axes (name, size) in mesh order, and their type
//   DimShardings  — for each array dimension, the mesh axes that split it
//                   (major to minor); [] = that dimension is whole. Mesh axes
//                   named by no dimension replicate the array.
// A device's position in the mesh is the row-major index of its coordinates
// (mesh axis 0 slowest); runtimes and collectives number devices this way.
import type { Func } from './types.js';

export interface MeshAxis {
  name: string;
  size: number;
}

export interface MeshShape {
  axes: readonly MeshAxis[];
  /** Axis types: Explicit (jax.make_mesh) puts shardings in the types; Auto (Mesh(...)) lets propagation choose. */
  explicit: boolean;
}

export type DimShardings = readonly (readonly string[])[];

export const replicated = (rank: number): DimShardings => Array.from({ length: rank }, () => []);

export const meshSize = (mesh: MeshShape): number => mesh.axes.reduce((n, a) => n * a.size, 1);

export function axisSize(mesh: MeshShape, name: string): number {
  const a = mesh.axes.find((x) => x.name === name);
  if (!a) throw new Error(`internal: mesh has no axis '${name}'`);
  return a.size;
}

/** The product of the sizes of `names`. */
export const axesSize = (mesh: MeshShape, names: readonly string[]): number => names.reduce((n, a) => n * axisSize(mesh, a), 1);

/** The block each device holds: every dimension divided by the sizes of its axes. */
export function localShape(shape: readonly number[], dims: DimShardings, mesh: MeshShape): number[] {
  return shape.map((s, d) => s / axesSize(mesh, dims[d] ?? []));
}

export const sameShardings = (a: DimShardings, b: DimShardings): boolean =>
  a.length === b.length && a.every((d, i) => d.length === b[i]!.length && d.every((x, j) => x === b[i]![j]));

/** `f32[256@data,32]`-style: JAX's jax.typeof notation for a sharded type. */
export function shardedTypeStr(dtype: string, shape: readonly number[], dims: DimShardings): string {
  const parts = shape.map((s, d) => {
    const ax = dims[d] ?? [];
    if (!ax.length) return String(s);
    return ax.length === 1 ? `${s}@${ax[0]}` : `${s}@(${ax.join(',')})`;
  });
  return `${dtype}[${parts.join(',')}]`;
}

/**
 * What a jaxpr's type shows of a value's sharding besides its dimensions
 * (JAX's core._vma_ur_str): the mesh axes it varies over inside shard_map
 * (`V`), holds unreduced partial sums over (`U`), or is reduced over (`R`).
 */
export interface TypeSharding {
  dims: DimShardings;
  varying?: readonly string[];
  unreduced?: readonly string[];
  reduced?: readonly string[];
}

/** `{V:i}`, `{U:X}`, `{V:(i,j), R:X}`: JAX's suffix of a type (axes in the order given: the mesh's); '' when none. */
export function vmaUrStr(t: Omit<TypeSharding, 'dims'>): string {
  const one = (prefix: string, axes: readonly string[] | undefined): string[] =>
    axes?.length ? [`${prefix}:${axes.length === 1 ? axes[0] : `(${axes.join(',')})`}`] : [];
  const parts = [...one('V', t.varying), ...one('U', t.unreduced), ...one('R', t.reduced)];
  return parts.length ? `{${parts.join(', ')}}` : '';
}

/**
 * The device groups a collective over `names` runs in: devices that agree on
 * every other mesh axis, each group listed in the order of its coordinates
 * along `names` (row-major in mesh order). Positions are mesh positions.
 */
export function replicaGroups(mesh: MeshShape, names: readonly string[]): number[][] {
  const sizes = mesh.axes.map((a) => a.size);
  const strides = sizes.map((_, i) => sizes.slice(i + 1).reduce((a, b) => a * b, 1));
  const inGroup = mesh.axes.map((a) => names.includes(a.name));
  const groups = new Map<string, number[]>();
  const total = sizes.reduce((a, b) => a * b, 1);
  for (let p = 0; p < total; p++) {
    const coords = sizes.map((s, i) => Math.floor(p / strides[i]!) % s);
    const key = coords.map((c, i) => (inGroup[i] ? '*' : c)).join(',');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(p);
  }
  // within a group, order by the coordinates along `names` in the order `names` lists them
  const order = names.map((n) => mesh.axes.findIndex((a) => a.name === n));
  const rank = (p: number): number => order.reduce((r, i) => r * sizes[i]! + (Math.floor(p / strides[i]!) % sizes[i]!), 0);
  return [...groups.values()].map((g) => g.sort((a, b) => rank(a) - rank(b)));
}

/** A program partitioned over a mesh (src/passes/spmd.ts): the global program, the shardings, and the per-device program. */
export interface SpmdProgram {
  /** The input program. */
  global: Func;
  /** The per-device program: local shapes; axisEnv = the mesh axes in mesh order. */
  local: Func;
  mesh: MeshShape;
  /** The layout each parameter must arrive in (given ones unchanged; free ones as chosen). */
  inShardings: DimShardings[];
  /** The layout of each result. */
  outShardings: DimShardings[];
  /** Global Var id → chosen sharding (for dumps). */
  varShardings: Map<number, DimShardings>;
}
