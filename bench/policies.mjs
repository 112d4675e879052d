// Queue-policy benchmark.
// 1. One QueueScheduler pass (easy, conservative) at 1,000 and 10,000 pending jobs on 1,000
//    workers with running tasks that end at known times (median ms). Baseline, same run and
//    same snapshot: the first-fit `schedule` pass.
// 2. A virtual-clock loop over all 10,000 jobs of ../shared/traces/lublin_256.swf on one
//    256-processor worker (a job = one task of max(allocated, requested) processors, planned
//    for its requested time, running for its run time), passes driven the way the simulator
//    will: a pre-ordered queue, resourcesChanged only when a task ended. Wall ms per policy.
//    Skipped with a note when the trace folder is absent.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QueueScheduler } from '../dist/cluster/scheduler/queue/index.js';
import { schedule } from '../dist/cluster/scheduler/queue/first-fit.js';
import { interleaveSync, ratioOf } from './measure.mjs';
import { prng } from './prng.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GiB = 1024 ** 3;

/** 1,000 workers (cpu and 8-GPU, a few 4-host TPU slices), each partly busy until a random end. */
export function buildPassSnapshot(jobCount, workerCount = 1000, seed = 7) {
  const rand = prng(seed);
  const now = 1_700_000_000_000;
  const workers = [];
  const running = [];
  let slice = 0;
  while (workers.length < workerCount) {
    const roll = rand();
    if (roll < 0.75) {
      workers.push({
        id: `cpu-${workers.length}`,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        capacity: { cpuMillis: 32000, memoryBytes: 128 * GiB },
      });
    } else if (roll < 0.95) {
      workers.push({
        id: `gpu-${workers.length}`,
        device: { type: 'gpu', variant: 'H100', count: 8 },
        attributes: {},
        capacity: { cpuMillis: 96000, memoryBytes: 1024 * GiB },
      });
    } else {
      const name = `slice-${slice++}`;
      for (let k = 0; k < 4 && workers.length < workerCount; k++) {
        workers.push({
          id: `tpu-${workers.length}`,
          device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
          attributes: { 'tpu-name': name, 'tpu-worker-id': String(k) },
          capacity: { cpuMillis: 112000, memoryBytes: 192 * GiB },
        });
      }
    }
  }
  const views = workers.map((w) => {
    // 1 to 4 running tasks per worker holding most of it, ending within the next 4 hours.
    let cpu = 0,
      mem = 0,
      dev = 0;
    const n = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) {
      const c = Math.floor((w.capacity.cpuMillis / n) * (0.6 + 0.4 * rand()));
      const m = Math.floor((w.capacity.memoryBytes / n) * (0.5 + 0.5 * rand()));
      const d = w.device.count > 0 ? Math.min(w.device.count - dev, Math.floor(rand() * 3)) : 0;
      cpu += c;
      mem += m;
      dev += d;
      running.push({
        task: `/run-${running.length}/task-0`,
        job: `/run-${running.length}`,
        workerId: w.id,
        cpuMillis: c,
        memoryBytes: m,
        devices: d,
        endsAt: now + Math.floor(rand() * 4 * 3_600_000),
      });
    }
    const devices = Array.from({ length: w.device.count - dev }, (_, i) => i + dev);
    return {
      ...w,
      free: { cpuMillis: w.capacity.cpuMillis - cpu, memoryBytes: w.capacity.memoryBytes - mem, devices },
      schedulable: true,
    };
  });
  const shapes = [
    { cpuMillis: 4000, memoryBytes: 16 * GiB, device: null },
    { cpuMillis: 16000, memoryBytes: 64 * GiB, device: null },
    { cpuMillis: 32000, memoryBytes: 128 * GiB, device: null },
    { cpuMillis: 8000, memoryBytes: 64 * GiB, device: { type: 'gpu', variant: 'H100', count: 8 } },
    { cpuMillis: 4000, memoryBytes: 32 * GiB, device: { type: 'gpu', variant: null, count: 2 } },
  ];
  const jobs = new Map();
  const pending = [];
  let seq = 0;
  for (let i = 0; i < jobCount; i++) {
    const gang = rand() < 0.03;
    const name = `/job-${i}`;
    const replicas = gang ? 4 : 1 + Math.floor(rand() * 8);
    const resources = gang
      ? { cpuMillis: 8000, memoryBytes: 32 * GiB, device: { type: 'tpu', variant: 'v5litepod-16', chips: 4 } }
      : shapes[Math.floor(rand() * shapes.length)];
    const submitted = now - (jobCount - i) * 1000;
    jobs.set(name, {
      name,
      depth: 1,
      rootSubmittedAt: submitted,
      seq: seq++,
      user: `u${i % 7}`,
      resources,
      constraints: [],
      coschedule: gang ? 'tpu-name' : null,
      replicas,
      timeLimitMs: (1 + Math.floor(rand() * 8)) * 1_800_000,
    });
    for (let k = 0; k < replicas; k++)
      pending.push({ id: `${name}/task-${k}`, job: name, index: k, submittedAt: submitted, seq: seq++ });
  }
  return { now, jobs, pending, workers: views, usage: new Map(), quotas: new Map(), running };
}

