// Priority bands, quotas and preemption (issue 32 §4): one QueueScheduler pass (policy easy) with
// bands on every job, running tasks of every band with users and start times, soft and hard
// quotas with weights, and preemption on — against the same pass without any of them, on the same
// workers, pending tasks and running tasks. Interleaved (A B, B A, …), warm-up, median per-round
// ratio; at 10k tasks x 1k workers and 100k x 10k (the schedule bench's snapshots).
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { pathToFileURL } from 'node:url';
import { QueueScheduler } from '../dist/cluster/scheduler/queue/index.js';
import { interleaveSync, ratioOf, spread } from './measure.mjs';
import { prng } from './prng.mjs';
import { buildSnapshot } from './schedule.mjs';

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
    today: () => {
      new QueueScheduler({ policy: 'easy' }).pass(plain);
    },
    bands: () => {
      withPlan = new QueueScheduler({ policy: 'easy', preemption: { exemptMs: 60_000 } }).pass(bands);
    },
  };
  const r = interleaveSync(sides, { rounds, warmup: 2 });
  return {
    tasks: plain.pending.length,
    workers: workerCount,
    rounds: r.rounds,
    todayMs: r.today.median,
    bandsMs: r.bands.median,
    today: r.today,
    bands: r.bands,
    ratio: ratioOf(r, 'bands', 'today'),
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
  for (const [label, r] of [
    ['10k x 1k', result.small],
    ['100k x 10k', result.large],
  ]) {
    console.log(
      `easy pass ${label} with bands, quotas and preemption: median ${r.bandsMs.toFixed(2)} ms ` +
        `[${spread(r.bands)}]; without: ${r.todayMs.toFixed(2)} ms [${spread(r.today)}]; ` +
        `per-round ratio median x${r.ratio.median.toFixed(3)} ` +
        `(min x${r.ratio.min.toFixed(3)}, max x${r.ratio.max.toFixed(3)}, limit x${result.limits.ratio}); ` +
        `${r.rounds} rounds; ${r.placements} placed, ${r.preemptions} preemptions stopping ${r.victims} tasks`,
    );
  }
}
