/**
 * How the workers page groups workers, as `iris workers` does: each TPU slice (workers with a TPU
 * device and a `tpu-name` attribute) on its own, its hosts ordered by `tpu-worker-id`, slices by
 * name; then every other worker in the order given. Pure.
 */
import type { WorkerInfo } from '../api/types.js';

/** Workers in groups: each TPU slice (by `tpu-name`, hosts by `tpu-worker-id`), then the others. */
export function workerGroups(workers: readonly WorkerInfo[]): { title: string; workers: WorkerInfo[] }[] {
  const slices = new Map<string, WorkerInfo[]>();
  const others: WorkerInfo[] = [];
  for (const w of workers) {
    const slice = w.device.type === 'tpu' ? w.attributes['tpu-name'] : undefined;
    if (slice === undefined) others.push(w);
    else slices.set(slice, [...(slices.get(slice) ?? []), w]);
  }
  const host = (w: WorkerInfo) => Number(w.attributes['tpu-worker-id'] ?? 0);
  const groups = [...slices.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, list]) => ({ title: `TPU slice ${name}`, workers: list.sort((a, b) => host(a) - host(b)) }));
  if (others.length > 0) groups.push({ title: groups.length > 0 ? 'Other workers' : 'Workers', workers: others });
  return groups;
}
