// The host program: what runs on the CPU around the array programs — host
// loops, prints, program calls. A small statement/expression tree that
// src/codegen/host_ts.ts renders as TypeScript.
import type { SpmdProgram } from '../passes/spmd.js';
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
  | { k: 'cond'; test: HExpr; then: HExpr; else: HExpr };

export type HStmt =
  /** `type`: a declared type for a `let` without a value, assigned before any read (`let loss!: jx.JArray`). */
  | { k: 'const' | 'let'; names: string[]; value: HExpr | null; destructure?: boolean; type?: string }
  | { k: 'assign'; name: string; value: HExpr }
  | { k: 'expr'; e: HExpr }
  | { k: 'for'; v: string; start: HExpr; stop: HExpr; step: HExpr; body: HStmt[] }
  | { k: 'while'; test: HExpr; body: HStmt[] }
  | { k: 'if'; test: HExpr; then: HStmt[]; else: HStmt[] }
  | { k: 'break' }
  | { k: 'continue' }
  | { k: 'comment'; text: string };

export interface HostProgram {
  /** Source file the program came from. */
  file: string;
  /** The number of simulated devices (XLA_FLAGS in the source, or the CLI's --devices). */
  deviceCount: number;
  /** Array programs in the order they were traced; `kind` says how the host calls them. */
  programs: {
    name: string;
    /** The program as it runs on each device (for SPMD programs, the partitioned per-device Func). */
    func: Func;
    kind: 'jit' | 'pmap' | 'segment';
    /** Set for programs partitioned over a mesh: the global program, shardings, and the per-device one. */
    spmd?: SpmdProgram;
  }[];
  body: HStmt[];
}
