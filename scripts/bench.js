#!/usr/bin/env node
// `npm run bench` (not part of `npm test`): runs the benchmarks against the built dist/ and
// prints one table with the measured figures, their in-run baselines and the targets.
//   bench/schedule.mjs  one scheduling pass (10k x 1k, 100k x 10k)
// bench/placement.mjs one pass with adaptive placement vs the first-fit pass, interleaved (10k x 1k, 100k x 10k; priced
// per machine type and per machine)
//   bench/policies.mjs  queue-policy passes (1k/10k jobs x 1k workers), a lublin_256 queue loop
// bench/dependencies.mjs a pass with 10,000 pending jobs, 9,000 waiting on dependencies, vs one over the 1,000 ready
// ones
//   bench/chains.mjs    `iris submit -f` of a 10,000-stage chain vs 10,000 independent stages; 1k/10k/100k scaling
//   bench/planner.mjs   planner: one earliest query / one span add at 1k-100k spans
//   bench/spawn.mjs     the process runtime's spawn rate vs spawning directly
//   bench/cluster.mjs   a real local cluster: task throughput, `iris jobs`, memory
// bench/memory.mjs the cluster's RSS, fresh cluster per case: 100,000 pending tasks known; 2,000 finished trivial
//                       tasks; idle RSS with 100,000 finished one-task jobs (and after a restart) vs an idle
//                       fresh cluster
//   bench/load.mjs      2,000 submissions from 20 concurrent clients: rate, p50/p99 latency, peak RSS; 20,000
//                       pending (the controller's CPU for the last 1,000 against the first 1,000); 100,000
//                       one-task jobs from 20 clients: rate of the first vs the last 10,000, peak RSS
//   bench/quiet.mjs     quiet one-task jobs vs one-line ones: files and state.db bytes per task, task rate
// bench/tree.mjs job trees: a waiting parent's 4 x `sleep 2` on 2 CPUs vs its floor; a 200-child fan-out vs raw spawn
//   bench/docker.mjs    container tasks via the Docker runtime vs `docker run --rm` (needs an engine)
//   bench/logs.mjs      a 200 MB log through `iris logs` vs `cat`; controller RSS while 4 clients follow a 200 MB task
//   bench/dashboard.mjs the dashboard in chromium: first render with 10,000 jobs known vs `iris jobs`; controller
//                       RSS growth with 5 pages open on a busy cluster; a 200 MB log followed in the page
//   bench/simulate.mjs  iris simulate: lublin_256.swf (10,000 jobs) with each queue policy
//   bench/queues.mjs    two named queues vs one (10k x 1k, 100k x 10k); merging on vs off (10k x 1k)
//   bench/priorities.mjs  one easy pass with bands, quotas and preemption vs off (and vs the build before
//                       bands with BENCH_PRIORITIES_BASELINE=DIR), 10k x 1k and 100k x 10k
//   bench/kube.mjs      (only with --only kube) 1,000 pods bound by iris vs by kube-scheduler on one API server;
//                       BENCH_KUBE_CASE=fleet: 10,000 pods on 1,000 nodes, controller peak RSS <= 300 MB
// Build first (npm ci / npm test do): npm run build (tsc, the manifest, the oclif bundle)
// Flags: --only schedule,priorities,queues,placement,dependencies,chains,planner,spawn,cluster,memory,quiet,load,
//   tree,simulate,docker,logs,dashboard
// --json
// (print the raw results as JSON too)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAverage } from '../bench/measure.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? '').split(',')) : null;
const wantJson = args.includes('--json');

if (!existsSync(path.join(root, 'dist', 'cluster'))) {
  console.error('dist/ is missing: build first with `node_modules/.bin/tsc -p tsconfig.build.json`');
  process.exit(1);
}

const log = (message) => process.stderr.write(`${message}\n`);
const rows = [];
const raw = {};
const loads = {};
let failed = 0;

const fmt = (n, digits = 1) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : String(n));
function row(metric, value, baseline, target, ok) {
  rows.push({ metric, value, baseline, target, verdict: ok === null ? '-' : ok ? 'ok' : 'MISSED' });
}

async function load(file, exportName) {
  const full = path.join(root, 'bench', file);
  if (!existsSync(full)) return null;
  const mod = await import(pathToFileURL(full).href);
  return typeof mod[exportName] === 'function' ? mod[exportName] : null;
}

async function section(name, file, exportName, run) {
  if (only && !only.has(name)) return;
  try {
    const fn = await load(file, exportName);
    if (!fn) {
      row(`${name}: bench/${file}`, 'not available', '-', '-', null);
      return;
    }
    log(`bench: ${name}…`);
    const start = loadAverage();
    let result;
    try {
      result = await fn(
        ['cluster', 'memory', 'quiet', 'load', 'tree', 'logs', 'dashboard', 'chains'].includes(name)
          ? { log }
          : undefined,
      );
    } finally {
      // Every section says how busy the machine was while it ran (1/5/15 min load average).
      loads[name] = { start, end: loadAverage() };
    }
    raw[name] = result;
    run(result);
  } catch (error) {
    failed++;
    row(`${name}: error`, String(error?.message ?? error).slice(0, 120), '-', '-', false);
  }
  if (loads[name])
    row(
      `${name}: load average (1/5/15 min) at start / end`,
      `${loads[name].start.join(' ')} / ${loads[name].end.join(' ')}`,
      '-',
      '-',
      null,
    );
}

