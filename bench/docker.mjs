// Container task overhead and throughput: the DockerRuntime against `docker run --rm` of the
// same image, measured in the same run.
//
//   (a) per task, one at a time: wall time of a trivial task (`true` in iris-test/busybox) from
//       launch to `exited` (container created, attached, started, waited, removed, log closed)
//       vs `docker run --rm iris-test/busybox true` (the CLI does create/attach/start/wait and
//       the engine removes it), for the bridge network and for --network host. Rounds are
//       interleaved (cli, runtime, cli, ...) so load from elsewhere hits both alike; medians.
//   (b) throughput: 100 trivial container tasks through the runtime with bounded concurrency
//       (host network), and the same number of `docker run --rm --network host` with the
//       same concurrency, in tasks/s.
//   (c), (d) the same through a whole iris cluster: bench/docker-cluster.mjs.
//
// The runtime's launches carry the limits iris sets for every task (cpu, memory, pids) and its
// capability profile, so the comparison includes what iris really asks of the engine.
// Needs a Docker engine and the test images (scripts/docker-setup.sh) and dist/ (build first:
// node_modules/.bin/tsc -p tsconfig.build.json).
//
//   node bench/docker.mjs [runs=10] [tasks=100] [concurrency=8]
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runDockerClusterBench } from './docker-cluster.mjs';

const IMAGE = 'iris-test/busybox';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function dockerRun(network) {
  return new Promise((resolve, reject) => {
    const args = ['run', '--rm', ...(network === 'host' ? ['--network', 'host'] : []), IMAGE, 'true'];
    execFile('docker', args, { timeout: 60_000 }, (error, _out, stderr) => (error ? reject(new Error(`docker ${args.join(' ')}: ${stderr || error.message}`)) : resolve()));
  });
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function pool(n, concurrency, one) {
  let next = 0;
  const worker = async () => {
    while (next < n) await one(next++);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
  const ms = performance.now() - t0;
  return { n, ms: Math.round(ms), perSec: +((n / ms) * 1000).toFixed(1) };
}

export async function runDockerBench({ runs = 10, tasks = 100, concurrency = 8 } = {}) {
  const { DockerRuntime } = await import('../dist/runtime/docker/runtime.js');
  const probe = await DockerRuntime.probe();
  if (!probe.ok) return { skipped: probe.message };
  const dir = await mkdtemp(join(tmpdir(), 'iris-bench-docker-'));
  const runtime = new DockerRuntime();
  let seq = 0;
  const runtimeOne = async (network) => {
    const i = seq++;
    const task = await runtime.launch({
      key: { job: '/bench', task: `/bench/task-${i}`, attempt: 0 },
      argv: ['true'],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', IRIS_CLUSTER_ID: 'bench-docker', IRIS_TASK_ID: `/bench/task-${i}`, IRIS_ATTEMPT: '0' },
      cwd: '',
      logPath: join(dir, 'logs', `task-${i}.log`),
      resources: { cpuMillis: 1000, memoryBytes: 256 * 1024 * 1024, device: null },
      deviceIndices: [],
      labels: { 'iris.cluster': 'bench-docker', 'iris.job': '/bench', 'iris.task': `/bench/task-${i}`, 'iris.attempt': '0' },
      container: { image: IMAGE, devices: [], gpuIds: [], mounts: [], shmBytes: null, memlockUnlimited: false, privileged: false, network },
    });
    const exit = await task.exited;
    if (exit.exitCode !== 0) throw new Error(`bench task ended with ${JSON.stringify(exit)}`);
  };
  try {
    // Warm up both paths (module loading, engine caches) outside the measurement.
    for (const network of ['bridge', 'host']) {
      await dockerRun(network);
      await runtimeOne(network);
    }
    const perTask = {};
    for (const network of ['bridge', 'host']) {
      const cli = [];
      const viaRuntime = [];
      for (let r = 0; r < runs; r++) {
        cli.push(await timed(() => dockerRun(network)));
        viaRuntime.push(await timed(() => runtimeOne(network)));
      }
      const cliMs = median(cli);
      const runtimeMs = median(viaRuntime);
      perTask[network] = { cliMs: +cliMs.toFixed(1), runtimeMs: +runtimeMs.toFixed(1), ratio: +(runtimeMs / cliMs).toFixed(2), runs };
    }
    const throughput = {
      concurrency,
      runtime: await pool(tasks, concurrency, () => runtimeOne('host')),
      cli: await pool(tasks, concurrency, () => dockerRun('host')),
    };
    const cluster = await runDockerClusterBench({ runs, tasks, concurrency, dockerRun: () => dockerRun('host'), timed, median });
    cluster.throughput.cliPerSec = throughput.cli.perSec;
    return { engine: probe.version, perTask, throughput, cluster, target: 1.2 };
  } finally {
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [runs, tasks, concurrency] = process.argv.slice(2).map(Number);
  const r = await runDockerBench({ runs: runs || undefined, tasks: tasks || undefined, concurrency: concurrency || undefined });
  if (r.skipped) {
    console.log(`docker bench skipped: ${r.skipped}`);
    process.exit(0);
  }
  console.log(`docker bench: engine ${r.engine}`);
  for (const [network, x] of Object.entries(r.perTask)) {
    console.log(`per task (${network.padEnd(6)}): runtime ${x.runtimeMs} ms vs docker run --rm ${x.cliMs} ms = ${x.ratio} x (median of ${x.runs}; target <= ${r.target} x)`);
  }
  const t = r.throughput;
  console.log(`throughput, ${t.runtime.n} tasks x${t.concurrency} (host network): runtime ${t.runtime.perSec} tasks/s, docker run --rm ${t.cli.perSec} tasks/s`);
  const c = r.cluster;
  console.log(`through iris: ${c.perTask.irisMs} ms per task vs docker run --rm ${c.perTask.cliMs} ms = ${c.perTask.ratio} x; ${c.throughput.n} tasks x${c.throughput.concurrency}: ${c.throughput.perSec} tasks/s`);
}
