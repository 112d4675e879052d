/**
 * The one home of iris's cgroup file-system rules (src/runtime/process/cgroup-fs.ts): mounts,
 * paths, listing, probing and removal. Listing, probing and removal are checked on plain
 * directories (they behave as cgroup directories do for mkdir, readdir and rmdir), so these run
 * on any machine; test/runtime/process-cgroups.test.ts checks them on real cgroups.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attemptCgroupDir,
  clusterCgroupDir,
  irisCgroupDir,
  isMissing,
  listCgroups,
  mountedHierarchies,
  probeHierarchy,
  removeCgroupTree,
  removeClusterDir,
  unescapeMount,
} from '../../src/runtime/process/cgroup-fs.js';

describe('cgroup mounts', () => {
  it.each([
    [
      'a v2 mount',
      'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0',
      [{ version: 2, root: '/sys/fs/cgroup', options: ['rw', 'nosuid'] }],
    ],
    [
      'a v1 controller',
      'cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0',
      [{ version: 1, root: '/sys/fs/cgroup/pids', options: ['rw', 'relatime', 'pids'] }],
    ],
    [
      'an escaped space',
      'cgroup2 /mnt/my\\040cg cgroup2 rw 0 0',
      [{ version: 2, root: '/mnt/my cg', options: ['rw'] }],
    ],
    ['other file systems', 'proc /proc proc rw 0 0\ntmpfs /sys/fs/cgroup tmpfs rw,mode=755 0 0', []],
    ['blank and short lines', '\n\ncgroup2\n', []],
  ])('%s', (_, text, expected) => {
    const found = mountedHierarchies(text).map((h) => ({ ...h, options: [...h.options] }));
    expect(found).toEqual(expected);
  });

  it('keeps the order of /proc/self/mounts (a hybrid machine: v1 controllers and v2)', () => {
    const text = [
      'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
      'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0',
    ].join('\n');
    expect(mountedHierarchies(text).map((h) => `${h.version} ${h.root}`)).toEqual([
      '1 /sys/fs/cgroup/cpu',
      '1 /sys/fs/cgroup/memory',
      '2 /sys/fs/cgroup/unified',
    ]);
  });

  it.each([
    ['/a\\040b', '/a b'],
    ['/tab\\011here', '/tab\there'],
    ['/back\\134slash', '/back\\slash'],
    ['/plain', '/plain'],
  ])('unescapes %s', (raw, expected) => {
    expect(unescapeMount(raw)).toBe(expected);
  });
});

describe('cgroup paths', () => {
  it.each([
    ['cluster-1', '%2Fa%2Ftask-0.0', '/cg/iris/cluster-1', '/cg/iris/cluster-1/%2Fa%2Ftask-0.0'],
    ['a/b c', 'x.1', '/cg/iris/a%2Fb%20c', '/cg/iris/a%2Fb%20c/x.1'],
  ])('cluster %j, attempt %j', (cluster, name, clusterDir, attemptDir) => {
    expect(irisCgroupDir('/cg')).toBe('/cg/iris');
    expect(clusterCgroupDir('/cg', cluster)).toBe(clusterDir);
    expect(attemptCgroupDir('/cg', cluster, name)).toBe(attemptDir);
  });

  it.each([
    ['ENOENT', true],
    ['ESRCH', true],
    ['ENODEV', true],
    ['EBUSY', false],
    ['EMFILE', false],
  ])('%s means gone: %s', (code, gone) => {
    expect(isMissing(Object.assign(new Error(code), { code }))).toBe(gone);
  });
});

describe('listing, probing and removing', () => {
  let root = '';
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'iris-cgroup-fs-')));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lists the directories below one, [] when it is gone', async () => {
    const dir = attemptCgroupDir(root, 'list', 'x');
    mkdirSync(join(dir, 'b'), { recursive: true });
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'cgroup.procs'), '');
    expect((await listCgroups(dir)).sort()).toEqual(['a', 'b']);
    expect(await listCgroups(join(root, 'none'))).toEqual([]);
    await expect(listCgroups(join(dir, 'cgroup.procs'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('removes a tree of empty directories deepest first; a gone one counts as removed', async () => {
    const top = attemptCgroupDir(root, 'tree', 'attempt.0');
    mkdirSync(join(top, 'made-by-the-task', 'deeper'), { recursive: true });
    mkdirSync(join(top, 'sibling'));
    expect(await removeCgroupTree(top)).toBe(true);
    expect(existsSync(top)).toBe(false);
    expect(await removeCgroupTree(top)).toBe(true);
  });

  it('leaves what still holds something (a file stands for a member process) and says so', async () => {
    const top = attemptCgroupDir(root, 'held', 'attempt.0');
    mkdirSync(join(top, 'inner'), { recursive: true });
    writeFileSync(join(top, 'inner', 'member'), '');
    expect(await removeCgroupTree(top)).toBe(false);
    expect(existsSync(join(top, 'inner', 'member'))).toBe(true);
  });

  it('removes a cluster directory only when it is empty, never throwing', async () => {
    mkdirSync(attemptCgroupDir(root, 'busy', 'attempt.0'), { recursive: true });
    mkdirSync(clusterCgroupDir(root, 'idle'), { recursive: true });
    await removeClusterDir(root, 'busy');
    await removeClusterDir(root, 'idle');
    await removeClusterDir(root, 'never-made');
    expect(existsSync(clusterCgroupDir(root, 'busy'))).toBe(true);
    expect(existsSync(clusterCgroupDir(root, 'idle'))).toBe(false);
  });

  it.each([
    ['no check', undefined, true],
    ['a check that passes', async () => true, true],
    ['a check that fails', async () => false, false],
    ['a check that throws', async () => Promise.reject(new Error('no')), false],
  ])('a probe with %s leaves nothing behind', async (_, check, usable) => {
    const seen: string[] = [];
    const spy = check && (async (dir: string) => (seen.push(dir), check()));
    expect(await probeHierarchy(root, spy)).toBe(usable);
    if (spy) expect(seen[0]).toMatch(new RegExp(`^${root}/iris/probe-${process.pid}-\\d+/probe$`));
    expect((await listCgroups(irisCgroupDir(root))).filter((n) => n.startsWith('probe-'))).toEqual([]);
  });

  it('two probes at once never share a probe cgroup', async () => {
    const dirs: string[] = [];
    const slow = async (dir: string) => {
      dirs.push(dir);
      await new Promise((r) => setTimeout(r, 10));
      return true;
    };
    expect(await Promise.all([probeHierarchy(root, slow), probeHierarchy(root, slow)])).toEqual([true, true]);
    expect(new Set(dirs).size).toBe(2);
  });

  it('a root that cannot hold directories is not usable', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    expect(await probeHierarchy(file)).toBe(false);
  });
});