await section('schedule', 'schedule.mjs', 'runScheduleBench', (r) => {
  row(
    'schedule pass, 10k tasks x 1k workers (median)',
    `${fmt(r.small.scheduleMs, 2)} ms`,
    `sort ${fmt(r.small.baselineSortMs, 2)} ms`,
    `<= ${r.limits.smallMs} ms`,
    r.small.scheduleMs <= r.limits.smallMs,
  );
  row(
    'schedule pass, 100k tasks x 10k workers (median)',
    `${fmt(r.large.scheduleMs, 2)} ms`,
    `sort ${fmt(r.large.baselineSortMs, 2)} ms`,
    `<= ${r.limits.largeMs} ms`,
    r.large.scheduleMs <= r.limits.largeMs,
  );
  for (const [label, x] of [
    ['10k x 1k', r.small],
    ['100k x 10k', r.large],
  ]) {
    // Only with BENCH_SCHEDULE_BASELINE=DIR: the pass of an earlier build, interleaved in the same rounds.
    if (x.before)
      row(
        `schedule pass ${label} vs the build in ${x.before.dir} (median per-round ratio)`,
        `x${fmt(x.before.ratio.median, 3)}`,
        `before ${fmt(x.before.ms.median, 2)} ms`,
        '<= x1.10',
        x.before.ratio.median <= 1.1,
      );
  }
});

await section('priorities', 'priorities.mjs', 'runPrioritiesBench', (r) => {
  // bench/priorities.mjs: the same snapshot (bands, quotas, running tasks with start times) with preemption off, and
  // with BENCH_PRIORITIES_BASELINE the pass of the build before bands; interleaved, median per-round ratio.
  for (const m of [r.small, r.large]) {
    const label = `easy pass with bands, quotas and preemption, ${m.tasks} tasks x ${m.workers} workers`;
    row(
      `${label} vs preemption off`,
      `${fmt(m.all.median, 2)} ms (x${fmt(m.vsOff.median, 3)})`,
      `${fmt(m.off.median, 2)} ms`,
      '-',
      null,
    );
    if (m.before)
      row(
        `${label} vs the build in ${m.before.dir}`,
        `x${fmt(m.before.ratio.median, 3)}`,
        `${fmt(m.before.ms.median, 2)} ms`,
        `<= x${r.limits.ratio}`,
        m.before.ratio.median <= r.limits.ratio,
      );
  }
});

await section('queues', 'queues.mjs', 'runQueuesBench', (r) => {
  // bench/queues.mjs: two named queues (easy on a third of the workers, first-fit on all) vs one queue on the same
  // snapshot; an adaptive pass with merge groups, merging on vs off. Interleaved, median per-round ratio.
  for (const m of [r.small, r.large]) {
    row(
      `easy pass, two named queues vs one, ${m.tasks} tasks x ${m.workers} workers`,
      `${fmt(m.two.median, 2)} ms (x${fmt(m.queuesRatio.median, 3)})`,
      `${fmt(m.one.median, 2)} ms`,
      `<= x${r.limits.queuesRatio}`,
      m.queuesRatio.median <= r.limits.queuesRatio,
    );
    if (m.mergeRatio)
      row(
        `adaptive pass, merging on vs off, ${m.tasks} tasks x ${m.workers} workers`,
        `${fmt(m.mergeOn.median, 2)} ms (x${fmt(m.mergeRatio.median, 3)})`,
        `${fmt(m.mergeOff.median, 2)} ms`,
        `<= x${r.limits.mergeRatio}`,
        m.mergeRatio.median <= r.limits.mergeRatio,
      );
  }
});

