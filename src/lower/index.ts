// Lowering entry point: Python AST → host program + array programs.
import { CompileError } from '../common/diagnostics.js';
import type { HostProgram, HStmt } from '../ir/host.js';
import type { Module } from '../parser/ast.js';
import { checkStatementContext } from '../parser/context.js';
import { installBuiltins } from './api.js';
import { freeVariables, lowerExports } from './exports.js';
import { Interp, isReservedName, NeedsStatic, type LowerOptions } from './interp.js';
import { execBlock } from './stmt.js';
import { BreakSignal, ContinueSignal, ReturnSignal } from './interp.js';

export type { LowerOptions };

export function lower(mod: Module, options: LowerOptions): HostProgram {
  checkStatementContext(mod);
  const ip = new Interp(options);
  installBuiltins(ip);
  try {
    execBlock(ip, mod.body, ip.globals);
  } catch (e) {
    if (e instanceof NeedsStatic) throw new CompileError(e.message, e.span);
    if (e instanceof ReturnSignal) throw new CompileError("SyntaxError: 'return' outside function", null);
    if (e instanceof BreakSignal || e instanceof ContinueSignal) throw new CompileError("SyntaxError: 'break' outside loop", null);
    throw e;
  }
  const body = ip.finishModule();
  const { exports, unexported } = lowerExports(ip, ip.callLog, isReservedName);
  // an export may read arrays main() computed (a global the function uses): main() keeps them in `script`
  const mainNames = new Set(body.flatMap((s) => (s.k === 'const' || s.k === 'let' ? s.names : [])));
  const scriptState = new Set<string>();
  const kept = exports.filter((x) => {
    const params = new Set(x.params.map((p) => p.name));
    const free = freeVariables(x.body, [...params, 'rt', 'deviceCount']);
    const missing = free.filter((n) => !mainNames.has(n) || params.has(n));
    if (missing.length) {
      unexported.push({ name: x.pyName, reason: `it reads ${missing.join(', ')}, computed where an exported function cannot see it` });
      return false;
    }
    x.body.unshift(
      ...free.map((n): HStmt => ({ k: 'const', names: [n], line: x.line, value: { k: 'call', callee: 'jx.fromMain', args: [{ k: 'member', x: { k: 'var', name: 'script' }, key: n }, { k: 'lit', value: n }, { k: 'lit', value: x.name }] } })),
    );
    free.forEach((n) => scriptState.add(n));
    return true;
  });
  return { file: options.file, deviceCount: ip.deviceCount, programs: ip.programs, body, exports: kept, unexported, scriptState: [...scriptState] };
}
