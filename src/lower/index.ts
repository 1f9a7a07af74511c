// Lowering entry point: Python AST → host program + array programs.
import { CompileError } from '../diagnostics.js';
import type { HostProgram } from '../ir/host.js';
import type { Module } from '../parser/ast.js';
import { installBuiltins } from './api.js';
import { Interp, NeedsStatic, type LowerOptions } from './interp.js';
import { execBlock } from './stmt.js';
import { BreakSignal, ContinueSignal, ReturnSignal } from './interp.js';

export type { LowerOptions };

export function lower(mod: Module, options: LowerOptions): HostProgram {
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
  return { file: options.file, deviceCount: ip.deviceCount, programs: ip.programs, body };
}
