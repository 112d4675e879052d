/**
 * `iris run` inside and outside a task (docs/cli.md, "iris run"): outside it streams the job's
 * log lines; inside a task it prints one line when the job ends instead (so `iris logs ROOT`
 * shows each line once), `--stream` brings the lines back; exit codes are the same either way.
 * The command runs for real against a stand-in client (submit, logs, wait, cancel).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { JobDetail, LogBatch, TaskInfo } from '../../src/api/types.js';
import type { ConnectedClient } from '../../src/client/connect.js';
import Run from '../../src/commands/run.js';
import { formatBelowOutcome, formatJobOutcome } from '../../src/ui/job-outcome.js';
import { job as summary } from '../ui/fixtures.js';
import { captureCommand } from '../helpers/capture-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const T = Date.UTC(2025, 0, 2, 12, 0, 0);

function task(index: number, extra: Partial<TaskInfo> = {}): TaskInfo {
  return {
    id: `/demo/eval/task-${index}`,
    index,
    state: 'SUCCEEDED',
    attempt: 0,
    workerId: 'w0',
    exitCode: 0,
    reason: null,
    failures: 0,
    preemptions: 0,
    startedAt: T,
    finishedAt: T + 1000,
    attempts: [],
    ...extra,
  };
}

function detail(state: JobDetail['state'], tasks: TaskInfo[], reason: string | null = null): JobDetail {
  return {
    ...summary('/demo/eval', { state, reason, finishedAt: T + 1000 }),
    command: ['sh', 'eval.sh'],
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 100,
    timeoutMs: null,
    schedulingTimeoutMs: null,
    resources: { cpu: 1, memoryBytes: 0, device: 'cpu' },
    taskList: tasks,
    children: [],
  } as JobDetail;
}

const LINE: LogBatch = {
  task: '/demo/eval/task-0',
  attempt: 0,
  stream: 'stdout',
  times: [T, 1],
  text: 'child says hi',
};

/** The run command with a stand-in client and a chosen environment. */
function runWith(env: NodeJS.ProcessEnv, final: JobDetail) {
  const calls = { logs: 0, wait: 0 };
  const client = {
    submit: async () => ({ name: final.name }),
    logBatches: (_query: unknown, _signal?: AbortSignal) => {
      calls.logs++;
      return (async function* () {
        yield LINE;
      })();
    },
    wait: async () => {
      calls.wait++;
      return final;
    },
    cancel: async () => [],
  } as unknown as ConnectedClient;
  class TestRun extends Run {
    static override id = 'run';
    protected override get env(): NodeJS.ProcessEnv {
      return env;
    }
    protected override async clusterClient(): Promise<ConnectedClient> {
      return client;
    }
  }
  return { TestRun, calls };
}

const capture = captureCommand;

/** stderr without the `submitted NAME` line (oclif's logToStderr writes it, not process.stderr.write). */
const withoutSubmitted = (text: string) => text.replace(/^submitted \S+\n/m, '');

const INSIDE = { IRIS_TASK_TOKEN: 'tok', IRIS_TASK_ID: '/demo/task-0', IRIS_CONTROLLER_ADDRESS: '/nowhere.sock' };
const ARGS = ['--name', 'eval', '--', 'sh', 'eval.sh'];

