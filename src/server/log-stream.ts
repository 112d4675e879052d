/**
 * Reads and follows the per-attempt log files of a task, or of a job and all its descendants,
 * as LogBatch items (docs/api.md).
 *
 * Guarantees:
 * - lines of all the target's attempts come merged by time within each read (src/logs/merge.ts);
 *   `tail` is answered by scanning each file backward from its end (the merged last N lines are
 *   among each file's last N), `since` skips older lines without building them;
 * - bounded memory per request: per attempt file one block and its decoding scratch (MAX_BLOCK
 *   = 64 KiB each, smaller when there are many files: READ_BUDGET / files, at least MIN_BLOCK =
 *   16 KiB), plus two batches (MAX_BATCH_TEXT characters: the one on the wire, the next one).
 *   The cap is about 2 x READ_BUDGET = 16 MiB up to 512 files, then 32 KiB more per file; it
 *   does not grow with the size of the logs;
 * - nothing is read ahead of the consumer: the next block is read only when the consumer asks
 *   for the next batch, so a slow client slows the reading and a client that goes away (the
 *   signal aborts, the generator is returned) stops it at once;
 * - a target names a run (`query.run`, `iris logs train@3`): the latest run is followed as below;
 *   an archived run is read once from the attempts its record names (it has ended);
 * - files are found through the store's attempts, so retries and children submitted later are
 *   picked up while following; following ends once the target and its descendants have ended
 *   and everything written has been read (then a trailing unterminated line is returned too).
 * A follower sleeps until something may have changed: a store change event about the target (a
 * new attempt, a state change, a job ending) or a change in a watched log directory (fs.watch);
 * a slow safety poll (SAFETY_POLL_MS) covers file systems without change notification and
 * directories created after the last look.
 */
import type { ArchivedRun, ClusterStore, StoreEvent } from '../cluster/state/store.js';
import { selectRun } from './runs.js';
import { findTask, noSuchTask } from './task-ops.js';
import { isWithin, parseJobName, parseTaskName, runRef, taskName } from '../model/names.js';
import { isActiveTaskState } from '../model/states.js';
import type { Attempt, Task } from '../model/types.js';
import type { LogBatch, LogQuery } from '../api/types.js';
import { LogSource, MAX_BLOCK, MIN_BLOCK, tailStart, type Position } from '../logs/scan.js';
import { mergeSources } from '../logs/merge.js';
import { attemptKey } from '../cluster/state/keys.js';
import { DirWatches, Wakeup } from '../logs/wake.js';

/** The backstop interval of a follower; store events and fs.watch wake it sooner. */
export const SAFETY_POLL_MS = 1000;

/** Bytes of read blocks one request may hold over all its files (before MIN_BLOCK applies). */
export const READ_BUDGET = 8 * 1024 * 1024;

interface Cursor {
  attempt: Attempt;
  /** Made at the first read and reused (with its buffers) by every later one. */
  source: LogSource | null;
}

function blockFor(files: number): number {
  return Math.max(MIN_BLOCK, Math.min(MAX_BLOCK, Math.floor(READ_BUDGET / Math.max(1, files))));
}

/** An archived run's logs: a fixed list of attempts (the run and its archived children have ended). */
type Target = { kind: 'task'; task: string } | { kind: 'job'; job: string } | { kind: 'archived'; attempts: Attempt[] };

/** The archived run `record`'s attempts (only task `task` when given), with those of its archived children. */
function archivedAttempts(store: ClusterStore, record: ArchivedRun, task: number | null): Attempt[] {
  if (task !== null) {
    const i = record.tasks.findIndex((t) => t.index === task);
    if (i < 0) throw noSuchTask(runRef(record.job.name, record.job.run), task, record.tasks.length);
    return record.attempts[i] ?? [];
  }
  // The run and the runs archived below it, depth-first (a loop, and no spread of a long list).
  const out: Attempt[] = [];
  const stack = [record];
  while (stack.length > 0) {
    const run = stack.pop()!;
    for (const attempts of run.attempts) for (const a of attempts) out.push(a);
    for (let i = run.children.length - 1; i >= 0; i--) {
      const child = store.archive.get(run.children[i]!);
      if (child) stack.push(child);
    }
  }
  return out;
}

export function resolveLogTarget(store: ClusterStore, input: string, run: number | null = null): Target {
  const asTask = parseTaskName(input);
  const job = asTask ? asTask.job : parseJobName(input);
  const selected = selectRun(store, job, run);
  if (selected.kind === 'archived')
    return { kind: 'archived', attempts: archivedAttempts(store, selected.record, asTask?.index ?? null) };
  if (asTask) {
    return { kind: 'task', task: findTask(store, taskName(job, asTask.index)).task.id };
  }
  return { kind: 'job', job };
}

