// Injection safety: Python strings (backticks, `${…}`, quotes, backslashes, U+2028/U+2029, </script>, NUL,
// astral characters), Python names that are JS reserved words or the generated module's own names, dict keys
// such as `__proto__`, and file names reach the generated TypeScript as string literals, identifiers,
// object keys and comments. The generated files must parse, hold none of those characters raw, keep every
// comment a comment, and — run — print exactly what real JAX printed (the fixtures' goldens).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile.js';
import { generate } from '../../src/codegen/module.js';
import { propertyKey, renderExpr } from '../../src/codegen/host_ts.js';
import { commentText, jsString } from '../../src/codegen/literals.js';
import { inlineSourceMapComment } from '../../src/codegen/sourcemap.js';
import { loadCompiled } from '../../src/run.js';
import { array, type JArray } from '../../runtime/index.js';
import { CpuBackend } from '../../runtime/cpu/backend.js';
import { Runtime } from '../../runtime/runtime.js';
import { compareOutputs } from '../golden/compare.js';
import { compileFixture, cpuBackend, ROOT, RUNTIME_ENTRY, runOn } from '../helpers/fixtures.js';

const STRINGS = 'fixtures/constructs/injection_strings.py';
const RESERVED = 'fixtures/constructs/reserved_identifiers.py';
const golden = (f: string): string => readFileSync(join(ROOT, f.replace(/\.py$/, '.out')), 'utf8');

/** Characters that must never appear raw in generated code (line separators end `//` comments; NUL; HTML). */
const RAW_FORBIDDEN: [string, RegExp][] = [
  ['NUL', /\u0000/],
  ['U+2028', /\u2028/],
  ['U+2029', /\u2029/],
  ['</script', /<\/script/i],
  ['<!--', /<!--/],
];

function expectNoRawForbidden(text: string, what: string): void {
  for (const [name, re] of RAW_FORBIDDEN) expect(re.test(text), `${what} holds a raw ${name}`).toBe(false);
}

/** Parse as esbuild would (throws on a syntax error); the output, comments stripped. */
const parse = async (text: string, loader: 'ts' | 'js'): Promise<string> => (await esbuild.transform(text, { loader, format: 'esm' })).code;

/** Every generated text of a compile: TS flavor host/kernels/.d.py.ts, and the JS flavor. */
function generatedTexts(src: string, file: string): { name: string; text: string; loader: 'ts' | 'js' }[] {
  const ts = compile(src, { file });
  const js = compile(src, { file, flavor: 'js' });
  return [
    { name: 'host.ts', text: ts.host, loader: 'ts' },
    { name: 'kernels.ts', text: ts.kernels, loader: 'ts' },
    { name: 'd.py.ts', text: ts.dts, loader: 'ts' },
    { name: 'host.js', text: js.host, loader: 'js' },
    { name: 'kernels.js', text: js.kernels, loader: 'js' },
  ];
}

type Module = Record<string, (...args: unknown[]) => Promise<unknown>> & { main: (rt: Runtime) => Promise<void> };

async function load(r: CompileResult): Promise<{ mod: Module; printed: () => string; rt: Runtime }> {
  let text = '';
  const rt = new Runtime(new CpuBackend(), { devices: r.hostProgram.deviceCount, write: (t) => (text += t) });
  const mod = (await loadCompiled(r, RUNTIME_ENTRY)) as unknown as Module;
  return { mod, printed: () => text, rt };
}

const values = async (x: unknown): Promise<number[]> => [...(await (x as JArray).data())];

