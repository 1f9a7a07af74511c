// Host program → the TypeScript of `main()`: host loops stay loops, program
// calls are awaited, prints go through the runtime.
import type { HExpr, HStmt } from '../ir/host.js';

export function renderExpr(e: HExpr): string {
  switch (e.k) {
    case 'lit':
      if (typeof e.value === 'string') return JSON.stringify(e.value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      if (typeof e.value === 'number') return Object.is(e.value, -0) ? '-0' : Number.isFinite(e.value) ? String(e.value) : e.value > 0 ? 'Infinity' : e.value < 0 ? '-Infinity' : 'NaN';
      return String(e.value);
    case 'var':
      return e.name;
    case 'program':
      return e.name;
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
    case 'cond':
      return `(${renderExpr(e.test)} ? ${renderExpr(e.then)} : ${renderExpr(e.else)})`;
  }
}

export function renderStmts(body: HStmt[], indent: string): string[] {
  const out: string[] = [];
  for (const s of body) {
    switch (s.k) {
      case 'const':
      case 'let': {
        const lhs = s.destructure ? `[${s.names.join(', ')}]` : s.names[0]!;
        const type = s.type && !s.value ? `!: ${s.type}` : '';
        out.push(`${indent}${s.k} ${lhs}${type}${s.value ? ` = ${stripParens(renderExpr(s.value))}` : ''};`);
        break;
      }
      case 'assign':
        out.push(`${indent}${s.name} = ${stripParens(renderExpr(s.value))};`);
        break;
      case 'expr':
        out.push(`${indent}${stripParens(renderExpr(s.e))};`);
        break;
      case 'for': {
        const step = s.step.k === 'lit' ? Number(s.step.value) : null;
        const inc = step === 1 ? `${s.v}++` : `${s.v} += ${renderExpr(s.step)}`;
        const cmp = step !== null && step < 0 ? '>' : '<';
        out.push(`${indent}for (let ${s.v} = ${renderExpr(s.start)}; ${s.v} ${cmp} ${renderExpr(s.stop)}; ${inc}) {`);
        out.push(...renderStmts(s.body, indent + '  '));
        out.push(`${indent}}`);
        break;
      }
      case 'while':
        out.push(`${indent}while (${renderExpr(s.test)}) {`, ...renderStmts(s.body, indent + '  '), `${indent}}`);
        break;
      case 'if':
        out.push(`${indent}if (${stripParens(renderExpr(s.test))}) {`, ...renderStmts(s.then, indent + '  '));
        if (s.else.length) out.push(`${indent}} else {`, ...renderStmts(s.else, indent + '  '));
        out.push(`${indent}}`);
        break;
      case 'break':
        out.push(`${indent}break;`);
        break;
      case 'continue':
        out.push(`${indent}continue;`);
        break;
      case 'comment':
        out.push(`${indent}// ${s.text}`);
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
