/**
 * Quarantine at start-up (the rules of what is unreadable: load-check.ts): a job with a row the load
 * could not read, or whose recovery failed, ends FAILED with `quarantined at start-up: <problem>`
 * (lifecycle/jobs.ts quarantine), each job in a transaction of its own, so one that fails even that is left
 * as it is and the others still go. Nothing here can stop the start.
 *
 * - Each job is quarantined once, for the first problem found in its rows; the problems are listed
 *   (`list`, with rows of no job) for the daemon to log once.
 * - A store that can write writes the repaired rows back (deleted stray task rows, rewritten
 *   attempts, the job as it ended), so the next start finds nothing wrong; a read-only store
 *   (how a stopped cluster is shown) does the same in memory only.
 */
import { quarantine } from '../lifecycle/jobs.js';
import type { StoreLifecycle } from './lifecycle.js';
import { quarantineReason, type LoadProblem } from './load-check.js';
import type { ClusterModel } from './model.js';
import type { LoadedState } from './persist.js';

export class Quarantines {
  /** Every job quarantined and every row skipped, with what was wrong, in the order found. */
  readonly list: LoadProblem[] = [];

  /**
   * `transaction` runs a function atomically (nested: its failure undoes only it); `inMemory` runs
   * one whose changes are never written (a read-only store), nesting the transactions inside it.
   */
  constructor(
    private readonly life: StoreLifecycle,
    private readonly model: ClusterModel,
    private readonly transaction: (fn: () => void) => void,
    private readonly inMemory: (fn: () => void) => void,
  ) {}

  /** After a load: quarantine the jobs of its problems; `write`: written back, else in memory only. */
  loaded(loaded: LoadedState, write: boolean): void {
    if (loaded.problems.length === 0) return;
    const seen = new Set<string>();
    (write ? this.transaction : this.inMemory)(() => {
      for (const id of loaded.strayTasks) this.model.deleteTaskRow(id);
      for (const a of loaded.repairedAttempts) this.model.patchAttempt(a, {});
      for (const { job, problem } of loaded.problems) {
        if (job === null) this.list.push({ job, problem });
        else if (!seen.has(job)) {
          seen.add(job);
          this.job(job, problem);
        }
      }
    });
  }

  /** Quarantine `name` for `problem` and list it; false when that failed too (the job is left as it is). */
  job(name: string, problem: string): boolean {
    const ok = this.one(name, problem);
    this.list.push({ job: name, problem: ok ? problem : `${problem}; its quarantine failed too, left as it is` });
    return ok;
  }

  private one(name: string, problem: string): boolean {
    try {
      this.transaction(() => this.life.decide((view) => quarantine(view, name, quarantineReason(problem))));
      return true;
    } catch {
      return false;
    }
  }
}
