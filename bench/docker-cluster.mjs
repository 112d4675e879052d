// Container tasks through a whole iris cluster (the built CLI in a temporary IRIS_HOME): the
// submit request, a scheduling pass, the Docker runtime's create/attach/start/wait/remove, the
// attempt's log and the job's final state, as a user of `iris submit --image` sees it.
//
//   (c) per task, one at a time: `{image: iris-test/busybox, command: [true]}` from the submit
//       request until the job is SUCCEEDED (awaited on the events stream), interleaved with
//       the caller's `docker run --rm --network host` (iris's default network); medians.
//   (d) throughput: one job of `tasks` replicas on a worker with `concurrency` CPU slots (each
//       task asks 1 CPU), from submit to the job's end, in tasks/s; the caller compares it with
//       the same number of `docker run --rm` at the same concurrency.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SocketClient } from '../dist/client/socket-client.js';
import { awaitJobs, cleanEnv, iris } from './cluster.mjs';

const IMAGE = 'iris-test/busybox';

export async function runDockerClusterBench({ runs, tasks, concurrency, dockerRun, timed, median }) {
  const root = mkdtempSync(path.join(tmpdir(), 'iris-bench-docker-cluster-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, '.irisrc.yaml'), `stop-grace: 1s\nworkers:\n  - {name: bench, cpu: ${concurrency}, memory: 64GiB}\n`);
  const ctx = { cwd, env: cleanEnv({ IRIS_HOME: home }) };
  iris(['cluster', 'start', '--detach'], ctx);
  try {
    const client = new SocketClient({ socketPath: path.join(home, 'run', 'iris.sock'), env: {} });
    const task = { image: IMAGE, command: ['true'], cpu: 1, memory: '64M' };
    let seq = 0;
    const oneJob = async () => {
      const name = `one-${seq++}`;
      await client.submit({ ...task, name });
      await awaitJobs(client, [`/${name}`]);
    };
    await oneJob();
    await dockerRun();
    const cli = [];
    const viaIris = [];
    for (let r = 0; r < runs; r++) {
      cli.push(await timed(dockerRun));
      viaIris.push(await timed(oneJob));
    }
    const cliMs = median(cli);
    const irisMs = median(viaIris);
    const start = performance.now();
    await client.submit({ ...task, name: 'many', replicas: tasks });
    await awaitJobs(client, ['/many']);
    const ms = performance.now() - start;
    return {
      perTask: { cliMs: +cliMs.toFixed(1), irisMs: +irisMs.toFixed(1), ratio: +(irisMs / cliMs).toFixed(2), runs },
      throughput: { n: tasks, concurrency, ms: Math.round(ms), perSec: +((tasks / ms) * 1000).toFixed(1) },
    };
  } finally {
    try {
      iris(['cluster', 'stop'], ctx);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
}
