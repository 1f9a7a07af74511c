// Exported functions: each top-level Python function the script calls becomes
// an async function of the compiled module, compiled for the argument types
// of the script's first call of it (as `jax.jit(f).lower(*args)` fixes them
// ahead of time). An application then calls it with arrays of those shapes,
// as often as it likes, without compiling again.
import { walkHost, type BoundaryType, type HExpr, type HostExport, type HStmt } from '../ir/host.js';
import type { Span } from '../parser/ast.js';
import { CompileError } from '../common/diagnostics.js';
import type { Interp } from './interp.js';
import type { Abstract, CallLog, Signature } from './call_log.js';
import {
  HostArray, HostScalar, NdArray, NpScalar, PyDict, PyFunction, PyList, PyPartial, PyTransformed, PyTuple, Tracer,
  typeName, type PyValue,
} from './values.js';

/**
 * Python names an exported function cannot take: JS reserved words and the module's own names, and `then`
 * (a module namespace with a `then` export is a thenable: `await import()` of the module would call it).
 */
const MODULE_NAMES = new Set(['main', 'deviceCount', 'programs', 'script', 'jx', 'rt', 'then']);

/** The positional parameter names of a callable, through jit/grad/pmap wrappers and partials. */
function paramNames(fn: PyValue): string[] {
  if (fn instanceof PyFunction) return fn.def.params.filter((p) => p.star === '').map((p) => p.name);
  if (fn instanceof PyTransformed) return paramNames(fn.fn);
  if (fn instanceof PyPartial) return paramNames(fn.fn).slice(fn.args.length).filter((n) => !fn.kwargs.has(n));
  return [];
}

function defLine(fn: PyValue): number | null {
  if (fn instanceof PyFunction) return fn.def.span.start.line;
  if (fn instanceof PyTransformed || fn instanceof PyPartial) return defLine(fn.fn);
  return null;
}

/** Array arguments an export is lowered for instead of the script's call's: function → parameter path → symbolic shape and its sample. */
export type ExportShapes = ReadonlyMap<string, ReadonlyMap<string, { spec: string; shape: readonly number[] }>>;

/**
 * Export every top-level function the script called; the others are listed with the reason.
 * `shapes` (shape-polymorphic exports, lowered at sample sizes) replaces the shapes of some array
 * arguments; a function or path it names that is not there, or a failure to lower, is an error.
 */
export function lowerExports(ip: Interp, log: CallLog, isReserved: (name: string) => boolean, shapes: ExportShapes = new Map()): { exports: HostExport[]; unexported: { name: string; reason: string }[] } {
  log.enabled = false;
  for (const fn of shapes.keys()) {
    const v = ip.globals.vars.get(fn);
    if (!(v instanceof PyFunction || v instanceof PyTransformed || v instanceof PyPartial) || fn.startsWith('_')) throw new CompileError(`shapes: the script defines no top-level function ${fn} to export`, null);
    if (log.get(v) === undefined) throw new CompileError(`shapes: ${fn} cannot be exported: the script never calls it, so its argument types are unknown`, null);
  }
  const exports: HostExport[] = [];
  const unexported: { name: string; reason: string }[] = [];
  for (const [pyName, fn] of ip.globals.vars) {
    if (!(fn instanceof PyFunction || fn instanceof PyTransformed || fn instanceof PyPartial) || pyName.startsWith('_')) continue;
    const sig = log.get(fn);
    if (sig === undefined) {
      unexported.push({ name: pyName, reason: 'the script never calls it, so its argument types are unknown' });
      continue;
    }
    if (typeof sig === 'string') {
      if (shapes.has(pyName)) throw new CompileError(`shapes: ${pyName} cannot be exported: ${sig}`, null);
      unexported.push({ name: pyName, reason: sig });
      continue;
    }
    // a reserved name gets trailing `_`s until it names no other Python global (`delete` beside `delete_`)
    let name = pyName;
    while (isReserved(name) || MODULE_NAMES.has(name) || (name !== pyName && (ip.globals.vars.has(name) || exports.some((x) => x.name === name)))) name += '_';
    const cp = ip.checkpoint();
    const given = shapes.get(pyName);
    try {
      exports.push(lowerExport(ip, name, pyName, fn, sig, isReserved, given));
    } catch (e) {
      ip.rollback(cp);
      if (given) throw e instanceof CompileError ? e : new CompileError(`shapes: ${pyName} does not compile for its symbolic shapes: ${e instanceof Error ? e.message : String(e)}`, null);
      const msg = e instanceof Error ? e.message : String(e);
      unexported.push({ name: pyName, reason: `it does not compile on its own: ${msg.split('\n')[0]}` });
    }
  }
  return { exports, unexported };
}

