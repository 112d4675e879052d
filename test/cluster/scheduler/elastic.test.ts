/**
 * The elastic coordinator's decision (scheduler/elastic.ts) on a fake clock: the seed's "elastic
 * recovery" — disable when idle, re-enable when the queue crosses the threshold, cooldown and
 * min-active respected — plus the order of disables and who may be re-enabled.
 */
import { describe, expect, it } from 'vitest';
import { decideElastic, type ElasticSettings, type ElasticWorker } from '../../../src/cluster/scheduler/elastic.js';

const S: ElasticSettings = { idleDisableMs: 60_000, queueMax: 0, enableThreshold: 0, minActive: 1, cooldownMs: 60_000 };

function w(id: string, over: Partial<ElasticWorker> = {}): ElasticWorker {
  return {
    id,
    state: 'READY',
    disabledBy: null,
    busy: false,
    idleSince: 0,
    lastToggleAt: null,
    costPerHour: 1,
    ...over,
  };
}

const ids = (actions: ReturnType<typeof decideElastic>) => actions.map((a) => `${a.kind} ${a.workerId}`);

describe('decideElastic', () => {
  it('disables a worker idle for idle-disable while the queue is at most queue-max, keeping min-active', () => {
    const workers = [w('w1'), w('w2'), w('w3', { busy: true })];
    expect(decideElastic({ workers, queueLength: 0, now: 59_999, settings: S })).toEqual([]);
    const at60 = decideElastic({ workers, queueLength: 0, now: 60_000, settings: S });
    // w3 is busy and stays; w1 and w2 may both go since w3 keeps min-active 1.
    expect(ids(at60)).toEqual(['disable w1', 'disable w2']);
    expect(at60[0]).toMatchObject({ reason: 'idle 1m', why: 'idle for 1m00s, queue 0 <= queue-max 0' });
  });

  it('never leaves fewer than min-active workers enabled', () => {
    const workers = [w('w1'), w('w2'), w('w3')];
    expect(ids(decideElastic({ workers, queueLength: 0, now: 120_000, settings: S }))).toEqual([
      'disable w1',
      'disable w2',
    ]);
    expect(ids(decideElastic({ workers, queueLength: 0, now: 120_000, settings: { ...S, minActive: 3 } }))).toEqual([]);
    expect(ids(decideElastic({ workers, queueLength: 0, now: 120_000, settings: { ...S, minActive: 0 } }))).toEqual([
      'disable w1',
      'disable w2',
      'disable w3',
    ]);
    // Workers already disabled or drained do not count as active.
    const mixed = [w('w1'), w('w2', { state: 'DISABLED', disabledBy: 'user' }), w('w3', { state: 'DRAINED' })];
    expect(decideElastic({ workers: mixed, queueLength: 0, now: 120_000, settings: S })).toEqual([]);
  });

  it('does not disable while the queue is longer than queue-max', () => {
    const workers = [w('w1'), w('w2')];
    expect(
      decideElastic({ workers, queueLength: 3, now: 120_000, settings: { ...S, queueMax: 2, enableThreshold: 5 } }),
    ).toEqual([]);
    expect(
      ids(
        decideElastic({ workers, queueLength: 2, now: 120_000, settings: { ...S, queueMax: 2, enableThreshold: 5 } }),
      ),
    ).toEqual(['disable w1']);
  });

  it('disables the most expensive first, then the longest idle', () => {
    const workers = [
      w('cheap', { idleSince: 0 }),
      w('dear', { costPerHour: 5, idleSince: 30_000 }),
      w('old', { idleSince: -50_000 }),
    ];
    expect(ids(decideElastic({ workers, queueLength: 0, now: 100_000, settings: S }))).toEqual([
      'disable dear',
      'disable old',
    ]);
  });

  it(
    're-enables the workers it disabled when the queue is longer than enable-threshold, and disables nothing ' + 'then',
    () => {
      const workers = [
        w('w1', { state: 'DISABLED', disabledBy: 'elastic', lastToggleAt: 0 }),
        w('w2', { state: 'DISABLED', disabledBy: 'user', lastToggleAt: 0 }),
        w('w3'),
      ];
      expect(decideElastic({ workers, queueLength: 0, now: 200_000, settings: S })).toEqual([]);
      const actions = decideElastic({ workers, queueLength: 1, now: 200_000, settings: S });
      // The user's disable is never undone by the coordinator.
      expect(actions).toEqual([{ kind: 'enable', workerId: 'w1', why: 'queue 1 > enable-threshold 0' }]);
      expect(
        decideElastic({ workers, queueLength: 4, now: 200_000, settings: { ...S, enableThreshold: 4, queueMax: 4 } }),
      ).toEqual([]);
      expect(
        ids(
          decideElastic({ workers, queueLength: 5, now: 200_000, settings: { ...S, enableThreshold: 4, queueMax: 4 } }),
        ),
      ).toEqual(['enable w1']);
    },
  );

  it('respects the cooldown both ways', () => {
    const justOff = [w('w1', { state: 'DISABLED', disabledBy: 'elastic', lastToggleAt: 100_000 }), w('w2')];
    expect(decideElastic({ workers: justOff, queueLength: 1, now: 159_999, settings: S })).toEqual([]);
    expect(ids(decideElastic({ workers: justOff, queueLength: 1, now: 160_000, settings: S }))).toEqual(['enable w1']);
    // Enabled 10 s ago (its idle time starts then too): not disabled again within the cooldown.
    const justOn = [w('w1', { lastToggleAt: 100_000, idleSince: 0 }), w('w2')];
    expect(ids(decideElastic({ workers: justOn, queueLength: 0, now: 110_000, settings: S }))).toEqual(['disable w2']);
    expect(ids(decideElastic({ workers: justOn, queueLength: 0, now: 160_000, settings: S }))).toEqual(['disable w1']);
  });

  it('recovers on a fake clock: idle -> disabled, queue -> enabled, idle again -> disabled after the cooldown', () => {
    let worker = w('w1');
    const other = w('w2', { busy: true });
    const step = (now: number, queue: number) => {
      const actions = decideElastic({ workers: [worker, other], queueLength: queue, now, settings: S });
      for (const a of actions) {
        if (a.workerId !== 'w1') continue;
        worker =
          a.kind === 'disable'
            ? { ...worker, state: 'DISABLED', disabledBy: 'elastic', lastToggleAt: now }
            : { ...worker, state: 'READY', disabledBy: null, lastToggleAt: now, idleSince: now };
      }
      return worker.state;
    };
    expect(step(30_000, 0)).toBe('READY');
    expect(step(60_000, 0)).toBe('DISABLED');
    expect(step(90_000, 2)).toBe('DISABLED'); // cooldown: toggled 30 s ago
    expect(step(120_000, 2)).toBe('READY');
    expect(step(150_000, 0)).toBe('READY'); // idle only 30 s, and cooling down
    expect(step(180_000, 0)).toBe('DISABLED');
  });
});
