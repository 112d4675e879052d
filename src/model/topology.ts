/**
 * TPU slice topology as tasks see it: which workers form a slice (same `tpu-name`, ordered by
 * numeric `tpu-worker-id`) and the environment a multi-host TPU program reads to find its
 * peers. Pure: no clocks, no I/O.
 *
 * Variables (only ones real TPU software reads):
 *   TPU_WORKER_ID, TPU_WORKER_HOSTNAMES   libtpu, and JAX's cluster detection on TPU
 *   TPU_ACCELERATOR_TYPE, TPU_TOPOLOGY     the slice's accelerator type and chip grid
 *   TPU_CHIPS_PER_HOST_BOUNDS, TPU_HOST_BOUNDS   libtpu's per-host chip grid and host grid
 *   TPU_SKIP_MDS_QUERY=1                   do not ask a GCE metadata server (there is none)
 *   TPU_VISIBLE_CHIPS                      the chip indices assigned to this task
 *   JAX_COORDINATOR_ADDRESS                read by jax.distributed.initialize()
 *   JAX_NUM_PROCESSES, JAX_PROCESS_ID      not read by JAX itself; the common convention for
 *                                          programs that pass them to jax.distributed.initialize
 * The JAX variables are set for multi-host variants only (a single host needs no coordinator).
 */
import { tpuVariant } from './tpu.js';
import type { WorkerSpec } from './types.js';

export const TPU_NAME = 'tpu-name';
export const TPU_WORKER_ID = 'tpu-worker-id';
export const DEFAULT_WORKER_HOSTNAME = 'localhost';
/** JAX's own default coordinator port on Cloud TPU; iris adds a per-job offset. */
export const JAX_COORDINATOR_BASE_PORT = 8476;
export const JAX_COORDINATOR_PORT_SPAN = 1000;

export function workerHostname(worker: Pick<WorkerSpec, 'hostname'>): string {
  return worker.hostname ?? DEFAULT_WORKER_HOSTNAME;
}

function workerIdOf(worker: WorkerSpec): number | null {
  const raw = worker.attributes[TPU_WORKER_ID];
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/**
 * The hosts of `worker`'s slice, ordered by tpu-worker-id (then id): every worker of `all` with
 * the same tpu-name. A worker without a tpu-name is a slice of its own.
 */
export function sliceHosts(worker: WorkerSpec, all: readonly WorkerSpec[]): WorkerSpec[] {
  const name = worker.attributes[TPU_NAME];
  if (name === undefined) return [worker];
  const hosts = all.filter((w) => w.attributes[TPU_NAME] === name);
  if (!hosts.some((w) => w.id === worker.id)) hosts.push(worker);
  return hosts.sort((a, b) => {
    const ia = workerIdOf(a);
    const ib = workerIdOf(b);
    if (ia !== null && ib !== null && ia !== ib) return ia - ib;
    if ((ia === null) !== (ib === null)) return ia === null ? 1 : -1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/** FNV-1a: a stable small hash, so a job's coordinator port is the same on every host. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The JAX coordinator port of a job: 8476 + (hash of the job name mod 1000). */
export function coordinatorPort(jobName: string): number {
  return JAX_COORDINATOR_BASE_PORT + (fnv1a(jobName) % JAX_COORDINATOR_PORT_SPAN);
}

export interface TpuTaskInput {
  variant: string;
  jobName: string;
  taskIndex: number;
  /** Tasks of the job (JAX processes). */
  replicas: number;
  worker: WorkerSpec;
  /** The slice's hosts in tpu-worker-id order (sliceHosts). */
  hosts: readonly WorkerSpec[];
  /** Chip indices assigned to the task on its worker. */
  chips: readonly number[];
}

export function tpuTaskEnv(input: TpuTaskInput): Record<string, string> {
  const variant = tpuVariant(input.variant);
  const multiHost = variant.hosts > 1;
  const hosts = multiHost && input.hosts.length > 0 ? input.hosts : [input.worker];
  const position = hosts.findIndex((w) => w.id === input.worker.id);
  const workerId = multiHost ? (workerIdOf(input.worker) ?? (position >= 0 ? position : input.taskIndex)) : 0;
  const hostnames = hosts.map(workerHostname);
  const env: Record<string, string> = {
    TPU_WORKER_ID: String(workerId),
    TPU_WORKER_HOSTNAMES: hostnames.join(','),
    TPU_ACCELERATOR_TYPE: variant.name,
    TPU_TOPOLOGY: variant.topology,
    TPU_CHIPS_PER_HOST_BOUNDS: variant.chipsPerHostBounds,
    TPU_HOST_BOUNDS: variant.hostBounds,
    TPU_SKIP_MDS_QUERY: '1',
    TPU_VISIBLE_CHIPS: input.chips.join(','),
  };
  if (multiHost) {
    env.JAX_COORDINATOR_ADDRESS = `${hostnames[0]}:${coordinatorPort(input.jobName)}`;
    env.JAX_NUM_PROCESSES = String(input.replicas);
    env.JAX_PROCESS_ID = String(workerId);
  }
  return env;
}
