// Text that may be only partly known at compile time: static pieces and host
// expressions (a formatted array, a loop index). Printing builds one of these.
import type { HExpr } from '../ir/host.js';

export type TextPart = string | HExpr;

export class Text {
  constructor(readonly parts: TextPart[]) {}

  static of(s: string): Text {
    return new Text([s]);
  }

  static join(items: Text[], sep: string): Text {
    const parts: TextPart[] = [];
    items.forEach((t, i) => {
      if (i) parts.push(sep);
      // not push(...t.parts): a text of many parts (a long list's repr) would overflow the call's arguments
      for (const p of t.parts) parts.push(p);
    });
    return new Text(parts);
  }

  concat(...others: (Text | string)[]): Text {
    return new Text([...this.parts, ...others.flatMap((o) => (typeof o === 'string' ? [o] : o.parts))]);
  }

  /** The whole text when it is static. */
  get static(): string | null {
    return this.parts.every((p) => typeof p === 'string') ? (this.parts as string[]).join('') : null;
  }

  /** As one host expression: adjacent static parts merged. */
  toExpr(): HExpr {
    const merged: HExpr[] = [];
    let buf = '';
    for (const p of this.parts) {
      if (typeof p === 'string') buf += p;
      else {
        if (buf) merged.push({ k: 'lit', value: buf });
        buf = '';
        merged.push(p);
      }
    }
    if (buf || !merged.length) merged.push({ k: 'lit', value: buf });
    return merged.length === 1 ? merged[0]! : { k: 'concat', parts: merged };
  }
}
