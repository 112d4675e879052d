/**
 * E2E: measured usage per attempt. `iris run` of a task that burns ~0.5 s of CPU and holds
 * ~64 MiB: `iris status --json` shows its CPU seconds and peak memory, `iris status` prints
 * them, and they survive a cluster restart. An attempt that ended while the cluster was down
 * (kill -9) keeps its usage too, read from the cgroups it left behind. A container attempt
 * (real Docker engine, iris-test/busybox) reports what the engine's stats samples saw.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptInfo, JobDetail } from '../../src/api/types.js';
import { BUSYBOX, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { type E2ECluster, describeRun, isRunning, marker, waitUntil, killMarked, withCluster } from './harness.js';

const DOCKER = (await dockerTestEnv()).run;

const MiB = 1024 * 1024;
const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 2, memory: 2GiB}
`;
/** ~64 MiB held in a shell variable, then ~0.5 s of shell arithmetic. */
const WORK =
  `x=$(head -c ${64 * MiB} /dev/zero | tr '\\0' a); i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; ` +
  `echo "held \${#x}"`;

const attemptsOf = (job: JobDetail): AttemptInfo[] => job.taskList[0]!.attempts;

describe('measured usage per attempt', () => {
  const c = withCluster(CONFIG);
  const tag = marker('usage');
  afterAll(async () => {
    killMarked(tag);
  });

  it('iris status shows the CPU seconds and peak memory of a finished attempt, also after a restart', async () => {
    const run = await c.iris(['run', '--name', 'heavy', '--cpu', '1', '--memory', '512MiB', '--', 'sh', '-c', WORK]);
    expect(run.code, describeRun(['run'], run)).toBe(0);
    const [attempt] = attemptsOf(await c.json<JobDetail>(['status', '/heavy']));
    expect(attempt?.state).toBe('SUCCEEDED');
    expect(attempt?.cpuSeconds).toBeGreaterThanOrEqual(0.3);
    expect(attempt?.peakMemoryBytes).toBeGreaterThanOrEqual(48 * MiB);

    const plain = await c.iris(['status', '/heavy']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/\/heavy\/task-0\s+0\s+SUCCEEDED\s+w0\s+0\s+\S+\s+cpu \d+\.\ds · peak \d+(\.\d)?MiB/);

    await c.stop();
    await c.start();
    const [again] = attemptsOf(await c.json<JobDetail>(['status', '/heavy']));
    expect(again?.cpuSeconds).toBe(attempt?.cpuSeconds);
    expect(again?.peakMemoryBytes).toBe(attempt?.peakMemoryBytes);
  }, 60_000);

  it('an attempt that ended while the cluster was down (kill -9) keeps its usage', async () => {
    const gate = c.gate('after-crash');
    await c.submit(
      ['--name', 'crashed', '--cpu', '1', '--memory', '512MiB'],
      ['sh', '-c', `echo "pid $$"; ${WORK}; ${gate.hold}; echo done`, tag],
    );
    const lines = await c.waitForLog('/crashed', 'held ');
    const taskPid = Number(/pid (\d+)/.exec(lines.find((l) => l.text.startsWith('pid '))!.text)![1]);
    // The task's parent is the attempt's wrapper, which writes the exit status once the task ends.
    const stat = readFileSync(`/proc/${taskPid}/stat`, 'utf8');
    const wrapperPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const clusterPid = c.pid()!;
    process.kill(clusterPid, 'SIGKILL');
    await waitUntil(
      'cluster process to die',
      async () => isRunning(clusterPid),
      (alive) => !alive,
    );
    gate.open();
    await waitUntil(
      'the wrapper to exit',
      async () => isRunning(wrapperPid),
      (alive) => !alive,
    );

    await c.start();
    const job = await c.waitForState('/crashed', 'SUCCEEDED');
    const [attempt, ...rerun] = attemptsOf(job);
    expect(rerun).toEqual([]); // it ended on its own: recovered with its exit, not run again
    expect(attempt?.cpuSeconds).toBeGreaterThanOrEqual(0.3);
    expect(attempt?.peakMemoryBytes).toBeGreaterThanOrEqual(48 * MiB);
  }, 60_000);
});

describe.skipIf(!DOCKER)('measured usage of a container attempt', () => {
  let c: E2ECluster | undefined;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it('iris status shows what the stats samples saw while the container ran', async () => {
    // The pause after the work outlasts one sampling period (2 s), so a sample sees the peak.
    const args = [
      'run',
      '--name',
      'boxed',
      '--image',
      BUSYBOX,
      '--cpu',
      '1',
      '--memory',
      '512MiB',
      '--',
      'sh',
      '-c',
      `${WORK}; sleep 3`,
    ];
    const run = await c!.iris(args);
    expect(run.code, describeRun(args, run)).toBe(0);
    const [attempt] = attemptsOf(await c!.json<JobDetail>(['status', '/boxed']));
    expect(attempt?.cpuSeconds).toBeGreaterThanOrEqual(0.3);
    expect(attempt?.peakMemoryBytes).toBeGreaterThanOrEqual(48 * MiB);
  }, 60_000);
});
