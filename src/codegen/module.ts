// Assembles the generated files: FILE.ts (the host driver: `main()`, the
// script body, and one exported async function per exported Python
// function), FILE.kernels.ts (each array program: its WGSL kernels, their
// CPU versions, buffer plan and steps), FILE.d.py.ts (the types an
// application sees importing FILE.py), and the source map of FILE.ts.
import { walkHost, type BoundaryType, type CompiledProgram, type HostExport, type HostProgram } from '../ir/host.js';
import { renderStmts, typeKey, type Line } from './host_ts.js';
import { commentText, jsJson, jsSpecifier, jsString } from './literals.js';
import { JS, renderJs } from './js.js';
import { lineSourceMap, type SourceMapV3 } from './sourcemap.js';
import { renderWgsl, wideOp, wgslPartials as partials, wgslWorkgroups as workgroups } from './wgsl.js';
import type { Kernel, Program } from '../ir/kernel.js';
import type { NanCheck } from '../../runtime/program.js';

export interface GenerateOptions {
  /** Module specifier the generated code imports the runtime from (default 'jaxts/runtime'). */
  runtimeImport?: string;
  /** 'ts' (default): TypeScript; 'js': the same code without type annotations (for running it where nothing strips types, as the playground does). */
  flavor?: 'ts' | 'js';
  /** The Python source, embedded in the source map. */
  source?: string;
}

export interface GeneratedModule {
  /** FILE.ts (FILE.js for the 'js' flavor) */
  host: string;
  /** FILE.kernels.ts */
  kernels: string;
  /** FILE.d.py.ts: declarations for `import ... from './FILE.py'` (TypeScript's allowArbitraryExtensions). */
  dts: string;
  /** Maps lines of `host` to the Python lines they came from. */
  hostMap: SourceMapV3;
  /** The compiled programs with their kernels' WGSL, for --dump kernels and tests. */
  programs: (CompiledProgram & { wgsl: string[] })[];
}

/** Render the host program and its compiled array programs (src/passes/pipeline.ts) as the generated files. */
export function generate(hp: HostProgram, compiled: CompiledProgram[], baseName: string, opts: GenerateOptions = {}): GeneratedModule {
  const runtimeImport = opts.runtimeImport ?? 'jaxts/runtime';
  const types = opts.flavor !== 'js';
  const programs = renameClashingPrograms(hp, compiled).map((p) => ({ ...p, wgsl: p.program.kernels.map(kernelWgsl) }));
  const kernels = renderKernelsFile(hp, programs, runtimeImport, types);
  const { text: host, lines } = renderHostFile(hp, baseName, runtimeImport, types, programs.length > 0, cpuOnlyReason(programs.map((p) => p.program)));
  const hostMap = lineSourceMap(`${baseName}.${types ? 'ts' : 'js'}`, hp.file, opts.source ?? '', lines);
  return { host, kernels, dts: renderDts(hp, baseName, runtimeImport), hostMap, programs };
}

/** A kernel's WGSL; none for a kernel on 64-bit values (x64 mode), which runs on the CPU backend only. */
const kernelWgsl = (k: Kernel): string => (wideOp(k) === null ? renderWgsl(k) : '');

/** Why the module runs on the CPU backend only (its first kernel on 64-bit values), or null. */
function cpuOnlyReason(programs: Program[]): string | null {
  for (const p of programs) {
    for (const k of p.kernels) {
      const op = wideOp(k);
      if (op !== null) return `${op} on 64-bit values (jax_enable_x64) in ${k.name}`;
    }
    const sub = cpuOnlyReason(p.programs ?? []);
    if (sub !== null) return sub;
  }
  return null;
}

/**
 * Names the kernels module binds or its kernels read besides the programs: the runtime import and helpers,
 * and JS globals. A program (named after a Python function) must not take one.
 */
const KERNEL_MODULE_NAMES = new Set([
  'jx', 'Math', 'Number', 'NaN', 'Infinity', 'undefined', ...JS.helpers,
]);

/**
 * Programs named like something else of the kernels module (`@jax.jit def exp32(x)` beside the helper
 * exp32, or a program `f_kernel0` beside program f's first kernel function) get a trailing `_`;
 * references to them follow.
 */
function renameClashingPrograms(hp: HostProgram, unique: CompiledProgram[]): CompiledProgram[] {
  const taken = new Set(unique.map((p) => p.name));
  const renamed = new Map<string, string>();
  const out = unique.map((p) => {
    if (!KERNEL_MODULE_NAMES.has(p.name) && !/_kernel\d+$/.test(p.name)) return p;
    let name = `${p.name}_`;
    while (taken.has(name) || KERNEL_MODULE_NAMES.has(name)) name += '_';
    taken.add(name);
    renamed.set(p.name, name);
    return { ...p, name };
  });
  if (renamed.size) {
    for (const body of [hp.body, ...hp.exports.map((x) => x.body)]) {
      walkHost(body, { expr: (e) => void (e.k === 'program' && renamed.has(e.name) && (e.name = renamed.get(e.name)!)) });
    }
  }
  return out;
}