await section('placement', 'placement.mjs', 'runPlacementBench', (r) => {
  // bench/placement.mjs: adaptive vs first-fit schedule() on the same snapshot, interleaved (A B, B A, …); median
  // per-round ratio.
  // The target applies to the rows priced per machine type; the per-machine rows (a random price per worker) are
  // reported only.
  for (const x of r.rows) {
    const targeted = x.pricing === r.limits.appliesTo;
    row(
      `adaptive placement pass, priced ${x.pricing.replace('-', ' ')}, ${x.tasks} tasks x ${x.workers} workers ` +
        `(median of ${x.rounds})`,
      `${fmt(x.adaptiveMs.median, 2)} ms (x${fmt(x.ratio.median, 2)})`,
      `first-fit ${fmt(x.firstFitMs.median, 2)} ms`,
      targeted ? `<= x${r.limits.ratio}` : '-',
      targeted ? x.ratio.median <= r.limits.ratio : null,
    );
  }
});
await section('dependencies', 'dependencies.mjs', 'runDependenciesBench', (r) => {
  // bench/dependencies.mjs: snapshot + schedule() on the real store; 9,000 of 10,000 pending jobs wait on a dependency.
  const f = (s) => `${fmt(s.min, 2)} / ${fmt(s.median, 2)} / ${fmt(s.max, 2)} ms`;
  row(
    `pass, ${r.pendingJobs.waiting} pending jobs, 9,000 waiting on dependencies (min/median/max)`,
    f(r.waiting),
    `1,000 ready: ${f(r.ready)}`,
    `<= ready x ${r.target}`,
    r.ok,
  );
});

await section('chains', 'chains.mjs', 'runChainsBench', (r) => {
  // bench/chains.mjs: `iris submit -f` of a 10,000-stage chain vs 10,000 independent stages, fresh cluster each.
  const f = (s) => `${fmt(s.min, 2)} / ${fmt(s.median, 2)} / ${fmt(s.max, 2)} s`;
  row(
    `chains: iris submit -f, ${r.stages}-stage chain (min/median/max, ${r.rounds} rounds; ratio ${fmt(r.ratio, 2)})`,
    f(r.chain),
    `${r.stages} independent stages: ${f(r.free)}`,
    `<= ${r.targetS} s, <= x${r.targetRatio}`,
    r.ok,
  );
  for (const s of r.scaling)
    row(
      `chains: a chain of ${s.stages} stages admitted, controller VmHWM (once)`,
      `${fmt(s.seconds, 2)} s, ${fmt(s.hwmMB, 0)} MB`,
      '-',
      '-',
      null,
    );
});

await section('planner', 'planner.mjs', 'runPlannerBench', (r) => {
  // bench/planner.mjs: Calendar.earliest / add on a 256-unit resource, interleaved with the baselines each round.
  const f = (x) => `${fmt(x.min, 2)} / ${fmt(x.median, 2)} / ${fmt(x.max, 2)} µs`;
  for (const x of r.results) {
    const target = x.spans === r.limits.at ? `<= ${r.limits.earliestUs} µs` : '-';
    const ok = x.spans === r.limits.at ? x.earliestUs <= r.limits.earliestUs : null;
    row(
      `planner earliest after 400 changes, ${x.spans} spans, ${x.profile} (min/median/max, ${fmt(x.meanSteps, 1)}` +
        ` blocks; unchanged: ${f(x.repeat)})`,
      `${f(x.earliest)} (x${fmt(x.earliestVsScan, 3)})`,
      `scan ${f(x.scan)}`,
      target,
      ok,
    );
  }
  for (const x of r.results.filter((y) => y.profile === 'load')) {
    const target = x.spans === r.limits.at ? `<= ${r.limits.addUs} µs` : '-';
    const ok = x.spans === r.limits.at ? x.addUs <= r.limits.addUs : null;
    row(
      `planner add, ${x.spans} spans (min/median/max; remove ${f(x.remove)})`,
      `${f(x.add)} (x${fmt(x.addVsInsert, 2)})`,
      `sorted insert ${f(x.insert)}`,
      target,
      ok,
    );
  }
  for (const x of r.results.filter((y) => y.spans === r.limits.at)) {
    row(
      `planner: load average (1/5/15 min) at start / end, ${x.profile} ${x.spans}`,
      `${x.loadavg.start.join(' ')} / ${x.loadavg.end.join(' ')}`,
      '-',
      '-',
      null,
    );
  }
});

await section('policies', 'policies.mjs', 'runPoliciesBench', (r) => {
  // bench/policies.mjs: one QueueScheduler pass; baseline the first-fit schedule() pass on the same snapshot.
  for (const m of [r.small, r.large]) {
    for (const policy of ['easy', 'conservative']) {
      row(
        `${policy} pass, ${m.jobs} pending jobs x ${m.workers} workers (median of ${m.rounds}, interleaved)`,
        `${fmt(m[policy].ms, 2)} ms (x${fmt(m[policy].vsFirstFit.median, 2)})`,
        `first-fit ${fmt(m.firstFitMs, 2)} ms`,
        '-',
        null,
      );
    }
  }
  if (!r.simulation) {
    row('simulate lublin_256.swf', `skipped: ${r.traceFile} not found`, '-', '-', null);
  } else {
    const { easy, conservative } = r.simulation;
    row(
      `queue loop over lublin_256.swf (${easy.jobs} jobs, 256 procs), easy`,
      `${fmt(easy.ms, 0)} ms`,
      '-',
      `<= ${r.limits.easySimMs} ms`,
      easy.ms <= r.limits.easySimMs,
    );
    row(
      `queue loop over lublin_256.swf (${conservative.jobs} jobs, 256 procs), conservative`,
      `${fmt(conservative.ms, 0)} ms`,
      '-',
      `<= ${r.limits.conservativeSimMs} ms`,
      conservative.ms <= r.limits.conservativeSimMs,
    );
  }
});

