/** Renderers for workers, the cluster summary and endpoints. */
import type { ClusterInfo, ClusterQueueInfo, EndpointInfo, WorkerInfo } from '../api/types.js';
import { describeDevice } from '../model/resources.js';
import { PLAIN, type Style } from './colour.js';
import { formatDuration } from '../model/duration.js';
import { formatAge, formatCores, formatMemory } from './format.js';
import { renderFields, renderTable } from './table.js';

const WELL_KNOWN = new Set(['device-type', 'device-variant']);

export function formatAttributes(attributes: Record<string, string>): string {
  return Object.keys(attributes)
    .filter((key) => !WELL_KNOWN.has(key))
    .sort()
    .map((key) => `${key}=${attributes[key]}`)
    .join(' ');
}

/** What `iris workers drain|resume|disable|enable` print: `worker NAME is STATE`, then ` (note)` when given. */
export function formatWorkerChange(worker: WorkerInfo, note = ''): string {
  return `worker ${worker.id} is ${worker.state}${note ? ` (${note})` : ''}`;
}

/**
 * A worker's CPU: `used/capacity`, then what waiting tasks released and what is held beyond the
 * capacity when there is any (`1/1 (1 released)`, `2/1 (1 over)`; docs/cli.md, `iris workers`).
 */
export function formatWorkerCpu(w: WorkerInfo): string {
  return (
    `${formatCores(w.used.cpuMillis)}/${formatCores(w.capacity.cpuMillis)}` +
    `${cpuNotes(w.cpuReleasedMillis, w.cpuOversubscribedMillis)}`
  );
}

