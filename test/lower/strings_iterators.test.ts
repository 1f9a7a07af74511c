// Python's string formatting operations and lazy iterators in lowering:
// `fmt % args` and str.format on static values fold to the string Python
// gives (vectors computed with CPython 3.11), their errors are compile errors
// with Python's message; host values are formatted at run time; map()/filter().
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile.js';
import { CompileError } from '../../src/common/diagnostics.js';
import { cpuBackend, runOn } from '../helpers/fixtures.js';

const c = (src: string) => compile(src, { file: 't.py' });

/** What a program of static prints writes, read from its host program's constant print calls. */
function printed(src: string): string {
  const r = c(src);
  return r.hostProgram.body
    .map((s) => {
      if (s.k !== 'expr' || s.e.k !== 'call' || s.e.callee !== 'rt.print') throw new Error(`not a static print: ${JSON.stringify(s)}`);
      const a = s.e.args[0]!;
      if (a.k !== 'lit') throw new Error(`print of a run-time value: ${JSON.stringify(a)}`);
      return String(a.value);
    })
    .join('');
}

function compileError(src: string): CompileError {
  try {
    c(src);
  } catch (e) {
    if (e instanceof CompileError) return e;
    throw e;
  }
  throw new Error(`no error compiling ${src}`);
}

const run = async (src: string): Promise<string> => runOn(c(src), cpuBackend());

