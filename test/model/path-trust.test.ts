/**
 * The path-trust rule (src/model/path-trust.ts) over plain stat results: who may own each entry,
 * which write bits refuse it, the sticky exception for directories above the file, and where an
 * upward search stops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ancestorProblem,
  chainProblem,
  describeProblem,
  fileProblem,
  searchStep,
  type EntryKind,
  type PathEntry,
} from '../../src/model/path-trust.js';

const ME = 1000;
const OTHER = 1001;
const entry = (path: string, kind: EntryKind, uid: number, mode: number): PathEntry => ({ path, kind, uid, mode });
const file = (uid: number, mode: number) => entry('/p/f', 'file', uid, mode);
const dir = (uid: number, mode: number) => entry('/p', 'directory', uid, mode);

describe('fileProblem', () => {
  it.each([
    ['mine, 0644', file(ME, 0o100644), null],
    ["root's, 0600", file(0, 0o100600), null],
    ["another user's", file(OTHER, 0o100644), 'owner'],
    ['mine, group-writable', file(ME, 0o100664), 'group-writable'],
    ['mine, writable by others', file(ME, 0o100646), 'other-writable'],
    ['mine, writable by both: others named first', file(ME, 0o100666), 'other-writable'],
    ['mine, 0666 on a read-only mount', { ...file(ME, 0o100666), readOnly: true }, null],
    ['a directory', entry('/p/f', 'directory', ME, 0o40755), 'not-a-file'],
    ['a fifo', entry('/p/f', 'other', ME, 0o10644), 'not-a-file'],
    ['my symlink (mode ignored)', entry('/p/f', 'symlink', ME, 0o120777), null],
    ["another user's symlink", entry('/p/f', 'symlink', OTHER, 0o120777), 'owner'],
  ])('%s', (_what, e, expected) => {
    expect(fileProblem(e, ME)?.problem ?? null).toBe(expected);
  });

  it('root calling: only root-owned entries pass, the file of uid 1000 does not', () => {
    expect(fileProblem(file(1000, 0o100644), 0)).toEqual({ path: '/p/f', kind: 'file', problem: 'owner', uid: 1000 });
    expect(fileProblem(file(0, 0o100644), 0)).toBeNull();
  });
});

describe('ancestorProblem', () => {
  it.each([
    ['mine, 0755', dir(ME, 0o40755), null],
    ["root's, 0755", dir(0, 0o40755), null],
    ["root's /tmp (1777, sticky)", dir(0, 0o41777), null],
    ['mine, sticky and group-writable', dir(ME, 0o41775), null],
    ["another user's, 0755", dir(OTHER, 0o40755), 'owner'],
    ["another user's, sticky", dir(OTHER, 0o41777), 'owner'],
    ['mine, group-writable, no sticky bit', dir(ME, 0o40775), 'group-writable'],
    ["root's, 0777, no sticky bit", dir(0, 0o40777), 'other-writable'],
    ["root's, 0777 but on a read-only mount (a ConfigMap volume)", { ...dir(0, 0o40777), readOnly: true }, null],
    ['my symlink', entry('/p', 'symlink', ME, 0o120777), null],
    ["another user's symlink", entry('/p', 'symlink', OTHER, 0o120777), 'owner'],
  ])('%s', (_what, e, expected) => {
    expect(ancestorProblem(e, ME)?.problem ?? null).toBe(expected);
  });
});

describe('chainProblem', () => {
  const good = [
    file(ME, 0o100644),
    entry('/home/me', 'directory', ME, 0o40755),
    entry('/home', 'directory', 0, 0o40755),
    entry('/', 'directory', 0, 0o40755),
  ];

  it('accepts a file of mine in my home', () => {
    expect(chainProblem(good, ME)).toBeNull();
  });

  it('names the first entry at fault, from the file up', () => {
    const chain = [...good];
    chain[2] = entry('/home', 'directory', 0, 0o40777);
    chain[3] = entry('/', 'directory', OTHER, 0o40755);
    expect(chainProblem(chain, ME)).toEqual({
      path: '/home',
      kind: 'directory',
      problem: 'other-writable',
      mode: 0o40777,
    });
  });

  it('a file directly in a sticky /tmp passes only when it is mine (others cannot replace it)', () => {
    const tmp = entry('/tmp', 'directory', 0, 0o41777);
    const root = entry('/', 'directory', 0, 0o40755);
    expect(chainProblem([entry('/tmp/f', 'file', ME, 0o100600), tmp, root], ME)).toBeNull();
    expect(chainProblem([entry('/tmp/f', 'file', OTHER, 0o100600), tmp, root], ME)?.problem).toBe('owner');
  });

  it('property: a chain passes exactly when no entry fails on its own', () => {
    const kinds: EntryKind[] = ['file', 'directory', 'symlink', 'other'];
    const arbEntry = fc.record({
      path: fc.constant('/x'),
      kind: fc.constantFrom(...kinds),
      uid: fc.constantFrom(0, ME, OTHER),
      mode: fc.integer({ min: 0, max: 0o7777 }),
    });
    fc.assert(
      fc.property(fc.array(arbEntry, { minLength: 1, maxLength: 6 }), (chain) => {
        const anyBad =
          fileProblem(chain[0]!, ME) !== null || chain.slice(1).some((e) => ancestorProblem(e, ME) !== null);
        expect(chainProblem(chain, ME) !== null).toBe(anyBad);
        // Whatever passes is owned by me or root throughout.
        if (!anyBad) expect(chain.every((e) => e.uid === ME || e.uid === 0)).toBe(true);
      }),
    );
  });
});

describe('searchStep', () => {
  it.each([
    ['my directory', dir(ME, 0o40755), 'look'],
    ["root's directory", dir(0, 0o40755), 'look'],
    ["another user's directory (a file there is then refused)", dir(OTHER, 0o40755), 'look'],
    ['a group-writable directory (a file there is then refused)', dir(ME, 0o40775), 'look'],
    ['a shared sticky directory like /tmp: not looked in', dir(0, 0o41777), 'stop'],
    ['a directory writable by others without sticky bit', dir(ME, 0o40777), 'stop'],
    ['the same on a read-only mount: nobody can write it', { ...dir(ME, 0o40777), readOnly: true }, 'look'],
  ])('%s', (_what, e, expected) => {
    expect(searchStep(e)).toBe(expected);
  });
});

describe('describeProblem', () => {
  it('words each problem', () => {
    expect(describeProblem({ path: '/a', kind: 'file', problem: 'owner', uid: 1000 }, 0)).toBe(
      'owned by uid 1000, not by you (uid 0) or root',
    );
    expect(describeProblem({ path: '/a', kind: 'file', problem: 'group-writable', mode: 0o100664 }, 0)).toBe(
      'writable by its group (mode 0664)',
    );
    expect(describeProblem({ path: '/a', kind: 'directory', problem: 'other-writable', mode: 0o40777 }, 0)).toBe(
      'writable by others (mode 0777)',
    );
    expect(describeProblem({ path: '/a', kind: 'directory', problem: 'not-a-file' }, 0)).toBe(
      'a directory, not a file',
    );
  });
});
