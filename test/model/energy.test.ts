import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptJoules, drawsPower, heldBy, useShare, wattsAt } from '../../src/model/energy.js';

const cpuWorker = { cpuMillis: 4000, device: { type: 'cpu' as const, variant: null, count: 0 } };
const gpuWorker = { cpuMillis: 8000, device: { type: 'gpu' as const, variant: 'H100', count: 4 } };

describe('the energy rule', () => {
  it('a worker draws idle watts with nothing running, busy watts fully used, linear between', () => {
    const power = { idle: 100, busy: 300 };
    expect(wattsAt(power, 0)).toBe(100);
    expect(wattsAt(power, 1)).toBe(300);
    expect(wattsAt(power, 0.25)).toBe(150);
    expect(wattsAt(power, 2)).toBe(300);
  });

  it('the use share is the larger of the CPU and device shares, at most 1', () => {
    expect(useShare(cpuWorker, { cpuMillis: 1000, devices: 0 })).toBe(0.25);
    expect(useShare(cpuWorker, { cpuMillis: 8000, devices: 0 })).toBe(1);
    expect(useShare(gpuWorker, { cpuMillis: 1000, devices: 2 })).toBe(0.5);
    expect(useShare(gpuWorker, heldBy({ cpuMillis: 6000, memoryBytes: 0, device: null }))).toBe(0.75);
    expect(
      heldBy({ cpuMillis: 500, memoryBytes: 0, device: { type: 'tpu', variant: 'v5litepod-4', chips: 4 } }),
    ).toEqual({ cpuMillis: 500, devices: 4 });
  });

  it('a READY or DRAINING worker draws power; a DISABLED or DRAINED one nothing', () => {
    expect(drawsPower('DISABLED')).toBe(false);
    expect(drawsPower('DRAINED')).toBe(false);
    for (const state of ['READY', 'DRAINING'] as const) expect(drawsPower(state)).toBe(true);
  });

  it('attempts on a worker are never charged more than the worker draws', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 10_000 }),
        (idle, extra, cpus, seconds) => {
          const power = { idle, busy: idle + extra };
          let held = 0;
          const fits = cpus.filter((c) => (held + c <= 4000 ? ((held += c), true) : false));
          const charged = fits.reduce(
            (sum, c) => sum + attemptJoules(power, useShare(cpuWorker, { cpuMillis: c, devices: 0 }), seconds),
            0,
          );
          const drawn = wattsAt(power, useShare(cpuWorker, { cpuMillis: held, devices: 0 })) * seconds;
          expect(charged).toBeLessThanOrEqual(drawn + 1e-6);
          expect(wattsAt(power, held / 4000)).toBeGreaterThanOrEqual(idle);
          expect(wattsAt(power, held / 4000)).toBeLessThanOrEqual(power.busy);
        },
      ),
    );
  });
});
