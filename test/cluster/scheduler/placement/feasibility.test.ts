import { describe, expect, it } from 'vitest';
import { parseConstraint } from '../../../../src/model/constraints.js';
import { neverReason } from '../../../../src/cluster/scheduler/index.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { gpuWorker, job, snapshot, tpuWorker, worker } from '../helpers.js';

const TPU = { type: 'tpu', variant: 'v5litepod-16', chips: 4 } as const;

describe('neverReason (submit-time feasibility)', () => {
  const cluster = [
    worker('c1', { cpu: 4, memGiB: 16, attributes: { region: 'us-east1' }, freeCpu: 0, freeMemGiB: 0 }),
    gpuWorker('g1', 'A100', 8, { attributes: { region: 'us-west1' }, freeDevices: [] }),
    tpuWorker('t0', 's', 0),
    tpuWorker('t1', 's', 1),
  ];
  const table: Array<[string, ReturnType<typeof job>, string | null]> = [
    ['fits an idle worker even when everything is busy now', job('/ok', { cpu: 4 }), null],
    ['too many cpus', job('/j', { cpu: 64 }), 'need 64 CPU, largest worker has 32'],
    ['too much memory', job('/j', { memGiB: 512 }), 'need 512GiB memory, largest worker has 256GiB'],
    [
      'missing gpu variant',
      job('/j', { device: { type: 'gpu', variant: 'H100', count: 1 } }),
      'no gpu worker of variant H100',
    ],
    [
      'too many gpus',
      job('/j', { device: { type: 'gpu', variant: null, count: 9 } }),
      'need 9 GPUs, largest gpu worker has 8',
    ],
    [
      'unsatisfiable constraint',
      job('/j', { constraints: [parseConstraint('region=eu-west4')] }),
      'no worker satisfies constraint region=eu-west4',
    ],
    [
      'constraints that hold separately but not together',
      job('/j', { constraints: [parseConstraint('region'), parseConstraint('tpu-name')] }),
      'no worker satisfies all constraints region, tpu-name',
    ],
    [
      'constraint among gpu workers',
      job('/j', {
        device: { type: 'gpu', variant: null, count: 1 },
        constraints: [parseConstraint('region=us-east1')],
      }),
      'no gpu worker satisfies constraint region=us-east1',
    ],
    ['gang that fits a group', job('/g', { coschedule: 'tpu-name', replicas: 2, device: TPU }), null],
    [
      'gang larger than every group',
      job('/g', { coschedule: 'tpu-name', replicas: 4, device: TPU }),
      'need 4 workers in one tpu-name group, largest group has 2',
    ],
    ['gang on a missing attribute', job('/g', { coschedule: 'rack', replicas: 2 }), 'no worker has the rack attribute'],
  ];
  it.each(table)('%s', (_name, j, expected) => {
    expect(neverReason(j, cluster)).toBe(expected);
  });

  it('gpu memory: a request no GPU of the cluster has is refused with the largest known amount', () => {
    const GiB = 1024 ** 3;
    const gpus = (memory: number | null, id: string) =>
      worker(id, {
        cpu: 8,
        device: { type: 'gpu', variant: 'H100', count: 8, ...(memory === null ? {} : { memoryBytes: memory * GiB }) },
      });
    const cluster = [worker('c'), gpus(24, 'small'), gpus(80, 'big'), gpus(null, 'unknown')];
    const asking = (memory: number, extra: Partial<Parameters<typeof job>[1]> = {}) =>
      job('/j', { device: { type: 'gpu', variant: null, count: 1, memoryBytes: memory * GiB }, ...extra });
    expect(neverReason(asking(40), cluster)).toBeNull();
    expect(neverReason(asking(200), cluster)).toBe('need 200GiB gpu memory, largest gpu worker has 80GiB');
    expect(neverReason(asking(40), [gpus(null, 'u1'), gpus(null, 'u2')])).toBe(
      "need 40GiB gpu memory, and no gpu worker's memory is known (set gpu.memory in the config)",
    );
    // several filters together: each named with its count
    expect(
      neverReason(asking(40, { constraints: [parseConstraint('zone=a')] }), [
        gpus(24, 'small'),
        worker('z', {
          device: { type: 'gpu', variant: null, count: 1, memoryBytes: 80 * GiB },
          attributes: { zone: 'b' },
        }),
      ]),
    ).toBe(
      'no gpu worker fits: 1 with too little gpu memory (need 40GiB, largest 24GiB), 1 excluded by constraint zone=a',
    );
    // the same answer when scheduling an idle cluster
    const plan = schedule(snapshot([asking(200)], cluster));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/j')).toBe('need 200GiB gpu memory, largest gpu worker has 80GiB');
    expect(schedule(snapshot([asking(40)], cluster)).placements.map((p) => p.workerId)).toEqual(['big']);
  });

  it('ignores draining workers, but does not refuse when every worker is draining', () => {
    const big = worker('big', { cpu: 64, schedulable: false });
    expect(neverReason(job('/j', { cpu: 32 }), [big, worker('small', { cpu: 4 })])).toBe(
      'need 32 CPU, largest worker has 4',
    );
    expect(neverReason(job('/j', { cpu: 32 }), [big])).toBeNull();
    expect(neverReason(job('/j'), [])).toBe('the cluster has no workers');
  });

  it('counts disabled workers as present (they may be enabled again); a pass turns them down with the reason', () => {
    const big = { ...worker('big', { cpu: 64, schedulable: false }), disabled: 'elastic: idle 1m' };
    const small = worker('small', { cpu: 4 });
    expect(neverReason(job('/j', { cpu: 32 }), [big, small])).toBeNull();
    expect(neverReason(job('/j', { cpu: 128 }), [big, small])).toBe('need 128 CPU, largest worker has 64');
    const plan = schedule(snapshot([job('/j', { cpu: 32 })], [big, small]));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/j')).toMatch(/1 disabled/);
    const alone = schedule(
      snapshot([job('/j', { cpu: 1 })], [big, { ...small, schedulable: false, disabled: 'by user' }]),
    );
    expect(alone.reasons.get('/j')).toBe('all 2 workers are disabled');
    const mixed = schedule(snapshot([job('/j', { cpu: 1 })], [big, { ...small, schedulable: false }]));
    expect(mixed.reasons.get('/j')).toBe('all 2 workers are draining or disabled');
  });

  it('agrees with schedule: a job with a never-reason is never placed on that cluster', () => {
    for (const [, j, expected] of table) {
      if (expected === null) continue;
      const idle = cluster.map((w) => ({
        ...w,
        free: { cpuMillis: w.capacity.cpuMillis, memoryBytes: w.capacity.memoryBytes, devices: [0, 1, 2, 3] },
      }));
      const plan = schedule(snapshot([j], idle));
      expect(plan.placements).toEqual([]);
      expect(plan.reasons.get(j.name)).toBe(expected);
    }
  });
});

