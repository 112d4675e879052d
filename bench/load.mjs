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
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SocketClient } from '../dist/client/socket-client.js';
import { startBenchCluster } from './cluster.mjs';

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
    };
  } finally {
    c.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runLoadBench({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
