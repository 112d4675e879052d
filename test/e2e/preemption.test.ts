/**
 * E2E: preemption (issue 32 §3; docs/priorities.md, "Preemption") on the built CLI, process
 * runtime: only lower bands preempt (interactive stops batch; the same band and batch never);
 * notice and grace (SIGTERM, `$IRIS_NOTICE_FILE` read by the task, SIGKILL after
 * `preemption.grace`, the freed capacity kept for the preemptor); budgets (`PREEMPTED` with
 * `preempted by /JOB (interactive)`, `--max-preemptions 0`, `--max-retries` untouched, the old
 * place in the queue); the exempt time; `iris submit --dry-run` naming whom a job would preempt.
 * Each test asserts what `iris status`/`queue`/`logs` show. Tasks hold on gates (harness), never
 * on fixed sleeps.
 */
import { describe, expect, it } from 'vitest';
import type { EstimateResponse, QueueInfo, ResultsResponse } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';
import { attempts, hold, ms, queueReason, running, status } from './preemption-fixture.js';

/** One 2-CPU worker; a short grace, no exempt time unless a test's config says otherwise. */
const config = (preemption = '{grace: 2s, exempt: 0s}') => `
stop-grace: 1s
preemption: ${preemption}
workers:
  - {name: w0, cpu: 2, memory: 8GiB}
`;

