// Spawn throughput: how many short tasks per second can be started and reaped.
//
//   (a) raw      node:child_process spawn of /bin/true (stdio ignored): the baseline
//   (b) execa    execa('/bin/true') with the options ProcessRuntime uses (pipes, buffer:false)
//   (c) runtime  ProcessRuntime.launch + await exited, with a log file per task in a temp dir
//   (d) rt-node  the same with ProcessRuntime({ spawner: 'node' }) (execa left out)
//
// The variants run interleaved (bench/measure.mjs): one warm-up round, then >= 5 timed rounds.
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
import { interleave, ratioOf, spread } from './measure.mjs';

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

const rate = (n, s) => ({
  min: (n / s.max) * 1000,
  perSec: Math.round((n / s.median) * 1000),
  max: (n / s.min) * 1000,
});

/**
 * Runs the four variants interleaved (runtime, raw, execa, rt-node, then the reverse order, …)
 * after a warm-up round, so load from other processes hits all of them alike. Each variant's
 * rate is n / its median round time; each ratio is the median of the per-round ratios.
 */
export async function runSpawnBench(n = 1000, concurrency = 4 * availableParallelism(), rounds = 5) {
  const { ProcessRuntime } = await import('../dist/runtime/process/runtime.js');
  const dir = await mkdtemp(join(tmpdir(), 'iris-bench-spawn-'));
  const runtime = new ProcessRuntime();
  const nodeRuntime = new ProcessRuntime({ spawner: 'node' });
  const launchOn = async (on, i) => {
    const task = await on.launch({
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
  const timed = (one) => async () => (await pool(n, concurrency, one)).ms;
  try {
    const r = await interleave(
      {
        runtime: timed((i) => launchOn(runtime, i)),
        raw: timed(rawOne),
        execa: timed(execaOne),
        nodeRuntime: timed((i) => launchOn(nodeRuntime, i)),
      },
      { rounds, warmup: 1 },
    );
    const vsRaw = (name) => ratioOf(r, 'raw', name); // raw time / variant time = variant rate / raw rate
    return {
      n,
      concurrency,
      rounds: r.rounds,
      raw: { ...rate(n, r.raw), ms: r.raw },
      execa: { ...rate(n, r.execa), ms: r.execa },
      runtime: { ...rate(n, r.runtime), ms: r.runtime },
      nodeRuntime: { ...rate(n, r.nodeRuntime), ms: r.nodeRuntime },
      execaVsRaw: +vsRaw('execa').median.toFixed(2),
      runtimeVsRaw: +vsRaw('runtime').median.toFixed(2),
      nodeRuntimeVsRaw: +vsRaw('nodeRuntime').median.toFixed(2),
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
  const row = (name, x) =>
    `${name.padEnd(8)} ${String(x.perSec).padStart(6)} tasks/s  (rounds ${spread(x.ms, 'ms', 0)})`;
  console.log(`spawn bench: n=${r.n}, concurrency=${r.concurrency}, rounds=${r.rounds}`);
  console.log(row('raw', r.raw));
  console.log(row('execa', r.execa) + `  ${r.execaVsRaw} x raw`);
  console.log(row('runtime', r.runtime) + `  ${r.runtimeVsRaw} x raw`);
  console.log(row('rt-node', r.nodeRuntime) + `  ${r.nodeRuntimeVsRaw} x raw`);
}
