// Container tasks through a whole iris cluster (the built CLI in a temporary IRIS_HOME): the
// submit request, a scheduling pass, the Docker runtime's create/attach/start/wait/remove, the
// attempt's log and the job's final state, as a user of `iris submit --image` sees it.
// bench/docker.mjs runs these interleaved with `docker run --rm` (bench/measure.mjs):
//   oneJob()    one `{image: iris-test/busybox, command: [true], network: host}` job from the submit request
//               until it is SUCCEEDED (awaited on the events stream);
//   manyJob(n)  one job of n replicas on a worker with `concurrency` CPU slots (each task asks
//               1 CPU), from the submit request to the job's end.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SocketClient } from '../dist/client/socket-client.js';
import { awaitJobs, cleanEnv, iris } from './cluster.mjs';

const IMAGE = 'iris-test/busybox';

/** A started cluster with one `concurrency`-CPU worker; `stop()` stops it and removes its home. */
export function startDockerCluster({ concurrency }) {
  const root = mkdtempSync(path.join(tmpdir(), 'iris-bench-docker-cluster-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(
    path.join(cwd, '.irisrc.yaml'),
    `stop-grace: 1s\nworkers:\n  - {name: bench, cpu: ${concurrency}, memory: 64GiB}\n`,
  );
  const ctx = { cwd, env: cleanEnv({ IRIS_HOME: home }) };
  iris(['cluster', 'start', '--detach'], ctx);
  const client = new SocketClient({ socketPath: path.join(home, 'run', 'iris.sock'), env: {} });
  // --network host, like the `docker run --rm --network host` it is compared with (iris's default
  // is bridge: compared with bridge, both sides pay the namespace set-up, ~150 ms here).
  const task = { image: IMAGE, command: ['true'], cpu: 1, memory: '64M', network: 'host' };
  let seq = 0;
  const run = async (replicas) => {
    const name = `job-${seq++}`;
    await client.submit({ ...task, name, replicas });
    await awaitJobs(client, [`/${name}`]);
  };
  return {
    oneJob: () => run(1),
    manyJob: (n) => run(n),
    stop() {
      try {
        iris(['cluster', 'stop'], ctx);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
