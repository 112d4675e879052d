/**
 * The kubernetes backend's runtime and node watch against a real API server, with the test node
 * agent as the kubelet: pods bound to the chosen node, exits and logs, a gang bound all or none,
 * stop deleting the pod, nodes reported as workers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../src/kube/client.js';
import { NodeWatch } from '../../src/kube/node-watch.js';
import { podName } from '../../src/kube/pods.js';
import { KubeRuntime } from '../../src/kube/runtime.js';
import { readLines } from '../logs/read.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import type { WorkerSpec } from '../../src/model/types.js';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';
import { TPU_POOL_LABELS } from './tpu-pool.js';

const CLUSTER = 'c-test';

describeKube('kubernetes runtime against a real API server', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let conn: KubeConnection;
  let runtime: KubeRuntime;
  let api: CoreV1Api;
  let tmp: string;
  let n = 0;

  beforeAll(async () => {
    server = await startKubeServer();
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [
        { name: 'cpu-0', capacity: { cpu: '4', memory: '8Gi' } },
        ...[0, 1, 2, 3].map((i) => ({
          name: `tpu-${i}`,
          labels: TPU_POOL_LABELS,
          capacity: { cpu: '8', memory: '16Gi', 'google.com/tpu': '4' },
        })),
      ],
    });
    conn = await connectKube({ kubeconfig: server.kubeconfig, context: null, namespace: 'default' });
    api = conn.core;
    runtime = new KubeRuntime(conn, { clusterId: CLUSTER, image: 'iris-test/busybox' });
    await runtime.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'iris-kube-runtime-'));
  }, 180_000);

  afterAll(async () => {
    await runtime?.close();
    await agent?.stop();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  function launch(argv: string[], o: Partial<TaskLaunch> = {}): TaskLaunch {
    const i = n++;
    return {
      key: { job: `/j${i}`, task: `/j${i}/task-0`, attempt: 0 },
      argv,
      env: { GREETING: 'hello' },
      cwd: '',
      logPath: path.join(tmp, `a${i}.log`),
      resources: { cpuMillis: 500, memoryBytes: 64 * 1024 ** 2, device: null },
      deviceIndices: [],
      labels: {},
      workerId: 'cpu-0',
      ...o,
    };
  }

  const nodeOf = async (l: TaskLaunch) =>
    (await api.readNamespacedPod({ name: podName(CLUSTER, l.key), namespace: 'default' })).spec?.nodeName ?? null;

  it('a pod is bound to the chosen node, runs with the env, and its exit code and log come back', async () => {
    const l = launch(['sh', '-c', 'echo "$GREETING from $IRIS_X"; exit 3'], {
      env: { GREETING: 'hello', IRIS_X: 'pod' },
    });
    const task = await runtime.launch(l);
    const exit = await task.exited;
    expect(exit).toMatchObject({ exitCode: 3, signal: null });
    expect((await readLines(l.logPath)).map((r) => r.text)).toContain('hello from pod');
  });

  it('a pod is placed where iris says (the TPU node it names)', async () => {
    const l = launch(['sh', '-c', 'sleep 1'], { workerId: 'tpu-2' });
    const task = await runtime.launch(l);
    let node: string | null = null;
    for (let i = 0; i < 50 && node === null; i++) {
      node = await nodeOf(l);
      if (node === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(node).toBe('tpu-2');
    expect(await task.exited).toMatchObject({ exitCode: 0 });
  });

  it('a gang is bound all or none: three of four members stay unbound until the fourth exists', async () => {
    const gang = { id: '/gang@1', size: 4 };
    const ls = [0, 1, 2, 3].map((i) =>
      launch(['sh', '-c', 'echo member $IRIS_TASK_INDEX'], {
        workerId: `tpu-${i}`,
        gang,
        env: { IRIS_TASK_INDEX: String(i) },
      }),
    );
    const first = await Promise.all(ls.slice(0, 3).map((l) => runtime.launch(l)));
    await new Promise((r) => setTimeout(r, 500));
    expect(await Promise.all(ls.slice(0, 3).map(nodeOf))).toEqual([null, null, null]);
    const last = await runtime.launch(ls[3]!);
    const exits = await Promise.all([...first, last].map((t) => t.exited));
    expect(exits.map((e) => e.exitCode)).toEqual([0, 0, 0, 0]);
  });

  it('a gang whose binding fails is deleted whole and reported lost', async () => {
    const gang = { id: '/gang@2', size: 2 };
    const a = launch(['sh', '-c', 'sleep 30'], { workerId: 'tpu-0', gang });
    const b = launch(['sh', '-c', 'sleep 30'], { workerId: 'tpu-1', gang });
    const ta = await runtime.launch(a);
    // Someone else binds b's pod first: iris's binding of it fails (409).
    const name = podName(CLUSTER, b.key);
    await api.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name, labels: { 'iris/managed-by': 'iris', 'iris/cluster': CLUSTER } },
        spec: {
          schedulerName: 'iris',
          restartPolicy: 'Never',
          containers: [{ name: 'task', image: 'x', command: ['sleep', '30'] }],
        },
      },
    });
    await api.createNamespacedBinding({
      namespace: 'default',
      body: { metadata: { name }, target: { kind: 'Node', name: 'cpu-0' } },
    });
    const tb = await runtime.launch(b);
    const [ea, eb] = await Promise.all([ta.exited, tb.exited]);
    expect(ea.lost).toMatch(/gang binding failed/);
    expect(eb.lost).toMatch(/gang binding failed/);
  });

  it('stop deletes the pod with the grace period and resolves when it is gone', async () => {
    const l = launch(['sh', '-c', 'trap "echo got TERM; exit 0" TERM; echo started; while true; do sleep 0.1; done']);
    const task = await runtime.launch(l);
    for (let i = 0; i < 100 && !agent.runningPods().includes(podName(CLUSTER, l.key)); i++)
      await new Promise((r) => setTimeout(r, 100));
    await runtime.stop(task, 5000);
    await expect(api.readNamespacedPod({ name: podName(CLUSTER, l.key), namespace: 'default' })).rejects.toMatchObject({
      code: 404,
    });
    expect(agent.runningPods()).not.toContain(podName(CLUSTER, l.key));
  });

  it('a pod deleted by someone else is lost (a preemption)', async () => {
    const l = launch(['sh', '-c', 'sleep 30']);
    const task = await runtime.launch(l);
    for (let i = 0; i < 100 && !agent.runningPods().includes(podName(CLUSTER, l.key)); i++)
      await new Promise((r) => setTimeout(r, 100));
    await api.deleteNamespacedPod({
      name: podName(CLUSTER, l.key),
      namespace: 'default',
      body: { gracePeriodSeconds: 1 },
    });
    expect((await task.exited).lost).toBeDefined();
  });

  it('nodes are reported as workers; a cordoned node is unavailable with the reason', async () => {
    let latest: { workers: WorkerSpec[]; unavailable: Map<string, string> } | null = null;
    let wake: () => void = () => {};
    const watch = new NodeWatch(
      conn,
      (workers, unavailable) => {
        latest = { workers, unavailable };
        wake();
      },
      () => {},
    );
    await watch.start();
    try {
      const first = latest!;
      expect(first.workers.map((w) => w.id)).toEqual(['cpu-0', 'tpu-0', 'tpu-1', 'tpu-2', 'tpu-3']);
      const tpu = first.workers.find((w) => w.id === 'tpu-3')!;
      expect(tpu.device).toEqual({ type: 'tpu', variant: 'v5litepod-16', count: 4 });
      expect(tpu.attributes).toMatchObject({ 'tpu-name': 'pool-a', 'tpu-worker-id': '3' });
      const changed = new Promise<void>((resolve) => (wake = resolve));
      await agent.setUnschedulable('cpu-0', true);
      await changed;
      expect(latest!.unavailable.get('cpu-0')).toBe('node cordoned (unschedulable)');
      await agent.setUnschedulable('cpu-0', false);
    } finally {
      watch.close();
    }
  });
});