function lowerExport(ip: Interp, name: string, pyName: string, fn: PyValue, sig: Signature, isReserved: (name: string) => boolean, given?: ReadonlyMap<string, { spec: string; shape: readonly number[] }>): HostExport {
  const used = new Set<string>();
  const symbolic: [HExpr, string, string][] = []; // a symbolic argument: its access, path and shape
  const names = paramNames(fn);
  const params: HostExport['params'] = [];
  const line = defLine(fn) ?? sig.span.start.line;
  let returns: BoundaryType | null = null;
  // the TS parameters are the Python names; the body's own names are made unique against them
  const pyParams = [...sig.args.map((_, i) => names[i] ?? `arg${i}`), ...sig.kwargs.map(([k]) => k)];
  const tsParams: string[] = [];
  for (const p of pyParams) {
    // a reserved name gets trailing `_`s until it is no other parameter's name (`new` beside `new_`)
    let n = p;
    while (isReserved(n) || (n !== p && (pyParams.includes(n) || tsParams.includes(n)))) n += '_';
    ip.reserveName(n);
    tsParams.push(n);
  }
  const { constants, body } = ip.separateScope(line, () => {
    const bind = (a: Abstract, access: HExpr, path: string, hint: string): { value: PyValue; type: BoundaryType } => {
      switch (a.k) {
        case 'array': {
          const shape = given?.get(path)?.shape;
          if (shape) {
            used.add(path);
            a = { ...a, aval: { ...a.aval, shape } };
            symbolic.push([access, path, given!.get(path)!.spec]);
          }
          const v = ip.freshName(hint);
          ip.emit({
            k: 'const', names: [v],
            value: { k: 'call', callee: 'jx.arg', await: true, args: [{ k: 'var', name: 'rt' }, access, lit(a.aval.shape.map((d) => ({ k: 'lit', value: d }))), { k: 'lit', value: a.aval.dtype }, { k: 'lit', value: path }, { k: 'lit', value: name }] },
          });
          const h = new HostArray(v, a.aval);
          h.sharding = a.sharding;
          return { value: h, type: { k: 'array', shape: a.aval.shape, dtype: a.aval.dtype } };
        }
        case 'static': {
          const js = typeof a.value === 'bigint' ? Number(a.value) : a.value;
          ip.emit({ k: 'expr', e: { k: 'call', callee: 'jx.staticArg', args: [access, { k: 'lit', value: js }, { k: 'lit', value: path }, { k: 'lit', value: name }] } });
          return { value: a.value, type: { k: 'literal', value: js } };
        }
        case 'scalar':
          return { value: new HostScalar(access, a.value.type), type: { k: 'scalar', type: a.value.type === 'str' ? 'string' : a.value.type === 'bool' ? 'boolean' : 'number' } };
        case 'tuple':
        case 'list': {
          const fields = a.k === 'tuple' ? a.cls?.fields : undefined;
          const items = a.items.map((x, i) =>
            fields ? bind(x, { k: 'member', x: access, key: fields[i]! }, `${path}.${fields[i]}`, `${hint}_${fields[i]}`) : bind(x, { k: 'index', x: access, index: i }, `${path}[${i}]`, `${hint}_${i}`),
          );
          const values = items.map((x) => x.value);
          return {
            value: a.k === 'list' ? new PyList(values) : new PyTuple(values, a.cls),
            type: fields ? { k: 'object', fields: items.map((x, i) => [fields[i]!, x.type]) } : { k: 'tuple', items: items.map((x) => x.type) },
          };
        }
        case 'dict': {
          const d = new PyDict();
          const fields: [string, BoundaryType][] = [];
          for (const [key, x] of a.entries) {
            const b = bind(x, { k: 'member', x: access, key }, /^[A-Za-z_]\w*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, `${hint}_${key}`);
            d.set(key, b.value);
            fields.push([key, b.type]);
          }
          return { value: d, type: { k: 'object', fields } };
        }
      }
    };
    const args = sig.args.map((a, i) => {
      const b = bind(a, { k: 'var', name: tsParams[i]! }, tsParams[i]!, tsParams[i]!);
      params.push({ name: tsParams[i]!, type: b.type });
      return b.value;
    });
    const kwargs = new Map(
      sig.kwargs.map(([k, a], j) => {
        const p = tsParams[sig.args.length + j]!;
        const b = bind(a, { k: 'var', name: p }, p, p);
        params.push({ name: p, type: b.type });
        return [k, b.value];
      }),
    );
    const unused = [...(given?.keys() ?? [])].filter((p) => !used.has(p));
    if (unused.length) {
      const arrays: string[] = [];
      const list = (t: BoundaryType, p: string): void => {
        if (t.k === 'array') arrays.push(p);
        else if (t.k === 'tuple') t.items.forEach((x, i) => list(x, `${p}[${i}]`));
        else if (t.k === 'object') t.fields.forEach(([k, x]) => list(x, /^[A-Za-z_]\w*$/.test(k) ? `${p}.${k}` : `${p}[${JSON.stringify(k)}]`));
      };
      params.forEach((p) => list(p.type, p.name));
      throw new CompileError(`shapes: ${pyName} has no array argument ${unused[0]} (its array arguments: ${arrays.join(', ') || 'none'})`, sig.span);
    }
    const result = ip.holding((hold) => hold(ip.call(fn, { args, kwargs, span: sig.span })));
    ip.flush([result]);
    const out = crossing(ip, result, sig.span);
    returns = out?.type ?? null;
    if (out) ip.emit({ k: 'return', value: out.expr });
  });
  const rt: HStmt = { k: 'const', names: ['rt'], line, value: { k: 'call', callee: 'jx.runtime', await: true, args: [{ k: 'var', name: 'deviceCount' }] } };
  if (!symbolic.length) return { name, pyName, line, params, returns, body: [rt, ...constants, ...body] };
  // a shape-polymorphic export first solves its symbols from the arguments' shapes (src/codegen/symbolic.ts makes the sizes use them)
  const dims: HStmt = {
    k: 'const', names: [ip.freshName('dims')], line,
    value: { k: 'call', callee: 'jx.dims', args: [{ k: 'lit', value: name }, lit(symbolic.map(([x, p, s]) => lit([x, { k: 'lit', value: p }, { k: 'lit', value: s }])))] },
  };
  const shapes = symbolic.map(([, p, s]) => `${p}: ${s}`).join(', ');
  return { name, pyName, line, params, returns, body: [dims, rt, ...constants, ...body], symbolic: shapes };
}

