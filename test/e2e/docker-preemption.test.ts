/**
 * E2E with the real Docker engine: preemption of a container task (docs/priorities.md,
 * "Preemption"). A 2-CPU worker runs a 2-replica batch container job; an interactive 1-CPU
 * container job that cannot start preempts one of its tasks. The victim's container gets the
 * engine's SIGTERM (its trap logs a line and exits, well inside `preemption.grace`), its attempt ends
 * PREEMPTED with `preempted by /eval (interactive)`, its container is gone, the interactive job
 * succeeds, and the victim runs again as attempt 1 in a new container.
 *
 * Needs an engine and the test images (test/helpers/docker.ts); under CI the file must not be
 * skipped (IRIS_TEST_DOCKER=1 makes a missing engine fail it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskInfo } from '../../src/api/types.js';
import { BUSYBOX, docker, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { type E2ECluster, byIndex, describeRun } from './harness.js';

const READY = (await dockerTestEnv()).run;

const GRACE_MS = 10_000;

const CONFIG = `
stop-grace: 1s
preemption: {grace: 10s, exempt: 0s}
workers:
  - {name: w0, cpu: 2, memory: 4GiB}
`;

/** A batch task that logs its start, and on SIGTERM logs a line and exits (a checkpoint and a clean exit). */
const VICTIM = [
  'trap \'echo "task $IRIS_TASK_INDEX attempt $IRIS_ATTEMPT got SIGTERM"; exit 0\' TERM',
  'echo "task $IRIS_TASK_INDEX attempt $IRIS_ATTEMPT up"',
  'while :; do sleep 0.1; done',
].join('\n');

/** Containers (any state) of one attempt of a task in this cluster, by their labels. */
function containersOfAttempt(clusterId: string, task: string, attempt: number): string[] {
  const filters = [`iris.cluster=${clusterId}`, `iris.task=${task}`, `iris.attempt=${attempt}`];
  const out = docker(['ps', '-aq', '--no-trunc', ...filters.flatMap((f) => ['--filter', `label=${f}`])]);
  return out === '' ? [] : out.split('\n');
}

describe.skipIf(!READY)('preemption on the Docker runtime', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it('an interactive container job stops one batch container with SIGTERM and the victim runs again', async () => {
    await c.submit(
      ['--priority', 'batch', '--name', 'sweep', '--image', BUSYBOX, '--replicas', '2', '--cpu', '1'],
      ['sh', '-c', VICTIM],
    );
    for (const index of [0, 1]) await c.waitForLog(`/sweep/task-${index}`, `task ${index} attempt 0 up`);

    const r = await c.iris(['run', '--name', 'eval', '--image', BUSYBOX, '--cpu', '1', '--', 'echo', 'eval ran'], {
      timeoutMs: 30_000,
    });
    expect(r.code, describeRun(['run', 'eval'], r)).toBe(0);
    const evalJob = await c.job('/eval');
    expect(evalJob.state).toBe('SUCCEEDED');
    expect(evalJob.taskList[0]!.attempts.map((a) => [a.workerId, a.state])).toEqual([['w0', 'SUCCEEDED']]);

    // exactly one victim: its attempt 0 PREEMPTED with the reason; the other task kept running
    const tasks = byIndex(await c.job('/sweep'));
    const victims = tasks.filter((t) => t.attempts[0]!.state === 'PREEMPTED');
    expect(victims.map((t) => t.index)).toHaveLength(1);
    const victim = victims[0]!;
    const other = tasks.find((t) => t !== victim)!;
    expect(other.attempts.map((a) => a.state)).toEqual(['RUNNING']);
    const stopped = victim.attempts[0]!;
    expect(stopped.reason).toBe('preempted by /eval (interactive)');
    expect(victim.preemptions).toBe(1);
    expect(victim.failures).toBe(0);
    const lines = (await c.logs(victim.id, { attempt: 0 })).map((l) => l.text);
    expect(lines).toContain(`task ${victim.index} attempt 0 got SIGTERM`);
    expect(containersOfAttempt(clusterId, victim.id, 0)).toEqual([]);
    // The preemptor started once the victim's container was gone: after its SIGTERM, and well within the
    // grace (the trap exits at once; a task that ignored SIGTERM would hold its CPU for the whole 10 s).
    const evalStarted = evalJob.taskList[0]!.attempts[0]!.startedAt;
    const waited = evalStarted - stopped.finishedAt!;
    expect(waited).toBeGreaterThanOrEqual(0);
    expect(waited).toBeLessThan(GRACE_MS);

    // requeued, not failed: attempt 1 runs in a container of its own
    const again = await c.waitForTask(
      '/sweep',
      victim.index,
      (t: TaskInfo) => t.attempts[1]?.state === 'RUNNING',
      'attempt 1 running',
      { timeoutMs: 30_000 },
    );
    expect(again.attempts.map((a) => a.state)).toEqual(['PREEMPTED', 'RUNNING']);
    await c.waitForLog(victim.id, `task ${victim.index} attempt 1 up`);
    const [container] = containersOfAttempt(clusterId, victim.id, 1);
    expect(container).toBeDefined();
    expect(docker(['inspect', '--format', '{{.State.Running}}', container!])).toBe('true');

    const cancel = await c.iris(['cancel', 'sweep']);
    expect(cancel.code, describeRun(['cancel', 'sweep'], cancel)).toBe(0);
  }, 120_000);
});
