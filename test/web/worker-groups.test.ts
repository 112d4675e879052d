import { describe, expect, it } from 'vitest';
import type { WorkerInfo } from '../../src/api/types.js';
import { workerGroups } from '../../src/web/worker-groups.js';

function worker(id: string, type: 'cpu' | 'gpu' | 'tpu', attributes: Record<string, string> = {}): WorkerInfo {
  const none = { cpuMillis: 0, memoryBytes: 0, devices: 0 };
  return {
    id,
    state: 'READY',
    device: { type, variant: null, count: type === 'cpu' ? 0 : 4 },
    attributes,
    capacity: none,
    used: none,
    cpuReleasedMillis: 0,
    cpuOversubscribedMillis: 0,
    runningTasks: [],
    costPerHour: 1,
    cache: [],
  } as WorkerInfo;
}

describe('workerGroups', () => {
  it('groups TPU hosts by slice, ordered by host id, slices by name, then the other workers', () => {
    const groups = workerGroups([
      worker('cpu-0', 'cpu'),
      worker('v5-b-1', 'tpu', { 'tpu-name': 'b', 'tpu-worker-id': '1' }),
      worker('v5-a-10', 'tpu', { 'tpu-name': 'a', 'tpu-worker-id': '10' }),
      worker('v5-a-2', 'tpu', { 'tpu-name': 'a', 'tpu-worker-id': '2' }),
      worker('gpu-0', 'gpu', { 'tpu-name': 'not-a-tpu' }),
    ]);
    expect(groups.map((g) => [g.title, g.workers.map((w) => w.id)])).toEqual([
      ['TPU slice a', ['v5-a-2', 'v5-a-10']],
      ['TPU slice b', ['v5-b-1']],
      ['Other workers', ['cpu-0', 'gpu-0']],
    ]);
  });

  it('calls them just "Workers" when there is no slice', () => {
    expect(workerGroups([worker('w0', 'cpu')]).map((g) => g.title)).toEqual(['Workers']);
    expect(workerGroups([])).toEqual([]);
  });
});
