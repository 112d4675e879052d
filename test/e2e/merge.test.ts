/**
 * E2E: task merging (issue 33 §2; docs/architecture.md, "Task merging") on the built binary. One
 * worker with room for one task; a blocker holds it while four jobs with the same --merge-key,
 * user, command and resources (only their --env differs) are submitted, so they are ready
 * together when it ends. They start as ONE attempt: the command runs once (it appends a line to a
 * file), with IRIS_MERGED_TASKS naming the four tasks, lead first, and IRIS_MERGED_FILE listing
 * each task's own data; every member ends SUCCEEDED, `iris logs` of a member shows the attempt's
 * output, the attempt's result file is every member's result, and `iris status` says which tasks
 * it ran merged with. A merged attempt that fails fails
 * every member with "merged with <lead>" and counts against each one's own retries.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail, ResultsResponse } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `workers:
  - {name: w0, cpu: 1, memory: 1GiB}
`;

describe('task merging', () => {
  const c = withCluster(CONFIG);

  /** A blocker holding the only worker until its gate opens; its job name. */
  const hold = async (name: string) => {
    const gate = c.gate(name);
    const job = await c.submit(['-n', name, '--cpu', '1'], ['sh', '-c', gate.hold]);
    await c.waitForState(job, 'RUNNING');
    return { job, open: gate.open };
  };

  it('four ready jobs with one merge key run as one attempt that serves them all', async () => {
    const blocker = await hold('block-ok');
    const ran = path.join(c.cwd, 'ran.txt');
    const command = [
      'sh',
      '-c',
      `echo "$IRIS_MERGED_TASKS" >> '${ran}'; echo "merged: $IRIS_MERGED_TASKS"; cat "$IRIS_MERGED_FILE"; ` +
        `echo '{"answer": "42"}' > "$IRIS_RESULT_FILE"`,
    ];
    const jobs: string[] = [];
    for (let i = 0; i < 4; i++) {
      jobs.push(await c.submit(['-n', `ok${i}`, '--cpu', '1', '--merge-key', 'llama', '-e', `PROMPT=p${i}`], command));
    }
    await c.waitForJob(jobs[3]!, (j) => j.state === 'PENDING', 'pending');
    blocker.open();
    for (const job of jobs) await c.waitForState(job, 'SUCCEEDED');

    const tasks = jobs.map((j) => `${j}/task-0`);
    // The command ran once, for all four, lead first.
    expect(readFileSync(ran, 'utf8')).toBe(`${tasks.join(',')}\n`);

    const lead = await c.json<JobDetail>(['status', jobs[0]!]);
    expect(lead.mergeKey).toBe('llama');
    expect(lead.taskList[0]!.attempts[0]!.merged).toEqual({ lead: tasks[0], tasks });
    for (const job of jobs.slice(1)) {
      const detail = await c.json<JobDetail>(['status', job]);
      const task = detail.taskList[0]!;
      expect(task.state).toBe('SUCCEEDED');
      expect(task.attempts).toHaveLength(1);
      expect(task.attempts[0]!.merged).toEqual({ lead: tasks[0], tasks });
    }

    // iris logs of a member shows the merged attempt's output, the data file included.
    const logs = await c.iris(['logs', jobs[2]!]);
    expect(logs.code, describeRun(['logs', jobs[2]!], logs)).toBe(0);
    expect(logs.stdout).toContain(`merged: ${tasks.join(',')}`);
    for (let i = 0; i < 4; i++) {
      expect(logs.stdout).toContain(`"IRIS_TASK_ID": "${tasks[i]}"`);
      expect(logs.stdout).toContain(`"PROMPT": "p${i}"`);
    }
    expect(logs.stdout).toContain('"IRIS_TASK_INDEX": "0"');
    expect(logs.stdout).toContain('"IRIS_NUM_TASKS": "1"');

    // The attempt's results are every member's.
    const results = await c.json<ResultsResponse>(['results', jobs[3]!]);
    expect(results.results.map((r) => [r.task, r.key, r.value])).toEqual([[tasks[3], 'answer', '42']]);

    const status = await c.iris(['status', jobs[1]!]);
    expect(status.code, describeRun(['status', jobs[1]!], status)).toBe(0);
    expect(status.stdout).toMatch(/Merge key:\s+llama/);
    expect(status.stdout).toContain(`task-0 attempt 0: merged with ${tasks[0]}, ${tasks[2]}, ${tasks[3]}`);
  });

  it('a merged attempt that fails fails every member naming the lead, counted against each retry budget', async () => {
    const blocker = await hold('block-fail');
    const ran = path.join(c.cwd, 'ran-fail.txt');
    const command = ['sh', '-c', `echo "$IRIS_MERGED_TASKS" >> '${ran}'; exit 3`];
    const jobs: string[] = [];
    for (let i = 0; i < 4; i++) {
      jobs.push(await c.submit(['-n', `bad${i}`, '--cpu', '1', '--merge-key', 'bad', '--max-retries', '1'], command));
    }
    await c.waitForJob(jobs[3]!, (j) => j.state === 'PENDING', 'pending');
    blocker.open();
    for (const job of jobs) await c.waitForState(job, 'FAILED');

    const tasks = jobs.map((j) => `${j}/task-0`);
    // Two merged attempts (the first and the retry), each run once.
    expect(readFileSync(ran, 'utf8')).toBe(`${tasks.join(',')}\n${tasks.join(',')}\n`);
    for (const [i, job] of jobs.entries()) {
      const task = (await c.json<JobDetail>(['status', job])).taskList[0]!;
      expect(task.failures).toBe(2);
      expect(task.attempts.map((a) => a.state)).toEqual(['FAILED', 'FAILED']);
      if (i === 0) expect(task.reason).toContain(`; merged children: ${tasks.slice(1).join(', ')}`);
      else expect(task.reason).toContain(`merged with ${tasks[0]}`);
    }
  });

  it("a pipeline stage's merge key is stored with its job", async () => {
    writeFileSync(
      path.join(c.cwd, 'serve.yaml'),
      'name: serve\nstages:\n  answer:\n    cpu: 0.5\n    merge: llama\n    command: "true"\n',
    );
    const submit = await c.iris(['submit', '-f', 'serve.yaml']);
    expect(submit.code, describeRun(['submit', '-f', 'serve.yaml'], submit)).toBe(0);
    const done = await c.waitForState('/serve/answer', 'SUCCEEDED');
    expect(done.mergeKey).toBe('llama');
  });
});
