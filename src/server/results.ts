/**
 * Task results as the API shows them (GET /v1/results, `iris results`): the results of one run
 * of a job, live or archived (runs.ts selectRun), keeping only those of each task's latest
 * attempt (cluster/state/results.ts). Setting goes through the store (ClusterStore.setResults).
 */
import type { ResultInfo, ResultsResponse } from '../api/types.js';
import { parseJobName } from '../model/names.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { countCurrent, countingAttempts, current } from '../cluster/state/results.js';
import { selectRun } from './runs.js';

/** The results of run `run` of job `name` (null: its latest run); not_found for an unknown job or run. */
export function runResults(store: ClusterStore, name: string, run: number | null): ResultsResponse {
  const selected = selectRun(store, parseJobName(name), run);
  const job = selected.kind === 'live' ? selected.job : selected.record.job;
  const tasks = selected.kind === 'live' ? store.tasksOf(job.name) : selected.record.tasks;
  const attempts = countingAttempts(
    tasks,
    store.resultCounts(job.run),
    preemptedIn(store, job.name, selected.kind === 'live'),
  );
  const results: ResultInfo[] = current(store.resultRows(job.run), attempts).map((row) => ({
    task: `${job.name}/task-${row.index}`,
    index: row.index,
    key: row.key,
    value: row.value,
    attempt: row.attempt,
    setAt: row.setAt,
  }));
  return { job: job.name, run: job.run, results };
}

/** How many results run `run` of a job holds (its tasks' latest attempts); `tasks` are the run's tasks. */
export function resultCount(
  store: ClusterStore,
  run: number,
  tasks: readonly { index: number; attempt: number }[],
  preempted: (index: number, attempt: number) => boolean = () => false,
): number {
  const counts = store.resultCounts(run);
  return countCurrent(counts, countingAttempts(tasks, counts, preempted));
}

/** Did attempt `attempt` of task `index` of job `job` end preempted? (An archived run, `live` false: none is.) */
export function preemptedIn(store: ClusterStore, job: string, live: boolean) {
  if (!live) return () => false;
  return (index: number, attempt: number) => store.attempt(`${job}/task-${index}`, attempt)?.state === 'PREEMPTED';
}
