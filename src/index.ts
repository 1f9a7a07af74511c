// Programmatic API: compile a Python program to TypeScript + WGSL.
export { compile, dumpIr, dumpKernels, type CompileOptions, type CompileResult } from './compile.js';
export { CompileError, formatDiagnostic } from './common/diagnostics.js';
