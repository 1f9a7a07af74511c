// Programmatic API: compile a Python program to TypeScript + WGSL.
export { compile, dumpIr, dumpKernels, type CompileOptions, type CompileResult } from './compile.js';
export { CompileError, formatDiagnostic } from './common/diagnostics.js';
export { apiSurface, API_MODULES } from './lower/api_surface.js';
