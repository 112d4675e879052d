/** The token file's archive (src/runtime/docker/token-archive.ts), read back by the system's tar. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_USTAR_ID, tokenArchive } from '../../src/runtime/docker/token-archive.js';

const dir = mkdtempSync(path.join(tmpdir(), 'iris-token-archive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tar(args: string[], archive: Buffer): string {
  const file = path.join(dir, 'a.tar');
  writeFileSync(file, archive);
  return execFileSync('tar', [...args, '-f', file], { encoding: 'utf8' });
}

describe('tokenArchive', () => {
  it('a root-owned 0750 directory and a 0440 file of the token group, holding the token', () => {
    const archive = tokenArchive('/.iris-task/token', 'AbC-12_x', 2_000_000);
    expect(archive.length % 512).toBe(0);
    const listing = tar(['--numeric-owner', '-tv'], archive).trim().split('\n');
    expect(listing).toHaveLength(2);
    expect(listing[0]).toMatch(/^drwxr-x--- 0\/2000000 +0 .* \.iris-task\/$/);
    expect(listing[1]).toMatch(/^-r--r----- 0\/2000000 +9 .* \.iris-task\/token$/);
    expect(tar(['-xO'], archive)).toBe('AbC-12_x\n');
  });

  it('refuses what it cannot write faithfully', () => {
    expect(() => tokenArchive('/token', 't', 1)).toThrow(/one directory under \//);
    expect(() => tokenArchive('/a/b/token', 't', 1)).toThrow(/one directory under \//);
    expect(() => tokenArchive('/a/token', 't', MAX_USTAR_ID + 1)).toThrow(/does not fit/);
    expect(() => tokenArchive('/a/token', 'a b', 1)).toThrow(/base64url/);
  });
});
