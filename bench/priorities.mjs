// Priority bands, quotas and preemption (issue 32 §4): one QueueScheduler pass (policy easy) on a
// snapshot with bands on every job, running tasks of every band with users and start times, and
// soft and hard quotas with weights — with preemption on (`all`), against the same pass on the same
// snapshot with preemption off (`off`) and, given BENCH_PRIORITIES_BASELINE=DIR (a dist/ built from
// the commit before bands, e.g. a5ac408), against that build's pass on the same snapshot
// (`before`: today's pass, which reads no band, no weight and no start time). Interleaved
// (A B C, C A B, …), warm-up, median of the per-round ratios; at 10k tasks x 1k workers and 100k x
// 10k (the schedule bench's snapshots). `plain` is this build on the snapshot without any of it.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { QueueScheduler } from '../dist/cluster/scheduler/queue/index.js';
import { interleaveSync, ratioOf, spread } from './measure.mjs';
import { prng } from './prng.mjs';
import { buildSnapshot } from './schedule.mjs';

const BEFORE_DIR = process.env.BENCH_PRIORITIES_BASELINE;
const Before = BEFORE_DIR
  ? (await import(pathToFileURL(path.resolve(BEFORE_DIR, 'cluster/scheduler/queue/index.js')).href)).QueueScheduler
  : null;

const BANDS = ['production', 'interactive', 'interactive', 'batch', 'batch'];

/** The running tasks that hold what each worker does not have free (one per busy worker). */
function runningOf(snapshot, rand) {
  const running = [];
  for (const w of snapshot.workers) {
    const cpu = w.capacity.cpuMillis - w.free.cpuMillis;
    if (cpu <= 0) continue;
    running.push({
      task: `/held-${running.length}/task-0`,
      job: `/held-${running.length}`,
      workerId: w.id,
      cpuMillis: cpu,
      memoryBytes: w.capacity.memoryBytes - w.free.memoryBytes,
      devices: w.device.count - w.free.devices.length,
      endsAt: snapshot.now + 1 + Math.floor(rand() * 4 * 3600_000),
    });
  }
  return running;
}

/** The same snapshot twice: plain (no bands, no running users) and with bands, users and quotas. */
export function buildPair(taskCount, workerCount, seed = 3) {
  const plain = buildSnapshot(taskCount, workerCount);
  const rand = prng(seed);
  plain.running = runningOf(plain, rand);
  const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
  const jobs = new Map();
  for (const [name, job] of plain.jobs) jobs.set(name, { ...job, band: BANDS[Math.floor(rand() * BANDS.length)] });
  const running = plain.running.map((r) => ({
    ...r,
    user: users[Math.floor(rand() * users.length)],
    startedAt: plain.now - Math.floor(rand() * 2 * 3600_000),
    band: rand() < 0.7 ? 'batch' : 'interactive',
    gang: false,
  }));
  const quota = (cpu, weight, hard) => ({
    maxRunningCpuMillis: cpu,
    maxRunningMemoryBytes: null,
    maxRunningAccelerators: null,
    maxPendingTasks: null,
    weight,
    hard,
  });
  const quotas = new Map([
    ['bob', quota(64_000, 1, false)],
    ['carol', quota(200_000, 2, false)],
    ['dave', quota(500_000, 1, true)],
  ]);
  return { plain, bands: { ...plain, jobs, running, quotas } };
}

function measure(taskCount, workerCount, rounds) {
  const { plain, bands } = buildPair(taskCount, workerCount);
  let withPlan;
  const sides = {
    all: () => {
      withPlan = new QueueScheduler({ policy: 'easy', preemption: { exemptMs: 60_000 } }).pass(bands);
    },
    off: () => {
      new QueueScheduler({ policy: 'easy' }).pass(bands);
    },
    plain: () => {
      new QueueScheduler({ policy: 'easy' }).pass(plain);
    },
  };
  if (Before)
    sides.before = () => {
      new Before({ policy: 'easy' }).pass(bands);
    };
  const r = interleaveSync(sides, { rounds, warmup: 2 });
  return {
    tasks: plain.pending.length,
    workers: workerCount,
    rounds: r.rounds,
    all: r.all,
    off: r.off,
    plain: r.plain,
    before: Before ? { ms: r.before, ratio: ratioOf(r, 'all', 'before'), dir: BEFORE_DIR } : null,
    vsOff: ratioOf(r, 'all', 'off'),
    placements: withPlan.placements.length,
    preemptions: withPlan.preemptions?.length ?? 0,
    victims: (withPlan.preemptions ?? []).reduce((n, p) => n + p.victims.length, 0),
  };
}

export function runPrioritiesBench({ runs = 11 } = {}) {
  const small = measure(10_000, 1_000, runs);
  const large = measure(100_000, 10_000, Math.max(5, Math.floor(runs / 2)));
  return { small, large, limits: { ratio: 1.2 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = runPrioritiesBench();
  const ratio = (x) => `x${x.median.toFixed(3)} (min x${x.min.toFixed(3)}, max x${x.max.toFixed(3)})`;
  for (const [label, r] of [
    ['10k x 1k', result.small],
    ['100k x 10k', result.large],
  ]) {
    console.log(
      `easy pass ${label}, bands + quotas + preemption: median ${r.all.median.toFixed(2)} ms [${spread(r.all)}]; ` +
        `preemption off ${r.off.median.toFixed(2)} ms, ratio ${ratio(r.vsOff)}; ` +
        (r.before
          ? `before (${r.before.dir}) ${r.before.ms.median.toFixed(2)} ms, ratio ${ratio(r.before.ratio)} ` +
            `(limit x${result.limits.ratio}); `
          : '') +
        `no bands/quotas ${r.plain.median.toFixed(2)} ms; ${r.rounds} rounds; ${r.placements} placed, ` +
        `${r.preemptions} preemptions stopping ${r.victims} tasks`,
    );
  }
}
