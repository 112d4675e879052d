import { afterEach, describe, expect, it } from 'vitest';
import { placementOptions, type PlacementProfile } from '../../../src/cluster/scheduler/index.js';
import type { WorkerScorer } from '../../../src/cluster/scheduler/placement/scoring.js';
import { harness, LONG, spec, workerSpec, type Harness } from './helpers.js';
import { joined } from '../../helpers/regex.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('adaptive placement in the controller', () => {
  /** An inference job on w1 (price 5) and w2 (price 1), same size, under `placement`: its first attempt and the log. */
  async function serveOnPricedPair(placement: PlacementProfile) {
    const lines: string[] = [];
    h = harness([workerSpec('w1', { costPerHour: 5 }), workerSpec('w2', { costPerHour: 1 })], undefined, undefined, {
      placement,
      log: (line) => lines.push(line),
    });
    const { store, controller, until } = h;
    store.submit(spec('/serve', { command: LONG, category: 'inference' }));
    controller.start();
    await until(() => store.task('/serve/task-0')?.state === 'RUNNING');
    return { attempt: store.attemptsOf('/serve/task-0')[0]!, lines };
  }

  it('stores the decision on the attempt and logs one line per dispatch', async () => {
    // Same size, w1 five times the price: inference (λ 0.4) goes to w2 although w1 comes first.
    const { attempt, lines } = await serveOnPricedPair(placementOptions());
    expect(attempt.workerId).toBe('w2');
    expect(attempt.placement).toMatchObject({
      mode: 'adaptive',
      pool: 2,
      lambda: 0.4,
      reuseHit: false,
      runnerUp: { workerId: 'w1' },
    });
    expect(lines.filter((l) => l.startsWith('dispatch '))).toEqual([
      expect.stringMatching(
        joined(
          /^dispatch \/serve\/task-0 attempt 0 -> w2: adaptive: 2 /,
          /candidates, λ 0\.4, score -?0\.\d\d \(next w1 -0\.6\d\)$/,
        ),
      ),
    ]);
  });

  it('first-fit mode keeps worker order and records no decision', async () => {
    const { attempt, lines } = await serveOnPricedPair(placementOptions({ mode: 'first-fit' }));
    expect(attempt.workerId).toBe('w1');
    expect(attempt.placement).toBeNull();
    expect(lines).toContain('dispatch /serve/task-0 attempt 0 -> w1: first fit (not scored)');
  });

  it('equal scores go to the worker this controller dispatched to least recently', async () => {
    h = harness([workerSpec('w1'), workerSpec('w2')], undefined, undefined, {
      placement: placementOptions({ jitter: 0 }),
    });
    const { store, controller, until, clock } = h;
    store.submit(spec('/a', { command: LONG }));
    controller.start();
    await until(() => store.task('/a/task-0')?.state === 'RUNNING');
    clock.tick(1000);
    store.submit(spec('/b', { command: LONG }));
    controller.requestPass();
    await until(() => store.task('/b/task-0')?.state === 'RUNNING');
    // Same size, same price, no jitter: w1 (first in order) for /a, then w2, never dispatched to, for /b.
    expect([store.task('/a/task-0')!.workerId, store.task('/b/task-0')!.workerId]).toEqual(['w1', 'w2']);
  });

  it('a scorer added to a mode reaches the controller through the path the daemon uses', async () => {
    // What a developer adds (docs/architecture.md, "Adding a scorer"): prefer the workers listed.
    const preferred = (ids: string[]): WorkerScorer => ({
      name: 'preferred-workers',
      begin: ({ snapshot }) => {
        const listed = Uint8Array.from(snapshot.workers, (worker) => (ids.includes(worker.id) ? 1 : 0));
        return { score: (_job, _task, w) => listed[w]! };
      },
    });
    // The daemon hands the controller placementOptions(config.placement); here adaptive plus the scorer.
    const adaptive = placementOptions();
    const profile: PlacementProfile = {
      ...adaptive,
      name: 'adaptive+preferred',
      scorers: [...adaptive.scorers, { scorer: preferred(['w1']), weight: 10 }],
    };
    const { attempt, lines } = await serveOnPricedPair(profile);
    // Adaptive alone sends it to the cheaper w2 (the first test); the preference outweighs the price.
    expect(attempt.workerId).toBe('w1');
    expect(attempt.placement).toMatchObject({
      mode: 'adaptive+preferred',
      pool: 2,
      lambda: 0.4,
      runnerUp: { workerId: 'w2' },
    });
    const dispatched = /^dispatch \/serve\/task-0 attempt 0 -> w1: adaptive\+preferred: 2 candidates, λ 0\.4, score 9/;
    expect(lines.filter((l) => l.startsWith('dispatch '))).toEqual([expect.stringMatching(dispatched)]);
  });
});
