/**
 * WorkerFeed on a real store, the fake runtime and the controller: Nodes that join, become
 * unavailable (attempts preempted, worker disabled by `node`, still counted for feasibility),
 * come back, or are deleted (drained) and re-created (resumed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerFeed } from '../../../src/cluster/controller/worker-feed.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

function setup(): { h: Harness; feed: WorkerFeed; log: string[] } {
  h = harness([]);
  const log: string[] = [];
  const feed = new WorkerFeed({
    store: h.store,
    applyStopOrders: (o) => h!.controller.applyStopOrders(o),
    requestPass: () => h!.controller.requestPass(true),
    log: (m) => log.push(m),
  });
  return { h, feed, log };
}

describe('worker feed', () => {
  it(
    'a node that joins takes work; one that is cordoned preempts its attempt and is disabled with the reason; ' +
      'uncordoned it is enabled',
    async () => {
      const { h, feed, log } = setup();
      const { store, controller, until } = h;
      controller.start();
      feed.update([workerSpec('n1')], new Map());
      expect(store.worker('n1')?.state).toBe('READY');
      store.submit(spec('/a', { command: LONG, constraints: [], maxPreemptions: 10 }));
      await until(() => store.task('/a/task-0')?.state === 'RUNNING');
      feed.update([workerSpec('n1')], new Map([['n1', 'node cordoned (unschedulable)']]));
      expect(store.worker('n1')).toMatchObject({
        state: 'DISABLED',
        disabled: { by: 'node', reason: 'node cordoned (unschedulable)' },
      });
      expect(store.attemptsOf('/a/task-0')[0]).toMatchObject({
        state: 'PREEMPTED',
        reason: 'node n1: node cordoned (unschedulable)',
      });
      expect(store.task('/a/task-0')?.state).toBe('PENDING');
      feed.update([workerSpec('n1')], new Map());
      expect(store.worker('n1')?.state).toBe('READY');
      await until(() => store.task('/a/task-0')?.state === 'RUNNING');
      expect(log).toEqual([
        'worker n1 joined',
        'worker n1 disabled: node cordoned (unschedulable)',
        'worker n1 enabled: its node takes work again',
      ]);
    },
  );

  it("a user's disable is left alone when the node is available", () => {
    const { h, feed } = setup();
    feed.update([workerSpec('n1')], new Map());
    h.store.disableWorker('n1', 'user', 'maintenance');
    feed.update([workerSpec('n1')], new Map());
    expect(h.store.worker('n1')).toMatchObject({ state: 'DISABLED', disabled: { by: 'user' } });
  });

  it('a deleted node is drained (its attempt preempted) and leaves; back, it joins again', async () => {
    const { h, feed, log } = setup();
    const { store, controller, until } = h;
    controller.start();
    feed.update([workerSpec('n1'), workerSpec('n2', { cpuMillis: 100 })], new Map());
    store.submit(spec('/a', { command: LONG, constraints: [], maxPreemptions: 10 }));
    await until(() => store.task('/a/task-0')?.state === 'RUNNING');
    expect(store.task('/a/task-0')?.workerId).toBe('n1');
    feed.update([workerSpec('n2', { cpuMillis: 100 })], new Map());
    expect(store.worker('n1')).toMatchObject({ state: 'DRAINED', left: { by: 'node' } });
    expect(store.workers().map((w) => w.id)).toEqual(['n2']);
    expect(store.attemptsOf('/a/task-0')[0]?.state).toBe('PREEMPTED');
    expect(() => store.resumeWorker('n1')).toThrow(/worker n1 has left the cluster: its Kubernetes node was deleted/);
    feed.update([workerSpec('n1'), workerSpec('n2', { cpuMillis: 100 })], new Map());
    expect(store.worker('n1')?.state).toBe('READY');
    expect(store.worker('n1')?.left).toBeUndefined();
    await until(() => store.task('/a/task-0')?.state === 'RUNNING');
    expect(log).toContain('worker n1 is gone (its node was deleted): it left the cluster');
    expect(log.filter((line) => line === 'worker n1 joined')).toHaveLength(2);
  });
});
