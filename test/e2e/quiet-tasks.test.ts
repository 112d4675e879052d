/**
 * E2E (issue 36): a task that prints nothing costs nothing on disk. Quiet one-task jobs of `true`
 * run on a real cluster; the entries under the state directory are counted (files and
 * directories): after the first batch they do not grow with the number of tasks (no log, spool,
 * status or result directory per task). The readers of a quiet task's missing log answer as for
 * an empty one: `iris logs`, `iris logs -f`, `iris results`, `iris history --attempts`, the
 * logs route the dashboard proxies (/v1/logs), and `iris prune`. A task that talks, or writes a
 * result, still gets its log and result file.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 8
    memory: 4GiB
`;

/** Entries (files and directories) under `dir`, and their bytes on disk (blocks). */
function census(dir: string): { entries: number; bytes: number; paths: string[] } {
  const out = { entries: 0, bytes: 0, paths: [] as string[] };
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      const st = lstatSync(full);
      out.entries++;
      out.bytes += st.blocks * 512;
      out.paths.push(path.relative(dir, full));
      if (st.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

/** What lies under logs/ and spool/: what tasks leave behind. */
const taskTraces = (home: string) => {
  const logs = census(path.join(home, 'logs'));
  let spool = { entries: 0, bytes: 0, paths: [] as string[] };
  try {
    spool = census(path.join(home, 'spool'));
  } catch {
    // never made
  }
  return { entries: logs.entries + spool.entries, paths: [...logs.paths, ...spool.paths] };
};

describe('quiet tasks on disk', () => {
  const c = withCluster(CONFIG, 60_000);

  /** `count` one-task jobs of `true` submitted by 4 clients at once; waits for all of them. */
  async function runQuiet(prefix: string, count: number): Promise<string[]> {
    const names = Array.from({ length: count }, (_, i) => `/${prefix}-${i}`);
    const clients = Array.from({ length: 4 }, () => new SocketClient({ socketPath: c.socket, env: {} }));
    await Promise.all(
      clients.map(async (client, k) => {
        for (let i = k; i < count; i += clients.length)
          await client.submit({ name: names[i]!, command: ['true'], cpu: 1, memory: '16M' });
      }),
    );
    for (const name of names) await c.waitForState(name, 'SUCCEEDED', { timeoutMs: 60_000 });
    return names;
  }

  it('leaves no file or directory per quiet task: the state directory does not grow with the tasks', async () => {
    await runQuiet('warm', 5);
    const before = census(c.home).entries;
    await runQuiet('quiet', 40);
    // Old layout: 5 directories and a status file per task (240 entries for 40 tasks). The empty
    // directories go right after each end is recorded, in the background (logs/files.ts).
    await waitUntil(
      'no file or directory left by quiet tasks',
      async () => taskTraces(c.home).paths,
      (p) => p.length === 0,
      {
        timeoutMs: 10_000,
      },
    );
    const after = census(c.home);
    expect(after.entries, after.paths.join('\n')).toBeLessThanOrEqual(before);
  }, 120_000);

  it("reads a quiet task's missing log as empty: logs, logs -f, results, history, the logs route", async () => {
    const [job] = await runQuiet('silent', 1);
    await waitUntil(
      'its directories gone',
      async () => taskTraces(c.home).paths,
      (p) => p.length === 0,
      {
        timeoutMs: 10_000,
      },
    );
    for (const args of [
      ['logs', job!],
      ['logs', '-f', job!],
      ['results', job!],
      ['history', '--attempts', job!],
    ]) {
      const r = await c.iris(args, { timeoutMs: 30_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stderr, describeRun(args, r)).toBe('');
      if (args[0] === 'logs') expect(r.stdout).toBe('');
    }
    expect(await c.logs(job!)).toEqual([]);
    expect(await c.logs(`${job}/task-0`, { attempt: 0 })).toEqual([]);
  }, 60_000);

  it('keeps the log and result file of a task that writes them; prune removes them', async () => {
    const talker = await c.submit(
      ['--name', 'talker'],
      ['sh', '-c', 'echo hello; echo \'{"k":"v"}\' >"$IRIS_RESULT_FILE"'],
    );
    await c.waitForState(talker, 'SUCCEEDED');
    expect((await c.logs(talker)).map((l) => l.text)).toEqual(['hello']);
    const results = await c.json<unknown>(['results', talker]);
    expect(JSON.stringify(results)).toContain('"v"');
    expect(taskTraces(c.home).paths.sort()).toEqual(
      [
        'talker',
        'talker/@' + (await c.job(talker)).run,
        `talker/@${(await c.job(talker)).run}/task-0`,
        `talker/@${(await c.job(talker)).run}/task-0/attempt-0.d`,
        `talker/@${(await c.job(talker)).run}/task-0/attempt-0.d/result.json`,
        `talker/@${(await c.job(talker)).run}/task-0/attempt-0.log`,
      ].sort(),
    );
    const prune = await c.iris(['prune', '--older-than', '1ms', '--json'], { timeoutMs: 30_000 });
    expect(prune.code, describeRun(['prune'], prune)).toBe(0);
    await waitUntil(
      'the pruned run gone',
      async () => taskTraces(c.home).paths,
      (p) => p.length === 0,
      {
        timeoutMs: 10_000,
      },
    );
  }, 60_000);
});
