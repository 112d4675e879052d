import { describe, expect, it } from 'vitest';
import { workloadError } from './helpers.js';
import { parseWindow, swfWorkload, traceKind } from '../../src/sim/load.js';
import { parseSwf } from '../../src/sim/swf.js';
import { parseSeconds, parseWorkload } from '../../src/sim/workload-file.js';
import { countJobs } from '../../src/sim/workload.js';

const fail = workloadError;

describe('iris workload format', () => {
  it('expands pools and slices into workers with device attributes', () => {
    const w = parseWorkload(
      {
        workers: [
          { name: 'cpu', count: 2, cpu: 8, memory: '32GiB', attributes: { zone: 'a' } },
          { name: 'gpu', gpu: 'H100x4', cpu: 16 },
        ],
        slices: [{ name: 'slice-a', tpu: 'v5litepod-16' }],
        jobs: [{ name: 'x', run: 1 }],
      },
      'w.yaml',
    );
    expect(w.workers.map((x) => x.id)).toEqual([
      'cpu-0',
      'cpu-1',
      'gpu',
      'slice-a-0',
      'slice-a-1',
      'slice-a-2',
      'slice-a-3',
    ]);
    expect(w.workers[0]).toMatchObject({
      cpuMillis: 8000,
      memoryBytes: 32 * 1024 ** 3,
      attributes: { zone: 'a', 'device-type': 'cpu' },
    });
    expect(w.workers[2]).toMatchObject({
      device: { type: 'gpu', variant: 'H100', count: 4 },
      attributes: { 'device-type': 'gpu', 'device-variant': 'H100' },
    });
    expect(w.workers[5]).toMatchObject({
      device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
      attributes: {
        'tpu-name': 'slice-a',
        'tpu-worker-id': '2',
        'device-type': 'tpu',
        'device-variant': 'v5litepod-16',
      },
    });
  });

  it('jobs: durations, defaults, TPU gangs, constraints, repeat and children', () => {
    const w = parseWorkload(
      {
        workers: [{ name: 'w' }],
        'time-limit': '2h',
        user: 'team',
        jobs: [
          { name: 'late', submit: '1h', run: '90s', tpu: 'v5litepod-16', constraints: ['zone=a'] },
          {
            name: 'train',
            run: '1h30m',
            'time-limit': 7200,
            replicas: 3,
            cpu: 0.5,
            memory: '1G',
            coschedule: 'rack',
            user: 'alice',
            children: [{ name: 'eval', after: '10m', run: 60, repeat: { count: 2, every: 30 } }],
          },
        ],
      },
      'w.yaml',
    );
    // Sorted by submit time.
    expect(w.jobs.map((j) => j.name)).toEqual(['/train', '/late']);
    const [train, late] = w.jobs;
    expect(train).toMatchObject({
      submit: 0,
      run: 5400,
      timeLimit: 7200,
      replicas: 3,
      coschedule: 'rack',
      user: 'alice',
      procs: 1.5,
    });
    expect(train!.resources).toEqual({ cpuMillis: 500, memoryBytes: 1024 ** 3, device: null });
    expect(train!.children.map((c) => [c.name, c.submit, c.user, c.timeLimit])).toEqual([
      ['/train/eval-0', 600, 'alice', 7200],
      ['/train/eval-1', 630, 'alice', 7200],
    ]);
    expect(late).toMatchObject({
      submit: 3600,
      run: 90,
      timeLimit: 7200,
      replicas: 4,
      coschedule: 'tpu-name',
      user: 'team',
    });
    expect(late!.resources.device).toEqual({ type: 'tpu', variant: 'v5litepod-16', chips: 4 });
    expect(late!.constraints).toEqual([{ key: 'zone', op: 'eq', values: ['a'] }]);
    expect(countJobs(w.jobs)).toBe(4);
  });

  it('a job without a time limit uses its run time', () => {
    const w = parseWorkload({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: '5m' }] }, 'w.yaml');
    expect(w.jobs[0]!.timeLimit).toBe(300);
  });

  it('errors name the file and the key path', () => {
    expect(fail({ workers: [{ name: 'w' }] })).toBe('w.yaml: jobs: the workload declares no jobs');
    expect(fail({ jobs: [{ name: 'a', run: 1 }] })).toMatch(/^w\.yaml: the workload declares no workers/);
    expect(fail({ workers: [{ name: 'w', cpus: 2 }], jobs: [] })).toBe(
      'w.yaml: workers[0].cpus: unknown key (did you mean "cpu"?)',
    );
    expect(fail({ workers: [{ name: 'w', memory: 'lots' }], jobs: [] })).toMatch(
      /^w\.yaml: workers\[0\]\.memory: invalid memory "lots"/,
    );
    expect(fail({ slices: [{ name: 's', tpu: 'v9-1' }], jobs: [] })).toMatch(
      /^w\.yaml: slices\[0\]\.tpu: unknown TPU variant "v9-1"/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a' }] })).toBe('w.yaml: jobs[0].run: missing run time');
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: '-3s' }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.run: invalid time "-3s"/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, after: 3 }] })).toMatch(
      /jobs\[0\]\.after: "after" is for children/,
    );
    expect(
      fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, children: [{ name: 'b', submit: 3, run: 1 }] }] }),
    ).toMatch(/jobs\[0\]\.children\[0\]\.submit: a child job is submitted "after"/);
    expect(
      fail({
        workers: [{ name: 'w' }],
        jobs: [
          { name: 'a', run: 1 },
          { name: 'a', run: 2 },
        ],
      }),
    ).toBe('w.yaml: jobs[1].name: duplicate job name "/a" (also jobs[0])');
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'task-1', run: 1 }] })).toMatch(
      /jobs\[0\]\.name: "task-1" is reserved/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, gpu: 'H100', tpu: 'v4-8' }] })).toMatch(
      /jobs\[0\]: gpu and tpu cannot be requested together/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, replicas: 0 }] })).toMatch(
      /jobs\[0\]\.replicas: invalid replicas 0/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, constraints: ['zone in ()'] }] })).toMatch(
      /jobs\[0\]\.constraints\[0\]:/,
    );
    expect(fail({ workers: [{ name: 'w' }], jobs: [{ name: 'a', run: 1, repeat: { count: 2, each: 3 } }] })).toBe(
      'w.yaml: jobs[0].repeat.each: unknown key',
    );
    expect(fail({ workers: [{ name: 'w', count: 2 }, { name: 'w-1' }], jobs: [] })).toMatch(
      /duplicate worker name "w-1"/,
    );
    expect(fail([1, 2])).toMatch(/^w\.yaml: expected a workload/);
  });

  it('parseSeconds', () => {
    expect(parseSeconds(90)).toBe(90);
    expect(parseSeconds('90')).toBe(90);
    expect(parseSeconds('1h30m')).toBe(5400);
    expect(parseSeconds('500ms')).toBe(0.5);
    expect(parseSeconds('2d')).toBe(172800);
    expect(() => parseSeconds('soon')).toThrow(/invalid time "soon"/);
    expect(() => parseSeconds('1h soon')).toThrow(/invalid time/);
  });
});

