/**
 * Issue 17 §1: a Pod task reaches the controller for children through the TCP task door.
 * The built iris controller with `backend: kubernetes` and `task-door` on 127.0.0.1:<free port>,
 * the test node agent as the kubelet (it runs each bound Pod as a local process with the Pod's
 * env and HOSTNAME = the Pod's name): a job's Pod gets IRIS_CONTROLLER_ADDRESS=http://…, runs
 * `iris run` for a child over TCP with its token; the child becomes a Pod too and succeeds.
 * Needs the kubernetes backend (branch k-backend: the config's `backend:` key); checked on a
 * merge of k-door with k-backend.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { E2ECluster, describeRun } from '../e2e/harness.js';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';
import { freePort } from '../helpers/free-port.js';

describeKube('the TCP task door with the kubernetes backend', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let c: E2ECluster;
  let url: string;

  beforeAll(async () => {
    server = await startKubeServer();
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [{ name: 'cpu-0', capacity: { cpu: '4', memory: '8Gi' } }],
    });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    c = await E2ECluster.create({
      config: `
stop-grace: 1s
backend: {kind: kubernetes, kubeconfig: ${server.kubeconfig}, namespace: default, image: iris-test/busybox}
task-door: {listen: 127.0.0.1:${port}}
`,
    });
  }, 180_000);

  afterAll(async () => {
    await c?.dispose();
    await agent?.stop();
    await server?.stop();
  }, 120_000);

  it('a pod submits a child through http://… with its token, and the child runs as a pod', async () => {
    const script = [
      'echo "addr=$IRIS_CONTROLLER_ADDRESS worker=$IRIS_WORKER_ID pod=$HOSTNAME"',
      'iris run --name kid --cpu 0.1 -- sh -c \'echo "kid-ran worker=$IRIS_WORKER_ID pod=$HOSTNAME"\'',
      'echo "kid rc=$?"',
    ].join('\n');
    const args = ['run', '--name', 'parent', '--cpu', '0.1', '--', 'sh', '-c', script];
    const r = await c.iris(args, { timeoutMs: 90_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain(`addr=${url} worker=cpu-0 pod=`);
    expect(r.stdout).toContain('kid rc=0');
    expect((await c.job('/parent/kid')).state).toBe('SUCCEEDED');
    const kid = await c.iris(['logs', '/parent/kid']);
    expect(kid.stdout).toMatch(/kid-ran worker=cpu-0 pod=\S+/);
  }, 120_000);

  it("a pod's child without --image is a pod of its parent's image, not the backend's (issue 28 §1)", async () => {
    // The agent runs pods as local processes: the gate is a file the child waits for while the
    // test reads its Pod's spec from the API server.
    const gate = c.gate('contained');
    const script =
      `iris run --name kid --cpu 0.1 -- sh -c "echo kid-holding; ${gate.hold.replaceAll('"', '\\"')}` +
      `"; echo "kid rc=$?"`;
    const args = [
      'run',
      '--name',
      'boxed',
      '--image',
      'iris-test/node:local',
      '--cpu',
      '0.1',
      '--',
      'sh',
      '-c',
      script,
    ];
    const running = c.iris(args, { timeoutMs: 90_000 });
    await c.waitForLog('/boxed/kid/task-0', 'kid-holding', { timeoutMs: 60_000 });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const pods = (
      await kc
        .makeApiClient(k8s.CoreV1Api)
        .listNamespacedPod({ namespace: 'default', labelSelector: 'iris/job=boxed-kid' })
    ).items;
    gate.open();
    expect(pods.map((pod) => pod.spec?.containers[0]?.image)).toEqual(['iris-test/node:local']);
    // The Pod gets its token in its environment (a Pod has no file of the engine's), and iris in it works.
    expect(pods[0]!.spec?.containers[0]?.env?.some((e) => e.name === 'IRIS_TASK_TOKEN')).toBe(true);
    const r = await running;
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('kid rc=0');
  }, 120_000);
});