await section('spawn', 'spawn.mjs', 'runSpawnBench', (r) => {
  // bench/spawn.mjs: raw child_process vs execa vs the ProcessRuntime, interleaved rounds; ratios are medians of
  // per-round ratios.
  if (typeof r?.runtimeVsRaw === 'number') {
    row(
      `process runtime spawn of /bin/true (x${r.concurrency}, median of ${r.rounds})`,
      `${fmt(r.runtime.perSec, 0)} tasks/s (ratio ${fmt(r.runtimeVsRaw, 2)})`,
      `raw ${fmt(r.raw.perSec, 0)} tasks/s`,
      '>= 0.6 x raw',
      r.runtimeVsRaw >= 0.6,
    );
    row(
      `execa spawn of /bin/true (x${r.concurrency})`,
      `${fmt(r.execa.perSec, 0)} tasks/s (ratio ${fmt(r.execaVsRaw, 2)})`,
      `raw ${fmt(r.raw.perSec, 0)} tasks/s`,
      '-',
      null,
    );
  } else {
    row('spawn bench', JSON.stringify(r).slice(0, 120), '-', '-', null);
  }
});

await section('cluster', 'cluster.mjs', 'runClusterBench', (r) => {
  // Throughput and the short job: interleaved rounds (bench/cluster.mjs); medians, ratio = median of per-round ratios.
  const mmm = (x, digits = 0) => `${fmt(x.min, digits)}/${fmt(x.median, digits)}/${fmt(x.max, digits)}`;
  const load = (l) => `load ${l.start.join(' ')} -> ${l.end.join(' ')}`;
  const base =
    `${fmt(r.baseline.rate.median, 0)} tasks/s (spawn /bin/true x${r.concurrency}; min/med/max s ` +
    `${mmm(r.baseline.seconds, 2)}; ${load(r.throughputLoad)})`;
  for (const [label, x] of [
    ['1 job x 1000 replicas', r.oneJob],
    ['200 jobs x 5 replicas', r.manyJobs],
  ]) {
    row(
      `cluster: ${label} of \`true\`, ${x.rounds} rounds`,
      `${fmt(x.rate.median, 0)} tasks/s (s ${mmm(x.seconds, 2)}; ratio ${fmt(x.ratio, 2)})`,
      base,
      '>= 0.8 x baseline',
      x.ratio >= 0.8,
    );
  }
  // The same rounds against the wrapper floor (bench/wrapper-floor.mjs): an attempt's wrapper, cgroups and files, no
  // controller.
  const wf = r.wrapperFloor;
  row(
    `cluster vs the wrapper floor (${wf.cgroups} cgroups per attempt; floor / raw ${fmt(wf.ratio, 2)})`,
    `ratio ${fmt(r.oneJob.wrappedRatio, 2)} (1 x 1000), ${fmt(r.manyJobs.wrappedRatio, 2)} (200 x 5)`,
    `wrapper floor ${fmt(wf.rate.median, 0)} tasks/s (s ${mmm(wf.seconds, 2)})`,
    '-',
    null,
  );
  const sj = r.shortJob;
  row(
    `cluster: one \`true\` job submit..SUCCEEDED over the socket (${sj.samples} runs)`,
    `${fmt(sj.ms.median, 1)} ms (min/med/max ${mmm(sj.ms, 1)}; ratio ${fmt(sj.ratio, 1)})`,
    `raw spawn of /bin/true ${fmt(sj.rawSpawnMs.median, 1)} ms (${load(sj.load)})`,
    '<= 20 ms',
    sj.ms.median <= 20,
  );
  // bench/cluster.mjs (c): `bin/iris jobs` interleaved with `node -e 0` of the same Node; min/median/max, median
  // per-round ratio.
  const jobsRows = (j, known) => {
    row(
      `\`iris jobs\` (bin/iris, Node ${j.node}${j.oclifBundled ? '' : ', oclif NOT bundled: run npm run build'}), ` +
        `${known} (min/median/max of ${j.runs})`,
      `${fmt(j.minMs, 0)} / ${fmt(j.medianMs, 0)} / ${fmt(j.maxMs, 0)} ms`,
      `node -e 0: ${fmt(j.bareNode.minMs, 0)} / ${fmt(j.bareNode.medianMs, 0)} / ${fmt(j.bareNode.maxMs, 0)}` +
        ` ms (ratio ${fmt(j.medianRatio, 2)})`,
      '<= 120 ms median',
      j.medianMs <= 120,
    );
    row(
      `\`iris jobs\`, ${known}: load average (1/5/15 min) at start / end`,
      `${j.loadavg.start.join(' ')} / ${j.loadavg.end.join(' ')}`,
      '-',
      '-',
      null,
    );
  };
  jobsRows(r.jobsCommand, `${r.jobsCommand.jobsKnown} jobs`);
  jobsRows(r.jobsCommandLarge, `${r.memory.tasksKnown} tasks known`);
  // Reported only: this cluster has also run the throughput rounds; the memory targets apply to bench/memory.mjs (fresh
  // clusters).
  row(
    `cluster RSS with ${r.memory.tasksKnown} tasks known (settled), after the rounds above`,
    `${fmt(r.memory.rssMB, 0)} MB`,
    `before: ${fmt(r.memory.idleRssMB, 0)} MB`,
    '-',
    null,
  );
  row(
    'cluster RSS right after submitting them / peak (VmHWM) of this whole run',
    `${fmt(r.memory.rssAfterSubmitMB, 0)} MB / ${fmt(r.memory.hwmMB, 0)} MB`,
    '-',
    '-',
    null,
  );
});

