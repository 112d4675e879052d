/**
 * A wait on many jobs costs each job event a bounded amount of work (src/server/wait.ts): a
 * pipeline's root waits on every stage, and a chain's stages end one after the other, each with a
 * few job events. The work counted is the number of times the wait asks whether a waited subtree
 * has ended (store.subtreeEnded), per stage, at two sizes: it must not grow with the chain. A
 * wait that re-asked about every waited name on each event made running an N-stage chain cost N²
 * (a 2,000-stage chain spent 4.7 s of the controller's time here).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/cluster/state/store.js';
import { waitForJobs } from '../../src/server/wait.js';

/** Just what waitForJobs reads of a store: jobs' states by name, whether subtrees ended, job events. */
function fakeStore(names: readonly string[]) {
  const known = new Set(['/p', ...names]);
  const ended = new Set<string>();
  const events = new EventEmitter();
  let asked = 0;
  const store = {
    events,
    jobState: (name: string) => (known.has(name) ? (ended.has(name) ? 'SUCCEEDED' : 'RUNNING') : undefined),
    subtreeEnded: (name: string) => {
      asked++;
      return ended.has(name);
    },
  };
  const change = (name: string) => events.emit('change', { type: 'job', job: { name } });
  return {
    store: store as unknown as ClusterStore,
    asked: () => asked,
    /** An event of a kind (or job) a wait does not look at. */
    other: (event: object) => events.emit('change', event),
    /** One stage's life as events: pending -> running -> ended, with an event of its task's job between. */
    run(name: string) {
      change(name);
      change(name);
      ended.add(name);
      change(name);
    },
  };
}

/** Runs a chain of `n` stages under one wait on them all; the subtree questions asked per stage. */
async function askedPerStage(n: number): Promise<number> {
  const names = Array.from({ length: n }, (_, i) => `/p/s${i}`);
  const { store, asked, run, other } = fakeStore(names);
  let answered = false;
  const wait = waitForJobs(store, { jobs: names, any: false, timeoutMs: null }, new AbortController().signal, () => {
    return () => {};
  }).then((done) => {
    answered = true;
    return done;
  });
  for (const name of names) {
    expect(answered).toBe(false);
    run(name);
    // An event of a job that is not waited on (the root itself, a sibling's child) asks nothing.
    other({ type: 'job', job: { name: '/p' } });
    other({ type: 'task', task: { name: `${name}/task-0` } });
  }
  expect(await wait).toBe(true);
  return asked() / n;
}

describe('a wait on every stage of a long chain', () => {
  it('asks a bounded number of questions per stage at 1,000 and at 10,000 stages', async () => {
    // Once when the wait starts, once per event of the stage (three).
    expect(await askedPerStage(1_000)).toBeLessThanOrEqual(4);
    expect(await askedPerStage(10_000)).toBeLessThanOrEqual(4);
  });

  it('with --any, answers at the first stage that ends, after a bounded number of questions', async () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `/p/s${i}`);
    const { store, asked, run } = fakeStore(names);
    const wait = waitForJobs(store, { jobs: names, any: true, timeoutMs: null }, new AbortController().signal, () => {
      return () => {};
    });
    run('/p/s5000');
    expect(await wait).toBe(true);
    expect(asked()).toBeLessThanOrEqual(names.length + 3);
  });
});
