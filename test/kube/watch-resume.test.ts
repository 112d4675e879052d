/**
 * The watches against a real API server (issue 36): a watch that times out is opened again from
 * the last resourceVersion, so nothing is listed again and no event is lost; a Node's status
 * heartbeat reports nothing, a cordon reports once. The client's quiet timeout is shortened to
 * make the watch end often.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectKube, type KubeConnection } from '../../src/kube/client.js';
import { NodeWatch } from '../../src/kube/node-watch.js';
import type { WorkerSpec } from '../../src/model/types.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';

describeKube('watches resumed from their resourceVersion (real API server)', () => {
  let server: KubeServer;
  let conn: KubeConnection;
  let api: CoreV1Api;

  beforeAll(async () => {
    server = await startKubeServer();
    conn = await connectKube({ kubeconfig: server.kubeconfig, context: null, namespace: 'default' });
    api = conn.core;
    // The client ends a watch that sent nothing for this long: here, every ~1.5 s.
    (conn.watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = 1500;
    for (const name of ['w-0', 'w-1', 'w-2']) await api.createNode({ body: readyNode(name, new Date()) });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  }, 120_000);

  function readyNode(name: string, heartbeat: Date) {
    const capacity = { cpu: '4', memory: '8Gi', pods: '10' };
    return {
      metadata: { name },
      status: {
        capacity,
        allocatable: capacity,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            lastHeartbeatTime: heartbeat,
            lastTransitionTime: heartbeat,
          },
        ],
      },
    };
  }

  it('keeps watching across timeouts without listing again; heartbeats report nothing, a cordon once', async () => {
    const reports: Array<{ workers: WorkerSpec[]; unavailable: Map<string, string> }> = [];
    const watch = new NodeWatch(
      conn,
      (workers, unavailable) => reports.push({ workers, unavailable }),
      () => {},
    );
    await watch.start();
    try {
      expect(reports).toHaveLength(1);
      expect(reports[0]!.workers.map((w) => w.id)).toEqual(['w-0', 'w-1', 'w-2']);
      // A few quiet timeouts: each resumes the watch, none lists.
      const deadline = Date.now() + 30_000;
      while (watch.counts.watches < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(watch.counts.watches).toBeGreaterThanOrEqual(4);
      // Status heartbeats (what a kubelet sends): the Nodes change, their workers do not.
      for (const name of ['w-0', 'w-1', 'w-2'])
        await api.replaceNodeStatus({ name, body: { ...(await api.readNode({ name })), ...statusOf(name) } });
      // A cordon after them: its report shows the heartbeats were seen (same watch) and reported nothing.
      const node = await api.readNode({ name: 'w-1' });
      await api.replaceNode({ name: 'w-1', body: { ...node, spec: { ...node.spec, unschedulable: true } } });
      const until = Date.now() + 20_000;
      while (reports.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(reports).toHaveLength(2);
      expect(reports[1]!.unavailable.get('w-1')).toBe('node cordoned (unschedulable)');
      expect(watch.counts.lists).toBe(1);
    } finally {
      watch.close();
    }
  });

  function statusOf(name: string) {
    return { status: readyNode(name, new Date(Date.now() + 1000)).status };
  }
});
