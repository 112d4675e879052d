import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchFiles, watchedDirs } from '../../src/runtime/process/dir-watch.js';

/** Resolves on the first call of the returned callback. */
function signal(): { fn: () => void; called: Promise<void> } {
  let fn!: () => void;
  const called = new Promise<void>((resolve) => (fn = resolve));
  return { fn, called };
}

describe('watchFiles (one fs.watch per directory)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'iris-dir-watch-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(
    'routes each event to the listeners of that file, through one watcher, closed with the last ' + 'listener',
    async () => {
      const before = watchedDirs();
      const a = signal();
      const b = signal();
      let aCalls = 0;
      const stopA = watchFiles(
        dir,
        ['a.out'],
        () => {
          aCalls++;
          a.fn();
        },
        () => undefined,
      );
      const stopB = watchFiles(dir, ['b.out', 'b.err'], b.fn, () => undefined);
      expect(watchedDirs()).toBe(before + 1);
      await appendFile(join(dir, 'b.err'), 'x');
      await b.called;
      expect(aCalls).toBe(0);
      await appendFile(join(dir, 'a.out'), 'x');
      await a.called;
      stopA();
      expect(watchedDirs()).toBe(before + 1);
      stopB();
      expect(watchedDirs()).toBe(before);
    },
  );

  it('throws when the directory cannot be watched', () => {
    expect(() =>
      watchFiles(
        join(dir, 'missing'),
        ['x'],
        () => undefined,
        () => undefined,
      ),
    ).toThrow(/ENOENT/);
  });
});
