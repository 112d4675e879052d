/** What counts as traces of earlier runs in a state directory, and moving the saved state aside (`--fresh`). */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { earlierRuns, moveAside } from '../../src/server/saved-state.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'iris-saved-state-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('earlier runs', () => {
  it('are a log file anywhere under logs/, or changes in a WAL; empty directories and planted symlinks are not', () => {
    expect(earlierRuns(home)).toBeNull();
    const task = path.join(home, 'logs', 'a', 'b', '@3', 'task-0');
    mkdirSync(task, { recursive: true });
    symlinkSync('/etc/passwd', path.join(task, 'attempt-0.log'));
    expect(earlierRuns(home)).toBeNull();
    writeFileSync(path.join(task, 'attempt-1.log'), '');
    expect(earlierRuns(home)).toBe(`${path.join(home, 'logs')} holds the logs of earlier runs`);
    rmSync(path.join(home, 'logs'), { recursive: true });
    writeFileSync(path.join(home, 'state.db-wal'), Buffer.alloc(32));
    expect(earlierRuns(home)).toBeNull();
    writeFileSync(path.join(home, 'state.db-wal'), Buffer.alloc(4128));
    expect(earlierRuns(home)).toBe(`${path.join(home, 'state.db-wal')} holds changes of earlier runs`);
  });
});

describe('moving the saved state aside', () => {
  it('moves the database files and logs/ into one new owner-only directory and leaves the rest', () => {
    expect(moveAside(home)).toBeNull();
    for (const name of ['state.db', 'state.db-wal', 'state.db.reserve', 'cluster.log'])
      writeFileSync(path.join(home, name), name);
    mkdirSync(path.join(home, 'logs', 'a'), { recursive: true });
    const aside = moveAside(home, new Date('2026-01-02T03:04:05.678Z'))!;
    expect(aside).toBe(path.join(home, 'aside-2026-01-02T03-04-05-678Z'));
    expect(readdirSync(aside).sort()).toEqual(['logs', 'state.db', 'state.db-wal', 'state.db.reserve']);
    expect(readdirSync(home).sort()).toEqual(['aside-2026-01-02T03-04-05-678Z', 'cluster.log']);
  });
});