function renderKernelsFile(hp: HostProgram, programs: GeneratedModule['programs'], runtimeImport: string, types: boolean): string {
  const helpers = new Set<string>();
  const kernelFns: string[] = [];
  const specs: string[] = [];
  /** A program's spec object (its kernels' CPU functions go to kernelFns); sub-programs of control flow nest, indented. */
  const spec = (name: string, program: Program, wgsl: string[], nanChecks: NanCheck[] | undefined, indent: string): string => {
    const kernels = program.kernels.map((k, i) => {
      const fnName = `${name}_kernel${i}`;
      const { source, helpers: used } = renderJs(k, fnName, types);
      used.forEach((h) => helpers.add(h));
      kernelFns.push(source);
      return [
        `    {`,
        `      name: ${jsString(k.name)},`,
        `      wgsl: \`\n${wgsl[i]}\`,`,
        `      cpu: ${fnName},`,
        `      inputs: ${jsJson(k.inputs)},`,
        `      output: ${jsJson(k.output)},`,
        `      usesDevice: ${k.usesDevice},`,
        ...(workgroups(k) !== undefined ? [`      workgroups: ${workgroups(k)},`] : []),
        ...(partials(k) !== undefined ? [`      partials: ${partials(k)},`] : []),
        `    },`,
      ].join('\n');
    });
    const subs = (program.programs ?? []).map((p, j) => `    ${spec(`${name}_p${j}`, p, p.kernels.map(kernelWgsl), undefined, '    ')},`);
    return [
      `{`,
      `  name: ${jsString(name)},`,
      `  params: ${jsJson(program.params)},`,
      `  buffers: ${jsJson(program.buffers)},`,
      `  kernels: [`,
      ...kernels,
      `  ],`,
      `  steps: ${jsJson(program.steps)},`,
      `  results: ${jsJson(program.results)},`,
      `  resultShapes: ${jsJson(program.resultShapes)},`,
      ...(nanChecks ? [`  nanChecks: ${jsJson(nanChecks)},`] : []),
      ...(subs.length ? ['  programs: [', ...subs, '  ],'] : []),
      `}`,
    ]
      .join('\n')
      .split('\n')
      .join(`\n${indent}`);
  };
  for (const { name, program, wgsl, nanChecks } of programs) {
    specs.push(`export const ${name}${types ? ': jx.ProgramSpec' : ''} = ${spec(name, program, wgsl, nanChecks, '')};`);
  }
  return [
    `// Generated by jaxts from ${commentText(hp.file)}: the array programs and their kernels. Do not edit.`,
    types ? `import type * as jx from ${jsSpecifier(runtimeImport)};` : '',
    helpers.size ? `import { ${[...helpers].sort().join(', ')} } from ${jsSpecifier(runtimeImport)};\n` : '',
    ...kernelFns.map((f) => f + '\n'),
    ...specs.map((s) => s + '\n'),
  ]
    .filter((l, i) => l !== '' || i > 1)
    .join('\n');
}

function renderHostFile(hp: HostProgram, baseName: string, runtimeImport: string, types: boolean, hasPrograms: boolean, cpuOnly: string | null): { text: string; lines: (number | undefined)[] } {
  const out: Line[] = [];
  const text = (...ls: string[]): void => ls.forEach((t) => out.push({ text: t, line: undefined }));
  const t = (s: string): string => (types ? s : '');
  text(
    `// Generated by jaxts from ${commentText(hp.file)}. Do not edit.`,
    `import * as jx from ${jsSpecifier(runtimeImport)};`,
    ...(hasPrograms ? [`import * as programs from ${jsSpecifier(`./${baseName}.kernels.js`)};`] : []),
    '',
    `/** The number of devices the program runs on (XLA_FLAGS in the source, else 4). */`,
    `export const deviceCount = ${hp.deviceCount};`,
    '',
    ...(cpuOnly !== null ? [`/** Why the program runs on the CPU backend only (WebGPU has no 64-bit types). */`, `export const cpuOnly = ${jsString(cpuOnly)};`, ''] : []),
  );
  if (hp.scriptState.length) {
    text(
      `/** Arrays the script computes that exported functions read (set when main() finishes). */`,
      `const script${t(`: { ${hp.scriptState.map((n) => `${n}?: ${hp.scriptTypes?.[n] ?? 'jx.JArray'}`).join('; ')} }`)} = {};`,
      '',
    );
  }
  text(
    `/** ${MAIN_DOC} */`,
    `export async function main(runtime${t('?: jx.Runtime')})${t(`: Promise<${mainResult(hp)}>`)} {`,
    `  const rt = await jx.runtime(deviceCount, runtime${cpuOnly !== null ? ', cpuOnly' : ''});`,
  );
  // (pushed one by one: a spread of an unrolled loop's 10^5 lines overflows the stack)
  renderStmts(hp.body, '  ', { types }).forEach((l) => out.push(l));
  hp.scriptState.forEach((n) => text(`  script.${n} = ${n};`));
  const results = hp.results ?? [];
  if (results.length) out.push(...renderStmts([{ k: 'return', value: { k: 'object', entries: results.map((r) => [r.name, r.value]) } }], '  ', { types }));
  text('}');
  for (const x of hp.exports) {
    const params = x.params.map((p) => `${p.name}${t(`: ${tsType(p.type, true)}`)}`).join(', ');
    const returns = x.returns ? tsType(x.returns, false) : 'void';
    const compiledFor = x.symbolic ? `compiled for the symbolic shapes ${x.symbolic} (any size of each symbol)` : "compiled for the types of the script's first call";
    text('', `/** ${commentText(`${signatureDoc(x)}: ${hp.file}:${x.line}, ${compiledFor}`)}. */`);
    out.push({ text: `export async function ${x.name}(${params})${t(`: Promise<${returns}>`)} {`, line: x.line });
    renderStmts(x.body, '  ', { types }).forEach((l) => out.push(l));
    out.push({ text: '}', line: x.line });
  }
  if (hp.unexported.length) {
    text('', `// Not exported (a top-level function is exported for the types of the script's first call of it):`);
    hp.unexported.forEach((u) => text(`//   ${commentText(`${u.name}: ${u.reason.replace(/\r?\n/g, ' ')}`)}`));
  }
  text('');
  return { text: out.map((l) => l.text).join('\n'), lines: out.map((l) => l.line) };
}

