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

const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');

/** The allowed key closest to `key`, if any is close enough to be a likely typo. */
export function suggestKey(key: string, allowed: readonly string[]): string | null {
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

/**
 * The command closest to a mistyped one, its words joined by spaces (`cluster stats` ->
 * `cluster status`). Each word is held to suggestKey's rule on its own, so a topic's subcommand
 * is as close as a top-level command must be: the topic's name does not make `cluster bogus`
 * close to `cluster status`. The same words run together (`cluster-status`) also match.
 */
export function suggestCommand(typed: string, commands: readonly string[]): string | null {
  const same = commands.find((command) => squash(command) === squash(typed));
  if (same !== undefined) return same;
  const words = typed.split(' ');
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const command of commands) {
    const parts = command.split(' ');
    if (parts.length !== words.length) continue;
    if (!parts.every((part, i) => part === words[i] || suggestKey(words[i]!, [part]) !== null)) continue;
    const distance = editDistance(typed.toLowerCase(), command.toLowerCase());
    if (distance < bestDistance) {
      best = command;
      bestDistance = distance;
    }
  }
  return best;
}
