/**
 * "Did you mean …?": the allowed name closest to a mistyped one. Pure, and free of the schema
 * library, so that the client's light paths (`iris jobs`, `iris queue`) may use it.
 */

/** Edits between `a` and `b`: insertions, deletions, substitutions and swaps of two neighbours (`bathc`: 1). */
function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/** The allowed key closest to `key`, if any is close enough to be a likely typo. */
export function suggestKey(key: string, allowed: readonly string[]): string | null {
  const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    if (squash(candidate) === squash(key)) return candidate;
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === null) return null;
  return bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}