await section('memory', 'memory.mjs', 'runMemoryBench', (r) => {
  // bench/memory.mjs: each case on a fresh cluster; VmHWM is the peak of that case only.
  const k = r.known;
  row(
    `memory: ${k.tasksKnown} tasks known (${k.pendingTasks} pending), peak VmHWM`,
    `${fmt(k.hwmMB, 0)} MB (settled VmRSS ${fmt(k.rssMB, 0)} MB)`,
    `idle ${fmt(k.idleRssMB, 0)} MB`,
    '<= 150 MB',
    k.hwmMB <= 150,
  );
  row(
    'memory: load average (1/5/15 min) at start / end of (a)',
    `${k.loadavg.start.join(' ')} / ${k.loadavg.end.join(' ')}`,
    '-',
    '-',
    null,
  );
  const f = r.finished;
  // The target is the peak (VmHWM over the case, the burst included); the RSS at the end event and 1 s later (quiet)
  // beside it.
  row(
    `memory: ${f.tasks} finished trivial tasks, peak VmHWM`,
    `${fmt(f.hwmMB, 0)} MB (VmRSS at the end ${fmt(f.rssAtEndMB, 0)} MB, 1 s later ${fmt(f.rssMB, 0)} MB)`,
    `idle ${fmt(f.idleRssMB, 0)} MB`,
    '<= 100 MB',
    f.hwmMB <= 100,
  );
  row(
    'memory: load average (1/5/15 min) at start / end of (b)',
    `${f.loadavg.start.join(' ')} / ${f.loadavg.end.join(' ')}`,
    '-',
    '-',
    null,
  );
  const j = r.finishedJobs;
  if (j) {
    row(
      `memory: idle RSS with ${j.jobs} finished jobs (after a restart)`,
      `${fmt(j.idleRssMB, 0)} MB (${fmt(j.restartedRssMB, 0)} MB; peak ${fmt(j.hwmMB, 0)} MB)`,
      `idle fresh cluster ${fmt(j.baselineRssMB.before, 0)} / ${fmt(j.baselineRssMB.after, 0)} MB`,
      '<= 150 MB',
      j.idleRssMB <= 150 && j.restartedRssMB <= 150,
    );
    row(
      'memory: load average (1/5/15 min) at start / end of (c)',
      `${j.loadavg.start.join(' ')} / ${j.loadavg.end.join(' ')}`,
      '-',
      '-',
      null,
    );
  }
  for (const [name, c] of [
    ['(a)', k],
    ['(b)', f],
  ]) {
    if (!c.spawner) continue;
    row(
      `memory: ${name} resident spawner VmRSS / VmHWM; PSS spawner + controller`,
      `${fmt(c.spawner.rssMB, 0)} / ${fmt(c.spawner.hwmMB, 0)} MB; ${fmt(c.spawner.pssMB, 0)} + ` +
        `${fmt(c.spawner.controllerPssMB, 0)} MB`,
      '-',
      '-',
      null,
    );
  }
});

await section('quiet', 'quiet.mjs', 'runQuietBench', (r) => {
  // bench/quiet.mjs: quiet one-task jobs vs one-line ones, interleaved on one cluster; disk growth per task.
  const q = r.files.quiet;
  const l = r.files.loud;
  row(
    `quiet: files per quiet task (${r.tasksPerSide} one-task jobs of \`true\`)`,
    `${fmt(q.bytesPerTask, 0)} B, ${fmt(q.entriesPerTask, 2)} entries`,
    `one line: ${fmt(l.bytesPerTask, 0)} B, ${fmt(l.entriesPerTask, 2)} entries`,
    '<= 1024 B',
    q.bytesPerTask <= 1024,
  );
  row(
    `quiet: state.db per finished task (${r.stateDb.tasks} tasks, after VACUUM)`,
    `${fmt(r.stateDb.bytesPerTask, 0)} B`,
    `whole file ${fmt(r.stateDb.fileBytesPerTask, 0)} B`,
    '<= 400 B',
    r.stateDb.bytesPerTask <= 400,
  );
  row(
    'quiet: task rate, quiet vs one-line jobs (median round; per-round time ratio)',
    `${fmt(r.throughput.quietTasksPerSec, 1)} tasks/s (x${fmt(r.times.ratio.median, 2)})`,
    `${fmt(r.throughput.loudTasksPerSec, 1)} tasks/s`,
    '-',
    null,
  );
});

