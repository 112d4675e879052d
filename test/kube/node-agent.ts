/**
 * A fake kubelet for tests: it registers Node objects on a test API server and runs the pods
 * bound to them as LOCAL PROCESSES. A test fixture, not part of iris.
 *
 * Guarantees:
 * - Nodes: created (or taken over when one of that name exists) Ready (status subresource), without the
 * `node.kubernetes.io/not-ready` taint,
 *   with address InternalIP 127.0.0.1, capacity = allocatable = the given capacity (plus
 *   `pods: "110"` when not given), and the agent's kubelet port in
 *   status.daemonEndpoints.kubeletEndpoint.
 * - Pods: one watch per node (fieldSelector spec.nodeName=NODE, after a list). A pod runs its
 *   first container's command + args in a temp dir (or its workingDir) with the container's
 *   plain `env` values (valueFrom is ignored) on top of PATH; in its own process group. Status
 *   goes through the pods/status subresource like a kubelet's: startTime and phase Running with
 *   a running containerStatus, then Succeeded (exit 0, reason Completed) or Failed (reason
 *   Error, exitCode the process's, 128+N for a signal). No restarts (every pod is
 *   restartPolicy Never here).
 * - Annotations for tests: `iris.test/oom: "true"` kills the process once Running and reports
 *   reason OOMKilled, exit 137; `iris.test/evict: "true"` kills it and reports phase Failed with
 *   status.reason Evicted.
 * - Deletion: when deletionTimestamp appears, SIGTERM to the process group, SIGKILL after the
 *   grace period (metadata.deletionGracePeriodSeconds), then the final delete with
 *   gracePeriodSeconds 0. A pod deleted outright has its process killed.
 * - `deleteNode` is a node that went away: its processes are killed, the Node object deleted
 *   and its pods force-deleted (what the pod garbage collector of a real cluster does).
 * - `stop()` ends the watches, kills every process it started and waits for them, closes the
 *   log endpoint and removes its temp dir; API objects are left as they are. Processes still
 *   running when the test process exits are killed then.
 * - It runs inside the test's process: a test that blocks the event loop (execFileSync,
 *   spawnSync, Atomics.wait) while pods run stalls this kubelet (no status, and log requests
 *   through the API server fail with "TLS handshake timeout").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { LogBuffer, startLogServer, type LogServer } from './agent-logs.js';

export interface AgentNode {
  name: string;
  labels?: Record<string, string>;
  capacity: Record<string, string>;
  unschedulable?: boolean;
}

export interface NodeAgentOptions {
  kubeconfig: string;
  namespace?: string;
  nodes: AgentNode[];
}

export interface NodeAgent {
  stop(): Promise<void>;
  setUnschedulable(node: string, on: boolean): Promise<void>;
  deleteNode(node: string): Promise<void>;
  /** Names of the pods whose process runs now. */
  runningPods(): string[];
}

const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

