// A QueueScheduler keeps its worker calendars (running tasks and standing reservations) from one
// pass to the next (queue/kept.ts). Every plan it makes must be the one the pure queuePass makes
// from fresh calendars on the same snapshot and state: placements, reservations and reasons.
// The driver below changes what a kept calendar has to follow: tasks start and end, stay past
// their planned end, end later than the pass planned (so a standing reservation no longer fits),
// a worker stops taking placements, and a worker joins.
import { describe, expect, it } from 'vitest';
import type { PlacementProfile } from '../../../../src/cluster/scheduler/placement/scoring.js';
import {
  EMPTY_QUEUE_STATE,
  QueueScheduler,
  queueOptions,
  queuePass,
  type QueuePolicy,
} from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  Plan,
  RunningAllocation,
  SchedulerJob,
  SchedulerTask,
  Snapshot,
} from '../../../../src/cluster/scheduler/types.js';
import { PLACEMENTS, timed, withHolds, worker } from './helpers.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const seen = (plan: Plan) => ({
  placements: plan.placements.map((p) => `${p.task}@${p.workerId}`),
  reservations: [...(plan.reservations ?? new Map())],
  reasons: [...plan.reasons],
});

/** Runs `steps` passes both ways; returns how many passes reserved something and how many kept state. */
function drive(
  policy: QueuePolicy,
  placement: PlacementProfile,
  seed: number,
  steps: number,
  ordered = false,
): { reserving: number; onlyArrivals: number } {
  const r = random(seed);
  const options = queueOptions({ policy, queueDepth: 6 });
  const scheduler = new QueueScheduler({ policy, queueDepth: 6 }, placement);
  let state = EMPTY_QUEUE_STATE;
  let workers = [worker('w1', { cpu: 4 }), worker('w2', { cpu: 4 }), worker('w3', { cpu: 8 })];
  const jobs = new Map<string, SchedulerJob>();
  let pending: SchedulerTask[] = [];
  let running: RunningAllocation[] = [];
  let now = 1000;
  let made = 0;
  let seq = 0;
  let changed = true;
  let reserving = 0;
  let onlyArrivals = 0;
  for (let step = 0; step < steps; step++) {
    now += 1 + Math.floor(r() * 150);
    for (let a = Math.floor(r() * 3); a > 0; a--) {
      const name = `/j${made++}`;
      const j = timed(name, 100 + Math.floor(r() * 600), {
        cpu: 1 + Math.floor(r() * 6),
        memGiB: 0,
        replicas: 1 + Math.floor(r() * 3),
        rootSubmittedAt: now,
        seq: made,
      });
      jobs.set(name, j);
      for (let k = 0; k < j.replicas; k++)
        pending.push({ id: `${name}/task-${k}`, job: name, index: k, submittedAt: now, seq: seq++ });
    }
    // Tasks end before their planned end, or some while later (they stay running past it). The
    // ordered runs have more steps where only jobs arrive, so such passes follow each other.
    const onlyJobsArrive = ordered && r() < 0.6;
    if (!onlyJobsArrive)
      running = running.filter((t) => {
        const ends = t.endsAt <= now ? r() < 0.6 : r() < 0.2;
        if (ends) changed = true;
        return !ends;
      });
    if (r() < 0.05) {
      workers = workers.map((w) => (w.id === 'w2' ? { ...w, schedulable: !w.schedulable } : w));
      changed = true;
    }
    if (step === Math.floor(steps / 2)) {
      workers = [...workers, worker('w4', { cpu: 4 })];
      changed = true;
    }
    const waiting = new Set(pending.map((t) => t.job));
    const snapshot: Snapshot = {
      now,
      jobs: new Map([...jobs].filter(([name]) => waiting.has(name))),
      pending: [...pending],
      workers: withHolds(workers, running),
      usage: new Map(),
      quotas: new Map(),
      running: [...running],
      // Arrivals are appended in queue order (one depth, rising submit time and seq), as the
      // simulator keeps them: an ordered snapshot, read lazily, with the same task objects.
      ...(ordered ? { pendingOrdered: true } : {}),
    };
    const fresh = queuePass(snapshot, state, changed, options, placement);
    const plan = scheduler.pass(snapshot, changed);
    expect(seen(plan), `${policy} seed ${seed} pass ${step}`).toEqual(seen(fresh.plan));
    expect([...scheduler.state.reserved.keys()]).toEqual([...fresh.next.reserved.keys()]);
    if (!changed) onlyArrivals++;
    if ((plan.reservations?.size ?? 0) > 0) reserving++;
    state = fresh.next;
    const started = new Set(plan.placements.map((p) => p.task));
    pending = pending.filter((t) => !started.has(t.id));
    for (const p of plan.placements) {
      const j = jobs.get(p.job)!;
      // Some tasks start late, so they hold past what the pass planned for them.
      const late = r() < 0.2 ? 1 + Math.floor(r() * 200) : 0;
      running.push({
        task: p.task,
        job: p.job,
        workerId: p.workerId,
        cpuMillis: j.resources.cpuMillis,
        memoryBytes: 0,
        devices: 0,
        endsAt: now + j.timeLimitMs! + late,
      });
    }
    changed = plan.placements.length > 0 || (!onlyJobsArrive && r() < 0.3);
  }
  return { reserving, onlyArrivals };
}

describe.each(PLACEMENTS)(
  'kept calendars (QueueScheduler) plan exactly as fresh ones (queuePass), %s placement',
  (_label, placement) => {
    for (const policy of ['easy', 'conservative', 'hybrid', 'fcfs'] as const) {
      it(`${policy}: the same plan in every pass over changing running tasks and workers`, () => {
        let reserving = 0;
        let onlyArrivals = 0;
        for (const seed of [1, 7, 42]) {
          const seenHere = drive(policy, placement, seed, 160);
          reserving += seenHere.reserving;
          onlyArrivals += seenHere.onlyArrivals;
        }
        // The scenarios exercise standing reservations (fcfs reserves none) and passes that keep them.
        if (policy !== 'fcfs') expect(reserving).toBeGreaterThan(20);
        expect(onlyArrivals).toBeGreaterThan(5);
      });
    }

    // Ordered snapshots (the simulator's): a pass that sees only arrivals steps over the head the
    // previous one skipped (pass.ts standingHead); the fresh pass looks every job up.
    for (const policy of ['easy', 'conservative', 'hybrid'] as const) {
      it(`${policy}, ordered queue: the same plan in every pass`, () => {
        let onlyArrivals = 0;
        for (const seed of [3, 11, 99]) onlyArrivals += drive(policy, placement, seed, 160, true).onlyArrivals;
        expect(onlyArrivals).toBeGreaterThan(5);
      });
    }
  },
);
