/**
 * The reader's connection (`openSaved`) changes nothing on disk: no file appears beside the
 * database, no mtime changes, and a WAL left by a crash is read from a private copy that is gone
 * once the connection is open. The store's connection (`lockDatabase`) shuts out every other.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDatabase, openSaved } from '../../../src/cluster/state/database.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { isLocked } from '../../../src/model/storage.js';
import { spec, tempDir } from './helpers.js';

let dir: string;
let cleanup: () => void;
let path: string;
let savedTmp: string | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'state.db');
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = join(dir, 'tmp');
  mkdirSync(process.env.TMPDIR);
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  cleanup();
});

const files = (at: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(at).map((name) => [name, `${statSync(join(at, name)).size} ${statSync(join(at, name)).mtimeMs}`]),
  );

const jobsIn = (file: string): unknown[] => {
  const db = openSaved(file);
  try {
    return db
      .prepare('SELECT name FROM jobs ORDER BY name')
      .all()
      .map((r) => (r as { name: string }).name);
  } finally {
    db.close();
  }
};

describe('openSaved', () => {
  it('reads a cleanly closed database without creating or touching a file', () => {
    const store = ClusterStore.open({ path, reserveBytes: 0 });
    store.submit(spec('/a'));
    store.close();
    const before = files(dir);
    expect(jobsIn(path)).toEqual(['/a']);
    expect(files(dir)).toEqual(before);
  });

  it('reads the changes a crash left in the WAL from a private copy, leaving nothing behind', () => {
    const store = ClusterStore.open({ path, reserveBytes: 0 });
    store.submit(spec('/a'));
    store.submit(spec('/b'));
    // What a kill -9 leaves: the database and its WAL, copied while the store still holds them.
    const crashed = join(mkdtempSync(join(dir, 'crashed-')), 'state.db');
    copyFileSync(path, crashed);
    copyFileSync(`${path}-wal`, `${crashed}-wal`);
    store.close();
    const at = join(crashed, '..');
    const before = files(at);
    expect(statSync(`${crashed}-wal`).size).toBeGreaterThan(32);
    expect(jobsIn(crashed)).toEqual(['/a', '/b']);
    expect(files(at)).toEqual(before);
    expect(readdirSync(process.env.TMPDIR!)).toEqual([]);
  });
});

describe('lockDatabase', () => {
  it('shuts out any other connection until it closes; a reader still reads', () => {
    const store = ClusterStore.open({ path, reserveBytes: 0 });
    store.submit(spec('/a'));
    let error: unknown = null;
    try {
      lockDatabase(path).close();
    } catch (e) {
      error = e;
    }
    expect(isLocked(error)).toBe(true);
    expect(jobsIn(path)).toEqual(['/a']);
    store.close();
    lockDatabase(path).close();
  });
});
