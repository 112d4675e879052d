/**
 * The walk of the job-end cascade (reconcile.ts endJobs gives it the steps, decided by jobs.ts and
 * release.ts; the simulator's pipelines walk their skips with it too): a loop over an
 * explicit stack, never a recursion, so a chain of 100,000 jobs (`--after` one after the other,
 * or a pipeline of that many stages) ends without overflowing the call stack, in time and memory
 * linear in the number of jobs it reaches.
 *
 * Order (the order a depth-first recursion gives, kept exactly: events, history and stop orders
 * come out in it):
 * 1. the job itself ends (`end`: its state and its tasks);
 * 2. then its children, one after the other, each with everything its own end causes before the
 *    next child is looked at;
 * 3. then the jobs that wait on it (the list as it is once its subtree has ended), one after the
 *    other: each is looked at when its turn comes (`settle`), and when it ends, everything its end
 *    causes happens before the next one is looked at.
 */

import type { JobState } from '../../model/states.js';

/** One job to end, and how. */
export interface JobEnd<E> {
  entry: E;
  /** The job's final state and its reason (a job already final keeps its own). */
  state: JobState;
  reason: string | null;
  /** The reason its remaining tasks end with. */
  taskReason: string;
  /** The reason its children end with (KILLED). */
  childReason: string;
}

export interface CascadeSteps<E> {
  /** Step 1 for one job. */
  end(job: JobEnd<E>): void;
  /** Step 2: the ends of its children, in order (read lazily, after step 1). */
  children(job: JobEnd<E>): Iterator<JobEnd<E>>;
  /** Step 3: the names of the jobs waiting on it, copied (read once its subtree has ended). */
  dependents(job: JobEnd<E>): readonly string[];
  /** Look at one waiting job again: the end it must take now, or null (released, or still waiting). */
  settle(name: string): JobEnd<E> | null;
}

interface Frame<E> {
  job: JobEnd<E>;
  children: Iterator<JobEnd<E>> | null;
  dependents: readonly string[] | null;
  next: number;
}

/** End `first` and everything its end causes, in the order of the header. */
export function runCascade<E>(first: JobEnd<E>, steps: CascadeSteps<E>): void {
  const start = (job: JobEnd<E>): Frame<E> => {
    steps.end(job);
    return { job, children: steps.children(job), dependents: null, next: 0 };
  };
  const stack: Frame<E>[] = [start(first)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const next = nextEnd(frame, steps);
    if (next === null) stack.pop();
    else stack.push(start(next));
  }
}

/** The frame's next job to end (a child, then a dependent), or null when it is done. */
function nextEnd<E>(frame: Frame<E>, steps: CascadeSteps<E>): JobEnd<E> | null {
  if (frame.children !== null) {
    const child = frame.children.next();
    if (!child.done) return child.value;
    frame.children = null;
    frame.dependents = steps.dependents(frame.job);
  }
  const dependents = frame.dependents!;
  while (frame.next < dependents.length) {
    const end = steps.settle(dependents[frame.next++]!);
    if (end !== null) return end;
  }
  return null;
}
