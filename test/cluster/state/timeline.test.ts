/** The attempts of a time window (cluster/state/timeline.ts) and GET /v1/timeline's answer (server/timeline.ts). */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { memStore, spec, start } from './helpers.js';
import { WINDOW_SQL } from '../../../src/cluster/state/timeline.js';
import { migrate } from '../../../src/cluster/state/schema.js';
import { timelineOf } from '../../../src/server/timeline.js';

const ok = { kind: 'exited', exitCode: 0 } as const;

/** Four attempts around the window [3000, 4000] (the clock starts at 1000). */
function fourAttempts() {
  const { store, clock } = memStore();
  store.submit(spec('/j', { replicas: 4, resources: { cpuMillis: 100, memoryBytes: 1 << 20, device: null } }));
  start(store, '/j/task-0', 'w1'); // 1000 .. 2000: ended before the window
  clock.t = 1500;
  start(store, '/j/task-1', 'w2'); // 1500 .. 3500: started before, ended inside
  clock.t = 2000;
  store.finishAttempt('/j/task-0', 0, ok);
  clock.t = 3200;
  start(store, '/j/task-2', 'w3'); // 3200 .. : still running
  clock.t = 3500;
  store.finishAttempt('/j/task-1', 0, ok);
  clock.t = 4500;
  start(store, '/j/task-3', 'w4'); // 4500 .. : started after the window
  return { store, clock };
}

describe('the attempts of a window', () => {
  it('holds those that overlapped it, newest start first, a running one without an end', () => {
    const { store } = fourAttempts();
    expect(timelineOf(store, 3000, 4000)).toEqual({
      from: 3000,
      to: 4000,
      attempts: [
        { task: '/j/task-2', job: '/j', attempt: 0, worker: 'w3', start: 3200, end: null, state: 'RUNNING' },
        { task: '/j/task-1', job: '/j', attempt: 0, worker: 'w2', start: 1500, end: 3500, state: 'SUCCEEDED' },
      ],
    });
  });

  it('an attempt that ended exactly at the start of the window is in it; one a moment before is not', () => {
    const { store } = fourAttempts();
    expect(timelineOf(store, 2000, 2100).attempts.map((a) => a.task)).toEqual(['/j/task-1', '/j/task-0']);
    expect(timelineOf(store, 2001, 2100).attempts.map((a) => a.task)).toEqual(['/j/task-1']);
  });

  it('is cut at the limit, keeping the live attempts and those that ended last, and says so', () => {
    const { store } = fourAttempts();
    const cut = timelineOf(store, 0, 5000, 3);
    expect(cut.attempts.map((a) => a.task)).toEqual(['/j/task-3', '/j/task-2', '/j/task-1']);
    expect(cut.truncated).toBe(true);
    const whole = timelineOf(store, 0, 5000, 4);
    expect(whole.attempts).toHaveLength(4);
    expect(whole).not.toHaveProperty('truncated');
  });

  it('past the limit keeps a live attempt over one that started after it but ended', () => {
    const { store, clock } = memStore();
    store.submit(spec('/old'));
    start(store, '/old/task-0', 'w1'); // 1000 .. : live
    clock.t = 2000;
    store.submit(spec('/new'));
    start(store, '/new/task-0', 'w2'); // 2000 .. 3000
    clock.t = 3000;
    store.finishAttempt('/new/task-0', 0, ok);
    const cut = timelineOf(store, 0, 4000, 1);
    expect(cut.attempts.map((a) => a.task)).toEqual(['/old/task-0']);
    expect(cut.truncated).toBe(true);
  });

  it('lists every attempt of a retried task, each with its own worker', () => {
    const { store, clock } = memStore();
    store.submit(spec('/r', { maxRetries: 1 }));
    start(store, '/r/task-0', 'w1');
    clock.tick(10);
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
    clock.tick(10);
    start(store, '/r/task-0', 'w2');
    const { attempts } = timelineOf(store, 0, clock.t);
    expect(attempts.map((a) => [a.attempt, a.worker, a.state, a.end])).toEqual([
      [1, 'w2', 'RUNNING', null],
      [0, 'w1', 'FAILED', 1010],
    ]);
  });

  it("keeps the attempts of a run that a retry replaced (archived), found by the run's end", () => {
    const { store, clock } = memStore();
    store.submit(spec('/r'));
    start(store, '/r/task-0', 'w1');
    clock.t = 2000;
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
    clock.t = 3000;
    store.retry('/r', false);
    start(store, '/r/task-0', 'w2');
    expect(timelineOf(store, 1500, 4000).attempts).toEqual([
      { task: '/r/task-0', job: '/r', attempt: 0, worker: 'w2', start: 3000, end: null, state: 'RUNNING' },
      { task: '/r/task-0', job: '/r', attempt: 0, worker: 'w1', start: 1000, end: 2000, state: 'FAILED' },
    ]);
    expect(timelineOf(store, 2001, 4000).attempts.map((a) => a.worker)).toEqual(['w2']);
    const cut = timelineOf(store, 0, 4000, 1);
    expect(cut.attempts.map((a) => a.worker)).toEqual(['w2']);
    expect(cut.truncated).toBe(true);
  });

  it('past the limit keeps the attempts that ended last, archived or not', () => {
    const { store, clock } = memStore();
    store.submit(spec('/r'));
    for (let run = 0; run < 4; run++) {
      if (run > 0) store.retry('/r', false);
      start(store, '/r/task-0', `w${run + 1}`); // run k: from 1000 + 1000k to 1500 + 1000k
      clock.tick(500);
      store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 1 });
      clock.tick(500);
    }
    const all = timelineOf(store, 0, clock.t);
    expect(all.attempts.map((a) => [a.worker, a.start, a.end])).toEqual([
      ['w4', 4000, 4500],
      ['w3', 3000, 3500],
      ['w2', 2000, 2500],
      ['w1', 1000, 1500],
    ]);
    const cut = timelineOf(store, 0, clock.t, 2);
    expect(cut.attempts.map((a) => a.worker)).toEqual(['w4', 'w3']);
    expect(cut.truncated).toBe(true);
    expect(timelineOf(store, 2600, clock.t, 2)).not.toHaveProperty('truncated');
  });

  it('reads the window on the end-time indexes: no scan, and no sort of the ended attempts', () => {
    const db = new DatabaseSync(':memory:');
    migrate(db);
    const plan = (sql: string, ...args: number[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((row) => row.detail);
    expect(plan(WINDOW_SQL.live, 0, 1).join('\n')).toContain('USING INDEX attempts_by_finished (finished_at=?)');
    expect(plan(WINDOW_SQL.ended, 0, 0, 1)).toEqual([
      'SEARCH attempts USING INDEX attempts_by_finished (finished_at>?)',
    ]);
    expect(plan(WINDOW_SQL.archivedRuns, 0)).toEqual(['SEARCH runs USING INDEX runs_by_finished (finished_at>?)']);
    db.close();
  });
});
