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
//
// Needs chromium (bash scripts/chromium-setup.sh) and a build (npm run build).
//   node scripts/bench.js --only dashboard
// Sizes: DASHBOARD_BENCH_JOBS (10000), DASHBOARD_BENCH_ROUNDS (5), DASHBOARD_BENCH_WINDOW_MS (8000).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { iris, startBenchCluster } from './cluster.mjs';
import { interleave, stats } from './measure.mjs';

const JOBS = Number(process.env.DASHBOARD_BENCH_JOBS ?? 10_000);
const ROUNDS = Math.max(5, Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 5));
const WINDOW_MS = Number(process.env.DASHBOARD_BENCH_WINDOW_MS ?? 8000);
const CLIENTS = 20;
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

function chromiumPath() {
  const given = process.env.IRIS_CHROMIUM;
  if (given) return given;
  const which = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  if (which.status !== 0) throw new Error('chromium is not installed: run `bash scripts/chromium-setup.sh`');
  return which.stdout.trim();
}

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
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: FLAGS });
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
  } finally {
    busy = false;
    await browser.close();
    c.stop();
  }
  return result;
}
