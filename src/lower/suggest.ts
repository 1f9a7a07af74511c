// "Did you mean" suggestions, computed as CPython 3.11 computes them for
// AttributeError and NameError (Python/suggestions.c): a Levenshtein
// distance where a move costs 2 and a case change 1, accepting a candidate
// when at most about a third of the characters change.
const MOVE_COST = 2;
const CASE_COST = 1;
const MAX_STRING_SIZE = 40;

function substitutionCost(a: string, b: string): number {
  if (a === b) return 0;
  return a.toLowerCase() === b.toLowerCase() ? CASE_COST : MOVE_COST;
}

function distance(a: string, b: string, maxCost: number): number {
  if (a.length > MAX_STRING_SIZE || b.length > MAX_STRING_SIZE) return maxCost + 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j * MOVE_COST);
  for (let i = 1; i <= a.length; i++) {
    const next = [i * MOVE_COST];
    let best = next[0]!;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(row[j]! + MOVE_COST, next[j - 1]! + MOVE_COST, row[j - 1]! + substitutionCost(a[i - 1]!, b[j - 1]!));
      next.push(v);
      best = Math.min(best, v);
    }
    if (best > maxCost) return maxCost + 1;
    row = next;
  }
  return row[b.length]!;
}

/** The candidate Python would suggest for the unknown `name`, or null. */
export function suggestName(name: string, candidates: Iterable<string>): string | null {
  let suggestion: string | null = null;
  let best = Number.MAX_SAFE_INTEGER;
  for (const item of candidates) {
    if (item === name) continue;
    const maxDistance = Math.min(Math.floor(((name.length + item.length + 3) * MOVE_COST) / 6), best - 1);
    const d = distance(name, item, maxDistance);
    if (d > maxDistance) continue;
    if (suggestion === null || d < best) {
      suggestion = item;
      best = d;
    }
  }
  return suggestion;
}

/**
 * For a name the real module has but jaxts does not support: a supported name that computes the
 * same thing in the cases it covers — the name without a `nan` prefix (nanmean → mean), or the
 * longer spelling of an abbreviation (concat → concatenate). A name that merely looks alike
 * (sort and sqrt) is no alternative, so there is then none.
 */
export function supportedAlternative(name: string, supported: Iterable<string>): string | null {
  const names = [...supported];
  if (name.startsWith('nan') && names.includes(name.slice(3))) return name.slice(3);
  const longer = names.filter((k) => name.length >= 3 && k.startsWith(name) && k.length > name.length).sort((a, b) => a.length - b.length);
  return longer[0] ?? null;
}