describe('string literals and comments', () => {
  it('jsString round-trips any text and escapes what may not stand raw', () => {
    const nasty = ['`${a}`', "'\"", '\\', '\u0000', '\u2028\u2029', '</script><!-- -->', '*/ //', '😀𝔘\u{E0001}', '\r\n\t\x7f', ''];
    for (const s of nasty) {
      const lit = jsString(s);
      expectNoRawForbidden(lit, JSON.stringify(s));
      expect(new Function(`return ${lit};`)()).toBe(s);
      expect(renderExpr({ k: 'lit', value: s })).toBe(lit);
    }
  });

  it('commentText stays one line and cannot close a block comment', () => {
    const c = commentText('a */ b\nc\r\u2028d\u2029 </script> <!-- \u0000 */');
    expect(c).not.toMatch(/\*\/|[\n\r\u2028\u2029\u0000]|<\/|<!/);
    expect(new Function(`/** ${c} */ // ${c}\nreturn 1;`)()).toBe(1);
  });

  it("writes __proto__ as a computed key, so an object literal gets an own property (not a prototype)", () => {
    const o = new Function(`return { ${propertyKey('__proto__')}: 1, ${propertyKey('constructor')}: 2, ${propertyKey('a b')}: 3 };`)() as Record<string, number>;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__', 'constructor', 'a b']);
    const obj = renderExpr({ k: 'object', entries: [['__proto__', { k: 'lit', value: 1 }]] });
    expect(Object.keys(new Function(`return ${obj};`)() as object)).toEqual(['__proto__']);
  });

  it('keeps adversarial text in comments (unexported reasons, host comments, the file name) out of the code', async () => {
    const r = compileFixture(STRINGS);
    const payload = 'x */ globalThis.pwned = 1; /* \n globalThis.pwned = 2; \u2028 globalThis.pwned = 3; \r globalThis.pwned = 4; </script>';
    const hp = { ...r.hostProgram, file: `dir/${payload}.py` };
    hp.unexported = [...hp.unexported, { name: 'f', reason: payload }];
    hp.body = [{ k: 'comment', text: payload }, ...hp.body];
    for (const flavor of ['ts', 'js'] as const) {
      const g = generate(hp, r.programs, 'injection_strings', { flavor });
      for (const [name, text, loader] of [['host', g.host, flavor], ['kernels', g.kernels, flavor], ['dts', g.dts, 'ts']] as const) {
        expectNoRawForbidden(text, name);
        const code = await parse(text, loader);
        expect(code, `${flavor} ${name}`).not.toContain('pwned');
      }
    }
  });

  it('escapes a file name with quotes, backticks and line separators in imports and comments', async () => {
    const file = "it's `${x}` <!-- \u2028 \"q\".py";
    for (const t of generatedTexts('import jax.numpy as jnp\nprint(jnp.arange(3) + 1, "`${x}`")\n', file)) {
      expectNoRawForbidden(t.text, t.name);
      await parse(t.text, t.loader);
    }
    // and it runs: the kernels import resolves to the oddly named file
    const r = compile('import jax.numpy as jnp\nprint(jnp.arange(3) + 1, "`${x}`")\n', { file: "it's `${x}` \"q\".py" });
    expect(r.host).toContain(`import * as programs from ${jsString("./it's `${x}` \"q\".kernels.js")};`);
    expect(await runOn(r, cpuBackend())).toBe('[1 2 3] `${x}`\n');
  });
});

for (const f of [STRINGS, RESERVED]) {
  describe(f, () => {
    const src = readFileSync(join(ROOT, f), 'utf8');

    it('generates TS and JS that parse, with no raw NUL, U+2028/U+2029, </script or <!--', async () => {
      for (const t of generatedTexts(src, f)) {
        expectNoRawForbidden(t.text, t.name);
        await parse(t.text, t.loader);
      }
      // the source map the esbuild plugin inlines carries the Python source base64-encoded
      expectNoRawForbidden(inlineSourceMapComment(compileFixture(f).hostMap), 'source map comment');
    });

    it('runs on the CPU backend and prints what real JAX printed', async () => {
      const actual = await runOn(compileFixture(f), cpuBackend());
      const r = compareOutputs(golden(f), actual);
      expect(r.ok, r.message).toBe(true);
      // strings print exactly (the fixture's few numbers are exact too)
      if (f === STRINGS) expect(actual).toBe(golden(f));
    });
  });
}

