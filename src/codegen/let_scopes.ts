// The statement list a kernel renderer builds: one `let` per distinct
// subexpression (CSE by structural key), with nested scopes for reduction
// loops so that values depending on a loop counter stay inside the loop.
export class LetScopes {
  readonly lines: string[] = [];
  private scopes: Map<string, string>[] = [new Map()];
  private tmp = 0;

  constructor(
    public indent: string,
    /** The declaration statement of a temporary, e.g. `let t0: f32 = x;`. */
    private readonly declare: (name: string, text: string) => string,
  ) {}

  lookup(key: string): string | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(key);
      if (v) return v;
    }
    return undefined;
  }

  /** Declare a temporary holding `text` and remember it under `key`. */
  bind(key: string, text: string): string {
    const name = `t${this.tmp++}`;
    this.lines.push(`${this.indent}${this.declare(name, text)}`);
    this.scopes[this.scopes.length - 1]!.set(key, name);
    return name;
  }

  /** Remember an existing variable (a reduction accumulator) under `key`. */
  alias(key: string, name: string): void {
    this.scopes[this.scopes.length - 1]!.set(key, name);
  }

  line(text: string): void {
    this.lines.push(`${this.indent}${text}`);
  }

  /** Lines emitted by `body` go one level deeper, in a scope of their own. */
  nested<T>(body: () => T): T {
    const outer = this.indent;
    this.indent += '  ';
    this.scopes.push(new Map());
    try {
      return body();
    } finally {
      this.scopes.pop();
      this.indent = outer;
    }
  }
}
