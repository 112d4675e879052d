/// <reference lib="dom" />
/**
 * E2E in a real browser: the dashboard of a live local cluster (the built binary, real task
 * processes) driven in Debian's chromium through playwright-core (test/browser/browser.ts).
 *
 * What a user sees: the page is refused without the link's token, and a used link is refused; a
 * running job tree appears in the jobs view without a reload; the job page opens; its log
 * follows live; cancel on the page asks first (no sends nothing) and then ends the job (the CLI
 * agrees); the queue lists the pending jobs in the cluster's order with their reasons; the workers
 * view draws its Gantt and plots; the history lists runs; a failed job shows its reason and the
 * last lines of its log; a narrow window scrolls tables inside the page and fits the Gantt and
 * plots; a hash naming no page says so; a log's error goes with its target; a page open while its
 * cluster stops says its server is gone. Each view is saved as a screenshot (IRIS_SCREENSHOTS).
 *
 * No fixed sleeps: every wait is playwright's wait for a selector or a state of the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, MISSING_BROWSER, MUST_RUN, freshContext, launchBrowser, screenshot } from './browser.js';
import { withCluster } from '../e2e/harness.js';
import { serveOffline } from '../e2e/dashboard-http.js';

// A sample of the series every 500 ms, so the workers view's plots show the queue tests' jobs.
const CONFIG = `
stop-grace: 1s
metrics:
  series-interval: 500ms
workers:
  - {name: w0, cpu: 2, memory: 8GiB}
`;

interface DashboardLink {
  url: string;
  loginUrl: string;
  mode: string;
}

if (!CHROMIUM && MUST_RUN) {
  describe('the dashboard in chromium', () => {
    it('has chromium', () => {
      throw new Error(MISSING_BROWSER);
    });
  });
}

describe.skipIf(!CHROMIUM)('the dashboard in chromium', { timeout: 90_000 }, () => {
  const c = withCluster(CONFIG, 60_000);
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });

  const link = () => c.json<DashboardLink>(['dashboard', '--url']);

  /** A new browser (no cookies) logged in with a fresh link, on the jobs view; page errors fail the test. */
  async function loggedIn(viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
    const { loginUrl } = await link();
    const context = await freshContext(browser, viewport);
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(loginUrl);
    await page.waitForSelector('[data-view="jobs"]');
    await page.waitForSelector('[data-live="on"]');
    return { page, errors };
  }

  it('refuses the page without the token, and refuses a link used once', async () => {
    const { url, loginUrl, mode } = await link();
    expect(mode).toBe('live');
    expect(new URL(url).hostname).toBe('127.0.0.1');
    const stranger = await freshContext(browser);
    contexts.push(stranger);
    const page = await stranger.newPage();
    const refused = await page.goto(url);
    expect(refused?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('iris dashboard');
    const api = await stranger.request.get(new URL('/v1/jobs', url).href);
    expect(api.status()).toBe(401);
    await screenshot(page, 'refused');

    const owner = await freshContext(browser);
    contexts.push(owner);
    const first = await owner.newPage();
    await first.goto(loginUrl);
    await first.waitForSelector('[data-view="jobs"]');

    const thief = await freshContext(browser);
    contexts.push(thief);
    const second = await thief.newPage();
    const reused = await second.goto(loginUrl);
    expect(reused?.status()).toBe(403);
    expect(await second.textContent('body')).toContain('iris dashboard');
  });

  it('shows a running job tree appear without reloading, its job page, and its log following live', async () => {
    const { page, errors } = await loggedIn();
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    const parentGate = c.gate('tree-parent');
    const childGate = c.gate('tree-child');
    const childSays = c.gate('tree-child-says');
    const script = c.script(
      'tree.sh',
      [
        'case "$IRIS_JOB_ID" in',
        `  /tree) iris submit --name child -- sh '${c.cwd}/tree.sh'; ${parentGate.hold} ;;`,
        `  /tree/child) echo "child is up"; ${childSays.hold}; echo "second line from the child"; ${childGate.hold} ;;`,
        'esac',
      ].join('\n'),
    );
    await c.submit(['--name', 'tree', '--cpu', '0.5'], ['sh', script]);
    await page.waitForSelector('[data-view="jobs"] [data-job="/tree/child"]');
    await page.waitForSelector('[data-view="jobs"] [data-job="/tree"]');
    expect(navigations).toBe(0);
    await screenshot(page, 'jobs');

    await page.click('[data-view="jobs"] [data-job="/tree/child"] a[href*="#/job/"]');
    await page.waitForSelector('[data-view="job"] [data-job="/tree/child"]');
    await page.waitForSelector('[data-view="job"] [data-task]');
    await screenshot(page, 'job');

    await page.click('[data-logs-link]');
    await page.waitForSelector('[data-view="logs"] [data-log-phase="following"]');
    await page.waitForFunction(() => document.querySelector('[data-log]')?.textContent?.includes('child is up'));
    childSays.open();
    await page.waitForFunction(() =>
      document.querySelector('[data-log]')?.textContent?.includes('second line from the child'),
    );
    await screenshot(page, 'logs');

    // Cancel the tree from its page; the page and the CLI both see it end.
    await page.goto(new URL('#/job/tree', page.url()).href);
    await page.waitForSelector('[data-view="job"] [data-job="/tree"]');
    await page.waitForSelector('[data-view="job"] [data-action="cancel"]');
    const cancels: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/v1/jobs/cancel')) cancels.push(request.url());
    });
    // Cancel asks first; saying no sends nothing (confirm() blocks the click's handler, so the click
    // returns after the answer), and the job runs on.
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.dismiss();
    });
    await page.click('[data-view="job"] [data-action="cancel"]');
    expect(question).toBe('Cancel /tree and every job below it?');
    expect(await page.$('[data-action-result]')).toBeNull();
    expect(await page.textContent('[data-view="job"] [data-job="/tree"] [data-state]')).toBe('RUNNING');
    expect((await c.json<{ state: string }>(['status', 'tree'])).state).toBe('RUNNING');
    // Saying yes cancels the tree: exactly one cancel was ever sent.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('[data-view="job"] [data-action="cancel"]');
    await page.waitForFunction(
      () =>
        document.querySelector('[data-view="job"] [data-job="/tree"] [data-state]')?.textContent?.trim() === 'KILLED',
    );
    const status = await c.json<{ state: string }>(['status', 'tree']);
    expect(status.state).toBe('KILLED');
    expect(cancels).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('lists the queue in the cluster order with reasons, and the failure hint of a failed job', async () => {
    const { page, errors } = await loggedIn();
    const hog = c.gate('queue-hog');
    await c.submit(['--name', 'hog', '--cpu', '2'], ['sh', '-c', hog.hold]);
    await c.waitForState('/hog', 'RUNNING');
    for (const name of ['qa', 'qb', 'qc']) await c.submit(['--name', name, '--cpu', '1'], ['true']);
    const queue = await c.json<{ jobs: { job: string }[] }>(['queue']);
    const order = queue.jobs.map((j) => j.job);
    expect(order).toEqual(['/qa', '/qb', '/qc']);

    await page.goto(new URL('#/queue', page.url()).href);
    await page.waitForSelector('[data-view="queue"] [data-queue-job="/qc"]');
    const rows = await page.$$eval('[data-view="queue"] [data-queue-job]', (trs) =>
      trs.map((tr) => ({
        job: tr.getAttribute('data-queue-job'),
        position: tr.querySelector('[data-position]')?.getAttribute('data-position'),
        reason: tr.querySelector('[data-reason]')?.textContent?.trim() ?? '',
      })),
    );
    expect(rows.map((r) => r.job)).toEqual(order);
    expect(rows.map((r) => r.position)).toEqual(['1', '2', '3']);
    for (const row of rows) expect(row.reason).toMatch(/cpu/i);
    await screenshot(page, 'queue');
    hog.open();
    for (const name of ['/hog', '/qa', '/qb', '/qc']) await c.waitForEnd(name);

    await c.submit(['--name', 'broken'], ['sh', '-c', 'echo "checkpoint missing: /data/ckpt-7" >&2; exit 3']);
    await c.waitForEnd('/broken');
    await page.goto(new URL('#/job/broken', page.url()).href);
    const hint = await page.waitForSelector('[data-failure-hint]');
    await page.waitForFunction(() =>
      document.querySelector('[data-failure-hint]')?.textContent?.includes('checkpoint missing'),
    );
    expect(await hint.textContent()).toMatch(/exit 3/);
    await screenshot(page, 'failure');
    expect(errors).toEqual([]);
  });

  it('draws the workers view with its timeline, and lists the history', async () => {
    const { page, errors } = await loggedIn();
    await c.submit(['--name', 'short'], ['true']);
    await c.waitForEnd('/short');
    await page.goto(new URL('#/workers', page.url()).href);
    await page.waitForSelector('[data-view="workers"] [data-worker="w0"]');
    await page.waitForSelector('[data-gantt] [data-gantt-task="/short/task-0"]');
    await page.waitForSelector('[data-plot] canvas');
    await screenshot(page, 'workers');

    await page.goto(new URL('#/history', page.url()).href);
    await page.waitForSelector('[data-view="history"] [data-run^="/short@"]');
    await screenshot(page, 'history');
    expect(errors).toEqual([]);
  });

  it('fits a narrow window: the page does not scroll sideways; tables scroll inside, Gantt and plots fit', async () => {
    await c.submit(['--name', 'narrow'], ['true']);
    await c.waitForEnd('/narrow');
    const { page, errors } = await loggedIn({ width: 420, height: 800 });
    await page.waitForSelector('[data-view="jobs"] [data-job]');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(1);
    await screenshot(page, 'jobs-narrow');
    await page.goto(new URL('#/workers', page.url()).href);
    await page.waitForSelector('[data-gantt]');
    await page.waitForSelector('[data-plot] canvas');
    expect(await overflow()).toBeLessThanOrEqual(1);
    // The Gantt is drawn at its box's width, and each plot with its legend within its box.
    const fits = await page.evaluate(() => {
      const gantt = document.querySelector('[data-gantt]')!;
      const box = gantt.parentElement!.getBoundingClientRect();
      const plots = Array.from(document.querySelectorAll('[data-plot]')).map((plot) => {
        const outer = plot.getBoundingClientRect();
        const legend = plot.querySelector('.u-legend')!.getBoundingClientRect();
        return legend.right <= outer.right + 1 && outer.right <= window.innerWidth;
      });
      return { gantt: gantt.getBoundingClientRect().width <= box.width + 1, plots };
    });
    expect(fits).toEqual({ gantt: true, plots: [true, true] });
    await screenshot(page, 'workers-narrow');
    expect(errors).toEqual([]);
  });

  it('says so for a hash naming no page, and clears a log error when the target changes', async () => {
    const { page, errors } = await loggedIn();
    await page.goto(new URL('#/nonsense', page.url()).href);
    await page.waitForSelector('[data-view="unknown"]');
    expect(await page.$('[data-view="jobs"]')).toBeNull();
    await page.goto(new URL('#/logs/nosuch', page.url()).href);
    await page.waitForSelector('[data-view="logs"] [data-error]');
    await c.submit(['--name', 'speaks'], ['sh', '-c', 'echo one line']);
    await c.waitForEnd('/speaks');
    await page.goto(new URL('#/logs/%2Fspeaks%2Ftask-0', page.url()).href);
    await page.waitForFunction(() => document.querySelector('[data-log]')?.textContent?.includes('one line'));
    expect(await page.$('[data-view="logs"] [data-error]')).toBeNull();
    expect(errors).toEqual([]);
  });
  it("says a stopped cluster's server is gone, then shows it read-only: its saved jobs, no actions", async () => {
    // A page open while the cluster stops: its server is gone with it (not a read-only server).
    const open = await loggedIn();
    await c.stop();
    await open.page.waitForSelector('[data-gone]');
    await open.page.waitForSelector('[data-live="off"]');
    expect(await open.page.$('[data-readonly]')).toBeNull();
    expect(await open.page.textContent('[data-gone]')).toContain('iris dashboard');
    expect(open.errors).toEqual([]);
    const { child, info } = await serveOffline(c.cwd, c.env);
    try {
      const { loginUrl, mode } = info;
      expect(mode).toBe('offline');
      const context = await freshContext(browser);
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(loginUrl);
      await page.waitForSelector('[data-live="offline"]');
      await page.waitForSelector('[data-readonly]');
      await page.waitForSelector('[data-view="jobs"] [data-job="/broken"]');
      await screenshot(page, 'offline');
      await page.goto(new URL('#/job/broken', page.url()).href);
      await page.waitForSelector('[data-view="job"] [data-job="/broken"]');
      expect(await page.$('[data-action]')).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
