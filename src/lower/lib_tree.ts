// jax.tree and jax.tree_util: map and leaves over pytrees (dicts in sorted key
// order, lists, tuples, NamedTuples); jax.tree_map is the same map.
import { CompileError } from '../common/diagnostics.js';
import type { Interp } from './interp.js';
import { arg, builtinModule } from './modules.js';
import { flatten } from './transforms.js';
import { PyBuiltin, PyList, type CallArgs, type PyModule, type PyValue } from './values.js';

type Fn = (c: CallArgs) => PyValue;

/** jax.tree / jax.tree_util: map and leaves over pytrees (dicts in sorted key order, lists, tuples, NamedTuples). */
export function treeModules(ip: Interp): { tree: PyModule; treeUtil: PyModule; map: PyBuiltin } {
  const map: Fn = (c) => {
    const f = arg(c, 0, 'f');
    const trees = c.args.slice(1);
    if (!trees.length) throw new CompileError("TypeError: tree_map() missing required argument 'tree'", c.span);
    const first = flatten(trees[0]!);
    const rest = trees.slice(1).map((t) => flatten(t).leaves);
    for (const r of rest) {
      if (r.length !== first.leaves.length) {
        throw new CompileError(`ValueError: Tree structures differ: ${first.leaves.length} leaves vs ${r.length} leaves`, c.span);
      }
    }
    return first.unflatten(first.leaves.map((l, i) => ip.call(f, { args: [l, ...rest.map((r) => r[i]!)], kwargs: new Map(), span: c.span })));
  };
  const leaves: Fn = (c) => new PyList(flatten(arg(c, 0, 'tree')).leaves);
  const entries = { map, leaves };
  return {
    tree: builtinModule('jax.tree', entries),
    treeUtil: builtinModule('jax.tree_util', { tree_map: map, tree_leaves: leaves }),
    map: new PyBuiltin('tree_map', map),
  };
}
