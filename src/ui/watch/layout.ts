/**
 * The frame of the live `iris watch` view, fitted to the terminal: pure text, no ink.
 *
 * Guarantees:
 * - `fitFrame` returns at most `rows - 1` lines (3 on a terminal of fewer than 4 rows: title,
 *   one body line, footer): ink then redraws the frame in place instead of clearing the screen,
 *   so the terminal's scrollback does not grow while the view runs. The last row stays free for
 *   the cursor.
 * - The title, the summary line and the footer (with the keys, `q` first) are always on screen;
 *   only the body between them scrolls, and the offset is clamped to what the body holds.
 * - In the body, job trees that still have an unfinished job come first (as the `iris jobs`
 *   tree); trees whose jobs all ended are collapsed into one count line. Workers and the tasks
 *   running on them follow.
 * Lines are not cut to the width here: the view truncates each one at the terminal's width.
 */
import type { JobSummary } from '../../api/types.js';
import { isFinalJobState } from '../../model/states.js';
import { renderWorkers } from '../cluster.js';
import { formatInstant } from '../format.js';
import { renderJobsTree } from '../jobs-tree.js';
import { renderWorkerTasks, summaryLine, type WatchSnapshot } from './snapshot.js';

export interface FitOptions {
  /** Terminal rows. */
  rows: number;
  /** First body line shown (clamped). */
  offset: number;
  /** A problem to show under the summary (a failed refresh). */
  error?: string | null;
}

export interface Frame {
  lines: string[];
  /** The offset actually used (clamped to 0..maxOffset). */
  offset: number;
  maxOffset: number;
  /** Body lines visible at once: the page size of PgUp/PgDn. */
  bodyRows: number;
}

export const QUIT_HINT = 'q or Ctrl-C quit';
const SCROLL_HINT = '↑↓ j k PgUp PgDn scroll';

/** Root of a job path: `/a/b/c` → `/a`. */
function rootOf(name: string): string {
  const cut = name.indexOf('/', 1);
  return cut < 0 ? name : name.slice(0, cut);
}

/** Splits jobs into trees with an unfinished job (active) and trees that have all ended. */
export function splitActive(jobs: readonly JobSummary[]): { active: JobSummary[]; finished: JobSummary[] } {
  const live = new Set<string>();
  for (const job of jobs) if (!isFinalJobState(job.state)) live.add(rootOf(job.name));
  const active: JobSummary[] = [];
  const finished: JobSummary[] = [];
  for (const job of jobs) (live.has(rootOf(job.name)) ? active : finished).push(job);
  return { active, finished };
}

/** `12 finished jobs: 10 succeeded, 2 failed (iris jobs lists them)`. */
export function finishedLine(finished: readonly JobSummary[]): string {
  const byState = new Map<string, number>();
  for (const job of finished) byState.set(job.state, (byState.get(job.state) ?? 0) + 1);
  const states = [...byState.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([state, n]) => `${n} ${state.toLowerCase()}`);
  const noun = finished.length === 1 ? 'job' : 'jobs';
  return `${finished.length} finished ${noun}: ${states.join(', ')} (\`iris jobs\` lists them)`;
}

/** Every scrollable line of the view. */
export function bodyLines(snapshot: WatchSnapshot): string[] {
  const { active, finished } = splitActive(snapshot.jobs);
  const lines: string[] = [];
  if (active.length > 0) lines.push(...renderJobsTree(active, snapshot.time).split('\n'));
  else lines.push(snapshot.jobs.length === 0 ? 'no jobs' : 'no active jobs');
  if (finished.length > 0) lines.push(finishedLine(finished));
  lines.push('', 'Workers', ...renderWorkers(snapshot.workers).split('\n'));
  const tasks = renderWorkerTasks(snapshot.workers);
  if (tasks) lines.push('', 'Running tasks', ...tasks.split('\n'));
  return lines;
}

/** The frame for a terminal of `rows` rows, scrolled to `offset`. */
export function fitFrame(snapshot: WatchSnapshot, options: FitOptions): Frame {
  const top = [`iris watch · ${formatInstant(snapshot.time, snapshot.time)}`, summaryLine(snapshot)];
  if (options.error) top.push(`error: ${options.error}`);
  const body = bodyLines(snapshot);
  const budget = Math.max(3, options.rows - 1);
  const fixed = top.slice(0, Math.max(1, budget - 2));
  const bodyRows = Math.max(1, budget - fixed.length - 1);
  const maxOffset = Math.max(0, body.length - bodyRows);
  const offset = Math.min(Math.max(0, Math.floor(options.offset)), maxOffset);
  const shown = body.slice(offset, offset + bodyRows);
  const position = maxOffset > 0 ? ` · lines ${offset + 1}-${offset + shown.length} of ${body.length}` : '';
  const footer = `${QUIT_HINT} · ${SCROLL_HINT}${position}`;
  return { lines: [...fixed, ...shown, footer], offset, maxOffset, bodyRows };
}
