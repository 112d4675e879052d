// Memory benchmark: the cluster process's resident memory, each case on a FRESH local cluster
// (the built CLI, dist/) so that one case's garbage and high-water mark never leak into another.
//
//   (a) known: a sleeping task keeps worker `hold` (cpu 1) busy; then 100 jobs x 1,000 replicas
//       constrained to `pool=hold` are submitted one after another. They are feasible but stay
//       pending, so the cluster knows 100,001 tasks. VmRSS right after the submissions, VmRSS
//       after three full job listings (settled), and VmHWM, the process's peak over the case.
//       Target (issue 16): VmHWM <= 150 MB.
//   (b) finished: 2,000 trivial tasks (`true`, one job x 2,000 replicas, at most CONCURRENCY at
//       once) run to completion; VmRSS as the job's end arrives (rssAtEndMB), then VmRSS and
//       VmHWM one second later, the cluster idle meanwhile (it gives the burst's garbage back
//       once quiet: src/server/idle-compaction.ts). Target (issue 16): <= 100 MB.
//   (c) finished jobs: 100,000 one-task jobs (BENCH_FINISHED_JOBS; 0 skips) from 20 clients run to
//       their end; VmRSS idle afterwards and after a restart on the same state, against an idle
//       fresh cluster's VmRSS taken before and after it in the same run. Target (issue 36): <= 150 MB.
//       It takes minutes (the tasks run).
//
// Each case also reports the resident spawner's VmRSS/VmHWM (the child process that forks the
// attempts) and the PSS of it and of the controller: the targets are read on the controller, the
// spawner's share is stated beside them.
//
// Each case also gives the idle VmRSS of its fresh cluster (before any submission), and the
// load average (1/5/15 min) at its start and end. The figures are absolute, not ratios: on a
// busy machine they move with the garbage collector's timing, so compare runs made alike.
//
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { awaitJobs, iris, startBenchCluster, submitPendingLoad } from './cluster.mjs';
import { awaitIdle, submitOneTaskJobs } from './load.mjs';
import { loadAverage } from './measure.mjs';

/** VmRSS and VmHWM of `pid` in MB, from /proc/<pid>/status. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

/** Proportional set size of `pid` in MB (shared pages split among the processes sharing them). */
function pssOf(pid) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? NaN) / 1024;
}

/**
 * The cluster's resident spawner (src/runtime/process/spawner.ts: a small child Node process that
 * forks the attempts), or null when none runs. Its memory is the cluster's too, so every case
 * reports it beside the controller's, with the PSS of both (shared pages counted once).
 */
