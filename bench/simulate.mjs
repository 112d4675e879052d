// Simulator benchmark: wall time to replay all 10,000 jobs of ../shared/traces/lublin_256.swf
// on 256 processors with each queue policy, through the same scheduler code as the cluster.
// Baseline (same run): reading + parsing the trace and sorting its 20,000 events (arrivals and
// completions) by time — the work any trace replay does before scheduling anything.
// Targets (issue 4): conservative <= 3 s, easy <= 1 s. Skips with a message when the trace is absent.
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { simulate } from '../dist/sim/engine.js';
import { swfWorkload } from '../dist/sim/load.js';
import { createScheduler } from '../dist/sim/policy.js';
import { parseSwf } from '../dist/sim/swf.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TRACE = path.join(root, '..', 'shared', 'traces', 'lublin_256.swf');
const POLICIES = ['first-fit', 'fcfs', 'easy', 'conservative', 'hybrid'];
export const LIMITS = { easyMs: 1000, conservativeMs: 3000 };

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

export function runSimulateBench({ policies = POLICIES } = {}) {
  if (!existsSync(TRACE)) return { skipped: `trace ${TRACE} not found (it lives in ../shared/traces/)` };
  const base = baseline();
  const rows = [];
  for (const policy of policies) {
    const start = performance.now();
    const workload = swfWorkload(parseSwf(readFileSync(TRACE, 'utf8'), TRACE), TRACE, { procs: 256 });
    const result = simulate(workload, { scheduler: createScheduler({ policy }), queueDepth: 32 });
    const ms = performance.now() - start;
    const s = result.summary;
    rows.push({
      policy,
      ms,
      jobs: s.jobs,
      passes: s.passes,
      avgWait: s.avgWait,
      avgBoundedSlowdown: s.avgBoundedSlowdown,
      utilization: s.utilization,
      makespan: s.makespan,
    });
  }
  return { jobs: base.jobs, baselineMs: base.ms, rows, limits: LIMITS };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = runSimulateBench();
  if (result.skipped) {
    console.log(`simulate bench skipped: ${result.skipped}`);
  } else {
    console.log(`baseline (parse ${result.jobs} jobs + sort events): ${result.baselineMs.toFixed(1)} ms`);
    for (const r of result.rows) {
      console.log(
        `${r.policy.padEnd(12)} ${r.ms.toFixed(0).padStart(6)} ms  ${r.passes} passes  avg wait ${r.avgWait.toFixed(0)} s  ` +
          `avg bsld ${r.avgBoundedSlowdown.toFixed(2)}  util ${(r.utilization * 100).toFixed(1)}%  makespan ${r.makespan} s`,
      );
    }
  }
}