await section('load', 'load.mjs', 'runLoadBenches', (r) => {
  // bench/load.mjs: submissions only (the jobs wait behind a busy worker); latency per request in the client.
  row(
    `load: ${r.submissions} submissions from ${r.clients} concurrent clients`,
    `${fmt(r.rate, 0)} jobs/s (${fmt(r.seconds, 1)} s)`,
    '-',
    '-',
    null,
  );
  row(
    'load: submission latency p50 / p99 / max',
    `${fmt(r.latencyMs.p50, 1)} / ${fmt(r.latencyMs.p99, 1)} / ${fmt(r.latencyMs.max, 1)} ms`,
    '-',
    '-',
    null,
  );
  row(
    `load: controller peak RSS (VmHWM) with ${r.submissions} jobs pending`,
    `${fmt(r.memory.hwmMB, 0)} MB`,
    `before: ${fmt(r.memory.idleRssMB, 0)} MB`,
    '-',
    null,
  );
  const d = r.deep;
  if (d) {
    // The same run's first 1,000 submissions (an empty queue) are the baseline of its last (a deep one).
    const ratio = d.cpu.lastSeconds / d.cpu.firstSeconds;
    row(
      `load: ${d.submissions} pending submissions, controller CPU for the last ${d.cpu.window}`,
      `${fmt(d.cpu.lastSeconds, 2)} CPU-s (x${fmt(ratio, 2)} the first's; ${fmt(d.rate, 0)} jobs/s overall)`,
      `first ${d.cpu.window}: ${fmt(d.cpu.firstSeconds, 2)} CPU-s`,
      '<= x1.3',
      ratio <= 1.3,
    );
  }
  const m = r.many;
  if (!m) return;
  // The same run's first window is the baseline of its last: the rate holds when last / first <= 1.3 (in time).
  row(
    `load: ${m.jobs} one-task jobs from ${m.clients} clients, rate of the last ${m.window}`,
    `${fmt(m.last.rate, 0)} jobs/s (${fmt(m.last.seconds, 1)} s; x${fmt(m.ratio, 2)} the first's time)`,
    `first ${m.window}: ${fmt(m.first.rate, 0)} jobs/s (${fmt(m.first.seconds, 1)} s)`,
    '<= x1.3',
    m.holds,
  );
  // The cluster's CPU seconds per window (controller, spawner and the tasks they reaped): the work per job,
  // which other load on the machine does not change.
  row(
    `load: ${m.jobs} one-task jobs, cluster CPU for the last ${m.window}`,
    `${fmt(m.last.cpuSeconds, 1)} CPU-s (x${fmt(m.cpuRatio, 2)} the first's)`,
    `first ${m.window}: ${fmt(m.first.cpuSeconds, 1)} CPU-s`,
    '<= x1.3',
    m.cpuHolds,
  );
  row(
    `load: ${m.jobs} one-task jobs, controller peak RSS (VmHWM); RSS once all ended`,
    `${fmt(m.memory.hwmMB, 0)} MB; ${fmt(m.memory.rssEndedMB, 0)} MB`,
    `before: ${fmt(m.memory.idleRssMB, 0)} MB`,
    '-',
    null,
  );
  row(
    `load: ${m.jobs} one-task jobs, load average (1/5/15 min) at start / end`,
    `${m.loadavg.start.join(' ')} / ${m.loadavg.end.join(' ')}`,
    '-',
    '-',
    null,
  );
});

await section('tree', 'tree.mjs', 'runTreeBench', (r) => {
  // bench/tree.mjs: (a) parent + 4 children of `sleep 2` on one 2-CPU worker vs 2 rounds of 2 direct sleeps;
  // (b) a parent fanning out 200 children of `true` vs spawning /bin/true directly, interleaved rounds.
  const w = r.wait;
  const span = (s, digits, unit) =>
    `${fmt(s.median, digits)} ${unit} (min ${fmt(s.min, digits)}, max ${fmt(s.max, digits)})`;
  row(
    `tree: parent (1 CPU) + 4 children of \`sleep 2\` on 2 CPUs, submit..SUCCEEDED (median of ${w.rounds})`,
    span(w.tree, 2, 's'),
    `floor ${span(w.floor, 2, 's')}`,
    `<= ${w.targetS} s`,
    w.ok,
  );
  row(
    `tree: the same parent submitting its 4 children by the socket API from one process (median of ${w.rounds})`,
    span(w.api, 2, 's'),
    `floor ${span(w.floor, 2, 's')}`,
    '-',
    null,
  );
  row(
    'tree: load average (1/5/15 min) at start / end of (a)',
    `${w.loadavg.start.join(' ')} / ${w.loadavg.end.join(' ')}`,
    '-',
    '-',
    null,
  );
  const f = r.fanout;
  row(
    `tree: parent fans out ${f.children} children of \`true\` and waits (x${f.concurrency}, median of ${f.rounds})`,
    `${span(f.tree, 0, 'tasks/s')} ratio ${fmt(f.ratio.median, 2)}`,
    `raw ${span(f.raw, 0, 'tasks/s')}`,
    '-',
    null,
  );
  row(
    'tree: load average (1/5/15 min) at start / end of (b)',
    `${f.loadavg.start.join(' ')} / ${f.loadavg.end.join(' ')}`,
    '-',
    '-',
    null,
  );
});

