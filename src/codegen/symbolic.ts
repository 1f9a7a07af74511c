// Shape-polymorphic exports from sample compiles. The compiler keeps static
// shapes everywhere; for an export with symbolic dimensions (`x: 'b, 3'`) the
// module is compiled at a grid of sample sizes (two per symbol) and once more
// to check. The generated files must then agree token for token except for
// integer literals; each integer that varies is solved as a polynomial in the
// symbols (multilinear, integer coefficients: `2*b`, `b*n + 1`) and checked on
// the extra sample. Those integers become expressions of the call's symbols:
// in the export's host code (`dims.b`), in its programs (which become
// functions of the symbols, made once per size: `jx.symbolic`), in their WGSL
// (interpolated into the shader text) and their CPU kernels (a `dims`
// argument). Anything else that differs (a kernel chosen by size, a float
// constant such as a mean's 1/b) is a compile error naming the place.
import { CompileError } from '../common/diagnostics.js';

/** One sample compile: the symbols' values and the generated texts. */
export interface SymbolicSample {
  values: ReadonlyMap<string, number>;
  host: string;
  kernels: string;
  dts: string;
}

/** How the samples were chosen: per symbol, the grid's two values (`lo`, `hi`); samples[0..2^k) are the grid, bit j set = symbol j at hi. */
export interface SampleGrid {
  symbols: string[];
  lo: number[];
  hi: number[];
  /** The last sample (far from the set) is dropped where the compiler picks other kernels there (the small sets). */
  softFar: boolean;
}

/** Integer coefficients by monomial (sorted symbol names joined by `*`; '' is the constant). */
type Poly = Map<string, number>;

/**
 * The sample sets tried in turn, per symbol (lo, hi, check): large sizes first, so that a kernel the
 * compiler picks for large sizes (the CPU's blocked matrix product) serves every size; smaller
 * ones where large sizes change a kernel's shape non-affinely. The values avoid likely batch sizes
 * of the script's own calls (a program the script already has would be shared).
 */
const SAMPLE_SETS: [number[], number[], number[]][] = [
  [[97, 101, 103], [107, 109, 113], [127, 131, 137]],
  [[5, 11, 17], [7, 13, 19], [23, 29, 31]],
  [[2, 2, 2], [3, 3, 3], [5, 5, 5]],
];

/**
 * A second check, far from every set: a count that is constant over a set's samples but not in
 * general (tiles or workgroups of `ceil(n / 64)`) shows there. For the small sets it checks only
 * where the compiler picks the same kernels there (their kernels loop over sizes, without tiles).
 */
const FAR = [257, 263, 269];

/** How many sample sets there are (sampleGrid's `set`). */
export const SAMPLE_SET_COUNT = SAMPLE_SETS.length;

/** The samples of set `set`: the grid (2^k points), then two points off it that check the fit. */
export function sampleGrid(symbols: string[], set: number): { grid: SampleGrid; samples: Map<string, number>[] } {
  const [los, his, checks] = SAMPLE_SETS[set]!;
  const lo = symbols.map((_, j) => los[j]!);
  const hi = symbols.map((_, j) => his[j]!);
  const samples: Map<string, number>[] = [];
  for (let m = 0; m < 1 << symbols.length; m++) samples.push(new Map(symbols.map((s, j) => [s, (m >> j) & 1 ? hi[j]! : lo[j]!])));
  samples.push(new Map(symbols.map((s, j) => [s, checks[j]!])));
  samples.push(new Map(symbols.map((s, j) => [s, FAR[j]!])));
  return { grid: { symbols, lo, hi, softFar: set > 0 }, samples };
}

/**
 * Number literals of generated text (not digits of names): integers, and floats (a mean's 1/b);
 * WGSL's suffixes (`101i`, `8u`, `0.5f`) stay in the text.
 */
const NUMBER = /(?<![\w.$])\d+(?:\.\d+(?:e[+-]?\d+)?)?(?=[iuf]?(?![\w.]))/g;

