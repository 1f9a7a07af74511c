// Symbolic shapes of shape-polymorphic exports, written as jax.export writes
// them: `'b, 3'`, `'(b, 784)'`, `'2*b, n'`, `'b + 1'`. A dimension is an
// integer or an affine combination of symbols; the plugin's and the CLI's
// `shapes` option names them per exported function and parameter path. The
// compiler parses them here, and a compiled module's exported function finds
// its symbols' values from the arguments' shapes (dims), checking them.

/** One dimension: `c + Σ coef·symbol`. */
export interface SymDim {
  c: number;
  terms: [string, number][];
}

/** `shapes` as the plugin and the CLI take it: function → parameter path (`x`, `params.w`, `batch[0]`) → shape text. */
export type SymbolicShapes = Record<string, Record<string, string>>;

/** Parse `'(b, 2*n + 1)'`; throws an Error in jax.export's words for what is not a shape. */
export function parseSymbolicShape(text: string): SymDim[] {
  let s = text.trim();
  if (s.startsWith('(') && s.endsWith(')')) s = s.slice(1, -1);
  if (s.trim() === '') return [];
  const parts = s.split(',');
  if (parts[parts.length - 1]!.trim() === '') parts.pop(); // '(b,)'
  return parts.map((p) => parseDim(p, text));
}

function parseDim(p: string, whole: string): SymDim {
  const bad = (why: string): Error => new Error(`ValueError: Invalid polymorphic shape specification: '${whole}': ${why}`);
  const src = p.replace(/\s+/g, '');
  if (src === '') throw bad('an empty dimension');
  const dim: SymDim = { c: 0, terms: [] };
  // terms: [+-] (INT | SYM | INT*SYM | SYM*INT)
  const re = /([+-]?)(?:(\d+)\*([A-Za-z_]\w*)|([A-Za-z_]\w*)\*(\d+)|(\d+)|([A-Za-z_]\w*))/y;
  let at = 0;
  while (at < src.length) {
    re.lastIndex = at;
    const m = re.exec(src);
    if (!m || (at > 0 && m[1] === '')) throw bad(`'${p.trim()}' is not an integer, a symbol, or a sum of multiples of symbols`);
    const sign = m[1] === '-' ? -1 : 1;
    const sym = m[3] ?? m[4] ?? m[7];
    const k = Number(m[2] ?? m[5] ?? (m[6] === undefined ? '1' : m[6]));
    if (sym === undefined) dim.c += sign * k;
    else {
      const t = dim.terms.find(([n]) => n === sym);
      if (t) t[1] += sign * k;
      else dim.terms.push([sym, sign * k]);
    }
    at = re.lastIndex;
  }
  dim.terms = dim.terms.filter(([, k]) => k !== 0);
  if (!dim.terms.length && dim.c < 0) throw bad(`the dimension '${p.trim()}' is negative`);
  return dim;
}

/** The symbols of a shape, in order of appearance. */
export function shapeSymbols(dims: readonly SymDim[]): string[] {
  return [...new Set(dims.flatMap((d) => d.terms.map(([n]) => n)))];
}

/** A dimension's value for the symbols' values. */
export function dimValue(d: SymDim, values: ReadonlyMap<string, number>): number {
  return d.terms.reduce((a, [n, k]) => a + k * values.get(n)!, d.c);
}

/** A dimension as JAX prints it: `b`, `2*b + 1`. */
export function dimText(d: SymDim): string {
  const parts: string[] = [];
  for (const [n, k] of d.terms) {
    const t = Math.abs(k) === 1 ? n : `${Math.abs(k)}*${n}`;
    parts.push(parts.length ? (k < 0 ? `- ${t}` : `+ ${t}`) : k < 0 ? `-${t}` : t);
  }
  if (d.c !== 0 || !parts.length) parts.push(parts.length ? (d.c < 0 ? `- ${-d.c}` : `+ ${d.c}`) : String(d.c));
  return parts.join(' ');
}

