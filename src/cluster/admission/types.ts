/** The plain inputs and the answer of admission (see ./index.ts). */
import type { ErrorCode } from '../../model/errors.js';
import type { ForbiddenHostPaths, Mount } from '../../model/mounts.js';
import type { JobState } from '../../model/states.js';
import type { JobSpec, Quota } from '../../model/types.js';
import type { Band } from '../../model/band.js';
import type { QueueCatalog } from '../../model/queues.js';
import type { WaitingHold } from '../scheduler/placement/deadlock.js';
import type { WorkerView } from '../scheduler/types.js';

/**
 * A submit request whose shape is already checked (src/api/submit-request.ts): every field has
 * its JSON type; the values are still the user's strings. Null and absent both mean "not given".
 */
export interface AdmissionRequest {
  name?: string | null;
  command: string[];
  replicas?: number | null;
  cpu?: number | string | null;
  memory?: number | string | null;
  gpu?: string | null;
  /** The least memory of each GPU (`40GiB`); only with `gpu`. */
  gpuMemory?: number | string | null;
  tpu?: string | null;
  env?: Record<string, string> | null;
  constraints?: string[] | null;
  coschedule?: string | null;
  maxRetries?: number | null;
  retryBackoff?: number | string | null;
  retryBackoffMax?: number | string | null;
  maxTaskFailures?: number | null;
  maxPreemptions?: number | null;
  timeLimit?: number | string | null;
  timeout?: number | string | null;
  schedulingTimeout?: number | string | null;
  user?: string | null;
  cwd?: string | null;
  /**
   * The directory the job was submitted from (the CLI's): a process job's default cwd, a container's mount
   * (./workspace.ts).
   */
  workspace?: string | null;
  /** false: do not mount `workspace` into the job's containers; absent: the config's `workspace` (default true). */
  mountWorkspace?: boolean | null;
  /** Host paths in the job's containers, `SRC:DST[:ro]` (model/mounts.ts). */
  mounts?: string[] | null;
  image?: string | null;
  /**
   * `process` or `docker` (model/image.ts JOB_RUNTIMES); absent: a container with `image`, else the default
   * (isolation.ts).
   */
  runtime?: string | null;
  userInContainer?: string | null;
  network?: string | null;
  /** `JOB`, `JOB:ok`, `JOB:any`, `JOB:failed` (./dependencies.ts). */
  after?: string[] | null;
  /** `training`, `inference` or `other` (model/workload.ts). */
  category?: string | null;
  /** Models or data sets the tasks load (model/workload.ts). */
  uses?: string[] | null;
  /** Ready tasks of jobs with this key may run as one attempt (model/workload.ts parseMergeKey). */
  mergeKey?: string | null;
  /** `production`, `interactive` or `batch` (model/band.ts, ./band.ts). */
  priority?: string | null;
  /** The named queue to join (./queue.ts); absent: the parent's, else the config's default-queue. */
  queue?: string | null;
}

/** What a job gets for each field its request leaves out (the resolved cluster settings). */
export interface AdmissionDefaults {
  /** User of a submission without a task caller and without `user`. */
  user: string;
  /** Working directory of a process job that gives no `cwd`. */
  cwd: string;
  /** The config's `time-limit`; null: no limit. */
  timeLimitMs: number | null;
  /** The config's `max-preemptions`. */
  maxPreemptions: number;
  /** The config's `retry-backoff`; absent or null: failed tasks are retried at once. */
  retryBackoffMs?: number | null;
  /** The config's default image (runtime docker), or null to run jobs as processes. */
  image: string | null;
  /**
   * The config's `container-process-children`: a container task may submit `--runtime process` children. Absent: false.
   */
  containerProcessChildren?: boolean;
  /** The config's `workspace`: mount the submit directory into an owner's container jobs. Absent: true. */
  workspace?: boolean;
  /** The config's `mounts`, for every container job of the owner (sources not yet resolved). */
  mounts?: readonly Mount[];
  /** false: the backend mounts no host path (kubernetes); absent: true. */
  hostMounts?: boolean;
  /** The uid and gid of the cluster's owner (who submits through the owner socket). */
  owner?: { uid: number; gid: number };
  /** The config's `container-user`; absent: 65534:65534. */
  containerUser?: string;
  /** Host paths no mount may be, hold or lie in besides `/` and the kernel's (model/mounts.ts). */
  forbiddenHostPaths?: ForbiddenHostPaths;
  /** The config's `production-users`: who besides the owner may have production jobs (./band.ts). */
  productionUsers?: readonly string[];
  /** The config's `queues:` (model/queues.ts); absent or null: one queue over every worker. */
  queues?: QueueCatalog | null;
  /**
   * The file the cluster's workers are declared in: the config file loaded, or where a new one would go
   * (`a new /home/u/proj/.irisrc.yaml`); a device no worker has is declared there. Absent: the workers are not
   * declared in a file (kubernetes).
   */
  configPlace?: string;
}

/** The host's file system as admission may ask about it (the server answers; ./workspace.ts asks). */
export interface HostPaths {
  /** The real path of `path` (every symlink resolved), or null when nothing is there. */
  hostPath(path: string): string | null;
  /**
   * Why uid (with gid, when known) could not read `real`: the first directory on the way it may
   * not search, or the path itself it may not read (`/root is drwx------ of 0:0`); null: it can.
   */
  unreadable?(real: string, uid: number, gid: number | null): string | null;
}

/** Names in the cluster: which are taken, and a source of fresh ones. */
export interface NameSource {
  isNameTaken(name: string): boolean;
  /** One fresh name component such as `brisk-otter-4821`. */
  generateName(): string;
}

/** What admission needs to know about the cluster right now. */
export interface ClusterView extends NameSource {
  workers: readonly WorkerView[];
  quotas: ReadonlyMap<string, Quota>;
  /** Pending tasks of this user's jobs. */
  pendingTasks(user: string): number;
  /** The state of a stored job; undefined when none has the name. */
  jobState(name: string): JobState | undefined;
  /** The band of a stored job that has not ended (a new child's ceiling, ./band.ts); undefined: none or ended. */
  liveBand?(name: string): Band | undefined;
  /** The named queue of a stored job that has not ended (a new child's default); undefined: none. */
  liveQueue?(name: string): string | undefined;
  /** The names a stored job depends on (`spec.after`); empty for none or an unknown job. */
  dependenciesOf(name: string): readonly string[];
  /**
   * False when no job can depend on `name`, so a cycle through it cannot exist and is not looked
   * for (a new name: the common case, which keeps a long chain of submissions linear); absent: unknown.
   */
  dependedOn?(name: string): boolean;
  /** What each running attempt blocked in a wait holds meanwhile (the deadlock check); absent: none waits. */
  waitingHolds?(): readonly WaitingHold[];
  /** The host's paths, for mounts (./workspace.ts); absent: nothing is mounted (a job asking for a mount is a bug). */
  hostPaths?: HostPaths;
}

export interface Refusal {
  code: ErrorCode;
  message: string;
  hint?: string;
  /** The request field it is about (IrisError.field). */
  field?: string;
}

export type Admission = { ok: true; spec: JobSpec; generated: boolean } | { ok: false; refusal: Refusal };
