/**
 * E2E: preemption on the kubernetes backend (docs/priorities.md, "Preemption"): the built `iris`
 * against a real API server whose one Node is the REAL kubelet 1.20 (as kubelet.kube.test.ts).
 * A 2-replica batch job fills the Node's 2 CPUs; an interactive 1-CPU job preempts one of its
 * tasks. The victim's Pod is deleted with `preemption.grace` as its grace period (the Pod's
 * deletionGracePeriodSeconds, not the shorter stop-grace), the kubelet gives its container SIGTERM
 * (the trap's log line), the attempt ends PREEMPTED with `preempted by /eval (interactive)`, the
 * preemptor's Pod is made and bound to that Node once the victim's container has ended (the
 * kubelet's final delete of the victim's Pod may come later; the Pod is then gone), and the victim
 * runs again as attempt 1 in a new Pod on the Node.
 *
 * Needs root and `scripts/k8s-setup.sh kubelet` (describeKubelet: one skip line otherwise, a
 * failure under CI=true). The kubelet's start costs 20–40 s.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TaskInfo } from '../../src/api/types.js';
import { E2ECluster, byIndex, describeRun, waitUntil } from './harness.js';
import { describeKubelet, startKubeServer, type KubeServer } from '../kube/server.js';

const GRACE_SECONDS = 10;

/** A batch task that logs its start, and on SIGTERM logs a line and exits (a checkpoint and a clean exit). */
const VICTIM = [
  'trap \'echo "task $IRIS_TASK_INDEX attempt $IRIS_ATTEMPT got SIGTERM"; exit 0\' TERM',
  'echo "task $IRIS_TASK_INDEX attempt $IRIS_ATTEMPT up"',
  'while :; do sleep 0.1; done',
].join('\n');

