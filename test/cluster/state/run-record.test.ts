import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArchivedRun } from '../../../src/cluster/state/archive.js';
import type { HistoryEntry } from '../../../src/cluster/state/events.js';
import {
  decodeRecord,
  encodeRecord,
  loadEvents,
  packRun,
  storeEvents,
  unpackRun,
} from '../../../src/cluster/state/run-record.js';
import { attemptLogPath } from '../../../src/cluster/state/stored-row.js';
import type { Attempt, Job, Task } from '../../../src/model/types.js';
import { spec } from './helpers.js';

const LOGS = '/home/alice/.iris/logs';
const T0 = Date.parse('2026-11-30T12:00:00Z');

/** A finished run of `/exp/n` with `tasks` tasks of `attempts` attempts each. */
function run(n: number, tasks: number, attempts: number, opts: { elsewhere: boolean; scored: boolean }): ArchivedRun {
  const name = `/exp/j${n}`;
  const job: Job = {
    name,
    run: n,
    spec: spec(name, { replicas: tasks, cwd: '/w', env: n % 2 ? { A: 'b' } : {} }),
    depth: 2,
    parent: '/exp',
    submittedAt: T0,
    rootSubmittedAt: T0,
    seq: n,
    state: 'SUCCEEDED',
    reason: null,
    startedAt: T0 + 40,
    finishedAt: T0 + 1100,
    failedTasks: 0,
  } as Job;
  const taskList = Array.from({ length: tasks }, (_, i) => ({
    id: `${name}/task-${i}`,
    job: name,
    index: i,
    state: 'SUCCEEDED',
    attempt: attempts - 1,
    submittedAt: T0,
    seq: n + i,
    failures: attempts - 1,
    preemptions: 0,
    workerId: 'local',
    exitCode: 0,
    reason: null,
    startedAt: T0 + 40,
    finishedAt: T0 + 1100,
    eligibleAt: null,
  })) as Task[];
  const attemptLists = taskList.map((t) =>
    Array.from(
      { length: attempts },
      (_, a): Attempt => ({
        task: t.id,
        attempt: a,
        workerId: 'local',
        state: a === attempts - 1 ? 'SUCCEEDED' : 'FAILED',
        pid: 100 + a,
        exitCode: a === attempts - 1 ? 0 : 1,
        reason: null,
        startedAt: T0 + 40 + a,
        finishedAt: T0 + 1100 + a,
        logPath: opts.elsewhere ? `/elsewhere/${a}.log` : attemptLogPath(LOGS, name, n, t.index, a),
        devices: [],
        logCutBytes: null,
        cpuSeconds: 0.002,
        peakMemoryBytes: 262144,
        placement: opts.scored
          ? { mode: 'adaptive', pool: 4, lambda: 0.5, score: -0.25, runnerUp: null, reuseHit: a === 1 }
          : null,
      }),
    ),
  );
  return { job, tasks: taskList, attempts: attemptLists, children: [n + 1000] };
}

const eventsArb = fc
  .array(
    fc.record({
      step: fc.integer({ min: 1, max: 1000 }),
      after: fc.integer({ min: 0, max: 10_000 }),
      kind: fc.constantFrom('job', 'task', 'attempt', 'requeue', 'exec'),
      state: fc.constantFrom('RUNNING', 'SUCCEEDED', 'preempted', 'exec'),
      reason: fc.option(fc.string({ maxLength: 8 })),
    }),
    { maxLength: 12 },
  )
  .map((list) => {
    let id = 0;
    let time = T0;
    return list.map((e): HistoryEntry => {
      id += e.step;
      time += e.after;
      const kind = e.kind as HistoryEntry['kind'];
      return { id, time, kind, name: '/exp/j1/task-0', state: e.state, reason: e.reason, run: 1 };
    });
  });

describe('archived run records (run-record.ts)', () => {
  it('a run reads back equal after packing, compressing and back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.boolean(),
        (n, tasks, attempts, elsewhere, scored) => {
          const original = run(n, tasks, attempts, { elsewhere, scored });
          const stored = encodeRecord(packRun(original, LOGS));
          expect(unpackRun(decodeRecord<ArchivedRun>(stored), LOGS)).toEqual(original);
        },
      ),
    );
  });

  it("a run's events read back equal, ids and instants included", () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        const stored = decodeRecord<{ events: ReturnType<typeof storeEvents> }>(
          encodeRecord({ events: storeEvents(events) }),
        );
        expect(loadEvents(stored.events, 1)).toEqual(events);
      }),
    );
  });

  it('a record written as JSON text before reads the same; an unknown format is refused', () => {
    const original = run(3, 1, 1, { elsewhere: false, scored: true });
    expect(unpackRun(decodeRecord<ArchivedRun>(JSON.stringify(original)), LOGS)).toEqual(original);
    const stored = encodeRecord(original);
    stored[0] = 9;
    expect(() => decodeRecord(stored)).toThrow(/unknown format 9/);
  });

  it('a quiet one-task run with its 8 events takes a few hundred bytes, not its JSON size', () => {
    const original = run(7, 1, 1, { elsewhere: false, scored: true });
    const events = ['PENDING', 'RUNNING', 'ASSIGNED', 'RUNNING', 'RUNNING', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED'].map(
      (state, i): HistoryEntry => ({
        id: 100 + i,
        time: T0 + i,
        kind: 'job',
        name: '/exp/j7',
        state,
        reason: null,
        run: 7,
      }),
    );
    const text = JSON.stringify({ ...original, events });
    const stored = encodeRecord({ ...packRun(original, LOGS), events: storeEvents(events) });
    expect(stored.length).toBeLessThan(text.length / 5);
  });
});