// [format, args, Python's result] — computed with CPython 3.11
const PERCENT: [string, string, string][] = [
  ["'%d items, %.2f each'", "(3, 1.5)", "3 items, 1.50 each"],
  ["'hello'", "[1]", "hello"],
  ["'%s'", "[1, 2]", "[1, 2]"],
  ["'%d'", "(True,)", "1"],
  ["'%s'", "(True,)", "True"],
  ["'%r'", "('x',)", "'x'"],
  ["'%a'", "('é',)", "'\\xe9'"],
  ["'%-+08.3f|'", "(3.14159,)", "+3.142  |"],
  ["'%#o %#x %#X'", "(8, 255, 255)", "0o10 0xff 0XFF"],
  ["'%05d'", "(-42,)", "-0042"],
  ["'%.3d'", "(7,)", "007"],
  ["'%#08x'", "(255,)", "0x0000ff"],
  ["'%*.*f'", "(10, 2, 3.14159)", "      3.14"],
  ["'%-*d|'", "(-5, 3)", "3    |"],
  ["'%(x)s %(y)05.1f'", "{'x': 'a', 'y': 2.25}", "a 002.2"],
  ["'%i %u'", "(3.9, -2.5)", "3 -2"],
  ["'%e %E %g %G %F'", "(12345.678, 0.00001, 1e20, 1.5e-10, float('inf'))", "1.234568e+04 1.000000E-05 1e+20 1.5E-10 INF"],
  ["'%s'", "((1, 2),)", "(1, 2)"],
  ["'%.2s'", "('hello',)", "he"],
  ["'%5s|%-5s|'", "('ab', 'cd')", "   ab|cd   |"],
  ["'% d % d'", "(5, -5)", " 5 -5"],
  ["'%+d'", "(0,)", "+0"],
  ["'%#.0f %#g'", "(3.0, 2.0)", "3. 2.00000"],
  ["'%g'", "(100000.0,)", "100000"],
  ["'%g'", "(1000000.0,)", "1e+06"],
  ["'%d'", "(10**30,)", "1000000000000000000000000000000"],
  ["'%f'", "(10**30,)", "1000000000000000019884624838656.000000"],
  ["'%c%c'", "(65, 'z')", "Az"],
  ["'%x'", "(-255,)", "-ff"],
  ["'%#5o'", "(-8,)", "-0o10"],
  ["'%.0e'", "(0.5,)", "5e-01"],
  ["'%10.3e'", "(-1234.5,)", "-1.234e+03"],
  ["'%s'", "(None,)", "None"],
  ["'%d%%'", "(50,)", "50%"],
  ["'%(a)s %%'", "{'a': 1}", "1 %"],
  ["'%s'", "{'a': 1}", "{'a': 1}"],
  ["'%ld'", "(5,)", "5"],
  ["'%.3c'", "('a',)", "a"],
  ["'%5c|'", "(66,)", "    B|"],
  ["'%-05d|'", "(3,)", "3    |"],
  ["'%05s'", "('ab',)", "   ab"],
  ["'%+s'", "('ab',)", "ab"],
  ["'%05.1f'", "(-0.0,)", "-00.0"],
  ["'%+.1f'", "(float('nan'),)", "+nan"],
  ["'%010f'", "(float('-inf'),)", "-000000inf"],
  ["'%#x'", "(0,)", "0x0"],
  ["'%.0f'", "(2.5,)", "2"],
  ["'%s'", "{}", "{}"],
  ["'%.*f'", "(-2, 1.0)", "1"],
  ["'%d'", "(3.7,)", "3"],
  ["'%x'", "(True,)", "1"],
  ["'%(a(b))s'", "{'a(b)': 2}", "2"],
  ["'%#5x|'", "(255,)", " 0xff|"],
  ["'%-#8o|'", "(8,)", "0o10    |"],
  ["'%r'", "(1.0,)", "1.0"],
  ["'%s'", "(1e16,)", "1e+16"],
  ["'%a'", "('\\n',)", "'\\n'"],
  ["'%10r|'", "('x',)", "       'x'|"],
  ["'% 05d'", "(3,)", " 0003"],
  ["'%+05d'", "(3,)", "+0003"],
  ["'% +d'", "(3,)", "+3"],
  ["'%08.3e'", "(-1.5,)", "-1.500e+00"],
  ["'%#.3g'", "(1.0,)", "1.00"],
  ["'%G'", "(1e-20,)", "1E-20"],
  ["'%.15g'", "(0.1,)", "0.1"],
  ["'%.20f'", "(0.1,)", "0.10000000000000000555"],
  ["'%X'", "(3054,)", "BEE"],
  ["'%#X'", "(3054,)", "0XBEE"],
  ["'%c'", "(True,)", "\u0001"],
  ["'%05f'", "(float('nan'),)", "00nan"],
  ["'%-5c|'", "('x',)", "x    |"],
  ["'%.0d'", "(0,)", "0"],
  ["'%#.5x'", "(255,)", "0x000ff"],
  ["'%+.3d'", "(7,)", "+007"],
  ["'%8.3d|'", "(-7,)", "    -007|"],
  ["'%-8.3d|'", "(7,)", "007     |"],
  ["'%08.3d|'", "(7,)", "00000007|"],
  ["'%(a)s'", "{'a': {}}", "{}"],
  ["'%s %r'", "('é', 'é')", "é 'é'"],
  ["'%a'", "('€😀',)", "'\\u20ac\\U0001f600'"],
  ["'%5.2r|'", "('abc',)", "   'a|"],
  ["'%e'", "(True,)", "1.000000e+00"],
  ["'%.3s'", "(1.23456,)", "1.2"],
  ["'%i'", "(-3.99,)", "-3"],
  ["'%s'", "([1, 'a', 2.5],)", "[1, 'a', 2.5]"],
  ["'%r'", "({'k': (1,)},)", "{'k': (1,)}"],
  ["'%-6s|%6r'", "(None, 'q')", "None  |   'q'"],
  ["'%3d|%-3d|%03d'", "(5, 5, 5)", "  5|5  |005"],
  ["'%.1f%%'", "(99.5,)", "99.5%"],
  ["'%s'", "(1,)", "1"],
  ["'abc'", "()", "abc"],
  ["''", "{}", ""],
  ["'%(a)d-%(a)x'", "{'a': 255}", "255-ff"],
  ["'%*s|'", "(4, 'a')", "   a|"],
  ["'%-*s|'", "(4, 'a')", "a   |"],
  ["'%.*s|'", "(2, 'abc')", "ab|"],
  ["'%s'", "('x' * 3,)", "xxx"],
  ["'%c'", "('é',)", "é"],
  ["'%10.4f|'", "(-3.14159265,)", "   -3.1416|"],
  ["'%+e'", "(0.0,)", "+0.000000e+00"],
  ["'%g'", "(1e-5,)", "1e-05"],
  ["'%g'", "(0.0001,)", "0.0001"],
  ["'%.3g'", "(1234.5,)", "1.23e+03"],
  ["'%#.3x'", "(1,)", "0x001"],
];

