// The shard_map primitive's params (JAX's shard_map_p): a per-device body
// `jaxpr` run on every device of `mesh`, its operands split as `in_specs`
// say and its results assembled as `out_specs` say. A spec is a
// PartitionSpec's entries as the user wrote them (None, an axis name, or a
// tuple of names per leading dimension; missing trailing entries: whole), so
// that make_jaxpr prints it as JAX does; `specDims` gives its DimShardings.
import { axesSize, type DimShardings, type MeshShape } from './sharding.js';
import type { AVal, Eqn, Func, Params } from './types.js';

/** One PartitionSpec entry: a dimension whole (null), or split over one mesh axis or several (major to minor). */
export type SpecEntry = string | readonly string[] | null;
export type Spec = readonly SpecEntry[];

export interface ShardMapParams {
  /** The per-device body: one parameter per operand (its block), one result per output (its block). */
  jaxpr: Func;
  mesh: MeshShape;
  /** The mesh as make_jaxpr shows it: the Mesh passed, or the context's AbstractMesh. */
  mesh_repr: string;
  in_specs: readonly Spec[];
  out_specs: readonly Spec[];
  /** JAX's check_vma: results must not vary over mesh axes their out_spec leaves out; implicit pvary/psum transposes. */
  check_vma: boolean;
  /** The mesh axes the body is manual over (all of the mesh's unless axis_names= names fewer). */
  newly_manual_axes: readonly string[];
}

export const shardMapParams = (p: Params): ShardMapParams => p as unknown as ShardMapParams;
export const asParams = (p: ShardMapParams): Params => ({ ...p });

/** The mesh axes of a spec entry. */
export const entryAxes = (e: SpecEntry | undefined): readonly string[] => (e === null || e === undefined ? [] : typeof e === 'string' ? [e] : e);

/** A spec as DimShardings of an array of rank `rank`. */
export const specDims = (spec: Spec, rank: number): DimShardings => Array.from({ length: rank }, (_, d) => [...entryAxes(spec[d])]);

/** A DimShardings as a spec (trailing whole dimensions dropped, as JAX's P() spelling). */
export function dimsSpec(dims: DimShardings): Spec {
  const s: SpecEntry[] = dims.map((d) => (d.length === 0 ? null : d.length === 1 ? d[0]! : [...d]));
  while (s.length && s[s.length - 1] === null) s.pop();
  return s;
}

/** The mesh axes a spec names. */
export const specAxes = (spec: Spec): string[] => spec.flatMap((e) => [...entryAxes(e)]);

/** The global type of a block laid out as `spec` over `mesh`. */
export const globalAval = (block: AVal, spec: Spec, mesh: MeshShape): AVal => ({
  shape: block.shape.map((n, d) => n * axesSize(mesh, entryAxes(spec[d]))),
  dtype: block.dtype,
  ...(block.weak ? { weak: true } : {}),
});

/** The block type of a global value laid out as `spec` over `mesh`. */
export const blockAval = (global: AVal, spec: Spec, mesh: MeshShape): AVal => ({
  shape: global.shape.map((n, d) => n / axesSize(mesh, entryAxes(spec[d]))),
  dtype: global.dtype,
  ...(global.weak ? { weak: true } : {}),
});

/** The shard_map equations of `f` (not looking inside other control flow). */
export const shardMaps = (f: Pick<Func, 'eqns'>): Eqn[] => f.eqns.filter((e) => e.prim === 'shard_map');

/** A spec as JAX's PartitionSpec repr shows it: `P('i',)`, `P()`, `P(None, ('i', 'j'))`. */
export function specText(spec: Spec): string {
  const one = (e: SpecEntry): string => (e === null ? 'None' : typeof e === 'string' ? `'${e}'` : `(${e.map((n) => `'${n}'`).join(', ')}${e.length === 1 ? ',' : ''})`);
  return `P(${spec.map(one).join(', ')}${spec.length === 1 ? ',' : ''})`;
}