function measurePass(jobCount, runs) {
  const snapshot = buildPassSnapshot(jobCount);
  const out = { jobs: jobCount, tasks: snapshot.pending.length, workers: snapshot.workers.length };
  const plans = {};
  // A fresh scheduler per pass: every pass reconsiders the whole window (resourcesChanged).
  const r = interleaveSync(
    {
      easy: () => {
        plans.easy = new QueueScheduler({ policy: 'easy' }).pass(snapshot);
      },
      conservative: () => {
        plans.conservative = new QueueScheduler({ policy: 'conservative' }).pass(snapshot);
      },
      firstFit: () => {
        schedule(snapshot);
      },
    },
    { rounds: runs, warmup: 3 },
  );
  for (const policy of ['easy', 'conservative']) {
    out[policy] = {
      ms: r[policy].median,
      spread: r[policy],
      vsFirstFit: ratioOf(r, policy, 'firstFit'),
      placements: plans[policy].placements.length,
      reservations: plans[policy].reservations.size,
    };
  }
  out.firstFitMs = r.firstFit.median;
  out.firstFit = r.firstFit;
  out.rounds = r.rounds;
  return out;
}

export function readSwf(file) {
  const jobs = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith(';')) continue;
    const f = t.split(/\s+/).map(Number);
    const run = Math.max(0, f[3]);
    const procs = Math.max(f[4], f[7]);
    const requested = f[8] > 0 ? f[8] : run;
    if (procs <= 0) continue;
    jobs.push({ id: f[0], submit: f[1], run, procs, requested: Math.max(requested, run, 1) });
  }
  return jobs;
}

/** Drive a QueueScheduler over `trace` on one `procs`-processor worker; returns wall ms and mean wait. */
export function simulateTrace(trace, policy, procs = 256) {
  const scheduler = new QueueScheduler({ policy, defaultTimeLimitMs: Infinity });
  const worker = {
    id: 'pool',
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: {},
    capacity: { cpuMillis: procs * 1000, memoryBytes: 0 },
    free: null,
    schedulable: true,
  };
  const jobs = new Map();
  let pending = [];
  const running = []; // { alloc, end }
  let used = 0;
  let next = 0;
  let waitSum = 0;
  let passes = 0;
  const start = performance.now();
  for (;;) {
    let t = next < trace.length ? trace[next].submit : Infinity;
    for (const r of running) if (r.end < t) t = r.end;
    if (t === Infinity) break;
    let changed = false;
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i].end <= t) {
        used -= running[i].alloc.cpuMillis;
        running[i] = running[running.length - 1];
        running.pop();
        changed = true;
      }
    }
    while (next < trace.length && trace[next].submit <= t) {
      const j = trace[next++];
      const name = `/${j.id}`;
      jobs.set(name, {
        name,
        depth: 1,
        rootSubmittedAt: j.submit,
        seq: j.id,
        user: 'u',
        resources: { cpuMillis: j.procs * 1000, memoryBytes: 0, device: null },
        constraints: [],
        coschedule: null,
        replicas: 1,
        timeLimitMs: j.requested,
        trace: j,
      });
      pending.push({ id: `${name}/task-0`, job: name, index: 0, submittedAt: j.submit, seq: j.id });
    }
    if (pending.length === 0) continue;
    const snapshot = {
      now: t,
      jobs,
      pending,
      pendingOrdered: true,
      workers: [{ ...worker, free: { cpuMillis: procs * 1000 - used, memoryBytes: 0, devices: [] } }],
      usage: new Map(),
      quotas: new Map(),
      running: running.map((r) => r.alloc),
    };
    const plan = scheduler.pass(snapshot, changed);
    passes++;
    if (plan.placements.length > 0) {
      const started = new Set();
      for (const p of plan.placements) {
        const job = jobs.get(p.job);
        const j = job.trace;
        used += job.resources.cpuMillis;
        running.push({
          alloc: {
            task: p.task,
            job: p.job,
            workerId: 'pool',
            cpuMillis: job.resources.cpuMillis,
            memoryBytes: 0,
            devices: 0,
            endsAt: t + j.requested,
          },
          end: t + j.run,
        });
        waitSum += t - j.submit;
        started.add(p.task);
        jobs.delete(p.job);
      }
      pending = pending.filter((task) => !started.has(task.id));
    }
  }
  return { policy, ms: performance.now() - start, passes, jobs: trace.length, meanWait: waitSum / trace.length };
}

export function runPoliciesBench({ runs = 11 } = {}) {
  const small = measurePass(1_000, runs);
  const large = measurePass(10_000, Math.max(5, Math.floor(runs / 2)));
  const traceFile = path.join(root, '..', 'shared', 'traces', 'lublin_256.swf');
  let simulation = null;
  if (existsSync(traceFile)) {
    const trace = readSwf(traceFile);
    simulation = { easy: simulateTrace(trace, 'easy'), conservative: simulateTrace(trace, 'conservative') };
  }
  return { small, large, simulation, traceFile, limits: { easySimMs: 1000, conservativeSimMs: 3000 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = runPoliciesBench();
  for (const m of [r.small, r.large]) {
    console.log(
      `pass, ${m.jobs} jobs (${m.tasks} tasks) x ${m.workers} workers: easy ${m.easy.ms.toFixed(2)} ms (` +
        `${m.easy.placements} placed, ${m.easy.reservations} reserved), ` +
        `conservative ${m.conservative.ms.toFixed(2)} ms (${m.conservative.placements} placed, ` +
        `${m.conservative.reservations} reserved); baseline first-fit schedule ${m.firstFitMs.toFixed(2)} ms`,
    );
  }
  if (!r.simulation) console.log(`simulation skipped: ${r.traceFile} not found`);
  else
    for (const s of Object.values(r.simulation))
      console.log(
        `simulate lublin_256 (${s.jobs} jobs, ${s.passes} passes) with ${s.policy}: ${s.ms.toFixed(0)} ms, mean ` +
          `wait ${s.meanWait.toFixed(0)} s`,
      );
}
