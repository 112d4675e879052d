// Named queues and task merging (issue 33): what they cost a scheduling pass.
// - queues: one pass of a QueueSet with two named queues (`train`, easy, on the us-east1 workers;
//   `serve`, first-fit, on every worker; every other job in each) against the same QueueSet
//   without named queues (today's single `queue:` block) on the same snapshot.
// - merge: one adaptive pass where every job carries a merge group (eight groups) with merging on
//   (max batch 4) against the same adaptive pass with merging off.
// Interleaved (A B, B A, …) after a warm-up, median of the per-round ratios; at 10k tasks x 1k
// workers and 100k x 10k (the schedule bench's snapshots); the merge sides at 10k x 1k only (an
// adaptive easy pass at 100k x 10k takes seconds: issue 36 is about that pass).
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { pathToFileURL } from 'node:url';
import { placementOptions } from '../dist/cluster/scheduler/index.js';
import { QueueSet } from '../dist/cluster/scheduler/queue/index.js';
import { interleaveSync, ratioOf, spread } from './measure.mjs';
import { buildSnapshot } from './schedule.mjs';

const NAMED = {
  queues: [
    { name: 'train', options: { policy: 'easy' }, workers: [{ key: 'region', op: 'eq', values: ['us-east1'] }] },
    { name: 'serve', options: { policy: 'first-fit' }, workers: [] },
  ],
  defaultQueue: 'serve',
};

/** The snapshot with every other job in `train`, and a merge group on every job (eight groups). */
function withQueuesAndGroups(snapshot) {
  const queued = new Map();
  const merged = new Map();
  let i = 0;
  for (const [name, job] of snapshot.jobs) {
    queued.set(name, { ...job, queue: i % 2 === 0 ? 'train' : 'serve' });
    merged.set(name, { ...job, merge: `group-${i % 8}` });
    i++;
  }
  return { queued: { ...snapshot, jobs: queued }, merged: { ...snapshot, jobs: merged } };
}

function measure(taskCount, workerCount, rounds, withMerge) {
  const plain = buildSnapshot(taskCount, workerCount);
  const { queued, merged } = withQueuesAndGroups(plain);
  const plans = {};
  const on = placementOptions({ mode: 'adaptive', merge: { enabled: true, maxBatch: 4 } });
  const off = placementOptions({ mode: 'adaptive', merge: { enabled: false, maxBatch: 4 } });
  const queueSides = {
    one: () => {
      plans.one = new QueueSet({ policy: 'easy' }).pass(queued);
    },
    two: () => {
      plans.two = new QueueSet({ policy: 'easy' }, undefined, NAMED).pass(queued);
    },
  };
  const mergeSides = {
    mergeOn: () => {
      plans.mergeOn = new QueueSet({ policy: 'easy' }, on).pass(merged);
    },
    mergeOff: () => {
      plans.mergeOff = new QueueSet({ policy: 'easy' }, off).pass(merged);
    },
  };
  const r = interleaveSync(withMerge ? { ...queueSides, ...mergeSides } : queueSides, { rounds, warmup: 2 });
  const batches = (plans.mergeOn?.placements ?? []).filter((p) => p.merged && p.merged.length > 0);
  return {
    tasks: plain.pending.length,
    workers: workerCount,
    rounds: r.rounds,
    one: r.one,
    two: r.two,
    queuesRatio: ratioOf(r, 'two', 'one'),
    mergeOn: withMerge ? r.mergeOn : null,
    mergeOff: withMerge ? r.mergeOff : null,
    mergeRatio: withMerge ? ratioOf(r, 'mergeOn', 'mergeOff') : null,
    placed: { one: plans.one.placements.length, two: plans.two.placements.length },
    batches: batches.length,
    mergedTasks: batches.reduce((n, p) => n + p.merged.length, 0),
  };
}

export function runQueuesBench({ runs = 7, large: withLarge = true } = {}) {
  const small = measure(10_000, 1_000, runs, true);
  const large = withLarge ? measure(100_000, 10_000, 5, false) : null;
  return { small, large, limits: { queuesRatio: 2, mergeRatio: 1.3 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = runQueuesBench({ large: process.argv[2] !== 'small' });
  const ratio = (x) => `x${x.median.toFixed(3)} (min x${x.min.toFixed(3)}, max x${x.max.toFixed(3)})`;
  for (const [label, r] of [
    ['10k x 1k', result.small],
    ['100k x 10k', result.large],
  ]) {
    if (!r) continue;
    console.log(
      `${label}: one queue ${r.one.median.toFixed(2)} ms [${spread(r.one)}], two named queues ` +
        `${r.two.median.toFixed(2)} ms [${spread(r.two)}], ratio ${ratio(r.queuesRatio)}; placed ${r.placed.one} / ` +
        `${r.placed.two}; ${r.rounds} rounds` +
        (r.mergeRatio
          ? `. Adaptive merge on ${r.mergeOn.median.toFixed(2)} ms, off ${r.mergeOff.median.toFixed(2)} ms, ` +
            `ratio ${ratio(r.mergeRatio)}; ${r.batches} batches of ${r.mergedTasks} members`
          : ''),
    );
  }
}
