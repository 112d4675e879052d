import { describe, expect, it } from 'vitest';
import { pendingQuotaProblem } from '../../../../src/cluster/scheduler/index.js';
import { runningQuotaReason } from '../../../../src/cluster/scheduler/queue/quota.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { GiB, gpuWorker, job, quota, snapshot, usage, worker, where } from '../helpers.js';

describe('running quotas move a user to the back', () => {
  it('a user at the cpu limit runs only after everyone else', () => {
    const alice = job('/a', { user: 'alice', rootSubmittedAt: 0, replicas: 2 });
    const bob = job('/b', { user: 'bob', rootSubmittedAt: 5, replicas: 2 });
    const snap = snapshot([alice, bob], [worker('w', { cpu: 3 })], {
      usage: new Map([['alice', usage({ cpuMillis: 8000 })]]),
      quotas: new Map([['alice', quota({ maxRunningCpuMillis: 8000 })]]),
    });
    const plan = schedule(snap);
    expect(plan.placements.map((p) => p.task)).toEqual(['/b/task-0', '/b/task-1', '/a/task-0']);
    expect(plan.reasons.get('/a')).toBe(
      'user alice is over the running-cpu quota (9 of 8 CPU); need 1 CPU, largest free worker has 0',
    );
  });

  it('a user who crosses the limit mid-pass has the rest deferred, in order', () => {
    const alice = job('/a', { user: 'alice', rootSubmittedAt: 0, replicas: 4 });
    const bob = job('/b', { user: 'bob', rootSubmittedAt: 5, replicas: 2 });
    const snap = snapshot([alice, bob], [worker('w', { cpu: 5 })], {
      usage: new Map([['alice', usage({ cpuMillis: 0 })]]),
      quotas: new Map([['alice', quota({ maxRunningCpuMillis: 2000 })]]),
    });
    const tasks = schedule(snap).placements.map((p) => p.task);
    expect(tasks).toEqual(['/a/task-0', '/a/task-1', '/b/task-0', '/b/task-1', '/a/task-2']);
  });

  it('memory and accelerator limits count too', () => {
    const g = job('/g', { user: 'carol', device: { type: 'gpu', variant: null, count: 2 }, rootSubmittedAt: 0 });
    const other = job('/o', { user: 'dan', device: { type: 'gpu', variant: null, count: 8 }, rootSubmittedAt: 1 });
    const snap = snapshot([g, other], [gpuWorker('w', 'H100')], {
      usage: new Map([['carol', usage({ accelerators: 8 })]]),
      quotas: new Map([['carol', quota({ maxRunningAccelerators: 8 })]]),
    });
    const plan = schedule(snap);
    expect(where(plan)).toEqual({ '/o/task-0': 'w' });
    expect(plan.reasons.get('/g')).toBe(
      'user carol is over the running-accelerator quota (8 of 8 accelerators); need 2 GPUs, largest free gpu worker ' +
        'has 0',
    );
    expect(runningQuotaReason('m', usage({ memoryBytes: 4 * GiB }), quota({ maxRunningMemoryBytes: 4 * GiB }))).toBe(
      'user m is over the running-memory quota (4GiB of 4GiB)',
    );
  });

  it('users under their limits or without quotas are unaffected', () => {
    expect(runningQuotaReason('a', usage({ cpuMillis: 7999 }), quota({ maxRunningCpuMillis: 8000 }))).toBeNull();
    expect(runningQuotaReason('a', undefined, quota({}))).toBeNull();
    expect(runningQuotaReason('a', usage({ cpuMillis: 1e9 }), undefined)).toBeNull();
  });
});

describe('pendingQuotaProblem', () => {
  it('allows up to the limit and explains beyond it', () => {
    const q = quota({ maxPendingTasks: 45 });
    expect(pendingQuotaProblem('alice', usage({ pendingTasks: 40 }), q, 5)).toBeNull();
    expect(pendingQuotaProblem('alice', usage({ pendingTasks: 40 }), q, 8)).toBe(
      'user alice has 40 pending tasks, this job adds 8, limit is 45',
    );
    expect(pendingQuotaProblem('bob', undefined, quota({ maxPendingTasks: 2 }), 3)).toBe(
      'user bob has 0 pending tasks, this job adds 3, limit is 2',
    );
    expect(pendingQuotaProblem('bob', undefined, quota({}), 1000)).toBeNull();
    expect(pendingQuotaProblem('bob', undefined, undefined, 1000)).toBeNull();
  });
});
