/**
 * Reclaiming borrowed work (issue 32 §2): a task beyond its user's soft quota counts as batch, so
 * another user's work within its quota may preempt it; work that would itself be borrowed preempts
 * no one (two borrowing users never take turns).
 */
import { describe, expect, it } from 'vitest';
import { planPreemptions } from '../../../../src/cluster/scheduler/preemption/plan.js';
import type { RunningAllocation, Snapshot } from '../../../../src/cluster/scheduler/types.js';
import { job, quota, snapshot, usage, worker } from '../helpers.js';

const running = (task: string, user: string, startedAt: number): RunningAllocation => ({
  task,
  job: task.replace(/\/task-\d+$/, ''),
  workerId: 'w',
  cpuMillis: 1000,
  memoryBytes: 0,
  devices: 0,
  endsAt: Infinity,
  startedAt,
  user,
  band: 'interactive',
});

function reclaim(bobUsage: number): Snapshot {
  const snap = snapshot([job('/b', { user: 'bob', memGiB: 0 })], [worker('w', { cpu: 2, freeCpu: 0 })], {
    usage: new Map([
      ['alice', usage({ cpuMillis: 2000 })],
      ['bob', usage({ cpuMillis: bobUsage })],
    ]),
    quotas: new Map([
      ['alice', quota({ maxRunningCpuMillis: 1000 })],
      ['bob', quota({ maxRunningCpuMillis: 1000 })],
    ]),
  });
  return { ...snap, running: [running('/a1/task-0', 'alice', 10), running('/a2/task-0', 'alice', 20)] };
}

describe('reclaiming borrowed tasks', () => {
  // The pass left /b blocked (a reason each blocked job gets).
  const plan = { placements: [], reasons: new Map([['/b', 'need 1 CPU, largest free worker has 0']]) };

  it("preempts only alice's borrowed (most recently started) task for bob's work within his quota", () => {
    const out = planPreemptions(reclaim(0), plan, { exemptMs: 0 });
    expect(out.map((p) => [p.job, p.victims])).toEqual([['/b', ['/a2/task-0']]]);
  });

  it('preempts nothing for work that would take bob past his own soft quota', () => {
    expect(planPreemptions(reclaim(1000), plan, { exemptMs: 0 })).toEqual([]);
  });
});
