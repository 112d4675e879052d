/**
 * Scale test, counting bytes not time: what a finished quiet task (one job of one task of
 * `true`, as `iris run true` makes it) leaves in state.db. The figure is the database's pages
 * after VACUUM (page_count x page_size) over the tasks, the empty schema's pages subtracted, at
 * two counts; it must not grow with the count.
 * - Held live (the newest finished trees, finished-trees.ts): its rows, at most LIVE_BYTES_PER_TASK:
 *   1,466 / 1,501 B before issue 36, ~1,250 / 1,290 B with the compact rows (stored-row.ts); the
 *   task's 8 history events and their two indexes are ~700 B of it.
 * - Archived (every finished tree but the newest `keep-finished`): one `runs` row whose record
 *   carries its events, compressed (run-record.ts), at most ARCHIVED_BYTES_PER_TASK, the issue's
 *   400 B: ~2,850 B before (a JSON record of ~1.4 KB beside the events), ~370 B now.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import type { JobSpec, PlacementDecision } from '../../../src/model/types.js';
import { Clock, tempDir, workerSpec } from './helpers.js';

const { dir, cleanup } = tempDir();
afterAll(() => cleanup());

/** The spec the daemon's admission gives `iris run true` (defaults of the config filled in). */
function quietSpec(name: string): JobSpec {
  return {
    name,
    user: 'alice',
    command: ['true'],
    env: {},
    cwd: '/home/alice/projects/experiment',
    image: null,
    replicas: 1,
    resources: { cpuMillis: 1000, memoryBytes: 16 << 20, device: null },
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 100,
    timeoutMs: 86_400_000,
    defaultTimeLimit: true,
    schedulingTimeoutMs: null,
    band: 'interactive',
  } as JobSpec;
}

const placement: PlacementDecision = {
  mode: 'adaptive',
  pool: 4,
  lambda: 0.5,
  score: -0.00012459268902391196,
  runnerUp: null,
  reuseHit: false,
} as PlacementDecision;

/** Bytes of the database's pages after VACUUM. */
function vacuumedBytes(path: string): number {
  const db = new DatabaseSync(path);
  try {
    db.exec('VACUUM');
    if (process.env.QUIET_BYTES_DETAIL)
      console.log(
        JSON.stringify(
          db.prepare('SELECT name, SUM(pgsize) AS b FROM dbstat GROUP BY name HAVING b > 4096 ORDER BY 2 DESC').all(),
        ),
      );
    const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    const size = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    return pages * size;
  } finally {
    db.close();
  }
}

/**
 * `count` quiet one-task jobs run to their end on a store file (archived when `archived`, as the
 * controller's archiver does with every finished tree past the newest it keeps); bytes of state.db per task.
 */
function bytesPerQuietTask(count: number, archived = false): number {
  const path = join(dir, `quiet-${count}-${archived ? 'archived' : 'live'}.db`);
  const clock = new Clock();
  clock.t = Date.parse('2026-11-30T12:00:00Z'); // instants of today's size, as the cluster writes them
  const store = ClusterStore.open({ path, now: clock.now, reserveBytes: 0 });
  store.syncWorkers(Array.from({ length: 4 }, (_, i) => workerSpec(`w${i}`)));
  store.close();
  const empty = vacuumedBytes(path);
  const again = ClusterStore.open({ path, now: clock.now, reserveBytes: 0 });
  for (let i = 0; i < count; i += 500) {
    const jobs = again.transaction(() =>
      Array.from({ length: Math.min(500, count - i) }, (_, k) => again.submit(quietSpec(`/quiet-${i + k}`))),
    );
    clock.tick(40);
    again.transaction(() => {
      for (const job of jobs) {
        const task = `${job.name}/task-0`;
        // Where the cluster puts it: `<home>/logs/…` beside state.db (launch.ts logPathFor).
        const logPath = join(dir, 'logs', job.name.slice(1), `@${job.run}`, 'task-0', 'attempt-0.log');
        again.assign(task, `w${job.run % 4}`, logPath, [], placement);
        again.markRunning(task, 0, 100_000 + job.run);
      }
    });
    clock.tick(1100);
    again.transaction(() => {
      for (const job of jobs) {
        const task = `${job.name}/task-0`;
        again.recordUsage(task, 0, { cpuSeconds: 0.00198, peakMemoryBytes: 262_144 });
        again.finishAttempt(task, 0, { kind: 'exited', exitCode: 0 });
      }
    });
  }
  expect(again.job(`/quiet-${count - 1}`)?.state).toBe('SUCCEEDED');
  if (archived) {
    const last = again.job(`/quiet-${count - 1}`)!;
    const history = again.archive.history(last.run);
    expect(history).toHaveLength(8);
    clock.tick(2000);
    while (again.archiveFinished(() => false, { trees: 0, tasks: 0 }).more);
    expect(again.job(last.name)).toBeUndefined();
    expect(again.archive.latest(last.name)).toMatchObject({ job: { state: 'SUCCEEDED', spec: last.spec } });
    // Its events moved into its record (out of the events table and its indexes), and read the same.
    expect(again.archive.history(last.run)).toEqual(history);
    again.close();
    const db = new DatabaseSync(path);
    expect(db.prepare('SELECT COUNT(*) AS n FROM events WHERE run = ?').get(last.run)).toEqual({ n: 0 });
    db.close();
  } else again.close();
  return (vacuumedBytes(path) - empty) / count;
}

/** What a finished quiet task held live may cost (the compact rows). */
const LIVE_BYTES_PER_TASK = 1_350;
/** What a finished quiet task once archived may cost (the target). */
const ARCHIVED_BYTES_PER_TASK = 400;

describe.each([
  { kind: 'held live', archived: false, bound: LIVE_BYTES_PER_TASK },
  { kind: 'archived', archived: true, bound: ARCHIVED_BYTES_PER_TASK },
])('state.db bytes per finished quiet task, $kind', ({ kind, archived, bound }) => {
  const measured = new Map<number, number>();
  it.each([1_000, 10_000])(
    `stays <= ${bound} B at %i tasks`,
    (count) => {
      const perTask = bytesPerQuietTask(count, archived);
      measured.set(count, perTask);
      console.log(`state.db per finished quiet task (${kind}) at ${count}: ${perTask.toFixed(0)} B`);
      expect(perTask).toBeLessThanOrEqual(bound);
    },
    120_000,
  );

  it('does not grow per task with the number of tasks', () => {
    const small = measured.get(1_000);
    const large = measured.get(10_000);
    expect(small).toBeDefined();
    expect(large!).toBeLessThanOrEqual(small! * 1.1);
  });
});
