// Container task overhead and throughput: the DockerRuntime against `docker run --rm` of the
// same image, measured in the same run.
//
//   (a) per task, one at a time: wall time of a trivial task (`true` in iris-test/busybox) from
//       launch to `exited` (container created, attached, started, waited, removed, log closed)
//       vs `docker run --rm iris-test/busybox true` (the CLI does create/attach/start/wait and
//       the engine removes it), for the bridge network and for --network host.
//   (b) throughput: 100 trivial container tasks through the runtime with bounded concurrency
//       (host network), through a whole cluster (one job of 100 replicas), and the same number
//       of `docker run --rm --network host` with the same concurrency, in tasks/s.
//   (c) one task through a whole iris cluster (bench/docker-cluster.mjs) vs `docker run --rm`.
// Every comparison runs interleaved (bench/measure.mjs: a warm-up round, then A B, B A, … for at
// least 5 rounds); ratios are medians of the per-round ratios.
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
import { startDockerCluster } from './docker-cluster.mjs';
import { interleave, ratioOf } from './measure.mjs';

const IMAGE = 'iris-test/busybox';

function dockerRun(network) {
  return new Promise((resolve, reject) => {
    const args = ['run', '--rm', ...(network === 'host' ? ['--network', 'host'] : []), IMAGE, 'true'];
    execFile('docker', args, { timeout: 60_000 }, (error, _out, stderr) =>
      error ? reject(new Error(`docker ${args.join(' ')}: ${stderr || error.message}`)) : resolve(),
    );
  });
}

async function pool(n, concurrency, one) {
  let next = 0;
  const worker = async () => {
    while (next < n) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
}

const perSec = (n, ms) => +((n / ms) * 1000).toFixed(1);
/** One interleaved comparison as the bench table reads it: medians and the median per-round ratio. */
const versus = (r, a, b) => ({
  [`${a}Ms`]: +r[a].median.toFixed(1),
  [`${b}Ms`]: +r[b].median.toFixed(1),
  ratio: +ratioOf(r, a, b).median.toFixed(2),
  runs: r.rounds,
  spread: { [a]: r[a], [b]: r[b] },
});

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
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        IRIS_CLUSTER_ID: 'bench-docker',
        IRIS_TASK_ID: `/bench/task-${i}`,
        IRIS_ATTEMPT: '0',
      },
      cwd: '',
      logPath: join(dir, 'logs', `task-${i}.log`),
      resources: { cpuMillis: 1000, memoryBytes: 256 * 1024 * 1024, device: null },
      deviceIndices: [],
      labels: {
        'iris.cluster': 'bench-docker',
        'iris.job': '/bench',
        'iris.task': `/bench/task-${i}`,
        'iris.attempt': '0',
      },
      container: {
        image: IMAGE,
        devices: [],
        gpuIds: [],
        mounts: [],
        shmBytes: null,
        memlockUnlimited: false,
        privileged: false,
        network,
      },
    });
    const exit = await task.exited;
    if (exit.exitCode !== 0) throw new Error(`bench task ended with ${JSON.stringify(exit)}`);
  };
  try {
    // interleave() runs one untimed warm-up round of each side first.
    const perTask = {};
    for (const network of ['bridge', 'host']) {
      const r = await interleave(
        { runtime: () => runtimeOne(network), cli: () => dockerRun(network) },
        { rounds: runs },
      );
      perTask[network] = versus(r, 'runtime', 'cli');
    }
    const cluster = startDockerCluster({ concurrency });
    try {
      const one = await interleave({ iris: cluster.oneJob, cli: () => dockerRun('host') }, { rounds: runs });
      const many = await interleave(
        {
          runtime: () => pool(tasks, concurrency, () => runtimeOne('host')),
          iris: () => cluster.manyJob(tasks),
          cli: () => pool(tasks, concurrency, () => dockerRun('host')),
        },
        { rounds: 5 },
      );
      const throughput = {
        concurrency,
        n: tasks,
        rounds: many.rounds,
        runtime: { n: tasks, perSec: perSec(tasks, many.runtime.median), ms: many.runtime },
        cli: { n: tasks, perSec: perSec(tasks, many.cli.median), ms: many.cli },
        runtimeVsCli: +ratioOf(many, 'cli', 'runtime').median.toFixed(2),
      };
      const clusterResult = {
        perTask: versus(one, 'iris', 'cli'),
        throughput: {
          n: tasks,
          concurrency,
          perSec: perSec(tasks, many.iris.median),
          cliPerSec: throughput.cli.perSec,
          ms: many.iris,
          vsCli: +ratioOf(many, 'cli', 'iris').median.toFixed(2),
        },
      };
      return { engine: probe.version, perTask, throughput, cluster: clusterResult, target: 1.2 };
    } finally {
      cluster.stop();
    }
  } finally {
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [runs, tasks, concurrency] = process.argv.slice(2).map(Number);
  const r = await runDockerBench({
    runs: runs || undefined,
    tasks: tasks || undefined,
    concurrency: concurrency || undefined,
  });
  if (r.skipped) {
    console.log(`docker bench skipped: ${r.skipped}`);
    process.exit(0);
  }
  console.log(`docker bench: engine ${r.engine}`);
  for (const [network, x] of Object.entries(r.perTask)) {
    console.log(
      `per task (${network.padEnd(6)}): runtime ${x.runtimeMs} ms vs docker run --rm ${x.cliMs} ms = ${x.ratio}` +
        ` x (median of ${x.runs}; target <= ${r.target} x)`,
    );
  }
  const t = r.throughput;
  console.log(
    `throughput, ${t.n} tasks x${t.concurrency} (host network, median of ${t.rounds}): runtime ${t.runtime.perSec}` +
      ` tasks/s, docker run --rm ${t.cli.perSec} tasks/s (x${t.runtimeVsCli})`,
  );
  const c = r.cluster;
  console.log(
    `through iris: ${c.perTask.irisMs} ms per task vs docker run --rm ${c.perTask.cliMs} ms = ${c.perTask.ratio} x; ` +
      `${c.throughput.n} tasks x${c.throughput.concurrency}: ${c.throughput.perSec} tasks/s (x${c.throughput.vsCli}` +
      ` of docker run --rm)`,
  );
}