function split(text: string): { parts: string[]; raw: string[]; nums: number[]; at: number[] } {
  const parts: string[] = [];
  const raw: string[] = [];
  const nums: number[] = [];
  const at: number[] = [];
  let last = 0;
  for (const m of text.matchAll(NUMBER)) {
    parts.push(text.slice(last, m.index));
    raw.push(m[0]);
    nums.push(Number(m[0]));
    at.push(m.index);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return { parts, raw, nums, at };
}

/** The integers n with float32(1/n) = float32(v) for each v (a mean's scale), or null. */
function reciprocals(vals: number[]): number[] | null {
  const ns = vals.map((v) => Math.round(1 / v));
  return ns.every((n, i) => n >= 1 && Math.fround(1 / n) === Math.fround(vals[i]!)) ? ns : null;
}

/** The multilinear polynomial through the grid's values, or null when a division is not exact. */
function fitGrid(values: number[], grid: SampleGrid): Poly | null {
  // fold one axis at a time: f(lo), f(hi) → constant + slope·symbol (integers throughout for integer polynomials);
  // after folding axes 0..j-1 the points left are those with those bits clear
  const polys: Poly[] = values.map((v) => new Map([['', v]]));
  for (let j = 0; j < grid.symbols.length; j++) {
    const step = 1 << j;
    const width = grid.hi[j]! - grid.lo[j]!;
    for (let m = 0; m < polys.length; m++) {
      if (m & ((step << 1) - 1)) continue;
      const a = polys[m]!;
      const b = polys[m | step]!;
      const out: Poly = new Map();
      for (const key of new Set([...a.keys(), ...b.keys()])) {
        const fa = a.get(key) ?? 0;
        const d = (b.get(key) ?? 0) - fa;
        if (d % width !== 0) return null;
        const slope = d / width;
        const c = fa - slope * grid.lo[j]!;
        if (c !== 0) out.set(key, (out.get(key) ?? 0) + c);
        if (slope !== 0) out.set([...(key ? key.split('*') : []), grid.symbols[j]!].sort().join('*'), slope);
      }
      polys[m] = out;
    }
  }
  return polys[0]!;
}

function evaluate(p: Poly, values: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const [key, c] of p) s += c * (key ? key.split('*').reduce((a, n) => a * values.get(n)!, 1) : 1);
  return s;
}

/** `2 * dims.b + 1` (code) or `2*b + 1` (docs). */
function render(p: Poly, dims: string | null): string {
  const terms: string[] = [];
  const entries = [...p].filter(([k]) => k !== '').concat(p.has('') ? [['', p.get('')!]] : []);
  for (const [key, c] of entries) {
    const names = key ? key.split('*').map((n) => (dims ? `${dims}.${n}` : n)) : [];
    const mul = dims ? ' * ' : '*';
    const mag = Math.abs(c);
    const body = names.length ? (mag === 1 ? names.join(mul) : `${mag}${mul}${names.join(mul)}`) : String(mag);
    terms.push(terms.length ? `${c < 0 ? '-' : '+'} ${body}` : c < 0 ? `-${body}` : body);
  }
  return terms.length ? terms.join(' ') : '0';
}

const isSimple = (p: Poly): boolean => p.size === 1 && [...p.values()][0] === 1 && !p.has('');

/** A line of text around `at`, for error messages. */
function lineAt(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end < 0 ? undefined : end).trim();
}

