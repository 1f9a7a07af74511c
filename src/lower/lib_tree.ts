// jax.tree and jax.tree_util: pytrees as JAX 0.10.2 has them. Flattening
// (dicts in sorted key order, lists, tuples, NamedTuples, None as an empty
// subtree, registered classes, `is_leaf`), treedefs (PyTreeDef, printed as
// JAX prints them), key paths (DictKey, SequenceKey, GetAttrKey,
// FlattenedIndexKey, keystr), map/reduce/all/transpose with JAX's structure
// errors, the registration functions, and jax.tree_util.Partial.
import { dataclassField } from './classes.js';
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import type { Interp } from './interp.js';
import { arg, builtinModule } from './modules.js';
import { iterate, truthyStatic } from './expr.js';
import { getAttr } from './attrs.js';
import { Text } from './text.js';
import { ndiffLines } from './ndiff.js';
import { allOf } from './lib_python.js';
import { staticEquals } from './pyops.js';
import { PyTreeDef, childrenOf, numLeaves, numNodes, type TreeNode } from './treedef.js';
import {
  PyBoundMethod, PyBuiltin, PyClass, PyDict, PyInstance, PyList, PyNativeMethod, PyTuple, PyUserClass, isArray, typeName,
  type CallArgs, type PyModule, type PyValue,
} from './values.js';

type Fn = (c: CallArgs) => PyValue;

const noKw = (): Map<string, PyValue> => new Map();

/** One level of a pytree: its children, their key-path entries, the node they make, and its metadata (for errors). */
interface Level {
  children: PyValue[];
  keys: () => PyValue[];
  node: (children: TreeNode[]) => TreeNode;
}

/** The four key-path entry classes: frozen dataclasses with one field, printed by str() as keystr prints them. */
interface KeyClasses {
  dict: PyUserClass;
  seq: PyUserClass;
  attr: PyUserClass;
  flat: PyUserClass;
}

