// Tests on the lesson programs: every Python code block of the seed lessons
// (test/parser/seed_programs/*.py, extracted verbatim) parses, and the parser
// stays well-behaved on truncated and randomly mutated versions of them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompileError } from '../../src/common/diagnostics.js';
import { lex, parse } from '../../src/parser/index.js';
import { validateGrammar } from '../../src/parser/parser.js';
import { validateLexer } from '../../src/parser/lexer.js';
import type { Module } from '../../src/parser/index.js';
import { checkSpans, parseError } from './helpers.js';

const dir = join(import.meta.dirname, 'seed_programs');
const programs = readdirSync(dir)
  .filter((f) => f.endsWith('.py'))
  .sort()
  .map((f) => ({ name: f, src: readFileSync(join(dir, f), 'utf8') }));

/** parse(), or the CompileError it throws; anything else fails the test. */
function tryParse(src: string): Module | CompileError {
  try {
    return parse(src);
  } catch (e) {
    if (e instanceof CompileError) return e;
    throw new Error(`non-CompileError for ${JSON.stringify(src.slice(-60))}: ${String(e)}`);
  }
}

describe('seed lesson programs', () => {
  it('has the extracted code blocks of all five seeds', () => {
    expect(programs).toHaveLength(26);
    for (const seed of ['000', '001', '002', '003', '004']) expect(programs.some((p) => p.name.startsWith(seed))).toBe(true);
  });

  it.each(programs)('parses $name', ({ src }) => {
    const m = parse(src);
    expect(m.body.length).toBeGreaterThan(0);
    checkSpans(m, src);
  });

  it('parses the lesson constructs into the expected shapes', () => {
    const m = parse(readFileSync(join(dir, '003_01.py'), 'utf8'));
    const cls = m.body.find((s) => s.kind === 'ClassDef');
    expect(cls).toMatchObject({ name: 'Params', bases: [{ id: 'NamedTuple' }] });
    expect(cls && cls.kind === 'ClassDef' && cls.body.map((s) => s.kind)).toEqual(['AnnAssign', 'AnnAssign']);
    const update = m.body.find((s) => s.kind === 'FunctionDef' && s.name === 'update');
    expect(update).toMatchObject({
      docstring: 'Performs one SGD update step on params using the given data.',
      decorators: [{ kind: 'Call', func: { attr: 'partial' } }],
      returns: { kind: 'Subscript', value: { id: 'Tuple' } },
    });
  });

  it('reports the block whose indentation the scraper lost, as CPython does', () => {
    // 004's `def f(arr):\n    return arr**2` lost its indentation in the lesson text;
    // seed_programs/004_02.py is the block with the indentation restored.
    const src = readFileSync(join(dir, 'invalid', '004_02_lost_indent.py'), 'utf8');
    expect(parseError(src)).toBe('2:1 expected an indented block after function definition on line 1');
  });
});

describe('robustness', () => {
  it('builds a grammar and a lexer that pass Chevrotain validation', () => {
    expect(() => validateGrammar()).not.toThrow();
    expect(() => validateLexer()).not.toThrow();
  });

  it('parses or throws CompileError (with a span inside the text) for every 7th-character truncation', () => {
    let parsed = 0;
    let failed = 0;
    const bad: string[] = [];
    for (const { name, src } of programs) {
      for (let i = 0; i <= src.length; i += 7) {
        const text = src.slice(0, i);
        const r = tryParse(text);
        if (r instanceof CompileError) {
          failed++;
          const s = r.span;
          if (!s || s.start.offset < 0 || s.start.offset > s.end.offset || s.end.offset > text.length) {
            bad.push(`${name}[:${i}]: ${r.message} ${JSON.stringify(s)}`);
          }
        } else {
          parsed++;
        }
      }
    }
    expect(bad).toEqual([]);
    expect(parsed).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
  });

  it('never throws anything but CompileError on mutated programs', () => {
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    const frags = [
      '(', ')', '[', ']', '{', '}', ':', '\n', '\n    ', '\t', '"', "'", '"""', "f'", 'f"{', '{x}', '\\', '\\\n',
      '#', '=', ',', '*', '**', 'lambda', 'if', 'else', 'for', 'in', 'not', 'def', '@', '...', '0x', '1e', '1_',
      'é', '😀', '\r', '\f', '\0', ':=', '!r', 'yield', '\u00a0', '\ud800',
    ];
    for (let n = 0; n < 600; n++) {
      let s = pick(programs).src;
      for (let k = 0; k < 3; k++) {
        const p = Math.floor(rnd() * (s.length + 1));
        s = rnd() < 0.5 ? s.slice(0, p) + pick(frags) + s.slice(p) : s.slice(0, p) + s.slice(p + 1 + Math.floor(rnd() * 4));
      }
      const r = tryParse(s);
      if (r instanceof CompileError) {
        if (!r.span || r.span.end.offset > s.length) throw new Error(`bad error span for ${JSON.stringify(s)}`);
      } else {
        checkSpans(r, s);
      }
      try {
        lex(s);
      } catch (e) {
        if (!(e instanceof CompileError)) throw e;
      }
    }
  });
});
