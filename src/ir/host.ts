// The host program: what runs on the CPU around the array programs — host
// loops, prints, program calls. A small statement/expression tree that
// src/codegen/host_ts.ts renders as TypeScript.
import type { NanCheck } from '../../runtime/program.js';
import type { Program } from './kernel.js';
import type { DimShardings, MeshShape, SpmdProgram } from './sharding.js';
import type { Func } from './types.js';

export type HExpr =
  | { k: 'lit'; value: string | number | boolean | null }
  | { k: 'var'; name: string }
  /** A call of a runtime function (`jx.NAME`) or a Runtime method (`rt.NAME`). */
  | { k: 'call'; callee: string; args: HExpr[]; await?: boolean }
  /** A compiled array program, by name. */
  | { k: 'program'; name: string }
  | { k: 'concat'; parts: HExpr[] }
  | { k: 'bin'; op: string; a: HExpr; b: HExpr }
  | { k: 'unary'; op: string; x: HExpr }
  | { k: 'array'; items: HExpr[] }
  | { k: 'index'; x: HExpr; index: number }
  /** `x.key` (or `x["key"]` when the key is not an identifier). */
  | { k: 'member'; x: HExpr; key: string }
  /** An object literal `{ key: value, ... }` (a dict or NamedTuple crossing to the application). */
  | { k: 'object'; entries: [string, HExpr][] }
  | { k: 'cond'; test: HExpr; then: HExpr; else: HExpr };

/** Every statement may carry the 1-based line of the Python statement it came from (for source maps). */
export type HStmt = (
  /** `type`: a declared type for a `let` without a value, assigned before any read (`let loss!: jx.JArray`). */
  | { k: 'const' | 'let'; names: string[]; value: HExpr | null; destructure?: boolean; type?: string }
  | { k: 'assign'; name: string; value: HExpr }
  | { k: 'expr'; e: HExpr }
  | { k: 'for'; v: string; start: HExpr; stop: HExpr; step: HExpr; body: HStmt[] }
  | { k: 'while'; test: HExpr; body: HStmt[] }
  | { k: 'if'; test: HExpr; then: HStmt[]; else: HStmt[] }
  /** A Python `try` around code that may raise at run time: `handler` runs with the thrown value in `catchVar`. */
  | { k: 'try'; body: HStmt[]; catchVar: string; handler: HStmt[] }
  | { k: 'break' }
  | { k: 'continue' }
  | { k: 'return'; value: HExpr }
  | { k: 'comment'; text: string }
) & { line?: number };

/** A value's type where it crosses between an exported function and the application. */
export type BoundaryType =
  | { k: 'array'; shape: readonly number[]; dtype: string }
  /** A Python constant the function was compiled for (the caller passes that value; a result is that value). */
  | { k: 'literal'; value: string | number | boolean | null }
  /** A number, string or bool known only at run time. */
  | { k: 'scalar'; type: 'number' | 'string' | 'boolean' }
  | { k: 'tuple'; items: BoundaryType[] }
  | { k: 'object'; fields: [string, BoundaryType][] };

/**
 * A top-level Python function as the compiled module exports it: an async
 * function compiled for the argument types of the script's first call of it.
 */
export interface HostExport {
  /** The exported name (the Python name; `_` appended where that is reserved in JS or by the module). */
  name: string;
  pyName: string;
  /** 1-based line of the Python `def` (or of the assignment binding the name). */
  line: number;
  params: { name: string; type: BoundaryType }[];
  returns: BoundaryType | null;
  body: HStmt[];
  /** A shape-polymorphic export: its symbolic argument shapes, `x: (b, 3), y: (b,)`. */
  symbolic?: string;
}
/**
 * An array program as the lowering asks for it: the traced (global) program
 * and how it runs. The backend passes make the kernels from it.
 */
