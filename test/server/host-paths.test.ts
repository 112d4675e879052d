import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forbiddenHostPaths, hostPaths } from '../../src/server/host-paths.js';

describe('the host paths admission asks about (src/server/host-paths.ts)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-hostpaths-'));
  chmodSync(dir, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hostPath: the real path, or null when nothing is there', () => {
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    expect(hostPaths.hostPath(path.join(dir, 'link'))).toBe(path.join(dir, 'real'));
    expect(hostPaths.hostPath(path.join(dir, 'missing'))).toBeNull();
  });

  it('unreadable: names the first directory a uid may not enter, or the path it may not read; root reads all', () => {
    const priv = path.join(dir, 'priv');
    mkdirSync(path.join(priv, 'in'), { recursive: true });
    chmodSync(priv, 0o700);
    const file = path.join(dir, 'secret.txt');
    writeFileSync(file, 'x', { mode: 0o600 });
    const owner = process.getuid!();
    expect(hostPaths.unreadable!(path.join(priv, 'in'), 65534, 65534)).toBe(
      `${priv} is drwx------ of ${owner}:${process.getgid!()}, which it may not enter`,
    );
    expect(hostPaths.unreadable!(file, 65534, 65534)).toMatch(/secret.txt is -rw------- of/);
    expect(hostPaths.unreadable!(path.join(dir, 'real'), 65534, 65534)).toBeNull();
    expect(hostPaths.unreadable!(path.join(priv, 'in'), 0, 0)).toBeNull();
    expect(hostPaths.unreadable!(path.join(priv, 'in'), owner === 0 ? 0 : owner, null)).toBeNull();
  });

  it("forbiddenHostPaths: the state directory and the engines' sockets, as given and real", () => {
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'home-link'));
    const forbidden = forbiddenHostPaths(path.join(dir, 'home-link'), { DOCKER_HOST: 'unix:///srv/engine.sock' });
    expect(forbidden.stateDirs).toEqual([path.join(dir, 'home-link'), path.join(dir, 'real')]);
    expect(forbidden.engineSockets).toEqual(
      expect.arrayContaining(['/var/run/docker.sock', '/run/docker.sock', '/srv/engine.sock']),
    );
  });
});
