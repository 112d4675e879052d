/**
 * Pure construction of a TaskLaunch from a job, a task and its placement: the task's full
 * environment (inherited base env, the job's -e variables, the IRIS_* contract), its log path
 * and labels. The runtime applies it as-is (DESIGN principle 7).
 */
import path from 'node:path';
import type { Job, Task } from '../model/types.js';
import type { TaskLaunch } from '../../runtime/types.js';

export interface LaunchContext {
  clusterId: string;
  home: string;
  socketPath: string;
  /** Directory holding the `iris` shim, prepended to PATH so tasks can run `iris submit`. */
  cliBinDir: string;
  /** Environment every task starts from (the cluster's own, minus IRIS_* variables). */
  baseEnv: Readonly<Record<string, string>>;
}

export function logPathFor(home: string, taskId: string, attempt: number): string {
  return path.join(home, 'logs', ...taskId.split('/').filter(Boolean), `attempt-${attempt}.log`);
}

export function jobLogDir(home: string, job: string): string {
  return path.join(home, 'logs', ...job.split('/').filter(Boolean));
}

/** The daemon's environment without variables that would confuse a task about who it is. */
export function inheritableEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key.startsWith('IRIS_')) continue;
    out[key] = value;
  }
  return out;
}

export function buildLaunch(
  ctx: LaunchContext,
  job: Job,
  task: Task,
  placement: { workerId: string; deviceIndices: number[]; attempt: number; token: string; logPath: string },
): TaskLaunch {
  const spec = job.spec;
  const basePath = spec.env.PATH ?? ctx.baseEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  const env: Record<string, string> = {
    ...ctx.baseEnv,
    ...spec.env,
    PATH: `${ctx.cliBinDir}${path.delimiter}${basePath}`,
    IRIS_CLUSTER_ID: ctx.clusterId,
    IRIS_JOB_ID: job.name,
    IRIS_TASK_ID: task.id,
    IRIS_TASK_INDEX: String(task.index),
    IRIS_NUM_TASKS: String(spec.replicas),
    IRIS_ATTEMPT: String(placement.attempt),
    IRIS_WORKER_ID: placement.workerId,
    IRIS_CONTROLLER_ADDRESS: ctx.socketPath,
    IRIS_TASK_TOKEN: placement.token,
    IRIS_USER: spec.user,
  };
  const device = spec.resources.device;
  if (device?.type === 'gpu' && placement.deviceIndices.length > 0) {
    const ids = placement.deviceIndices.join(',');
    env.CUDA_VISIBLE_DEVICES = ids;
    env.NVIDIA_VISIBLE_DEVICES = ids;
  }
  return {
    key: { job: job.name, task: task.id, attempt: placement.attempt },
    argv: spec.command,
    env,
    cwd: spec.cwd ?? ctx.home,
    logPath: placement.logPath,
    resources: spec.resources,
    deviceIndices: placement.deviceIndices,
    labels: {
      'iris.cluster': ctx.clusterId,
      'iris.job': job.name,
      'iris.task': task.id,
      'iris.attempt': String(placement.attempt),
    },
  };
}
