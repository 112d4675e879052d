// Job-tree benchmarks: a real local cluster (the built CLI, dist/) in a temporary IRIS_HOME,
// a parent task that starts children and waits for them (docs/benchmarks.md, "Job trees").
//
//   (a) wait-release: the only worker has 2 CPUs. A parent job (1 CPU) runs a script that starts
//       4 children of `sleep 2` (1 CPU each) with `iris run … &` and waits for all four. Timed
//       from the parent's submission to its SUCCEEDED. FLOOR, measured in the same run: the same
//       four `sleep 2` spawned directly as 2 rounds of 2 parallel processes (~4 s: what the tree
//       takes when the waiting parent's CPU is released; ~8 s when it is held: one child at a
//       time). Target: median <= 4.3 s. Rounds alternate floor, tree, floor, tree… after a
//       warm-up tree whose children run `true`.
//   (b) fan-out: one worker with CONCURRENCY CPUs. A parent job (1 CPU) runs a Node program that
//       submits 200 children of `true` (1 CPU each) through the socket client (the task's
//       IRIS_TASK_TOKEN makes them its children), then waits for each. Timed from the parent's
//       submission to its SUCCEEDED (so it includes launching the parent and its Node start);
//       tasks/s = 200 / seconds. BASELINE: this process spawning /bin/true 200 times with the same
//       concurrency. Interleaved raw, tree, raw, tree…, one warm-up of each, ROUNDS >= 5 rounds;
//       min / median / max of both and the median of the per-round ratios; the load average at
//       the start and the end.
//
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
//   node bench/tree.mjs            (or `node scripts/bench.js --only tree`)
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { awaitJobs, spawnBaseline, startBenchCluster } from './cluster.mjs';
import { loadAverage as load, stats } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_WAIT_S = 4.3;

/** A cluster started with the built CLI in a fresh temporary IRIS_HOME, with `config` as .irisrc.yaml. */
const startCluster = (config) => startBenchCluster('tree', config);

/** Seconds from submitting `request` to the job's SUCCEEDED (awaitJobs throws on any other end). */
async function timeJob(client, request) {
  const start = performance.now();
  const { name } = await client.submit(request);
  await awaitJobs(client, [name]);
  return (performance.now() - start) / 1000;
}

