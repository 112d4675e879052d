/**
 * Reads and follows the per-attempt log files of a task, or of a job and all its descendants.
 *
 * Guarantees: lines of all the target's attempts come merged by time within each read; files
 * are found through the store's attempts, so retries and children submitted later are picked
 * up while following; following ends once the target and its descendants have ended and
 * everything written has been read (then a trailing unterminated line is returned too).
 * Files are read with src/logs/read.ts. A follower sleeps until something may have changed: a
 * store change event about the target (a new attempt, a state change, a job ending) or a change
 * in a watched log directory (fs.watch); a slow safety poll (SAFETY_POLL_MS) covers file
 * systems without change notification and directories created after the last look.
 */
import type { ClusterStore, StoreEvent } from '../cluster/state/store.js';
import { isWithin, parseJobName, parseTaskName } from '../model/names.js';
import { isActiveTaskState } from '../model/states.js';
import type { Attempt, Task } from '../model/types.js';
import type { LogLine, LogQuery } from '../api/types.js';
import { notFound } from '../model/errors.js';
import { mergeByTime, readFrom } from '../logs/read.js';
import { attemptKey } from '../cluster/state/keys.js';
import { DirWatches, Wakeup } from '../logs/wake.js';

/** The backstop interval of a follower; store events and fs.watch wake it sooner. */
export const SAFETY_POLL_MS = 1000;

interface Cursor {
  attempt: Attempt;
  offset: number;
}

type Target = { kind: 'task'; task: string } | { kind: 'job'; job: string };

export function resolveLogTarget(store: ClusterStore, input: string): Target {
  const asTask = parseTaskName(input);
  if (asTask) {
    const id = `${asTask.job}/task-${asTask.index}`;
    if (!store.task(id)) throw notFound(`unknown task ${id}`, 'list tasks with `iris status JOB`');
    return { kind: 'task', task: id };
  }
  const job = parseJobName(input);
  if (!store.job(job)) throw notFound(`unknown job ${job}`, 'list jobs with `iris jobs`');
  return { kind: 'job', job };
}

function targetTasks(store: ClusterStore, target: Target): Task[] {
  if (target.kind === 'task') {
    const task = store.task(target.task);
    return task ? [task] : [];
  }
  const jobs = [target.job, ...store.descendants(target.job).map((j) => j.name)];
  return jobs.flatMap((name) => store.tasksOf(name));
}

function targetEnded(store: ClusterStore, target: Target): boolean {
  if (target.kind === 'task') {
    const task = store.task(target.task);
    return !task || (task.state !== 'PENDING' && !isActiveTaskState(task.state));
  }
  if (!store.job(target.job) || !store.subtreeEnded(target.job)) return false;
  return targetTasks(store, target).every((task) => !isActiveTaskState(task.state));
}

/** Does this store event say something about the target's jobs, tasks or attempts? */
function concerns(target: Target, event: StoreEvent): boolean {
  const within = (name: string) => (target.kind === 'task' ? name === target.task : isWithin(name, target.job));
  switch (event.type) {
    case 'job': return target.kind === 'job' && within(event.job.name);
    case 'task': return within(event.task.id);
    case 'attempt': return within(event.attempt.task);
    default: return false;
  }
}

export interface StreamLogsOptions {
  /** Backstop interval while following, in ms (default SAFETY_POLL_MS). */
  safetyPollMs?: number;
}

export async function* streamLogs(store: ClusterStore, query: LogQuery, signal: AbortSignal, options: StreamLogsOptions = {}): AsyncGenerator<LogLine> {
  const target = resolveLogTarget(store, query.target);
  const cursors = new Map<string, Cursor>();
  const wakeup = new Wakeup();
  const watches = new DirWatches(wakeup.poke);
  const onChange = (event: StoreEvent) => {
    if (concerns(target, event)) wakeup.poke();
  };
  const discover = () => {
    for (const task of targetTasks(store, target)) {
      for (const attempt of store.attemptsOf(task.id)) {
        if (query.attempt !== undefined && attempt.attempt !== query.attempt) continue;
        const key = attemptKey(attempt.task, attempt.attempt);
        if (!cursors.has(key)) cursors.set(key, { attempt, offset: 0 });
      }
    }
  };
  /** New lines of every cursor, merged by time; `final` also takes unterminated last lines. */
  const collect = async (final: boolean): Promise<LogLine[]> => {
    wakeup.clear();
    discover();
    // Watch before reading, so a write just after a read still wakes the next wait.
    if (query.follow && !final) watches.watchFilesIn([...cursors.values()].map((cursor) => cursor.attempt.logPath));
    const lists: LogLine[][] = [];
    for (const cursor of cursors.values()) {
      const chunk = await readFrom(cursor.attempt.logPath, cursor.offset, { since: query.since, partial: final });
      cursor.offset = chunk.end;
      const { task, attempt } = cursor.attempt;
      lists.push(chunk.records.map((rec) => ({ time: rec.time, task, attempt, stream: rec.stream, text: rec.text })));
    }
    return mergeByTime(lists);
  };

  if (query.follow) store.events.on('change', onChange);
  try {
    let ended = targetEnded(store, target);
    const first = await collect(ended || !query.follow);
    yield* query.tail !== undefined ? first.slice(Math.max(0, first.length - query.tail)) : first;
    if (!query.follow) return;
    const safetyMs = options.safetyPollMs ?? SAFETY_POLL_MS;
    while (!ended && !signal.aborted) {
      await wakeup.wait(signal, safetyMs);
      if (signal.aborted) return;
      ended = targetEnded(store, target);
      yield* await collect(ended);
    }
  } finally {
    store.events.off('change', onChange);
    watches.close();
  }
}
