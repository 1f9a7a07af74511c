// The `jaxts` command: `jaxts compile FILE.py`, `jaxts run FILE.py` and
// `jaxts playground`. The entries (src/cli_main.ts as an ES module,
// src/cli_snapshot.ts from a V8 startup snapshot) call runCli with the
// folder of the built files and a way to import ES modules.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import yargs from 'yargs';
import { compile, dumpIr, dumpKernels, dumpSpmd, type CompileOptions, type CompileResult } from './compile.js';
import { CompileError, formatDiagnostic } from './common/diagnostics.js';
import { exitQuietlyOnClosedStdout, importCompiledJs, pythonLine, writeOutputs } from './run.js';
import { validateDevices, validateHost, validatePort, type Checked } from './cli_validate.js';
import type { BackendChoice, createNodeRuntime } from '../runtime/node.js';

/** What an entry knows about where it runs. */
export interface CliHost {
  /** The folder of the built files (dist/): runtime.js, node.js, playground/. */
  distDir: string;
  /** import() of an ES module by URL (a startup snapshot cannot use its own import()). */
  importModule: (url: string) => Promise<unknown>;
}

/** A wrong command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

type Values = Record<string, unknown>;

/** An option as yargs declares it (all are strings or flags; values are checked by the commands). */
interface OptionSpec {
  alias?: string;
  type: 'string' | 'boolean';
  describe: string;
}

interface Command {
  args: string; // the positional arguments, for the usage line
  describe: string;
  options: Record<string, OptionSpec>;
  run: (file: string | undefined, values: Values, host: CliHost) => Promise<void>;
}

const DEVICES: OptionSpec = { type: 'string', describe: 'number of simulated devices (overrides XLA_FLAGS)' };

const COMMANDS: Record<string, Command> = {
  compile: {
    args: '<file>',
    describe: 'compile a Python JAX program to TypeScript + WGSL',
    options: {
      out: { alias: 'o', type: 'string', describe: 'output directory (default: .)' },
      devices: DEVICES,
      dump: { type: 'string', describe: 'print the array IR, the partitioned per-device programs with their collectives, or the WGSL kernels (ir|spmd|kernels)' },
      shapes: { type: 'string', describe: "a shape-polymorphic export's symbolic shape, as jax.export writes it: FUNCTION.PARAM=SHAPE (--shapes 'predict.x=b, 784'); repeatable" },
    },
    run: async (file, v) => compileCommand(file!, v),
  },
  run: {
    args: '<file>',
    describe: 'compile and run a Python JAX program',
    options: {
      backend: { type: 'string', describe: 'where the kernels run: auto|webgpu|cpu (default: auto, a hardware WebGPU adapter when there is one, else the CPU)' },
      devices: DEVICES,
      verbose: { type: 'boolean', describe: 'say on stderr which backend and adapter ran the program' },
    },
    run: (file, v, host) => runCommand(file!, v, host),
  },
  playground: {
    args: '',
    describe: 'serve the in-browser playground: paste a lesson, compile and run it in the page',
    options: {
      port: { type: 'string', describe: 'port to listen on (default 8080, or a free port when 8080 is taken)' },
      host: { type: 'string', describe: 'address to listen on (default: 127.0.0.1)' },
    },
    run: (_file, v, host) => playgroundCommand(v, host),
  },
};

/**
 * Run the command line `argv` (without node and the script); resolves to the
 * exit code. yargs parses it (usage, --help, --version, `jaxts completion`,
 * and "did you mean" for a misspelt command); a wrong command line exits 2.
 */