interface PodRun {
  name: string;
  namespace: string;
  uid: string;
  node: string;
  container: string;
  logs: LogBuffer;
  child?: ChildProcess;
  exited?: Promise<void>;
  startedAt?: string;
  /** set when the agent kills the process for a reason of its own (oom, evict, node gone) */
  killedFor?: 'oom' | 'evict' | 'gone';
  deleting: boolean;
  finished: boolean;
  /** status writes of one pod, in order */
  chain: Promise<unknown>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

export async function startNodeAgent(opts: NodeAgentOptions): Promise<NodeAgent> {
  const k8s = await import('@kubernetes/client-node');
  const kc: KubeConfig = new k8s.KubeConfig();
  kc.loadFromFile(opts.kubeconfig);
  const api: CoreV1Api = kc.makeApiClient(k8s.CoreV1Api);
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  // like a kubelet: conditions merge by type (PodScheduled, set by the binding, stays)
  const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
  const namespace = opts.namespace ?? 'default';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iris-node-agent-'));
  const pods = new Map<string, PodRun>(); // by uid
  const nodeNames = new Set(opts.nodes.map((n) => n.name));
  const watches = new Map<string, AbortController>();
  let stopped = false;
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const child of live) killGroup(child, 'SIGKILL');
    });
  }

  const logServer: LogServer = await startLogServer(dir, (ns, pod, container) => {
    for (const run of pods.values())
      if (run.namespace === ns && run.name === pod && run.container === container) return run.logs;
    return undefined;
  });

  /** Calls the API, again after a short pause on errors other than 404/409 (a busy server), 5 tries. */
  const retry = async (call: () => Promise<unknown>): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await call();
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        // the pod is gone (or another uid): nothing to do
        if (code === 404 || code === 409 || attempt >= 5 || stopped) return;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };

  const report = (run: PodRun, status: Record<string, unknown>): Promise<unknown> => {
    run.chain = run.chain.then(() =>
      retry(() =>
        api.patchNamespacedPodStatus({ name: run.name, namespace: run.namespace, body: { status } }, strategic),
      ),
    );
    return run.chain;
  };

  // the API server reads the delete options from the body when there is one, not from the query
  const finalDelete = (run: PodRun): Promise<unknown> => {
    run.chain = run.chain.then(() =>
      retry(() =>
        api.deleteNamespacedPod({
          name: run.name,
          namespace: run.namespace,
          body: { gracePeriodSeconds: 0, preconditions: { uid: run.uid } },
        }),
      ),
    );
    return run.chain;
  };

  const containerStatus = (run: PodRun, image: string, state: Record<string, unknown>, ready: boolean) => ({
    name: run.container,
    image,
    imageID: '',
    containerID: `iris-agent://${run.uid}`,
    ready,
    started: ready,
    restartCount: 0,
    state,
  });

  const onExit = (run: PodRun, image: string, code: number | null, signal: NodeJS.Signals | null): void => {
    run.logs.end();
    if (run.child) live.delete(run.child);
    const finishedAt = new Date().toISOString();
    const signalNumber = signal ? (os.constants.signals[signal] ?? 9) : 0;
    let exitCode = code ?? 128 + signalNumber;
    let reason = exitCode === 0 ? 'Completed' : 'Error';
    const podStatus: Record<string, unknown> = {};
    if (run.killedFor === 'oom') {
      exitCode = 137;
      reason = 'OOMKilled';
    } else if (run.killedFor === 'evict') {
      podStatus.reason = 'Evicted';
      podStatus.message = 'The node was low on resource: memory. (iris.test/evict annotation)';
    }
    run.finished = true;
    if (run.killedFor === 'gone') return; // the pod is being removed with its node
    const terminated = {
      exitCode,
      reason,
      startedAt: run.startedAt,
      finishedAt,
      ...(signal ? { signal: signalNumber } : {}),
    };
    void report(run, {
      ...podStatus,
      phase: exitCode === 0 && !run.killedFor ? 'Succeeded' : 'Failed',
      conditions: ['Ready', 'ContainersReady'].map((type) => ({
        type,
        status: 'False',
        reason: 'PodCompleted',
        lastTransitionTime: finishedAt,
      })),
      containerStatuses: [containerStatus(run, image, { terminated }, false)],
    });
    if (run.deleting) void finalDelete(run);
  };

  const fail = (run: PodRun, image: string, reason: string, message: string): void => {
    run.finished = true;
    run.logs.end();
    const now = new Date().toISOString();
    void report(run, {
      phase: 'Failed',
      startTime: now,
      hostIP: '127.0.0.1',
      containerStatuses: [
        containerStatus(
          run,
          image,
          { terminated: { exitCode: 128, reason, message, startedAt: now, finishedAt: now } },
          false,
        ),
      ],
    });
  };

  const launch = (pod: V1Pod, node: string): void => {
    const meta = pod.metadata!;
    const c = pod.spec!.containers[0];
    const run: PodRun = {
      name: meta.name!,
      namespace: meta.namespace ?? namespace,
      uid: meta.uid!,
      node,
      container: c.name,
      logs: new LogBuffer(),
      deleting: false,
      finished: false,
      chain: Promise.resolve(),
    };
    pods.set(run.uid, run);
    const image = c.image ?? '';
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    if (!c.command?.length) {
      fail(
        run,
        image,
        'ContainerCannotRun',
        'the iris test node agent runs container.command (+ args) as a local process; this container has no command',
      );
      return;
    }
    const cwd =
      c.workingDir && existsSync(c.workingDir) ? c.workingDir : path.join(dir, `${run.namespace}-${run.name}`);
    mkdirSync(cwd, { recursive: true });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: cwd, HOSTNAME: run.name };
    for (const e of c.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
    run.startedAt = new Date().toISOString();
    const child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    run.child = child;
    live.add(child);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => run.logs.write('out', chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => run.logs.write('err', chunk));
    run.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        live.delete(child);
        fail(run, image, 'ContainerCannotRun', `could not start ${argv[0]}: ${err.message}`);
        resolve();
      });
      child.once('close', (code, signal) => {
        if (!run.finished) onExit(run, image, code, signal);
        resolve();
      });
    });
    void report(run, {
      phase: 'Running',
      startTime: run.startedAt,
      hostIP: '127.0.0.1',
      podIP: '127.0.0.1',
      conditions: ['Initialized', 'ContainersReady', 'Ready'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: run.startedAt,
      })),
      containerStatuses: [containerStatus(run, image, { running: { startedAt: run.startedAt } }, true)],
    }).then(() => {
      const annotations = meta.annotations ?? {};
      const killedFor =
        annotations['iris.test/oom'] === 'true'
          ? 'oom'
          : annotations['iris.test/evict'] === 'true'
            ? 'evict'
            : undefined;
      if (killedFor && !run.finished) {
        run.killedFor = killedFor;
        killGroup(child, 'SIGKILL');
      }
    });
  };

  const terminate = (run: PodRun, graceSeconds: number): void => {
    if (run.deleting) return;
    run.deleting = true;
    if (run.finished || !run.child) {
      void finalDelete(run);
      return;
    }
    const child = run.child;
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceSeconds * 1000);
    void run.exited?.then(() => clearTimeout(timer));
  };

  const onPod = (type: string, pod: V1Pod, node: string): void => {
    const uid = pod.metadata?.uid;
    if (!uid || stopped) return;
    const run = pods.get(uid);
    if (type === 'DELETED') {
      if (run?.child) killGroup(run.child, 'SIGKILL');
      return;
    }
    if (!run) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return; // finished before this agent saw it
      if (pod.metadata?.deletionTimestamp) {
        void api
          .deleteNamespacedPod({
            name: pod.metadata.name!,
            namespace: pod.metadata.namespace ?? namespace,
            gracePeriodSeconds: 0,
          })
          .catch(() => {});
        return;
      }
      launch(pod, node);
      return;
    }
    if (pod.metadata?.deletionTimestamp)
      terminate(run, pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30);
  };

  const watchNode = async (node: string): Promise<void> => {
    if (stopped || !nodeNames.has(node)) return;
    const fieldSelector = `spec.nodeName=${node}`;
    try {
      const list = await api.listNamespacedPod({ namespace, fieldSelector });
      for (const pod of list.items) onPod('ADDED', pod, node);
      const controller = await new k8s.Watch(kc).watch(
        `/api/v1/namespaces/${namespace}/pods`,
        { fieldSelector, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
        (type, pod: V1Pod) => onPod(type, pod, node),
        () => {
          // the server closed the watch (timeout, error): list and watch again
          if (!stopped && nodeNames.has(node)) setTimeout(() => void watchNode(node), 200);
        },
      );
      if (stopped || !nodeNames.has(node)) controller.abort();
      else watches.set(node, controller);
    } catch {
      if (!stopped && nodeNames.has(node)) setTimeout(() => void watchNode(node), 500);
    }
  };

  const taints = (unschedulable: boolean) => (unschedulable ? [UNSCHEDULABLE_TAINT] : null);

  for (const n of opts.nodes) {
    const capacity = { pods: '110', ...n.capacity };
    await api
      .createNode({
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: n.name, labels: n.labels ?? {} },
          spec: { unschedulable: n.unschedulable ?? false },
        },
      })
      .catch(async (err: { code?: number }) => {
        if (err.code !== 409) throw err;
        // a Node left by an earlier agent on this server: take it over (labels are added)
        await api.patchNode(
          {
            name: n.name,
            body: { metadata: { labels: n.labels ?? {} }, spec: { unschedulable: n.unschedulable ?? false } },
          },
          merge,
        );
      });
    // the admission plugin adds the not-ready taint on create; a node controller would remove it
    await api.patchNode({ name: n.name, body: { spec: { taints: taints(n.unschedulable ?? false) } } }, merge);
    const now = new Date().toISOString();
    await api.patchNodeStatus(
      {
        name: n.name,
        body: {
          status: {
            capacity,
            allocatable: capacity,
            addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
            daemonEndpoints: { kubeletEndpoint: { Port: logServer.port } },
            nodeInfo: {
              kubeletVersion: 'v1.20.2-iris-test-agent',
              operatingSystem: 'linux',
              architecture: process.arch === 'x64' ? 'amd64' : process.arch,
              containerRuntimeVersion: 'iris-test-agent://local-process',
              kernelVersion: os.release(),
              osImage: 'iris test node agent',
              kubeProxyVersion: '',
              machineID: '',
              systemUUID: '',
              bootID: '',
            },
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'KubeletReady',
                message: 'iris test node agent',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
          },
        },
      },
      merge,
    );
  }
  await Promise.all(opts.nodes.map((n) => watchNode(n.name)));

  const killAndWait = async (runs: PodRun[]): Promise<void> => {
    for (const run of runs) if (run.child) killGroup(run.child, 'SIGKILL');
    await Promise.all(runs.map((run) => run.exited));
  };

  return {
    async setUnschedulable(node, on) {
      await api.patchNode({ name: node, body: { spec: { unschedulable: on, taints: taints(on) } } }, merge);
    },
    async deleteNode(node) {
      nodeNames.delete(node);
      watches.get(node)?.abort();
      watches.delete(node);
      const runs = [...pods.values()].filter((run) => run.node === node);
      for (const run of runs) if (!run.finished) run.killedFor = 'gone';
      await killAndWait(runs);
      await api.deleteNode({ name: node });
      const left = await api.listNamespacedPod({ namespace, fieldSelector: `spec.nodeName=${node}` });
      await Promise.all(
        left.items.map((pod) =>
          api.deleteNamespacedPod({ name: pod.metadata!.name!, namespace, gracePeriodSeconds: 0 }).catch(() => {}),
        ),
      );
    },
    runningPods() {
      return [...pods.values()]
        .filter((run) => run.child && !run.finished && run.child.exitCode === null && run.child.signalCode === null)
        .map((run) => run.name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const controller of watches.values()) controller.abort();
      watches.clear();
      // like a kubelet that dies: its processes end, nothing more is reported
      for (const run of pods.values()) if (!run.finished) run.killedFor = 'gone';
      await killAndWait([...pods.values()]);
      await Promise.all([...pods.values()].map((run) => run.chain));
      await logServer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
