/**
 * The composition root of a local cluster: config, state directory, store, runtime, controller,
 * socket server. `runCluster` resolves once the cluster has stopped.
 *
 * Start-up order matters: the state directory is checked first (api/state-dir.ts: one another
 * user controls is refused before anything is written), then the config is loaded, then the
 * store is opened, and its connection is the state lock (state-lock.ts), so exactly one
 * controller opens a state directory; then attempts left running by an
 * earlier life of the cluster (a crash or kill -9) are settled BEFORE the socket answers, so no
 * client ever sees a stale RUNNING task: an attempt that ended while the controller was down
 * keeps its exit code and output (runtime.recover); every other one is stopped
 * (runtime.reclaim, which reaches every process of its cgroup) and recorded as preempted, so it
 * runs again. Nothing one job's rows hold stops the start: a job the store cannot read, or whose
 * recovery fails, is quarantined (ends FAILED, logged once) and the cluster starts (load-check.ts).
 *
 * Two doors onto one service (docs/api.md, "Doors"): the owner's socket `<home>/run/iris.sock`
 * and the task door `<home>/tasks/iris.sock`. Tasks are given only the task door
 * (IRIS_CONTROLLER_ADDRESS; containers get its directory mounted), never the owner's socket.
 * With the config's `task-door`, a third server is the task door on TCP (same routes, same token
 * check: only the listen address differs) and tasks get its advertised URL instead of the socket;
 * it listens before the owner's socket, so a busy port fails the start before anything answers.
 *
 * Each door has caps of its own (connection-budget.ts sizes them against the open-file limit, with
 * a reserve for the controller's own files), so a flood of the task door never starves the owner's
 * socket, and never takes the descriptors a launch or a log needs.
 */
import { isMergedMember } from '../model/types.js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiServer } from './server.js';
import { startIdleCompaction } from './idle-compaction.js';
import { openStateStore } from './state-lock.js';
import { socketPathFor, taskSocketPathFor } from '../api/address.js';
import { prepareStateDir } from '../api/state-dir.js';
import { writeCliShim } from './cli-shim.js';
import { loadConfig, type IrisConfig } from '../config/index.js';
import { IrisError } from '../model/errors.js';
import { ProcessRuntime } from '../runtime/process/runtime.js';
import { RuntimeRouter } from '../runtime/router.js';
import type { TaskRuntime } from '../runtime/types.js';
import type { KubeBackend } from './kube-cluster.js';
import { admissionDefaults } from './admission-defaults.js';
import { namedQueueSpecs, queueOptions } from '../cluster/scheduler/queue/index.js';
import { placementOptions } from '../cluster/scheduler/index.js';
import type { ClusterStore } from '../cluster/state/store.js';
import { Controller } from '../cluster/controller/controller.js';
import {
  inheritableEnv,
  logsRootFor,
  resultFileFor,
  spoolDirFor,
  tokenGroupFor,
} from '../cluster/controller/launch.js';
import { removeEmptyDirs } from '../logs/files.js';
import { settleRecovered, startedRecords } from '../cluster/controller/recovery.js';
import { attemptKey } from '../cluster/state/keys.js';
import { keptLimits } from '../cluster/state/finished-trees.js';
import { ControllerService } from './controller-service.js';
import { formatDuration } from '../model/duration.js';
import { formatBytes } from '../model/resources.js';
import { formatHostPort } from '../model/net-address.js';
import { ClusterMetrics } from './metrics/cluster-metrics.js';
import { DensityRecorder } from './metrics/density.js';
import { SeriesRecorder, seriesFigures } from './metrics/series.js';
import { MetricsFileWriter } from './metrics/metrics-file.js';
import { listenMetrics, metricsUrl, type MetricsPort } from './metrics/http-port.js';
import type { MetricsEndpoints } from './routes.js';
import { planConnections, readSoftLimit } from './connection-budget.js';
import { clusterDashboard } from './dashboard/lazy.js';
import type { ConnectionPlan } from './connection-budget.js';

