// The esbuild plugin (`import jaxts from 'jaxts/esbuild'`): an application's
// `import { main, predict } from './train.py'` compiles the Python file at
// bundle time. Compile errors become esbuild messages located in the .py file;
// the .py is a watch file; compiled output is cached per file and content.
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loader, PartialMessage, Plugin } from 'esbuild';
import { compile, type CompileResult } from './compile.js';
import { CompileError, spanWidth } from './common/diagnostics.js';
import { inlineSourceMapComment } from './codegen/sourcemap.js';

export interface JaxtsPluginOptions {
  /** Simulated devices (default: the program's XLA_FLAGS, else 4). */
  devices?: number;
  /** Write FILE.d.py.ts beside each compiled FILE.py, for TypeScript's `allowArbitraryExtensions`. */
  types?: boolean;
  /** The jaxts/runtime file bundles use; default: the one installed with this plugin. */
  runtime?: string;
  /**
   * Shape-polymorphic exports, with symbolic dimensions written as jax.export writes them:
   * function → parameter path → shape, e.g. `{ predict: { x: 'b, 784' } }` (any batch size `b`).
   * Such a key applies to every .py the build imports (a file without that function is an error);
   * a key naming a .py file (`'model.py'`, or its path from the working directory) scopes its
   * functions to that file: `{ 'model.py': { predict: { x: 'b, 784' } } }`.
   */
  shapes?: Record<string, Record<string, string | Record<string, string>>>;
}

interface Compiled {
  source: string;
  result: CompileResult;
}

const KERNELS = 'jaxts-kernels';

/** The plugin. Only files ending in `.py` that esbuild loads are compiled. */
export default function jaxts(options: JaxtsPluginOptions = {}): Plugin {
  const cache = new Map<string, Compiled>();
  return {
    name: 'jaxts',
    setup(build) {
      const runtime = options.runtime ?? fileURLToPath(new URL('./runtime.js', import.meta.url));
      const cwd = build.initialOptions.absWorkingDir ?? process.cwd();
      // generated code and the application share this installation's runtime (one Array class, one default runtime)
      build.onResolve({ filter: /^jaxts\/runtime$/ }, () => ({ path: runtime }));
      build.onResolve({ filter: /\.kernels\.js$/ }, (args) => (args.importer.endsWith('.py') ? { path: args.importer, namespace: KERNELS } : undefined));
      build.onLoad({ filter: /.*/, namespace: KERNELS }, (args) => {
        const c = cache.get(args.path);
        if (!c) return { errors: [{ text: `jaxts: ${args.path} has not been compiled` }] };
        return { contents: c.result.kernels, loader: 'ts' as Loader, resolveDir: dirname(args.path) };
      });
      build.onLoad({ filter: /\.py$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        let c = cache.get(args.path);
        if (!c || c.source !== source) {
          try {
            c = { source, result: compile(source, { file: relative(cwd, args.path) || basename(args.path), devices: options.devices, shapes: shapesFor(options.shapes, relative(cwd, args.path), basename(args.path)) }) };
          } catch (e) {
            cache.delete(args.path);
            return { errors: [message(e, args.path, source)], watchFiles: [args.path] };
          }
          cache.set(args.path, c);
          if (options.types) await writeIfChanged(args.path.replace(/\.py$/, '.d.py.ts'), c.result.dts);
        }
        const map = { ...c.result.hostMap, sources: [basename(args.path)] };
        return { contents: `${c.result.host}\n${inlineSourceMapComment(map)}\n`, loader: 'ts' as Loader, resolveDir: dirname(args.path), watchFiles: [args.path] };
      });
    },
  };
}

/** The `shapes` option's entries for one .py file: the function keys, and those of a key naming the file. */
function shapesFor(shapes: JaxtsPluginOptions['shapes'], path: string, base: string): Record<string, Record<string, string>> | undefined {
  if (!shapes) return undefined;
  const out: Record<string, Record<string, string>> = {};
  for (const [key, v] of Object.entries(shapes)) {
    if (!key.endsWith('.py')) out[key] = v as Record<string, string>;
    else if (key === base || key.replace(/\\/g, '/').replace(/^\.\//, '') === path.replace(/\\/g, '/')) Object.assign(out, v as Record<string, Record<string, string>>);
  }
  return out;
}

/** A compile error as esbuild reports it: file, 1-based line, 0-based column, the line's text. */
function message(e: unknown, file: string, source: string): PartialMessage {
  if (!(e instanceof CompileError)) return { text: `jaxts: internal error: ${e instanceof Error ? e.message : String(e)}` };
  const notes = e.notes.map((text) => ({ text }));
  if (!e.span) return { text: e.message, location: { file }, notes };
  const { start } = e.span;
  const lineText = source.split(/\r\n|\r|\n/)[start.line - 1] ?? '';
  const length = spanWidth(e.span, lineText);
  return { text: e.message, location: { file, line: start.line, column: start.col - 1, length, lineText }, notes };
}

async function writeIfChanged(path: string, text: string): Promise<void> {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  await writeFile(path, text);
}
