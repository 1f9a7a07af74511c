// rich's box styles (rich/box.py) and the lines a table draws with them,
// shared by the rich library (lib_rich.ts) and the table that
// jax.debug.visualize_array_sharding prints (lib_sharding.ts).

/** A box: rich's eight rows of four characters (left, horizontal, divider, right). */
export interface Box {
  name: string;
  rows: readonly string[];
}

const box = (name: string, text: string): Box => ({ name, rows: text.split('\n') });

/** rich.box's styles, by name. */
export const BOXES: Record<string, Box> = {
  ASCII: box('ASCII', '+--+\n| ||\n|-+|\n| ||\n|-+|\n|-+|\n| ||\n+--+'),
  ASCII2: box('ASCII2', '+-++\n| ||\n+-++\n| ||\n+-++\n+-++\n| ||\n+-++'),
  ASCII_DOUBLE_HEAD: box('ASCII_DOUBLE_HEAD', '+-++\n| ||\n+=++\n| ||\n+-++\n+-++\n| ||\n+-++'),
  SQUARE: box('SQUARE', '┌─┬┐\n│ ││\n├─┼┤\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n└─┴┘'),
  SQUARE_DOUBLE_HEAD: box('SQUARE_DOUBLE_HEAD', '┌─┬┐\n│ ││\n╞═╪╡\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n└─┴┘'),
  MINIMAL: box('MINIMAL', '  ╷ \n  │ \n╶─┼╴\n  │ \n╶─┼╴\n╶─┼╴\n  │ \n  ╵ '),
  MINIMAL_HEAVY_HEAD: box('MINIMAL_HEAVY_HEAD', '  ╷ \n  │ \n╺━┿╸\n  │ \n╶─┼╴\n╶─┼╴\n  │ \n  ╵ '),
  MINIMAL_DOUBLE_HEAD: box('MINIMAL_DOUBLE_HEAD', '  ╷ \n  │ \n ═╪ \n  │ \n ─┼ \n ─┼ \n  │ \n  ╵ '),
  SIMPLE: box('SIMPLE', '    \n    \n ── \n    \n    \n ── \n    \n    '),
  SIMPLE_HEAD: box('SIMPLE_HEAD', '    \n    \n ── \n    \n    \n    \n    \n    '),
  SIMPLE_HEAVY: box('SIMPLE_HEAVY', '    \n    \n ━━ \n    \n    \n ━━ \n    \n    '),
  HORIZONTALS: box('HORIZONTALS', ' ── \n    \n ── \n    \n ── \n ── \n    \n ── '),
  ROUNDED: box('ROUNDED', '╭─┬╮\n│ ││\n├─┼┤\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n╰─┴╯'),
  HEAVY: box('HEAVY', '┏━┳┓\n┃ ┃┃\n┣━╋┫\n┃ ┃┃\n┣━╋┫\n┣━╋┫\n┃ ┃┃\n┗━┻┛'),
  HEAVY_EDGE: box('HEAVY_EDGE', '┏━┯┓\n┃ │┃\n┠─┼┨\n┃ │┃\n┠─┼┨\n┠─┼┨\n┃ │┃\n┗━┷┛'),
  HEAVY_HEAD: box('HEAVY_HEAD', '┏━┳┓\n┃ ┃┃\n┡━╇┩\n│ ││\n├─┼┤\n├─┼┤\n│ ││\n└─┴┘'),
  DOUBLE: box('DOUBLE', '╔═╦╗\n║ ║║\n╠═╬╣\n║ ║║\n╠═╬╣\n╠═╬╣\n║ ║║\n╚═╩╝'),
  DOUBLE_EDGE: box('DOUBLE_EDGE', '╔═╤╗\n║ │║\n╟─┼╢\n║ │║\n╟─┼╢\n╟─┼╢\n║ │║\n╚═╧╝'),
  MARKDOWN: box('MARKDOWN', '    \n| ||\n|-||\n| ||\n|-||\n|-||\n| ||\n    '),
};

/** What rich draws a table without a header with (Box.get_plain_headed_box). */
export function plainHeaded(b: Box): Box {
  const sub: Record<string, string> = { HEAVY_HEAD: 'SQUARE', SQUARE_DOUBLE_HEAD: 'SQUARE', MINIMAL_DOUBLE_HEAD: 'MINIMAL', MINIMAL_HEAVY_HEAD: 'MINIMAL', ASCII_DOUBLE_HEAD: 'ASCII2' };
  return sub[b.name] ? BOXES[sub[b.name]!]! : b;
}

/** Which of the box's rows: top, head, head_row, mid, row, foot_row, foot, bottom. */
export type BoxRow = 'top' | 'head' | 'head_row' | 'mid' | 'row' | 'foot_row' | 'foot' | 'bottom';
const ROW_INDEX: Record<BoxRow, number> = { top: 0, head: 1, head_row: 2, mid: 3, row: 4, foot_row: 5, foot: 6, bottom: 7 };

/** A rule across columns of `widths` (top, a separator, bottom), with or without its edges. */
export function boxRule(b: Box, which: BoxRow, widths: readonly number[], edge = true): string {
  const [l, h, d, r] = [...b.rows[ROW_INDEX[which]]!];
  return (edge ? l! : '') + widths.map((w) => h!.repeat(w)).join(d!) + (edge ? r! : '');
}

/** One line of cells (each already `widths` wide) between the verticals of row kind `which` (head, mid, foot). */
export function boxLine(b: Box, which: BoxRow, cells: readonly string[], edge = true): string {
  const [l, , d, r] = [...b.rows[ROW_INDEX[which]]!];
  return (edge ? l! : '') + cells.join(d!) + (edge ? r! : '');
}
