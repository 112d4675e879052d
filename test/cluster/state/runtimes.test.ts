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
});
