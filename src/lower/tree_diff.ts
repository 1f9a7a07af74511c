// JAX's tree_util.equality_errors: the structural differences between two pytrees, each with the
// key path where it is (keystr), what each side is there and why they differ. lax.cond / switch
// report branch outputs of different structure with it, scan / while_loop / fori_loop a carry
// output whose structure is not the carry input's; both name leaves by key path (leafPaths).
import type { Interp } from './interp.js';
import type { Span } from '../parser/ast.js';
import { compareKeys } from './transforms.js';
import { PyDict, PyInstance, PyList, PyTuple, type PyValue } from './values.js';

export interface TreeDifference {
  /** keystr of the key path to the node where the trees differ ('' at the root). */
  path: string;
  thing1: string;
  thing2: string;
  explanation: string;
}

/** One level of a pytree node: its type's text, its children with their keys (keystr of one entry), its metadata. */
interface Node {
  type: string;
  /** A list's or tuple's type name (its length is then compared first). */
  sequence: string | null;
  children: PyValue[];
  keys: string[];
  /** The keys equality_errors names the children by: JAX 0.10's flatten_one_level_with_keys names every field of a namedtuple after its first. */
  diffKeys: string[];
  /** The keys that a difference of key sets lists (dict keys, flattened indices), as repr shows them. */
  keyReprs: string[] | null;
  meta: string;
}

function nodeOf(ip: Interp, x: PyValue, span: Span): Node | null {
  const repr = (v: PyValue): string => ip.repr(v, span).static ?? '…';
  if (x === null) return { type: "<class 'NoneType'>", sequence: null, children: [], keys: [], diffKeys: [], keyReprs: null, meta: 'None' };
  if (x instanceof PyTuple || x instanceof PyList) {
    const named = x instanceof PyTuple ? x.cls : undefined;
    const keys = named ? named.fields.map((f) => `.${f}`) : x.items.map((_, i) => `[${i}]`);
    const type = named ? repr(named) : x instanceof PyList ? "<class 'list'>" : "<class 'tuple'>";
    const diffKeys = named ? keys.map(() => keys[0]!) : keys;
    return { type, sequence: named ? named.name : x instanceof PyList ? 'list' : 'tuple', children: x.items, keys, diffKeys, keyReprs: null, meta: named ? type : 'None' };
  }
  if (x instanceof PyDict) {
    const ks = x.keys().sort(compareKeys);
    const shown = ks.map(repr);
    const keys = shown.map((k) => `[${k}]`);
    return { type: "<class 'dict'>", sequence: null, children: ks.map((k) => x.get(k)!), keys, diffKeys: keys, keyReprs: shown, meta: `(${shown.join(', ')}${shown.length === 1 ? ',' : ''})` };
  }
  if (x instanceof PyInstance && x.cls.pytree) {
    const { children, aux, keys: given } = x.cls.pytree.flatten(x);
    const idx = children.map((_, i) => String(i));
    const keys = given ? given.map((k) => ip.str(k, span).static ?? '') : idx.map((i) => `[<flat index ${i}>]`);
    return { type: repr(x.cls), sequence: null, children, keys, diffKeys: keys, keyReprs: idx, meta: repr(aux) };
  }
  return null;
}

/**
 * equality_errors(t1, t2): where and how the structures of two pytrees differ; `leaf` is what a
 * leaf is called (JAX shows the type of the values it compares: `pytree leaf`, `<class 'jax._src.core.ShapedArray'>`).
 */
export function equalityErrors(ip: Interp, t1: PyValue, t2: PyValue, leaf: string, span: Span): TreeDifference[] {
  const out: TreeDifference[] = [];
  const walk = (path: string, a: PyValue, b: PyValue): void => {
    const n1 = nodeOf(ip, a, span);
    const n2 = nodeOf(ip, b, span);
    if (!n1 && !n2) return;
    const type1 = n1?.type ?? leaf;
    const type2 = n2?.type ?? leaf;
    if (!n1 || !n2 || type1 !== type2) {
      out.push({ path, thing1: type1, thing2: type2, explanation: 'their Python types differ' });
      return;
    }
    if (n1.sequence !== null && n1.children.length !== n2.children.length) {
      out.push({ path, thing1: `${n1.sequence} of length ${n1.children.length}`, thing2: `${n2.sequence} of length ${n2.children.length}`, explanation: 'the lengths do not match' });
      return;
    }
    if (n1.children.length !== n2.children.length) {
      const k1 = n1.keyReprs ?? [];
      const k2 = n2.keyReprs ?? [];
      const diff = [...k1.filter((k) => !k2.includes(k)), ...k2.filter((k) => !k1.includes(k))].join(' ');
      const children = (n: number): string => `${n} child${n > 1 ? 'ren' : ''}`;
      out.push({
        path,
        thing1: `${type1} with ${children(n1.children.length)}`,
        thing2: `${type2} with ${children(n2.children.length)}`,
        explanation: `the numbers of children do not match${diff ? `, with the symmetric difference of key sets: {${diff}}` : ''}`,
      });
      return;
    }
    if (n1.meta !== n2.meta) {
      out.push({ path, thing1: `${type1} with pytree metadata ${n1.meta}`, thing2: `${type2} with pytree metadata ${n2.meta}`, explanation: 'the pytree node metadata does not match' });
      return;
    }
    n1.children.forEach((c, i) => walk(path + n1.diffKeys[i]!, c, n2.children[i]!));
  };
  walk('', t1, t2);
  return out;
}

/** keystr of each leaf's key path, in flattening order. */
export function leafPaths(ip: Interp, t: PyValue, span: Span): string[] {
  const out: string[] = [];
  const walk = (path: string, x: PyValue): void => {
    const n = nodeOf(ip, x, span);
    if (!n) out.push(path);
    else n.children.forEach((c, i) => walk(path + n.keys[i]!, c));
  };
  walk('', t);
  return out;
}