describe('only lower bands', () => {
  const c = withCluster(config());

  it('batch never preempts, nor the same band; interactive stops the batch task, not the interactive one', async () => {
    const keep = await hold(c, 'keep', ['--cpu', '1']);
    const sweep = await hold(c, 'sweep', ['--cpu', '1', '--priority', 'batch']);
    await running(c, keep.job);
    await running(c, sweep.job);

    // A batch job waits: it preempts nothing (the pass that gave its reason stopped no one).
    const later = await hold(c, 'later', ['--cpu', '1', '--priority', 'batch']);
    expect(await queueReason(c, later.job)).not.toMatch(/preempt/);

    const urgent = await hold(c, 'urgent', ['--cpu', '1']);
    await running(c, urgent.job);
    const stopped = await attempts(c, sweep.job);
    expect(stopped[0]).toMatchObject({ state: 'PREEMPTED', reason: 'preempted by /urgent (interactive)' });
    expect(await attempts(c, keep.job)).toMatchObject([{ state: 'RUNNING' }]);
    await c.waitForLog(sweep.job, 'TERM: preempted by /urgent (interactive)');

    // Now only interactive work runs: another interactive job waits and stops nothing.
    const same = await hold(c, 'same', ['--cpu', '1']);
    expect(await queueReason(c, same.job)).not.toMatch(/preempt/);
    expect(await attempts(c, keep.job)).toMatchObject([{ state: 'RUNNING' }]);
    expect(await attempts(c, urgent.job)).toMatchObject([{ state: 'RUNNING' }]);
    // The batch tasks wait their turn: the requeued sweep first, then the later one.
    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.jobs.map((p) => p.job)).toEqual(['/same', '/sweep', '/later']);

    for (const j of [keep, sweep, later, urgent, same]) j.open();
    for (const j of [keep, sweep, later, urgent, same]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('notice and grace', () => {
  const c = withCluster(config('{grace: 3s, exempt: 0s}'));

  it('SIGTERM with the notice, SIGKILL after the grace; a batch job submitted meanwhile gets no room', async () => {
    const victim = await hold(c, 'victim', ['--cpu', '2', '--priority', 'batch'], true);
    await running(c, victim.job);
    const urgent = await hold(c, 'urgent', ['--cpu', '2']);
    // The victim's attempt ended PREEMPTED at once; its process is still there (it ignores SIGTERM).
    const ended = await c.waitForTask(victim.job, 0, (t) => t.attempts[0]?.state === 'PREEMPTED', 'preempted');
    await c.waitForLog(victim.job, 'TERM: preempted by /urgent (interactive)');
    // A batch job that would fit the freed room once the victim is gone: it must not take it.
    const small = await hold(c, 'small', ['--cpu', '1', '--priority', 'batch']);
    // Meanwhile iris queue says whom the preemptor waits for.
    expect(await queueReason(c, urgent.job, (r) => r.startsWith('waiting'))).toBe(
      'waiting for the tasks it preempted to stop: /victim/task-0 (capacity held on w0)',
    );
    const started = await running(c, urgent.job);
    const killedAfter = started.startedAt! - ended.attempts[0]!.finishedAt!;
    // SIGKILL came after the grace (3 s), not at once.
    expect(killedAfter).toBeGreaterThanOrEqual(2_500);
    expect(killedAfter).toBeLessThan(20_000);
    const smallNow = await status(c, small.job);
    expect(smallNow.state).toBe('PENDING');
    const log = await c.logs(victim.job, { attempt: 0 });
    expect(log.map((l) => l.text)).toContain('TERM: preempted by /urgent (interactive)');

    for (const j of [victim, urgent, small]) j.open();
    for (const j of [victim, urgent, small]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
    // The small job started only after the preemptor had its room.
    expect(ms((await status(c, small.job)).startedAt)).toBeGreaterThanOrEqual(started.startedAt!);
  }, 60_000);
});

describe('budgets', () => {
  const c = withCluster(config());

  it('PREEMPTED with its reason, counted as a preemption and not a failure, requeued at its old place', async () => {
    const old = await hold(c, 'old', ['--cpu', '2', '--priority', 'batch', '--max-retries', '1']);
    await running(c, old.job);
    const later = await hold(c, 'later', ['--cpu', '2', '--priority', 'batch']);
    expect(await queueReason(c, later.job)).not.toMatch(/preempt/);
    const urgent = await hold(c, 'urgent', ['--cpu', '2']);
    await running(c, urgent.job);

    const shown = await status(c, old.job);
    expect(shown.state).toBe('PENDING');
    expect(shown.taskList[0]).toMatchObject({ state: 'PENDING', failures: 0, preemptions: 1 });
    expect(shown.taskList[0]!.attempts).toMatchObject([
      { attempt: 0, state: 'PREEMPTED', reason: 'preempted by /urgent (interactive)' },
    ]);
    const text = await c.iris(['status', old.job]);
    expect(text.code, describeRun(['status', old.job], text)).toBe(0);
    expect(text.stdout).toContain('preempted by /urgent (interactive)');
    // Its old place: ahead of the batch job submitted after it.
    const queue = await c.json<QueueInfo>(['queue']);
    expect(queue.jobs.map((p) => p.job)).toEqual(['/old', '/later']);

    urgent.open();
    await running(c, old.job, 1);
    expect((await status(c, later.job)).state).toBe('PENDING');
    old.open();
    later.open();
    expect((await c.waitForEnd(old.job)).state).toBe('SUCCEEDED');
    expect((await c.waitForEnd(later.job)).state).toBe('SUCCEEDED');
    expect((await status(c, old.job)).taskList[0]).toMatchObject({ failures: 0, preemptions: 1, attempt: 1 });
  }, 60_000);

  it('--max-preemptions 0: the preempted task ends for good (WORKER_FAILED)', async () => {
    const once = await hold(c, 'once', ['--cpu', '2', '--priority', 'batch', '--max-preemptions', '0']);
    await running(c, once.job);
    const urgent = await hold(c, 'urgent2', ['--cpu', '2']);
    await running(c, urgent.job);
    const ended = await c.waitForEnd(once.job);
    expect(ended.state).toBe('WORKER_FAILED');
    expect(ended.taskList[0]).toMatchObject({ state: 'WORKER_FAILED', failures: 0, preemptions: 1 });
    expect(ended.taskList[0]!.attempts).toMatchObject([
      { state: 'PREEMPTED', reason: 'preempted by /urgent2 (interactive)' },
    ]);
    urgent.open();
    once.open();
    expect((await c.waitForEnd(urgent.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('exempt time', () => {
  const c = withCluster(config('{grace: 2s, exempt: 4s}'));

  it('a task within preemption.exempt of its start is not preempted, and is once that time has passed', async () => {
    const young = await hold(c, 'young', ['--cpu', '2', '--priority', 'batch']);
    const first = await running(c, young.job);
    const urgent = await hold(c, 'urgent', ['--cpu', '2']);
    // The pass that gave this reason looked at the young task and stopped nothing.
    expect(await queueReason(c, urgent.job)).not.toMatch(/preempt/);
    const now = await attempts(c, young.job);
    expect(now).toMatchObject([{ state: 'RUNNING' }]);
    // Nothing else happens in the cluster: the exempt time's end alone lets the job preempt.
    const started = await running(c, urgent.job);
    const stopped = (await attempts(c, young.job))[0]!;
    expect(stopped).toMatchObject({ state: 'PREEMPTED', reason: 'preempted by /urgent (interactive)' });
    expect(ms(stopped.finishedAt) - ms(stopped.startedAt)).toBeGreaterThanOrEqual(4_000);
    expect(started.startedAt! - first.startedAt!).toBeLessThan(15_000);
    young.open();
    urgent.open();
    for (const j of [young, urgent]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('iris submit --dry-run', () => {
  const c = withCluster(config());

  it('says a job would start by preempting, and whom; a batch job would not', async () => {
    const sweep = await hold(c, 'sweep', ['--cpu', '2', '--priority', 'batch']);
    await running(c, sweep.job);
    const args = ['submit', '--dry-run', '--name', 'urgent', '--cpu', '1', '--', 'true'];
    const text = await c.iris(args);
    expect(text.code, describeRun(args, text)).toBe(0);
    expect(text.stdout).toContain('/urgent (1 task): would start by preempting /sweep/task-0 (1 task of a lower band)');
    const json = await c.json<EstimateResponse>(args);
    expect(json.reason).toBe('would start by preempting /sweep/task-0 (1 task of a lower band)');
    const batch = await c.json<EstimateResponse>([
      ...args.slice(0, 3),
      'later',
      '--cpu',
      '1',
      '--priority',
      'batch',
      '--',
      'true',
    ]);
    expect(batch.reason).not.toMatch(/preempt/);
    // Nothing was submitted, nothing stopped.
    expect(await attempts(c, sweep.job)).toMatchObject([{ state: 'RUNNING' }]);
    sweep.open();
    expect((await c.waitForEnd(sweep.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('results', () => {
  const c = withCluster(config());

  it("a preempted task's published results are kept until its next attempt publishes its own", async () => {
    const gate = c.gate('ckpt');
    const script = c.script(
      'ckpt.sh',
      [
        'iris result set ckpt "step-$IRIS_ATTEMPT"',
        'echo published',
        `trap 'exit 143' TERM`,
        'while [ ! -f "$1" ]; do sleep 0.05; done',
      ].join('\n'),
    );
    const sweep = await c.submit(['--name', 'ckpt', '--cpu', '2', '--priority', 'batch'], ['sh', script, gate.path]);
    await c.waitForLog(sweep, 'published');
    const urgent = await hold(c, 'urgent', ['--cpu', '2']);
    await running(c, urgent.job);
    expect((await attempts(c, sweep))[0]).toMatchObject({ state: 'PREEMPTED' });
    // Attempt 1 waits behind /urgent: the results are attempt 0's.
    const kept = await c.json<ResultsResponse>(['results', sweep]);
    expect(kept.results).toMatchObject([{ key: 'ckpt', value: 'step-0', attempt: 0 }]);
    await urgent.open();
    await running(c, sweep, 1);
    const next = await waitUntil(
      'attempt 1 publishing its own ckpt',
      () => c.json<ResultsResponse>(['results', sweep]),
      (r) => r.results.some((x) => x.attempt === 1),
      { client: c.client },
    );
    expect(next.results).toMatchObject([{ key: 'ckpt', value: 'step-1', attempt: 1 }]);
    await gate.open();
  });
});