function cpuNotes(releasedMillis: number, overMillis: number): string {
  const notes: string[] = [];
  if (releasedMillis > 0) notes.push(`${formatCores(releasedMillis)} released`);
  if (overMillis > 0) notes.push(`${formatCores(overMillis)} over`);
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

export function renderWorkers(workers: readonly WorkerInfo[], style: Style = PLAIN): string {
  return renderTable(
    workers,
    [
      { header: 'WORKER', value: (w) => w.id },
      { header: 'STATE', value: (w) => w.state, paint: (cell) => style.state(cell) },
      { header: 'DEVICE', value: (w) => describeDevice(w.device) },
      { header: 'CPU', value: formatWorkerCpu },
      { header: 'MEMORY', value: (w) => `${formatMemory(w.used.memoryBytes)}/${formatMemory(w.capacity.memoryBytes)}` },
      { header: 'DEVICES', value: (w) => (w.capacity.devices > 0 ? `${w.used.devices}/${w.capacity.devices}` : '-') },
      { header: 'TASKS', value: (w) => String(w.runningTasks.length), right: true },
      { header: 'ATTRIBUTES', value: (w) => formatAttributes(w.attributes) },
    ],
    'no workers',
  );
}

/**
 * The disabled workers, who disabled them and why, and for how long (`iris workers`, `iris cluster
 * status`); empty when none is disabled. `elastic` is the elastic coordinator.
 */
export function renderDisabled(workers: readonly WorkerInfo[], now: number): string {
  const off = workers.filter((w) => w.state === 'DISABLED');
  if (off.length === 0) return '';
  return (
    `Disabled workers (${off.length}): no new tasks; running tasks go on\n` +
    renderTable(off, [
      { header: 'WORKER', value: (w) => w.id },
      { header: 'BY', value: (w) => w.disabled?.by ?? '-' },
      { header: 'WHY', value: (w) => w.disabled?.reason || '-' },
      {
        header: 'SINCE',
        value: (w) =>
          w.disabled ? `${formatDuration(Math.max(0, now - w.disabled.disabledAt), { style: 'short' })} ago` : '-',
      },
      { header: 'TASKS', value: (w) => String(w.runningTasks.length), right: true },
    ])
  );
}

export function renderClusterStatus(info: ClusterInfo, now: number, style: Style = PLAIN): string {
  const sum = (pick: (w: WorkerInfo) => number) => info.workers.reduce((total, w) => total + pick(w), 0);
  const devices = sum((w) => w.capacity.devices);
  const jobs = Object.entries(info.queue.jobs)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ');
  const fields: Array<[string, string]> = [
    ['Cluster', `${info.clusterId} (pid ${info.pid}, iris ${info.version})`],
    ['Socket', info.socket],
    ...(info.taskDoor
      ? [['Task door', `tcp ${info.taskDoor.listen}; tasks are given ${info.taskDoor.advertise}`] as [string, string]]
      : []),
    ['Home', info.home],
    ['Config', info.config.path ?? 'none: built-in defaults (no config file was found)'],
    ...(info.metrics.url ? [['Metrics', info.metrics.url] as [string, string]] : []),
    ['Up', formatAge(info.startedAt, now)],
    ['Workers', `${info.workers.length} (${workerCounts(info.workers)})`],
    [
      'CPU',
      `${formatCores(info.cpu.usedMillis)}/${formatCores(info.cpu.capacityMillis)} cores in use` +
        `${cpuNotes(info.cpu.releasedMillis, info.cpu.oversubscribedMillis)}`,
    ],
    [
      'Memory',
      `${formatMemory(sum((w) => w.used.memoryBytes))}/${formatMemory(sum((w) => w.capacity.memoryBytes))} in use`,
    ],
  ];
  if (devices > 0) fields.push(['Devices', `${sum((w) => w.used.devices)}/${devices} in use`]);
  if (info.cost) {
    const excluded = info.cost.excluded > 0 ? `; ${info.cost.excluded} disabled or drained not counted` : '';
    fields.push(['Cost', `${Number(info.cost.perHour.toFixed(2))}/h (ready workers${excluded})`]);
  }
  const powered = info.workers.filter((w) => w.powerWatts);
  if (powered.length > 0) {
    const watts = Math.round(powered.reduce((total, w) => total + (w.drawWatts ?? 0), 0));
    fields.push([
      'Power',
      `${watts} W now (${powered.length} workers with power-watts; disabled and drained draw none)`,
    ]);
  }
  fields.push(
    ['Tasks', `${info.queue.running} running, ${info.queue.pending} pending`],
    ['Jobs', jobs || 'none'],
    ['Queue', `${queueSummary(info)}, ${info.queue.passes} scheduling pass${info.queue.passes === 1 ? '' : 'es'}`],
  );
  const disabled = renderDisabled(info.workers, now);
  const queues = info.queues && info.queues.length > 0 ? ['', renderQueues(info.queues)] : [];
  return [
    renderFields(fields),
    ...queues,
    '',
    renderWorkers(info.workers, style),
    ...(disabled ? ['', disabled] : []),
  ].join('\n');
}

/** `policy easy`, or with named queues `2 named queues (below)`. */
function queueSummary(info: ClusterInfo): string {
  const named = info.queues?.length ?? 0;
  return named > 0 ? `${named} named queue${named === 1 ? '' : 's'} (below)` : `policy ${info.queue.policy}`;
}

/** The named queues (config `queues:`): policy, workers, tasks. */
function renderQueues(queues: readonly ClusterQueueInfo[]): string {
  return renderTable(queues, [
    { header: 'QUEUE', value: (q) => (q.default ? `${q.name} (default)` : q.name) },
    { header: 'POLICY', value: (q) => q.policy },
    { header: 'WORKERS', value: (q) => `${q.workerCount} (${q.workers})` },
    { header: 'PENDING', value: (q) => String(q.pending), right: true },
    { header: 'RUNNING', value: (q) => String(q.running), right: true },
  ]);
}

/** `3 ready`, `2 ready, 1 disabled`: the ready count always, the others when there are any. */
function workerCounts(workers: readonly WorkerInfo[]): string {
  const count = (state: string) => workers.filter((w) => w.state === state).length;
  const parts = [`${count('READY')} ready`];
  for (const [state, word] of [
    ['DISABLED', 'disabled'],
    ['DRAINING', 'draining'],
    ['DRAINED', 'drained'],
  ] as const) {
    if (count(state) > 0) parts.push(`${count(state)} ${word}`);
  }
  return parts.join(', ');
}

export function renderEndpoints(endpoints: readonly EndpointInfo[], now: number): string {
  return renderTable(
    endpoints,
    [
      { header: 'NAME', value: (e) => e.name },
      { header: 'JOB', value: (e) => e.job },
      { header: 'ADDRESS', value: (e) => e.address },
      { header: 'TASK', value: (e) => `${e.task}[${e.attempt}]` },
      { header: 'AGE', value: (e) => formatAge(e.registeredAt, now) },
    ],
    'no endpoints',
  );
}
