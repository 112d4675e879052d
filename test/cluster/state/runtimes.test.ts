/** The store's runtime history (planner predictions): kept on success, rebuilt at load from live and archived runs. */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { runtimeKey } from '../../../src/cluster/scheduler/planner/index.js';
import { Clock, spec, start, tempDir, workerSpec } from './helpers.js';

let cleanup: () => void;
let path: string;
const clock = new Clock();
const open = () => ClusterStore.open({ path, now: clock.now, reserveBytes: 0 });

beforeEach(() => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'cluster.db');
});
afterEach(() => cleanup());

function runFor(store: ClusterStore, name: string, ms: number, exitCode = 0): void {
  store.submit(spec(name));
  const n = start(store, `${name}/task-0`);
  clock.tick(ms);
  store.finishAttempt(`${name}/task-0`, n, { kind: 'exited', exitCode });
}

describe('the runtime history', () => {
  it('keeps the last two successful runs of a name by its user, also across a restart', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const user = store.submit(spec('/probe')).spec.user;
    store.cancel('/probe', 'test');
    runFor(store, '/a', 100);
    runFor(store, '/a', 300);
    runFor(store, '/a', 50, 3); // a failed run is not kept
    runFor(store, '/a', 500);
    const key = runtimeKey(user, '/a');
    expect(store.runtimes.runsOf(key)).toEqual([300, 500]);
    store.close();
    // The last run is live, the older ones archived: both are read back.
    const again = open();
    expect(again.runtimes.runsOf(key)).toEqual([300, 500]);
    again.close();
  });

  it("records a run per task: the mean of its tasks' final attempts, not the array's span", () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const user = store.submit(spec('/probe')).spec.user;
    store.cancel('/probe', 'test');
    // One task after another on one worker: the array takes 3 × `ms`, each task `ms`.
    const array = (ms: number) => {
      store.submit(spec('/arr', { replicas: 3, maxRetries: 1 }));
      for (let i = 0; i < 3; i++) {
        const id = `/arr/task-${i}`;
        if (i === 0) {
          // A failed first attempt is not counted: only the final attempt, from its own start.
          const n = start(store, id);
          clock.tick(5 * ms);
          store.finishAttempt(id, n, { kind: 'exited', exitCode: 1 });
        }
        const n = start(store, id);
        clock.tick(ms);
        store.finishAttempt(id, n, { kind: 'exited', exitCode: 0 });
      }
      expect(store.job('/arr')!.state).toBe('SUCCEEDED');
    };
    array(100);
    const key = runtimeKey(user, '/arr');
    expect(store.runtimes.runsOf(key)).toEqual([100]);
    array(200); // archives the first run
    expect(store.runtimes.runsOf(key)).toEqual([100, 200]);
    store.close();
    // Read back from the archive (the first run) and the live job (the second) alike.
    const again = open();
    expect(again.runtimes.runsOf(key)).toEqual([100, 200]);
    again.close();
  });

  it('rebuilds only from the last two archived successes of a name, in run order', () => {
    const store = open();
    store.syncWorkers([workerSpec('w1')]);
    const user = store.submit(spec('/probe')).spec.user;
    store.cancel('/probe', 'test');
    for (const ms of [10, 20, 30, 40]) runFor(store, '/b', ms);
    runFor(store, '/c', 7);
    runFor(store, '/b', 50, 1); // the live run failed: the archived successes are what is left
    store.close();
    const again = open();
    expect(again.runtimes.runsOf(runtimeKey(user, '/b'))).toEqual([30, 40]);
    expect(again.runtimes.runsOf(runtimeKey(user, '/c'))).toEqual([7]);
    again.close();
  });
});