const lit = (items: HExpr[]): HExpr => ({ k: 'array', items });

/** A result as the application receives it: arrays, numbers and strings; tuples as arrays, dicts as objects. Null for None. */
function crossing(ip: Interp, v: PyValue, span: Span): { expr: HExpr; type: BoundaryType } | null {
  if (v === null) return null;
  const go = (x: PyValue): { expr: HExpr; type: BoundaryType } => {
    if (x instanceof HostArray || x instanceof Tracer || x instanceof NdArray) {
      const h = ip.hostArray(x, span);
      return { expr: { k: 'var', name: h.name }, type: { k: 'array', shape: h.aval.shape, dtype: h.aval.dtype } };
    }
    if (x instanceof HostScalar) return { expr: x.expr, type: { k: 'scalar', type: x.type === 'str' ? 'string' : x.type === 'bool' ? 'boolean' : 'number' } };
    if (x instanceof NpScalar) return { expr: { k: 'lit', value: x.value }, type: { k: 'literal', value: x.value } };
    if (x === null || typeof x !== 'object') {
      const js = typeof x === 'bigint' ? Number(x) : x;
      return { expr: { k: 'lit', value: js }, type: { k: 'literal', value: js } };
    }
    if (x instanceof PyTuple && x.cls) {
      const items = x.items.map(go);
      return { expr: { k: 'object', entries: items.map((it, i) => [x.cls!.fields[i]!, it.expr]) }, type: { k: 'object', fields: items.map((it, i) => [x.cls!.fields[i]!, it.type]) } };
    }
    if (x instanceof PyTuple || x instanceof PyList) {
      const items = x.items.map(go);
      return { expr: { k: 'array', items: items.map((it) => it.expr) }, type: { k: 'tuple', items: items.map((it) => it.type) } };
    }
    if (x instanceof PyDict && x.keys().every((k) => typeof k === 'string')) {
      const items = x.values().map(go);
      const keys = x.keys() as string[];
      return { expr: { k: 'object', entries: items.map((it, i) => [keys[i]!, it.expr]) }, type: { k: 'object', fields: items.map((it, i) => [keys[i]!, it.type]) } };
    }
    throw new Error(`it returns a ${typeName(x)}, which cannot cross to JS`);
  };
  return go(v);
}

