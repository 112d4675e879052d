// Planner benchmark: µs of one Calendar.earliest query and of one Calendar.add / remove at
// 1,000 / 10,000 / 100,000 live spans of one 256-unit resource (target at 10,000: <= 10 µs).
// Three calendars per size:
//   load     spans at random times over a horizon sized for ~70% mean usage; queries from
//            random times (a worker or pool calendar as the controller sees it)
//   backlog  a packed FCFS list schedule of the whole stream starting at 0 (a deep queue
//            with every job reserved, as conservative backfill builds it); queries from 0,
//            (an FCFS list schedule leaves idle holes, found at once)
//   packed   the same stream, each job placed at its own earliest start from 0 (conservative
//            backfill's reservations: the holes are filled, so a query passes many gaps too
//            short for it — the adversarial case; 1k and 10k only, building it takes n
//            earliest queries)
// Each round (one warm-up round, then `rounds`), interleaved on the same calendar:
//   earliest     a batch of queries right after the previous round's adds and removes, so it
//                pays for re-summarizing the blocks they changed (the figure the target is on)
//   repeat       the same queries again on the unchanged calendar
//   scan         baseline: one linear scan of the span array per query (usage at one time —
//                the least an unindexed earliest query must do)
//   add          a batch of adds (removed again afterwards, timed as `remove`)
//   insert       baseline: inserting a span's two points into a sorted array
// Printed per figure: min / median / max of the per-call µs over the rounds, and the median
// of the per-round ratios to the baseline; the load average at the start and end of each size.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Calendar } from '../dist/cluster/scheduler/planner/index.js';
import { prng } from './prng.mjs';
import { stats } from './measure.mjs';

const TOTAL = 256; // units (processors of lublin_256)
const BATCH = 200;

/** Mostly narrow jobs, some wide; durations log-uniform from a minute to a day (seconds). */
function request(rand) {
  const amount = rand() < 0.8 ? 1 + Math.floor(rand() * 16) : 16 + Math.floor(rand() * 240);
  const duration = Math.floor(60 * Math.exp(rand() * Math.log(24 * 60)));
  return { amount, duration };
}

const median = (values) => stats(values).median;

/** Per-call µs of `body` run BATCH times. */
function batchUs(body) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) body(i);
  return Number(process.hrtime.bigint() - start) / 1000 / BATCH;
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
  const loadStart = os.loadavg();
  const rand = prng(n * 7 + Object.keys(PROFILES).indexOf(profile));
  const { spans, horizon } = PROFILES[profile](n, rand);
  const cal = new Calendar(TOTAL);
  for (const s of spans) cal.add(s.start, s.end, s.amount);
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
  let checksum = 0;
  const series = { earliest: [], repeat: [], scan: [], add: [], remove: [], insert: [] };
  let steps = 0;
  for (let r = 0; r <= rounds; r++) {
    const queries = Array.from({ length: BATCH }, () => ({
      from: profile === 'load' ? rand() * horizon : 0,
      ...request(rand),
    }));
    const adds = Array.from({ length: BATCH }, () => {
      const { amount, duration } = request(rand);
      const start = Math.floor(rand() * horizon);
      return { start, end: start + duration, amount };
    });
    const query = (i) => {
      const q = queries[i];
      checksum += cal.earliest(q.from, q.duration, q.amount);
    };
    const stepsBefore = cal.searchSteps;
    const earliest = batchUs(query);
    const stepsAfter = cal.searchSteps;
    const repeat = batchUs(query);
    const scan = batchUs((i) => {
      const t = queries[i].from;
      let used = 0;
      for (let k = 0; k < spans.length; k++) {
        const s = spans[k];
        if (s.start <= t && t < s.end) used += s.amount;
      }
      checksum += used;
    });
    const ids = [];
    const add = batchUs((i) => ids.push(cal.add(adds[i].start, adds[i].end, adds[i].amount)));
    const insert = batchUs((i) => {
      insertAt(adds[i].start);
      insertAt(adds[i].end);
    });
    points.length = n * 2;
    points.sort((a, b) => a - b);
    const remove = batchUs((i) => cal.remove(ids[i]));
    if (r === 0) continue; // warm-up
    steps += stepsAfter - stepsBefore;
    for (const [key, value] of Object.entries({ earliest, repeat, scan, add, remove, insert })) series[key].push(value);
  }
  if (cal.size !== n || Number.isNaN(checksum)) throw new Error('planner bench: calendar out of shape');
  const ratio = (a, b) => median(series[a].map((x, i) => x / series[b][i]));
  return {
    profile,
    spans: n,
    points: cal.points,
    rounds,
    earliestUs: median(series.earliest),
    earliest: stats(series.earliest),
    repeat: stats(series.repeat),
    meanSteps: steps / (BATCH * rounds),
    addUs: median(series.add),
    add: stats(series.add),
    removeUs: median(series.remove),
    remove: stats(series.remove),
    baselineScanUs: median(series.scan),
    scan: stats(series.scan),
    baselineSortedInsertUs: median(series.insert),
    insert: stats(series.insert),
    earliestVsScan: ratio('earliest', 'scan'),
    addVsInsert: ratio('add', 'insert'),
    loadavg: { start: loadStart.map((x) => x.toFixed(2)), end: os.loadavg().map((x) => x.toFixed(2)) },
  };
}

export function runPlannerBench({ rounds = 15 } = {}) {
  const results = [];
  for (const profile of ['load', 'backlog', 'packed']) {
    for (const n of profile === 'packed' ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
      results.push(measure(profile, n, n >= 100_000 ? Math.max(5, Math.floor(rounds / 2)) : rounds));
    }
  }
  return { results, limits: { at: 10_000, earliestUs: 10, addUs: 10 } };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { results } = runPlannerBench();
  const f = (x) => `${x.min.toFixed(2)} / ${x.median.toFixed(2)} / ${x.max.toFixed(2)}`;
  console.log(
    'profile | spans | points | earliest µs (min/median/max) | repeat µs | blocks/query | scan µs (baseline) | ' +
      'earliest/scan | add µs | remove µs | sorted insert µs (baseline) | add/insert | load avg start / end',
  );
  for (const r of results) {
    console.log(
      [
        r.profile,
        r.spans,
        r.points,
        f(r.earliest),
        f(r.repeat),
        r.meanSteps.toFixed(1),
        f(r.scan),
        r.earliestVsScan.toFixed(3),
        f(r.add),
        f(r.remove),
        f(r.insert),
        r.addVsInsert.toFixed(2),
        `${r.loadavg.start.join(' ')} / ${r.loadavg.end.join(' ')}`,
      ].join(' | '),
    );
  }
}
