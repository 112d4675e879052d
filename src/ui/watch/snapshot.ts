/** What `iris watch` shows: jobs and workers at one instant, and its plain-text form. */
import type { JobSummary, WorkerInfo } from '../../api/types.js';
import type { IrisClient } from '../../client/types.js';
import { hideOldTrees } from '../job-filter.js';
import { renderJobsTree } from '../jobs-tree.js';
import { renderWorkers } from '../cluster.js';

export interface WatchSnapshot {
  time: number;
  jobs: JobSummary[];
  workers: WorkerInfo[];
}

export async function loadSnapshot(
  client: Pick<IrisClient, 'jobs' | 'workers'>,
  now: () => number,
  all = false,
): Promise<WatchSnapshot> {
  const [jobs, workers] = await Promise.all([client.jobs({}), client.workers()]);
  const time = now();
  return { time, jobs: all ? jobs : hideOldTrees(jobs, time), workers };
}

/** Counts line: `3 jobs (1 running, 1 pending) · 2 workers · 4 tasks running`. */
export function summaryLine(snapshot: WatchSnapshot): string {
  const byState = new Map<string, number>();
  for (const job of snapshot.jobs) byState.set(job.state, (byState.get(job.state) ?? 0) + 1);
  const states = [...byState.entries()].map(([state, n]) => `${n} ${state.toLowerCase()}`).join(', ');
  const running = snapshot.workers.reduce((sum, w) => sum + w.runningTasks.length, 0);
  const jobs = `${snapshot.jobs.length} job${snapshot.jobs.length === 1 ? '' : 's'}${states ? ` (${states})` : ''}`;
  return (
    `${jobs} · ${snapshot.workers.length} worker${snapshot.workers.length === 1 ? '' : 's'} · ${running} task` +
    `${running === 1 ? '' : 's'} running`
  );
}

export function renderWorkerTasks(workers: readonly WorkerInfo[]): string {
  return workers
    .filter((w) => w.runningTasks.length > 0)
    .map((w) => `${w.id}: ${w.runningTasks.join(', ')}`)
    .join('\n');
}

/** The plain-text snapshot printed when stdout is not a TTY, under CI, or with --once. */
export function renderSnapshotText(snapshot: WatchSnapshot): string {
  const sections = [
    summaryLine(snapshot),
    '',
    renderJobsTree(snapshot.jobs, snapshot.time),
    '',
    renderWorkers(snapshot.workers),
  ];
  const tasks = renderWorkerTasks(snapshot.workers);
  if (tasks) sections.push('', 'Running tasks:', tasks);
  return sections.join('\n');
}
