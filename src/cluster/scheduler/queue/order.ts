/**
 * Queue order (the progress guarantee, docs/architecture.md, "Scheduling order"). Pending tasks are ordered by
 *   (job band, job depth DESC, [user share ASC,] job rootSubmittedAt ASC, task submittedAt ASC, task seq ASC,
 *    task id ASC)
 * so production work goes before interactive and interactive before batch (model/band.ts), and
 * within a band a job tree that has started finishes its deeper work first, older trees beat newer
 * ones, and a retried or preempted task keeps its place because its submittedAt is unchanged. Tasks whose job is
 * unknown sort last (the scheduler never places them).
 *
 * Fair share: when some quota is configured, within a band and depth the jobs of users further
 * under their weighted dominant share (shares.ts snapshotShares, computed once per snapshot) go
 * first. Without quotas the share key is left out, so the order is exactly the one above.
 * compareJobKeys is the one comparison of job keys: orderTasks and job-queue.ts follow it.
 */
import { DEFAULT_BAND, bandRank } from '../../../model/band.js';
import type { SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { snapshotShares } from './shares.js';

type Jobs = ReadonlyMap<string, SchedulerJob>;

/** What the queue order reads of a job (a SchedulerJob has it; so does a key made from a stored job). */
export type JobKeys = Pick<SchedulerJob, 'band' | 'depth' | 'user' | 'rootSubmittedAt'>;

/** What the queue order reads of a task. */
export type TaskKeys = Pick<SchedulerTask, 'id' | 'job' | 'submittedAt' | 'seq'>;

/** Each user's weighted dominant share (absent: 0); null: shares play no part in the order. */
export type Shares = ReadonlyMap<string, number> | null;

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Queue order of two jobs by their own keys: band, then deeper first, then (with `shares`) the
 * user with the smaller share, then older root. 0: tied.
 */
export function compareJobKeys(a: JobKeys, b: JobKeys, shares: Shares = null): number {
  const bands = bandRank(a.band ?? DEFAULT_BAND) - bandRank(b.band ?? DEFAULT_BAND);
  if (bands !== 0) return bands;
  if (a.depth !== b.depth) return b.depth - a.depth;
  if (shares !== null && a.user !== b.user) {
    const d = (shares.get(a.user) ?? 0) - (shares.get(b.user) ?? 0);
    if (d !== 0) return d;
  }
  return a.rootSubmittedAt - b.rootSubmittedAt;
}

/** Negative when `a` should be scheduled before `b` (without shares: the simulator keeps no quotas). */
export function comparePending(
  a: TaskKeys,
  b: TaskKeys,
  jobs: Pick<ReadonlyMap<string, JobKeys>, 'get'>,
  shares: Shares = null,
): number {
  const ja = jobs.get(a.job);
  const jb = jobs.get(b.job);
  if (!ja || !jb) {
    if (ja) return -1;
    if (jb) return 1;
  } else {
    const keys = compareJobKeys(ja, jb, shares);
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
export function orderTasks(pending: readonly SchedulerTask[], jobs: Jobs, shares: Shares = null): SchedulerTask[] {
  const n = pending.length;
  const band = new Float64Array(n);
  const negDepth = new Float64Array(n);
  const share = shares === null ? null : new Float64Array(n);
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
    if (share !== null) share[i] = lastJob ? (shares!.get(lastJob.user) ?? 0) : Number.POSITIVE_INFINITY;
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
    if (share !== null) {
      d = share[x]! - share[y]!;
      if (d !== 0 && d === d) return d;
    }
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

/** The snapshot's pending tasks in queue order (shares included; before quota deferral). */
export function orderPending(snapshot: Snapshot): SchedulerTask[] {
  return orderTasks(snapshot.pending, snapshot.jobs, snapshotShares(snapshot));
}
