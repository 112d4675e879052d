/**
 * Retention: which runs are old enough to go, and removing them from the store.
 *
 * - A live job is pruned only with its whole tree: the root (a job without a stored parent) and
 *   every job below it ended before the cutoff, and none of them still holds a stopping attempt
 *   (`busy`). A finished child of a running parent stays.
 * - An archived run (archive.ts) is pruned on its own `finished_at`, oldest first, at most
 *   `limit` per call (a later call takes the rest), so one call never builds a huge transaction.
 * - Pruning removes the rows (job, tasks, attempts, endpoints, archive row) and the run's events.
 *   Log files are not the store's concern: each pruned run lists its attempts' log paths for the
 *   caller to delete once the transaction has committed.
 * - With `dryRun` nothing changes; the answer is the same list.
 */
import { isFinalJobState, type JobState } from '../../model/states.js';
import type { ArchivedRun, RunArchive } from './archive.js';
import type { ClusterModel } from './model.js';
import { subtreeOf } from './submit.js';

export interface PrunedRun {
  name: string;
  run: number;
  state: JobState;
  finishedAt: number | null;
  /** Log files of the run's attempts (where they were written; some may be gone already). */
  logPaths: string[];
}

export interface PruneOptions {
  /** True for a job that still holds an attempt whose process is stopping: its tree stays. */
  busy: (job: string) => boolean;
  dryRun: boolean;
  /** Most archived runs taken in one call. */
  limit: number;
}

export function pruneRuns(
  model: ClusterModel,
  archive: RunArchive,
  cutoff: number,
  options: PruneOptions,
): PrunedRun[] {
  const out: PrunedRun[] = [];
  const trees: string[][] = [];
  for (const entry of model.jobs.values()) {
    const root = entry.job;
    if (root.parent !== null && model.jobs.has(root.parent)) continue; // not the root of its tree
    const names = subtreeOf(model, root.name);
    const ended = names.every((name) => {
      const job = model.jobs.get(name)!.job;
      return isFinalJobState(job.state) && job.finishedAt !== null && job.finishedAt < cutoff && !options.busy(name);
    });
    if (ended) trees.push(names);
  }
  for (const names of trees) {
    for (const name of names) {
      const entry = model.jobs.get(name)!;
      const logPaths = entry.tasks.flatMap((task) =>
        (model.attempts.get(task.id) ?? []).filter((a) => a !== undefined).map((a) => a.logPath),
      );
      out.push({ name, run: entry.job.run, state: entry.job.state, finishedAt: entry.job.finishedAt, logPaths });
    }
    if (options.dryRun) continue;
    for (const name of names) {
      const run = model.jobs.get(name)!.job.run;
      model.removeJob(name);
      model.pruneRun(run);
    }
  }
  for (const record of archive.finishedBefore(cutoff, options.limit)) {
    out.push(archivedEntry(record));
    if (!options.dryRun) model.pruneRun(record.job.run);
  }
  return out;
}

function archivedEntry(record: ArchivedRun): PrunedRun {
  const { job } = record;
  return {
    name: job.name,
    run: job.run,
    state: job.state,
    finishedAt: job.finishedAt,
    logPaths: record.attempts.flat().map((a) => a.logPath),
  };
}
