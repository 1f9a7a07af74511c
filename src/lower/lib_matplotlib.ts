// matplotlib and matplotlib.pyplot: jaxts draws no figures. Plotting calls
// are accepted and do nothing (under real JAX they print nothing either); the
// objects they return (figures, axes, lines, colormaps) accept any attribute,
// call, index and item assignment. The first call notes on stderr that
// figures are not drawn.
import type { Interp } from './interp.js';
import { arg, builtinModule, intArg } from './modules.js';
import { PyBuiltin, PyInstance, PyList, PyModule, PyNativeMethod, PyTuple, PyUserClass, type CallArgs, type PyValue } from './values.js';

/** pyplot's functions (matplotlib.pyplot's public API that draws, lays out or saves figures). */
const PYPLOT_FUNCTIONS = [
  'plot', 'scatter', 'legend', 'show', 'figure', 'subplot', 'imshow', 'xlabel', 'ylabel', 'title', 'suptitle', 'hist', 'hist2d', 'bar', 'barh',
  'xlim', 'ylim', 'xticks', 'yticks', 'xscale', 'yscale', 'grid', 'savefig', 'close', 'clf', 'cla', 'tight_layout', 'colorbar', 'axis',
  'text', 'annotate', 'fill_between', 'fill_betweenx', 'errorbar', 'semilogx', 'semilogy', 'loglog', 'contour', 'contourf', 'pcolormesh',
  'matshow', 'axhline', 'axvline', 'axhspan', 'axvspan', 'gca', 'gcf', 'step', 'stem', 'pie', 'boxplot', 'violinplot', 'quiver',
  'streamplot', 'hlines', 'vlines', 'margins', 'subplots_adjust', 'set_cmap', 'clim', 'draw', 'pause', 'ion', 'ioff', 'imsave',
  'imread', 'rc', 'twinx', 'twiny', 'sca', 'setp', 'get_cmap', 'minorticks_on', 'box', 'triplot', 'tricontourf', 'spy',
];

/** A module of plotting helpers (matplotlib.cm, matplotlib.colors, mpl_toolkits.mplot3d): any attribute is an inert object. */
class InertAttrs extends Map<string, PyValue> {
  constructor(
    entries: [string, PyValue][],
    private readonly make: () => PyValue,
  ) {
    super(entries);
  }
  override get(k: string): PyValue | undefined {
    if (!super.has(k) && !k.startsWith('__')) super.set(k, this.make());
    return super.get(k);
  }
  override has(k: string): boolean {
    return !k.startsWith('__') || super.has(k);
  }
}

/** matplotlib's modules by import name. */
export type PlotModules = Map<string, PyModule>;

export function matplotlibModules(ip: Interp): PlotModules {
  let noted = false;
  const note = (): void => {
    if (noted) return;
    noted = true;
    ip.emit({ k: 'expr', e: { k: 'call', callee: 'rt.note', args: [{ k: 'lit', value: 'jaxts: matplotlib figures are not drawn' }] } });
  };
  const artist = new PyUserClass('Artist', [], 'matplotlib');
  /** A figure, axes, line or colormap: `n` items when it is an array of axes. */
  const inert = (n = 0, item: () => PyValue = () => inert()): PyInstance => {
    const v = new PyInstance(artist);
    v.attrs.set('__jaxts_items', new PyList(Array.from({ length: n }, item)));
    return v;
  };
  const drawing = (name: string): PyBuiltin => new PyBuiltin(name, () => {
    note();
    return inert();
  });
  const items = (self: PyValue): PyValue[] => ((self as PyInstance).attrs.get('__jaxts_items') as PyList).items;
  // a colormap's N (its number of colours: 256 for the named ones) is a number programs compute with
  artist.attrs.set('__getattr__', new PyNativeMethod('__getattr__', (_self, c) => (arg(c, 0, 'name') === 'N' ? 256n : inert())));
  artist.attrs.set('__call__', new PyNativeMethod('__call__', () => {
    note();
    return inert();
  }));
  artist.attrs.set('__getitem__', new PyNativeMethod('__getitem__', (self, c) => {
    const k = arg(c, 0, 'key');
    return typeof k === 'bigint' && items(self)[Number(k)] !== undefined ? items(self)[Number(k)]! : inert();
  }));
  artist.attrs.set('__setitem__', new PyNativeMethod('__setitem__', () => null));
  artist.attrs.set('__len__', new PyNativeMethod('__len__', (self) => BigInt(items(self).length)));
  artist.attrs.set('__repr__', new PyNativeMethod('__repr__', (self) => `<matplotlib object at 0x${(self as PyInstance).address.toString(16)}>`));

  // subplots(nrows, ncols): (figure, axes) — one axes, a row of them, or rows of them
  const subplots = (c: CallArgs): PyValue => {
    note();
    const rows = intArg(arg(c, 0, 'nrows', 1n), 'nrows', c.span);
    const cols = intArg(arg(c, 1, 'ncols', 1n), 'ncols', c.span);
    const axes = rows === 1 && cols === 1 ? inert() : rows === 1 || cols === 1 ? inert(rows * cols) : inert(rows, () => inert(cols));
    return new PyTuple([inert(), axes]);
  };
  const entries: Record<string, PyValue | ((c: CallArgs) => PyValue)> = Object.fromEntries(PYPLOT_FUNCTIONS.map((n) => [n, drawing(n)]));
  const helpers = (name: string, entries: [string, PyValue][] = []): PyModule => new PyModule(name, new InertAttrs(entries, () => inert()));
  const cm = helpers('matplotlib.cm');
  const colors = helpers('matplotlib.colors');
  const mplot3d = helpers('mpl_toolkits.mplot3d');
  const mplToolkits = helpers('mpl_toolkits', [['mplot3d', mplot3d]]);
  const style = helpers('matplotlib.style');
  const pyplot = builtinModule('matplotlib.pyplot', { ...entries, subplots, cm, style, rcParams: inert() });
  const matplotlib = builtinModule('matplotlib', { pyplot, cm, colors, rcParams: inert(), use: () => null });
  return new Map([
    ['matplotlib', matplotlib],
    ['matplotlib.pyplot', pyplot],
    ['matplotlib.cm', cm],
    ['matplotlib.colors', colors],
    ['matplotlib.style', style],
    ['mpl_toolkits', mplToolkits],
    ['mpl_toolkits.mplot3d', mplot3d],
  ]);
}
