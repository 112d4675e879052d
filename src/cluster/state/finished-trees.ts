/**
 * Finished work leaves memory: which finished job trees the store archives (archive.ts) instead of
 * holding them in the live model.
 *
 * Guarantees:
 * - Only whole trees go: a root (a job without a stored parent) whose every job has ended and holds
 *   no attempt still stopping (`busy`). A finished child of a live parent stays with its parent.
 * - The newest finished trees stay in memory, at most `trees` of them holding at most `tasks`
 *   tasks together (a single tree larger than `tasks` goes too); the rest go, oldest finish first.
 *   So the live model holds the live jobs plus a bounded number of finished ones, however many
 *   jobs the cluster has run.
 * - Archiving loses nothing: each job of a tree is archived as a run (its tasks, attempts and the
 *   runs of its children), as when a new submission replaces a name. The reads that name an ended
 *   job (`iris status`, `logs`, `results`, `jobs -a`, `history`, `wait`, dependencies) find the
 *   newest archived run of a name that no live job holds.
 * - One call walks the live jobs once (roots, then each candidate's subtree), so its cost is
 *   bounded by the live model, not by the jobs run so far.
 */
import { isFinalJobState } from '../../model/states.js';
import { DEFAULT_KEEP_FINISHED } from '../../model/workload.js';
import type { ClusterModel } from './model.js';
import { subtreeOf } from './submit.js';

export interface FinishedLimits {
  /** Most finished trees kept in memory. */
  trees: number;
  /** Most tasks the kept finished trees hold together. */
  tasks: number;
}

export { DEFAULT_KEEP_FINISHED } from '../../model/workload.js';

/** The limits of `keep-finished: trees`: that many trees, holding at most 20 tasks each on average. */
export function keptLimits(trees: number): FinishedLimits {
  return { trees, tasks: trees * 20 };
}

/** What a cluster keeps of its finished work in memory (the rest is read from SQLite). */
export const FINISHED_KEPT: FinishedLimits = keptLimits(DEFAULT_KEEP_FINISHED);

interface FinishedTree {
  names: string[];
  finishedAt: number;
  run: number;
  tasks: number;
}

/**
 * The finished trees to archive now, oldest finish first, each as its job names (parents before
 * children). `finishedRoots` counts the finished roots seen (the caller's cheap check).
 */
export function treesToArchive(
  model: ClusterModel,
  limits: FinishedLimits,
  busy: (job: string) => boolean,
): string[][] {
  const finished: FinishedTree[] = [];
  for (const entry of model.jobs.values()) {
    const root = entry.job;
    if (!isFinalJobState(root.state)) continue;
    if (root.parent !== null && model.jobs.has(root.parent)) continue; // not the root of its tree
    const names = subtreeOf(model, root.name);
    let finishedAt = 0;
    let tasks = 0;
    let ended = true;
    for (const name of names) {
      const e = model.jobs.get(name)!;
      if (!isFinalJobState(e.job.state) || busy(name)) {
        ended = false;
        break;
      }
      finishedAt = Math.max(finishedAt, e.job.finishedAt ?? 0);
      tasks += e.tasks.length;
    }
    if (ended) finished.push({ names, finishedAt, run: root.run, tasks });
  }
  if (finished.length === 0) return [];
  // Newest first: keep from the front while within the limits.
  finished.sort((a, b) => b.finishedAt - a.finishedAt || b.run - a.run);
  let kept = 0;
  let tasks = 0;
  while (kept < finished.length && kept < limits.trees && tasks + finished[kept]!.tasks <= limits.tasks) {
    tasks += finished[kept]!.tasks;
    kept++;
  }
  return finished
    .slice(kept)
    .reverse()
    .map((tree) => tree.names);
}
