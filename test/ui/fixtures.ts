import type { JobSummary, WorkerInfo } from '../../src/api/types.js';

export const NOW = Date.UTC(2025, 0, 2, 12, 0, 0);

export function job(name: string, extra: Partial<JobSummary> = {}): JobSummary {
  const depth = name.split('/').length - 1;
  const cut = name.lastIndexOf('/');
  return {
    name,
    run: 1,
    archived: false,
    user: 'alice',
    band: 'interactive',
    state: 'RUNNING',
    reason: null,
    depth,
    parent: cut <= 0 ? null : name.slice(0, cut),
    replicas: 1,
    tasks: { total: 1, byState: { RUNNING: 1 } },
    submittedAt: NOW - 65_000,
    startedAt: NOW - 60_000,
    finishedAt: null,
    ...extra,
  };
}

export function worker(id: string, extra: Partial<WorkerInfo> = {}): WorkerInfo {
  return {
    id,
    state: 'READY',
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: { 'device-type': 'cpu', region: 'us-central1' },
    capacity: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3, devices: 0 },
    used: { cpuMillis: 1500, memoryBytes: 512 * 1024 ** 2, devices: 0 },
    cpuReleasedMillis: 0,
    cpuOversubscribedMillis: 0,
    runningTasks: [],
    costPerHour: 1,
    cache: [],
    ...extra,
  };
}
