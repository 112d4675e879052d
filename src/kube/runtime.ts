/**
 * KubeRuntime: the TaskRuntime of the kubernetes backend (docs/kubernetes.md). Each attempt is
 * one Pod (pods.ts) in the backend's namespace, bound by iris to the Node it chose (binder.ts,
 * gangs all or none). Guarantees:
 * - launch() resolves once the Pod exists (its binding follows; a failed binding ends the
 *   attempt as lost, a preemption); it rejects with a user error when the Pod cannot be made
 *   (no image), and with an error carrying `lost` when the API server refuses or is unreachable.
 * - One watch of the cluster's Pods (label selector, watch-loop.ts) drives every attempt: its
 *   end is pod-status.ts's mapping of the Pod; a Pod deleted by someone else is lost.
 * - The Pod's log (the pod log API, follow) is appended to the attempt's log file in the format
 *   of src/logs/format.ts (one stream: Kubernetes merges stdout and stderr) before `exited`
 *   resolves; an ended Pod is then deleted.
 * - stop() deletes the Pod with the grace period (the kubelet sends SIGTERM, then SIGKILL) and
 *   resolves when the Pod is gone.
 * - After a controller restart, recover() reports the attempts whose Pods ended meanwhile (their
 *   log fetched into the attempt's log), resume() re-adopts the ones still running (their log is
 *   followed again from the time of the log file's last write), and reclaim() deletes every
 *   other Pod of the cluster.
 */
import { Writable } from 'node:stream';
import { statSync } from 'node:fs';
import type { V1Pod } from '@kubernetes/client-node';
import { LogWriter } from '../logs/writer.js';
import { IrisError } from '../model/errors.js';
import type * as rt from '../runtime/types.js';
import { execInPod } from './exec.js';
import { Binder } from './binder.js';
import { messageOf, statusOf, type KubeConnection } from './client.js';
import { podExit, podGone } from './pod-status.js';
import { CONTAINER_NAME, clusterSelector, podFor, podKey, podName } from './pods.js';
import { LIST_PAGE_SIZE, watchLoop, type WatchLoop } from './watch-loop.js';

export interface KubeRuntimeOptions {
  clusterId: string;
  /** The backend's image for jobs that name none. */
  image: string | null;
  log?: (message: string) => void;
  /** How long an ended Pod's log may take to arrive before the attempt's end is reported anyway. */
  logDrainMs?: number;
}

interface PodEntry {
  name: string;
  launch: rt.TaskLaunch;
  stopping: boolean;
  ended: boolean;
  logStarted: boolean;
  logDone: Promise<void>;
  resolveLogDone: () => void;
  writer: LogWriter;
  resolveExit: (exit: rt.TaskExit) => void;
  resolveGone: () => void;
  gone: Promise<void>;
  task: rt.RunningTask;
  /** Follow the log from this time on (a re-adopted Pod: what came before is in the log file). */
  sinceTime?: string;
}

export class KubeRuntime implements rt.TaskRuntime {
  readonly name = 'kubernetes';
  private readonly pods = new Map<string, PodEntry>();
  private readonly binder: Binder;
  private loop: WatchLoop | null = null;
  private readonly log: (message: string) => void;

  constructor(
    private readonly conn: KubeConnection,
    private readonly o: KubeRuntimeOptions,
  ) {
    this.binder = new Binder(conn);
    this.log = o.log ?? (() => {});
  }

  /** Starts the watch of the cluster's Pods; resolves after the first list. */
  async start(): Promise<void> {
    const ns = this.conn.namespace;
    const labelSelector = clusterSelector(this.o.clusterId);
    // The attempts tracked when a complete list began (their Pods existed before its snapshot) and
    // those of them the list showed: the others vanished. One tracked later may be newer than the list.
    let before = new Set<string>();
    let seen = new Set<string>();
    this.loop = watchLoop<V1Pod>(
      this.conn,
      `/api/v1/namespaces/${ns}/pods`,
      { labelSelector },
      (page) => this.conn.core.listNamespacedPod({ namespace: ns, labelSelector, ...page }),
      {
        begin: () => {
          before = new Set(this.pods.keys());
          seen = new Set();
        },
        page: (items) => {
          for (const p of items) {
            const name = p.metadata?.name ?? '';
            if (before.has(name)) seen.add(name);
            this.observe(p);
          }
        },
        end: () => {
          for (const name of before) {
            const entry = this.pods.get(name);
            if (entry && !seen.has(name)) this.vanished(entry);
          }
          before = new Set();
          seen = new Set();
        },
        event: (type, pod) => {
          const entry = this.pods.get(pod.metadata?.name ?? '');
          if (!entry) return;
          if (type === 'DELETED') this.vanished(entry);
          else this.observe(pod);
        },
      },
      this.log,
    );
    await this.loop.ready;
  }

