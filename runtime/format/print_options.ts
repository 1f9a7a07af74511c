// NumPy print options (np.get_printoptions()) with the NumPy 2.x defaults that
// JAX 0.10 arrays print under.

/** The subset of np.set_printoptions the printers honour. */
export interface PrintOptions {
  /** Digits after the decimal point (floatmode decides how it is applied). */
  precision: number;
  /** Arrays with more elements than this are summarized with '...'. */
  threshold: number;
  /** Items kept at each edge of a summarized axis. */
  edgeitems: number;
  /** Characters per line before wrapping. */
  linewidth: number;
  /** Never switch to scientific notation for small values. */
  suppress: boolean;
  floatmode: 'fixed' | 'unique' | 'maxprec' | 'maxprec_equal';
  /** Sign of positive floats/ints: '-' none, '+' always, ' ' a space. */
  sign: '-' | '+' | ' ';
  nanstr: string;
  infstr: string;
}

/** NumPy 2.x defaults: precision 8, threshold 1000, edgeitems 3, linewidth 75, maxprec. */
export const DEFAULT_PRINT_OPTIONS: Readonly<PrintOptions> = Object.freeze({
  precision: 8,
  threshold: 1000,
  edgeitems: 3,
  linewidth: 75,
  suppress: false,
  floatmode: 'maxprec',
  sign: '-',
  nanstr: 'nan',
  infstr: 'inf',
});

/** The options np.set_printoptions set last (per process: a runtime and a compilation start from the defaults). */
let current: Readonly<PrintOptions> = DEFAULT_PRINT_OPTIONS;

/** np.set_printoptions: the given options over the current ones; null restores NumPy's defaults. */
export function setPrintOptions(opts: Partial<PrintOptions> | null): void {
  current = opts === null ? DEFAULT_PRINT_OPTIONS : Object.freeze({ ...current, ...opts });
}

/** The current options overlaid with the given ones. */
export function resolvePrintOptions(opts?: Partial<PrintOptions>): PrintOptions {
  return { ...current, ...(opts ?? {}) };
}
