/**
 * The reconcile loop: the one place where the lifecycle's decisions and an applier alternate. A
 * decision (attempts.ts, jobs.ts, workers.ts) returns items; each change is handed to the applier
 * in order, and each step is decided when its turn comes, from the view as the changes before it
 * left it, its own items going first (depth first). A job's end runs the cascade walk (cascade.ts):
 * a loop, so a chain of 100,000 jobs needs no deeper stack than one.
 *
 * This order is the lifecycle's order of effects: the store's events and history, and the stop
 * orders it returns, come out in it; the simulator sees its changes in it too. Nothing here reads
 * a clock: `now` is given.
 */
import { mergedEnd, restartMember } from './attempts.js';
import { runCascade, type JobEnd } from './cascade.js';
import type { Applier, Item, JobRecord, LifecycleView } from './changes.js';
import { childEnds, endOfJob, killTask, settle } from './jobs.js';
import { settleDependent } from './release.js';
import { drainAttempt, leftWorkerIdle } from './workers.js';

/** What a reconcile runs against: the state to read, the time, and where changes go. */
export interface Reconciler extends Applier {
  readonly view: LifecycleView;
  readonly now: number;
  /** Run a job's end and everything it causes; default `endJobs` (a reference walk may take its place in tests). */
  endJob?(end: JobEnd<JobRecord>): void;
}

/** Apply `items` in order, deciding each step when its turn comes (see the header). */
export function reconcile(r: Reconciler, items: readonly Item[]): void {
  for (const item of items) {
    switch (item.kind) {
      case 'settle':
        reconcile(r, settle(item, r.now));
        break;
      case 'kill-task':
        reconcile(r, killTask(r.view, item, r.now));
        break;
      case 'restart-member':
        reconcile(r, restartMember(r.view, item, r.now));
        break;
      case 'merged-end':
        reconcile(r, mergedEnd(r.view, item, r.now));
        break;
      case 'drain-attempt':
        reconcile(r, drainAttempt(r.view, item, r.now));
        break;
      case 'left-worker-idle':
        reconcile(r, leftWorkerIdle(r.view, item, r.now));
        break;
      case 'end-job':
        if (r.endJob) r.endJob(item.end);
        else endJobs(r, item.end);
        break;
      default:
        r.apply(item);
    }
  }
}

/**
 * End `first` and everything its end causes (cascade.ts): its state and tasks, its children's
 * ends, then each job waiting on it looked at again (release.ts) as its turn comes.
 */
export function endJobs(r: Reconciler, first: JobEnd<JobRecord>): void {
  const name = first.entry.job.name;
  // Nothing hangs on it (no child, no dependent; a job's end adds neither): its end is the whole
  // cascade, without the walk's frames (most jobs, and every job of a replayed trace).
  if (isEmpty(r.view.children(name)) && isEmpty(r.view.dependents(name))) {
    reconcile(r, endOfJob(first, r.now));
    return;
  }
  runCascade<JobRecord>(first, {
    end: (end) => reconcile(r, endOfJob(end, r.now)),
    children: (end) => childEnds(r.view, end),
    // After the subtree: a dependent that is also a sibling sees its siblings' final states.
    dependents: (end) => [...r.view.dependents(end.entry.job.name)],
    settle: (name) => {
      const settled = settleDependent(r.view, name);
      for (const change of settled.changes) r.apply(change);
      return settled.end;
    },
  });
}

function isEmpty(names: Iterable<string>): boolean {
  for (const _ of names) return false;
  return true;
}