/** Names an exported function's body reads but does not declare: variables of main() (or nothing, when the export stands alone). */
export function freeVariables(body: HStmt[], bound: Iterable<string>): string[] {
  const declared = new Set(bound);
  const used = new Set<string>();
  walkHost(body, {
    stmt: (s) => {
      if (s.k === 'const' || s.k === 'let') s.names.forEach((n) => declared.add(n));
      else if (s.k === 'for') declared.add(s.v);
      else if (s.k === 'assign') used.add(s.name);
    },
    expr: (e) => void (e.k === 'var' && used.add(e.name)),
  });
  return [...used].filter((n) => !declared.has(n));
}

/** The most items a container among main()'s results may have. */
const MAX_RESULT_ITEMS = 64;

/**
 * The script's top-level values as main() resolves to them: device arrays,
 * numbers, strings and booleans, and tuples, lists, NamedTuples and dicts of
 * them, each reached through a variable `declared` at main()'s top level.
 * Functions, modules, host NumPy data (it would be copied into the generated
 * code), None and names starting with `_` are left out.
 */
export function scriptResults(ip: Interp, declared: ReadonlySet<string>): { name: string; value: HExpr; type: BoundaryType }[] {
  const open = new Set<PyValue>(); // the containers being walked: a container inside itself is left out
  const go = (x: PyValue): { expr: HExpr; type: BoundaryType } | null => {
    if (open.has(x)) return null;
    if (x instanceof PyTuple || x instanceof PyList || x instanceof PyDict) {
      open.add(x);
      try {
        return container(x);
      } finally {
        open.delete(x);
      }
    }
    if (x instanceof HostArray) return declared.has(x.name) ? { expr: { k: 'var', name: x.name }, type: { k: 'array', shape: x.aval.shape, dtype: x.aval.dtype } } : null;
    if (x instanceof HostScalar) {
      return x.expr.k === 'var' && declared.has(x.expr.name) ? { expr: x.expr, type: { k: 'scalar', type: x.type === 'str' ? 'string' : x.type === 'bool' ? 'boolean' : 'number' } } : null;
    }
    if (typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean' || typeof x === 'string') {
      const js = typeof x === 'bigint' ? Number(x) : x;
      return { expr: { k: 'lit', value: js }, type: { k: 'scalar', type: typeof js === 'string' ? 'string' : typeof js === 'boolean' ? 'boolean' : 'number' } };
    }
    return null;
  };
  const container = (x: PyTuple | PyList | PyDict): { expr: HExpr; type: BoundaryType } | null => {
    // a long list (a history of losses) would be a tuple type as long in the .d.py.ts: left out
    if ((x instanceof PyDict ? x.keys().length : x.items.length) > MAX_RESULT_ITEMS) return null;
    if (x instanceof PyTuple || x instanceof PyList) {
      const items = x.items.map(go);
      if (items.some((it) => it === null)) return null;
      const ok = items as { expr: HExpr; type: BoundaryType }[];
      const fields = x instanceof PyTuple ? x.cls?.fields : undefined;
      if (fields) return { expr: { k: 'object', entries: ok.map((it, i) => [fields[i]!, it.expr]) }, type: { k: 'object', fields: ok.map((it, i) => [fields[i]!, it.type]) } };
      return { expr: { k: 'array', items: ok.map((it) => it.expr) }, type: { k: 'tuple', items: ok.map((it) => it.type) } };
    }
    if (x instanceof PyDict && x.keys().every((k) => typeof k === 'string')) {
      const items = x.values().map(go);
      if (items.some((it) => it === null)) return null;
      const keys = x.keys() as string[];
      const ok = items as { expr: HExpr; type: BoundaryType }[];
      return { expr: { k: 'object', entries: ok.map((it, i) => [keys[i]!, it.expr]) }, type: { k: 'object', fields: ok.map((it, i) => [keys[i]!, it.type]) } };
    }
    return null;
  };
  const out: { name: string; value: HExpr; type: BoundaryType }[] = [];
  for (const [name, v] of ip.globals.vars) {
    // `then` would make the resolved object a thenable
    if (name.startsWith('_') || name === 'then') continue;
    const r = go(v);
    if (r) out.push({ name, value: r.expr, type: r.type });
  }
  return out;
}
