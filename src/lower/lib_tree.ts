// jax.tree and jax.tree_util: map and leaves over pytrees (dicts in sorted key
// order, lists, tuples, NamedTuples); jax.tree_map is the same map.
import { CompileError } from '../common/diagnostics.js';
import type { Interp } from './interp.js';
import { arg, builtinModule } from './modules.js';
import { flatten } from './transforms.js';
import { iterate } from './expr.js';
import { getAttr } from './attrs.js';
import { PyBuiltin, PyList, PyTuple, PyUserClass, typeName, type CallArgs, type PyModule, type PyValue } from './values.js';

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
  const call = (f: PyValue, args: PyValue[], span: CallArgs['span']): PyValue => ip.call(f, { args, kwargs: new Map(), span });
  const pair = (v: PyValue, span: CallArgs['span']): { children: PyValue[]; aux: PyValue } => {
    const items = v instanceof PyTuple || v instanceof PyList ? v.items : null;
    if (!items || items.length !== 2) throw new CompileError('ValueError: a pytree flatten function must return a pair (children, aux_data)', span);
    return { children: iterate(ip, items[0]!, span), aux: items[1]! };
  };
  const registered = (c: CallArgs): PyUserClass => {
    const cls = arg(c, 0, 'nodetype');
    if (!(cls instanceof PyUserClass)) throw new CompileError(`registering a ${typeName(cls)} as a pytree node is not supported (only classes the program defines)`, c.span);
    if (cls.pytree) throw new CompileError(`ValueError: Duplicate custom PyTreeDef type registration for <class '${cls.qualName}'>.`, c.span);
    return cls;
  };
  // jax.tree_util.register_pytree_node(cls, flatten_func, unflatten_func)
  const registerNode: Fn = (c) => {
    const cls = registered(c);
    const fl = arg(c, 1, 'flatten_func');
    const unfl = arg(c, 2, 'unflatten_func');
    cls.pytree = { flatten: (v) => pair(call(fl, [v], c.span), c.span), unflatten: (aux, children) => call(unfl, [aux, new PyTuple(children)], c.span) };
    return null;
  };
  // @register_pytree_node_class: the class's tree_flatten method and tree_unflatten classmethod
  const registerClass: Fn = (c) => {
    const cls = registered(c);
    cls.pytree = {
      flatten: (v) => pair(call(getAttr(ip, v, 'tree_flatten', c.span), [], c.span), c.span),
      unflatten: (aux, children) => call(getAttr(ip, cls, 'tree_unflatten', c.span), [aux, new PyTuple(children)], c.span),
    };
    return cls;
  };
  // register_dataclass(cls, data_fields, meta_fields): the data fields are children, the meta fields aux data
  const registerDataclass: Fn = (c) => {
    const cls = registered(c);
    const names = (v: PyValue | undefined): string[] => (v === undefined || v === null ? [] : iterate(ip, v, c.span).map((x) => String(x)));
    const data = names(c.args[1] ?? c.kwargs.get('data_fields'));
    const meta = names(c.args[2] ?? c.kwargs.get('meta_fields'));
    const fields = data.length || meta.length ? data : (cls.dataclass?.fields ?? []);
    cls.pytree = {
      flatten: (v) => ({ children: fields.map((f) => getAttr(ip, v, f, c.span)), aux: new PyTuple(meta.map((f) => getAttr(ip, v, f, c.span))) }),
      unflatten: (aux, children) => {
        const kw = new Map<string, PyValue>();
        fields.forEach((f, i) => kw.set(f, children[i]!));
        meta.forEach((f, i) => kw.set(f, (aux as PyTuple).items[i]!));
        return ip.call(cls, { args: [], kwargs: kw, span: c.span });
      },
    };
    return cls;
  };
  const registration = { register_pytree_node: registerNode, register_pytree_node_class: registerClass, register_dataclass: registerDataclass };
  return {
    tree: builtinModule('jax.tree', entries),
    treeUtil: builtinModule('jax.tree_util', { tree_map: map, tree_leaves: leaves, ...registration }),
    map: new PyBuiltin('tree_map', map),
  };
}
