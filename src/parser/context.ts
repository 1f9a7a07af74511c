// Where statements may appear, checked on the AST as CPython's compiler does
// (its ast.parse accepts them anywhere; lower() runs this first): `return`
// only in a function, `break` and `continue` only in a loop of the same
// function. Without this, a `break` in a function called from a loop would
// leave the caller's loop at compile time.
import { CompileError } from '../common/diagnostics.js';
import type { Module, Stmt } from './ast.js';

export function checkStatementContext(mod: Module): void {
  walk(mod.body, false, false);
}

function walk(body: Stmt[], inFunction: boolean, inLoop: boolean): void {
  for (const s of body) {
    switch (s.kind) {
      case 'Return':
        if (!inFunction) throw new CompileError("'return' outside function", s.span);
        break;
      case 'Break':
        if (!inLoop) throw new CompileError("'break' outside loop", s.span);
        break;
      case 'Continue':
        if (!inLoop) throw new CompileError("'continue' not properly in loop", s.span);
        break;
      case 'FunctionDef':
        walk(s.body, true, false);
        break;
      case 'ClassDef':
        walk(s.body, false, false);
        break;
      case 'For':
      case 'While':
        walk(s.body, inFunction, true);
        walk(s.orelse, inFunction, inLoop);
        break;
      case 'If':
        walk(s.body, inFunction, inLoop);
        walk(s.orelse, inFunction, inLoop);
        break;
      case 'With':
        walk(s.body, inFunction, inLoop);
        break;
      case 'Match':
        for (const c of s.cases) walk(c.body, inFunction, inLoop);
        break;
      case 'Try':
        walk(s.body, inFunction, inLoop);
        for (const h of s.handlers) walk(h.body, inFunction, inLoop);
        walk(s.orelse, inFunction, inLoop);
        walk(s.finalbody, inFunction, inLoop);
        break;
    }
  }
}
