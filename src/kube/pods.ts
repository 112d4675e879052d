/**
 * Pure construction of the Pod of one attempt (docs/kubernetes.md, "Pods"). Guarantees:
 * - The Pod's name is a function of (cluster, task, attempt) only, so a second create of the
 *   same attempt (after a controller restart) meets the first one (409) instead of running twice.
 * - `schedulerName: iris` (nothing else places it; iris binds it), `restartPolicy: Never`, no
 *   `nodeName` (the binding sets it), one container `task` running the launch's argv with the
 *   launch's environment exactly (a container launch's token file as IRIS_TASK_TOKEN, podEnv).
 * - Labels carry the attempt's identity in label-safe form (cluster, job, task, attempt, and
 *   `iris/managed-by: iris`) for selection; annotations carry the exact values (job and task
 *   names contain `/`, which a label value may not), and the log path.
 * - Requests: cpu in millicores and memory in bytes; `google.com/tpu` / `nvidia.com/gpu` as
 *   requests and limits (extended resources need both) when the launch has a device.
 * - The image is the job's container image, else the backend's `image`; with neither, podFor
 *   throws a user-facing error (a Pod cannot run without one).
 */
import { createHash } from 'node:crypto';
import { invalid } from '../model/errors.js';
import type { TaskKey, TaskLaunch } from '../runtime/types.js';
import { RESOURCE_GPU, RESOURCE_TPU } from './nodes.js';

export const LABEL_MANAGED = 'iris/managed-by';
export const LABEL_CLUSTER = 'iris/cluster';
export const LABEL_JOB = 'iris/job';
export const LABEL_TASK = 'iris/task';
export const LABEL_ATTEMPT = 'iris/attempt';
export const ANNOTATION_JOB = 'iris/job';
export const ANNOTATION_TASK = 'iris/task';
export const ANNOTATION_ATTEMPT = 'iris/attempt';
export const ANNOTATION_LOG = 'iris/log-path';
export const ANNOTATION_GANG = 'iris/gang';
export const CONTAINER_NAME = 'task';
export const SCHEDULER_NAME = 'iris';

/** A label value from free text: at most 63 of [A-Za-z0-9-_.], starting and ending alphanumeric. */
export function labelValue(text: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 63)
    .replace(/[^A-Za-z0-9]+$/, '');
  return cleaned;
}

/**
 * The Pod name of an attempt: `iris-<task, readable>-<attempt>-<hash>`, a valid DNS subdomain of at most 63 characters.
 */
export function podName(clusterId: string, key: TaskKey): string {
  const hash = createHash('sha256').update(`${clusterId}\0${key.task}\0${key.attempt}`).digest('hex').slice(0, 10);
  const readable = key.task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 36)
    .replace(/-+$/, '');
  return `iris-${readable ? `${readable}-` : ''}${key.attempt}-${hash}`;
}

/** The label selector of every Pod of one cluster. */
export function clusterSelector(clusterId: string): string {
  return `${LABEL_MANAGED}=iris,${LABEL_CLUSTER}=${labelValue(clusterId)}`;
}

export interface PodOptions {
  clusterId: string;
  namespace: string;
  /** The backend's `image`, for a job that names none; null: none. */
  image: string | null;
}

/** A Pod manifest as the API takes it (a V1Pod). */
export interface PodManifest {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: {
    schedulerName: string;
    restartPolicy: 'Never';
    terminationGracePeriodSeconds?: number;
    containers: Array<{
      name: string;
      image: string;
      command: string[];
      env: Array<{ name: string; value: string }>;
      workingDir?: string;
      resources: { requests: Record<string, string>; limits?: Record<string, string> };
    }>;
  };
}

/**
 * The Pod's environment: the launch's, except that a container launch's token file
 * (ContainerSpec.tokenFile) becomes IRIS_TASK_TOKEN: a Pod gets its token in its environment, as
 * its spec shows it to whoever may read Pods of the namespace (docs/security.md).
 */
export function podEnv(launch: TaskLaunch): Record<string, string> {
  const file = launch.container?.tokenFile;
  if (!file) return launch.env;
  const { IRIS_TASK_TOKEN_FILE: _, ...env } = launch.env;
  return { ...env, IRIS_TASK_TOKEN: file.token };
}

/** The Pod of one attempt. Throws IrisError('invalid_argument') when there is no image to run. */
export function podFor(launch: TaskLaunch, options: PodOptions, graceMs?: number): PodManifest {
  const image = launch.container?.image ?? options.image;
  if (!image) {
    throw invalid(
      `job ${launch.key.job} names no image, and the kubernetes backend has no default image`,
      'submit with --image IMAGE, or set backend.image in the cluster config',
    );
  }
  const requests: Record<string, string> = {
    cpu: `${Math.max(1, launch.resources.cpuMillis)}m`,
    memory: String(launch.resources.memoryBytes),
  };
  let limits: Record<string, string> | undefined;
  const device = launch.resources.device;
  if (device) {
    const count =
      launch.deviceIndices.length > 0
        ? launch.deviceIndices.length
        : device.type === 'gpu'
          ? device.count
          : device.chips;
    const resource = device.type === 'tpu' ? RESOURCE_TPU : RESOURCE_GPU;
    requests[resource] = String(count);
    limits = { [resource]: String(count) };
  }
  const annotations: Record<string, string> = {
    [ANNOTATION_JOB]: launch.key.job,
    [ANNOTATION_TASK]: launch.key.task,
    [ANNOTATION_ATTEMPT]: String(launch.key.attempt),
    [ANNOTATION_LOG]: launch.logPath,
  };
  if (launch.gang) annotations[ANNOTATION_GANG] = `${launch.gang.id} (${launch.gang.size} pods)`;
  const cwd = launch.container ? launch.cwd : '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(options.clusterId, launch.key),
      namespace: options.namespace,
      labels: {
        [LABEL_MANAGED]: 'iris',
        [LABEL_CLUSTER]: labelValue(options.clusterId),
        [LABEL_JOB]: labelValue(launch.key.job),
        [LABEL_TASK]: labelValue(launch.key.task),
        [LABEL_ATTEMPT]: String(launch.key.attempt),
      },
      annotations,
    },
    spec: {
      schedulerName: SCHEDULER_NAME,
      restartPolicy: 'Never',
      ...(graceMs === undefined ? {} : { terminationGracePeriodSeconds: Math.ceil(graceMs / 1000) }),
      containers: [
        {
          name: CONTAINER_NAME,
          image,
          command: launch.argv,
          env: Object.entries(podEnv(launch)).map(([name, value]) => ({ name, value })),
          ...(cwd ? { workingDir: cwd } : {}),
          resources: { requests, ...(limits ? { limits } : {}) },
        },
      ],
    },
  };
}

/** The attempt a Pod of iris belongs to, from its annotations; null for a Pod without them. */
export function podKey(pod: { metadata?: { annotations?: Record<string, string> | null } | null }): TaskKey | null {
  const a = pod.metadata?.annotations ?? {};
  const attempt = Number(a[ANNOTATION_ATTEMPT]);
  if (!a[ANNOTATION_JOB] || !a[ANNOTATION_TASK] || !Number.isInteger(attempt)) return null;
  return { job: a[ANNOTATION_JOB], task: a[ANNOTATION_TASK], attempt };
}
