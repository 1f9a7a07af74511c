// Seeded mutation of Python programs for the fuzz test (test/fuzz/fuzz.test.ts)
// and the longer run (scripts/fuzz.mjs): a small PRNG and mutators over a
// program's text — token-level delete/duplicate/swap, line-level
// delete/duplicate/swap, random indentation, truncation, insertion of
// awkward Unicode, newline styles, and a name or literal swapped for an
// edge-case value (None, [], -1, 2**64, a module...). Everything is a pure function of the seed, so a crash found
// with (seed, fixture, index) is reproduced by the same call.

/** mulberry32: a tiny, fast, seedable 32-bit PRNG. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** A uniform float in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n) (0 when n <= 0). */
  int(n: number): number {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

/** A seed for variant `index` of fixture `name` under the run's `seed` (FNV-1a over the three). */
export function variantSeed(seed: number, name: string, index: number): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  const s = `${name}#${index}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// ------------------------------------------------------------ tokens

/** Identifiers, numbers, strings, operators, whitespace, newlines, comments; anything else one char. */
const TOKEN_RE =
  /[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*|\d[\w.]*|"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*|\r\n|\n|[ \t]+|\*\*=?|\/\/=?|->|<<|>>|[<>=!]=|[-+*/%@&|^:]=|[\s\S]/g;

export function tokenize(text: string): string[] {
  return text.match(TOKEN_RE) ?? [];
}

/** Tokens that are not whitespace or newlines (what token mutators pick). */
function solidIndices(toks: string[]): number[] {
  const out: number[] = [];
  toks.forEach((t, i) => {
    if (!/^\s+$/.test(t)) out.push(i);
  });
  return out;
}

// ------------------------------------------------------------ unicode

/** Awkward characters and sequences: BMP, astral, combining, zero-width, NUL, separators, lone surrogates, BOM, CR/CRLF. */
const WEIRD: readonly string[] = [
  '\u00e9', // é
  '\u03bb', // λ (an identifier character)
  '\u4e2d', // CJK
  '\u0301', // combining acute
  'e\u0301', // decomposed é
  '\u200b', // zero-width space
  '\u200d', // zero-width joiner
  '\u00a0', // no-break space
  '\u3000', // ideographic space
  '\ufeff', // BOM
  '\u0000', // NUL
  '\u2028', // line separator
  '\u2029', // paragraph separator
  '\u000b', // vertical tab
  '\u000c', // form feed
  '\u0085', // NEL
  '\r',
  '\r\n',
  '\n',
  '\t',
  '\ud83d\ude00', // 😀 (astral)
  '\ud835\udc65', // 𝑥 (astral, XID_Start, NFKC = x)
  '\ud800', // lone high surrogate
  '\udc00', // lone low surrogate
  '\ufffd', // replacement char
  '\uffff', // noncharacter
  '\u202e', // right-to-left override
  '\u00b2', // superscript two
  '\u0661', // Arabic-Indic digit one
  '\uff11', // fullwidth digit one
  '\u2212', // minus sign
  '\u201c', // left double quote
  '\\',
  '"',
  "'",
  '"""',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ':',
  '\\\n',
];

function randomChar(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return String.fromCharCode(rng.int(0x80)); // ASCII, controls included
    case 1:
      return String.fromCharCode(rng.int(0x10000)); // any BMP unit, surrogates included
    case 2:
      return String.fromCodePoint(0x10000 + rng.int(0x100000)); // astral
    default:
      return rng.pick(WEIRD);
  }
}

// ------------------------------------------------------------ mutators

const KEYWORDS = new Set(['def', 'return', 'if', 'else', 'elif', 'for', 'in', 'while', 'import', 'from', 'as', 'class', 'with', 'lambda', 'not', 'and', 'or', 'is', 'pass', 'break', 'continue', 'try', 'except', 'finally', 'raise', 'assert', 'global', 'nonlocal', 'del', 'yield']);

const INTERESTING: readonly string[] = [
  '0', '1', '-1', '2', '3', '-3', '0.0', '-0.5', '1e308', '1e-320', '10**9', '2**31', '2**64', "float('nan')", "float('inf')",
  'None', 'True', 'False', '[]', '()', '{}', '""', "'x'", '[[]]', '(1,)', '[1, 2]', '{"a": 1}', '...', 'print', 'len', 'range',
  'jnp', 'jax', 'np', 'jnp.float32', 'jnp.int32', 'jnp.ones(())', 'jnp.zeros((0,))', 'jnp.ones((2, 3))', 'jnp.arange(6)', 'np.arange(4)',
  'slice(None)', 'lambda x: x', 'x', 'self',
];

export type Mutator = (text: string, rng: Rng) => string;

function splitLines(text: string): string[] {
  return text.split('\n');
}

const mutators: Record<string, Mutator> = {
  deleteToken(text, rng) {
    const toks = tokenize(text);
    const solid = solidIndices(toks);
    if (!solid.length) return text;
    const i = rng.pick(solid);
    const n = 1 + (rng.next() < 0.2 ? rng.int(3) : 0);
    toks.splice(i, n);
    return toks.join('');
  },
  duplicateToken(text, rng) {
    const toks = tokenize(text);
    const solid = solidIndices(toks);
    if (!solid.length) return text;
    const i = rng.pick(solid);
    toks.splice(rng.int(toks.length + 1), 0, toks[i]!);
    return toks.join('');
  },
  swapTokens(text, rng) {
    const toks = tokenize(text);
    const solid = solidIndices(toks);
    if (solid.length < 2) return text;
    // Mostly neighbours (plausible typos), sometimes far apart.
    const k = rng.int(solid.length);
    const j = rng.next() < 0.6 ? Math.min(solid.length - 1, k + 1) : rng.int(solid.length);
    const a = solid[k]!;
    const b = solid[j]!;
    [toks[a], toks[b]] = [toks[b]!, toks[a]!];
    return toks.join('');
  },
  replaceToken(text, rng) {
    const toks = tokenize(text);
    const solid = solidIndices(toks);
    if (solid.length < 2) return text;
    toks[rng.pick(solid)] = toks[rng.pick(solid)]!;
    return toks.join('');
  },
  interestingValue(text, rng) {
    // a literal or name swapped for an edge-case value: wrong types, empty containers, huge and negative sizes
    const toks = tokenize(text);
    const at = toks.flatMap((t, i) => (/^[\w"']/.test(t) && !KEYWORDS.has(t) ? [i] : []));
    if (!at.length) return text;
    toks[rng.pick(at)] = rng.pick(INTERESTING);
    return toks.join('');
  },
  deleteLine(text, rng) {
    const lines = splitLines(text);
    lines.splice(rng.int(lines.length), 1 + (rng.next() < 0.2 ? rng.int(4) : 0));
    return lines.join('\n');
  },
  duplicateLine(text, rng) {
    const lines = splitLines(text);
    const i = rng.int(lines.length);
    lines.splice(rng.int(lines.length + 1), 0, lines[i]!);
    return lines.join('\n');
  },
  swapLines(text, rng) {
    const lines = splitLines(text);
    if (lines.length < 2) return text;
    const a = rng.int(lines.length);
    const b = rng.next() < 0.6 ? Math.min(lines.length - 1, a + 1) : rng.int(lines.length);
    [lines[a], lines[b]] = [lines[b]!, lines[a]!];
    return lines.join('\n');
  },
  reindentLine(text, rng) {
    const lines = splitLines(text);
    const i = rng.int(lines.length);
    const line = lines[i]!;
    const body = line.replace(/^[ \t\f]*/, '');
    const indent = line.slice(0, line.length - body.length);
    let next: string;
    switch (rng.int(6)) {
      case 0:
        next = indent + '    '; // indent
        break;
      case 1:
        next = indent.slice(0, Math.max(0, indent.length - 4)); // dedent
        break;
      case 2:
        next = indent.replace(/ {4}/g, '\t'); // tabs for spaces
        break;
      case 3:
        next = indent + ' '.repeat(1 + rng.int(3)); // odd amount
        break;
      case 4:
        next = '\t'.repeat(rng.int(3)) + ' '.repeat(rng.int(9)); // mixed
        break;
      default:
        next = ''; // flush left
    }
    lines[i] = next + body;
    return lines.join('\n');
  },
  truncate(text, rng) {
    return text.slice(0, rng.int(text.length + 1));
  },
  insertUnicode(text, rng) {
    const at = rng.int(text.length + 1);
    let s = '';
    for (let n = 1 + rng.int(3); n > 0; n--) s += randomChar(rng);
    return text.slice(0, at) + s + text.slice(at);
  },
  replaceChar(text, rng) {
    if (!text.length) return randomChar(rng);
    const at = rng.int(text.length);
    return text.slice(0, at) + randomChar(rng) + text.slice(at + 1);
  },
  newlineStyle(text, rng) {
    return rng.next() < 0.5 ? text.replace(/\n/g, '\r\n') : text.replace(/\n/g, '\r');
  },
};

export const MUTATOR_NAMES: readonly string[] = Object.keys(mutators);

/** Applies 1–3 random mutations to `text`; returns the variant and the mutators applied. */
export function mutate(text: string, rng: Rng): { text: string; applied: string[] } {
  const applied: string[] = [];
  let out = text;
  for (let n = 1 + rng.int(3); n > 0; n--) {
    // newlineStyle is rarer: it changes every line at once.
    let name = rng.pick(MUTATOR_NAMES);
    if (name === 'newlineStyle' && rng.next() < 0.7) name = rng.pick(MUTATOR_NAMES);
    out = mutators[name]!(out, rng);
    applied.push(name);
  }
  return { text: out, applied };
}

/** The variant `index` of a fixture under `seed` (deterministic). */
export function variant(text: string, seed: number, name: string, index: number): { text: string; applied: string[] } {
  return mutate(text, new Rng(variantSeed(seed, name, index)));
}
