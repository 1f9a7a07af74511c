// Deterministic freeing of device arrays in the host program: a liveness
// pass over main() and each exported function that releases every array
// variable at the end of its live range (`jx.release(x)` after its last use,
// at the start of a branch or loop body that overwrites it, after a loop that
// reads it). Each array variable owns one reference (runtime/runtime.ts's
// JArray counts them): a copy `a = b` whose source dies moves the reference,
// one whose source lives on takes another (`b.retain()`), and a returned
// array passes its reference to the caller. A variable used in a way this
// pass does not model (inside an expression it cannot follow) is never
// released; its memory is freed when it is collected, as before.
import { walkHost, type HExpr, type HostProgram, type HStmt } from '../ir/host.js';

/** Calls whose results are new arrays the caller owns: one per destructured name, or one. */
const PRODUCES_MANY = new Set(['rt.call', 'rt.pmap', 'rt.spmd']);
const PRODUCES_ONE = new Set(['rt.constant', 'rt.devicePut', 'rt.shard', 'jx.arg']);
/** Calls that read their array arguments (directly, or in an array literal) without keeping them. */
const BORROWS = new Set([...PRODUCES_MANY, 'rt.devicePut', 'rt.shard', 'jx.str', 'jx.repr', 'jx.formatArray', 'jx.item', 'jx.keyRepr', 'jx.assertClose']);

type Def = { kind: 'fresh' } | { kind: 'copy'; from: string[] } | { kind: 'other' };

/** `a ? b : c` over variables: the value is one of them (each a copy that takes a reference of its own). */
const choiceOf = (e: HExpr): string[] | null => (e.k === 'cond' && e.then.k === 'var' && e.else.k === 'var' ? [e.then.name, e.else.name] : null);

const callOf = (e: HExpr | null): { callee: string; args: HExpr[] } | null => (e?.k === 'call' ? e : null);

function defOf(value: HExpr | null, destructure: boolean): Def | null {
  if (!value) return null;
  const c = callOf(value);
  if (c && (destructure ? PRODUCES_MANY : PRODUCES_ONE).has(c.callee)) return { kind: 'fresh' };
  if (!destructure && value.k === 'var') return { kind: 'copy', from: [value.name] };
  const choice = destructure ? null : choiceOf(value);
  if (choice) return { kind: 'copy', from: choice };
  return { kind: 'other' };
}

/** The variables an expression reads. */
function varsOf(e: HExpr, out: Set<string> = new Set()): Set<string> {
  switch (e.k) {
    case 'var': out.add(e.name); break;
    case 'call': e.args.forEach((a) => varsOf(a, out)); break;
    case 'concat': e.parts.forEach((p) => varsOf(p, out)); break;
    case 'bin': varsOf(e.a, out); varsOf(e.b, out); break;
    case 'unary': case 'index': case 'member': varsOf(e.x, out); break;
    case 'array': e.items.forEach((i) => varsOf(i, out)); break;
    case 'object': e.entries.forEach(([, v]) => varsOf(v, out)); break;
    case 'cond': varsOf(e.test, out); varsOf(e.then, out); varsOf(e.else, out); break;
    case 'lit': case 'program': break;
  }
  return out;
}

/** Visit statements (nested ones too). */
function eachStmt(body: HStmt[], f: (s: HStmt) => void): void {
  for (const s of body) {
    f(s);
    if (s.k === 'for' || s.k === 'while') eachStmt(s.body, f);
    if (s.k === 'if') {
      eachStmt(s.then, f);
      eachStmt(s.else, f);
    }
  }
}

/** Variables a returned value hands over (arrays and objects of variables, nested). */
function returnedVars(e: HExpr, out: string[]): boolean {
  if (e.k === 'var') return void out.push(e.name), true;
  if (e.k === 'array') return e.items.every((i) => returnedVars(i, out));
  if (e.k === 'object') return e.entries.every(([, v]) => returnedVars(v, out));
  return e.k === 'lit';
}

