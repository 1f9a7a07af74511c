// Prints a Func exactly as JAX 0.10 prints a jaxpr (`print(jax.make_jaxpr(f)(x))`):
//   { lambda ; a:f32[3]. let
//       b:f32[3] = sin a
//     in (b,) }
// JAX's document layout (jax/_src/pretty_printer.py: Wadler-style groups,
// breaks and nesting, 80 columns; the C++ formatter in jaxlib), its variable
// naming (a, b, …, z, ba, … in order of first appearance), its literal text
// (`2.0:f32[]`) and the parameters each primitive shows (its pretty-printing
// rule: trivial ones hidden, sorted by name).
//
// jaxts traces constants more explicitly than JAX: a Python scalar operand is
// a `broadcast_in_dim` of a literal, `jnp.log(2.0)` converts its literal. The
// printer shows these as JAX does (a rank-0 literal operand of an elementwise
// operation; a converted literal folded), so the text is JAX's.
import { isControl, type Prim } from './prims.js';
import { shardMapParams, specAxes, specText, type Spec } from './shard_map.js';
import { bodyVma } from './vma.js';
import type { DotDims } from './primitives.js';
import { jaxPrimName, type GatherDims, type GatherMode, type ScatterDims } from './indexing.js';

/** How JAX prints each GatherScatterMode. */
const MODE_NAMES: Record<GatherMode, string> = { clip: 'CLIP', fill: 'FILL_OR_DROP', promise_in_bounds: 'PROMISE_IN_BOUNDS' };
import type { Atom, AVal, Eqn, EqnCall, Func, Lit, Var } from './types.js';
import { shortDtype } from './types.js';
import { vmaUrStr, type TypeSharding } from './sharding.js';

// ------------------------------------------------------------ documents (jax/_src/pretty_printer.py)

type Doc =
  | { k: 'text'; s: string }
  | { k: 'concat'; xs: Doc[] }
  | { k: 'brk'; s: string }
  | { k: 'group'; x: Doc }
  | { k: 'nest'; n: number; x: Doc };

const text = (s: string): Doc => ({ k: 'text', s });
const concat = (...xs: Doc[]): Doc => ({ k: 'concat', xs });
const brk = (s = ' '): Doc => ({ k: 'brk', s });
const group = (x: Doc): Doc => ({ k: 'group', x });
const nest = (n: number, x: Doc): Doc => ({ k: 'nest', n, x });
const nil: Doc = concat();

function join(sep: Doc, docs: Doc[]): Doc {
  const xs: Doc[] = [];
  docs.forEach((d, i) => {
    if (i) xs.push(sep);
    xs.push(d);
  });
  return docs.length === 1 ? docs[0]! : concat(...xs);
}

/** Does `doc` fit in `width` columns with every break flat (the group test of JAX's formatter)? */
function fits(doc: Doc, width: number): boolean {
  const agenda: Doc[] = [doc];
  let w = width;
  while (w >= 0 && agenda.length) {
    const d = agenda.pop()!;
    switch (d.k) {
      case 'text': case 'brk': w -= d.s.length; break;
      case 'concat': for (let i = d.xs.length - 1; i >= 0; i--) agenda.push(d.xs[i]!); break;
      case 'group': case 'nest': agenda.push(d.x); break;
    }
  }
  return w >= 0;
}

/** JAX's `Doc.format(width=80)`: a group is flat when it fits on the rest of the line. */
export function formatDoc(doc: Doc, width = 80): string {
  const lines: string[] = [];
  let line = '';
  const agenda: { indent: number; flat: boolean; d: Doc }[] = [{ indent: 0, flat: false, d: doc }];
  while (agenda.length) {
    const { indent, flat, d } = agenda.pop()!;
    switch (d.k) {
      case 'text': line += d.s; break;
      case 'concat': for (let i = d.xs.length - 1; i >= 0; i--) agenda.push({ indent, flat, d: d.xs[i]! }); break;
      case 'brk':
        if (flat) line += d.s;
        else {
          lines.push(line);
          line = ' '.repeat(indent);
        }
        break;
      case 'nest': agenda.push({ indent: indent + d.n, flat, d: d.x }); break;
      case 'group': agenda.push({ indent, flat: fits(d, width - line.length), d: d.x }); break;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

// ------------------------------------------------------------ values as Python shows them

/** Python's repr of a float (shortest round-trip digits; exponent form below 1e-4 and from 1e16). */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expS] = x.toExponential().split('e') as [string, string];
  const exp = Number(expS);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let s: string;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) s = `0.${'0'.repeat(-exp - 1)}${digits}`;
    else if (digits.length <= exp + 1) s = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    else s = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    s = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return (neg ? '-' : '') + s;
}

