// Cluster benchmark: a real local cluster (the built CLI, dist/) in a temporary IRIS_HOME.
//
//   (a) 1,000 trivial tasks (`true`) as ONE job with 1,000 replicas;
//   (b) the same 1,000 tasks as 200 separate jobs of 5 replicas (submitted by 20 concurrent
//       socket clients);
//       both reported as tasks/s from the first submission to the last task's end, and as a
//       ratio to the BASELINE: this Node process spawning /bin/true 1,000 times directly with
//       the same concurrency the cluster is given (worker `bench`, cpu = CONCURRENCY, tasks
//       --cpu 1, so at most CONCURRENCY tasks run at once). Interleaved (bench/measure.mjs): each
//       round runs the baseline, (a) and (b), the order reversed every other round; a smaller
//       warm-up round, then BENCH_ROUNDS (default 5)
//       rounds; min / median / max of each and the median of the per-round ratios, with the
//       load average at the start and end (throughputRounds). The same rounds also run the
//       WRAPPER FLOOR (bench/wrapper-floor.mjs: the attempt wrapper, its cgroups and files for
//       each of 1,000 `true`, from a fresh Node process, no controller), and each side's ratio
//       to it is reported too: how close the controller gets to its own guarantees;
//   (s) one short job: submit one `true` task and wait for SUCCEEDED over the socket from this
//       process (no CLI start), interleaved pair by pair with a raw spawn of /bin/true (the
//       floor, bench/measure.mjs): 10 warm-up pairs, then BENCH_ROUNDS x 10 pairs (shortJobRounds);
//   (c) wall time of `iris jobs` started as a user starts it (bin/iris, the package's bin: the
//       launcher that execs the pinned Node) against the running cluster, with ~200 jobs known and
//       again with 100,000 tasks known; interleaved with a bare start of the same Node
//       (`node -e 0`, the floor), one warm-up then JOBS_ROUNDS rounds (default 10): min/median/max
//       of each, the median of the per-round ratios, the Node that ran and the load average;
//   (d) the cluster's resident memory (VmRSS, and the peak VmHWM, from /proc/<pid>/status) with
//       100,000 tasks known: 100 jobs x 1,000 replicas that are feasible but pending behind a
//       worker (`hold`, cpu 1) kept busy by a sleeping task. RSS is read right after the
//       submissions and again, settled, after the ten `iris jobs` runs of (c); the peak is the
//       process's high-water mark over the whole run.
//
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SocketClient } from '../dist/client/socket-client.js';
import { interleave, interleaveSync, loadAverage, ratioOf, secondsOfLoop, stats } from './measure.mjs';
import { wrapperFloor } from './wrapper-floor.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const LAUNCHER = path.join(ROOT, 'bin', 'iris');
const FINAL = new Set(['SUCCEEDED', 'FAILED', 'KILLED', 'UNSCHEDULABLE', 'WORKER_FAILED']);

export function cleanEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('IRIS_')) env[key] = value;
  return { ...env, NO_COLOR: '1', ...extra };
}

export function iris(args, ctx) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ctx.cwd,
    env: ctx.env,
    encoding: 'utf8',
    timeout: 120_000,
    // `iris jobs` of 10,000 jobs prints more than spawnSync's default 1 MB (then it kills the child).
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(
      `iris ${args.join(' ')} failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ''}): ${r.stderr}`,
    );
  return r.stdout;
}

// The spawn loop of the baseline, run in a fresh Node process: a fork costs more from a bigger
// process, so spawning from this benchmark process (whose heap grows with the sections before)
// would slow the floor down by up to 2x and flatter every ratio against it.
const SPAWN_LOOP = `
const { spawn } = require('node:child_process');
const [count, concurrency] = process.argv.slice(1).map(Number);
let next = 0;
const one = () => new Promise((resolve, reject) => {
  const child = spawn('/bin/true', [], { stdio: 'ignore' });
  child.on('error', reject);
  child.on('exit', resolve);
});
const start = performance.now();
Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < count) { next++; await one(); }
})).then(() => process.stdout.write(String((performance.now() - start) / 1000)));
`;

/**
 * The floor: a fresh Node process spawning /bin/true `count` times with at most `concurrency` in
 * flight; `seconds` is the loop's own time in that process (its start-up not included).
 */
export async function spawnBaseline(count, concurrency) {
  const seconds = await secondsOfLoop(SPAWN_LOOP, [count, concurrency], 'spawn baseline');
  return { tasks: count, seconds, rate: count / seconds };
}

