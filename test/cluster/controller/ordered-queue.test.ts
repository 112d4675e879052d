import { describe, expect, it } from 'vitest';
import { OrderedQueue } from '../../../src/cluster/controller/ordered-queue.js';
import { buildSnapshot } from '../../../src/cluster/controller/snapshot.js';
import { schedulerJob } from '../../../src/cluster/lifecycle/scheduler-job.js';
import { QueueScheduler } from '../../../src/cluster/scheduler/queue/index.js';
import { orderTasks } from '../../../src/cluster/scheduler/queue/order.js';
import type { SchedulerJob } from '../../../src/cluster/scheduler/types.js';
import type { ClusterStore } from '../../../src/cluster/state/store.js';
import { BANDS } from '../../../src/model/band.js';
import { memStore, spec, workerSpec } from '../state/helpers.js';

/** The store's queued tasks as a full sort orders them (the rule the ordered queue must keep). */
function sorted(store: ClusterStore): string[] {
  const jobs = new Map<string, SchedulerJob>();
  for (const job of store.jobs()) jobs.set(job.name, schedulerJob(job));
  return orderTasks([...store.queuedTasks()], jobs).map((t) => t.id);
}

/** A small deterministic generator (the test must not change from run to run). */
function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

// Issue 36: a pass reads the queue in order as far as it needs; the order is kept between passes.
describe('the ordered queue', () => {
  it('holds exactly the queued tasks in order through arrivals, starts, retries, cancels and band changes', () => {
    const { store, clock } = memStore(4);
    const queue = new OrderedQueue(store);
    const pick = prng(36);
    const live = (): string[] =>
      [...store.jobs()].filter((j) => j.state === 'PENDING' || j.state === 'RUNNING').map((j) => j.name);
    let roots = 0;
    let checks = 0;
    let backoffs = 0;
    for (let step = 0; step < 600; step++) {
      clock.tick(1 + pick(3));
      const op = pick(10);
      const names = live();
      if (op < 3 || names.length === 0) {
        const band = BANDS[pick(BANDS.length)]!;
        const resources = { cpuMillis: 500 * (1 + pick(3)), memoryBytes: 2 ** (20 + pick(4)), device: null };
        // Half retry after a backoff: their tasks wait in the queue, out of the passes' reach.
        const retryBackoffMs = pick(2) === 0 ? 5 : null;
        store.submit(spec(`/r${roots++}`, { replicas: 1 + pick(3), band, maxRetries: 2, resources, retryBackoffMs }));
      } else if (op < 5) {
        // A child (deeper: ahead of its root's band peers), sometimes waiting on a sibling.
        const parent = names[pick(names.length)]!;
        store.submit(spec(`${parent}/c${step}`, { replicas: 1 + pick(2), maxRetries: 1 }));
      } else if (op < 7) {
        const queued = [...store.queuedTasks()];
        if (queued.length > 0) {
          const task = queued[pick(queued.length)]!;
          const a = store.assign(task.id, 'w1', '/logs/x');
          store.markRunning(task.id, a.attempt, 4242);
          // Half end at once: a failure with retries left goes back to the queue at its old place.
          if (pick(2) === 0) store.finishAttempt(task.id, a.attempt, { kind: 'exited', exitCode: pick(2) });
        }
      } else if (op < 8) {
        store.cancel(names[pick(names.length)]!, 'test');
      } else {
        const name = names[pick(names.length)]!;
        try {
          store.setBand(name, BANDS[pick(BANDS.length)]!);
        } catch {
          // A move the band rules refuse (under a parent of a lower band): nothing changed.
        }
      }
      if (step % 100 === 50) {
        // A burst between two reads: merged with the list rather than inserted one by one.
        const parents = live();
        for (let k = 0; k < 40; k++) {
          const parent = pick(2) === 0 && parents.length > 0 ? `${parents[pick(parents.length)]}/b${step}-${k}` : null;
          store.submit(spec(parent ?? `/r${roots++}`, { band: parent ? undefined : BANDS[pick(BANDS.length)]! }));
        }
      }
      if (pick(3) === 0) {
        expect(queue.tasks().map((t) => t.id)).toEqual(sorted(store));
        // The least any queued task asks, kept per shape as tasks come and go.
        const asked = [...store.queuedTasks()].map((t) => store.job(t.job)!.spec.resources);
        expect(queue.leastAsked()).toEqual({
          cpuMillis: Math.min(...asked.map((r) => r.cpuMillis)),
          memoryBytes: Math.min(...asked.map((r) => r.memoryBytes)),
          devices: asked.length > 0 ? 0 : Infinity,
        });
        // What a pass may place now: the same less the tasks in a backoff; and when the next may.
        const now = clock.t;
        const waiting = [...store.queuedTasks()].filter((t) => t.eligibleAt !== null && t.eligibleAt > now);
        const waitingIds = new Set(waiting.map((t) => t.id));
        expect(queue.eligible(now).map((t) => t.id)).toEqual(sorted(store).filter((id) => !waitingIds.has(id)));
        expect(queue.nextEligible(now)).toBe(
          waiting.length > 0 ? Math.min(...waiting.map((t) => t.eligibleAt!)) : null,
        );
        checks++;
        backoffs += waiting.length;
      }
    }
    expect(queue.tasks().map((t) => t.id)).toEqual(sorted(store));
    expect(checks).toBeGreaterThan(100);
    expect(backoffs).toBeGreaterThan(10);
    expect(store.queuedTasks().size).toBeGreaterThan(10);
  });

  it('lets a pass over a long queue make views only for the jobs it reads, not for every pending job', () => {
    const { store, clock } = memStore(0);
    store.syncWorkers([workerSpec('w1', { cpuMillis: 4000, memoryBytes: 8 * 2 ** 30 })]); // room for 4
    for (let i = 0; i < 5000; i++) store.submit(spec(`/j${i}`));
    const queue = new OrderedQueue(store);
    const scheduler = new QueueScheduler({ policy: 'easy' });
    const ordered = buildSnapshot(store, new Map(), clock.t, undefined, [], { ordered: queue });
    const plan = scheduler.pass(ordered);
    expect(plan.placements).toHaveLength(4);
    // The window (queue depth 32) and the four started: a bounded number, whatever the queue's length.
    expect(ordered.jobs.size).toBeLessThanOrEqual(64);
    // The whole-queue snapshot of the same store views every pending job.
    expect(buildSnapshot(store, new Map(), clock.t).jobs.size).toBe(5000);
  });
});
