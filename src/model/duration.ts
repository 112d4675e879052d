/**
 * Durations as users write them: `90s`, `10m`, `1h30m`, `2d`, `500ms`, `1.5h`, or a bare number
 * of seconds (`45`). Units: ms, s, m, h, d (case-insensitive), combined largest first.
 */
import { IrisError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ORDER = ['d', 'h', 'm', 's', 'ms'];
const PART = /(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)/gy;
const HINT = 'use a number of seconds (45) or units such as 500ms, 90s, 10m, 1h30m or 2d';

function bad(input: unknown, why?: string): IrisError {
  const shown = typeof input === 'string' ? `"${input}"` : String(input);
  return new IrisError('invalid_argument', `invalid duration ${shown}${why ? `: ${why}` : ''}`, HINT);
}

/** Parse a duration into milliseconds (rounded). Throws IrisError('invalid_argument'). */
export function parseDuration(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw bad(input, 'must be a non-negative number of seconds');
    return Math.round(input * 1000);
  }
  if (typeof input !== 'string') throw bad(input, 'expected a string');
  const text = input.trim().toLowerCase();
  if (text === '') throw bad(input, 'empty');
  if (/^(\d+(?:\.\d+)?|\.\d+)$/.test(text)) return Math.round(Number(text) * 1000);
  let total = 0;
  let pos = 0;
  let lastRank = -1;
  PART.lastIndex = 0;
  while (pos < text.length) {
    PART.lastIndex = pos;
    const match = PART.exec(text);
    if (!match) throw bad(input);
    const unit = match[2]!;
    const rank = ORDER.indexOf(unit);
    if (rank <= lastRank) throw bad(input, 'units must go from largest to smallest, each at most once');
    lastRank = rank;
    total += Number(match[1]) * UNIT_MS[unit]!;
    pos = PART.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  if (!Number.isFinite(total)) throw bad(input, 'too large');
  return Math.round(total);
}

/** Format milliseconds compactly, largest unit first: `500ms`, `45s`, `1h30m`, `2d3h`, `1m500ms`, `0s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return '-' + formatDuration(-ms);
  let rest = Math.round(ms);
  if (rest === 0) return '0s';
  const parts: string[] = [];
  for (const unit of ORDER) {
    const size = UNIT_MS[unit]!;
    const count = Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count}${unit}`);
      rest -= count * size;
    }
  }
  return parts.join('');
}