describe('pending reasons', () => {
  it('cpu and memory shortfalls name the largest free worker', () => {
    const workers = [
      worker('a', { cpu: 8, memGiB: 16, freeCpu: 2, freeMemGiB: 3 }),
      worker('b', { cpu: 8, memGiB: 16, freeCpu: 1, freeMemGiB: 8 }),
    ];
    const plan = schedule(
      snapshot([job('/cpu', { cpu: 4, memGiB: 1 }), job('/mem', { cpu: 1, memGiB: 8.5 })], workers),
    );
    // /mem cannot fit: b has 1 CPU and 8 GiB; a has 3 GiB.
    expect(plan.reasons.get('/cpu')).toBe('need 4 CPU, largest free worker has 2');
    expect(plan.reasons.get('/mem')).toBe('need 8.5GiB memory, largest free worker has 8GiB');
  });

  it('says so when no single worker has every resource free at once', () => {
    const workers = [worker('a', { freeCpu: 4, freeMemGiB: 1 }), worker('b', { freeCpu: 1, freeMemGiB: 16 })];
    const plan = schedule(snapshot([job('/j', { cpu: 2, memGiB: 4 })], workers));
    expect(plan.reasons.get('/j')).toBe('no single worker has 2 CPU and 4GiB memory free at once');
  });

  it('a job that is fully placed has no reason', () => {
    expect(schedule(snapshot([job('/j')], [worker('w')])).reasons.has('/j')).toBe(false);
  });
});
