/**
 * What wakes a log follower: a Wakeup that anyone may poke (a store event, a file watcher) and
 * DirWatches, which pokes it when a file in a watched directory is created or grows.
 *
 * Guarantees of Wakeup: a poke is never lost. A poke that arrives while nobody waits is kept
 * and makes the next wait() return at once; several pokes before a wait count as one.
 * wait() also returns when its signal aborts or after the safety interval it is given (a
 * backstop for changes nobody signalled, e.g. a file system without change notification).
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

export class Wakeup {
  private waiter: (() => void) | null = null;
  private pending = false;

  /** Wakes the current wait(), or the next one if nobody waits. */
  readonly poke = (): void => {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter();
    else this.pending = true;
  };

  /** Forgets pokes so far: call before looking for changes, so later pokes wake the next wait(). */
  clear(): void {
    this.pending = false;
  }

  /** Resolves at the next poke (or at once after an unclaimed one), on abort, or after `safetyMs`. */
  wait(signal: AbortSignal, safetyMs: number): Promise<void> {
    if (this.pending || signal.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.waiter === done) this.waiter = null;
        resolve();
      };
      const timer = setTimeout(done, safetyMs);
      signal.addEventListener('abort', done, { once: true });
      this.waiter = done;
    });
  }
}

/**
 * fs.watch on the directories holding some files: any change inside a watched directory (a
 * file created, appended to, replaced) pokes. A directory that does not exist yet, or was
 * removed, is simply tried again at the next watch() call; until then the caller's safety
 * interval covers it.
 */
export class DirWatches {
  private readonly watchers = new Map<string, FSWatcher>();

  constructor(private readonly poke: () => void) {}

  /** Ensures the directory of each file is watched (cheap for directories already watched). */
  watchFilesIn(files: Iterable<string>): void {
    for (const file of files) this.watch(dirname(file));
  }

  watch(dir: string): void {
    if (this.watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (event) => {
        // A quiet attempt's directory is removed once its end is recorded (files.ts removeEmptyDirs):
        // a watcher of the removed directory would never fire again, so it goes, and the next
        // watch() watches the directory made anew (a retry's).
        if (event === 'rename' && !existsSync(dir)) this.unwatch(dir);
        this.poke();
      });
    } catch {
      return; // not there yet (or not watchable): the safety interval covers it
    }
    watcher.on('error', () => this.unwatch(dir));
    this.watchers.set(dir, watcher);
  }

  unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
