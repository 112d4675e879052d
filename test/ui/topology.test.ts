import { describe, expect, it } from 'vitest';
import { formatDevicePaths, renderTopology } from '../../src/ui/topology.js';
import { workerInfo } from '../../src/server/views.js';
import { validateConfig } from '../../src/config/index.js';
import { worker } from './fixtures.js';

const GiB = 1024 ** 3;
const PROBE = { cpus: () => 8, memoryBytes: () => 64 * GiB, gpus: () => [], tpuDevicePaths: () => [] };

/** WorkerInfo as the API returns it, from a config. */
function fromConfig(raw: unknown) {
  return validateConfig(raw, '/t/.irisrc.yaml', PROBE).workers.map((spec) => workerInfo({ ...spec, state: 'READY' }, undefined));
}

describe('iris workers: topology', () => {
  const workers = fromConfig({
    workers: [
      { name: 'cpu', count: 2, cpu: 4, memory: '8GiB' },
      { name: 'gpu', gpu: { variant: 'H100', count: 8 }, cpu: 32, memory: '256GiB', attributes: { zone: 'a' } },
    ],
    slices: [
      { name: 'slice-b', tpu: 'v5litepod-8' },
      { name: 'slice-a', tpu: 'v5litepod-16', cpu: 8, memory: '32GiB', devices: ['/dev/zero', '/dev/zero', '/dev/zero', '/dev/zero'], hostnames: ['h0', 'h1', 'h2', 'h3'] },
    ],
  });

  it('groups TPU hosts by slice in worker-id order, then GPU hosts, then CPU pools', () => {
    // worker list order must not matter
    expect(renderTopology([...workers].reverse())).toBe([
      'TPU slices (2)',
      'SLICE    ID  WORKER     HOSTNAME   VARIANT       STATE  CHIPS  CPU  MEMORY    TASKS  DEVICE PATHS',
      'slice-a   0  slice-a-0  h0         v5litepod-16  READY  0/4    0/8  0B/32GiB      0  /dev/zero x4',
      'slice-a   1  slice-a-1  h1         v5litepod-16  READY  0/4    0/8  0B/32GiB      0  /dev/zero x4',
      'slice-a   2  slice-a-2  h2         v5litepod-16  READY  0/4    0/8  0B/32GiB      0  /dev/zero x4',
      'slice-a   3  slice-a-3  h3         v5litepod-16  READY  0/4    0/8  0B/32GiB      0  /dev/zero x4',
      'slice-b   0  slice-b-0  localhost  v5litepod-8   READY  0/8    0/1  0B/2GiB       0  none',
      '',
      'GPU hosts (1)',
      'WORKER  STATE  GPUS      IN USE  CPU   MEMORY     TASKS  ATTRIBUTES',
      'gpu     READY  H100 x 8  0/8     0/32  0B/256GiB      0  zone=a',
      '',
      'CPU workers (2)',
      'POOL  WORKER  STATE  CPU  MEMORY   TASKS  ATTRIBUTES',
      'cpu   cpu-0   READY  0/4  0B/8GiB      0',
      'cpu   cpu-1   READY  0/4  0B/8GiB      0',
    ].join('\n'));
  });

  it('--json carries hostname and device paths of TPU hosts', () => {
    const host = JSON.parse(JSON.stringify(workers.find((w) => w.id === 'slice-a-2')));
    expect(host).toMatchObject({ hostname: 'h2', devicePaths: ['/dev/zero', '/dev/zero', '/dev/zero', '/dev/zero'], attributes: { 'tpu-name': 'slice-a', 'tpu-worker-id': '2' } });
    expect(host.privileged).toBeUndefined();
    expect(workers.find((w) => w.id === 'cpu-0')).not.toHaveProperty('devicePaths');
  });

  it('a lone worker is no pool; an empty cluster says so; distinct paths are listed', () => {
    expect(renderTopology([worker('local')])).toContain('-     local   READY');
    expect(renderTopology([])).toBe('no workers');
    expect(formatDevicePaths(['/dev/accel0', '/dev/accel1'])).toBe('/dev/accel0,/dev/accel1');
    expect(formatDevicePaths(undefined)).toBe('none');
  });
});

describe('iris workers: disabled workers', () => {
  it('lists who disabled each worker, why, since when and its running tasks, after the sections', () => {
    const [cpu0, cpu1] = fromConfig({ workers: [{ name: 'cpu', count: 3, cpu: 4, memory: '8GiB' }] });
    const now = 1_000_000;
    const off = workerInfo({ ...validateConfig({ workers: [{ name: 'x', cpu: 1, memory: '1GiB' }] }, '/t/.irisrc.yaml', PROBE).workers[0]!, id: 'cpu-2', state: 'DISABLED', disabled: { by: 'elastic', reason: 'idle 1m', disabledAt: now - 65_000 } }, undefined);
    const user = { ...cpu1!, state: 'DISABLED' as const, disabled: { by: 'user' as const, reason: '', disabledAt: now - 3_000 }, runningTasks: ['/a/task-0'] };
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
