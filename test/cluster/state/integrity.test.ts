/**
 * A damaged state database is refused, by the store (read-write, the controller's) and by a
 * reader (readOnly, the offline commands'), with `<path> is damaged: …` (exit 6) and a hint, and
 * neither changes the file; an empty one is initialised only when the caller allows it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { IrisError } from '../../../src/model/errors.js';
import { DAMAGES, damage, damageDetail } from '../../helpers/damage.js';
import { spec, tempDir } from './helpers.js';
import { refusal as refusalOf } from '../../helpers/refusal.js';

let dir: string;
let cleanup: () => void;
let path: string;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'state.db');
  const store = ClusterStore.open({ path, reserveBytes: 0 });
  store.submit(spec('/a', { replicas: 3 }));
  store.submit(spec('/b', { env: { K: 'v' } }));
  store.close();
});
afterEach(() => cleanup());

const digest = (): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const EVIDENCE = new IrisError(
  'unavailable',
  'state.db is damaged: it is empty, but the logs of earlier runs are there',
);

const refusal = (open: () => ClusterStore): IrisError => refusalOf(() => open().close());

describe('a damaged state database', () => {
  for (const kind of DAMAGES) {
    it(`${kind}: refused by the store and by a reader, with the damage named, the file unchanged`, () => {
      damage(path, kind);
      const before = digest();
      const files = readdirSync(dir).sort();
      const ifEmpty = new IrisError(
        'unavailable',
        `${path} is damaged: it is empty, but the logs of earlier runs are there`,
      );
      for (const readOnly of [false, true]) {
        const error = refusal(() => ClusterStore.open({ path, readOnly, reserveBytes: 0, ifEmpty }));
        expect(error.exitCode).toBe(6);
        expect(error.message.startsWith(`${path} is damaged: `), error.message).toBe(true);
        expect(error.message).toMatch(damageDetail(kind));
        if (kind !== 'zero-bytes') expect(error.hint).toContain('iris cluster start --fresh');
      }
      expect(digest()).toBe(before);
      expect(readdirSync(dir).sort()).toEqual(files);
    });
  }

  it('a stored record that no longer parses quarantines its job, and a reader changes nothing', () => {
    // SQLite's checks pass: the file is sound, one row is not. The load quarantines that job
    // (quarantine.ts) instead of refusing the whole state; a reader does it in memory only.
    const bytes = readFileSync(path);
    const at = bytes.indexOf('"env":{"K":"v"}');
    expect(at).toBeGreaterThan(0);
    bytes.write('"env":{"K""v"}', at);
    writeFileSync(path, bytes);
    const before = digest();
    const reader = ClusterStore.open({ path, readOnly: true });
    expect(reader.job('/b')).toMatchObject({ state: 'FAILED' });
    expect(reader.job('/b')!.reason).toMatch(/^quarantined at start-up: /);
    expect(reader.job('/a')).toMatchObject({ state: 'PENDING' });
    reader.close();
    expect(digest()).toBe(before);
  });
});

describe('an empty state database', () => {
  it('is initialised by the store and read as empty, unless the caller forbids it', () => {
    damage(path, 'zero-bytes');
    expect(refusal(() => ClusterStore.open({ path, ifEmpty: EVIDENCE }))).toBe(EVIDENCE);
    const reader = ClusterStore.open({ path, readOnly: true });
    expect([...reader.jobs()]).toEqual([]);
    reader.close();
    expect(readFileSync(path).length).toBe(0);
    const store = ClusterStore.open({ path, reserveBytes: 0 });
    store.submit(spec('/new'));
    store.close();
    // Now a database with a header and tables: no longer empty, so read as saved.
    const again = ClusterStore.open({ path, readOnly: true, ifEmpty: EVIDENCE });
    expect([...again.jobs()].map((j) => j.name)).toEqual(['/new']);
    again.close();
  });

  it('a header without tables (a first start that died before its first commit) counts as empty', () => {
    damage(path, 'zero-bytes');
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL');
    db.close();
    expect(readFileSync(path).length).toBeGreaterThan(0);
    expect(refusal(() => ClusterStore.open({ path, ifEmpty: EVIDENCE }))).toBe(EVIDENCE);
    expect(refusal(() => ClusterStore.open({ path, readOnly: true, ifEmpty: EVIDENCE }))).toBe(EVIDENCE);
  });
});
