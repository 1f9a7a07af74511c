// Python's difflib.ndiff for the one-line texts JAX compares in its pytree
// structure errors (the "diff in the metadata" of two nodes): difflib's
// SequenceMatcher over characters (spaces and tabs are junk, as
// IS_CHARACTER_JUNK says) and Differ's "pretty close" replacement with its
// `? ` guide lines.

type Block = [a: number, b: number, size: number];
type Opcode = ['replace' | 'delete' | 'insert' | 'equal', number, number, number, number];

const isJunk = (ch: string): boolean => ch === ' ' || ch === '\t';

/** difflib.SequenceMatcher(IS_CHARACTER_JUNK, a, b) for strings shorter than its autojunk limit (200). */
class Matcher {
  private b2j = new Map<string, number[]>();
  private junk = new Set<string>();
  constructor(
    private a: string,
    private b: string,
  ) {
    [...b].forEach((ch, j) => {
      const js = this.b2j.get(ch);
      if (js) js.push(j);
      else this.b2j.set(ch, [j]);
    });
    for (const ch of [...this.b2j.keys()]) {
      if (isJunk(ch)) {
        this.junk.add(ch);
        this.b2j.delete(ch);
      }
    }
  }

  private longest(alo: number, ahi: number, blo: number, bhi: number): Block {
    const { a, b } = this;
    let [bi, bj, bs] = [alo, blo, 0];
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bs) [bi, bj, bs] = [i - k + 1, j - k + 1, k];
      }
      j2len = next;
    }
    const junkAt = (j: number): boolean => this.junk.has(b[j]!);
    for (const wantJunk of [false, true]) {
      while (bi > alo && bj > blo && junkAt(bj - 1) === wantJunk && a[bi - 1] === b[bj - 1]) [bi, bj, bs] = [bi - 1, bj - 1, bs + 1];
      while (bi + bs < ahi && bj + bs < bhi && junkAt(bj + bs) === wantJunk && a[bi + bs] === b[bj + bs]) bs++;
    }
    return [bi, bj, bs];
  }

  matchingBlocks(): Block[] {
    const queue: [number, number, number, number][] = [[0, this.a.length, 0, this.b.length]];
    const blocks: Block[] = [];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const [i, j, k] = this.longest(alo, ahi, blo, bhi);
      if (k) {
        blocks.push([i, j, k]);
        if (alo < i && blo < j) queue.push([alo, i, blo, j]);
        if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
      }
    }
    blocks.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    const merged: Block[] = [];
    for (const blk of blocks) {
      const last = merged[merged.length - 1];
      if (last && last[0] + last[2] === blk[0] && last[1] + last[2] === blk[1]) last[2] += blk[2];
      else merged.push([...blk]);
    }
    merged.push([this.a.length, this.b.length, 0]);
    return merged;
  }

  opcodes(): Opcode[] {
    let [i, j] = [0, 0];
    const out: Opcode[] = [];
    for (const [ai, bj, size] of this.matchingBlocks()) {
      const tag = i < ai && j < bj ? 'replace' : i < ai ? 'delete' : j < bj ? 'insert' : null;
      if (tag) out.push([tag, i, ai, j, bj]);
      [i, j] = [ai + size, bj + size];
      if (size) out.push(['equal', ai, i, bj, j]);
    }
    return out;
  }

  ratio(): number {
    const matches = this.matchingBlocks().reduce((s, [, , n]) => s + n, 0);
    const total = this.a.length + this.b.length;
    return total ? (2 * matches) / total : 1;
  }
}

/** difflib.ndiff([a], [b]) of two one-line texts, as the list of lines it yields. */
export function ndiffLines(a: string, b: string): string[] {
  if (a === b) return [`  ${a}`];
  const m = new Matcher(a, b);
  if (m.ratio() < 0.75) return [`- ${a}`, `+ ${b}`];
  let atags = '';
  let btags = '';
  for (const [tag, i1, i2, j1, j2] of m.opcodes()) {
    const [la, lb] = [i2 - i1, j2 - j1];
    if (tag === 'replace') [atags, btags] = [atags + '^'.repeat(la), btags + '^'.repeat(lb)];
    else if (tag === 'delete') atags += '-'.repeat(la);
    else if (tag === 'insert') btags += '+'.repeat(lb);
    else [atags, btags] = [atags + ' '.repeat(la), btags + ' '.repeat(lb)];
  }
  // Differ._keep_original_ws: a tab under an unchanged character stays a tab
  const keepWs = (s: string, tags: string): string => [...tags].map((t, k) => (t === ' ' && isJunk(s[k] ?? '') ? s[k]! : t)).join('').trimEnd();
  const out = [`- ${a}`];
  const at = keepWs(a, atags);
  if (at) out.push(`? ${at}\n`);
  out.push(`+ ${b}`);
  const bt = keepWs(b, btags);
  if (bt) out.push(`? ${bt}\n`);
  return out;
}
