// Host program → the TypeScript of `main()` and of the exported functions:
// host loops stay loops, program calls are awaited, prints go through the
// runtime; a loop that runs device programs starts each iteration with
// rt.submit() (one device submission per iteration). Each rendered line can
// report the Python line it came from.
import { walkHost, type HExpr, type HStmt } from '../ir/host.js';
import { commentText, jsString } from './literals.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * An object-literal key as JS needs it written. `__proto__` (bare or quoted) would set the prototype
 * instead of defining a property, so it is written as a computed key.
 */
export const propertyKey = (key: string): string => (key === '__proto__' ? `[${jsString(key)}]` : IDENT.test(key) ? key : jsString(key));

/** A property name in a TS type literal (no prototype semantics there). */
export const typeKey = (key: string): string => (IDENT.test(key) ? key : jsString(key));

export function renderExpr(e: HExpr): string {
  switch (e.k) {
    case 'lit':
      if (typeof e.value === 'string') return jsString(e.value);
      if (typeof e.value === 'number') return Object.is(e.value, -0) ? '-0' : Number.isFinite(e.value) ? String(e.value) : e.value > 0 ? 'Infinity' : e.value < 0 ? '-Infinity' : 'NaN';
      return String(e.value);
    case 'var':
      return e.name;
    case 'program':
      return `programs.${e.name}`;
    case 'call': {
      const c = `${e.callee}(${e.args.map(renderExpr).join(', ')})`;
      return e.await ? `(await ${c})` : c;
    }
    case 'concat':
      return e.parts.map((p) => (p.k === 'lit' || p.k === 'var' || p.k === 'call' ? renderExpr(p) : `(${renderExpr(p)})`)).join(' + ');
    case 'bin':
      return `(${renderExpr(e.a)} ${e.op} ${renderExpr(e.b)})`;
    case 'unary':
      return `${e.op}(${renderExpr(e.x)})`;
    case 'array':
      return `[${e.items.map(renderExpr).join(', ')}]`;
    case 'index':
      return `${renderExpr(e.x)}[${e.index}]`;
    case 'member':
      return IDENT.test(e.key) ? `${renderExpr(e.x)}.${e.key}` : `${renderExpr(e.x)}[${jsString(e.key)}]`;
    case 'object':
      return e.entries.length ? `{ ${e.entries.map(([k, v]) => `${propertyKey(k)}: ${stripParens(renderExpr(v))}`).join(', ')} }` : '{}';
    case 'cond':
      return `(${renderExpr(e.test)} ? ${renderExpr(e.then)} : ${renderExpr(e.else)})`;
  }
}

export interface RenderOptions {
  /** TypeScript (declared types kept) or plain JS. */
  types: boolean;
}

/** A rendered line and the 1-based Python line it came from (undefined: none). */
export interface Line {
  text: string;
  line: number | undefined;
}

/** Whether `body` calls a device program. */
function runsPrograms(body: HStmt[]): boolean {
  let found = false;
  walkHost(body, { expr: (e) => void (found ||= e.k === 'program') });
  return found;
}

export function renderStmts(body: HStmt[], indent: string, opts: RenderOptions): Line[] {
  const out: Line[] = [];
  for (const s of body) {
    const own = (text: string): void => void out.push({ text, line: s.line });
    // (pushed one by one: a spread of an unrolled loop's 10^5 lines overflows the stack)
    const nested = (stmts: HStmt[]): void => renderStmts(stmts, indent + '  ', opts).forEach((l) => out.push(l));
    // a loop that runs device programs hands the previous iteration's work to the device as one submission
    const submitEachIteration = (stmts: HStmt[]): void => {
      if (runsPrograms(stmts)) out.push({ text: `${indent}  rt.submit();`, line: s.line });
    };
    switch (s.k) {
      case 'const':
      case 'let': {
        const lhs = s.destructure ? `[${s.names.join(', ')}]` : s.names[0]!;
        const type = s.type && opts.types ? (s.value ? `: ${s.type}` : `!: ${s.type}`) : '';
        own(`${indent}${s.k} ${lhs}${type}${s.value ? ` = ${stripParens(renderExpr(s.value))}` : ''};`);
        break;
      }
      case 'assign':
        own(`${indent}${s.name} = ${stripParens(renderExpr(s.value))};`);
        break;
      case 'expr':
        own(`${indent}${stripParens(renderExpr(s.e))};`);
        break;
      case 'for': {
        const step = s.step.k === 'lit' ? Number(s.step.value) : null;
        const inc = step === 1 ? `${s.v}++` : `${s.v} += ${renderExpr(s.step)}`;
        const cmp = step !== null && step < 0 ? '>' : '<';
        own(`${indent}for (let ${s.v} = ${renderExpr(s.start)}; ${s.v} ${cmp} ${renderExpr(s.stop)}; ${inc}) {`);
        submitEachIteration(s.body);
        nested(s.body);
        own(`${indent}}`);
        break;
      }
      case 'while':
        own(`${indent}while (${renderExpr(s.test)}) {`);
        submitEachIteration(s.body);
        nested(s.body);
        own(`${indent}}`);
        break;
      case 'if':
        own(`${indent}if (${stripParens(renderExpr(s.test))}) {`);
        nested(s.then);
        if (s.else.length) {
          own(`${indent}} else {`);
          nested(s.else);
        }
        own(`${indent}}`);
        break;
      case 'try':
        own(`${indent}try {`);
        nested(s.body);
        own(`${indent}} catch (${s.catchVar}) {`);
        nested(s.handler);
        own(`${indent}}`);
        break;
      case 'break':
        own(`${indent}break;`);
        break;
      case 'continue':
        own(`${indent}continue;`);
        break;
      case 'return':
        own(`${indent}return ${stripParens(renderExpr(s.value))};`);
        break;
      case 'comment':
        own(`${indent}// ${commentText(s.text)}`);
        break;
    }
  }
  return out;
}

function stripParens(s: string): string {
  if (!s.startsWith('(') || !s.endsWith(')')) return s;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth === 0 && i < s.length - 1) return s;
  }
  return s.slice(1, -1);
}
