// Python's `re` module over strings known at compile time: match, search, fullmatch, findall, finditer,
// sub, subn, split, compile (a Pattern with the same methods), escape, and the flags. A pattern is
// translated to a JavaScript RegExp (the syntax they share, named groups `(?P<name>…)`/`(?P=name)`,
// `\A` and `\Z`); Match objects answer group/groups/groupdict/start/end/span as CPython's do.
import { CompileError } from '../common/diagnostics.js';
import type * as A from '../parser/ast.js';
import { arg } from './modules.js';
import { PyBuiltin, PyDict, PyIterator, PyList, PyModule, PyNativeMethod, PyTuple, PyUserClass, PyInstance, typeName, type CallArgs, type PyValue } from './values.js';

const FLAGS: Record<string, bigint> = { IGNORECASE: 2n, I: 2n, MULTILINE: 8n, M: 8n, DOTALL: 16n, S: 16n, VERBOSE: 64n, X: 64n, ASCII: 256n, A: 256n, UNICODE: 32n, U: 32n, NOFLAG: 0n };

/** A Python pattern and its flags as a JavaScript RegExp (global, callers set lastIndex; with the groups' indices). */
function toRegExp(pattern: string, flags: bigint, span: A.Span | null): RegExp {
  if (flags & FLAGS.VERBOSE!) throw new CompileError('NotImplementedError: re.VERBOSE patterns are not supported by jaxts', span);
  const src = pattern
    .replace(/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>')
    .replace(/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>')
    .replace(/(^|[^\\])\\A/g, '$1^')
    .replace(/(^|[^\\])\\Z/g, '$1$(?![\\s\\S])');
  const js = 'gd' + (flags & FLAGS.IGNORECASE! ? 'i' : '') + (flags & FLAGS.MULTILINE! ? 'm' : '') + (flags & FLAGS.DOTALL! ? 's' : '');
  try {
    return new RegExp(src, js);
  } catch (e) {
    throw new CompileError(`re.error: ${(e as Error).message}`, span);
  }
}

const strOf = (v: PyValue, what: string, span: A.Span | null): string => {
  if (typeof v !== 'string') throw new CompileError(`TypeError: expected string or bytes-like object, got '${typeName(v)}' (re.${what} of a value known only at run time is not supported by jaxts)`, span);
  return v;
};

/** Python's replacement template (`\1`, `\g<1>`, `\g<name>`, `\n`) as a JavaScript one. */
function replacement(repl: string): string {
  return repl
    .replace(/\$/g, '$$$$')
    .replace(/\\g<(\d+)>|\\g<([A-Za-z_]\w*)>|\\(\d{1,2})|\\n|\\t|\\\\/g, (m, num: string | undefined, name: string | undefined, digit: string | undefined) =>
      num ? `$${num}` : name ? `$<${name}>` : digit ? `$${digit}` : m === '\\n' ? '\n' : m === '\\t' ? '\t' : '\\');
}

/** The module `re` and the classes of its values. */
export function reModule(): PyModule {
  const matchCls = new PyUserClass('Match', [], 're');
  const patternCls = new PyUserClass('Pattern', [], 're');
  const matches = new WeakMap<PyInstance, RegExpExecArray>();
  const patterns = new WeakMap<PyInstance, { source: string; flags: bigint }>();

  const matchOf = (m: RegExpExecArray | null): PyValue => {
    if (!m) return null;
    const inst = new PyInstance(matchCls);
    matches.set(inst, m);
    return inst;
  };
  const groupIndex = (m: RegExpExecArray, v: PyValue, span: A.Span | null): number => {
    if (typeof v === 'bigint' && v >= 0n && Number(v) < m.length) return Number(v);
    if (typeof v === 'string' && m.groups && v in m.groups) return [...Object.keys(m.groups)].indexOf(v) + 1;
    throw new CompileError('IndexError: no such group', span);
  };
  const groupValue = (m: RegExpExecArray, v: PyValue, span: A.Span | null): PyValue =>
    typeof v === 'string' && m.groups && v in m.groups ? (m.groups[v] ?? null) : (m[groupIndex(m, v, span)] ?? null);
  const bounds = (m: RegExpExecArray, v: PyValue, span: A.Span | null): [number, number] => {
    const b = m.indices?.[groupIndex(m, v, span)];
    return b ? [b[0], b[1]] : [-1, -1];
  };
  const matchMethods: Record<string, (m: RegExpExecArray, c: CallArgs) => PyValue> = {
    group: (m, c) => (c.args.length <= 1 ? groupValue(m, c.args[0] ?? 0n, c.span) : new PyTuple(c.args.map((a) => groupValue(m, a, c.span)))),
    __getitem__: (m, c) => groupValue(m, arg(c, 0, 'g'), c.span),
    groups: (m, c) => new PyTuple(m.slice(1).map((g) => g ?? (c.kwargs.get('default') ?? c.args[0] ?? null))),
    groupdict: (m) => {
      const d = new PyDict();
      for (const [k, v] of Object.entries(m.groups ?? {})) d.set(k, v ?? null);
      return d;
    },
    start: (m, c) => BigInt(bounds(m, c.args[0] ?? 0n, c.span)[0]),
    end: (m, c) => BigInt(bounds(m, c.args[0] ?? 0n, c.span)[1]),
    span: (m, c) => new PyTuple(bounds(m, c.args[0] ?? 0n, c.span).map((n) => BigInt(n))),
    __repr__: (m) => `<re.Match object; span=(${m.index}, ${m.index + m[0].length}), match=${JSON.stringify(m[0]).replace(/^"|"$/g, "'")}>`,
  };
  for (const [k, f] of Object.entries(matchMethods)) matchCls.attrs.set(k, new PyNativeMethod(k, (self, c) => f(matches.get(self as PyInstance)!, c)));

  /** The operations, on a pattern already compiled; `at`: where the match must start (null: anywhere). */
  const exec = (re: RegExp, s: string, at: number): RegExpExecArray | null => {
    re.lastIndex = at;
    return re.exec(s);
  };
  type Op = (re: RegExp, c: CallArgs, first: number) => PyValue;
  const ops: Record<string, Op> = {
    match: (re, c, i) => {
      const s = strOf(arg(c, i, 'string'), 'match', c.span);
      const m = exec(re, s, 0);
      return matchOf(m && m.index === 0 ? m : null);
    },
    fullmatch: (re, c, i) => {
      const s = strOf(arg(c, i, 'string'), 'fullmatch', c.span);
      const whole = new RegExp(`^(?:${re.source})$(?![\\s\\S])`, re.flags.replace('m', ''));
      return matchOf(exec(whole, s, 0));
    },
    search: (re, c, i) => matchOf(exec(re, strOf(arg(c, i, 'string'), 'search', c.span), 0)),
    findall: (re, c, i) => {
      const s = strOf(arg(c, i, 'string'), 'findall', c.span);
      return new PyList([...s.matchAll(re)].map((m) => (m.length === 1 ? m[0] : m.length === 2 ? (m[1] ?? '') : new PyTuple(m.slice(1).map((g) => g ?? '')))));
    },
    finditer: (re, c, i) => {
      const s = strOf(arg(c, i, 'string'), 'finditer', c.span);
      return new PyIterator('callable_iterator', [...s.matchAll(re)].map((m) => matchOf(m as RegExpExecArray))[Symbol.iterator]());
    },
    sub: (re, c, i) => subn(re, c, i)[0],
    subn: (re, c, i) => new PyTuple(subn(re, c, i)),
    split: (re, c, i) => {
      const s = strOf(arg(c, i, 'string'), 'split', c.span);
      const max = c.kwargs.get('maxsplit') ?? c.args[i + 1] ?? 0n;
      const out: PyValue[] = [];
      let last = 0;
      let n = 0;
      for (const m of s.matchAll(re)) {
        if (max !== 0n && BigInt(n) >= (max as bigint)) break;
        out.push(s.slice(last, m.index), ...m.slice(1).map((g) => g ?? null));
        last = m.index + m[0].length;
        n++;
      }
      out.push(s.slice(last));
      return new PyList(out);
    },
  };
  const subn = (re: RegExp, c: CallArgs, i: number): [string, bigint] => {
    const repl = arg(c, i, 'repl');
    if (typeof repl !== 'string') throw new CompileError('NotImplementedError: re.sub with a function as the replacement is not supported by jaxts', c.span);
    const s = strOf(arg(c, i + 1, 'string'), 'sub', c.span);
    const count = c.kwargs.get('count') ?? c.args[i + 2] ?? 0n;
    let n = 0;
    const out = s.replace(re, (...m: unknown[]) => {
      if (count !== 0n && BigInt(n) >= (count as bigint)) return m[0] as string;
      n++;
      const groups = m.slice(1).filter((x): x is string | undefined => typeof x === 'string' || x === undefined).slice(0, -1);
      const named = typeof m[m.length - 1] === 'object' ? (m[m.length - 1] as Record<string, string | undefined>) : {};
      return replacement(repl).replace(/\$(\d+)|\$<(\w+)>|\$\$/g, (t, d: string | undefined, nm: string | undefined) => (d ? (groups[Number(d) - 1] ?? '') : nm ? (named[nm] ?? '') : '$'));
    });
    return [out, BigInt(n)];
  };
  const flagsOf = (c: CallArgs, i: number): bigint => {
    const f = c.kwargs.get('flags') ?? c.args[i] ?? 0n;
    if (typeof f !== 'bigint') throw new CompileError(`TypeError: re flags must be an int, got ${typeName(f)}`, c.span);
    return f;
  };
  // module-level: re.op(pattern, ..., flags=0); the flags come after the op's own arguments
  const argCount: Record<string, number> = { match: 2, fullmatch: 2, search: 2, findall: 2, finditer: 2, sub: 4, subn: 4, split: 3 };
  const patternArg = (v: PyValue, span: A.Span | null): { source: string; flags: bigint } => {
    if (v instanceof PyInstance && patterns.has(v)) return patterns.get(v)!;
    return { source: strOf(v, 'compile', span), flags: 0n };
  };
  const moduleFn = (name: string) => (c: CallArgs): PyValue => {
    const p = patternArg(arg(c, 0, 'pattern'), c.span);
    return ops[name]!(toRegExp(p.source, p.flags | flagsOf(c, argCount[name]!), c.span), c, 1);
  };
  for (const name of Object.keys(ops)) {
    patternCls.attrs.set(name, new PyNativeMethod(name, (self, c) => {
      const p = patterns.get(self as PyInstance)!;
      return ops[name]!(toRegExp(p.source, p.flags, c.span), c, 0);
    }));
  }
  patternCls.attrs.set('__repr__', new PyNativeMethod('__repr__', (self) => `re.compile(${JSON.stringify(patterns.get(self as PyInstance)!.source).replace(/^"|"$/g, "'")})`));
  const compile = (c: CallArgs): PyValue => {
    const p = patternArg(arg(c, 0, 'pattern'), c.span);
    const flags = p.flags | flagsOf(c, 1);
    toRegExp(p.source, flags, c.span); // re.error now, as CPython compiles at once
    const inst = new PyInstance(patternCls);
    patterns.set(inst, { source: p.source, flags });
    inst.attrs.set('pattern', p.source);
    inst.attrs.set('flags', flags);
    return inst;
  };
  // (Python 3.7+: only the characters special in a pattern)
  const escape = (c: CallArgs): PyValue => strOf(arg(c, 0, 'pattern'), 'escape', c.span).replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (ch) => `\\${ch}`);
  const entries: [string, PyValue][] = [
    ...Object.keys(ops).map((n): [string, PyValue] => [n, new PyBuiltin(n, moduleFn(n))]),
    ['compile', new PyBuiltin('compile', compile)],
    ['escape', new PyBuiltin('escape', escape)],
    ['Match', matchCls],
    ['Pattern', patternCls],
    ...Object.entries(FLAGS),
  ];
  return new PyModule('re', new Map(entries));
}
