// Dependencies benchmark (docs/benchmarks.md, "Dependencies"): what jobs waiting on dependencies
// cost a scheduling pass. A pass here is what the controller does each time: build the snapshot
// from the real store (dist/, an in-memory SQLite store) and run schedule() on it.
//
//   READY:   a store with 1,000 pending jobs (1 task each) that can be scheduled.
//   WAITING: the same 1,000 plus 9,000 pending jobs that wait (`--after`) on a running job:
//            10,000 pending jobs in all.
// Both stores have 4 workers of 4 CPUs and one running job. A round times BATCH passes on each
// store (the mean pass, so a pass of a few ms is not lost in timer noise), interleaved READY,
// WAITING, then WAITING, READY, … after 3 warm-up passes of each; ROUNDS >= 5; min / median / max
// of both and the median of the per-round ratios. Target: that median ratio <= 1.10.
// Both stores live in one process, so a full garbage collection of their shared heap lands in
// whichever batch happens to run then; each batch starts after a full collection (v8's gc(),
// exposed here) so it pays for its own garbage only.
//
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
//   node bench/dependencies.mjs      (or `node scripts/bench.js --only dependencies`)
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ClusterStore } from '../dist/cluster/state/store.js';
import { buildSnapshot } from '../dist/cluster/controller/snapshot.js';
import { schedule } from '../dist/cluster/scheduler/queue/first-fit.js';
import { interleaveSync } from './measure.mjs';

const READY = 1_000;
const WAITING = 9_000;
const TARGET_RATIO = 1.1;
const BATCH = 40;

function spec(name, after) {
  return {
    name,
    user: 'alice',
    command: ['true'],
    env: {},
    cwd: null,
    image: null,
    replicas: 1,
    resources: { cpuMillis: 1000, memoryBytes: 1 << 28, device: null },
    constraints: [],
    coschedule: null,
    maxRetries: 0,
    maxTaskFailures: 0,
    maxPreemptions: 0,
    timeoutMs: null,
    schedulingTimeoutMs: null,
    ...(after ? { after: [{ job: after, condition: 'ok' }] } : {}),
  };
}

function makeStore(waiting) {
  const store = ClusterStore.open({ path: ':memory:', now: () => 1_000 });
  store.syncWorkers(
    Array.from({ length: 4 }, (_, i) => ({
      id: `w${i}`,
      cpuMillis: 4000,
      memoryBytes: 8 * 2 ** 30,
      device: { type: 'cpu', variant: null, count: 0 },
      attributes: {},
    })),
  );
  store.submit(spec('/gate'));
  const a = store.assign('/gate/task-0', 'w0', '/dev/null');
  store.markRunning('/gate/task-0', a.attempt, 1);
  store.transaction(() => {
    for (let i = 0; i < READY; i++) store.submit(spec(`/ready-${i}`));
    for (let i = 0; i < waiting; i++) store.submit(spec(`/waiting-${i}`, '/gate'));
  });
  return store;
}

setFlagsFromString('--expose-gc');
/** A full garbage collection (v8's gc(), exposed with the flag above for a new context). */
const collect = runInNewContext('gc');

const quotas = new Map();
/** The mean time of `batch` passes on `store`, and the placements a pass plans (nothing is applied). */
function pass(store, batch = 1) {
  let plan;
  collect();
  const start = performance.now();
  for (let i = 0; i < batch; i++) plan = schedule(buildSnapshot(store, quotas, 2_000));
  const ms = (performance.now() - start) / batch;
  return { ms, placements: plan.placements.length };
}

export function runDependenciesBench({ rounds = 15 } = {}) {
  const ready = makeStore(0);
  const waiting = makeStore(WAITING);
  const placements = {};
  // Each side returns its own mean pass time (pass() collects garbage before it starts timing).
  const side = (name, store) => () => {
    const x = pass(store, BATCH);
    placements[name] = x.placements;
    return x.ms;
  };
  const r = interleaveSync({ waiting: side('waiting', waiting), ready: side('ready', ready) }, { rounds, warmup: 3 });
  const result = {
    pendingJobs: { ready: ready.pendingTasks().length, waiting: waiting.pendingTasks().length },
    placements: [placements.ready, placements.waiting],
    ready: r.ready,
    waiting: r.waiting,
    ratio: r.ratio.ready.median,
    target: TARGET_RATIO,
  };
  ready.close();
  waiting.close();
  result.ok = result.ratio <= TARGET_RATIO;
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = runDependenciesBench();
  const f = (s) =>
    `min ${s.min.toFixed(2)} / median ${s.median.toFixed(2)} / max ${s.max.toFixed(2)} ms (${s.n} rounds of ${BATCH}` +
    ` passes)`;
  console.log(`pass over ${r.pendingJobs.ready} pending jobs, all ready: ${f(r.ready)}`);
  console.log(`pass over ${r.pendingJobs.waiting} pending jobs, ${WAITING} waiting on dependencies: ${f(r.waiting)}`);
  console.log(
    `median per-round ratio ${r.ratio.toFixed(3)} (target <= ${TARGET_RATIO}); placements per pass ` +
      `${r.placements.join(' / ')}: ${r.ok ? 'ok' : 'MISSED'}`,
  );
}
