/**
 * E2E: task results on the built binary. A task publishes with `iris result set` or by writing
 * $IRIS_RESULT_FILE; `iris results JOB` lists them (table; --json in full); bad keys and values
 * are refused naming the argument; outside a task `result set` is refused with a hint; a task
 * reads the results of its own tree (a sibling stage) but not of another tree, and can set only
 * its own; an invalid result file leaves the task's exit state as it was, with a reason note;
 * an older run's results stay readable as NAME@RUN, also with the cluster stopped.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, ResultsResponse } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

const plain = (answer: ResultsResponse) => answer.results.map((r) => [r.task, r.key, r.value]);

describe('task results', () => {
  const c = withCluster(CONFIG);
  let firstRun = 0;

  it(
    'a task sets a result with iris result set, another writes $IRIS_RESULT_FILE; iris results shows ' + 'both',
    async () => {
      const script = c.script(
        'train.sh',
        [
          'if [ "$IRIS_TASK_INDEX" = 0 ]; then',
          '  iris result set checkpoint /tmp/x || exit 11',
          '  iris result set checkpoint /tmp/ckpt-0 || exit 12', // a later set overwrites
          'else',
          `  printf '{"loss": "0.25", "note": "line one\\\\nline two"}' > "$IRIS_RESULT_FILE" || exit 13`,
          'fi',
        ].join('\n'),
      );
      const run = await c.iris(['run', '--name', 'train', '--replicas', '2', '--cpu', '0.1', '--', 'sh', script]);
      expect(run.code, describeRun(['run'], run)).toBe(0);

      const answer = await c.json<ResultsResponse>(['results', 'train']);
      firstRun = answer.run;
      expect(answer.job).toBe('/train');
      expect(plain(answer)).toEqual([
        ['/train/task-0', 'checkpoint', '/tmp/ckpt-0'],
        ['/train/task-1', 'loss', '0.25'],
        ['/train/task-1', 'note', 'line one\nline two'],
      ]);
      expect(answer.results[0]!.attempt).toBe(0);
      expect(answer.results[0]!.setAt).toMatch(/^\d{4}-\d\d-\d\dT/); // --json shows times as ISO

      const table = await c.iris(['results', 'train']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^TASK\s+KEY\s+VALUE$/);
      expect(lines[1]).toMatch(/^task-0\s+checkpoint\s+\/tmp\/ckpt-0$/);
      expect(lines[3]).toMatch(/^task-1\s+note\s+line one line two$/);

      const status = await c.iris(['status', 'train']);
      expect(status.stdout).toMatch(/^Results:\s+3 \(iris results \/train\)$/m);
    },
  );

  it('refuses bad keys and values naming the argument, and a set from outside a task with a hint', async () => {
    const script = c.script(
      'bad.sh',
      [
        'iris result set "a b" v; echo "space=$?"',
        'iris result set k "$(head -c 70000 /dev/zero | tr "\\0" x)"; echo "big=$?"',
      ].join('\n'),
    );
    const run = await c.iris(['run', '--name', 'bad', '--cpu', '0.1', '--', 'sh', script]);
    expect(run.code).toBe(0);
    const out = run.stdout + run.stderr;
    expect(out).toContain('space=2');
    expect(out).toContain('KEY: the result key "a b" has characters other than');
    expect(out).toContain('big=2');
    expect(out).toContain('VALUE: the result value is 70000 bytes, more than 65536 (64 KiB)');
    expect((await c.json<ResultsResponse>(['results', 'bad'])).results).toEqual([]);

    const outside = await c.iris(['result', 'set', 'checkpoint', '/x']);
    expect(outside.code).toBe(4);
    expect(outside.stderr).toContain('results can only be set from inside a running task');
    expect(outside.stderr).toMatch(/Hint: .*iris result set/);
    // The owner's socket without a token is refused too: a result belongs to a task attempt.
    await expect(c.client.setResult('checkpoint', '/x')).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('requires a task token'),
    });
    const unknown = await c.iris(['results', 'nosuchjob']);
    expect(unknown.code).toBe(3);
  });

  it("a task reads its sibling stage's results, not another tree's, and sets only its own", async () => {
    const pipe = c.script(
      'pipe.sh',
      [
        'iris run --name a --cpu 0.1 -- iris result set model /m/a || exit 21',
        'iris results a | grep -q /m/a || exit 22', // a parent reads its child's results
        'iris run --name b --cpu 0.1 -- sh -c \'iris results "$(dirname "$IRIS_JOB_ID")/a" | grep -q /m/a && echo ' +
          'sibling=ok; iris results /train; echo "other=$?"\' || exit 23',
      ].join('\n'),
    );
    const run = await c.iris(['run', '--name', 'pipe', '--cpu', '0.1', '--', 'sh', pipe]);
    expect(run.code, describeRun(['run', 'pipe'], run)).toBe(0);
    const logs = (await c.logs('/pipe/b')).map((l) => l.text).join('\n');
    expect(logs).toContain('sibling=ok');
    expect(logs).toContain('other=4');
    expect(logs).toContain('a task may only read the results of jobs within its own tree /pipe; /train is outside it');

    // A task of another tree setting "checkpoint" sets its own, never /train's.
    const other = await c.iris([
      'run',
      '--name',
      'intruder',
      '--cpu',
      '0.1',
      '--',
      'iris',
      'result',
      'set',
      'checkpoint',
      '/evil',
    ]);
    expect(other.code).toBe(0);
    expect(plain(await c.json<ResultsResponse>(['results', 'intruder']))).toEqual([
      ['/intruder/task-0', 'checkpoint', '/evil'],
    ]);
    expect(plain(await c.json<ResultsResponse>(['results', 'train']))[0]).toEqual([
      '/train/task-0',
      'checkpoint',
      '/tmp/ckpt-0',
    ]);
  });

  it('an invalid result file stores nothing and notes why; the task keeps its exit state', async () => {
    const script = c.script('badfile.sh', 'echo \'{"loss": 0.5}\' > "$IRIS_RESULT_FILE"');
    const run = await c.iris(['run', '--name', 'badfile', '--cpu', '0.1', '--', 'sh', script]);
    expect(run.code).toBe(0);
    const job = await c.json<JobDetail>(['status', 'badfile']);
    expect(job.state).toBe('SUCCEEDED');
    expect(job.taskList[0]!.reason).toContain(
      'result file ignored: result file member "loss": a result value must be a string, got number',
    );
    expect((await c.json<ResultsResponse>(['results', 'badfile'])).results).toEqual([]);
  });

  it('an older run keeps its results as NAME@RUN, readable with the cluster stopped', async () => {
    const again = await c.iris([
      'run',
      '--name',
      'train',
      '--cpu',
      '0.1',
      '--',
      'iris',
      'result',
      'set',
      'checkpoint',
      '/tmp/run2',
    ]);
    expect(again.code).toBe(0);
    const latest = await c.json<ResultsResponse>(['results', 'train']);
    expect(latest.run).not.toBe(firstRun);
    expect(plain(latest)).toEqual([['/train/task-0', 'checkpoint', '/tmp/run2']]);
    const old = await c.json<ResultsResponse>(['results', `train@${firstRun}`]);
    expect(old.run).toBe(firstRun);
    expect(plain(old)[0]).toEqual(['/train/task-0', 'checkpoint', '/tmp/ckpt-0']);
    expect((await c.iris(['status', `train@${firstRun}`])).stdout).toMatch(
      new RegExp(`^Results:\\s+3 \\(iris results /train@${firstRun}\\)$`, 'm'),
    );

    await c.stop();
    const offline = await c.iris(['results', `train@${firstRun}`]);
    expect(offline.code, describeRun(['results'], offline)).toBe(0);
    expect(offline.stderr).toContain('no cluster is running');
    expect(offline.stdout).toMatch(/task-0\s+checkpoint\s+\/tmp\/ckpt-0/);
  });
});
