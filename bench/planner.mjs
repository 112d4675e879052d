// Planner benchmark: median µs of one Calendar.earliest query and of one Calendar.add at
// 1,000 / 10,000 / 100,000 live spans of one 256-unit resource (target at 10,000: <= 10 µs).
// Two calendars per size:
//   load     spans at random times over a horizon sized for ~70% mean usage; queries from
//            random times (a worker or pool calendar as the controller sees it)
//   backlog  a packed FCFS list schedule of the whole stream starting at 0 (a deep queue
//            with every job reserved, as conservative backfill builds it); queries from 0,
//            (an FCFS list schedule leaves idle holes, found at once)
//   packed   the same stream, each job placed at its own earliest start from 0 (conservative
//            backfill's reservations: the holes are filled, so a query skips many gaps too
//            short for it — the planner's worst case; 1k and 10k only, building it takes
//            n earliest queries)
// Baselines, same run, same spans: one linear scan of the span array (usage at one time — the
// least an unindexed earliest query must do) and inserting a span's two points into a sorted
// array (what a sorted-array calendar pays per add).
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { pathToFileURL } from 'node:url';
import { Calendar } from '../dist/cluster/scheduler/planner/index.js';
import { prng } from './prng.mjs';

const TOTAL = 256; // units (processors of lublin_256)
const BATCH = 200;

/** Mostly narrow jobs, some wide; durations log-uniform from a minute to a day (seconds). */
function request(rand) {
  const amount = rand() < 0.8 ? 1 + Math.floor(rand() * 16) : 16 + Math.floor(rand() * 240);
  const duration = Math.floor(60 * Math.exp(rand() * Math.log(24 * 60)));
  return { amount, duration };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Median over `rounds` batches of the per-call µs of `body` run BATCH times. */
function perCallUs(rounds, setup, body, teardown) {
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const state = setup(r);
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) body(state, i);
    const ns = Number(process.hrtime.bigint() - start);
    teardown?.(state);
    samples.push(ns / 1000 / BATCH);
  }
  return median(samples);
}

/** Random spans over a horizon sized so the mean usage is ~70% of TOTAL. */
function loadProfile(n, rand) {
  const spans = [];
  const jobs = Array.from({ length: n }, () => request(rand));
  const work = jobs.reduce((sum, j) => sum + j.amount * j.duration, 0);
  const horizon = work / (0.7 * TOTAL);
  for (const j of jobs) {
    const start = Math.floor(rand() * horizon);
    spans.push({ start, end: start + j.duration, amount: j.amount });
  }
  return { spans, horizon };
}

/** FCFS list schedule on TOTAL units: each job takes the `amount` units that free up first. */
function backlogProfile(n, rand) {
  const free = new Float64Array(TOTAL); // per-unit free-from time, kept sorted
  const spans = [];
  for (let i = 0; i < n; i++) {
    const { amount, duration } = request(rand);
    const start = free[amount - 1];
    for (let u = 0; u < amount; u++) free[u] = start + duration;
    free.sort();
    spans.push({ start, end: start + duration, amount });
  }
  return { spans, horizon: free[TOTAL - 1] };
}

/** Every job at its own earliest start from 0 on the calendar built so far. */
function packedProfile(n, rand) {
  const cal = new Calendar(TOTAL);
  const spans = [];
  let horizon = 0;
  for (let i = 0; i < n; i++) {
    const { amount, duration } = request(rand);
    const start = cal.earliest(0, duration, amount);
    cal.add(start, start + duration, amount);
    spans.push({ start, end: start + duration, amount });
    horizon = Math.max(horizon, start + duration);
  }
  return { spans, horizon };
}

const PROFILES = { load: loadProfile, backlog: backlogProfile, packed: packedProfile };

function measure(profile, n, rounds) {
  const rand = prng(n * 7 + Object.keys(PROFILES).indexOf(profile));
  const { spans, horizon } = PROFILES[profile](n, rand);
  const cal = new Calendar(TOTAL);
  for (const s of spans) cal.add(s.start, s.end, s.amount);
  let checksum = 0;

  const queries = Array.from({ length: BATCH * rounds }, () => ({ from: profile === 'load' ? rand() * horizon : 0, ...request(rand) }));
  const stepsBefore = cal.searchSteps;
  const earliestUs = perCallUs(rounds, (r) => r * BATCH, (base, i) => {
    const q = queries[base + i];
    checksum += cal.earliest(q.from, q.duration, q.amount);
  });
  const meanSteps = (cal.searchSteps - stepsBefore) / (BATCH * rounds);

  // One add at size n (the batch is removed again, untimed), then one remove.
  const adds = Array.from({ length: BATCH * rounds }, () => {
    const { amount, duration } = request(rand);
    const start = Math.floor(rand() * horizon);
    return { start, end: start + duration, amount };
  });
  const addUs = perCallUs(rounds, (r) => ({ base: r * BATCH, ids: [] }), (s, i) => {
    const a = adds[s.base + i];
    s.ids.push(cal.add(a.start, a.end, a.amount));
  }, (s) => { for (const id of s.ids) cal.remove(id); });
  const removeUs = perCallUs(rounds, (r) => adds.slice(r * BATCH, (r + 1) * BATCH).map((a) => cal.add(a.start, a.end, a.amount)), (ids, i) => cal.remove(ids[i]));

  const scanUs = perCallUs(Math.max(3, Math.floor(rounds / 4)), (r) => r * BATCH, (base, i) => {
    const t = queries[base + i].from;
    let used = 0;
    for (let k = 0; k < spans.length; k++) {
      const s = spans[k];
      if (s.start <= t && t < s.end) used += s.amount;
    }
    checksum += used;
  });

  const points = spans.flatMap((s) => [s.start, s.end]).sort((a, b) => a - b);
  const insertAt = (x) => {
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    points.splice(lo, 0, x);
  };
  const sortedInsertUs = perCallUs(rounds, (r) => r * BATCH, (base, i) => {
    insertAt(adds[base + i].start);
    insertAt(adds[base + i].end);
  }, () => {
    points.length = n * 2;
    points.sort((a, b) => a - b);
  });

  if (cal.size !== n || Number.isNaN(checksum)) throw new Error('planner bench: calendar out of shape');
  return { profile, spans: n, points: cal.points, earliestUs, meanSteps, addUs, removeUs, baselineScanUs: scanUs, baselineSortedInsertUs: sortedInsertUs };
}

export function runPlannerBench({ rounds = 31 } = {}) {
  const results = [];
  for (const profile of ['load', 'backlog', 'packed']) {
    for (const n of profile === 'packed' ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
      results.push(measure(profile, n, n >= 100_000 ? Math.max(5, Math.floor(rounds / 3)) : rounds));
    }
  }
  return { results, limits: { at: 10_000, earliestUs: 10, addUs: 10 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { results } = runPlannerBench();
  const header = ['profile', 'spans', 'points', 'earliest µs', 'steps/query', 'add µs', 'remove µs', 'scan µs (baseline)', 'sorted insert µs (baseline)'];
  console.log(header.join(' | '));
  for (const r of results) {
    console.log([r.profile, r.spans, r.points, r.earliestUs.toFixed(2), r.meanSteps.toFixed(1), r.addUs.toFixed(2), r.removeUs.toFixed(2), r.baselineScanUs.toFixed(2), r.baselineSortedInsertUs.toFixed(2)].join(' | '));
  }
}
