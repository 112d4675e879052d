import { describe, expect, it } from 'vitest';
import { nextExemptEnd } from '../../../../src/cluster/scheduler/preemption/plan.js';
import type { Plan, RunningAllocation, Snapshot } from '../../../../src/cluster/scheduler/types.js';
import type { Band } from '../../../../src/model/band.js';
import { job, quota, snapshot, worker } from '../helpers.js';

const EXEMPT = 5_000;
const NONE: Plan = { placements: [], reasons: new Map() };

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
    expect(nextExemptEnd(s, NONE, EXEMPT)).toBe(5_200);
  });

  it('none for a blocked batch job, a job the pass placed, or tasks being stopped', () => {
    expect(nextExemptEnd(blocked('batch', [run('/a/task-0', 'batch', 500)]), NONE, EXEMPT)).toBeNull();
    const placed: Plan = {
      placements: [{ task: '/urgent/task-0', job: '/urgent', workerId: 'w0', deviceIndices: [] }],
      reasons: new Map(),
    };
    expect(nextExemptEnd(blocked('interactive', [run('/a/task-0', 'batch', 500)]), placed, EXEMPT)).toBeNull();
    const stopping = blocked('interactive', [run('/a/task-0', 'batch', 500, { stopping: true })]);
    expect(nextExemptEnd(stopping, NONE, EXEMPT)).toBeNull();
  });

  it('with quotas, a task of the same band counts (it may be borrowed, so batch)', () => {
    const s = blocked('interactive', [run('/a/task-0', 'interactive', 500)]);
    expect(nextExemptEnd(s, NONE, EXEMPT)).toBeNull();
    const quotas = new Map([['alice', quota({ maxRunningCpuMillis: 1000 })]]);
    expect(nextExemptEnd({ ...s, quotas }, NONE, EXEMPT)).toBe(5_500);
  });
});
