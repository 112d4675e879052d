import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectResultFile, withNote } from '../../../src/cluster/controller/result-file.js';
import { current } from '../../../src/cluster/state/results.js';
import type { ClusterStore } from '../../../src/cluster/state/store.js';
import { memStore, spec, start } from '../state/helpers.js';

let dir: string;
let store: ClusterStore;
let attempt: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'iris-result-file-'));
  ({ store } = memStore(1));
  store.submit(spec('/t'));
  attempt = start(store, '/t/task-0');
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = () => current(store.resultRows(store.job('/t')!.run), new Map([[0, attempt]])).map((r) => [r.key, r.value]);
const file = (text: string) => {
  const path = join(dir, 'result.json');
  writeFileSync(path, text);
  return path;
};

describe('collectResultFile', () => {
  it('stores a valid file whole as the attempt\'s results', async () => {
    expect(await collectResultFile(store, '/t/task-0', attempt, file('{"checkpoint": "/c", "loss": "0.1"}'))).toBeNull();
    expect(stored()).toEqual([['checkpoint', '/c'], ['loss', '0.1']]);
  });

  it('ignores a missing file', async () => {
    expect(await collectResultFile(store, '/t/task-0', attempt, join(dir, 'none.json'))).toBeNull();
    expect(stored()).toEqual([]);
  });

  it('stores nothing of an invalid file and says why', async () => {
    const note = await collectResultFile(store, '/t/task-0', attempt, file('{"good": "x", "bad": 1}'));
    expect(note).toBe('result file ignored: result file member "bad": a result value must be a string, got number');
    expect(stored()).toEqual([]);
    const tooMany = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v']));
    expect(await collectResultFile(store, '/t/task-0', attempt, file(JSON.stringify(tooMany)))).toBe('result file ignored: task /t/task-0 would hold 257 results, more than 256');
    expect(stored()).toEqual([]);
  });

  it('leaves an attempt the store has already ended alone', async () => {
    store.cancel('/t', 'cancelled by the user');
    expect(await collectResultFile(store, '/t/task-0', attempt, file('{"k": "v"}'))).toBeNull();
    expect(store.resultRows(store.job('/t')!.run)).toEqual([]);
  });
});

describe('withNote', () => {
  it('adds the note to the reason and keeps the outcome', () => {
    expect(withNote({ kind: 'exited', exitCode: 0 }, 'n')).toEqual({ kind: 'exited', exitCode: 0, reason: 'n' });
    expect(withNote({ kind: 'exited', exitCode: 137, reason: 'OOM killed' }, 'n')).toEqual({ kind: 'exited', exitCode: 137, reason: 'OOM killed; n' });
    expect(withNote({ kind: 'exited', exitCode: 1 }, null)).toEqual({ kind: 'exited', exitCode: 1 });
  });
});
