/**
 * Pure mapping of Kubernetes Node objects to iris workers (docs/kubernetes.md, "Nodes as
 * workers"). Guarantees:
 * - One worker per Node, its id the Node's name; capacity from `status.allocatable` (cpu,
 *   memory, `google.com/tpu` chips or `nvidia.com/gpu` GPUs), never from `capacity`.
 * - TPU nodes: the variant from `cloud.google.com/gke-tpu-accelerator` and
 *   `cloud.google.com/gke-tpu-topology` (a known variant's name such as `v5litepod-16`, else
 *   `<accelerator>-<topology>`); the slice group (`tpu-name`) is the node pool
 *   (`cloud.google.com/gke-nodepool`), and `tpu-worker-id` numbers a pool's nodes in name order
 *   (nodeWorkers), so the hosts of one slice are ordered the same way every time.
 * - GPU nodes: the variant from `cloud.google.com/gke-accelerator`, else `nvidia.com/gpu.product`.
 * - Every label is also an attribute (`--constraint` can name it); the node pool is `node-pool`.
 * - A node takes new work only when Ready and not cordoned (nodeAvailability says why not).
 */
import { knownTpuVariants, type TpuGeneration } from '../model/tpu.js';
import type { WorkerSpec } from '../model/types.js';
import { cpuMillis, wholeUnits } from './quantity.js';

export const LABEL_NODE_POOL = 'cloud.google.com/gke-nodepool';
export const LABEL_TPU_ACCELERATOR = 'cloud.google.com/gke-tpu-accelerator';
export const LABEL_TPU_TOPOLOGY = 'cloud.google.com/gke-tpu-topology';
export const LABEL_GKE_ACCELERATOR = 'cloud.google.com/gke-accelerator';
export const LABEL_GPU_PRODUCT = 'nvidia.com/gpu.product';
export const RESOURCE_TPU = 'google.com/tpu';
export const RESOURCE_GPU = 'nvidia.com/gpu';

/** The part of a Node object iris reads (a V1Node satisfies it). */
export interface NodeObject {
  metadata?: { name?: string; labels?: Record<string, string> | null } | null;
  spec?: { unschedulable?: boolean | null } | null;
  status?: {
    allocatable?: Record<string, string> | null;
    conditions?: Array<{ type: string; status: string; reason?: string | null }> | null;
    addresses?: Array<{ type: string; address: string }> | null;
  } | null;
}

/** GKE's accelerator label values → TPU generations. */
const TPU_GENERATIONS: Record<string, TpuGeneration> = {
  'tpu-v4-podslice': 'v4',
  'tpu-v5-lite-podslice': 'v5e',
  'tpu-v5-lite-device': 'v5e',
  'tpu-v5p-slice': 'v5p',
  'tpu-v6e-slice': 'v6e',
};

/** The iris TPU variant of an accelerator label and topology, e.g. (tpu-v5-lite-podslice, 4x4) → v5litepod-16. */
export function tpuVariantOf(accelerator: string, topology: string | undefined): string {
  const generation = TPU_GENERATIONS[accelerator];
  const known =
    generation && topology
      ? knownTpuVariants().find((v) => v.generation === generation && sameGrid(v.topology, topology))
      : undefined;
  return known?.name ?? (topology ? `${accelerator}-${topology}` : accelerator);
}

function sameGrid(a: string, b: string): boolean {
  const dims = (t: string) =>
    t
      .split('x')
      .map(Number)
      .filter((n) => n !== 1)
      .join('x');
  return a === b || dims(a) === dims(b);
}

/** One Node as a worker (without `tpu-worker-id`; nodeWorkers adds it). Null for a Node without a name. */
export function nodeWorker(node: NodeObject): WorkerSpec | null {
  const id = node.metadata?.name;
  if (!id) return null;
  const labels = node.metadata?.labels ?? {};
  const allocatable = node.status?.allocatable ?? {};
  const attributes: Record<string, string> = { ...labels };
  const pool = labels[LABEL_NODE_POOL];
  if (pool) attributes['node-pool'] = pool;
  const tpus = wholeUnits(allocatable[RESOURCE_TPU]) ?? 0;
  const gpus = wholeUnits(allocatable[RESOURCE_GPU]) ?? 0;
  let device: WorkerSpec['device'] = { type: 'cpu', variant: null, count: 0 };
  if (tpus > 0) {
    const accelerator = labels[LABEL_TPU_ACCELERATOR] ?? 'tpu';
    device = { type: 'tpu', variant: tpuVariantOf(accelerator, labels[LABEL_TPU_TOPOLOGY]), count: tpus };
    attributes['tpu-name'] = pool ?? id;
  } else if (gpus > 0) {
    device = { type: 'gpu', variant: labels[LABEL_GKE_ACCELERATOR] ?? labels[LABEL_GPU_PRODUCT] ?? null, count: gpus };
  }
  attributes['device-type'] = device.type;
  if (device.variant) attributes['device-variant'] = device.variant;
  const address =
    node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address ??
    node.status?.addresses?.find((a) => a.type === 'Hostname')?.address;
  return {
    id,
    cpuMillis: cpuMillis(allocatable.cpu) ?? 0,
    memoryBytes: wholeUnits(allocatable.memory) ?? 0,
    device,
    attributes,
    ...(address ? { hostname: address } : {}),
  };
}

/**
 * All Nodes as workers, in name order, each TPU host numbered within its slice group
 * (`tpu-worker-id` 0 … n-1 by name) unless its labels already carry one.
 */
export function nodeWorkers(nodes: readonly NodeObject[]): WorkerSpec[] {
  return numberSliceHosts(nodes.map(nodeWorker).filter((w): w is WorkerSpec => w !== null));
}

/** Workers of nodeWorker in name order, each TPU host numbered within its slice group (see nodeWorkers). */
export function numberSliceHosts(workers: readonly WorkerSpec[]): WorkerSpec[] {
  const sorted = [...workers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const next = new Map<string, number>();
  return sorted.map((w) => {
    const slice = w.attributes['tpu-name'];
    if (slice === undefined || w.attributes['tpu-worker-id'] !== undefined) return w;
    const n = next.get(slice) ?? 0;
    next.set(slice, n + 1);
    return { ...w, attributes: { ...w.attributes, 'tpu-worker-id': String(n) } };
  });
}

/** Whether a Node takes new work, and in words why not (`cordoned`, `not Ready (KubeletNotReady)`). */
export function nodeAvailability(node: NodeObject): { schedulable: boolean; reason: string | null } {
  if (node.spec?.unschedulable) return { schedulable: false, reason: 'node cordoned (unschedulable)' };
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') {
    const why = ready?.reason ? ` (${ready.reason})` : ready ? '' : ' (no Ready condition)';
    return { schedulable: false, reason: `node not Ready${why}` };
  }
  return { schedulable: true, reason: null };
}
