/**
 * E2E: logs at scale, on the built binary, with the controller on a small V8 heap
 * (NODE_OPTIONS=--max-old-space-size=48, passed through by `iris cluster start`).
 * - a task printing 24 MB runs to the end under `iris run`, and `iris logs` gives back every byte;
 * - `--tail 3` reads from the end of the file, not the whole of it;
 * - `iris logs JOB | head -n 3` returns at once, quietly, and the controller stops reading;
 * - a job subtree's logs come merged and complete for each task (checksums);
 * - past `log-limit` the log ends with the cut marker and the attempt's record says so.
 * Before the format with time lines and the block-wise reader, each of these failed: the
 * controller read whole files into memory (V8 heap out of memory) and did not stop for a client
 * that went away.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { cutNote } from '../../src/logs/format.js';
import { BIN, type E2ECluster, cleanEnv, describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

/** 79 characters: with its newline an 80-byte line. */
const LINE = '0123456789'.repeat(7) + 'abcdefghi';
const BIG_BYTES = 24_000_000;
/** The task: BIG_BYTES of LINE lines, then a numbered last line so the end is recognisable. */
const BIG_TASK = `yes ${LINE} | head -c ${BIG_BYTES}; echo the-end`;
const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const expectedBig = (): string => sha(`${LINE}\n`.repeat(BIG_BYTES / 80) + 'the-end\n');

interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a shell script in which `iris` is the built CLI, against the cluster. */
function shell(c: E2ECluster, script: string, timeoutMs = 30_000): Promise<ShellResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `iris() { "$E2E_NODE" "$E2E_BIN" "$@"; }\n${script}`], {
      cwd: c.cwd,
      env: cleanEnv({ ...c.env, E2E_NODE: process.execPath, E2E_BIN: BIN }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `sh -c ${script} did not finish within ${timeoutMs} ms\nstdout: ${stdout.slice(0, 2000)}\nstderr: ` +
            `${stderr.slice(0, 2000)}`,
        ),
      );
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Bytes the process has read so far (any file or socket), from /proc/PID/io. */
function bytesRead(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^rchar:\s*(\d+)/m.exec(io)![1]);
}

/** The text of human log lines without their `HH:MM:SS.mmm task[attempt] ` prefix. */
const UNPREFIX = `sed -E 's/^[0-9:.]+ [^ ]+ //'`;