/** The floor of (a): `rounds` rounds of `width` parallel `sleep SECONDS`, spawned directly. */
export async function sleepRounds(rounds, width, seconds) {
  const start = performance.now();
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      Array.from(
        { length: width },
        () =>
          new Promise((resolve, reject) => {
            const child = spawn('sleep', [String(seconds)], { stdio: 'ignore' });
            child.once('error', reject);
            child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sleep exited ${code}`))));
          }),
      ),
    );
  }
  return (performance.now() - start) / 1000;
}

/** The parent's script of (a): start `children` `iris run` of CMD in the background, wait for all. */
export function waitParentScript(children, command) {
  return (
    [
      'pids=""',
      `for i in ${Array.from({ length: children }, (_, i) => i + 1).join(' ')}; do`,
      `  iris run --name c$i -- ${command} &`,
      '  pids="$pids $!"',
      'done',
      'rc=0',
      'for p in $pids; do wait "$p" || rc=1; done',
      'exit $rc',
    ].join('\n') + '\n'
  );
}

export async function runWaitRelease({ rounds = 5, log = () => {} } = {}) {
  if (rounds < 5) throw new Error('the wait benchmark takes at least 5 rounds');
  const cluster = startCluster('stop-grace: 1s\nworkers:\n  - {name: w0, cpu: 2, memory: 8GiB}\n');
  try {
    const sleeps = path.join(cluster.cwd, 'parent-sleep.sh');
    const trues = path.join(cluster.cwd, 'parent-true.sh');
    const program = path.join(cluster.cwd, 'parent-api.mjs');
    writeFileSync(sleeps, waitParentScript(4, 'sleep 2'));
    writeFileSync(trues, waitParentScript(4, 'true'));
    writeFileSync(program, fanoutProgram());
    const parent = (name, script) => ({ name, command: ['sh', script], cwd: cluster.cwd });
    const apiParent = (name, command) => ({
      name,
      command: [process.execPath, program, '4', '4', ...command],
      cwd: cluster.cwd,
    });
    log('tree bench (a): warm-up');
    await timeJob(cluster.client, parent('warmup', trues));
    await timeJob(cluster.client, apiParent('warmup-api', ['true']));
    const tree = [];
    const api = [];
    const floor = [];
    const loadStart = load();
    // Interleaved: floor, the CLI parent, the API parent, each round.
    for (let r = 0; r < rounds; r++) {
      floor.push(await sleepRounds(2, 2, 2));
      tree.push(await timeJob(cluster.client, parent(`wait-${r}`, sleeps)));
      api.push(await timeJob(cluster.client, apiParent(`wait-api-${r}`, ['sleep', '2'])));
      log(
        `tree bench (a): round ${r + 1}: tree ${tree[r].toFixed(2)} s (children by the socket API: ` +
          `${api[r].toFixed(2)} s), floor ${floor[r].toFixed(2)} s`,
      );
    }
    const result = {
      rounds,
      tree: stats(tree),
      api: stats(api),
      floor: stats(floor),
      targetS: TARGET_WAIT_S,
      loadavg: { start: loadStart, end: load() },
    };
    result.ok = result.tree.median <= TARGET_WAIT_S;
    return result;
  } finally {
    cluster.stop();
  }
}

/**
 * A parent as one Node program on the socket API (docs/api.md): submit N children running
 * COMMAND (INFLIGHT requests at a time), then wait for each. (b) uses it with `true`; (a) also
 * with `sleep 2`, to show the scheduler's share apart from four CLI start-ups.
 */
function fanoutProgram() {
  const clientUrl = pathToFileURL(path.join(ROOT, 'dist', 'client', 'socket-client.js')).href;
  return (
    `const { SocketClient } = await import(${JSON.stringify(clientUrl)});
const [n, inflight] = process.argv.slice(2, 4).map(Number);
const command = process.argv.slice(4);
const client = new SocketClient({ env: process.env });
const names = new Array(n);
let next = 0;
await Promise.all(Array.from({ length: inflight }, async () => {
  while (next < n) {
    const i = next++;
    names[i] = (await client.submit({ name: 'c-' + i, command: command.length > 0 ? command : ['true'], cpu: 1, ` +
    `memory: '16M' })).name;
  }
}));
let failed = 0;
for (const name of names) if ((await client.wait(name)).state !== 'SUCCEEDED') failed++;
if (failed > 0) { console.error(failed + ' children did not succeed'); process.exit(1); }
console.log(n + ' children succeeded');
`
  );
}

export async function runFanout({
  children = 200,
  concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16),
  rounds = 5,
  log = () => {},
} = {}) {
  if (rounds < 5) throw new Error('the fan-out benchmark takes at least 5 rounds');
  const cluster = startCluster(`stop-grace: 1s\nworkers:\n  - {name: w0, cpu: ${concurrency}, memory: 64GiB}\n`);
  try {
    const program = path.join(cluster.cwd, 'fanout.mjs');
    writeFileSync(program, fanoutProgram());
    const parent = (name) => ({ name, command: [process.execPath, program, String(children), '8'], cwd: cluster.cwd });
    const loadStart = load();
    log('tree bench (b): warm-up');
    await spawnBaseline(children, concurrency);
    await timeJob(cluster.client, parent('fan-warmup'));
    const raw = [];
    const tree = [];
    const ratio = [];
    for (let r = 0; r < rounds; r++) {
      raw.push((await spawnBaseline(children, concurrency)).rate);
      tree.push(children / (await timeJob(cluster.client, parent(`fan-${r}`))));
      ratio.push(tree[r] / raw[r]);
      log(`tree bench (b): round ${r + 1}: tree ${tree[r].toFixed(0)} tasks/s, raw ${raw[r].toFixed(0)} tasks/s`);
    }
    return {
      children,
      concurrency,
      rounds,
      tree: stats(tree),
      raw: stats(raw),
      ratio: stats(ratio),
      loadavg: { start: loadStart, end: load() },
    };
  } finally {
    cluster.stop();
  }
}

export async function runTreeBench({ log = () => {} } = {}) {
  const wait = await runWaitRelease({ log });
  const fanout = await runFanout({ log });
  return { wait, fanout };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runTreeBench({ log: (m) => console.error(m) });
  console.log(JSON.stringify(result, null, 2));
}
