import { afterEach, describe, expect, it } from 'vitest';
import { harness, spec, type Harness } from './helpers.js';
import { logPathFor } from '../../../src/cluster/controller/launch.js';
import { mountTmpfs, type Tmpfs } from '../../helpers/tmpfs.js';

let h: Harness | null = null;
let fs: Tmpfs | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
  fs?.unmount();
  fs = null;
});

describe('an attempt whose log fills the disk (real tmpfs)', () => {
  it('is stopped and fails with "no space left on <log>", counted as a failure', async (ctx) => {
    fs = mountTmpfs(1);
    if (!fs) return ctx.skip();
    h = harness(undefined, undefined, fs.dir);
    const { store, controller, runtime, until } = h;
    // Prints far more than fits, then goes on printing: only iris can end it.
    store.submit(
      spec('/flood', {
        command: ['sh', '-c', 'seq 1 400000; while true; do echo more; sleep 0.01; done'],
        maxRetries: 1,
      }),
    );
    controller.start();
    await until(() => store.task('/flood/task-0')!.failures === 1);
    const reason = `no space left on ${logPathFor(fs.dir, store.job('/flood')!, 0, 0)}`;
    expect(store.attempt('/flood/task-0', 0)).toMatchObject({ state: 'FAILED', reason });
    expect(store.task('/flood/task-0')!.reason).toBe(`retrying after ${reason}`);
    await until(() => runtime.running().length === 0 || store.job('/flood')!.state === 'FAILED');
  });
});