  async launch(launch: rt.TaskLaunch): Promise<rt.RunningTask> {
    const manifest = podFor(launch, {
      clusterId: this.o.clusterId,
      namespace: this.conn.namespace,
      image: this.o.image,
    });
    const node = launch.workerId;
    if (!node) throw new IrisError('internal', `launch of ${launch.key.task} names no worker`);
    try {
      const { namespace } = this.conn;
      await this.conn.limit.run(() => this.conn.core.createNamespacedPod({ namespace, body: manifest }));
    } catch (error) {
      if (statusOf(error) !== 409) {
        const why = `the API server refused pod ${manifest.metadata.name}: ${messageOf(error)}`;
        if (launch.gang)
          this.binder.fail(launch.gang, `gang member ${launch.key.task} could not be created: ${messageOf(error)}`);
        throw Object.assign(new Error(why), { lost: why });
      }
      // 409: made by an earlier life of this controller; it is ours (same name = same attempt).
    }
    const entry = this.track(manifest.metadata.name, launch);
    this.binder.submit({
      pod: entry.name,
      node,
      gang: launch.gang ?? null,
      done: (error) => {
        if (error === null || entry.ended) return;
        this.finish(entry, { exitCode: null, signal: null, lost: error });
        void this.deletePod(entry.name, 0);
      },
    });
    return entry.task;
  }

  /** Runs a command in the attempt's Pod through the Pod exec API (exec.ts). */
  async exec(task: rt.RunningTask, spec: rt.ExecSpec): Promise<rt.ExecSession> {
    const entry = this.pods.get(podName(this.o.clusterId, task.key));
    if (!entry || entry.ended || entry.stopping)
      throw new IrisError(
        'not_found',
        `the pod of ${task.key.task} attempt ${task.key.attempt} is not running: nothing to exec into`,
      );
    return execInPod(this.conn, entry.name, spec);
  }

  async stop(task: rt.RunningTask, graceMs: number): Promise<void> {
    const entry = this.pods.get(podName(this.o.clusterId, task.key));
    if (!entry) return;
    entry.stopping = true;
    if (entry.launch.gang) this.binder.withdraw(entry.launch.gang.id, entry.name);
    const grace = Math.ceil(graceMs / 1000);
    await this.deletePod(entry.name, grace);
    // A Pod whose node no longer answers never finishes a graceful delete: force it after the grace and a margin.
    const force = setTimeout(() => void this.deletePod(entry.name, 0), graceMs + FORCE_AFTER_MS);
    force.unref?.();
    // An API server that does not answer at all: give up after a second margin, the attempt is lost.
    const unreachable = await Promise.race([
      entry.gone.then(() => false),
      sleep(graceMs + 2 * FORCE_AFTER_MS).then(() => true),
    ]);
    clearTimeout(force);
    if (unreachable) {
      this.log(
        `kubernetes: pod ${entry.name} not gone after ${Math.round((graceMs + 2 * FORCE_AFTER_MS) / 1000)}s; giving ` +
          `it up`,
      );
      if (!entry.ended)
        this.finish(entry, {
          exitCode: null,
          signal: null,
          lost: 'the Kubernetes API server did not confirm the pod deletion',
        });
      entry.resolveGone();
    }
    await task.exited;
  }

  async reclaim(clusterId: string, records: readonly rt.StartedRecord[], graceMs: number): Promise<rt.TaskKey[]> {
    const listed = await this.listPods(clusterId);
    const stopped: rt.TaskKey[] = [];
    const tracked = new Set(this.pods.keys());
    await Promise.all(
      listed
        .filter((p) => !tracked.has(p.metadata?.name ?? ''))
        .map(async (p) => {
          const key = podKey(p);
          await this.deletePod(p.metadata!.name!, Math.ceil(graceMs / 1000));
          if (key && records.some((r) => r.key.task === key.task && r.key.attempt === key.attempt)) stopped.push(key);
        }),
    );
    return stopped;
  }