export async function runCli(argv: string[], host: CliHost): Promise<number> {
  let version = '';
  try {
    version = (JSON.parse(readFileSync(join(host.distDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    // no package.json beside dist/: --version prints nothing
  }
  const name = argv[0];
  let help = ''; // the help of the command the error is about, as yargs prints it
  let ran: Promise<void> | null = null;
  const cli = yargs(argv)
    .scriptName('jaxts')
    .usage('usage: $0 <command> FILE.py [options]')
    .parserConfiguration({ 'parse-numbers': false, 'parse-positional-numbers': false, 'dot-notation': false, 'camel-case-expansion': false })
    .exitProcess(false)
    .strict()
    .recommendCommands()
    .demandCommand(1, 'a command is needed')
    .version(version)
    .alias('v', 'version')
    .help()
    .alias('h', 'help')
    .completion('completion', 'print a shell completion script (jaxts completion >> ~/.bashrc)')
    .wrap(null) // the bundled (ES module) cliui wraps inside words: lines are left to the terminal
    .epilog("`jaxts <command> --help` lists the command's options.")
    .fail((msg: string | null, err: Error | undefined, y) => {
      y.showHelp((h: string) => (help = h));
      if (err) throw err;
      // yargs' "Not enough non-option arguments" (a command without its file) in our words
      if (msg?.startsWith('Not enough non-option arguments') && COMMANDS[name ?? '']) throw new UsageError(`'jaxts ${name}' needs a FILE.py`);
      throw new UsageError(msg ?? 'wrong command line');
    });
  for (const [cmd, c] of Object.entries(COMMANDS)) {
    cli.command(
      `${cmd}${c.args ? ` ${c.args}` : ''}`,
      c.describe,
      (y) => {
        y.usage(`usage: $0 ${cmd}${c.args ? ` ${c.args}` : ''} [options]`).epilog(c.describe);
        if (c.args) y.positional('file', { type: 'string', describe: 'the Python program' });
        for (const [opt, spec] of Object.entries(c.options)) y.option(opt, spec);
        return y;
      },
      (a) => {
        process.exitCode = 0;
        ran = c.run(a['file'] as string | undefined, a, host);
      },
    );
  }
  try {
    await cli.parseAsync();
    if (ran) await ran;
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    let message = e.message;
    if (name !== undefined && !name.startsWith('-') && !COMMANDS[name] && name !== 'completion') {
      // yargs says "Did you mean compile?" or "Unknown argument: compil": name the command and the choices
      const mean = /^Did you mean (\S+)\?$/.exec(message);
      message = `unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(', ')})${mean ? `; did you mean '${mean[1]}'?` : ''}`;
    }
    const usage = help || (COMMANDS[name ?? ''] ? `\`jaxts ${name} --help\` lists the command's options.` : '`jaxts --help` lists the commands.');
    process.stderr.write(`jaxts: error: ${message}\n\n${usage}\n`);
    return 2;
  }
}

/** The value of `--name`, one of `choices` (or `dflt` when absent). */
function choice<T extends string>(v: Record<string, unknown>, name: string, choices: readonly T[], dflt: T | undefined): T | undefined {
  const x = v[name];
  if (x === undefined) return dflt;
  if (!choices.includes(x as T)) throw new UsageError(`--${name} must be one of ${choices.join(', ')} (got '${String(x)}')`);
  return x as T;
}

/** The value of `--name` checked by `validate` (src/cli_validate.ts), or undefined when absent. */
function checked<T>(v: Record<string, unknown>, name: string, validate: (text: string) => Checked<T>): T | undefined {
  const x = v[name];
  if (x === undefined) return undefined;
  const r = validate(String(x));
  if (!r.ok) throw new UsageError(r.message);
  return r.value;
}

/** `--shapes predict.x='b, 3'` (repeatable) as compile()'s `shapes`. */
function shapesOption(v: Record<string, unknown>): CompileOptions['shapes'] {
  const given = v['shapes'];
  if (given === undefined) return undefined;
  const shapes: NonNullable<CompileOptions['shapes']> = {};
  for (const item of (Array.isArray(given) ? given : [given]).map(String)) {
    const m = /^([A-Za-z_]\w*)\.([^=]+)=(.*)$/s.exec(item);
    if (!m) throw new UsageError(`--shapes must be FUNCTION.PARAM=SHAPE, e.g. --shapes 'predict.x=b, 784' (got '${item}')`);
    (shapes[m[1]!] ??= {})[m[2]!.trim()] = m[3]!;
  }
  return shapes;
}

function compileFile(file: string, devices: number | undefined, output: Pick<CompileOptions, 'flavor' | 'runtimeImport' | 'shapes' | 'untilError'> = {}): CompileResult | null {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    process.stderr.write(`jaxts: error: cannot read '${file}'\n`);
    process.exitCode = 1;
    return null;
  }
  // a program that runs sees its file as CPython's `python FILE.py` does: __file__, tracebacks, names of functions
  const name = output.untilError ? resolve(file) : file;
  try {
    return compile(source, { file: name, devices, ...output, untilError: false });
  } catch (e) {
    if (e instanceof CompileError) {
      if (output.untilError) {
        // the program runs up to the statement that fails (its error is reported after what it printed)
        try {
          const r = compile(source, { file: name, devices, ...output, untilError: true });
          if (r.error) return { ...r, error: r.error };
        } catch {
          // the first error as it is
        }
      }
      process.stderr.write(formatDiagnostic(file, source, e));
      process.exitCode = 1;
      return null;
    }
    throw e;
  }
}

async function compileCommand(file: string, v: Record<string, unknown>): Promise<void> {
  const dump = choice(v, 'dump', ['ir', 'spmd', 'kernels'] as const, undefined);
  const r = compileFile(file, checked(v, 'devices', validateDevices), { shapes: shapesOption(v) });
  if (!r) return;
  if (dump === 'ir') process.stdout.write(dumpIr(r));
  if (dump === 'kernels') process.stdout.write(dumpKernels(r));
  if (dump === 'spmd') process.stdout.write(dumpSpmd(r));
  const dir = resolve(String(v['out'] ?? '.'));
  // names come from the file's base name only (the one the host module imports its kernels by), so nothing lands outside `dir`
  const base = r.baseName;
  const failed = writeOutputs(dir, {
    // the host file's source map points back at the .py lines
    [`${base}.ts`]: `${r.host}//# sourceMappingURL=${encodeURIComponent(`${base}.ts.map`)}\n`,
    [`${base}.ts.map`]: JSON.stringify({ ...r.hostMap, sources: [relative(dir, resolve(file))] }),
    [`${base}.kernels.ts`]: r.kernels,
  });
  if (failed) {
    process.stderr.write(`jaxts: error: ${failed}\n`);
    process.exitCode = 1;
  }
}

async function runCommand(file: string, v: Record<string, unknown>, host: CliHost): Promise<void> {
  const backend = choice(v, 'backend', ['auto', 'webgpu', 'cpu'] as const, 'auto')!;
  const devices = checked(v, 'devices', validateDevices);
  exitQuietlyOnClosedStdout();
  // generated JS imports the built runtime (the one jaxts/node creates runtimes with) as it is, no bundler on the way
  const runtime = pathToFileURL(join(host.distDir, 'runtime.js')).href;
  const r = compileFile(file, devices, { flavor: 'js', runtimeImport: runtime, untilError: true });
  if (!r) return;
  const node = (await host.importModule(pathToFileURL(join(host.distDir, 'node.js')).href)) as { createNodeRuntime: typeof createNodeRuntime };
  // source maps on after the runtime is loaded: only the program's own map (to the .py lines) is wanted, not the runtime's large one
  process.setSourceMapsEnabled(true);
  const prog = await importCompiledJs(r, host.importModule);
  let rt;
  try {
    // a program on 64-bit values (jax_enable_x64) runs on the CPU backend: WGSL has no float64 or int64
    if (prog.cpuOnly !== undefined && backend === 'webgpu') throw new Error(`the program runs on the CPU backend only: ${prog.cpuOnly}; WGSL has no float64 or int64 (use --backend cpu)`);
    rt = await node.createNodeRuntime({ backend: prog.cpuOnly !== undefined ? 'cpu' : (backend as BackendChoice), devices: prog.deviceCount, verbose: v['verbose'] === true });
  } catch (e) {
    process.stderr.write(`jaxts: error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
    return;
  }
  try {
    await prog.main(rt);
    await rt.sync();
    if (r.error) {
      process.stderr.write(formatDiagnostic(file, readFileSync(file, 'utf8'), r.error));
      process.exitCode = 1;
    }
  } catch (e) {
    // the runtime knows the line of a NaN check's primitive; otherwise the stack's source map has it
    const known = (e as { line?: unknown }).line;
    const line = typeof known === 'number' ? known : pythonLine(e, r.baseName);
    process.stderr.write(`${file}${line ? `:${line}` : ''}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}

async function playgroundCommand(v: Record<string, unknown>, host: CliHost): Promise<void> {
  const root = join(host.distDir, 'playground');
  const port = checked(v, 'port', validatePort) ?? 0;
  const listen = checked(v, 'host', validateHost) ?? '127.0.0.1';
  let server;
  try {
    if (!existsSync(join(root, 'index.html'))) throw new Error(`the playground is not built (no ${join(root, 'index.html')}); run \`npm run build\``);
    // loaded on use: node:http cannot be in the startup snapshot
    const { servePlayground } = await import('./playground.js');
    server = await servePlayground({ port, host: listen, root });
  } catch (e) {
    process.stderr.write(`jaxts: error: cannot serve the playground: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`jaxts playground: ${server.url} (Ctrl+C to stop)\n`);
  process.stdout.write(`or open it as a file: ${server.fileUrl}\n`);
  await new Promise<void>((ok) => ['SIGINT', 'SIGTERM'].forEach((s) => process.once(s, () => ok())));
  await server.close();
}

/** Exit with the command's code once it is done; an exception that escapes is a bug of jaxts. */
export function exitWith(done: Promise<number>): void {
  done.then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`jaxts: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
