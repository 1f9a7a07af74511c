// Statement execution. Static control flow runs at compile time; a host `for`
// over a range stays a TS loop (its loop-carried arrays and numbers become
// `let` variables) unless the body needs the index at compile time, in which
// case it is unrolled.
import { RAISING_STR_METHODS } from './host_str.js';
import { caughtFrames, caughtTracebacks, runTimeCaught } from './tracebacks.js';
import { CompileError } from '../common/diagnostics.js';
import { jaxTypeStr, type Func } from '../ir/types.js';
import { walkHost, type HExpr, type HStmt } from '../ir/host.js';
import type * as A from '../parser/ast.js';
import { assignTarget, binop, compare, evalExpr, holdItems, hostTruth, iterItems, testTruth, truthyStatic } from './expr.js';
import { BreakSignal, ContinueSignal, hexpr, type Interp, ReturnSignal } from './interp.js';
import {
  HostArray, HostNd, HostScalar, NdArray, NpScalar, PyBuiltin, PyClass, PyUserClass, PyKeyArray, PyDescriptor, PyDict, PyFunction, PyInstance, PyIterator, PyList, PyPartial, PyRange, PyTransformed, PyTuple, Scope, Tracer,
  dictKey, isArray, scalarKind, typeName, type PyNamedSharding, type PyValue, NeedsStatic, type GeneratorControl, HostChoice, HostList, HostZip, type HostEachPart, type CallArgs,
  rawExpr,
} from './values.js';
import { staticEquals } from './pyops.js';
import { getAttr } from './attrs.js';
import { EXCEPTIONS, branchObjects, callDunder, caughtException, exceptionMatches, isExceptionClass, makeClass, newException, raiseValue } from './classes.js';
import { meshStr, specAxes } from './shardings.js';
import { sameShardings } from '../ir/sharding.js';
import { MAX_LOOP_STEPS } from './limits.js';
import { declareHostList, hostListMethod, listItem, PromoteToHostList, reachable, replaceList } from './host_list.js';
import { declareGen, hostNdOf, loopIndexRanges, PromoteRng, runTimeGen, runTimeLookupMark } from './host_numpy.js';
import { ForkRequest, hostCopy, runtimeOnlyError, withDecisions, type HostBuilder } from './const_eval.js';

export function execBlock(ip: Interp, body: A.Stmt[], scope: Scope): void {
  const outer = ip.line;
  const block = { body, i: 0, scope };
  blocks.push(block);
  try {
    for (const s of body) {
      ip.line = s.span.start.line;
      block.i++;
      if (ip.atHost && FORKING.has(s.kind)) execForking(ip, s, scope);
      else if (ip.atHost && s.kind === 'Return' && s.value) returnForking(ip, s, s.value, scope);
      else if (ip.atHost) withDecisions(null, () => execStmt(ip, s, scope));
      else execStmt(ip, s, scope);
    }
  } finally {
    ip.line = outer;
    blocks.pop();
  }
}

/** The blocks being executed, innermost last, each with the number of its statements begun (see deadAfterIf). */
const blocks: { body: A.Stmt[]; i: number; scope: Scope }[] = [];

/**
 * Is `name`, bound by the if `s` on one path only, never read after it? It is when no statement after `s`
 * in its block and in the blocks around it mentions the name, nor any other statement of the loops around
 * it (a later step could read the value an earlier step left). Such a name (a loss computed to be
 * printed every hundred steps) needs no value after the if, and the loop around it stays a loop.
 */
function deadAfterIf(name: string, s: A.If): boolean {
  const top = blocks[blocks.length - 1];
  if (!top || top.body[top.i - 1] !== s) return false;
  // (an if of the chain a `match` on a run-time value stands for: the match statement as a whole)
  const origin = matchOrigins.get(s);
  let found = false;
  const mentions = (n: unknown): void => {
    if (found || !n || typeof n !== 'object' || n === s || n === origin) return;
    const node = n as { kind?: string; id?: string; name?: string; names?: unknown };
    if ((node.kind === 'Name' && node.id === name) || ((node.kind === 'FunctionDef' || node.kind === 'ClassDef') && node.name === name)) found = true;
    else if ((node.kind === 'Global' || node.kind === 'Nonlocal') && Array.isArray(node.names) && node.names.includes(name)) found = true;
    else for (const [k, v] of Object.entries(n)) if (k !== 'span' && typeof v === 'object') mentions(v);
  };
  // a function's local is read only by the statements of that function's body (not by the code around a call of it)
  const frameOf = (sc: Scope | null): Scope | null => {
    while (sc && !sc.locals) sc = sc.parent;
    return sc;
  };
  const frame = frameOf(top.scope);
  const local = frame?.locals?.has(name) === true;
  for (const b of blocks) {
    if (local && frameOf(b.scope) !== frame) continue;
    mentions(b.body.slice(b.i));
    const current = b.body[b.i - 1];
    if (current && (current.kind === 'For' || current.kind === 'While')) mentions(current);
  }
  return !found;
}

/** Host statements that may branch on a run-time value inside a differentiation they call (see execForking). */
const FORKING = new Set<A.Stmt['kind']>(['ExprStmt', 'Assign', 'AugAssign', 'AnnAssign']);

/**
 * A host statement whose differentiation (grad, vjp, … outside jit: JAX
 * traces them with concrete values) branches on a value known only at run
 * time: the condition's cone is computed by the host program and read back,
 * and the statement is lowered once per outcome in the arms of a run-time
 * `if`, the decisions taken so far replayed by re-tracing (const_eval.ts).
 */
function execForking(ip: Interp, s: A.Stmt, scope: Scope, decisions: boolean[] = []): void {
  try {
    withDecisions(decisions, () => execStmt(ip, s, scope));
  } catch (e) {
    if (!(e instanceof ForkRequest) || !ip.atHost) throw e;
    const t = ip.trace();
    const host: HostBuilder = {
      atom: (v) => {
        if (v instanceof Tracer && !v.materialized && v.trace !== t) return null;
        if (v instanceof Tracer || v instanceof HostArray) return ip.ops.atom(v, e.span);
        const scalar = typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
        return scalar || v instanceof NdArray || v instanceof NpScalar ? ip.ops.asArray(v, e.span).atom : null;
      },
      // a custom_jvp / custom_vjp function's value: its primal part
      bind: (q, ins) => (q.prim === 'custom_jvp_call' || q.prim === 'custom_vjp_call' ? t.builder.inline(q.params['call'] as Func, ins) : t.builder.bind(q.prim, ins, q.params)),
    };
    const cond = hostCopy(e.cond, host);
    if (!cond) throw runtimeOnlyError('this condition', e.span);
    const test = hostTruth(ip, ip.ops.tracer(cond), e.span);
    if (!(test instanceof HostScalar)) return execForking(ip, s, scope, [...decisions, test]);
    const arms: A.If = { kind: 'If', test: { kind: 'Constant', value: true, span: s.span }, body: [s], orelse: [s], span: s.span };
    const names = [...assignedNames([s])];
    const after: Map<string, PyValue | undefined>[] = [];
    dynamicIf(ip, arms, test, scope, (k) => {
      execForking(ip, s, scope, [...decisions, k === 0]);
      after[k] = new Map(names.map((n) => [n, scope.vars.get(n)]));
    });
    // the host program after the statement holds data made in either outcome, not a function made in one
    for (const n of names) {
      if (after.length === 2 && !sameCode(after[0]!.get(n), after[1]!.get(n))) {
        throw new CompileError(
          `NotImplementedError: '${n}' is a function (or object) made by a differentiation that branched on a value known only when the program runs; jaxts lowers that statement once per outcome and cannot keep such a value after it`,
          s.span,
          ['use the function in the same statement (vjp_fun(ct) beside jax.vjp), or pass a value known at compile time'],
        );
      }
    }
  }
}

/** `return value` at host level whose value forks (see execForking): the value's outcomes merged, then returned. */
function returnForking(ip: Interp, s: A.Return, value: A.Expr, scope: Scope): void {
  try {
    withDecisions([], () => execStmt(ip, s, scope));
  } catch (e) {
    if (!(e instanceof ForkRequest) || !ip.atHost) throw e;
    const name = '<return>';
    execForking(ip, { kind: 'Assign', targets: [{ kind: 'Name', id: name, span: s.span }], value, span: s.span }, scope);
    const v = scope.vars.get(name);
    scope.vars.delete(name);
    throw new ReturnSignal(v ?? null);
  }
}

/** Do two outcomes' values differ only in data (arrays, numbers, strings), which the host program can merge? */
function sameCode(a: PyValue | undefined, b: PyValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return true;
  const data = (v: PyValue): boolean => v === null || typeof v !== 'object' || isArray(v) || v instanceof HostScalar || v instanceof NdArray || v instanceof NpScalar;
  if (data(a) && data(b)) return true;
  if ((a instanceof PyTuple && b instanceof PyTuple) || (a instanceof PyList && b instanceof PyList)) {
    return a.items.length === b.items.length && a.items.every((x, i) => sameCode(x, b.items[i]!));
  }
  if (a instanceof PyDict && b instanceof PyDict) return [...a.entries.values()].every(([k, x]) => sameCode(x, b.get(k)));
  return false;
}

function execStmt(ip: Interp, s: A.Stmt, scope: Scope): void {
  switch (s.kind) {
    case 'ExprStmt': {
      const v = evalExpr(ip, s.value, scope);
      // a run-time value whose computation may raise (`items[i]` alone, as a probe in a try) is still computed
      if (v instanceof HostScalar && ip.atHost && mayRaise([{ k: 'expr', e: v.expr }])) ip.emit({ k: 'expr', e: v.expr });
      return;
    }
    case 'Assign': {
      const t0 = s.targets[0]!;
      ip.nameHints = t0.kind === 'Name' ? [t0.id] : t0.kind === 'Tuple' && t0.elts.every((x) => x.kind === 'Name') ? t0.elts.map((x) => (x as A.Name).id) : [];
      let v: PyValue;
      try {
        v = evalExpr(ip, s.value, scope);
      } finally {
        ip.nameHints = [];
      }
      for (const t of s.targets) assignTarget(ip, t, v, scope);
      return;
    }
    case 'AugAssign': {
      const cur = evalExpr(ip, s.target, scope);
      const rhs = evalExpr(ip, s.value, scope);
      // a list or NumPy array changes in place (its __iadd__ …): every name for it sees the change
      const v = inPlace(ip, s.op, cur, rhs, s.span) ?? binop(ip, s.op, cur, rhs, s.span);
      assignTarget(ip, s.target, v, scope);
      return;
    }
    case 'AnnAssign':
      if (s.value) assignTarget(ip, s.target, evalExpr(ip, s.value, scope), scope);
      return;
    case 'FunctionDef': {
      if (s.isAsync) {
        // a coroutine runs only under an event loop: calling one would silently not run its body
        const { start } = s.span;
        throw new CompileError("NotImplementedError: 'async def' functions (coroutines) are not supported by jaxts", { start, end: { ...start, col: start.col + 5, offset: start.offset + 5 } });
      }
      const defaults = new Map<string, PyValue>();
      for (const p of s.params) if (p.default) defaults.set(p.name, evalExpr(ip, p.default, scope));
      let fn: PyValue = new PyFunction(s.name, s, scope, defaults);
      for (let i = s.decorators.length - 1; i >= 0; i--) {
        const d = s.decorators[i]!;
        fn = ip.call(evalExpr(ip, d, scope), { args: [fn], kwargs: new Map(), span: d.span });
      }
      scope.vars.set(s.name, fn);
      return;
    }
    case 'ClassDef':
      scope.vars.set(s.name, classDef(ip, s, scope));
      return;
    case 'Return':
      throw new ReturnSignal(s.value ? evalExpr(ip, s.value, scope) : null);
    case 'If': {
      const test = testTruth(ip, s.test, scope);
      if (test instanceof HostScalar) return dynamicIf(ip, s, test, scope);
      execBlock(ip, test ? s.body : s.orelse, scope);
      return;
    }
    case 'For':
      return execFor(ip, s, scope);
    case 'While':
      return execWhile(ip, s, scope);
    case 'Pass':
      return;
    case 'Break':
      throw new BreakSignal();
    case 'Continue':
      throw new ContinueSignal();
    case 'Import':
      for (const a of s.names) {
        const mod = ip.library.importModule(a.name, a.span);
        if (a.asname) scope.vars.set(a.asname, mod);
        else {
          const top = a.name.split('.')[0]!;
          scope.vars.set(top, ip.library.importModule(top, a.span));
        }
      }
      return;
    case 'ImportFrom': {
      if (s.level) throw new CompileError('relative imports are not supported', s.span);
      const mod = ip.library.importModule(s.module!, s.span);
      for (const a of s.names) {
        if (a.name === '*') {
          // the module's __all__, else its names that do not start with an underscore
          const all = mod.attrs.get('__all__');
          const names = all instanceof PyList || all instanceof PyTuple ? all.items.filter((n): n is string => typeof n === 'string') : [...mod.attrs.keys()].filter((n) => !n.startsWith('_'));
          for (const n of names) {
            const v = mod.attrs.get(n);
            if (v !== undefined) scope.vars.set(n, v);
          }
          continue;
        }
        let v = mod.attrs.get(a.name);
        if (v === undefined) {
          try {
            v = ip.library.importModule(`${s.module}.${a.name}`, a.span);
          } catch {
            throw new CompileError(`ImportError: cannot import name '${a.name}' from '${s.module}'`, a.span);
          }
        }
        scope.vars.set(a.asname ?? a.name, v);
      }
      return;
    }
    case 'Assert': {
      const t = testTruth(ip, s.test, scope);
      if (t instanceof HostScalar) return runTimeAssert(ip, s, t, scope);
      if (!t) {
        const args = s.msg ? [evalExpr(ip, s.msg, scope)] : [];
        throw raiseValue(ip, newException(EXCEPTIONS.get('AssertionError')!, args), s.span);
      }
      return;
    }
    case 'Del':
      for (const t of s.targets) delTarget(ip, t, scope);
      return;
    case 'Global':
    case 'Nonlocal':
      for (const n of s.names) declareOuter(ip, scope, n, s);
      return;
    case 'Raise': {
      if (!s.exc) {
        const cur = ip.handling[ip.handling.length - 1];
        if (!cur) throw new CompileError('RuntimeError: No active exception to reraise', s.span);
        throw raiseValue(ip, cur, s.span);
      }
      const e = raiseValue(ip, evalExpr(ip, s.exc, scope), s.span);
      if (s.cause) evalExpr(ip, s.cause, scope);
      throw e;
    }
    case 'With':
      return execWith(ip, s, 0, scope);
    case 'Try':
      return execTry(ip, s, scope);
    case 'Match':
      return execMatch(ip, s, scope);
  }
}

/** `match subject:` runs the first case whose pattern matches (binding its names) and whose guard holds. */
function execMatch(ip: Interp, s: A.Match, scope: Scope): void {
  const subject = evalExpr(ip, s.subject, scope);
  const start = ip.atHost ? (ip.flush(), ip.checkpoint()) : null;
  const vars = new Map(scope.vars);
  try {
    for (const c of s.cases) {
      const binds = new Map<string, PyValue>();
      if (!matchPattern(ip, c.pattern, subject, binds, scope)) continue;
      binds.forEach((v, name) => assignTarget(ip, { kind: 'Name', id: name, span: c.pattern.span }, v, scope));
      if (c.guard && !truthyStatic(ip, evalExpr(ip, c.guard, scope), c.guard.span)) continue;
      return execBlock(ip, c.body, scope);
    }
  } catch (e) {
    // a subject known only when the program runs: the match as the if/elif chain it means, where its patterns allow
    const chain = e instanceof NeedsStatic && start ? matchAsIf(ip, s, subject, scope) : null;
    if (!chain || !start) throw e;
    ip.rollback(start);
    scope.vars.clear();
    vars.forEach((v, k) => scope.vars.set(k, v));
    scope.vars.set(chain.subject, subject);
    try {
      execBlock(ip, chain.stmts, scope);
    } finally {
      scope.vars.delete(chain.subject);
    }
  }
}

