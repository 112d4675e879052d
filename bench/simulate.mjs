// Simulator benchmark: replaying all 10,000 jobs of ../shared/traces/lublin_256.swf on 256
// processors with each queue policy, through the same scheduler code as the cluster.
// What is timed: in one process (no CLI start), reading the trace file, parsing it, building the
// workload and simulate() to its result; `simMs` is the simulate() call alone.
// Baseline (same run, interleaved): reading + parsing the trace and sorting its 20,000 events
// (arrivals and completions) by time — the work any trace replay does before scheduling anything.
// Per policy: one warm-up pair, then ROUNDS rounds of baseline and replay, alternating which goes
// first; min / median / max of each and the median of the per-round ratios; load average at the
// start and end of each policy's rounds.
// Targets (issue 16): easy <= 500 ms, conservative <= 1,000 ms (median). Skips with a message when the trace is absent.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { simulate } from '../dist/sim/engine.js';
import { swfWorkload } from '../dist/sim/load.js';
import { createScheduler } from '../dist/sim/policy.js';
import { parseSwf } from '../dist/sim/swf.js';
import { interleaveSync, stats } from './measure.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TRACE = path.join(root, '..', 'shared', 'traces', 'lublin_256.swf');
const POLICIES = ['first-fit', 'fcfs', 'easy', 'conservative', 'hybrid'];
export const LIMITS = { easyMs: 500, conservativeMs: 1000 };
const ROUNDS = 5;

function baseline() {
  const start = performance.now();
  const trace = parseSwf(readFileSync(TRACE, 'utf8'), TRACE);
  const events = new Float64Array(trace.jobs.length * 2);
  trace.jobs.forEach((job, i) => {
    events[2 * i] = job.submit;
    events[2 * i + 1] = job.submit + job.run;
  });
  events.sort();
  return { ms: performance.now() - start, jobs: trace.jobs.length };
}

function replay(policy) {
  const start = performance.now();
  const workload = swfWorkload(parseSwf(readFileSync(TRACE, 'utf8'), TRACE), TRACE, { procs: 256 });
  const simStart = performance.now();
  const result = simulate(workload, { scheduler: createScheduler({ policy }), queueDepth: 32 });
  const end = performance.now();
  return { ms: end - start, simMs: end - simStart, summary: result.summary };
}

const load1 = () => Number(os.loadavg()[0].toFixed(2));

export function runSimulateBench({ policies = POLICIES, rounds = ROUNDS } = {}) {
  if (!existsSync(TRACE)) return { skipped: `trace ${TRACE} not found (it lives in ../shared/traces/)` };
  const rows = [];
  let jobs = 0;
  for (const policy of policies) {
    const loadStart = load1();
    // bench/measure.mjs: a warm-up pair, then baseline and replay in alternating order.
    const replays = [];
    const r = interleaveSync(
      {
        replay: () => {
          const x = replay(policy);
          replays.push(x);
          return x.ms;
        },
        baseline: () => {
          const b = baseline();
          jobs = b.jobs;
          return b.ms;
        },
      },
      { rounds, warmup: 1 },
    );
    const runs = replays.slice(1);
    const s = runs[0].summary;
    rows.push({
      policy,
      rounds: r.rounds,
      ms: r.replay,
      simMs: stats(runs.map((x) => x.simMs)),
      baselineMs: r.baseline,
      ratio: r.ratio.baseline,
      loadAverage: { start: loadStart, end: load1() },
      jobs: s.jobs,
      passes: s.passes,
      avgWait: s.avgWait,
      avgBoundedSlowdown: s.avgBoundedSlowdown,
      utilization: s.utilization,
      makespan: s.makespan,
    });
  }
  return { jobs, rows, limits: LIMITS };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const only = process.argv.slice(2).filter((a) => POLICIES.includes(a));
  const result = runSimulateBench(only.length > 0 ? { policies: only } : {});
  if (result.skipped) {
    console.log(`simulate bench skipped: ${result.skipped}`);
  } else {
    const f = (x) => `${x.min.toFixed(0)} / ${x.median.toFixed(0)} / ${x.max.toFixed(0)} ms`;
    for (const r of result.rows) {
      console.log(
        `${r.policy.padEnd(12)} ${f(r.ms)} (simulate() ${f(r.simMs)})  baseline ${f(r.baselineMs)}  ratio ` +
          `${r.ratio.median.toFixed(1)}  ` +
          `${r.passes} passes  avg wait ${r.avgWait.toFixed(0)} s  load ${r.loadAverage.start} -> ${r.loadAverage.end}`,
      );
    }
  }
}
