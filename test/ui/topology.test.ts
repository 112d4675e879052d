import { describe, expect, it } from 'vitest';
import { formatDevicePaths, renderTopology } from '../../src/ui/topology.js';
import { workerInfo } from '../../src/server/views.js';
import { validateConfig } from '../../src/config/index.js';
import { worker } from './fixtures.js';

const GiB = 1024 ** 3;
const PROBE = { cpus: () => 8, memoryBytes: () => 64 * GiB, gpus: () => [], tpuDevicePaths: () => [] };

/** WorkerInfo as the API returns it, from a config. */
function fromConfig(raw: unknown) {
  return validateConfig(raw, '/t/.irisrc.yaml', PROBE).workers.map((spec) =>
    workerInfo({ ...spec, state: 'READY' }, undefined),
  );
}

describe('iris workers: topology', () => {
  const workers = fromConfig({
    workers: [
      { name: 'cpu', count: 2, cpu: 4, memory: '8GiB' },
      {
        name: 'gpu',
        gpu: { variant: 'H100', count: 8, memory: '80GiB' },
        cpu: 32,
        memory: '256GiB',
        'cost-per-hour': 12.5,
        attributes: { zone: 'a' },
      },
      { name: 'l4', gpu: 'L4x1', cpu: 4, memory: '16GiB', 'cost-per-hour': 0.5 },
    ],
    slices: [
      { name: 'slice-b', tpu: 'v5litepod-8' },
      {
        name: 'slice-a',
        tpu: 'v5litepod-16',
        cpu: 8,
        memory: '32GiB',
        devices: ['/dev/zero', '/dev/zero', '/dev/zero', '/dev/zero'],
        hostnames: ['h0', 'h1', 'h2', 'h3'],
      },
    ],
  });

  it('groups TPU hosts by slice in worker-id order, then GPU hosts, then CPU pools', () => {
    // worker list order must not matter
    expect(renderTopology([...workers].reverse())).toBe(
      [
        'TPU slices (2)',
        'SLICE    ID  WORKER     HOSTNAME   VARIANT       STATE  CHIPS  CPU  MEMORY    COST/H  TASKS  DEVICE PATHS',
        'slice-a   0  slice-a-0  h0         v5litepod-16  READY  0/4    0/8  0B/32GiB       1      0  /dev/zero x4',
        'slice-a   1  slice-a-1  h1         v5litepod-16  READY  0/4    0/8  0B/32GiB       1      0  /dev/zero x4',
        'slice-a   2  slice-a-2  h2         v5litepod-16  READY  0/4    0/8  0B/32GiB       1      0  /dev/zero x4',
        'slice-a   3  slice-a-3  h3         v5litepod-16  READY  0/4    0/8  0B/32GiB       1      0  /dev/zero x4',
        'slice-b   0  slice-b-0  localhost  v5litepod-8   READY  0/8    0/1  0B/2GiB        1      0  none',
        '',
        'GPU hosts (2)',
        'WORKER  STATE  GPUS      GPU MEMORY  IN USE  CPU   MEMORY     COST/H  TASKS  ATTRIBUTES',
        'gpu     READY  H100 x 8  80GiB       0/8     0/32  0B/256GiB    12.5      0  zone=a',
        'l4      READY  L4 x 1    unknown     0/1     0/4   0B/16GiB      0.5      0',
        '',
        'CPU workers (2)',
        'POOL  WORKER  STATE  CPU  MEMORY   COST/H  TASKS  ATTRIBUTES',
        'cpu   cpu-0   READY  0/4  0B/8GiB       1      0',
        'cpu   cpu-1   READY  0/4  0B/8GiB       1      0',
      ].join('\n'),
    );
  });

  it('--json carries hostname and device paths of TPU hosts', () => {
    const host = JSON.parse(JSON.stringify(workers.find((w) => w.id === 'slice-a-2')));
    expect(host).toMatchObject({
      hostname: 'h2',
      devicePaths: ['/dev/zero', '/dev/zero', '/dev/zero', '/dev/zero'],
      attributes: { 'tpu-name': 'slice-a', 'tpu-worker-id': '2' },
    });
    expect(host.privileged).toBeUndefined();
    expect(workers.find((w) => w.id === 'cpu-0')).not.toHaveProperty('devicePaths');
  });

  it('--json carries cost per hour (default 1) and GPU memory per device (absent: unknown)', () => {
    const json = JSON.parse(JSON.stringify(workers));
    const byId = (id: string) => json.find((w: { id: string }) => w.id === id);
    expect(byId('gpu')).toMatchObject({
      costPerHour: 12.5,
      device: { type: 'gpu', variant: 'H100', count: 8, memoryBytes: 80 * GiB },
    });
    expect(byId('l4').costPerHour).toBe(0.5);
    expect(byId('l4').device.memoryBytes).toBeUndefined();
    expect(byId('cpu-0').costPerHour).toBe(1);
  });

  it('a lone worker is no pool; an empty cluster says so; distinct paths are listed', () => {
    expect(renderTopology([worker('local')])).toContain('-     local   READY');
    expect(renderTopology([])).toBe('no workers');
    expect(formatDevicePaths(['/dev/accel0', '/dev/accel1'])).toBe('/dev/accel0,/dev/accel1');
    expect(formatDevicePaths(undefined)).toBe('none');
  });

  it('a worker that left the cluster while its tasks run says so in its state', () => {
    const text = renderTopology([worker('local'), { ...worker('old'), state: 'DRAINING', left: 'config' }]);
    expect(text).toMatch(/old\s+DRAINING \(left the config\)/);
    expect(renderTopology([{ ...worker('n1'), state: 'DRAINING', left: 'node' }])).toContain('DRAINING (node deleted)');
  });
});

