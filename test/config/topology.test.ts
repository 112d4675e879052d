import { describe, expect, it } from 'vitest';
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import { DEFAULT_QUEUE } from '../../src/config/defaults.js';
import { normalizeGpuName, parseNvidiaSmi } from '../../src/config/detect.js';
import {
  DEFAULT_QUEUE_OPTIONS,
  MAX_QUEUE_DEPTH,
  MAX_RESERVATION_DEPTH,
} from '../../src/cluster/scheduler/queue/options.js';
import { refusal } from '../helpers/refusal.js';

const SOURCE = '/p/.irisrc.yaml';
const GiB = 1024 ** 3;

function probe(o: Partial<MachineProbe> = {}): MachineProbe & { tpuCalls: number } {
  const p = {
    tpuCalls: 0,
    cpus: () => 4,
    memoryBytes: () => 16 * GiB,
    gpus: () => [],
    tpuDevicePaths: () => {
      p.tpuCalls++;
      return [] as string[];
    },
    ...o,
  };
  if (o.tpuDevicePaths) {
    const given = o.tpuDevicePaths;
    p.tpuDevicePaths = () => {
      p.tpuCalls++;
      return given();
    };
  }
  return p;
}

const errorOf = (raw: unknown, machine: MachineProbe = probe()) => refusal(() => validateConfig(raw, SOURCE, machine));

