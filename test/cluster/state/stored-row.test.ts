import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attemptLogPath,
  packLogPath,
  packPlacement,
  packSpec,
  unpackLogPath,
  unpackPlacement,
  unpackSpec,
} from '../../../src/cluster/state/stored-row.js';
import type { JobSpec, PlacementDecision } from '../../../src/model/types.js';
import { spec } from './helpers.js';

const specArb: fc.Arbitrary<JobSpec> = fc
  .record({
    env: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
    cwd: fc.option(fc.constant('/work')),
    image: fc.option(fc.constant('busybox')),
    replicas: fc.integer({ min: 1, max: 4 }),
    constraints: fc.array(fc.constant({ key: 'pool', op: '=', values: ['a'] }), { maxLength: 1 }),
    coschedule: fc.option(fc.constant('tpu-name')),
    maxRetries: fc.integer({ min: 0, max: 2 }),
    maxTaskFailures: fc.integer({ min: 0, max: 2 }),
    schedulingTimeoutMs: fc.option(fc.integer({ min: 1, max: 10 })),
    device: fc.option(fc.constant({ type: 'gpu', variant: 'H100', count: 1 })),
    band: fc.option(fc.constant('batch')),
  })
  .map(({ device, band, ...rest }) => {
    const s = spec('/a/b', rest as unknown as Partial<JobSpec>);
    s.resources = { ...s.resources, device: device as JobSpec['resources']['device'] };
    if (band !== null) s.band = band as JobSpec['band'];
    return s;
  });

describe('stored rows', () => {
  it('a spec reads back equal, whatever holds its default', () => {
    fc.assert(
      fc.property(specArb, (s) => {
        expect(unpackSpec(packSpec(s), s.name)).toEqual(s);
      }),
    );
  });

  it('a spec with every field at its default stores no more than what it says', () => {
    const text = packSpec(spec('/quiet'));
    expect(JSON.parse(text)).toEqual({
      user: 'alice',
      command: ['true'],
      resources: { cpuMillis: 1000, memoryBytes: 1 << 28 },
      maxPreemptions: 0,
      timeoutMs: null,
    });
  });

  it('a spec stored whole by an older build reads the same', () => {
    const s = spec('/old', { cwd: '/w' });
    expect(unpackSpec(JSON.stringify(s), '/old')).toEqual(s);
  });

  it('a placement reads back equal', () => {
    const base = { mode: 'adaptive', pool: 2, lambda: 0.5, score: 1.5 };
    for (const p of [
      { ...base, runnerUp: null, reuseHit: false },
      { ...base, runnerUp: { workerId: 'w2', score: 1 }, reuseHit: true },
    ] as PlacementDecision[])
      expect(unpackPlacement(packPlacement(p))).toEqual(p);
  });

  it("an attempt's log path where the cluster puts it is stored as '', any other as is", () => {
    const job = { name: '/a/b', run: 7 };
    const at = attemptLogPath('/h/logs', job.name, job.run, 2, 1);
    expect(at).toBe('/h/logs/a/b/@7/task-2/attempt-1.log');
    expect(packLogPath('/h/logs', at, job, 2, 1)).toBe('');
    expect(unpackLogPath('/h/logs', '', job, 2, 1)).toBe(at);
    expect(packLogPath('/h/logs', '/elsewhere/x.log', job, 2, 1)).toBe('/elsewhere/x.log');
    expect(packLogPath(null, at, job, 2, 1)).toBe(at);
    expect(packLogPath('/h/logs', at, job, 2, 0)).toBe(at);
  });
});