export interface RunClusterOptions {
  home: string;
  configPath?: string;
  onReady?: (info: { socket: string; pid: number }) => void;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Also serve the metrics on 127.0.0.1:PORT (`--metrics-port`; wins over the config's `metrics.port`). */
  metricsPort?: number;
  /** Move the saved state aside and start an empty cluster (`--fresh`, state-lock.ts). */
  fresh?: boolean;
}

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/**
 * The Docker runtime's module, loaded on first use: dockerode and its dependencies (ssh2, grpc-js,
 * protobufjs, ...) cost an idle cluster ~9 MB, so a cluster whose jobs never ask for an image never
 * loads them (bench/memory.mjs).
 */
const dockerModule = (): Promise<typeof import('../runtime/docker/runtime.js')> =>
  import('../runtime/docker/runtime.js');

/**
 * Store meta key set before this cluster's state first gets a container runtime: only then can an
 * earlier life have left containers behind, so only then does the start-up reclaim ask the engine.
 */
export const CONTAINERS_USED_META = 'containers_used';

/**
 * A check that rejects with a clear user error when no Docker engine answers (run when a job asks
 * for an image). An answer is trusted for a few seconds, so a burst of submissions asks once.
 */
function containerEngineCheck(): () => Promise<void> {
  let okUntil = 0;
  return async () => {
    if (performance.now() < okUntil) return;
    const probe = await (await dockerModule()).DockerRuntime.probe({ timeoutMs: 3000 });
    if (!probe.ok)
      throw new IrisError('unavailable', probe.message, 'or submit without --image to run the job as local processes');
    okUntil = performance.now() + 5000;
  };
}

/**
 * A check that rejects a GPU job in a container, at submit, when the Docker engine has no NVIDIA
 * runtime (its start would fail: docs/runtime.md). A yes is kept for good; a no is asked again
 * after a few seconds (the owner may have just installed the toolkit).
 */
function gpuRuntimeCheck(): () => Promise<void> {
  let ok = false;
  let noUntil = 0;
  let refusal: IrisError | null = null;
  return async () => {
    if (ok) return;
    if (refusal && performance.now() < noUntil) throw refusal;
    const probe = await (await dockerModule()).probeGpuRuntime({ timeoutMs: 3000 });
    if (probe.ok) {
      ok = true;
      return;
    }
    const what =
      'runtimes' in probe
        ? `has no NVIDIA runtime (its runtimes: ${probe.runtimes.join(', ') || 'none'})`
        : `did not answer: ${probe.message}`;
    refusal = new IrisError(
      'unsatisfiable',
      `a container with GPUs cannot start here: the Docker engine ${what}`,
      'install the NVIDIA Container Toolkit and register its runtime (nvidia-ctk runtime configure ' +
        '--runtime=docker, then restart the engine), ' +
        "or run the job without --image: a process task sees the host's GPUs",
      'gpu',
    );
    noUntil = performance.now() + 5000;
    throw refusal;
  };
}

export async function runCluster(options: RunClusterOptions): Promise<void> {
  const home = path.resolve(options.home);
  // The one rule of api/state-dir.ts: a directory another user controls is refused, and an
  // existing one is never chmodded. Checked here again: `cluster start --foreground` comes here directly.
  prepareStateDir(home);
  // cluster.log (stdout and stderr of a detached cluster) may sit on a full disk: a line that
  // cannot be written is dropped, never fatal.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  const log =
    options.log ??
    ((message: string) => {
      try {
        process.stderr.write(`${message}\n`);
      } catch {
        // dropped
      }
    });
  const config = await loadConfig({ cwd: process.cwd(), explicitPath: options.configPath, env: process.env });
  // Before anything is opened: caps that do not fit the open-file limit stop the start.
  const doorsOn = { tcp: config.taskDoor !== null, metrics: (options.metricsPort ?? config.metrics.port) !== null };
  const plan = planConnections(readSoftLimit(), config.connections, doorsOn);
  // The store's connection is the state lock (state-lock.ts), held from before recovery until the
  // store closes: no second controller ever touches this state.
  const { store, lock } = openStateStore(home, { cacheTtlMs: config.placement.cacheTtlMs, fresh: options.fresh, log });
  try {
    const onReady: RunClusterOptions['onReady'] = (info) => {
      lock.ready();
      options.onReady?.(info);
    };
    await serveCluster({ ...options, onReady }, home, config, plan, store, log);
  } finally {
    lock.release();
    store.close();
  }
}

/** Everything after the state lock: recovery, controller, socket. */
async function serveCluster(
  options: RunClusterOptions,
  home: string,
  config: IrisConfig,
  plan: ConnectionPlan,
  store: ClusterStore,
  log: (message: string) => void,
): Promise<void> {
  const socketPath = socketPathFor(home);
  const taskSocketPath = taskSocketPathFor(home);
  const wantedPort = options.metricsPort ?? config.metrics.port;
  let clusterId = store.getMeta('cluster_id');
  if (!clusterId) {
    clusterId = randomUUID();
    store.setMeta('cluster_id', clusterId);
  }
  // The kubernetes backend (docs/kubernetes.md) is loaded only when configured: a local
  // cluster never imports the Kubernetes client.
  let kube: KubeBackend | null = null;
  const kubeCluster = config.backend.kind === 'kubernetes' ? await import('./kube-cluster.js') : null;
  if (config.backend.kind === 'kubernetes' && kubeCluster) {
    try {
      kube = await kubeCluster.openKube(config.backend, clusterId, log);
    } catch (error) {
      store.close();
      throw error;
    }
  } else {
    store.syncWorkers(config.workers);
  }
  // Metrics (docs/metrics.md): counters follow the store from here on (the requeues of the
  // recovery below included); gauges read it at scrape time.
  const metrics = new ClusterMetrics(store, {
    queues: config.queues && {
      names: config.queues.queues.map((q) => q.name),
      fallback: config.queues.defaultQueue,
    },
  });
  // A merged batch's members have no process of their own: they follow their lead's recovery.
  const leftovers = kube ? [] : store.activeAttempts().filter((a) => !isMergedMember(a));
  // Containers can be left behind only by a state that had a container runtime (the meta key), or
  // by a leftover attempt of a job with an image (a state written before the key existed).
  const mayHaveContainers =
    store.getMeta(CONTAINERS_USED_META) !== null ||
    leftovers.some((a) => {
      const job = store.task(a.task)?.job;
      return job !== undefined && (store.job(job)?.spec.image ?? null) !== null;
    });
  const runtime: TaskRuntime = kube
    ? kube.runtime
    : new RuntimeRouter({
        // The resident spawner: a fork of this (large) process costs several times a fork of a small
        // one, so launches are forked by a small child process started once (runtime/process/spawner.ts).
        // Every attempt's spools and status file in one directory: a quiet attempt makes none of its own.
        process: new ProcessRuntime({ spawner: 'resident', spoolDir: spoolDirFor(home) }),
        container: async () => {
          if (store.getMeta(CONTAINERS_USED_META) === null) store.setMeta(CONTAINERS_USED_META, '1');
          return new (await dockerModule()).DockerRuntime();
        },
        // Otherwise the engine is not asked (nor its client loaded) at start.
        containerReachable: async () =>
          mayHaveContainers && (await (await dockerModule()).DockerRuntime.probe({ timeoutMs: 2000 })).ok,
        log,
      });
  const graceMs = config.defaults.stopGraceMs;

  // Attempts an earlier life of this cluster left running: those that ended meanwhile keep their
  // exit (recover); the rest are stopped (reclaim) and recorded as preempted, to run again.
  const resumed = kube && kubeCluster ? await kubeCluster.recoverKube(store, kube, clusterId, graceMs, log) : [];
  const records = startedRecords(store, leftovers);
  const ended = (await runtime.recover?.(clusterId, records)) ?? [];
  const endedKeys = new Set(ended.map((r) => attemptKey(r.key.task, r.key.attempt)));
  if (!kube)
    await runtime.reclaim(
      clusterId,
      records.filter((r) => !endedKeys.has(attemptKey(r.key.task, r.key.attempt))),
      graceMs,
    );
  if (leftovers.length > 0) {
    await settleRecovered(store, ended, leftovers, config.runtime);
    // Their ends are recorded: their status files, and the directories they left empty, go.
    runtime.settled?.(records);
    for (const r of records)
      if (r.logPath) await removeEmptyDirs(path.dirname(resultFileFor(r.logPath)), logsRootFor(home));
    const rerun = leftovers.length - ended.length;
    log(
      `recovered ${leftovers.length} attempt(s) left running by an earlier cluster: ${ended.length} had ended (exit ` +
        `kept), ${rerun} will run again`,
    );
  }
  // Rows the store could not read and recoveries that failed (load-check.ts): their jobs ended
  // FAILED instead of stopping the start; said once, here.
  for (const { job, problem } of store.quarantined) {
    log(job === null ? `start-up: ${problem}` : `start-up: job ${job} quarantined (it ends FAILED): ${problem}`);
  }

  const startedAt = Date.now();
  const density = config.metrics.density
    ? new DensityRecorder(store, { home, bucketMs: config.metrics.densityBucketMs, log })
    : null;
  // The metrics file (docs/metrics.md, "metrics.json"), kept whether or not a metrics port is open.
  const metricsFile = new MetricsFileWriter(metrics, { home, log, movesWithTime: () => metrics.drawingPower() });
  // The in-memory series (series.ts): its figures are the cluster's own view (`iris cluster status`).
  const series = new SeriesRecorder(() => seriesFigures(service.cluster()), {
    intervalMs: config.metrics.seriesIntervalMs,
    log,
  });
  const metricsEndpoints: MetricsEndpoints = {
    exposition: () => metrics.exposition(),
    density: () => density?.series() ?? null,
    series: () => series.series(),
  };
  const controller = new Controller({
    passObserver: metrics,
    store,
    runtime,
    quotas: config.quotas,
    stopGraceMs: graceMs,
    deadlockGraceMs: config.deadlockGraceMs,
    finishedKept: keptLimits(config.keepFinished),
    // Finished jobs that left memory leave garbage: a quiet cluster gives it back (idle-compaction.ts).
    onArchived: () => compaction.request(),
    stickiness: config.placement.stickiness,
    elastic: config.elastic,
    placement: placementOptions(config.placement),
    queue: queueOptions({
      policy: config.queue.policy,
      queueDepth: config.queue.depth,
      reservationDepth: config.queue.reservationDepth,
      maxReservationDepth: config.queue.maxReservationDepth,
      defaultTimeLimitMs: config.defaults.timeLimitMs,
      preemption: config.preemption.enabled ? { exemptMs: config.preemption.exemptMs } : null,
    }),
    queues: config.queues && namedQueueSpecs(config.queues, config.defaults.timeLimitMs),
    preemptionGraceMs: config.preemption.graceMs,
    log,
    launchContext: {
      clusterId,
      home,
      socketPath: taskSocketPath,
      cliBinDir: writeCliShim(home, PACKAGE_ROOT),
      baseEnv: inheritableEnv(process.env),
      ...(config.taskDoor ? { controllerAddress: config.taskDoor.advertise } : {}),
      packageRoot: PACKAGE_ROOT,
      runtime: config.runtime,
      logLimitBytes: config.logLimitBytes,
      ...(config.backend.kind === 'kubernetes' ? { pods: { image: config.backend.image } } : {}),
      tokenGroup: tokenGroupFor(process.getuid?.() ?? 0, process.getgid?.() ?? 0),
    },
  });

  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const service = new ControllerService(store, controller, {
    clusterId,
    socketPath,
    home,
    version: packageVersion(),
    startedAt,
    configPath: config.source,
    // The port is fixed before anything answers: a port that cannot be had stops the start (below).
    ...(wantedPort !== null ? { metricsUrl: metricsUrl(wantedPort) } : {}),
    quotas: config.quotas,
    ...(config.taskDoor
      ? { taskDoor: { listen: formatHostPort(config.taskDoor.listen), advertise: config.taskDoor.advertise } }
      : {}),
    defaults: admissionDefaults(config, home, { cwd: process.cwd(), kube: kube !== null }),
    requireContainerEngine: kube ? async () => {} : containerEngineCheck(),
    ...(kube ? {} : { requireGpuRuntime: gpuRuntimeCheck() }),
    retentionMs: config.retentionMs,
    requestStop: async () => {
      setImmediate(() => void stop());
    },
  });
  const caps = [`owner socket ${plan.owner}`, `task door ${plan.taskDoor}`];
  if (plan.tcpTaskDoor !== null) caps.push(`tcp task door ${plan.tcpTaskDoor}`);
  if (plan.metrics !== null) caps.push(`metrics port ${plan.metrics}`);
  log(
    `connections: ${caps.join(', ')}; ` +
      `${plan.reserve} of the open-file limit ${plan.softLimit} kept for the controller's own files`,
  );
  const { perPeer, headerTimeoutMs, requestTimeoutMs } = config.connections;
  const limits = (maxConnections: number) => ({ maxConnections, perPeer, headerTimeoutMs, requestTimeoutMs });
  const common = { version: packageVersion(), metrics: metricsEndpoints };
  // The web dashboard (POST /v1/dashboard, owner only): started on the first call, closed at stop.
  const dashboard = clusterDashboard(socketPath, config.dashboard, log);
  const server = createApiServer(service, {
    ...common,
    socketPath,
    door: 'owner',
    limits: limits(plan.owner),
    dashboard: () => dashboard.open(),
  });
  const taskDoor = createApiServer(service, {
    ...common,
    socketPath: taskSocketPath,
    door: 'task',
    limits: limits(plan.taskDoor),
  });
  const tcpTaskDoor = config.taskDoor
    ? createApiServer(service, {
        ...common,
        tcp: config.taskDoor.listen,
        door: 'task',
        limits: limits(plan.tcpTaskDoor!),
      })
    : null;
  let metricsPort: MetricsPort | null = null;
  const retention = startRetention(service, config.retentionMs, log);
  // A quiet cluster gives its last burst's garbage back (idle-compaction.ts).
  const compaction = startIdleCompaction(store);
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      retention.stop();
      compaction.stop();
      log('stopping the cluster: stopping running tasks');
      await controller.shutdown('cluster stopped');
      await dashboard.close();
      await Promise.all([server.close(), taskDoor.close(), tcpTaskDoor?.close(), metricsPort?.close()]);
      kube?.nodes?.close();
      await runtime.close();
      density?.stop();
      series.stop();
      await metricsFile.stop();
      metrics.close();
      store.close();
      resolveStopped();
    })();
    return stopping;
  };
  options.signal?.addEventListener('abort', () => void stop(), { once: true });

  if (wantedPort !== null) {
    // Before the sockets: a busy port is a startup error, and nothing has answered yet.
    try {
      metricsPort = await listenMetrics(metrics, wantedPort, { limits: { ...limits(plan.metrics!) }, log });
    } catch (error) {
      store.close();
      throw error;
    }
    log(`metrics on ${metricsUrl(metricsPort.port)}`);
  }
  try {
    await tcpTaskDoor?.listen();
  } catch (error) {
    await metricsPort?.close();
    store.close();
    throw error;
  }
  if (config.taskDoor)
    log(`task door on tcp ${formatHostPort(config.taskDoor.listen)}; tasks are given ${config.taskDoor.advertise}`);
  if (kube && kubeCluster) {
    controller.resumeRunning(resumed);
    await kubeCluster.startNodes(kube, store, controller, log);
  }
  // Before the sockets answer: start-up's garbage (modules, config) is not kept (idle-compaction.ts).
  compaction.compactNow();
  await taskDoor.listen();
  try {
    await server.listen();
  } catch (error) {
    await Promise.all([taskDoor.close(), tcpTaskDoor?.close(), metricsPort?.close()]);
    throw error;
  }
  controller.start();
  density?.start();
  series.start();
  metricsFile.start();
  retention.start();
  options.onReady?.({ socket: socketPath, pid: process.pid });
  if (options.signal?.aborted) void stop();
  await stopped;
}

/** How often the cluster prunes runs older than its `retention` (also once at start). */
export const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Automatic retention: a prune at start and every hour, logged when it removed something; none with `retention: never`.
 */
function startRetention(
  service: ControllerService,
  retentionMs: number | null,
  log: (message: string) => void,
): { start(): void; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  const prune = (): void => {
    service.prune({}).then(
      (result) => {
        if (result.runs.length > 0) {
          log(
            `retention: pruned ${result.runs.length} run(s) that ended more than ${formatDuration(retentionMs!)}` +
              ` ago, freeing ${formatBytes(result.logBytes, { trimZero: true })} of logs`,
          );
        }
        for (const error of result.logErrors) log(`retention: could not remove ${error}`);
      },
      (error: unknown) => log(`retention: prune failed: ${(error as Error).message}`),
    );
  };
  return {
    start: () => {
      if (retentionMs === null) return;
      prune();
      timer = setInterval(prune, PRUNE_INTERVAL_MS);
      timer.unref();
    },
    stop: () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
