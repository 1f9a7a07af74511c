// Prints a Func as a jaxpr-like text, for `jaxts compile --dump ir`:
//   { lambda ; a:f32[4,2]. let
//       b:f32[4,2] = sin a
//     in (b,) }
import { jaxPrimName } from './indexing.js';
import type { Atom, Eqn, Func, Var } from './types.js';
import { avalStr, shortDtype } from './types.js';

export function printFunc(f: Func): string {
  const names = new Map<number, string>();
  const name = (v: Var): string => {
    let n = names.get(v.id);
    if (!n) {
      n = varName(names.size);
      names.set(v.id, n);
    }
    return n;
  };
  const atom = (a: Atom): string => (a.kind === 'lit' ? litStr(a.value, a.aval.dtype) : name(a));
  const decl = (v: Var): string => `${name(v)}:${avalStr(v.aval)}`;
  const axes = f.axisEnv?.length ? `  # axes: ${f.axisEnv.map((a) => `${a.name}=${a.size}`).join(', ')}\n` : '';
  const lines = [`${f.name} = { lambda ; ${f.params.map(decl).join(' ')}. let`];
  for (const e of f.eqns) lines.push(`    ${e.outputs.map(decl).join(' ')} = ${jaxPrimName(e.prim)}${paramStr(e)} ${e.inputs.map(atom).join(' ')}`);
  lines.push(`  in (${f.results.map(atom).join(', ')}${f.results.length === 1 ? ',' : ''}) }`);
  return axes + lines.join('\n');
}

function varName(i: number): string {
  // a, b, ..., z, ba, bb, ... as jaxprs do
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let s = '';
  let n = i;
  do {
    s = letters[n % 26] + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

function litStr(v: number, dtype: string): string {
  if (dtype === 'bool') return v ? 'True' : 'False';
  // (-0.0 keeps its sign: programs that differ only in it are not the same program)
  if (dtype === 'float32') return `${Object.is(v, -0) ? '-0.0' : Number.isInteger(v) ? v.toFixed(1) : String(v)}:f32[]`;
  return `${v}:${shortDtype(dtype as 'int32')}[]`;
}

function paramStr(e: Eqn): string {
  const entries = Object.entries(e.params);
  if (!entries.length) return '';
  return `[${entries.map(([k, v]) => `${k}=${valueStr(v)}`).join(' ')}]`;
}

const isFunc = (v: unknown): v is Func => !!v && typeof v === 'object' && 'eqns' in v && 'params' in v && 'results' in v;

function valueStr(v: unknown): string {
  // a sub-function (control flow, custom rules): printed nested, indented
  if (isFunc(v)) return printFunc(v).split('\n').join('\n      ');
  if (Array.isArray(v)) return `(${v.map(valueStr).join(', ')}${v.length === 1 ? ',' : ''})`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}=${valueStr(x)}`).join(', ')}}`;
  if (typeof v === 'string') return v;
  return String(v);
}