/** Unify one generated file over the samples: the base sample's text with each varying integer replaced by `rendered(poly, offset)`. */
function unify(texts: string[], samples: SymbolicSample[], grid: SampleGrid, what: string, rendered: (p: Poly, at: number, reciprocal: boolean) => string): string {
  const splits = texts.map(split);
  const base = splits[0]!;
  const gridN = 1 << grid.symbols.length;
  const where = (vals: ReadonlyMap<string, number>): string => [...vals].map(([k, v]) => `${k} = ${v}`).join(', ');
  for (let s = 1; s < splits.length; s++) {
    const other = splits[s]!;
    const n = Math.min(base.parts.length, other.parts.length);
    for (let i = 0; i < n; i++) {
      const a = base.parts[i]!;
      const b = other.parts[i]!;
      if (a !== b) {
        // the first character that differs, in each sample's text
        let k = 0;
        while (k < a.length && a[k] === b[k]) k++;
        const start = (x: typeof base): number => (i === 0 ? 0 : x.at[i - 1]! + x.raw[i - 1]!.length) + k;
        throw new CompileError(
          `shapes: the compiled ${what} differs in structure between ${where(samples[0]!.values)} and ${where(samples[s]!.values)}, not only in sizes: ` +
            `\`${lineAt(texts[0]!, start(base))}\` against \`${lineAt(texts[s]!, start(other))}\`; ` +
            `jaxts makes a shape-polymorphic export only where the symbols change sizes and offsets (a kernel chosen by size, or a constant such as a mean's 1/b, cannot be)`,
          null,
        );
      }
    }
    if (base.parts.length !== other.parts.length) throw new CompileError(`shapes: the compiled ${what} differs in length between ${where(samples[0]!.values)} and ${where(samples[s]!.values)}`, null);
  }
  let out = base.parts[0]!;
  for (let i = 0; i < base.nums.length; i++) {
    let vals = splits.map((x) => x.nums[i]!);
    let text = base.raw[i]!;
    if (vals.some((v) => v !== vals[0])) {
      // a float that varies: 1/n for an integer n that is a size (a mean's scale), or an error
      const float = splits.some((x) => x.raw[i]!.includes('.'));
      const ns = float ? reciprocals(vals) : null;
      if (float && !ns) {
        throw new CompileError(
          `shapes: a constant of the compiled ${what} changes with the symbols and is not 1/size (${samples.map((smp, j) => `${vals[j]} at ${where(smp.values)}`).join('; ')}): \`${lineAt(texts[0]!, base.at[i]!)}\``,
          null,
        );
      }
      if (ns) vals = ns;
      const p = fitGrid(vals.slice(0, gridN), grid);
      const bad = p === null || samples.slice(gridN).some((smp, j) => evaluate(p, smp.values) !== vals[gridN + j]);
      if (bad) {
        throw new CompileError(
          `shapes: a size in the compiled ${what} is not a polynomial of degree 1 in each symbol (${samples.map((smp, j) => `${vals[j]} at ${where(smp.values)}`).join('; ')}): \`${lineAt(texts[0]!, base.at[i]!)}\``,
          null,
        );
      }
      text = rendered(p!, base.at[i]!, ns !== null);
    }
    out += text + base.parts[i + 1]!;
  }
  return out;
}

/** A top-level block of the kernels file: a kernel function or a program spec. */
interface Block {
  kind: 'fn' | 'spec';
  name: string;
  start: number;
  end: number;
}