let matchSubjects = 0;
/** The ifs that stand for a match statement (see matchAsIf): the match. */
const matchOrigins = new WeakMap<A.If, A.Match>();

/**
 * `match` on a value known only when the program runs as an if/elif chain on it (the subject bound once to a
 * hidden name): literal, singleton, capture, wildcard and `as` patterns, or-patterns without captures, and
 * sequence patterns (no star) of a tuple or list whose length is known; captures are bound before the guard.
 * Null where a pattern is of another kind.
 */
function matchAsIf(ip: Interp, s: A.Match, subject: PyValue, scope: Scope): { stmts: A.Stmt[]; subject: string } | null {
  const subjectName = `__match_subject_${++matchSubjects}`;
  const span = s.span;
  const TRUE = 'always';
  const and = (xs: (A.Expr | typeof TRUE)[]): A.Expr | typeof TRUE => {
    const es = xs.filter((x): x is A.Expr => x !== TRUE);
    return es.length === 0 ? TRUE : es.length === 1 ? es[0]! : { kind: 'BoolOp', op: 'and', values: es, span };
  };
  // the test of `p` on the value `v` at `path`, its captures appended to `caps`
  const test = (p: A.Pattern, v: PyValue, path: A.Expr, caps: [string, A.Expr][]): A.Expr | typeof TRUE | null => {
    switch (p.kind) {
      case 'MatchValue':
        return { kind: 'Compare', left: path, ops: ['=='], comparators: [p.value], span: p.span };
      case 'MatchSingleton':
        return { kind: 'Compare', left: path, ops: ['is'], comparators: [{ kind: 'Constant', value: p.value, span: p.span }], span: p.span };
      case 'MatchAs': {
        const t = p.pattern ? test(p.pattern, v, path, caps) : TRUE;
        if (p.name) caps.push([p.name, path]);
        return t;
      }
      case 'MatchOr': {
        const ts: A.Expr[] = [];
        for (const q of p.patterns) {
          const inner: [string, A.Expr][] = [];
          const t = test(q, v, path, inner);
          if (t === null || inner.length) return null;
          if (t === TRUE) return TRUE;
          ts.push(t);
        }
        return { kind: 'BoolOp', op: 'or', values: ts, span: p.span };
      }
      case 'MatchSequence': {
        if (!(v instanceof PyList || v instanceof PyTuple) || p.patterns.some((q) => q.kind === 'MatchStar')) return null;
        if (v.items.length !== p.patterns.length) return { kind: 'Constant', value: false, span: p.span };
        const ts = p.patterns.map((q, k) => test(q, v.items[k]!, { kind: 'Subscript', value: path, slice: { kind: 'Constant', value: BigInt(k), span: q.span }, span: q.span }, caps));
        return ts.some((t) => t === null) ? null : and(ts as (A.Expr | typeof TRUE)[]);
      }
      default:
        return null;
    }
  };
  let rest: A.Stmt[] = [];
  for (const c of [...s.cases].reverse()) {
    const caps: [string, A.Expr][] = [];
    const t = test(c.pattern, subject, { kind: 'Name', id: subjectName, span: c.pattern.span }, caps);
    if (t === null) return null;
    const body: A.Stmt[] = [
      ...caps.map(([name, path]): A.Stmt => ({ kind: 'Assign', targets: [{ kind: 'Name', id: name, span: c.pattern.span }], value: path, span: c.pattern.span } as A.Stmt)),
      ...(c.guard ? [{ kind: 'If', test: c.guard, body: c.body, orelse: rest, span: c.guard.span } as A.If] : c.body),
    ];
    if (t !== TRUE) {
      const stmt: A.If = { kind: 'If', test: t, body, orelse: rest, span: c.pattern.span };
      matchOrigins.set(stmt, s);
      rest = [stmt];
    } else rest = body;
    for (const st of body) if (st.kind === 'If' && st.test === c.guard) matchOrigins.set(st, s);
  }
  return { stmts: rest, subject: subjectName };
}

/** Built-in classes whose class pattern's one positional sub-pattern matches the subject itself. */
const SELF_MATCHING = new Set(['bool', 'bytearray', 'bytes', 'dict', 'float', 'frozenset', 'int', 'list', 'set', 'str', 'tuple']);

/** Does `v` match pattern `p` (CPython's rules)? Captured names go into `binds`. */
function matchPattern(ip: Interp, p: A.Pattern, v: PyValue, binds: Map<string, PyValue>, scope: Scope): boolean {
  const span = p.span;
  const equal = (a: PyValue, b: PyValue): boolean => truthyStatic(ip, compare(ip, '==', a, b, span), span);
  switch (p.kind) {
    case 'MatchAs':
      if (p.pattern && !matchPattern(ip, p.pattern, v, binds, scope)) return false;
      if (p.name) binds.set(p.name, v);
      return true;
    case 'MatchStar':
      throw new CompileError("SyntaxError: can't use starred name here", span);
    case 'MatchSingleton':
      return v === p.value;
    case 'MatchValue':
      return equal(v, evalExpr(ip, p.value, scope));
    case 'MatchOr':
      return p.patterns.some((q) => {
        const inner = new Map<string, PyValue>();
        if (!matchPattern(ip, q, v, inner, scope)) return false;
        inner.forEach((x, k) => binds.set(k, x));
        return true;
      });
    case 'MatchSequence': {
      // sequences: list and tuple (str, bytes and dict are not sequences to a pattern)
      if (!(v instanceof PyList || v instanceof PyTuple)) return false;
      const items = v.items;
      const star = p.patterns.findIndex((q) => q.kind === 'MatchStar');
      if (star < 0 ? items.length !== p.patterns.length : items.length < p.patterns.length - 1) return false;
      const after = star < 0 ? 0 : p.patterns.length - star - 1;
      return p.patterns.every((q, i) => {
        if (q.kind === 'MatchStar') {
          if (q.name) binds.set(q.name, new PyList(items.slice(star, items.length - after)));
          return true;
        }
        const x = star >= 0 && i > star ? items[items.length - (p.patterns.length - i)]! : items[i]!;
        return matchPattern(ip, q, x, binds, scope);
      });
    }
    case 'MatchMapping': {
      if (!(v instanceof PyDict)) return false;
      const used = new Set<unknown>();
      const ok = p.keys.every((k, i) => {
        const key = evalExpr(ip, k, scope);
        const dk = dictKey(key);
        if (!v.entries.has(dk)) return false;
        used.add(dk);
        return matchPattern(ip, p.patterns[i]!, v.entries.get(dk)![1], binds, scope);
      });
      if (ok && p.rest) {
        const rest = new PyDict();
        v.entries.forEach(([k, x], dk) => {
          if (!used.has(dk)) rest.set(k, x);
        });
        binds.set(p.rest, rest);
      }
      return ok;
    }
    case 'MatchClass': {
      const cls = evalExpr(ip, p.cls, scope);
      const isinstance = ip.builtins.vars.get('isinstance')!;
      if (!truthyStatic(ip, ip.call(isinstance, { args: [v, cls], kwargs: new Map(), span }), span)) return false;
      const attr = (name: string): PyValue | undefined => {
        try {
          return getAttr(ip, v, name, span);
        } catch (e) {
          if (e instanceof CompileError && /^AttributeError/.test(e.message)) return undefined;
          throw e;
        }
      };
      let positional: string[] = [];
      if (p.patterns.length) {
        const builtinName = cls instanceof PyBuiltin && ip.builtins.vars.get(cls.name) === cls ? cls.name : '';
        if (SELF_MATCHING.has(builtinName)) {
          if (p.patterns.length > 1) throw new CompileError(`TypeError: ${builtinName}() accepts 1 positional sub-pattern (${p.patterns.length} given)`, span);
          if (!matchPattern(ip, p.patterns[0]!, v, binds, scope)) return false;
        } else {
          positional = matchArgs(ip, cls, span);
          if (p.patterns.length > positional.length) {
            const clsName = cls instanceof PyUserClass || cls instanceof PyClass || cls instanceof PyBuiltin ? cls.name : typeName(cls);
            throw new CompileError(`TypeError: ${clsName}() accepts ${positional.length} positional sub-pattern${positional.length === 1 ? '' : 's'} (${p.patterns.length} given)`, span);
          }
          positional = positional.slice(0, p.patterns.length);
        }
      }
      const names = [...positional, ...p.kwdAttrs];
      const pats = [...(positional.length ? p.patterns : []), ...p.kwdPatterns];
      return names.every((n, i) => {
        const x = attr(n);
        return x !== undefined && matchPattern(ip, pats[i]!, x, binds, scope);
      });
    }
  }
}

/** A class's `__match_args__`: a dataclass's fields, a namedtuple's fields, or the class attribute. */
function matchArgs(ip: Interp, cls: PyValue, span: A.Span): string[] {
  if (cls instanceof PyClass && cls.kind === 'namedtuple') return cls.fields;
  const dc = cls instanceof PyUserClass ? cls.mro.find((k) => k.dataclass)?.dataclass : undefined;
  if (dc) return dc.fields;
  try {
    const m = getAttr(ip, cls, '__match_args__', span);
    return [...iterItems(ip, m, span)].map((x) => String(x));
  } catch (e) {
    if (e instanceof CompileError && /^AttributeError/.test(e.message)) return [];
    throw e;
  }
}

/** `x op= y` where x is a list or a NumPy array: Python changes x itself and returns it; null for other values. */
function inPlace(ip: Interp, op: A.BinOpName, cur: PyValue, rhs: PyValue, span: A.Span): PyValue | null {
  if (cur instanceof HostList && op === '+') {
    hostListMethod(ip, cur, 'extend')!([rhs], span);
    return cur;
  }
  if (cur instanceof PyList && (op === '+' || op === '*')) {
    if (ip.dynamicDepth > 0 && cur.depth !== ip.dynamicDepth) throw new NeedsStatic('changing a list inside a loop that runs on the host', span);
    if (op === '+') {
      const items = iterItems(ip, rhs, span);
      for (const x of items) cur.items.push(x);
    } else {
      const n = ip.static(rhs, 'a repeat count', span);
      if (typeof n !== 'bigint' && typeof n !== 'boolean') throw new CompileError(`TypeError: can't multiply sequence by non-int of type '${typeName(n)}'`, span);
      const copy = [...cur.items];
      cur.items.length = 0;
      for (let i = 0; i < Number(n); i++) for (const x of copy) cur.items.push(x);
    }
    return cur;
  }
  if (cur instanceof NdArray && !isArray(rhs)) {
    const v = binop(ip, op, cur, rhs, span);
    if (!(v instanceof NdArray)) return null;
    if (v.shape.join() !== cur.shape.join()) {
      throw new CompileError(`ValueError: non-broadcastable output operand with shape (${cur.shape.join(', ')}${cur.shape.length === 1 ? ',' : ''}) doesn't match the broadcast shape (${v.shape.join(', ')}${v.shape.length === 1 ? ',' : ''})`, span);
    }
    const kind = (d: NdArray['dtype']): number => (d === 'bool' ? 0 : d.startsWith('int') ? 1 : 2);
    if (kind(v.dtype) > kind(cur.dtype)) {
      const ufunc = { '+': 'add', '-': 'subtract', '*': 'multiply', '/': 'divide', '//': 'floor_divide', '%': 'remainder', '**': 'power' }[op as string] ?? op;
      throw new CompileError(`UFuncTypeError: Cannot cast ufunc '${ufunc}' output from dtype('${v.dtype}') to dtype('${cur.dtype}') with casting rule 'same_kind'`, span);
    }
    if (ip.dynamicDepth > 0) throw new NeedsStatic('changing a NumPy array inside a loop that runs on the host', span);
    v.data.forEach((x, i) => (cur.data[i] = cur.dtype === 'float32' ? Math.fround(x) : cur.dtype === 'bool' ? Number(x !== 0) : x));
    ip.constantChanged(cur);
    return cur;
  }
  return null;
}

// ------------------------------------------------------------------ lazy generators

const yieldsIn = new WeakMap<object, boolean>();
/** Does the statement contain a `yield` of its own (not one of a nested function, class or lambda)? */
function hasYield(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(hasYield);
  if (!n || typeof n !== 'object') return false;
  const kind = (n as { kind?: string }).kind;
  if (kind === 'Yield') return true;
  if (kind === 'FunctionDef' || kind === 'ClassDef' || kind === 'Lambda') return false;
  let r = yieldsIn.get(n);
  if (r === undefined) {
    r = Object.entries(n).some(([k, v]) => k !== 'span' && typeof v === 'object' && hasYield(v));
    yieldsIn.set(n, r);
  }
  return r;
}

/** Steps a generator's loop may take between two items (a loop that never yields again is an endless compile). */
const MAX_STEPS_BETWEEN_ITEMS = MAX_LOOP_STEPS;

/**
 * A generator function's body, run lazily: a JS generator that runs the statements up to each `yield`
 * and hands its item over, resuming where it stopped when the next item is pulled (`next()`, a `for`,
 * `zip`). Statements without a yield run as usual; `yield` stands as a statement (`yield x`,
 * `yield from xs`, `v = yield x`) inside if / while / for / try / with.
 */
function* genBlock(ip: Interp, body: A.Stmt[], scope: Scope): Gen {
  for (const s of body) {
    ip.line = s.span.start.line;
    if (hasYield(s)) yield* genStmt(ip, s, scope);
    else execStmt(ip, s, scope);
  }
}

/** A generator body: yields items, receives what `send` passes in (undefined for next()). */
type Gen = Generator<PyValue, void, PyValue | undefined>;

/** `yield x` (its value: what is sent in, None for next()) or `yield from it` (its value: the sub-generator's return value). */
function* yieldItems(ip: Interp, e: A.Yield, scope: Scope): Generator<PyValue, PyValue, PyValue | undefined> {
  const v = e.value ? evalExpr(ip, e.value, scope) : null;
  if (!e.isFrom) return (yield v) ?? null;
  const sub = v instanceof PyIterator ? v.generator : null;
  if (sub) {
    // a generator delegated to: what is sent (or thrown) in goes to it, its return value is the yield from's
    let r = sub.send(null);
    while (!r.done) {
      let sent: PyValue | undefined;
      try {
        sent = yield r.value;
      } catch (err) {
        r = sub.throw(err);
        continue;
      }
      r = sub.send(sent ?? null);
    }
    return r.value;
  }
  for (const x of iterItems(ip, v, e.span)) yield x;
  return null;
}

/** The `yield` an expression statement, assignment, augmented assignment or return is made of (null: none at its top). */
const yieldOf = (s: A.Stmt): A.Yield | null => {
  const v = s.kind === 'ExprStmt' || s.kind === 'Assign' || s.kind === 'AugAssign' || s.kind === 'Return' ? s.value : null;
  return v?.kind === 'Yield' ? v : null;
};

