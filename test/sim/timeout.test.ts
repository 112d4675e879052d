/**
 * A simulated task stopped by its time limit ends as the live cluster ends it (src/sim/engine.ts):
 * TIMEOUT through the lifecycle, its job TIMEOUT (the simulator gives no retries); the job's other
 * running tasks are stopped at that instant and free their capacity, its pending ones leave the
 * queue; pipeline stages that need it never run, with the live `--after` reason.
 */
import { describe, expect, it } from 'vitest';
import { simulate, type SimResult } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

const run = (doc: unknown): SimResult =>
  simulate(parseWorkload(doc, 'timeout.yaml'), { scheduler: createScheduler({ policy: 'fcfs' }) });

const byName = (result: SimResult, name: string) => result.jobs.find((j) => j.name === name)!;

describe('a simulated time limit', () => {
  it('ends the task and its job TIMEOUT, counted as time-limited; a run within its limit SUCCEEDED', () => {
    const result = run({
      workers: [{ name: 'w', cpu: 2 }],
      jobs: [
        { name: 'slow', run: 100, 'time-limit': 30 },
        { name: 'quick', run: 10, 'time-limit': 30 },
      ],
    });
    expect(byName(result, '/slow')).toMatchObject({ state: 'TIMEOUT', end: 30, timeLimited: true });
    expect(byName(result, '/quick')).toMatchObject({ state: 'SUCCEEDED', end: 10, timeLimited: false });
    expect(result.summary.timeLimited).toBe(1);
  });

  it("stops the job's other running task at that instant: its capacity goes to the next job then", () => {
    // 2 CPUs. /x holds one until 30; /a's task 0 starts at 0, task 1 at 30 (when /x ends). Task 0
    // reaches the limit at 50: /a ends TIMEOUT and task 1 (whose run would end at 80) is stopped
    // at 50, so /z (both CPUs, queued since 1) starts at 50, not 80.
    const result = run({
      workers: [{ name: 'w', cpu: 2 }],
      jobs: [
        { name: 'x', run: 30, cpu: 1 },
        { name: 'a', run: 100, 'time-limit': 50, cpu: 1, replicas: 2 },
        { name: 'z', submit: 1, run: 10, cpu: 2 },
      ],
    });
    expect(byName(result, '/a')).toMatchObject({ state: 'TIMEOUT', start: 0, end: 50, timeLimited: true });
    expect(byName(result, '/z')).toMatchObject({ state: 'SUCCEEDED', start: 50, end: 60 });
    // Busy CPU: /x 30, /a 50 + 20 (task 1 until it was stopped), /z 2 × 10 over 2 CPUs × 60 s.
    expect(result.summary.utilization).toBeCloseTo((30 + 50 + 20 + 20) / 120, 6);
    expect(result.unfinished).toEqual([]);
  });

  it('kills a pending task of the job: it leaves the queue and never starts', () => {
    // One CPU: /a's task 0 runs 0-40 and times out; task 1, pending, is killed with the job, so /z runs at 40.
    const result = run({
      workers: [{ name: 'w', cpu: 1 }],
      jobs: [
        { name: 'a', run: 100, 'time-limit': 40, cpu: 1, replicas: 2 },
        { name: 'z', submit: 1, run: 10, cpu: 1 },
      ],
    });
    expect(byName(result, '/a')).toMatchObject({ state: 'TIMEOUT', end: 40, workers: ['w'] });
    expect(byName(result, '/z')).toMatchObject({ start: 40, end: 50 });
    expect(result.summary.jobs).toBe(2);
    expect(result.unfinished).toEqual([]);
  });

  it('with preemption: the job-end stop is carried out as such, not as a preemption', () => {
    // 4 CPUs. /a's two tasks (2 CPUs each) start at 0; /eval (interactive) preempts task 1 at 100
    // (grace 30) and runs 130-180; task 1 runs again from 180. Task 0 reaches the limit at 500: /a
    // ends TIMEOUT and task 1 is stopped then (not at 680), so /z (4 CPUs) starts at 500; one
    // preemption only, its 260 CPU-seconds lost.
    const workload = parseWorkload(
      {
        workers: [{ name: 'w', cpu: 4, memory: '8GiB' }],
        jobs: [
          { name: 'a', run: 1000, 'time-limit': 500, cpu: 2, replicas: 2, priority: 'batch' },
          { name: 'eval', submit: 100, run: 50, cpu: 2, priority: 'interactive' },
          { name: 'z', submit: 200, run: 10, cpu: 4, priority: 'batch' },
        ],
      },
      'timeout.yaml',
    );
    const result = simulate(workload, {
      scheduler: createScheduler({ policy: 'easy', preemption: { exempt: 0 } }),
      preemption: { grace: 30, exempt: 0 },
    });
    expect(byName(result, '/a')).toMatchObject({ state: 'TIMEOUT', end: 500, preemptions: 1 });
    expect(byName(result, '/eval')).toMatchObject({ state: 'SUCCEEDED', start: 130, end: 180 });
    expect(byName(result, '/z')).toMatchObject({ state: 'SUCCEEDED', start: 500, end: 510 });
    expect(result.summary.preemption).toEqual({ tasks: 1, lostCpuSeconds: 260 });
  });

  it('fails the pipeline stages that need the job, as live --after dependents are failed', () => {
    const result = run({
      workers: [{ name: 'w', cpu: 2 }],
      jobs: [
        { name: 'train', run: 100, 'time-limit': 30 },
        { name: 'eval', run: 10, needs: 'train' },
        { name: 'report', run: 5, needs: 'eval' },
        { name: 'other', run: 5, needs: 'train' },
      ],
    });
    expect(result.jobs.map((j) => [j.name, j.state])).toEqual([['/train', 'TIMEOUT']]);
    expect(result.skipped).toEqual([
      { name: '/eval', reason: 'dependency /train ended TIMEOUT' },
      { name: '/report', reason: 'dependency /eval failed' },
      { name: '/other', reason: 'dependency /train ended TIMEOUT' },
    ]);
    expect(result.summary.skipped).toBe(3);
  });

  it('releases the stages of a job that succeeded, as before', () => {
    const result = run({
      workers: [{ name: 'w', cpu: 2 }],
      jobs: [
        { name: 'train', run: 20, 'time-limit': 30 },
        { name: 'eval', run: 10, needs: 'train' },
      ],
    });
    expect(result.jobs.map((j) => [j.name, j.state, j.start])).toEqual([
      ['/train', 'SUCCEEDED', 0],
      ['/eval', 'SUCCEEDED', 20],
    ]);
    expect(result.skipped).toEqual([]);
  });
});
