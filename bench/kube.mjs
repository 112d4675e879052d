// Issue 17's benchmark: N pods bound by iris against the same N pods bound by the real
// kube-scheduler, in the same run, on the same API server (scripts/k8s-setup.sh start
// --with-scheduler), interleaved through bench/measure.mjs (warm-up, >= 5 rounds, A B / B A).
//   iris:           a whole iris cluster with `backend: kubernetes` (the built CLI): from the
//                   submit request of one job of N replicas to the moment the last of its N Pods
//                   has a nodeName (seen on a watch): admission, a scheduling pass, N Pod creates
//                   and N Binding API calls.
//   kube-scheduler: from the first of N creates of the same Pods with the default scheduler
//                   (all sent at once, like iris's launches) to the last one bound.
// Both sides pay the same N creates on the same server, through the same client and the same bound
// on requests in flight (src/kube/in-flight.ts: iris's connection sends at most 32 at once, and so
// does the bench's); nothing runs the Pods (no kubelet), so the figure is placement + binding.
// Between rounds the Pods are deleted (grace 0) and the wait is for none to be left. Needs the
// server built (`scripts/k8s-setup.sh build`); otherwise the result says `skipped`. Not a default
// section of `npm run bench`: `--only kube` runs it.
// Environment: BENCH_KUBE_CASE (`default`: 1,000 Pods on 50 Nodes; `fleet`: 10,000 Pods on 1,000
// Nodes, issue 36's target of <= 300 MB controller peak RSS), BENCH_KUBE_PODS and BENCH_KUBE_NODES
// (override the case's sizes), BENCH_ROUNDS (5), BENCH_KUBE_PROBE=1 (one round of each side, no
// warm-up: a sample, not a verdict), BENCH_KUBE_SNAPSHOT_DIR (a heap snapshot of the controller with
// all Pods bound; see heapSnapshot).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SocketClient } from '../dist/client/socket-client.js';
import { connectKube } from '../dist/kube/client.js';
import { cleanEnv, iris } from './cluster.mjs';
import { interleave, loadAverage } from './measure.mjs';
import { memoryOf } from './memory.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const setup = path.join(root, 'scripts', 'k8s-setup.sh');
const NS = 'default';

/** The named sizes of the bench (BENCH_KUBE_CASE); BENCH_KUBE_PODS / BENCH_KUBE_NODES override them. */
export const KUBE_CASES = {
  default: { pods: 1000, nodes: 50, targetMB: null },
  // Issue 36: Kubernetes at fleet size; the controller's peak RSS target.
  fleet: { pods: 10000, nodes: 1000, targetMB: 300 },
};

function kubeCase() {
  const name = process.env.BENCH_KUBE_CASE ?? 'default';
  const c = KUBE_CASES[name];
  if (!c) throw new Error(`BENCH_KUBE_CASE must be one of ${Object.keys(KUBE_CASES).join(', ')}, got ${name}`);
  return { name, ...c };
}

function k8sSetup(args, stateDir) {
  const env = { ...process.env, IRIS_K8S_DIR: stateDir };
  return spawnSync('bash', [setup, ...args], { env, encoding: 'utf8', timeout: 180_000 });
}

