/** Turns store records into the wire views of src/api/types.ts. Pure reads. */
import type { ClusterStore } from '../cluster/state/store.js';
import type { Job, Task, Worker } from '../model/types.js';
import { retryBackoffCapMs } from '../cluster/state/transitions.js';
import type { TaskState } from '../model/states.js';
import { describeDevice } from '../model/resources.js';
import type { ClusterInfo, JobDetail, JobSummary, TaskInfo, WorkerInfo } from '../api/types.js';
import type { WorkerUse } from '../cluster/controller/snapshot.js';
import { attemptKey } from '../cluster/state/keys.js';
import { jobReason, taskReason } from './pending-reason.js';

/** `now`: the time pending reasons count a retry backoff from (pending-reason.ts). */
export function jobSummary(store: ClusterStore, job: Job, now: number): JobSummary {
  const byState: Partial<Record<TaskState, number>> = {};
  const tasks = store.tasksOf(job.name);
  for (const task of tasks) byState[task.state] = (byState[task.state] ?? 0) + 1;
  return {
    name: job.name,
    user: job.spec.user,
    ...(job.spec.submitter ? { submitter: job.spec.submitter } : {}),
    state: job.state,
    reason: jobReason(store, job, tasks, now),
    depth: job.depth,
    parent: job.parent,
    replicas: job.spec.replicas,
    tasks: { total: tasks.length, byState },
    submittedAt: job.submittedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

/** `stopping`: attemptKey()s of ended attempts whose process is not gone yet (Controller.held). */
export function jobDetail(store: ClusterStore, job: Job, now: number, stopping: ReadonlySet<string> = new Set()): JobDetail {
  const spec = job.spec;
  const taskList = store.tasksOf(job.name).map((task) => taskInfo(store, job, task, now, stopping));
  return {
    ...jobSummary(store, job, now),
    command: spec.command,
    resources: { cpu: spec.resources.cpuMillis / 1000, memoryBytes: spec.resources.memoryBytes, device: describeDevice(spec.resources.device) },
    constraints: spec.constraints,
    coschedule: spec.coschedule,
    maxRetries: spec.maxRetries,
    retryBackoffMs: spec.retryBackoffMs ?? null,
    retryBackoffMaxMs: spec.retryBackoffMs ? retryBackoffCapMs(spec.retryBackoffMs, spec.retryBackoffMaxMs) : null,
    maxTaskFailures: spec.maxTaskFailures,
    maxPreemptions: spec.maxPreemptions,
    timeoutMs: spec.timeoutMs,
    schedulingTimeoutMs: spec.schedulingTimeoutMs,
    taskList,
    children: store.children(job.name).map((child) => jobSummary(store, child, now)),
  };
}

/** One task with its attempts; its reason is its pending reason while it is PENDING. */
export function taskInfo(store: ClusterStore, job: Job, task: Task, now: number, stopping: ReadonlySet<string> = new Set()): TaskInfo {
  return {
    id: task.id,
    index: task.index,
    state: task.state,
    attempt: task.attempt,
    workerId: task.workerId,
    exitCode: task.exitCode,
    reason: taskReason(store, job, task, now),
    failures: task.failures,
    preemptions: task.preemptions,
    startedAt: task.startedAt,
    finishedAt: task.finishedAt,
    eligibleAt: task.state === 'PENDING' ? task.eligibleAt : null,
    attempts: store.attemptsOf(task.id).map((a) => ({
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
