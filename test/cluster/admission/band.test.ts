/** The band rules of a submission and of `iris update` (src/cluster/admission/band.ts), as a table. */
import { describe, expect, it } from 'vitest';
import { allowedBand, parseBand, updateCeiling, type BandCeiling } from '../../../src/cluster/admission/band.js';
import { resolveJob, type AdmissionDefaults, type ClusterView } from '../../../src/cluster/admission/index.js';
import { admitPipeline } from '../../../src/cluster/admission/pipeline.js';
import type { Band } from '../../../src/model/band.js';
import type { TaskCaller } from '../../../src/model/caller.js';
import { IrisError } from '../../../src/model/errors.js';

const GRANTS = { owner: 'owner', productionUsers: ['alice'] };

function outcome(requested: Band | null, user: string, ceiling: BandCeiling | null): string {
  try {
    return allowedBand(requested, user, ceiling, GRANTS);
  } catch (error) {
    if (!(error instanceof IrisError)) throw error;
    return `${error.code}: ${error.message}`;
  }
}

describe('allowedBand', () => {
  const interactiveParent = { parent: '/train', band: 'interactive' } as const;
  const cases: Array<[string, Band | null, string, BandCeiling | null, string | RegExp]> = [
    ['a root job asks for nothing: interactive', null, 'bob', null, 'interactive'],
    ['a root job asks for batch', 'batch', 'bob', null, 'batch'],
    ['the owner may have production', 'production', 'owner', null, 'production'],
    ['a granted user may have production', 'production', 'alice', null, 'production'],
    ['another user may not', 'production', 'bob', null, /^forbidden: priority production is not granted to user bob/],
    ['a child inherits its parent', null, 'bob', { parent: '/p', band: 'batch' }, 'batch'],
    ['a child may ask for a lower band', 'batch', 'bob', interactiveParent, 'batch'],
    ['a child may ask for its parent band', 'interactive', 'bob', interactiveParent, 'interactive'],
    [
      'a child may not ask for a higher band, owner or not',
      'production',
      'owner',
      interactiveParent,
      /^forbidden: priority production: a child job may not be in a higher band than its parent \/train/,
    ],
    [
      "a production task's child inherits production without a grant",
      null,
      'bob',
      { parent: '/p', band: 'production', task: true },
      'production',
    ],
    [
      'a job named under a production job from outside inherits it only where granted',
      null,
      'bob',
      { parent: '/p', band: 'production' },
      'interactive',
    ],
    [
      'nor may it ask for production there without a grant',
      'production',
      'bob',
      { parent: '/p', band: 'production' },
      /^forbidden: priority production is not granted to user bob/,
    ],
    ['a granted user inherits it', null, 'alice', { parent: '/p', band: 'production' }, 'production'],
  ];
  it.each(cases)('%s', (_what, requested, user, ceiling, expected) => {
    const got = outcome(requested, user, ceiling);
    if (typeof expected === 'string') expect(got).toBe(expected);
    else expect(got).toMatch(expected);
  });

  it('refuses a word that is not a band, naming the field', () => {
    expect(() => parseBand('urgent')).toThrow(
      /invalid priority "urgent": expected one of production, interactive, batch/,
    );
    expect(parseBand(null)).toBeNull();
  });
});

const DEFAULTS: AdmissionDefaults = {
  user: 'owner',
  cwd: '/home/owner',
  timeLimitMs: null,
  maxPreemptions: 1,
  image: null,
};

function view(bands: Record<string, Band> = {}): ClusterView {
  return {
    workers: [
      {
        id: 'w0',
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        capacity: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3 },
        free: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3, devices: [] },
        schedulable: true,
      },
    ],
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: () => false,
    generateName: () => 'gen',
    jobState: () => undefined,
    dependenciesOf: () => [],
    liveBand: (name) => bands[name],
  };
}

const CALLER: TaskCaller = {
  task: '/train/task-0',
  job: '/train',
  attempt: 0,
  user: 'bob',
  env: {},
  rootSubmittedAt: 1,
  band: 'batch',
};

describe('a submission gets its band', () => {
  it("a task's child inherits the caller's band, and may not rise above it (exit 4)", () => {
    expect(resolveJob({ command: ['x'], name: 'kid' }, CALLER, view(), DEFAULTS).spec.band).toBe('batch');
    const rising = () => resolveJob({ command: ['x'], name: 'kid', priority: 'interactive' }, CALLER, view(), DEFAULTS);
    expect(rising).toThrow(/higher band than its parent \/train \(batch\)/);
    try {
      rising();
    } catch (error) {
      expect((error as IrisError).exitCode).toBe(4);
      expect((error as IrisError).field).toBe('priority');
    }
  });

  it("the owner's named child of a live job takes that job's band as its ceiling", () => {
    const spec = resolveJob({ command: ['x'], name: '/sweep/one' }, null, view({ '/sweep': 'batch' }), DEFAULTS).spec;
    expect(spec.band).toBe('batch');
    expect(resolveJob({ command: ['x'], name: '/free' }, null, view(), DEFAULTS).spec.band).toBe('interactive');
  });

  it('a pipeline root is in the highest band its stages ask for; a stage asking none is interactive', () => {
    const specs = admitPipeline(
      { name: 'pipe', stages: { a: { command: ['x'], priority: 'production' }, b: { command: ['y'] } } },
      null,
      view(),
      DEFAULTS,
    );
    expect(specs.map((s) => [s.name, s.band])).toEqual([
      ['/pipe', 'production'],
      ['/pipe/a', 'production'],
      ['/pipe/b', 'interactive'],
    ]);
    const batch = admitPipeline(
      { name: 'low', stages: { a: { command: ['x'], priority: 'batch' }, b: { command: ['y'], priority: 'batch' } } },
      null,
      view(),
      DEFAULTS,
    );
    expect(batch.map((s) => s.band)).toEqual(['batch', 'batch', 'batch']);
  });
});

describe('updateCeiling: a task never raises a job above its own band', () => {
  it.each([
    ['the owner: the live parent only', { name: '/p', band: 'interactive' as const }, null, 'interactive', '/p'],
    ['the owner on a root job: none', null, null, null, null],
    ['a batch task on its own root job: its own band', null, { job: '/bp', band: 'batch' as const }, 'batch', '/bp'],
    [
      'a task under a lower parent: the lower of the two',
      { name: '/p', band: 'batch' as const },
      { job: '/t', band: 'interactive' as const },
      'batch',
      '/p',
    ],
  ])('%s', (_what, parent, caller, band, from) => {
    const ceiling = updateCeiling(parent, caller);
    expect(ceiling?.band ?? null).toBe(band);
    expect(ceiling?.parent ?? null).toBe(from);
  });

  it('so a batch task asking production for its own job is refused (exit 4)', () => {
    const ceiling = updateCeiling(null, { job: '/bp', band: 'batch' });
    expect(() => allowedBand('production', 'owner', ceiling, GRANTS)).toThrow(
      /higher band than its parent \/bp \(batch\)/,
    );
  });
});

describe('pipelines: a stage that asks for no band', () => {
  it('is interactive beside a batch stage, and the root follows the highest', () => {
    const specs = admitPipeline(
      { name: 'mixed', stages: { prep: { command: ['x'], priority: 'batch' }, train: { command: ['y'] } } },
      null,
      view(),
      DEFAULTS,
    );
    expect(specs.map((s) => [s.name, s.band])).toEqual([
      ['/mixed', 'interactive'],
      ['/mixed/prep', 'batch'],
      ['/mixed/train', 'interactive'],
    ]);
  });
});
