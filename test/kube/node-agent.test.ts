/**
 * The test node agent against a real API server: what a client of the API sees of its Nodes and
 * of the pods bound to them (phases, exit codes, reasons, logs, deletion), as the kubernetes
 * backend's tests will rely on it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { finished as streamEnded } from 'node:stream/promises';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';

type K8s = typeof import('@kubernetes/client-node');

const NS = 'default';

describeKube('test node agent', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let k8s: K8s;
  let kc: KubeConfig;
  let api: CoreV1Api;
  let tmp: string;
  const phases = new Map<string, string[]>(); // pod name -> phases seen by a watch, in order
  let podWatch: AbortController | undefined;

  beforeAll(async () => {
    server = await startKubeServer();
    k8s = await import('@kubernetes/client-node');
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    api = kc.makeApiClient(k8s.CoreV1Api);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'iris-agent-test-'));
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [
        {
          name: 'tpu-0',
          labels: { 'cloud.google.com/gke-nodepool': 'pool-a' },
          capacity: { cpu: '8', memory: '16Gi', 'google.com/tpu': '4' },
        },
        { name: 'cpu-0', capacity: { cpu: '4', memory: '8Gi' } },
        { name: 'drained', capacity: { cpu: '4', memory: '8Gi' }, unschedulable: true },
      ],
    });
    podWatch = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${NS}/pods`,
      {},
      (_type, pod: V1Pod) => {
        const seen = phases.get(pod.metadata!.name!) ?? [];
        const phase = pod.status?.phase ?? '';
        if (seen.at(-1) !== phase) seen.push(phase);
        phases.set(pod.metadata!.name!, seen);
      },
      () => {},
    );
  }, 180_000);

  afterAll(async () => {
    podWatch?.abort();
    await agent?.stop();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  /** Creates a pod for the iris scheduler and binds it to `node` through the Binding API. */
  async function runPod(
    name: string,
    node: string,
    command: string[],
    extra: { env?: Record<string, string>; annotations?: Record<string, string> } = {},
  ): Promise<void> {
    await api.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name, annotations: extra.annotations },
        spec: {
          schedulerName: 'iris',
          restartPolicy: 'Never',
          containers: [
            {
              name: 'task',
              image: 'iris-test/busybox',
              command,
              env: Object.entries(extra.env ?? {}).map(([n, value]) => ({ name: n, value })),
            },
          ],
        },
      },
    });
    await api.createNamespacedBinding({
      namespace: NS,
      body: { metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
    });
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const readPod = (name: string) => api.readNamespacedPod({ name, namespace: NS });
  const finished = (name: string) =>
    waitFor(`pod ${name} to finish`, async () => {
      const pod = await readPod(name);
      return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? pod : undefined;
    });
  const gone = (name: string, timeoutMs?: number) =>
    waitFor(
      `pod ${name} to be deleted`,
      () =>
        readPod(name).then(
          () => undefined,
          (err: { code?: number }) => (err.code === 404 ? true : undefined),
        ),
      timeoutMs,
    );

  it('registers its nodes Ready, untainted, with their labels, capacity and kubelet endpoint', async () => {
    const node = await api.readNode({ name: 'tpu-0' });
    expect(node.metadata?.labels?.['cloud.google.com/gke-nodepool']).toBe('pool-a');
    expect(node.spec?.taints ?? []).toEqual([]);
    expect(node.spec?.unschedulable ?? false).toBe(false);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.allocatable).toEqual({ cpu: '8', memory: '16Gi', 'google.com/tpu': '4', pods: '110' });
    expect(node.status?.addresses).toEqual([{ type: 'InternalIP', address: '127.0.0.1' }]);
    expect(node.status?.daemonEndpoints?.kubeletEndpoint?.Port).toBeGreaterThan(0);
    const drained = await api.readNode({ name: 'drained' });
    expect(drained.spec?.unschedulable).toBe(true);
    expect(drained.spec?.taints?.map((t) => t.key)).toEqual(['node.kubernetes.io/unschedulable']);
  });

  it('runs a bound pod with its env: Running, then Succeeded with exit code 0 and reason Completed', async () => {
    await runPod('ok', 'cpu-0', ['sh', '-c', 'echo "hello $GREETING"; sleep 0.3'], { env: { GREETING: 'from iris' } });
    const pod = await finished('ok');
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.status?.startTime).toBeTruthy();
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(phases.get('ok')).toEqual(['Pending', 'Running', 'Succeeded']);
    const conditions = Object.fromEntries((pod.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(conditions).toEqual({ PodScheduled: 'True', Initialized: 'True', ContainersReady: 'False', Ready: 'False' });
    expect(await api.readNamespacedPodLog({ name: 'ok', namespace: NS, container: 'task' })).toBe('hello from iris\n');
  });

  it('reports a failing pod as Failed with its exit code and reason Error', async () => {
    await runPod('fails', 'tpu-0', ['sh', '-c', 'echo oops >&2; exit 3']);
    const pod = await finished('fails');
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(await api.readNamespacedPodLog({ name: 'fails', namespace: NS })).toBe('oops\n');
  });

  it('serves logs through the API: timestamps, tailLines, and follow until the container ends', async () => {
    await runPod('talks', 'cpu-0', ['sh', '-c', 'echo one; sleep 1; echo two; sleep 1; printf three']);
    await waitFor('talks to run', async () =>
      (await readPod('talks')).status?.phase === 'Running' ? true : undefined,
    );
    const out = new PassThrough();
    let followed = '';
    out.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    // client-node 2.0.1's Log ignores its `done` callback: the end of the reply ends the stream
    await new k8s.Log(kc).log(NS, 'talks', 'task', out, { follow: true });
    await streamEnded(out);
    expect(followed).toBe('one\ntwo\nthree\n');
    expect((await finished('talks')).status?.phase).toBe('Succeeded'); // the status lands just after the output ends
    const stamped = await api.readNamespacedPodLog({ name: 'talks', namespace: NS, timestamps: true });
    expect(
      stamped
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, '')),
    ).toEqual(['one', 'two', 'three']);
    expect(await api.readNamespacedPodLog({ name: 'talks', namespace: NS, tailLines: 1 })).toBe('three\n');
  });

  it('graceful deletion: SIGTERM to the process, then the pod is removed', async () => {
    const marker = path.join(tmp, 'got-term');
    await runPod('polite', 'cpu-0', [
      'sh',
      '-c',
      `trap 'echo term > ${marker}; exit 0' TERM; while true; do sleep 0.1; done`,
    ]);
    await waitFor('polite to run', async () => (agent.runningPods().includes('polite') ? true : undefined));
    const t0 = Date.now();
    await api.deleteNamespacedPod({ name: 'polite', namespace: NS, gracePeriodSeconds: 30 });
    await gone('polite');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(readFileSync(marker, 'utf8')).toBe('term\n');
    expect(agent.runningPods()).not.toContain('polite');
  });

  it('graceful deletion: a process that ignores SIGTERM is killed after the grace period', async () => {
    await runPod('stubborn', 'tpu-0', ['sh', '-c', "trap '' TERM; while true; do sleep 0.1; done"]);
    await waitFor('stubborn to run', async () => (agent.runningPods().includes('stubborn') ? true : undefined));
    const t0 = Date.now();
    await api.deleteNamespacedPod({ name: 'stubborn', namespace: NS, gracePeriodSeconds: 4 });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await readPod('stubborn')).metadata?.deletionTimestamp).toBeTruthy(); // still there within the grace
    expect(agent.runningPods()).toContain('stubborn');
    await gone('stubborn');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3900);
    expect(agent.runningPods()).not.toContain('stubborn');
  });

  it('annotation iris.test/oom: Failed with reason OOMKilled and exit code 137', async () => {
    await runPod('hungry', 'tpu-0', ['sleep', '30'], { annotations: { 'iris.test/oom': 'true' } });
    const pod = await finished('hungry');
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
    expect(phases.get('hungry')).toEqual(['Pending', 'Running', 'Failed']);
  });

  it('annotation iris.test/evict: phase Failed with status.reason Evicted', async () => {
    await runPod('evicted', 'cpu-0', ['sleep', '30'], { annotations: { 'iris.test/evict': 'true' } });
    const pod = await finished('evicted');
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.reason).toBe('Evicted');
    expect(agent.runningPods()).not.toContain('evicted');
  });

  it('a command that cannot start: Failed with reason ContainerCannotRun', async () => {
    await runPod('missing', 'cpu-0', ['/nonexistent/iris-test-binary']);
    const pod = await finished('missing');
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.containerStatuses?.[0].state?.terminated?.reason).toBe('ContainerCannotRun');
  });

  it('setUnschedulable sets and clears spec.unschedulable and its taint', async () => {
    await agent.setUnschedulable('cpu-0', true);
    let node = await api.readNode({ name: 'cpu-0' });
    expect(node.spec?.unschedulable).toBe(true);
    expect(node.spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    await agent.setUnschedulable('cpu-0', false);
    node = await api.readNode({ name: 'cpu-0' });
    expect(node.spec?.unschedulable ?? false).toBe(false);
    expect(node.spec?.taints ?? []).toEqual([]);
  });

  it('deleteNode: the node and its pods disappear, their processes end', async () => {
    const other = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [{ name: 'doomed', capacity: { cpu: '1', memory: '1Gi' } }],
    });
    try {
      await runPod('on-doomed', 'doomed', ['sleep', '60']);
      await waitFor('on-doomed to run', async () => (other.runningPods().includes('on-doomed') ? true : undefined));
      await other.deleteNode('doomed');
      expect(other.runningPods()).toEqual([]);
      await gone('on-doomed', 5_000);
      await expect(api.readNode({ name: 'doomed' })).rejects.toMatchObject({ code: 404 });
    } finally {
      await other.stop();
    }
  });

  it('a second agent takes over an existing Node of the same name', async () => {
    const again = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [{ name: 'drained', labels: { extra: 'yes' }, capacity: { cpu: '2', memory: '2Gi' } }],
    });
    try {
      const node = await api.readNode({ name: 'drained' });
      expect(node.metadata?.labels?.extra).toBe('yes');
      expect(node.spec?.unschedulable ?? false).toBe(false);
      expect(node.status?.allocatable?.cpu).toBe('2');
    } finally {
      await again.stop();
    }
  });

  it('stop() kills every process it runs and leaves none behind', async () => {
    const pidFile = path.join(tmp, 'sleeper.pid');
    const other = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [{ name: 'short-lived', capacity: { cpu: '1', memory: '1Gi' } }],
    });
    await runPod('sleeper', 'short-lived', ['sh', '-c', `sleep 60 & echo $! > ${pidFile}; wait`]);
    await waitFor('the sleeper pid', async () =>
      existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n') ? true : undefined,
    );
    expect(other.runningPods()).toEqual(['sleeper']);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await other.stop();
    expect(other.runningPods()).toEqual([]);
    const alive = existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
    expect(alive).toBe(false);
  });
});
