/**
 * The scheduler's input and output. `schedule(snapshot) -> Plan` is pure: it reads only the
 * snapshot (time included) and never touches clocks, randomness, timers, fs or processes.
 */
import type { Constraint } from '../model/constraints.js';
import type { ResourceSpec, WorkerDevice } from '../model/resources.js';
import type { Quota } from '../model/types.js';

export interface SchedulerJob {
  name: string;
  depth: number;
  rootSubmittedAt: number;
  seq: number;
  user: string;
  resources: ResourceSpec;
  constraints: readonly Constraint[];
  coschedule: string | null;
  replicas: number;
}

export interface SchedulerTask {
  id: string;
  job: string;
  index: number;
  submittedAt: number;
  seq: number;
}

export interface FreeCapacity {
  cpuMillis: number;
  memoryBytes: number;
  /** Free device instance indices (GPU ids or TPU chip ids) on this worker. */
  devices: readonly number[];
}

export interface WorkerView {
  id: string;
  device: WorkerDevice;
  attributes: Readonly<Record<string, string>>;
  capacity: { cpuMillis: number; memoryBytes: number };
  free: FreeCapacity;
  /** False while draining/drained: never receives placements. */
  schedulable: boolean;
}

export interface UserUsage {
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
  pendingTasks: number;
}

export interface Snapshot {
  now: number;
  jobs: ReadonlyMap<string, SchedulerJob>;
  /** Tasks in PENDING state, in any order; the scheduler orders them. */
  pending: readonly SchedulerTask[];
  workers: readonly WorkerView[];
  usage: ReadonlyMap<string, UserUsage>;
  quotas: ReadonlyMap<string, Quota>;
}

export interface Placement {
  task: string;
  job: string;
  workerId: string;
  deviceIndices: number[];
}

export interface Plan {
  placements: Placement[];
  /** Human reason per job that still has pending tasks after this pass. */
  reasons: Map<string, string>;
}

/** Filter verdict: ok, not now (stays pending), or never on this cluster (refused at submit). */
export type Verdict = { kind: 'ok' } | { kind: 'not_now'; reason: string } | { kind: 'never'; reason: string };