await section('logs', 'logs.mjs', 'runLogsBench', (r) => {
  // bench/logs.mjs: (a) 4 followers of a task writing SIZE_MB; (b) `iris logs` vs `cat` interleaved; (c) 2-byte lines.
  const span = (s) => `${fmt(s.median, 1)} MB/s (min ${fmt(s.min, 1)}, max ${fmt(s.max, 1)})`;
  const f = r.follow;
  row(
    `logs: controller RSS growth while ${f.followers} clients follow a task writing ${f.sizeMb} MB (${r.line.bytes}` +
      `-byte lines)`,
    `+${fmt(f.rssGrowthMB, 0)} MB (VmHWM ${fmt(f.hwmMB, 0)} MB)`,
    `idle ${fmt(f.idleRssMB, 0)} MB`,
    `<= ${r.targets.growthMB} MB`,
    f.rssGrowthMB <= r.targets.growthMB,
  );
  row(
    `logs: \`iris logs\` of ${r.read.outputMb} MB (${r.line.bytes}-byte lines) to /dev/null (median of ` +
      `${r.read.iris.n})`,
    span(r.read.iris),
    `cat ${span(r.read.cat)}`,
    `>= ${r.targets.mbps} MB/s`,
    r.read.iris.median >= r.targets.mbps,
  );
  row(
    'logs: controller RSS growth while serving those reads',
    `+${fmt(r.read.rssGrowthMB, 0)} MB`,
    `idle ${fmt(r.read.idleRssMB, 0)} MB`,
    `<= ${r.targets.growthMB} MB`,
    r.read.rssGrowthMB <= r.targets.growthMB,
  );
  row(
    `logs: \`iris logs\` of ${r.yes.outputMb} MB of 2-byte lines (\`yes\`) (median of ${r.yes.iris.n})`,
    span(r.yes.iris),
    `cat ${span(r.yes.cat)}`,
    '-',
    null,
  );
  row(
    'logs: on-disk size / output, 80-byte lines and 2-byte lines',
    `${fmt(r.diskRatio, 3)} / ${fmt(r.yesDiskRatio, 3)}`,
    '-',
    '-',
    null,
  );
});

await section('dashboard', 'dashboard.mjs', 'runDashboardBench', (r) => {
  // bench/dashboard.mjs: (a) first render with JOBS jobs known vs `iris jobs`; (b) RSS with 5 pages open.
  const ms = (x) => `${fmt(x.min, 0)} / ${fmt(x.median, 0)} / ${fmt(x.max, 0)} ms`;
  const f = r.firstRender;
  row(
    `dashboard: first render of the jobs view, ${r.jobs} jobs known (min / median / max of ${f.page.n})`,
    `${ms(f.page)} (x${fmt(f.ratio.median, 2)})`,
    `iris jobs ${ms(f.irisJobs)}`,
    '<= 3000 ms',
    f.page.median <= 3000,
  );
  const m = r.memory;
  row(
    `dashboard: controller RSS growth with 5 pages open on a busy cluster (median of ${m.growth.n})`,
    `+${fmt(m.growth.median, 0)} MB (min ${fmt(m.growth.min, 0)}, max ${fmt(m.growth.max, 0)})`,
    `no page ${fmt(m.none.median, 0)} MB`,
    '<= 64 MB',
    m.growth.median <= 64,
  );
  const b = r.bigLog;
  row(
    `dashboard: a ${b.mb} MB log followed live, gate to last line on screen (min / median / max of ${b.page.n})`,
    `${ms(b.page)} (x${fmt(b.ratio.median, 2)})`,
    `iris logs -f ${ms(b.cli)}`,
    '-',
    null,
  );
  row(
    `dashboard: the page's longest frame gap while that log streams (median of ${b.maxGap.n}; p99 gap, JS heap)`,
    `${fmt(b.maxGap.median, 0)} ms (p99 ${fmt(b.p99Gap.median, 0)} ms, heap ${fmt(b.heapMB.median, 0)} MB)`,
    '-',
    '<= 500 ms',
    b.maxGap.median <= 500,
  );
});