/** Resolve when every job in `names` reached a final state (events, with a slow poll as fallback). */
export async function awaitJobs(client, names, timeoutMs = 600_000) {
  const waiting = new Set(names);
  const states = new Map();
  const abort = new AbortController();
  const deadline = Date.now() + timeoutMs;
  const recheck = async () => {
    const jobs = await client.jobs();
    for (const job of jobs) {
      if (waiting.has(job.name) && FINAL.has(job.state)) {
        waiting.delete(job.name);
        states.set(job.name, job.state);
      }
    }
  };
  const watcher = (async () => {
    try {
      for await (const event of client.events(abort.signal)) {
        if (event.type === 'job' && waiting.has(event.name) && FINAL.has(event.state)) {
          waiting.delete(event.name);
          states.set(event.name, event.state);
          if (waiting.size === 0) abort.abort();
        }
      }
    } catch {
      // the poll still finishes the wait
    }
  })();
  try {
    await recheck();
    while (waiting.size > 0) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${waiting.size} jobs`);
      await new Promise((resolve) => {
        // The listener goes with the timer: one per wait, not one more per second of waiting.
        const done = () => {
          clearTimeout(timer);
          abort.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, 1000);
        abort.signal.addEventListener('abort', done, { once: true });
      });
      if (waiting.size > 0) await recheck();
    }
  } finally {
    abort.abort();
    await watcher;
  }
  const failed = [...states.values()].filter((s) => s !== 'SUCCEEDED').length;
  if (failed > 0) throw new Error(`${failed} benchmark jobs did not succeed`);
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

/** min / median / max as the (c) rows name them. */
const msStats = (s) => ({ minMs: s.min, medianMs: s.median, maxMs: s.max });

/** Wall time of one process run to its end; it must exit 0. */
function timeRun(file, args, ctx) {
  const start = performance.now();
  const r = spawnSync(file, args, {
    cwd: ctx.cwd,
    env: ctx.env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 120_000,
  });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr}`);
  return ms;
}

/**
 * `bin/iris jobs` (what a user runs) interleaved with `node -e 0` of the Node it runs on (the
 * floor of any CLI start): one warm-up of each, then `rounds` rounds of both (bench/measure.mjs).
 */
function timeJobsCommand(ctx, rounds = Number(process.env.JOBS_ROUNDS ?? 10)) {
  const version = spawnSync(LAUNCHER, ['--version'], { cwd: ctx.cwd, env: ctx.env, encoding: 'utf8' }).stdout;
  const node = /node-(v[\d.]+)/.exec(version)?.[1] ?? 'unknown';
  const pinned = path.join(ROOT, 'node_modules', '.bin', 'node');
  const nodeFile = existsSync(pinned) ? pinned : 'node';
  // Whether dist/oclif.js is the bundle `npm run build` makes (scripts/bundle.js) or the plain
  // re-exports of a tsc-only build, which start ~30 ms slower.
  const oclifBundled = readFileSync(path.join(ROOT, 'dist', 'oclif.js'), 'utf8').startsWith('// iris: bundled');
  const loadStart = loadAverage();
  const r = interleaveSync(
    { jobs: () => timeRun(LAUNCHER, ['jobs'], ctx), bare: () => timeRun(nodeFile, ['-e', '0'], ctx) },
    { rounds },
  );
  return {
    ...msStats(r.jobs),
    runs: r.rounds,
    node,
    entry: 'bin/iris',
    oclifBundled,
    bareNode: msStats(r.bare),
    medianRatio: r.ratio.bare.median,
    loadavg: { start: loadStart, end: loadAverage() },
  };
}

/**
 * A cluster of the built CLI in a fresh temporary IRIS_HOME (`iris-bench-<name>-*`) with `config`
 * as its .irisrc.yaml. `stop()` stops it (SIGKILL when `cluster stop` fails) and removes the
 * directory; a failed start stops and removes too.
 */
export function startBenchCluster(name, config) {
  const root = mkdtempSync(path.join(tmpdir(), `iris-bench-${name}-`));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, '.irisrc.yaml'), config);
  const ctx = { cwd, env: cleanEnv({ IRIS_HOME: home }) };
  let pid = null;
  const stop = () => {
    try {
      iris(['cluster', 'stop'], ctx);
    } catch {
      if (pid)
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    iris(['cluster', 'start', '--detach'], ctx);
    pid = Number(readFileSync(path.join(home, 'cluster.pid'), 'utf8').trim());
  } catch (error) {
    stop();
    throw error;
  }
  const client = new SocketClient({ socketPath: path.join(home, 'run', 'iris.sock'), env: {} });
  return { root, home, cwd, ctx, pid, client, stop };
}