describe('exported functions with unusual names and keys, called from JS', () => {
  it('injection_strings: dict keys and string constants cross to JS unchanged', async () => {
    const r = compileFixture(STRINGS);
    const { mod, rt } = await load(r);
    await mod.main(rt);
    const out = (await mod.tagged!(array([0, 1, 2], undefined, 'float32'))) as Record<string, JArray>;
    expect(Object.keys(out)).toEqual(['*/', '</script>', '`${k}`']);
    expect(await values(out['*/'])).toEqual([0, 2, 4]);
    expect(await values(out['`${k}`'])).toEqual([1, 2, 3]);
    const [y, label] = (await mod.scale_star_slash!(array([1, 2, 3, 4], undefined, 'float32'), '*/ `${label}`')) as [JArray, string];
    expect(await values(y)).toEqual([2, 4, 6, 8]);
    expect(label).toBe('*/ `${label}`');
    await expect(mod.scale_star_slash!(array([1, 2, 3, 4], undefined, 'float32'), '`${other}`')).rejects.toThrow(/label/);
  });

  it('reserved_identifiers: reserved names get a trailing _, never clash, and __proto__ keys are own properties', async () => {
    const r = compileFixture(RESERVED);
    const names = r.hostProgram.exports.map((x) => [x.pyName, x.name]);
    expect(names).toEqual(
      expect.arrayContaining([['delete', 'delete__'], ['delete_', 'delete_'], ['new_layer', 'new_layer'], ['call', 'call'], ['main_', 'main_'], ['exp32', 'exp32'], ['then', 'then_']]),
    );
    expect(new Set(names.map(([, n]) => n)).size).toBe(names.length);
    // the module is not a thenable (an export named `then` would make `await import()` call it)
    const { mod, rt, printed } = await load(r);
    expect(mod).not.toHaveProperty('then');
    await mod.main(rt);
    expect(compareOutputs(golden(RESERVED), printed()).ok).toBe(true);

    const x = array([0, 1, 2, 3], undefined, 'float32');
    expect(await values(await mod.delete__!(x, 2, 0.5))).toEqual([0.5, 2.5, 4.5, 6.5]);
    expect(await values(await mod.delete_!(x, array([1, 1, 1, 1], undefined, 'float32')))).toEqual([-1, 0, 1, 2]);
    expect(await values(await mod.then_!(x))).toEqual([1, 2, 3, 4]);

    const tree = (await mod.call!(x, 3)) as Record<string, JArray>;
    expect(Object.getPrototypeOf(tree)).toBe(Object.prototype);
    expect(Object.keys(tree)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(await values(tree['__proto__'])).toEqual([0, 3, 6, 9]);
    expect(await values(tree['constructor'])).toEqual([1, 4, 7, 10]);

    const w = array(Float32Array.from({ length: 16 }, (_, i) => i / 32), [4, 4]);
    const b = array([0.1, 0.1, 0.1, 0.1], undefined, 'float32');
    const params = { ['__proto__']: w, constructor: b };
    const y = await values(await mod.new_layer!(array([[0, 1, 2, 3]], undefined, 'float32'), params));
    [0.9517459, 0.9665834, 0.97691244, 0.9840746].forEach((v, i) => expect(y[i]).toBeCloseTo(v, 5));

    const obj = { constructor: x, prototype: array([0, 2, 4, 6], undefined, 'float32'), valueOf: 1.5 };
    expect(await values(await mod.main_!(obj))).toEqual([0, 4, 8, 12]);
  });
});

describe('esbuild plugin: only .py files are compiled', () => {
  type PluginFactory = (opts?: { types?: boolean; devices?: number }) => esbuild.Plugin;
  const jaxts = async (): Promise<PluginFactory> => ((await import(pathToFileURL(join(ROOT, 'dist/esbuild.js')).href)) as { default: PluginFactory }).default;

  it('leaves .txt, .pyc and .py.bak imports to their own loaders', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jaxts-inj-'));
    // not Python: compiling any of them would be an error
    const notPython = 'this is ( not python `${x}` */\n';
    writeFileSync(join(dir, 'notes.txt'), `txt: ${notPython}`);
    writeFileSync(join(dir, 'model.pyc'), `pyc: ${notPython}`);
    writeFileSync(join(dir, 'model.py.bak'), `bak: ${notPython}`);
    writeFileSync(join(dir, 'real.py'), 'print("`${real}` */")\n');
    writeFileSync(
      join(dir, 'app.ts'),
      [
        "import txt from './notes.txt';",
        "import pyc from './model.pyc';",
        "import bak from './model.py.bak';",
        "import { main } from './real.py';",
        'console.log(JSON.stringify([txt, pyc, bak]));',
        'await main();',
      ].join('\n'),
    );
    const r = await esbuild.build({
      entryPoints: [join(dir, 'app.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
      outfile: join(dir, 'out.mjs'),
      loader: { '.txt': 'text', '.pyc': 'text', '.bak': 'text' },
      plugins: [(await jaxts())()],
      logLevel: 'silent',
    });
    const outfile = join(dir, 'out.mjs');
    writeFileSync(outfile, r.outputFiles[0]!.text);
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(process.execPath, [outfile], { encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    expect(out).toBe(`${JSON.stringify([`txt: ${notPython}`, `pyc: ${notPython}`, `bak: ${notPython}`])}\n\`\${real}\` */\n`);
  });
});
