/**
 * E2E: outages of the controller do not re-run finished work, and nothing a task starts escapes
 * supervision (issue 11, section 6).
 *
 * (a) `kill -9` of the controller while N short tasks run; they finish while it is down; after a
 *     restart each job ran exactly once (a per-job marker file counts runs), keeps its exit code,
 *     and every output line is in its log, the last one (written without a newline) included.
 * (b) `setsid` children that ignore SIGTERM, with and without `env -i`: cancel, `cluster stop`
 *     and a restart after `kill -9` leave none of them running (checked in /proc).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type E2ECluster,
  describeRun,
  isRunning,
  marker,
  pidsWithMarker,
  waitUntil,
  killMarked,
  withCluster,
} from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 16, memory: 8GiB}
`;

const tags: string[] = [];

function killAll(): void {
  for (const tag of tags) {
    killMarked(tag);
  }
}

async function killController(c: E2ECluster): Promise<void> {
  const pid = c.pid()!;
  process.kill(pid, 'SIGKILL');
  await waitUntil(
    'the controller to die',
    async () => isRunning(pid),
    (alive) => !alive,
  );
}

describe('controller outages', () => {
  const c = withCluster(CONFIG);
  afterAll(async () => {
    killAll();
  });

  it('tasks that finish while the controller is down keep their exit and output and do not run again', async () => {
    const tag = marker('outage');
    tags.push(tag);
    const gate = c.gate('outage');
    const N = 10;
    // Each run appends one line to its job's marker file; the last log line has no newline.
    const script = c.script(
      'short.sh',
      [
        'echo "start $1"',
        gate.hold,
        `echo run >> '${c.cwd}'/runs-"$1"`,
        'i=1; while [ $i -le 200 ]; do echo "line $i of $1"; i=$((i+1)); done',
        'echo "to stderr $1" >&2',
        'printf "last %s" "$1"',
        'exit $(($1 % 3))',
      ].join('\n'),
    );
    for (let i = 0; i < N; i++)
      await c.submit(['--name', `short-${i}`, '--cpu', '0.1', '--max-retries', '0'], ['sh', script, String(i), tag]);
    for (let i = 0; i < N; i++) await c.waitForLog(`/short-${i}`, `start ${i}`);

    await killController(c);
    gate.open();
    // Every task finishes on its own while no controller runs.
    await waitUntil(
      'the tasks to finish without a controller',
      async () => pidsWithMarker(tag).length,
      (n) => n === 0,
      { timeoutMs: 20_000 },
    );
    for (let i = 0; i < N; i++) expect(existsSync(path.join(c.cwd, `runs-${i}`)), `job ${i} ran`).toBe(true);

    const restart = await c.iris(['cluster', 'start', '--detach']);
    expect(restart.code, describeRun(['cluster', 'start', '--detach'], restart)).toBe(0);
    for (let i = 0; i < N; i++) {
      const job = await c.waitForState(`/short-${i}`, ['SUCCEEDED', 'FAILED']);
      const task = job.taskList[0]!;
      expect(
        task.attempts.map((a) => [a.attempt, a.state, a.exitCode]),
        `job ${i}`,
      ).toEqual([[0, i % 3 === 0 ? 'SUCCEEDED' : 'FAILED', i % 3]]);
      expect(job.state).toBe(i % 3 === 0 ? 'SUCCEEDED' : 'FAILED');
      expect(readFileSync(path.join(c.cwd, `runs-${i}`), 'utf8'), `runs of job ${i}`).toBe('run\n');
      const texts = (await c.logs(`/short-${i}`)).map((l) => l.text);
      const want = [
        `start ${i}`,
        ...Array.from({ length: 200 }, (_, k) => `line ${k + 1} of ${i}`),
        `to stderr ${i}`,
        `last ${i}`,
      ];
      for (const line of want) expect(texts, `log of job ${i}`).toContain(line);
      expect(texts.filter((t) => t === `line 200 of ${i}`)).toHaveLength(1);
    }
  }, 120_000);

  describe('a setsid child, with and without env -i, is stopped with its task', () => {
    const escaper = (c: E2ECluster): string =>
      c.script(
        'escape.sh',
        [
          // $1: a marker; both children ignore SIGTERM and leave the task's process group.
          `setsid sh -c 'trap "" TERM HUP; while :; do sleep 1; done' "$1-setsid" &`,
          `env -i /bin/sh -c 'setsid sh -c "trap \\"\\" TERM HUP; while :; do sleep 1; done" "$0"' "$1-envi" &`,
          'echo ready',
          // "exit": end once the test has seen both children; "wait": run until stopped.
          `if [ "$2" = wait ]; then while :; do sleep 1; done; else while [ ! -f '${c.cwd}'/go-"$1" ]; do sleep ` +
            `0.05; done; fi`,
        ].join('\n'),
      );

    async function startEscaper(name: string, mode: 'wait' | 'exit'): Promise<string> {
      const tag = marker(`escape-${name}`);
      tags.push(tag);
      await c.submit(['--name', name, '--cpu', '0.1', '--max-retries', '0'], ['sh', escaper(c), tag, mode]);
      await c.waitForLog(`/${name}`, 'ready');
      await waitUntil(
        `both setsid children of ${name}`,
        async () => [pidsWithMarker(`${tag}-setsid`), pidsWithMarker(`${tag}-envi`)],
        ([a, b]) => a.length > 0 && b.length > 0,
      );
      return tag;
    }

    const gone = (tag: string, what: string): Promise<number[]> =>
      waitUntil(
        `no process of ${what} left`,
        async () => pidsWithMarker(tag),
        (pids) => pids.length === 0,
        { timeoutMs: 5_000 },
      );

    it('when the task exits on its own', async () => {
      const tag = await startEscaper('esc-exit', 'exit');
      writeFileSync(path.join(c.cwd, `go-${tag}`), '');
      await c.waitForState('/esc-exit', 'SUCCEEDED');
      await gone(tag, 'a finished task');
    }, 30_000);

    it('on cancel', async () => {
      const tag = await startEscaper('esc-cancel', 'wait');
      const r = await c.iris(['cancel', 'esc-cancel']);
      expect(r.code, describeRun(['cancel', 'esc-cancel'], r)).toBe(0);
      await c.waitForState('/esc-cancel', 'KILLED');
      await gone(tag, 'a cancelled task');
    }, 30_000);

    it('on cluster stop', async () => {
      const tag = await startEscaper('esc-stop', 'wait');
      const r = await c.iris(['cluster', 'stop'], { timeoutMs: 30_000 });
      expect(r.code, describeRun(['cluster', 'stop'], r)).toBe(0);
      await gone(tag, 'a stopped cluster');
      await c.start();
    }, 60_000);

    it('on a restart after kill -9', async () => {
      const tag = await startEscaper('esc-crash', 'wait');
      await killController(c);
      const before = pidsWithMarker(tag);
      expect(pidsWithMarker(`${tag}-envi`).length).toBeGreaterThan(0);
      await c.start();
      // Reclaiming happens before the socket answers: nothing of attempt 0 is left (attempt 1,
      // the preempted task's rerun, starts the same script afresh).
      expect(before.filter((pid) => isRunning(pid))).toEqual([]);
      const rerun = await c.waitForJob('/esc-crash', (j) => j.taskList[0]!.attempts.length === 2, 'a second attempt');
      expect(rerun.taskList[0]!.attempts[0]!.state).toBe('PREEMPTED');
      const r = await c.iris(['cancel', 'esc-crash']);
      expect(r.code, describeRun(['cancel', 'esc-crash'], r)).toBe(0);
      await gone(tag, 'a cancelled rerun');
    }, 60_000);
  });
});
