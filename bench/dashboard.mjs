// Dashboard benchmarks: a real local cluster (the built CLI, dist/) and Debian's chromium driven
// through playwright-core (docs/benchmarks.md, "Dashboard").
//
//   (a) first render: 10,000 jobs known (a holder job keeps the `hold` worker busy, 9,999 jobs
//       wait behind it, submitted by 20 socket clients). One round opens a fresh browser context
//       with a fresh `iris dashboard --url` link and times from navigation to the jobs view's
//       first rows on screen; its baseline, interleaved in the same rounds, is `iris jobs` of the
//       same cluster (the terminal's answer to the same question, process start included).
//       A warm-up of each, then ROUNDS rounds; min / median / max. Target: median <= 3 s.
//   (b) memory: a busy cluster (a client submits a one-second job every 100 ms, so jobs start and
//       end all the time), and the controller's RSS sampled every 50 ms from /proc/PID/status
//       over WINDOW_MS with no page open, then over WINDOW_MS with 5 pages open (jobs, a job, its
//       live log, the queue, the workers view, each following the event stream). Interleaved:
//       rounds of (none, five) and (five, none); growth = the highest sample with pages minus the
//       highest without, per round. Target: median growth <= 64 MB.
//   (c) a big log followed live: a job waits on a gate, then writes LOG_MB of 80-byte lines and a
//       last marker line. The page follows its log (#/logs/JOB/task-0) while a loop of
//       requestAnimationFrame in the page records every frame's gap; the figure is the time from
//       the gate's opening to the marker on screen, the baseline `iris logs -f JOB > pipe` of the
//       same kind of job (a new job each side and round), interleaved; plus the page's longest
//       frame gap, its 99th percentile and its JS heap at the end. Target: the longest gap
//       <= 500 ms (the page keeps drawing and answering input while the log streams).
//
// Needs chromium (bash scripts/chromium-setup.sh) and a build (npm run build).
//   node scripts/bench.js --only dashboard
// Sizes: DASHBOARD_BENCH_JOBS (10000), DASHBOARD_BENCH_ROUNDS (5), DASHBOARD_BENCH_WINDOW_MS (8000),
// DASHBOARD_BENCH_LOG_MB (200).
import { spawn } from 'node:child_process';
import { CHROMIUM_FLAGS, chromiumPath } from '../scripts/chromium.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { awaitJobs, iris, startBenchCluster } from './cluster.mjs';
import { interleave, stats } from './measure.mjs';

const JOBS = Number(process.env.DASHBOARD_BENCH_JOBS ?? 10_000);
const ROUNDS = Math.max(5, Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 5));
const WINDOW_MS = Number(process.env.DASHBOARD_BENCH_WINDOW_MS ?? 8000);
const LOG_MB = Number(process.env.DASHBOARD_BENCH_LOG_MB ?? 200);
const LINE = '0123456789'.repeat(7) + 'abcdefghi'; // 79 characters + newline = 80 bytes
const MARKER = 'END-OF-THE-BIG-LOG';
const CLIENTS = 20;

const rssMb = (pid) => Number(/^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** The highest RSS of `pid` (MB) over `ms`, sampled every 50 ms. */
function peakRss(pid, ms) {
  return new Promise((resolve) => {
    let peak = rssMb(pid);
    const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    setTimeout(() => {
      clearInterval(timer);
      resolve(Math.max(peak, rssMb(pid)));
    }, ms);
  });
}

const loginUrl = (ctx) => JSON.parse(iris(['dashboard', '--url', '--json'], ctx)).loginUrl;

async function submitKnownJobs(client, count) {
  await client.submit({
    name: 'holder',
    command: ['sleep', '3600'],
    cpu: 1,
    memory: '16M',
    constraints: ['pool=hold'],
  });
  let next = 1;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await client.submit({ name: `known-${i}`, command: ['true'], cpu: 1, memory: '16M', constraints: ['pool=hold'] });
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
}

let bigJobs = 0;
/** A job that writes LOG_MB of lines and the marker once its gate opens; returns its name and the opener. */
async function bigLogJob(client, cwd) {
  const name = `big-${bigJobs++}`;
  const gate = path.join(cwd, `gate-${name}`);
  const bytes = Math.round(LOG_MB * 1e6);
  await client.submit({
    name,
    command: [
      'sh',
      '-c',
      `while [ ! -f '${gate}' ]; do sleep 0.05; done; yes '${LINE}' | head -c ${bytes}; echo ${MARKER}`,
    ],
    cpu: 1,
    memory: '64M',
    constraints: ['pool=bench'],
  });
  const state = async () => (await client.job(`/${name}`)).state;
  while ((await state()) !== 'RUNNING') await new Promise((resolve) => setTimeout(resolve, 50));
  return { name, open: () => writeFileSync(gate, 'open\n') };
}

/** (c), the page: ms from the gate to the marker on screen, and the frame gaps meanwhile. */
async function followInPage(browser, c, frames) {
  const job = await bigLogJob(c.client, c.cwd);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(loginUrl(c.ctx));
    await page.waitForSelector('[data-view="jobs"]');
    await page.goto(new URL(`#/logs/${job.name}/task-0`, page.url()).href);
    await page.waitForSelector('[data-log-phase="following"]');
    await page.evaluate(() => {
      const gaps = [];
      let last = performance.now();
      const tick = (now) => {
        gaps.push(now - last);
        last = now;
        if (!window.__stopFrames) requestAnimationFrame(tick);
      };
      window.__frameGaps = gaps;
      requestAnimationFrame(tick);
    });
    const start = performance.now();
    job.open();
    await page.waitForFunction(
      (marker) => document.querySelector('[data-log]')?.textContent?.includes(marker),
      MARKER,
      {
        timeout: 900_000,
        polling: 250,
      },
    );
    const ms = performance.now() - start;
    const seen = await page.evaluate(() => {
      window.__stopFrames = true;
      return { gaps: window.__frameGaps.slice(1), heap: performance.memory?.usedJSHeapSize ?? null };
    });
    const sorted = [...seen.gaps].sort((a, b) => a - b);
    frames.push({
      max: sorted.at(-1),
      p99: sorted[Math.floor(sorted.length * 0.99)],
      heapMB: seen.heap === null ? null : seen.heap / 1e6,
    });
    return ms;
  } finally {
    await context.close();
    await awaitJobs(c.client, [`/${job.name}`]);
  }
}