// [format, args, Python's exception]
const PERCENT_ERRORS: [string, string, string][] = [
  ["'%c'", "('ab',)", "TypeError: %c requires int or char"],
  ["'%c'", "(1.5,)", "TypeError: %c requires int or char"],
  ["'hello'", "5", "TypeError: not all arguments converted during string formatting"],
  ["'%s %s'", "[1, 2]", "TypeError: not enough arguments for format string"],
  ["'%(a)s'", "[1]", "TypeError: list indices must be integers or slices, not str"],
  ["'%x'", "(1.5,)", "TypeError: %x format: an integer is required, not float"],
  ["'%d'", "('s',)", "TypeError: %d format: a real number is required, not str"],
  ["'%s'", "(1, 2)", "TypeError: not all arguments converted during string formatting"],
  ["'%d %s'", "{'a': 1}", "TypeError: %d format: a real number is required, not dict"],
  ["'%'", "(1,)", "ValueError: incomplete format"],
  ["'%(a'", "{}", "ValueError: incomplete format key"],
  ["'%y'", "(1,)", "ValueError: unsupported format character 'y' (0x79) at index 1"],
  ["'%*d'", "('a', 1)", "TypeError: * wants int"],
  ["'%d'", "(None,)", "TypeError: %d format: a real number is required, not NoneType"],
  ["'%o'", "(2.0,)", "TypeError: %o format: an integer is required, not float"],
  ["'%c'", "(-1,)", "OverflowError: %c arg not in range(0x110000)"],
  ["'%5%'", "(1,)", "ValueError: unsupported format character '%' (0x25) at index 2"],
  ["'%5.1%'", "(1,)", "ValueError: unsupported format character '%' (0x25) at index 4"],
  ["'%(a)s'", "(1,)", "TypeError: format requires a mapping"],
  ["'%*d'", "(1.5, 1)", "TypeError: * wants int"],
  ["'%d'", "(float('inf'),)", "OverflowError: cannot convert float infinity to integer"],
  ["'%d'", "(float('nan'),)", "ValueError: cannot convert float NaN to integer"],
  ["'%s %s'", "{'a': 1}", "TypeError: not enough arguments for format string"],
  ["'%(a)s %s'", "{'a': 1}", "TypeError: not enough arguments for format string"],
  ["'%(a)(b)s'", "{'a(b': 1}", "KeyError: 'a'"],
  ["'%c'", "(0x110000,)", "OverflowError: %c arg not in range(0x110000)"],
  ["'%f'", "('a',)", "TypeError: must be real number, not str"],
  ["'%e'", "(None,)", "TypeError: must be real number, not NoneType"],
  ["'%g'", "([1],)", "TypeError: must be real number, not list"],
  ["'%d'", "([1],)", "TypeError: %d format: a real number is required, not list"],
  ["'%c'", "(None,)", "TypeError: %c requires int or char"],
  ["'%f'", "(10**400,)", "OverflowError: int too large to convert to float"],
  ["'%(a)s'", "{}", "KeyError: 'a'"],
  ["'%99999999999999999999d'", "(1,)", "ValueError: width too big"],
  ["'%d %d'", "(1,)", "TypeError: not enough arguments for format string"],
  ["'%d'", "()", "TypeError: not enough arguments for format string"],
  ["'x'", "(1,)", "TypeError: not all arguments converted during string formatting"],
  ["'%d'", "('%d' % 1,)", "TypeError: %d format: a real number is required, not str"],
  ["'%s %y'", "()", "TypeError: not enough arguments for format string"],
  ["'%d %'", "('x',)", "TypeError: %d format: a real number is required, not str"],
];

// [format, call arguments, Python's result]
const STR_FORMAT: [string, string, string][] = [
  ["'{} + {} = {}'", "(1, 2, 1 + 2)", "1 + 2 = 3"],
  ["'{0}{1}{0}'", "('a', 'b')", "aba"],
  ["'{x:>5}|{y!r}'", "(x=3, y='q')", "    3|'q'"],
  ["'{:{}.{}f}'", "(3.14159, 10, 2)", "      3.14"],
  ["'{0[1]} {0[0]}'", "([5, 6],)", "6 5"],
  ["'{d[k]}'", "(d={'k': 7})", "7"],
  ["'{{}} {}'", "(1,)", "{} 1"],
  ["'}}{{'", "()", "}{"],
  ["'{!a}'", "('é',)", "'\\xe9'"],
  ["'{0.__name__}'", "(type(2),)", "int"],
  ["'{:^9}|{:08.3f}|{:,}'", "('mid', -3.5, 1234567)", "   mid   |-003.500|1,234,567"],
  ["'{:{w}}|'", "('x', w=4)", "x   |"],
  ["'{!s:>4}'", "(None,)", "None"],
  ["'{0:{1}}'", "(5, '>3')", "  5"],
  ["'{!r:>6}|{!a}'", "('é', ['é'])", "   'é'|['\\xe9']"],
];