const MAIN_DOC = "Runs the script's top level on `runtime` (default: a WebGPU runtime, else the CPU one), printing what it prints; resolves to the script's top-level values (arrays, numbers, strings, and containers of them).";

/** The type main() resolves to: an object of the script's top-level values, by Python name. */
function mainResult(hp: HostProgram): string {
  const results = hp.results ?? [];
  return results.length ? `{ ${results.map((r) => `${typeKey(r.name)}: ${tsType(r.type, false)}`).join('; ')} }` : 'void';
}

/** The TS type of a value crossing the module boundary; a 0-d array parameter also takes a number. */
function tsType(b: BoundaryType, param: boolean): string {
  switch (b.k) {
    case 'array':
      return param && b.shape.length === 0 ? 'jx.Array | number' : 'jx.Array';
    case 'literal':
      return typeof b.value === 'string' ? jsString(b.value) : typeof b.value === 'number' && !Number.isFinite(b.value) ? 'number' : JSON.stringify(b.value);
    case 'scalar':
      return b.type;
    case 'tuple':
      return `[${b.items.map((i) => tsType(i, param)).join(', ')}]`;
    case 'object':
      return `{ ${b.fields.map(([k, v]) => `${typeKey(k)}: ${tsType(v, param)}`).join('; ')} }`;
  }
}

const SHORT: Record<string, string> = { float32: 'f32', int32: 'i32', uint32: 'u32', bool: 'bool' };

/** A boundary type as JAX abbreviates array types: `{w: f32[32], b: f32[]}`. */
function shapeDoc(b: BoundaryType): string {
  switch (b.k) {
    case 'array':
      return `${SHORT[b.dtype] ?? b.dtype}[${b.shape.join(',')}]`;
    case 'literal':
      return typeof b.value === 'string' ? jsString(b.value) : typeof b.value === 'number' ? String(b.value) : JSON.stringify(b.value);
    case 'scalar':
      return b.type;
    case 'tuple':
      return `(${b.items.map(shapeDoc).join(', ')}${b.items.length === 1 ? ',' : ''})`;
    case 'object':
      return `{${b.fields.map(([k, v]) => `${k}: ${shapeDoc(v)}`).join(', ')}}`;
  }
}

const signatureDoc = (x: HostExport): string =>
  `${x.pyName}(${x.params.map((p) => `${p.name}: ${shapeDoc(p.type)}`).join(', ')}) -> ${x.returns ? shapeDoc(x.returns) : 'None'}`;

function renderDts(hp: HostProgram, baseName: string, runtimeImport: string): string {
  return [
    `// Types of ${commentText(baseName)}.py as jaxts compiles it (\`import { main } from './${commentText(baseName)}.py'\`). Generated; do not edit.`,
    `import type * as jx from ${jsSpecifier(runtimeImport)};`,
    '',
    `/** The number of devices the program runs on (XLA_FLAGS in the source, else 4). */`,
    `export declare const deviceCount: number;`,
    `/** ${MAIN_DOC} */`,
    `export declare function main(runtime?: jx.Runtime): Promise<${mainResult(hp)}>;`,
    ...hp.exports.flatMap((x) => [
      `/** ${commentText(`${signatureDoc(x)} (${baseName}.py:${x.line})${x.symbolic ? `; shape-polymorphic: ${x.symbolic}` : ''}`)} */`,
      `export declare function ${x.name}(${x.params.map((p) => `${p.name}: ${tsType(p.type, true)}`).join(', ')}): Promise<${x.returns ? tsType(x.returns, false) : 'void'}>;`,
    ]),
    '',
  ].join('\n');
}