/** (c), the baseline: `iris logs -f JOB` into a pipe, from the gate to its exit. */
async function followInCli(c) {
  const job = await bigLogJob(c.client, c.cwd);
  const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bin', 'run.js');
  const child = spawn(process.execPath, [bin, 'logs', '-f', job.name], {
    cwd: c.ctx.cwd,
    env: c.ctx.env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let tail = '';
  child.stdout.on('data', (chunk) => (tail = (tail + chunk.toString('latin1')).slice(-200)));
  const exited = new Promise((resolve) => child.on('close', resolve));
  const start = performance.now();
  job.open();
  await exited;
  const ms = performance.now() - start;
  if (!tail.includes(MARKER)) throw new Error(`iris logs -f ${job.name} ended without the marker`);
  return ms;
}

/** (a): ms from navigation to the first job rows of a fresh page. */
async function firstRender(browser, ctx) {
  const url = loginUrl(ctx);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const start = performance.now();
    await page.goto(url);
    await page.waitForSelector('[data-view="jobs"] [data-job]', { timeout: 120_000 });
    return performance.now() - start;
  } finally {
    await context.close();
  }
}

/** (b): five pages on the views a user keeps open; returns a function that closes them. */
async function openFive(browser, ctx) {
  const views = ['#/jobs', '#/job/busy-0', '#/logs/holder/task-0', '#/queue', '#/workers'];
  const contexts = [];
  for (const view of views) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(loginUrl(ctx));
    await page.waitForSelector('[data-view="jobs"]');
    await page.goto(new URL(view, page.url()).href);
    await page.waitForSelector('[data-live="on"]');
  }
  return () => Promise.all(contexts.map((context) => context.close()));
}

export async function runDashboardBench({ log = () => {} } = {}) {
  const { chromium } = await import('playwright-core');
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('chromium is not installed: run `bash scripts/chromium-setup.sh`');
  const browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
  const c = startBenchCluster(
    'dashboard',
    'stop-grace: 1s\nworkers:\n  - {name: bench, cpu: 2, memory: 64GiB, attributes: {pool: bench}}\n  ' +
      '- {name: hold, cpu: 1, memory: 64GiB, attributes: {pool: hold}}\n',
  );
  const result = { jobs: JOBS, rounds: ROUNDS, windowMs: WINDOW_MS };
  let busy = true;
  try {
    log(`dashboard bench: submitting ${JOBS} jobs`);
    await submitKnownJobs(c.client, JOBS);
    log('dashboard bench: first render vs iris jobs');
    const render = await interleave(
      {
        page: () => firstRender(browser, c.ctx),
        'iris jobs': () => {
          iris(['jobs'], c.ctx);
        },
      },
      { rounds: ROUNDS },
    );
    result.firstRender = { page: render.page, irisJobs: render['iris jobs'], ratio: render.ratio['iris jobs'] };

    log('dashboard bench: RSS with 5 pages on a busy cluster');
    let n = 0;
    const feeder = (async () => {
      while (busy) {
        await c.client.submit({
          name: `busy-${n++}`,
          command: ['sleep', '1'],
          cpu: 0.1,
          memory: '16M',
          constraints: ['pool=bench'],
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the feeder's first jobs start
    const peaks = { none: [], five: [] };
    const growth = [];
    for (let r = 0; r < ROUNDS + 1; r++) {
      const order = r % 2 === 0 ? ['none', 'five'] : ['five', 'none'];
      const round = {};
      for (const side of order) {
        if (side === 'none') round.none = await peakRss(c.pid, WINDOW_MS);
        else {
          const close = await openFive(browser, c.ctx);
          round.five = await peakRss(c.pid, WINDOW_MS);
          await close();
        }
      }
      if (r === 0) continue; // warm-up
      peaks.none.push(round.none);
      peaks.five.push(round.five);
      growth.push(round.five - round.none);
    }
    busy = false;
    await feeder;
    result.memory = { none: stats(peaks.none), five: stats(peaks.five), growth: stats(growth), jobsFed: n };

    log(`dashboard bench: a ${LOG_MB} MB log followed in the page vs iris logs -f`);
    const frames = [];
    const follow = await interleave(
      { page: () => followInPage(browser, c, frames), 'iris logs -f': () => followInCli(c) },
      { rounds: ROUNDS },
    );
    const kept = frames.slice(1); // the warm-up round's page
    result.bigLog = {
      mb: LOG_MB,
      page: follow.page,
      cli: follow['iris logs -f'],
      ratio: follow.ratio['iris logs -f'],
      maxGap: stats(kept.map((f) => f.max)),
      p99Gap: stats(kept.map((f) => f.p99)),
      heapMB: stats(kept.map((f) => f.heapMB ?? Number.NaN)),
    };
  } finally {
    busy = false;
    await browser.close();
    c.stop();
  }
  return result;
}
