import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isActiveTaskState, isFinalJobState } from '../../../src/model/states.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { Clock, spec, tempDir, workerSpec } from './helpers.js';
import { plainTask } from '../../../src/cluster/state/task-record.js';

type Op =
  | { op: 'submit'; job: number; replicas: number; gang: boolean; retries: number }
  | { op: 'assign'; pick: number; worker: number }
  | { op: 'run'; pick: number }
  | { op: 'finish'; pick: number; exit: number }
  | { op: 'preempt'; pick: number }
  | { op: 'cancel'; job: number }
  | { op: 'drain'; worker: number }
  | { op: 'rollback'; ops: Op[] };

const JOBS = ['/a', '/a/b', '/c', '/c/d', '/a/b/e'];
const simpleOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('submit' as const),
    job: fc.nat(4),
    replicas: fc.integer({ min: 1, max: 3 }),
    gang: fc.boolean(),
    retries: fc.nat(2),
  }),
  fc.record({ op: fc.constant('assign' as const), pick: fc.nat(), worker: fc.nat(3) }),
  fc.record({ op: fc.constant('run' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('finish' as const), pick: fc.nat(), exit: fc.constantFrom(0, 0, 1) }),
  fc.record({ op: fc.constant('preempt' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('cancel' as const), job: fc.nat(4) }),
  fc.record({ op: fc.constant('drain' as const), worker: fc.nat(3) }),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: simpleOp, weight: 6 },
  {
    arbitrary: fc.record({ op: fc.constant('rollback' as const), ops: fc.array(simpleOp, { maxLength: 6 }) }),
    weight: 1,
  },
);

function apply(store: ClusterStore, o: Op): void {
  const pending = store.pendingTasks();
  const active = store.activeAttempts();
  try {
    switch (o.op) {
      case 'submit':
        store.submit(
          spec(JOBS[o.job]!, {
            replicas: o.replicas,
            coschedule: o.gang ? 'g' : null,
            maxRetries: o.retries,
            maxPreemptions: 1,
          }),
        );
        break;
      case 'assign': {
        const t = pending[o.pick % Math.max(1, pending.length)];
        const w = store.workers().filter((x) => x.state === 'READY')[o.worker % 4];
        if (t && w) store.assign(t.id, w.id, '/l');
        break;
      }
      case 'run': {
        const a = active[o.pick % Math.max(1, active.length)];
        if (a) store.markRunning(a.task, a.attempt, 1);
        break;
      }
      case 'finish': {
        const a = active[o.pick % Math.max(1, active.length)];
        if (a) store.finishAttempt(a.task, a.attempt, { kind: 'exited', exitCode: o.exit });
        break;
      }
      case 'preempt': {
        const a = active[o.pick % Math.max(1, active.length)];
        if (a) store.preemptAttempt(a.task, a.attempt, 'lost');
        break;
      }
      case 'cancel':
        if (store.job(JOBS[o.job]!)) store.cancel(JOBS[o.job]!, 'user');
        break;
      case 'drain':
        store.drainWorker(`w${o.worker}`);
        break;
      case 'rollback': {
        const before = snapshot(store);
        expect(() =>
          store.transaction(() => {
            for (const inner of o.ops) apply(store, inner);
            throw new Error('rollback');
          }),
        ).toThrow('rollback');
        expect(snapshot(store)).toEqual(before);
        break;
      }
    }
  } catch (e) {
    // user-level refusals are fine; internal errors are bugs
    const code = (e as { code?: string }).code;
    if (code === 'internal' || code === undefined) throw e;
  }
}

function checkInvariants(store: ClusterStore): void {
  const tasks = [...store.jobs()].flatMap((j) => store.tasksOf(j.name));
  expect(new Set(store.pendingTasks())).toEqual(new Set(tasks.filter((t) => t.state === 'PENDING')));
  expect(new Set(store.activeAttempts().map((a) => a.task))).toEqual(
    new Set(tasks.filter((t) => isActiveTaskState(t.state)).map((t) => t.id)),
  );
  for (const a of store.activeAttempts()) expect(a.state).toBe('RUNNING');
  for (const job of store.jobs()) {
    const own = store.tasksOf(job.name);
    if (isFinalJobState(job.state)) {
      // a final job has no task that could still run, and neither has its subtree unless it
      // succeeded (a succeeded parent leaves its descendants running, lifecycle/jobs.ts)
      const subtree = job.state === 'SUCCEEDED' ? [job] : [job, ...store.descendants(job.name)];
      for (const d of subtree) {
        for (const t of store.tasksOf(d.name)) expect(['PENDING', 'ASSIGNED', 'RUNNING']).not.toContain(t.state);
      }
    } else if (own.some((t) => isActiveTaskState(t.state))) expect(job.state).toBe('RUNNING');
    for (const t of own)
      for (const a of store.attemptsOf(t.id))
        if (a.attempt !== t.attempt || !isActiveTaskState(t.state)) expect(a.state).not.toBe('RUNNING');
  }
}

const snapshot = (store: ClusterStore) => ({
  jobs: [...store.jobs()].map((j) => ({ ...j })).sort((a, b) => a.name.localeCompare(b.name)),
  tasks: [...store.jobs()]
    .flatMap((j) =>
      store.tasksOf(j.name).map((t) => ({ ...plainTask(t), attempts: store.attemptsOf(t.id).map((a) => ({ ...a })) })),
    )
    .sort((a, b) => a.id.localeCompare(b.id)),
  workers: store.workers().map((w) => ({ ...w })),
});

describe('store invariants under random operation sequences', () => {
  it('indexes match task states, final jobs have no live tasks, and a reload reproduces memory', () => {
    const { dir, cleanup } = tempDir();
    let n = 0;
    try {
      fc.assert(
        fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
          const path = join(dir, `p${n++}.db`);
          const clock = new Clock();
          const store = ClusterStore.open({ path, now: clock.now });
          store.syncWorkers([0, 1, 2, 3].map((i) => workerSpec(`w${i}`)));
          for (const o of ops) {
            clock.tick();
            apply(store, o);
            checkInvariants(store);
          }
          const before = snapshot(store);
          store.close();
          const again = ClusterStore.open({ path, now: clock.now });
          expect(snapshot(again)).toEqual(before);
          checkInvariants(again);
          again.close();
        }),
        { numRuns: Number(process.env.IRIS_PROPERTY_RUNS ?? 60) },
      );
    } finally {
      cleanup();
    }
  });
});
