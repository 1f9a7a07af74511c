// The subset of the `rich` library that JAX tutorials print tables with
// (rich.console.Console, rich.table.Table, rich.text.Text, rich.box), rendered
// as rich 15 renders when stdout is not a terminal: no colour or style (markup
// tags are dropped), the console 80 columns wide unless given a width. A
// Console(force_jupyter=True) shows its output through IPython's display,
// which prints nothing where IPython is not installed (as for the reference
// runs). What is printed is known at compile time; a table wider than the
// console (rich would wrap its cells) is a clear error.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { instantiate } from './classes.js';
import { strOf } from './format.js';
import type { Interp } from './interp.js';
import { BOXES, boxLine, boxRule, plainHeaded, type Box } from './rich_box.js';
import { PyBuiltin, PyInstance, PyList, PyModule, PyNativeMethod, PyTuple, PyUserClass, typeName, type CallArgs, type PyValue } from './values.js';

const OBJECT_BASES: PyUserClass[] = [];

/** A rich.box style as a Python value. */
const BOX = new PyUserClass('Box', OBJECT_BASES, 'rich.box');
const boxes = new Map<PyValue, Box>();


/** A Text's plain string (no markup: rich does not parse a Text's content). */
const texts = new WeakMap<PyInstance, string>();

type Justify = 'left' | 'right' | 'center';
interface Column {
  header: PyValue;
  justify: Justify;
}
interface TableState {
  columns: Column[];
  rows: PyValue[][];
  title: PyValue;
  box: Box | null;
  showHeader: boolean;
  showLines: boolean;
  showEdge: boolean;
  padding: [number, number, number, number];
  padEdge: boolean;
}
const tables = new WeakMap<PyInstance, TableState>();
const consoles = new WeakMap<PyInstance, { width: number; jupyter: boolean }>();

/** rich's markup: `[style]` and `[/style]` tags are dropped (no style is shown); `\[` is a bracket. */
export function stripMarkup(s: string): string {
  return s.replace(/(\\*)\[([a-z#/@][^[]*?)\]/g, (all, slashes: string) => {
    // an odd number of backslashes escapes the tag (it shows); each pair is one backslash
    const kept = '\\'.repeat(Math.floor(slashes.length / 2));
    return slashes.length % 2 ? kept + all.slice(slashes.length) : kept;
  });
}

/** Text.from_ansi: the text without its ANSI escape sequences. */
const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, '');

const kw = <T extends PyValue>(c: CallArgs, name: string, dflt: T): PyValue => (c.kwargs.has(name) ? c.kwargs.get(name)! : dflt);

function bool(v: PyValue, name: string, span: Span): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null) return false;
  throw new CompileError(`TypeError: rich: ${name} must be a bool, got ${typeName(v)}`, span);
}

/** rich's Padding.unpack: 1, 2 or 4 numbers as (top, right, bottom, left). */
function unpackPadding(v: PyValue, span: Span): [number, number, number, number] {
  const items = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
  const n = items.map((x) => {
    if (typeof x !== 'bigint') throw new CompileError(`TypeError: rich: padding must be ints, got ${typeName(x)}`, span);
    return Number(x);
  });
  if (n.length === 1) return [n[0]!, n[0]!, n[0]!, n[0]!];
  if (n.length === 2) return [n[0]!, n[1]!, n[0]!, n[1]!];
  if (n.length === 4) return [n[0]!, n[1]!, n[2]!, n[3]!];
  throw new CompileError(`ValueError: 1, 2 or 4 integers required for padding; ${n.length} given`, span);
}

function justifyOf(v: PyValue, span: Span): Justify {
  if (v === 'left' || v === 'right' || v === 'center') return v;
  if (v === 'default' || v === 'full') return 'left';
  throw new CompileError(`ValueError: rich: justify must be 'left', 'right' or 'center', got ${typeof v === 'string' ? `'${v}'` : typeName(v)}`, span);
}

/** The lines a cell shows: a str as markup, a Text as it is, anything else as str() (known at compile time). */
function cellLines(ip: Interp, v: PyValue, span: Span): string[] {
  if (v instanceof PyInstance && texts.has(v)) return texts.get(v)!.split('\n');
  if (v === null) return [''];
  const s = strOf(ip, v, span).static;
  if (s === null) throw new CompileError('NotImplementedError: rich: a table cell known only when the program runs is not supported by jaxts', span);
  return (typeof v === 'string' ? stripMarkup(s) : s).split('\n');
}

const width = (s: string): number => [...s].length;