describeKubelet('preemption on the kubernetes backend with the real kubelet (built binary)', () => {
  let server: KubeServer;
  let stopWatch: (() => void) | undefined;
  let c: E2ECluster;
  /** The last state the watch saw of every Pod (by name), deleted ones included. */
  const pods = new Map<string, V1Pod>();
  /** The grace period of each Pod's first deletion (the kubelet's final delete uses 0). */
  const deletionGrace = new Map<string, number>();
  /** Every watch event, in the API server's order, with what it showed of the Pod. */
  const events: Array<{ type: string; name: string; deleting: boolean; terminated: boolean }> = [];

  beforeAll(async () => {
    server = await startKubeServer({ withKubelet: true });
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const watch = await new k8s.Watch(kc).watch(
      '/api/v1/namespaces/default/pods',
      {},
      (type: string, pod: V1Pod) => {
        const name = pod.metadata?.name;
        if (!name) return;
        pods.set(name, pod);
        events.push({
          type,
          name,
          deleting: pod.metadata?.deletionTimestamp != null,
          terminated: pod.status?.containerStatuses?.[0]?.state?.terminated != null,
        });
        const grace = pod.metadata?.deletionGracePeriodSeconds;
        if (grace != null && !deletionGrace.has(name)) deletionGrace.set(name, grace);
      },
      () => {},
    );
    stopWatch = () => watch.abort();
    // `:local`, not `:latest`: iris's Pods set no imagePullPolicy, and `:latest` means Always
    c = await E2ECluster.create({
      config:
        `stop-grace: 2s\npreemption: {grace: ${GRACE_SECONDS}s, exempt: 0s}\nbackend:\n  kind: kubernetes\n` +
        `  kubeconfig: ${server.kubeconfig}\n  image: iris-test/busybox:local\n`,
    });
  }, 240_000);

  afterAll(async () => {
    stopWatch?.();
    await c?.dispose();
    await server?.stop();
  }, 120_000);

  /** The Pods the watch saw of one attempt of a task. */
  const podsOf = (task: string, attempt: number) =>
    [...pods.values()].filter(
      (p) => p.metadata?.annotations?.['iris/task'] === task && p.metadata?.labels?.['iris/attempt'] === `${attempt}`,
    );

  it('an interactive job deletes one batch Pod with the preemption grace and takes its place on the Node', async () => {
    const node = server.kubeletNode!;
    await c.submit(['--priority', 'batch', '--name', 'sweep', '--replicas', '2', '--cpu', '1'], ['sh', '-c', VICTIM]);
    for (const index of [0, 1])
      await c.waitForLog(`/sweep/task-${index}`, `task ${index} attempt 0 up`, { timeoutMs: 90_000 });

    const r = await c.iris(['run', '--name', 'eval', '--cpu', '1', '--', 'echo', 'eval ran'], { timeoutMs: 60_000 });
    expect(r.code, describeRun(['run', 'eval'], r)).toBe(0);
    const evalJob = await c.job('/eval');
    expect(evalJob.state).toBe('SUCCEEDED');
    expect(evalJob.taskList[0]!.attempts.map((a) => [a.workerId, a.state])).toEqual([[node, 'SUCCEEDED']]);

    // exactly one victim: its attempt 0 PREEMPTED with the reason; the other task kept running
    const tasks = byIndex(await c.job('/sweep'));
    const victims = tasks.filter((t) => t.attempts[0]!.state === 'PREEMPTED');
    expect(victims).toHaveLength(1);
    const victim = victims[0]!;
    const other = tasks.find((t) => t !== victim)!;
    expect(other.attempts.map((a) => a.state)).toEqual(['RUNNING']);
    const stopped = victim.attempts[0]!;
    expect(stopped.reason).toBe('preempted by /eval (interactive)');
    expect(victim.preemptions).toBe(1);
    expect(victim.failures).toBe(0);
    const lines = (await c.logs(victim.id, { attempt: 0 })).map((l) => l.text);
    expect(lines).toContain(`task ${victim.index} attempt 0 got SIGTERM`);

    // the API server's record: the victim's Pod was deleted with the preemption grace
    const [victimPod] = podsOf(victim.id, 0);
    expect(victimPod?.spec?.nodeName).toBe(node);
    const victimName = victimPod!.metadata!.name!;
    expect(deletionGrace.get(victimName)).toBe(GRACE_SECONDS);
    // The preemptor's Pod is bound to the same Node, made only once the victim's container had ended
    // (its capacity held until then); the kubelet's final delete of the victim's Pod may come later.
    const [evalPod] = podsOf(evalJob.taskList[0]!.id, 0);
    expect(evalPod?.spec?.nodeName).toBe(node);
    const evalName = evalPod!.metadata!.name!;
    const shown = events.map(
      (e) => `${e.type} ${e.name}${e.deleting ? ' deleting' : ''}${e.terminated ? ' ended' : ''}`,
    );
    const evalAdded = events.findIndex((e) => e.type === 'ADDED' && e.name === evalName);
    const victimDeleting = events.findIndex((e) => e.name === victimName && e.deleting);
    const victimEnded = events.findIndex((e) => e.name === victimName && e.terminated);
    expect(victimDeleting, shown.join('\n')).toBeGreaterThanOrEqual(0);
    expect(victimEnded, shown.join('\n')).toBeGreaterThan(victimDeleting);
    expect(evalAdded, shown.join('\n')).toBeGreaterThan(victimEnded);
    await waitUntil(
      "the victim's Pod to be gone",
      async () => events.some((e) => e.type === 'DELETED' && e.name === victimName),
      (gone) => gone,
      { timeoutMs: 60_000 },
    );

    // requeued, not failed: attempt 1 runs in a new Pod on the Node
    const again = await c.waitForTask(
      '/sweep',
      victim.index,
      (t: TaskInfo) => t.attempts[1]?.state === 'RUNNING',
      'attempt 1 running',
      { timeoutMs: 90_000 },
    );
    expect(again.attempts.map((a) => a.state)).toEqual(['PREEMPTED', 'RUNNING']);
    await c.waitForLog(victim.id, `task ${victim.index} attempt 1 up`, { timeoutMs: 90_000 });
    const [rerun] = podsOf(victim.id, 1);
    expect(rerun?.spec?.nodeName).toBe(node);
    expect(rerun?.metadata?.deletionTimestamp).toBeUndefined();

    const cancel = await c.iris(['cancel', 'sweep']);
    expect(cancel.code, describeRun(['cancel', 'sweep'], cancel)).toBe(0);
  }, 300_000);
});
