/**
 * What the queue looks like to a user (`iris queue`): the controller's plain QueueListing
 * (pending jobs in the order the scheduler considers them, reservations, policy) turned into
 * the API's QueueInfo with each job's details from the store, then the jobs whose pending tasks
 * all wait out a retry backoff (not in a pass yet; their reason says how long), each with the
 * duration the planner plans its tasks with (predicted or its limit), then the jobs that wait on
 * their `--after` dependencies (not in the queue yet either; reason `(Dependency) waiting for /prep
 * (RUNNING)`, as squeue's `(Dependency)`), oldest first; and per user their running usage, quota,
 * share and borrowed part (queue/shares.ts, on the running attempts now). Pure reads.
 */
import type { QueueInfo, RuntimeEstimateInfo, UsageInfo, UserShareInfo } from '../api/types.js';
import { borrowedTasks, userShares, type RunningUse, type Usage } from '../cluster/scheduler/queue/shares.js';
import { isMergedMember, type Quota } from '../model/types.js';
import { runtimeEstimate } from '../cluster/scheduler/planner/index.js';
import type { RuntimeEstimate } from '../cluster/scheduler/planner/index.js';
import type { QueueListing } from '../cluster/controller/queue-listing.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { jobReason } from './pending-reason.js';
import { bandOf } from '../model/band.js';
import { describeQueueWorkers } from '../model/queues.js';

export function queueInfo(
  state: QueueListing,
  store: ClusterStore,
  now: number,
  quotas: ReadonlyMap<string, Quota> = new Map(),
): QueueInfo {
  const { policy, queueDepth, reservationDepth } = state;
  const listed = new Set(state.pending.map((p) => p.job));
  // Jobs whose every pending task waits out a retry backoff are not the scheduler's yet: last.
  const backoff = new Map<string, number>();
  for (const task of store.pendingTasks()) {
    if (listed.has(task.job) || task.eligibleAt === null || task.eligibleAt <= now) continue;
    backoff.set(task.job, (backoff.get(task.job) ?? 0) + 1);
  }
  // Jobs that wait on their dependencies are in no queue at all: after those.
  const held = [...store.waitingJobs()]
    .sort((a, b) => a.submittedAt - b.submittedAt || a.seq - b.seq)
    .map((job) => ({
      job: job.name,
      pendingTasks: store.tasksOf(job.name).filter((t) => t.state === 'PENDING').length,
    }));
  const entries = [...state.pending, ...[...backoff].map(([job, pendingTasks]) => ({ job, pendingTasks })), ...held];
  const jobs = entries.map(({ job: name, pendingTasks }, i) => {
    const job = store.job(name)!;
    const dependency = store.dependencyWait(name);
    return {
      position: i + 1,
      job: name,
      user: job.spec.user,
      band: bandOf(job.spec),
      ...(job.spec.queue !== undefined ? { queue: job.spec.queue } : {}),
      depth: job.depth,
      pendingTasks,
      submittedAt: job.submittedAt,
      timeLimitMs: job.spec.timeoutMs,
      estimate: estimateInfo(runtimeEstimate(job.spec, store.runtimes)),
      reason: dependency === null ? jobReason(store, job, store.tasksOf(name), now) : `(Dependency) ${dependency}`,
      reservedStart: state.reservations.get(name) ?? null,
    };
  });
  const info: QueueInfo = { policy, queueDepth, reservationDepth, jobs, users: userShareInfos(store, quotas) };
  if (state.queues)
    info.queues = state.queues.map((q) => ({
      name: q.name,
      policy: q.policy,
      queueDepth: q.queueDepth,
      reservationDepth: q.reservationDepth,
      workers: describeQueueWorkers(q.workers),
      default: q.isDefault,
    }));
  return info;
}

/** The running attempts as quotas count them (as the scheduler's snapshot does). */
function runningUses(store: ClusterStore): RunningUse[] {
  const uses: RunningUse[] = [];
  for (const attempt of store.activeAttempts()) {
    // A merged batch's member holds nothing of its own (snapshot.ts skips it too).
    if (isMergedMember(attempt)) continue;
    const task = store.task(attempt.task);
    const job = task && store.job(task.job);
    if (!job) continue;
    const r = job.spec.resources;
    uses.push({
      task: attempt.task,
      user: job.spec.user,
      startedAt: attempt.startedAt,
      cpuMillis: r.cpuMillis,
      memoryBytes: r.memoryBytes,
      accelerators: attempt.devices.length,
    });
  }
  return uses;
}

/** Task id -> `borrowed: beyond alice's cpu quota 8`, for the running tasks beyond a soft quota now. */
export function borrowedNow(store: ClusterStore, quotas: ReadonlyMap<string, Quota>): Map<string, string> {
  return quotas.size === 0 ? new Map() : borrowedTasks(runningUses(store), quotas);
}

const usageInfo = (u: Usage): UsageInfo => ({
  cpu: u.cpuMillis / 1000,
  memoryBytes: u.memoryBytes,
  accelerators: u.accelerators,
});

/** `iris queue --users`: each user who runs something or has a quota, by name. */
export function userShareInfos(store: ClusterStore, quotas: ReadonlyMap<string, Quota>): UserShareInfo[] {
  const totals: Usage = { cpuMillis: 0, memoryBytes: 0, accelerators: 0 };
  for (const worker of store.workers()) {
    totals.cpuMillis += worker.cpuMillis;
    totals.memoryBytes += worker.memoryBytes;
    totals.accelerators += worker.device.count;
  }
  return userShares(runningUses(store), quotas, totals).map((s) => ({
    user: s.user,
    running: usageInfo(s.usage),
    quota: s.quota && {
      cpu: s.quota.maxRunningCpuMillis === null ? null : s.quota.maxRunningCpuMillis / 1000,
      memoryBytes: s.quota.maxRunningMemoryBytes,
      accelerators: s.quota.maxRunningAccelerators,
      weight: s.quota.weight,
      hard: s.quota.hard,
    },
    share: s.share,
    borrowed: usageInfo(s.borrowed),
    borrowedTasks: s.borrowedTasks,
  }));
}

/** The planner's estimate of a job's task duration as the API gives it (`iris queue`, `--dry-run`). */
export function estimateInfo(estimate: RuntimeEstimate): RuntimeEstimateInfo {
  const { duration, source, runs } = estimate;
  return { durationMs: Number.isFinite(duration) ? duration : null, source, runs };
}
