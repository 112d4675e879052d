// The baseline placement modes when the simulator drives the scheduler (placement/baselines.ts):
// their memory (bindings, the round-robin position) goes from plan to snapshot through the
// QueueScheduler, as in the live cluster, and the engine stays unchanged.
import { describe, expect, it } from 'vitest';
import { placementOptions, type PlacementMode } from '../../src/cluster/scheduler/index.js';
import { QueueScheduler } from '../../src/cluster/scheduler/queue/index.js';
import { simulate, type SimResult } from '../../src/sim/engine.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

function run(doc: unknown, mode: PlacementMode, policy: 'easy' | 'first-fit' = 'easy'): SimResult {
  const scheduler = new QueueScheduler({ policy, defaultTimeLimitMs: Infinity }, placementOptions({ mode }));
  return simulate(parseWorkload(doc, 'baselines.yaml'), { scheduler });
}

const workersOf = (result: SimResult): Record<string, string[]> =>
  Object.fromEntries(result.jobs.map((j) => [j.name, j.workers]));

const TWO = [
  { name: 'w0', cpu: 4 },
  { name: 'w1', cpu: 4 },
];

describe('baseline modes in the simulator', () => {
  for (const policy of ['easy', 'first-fit'] as const) {
    it(`${policy}: static-worker keeps a tree on one worker; another submission gets the other`, () => {
      const result = run(
        {
          workers: TWO,
          jobs: [
            { name: 'a', submit: 0, run: 60, children: [{ name: 'b', after: 10, run: 30, replicas: 2 }] },
            { name: 'x', submit: 20, run: 10 },
            // Submitted after /a's tree ended: it binds anew, to the first open worker.
            { name: 'y', submit: 100, run: 10 },
          ],
        },
        'static-worker',
        policy,
      );
      expect(workersOf(result)).toEqual({ '/a': ['w0'], '/a/b': ['w0'], '/x': ['w1'], '/y': ['w0'] });
    });
  }

  it('fixed-pipeline: a type waits for its worker although another is free', () => {
    const result = run(
      {
        workers: TWO,
        jobs: [
          { name: 'p', submit: 0, run: 100, cpu: 3, children: [{ name: 'train', after: 0, run: 100, cpu: 1 }] },
          { name: 'q', submit: 50, run: 100, cpu: 1, children: [{ name: 'train', after: 0, run: 10, cpu: 2 }] },
        ],
      },
      'fixed-pipeline',
    );
    // /p and /p/train fill w0 until 100 (train is bound to w0), so /q goes to w1.
    expect(workersOf(result)['/p/train']).toEqual(['w0']);
    expect(workersOf(result)['/q']).toEqual(['w1']);
    // /q/train (2 CPUs) waits for w0 while w1 has 3 free: it starts when /p ends at 100.
    const qTrain = result.jobs.find((j) => j.name === '/q/train')!;
    expect(qTrain.workers).toEqual(['w0']);
    expect(qTrain.start).toBe(100);
  });

  it('round-robin: tasks rotate over the workers from pass to pass', () => {
    const result = run(
      {
        workers: [
          { name: 'w0', cpu: 4 },
          { name: 'w1', cpu: 4 },
          { name: 'w2', cpu: 4 },
        ],
        jobs: [0, 1, 2, 3].map((i) => ({ name: `j${i}`, submit: i, run: 100 })),
      },
      'round-robin',
    );
    expect(workersOf(result)).toEqual({ '/j0': ['w0'], '/j1': ['w1'], '/j2': ['w2'], '/j3': ['w0'] });
  });
});