export interface ProgramRequest {
  name: string;
  /** How the host calls it: `rt.call` (jit, host segments), `rt.pmap`, or `rt.spmd` when `mesh` is set. */
  kind: 'jit' | 'pmap' | 'segment';
  /** The program as traced: global shapes; a pmap body's shapes are per device. */
  func: Func;
  /**
   * Set for programs that run partitioned over a mesh (GSPMD): the mesh and
   * the layout each parameter arrives in (null: free, propagation chooses).
   */
  /** outShardings[i] non-null: result i leaves in that layout (a sharding constraint on it inside jit). */
  mesh?: {
    shape: MeshShape;
    inShardings: (DimShardings | null)[];
    /** Results constrained to a layout (null: free). */
    outShardings?: (DimShardings | null)[];
    /** The layouts sharding propagation chose at trace time, which the host call passes: the partitioner must agree. */
    traced: { inShardings: DimShardings[]; outShardings: DimShardings[] };
    /** The mesh axes each parameter arrives / each result leaves unreduced over (partial sums per device); absent: none. */
    unreduced?: { ins: (readonly string[])[]; outs: (readonly string[])[] };
  };
  /** jax_debug_nans was on when it was traced: the program also returns its float intermediates for the NaN check. */
  debugNans: boolean;
}

/** A program request after the backend passes (src/passes/pipeline.ts): what codegen renders. */
export interface CompiledProgram {
  name: string;
  kind: ProgramRequest['kind'];
  /** The program each device runs: simplified, partitioned (for a mesh), with its NaN-checked results. */
  func: Func;
  /** Set for programs partitioned over a mesh: the global program, shardings, and the per-device one. */
  spmd?: SpmdProgram;
  /** Under jax_debug_nans: the trailing results are float intermediates, checked for NaN after each call. */
  nanChecks?: NanCheck[];
  /** Kernels, buffers and steps: what codegen renders. */
  program: Program;
}

export interface HostProgram {
  /** Source file the program came from. */
  file: string;
  /** The number of simulated devices (XLA_FLAGS in the source, or the CLI's --devices). */
  deviceCount: number;
  /** Array programs in the order they were traced: what the backend passes (src/passes/pipeline.ts) compile. */
  programs: ProgramRequest[];
  body: HStmt[];
  exports: HostExport[];
  /** Top-level functions that are not exported, with the reason (a comment at the end of the module). */
  unexported: { name: string; reason: string }[];
  /** Variables of main() that exported functions read (kept in the module's `script` object when main() ends). */
  scriptState: string[];
  /** The TS types of script-state variables that are not device arrays (run-time NumPy values), by name. */
  scriptTypes?: Record<string, string>;
  /** The script's top-level values main() resolves to, by Python name (those that can cross to JS). */
  results?: { name: string; value: HExpr; type: BoundaryType }[];
}

/** Visit every statement (nested ones too, after their parent) and every expression (nested ones too) of `body`. */
export function walkHost(body: HStmt[], visit: { stmt?: (s: HStmt) => void; expr?: (e: HExpr) => void }): void {
  const expr = (e: HExpr): void => {
    visit.expr?.(e);
    switch (e.k) {
      case 'call': e.args.forEach(expr); break;
      case 'concat': e.parts.forEach(expr); break;
      case 'bin': expr(e.a); expr(e.b); break;
      case 'unary': case 'index': case 'member': expr(e.x); break;
      case 'array': e.items.forEach(expr); break;
      case 'object': e.entries.forEach(([, v]) => expr(v)); break;
      case 'cond': expr(e.test); expr(e.then); expr(e.else); break;
      case 'lit': case 'var': case 'program': break;
    }
  };
  const stmts = (ss: HStmt[]): void => {
    for (const s of ss) {
      visit.stmt?.(s);
      switch (s.k) {
        case 'const': case 'let': if (s.value) expr(s.value); break;
        case 'assign': expr(s.value); break;
        case 'expr': expr(s.e); break;
        case 'for': expr(s.start); expr(s.stop); expr(s.step); stmts(s.body); break;
        case 'while': expr(s.test); stmts(s.body); break;
        case 'if': expr(s.test); stmts(s.then); stmts(s.else); break;
        case 'try': stmts(s.body); stmts(s.handler); break;
        case 'return': expr(s.value); break;
        case 'break': case 'continue': case 'comment': break;
      }
    }
  };
  stmts(body);
}