function* genStmt(ip: Interp, s: A.Stmt, scope: Scope): Gen {
  const y = yieldOf(s);
  switch (y ? s.kind : '') {
    case 'ExprStmt':
      yield* yieldItems(ip, y!, scope);
      return;
    case 'Assign': {
      const sent = yield* yieldItems(ip, y!, scope);
      for (const t of (s as A.Assign).targets) assignTarget(ip, t, sent, scope);
      return;
    }
    case 'AugAssign': {
      const a = s as A.AugAssign;
      const sent = yield* yieldItems(ip, y!, scope);
      assignTarget(ip, a.target, binop(ip, a.op, evalExpr(ip, a.target, scope), sent, a.span), scope);
      return;
    }
    case 'Return':
      throw new ReturnSignal(yield* yieldItems(ip, y!, scope));
  }
  switch (s.kind) {
    case 'If': {
      const t = truthyStatic(ip, evalExpr(ip, s.test, scope), s.test.span);
      return yield* genBlock(ip, t ? s.body : s.orelse, scope);
    }
    case 'While': {
      let steps = 0;
      while (truthyStatic(ip, evalExpr(ip, s.test, scope), s.test.span)) {
        if (++steps > MAX_STEPS_BETWEEN_ITEMS) throw new CompileError(`while loop did not finish at compile time (after ${MAX_LOOP_STEPS} steps)`, s.span);
        try {
          const body = genBlock(ip, s.body, scope);
          for (let r = body.next(); !r.done; ) {
            steps = 0;
            r = body.next(yield r.value);
          }
        } catch (e) {
          if (e instanceof BreakSignal) return;
          if (!(e instanceof ContinueSignal)) throw e;
        }
      }
      return yield* genBlock(ip, s.orelse, scope);
    }
    case 'For': {
      const iter = evalExpr(ip, s.iter, scope);
      for (const item of iterItems(ip, iter, s.iter.span)) {
        assignTarget(ip, s.target, item, scope);
        try {
          yield* genBlock(ip, s.body, scope);
        } catch (e) {
          if (e instanceof BreakSignal) return;
          if (!(e instanceof ContinueSignal)) throw e;
        }
      }
      return yield* genBlock(ip, s.orelse, scope);
    }
    case 'Try':
      // as execTry, with yields in the body, the handlers and the else
      try {
        let caught = false;
        try {
          yield* genBlock(ip, s.body, scope);
        } catch (e) {
          const exc = s.handlers.length ? caughtException(e) : null;
          if (!exc) throw e;
          const h = s.handlers.find((h) => !h.type || exceptionMatches(exc, evalExpr(ip, h.type, scope), h.type.span));
          if (!h) throw e;
          caught = true;
          if (h.name) scope.vars.set(h.name, exc);
          ip.handling.push(exc);
          try {
            yield* genBlock(ip, h.body, scope);
          } finally {
            ip.handling.pop();
            if (h.name) scope.vars.delete(h.name);
          }
        }
        if (!caught) yield* genBlock(ip, s.orelse, scope);
      } finally {
        execBlock(ip, s.finalbody, scope);
      }
      return;
  }
  const what: Record<string, string> = { ExprStmt: 'expression', Assign: 'assignment', AugAssign: 'augmented assignment', Return: 'return', With: 'with statement' };
  throw new CompileError(`a 'yield' inside this ${what[s.kind] ?? s.kind} of a generator is not supported (it is as a statement: \`yield x\`, \`v = yield x\`, \`v += yield x\`)`, s.span);
}

/** Calling a generator function: a generator object whose body runs as items are pulled (see genBlock). */
export function lazyGenerator(ip: Interp, fn: PyFunction, scope: Scope): PyIterator {
  const gen = genBlock(ip, (fn.def as A.FunctionDef).body, scope);
  let done = false;
  let started = false;
  let items = 0;
  const step = (resume: () => IteratorResult<PyValue, void>): IteratorResult<PyValue, PyValue> => {
    if (done) return { done: true, value: null };
    if (++items > MAX_LOOP_STEPS) {
      throw new CompileError(`generator '${fn.name}' yields more than ${MAX_LOOP_STEPS} items at compile time (an endless generator consumed whole, such as list() of it)`, fn.def.span);
    }
    // the generator's locals are live (roots of a flush) while it runs, and between items through the iterator
    ip.frames.push(scope);
    const line = ip.line;
    started = true;
    try {
      const r = resume();
      if (r.done) done = true;
      return r.done ? { done: true, value: null } : r;
    } catch (e) {
      done = true;
      if (e instanceof ReturnSignal) return { done: true, value: e.value };
      throw e;
    } finally {
      ip.frames.pop();
      ip.line = line;
    }
  };
  const control: GeneratorControl = {
    send: (v) => {
      if (!started && v !== null) throw new CompileError("TypeError: can't send non-None value to a just-started generator", fn.def.span);
      return step(() => gen.next(v));
    },
    // an exception thrown in where the generator stopped (before it started, it is raised at once)
    throw: (e) => (started && !done ? step(() => gen.throw(e)) : ((done = true), (() => { throw e; })())),
    close: () => {
      if (started && !done) {
        ip.frames.push(scope);
        try {
          gen.return();
        } finally {
          ip.frames.pop();
        }
      }
      done = true;
    },
  };
  const it = new PyIterator('generator', { next: () => { const r = control.send(null); return r.done ? { done: true, value: undefined } : r; } }, [new PyFunction(fn.name, fn.def, scope, new Map())]);
  it.generator = control;
  return it;
}

// ------------------------------------------------------------------ try, with, del, global

function execTry(ip: Interp, s: A.Try, scope: Scope): void {
  try {
    let caught = false;
    try {
      if (ip.atHost && s.handlers.length) caught = runTimeTry(ip, s, scope);
      else execBlock(ip, s.body, scope);
    } catch (e) {
      const exc = s.handlers.length ? caughtException(e) : null;
      if (!exc) throw e;
      const h = s.handlers.find((h) => !h.type || exceptionMatches(exc, evalExpr(ip, h.type, scope), h.type.span));
      if (!h) throw e;
      caught = true;
      if (h.name) scope.vars.set(h.name, exc);
      caughtTracebacks.set(exc, caughtFrames(e, ip.functionNames[ip.functionNames.length - 1] ?? '<module>'));
      ip.handling.push(exc);
      try {
        execBlock(ip, h.body, scope);
      } finally {
        ip.handling.pop();
        // as Python: the name is unbound when the handler ends
        if (h.name) scope.vars.delete(h.name);
      }
    }
    if (!caught) execBlock(ip, s.orelse, scope);
  } finally {
    execBlock(ip, s.finalbody, scope);
  }
}

/** Runtime helpers that raise a Python exception at run time (IndexError, ZeroDivisionError, a `raise` in a run-time branch, …). */
const RAISING = new Set(['jx.pyIndex', 'jx.pyListExtreme', 'jx.pyListFind', 'jx.pyListPop', 'jx.pySlice', 'jx.pyStrSlice', 'jx.pyStrIndex', 'jx.truediv', 'jx.floordiv', 'jx.math1', 'jx.floatpow', 'jx.mod', 'jx.bitop', 'jx.pyRound', 'jx.pyRaise', 'jx.pyAssert', 'jx.notNone', 'jx.item', 'jx.bigFloordiv', 'jx.bigMod', ...RAISING_STR_METHODS]);

/** Exceptions raised at run time that no other one raised there derives from, whose str() is their message. */
const EXACT_RUNTIME_EXCEPTIONS = new Set(['IndexError', 'ZeroDivisionError', 'ValueError', 'TypeError', 'OverflowError', 'AssertionError']);

/** Runtime methods that run an array program (its NaN checks raise JAX's FloatingPointError under jax_debug_nans). */
const PROGRAM_CALLS = new Set(['rt.call', 'rt.pmap', 'rt.spmd']);

/** Does host expression `e` run a program made under jax_debug_nans (which raises FloatingPointError when a NaN appears)? */
function nanChecked(ip: Interp, e: HExpr): boolean {
  if (e.k !== 'call' || !PROGRAM_CALLS.has(e.callee)) return false;
  const p = e.args[0];
  return p?.k === 'program' && ip.programs.some((r) => r.name === p.name && r.debugNans);
}

/** The exception classes `stmts` may raise at run time when each raising call is a `jx.pyRaise` of a known message (else null). */
function raisedTypes(ip: Interp, stmts: HStmt[]): Set<string> | null {
  const types = new Set<string>();
  let known = true;
  walkHost(stmts, {
    expr: (e) => {
      if (nanChecked(ip, e)) types.add('FloatingPointError');
      // (jx.item raises only for an array of more than one element, whose shape is known here: not at run time)
      if (e.k !== 'call' || !RAISING.has(e.callee) || e.callee === 'jx.item') return;
      const m = e.callee === 'jx.pyRaise' && e.args[0]?.k === 'lit' && typeof e.args[0].value === 'string' ? /^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?::|$)/.exec(e.args[0].value) : null;
      if (m) types.add(m[1]!);
      else known = false;
    },
  });
  return known ? types : null;
}

const mayRaise = (stmts: HStmt[], ip?: Interp): boolean => {
  let raises = false;
  walkHost(stmts, { expr: (e) => void (raises ||= (e.k === 'call' && RAISING.has(e.callee)) || (ip !== undefined && nanChecked(ip, e))) });
  return raises;
};

/**
 * A `try` at host level whose body may raise only when the program runs (an index read back from the
 * device, a division by a run-time zero, a `raise` in a branch taken at run time): a TS try/catch whose
 * catch runs the matching `except` clause (`except E as e:` binds str(e)). The body is lowered once; the
 * clauses are lowered as the arms of a run-time if, their names merged as an if's. Returns true when the
 * body and its `else` ran that way (the caller runs neither again); a body that raises while it is lowered
 * goes on to the caller's compile-time handling.
 */
function runTimeTry(ip: Interp, s: A.Try, scope: Scope): boolean {
  ip.flush();
  const before = new Map(scope.vars);
  let err: unknown = null;
  const stmts = ip.collect(() => {
    try {
      execBlock(ip, s.body, scope);
      ip.flush();
      // a host value the body computes that may raise (`q = 7 // d`) is computed inside the try
      for (const [n, v] of scope.vars) {
        if (v === before.get(n) || !(v instanceof HostScalar) || v.raw !== null || !mayRaise([{ k: 'expr', e: v.expr }])) continue;
        const name = ip.freshName(n);
        ip.emit({ k: 'const', names: [name], value: v.expr });
        scope.vars.set(n, new HostScalar({ k: 'var', name }, v.type));
      }
    } catch (e) {
      err = e;
    }
  });
  if (err !== null || !mayRaise(stmts, ip) || ip.dynamicDepth > 0) {
    stmts.forEach((st) => ip.emit(st));
    if (err !== null) throw err;
    return false;
  }
  const after = new Map(scope.vars);
  scope.vars.clear();
  before.forEach((v, k) => scope.vars.set(k, v));
  const catchVar = ip.freshName('e');
  const excVar = ip.freshName('exc');
  const fakeIf = (body: A.Stmt[], orelse: A.Stmt[]): A.If => ({ kind: 'If', test: { kind: 'Constant', value: true, span: s.span } as unknown as A.Expr, body, orelse, span: s.span });
  const marker = new HostScalar({ k: 'var', name: catchVar }, 'bool');
  // the one class the body can raise, when every raise in it is of a known message (a jax.debug.breakpoint's JaxRuntimeError)
  const raised = raisedTypes(ip, stmts);
  const sole = raised?.size === 1 ? EXCEPTIONS.get([...raised][0]!) ?? null : null;
  const runHandler = (h: A.ExceptHandler, only: PyUserClass | null): void => {
    // `except E as e`: an E whose message is known at run time (where E has no subclass jaxts raises at run time
    // and its str() is its message), or the sole class the body raises; else the message itself
    const message = new HostScalar({ k: 'member', x: { k: 'var', name: excVar }, key: 'message' }, 'str');
    const cls = only && EXACT_RUNTIME_EXCEPTIONS.has(only.name) && EXCEPTIONS.get(only.name) === only ? only : sole;
    const exc = newException(cls ?? EXCEPTIONS.get('Exception')!, [message]);
    if (h.name) scope.vars.set(h.name, cls ? exc : message);
    // what traceback.format_exc shows while the clause runs: the exception caught at run time
    runTimeCaught.set(exc, excVar);
    ip.handling.push(exc);
    try {
      execBlock(ip, h.body, scope);
    } finally {
      ip.handling.pop();
    }
    if (h.name) scope.vars.delete(h.name);
  };
  const chain = (i: number): void => {
    const h = s.handlers[i];
    if (!h) throw new RunTimeThrow({ k: 'expr', e: { k: 'call', callee: 'jx.pyRethrow', args: [{ k: 'var', name: catchVar }] } });
    const clause = h.type ? evalExpr(ip, h.type, scope) : null;
    const classes = clause === null ? ['BaseException'] : (clause instanceof PyTuple ? clause.items : [clause]).map((c) => {
      if (!isExceptionClass(c)) throw new CompileError('TypeError: catching classes that do not inherit from BaseException is not allowed', h.type!.span);
      return c.name;
    });
    if (classes.includes('Exception') || classes.includes('BaseException')) return runHandler(h, null);
    const only = clause instanceof PyUserClass ? clause : null;
    const matches = (names: string[]): HostScalar => new HostScalar({ k: 'call', callee: 'jx.pyExcMatches', args: [{ k: 'var', name: excVar }, { k: 'array', items: names.map((c) => ({ k: 'lit', value: c })) }] }, 'bool');
    const rest = s.handlers.slice(i + 1).flatMap((x) => x.body);
    // `except (E1, E2) as e` of exceptions raised at run time: one test per class, so that `e` is an instance of the one caught
    const each = clause instanceof PyTuple && h.name ? (clause.items as PyUserClass[]) : [];
    if (each.length > 1 && each.every((c) => EXACT_RUNTIME_EXCEPTIONS.has(c.name) && EXCEPTIONS.get(c.name) === c)) {
      const perClass = (k: number): void => {
        if (k === each.length) return chain(i + 1);
        dynamicIf(ip, fakeIf(h.body, [...h.body, ...rest]), matches([each[k]!.name]), scope, (arm) => (arm === 0 ? runHandler(h, each[k]!) : perClass(k + 1)));
      };
      return perClass(0);
    }
    dynamicIf(ip, fakeIf(h.body, rest), matches(classes), scope, (arm) => (arm === 0 ? runHandler(h, only) : chain(i + 1)));
  };
  let out: HStmt[];
  try {
    out = ip.collect(() =>
    dynamicIf(ip, fakeIf([...s.body, ...s.orelse], s.handlers.flatMap((h) => h.body)), marker, scope, (arm) => {
      if (arm === 0) {
        stmts.forEach((st) => ip.emit(st));
        scope.vars.clear();
        after.forEach((v, k) => scope.vars.set(k, v));
        execBlock(ip, s.orelse, scope);
      } else {
        ip.emit({ k: 'const', names: [excVar], value: { k: 'call', callee: 'jx.pyCaught', args: [{ k: 'var', name: catchVar }] } });
        // the functions and classes the body defines (at its top, before what raises at run time) stay defined
        for (const st of s.body) if ((st.kind === 'FunctionDef' || st.kind === 'ClassDef') && after.has(st.name)) scope.vars.set(st.name, after.get(st.name)!);
        chain(0);
      }
    }),
    );
  } catch (e) {
    // clauses that cannot run as arms of a run-time if (a `return` in one): the body runs as it is, uncaught at run time
    if (!(e instanceof CompileError || e instanceof NeedsStatic || e instanceof ReturnSignal || e instanceof BreakSignal || e instanceof ContinueSignal)) throw e;
    scope.vars.clear();
    after.forEach((v, k) => scope.vars.set(k, v));
    stmts.forEach((st) => ip.emit(st));
    return false;
  }
  const last = out[out.length - 1];
  if (!last || last.k !== 'if' || last.test !== marker.expr) throw new CompileError('internal: a run-time try lost its if', s.span);
  out[out.length - 1] = { k: 'try', body: last.then, catchVar, handler: last.else };
  out.forEach((st) => ip.emit(st));
  return true;
}

