import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

const stored = () =>
  current(store.resultRows(store.job('/t')!.run), new Map([[0, attempt]])).map((r) => [r.key, r.value]);
const collect = (path: string, owner: number | null = process.geteuid!()) =>
  collectResultFile(store, '/t/task-0', attempt, path, owner);
const file = (text: string) => {
  const path = join(dir, 'result.json');
  writeFileSync(path, text);
  return path;
};

describe('collectResultFile', () => {
  it("stores a valid file whole as the attempt's results", async () => {
    expect(await collect(file('{"checkpoint": "/c", "loss": "0.1"}'))).toBeNull();
    expect(stored()).toEqual([
      ['checkpoint', '/c'],
      ['loss', '0.1'],
    ]);
  });

  it('ignores a missing file', async () => {
    expect(await collect(join(dir, 'none.json'))).toBeNull();
    expect(stored()).toEqual([]);
  });

  it('stores nothing of an invalid file and says why', async () => {
    const note = await collect(file('{"good": "x", "bad": 1}'));
    expect(note).toBe('result file ignored: result file member "bad": a result value must be a string, got number');
    expect(stored()).toEqual([]);
    const tooMany = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v']));
    expect(await collect(file(JSON.stringify(tooMany)))).toBe(
      'result file ignored: task /t/task-0 would hold 257 results, more than 256',
    );
    expect(stored()).toEqual([]);
  });

  it('leaves an attempt the store has already ended alone', async () => {
    store.cancel('/t', 'cancelled by the user');
    expect(await collect(file('{"k": "v"}'))).toBeNull();
    expect(store.resultRows(store.job('/t')!.run)).toEqual([]);
  });
});

describe('withNote', () => {
  it('adds the note to the reason and keeps the outcome', () => {
    expect(withNote({ kind: 'exited', exitCode: 0 }, 'n')).toEqual({ kind: 'exited', exitCode: 0, reason: 'n' });
    expect(withNote({ kind: 'exited', exitCode: 137, reason: 'OOM killed' }, 'n')).toEqual({
      kind: 'exited',
      exitCode: 137,
      reason: 'OOM killed; n',
    });
    expect(withNote({ kind: 'exited', exitCode: 1 }, null)).toEqual({ kind: 'exited', exitCode: 1 });
  });
});

describe("collectResultFile on files that are not the task's own", () => {
  it('ignores a symlink to a secret, quoting nothing of it', async () => {
    const secret = join(dir, 'secret.json');
    writeFileSync(secret, '{"password": "hunter2"}');
    symlinkSync(secret, join(dir, 'result.json'));
    const note = await collect(join(dir, 'result.json'));
    expect(note).toBe('result file ignored: it is a symbolic link (never followed)');
    expect(stored()).toEqual([]);
  });

  it('ignores a file larger than 1 MiB, and one of another owner', async () => {
    const big = JSON.stringify({ k: 'x'.repeat(1024 * 1024) });
    expect(await collect(file(big))).toBe(
      `result file ignored: it is ${big.length} bytes, more than the limit of 1048576`,
    );
    expect(await collect(file('{"k": "v"}'), 4242)).toBe(
      `result file ignored: it belongs to uid ${process.geteuid!()}, not to the task's user (uid 4242)`,
    );
    expect(stored()).toEqual([]);
  });

  it('says where JSON is broken without quoting the text', async () => {
    expect(await collect(file('root:x:0:0:secret'))).toBe('result file ignored: the result file is not valid JSON');
    expect(await collect(file('{"a": "b",}'))).toBe(
      'result file ignored: the result file is not valid JSON (at character 11)',
    );
    expect(await collect(file('{"a": "secret'))).toBe(
      'result file ignored: the result file is not valid JSON (at character 14)',
    );
    expect(await collect(file('{"\\u001b]0;pwned\\u0007": "v"}'))).toBe(
      'result file ignored: result file member 1: its key is not a valid result key',
    );
  });
});
