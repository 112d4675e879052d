/**
 * Walks over 100,000 jobs on the real store (SQLite file in a temporary directory): `/r` with
 * 100,000 children `/r/c0 … /r/c99999`, each waiting (`after`) on the one before, so the set is
 * both a wide tree and a 100,000-long chain. Every walk is a loop, linear in the jobs it reaches:
 * the cascade when the head fails, `retry --downstream` (a new run of each, the old archived),
 * cancelling the root (its children end, and with the first of them the whole chain behind it),
 * and pruning the tree with its archived runs. A recursion overflowed at a few thousand; a walk
 * quadratic in the chain would take hours here, far past the bounds below.
 *
 * The tests share the store and run in order (each starts from what the one before left).
 * Parent/child nesting is at most 16 deep (model/names.ts MAX_DEPTH): that shape is tested at 16.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { MAX_DEPTH } from '../../../src/model/names.js';
import { Clock, spec, start, tempDir, workerSpec } from './helpers.js';

const N = 100_000;
/**
 * Far above the linear cost measured on a loaded 2-core machine (retry --downstream, which
 * archives 100,000 runs, compressed since issue 36: 53 s at load 4), far below a quadratic one.
 */
const BOUND_MS = 150_000;
const clock = new Clock();
const temp = tempDir();
let store: ClusterStore;

const child = (i: number) => `/r/c${i}`;

/** `fn`'s duration in ms. */
function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

beforeAll(() => {
  store = ClusterStore.open({ path: join(temp.dir, 'chains.db'), now: clock.now, reserveBytes: 0 });
  store.syncWorkers([workerSpec('w1')]);
  store.transaction(() => {
    store.submit(spec('/r'));
    for (let i = 0; i < N; i++)
      store.submit(spec(child(i), { after: i === 0 ? [] : [{ job: child(i - 1), condition: 'ok' }] }));
  });
}, 180_000);

afterAll(() => {
  store?.close();
  temp.cleanup();
});

function expectChainFailed(first: string): void {
  expect(store.job(child(1))).toMatchObject({ state: 'FAILED', reason: first });
  let wrong = 0;
  for (let i = 2; i < N; i++) {
    const job = store.job(child(i))!;
    if (job.state !== 'FAILED' || job.reason !== `dependency ${child(i - 1)} failed`) wrong++;
  }
  expect(wrong).toBe(0);
}

describe('walks over a 100,000-long chain of children', () => {
  it('the head fails: the cascade fails all 99,999 jobs behind it', () => {
    start(store, `${child(0)}/task-0`);
    clock.tick();
    const ms = timed(() => store.finishAttempt(`${child(0)}/task-0`, 0, { kind: 'exited', exitCode: 1 }));
    expect(store.job(child(0))!.state).toBe('FAILED');
    expectChainFailed(`dependency ${child(0)} failed`);
    expect(ms).toBeLessThan(BOUND_MS);
  }, 180_000);

  it('retry --downstream: each of the 100,000 runs is archived and submitted again, waiting on the one before', () => {
    clock.tick();
    const before = store.job(child(N - 1))!.run;
    let retried = 0;
    const ms = timed(() => (retried = store.retry(child(0), true).length));
    expect(retried).toBe(N);
    expect(store.job(child(N - 1))!.run).toBeGreaterThan(before);
    expect(store.dependencyWait(child(N - 1))).toBe(`waiting for ${child(N - 2)} (PENDING)`);
    expect(store.archive.runsOf(child(N - 1))).toEqual([before]);
    expect(ms).toBeLessThan(BOUND_MS);
  }, 180_000);

  it('cancel of the root: its children end, the first KILLED, the chain behind it FAILED', () => {
    clock.tick();
    const ms = timed(() => store.cancel('/r', 'cancelled by alice'));
    expect(store.job('/r')).toMatchObject({ state: 'KILLED', reason: 'cancelled by alice' });
    expect(store.job(child(0))).toMatchObject({ state: 'KILLED', reason: 'cancelled by alice' });
    // The chain ends with its head, inside the first child's end: each dependent FAILED in turn.
    expect(store.job(child(1))).toMatchObject({ state: 'FAILED', reason: `dependency ${child(0)} ended KILLED` });
    expect(store.job(child(N - 1))).toMatchObject({ state: 'FAILED', reason: `dependency ${child(N - 2)} failed` });
    expect(store.pendingTasks()).toEqual([]);
    expect(ms).toBeLessThan(BOUND_MS);
  }, 180_000);

  it('prune: the ended tree of 100,001 jobs and the 100,000 archived runs go', () => {
    clock.tick(10);
    let pruned = 0;
    const ms = timed(() => (pruned = store.prune(clock.now(), { busy: () => false, dryRun: false, limit: N }).length));
    expect(pruned).toBe(2 * N + 1);
    expect([...store.jobs()]).toEqual([]);
    expect(store.archive.runsOf(child(N - 1))).toEqual([]);
    expect(ms).toBeLessThan(BOUND_MS);
  }, 180_000);
});

describe('the deepest nesting a name allows', () => {
  it(`a ${MAX_DEPTH}-deep tree of running jobs ends whole when its root is cancelled`, () => {
    const names = Array.from({ length: MAX_DEPTH }, (_, i) =>
      Array.from({ length: i + 1 }, (_, k) => `/d${k}`).join(''),
    );
    for (const name of names) {
      store.submit(spec(name));
      start(store, `${name}/task-0`);
    }
    const stops = store.cancel(names[0]!, 'cancelled');
    expect(stops).toHaveLength(MAX_DEPTH);
    expect(names.map((n) => store.job(n)!.state)).toEqual(['KILLED', ...Array<string>(MAX_DEPTH - 1).fill('KILLED')]);
    expect(store.job(names[MAX_DEPTH - 1]!)!.reason).toBe('cancelled');
    expect(() => store.submit(spec(`${names[MAX_DEPTH - 1]}/deeper`))).toThrow(/deeper than 16 levels/);
  });
});
