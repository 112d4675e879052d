// Spawn throughput: how many short tasks per second can be started and reaped.
//
//   (a) raw      node:child_process spawn of /bin/true (stdio ignored): the baseline
//   (b) execa    execa('/bin/true') with the options ProcessRuntime uses (pipes, buffer:false)
//   (c) runtime  ProcessRuntime.launch + await exited, with a log file per task in a temp dir
//   (d) rt-node  the same with ProcessRuntime({ spawner: 'node' }) (execa left out)
//
// Each variant keeps at most CONCURRENCY tasks in flight. Default: 4 x cores — spawning is
// bound by fork/exec and reaping, not by the CPU of the task (/bin/true), so a few tasks per
// core keep both the event loop and the kernel busy without measuring queueing alone.
// Import the runtime from ../dist (build first: node_modules/.bin/tsc -p tsconfig.build.json).
//
//   node bench/spawn.mjs [n] [concurrency] [rounds]
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';

const TRUE = '/bin/true';
const ENV = { PATH: '/usr/bin:/bin' };

async function pool(n, concurrency, startOne) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await startOne(i);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const ms = performance.now() - t0;
  return { n, ms: Math.round(ms), perSec: Math.round((n / ms) * 1000) };
}

function rawOne() {
  return new Promise((resolve, reject) => {
    const child = spawn(TRUE, [], { env: ENV, stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

async function execaOne() {
  const sub = execa(TRUE, [], {
    env: ENV,
    extendEnv: false,
    detached: true,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    cleanup: false,
  });
  sub.stdout.resume();
  sub.stderr.resume();
  await sub;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Runs the three variants `rounds` times, interleaved (raw, execa, runtime, raw, ...) so load
 * from other processes hits all of them alike; reports the median round of each.
 */
export async function runSpawnBench(n = 1000, concurrency = 4 * availableParallelism(), rounds = 3) {
  const { ProcessRuntime } = await import('../dist/runtime/process/runtime.js');
  const dir = await mkdtemp(join(tmpdir(), 'iris-bench-spawn-'));
  const runtime = new ProcessRuntime();
  const nodeRuntime = new ProcessRuntime({ spawner: 'node' });
  const runtimeOne = (i) => launchOn(runtime, i);
  const nodeRuntimeOne = (i) => launchOn(nodeRuntime, i);
  const launchOn = async (runtime, i) => {
    const task = await runtime.launch({
      key: { job: '/bench', task: `/bench/task-${i}`, attempt: 0 },
      argv: [TRUE],
      env: { ...ENV, IRIS_CLUSTER_ID: 'bench', IRIS_TASK_ID: `/bench/task-${i}`, IRIS_ATTEMPT: '0' },
      cwd: dir,
      logPath: join(dir, 'logs', `task-${i}.log`),
      resources: { cpuMillis: 100, memoryBytes: 1 << 26, device: null },
      deviceIndices: [],
      labels: {},
    });
    await task.exited;
  };
  try {
    // Warm up each path (module loading, JIT) outside the measurement.
    await pool(50, concurrency, rawOne);
    await pool(50, concurrency, execaOne);
    await pool(50, concurrency, runtimeOne);
    await pool(50, concurrency, nodeRuntimeOne);
    const runs = { raw: [], execa: [], runtime: [], nodeRuntime: [] };
    for (let r = 0; r < rounds; r++) {
      runs.raw.push(await pool(n, concurrency, rawOne));
      runs.execa.push(await pool(n, concurrency, execaOne));
      runs.runtime.push(await pool(n, concurrency, runtimeOne));
      runs.nodeRuntime.push(await pool(n, concurrency, nodeRuntimeOne));
    }
    const pick = (xs) => {
      const m = median(xs.map((x) => x.perSec));
      return { ...xs.find((x) => x.perSec === m), rounds: xs.map((x) => x.perSec) };
    };
    const raw = pick(runs.raw);
    const viaExeca = pick(runs.execa);
    const viaRuntime = pick(runs.runtime);
    const viaNodeRuntime = pick(runs.nodeRuntime);
    return {
      n,
      concurrency,
      rounds,
      raw,
      execa: viaExeca,
      runtime: viaRuntime,
      nodeRuntime: viaNodeRuntime,
      execaVsRaw: +(viaExeca.perSec / raw.perSec).toFixed(2),
      runtimeVsRaw: +(viaRuntime.perSec / raw.perSec).toFixed(2),
      nodeRuntimeVsRaw: +(viaNodeRuntime.perSec / raw.perSec).toFixed(2),
    };
  } finally {
    await runtime.close();
    await nodeRuntime.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const n = Number(process.argv[2] ?? 1000);
  const concurrency = process.argv[3] ? Number(process.argv[3]) : undefined;
  const rounds = process.argv[4] ? Number(process.argv[4]) : undefined;
  const r = await runSpawnBench(n, concurrency, rounds);
  const row = (name, x) => `${name.padEnd(8)} ${String(x.perSec).padStart(6)} tasks/s  (median of ${x.rounds.join(', ')})`;
  console.log(`spawn bench: n=${r.n}, concurrency=${r.concurrency}, rounds=${r.rounds}`);
  console.log(row('raw', r.raw));
  console.log(row('execa', r.execa) + `  ${r.execaVsRaw} x raw`);
  console.log(row('runtime', r.runtime) + `  ${r.runtimeVsRaw} x raw`);
  console.log(row('rt-node', r.nodeRuntime) + `  ${r.nodeRuntimeVsRaw} x raw`);
}
