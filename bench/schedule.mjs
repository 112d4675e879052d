// Scheduler benchmark: median time of one schedule() pass on synthetic snapshots
// (mixed cpu/gpu/tpu workers, gangs, several depths and users, some quotas).
// Baseline: a plain sort of the same pending array by (submittedAt, seq), same run.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
// BENCH_SCHEDULE_BASELINE=DIR (a dist/ built from an earlier commit) adds that build's pass as a
// third side of the same interleaved rounds: the no-regression check ("within 10% of before").
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { schedule } from '../dist/cluster/scheduler/queue/first-fit.js';
import { interleaveSync, spread } from './measure.mjs';
import { prng } from './prng.mjs';

const BEFORE_DIR = process.env.BENCH_SCHEDULE_BASELINE;
const before = BEFORE_DIR
  ? (await import(pathToFileURL(path.resolve(BEFORE_DIR, 'cluster/scheduler/queue/first-fit.js')).href)).schedule
  : null;

const GiB = 1024 ** 3;

export function buildSnapshot(taskCount, workerCount, seed = 1) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const workers = [];
  const regions = ['us-east1', 'us-west1', 'eu-west4'];
  let slice = 0;
  while (workers.length < workerCount) {
    const roll = rand();
    const region = pick(regions);
    const busy = rand() < 0.5 ? rand() : 0; // half the workers partly loaded
    if (roll < 0.7) {
      const cpu = 16000,
        mem = 64 * GiB;
      workers.push({
        id: `cpu-${workers.length}`,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: { region, 'device-type': 'cpu' },
        capacity: { cpuMillis: cpu, memoryBytes: mem },
        free: { cpuMillis: Math.floor(cpu * (1 - busy)), memoryBytes: Math.floor(mem * (1 - busy)), devices: [] },
        schedulable: rand() > 0.01,
      });
    } else if (roll < 0.9) {
      const variant = pick(['H100', 'A100']);
      const used = Math.floor(busy * 8);
      workers.push({
        id: `gpu-${workers.length}`,
        device: { type: 'gpu', variant, count: 8 },
        attributes: { region, 'device-type': 'gpu', 'device-variant': variant },
        capacity: { cpuMillis: 96000, memoryBytes: 1024 * GiB },
        free: {
          cpuMillis: 96000 - used * 12000,
          memoryBytes: (1024 - used * 128) * GiB,
          devices: Array.from({ length: 8 - used }, (_, i) => i + used),
        },
        schedulable: true,
      });
    } else {
      const name = `slice-${slice++}`;
      const idle = rand() < 0.6;
      for (let k = 0; k < 4 && workers.length < workerCount; k++) {
        workers.push({
          id: `tpu-${workers.length}`,
          device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
          attributes: {
            region,
            'device-type': 'tpu',
            'device-variant': 'v5litepod-16',
            'tpu-name': name,
            'tpu-worker-id': String(k),
          },
          capacity: { cpuMillis: 112000, memoryBytes: 192 * GiB },
          free: idle
            ? { cpuMillis: 112000, memoryBytes: 192 * GiB, devices: [0, 1, 2, 3] }
            : { cpuMillis: 0, memoryBytes: 0, devices: [] },
          schedulable: true,
        });
      }
    }
  }

  const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
  const shapes = [
    { cpuMillis: 1000, memoryBytes: 2 * GiB, device: null },
    { cpuMillis: 2000, memoryBytes: 8 * GiB, device: null },
    { cpuMillis: 4000, memoryBytes: 16 * GiB, device: null },
    { cpuMillis: 500, memoryBytes: 1 * GiB, device: null },
    { cpuMillis: 8000, memoryBytes: 64 * GiB, device: { type: 'gpu', variant: 'H100', count: 4 } },
    { cpuMillis: 4000, memoryBytes: 32 * GiB, device: { type: 'gpu', variant: null, count: 1 } },
  ];
  const jobs = new Map();
  const pending = [];
  let seq = 0;
  let t = 1_000_000;
  const roots = [];
  while (pending.length < taskCount) {
    t += 1 + Math.floor(rand() * 5);
    const gang = rand() < 0.03;
    const depth = roots.length > 0 && rand() < 0.4 ? 2 + Math.floor(rand() * 2) : 1;
    const root = depth > 1 ? pick(roots) : null;
    const name = root ? `${root.name}/c${jobs.size}${depth === 3 ? '/g' : ''}` : `/job-${jobs.size}`;
    const replicas = gang ? 4 : Math.max(1, Math.min(taskCount - pending.length, 1 + Math.floor(rand() * 20)));
    const resources = gang
      ? { cpuMillis: 8000, memoryBytes: 32 * GiB, device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } }
      : pick(shapes);
    const constraints = rand() < 0.2 ? [{ key: 'region', op: 'eq', values: [pick(regions)] }] : [];
    const job = {
      name,
      depth,
      rootSubmittedAt: root ? root.rootSubmittedAt : t,
      seq: seq++,
      user: pick(users),
      resources,
      constraints,
      coschedule: gang ? 'tpu-name' : null,
      replicas,
    };
    jobs.set(name, job);
    if (depth === 1) roots.push(job);
    for (let i = 0; i < replicas && pending.length < taskCount + (gang ? 3 : 0); i++) {
      pending.push({ id: `${name}/task-${i}`, job: name, index: i, submittedAt: t, seq: seq++ });
    }
  }
  // The store hands pending tasks over in no particular order.
  for (let i = pending.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pending[i], pending[j]] = [pending[j], pending[i]];
  }
  const usage = new Map(
    users.map((u) => [u, { cpuMillis: u === 'bob' ? 64000 : 1000, memoryBytes: 0, accelerators: 0, pendingTasks: 0 }]),
  );
  const quotas = new Map([
    [
      'bob',
      { maxRunningCpuMillis: 64000, maxRunningMemoryBytes: null, maxRunningAccelerators: null, maxPendingTasks: null },
    ],
    [
      'carol',
      { maxRunningCpuMillis: 200000, maxRunningMemoryBytes: null, maxRunningAccelerators: 16, maxPendingTasks: null },
    ],
  ]);
  return { now: t, jobs, pending, workers, usage, quotas };
}