describe('iris run', () => {
  afterEach(() => vi.restoreAllMocks());

  it('outside a task streams the log lines and prints no summary', async () => {
    const { TestRun, calls } = runWith({}, detail('SUCCEEDED', [task(0)]));
    const r = await capture(() => TestRun.run(ARGS, root));
    expect(r.exit).toBe(0);
    expect(calls.logs).toBe(1);
    expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} task-0\[0\] child says hi\n$/);
    expect(withoutSubmitted(r.stderr)).toBe('');
  });

  it('inside a task prints one line when the job ends, and no log lines', async () => {
    const { TestRun, calls } = runWith(INSIDE, detail('SUCCEEDED', [task(0)]));
    const r = await capture(() => TestRun.run(ARGS, root));
    expect(r.exit).toBe(0);
    expect(calls.logs).toBe(0);
    expect(calls.wait).toBe(1);
    expect(r.stdout).toBe('');
    expect(withoutSubmitted(r.stderr)).toBe('iris: /demo/eval SUCCEEDED\n');
  });

  it('inside a task a failed child gives its exit code in the line and exit 1', async () => {
    const failed = detail(
      'FAILED',
      [task(0, { state: 'FAILED', exitCode: 3 })],
      'task /demo/eval/task-0 failed (exit 3)',
    );
    const { TestRun } = runWith(INSIDE, failed);
    const r = await capture(() => TestRun.run(ARGS, root));
    expect(r.exit).toBe(1);
    expect(withoutSubmitted(r.stderr)).toBe('iris: /demo/eval FAILED (exit 3)\n');
  });

  it('inside a task --stream streams as outside; --no-stream outside prints the summary', async () => {
    const inside = runWith(INSIDE, detail('SUCCEEDED', [task(0)]));
    const streamed = await capture(() => inside.TestRun.run(['--stream', ...ARGS], root));
    expect(streamed.exit).toBe(0);
    expect(inside.calls.logs).toBe(1);
    expect(streamed.stdout).toContain('task-0[0] child says hi');
    expect(withoutSubmitted(streamed.stderr)).toBe('');

    const outside = runWith({}, detail('SUCCEEDED', [task(0)]));
    const quiet = await capture(() => outside.TestRun.run(['--no-stream', ...ARGS], root));
    expect(outside.calls.logs).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(withoutSubmitted(quiet.stderr)).toBe('iris: /demo/eval SUCCEEDED\n');
  });

  it('inside a task with --json prints the final job on stdout and the line on stderr', async () => {
    const failed = detail(
      'FAILED',
      [task(0, { state: 'FAILED', exitCode: 2 })],
      'task /demo/eval/task-0 failed (exit 2)',
    );
    const { TestRun } = runWith(INSIDE, failed);
    const r = await capture(() => TestRun.run(['--json', ...ARGS], root));
    expect(r.exit).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: '/demo/eval', state: 'FAILED' });
    expect(withoutSubmitted(r.stderr)).toBe('iris: /demo/eval FAILED (exit 2)\n');
  });
});

describe('the line for an ended child job', () => {
  it('names the failing task of a multi-task job, else gives the reason', () => {
    expect(formatJobOutcome(detail('FAILED', [task(0), task(1, { state: 'FAILED', exitCode: 7 })]))).toBe(
      'iris: /demo/eval FAILED (task-1 exit 7)',
    );
    expect(
      formatJobOutcome(
        detail('FAILED', [task(0, { state: 'FAILED', exitCode: null })], 'task /demo/eval/task-0 failed (time-limit)'),
      ),
    ).toBe('iris: /demo/eval FAILED: task /demo/eval/task-0 failed (time-limit)');
    expect(
      formatJobOutcome(
        detail('UNSCHEDULABLE', [task(0, { state: 'UNSCHEDULABLE', exitCode: null })], 'scheduling timeout'),
      ),
    ).toBe('iris: /demo/eval UNSCHEDULABLE: scheduling timeout');
    expect(formatJobOutcome(detail('KILLED', [task(0, { state: 'KILLED', exitCode: null })]))).toBe(
      'iris: /demo/eval KILLED',
    );
  });

  it('names a job below a succeeded one that did not succeed, then how many more, then the job itself', () => {
    const root = summary('/demo', { state: 'SUCCEEDED' });
    const child = detail('FAILED', [task(0, { state: 'FAILED', exitCode: 5 })]);
    expect(formatBelowOutcome(root, child, 0)).toBe('iris: /demo/eval FAILED (exit 5); /demo itself SUCCEEDED');
    expect(formatBelowOutcome(root, child, 2)).toBe(
      'iris: /demo/eval FAILED (exit 5), and 2 more jobs below /demo did not succeed; /demo itself SUCCEEDED',
    );
  });
});
