/**
 * Reads and follows the per-attempt log files of a task, or of a job and all its descendants.
 * Files are found through the store's attempts, so retries and children submitted later are
 * picked up while following. Following ends once the target and its descendants have ended and
 * everything written has been read.
 */
import { open } from 'node:fs/promises';
import type { ClusterStore } from '../cluster/state/store.js';
import { parseJobName, parseTaskName } from '../model/names.js';
import { isFinalJobState, isActiveTaskState } from '../model/states.js';
import type { Attempt, Task } from '../model/types.js';
import type { LogLine, LogQuery } from '../api/types.js';
import { notFound } from '../model/errors.js';
import { parseLine } from '../logs/read.js';

interface Cursor {
  attempt: Attempt;
  offset: number;
  partial: string;
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
  const root = store.job(target.job);
  if (!root || !isFinalJobState(root.state)) return false;
  return store.descendants(target.job).every((job) => isFinalJobState(job.state))
    && targetTasks(store, target).every((task) => !isActiveTaskState(task.state));
}

async function readNew(cursor: Cursor, out: LogLine[], flushPartial: boolean): Promise<void> {
  let handle;
  try {
    handle = await open(cursor.attempt.logPath, 'r');
  } catch {
    return; // not created yet
  }
  try {
    const { size } = await handle.stat();
    if (size > cursor.offset) {
      const buffer = Buffer.alloc(size - cursor.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, cursor.offset);
      cursor.offset += bytesRead;
      cursor.partial += buffer.subarray(0, bytesRead).toString('utf8');
    }
  } finally {
    await handle.close();
  }
  const lines = cursor.partial.split('\n');
  cursor.partial = flushPartial ? '' : lines.pop()!;
  for (const raw of lines) {
    if (raw === '') continue;
    const parsed = parseLine(raw);
    if (!parsed) continue;
    out.push({ time: parsed.time, task: cursor.attempt.task, attempt: cursor.attempt.attempt, stream: parsed.stream, text: parsed.text });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

export async function* streamLogs(store: ClusterStore, query: LogQuery, signal: AbortSignal, pollMs = 100): AsyncGenerator<LogLine> {
  const target = resolveLogTarget(store, query.target);
  const cursors = new Map<string, Cursor>();
  const discover = () => {
    for (const task of targetTasks(store, target)) {
      for (const attempt of store.attemptsOf(task.id)) {
        if (query.attempt !== undefined && attempt.attempt !== query.attempt) continue;
        const key = `${attempt.task}#${attempt.attempt}`;
        if (!cursors.has(key)) cursors.set(key, { attempt, offset: 0, partial: '' });
      }
    }
  };
  const collect = async (final: boolean) => {
    discover();
    const batch: LogLine[] = [];
    for (const cursor of cursors.values()) await readNew(cursor, batch, final);
    batch.sort((a, b) => a.time - b.time);
    return query.since === undefined ? batch : batch.filter((line) => line.time >= query.since!);
  };

  let ended = targetEnded(store, target);
  const first = await collect(ended || !query.follow);
  yield* query.tail !== undefined ? first.slice(Math.max(0, first.length - query.tail)) : first;
  if (!query.follow) return;
  while (!ended && !signal.aborted) {
    await sleep(pollMs, signal);
    ended = targetEnded(store, target);
    yield* await collect(ended);
  }
}

