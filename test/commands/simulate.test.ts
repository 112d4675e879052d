import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Simulate from '../../src/commands/simulate.js';
import { captureCommand } from '../helpers/capture-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LUBLIN = path.join(root, '..', 'shared', 'traces', 'lublin_256.swf');

const runSimulate = (argv: string[]) => captureCommand(() => Simulate.run(argv, root));

function swfLine(id: number, submit: number, run: number, procs: number): string {
  return [id, submit, -1, run, procs, -1, -1, procs, run, -1, 1, 7, 1, 1, 1, -1, -1, -1].join(' ');
}

let dir: string;
let trace: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'iris-sim-'));
  trace = path.join(dir, 'small.swf');
  const rows = [
    swfLine(1, 0, 10, 2),
    swfLine(2, 1, 10, 3),
    swfLine(3, 2, 10, 4),
    swfLine(4, 3, 20, 1),
    swfLine(5, 4, 5, 2),
    swfLine(6, 5, 5, 9),
  ];
  writeFileSync(trace, ['; Version: 2', '; MaxProcs: 4', ...rows].join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('iris simulate', () => {
  it('--json: summary, per-job results and the job too wide for the pool', async () => {
    const { exit, stdout } = await runSimulate([trace, '--policy', 'first-fit', '--json']);
    expect(exit).toBe(0);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ kind: 'swf', policy: 'first-fit', order: 'fcfs', procs: 4, workers: 1, window: null });
    expect(body.summary).toMatchObject({ jobs: 5, skipped: 1, unfinished: 0, makespan: 35 });
    expect(body.summary.avgWait).toBeCloseTo(48 / 5, 10);
    expect(body.summary.avgBoundedSlowdown).toBeCloseTo(9.3 / 5, 10);
    expect(body.summary.utilization).toBeCloseTo(120 / 140, 10);
    expect(body.skipped).toEqual([{ name: '/job-6', reason: 'needs 9 processors, wider than the pool of 4' }]);
    // Per-job rows in arrival order.
    expect(body.jobs.map((j: { name: string; start: number }) => [j.name, j.start])).toEqual([
      ['/job-1', 0],
      ['/job-2', 10],
      ['/job-3', 25],
      ['/job-4', 3],
      ['/job-5', 20],
    ]);
    expect(body.jobs[3]).toMatchObject({
      index: 3,
      user: 'u7',
      submit: 3,
      end: 23,
      wait: 0,
      run: 20,
      procs: 1,
      workers: ['pool'],
    });
  });

  it('prints a summary table and writes the plot', async () => {
    const plot = path.join(dir, 'out.svg');
    const { exit, stdout, stderr } = await runSimulate([trace, '--policy', 'first-fit', '--plot', plot]);
    expect(exit).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('Machine:               4 processors');
    expect(stdout).toContain('Jobs:                  5 finished, 1 skipped');
    expect(stdout).toContain('Avg wait:              9s (9.6 s)');
    expect(stdout).toContain('Avg bounded slowdown:  1.86 (threshold 10 s)');
    expect(stdout).toContain('Utilization:           85.7%');
    expect(stdout).toContain('Makespan:              35s (35 s)');
    expect(stdout).toMatch(/\/job-6\s+skipped\s+needs 9 processors/);
    expect(stdout).toContain(`Plot written to ${plot}`);
    const svg = readFileSync(plot, 'utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('id="queue-series"');
    expect(svg).toContain('small.swf: first-fit, order fcfs, 4 procs');
  });

  it('--window selects jobs by 0-based index', async () => {
    const { stdout } = await runSimulate([trace, '--policy', 'first-fit', '--window', '3:2', '--json']);
    const body = JSON.parse(stdout);
    expect(body.window).toEqual({ start: 3, count: 2 });
    expect(body.jobs.map((j: { name: string; start: number }) => [j.name, j.start])).toEqual([
      ['/job-4', 3],
      ['/job-5', 4],
    ]);
    expect(body.summary.start).toBe(3);
  });

  it('runs the documented iris workload example (gang, child job, GPUs, a stream)', async () => {
    const example = path.join(root, 'docs', 'examples', 'workload.yaml');
    const { exit, stdout } = await runSimulate([example, '--json']);
    expect(exit).toBe(0);
    const body = JSON.parse(stdout);
    const by = Object.fromEntries(body.jobs.map((j: { name: string }) => [j.name, j]));
    expect(body).toMatchObject({ kind: 'iris', procs: null, workers: 7 });
    expect(body.summary).toMatchObject({ jobs: 15, skipped: 0, unfinished: 0, makespan: 10800 });
    expect(by['/train']).toMatchObject({
      start: 0,
      end: 7200,
      tasks: 4,
      workers: ['slice-a-0', 'slice-a-1', 'slice-a-2', 'slice-a-3'],
    });
    expect(by['/train/eval']).toMatchObject({ submit: 1800, start: 1800, end: 3000, workers: ['gpu'] });
    expect(by['/sweep']).toMatchObject({ submit: 600, start: 7200, wait: 6600 });
    for (let k = 0; k < 12; k++) expect(by[`/etl-${k}`]).toMatchObject({ submit: 300 * k, wait: 0 });
  });

  it('--compat rlscheduler prints per-window values and the mean', async () => {
    const { exit, stdout } = await runSimulate([trace, '--compat', 'rlscheduler', '--window', '0:5', '--json']);
    expect(exit).toBe(0);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ compat: 'rlscheduler', procs: 4, order: 'fcfs', backfill: false });
    expect(body.windows).toHaveLength(1);
    expect(body.windows[0]).toMatchObject({ start: 0, count: 5 });
    expect(body.mean).toBe(body.windows[0].avgBoundedSlowdown);
    const text = await runSimulate([trace, '--compat', 'rlscheduler', '--window', '0:5', '--backfill']);
    expect(text.stdout).toContain('RLScheduler compatibility (fcfs, backfill) on 4 processors');
    expect(text.stdout).toMatch(/Mean over 1 windows: \d+\.\d\d/);
  });

  const errors: Array<[string, () => string[], number, RegExp]> = [
    [
      'unknown policy',
      () => [trace, '--policy', 'lottery'],
      2,
      /unknown policy "lottery"[\s\S]*first-fit, fcfs, easy, conservative, hybrid/,
    ],
    ['unknown order', () => [trace, '--order', 'random'], 2, /unknown order "random"/],
    ['bad window', () => [trace, '--window', '5'], 2, /invalid window "5": expected START:COUNT/],
    ['window past the end', () => [trace, '--window', '99:2'], 2, /starts past the end/],
    ['missing file', () => [path.join(dir, 'none.swf')], 3, /trace file .*none\.swf does not exist/],
    ['unknown format', () => [path.join(dir, 'trace.txt')], 2, /cannot tell the format/],
    ['--backfill without --compat', () => [trace, '--backfill'], 2, /--backfill applies to --compat rlscheduler only/],
    [
      '--policy with --compat',
      () => [trace, '--compat', 'rlscheduler', '--policy', 'easy'],
      2,
      /--policy does not apply/,
    ],
    [
      'unknown placement mode',
      () => [trace, '--placement', 'lottery'],
      2,
      /unknown placement mode "lottery"[\s\S]*adaptive, first-fit, static-worker, fixed-pipeline, round-robin/,
    ],
    [
      'unknown selection',
      () => [trace, '--selection', 'best'],
      2,
      /unknown selection "best"[\s\S]*first-fit, min-satisfying/,
    ],
    ['bad --cache-ttl', () => [trace, '--cache-ttl', 'soon'], 2, /invalid time "soon"/],
    ['zero --cache-ttl', () => [trace, '--cache-ttl', '0'], 2, /invalid --cache-ttl "0": expected a duration above 0/],
    [
      'zero --default-time-limit',
      () => [trace, '--default-time-limit', '0'],
      2,
      /invalid --default-time-limit "0": expected a duration of at least 1s such as 24h\nHint: .*default is 24h/,
    ],
    ['bad --default-time-limit', () => [trace, '--default-time-limit', 'tomorrow'], 2, /invalid time "tomorrow"/],
    [
      '--default-time-limit with --compat',
      () => [trace, '--compat', 'rlscheduler', '--default-time-limit', '24h'],
      2,
      /--default-time-limit does not apply to --compat rlscheduler/,
    ],
    [
      '--predict with --compat',
      () => [trace, '--compat', 'rlscheduler', '--predict'],
      2,
      /--predict \/ --no-predict does not apply to --compat rlscheduler/,
    ],
    ['--study with --no-predict', () => ['--study', '--no-predict'], 2, /--predict does not apply to --study/],
    [
      '--study with --default-time-limit',
      () => ['--study', '--default-time-limit', '24h'],
      2,
      /--default-time-limit does not apply to --study/,
    ],
    ['no trace', () => [], 2, /missing TRACE[\s\S]*--study/],
    ['--seed without --study', () => [trace, '--seed', '3'], 2, /--seed applies to --study only/],
    ['--study with a trace', () => ['--study', trace], 2, /--study generates its own workload; remove the trace/],
    [
      '--study with --placement',
      () => ['--study', '--placement', 'adaptive'],
      2,
      /--placement does not apply to --study/,
    ],
  ];
  for (const [what, argv, exit, message] of errors) {
    it(`bad input: ${what}`, async () => {
      const result = await runSimulate(argv());
      expect(result.exit).toBe(exit);
      expect(result.stderr).toMatch(/^Error: /);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('    at ');
    });
  }

  it('--default-time-limit: jobs without a requested time get it, others keep theirs; predictions on', async () => {
    // /job-3 (no requested time, really 10 s) blocks /job-4 (whole machine); /job-5 (1000 s) fits beside
    // /job-3: test/sim/default-time-limit.test.ts computes these starts by hand.
    const rows = [
      [1, 0, 10, 4, -1],
      [2, 20, 10, 4, -1],
      [3, 40, 10, 2, -1],
      [4, 41, 10, 4, 10],
      [5, 42, 1000, 2, 1000],
    ].map(([id, submit, run, p, req]) =>
      [id, submit, -1, run, p, -1, -1, p, req, -1, 1, 1, 1, 1, 1, -1, -1, -1].join(' '),
    );
    const file = path.join(dir, 'unlimited.swf');
    writeFileSync(file, ['; MaxProcs: 4', ...rows].join('\n') + '\n');
    const startsOf = async (...flags: string[]) => {
      const { exit, stdout } = await runSimulate([file, '--policy', 'easy', '--json', ...flags]);
      expect(exit).toBe(0);
      const body = JSON.parse(stdout);
      const starts = Object.fromEntries(body.jobs.map((j: { name: string; start: number }) => [j.name, j.start]));
      return { body, job4: starts['/job-4'], job5: starts['/job-5'] };
    };
    const exact = await startsOf();
    expect(exact.body.defaultTimeLimit).toBeUndefined();
    expect([exact.job4, exact.job5]).toEqual([50, 60]);
    const day = await startsOf('--default-time-limit', '24h', '--no-predict');
    expect(day.body.defaultTimeLimit).toEqual({ seconds: 86_400, jobs: 3 });
    expect(day.body.predict).toBeUndefined();
    expect([day.job4, day.job5]).toEqual([1042, 42]);
    // With --default-time-limit, predictions are on unless --no-predict (as the live cluster does).
    for (const flags of [['--predict'], []]) {
      const predicted = await startsOf('--default-time-limit', '1d', ...flags);
      expect(predicted.body).toMatchObject({ predict: true, defaultTimeLimit: { seconds: 86_400, jobs: 3 } });
      expect([predicted.job4, predicted.job5]).toEqual([50, 60]);
    }
    // A limit shorter than a run stops it, as live; the summary says so.
    const short = await runSimulate([file, '--policy', 'easy', '--default-time-limit', '5s']);
    expect(short.stdout).toContain('Runtimes:              jobs without a time limit of their own planned with');
    expect(short.exit).toBe(0);
    expect(short.stdout).toContain('Default limit:         5s for the 3 jobs without a time limit of their own');
    expect(short.stdout).toContain('Stopped at limit:      3 jobs ran longer than their time limit');
  });

  it('bad input: an SWF without MaxProcs asks for --procs; unreadable lines name the line', async () => {
    const bare = path.join(dir, 'bare.swf');
    writeFileSync(bare, swfLine(1, 0, 10, 2) + '\n');
    const missing = await runSimulate([bare]);
    expect(missing.exit).toBe(2);
    expect(missing.stderr).toMatch(/no MaxProcs[\s\S]*--procs N/);
    expect((await runSimulate([bare, '--procs', '2', '--policy', 'first-fit', '--json'])).exit).toBe(0);
    const broken = path.join(dir, 'broken.swf');
    writeFileSync(broken, '; MaxProcs: 4\n1 0 -1 ten 2\n');
    const result = await runSimulate([broken]);
    expect(result.exit).toBe(2);
    expect(result.stderr).toContain('broken.swf:2');
  });

  it('bad input: workload file errors name the file and key path', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'workers: [{ name: w, cpu: 2 }]\njobs:\n  - name: a\n    run: 10\n    children:\n      - name: b\n        ' +
        'after: soon\n        run: 1\n',
    );
    const result = await runSimulate([file]);
    expect(result.exit).toBe(2);
    expect(result.stderr).toContain(`${file}: jobs[0].children[0].after: invalid time "soon"`);
    const windowed = await runSimulate([file, '--window', '0:1']);
    expect(windowed.stderr).toContain('--window applies to SWF traces only');
  });

  it('--study prints the dispatch study table; --json has the rows', async () => {
    const text = await runSimulate(['--study']);
    expect(text.exit).toBe(0);
    expect(text.stdout).toContain('dispatch study, seed 1: 213 top-level jobs on 14 workers');
    expect(text.stdout).toMatch(/PLACEMENT +SELECTION +ELASTIC +MAKESPAN \(S\) +TOTAL COST/);
    expect(text.stdout).toMatch(/first-fit +first-fit +off +8207 +112\.41 +256\.26 +224\.9 +79\.8% +- +79\.33\n/);
    expect(text.stdout).toMatch(/adaptive +first-fit +on +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+% +[\d.]+ +[\d.]+\n/);
    expect(text.stdout).toMatch(
      /round-robin +min-satisfying +on +8207 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+% +[\d.]+ +[\d.]+\n/,
    );
    const json = await runSimulate(['--study', '--seed', '2', '--json']);
    expect(json.exit).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({ seed: 2, policy: 'easy', workers: 14 });
    expect(body.rows).toHaveLength(20);
    expect(body.rows.at(-1)).toMatchObject({ placement: 'round-robin', selection: 'min-satisfying', elastic: true });
    expect(body.rows.at(-1).metrics.makespan).toBeGreaterThan(7200);
    const [off, on] = body.rows;
    expect(off).toMatchObject({
      placement: 'adaptive',
      selection: 'first-fit',
      elastic: false,
      metrics: { disabledWorkerHours: null },
    });
    expect(off.metrics.makespan).toBeGreaterThan(7200);
    expect(off.metrics.reuseHitRate).toBeGreaterThan(0);
    expect(on.metrics.disabledWorkerHours).toBeGreaterThan(0);
  });

  it('a workload with cost, models and pipelines: cost, reuse hits, placement and --cache-ttl', async () => {
    const models = path.join(dir, 'models.yaml');
    writeFileSync(
      models,
      [
        'workers: [{ name: g, gpu: { variant: L4, count: 1, memory: 24GiB }, cost-per-hour: 3.6 }]',
        'models: { llama: { load: 100s } }',
        'jobs:',
        '  - { name: train, run: 50, gpu: 1, category: training, uses: llama }',
        '  - { name: eval, run: 50, gpu: 1, uses: llama, needs: train, submit: 400 }',
      ].join('\n') + '\n',
    );
    const warm = await runSimulate([models]);
    expect(warm.exit).toBe(0);
    // The cluster's default placement.
    expect(warm.stdout).toMatch(/Placement: +adaptive \(selection first-fit\)/);
    // 150 s (run + load) then 50 s at 3.6 per hour.
    expect(warm.stdout).toMatch(/Total cost: +0\.20 /);
    expect(warm.stdout).toMatch(/Reuse hits: +50\.0% \(1 of 2 task starts/);
    const cold = JSON.parse(
      (
        await runSimulate([
          models,
          '--cache-ttl',
          '200s',
          '--placement',
          'first-fit',
          '--selection',
          'min-satisfying',
          '--json',
        ])
      ).stdout,
    );
    expect(cold).toMatchObject({
      placement: 'first-fit',
      selection: 'min-satisfying',
      summary: { reuseHits: 0, reuseStarts: 2, reuseHitRate: 0, disabledWorkerHours: null },
    });
    expect(cold.jobs.map((j: { name: string; start: number; end: number }) => [j.name, j.start, j.end])).toEqual([
      ['/train', 0, 150],
      ['/eval', 400, 550],
    ]);
    // --elastic: the summary reports disabled worker-hours; with one worker and min-active 1 it is never disabled.
    const elastic = await runSimulate([models, '--elastic']);
    expect(elastic.exit).toBe(0);
    expect(elastic.stdout).toMatch(/Elastic: +0\.00 worker-hours disabled by the elastic coordinator/);
  });

  it.skipIf(!existsSync(LUBLIN))('a window of lublin_256.swf completes and is deterministic', async () => {
    const argv = [LUBLIN, '--policy', 'easy', '--window', '1981:1024', '--json'];
    const first = await runSimulate(argv);
    const second = await runSimulate(argv);
    expect(first.exit).toBe(0);
    const body = JSON.parse(first.stdout);
    expect(body.summary).toMatchObject({ jobs: 1024, skipped: 0, unfinished: 0 });
    expect(body.summary.utilization).toBeGreaterThan(0.3);
    expect(body.summary.utilization).toBeLessThanOrEqual(1);
    expect(second.stdout).toBe(first.stdout);
  });
});
