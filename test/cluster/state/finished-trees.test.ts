// Finished work leaves memory (src/cluster/state/finished-trees.ts): counting what the live model
// holds, not timing it. Each case runs the same lifecycle at two sizes and checks that what stays
// in memory does not grow with the jobs run.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { treesToArchive } from '../../../src/cluster/state/finished-trees.js';
import { Clock, memStore, spec, start, tempDir, workerSpec } from './helpers.js';

const { dir, cleanup } = tempDir();
afterAll(() => cleanup());

const LIMITS = { trees: 50, tasks: 1000 };
const none = () => false;

/** Submit and run `count` one-task jobs to their end (every tenth fails), archiving as the controller does. */
function runJobs(store: ClusterStore, clock: Clock, count: number, from = 0): void {
  for (let i = from; i < from + count; i++) {
    const name = `/job-${i}`;
    store.submit(spec(name));
    clock.tick();
    start(store, `${name}/task-0`);
    store.finishAttempt(`${name}/task-0`, 0, { kind: 'exited', exitCode: i % 10 === 9 ? 1 : 0 });
    if (i % 100 === 99) store.archiveFinished(none, LIMITS);
  }
  while (store.archiveFinished(none, LIMITS).more) {}
}

function held(store: ClusterStore): number {
  return Array.from(store.jobs()).length;
}

describe('finished trees leave memory', () => {
  it('keeps at most the limits of finished jobs live, whether 400 or 4,000 have run', () => {
    const sizes = [400, 4000].map((count) => {
      const { store, clock } = memStore();
      runJobs(store, clock, count);
      const out = { held: held(store), finished: store.finishedHeld };
      store.close();
      return out;
    });
    expect(sizes[0]).toEqual({ held: LIMITS.trees, finished: LIMITS.trees });
    expect(sizes[1]).toEqual(sizes[0]);
  });

  it('keeps the newest finished trees and archives the older ones whole, readable as before', () => {
    const { store, clock } = memStore();
    runJobs(store, clock, 200);
    // The newest 50 stay live; /job-0 … /job-149 are archived runs.
    expect(store.job('/job-198')?.state).toBe('SUCCEEDED');
    expect(store.job('/job-149')).toBeUndefined();
    expect(store.jobState('/job-149')).toBe('FAILED');
    expect(store.jobState('/job-148')).toBe('SUCCEEDED');
    expect(store.jobState('/never')).toBeUndefined();
    const record = store.archive.latest('/job-3');
    expect(record?.job.state).toBe('SUCCEEDED');
    expect(record?.tasks).toHaveLength(1);
    expect(record?.attempts[0]).toHaveLength(1);
    expect(record!.attempts[0]![0]!.exitCode).toBe(0);
    // `iris jobs -a` reads the newest run of each archived name; `recent` keeps trees ended since then.
    const all = store.archive.latestRuns((run) => !store.job(run.name));
    expect(all.map((r) => r.job.name).sort()).toEqual(Array.from({ length: 150 }, (_, i) => `/job-${i}`).sort());
    const finishedAt = store.archive.latest('/job-140')!.job.finishedAt!;
    const recent = store.archive.latestRuns(() => true, finishedAt);
    expect(recent.map((r) => r.job.name).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `/job-${140 + i}`).sort(),
    );
    store.close();
  });

  it('a parent tree goes only whole, once every job of it has ended', () => {
    const { store, clock } = memStore();
    store.submit(spec('/p'));
    store.submit(spec('/p/c'));
    start(store, '/p/task-0');
    store.finishAttempt('/p/task-0', 0, { kind: 'exited', exitCode: 0 });
    clock.tick();
    // /p ended; its child has not: the tree stays whatever the limits.
    expect(store.job('/p')?.state).toBe('SUCCEEDED');
    expect(treesToArchive(storeModel(store), { trees: 0, tasks: 0 }, none)).toEqual([]);
    start(store, '/p/c/task-0');
    store.finishAttempt('/p/c/task-0', 0, { kind: 'exited', exitCode: 0 });
    // A job still holding a stopping attempt (busy) keeps its tree too.
    expect(store.archiveFinished((job) => job === '/p/c', { trees: 0, tasks: 0 }).jobs).toBe(0);
    expect(store.archiveFinished(none, { trees: 0, tasks: 0 }).jobs).toBe(2);
    expect(store.job('/p')).toBeUndefined();
    const parent = store.archive.latest('/p')!;
    expect(parent.children).toEqual([store.archive.latest('/p/c')!.job.run]);
    store.close();
  });

  it('an archived job still answers dependencies and refuses children, as when it was live', () => {
    const { store, clock } = memStore();
    runJobs(store, clock, 200);
    // /job-149 FAILED, /job-148 SUCCEEDED, both archived.
    expect(() => store.submit(spec('/after-failed', { after: [{ job: '/job-149', condition: 'ok' }] }))).toThrow(
      /can never start/,
    );
    const met = store.submit(spec('/after-ok', { after: [{ job: '/job-148', condition: 'ok' }] }));
    expect(met.state).toBe('PENDING');
    expect(store.pendingTasks().map((t) => t.job)).toContain('/after-ok');
    expect(() => store.submit(spec('/job-148/child'))).toThrow(/parent job \/job-148 has ended \(SUCCEEDED\)/);
    // A new run of an archived name is a new live job; the archived run stays as the earlier run.
    const again = store.submit(spec('/job-3'));
    expect(again.run).toBeGreaterThan(store.archive.latest('/job-3')!.job.run);
    expect(store.archive.latestRuns((run) => !store.job(run.name)).map((r) => r.job.name)).not.toContain('/job-3');
    store.close();
  });

  it('a reopened store loads only what stayed live', () => {
    const path = join(dir, 'reopen.db');
    const clock = new Clock();
    let store = ClusterStore.open({ path, now: clock.now });
    store.syncWorkers([workerSpec('w1')]);
    runJobs(store, clock, 300);
    store.close();
    store = ClusterStore.open({ path, now: clock.now });
    expect(held(store)).toBe(LIMITS.trees);
    expect(store.jobState('/job-0')).toBe('SUCCEEDED');
    expect(store.archive.latest('/job-0')?.attempts[0]).toHaveLength(1);
    store.close();
  });
});

/** The store's model, for the pure rule (tests only). */
function storeModel(store: ClusterStore): Parameters<typeof treesToArchive>[0] {
  return (store as unknown as { model: Parameters<typeof treesToArchive>[0] }).model;
}
