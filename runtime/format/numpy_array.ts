// NumPy array printing: np.array2string's layout (nesting, wrapping at the
// line width, summarization with '...'), str(ndarray) and repr(ndarray)
// ('array([...], dtype=float32)'), as NumPy 2.4 prints them.

import { complexFormatter, elementFormatter } from './numpy_elements.js';
import { npComplexStr, npScalarStr, type NpDType, type ScalarValue } from './numpy_scalar.js';
import { resolvePrintOptions, type PrintOptions } from './print_options.js';

/** A host-side array: a flat row-major buffer plus shape and dtype. */
export interface HostArray {
  readonly dtype: NpDType;
  readonly shape: readonly number[];
  /**
   * Row-major elements: Float32Array/Float64Array/Int32Array/Uint32Array/
   * BigInt64Array/Uint8Array (bool) or a plain array of numbers/bigints/booleans.
   */
  readonly data: ArrayLike<ScalarValue>;
}

/** Number of elements of a shape. */
export function shapeSize(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Python's repr of a shape tuple: '()', '(3,)', '(0, 3)'. */
export function shapeRepr(shape: readonly number[]): string {
  if (shape.length === 1) return `(${shape[0]},)`;
  return `(${shape.join(', ')})`;
}

function rowMajorStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

/** Flat indices of NumPy's _leading_trailing corners (all indices when not summarizing). */
function shownIndices(shape: readonly number[], strides: readonly number[], edge: number, summarize: boolean): number[] {
  const out: number[] = [];
  const rec = (axis: number, base: number): void => {
    if (axis === shape.length) {
      out.push(base);
      return;
    }
    const n = shape[axis]!;
    const st = strides[axis]!;
    if (summarize && n > 2 * edge) {
      for (let i = 0; i < edge; i++) rec(axis + 1, base + i * st);
      for (let i = n - edge; i < n; i++) rec(axis + 1, base + i * st);
    } else {
      for (let i = 0; i < n; i++) rec(axis + 1, base + i * st);
    }
  };
  rec(0, 0);
  return out;
}

function rstrip(s: string): string {
  return s.replace(/\s+$/u, '');
}

/** NumPy's _extendLine (words are always single-line here). */
function extendLine(s: string, line: string, word: string, lineWidth: number, nextLinePrefix: string): [string, string] {
  let needsWrap = line.length + word.length > lineWidth;
  if (line.length <= nextLinePrefix.length) needsWrap = false;
  if (needsWrap) {
    s += `${rstrip(line)}\n`;
    line = nextLinePrefix;
  }
  line += word;
  return [s, line];
}

/** Options of array2string beyond the print options. */
export interface Array2StringOptions {
  separator?: string;
  prefix?: string;
  suffix?: string;
  options?: Partial<PrintOptions>;
  /** The text of every element, where the dtype's elements all print alike (float0's `(b'',)`); `data` is then unused. */
  element?: string;
}

/**
 * np.array2string(a, separator=..., prefix=..., suffix=...): the bracketed
 * body without any 'array(' wrapper. 0-d arrays print their single element
 * through the array formatter (precision-limited), empty arrays print '[]'.
 */
export function array2string(a: HostArray, o: Array2StringOptions = {}): string {
  const opts = resolvePrintOptions(o.options);
  const separator = o.separator ?? ' ';
  const prefix = o.prefix ?? '';
  const suffix = o.suffix ?? '';
  const lineWidth = opts.linewidth - suffix.length;
  const shape = a.shape;
  const size = shapeSize(shape);
  if (size === 0) return '[]';
  const complex = a.dtype === 'complex64';
  if (o.element === undefined && a.data.length < (complex ? 2 * size : size)) {
    throw new RangeError(`array2string: data has ${a.data.length} elements, shape ${shapeRepr(shape)} needs ${size}`);
  }

  const summarize = size > opts.threshold;
  const edge = opts.edgeitems;
  const strides = rowMajorStrides(shape);
  const indices = shownIndices(shape, strides, edge, summarize);
  // a complex element is formatted from its index (its two parts are two slots of the data)
  const element = o.element;
  const fmt: (offset: number) => string = element !== undefined
    ? () => element
    : complex
    ? complexFormatter(indices, a.data, opts)
    : ((f) => (offset: number) => f(a.data[offset]!))(elementFormatter(indices.map((i) => a.data[i]!), a.dtype, shape.length === 0, opts));
  const nextLinePrefix = ` ${' '.repeat(prefix.length)}`;
  const sepStripped = rstrip(separator);
  const ndim = shape.length;

  const recurser = (axis: number, offset: number, hangingIndent: string, currWidth: number): string => {
    const axesLeft = ndim - axis;
    if (axesLeft === 0) return fmt(offset);
    const nextHangingIndent = `${hangingIndent} `;
    const nextWidth = currWidth - 1;
    const aLen = shape[axis]!;
    const stride = strides[axis]!;
    const showSummary = summarize && 2 * edge < aLen;
    const leadingItems = showSummary ? edge : 0;
    const trailingItems = showSummary ? edge : aLen;
    const child = (i: number): string => recurser(axis + 1, offset + i * stride, nextHangingIndent, nextWidth);

    let s = '';
    if (axesLeft === 1) {
      const elemWidth = currWidth - Math.max(sepStripped.length, 1);
      let line = hangingIndent;
      for (let i = 0; i < leadingItems; i++) {
        [s, line] = extendLine(s, line, child(i), elemWidth, hangingIndent);
        line += separator;
      }
      if (showSummary) {
        [s, line] = extendLine(s, line, '...', elemWidth, hangingIndent);
        line += separator;
      }
      for (let i = trailingItems; i > 1; i--) {
        [s, line] = extendLine(s, line, child(aLen - i), elemWidth, hangingIndent);
        line += separator;
      }
      [s, line] = extendLine(s, line, child(aLen - 1), elemWidth, hangingIndent);
      s += line;
    } else {
      const lineSep = sepStripped + '\n'.repeat(axesLeft - 1);
      for (let i = 0; i < leadingItems; i++) s += hangingIndent + child(i) + lineSep;
      if (showSummary) s += `${hangingIndent}...${lineSep}`;
      for (let i = trailingItems; i > 1; i--) s += hangingIndent + child(aLen - i) + lineSep;
      s += hangingIndent + child(aLen - 1);
    }
    return `[${s.slice(hangingIndent.length)}]`;
  };
  return recurser(0, 0, nextLinePrefix, lineWidth);
}

/** str(ndarray): '[[0 1]\n [2 3]]'; a 0-d array prints as its scalar ('0.1', '3', 'True'). */
export function numpyStr(a: HostArray, options?: Partial<PrintOptions>): string {
  if (a.shape.length === 0) return a.dtype === 'complex64' ? npComplexStr(Number(a.data[0]), Number(a.data[1])) : npScalarStr(a.data[0]!, a.dtype);
  return array2string(a, { separator: ' ', prefix: '', options });
}

/** Dtypes numpy's repr leaves implicit (int_ is int64 on NumPy 2). */
function dtypeIsImplied(dtype: NpDType): boolean {
  return dtype === 'float64' || dtype === 'int64' || dtype === 'bool';
}

/**
 * repr(ndarray): 'array([1., 2.])', 'array([1, 2], dtype=int32)',
 * 'array([], shape=(0, 3), dtype=float64)', and 'shape=(N,)' for summarized arrays.
 */
export function numpyRepr(a: HostArray, options?: Partial<PrintOptions>): string {
  const opts = resolvePrintOptions(options);
  const prefix = 'array(';
  const lst = array2string(a, { separator: ', ', prefix, suffix: ')', options: opts });
  const size = shapeSize(a.shape);
  const extras: string[] = [];
  const isShape0 = a.shape.length === 1 && a.shape[0] === 0;
  if ((size === 0 && !isShape0) || size > opts.threshold) extras.push(`shape=${shapeRepr(a.shape)}`);
  if (!dtypeIsImplied(a.dtype) || size === 0) extras.push(`dtype=${a.dtype}`);
  if (extras.length === 0) return `${prefix}${lst})`;
  const arrStr = `${prefix}${lst},`;
  const extraStr = `${extras.join(', ')})`;
  const lastLineLen = arrStr.length - (arrStr.lastIndexOf('\n') + 1);
  const spacer = lastLineLen + extraStr.length + 1 > opts.linewidth ? `\n${' '.repeat(prefix.length)}` : ' ';
  return arrStr + spacer + extraStr;
}
