/** The resolved iris configuration, and the shape of the file users write. */
import type { Quota, WorkerSpec } from '../cluster/model/types.js';

export interface IrisConfig {
  /** Absolute path of the file loaded, or null when built-in defaults are used. */
  source: string | null;
  /** State directory from the file's `home:` (`~` expanded, relative to the file), or null. `IRIS_HOME` wins over it; the caller decides. */
  home: string | null;
  /** Resolved workers; without a `workers:` key, one worker "local" with this machine's CPUs and memory. */
  workers: WorkerSpec[];
  /** Per-user limits, keyed by user name. */
  quotas: Map<string, Quota>;
  defaults: { maxPreemptions: number; stopGraceMs: number };
}

/** What `iris.config.ts` exports by default (and what `.irisrc.yaml` holds). */
export interface IrisConfigFile {
  home?: string;
  'stop-grace'?: string | number;
  'max-preemptions'?: number;
  workers?: IrisWorkerFile[];
  quotas?: Record<string, IrisQuotaFile>;
}

export interface IrisWorkerFile {
  name: string;
  cpu?: number | string;
  memory?: number | string;
  gpu?: { variant?: string; count?: number } | string | number;
  tpu?: { variant: string; chips?: number } | string;
  attributes?: Record<string, string | number | boolean>;
}

export interface IrisQuotaFile {
  cpu?: number | string | null;
  memory?: number | string | null;
  accelerators?: number | null;
  'pending-tasks'?: number | null;
}
