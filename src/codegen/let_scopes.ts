// The statement list the kernel walker (kernel_walker.ts) builds: one `let` per distinct
// subexpression (CSE by structural key), with nested scopes for reduction
// loops so that values depending on a loop counter stay inside the loop.
//
// Loop-invariant code motion: every name has a level (the loop depth where it
// is defined: gid, the device index and the inputs at 0, a loop counter r<id>
// at its loop's body level, an accumulator acc<id> at the level of the scope
// enclosing its loop, a temporary at the level it was placed at). A `let` is
// placed at the outermost level where every name it reads is defined: at the
// current depth it is appended; at an outer level L it goes just before the
// header of the open loop nested under L (the slot in front of that loop).
// A whole reduction loop may be placed at an outer level the same way.
//
// A lookup only sees the scopes currently open along the stack (a hoisted
// loop's body sees the levels up to the one it was placed at, then itself),
// so a name from a closed sibling scope is never returned.

import type { KExpr } from '../ir/kernel.js';
import { freeRvars } from '../ir/kernel.js';

/** Emitted text: a line, or a nested list (a loop body, or a hoisting slot). */
type Item = string | Item[];

interface Scope {
  /** CSE key → name of the value, for values living at this level. */
  readonly map: Map<string, string>;
  /** Where lines emitted at this level go. */
  readonly items: Item[];
  /** For a loop body: the slot just before the loop's header, in the enclosing level. */
  readonly slot?: Item[];
}

/** Names whose level the scopes track: temporaries, loop counters, accumulators. */
const NAME_RE = /\b(?:t|r|acc)\d+\b/g;

export class LetScopes {
  private readonly root: Item[] = [];
  private stack: Scope[] = [{ map: new Map(), items: this.root }];
  private readonly levels = new Map<string, number>();
  private tmp = 0;

  constructor(
    private readonly baseIndent: string,
    /** The declaration statement of a temporary, e.g. `let t0: f32 = x;`. */
    private readonly declare: (name: string, text: string) => string,
  ) {}

  /** The emitted statements, indented, in order. */
  get lines(): string[] {
    const out: string[] = [];
    const walk = (items: Item[]): void => {
      for (const it of items) {
        if (typeof it === 'string') out.push(it);
        else walk(it);
      }
    };
    walk(this.root);
    return out;
  }

  /** The current loop depth (0: directly in the kernel body). */
  get depth(): number {
    return this.stack.length - 1;
  }

  lookup(key: string): string | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const v = this.stack[i]!.map.get(key);
      if (v) return v;
    }
    return undefined;
  }

  /** Level where `name` is defined; an unknown tracked name counts as the current depth. */
  levelOfName(name: string): number {
    const l = this.levels.get(name);
    return l === undefined || l > this.depth ? this.depth : l;
  }

  /** The level of the innermost open arm of an `ifElse`: no reduction inside it is hoisted above it. */
  floor = 0;

  /** The outermost level where every tracked name `text` reads is defined. */
  levelOf(text: string): number {
    let level = 0;
    for (const m of text.matchAll(NAME_RE)) level = Math.max(level, this.levelOfName(m[0]));
    return level;
  }

  /** Declare a temporary holding `text` and remember it under `key`, at the outermost level it can live. */
  bind(key: string, text: string): string {
    const name = `t${this.tmp++}`;
    const level = this.levelOf(text);
    this.place(level, `${this.indentAt(level)}${this.declare(name, text)}`);
    this.levels.set(name, level);
    this.stack[level]!.map.set(key, name);
    return name;
  }

  /** Remember an existing variable (a reduction accumulator) under `key`, at the variable's level. */
  alias(key: string, name: string): void {
    this.stack[this.levelOfName(name)]!.map.set(key, name);
  }

  /** A statement at the current depth. */
  line(text: string): void {
    this.stack[this.depth]!.items.push(`${this.indentAt(this.depth)}${text}`);
  }

  /**
   * A loop placed at `level` (≤ depth): the `header` lines (e.g. the
   * accumulator's declaration and the `for`), then the lines `body` emits one
   * level deeper in a scope of their own, then `footer`. `outer` names (the
   * accumulator) are defined at `level`, `inner` names (the counter) in the body.
   */
  loop<T>(level: number, header: string[], body: () => T, names: { outer?: string[]; inner?: string[] } = {}, footer = '}'): T {
    if (level > this.depth || level < 0) throw new Error(`internal: loop at level ${level} from depth ${this.depth}`);
    const indent = this.indentAt(level);
    const slot: Item[] = [];
    const items: Item[] = [];
    this.container(level).push(slot, ...header.map((h) => `${indent}${h}`), items, `${indent}${footer}`);
    for (const n of names.outer ?? []) this.levels.set(n, level);
    for (const n of names.inner ?? []) this.levels.set(n, level + 1);
    const saved = this.stack.splice(level + 1);
    this.stack.push({ map: new Map(), items, slot });
    try {
      return body();
    } finally {
      this.stack.length = level + 1;
      this.stack.push(...saved);
    }
  }

  /**
   * A mutable temporary declared at the current depth by `declare` (given its
   * name), for a value that branches assign.
   */
  mutable(declare: (name: string) => string): string {
    const name = `t${this.tmp++}`;
    this.line(declare(name));
    this.levels.set(name, this.depth);
    return name;
  }

  /**
   * `if (cond) { … } else { … }` at the current depth: each arm's lines in a
   * block of its own, seen by nothing after it. A reduction inside stays in
   * its arm (so the arm not taken runs no loop); other values an arm computes
   * from names outside are hoisted in front of the `if` as usual.
   */
  ifElse(cond: string, arms: readonly [() => void, () => void]): void {
    const indent = this.indentAt(this.depth);
    const slot: Item[] = [];
    const bodies: Item[][] = [[], []];
    this.stack[this.depth]!.items.push(slot, `${indent}if (${cond}) {`, bodies[0]!, `${indent}} else {`, bodies[1]!, `${indent}}`);
    const floor = this.floor;
    this.floor = this.depth + 1;
    try {
      arms.forEach((arm, i) => {
        this.stack.push({ map: new Map(), items: bodies[i]!, slot });
        try {
          arm();
        } finally {
          this.stack.pop();
        }
      });
    } finally {
      this.floor = floor;
    }
  }

  private indentAt(level: number): string {
    return this.baseIndent + '  '.repeat(level);
  }

  /** Where an item placed at `level` goes: appended at the current depth, else in the slot before the open loop nested under `level`. */
  private container(level: number): Item[] {
    return level === this.depth ? this.stack[level]!.items : this.stack[level + 1]!.slot!;
  }

  private place(level: number, line: string): void {
    this.container(level).push(line);
  }
}

/** The outermost level where a reduction's loop can go: that of the innermost enclosing loop whose counter its body reads. */
export function reduceLevel(lets: LetScopes, e: Extract<KExpr, { op: 'reduce' }>): number {
  let level = lets.floor;
  for (const id of freeRvars(e)) level = Math.max(level, lets.levelOfName(`r${id}`));
  return level;
}
