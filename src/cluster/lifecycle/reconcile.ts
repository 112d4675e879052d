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
import { restartMember } from './attempts.js';
import { runCascade, type JobEnd } from './cascade.js';
import type { Applier, Item, JobRecord, LifecycleView } from './changes.js';
import { childEnds, endOfJob, killTask, settle } from './jobs.js';
import { settleDependent } from './release.js';
import { drainAttempt } from './workers.js';

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
    if (!('step' in item)) r.apply(item);
    else if (item.step === 'end-job') (r.endJob ? r.endJob(item.end) : endJobs(r, item.end));
    else reconcile(r, decideStep(r, item));
  }
}

function decideStep(r: Reconciler, step: Exclude<Item, { kind: string } | { step: 'end-job' }>): readonly Item[] {
  switch (step.step) {
    case 'settle': return settle(step, r.now);
    case 'kill-task': return killTask(r.view, step, r.now);
    case 'restart-member': return restartMember(r.view, step, r.now);
    case 'drain-attempt': return drainAttempt(r.view, step, r.now);
  }
}

/**
 * End `first` and everything its end causes (cascade.ts): its state and tasks, its children's
 * ends, then each job waiting on it looked at again (release.ts) as its turn comes.
 */
export function endJobs(r: Reconciler, first: JobEnd<JobRecord>): void {
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