/** The array variables of `body` that own their reference (see the file comment). */
function ownedVars(body: HStmt[]): Set<string> {
  const defs = new Map<string, Def[]>();
  const addDef = (n: string, d: Def | null): void => {
    if (!d) return;
    const list = defs.get(n);
    if (list) list.push(d);
    else defs.set(n, [d]);
  };
  /** Uses of each variable that keep a reference: a copy into another variable (its name), or an escape (null). */
  const keeps = new Map<string, (string | null)[]>();
  const keep = (n: string, into: string | null): void => {
    const list = keeps.get(n);
    if (list) list.push(into);
    else keeps.set(n, [into]);
  };
  const scan = (e: HExpr, borrowed: boolean): void => {
    if (e.k === 'var') {
      if (!borrowed) keep(e.name, null);
      return;
    }
    if (e.k === 'call' && BORROWS.has(e.callee)) {
      for (const a of e.args) {
        if (a.k === 'var') continue;
        if (a.k === 'array') a.items.forEach((i) => scan(i, true));
        else scan(a, false);
      }
      return;
    }
    if (e.k === 'array' && borrowed) return e.items.forEach((i) => scan(i, i.k === 'var'));
    // children one by one: an array literal may hold a large constant's 10^5+ elements (no spread into push)
    const each = (xs: readonly HExpr[]): void => xs.forEach((i) => scan(i, false));
    switch (e.k) {
      case 'call': each(e.args); break;
      case 'concat': each(e.parts); break;
      case 'bin': each([e.a, e.b]); break;
      case 'unary': case 'index': case 'member': scan(e.x, false); break;
      case 'array': each(e.items); break;
      case 'object': e.entries.forEach(([, v]) => scan(v, false)); break;
      case 'cond': each([e.test, e.then, e.else]); break;
      case 'lit': case 'program': break;
    }
  };
  const value = (into: string | null, v: HExpr): void => {
    const choice = choiceOf(v);
    if (into !== null && v.k === 'var') keep(v.name, into);
    else if (into !== null && choice && v.k === 'cond') {
      choice.forEach((n) => keep(n, into));
      scan(v.test, false);
    } else scan(v, false);
  };
  eachStmt(body, (s) => {
    switch (s.k) {
      case 'const': case 'let':
        s.names.forEach((n) => addDef(n, defOf(s.value, !!s.destructure)));
        if (s.value) value(s.destructure ? null : s.names[0]!, s.value);
        break;
      case 'assign':
        addDef(s.name, defOf(s.value, false));
        value(s.name, s.value);
        break;
      case 'expr': scan(s.e, false); break;
      case 'for':
        addDef(s.v, { kind: 'other' });
        [s.start, s.stop, s.step].forEach((e) => scan(e, false));
        break;
      case 'while': case 'if': scan(s.test, false); break;
      case 'return': {
        const vs: string[] = [];
        if (!returnedVars(s.value, vs)) scan(s.value, false);
        break;
      }
      case 'break': case 'continue': case 'comment': break;
    }
  });
  const owned = new Set([...defs].filter(([, ds]) => ds.some((d) => d.kind !== 'other')).map(([n]) => n));
  // a run-time `try` may leave its body anywhere: what it mentions is never released (a leak at worst)
  eachStmt(body, (s) => {
    if (s.k === 'try') walkHost([...s.body, ...s.handler], { expr: (e) => void (e.k === 'var' && owned.delete(e.name)), stmt: (x) => defsOf(x).forEach((n) => owned.delete(n)) });
  });
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of [...owned]) {
      const defsOk = defs.get(n)!.every((d) => d.kind === 'fresh' || (d.kind === 'copy' && d.from.every((f) => owned.has(f))));
      const usesOk = (keeps.get(n) ?? []).every((into) => into !== null && owned.has(into));
      if (!defsOk || !usesOk) {
        owned.delete(n);
        changed = true;
      }
    }
  }
  return owned;
}

interface Ctx {
  owned: Set<string>;
  /** Live on `break` and on `continue` in the innermost loop (its head). */
  head: Set<string> | null;
}