  async recover(clusterId: string, records: readonly rt.StartedRecord[]): Promise<rt.RecoveredExit[]> {
    const byName = new Map((await this.listPods(clusterId)).map((p) => [p.metadata?.name ?? '', p]));
    const out: rt.RecoveredExit[] = [];
    for (const record of records) {
      const pod = byName.get(podName(clusterId, record.key));
      if (!pod) continue;
      const exit = podExit(pod, { stopping: false, memoryBytes: 0 });
      if (!exit) continue;
      if (record.logPath) await this.fetchLog(pod.metadata!.name!, record.logPath);
      await this.deletePod(pod.metadata!.name!, 0);
      out.push({ key: record.key, exit });
    }
    return out;
  }

  /**
   * After a restart, after recover(): re-adopt the attempts whose Pods still run, so they are
   * not killed. `launches` are rebuilt by the caller from its records (key, logPath, resources).
   */
  async resume(
    clusterId: string,
    launches: readonly rt.TaskLaunch[],
  ): Promise<Array<{ task: rt.RunningTask; launch: rt.TaskLaunch; node: string | null }>> {
    const byName = new Map((await this.listPods(clusterId)).map((p) => [p.metadata?.name ?? '', p]));
    const out: Array<{ task: rt.RunningTask; launch: rt.TaskLaunch; node: string | null }> = [];
    for (const given of launches) {
      const pod = byName.get(podName(clusterId, given.key));
      if (!pod || pod.metadata?.deletionTimestamp || podExit(pod, { stopping: false, memoryBytes: 0 })) continue;
      // The Pod's own environment (its task token among it) and command are the launch's truth.
      const container = pod.spec?.containers?.[0];
      const env: Record<string, string> = {};
      for (const e of container?.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
      const launch: rt.TaskLaunch = { ...given, env, argv: container?.command ?? given.argv };
      const entry = this.track(pod.metadata!.name!, launch, sinceOf(launch.logPath));
      if (!pod.spec?.nodeName && launch.workerId) {
        this.binder.submit({
          pod: entry.name,
          node: launch.workerId,
          gang: null,
          done: (e) => e && this.finish(entry, { exitCode: null, signal: null, lost: e }),
        });
      }
      this.observe(pod);
      out.push({ task: entry.task, launch, node: pod.spec?.nodeName ?? launch.workerId ?? null });
    }
    return out;
  }

  async close(): Promise<void> {
    this.loop?.close();
  }

  private track(name: string, launch: rt.TaskLaunch, sinceTime?: string): PodEntry {
    let resolveExit!: (exit: rt.TaskExit) => void;
    let resolveGone!: () => void;
    let resolveLogDone!: () => void;
    const exited = new Promise<rt.TaskExit>((resolve) => (resolveExit = resolve));
    const gone = new Promise<void>((resolve) => (resolveGone = resolve));
    const logDone = new Promise<void>((resolve) => (resolveLogDone = resolve));
    const writer = new LogWriter(launch.logPath, { limitBytes: launch.logLimitBytes ?? null });
    const entry: PodEntry = {
      name,
      launch,
      stopping: false,
      ended: false,
      logStarted: false,
      logDone,
      resolveLogDone,
      writer,
      resolveExit,
      resolveGone,
      gone,
      task: { key: launch.key, pid: null, exited },
    };
    if (sinceTime) entry.sinceTime = sinceTime;
    this.pods.set(name, entry);
    return entry;
  }

  /** A Pod event of a tracked attempt: start its log once it runs; finish it once it ended. */
  private observe(pod: V1Pod): void {
    const entry = this.pods.get(pod.metadata?.name ?? '');
    if (!entry || entry.ended) return;
    const phase = pod.status?.phase;
    const exit = podExit(pod, { stopping: entry.stopping, memoryBytes: entry.launch.resources.memoryBytes });
    const ran = phase === 'Running' || phase === 'Succeeded' || phase === 'Failed';
    if (ran && !entry.logStarted) this.followLog(entry);
    if (!exit) return;
    entry.ended = true;
    void (async () => {
      await withTimeout(entry.logDone, this.o.logDrainMs ?? 5000);
      this.finish(entry, exit);
      if (!entry.stopping) await this.deletePod(entry.name, 0);
    })();
  }

  private vanished(entry: PodEntry): void {
    entry.resolveGone();
    if (entry.ended) return;
    entry.ended = true;
    void (async () => {
      await withTimeout(entry.logDone, entry.logStarted ? 2000 : 0);
      this.finish(entry, podGone({ stopping: entry.stopping }));
    })();
  }

  private finish(entry: PodEntry, exit: rt.TaskExit): void {
    entry.ended = true;
    void entry.writer.close().then(() => {
      const out: rt.TaskExit = { ...exit };
      if (entry.writer.cut) out.logCut = true;
      if (entry.writer.error) out.logError = entry.writer.error;
      entry.resolveExit(out);
    });
    void entry.gone.then(() => this.pods.delete(entry.name));
    if (!entry.stopping) setTimeout(() => entry.resolveGone(), 30_000).unref();
  }

  private followLog(entry: PodEntry): void {
    entry.logStarted = true;
    void this.streamLog(entry.name, entry.writer, true, entry.sinceTime).then(() => entry.resolveLogDone());
  }

  /** The whole log of an ended Pod into `logPath` (recovery); from the file's last write on when it has one. */
  private async fetchLog(name: string, logPath: string): Promise<void> {
    const writer = new LogWriter(logPath);
    await this.streamLog(name, writer, false, sinceOf(logPath));
    await writer.close();
  }

  /**
   * The pod log API's stream of `name` (followed to the container's end, or what there is now)
   * into `writer`, honouring its back-pressure. Resolves when the stream ended or failed (logged).
   */
  private streamLog(name: string, writer: LogWriter, follow: boolean, sinceTime: string | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const sink = new Writable({
        write: (chunk: Buffer, _enc, callback) => {
          if (!writer.write('o', chunk)) void writer.drained().then(() => callback());
          else callback();
        },
        final: (callback) => {
          resolve();
          callback();
        },
      });
      this.conn.log
        .log(this.conn.namespace, name, CONTAINER_NAME, sink, { follow, ...(sinceTime ? { sinceTime } : {}) })
        .catch((error) => {
          this.log(`kubernetes: log of pod ${name}: ${messageOf(error)}`);
          resolve();
        });
    });
  }

  /** Every Pod of the cluster (after a restart), read in pages. */
  private async listPods(clusterId: string): Promise<V1Pod[]> {
    const out: V1Pod[] = [];
    let next: string | undefined;
    do {
      const list = await this.conn.core.listNamespacedPod({
        namespace: this.conn.namespace,
        labelSelector: clusterSelector(clusterId),
        limit: LIST_PAGE_SIZE,
        ...(next ? { _continue: next } : {}),
      });
      out.push(...list.items);
      next = list.metadata?._continue || undefined;
    } while (next);
    return out;
  }

  /** The requests of the Pod watch so far (for tests and the bench). */
  get watchCounts(): { lists: number; pages: number; watches: number } {
    return this.loop?.counts ?? { lists: 0, pages: 0, watches: 0 };
  }

  /** Deletes a Pod with a grace period in seconds; one already gone is fine. */
  private async deletePod(name: string, graceSeconds: number): Promise<void> {
    try {
      await this.conn.limit.run(() =>
        this.conn.core.deleteNamespacedPod({
          name,
          namespace: this.conn.namespace,
          gracePeriodSeconds: graceSeconds,
          body: { gracePeriodSeconds: graceSeconds },
        }),
      );
    } catch (error) {
      if (statusOf(error) === 404) {
        const entry = this.pods.get(name);
        if (entry) this.vanished(entry);
        return;
      }
      this.log(`kubernetes: delete of pod ${name} failed: ${messageOf(error)}`);
    }
  }
}

/** The RFC 3339 time of a log file's last write (to follow a re-adopted Pod's log from there), or undefined. */
function sinceOf(logPath: string): string | undefined {
  try {
    return new Date(Math.floor(statSync(logPath).mtimeMs / 1000) * 1000 + 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  } catch {
    return undefined;
  }
}

/** How long after the grace period a Pod not gone is deleted with grace 0 (and, twice that, given up). */
const FORCE_AFTER_MS = 10_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
