/**
 * RuntimeRouter: the TaskRuntime the controller of a local cluster talks to (with the kubernetes
 * backend it talks to the KubeRuntime instead, server/kube-cluster.ts). A launch that carries a
 * `container` spec goes to the container runtime, every other launch to the process runtime.
 *
 * The container runtime is created on first use, so a machine without Docker runs process jobs
 * without ever touching an engine; its factory may be asynchronous, so the daemon loads the Docker
 * client (dockerode and its dependencies, ~9 MB resident) only then. Concurrent first launches
 * share one creation; a creation that fails is tried again at the next container launch. Each RunningTask remembers
 * which runtime started it, so
 * stop() always reaches the right one. reclaim() asks both; an absent engine only means there
 * is nothing of ours to reclaim there (the reason is logged, not thrown). recover() asks the
 * process runtime only (containers are reclaimed, not recovered).
 */
import type {
  ExecSession,
  ExecSpec,
  RecoveredExit,
  RunningTask,
  StartedRecord,
  TaskKey,
  TaskLaunch,
  TaskRuntime,
} from './types.js';
import { IrisError } from '../model/errors.js';

export interface RuntimeRouterOptions {
  process: TaskRuntime;
  /** Builds the container runtime on first use (may load its code first). */
  container: () => TaskRuntime | Promise<TaskRuntime>;
  /** True when a container engine answers (checked before reclaiming containers). */
  containerReachable?: () => Promise<boolean>;
  log?: (message: string) => void;
}

export class RuntimeRouter implements TaskRuntime {
  readonly name = 'router';
  private readonly processRuntime: TaskRuntime;
  private readonly makeContainer: () => TaskRuntime | Promise<TaskRuntime>;
  private containerRuntime: Promise<TaskRuntime> | null = null;
  private readonly owners = new WeakMap<RunningTask, TaskRuntime>();
  private readonly options: RuntimeRouterOptions;

  constructor(options: RuntimeRouterOptions) {
    this.options = options;
    this.processRuntime = options.process;
    this.makeContainer = options.container;
  }

  private container(): Promise<TaskRuntime> {
    if (this.containerRuntime === null) {
      const made = (async () => this.makeContainer())();
      this.containerRuntime = made;
      made.catch(() => {
        if (this.containerRuntime === made) this.containerRuntime = null;
      });
    }
    return this.containerRuntime;
  }

  async launch(launch: TaskLaunch): Promise<RunningTask> {
    const runtime = launch.container ? await this.container() : this.processRuntime;
    const task = await runtime.launch(launch);
    this.owners.set(task, runtime);
    return task;
  }

  stop(task: RunningTask, graceMs: number): Promise<void> {
    const runtime = this.owners.get(task) ?? this.processRuntime;
    return runtime.stop(task, graceMs);
  }

  /** An exec goes to the runtime that started the attempt. */
  exec(task: RunningTask, spec: ExecSpec): Promise<ExecSession> {
    const runtime = this.owners.get(task) ?? this.processRuntime;
    if (!runtime.exec)
      return Promise.reject(new IrisError('unavailable', `the ${runtime.name} runtime cannot run a command in a task`));
    return runtime.exec(task, spec);
  }

  async reclaim(clusterId: string, records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]> {
    const keys = await this.processRuntime.reclaim(clusterId, records, graceMs);
    const reachable = this.options.containerReachable ? await this.options.containerReachable() : true;
    if (!reachable) return keys;
    try {
      keys.push(...(await (await this.container()).reclaim(clusterId, records, graceMs)));
    } catch (error) {
      this.options.log?.(`could not reclaim containers: ${error instanceof Error ? error.message : String(error)}`);
    }
    return keys;
  }

  async recover(clusterId: string, records: readonly StartedRecord[]): Promise<RecoveredExit[]> {
    return (await this.processRuntime.recover?.(clusterId, records)) ?? [];
  }

  /** Only the process runtime keeps files for an attempt's end (containers' exits are the engine's). */
  settled(records: readonly Pick<StartedRecord, 'logPath'>[]): void {
    this.processRuntime.settled?.(records);
  }

  async close(): Promise<void> {
    const container = this.containerRuntime?.catch(() => null);
    await Promise.all([this.processRuntime.close(), container?.then((runtime) => runtime?.close())]);
  }
}
