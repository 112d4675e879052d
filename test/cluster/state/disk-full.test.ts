import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { IrisError } from '../../../src/model/errors.js';
import { mountTmpfs, type Tmpfs } from '../../helpers/tmpfs.js';
import { Clock, spec, start, workerSpec } from './helpers.js';
import { refusal } from '../../helpers/refusal.js';

let fs: Tmpfs | null = null;
let store: ClusterStore | null = null;
afterEach(() => {
  store?.close();
  store = null;
  fs?.unmount();
  fs = null;
});

describe('a full disk under the store (real tmpfs)', () => {
  it(
    'spends its reserve on what already happened, refuses submissions until space returns, then takes them ' + 'again',
    (ctx) => {
      fs = mountTmpfs(4);
      if (!fs) return ctx.skip();
      const path = join(fs.dir, 'state.db');
      const clock = new Clock();
      store = ClusterStore.open({ path, now: clock.now, reserveBytes: 256 * 1024 });
      expect(existsSync(`${path}.reserve`)).toBe(true);
      store.syncWorkers([workerSpec('w1')]);
      store.submit(spec('/a'));
      start(store, '/a/task-0');
      const storage: (string | null)[] = [];
      store.events.on('storage', (problem) => storage.push(problem?.message ?? null));

      fs.fill();
      // The attempt's end is written (with the reserve's space) although the disk is full.
      store.finishAttempt('/a/task-0', 0, { kind: 'failed', reason: 'no space left on /x.log', exitCode: null });
      expect(store.job('/a')!.state).toBe('FAILED');
      expect(existsSync(`${path}.reserve`)).toBe(false);
      expect(store.storage?.message).toBe(`no space left on ${path}`);
      expect(storage).toEqual([`no space left on ${path}`]);

      // A submission is refused (not acknowledged) and leaves nothing behind.
      const refused = refusal(() => store!.submit(spec('/b')));
      expect(refused).toBeInstanceOf(IrisError);
      expect(refused).toMatchObject({ code: 'insufficient_storage', message: `no space left on ${path}`, exitCode: 7 });
      expect(store.job('/b')).toBeUndefined();
      expect(store.retryWrites()).toBe(false);

      fs.free();
      expect(store.retryWrites()).toBe(true);
      expect(existsSync(`${path}.reserve`)).toBe(true);
      expect(store.storage).toBeNull();
      expect(storage).toEqual([`no space left on ${path}`, null]);
      store.submit(spec('/b'));
      store.close();

      store = ClusterStore.open({ path, now: clock.now });
      expect(store.attempt('/a/task-0', 0)).toMatchObject({ state: 'FAILED', reason: 'no space left on /x.log' });
      expect(store.job('/b')!.state).toBe('PENDING');
    },
  );

  it('without room even for that, keeps changes in memory and writes them all once space returns', (ctx) => {
    fs = mountTmpfs(4);
    if (!fs) return ctx.skip();
    const path = join(fs.dir, 'state.db');
    store = ClusterStore.open({ path, reserveBytes: 0 });
    store.syncWorkers([workerSpec('w1')]);
    store.submit(spec('/a', { replicas: 2 }));
    start(store, '/a/task-0');
    start(store, '/a/task-1');
    fs.fill();
    store.finishAttempt('/a/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(store.storage?.message).toBe(`no space left on ${path}`);
    store.finishAttempt('/a/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/a')!.state).toBe('SUCCEEDED');
    expect(() => store!.submit(spec('/x'))).toThrow(`no space left on ${path}`);
    fs.free();
    // The next submission writes what waited first, then itself.
    expect(store.submit(spec('/x')).name).toBe('/x');
    expect(store.storage).toBeNull();
    store.close();
    store = ClusterStore.open({ path, reserveBytes: 0 });
    expect(store.job('/a')!.state).toBe('SUCCEEDED');
    expect(store.tasksOf('/a').map((t) => t.state)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(store.history('/a').map((h) => `${h.name} ${h.state}`)).toContain('/a SUCCEEDED');
    expect(store.job('/x')!.state).toBe('PENDING');
  });

  it('opened on a full disk, it serves what it holds and refuses submissions', (ctx) => {
    fs = mountTmpfs(4);
    if (!fs) return ctx.skip();
    const path = join(fs.dir, 'state.db');
    store = ClusterStore.open({ path, reserveBytes: 256 * 1024 });
    store.submit(spec('/a'));
    store.close();
    fs.fill();
    store = ClusterStore.open({ path, reserveBytes: 256 * 1024 });
    expect(store.job('/a')!.state).toBe('PENDING');
    expect(store.storage?.code).toBe('insufficient_storage');
    expect(() => store!.submit(spec('/b'))).toThrow(`no space left on ${path}`);
    fs.free();
    expect(store.submit(spec('/b')).name).toBe('/b');
  });

  it('opened on a full disk without a reserve, it still loads and serves, and writes once space returns', (ctx) => {
    fs = mountTmpfs(4);
    if (!fs) return ctx.skip();
    const path = join(fs.dir, 'state.db');
    store = ClusterStore.open({ path, reserveBytes: 0 });
    store.submit(spec('/a'));
    store.close();
    fs.fill();
    store = ClusterStore.open({ path, reserveBytes: 0 });
    expect(store.job('/a')!.state).toBe('PENDING');
    expect(store.history('/a').map((h) => h.state)).toEqual(['PENDING']);
    expect(() => store!.submit(spec('/b'))).toThrow(`no space left on ${path}`);
    store.cancel('/a', 'cancelled by user'); // kept in memory
    expect(store.job('/a')!.state).toBe('KILLED');
    fs.free();
    expect(store.retryWrites()).toBe(true);
    expect(store.submit(spec('/b')).name).toBe('/b');
    store.close();
    store = ClusterStore.open({ path, reserveBytes: 0 });
    expect(store.job('/a')!.state).toBe('KILLED');
    expect(store.job('/b')!.state).toBe('PENDING');
  });
});
