import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirWatches, Wakeup } from '../../src/logs/wake.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-wake-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const never = new AbortController().signal;

describe('Wakeup', () => {
  it('a poke wakes the current wait', async () => {
    const wakeup = new Wakeup();
    const waiting = wakeup.wait(never, 60_000);
    wakeup.poke();
    await waiting;
  });

  it('keeps a poke that came while nobody waited, once', async () => {
    const wakeup = new Wakeup();
    wakeup.poke();
    wakeup.poke();
    await wakeup.wait(never, 60_000);
    let woke = false;
    const second = wakeup.wait(never, 30).then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(woke).toBe(false);
    await second;
  });

  it('clear() forgets earlier pokes', async () => {
    const wakeup = new Wakeup();
    wakeup.poke();
    wakeup.clear();
    const started = Date.now();
    await wakeup.wait(never, 40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
  });

  it('returns on abort and after the safety interval', async () => {
    const wakeup = new Wakeup();
    const ac = new AbortController();
    const waiting = wakeup.wait(ac.signal, 60_000);
    ac.abort();
    await waiting;
    await wakeup.wait(never, 1);
  });
});

describe('DirWatches', () => {
  it('pokes when a file in a watched directory is created or grows, and retries a missing directory', async () => {
    const wakeup = new Wakeup();
    const watches = new DirWatches(wakeup.poke);
    const sub = join(dir, 'later');
    const file = join(sub, 'attempt-0.log');
    try {
      watches.watchFilesIn([file]); // the directory does not exist yet: nothing watched
      await mkdir(sub);
      watches.watchFilesIn([file]);
      wakeup.clear();
      const created = wakeup.wait(never, 60_000);
      await writeFile(file, 'x\n');
      await created;
      wakeup.clear();
      const grown = wakeup.wait(never, 60_000);
      await writeFile(file, 'x\ny\n', { flag: 'a' });
      await grown;
    } finally {
      watches.close();
    }
  });
});
