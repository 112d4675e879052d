/**
 * The shared TaskRuntime contract on the REAL Docker engine: every launch of the contract gets a
 * busybox container spec (iris-test/busybox, built locally by scripts/docker-setup.sh).
 */
import { describe } from 'vitest';
import { DockerRuntime } from '../../src/runtime/docker/runtime.js';
import type {
  ContainerSpec,
  RunningTask,
  StartedRecord,
  TaskKey,
  TaskLaunch,
  TaskRuntime,
} from '../../src/runtime/types.js';
import { BUSYBOX, dockerTestEnv } from '../helpers/docker.js';
import { runtimeContract } from './contract.js';

const env = await dockerTestEnv();

export const BUSYBOX_SPEC: ContainerSpec = {
  image: BUSYBOX,
  devices: [],
  gpuIds: [],
  mounts: [],
  shmBytes: null,
  memlockUnlimited: false,
  privileged: false,
  network: 'host',
};

/** A DockerRuntime that runs every launch in the busybox image (the contract's launches carry no spec). */
class BusyboxRuntime implements TaskRuntime {
  readonly name = 'docker (busybox)';
  // Stats sampled every 250 ms: the usage case's task holds its peak for 1 s before it ends.
  constructor(private readonly inner = new DockerRuntime({ statsIntervalMs: 250 })) {}
  launch(launch: TaskLaunch): Promise<RunningTask> {
    return this.inner.launch({ ...launch, container: launch.container ?? BUSYBOX_SPEC });
  }
  stop(task: RunningTask, graceMs: number): Promise<void> {
    return this.inner.stop(task, graceMs);
  }
  reclaim(clusterId: string, records: readonly StartedRecord[], graceMs: number): Promise<TaskKey[]> {
    return this.inner.reclaim(clusterId, records, graceMs);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe.skipIf(!env.run)(`Docker runtime contract (${env.why})`, () => {
  runtimeContract('docker', () => new BusyboxRuntime(), {
    // The engine adds HOSTNAME always and HOME when the launch sets none.
    engineEnv: ['HOSTNAME', 'HOME'],
    // `$!` inside a container is a pid of the container's own pid namespace, which this host
    // cannot look up; when the container's init ends the kernel ends the whole namespace, and
    // `exited` resolves only after the engine saw the container stop.
    processGone: null,
    // Each container costs the engine ~0.1-0.3 s of work on 2 cores; 20 at once still checks
    // the concurrent paths (attach streams, waits, removals) without a minute-long case.
    concurrency: 20,
    // The engine forgets a container's counters when it exits: usage is what samples saw.
    usage: 'sampled',
  });
});
