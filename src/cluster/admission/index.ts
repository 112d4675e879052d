/**
 * Admission: the one rule set a submission passes before the store sees it (docs/api.md,
 * docs/architecture.md). Pure: `(request, caller, cluster view, defaults) -> JobSpec | refusal`.
 *
 * - Values: the user's strings become canonical data (./values.ts); the name follows the
 *   naming rules (./naming.ts); a multi-host TPU job becomes one gang over a slice (./tpu-gang.ts).
 * - A task caller's children run as the caller's user and inherit the caller job's env (minus
 *   IRIS_ variables) under the request's own env; another user is forbidden (only the owner, without a token, may
 *   submit for another user: the spec records `submitter`, the OS user, beside `user`). (Their tree's root
 *   submission time is taken from the stored parent by the store.)
 * - What the job runs in (image or process, container user, network, privileged) follows
 *   ./isolation.ts: a child inherits its parent's isolation and can never lower it.
 * - What the job sees of the host (its working directory; a container's mounts, the submit
 *   directory among them, and the owner's uid:gid as its user with a mount) follows
 *   ./workspace.ts: a child inherits its parent's mounts and can never add a host path to them.
 * - Every field the request leaves out gets the cluster default: time limit, max preemptions,
 *   image, user, cwd; built-in defaults for the rest.
 * - Dependencies (`after`, ./dependencies.ts): names resolve like the job's; an unknown job, the
 *   job itself and a cycle are refused.
 * - A job that can never run on this cluster's workers is refused with the reason, and so is
 *   one that is already deadlocked (docs/architecture.md, "Deadlocks": ancestors of it, other
 *   than the submitter itself, are waiting on a subtree containing it and hold what it needs, so
 *   no worker could take it), one that would exceed its user's pending-task quota, and one a task
 *   (a gang: the whole gang) of which is bigger than its user's hard quota (it could never start).
 * - The band (./band.ts): a child inherits its parent's and may ask only for a lower one;
 *   production is the owner's unless the config grants it.
 */
import { IrisError } from '../../model/errors.js';
import { jobDepth, parentJob } from '../../model/names.js';
import { DEFAULT_RESOURCES } from '../../model/resources.js';
import { DEFAULT_BAND } from '../../model/band.js';
import type { TaskCaller } from '../../model/caller.js';
import type { JobSpec } from '../../model/types.js';
import { deadlockReason, hardQuotaReason, neverReason, pendingQuotaProblem } from '../scheduler/index.js';
import { schedulerJob } from '../lifecycle/scheduler-job.js';
import type {
  Admission,
  AdmissionDefaults,
  AdmissionRequest,
  ClusterView,
  HostPaths,
  NameSource,
  Refusal,
} from './types.js';
import * as values from './values.js';
import { jobName } from './naming.js';
import { tpuGang } from './tpu-gang.js';
import { jobIsolation } from './isolation.js';
import { jobWorkspace } from './workspace.js';
import { checkDependencies, resolveAfter } from './dependencies.js';
import { allowedBand, parseBand } from './band.js';
import { jobQueue, queueBand } from './queue.js';
import { describeQueueWorkers, queueConstraints, queueWorkers, type QueueCatalog } from '../../model/queues.js';

/** The admission vocabulary (types.ts), for the callers of this module. */
export type * from './types.js';

const orZero = (value: number | null | undefined) => value ?? 0;

/** The env a child inherits from its caller's job, under the request's own. */
function inheritedEnv(caller: TaskCaller, own: Record<string, string>): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [key, value] of Object.entries(caller.env)) {
    if (!key.toUpperCase().startsWith(values.RESERVED_ENV_PREFIX)) inherited[key] = value;
  }
  return { ...inherited, ...own };
}

/** A new job's band ceiling: its submitting task's job's band, else its stored live parent's (./band.ts). */
function bandCeiling(name: string, caller: TaskCaller | null, names: Pick<ClusterView, 'liveBand'>) {
  if (caller) return { parent: caller.job, band: caller.band ?? DEFAULT_BAND, task: true };
  const parent = parentJob(name);
  const band = parent === null ? undefined : names.liveBand?.(parent);
  return parent !== null && band !== undefined ? { parent, band } : null;
}

/**
 * The JobSpec a request asks for, with every default applied: naming, inheritance, TPU gangs,
 * defaults. Throws IrisError (invalid_argument, forbidden, or conflict when no free name is found).
 */