const union = (...sets: Iterable<string>[]): Set<string> => {
  const res = new Set<string>();
  for (const s of sets) for (const x of s) res.add(x);
  return res;
};
const minus = (a: Set<string>, b: Set<string>): Set<string> => new Set([...a].filter((x) => !b.has(x)));
const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

function uses(s: HStmt, owned: Set<string>): Set<string> {
  const vs = new Set<string>();
  switch (s.k) {
    case 'const': case 'let': if (s.value) varsOf(s.value, vs); break;
    case 'assign': varsOf(s.value, vs); break;
    case 'expr': varsOf(s.e, vs); break;
    case 'return': varsOf(s.value, vs); break;
    case 'for': [s.start, s.stop, s.step].forEach((e) => varsOf(e, vs)); break;
    case 'while': case 'if': varsOf(s.test, vs); break;
    case 'break': case 'continue': case 'comment': break;
  }
  return new Set([...vs].filter((v) => owned.has(v)));
}

const defsOf = (s: HStmt): string[] => (s.k === 'const' || s.k === 'let' ? s.names : s.k === 'assign' ? [s.name] : []);

/** The live set at a loop's head: what the body reads before writing, what follows the loop, what the loop test reads. */
function loopHead(s: HStmt & { k: 'for' | 'while' }, after: Set<string>, ctx: Ctx): Set<string> {
  const test = s.k === 'for' ? union(...[s.stop, s.step].map((e) => varsOf(e))) : varsOf(s.test);
  let head = union(after, [...test].filter((v) => ctx.owned.has(v)));
  for (;;) {
    const next = union(head, blockIn(s.body, head, { ...ctx, head }));
    if (sameSet(next, head)) return head;
    head = next;
  }
}

/** The owned variables live on entry to `s`, given those live after it. */
function stmtIn(s: HStmt, out: Set<string>, ctx: Ctx): Set<string> {
  switch (s.k) {
    case 'for': {
      const start = [...varsOf(s.start)].filter((v) => ctx.owned.has(v));
      return union(start, loopHead(s, out, ctx));
    }
    case 'while': return loopHead(s, out, ctx);
    case 'if': return union(uses(s, ctx.owned), blockIn(s.then, out, ctx), blockIn(s.else, out, ctx));
    case 'break': case 'continue': return new Set(ctx.head ?? []);
    case 'return': return uses(s, ctx.owned);
    default: {
      // most statements leave the live set as it is: it is shared then, not copied (a long unrolled loop's
      // live sets made the pass quadratic)
      const defs = defsOf(s);
      const read = uses(s, ctx.owned);
      if (!defs.some((n) => out.has(n)) && [...read].every((v) => out.has(v))) return out;
      const live = new Set(out);
      for (const n of defs) live.delete(n);
      for (const v of read) live.add(v);
      return live;
    }
  }
}

function blockIn(body: HStmt[], out: Set<string>, ctx: Ctx): Set<string> {
  let live = out;
  for (let i = body.length - 1; i >= 0; i--) live = stmtIn(body[i]!, live, ctx);
  return live;
}

const releaseStmt = (names: Iterable<string>, line: number | undefined): HStmt[] => {
  const args = [...names].map((name): HExpr => ({ k: 'var', name }));
  return args.length ? [{ k: 'expr', e: { k: 'call', callee: 'jx.release', args }, line }] : [];
};

const retained = (name: string): HExpr => ({ k: 'call', callee: `${name}.retain`, args: [] });

/** A returned value: each variable hands its reference to the caller; one already handed over (in `seen`) takes another. */
function handOver(e: HExpr, owned: Set<string>, seen: Set<string>): HExpr {
  if (e.k === 'array') return { ...e, items: e.items.map((i) => handOver(i, owned, seen)) };
  if (e.k === 'object') return { ...e, entries: e.entries.map(([k, v]) => [k, handOver(v, owned, seen)]) };
  if (e.k !== 'var' || !owned.has(e.name)) return e;
  if (seen.has(e.name)) return retained(e.name);
  seen.add(e.name);
  return e;
}

