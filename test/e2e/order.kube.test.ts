/**
 * E2E (issue 17 §2): the queue order of the built `iris` with `backend: kubernetes`, seen on the
 * Pods a real API server holds (scripts/k8s-setup.sh) and the test node agent runs as local
 * processes (test/kube/node-agent.ts).
 *
 * - Depth-first order across Pods: a tree whose parents submit their children from inside their
 *   Pods (through IRIS_CONTROLLER_ADDRESS, the controller's task socket) on a 1-CPU Node: the
 *   deeper tasks of an older tree run before a root submitted earlier than they were, one Pod at
 *   a time, in `iris queue` order (depth DESC, then root submission time).
 * - A reservation holds across Pods: a 2-CPU job blocked by a running one is reserved on the only
 *   Node it fits (`iris queue --json`, its reason) and gets no Pod; a long job goes to the other
 *   Node instead of the reserved one, a second one waits saying it would delay the reservation,
 *   a short one is backfilled on the reserved Node; once the blocker ends the big job is bound
 *   there before the waiting one starts.
 *
 * The order Pods started is taken from a watch on the Pods (the first event with a startTime,
 * written by the agent when it spawns the process), not from iris's own records.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobDetail, QueueInfo } from '../../src/api/types.js';
import { E2ECluster, describeRun, waitUntil } from './harness.js';
import { isoReason } from '../helpers/reason-text.js';
import { startNodeAgent, type NodeAgent } from '../kube/node-agent.js';
import { describeKube, startKubeServer, type KubeServer } from '../kube/server.js';
import { joined } from '../helpers/regex.js';

const MIN = 60_000;
const startOf = (job: JobDetail): number => job.taskList[0]!.attempts[0]!.startedAt;
const finishOf = (job: JobDetail): number => job.taskList[0]!.attempts[0]!.finishedAt!;
const workerOf = (job: JobDetail): string | null => job.taskList[0]!.attempts[0]!.workerId;
const iso = (ms: number): string => new Date(ms).toISOString();

describeKube('queue order across pods (built binary, real API server)', () => {
  let server: KubeServer;
  let agent: NodeAgent;
  let api: CoreV1Api;
  let stopWatch: (() => void) | undefined;
  let c: E2ECluster;
  /** Pods in the order their process started: the job (annotation iris/job) and the Node. */
  const started: Array<{ job: string; node: string }> = [];

  beforeAll(async () => {
    server = await startKubeServer();
    agent = await startNodeAgent({
      kubeconfig: server.kubeconfig,
      nodes: [
        { name: 'solo', labels: { pool: 'solo' }, capacity: { cpu: '1', memory: '4Gi' } },
        { name: 'big', labels: { pool: 'big' }, capacity: { cpu: '2', memory: '4Gi' } },
        { name: 'res-a', labels: { pool: 'res', slot: 'a' }, capacity: { cpu: '2', memory: '4Gi' } },
        { name: 'res-b', labels: { pool: 'res', slot: 'b' }, capacity: { cpu: '1', memory: '4Gi' } },
      ],
    });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    api = kc.makeApiClient(k8s.CoreV1Api);
    const seen = new Set<string>();
    const watch = await new k8s.Watch(kc).watch(
      '/api/v1/namespaces/default/pods',
      {},
      (_type: string, pod: V1Pod) => {
        const uid = pod.metadata?.uid;
        if (!uid || seen.has(uid) || !pod.status?.startTime) return;
        seen.add(uid);
        started.push({ job: pod.metadata?.annotations?.['iris/job'] ?? '?', node: pod.spec?.nodeName ?? '?' });
      },
      () => {},
    );
    stopWatch = () => watch.abort();
    c = await E2ECluster.create({
      config:
        `stop-grace: 1s\nbackend:\n  kind: kubernetes\n  kubeconfig: ${server.kubeconfig}\n  image: ` +
        `iris-test/busybox\n`,
    });
  }, 180_000);

  afterAll(async () => {
    stopWatch?.();
    await c?.dispose();
    await agent?.stop();
    await server?.stop();
  }, 120_000);

  /** The Pods of `job` (exact name, from the annotation) that exist now. */
  const podsOf = async (job: string) =>
    (await api.listNamespacedPod({ namespace: 'default' })).items.filter(
      (p) => p.metadata?.annotations?.['iris/job'] === job,
    );
  const startedOn = (node: string) => started.filter((s) => s.node === node).map((s) => s.job);

  it(
    'depth-first: the deeper tasks of an older tree run before an earlier-submitted root, one Pod at a time on a ' +
      '1-CPU Node',
    async () => {
      const order = path.join(c.cwd, 'order');
      appendFileSync(order, '');
      const blk = c.gate('blk');
      const goKids = c.gate('go-kids');
      await c.submit(['--name', 'blk', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', blk.hold]);
      await c.waitForState('/blk', 'RUNNING');
      // /old (on `big`) submits /old/kid and /old/mid from its Pod; /old/mid submits /old/mid/leaf.
      const mid = c.script(
        'mid.sh',
        [
          `iris submit --name leaf -c pool=solo --cpu 1 -- sh -c 'echo leaf >> ${order}' || exit 1`,
          'iris wait "$IRIS_JOB_ID/leaf"',
        ].join('\n'),
      );
      const old = c.script(
        'old.sh',
        [
          goKids.hold,
          `iris submit --name kid -c pool=solo --cpu 1 -- sh -c 'echo kid >> ${order}' || exit 1`,
          `iris submit --name mid -c pool=big --cpu 0.5 -- sh ${mid} || exit 1`,
          'iris wait "$IRIS_JOB_ID/kid" "$IRIS_JOB_ID/mid"',
        ].join('\n'),
      );
      await c.submit(['--name', 'old', '-c', 'pool=big', '--cpu', '0.5'], ['sh', old]);
      await c.waitForState('/old', 'RUNNING');
      // /new is a root submitted before any child of /old exists: a FIFO queue would run it first.
      await c.submit(['--name', 'new', '-c', 'pool=solo', '--cpu', '1'], ['sh', '-c', `echo new >> ${order}`]);
      const pendingNew = await c.waitForState('/new', 'PENDING');
      goKids.open();
      const leafPending = await c.waitForState('/old/mid/leaf', 'PENDING', { timeoutMs: 30_000 });
      const kidPending = await c.waitForState('/old/kid', 'PENDING');
      expect(pendingNew.submittedAt).toBeLessThan(kidPending.submittedAt);
      expect(kidPending.submittedAt).toBeLessThan(leafPending.submittedAt);
      // the parents run as Pods (bound: it submitted)
      expect((await podsOf('/old/mid')).map((p) => p.spec?.nodeName)).toEqual(['big']);
      const queue = await c.json<QueueInfo>(['queue']);
      expect(queue.jobs.map((j) => [j.job, j.depth])).toEqual([
        ['/old/mid/leaf', 3],
        ['/old/kid', 2],
        ['/new', 1],
      ]);
      expect(await podsOf('/new')).toEqual([]); // nothing is created for a task that waits

      blk.open();
      const fresh = await c.waitForState('/new', 'SUCCEEDED', { timeoutMs: 60_000 });
      const leaf = await c.job('/old/mid/leaf');
      const kid = await c.job('/old/kid');
      expect([leaf.state, kid.state]).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      await waitUntil(
        'the watch to see four Pods start on solo',
        async () => startedOn('solo'),
        (jobs) => jobs.length >= 4,
      );
      expect(startedOn('solo')).toEqual(['/blk', '/old/mid/leaf', '/old/kid', '/new']);
      expect(readFileSync(order, 'utf8').split('\n').filter(Boolean)).toEqual(['leaf', 'kid', 'new']);
      expect([workerOf(leaf), workerOf(kid), workerOf(fresh)]).toEqual(['solo', 'solo', 'solo']);
      // One at a time: each started after the one before it had ended.
      expect(startOf(kid)).toBeGreaterThanOrEqual(finishOf(leaf));
      expect(startOf(fresh)).toBeGreaterThanOrEqual(finishOf(kid));
      await c.waitForState('/old', 'SUCCEEDED', { timeoutMs: 30_000 });
    },
  );

  it(
    'a reservation holds across pods: no Pod for the blocked job, a long job kept off its Node, a short one ' +
      'backfilled there',
    async () => {
      const hold = c.gate('hold');
      const side = c.gate('side');
      await c.submit(['--name', 'hold', '-c', 'slot=a', '--cpu', '1', '--time-limit', '10m'], ['sh', '-c', hold.hold]);
      const running = await c.waitForState('/hold', 'RUNNING');
      expect(workerOf(running)).toBe('res-a');
      await c.submit(['--name', 'wide', '-c', 'pool=res', '--cpu', '2', '--time-limit', '5m'], ['true']);
      const wide = await c.waitForJob('/wide', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
      const reservedAt = startOf(running) + 10 * MIN;
      expect(wide.reason).toMatch(
        joined(
          /^no worker fits: 2 excluded by constraint pool=res, 1 too little CPU \(need 2, la/,
          /rgest 1\), 1 too little free CPU \(need 2, largest free 1\); reserved to start at /,
        ),
      );
      expect(isoReason(wide.reason)!.endsWith(`reserved to start at ${iso(reservedAt)}`)).toBe(true);
      const queue = await c.json<QueueInfo>(['queue']);
      expect(queue.jobs).toEqual([
        expect.objectContaining({ job: '/wide', position: 1, reservedStart: iso(reservedAt) }),
      ]);
      expect(await podsOf('/wide')).toEqual([]);

      // A long job would delay /wide on res-a: it is bound to res-b instead.
      await c.submit(['--name', 'side', '-c', 'pool=res', '--cpu', '1', '--time-limit', '1h'], ['sh', '-c', side.hold]);
      const sideJob = await c.waitForState('/side', 'RUNNING');
      expect(workerOf(sideJob)).toBe('res-b');
      const bound = await waitUntil(
        'the Pod of /side to be bound',
        () => podsOf('/side'),
        (pods) => pods.length === 1 && !!pods[0]!.spec?.nodeName,
      );
      expect(bound.map((p) => p.spec?.nodeName)).toEqual(['res-b']);
      // A second long one has nowhere to go that does not delay /wide: it waits and says why.
      await c.submit(['--name', 'long', '-c', 'pool=res', '--cpu', '1', '--time-limit', '1h'], ['true']);
      const long = await c.waitForJob('/long', (j) => j.state === 'PENDING' && !!j.reason, 'a pending reason');
      expect(long.reason).toMatch(/starting now would delay the reservation of \/wide at /);
      expect(await podsOf('/long')).toEqual([]);
      // A short one ends before the reservation: backfilled on the reserved Node now.
      await c.submit(['--name', 'short', '-c', 'pool=res', '--cpu', '1', '--time-limit', '1m'], ['true']);
      const short = await c.waitForState('/short', 'SUCCEEDED', { timeoutMs: 30_000 });
      expect(workerOf(short)).toBe('res-a');
      expect((await c.job('/wide')).state).toBe('PENDING');
      expect((await c.job('/long')).state).toBe('PENDING');

      const status = await c.iris(['status', 'wide']);
      expect(status.code, describeRun(['status', 'wide'], status)).toBe(0);
      expect(status.stdout).toMatch(/PENDING/);
      expect(status.stdout).toMatch(/1 too little free CPU \(need 2, largest free 1\); reserved to start at /);

      hold.open();
      const wideDone = await c.waitForState('/wide', 'SUCCEEDED', { timeoutMs: 30_000 });
      expect(workerOf(wideDone)).toBe('res-a');
      side.open();
      const longDone = await c.waitForState('/long', 'SUCCEEDED', { timeoutMs: 30_000 });
      expect(startOf(longDone)).toBeGreaterThanOrEqual(startOf(wideDone));
      await waitUntil(
        'the watch to see every Pod of this test start',
        async () => started.filter((s) => s.node.startsWith('res-')),
        (runs) => runs.length >= 5,
      );
      expect(startedOn('res-a')).toEqual([
        '/hold',
        '/short',
        '/wide',
        ...(workerOf(longDone) === 'res-a' ? ['/long'] : []),
      ]);
      expect(startedOn('res-b')).toEqual(['/side', ...(workerOf(longDone) === 'res-b' ? ['/long'] : [])]);
    },
  );
});
