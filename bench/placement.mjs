// Adaptive placement benchmark (issue 15 §7): one schedule() pass with placement mode adaptive
// against the first-fit pass on the same snapshot, interleaved in one run (A B A B …) after a
// warm-up, so both see the same machine load. Snapshots are bench/schedule.mjs's, with worker
// prices and GPU memory, job categories, and `uses` keys with cache hints on some workers.
// Reports min / median / max per mode and the median of the per-round ratios (target <= 1.3).
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { placementOptions, schedule } from '../dist/cluster/scheduler/index.js';
import { prng } from './prng.mjs';
import { buildSnapshot } from './schedule.mjs';

const GiB = 1024 ** 3;
const MODELS = ['llama-8b', 'llama-70b', 'mistral-7b', 'sdxl', 'whisper'];

export function buildAdaptiveSnapshot(taskCount, workerCount, seed = 1) {
  const base = buildSnapshot(taskCount, workerCount, seed);
  const rand = prng(seed + 100);
  const workers = base.workers.map((w) => {
    const costPerHour = w.device.type === 'gpu' ? 10 + Math.floor(rand() * 20) : w.device.type === 'tpu' ? 12 : 0.5 + rand();
    const device = w.device.type === 'gpu' ? { ...w.device, memoryBytes: (w.device.variant === 'H100' ? 80 : 40) * GiB } : w.device;
    return { ...w, device, costPerHour, lastDispatchAt: rand() < 0.5 ? base.now - Math.floor(rand() * 60_000) : null };
  });
  const categories = ['training', 'inference', 'other'];
  const jobs = new Map();
  for (const [name, job] of base.jobs) {
    const uses = rand() < 0.5 ? [MODELS[Math.floor(rand() * MODELS.length)]] : undefined;
    jobs.set(name, { ...job, category: categories[Math.floor(rand() * 3)], ...(uses ? { uses } : {}) });
  }
  const cacheHints = new Map();
  for (const w of workers) {
    if (rand() < 0.3) {
      const key = MODELS[Math.floor(rand() * MODELS.length)];
      cacheHints.set(w.id, new Map([[key, { key, expiresAt: base.now + (rand() < 0.8 ? 3_600_000 : -1), loading: rand() < 0.2 }]]));
    }
  }
  return { ...base, workers, jobs, cacheHints };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};

function measure(taskCount, workerCount, rounds, warmup) {
  const snapshot = buildAdaptiveSnapshot(taskCount, workerCount);
  const adaptive = placementOptions();
  const firstFit = placementOptions({ mode: 'first-fit' });
  let plans = {};
  const time = (mode, opts) => {
    const start = performance.now();
    plans[mode] = schedule(snapshot, opts);
    return performance.now() - start;
  };
  for (let i = 0; i < warmup; i++) {
    time('firstFit', firstFit);
    time('adaptive', adaptive);
  }
  const ff = [], ad = [], ratios = [];
  for (let i = 0; i < rounds; i++) {
    const a = time('firstFit', firstFit);
    const b = time('adaptive', adaptive);
    ff.push(a);
    ad.push(b);
    ratios.push(b / a);
  }
  const scored = plans.adaptive.placements.filter((p) => p.decision);
  return {
    tasks: snapshot.pending.length, workers: workerCount, rounds,
    firstFitMs: stats(ff), adaptiveMs: stats(ad), ratio: stats(ratios),
    placements: { firstFit: plans.firstFit.placements.length, adaptive: plans.adaptive.placements.length, scored: scored.length,
      reuseHits: scored.filter((p) => p.decision.reuseHit).length },
  };
}

export function runPlacementBench({ rounds = 9 } = {}) {
  const load = loadavg()[0];
  const small = measure(10_000, 1_000, rounds, 5);
  const large = measure(100_000, 10_000, Math.max(5, Math.floor(rounds / 2)), 2);
  return { small, large, loadAverage: load, limits: { ratio: 1.3 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = runPlacementBench();
  const ms = (s) => `${s.min.toFixed(2)} / ${s.median.toFixed(2)} / ${s.max.toFixed(2)} ms`;
  for (const [label, x] of [['10k x 1k', r.small], ['100k x 10k', r.large]]) {
    console.log(`placement ${label} (${x.rounds} rounds, min/median/max): first-fit ${ms(x.firstFitMs)}; adaptive ${ms(x.adaptiveMs)}; ` +
      `ratio median ${x.ratio.median.toFixed(2)} (min ${x.ratio.min.toFixed(2)}, max ${x.ratio.max.toFixed(2)}; target <= ${r.limits.ratio}); ` +
      `placed ${x.placements.firstFit} / ${x.placements.adaptive}, reuse hits ${x.placements.reuseHits}`);
  }
  console.log(`load average at start: ${r.loadAverage.toFixed(2)}`);
}
