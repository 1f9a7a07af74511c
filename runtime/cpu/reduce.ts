// Sums for the CPU backend's kernels that follow the accumulation order of
// XLA CPU's library reduction (YNNPACK, which JAX's CPU build uses for every
// float32 sum whose operand has 4096 or more elements), found by probing real
// JAX 0.10.2 (fixtures/reference/reduction_order_wide.py checks it bit for bit). A whole array, and
// each row of a sum over the last axes (of any length), adds as wideSum32:
// - 16 lanes; lane j takes the elements ≡ j (mod 16).
// - A block of 64 elements gives each lane the in-order sum of its 4 values;
//   inside a chunk of 1024 elements the blocks go in fours (256 elements): the
//   4 block sums are added in order, that sum added to the chunk's lane; the
//   blocks of a last partial 256 go to the chunk's lane one by one (a partial
//   block counts its missing elements as zeros).
// - The chunks of a group of 32768 elements are added into each lane with
//   Kahan's compensated summation; the 16 lanes are then folded pairwise (the
//   second half onto the first: 16 → 8 → 4 → 2 → 1).
// - The groups' sums are folded pairwise, the second half onto the first, as over a power-of-two
//   count of groups (the missing ones count as zeros). Checked bit for bit on random inputs of
//   4096 to 1,000,000 elements; above 2^20 real JAX splits the work further in a way not yet
//   modelled (this fold agrees with it on some inputs only).
// A float32 sum over leading or middle axes of an operand of 4096+ elements (k columns: the elements
// after the reduced axes) goes to the library too, which adds each column on its own (columnSum32):
// - rows in blocks of 4 added in order; 4 blocks (16 rows) added in order; 16 of those (256 rows)
//   added in order: a chunk;
// - the chunks of a group of ⌊32768 / k⌋ rows added with Kahan's compensated summation;
// - the groups added in order in fours, those sums added in order.
// Found by probing JAX 0.10.2 (each column's summation tree, with a ±2^40 pair among ones), checked
// bit for bit on random inputs of up to 2^20 elements (k from 2 to 5,000); beyond that JAX splits the
// groups further in a way not yet modelled.

let scratch = new Float32Array(0);

/** A reused float32 array of at least `n` elements (its contents are garbage). */
export function f32Scratch(n: number): Float32Array {
  if (scratch.length < n) scratch = new Float32Array(Math.max(n, scratch.length * 2));
  return scratch;
}

const LANES = 16;
const BLOCK = 64;
const QUAD = 256;
const CHUNK = 1024;
const GROUP = 32768;

const f = Math.fround;
const sum = new Float32Array(LANES);
const comp = new Float32Array(LANES);
const chunk = new Float32Array(LANES);
const quad = new Float32Array(LANES);

/** Lane j's in-order sum of block x[at..at+64) (elements at or past `end` count as zeros). */
function blockLane(x: Float32Array, at: number, end: number, j: number): number {
  let b = 0;
  for (let r = 0; r < BLOCK; r += LANES) {
    const i = at + r + j;
    b = f(b + (i < end ? x[i]! : 0));
  }
  return b;
}

/** The float32 sum of x[lo..hi) (at most one group) in YNNPACK's order. */
function groupSum(x: Float32Array, lo: number, hi: number): number {
  sum.fill(0);
  comp.fill(0);
  for (let c = lo; c < hi; c += CHUNK) {
    const end = Math.min(hi, c + CHUNK);
    chunk.fill(0);
    let i = c;
    for (; i + QUAD <= end; i += QUAD) {
      quad.fill(0);
      for (let b = 0; b < QUAD; b += BLOCK) {
        for (let j = 0; j < LANES; j++) quad[j] = f(quad[j]! + blockLane(x, i + b, end, j));
      }
      for (let j = 0; j < LANES; j++) chunk[j] = f(chunk[j]! + quad[j]!);
    }
    for (; i < end; i += BLOCK) {
      for (let j = 0; j < LANES; j++) chunk[j] = f(chunk[j]! + blockLane(x, i, end, j));
    }
    // Kahan: y = part − c; t = s + y; c = (t − s) − y; s = t
    for (let j = 0; j < LANES; j++) {
      const y = f(chunk[j]! - comp[j]!);
      const t = f(sum[j]! + y);
      comp[j] = f(f(t - sum[j]!) - y);
      sum[j] = t;
    }
  }
  for (let m = LANES; m > 1; m /= 2) {
    const h = m / 2;
    for (let j = 0; j < h; j++) sum[j] = f(sum[j]! + sum[j + h]!);
  }
  return sum[0]!;
}

/** The float32 sum of x[0..n) in YNNPACK's order (x is left as it was). */
export function wideSum32(x: Float32Array, n: number): number {
  const groups: number[] = [];
  for (let g = 0; g < n; g += GROUP) groups.push(groupSum(x, g, Math.min(n, g + GROUP)));
  // fold pairwise as over a power-of-two count of groups (the missing ones count as zeros)
  for (let h = 2 ** Math.ceil(Math.log2(Math.max(groups.length, 1))) / 2; h >= 1; h /= 2) {
    for (let i = 0; i < h && i + h < groups.length; i++) groups[i] = f(groups[i]! + groups[i + h]!);
  }
  return groups[0] ?? 0;
}

/** The float32 sum of a 4-row block, 16-row group, 256-row chunk of column x[lo..hi) (in order, each from 0). */
function columnChunk(x: Float32Array, lo: number, hi: number): number {
  let chunk = 0;
  for (let g = lo; g < hi; g += 16) {
    let sixteen = 0;
    for (let b = g; b < Math.min(hi, g + 16); b += 4) {
      let block = 0;
      for (let i = b; i < Math.min(hi, b + 4); i++) block = f(block + x[i]!);
      sixteen = f(sixteen + block);
    }
    chunk = f(chunk + sixteen);
  }
  return chunk;
}

/**
 * The float32 sum of x[0..n), one column of a k-column sum over leading axes, in YNNPACK's order (see
 * above): 256-row chunks, Kahan over a group of ⌊32768 / k⌋ rows, groups added in fours.
 */
export function columnSum32(x: Float32Array, n: number, k: number): number {
  const rows = Math.max(1, Math.floor(GROUP / k));
  let total = 0;
  let four = 0;
  for (let g = 0, index = 0; g < n; g += rows, index++) {
    const end = Math.min(n, g + rows);
    let s = 0;
    let c = 0;
    for (let at = g; at < end; at += 256) {
      const y = f(columnChunk(x, at, Math.min(end, at + 256)) - c);
      const t = f(s + y);
      c = f(f(t - s) - y);
      s = t;
    }
    four = index % 4 === 0 ? f(0 + s) : f(four + s);
    if (index % 4 === 3 || end === n) total = f(total + four);
  }
  return total;
}