function measure(taskCount, workerCount, rounds) {
  const snapshot = buildSnapshot(taskCount, workerCount);
  let plan;
  // The controller runs passes back to back: 3 warm-up rounds, then the pass and a plain sort of
  // the same pending array interleaved.
  const sides = {
    schedule: () => {
      plan = schedule(snapshot);
    },
    sort: () => {
      [...snapshot.pending].sort((a, b) => a.submittedAt - b.submittedAt || a.seq - b.seq);
    },
  };
  if (before)
    sides.before = () => {
      before(snapshot);
    };
  const r = interleaveSync(sides, { rounds, warmup: 3 });
  return {
    tasks: snapshot.pending.length,
    workers: workerCount,
    rounds: r.rounds,
    scheduleMs: r.schedule.median,
    baselineSortMs: r.sort.median,
    schedule: r.schedule,
    sort: r.sort,
    placements: plan.placements.length,
    reasons: plan.reasons.size,
    before: before ? { ms: r.before, ratio: r.ratio.before, dir: BEFORE_DIR } : null,
  };
}

export function runScheduleBench({ runs = 61 } = {}) {
  const small = measure(10_000, 1_000, runs);
  const large = measure(100_000, 10_000, Math.max(5, Math.floor(runs / 3)));
  return { small, large, limits: { smallMs: 20, largeMs: 300 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = runScheduleBench();
  for (const [label, r] of [
    ['10k x 1k', result.small],
    ['100k x 10k', result.large],
  ]) {
    console.log(
      `schedule ${label}: median ${r.scheduleMs.toFixed(2)} ms [${spread(r.schedule)}] (limit ` +
        `${label === '10k x 1k' ? result.limits.smallMs : result.limits.largeMs} ms); ` +
        `baseline plain sort ${r.baselineSortMs.toFixed(2)} ms; ${r.tasks} tasks, ${r.workers} workers, ` +
        `${r.placements} placed, ${r.reasons} jobs with reasons` +
        (r.before
          ? `; before (${r.before.dir}) ${r.before.ms.median.toFixed(2)} ms, median ratio x` +
            `${r.before.ratio.median.toFixed(3)}`
          : ''),
    );
  }
}
