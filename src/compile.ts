// The compiler pipeline in one call: parse → lower → passes → codegen.
import { generate, type GeneratedModule } from './codegen/module.js';
import type { HostProgram } from './ir/host.js';
import { printFunc } from './ir/printer.js';
import { lowerUntilError } from './lower/index.js';
import { parse } from './parser/index.js';
import { releaseDeadArrays } from './passes/host_release.js';
import { compilePrograms } from './passes/pipeline.js';
import { printSpmd } from './passes/spmd.js';
import { SAMPLE_SET_COUNT, sampleGrid, unifySamples } from './codegen/symbolic.js';
import { jsSpecifier } from './codegen/literals.js';
import { CompileError } from './common/diagnostics.js';
import { dimText, dimValue, parseSymbolicShape, shapeSymbols, type SymbolicShapes } from '../runtime/symbolic.js';

export interface CompileOptions {
  /** The file name used in diagnostics and generated comments. */
  file: string;
  /** Overrides the device count (XLA_FLAGS in the source, else 4). */
  devices?: number;
  /** Module specifier generated code imports the runtime from. */
  runtimeImport?: string;
  /** 'ts' (default) or 'js' (no type annotations: for running the output where nothing strips types). */
  flavor?: 'ts' | 'js';
  /**
   * Shape-polymorphic exports, as jax.export names symbolic dimensions: function → parameter path →
   * shape (`{ predict: { x: 'b, 3' } }`); such an export takes any size of each symbol.
   */
  shapes?: SymbolicShapes;
  /**
   * A compile-time error of a statement ends the program there instead of failing the compile: the
   * result runs the statements before it and carries the error (`jaxts run` prints what CPython
   * prints before the exception).
   */
  untilError?: boolean;
}

export interface CompileResult extends GeneratedModule {
  hostProgram: HostProgram;
  /** Base name of the generated files (FILE for FILE.ts and FILE.kernels.ts). */
  baseName: string;
  /** With `untilError`: the error the program stops at, after running what came before it. */
  error?: CompileError;
}

/** Compile Python source; throws CompileError for the user's mistakes. */
export function compile(source: string, options: CompileOptions): CompileResult {
  const shapes = Object.entries(options.shapes ?? {}).filter(([, paths]) => Object.keys(paths).length);
  if (!shapes.length) return compileOnce(source, options);
  // shape-polymorphic exports: compile at sample sizes and solve the sizes as functions of the symbols (src/codegen/symbolic.ts)
  const specs = shapes.map(([fn, paths]) => [fn, Object.entries(paths).map(([path, text]) => {
    try {
      return [path, parseSymbolicShape(text)] as const;
    } catch (e) {
      throw new CompileError(`shapes: ${fn}'s ${path}: ${e instanceof Error ? e.message : String(e)}`, null);
    }
  })] as const);
  const symbols = [...new Set(specs.flatMap(([, ps]) => ps.flatMap(([, ds]) => shapeSymbols(ds))))];
  if (symbols.length > 3) throw new CompileError(`shapes: at most 3 symbols are supported, got ${symbols.join(', ')}`, null);
  // the sample sets in turn (large sizes first): the first whose compiles agree but for sizes gives the module
  const failed: CompileError[] = [];
  for (let set = 0; set < SAMPLE_SET_COUNT; set++) {
    const { grid, samples } = sampleGrid(symbols, set);
    const results = samples.map((values) => {
      const exportShapes = new Map(specs.map(([fn, ps]) => [fn, new Map(ps.map(([path, ds]) => {
        const text = ds.length === 1 ? `(${dimText(ds[0]!)},)` : `(${ds.map(dimText).join(', ')})`;
        return [path, { spec: text, shape: ds.map((d) => dimValue(d, values)) }];
      }))]));
      return compileOnce(source, options, exportShapes);
    });
    const base = results[0]!;
    const exports = base.hostProgram.exports.filter((x) => x.symbolic).map((x) => x.name);
    const texts = results.map((r, i) => ({ values: samples[i]!, host: r.host, kernels: r.kernels, dts: r.dts }));
    try {
      return { ...base, ...unifySamples(texts, grid, exports, options.flavor !== 'js', jsSpecifier(options.runtimeImport ?? 'jaxts/runtime')) };
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      failed.push(e);
    }
  }
  // the large samples' reason, and what the smaller ones met
  throw new CompileError(failed[0]!.message, null, failed.slice(1).map((e) => `at smaller sample sizes: ${e.message}`));
}

function compileOnce(source: string, options: CompileOptions, exportShapes?: ReadonlyMap<string, ReadonlyMap<string, { spec: string; shape: readonly number[] }>>): CompileResult {
  const mod = parse(source);
  const lowered = lowerUntilError(mod, { file: options.file, devices: options.devices, exportShapes, source }, options.untilError === true);
  if (!lowered.program) throw lowered.error;
  const hostProgram = releaseDeadArrays(lowered.program);
  const compiled = compilePrograms(hostProgram);
  // the file name after the last separator (a newline in the path is part of a name, not a line break)
  const baseName = options.file.replace(/^[\s\S]*[\\/]/, '').replace(/\.py$/, '');
  return { ...generate(hostProgram, compiled, baseName, { runtimeImport: options.runtimeImport, flavor: options.flavor, source }), hostProgram, baseName, ...(lowered.error ? { error: lowered.error } : {}) };
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
