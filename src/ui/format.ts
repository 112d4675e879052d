/**
 * Small pure formatters shared by the plain-text renderers and the ink view: durations, relative
 * ages, clock times, cpu and memory. `now` is always a parameter so output is testable.
 */
import { invalid } from '../model/errors.js';
import { formatBytes } from '../model/resources.js';

/** `850ms`, `12s`, `4m05s`, `2h03m`, `3d04h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** Age of a timestamp relative to now: `5s`, `3m05s`, … ; `-` when unknown. */
export function formatAge(time: number | null | undefined, now: number): string {
  if (time === null || time === undefined) return '-';
  return formatDuration(Math.max(0, now - time));
}

/** Duration between two instants; a still-running span is measured to now. */
export function formatSpan(start: number | null, end: number | null, now: number): string {
  if (start === null) return '-';
  return formatDuration((end ?? now) - start);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local wall-clock time `HH:MM:SS.mmm`. */
export function formatClock(time: number): string {
  const d = new Date(time);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function formatCores(millis: number): string {
  const cores = millis / 1000;
  return Number.isInteger(cores) ? String(cores) : cores.toFixed(3).replace(/0+$/, '');
}

export function formatMemory(bytes: number): string {
  return formatBytes(bytes);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `1h30m`, `2d` -> milliseconds. */
export function parseDurationMs(input: string): number {
  const text = input.trim();
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const joined = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || joined !== text) {
    throw invalid(`invalid duration "${input}"`, 'use a duration such as 30s, 10m, 1h30m or 2d');
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

/** `--since` value: a duration ago (`10m`) or an ISO date/time (`2025-01-02T10:00:00Z`) -> epoch ms. */
export function parseSince(input: string, now: number): number {
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d)/.test(input.trim())) return now - parseDurationMs(input);
  const time = Date.parse(input);
  if (Number.isNaN(time)) {
    throw invalid(`invalid --since "${input}"`, 'use a duration such as 10m or 1h, or an ISO time such as 2025-01-02T10:00:00Z');
  }
  return time;
}