/** One job of `replicas` tasks; seconds from its submission to its end. */
async function oneJobRound(client, task, name, replicas) {
  const start = performance.now();
  await client.submit({ ...task, name, replicas });
  await awaitJobs(client, [`/${name}`]);
  return (performance.now() - start) / 1000;
}

/** `jobs` jobs of `replicas` tasks each, submitted by 20 concurrent socket clients; seconds to the last end. */
async function manyJobsRound(client, task, prefix, jobs, replicas) {
  const names = Array.from({ length: jobs }, (_, i) => `/${prefix}-${i}`);
  const start = performance.now();
  const clients = Array.from({ length: 20 }, () => new SocketClient({ socketPath: client.socketPath, env: {} }));
  await Promise.all(
    clients.map(async (c, k) => {
      for (let i = k; i < names.length; i += clients.length) await c.submit({ ...task, name: names[i], replicas });
    }),
  );
  await awaitJobs(client, names);
  return (performance.now() - start) / 1000;
}

/**
 * Throughput, interleaved (bench/measure.mjs): each round runs the baseline (1,000 raw spawns of
 * /bin/true, at most `concurrency` at once), the wrapper floor (1,000 attempts' worth of wrapper,
 * cgroups and files with no controller, wrapper-floor.mjs), (a) one job x 1,000 replicas and
 * (b) 200 jobs x 5 replicas, in alternating order, so every ratio divides figures taken moments
 * apart. One smaller warm-up round, then `rounds`. Each figure: seconds and tasks/s as
 * min / median / max; `ratio`: the median of the per-round ratios (cluster rate / that round's
 * baseline rate); `wrappedRatio`: the same against the wrapper floor.
 */
export async function throughputRounds(
  client,
  task,
  concurrency,
  log = () => {},
  rounds = Number(process.env.BENCH_ROUNDS ?? 5),
) {
  const load = { start: loadAverage(), end: null };
  log('cluster bench: throughput warm-up');
  const floor = await wrapperFloor(concurrency);
  try {
    return await throughputSides(client, task, concurrency, log, rounds, floor, load);
  } finally {
    floor.close();
  }
}

/** The rounds of throughputRounds, with the wrapper floor made (and removed) by the caller. */
async function throughputSides(client, task, concurrency, log, rounds, floor, load) {
  const TASKS = 1000;
  await spawnBaseline(100, concurrency);
  await floor.run(100);
  await oneJobRound(client, task, 'warmup', 100);
  await manyJobsRound(client, task, 'warmup-many', 20, 5);
  // Each side numbers its own jobs: with the order reversed every other round, a side may run
  // before the round's baseline, so a shared round counter would repeat a job name.
  let raws = 0,
    ones = 0,
    manys = 0;
  const r = await interleave(
    {
      raw: () => {
        log(`cluster bench: throughput round ${++raws} (raw, wrapper floor, 1 x 1000, 200 x 5)`);
        return spawnBaseline(TASKS, concurrency).then((x) => x.seconds * 1000);
      },
      wrapped: () => floor.run(TASKS).then((s) => s * 1000),
      // Wall time of each side (their own returns are seconds, which interleave would take for ms).
      one: async () => {
        await oneJobRound(client, task, `one-${ones++}`, TASKS);
      },
      many: async () => {
        await manyJobsRound(client, task, `many-${manys++}`, 200, 5);
      },
    },
    { rounds, warmup: 0 },
  );
  load.end = loadAverage();
  const seconds = (name) => r.times[name].map((ms) => ms / 1000);
  const figure = (name) => ({
    tasks: TASKS,
    rounds: r.rounds,
    seconds: stats(seconds(name)),
    rate: stats(seconds(name).map((s) => TASKS / s)),
    // rate / baseline rate = baseline seconds / cluster seconds, per round
    ratio: ratioOf(r, 'raw', name).median,
    ratios: r.times.raw.map((ms, i) => ms / r.times[name][i]),
    wrappedRatio: ratioOf(r, 'wrapped', name).median,
  });
  return {
    tasksRun: 100 + 100 + r.rounds * 2 * TASKS,
    throughputLoad: load,
    baseline: {
      tasks: TASKS,
      concurrency,
      rounds: r.rounds,
      seconds: stats(seconds('raw')),
      rate: stats(seconds('raw').map((s) => TASKS / s)),
    },
    wrapperFloor: {
      tasks: TASKS,
      cgroups: floor.cgroups,
      seconds: stats(seconds('wrapped')),
      rate: stats(seconds('wrapped').map((s) => TASKS / s)),
      // wrapper floor rate / raw rate, per round
      ratio: ratioOf(r, 'raw', 'wrapped').median,
    },
    oneJob: figure('one'),
    manyJobs: { jobs: 200, ...figure('many') },
  };
}

