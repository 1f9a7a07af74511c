// The compiler pipeline in one call: parse → lower → passes → codegen.
import { generate, type GeneratedModule } from './codegen/module.js';
import type { HostProgram } from './ir/host.js';
import { printFunc } from './ir/printer.js';
import { lower } from './lower/index.js';
import { parse } from './parser/index.js';
import { releaseDeadArrays } from './passes/host_release.js';
import { compilePrograms } from './passes/pipeline.js';
import { printSpmd } from './passes/spmd.js';

export interface CompileOptions {
  /** The file name used in diagnostics and generated comments. */
  file: string;
  /** Overrides the device count (XLA_FLAGS in the source, else 4). */
  devices?: number;
  /** Module specifier generated code imports the runtime from. */
  runtimeImport?: string;
  /** 'ts' (default) or 'js' (no type annotations: for running the output where nothing strips types). */
  flavor?: 'ts' | 'js';
}

export interface CompileResult extends GeneratedModule {
  hostProgram: HostProgram;
  /** Base name of the generated files (FILE for FILE.ts and FILE.kernels.ts). */
  baseName: string;
}

/** Compile Python source; throws CompileError for the user's mistakes. */
export function compile(source: string, options: CompileOptions): CompileResult {
  const mod = parse(source);
  const hostProgram = releaseDeadArrays(lower(mod, { file: options.file, devices: options.devices }));
  const compiled = compilePrograms(hostProgram);
  // the file name after the last separator (a newline in the path is part of a name, not a line break)
  const baseName = options.file.replace(/^[\s\S]*[\\/]/, '').replace(/\.py$/, '');
  return { ...generate(hostProgram, compiled, baseName, { runtimeImport: options.runtimeImport, flavor: options.flavor, source }), hostProgram, baseName };
}

/** The jaxpr-like text of every array program (`--dump ir`). */
export function dumpIr(r: CompileResult): string {
  return r.programs.map((p) => `# ${p.kind} ${p.name}\n${printFunc({ ...p.func, name: p.name })}`).join('\n\n') + '\n';
}

/** The partitioned per-device programs with their collectives and replica groups (`--dump spmd`). */
export function dumpSpmd(r: CompileResult): string {
  const parts = r.programs.flatMap((p) => (p.spmd ? [printSpmd(p.spmd, p.name)] : []));
  return parts.length ? parts.join('\n\n') + '\n' : '# no program runs over a mesh (no jax.device_put with a NamedSharding reaches a jit)\n';
}

/** Every kernel's WGSL (`--dump kernels`). */
export function dumpKernels(r: CompileResult): string {
  return r.programs.flatMap((p) => p.wgsl).join('\n') + '\n';
}
