/**
 * `iris workers`: the cluster's topology in three sections. TPU slices (one row per host,
 * grouped by tpu-name and ordered by tpu-worker-id, with hostname, chips in use and the chip
 * device paths, or "none" when no path is known), GPU hosts (variant x count), and CPU workers
 * (workers named `pool-N` that share a prefix form a pool); then the disabled workers, if any.
 */
import type { WorkerInfo } from '../api/types.js';
import { formatAttributes, formatWorkerCpu, renderDisabled } from './cluster.js';
import { PLAIN, type Style } from './colour.js';
import { formatDuration, formatMemory } from './format.js';
import { renderTable, type Column } from './table.js';

const TPU_NAME = 'tpu-name';
const TPU_WORKER_ID = 'tpu-worker-id';
/** Attributes a section already shows in its own columns. */
const SHOWN = new Set([TPU_NAME, TPU_WORKER_ID]);

const cpu = formatWorkerCpu;
const memory = (w: WorkerInfo) => `${formatMemory(w.used.memoryBytes)}/${formatMemory(w.capacity.memoryBytes)}`;
const tasks = (w: WorkerInfo) => String(w.runningTasks.length);
/** Cost per hour as configured: `1`, `0.25`, `12.5`. */
const cost: Column<WorkerInfo> = { header: 'COST/H', value: (w) => String(w.costPerHour), right: true };
const gpuMemory = (w: WorkerInfo) => (w.device.memoryBytes != null ? formatMemory(w.device.memoryBytes) : 'unknown');
const extraAttributes = (w: WorkerInfo) =>
  formatAttributes(Object.fromEntries(Object.entries(w.attributes).filter(([key]) => !SHOWN.has(key))));

/** The columns every section shows after its own: CPU, MEMORY (used/capacity), COST/H and running TASKS. */
const usage: Column<WorkerInfo>[] = [
  { header: 'CPU', value: cpu },
  { header: 'MEMORY', value: memory },
  cost,
  { header: 'TASKS', value: tasks, right: true },
];

/** POWER (watts drawn now, `-` for a worker without `power-watts`), only when some worker declares it. */
function powerColumn(workers: readonly WorkerInfo[]): Column<WorkerInfo>[] {
  if (!workers.some((w) => w.powerWatts)) return [];
  return [{ header: 'POWER', value: (w) => (w.powerWatts ? `${Math.round(w.drawWatts ?? 0)}W` : '-'), right: true }];
}

/** The worker's state, painted by `style`; one that left the cluster says so: `DRAINING (left the config)`. */
function stateColumn(style: Style): Column<WorkerInfo> {
  return {
    header: 'STATE',
    value: (w) => (w.left ? `${w.state} (${w.left === 'node' ? 'node deleted' : 'left the config'})` : w.state),
    paint: (cell, w) => style.state(w.state) + cell.slice(w.state.length),
  };
}

/** The attributes a section does not show in its own columns (GPU hosts and CPU workers). */
const attributesColumn: Column<WorkerInfo> = { header: 'ATTRIBUTES', value: extraAttributes };

/** `key (time left)` or `key (loading)` per hint, comma-separated; `-` when none. */
export function formatCache(w: WorkerInfo, now: number): string {
  if (w.cache.length === 0) return '-';
  return w.cache
    .map((h) => `${h.key} (${h.loading ? 'loading' : formatDuration(Math.max(0, h.expiresAt - now))})`)
    .join(', ');
}

/** The CACHED column, only when some worker holds hints (see the header). */
function cacheColumn(workers: readonly WorkerInfo[], now: number): Column<WorkerInfo>[] {
  return workers.some((w) => w.cache.length > 0) ? [{ header: 'CACHED', value: (w) => formatCache(w, now) }] : [];
}

