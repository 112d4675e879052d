/**
 * E2E: the built `iris` with `backend: kubernetes` against a real API server whose one Node is
 * the REAL kubelet 1.20 (`scripts/k8s-setup.sh start --with-kubelet`: dockershim, a private
 * Docker engine), not the test node agent. Shows that a job with replicas is bound to the
 * kubelet's Node, run in containers and succeeds with its output in `iris logs` (pod log API →
 * kubelet); that a task's exit code 3 comes back from the container; and that cancel deletes the
 * Pod and the kubelet stops its containers.
 *
 * Needs root and `scripts/k8s-setup.sh kubelet` (describeKubelet: one skip line otherwise, a
 * failure under CI=true). The kubelet's start costs 20–40 s; the tests share one server.
 */
import { execFile } from 'node:child_process';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { E2ECluster, describeRun, waitUntil } from './harness.js';
import { describeKubelet, startKubeServer, type KubeServer } from '../kube/server.js';

/** `docker ARGS` against the kubelet's private engine; stdout lines. */
function kubeletDocker(server: KubeServer, args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'docker',
      args,
      { env: { ...process.env, DOCKER_HOST: server.kubeletDockerHost }, encoding: 'utf8', timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`docker ${args.join(' ')}: ${stderr || error.message}`));
        else resolve(stdout.split('\n').filter((line) => line.trim() !== ''));
      },
    );
  });
}

describeKubelet('kubernetes backend on the real kubelet (built binary, real API server)', () => {
  let server: KubeServer;
  let api: CoreV1Api;
  let stopWatch: (() => void) | undefined;
  let c: E2ECluster;
  /** The last state the watch saw of every Pod (by name), deleted ones included. */
  const pods = new Map<string, V1Pod>();

  beforeAll(async () => {
    server = await startKubeServer({ withKubelet: true });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    api = kc.makeApiClient(k8s.CoreV1Api);
    const watch = await new k8s.Watch(kc).watch(
      '/api/v1/namespaces/default/pods',
      {},
      (_type: string, pod: V1Pod) => {
        if (pod.metadata?.name) pods.set(pod.metadata.name, pod);
      },
      () => {},
    );
    stopWatch = () => watch.abort();
    // `:local`, not `:latest`: iris's Pods set no imagePullPolicy, and `:latest` means Always
    // (a pull from a registry this machine cannot reach)
    c = await E2ECluster.create({
      config:
        `stop-grace: 2s\nbackend:\n  kind: kubernetes\n  kubeconfig: ${server.kubeconfig}\n  image: ` +
        `iris-test/busybox:local\n`,
    });
  }, 240_000);

  afterAll(async () => {
    stopWatch?.();
    await c?.dispose();
    await server?.stop();
  }, 120_000);

  const podsOfJob = (job: string) => [...pods.values()].filter((p) => p.metadata?.labels?.['iris/job'] === job);

  it(
    "a job with replicas is bound to the kubelet's Node, runs in its containers and succeeds, with its " + 'logs',
    async () => {
      const node = server.kubeletNode!;
      const workers = await c.json<Array<{ id: string; state: string }>>(['workers']);
      expect(workers.map((w) => [w.id, w.state])).toEqual([[node, 'READY']]);

      const r = await c.iris(
        [
          'run',
          '--name',
          'hello',
          '--replicas',
          '2',
          '--cpu',
          '0.1',
          '--',
          'sh',
          '-c',
          'echo hi $IRIS_TASK_INDEX; exit 0',
        ],
        { timeoutMs: 120_000 },
      );
      expect(r.code, describeRun(['run'], r)).toBe(0);
      const job = await c.job('/hello');
      expect(job.state).toBe('SUCCEEDED');
      expect(job.taskList.map((t) => [t.attempts[0]!.workerId, t.attempts[0]!.exitCode])).toEqual([
        [node, 0],
        [node, 0],
      ]);

      const logs = await c.iris(['logs', '/hello']);
      expect(logs.code, describeRun(['logs'], logs)).toBe(0);
      expect(logs.stdout).toContain('hi 0');
      expect(logs.stdout).toContain('hi 1');

      // what the API server saw: two Pods bound to the kubelet's Node, run by it in Docker
      const seen = podsOfJob('hello');
      expect(seen.map((p) => p.spec?.nodeName)).toEqual([node, node]);
      for (const pod of seen) {
        expect(pod.spec?.schedulerName).toBe('iris');
        const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
        expect(terminated?.exitCode).toBe(0);
        expect(terminated?.containerID).toMatch(/^docker:\/\//);
      }
    },
  );

  it('a task that exits 3 is FAILED with exit code 3', async () => {
    const r = await c.iris(['run', '--name', 'three', '--cpu', '0.1', '--', 'sh', '-c', 'echo failing; exit 3'], {
      timeoutMs: 120_000,
    });
    expect(r.code, describeRun(['run'], r)).toBe(1);
    const job = await c.job('/three');
    expect(job.state).toBe('FAILED');
    expect(job.taskList[0]!.attempts.map((a) => [a.state, a.exitCode])).toEqual([['FAILED', 3]]);
    const terminated = podsOfJob('three')[0]?.status?.containerStatuses?.[0]?.state?.terminated;
    expect(terminated?.exitCode).toBe(3);
  });

  it("a cancelled task's Pod is deleted and the kubelet stops its containers", async () => {
    await c.submit(['--name', 'long', '--cpu', '0.1'], ['sh', '-c', 'echo up; sleep 300']);
    await c.waitForLog('/long', 'up', { timeoutMs: 60_000 });
    const listed = () =>
      api
        .listNamespacedPod({ namespace: 'default', labelSelector: 'iris/job=long' })
        .then((list) => list.items.map((p) => p.metadata?.name));
    const name = podsOfJob('long')[0]!.metadata!.name!;
    expect(await listed()).toEqual([name]);
    const filter = ['--filter', `label=io.kubernetes.pod.name=${name}`];
    // the task's container and the Pod's sandbox (pause) run in the private engine
    expect((await kubeletDocker(server, ['ps', '-q', ...filter])).length).toBe(2);

    const r = await c.iris(['cancel', 'long']);
    expect(r.code, describeRun(['cancel'], r)).toBe(0);
    await c.waitForState('/long', 'KILLED');
    await waitUntil('the Pod to be gone from the API', listed, (names) => names.length === 0, { timeoutMs: 60_000 });
    await waitUntil(
      "the Pod's containers to stop",
      () => kubeletDocker(server, ['ps', '-q', ...filter]),
      (ids) => ids.length === 0,
      { timeoutMs: 60_000 },
    );
  });
});
