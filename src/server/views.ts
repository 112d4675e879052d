/**
 * Turns store records into the wire views of src/api/types.ts. Pure reads. A live job and an
 * archived run (NAME@RUN) go through the same views (RunData), so they look alike on the wire.
 */
import type { ArchivedRun, ClusterStore } from '../cluster/state/store.js';
import type { Attempt, Job, Task, Worker } from '../model/types.js';
import type { TaskState } from '../model/states.js';
import { describeDevice } from '../model/resources.js';
import type { ClusterInfo, JobDetail, JobSummary, TaskInfo, WorkerInfo } from '../api/types.js';
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

export function liveRun(store: ClusterStore, job: Job): RunData {
  const tasks = store.tasksOf(job.name);
  return { job, tasks, attempts: tasks.map((task) => store.attemptsOf(task.id)), archived: false };
}

export function archivedRunData(record: ArchivedRun): RunData {
  return { job: record.job, tasks: record.tasks, attempts: record.attempts, archived: true };
}

export function runSummary({ job, tasks, archived }: RunData): JobSummary {
  const byState: Partial<Record<TaskState, number>> = {};
  for (const task of tasks) byState[task.state] = (byState[task.state] ?? 0) + 1;
  return {
    name: job.name,
    run: job.run,
    archived,
    user: job.spec.user,
    ...(job.spec.submitter ? { submitter: job.spec.submitter } : {}),
    state: job.state,
    reason: job.reason,
    depth: job.depth,
    parent: job.parent,
    replicas: job.spec.replicas,
    tasks: { total: tasks.length, byState },
    submittedAt: job.submittedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

export function jobSummary(store: ClusterStore, job: Job): JobSummary {
  return runSummary(liveRun(store, job));
}

/** `stopping`: attemptKey()s of ended attempts whose process is not gone yet (Controller.held). */
export function jobDetail(store: ClusterStore, job: Job, stopping: ReadonlySet<string> = new Set()): JobDetail {
  return runDetail(liveRun(store, job), store.children(job.name).map((child) => jobSummary(store, child)), stopping);
}

/** An archived run with the archived runs of its children. */
export function archivedJobDetail(store: ClusterStore, record: ArchivedRun): JobDetail {
  const children = record.children.map((run) => store.archive.get(run)).filter((r) => r !== null);
  return runDetail(archivedRunData(record), children.map((child) => runSummary(archivedRunData(child))), new Set());
}

function runDetail(data: RunData, children: JobSummary[], stopping: ReadonlySet<string>): JobDetail {
  const spec = data.job.spec;
  const taskList: TaskInfo[] = data.tasks.map((task, i) => ({
    id: task.id,
    index: task.index,
    state: task.state,
    attempt: task.attempt,
    workerId: task.workerId,
    exitCode: task.exitCode,
    reason: task.reason,
    failures: task.failures,
    preemptions: task.preemptions,
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    attempts: (data.attempts[i] ?? []).map((a) => ({
      attempt: a.attempt,
      workerId: a.workerId,
      state: a.state,
      exitCode: a.exitCode,
      reason: a.reason,
      startedAt: a.startedAt,
      finishedAt: a.finishedAt,
      logCutBytes: a.logCutBytes,
      cpuSeconds: a.cpuSeconds,
      peakMemoryBytes: a.peakMemoryBytes,
      ...(stopping.has(attemptKey(a.task, a.attempt)) ? { stopping: true as const } : {}),
    })),
  }));
  return {
    ...runSummary(data),
    command: spec.command,
    resources: { cpu: spec.resources.cpuMillis / 1000, memoryBytes: spec.resources.memoryBytes, device: describeDevice(spec.resources.device) },
    constraints: spec.constraints,
    coschedule: spec.coschedule,
    maxRetries: spec.maxRetries,
    maxTaskFailures: spec.maxTaskFailures,
    maxPreemptions: spec.maxPreemptions,
    timeoutMs: spec.timeoutMs,
    schedulingTimeoutMs: spec.schedulingTimeoutMs,
    taskList,
    children,
  };
}

export function workerInfo(worker: Worker, use: WorkerUse | undefined): WorkerInfo {
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
