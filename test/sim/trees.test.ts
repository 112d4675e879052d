// Job trees whose parents wait for their subtree in the simulator (docs/simulate.md, "Job trees
// that wait"): a waiting task releases its CPU (memory and devices stay held), ends when its
// subtree has, and a run that can go no further reports the deadlocked jobs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import Simulate from '../../src/commands/simulate.js';
import { simulate, type SimResult } from '../../src/sim/engine.js';
import { createScheduler } from '../../src/sim/policy.js';
import { runSimulation } from '../../src/sim/service.js';
import { parseWorkload } from '../../src/sim/workload-file.js';
import { renderSimulation } from '../../src/ui/simulation.js';
import { captureCommand } from '../helpers/capture-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = path.join(root, 'docs', 'examples', 'tree-workload.yaml');

/** `iris simulate ARGV` in process: its exit code and stdout / stderr. */
const cli = (argv: string[]) => captureCommand(() => Simulate.run(argv, root));

function run(doc: unknown, release: boolean, policy: 'easy' | 'first-fit' = 'easy'): SimResult {
  return simulate(parseWorkload(doc, 'tree.yaml'), { scheduler: createScheduler({ policy }), release });
}

const spans = (result: SimResult): Record<string, [number, number]> =>
  Object.fromEntries(result.jobs.map((j) => [j.name, [j.start, j.end]]));

/** The issue's tree on a 2-CPU machine: /a (2 replicas) waits on /a/b, which waits on /a/b/c; every job asks 1 CPU. */
const ISSUE_TREE = {
  workers: [{ name: 'w', cpu: 2 }],
  jobs: [
    {
      name: 'a',
      run: 60,
      replicas: 2,
      wait: true,
      children: [{ name: 'b', after: 0, run: 60, wait: true, children: [{ name: 'c', after: 0, run: 60 }] }],
    },
  ],
};

describe('trees in the simulator', () => {
  for (const policy of ['easy', 'first-fit'] as const) {
    it(`${policy}: with release the waiting parents give their CPU to the subtree, and end with it`, () => {
      const result = run(ISSUE_TREE, true, policy);
      // /a's two tasks run 0-60 and wait, releasing both CPUs: /a/b takes one at 60 and /a/b/c
      // (submitted when /a/b starts) the other; c ends at 120, then b, then a.
      expect(spans(result)).toEqual({ '/a': [0, 120], '/a/b': [60, 120], '/a/b/c': [60, 120] });
      expect(result.deadlocked).toEqual([]);
      expect(result.summary).toMatchObject({ jobs: 3, unfinished: 0, deadlocked: 0, makespan: 120 });
      // Busy CPU time is the runs only (2x60 + 60 + 60), not the waits: both CPUs always busy.
      expect(result.summary.utilization).toBeCloseTo(240 / (2 * 120), 10);
    });
  }

  it('without release the same tree deadlocks, and the run stops naming the jobs and why', () => {
    const result = run(ISSUE_TREE, false);
    expect(result.jobs).toEqual([]);
    expect(result.summary).toMatchObject({ jobs: 0, unfinished: 0, deadlocked: 2 });
    expect(result.deadlocked.map((d) => d.name)).toEqual(['/a', '/a/b']);
    expect(result.deadlocked[0]!.reason).toBe('2 tasks wait for 2 jobs of its subtree, holding 1 CPU, 256MiB each');
    // The scheduler's own reason: a reservation behind the time limit of the parent that waits.
    expect(result.deadlocked[1]!.reason).toMatch(/^need 1 CPU, largest free worker has 0; reserved to start at /);
  });

  it('memory stays held while waiting: a child that needs it deadlocks even with release', () => {
    const result = run(
      {
        workers: [{ name: 'w', cpu: 2, memory: '1GiB' }],
        jobs: [
          { name: 'p', run: 10, memory: '768MiB', wait: true, children: [{ name: 'kid', run: 10, memory: '512MiB' }] },
        ],
      },
      true,
    );
    expect(result.deadlocked.map((d) => d.name)).toEqual(['/p', '/p/kid']);
    expect(result.deadlocked[0]!.reason).toBe(
      '1 task waits for 1 job of its subtree, holding 768MiB (its CPU released)',
    );
    expect(result.deadlocked[1]!.reason).toMatch(/memory/);
  });

  it('a parent waits for a child that arrives after its run, and not for a child no worker can run', () => {
    const result = run(
      {
        workers: [{ name: 'w', cpu: 2 }],
        jobs: [
          {
            name: 'p',
            run: 10,
            wait: true,
            children: [
              { name: 'late', after: 30, run: 5 },
              { name: 'huge', after: 1, run: 5, cpu: 8 },
            ],
          },
        ],
      },
      true,
    );
    expect(spans(result)).toEqual({ '/p': [0, 35], '/p/late': [30, 35] });
    expect(result.skipped.map((s) => s.name)).toEqual(['/p/huge']);
    expect(result.deadlocked).toEqual([]);
  });

  it('a job without wait ends at the end of its run, its children running on', () => {
    const result = run(
      { workers: [{ name: 'w', cpu: 1 }], jobs: [{ name: 'p', run: 10, children: [{ name: 'kid', run: 10 }] }] },
      true,
    );
    expect(spans(result)).toEqual({ '/p': [0, 10], '/p/kid': [10, 20] });
  });

  it('wait must be true or false, and the error names the key path', () => {
    expect(() =>
      parseWorkload(
        { workers: [{ name: 'w' }], jobs: [{ name: 'p', run: 1, children: [{ name: 'k', run: 1, wait: 'yes' }] }] },
        'w.yaml',
      ),
    ).toThrow(/w\.yaml: jobs\[0\]\.children\[0\]\.wait: invalid wait "yes": expected true or false/);
  });
});

