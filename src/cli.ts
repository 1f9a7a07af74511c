// The `jaxts` command: `jaxts compile FILE.py` and `jaxts run FILE.py`.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { compile, dumpIr, dumpKernels, dumpSpmd, type CompileOptions, type CompileResult } from './compile.js';
import { CompileError, formatDiagnostic } from './diagnostics.js';
import { importCompiledJs, loadCompiled, pythonLine } from './run.js';
import { servePlayground } from './playground.js';
import { createNodeRuntime, type BackendChoice } from '../runtime/node.js';

/** The runtime entry generated code is bundled against: dist/runtime.js next to this file, or the source. */
function runtimeEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, 'runtime.js');
  return existsSync(built) ? built : resolve(here, '../runtime/index.ts');
}

function compileFile(file: string, devices: number | undefined, output: Pick<CompileOptions, 'flavor' | 'runtimeImport'> = {}): CompileResult | null {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    process.stderr.write(`jaxts: error: cannot read '${file}'\n`);
    process.exitCode = 1;
    return null;
  }
  try {
    return compile(source, { file, devices, ...output });
  } catch (e) {
    if (e instanceof CompileError) {
      process.stderr.write(formatDiagnostic(file, source, e));
      process.exitCode = 1;
      return null;
    }
    throw e;
  }
}

/** Write every file or none: each goes to a temporary name first, and all are renamed once all are written. */
function writeAll(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  const temps: [string, string][] = Object.keys(files).map((name) => [join(dir, `.${name}.${process.pid}.tmp`), join(dir, name)]);
  try {
    temps.forEach(([tmp], i) => writeFileSync(tmp, Object.values(files)[i]!));
  } catch (e) {
    temps.forEach(([tmp]) => rmSync(tmp, { force: true }));
    throw e;
  }
  temps.forEach(([tmp, path]) => renameSync(tmp, path));
}

async function main(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName('jaxts')
    .usage('$0 <command> FILE.py [options]')
    .command(
      'compile <file>',
      'compile a Python JAX program to TypeScript + WGSL',
      (y) =>
        y
          .positional('file', { type: 'string', demandOption: true })
          .option('o', { alias: 'out', type: 'string', describe: 'output directory', default: '.' })
          .option('devices', { type: 'number', describe: 'number of simulated devices (overrides XLA_FLAGS)' })
          .option('dump', { choices: ['ir', 'spmd', 'kernels'] as const, describe: 'print the array IR, the partitioned per-device programs with their collectives, or the WGSL kernels' }),
      (args) => {
        const r = compileFile(args.file, args.devices);
        if (!r) return;
        if (args.dump === 'ir') process.stdout.write(dumpIr(r));
        if (args.dump === 'kernels') process.stdout.write(dumpKernels(r));
        if (args.dump === 'spmd') process.stdout.write(dumpSpmd(r));
        const dir = resolve(args.o);
        // names come from the file's base name only, so nothing lands outside `dir`
        const base = basename(args.file).replace(/\.py$/, '');
        writeAll(dir, {
          // the host file's source map points back at the .py lines
          [`${base}.ts`]: `${r.host}//# sourceMappingURL=${encodeURIComponent(`${base}.ts.map`)}\n`,
          [`${base}.ts.map`]: JSON.stringify({ ...r.hostMap, sources: [relative(dir, resolve(args.file))] }),
          [`${base}.kernels.ts`]: r.kernels,
        });
      },
    )
    .command(
      'run <file>',
      'compile and run a Python JAX program',
      (y) =>
        y
          .positional('file', { type: 'string', demandOption: true })
          .option('backend', { choices: ['auto', 'webgpu', 'cpu'] as const, default: 'auto' as const })
          .option('devices', { type: 'number', describe: 'number of simulated devices (overrides XLA_FLAGS)' }),
      async (args) => {
        // with the built runtime the JS output is imported as it is; from the sources it is bundled
        const entry = runtimeEntry();
        const direct = entry.endsWith('.js');
        const r = compileFile(args.file, args.devices, direct ? { flavor: 'js', runtimeImport: pathToFileURL(entry).href } : {});
        if (!r) return;
        process.setSourceMapsEnabled(true);
        const prog = direct ? await importCompiledJs(r) : await loadCompiled(r, entry);
        const rt = await createNodeRuntime({ backend: args.backend as BackendChoice, devices: prog.deviceCount });
        try {
          await prog.main(rt);
          await rt.sync();
        } catch (e) {
          // the runtime knows the line of a NaN check's primitive; otherwise the stack's source map has it
          const known = (e as { line?: unknown }).line;
          const line = typeof known === 'number' ? known : pythonLine(e, r.baseName);
          process.stderr.write(`${args.file}${line ? `:${line}` : ''}: ${e instanceof Error ? e.message : String(e)}\n`);
          process.exitCode = 1;
        }
      },
    )
    .command(
      'playground',
      'serve the in-browser playground: paste a lesson, compile and run it in the page',
      (y) =>
        y
          .option('port', { type: 'number', describe: 'port to listen on (default 8080, or a free port when 8080 is taken)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' }),
      async (args) => {
        let server;
        try {
          server = await servePlayground({ port: args.port, host: args.host });
        } catch (e) {
          process.stderr.write(`jaxts: error: cannot serve the playground: ${e instanceof Error ? e.message : String(e)}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`jaxts playground: ${server.url} (Ctrl+C to stop)\n`);
        process.stdout.write(`or open it as a file: ${server.fileUrl}\n`);
        await new Promise<void>((ok) => ['SIGINT', 'SIGTERM'].forEach((s) => process.once(s, () => ok())));
        await server.close();
      },
    )
    .demandCommand(1, 'jaxts: a command is required (compile or run)')
    .strict()
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`${msg}\n`);
      process.exit(2);
    })
    .help()
    .parseAsync();
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    process.stderr.write(`jaxts: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