const STR_FORMAT_ERRORS: [string, string, string][] = [
  ["'{'", "()", "ValueError: Single '{' encountered in format string"],
  ["'}'", "()", "ValueError: Single '}' encountered in format string"],
  ["'{0'", "(1,)", "ValueError: expected '}' before end of string"],
  ["'{}{0}'", "(1,)", "ValueError: cannot switch from automatic field numbering to manual field specification"],
  ["'{0}{}'", "(1,)", "ValueError: cannot switch from manual field specification to automatic field numbering"],
  ["'{} {}'", "(1,)", "IndexError: Replacement index 1 out of range for positional args tuple"],
  ["'{x}'", "()", "KeyError: 'x'"],
  ["'{!x}'", "(1,)", "ValueError: Unknown conversion specifier x"],
  ["'{!'", "(1,)", "ValueError: end of string while looking for conversion specifier"],
  ["'{!rx}'", "(1,)", "ValueError: expected ':' after conversion specifier"],
  ["'{:{:{}}}'", "(1, 2, 3)", "ValueError: Max string recursion exceeded"],
  ["'{0.}'", "(1,)", "ValueError: Empty attribute in format string"],
  ["'{:d}'", "('a',)", "ValueError: Unknown format code 'd' for object of type 'str'"],
  ["'{a{}'", "()", "ValueError: unexpected '{' in field name"],
  ["'{:'", "(1,)", "ValueError: unmatched '{' in format spec"],
  ["'{0[0]x}'", "([1],)", "ValueError: Only '.' or '[' may follow ']' in format field specifier"],
];

describe("printf-style 'fmt % args'", () => {
  it.each(PERCENT)('%s %% %s', (fmt, args, want) => {
    expect(printed(`print(${fmt} % ${args}, end="")\n`)).toBe(want);
  });
  it.each(PERCENT_ERRORS)('%s %% %s raises', (fmt, args, want) => {
    expect(compileError(`x = ${fmt} % ${args}\n`).message).toBe(want);
  });
  it('reports an error at the % expression', () => {
    const e = compileError('n = 3\nprint("%d items" % ("x",))\n');
    expect(e.message).toBe('TypeError: %d format: a real number is required, not str');
    expect(e.span!.start).toMatchObject({ line: 2, col: 7 });
  });
  it('formats run-time host values at run time', async () => {
    const src = [
      'import jax.numpy as jnp',
      'x = jnp.arange(3.0)',
      'for i in range(3):',
      '    x = x + 0',
      '    print("step %03d|%-4d|%+.2e|%s|%r|%5s|%x|%.3d" % (i, i, i / 3, i, i / 2, i * 2, i + 250, -i))',
      'print("sum=%.3f n=%d arr=%s|%10s|" % (jnp.sum(x), jnp.sum(x), x, x[1]))',
      'print("%(a)s and %(b).1f" % {"a": x, "b": jnp.float32(1.25)})',
      '',
    ].join('\n');
    const r = c(src);
    expect(r.host).toMatch(/for \(let i = 0; i < 3; i\+\+\)/);
    expect(r.host).toContain('jx.printf(');
    expect(await run(src)).toBe(
      [
        'step 000|0   |+0.00e+00|0|0.0|    0|fa|000',
        'step 001|1   |+3.33e-01|1|0.5|    2|fb|-001',
        'step 002|2   |+6.67e-01|2|1.0|    4|fc|-002',
        'sum=3.000 n=3 arr=[0. 1. 2.]|       1.0|',
        '[0. 1. 2.] and 1.2',
        '',
      ].join('\n'),
    );
  });
  it('checks a host value against its conversion at compile time', () => {
    expect(compileError('for i in range(3):\n    print("%s" % ("%x" % (i / 2)))\n').message).toBe(
      'TypeError: %x format: an integer is required, not float',
    );
  });
});

describe('str.format', () => {
  it.each(STR_FORMAT)('%s.format%s', (fmt, args, want) => {
    expect(printed(`print(${fmt}.format${args}, end="")\n`)).toBe(want);
  });
  it.each(STR_FORMAT_ERRORS)('%s.format%s raises', (fmt, args, want) => {
    expect(compileError(`x = ${fmt}.format${args}\n`).message).toBe(want);
  });
});