/** The symbols' values of one call of a shape-polymorphic export. */
export type Dims = Readonly<Record<string, number>>;

/**
 * The symbols' values in a call of the shape-polymorphic export `fn`, solved
 * from its array arguments' shapes as jax.export solves them: `args` lists each
 * symbolic argument with its path and shape text (`[x, "x", "(b, 3)"]`). A rank,
 * a constant dimension or a symbol's value that does not fit is a TypeError in
 * jax.export's words, naming the dimension.
 */
export function dims(fn: string, args: readonly (readonly [unknown, string, string])[]): Dims {
  const specs = `Using the following polymorphic shapes specifications: ${args.map(([, p, s]) => `${p}.shape = ${s}`).join(',')}.`;
  const env = new Map<string, number>();
  const solved: string[] = [];
  const fail = (why: string): never => {
    throw new TypeError(`${fn}(): Input shapes do not match the polymorphic shapes specification. ${why} ${specs}${solved.length ? ` Obtained dimension variables: ${solved.join(', ')}.` : ''}`);
  };
  const eqns: { d: SymDim; value: number; name: string; spec: string }[] = [];
  for (const [x, path, spec] of args) {
    const shape = typeof x === 'object' && x !== null && 'shape' in x ? (x as { shape: readonly number[] }).shape : typeof x === 'number' || typeof x === 'boolean' ? [] : null;
    if (!shape) throw new TypeError(`${fn}(): ${path} must be an Array (jaxts/runtime's array()), got ${x === null ? 'null' : typeof x}`);
    const ds = parseSymbolicShape(spec);
    if (shape.length !== ds.length) fail(`Rank mismatch for ${path}: expected ${ds.length}, got ${shape.length} (shape (${shape.join(", ")}${shape.length === 1 ? "," : ""})).`);
    ds.forEach((d, i) => eqns.push({ d, value: shape[i]!, name: `${path}.shape[${i}]`, spec: dimText(d) }));
  }
  // solve the one-unknown equations until none is left, then check the rest
  for (let progress = true; progress; ) {
    progress = false;
    for (const e of eqns) {
      const unknown = e.d.terms.filter(([n]) => !env.has(n));
      if (unknown.length !== 1) continue;
      const [v, k] = unknown[0]!;
      const rest = e.value - e.d.c - e.d.terms.reduce((a, [n, m]) => a + (env.has(n) ? m * env.get(n)! : 0), 0);
      if (rest % k !== 0) fail(`Division had remainder ${((rest % k) + Math.abs(k)) % Math.abs(k)} when computing the value of '${v}'.`);
      const value = rest / k;
      solved.push(`'${v}' = ${value} from specification '${e.spec}' for dimension ${e.name} (= ${e.value})`);
      if (value < 1) fail(`Expected value >= 1 for dimension variable '${v}'.`);
      env.set(v, value);
      progress = true;
    }
  }
  for (const e of eqns) {
    if (e.d.terms.some(([n]) => !env.has(n))) fail(`Cannot solve for the dimension variables of '${e.spec}' (dimension ${e.name}).`);
    const want = e.d.terms.reduce((a, [n, k]) => a + k * env.get(n)!, e.d.c);
    if (want !== e.value) fail(`Found inconsistency between dimension size ${e.name} (= ${e.value}) and the specification '${e.spec}' (= ${want}).`);
  }
  return Object.fromEntries(env);
}

/**
 * A program of a shape-polymorphic export: made for each symbols' values on
 * first use and kept (the runtime keys its pipelines and buffer pools on the
 * program object).
 */
export function symbolic<T>(make: (d: Dims) => T): (d: Dims) => T {
  const made = new Map<string, T>();
  return (d) => {
    const key = Object.keys(d).sort().map((k) => `${k}=${d[k]}`).join(',');
    let p = made.get(key);
    if (p === undefined) made.set(key, (p = make(d)));
    return p;
  };
}
