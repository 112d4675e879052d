/**
 * Settling the attempts an earlier life of the cluster left RUNNING, shared by the local daemon
 * and the kubernetes backend (server/daemon.ts, server/kube-cluster.ts).
 *
 * Guarantees:
 * - startedRecords gives the runtime what the store knew of each leftover attempt (its key, pid
 *   and log file), for recover(), resume() and reclaim().
 * - settleRecovered records, in one transaction, the exits recover() found (result files are
 *   read first, as at a normal end, owned by the user the job's tasks run as under the config's
 *   `runtime` defaults; measured usage is kept) and preempts the `rerun` attempts
 *   ('cluster restarted': they run again). An attempt already finished there is left as it is.
 * - Recovery cannot stop the start: an attempt whose settling throws has its change undone and its
 *   job quarantined (ClusterStore.quarantine: FAILED, `quarantined at start-up: its recovery
 *   failed: …`, listed for the daemon to log).
 */
import type { Attempt } from '../../model/types.js';
import type { RecoveredExit, StartedRecord } from '../../runtime/types.js';
import type { ClusterStore } from '../state/store.js';
import { attemptKey } from '../state/keys.js';
import { taskFileOwner } from '../../runtime/task-file.js';
import { messageOf } from '../state/load-check.js';
import { resultFileFor, taskRunAs, type LaunchContext } from './launch.js';
import { collectResultFile, withNote } from './result-file.js';
import { exitOutcome } from './supervisor.js';

export function startedRecords(store: ClusterStore, attempts: readonly Attempt[]): StartedRecord[] {
  return attempts.map((a) => ({
    key: { job: store.task(a.task)?.job ?? '', task: a.task, attempt: a.attempt },
    pid: a.pid,
    labels: {},
    logPath: a.logPath,
  }));
}

export async function settleRecovered(
  store: ClusterStore,
  ended: readonly RecoveredExit[],
  rerun: readonly Attempt[],
  runtime?: LaunchContext['runtime'],
): Promise<void> {
  const notes = new Map<string, string | null>();
  for (const { key } of ended) {
    const logPath = store.attempt(key.task, key.attempt)?.logPath;
    const job = store.job(store.task(key.task)?.job ?? '');
    if (!logPath || !job) continue;
    const owner = taskFileOwner(taskRunAs(runtime, job));
    const note = await collectResultFile(store, key.task, key.attempt, resultFileFor(logPath), owner);
    notes.set(attemptKey(key.task, key.attempt), note);
  }
  // Each attempt in a transaction of its own inside the one: a failure undoes only that attempt's
  // change, and quarantines its job instead of stopping the start.
  const guarded = (task: string, settle: () => void): void => {
    try {
      store.transaction(settle);
    } catch (error) {
      const job = store.task(task)?.job;
      if (job !== undefined) store.quarantine(job, `its recovery failed: ${messageOf(error)}`);
    }
  };
  store.transaction(() => {
    for (const { key, exit } of ended) {
      guarded(key.task, () => {
        if (exit.usage) store.recordUsage(key.task, key.attempt, exit.usage);
        store.finishAttempt(
          key.task,
          key.attempt,
          withNote(exitOutcome(exit), notes.get(attemptKey(key.task, key.attempt)) ?? null),
        );
      });
    }
    for (const attempt of rerun)
      guarded(attempt.task, () => store.preemptAttempt(attempt.task, attempt.attempt, 'cluster restarted'));
  });
}
