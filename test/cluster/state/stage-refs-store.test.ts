/**
 * The store resolves a pipeline stage's `${stages…}` references when its dependencies are met
 * (lifecycle.ts releaseStage), on a real SQLite file: the resolved spec is what the task gets and
 * what a reopened store holds; a result that never appeared fails the stage before it runs.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../../src/cluster/state/store.js';
import type { JobSpec } from '../../../src/model/types.js';
import { spec, start, useStoreFile, workerSpec } from './helpers.js';

const { open } = useStoreFile();

const stage = (name: string, needs: string[], over: Partial<JobSpec> = {}): JobSpec =>
  spec(`/p/${name}`, {
    stage: { name, needs },
    after: needs.map((need) => ({ job: `/p/${need}`, condition: 'ok' })),
    ...over,
  });

function pipeline(store: ClusterStore, evalOver: Partial<JobSpec>): void {
  store.syncWorkers([workerSpec('w1')]);
  store.submitAll([
    spec('/p', {
      pipeline: {
        stages: [
          { name: 'train', needs: [] },
          { name: 'eval', needs: ['train'] },
        ],
      },
    }),
    stage('train', [], { replicas: 2 }),
    stage('eval', ['train'], evalOver),
  ]);
}

describe('stage references in the store', () => {
  it('resolves command, env and image when the needs succeed; a reopened store keeps the resolved spec', () => {
    const store = open();
    pipeline(store, {
      command: ['eval', '--ckpt=${stages.train.result.ckpt}'],
      env: { ONE: '${stages.train.task-1.result.ckpt}' },
    });
    expect(store.job('/p/eval')!.spec.command).toEqual(['eval', '--ckpt=${stages.train.result.ckpt}']);
    start(store, '/p/train/task-0');
    start(store, '/p/train/task-1');
    store.setResults('/p/train/task-0', 0, { ckpt: '/c/0' });
    store.setResults('/p/train/task-1', 0, { ckpt: '/c/1' });
    store.finishAttempt('/p/train/task-0', 0, { kind: 'exited', exitCode: 0 });
    store.finishAttempt('/p/train/task-1', 0, { kind: 'exited', exitCode: 0 });
    expect(store.job('/p/eval')).toMatchObject({
      state: 'PENDING',
      spec: { command: ['eval', '--ckpt=/c/0'], env: { ONE: '/c/1' } },
    });
    expect([...store.queuedTasks()].map((t) => t.id)).toContain('/p/eval/task-0');
    store.close();
    const again = open();
    expect(again.job('/p/eval')!.spec.command).toEqual(['eval', '--ckpt=/c/0']);
    again.close();
  });

  it('fails the stage before it runs when its needed stage succeeded without the result', () => {
    const store = open();
    pipeline(store, { command: ['eval', '${stages.train.result.ckpt}'] });
    for (const id of ['/p/train/task-0', '/p/train/task-1']) {
      start(store, id);
      store.finishAttempt(id, 0, { kind: 'exited', exitCode: 0 });
    }
    expect(store.job('/p/eval')).toMatchObject({
      state: 'FAILED',
      reason: 'stage_reference_failed: stage train succeeded without result ckpt',
    });
    expect(store.attemptsOf('/p/eval/task-0')).toEqual([]);
    store.close();
  });

  it.each([
    ['resolves to the published tag', 'py:3', { state: 'PENDING', spec: { image: 'registry.local/py:3' } }],
    [
      'fails the stage when the value is no image reference',
      'NOT AN IMAGE',
      {
        state: 'FAILED',
        reason: 'stage_reference_failed: image resolved to "registry.local/NOT AN IMAGE", not an image reference',
      },
    ],
  ] as const)('an image reference %s', (_what, tag, expected) => {
    const store = open();
    pipeline(store, { command: ['eval'], image: 'registry.local/${stages.train.result.tag}' });
    for (const id of ['/p/train/task-0', '/p/train/task-1']) {
      start(store, id);
      store.setResults(id, 0, { tag });
      store.finishAttempt(id, 0, { kind: 'exited', exitCode: 0 });
    }
    expect(store.job('/p/eval')).toMatchObject(expected);
    store.close();
  });
});