function justified(s: string, w: number, how: Justify): string {
  const gap = Math.max(w - width(s), 0);
  if (how === 'right') return ' '.repeat(gap) + s;
  if (how === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(gap - Math.floor(gap / 2));
  return s + ' '.repeat(gap);
}

/** Python's round() (half to even). */
function pyRound(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

/** rich's ratio_reduce: take `total` from `values` in proportion to `ratios`, at most `maximums` each. */
function ratioReduce(total: number, ratios: number[], maximums: number[], values: number[]): number[] {
  const rs = ratios.map((r, i) => (maximums[i] ? r : 0));
  let totalRatio = rs.reduce((a, b) => a + b, 0);
  if (!totalRatio) return [...values];
  let remaining = total;
  return values.map((v, i) => {
    const r = rs[i]!;
    if (!r || totalRatio <= 0) return v;
    const d = Math.min(maximums[i]!, pyRound((r * remaining) / totalRatio));
    remaining -= d;
    totalRatio -= r;
    return v - d;
  });
}

/** rich's Table._collapse_widths (every column wraps: no fixed widths, no no_wrap here). */
function collapseWidths(widths: number[], maxWidth: number): number[] {
  let ws = [...widths];
  let total = ws.reduce((a, b) => a + b, 0);
  let excess = total - maxWidth;
  while (total && excess > 0) {
    const maxCol = Math.max(...ws);
    const second = Math.max(...ws.map((w) => (w !== maxCol ? w : 0)));
    const diff = maxCol - second;
    const ratios = ws.map((w) => (w === maxCol ? 1 : 0));
    if (!diff) break;
    ws = ratioReduce(excess, ratios, ws.map(() => Math.min(excess, diff)), ws);
    total = ws.reduce((a, b) => a + b, 0);
    excess = total - maxWidth;
  }
  return ws;
}

/** rich's Text.wrap of one table-cell line (divide_line; overflow "ellipsis": a word longer than the width is cut with …). */
function wrapLine(line: string, w: number): string[] {
  const chars = [...line];
  const breaks: number[] = [];
  let offset = 0;
  const re = /\s*\S+\s*/y;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const word = m[0];
    const start = [...line.slice(0, m.index)].length;
    const wlen = [...word.trimEnd()].length;
    if (w - offset >= wlen) offset += [...word].length;
    else if (wlen > w) {
      // a table cell's overflow is "ellipsis": the word is not folded but cut short below
      if (start) breaks.push(start);
      offset = [...word].length;
    } else if (offset && start) {
      breaks.push(start);
      offset = [...word].length;
    }
  }
  const lines: string[] = [];
  let from = 0;
  for (const b of [...breaks, chars.length]) {
    let l = chars.slice(from, b);
    if (l.length > w) {
      // rstrip_end: trailing whitespace beyond the width goes
      let ws = 0;
      while (ws < l.length && /\s/.test(l[l.length - 1 - ws]!)) ws++;
      l = l.slice(0, l.length - Math.min(ws, l.length - w));
    }
    lines.push(l.length > w ? l.slice(0, w - 1).join('') + '…' : l.join(''));
    from = b;
  }
  return lines;
}

/** The lines rich draws for table `t` in a console `maxWidth` wide (Table.__rich_console__, without wrapping). */
function renderTable(ip: Interp, t: TableState, maxWidth: number, span: Span): string[] {
  const n = t.columns.length;
  const [top, right, bottom, left] = t.padding;
  // pad_edge=False: no padding at the table's outer edges
  const padL = (j: number): number => (!t.padEdge && j === 0 ? 0 : left);
  const padR = (j: number): number => (!t.padEdge && j === n - 1 ? 0 : right);
  const header = t.columns.map((c) => cellLines(ip, c.header, span));
  const body: string[][][] = t.rows.map((r) => t.columns.map((_, j) => cellLines(ip, r[j] ?? null, span)));
  const box = t.box ? (t.showHeader ? t.box : plainHeaded(t.box)) : null;
  const extra = box ? (t.showEdge ? n + 1 : n - 1) : 0;
  // Table._calculate_column_widths: each column as wide as its widest line (with padding), within the console;
  // when the table is too wide, the widest wrappable columns give way first (_collapse_widths), then all evenly
  const avail = maxWidth - extra;
  const contentMax = t.columns.map((_, j) => Math.max(0, ...[...(t.showHeader ? [header[j]!] : []), ...body.map((r) => r[j]!)].flatMap((ls) => ls.map(width))));
  const measure = (j: number, w: number): number => Math.min(contentMax[j]! + padL(j) + padR(j), w);
  let widths = t.columns.map((_, j) => measure(j, avail) || 1);
  const sum = (ws: number[]): number => ws.reduce((a, b) => a + b, 0);
  if (sum(widths) > avail) {
    widths = collapseWidths(widths, avail);
    if (sum(widths) > avail) widths = ratioReduce(sum(widths) - avail, widths.map(() => 1), widths, widths);
    widths = widths.map((w, j) => measure(j, w));
  }
  const tableWidth = sum(widths) + extra;
  // each cell's lines wrapped to its column (Text.wrap), header and body alike
  const wrapCells = (cells: string[][]): string[][] => cells.map((ls, j) => ls.flatMap((l) => wrapLine(l, Math.max(widths[j]! - padL(j) - padR(j), 1))));
  header.splice(0, header.length, ...wrapCells(header));
  body.forEach((r, i) => (body[i] = wrapCells(r)));
  const out: string[] = [];
  if (t.title !== null) {
    const title = cellLines(ip, t.title, span);
    for (const l of title) out.push(justified(l, tableWidth, 'center'));
  }
  const rowLines = (cells: string[][], kind: 'head' | 'mid'): void => {
    const height = Math.max(...cells.map((ls) => ls.length + top + bottom));
    for (let k = 0; k < height; k++) {
      const parts = cells.map((ls, j) => {
        const i = k - top;
        const line = i >= 0 && i < ls.length ? ls[i]! : '';
        return ' '.repeat(padL(j)) + justified(line, widths[j]! - padL(j) - padR(j), t.columns[j]!.justify) + ' '.repeat(padR(j));
      });
      out.push(box ? boxLine(box, kind, parts, t.showEdge) : parts.join(''));
    }
  };
  if (box && t.showEdge) out.push(boxRule(box, 'top', widths));
  if (t.showHeader) {
    rowLines(header, 'head');
    if (box) out.push(boxRule(box, 'head_row', widths, t.showEdge));
  }
  body.forEach((r, i) => {
    if (box && t.showLines && i > 0) out.push(boxRule(box, 'row', widths, t.showEdge));
    rowLines(r, 'mid');
  });
  if (box && t.showEdge) out.push(boxRule(box, 'bottom', widths));
  return out;
}

/** The `rich` package's modules by import name (rich, rich.console, rich.table, rich.text, rich.box, rich.jupyter). */
export function richModules(ip: Interp): [string, PyModule][] {
  const mod = (name: string, entries: Record<string, PyValue>): PyModule => new PyModule(name, new Map(Object.entries(entries)));
  // (classes of their own per compilation: their methods use this interpreter)
  const TEXT = new PyUserClass('Text', OBJECT_BASES, 'rich.text');
  const TABLE = new PyUserClass('Table', OBJECT_BASES, 'rich.table');
  const CONSOLE = new PyUserClass('Console', OBJECT_BASES, 'rich.console');
  const JUPYTER_RENDERABLE = new PyUserClass('JupyterRenderable', OBJECT_BASES, 'rich.jupyter');

  const boxMod = mod('rich.box', Object.fromEntries(Object.entries(BOXES).map(([name, b]) => {
    const v = new PyInstance(BOX);
    boxes.set(v, b);
    return [name, v];
  })));

  TEXT.attrs.set('__init__', new PyNativeMethod('__init__', (self, c) => {
    const s = c.args[0] ?? kw(c, 'text', '');
    if (typeof s !== 'string') throw new CompileError(`TypeError: rich.text.Text: text must be a str, got ${typeName(s)}`, c.span);
    texts.set(self as PyInstance, s);
    return null;
  }));
  TEXT.attrs.set('__str__', new PyNativeMethod('__str__', (self) => texts.get(self as PyInstance) ?? ''));
  const makeText = (s: string, span: Span): PyInstance => instantiate(ip, TEXT, { args: [s], kwargs: new Map(), span });
  TEXT.attrs.set('from_ansi', new PyBuiltin('from_ansi', (c) => {
    const s = c.args[0] ?? kw(c, 'text', null);
    if (typeof s !== 'string') throw new CompileError(`TypeError: Text.from_ansi: text must be a str, got ${typeName(s)}`, c.span);
    return makeText(stripAnsi(s), c.span);
  }));
  TEXT.attrs.set('from_markup', new PyBuiltin('from_markup', (c) => {
    const s = c.args[0] ?? kw(c, 'text', null);
    if (typeof s !== 'string') throw new CompileError(`TypeError: Text.from_markup: text must be a str, got ${typeName(s)}`, c.span);
    return makeText(stripMarkup(s), c.span);
  }));

  const boxArg = (v: PyValue, span: Span): Box | null => {
    if (v === null) return null;
    const b = boxes.get(v);
    if (!b) throw new CompileError(`TypeError: rich.table.Table: box must be a rich.box style or None, got ${typeName(v)}`, span);
    return b;
  };
  TABLE.attrs.set('__init__', new PyNativeMethod('__init__', (self, c) => {
    const state: TableState = {
      columns: [],
      rows: [],
      title: kw(c, 'title', null),
      box: boxArg(kw(c, 'box', boxMod.attrs.get('HEAVY_HEAD')!), c.span),
      showHeader: bool(kw(c, 'show_header', true), 'show_header', c.span),
      showLines: bool(kw(c, 'show_lines', false), 'show_lines', c.span),
      showEdge: bool(kw(c, 'show_edge', true), 'show_edge', c.span),
      padding: unpackPadding(kw(c, 'padding', new PyTuple([0n, 1n])), c.span),
      padEdge: bool(kw(c, 'pad_edge', true), 'pad_edge', c.span),
    };
    if (kw(c, 'expand', false) === true) throw new CompileError('NotImplementedError: rich.table.Table(expand=True) is not supported by jaxts', c.span);
    for (const h of c.args) state.columns.push({ header: h, justify: 'left' });
    tables.set(self as PyInstance, state);
    return null;
  }));
  const stateOf = (self: PyValue): TableState => tables.get(self as PyInstance)!;
  TABLE.attrs.set('add_column', new PyNativeMethod('add_column', (self, c) => {
    const t = stateOf(self);
    t.columns.push({ header: c.args[0] ?? kw(c, 'header', ''), justify: justifyOf(kw(c, 'justify', 'left'), c.span) });
    // a column added after rows: the rows have no cell in it
    return null;
  }));
  TABLE.attrs.set('add_row', new PyNativeMethod('add_row', (self, c) => {
    const t = stateOf(self);
    const cells = [...c.args];
    if (cells.length > t.columns.length) {
      // rich adds a column per extra cell (an empty header), as Table.add_row does
      while (t.columns.length < cells.length) t.columns.push({ header: '', justify: 'left' });
    }
    t.rows.push(cells);
    return null;
  }));

  CONSOLE.attrs.set('__init__', new PyNativeMethod('__init__', (self, c) => {
    const w = kw(c, 'width', null);
    if (w !== null && typeof w !== 'bigint') throw new CompileError(`TypeError: rich.console.Console: width must be an int, got ${typeName(w)}`, c.span);
    consoles.set(self as PyInstance, { width: w === null ? 80 : Number(w), jupyter: kw(c, 'force_jupyter', null) === true });
    return null;
  }));
  CONSOLE.attrs.set('print', new PyNativeMethod('print', (self, c) => {
    const con = consoles.get(self as PyInstance)!;
    const sep = kw(c, 'sep', ' ');
    const end = kw(c, 'end', '\n');
    if (typeof sep !== 'string' || typeof end !== 'string') throw new CompileError('TypeError: Console.print: sep and end must be str', c.span);
    const blocks: string[] = [];
    let inline: string[] = [];
    const flushInline = (): void => {
      if (inline.length) blocks.push(inline.join(sep));
      inline = [];
    };
    for (const v of c.args) {
      if (v instanceof PyInstance && tables.has(v)) {
        flushInline();
        blocks.push(renderTable(ip, tables.get(v)!, con.width, c.span).join('\n'));
      } else inline.push(cellLines(ip, v, c.span).join('\n'));
    }
    flushInline();
    const text = blocks.join('\n');
    for (const l of text.split('\n')) {
      if (width(l) > con.width) throw new CompileError(`NotImplementedError: rich: a line wider than the console (${con.width} columns; rich wraps it) is not supported by jaxts`, c.span);
    }
    // Jupyter output goes through IPython's display: nothing is printed without IPython
    if (!con.jupyter) ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.print', args: [{ k: 'lit', value: text + end }] } });
    return null;
  }));

  const text = mod('rich.text', { Text: TEXT });
  const table = mod('rich.table', { Table: TABLE });
  const console = mod('rich.console', { Console: CONSOLE });
  const jupyter = mod('rich.jupyter', { JupyterRenderable: JUPYTER_RENDERABLE });
  const rich = mod('rich', { text, table, console, jupyter, box: boxMod });
  return [['rich', rich], ['rich.text', text], ['rich.table', table], ['rich.console', console], ['rich.jupyter', jupyter], ['rich.box', boxMod]];
}