function targetAttempts(store: ClusterStore, target: Target): Attempt[] {
  if (target.kind === 'archived') return target.attempts;
  return targetTasks(store, target).flatMap((task) => store.attemptsOf(task.id));
}

function targetTasks(store: ClusterStore, target: Exclude<Target, { kind: 'archived' }>): Task[] {
  if (target.kind === 'task') {
    const task = store.task(target.task);
    return task ? [task] : [];
  }
  const jobs = [target.job, ...store.descendants(target.job).map((j) => j.name)];
  return jobs.flatMap((name) => store.tasksOf(name));
}

function targetEnded(store: ClusterStore, target: Target): boolean {
  if (target.kind === 'archived') return true;
  if (target.kind === 'task') {
    const task = store.task(target.task);
    return !task || (task.state !== 'PENDING' && !isActiveTaskState(task.state));
  }
  if (!store.job(target.job) || !store.subtreeEnded(target.job)) return false;
  return targetTasks(store, target).every((task) => !isActiveTaskState(task.state));
}

/** Does this store event say something about the target's jobs, tasks or attempts? */
function concerns(target: Target, event: StoreEvent): boolean {
  if (target.kind === 'archived') return false;
  const within = (name: string) => (target.kind === 'task' ? name === target.task : isWithin(name, target.job));
  switch (event.type) {
    case 'job':
      return target.kind === 'job' && within(event.job.name);
    case 'task':
      return within(event.task.id);
    case 'attempt':
      return within(event.attempt.task);
    default:
      return false;
  }
}

export interface StreamLogsOptions {
  /** Backstop interval while following, in ms (default SAFETY_POLL_MS). */
  safetyPollMs?: number;
}

export async function* streamLogs(
  store: ClusterStore,
  query: LogQuery,
  signal: AbortSignal,
  options: StreamLogsOptions = {},
): AsyncGenerator<LogBatch> {
  const target = resolveLogTarget(store, query.target, query.run ?? null);
  const cursors = new Map<string, Cursor>();
  const wakeup = new Wakeup();
  const watches = new DirWatches(wakeup.poke);
  const onChange = (event: StoreEvent) => {
    if (concerns(target, event)) wakeup.poke();
  };
  const discover = () => {
    for (const attempt of targetAttempts(store, target)) {
      if (query.attempt !== undefined && attempt.attempt !== query.attempt) continue;
      const key = attemptKey(attempt.task, attempt.attempt);
      if (!cursors.has(key)) cursors.set(key, { attempt, source: null });
    }
  };
  /**
   * New lines of every cursor, merged by time, up to the files' sizes now; `final` also takes
   * unterminated last lines; `tail` starts each file at its last N lines and keeps the last N.
   */
  async function* collect(final: boolean, tail: number | undefined): AsyncGenerator<LogBatch> {
    wakeup.clear();
    discover();
    const list = [...cursors.values()];
    // Watch before reading, so a write just after a read still wakes the next wait.
    if (query.follow && !final) watches.watchFilesIn(list.map((cursor) => cursor.attempt.logPath));
    const blockBytes = blockFor(list.length);
    let skip = 0;
    const sources: LogSource[] = [];
    for (const cursor of list) {
      let start: Position | undefined;
      let end: number | undefined;
      if (tail !== undefined) {
        const found = await tailStart(cursor.attempt.logPath, tail, { since: query.since, partial: final, blockBytes });
        start = { offset: found.offset, time: found.time };
        skip += found.count;
        end = found.end;
      }
      if (cursor.source === null)
        cursor.source = new LogSource(cursor.attempt.logPath, start ?? { offset: 0, time: 0 }, {
          since: query.since,
          partial: final,
          blockBytes,
          end,
        });
      else cursor.source.restart(start, { partial: final, end });
      sources.push(cursor.source);
    }
    skip = tail === undefined ? 0 : Math.max(0, skip - tail);
    for await (const batch of mergeSources(sources, { skip, signal })) {
      const { task, attempt } = list[batch.source]!.attempt;
      yield { task, attempt, stream: batch.stream, times: batch.times, text: batch.text };
    }
  }

  if (query.follow) store.events.on('change', onChange);
  try {
    let ended = targetEnded(store, target);
    yield* collect(ended || !query.follow, query.tail);
    if (!query.follow) return;
    const safetyMs = options.safetyPollMs ?? SAFETY_POLL_MS;
    while (!ended && !signal.aborted) {
      await wakeup.wait(signal, safetyMs);
      if (signal.aborted) return;
      ended = targetEnded(store, target);
      yield* collect(ended, undefined);
    }
  } finally {
    store.events.off('change', onChange);
    watches.close();
  }
}
