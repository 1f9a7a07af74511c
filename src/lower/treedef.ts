// PyTreeDef: the structure of a pytree (jax.tree.structure), as data. The
// behaviour (flattening, printing, key paths) lives in lib_tree.ts; this file
// holds only the node model and structural equality, so that `==` in pyops.ts
// can compare treedefs without importing the library layer.
import { PyObject, type PyClass, type PyUserClass, type PyValue } from './values.js';

/** One node of a treedef: a leaf, None (an empty subtree), a container, or a registered class with its aux data. */
export type TreeNode =
  | { kind: 'leaf' }
  | { kind: 'none' }
  | { kind: 'tuple' | 'list'; children: TreeNode[] }
  | { kind: 'dict'; keys: PyValue[]; children: TreeNode[] }
  | { kind: 'namedtuple'; cls: PyClass; children: TreeNode[] }
  | { kind: 'custom'; cls: PyUserClass; aux: PyValue; children: TreeNode[] };

export class PyTreeDef extends PyObject {
  readonly typeName = 'PyTreeDef';
  constructor(readonly node: TreeNode) {
    super();
  }
}

export const childrenOf = (n: TreeNode): TreeNode[] => (n.kind === 'leaf' || n.kind === 'none' ? [] : n.children);

export function numLeaves(n: TreeNode): number {
  return n.kind === 'leaf' ? 1 : childrenOf(n).reduce((a, c) => a + numLeaves(c), 0);
}

export function numNodes(n: TreeNode): number {
  return 1 + childrenOf(n).reduce((a, c) => a + numNodes(c), 0);
}

/** Whether two treedefs are the same structure (`eq` compares dict keys and aux data). */
export function nodesEqual(a: TreeNode, b: TreeNode, eq: (x: PyValue, y: PyValue) => boolean): boolean {
  if (a.kind !== b.kind) return false;
  const ca = childrenOf(a);
  const cb = childrenOf(b);
  if (ca.length !== cb.length) return false;
  if (a.kind === 'dict' && b.kind === 'dict' && !a.keys.every((k, i) => eq(k, b.keys[i]!))) return false;
  if (a.kind === 'namedtuple' && b.kind === 'namedtuple' && a.cls !== b.cls) return false;
  if (a.kind === 'custom' && b.kind === 'custom' && (a.cls !== b.cls || !eq(a.aux, b.aux))) return false;
  return ca.every((c, i) => nodesEqual(c, cb[i]!, eq));
}

/** `a == b` when either is a treedef; undefined otherwise. */
export function treedefEquals(a: PyValue, b: PyValue, eq: (x: PyValue, y: PyValue) => boolean): boolean | undefined {
  if (!(a instanceof PyTreeDef) && !(b instanceof PyTreeDef)) return undefined;
  return a instanceof PyTreeDef && b instanceof PyTreeDef && nodesEqual(a.node, b.node, eq);
}
