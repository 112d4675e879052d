/**
 * Turns store records into the wire views of src/api/types.ts. Pure reads. A live job and an
 * archived run (NAME@RUN) go through the same views (RunData), so they look alike on the wire.
 */
import { bandOf } from '../model/band.js';
import type { ArchivedRun, ClusterStore } from '../cluster/state/store.js';
import type { Attempt, Job, JobSpec, Task, Worker } from '../model/types.js';
import { costPerHourOf } from '../model/types.js';
import { drawsPower, useShare, wattsAt } from '../model/energy.js';
import { retryBackoffCapMs } from '../cluster/lifecycle/retries.js';
import { jobReason, taskReason } from './pending-reason.js';
import { isFinalJobState, type TaskState } from '../model/states.js';
import { describeDevice } from '../model/resources.js';
import type {
  AttemptInfo,
  ClusterInfo,
  ExecSummary,
  JobDetail,
  JobSummary,
  RequeueSummary,
  RunsIn,
  TaskInfo,
  WorkerCacheHint,
  WorkerInfo,
} from '../api/types.js';
import type { ExecRecord } from '../cluster/state/events.js';
import { shownEnv } from '../model/secret-env.js';
import type { RequeueReason } from '../model/requeue.js';
import { parseAttemptHistoryName } from '../cluster/state/events.js';
import type { WorkerUse } from '../cluster/controller/snapshot.js';
import { attemptKey } from '../cluster/state/keys.js';

/** A job run as the views read it: the live job of a name (store) or an archived run (its record). */
export interface RunData {
  job: Job;
  tasks: readonly Task[];
  /** Attempts of each task, same index as `tasks`. */
  attempts: readonly (readonly Attempt[])[];
  archived: boolean;
}

/** What an attempt's wire views share: where it ran and how it ended. */
type AttemptOutcome = Pick<
  AttemptInfo,
  'attempt' | 'workerId' | 'state' | 'exitCode' | 'reason' | 'startedAt' | 'finishedAt'
>;

/**
 * How an attempt went, the same fields in the same key order in every wire view of an attempt (a
 * task's attempts, a run's in `iris history`); each view adds its own fields around them.
 */
export function attemptOutcome(a: Attempt): AttemptOutcome {
  return {
    attempt: a.attempt,
    workerId: a.workerId,
    state: a.state,
    exitCode: a.exitCode,
    reason: a.reason,
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
  };
}

export function liveRun(store: ClusterStore, job: Job): RunData {
  const tasks = store.tasksOf(job.name);
  return { job, tasks, attempts: tasks.map((task) => store.attemptsOf(task.id)), archived: false };
}

export function archivedRunData(record: ArchivedRun): RunData {
  return { job: record.job, tasks: record.tasks, attempts: record.attempts, archived: true };
}

