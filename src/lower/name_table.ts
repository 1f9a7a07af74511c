// The generated TypeScript's names taken so far (variables and program names),
// with an undo log: a checkpoint is the log's length, and a rollback (a failed
// attempt at lowering a host loop) undoes the changes made since, so that
// neither costs more than the names made in between (copying the sets at each
// checkpoint made a long unrolled loop quadratic).

type Change = { k: 'name'; name: string } | { k: 'program'; name: string } | { k: 'suffix'; base: string; prev: number | undefined };

export class NameTable {
  private readonly names = new Set<string>();
  private readonly programNames = new Set<string>();
  /** Per fresh-name base: the next suffix to try (every smaller one is taken). */
  private readonly nextSuffix = new Map<string, number>();
  private readonly log: Change[] = [];

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Takes `name` (no-op where it is taken). */
  add(name: string): void {
    if (this.names.has(name)) return;
    this.names.add(name);
    this.log.push({ k: 'name', name });
  }

  /** `base`, or the first `base_i` not taken; takes it. */
  fresh(base: string): string {
    if (!this.names.has(base)) {
      this.add(base);
      return base;
    }
    // resume after the suffixes known to be taken (base_1 … base_{k-1}): a scan from 1 each time made
    // thousands of values with one hint (an unrolled loop) quadratic
    let i = this.nextSuffix.get(base) ?? 1;
    let name = `${base}_${i}`;
    while (this.names.has(name)) name = `${base}_${++i}`;
    this.log.push({ k: 'suffix', base, prev: this.nextSuffix.get(base) });
    this.nextSuffix.set(base, i + 1);
    this.add(name);
    return name;
  }

  /** `base`, or the first `base_i` that is neither a program's name nor another name; takes it for a program. */
  freshProgram(base: string): string {
    let name = base;
    for (let i = 1; this.programNames.has(name) || this.names.has(name); i++) name = `${base}_${i}`;
    this.programNames.add(name);
    this.log.push({ k: 'program', name });
    this.add(name);
    return name;
  }

  mark(): number {
    return this.log.length;
  }

  /** Undoes every change made since `mark`. */
  rollback(mark: number): void {
    while (this.log.length > mark) {
      const c = this.log.pop()!;
      if (c.k === 'name') this.names.delete(c.name);
      else if (c.k === 'program') this.programNames.delete(c.name);
      else if (c.prev === undefined) this.nextSuffix.delete(c.base);
      else this.nextSuffix.set(c.base, c.prev);
    }
  }
}
