// Adaptive placement benchmark (issue 15 §7): one schedule() pass with placement mode adaptive
// against the first-fit pass on the same snapshot, interleaved in one run after a warm-up, the
// order swapped every round (A B, B A, …) so both see the same machine load and neither always
// runs second. Snapshots are bench/schedule.mjs's, with GPU memory, job categories, and `uses`
// keys with cache hints on some workers, priced two ways (separate rows):
//   per type     each machine type has one fixed price (CPU host, A100 host, H100 host, TPU host),
//                as real fleets are priced: the case the target applies to;
//   per machine  a continuous random price per worker (0.5 + rand() for CPU hosts, 10 + 0..19 for
//                GPU hosts): the adversarial case, where the cheapest feasible worker changes often.
// Reports min / median / max per mode, the median of the per-round ratios (target <= 1.3 for the
// per-type rows) and the load average at start and end.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { placementOptions } from '../dist/cluster/scheduler/index.js';
import { schedule } from '../dist/cluster/scheduler/queue/first-fit.js';
import { prng } from './prng.mjs';
import { buildSnapshot } from './schedule.mjs';
import { interleaveSync } from './measure.mjs';

const GiB = 1024 ** 3;
const MODELS = ['llama-8b', 'llama-70b', 'mistral-7b', 'sdxl', 'whisper'];

/** Price per hour of each machine type in the per-type case. */
export const TYPE_PRICES = Object.freeze({ cpu: 0.8, A100: 18, H100: 27, tpu: 12 });

function priceOf(w, pricing, rand) {
  const r = rand(); // drawn in both cases, so the rest of the snapshot is the same
  if (pricing === 'per-type')
    return w.device.type === 'gpu' ? TYPE_PRICES[w.device.variant] : TYPE_PRICES[w.device.type];
  return w.device.type === 'gpu' ? 10 + Math.floor(r * 20) : w.device.type === 'tpu' ? 12 : 0.5 + r;
}

/**
 * bench/schedule.mjs's snapshot with prices (`pricing`: 'per-type' or 'per-machine'), GPU memory, categories and cache
 * hints.
 */
export function buildAdaptiveSnapshot(taskCount, workerCount, seed = 1, pricing = 'per-machine') {
  const base = buildSnapshot(taskCount, workerCount, seed);
  const rand = prng(seed + 100);
  const workers = base.workers.map((w) => {
    const costPerHour = priceOf(w, pricing, rand);
    const device =
      w.device.type === 'gpu' ? { ...w.device, memoryBytes: (w.device.variant === 'H100' ? 80 : 40) * GiB } : w.device;
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
      cacheHints.set(
        w.id,
        new Map([[key, { key, expiresAt: base.now + (rand() < 0.8 ? 3_600_000 : -1), loading: rand() < 0.2 }]]),
      );
    }
  }
  return { ...base, workers, jobs, cacheHints };
}

function measure(taskCount, workerCount, pricing, rounds, warmup) {
  const snapshot = buildAdaptiveSnapshot(taskCount, workerCount, 1, pricing);
  const adaptive = placementOptions();
  const firstFit = placementOptions({ mode: 'first-fit' });
  const plans = {};
  const time = (mode, opts) => {
    const start = performance.now();
    plans[mode] = schedule(snapshot, opts);
    return performance.now() - start;
  };
  // bench/measure.mjs: warm-up rounds, then first-fit and adaptive in alternating order.
  const r = interleaveSync(
    { adaptive: () => time('adaptive', adaptive), firstFit: () => time('firstFit', firstFit) },
    { rounds, warmup },
  );
  const scored = plans.adaptive.placements.filter((p) => p.decision);
  return {
    tasks: snapshot.pending.length,
    workers: workerCount,
    pricing,
    rounds: r.rounds,
    firstFitMs: r.firstFit,
    adaptiveMs: r.adaptive,
    ratio: r.ratio.firstFit,
    placements: {
      firstFit: plans.firstFit.placements.length,
      adaptive: plans.adaptive.placements.length,
      scored: scored.length,
      reuseHits: scored.filter((p) => p.decision.reuseHit).length,
    },
  };
}

/** Rows: per-type pricing (the target's case) then per-machine pricing, each at 10k x 1k and 100k x 10k. */
export function runPlacementBench({ rounds = 9 } = {}) {
  const loadStart = loadavg()[0];
  const rows = [];
  for (const pricing of ['per-type', 'per-machine']) {
    rows.push(measure(10_000, 1_000, pricing, rounds, 5));
    rows.push(measure(100_000, 10_000, pricing, Math.max(5, Math.floor(rounds / 2)), 2));
  }
  return { rows, loadAverage: { start: loadStart, end: loadavg()[0] }, limits: { ratio: 1.3, appliesTo: 'per-type' } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = runPlacementBench();
  const ms = (s) => `${s.min.toFixed(2)} / ${s.median.toFixed(2)} / ${s.max.toFixed(2)} ms`;
  for (const x of r.rows) {
    const target = x.pricing === r.limits.appliesTo ? `target <= ${r.limits.ratio}` : 'no target';
    console.log(
      `placement priced ${x.pricing.replace('-', ' ')}, ${x.tasks} x ${x.workers} (${x.rounds} rounds, ` +
        `min/median/max): first-fit ${ms(x.firstFitMs)}; adaptive ${ms(x.adaptiveMs)}; ` +
        `ratio median ${x.ratio.median.toFixed(2)} (min ${x.ratio.min.toFixed(2)}, max ${x.ratio.max.toFixed(2)}; ` +
        `${target}); ` +
        `placed ${x.placements.firstFit} / ${x.placements.adaptive}, reuse hits ${x.placements.reuseHits}`,
    );
  }
  console.log(`load average: ${r.loadAverage.start.toFixed(2)} at start, ${r.loadAverage.end.toFixed(2)} at end`);
}