export function resolveJob(
  request: AdmissionRequest,
  caller: TaskCaller | null,
  names: NameSource & Pick<ClusterView, 'hostPaths' | 'liveBand' | 'liveQueue'>,
  defaults: AdmissionDefaults,
): { spec: JobSpec; generated: boolean } {
  const cpuMillis = values.cpuMillis(request.cpu, DEFAULT_RESOURCES.cpuMillis);
  const memoryBytes = values.memoryBytes(request.memory, DEFAULT_RESOURCES.memoryBytes);
  const device = values.device(request.gpu, request.tpu, request.gpuMemory);
  const ownEnv = values.env(request.env);
  const constraints = values.constraints(request.constraints);
  const coschedule = values.coschedule(request.coschedule);
  const category = values.category(request.category);
  const uses = values.uses(request.uses);
  const mergeKey = values.mergeKey(request.mergeKey);
  const askedTimeLimitMs = values.timeLimit(request);
  const schedulingTimeoutMs = values.duration('schedulingTimeout', request.schedulingTimeout);
  const backoff = values.retryBackoff(request, defaults.retryBackoffMs ?? null);
  const isolation = jobIsolation(request, caller, defaults);
  const { image, network, unprivileged } = isolation;
  const { cwd, mounts, containerUser } = jobWorkspace(request, caller, defaults, names.hostPaths, isolation);

  const user = values.user(request.user, caller?.user ?? defaults.user);
  if (caller && user !== caller.user) {
    throw values.fieldError(
      'user',
      `user "${user}": only the cluster's owner may submit for another user; a task's children run as its own user "` +
        `${caller.user}"`,
      'leave --user out inside a task',
      'forbidden',
    );
  }
  const env = caller ? inheritedEnv(caller, ownEnv) : ownEnv;
  const { name, generated } = jobName(request.name, caller, names);
  const after = resolveAfter(request.after, caller);
  const queue = jobQueue(request.queue, name, caller, defaults.queues, names.liveQueue);
  const timeLimitMs = askedTimeLimitMs ?? queue?.timeLimitMs ?? null;
  const ceiling = bandCeiling(name, caller, names);
  const asked = parseBand(request.priority) ?? queueBand(queue, ceiling === null);
  const band = allowedBand(asked, user, ceiling, {
    owner: defaults.user,
    ...(defaults.productionUsers ? { productionUsers: defaults.productionUsers } : {}),
  });
  const gang = tpuGang(device, values.given(request.replicas) ? request.replicas : null, coschedule);

  const spec: JobSpec = {
    name,
    user,
    // The owner submitting for another user: "submitted by <OS user> for <user>".
    ...(user === defaults.user || caller ? {} : { submitter: defaults.user }),
    command: [...request.command],
    env,
    cwd,
    image,
    replicas: gang?.replicas ?? request.replicas ?? 1,
    resources: { cpuMillis, memoryBytes, device },
    constraints,
    coschedule: gang?.coschedule ?? coschedule,
    maxRetries: orZero(request.maxRetries),
    ...(backoff.retryBackoffMs === null ? {} : { retryBackoffMs: backoff.retryBackoffMs }),
    ...(backoff.retryBackoffMaxMs === null ? {} : { retryBackoffMaxMs: backoff.retryBackoffMaxMs }),
    maxTaskFailures: orZero(request.maxTaskFailures),
    maxPreemptions: request.maxPreemptions ?? defaults.maxPreemptions,
    timeoutMs: timeLimitMs ?? defaults.timeLimitMs,
    ...(timeLimitMs === null ? { defaultTimeLimit: true } : {}),
    schedulingTimeoutMs,
    ...(containerUser === null ? {} : { containerUser }),
    ...(mounts.length === 0 ? {} : { mounts }),
    ...(network === null ? {} : { network }),
    ...(unprivileged ? { unprivileged } : {}),
    ...(after.length === 0 ? {} : { after }),
    ...(category === null ? {} : { category }),
    ...(uses.length === 0 ? {} : { uses }),
    ...(mergeKey === null ? {} : { mergeKey }),
    band,
    ...(queue ? { queue: queue.name } : {}),
  };
  return { spec, generated };
}

/**
 * Why the cluster refuses a resolved job now (never fits, deadlocked, pending quota), or null.
 * `caller`: the submitting task, which is not waiting while it submits. `generated`: the name was
 * made up for this request (no --name), so messages say "the job" instead of naming a job that
 * was never created.
 */
