import { it } from 'vitest';
import { startKubeServer } from './server.js';
import { startNodeAgent } from './node-agent.js';
import * as k8s from '@kubernetes/client-node';
import { PassThrough } from 'node:stream';
it("dbg", async () => {
const s = await startKubeServer();
try {
  const agent = await startNodeAgent({ kubeconfig: s.kubeconfig, nodes: [{ name: 'n1', capacity: { cpu: '2' } }] });
  const kc = new k8s.KubeConfig(); kc.loadFromFile(s.kubeconfig);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const mk = async (name: string, cmd: string[]) => {
    await api.createNamespacedPod({ namespace: 'default', body: { metadata: { name }, spec: { schedulerName: 'iris', containers: [{ name: 'task', image: 'x', command: cmd }] } } });
    await api.createNamespacedBinding({ namespace: 'default', body: { metadata: { name }, target: { kind: 'Node', name: 'n1' } } });
  };
  
  await new Promise((r) => setTimeout(r, 500));
  const out = new PassThrough();
  out.on('data', (c) => console.log('data', JSON.stringify(c.toString())));
  const t0 = Date.now();

  await mk('polite', ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 0.1; done']);
  await new Promise((r) => setTimeout(r, 1000));
  console.log('running', agent.runningPods());
  await api.deleteNamespacedPod({ name: 'polite', namespace: 'default', gracePeriodSeconds: 30 });
  await new Promise((r) => setTimeout(r, 3000));
  console.log('running', agent.runningPods());
  try { const p = await api.readNamespacedPod({ name: 'polite', namespace: 'default' }); console.log(JSON.stringify(p.status), p.metadata?.deletionTimestamp); } catch (e) { console.log('gone', (e as any).code); }
  await agent.stop();
} finally { await s.stop(); }
}, 100000);
