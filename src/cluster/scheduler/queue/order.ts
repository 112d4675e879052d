/**
 * Queue order (the progress guarantee, docs/architecture.md, "Scheduling order"). Pending tasks are ordered by
 *   (job band, job depth DESC, job rootSubmittedAt ASC, task submittedAt ASC, task seq ASC, task id ASC)
 * so production work goes before interactive and interactive before batch (model/band.ts), and
 * within a band a job tree that has started finishes its deeper work first, older trees beat newer
 * ones, and a retried or preempted task keeps its place because its submittedAt is unchanged. Tasks whose job is
 * unknown sort last (the scheduler never places them).
 */
import { DEFAULT_BAND, bandRank } from '../../../model/band.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';

type Jobs = ReadonlyMap<string, SchedulerJob>;

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Queue order of two jobs by their own keys: band, then deeper first, then older root. 0: tied. */
export function compareJobKeys(a: SchedulerJob, b: SchedulerJob): number {
  const bands = bandRank(a.band ?? DEFAULT_BAND) - bandRank(b.band ?? DEFAULT_BAND);
  if (bands !== 0) return bands;
  if (a.depth !== b.depth) return b.depth - a.depth;
  return a.rootSubmittedAt - b.rootSubmittedAt;
}

/** Negative when `a` should be scheduled before `b`. */
export function comparePending(a: SchedulerTask, b: SchedulerTask, jobs: Jobs): number {
  const ja = jobs.get(a.job);
  const jb = jobs.get(b.job);
  if (!ja || !jb) {
    if (ja) return -1;
    if (jb) return 1;
  } else {
    const keys = compareJobKeys(ja, jb);
    if (keys !== 0) return keys;
  }
  if (a.submittedAt !== b.submittedAt) return a.submittedAt - b.submittedAt;
  if (a.seq !== b.seq) return a.seq - b.seq;
  return compareIds(a.id, b.id);
}

/**
 * Sort tasks into queue order. Keys are precomputed into typed arrays so the single sort does
 * no map lookups (cheap for 100,000 tasks). Returns a new array; the input is not touched.
 */
export function orderTasks(pending: readonly SchedulerTask[], jobs: Jobs): SchedulerTask[] {
  const n = pending.length;
  const band = new Float64Array(n);
  const negDepth = new Float64Array(n);
  const root = new Float64Array(n);
  const submitted = new Float64Array(n);
  const seq = new Float64Array(n);
  let lastJobName: string | null = null;
  let lastJob: SchedulerJob | undefined;
  for (let i = 0; i < n; i++) {
    const task = pending[i]!;
    if (task.job !== lastJobName) {
      lastJobName = task.job;
      lastJob = jobs.get(task.job);
    }
    band[i] = lastJob ? bandRank(lastJob.band ?? DEFAULT_BAND) : Number.POSITIVE_INFINITY;
    negDepth[i] = lastJob ? -lastJob.depth : Number.POSITIVE_INFINITY;
    root[i] = lastJob ? lastJob.rootSubmittedAt : Number.POSITIVE_INFINITY;
    submitted[i] = task.submittedAt;
    seq[i] = task.seq;
  }
  const index = new Array<number>(n);
  for (let i = 0; i < n; i++) index[i] = i;
  index.sort((x, y) => {
    let d = band[x]! - band[y]!;
    if (d !== 0 && d === d) return d;
    d = negDepth[x]! - negDepth[y]!;
    if (d !== 0 && d === d) return d;
    d = root[x]! - root[y]!;
    if (d !== 0 && d === d) return d;
    d = submitted[x]! - submitted[y]!;
    if (d !== 0) return d;
    d = seq[x]! - seq[y]!;
    if (d !== 0) return d;
    return compareIds(pending[x]!.id, pending[y]!.id);
  });
  const out = new Array<SchedulerTask>(n);
  for (let i = 0; i < n; i++) out[i] = pending[index[i]!]!;
  return out;
}

/** The snapshot's pending tasks in queue order (before quota adjustments). */
export function orderPending(snapshot: Snapshot): SchedulerTask[] {
  return orderTasks(snapshot.pending, snapshot.jobs);
}
