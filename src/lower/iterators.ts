// Python's lazy builtin iterators, map() and filter(): the function runs when
// a loop (list(), for, unpacking) pulls an item, as in Python.
import { CompileError } from '../common/diagnostics.js';
import { iterItems, truthyStatic } from './expr.js';
import type { Interp } from './interp.js';
import { PyIterator, type CallArgs, type PyValue } from './values.js';

function noKeywords(name: string, c: CallArgs): void {
  if (c.kwargs.size) throw new CompileError(`TypeError: ${name}() takes no keyword arguments`, c.span);
}

/** map(function, iterable, ...): stops with the shortest iterable. */
export function mapIterator(ip: Interp, c: CallArgs): PyIterator {
  noKeywords('map', c);
  if (c.args.length < 2) throw new CompileError('TypeError: map() must have at least two arguments.', c.span);
  const fn = c.args[0]!;
  const lists = c.args.slice(1).map((a) => iterItems(ip, a, c.span));
  const sources = lists.map((l) => l[Symbol.iterator]());
  function* items(): Generator<PyValue> {
    for (;;) {
      const args: PyValue[] = [];
      for (const s of sources) {
        const r = s.next();
        if (r.done) return;
        args.push(r.value);
      }
      yield ip.call(fn, { args, kwargs: new Map(), span: c.span });
    }
  }
  return new PyIterator('map', items(), [fn, ...lists.flatMap((l) => (Array.isArray(l) ? l : [l as PyIterator]))]);
}

/** filter(function or None, iterable): the items for which function(item) (or the item) is true. */
export function filterIterator(ip: Interp, c: CallArgs): PyIterator {
  noKeywords('filter', c);
  if (c.args.length !== 2) throw new CompileError(`TypeError: filter expected 2 arguments, got ${c.args.length}`, c.span);
  const [fn, iterable] = c.args as [PyValue, PyValue];
  const source = iterItems(ip, iterable, c.span);
  function* items(): Generator<PyValue> {
    for (const x of source) {
      const keep = fn === null ? x : ip.call(fn, { args: [x], kwargs: new Map(), span: c.span });
      if (truthyStatic(ip, keep, c.span)) yield x;
    }
  }
  return new PyIterator('filter', items(), [fn, ...(Array.isArray(source) ? source : [source as PyIterator])]);
}
