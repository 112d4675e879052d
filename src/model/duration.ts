/**
 * Durations: the one parser and the one formatter of iris (config keys, workload files, submit
 * flags and API fields parse with it; every renderer formats with it).
 * Written as `90s`, `10m`, `1h30m`, `2d`, `500ms`, `1.5h`, or a bare number of seconds (`45`).
 * Units: ms, s, m, h, d (case-insensitive), combined largest first, each at most once.
 * `formatDuration(ms)` (style `exact`) round-trips through `parseDuration`.
 */
import { IrisError, describeValue } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ORDER = ['d', 'h', 'm', 's', 'ms'];
const PART = /(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)/gy;
const HINT = 'use a number of seconds (45) or units such as 500ms, 90s, 10m, 1h30m or 2d';

export interface ParseDurationOptions {
  /** The noun of error messages: `invalid duration "x"` (default) or e.g. `invalid time "x"`. */
  what?: string;
}

function bad(input: unknown, what: string, why?: string): IrisError {
  return new IrisError('invalid_argument', `invalid ${what} ${describeValue(input)}${why ? `: ${why}` : ''}`, HINT);
}

/** Parse a duration into milliseconds (rounded). Throws IrisError('invalid_argument'). */
export function parseDuration(input: string | number, options: ParseDurationOptions = {}): number {
  const what = options.what ?? 'duration';
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw bad(input, what, 'must not be negative');
    return Math.round(input * 1000);
  }
  if (typeof input !== 'string') throw bad(input, what, 'expected a string such as 10s');
  const text = input.trim().toLowerCase();
  if (text === '') throw bad(input, what, 'empty');
  if (/^(\d+(?:\.\d+)?|\.\d+)$/.test(text)) return Math.round(Number(text) * 1000);
  let total = 0;
  let pos = 0;
  let lastRank = -1;
  while (pos < text.length) {
    PART.lastIndex = pos;
    const match = PART.exec(text);
    if (!match) throw bad(input, what);
    const unit = match[2]!;
    const rank = ORDER.indexOf(unit);
    if (rank <= lastRank) throw bad(input, what, 'units must go from largest to smallest, each at most once');
    lastRank = rank;
    total += Number(match[1]) * UNIT_MS[unit]!;
    pos = PART.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  if (!Number.isFinite(total)) throw bad(input, what, 'too large');
  return Math.round(total);
}

/**
 * How a duration is printed:
 * - `exact` (default): every unit, largest first, round-trips: `500ms`, `45s`, `1h30m`, `2d3h`,
 *   `1m500ms`, `0s`, `-1m30s`;
 * - `short`: at most the two largest units, for tables and ages; minutes and seconds as the
 *   second unit are padded to two digits: `850ms`, `12s`, `4m05s`, `2h03m`, `3d4h`; `-` for a
 *   negative or unknown span.
 */
export type DurationStyle = 'exact' | 'short';

export interface FormatDurationOptions {
  style?: DurationStyle;
}

function short(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  // Hours after days are not padded (`1d2h`), and whole days stand alone (`1d`).
  return h % 24 === 0 ? `${h / 24}d` : `${Math.floor(h / 24)}d${h % 24}h`;
}

function exact(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return '-' + exact(-ms);
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

/** Format milliseconds in the given style (see DurationStyle). */
export function formatDuration(ms: number, options: FormatDurationOptions = {}): string {
  return options.style === 'short' ? short(ms) : exact(ms);
}