/** `with a as x, b as y:` as nested withs; the context-manager protocol is __enter__/__exit__ (user classes, library objects). */
function execWith(ip: Interp, s: A.With, i: number, scope: Scope): void {
  if (i === s.items.length) return execBlock(ip, s.body, scope);
  const item = s.items[i]!;
  const mgr = evalExpr(ip, item.contextExpr, scope);
  const span = item.contextExpr.span;
  const method = (name: string): PyValue => {
    try {
      return getAttr(ip, mgr, name, span);
    } catch (e) {
      if (e instanceof CompileError && /^AttributeError/.test(e.message)) {
        throw new CompileError(`TypeError: '${typeName(mgr)}' object does not support the context manager protocol`, span);
      }
      throw e;
    }
  };
  const enter = method('__enter__');
  const exit = method('__exit__');
  const call = (fn: PyValue, args: PyValue[]): PyValue => ip.call(fn, { args, kwargs: new Map(), span });
  const v = call(enter, []);
  if (item.optionalVars) assignTarget(ip, item.optionalVars, v, scope);
  try {
    execWith(ip, s, i + 1, scope);
  } catch (e) {
    const exc = caughtException(e);
    if (!exc) {
      call(exit, [null, null, null]);
      throw e;
    }
    if (!truthyStatic(ip, call(exit, [exc.cls, exc, null]), span)) throw e;
    return;
  }
  call(exit, [null, null, null]);
}

function delTarget(ip: Interp, t: A.Expr, scope: Scope): void {
  if (ip.dynamicDepth > 0) throw new NeedsStatic('del inside a loop that runs on the host', t.span);
  switch (t.kind) {
    case 'Name':
      if (!scope.vars.has(t.id)) throw new CompileError(`NameError: name '${t.id}' is not defined`, t.span);
      scope.vars.delete(t.id);
      return;
    case 'Tuple':
    case 'List':
      return t.elts.forEach((x) => delTarget(ip, x, scope));
    case 'Subscript': {
      const obj = evalExpr(ip, t.value, scope);
      const key = ip.static(evalExpr(ip, t.slice, scope), 'a key', t.slice.span);
      if (obj instanceof PyDict) {
        const k = dictKey(key);
        if (!obj.entries.has(k)) throw new CompileError(`KeyError: ${ip.repr(key, t.span).static}`, t.span);
        obj.entries.delete(k);
      } else if (obj instanceof PyList && (typeof key === 'bigint' || typeof key === 'boolean')) {
        const i = Number(key) < 0 ? Number(key) + obj.items.length : Number(key);
        if (i < 0 || i >= obj.items.length) throw new CompileError('IndexError: list assignment index out of range', t.span);
        obj.items.splice(i, 1);
      } else throw new CompileError(`TypeError: '${typeName(obj)}' object does not support item deletion`, t.span);
      return;
    }
    case 'Attribute': {
      const obj = evalExpr(ip, t.value, scope);
      if (obj instanceof PyInstance && obj.attrs.has(t.attr)) obj.attrs.delete(t.attr);
      else throw new CompileError(`AttributeError: '${typeName(obj)}' object has no attribute '${t.attr}'`, t.span);
      return;
    }
    default:
      throw new CompileError(`SyntaxError: cannot delete ${t.kind.toLowerCase()}`, t.span);
  }
}

/**
 * `global x` / `nonlocal x` in a function: the name refers to the module's (or
 * the enclosing function's) binding. The function's scope gets a forwarding
 * entry: assignments go to the outer scope (see assignTarget).
 */
function declareOuter(ip: Interp, scope: Scope, name: string, s: A.Global | A.Nonlocal): void {
  if (scope === ip.globals) return;
  let target: Scope | null = s.kind === 'Global' ? ip.globals : scope.parent;
  if (s.kind === 'Nonlocal') {
    while (target && target !== ip.globals && !target.vars.has(name)) target = target.parent;
    if (!target || target === ip.globals) throw new CompileError(`SyntaxError: no binding for nonlocal '${name}' found`, s.span);
  }
  scope.outer.set(name, target!);
}

function classDef(ip: Interp, s: A.ClassDef, scope: Scope): PyValue {
  const bases = s.bases.map((b) => evalExpr(ip, b, scope));
  if (bases.some((b) => b instanceof PyClass && b.name === 'NamedTuple')) return namedTupleClass(ip, s, scope);
  for (const k of s.keywords) if (k.arg !== 'metaclass') throw new CompileError(`class keyword argument '${k.arg}' is not supported`, k.span);
  // the body runs in its own namespace; its functions see the scope around the class, as in Python
  const ns = new Scope(scope);
  const annotations: string[] = [];
  for (const st of s.body) if (st.kind === 'AnnAssign' && st.target.kind === 'Name') annotations.push(st.target.id);
  execBlock(ip, s.body, ns);
  const reparent = (v: PyValue): void => {
    if (v instanceof PyFunction && v.closure === ns) v.closure = scope;
    else if (v instanceof PyDescriptor) {
      reparent(v.fn);
      reparent(v.setter);
    } else if (v instanceof PyTransformed || v instanceof PyPartial) reparent(v.fn);
  };
  ns.vars.forEach(reparent);
  const made = makeClass(ip, s.name, bases, ns.vars, s.nameSpan);
  made.annotations = annotations;
  if (s.docstring !== null) made.attrs.set('__doc__', s.docstring);
  let cls: PyValue = made;
  for (let i = s.decorators.length - 1; i >= 0; i--) {
    const d = s.decorators[i]!;
    cls = ip.call(evalExpr(ip, d, scope), { args: [cls], kwargs: new Map(), span: d.span });
  }
  return cls;
}

function namedTupleClass(ip: Interp, s: A.ClassDef, scope: Scope): PyClass {
  const fields: string[] = [];
  const defaults = new Map<string, PyValue>();
  // methods and class attributes run in the class namespace; their functions see the scope around the class
  const ns = new Scope(scope);
  for (const st of s.body) {
    if (st.kind === 'AnnAssign' && st.target.kind === 'Name') {
      fields.push(st.target.id);
      if (st.value) defaults.set(st.target.id, evalExpr(ip, st.value, scope));
    } else if (st.kind === 'ExprStmt' && st.value.kind === 'Constant' && typeof st.value.value === 'string') {
      // docstring
    } else if (st.kind === 'FunctionDef' || st.kind === 'Assign') {
      execStmt(ip, st, ns);
    } else if (st.kind !== 'Pass') {
      throw new CompileError('only annotated fields, methods and class attributes are supported in a NamedTuple class body', st.span);
    }
  }
  const cls = new PyClass(s.name, fields, defaults, 'namedtuple');
  ns.vars.forEach((v, k) => {
    if (v instanceof PyFunction && v.closure === ns) v.closure = scope;
    cls.methods.set(k, v);
  });
  return cls;
}

// ------------------------------------------------------------------ host loops

const localNamesCache = new WeakMap<A.Stmt[], Set<string>>();

/**
 * Names that statements bind. `locals`: Python's local variables of a function body (also in with/try
 * blocks and except-as, less names declared global or nonlocal); otherwise the names a loop or if body
 * assigns at its level, with the root object of an attribute assignment (`obj.x = …` changes `obj`).
 */
function boundNames(body: A.Stmt[], locals: boolean): Set<string> {
  const out = new Set<string>();
  const outer = new Set<string>();
  const target = (t: A.Expr): void => {
    if (t.kind === 'Name') out.add(t.id);
    else if (t.kind === 'Attribute' && !locals) {
      // `obj.x = …` changes the object `obj` names: the loop carries it
      let root: A.Expr = t.value;
      while (root.kind === 'Attribute') root = root.value;
      if (root.kind === 'Name') out.add(root.id);
    }
    else if (t.kind === 'Tuple' || t.kind === 'List') t.elts.forEach(target);
    else if (t.kind === 'Starred') target(t.value);
  };
  // the names a match pattern captures (`case [x, *rest]`, `case {"k": v, **others}`, `case p as whole`)
  const captures = (p: A.Pattern): void => {
    switch (p.kind) {
      case 'MatchAs':
        if (p.name) out.add(p.name);
        if (p.pattern) captures(p.pattern);
        break;
      case 'MatchStar':
        if (p.name) out.add(p.name);
        break;
      case 'MatchMapping':
        if (p.rest) out.add(p.rest);
        p.patterns.forEach(captures);
        break;
      case 'MatchClass':
        [...p.patterns, ...p.kwdPatterns].forEach(captures);
        break;
      case 'MatchSequence':
      case 'MatchOr':
        p.patterns.forEach(captures);
        break;
      default:
        break;
    }
  };
  const walk = (ss: A.Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'Assign') s.targets.forEach(target);
      else if (s.kind === 'AugAssign' || s.kind === 'AnnAssign') target(s.target);
      else if (s.kind === 'For') {
        target(s.target);
        walk(s.body);
        walk(s.orelse);
      } else if (s.kind === 'If' || s.kind === 'While') {
        walk(s.body);
        walk(s.orelse);
      } else if (s.kind === 'FunctionDef' || s.kind === 'ClassDef') out.add(s.name);
      else if (s.kind === 'With') {
        s.items.forEach((it) => it.optionalVars && target(it.optionalVars));
        walk(s.body);
      } else if (s.kind === 'Try') {
        [s.body, s.orelse, s.finalbody, ...s.handlers.map((h) => h.body)].forEach(walk);
        s.handlers.forEach((h) => h.name && out.add(h.name));
      } else if (s.kind === 'Match') {
        s.cases.forEach((c) => {
          captures(c.pattern);
          walk(c.body);
        });
      }
      else if (locals && (s.kind === 'Global' || s.kind === 'Nonlocal')) s.names.forEach((n) => outer.add(n));
    }
  };
  walk(body);
  outer.forEach((n) => out.delete(n));
  return out;
}

/** The names a function body binds (its local variables, as Python decides them), less those it declares global or nonlocal. */
export function localNames(body: A.Stmt[]): Set<string> {
  let names = localNamesCache.get(body);
  if (!names) localNamesCache.set(body, (names = boundNames(body, true)));
  return names;
}

/** Names a block assigns (so a host loop knows what it carries). */
function assignedNames(body: A.Stmt[]): Set<string> {
  return boundNames(body, false);
}

/** The names a `for` target binds (`i, (a, b)`). */
function targetNames(t: A.Expr): string[] {
  if (t.kind === 'Name') return [t.id];
  if (t.kind === 'Tuple' || t.kind === 'List') return t.elts.flatMap(targetNames);
  if (t.kind === 'Starred') return targetNames(t.value);
  return [];
}

/** The names `x` of the items a body assigns (`x[k] = v`, `x[k][j] += v`). */
function subscriptRoots(body: A.Stmt[]): Set<string> {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== 'object') return;
    const node = n as A.Stmt;
    if (node.kind === 'FunctionDef' || node.kind === 'ClassDef') return;
    const targets = node.kind === 'Assign' ? node.targets : node.kind === 'AugAssign' ? [node.target] : [];
    for (let t of targets) {
      if (t.kind !== 'Subscript') continue;
      while (t.kind === 'Subscript') t = t.value;
      if (t.kind === 'Name') out.add(t.id);
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'span' && typeof v === 'object') walk(v);
  };
  walk(body);
  return out;
}

/** Names whose methods a block calls (`obj.f(…)`, `obj.a.f(…)`), that it calls, or that it passes to a call, outside nested functions and classes. */
function methodReceivers(body: A.Stmt[]): Set<string> {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== 'object') return;
    const node = n as { kind?: string };
    if (node.kind === 'FunctionDef' || node.kind === 'ClassDef' || node.kind === 'Lambda') return;
    if (node.kind === 'Call') {
      let f = (n as A.Call).func;
      while (f.kind === 'Attribute') f = f.value;
      // (a callable object, `stopper(loss)`, and an object passed to a function, may have its attributes set too)
      if (f.kind === 'Name') out.add(f.id);
      for (const a of (n as A.Call).args) if (a.kind === 'Name') out.add(a.id);
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'span' && typeof v === 'object') walk(v);
  };
  walk(body);
  return out;
}

/** Steps a host loop may run unrolled before the rest runs as a TS loop (see carryChanged). */
const MAX_PEELED_STEPS = 2;

/**
 * A loop over a range longer than this that draws from NumPy's RNG stays a loop, the generator's state
 * moving to the program (src/lower/host_numpy.ts); a shorter one runs unrolled, its draws at compile time.
 * Short loops inside such a loop run unrolled where they cannot be TS loops themselves.
 */
const MAX_UNROLLED_RNG_STEPS = 100;

/**
 * A loop over a range longer than this that appends to a list made before it stays a loop, the list one
 * known only at run time (src/lower/host_list.ts); a shorter one runs unrolled, the list static after it.
 */
const MAX_UNROLLED_APPEND_STEPS = 1000;

/**
 * A loop inside a loop that stays a loop at run time, over a range of at most this many steps, runs
 * unrolled in its body where it cannot be a TS loop itself (it builds a Python list of NumPy values).
 */
const MAX_UNROLLED_INNER_STEPS = 32;

/** The largest int a double holds exactly (2**53). */
const MAX_EXACT_INT = 2n ** 53n;

/**
 * A carried value changes its structure, kind or placement in a step. The
 * first steps often do (params placed by the first jitted step), and then
 * keep them: those steps run unrolled, the rest as a host loop.
 */
const carryChanges = new WeakSet<NeedsStatic>();
function carryChanged(message: string, span: A.Span): NeedsStatic {
  const e = new NeedsStatic(message, span);
  carryChanges.add(e);
  return e;
}

/**
 * The loops being lowered, innermost last: a `break`/`continue` under a condition known only at run
 * time needs a loop that stays a loop in the generated code (staged); one in a loop that runs at
 * compile time makes that loop a staged one (a while), or is an error (an unrolled for).
 */
interface LoopCtx {
  /** Set for a loop lowered as a TS loop: writes the loop's carried values back before a break/continue. */
  writeBack: (() => void) | null;
}
const loops: LoopCtx[] = [];

/** A `break`/`continue` under a run-time condition reached a loop that runs at compile time. */
class RunTimeExit extends NeedsStatic {}

function inLoop<T>(ctx: LoopCtx, fn: () => T): T {
  loops.push(ctx);
  try {
    return fn();
  } finally {
    loops.pop();
  }
}

/**
 * `while test:` runs at compile time while its test is known then; from the first step whose test is
 * known only at run time (a host number, a readback of a device value), the rest of it is a TS loop.
 */
