// Log benchmarks: a real local cluster (the built CLI, dist/) in a temporary IRIS_HOME
// (docs/benchmarks.md, "Logs").
//
//   (a) follow: a task writes SIZE_MB of 80-byte lines (`yes <79 chars> | head -c …`) while four
//       `iris logs -f JOB > /dev/null` follow it. The controller's RSS is sampled every 50 ms
//       from /proc/PID/status; growth = the highest sample (and VmHWM) minus its RSS before.
//       Target: growth <= 64 MB.
//   (b) read: `iris logs JOB > /dev/null` of that log vs `cat FILE > /dev/null` of its file,
//       interleaved cat, iris, cat, iris… after one warm-up of each, ROUNDS rounds; MB/s of the
//       task's output (SIZE_MB / seconds; cat: file size / seconds), min / median / max, and the
//       controller's RSS growth while it serves them. Target: median >= 50 MB/s, growth <= 64 MB.
//   (c) the same read of 2-byte lines (`yes`), YES_MB of output: reported, no target (each line
//       costs the reader per-line work, so MB/s is far lower than with 80-byte lines).
//
// Sizes: LOGS_BENCH_MB (default 200), LOGS_BENCH_YES_MB (default 20), LOGS_BENCH_ROUNDS (5),
// LOGS_BENCH_FOLLOWERS (4; 0 shows what the writing alone costs).
// Build first: node_modules/.bin/tsc -p tsconfig.build.json
//   node bench/logs.mjs            (or `node scripts/bench.js --only logs`)
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { awaitJobs, iris, startBenchCluster } from './cluster.mjs';
import { loadAverage, stats } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const SIZE_MB = Number(process.env.LOGS_BENCH_MB ?? 200);
const YES_MB = Number(process.env.LOGS_BENCH_YES_MB ?? 20);
const ROUNDS = Math.max(5, Number(process.env.LOGS_BENCH_ROUNDS ?? 5));
const FOLLOWERS = Number(process.env.LOGS_BENCH_FOLLOWERS ?? 4);
const LINE = '0123456789'.repeat(7) + 'abcdefghi'; // 79 characters + newline = 80 bytes
const TARGET_MBPS = 50;
const TARGET_GROWTH_MB = 64;
const MB = 1e6;

const load = loadAverage;

/** The first attempt's log of task 0 of job `name`'s only run: <home>/logs/NAME/@RUN/task-0/attempt-0.log. */
function attemptLog(home, name) {
  const dir = path.join(home, 'logs', name);
  const run = readdirSync(dir).find((entry) => entry.startsWith('@'));
  if (!run) throw new Error(`no run directory under ${dir}`);
  return path.join(dir, run, 'task-0', 'attempt-0.log');
}

function rssKb(pid, field = 'VmRSS') {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s*(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
}

/** Samples the RSS of `pid` every 50 ms until stopped; returns the highest sample in kB. */
function sampler(pid) {
  let peak = rssKb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      // gone
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssKb(pid));
  };
}

/** Runs `sh -c script` with stdout to /dev/null; resolves with the seconds it took. */
function timed(script, ctx) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('sh', ['-c', script], { cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve((performance.now() - start) / 1000)
        : reject(new Error(`${script} exited ${code}: ${stderr.slice(0, 300)}`)),
    );
  });
}

function startCluster() {
  return startBenchCluster('logs', 'workers:\n  - {name: w0, cpu: 2, memory: 4GiB}\n');
}

const cli = `'${process.execPath}' '${BIN}'`;

/** Interleaved rounds of `cat FILE` and `iris logs JOB`, both to /dev/null; MB/s of `outputMb`. */
async function readRounds(c, job, file, outputMb, rounds, log) {
  const cat = [];
  const logs = [];
  const fileMb = statSync(file).size / MB;
  await timed(`cat '${file}' > /dev/null`, c.ctx);
  await timed(`${cli} logs ${job} > /dev/null`, c.ctx);
  const idle = rssKb(c.pid);
  const stop = sampler(c.pid);
  for (let i = 0; i < rounds; i++) {
    cat.push(fileMb / (await timed(`cat '${file}' > /dev/null`, c.ctx)));
    logs.push(outputMb / (await timed(`${cli} logs ${job} > /dev/null`, c.ctx)));
    log(`bench: logs: ${job} round ${i + 1}: iris ${logs.at(-1).toFixed(1)} MB/s, cat ${cat.at(-1).toFixed(0)} MB/s`);
  }
  const peak = stop();
  return {
    cat: stats(cat),
    iris: stats(logs),
    fileMb,
    outputMb,
    rssGrowthMB: (peak - idle) / 1024,
    idleRssMB: idle / 1024,
  };
}

export async function runLogsBench({ log = () => {} } = {}) {
  const c = startCluster();
  try {
    const loadStart = load();
    // (a) a task writing SIZE_MB while four clients follow it.
    const idle = rssKb(c.pid);
    const stop = sampler(c.pid);
    const job = iris(
      ['submit', '--name', 'big', '--cpu', '1', '--', 'sh', '-c', `yes ${LINE} | head -c ${SIZE_MB * MB}`],
      c.ctx,
    )
      .trim()
      .split(/\s+/)
      .pop();
    const followers = Array.from({ length: FOLLOWERS }, () => timed(`${cli} logs -f big > /dev/null`, c.ctx));
    const written = performance.now();
    await awaitJobs(c.client, ['/big']);
    const writeS = (performance.now() - written) / 1000;
    await Promise.all(followers);
    const followS = (performance.now() - written) / 1000;
    const peak = stop();
    const follow = {
      sizeMb: SIZE_MB,
      writeS,
      followS,
      followers: FOLLOWERS,
      rssGrowthMB: (peak - idle) / 1024,
      idleRssMB: idle / 1024,
      hwmMB: rssKb(c.pid, 'VmHWM') / 1024,
    };
    log(
      `bench: logs: ${job} written in ${writeS.toFixed(1)} s, followed by ${FOLLOWERS} clients in ` +
        `${followS.toFixed(1)} s, RSS +${follow.rssGrowthMB.toFixed(0)} MB`,
    );
    const file = attemptLog(c.home, 'big');
    // (b) reading it back.
    const read = await readRounds(c, 'big', file, SIZE_MB, ROUNDS, log);
    // (c) 2-byte lines.
    iris(['submit', '--name', 'yes', '--cpu', '1', '--', 'sh', '-c', `yes | head -c ${YES_MB * MB}`], c.ctx);
    await awaitJobs(c.client, ['/yes']);
    const yesFile = attemptLog(c.home, 'yes');
    const yes = await readRounds(c, 'yes', yesFile, YES_MB, Math.min(ROUNDS, 3), log);
    return {
      line: { bytes: LINE.length + 1 },
      diskRatio: read.fileMb / SIZE_MB,
      yesDiskRatio: yes.fileMb / YES_MB,
      follow,
      read,
      yes,
      targets: { mbps: TARGET_MBPS, growthMB: TARGET_GROWTH_MB },
      loadavg: { start: loadStart, end: load() },
    };
  } finally {
    c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runLogsBench({ log: (m) => process.stderr.write(`${m}\n`) });
  console.log(JSON.stringify(r, null, 2));
}
