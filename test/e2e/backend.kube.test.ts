/**
 * E2E: the built `iris` with `backend: kubernetes` against a real API server (scripts/k8s-setup.sh)
 * and the test node agent as the kubelet (test/kube/node-agent.ts). A job with replicas binds its
 * pods to nodes and succeeds; a 4-host TPU gang waits with its reason while one host is cordoned
 * and then binds all four; a cancelled job's pods are deleted; a cordoned node preempts; a
 * SIGKILL of the controller loses nothing (the running pod is re-adopted, not re-run); the web
 * dashboard serves the nodes as workers and the pods' attempts on its timeline.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { E2ECluster, describeRun, isRunning, waitUntil } from './harness.js';
import { startNodeAgent, type NodeAgent } from '../kube/node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from '../kube/server.js';
import { TPU_POOL_LABELS } from '../kube/tpu-pool.js';
import { login, request } from './dashboard-http.js';

describeKube('kubernetes backend (built binary, real API server)', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let api: CoreV1Api;
  let c: E2ECluster;

  beforeAll(async () => {
    server = await startKubeServer();
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [
        { name: 'cpu-0', capacity: { cpu: '2', memory: '4Gi' } },
        { name: 'cpu-1', capacity: { cpu: '2', memory: '4Gi' } },
        ...[0, 1, 2, 3].map((i) => ({
          name: `tpu-${i}`,
          labels: TPU_POOL_LABELS,
          capacity: { cpu: '8', memory: '16Gi', 'google.com/tpu': '4' },
          unschedulable: i === 3,
        })),
      ],
    });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    api = kc.makeApiClient(k8s.CoreV1Api);
    c = await E2ECluster.create({
      config:
        `stop-grace: 2s\nbackend:\n  kind: kubernetes\n  kubeconfig: ${server.kubeconfig}\n  image: ` +
        `iris-test/busybox\n`,
    });
  }, 180_000);

  afterAll(async () => {
    await c?.dispose();
    await agent?.stop();
    await server?.stop();
  }, 120_000);

  const podsOf = async (job: string) =>
    (await api.listNamespacedPod({ namespace: 'default', labelSelector: `iris/job=${job}` })).items;

  it('the nodes are the workers: a job with replicas binds its pods to nodes and succeeds, with its logs', async () => {
    const workers = await c.json<Array<{ id: string; state: string }>>(['workers']);
    expect(workers.map((w) => [w.id, w.state])).toEqual([
      ['cpu-0', 'READY'],
      ['cpu-1', 'READY'],
      ['tpu-0', 'READY'],
      ['tpu-1', 'READY'],
      ['tpu-2', 'READY'],
      ['tpu-3', 'DISABLED'],
    ]);
    const r = await c.iris([
      'run',
      '--name',
      'hello',
      '--replicas',
      '3',
      '--cpu',
      '1',
      '--',
      'sh',
      '-c',
      'echo "task $IRIS_TASK_INDEX on $IRIS_WORKER_ID"',
    ]);
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const job = await c.job('/hello');
    expect(job.state).toBe('SUCCEEDED');
    const logs = (await c.logs('/hello')).map((l) => l.text);
    for (const t of job.taskList) expect(logs).toContain(`task ${t.index} on ${t.attempts[0]!.workerId}`);
    expect(new Set(job.taskList.map((t) => t.attempts[0]!.workerId)).size).toBeGreaterThan(1);
  });

  it('the dashboard serves the same views: its workers are the nodes, its jobs and timeline the pods run', async () => {
    const r = await c.iris(['dashboard', '--url']);
    expect(r.code, describeRun(['dashboard', '--url'], r)).toBe(0);
    const { base, cookie } = await login(r.stdout.trim());
    const get = async <T>(route: string): Promise<T> => {
      const answer = await request(new URL(route, base).toString(), { headers: { cookie } });
      expect(answer.status, answer.body).toBe(200);
      return JSON.parse(answer.body) as T;
    };
    const workers = await get<Array<{ id: string }>>('/v1/workers');
    expect(workers.map((w) => w.id)).toEqual(['cpu-0', 'cpu-1', 'tpu-0', 'tpu-1', 'tpu-2', 'tpu-3']);
    const jobs = await get<Array<{ name: string; state: string }>>('/v1/jobs');
    expect(jobs).toEqual(expect.arrayContaining([expect.objectContaining({ name: '/hello', state: 'SUCCEEDED' })]));
    const timeline = await get<{ attempts: Array<{ task: string; worker: string }> }>('/v1/timeline');
    const hello = timeline.attempts.filter((a) => a.task.startsWith('/hello/'));
    expect(hello).toHaveLength(3);
    for (const attempt of hello) expect(['cpu-0', 'cpu-1', 'tpu-0', 'tpu-1', 'tpu-2']).toContain(attempt.worker);
  });

  it('a 4-host TPU gang waits with its reason while one host is cordoned, then binds all four', async () => {
    await c.submit(
      ['--name', 'slice', '--tpu', 'v5litepod-16'],
      ['sh', '-c', 'echo "host $IRIS_TASK_INDEX worker $TPU_WORKER_ID"'],
    );
    const waiting = await waitUntil(
      'the gang to show its reason',
      () => c.job('/slice'),
      (j) => j.state === 'PENDING' && j.reason !== null,
    );
    expect(waiting.reason).toMatch(/tpu-name/);
    expect(await podsOf('slice')).toEqual([]); // nothing created for a gang that cannot start
    await agent.setUnschedulable('tpu-3', false);
    const done = await c.waitForState('/slice', 'SUCCEEDED', { timeoutMs: 30_000 });
    expect(done.taskList.map((t) => t.attempts[0]!.workerId).sort()).toEqual(['tpu-0', 'tpu-1', 'tpu-2', 'tpu-3']);
  });

  it('a cancelled job deletes its pods', async () => {
    await c.submit(['--name', 'long', '--cpu', '1'], ['sh', '-c', 'echo up; sleep 300']);
    await c.waitForLog('/long', 'up');
    expect((await podsOf('long')).length).toBe(1);
    const r = await c.iris(['cancel', 'long']);
    expect(r.code, describeRun(['cancel'], r)).toBe(0);
    await c.waitForState('/long', 'KILLED');
    await waitUntil(
      'the pod to be deleted',
      () => podsOf('long'),
      (pods) => pods.length === 0,
    );
    expect(agent.runningPods().filter((p) => p.includes('long'))).toEqual([]);
  });

  it('a node made unschedulable preempts its task, which runs again on another node', async () => {
    await c.submit(
      ['--name', 'moved', '--cpu', '1', '--max-preemptions', '3'],
      ['sh', '-c', 'echo "attempt $IRIS_ATTEMPT"; sleep 300'],
    );
    const first = await c.waitForLog('/moved', 'attempt 0');
    expect(first.length).toBeGreaterThan(0);
    const node = (await c.job('/moved')).taskList[0]!.attempts[0]!.workerId!;
    await agent.setUnschedulable(node, true);
    try {
      const job = await c.waitForJob(
        '/moved',
        (j) => j.taskList[0]!.attempts.length === 2 && j.taskList[0]!.attempts[1]!.state === 'RUNNING',
        'attempt 1 running',
        { timeoutMs: 30_000 },
      );
      const [a0, a1] = job.taskList[0]!.attempts;
      expect(a0!.state).toBe('PREEMPTED');
      expect(a0!.reason).toMatch(new RegExp(`node ${node}: node cordoned`));
      expect(a1!.workerId).not.toBe(node);
    } finally {
      await agent.setUnschedulable(node, false);
      await c.iris(['cancel', 'moved']);
    }
  });

  it('a SIGKILL of the controller loses nothing: the running pod is re-adopted and its end recorded', async () => {
    const gate = path.join(c.cwd, 'gate');
    await c.submit(
      ['--name', 'survivor', '--cpu', '1'],
      ['sh', '-c', `echo before; while [ ! -f ${gate} ]; do sleep 0.1; done; echo after`],
    );
    await c.waitForLog('/survivor', 'before');
    const pid = c.pid()!;
    process.kill(pid, 'SIGKILL');
    await waitUntil(
      'the controller to die',
      async () => isRunning(pid),
      (alive) => !alive,
    );
    const restart = await c.iris(['cluster', 'start', '--detach'], { timeoutMs: 60_000 });
    expect(restart.code, describeRun(['cluster', 'start'], restart)).toBe(0);
    expect((await c.job('/survivor')).state).toBe('RUNNING');
    writeFileSync(gate, '');
    const job = await c.waitForState('/survivor', 'SUCCEEDED', { timeoutMs: 30_000 });
    expect(job.taskList[0]!.attempts.map((a) => [a.attempt, a.state])).toEqual([[0, 'SUCCEEDED']]);
    const text = (await c.logs('/survivor')).map((l) => l.text);
    expect(text).toContain('before');
    expect(text).toContain('after');
    expect(existsSync(gate)).toBe(true);
  });
});
