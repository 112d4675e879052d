// The one home of how a benchmark measures a figure against its baseline.
// Guarantees:
//   - `interleave` runs every side once per round, alternating the order each round (A B, B A, …),
//     after `warmup` untimed rounds, for at least 5 timed rounds; each side's times come back as
//     min / median / max, and the ratio of the first side to each other side as the median (and
//     min / max) of the per-round ratios — never a ratio of two medians taken at different moments.
//   - `stats` of an even count is the mean of the two middle values.
//   - `loadAverage` is the machine's 1, 5 and 15 minute load, rounded to 2 places.
// Sides may be synchronous or return a promise; a side returns nothing (its wall time is taken) or
// a number of milliseconds it measured itself (e.g. per-call time of a batch, or time to an event).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export const MIN_ROUNDS = 5;

/** min / median / max (and n) of a list of numbers. */
export function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1], n: sorted.length };
}

/**
 * Runs `script` (`node -e`) in a fresh Node process with `args` and resolves with the seconds it
 * writes to stdout (the loop's own time there, its start-up not included); rejects, naming `what`,
 * when it exits non-zero or writes no positive number. A floor's loop runs in a fresh process so
 * that the benchmark process's grown heap never slows its forks.
 */
export function secondsOfLoop(script, args, what) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, ...args.map(String)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 && Number(out) > 0 ? resolve(Number(out)) : reject(new Error(`${what} exited ${code}: ${out}`)),
    );
  });
}

/** The machine's load average (1, 5, 15 min). */
export const loadAverage = () => loadavg().map((x) => Math.round(x * 100) / 100);

function summarise(names, times, rounds) {
  const [first, ...others] = names;
  const result = { rounds, ratio: {}, times };
  for (const name of names) result[name] = stats(times[name]);
  for (const other of others) result.ratio[other] = stats(times[first].map((t, i) => t / times[other][i]));
  return result;
}

async function timeSide(fn) {
  const start = performance.now();
  const measured = await fn();
  return typeof measured === 'number' ? measured : performance.now() - start;
}

/** The rounds of an interleaved run: each round's order (A B, then B A, …) and where its times go. */
function plan(sides, rounds, warmup) {
  const names = Object.keys(sides);
  if (names.length < 2) throw new Error('interleave needs a figure and at least one baseline');
  const n = Math.max(MIN_ROUNDS, rounds);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  return {
    total: warmup + n,
    order: (r) => (r % 2 === 0 ? names : [...names].reverse()),
    keep(r, round) {
      if (r >= warmup) for (const name of names) times[name].push(round[name]);
    },
    done: () => summarise(names, times, n),
  };
}

/**
 * Runs `sides` ({name: fn}, the first is the figure, the others its baselines) interleaved.
 * Returns {rounds, times: {[name]: ms[]}, [name]: stats(ms), ratio: {[other]: stats(first / other per round)}}.
 */
export async function interleave(sides, { rounds = MIN_ROUNDS, warmup = 1, between } = {}) {
  const p = plan(sides, rounds, warmup);
  for (let r = 0; r < p.total; r++) {
    const round = {};
    for (const name of p.order(r)) {
      if (between) await between(name);
      round[name] = await timeSide(sides[name]);
    }
    p.keep(r, round);
  }
  return p.done();
}

/** `interleave` for synchronous sides, without promises between them (for sub-millisecond passes). */
export function interleaveSync(sides, { rounds = MIN_ROUNDS, warmup = 1, between } = {}) {
  const p = plan(sides, rounds, warmup);
  for (let r = 0; r < p.total; r++) {
    const round = {};
    for (const name of p.order(r)) {
      if (between) between(name);
      const start = performance.now();
      const measured = sides[name]();
      round[name] = typeof measured === 'number' ? measured : performance.now() - start;
    }
    p.keep(r, round);
  }
  return p.done();
}

/** Per-round ratio a / b of two sides of one `interleave` result, as stats. */
export const ratioOf = (result, a, b) => stats(result.times[a].map((t, i) => t / result.times[b][i]));

/** "min a / median b / max c" with `digits` decimals and a unit. */
export const spread = (s, unit = 'ms', digits = 2) =>
  `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)} ${unit}`;

/** Fields 14-17 of /proc/<pid>/stat (utime, stime, cutime, cstime) in seconds (clock ticks of 1/100 s). */
function cpuFields(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return fields.slice(11, 15).map((ticks) => Number(ticks) / 100);
}

/**
 * CPU seconds used so far by a cluster process `pid` (with the children it has reaped) and its live
 * children (the resident spawner, with the tasks it has reaped): what the whole cluster spent,
 * whatever else the machine runs. A window of work measured this way does not slow down because
 * another process takes the cores.
 */
export function clusterCpuSeconds(pid) {
  let total = cpuFields(pid).reduce((a, b) => a + b, 0);
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').trim();
    for (const child of children ? children.split(' ') : []) {
      try {
        total += cpuFields(child).reduce((a, b) => a + b, 0);
      } catch {
        // gone in between
      }
    }
  }
  return total;
}
