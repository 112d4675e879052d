/** The resolved iris configuration, and the shape of the file users write. */
import type { Quota, WorkerSpec } from '../model/types.js';

import type { QueuePolicy } from '../cluster/scheduler/queue/options.js';

/** Queue policies of the scheduler; `first-fit` is the plain skipping first fit. */
export { QUEUE_POLICIES, type QueuePolicy } from '../cluster/scheduler/queue/options.js';

export interface QueueConfig {
  policy: QueuePolicy;
  /** Pending jobs one scheduling pass considers. */
  depth: number;
  /** Blocked jobs that get a reservation under `hybrid`. */
  reservationDepth: number;
  /** Upper bound for reservationDepth (also when a command line overrides it). */
  maxReservationDepth: number;
}

export type RuntimeKind = 'process' | 'docker';
export type ContainerNetwork = 'host' | 'bridge';

export interface RuntimeConfig {
  /** How jobs without `--image` run: local processes, or containers of `image`. */
  kind: RuntimeKind;
  /** Default image (set exactly when kind is docker). */
  image: string | null;
  /** Network of every container iris starts. */
  network: ContainerNetwork;
}

export interface IrisConfig {
  /** Absolute path of the file loaded, or null when built-in defaults are used. */
  source: string | null;
  /** State directory from the file's `home:` (`~` expanded, relative to the file), or null. `IRIS_HOME` wins over it; the caller decides. */
  home: string | null;
  /**
   * Resolved workers: `workers:` (pools expanded) followed by the hosts of `slices:`; with
   * neither key, one worker "local" with this machine's CPUs, memory and detected GPUs.
   */
  workers: WorkerSpec[];
  /** Per-user limits, keyed by user name. */
  quotas: Map<string, Quota>;
  defaults: {
    maxPreemptions: number;
    stopGraceMs: number;
    /** Time limit of a job that gives none (`time-limit:`). */
    timeLimitMs: number;
  };
  queue: QueueConfig;
  runtime: RuntimeConfig;
}

/** What `iris.config.ts` exports by default (and what `.irisrc.yaml` holds). */
export interface IrisConfigFile {
  home?: string;
  'stop-grace'?: string | number;
  'max-preemptions'?: number;
  'time-limit'?: string | number;
  queue?: {
    policy?: QueuePolicy;
    depth?: number;
    'reservation-depth'?: number;
    'max-reservation-depth'?: number;
  };
  runtime?: RuntimeKind;
  image?: string;
  network?: ContainerNetwork;
  workers?: IrisWorkerFile[];
  slices?: IrisSliceFile[];
  quotas?: Record<string, IrisQuotaFile>;
}

export interface IrisWorkerFile {
  name: string;
  /** Expand into a pool `name-0` … `name-(count-1)` of identical workers. */
  count?: number;
  cpu?: number | string;
  memory?: number | string;
  gpu?: { variant?: string; count?: number } | string | number;
  tpu?: { variant: string; chips?: number; devices?: string[] } | string;
  /** Name other hosts of a slice use to reach this worker; default localhost. */
  hostname?: string;
  /** Containers on this worker may run privileged (off by default). */
  privileged?: boolean;
  attributes?: Record<string, string | number | boolean>;
}

/** A whole TPU slice: one virtual worker per host of the variant. */
export interface IrisSliceFile {
  name: string;
  tpu: string;
  /** Per host; default one core. */
  cpu?: number | string;
  /** Per host; default 2 GiB. */
  memory?: number | string;
  /** Host paths of one host's chips (used for every host); default: detected on this machine. */
  devices?: string[];
  /** One per host, in tpu-worker-id order; default localhost. */
  hostnames?: string[];
  privileged?: boolean;
  attributes?: Record<string, string | number | boolean>;
}

export interface IrisQuotaFile {
  cpu?: number | string | null;
  memory?: number | string | null;
  accelerators?: number | null;
  'pending-tasks'?: number | null;
}
