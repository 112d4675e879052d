// The archiver (src/cluster/controller/finished-archiver.ts): one check within its delay after
// changes, the finished trees beyond the limits archived then, a busy tree kept.
import { describe, expect, it } from 'vitest';
import { FinishedArchiver } from '../../../src/cluster/controller/finished-archiver.js';
import type { HeldAttempt } from '../../../src/cluster/controller/snapshot.js';
import { memStore, spec, start } from '../state/helpers.js';

function fakeTimers() {
  const due: Array<() => void> = [];
  return {
    due,
    timers: {
      after: (_ms: number, fn: () => void) => {
        due.push(fn);
        return () => due.splice(due.indexOf(fn) >>> 0, 1);
      },
    },
    fire: () => due.splice(0).forEach((fn) => fn()),
  };
}

describe('finished archiver', () => {
  it('after changes, one check archives what is beyond the limits; a busy tree stays', () => {
    const { store } = memStore();
    const clock = fakeTimers();
    let held: HeldAttempt[] = [];
    const archiver = new FinishedArchiver({
      store,
      timers: clock.timers,
      held: () => held,
      log: () => {},
      limits: { trees: 1, tasks: 100 },
    });
    archiver.start();
    clock.fire();
    for (const name of ['/a', '/b', '/c']) {
      store.submit(spec(name));
      start(store, `${name}/task-0`);
      store.finishAttempt(`${name}/task-0`, 0, { kind: 'exited', exitCode: 0 });
    }
    // Many changes, one check waiting.
    expect(clock.due).toHaveLength(1);
    held = [
      {
        job: '/a',
        task: '/a/task-0',
        attempt: 0,
        workerId: 'w1',
        resources: spec('/a').resources,
        devices: [],
        user: 'alice',
      },
    ];
    clock.fire();
    expect([...store.jobs()].map((j) => j.name)).toEqual(['/a', '/c']);
    held = [];
    clock.fire(); // an attempt was held: another check follows
    expect([...store.jobs()].map((j) => j.name)).toEqual(['/c']);
    expect(store.jobState('/a')).toBe('SUCCEEDED');
    archiver.stop();
    store.submit(spec('/d'));
    expect(clock.due).toHaveLength(0);
    store.close();
  });
});