describe('SWF workloads', () => {
  const text = [
    '; MaxProcs: 8',
    '1 0 -1 10 4 -1 -1 4 20 -1 1 3',
    '2 5 -1 7 2 -1 -1 16 -1 -1 1 3',
    '3 2 -1 -1 2 -1 -1 2 5 -1 1 -1',
    '4 9 -1 0 1 -1 -1 1 0 -1 1 -1',
  ].join('\n');

  it('one pool worker; jobs need max(allocated, requested) processors; wide and unknown jobs are skipped', () => {
    const w = swfWorkload(parseSwf(text, 't.swf'), 't.swf');
    expect(w.workers).toEqual([expect.objectContaining({ id: 'pool', cpuMillis: 8000 })]);
    expect(w.procs).toBe(8);
    expect(
      w.jobs.map((j) => [j.name, j.submit, j.run, j.timeLimit, j.procs, j.resources.cpuMillis, j.user, j.index]),
    ).toEqual([
      ['/job-1', 0, 10, 20, 4, 4000, 'u3', 0],
      ['/job-4', 9, 0, 1, 1, 1000, 'sim', 3],
    ]);
    expect(w.skipped).toEqual([
      { name: '/job-2', reason: 'needs 16 processors, wider than the pool of 8' },
      { name: '/job-3', reason: 'unknown run time (-1)' },
    ]);
  });

  it('--procs overrides the header; --window picks by 0-based index', () => {
    const w = swfWorkload(parseSwf(text, 't.swf'), 't.swf', { procs: 16, window: { start: 1, count: 1 } });
    expect(w.jobs.map((j) => j.name)).toEqual(['/job-2']);
    expect(w.procs).toBe(16);
  });

  it('parseWindow and traceKind', () => {
    expect(parseWindow('1981:1024')).toEqual({ start: 1981, count: 1024 });
    expect(() => parseWindow('3:0')).toThrow(/invalid window "3:0"/);
    expect(() => parseWindow('-1:3')).toThrow(/invalid window/);
    expect(traceKind('a/b.SWF')).toBe('swf');
    expect(traceKind('w.yml')).toBe('iris');
    expect(() => traceKind('w.csv')).toThrow(/cannot tell the format/);
  });
});
