/**
 * The kubernetes backend at fleet size (issue 36), counting work, not time, against an
 * in-process stand-in for the API server (fake-conn.ts): what the Node watch keeps and does per
 * Node event with 1,000 Nodes, the requests per bound Pod and the most open at once for a job
 * of 10,000 Pods, and how lists are read (pages) and watches resumed (no list again).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUESTS_IN_FLIGHT } from '../../src/kube/in-flight.js';
import { NodeWatch } from '../../src/kube/node-watch.js';
import { KubeRuntime } from '../../src/kube/runtime.js';
import type { WorkerSpec } from '../../src/model/types.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import { bulkyNode, fakeConnection, type FakeConnection } from './fake-conn.js';

const NODES = 1000;
const PODS = 10_000;
const tick = () => new Promise((r) => setImmediate(r));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
}

describe('the Node watch with 1,000 Nodes', () => {
  async function started() {
    const fake = fakeConnection();
    for (let i = 0; i < NODES; i++) fake.nodes.set(`n${i}`, bulkyNode(`n${i}`, 't0'));
    const reports: Array<{ workers: WorkerSpec[]; unavailable: Map<string, string> }> = [];
    const watch = new NodeWatch(
      fake.conn,
      (workers, unavailable) => reports.push({ workers, unavailable }),
      () => {},
    );
    await watch.start();
    await until(() => fake.watches.length === 1);
    return { fake, watch, reports };
  }

  it('reads the first list in pages and reports every Node once', async () => {
    const { fake, watch, reports } = await started();
    expect(fake.pageLimits.length).toBeGreaterThan(1);
    for (const limit of fake.pageLimits) expect(limit).toBeLessThanOrEqual(500);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.workers).toHaveLength(NODES);
    watch.close();
  });

  it('1,000 status heartbeats change no worker and report nothing; a cordon reports once', async () => {
    const { fake, watch, reports } = await started();
    for (let i = 0; i < NODES; i++) {
      fake.watches[0]!.send('MODIFIED', bulkyNode(`n${i}`, `t${i + 1}`));
      await tick();
    }
    await tick();
    expect(reports).toHaveLength(1);
    fake.watches[0]!.send('MODIFIED', bulkyNode('n7', 't9999', { unschedulable: true }));
    await until(() => reports.length === 2);
    expect(reports[1]!.unavailable.get('n7')).toMatch(/cordoned/);
    watch.close();
  });

  it('keeps per Node only the worker it maps to: none of the Node object (managed fields, images)', async () => {
    const { watch } = await started();
    const kept = watch.kept();
    expect(kept.size).toBe(NODES);
    const bytes = JSON.stringify([...kept.values()]).length / NODES;
    const node = JSON.stringify(bulkyNode('n1', 't0')).length;
    expect(JSON.stringify(kept.get('n1'))).not.toMatch(/managedFields|images|lastHeartbeatTime/);
    expect(bytes).toBeLessThan(node / 4);
    watch.close();
  });

  it('a watch that times out is resumed from the last version seen, without listing again', async () => {
    const { fake, watch } = await started();
    const lists = fake.calls.listNode;
    for (let i = 0; i < 5; i++) {
      fake.watches[0]!.send('MODIFIED', bulkyNode('n3', `v${i}`));
      fake.watches[0]!.end(new DOMException('timeout', 'TimeoutError'));
      await until(() => fake.watches.length === 1);
      expect(fake.watches[0]!.query.resourceVersion).toBe(`v${i}`);
    }
    expect(fake.calls.listNode).toBe(lists);
    // The server says the version is gone: then, and only then, a fresh list.
    fake.watches[0]!.send('ERROR', { kind: 'Status', code: 410 });
    fake.watches[0]!.end(null);
    await until(() => fake.calls.listNode! > lists && fake.watches.length === 1);
    watch.close();
  }, 20_000);
});

describe('a job of 10,000 Pods', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'iris-kube-fleet-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  function launch(i: number): TaskLaunch {
    return {
      key: { job: '/big', task: `/big/${i}`, attempt: 0 },
      argv: ['true'],
      env: { IRIS_TASK: `/big/${i}` },
      cwd: '',
      logPath: path.join(tmp, `${i}.log`),
      resources: { cpuMillis: 100, memoryBytes: 64e6, device: null },
      deviceIndices: [],
      labels: {},
      workerId: `n${i % NODES}`,
    };
  }

  async function bindAll(fake: FakeConnection): Promise<KubeRuntime> {
    const runtime = new KubeRuntime(fake.conn, { clusterId: 'c-fleet', image: 'bench/none' });
    await runtime.start();
    await Promise.all(Array.from({ length: PODS }, (_, i) => runtime.launch(launch(i))));
    await until(() => (fake.calls.createNamespacedPodBinding ?? 0) >= PODS);
    return runtime;
  }

  it('sends one create and one Binding per Pod, never more than the bound open at once', async () => {
    const fake = fakeConnection({ replyMs: 1 });
    const runtime = await bindAll(fake);
    expect(fake.calls.createNamespacedPod).toBe(PODS);
    expect(fake.calls.createNamespacedPodBinding).toBe(PODS);
    expect(fake.peakOpen).toBeLessThanOrEqual(REQUESTS_IN_FLIGHT);
    await runtime.close();
  }, 60_000);

  it("the Pod watch's list after a gap is read in pages", async () => {
    const fake = fakeConnection();
    const runtime = await bindAll(fake);
    await until(() => fake.watches.length === 1);
    const before = fake.pageLimits.length;
    fake.watches[0]!.send('ERROR', { kind: 'Status', code: 410 });
    fake.watches[0]!.end(null);
    await until(() => fake.watches.length === 1 && fake.pageLimits.length > before);
    const limits = fake.pageLimits.slice(before);
    expect(limits.length).toBeGreaterThanOrEqual(PODS / 500);
    for (const limit of limits) expect(limit).toBeLessThanOrEqual(500);
    await runtime.close();
  }, 60_000);
});
