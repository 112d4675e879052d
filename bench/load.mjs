// Load benchmark: a fresh local cluster (the built CLI, dist/) in a temporary IRIS_HOME takes
// SUBMISSIONS job submissions (default 2,000) from CLIENTS concurrent socket clients (default 20),
// each client sending its share one request after another.
//
// Reported: the submission rate (accepted jobs per second, first request to last answer), the
// latency of one submission (p50, p99, max: request sent .. answer parsed, in the client), and
// the controller's peak resident memory (VmHWM from /proc/<pid>/status) over the whole run, with
// its RSS before the first submission.
//
// What is measured is the controller's submission path (admission, store commit, queue pass), not
// process spawning: the jobs are feasible but wait behind a worker (`hold`, 1 CPU) kept busy by a
// sleeping task, so the 2,000 jobs stay pending in the queue the scheduler walks on every pass.
// Half the submissions carry a name, half get a generated one (the uniqueness check under load).
//
// Then the 100,000-job case (runManyJobsCase; BENCH_LOAD_JOBS, 0 skips it): one-task jobs that run
// (`true`) from 20 clients on a fresh cluster; the rate of the first and of the last 10,000
// answers of the same run and their ratio (target: the last within 1.3x of the first), the
// cluster's CPU seconds in each of the two windows (controller and spawner with the tasks they
// reaped, from /proc: unlike the rate, not changed by other work on the machine), the peak RSS
// and the RSS once all have ended. It takes minutes (the tasks run: ~100,000 processes).
//
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SocketClient } from '../dist/client/socket-client.js';
import { startBenchCluster } from './cluster.mjs';
import { clusterCpuSeconds, loadAverage } from './measure.mjs';

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

export async function runLoadBench({
  submissions = Number(process.env.BENCH_LOAD_SUBMISSIONS ?? 2000),
  clients = Number(process.env.BENCH_LOAD_CLIENTS ?? 20),
  window = Math.max(1, Math.floor(submissions / 10)),
  log = () => {},
} = {}) {
  log(`load bench: ${submissions} submissions from ${clients} clients`);
  const c = startBenchCluster('load', 'stop-grace: 1s\nworkers:\n  - {name: hold, cpu: 1, memory: 64GiB}\n');
  const { home, pid } = c;
  try {
    const socketPath = path.join(home, 'run', 'iris.sock');
    const admin = new SocketClient({ socketPath, env: {} });
    await admin.submit({ name: 'holder', command: ['sleep', '3600'], cpu: 1, memory: '16M' });
    const idle = memoryOf(pid);

    const latencies = [];
    const names = new Set();
    let next = 0;
    // The controller's CPU seconds for the first and the last `window` submissions: the second
    // meets a queue of submissions - window pending jobs, the first an empty one.
    const cpuAt = new Map([[0, clusterCpuSeconds(pid)]]);
    const bounds = new Set([window, submissions - window, submissions]);
    const start = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const client = new SocketClient({ socketPath, env: {} });
        for (let i = next++; i < submissions; i = next++) {
          const request = { command: ['true'], cpu: 0.5, memory: '16M', ...(i % 2 === 0 ? { name: `load-${i}` } : {}) };
          const sent = performance.now();
          const answer = await client.submit(request);
          latencies.push(performance.now() - sent);
          names.add(answer.name);
          if (bounds.has(latencies.length)) cpuAt.set(latencies.length, clusterCpuSeconds(pid));
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const info = await admin.cluster();
    const mem = memoryOf(pid);
    if (names.size !== submissions) throw new Error(`${submissions} submissions gave ${names.size} distinct names`);
    if (info.queue.pending !== submissions)
      throw new Error(`expected ${submissions} pending jobs, the cluster reports ${info.queue.pending}`);
    latencies.sort((a, b) => a - b);
    return {
      submissions,
      clients,
      seconds,
      rate: submissions / seconds,
      latencyMs: {
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: latencies[latencies.length - 1],
      },
      memory: { idleRssMB: idle.rssMB, rssMB: mem.rssMB, hwmMB: mem.hwmMB },
      cpu: {
        window,
        firstSeconds: cpuAt.get(window) - cpuAt.get(0),
        lastSeconds: cpuAt.get(submissions) - cpuAt.get(submissions - window),
      },
    };
  } finally {
    c.stop();
  }
}

/**
 * The cases: the 2,000 pending submissions; a deep queue (BENCH_LOAD_DEEP, default 20,000, 0 skips
 * it): the same with that many, for the controller's CPU on the last 1,000 (a queue 19,000 deep)
 * against the first 1,000 (target: within 1.3x); then (BENCH_LOAD_JOBS > 0) the 100,000 one-task
 * jobs that run.
 */
export async function runLoadBenches({ log = () => {} } = {}) {
  const pending = await runLoadBench({ log });
  const deepJobs = Number(process.env.BENCH_LOAD_DEEP ?? 20_000);
  const deep = deepJobs > 0 ? await runLoadBench({ submissions: deepJobs, window: 1000, log }) : null;
  const many = Number(process.env.BENCH_LOAD_JOBS ?? 100_000) > 0 ? await runManyJobsCase({ log }) : null;
  return { ...pending, deep, many };
}

/** Poll `client.cluster()` until no task is pending or running (every 500 ms). */
export async function awaitIdle(client, timeoutMs = 3_600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { queue } = await client.cluster();
    if (queue.pending === 0 && queue.running === 0) return;
    if (Date.now() > deadline) throw new Error(`still ${queue.pending} pending, ${queue.running} running`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * `jobs` one-task jobs (`true`, cpu 0.1, on worker pool `bench`) submitted by `clients` concurrent
 * socket clients, each sending its share one request after another. Returns the time (ms, from
 * the first request) at which each answer came, in the order they came.
 */
export async function submitOneTaskJobs(socketPath, jobs, clients, log = () => {}, onAnswer = () => {}) {
  const answered = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new SocketClient({ socketPath, env: {} });
      for (let i = next++; i < jobs; i = next++) {
        await client.submit({
          command: ['true'],
          cpu: 0.1,
          memory: '16M',
          constraints: ['pool=bench'],
          name: `j-${i}`,
        });
        answered.push(performance.now() - start);
        onAnswer(answered.length);
        if (answered.length % 10_000 === 0) log(`load bench: ${answered.length} jobs submitted`);
      }
    }),
  );
  return answered;
}