function execWhile(ip: Interp, s: A.While, scope: Scope): void {
  let guard = 0;
  const start = ip.atHost ? { checkpoint: (ip.flush(), ip.checkpoint()), vars: new Map(scope.vars) } : null;
  for (;;) {
    const test = testTruth(ip, s.test, scope);
    if (test instanceof HostScalar) {
      if (s.orelse.length) throw new CompileError('while ... else on a value known only when the program runs is not supported', s.span);
      // the test is evaluated again inside the loop
      return stagedLoop(ip, { k: 'while', s }, scope);
    }
    if (!test) break;
    if (++guard > MAX_LOOP_STEPS) throw new CompileError(`while loop did not finish at compile time (after ${MAX_LOOP_STEPS} steps)`, s.span);
    try {
      inLoop({ writeBack: null }, () => execBlock(ip, s.body, scope));
    } catch (e) {
      if (e instanceof BreakSignal) return;
      if (e instanceof RunTimeExit && start && !s.orelse.length) {
        // a break under a run-time condition: the whole loop runs as a TS loop
        ip.rollback(start.checkpoint);
        scope.vars.clear();
        start.vars.forEach((v, k) => scope.vars.set(k, v));
        return stagedLoop(ip, { k: 'while', s }, scope);
      }
      if (!(e instanceof ContinueSignal)) throw e;
    }
  }
  execBlock(ip, s.orelse, scope);
}

function execFor(ip: Interp, s: A.For, scope: Scope): void {
  let iter = evalExpr(ip, s.iter, scope);
  // an object whose __iter__ hands over another iterable: the loop is over that (tqdm's bar over a range: a
  // host loop like the range's own); one whose __iter__ returns itself is iterated by __next__ below
  if (iter instanceof PyInstance) {
    const it = callDunder(ip, iter, '__iter__', [], s.iter.span);
    if (it !== undefined && it !== iter) iter = it;
  }
  if (iter instanceof HostList) return stagedLoop(ip, { k: 'each', s, parts: [{ k: 'list', list: iter }] }, scope);
  if (iter instanceof HostZip) return stagedLoop(ip, { k: 'each', s, parts: iter.parts }, scope);
  for (let peeled = 0; ip.atHost && iter instanceof PyRange && iter.length > 1; peeled++) {
    // flushed before the checkpoint: a rollback drops emitted statements but cannot un-materialize tracers
    ip.flush();
    const checkpoint = ip.checkpoint();
    const saved = new Map(scope.vars);
    try {
      stagedLoop(ip, { k: 'for', s, r: iter }, scope);
      return;
    } catch (e) {
      // a Python exception the body raises at compile time comes at its step, with the variables as they are
      // then (the loop's index among them): the loop runs unrolled
      const raised = !(e instanceof NeedsStatic) && caughtException(e) !== null;
      if (!(e instanceof NeedsStatic) && !raised) throw e;
      ip.rollback(checkpoint);
      scope.vars.clear();
      saved.forEach((v, k) => scope.vars.set(k, v));
      if (unrollsInner(ip, iter) && !(e instanceof PromoteRng)) break;
      if (ip.dynamicDepth > 0 || iter.length > MAX_LOOP_STEPS) throw e;
      if (raised || !carryChanges.has(e as NeedsStatic) || peeled >= MAX_PEELED_STEPS) break;
    }
    // the first step, unrolled; then the rest of the range
    assignTarget(ip, s.target, iter.start, scope);
    try {
      execBlock(ip, s.body, scope);
    } catch (e) {
      if (e instanceof BreakSignal) return;
      if (!(e instanceof ContinueSignal)) throw e;
    }
    iter = new PyRange(iter.start + iter.step, iter.stop, iter.step);
  }
  const loopIter = iter;
  const broke = ip.holding((hold) => {
    // the items still to come are roots of any flush in the body (a print): arrays of the pending host segment
    // that it would otherwise leave behind
    const items = holdItems(iterItems(ip, loopIter, s.iter.span), loopIter, hold);
    let steps = 0;
    for (const item of items) {
      if (++steps > MAX_LOOP_STEPS) {
        throw new CompileError(`for loop runs more than ${MAX_LOOP_STEPS} steps at compile time (it is unrolled: a loop in a traced function, or one that needs its index at compile time)`, s.span);
      }
      assignTarget(ip, s.target, item, scope);
      try {
        inLoop({ writeBack: null }, () => execBlock(ip, s.body, scope));
      } catch (e) {
        if (e instanceof BreakSignal) return true;
        if (e instanceof RunTimeExit) {
          throw new CompileError('break/continue under a condition known only when the program runs, in a for loop that runs at compile time (over a list, or one that needs its items at compile time), is not supported', e.span);
        }
        if (!(e instanceof ContinueSignal)) throw e;
      }
    }
    return false;
  });
  if (!broke) execBlock(ip, s.orelse, scope);
}

/** A leaf of a loop-carried value: array or host scalar, held in a TS `let`. */
interface Carried {
  name: string; // Python variable
  leaves: { letName: string; init: PyValue; after?: PyNamedSharding | null }[];
  rebuild: (leaves: PyValue[]) => PyValue;
  /** objectShape of the value before the loop. */
  shape: string;
  /** The value before the loop. */
  before: PyValue;
  /** Its opaqueParts before the loop. */
  opaque: PyValue[];
}

/** A loop lowered as a TS loop: a `for` over a range, or a `while` whose test is known only at run time. */
type StagedHead = { k: 'for'; s: A.For; r: PyRange } | { k: 'while'; s: A.While } | { k: 'each'; s: A.For; parts: readonly HostEachPart[] };

/**
 * A carried Python value becomes a device array in the body (`i = 0` then `i = step(i)`): the loop
 * starts from it as an array of that type, as the value it becomes.
 */
class PromoteToArray {
  constructor(
    readonly name: string,
    readonly aval: { shape: readonly number[]; dtype: string; weak?: boolean },
  ) {}
}

/** A carried Python int (or bool) becomes a float in the body: the loop carries a float. */
class PromoteToFloat {
  constructor(readonly name: string) {}
}

/** A carried None becomes a host number or string in the body (`best = None`, then `best = loss`): the loop carries a value that may be None. */
class PromoteToOptional {
  constructor(
    readonly name: string,
    readonly type: HostScalar['type'],
  ) {}
}

/** A NumPy array made before the loop becomes one known only at run time in the body: the loop carries a run-time array. */
class PromoteToHostNd {
  constructor(readonly name: string) {}
}

/** A name the body assigns before reading it changes kind in the loop: the loop lowers again without carrying it. */
class Uncarry {
  constructor(readonly name: string) {}
}

/**
 * Names a loop body assigns (plain `name = value` at its top level) before anything in it reads them:
 * their values from before the loop are dead there. Any other mention of a name (in a nested block, a
 * function, a target that is not a plain name) counts as a read.
 */
function deadOnEntry(body: A.Stmt[]): Set<string> {
  const dead = new Set<string>();
  const read = new Set<string>();
  const mentions = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    const node = n as { kind?: string; id?: string };
    if (node.kind === 'Name' && typeof node.id === 'string') read.add(node.id);
    for (const [k, v] of Object.entries(n)) if (k !== 'span' && typeof v === 'object') mentions(v);
  };
  const plain = (t: A.Expr): string[] | null => (t.kind === 'Name' ? [t.id] : t.kind === 'Tuple' || t.kind === 'List' ? (t.elts.every((x) => x.kind === 'Name') ? t.elts.map((x) => (x as A.Name).id) : null) : null);
  for (const st of body) {
    const ids = st.kind === 'Assign' ? st.targets.map(plain) : null;
    if (st.kind === 'Assign' && ids && ids.every((x) => x)) {
      mentions(st.value);
      for (const id of ids.flat() as string[]) if (!read.has(id)) dead.add(id);
      ids.flat().forEach((id) => read.add(id!));
    } else mentions(st);
  }
  return dead;
}

/** The staged loops being lowered, outermost first, with the variables before each (see PromoteToHostList). */
const stagedLoops: { scope: Scope; saved: ReadonlyMap<string, PyValue>; staysLoop: boolean }[] = [];

/** Is the evaluator inside host loops that all stay loops in the generated code (a while on a run-time test, a long range)? There a run-time index of a device array is a device index, not a reason to unroll. */
export const inLoopsThatStay = (): boolean => stagedLoops.length > 0 && stagedLoops.every((l) => l.staysLoop);

/**
 * Does a short loop over `r` inside loops that stay loops (they must, or are long) run unrolled where it
 * cannot be a TS loop itself? (Where an enclosing short loop could run unrolled instead, that one does.)
 */
const unrollsInner = (ip: Interp, r: PyRange): boolean =>
  ip.dynamicDepth > 0 && r.length <= MAX_UNROLLED_INNER_STEPS && stagedLoops.length > 0 && stagedLoops.every((l) => l.staysLoop);

function stagedLoop(ip: Interp, head: StagedHead, scope: Scope): void {
  if (head.s.orelse.length) throw new NeedsStatic(`${head.k} ... else`, head.s.span);
  ip.flush();
  const promote = new Set<string>();
  const promoted = new Set<string>();
  const uncarried = new Set<string>();
  // the ints (and bools) the loop makes floats: what they were before it
  const madeFloat = new Map<string, 'int' | 'bool'>();
  // a loop that cannot run unrolled (a while on a run-time test, a long range, a loop inside one of them)
  // keeps a list it appends to as a list known only at run time
  let mustStage = head.k !== 'for' || head.r.length > MAX_LOOP_STEPS || ip.dynamicDepth > 0;
  // a long loop (a training loop's `losses.append(loss)`) keeps such a list too: unrolled, its steps would be
  // one long traced program
  const longLoop = head.k === 'for' && head.r.length > MAX_UNROLLED_APPEND_STEPS;
  for (;;) {
    const checkpoint = ip.checkpoint();
    const saved = new Map(scope.vars);
    const outer = attrCarry;
    attrCarry = { promote, statics: new Map(), changed: new Set() };
    const outermost = stagedLoops.length === 0;
    const inner = head.k === 'for' && unrollsInner(ip, head.r);
    const entry = { scope, saved, staysLoop: mustStage || (head.k === 'for' && head.r.length > MAX_UNROLLED_RNG_STEPS) };
    stagedLoops.push(entry);
    const lookups = runTimeLookupMark();
    try {
      return stagedLoopAttempt(ip, head, scope, uncarried, madeFloat);
    } catch (e) {
      if (!(e instanceof PromoteAttrs || e instanceof PromoteToArray || e instanceof PromoteToFloat || e instanceof PromoteToHostList || e instanceof PromoteRng || e instanceof PromoteToHostNd || e instanceof Uncarry || e instanceof PromoteToOptional)) throw e;
      // a loop of more than 100 steps drawing from a NumPy generator already in the program stays a loop, as
      // one whose draws move the generator there does (PromoteRng below)
      if (e instanceof PromoteToHostList && head.k === 'for' && head.r.length > MAX_UNROLLED_RNG_STEPS && runTimeLookupMark() > lookups) mustStage = true;
      // the list belongs to the outermost loop whose variables reach it: its TS array is declared before that loop
      if (e instanceof PromoteToHostList && (!(mustStage || longLoop) || inner || stagedLoops.find((l) => reachable(l.saved, l.scope, e.list)) !== entry)) throw e;
      // NumPy's generator moves to the program before the outermost loop, where that loop stays a loop
      if (e instanceof PromoteRng && !(outermost && (mustStage || (head.k === 'for' && head.r.length > MAX_UNROLLED_RNG_STEPS)))) throw e;
      ip.rollback(checkpoint);
      scope.vars.clear();
      saved.forEach((v, k) => scope.vars.set(k, v));
      if (e instanceof PromoteRng) {
        if (runTimeGen(e.gen) !== null) throw new CompileError('internal: the NumPy generator does not settle at run time', head.s.span);
        declareGen(ip, e.gen);
        // (the loop stays a loop now: what it cannot otherwise lower goes the way of a loop that must)
        mustStage = true;
        continue;
      }
      if (e instanceof PromoteToHostList) {
        const key = `list:${identityOf(e.list)}`;
        if (promoted.has(key)) throw new CompileError(`internal: the list does not settle as one known only at run time`, head.s.span);
        promoted.add(key);
        const name = [...saved].find(([, v]) => v === e.list)?.[0] ?? 'list';
        replaceList(scope, e.list, declareHostList(ip, e.list, e.elem, name, head.s.span));
        continue;
      }
      if (e instanceof PromoteToOptional) {
        if (promoted.has(`${e.name}:none`)) throw new CompileError(`internal: the loop's value '${e.name}' does not settle`, head.s.span);
        promoted.add(`${e.name}:none`);
        scope.vars.set(e.name, HostScalar.orNone({ k: 'lit', value: null }, e.type));
        continue;
      }
      if (e instanceof PromoteAttrs) e.paths.forEach((p) => promote.add(p));
      else if (e instanceof Uncarry) {
        if (uncarried.has(e.name)) throw new CompileError(`internal: the loop's value '${e.name}' does not settle`, head.s.span);
        uncarried.add(e.name);
      } else if (e instanceof PromoteToHostNd) {
        if (promoted.has(`${e.name}:np`)) throw new CompileError(`internal: the loop's value '${e.name}' does not settle`, head.s.span);
        promoted.add(`${e.name}:np`);
        scope.vars.set(e.name, hostNdOf(ip, scope.vars.get(e.name) as NdArray, e.name));
      } else {
        const key = `${e.name}:${e instanceof PromoteToArray ? 'array' : 'float'}`;
        if (promoted.has(key)) throw new CompileError(`internal: the loop's value '${e.name}' does not settle`, head.s.span);
        promoted.add(key);
        const v = scope.vars.get(e.name)!;
        if (e instanceof PromoteToFloat) madeFloat.set(e.name, typeof v === 'boolean' || (v instanceof HostScalar && v.type === 'bool') ? 'bool' : 'int');
        if (e instanceof PromoteToFloat) scope.vars.set(e.name, v instanceof HostScalar ? new HostScalar(v.expr, 'float') : Number(v as bigint | boolean));
        else {
          scope.vars.set(e.name, ip.hostArray(ip.ops.asArray(v, head.s.span, e.aval.dtype as Parameters<Interp['ops']['asArray']>[2]), head.s.span));
        }
        ip.flush();
      }
    } finally {
      attrCarry = outer;
      stagedLoops.pop();
    }
  }
}

const listIds = new WeakMap<PyList, number>();
let listCount = 0;
const identityOf = (l: PyList): number => {
  if (!listIds.has(l)) listIds.set(l, ++listCount);
  return listIds.get(l)!;
};