/** `reason`: the reason to show (a live job's pending reason, pending-reason.ts); default the stored one. */
export function runSummary({ job, tasks, archived }: RunData, reason: string | null = job.reason): JobSummary {
  const byState: Partial<Record<TaskState, number>> = {};
  for (const task of tasks) byState[task.state] = (byState[task.state] ?? 0) + 1;
  return {
    name: job.name,
    run: job.run,
    archived,
    user: job.spec.user,
    ...(job.spec.submitter ? { submitter: job.spec.submitter } : {}),
    band: bandOf(job.spec),
    ...(job.spec.queue !== undefined ? { queue: job.spec.queue } : {}),
    state: job.state,
    reason,
    depth: job.depth,
    parent: job.parent,
    replicas: job.spec.replicas,
    tasks: { total: tasks.length, byState },
    submittedAt: job.submittedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

/** `now`: the time pending reasons count a retry backoff from (pending-reason.ts). */
export function jobSummary(store: ClusterStore, job: Job, now: number): JobSummary {
  // No attempts: a summary counts task states only, and a listing of 100,000 tasks would look
  // up (and copy) every task's attempts for nothing (docs/benchmarks.md, "Memory").
  const tasks = store.tasksOf(job.name);
  const summary = runSummary({ job, tasks, attempts: [], archived: false }, jobReason(store, job, tasks, now));
  const live = liveDescendants(store, job);
  return live > 0 ? { ...summary, liveDescendants: live } : summary;
}

/**
 * `stopping`: attemptKey()s of ended attempts whose process is not gone yet (Controller.held);
 * `borrowed`: running task -> why it is borrowed (queue-view.ts borrowedNow).
 */
export function jobDetail(
  store: ClusterStore,
  job: Job,
  now: number,
  stopping: ReadonlySet<string> = new Set(),
  borrowed: ReadonlyMap<string, string> = new Map(),
): JobDetail {
  const data = liveRun(store, job);
  const children = store.children(job.name).map((child) => jobSummary(store, child, now));
  const detail = runDetail(
    data,
    jobReason(store, job, data.tasks, now),
    children,
    (task) => taskReason(store, job, task, now),
    stopping,
    borrowed,
  );
  const live = liveDescendants(store, job);
  return live > 0 ? { ...detail, liveDescendants: live } : detail;
}

/** For a job that has ended: how many jobs below it have not (a SUCCEEDED parent leaves them running). */
function liveDescendants(store: ClusterStore, job: Job): number {
  if (!isFinalJobState(job.state) || store.children(job.name).length === 0) return 0;
  return store.descendants(job.name).filter((d) => !isFinalJobState(d.state)).length;
}

/** An archived run with the archived runs of its children (ended: their stored reasons). */
export function archivedJobDetail(store: ClusterStore, record: ArchivedRun): JobDetail {
  const children = record.children.map((run) => store.archive.get(run)).filter((r) => r !== null);
  const data = archivedRunData(record);
  return runDetail(
    data,
    data.job.reason,
    children.map((child) => runSummary(archivedRunData(child))),
    (task) => task.reason,
    new Set(),
  );
}

/** One live task with its attempts; its reason is its pending reason while it is PENDING. */
export function taskInfo(
  store: ClusterStore,
  job: Job,
  task: Task,
  now: number,
  stopping: ReadonlySet<string> = new Set(),
  borrowed: ReadonlyMap<string, string> = new Map(),
): TaskInfo {
  return taskView(task, store.attemptsOf(task.id), taskReason(store, job, task, now), stopping, borrowed);
}

function runDetail(
  data: RunData,
  reason: string | null,
  children: JobSummary[],
  reasonOf: (task: Task) => string | null,
  stopping: ReadonlySet<string>,
  borrowed: ReadonlyMap<string, string> = new Map(),
): JobDetail {
  const spec = data.job.spec;
  const taskList = data.tasks.map((task, i) =>
    taskView(task, data.attempts[i] ?? [], reasonOf(task), stopping, borrowed),
  );
  return {
    ...runSummary(data, reason),
    command: spec.command,
    resources: {
      cpu: spec.resources.cpuMillis / 1000,
      memoryBytes: spec.resources.memoryBytes,
      device: describeDevice(spec.resources.device),
      ...(spec.resources.device?.type === 'gpu' && spec.resources.device.memoryBytes != null
        ? { gpuMemoryBytes: spec.resources.device.memoryBytes }
        : {}),
    },
    constraints: spec.constraints,
    coschedule: spec.coschedule,
    maxRetries: spec.maxRetries,
    retryBackoffMs: spec.retryBackoffMs ?? null,
    retryBackoffMaxMs: spec.retryBackoffMs ? retryBackoffCapMs(spec.retryBackoffMs, spec.retryBackoffMaxMs) : null,
    maxTaskFailures: spec.maxTaskFailures,
    maxPreemptions: spec.maxPreemptions,
    timeoutMs: spec.timeoutMs,
    schedulingTimeoutMs: spec.schedulingTimeoutMs,
    ...(spec.after?.length ? { after: spec.after } : {}),
    ...(data.job.cause ? { cause: data.job.cause } : {}),
    ...(spec.stage ? { stage: spec.stage } : {}),
    ...(spec.category ? { category: spec.category } : {}),
    ...(spec.uses?.length ? { uses: spec.uses } : {}),
    ...(spec.mergeKey ? { mergeKey: spec.mergeKey } : {}),
    ...(spec.pipeline ? { stages: stageViews(data.job.name, spec.pipeline.stages, children) } : {}),
    runsIn: runsIn(spec),
    taskList,
    children,
  };
}

/** A pipeline root's stages with the states of their jobs (its children). */
function stageViews(
  root: string,
  stages: ReadonlyArray<{ name: string; needs: string[] }>,
  children: readonly JobSummary[],
): NonNullable<JobDetail['stages']> {
  const byName = new Map(children.map((child) => [child.name, child]));
  return stages.map(({ name, needs }) => {
    const job = `${root}/${name}`;
    const child = byName.get(job);
    return { stage: name, job, needs, state: child?.state ?? null, reason: child?.reason ?? null };
  });
}

/**
 * One task of an archived run (its job ended and left memory: state/finished-trees.ts), as
 * `taskInfo` gives a live one: its stored reason, no attempt stopping. Undefined: no such index.
 */
export function archivedTaskInfo(record: ArchivedRun, index: number): TaskInfo | undefined {
  const at = record.tasks.findIndex((task) => task.index === index);
  if (at < 0) return undefined;
  const task = record.tasks[at]!;
  return taskView(task, record.attempts[at] ?? [], task.reason, new Set());
}

function taskView(
  task: Task,
  attempts: readonly Attempt[],
  reason: string | null,
  stopping: ReadonlySet<string>,
  borrowed: ReadonlyMap<string, string> = new Map(),
): TaskInfo {
  const borrowing = task.state === 'RUNNING' ? borrowed.get(task.id) : undefined;
  return {
    id: task.id,
    index: task.index,
    state: task.state,
    attempt: task.attempt,
    workerId: task.workerId,
    exitCode: task.exitCode,
    reason,
    failures: task.failures,
    preemptions: task.preemptions,
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    eligibleAt: task.state === 'PENDING' ? task.eligibleAt : null,
    ...(borrowing !== undefined ? { borrowed: borrowing } : {}),
    attempts: attempts.map((a) => ({
      ...attemptOutcome(a),
      logCutBytes: a.logCutBytes,
      cpuSeconds: a.cpuSeconds,
      peakMemoryBytes: a.peakMemoryBytes,
      placement: a.placement ?? null,
      ...(a.merged ? { merged: { lead: a.merged.lead, tasks: [...a.merged.tasks] } } : {}),
      ...(stopping.has(attemptKey(a.task, a.attempt)) ? { stopping: true as const } : {}),
    })),
  };
}

/** A worker's `power-watts` and what it draws now, by the one energy rule (model/energy.ts). */
function powerOf(worker: Worker, use: WorkerUse | undefined): Pick<WorkerInfo, 'powerWatts' | 'drawWatts'> {
  const power = worker.powerWatts!;
  const share = useShare(worker, { cpuMillis: use?.cpuMillis ?? 0, devices: use?.devices.size ?? 0 });
  return { powerWatts: { ...power }, drawWatts: drawsPower(worker.state) ? wattsAt(power, share) : 0 };
}

/** `hints`: the worker's context-reuse hints in force now (store.cacheHints()), listed by key. */
export function workerInfo(
  worker: Worker,
  use: WorkerUse | undefined,
  hints?: ReadonlyMap<string, WorkerCacheHint>,
): WorkerInfo {
  return {
    id: worker.id,
    state: worker.state,
    device: worker.device,
    attributes: worker.attributes,
    capacity: { cpuMillis: worker.cpuMillis, memoryBytes: worker.memoryBytes, devices: worker.device.count },
    used: { cpuMillis: use?.cpuMillis ?? 0, memoryBytes: use?.memoryBytes ?? 0, devices: use?.devices.size ?? 0 },
    cpuReleasedMillis: use?.cpuReleasedMillis ?? 0,
    cpuOversubscribedMillis: Math.max(0, (use?.cpuMillis ?? 0) - worker.cpuMillis),
    runningTasks: use?.tasks ?? [],
    ...(worker.hostname !== undefined ? { hostname: worker.hostname } : {}),
    ...(worker.devicePaths !== undefined ? { devicePaths: worker.devicePaths } : {}),
    ...(worker.privileged ? { privileged: true } : {}),
    costPerHour: costPerHourOf(worker),
    ...(worker.powerWatts ? powerOf(worker, use) : {}),
    cache: [...(hints?.values() ?? [])]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((h) => ({ key: h.key, expiresAt: h.expiresAt, loading: h.loading })),
    ...(worker.state === 'DISABLED' && worker.disabled ? { disabled: worker.disabled } : {}),
    ...(worker.left ? { left: worker.left.by } : {}),
  };
}

/** The cluster's CPU totals over its workers (`iris cluster status`). */
export function cpuTotals(workers: readonly WorkerInfo[]): ClusterInfo['cpu'] {
  const cpu = { capacityMillis: 0, usedMillis: 0, releasedMillis: 0, oversubscribedMillis: 0 };
  for (const w of workers) {
    cpu.capacityMillis += w.capacity.cpuMillis;
    cpu.usedMillis += w.used.cpuMillis;
    cpu.releasedMillis += w.cpuReleasedMillis;
    cpu.oversubscribedMillis += w.cpuOversubscribedMillis;
  }
  return cpu;
}

/** Most requeue events a job's detail lists (the counts cover all of them). */
export const RECENT_REQUEUES = 20;

/** Run `run`'s requeue events (model/requeue.ts) as JobDetail.requeues; undefined when it had none. */
export function requeueSummary(store: ClusterStore, run: number): RequeueSummary | undefined {
  const { counts, recent } = store.archive.requeues(run, RECENT_REQUEUES);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  if (total === 0) return undefined;
  return {
    total,
    byReason: counts as RequeueSummary['byReason'],
    recent: recent.map((entry) => {
      const attempt = parseAttemptHistoryName(entry.name);
      return {
        time: entry.time,
        reason: entry.state as RequeueReason,
        task: attempt?.task ?? null,
        attempt: attempt?.attempt ?? null,
        detail: entry.reason,
      };
    }),
  };
}

/**
 * What a job's tasks run in and see (JobDetail.runsIn, EstimateResponse.runsIn): a secret-looking
 * variable's value is never in it (model/secret-env.ts), so neither `iris status` nor `--dry-run`
 * (nor their --json) can print one.
 */
export function runsIn(spec: JobSpec): RunsIn {
  return {
    image: spec.image,
    cwd: spec.cwd,
    mounts: (spec.mounts ?? []).map(({ source, target, readOnly }) => ({ source, target, readOnly })),
    containerUser: spec.image ? (spec.containerUser ?? null) : null,
    env: shownEnv(spec.env),
  };
}

/** Most `iris exec` events a job's detail lists (the total covers all of them). */
export const RECENT_EXECS = 20;

/** Run `run`'s `iris exec` events as JobDetail.execs; undefined when there were none. */
export function execSummary(store: ClusterStore, run: number): ExecSummary | undefined {
  const { total, recent } = store.archive.execs(run, RECENT_EXECS);
  if (total === 0) return undefined;
  return {
    total,
    recent: recent.flatMap((entry) => {
      const attempt = parseAttemptHistoryName(entry.name);
      let record: ExecRecord;
      try {
        record = JSON.parse(entry.reason ?? '') as ExecRecord;
      } catch {
        return [];
      }
      if (!attempt) return [];
      return [
        {
          time: entry.time,
          task: attempt.task,
          attempt: attempt.attempt,
          by: record.by,
          command: record.command,
          tty: record.tty === true,
        },
      ];
    }),
  };
}
