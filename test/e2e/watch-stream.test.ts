/**
 * E2E: `iris watch --stream` on the built binary against a real cluster, read through a pipe as
 * a script would: plain `iris watch` with stdout not a terminal streams by default; it lists the
 * unfinished jobs, then prints one line per state change — a job submitted later shows
 * `(new) → PENDING`, `PENDING → RUNNING`, `RUNNING → SUCCEEDED` in that order, its task too —
 * and Ctrl-C (SIGINT) ends it with exit 130 and nothing on stderr. With --json each change is one
 * JSON object per line, and a reader that goes away (EPIPE) ends it quietly with exit 0. A
 * cluster that stops ends it with exit 6 and a hint.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BIN, type E2ECluster, cleanEnv, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 1, memory: 2GiB}
`;

interface Watcher {
  child: ChildProcessByStdio<null, Readable, Readable>;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the index of the first line (from `from`) matching `pattern`; bounded. */
  line: (pattern: RegExp, from?: number) => Promise<number>;
}

function watch(c: E2ECluster, args: string[]): Watcher {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], {
    cwd: c.cwd,
    env: cleanEnv(c.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let held = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (held + chunk).split('\n');
    held = parts.pop()!;
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = (pattern: RegExp, from = 0) =>
    new Promise<number>((resolve, reject) => {
      const check = () => {
        const at = lines.findIndex((text, i) => i >= from && pattern.test(text));
        if (at < 0) return;
        clear();
        resolve(at);
      };
      const timer = setTimeout(() => {
        clear();
        reject(new Error(`no line matching ${pattern} within 20 s; stdout:\n${lines.join('\n')}\nstderr: ${err}`));
      }, 20_000);
      const clear = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { child, lines, stderr: () => err, exited, line };
}

describe('iris watch --stream', () => {
  const c = withCluster(CONFIG, 60_000);

  it('piped, prints PENDING → RUNNING → SUCCEEDED of a job in order and exits 130 on SIGINT', async () => {
    const blocker = c.gate('blocker');
    const target = c.gate('target');
    await c.client.submit({ name: 'blocker', command: ['sh', '-c', blocker.hold], cpu: 1 });
    await c.waitForState('/blocker', 'RUNNING');

    const w = watch(c, []);
    // The opening listing: the stream is subscribed once the running job is listed.
    await w.line(/^\d\d:\d\d:\d\d\.\d{3}  \/blocker  RUNNING$/);
    await c.client.submit({ name: 'target', command: ['sh', '-c', target.hold], cpu: 1 });
    const pending = await w.line(/  \/target  \(new\) → PENDING$/);
    blocker.open();
    const running = await w.line(/  \/target  PENDING → RUNNING$/);
    target.open();
    const done = await w.line(/  \/target  RUNNING → SUCCEEDED$/);
    expect(pending).toBeLessThan(running);
    expect(running).toBeLessThan(done);
    // Its task's changes are there too, in order, and the blocker's end.
    const taskRunning = await w.line(/  \/target\/task-0  \S+ → RUNNING$/);
    await w.line(/  \/target\/task-0  RUNNING → SUCCEEDED$/, taskRunning);
    await w.line(/  \/blocker  RUNNING → SUCCEEDED$/);
    // Each job state change is printed once.
    expect(w.lines.filter((l) => / \/target  PENDING → RUNNING$/.test(l))).toHaveLength(1);

    w.child.kill('SIGINT');
    const end = await w.exited;
    expect(end).toEqual({ code: 130, signal: null });
    expect(w.stderr()).toBe('');
  }, 60_000);

  it('--json prints one object per change and ends quietly with exit 0 when the reader goes away', async () => {
    const gate = c.gate('json');
    await c.client.submit({ name: 'shown', command: ['sh', '-c', gate.hold], cpu: 1 });
    await c.waitForState('/shown', 'RUNNING');
    const w = watch(c, ['--stream', '--json']);
    const listed = JSON.parse(w.lines[await w.line(/"name":"\/shown"/)]!) as Record<string, unknown>;
    expect(listed).toMatchObject({ type: 'job', name: '/shown', previous: null, state: 'RUNNING', initial: true });
    gate.open();
    const at = await w.line(/"name":"\/shown","previous":"RUNNING","state":"SUCCEEDED"/);
    const change = JSON.parse(w.lines[at]!) as Record<string, unknown>;
    expect(change).toMatchObject({
      type: 'job',
      name: '/shown',
      previous: 'RUNNING',
      state: 'SUCCEEDED',
      reason: null,
    });
    expect(change.initial).toBeUndefined();
    expect(typeof change.time).toBe('string');
    expect(Number.isNaN(Date.parse(String(change.time)))).toBe(false);
    for (const text of w.lines) JSON.parse(text);

    // The reader goes away; the next change the watcher writes meets EPIPE and ends it.
    w.child.stdout.destroy();
    await c.client.submit({ name: 'more', command: ['true'], cpu: 0.1 });
    const end = await w.exited;
    expect(end).toEqual({ code: 0, signal: null });
    expect(w.stderr()).toBe('');
  }, 60_000);

  // Last: it stops the cluster.
  it('ends with exit 6 and a hint when the cluster stops', async () => {
    const gate = c.gate('last');
    await c.client.submit({ name: 'last', command: ['sh', '-c', gate.hold], cpu: 1 });
    await c.waitForState('/last', 'RUNNING');
    const w = watch(c, ['--stream']);
    await w.line(/  \/last  RUNNING$/);
    const stop = await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 });
    expect(stop.code).toBe(0);
    const end = await w.exited;
    expect(end).toEqual({ code: 6, signal: null });
    expect(w.stderr()).toMatch(/^Error: the iris cluster closed the stream of state changes \(it stopped\)\nHint: /);
  }, 60_000);
});
