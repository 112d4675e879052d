import { describe, expect, it } from 'vitest';
import {
  nextExemptEnd,
  waitingForVictimsText,
  wouldPreemptText,
} from '../../../../src/cluster/scheduler/preemption/plan.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/queue-scheduler.js';
import type { Plan, RunningAllocation, Snapshot } from '../../../../src/cluster/scheduler/types.js';
import type { Band } from '../../../../src/model/band.js';
import { job, quota, snapshot, worker } from '../helpers.js';

const EXEMPT = 5_000;
const NEED = { cpuMillis: 1000, memoryBytes: 0, devices: 0 };
const NONE: Plan = { placements: [], reasons: new Map() };

/** nextExemptEnd after a pass that left blocked the jobs with pending tasks it did not place (a reason each). */
function exemptEnd(s: Snapshot, plan: Plan, exemptMs: number): number | null {
  const left = new Map<string, number>();
  for (const t of s.pending) left.set(t.job, (left.get(t.job) ?? 0) + 1);
  for (const p of plan.placements) left.set(p.job, (left.get(p.job) ?? 0) - 1);
  const reasons = new Map([...left].filter(([, n]) => n > 0).map(([job]) => [job, 'blocked']));
  return nextExemptEnd(reasons, s.jobs, s.running ?? [], s.now, exemptMs, s.quotas.size > 0);
}

function run(task: string, band: Band, startedAt: number, extra: Partial<RunningAllocation> = {}): RunningAllocation {
  const [, name] = /^(\/[^/]+)/.exec(task)!;
  return {
    task,
    job: name!,
    workerId: 'w0',
    cpuMillis: 1000,
    memoryBytes: 0,
    devices: 0,
    endsAt: Infinity,
    startedAt,
    user: 'alice',
    band,
    ...extra,
  };
}

/** One blocked job of `band`; running tasks as given; now = 1000. */
function blocked(band: Band, running: RunningAllocation[]): Snapshot {
  return { ...snapshot([{ ...job('/urgent'), band }], [worker('w0', { freeCpu: 0 })]), running };
}

describe('nextExemptEnd', () => {
  it('is the earliest exempt end after now among tasks of a lower band', () => {
    const s = blocked('interactive', [
      run('/a/task-0', 'batch', 500),
      run('/b/task-0', 'batch', 200),
      run('/c/task-0', 'interactive', 100), // same band: never a victim
      run('/d/task-0', 'batch', -9_000), // exempt time over already
    ]);
    expect(exemptEnd(s, NONE, EXEMPT)).toBe(5_200);
  });

  it('none for a blocked batch job, a job the pass placed, or tasks being stopped', () => {
    expect(exemptEnd(blocked('batch', [run('/a/task-0', 'batch', 500)]), NONE, EXEMPT)).toBeNull();
    const placed: Plan = {
      placements: [{ task: '/urgent/task-0', job: '/urgent', workerId: 'w0', deviceIndices: [] }],
      reasons: new Map(),
    };
    expect(exemptEnd(blocked('interactive', [run('/a/task-0', 'batch', 500)]), placed, EXEMPT)).toBeNull();
    const stopping = blocked('interactive', [run('/a/task-0', 'batch', 500, { stopping: true })]);
    expect(exemptEnd(stopping, NONE, EXEMPT)).toBeNull();
  });

  it('with quotas, a task of the same band counts (it may be borrowed, so batch)', () => {
    const s = blocked('interactive', [run('/a/task-0', 'interactive', 500)]);
    expect(exemptEnd(s, NONE, EXEMPT)).toBeNull();
    const quotas = new Map([['alice', quota({ maxRunningCpuMillis: 1000 })]]);
    expect(exemptEnd({ ...s, quotas }, NONE, EXEMPT)).toBe(5_500);
  });
});

describe('QueueScheduler.estimate with preemption (iris submit --dry-run)', () => {
  // w0 is full: one batch task and one interactive task, 1 CPU each.
  const full = (): Snapshot => ({
    ...snapshot([], [worker('w0', { cpu: 2, freeCpu: 0 })]),
    running: [run('/sweep/task-0', 'batch', 0), run('/keep/task-0', 'interactive', 0)],
  });
  const urgent = (band: Band) => ({ ...job('/urgent', { cpu: 1, memGiB: 0 }), band });

  it('names the lower-band task it would preempt, and starts now', () => {
    const q = new QueueScheduler({ preemption: { exemptMs: 0 } });
    expect(q.estimate(full(), urgent('interactive'))).toEqual({
      start: 1000,
      reason: 'would start by preempting /sweep/task-0 (1 task of a lower band)',
    });
  });

  it('says nothing of preempting for a batch job, within the exempt time, or with preemption off', () => {
    for (const [q, band] of [
      [new QueueScheduler({ preemption: { exemptMs: 0 } }), 'batch'],
      [new QueueScheduler({ preemption: { exemptMs: 5_000 } }), 'interactive'],
      [new QueueScheduler({ preemption: null }), 'interactive'],
    ] as const) {
      expect(q.estimate(full(), urgent(band)).reason).not.toMatch(/preempt/);
    }
  });
});

describe('the texts that name the victims', () => {
  const victims = ['/s/task-0', '/s/task-1', '/s/task-2', '/s/task-3', '/s/task-4'];
  const p = { job: '/urgent', band: 'interactive' as const, victims, workers: ['w0'], need: NEED };

  it('name the first three victims, then how many more', () => {
    expect(wouldPreemptText(p)).toBe(
      'would start by preempting /s/task-0, /s/task-1, /s/task-2, … (2 more) (5 tasks of lower bands)',
    );
    expect(waitingForVictimsText(victims.slice(0, 1), ['w0', 'w1'])).toBe(
      'waiting for the tasks it preempted to stop: /s/task-0 (capacity held on w0, w1)',
    );
  });
});