describe('the documented tree workload (docs/examples/tree-workload.yaml)', () => {
  const options = { trace: EXAMPLE, order: 'fcfs' as const, policy: 'easy', queueDepth: 32, reservationDepth: 64 };

  it('with release: no deadlock and all 72 jobs finish', async () => {
    const outcome = await runSimulation(options);
    if (outcome.mode !== 'iris') throw new Error('expected an iris run');
    expect(outcome.info).toMatchObject({ release: true, waitingJobs: 40 });
    expect(outcome.result.summary).toMatchObject({ jobs: 72, skipped: 0, unfinished: 0, deadlocked: 0 });
    expect(outcome.result.deadlocked).toEqual([]);
    const text = renderSimulation(outcome.info, outcome.result);
    expect(text).toMatch(/Jobs: +72 finished\n/);
    expect(text).toMatch(/Waiting parents: +40 jobs wait for their subtree, CPU released while waiting/);
    expect(text).toMatch(/Deadlocks: +none/);
  });

  it('without release: the deadlock is reported with the deadlocked jobs', async () => {
    const outcome = await runSimulation({ ...options, release: false });
    if (outcome.mode !== 'iris') throw new Error('expected an iris run');
    const { summary, deadlocked } = outcome.result;
    expect(summary.deadlocked).toBeGreaterThan(0);
    expect(summary.jobs).toBeLessThan(72);
    expect(deadlocked).toHaveLength(summary.deadlocked);
    // Each deadlocked sweep waits on its trials, which wait on evaluations that cannot start.
    expect(
      deadlocked.some(
        (d) => /^\/sweep-\d+$/.test(d.name) && /waits for \d+ jobs of its subtree, holding 1 CPU/.test(d.reason),
      ),
    ).toBe(true);
    expect(
      deadlocked.some((d) => /\/eval$/.test(d.name) && /need 1 CPU, largest free worker has 0/.test(d.reason)),
    ).toBe(true);
    const text = renderSimulation(outcome.info, outcome.result);
    expect(text).toContain(`Deadlocks:             ${summary.deadlocked} jobs can never end (below)`);
    expect(text).toMatch(/\/sweep-\d+ +deadlocked +1 task waits/);
  });

  it(
    'iris simulate --no-release --json: the deadlocked jobs and the counts; --release/--no-release is refused with ' +
      '--compat',
    async () => {
      const held = await cli([EXAMPLE, '--no-release', '--json']);
      expect(held.exit).toBe(0);
      const body = JSON.parse(held.stdout);
      expect(body).toMatchObject({ kind: 'iris', release: false, waitingJobs: 40 });
      expect(body.summary.deadlocked).toBeGreaterThan(0);
      expect(body.deadlocked).toHaveLength(body.summary.deadlocked);
      const released = JSON.parse((await cli([EXAMPLE, '--json'])).stdout);
      expect(released).toMatchObject({ release: true, deadlocked: [], summary: { jobs: 72, deadlocked: 0 } });
      const refused = await cli([EXAMPLE, '--compat', 'rlscheduler', '--no-release']);
      expect(refused.exit).not.toBe(0);
      expect(refused.stderr).toContain('--release / --no-release does not apply to --compat rlscheduler');
    },
  );
});