function stagedLoopAttempt(ip: Interp, head: StagedHead, scope: Scope, uncarried: ReadonlySet<string>, madeFloat: ReadonlyMap<string, 'int' | 'bool'>): void {
  const s = head.s;
  const r = head.k === 'for' ? head.r : null;
  const target = head.k !== 'while' ? head.s.target : null;
  const ac = attrCarry!;
  const loopVars = new Set(target ? targetNames(target) : []);
  const names = assignedNames(s.body);
  // a body that rebinds the loop variable leaves its own value in it after the loop: the loop is unrolled
  const rebound = [...loopVars].find((n) => names.has(n));
  if (rebound) throw new NeedsStatic(`the loop variable '${rebound}' is rebound in the loop`, s.span);
  const carried: Carried[] = [];
  // objects whose methods the body calls (`trainer.step(batch)`): the methods may set their attributes
  const receivers = [...methodReceivers(s.body)].filter((n) => !names.has(n) && scope.vars.get(n) instanceof PyInstance);
  // dicts whose items the body sets (`metrics['loss'] = loss`): their values are loop variables, their keys stay
  const dicts = [...subscriptRoots(s.body)].filter((n) => !names.has(n) && scope.vars.get(n) instanceof PyDict);
  for (const n of [...names, ...receivers, ...dicts]) {
    const v = scope.vars.get(n);
    if (v === undefined || uncarried.has(n)) continue;
    const leaves: { letName: string; init: PyValue }[] = [];
    const rebuild = flattenCarry(ip, v, n, leaves, s.span);
    carried.push({ name: n, leaves, rebuild, shape: objectShape(v), before: v, opaque: opaqueParts(v) });
  }
  // objects the loop carries are updated in place (their attributes become the loop's variables): the
  // loop may set their attributes; a failed attempt puts them back
  const objects = new Set<PyInstance>();
  for (const c of carried) carriedObjects(scope.vars.get(c.name)!, objects);
  const saved = [...objects].map((o) => ({ o, attrs: new Map(o.attrs), depth: o.carriedDepth }));
  const decls: HStmt[] = [];
  const outerDepth = ip.dynamicDepth;
  const index = target ? ip.freshName(target.kind === 'Name' && head.k !== 'each' ? target.id : 'i') : '';
  let body: HStmt[];
  const newNames: string[] = [];
  const lastValues = new Map<string, HostArray | HostScalar | HostNd>();
  // a loop that may run zero times at run time (a while, a loop over run-time items or a run-time range)
  // and makes an int a float: whether it ran decides the Python type after it
  const ran = !r && madeFloat.size ? ip.freshName('ran') : null;
  try {
    for (const c of carried) {
      for (const l of c.leaves) decls.push({ k: 'let', names: [l.letName], value: leafInit(l.init), ...(l.init instanceof HostScalar && l.init.raw !== null ? { type: `${l.init.type === 'str' ? 'string' : l.init.type === 'bool' ? 'boolean' : 'number'} | null` } : {}) });
      const v = c.rebuild(c.leaves.map((l) => asLoopValue(l.letName, l.init)));
      // the loop's own copies of carried dicts: the body may set their items (the keys must stay: see writeBack)
      const own = (x: PyValue): void => {
        if (x instanceof PyDict) {
          x.depth = ip.dynamicDepth + 1;
          x.values().forEach(own);
        } else if (x instanceof PyTuple || x instanceof PyList) x.items.forEach(own);
      };
      own(v);
      scope.vars.set(c.name, v);
    }
    for (const o of objects) o.carriedDepth = ip.dynamicDepth + 1;
    ip.dynamicDepth++;
    try {
    // a host number or string first bound in the body keeps its last value after the loop, in a `let` before it
    // (saved before the carried values change: its expression may read them)
    const saveNewScalars = (): void => {
      for (const n of names) {
        const v = scope.vars.get(n);
        if (!(v instanceof HostScalar) || carried.some((c) => c.name === n) || loopVars.has(n)) continue;
        let last = lastValues.get(n);
        if (last && !(last instanceof HostScalar && last.type === v.type)) throw new NeedsStatic(`'${n}' changes type in the loop`, s.span);
        if (!last) lastValues.set(n, (last = new HostScalar({ k: 'var', name: ip.freshName(n) }, v.type)));
        const letName = ((last as HostScalar).expr as { name: string }).name;
        if (!(v.expr.k === 'var' && v.expr.name === letName)) ip.emit({ k: 'assign', name: letName, value: v.expr });
      }
    };
    // write back carried values (at the end of the body, and before a break or continue)
    const writeBack = (): void => {
      ip.flush();
      saveNewScalars();
      const pending: [string, HExpr][] = [];
      for (const c of carried) {
        try {
          writeBackOne(c);
        } catch (e) {
          // a name the body assigns before reading it needs no value from before the loop: one whose value
          // changes kind in the loop (a jnp array before it, a NumPy one drawn in it) is not carried
          if (e instanceof NeedsStatic && carryChanges.has(e) && r && r.length > 0 && deadOnEntry(s.body).has(c.name)) throw new Uncarry(c.name);
          throw e;
        }
      }
      function writeBackOne(c: Carried): void {
        const now = scope.vars.get(c.name)!;
        // None before the loop, a host number or string after a step: the loop carries one that may be None
        const nowKind = scalarKind(now);
        if (c.before === null && nowKind !== null && !(typeof now === 'bigint' && !Number.isSafeInteger(Number(now)))) throw new PromoteToOptional(c.name, nowKind);
        if (c.before instanceof NdArray && now instanceof HostNd && c.before.shape.join() === now.shape.join() && c.before.dtype === now.dtype) throw new PromoteToHostNd(c.name);
        const leaves: { letName: string; init: PyValue }[] = [];
        attrCarry = ac;
        flattenCarry(ip, now, c.name, leaves, s.span, false);
        if (ac.changed.size) throw new PromoteAttrs([...ac.changed]);
        if (objectShape(now) !== c.shape) throw carryChanged(`the objects in '${c.name}' change in the loop`, s.span);
        const after = opaqueParts(now);
        if (c.opaque.length !== after.length || c.opaque.some((x, i) => x !== after[i])) throw carryChanged(`'${c.name}' is rebound to another function or object in the loop`, s.span);
        if (leaves.length !== c.leaves.length) throw carryChanged(`the structure of '${c.name}' changes in the loop`, s.span);
        leaves.forEach((l, i) => {
          const want = c.leaves[i]!;
          if (head.k === 'while' && c.leaves.length === 1 && isStaticScalar(want.init) && isArray(l.init) && want.init === c.before) {
            throw new PromoteToArray(c.name, ip.ops.aval(l.init, s.span));
          }
          const promoteFloat = (x: PyValue): boolean => (x instanceof HostScalar ? x.type : typeof x) !== 'float' && (x instanceof HostScalar ? x.type !== 'str' : typeof x === 'bigint' || typeof x === 'boolean');
          const isFloat = (x: PyValue): boolean => (x instanceof HostScalar ? x.type === 'float' : typeof x === 'number');
          if (c.leaves.length === 1 && want.init === c.before && promoteFloat(want.init) && isFloat(l.init)) throw new PromoteToFloat(c.name);
          checkSameType(want.init, l.init, c.name, s.span);
          const val = hexprOfLeaf(ip, l.init, s.span);
          // the placement must stay the same; JAX may spell it differently after a step (P('x', None) → P('x',))
          if (!sameSharding(want.init, l.init)) throw carryChanged(`the sharding of '${c.name}' changes in the loop`, s.span);
          want.after = shardingOf(l.init);
          if (!(val.k === 'var' && val.name === want.letName)) pending.push([want.letName, val]);
        });
      }
      // the new values are computed from the old ones: all of them before any is assigned (`w = 2 * w + 1` then
      // `b = w * b` reads the old `w`)
      const reads = (e: HExpr, names: Set<string>): boolean => {
        let found = false;
        walkHost([{ k: 'expr', e }], { expr: (x) => void (found ||= x.k === 'var' && names.has(x.name)) });
        return found;
      };
      const assigned = new Set(pending.map(([n]) => n));
      for (const [i, [name, val]] of pending.entries()) {
        if (pending.length > 1 && val.k !== 'lit' && reads(val, assigned)) {
          const tmp = ip.freshName(`${name}_next`);
          ip.emit({ k: 'const', names: [tmp], value: val });
          pending[i] = [name, { k: 'var', name: tmp }];
        }
      }
      for (const [name, val] of pending) ip.emit({ k: 'assign', name, value: val });
    };
    body = ip.collect(() => {
      if (head.k === 'each') {
        // the items at the index (a list may grow while it is iterated, as in Python)
        const items = head.parts.map((p): PyValue => {
          if (p.k === 'count') {
            const i: HExpr = { k: 'var', name: index };
            const scaled: HExpr = p.step === 1n ? i : { k: 'bin', op: '*', a: i, b: { k: 'lit', value: Number(p.step) } };
            return new HostScalar(p.start === 0n ? scaled : { k: 'bin', op: '+', a: typeof p.start === 'bigint' ? { k: 'lit', value: Number(p.start) } : p.start, b: scaled }, 'int');
          }
          const item = ip.freshName(target?.kind === 'Name' ? target.id : 'item');
          ip.emit({ k: 'const', names: [item], value: { k: 'call', callee: 'jx.pyIndex', args: [{ k: 'var', name: p.list.name }, { k: 'var', name: index }, { k: 'lit', value: 'list' }] } });
          return listItem(p.list, { k: 'var', name: item });
        });
        assignTarget(ip, target!, items.length === 1 ? items[0]! : new PyTuple(items), scope);
      } else if (target) {
        if (r) loopIndexRanges.set(index, { start: Number(r.start), stop: Number(r.stop), step: Number(r.step) });
        assignTarget(ip, target, new HostScalar({ k: 'var', name: index }, 'int'), scope);
      }
      else if (head.k === 'while') {
        const t = testTruth(ip, head.s.test, scope);
        if (t instanceof HostScalar) ip.emit({ k: 'if', test: { k: 'unary', op: '!', x: t.expr }, then: [{ k: 'break' }], else: [] });
        else if (!t) ip.emit({ k: 'break' });
      }
      if (ran) ip.emit({ k: 'assign', name: ran, value: { k: 'lit', value: true } });
      let exited = false;
      try {
        inLoop({ writeBack }, () => execBlock(ip, s.body, scope));
      } catch (e) {
        if (!(e instanceof BreakSignal || e instanceof ContinueSignal)) throw e;
        // a break/continue the body always reaches
        writeBack();
        ip.emit({ k: e instanceof BreakSignal ? 'break' : 'continue' });
        exited = true;
      }
      if (!exited) writeBack();
      for (const n of names) if (!carried.some((c) => c.name === n) && !loopVars.has(n)) newNames.push(n);
      // an array first bound in the body stays visible after the loop (its last value), as in Python
      if (!r || r.length > 0) {
        for (const n of newNames) {
          const v = scope.vars.get(n);
          if (v instanceof HostNd) {
            const letName = ip.freshName(n);
            ip.emit({ k: 'assign', name: letName, value: { k: 'var', name: v.name } });
            lastValues.set(n, new HostNd(letName, v.shape, v.dtype));
            continue;
          }
          if (!isArray(v ?? null)) continue;
          const h = ip.hostArray(v!, s.span);
          const letName = ip.freshName(n);
          ip.emit({ k: 'assign', name: letName, value: { k: 'var', name: h.name } });
          const after = new HostArray(letName, h.aval);
          after.sharding = h.sharding;
          lastValues.set(n, after);
        }
      }
    });
    } finally {
      ip.dynamicDepth--;
    }
    // a loop over a range that only computes on values known now (no device program, no readback, nothing from
    // run time) is Python's own loop: run at compile time, it computes what CPython does (ints past 2**53 stay exact)
    if (r && outerDepth === 0 && r.length <= MAX_LOOP_STEPS && compileTimeLoop(body, carried, index)) {
      throw new NeedsStatic('a loop on values known at compile time', s.span);
    }
  } catch (e) {
    for (const { o, attrs } of saved) {
      o.attrs.clear();
      attrs.forEach((v, k) => o.attrs.set(k, v));
    }
    throw e;
  } finally {
    for (const { o, depth } of saved) o.carriedDepth = depth;
  }
  for (const d of decls) ip.emit(d);
  if (ran) ip.emit({ k: 'let', names: [ran], value: { k: 'lit', value: false } });
  for (const h of lastValues.values()) {
    if (h instanceof HostArray) ip.emit({ k: 'let', names: [h.name], value: null, type: 'jx.JArray' });
    else if (h instanceof HostNd) ip.emit({ k: 'let', names: [h.name], value: null, type: 'jx.np.NdArray' });
    else ip.emit({ k: 'let', names: [(h.expr as { name: string }).name], value: null, type: h.type === 'str' ? 'string' : h.type === 'bool' ? 'boolean' : 'number' });
  }
  const keptIndex = r && target?.kind === 'Name' && r.length > 0 && breaksOut(body) ? ip.freshName(target.id) : null;
  if (keptIndex) {
    ip.emit({ k: 'let', names: [keptIndex], value: { k: 'lit', value: Number(r!.start + BigInt(r!.length - 1) * r!.step) } });
    body.unshift({ k: 'assign', name: keptIndex, value: { k: 'var', name: index } });
  }
  if (r) ip.emit({ k: 'for', v: index, start: hexpr(r.start), stop: hexpr(r.stop), step: hexpr(r.step), body });
  else if (head.k === 'each') {
    // up to the end of the shortest stream
    const stops = head.parts.flatMap((p): HExpr[] => (p.k === 'list' ? [{ k: 'member', x: { k: 'var', name: p.list.name }, key: 'length' }] : p.length === null ? [] : [typeof p.length === 'number' ? { k: 'lit', value: p.length } : p.length]));
    const stop: HExpr = stops.length === 1 ? stops[0]! : { k: 'call', callee: 'Math.min', args: stops };
    ip.emit({ k: 'for', v: index, start: { k: 'lit', value: 0 }, stop, step: { k: 'lit', value: 1 }, body });
  }
  else ip.emit({ k: 'while', test: { k: 'lit', value: true }, body });
  for (const c of carried) {
    const values = c.leaves.map((l) => asLoopValue(l.letName, l.init));
    // after at least one step, arrays carry the sharding the step gave them
    if (!r || r.length > 0) values.forEach((v, i) => v instanceof HostArray && c.leaves[i]!.after !== undefined && (v.sharding = c.leaves[i]!.after));
    const after = c.rebuild(values);
    // a dict keeps its identity (another name may hold it, or a dict in it): its items are the loop's
    if (c.before instanceof PyDict && after instanceof PyDict && c.before.flavor === null) {
      assignDicts(c.before, after);
      scope.vars.set(c.name, c.before);
    } else scope.vars.set(c.name, after);
    const was = madeFloat.get(c.name);
    if (ran && was && after instanceof HostScalar && after.type === 'float') after.intWhen = { test: { k: 'unary', op: '!', x: { k: 'var', name: ran } }, type: was };
  }
  // names first bound inside the loop body are not visible after it as host values
  for (const n of newNames) {
    const v = scope.vars.get(n);
    const last = lastValues.get(n);
    if (last) scope.vars.set(n, last);
    else if (holdsLoopValues(v ?? null)) scope.vars.delete(n);
  }
  // the loop index is the TS loop's own `let`: after the loop, Python's index is the range's last value (static),
  // or, where a break may end the loop early, the value of the last step run (kept in a `let` before the loop)
  if (r && target?.kind === 'Name' && r.length > 0) {
    const last = r.start + BigInt(r.length - 1) * r.step;
    scope.vars.set(target.id, keptIndex ? new HostScalar({ k: 'var', name: keptIndex }, 'int') : last);
  }
  // (over a run-time list: the last item is not kept after the loop)
  if (head.k === 'each' && target) for (const n of targetNames(target)) scope.vars.delete(n);
}

/** Whether a loop body may leave its loop by a `break` (one outside the loops nested in it). */
function breaksOut(body: HStmt[]): boolean {
  return body.some((st) => {
    switch (st.k) {
      case 'break': return true;
      case 'if': return breaksOut(st.then) || breaksOut(st.else);
      case 'try': return breaksOut(st.body) || breaksOut(st.handler);
      default: return false;
    }
  });
}