export function spawnerMemory(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return null;
  }
  for (const child of children) {
    try {
      if (!readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('spawner')) continue;
      return { ...memoryOf(child), pssMB: pssOf(child), controllerPssMB: pssOf(pid) };
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

const load = loadAverage;

function config(concurrency) {
  return (
    `stop-grace: 1s\nworkers:\n  - {name: bench, cpu: ${concurrency}, memory: 64GiB, attributes: {pool: ` +
    `bench}}\n  - {name: hold, cpu: 1, memory: 64GiB, attributes: {pool: hold}}\n`
  );
}

/** (a): `jobs` x `perJob` pending tasks on a fresh cluster. */
export async function knownTasksCase({ jobs = 100, perJob = 1000, concurrency = 16 } = {}) {
  const start = load();
  const c = startBenchCluster('memory-known', config(concurrency));
  try {
    const idle = memoryOf(c.pid);
    const submitSeconds = await submitPendingLoad(c.client, jobs, perJob);
    const afterSubmit = memoryOf(c.pid);
    for (let i = 0; i < 3; i++) await c.client.jobs();
    const settled = memoryOf(c.pid);
    const pendingTasks = (await c.client.cluster()).queue.pending;
    return {
      tasksKnown: 1 + jobs * perJob,
      pendingTasks,
      submitSeconds,
      idleRssMB: idle.rssMB,
      rssAfterSubmitMB: afterSubmit.rssMB,
      rssMB: settled.rssMB,
      hwmMB: settled.hwmMB,
      spawner: spawnerMemory(c.pid),
      loadavg: { start, end: load() },
    };
  } finally {
    c.stop();
  }
}

/** (b): `count` trivial tasks run to completion on a fresh cluster. */
export async function finishedTasksCase({ count = 2000, concurrency = 16 } = {}) {
  const start = load();
  const c = startBenchCluster('memory-finished', config(concurrency));
  try {
    const idle = memoryOf(c.pid);
    const begun = performance.now();
    await c.client.submit({
      name: 'trivial',
      command: ['true'],
      cpu: 1,
      memory: '16M',
      constraints: ['pool=bench'],
      replicas: count,
    });
    await awaitJobs(c.client, ['/trivial']);
    const seconds = (performance.now() - begun) / 1000;
    const atEnd = memoryOf(c.pid);
    // The cluster gives a burst's heap back once quiet, right after the end event went out
    // (src/server/idle-compaction.ts): read again one second later, with nothing else done.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = memoryOf(c.pid);
    return {
      tasks: count,
      seconds,
      idleRssMB: idle.rssMB,
      rssAtEndMB: atEnd.rssMB,
      rssMB: after.rssMB,
      hwmMB: after.hwmMB,
      spawner: spawnerMemory(c.pid),
      loadavg: { start, end: load() },
    };
  } finally {
    c.stop();
  }
}

/** VmRSS of a fresh idle cluster, `settleMs` after it started (the baseline of case (c)). */
async function idleFreshRss(concurrency, settleMs) {
  const c = startBenchCluster('memory-idle', config(concurrency));
  try {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return memoryOf(c.pid).rssMB;
  } finally {
    c.stop();
  }
}

/**
 * (c): `jobs` one-task jobs (`true`) submitted by 20 clients run to their end on a fresh cluster;
 * VmRSS once it is idle again (`settleMs` after the last ended: finished trees beyond
 * `keep-finished` leave memory within a second, the heap is given back once quiet), and again
 * after a restart of the cluster on the same state. Baseline, interleaved: an idle fresh
 * cluster's VmRSS, taken before (A) and after (A) the case (B), in the same run. Target (issue
 * 36): <= 150 MB with 100,000 finished jobs.
 */
export async function finishedJobsCase({
  jobs = Number(process.env.BENCH_FINISHED_JOBS ?? 100_000),
  concurrency = 16,
  settleMs = 3000,
  log = () => {},
} = {}) {
  const start = load();
  const before = await idleFreshRss(concurrency, settleMs);
  const c = startBenchCluster('memory-finished-jobs', config(concurrency));
  let idle;
  let restarted;
  let hwmMB;
  try {
    const socketPath = path.join(c.home, 'run', 'iris.sock');
    log(`memory bench: (c) ${jobs} one-task jobs`);
    await submitOneTaskJobs(socketPath, jobs, 20, log);
    await awaitIdle(c.client);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const mem = memoryOf(c.pid);
    idle = mem.rssMB;
    hwmMB = mem.hwmMB;
    iris(['cluster', 'stop'], c.ctx);
    iris(['cluster', 'start', '--detach'], c.ctx);
    const pid = Number(readFileSync(path.join(c.home, 'cluster.pid'), 'utf8').trim());
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    restarted = memoryOf(pid).rssMB;
  } finally {
    c.stop();
  }
  const after = await idleFreshRss(concurrency, settleMs);
  return {
    jobs,
    idleRssMB: idle,
    hwmMB,
    restartedRssMB: restarted,
    baselineRssMB: { before, after },
    loadavg: { start, end: load() },
  };
}

export async function runMemoryBench({
  concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16),
  log = () => {},
} = {}) {
  log('memory bench: (a) 100,000 pending tasks on a fresh cluster');
  const known = await knownTasksCase({ concurrency });
  log('memory bench: (b) 2,000 finished trivial tasks on a fresh cluster');
  const finished = await finishedTasksCase({ concurrency });
  const finishedJobs =
    Number(process.env.BENCH_FINISHED_JOBS ?? 100_000) > 0 ? await finishedJobsCase({ concurrency, log }) : null;
  return { concurrency, known, finished, finishedJobs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runMemoryBench({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
