/**
 * The server's log stream over a real store and real log files; the safety poll is set to a minute so only store events
 * and fs.watch can wake a follower.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatLines } from '../../src/logs/format.js';
import { batchLines } from '../../src/api/log-batch.js';
import { streamLogs } from '../../src/server/log-stream.js';
import type { LogBatch, LogLine, LogQuery } from '../../src/api/types.js';
import type { ClusterStore } from '../../src/cluster/state/store.js';
import { memStore, spec } from '../cluster/state/helpers.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-logstream-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const logPath = (task: string, attempt: number) =>
  join(dir, ...task.split('/').filter(Boolean), `attempt-${attempt}.log`);

/** Assign and start a task with its log file path under the temp dir (directory created). */
async function startTask(store: ClusterStore, task: string): Promise<string> {
  const attempt = store.task(task)!.attempt;
  const path = logPath(task, attempt);
  await mkdir(join(path, '..'), { recursive: true });
  store.assign(task, 'w1', path);
  store.markRunning(task, attempt, 4242);
  return path;
}

const line = (time: number, text: string, tag: 'o' | 'e' = 'o') => formatLines(time, tag, [text]);
const texts = (lines: LogLine[]) => lines.map((l) => l.text);

async function all(store: ClusterStore, query: LogQuery): Promise<LogLine[]> {
  const out: LogLine[] = [];
  for await (const batch of streamLogs(store, query, new AbortController().signal, { safetyPollMs: 60_000 }))
    out.push(...batchLines(batch));
  return out;
}

/** The texts of the next batches until `count` lines came (or the stream ended). */
async function take(it: AsyncIterator<LogBatch>, count: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const next = await it.next();
    if (next.done) break;
    for (const l of batchLines(next.value)) out.push(l.text);
  }
  return out;
}

describe('streamLogs', () => {
  it('merges a job subtree by time, with tail, since and attempt', async () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    store.submit(spec('/a/b'));
    const pa = await startTask(store, '/a/task-0');
    const pb = await startTask(store, '/a/b/task-0');
    await writeFile(pa, line(1, 'a1') + line(4, 'a4'));
    await writeFile(pb, line(2, 'b2', 'e') + line(3, 'b3'));
    const lines = await all(store, { target: '/a' });
    expect(texts(lines)).toEqual(['a1', 'b2', 'b3', 'a4']);
    expect(lines[1]).toEqual({ time: 2, task: '/a/b/task-0', attempt: 0, stream: 'stderr', text: 'b2' });
    expect(texts(await all(store, { target: '/a', tail: 2 }))).toEqual(['b3', 'a4']);
    expect(texts(await all(store, { target: '/a', since: 3 }))).toEqual(['b3', 'a4']);
    expect(texts(await all(store, { target: '/a/b/task-0' }))).toEqual(['b2', 'b3']);
    expect(texts(await all(store, { target: '/a', attempt: 1 }))).toEqual([]);
  });

  it('tail of a subtree: the merged last N lines, found from the ends of big files', async () => {
    const { store } = memStore();
    store.submit(spec('/a'));
    store.submit(spec('/a/b'));
    const pa = await startTask(store, '/a/task-0');
    const pb = await startTask(store, '/a/b/task-0');
    // Two files of ~2 MB each (many blocks), interleaved in time; b's lines are odd times, a's even.
    const n = 40_000;
    await writeFile(pa, Array.from({ length: n }, (_, i) => line(2 * i, `a${i} ${'x'.repeat(40)}`)).join(''));
    await writeFile(pb, Array.from({ length: n }, (_, i) => line(2 * i + 1, `b${i} ${'y'.repeat(40)}`)).join(''));
    const last = await all(store, { target: '/a', tail: 5 });
    expect(last.map((l) => l.text.split(' ')[0])).toEqual([
      `b${n - 3}`,
      `a${n - 2}`,
      `b${n - 2}`,
      `a${n - 1}`,
      `b${n - 1}`,
    ]);
    const whole = await all(store, { target: '/a' });
    expect(whole).toHaveLength(2 * n);
    expect(whole.every((l, i) => l.time === i)).toBe(true);
  });

  it('equal times keep the order of the files and of the lines within each file', async () => {
    const { store } = memStore();
    store.submit(spec('/a', { replicas: 3 }));
    const paths = [
      await startTask(store, '/a/task-0'),
      await startTask(store, '/a/task-1'),
      await startTask(store, '/a/task-2'),
    ];
    for (const [k, p] of paths.entries())
      await writeFile(p, formatLines(7, 'o', [`${k}-1`, `${k}-2`]) + formatLines(8, 'o', [`${k}-3`]));
    expect(texts(await all(store, { target: '/a' }))).toEqual([
      '0-1',
      '0-2',
      '1-1',
      '1-2',
      '2-1',
      '2-2',
      '0-3',
      '1-3',
      '2-3',
    ]);
  });

  it('unknown targets are not found', async () => {
    const { store } = memStore();
    await expect(all(store, { target: '/nope' })).rejects.toThrow('unknown job /nope');
    store.submit(spec('/a'));
    // As `iris status /a/task-3` says it (server/task-ops.ts noSuchTask).
    await expect(all(store, { target: '/a/task-3' })).rejects.toMatchObject({
      message: 'job /a has no task-3',
      hint: expect.stringMatching(/^it has 1 task: task-0; /),
    });
  });

  it('follows appends, retries and later children, and ends with the tree', async () => {
    const { store } = memStore();
    store.submit(spec('/j', { maxRetries: 1 }));
    const p0 = await startTask(store, '/j/task-0');
    await writeFile(p0, line(1, 'first'));
    const it = streamLogs(store, { target: '/j', follow: true }, new AbortController().signal, {
      safetyPollMs: 60_000,
    });
    expect(await take(it, 1)).toEqual(['first']);
    await appendFile(p0, line(2, 'appended'));
    expect(await take(it, 1)).toEqual(['appended']);
    // A retry: the attempt ends, a new one starts and writes.
    store.finishAttempt('/j/task-0', 0, { kind: 'exited', exitCode: 1 });
    const p1 = await startTask(store, '/j/task-0');
    await writeFile(p1, line(3, 'retry'));
    expect(await take(it, 1)).toEqual(['retry']);
    // A child submitted later.
    store.submit(spec('/j/child'));
    const pc = await startTask(store, '/j/child/task-0');
    await writeFile(pc, line(4, 'child'));
    expect(await take(it, 1)).toEqual(['child']);
    // The tree ends: the unterminated last line comes too, then the stream ends.
    await appendFile(pc, 't5\nono newline');
    store.finishAttempt('/j/child/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/j/task-0', 1, { kind: 'exited', exitCode: 0 });
    expect(await take(it, 2)).toEqual(['no newline']);
    expect((await it.next()).done).toBe(true);
  });

  it('stops when the signal aborts and leaves no store listener behind', async () => {
    const { store } = memStore();
    store.submit(spec('/j'));
    await startTask(store, '/j/task-0');
    const listeners = store.events.listenerCount('change');
    const ac = new AbortController();
    const it = streamLogs(store, { target: '/j', follow: true }, ac.signal, { safetyPollMs: 60_000 });
    const next = it.next();
    setTimeout(() => ac.abort(), 20);
    expect((await next).done).toBe(true);
    expect(store.events.listenerCount('change')).toBe(listeners);
  });
});