describe('slices: one virtual worker per TPU host', () => {
  it('v5litepod-16 expands into 4 hosts of 4 chips with the slice attributes', () => {
    const config = validateConfig(
      {
        slices: [
          {
            name: 'slice-a',
            tpu: 'v5litepod-16',
            cpu: 8,
            memory: '32GiB',
            devices: ['/dev/zero', '/dev/zero', '/dev/null', '/dev/null'],
          },
        ],
      },
      SOURCE,
      probe(),
    );
    expect(config.workers.map((w) => w.id)).toEqual(['slice-a-0', 'slice-a-1', 'slice-a-2', 'slice-a-3']);
    config.workers.forEach((w, i) => {
      expect(w).toEqual({
        id: `slice-a-${i}`,
        cpuMillis: 8000,
        memoryBytes: 32 * GiB,
        device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
        attributes: {
          'tpu-name': 'slice-a',
          'tpu-worker-id': String(i),
          'device-type': 'tpu',
          'device-variant': 'v5litepod-16',
        },
        devicePaths: ['/dev/zero', '/dev/zero', '/dev/null', '/dev/null'],
        hostname: 'localhost',
      });
    });
  });

  it('hostnames per host, defaults for cpu and memory, privileged opt-in, extra attributes', () => {
    const [a, b] = validateConfig(
      {
        slices: [
          { name: 's', tpu: 'v4-16', hostnames: ['h0', '10.0.0.2'], privileged: true, attributes: { zone: 'z1' } },
        ],
      },
      SOURCE,
      probe({ tpuDevicePaths: () => ['/dev/accel0', '/dev/accel1', '/dev/accel2', '/dev/accel3'] }),
    ).workers;
    expect([a!.hostname, b!.hostname]).toEqual(['h0', '10.0.0.2']);
    expect([a!.cpuMillis, a!.memoryBytes]).toEqual([1000, 2 * GiB]);
    expect(a!.privileged).toBe(true);
    expect(a!.attributes.zone).toBe('z1');
    expect(b!.devicePaths).toEqual(['/dev/accel0', '/dev/accel1', '/dev/accel2', '/dev/accel3']);
  });

  it('without devices: detected once for the whole config; none found stays empty (never invented)', () => {
    const none = probe();
    const config = validateConfig(
      {
        slices: [
          { name: 'a', tpu: 'v5litepod-16' },
          { name: 'b', tpu: 'v6e-8' },
        ],
      },
      SOURCE,
      none,
    );
    expect(config.workers).toHaveLength(5);
    expect(config.workers.every((w) => Array.isArray(w.devicePaths) && w.devicePaths.length === 0)).toBe(true);
    expect(none.tpuCalls).toBe(1);
    // more detected files than chips per host: only as many as the host has chips
    const vfio = probe({
      tpuDevicePaths: () => ['/dev/vfio/0', '/dev/vfio/1', '/dev/vfio/2', '/dev/vfio/3', '/dev/vfio/4'],
    });
    const [host] = validateConfig({ slices: [{ name: 'a', tpu: 'v5p-16' }] }, SOURCE, vfio).workers;
    expect(host!.devicePaths).toEqual(['/dev/vfio/0', '/dev/vfio/1', '/dev/vfio/2', '/dev/vfio/3']);
  });

  it('no detection when every slice lists its devices, or with no slice at all', () => {
    const p = probe();
    validateConfig(
      { workers: [{ name: 'c' }], slices: [{ name: 's', tpu: 'v5litepod-1', devices: ['/dev/zero'] }] },
      SOURCE,
      p,
    );
    expect(p.tpuCalls).toBe(0);
  });

  it('slices come after workers; names stay unique across both', () => {
    const config = validateConfig(
      { workers: [{ name: 'cpu', count: 2 }], slices: [{ name: 's', tpu: 'v5litepod-8' }] },
      SOURCE,
      probe(),
    );
    expect(config.workers.map((w) => w.id)).toEqual(['cpu-0', 'cpu-1', 's-0']);
    expect(config.workers[2]!.device.count).toBe(8);
  });

  const errors: Array<[string, unknown, string, RegExp]> = [
    ['unknown variant', { slices: [{ name: 's', tpu: 'v9-16' }] }, 'slices[0].tpu', /unknown TPU variant "v9-16"/],
    ['missing tpu', { slices: [{ name: 's' }] }, 'slices[0].tpu', /missing TPU variant/],
    ['missing name', { slices: [{ tpu: 'v4-8' }] }, 'slices[0].name', /missing slice name/],
    [
      'wrong number of devices',
      { slices: [{ name: 's', tpu: 'v5litepod-16', devices: ['/dev/zero'] }] },
      'slices[0].devices',
      /1 device path for 4 chips/,
    ],
    [
      'relative device path',
      { slices: [{ name: 's', tpu: 'v5litepod-1', devices: ['dev/zero'] }] },
      'slices[0].devices[0]',
      /absolute path/,
    ],
    [
      'wrong number of hostnames',
      { slices: [{ name: 's', tpu: 'v5litepod-16', hostnames: ['a', 'b'] }] },
      'slices[0].hostnames',
      /2 host names for v5litepod-16, which has 4 hosts/,
    ],
    [
      'bad hostname',
      { slices: [{ name: 's', tpu: 'v4-8', hostnames: ['a b'] }] },
      'slices[0].hostnames[0]',
      /invalid hostname "a b"/,
    ],
    [
      'tpu-worker-id set by hand',
      { slices: [{ name: 's', tpu: 'v4-16', attributes: { 'tpu-worker-id': 5 } }] },
      'slices[0].attributes.tpu-worker-id',
      /reported by the worker itself/,
    ],
    [
      'duplicate with a worker',
      { workers: [{ name: 's-0' }], slices: [{ name: 's', tpu: 'v4-8' }] },
      'slices[0].name',
      /duplicate worker name "s-0" \(also workers\[0\]\)/,
    ],
    [
      'worker claims a slice name',
      { workers: [{ name: 'x', attributes: { 'tpu-name': 's' } }], slices: [{ name: 's', tpu: 'v4-8' }] },
      'workers[0].attributes.tpu-name',
      /is the name of slices\[0\]/,
    ],
    ['slices not a list', { slices: { name: 's' } }, 'slices', /expected a list of slices/],
    ['unknown slice key', { slices: [{ name: 's', tpu: 'v4-8', host: 'x' }] }, 'slices[0].host', /unknown key/],
    [
      'privileged not boolean',
      { slices: [{ name: 's', tpu: 'v4-8', privileged: 'yes' }] },
      'slices[0].privileged',
      /expected true or false/,
    ],
  ];
  it.each(errors)('error: %s', (_label, raw, keyPath, detail) => {
    const error = errorOf(raw);
    expect(error.message.startsWith(`${SOURCE}: ${keyPath}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });
});

describe('workers: pools, tpu devices, hostname, privileged', () => {
  it('count expands a worker into a pool name-0..name-(N-1)', () => {
    const workers = validateConfig(
      { workers: [{ name: 'gpu', count: 3, gpu: { variant: 'H100', count: 8 }, attributes: { rack: 'r1' } }] },
      SOURCE,
      probe(),
    ).workers;
    expect(workers.map((w) => w.id)).toEqual(['gpu-0', 'gpu-1', 'gpu-2']);
    expect(
      workers.every(
        (w) => w.device.count === 8 && w.attributes.rack === 'r1' && w.attributes['device-variant'] === 'H100',
      ),
    ).toBe(true);
    // each pool member is its own object
    workers[0]!.attributes.rack = 'changed';
    expect(workers[1]!.attributes.rack).toBe('r1');
  });

  it('tpu devices, hostname and privileged on a plain worker; cpu workers carry no device paths', () => {
    const [t, c] = validateConfig(
      {
        workers: [
          {
            name: 't',
            hostname: 'tpu-vm-0',
            privileged: true,
            tpu: { variant: 'v5litepod-4', devices: ['/dev/vfio/0', '/dev/vfio/1', '/dev/vfio/2', '/dev/vfio/3'] },
          },
          { name: 'c' },
        ],
      },
      SOURCE,
      probe(),
    ).workers;
    expect(t).toMatchObject({
      hostname: 'tpu-vm-0',
      privileged: true,
      devicePaths: ['/dev/vfio/0', '/dev/vfio/1', '/dev/vfio/2', '/dev/vfio/3'],
    });
    expect(c).toEqual({
      id: 'c',
      cpuMillis: 1000,
      memoryBytes: 2 * GiB,
      device: { type: 'cpu', variant: null, count: 0 },
      attributes: { 'device-type': 'cpu' },
    });
  });

  const errors: Array<[string, unknown, string, RegExp]> = [
    ['count zero', { workers: [{ name: 'a', count: 0 }] }, 'workers[0].count', /at least 1/],
    [
      'pool name too long with suffix',
      { workers: [{ name: 'x'.repeat(62), count: 10 }] },
      'workers[0].name',
      /including the "-N" suffix/,
    ],
    [
      'pool collides with a worker',
      { workers: [{ name: 'a', count: 2 }, { name: 'a-1' }] },
      'workers[1].name',
      /duplicate worker name "a-1" \(also workers\[0\]\)/,
    ],
    [
      'tpu devices per chip',
      { workers: [{ name: 'a', tpu: { variant: 'v4-8', devices: ['/dev/accel0'] } }] },
      'workers[0].tpu.devices',
      /1 device path for 4 chips/,
    ],
    ['bad hostname', { workers: [{ name: 'a', hostname: '-x' }] }, 'workers[0].hostname', /invalid hostname/],
  ];
  it.each(errors)('error: %s', (_label, raw, keyPath, detail) => {
    const error = errorOf(raw);
    expect(error.message.startsWith(`${SOURCE}: ${keyPath}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });
});

describe('workers: power-watts', () => {
  it('lands on every worker of the entry and slice; absent stays absent', () => {
    const workers = validateConfig(
      {
        workers: [{ name: 'p', count: 2, 'power-watts': { idle: 60, busy: '250' } }, { name: 'q' }],
        slices: [{ name: 's', tpu: 'v4-8', 'power-watts': { idle: 0, busy: 0 } }],
      },
      SOURCE,
      probe(),
    ).workers;
    expect(workers.map((w) => [w.id, w.powerWatts])).toEqual([
      ['p-0', { idle: 60, busy: 250 }],
      ['p-1', { idle: 60, busy: 250 }],
      ['q', undefined],
      ['s-0', { idle: 0, busy: 0 }],
    ]);
  });
});

describe('workers: cost per hour and gpu memory', () => {
  it(
    'cost-per-hour and gpu.memory land on every worker of the entry; absent stays absent (cost 1, memory ' + 'unknown)',
    () => {
      const workers = validateConfig(
        {
          workers: [
            { name: 'big', count: 2, 'cost-per-hour': 12.5, gpu: { variant: 'H100', count: 8, memory: '80GiB' } },
            { name: 'small', 'cost-per-hour': '0', gpu: 'L4x1' },
          ],
          slices: [{ name: 's', tpu: 'v4-8', 'cost-per-hour': 3 }],
        },
        SOURCE,
        probe(),
      ).workers;
      expect(workers.map((w) => [w.id, w.costPerHour, w.device.memoryBytes])).toEqual([
        ['big-0', 12.5, 80 * GiB],
        ['big-1', 12.5, 80 * GiB],
        ['small', 0, undefined],
        ['s-0', 3, undefined],
      ]);
      expect(validateConfig({ workers: [{ name: 'c' }] }, SOURCE, probe()).workers[0]).not.toHaveProperty(
        'costPerHour',
      );
    },
  );

  const errors: Array<[string, unknown, string, RegExp]> = [
    [
      'negative cost',
      { workers: [{ name: 'a', 'cost-per-hour': -1 }] },
      'workers[0].cost-per-hour',
      /invalid cost-per-hour -1: expected a number of 0 or more such as 0.5 or 12/,
    ],
    [
      'cost as a word',
      { workers: [{ name: 'a', 'cost-per-hour': 'cheap' }] },
      'workers[0].cost-per-hour',
      /invalid cost-per-hour "cheap"/,
    ],
    [
      'slice cost',
      { slices: [{ name: 's', tpu: 'v4-8', 'cost-per-hour': true }] },
      'slices[0].cost-per-hour',
      /invalid cost-per-hour true/,
    ],
    [
      'gpu memory not a size',
      { workers: [{ name: 'a', gpu: { count: 1, memory: 'lots' } }] },
      'workers[0].gpu.memory',
      /invalid gpu memory "lots": expected a size/,
    ],
    [
      'gpu memory zero',
      { workers: [{ name: 'a', gpu: { count: 1, memory: 0 } }] },
      'workers[0].gpu.memory',
      /invalid gpu memory 0/,
    ],
    [
      'unknown gpu key',
      { workers: [{ name: 'a', gpu: { count: 1, mem: '8GiB' } }] },
      'workers[0].gpu.mem',
      /unknown key/,
    ],
    [
      'negative idle watts',
      { workers: [{ name: 'a', 'power-watts': { idle: -5, busy: 100 } }] },
      'workers[0].power-watts.idle',
      /invalid power-watts idle -5: expected a number of 0 or more/,
    ],
    [
      'busy below idle',
      { workers: [{ name: 'a', 'power-watts': { idle: 200, busy: 100 } }] },
      'workers[0].power-watts.busy',
      /power-watts busy 100 is below idle 200/,
    ],
    [
      'power-watts missing busy',
      { slices: [{ name: 's', tpu: 'v4-8', 'power-watts': { idle: 50 } }] },
      'slices[0].power-watts.busy',
      /power-watts busy/,
    ],
    [
      'power-watts a number',
      { workers: [{ name: 'a', 'power-watts': 300 }] },
      'workers[0].power-watts',
      /expected an object such as \{ idle: 60, busy: 250 \}/,
    ],
  ];
  it.each(errors)('error: %s', (_label, raw, keyPath, detail) => {
    const error = errorOf(raw);
    expect(error.message.startsWith(`${SOURCE}: ${keyPath}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });
});

describe('the machine worker detects NVIDIA GPUs', () => {
  it('uses nvidia-smi output: variant from the name, count from the lines', () => {
    const gpus = parseNvidiaSmi('0, NVIDIA H100 80GB HBM3\n1, NVIDIA H100 80GB HBM3\n\n');
    const [worker] = validateConfig({}, SOURCE, probe({ gpus: () => gpus })).workers;
    expect(worker).toEqual({
      id: 'local',
      cpuMillis: 4000,
      memoryBytes: 16 * GiB,
      device: { type: 'gpu', variant: 'H100', count: 2 },
      attributes: { 'device-type': 'gpu', 'device-variant': 'H100' },
    });
  });

  it('mixed GPUs have no single variant; no GPUs stay cpu', () => {
    const mixed = [
      { index: 0, name: 'NVIDIA L4' },
      { index: 1, name: 'Tesla T4' },
    ];
    expect(validateConfig(null, SOURCE, probe({ gpus: () => mixed })).workers[0]!.device).toEqual({
      type: 'gpu',
      variant: null,
      count: 2,
    });
    expect(validateConfig(null, SOURCE, probe()).workers[0]!.device).toEqual({ type: 'cpu', variant: null, count: 0 });
  });

  it('declared workers skip detection', () => {
    let called = false;
    validateConfig({ workers: [{ name: 'w' }] }, SOURCE, probe({ gpus: () => ((called = true), []) }));
    expect(called).toBe(false);
  });

  it.each([
    ['NVIDIA H100 80GB HBM3', 'H100'],
    ['NVIDIA H100 PCIe', 'H100'],
    ['NVIDIA A100-SXM4-40GB', 'A100'],
    ['Tesla V100-SXM2-16GB', 'V100'],
    ['NVIDIA L4', 'L4'],
    ['Tesla T4', 'T4'],
    ['NVIDIA A10G', 'A10G'],
    ['NVIDIA GeForce RTX 4090', 'RTX4090'],
    ['NVIDIA RTX A6000', 'RTXA6000'],
    ['NVIDIA', null],
  ])('normalizeGpuName(%s) = %s', (name, variant) => {
    expect(normalizeGpuName(name)).toBe(variant);
  });

  it('parseNvidiaSmi ignores junk and sorts by index', () => {
    expect(parseNvidiaSmi('1, NVIDIA L4\nNVIDIA-SMI has failed\n0, NVIDIA L4')).toEqual([
      { index: 0, name: 'NVIDIA L4' },
      { index: 1, name: 'NVIDIA L4' },
    ]);
    expect(parseNvidiaSmi('')).toEqual([]);
  });

  it('parseNvidiaSmi reads memory.total in MiB (with or without the unit); [N/A] is unknown', () => {
    expect(parseNvidiaSmi('1, NVIDIA H100 80GB HBM3, 81559\n0, NVIDIA L4, 23034 MiB\n2, NVIDIA A10G, [N/A]\n')).toEqual(
      [
        { index: 0, name: 'NVIDIA L4', memoryBytes: 23034 * 1024 ** 2 },
        { index: 1, name: 'NVIDIA H100 80GB HBM3', memoryBytes: 81559 * 1024 ** 2 },
        { index: 2, name: 'NVIDIA A10G' },
      ],
    );
  });

  it('the machine worker carries the smallest probed GPU memory, or none when any is unknown', () => {
    const gpus = parseNvidiaSmi('0, NVIDIA H100 80GB HBM3, 81559\n1, NVIDIA H100 80GB HBM3, 81000\n');
    expect(validateConfig(null, SOURCE, probe({ gpus: () => gpus })).workers[0]!.device).toEqual({
      type: 'gpu',
      variant: 'H100',
      count: 2,
      memoryBytes: 81000 * 1024 ** 2,
    });
    const partly = parseNvidiaSmi('0, NVIDIA L4, 23034\n1, NVIDIA L4, [N/A]\n');
    expect(validateConfig(null, SOURCE, probe({ gpus: () => partly })).workers[0]!.device).toEqual({
      type: 'gpu',
      variant: 'L4',
      count: 2,
    });
  });
});

describe('time-limit, queue and runtime keys', () => {
  it('defaults', () => {
    const config = validateConfig({ workers: [{ name: 'w' }] }, SOURCE, probe());
    expect(config.defaults.timeLimitMs).toBe(24 * 3_600_000);
    expect(config.queue).toEqual({ policy: 'easy', depth: 32, reservationDepth: 64, maxReservationDepth: 100_000 });
    expect(config.runtime).toEqual({
      kind: 'process',
      image: null,
      network: null,
      containerUser: '65534:65534',
      containerProcessChildren: false,
      workspace: true,
      mounts: [],
    });
  });

  it('explicit values', () => {
    const config = validateConfig(
      {
        'time-limit': '90m',
        queue: { policy: 'hybrid', depth: 100, 'reservation-depth': 10, 'max-reservation-depth': 20 },
        runtime: 'docker',
        image: 'python:3.12',
        network: 'bridge',
        'container-user': '1000:100',
        'container-process-children': true,
      },
      SOURCE,
      probe(),
    );
    expect(config.defaults.timeLimitMs).toBe(90 * 60_000);
    expect(config.queue).toEqual({ policy: 'hybrid', depth: 100, reservationDepth: 10, maxReservationDepth: 20 });
    expect(config.runtime).toEqual({
      kind: 'docker',
      image: 'python:3.12',
      network: 'bridge',
      containerUser: '1000:100',
      containerProcessChildren: true,
      workspace: true,
      mounts: [],
    });
  });

  it('workspace: false and mounts (SRC:DST[:ro], sources resolved at each submit)', () => {
    const raw = { workspace: false, mounts: ['/srv/data:/data:ro', '/srv/out/:/out'] };
    const config = validateConfig(raw, SOURCE, probe());
    expect(config.runtime).toMatchObject({
      workspace: false,
      mounts: [
        { source: '/srv/data', target: '/data', readOnly: true },
        { source: '/srv/out', target: '/out', readOnly: false },
      ],
    });
    const kube = errorOf({ backend: { kind: 'kubernetes' }, mounts: ['/srv/a:/a'] });
    expect(kube.hint).toBe('remove mounts, or use the local backend');
    expect(errorOf({ mounts: ['data:/d'] }).exitCode).toBe(2);
  });

  it('a small max-reservation-depth lowers the default reservation-depth', () => {
    expect(validateConfig({ queue: { 'max-reservation-depth': 8 } }, SOURCE, probe()).queue.reservationDepth).toBe(8);
  });

  it("queue defaults and limits are the scheduler's own", () => {
    const config = validateConfig({ queue: { 'reservation-depth': MAX_RESERVATION_DEPTH } }, SOURCE, probe());
    expect(config.queue.reservationDepth).toBe(MAX_RESERVATION_DEPTH);
    expect(config.queue.maxReservationDepth).toBe(MAX_RESERVATION_DEPTH);
    expect(MAX_RESERVATION_DEPTH).toBe(100_000);
    expect(DEFAULT_QUEUE).toEqual({
      policy: DEFAULT_QUEUE_OPTIONS.policy,
      depth: DEFAULT_QUEUE_OPTIONS.queueDepth,
      reservationDepth: DEFAULT_QUEUE_OPTIONS.reservationDepth,
      maxReservationDepth: MAX_RESERVATION_DEPTH,
    });
    expect(errorOf({ queue: { 'reservation-depth': MAX_RESERVATION_DEPTH + 1 } }).message).toBe(
      `${SOURCE}: queue.reservation-depth: invalid reservation-depth 100001: at most 100000`,
    );
    expect(errorOf({ queue: { 'max-reservation-depth': MAX_RESERVATION_DEPTH + 1 } }).message).toMatch(
      /queue\.max-reservation-depth: invalid max-reservation-depth 100001: at most 100000/,
    );
    expect(errorOf({ queue: { depth: MAX_QUEUE_DEPTH + 1 } }).message).toMatch(
      /queue\.depth: invalid queue depth 1000001: at most 1000000/,
    );
  });

  it.each(['first-fit', 'fcfs', 'easy', 'conservative', 'hybrid'])('policy %s is accepted', (policy) => {
    expect(validateConfig({ queue: { policy } }, SOURCE, probe()).queue.policy).toBe(policy);
  });

  const errors: Array<[string, unknown, string, RegExp]> = [
    ['time-limit zero', { 'time-limit': '0s' }, 'time-limit', /must be longer than 0/],
    ['time-limit nonsense', { 'time-limit': 'forever' }, 'time-limit', /invalid duration "forever"/],
    [
      'unknown policy with suggestion',
      { queue: { policy: 'conservativ' } },
      'queue.policy',
      /invalid queue policy "conservativ" \(did you mean "conservative"\?\)/,
    ],
    [
      'reservation beyond max',
      { queue: { 'reservation-depth': 70, 'max-reservation-depth': 64 } },
      'queue.reservation-depth',
      /reservation-depth 70 is larger than max-reservation-depth 64/,
    ],
    ['queue depth zero', { queue: { depth: 0 } }, 'queue.depth', /at least 1/],
    ['queue unknown key', { queue: { 'queue-depth': 3 } }, 'queue.queue-depth', /unknown key/],
    ['docker without image', { runtime: 'docker' }, 'runtime', /runtime: docker needs a default image/],
    ['image without docker', { image: 'busybox' }, 'image', /only used with runtime: docker/],
    ['bad image', { runtime: 'docker', image: 'Bad Image' }, 'image', /invalid image reference "Bad Image"/],
    ['unknown runtime', { runtime: 'podman' }, 'runtime', /invalid runtime "podman"/],
    ['unknown network', { network: 'none' }, 'network', /invalid network "none"/],
    [
      'a container user with spaces',
      { 'container-user': 'root user' },
      'container-user',
      /invalid container user "root user"/,
    ],
    ['workspace that is no boolean', { workspace: 'no' }, 'workspace', /expected boolean, got "no"/],
    [
      'mounts that are no list',
      { mounts: '/a:/b' },
      'mounts',
      /expected a list of SRC:DST\[:ro\] strings, got "\/a:\/b"/,
    ],
    ['a mount without DST', { mounts: ['/srv/a'] }, 'mounts[0]', /mount "\/srv\/a": expected SRC:DST/],
    [
      'a relative mount source',
      { mounts: ['/srv/a:/a', 'data:/d'] },
      'mounts[1]',
      /mount "data:\/d": the host path "data" is not absolute/,
    ],
    [
      'a mount target that is not absolute',
      { mounts: ['/srv/a:a'] },
      'mounts[0]',
      /the path in the container "a" is not absolute/,
    ],
    [
      'a mount into /proc',
      { mounts: ['/srv/a:/proc/x'] },
      'mounts[0]',
      /"\/proc\/x" lies in \/proc, which the container's runtime provides/,
    ],
    [
      'mounts on the kubernetes backend',
      { backend: { kind: 'kubernetes' }, mounts: ['/srv/a:/a'] },
      'mounts',
      /the kubernetes backend does not mount host directories into Pods/,
    ],
  ];
  it.each(errors)('error: %s', (_label, raw, keyPath, detail) => {
    const error = errorOf(raw);
    expect(error.message.startsWith(`${SOURCE}: ${keyPath}: `)).toBe(true);
    expect(error.message).toMatch(detail);
  });

  it('the runtime hint names the choices', () => {
    expect(errorOf({ network: 'none' }).hint).toBe('use one of: bridge, host');
  });
});