describe('logs at scale', () => {
  const c = withCluster({ config: CONFIG, noStart: true });
  let pid = 0;
  let logFile = '';

  beforeAll(async () => {
    const start = await c.iris(['cluster', 'start', '--detach'], {
      env: { NODE_OPTIONS: '--max-old-space-size=48' },
      timeoutMs: 30_000,
    });
    if (start.code !== 0) throw new Error(describeRun(['cluster', 'start'], start));
    pid = c.pid()!;
    // The log the read tests use, written without anyone following it.
    const big = await c.iris(['run', '--name', 'big', '--cpu', '0.5', '--no-stream', '--', 'sh', '-c', BIG_TASK], {
      timeoutMs: 60_000,
    });
    if (big.code !== 0) throw new Error(describeRun(['run', 'big'], big));
    logFile = `${c.home}/logs/big/@${(await c.job('/big')).run}/task-0/attempt-0.log`;
  }, 90_000);

  it('--tail 3 of the big log is right and reads only its end', async () => {
    const before = bytesRead(pid);
    const r = await c.iris(['logs', 'big', '--tail', '3']);
    const read = bytesRead(pid) - before;
    expect(r.code, describeRun(['logs', 'big', '--tail', '3'], r)).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .slice(0, -1)
        .map((l) => l.replace(/^[0-9:.]+ [^ ]+ /, '')),
    ).toEqual([LINE, LINE, 'the-end']);
    // The whole file is 24 MB; a backward scan reads the blocks at its end (plus the store, sockets).
    expect(read).toBeLessThan(4_000_000);
  }, 30_000);

  it('`iris logs JOB | head -n 3` returns at once, quietly, and the controller stops reading', async () => {
    const size = statSync(logFile).size;
    const before = bytesRead(pid);
    const r = await shell(c, '{ iris logs big; echo "iris exit: $?" >&2; } | head -n 3', 30_000);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    expect(r.stdout).toContain(LINE);
    expect(r.stderr.trim()).toBe('iris exit: 0');
    // The controller read a few blocks ahead of the client at most, not the 24 MB file.
    await c.iris(['status', 'big']); // one more request served: the stream's end has been handled
    const read = bytesRead(pid) - before;
    expect(read).toBeLessThan(size / 4);
  }, 30_000);

  it('a task printing 24 MB streams through `iris run` and reads back byte for byte', async () => {
    const run = await shell(
      c,
      `iris run --name streamed --cpu 0.5 -- sh -c '${BIG_TASK}' > run.out && ${UNPREFIX} run.out | sha256sum`,
      60_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split(' ')[0]).toBe(expectedBig());
    const logs = await shell(
      c,
      `iris logs streamed > logs.out && ${UNPREFIX} logs.out | sha256sum && rm run.out logs.out`,
      60_000,
    );
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout.split(' ')[0]).toBe(expectedBig());
    expect(c.pid()).toBe(pid); // the same controller, alive
    expect((await c.job('/streamed')).state).toBe('SUCCEEDED');
    // Proportionate on disk: 80-byte lines cost 81 bytes.
    expect(
      statSync(`${c.home}/logs/streamed/@${(await c.job('/streamed')).run}/task-0/attempt-0.log`).size,
    ).toBeLessThan(BIG_BYTES * 1.02);
  }, 90_000);

  it("a job subtree merges by time and every task's lines come complete", async () => {
    // Two replicas and a child job, each printing 40,000 numbered lines of its own.
    const lines = (tag: string) => `i=0; while [ $i -lt 40000 ]; do echo "${tag} $i"; i=$((i+1)); done`;
    const script = c.script(
      'tree.sh',
      [
        `${lines('r$IRIS_TASK_INDEX')}`,
        `if [ "$IRIS_TASK_INDEX" = 0 ]; then iris run --name kid --cpu 0.1 -- sh -c '${lines('kid')}' > /dev/null ` +
          `2>&1 || exit 1; fi`,
      ].join('\n'),
    );
    const r = await c.iris(
      ['run', '--name', 'tree', '--replicas', '2', '--cpu', '0.2', '--no-stream', '--', 'sh', script],
      { timeoutMs: 90_000 },
    );
    expect(r.code, describeRun(['run', 'tree'], r)).toBe(0);
    const expected = (tag: string) => sha(Array.from({ length: 40_000 }, (_, i) => `${tag} ${i}\n`).join(''));
    const per = await shell(
      c,
      `iris logs tree > tree.out && ` +
        ['task-0', 'task-1', 'kid/task-0']
          .map((t) => `grep -F ' ${t}[0] ' tree.out | ${UNPREFIX} | sha256sum`)
          .join(' && '),
      60_000,
    );
    expect(per.code, per.stderr).toBe(0);
    expect(
      per.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0]),
    ).toEqual([expected('r0'), expected('r1'), expected('kid')]);
    // Merged by time: the times of the merged output never go down.
    // ISO 8601 times of one format (`…T12:00:01.234Z`) sort as text in time order.
    const times = await shell(
      c,
      `iris logs tree --json | sed -E 's/^\\{"time":"([^"]+)",.*/\\1/' | LC_ALL=C sort -c && echo sorted`,
      60_000,
    );
    expect(times.stdout.trim(), times.stderr).toBe('sorted');
  }, 120_000);
});

describe('log limit', () => {
  const c = withCluster(CONFIG + 'log-limit: 1MiB\n', 40_000);

  it('past log-limit the log is cut with a marker, the task runs on, and the attempt records it', async () => {
    const r = await c.iris(
      [
        'run',
        '--name',
        'chatty',
        '--cpu',
        '0.2',
        '--no-stream',
        '--',
        'sh',
        '-c',
        `yes ${LINE} | head -c 5000000; echo done >&2`,
      ],
      { timeoutMs: 60_000 },
    );
    expect(r.code, describeRun(['run', 'chatty'], r)).toBe(0);
    const file = `${c.home}/logs/chatty/@${(await c.job('/chatty')).run}/task-0/attempt-0.log`;
    expect(statSync(file).size).toBeLessThan(1024 * 1024 + 4096);
    const tail = await c.iris(['logs', 'chatty', '--tail', '1']);
    expect(tail.stderr).toContain(cutNote(1024 * 1024));
    expect(tail.stderr).toContain('log cut at 1MiB: further output of this attempt was dropped');
    const job = await c.json<JobDetail>(['status', 'chatty']);
    expect(job.taskList[0]!.attempts[0]!.logCutBytes).toBe(1024 * 1024);
    const human = await c.iris(['status', 'chatty']);
    expect(human.stdout).toMatch(/log cut at 1MiB/);
  }, 90_000);
});
