/**
 * Named queues in the simulator (workload `queues:` and a job's `queue:`): the cluster's QueueSet
 * runs each queue's policy over its workers; a child joins its parent's queue; an unknown queue is
 * refused with the key; a job no worker of its queue can run is skipped.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import { parseWorkload } from '../../src/sim/workload-file.js';
import { refusal } from '../helpers/refusal.js';

const WORKERS = [
  { name: 'a', cpu: 2, memory: '4GiB', attributes: { pool: 'a' } },
  { name: 'b', cpu: 4, memory: '4GiB', attributes: { pool: 'b' } },
];
const QUEUES = {
  strict: { policy: 'fcfs', workers: 'pool=a' },
  open: { policy: 'first-fit', workers: 'pool in (a,b)' },
};

function run(jobs: unknown[]) {
  const workload = parseWorkload({ workers: WORKERS, queues: QUEUES, 'default-queue': 'open', jobs }, 'q.yaml');
  const result = simulate(workload, { scheduler: createScheduler({ policy: 'easy', queues: workload.queues }) });
  return { workload, result, by: Object.fromEntries(result.jobs.map((j) => [j.name, j])) };
}

describe('iris simulate with named queues', () => {
  it("runs each queue's policy on its own workers", () => {
    const { by } = run([
      { name: 'hold', submit: 0, run: 100, cpu: 1, queue: 'strict' },
      { name: 'wide', submit: 1, run: 10, cpu: 2, queue: 'strict' },
      // Fits pool a's free core, but fcfs keeps it behind /wide.
      { name: 'small', submit: 2, run: 10, cpu: 1, queue: 'strict' },
      // Queue open (first-fit) starts at once, on b.
      { name: 'other', submit: 2, run: 10, cpu: 2 },
    ]);
    expect(by['/hold']!.workers).toEqual(['a']);
    expect(by['/wide']!.start).toBe(100);
    expect(by['/small']!.start).toBeGreaterThanOrEqual(100);
    expect(by['/other']).toMatchObject({ start: 2, workers: ['b'] });
  });

  it("a child joins its parent's queue; the workload carries the queues", () => {
    const { workload } = run([
      { name: 'p', submit: 0, run: 5, cpu: 1, queue: 'strict', children: [{ name: 'kid', run: 1 }] },
    ]);
    expect(workload.jobs[0]!.queue).toBe('strict');
    expect(workload.jobs[0]!.children[0]!.queue).toBe('strict');
    expect(workload.queues!.defaultQueue).toBe('open');
  });

  it('refuses an unknown queue naming the key, with a did-you-mean', () => {
    const error = refusal(() =>
      parseWorkload(
        { workers: WORKERS, queues: QUEUES, 'default-queue': 'open', jobs: [{ name: 'x', run: 1, queue: 'strikt' }] },
        'q.yaml',
      ),
    );
    expect(error.message).toMatch(/jobs\[0\]\.queue: unknown queue "strikt"/);
    expect(error.hint).toMatch(/did you mean --queue strict/);
  });

  it('skips a job no worker of its queue can run', () => {
    const { result } = run([
      { name: 'big', submit: 0, run: 1, cpu: 3, queue: 'strict' },
      { name: 'fits', submit: 0, run: 1, cpu: 3 },
    ]);
    expect(result.skipped.map((s) => s.name)).toEqual(['/big']);
    expect(result.jobs.map((j) => j.name)).toEqual(['/fits']);
  });
});