/** Resolves when `count` pods matching `selector` have a nodeName; returns the ms since `since`. */
function boundWatcher(k8s, kc, selector) {
  const bound = new Set();
  let want = Infinity;
  let wake = () => {};
  let abort = null;
  let stopped = false;
  // The client ends a watch after its request timeout: watch again (from a fresh list) until stopped.
  const start = async () => {
    const api = kc.makeApiClient(k8s.CoreV1Api);
    let next;
    let version;
    do {
      const list = await api.listNamespacedPod({ namespace: NS, labelSelector: selector, limit: 500, _continue: next });
      for (const pod of list.items) if (pod.spec?.nodeName) bound.add(pod.metadata.name);
      next = list.metadata?._continue || undefined;
      version = list.metadata?.resourceVersion;
    } while (next);
    if (bound.size >= want) wake();
    abort = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${NS}/pods`,
      { labelSelector: selector, resourceVersion: version },
      (type, pod) => {
        if (type !== 'DELETED' && pod.spec?.nodeName) bound.add(pod.metadata.name);
        if (bound.size >= want) wake();
      },
      () => {
        if (!stopped) setTimeout(() => void start(), 100);
      },
    );
  };
  return {
    start,
    reset: () => bound.clear(),
    until(count) {
      want = count;
      return bound.size >= count ? Promise.resolve() : new Promise((resolve) => (wake = resolve));
    },
    stop: () => {
      stopped = true;
      abort?.abort();
    },
  };
}

async function waitEmpty(api, selector) {
  for (;;) {
    const list = await api.listNamespacedPod({ namespace: NS, labelSelector: selector, limit: 1 });
    if (list.items.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Deletes every Pod of `selector` (grace 0) and waits until none is left; a delete that timed out is sent again. */
async function deleteAll(api, selector) {
  for (;;) {
    try {
      await api.deleteCollectionNamespacedPod({
        namespace: NS,
        labelSelector: selector,
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0 },
      });
      break;
    } catch (error) {
      // 10,000 Pods may take longer than the server's request deadline (500 context deadline exceeded).
      if (error?.code !== 500 && error?.code !== 504) throw error;
    }
  }
  await waitEmpty(api, selector);
}

/**
 * One round of each side (iris, then kube-scheduler), no warm-up: BENCH_KUBE_PROBE=1, for a size
 * whose five interleaved rounds do not fit the time at hand (10,000 Pods: kube-scheduler alone
 * takes >= 200 s per round at its 50 requests/s). Its figures are one sample each, not a verdict.
 */
async function probeOnce(sides) {
  const times = {};
  for (const [name, fn] of Object.entries(sides)) times[name] = [await fn()];
  const one = (v) => ({ min: v, median: v, max: v });
  return {
    probe: true,
    rounds: 1,
    times,
    iris: one(times.iris[0]),
    'kube-scheduler': one(times['kube-scheduler'][0]),
    ratio: { 'kube-scheduler': one(times.iris[0] / times['kube-scheduler'][0]) },
  };
}

/**
 * A heap snapshot of the controller with every Pod of the round bound (BENCH_KUBE_SNAPSHOT_DIR; the
 * controller must run with NODE_OPTIONS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<that
 * dir>"). Taken after the round's memory was read; it raises the controller's VmHWM, so the run's
 * peak figure is then the per-round line's, not the summary's.
 */
async function heapSnapshot(pid, dir, log) {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let last = -1; ; ) {
    await new Promise((r) => setTimeout(r, 2000));
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    const size = file ? statSync(path.join(dir, file)).size : -1;
    if (file && size > 0 && size === last) {
      log(`  heap snapshot: ${path.join(dir, file)} (${(size / 1e6).toFixed(0)} MB)`);
      return;
    }
    last = size;
  }
}

export async function runKubeBench({
  log = () => {},
  sizes = kubeCase(),
  pods = Number(process.env.BENCH_KUBE_PODS ?? sizes.pods),
  nodes = Number(process.env.BENCH_KUBE_NODES ?? sizes.nodes),
  rounds = Number(process.env.BENCH_ROUNDS ?? 5),
  probe = process.env.BENCH_KUBE_PROBE === '1',
  snapshotDir = process.env.BENCH_KUBE_SNAPSHOT_DIR ?? null,
} = {}) {
  const status = k8sSetup(['status', '--json'], path.join(tmpdir(), `iris-k8s-none-${process.pid}`));
  let built = false;
  try {
    built = JSON.parse(status.stdout.trim().split('\n').pop() ?? '{}').built === true;
  } catch {
    built = false;
  }
  if (!built) return { skipped: 'the API server is not built: run `scripts/k8s-setup.sh build` (~8 min) first' };
  const k8s = await import('@kubernetes/client-node');
  const stateDir = mkdtempSync(path.join(tmpdir(), 'iris-bench-k8s-'));
  const work = mkdtempSync(path.join(tmpdir(), 'iris-bench-kube-'));
  let ctx = null;
  const watchers = [];
  try {
    const started = k8sSetup(['start', '--with-scheduler'], stateDir);
    if (started.status !== 0) throw new Error(`k8s-setup start failed: ${started.stderr.trim().split('\n').pop()}`);
    const kubeconfig = started.stdout.trim().split('\n').pop();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    // The same client iris uses (one HTTP dispatcher) and the same bound on requests in flight.
    const conn = await connectKube({ kubeconfig, context: null, namespace: NS });
    const api = conn.core;
    const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    log(`bench kube (${sizes.name}): ${nodes} nodes, ${pods} pods per side`);
    const addNode = async (i) => {
      const name = `node-${String(i).padStart(4, '0')}`;
      const capacity = { cpu: '64', memory: '256Gi', pods: String(Math.ceil((pods * 2) / nodes) + 10) };
      await api.createNode({
        body: {
          metadata: { name, labels: { 'cloud.google.com/gke-nodepool': 'bench' } },
          status: {
            capacity,
            allocatable: capacity,
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'KubeletReady',
                lastHeartbeatTime: new Date(),
                lastTransitionTime: new Date(),
              },
            ],
          },
        },
      });
      await api.patchNode({ name, body: { spec: { taints: null } } }, merge);
    };
    await Promise.all(Array.from({ length: nodes }, (_, i) => conn.limit.run(() => addNode(i))));
    const home = path.join(work, 'home');
    const cwd = path.join(work, 'work');
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      path.join(cwd, '.irisrc.yaml'),
      `stop-grace: 0s\nbackend:\n  kind: kubernetes\n  kubeconfig: ${kubeconfig}\n  image: bench/none\n`,
    );
    ctx = { cwd, env: cleanEnv({ IRIS_HOME: home }) };
    iris(['cluster', 'start', '--detach'], ctx);
    const client = new SocketClient({ socketPath: path.join(home, 'run', 'iris.sock'), env: {} });
    const irisBound = boundWatcher(k8s, kc, 'iris/managed-by=iris');
    const kubeBound = boundWatcher(k8s, kc, 'bench=kube-scheduler');
    watchers.push(irisBound, kubeBound);
    await irisBound.start();
    await kubeBound.start();
    let seq = 0;
    // The controller's VmHWM read as the last Pod of an iris round was bound (before any snapshot).
    let peakBound = 0;
    const { pid } = await client.cluster();
    // One line per side and round (long runs show their progress): its time and the controller's memory.
    const logged = (name, fn) => async () => {
      const ms = await fn();
      const m = memoryOf(pid);
      log(
        `  ${name}: ${(ms / 1000).toFixed(1)} s; controller VmRSS ${m.rssMB.toFixed(0)} MB, ` +
          `VmHWM ${m.hwmMB.toFixed(0)} MB`,
      );
      return ms;
    };
    const sides = {
      iris: logged('iris', async () => {
        const name = `b${seq++}`;
        irisBound.reset();
        const t0 = performance.now();
        await client.submit({ name, command: ['true'], replicas: pods, cpu: 0.1, memory: '64M' });
        await irisBound.until(pods);
        const ms = performance.now() - t0;
        const atPeak = memoryOf(pid);
        peakBound = Math.max(peakBound, atPeak.hwmMB);
        log(
          `  iris: all ${pods} bound; controller VmRSS ${atPeak.rssMB.toFixed(0)}, VmHWM ${atPeak.hwmMB.toFixed(0)} MB`,
        );
        if (snapshotDir) await heapSnapshot(pid, snapshotDir, log);
        await client.cancel([`/${name}`]);
        await waitEmpty(api, 'iris/managed-by=iris');
        return ms;
      }),
      'kube-scheduler': logged('kube-scheduler', async () => {
        const round = seq++;
        kubeBound.reset();
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: pods }, (_, i) =>
            conn.limit.run(() =>
              api.createNamespacedPod({
                namespace: NS,
                body: {
                  metadata: { name: `k${round}-${i}`, labels: { bench: 'kube-scheduler' } },
                  spec: {
                    restartPolicy: 'Never',
                    containers: [
                      {
                        name: 'task',
                        image: 'bench/none',
                        command: ['true'],
                        resources: { requests: { cpu: '100m', memory: '64M' } },
                      },
                    ],
                  },
                },
              }),
            ),
          ),
        );
        await kubeBound.until(pods);
        const ms = performance.now() - t0;
        await deleteAll(api, 'bench=kube-scheduler');
        return ms;
      }),
    };
    const result = probe ? await probeOnce(sides) : await interleave(sides, { rounds, warmup: 1 });
    // The iris controller's peak memory over the whole run (all its rounds of creates and bindings).
    const daemon = memoryOf(pid);
    const target = sizes.targetMB;
    return {
      case: sizes.name,
      pods,
      nodes,
      ...result,
      daemonHwmMB: daemon.hwmMB,
      daemonRssMB: daemon.rssMB,
      daemonHwmBoundMB: peakBound,
      ...(target ? { targetMB: target, verdict: daemon.hwmMB <= target ? 'met' : 'missed' } : {}),
      load: loadAverage(),
    };
  } finally {
    for (const w of watchers) w.stop();
    if (ctx) {
      try {
        iris(['cluster', 'stop'], ctx);
      } catch {
        // already down
      }
    }
    k8sSetup(['stop'], stateDir);
    rmSync(work, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  }
}

// Run directly: node bench/kube.mjs [--json]
if (import.meta.url === `file://${process.argv[1]}`) {
  const at = loadAverage();
  const r = await runKubeBench({ log: (m) => process.stderr.write(`${m}\n`) });
  const end = loadAverage();
  if (r.skipped) console.log(`kube: skipped: ${r.skipped}`);
  else {
    const f = (s) => `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)} ms`;
    console.log(
      `${r.case}: ${r.pods} pods on ${r.nodes} nodes, ${r.rounds} rounds (min / median / max)` +
        `${r.probe ? ': PROBE, one round each, no warm-up (a sample, not a verdict)' : ''}`,
    );
    console.log(`  iris (submit -> all bound):           ${f(r.iris)}`);
    console.log(`  kube-scheduler (create -> all bound): ${f(r['kube-scheduler'])}`);
    console.log(
      `  ratio iris / kube-scheduler, median of per-round ratios: ${r.ratio['kube-scheduler'].median.toFixed(2)}` +
        ` (min ${r.ratio['kube-scheduler'].min.toFixed(2)}, max ${r.ratio['kube-scheduler'].max.toFixed(2)})`,
    );
    console.log(
      `  iris controller VmHWM over the run: ${r.daemonHwmMB.toFixed(0)} MB (VmRSS at the end ` +
        `${r.daemonRssMB.toFixed(0)} MB)`,
    );
    if (r.targetMB) console.log(`  target <= ${r.targetMB} MB peak: ${r.verdict}`);
    console.log(`  load average (1/5/15) start ${at.join(' ')} / end ${end.join(' ')}`);
    if (process.argv.includes('--json')) console.log(JSON.stringify(r));
  }
}