/** jax.tree / jax.tree_util, and jax.tree_map (the same map). */
export function treeModules(ip: Interp): { tree: PyModule; treeUtil: PyModule; map: PyBuiltin } {
  const call = (f: PyValue, args: PyValue[], span: Span): PyValue => ip.call(f, { args, kwargs: noKw(), span });
  const repr = (v: PyValue, span: Span): string => ip.repr(v, span).static ?? '…';
  const str = (v: PyValue, span: Span): string => ip.str(v, span).static ?? '…';

  // ------------------------------------------------------------ key paths
  const keyClass = (name: string, field: string, show: (v: PyValue, span: Span) => string): PyUserClass => {
    const cls = new PyUserClass(name, [], 'jax.tree_util');
    cls.dataclass = { fields: [field], defaults: new Map(), frozen: true, eq: true, repr: true };
    cls.attrs.set('__str__', new PyNativeMethod('__str__', (self, c) => show((self as PyInstance).attrs.get(field) ?? null, c.span)));
    return cls;
  };
  const K: KeyClasses = {
    dict: keyClass('DictKey', 'key', (v, span) => `[${repr(v, span)}]`),
    seq: keyClass('SequenceKey', 'idx', (v, span) => `[${str(v, span)}]`),
    attr: keyClass('GetAttrKey', 'name', (v, span) => `.${str(v, span)}`),
    flat: keyClass('FlattenedIndexKey', 'key', (v, span) => `[<flat index ${str(v, span)}>]`),
  };
  const key = (cls: PyUserClass, v: PyValue): PyInstance => {
    const k = new PyInstance(cls);
    k.attrs.set(cls.dataclass!.fields[0]!, v);
    return k;
  };
  /** The value a key entry names (keystr(simple=True) prints it). */
  const keyValue = (k: PyValue): PyValue | undefined =>
    k instanceof PyInstance && Object.values(K).includes(k.cls) ? k.attrs.get(k.cls.dataclass!.fields[0]!) : undefined;

  // ------------------------------------------------------------ flattening
  const sortedKeys = (d: PyDict, span: Span): PyValue[] => {
    const keys = d.keys();
    const num = (k: PyValue): boolean => typeof k === 'bigint' || typeof k === 'number' || typeof k === 'boolean';
    if (!(keys.every(num) || keys.every((k) => typeof k === 'string'))) {
      throw new CompileError('ValueError: Comparator raised exception while sorting pytree dictionary keys.', span);
    }
    return keys.sort((a, b) => (num(a) ? Number(a) - Number(b) : (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0));
  };

  /** One level of `x`, or null when `x` is a leaf. */
  const level = (x: PyValue, span: Span): Level | null => {
    if (x === null) return { children: [], keys: () => [], node: () => ({ kind: 'none' }) };
    if (x instanceof PyTuple && x.cls) {
      const cls = x.cls;
      return { children: x.items, keys: () => cls.fields.map((f) => key(K.attr, f)), node: (children) => ({ kind: 'namedtuple', cls, children }) };
    }
    if (x instanceof PyTuple || x instanceof PyList) {
      const kind = x instanceof PyList ? 'list' : 'tuple';
      return { children: x.items, keys: () => x.items.map((_, i) => key(K.seq, BigInt(i))), node: (children) => ({ kind, children }) };
    }
    if (x instanceof PyDict) {
      const keys = sortedKeys(x, span);
      return { children: keys.map((k) => x.get(k)!), keys: () => keys.map((k) => key(K.dict, k)), node: (children) => ({ kind: 'dict', keys, children }) };
    }
    if (x instanceof PyInstance && x.cls.pytree) {
      const cls = x.cls;
      const { children, aux, keys } = cls.pytree!.flatten(x);
      return { children, keys: () => keys ?? children.map((_, i) => key(K.flat, BigInt(i))), node: (cs) => ({ kind: 'custom', cls, aux, children: cs }) };
    }
    return null;
  };

  interface Flat {
    leaves: PyValue[];
    paths: PyValue[][];
    node: TreeNode;
  }
  const flattenTree = (x: PyValue, isLeaf: PyValue, span: Span, withPaths = false): Flat => {
    const leaves: PyValue[] = [];
    const paths: PyValue[][] = [];
    const walk = (v: PyValue, path: PyValue[]): TreeNode => {
      const l = isLeaf !== null && truthyStatic(ip, call(isLeaf, [v], span), span) ? null : level(v, span);
      if (!l) {
        leaves.push(v);
        paths.push(path);
        return { kind: 'leaf' };
      }
      const keys = withPaths ? l.keys() : null;
      return l.node(l.children.map((c, i) => walk(c, keys ? [...path, keys[i]!] : path)));
    };
    const node = walk(x, []);
    return { leaves, paths, node };
  };

  const unflattenTree = (node: TreeNode, leaves: PyValue[], span: Span): PyValue => {
    const want = numLeaves(node);
    if (leaves.length < want) throw new CompileError(`ValueError: Too few leaves for PyTreeDef; expected ${want}, got ${leaves.length}`, span);
    if (leaves.length > want) throw new CompileError(`ValueError: Too many leaves for PyTreeDef; expected ${want}.`, span);
    let i = 0;
    const build = (n: TreeNode): PyValue => {
      switch (n.kind) {
        case 'leaf': return leaves[i++]!;
        case 'none': return null;
        case 'tuple': return new PyTuple(n.children.map(build));
        case 'list': return new PyList(n.children.map(build));
        case 'namedtuple': return new PyTuple(n.children.map(build), n.cls);
        case 'dict': {
          const d = new PyDict();
          n.children.forEach((c, j) => d.set(n.keys[j]!, build(c)));
          return d;
        }
        case 'custom': return n.cls.pytree!.unflatten(n.aux, n.children.map(build));
      }
    };
    return build(node);
  };

  const nodeText = (n: TreeNode, span: Span): string => {
    const list = (cs: TreeNode[]): string => cs.map((c) => nodeText(c, span)).join(', ');
    switch (n.kind) {
      case 'leaf': return '*';
      case 'none': return 'None';
      case 'tuple': return `(${list(n.children)}${n.children.length === 1 ? ',' : ''})`;
      case 'list': return `[${list(n.children)}]`;
      case 'dict': return `{${n.children.map((c, i) => `${repr(n.keys[i]!, span)}: ${nodeText(c, span)}`).join(', ')}}`;
      case 'namedtuple': return `CustomNode(namedtuple[${n.cls.name}], [${list(n.children)}])`;
      // the aux data as str() writes it (JAX's PyTreeDef repr: a str name unquoted, a tuple's items repr'd)
      case 'custom': return `CustomNode(${n.cls.name}[${str(n.aux, span)}], [${list(n.children)}])`;
    }
  };
  const treedefText = (t: PyTreeDef, span: Span): string => `PyTreeDef(${nodeText(t.node, span)})`;

  /** The subtrees of `tree` at the leaves of `node` (treedef.flatten_up_to), with the C++ pytree's errors. */
  const flattenUpTo = (node: TreeNode, tree: PyValue, span: Span): PyValue[] => {
    const out: PyValue[] = [];
    const fail = (msg: string): never => {
      throw new CompileError(`ValueError: ${msg}`, span);
    };
    const walk = (n: TreeNode, x: PyValue): void => {
      switch (n.kind) {
        case 'leaf':
          out.push(x);
          return;
        case 'none':
          if (x !== null) {
            fail(`Expected None, got ${repr(x, span)}.\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a tree-prefix of non-None values. To obtain the previous behavior, you can usually write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)`);
          }
          return;
        case 'tuple':
        case 'list': {
          const ok = n.kind === 'list' ? x instanceof PyList : x instanceof PyTuple && !x.cls;
          if (!ok) fail(`Expected ${n.kind}, got ${repr(x, span)}.`);
          const items = (x as PyList | PyTuple).items;
          if (items.length !== n.children.length) fail(`${n.kind === 'list' ? 'List' : 'Tuple'} arity mismatch: ${items.length} != ${n.children.length}; ${n.kind}: ${repr(x, span)}.`);
          n.children.forEach((c, i) => walk(c, items[i]!));
          return;
        }
        case 'namedtuple': {
          if (!(x instanceof PyTuple && x.cls)) fail(`Expected named tuple, got ${repr(x, span)}.`);
          const t = x as PyTuple;
          if (t.cls !== n.cls) fail(`Named tuple type mismatch: expected type: ${n.cls.name}, tuple: ${repr(x, span)}.`);
          n.children.forEach((c, i) => walk(c, t.items[i]!));
          return;
        }
        case 'dict': {
          if (!(x instanceof PyDict)) fail(`Expected dict, got ${repr(x, span)}.`);
          const d = x as PyDict;
          const keys = sortedKeys(d, span);
          if (keys.length !== n.keys.length || !keys.every((k, i) => staticEquals(k, n.keys[i]!))) {
            fail(`Dict key mismatch; expected keys: ${repr(new PyList(n.keys), span)}; present keys: ${repr(new PyList(keys), span)}.`);
          }
          n.children.forEach((c, i) => walk(c, d.get(n.keys[i]!)!));
          return;
        }
        case 'custom': {
          if (!(x instanceof PyInstance && x.cls === n.cls)) fail(`Custom node type mismatch; expected type: <class '${n.cls.qualName}'>; value: ${repr(x, span)}.`);
          const { children, aux } = n.cls.pytree!.flatten(x);
          if (!staticEquals(aux, n.aux)) fail(`Mismatch custom node data: ${repr(n.aux, span)} != ${repr(aux, span)}; value: ${repr(x, span)}.`);
          if (children.length !== n.children.length) fail(`Custom type arity mismatch: ${children.length} != ${n.children.length}; value: ${repr(x, span)}.`);
          n.children.forEach((c, i) => walk(c, children[i]!));
        }
      }
    };
    walk(node, tree);
    return out;
  };

  // ------------------------------------------------------------ structure errors (jax._src.tree_util._prefix_error)
  const typeOf = (v: PyValue, span: Span): PyValue => call(ip.builtins.lookup('type')!, [v], span);
  const sameType = (a: PyValue, b: PyValue): boolean => {
    if (a instanceof PyInstance || b instanceof PyInstance) return a instanceof PyInstance && b instanceof PyInstance && a.cls === b.cls;
    if (a instanceof PyTuple && b instanceof PyTuple) return a.cls === b.cls;
    if (isArray(a) || isArray(b)) return isArray(a) && isArray(b);
    return typeName(a) === typeName(b);
  };
  const keystrOf = (path: PyValue[], span: Span): string => path.map((k) => str(k, span)).join('');
  const prefixError = (path: PyValue[], prefix: PyValue, full: PyValue, isLeaf: PyValue, span: Span): string | null => {
    const flat = flattenTree(prefix, isLeaf, span);
    if (flat.node.kind === 'leaf') return null;
    const name = 'tree_map tree';
    const at = `    ${name}${keystrOf(path, span)}\n`;
    const tp = (v: PyValue): string => repr(typeOf(v, span), span);
    if (!sameType(prefix, full)) {
      return `pytree structure error: different types at key path\n${at}At that key path, the prefix pytree ${name} has a subtree of type\n    ${tp(prefix)}\nbut at the same key path the full pytree has a subtree of different type\n    ${tp(full)}.`;
    }
    const lp = level(prefix, span)!;
    const lf = level(full, span)!;
    if (prefix instanceof PyList || prefix instanceof PyTuple) {
      const n = lp.children.length;
      const m = lf.children.length;
      if (n !== m) {
        const ty = prefix instanceof PyList ? 'list' : prefix.cls ? prefix.cls.name : 'tuple';
        return `pytree structure error: different lengths of ${ty} at key path\n${at}At that key path, the prefix pytree ${name} has a subtree of type ${ty} of length ${n}, but the full pytree has a subtree of the same type but of length ${m}.`;
      }
    } else if (lp.children.length !== lf.children.length) {
      const shown = (ks: PyValue[]): string[] => ks.map((k) => str(keyValue(k) ?? k, span));
      const a = shown(lp.keys());
      const b = shown(lf.keys());
      const diff = [...b.filter((k) => !a.includes(k)), ...a.filter((k) => !b.includes(k))];
      return `pytree structure error: different numbers of pytree children at key path\n${at}At that key path, the prefix pytree ${name} has a subtree of type\n    ${tp(prefix)}\nwith ${a.length} child keys\n    ${a.join(' ')}\nbut at the same key path the full pytree has a subtree of the same type but with ${b.length} child keys\n    ${b.join(' ')}\nso the symmetric difference on key sets is\n    ${diff.join(' ')}`;
    }
    const metaOf = (v: PyValue): PyValue => (v instanceof PyDict ? new PyTuple(sortedKeys(v, span)) : v instanceof PyInstance && v.cls.pytree ? v.cls.pytree.flatten(v).aux : null);
    const mp = metaOf(prefix);
    const mf = metaOf(full);
    if (!staticEquals(mp, mf)) {
      const sp = str(mp, span);
      const sf = str(mf, span);
      return `pytree structure error: different pytree metadata at key path\n${at}At that key path, the prefix pytree ${name} has a subtree of type\n    ${tp(prefix)}\nwith metadata\n    ${sp}\nbut at the same key path the full pytree has a subtree of the same type but with metadata\n    ${sf}\nso the diff in the metadata at these pytree nodes is\n${indent(ndiffLines(sp, sf).join('\n'))}`;
    }
    const keys = lp.keys();
    for (let i = 0; i < lp.children.length; i++) {
      const e = prefixError([...path, keys[i]!], lp.children[i]!, lf.children[i]!, null, span);
      if (e) return e;
    }
    return null;
  };

  // ------------------------------------------------------------ the API
  const isLeafOf = (c: CallArgs): PyValue => c.kwargs.get('is_leaf') ?? null;
  const treedefArg = (v: PyValue, what: string, span: Span): PyTreeDef => {
    if (!(v instanceof PyTreeDef)) throw new CompileError(`TypeError: ${what} must be a PyTreeDef, got ${typeName(v)}`, span);
    return v;
  };
  const pathTuple = (p: PyValue[]): PyTuple => new PyTuple(p);

  /** map / map_with_path: `f` of the leaves of `tree` and the matching subtrees of `rest`. */
  const mapOver = (f: PyValue, tree: PyValue, rest: PyValue[], isLeaf: PyValue, span: Span, withPath: boolean): PyValue => {
    const flat = flattenTree(tree, isLeaf, span, withPath);
    const others = rest.map((r) => {
      try {
        return flattenUpTo(flat.node, r, span);
      } catch (e) {
        if (!(e instanceof CompileError)) throw e;
        const err = prefixError([], tree, r, isLeaf, span);
        throw err ? new CompileError(`ValueError: ${err}`, span) : e;
      }
    });
    const out = flat.leaves.map((l, i) => call(f, [...(withPath ? [pathTuple(flat.paths[i]!)] : []), l, ...others.map((o) => o[i]!)], span));
    return unflattenTree(flat.node, out, span);
  };
  const map: Fn = (c) => {
    if (c.args.length < 2 && !c.kwargs.has('tree')) throw new CompileError("TypeError: map() missing 1 required positional argument: 'tree'", c.span);
    return mapOver(arg(c, 0, 'f'), arg(c, 1, 'tree'), c.args.slice(2), isLeafOf(c), c.span, false);
  };
  const mapWithPath: Fn = (c) => mapOver(arg(c, 0, 'f'), arg(c, 1, 'tree'), c.args.slice(2), isLeafOf(c), c.span, true);
  const leaves: Fn = (c) => new PyList(flattenTree(arg(c, 0, 'tree'), arg(c, 1, 'is_leaf', null), c.span).leaves);
  const structure: Fn = (c) => new PyTreeDef(flattenTree(arg(c, 0, 'tree'), arg(c, 1, 'is_leaf', null), c.span).node);
  const flatten: Fn = (c) => {
    const f = flattenTree(arg(c, 0, 'tree'), arg(c, 1, 'is_leaf', null), c.span);
    return new PyTuple([new PyList(f.leaves), new PyTreeDef(f.node)]);
  };
  const unflatten: Fn = (c) => unflattenTree(treedefArg(arg(c, 0, 'treedef'), 'treedef', c.span).node, iterate(ip, arg(c, 1, 'leaves'), c.span), c.span);
  const withPaths = (c: CallArgs): Flat => flattenTree(arg(c, 0, 'tree'), arg(c, 1, 'is_leaf', null), c.span, true);
  const pairs = (f: Flat): PyList => new PyList(f.leaves.map((l, i) => new PyTuple([pathTuple(f.paths[i]!), l])));
  const flattenWithPath: Fn = (c) => {
    const f = withPaths(c);
    return new PyTuple([pairs(f), new PyTreeDef(f.node)]);
  };
  const leavesWithPath: Fn = (c) => pairs(withPaths(c));
  const reduce: Fn = (c) => {
    const f = arg(c, 0, 'function');
    const ls = flattenTree(arg(c, 1, 'tree'), arg(c, 3, 'is_leaf', null), c.span).leaves;
    const init = c.args.length > 2 ? c.args[2]! : c.kwargs.get('initializer');
    if (init === undefined && !ls.length) throw new CompileError('TypeError: reduce() of empty iterable with no initial value', c.span);
    let acc = init === undefined ? ls[0]! : init;
    for (const l of init === undefined ? ls.slice(1) : ls) acc = call(f, [acc, l], c.span);
    return acc;
  };
  // jax.tree.reduce_associative: the leaves reduced as a balanced binary tree (JAX's _parallel_reduce)
  const reduceAssociative: Fn = (c) => {
    const f = arg(c, 0, 'operation');
    const ls = flattenTree(arg(c, 1, 'tree'), c.kwargs.get('is_leaf') ?? null, c.span).leaves;
    const identity = c.kwargs.get('identity');
    const par = (seq: PyValue[]): PyValue => {
      if (!seq.length) {
        if (identity === undefined) throw new CompileError('TypeError: Must specify identity for parallel reduction of empty sequence.', c.span);
        return identity;
      }
      if (seq.length === 1) return seq[0]!;
      const i = Math.floor(seq.length / 2);
      const a = par(seq.slice(0, i));
      const b = par(seq.slice(i));
      return call(f, [a, b], c.span);
    };
    return par(ls);
  };
  // jax.tree.broadcast: each leaf of the prefix tree repeated over the subtree of full_tree it stands for
  const broadcast: Fn = (c) => {
    const isLeaf = arg(c, 2, 'is_leaf', null);
    const full = arg(c, 1, 'full_tree');
    const pf = flattenTree(arg(c, 0, 'prefix_tree'), isLeaf, c.span);
    const subtrees = flattenUpTo(pf.node, full, c.span);
    const leaves = pf.leaves.flatMap((l, i) => Array<PyValue>(flattenTree(subtrees[i]!, isLeaf, c.span).leaves.length).fill(l));
    return unflattenTree(flattenTree(full, isLeaf, c.span).node, leaves, c.span);
  };
  const all: Fn = (c) => allOf(ip, flattenTree(arg(c, 0, 'tree'), isLeafOf(c), c.span).leaves, c.span);
  const transpose: Fn = (c) => {
    const outer = treedefArg(arg(c, 0, 'outer_treedef'), 'outer_treedef', c.span);
    const innerV = arg(c, 1, 'inner_treedef', null);
    const tree = arg(c, 2, 'pytree_to_transpose');
    const flat = flattenTree(tree, null, c.span);
    const inner = innerV === null ? new PyTreeDef(flattenTree(flattenUpTo(outer.node, tree, c.span)[0] ?? null, null, c.span).node) : treedefArg(innerV, 'inner_treedef', c.span);
    const ni = numLeaves(inner.node);
    const no = numLeaves(outer.node);
    if (flat.leaves.length !== ni * no) {
      const expected = compose(outer.node, inner.node);
      throw new CompileError(`TypeError: Mismatch\n${treedefText(new PyTreeDef(flat.node), c.span)}\n != \n${treedefText(new PyTreeDef(expected), c.span)}`, c.span);
    }
    const subtrees = Array.from({ length: ni }, (_, i) => unflattenTree(outer.node, Array.from({ length: no }, (_, o) => flat.leaves[o * ni + i]!), c.span));
    return unflattenTree(inner.node, subtrees, c.span);
  };
  const keystr: Fn = (c) => {
    const simple = truthyStatic(ip, c.kwargs.get('simple') ?? false, c.span);
    const sep = c.kwargs.get('separator') ?? '';
    if (typeof sep !== 'string') throw new CompileError('TypeError: keystr separator must be a str', c.span);
    return iterate(ip, arg(c, 0, 'keys'), c.span).map((k) => str(simple ? (keyValue(k) ?? k) : k, c.span)).join(sep);
  };

  // ------------------------------------------------------------ registration
  const pair = (v: PyValue, span: Span): { children: PyValue[]; aux: PyValue } => {
    const items = v instanceof PyTuple || v instanceof PyList ? v.items : null;
    if (!items || items.length !== 2) throw new CompileError('ValueError: a pytree flatten function must return a pair (children, aux_data)', span);
    return { children: iterate(ip, items[0]!, span), aux: items[1]! };
  };
  /** A flatten_with_keys result: ((key, child), ...) and the aux data. */
  const keyedPair = (v: PyValue, span: Span): { children: PyValue[]; aux: PyValue; keys: PyValue[] } => {
    const { children: kc, aux } = pair(v, span);
    const kv = kc.map((x) => {
      const it = x instanceof PyTuple || x instanceof PyList ? x.items : null;
      if (!it || it.length !== 2) throw new CompileError('ValueError: flatten_with_keys must return ((key, child), ...) pairs', span);
      return it as [PyValue, PyValue];
    });
    return { children: kv.map(([, ch]) => ch), aux, keys: kv.map(([k]) => k) };
  };
  const registered = (c: CallArgs): PyUserClass => {
    const cls = arg(c, 0, 'nodetype');
    if (!(cls instanceof PyUserClass)) throw new CompileError(`registering a ${typeName(cls)} as a pytree node is not supported (only classes the program defines)`, c.span);
    if (cls.pytree) throw new CompileError(`ValueError: Duplicate custom PyTreeDef type registration for <class '${cls.qualName}'>.`, c.span);
    return cls;
  };
  const children = (t: PyValue): PyTuple => new PyTuple(t instanceof PyTuple || t instanceof PyList ? t.items : []);
  // register_pytree_node(cls, flatten_func, unflatten_func)
  const registerNode: Fn = (c) => {
    const cls = registered(c);
    const fl = arg(c, 1, 'flatten_func');
    const unfl = arg(c, 2, 'unflatten_func');
    cls.pytree = { flatten: (v) => pair(call(fl, [v], c.span), c.span), unflatten: (aux, ch) => call(unfl, [aux, new PyTuple(ch)], c.span) };
    return null;
  };
  // register_pytree_with_keys(cls, flatten_with_keys, unflatten_func, flatten_func=None)
  const registerWithKeys: Fn = (c) => {
    const cls = registered(c);
    const fl = arg(c, 1, 'flatten_with_keys');
    const unfl = arg(c, 2, 'unflatten_func');
    cls.pytree = { flatten: (v) => keyedPair(call(fl, [v], c.span), c.span), unflatten: (aux, ch) => call(unfl, [aux, new PyTuple(ch)], c.span) };
    return null;
  };
  // @register_pytree_node_class / @register_pytree_with_keys_class: the class's tree_flatten(_with_keys) method and tree_unflatten classmethod
  const registerClass = (keyed: boolean): Fn => (c) => {
    const cls = registered(c);
    cls.pytree = {
      flatten: (v) => {
        const r = call(getAttr(ip, v, keyed ? 'tree_flatten_with_keys' : 'tree_flatten', c.span), [], c.span);
        return keyed ? keyedPair(r, c.span) : pair(r, c.span);
      },
      unflatten: (aux, ch) => call(getAttr(ip, cls, 'tree_unflatten', c.span), [aux, new PyTuple(ch)], c.span),
    };
    return cls;
  };
  // register_dataclass(cls, data_fields, meta_fields): the data fields are children (keyed by attribute), the meta fields aux data
  const registerDataclass: Fn = (c) => {
    const cls = registered(c);
    const names = (v: PyValue | undefined): string[] => (v === undefined || v === null ? [] : iterate(ip, v, c.span).map((x) => String(x)));
    const data = names(c.args[1] ?? c.kwargs.get('data_fields'));
    const meta = names(c.args[2] ?? c.kwargs.get('meta_fields'));
    const explicit = c.args.length > 1 || c.kwargs.has('data_fields');
    // without field lists, a dataclass's fields declared static (jax.tree.static) are the meta fields, the rest data
    const isMeta = (f: string): boolean => cls.dataclass?.staticFields?.has(f) === true;
    const fields = explicit ? data : (cls.dataclass?.fields ?? []).filter((f) => !isMeta(f));
    if (!explicit) meta.push(...(cls.dataclass?.fields ?? []).filter(isMeta));
    if (!explicit && !cls.dataclass) throw new CompileError('TypeError: register_dataclass: data_fields and meta_fields are required when nodetype is not a dataclass', c.span);
    cls.pytree = {
      flatten: (v) => ({ children: fields.map((f) => getAttr(ip, v, f, c.span)), aux: new PyTuple(meta.map((f) => getAttr(ip, v, f, c.span))), keys: fields.map((f) => key(K.attr, f)) }),
      unflatten: (aux, ch) => {
        const kw = new Map<string, PyValue>();
        fields.forEach((f, i) => kw.set(f, ch[i]!));
        meta.forEach((f, i) => kw.set(f, (aux as PyTuple).items[i]!));
        return ip.call(cls, { args: [], kwargs: kw, span: c.span });
      },
    };
    return cls;
  };
  // register_static(cls): instances are treedef nodes with no children; the instance itself is the aux data
  const registerStatic: Fn = (c) => {
    const cls = registered(c);
    cls.pytree = { flatten: (v) => ({ children: [], aux: v }), unflatten: (aux) => aux };
    return cls;
  };

  // ------------------------------------------------------------ Partial: functools.partial as a pytree (args and keywords are its children)
  const partial = new PyUserClass('Partial', [], 'jax.tree_util');
  partial.attrs.set('__init__', new PyNativeMethod('__init__', (self, c) => {
    const s = self as PyInstance;
    s.attrs.set('func', arg(c, 0, 'func'));
    s.attrs.set('args', new PyTuple(c.args.slice(1)));
    const kw = new PyDict();
    c.kwargs.forEach((v, k) => kw.set(k, v));
    s.attrs.set('keywords', kw);
    return null;
  }));
  partial.attrs.set('__call__', new PyNativeMethod('__call__', (self, c) => {
    const s = self as PyInstance;
    const kwargs = new Map<string, PyValue>();
    (s.attrs.get('keywords') as PyDict).entries.forEach(([k, v]) => kwargs.set(String(k), v));
    c.kwargs.forEach((v, k) => kwargs.set(k, v));
    return ip.call(s.attrs.get('func')!, { args: [...(s.attrs.get('args') as PyTuple).items, ...c.args], kwargs, span: c.span });
  }));
  partial.attrs.set('__repr__', new PyNativeMethod('__repr__', (self, c) => {
    const s = self as PyInstance;
    const parts = [repr(s.attrs.get('func')!, c.span), ...(s.attrs.get('args') as PyTuple).items.map((a) => repr(a, c.span))];
    (s.attrs.get('keywords') as PyDict).entries.forEach(([k, v]) => parts.push(`${String(k)}=${repr(v, c.span)}`));
    return `Partial(${parts.join(', ')})`;
  }));
  partial.pytree = {
    flatten: (v) => ({ children: [(v as PyInstance).attrs.get('args')!, (v as PyInstance).attrs.get('keywords')!], aux: (v as PyInstance).attrs.get('func')! }),
    unflatten: (aux, ch) => {
      const p = new PyInstance(partial);
      p.attrs.set('func', aux);
      p.attrs.set('args', children(ch[0]!));
      p.attrs.set('keywords', ch[1] instanceof PyDict ? ch[1] : new PyDict());
      return p;
    },
  };

  const registration = {
    register_pytree_node: registerNode,
    register_pytree_with_keys: registerWithKeys,
    register_pytree_node_class: registerClass(false),
    register_pytree_with_keys_class: registerClass(true),
    register_dataclass: registerDataclass,
    register_static: registerStatic,
  };
  const keyEntries = { DictKey: K.dict, SequenceKey: K.seq, GetAttrKey: K.attr, FlattenedIndexKey: K.flat, keystr, Partial: partial, PyTreeDef: new PyClass('PyTreeDef', [], new Map(), 'marker', 'jaxlib._jax.pytree') };
  // ------------------------------------------------------------ one level
  /** flatten_one_level(tree) / flatten_one_level_with_keys(tree): the children of one node (as JAX's registry gives them) and its metadata. */
  const oneLevel = (withKeys: boolean) => (c: CallArgs): PyValue => {
    const x = arg(c, 0, 'tree');
    const l = level(x, c.span);
    if (!l) throw new CompileError(`ValueError: can't tree-flatten type: <class '${typeName(x)}'>`, c.span);
    const keys = withKeys ? l.keys() : null;
    const kids = keys ? l.children.map((ch, i) => new PyTuple([keys[i]!, ch])) : l.children;
    const node = l.node(l.children.map(() => ({ kind: 'leaf' })));
    switch (node.kind) {
      case 'list': return new PyTuple([keys ? new PyTuple(kids) : x, null]);
      case 'namedtuple': return new PyTuple([new PyList(kids), node.cls]);
      case 'dict': return new PyTuple([new PyTuple(kids), new PyTuple(node.keys)]);
      case 'custom': return new PyTuple([new PyTuple(kids), node.aux]);
      default: return new PyTuple([new PyTuple(kids), null]);
    }
  };
  /** is_tree_node(typ): whether instances of the type are pytree nodes (built-in containers, namedtuples, registered classes). */
  const isTreeNode = (c: CallArgs): boolean => {
    const t = arg(c, 0, 'typ');
    if (t instanceof PyBuiltin) return ['list', 'tuple', 'dict', 'NoneType', 'OrderedDict', 'defaultdict'].includes(t.name);
    if (t instanceof PyClass) return t.kind === 'namedtuple' || t.name === 'NoneType';
    if (t instanceof PyUserClass) return t.pytree !== null;
    return false;
  };

  const treedefOps = {
    treedef_is_leaf: (c: CallArgs) => numNodes(treedefArg(arg(c, 0, 'treedef'), 'treedef', c.span).node) === 1,
    treedef_tuple: (c: CallArgs) => new PyTreeDef({ kind: 'tuple', children: iterate(ip, arg(c, 0, 'treedefs'), c.span).map((t) => treedefArg(t, 'treedefs', c.span).node) }),
    treedef_children: (c: CallArgs) => new PyList(childrenOf(treedefArg(arg(c, 0, 'treedef'), 'treedef', c.span).node).map((n) => new PyTreeDef(n))),
    all_leaves: (c: CallArgs) => iterate(ip, arg(c, 0, 'iterable'), c.span).every((x) => flattenTree(x, arg(c, 1, 'is_leaf', null), c.span).node.kind === 'leaf'),
  };
  // jax.tree.static(**kwargs): dataclasses.field(metadata={'static': True, ...}, **kwargs)
  const staticField = (c: CallArgs): PyValue => {
    const meta = new PyDict();
    meta.set('static', true);
    const kw = new Map(c.kwargs);
    kw.set('metadata', meta);
    return dataclassField({ ...c, kwargs: kw });
  };
  const entries = { map, leaves, structure, static: staticField, flatten, unflatten, reduce, reduce_associative: reduceAssociative, broadcast, all, transpose, flatten_with_path: flattenWithPath, leaves_with_path: leavesWithPath, map_with_path: mapWithPath };
  treeHooks.set(ip, { text: treedefText, unflatten: unflattenTree, flattenUpTo });
  return {
    tree: builtinModule('jax.tree', entries),
    treeUtil: builtinModule('jax.tree_util', {
      tree_map: map,
      tree_leaves: leaves,
      tree_structure: structure,
      tree_flatten: flatten,
      tree_unflatten: unflatten,
      tree_reduce: reduce,
      tree_reduce_associative: reduceAssociative,
      tree_broadcast: broadcast,
      tree_all: all,
      tree_transpose: transpose,
      tree_flatten_with_path: flattenWithPath,
      tree_leaves_with_path: leavesWithPath,
      tree_map_with_path: mapWithPath,
      ...treedefOps,
      flatten_one_level: oneLevel(false),
      flatten_one_level_with_keys: oneLevel(true),
      is_tree_node: isTreeNode,
      // KeyPath: JAX's type alias tuple[KeyEntry, ...] (for annotations)
      KeyPath: new PyClass('KeyPath', [], new Map(), 'marker', 'jax.tree_util'),
      ...registration,
      ...keyEntries,
    }),
    map: new PyBuiltin('tree_map', map),
  };
}

/** textwrap.indent(text, '    '): every line that is not blank. */
const indent = (text: string): string => text.split('\n').map((l) => (l.trim() ? `    ${l}` : l)).join('\n');

/** outer ∘ inner: every leaf of `outer` replaced by `inner` (treedef.compose). */
function compose(outer: TreeNode, inner: TreeNode): TreeNode {
  switch (outer.kind) {
    case 'leaf': return inner;
    case 'none': return outer;
    default: return { ...outer, children: outer.children.map((c) => compose(c, inner)) };
  }
}

interface TreeHooks {
  text: (t: PyTreeDef, span: Span) => string;
  unflatten: (node: TreeNode, leaves: PyValue[], span: Span) => PyValue;
  flattenUpTo: (node: TreeNode, tree: PyValue, span: Span) => PyValue[];
}
/** Per interpreter: the treedef operations the module built (treedef methods and printing reach them here). */
const treeHooks = new WeakMap<Interp, TreeHooks>();

/** `td.name` of a treedef: num_leaves, num_nodes, children(), unflatten(leaves), flatten_up_to(tree), node_data(). */
export function treedefAttr(ip: Interp, obj: PyValue, name: string): PyValue | undefined {
  if (!(obj instanceof PyTreeDef)) return undefined;
  const hooks = treeHooks.get(ip)!;
  const n = obj.node;
  switch (name) {
    case 'num_leaves': return BigInt(numLeaves(n));
    case 'num_nodes': return BigInt(numNodes(n));
    case 'children': return new PyBoundMethod(obj, name, () => new PyList(childrenOf(n).map((c) => new PyTreeDef(c))));
    case 'unflatten': return new PyBoundMethod(obj, name, (c) => hooks.unflatten(n, iterate(ip, arg(c, 0, 'leaves'), c.span), c.span));
    case 'flatten_up_to': return new PyBoundMethod(obj, name, (c) => new PyList(hooks.flattenUpTo(n, arg(c, 0, 'xs'), c.span)));
  }
  return undefined;
}

/** str()/repr() of a treedef (`PyTreeDef({'a': *, 'b': [*, *]})`); null for other values. */
export function treedefText(ip: Interp, v: PyValue, span: Span): Text | null {
  return v instanceof PyTreeDef ? Text.of(treeHooks.get(ip)!.text(v, span)) : null;
}