await section('simulate', 'simulate.mjs', 'runSimulateBench', (r) => {
  if (r.skipped) {
    row('simulate lublin_256.swf', 'skipped', '-', '-', null);
    log(`bench: simulate skipped: ${r.skipped}`);
    return;
  }
  // bench/simulate.mjs: in-process replay (read + parse + simulate), interleaved with the parse + sort baseline; min /
  // median / max.
  const span = (x) => `${fmt(x.min, 0)} / ${fmt(x.median, 0)} / ${fmt(x.max, 0)} ms`;
  for (const p of r.rows) {
    const limit = p.policy === 'easy' ? r.limits.easyMs : p.policy === 'conservative' ? r.limits.conservativeMs : null;
    row(
      `simulate lublin_256.swf (${r.jobs} jobs, 256 procs), ${p.policy}, min / median / max of ${p.rounds} (load ` +
        `${p.loadAverage.start} -> ${p.loadAverage.end})`,
      `${span(p.ms)} (x${fmt(p.ratio.median, 1)})`,
      `parse + sort events ${span(p.baselineMs)}`,
      limit === null ? '-' : `<= ${limit} ms`,
      limit === null ? null : p.ms.median <= limit,
    );
  }
});

await section('docker', 'docker.mjs', 'runDockerBench', (r) => {
  if (r.skipped) {
    row('docker: skipped', r.skipped.slice(0, 120), '-', '-', null);
    return;
  }
  for (const [network, x] of Object.entries(r.perTask)) {
    row(
      `docker task \`true\` launch..exit, ${network} network (median of ${x.runs})`,
      `${fmt(x.runtimeMs, 0)} ms (ratio ${fmt(x.ratio, 2)})`,
      `docker run --rm ${fmt(x.cliMs, 0)} ms`,
      `<= ${r.target} x`,
      x.ratio <= r.target,
    );
  }
  const t = r.throughput;
  row(
    `docker: ${t.n} trivial container tasks x${t.concurrency} (host network, median of ${t.rounds})`,
    `${fmt(t.runtime.perSec, 1)} tasks/s (x${fmt(t.runtimeVsCli, 2)})`,
    `docker run --rm ${fmt(t.cli.perSec, 1)} tasks/s`,
    '-',
    null,
  );
  const c = r.cluster;
  row(
    `iris submit --image: job of 1 \`true\` task, submit..SUCCEEDED (median of ${c.perTask.runs})`,
    `${fmt(c.perTask.irisMs, 0)} ms (ratio ${fmt(c.perTask.ratio, 2)})`,
    `docker run --rm ${fmt(c.perTask.cliMs, 0)} ms`,
    `<= ${r.target} x`,
    c.perTask.ratio <= r.target,
  );
  row(
    `iris submit --image: 1 job x ${c.throughput.n} replicas, ${c.throughput.concurrency} at once (median of ` +
      `${t.rounds})`,
    `${fmt(c.throughput.perSec, 1)} tasks/s (x${fmt(c.throughput.vsCli, 2)})`,
    `docker run --rm ${fmt(c.throughput.cliPerSec, 1)} tasks/s`,
    '-',
    null,
  );
});

// kube (issue 17): not a default section (it starts an API server and kube-scheduler); `--only kube`.
if (only?.has('kube')) {
  await section('kube', 'kube.mjs', 'runKubeBench', (r) => {
    if (r.skipped) {
      row('kube: skipped', r.skipped.slice(0, 120), '-', '-', null);
      return;
    }
    const ms = (x) => `${fmt(x.min, 0)} / ${fmt(x.median, 0)} / ${fmt(x.max, 0)} ms`;
    row(
      `kube${r.case === 'default' ? '' : ` (${r.case})`}: ${r.pods} pods on ${r.nodes} nodes bound by iris, ` +
        `submit..all bound (min / median / max of ${r.rounds}${r.probe ? ', PROBE: no warm-up' : ''})`,
      `${ms(r.iris)} (x${fmt(r.ratio['kube-scheduler'].median, 2)})`,
      `kube-scheduler ${ms(r['kube-scheduler'])}`,
      '-',
      null,
    );
    const target = r.targetMB ? `<= ${r.targetMB} MB` : '-';
    const ok = r.targetMB ? r.daemonHwmMB <= r.targetMB : null;
    row('kube: iris controller peak RSS (VmHWM) over the run', `${fmt(r.daemonHwmMB, 0)} MB`, '-', target, ok);
  });
}

const headers = ['metric', 'value', 'baseline (same run)', 'target', 'verdict'];
const keys = ['metric', 'value', 'baseline', 'target', 'verdict'];
const widths = keys.map((k, i) => Math.max(headers[i].length, ...rows.map((r) => String(r[k]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
console.log(line(headers));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(keys.map((k) => r[k])));
if (wantJson) console.log(JSON.stringify({ ...raw, loadAverage: loads }, null, 2));
process.exit(failed > 0 ? 1 : 0);