/**
 * The 100,000-job case: `jobs` one-task jobs that run (`true`) from `clients` clients on a fresh
 * cluster (worker `bench`, 8 CPUs: up to 80 at once). Reported: the submission rate of the first
 * and of the last `window` (10,000) answers, their ratio (first / last: 1 when the rate holds;
 * target <= 1.3, verdict `holds` when met), the whole rate, and the controller's peak RSS (VmHWM)
 * and its RSS once every job has ended. Both windows come from the same run, so the machine's
 * load is shared by both (the load average is given at start and end).
 */
export async function runManyJobsCase({
  jobs = Number(process.env.BENCH_LOAD_JOBS ?? 100_000),
  clients = 20,
  window = Math.min(10_000, Math.floor(jobs / 10)),
  log = () => {},
} = {}) {
  log(`load bench: ${jobs} one-task jobs from ${clients} clients`);
  const loadStart = loadAverage();
  const c = startBenchCluster(
    'load-many',
    'stop-grace: 1s\nworkers:\n  - {name: bench, cpu: 8, memory: 64GiB, attributes: {pool: bench}}\n',
  );
  try {
    const socketPath = path.join(c.home, 'run', 'iris.sock');
    const idle = memoryOf(c.pid);
    // The cluster's CPU seconds (controller and spawner, with the tasks they reaped) at the
    // windows' bounds: the work per job, which other load on the machine does not change.
    const cpuAt = new Map([[0, clusterCpuSeconds(c.pid)]]);
    const bounds = new Set([window, jobs - window, jobs]);
    const at = await submitOneTaskJobs(socketPath, jobs, clients, log, (n) => {
      if (bounds.has(n)) cpuAt.set(n, clusterCpuSeconds(c.pid));
    });
    const firstSeconds = at[window - 1] / 1000;
    const lastSeconds = (at[jobs - 1] - at[jobs - window - 1]) / 1000;
    const firstCpu = cpuAt.get(window) - cpuAt.get(0);
    const lastCpu = cpuAt.get(jobs) - cpuAt.get(jobs - window);
    const submitted = memoryOf(c.pid);
    await awaitIdle(c.client);
    const ended = memoryOf(c.pid);
    const ratio = lastSeconds / firstSeconds;
    return {
      jobs,
      clients,
      window,
      seconds: at[jobs - 1] / 1000,
      rate: jobs / (at[jobs - 1] / 1000),
      first: { seconds: firstSeconds, rate: window / firstSeconds, cpuSeconds: firstCpu },
      last: { seconds: lastSeconds, rate: window / lastSeconds, cpuSeconds: lastCpu },
      ratio,
      cpuRatio: lastCpu / firstCpu,
      holds: ratio <= 1.3,
      cpuHolds: lastCpu / firstCpu <= 1.3,
      memory: { idleRssMB: idle.rssMB, rssAfterSubmitMB: submitted.rssMB, rssEndedMB: ended.rssMB, hwmMB: ended.hwmMB },
      loadavg: { start: loadStart, end: loadAverage() },
    };
  } finally {
    c.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runLoadBenches({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
