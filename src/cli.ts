// The `jaxts` command: `jaxts compile FILE.py`, `jaxts run FILE.py` and
// `jaxts playground`. The entries (src/cli_main.ts as an ES module,
// src/cli_snapshot.ts from a V8 startup snapshot) call runCli with the
// folder of the built files and a way to import ES modules.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
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

type Options = NonNullable<ParseArgsConfig['options']>;

interface Command {
  args: string; // the positional arguments, for the usage line
  describe: string;
  options: Options;
  /** Each option's help line (its values and default). */
  help: Record<string, string>;
  run: (file: string | undefined, values: Record<string, string | boolean | undefined>, host: CliHost) => Promise<void>;
}

const DEVICES_HELP = 'number of simulated devices (overrides XLA_FLAGS)';

const COMMANDS: Record<string, Command> = {
  compile: {
    args: '<file>',
    describe: 'compile a Python JAX program to TypeScript + WGSL',
    options: { out: { type: 'string', short: 'o' }, devices: { type: 'string' }, dump: { type: 'string' } },
    help: {
      '-o, --out DIR': 'output directory (default: .)',
      '--devices N': DEVICES_HELP,
      '--dump ir|spmd|kernels': 'print the array IR, the partitioned per-device programs with their collectives, or the WGSL kernels',
    },
    run: async (file, v) => compileCommand(file!, v),
  },
  run: {
    args: '<file>',
    describe: 'compile and run a Python JAX program',
    options: { backend: { type: 'string' }, devices: { type: 'string' } },
    help: { '--backend auto|webgpu|cpu': 'where the kernels run (default: auto, WebGPU when there is an adapter)', '--devices N': DEVICES_HELP },
    run: (file, v, host) => runCommand(file!, v, host),
  },
  playground: {
    args: '',
    describe: 'serve the in-browser playground: paste a lesson, compile and run it in the page',
    options: { port: { type: 'string' }, host: { type: 'string' } },
    help: { '--port N': 'port to listen on (default 8080, or a free port when 8080 is taken)', '--host ADDR': 'address to listen on (default: 127.0.0.1)' },
    run: (_file, v, host) => playgroundCommand(v, host),
  },
};

function usage(command?: string): string {
  if (command) {
    const c = COMMANDS[command]!;
    const rows = Object.entries({ ...c.help, '-h, --help': 'show this help' });
    const w = Math.max(...rows.map(([k]) => k.length));
    return [`usage: jaxts ${command}${c.args ? ` ${c.args}` : ''} [options]`, '', c.describe, '', 'options:', ...rows.map(([k, d]) => `  ${k.padEnd(w)}  ${d}`), ''].join('\n');
  }
  const w = Math.max(...Object.keys(COMMANDS).map((k) => k.length + COMMANDS[k]!.args.length + 1));
  return [
    'usage: jaxts <command> FILE.py [options]',
    '',
    'commands:',
    ...Object.entries(COMMANDS).map(([k, c]) => `  ${`${k} ${c.args}`.padEnd(w)}  ${c.describe}`),
    '',
    '`jaxts <command> --help` lists the command\'s options.',
    '',
  ].join('\n');
}

/** Run the command line `argv` (without node and the script); resolves to the exit code. */
export async function runCli(argv: string[], host: CliHost): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '-h' || name === '--help') {
      (name ? process.stdout : process.stderr).write(usage());
      return name ? 0 : 2;
    }
    if (name === '--version' || name === '-v') {
      const pkg = JSON.parse(readFileSync(join(host.distDir, '..', 'package.json'), 'utf8')) as { version: string };
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message.replace(/\. To specify a positional argument.*$/s, '') : String(e));
    }
    if (parsed.values['help']) {
      process.stdout.write(usage(name));
      return 0;
    }
    const wanted = command.args ? 1 : 0;
    if (parsed.positionals.length < wanted) throw new UsageError(`'jaxts ${name}' needs a FILE.py`);
    if (parsed.positionals.length > wanted) throw new UsageError(`unexpected argument '${parsed.positionals[wanted]}'`);
    process.exitCode = 0;
    await command.run(parsed.positionals[0], parsed.values, host);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`jaxts: error: ${e.message}\n\n${usage(COMMANDS[name ?? ''] ? name : undefined)}`);
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

async function compileCommand(file: string, v: Record<string, unknown>): Promise<void> {
  const dump = choice(v, 'dump', ['ir', 'spmd', 'kernels'] as const, undefined);
  const r = compileFile(file, checked(v, 'devices', validateDevices));
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
  const r = compileFile(file, devices, { flavor: 'js', runtimeImport: runtime });
  if (!r) return;
  const node = (await host.importModule(pathToFileURL(join(host.distDir, 'node.js')).href)) as { createNodeRuntime: typeof createNodeRuntime };
  // source maps on after the runtime is loaded: only the program's own map (to the .py lines) is wanted, not the runtime's large one
  process.setSourceMapsEnabled(true);
  const prog = await importCompiledJs(r, host.importModule);
  const rt = await node.createNodeRuntime({ backend: backend as BackendChoice, devices: prog.deviceCount });
  try {
    await prog.main(rt);
    await rt.sync();
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