describe('iris workers: context-reuse hints', () => {
  const NOW = 1_700_000_000_000;
  it('a CACHED column shows each hint with its time left, or loading; none without hints', () => {
    const hints = new Map([
      ['wiki', { key: 'wiki', expiresAt: NOW + 5 * 60_000, loading: false }],
      ['llama-3', { key: 'llama-3', expiresAt: NOW + 48 * 60_000, loading: false }],
    ]);
    const spec = {
      id: 'cpu-0',
      cpuMillis: 4000,
      memoryBytes: GiB,
      device: { type: 'cpu' as const, variant: null, count: 0 },
      attributes: {},
    };
    const warm = workerInfo({ ...spec, state: 'READY' }, undefined, hints);
    const loading = workerInfo(
      { ...spec, id: 'cpu-1', state: 'READY' },
      undefined,
      new Map([['mistral', { key: 'mistral', expiresAt: NOW + 3_600_000, loading: true }]]),
    );
    const cold = workerInfo({ ...spec, id: 'cpu-2', state: 'READY' }, undefined);
    expect(warm.cache.map((h) => h.key)).toEqual(['llama-3', 'wiki']);
    expect(cold.cache).toEqual([]);
    expect(renderTopology([warm, loading, cold], undefined, NOW)).toBe(
      [
        'CPU workers (3)',
        'POOL  WORKER  STATE  CPU  MEMORY   COST/H  TASKS  ATTRIBUTES  CACHED',
        'cpu   cpu-0   READY  0/4  0B/1GiB       1      0              llama-3 (48m00s), wiki (5m00s)',
        'cpu   cpu-1   READY  0/4  0B/1GiB       1      0              mistral (loading)',
        'cpu   cpu-2   READY  0/4  0B/1GiB       1      0              -',
      ].join('\n'),
    );
    expect(renderTopology([cold], undefined, NOW)).not.toContain('CACHED');
  });
});

describe('iris workers: disabled workers', () => {
  it('lists who disabled each worker, why, since when and its running tasks, after the sections', () => {
    const [cpu0, cpu1] = fromConfig({ workers: [{ name: 'cpu', count: 3, cpu: 4, memory: '8GiB' }] });
    const now = 1_000_000;
    const off = workerInfo(
      {
        ...validateConfig({ workers: [{ name: 'x', cpu: 1, memory: '1GiB' }] }, '/t/.irisrc.yaml', PROBE).workers[0]!,
        id: 'cpu-2',
        state: 'DISABLED',
        disabled: { by: 'elastic', reason: 'idle 1m', disabledAt: now - 65_000 },
      },
      undefined,
    );
    const user = {
      ...cpu1!,
      state: 'DISABLED' as const,
      disabled: { by: 'user' as const, reason: '', disabledAt: now - 3_000 },
      runningTasks: ['/a/task-0'],
    };
    const text = renderTopology([cpu0!, user, off], undefined, now);
    expect(text.split('\n').slice(-4)).toEqual([
      'Disabled workers (2): no new tasks; running tasks go on',
      'WORKER  BY       WHY      SINCE      TASKS',
      'cpu-1   user     -        3s ago         1',
      'cpu-2   elastic  idle 1m  1m05s ago      0',
    ]);
    expect(text).toMatch(/cpu-1\s+DISABLED/);
    expect(renderTopology([cpu0!], undefined, now)).not.toContain('Disabled');
  });
});