/** A parameter value as `str()` shows it in Python: tuples, None, True/False, dtypes. */
function pyValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return `(${v.map(pyValue).join(', ')}${v.length === 1 ? ',' : ''})`;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `'${k}': ${pyValue(x)}`).join(', ')}}`;
  return String(v);
}

const pyList = (v: readonly number[]): string => `[${v.join(', ')}]`;
/** A tuple of axis names: `('i',)`. */
const namesTuple = (v: readonly string[]): string => `(${v.map((n) => `'${n}'`).join(', ')}${v.length === 1 ? ',' : ''})`;

/** The parameters JAX shows for an equation (its primitive's pretty-printing rule), sorted by name, as text. */
function shownParams(e: Eqn, freshName: () => string = () => '_'): [string, string][] {
  const p = e.params;
  const out: Record<string, string> = {};
  const put = (k: string, def?: unknown): void => {
    const v = k in p ? p[k] : def ?? null;
    // axes a batching rule computed with NumPy print as np.int64 (Eqn.numpyParams)
    if (e.numpyParams && (k === 'axes' || k === 'broadcast_dimensions') && Array.isArray(v)) {
      const lead = e.numpyPlainLead ?? 0;
      out[k] = `(${v.map((d, i) => (i < lead ? String(d) : `np.int64(${String(d)})`)).join(', ')}${v.length === 1 ? ',' : ''})`;
    } else out[k] = pyValue(v);
  };
  switch (e.prim as Prim) {
    case 'broadcast_in_dim': {
      const dims = p['broadcast_dimensions'] as number[];
      if (dims.length) put('broadcast_dimensions');
      break;
    }
    case 'convert_element_type':
      put('new_dtype');
      put('weak_type', false);
      break;
    case 'dot_general': {
      const dn = p['dimension_numbers'] as DotDims;
      out['dimension_numbers'] = `((${pyList(dn.contract[0])}, ${pyList(dn.contract[1])}), (${pyList(dn.batch[0])}, ${pyList(dn.batch[1])}))`;
      if (p['precision'] !== null && p['precision'] !== undefined) put('precision');
      if (p['preferred_element_type'] !== null && p['preferred_element_type'] !== undefined) put('preferred_element_type');
      break;
    }
    case 'conv_general_dilated': {
      const dn = p['dimension_numbers'] as { lhs_spec: number[]; rhs_spec: number[]; out_spec: number[] };
      for (const k of ['batch_group_count', 'feature_group_count', 'lhs_dilation', 'padding', 'precision', 'preferred_element_type', 'rhs_dilation', 'window_strides']) put(k);
      out['dimension_numbers'] = `ConvDimensionNumbers(lhs_spec=${pyValue(dn.lhs_spec)}, rhs_spec=${pyValue(dn.rhs_spec)}, out_spec=${pyValue(dn.out_spec)})`;
      out['out_sharding'] = 'None';
      break;
    }
    case 'reduce_sum':
      put('axes');
      put('out_sharding');
      break;
    case 'reduce_max': case 'reduce_min': case 'reduce_prod':
      put('axes');
      break;
    case 'reshape':
      put('dimensions');
      put('new_sizes');
      put('sharding');
      break;
    case 'iota':
      put('dimension');
      put('dtype');
      put('shape');
      put('sharding');
      break;
    case 'slice':
      put('limit_indices');
      put('start_indices');
      put('strides');
      break;
    case 'mul':
      if (p['out_dtype'] !== null && p['out_dtype'] !== undefined) put('out_dtype');
      break;
    case 'gather': {
      out['dimension_numbers'] = `GatherDimensionNumbers(${Object.entries(p['dimension_numbers'] as GatherDims).map(([k, v]) => `${k}=${pyValue(v)}`).join(', ')})`;
      put('fill_value');
      put('indices_are_sorted');
      out['mode'] = `GatherScatterMode.${MODE_NAMES[p['mode'] as GatherMode]}`;
      put('slice_sizes');
      put('unique_indices');
      break;
    }
    case 'scatter': case 'scatter_add': case 'scatter_mul': case 'scatter_min': case 'scatter_max': {
      out['dimension_numbers'] = `ScatterDimensionNumbers(${Object.entries(p['dimension_numbers'] as ScatterDims).map(([k, v]) => `${k}=${pyValue(v)}`).join(', ')})`;
      put('indices_are_sorted');
      out['mode'] = `GatherScatterMode.${MODE_NAMES[p['mode'] as GatherMode]}`;
      put('unique_indices');
      out['update_consts'] = '()';
      // the combiner JAX traces for scatter-add/-mul/-min/-max (lax._reduction_jaxpr)
      if (e.prim === 'scatter') out['update_jaxpr'] = 'None';
      else {
        const t = `${shortDtype(e.inputs[0]!.aval.dtype)}[]`;
        const [a, b, c] = [freshName(), freshName(), freshName()];
        out['update_jaxpr'] = `{ lambda ; ${a}:${t} ${b}:${t}. let ${c}:${t} = ${e.prim.slice('scatter_'.length)} ${a} ${b} in (${c},) }`;
      }
      break;
    }
    case 'sharding_constraint':
      // jax.reshard's equation (`reshard: true`) shows no parameters
      if (!p['reshard']) for (const k of Object.keys(p)) put(k);
      break;
    case 'pvary':
      out['axes'] = namesTuple(p['axes'] as string[]);
      break;
    case 'axis_index': {
      // one axis name shows bare, several as a tuple
      const names = p['axis_name'] as string[];
      out['axis_name'] = names.length === 1 ? names[0]! : namesTuple(names);
      break;
    }
    case 'psum': case 'pmax': case 'pmin':
      out['axes'] = namesTuple(p['axes'] as string[]);
      out['axis_index_groups'] = 'None';
      break;
    case 'sort':
      put('dimension');
      put('is_stable');
      put('num_keys');
      break;
    default:
      for (const k of Object.keys(p)) if (k !== 'accuracy' || p[k] !== null) put(k);
  }
  return Object.keys(out).sort().map((k) => [k, out[k]!]);
}

// ------------------------------------------------------------ the jaxpr

/** Elementwise operations that take a rank-0 literal operand in JAX's jaxprs (`add a 1.0:f32[]`). */
const SCALAR_OPERAND = new Set<string>([
  'add', 'sub', 'mul', 'div', 'rem', 'pow', 'max', 'min', 'atan2', 'and', 'or', 'xor',
  'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'shift_left', 'shift_right_logical', 'shift_right_arithmetic',
]);

/** JAX's names: a, b, …, z, ba, bb, … */
function varName(i: number): string {
  let s = '';
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

const avalText = (a: AVal, t?: TypeSharding): string =>
  t ? `${shortDtype(a.dtype)}[${a.shape.map((n, d) => shardedDim(n, t.dims[d] ?? [])).join(',')}]${vmaUrStr(t)}` : `${shortDtype(a.dtype)}[${a.shape.join(',')}]`;

/** `8`, `8@X`, `8@(X,Y)`: a dimension of a type with its mesh axes (JAX's _get_shape_sharding_str). */
export const shardedDim = (n: number, axes: readonly string[]): string => (!axes.length ? String(n) : axes.length === 1 ? `${n}@${axes[0]}` : `${n}@(${axes.join(',')})`);

/** The sharding each variable's type shows (var id → sharding), for a function traced over Explicit mesh axes. */
export type JaxprTypes = ReadonlyMap<number, TypeSharding>;

function litText(l: Lit): string {
  const d = l.aval.dtype;
  const v = d === 'bool' ? (l.value ? 'True' : 'False') : d === 'float32' ? pyFloat(Math.fround(l.value)) : String(l.value);
  return `${v}:${avalText({ shape: [], dtype: d })}`;
}

/** A traced function as JAX's jaxpr shows it: constvars, invars, equations (constants folded into literals as JAX has them) and outvars. */
export interface JaxprView {
  consts: Var[];
  params: Var[];
  eqns: Eqn[];
  results: Atom[];
  /** An atom of the function as the view has it (a folded constant: its literal). */
  resolve: (a: Atom) => Atom;
}

/** The jaxpr JAX would have traced for `f`, whose last `constCount` parameters are captured arrays (JAX's constvars). */
export function jaxprView(f: Func, constCount = 0): JaxprView {
  const consts = f.params.slice(f.params.length - constCount);
  const params = f.params.slice(0, f.params.length - constCount);
  // constants shown as JAX's literals: var id → the literal it stands for
  const alias = new Map<number, Atom>();
  const uses = new Map<number, Eqn[]>();
  for (const e of f.eqns) for (const a of e.inputs) if (a.kind === 'var') uses.set(a.id, [...(uses.get(a.id) ?? []), e]);
  const resultIds = new Set(f.results.flatMap((r) => (r.kind === 'var' ? [r.id] : [])));
  const resolve = (a: Atom): Atom => (a.kind === 'var' && alias.has(a.id) ? alias.get(a.id)! : a);
  const eqns: Eqn[] = [];
  for (const e of f.eqns) {
    const ins = e.inputs.map(resolve);
    const x = ins[0];
    const out = e.outputs[0];
    if (e.prim === 'convert_element_type' && x?.kind === 'lit' && out) {
      alias.set(out.id, { kind: 'lit', value: out.aval.dtype === 'int32' ? Math.trunc(x.value) : out.aval.dtype === 'bool' ? Number(x.value !== 0) : x.value, aval: { shape: [], dtype: out.aval.dtype } });
      continue;
    }
    if (e.prim === 'broadcast_in_dim' && x && out) {
      // a binary operation's operand: JAX broadcasts it only to the operation's rank, with size-1 axes
      const implicit = e.operandBroadcast && !resultIds.has(out.id) && (uses.get(out.id) ?? []).every((u) => SCALAR_OPERAND.has(u.prim));
      const rank = x.aval.shape.length;
      if ((x.kind === 'lit' && !out.aval.shape.length) || (implicit && (rank === 0 || rank === out.aval.shape.length))) {
        alias.set(out.id, x);
        continue;
      }
      if (implicit) {
        // size 1 on the axes the operand does not map to
        const kept = new Set(e.params['broadcast_dimensions'] as number[]);
        const shape = out.aval.shape.map((d, i) => (kept.has(i) ? d : 1));
        eqns.push({ ...e, inputs: ins, params: { ...e.params, shape }, outputs: [{ ...out, aval: { ...out.aval, shape } }] });
        continue;
      }
    }
    eqns.push({ ...e, inputs: ins });
  }
  return { consts, params, eqns, results: f.results.map(resolve), resolve };
}

/** How a jaxpr's binders, operands and equations print, variables named by `name`. */
/** Renders a sub-jaxpr; `vma`: a shard_map body's varying mesh axes per variable (shown in its types). */
type SubJaxpr = (g: Func, vma?: ReadonlyMap<number, readonly string[]>) => Doc;

/** `{V:i}`, `{V:(i,j)}`: the varying manual axes in a type (none: nothing). */
const vmaText = (axes: readonly string[] | undefined): string => (!axes?.length ? '' : axes.length === 1 ? `{V:${axes[0]}}` : `{V:(${axes.join(',')})}`);

function eqnDocs0(name: (v: Var) => string, freshName: () => string, jaxpr: SubJaxpr, typeText: (v: Var) => string = (v) => avalText(v.aval), vmaTyped = false): {
  binders: (vs: Var[]) => Doc;
  operands: (as: Atom[], sep?: string) => Doc;
  eqnDoc: (e: Eqn) => Doc;
} {
  const atom = (a: Atom): Doc => text(a.kind === 'lit' ? litText(a) : name(a));
  const binders = (vs: Var[]): Doc => nest(2, group(join(group(brk()), vs.map((v) => text(`${name(v)}:${typeText(v)}`)))));
  const operands = (as: Atom[], sep = ''): Doc => nest(2, group(join(concat(text(sep), group(brk())), as.map(atom))));
  const eqnDoc = (e: Eqn): Doc => {
    const lhs = binders(e.outputs);
    // in a shard_map body with check_vma, psum is JAX's psum_invariant
    const invariant = vmaTyped && e.prim === 'psum';
    // a primitive the program defined (src/lower/user_prims.ts): its own name, no parameters
    const userPrim = e.prim === 'custom_jvp_call' ? (e.params['prim_name'] as string | undefined) : undefined;
    if (userPrim) return concat(lhs, text(` = ${userPrim} `), operands(e.inputs));
    const ps: [string, () => Doc][] = isControl(e.prim)
      ? controlParams(e, jaxpr)
      : shownParams(e, freshName).filter(([k]) => !invariant || k === 'axes').map(([k, v]) => [k, () => text(v)]);
    const kv = ps.length
      ? group(concat(nest(2, concat(text('['), brk(''), join(brk(), ps.map(([k, v]) => concat(text(`${k}=`), v()))))), brk(''), text(']')))
      : nil;
    const prim = e.prim === 'sharding_constraint' && e.params['reshard'] ? 'reshard' : invariant ? 'psum_invariant' : e.addAny ? 'add_any' : jaxPrimName(e.prim);
    return concat(lhs, text(' = '), text(prim), kv, text(' '), operands(e.inputs));
  };
  return { binders, operands, eqnDoc };
}

/** `str(eqn)` of one equation, as JAX prints it alone (names from `a`, its results first). */
export function printEqn(e: Eqn): string {
  const names = new Map<number, string>();
  let fresh = 0;
  const name = (v: Var): string => {
    let n = names.get(v.id);
    if (n === undefined) names.set(v.id, (n = varName(fresh++)));
    return n;
  };
  const { eqnDoc } = eqnDocs0(name, () => varName(fresh++), (g) => text(printJaxpr(g)));
  return formatDoc(eqnDoc(e));
}

/**
 * `print(jax.make_jaxpr(f)(*args))` of the traced function `f`: JAX's text,
 * with jaxts's explicit constant handling shown as JAX shows it. The last
 * `constCount` parameters are captured arrays: JAX's constvars.
 */
export function printJaxpr(f: Func, constCount = 0, types?: JaxprTypes): string {
  // variable names run on through nested jaxprs (control flow's), in the order the text shows them
  let fresh = 0;
  const jaxprDoc = (f: Func, constCount: number, vma?: ReadonlyMap<number, readonly string[]>, types?: JaxprTypes): Doc => {
  const { consts, params, eqns, results, resolve } = jaxprView(f, constCount);
  // JAX names a result no later equation or output uses `_` (core._dropvars)
  const names = new Map<number, string>();
  const used = new Set(results.flatMap((r) => (r.kind === 'var' ? [r.id] : [])));
  for (let i = eqns.length - 1; i >= 0; i--) {
    const e = eqns[i]!;
    // inside a nested jit, only the call's results are the top-level jaxpr's
    const outer = (o: Var): boolean => !e.calls?.length || e.calls[0]!.outputs.some((r) => r.kind === 'var' && r.id === o.id);
    for (const o of e.outputs) if (!used.has(o.id) && outer(o)) names.set(o.id, '_');
    for (const a of e.inputs) if (a.kind === 'var') used.add(a.id);
  }
  const name = (v: Var): string => {
    let n = names.get(v.id);
    if (n === undefined) {
      n = varName(fresh++);
      names.set(v.id, n);
    }
    return n;
  };
  // a type shows its sharding over Explicit mesh axes (`f32[6@i]`, `{U:X}`) and, in a shard_map body, its varying axes (`{V:i}`)
  const typeText = (v: Var): string => `${avalText(v.aval, types?.get(v.id))}${vmaText(vma?.get(v.id))}`;
  const { binders, operands, eqnDoc } = eqnDocs0(name, () => varName(fresh++), (g, v) => jaxprDoc(g, 0, v), typeText, vma !== undefined);
  const skeleton = (cs: Var[], ps: Var[], body: () => Doc[], outs: Atom[]): Doc => concat(
    group(nest(2, concat(
      text('{ '), text('lambda '), binders(cs), text('; '), binders(ps), text('. '), text('let'),
      nest(2, concat(brk(), join(brk('; '), body()))), brk(),
      text('in '), concat(text('('), operands(outs, ','), text(outs.length !== 1 ? ')' : ',)')),
    ))),
    text(' }'),
  );
  // the equations of a nested jit (Eqn.calls) as one `jit[name=… jaxpr={…}]` equation, as JAX shows it
  const jitEqn = (call: EqnCall, run: Eqn[], depth: number): Doc | null => {
    const defined = new Set(run.flatMap((e) => e.outputs.map((o) => o.id)));
    const outs = call.outputs.map(resolve);
    const ins = call.inputs.map(resolve);
    if (outs.some((o) => o.kind !== 'var' || !defined.has(o.id)) || ins.some((a) => a.kind !== 'var')) return null;
    const inIds = new Set(ins.map((a) => (a as Var).id));
    // values from outside the call that it reads (closed over): leading parameters, as JAX makes them
    const consts: Var[] = [];
    for (const e of run) {
      for (const a of e.inputs) {
        if (a.kind === 'var' && !defined.has(a.id) && !inIds.has(a.id) && !consts.some((c) => c.id === a.id)) consts.push(a);
      }
    }
    const invars = [...consts, ...(ins as Var[])];
    const lhs = binders(outs as Var[]);
    const inner = (): Doc => skeleton([], invars, () => eqnDocs(run, depth + 1), outs);
    const kv = group(concat(nest(2, concat(text('['), brk(''), join(brk(), [text(`name=${call.name}`), concat(text('jaxpr='), inner())]))), brk(''), text(']')));
    return concat(lhs, text(' = '), text('jit'), kv, text(' '), operands(invars));
  };
  const eqnDocs = (es: Eqn[], depth: number): Doc[] => {
    const docs: Doc[] = [];
    for (let i = 0; i < es.length;) {
      const call = es[i]!.calls?.[depth];
      if (!call) {
        docs.push(eqnDoc(es[i]!));
        i++;
        continue;
      }
      let j = i;
      while (j < es.length && es[j]!.calls?.[depth] === call) j++;
      const run = es.slice(i, j);
      const d = jitEqn(call, run, depth);
      if (d) docs.push(d);
      else docs.push(...eqnDocs(run.map((e) => ({ ...e, calls: e.calls!.slice(0, depth) })), depth));
      i = j;
    }
    return docs;
  };
  return skeleton(consts, params, () => eqnDocs(eqns, 0), results);
  };
  return formatDoc(jaxprDoc(f, constCount, undefined, types));
}

/** The parameters JAX shows for a control-flow equation, sorted by name; sub-jaxprs as `jaxpr` renders them (lazily: names follow the text's order). */
function controlParams(e: Eqn, jaxpr: SubJaxpr): [string, () => Doc][] {
  const p = e.params;
  if (e.prim === 'shard_map') {
    const sm = shardMapParams(p);
    const specs = (ss: readonly Spec[]): string => `(${ss.map(specText).join(', ')}${ss.length === 1 ? ',' : ''})`;
    const vma = sm.check_vma ? bodyVma(sm.jaxpr, sm.in_specs.map(specAxes), sm.newly_manual_axes) : undefined;
    return [
      ['check_vma', () => text(sm.check_vma ? 'True' : 'False')],
      ['in_specs', () => text(specs(sm.in_specs))],
      ['jaxpr', () => jaxpr(sm.jaxpr, vma)],
      ['mesh', () => text(sm.mesh_repr)],
      ['newly_manual_axes', () => text(`frozenset({${sm.newly_manual_axes.map((n) => `'${n}'`).join(', ')}})`)],
      ['out_specs', () => text(specs(sm.out_specs))],
    ];
  }
  const t = (k: string) => (): Doc => text(pyValue(p[k]));
  if (e.prim === 'cond') {
    // JAX's pp_jaxprs: the branches in parentheses, one per line unless they all fit
    const branches = p['branches'] as Func[];
    return [['branches', () => group(concat(nest(2, concat(text('('), brk(''), join(brk(), branches.map((g) => jaxpr(g))))), brk(''), text(')')))]];
  }
  if (e.prim === 'while') {
    return [
      ['body_jaxpr', () => jaxpr(p['body_jaxpr'] as Func)],
      ['body_nconsts', t('body_nconsts')],
      ['cond_jaxpr', () => jaxpr(p['cond_jaxpr'] as Func)],
      ['cond_nconsts', t('cond_nconsts')],
    ];
  }
  return [
    ['jaxpr', () => jaxpr(p['jaxpr'] as Func)],
    ['length', t('length')],
    ['num_carry', t('num_carry')],
    ['num_consts', t('num_consts')],
    ['reverse', t('reverse')],
    ['unroll', t('unroll')],
  ];
}

/**
 * Mark the equations `eqns[start…]` as traced inside a jit call nested in
 * the traced function (inlined there): make_jaxpr shows them as one jit
 * equation named `name`, taking `inputs` and giving `outputs`.
 */
export function markJitCall(eqns: Eqn[], start: number, name: string, inputs: Atom[], outputs: Atom[]): void {
  if (start >= eqns.length) return;
  const call: EqnCall = { name, inputs, outputs };
  for (let i = start; i < eqns.length; i++) eqns[i]!.calls = [call, ...(eqns[i]!.calls ?? [])];
}