function blocks(text: string): Block[] {
  const out: Block[] = [];
  // a kernel function ends at the first `}` of column 0, a spec at the first `};` (WGSL functions inside end with `}`)
  for (const m of text.matchAll(/^function (\w+)\b[^\n]*\n[\s\S]*?^\}$|^export const (\w+)\b[^\n]*\n[\s\S]*?^\};$/gm)) {
    out.push({ kind: m[1] !== undefined ? 'fn' : 'spec', name: (m[1] ?? m[2])!, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * The generated files of a module with shape-polymorphic exports (`exports`: their JS names), from
 * its sample compiles (samples[0] is the base). Throws CompileError where the samples differ in
 * more than sizes.
 */
export function unifySamples(samples: SymbolicSample[], grid: SampleGrid, exports: string[], types: boolean, runtimeImport: string): { host: string; kernels: string; dts: string } {
  // the far check of a small set may pick other kernels (the CPU's matrix product above a size): then it checks nothing
  if (grid.softFar) {
    const same = (a: string, b: string): boolean => split(a).parts.join('\0') === split(b).parts.join('\0');
    const far = samples[samples.length - 1]!;
    if (!same(samples[0]!.kernels, far.kernels) || !same(samples[0]!.host, far.host)) samples = samples.slice(0, -1);
  }
  // kernels: note which blocks take the symbols
  const kText = samples[0]!.kernels;
  const kBlocks = blocks(kText);
  const symbolicBlocks = new Set<Block>();
  const blockAt = (at: number): Block => {
    const b = kBlocks.find((x) => x.start <= at && at < x.end);
    if (!b) throw new CompileError(`shapes: a size outside any program varies with the symbols: \`${lineAt(kText, at)}\``, null);
    return b;
  };
  let kernels = unify(samples.map((s) => s.kernels), samples, grid, 'kernels', (p, at, reciprocal) => {
    const b = blockAt(at);
    symbolicBlocks.add(b);
    // inside the WGSL template literal: interpolated into the shader text
    const inWgsl = (kText.slice(b.start, at).split('`').length - 1) % 2 === 1;
    const code = reciprocal ? `Math.fround(1 / ${isSimple(p) ? render(p, 'dims') : `(${render(p, 'dims')})`})` : render(p, 'dims');
    return inWgsl ? `\${${code}}` : isSimple(p) || reciprocal ? code : `(${code})`;
  });
  // a kernel function with symbolic sizes takes `dims`; a spec that has such a kernel (or sizes) is a function of them
  const fns = new Set([...symbolicBlocks].filter((b) => b.kind === 'fn').map((b) => b.name));
  const specs = new Set(kBlocks.filter((b) => b.kind === 'spec' && (symbolicBlocks.has(b) || [...fns].some((f) => kText.slice(b.start, b.end).includes(`cpu: ${f},`)))).map((b) => b.name));
  kernels = kernels.replace(/^function (\w+)\((ins[^)]*), (device[^)]*)\)/gm, (m, name: string, a: string, dev: string) => (fns.has(name) ? `function ${name}(${a}, ${dev}, dims${types ? ': jx.Dims' : ''})` : m));
  kernels = kernels.replace(/^export const (\w+)(: jx\.ProgramSpec)? = \{\n([\s\S]*?)^\};$/gm, (m, name: string, _t: string | undefined, body: string) => {
    if (!specs.has(name)) return m;
    const inner = body.replace(/cpu: (\w+),/g, (c, f: string) => (fns.has(f) ? `cpu: (ins${types ? ': jx.CpuBuffer[]' : ''}, out${types ? ': jx.CpuBuffer' : ''}, device${types ? ': number' : ''}) => ${f}(ins, out, device, dims),` : c));
    return `export const ${name} = jx.symbolic((dims${types ? ': jx.Dims' : ''})${types ? ': jx.ProgramSpec' : ''} => ({\n${inner}}));`;
  });
  // the programs call jx.symbolic: the runtime is imported as a value
  if (specs.size) kernels = types ? kernels.replace(/^import type \* as jx from/m, 'import * as jx from') : kernels.replace(/^(\/\/[^\n]*\n)/, `$1import * as jx from ${runtimeImport};\n`);

  // host: the symbolic exports' sizes read their `dims`; their programs are called with them
  const hText = samples[0]!.host;
  const regions = [...hText.matchAll(/^export async function (\w+)\([^\n]*\n[\s\S]*?^\}$/gm)].filter((m) => exports.includes(m[1]!));
  const dimsVar = (r: RegExpExecArray | RegExpMatchArray): string => /const (\w+) = jx\.dims\(/.exec(r[0])?.[1] ?? 'dims';
  let host = unify(samples.map((s) => s.host), samples, grid, 'host code', (p, at, reciprocal) => {
    const r = regions.find((m) => m.index! <= at && at < m.index! + m[0].length);
    if (reciprocal) throw new CompileError(`shapes: a constant of the host code changes with the symbols: \`${lineAt(hText, at)}\``, null);
    if (r) return isSimple(p) ? render(p, dimsVar(r)) : `(${render(p, dimsVar(r))})`;
    // the export's doc comment
    if (/^\s*\/\*\*/.test(lineAt(hText, at))) return render(p, null);
    throw new CompileError(`shapes: a size outside the shape-polymorphic exports varies with the symbols: \`${lineAt(hText, at)}\``, null);
  });
  if (specs.size) {
    host = host.replace(/^export async function (\w+)\([^\n]*\n[\s\S]*?^\}$/gm, (fn, name: string) => {
      if (!exports.includes(name)) {
        const used = [...specs].find((s) => fn.includes(`programs.${s},`) || fn.includes(`programs.${s})`));
        if (used) throw new CompileError(`shapes: ${name} calls the shape-polymorphic program ${used}`, null);
        return fn;
      }
      const v = /const (\w+) = jx\.dims\(/.exec(fn)?.[1] ?? 'dims';
      return fn.replace(/programs\.(\w+)\b(?!\()/g, (m, s: string) => (specs.has(s) ? `programs.${s}(${v})` : m));
    });
  }
  const dts = unify(samples.map((s) => s.dts), samples, grid, 'types', (p, at, reciprocal) => (reciprocal ? `1/(${render(p, null)})` : render(p, null)));
  return { host, kernels, dts };
}
