/**
 * How the page writes numbers, instants, durations and states. Pure (the clock is an input).
 * Every state is written as text; its colour class (stateClass) only repeats what the text says,
 * from a colour-blind-safe palette (styles.css, Okabe–Ito).
 */
import type { JobSummary } from '../api/types.js';
import { formatDuration } from '../model/duration.js';
import { renderInstants } from '../model/reason-instants.js';

/** `3s`, `4m10s`, `2h5m`, `3d4h`: a short duration in whole seconds; `-` for null. */
export function formatAge(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '-';
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  return seconds === 0 ? '0s' : formatDuration(seconds * 1000, { style: 'short' });
}

/** `1.5 GiB`, `512 MiB`, `800 B`; `-` for null. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits).replace(/\.0+$|(\.\d*?)0+$/, '$1')} ${units[unit]}`;
}

/** A number with at most `digits` decimals, trailing zeros dropped; `-` for null. */
export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value == null || !Number.isFinite(value)) return '-';
  return String(Number(value.toFixed(digits)));
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local time: `14:03:07` on the day of `now`, `2026-11-29 14:03` before; `-` for null. */
export function formatTime(t: number | null | undefined, now: number): string {
  if (t == null || !Number.isFinite(t)) return '-';
  const d = new Date(t);
  const today = new Date(now);
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (d.toDateString() === today.toDateString()) return clock;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock.slice(0, 5)}`;
}

/**
 * A plot's x axis labels (uPlot's splits and their step are in epoch seconds): `HH:MM`, 24 hours, as
 * the rest of the page; `HH:MM:SS` when the ticks are less than a minute apart (a young cluster's few samples).
 */
export const axisTimes = (splits: readonly number[], step = 60): string[] =>
  splits.map((t) => formatTime(t * 1000, t * 1000).slice(0, step < 60 ? 8 : 5));

/** A plot legend's time (epoch seconds): formatTime's; `--` where the cursor is on no sample. */
export const legendTime = (t: number | null | undefined, now: number): string =>
  t == null ? '--' : formatTime(t * 1000, now);

/** A log line's time: `14:03:07.123`. */
export function formatLogTime(t: number): string {
  const d = new Date(t);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A reason the cluster wrote, its `<t:N>` instants in local time; '' for null. */
export function formatReason(reason: string | null | undefined, now: number): string {
  if (!reason) return '';
  return renderInstants(reason, (t) => formatTime(t, now));
}

/** The colour family of a job, task, attempt or worker state (the text always says the state). */
export type StateClass = 'running' | 'pending' | 'ok' | 'failed' | 'stopped' | 'other';

const CLASSES: Record<string, StateClass> = {
  RUNNING: 'running',
  ASSIGNED: 'running',
  PENDING: 'pending',
  SUCCEEDED: 'ok',
  READY: 'ok',
  FAILED: 'failed',
  TIMEOUT: 'failed',
  OUT_OF_MEMORY: 'failed',
  WORKER_FAILED: 'failed',
  COSCHED_FAILED: 'failed',
  UNSCHEDULABLE: 'failed',
  KILLED: 'stopped',
  CANCELLED: 'stopped',
  PREEMPTED: 'stopped',
  DISABLED: 'stopped',
  DRAINING: 'pending',
  DRAINED: 'stopped',
};

export const stateClass = (state: string): StateClass => CLASSES[state] ?? 'other';

/** A job's tasks as the jobs table counts them: running (and assigned), pending, and ended. */
export function taskCounts(job: Pick<JobSummary, 'tasks'>): { running: number; pending: number; done: number } {
  const by = job.tasks.byState;
  const running = (by.RUNNING ?? 0) + (by.ASSIGNED ?? 0);
  const pending = by.PENDING ?? 0;
  return { running, pending, done: Math.max(0, job.tasks.total - running - pending) };
}