describe('map() and filter()', () => {
  it('map calls lambdas, defs and builtins, over the shortest iterable', () => {
    const src = [
      'def sq(v):',
      '    return v * v',
      'print(list(map(lambda k: k * 10, [1, 2, 3])), list(map(sq, (4, 5))), list(map(str, [1, 2.5])))',
      'print(list(map(lambda a, b: a + b, [1, 2, 3], (10, 20))), tuple(map(int, ["4", "5"])))',
      'a, b = map(abs, [-1, -2])',
      'print(a, b, sum(map(len, ["ab", "c"])), [x + 1 for x in map(sq, range(3))])',
      '',
    ].join('\n');
    expect(printed(src)).toBe("[10, 20, 30] [16, 25] ['1', '2.5']\n[11, 22] (4, 5)\n1 2 3 [1, 2, 5]\n");
  });
  it('filter keeps the items the function (or None: the item) finds true', () => {
    const src = 'print(list(filter(None, [0, 1, "", "a", None, [], [0]])), list(filter(lambda k: k % 2, range(7))))\n';
    expect(printed(src)).toBe("[1, 'a', [0]] [1, 3, 5]\n");
  });
  it('is lazy and single-use, as a Python iterator', () => {
    const src = [
      'def sq(v):',
      '    print("sq", v)',
      '    return v * v',
      'm = map(sq, [1, 2, 3])',
      'print(type(m).__name__, bool(m))',
      'for v in m:',
      '    print("got", v)',
      '    break',
      'print(list(m), list(m))',
      'print(list(filter(lambda k: k > 1, map(sq, [1, 2]))))',
      '',
    ].join('\n');
    expect(printed(src)).toBe('map True\nsq 1\ngot 1\nsq 2\nsq 3\n[4, 9] []\nsq 1\nsq 2\n[4]\n');
  });
  it('prints as an object, not as its items', () => {
    expect(printed('print(map(abs, [1]), filter(None, []))\n')).toMatch(/^<map object at 0x[0-9a-f]+> <filter object at 0x[0-9a-f]+>\n$/);
  });
  it('maps over arrays', async () => {
    const src = 'import jax.numpy as jnp\nxs = list(map(lambda k: jnp.arange(3) * k, range(3)))\nprint(jnp.stack(xs))\n';
    expect(await run(src)).toBe('[[0 0 0]\n [0 1 2]\n [0 2 4]]\n');
  });
  it('reports Python errors', () => {
    expect(compileError('map(abs)\n').message).toBe('TypeError: map() must have at least two arguments.');
    expect(compileError('filter(None)\n').message).toBe('TypeError: filter expected 2 arguments, got 1');
    expect(compileError('map(abs, 3)\n').message).toBe("TypeError: 'int' object is not iterable");
  });
});

// termcolor (not in the oracle's venv): colored() as termcolor 3.x writes it,
// with stdout taken for a pipe, not a terminal (colour only when forced)
describe('termcolor', () => {
  it('colours only with force_color, attrs outermost, and cprint prints', () => {
    const src = [
      'from termcolor import colored, cprint',
      "print(repr(colored('hi', 'green', 'on_blue', ['bold', 'underline'], force_color=True)))",
      "print(colored('plain', 'red'))",
      "print(repr(colored(3, 'red', force_color=True, no_color=True)))",
      "cprint('x', 'light_red', force_color=True, end='|')",
    ].join('\n');
    expect(printed(src)).toBe("'\\x1b[4m\\x1b[1m\\x1b[44m\\x1b[32mhi\\x1b[0m'\nplain\n'3'\n\x1b[91mx\x1b[0m|");
  });
  it("an unknown colour is termcolor's KeyError", () => {
    expect(compileError("from termcolor import colored\ncolored('a', 'purple', force_color=True)").message).toContain("KeyError: 'purple'");
  });
});

// tqdm (not in the oracle's venv): its bar goes to stderr, so a wrapped loop prints what the bare loop
// prints; the bar keeps tqdm 4.x's n, total and desc, and tqdm.write prints its line to stdout
describe('tqdm', () => {
  it('wraps an iterable, counts and describes as tqdm does', async () => {
    const src = [
      'from tqdm.autonotebook import tqdm',
      'from tqdm import trange',
      'import tqdm as tq',
      'import jax.numpy as jnp',
      'x = jnp.zeros(2)',
      'for i in tqdm(range(4)):',
      '    x = x + i',
      'print(x)',
      "bar = tqdm(range(3), desc='train')",
      'for i in bar:',
      "    bar.set_description(f'step {i}')",
      '    bar.set_postfix(loss=1.0)',
      'print(repr(bar.desc), bar.total, len(bar))',
      'for i in trange(2):',
      "    tq.tqdm.write(f'line {i}')",
      'with tqdm(total=10) as b:',
      '    b.update(4)',
      '    b.update()',
      'print(b.n, b.total, [a for a in tq.auto.tqdm([1, 2])])',
    ].join('\n');
    expect(await run(src)).toBe("[6. 6.]\n'step 2: ' 3 3\nline 0\nline 1\n5 10 [1, 2]\n");
  });
  it('an unknown tqdm module is ModuleNotFoundError', () => {
    expect(compileError('import tqdm.contrib').message).toContain("ModuleNotFoundError: No module named 'tqdm.contrib'");
  });
});