/** Whether `v` is or holds (in a container or an object) an array or host value made in a loop body (TS names of its scope). */
function holdsLoopValues(v: PyValue, seen = new Set<PyValue>()): boolean {
  if (v instanceof HostArray || v instanceof HostScalar || v instanceof Tracer || v instanceof HostNd) return true;
  if (v === null || typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  if (v instanceof PyList || v instanceof PyTuple) return v.items.some((x) => holdsLoopValues(x, seen));
  if (v instanceof PyDict) return v.values().some((x) => holdsLoopValues(x, seen));
  return false;
}

/** Callees a loop body may call and still be a loop on compile-time values (printing and Python arithmetic). */
const PURE_CALLEES = /^(rt\.print|jx\.(py[A-Za-z]*|str|printf|floordiv|mod|truediv|math1|floatpow|bitop|pyIndex)|Math\.[a-z0-9]+|Number|String)$/;

/** Whether a staged loop body computes only on values known at compile time (see stagedLoopAttempt). */
function compileTimeLoop(body: HStmt[], carried: Carried[], index: string): boolean {
  if (carried.some((c) => c.leaves.some((l) => !isStaticScalar(l.init)))) return false;
  const own = new Set<string>([index, ...carried.flatMap((c) => c.leaves.map((l) => l.letName))]);
  walkHost(body, { stmt: (st) => void ((st.k === 'const' || st.k === 'let') && st.names.forEach((n) => own.add(n))) });
  let pure = true;
  walkHost(body, {
    stmt: (st) => void (st.k === 'for' && own.add(st.v)),
    expr: (e) => {
      if (e.k === 'program' || (e.k === 'call' && (e.await || !PURE_CALLEES.test(e.callee)))) pure = false;
      if (e.k === 'var' && !own.has(e.name)) pure = false;
    },
  });
  return pure;
}

const classIds = new WeakMap<object, number>();
let classCount = 0;
/** The classes and attribute names of the objects inside a carried value: a loop must keep them. */
function objectShape(v: PyValue): string {
  if (v instanceof PyInstance) {
    if (!classIds.has(v.cls)) classIds.set(v.cls, ++classCount);
    return `${v.cls.name}#${classIds.get(v.cls)}{${[...v.attrs.keys()].sort().map((k) => `${k}:${objectShape(v.attrs.get(k)!)}`).join(',')}}`;
  }
  if (v instanceof PyTuple || v instanceof PyList) {
    const inner = v.items.map(objectShape).join(',');
    return v instanceof PyList ? `[${inner}]` : `${v.cls?.name ?? ''}(${inner})`;
  }
  if (v instanceof PyDict) return `{${[...v.entries.values()].map(([k, x]) => `${typeof k}:${String(k)}=${objectShape(x)}`).join(',')}}`;
  return '';
}

/**
 * The parts of a carried value that are not loop variables (functions, None, modules, …) in the order
 * flattenCarry meets them: a loop that rebinds one (`f = jax.grad(f)`) cannot run as a TS loop.
 */
function opaqueParts(v: PyValue, out: PyValue[] = []): PyValue[] {
  // (an instance of a library class with no attributes, jax.vjp's VJP: its state is its identity)
  if (v instanceof PyInstance && (v.attrs.size || v.cls.module === '__main__')) [...v.attrs.keys()].sort().forEach((k) => opaqueParts(v.attrs.get(k)!, out));
  else if (v instanceof PyTuple || v instanceof PyList) v.items.forEach((x) => opaqueParts(x, out));
  else if (v instanceof PyDict) [...v.entries.values()].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0)).forEach(([, x]) => opaqueParts(x, out));
  else if (!(isArray(v) || v instanceof HostScalar || v instanceof HostNd || v instanceof PyKeyArray || isStaticScalar(v))) out.push(v);
  return out;
}

/** The instances inside a carried value (updated in place by the loop). */
function carriedObjects(v: PyValue, out: Set<PyInstance>): void {
  if (v instanceof PyInstance) {
    if (out.has(v)) return;
    out.add(v);
    v.attrs.forEach((x) => carriedObjects(x, out));
  } else if (v instanceof PyTuple || v instanceof PyList) v.items.forEach((x) => carriedObjects(x, out));
  else if (v instanceof PyDict) v.values().forEach((x) => carriedObjects(x, out));
}

/**
 * Per host loop being lowered: which attributes of the objects it carries are loop variables (`promote`, by
 * carry path), the static values of the others when the loop starts, and those the body changed.
 */
interface AttrCarry {
  promote: Set<string>;
  statics: Map<string, PyValue>;
  changed: Set<string>;
}
let attrCarry: AttrCarry | null = null;

/** The body changed static attributes of a carried object: lower the loop again with them as loop variables. */
class PromoteAttrs {
  constructor(readonly paths: string[]) {}
}

const isStaticScalar = (x: PyValue): boolean => x === null || typeof x === 'bigint' || typeof x === 'number' || typeof x === 'boolean' || typeof x === 'string';

function flattenCarry(ip: Interp, v: PyValue, name: string, out: { letName: string; init: PyValue }[], span: A.Span, fresh = true): (leaves: PyValue[]) => PyValue {
  if (v instanceof PyInstance) {
    // attributes in a fixed (sorted) order: an object rebuilt in the loop may have set them in another
    const keys = [...v.attrs.keys()].sort();
    const fns = keys.map((k) => {
      const x = v.attrs.get(k)!;
      const path = `${name}_${k}`;
      const ac = attrCarry;
      if (ac && !ac.promote.has(path)) {
        // a Python value the loop does not change stays static (an object's settings); one it changes is found
        // when the body ends, and the loop is lowered again with it as a loop variable
        if (fresh && isStaticScalar(x)) {
          ac.statics.set(path, x);
          return () => x;
        }
        if (!fresh && ac.statics.has(path)) {
          const before = ac.statics.get(path)!;
          if (!(isStaticScalar(x) && typeof x === typeof before && x === before)) ac.changed.add(path);
          return () => x;
        }
      }
      return flattenCarry(ip, x, path, out, span, fresh);
    });
    return (leaves) => {
      keys.forEach((k, i) => v.attrs.set(k, fns[i]!(leaves)));
      return v;
    };
  }
  if (isArray(v) || v instanceof HostScalar || v instanceof HostNd || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') {
    // a host number at run time is a double: an int beyond 2**53 keeps its exact value only at compile time
    if (typeof v === 'bigint' && (v > MAX_EXACT_INT || v < -MAX_EXACT_INT)) throw new NeedsStatic(`'${name}' is an int beyond 2**53`, span);
    const i = out.length;
    out.push({ letName: fresh ? ip.freshName(name) : '', init: v });
    return (leaves) => leaves[i]!;
  }
  if (v instanceof PyKeyArray) {
    // a typed PRNG key array is carried as its key data
    const f = flattenCarry(ip, v.data, name, out, span, fresh);
    return (leaves) => new PyKeyArray(f(leaves) as HostArray);
  }
  if (v instanceof PyTuple || v instanceof PyList) {
    const fns = v.items.map((x, k) => flattenCarry(ip, x, v instanceof PyTuple && v.cls ? `${name}_${v.cls.fields[k]}` : name, out, span, fresh));
    return (leaves) => {
      if (!(v instanceof PyList)) return new PyTuple(fns.map((f) => f(leaves)), v.cls);
      const l = new PyList(fns.map((f) => f(leaves)));
      l.origin = v;
      return l;
    };
  }
  if (v instanceof PyDict) {
    // in key order, as JAX flattens dicts: the same dict built in another order is the same carry
    const sorted = [...v.entries.values()].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
    const entries = sorted.map(([k, x]) => [k, flattenCarry(ip, x, typeof k === 'string' ? `${name}_${k}` : name, out, span, fresh)] as const);
    // (rebuilt in the dict's own key order: Python keeps insertion order)
    const order = v.keys();
    return (leaves) => {
      const byKey = new Map(entries.map(([k, f]) => [dictKey(k), f(leaves)]));
      const d = new PyDict();
      for (const k of order) d.set(k, byKey.get(dictKey(k))!);
      return d;
    };
  }
  return () => v;
}

function leafInit(v: PyValue): HExpr {
  if (v instanceof HostArray || v instanceof HostNd) return { k: 'var', name: v.name };
  if (v instanceof Tracer) return { k: 'var', name: v.materialized!.name };
  if (v instanceof HostScalar) return rawExpr(v);
  return hexpr(v);
}

function asLoopValue(letName: string, init: PyValue): PyValue {
  if (init instanceof HostNd) return new HostNd(letName, init.shape, init.dtype);
  if (isArray(init)) {
    const aval = init instanceof Tracer ? init.aval : init.aval;
    const h = new HostArray(letName, aval.weak ? { shape: aval.shape, dtype: aval.dtype, weak: true } : { shape: aval.shape, dtype: aval.dtype });
    h.sharding = (init instanceof Tracer ? init.materialized : init)?.sharding ?? null;
    return h;
  }
  if (init instanceof HostScalar && init.raw !== null) return HostScalar.orNone({ k: 'var', name: letName }, init.type);
  const type = init instanceof HostScalar ? init.type : typeof init === 'bigint' ? 'int' : typeof init === 'number' ? 'float' : typeof init === 'boolean' ? 'bool' : 'str';
  return new HostScalar({ k: 'var', name: letName }, type);
}

const shardingOf = (v: PyValue): PyNamedSharding | null => (v instanceof Tracer ? v.materialized : v instanceof HostArray ? v : null)?.sharding ?? null;

/** Do two carried values have the same placement (both on one device, or equivalent NamedShardings)? */
function sameSharding(a: PyValue, b: PyValue): boolean {
  const x = shardingOf(a);
  const y = shardingOf(b);
  if (!x || !y) return x === y;
  if (meshStr(x.mesh) !== meshStr(y.mesh) || x.mesh.devices.ids.join() !== y.mesh.devices.ids.join()) return false;
  const rank = Math.max(x.spec.entries.length, y.spec.entries.length);
  return sameShardings(specAxes(x, rank), specAxes(y, rank));
}

function checkSameType(a: PyValue, b: PyValue, name: string, span: A.Span): void {
  if (isArray(a) !== isArray(b)) throw carryChanged(`'${name}' changes between an array and a Python value in the loop`, span);
  if ((a instanceof HostNd) !== (b instanceof HostNd)) throw carryChanged(`'${name}' changes between a NumPy array and another value in the loop`, span);
  if (a instanceof HostNd && b instanceof HostNd && (a.dtype !== b.dtype || a.shape.join() !== b.shape.join())) {
    throw carryChanged(`the loop changes the NumPy array '${name}' from ${a.dtype}[${a.shape.join(',')}] to ${b.dtype}[${b.shape.join(',')}]; a loop lowered as a TS loop keeps each carried array's shape and dtype`, span);
  }
  if (isArray(a) && isArray(b)) {
    const x = a instanceof Tracer ? a.aval : a.aval;
    const y = b instanceof Tracer ? b.aval : b.aval;
    if (x.dtype !== y.dtype || x.shape.length !== y.shape.length || x.shape.some((d, i) => d !== y.shape[i])) {
      // (a name rebound in the body before it is read, or a value that settles after the first steps: peeled)
      throw carryChanged(`the loop changes '${name}' from ${x.dtype}[${x.shape.join(',')}] to ${y.dtype}[${y.shape.join(',')}]; a loop lowered as a TS loop keeps each carried array's shape and dtype`, span);
    }
  }
}

function hexprOfLeaf(ip: Interp, v: PyValue, span: A.Span): HExpr {
  if (isArray(v)) return { k: 'var', name: ip.hostArray(v, span).name };
  if (v instanceof HostNd) return { k: 'var', name: v.name };
  if (v instanceof HostScalar) return rawExpr(v);
  return hexpr(v);
}

// ------------------------------------------------------------------ dynamic if

/** A statement that throws at run time (an exception re-raised by a run-time `except` chain that no clause matched): the branch ends there. */
class RunTimeThrow {
  constructor(readonly stmt: HStmt) {}
}

/** The run-time raise of the Python exception `e` stands for (null: `e` is no Python exception). */
function runTimeRaise(ip: Interp, e: unknown, span: A.Span): HStmt | null {
  const exc = e instanceof NeedsStatic ? null : caughtException(e);
  if (!exc) return null;
  const text = ip.str(exc, span);
  const line = { k: 'lit' as const, value: (e as CompileError).span?.start.line ?? span.start.line };
  const message: HExpr = text.static === '' ? { k: 'lit', value: exc.cls.name } : { k: 'concat', parts: [{ k: 'lit', value: `${exc.cls.name}: ` }, text.toExpr()] };
  return { k: 'expr', e: { k: 'call', callee: 'jx.pyRaise', args: [message, line] } };
}

/**
 * `if test:` on a value known only at run time (a host number, a readback of a device value): both
 * branches are lowered into a TS `if`. A name the branches bind to different values is a `let` before
 * the if, assigned at the end of each branch: its leaves (arrays, host numbers) must have one type on
 * both paths. A `break`/`continue` in a branch leaves the TS loop that the enclosing loop becomes.
 */