export function clusterRefusal(
  spec: JobSpec,
  view: Pick<ClusterView, 'workers' | 'quotas' | 'pendingTasks' | 'waitingHolds'>,
  caller: TaskCaller | null = null,
  generated = false,
  queues: QueueCatalog | null = null,
  configPlace: string | null = null,
): Refusal | null {
  const label = generated ? 'the job' : `job ${spec.name}`;
  const job = schedulerJob({ name: spec.name, depth: jobDepth(spec.name), rootSubmittedAt: 0, seq: 0, spec });
  const inQueue = queueConstraints(queues, spec.queue);
  const never =
    inQueue.length === 0
      ? neverReason(job, view.workers)
      : (neverReason(job, queueWorkers(inQueue, view.workers)) ?? emptyQueue(view.workers, inQueue));
  if (never)
    return {
      code: 'unsatisfiable',
      message:
        inQueue.length === 0
          ? `${label} can never run on this cluster: ${never}`
          : `${label} can never run in queue ${spec.queue} (workers ${describeQueueWorkers(inQueue)}): ${never}`,
      hint:
        missingDeviceHint(spec, view.workers, configPlace) ??
        (inQueue.length === 0
          ? 'see the workers with `iris workers`'
          : 'see the workers with `iris workers` and the queues with `iris cluster status`; pick another --queue'),
    };
  const holds = (view.waitingHolds?.() ?? []).filter((hold) => hold.task !== caller?.task);
  const deadlock =
    holds.length > 0 ? deadlockReason(job, job.coschedule !== null ? job.replicas : 1, view.workers, holds) : null;
  if (deadlock) {
    return {
      code: 'unsatisfiable',
      message: `${label} can never run: ${deadlock}`,
      hint: 'a waiting ancestor holds what it needs until its wait returns: ask for less, or submit it after that wait',
    };
  }
  const quota = view.quotas.get(spec.user);
  // With nothing running, the reason is only ever "needs more than the quota": it can never start.
  const count = spec.coschedule !== null ? spec.replicas : 1;
  const hard = hardQuotaReason(spec.user, undefined, quota, spec.resources, count);
  if (hard)
    return {
      code: 'unsatisfiable',
      message: `${label} can never run: ${hard}`,
      hint: 'ask for less, or for a larger quota (`quotas` in the cluster config)',
    };
  if (quota?.maxPendingTasks != null) {
    const usage = { cpuMillis: 0, memoryBytes: 0, accelerators: 0, pendingTasks: view.pendingTasks(spec.user) };
    const problem = pendingQuotaProblem(spec.user, usage, quota, spec.replicas);
    if (problem)
      return {
        code: 'quota_exceeded',
        message: problem,
        hint: 'wait for some of your pending tasks to start, or cancel some',
      };
  }
  return null;
}

/** Admit a shape-checked request: the JobSpec to store, or the refusal with its reason. */
export function admit(
  request: AdmissionRequest,
  caller: TaskCaller | null,
  view: ClusterView,
  defaults: AdmissionDefaults,
): Admission {
  let resolved: { spec: JobSpec; generated: boolean };
  try {
    resolved = resolveJob(request, caller, view, defaults);
    checkDependencies(resolved.spec.name, resolved.spec.after ?? [], view);
  } catch (error) {
    if (error instanceof IrisError) {
      const { code, message, hint, field } = error;
      return {
        ok: false,
        refusal: { code, message, ...(hint ? { hint } : {}), ...(field !== undefined ? { field } : {}) },
      };
    }
    throw error;
  }
  const refusal = clusterRefusal(
    resolved.spec,
    view,
    caller,
    resolved.generated,
    defaults.queues ?? null,
    defaults.configPlace ?? null,
  );
  return refusal ? { ok: false, refusal } : { ok: true, ...resolved };
}

/** A queue whose constraints no worker meets: every job of it can never run. */
function emptyQueue(workers: ClusterView['workers'], inQueue: ReturnType<typeof queueConstraints>): string | null {
  return queueWorkers(inQueue, workers).length === 0 ? 'no worker of the cluster is in this queue' : null;
}

const READ_AT_START =
  'declared workers replace the default `local` one, and the cluster reads them when it starts ' +
  '(docs/configuration.md, "Workers")';

/**
 * How to get the device a job asks for when no worker of the cluster has one of its kind (or of
 * its variant): declare it in the config file (`slices:` for TPUs, `workers:` with `gpu:` for
 * GPUs). Null when some worker has it, or the workers are not declared in a file.
 */
function missingDeviceHint(spec: JobSpec, workers: ClusterView['workers'], configPlace: string | null): string | null {
  const device = spec.resources.device;
  if (device === null || configPlace === null) return null;
  const variant = device.variant ?? null;
  const has = workers.some(
    (worker) => worker.device.type === device.type && (variant === null || worker.device.variant === variant),
  );
  if (has) return null;
  if (device.type === 'tpu')
    return (
      `declare a TPU slice under \`slices:\` in ${configPlace}, e.g. ` +
      `\`slices: [{ name: slice-a, tpu: ${device.variant} }]\`; ${READ_AT_START}`
    );
  const gpu = variant === null ? `{ count: ${device.count} }` : `{ variant: ${variant}, count: ${device.count} }`;
  return (
    `declare a GPU worker under \`workers:\` in ${configPlace}, e.g. ` +
    `\`workers: [{ name: gpu-0, gpu: ${gpu} }]\`; ${READ_AT_START}`
  );
}
