import { describe, expect, it } from 'vitest';
import { clusterView } from './view.js';
import { admitPipeline } from '../../../src/cluster/admission/pipeline.js';
import type { AdmissionDefaults, ClusterView } from '../../../src/cluster/admission/index.js';
import type { WorkerView } from '../../../src/cluster/scheduler/types.js';

const DEFAULTS: AdmissionDefaults = {
  user: 'bob',
  cwd: '/home/bob',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
};
const WORKER: WorkerView = {
  id: 'w0',
  device: { type: 'cpu', variant: null, count: 0 },
  attributes: {},
  capacity: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3 },
  free: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3, devices: [] },
  schedulable: true,
};
const view = (over: Partial<ClusterView> = {}): ClusterView => clusterView([WORKER], over);

describe('pipeline admission', () => {
  it(
    'admits the root (iris wait on its stages) and each stage after the stages it needs, with stage info; an image ' +
      'may hold a reference',
    () => {
      const specs = admitPipeline(
        {
          name: 'demo',
          stages: {
            eval: {
              needs: ['train'],
              command: ['echo', '${stages.train.result.ckpt}'],
              image: 'registry.local/${stages.train.result.tag}',
              category: 'inference',
              uses: ['ckpt'],
            },
            train: { command: ['train'], cpu: 2 },
          },
        },
        null,
        view(),
        DEFAULTS,
      );
      expect(specs.map((s) => s.name)).toEqual(['/demo', '/demo/train', '/demo/eval']);
      expect(specs[0]).toMatchObject({
        command: ['iris', 'wait', 'train', 'eval'],
        pipeline: {
          stages: [
            { name: 'train', needs: [] },
            { name: 'eval', needs: ['train'] },
          ],
        },
      });
      expect(specs[0]!.resources).toMatchObject({ cpuMillis: 100, memoryBytes: 64 * 1024 ** 2 });
      expect(specs[1]).toMatchObject({ stage: { name: 'train', needs: [] }, resources: { cpuMillis: 2000 } });
      expect(specs[1]!.after).toBeUndefined();
      expect(specs[2]).toMatchObject({
        after: [{ job: '/demo/train', condition: 'ok' }],
        image: 'registry.local/${stages.train.result.tag}',
        command: ['echo', '${stages.train.result.ckpt}'],
        stage: { name: 'eval', needs: ['train'] },
        category: 'inference',
        uses: ['ckpt'],
      });
    },
  );

  it.each([
    [{ a: { command: ['x'], needs: ['b'] } }, 'stages.a.needs[0]: unknown stage "b" (stages: a)'],
    [
      { a: { command: ['x'], image: '${stages.a.result.x}' } },
      'stages.a.image: ${stages.a.result.x}: stage "a" is not in needs (needs: none)',
    ],
    [
      { a: { command: ['x'] }, b: { command: ['x'], needs: ['a'], memory: '5XB' } },
      'stages.b.memory: invalid memory "5XB"',
    ],
    [{ a: { command: ['x'], cpu: 64 } }, 'stages.a: job /demo/a can never run on this cluster'],
  ])('refuses the whole pipeline: %j', (stages, message) => {
    expect(() => admitPipeline({ name: 'demo', stages }, null, view(), DEFAULTS)).toThrow(message);
  });

  it('refuses a pipeline name that is not a job name', () => {
    expect(() => admitPipeline({ name: 'task-3', stages: { a: { command: ['x'] } } }, null, view(), DEFAULTS)).toThrow(
      /task-3/,
    );
  });
});
