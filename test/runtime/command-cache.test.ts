import { chmod, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandCache, CommandError } from '../../src/runtime/process/wrapper.js';

describe('CommandCache (PATH search remembered for a second)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'iris-command-cache-')));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reuses a found path within the TTL and searches PATH again after it', async () => {
    let now = 0;
    const cache = new CommandCache(1000, () => now);
    const env = { PATH: `${join(dir, 'first')}:${dir}` };
    const tool = join(dir, 'tool');
    await writeFile(tool, '#!/bin/sh\n');
    await chmod(tool, 0o755);
    expect(cache.resolve('tool', env, dir)).toBe(tool);
    // A program of that name appears earlier in PATH: within the TTL the first answer stands.
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'first'));
    await writeFile(join(dir, 'first', 'tool'), '#!/bin/sh\n');
    await chmod(join(dir, 'first', 'tool'), 0o755);
    now = 999;
    expect(cache.resolve('tool', env, dir)).toBe(tool);
    now = 1000;
    expect(cache.resolve('tool', env, dir)).toBe(join(dir, 'first', 'tool'));
  });

  it('never remembers a failure', async () => {
    const now = 0;
    const cache = new CommandCache(1000, () => now);
    const env = { PATH: dir };
    expect(() => cache.resolve('later', env, dir)).toThrow(CommandError);
    await writeFile(join(dir, 'later'), '#!/bin/sh\n');
    await chmod(join(dir, 'later'), 0o755);
    expect(cache.resolve('later', env, dir)).toBe(join(dir, 'later'));
  });

  it('keys on the working directory and PATH too', async () => {
    const cache = new CommandCache(1000, () => 0);
    expect(cache.resolve('later', { PATH: dir }, dir)).toBe(join(dir, 'later'));
    expect(() => cache.resolve('later', { PATH: join(dir, 'none') }, dir)).toThrow(CommandError);
  });
});