/** `body` with its releases, given the variables live after it. */
function rewriteBlock(body: HStmt[], out: Set<string>, ctx: Ctx): HStmt[] {
  const res: HStmt[][] = [];
  let live = out;
  for (let i = body.length - 1; i >= 0; i--) {
    const s = body[i]!;
    const liveIn = stmtIn(s, live, ctx);
    res.push(rewriteStmt(s, live, liveIn, ctx));
    live = liveIn;
  }
  return res.reverse().flat();
}

/** `s` and the releases that follow it (or open its nested blocks), given what is live after and before it. */
function rewriteStmt(s: HStmt, out: Set<string>, liveIn: Set<string>, ctx: Ctx): HStmt[] {
  const { owned } = ctx;
  /** A nested block, first releasing what was live on entry to `s` (past its test) but is dead on entry to the block. */
  const nested = (body: HStmt[], bodyOut: Set<string>, entry: Set<string>, inner: Ctx): HStmt[] => {
    const rewritten = rewriteBlock(body, bodyOut, inner);
    return [...releaseStmt(minus(entry, blockIn(body, bodyOut, inner)), s.line), ...rewritten];
  };
  switch (s.k) {
    case 'if': {
      const then = nested(s.then, out, liveIn, ctx);
      const els = nested(s.else, out, liveIn, ctx);
      return [{ ...s, then, else: els }];
    }
    case 'for': case 'while': {
      const head = loopHead(s, out, ctx);
      const inner = { ...ctx, head };
      const body = nested(s.body, head, head, inner);
      return [{ ...s, body }, ...releaseStmt(minus(head, out), s.line)];
    }
    case 'return': {
      const vs: string[] = [];
      return [returnedVars(s.value, vs) ? { ...s, value: handOver(s.value, owned, new Set()) } : s];
    }
    case 'break': case 'continue': case 'comment': return [s];
    default: {
      const read = uses(s, owned);
      const written = s.k === 'assign' || ((s.k === 'const' || s.k === 'let') && s.value) ? defsOf(s) : [];
      const dying = minus(union(read, written.filter((n) => owned.has(n))), out);
      // a copy moves the reference when its source dies here, else takes another
      if ((s.k === 'const' || s.k === 'let' || s.k === 'assign') && s.value?.k === 'var' && owned.has(s.value.name)) {
        const src = s.value.name;
        if (dying.has(src)) {
          dying.delete(src);
          return [s, ...releaseStmt(dying, s.line)];
        }
        return [{ ...s, value: retained(src) }, ...releaseStmt(dying, s.line)];
      }
      // a choice between variables takes a reference of its own to the one chosen
      if (s.k === 'const' || s.k === 'let' || s.k === 'assign') {
        const choice = s.value ? choiceOf(s.value) : null;
        if (s.value?.k === 'cond' && choice?.every((n) => owned.has(n))) {
          const value: HExpr = { ...s.value, then: retained(choice[0]!), else: retained(choice[1]!) };
          return [{ ...s, value }, ...releaseStmt(dying, s.line)];
        }
      }
      return [s, ...releaseStmt(dying, s.line)];
    }
  }
}

/** A function body with releases; `exitLive`: variables that outlive it (main()'s results and the state exports read). */
function releaseBody(body: HStmt[], exitLive: Set<string>, owned = ownedVars(body)): HStmt[] {
  if (!owned.size) return body;
  return rewriteBlock(body, new Set([...exitLive].filter((v) => owned.has(v))), { owned, head: null });
}

/**
 * `hp` with device arrays released after their last use in main() and in
 * each exported function. main()'s results hand their references to the
 * caller; the state kept for exported functions holds one of its own.
 */
export function releaseDeadArrays(hp: HostProgram): HostProgram {
  const exitLive = new Set(hp.scriptState);
  for (const r of hp.results ?? []) varsOf(r.value, exitLive);
  const owned = ownedVars(hp.body);
  const seen = new Set(hp.scriptState);
  return {
    ...hp,
    body: releaseBody(hp.body, exitLive, owned),
    results: hp.results?.map((r) => ({ ...r, value: handOver(r.value, owned, seen) })),
    exports: hp.exports.map((x) => ({ ...x, body: releaseBody(x.body, new Set()) })),
  };
}
