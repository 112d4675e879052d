import { describe, expect, it } from 'vitest';
import { STICKY, type PlacementView } from '../../../../src/cluster/scheduler/placement/filters.js';
import { explainJob } from '../../../../src/cluster/scheduler/placement/explain.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import type { SchedulerJob } from '../../../../src/cluster/scheduler/types.js';
import { job, snapshot, where, worker } from '../helpers.js';

function sticky(name: string, workerId: string, cpu = 1): SchedulerJob {
  return { ...job(name, { cpu }), sticky: { workerId, parent: '/p/train' } };
}

describe('the sticky filter', () => {
  const workers = [worker('w0'), worker('w1')];
  const view: PlacementView = { workers, free: (w) => workers[w]!.free };

  it('passes only the sticky worker, not now elsewhere, with a reason naming the parent', () => {
    const j = sticky('/p/eval', 'w1');
    expect(STICKY.appliesTo(j)).toBe(true);
    expect(STICKY.check(j, view, 1, true).kind).toBe('ok');
    const other = STICKY.check(j, view, 0, true);
    expect(other.kind).toBe('not_now');
    expect(other.kind !== 'ok' && other.reasons.map((r) => r.message)).toEqual([
      'worker w0 is not w1, where /p/train ran',
    ]);
    expect(STICKY.check(j, view, 0, false).kind).toBe('not_now');
  });

  it('does not apply to a job without stickiness', () => {
    expect(STICKY.appliesTo(job('/j'))).toBe(false);
  });
});

describe('scheduling a sticky stage', () => {
  it('goes to its worker even when an earlier worker is free', () => {
    const plan = schedule(snapshot([sticky('/p/eval', 'w1')], [worker('w0'), worker('w1')]));
    expect(where(plan)).toEqual({ '/p/eval/task-0': 'w1' });
  });

  it('waits with sticky_worker_busy when its worker has no room, although another has', () => {
    const busy = worker('w1', { cpu: 4 });
    busy.free.cpuMillis = 0;
    const j = sticky('/p/eval', 'w1');
    const plan = schedule(snapshot([j], [worker('w0'), busy]));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/p/eval')).toBe('sticky_worker_busy: waiting for worker w1 (where /p/train ran)');
    expect(explainJob(j, 1, { workers: [worker('w0'), busy], free: (w) => [worker('w0'), busy][w]!.free })).toBe(
      'sticky_worker_busy: waiting for worker w1 (where /p/train ran)',
    );
  });

  it('a job without stickiness takes the first worker that fits', () => {
    const plan = schedule(snapshot([job('/p/eval')], [worker('w0'), worker('w1')]));
    expect(where(plan)).toEqual({ '/p/eval/task-0': 'w0' });
  });
});
