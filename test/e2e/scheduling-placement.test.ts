/**
 * E2E: placement on a real cluster — gangs on a virtual TPU slice (task i on tpu-worker-id i,
 * all-or-nothing; a gang whose host 0 is busy waits for it, naming it), GPU tasks only on GPU
 * workers with disjoint CUDA_VISIBLE_DEVICES, and worker attribute constraints of every kind.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { byIndex, describeRun, withCluster } from './harness.js';
import { joined } from '../helpers/regex.js';

// Names deliberately sort opposite to tpu-worker-id: placement must follow the id.
const sliceA = ['tpu-a-d', 'tpu-a-c', 'tpu-a-b', 'tpu-a-a'];
const tpu = (name: string, slice: string, id: number) =>
  `  - {name: ${name}, cpu: 2, memory: 2GiB, tpu: {variant: v5litepod-16}, attributes: {tpu-name: ${slice}` +
  `, tpu-worker-id: ${id}}}`;
const CONFIG = `
stop-grace: 1s
workers:
  - {name: cpu-0, cpu: 2, memory: 2GiB, attributes: {pool: a, zone: z1, rank: 1}}
  - {name: cpu-1, cpu: 2, memory: 2GiB, attributes: {pool: b, rank: 5}}
  - {name: gpu-0, cpu: 4, memory: 4GiB, gpu: {variant: H100, count: 8}}
  - {name: gpu-1, cpu: 4, memory: 4GiB, gpu: {variant: A100, count: 4}}
${sliceA.map((name, id) => tpu(name, 'slice-a', id)).join('\n')}
${tpu('tpu-b-0', 'slice-b', 0)}
${tpu('tpu-b-1', 'slice-b', 1)}
`;

describe('placement', () => {
  const c = withCluster(CONFIG);

  const runJson = async (flags: string[], command: string[]): Promise<JobDetail> => {
    const args = ['run', ...flags, '--json', '--', ...command];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    return JSON.parse(r.stdout) as JobDetail;
  };

  it('a gang on a virtual slice puts task i on tpu-worker-id i of one tpu-name', async () => {
    const job = await runJson(
      ['--name', 'gang4', '--tpu', 'v5litepod-16', '--replicas', '4', '--coschedule', 'tpu-name', '--cpu', '0.5'],
      ['sh', '-c', 'echo "G $IRIS_TASK_INDEX $IRIS_WORKER_ID"'],
    );
    expect(job.state).toBe('SUCCEEDED');
    expect(byIndex(job).map((t) => t.workerId)).toEqual(sliceA);
  });

  it('gangs are all-or-nothing: a partly busy slice holds the whole gang, another gang still runs', async () => {
    const gate = c.gate('tpu-blocker');
    await c.submit(
      // All of one host's CPUs (no chips): a multi-host --tpu job always takes a whole slice.
      ['--name', 'tpu-blocker', '-c', 'tpu-name=slice-a', '-c', 'tpu-worker-id=2', '--cpu', '2'],
      ['sh', '-c', gate.hold],
    );
    const blocker = await c.waitForState('/tpu-blocker', 'RUNNING');
    expect(blocker.taskList[0]!.workerId).toBe('tpu-a-b');

    await c.submit(
      ['--name', 'gang-wait', '--tpu', 'v5litepod-16', '--replicas', '4', '--coschedule', 'tpu-name', '--cpu', '0.5'],
      ['true'],
    );
    const pending = await c.waitForJob('/gang-wait', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
    // A whole-slice gang names its busy host as a partial gang does (slice-b has too few hosts to be named).
    expect(pending.reason).toMatch(
      /^need hosts 0-3 of one tpu-name group \(task i runs on host i\): slice-a host 2 \(tpu-a-b\) is busy(;|$)/,
    );

    // A smaller gang behind it still fits (on hosts 0 and 1 of one slice: task i on tpu-worker-id i) and runs.
    const pair = await runJson(
      ['--name', 'gang2', '--replicas', '2', '--coschedule', 'tpu-name', '--cpu', '0.5'],
      ['true'],
    );
    expect([
      ['tpu-b-0', 'tpu-b-1'],
      ['tpu-a-d', 'tpu-a-c'],
    ]).toContainEqual(byIndex(pair).map((t) => t.workerId));
    const still = await c.job('/gang-wait');
    expect(still.state).toBe('PENDING');
    expect(still.taskList.every((t) => t.state === 'PENDING' && t.attempts.length === 0)).toBe(true);

    gate.open();
    const done = await c.waitForState('/gang-wait', 'SUCCEEDED');
    expect(byIndex(done).map((t) => t.workerId)).toEqual(sliceA);
    const starts = done.taskList.map((t) => t.attempts[0]!.startedAt);
    const blockerEnd = (await c.job('/tpu-blocker')).taskList[0]!.attempts[0]!.finishedAt!;
    for (const start of starts) expect(start).toBeGreaterThanOrEqual(blockerEnd);
  });

  it('a 2-task gang waits for host 0 of a slice, naming the busy hosts, then runs task i on host i', async () => {
    const gate = c.gate('host0');
    // Host 0 of both slices busy (all their CPUs); hosts 1-3 of slice-a are free.
    await c.submit(
      ['--name', 'host0', '-c', 'tpu-worker-id=0', '--replicas', '2', '--cpu', '2'],
      ['sh', '-c', gate.hold],
    );
    const blocker = await c.waitForJob(
      '/host0',
      (j) => j.taskList.every((t) => t.state === 'RUNNING'),
      'both tasks running',
    );
    expect(blocker.taskList.map((t) => t.workerId).sort()).toEqual(['tpu-a-d', 'tpu-b-0']);

    await c.submit(['--name', 'pair', '--coschedule', 'tpu-name', '--replicas', '2', '--cpu', '0.5'], ['true']);
    const pending = await c.waitForJob('/pair', (j) => j.state !== 'PENDING' || !!j.reason, 'a pending reason');
    expect(pending.state).toBe('PENDING');
    expect(pending.reason).toMatch(
      joined(
        /^need hosts 0-1 of one tpu-name group \(task i runs on host i\): /,
        /slice-a host 0 \(tpu-a-d\) is busy; slice-b host 0 \(tpu-b-0\) is busy/,
      ),
    );
    expect(pending.taskList.every((t) => t.attempts.length === 0)).toBe(true);

    gate.open();
    // Whichever slice's host 0 frees first takes the gang: its hosts 0 and 1, never a later host.
    const done = await c.waitForState('/pair', 'SUCCEEDED');
    const hosts = byIndex(done).map((t) => t.workerId);
    expect([
      ['tpu-a-d', 'tpu-a-c'],
      ['tpu-b-0', 'tpu-b-1'],
    ]).toContainEqual(hosts);
    const freed = (await c.job('/host0')).taskList.find((t) => t.workerId === hosts[0])!.attempts[0]!.finishedAt!;
    for (const t of done.taskList) expect(t.attempts[0]!.startedAt).toBeGreaterThanOrEqual(freed);
  });

  it('GPU tasks run only on GPU workers of the variant, with disjoint CUDA_VISIBLE_DEVICES', async () => {
    const gate = c.gate('gpu');
    await c.submit(
      ['--name', 'gpus', '--gpu', 'H100x4', '--replicas', '2', '--cpu', '0.5'],
      ['sh', '-c', `echo "CUDA=$CUDA_VISIBLE_DEVICES"; ${gate.hold}`],
    );
    const running = await c.waitForJob(
      '/gpus',
      (j) => j.taskList.every((t) => t.state === 'RUNNING'),
      'both tasks running',
    );
    expect(running.taskList.map((t) => t.workerId)).toEqual(['gpu-0', 'gpu-0']);
    const devices: string[][] = [];
    for (const task of byIndex(running)) {
      const lines = await c.waitForLog(task.id, 'CUDA=');
      const value = lines.find((l) => l.text.startsWith('CUDA='))!.text.slice(5);
      devices.push(value.split(','));
    }
    expect(devices[0]).toHaveLength(4);
    expect(devices[1]).toHaveLength(4);
    expect(new Set([...devices[0]!, ...devices[1]!]).size).toBe(8);
    for (const id of devices.flat()) expect(Number(id)).toBeGreaterThanOrEqual(0);
    gate.open();
    await c.waitForState('/gpus', 'SUCCEEDED');

    const a100 = await runJson(['--gpu', 'A100x2', '--cpu', '0.5'], ['sh', '-c', 'echo "CUDA=$CUDA_VISIBLE_DEVICES"']);
    expect(a100.taskList[0]!.workerId).toBe('gpu-1');
    const any = await runJson(['--gpu', '2', '--cpu', '0.5', '--replicas', '3'], ['true']);
    for (const task of any.taskList) expect(['gpu-0', 'gpu-1']).toContain(task.workerId);
  });

  it.each([
    [['-c', 'pool=a'], 'cpu-0'],
    [['-c', 'pool!=a', '-c', 'pool'], 'cpu-1'],
    [['-c', 'pool in (a,b)', '-c', 'rank>2'], 'cpu-1'],
    [['-c', 'rank<=1'], 'cpu-0'],
    [['-c', 'rank>=5'], 'cpu-1'],
    [['-c', 'rank<5', '-c', 'zone'], 'cpu-0'],
    [['-c', '!zone', '-c', 'pool in (a,b)'], 'cpu-1'],
    [['-c', 'pool notin (a)', '-c', 'rank'], 'cpu-1'],
    [['-c', 'tpu-name=slice-b', '-c', 'tpu-worker-id>0'], 'tpu-b-1'],
    [['-c', 'device-type=gpu', '-c', 'device-variant=A100'], 'gpu-1'],
  ])('constraints %j place the task on %s', async (flags, worker) => {
    const job = await runJson([...flags, '--cpu', '0.1'], ['true']);
    expect(job.taskList[0]!.workerId).toBe(worker);
  });

  it('a constraint on an attribute nobody has is refused; not-equals fails when the attribute is missing', async () => {
    const args = ['submit', '-c', 'zone!=z1', '-c', 'rank', '--', 'true'];
    const r = await c.iris(args);
    // zone!=z1 holds on no worker: cpu-0 has zone=z1 and the others lack zone entirely.
    expect(r.code, describeRun(args, r)).toBe(5);
    expect(r.stderr).toMatch(/zone/);
  });
});
