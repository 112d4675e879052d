/**
 * The node agent's Nodes as the real kube-scheduler sees them: pods of the default scheduler are
 * placed only on schedulable nodes with room, and the agent runs them (the baseline the
 * kubernetes benchmark compares iris's bindings with).
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';

describeKube('node agent with the real kube-scheduler', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let api: CoreV1Api;

  beforeAll(async () => {
    server = await startKubeServer({ withScheduler: true });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    api = kc.makeApiClient(k8s.CoreV1Api);
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [
        { name: 'small', capacity: { cpu: '1', memory: '1Gi' } },
        { name: 'big', capacity: { cpu: '4', memory: '4Gi' } },
        { name: 'cordoned', capacity: { cpu: '64', memory: '64Gi' }, unschedulable: true },
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await agent?.stop();
    await server?.stop();
  }, 120_000);

  it('places pods on schedulable nodes that fit, and the agent runs them to Succeeded', async () => {
    const names = ['a', 'b', 'c'];
    for (const name of names) {
      await api.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name },
          spec: {
            restartPolicy: 'Never',
            containers: [
              { name: 'main', image: 'iris-test/busybox', command: ['true'], resources: { requests: { cpu: '2' } } },
            ],
          },
        },
      });
    }
    const deadline = Date.now() + 60_000;
    let pods = (await api.listNamespacedPod({ namespace: 'default' })).items;
    while (pods.some((p) => p.status?.phase !== 'Succeeded') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      pods = (await api.listNamespacedPod({ namespace: 'default' })).items;
    }
    // 2 cpu each: only "big" fits them ("small" is too small, "cordoned" is unschedulable)
    expect(pods.map((p) => [p.metadata?.name, p.spec?.nodeName, p.status?.phase]).sort()).toEqual([
      ['a', 'big', 'Succeeded'],
      ['b', 'big', 'Succeeded'],
      ['c', 'big', 'Succeeded'],
    ]);
  });
});
