// A function of the array IR written in XLA HLO's textual notation: what
// `jit(f).lower(x).compile().as_text()` shows in jaxts. It is jaxts's own
// compiled program (the per-device program after SPMD partitioning), not
// XLA's; its operations carry HLO's names (all-reduce, all-gather,
// reduce-scatter, collective-permute, dot, …) so that lessons that look for
// a collective in the compiled text find the ones jaxts inserted.
import type { MeshShape } from './sharding.js';
import { replicaGroups } from './sharding.js';
import type { Atom, AVal, Eqn, Func } from './types.js';
import { shortDtype } from './types.js';

/** HLO's opcode for each primitive whose name differs from it (the others: the primitive's name, `_` as `-`). */
const HLO_NAMES: Record<string, string> = {
  psum: 'all-reduce',
  pmax: 'all-reduce',
  pmin: 'all-reduce',
  all_gather: 'all-gather',
  psum_scatter: 'reduce-scatter',
  ppermute: 'collective-permute',
  all_to_all: 'all-to-all',
  axis_index: 'partition-id',
  dot_general: 'dot',
  reduce_sum: 'reduce',
  reduce_max: 'reduce',
  reduce_min: 'reduce',
  reduce_prod: 'reduce',
  mul: 'multiply',
  sub: 'subtract',
  div: 'divide',
  neg: 'negate',
  max: 'maximum',
  min: 'minimum',
  pow: 'power',
  integer_pow: 'power',
  exp: 'exponential',
  broadcast_in_dim: 'broadcast',
  convert_element_type: 'convert',
  select_n: 'select',
  eq: 'compare',
  ne: 'compare',
  lt: 'compare',
  le: 'compare',
  gt: 'compare',
  ge: 'compare',
  squeeze: 'reshape',
  expand_dims: 'reshape',
  sharding_constraint: 'copy',
};

const hloName = (prim: string): string => HLO_NAMES[prim] ?? prim.replace(/_/g, '-');

const shapeText = (a: AVal): string => `${shortDtype(a.dtype)}[${a.shape.join(',')}]`;

/** `f` (a per-device program over `mesh`, or a single-device one) as an HLO module named `name`. */
export function printHlo(f: Func, name: string, mesh: MeshShape | null): string {
  const names = new Map<number, string>();
  let next = 0;
  const fresh = (id: number, base: string): string => {
    const n = `${base}.${next++}`;
    names.set(id, n);
    return n;
  };
  const atom = (a: Atom): string => (a.kind === 'lit' ? `${shapeText(a.aval)} constant(${String(a.value)})` : `${shapeText(a.aval)} %${names.get(a.id) ?? `v${a.id}`}`);
  const groups = (e: Eqn): string => {
    const axes = (e.params['axes'] ?? e.params['axis_name']) as string[] | undefined;
    if (!mesh || !axes) return '';
    return `, replica_groups={${replicaGroups(mesh, axes).map((g) => `{${g.join(',')}}`).join(',')}}`;
  };
  const lines = [`HloModule ${name}, entry_computation_layout={(${f.params.map((p) => shapeText(p.aval)).join(', ')})->(${f.results.map((r) => shapeText(r.aval)).join(', ')})}`, ''];
  lines.push(`ENTRY %main.0 (${f.params.map((p, i) => `Arg_${i}: ${shapeText(p.aval)}`).join(', ')}) -> (${f.results.map((r) => shapeText(r.aval)).join(', ')}) {`);
  f.params.forEach((p, i) => lines.push(`  %${fresh(p.id, `Arg_${i}`)} = ${shapeText(p.aval)} parameter(${i})`));
  for (const e of f.eqns) {
    const op = hloName(e.prim);
    const extra = ['all-reduce', 'all-gather', 'reduce-scatter', 'collective-permute', 'all-to-all'].includes(op) ? groups(e) : '';
    const outs = e.outputs.map((o) => fresh(o.id, op));
    const type = e.outputs.length === 1 ? shapeText(e.outputs[0]!.aval) : `(${e.outputs.map((o) => shapeText(o.aval)).join(', ')})`;
    lines.push(`  %${outs[0]} = ${type} ${op}(${e.inputs.map(atom).join(', ')})${extra}`);
  }
  lines.push(`  ROOT %tuple = (${f.results.map((r) => shapeText(r.aval)).join(', ')}) tuple(${f.results.map(atom).join(', ')})`);
  lines.push('}', '');
  return lines.join('\n');
}