/** Milliseconds for one raw spawn of /bin/true to its exit. */
async function rawTrueMs() {
  const start = performance.now();
  await new Promise((resolve, reject) => {
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  return performance.now() - start;
}

/**
 * One short job, over the socket inside this process (no CLI start): submit one `true` task,
 * then the `wait` request, until it answers SUCCEEDED. Interleaved pair by pair with the floor
 * (a raw spawn of /bin/true to its exit): `pairs` warm-up pairs, then rounds x pairs.
 * `ratio`: the median of the per-pair ratios (short job / raw spawn).
 */
export async function shortJobRounds(
  client,
  task,
  log = () => {},
  rounds = Number(process.env.BENCH_ROUNDS ?? 5),
  pairs = 10,
) {
  const load = { start: loadAverage(), end: null };
  let seq = 0;
  const one = async () => {
    const name = `short-${seq++}`;
    await client.submit({ ...task, name });
    const detail = await client.wait(`/${name}`);
    if (detail.state !== 'SUCCEEDED') throw new Error(`short job ${name} ended ${detail.state}`);
  };
  log(`cluster bench: short job, ${pairs} warm-up pairs then ${rounds * pairs}`);
  const r = await interleave({ job: one, raw: rawTrueMs }, { rounds: rounds * pairs, warmup: pairs });
  load.end = loadAverage();
  return {
    tasksRun: r.rounds + pairs,
    shortJob: { samples: r.rounds, ms: r.job, rawSpawnMs: r.raw, ratio: r.ratio.raw.median, load },
  };
}

/**
 * The "tasks known" load of the memory figures: a holder job that keeps the `hold` worker busy,
 * then `jobs` jobs of `perJob` tasks that stay pending behind it. Returns the seconds the pending
 * jobs' submissions took (the holder's not counted).
 */
export async function submitPendingLoad(client, jobs, perJob) {
  await client.submit({
    name: 'holder',
    command: ['sleep', '3600'],
    cpu: 1,
    memory: '16M',
    constraints: ['pool=hold'],
  });
  const start = performance.now();
  for (let i = 0; i < jobs; i++) {
    const name = `pending-${i}`;
    await client.submit({
      name,
      command: ['true'],
      cpu: 1,
      memory: '16M',
      constraints: ['pool=hold'],
      replicas: perJob,
    });
  }
  return (performance.now() - start) / 1000;
}

export async function runClusterBench({
  concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16),
  memoryTasks = 100_000,
  log = () => {},
} = {}) {
  const c = startBenchCluster(
    'cluster',
    `stop-grace: 1s\nworkers:\n  - {name: bench, cpu: ${concurrency}, memory: 64GiB, attributes: {pool: bench}}\n  ` +
      `- {name: hold, cpu: 1, memory: 64GiB, attributes: {pool: hold}}\n`,
  );
  const { ctx, pid, client } = c;
  const result = { concurrency };
  try {
    const task = { command: ['true'], cpu: 1, memory: '16M', constraints: ['pool=bench'] };

    const throughput = await throughputRounds(client, task, concurrency, log);
    const short = await shortJobRounds(client, task, log);
    Object.assign(result, throughput, short, { tasksRun: throughput.tasksRun + short.tasksRun });

    log('cluster bench: iris jobs wall time');
    iris(['jobs'], ctx); // warm the file cache
    result.jobsCommand = { ...timeJobsCommand(ctx), jobsKnown: (await client.jobs()).length };

    log(`cluster bench: memory with ${memoryTasks} tasks known`);
    const base = rssOf(pid);
    const perJob = 1000;
    const jobs = Math.ceil(memoryTasks / perJob);
    const submitSeconds = await submitPendingLoad(client, jobs, perJob);
    const info = await client.cluster();
    const mem = rssOf(pid);
    result.memory = {
      tasksKnown: result.tasksRun + 1 + jobs * perJob,
      pendingTasks: info.queue.pending,
      submitSeconds,
      idleRssMB: base.rssMB,
      rssAfterSubmitMB: mem.rssMB,
      rssMB: NaN,
      hwmMB: mem.hwmMB,
    };
    log('cluster bench: iris jobs with 100k tasks known');
    result.jobsCommandLarge = { ...timeJobsCommand(ctx), jobsKnown: (await client.jobs()).length };
    // Settled: after the submissions and ten full `iris jobs` queries (the steady state).
    const after = rssOf(pid);
    result.memory.rssMB = after.rssMB;
    result.memory.hwmMB = after.hwmMB;
  } finally {
    c.stop();
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runClusterBench({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