function dynamicIf(ip: Interp, s: A.If, test: HostScalar, scope: Scope, runArm?: (k: 0 | 1) => void): void {
  if (!ip.atHost) throw new CompileError('internal: a host value reached a traced function', s.span);
  ip.flush();
  const names = [...assignedNames([...s.body, ...s.orelse])];
  const before = new Map<string, PyValue | undefined>(names.map((n) => [n, scope.vars.get(n)]));
  const restore = (m: Map<string, PyValue | undefined>): void => m.forEach((v, n) => (v === undefined ? scope.vars.delete(n) : scope.vars.set(n, v)));
  interface Branch {
    stmts: HStmt[];
    exits: boolean;
    values: Map<string, PyValue | undefined>;
    /** Per name: its flattened leaves as host expressions (computed inside the branch) and how to rebuild it. */
    leaves: Map<string, { leaves: { init: PyValue }[]; expr: HExpr[]; rebuild: (l: PyValue[]) => PyValue; shape: string }>;
  }
  // dicts whose items a branch sets (`if loss < best['loss']: best['loss'] = loss`): each branch changes
  // them from their state before the if, and the items after it are merged as names are
  const dicts = [...subscriptRoots([...s.body, ...s.orelse])].filter((n) => !names.includes(n) && scope.vars.get(n) instanceof PyDict).map((n) => ({ n, d: scope.vars.get(n) as PyDict }));
  const nested = dicts.flatMap(({ d }) => dictsIn(d));
  const savedDicts = nested.map((d) => ({ d, entries: new Map(d.entries), depth: d.depth }));
  const restoreDicts = (): void => savedDicts.forEach(({ d, entries }) => ((d.entries as Map<string, [PyValue, PyValue]>).clear(), entries.forEach((v, k) => d.entries.set(k, v))));
  // objects whose attributes a branch sets (`if loss < self.best: self.best = loss`, also in a method the
  // branch calls): recorded as they are set (classes.ts), each branch starting from their state before the if
  const objs = { depth: ip.dynamicDepth + 1, saved: new Map<PyInstance, Map<string, PyValue>>() };
  const restoreObjs = (): void => objs.saved.forEach((attrs, o) => ((o.attrs as Map<string, PyValue>).clear(), attrs.forEach((v, k) => o.attrs.set(k, v))));
  /** Per object: its attributes as a branch left them, and the leaves of those the branch changed. */
  type ObjState = Map<PyInstance, { attrs: Map<string, PyValue>; leaves: Map<string, BranchLeaves> }>;
  const run = (body: A.Stmt[]): Branch & { objs: ObjState } => {
    let exits = false;
    const leaves: Branch['leaves'] = new Map();
    const objState: ObjState = new Map();
    let values = new Map<string, PyValue | undefined>();
    for (const d of nested) d.depth = ip.dynamicDepth;
    const stmts = ip.collect(() => {
      try {
        if (runArm) runArm(body === s.body ? 0 : 1);
        else execBlock(ip, body, scope);
      } catch (e) {
        // a Python exception the branch raises (`raise ValueError(...)`, a KeyError): raised when the program takes it
        const thrown = e instanceof RunTimeThrow ? e.stmt : runTimeRaise(ip, e, s.span);
        if (thrown) {
          ip.emit(thrown);
          exits = true;
          return;
        }
        if (!(e instanceof BreakSignal || e instanceof ContinueSignal)) {
          if (e instanceof ReturnSignal) throw new CompileError('return inside an if on a value known only when the program runs is not supported', s.span);
          throw e;
        }
        const loop = loops[loops.length - 1];
        if (!loop?.writeBack) throw new RunTimeExit('break/continue under a condition known only when the program runs', s.span);
        loop.writeBack();
        ip.emit({ k: e instanceof BreakSignal ? 'break' : 'continue' });
        exits = true;
      }
      ip.flush();
      values = new Map(names.map((n) => [n, scope.vars.get(n)]));
      // the dicts as this branch left them (copies: the next branch starts from their state before the if)
      for (const { n, d } of dicts) values.set(DICT_STATE + n, copyDicts(d));
      if (exits) return;
      for (const n of names) {
        const v = scope.vars.get(n);
        if (v === undefined || v === before.get(n)) continue;
        leaves.set(n, branchLeaves(ip, n, v, s.span));
      }
      for (const { n } of dicts) leaves.set(DICT_STATE + n, branchLeaves(ip, n, values.get(DICT_STATE + n)!, s.span));
      objs.saved.forEach((old, o) => {
        const changed = new Map<string, BranchLeaves>();
        o.attrs.forEach((v, k) => v !== old.get(k) && changed.set(k, branchLeaves(ip, k, v, s.span)));
        objState.set(o, { attrs: new Map(o.attrs), leaves: changed });
      });
    });
    restoreDicts();
    restoreObjs();
    return { stmts, exits, values, leaves, objs: objState };
  };
  ip.dynamicDepth++;
  branchObjects.push(objs);
  let a: ReturnType<typeof run>;
  let b: ReturnType<typeof run>;
  try {
    a = run(s.body);
    restore(before);
    b = run(s.orelse);
  } finally {
    ip.dynamicDepth--;
    branchObjects.pop();
    restoreObjs();
    objs.saved.forEach((_, o) => (o.carriedDepth = ip.dynamicDepth));
    savedDicts.forEach(({ d, depth }) => (d.depth = depth));
  }
  // the state after the if: from the branches that fall through
  const live = [a, b].filter((x) => !x.exits);
  restore(new Map([...(live[0] ?? a).values].filter(([n]) => !n.startsWith(DICT_STATE))));
  if (live.length === 1) for (const { n, d } of dicts) assignDicts(d, live[0]!.values.get(DICT_STATE + n) as PyDict);
  /** An object's attributes as branch `x` left them (an object it did not set: as before the if). */
  const attrsIn = (x: typeof a, o: PyInstance): Map<string, PyValue> => x.objs.get(o)?.attrs ?? objs.saved.get(o)!;
  if (live.length === 1) objs.saved.forEach((_, o) => attrsIn(live[0]!, o).forEach((v, k) => o.attrs.set(k, v)));
  const cond = { name: '' };
  const chosen = (): HExpr => ({ k: 'var', name: (cond.name ||= ip.freshName('cond')) });
  if (live.length === 2) {
    const decls: HStmt[] = [];
    for (const n of names) {
      const x = a.values.get(n);
      const y = b.values.get(n);
      if (x === y || (x !== undefined && y !== undefined && !isArray(x) && !isArray(y) && !(x instanceof HostScalar) && !(y instanceof HostScalar) && staticEquals(x, y))) continue;
      if (x === undefined || y === undefined) {
        // bound on one path only: not usable after the if (Python's NameError where the other path ran); in a
        // host loop, the loop may still run unrolled
        if (ip.dynamicDepth > 0 && !deadAfterIf(n, s)) throw new NeedsStatic(`'${n}' is bound on one path of an if on a value known only when the program runs`, s.span);
        scope.vars.delete(n);
        continue;
      }
      const la = a.leaves.get(n) ?? branchLeaves(ip, n, x, s.span);
      const lb = b.leaves.get(n) ?? branchLeaves(ip, n, y, s.span);
      scope.vars.set(n, mergeBranches(ip, n, [x, y], [la, lb], [a.stmts, b.stmts], decls, s.span, chosen));
    }
    for (const { n, d } of dicts) {
      const key = DICT_STATE + n;
      const [x, y] = [a.values.get(key)!, b.values.get(key)!];
      assignDicts(d, mergeBranches(ip, n, [x, y], [a.leaves.get(key)!, b.leaves.get(key)!], [a.stmts, b.stmts], decls, s.span, chosen) as PyDict);
    }
    objs.saved.forEach((_, o) => {
      const [sa, sb] = [attrsIn(a, o), attrsIn(b, o)];
      for (const k of new Set([...sa.keys(), ...sb.keys()])) {
        const [x, y] = [sa.get(k), sb.get(k)];
        if (x === undefined || y === undefined) {
          // set on one path only, where the object had no such attribute: an AttributeError on the other path
          if (ip.dynamicDepth > 0) throw new NeedsStatic(`attribute '${k}' is set on one path of an if on a value known only when the program runs`, s.span);
          o.attrs.delete(k);
          continue;
        }
        if (x === y) o.attrs.set(k, x);
        else o.attrs.set(k, mergeBranches(ip, k, [x, y], [a.objs.get(o)?.leaves.get(k) ?? branchLeaves(ip, k, x, s.span), b.objs.get(o)?.leaves.get(k) ?? branchLeaves(ip, k, y, s.span)], [a.stmts, b.stmts], decls, s.span, chosen));
      }
    });
    decls.forEach((d) => ip.emit(d));
  }
  // a value chosen by the if (a function made in each branch) reads the test again after it: the test is kept
  if (cond.name) ip.emit({ k: 'const', names: [cond.name], value: test.expr });
  ip.emit({ k: 'if', test: cond.name ? { k: 'var', name: cond.name } : test.expr, then: a.stmts, else: b.stmts });
}

/** The key under which a branch's values hold the state it left a dict in (not a Python name). */
const DICT_STATE = '<dict>';

/** `d` and the dicts nested in it (in dicts, lists and tuples). */
function dictsIn(v: PyValue, out: PyDict[] = []): PyDict[] {
  if (v instanceof PyDict) {
    if (out.includes(v)) return out;
    out.push(v);
    v.values().forEach((x) => dictsIn(x, out));
  } else if (v instanceof PyList || v instanceof PyTuple) v.items.forEach((x) => dictsIn(x, out));
  return out;
}

/** A copy of `v`'s dicts (other values shared). */
function copyDicts(v: PyValue): PyValue {
  if (!(v instanceof PyDict)) return v;
  const d = new PyDict();
  d.flavor = v.flavor;
  v.entries.forEach(([k, x], key) => d.entries.set(key, [k, copyDicts(x)]));
  return d;
}

/** Sets `d`'s items (and those of the dicts in it) to `from`'s, keeping the objects. */
function assignDicts(d: PyDict, from: PyDict): void {
  const old = new Map(d.entries);
  (d.entries as Map<string, [PyValue, PyValue]>).clear();
  from.entries.forEach(([k, x], key) => {
    const was = old.get(key)?.[1];
    if (was instanceof PyDict && x instanceof PyDict && was !== x) {
      assignDicts(was, x);
      d.entries.set(key, [k, was]);
    } else d.entries.set(key, [k, x]);
  });
}

/** A call of a HostChoice: both functions called, in the arms of a TS if on its test; the results merged as an if's. */
export function callChoice(ip: Interp, c: HostChoice, call: CallArgs): PyValue {
  if (!ip.atHost) throw new CompileError('calling a function chosen by an if on a value known only when the program runs, inside a traced function, is not supported', call.span);
  ip.flush(call.args);
  const arm = (fn: PyValue): { stmts: HStmt[]; value: PyValue; leaves: BranchLeaves } => {
    let value: PyValue = null;
    let leaves: BranchLeaves | null = null;
    const stmts = ip.collect(() => {
      value = ip.call(fn, call);
      ip.flush([value]);
      leaves = branchLeaves(ip, 'result', value, call.span);
    });
    return { stmts, value, leaves: leaves! };
  };
  ip.dynamicDepth++;
  let a: ReturnType<typeof arm>;
  let b: ReturnType<typeof arm>;
  try {
    a = arm(c.a);
    b = arm(c.b);
  } finally {
    ip.dynamicDepth--;
  }
  const decls: HStmt[] = [];
  // (a function each call returns is chosen by the same test)
  const merged = mergeBranches(ip, 'result', [a.value, b.value], [a.leaves, b.leaves], [a.stmts, b.stmts], decls, call.span, () => c.test);
  decls.forEach((d) => ip.emit(d));
  ip.emit({ k: 'if', test: c.test, then: a.stmts, else: b.stmts });
  return merged;
}

type BranchLeaves = { leaves: { init: PyValue }[]; expr: HExpr[]; rebuild: (l: PyValue[]) => PyValue; shape: string };

/**
 * The value of name `n` after a run-time if whose branches left `x` and `y` (flattened as `la`, `lb`): each
 * leaf that differs is a `let` (in `decls`) assigned at the end of each branch; a function or object made
 * in each branch (`vjp_fun`) is a HostChoice between them on the if's test (`chosen()` names it).
 */
function mergeBranches(ip: Interp, n: string, [x, y]: [PyValue, PyValue], [la, lb]: [BranchLeaves, BranchLeaves], [aStmts, bStmts]: [HStmt[], HStmt[]], decls: HStmt[], span: A.Span, chosen: () => HExpr): PyValue {
  // (NeedsStatic: a host loop around it may still run unrolled, where the test is known)
  const differ = (why: string): NeedsStatic =>
    new NeedsStatic(`'${n}' is assigned values of different types in the branches of an if on a value known only when the program runs (${why}); jaxts needs one type after the if`, span);
  // None on one path and a host number or string on the other (`best = None` before, `best = loss` in it)
  const kind = scalarKind(x ?? y);
  if ((x === null) !== (y === null) && kind !== null && !(typeof (x ?? y) === 'bigint' && !Number.isSafeInteger(Number(x ?? y)))) {
    const letName = ip.freshName(n);
    const value = (v: PyValue): HExpr => (v instanceof HostScalar ? rawExpr(v) : hexpr(v));
    decls.push({ k: 'let', names: [letName], value: null, type: `${kind === 'str' ? 'string' : kind === 'bool' ? 'boolean' : 'number'} | null` });
    aStmts.push({ k: 'assign', name: letName, value: value(x) });
    bStmts.push({ k: 'assign', name: letName, value: value(y) });
    return HostScalar.orNone({ k: 'var', name: letName }, kind);
  }
  // a 0-d JAX array on one path and a Python or NumPy number on the other (`x += step` under the test only):
  // the number as a 0-d array of the array's dtype, as the next array operation would make it
  const liftScalar = (v: PyValue, other: PyValue): HostArray | null => {
    if (!isArray(other) || !(typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof NpScalar)) return null;
    const a = ip.ops.aval(other, span);
    return a.shape.length ? null : ip.hostArray(ip.ops.asArray(v, span, a.dtype), span);
  };
  const lx = liftScalar(x, y);
  const ly = liftScalar(y, x);
  if (lx || ly) return mergeBranches(ip, n, [lx ?? x, ly ?? y], [lx ? branchLeaves(ip, n, lx, span) : la, ly ? branchLeaves(ip, n, ly, span) : lb], [aStmts, bStmts], decls, span, chosen);
  const oa = opaqueParts(x);
  const ob = opaqueParts(y);
  if (oa.length !== ob.length || oa.some((p, i) => p !== ob[i])) {
    if (oa.length === 1 && ob.length === 1 && oa[0] === x && ob[0] === y) return new HostChoice(chosen(), x, y);
    throw differ(`different ${typeName(x) === typeName(y) ? `${typeName(x)} objects` : `${typeName(x)} and ${typeName(y)}`}`);
  }
  if (la.shape !== lb.shape || la.leaves.length !== lb.leaves.length) throw differ(`${typeName(x)} and ${typeName(y)}`);
  const merged = la.leaves.map((l, i) => {
    const p = l.init;
    const q = lb.leaves[i]!.init;
    if (p === q || (isStaticScalar(p) && isStaticScalar(q) && typeof p === typeof q && p === q)) return p;
    const letName = ip.freshName(n);
    if (isArray(p) && isArray(q)) {
      const u = ip.ops.aval(p, span);
      const w = ip.ops.aval(q, span);
      if (u.dtype !== w.dtype || u.shape.join() !== w.shape.join()) throw differ(`${jaxTypeStr(u)} and ${jaxTypeStr(w)}`);
      if (!sameSharding(p, q)) throw differ('arrays laid out differently');
      decls.push({ k: 'let', names: [letName], value: null, type: 'jx.JArray' });
      const h = new HostArray(letName, u.weak === w.weak ? u : { shape: u.shape, dtype: u.dtype });
      h.sharding = shardingOf(p);
      aStmts.push({ k: 'assign', name: letName, value: la.expr[i]! });
      bStmts.push({ k: 'assign', name: letName, value: lb.expr[i]! });
      return h;
    }
    const kp = scalarKind(p);
    if (kp === null || kp !== scalarKind(q)) throw differ(`${typeName(p)} and ${typeName(q)}`);
    // (a value that may be None on either path stays one that may be None)
    const orNone = (p instanceof HostScalar && p.raw !== null) || (q instanceof HostScalar && q.raw !== null);
    decls.push({ k: 'let', names: [letName], value: null, type: `${kp === 'str' ? 'string' : kp === 'bool' ? 'boolean' : 'number'}${orNone ? ' | null' : ''}` });
    aStmts.push({ k: 'assign', name: letName, value: la.expr[i]! });
    bStmts.push({ k: 'assign', name: letName, value: lb.expr[i]! });
    return orNone ? HostScalar.orNone({ k: 'var', name: letName }, kp) : new HostScalar({ k: 'var', name: letName }, kp);
  });
  return la.rebuild(merged);
}

/** A name's value as a branch left it unchanged (the value from before the if): its leaves, flattened as in the branches. */
function branchLeaves(ip: Interp, n: string, v: PyValue, span: A.Span): { leaves: { init: PyValue }[]; expr: HExpr[]; rebuild: (l: PyValue[]) => PyValue; shape: string } {
  const out: { letName: string; init: PyValue }[] = [];
  const outer = attrCarry;
  attrCarry = null;
  try {
    const rebuild = flattenCarry(ip, v, n, out, span, false);
    return { leaves: out, expr: out.map((l) => (isArray(l.init) || l.init instanceof HostScalar || isStaticScalar(l.init) ? hexprOfLeaf(ip, l.init, span) : { k: 'lit', value: null })), rebuild, shape: objectShape(v) };
  } finally {
    attrCarry = outer;
  }
}

/** `assert test, msg` on a value known only at run time: Python's AssertionError (with str(msg)) when the program runs. */
function runTimeAssert(ip: Interp, s: A.Assert, test: HostScalar, scope: Scope): void {
  // Python evaluates the message only when the test fails: here it must be known without running anything
  const msg = s.msg ? ip.str(evalExpr(ip, s.msg, scope), s.msg.span).toExpr() : { k: 'lit' as const, value: null };
  ip.emit({ k: 'expr', e: { k: 'call', callee: 'jx.pyAssert', args: [test.expr, msg, { k: 'lit', value: s.span.start.line }] } });
}