function workerIdOf(w: WorkerInfo): number {
  const id = Number(w.attributes[TPU_WORKER_ID]);
  return Number.isFinite(id) && w.attributes[TPU_WORKER_ID] !== undefined ? id : Number.POSITIVE_INFINITY;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compact device paths: identical paths counted ("/dev/zero x4"), else listed. */
export function formatDevicePaths(paths: readonly string[] | undefined): string {
  if (!paths || paths.length === 0) return 'none';
  if (paths.length > 1 && paths.every((p) => p === paths[0])) return `${paths[0]} x${paths.length}`;
  return paths.join(',');
}

function slices(workers: readonly WorkerInfo[], style: Style, cached: Column<WorkerInfo>[]): string {
  const rows = [...workers].sort((a, b) => {
    const sa = a.attributes[TPU_NAME];
    const sb = b.attributes[TPU_NAME];
    if (sa !== sb) return sa === undefined ? 1 : sb === undefined ? -1 : byName(sa, sb);
    return workerIdOf(a) - workerIdOf(b) || byName(a.id, b.id);
  });
  const columns: Column<WorkerInfo>[] = [
    { header: 'SLICE', value: (w) => w.attributes[TPU_NAME] ?? '-' },
    { header: 'ID', value: (w) => w.attributes[TPU_WORKER_ID] ?? '-', right: true },
    { header: 'WORKER', value: (w) => w.id },
    { header: 'HOSTNAME', value: (w) => w.hostname ?? 'localhost' },
    { header: 'VARIANT', value: (w) => w.device.variant ?? '-' },
    stateColumn(style),
    { header: 'CHIPS', value: (w) => `${w.used.devices}/${w.capacity.devices}` },
    ...usage,
    { header: 'DEVICE PATHS', value: (w) => formatDevicePaths(w.devicePaths) },
    ...cached,
  ];
  return renderTable(rows, columns);
}

function gpuHosts(workers: readonly WorkerInfo[], style: Style, cached: Column<WorkerInfo>[]): string {
  return renderTable(
    [...workers].sort((a, b) => byName(a.id, b.id)),
    [
      { header: 'WORKER', value: (w) => w.id },
      stateColumn(style),
      { header: 'GPUS', value: (w) => `${w.device.variant ?? 'any'} x ${w.device.count}` },
      { header: 'GPU MEMORY', value: gpuMemory },
      { header: 'IN USE', value: (w) => `${w.used.devices}/${w.capacity.devices}` },
      ...usage,
      attributesColumn,
      ...cached,
    ],
  );
}

/** `cpu-3` belongs to pool `cpu` when another worker shares the prefix; otherwise no pool. */
function pools(workers: readonly WorkerInfo[]): Map<string, string> {
  const prefix = (id: string) => /^(.*)-\d+$/.exec(id)?.[1];
  const counts = new Map<string, number>();
  for (const w of workers) {
    const p = prefix(w.id);
    if (p !== undefined) counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const w of workers) {
    const p = prefix(w.id);
    if (p !== undefined && (counts.get(p) ?? 0) > 1) out.set(w.id, p);
  }
  return out;
}

function cpuWorkers(workers: readonly WorkerInfo[], style: Style, cached: Column<WorkerInfo>[]): string {
  const pool = pools(workers);
  const rows = [...workers].sort(
    (a, b) => byName(pool.get(a.id) ?? a.id, pool.get(b.id) ?? b.id) || byName(a.id, b.id),
  );
  return renderTable(rows, [
    { header: 'POOL', value: (w) => pool.get(w.id) ?? '-' },
    { header: 'WORKER', value: (w) => w.id },
    stateColumn(style),
    ...usage,
    attributesColumn,
    ...cached,
  ]);
}

/**
 * `now` (ms) dates the cache hints (CACHED) and the disabled workers' table (renderDisabled), shown last when any is
 * disabled.
 */
export function renderTopology(workers: readonly WorkerInfo[], style: Style = PLAIN, now: number = Date.now()): string {
  if (workers.length === 0) return 'no workers';
  const cached = [...powerColumn(workers), ...cacheColumn(workers, now)];
  const tpu = workers.filter((w) => w.device.type === 'tpu');
  const gpu = workers.filter((w) => w.device.type === 'gpu');
  const other = workers.filter((w) => w.device.type !== 'tpu' && w.device.type !== 'gpu');
  const sections: string[] = [];
  if (tpu.length > 0) {
    const count = new Set(tpu.map((w) => w.attributes[TPU_NAME] ?? w.id)).size;
    sections.push(`TPU slices (${count})\n${slices(tpu, style, cached)}`);
  }
  if (gpu.length > 0) sections.push(`GPU hosts (${gpu.length})\n${gpuHosts(gpu, style, cached)}`);
  if (other.length > 0) sections.push(`CPU workers (${other.length})\n${cpuWorkers(other, style, cached)}`);
  const disabled = renderDisabled(workers, now);
  if (disabled) sections.push(disabled);
  return sections.join('\n\n');
}
