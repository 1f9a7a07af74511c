// str methods of strings known only when the program runs (HostScalar of type 'str': an f-string of a
// loss, a label looked up by a token read back from the device). Each call becomes one call of
// runtime/py_str.ts (`jx.pyStrMethods.split(s, ",")`), which computes what CPython does; its arguments
// may be known now or at run time. A list result is a HostList of strings.
import { CompileError } from '../common/diagnostics.js';
import type { HExpr, HStmt } from '../ir/host.js';
import type { Span } from '../parser/ast.js';
import { HostList, HostScalar, PyBoundMethod, PyList, PyTuple, typeName, type CallArgs, type PyValue } from './values.js';

/** What the str methods need of the interpreter. */
export interface HostStrCtx {
  emit(s: HStmt): void;
  freshName(hint: string): string;
}

/** The Python type of each method's result, and the types its arguments take (in order; `?`: may be left out). */
const METHODS: Record<string, { result: HostScalar['type'] | 'list' | 'tuple'; args: string[] }> = {
  strip: { result: 'str', args: ['str|None?'] },
  lstrip: { result: 'str', args: ['str|None?'] },
  rstrip: { result: 'str', args: ['str|None?'] },
  upper: { result: 'str', args: [] },
  lower: { result: 'str', args: [] },
  swapcase: { result: 'str', args: [] },
  capitalize: { result: 'str', args: [] },
  title: { result: 'str', args: [] },
  zfill: { result: 'str', args: ['int'] },
  ljust: { result: 'str', args: ['int', 'str?'] },
  rjust: { result: 'str', args: ['int', 'str?'] },
  center: { result: 'str', args: ['int', 'str?'] },
  startswith: { result: 'bool', args: ['str', 'int|None?', 'int|None?'] },
  endswith: { result: 'bool', args: ['str', 'int|None?', 'int|None?'] },
  isdigit: { result: 'bool', args: [] },
  isalpha: { result: 'bool', args: [] },
  isalnum: { result: 'bool', args: [] },
  isspace: { result: 'bool', args: [] },
  isupper: { result: 'bool', args: [] },
  islower: { result: 'bool', args: [] },
  find: { result: 'int', args: ['str', 'int|None?', 'int|None?'] },
  rfind: { result: 'int', args: ['str', 'int|None?', 'int|None?'] },
  index: { result: 'int', args: ['str', 'int|None?', 'int|None?'] },
  rindex: { result: 'int', args: ['str', 'int|None?', 'int|None?'] },
  count: { result: 'int', args: ['str', 'int|None?', 'int|None?'] },
  split: { result: 'list', args: ['str|None?', 'int?'] },
  rsplit: { result: 'list', args: ['str|None?', 'int?'] },
  splitlines: { result: 'list', args: [] },
  partition: { result: 'tuple', args: ['str'] },
  rpartition: { result: 'tuple', args: ['str'] },
};

/** The runtime functions that raise a Python exception for some arguments (a try around them catches it). */
export const RAISING_STR_METHODS = ['index', 'rindex', 'split', 'rsplit', 'partition', 'rpartition', 'ljust', 'rjust', 'center', 'toInt', 'toFloat'].map((m) => `jx.pyStrMethods.${m}`);

/** The Python type of a host value, as the methods' argument types name it. */
function argType(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint' || typeof v === 'boolean') return 'int';
  if (v instanceof HostScalar && v.raw === null) return v.type === 'bool' ? 'int' : v.type;
  return typeName(v);
}

/** The call's arguments (positional, then by keyword in Python's names) as TS expressions. */
function argExprs(name: string, want: string[], c: CallArgs): HExpr[] {
  const KEYWORDS: Record<string, string[]> = { split: ['sep', 'maxsplit'], rsplit: ['sep', 'maxsplit'] };
  const args = [...c.args];
  (KEYWORDS[name] ?? []).forEach((k, i) => {
    if (c.kwargs.has(k)) args[i] = c.kwargs.get(k)!;
  });
  const required = want.filter((w) => !w.endsWith('?')).length;
  if (args.length < required || args.length > want.length) {
    throw new CompileError(`TypeError: str.${name}() takes ${want.length === required ? 'exactly' : 'at most'} ${want.length} argument${want.length === 1 ? '' : 's'} (${args.length} given)`, c.span);
  }
  return args.map((v, i) => {
    const t = argType(v ?? null);
    if (!want[i]!.replace('?', '').split('|').includes(t)) throw new CompileError(`TypeError: str.${name}() argument ${i + 1} must be ${want[i]!.replace('?', '').split('|')[0]}, not ${t}`, c.span);
    if (v instanceof HostScalar) return v.expr;
    return { k: 'lit', value: typeof v === 'bigint' || typeof v === 'boolean' ? Number(v) : (v as string | null) };
  });
}

/** A method of run-time string `s` (undefined: not a str method jaxts computes at run time). */
export function hostStrMethod(ctx: HostStrCtx, s: HostScalar, name: string): PyBoundMethod | undefined {
  if (name === 'join') return new PyBoundMethod(s, name, (c) => hostStrJoin(s.expr, c.args[0] ?? null, c.span));
  const m = METHODS[name];
  if (!m) return undefined;
  return new PyBoundMethod(s, name, (c) => {
    const call: HExpr = { k: 'call', callee: `jx.pyStrMethods.${name}`, args: [s.expr, ...argExprs(name, m.args, c)] };
    if (m.result !== 'list' && m.result !== 'tuple') return new HostScalar(call, m.result);
    // (computed once, where the program reaches the call)
    const v = ctx.freshName(name === 'partition' || name === 'rpartition' ? 'parts' : 'words');
    ctx.emit({ k: 'const', names: [v], value: call, type: 'string[]' });
    if (m.result === 'list') return new HostList(v, 'str');
    return new PyTuple([0, 1, 2].map((i) => new HostScalar({ k: 'index', x: { k: 'var', name: v }, index: i }, 'str')));
  });
}

/** sep.join(items) with a separator known only at run time: items are strings, known now or at run time. */
export function hostStrJoin(sep: HExpr, src: PyValue, span: Span): HostScalar {
  const join = (items: HExpr): HostScalar => new HostScalar({ k: 'call', callee: 'jx.pyStrMethods.join', args: [sep, items] }, 'str');
  if (src instanceof HostList && src.elem === 'str') return join({ k: 'var', name: src.name });
  if (src instanceof PyList || src instanceof PyTuple) {
    const bad = src.items.findIndex((x) => argType(x) !== 'str');
    if (bad < 0) return join({ k: 'array', items: src.items.map((x) => (x instanceof HostScalar ? x.expr : { k: 'lit', value: x as string })) });
    throw new CompileError(`TypeError: sequence item ${bad}: expected str instance, ${typeName(src.items[bad]!)} found`, span);
  }
  throw new CompileError(`str.join() of a ${typeName(src)} with a separator known only when the program runs is not supported`, span);
}
