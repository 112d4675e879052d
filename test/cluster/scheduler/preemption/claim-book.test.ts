/**
 * ClaimBook (scheduler/preemption/claims.ts): the one bookkeeping of a preemptor's held claims,
 * shared by the controller and the simulator; and liveVictims (lifecycle/preemptions.ts), the
 * re-check both make before acting.
 */
import { describe, expect, it } from 'vitest';
import { ClaimBook } from '../../../../src/cluster/scheduler/preemption/claims.js';
import { liveVictims, preemptedBy } from '../../../../src/cluster/lifecycle/preemptions.js';
import type { Preemption } from '../../../../src/cluster/scheduler/types.js';
import type { Attempt, Task } from '../../../../src/model/types.js';

const need = { cpuMillis: 2000, memoryBytes: 1024, devices: 0 };
const preemption = (job: string, workers: string[]): Preemption => ({
  job,
  band: 'interactive',
  victims: ['/sweep/task-0'],
  workers,
  need,
});

describe('ClaimBook', () => {
  it('holds one claim per task worker until it expires or the job has no pending task', () => {
    const book = new ClaimBook();
    const pending = new Set(['/eval', '/gang']);
    book.hold(preemption('/eval', ['w1']), 100);
    book.hold(preemption('/gang', ['w2', 'w2', 'w3']), 200);
    const has = (job: string) => pending.has(job);
    expect(book.current(50, has)).toEqual([
      { job: '/eval', workerId: 'w1', amount: need, until: 100, victims: ['/sweep/task-0'] },
      { job: '/gang', workerId: 'w2', amount: need, until: 200, victims: ['/sweep/task-0'] },
      { job: '/gang', workerId: 'w2', amount: need, until: 200, victims: ['/sweep/task-0'] },
      { job: '/gang', workerId: 'w3', amount: need, until: 200, victims: ['/sweep/task-0'] },
    ]);
    expect(book.claimed()).toEqual(
      new Map([
        ['/eval', { workers: ['w1'], victims: ['/sweep/task-0'] }],
        ['/gang', { workers: ['w2', 'w3'], victims: ['/sweep/task-0'] }],
      ]),
    );
    // Expired at its `until`.
    expect(book.current(100, has).map((c) => c.job)).toEqual(['/gang', '/gang', '/gang']);
    // Dropped once its job has nothing pending (it started).
    pending.delete('/gang');
    expect(book.current(150, has)).toEqual([]);
    expect(book.size).toBe(0);
  });
});

describe('liveVictims', () => {
  const task = (id: string, state: Task['state'], attempt: number) => ({ id, state, attempt }) as Task;
  const attempt = (t: string, n: number, state: Attempt['state']) => ({ task: t, attempt: n, state }) as Attempt;

  it("answers the victims' live attempts only when every one still runs", () => {
    const tasks = new Map([
      ['/a/task-0', task('/a/task-0', 'RUNNING', 1)],
      ['/b/task-0', task('/b/task-0', 'RUNNING', 0)],
      ['/c/task-0', task('/c/task-0', 'PENDING', 2)],
    ]);
    const attempts = new Map([
      ['/a/task-0#1', attempt('/a/task-0', 1, 'RUNNING')],
      ['/b/task-0#0', attempt('/b/task-0', 0, 'PREEMPTED')],
    ]);
    const view = {
      task: (id: string) => tasks.get(id),
      attempt: (id: string, n: number) => attempts.get(`${id}#${n}`),
    };
    expect(liveVictims(view, ['/a/task-0'])).toEqual([attempts.get('/a/task-0#1')]);
    // One already ended (its attempt is no longer live), or requeued: nothing of the preemption.
    expect(liveVictims(view, ['/a/task-0', '/b/task-0'])).toBeNull();
    expect(liveVictims(view, ['/a/task-0', '/c/task-0'])).toBeNull();
    expect(liveVictims(view, ['/a/task-0', '/missing/task-0'])).toBeNull();
    expect(preemptedBy('/eval', 'production')).toBe('preempted by /eval (production)');
  });
});
